/* color_render.c - applying a JP2 header to decoded components (palette,
 * channel definitions, colour space, resolution; T.800 Annex I.5.3) and
 * precision changes. */
#include "color_render.h"
#include "error.h"
#include "image_formats.h"

#include <stdlib.h>
#include <string.h>

gj2k_status color_render_allocate(gj2k_component *component, gj2k_error *error)
{
    component->samples = NULL;
    component->wide_samples = NULL;
    size_t count = (size_t)component->width * component->height;
    if (count == 0)
        return GJ2K_OK;
    if (component->precision > GJ2K_MAX_NARROW_PRECISION)
        component->wide_samples = calloc(count, sizeof *component->wide_samples);
    else
        component->samples = calloc(count, sizeof *component->samples);
    if (component->samples == NULL && component->wide_samples == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for %zu samples", count);
    return GJ2K_OK;
}

void color_render_release(gj2k_component *component)
{
    free(component->samples);
    free(component->wide_samples);
    component->samples = NULL;
    component->wide_samples = NULL;
}

gj2k_status color_render_copy(const gj2k_component *source, gj2k_component *out,
                              gj2k_error *error)
{
    *out = *source;
    gj2k_status status = color_render_allocate(out, error);
    if (status != GJ2K_OK)
        return status;
    size_t count = (size_t)out->width * out->height;
    if (out->samples != NULL)
        memcpy(out->samples, source->samples, count * sizeof *out->samples);
    else if (out->wide_samples != NULL)
        memcpy(out->wide_samples, source->wide_samples, count * sizeof *out->wide_samples);
    return GJ2K_OK;
}

gj2k_status color_render_new_rgb(const gj2k_component *like, gj2k_component rgb[3],
                                 gj2k_error *error)
{
    for (int i = 0; i < 3; i++) {
        rgb[i] = *like;
        rgb[i].is_signed = false;
        rgb[i].role = GJ2K_ROLE_COLOR;
        gj2k_status status = color_render_allocate(&rgb[i], error);
        if (status != GJ2K_OK) {
            for (int j = 0; j < i; j++)
                color_render_release(&rgb[j]);
            return status;
        }
    }
    return GJ2K_OK;
}

static void free_components(gj2k_component *components, uint32_t count)
{
    for (uint32_t c = 0; c < count; c++)
        color_render_release(&components[c]);
    free(components);
}

/* ---------------------------------------------------------- cmap + pclr */

/* Channel `channel` of cmap entry `m` (Annex I.5.3.5), a new component. */
static gj2k_status map_channel(const gj2k_image *image, const jp2_file *jp2, uint32_t channel,
                               gj2k_component *out, bool *clamped, gj2k_error *error)
{
    const jp2_component_mapping *m = &jp2->mappings[channel];
    if (m->component >= image->num_components)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "JP2: cmap channel %u uses component %u, the codestream has %u", channel,
                         m->component, image->num_components);
    const gj2k_component *source = &image->components[m->component];
    if (m->map_type != 1) { /* a copy */
        gj2k_status status = color_render_copy(source, out, error);
        out->role = GJ2K_ROLE_COLOR;
        return status;
    }
    const jp2_palette *pal = &jp2->palette;
    if (!jp2->has_palette || m->palette_column >= pal->num_columns)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "JP2: cmap channel %u uses missing palette column %u", channel,
                         m->palette_column);
    *out = *source;
    out->role = GJ2K_ROLE_COLOR;
    out->precision = pal->column_depths[m->palette_column].precision;
    out->is_signed = pal->column_depths[m->palette_column].is_signed;
    gj2k_status status = color_render_allocate(out, error);
    if (status != GJ2K_OK)
        return status;
    size_t count = (size_t)out->width * out->height;
    /* Annex I.5.3.4: the component's sample is the palette entry index. */
    const int64_t last = pal->num_entries - 1;
    for (size_t i = 0; i < count; i++) {
        int64_t index = color_render_sample(source, i);
        if (index < 0 || index > last) {
            *clamped = true;
            index = index < 0 ? 0 : last;
        }
        color_render_set_sample(out, i,
                                pal->values[(size_t)index * pal->num_columns + m->palette_column]);
    }
    return GJ2K_OK;
}

