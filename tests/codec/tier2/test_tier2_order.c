/* test_tier2_order.c - the tile structure (T.800 B.5-B.7) against hand
 * computed geometry and exhaustive checks, and the packet order (B.12) of
 * every progression and of POC volumes against the literal loops of B.12.1.
 *
 * Built by hand with:
 *   gcc -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Wpedantic -Wshadow
 *     -Wstrict-prototypes -Wmissing-prototypes -Werror -Iinclude -Icommon -Idwt -Iquant
 *     -Icodec/codestream -Icodec/tier1 -Icodec/tier2 -Itests
 *     common/error.c common/byte_buffer.c dwt/dwt_2d.c dwt/dwt_53.c dwt/dwt_97.c
 *     quant/quantization.c codec/codestream/marker_*.c codec/codestream/codestream_*.c
 *     codec/tier2/tile_structure.c codec/tier2/tag_tree.c
 *     codec/tier2/packet_bits.c codec/tier2/packet_iterator.c tests/test_harness.c
 *     tests/codec/tier2/tier2_test_support.c tests/codec/tier2/test_tier2_order.c -lm -o /tmp/test_tier2_order
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet_iterator.h"
#include "test_harness.h"
#include "tier2_test_support.h"
#include "tile_structure.h"

/* ------------------------------------------------------------ structure */

static bool rect_eq(dwt_rect a, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1)
{
    return a.x0 == x0 && a.y0 == y0 && a.x1 == x1 && a.y1 == y1;
}

static void test_tile_structure_hand_geometry(void)
{
    /* Tile [3,40) x [5,30), NL 2, 8x4 code-blocks, precincts 4, 8, 16. */
    j2k_component_coding c = {0};
    c.levels = 2;
    c.code_block_width_log2 = 3;
    c.code_block_height_log2 = 2;
    c.precincts_defined = true;
    for (unsigned r = 0; r <= 2; r++)
        c.precinct_width_log2[r] = c.precinct_height_log2[r] = (uint8_t)(2 + r);
    tile_component tc;
    REQUIRE(tile_component_init(&tc, (dwt_rect){3, 5, 40, 30}, 1, 1, &c, 0, NULL) == GJ2K_OK);
    /* eq. B-14 */
    CHECK(rect_eq(tc.resolutions[0].rect, 1, 2, 10, 8));
    CHECK(rect_eq(tc.resolutions[1].rect, 2, 3, 20, 15));
    CHECK(rect_eq(tc.resolutions[2].rect, 3, 5, 40, 30));
    /* eq. B-16: 3 x 2 precincts at every resolution */
    for (unsigned r = 0; r <= 2; r++) {
        CHECK_EQ(tc.resolutions[r].precincts_wide, 3);
        CHECK_EQ(tc.resolutions[r].precincts_high, 2);
    }
    /* eq. B-15 */
    CHECK(rect_eq(tc.resolutions[0].bands[0].rect, 1, 2, 10, 8));
    CHECK(rect_eq(tc.resolutions[1].bands[0].rect, 1, 2, 10, 8)); /* HL level 2 */
    CHECK(rect_eq(tc.resolutions[1].bands[1].rect, 1, 1, 10, 7)); /* LH */
    CHECK(rect_eq(tc.resolutions[2].bands[0].rect, 1, 3, 20, 15)); /* HL level 1 */
    CHECK(rect_eq(tc.resolutions[2].bands[1].rect, 2, 2, 20, 15)); /* LH */
    CHECK(rect_eq(tc.resolutions[2].bands[2].rect, 1, 2, 20, 15)); /* HH */
    CHECK_EQ(tc.resolutions[2].bands[2].subband_index, 6);
    /* eq. B-17/B-18: r = 0 uses PPx itself, r > 0 PPx - 1 */
    CHECK_EQ(tc.resolutions[0].bands[0].codeblock_width_log2, 2);
    CHECK_EQ(tc.resolutions[1].bands[0].codeblock_width_log2, 2);
    CHECK_EQ(tc.resolutions[2].bands[0].codeblock_width_log2, 3);
    CHECK_EQ(tc.resolutions[2].bands[0].codeblock_height_log2, 2);
    /* Code-blocks clipped to band and precinct. */
    const tile_precinct_band *pb = &tc.resolutions[2].precincts[0].bands[0];
    REQUIRE(pb->blocks_wide == 1 && pb->blocks_high == 2);
    CHECK(rect_eq(pb->blocks[0].rect, 1, 3, 8, 4));
    CHECK(rect_eq(pb->blocks[1].rect, 1, 4, 8, 8));
    pb = &tc.resolutions[2].precincts[5].bands[0];
    REQUIRE(pb->blocks_wide == 1 && pb->blocks_high == 2);
    CHECK(rect_eq(pb->blocks[0].rect, 16, 8, 20, 12));
    CHECK(rect_eq(pb->blocks[1].rect, 16, 12, 20, 15));
    pb = &tc.resolutions[0].precincts[0].bands[0];
    REQUIRE(pb->blocks_wide == 1 && pb->blocks_high == 1);
    CHECK(rect_eq(pb->blocks[0].rect, 1, 2, 4, 4));
    /* Positions on the reference grid (B.12.1.3). */
    CHECK(tc.resolutions[2].precincts[0].ref_x == 3 && tc.resolutions[2].precincts[0].ref_y == 5);
    CHECK(tc.resolutions[2].precincts[1].ref_x == 16 && tc.resolutions[2].precincts[1].ref_y == 5);
    CHECK(tc.resolutions[0].precincts[4].ref_x == 16 && tc.resolutions[0].precincts[4].ref_y == 16);
    CHECK(tc.resolutions[1].precincts[5].ref_x == 32 && tc.resolutions[1].precincts[5].ref_y == 16);
    tile_component_free(&tc);
    /* Subsampled, reduced: resolutions above NL - reduce keep no data. */
    REQUIRE(tile_component_init(&tc, (dwt_rect){7, 3, 100, 20}, 3, 2, &c, 1, NULL) == GJ2K_OK);
    CHECK(rect_eq(tc.rect, 3, 2, 34, 10));
    REQUIRE(tc.resolutions[2].precincts_wide == 3);
    CHECK(tc.resolutions[1].keep_data && !tc.resolutions[2].keep_data);
    CHECK_EQ(tc.resolutions[2].precincts[1].ref_x, 3 * 16);
    tile_component_free(&tc);
}

