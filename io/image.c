/* image.c - the image model: allocation on the reference grid (Annex B.2). */
#include "error.h"
#include "image_formats.h"
#include "large_buffer.h"

#include <stdlib.h>
#include <string.h>

uint64_t image_sample_count(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                            uint32_t num_components, const gj2k_component_info *info)
{
    if (x1 <= x0 || y1 <= y0 || num_components == 0 || num_components > GJ2K_MAX_COMPONENTS)
        return UINT64_MAX;
    uint64_t total = 0;
    for (uint32_t c = 0; c < num_components; c++) {
        const gj2k_component_info *ci = &info[c];
        if (ci->dx < 1 || ci->dx > 255 || ci->dy < 1 || ci->dy > 255 || ci->precision < 1 ||
            ci->precision > GJ2K_MAX_PRECISION)
            return UINT64_MAX;
        uint64_t w = image_ceil_div(x1, ci->dx) - image_ceil_div(x0, ci->dx);
        uint64_t h = image_ceil_div(y1, ci->dy) - image_ceil_div(y0, ci->dy);
        uint64_t plane = w * h; /* each factor < 2^32: the product fits */
        if (plane > UINT64_MAX - 1 - total)
            return UINT64_MAX - 1; /* saturate: far beyond any limit */
        total += plane;
    }
    return total;
}

gj2k_status image_check_sample_budget(const gj2k_read_options *options, uint64_t samples,
                                      size_t file_size, uint64_t max_samples_per_byte,
                                      gj2k_error *error)
{
    if (options->max_samples != 0 && samples > options->max_samples)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "image of %llu samples exceeds the limit of %llu",
                         (unsigned long long)samples, (unsigned long long)options->max_samples);
    uint64_t justified = (uint64_t)file_size * max_samples_per_byte + 4096;
    if (samples > justified)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "image claims %llu samples, more than a %zu-byte file can hold",
                         (unsigned long long)samples, file_size);
    return GJ2K_OK;
}

int64_t image_sample_min(const gj2k_component *component)
{
    return component->is_signed ? -((int64_t)1 << (component->precision - 1)) : 0;
}

int64_t image_sample_max(const gj2k_component *component)
{
    return component->is_signed ? ((int64_t)1 << (component->precision - 1)) - 1
                                : ((int64_t)1 << component->precision) - 1;
}

gj2k_status gj2k_image_create(gj2k_image **out, uint32_t x0, uint32_t y0, uint32_t x1,
                              uint32_t y1, uint32_t num_components,
                              const gj2k_component_info *info, gj2k_error *error)
{
    *out = NULL;
    if (x1 <= x0 || y1 <= y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "empty image area %ux%u",
                         x1 > x0 ? x1 - x0 : 0, y1 > y0 ? y1 - y0 : 0);
    if (num_components == 0 || num_components > GJ2K_MAX_COMPONENTS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "%u components (1..%u allowed)", num_components, GJ2K_MAX_COMPONENTS);
    for (uint32_t c = 0; c < num_components; c++) {
        if (info[c].dx < 1 || info[c].dx > 255 || info[c].dy < 1 || info[c].dy > 255)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u: subsampling %ux%u outside 1..255", c, info[c].dx,
                             info[c].dy);
        if (info[c].precision < 1 || info[c].precision > GJ2K_MAX_PRECISION)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u: precision %u outside 1..%d bits", c,
                             info[c].precision, GJ2K_MAX_PRECISION);
    }
    uint64_t samples = image_sample_count(x0, y0, x1, y1, num_components, info);
    if (samples > (uint64_t)(SIZE_MAX / 16))
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "image of %llu samples is too large",
                         (unsigned long long)samples);

    gj2k_image *image = calloc(1, sizeof *image);
    gj2k_component *components = calloc(num_components, sizeof *components);
    if (image == NULL || components == NULL) {
        free(image);
        free(components);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for the image");
    }
    *image = (gj2k_image){.x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1,
                          .num_components = num_components, .components = components};
    for (uint32_t c = 0; c < num_components; c++) {
        gj2k_component *comp = &components[c];
        image_component_place(comp, x0, y0, x1, y1, info[c].dx, info[c].dy);
        comp->precision = info[c].precision;
        comp->is_signed = info[c].is_signed;
        size_t count = (size_t)comp->width * comp->height;
        if (count == 0)
            continue;
        if (comp->precision > GJ2K_MAX_NARROW_PRECISION)
            comp->wide_samples = large_buffer_calloc(count, sizeof *comp->wide_samples);
        else
            comp->samples = large_buffer_calloc(count, sizeof *comp->samples);
        if (comp->samples == NULL && comp->wide_samples == NULL) {
            gj2k_image_destroy(image);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                             "out of memory for %zu samples of component %u", count, c);
        }
    }
    *out = image;
    return GJ2K_OK;
}

void gj2k_image_destroy(gj2k_image *image)
{
    if (image == NULL)
        return;
    for (uint32_t c = 0; c < image->num_components; c++) {
        free(image->components[c].samples);
        free(image->components[c].wide_samples);
    }
    free(image->components);
    free(image->icc_profile);
    free(image->xmp);
    free(image->exif);
    free(image->iptc);
    free(image);
}

/* *held (of *held_size bytes) replaced by a copy of data (size 0: none). */
static gj2k_status replace_with_copy(uint8_t **held, size_t *held_size, const uint8_t *data,
                                     size_t size, const char *what, gj2k_error *error)
{
    uint8_t *copy = NULL;
    if (size > 0) {
        copy = malloc(size);
        if (copy == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for %s", what);
        memcpy(copy, data, size);
    }
    free(*held);
    *held = copy;
    *held_size = size;
    return GJ2K_OK;
}

gj2k_status gj2k_image_set_icc_profile(gj2k_image *image, const uint8_t *data, size_t size,
                                       gj2k_error *error)
{
    return replace_with_copy(&image->icc_profile, &image->icc_profile_size, data, size,
                             "the ICC profile", error);
}

gj2k_status gj2k_image_set_metadata(gj2k_image *image, gj2k_metadata kind, const uint8_t *data,
                                    size_t size, gj2k_error *error)
{
    uint8_t **held = kind == GJ2K_METADATA_XMP    ? &image->xmp
                     : kind == GJ2K_METADATA_EXIF ? &image->exif
                     : kind == GJ2K_METADATA_IPTC ? &image->iptc
                                                  : NULL;
    size_t *held_size = kind == GJ2K_METADATA_XMP    ? &image->xmp_size
                        : kind == GJ2K_METADATA_EXIF ? &image->exif_size
                                                     : &image->iptc_size;
    if (held == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "unknown metadata kind %d", (int)kind);
    return replace_with_copy(held, held_size, data, size, "metadata", error);
}

bool gj2k_image_is_uniform(const gj2k_image *image)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->dx != 1 || comp->dy != 1 || comp->precision > GJ2K_MAX_NARROW_PRECISION ||
            comp->width != image->components[0].width ||
            comp->height != image->components[0].height)
            return false;
    }
    return true;
}
