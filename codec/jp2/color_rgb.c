/* color_rgb.c - full-size components by replication (Annex B.2 geometry) and
 * rendering grey, sYCC and ICC-described colour as sRGB. */
#include "color_render.h"
#include "error.h"
#include "image_formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- upsample */

/* Marks a canvas position that no sample covers. */
#define UPSAMPLE_NO_SAMPLE UINT32_MAX

/* Column (or row) of the component's samples that covers canvas position
 * `canvas`: floor(canvas / d) on the component grid (Annex B.2), held to its
 * extent; UPSAMPLE_NO_SAMPLE before the first sample, where the canvas starts
 * inside a subsampling cell whose sample lies outside the image. */
static uint32_t covering_index(uint32_t canvas, uint32_t d, uint32_t origin, uint32_t extent)
{
    uint32_t grid = canvas / d;
    if (grid < origin)
        return UPSAMPLE_NO_SAMPLE;
    return grid - origin < extent ? grid - origin : extent - 1;
}

static gj2k_status upsample_component(const gj2k_image *image, gj2k_component *comp,
                                      gj2k_error *error)
{
    uint32_t width = image->x1 - image->x0, height = image->y1 - image->y0;
    if (comp->dx == 1 && comp->dy == 1 && comp->x0 == image->x0 && comp->y0 == image->y0 &&
        comp->width == width && comp->height == height)
        return GJ2K_OK;
    gj2k_component full = *comp;
    full.dx = full.dy = 1;
    full.x0 = image->x0;
    full.y0 = image->y0;
    full.width = width;
    full.height = height;
    gj2k_status status = color_render_allocate(&full, error);
    if (status != GJ2K_OK)
        return status;
    size_t count = (size_t)width * height;
    if (comp->width == 0 || comp->height == 0) {
        /* Nothing to replicate: the middle value (colour-neutral for chroma). */
        int64_t middle = comp->is_signed ? 0 : (int64_t)1 << (comp->precision - 1);
        for (size_t i = 0; i < count; i++)
            color_render_set_sample(&full, i, middle);
    } else {
        uint32_t *columns = malloc((size_t)width * sizeof *columns);
        if (columns == NULL) {
            color_render_release(&full);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory upsampling");
        }
        for (uint32_t x = 0; x < width; x++)
            columns[x] = covering_index(image->x0 + x, comp->dx, comp->x0, comp->width);
        /* Positions no sample covers stay 0 (zeroed by color_render_allocate),
         * as OpenJPEG's upsampling leaves them. */
        for (uint32_t y = 0; y < height; y++) {
            uint32_t row = covering_index(image->y0 + y, comp->dy, comp->y0, comp->height);
            if (row == UPSAMPLE_NO_SAMPLE)
                continue;
            size_t source = (size_t)row * comp->width, target = (size_t)y * width;
            for (uint32_t x = 0; x < width; x++) {
                if (columns[x] == UPSAMPLE_NO_SAMPLE)
                    continue;
                if (full.samples != NULL)
                    full.samples[target + x] = comp->samples[source + columns[x]];
                else
                    full.wide_samples[target + x] = comp->wide_samples[source + columns[x]];
            }
        }
        free(columns);
    }
    color_render_release(comp);
    *comp = full;
    return GJ2K_OK;
}

gj2k_status color_render_upsample(gj2k_image *image, gj2k_error *error)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_status status = upsample_component(image, &image->components[c], error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}

/* ---------------------------------------------------------------- to RGB */

static bool same_geometry(const gj2k_component *a, const gj2k_component *b)
{
    return a->dx == b->dx && a->dy == b->dy && a->x0 == b->x0 && a->y0 == b->y0 &&
           a->width == b->width && a->height == b->height;
}

/* sYCC to sRGB (IEC 61966-2-1 Amd. 1, clause 4.1), all three of one geometry.
 * e-sYCC uses the same matrix over an extended range, which
 * the clamp to [0, 2^p - 1] ends. */
static gj2k_status sycc_to_rgb(const gj2k_image *image, const uint32_t colors[3],
                               gj2k_component rgb[3], gj2k_error *error)
{
    const gj2k_component *luma = &image->components[colors[0]];
    const gj2k_component *cb = &image->components[colors[1]];
    const gj2k_component *cr = &image->components[colors[2]];
    gj2k_status status = color_render_new_rgb(luma, rgb, error);
    if (status != GJ2K_OK)
        return status;
    const double luma_offset = luma->is_signed ? ldexp(1.0, (int)luma->precision - 1) : 0.0;
    const double cb_offset = cb->is_signed ? 0.0 : ldexp(1.0, (int)cb->precision - 1);
    const double cr_offset = cr->is_signed ? 0.0 : ldexp(1.0, (int)cr->precision - 1);
    const double cb_scale = ldexp(1.0, (int)luma->precision - (int)cb->precision);
    const double cr_scale = ldexp(1.0, (int)luma->precision - (int)cr->precision);
    const double high = ldexp(1.0, (int)luma->precision) - 1.0;
    size_t count = (size_t)luma->width * luma->height;
    for (size_t i = 0; i < count; i++) {
        double y = (double)color_render_sample(luma, i) + luma_offset;
        double b = ((double)color_render_sample(cb, i) - cb_offset) * cb_scale;
        double r = ((double)color_render_sample(cr, i) - cr_offset) * cr_scale;
        double values[3] = {y + 1.402 * r, y - 0.344136 * b - 0.714136 * r, y + 1.772 * b};
        for (int k = 0; k < 3; k++) {
            double v = floor(values[k] + 0.5);
            color_render_set_sample(&rgb[k], i, (int64_t)(v < 0 ? 0 : v > high ? high : v));
        }
    }
    return GJ2K_OK;
}