/* Random geometry: precincts cover their resolution (eq. B-16), code-blocks
 * tile every band exactly, each inside its precinct and at most 2^xcb' wide. */
static void test_tile_structure_partition(void)
{
    for (int round = 0; round < 300; round++) {
        tile_component *tc = random_components(random_tile(300, 90), 1, 4, 0);
        for (unsigned r = 0; r < tc->num_resolutions; r++) {
            const tile_resolution *res = &tc->resolutions[r];
            dwt_rect rr = res->rect;
            uint64_t cells = 0;
            if (rr.x1 > rr.x0 && rr.y1 > rr.y0) {
                uint64_t pw = 1u << res->precinct_width_log2, ph = 1u << res->precinct_height_log2;
                uint64_t wide = 0, high = 0;
                for (uint64_t x = 0; x < rr.x1 + pw; x += pw)
                    wide += x < rr.x1 && x + pw > rr.x0;
                for (uint64_t y = 0; y < rr.y1 + ph; y += ph)
                    high += y < rr.y1 && y + ph > rr.y0;
                cells = wide * high;
            }
            CHECK_EQ(tile_resolution_num_precincts(res), cells);
            for (unsigned b = 0; b < res->num_bands; b++) {
                const tile_band *band = &res->bands[b];
                uint32_t bw = band->rect.x1 - band->rect.x0, bh = band->rect.y1 - band->rect.y0;
                uint8_t *seen = xcalloc((size_t)bw * bh, 1);
                uint64_t area = 0;
                for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++) {
                    const tile_precinct_band *pb = &res->precincts[k].bands[b];
                    for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
                        dwt_rect q = pb->blocks[i].rect;
                        CHECK(q.x0 < q.x1 && q.y0 < q.y1);
                        CHECK(q.x0 >= pb->rect.x0 && q.x1 <= pb->rect.x1 && q.y0 >= pb->rect.y0 &&
                              q.y1 <= pb->rect.y1);
                        CHECK(q.x1 - q.x0 <= (1u << band->codeblock_width_log2));
                        CHECK(q.y1 - q.y0 <= (1u << band->codeblock_height_log2));
                        CHECK((q.x0 >> band->codeblock_width_log2) ==
                              ((q.x1 - 1) >> band->codeblock_width_log2));
                        for (uint32_t y = q.y0; y < q.y1; y++)
                            for (uint32_t x = q.x0; x < q.x1; x++) {
                                size_t at = (size_t)(y - band->rect.y0) * bw + (x - band->rect.x0);
                                CHECK(at < (size_t)bw * bh && !seen[at]);
                                if (at < (size_t)bw * bh)
                                    seen[at] = 1;
                                area++;
                            }
                    }
                }
                CHECK_EQ(area, (uint64_t)bw * bh);
                free(seen);
            }
        }
        free_components(tc, 1);
    }
}

