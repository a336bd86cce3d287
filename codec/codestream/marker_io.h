/* marker_io.h - helpers shared by the marker segment readers and writers
 * (internal to codec/). */
#ifndef GJ2K_MARKER_IO_H
#define GJ2K_MARKER_IO_H

#include "codestream.h"
#include "error.h"

/* Starts a segment: appends the marker and a placeholder length; returns
 * where the length field lies. */
size_t j2k_segment_begin(byte_buffer *out, uint16_t marker);
/* Fills in the length of the segment begun at `length_offset`; fails when it
 * passes 65535 bytes or when the buffer ran out of memory. */
gj2k_status j2k_segment_end(byte_buffer *out, size_t length_offset, const char *name,
                            gj2k_error *error);

/* Ccoc, Cqcc, Crgn, CSpoc, CEpoc: 8 bits when Csiz < 257, else 16 (A.6). */
static inline size_t j2k_component_field_size(uint32_t num_components)
{
    return num_components < 257 ? 1 : 2;
}
bool j2k_component_field_read(byte_reader *r, uint32_t num_components, uint32_t *value);
void j2k_component_field_write(byte_buffer *out, uint32_t num_components, uint32_t value);

/* Reads a component index and checks it is below Csiz. */
gj2k_status j2k_component_index_read(byte_reader *r, uint32_t num_components, const char *name,
                                     uint32_t *component, gj2k_error *error);

/* Fails naming the segment when bytes are left over after its last field. */
gj2k_status j2k_segment_check_consumed(const byte_reader *r, const char *name,
                                       gj2k_error *error);
gj2k_status j2k_segment_too_short(const char *name, gj2k_error *error);

/* Returns `array` (malloc'ed, or NULL) grown to hold at least `needed`
 * elements, updating *capacity; NULL on failure, `array` then untouched. */
void *j2k_array_grow(void *array, size_t *capacity, size_t needed, size_t element_size);

/* The parser's way to fill a header: COC, QCC and RGN appended in any order
 * (amortised O(1)), then put in component order once the header ends, the
 * later of repeated entries for a component kept; *repeats counts the others. */
gj2k_status j2k_header_append_coc(j2k_header_params *h, const j2k_coc *coc, gj2k_error *error);
gj2k_status j2k_header_append_qcc(j2k_header_params *h, const j2k_qcc *qcc, gj2k_error *error);
gj2k_status j2k_header_append_rgn(j2k_header_params *h, const j2k_rgn *rgn, gj2k_error *error);
gj2k_status j2k_header_sort_components(j2k_header_params *h, size_t *repeats, gj2k_error *error);
/* j2k_header_merge without the final j2k_header_sort_components. */
gj2k_status j2k_header_merge_unsorted(j2k_header_params *into, j2k_header_params *from,
                                      gj2k_error *error);

/* Writes a run of indexed segments (PPM, PPT, PLM, PLT: Z then bytes),
 * opening the next one, Z + 1, whenever the current one is full. */
#define J2K_INDEXED_PAYLOAD_MAX (65535u - 2u - 1u) /* Lxxx and Z take three bytes */
#define J2K_INDEXED_SEGMENTS_MAX 256u             /* Z is 0..255 */
typedef struct j2k_indexed_writer {
    byte_buffer *out;
    uint16_t marker;
    const char *name;
    size_t length_offset, payload; /* of the open segment */
    unsigned segments;             /* opened so far */
    bool open;
} j2k_indexed_writer;
gj2k_status j2k_indexed_open(j2k_indexed_writer *w, gj2k_error *error);
gj2k_status j2k_indexed_close(j2k_indexed_writer *w, gj2k_error *error);
/* Bytes that may be split across segments anywhere. */
gj2k_status j2k_indexed_put(j2k_indexed_writer *w, const uint8_t *bytes, size_t size,
                            gj2k_error *error);
/* Bytes that must stay within one segment (a packet length, an Nplm run). */
gj2k_status j2k_indexed_put_whole(j2k_indexed_writer *w, const uint8_t *bytes, size_t size,
                                  gj2k_error *error);

#endif
