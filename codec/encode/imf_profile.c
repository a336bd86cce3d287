/* imf_profile.c - see imf_profile.h. The rules are T.800 Amd 8's Tables
 * A.51 (single tile lossy: 2K, 4K, 8K) and A.52 (single or multi-tile
 * reversible: 2K_R, 4K_R, 8K_R), with the levels of Tables A.53 (main
 * level: samples a second, and the sub levels it takes) and A.54 (sub
 * level: bits a second); codestream_profiles.c holds them. A codestream
 * does not carry its frame rate: without one the rates bound nothing and
 * the levels are written as asked (0, "not specified", when left). */
#include "imf_profile.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

unsigned imf_profile_rsiz(gj2k_profile profile)
{
    switch (profile) {
    case GJ2K_PROFILE_IMF_2K: return J2K_RSIZ_IMF_2K;
    case GJ2K_PROFILE_IMF_4K: return J2K_RSIZ_IMF_4K;
    case GJ2K_PROFILE_IMF_8K: return J2K_RSIZ_IMF_8K;
    case GJ2K_PROFILE_IMF_2K_R: return J2K_RSIZ_IMF_2K_R;
    case GJ2K_PROFILE_IMF_4K_R: return J2K_RSIZ_IMF_4K_R;
    case GJ2K_PROFILE_IMF_8K_R: return J2K_RSIZ_IMF_8K_R;
    default: return 0;
    }
}

unsigned imf_options_rsiz(const gj2k_encode_options *o)
{
    unsigned main_level = o->imf_main_level ? o->imf_main_level - 1 : 0;
    unsigned sub_level = o->imf_sub_level ? o->imf_sub_level - 1 : 0;
    return imf_profile_rsiz(o->profile) | (sub_level & 0xFu) << 4 | (main_level & 0xFu);
}

/* The image against Tables A.51/A.52: origin, size, components, depth and
 * subsampling. */
static gj2k_status check_image(const gj2k_image *image, const j2k_imf_profile *p,
                               gj2k_error *error)
{
    if (image->x0 != 0 || image->y0 != 0 || image->x1 > p->width || image->y1 > p->height)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "the IMF %s profile takes images of at most %ux%u from (0, 0): this "
                         "one is %ux%u from (%u, %u)", p->name, p->width, p->height,
                         image->x1 - image->x0, image->y1 - image->y0, image->x0, image->y0);
    if (image->num_components < 1 || image->num_components > 3)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "the IMF profiles take 1 to 3 components, not %u",
                         image->num_components);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *k = &image->components[c];
        if (k->precision < 8 || k->precision > 16 || k->is_signed)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "the IMF profiles take unsigned components of 8 to 16 bits: "
                             "component %u is %u-bit%s", c, k->precision,
                             k->is_signed ? " signed" : "");
        uint32_t dx_wanted = c == 0 ? 1 : image->components[1].dx;
        if (k->dy != 1 || k->dx != dx_wanted || k->dx > 2)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "the IMF profiles take components subsampled 1x1, or 2x1 for "
                             "all but the first alike: component %u is %ux%u", c, k->dx, k->dy);
    }
    return GJ2K_OK;
}

/* The levels asked for checked against each other and, with a frame rate,
 * against the image's samples a second; the main level chosen where left
 * (the lowest whose sample rate holds the image's), and the bytes a frame
 * the levels allow. */
