/* format_pgx.c - PGX, the one-component format of the JPEG 2000 conformance
 * suite: "PG ML + 12 640 480\n" then the samples. ML is big-endian, LM
 * little-endian; '-' marks signed samples. A sample takes 1 byte up to 8 bits,
 * 2 up to 16 and 4 beyond. */
#include "error.h"
#include "image_formats.h"

#include <stdlib.h>

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static size_t skip_spaces(byte_reader *r)
{
    size_t start = r->position;
    while (r->position < r->size && is_space(r->data[r->position]))
        r->position++;
    return r->position - start;
}

static gj2k_status read_number(byte_reader *r, const char *what, uint32_t *value,
                               gj2k_error *error)
{
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PGX: header ends before the %s", what);
    if (r->data[r->position] < '0' || r->data[r->position] > '9')
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: expected the %s, found byte 0x%02x",
                         what, r->data[r->position]);
    uint64_t v = 0;
    while (r->position < r->size && r->data[r->position] >= '0' && r->data[r->position] <= '9') {
        v = v * 10 + (uint64_t)(r->data[r->position++] - '0');
        if (v > UINT32_MAX)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: the %s is too large", what);
    }
    *value = (uint32_t)v;
    return GJ2K_OK;
}

static gj2k_status require_space(byte_reader *r, const char *after, gj2k_error *error)
{
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PGX: header ends after the %s", after);
    if (skip_spaces(r) == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: no whitespace after the %s", after);
    return GJ2K_OK;
}

typedef struct pgx_header {
    bool big_endian, is_signed;
    uint32_t depth, width, height;
} pgx_header;

static gj2k_status read_header(byte_reader *r, pgx_header *h, gj2k_error *error)
{
    if (r->size < 2 || r->data[0] != 'P' || r->data[1] != 'G')
        return gj2k_fail(error, r->size < 2 ? GJ2K_ERROR_TRUNCATED : GJ2K_ERROR_MALFORMED,
                         "PGX: no 'PG' signature");
    r->position = 2;
    gj2k_status status = require_space(r, "signature", error);
    if (status != GJ2K_OK)
        return status;
    if (byte_reader_remaining(r) < 2)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PGX: header ends before the byte order");
    const uint8_t *order = r->data + r->position;
    if (order[0] == 'M' && order[1] == 'L')
        h->big_endian = true;
    else if (order[0] == 'L' && order[1] == 'M')
        h->big_endian = false;
    else
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: byte order is neither ML nor LM");
    r->position += 2;
    skip_spaces(r);
    h->is_signed = false;
    if (r->position < r->size && (r->data[r->position] == '+' || r->data[r->position] == '-')) {
        h->is_signed = r->data[r->position] == '-';
        r->position++;
        skip_spaces(r);
    }
    status = read_number(r, "depth", &h->depth, error);
    if (status == GJ2K_OK)
        status = require_space(r, "depth", error);
    if (status == GJ2K_OK)
        status = read_number(r, "width", &h->width, error);
    if (status == GJ2K_OK)
        status = require_space(r, "width", error);
    if (status == GJ2K_OK)
        status = read_number(r, "height", &h->height, error);
    if (status != GJ2K_OK)
        return status;
    /* Exactly one whitespace byte separates the header from the samples. */
    if (r->position >= r->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "PGX: file ends after the header");
    if (!is_space(r->data[r->position]))
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: unexpected byte 0x%02x after the height",
                         r->data[r->position]);
    r->position++;
    if (h->depth < 1 || h->depth > 31)
        return gj2k_fail(error, h->depth == 0 ? GJ2K_ERROR_MALFORMED : GJ2K_ERROR_UNSUPPORTED,
                         "PGX: depth %u outside 1..31", h->depth);
    if (h->width == 0 || h->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PGX: empty image %ux%u", h->width,
                         h->height);
    return GJ2K_OK;
}

static unsigned storage_bytes(uint32_t depth) { return depth <= 8 ? 1 : depth <= 16 ? 2 : 4; }

