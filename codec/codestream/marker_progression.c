/* marker_progression.c - the POC marker segment (A.6.6). */
#include "marker_io.h"

#include <stdlib.h>

gj2k_status j2k_progression_change_check(const j2k_progression_change *change,
                                         uint32_t num_components, gj2k_error *error)
{
    /* Table A.32. CEpoc may exceed Csiz (the decoder clips it), not its field. */
    uint32_t component_limit = num_components < 257 ? 256 : J2K_MAX_COMPONENTS;
    if (change->resolution_start > DWT_MAX_LEVELS)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: first resolution %u (0..%d)",
                         change->resolution_start, DWT_MAX_LEVELS);
    if (change->resolution_end <= change->resolution_start ||
        change->resolution_end > DWT_MAX_LEVELS + 1)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: resolution end %u (RSpoc %u + 1..%d)",
                         change->resolution_end, change->resolution_start, DWT_MAX_LEVELS + 1);
    if (change->component_start >= component_limit)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: first component %u (below %u)",
                         change->component_start, component_limit);
    if (change->component_end <= change->component_start ||
        change->component_end > component_limit)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: component end %u (CSpoc %u + 1..%u)",
                         change->component_end, change->component_start, component_limit);
    if (change->layer_end == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: layer end 0 (1..65535)");
    if (change->progression > J2K_CPRL)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "POC: progression order %u (0..4)",
                         change->progression);
    return GJ2K_OK;
}

gj2k_status j2k_poc_read(byte_reader *segment, uint32_t num_components,
                         j2k_progression_change **changes, size_t *count, gj2k_error *error)
{
    size_t entry_size = 5 + 2 * j2k_component_field_size(num_components); /* 7 or 9 bytes */
    size_t bytes = byte_reader_remaining(segment);
    if (bytes == 0 || bytes % entry_size != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "POC: %zu bytes of changes (a non-zero multiple of %zu)", bytes,
                         entry_size);
    size_t added = bytes / entry_size;
    j2k_progression_change *grown = realloc(*changes, (*count + added) * sizeof **changes);
    if (grown == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "POC: out of memory");
    *changes = grown;
    for (size_t i = 0; i < added; i++) {
        j2k_progression_change c = {0};
        uint32_t component_end = 0;
        /* Lengths checked above: every read succeeds. */
        (void)(byte_reader_u8(segment, &c.resolution_start) &&
               j2k_component_field_read(segment, num_components, &c.component_start) &&
               byte_reader_u16_be(segment, &c.layer_end) &&
               byte_reader_u8(segment, &c.resolution_end) &&
               j2k_component_field_read(segment, num_components, &component_end) &&
               byte_reader_u8(segment, &c.progression));
        /* Table A.32: an 8-bit CEpoc of 0 means 256. */
        c.component_end = (component_end == 0 && num_components < 257) ? 256 : component_end;
        gj2k_status status = j2k_progression_change_check(&c, num_components, error);
        if (status != GJ2K_OK)
            return status;
        grown[(*count)++] = c;
    }
    return GJ2K_OK;
}

gj2k_status j2k_poc_write(byte_buffer *out, const j2k_progression_change *changes, size_t count,
                          uint32_t num_components, gj2k_error *error)
{
    if (count == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "POC: no progression changes");
    for (size_t i = 0; i < count; i++) {
        gj2k_status status = j2k_progression_change_check(&changes[i], num_components, error);
        if (status != GJ2K_OK)
            return status;
    }
    size_t length_offset = j2k_segment_begin(out, J2K_POC);
    for (size_t i = 0; i < count; i++) {
        const j2k_progression_change *c = &changes[i];
        byte_buffer_put_u8(out, c->resolution_start);
        j2k_component_field_write(out, num_components, c->component_start);
        byte_buffer_put_u16_be(out, c->layer_end);
        byte_buffer_put_u8(out, c->resolution_end);
        j2k_component_field_write(out, num_components, c->component_end == 256 &&
                                  num_components < 257 ? 0 : c->component_end);
        byte_buffer_put_u8(out, c->progression);
    }
    return j2k_segment_end(out, length_offset, "POC", error);
}
