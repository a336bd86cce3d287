/* describe_codeblocks.c - for `gj2k info` of an HT codestream (T.814): which
 * code-blocks are HT and which Part 1, and how their HT sets come, read
 * from every tile's packet headers (the transcoder's Tier-2 reading; no
 * block is decoded). */
#include "describe_codeblocks.h"

#include <string.h>

#include "describe.h"
#include "transcode_tile.h"

bool codeblock_census_wanted(const j2k_codestream *cs)
{
    return cs->capabilities.present && cs->capabilities.has_ccap15;
}

static void count_block(const transcode_block *b, codeblock_census *census)
{
    const tile_codeblock *cb = b->block;
    if (cb->num_segments == 0)
        return;
    if (!(b->coded.style & J2K_CBLK_HT)) {
        census->part1++;
        return;
    }
    census->ht++;
    census->with_placeholders += cb->placeholder_passes > 0;
    unsigned pass = cb->placeholder_passes, cleanups = 0;
    for (unsigned s = 0; s < cb->num_segments; s++) {
        cleanups += pass % 3 == 0;
        pass += cb->segments[s].num_passes;
    }
    census->multiple_sets += cleanups > 1;
}

gj2k_status codeblock_census_of(const j2k_codestream *cs, const uint8_t *codestream,
                                codeblock_census *census, gj2k_error *error)
{
    memset(census, 0, sizeof *census);
    for (size_t t = 0; t < cs->num_tiles_present; t++) {
        transcode_tile tile;
        gj2k_status status =
            transcode_tile_read(cs, codestream, cs->tiles[t].index, NULL, NULL, &tile, error);
        if (status != GJ2K_OK)
            return status;
        census->damaged_tiles += tile.damaged;
        for (size_t i = 0; i < tile.num_blocks; i++)
            count_block(&tile.blocks[i], census);
        transcode_tile_free(&tile);
    }
    return GJ2K_OK;
}

void codeblock_census_describe(const codeblock_census *c, bool json, byte_buffer *out)
{
    if (json)
        byte_buffer_printf(out, ", \"codeblocks\": {\"ht\": %llu, \"part1\": %llu, "
                        "\"ht_with_placeholders\": %llu, \"ht_multiple_sets\": %llu, "
                        "\"damaged_tiles\": %llu}",
                        (unsigned long long)c->ht, (unsigned long long)c->part1,
                        (unsigned long long)c->with_placeholders,
                        (unsigned long long)c->multiple_sets,
                        (unsigned long long)c->damaged_tiles);
    else
        byte_buffer_printf(out, "code-blocks with data: %llu HT (%llu with placeholder passes, "
                        "%llu in more than one HT set), %llu Part 1%s\n",
                        (unsigned long long)c->ht, (unsigned long long)c->with_placeholders,
                        (unsigned long long)c->multiple_sets, (unsigned long long)c->part1,
                        c->damaged_tiles ? "; some tiles' packets stop early" : "");
}
