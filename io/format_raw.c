/* format_raw.c - headerless samples in component-planar order: all of
 * component 0 row by row, then component 1, and so on. A component
 * subsampled by dx x dy holds ceil(width/dx) x ceil(height/dy) samples.
 * Samples take 1 byte up to 8 bits, else 2 (big-endian in .raw, little-endian
 * in .rawl); signed samples are two's complement. */
#include "error.h"
#include "image_formats.h"

#include <stdlib.h>

static unsigned storage_bytes(uint32_t precision) { return precision <= 8 ? 1 : 2; }

static uint32_t subsampling(const uint32_t *factors, uint32_t component)
{
    if (component >= 4 || factors[component] == 0)
        return 1;
    return factors[component];
}

/* A stored value as a sample of `precision` bits: the bits above the
 * precision must be zero or a sign extension (signed samples may also be
 * stored in exactly `precision` bits). Returns false when out of range. */
static bool decode_sample(uint32_t u, uint32_t precision, bool is_signed, unsigned storage_bits,
                          int32_t *value)
{
    uint32_t low_mask = precision >= 32 ? UINT32_MAX : (1u << precision) - 1;
    uint32_t high = u & ~low_mask & (storage_bits >= 32 ? UINT32_MAX : (1u << storage_bits) - 1);
    uint32_t low = u & low_mask;
    if (!is_signed) {
        *value = (int32_t)u;
        return high == 0;
    }
    bool negative = (low >> (precision - 1)) & 1;
    uint32_t all_high = ~low_mask & ((1u << storage_bits) - 1);
    if (high != 0 && !(high == all_high && negative))
        return false;
    *value = negative ? (int32_t)((int64_t)low - ((int64_t)1 << precision)) : (int32_t)low;
    return true;
}

gj2k_status raw_read(const uint8_t *data, size_t size, bool big_endian,
                     const gj2k_read_options *options, gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    const gj2k_raw_geometry *g = options->raw;
    const char *name = big_endian ? "RAW" : "RAWL";
    if (g == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "%s: raw input needs its geometry (width, height, components, "
                         "precision, sign)", name);
    if (g->width == 0 || g->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: empty geometry %ux%u", name,
                         g->width, g->height);
    if (g->num_components == 0 || g->num_components > GJ2K_MAX_COMPONENTS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: %u components (1..%u)", name,
                         g->num_components, GJ2K_MAX_COMPONENTS);
    if (g->precision < 1 || g->precision > 16)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%s: precision %u outside 1..16",
                         name, g->precision);
    gj2k_component_info *info = calloc(g->num_components, sizeof *info);
    if (info == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    for (uint32_t c = 0; c < g->num_components; c++) {
        info[c] = (gj2k_component_info){.dx = subsampling(g->dx, c), .dy = subsampling(g->dy, c),
                                        .precision = g->precision, .is_signed = g->is_signed};
        if (info[c].dx > 255 || info[c].dy > 255) {
            gj2k_status status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                                           "%s: component %u subsampling %ux%u outside 1..255",
                                           name, c, info[c].dx, info[c].dy);
            free(info);
            return status;
        }
    }
    /* Counted here, stopping as soon as the file cannot hold them, so that no
     * sum of huge planes can overflow. */
    unsigned bytes = storage_bytes(g->precision);
    uint64_t samples = 0, capacity = size / bytes;
    gj2k_status status = GJ2K_OK;
    for (uint32_t c = 0; c < g->num_components && status == GJ2K_OK; c++) {
        uint64_t w = ((uint64_t)g->width + info[c].dx - 1) / info[c].dx;
        uint64_t h = ((uint64_t)g->height + info[c].dy - 1) / info[c].dy;
        if (w * h > capacity - samples)
            status = gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                               "%s: the %ux%u image of %u components needs more than the "
                               "file's %zu bytes", name, g->width, g->height, g->num_components,
                               size);
        else
            samples += w * h;
    }
    if (status == GJ2K_OK)
        status = image_check_sample_budget(options, samples, size, 1, error);
    gj2k_image *image = NULL;
    if (status == GJ2K_OK)
        status = gj2k_image_create(&image, 0, 0, g->width, g->height, g->num_components, info,
                                   error);
    free(info);
    if (status != GJ2K_OK)
        return status;
    if (size > samples * bytes)
        gj2k_warn(options->warning, options->warning_user, "%s: %llu bytes after the samples ignored",
                  name, (unsigned long long)(size - samples * bytes));

    image->color_space = g->num_components >= 3 ? GJ2K_COLOR_SRGB : GJ2K_COLOR_GRAY;
    const uint8_t *p = data;
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *comp = &image->components[c];
        size_t count = (size_t)comp->width * comp->height;
        for (size_t i = 0; i < count; i++, p += bytes) {
            uint32_t u = bytes == 1 ? p[0]
                         : big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
            if (!decode_sample(u, g->precision, g->is_signed, bytes * 8, &comp->samples[i])) {
                gj2k_image_destroy(image);
                return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                                 "%s: component %u sample %zu (0x%x) outside %u-bit %s range",
                                 name, c, i, u, g->precision, g->is_signed ? "signed" : "unsigned");
            }
        }
    }
    *out = image;
    return GJ2K_OK;
}

gj2k_status raw_write(const gj2k_image *image, bool big_endian, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error)
{
    const char *name = big_endian ? "RAW" : "RAWL";
    size_t total = 0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->precision > 16)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "%s: component %u has %u bits; at most 16 can be written", name, c,
                             comp->precision);
        size_t count = (size_t)comp->width * comp->height;
        unsigned bytes = storage_bytes(comp->precision);
        if (count > (SIZE_MAX - total) / bytes)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "%s: image too large", name);
        total += count * bytes;
    }
    if (!byte_buffer_reserve(out, total))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
    uint8_t *p = out->data + out->size;
    bool clamped = false;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        size_t count = (size_t)comp->width * comp->height;
        unsigned bytes = storage_bytes(comp->precision);
        int64_t lo = image_sample_min(comp), hi = image_sample_max(comp);
        for (size_t i = 0; i < count; i++) {
            int64_t v = comp->samples[i];
            if (v < lo || v > hi) {
                v = v < lo ? lo : hi;
                clamped = true;
            }
            uint16_t u = (uint16_t)v; /* two's complement for signed samples */
            if (bytes == 1) {
                *p++ = (uint8_t)u;
            } else {
                *p++ = (uint8_t)(big_endian ? u >> 8 : u);
                *p++ = (uint8_t)(big_endian ? u : u >> 8);
            }
        }
    }
    out->size += total;
    if (clamped)
        gj2k_warn(options->warning, options->warning_user,
                  "%s: samples outside their precision's range were clamped", name);
    return GJ2K_OK;
}