/* ------------------------------------------------------------ packet order */

typedef struct packet_list {
    packet_position *items;
    size_t count, capacity;
} packet_list;

static void list_add(packet_list *l, uint32_t layer, uint32_t r, uint32_t c, uint32_t k)
{
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 256;
        l->items = realloc(l->items, l->capacity * sizeof *l->items);
        if (l->items == NULL)
            exit(1);
    }
    l->items[l->count++] = (packet_position){(uint16_t)layer, (uint8_t)r, c, k, false};
}

static uint32_t num_precincts(const tile_component *tcs, uint32_t c, unsigned r)
{
    return r < tcs[c].num_resolutions ? tile_resolution_num_precincts(&tcs[c].resolutions[r]) : 0;
}

/* B.12.1.3: does (x, y) on the reference grid start a precinct of (c, r)?
 * If so, which one. */
static bool literal_precinct(const tile_component *tc, unsigned r, uint64_t x, uint64_t y,
                             uint32_t *k)
{
    const tile_resolution *res = &tc->resolutions[r];
    if (tile_resolution_num_precincts(res) == 0)
        return false;
    unsigned n = tc->coding.levels - r, ppx = res->precinct_width_log2, ppy = res->precinct_height_log2;
    bool cy = y % ((uint64_t)tc->dy << (ppy + n)) == 0 ||
              (y == tc->tile.y0 && ((uint64_t)res->rect.y0 << n) % ((uint64_t)1 << (ppy + n)) != 0);
    bool cx = x % ((uint64_t)tc->dx << (ppx + n)) == 0 ||
              (x == tc->tile.x0 && ((uint64_t)res->rect.x0 << n) % ((uint64_t)1 << (ppx + n)) != 0);
    if (!cx || !cy)
        return false;
    uint64_t px = ((x + ((uint64_t)tc->dx << n) - 1) / ((uint64_t)tc->dx << n)) >> ppx;
    uint64_t py = ((y + ((uint64_t)tc->dy << n) - 1) / ((uint64_t)tc->dy << n)) >> ppy;
    *k = (uint32_t)(px - (res->rect.x0 >> ppx) + res->precincts_wide * (py - (res->rect.y0 >> ppy)));
    return true;
}

/* The packets of one volume by the literal loops of B.12.1, skipping those
 * in `done` (layers emitted per precinct, indexed c * 64 * 4096 + r * 4096 + k). */
