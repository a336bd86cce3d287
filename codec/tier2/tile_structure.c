/* tile_structure.c - see tile_structure.h (T.800 B.5-B.7). */
#include "tile_structure.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static uint32_t ceil_shift(uint32_t v, unsigned n)
{
    return (uint32_t)(((uint64_t)v + ((uint64_t)1 << n) - 1) >> n);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The cells of a 2^e grid anchored at 0 that [a0, a1) meets: first and count. */
static void grid_cover(uint32_t a0, uint32_t a1, unsigned e, uint32_t *first, uint64_t *count)
{
    *first = a0 >> e;
    *count = a1 > a0 ? (uint64_t)ceil_shift(a1, e) - *first : 0;
}

static void add_saturating(uint64_t *sum, uint64_t v) { *sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v; }

static bool rect_is_empty(dwt_rect r) { return r.x1 <= r.x0 || r.y1 <= r.y0; }

/* The code-blocks of one band inside one precinct (B.7): a 2^xcb' grid in
 * band coordinates, each block clipped to the band and the precinct. */
static gj2k_status build_precinct_band(tile_precinct_band *pb, const tile_band *band,
                                       unsigned ppx, unsigned ppy, uint32_t px, uint32_t py,
                                       size_t *num_codeblocks, gj2k_error *error)
{
    uint64_t x0 = (uint64_t)px << ppx, y0 = (uint64_t)py << ppy;
    pb->rect.x0 = (uint32_t)min_u64(max_u64(x0, band->rect.x0), band->rect.x1);
    pb->rect.y0 = (uint32_t)min_u64(max_u64(y0, band->rect.y0), band->rect.y1);
    pb->rect.x1 = (uint32_t)max_u64(min_u64(x0 + ((uint64_t)1 << ppx), band->rect.x1), pb->rect.x0);
    pb->rect.y1 = (uint32_t)max_u64(min_u64(y0 + ((uint64_t)1 << ppy), band->rect.y1), pb->rect.y0);
    unsigned xcb = band->codeblock_width_log2, ycb = band->codeblock_height_log2;
    uint64_t wide = 0, high = 0;
    if (!rect_is_empty(pb->rect)) {
        grid_cover(pb->rect.x0, pb->rect.x1, xcb, &pb->first_block_x, &wide);
        grid_cover(pb->rect.y0, pb->rect.y1, ycb, &pb->first_block_y, &high);
    }
    pb->blocks_wide = (uint32_t)wide;
    pb->blocks_high = (uint32_t)high;
    size_t count = (size_t)(wide * high);
    *num_codeblocks += count;
    if (count > 0) {
        pb->blocks = calloc(count, sizeof *pb->blocks);
        if (pb->blocks == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-blocks");
    }
    for (uint32_t j = 0; j < pb->blocks_high; j++)
        for (uint32_t i = 0; i < pb->blocks_wide; i++) {
            tile_codeblock *b = &pb->blocks[(size_t)j * pb->blocks_wide + i];
            uint64_t bx0 = (uint64_t)(pb->first_block_x + i) << xcb;
            uint64_t by0 = (uint64_t)(pb->first_block_y + j) << ycb;
            b->rect.x0 = (uint32_t)max_u64(bx0, pb->rect.x0);
            b->rect.y0 = (uint32_t)max_u64(by0, pb->rect.y0);
            b->rect.x1 = (uint32_t)min_u64(bx0 + ((uint64_t)1 << xcb), pb->rect.x1);
            b->rect.y1 = (uint32_t)min_u64(by0 + ((uint64_t)1 << ycb), pb->rect.y1);
            b->lblock = 3;
        }
    gj2k_status status = tag_tree_init(&pb->inclusion, pb->blocks_wide, pb->blocks_high, error);
    if (status == GJ2K_OK)
        status = tag_tree_init(&pb->zero_planes, pb->blocks_wide, pb->blocks_high, error);
    return status;
}

/* Where the position-driven orders meet a precinct whose first sample on
 * the resolution grid is `start` (B.12.1.3): a precinct starting before the
 * resolution is met at the tile's edge, any other at its own corner. */
static uint32_t reference_position(uint64_t start, uint32_t res0, unsigned n, uint32_t d,
                                   uint32_t tile0)
{
    if (start < res0)
        return tile0;
    return (uint32_t)((start << n) * d); /* below the tile's end: fits */
}

/* Rects, bands and the precinct grid of resolution r (B.5-B.7); adds its
 * precincts and code-blocks to the counts. Allocates nothing. */
static void resolution_geometry(tile_component *tc, unsigned r, unsigned reduce,
                                uint64_t *precincts, uint64_t *codeblocks)
{
    tile_resolution *res = &tc->resolutions[r];
    const j2k_component_coding *c = &tc->coding;
    unsigned nl = c->levels, n = nl - r;
    res->rect = dwt_band_rect(tc->rect, n, DWT_BAND_LL); /* eq. B-14 */
    res->precinct_width_log2 = c->precinct_width_log2[r];
    res->precinct_height_log2 = c->precinct_height_log2[r];
    res->keep_data = r + reduce <= nl;
    unsigned ppx = res->precinct_width_log2, ppy = res->precinct_height_log2;
    /* The precinct size in the band domain (B.7): halved at r > 0, where
     * PPx >= 1 (Table A.21). */
    unsigned bppx = r == 0 ? ppx : ppx - 1u, bppy = r == 0 ? ppy : ppy - 1u;
    res->num_bands = r == 0 ? 1 : 3;
    uint64_t wide = 0, high = 0;
    if (!rect_is_empty(res->rect)) { /* eq. B-16 */
        grid_cover(res->rect.x0, res->rect.x1, ppx, &res->first_precinct_x, &wide);
        grid_cover(res->rect.y0, res->rect.y1, ppy, &res->first_precinct_y, &high);
    }
    add_saturating(precincts, wide * high);
    if (wide * high > TILE_MAX_PRECINCTS)
        return;
    res->precincts_wide = (uint32_t)wide;
    res->precincts_high = (uint32_t)high;
    for (unsigned b = 0; b < res->num_bands; b++) {
        tile_band *band = &res->bands[b];
        band->orientation = r == 0 ? DWT_BAND_LL : (dwt_band)(b + 1);
        band->level = (uint8_t)(r == 0 ? nl : nl - r + 1);
        band->subband_index = (uint8_t)(r == 0 ? 0 : 3 * (r - 1) + b + 1);
        band->rect = dwt_band_rect(tc->rect, band->level, band->orientation); /* eq. B-15 */
        unsigned xcb = c->code_block_width_log2, ycb = c->code_block_height_log2;
        band->codeblock_width_log2 = (uint8_t)(xcb < bppx ? xcb : bppx);   /* eq. B-17 */
        band->codeblock_height_log2 = (uint8_t)(ycb < bppy ? ycb : bppy); /* eq. B-18 */
        /* Precinct edges fall on code-block edges, so the band's blocks are
         * its own 2^xcb' grid. */
        uint64_t bw = 0, bh = 0;
        uint32_t first;
        if (wide > 0 && !rect_is_empty(band->rect)) {
            grid_cover(band->rect.x0, band->rect.x1, band->codeblock_width_log2, &first, &bw);
            grid_cover(band->rect.y0, band->rect.y1, band->codeblock_height_log2, &first, &bh);
        }
        add_saturating(codeblocks, bw * bh);
    }
}

static gj2k_status build_precincts(tile_component *tc, unsigned r, gj2k_error *error)
{
    tile_resolution *res = &tc->resolutions[r];
    size_t count = (size_t)res->precincts_wide * res->precincts_high;
    if (count == 0)
        return GJ2K_OK;
    res->precincts = calloc(count, sizeof *res->precincts);
    if (res->precincts == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for precincts");
    tc->num_precincts += count;
    unsigned n = tc->coding.levels - r;
    unsigned ppx = res->precinct_width_log2, ppy = res->precinct_height_log2;
    unsigned bppx = r == 0 ? ppx : ppx - 1u, bppy = r == 0 ? ppy : ppy - 1u;
    for (uint32_t j = 0; j < res->precincts_high; j++)
        for (uint32_t i = 0; i < res->precincts_wide; i++) {
            tile_precinct *p = &res->precincts[(size_t)j * res->precincts_wide + i];
            uint32_t px = res->first_precinct_x + i, py = res->first_precinct_y + j;
            p->ref_x = reference_position((uint64_t)px << ppx, res->rect.x0, n, tc->dx, tc->tile.x0);
            p->ref_y = reference_position((uint64_t)py << ppy, res->rect.y0, n, tc->dy, tc->tile.y0);
            for (unsigned b = 0; b < res->num_bands; b++) {
                gj2k_status status = build_precinct_band(&p->bands[b], &res->bands[b], bppx, bppy,
                                                         px, py, &tc->num_codeblocks, error);
                if (status != GJ2K_OK)
                    return status;
            }
        }
    return GJ2K_OK;
}

/* A tag tree's nodes per leaf, at most: 1 + 1/4 + 1/16 + ... < 4/3. */
#define TILE_TAG_TREE_NODE_BYTES (sizeof(tag_tree_node) * 4 / 3 + 1)

gj2k_status tile_component_init(tile_component *tc, dwt_rect tile, uint32_t dx, uint32_t dy,
                                const j2k_component_coding *coding, unsigned reduce,
                                gj2k_error *error)
{
    return tile_component_init_counted(tc, tile, dx, dy, coding, reduce, NULL, error);
}

gj2k_status tile_component_init_counted(tile_component *tc, dwt_rect tile, uint32_t dx,
                                        uint32_t dy, const j2k_component_coding *coding,
                                        unsigned reduce, memory_budget *memory, gj2k_error *error)
{
    *tc = (tile_component){0};
    if (dx == 0 || dy == 0 || tile.x1 < tile.x0 || tile.y1 < tile.y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "bad tile-component geometry");
    gj2k_status status = j2k_component_coding_check(coding, "coding style", error);
    if (status != GJ2K_OK)
        return status;
    tc->tile = tile;
    tc->dx = dx;
    tc->dy = dy;
    tc->coding = *coding;
    /* eq. B-12 */
    tc->rect = (dwt_rect){(uint32_t)(((uint64_t)tile.x0 + dx - 1) / dx),
                          (uint32_t)(((uint64_t)tile.y0 + dy - 1) / dy),
                          (uint32_t)(((uint64_t)tile.x1 + dx - 1) / dx),
                          (uint32_t)(((uint64_t)tile.y1 + dy - 1) / dy)};
    tc->num_resolutions = coding->levels + 1u;
    tc->resolutions = calloc(tc->num_resolutions, sizeof *tc->resolutions);
    if (tc->resolutions == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for resolutions");
    uint64_t precincts = 0, codeblocks = 0;
    for (unsigned r = 0; r < tc->num_resolutions; r++)
        resolution_geometry(tc, r, reduce, &precincts, &codeblocks);
    if (precincts > TILE_MAX_PRECINCTS || codeblocks > TILE_MAX_CODEBLOCKS) {
        tile_component_free(tc);
        return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                         "tile-component of %llu precincts and %llu code-blocks (limits %u, %u)",
                         (unsigned long long)precincts, (unsigned long long)codeblocks,
                         TILE_MAX_PRECINCTS, TILE_MAX_CODEBLOCKS);
    }
    /* Each code-block also takes two tag-tree leaves (B.10.2) beside its own record. */
    uint64_t bytes = precincts * sizeof(tile_precinct) +
                     codeblocks * (sizeof(tile_codeblock) + 2 * TILE_TAG_TREE_NODE_BYTES);
    status = memory_budget_take(memory, bytes, "a tile-component's precincts and code-blocks",
                                error);
    if (status != GJ2K_OK) {
        tile_component_free(tc);
        return status;
    }
    tc->memory = memory;
    tc->charged = bytes;
    for (unsigned r = 0; r < tc->num_resolutions; r++) {
        status = build_precincts(tc, r, error);
        if (status != GJ2K_OK) {
            tile_component_free(tc);
            return status;
        }
    }
    return GJ2K_OK;
}

static void free_codeblock_data(tile_codeblock *b)
{
    free(b->data);
    free(b->segments);
    b->data = NULL;
    b->segments = NULL;
    b->size = b->capacity = 0;
    b->num_segments = b->segments_capacity = 0;
    b->passes_received = 0;
}

void tile_component_free(tile_component *tc)
{
    for (unsigned r = 0; tc->resolutions != NULL && r < tc->num_resolutions; r++) {
        tile_resolution *res = &tc->resolutions[r];
        size_t count = (size_t)res->precincts_wide * res->precincts_high;
        for (size_t k = 0; res->precincts != NULL && k < count; k++)
            for (unsigned b = 0; b < 3; b++) {
                tile_precinct_band *pb = &res->precincts[k].bands[b];
                size_t blocks = (size_t)pb->blocks_wide * pb->blocks_high;
                for (size_t i = 0; pb->blocks != NULL && i < blocks; i++)
                    free_codeblock_data(&pb->blocks[i]);
                free(pb->blocks);
                tag_tree_free(&pb->inclusion);
                tag_tree_free(&pb->zero_planes);
            }
        free(res->precincts);
    }
    free(tc->resolutions);
    memory_budget_give(tc->memory, tc->charged);
    *tc = (tile_component){0};
}

void tile_precinct_reset(tile_precinct *precinct, unsigned num_bands)
{
    for (unsigned b = 0; b < num_bands; b++) {
        tile_precinct_band *pb = &precinct->bands[b];
        for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
            tile_codeblock *block = &pb->blocks[i];
            block->included = false;
            block->lblock = 3;
            block->missing_msbs = 0;
            block->num_passes = 0;
            block->coder = TILE_CODER_AS_STYLED;
            block->placeholder_passes = 0;
            block->size = 0;
            block->num_segments = 0;
            block->passes_received = 0;
        }
        tag_tree_reset(&pb->inclusion);
        tag_tree_reset(&pb->zero_planes);
    }
}

void tile_component_reset(tile_component *tc)
{
    for (unsigned r = 0; r < tc->num_resolutions; r++) {
        tile_resolution *res = &tc->resolutions[r];
        for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
            tile_precinct_reset(&res->precincts[k], res->num_bands);
    }
}

gj2k_status tile_codeblock_append(tile_codeblock *block, const uint8_t *bytes, size_t size,
                                  const tier1_segment *pieces, unsigned num_pieces,
                                  unsigned placeholder_passes, unsigned style, gj2k_error *error)
{
    block->placeholder_passes += placeholder_passes;
    if (size > block->capacity - block->size) {
        if (size > SIZE_MAX / 2 - block->size)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "code-block data too large");
        size_t capacity = block->capacity ? block->capacity : 64;
        while (capacity < block->size + size)
            capacity *= 2;
        uint8_t *grown = realloc(block->data, capacity);
        if (grown == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for code-block data");
        block->data = grown;
        block->capacity = capacity;
    }
    if (size > 0)
        memcpy(block->data + block->size, bytes, size);
    block->size += size;
    style = tile_codeblock_style(block, style);
    for (unsigned i = 0; i < num_pieces; i++) {
        /* A piece continues the last segment unless that one ended (B.10.7.2). */
        bool open = block->num_segments > 0 &&
                    !tier1_pass_ends_segment(block->placeholder_passes + block->passes_received - 1u,
                                             style);
        if (open) {
            block->segments[block->num_segments - 1].length += pieces[i].length;
            block->segments[block->num_segments - 1].num_passes += pieces[i].num_passes;
        } else {
            if (block->num_segments == block->segments_capacity) {
                unsigned capacity = block->segments_capacity ? 2 * block->segments_capacity : 4;
                tier1_segment *grown = realloc(block->segments, capacity * sizeof *grown);
                if (grown == NULL)
                    return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                                     "out of memory for code-block segments");
                block->segments = grown;
                block->segments_capacity = capacity;
            }
            block->segments[block->num_segments++] = pieces[i];
        }
        block->passes_received += pieces[i].num_passes;
    }
    return GJ2K_OK;
}

tile_coded_status tile_codeblock_coded_of(const tile_codeblock *block, unsigned style,
                                          unsigned magnitude_bits, tile_codeblock_coded *out)
{
    *out = (tile_codeblock_coded){.style = tile_codeblock_style(block, style)};
    if (block->num_segments == 0)
        return TILE_CODED_NONE;
    if (block->missing_msbs > magnitude_bits)
        return TILE_CODED_TOO_DEEP;
    unsigned planes = magnitude_bits - block->missing_msbs;
    if (!(out->style & J2K_CBLK_HT)) {
        *out = (tile_codeblock_coded){.data = block->data, .size = block->size,
                                      .segments = block->segments,
                                      .num_segments = block->num_segments,
                                      .num_planes = planes, .style = out->style};
        return TILE_CODED_OK;
    }
    /* T.814 Annex B: cleanup passes fall on passes 0, 3, 6... counted with
       the placeholders; a set's SigProp and MagRef passes form one segment */
    unsigned pass = block->placeholder_passes, found = UINT_MAX, found_pass = 0;
    size_t offset = 0, found_offset = 0;
    for (unsigned i = 0; i < block->num_segments; i++) {
        if (pass % 3 == 0 && block->segments[i].length > 0) {
            found = i;
            found_pass = pass;
            found_offset = offset;
        }
        offset += block->segments[i].length;
        pass += block->segments[i].num_passes;
    }
    if (found == UINT_MAX)
        return TILE_CODED_NONE;
    if (found_pass / 3 >= planes)
        return TILE_CODED_TOO_DEEP;
    unsigned count = found + 1 < block->num_segments && block->segments[found + 1].length > 0
                         ? 2 : 1;
    *out = (tile_codeblock_coded){.data = block->data + found_offset,
                                  .size = block->size - found_offset,
                                  .segments = block->segments + found, .num_segments = count,
                                  .num_planes = planes - found_pass / 3, .style = out->style};
    return TILE_CODED_OK;
}
