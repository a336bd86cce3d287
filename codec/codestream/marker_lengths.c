/* marker_lengths.c - the TLM, PLM and PLT marker segments (A.7.1 - A.7.3). */
#include "marker_io.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------- packet lengths (PLM, PLT) */

size_t j2k_packet_length_size(uint32_t length)
{
    size_t n = 1;
    while (length >>= 7)
        n++;
    return n;
}

static size_t encode_packet_length(uint32_t length, uint8_t bytes[5])
{
    size_t n = j2k_packet_length_size(length);
    for (size_t i = 0; i < n; i++) {
        unsigned shift = (unsigned)(7 * (n - 1 - i));
        bytes[i] = (uint8_t)(((length >> shift) & 0x7F) | (i + 1 < n ? 0x80 : 0));
    }
    return n;
}

gj2k_status j2k_packet_lengths_decode(const uint8_t *bytes, size_t size, const char *name,
                                      uint32_t **lengths, size_t *count, gj2k_error *error)
{
    /* A length ends at a byte with bit 7 clear: count them to size the array. */
    size_t added = 0;
    for (size_t i = 0; i < size; i++)
        added += (bytes[i] & 0x80) == 0;
    if (size > 0 && (bytes[size - 1] & 0x80))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: the last packet length is cut off",
                         name);
    if (added == 0)
        return GJ2K_OK;
    uint32_t *grown = realloc(*lengths, (*count + added) * sizeof **lengths);
    if (grown == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    *lengths = grown;
    uint64_t value = 0;
    for (size_t i = 0; i < size; i++) {
        value = value << 7 | (bytes[i] & 0x7F);
        if (value > UINT32_MAX)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: a packet length above 2^32", name);
        if ((bytes[i] & 0x80) == 0) {
            grown[(*count)++] = (uint32_t)value;
            value = 0;
        }
    }
    return GJ2K_OK;
}

gj2k_status j2k_plm_decode(const uint8_t *joined, size_t size, j2k_packet_lengths **tile_parts,
                           size_t *count, gj2k_error *error)
{
    *tile_parts = NULL;
    *count = 0;
    /* Each (Nplm, Iplm) takes at least one byte. */
    size_t capacity = size;
    if (capacity == 0)
        return GJ2K_OK;
    j2k_packet_lengths *list = calloc(capacity, sizeof *list);
    if (list == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PLM: out of memory");
    size_t n = 0, at = 0;
    gj2k_status status = GJ2K_OK;
    while (at < size) {
        size_t nplm = joined[at++];
        if (size - at < nplm) {
            status = gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                               "PLM: lengths of tile-part %zu run past the last PLM", n);
            break;
        }
        status = j2k_packet_lengths_decode(joined + at, nplm, "PLM", &list[n].lengths,
                                           &list[n].count, error);
        n++;
        if (status != GJ2K_OK)
            break;
        at += nplm;
    }
    if (status != GJ2K_OK) {
        for (size_t i = 0; i < n; i++)
            free(list[i].lengths);
        free(list);
        return status;
    }
    *tile_parts = list;
    *count = n;
    return GJ2K_OK;
}

gj2k_status j2k_plm_write(byte_buffer *out, const j2k_packet_lengths *tile_parts, size_t count,
                          gj2k_error *error)
{
    if (count == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "PLM: no tile-parts");
    j2k_indexed_writer w = {.out = out, .marker = J2K_PLM, .name = "PLM"};
    for (size_t t = 0; t < count; t++) {
        /* Nplm is one byte: a tile-part's lengths must fit 255 bytes. */
        uint8_t run[256];
        size_t used = 1;
        for (size_t i = 0; i < tile_parts[t].count; i++) {
            uint8_t coded[5];
            size_t n = encode_packet_length(tile_parts[t].lengths[i], coded);
            if (used + n > sizeof run)
                return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                                 "PLM: tile-part %zu needs over 255 bytes of lengths (use PLT)", t);
            memcpy(run + used, coded, n);
            used += n;
        }
        run[0] = (uint8_t)(used - 1);
        gj2k_status status = j2k_indexed_put_whole(&w, run, used, error);
        if (status != GJ2K_OK)
            return status;
    }
    return j2k_indexed_close(&w, error);
}

gj2k_status j2k_plt_write(byte_buffer *out, const uint32_t *lengths, size_t count,
                          gj2k_error *error)
{
    if (count == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "PLT: no packet lengths");
    j2k_indexed_writer w = {.out = out, .marker = J2K_PLT, .name = "PLT"};
    for (size_t i = 0; i < count; i++) {
        uint8_t coded[5];
        size_t n = encode_packet_length(lengths[i], coded);
        gj2k_status status = j2k_indexed_put_whole(&w, coded, n, error);
        if (status != GJ2K_OK)
            return status;
    }
    return j2k_indexed_close(&w, error);
}

/* ------------------------------------------------------------------ TLM */

#define STLM_RESERVED_BITS 0x8Fu /* Stlm (A.7.1): only ST (bits 4-5) and SP (bit 6) */