typedef enum rgb_source { SOURCE_GREY, SOURCE_RGB, SOURCE_SYCC, SOURCE_ICC } rgb_source;

/* Colour channels of the ICC profile's data colour space (ICC.1 header
 * bytes 16..19), 0 for one this renderer does not handle. */
static uint32_t icc_channels(const gj2k_image *image)
{
    if (image->icc_profile_size < 128)
        return 0;
    const uint8_t *space = image->icc_profile + 16;
    return memcmp(space, "GRAY", 4) == 0 ? 1 : memcmp(space, "RGB ", 4) == 0 ? 3 : 0;
}

gj2k_status color_render_to_rgb(gj2k_image *image, gj2k_warning_fn warning, void *warning_user,
                                gj2k_error *error)
{
    uint32_t colors[3] = {0}, num_colors = 0;
    for (uint32_t c = 0; c < image->num_components; c++)
        if (image->components[c].role == GJ2K_ROLE_COLOR && num_colors < 3)
            colors[num_colors++] = c;
    if (num_colors == 0)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "no colour component to render as RGB");
    rgb_source source;
    uint32_t needed;
    if (image->icc_profile != NULL) {
        needed = icc_channels(image);
        if (needed == 0)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "ICC profile (%zu bytes) is not a grey or RGB one",
                             image->icc_profile_size);
        if (num_colors < needed)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                             "ICC profile needs %u colour components, the image has %u", needed,
                             num_colors);
        source = SOURCE_ICC;
    } else if (image->color_space == GJ2K_COLOR_GRAY ||
               (image->color_space == GJ2K_COLOR_UNKNOWN && num_colors < 3)) {
        source = SOURCE_GREY;
        needed = 1;
    } else {
        source = image->color_space == GJ2K_COLOR_SYCC || image->color_space == GJ2K_COLOR_ESYCC
                     ? SOURCE_SYCC
                     : SOURCE_RGB;
        needed = 3;
        if (num_colors < 3) {
            gj2k_warn(warning, warning_user,
                      "%s image of %u colour components rendered as grey",
                      source == SOURCE_SYCC ? "sYCC" : "sRGB", num_colors);
            source = SOURCE_GREY;
            needed = 1;
        }
    }
    for (uint32_t i = 1; i < needed; i++) {
        if (!same_geometry(&image->components[colors[0]], &image->components[colors[i]])) {
            gj2k_status status = color_render_upsample(image, error);
            if (status != GJ2K_OK)
                return status;
            break;
        }
    }
    uint32_t total = image->num_components - needed + 3;
    gj2k_component *out = calloc(total, sizeof *out);
    if (out == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory rendering RGB");
    gj2k_status status = GJ2K_OK;
    switch (source) {
    case SOURCE_GREY:
        out[0] = image->components[colors[0]];
        status = color_render_copy(&out[0], &out[1], error);
        if (status == GJ2K_OK && (status = color_render_copy(&out[0], &out[2], error)) != GJ2K_OK)
            color_render_release(&out[1]);
        break;
    case SOURCE_RGB:
        for (int i = 0; i < 3; i++)
            out[i] = image->components[colors[i]];
        break;
    case SOURCE_SYCC: status = sycc_to_rgb(image, colors, out, error); break;
    case SOURCE_ICC: status = color_render_icc_to_srgb(image, colors, needed, out, error); break;
    }
    if (status != GJ2K_OK) {
        free(out);
        return status;
    }
    /* The components consumed: moved into out (grey, RGB) or released. */
    uint32_t next = 3;
    for (uint32_t c = 0; c < image->num_components; c++) {
        bool consumed = false;
        for (uint32_t i = 0; i < needed; i++)
            consumed = consumed || colors[i] == c;
        if (!consumed)
            out[next++] = image->components[c];
        else if (source == SOURCE_SYCC || source == SOURCE_ICC)
            color_render_release(&image->components[c]);
    }
    free(image->components);
    image->components = out;
    image->num_components = total;
    image->color_space = GJ2K_COLOR_SRGB;
    return gj2k_image_set_icc_profile(image, NULL, 0, error);
}
