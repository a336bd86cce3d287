/* codestream_profiles.c - the digital cinema profiles of T.800 Amd 1
 * (Rsiz 3, 2K; Rsiz 4, 4K) and the IMF profiles of T.800 Amd 8 (Rsiz
 * 0x0400 to 0x0900 with their levels): what a codestream must be to carry
 * them, checked on a parsed codestream (codestream.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "codestream.h"

const j2k_cinema_limits *j2k_cinema_limits_of(unsigned rsiz, unsigned frame_rate)
{
    /* frame and component byte budgets at 24 and 48 frames a second */
    static const j2k_cinema_limits limits[2][2] = {
        {{J2K_RSIZ_CINEMA_2K, 2048, 1080, 5, 3, 1302083, 1041666},
         {J2K_RSIZ_CINEMA_2K, 2048, 1080, 5, 3, 651041, 520833}},
        {{J2K_RSIZ_CINEMA_4K, 4096, 2160, 6, 6, 1302083, 1041666},
         {J2K_RSIZ_CINEMA_4K, 4096, 2160, 6, 6, 651041, 520833}},
    };
    if ((rsiz != J2K_RSIZ_CINEMA_2K && rsiz != J2K_RSIZ_CINEMA_4K) ||
        (frame_rate != 24 && frame_rate != 48) || (rsiz == J2K_RSIZ_CINEMA_4K && frame_rate == 48))
        return NULL;
    return &limits[rsiz == J2K_RSIZ_CINEMA_4K][frame_rate == 48];
}

/* A problem appended to `why` ("; " between them); always false. */
static bool problem(char *why, size_t size, const char *format, ...)
{
    size_t used = strlen(why);
    if (used + 3 >= size)
        return false;
    if (used > 0)
        used += (size_t)snprintf(why + used, size - used, "; ");
    va_list args;
    va_start(args, format);
    vsnprintf(why + used, size - used, format, args);
    va_end(args);
    return false;
}

