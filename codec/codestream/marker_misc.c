/* marker_misc.c - the CRG and COM marker segments (A.9.1, A.9.2) and CAP
 * (T.814 A.2). */
#include "marker_io.h"

#include <stdlib.h>
#include <string.h>

gj2k_status j2k_crg_read(byte_reader *segment, uint32_t num_components,
                         j2k_registration_offset *offsets, gj2k_error *error)
{
    /* Lcrg = 2 + 4 Csiz. */
    if (byte_reader_remaining(segment) != 4u * num_components)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CRG: %zu bytes for %u components (needs %u)",
                         byte_reader_remaining(segment), num_components, 4u * num_components);
    for (uint32_t c = 0; c < num_components; c++)
        (void)(byte_reader_u16_be(segment, &offsets[c].x) &&
               byte_reader_u16_be(segment, &offsets[c].y));
    return GJ2K_OK;
}

gj2k_status j2k_crg_write(byte_buffer *out, const j2k_registration_offset *offsets,
                          uint32_t num_components, gj2k_error *error)
{
    if (num_components == 0 || num_components > (65535u - 2u) / 4u)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "CRG: %u components do not fit one segment",
                         num_components);
    size_t length_offset = j2k_segment_begin(out, J2K_CRG);
    for (uint32_t c = 0; c < num_components; c++) {
        byte_buffer_put_u16_be(out, offsets[c].x);
        byte_buffer_put_u16_be(out, offsets[c].y);
    }
    return j2k_segment_end(out, length_offset, "CRG", error);
}

gj2k_status j2k_com_read(byte_reader *segment, j2k_comment *comment, gj2k_error *error)
{
    *comment = (j2k_comment){0};
    if (!byte_reader_u16_be(segment, &comment->registration))
        return j2k_segment_too_short("COM", error);
    size_t size = byte_reader_remaining(segment);
    if (size > 0) {
        comment->data = malloc(size);
        if (comment->data == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "COM: out of memory");
        memcpy(comment->data, segment->data + segment->position, size);
        comment->size = size;
        segment->position = segment->size;
    }
    return GJ2K_OK;
}

gj2k_status j2k_com_write(byte_buffer *out, const j2k_comment *comment, gj2k_error *error)
{
    if (comment->registration > J2K_COMMENT_LATIN)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "COM: registration %u (0 binary, 1 Latin text)", comment->registration);
    if (comment->size > 65535u - 4u)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "COM: %zu bytes (at most 65531)", comment->size);
    size_t length_offset = j2k_segment_begin(out, J2K_COM);
    byte_buffer_put_u16_be(out, comment->registration);
    byte_buffer_append(out, comment->data, comment->size);
    return j2k_segment_end(out, length_offset, "COM", error);
}

gj2k_status j2k_cap_read(byte_reader *segment, j2k_capabilities *cap, gj2k_error *error)
{
    *cap = (j2k_capabilities){.present = true};
    if (!byte_reader_u32_be(segment, &cap->pcap))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CAP: shorter than its Pcap");
    /* One Ccap for each bit set in Pcap, Part 1's (the most significant) first. */
    for (unsigned part = 1; part <= 32; part++) {
        if (!(cap->pcap & (1u << (32 - part))))
            continue;
        uint16_t ccap;
        if (!byte_reader_u16_be(segment, &ccap))
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "CAP: Pcap 0x%08X lists more parts than its Ccap fields", cap->pcap);
        if (part == 15) {
            cap->has_ccap15 = true;
            cap->ccap15 = ccap;
        }
    }
    if (byte_reader_remaining(segment) != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "CAP: %zu bytes past its Ccap fields",
                         byte_reader_remaining(segment));
    return GJ2K_OK;
}

const char *j2k_ccap15_set_name(uint16_t ccap15)
{
    switch (ccap15 >> 14) {
    case 0: return "HTONLY";
    case 2: return "HTDECLARED";
    case 3: return "MIXED";
    default: return "reserved";
    }
}
