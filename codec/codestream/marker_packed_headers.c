/* marker_packed_headers.c - the PPM and PPT marker segments (A.7.4, A.7.5),
 * and the indexed form (Z, then bytes) they share with PLM and PLT. */
#include "marker_io.h"

#include <stdlib.h>
#include <string.h>

gj2k_status j2k_indexed_chunk_read(byte_reader *segment, const char *name,
                                   j2k_indexed_chunk *chunk, gj2k_error *error)
{
    if (!byte_reader_u8(segment, &chunk->index))
        return j2k_segment_too_short(name, error);
    chunk->data = segment->data + segment->position;
    chunk->size = byte_reader_remaining(segment);
    segment->position = segment->size;
    return GJ2K_OK;
}

gj2k_status j2k_indexed_chunks_sort(j2k_indexed_chunk *chunks, size_t count, size_t *repeats,
                                    gj2k_error *error)
{
    /* Counting sort on the 8-bit Z: stable, O(count) whatever the order. */
    size_t start[257] = {0};
    bool ordered = true;
    for (size_t i = 0; i < count; i++) {
        start[chunks[i].index + 1]++;
        ordered &= i == 0 || chunks[i - 1].index <= chunks[i].index;
    }
    *repeats = 0;
    for (unsigned z = 0; z < 256; z++)
        *repeats += start[z + 1] > 1 ? start[z + 1] - 1 : 0;
    if (ordered)
        return GJ2K_OK;
    j2k_indexed_chunk *sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory sorting segments");
    for (unsigned z = 0; z < 256; z++)
        start[z + 1] += start[z];
    for (size_t i = 0; i < count; i++)
        sorted[start[chunks[i].index]++] = chunks[i];
    memcpy(chunks, sorted, count * sizeof *sorted);
    free(sorted);
    return GJ2K_OK;
}

gj2k_status j2k_indexed_chunks_join(const j2k_indexed_chunk *chunks, size_t count,
                                    uint8_t **joined, size_t *size, gj2k_error *error)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += chunks[i].size; /* each chunk lies in the input: no overflow */
    *joined = NULL;
    *size = total;
    if (total == 0)
        return GJ2K_OK;
    *joined = malloc(total);
    if (*joined == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory joining %zu bytes", total);
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        if (chunks[i].size)
            memcpy(*joined + at, chunks[i].data, chunks[i].size);
        at += chunks[i].size;
    }
    return GJ2K_OK;
}

gj2k_status j2k_ppm_split(const uint8_t *joined, size_t size, size_t **offsets, size_t **sizes,
                          size_t *num_tile_parts, gj2k_error *error)
{
    *offsets = NULL;
    *sizes = NULL;
    *num_tile_parts = 0;
    /* Each (Nppm, Ippm) takes at least 4 bytes: this bounds the arrays. */
    size_t capacity = size / 4;
    if (capacity == 0)
        return size == 0 ? GJ2K_OK
                         : gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PPM: %zu stray bytes", size);
    *offsets = malloc(capacity * sizeof **offsets);
    *sizes = malloc(capacity * sizeof **sizes);
    if (*offsets == NULL || *sizes == NULL) {
        free(*offsets);
        free(*sizes);
        *offsets = *sizes = NULL;
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PPM: out of memory");
    }
    byte_reader r = {joined, size, 0};
    size_t n = 0;
    while (byte_reader_remaining(&r) > 0) {
        uint32_t nppm;
        if (!byte_reader_u32_be(&r, &nppm) || byte_reader_remaining(&r) < nppm) {
            free(*offsets);
            free(*sizes);
            *offsets = *sizes = NULL;
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "PPM: packed headers of tile-part %zu run past the last PPM", n);
        }
        (*offsets)[n] = r.position;
        (*sizes)[n] = nppm;
        n++;
        r.position += nppm;
    }
    *num_tile_parts = n;
    return GJ2K_OK;
}

gj2k_status j2k_ppm_write(byte_buffer *out, const j2k_bytes *tile_parts, size_t count,
                          gj2k_error *error)
{
    j2k_indexed_writer w = {.out = out, .marker = J2K_PPM, .name = "PPM"};
    for (size_t i = 0; i < count; i++) {
        if (tile_parts[i].size > UINT32_MAX)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "PPM: tile-part %zu headers too long", i);
        uint32_t nppm = (uint32_t)tile_parts[i].size;
        uint8_t field[4] = {(uint8_t)(nppm >> 24), (uint8_t)(nppm >> 16), (uint8_t)(nppm >> 8),
                            (uint8_t)nppm};
        gj2k_status status = j2k_indexed_put(&w, field, 4, error);
        if (status == GJ2K_OK)
            status = j2k_indexed_put(&w, tile_parts[i].data, tile_parts[i].size, error);
        if (status != GJ2K_OK)
            return status;
    }
    if (count == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "PPM: no tile-parts");
    return j2k_indexed_close(&w, error);
}

gj2k_status j2k_ppt_write(byte_buffer *out, const uint8_t *headers, size_t size,
                          gj2k_error *error)
{
    j2k_indexed_writer w = {.out = out, .marker = J2K_PPT, .name = "PPT"};
    gj2k_status status = size ? j2k_indexed_put(&w, headers, size, error) : j2k_indexed_open(&w, error);
    if (status != GJ2K_OK)
        return status;
    return j2k_indexed_close(&w, error);
}