gj2k_status pgx_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    byte_reader r = {.data = data, .size = size};
    pgx_header h;
    gj2k_status status = read_header(&r, &h, error);
    if (status != GJ2K_OK)
        return status;
    unsigned bytes = storage_bytes(h.depth);
    uint64_t samples = (uint64_t)h.width * h.height; /* < 2^64: both factors < 2^32 */
    uint64_t remaining = byte_reader_remaining(&r);
    if (samples > remaining / bytes)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "PGX: %ux%u samples of %u bytes need more than the %llu bytes left",
                         h.width, h.height, bytes, (unsigned long long)remaining);
    status = image_check_sample_budget(options, samples, size, 1, error);
    if (status != GJ2K_OK)
        return status;
    if (remaining > samples * bytes)
        gj2k_warn(options->warning, options->warning_user,
                  "PGX: %llu bytes after the samples ignored",
                  (unsigned long long)(remaining - samples * bytes));

    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = h.depth, .is_signed = h.is_signed};
    gj2k_image *image;
    status = gj2k_image_create(&image, 0, 0, h.width, h.height, 1, &info, error);
    if (status != GJ2K_OK)
        return status;
    image->color_space = GJ2K_COLOR_GRAY;
    gj2k_component *comp = &image->components[0];
    int64_t lo = image_sample_min(comp), hi = image_sample_max(comp);
    const uint8_t *p = r.data + r.position;
    unsigned storage_bits = bytes * 8;
    bool clamped = false;
    for (size_t i = 0; i < (size_t)samples; i++, p += bytes) {
        uint32_t u = 0;
        for (unsigned b = 0; b < bytes; b++)
            u |= (uint32_t)p[h.big_endian ? b : bytes - 1 - b] << (8 * (bytes - 1 - b));
        int64_t v = u;
        if (h.is_signed && (u >> (storage_bits - 1)) != 0)
            v -= (int64_t)1 << storage_bits; /* sign-extend from the storage width */
        if (v < lo || v > hi) {
            v = v < lo ? lo : hi;
            clamped = true;
        }
        comp->samples[i] = (int32_t)v;
    }
    if (clamped)
        gj2k_warn(options->warning, options->warning_user,
                  "PGX: samples outside the %u-bit range were clamped", h.depth);
    *out = image;
    return GJ2K_OK;
}

gj2k_status pgx_write_component(const gj2k_image *image, uint32_t component,
                                const gj2k_write_options *options, byte_buffer *out,
                                gj2k_error *error)
{
    if (component >= image->num_components)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "PGX: no component %u", component);
    const gj2k_component *comp = &image->components[component];
    if (comp->precision < 1 || comp->precision > 31)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "PGX: component %u has %u bits; PGX holds 1..31", component,
                         comp->precision);
    if (comp->width == 0 || comp->height == 0 || comp->samples == NULL)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "PGX: component %u is empty", component);
    byte_buffer_printf(out, "PG ML %c %u %u %u\n", comp->is_signed ? '-' : '+', comp->precision,
                       comp->width, comp->height);
    unsigned bytes = storage_bytes(comp->precision);
    size_t samples = (size_t)comp->width * comp->height;
    if (samples > SIZE_MAX / bytes || !byte_buffer_reserve(out, samples * bytes))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PGX: out of memory for the samples");
    int64_t lo = image_sample_min(comp), hi = image_sample_max(comp);
    uint8_t *p = out->data + out->size;
    bool clamped = false;
    for (size_t i = 0; i < samples; i++) {
        int64_t v = comp->samples[i];
        if (v < lo || v > hi) {
            v = v < lo ? lo : hi;
            clamped = true;
        }
        uint32_t u = (uint32_t)v; /* two's complement for signed samples */
        for (unsigned b = 0; b < bytes; b++)
            *p++ = (uint8_t)(u >> (8 * (bytes - 1 - b)));
    }
    out->size += samples * bytes;
    if (clamped)
        gj2k_warn(options->warning, options->warning_user,
                  "PGX: samples outside component %u's %u-bit range were clamped", component,
                  comp->precision);
    return GJ2K_OK;
}