static gj2k_status plan_levels(const gj2k_encode_options *o, imf_options *out, gj2k_error *error)
{
    if (o->imf_main_level > GJ2K_IMF_LEVEL(J2K_IMF_MAX_MAIN_LEVEL) ||
        o->imf_sub_level > GJ2K_IMF_LEVEL(J2K_IMF_MAX_SUB_LEVEL))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "IMF main level %d, sub level %d: main levels are 0 to 11, sub levels "
                         "0 to 9", (int)o->imf_main_level - 1, (int)o->imf_sub_level - 1);
    bool fps = out->frame_rate > 0;
    out->choose_main = fps && o->imf_main_level == GJ2K_IMF_LEVEL_AUTO;
    out->choose_sub = fps && o->imf_sub_level == GJ2K_IMF_LEVEL_AUTO;
    out->main_level = o->imf_main_level ? o->imf_main_level - 1 : 0;
    out->sub_level = o->imf_sub_level ? o->imf_sub_level - 1 : 0;
    if (!out->choose_main && out->sub_level > j2k_imf_max_sub_level(out->main_level))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "IMF main level %u takes sub levels up to %u, not %u", out->main_level,
                         j2k_imf_max_sub_level(out->main_level), out->sub_level);
    if (!fps) {
        if (out->main_level > 0 || out->sub_level > 0)
            gj2k_warn(o->warning, o->warning_user,
                      "IMF main level %u, sub level %u without a frame rate: the samples and "
                      "bits a second they allow are not checked (give one: framerate=)",
                      out->main_level, out->sub_level);
        return GJ2K_OK;
    }
    double msamples = out->samples * out->frame_rate / 1e6;
    if (out->choose_main) {
        unsigned m = 1;
        while (m <= J2K_IMF_MAX_MAIN_LEVEL && j2k_imf_main_level_msamples(m) < msamples)
            m++;
        if (m > J2K_IMF_MAX_MAIN_LEVEL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "%.1f Msamples/s at %g fps: more than any IMF main level allows "
                             "(%.0f)", msamples, out->frame_rate,
                             j2k_imf_main_level_msamples(J2K_IMF_MAX_MAIN_LEVEL));
        while (j2k_imf_max_sub_level(m) < out->sub_level) /* the sub level asked for */
            m++;
        out->main_level = m;
    } else if (out->main_level > 0 && msamples > j2k_imf_main_level_msamples(out->main_level)) {
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "IMF main level %u allows %.0f Msamples/s: this image at %g fps has "
                         "%.1f (ask for a higher main level, or leave it to the encoder)",
                         out->main_level, j2k_imf_main_level_msamples(out->main_level),
                         out->frame_rate, msamples);
    }
    /* the bits a second: the sub level's, or the highest the encoder may choose */
    unsigned bound = !out->choose_sub ? out->sub_level
                     : out->choose_main ? J2K_IMF_MAX_SUB_LEVEL
                                        : j2k_imf_max_sub_level(out->main_level);
    out->most_bytes = j2k_imf_sub_level_mbits(bound) * 1e6 / 8.0 / out->frame_rate;
    out->usual_bytes = j2k_imf_sub_level_mbits(j2k_imf_max_sub_level(out->main_level)) * 1e6 /
                       8.0 / out->frame_rate;
    return GJ2K_OK;
}

/* Appends `name` to the list of overridden options. */
static void overridden(char *list, size_t size, const char *name)
{
    size_t used = strlen(list);
    snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
}

/* The one layer: the caller's last target (bytes where it says bytes),
 * within the bytes the levels allow. */
static void plan_layer(const gj2k_image *image, const gj2k_encode_options *options,
                       imf_options *out)
{
    gj2k_encode_options *o = &out->options;
    unsigned layers = options->num_layers ? options->num_layers : 1;
    double last = options->target != GJ2K_TARGET_NONE && options->targets != NULL
                      ? options->targets[layers - 1] : 0;
    double raw = 0;
    for (uint32_t c = 0; c < image->num_components; c++)
        raw += (double)image->components[c].width * image->components[c].height *
               image->components[c].precision / 8.0;
    double area = (double)image->x1 * image->y1;
    out->asked = options->target == GJ2K_TARGET_BYTES ? last
                 : options->target == GJ2K_TARGET_RATIO ? (last > 1 ? raw / last : 0)
                 : options->target == GJ2K_TARGET_BPP ? last * area / 8.0
                                                      : 0;
    o->num_layers = 1;
    o->targets = &out->target;
    if (options->target == GJ2K_TARGET_PSNR && last > 0) {
        o->target = GJ2K_TARGET_PSNR; /* bounded after the encode (imf_lower_to_bound) */
        out->target = last;
    } else if (out->asked > 0 || (!out->profile->reversible && out->usual_bytes > 0)) {
        /* 9/7 keeps nothing exact: without a target, the main level's usual budget */
        double want = out->asked > 0 ? out->asked : out->usual_bytes;
        o->target = GJ2K_TARGET_BYTES;
        out->target = out->most_bytes > 0 && out->most_bytes < want ? out->most_bytes : want;
    } else {
        o->target = GJ2K_TARGET_NONE; /* every pass, bounded after the encode */
        o->targets = NULL;
    }
}