bool j2k_cinema_check(const j2k_codestream *cs, const j2k_cinema_limits *l, char *why,
                      size_t why_size)
{
    why[0] = '\0';
    const j2k_siz *siz = &cs->siz;
    bool ok = true;
    if (siz->capabilities != l->rsiz)
        ok = problem(why, why_size, "Rsiz %u, not %u", siz->capabilities, l->rsiz);
    if (siz->image_x0 != 0 || siz->image_y0 != 0 || siz->tile_x0 != 0 || siz->tile_y0 != 0)
        ok = problem(why, why_size, "image or tile origin not at (0, 0)");
    if (siz->image_x1 > l->width || siz->image_y1 > l->height)
        ok = problem(why, why_size, "%ux%u, more than %ux%u", siz->image_x1, siz->image_y1,
                     l->width, l->height);
    if (siz->num_components != 3)
        ok = problem(why, why_size, "%u components, not 3", siz->num_components);
    for (uint32_t c = 0; c < siz->num_components && c < 3; c++) {
        const j2k_component_size *s = &siz->components[c];
        if (s->precision != 12 || s->is_signed || s->dx != 1 || s->dy != 1)
            ok = problem(why, why_size, "component %u: %u-bit%s, subsampled %ux%u (12-bit "
                         "unsigned, not subsampled)", c, s->precision,
                         s->is_signed ? " signed" : "", s->dx, s->dy);
    }
    if (siz->num_tiles != 1)
        ok = problem(why, why_size, "%u tiles, not one", siz->num_tiles);
    const j2k_cod *cod = cs->main_header.cod;
    if (cod != NULL) {
        const j2k_component_coding *k = &cod->coding;
        if (k->levels > l->max_levels || k->levels < 1)
            ok = problem(why, why_size, "%u decomposition levels (1 to %u)", k->levels,
                         l->max_levels);
        if (k->code_block_width_log2 != 5 || k->code_block_height_log2 != 5 ||
            k->code_block_style != 0)
            ok = problem(why, why_size, "code-blocks %ux%u of style 0x%02x (32x32, style 0)",
                         1u << k->code_block_width_log2, 1u << k->code_block_height_log2,
                         k->code_block_style);
        if (k->transform != J2K_TRANSFORM_97)
            ok = problem(why, why_size, "the 5/3 wavelet (9/7 is required)");
        for (unsigned r = 0; r <= k->levels && r < J2K_MAX_RESOLUTIONS; r++) {
            unsigned want = r == 0 ? 7 : 8; /* 128 for the lowest resolution, else 256 */
            if (!k->precincts_defined || k->precinct_width_log2[r] != want ||
                k->precinct_height_log2[r] != want) {
                ok = problem(why, why_size, "precincts of resolution %u not %ux%u", r, 1u << want,
                             1u << want);
                break;
            }
        }
        if (cod->progression != J2K_CPRL)
            ok = problem(why, why_size, "progression %u, not CPRL", cod->progression);
        if (cod->layers != 1)
            ok = problem(why, why_size, "%u quality layers, not one", cod->layers);
    }
    if (cs->main_header.num_cocs || cs->main_header.num_qccs || cs->main_header.num_rgns ||
        cs->has_ppm)
        ok = problem(why, why_size, "COC, QCC, RGN or PPM in the main header");
    if (l->rsiz == J2K_RSIZ_CINEMA_2K && cs->main_header.num_pocs)
        ok = problem(why, why_size, "a POC (the 2K profile has none)");
    if (cs->num_tlm == 0)
        ok = problem(why, why_size, "no TLM");
    if (cs->size > l->frame_bytes)
        ok = problem(why, why_size, "%zu bytes, more than %u a frame", cs->size, l->frame_bytes);
    const j2k_tile *tile = cs->num_tiles_present == 1 ? &cs->tiles[0] : NULL;
    if (tile == NULL || tile->num_parts != l->tile_parts) {
        ok = problem(why, why_size, "%zu tile-parts, not %u (one a component%s)",
                     tile ? tile->num_parts : 0, l->tile_parts,
                     l->tile_parts > 3 ? " and resolution volume" : "");
        return ok;
    }
    /* the bytes of each component: its tile-parts (CPRL, one component each) */
    size_t component[3] = {0};
    for (size_t p = 0; p < tile->num_parts; p++)
        component[p % 3] += tile->parts[p].data_end - tile->parts[p].sot_offset;
    for (int c = 0; c < 3; c++)
        if (component[c] > l->component_bytes)
            ok = problem(why, why_size, "component %d: %zu bytes, more than %u", c, component[c],
                         l->component_bytes);
    return ok;
}

/* ------------------------------------------------------------------ IMF */

const j2k_imf_profile *j2k_imf_profile_of(unsigned rsiz)
{
    /* Tables A.51 (single tile lossy) and A.52 (single or multi-tile reversible) */
    static const j2k_imf_profile profiles[] = {
        {J2K_RSIZ_IMF_2K, "2K", 2048, 1556, 5, false},
        {J2K_RSIZ_IMF_4K, "4K", 4096, 3112, 6, false},
        {J2K_RSIZ_IMF_8K, "8K", 8192, 6224, 7, false},
        {J2K_RSIZ_IMF_2K_R, "2K_R", 2048, 1556, 5, true},
        {J2K_RSIZ_IMF_4K_R, "4K_R", 4096, 3112, 6, true},
        {J2K_RSIZ_IMF_8K_R, "8K_R", 8192, 6224, 7, true},
    };
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (profiles[i].rsiz == J2K_RSIZ_IMF_PROFILE(rsiz))
            return &profiles[i];
    return NULL;
}