static void literal_volume(const tile_component *tcs, uint32_t nc, unsigned order, unsigned le,
                           unsigned rs, unsigned re, uint32_t cs, uint32_t ce, uint16_t *done,
                           packet_list *out)
{
    dwt_rect t = tcs[0].tile;
    unsigned maxr = 0;
    for (uint32_t c = 0; c < nc; c++)
        maxr = tcs[c].num_resolutions > maxr ? tcs[c].num_resolutions : maxr;
    re = re < maxr ? re : maxr;
    ce = ce < nc ? ce : nc;
#define EMIT(l_, r_, c_, k_)                                                                   \
    do {                                                                                       \
        uint16_t *d_ = &done[(size_t)(c_) * 64 * 4096 + (r_) * 4096 + (k_)];                   \
        if (*d_ == (l_)) {                                                                     \
            (*d_)++;                                                                           \
            list_add(out, l_, r_, c_, k_);                                                     \
        }                                                                                      \
    } while (0)
    uint32_t k;
    if (order == J2K_LRCP || order == J2K_RLCP) {
        for (unsigned a = 0; a < (order == J2K_LRCP ? le : re); a++)
            for (unsigned b = (order == J2K_LRCP ? rs : 0); b < (order == J2K_LRCP ? re : le); b++) {
                unsigned l = order == J2K_LRCP ? a : b, r = order == J2K_LRCP ? b : a;
                if (r < rs)
                    continue;
                for (uint32_t c = cs; c < ce; c++)
                    for (k = 0; k < num_precincts(tcs, c, r); k++)
                        EMIT(l, r, c, k);
            }
    } else if (order == J2K_RPCL) {
        for (unsigned r = rs; r < re; r++)
            for (uint64_t y = t.y0; y < t.y1; y++)
                for (uint64_t x = t.x0; x < t.x1; x++)
                    for (uint32_t c = cs; c < ce; c++)
                        if (r < tcs[c].num_resolutions && literal_precinct(&tcs[c], r, x, y, &k))
                            for (unsigned l = 0; l < le; l++)
                                EMIT(l, r, c, k);
    } else {
        for (uint32_t c0 = (order == J2K_CPRL ? cs : 0); c0 < (order == J2K_CPRL ? ce : 1); c0++)
            for (uint64_t y = t.y0; y < t.y1; y++)
                for (uint64_t x = t.x0; x < t.x1; x++)
                    for (uint32_t c = (order == J2K_CPRL ? c0 : cs); c < (order == J2K_CPRL ? c0 + 1 : ce); c++)
                        for (unsigned r = rs; r < re && r < tcs[c].num_resolutions; r++)
                            if (literal_precinct(&tcs[c], r, x, y, &k))
                                for (unsigned l = 0; l < le; l++)
                                    EMIT(l, r, c, k);
    }
#undef EMIT
}

static bool same_position(packet_position a, packet_position b)
{
    return a.layer == b.layer && a.resolution == b.resolution && a.component == b.component &&
           a.precinct == b.precinct;
}

/* Runs the iterator and the literal loops (volumes, then the default) and
 * compares; also checks every packet comes exactly once. */
static void compare_orders(const tile_component *tcs, uint32_t nc, unsigned layers,
                           unsigned order, const j2k_progression_change *pocs, size_t npocs)
{
    packet_iterator it;
    REQUIRE(packet_iterator_init(&it, tcs, nc, (uint16_t)layers, (uint8_t)order, pocs, npocs,
                                 NULL) == GJ2K_OK);
    packet_list got = {0}, want = {0};
    packet_position p;
    while (packet_iterator_next(&it, &p))
        list_add(&got, p.layer, p.resolution, p.component, p.precinct);
    uint16_t *done = xcalloc((size_t)nc * 64 * 4096, sizeof *done);
    for (size_t i = 0; i < npocs; i++)
        literal_volume(tcs, nc, pocs[i].progression, pocs[i].layer_end < layers ? pocs[i].layer_end : layers,
                       pocs[i].resolution_start, pocs[i].resolution_end, pocs[i].component_start,
                       pocs[i].component_end, done, &want);
    literal_volume(tcs, nc, order, layers, 0, 64, 0, nc, done, &want);
    CHECK_EQ(got.count, packet_iterator_count(&it));
    CHECK_EQ(got.count, want.count);
    for (size_t i = 0; i < got.count && i < want.count; i++)
        if (!same_position(got.items[i], want.items[i])) {
            CHECK(same_position(got.items[i], want.items[i]));
            break;
        }
    memset(done, 0, (size_t)nc * 64 * 4096 * sizeof *done);
    for (size_t i = 0; i < got.count; i++) {
        packet_position q = got.items[i];
        uint16_t *d = &done[(size_t)q.component * 64 * 4096 + q.resolution * 4096 + q.precinct];
        CHECK(q.precinct < num_precincts(tcs, q.component, q.resolution) && q.layer < layers);
        CHECK_EQ(*d, q.layer); /* each precinct's layers in order, once */
        (*d)++;
    }
    free(done);
    free(got.items);
    free(want.items);
    packet_iterator_free(&it);
}