gj2k_status imf_options_make(const gj2k_image *image, const gj2k_encode_options *options,
                             imf_options *out, gj2k_error *error)
{
    memset(out, 0, sizeof *out);
    const j2k_imf_profile *p = j2k_imf_profile_of(imf_profile_rsiz(options->profile));
    if (p == NULL)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "not an IMF profile: %d",
                         (int)options->profile);
    out->profile = p;
    gj2k_status status = check_image(image, p, error);
    if (status != GJ2K_OK)
        return status;
    for (uint32_t c = 0; c < image->num_components; c++)
        out->samples += (double)image->components[c].width * image->components[c].height;
    out->frame_rate = options->frame_rate;
    status = plan_levels(options, out, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_encode_options *o = &out->options;
    *o = *options;
    char list[256] = "";
    /* tiles: one, or (the _R profiles) square ones of the sizes Table A.52 names */
    bool one_tile = o->tile_width == 0 || (o->tile_width >= image->x1 &&
                                           o->tile_height >= image->y1);
    if (!one_tile && !j2k_imf_tiles_allowed(p, o->tile_width, o->tile_height, image->x1,
                                            image->y1)) {
        overridden(list, sizeof list, "tiles");
        one_tile = true;
    }
    if (one_tile)
        o->tile_width = o->tile_height = 0;
    if (o->tile_x0 || o->tile_y0)
        overridden(list, sizeof list, "tile origin");
    o->tile_x0 = o->tile_y0 = 0;
    uint32_t tile_width = o->tile_width && o->tile_width < image->x1 ? o->tile_width : image->x1;
    unsigned max_levels = j2k_imf_max_levels(p, tile_width);
    unsigned resolutions = o->num_resolutions ? o->num_resolutions : max_levels + 1;
    if (resolutions > max_levels + 1 || resolutions < 2) {
        char what[64];
        snprintf(what, sizeof what, "resolutions (2 to %u)", max_levels + 1);
        overridden(list, sizeof list, what);
        resolutions = resolutions < 2 ? 2 : max_levels + 1;
    }
    o->num_resolutions = resolutions;
    if (options->irreversible && p->reversible)
        overridden(list, sizeof list, "-I (5/3)");
    o->irreversible = !p->reversible;
    if (o->high_throughput || o->code_block_style)
        overridden(list, sizeof list, "code-block style");
    o->high_throughput = o->ht_refinement = false;
    o->code_block_style = 0;
    if ((o->code_block_width && o->code_block_width != 32) ||
        (o->code_block_height && o->code_block_height != 32))
        overridden(list, sizeof list, "code-blocks (32x32)");
    o->code_block_width = o->code_block_height = 32;
    if (o->num_precinct_sizes)
        overridden(list, sizeof list, "precincts");
    o->num_precinct_sizes = resolutions; /* the highest first: 256, ..., 128 */
    for (unsigned r = 0; r < resolutions; r++)
        o->precinct_width[r] = o->precinct_height[r] = r + 1 < resolutions ? 256 : 128;
    if (o->progression != GJ2K_LRCP && o->progression != GJ2K_CPRL)
        overridden(list, sizeof list, "progression (CPRL)");
    o->progression = GJ2K_CPRL;
    if (o->num_progression_changes)
        overridden(list, sizeof list, "progression changes");
    o->progression_changes = NULL;
    o->num_progression_changes = 0;
    if (o->tile_parts != GJ2K_TILE_PARTS_ONE && o->tile_parts != GJ2K_TILE_PARTS_COMPONENT)
        overridden(list, sizeof list, "tile-parts");
    o->tile_parts = GJ2K_TILE_PARTS_COMPONENT;
    o->use_tlm = true;
    if (options->num_layers > 1)
        overridden(list, sizeof list, "quality layers (one)");
    plan_layer(image, options, out);
    if (list[0] != '\0')
        gj2k_warn(options->warning, options->warning_user,
                  "the IMF %s profile sets these itself: %s", p->name, list);
    return GJ2K_OK;
}