unsigned j2k_imf_max_levels(const j2k_imf_profile *p, uint32_t tile_width)
{
    if (!p->reversible)
        return p->max_levels;
    /* Table A.52: by the tile's width, 4 from 1024, 5 from 2048, 6 from 4096,
     * 7 from 8192, up to the profile's own; the table starts at 1024, and
     * below it (a small image in one tile) only the profile's bound holds,
     * as OpenJPEG 2.5 reads it */
    unsigned levels = tile_width >= 8192 ? 7 : tile_width >= 4096 ? 6 : tile_width >= 2048 ? 5
                      : tile_width >= 1024 ? 4 : p->max_levels;
    return levels < p->max_levels ? levels : p->max_levels;
}

bool j2k_imf_tiles_allowed(const j2k_imf_profile *p, uint32_t tile_width, uint32_t tile_height,
                           uint32_t image_width, uint32_t image_height)
{
    if (tile_width >= image_width && tile_height >= image_height)
        return true; /* one tile */
    if (!p->reversible || tile_width != tile_height)
        return false;
    /* Table A.52: square tiles of 1024; 4K_R and 8K_R also 2048; 8K_R 4096 */
    return tile_width == 1024 || (tile_width == 2048 && p->max_levels >= 6) ||
           (tile_width == 4096 && p->max_levels >= 7);
}

double j2k_imf_main_level_msamples(unsigned main_level)
{
    /* Table A.53: the highest component sampling rate, Msamples/s */
    static const double rates[] = {0, 65, 130, 195, 260, 520, 1200, 2400, 4800, 9600, 19200,
                                   38400};
    return main_level <= J2K_IMF_MAX_MAIN_LEVEL ? rates[main_level] : 0;
}

double j2k_imf_sub_level_mbits(unsigned sub_level)
{
    /* Table A.54: the highest compressed bit rate, Mbit/s: 200 doubling */
    return sub_level >= 1 && sub_level <= J2K_IMF_MAX_SUB_LEVEL
               ? 200.0 * (double)(1u << (sub_level - 1)) : 0;
}

unsigned j2k_imf_max_sub_level(unsigned main_level)
{
    /* Table A.53: main levels 1 to 3 take sub level 1, then main level - 2;
     * main level 0 (not specified) any */
    if (main_level == 0)
        return J2K_IMF_MAX_SUB_LEVEL;
    return main_level <= 3 ? 1 : main_level - 2;
}

double j2k_siz_samples(const j2k_siz *siz)
{
    double samples = 0;
    for (uint32_t c = 0; c < siz->num_components; c++) {
        uint32_t dx = siz->components[c].dx, dy = siz->components[c].dy;
        if (dx == 0 || dy == 0)
            continue;
        /* the component's size on its own grid (B-1): ceil(x1 / dx) - ceil(x0 / dx) */
        uint64_t w = ((uint64_t)siz->image_x1 + dx - 1) / dx -
                     ((uint64_t)siz->image_x0 + dx - 1) / dx;
        uint64_t h = ((uint64_t)siz->image_y1 + dy - 1) / dy -
                     ((uint64_t)siz->image_y0 + dy - 1) / dy;
        samples += (double)w * (double)h;
    }
    return samples;
}

