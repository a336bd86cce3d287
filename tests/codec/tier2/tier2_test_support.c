/* tier2_test_support.c - see tier2_test_support.h. */
#include "tier2_test_support.h"

#include <stdio.h>
#include <stdlib.h>

#include "test_harness.h"

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

unsigned rnd(unsigned lo, unsigned hi) { return (unsigned)test_random_range(lo, hi); }

j2k_component_coding random_coding(unsigned max_levels, bool allow_pp0)
{
    j2k_component_coding c = {0};
    c.levels = (uint8_t)rnd(0, max_levels);
    c.code_block_width_log2 = (uint8_t)rnd(2, 4);
    c.code_block_height_log2 = (uint8_t)rnd(2, 4);
    c.transform = J2K_TRANSFORM_53;
    c.precincts_defined = rnd(0, 3) != 0;
    for (unsigned r = 0; r <= c.levels; r++) {
        unsigned lo = r == 0 && allow_pp0 ? 0 : 1;
        c.precinct_width_log2[r] = (uint8_t)(c.precincts_defined ? rnd(lo, 5) : 15);
        c.precinct_height_log2[r] = (uint8_t)(c.precincts_defined ? rnd(lo, 5) : 15);
    }
    return c;
}

dwt_rect random_tile(unsigned max_origin, unsigned max_size)
{
    dwt_rect t;
    t.x0 = rnd(0, max_origin);
    t.y0 = rnd(0, max_origin);
    t.x1 = t.x0 + rnd(1, max_size);
    t.y1 = t.y0 + rnd(1, max_size);
    return t;
}

tile_component *random_components(dwt_rect tile, uint32_t count, unsigned max_levels,
                                  unsigned reduce)
{
    tile_component *tcs = xcalloc(count, sizeof *tcs);
    for (uint32_t c = 0; c < count; c++) {
        j2k_component_coding coding = random_coding(max_levels, true);
        coding.code_block_style = (uint8_t)(rnd(0, 1) ? 0 : rnd(0, 0x3F));
        gj2k_error e = {0};
        gj2k_status s = tile_component_init(&tcs[c], tile, rnd(1, 3), rnd(1, 3), &coding, reduce, &e);
        if (s != GJ2K_OK) {
            fprintf(stderr, "tile_component_init: %s\n", e.message);
            exit(1);
        }
    }
    return tcs;
}

void free_components(tile_component *tcs, uint32_t count)
{
    for (uint32_t c = 0; c < count; c++)
        tile_component_free(&tcs[c]);
    free(tcs);
}