bool imf_lower_to_bound(imf_options *imf, size_t bytes)
{
    if (imf->most_bytes <= 0 || (double)bytes <= imf->most_bytes)
        return false;
    gj2k_encode_options *o = &imf->options;
    char level[80];
    if (!imf->choose_sub)
        snprintf(level, sizeof level, "sub level %u", imf->sub_level);
    else if (imf->choose_main)
        snprintf(level, sizeof level, "sub level %u, the highest,", J2K_IMF_MAX_SUB_LEVEL);
    else
        snprintf(level, sizeof level, "sub level %u, the highest main level %u takes,",
                 j2k_imf_max_sub_level(imf->main_level), imf->main_level);
    bool psnr = o->target == GJ2K_TARGET_PSNR;
    gj2k_warn(o->warning, o->warning_user,
              "%zu bytes a frame %s: more than the %.0f that %s allows at %g fps; coded again "
              "within them%s", bytes, psnr ? "at the PSNR asked for" : "lossless",
              imf->most_bytes, level, imf->frame_rate, psnr ? "" : ", so not lossless");
    o->target = GJ2K_TARGET_BYTES;
    o->num_layers = 1;
    imf->target = imf->most_bytes;
    o->targets = &imf->target;
    return true;
}

gj2k_status imf_levels_settle(imf_options *imf, size_t bytes, gj2k_error *error)
{
    double mbits = (double)bytes * 8.0 * imf->frame_rate / 1e6;
    if (imf->choose_sub) { /* the lowest whose bits a second hold the frame's */
        unsigned s = 1;
        while (s <= J2K_IMF_MAX_SUB_LEVEL && j2k_imf_sub_level_mbits(s) < mbits)
            s++;
        if (s > J2K_IMF_MAX_SUB_LEVEL)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                             "%.1f Mbit/s at %g fps: more than any IMF sub level allows (%.0f)",
                             mbits, imf->frame_rate,
                             j2k_imf_sub_level_mbits(J2K_IMF_MAX_SUB_LEVEL));
        imf->sub_level = s;
    }
    if (imf->choose_main) /* as high as that sub level needs */
        while (j2k_imf_max_sub_level(imf->main_level) < imf->sub_level)
            imf->main_level++;
    if (imf->sub_level > j2k_imf_max_sub_level(imf->main_level))
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "IMF main level %u takes sub levels up to %u, "
                         "and this frame needs %u", imf->main_level,
                         j2k_imf_max_sub_level(imf->main_level), imf->sub_level);
    imf->options.imf_main_level = GJ2K_IMF_LEVEL(imf->main_level);
    imf->options.imf_sub_level = GJ2K_IMF_LEVEL(imf->sub_level);
    return GJ2K_OK;
}

gj2k_status imf_finish_codestream(const imf_options *imf, uint8_t *codestream, size_t size,
                                  gj2k_error *error)
{
    /* SOC, then SIZ: its Lsiz, then Rsiz (A.5.1) */
    if (size < 8 || codestream[0] != 0xFF || codestream[1] != 0x4F || codestream[2] != 0xFF ||
        codestream[3] != 0x51)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "IMF: no SIZ after SOC to set Rsiz in");
    unsigned rsiz = imf_options_rsiz(&imf->options);
    codestream[6] = (uint8_t)(rsiz >> 8);
    codestream[7] = (uint8_t)rsiz;
    j2k_codestream *cs = NULL;
    gj2k_status status = j2k_codestream_parse(codestream, size, NULL, NULL, &cs, error);
    if (status != GJ2K_OK)
        return status;
    char why[512];
    if (!j2k_imf_check(cs, imf->frame_rate, why, sizeof why))
        status = gj2k_fail(error, GJ2K_ERROR_LIMIT, "the codestream breaks the IMF %s profile: %s",
                           imf->profile->name, why);
    j2k_codestream_destroy(cs);
    return status;
}