gj2k_status j2k_tlm_read(byte_reader *segment, j2k_tlm *tlm, gj2k_error *error)
{
    *tlm = (j2k_tlm){0};
    uint8_t stlm;
    if (!byte_reader_u8(segment, &tlm->index) || !byte_reader_u8(segment, &stlm))
        return j2k_segment_too_short("TLM", error);
    if (stlm & STLM_RESERVED_BITS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TLM: Stlm 0x%02X has reserved bits set",
                         stlm);
    unsigned st = (stlm >> 4) & 3u;
    if (st == 3)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TLM: Ttlm size code ST 3 (0..2)");
    tlm->tile_index_size = (uint8_t)st;
    tlm->length_size = (stlm & 0x40) ? 4 : 2;
    size_t entry_size = (size_t)tlm->tile_index_size + tlm->length_size;
    size_t bytes = byte_reader_remaining(segment);
    if (bytes % entry_size != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "TLM: %zu bytes of entries (a multiple of %zu)", bytes, entry_size);
    tlm->count = bytes / entry_size;
    if (tlm->count == 0)
        return GJ2K_OK;
    tlm->entries = calloc(tlm->count, sizeof *tlm->entries);
    if (tlm->entries == NULL) {
        tlm->count = 0;
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TLM: out of memory");
    }
    for (size_t i = 0; i < tlm->count; i++) {
        /* Lengths checked above: every read succeeds. */
        j2k_tlm_entry *e = &tlm->entries[i];
        uint8_t t8 = 0;
        uint16_t t16 = 0, p16 = 0;
        e->tile_index = J2K_TLM_TILE_IMPLIED;
        if (st == 1 && byte_reader_u8(segment, &t8))
            e->tile_index = t8;
        else if (st == 2 && byte_reader_u16_be(segment, &t16))
            e->tile_index = t16;
        if (tlm->length_size == 4)
            (void)byte_reader_u32_be(segment, &e->length);
        else if (byte_reader_u16_be(segment, &p16))
            e->length = p16;
    }
    return GJ2K_OK;
}

gj2k_status j2k_tlm_write(byte_buffer *out, const j2k_tlm *tlm, gj2k_error *error)
{
    if (tlm->tile_index_size > 2 || (tlm->length_size != 2 && tlm->length_size != 4))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "TLM: field sizes %u and %u (Ttlm 0..2 bytes, Ptlm 2 or 4)",
                         tlm->tile_index_size, tlm->length_size);
    size_t entry_size = (size_t)tlm->tile_index_size + tlm->length_size;
    if (tlm->count > (65535u - 4u) / entry_size)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "TLM: %zu entries do not fit one segment",
                         tlm->count);
    for (size_t i = 0; i < tlm->count; i++) {
        const j2k_tlm_entry *e = &tlm->entries[i];
        uint32_t tile_limit = tlm->tile_index_size == 1 ? 255u : J2K_MAX_TILES - 1;
        if (tlm->tile_index_size == 0 ? e->tile_index != J2K_TLM_TILE_IMPLIED
                                      : e->tile_index > tile_limit)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "TLM: entry %zu tile index %u does not fit Ttlm", i, e->tile_index);
        if (tlm->length_size == 2 && e->length > 65535)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "TLM: entry %zu length %u does not fit 16 bits", i, e->length);
    }
    size_t length_offset = j2k_segment_begin(out, J2K_TLM);
    byte_buffer_put_u8(out, tlm->index);
    byte_buffer_put_u8(out, (uint8_t)(tlm->tile_index_size << 4 |
                                      (tlm->length_size == 4 ? 0x40 : 0)));
    for (size_t i = 0; i < tlm->count; i++) {
        const j2k_tlm_entry *e = &tlm->entries[i];
        if (tlm->tile_index_size == 1)
            byte_buffer_put_u8(out, (uint8_t)e->tile_index);
        else if (tlm->tile_index_size == 2)
            byte_buffer_put_u16_be(out, (uint16_t)e->tile_index);
        if (tlm->length_size == 4)
            byte_buffer_put_u32_be(out, e->length);
        else
            byte_buffer_put_u16_be(out, (uint16_t)e->length);
    }
    return j2k_segment_end(out, length_offset, "TLM", error);
}

void j2k_tlm_free(j2k_tlm *tlm)
{
    free(tlm->entries);
    tlm->entries = NULL;
    tlm->count = 0;
}

#define TLM_ENTRIES_PER_SEGMENT 8000u /* 6-byte entries in one 65535-byte segment */

gj2k_status j2k_tlm_write_entries(byte_buffer *out, const j2k_tlm_entry *entries, uint32_t count,
                                  gj2k_error *error)
{
    uint8_t index_size = 1;
    for (uint32_t i = 0; i < count; i++)
        index_size = entries[i].tile_index > 255 ? 2 : index_size;
    gj2k_status status = GJ2K_OK;
    for (uint32_t first = 0, z = 0; first < count && status == GJ2K_OK;
         first += TLM_ENTRIES_PER_SEGMENT, z++) {
        if (z > 255)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "TLM: too many tile-parts");
        uint32_t n = count - first < TLM_ENTRIES_PER_SEGMENT ? count - first
                                                             : TLM_ENTRIES_PER_SEGMENT;
        j2k_tlm tlm = {.index = (uint8_t)z, .tile_index_size = index_size, .length_size = 4,
                       .entries = (j2k_tlm_entry *)&entries[first], .count = n};
        status = j2k_tlm_write(out, &tlm, error);
    }
    return status;
}