static gj2k_status apply_mapping(gj2k_image *image, const jp2_file *jp2,
                                 gj2k_warning_fn warning, void *warning_user, gj2k_error *error)
{
    gj2k_component *channels = calloc(jp2->num_mappings, sizeof *channels);
    if (channels == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cmap channels");
    bool clamped = false;
    for (uint32_t i = 0; i < jp2->num_mappings; i++) {
        gj2k_status status = map_channel(image, jp2, i, &channels[i], &clamped, error);
        if (status != GJ2K_OK) {
            channels[i].samples = NULL;
            channels[i].wide_samples = NULL;
            free_components(channels, i + 1);
            return status;
        }
    }
    if (clamped)
        gj2k_warn(warning, warning_user,
                  "JP2: palette indices outside the %u entries were clamped",
                  jp2->palette.num_entries);
    free_components(image->components, image->num_components);
    image->components = channels;
    image->num_components = jp2->num_mappings;
    return GJ2K_OK;
}

/* ----------------------------------------------------------------- cdef */

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static gj2k_status apply_channel_definitions(gj2k_image *image, const jp2_file *jp2,
                                             gj2k_warning_fn warning, void *warning_user,
                                             gj2k_error *error)
{
    uint32_t n = image->num_components;
    /* Sort key of each channel: (association, index) for a colour channel
     * associated with colour k (Table I.19), (65536, index) for the others,
     * so colours come first by k and the rest keep their order. */
    uint64_t *keys = malloc(n * sizeof *keys);
    gj2k_component *order = malloc(n * sizeof *order);
    if (keys == NULL || order == NULL) {
        free(keys);
        free(order);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cdef");
    }
    for (uint32_t c = 0; c < n; c++)
        keys[c] = ((uint64_t)0x10000 << 32) | c;
    for (uint32_t i = 0; i < jp2->num_channels; i++) {
        const jp2_channel_definition *def = &jp2->channels[i];
        if (def->channel >= n) {
            gj2k_warn(warning, warning_user, "JP2: cdef names channel %u of %u", def->channel, n);
            continue;
        }
        gj2k_component *comp = &image->components[def->channel];
        switch (def->type) {
        case JP2_CHANNEL_OPACITY: comp->role = GJ2K_ROLE_OPACITY; break;
        case JP2_CHANNEL_PREMULTIPLIED_OPACITY: comp->role = GJ2K_ROLE_PREMULTIPLIED_OPACITY; break;
        default: comp->role = GJ2K_ROLE_COLOR; break;
        }
        if (def->type == JP2_CHANNEL_COLOR && def->association != JP2_ASSOCIATION_WHOLE_IMAGE &&
            def->association != JP2_ASSOCIATION_NONE)
            keys[def->channel] = ((uint64_t)def->association << 32) | def->channel;
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    for (uint32_t i = 0; i < n; i++) {
        order[i] = image->components[(uint32_t)keys[i]];
        uint64_t association = keys[i] >> 32;
        if (i > 0 && association < 0x10000 && association == keys[i - 1] >> 32)
            gj2k_warn(warning, warning_user, "JP2: cdef associates two channels with colour %u",
                      (unsigned)association);
    }
    memcpy(image->components, order, n * sizeof *order);
    free(keys);
    free(order);
    return GJ2K_OK;
}

/* ------------------------------------------------------------ colr, res */

static bool interpretable(const jp2_color_spec *spec)
{
    if (spec->method == JP2_COLOR_METHOD_ENUMERATED)
        return spec->enumerated == JP2_ENUM_SRGB || spec->enumerated == JP2_ENUM_GREYSCALE ||
               spec->enumerated == JP2_ENUM_SYCC || spec->enumerated == JP2_ENUM_ESYCC;
    return (spec->method == JP2_COLOR_METHOD_RESTRICTED_ICC ||
            spec->method == JP2_COLOR_METHOD_ANY_ICC) &&
           spec->icc_profile != NULL;
}

static gj2k_status apply_color(gj2k_image *image, const jp2_file *jp2, gj2k_warning_fn warning,
                               void *warning_user, gj2k_error *error)
{
    const jp2_color_spec *chosen = NULL;
    for (uint32_t i = 0; i < jp2->num_colors && chosen == NULL; i++) {
        if (interpretable(&jp2->colors[i]))
            chosen = &jp2->colors[i];
        else
            gj2k_warn(warning, warning_user,
                      "JP2: colr box %u (method %u, enumeration %u) is not rendered", i,
                      jp2->colors[i].method, jp2->colors[i].enumerated);
    }
    if (chosen == NULL) {
        image->color_space = GJ2K_COLOR_UNKNOWN;
        return GJ2K_OK;
    }
    if (chosen->method == JP2_COLOR_METHOD_ENUMERATED) {
        image->color_space = chosen->enumerated == JP2_ENUM_SRGB       ? GJ2K_COLOR_SRGB
                             : chosen->enumerated == JP2_ENUM_GREYSCALE ? GJ2K_COLOR_GRAY
                             : chosen->enumerated == JP2_ENUM_SYCC      ? GJ2K_COLOR_SYCC
                                                                        : GJ2K_COLOR_ESYCC;
        return gj2k_image_set_icc_profile(image, NULL, 0, error);
    }
    /* ICC.1 header: the data colour space signature is at bytes 16..19. */
    bool grey = chosen->icc_profile_size >= 20 && memcmp(chosen->icc_profile + 16, "GRAY", 4) == 0;
    image->color_space = grey ? GJ2K_COLOR_GRAY : GJ2K_COLOR_UNKNOWN;
    return gj2k_image_set_icc_profile(image, chosen->icc_profile, chosen->icc_profile_size, error);
}

static void apply_resolution(gj2k_image *image, const jp2_file *jp2)
{
    double vertical, horizontal;
    const jp2_resolution *res = jp2->has_display_resolution ? &jp2->display_resolution
                                : jp2->has_capture_resolution ? &jp2->capture_resolution
                                                              : NULL;
    if (res != NULL && jp2_resolution_to_ppm(res, &vertical, &horizontal)) {
        image->resolution_x = horizontal;
        image->resolution_y = vertical;
    }
}

gj2k_status color_render_apply_jp2(gj2k_image *image, const jp2_file *jp2,
                                   gj2k_warning_fn warning, void *warning_user,
                                   gj2k_error *error)
{
    if (jp2 == NULL)
        return GJ2K_OK;
    if (jp2->mappings != NULL) {
        gj2k_status status = apply_mapping(image, jp2, warning, warning_user, error);
        if (status != GJ2K_OK)
            return status;
    } else if (jp2->has_palette) {
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "JP2: pclr box without a cmap box");
    }
    gj2k_status status = GJ2K_OK;
    if (jp2->channels != NULL)
        status = apply_channel_definitions(image, jp2, warning, warning_user, error);
    if (status == GJ2K_OK)
        status = apply_color(image, jp2, warning, warning_user, error);
    if (status != GJ2K_OK)
        return status;
    apply_resolution(image, jp2);
    return GJ2K_OK;
}

/* ------------------------------------------------------------ precision */

/* floor(value / 2^shift): an arithmetic shift, as dwt_53.c relies on too. */
static int64_t floor_shift(int64_t value, uint32_t shift) { return value >> shift; }

gj2k_status color_render_set_component_precision(gj2k_component *component, uint32_t bits,
                                                 color_render_signedness sign,
                                                 gj2k_error *error)
{
    if (bits < 1 || bits > GJ2K_MAX_PRECISION)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "precision %u outside 1..%d bits",
                         bits, GJ2K_MAX_PRECISION);
    bool to_signed = sign == COLOR_RENDER_KEEP_SIGN ? component->is_signed
                                                    : sign == COLOR_RENDER_SIGNED;
    uint32_t from = component->precision;
    if (bits == from && to_signed == component->is_signed)
        return GJ2K_OK;
    gj2k_component converted = *component;
    converted.precision = bits;
    converted.is_signed = to_signed;
    gj2k_status status = color_render_allocate(&converted, error);
    if (status != GJ2K_OK)
        return status;
    int64_t offset = 0, half = (int64_t)1 << (from - 1);
    if (component->is_signed && !to_signed)
        offset = half;
    else if (!component->is_signed && to_signed)
        offset = -half;
    const int64_t low = image_sample_min(&converted), high = image_sample_max(&converted);
    size_t count = (size_t)component->width * component->height;
    for (size_t i = 0; i < count; i++) {
        int64_t v = color_render_sample(component, i) + offset;
        if (bits > from)
            v *= (int64_t)1 << (bits - from); /* |v| <= 2^from: no overflow */
        else if (bits < from)
            v = floor_shift(v + ((int64_t)1 << (from - bits - 1)), from - bits);
        color_render_set_sample(&converted, i, v < low ? low : v > high ? high : v);
    }
    color_render_release(component);
    *component = converted;
    return GJ2K_OK;
}

gj2k_status color_render_set_precision(gj2k_image *image, uint32_t bits,
                                       color_render_signedness sign, gj2k_error *error)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_status status =
            color_render_set_component_precision(&image->components[c], bits, sign, error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}
