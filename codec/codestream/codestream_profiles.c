/* codestream_profiles.c - the digital cinema profiles of T.800 Amd 1
 * (Rsiz 3, 2K; Rsiz 4, 4K): what a codestream must be to carry them,
 * checked on a parsed codestream (codestream.h). */
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
