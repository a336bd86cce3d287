/* cinema_profile.c - see cinema_profile.h. */
#include "cinema_profile.h"

#include <string.h>

#include "error.h"

gj2k_status cinema_options_make(const gj2k_image *image, const gj2k_encode_options *options,
                                cinema_options *out, gj2k_error *error)
{
    bool four_k = options->profile == GJ2K_PROFILE_CINEMA_4K;
    unsigned rate = options->frame_rate ? options->frame_rate : 24;
    const j2k_cinema_limits *l =
        j2k_cinema_limits_of(four_k ? J2K_RSIZ_CINEMA_4K : J2K_RSIZ_CINEMA_2K, rate);
    if (l == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "the %s cinema profile takes %s frames a second, not %u",
                         four_k ? "4K" : "2K", four_k ? "24" : "24 or 48", rate);
    if (image->num_components != 3 || image->x0 != 0 || image->y0 != 0 ||
        image->x1 > l->width || image->y1 > l->height)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "the %s cinema profile takes 3 components of at most %ux%u from (0, 0): "
                         "this image has %u of %ux%u", four_k ? "4K" : "2K", l->width, l->height,
                         image->num_components, image->x1 - image->x0, image->y1 - image->y0);
    for (uint32_t c = 0; c < 3; c++) {
        const gj2k_component *k = &image->components[c];
        if (k->precision != 12 || k->is_signed || k->dx != 1 || k->dy != 1)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "the cinema profiles take 12-bit unsigned components, not "
                             "subsampled (X'Y'Z'): component %u is %u-bit%s, %ux%u", c,
                             k->precision, k->is_signed ? " signed" : "", k->dx, k->dy);
    }
    memset(out, 0, sizeof *out);
    out->limits = l;
    gj2k_encode_options *o = &out->options;
    *o = *options;
    if (o->tile_width || o->high_throughput || o->code_block_style || o->num_layers > 1 ||
        o->num_progression_changes || o->target == GJ2K_TARGET_PSNR)
        gj2k_warn(options->warning, options->warning_user,
                  "the cinema profile sets the tiles, code-blocks, layers, progression and rate "
                  "itself: those options are overridden");
    unsigned resolutions = o->num_resolutions ? o->num_resolutions : l->max_levels + 1;
    o->num_resolutions = resolutions > l->max_levels + 1 ? l->max_levels + 1 : resolutions;
    o->irreversible = true;
    o->high_throughput = false;
    o->code_block_style = 0;
    o->tile_width = o->tile_height = o->tile_x0 = o->tile_y0 = 0;
    o->code_block_width = o->code_block_height = 32;
    o->num_precinct_sizes = o->num_resolutions; /* the highest first: 256, ..., 128 */
    for (unsigned r = 0; r < o->num_resolutions; r++)
        o->precinct_width[r] = o->precinct_height[r] = r + 1 < o->num_resolutions ? 256 : 128;
    o->progression = GJ2K_CPRL;
    o->tile_parts = GJ2K_TILE_PARTS_COMPONENT;
    o->use_tlm = true;
    /* one layer: the caller's single byte budget where it is smaller */
    double raw = (double)image->x1 * image->y1 * 3 * 12 / 8;
    double asked = 0;
    if (options->num_layers == 1 && options->targets != NULL && options->targets[0] > 0)
        asked = options->target == GJ2K_TARGET_BYTES ? options->targets[0]
                : options->target == GJ2K_TARGET_RATIO ? raw / options->targets[0]
                : options->target == GJ2K_TARGET_BPP
                    ? options->targets[0] * image->x1 * image->y1 / 8
                    : 0;
    out->target = asked > 0 && asked < l->frame_bytes ? asked : l->frame_bytes;
    o->target = GJ2K_TARGET_BYTES;
    o->num_layers = 1;
    o->targets = &out->target;
    if (four_k) { /* the 2K image first (every resolution but the last), then the rest */
        out->changes[0] = (gj2k_progression_change){
            .tile = -1, .layer_end = 1, .resolution_end = o->num_resolutions - 1,
            .component_end = 3, .progression = GJ2K_CPRL};
        out->changes[1] = (gj2k_progression_change){
            .tile = -1, .resolution_start = o->num_resolutions - 1, .layer_end = 1,
            .resolution_end = o->num_resolutions, .component_end = 3, .progression = GJ2K_CPRL};
        o->progression_changes = out->changes;
        o->num_progression_changes = 2;
    } else {
        o->progression_changes = NULL;
        o->num_progression_changes = 0;
    }
    return GJ2K_OK;
}

gj2k_status cinema_check_codestream(const uint8_t *codestream, size_t size,
                                    const j2k_cinema_limits *limits, size_t *over,
                                    gj2k_error *error)
{
    *over = 0;
    j2k_codestream *cs = NULL;
    gj2k_status status = j2k_codestream_parse(codestream, size, NULL, NULL, &cs, error);
    if (status != GJ2K_OK)
        return status;
    char why[512];
    if (!j2k_cinema_check(cs, limits, why, sizeof why)) {
        const j2k_tile *tile = cs->num_tiles_present == 1 ? &cs->tiles[0] : NULL;
        size_t component[3] = {0};
        for (size_t p = 0; tile != NULL && p < tile->num_parts; p++)
            component[p % 3] += tile->parts[p].data_end - tile->parts[p].sot_offset;
        for (int c = 0; c < 3; c++)
            if (component[c] > limits->component_bytes &&
                component[c] - limits->component_bytes > *over)
                *over = component[c] - limits->component_bytes;
        status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "the codestream breaks the cinema profile: %s",
                           why);
    }
    j2k_codestream_destroy(cs);
    return status;
}