static void test_packet_order_all_progressions(void)
{
    for (int round = 0; round < 120; round++) {
        uint32_t nc = rnd(1, 3);
        tile_component *tcs = random_components(random_tile(40, 40), nc, 3, 0);
        unsigned layers = rnd(1, 3);
        for (unsigned order = 0; order <= J2K_CPRL; order++)
            compare_orders(tcs, nc, layers, order, NULL, 0);
        free_components(tcs, nc);
    }
}

static void test_packet_order_by_hand(void)
{
    /* Tile [0,8)^2; component 0 at full size, component 1 with XRsiz 2; NL 1;
     * precincts 4x4 (r = 0: 2^2 on its own grid, r = 1: 2^2). */
    j2k_component_coding c = {0};
    c.levels = 1;
    c.code_block_width_log2 = c.code_block_height_log2 = 2;
    c.precincts_defined = true;
    c.precinct_width_log2[0] = c.precinct_height_log2[0] = 2;
    c.precinct_width_log2[1] = c.precinct_height_log2[1] = 2;
    tile_component tcs[2];
    REQUIRE(tile_component_init(&tcs[0], (dwt_rect){0, 0, 8, 8}, 1, 1, &c, 0, NULL) == GJ2K_OK);
    REQUIRE(tile_component_init(&tcs[1], (dwt_rect){0, 0, 8, 8}, 2, 1, &c, 0, NULL) == GJ2K_OK);
    static const uint32_t rpcl[8][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0},
                                        {1, 0, 1}, {1, 0, 2}, {1, 1, 1}, {1, 0, 3}};
    static const uint32_t lrcp[16][4] = {
        {0, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 0, 0}, {0, 1, 0, 1}, {0, 1, 0, 2}, {0, 1, 0, 3},
        {0, 1, 1, 0}, {0, 1, 1, 1}, {1, 0, 0, 0}, {1, 0, 1, 0}, {1, 1, 0, 0}, {1, 1, 0, 1},
        {1, 1, 0, 2}, {1, 1, 0, 3}, {1, 1, 1, 0}, {1, 1, 1, 1}};
    packet_iterator it;
    packet_position p;
    REQUIRE(packet_iterator_init(&it, tcs, 2, 1, J2K_RPCL, NULL, 0, NULL) == GJ2K_OK);
    for (unsigned i = 0; i < 8; i++) {
        REQUIRE(packet_iterator_next(&it, &p));
        CHECK(p.layer == 0 && p.resolution == rpcl[i][0] && p.component == rpcl[i][1] &&
              p.precinct == rpcl[i][2]);
    }
    CHECK(!packet_iterator_next(&it, &p));
    packet_iterator_free(&it);
    REQUIRE(packet_iterator_init(&it, tcs, 2, 2, J2K_LRCP, NULL, 0, NULL) == GJ2K_OK);
    for (unsigned i = 0; i < 16; i++) {
        REQUIRE(packet_iterator_next(&it, &p));
        CHECK(p.layer == lrcp[i][0] && p.resolution == lrcp[i][1] && p.component == lrcp[i][2] &&
              p.precinct == lrcp[i][3]);
    }
    CHECK(!packet_iterator_next(&it, &p));
    packet_iterator_free(&it);
    /* POC: layer 0 of resolution 0 in CPRL, then RLCP up to layer 1 for
     * component 1; the rest (flagged) in the default LRCP. */
    j2k_progression_change pocs[2] = {
        {.resolution_start = 0, .component_start = 0, .layer_end = 1, .resolution_end = 1,
         .component_end = 2, .progression = J2K_CPRL},
        {.resolution_start = 0, .component_start = 1, .layer_end = 2, .resolution_end = 33,
         .component_end = 2, .progression = J2K_RLCP}};
    static const uint32_t poc[16][4] = {
        {0, 0, 0, 0}, {0, 0, 1, 0},                                /* volume 1 */
        {1, 0, 1, 0}, {0, 1, 1, 0}, {0, 1, 1, 1}, {1, 1, 1, 0}, {1, 1, 1, 1}, /* volume 2 */
        {0, 1, 0, 0}, {0, 1, 0, 1}, {0, 1, 0, 2}, {0, 1, 0, 3}, {1, 0, 0, 0}, /* the rest */
        {1, 1, 0, 0}, {1, 1, 0, 1}, {1, 1, 0, 2}, {1, 1, 0, 3}};
    REQUIRE(packet_iterator_init(&it, tcs, 2, 2, J2K_LRCP, pocs, 2, NULL) == GJ2K_OK);
    for (unsigned i = 0; i < 16; i++) {
        REQUIRE(packet_iterator_next(&it, &p));
        CHECK(p.layer == poc[i][0] && p.resolution == poc[i][1] && p.component == poc[i][2] &&
              p.precinct == poc[i][3]);
        CHECK(p.after_changes == (i >= 7));
    }
    CHECK(!packet_iterator_next(&it, &p));
    packet_iterator_free(&it);
    tile_component_free(&tcs[0]);
    tile_component_free(&tcs[1]);
}

