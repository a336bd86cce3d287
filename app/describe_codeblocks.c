/* describe_codeblocks.c - for `gj2k info` of an HT codestream (T.814): which
 * code-blocks are HT and which Part 1, and how their HT sets come, read
 * from every tile's packet headers (Tier-2 only, no block decoded). */
#include "describe_codeblocks.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "tier2_decode.h"
#include "tile_structure.h"

static void count_block(const tile_codeblock *b, unsigned style, codeblock_census *census)
{
    if (b->num_segments == 0)
        return;
    if (!(tile_codeblock_style(b, style) & J2K_CBLK_HT)) {
        census->part1++;
        return;
    }
    census->ht++;
    census->with_placeholders += b->placeholder_passes > 0;
    unsigned pass = b->placeholder_passes, cleanups = 0;
    for (unsigned s = 0; s < b->num_segments; s++) {
        cleanups += pass % 3 == 0;
        pass += b->segments[s].num_passes;
    }
    census->multiple_sets += cleanups > 1;
}

static void count_component(const tile_component *tc, codeblock_census *census)
{
    for (unsigned r = 0; r < tc->num_resolutions; r++) {
        const tile_resolution *res = &tc->resolutions[r];
        for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
            for (unsigned b = 0; b < res->num_bands; b++) {
                const tile_precinct_band *pb = &res->precincts[k].bands[b];
                for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++)
                    count_block(&pb->blocks[i], tc->coding.code_block_style, census);
            }
    }
}

/* One tile's packets read into its components' structures and counted. */
static gj2k_status count_tile(const j2k_codestream *cs, const uint8_t *codestream,
                              const j2k_tile *tile, codeblock_census *census, gj2k_error *error)
{
    uint32_t n = cs->siz.num_components;
    j2k_tile_component_params *params = calloc(n, sizeof *params);
    tile_component *components = calloc(n, sizeof *components);
    j2k_bytes *parts = calloc(tile->num_parts ? tile->num_parts : 1, sizeof *parts);
    gj2k_status status = GJ2K_OK;
    if (params == NULL || components == NULL || parts == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    uint32_t built = 0;
    for (; status == GJ2K_OK && built < n; built++) {
        status = j2k_resolve_tile_component(&cs->main_header, &tile->header, built,
                                            &params[built], error);
        if (status == GJ2K_OK)
            status = tile_component_init(&components[built],
                                         j2k_tile_rect(&cs->siz, tile->index),
                                         cs->siz.components[built].dx,
                                         cs->siz.components[built].dy, &params[built].coding, 0,
                                         error);
        if (status != GJ2K_OK)
            break;
    }
    if (status == GJ2K_OK) {
        tier2_decode_params p = tier2_decode_params_of(tile, codestream, parts, &params[0]);
        p.tile_index = tile->index;
        tier2_decode_stats stats;
        status = tier2_decode_tile(components, n, &p, &stats, error);
        census->damaged_tiles += stats.damaged;
    }
    for (uint32_t c = 0; status == GJ2K_OK && c < n; c++)
        count_component(&components[c], census);
    for (uint32_t c = 0; c < built; c++)
        tile_component_free(&components[c]);
    free(components);
    free(params);
    free(parts);
    return status;
}

gj2k_status codeblock_census_of(const j2k_codestream *cs, const uint8_t *codestream,
                                codeblock_census *census, gj2k_error *error)
{
    memset(census, 0, sizeof *census);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        gj2k_status status = count_tile(cs, codestream, &cs->tiles[t], census, error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}