/* One component's (or the default's) coding against Tables A.51/A.52. */
static bool imf_check_coding(const j2k_component_coding *k, const char *name, unsigned levels,
                             unsigned max_levels, bool reversible, char *why, size_t why_size)
{
    bool ok = true;
    if (k->levels < 1 || k->levels > max_levels)
        ok = problem(why, why_size, "%s: %u decomposition levels (1 to %u)", name, k->levels,
                     max_levels);
    else if (k->levels != levels)
        ok = problem(why, why_size, "%s: %u decomposition levels, not the COD's %u", name,
                     k->levels, levels);
    if (k->code_block_width_log2 != 5 || k->code_block_height_log2 != 5 ||
        k->code_block_style != 0)
        ok = problem(why, why_size, "%s: code-blocks %ux%u of style 0x%02x (32x32, style 0)",
                     name, 1u << k->code_block_width_log2, 1u << k->code_block_height_log2,
                     k->code_block_style);
    if (k->transform != (reversible ? J2K_TRANSFORM_53 : J2K_TRANSFORM_97))
        ok = problem(why, why_size, "%s: the %s wavelet (%s is required)", name,
                     reversible ? "9/7" : "5/3", reversible ? "5/3" : "9/7");
    for (unsigned r = 0; r <= k->levels && r < J2K_MAX_RESOLUTIONS; r++) {
        unsigned want = r == 0 ? 7 : 8; /* 128 at the lowest resolution, else 256 */
        if (!k->precincts_defined || k->precinct_width_log2[r] != want ||
            k->precinct_height_log2[r] != want) {
            ok = problem(why, why_size, "%s: precincts of resolution %u not %ux%u", name, r,
                         1u << want, 1u << want);
            break;
        }
    }
    return ok;
}

/* The image, its components and tiles against Tables A.51/A.52. */
static bool imf_check_siz(const j2k_siz *siz, const j2k_imf_profile *p, char *why,
                          size_t why_size)
{
    bool ok = true;
    if (siz->image_x0 != 0 || siz->image_y0 != 0 || siz->tile_x0 != 0 || siz->tile_y0 != 0)
        ok = problem(why, why_size, "image or tile origin not at (0, 0)");
    if (siz->image_x1 > p->width || siz->image_y1 > p->height)
        ok = problem(why, why_size, "%ux%u, more than %ux%u", siz->image_x1, siz->image_y1,
                     p->width, p->height);
    if (siz->num_components < 1 || siz->num_components > 3)
        ok = problem(why, why_size, "%u components (1 to 3)", siz->num_components);
    for (uint32_t c = 0; c < siz->num_components && c < 3; c++) {
        const j2k_component_size *s = &siz->components[c];
        if (s->precision < 8 || s->precision > 16 || s->is_signed)
            ok = problem(why, why_size, "component %u: %u-bit%s (8 to 16 bits, unsigned)", c,
                         s->precision, s->is_signed ? " signed" : "");
        /* XRsiz 1 for the first, 1 or 2 for the others alike; YRsiz 1 */
        unsigned dx_wanted = c == 0 ? 1 : siz->components[1].dx;
        if (s->dy != 1 || s->dx != dx_wanted || s->dx > 2)
            ok = problem(why, why_size, "component %u: subsampled %ux%u (1x1, or 2x1 for all "
                         "but the first)", c, s->dx, s->dy);
    }
    uint32_t tw = siz->tile_width, th = siz->tile_height;
    if (!j2k_imf_tiles_allowed(p, tw, th, siz->image_x1, siz->image_y1))
        ok = problem(why, why_size, "tiles of %ux%u (%s)", tw, th,
                     p->reversible ? "one tile, or square ones of 1024 or more the profile "
                                     "names" : "one tile");
    return ok;
}