static void test_packet_order_poc_random(void)
{
    for (int round = 0; round < 120; round++) {
        uint32_t nc = rnd(1, 3);
        tile_component *tcs = random_components(random_tile(40, 40), nc, 3, 0);
        unsigned layers = rnd(1, 4);
        j2k_progression_change pocs[4];
        size_t npocs = rnd(1, 4);
        for (size_t i = 0; i < npocs; i++) {
            pocs[i].resolution_start = (uint8_t)rnd(0, 3);
            pocs[i].resolution_end = (uint8_t)rnd(pocs[i].resolution_start + 1, 5);
            pocs[i].component_start = rnd(0, nc - 1);
            pocs[i].component_end = rnd(pocs[i].component_start + 1, nc + 1);
            pocs[i].layer_end = (uint16_t)rnd(1, layers + 1);
            pocs[i].progression = (uint8_t)rnd(0, 4);
        }
        compare_orders(tcs, nc, layers, rnd(0, 4), pocs, npocs);
        free_components(tcs, nc);
    }
}

static void test_limits_and_arguments(void)
{
    /* 2^32-wide tile with 1x1 precincts at r = 0: refused, not allocated. */
    j2k_component_coding c = {0};
    c.code_block_width_log2 = c.code_block_height_log2 = 2;
    c.precincts_defined = true;
    tile_component tc;
    gj2k_error e = {0};
    CHECK_EQ(tile_component_init(&tc, (dwt_rect){0, 0, UINT32_MAX, UINT32_MAX}, 1, 1, &c, 0, &e),
             GJ2K_ERROR_LIMIT);
    CHECK(strstr(e.message, "precincts") != NULL);
    /* A huge tile with default precincts but 4x4 code-blocks: too many blocks. */
    j2k_component_coding_default_precincts(&c);
    c.precincts_defined = false;
    CHECK_EQ(tile_component_init(&tc, (dwt_rect){1, 1, UINT32_MAX, 1u << 20}, 1, 1, &c, 0, &e),
             GJ2K_ERROR_LIMIT);
    /* Coordinates near 2^32 work. */
    c.levels = 3;
    for (unsigned r = 0; r <= 3; r++)
        c.precinct_width_log2[r] = c.precinct_height_log2[r] = 15;
    REQUIRE(tile_component_init(&tc, (dwt_rect){UINT32_MAX - 100, UINT32_MAX - 37, UINT32_MAX,
                                                UINT32_MAX}, 3, 1, &c, 0, &e) == GJ2K_OK);
    CHECK_EQ(tc.rect.x1, (uint32_t)(((uint64_t)UINT32_MAX + 2) / 3));
    CHECK(tc.num_codeblocks > 0);
    tile_component_free(&tc);
    CHECK_EQ(tile_component_init(&tc, (dwt_rect){0, 0, 8, 8}, 0, 1, &c, 0, &e),
             GJ2K_ERROR_INVALID_ARGUMENT);
}

static const test_case cases[] = {
    {"tile_structure_hand_geometry", test_tile_structure_hand_geometry},
    {"tile_structure_partition", test_tile_structure_partition},
    {"packet_order_all_progressions", test_packet_order_all_progressions},
    {"packet_order_by_hand", test_packet_order_by_hand},
    {"packet_order_poc_random", test_packet_order_poc_random},
    {"limits_and_arguments", test_limits_and_arguments},
};

TEST_MAIN(cases)
