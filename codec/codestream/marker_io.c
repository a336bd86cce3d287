/* marker_io.c - see marker_io.h. */
#include "marker_io.h"

#include <stdlib.h>

const char *j2k_marker_name(uint16_t marker)
{
    switch (marker) {
    case J2K_SOC: return "SOC";
    case J2K_SOT: return "SOT";
    case J2K_SOD: return "SOD";
    case J2K_EOC: return "EOC";
    case J2K_SIZ: return "SIZ";
    case J2K_COD: return "COD";
    case J2K_COC: return "COC";
    case J2K_RGN: return "RGN";
    case J2K_QCD: return "QCD";
    case J2K_QCC: return "QCC";
    case J2K_POC: return "POC";
    case J2K_TLM: return "TLM";
    case J2K_PLM: return "PLM";
    case J2K_PLT: return "PLT";
    case J2K_PPM: return "PPM";
    case J2K_PPT: return "PPT";
    case J2K_SOP: return "SOP";
    case J2K_EPH: return "EPH";
    case J2K_CRG: return "CRG";
    case J2K_CAP: return "CAP";
    case J2K_CPF: return "CPF";
    case J2K_COM: return "COM";
    default: return "unknown";
    }
}

size_t j2k_segment_begin(byte_buffer *out, uint16_t marker)
{
    byte_buffer_put_u16_be(out, marker);
    size_t length_offset = out->size;
    byte_buffer_put_u16_be(out, 0);
    return length_offset;
}

gj2k_status j2k_segment_end(byte_buffer *out, size_t length_offset, const char *name,
                            gj2k_error *error)
{
    if (out->failed)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    size_t length = out->size - length_offset; /* Lxxx counts itself, not the marker */
    if (length > 65535)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "%s: segment of %zu bytes (at most 65535)", name,
                         length);
    out->data[length_offset] = (uint8_t)(length >> 8);
    out->data[length_offset + 1] = (uint8_t)length;
    return GJ2K_OK;
}

bool j2k_component_field_read(byte_reader *r, uint32_t num_components, uint32_t *value)
{
    if (j2k_component_field_size(num_components) == 1) {
        uint8_t v;
        if (!byte_reader_u8(r, &v))
            return false;
        *value = v;
    } else {
        uint16_t v;
        if (!byte_reader_u16_be(r, &v))
            return false;
        *value = v;
    }
    return true;
}

void j2k_component_field_write(byte_buffer *out, uint32_t num_components, uint32_t value)
{
    if (j2k_component_field_size(num_components) == 1)
        byte_buffer_put_u8(out, (uint8_t)value);
    else
        byte_buffer_put_u16_be(out, (uint16_t)value);
}

gj2k_status j2k_component_index_read(byte_reader *r, uint32_t num_components, const char *name,
                                     uint32_t *component, gj2k_error *error)
{
    if (!j2k_component_field_read(r, num_components, component))
        return j2k_segment_too_short(name, error);
    if (*component >= num_components)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: component %u (the image has %u)", name,
                         *component, num_components);
    return GJ2K_OK;
}

gj2k_status j2k_segment_check_consumed(const byte_reader *r, const char *name, gj2k_error *error)
{
    size_t left = byte_reader_remaining(r);
    if (left != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "%s: segment length leaves %zu unexplained bytes", name, left);
    return GJ2K_OK;
}

gj2k_status j2k_segment_too_short(const char *name, gj2k_error *error)
{
    return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "%s: segment too short for its fields", name);
}

void *j2k_array_grow(void *array, size_t *capacity, size_t needed, size_t element_size)
{
    if (needed <= *capacity && array != NULL)
        return array;
    size_t grown = *capacity ? *capacity : 4;
    while (grown < needed) {
        if (grown > SIZE_MAX / 2)
            return NULL;
        grown *= 2;
    }
    if (grown > SIZE_MAX / element_size)
        return NULL;
    void *bigger = realloc(array, grown * element_size);
    if (bigger == NULL)
        return NULL;
    *capacity = grown;
    return bigger;
}


gj2k_status j2k_indexed_close(j2k_indexed_writer *w, gj2k_error *error)
{
    if (!w->open)
        return GJ2K_OK;
    w->open = false;
    return j2k_segment_end(w->out, w->length_offset, w->name, error);
}

gj2k_status j2k_indexed_open(j2k_indexed_writer *w, gj2k_error *error)
{
    gj2k_status status = j2k_indexed_close(w, error);
    if (status != GJ2K_OK)
        return status;
    if (w->segments == J2K_INDEXED_SEGMENTS_MAX)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "%s: data needs more than %u segments", w->name,
                         J2K_INDEXED_SEGMENTS_MAX);
    w->length_offset = j2k_segment_begin(w->out, w->marker);
    byte_buffer_put_u8(w->out, (uint8_t)w->segments);
    w->segments++;
    w->payload = 0;
    w->open = true;
    return GJ2K_OK;
}

gj2k_status j2k_indexed_put(j2k_indexed_writer *w, const uint8_t *bytes, size_t size,
                               gj2k_error *error)
{
    while (size > 0) {
        if (!w->open || w->payload == J2K_INDEXED_PAYLOAD_MAX) {
            gj2k_status status = j2k_indexed_open(w, error);
            if (status != GJ2K_OK)
                return status;
        }
        size_t room = J2K_INDEXED_PAYLOAD_MAX - w->payload;
        size_t n = size < room ? size : room;
        byte_buffer_append(w->out, bytes, n);
        w->payload += n;
        bytes += n;
        size -= n;
    }
    return GJ2K_OK;
}

gj2k_status j2k_indexed_put_whole(j2k_indexed_writer *w, const uint8_t *bytes, size_t size,
                                     gj2k_error *error)
{
    if (!w->open || J2K_INDEXED_PAYLOAD_MAX - w->payload < size) {
        gj2k_status status = j2k_indexed_open(w, error);
        if (status != GJ2K_OK)
            return status;
    }
    return j2k_indexed_put(w, bytes, size, error);
}