bool j2k_imf_check(const j2k_codestream *cs, double frame_rate, char *why, size_t why_size)
{
    why[0] = '\0';
    const j2k_siz *siz = &cs->siz;
    const j2k_imf_profile *p = j2k_imf_profile_of(siz->capabilities);
    if (p == NULL)
        return problem(why, why_size, "Rsiz 0x%04x names no IMF profile", siz->capabilities);
    bool ok = true;
    unsigned main_level = J2K_RSIZ_IMF_MAIN_LEVEL(siz->capabilities);
    unsigned sub_level = J2K_RSIZ_IMF_SUB_LEVEL(siz->capabilities);
    if (main_level > J2K_IMF_MAX_MAIN_LEVEL)
        ok = problem(why, why_size, "main level %u (0 to 11)", main_level);
    else if (sub_level > j2k_imf_max_sub_level(main_level))
        ok = problem(why, why_size, "sub level %u above main level %u's %u", sub_level,
                     main_level, j2k_imf_max_sub_level(main_level));
    ok = imf_check_siz(siz, p, why, why_size) && ok;
    const j2k_header_params *h = &cs->main_header;
    unsigned max_levels = j2k_imf_max_levels(p, siz->tile_width < siz->image_x1
                                                    ? siz->tile_width : siz->image_x1);
    if (h->cod == NULL) {
        ok = problem(why, why_size, "no COD");
    } else {
        unsigned levels = h->cod->coding.levels;
        ok = imf_check_coding(&h->cod->coding, "COD", levels, max_levels, p->reversible, why,
                              why_size) && ok;
        for (size_t i = 0; i < h->num_cocs; i++)
            ok = imf_check_coding(&h->cocs[i].coding, "COC", levels, max_levels, p->reversible,
                                  why, why_size) && ok;
        if (h->cod->progression != J2K_CPRL)
            ok = problem(why, why_size, "progression %u, not CPRL", h->cod->progression);
        if (h->cod->layers != 1)
            ok = problem(why, why_size, "%u quality layers, not one", h->cod->layers);
    }
    if (h->num_rgns || h->num_pocs || cs->has_ppm)
        ok = problem(why, why_size, "RGN, POC or PPM in the main header");
    if (cs->num_tlm == 0)
        ok = problem(why, why_size, "no TLM");
    if (cs->num_tiles_present != siz->num_tiles)
        ok = problem(why, why_size, "%zu of the %u tiles present", cs->num_tiles_present,
                     siz->num_tiles);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        const j2k_tile *tile = &cs->tiles[t];
        const j2k_header_params *th = &tile->header;
        /* COD, COC, QCD and QCC in the main header only; no RGN, POC, PPT */
        if (th->cod || th->qcd || th->num_cocs || th->num_qccs || th->num_rgns ||
            th->num_pocs || tile->has_packed_headers) {
            ok = problem(why, why_size, "tile %u: COD, COC, QCD, QCC, RGN, POC or PPT in its "
                         "tile-part headers", tile->index);
            break;
        }
        if (tile->num_parts != siz->num_components) {
            ok = problem(why, why_size, "tile %u: %zu tile-parts, not %u (one a component)",
                         tile->index, tile->num_parts, siz->num_components);
            break;
        }
    }
    if (frame_rate > 0) {
        double samples = j2k_siz_samples(siz) * frame_rate / 1e6;
        double bits = (double)cs->size * 8.0 * frame_rate / 1e6;
        double most_samples = j2k_imf_main_level_msamples(main_level);
        double most_bits = j2k_imf_sub_level_mbits(sub_level);
        if (most_samples > 0 && samples > most_samples)
            ok = problem(why, why_size, "%.1f Msamples/s at %g fps, more than main level %u's "
                         "%.0f", samples, frame_rate, main_level, most_samples);
        if (most_bits > 0 && bits > most_bits)
            ok = problem(why, why_size, "%.1f Mbit/s at %g fps, more than sub level %u's %.0f",
                         bits, frame_rate, sub_level, most_bits);
    }
    return ok;
}

void j2k_imf_max_frame_rates(const j2k_codestream *cs, double *by_main_level,
                             double *by_sub_level)
{
    unsigned rsiz = cs->siz.capabilities;
    double samples = j2k_siz_samples(&cs->siz);
    double most_samples = j2k_imf_main_level_msamples(J2K_RSIZ_IMF_MAIN_LEVEL(rsiz));
    double most_bits = j2k_imf_sub_level_mbits(J2K_RSIZ_IMF_SUB_LEVEL(rsiz));
    *by_main_level = most_samples > 0 && samples > 0 ? most_samples * 1e6 / samples : 0;
    *by_sub_level = most_bits > 0 && cs->size > 0 ? most_bits * 1e6 / (8.0 * (double)cs->size)
                                                  : 0;
}
