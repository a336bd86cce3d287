/* tier2_test_support.h - random tile-components and coding parameters shared
 * by test_tier2 and test_tier2_order. Compiled into both programs. */
#ifndef GJ2K_TIER2_TEST_SUPPORT_H
#define GJ2K_TIER2_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tile_structure.h"

/* calloc that never returns NULL (exits when out of memory). */
void *xcalloc(size_t n, size_t size);
/* Uniform in [lo, hi] (test_random_range). */
unsigned rnd(unsigned lo, unsigned hi);
/* Random coding parameters of up to max_levels levels; allow_pp0 lets the
 * lowest resolution have 1x1 precincts. */
j2k_component_coding random_coding(unsigned max_levels, bool allow_pp0);
/* A random tile rectangle. */
dwt_rect random_tile(unsigned max_origin, unsigned max_size);
/* A tile of `count` random components (exits when tile_component_init fails). */
tile_component *random_components(dwt_rect tile, uint32_t count, unsigned max_levels,
                                  unsigned reduce);
/* Frees what random_components returned. */
void free_components(tile_component *tcs, uint32_t count);

#endif
