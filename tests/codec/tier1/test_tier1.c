/* test_tier1.c - Tier-1 code-block coding (T.800 Annex D), each direction
 * checked by the other and by a plain reference model of the standard's
 * context modelling. `test_tier1 bench` prints throughput instead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mq_decoder.h"
#include "mq_encoder.h"
#include "test_harness.h"
#include "tier1_test_support.h"
#include "tier1.h"
#include "tier1_words.h"

/* ------------------------------------------------------------ helpers */

/* The segments that carry passes 0..k-1 of an encoded block; returns their
 * number and their total bytes in *size. */
static unsigned segments_for(const tier1_encoded_block *e, unsigned k, tier1_segment *segments,
                             size_t *size)
{
    unsigned n = 0, first = 0;
    size_t start = 0;
    for (unsigned j = 0; j < k; j++) {
        if (!e->passes[j].ends_segment && j != k - 1)
            continue;
        segments[n].length = e->passes[j].length - start;
        segments[n].num_passes = j + 1 - first;
        start = e->passes[j].length;
        first = j + 1;
        n++;
    }
    *size = start;
    return n;
}

/* Decodes passes 0..k-1 from a copy of exactly the bytes they need. */
static gj2k_status decode_prefix(const tier1_encoded_block *e, unsigned k, uint32_t width,
                                 uint32_t height, dwt_band band, unsigned style, int32_t *out,
                                 uint8_t *lowest, tier1_decode_result *result)
{
    tier1_segment segments[TIER1_MAX_PASSES];
    size_t size;
    unsigned n = segments_for(e, k, segments, &size);
    uint8_t *copy = xmalloc(size);
    if (size)
        memcpy(copy, e->data, size);
    tier1_decode_request request = {copy, size, segments, n, e->num_planes, width, height,
                                    band, style};
    gj2k_status status = tier1_decode_block(&request, NULL, out, width, lowest, result);
    free(copy);
    return status;
}

/* Encodes a random block and decodes all its passes; true when exact. */
static bool round_trip(uint32_t width, uint32_t height, dwt_band band, unsigned style,
                       unsigned planes, tier1_workspace *ws)
{
    size_t n = (size_t)width * height;
    int32_t *q = xmalloc(n * sizeof *q), *back = xmalloc(n * sizeof *back);
    random_block(q, width, height, width, planes);
    tier1_encoded_block e;
    bool ok = tier1_encode_block(q, width, width, height, band, style, planes, ws, &e) == GJ2K_OK;
    ok = ok && segment_is_clean(e.data, e.size);
    if (ok) {
        tier1_decode_result result;
        ok = decode_prefix(&e, e.num_passes, width, height, band, style, back, NULL, &result) ==
                 GJ2K_OK &&
             result.passes_decoded == e.num_passes && result.segmentation_errors == 0 &&
             memcmp(q, back, n * sizeof *q) == 0 &&
             e.passes[e.num_passes ? e.num_passes - 1 : 0].length == e.size;
    }
    if (!ok)
        fprintf(stderr, "round trip %ux%u band %d style 0x%02x planes %u failed\n", width,
                height, band, style, planes);
    tier1_encoded_block_release(&e);
    free(q);
    free(back);
    return ok;
}

/* --------------------------------------------------- context tables */

/* Table D.1 as printed: ranges of (sum H, sum V, sum D) -> label, for LL
 * and LH; HL swaps H and V. HH: ranges of (sum D, sum H + V). */
static const int zc_rows_ll[9][7] = {
    {2, 2, 0, 2, 0, 4, 8}, {1, 1, 1, 2, 0, 4, 7}, {1, 1, 0, 0, 1, 4, 6},
    {1, 1, 0, 0, 0, 0, 5}, {0, 0, 2, 2, 0, 4, 4}, {0, 0, 1, 1, 0, 4, 3},
    {0, 0, 0, 0, 2, 4, 2}, {0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0}};
static const int zc_rows_hh[9][5] = {{3, 4, 0, 4, 8}, {2, 2, 1, 4, 7}, {2, 2, 0, 0, 6},
                                     {1, 1, 2, 4, 5}, {1, 1, 1, 1, 4}, {1, 1, 0, 0, 3},
                                     {0, 0, 2, 4, 2}, {0, 0, 1, 1, 1}, {0, 0, 0, 0, 0}};
/* Table D.3: H, V contributions -> label, XOR bit. */
static const int sc_rows[9][4] = {{1, 1, 13, 0},  {1, 0, 12, 0},  {1, -1, 11, 0},
                                  {0, 1, 10, 0},  {0, 0, 9, 0},   {0, -1, 10, 1},
                                  {-1, 1, 11, 1}, {-1, 0, 12, 1}, {-1, -1, 13, 1}};

static int table_zero_context(dwt_band band, int h, int v, int d)
{
    if (band == DWT_BAND_HH) {
        for (int i = 0; i < 9; i++)
            if (d >= zc_rows_hh[i][0] && d <= zc_rows_hh[i][1] && h + v >= zc_rows_hh[i][2] &&
                h + v <= zc_rows_hh[i][3])
                return zc_rows_hh[i][4];
        return -1;
    }
    if (band == DWT_BAND_HL) {
        int t = h;
        h = v;
        v = t;
    }
    for (int i = 0; i < 9; i++)
        if (h >= zc_rows_ll[i][0] && h <= zc_rows_ll[i][1] && v >= zc_rows_ll[i][2] &&
            v <= zc_rows_ll[i][3] && d >= zc_rows_ll[i][4] && d <= zc_rows_ll[i][5])
            return zc_rows_ll[i][6];
    return -1;
}

static int clip(int x)
{
    return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/* Table D.2: a direct neighbour's contribution. */
static int contribution(bool significant, bool negative)
{
    return significant ? (negative ? -1 : 1) : 0;
}

static void test_context_tables(void)
{
    for (unsigned band = 0; band < 4; band++)
        for (unsigned n = 0; n < 512; n++) { /* NW N NE W . E SW S SE */
            int h = (n >> 3 & 1) + (n >> 5 & 1), v = (n >> 1 & 1) + (n >> 7 & 1);
            int d = (n & 1) + (n >> 2 & 1) + (n >> 6 & 1) + (n >> 8 & 1);
            CHECK_EQ(tier1_zero_context[band][n], table_zero_context((dwt_band)band, h, v, d));
        }
    /* the state words (tier1_words.h): every neighbourhood of every row
       reaches the zero-coding table, the sample itself left out */
    for (unsigned r = 0; r < 4; r++)
        for (unsigned n = 0; n < 256; n++) {
            static const int at[8][2] = {{-1, 0}, {-1, 1}, {-1, 2}, {0, 0},
                                         {0, 2},  {1, 0},  {1, 1},  {1, 2}};
            uint32_t word = T1W_SIG((int)r, 1); /* the sample itself: left out */
            unsigned h = 0, v = 0, d = 0;
            for (unsigned k = 0; k < 8; k++)
                if (n >> k & 1) {
                    word |= T1W_SIG((int)r + at[k][0], at[k][1]);
                    h += at[k][0] == 0;
                    v += at[k][1] == 1;
                    d += at[k][0] != 0 && at[k][1] != 1;
                }
            unsigned index = t1w_neighbours(word, r);
            CHECK_EQ(index == 0, n == 0);
            for (unsigned band = 0; band < 4; band++)
                CHECK_EQ(tier1_zero_context[band][index],
                         table_zero_context((dwt_band)band, (int)h, (int)v, (int)d));
        }
    /* every N, W, E, S significance and sign, on every row */
    for (unsigned r = 0; r < 4; r++)
        for (uint32_t i = 0; i < 256; i++) {
            bool sn = i & 1, sw = i & 2, se = i & 4, ss = i & 8;
            bool nn = i & 16, nw = i & 32, ne = i & 64, ns = i & 128;
            uint32_t w[3] = {0, T1W_SIG((int)r - 1, 0) | T1W_SIG((int)r + 1, 2), 0};
            w[1] |= (sn ? T1W_SIG((int)r - 1, 1) : 0) | (sw ? T1W_SIG((int)r, 0) : 0) |
                    (se ? T1W_SIG((int)r, 2) : 0) | (ss ? T1W_SIG((int)r + 1, 1) : 0) |
                    (sn && nn ? T1W_NEG((int)r - 1) : 0) | (ss && ns ? T1W_NEG((int)r + 1) : 0);
            w[0] = sw && nw ? T1W_NEG((int)r) : 0; /* the column to the left, its row r */
            w[2] = se && ne ? T1W_NEG((int)r) : 0;
            int h = clip(contribution(sw, nw) + contribution(se, ne));
            int v = clip(contribution(sn, nn) + contribution(ss, ns));
            unsigned entry = tier1_sign_table[t1w_sign_index(&w[1], r)];
            for (int k = 0; k < 9; k++)
                if (sc_rows[k][0] == h && sc_rows[k][1] == v) {
                    CHECK_EQ(entry & 15u, sc_rows[k][2]);
                    CHECK_EQ(entry >> 4, sc_rows[k][3]);
                }
        }
    /* Table D.7 */
    mq_context c[MQ_NUM_CONTEXTS];
    mq_reset_contexts(c);
    for (unsigned i = 0; i < MQ_NUM_CONTEXTS; i++)
        CHECK_EQ(c[i], i == 0 ? 8 : i == 17 ? 6 : i == 18 ? 92 : 0);
    /* Table D.9: the raw passes and the ends of segments with bypass */
    for (unsigned j = 0; j < 20; j++) {
        CHECK_EQ(tier1_pass_is_raw(j, TIER1_STYLE_BYPASS), j >= 10 && j % 3 != 0);
        CHECK_EQ(tier1_pass_ends_segment(j, TIER1_STYLE_BYPASS), j >= 9 && j % 3 != 1);
        CHECK(!tier1_pass_is_raw(j, TIER1_STYLE_ALL & ~TIER1_STYLE_BYPASS));
        CHECK(tier1_pass_ends_segment(j, TIER1_STYLE_TERMINATE_EACH_PASS));
    }
}

/* ----------------------------------------------------------- Tier-1 */

static const uint32_t shapes[][2] = {
    {4, 4},   {64, 64}, {32, 32},   {16, 16},   {8, 8},    {1, 1},  {1, 7},   {7, 1},
    {1, 4},   {4, 1},   {1, 1024},  {1024, 1},  {1024, 4}, {4, 1024}, {32, 128}, {128, 32},
    {7, 13},  {13, 7},  {3, 5},     {5, 819},   {33, 124}, {64, 63}, {63, 64},  {2, 2},
    {5, 5},   {6, 9},   {256, 16},  {16, 256},  {2, 1024}, {1024, 2}, {3, 3},   {9, 4}};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

static void test_round_trip_shapes(void)
{
    tier1_workspace *ws = tier1_workspace_create();
    REQUIRE(ws != NULL);
    for (unsigned s = 0; s < NUM_SHAPES; s++)
        for (unsigned band = 0; band < 4; band++)
            for (int k = 0; k < 3; k++)
                CHECK(round_trip(shapes[s][0], shapes[s][1], (dwt_band)band,
                                 (unsigned)(test_random() & TIER1_STYLE_ALL),
                                 (unsigned)test_random_range(1, 16), ws));
    tier1_workspace_destroy(ws);
}

static void test_round_trip_all_styles(void)
{
    for (unsigned style = 0; style <= TIER1_STYLE_ALL; style++)
        for (unsigned band = 0; band < 4; band++) {
            unsigned s = (unsigned)test_random_range(0, NUM_SHAPES - 1);
            CHECK(round_trip(shapes[s][0], shapes[s][1], (dwt_band)band, style,
                             (unsigned)test_random_range(1, 20), NULL));
        }
}

static void test_deep_planes(void)
{
    for (unsigned planes = 20; planes <= TIER1_MAX_PLANES; planes++) {
        unsigned s = (unsigned)test_random_range(0, NUM_SHAPES - 1);
        CHECK(round_trip(shapes[s][0], shapes[s][1], (dwt_band)(planes % 4),
                         (unsigned)(test_random() & TIER1_STYLE_ALL), planes, NULL));
    }
    CHECK(round_trip(64, 64, DWT_BAND_HH, TIER1_STYLE_BYPASS, 31, NULL));
    CHECK(round_trip(64, 64, DWT_BAND_LL, 0, 31, NULL));
}

/* Every prefix of the passes, cut at its truncation length, decodes to the
 * original with the unknown planes zeroed, as the decoder's lowest known
 * planes say; these are p after a cleanup pass on plane p, p or p + 1
 * otherwise. The distortion reductions add up to the error then left. */
static void test_truncated_passes(void)
{
    for (int trial = 0; trial < 60; trial++) {
        unsigned s = (unsigned)test_random_range(0, NUM_SHAPES - 1);
        uint32_t width = shapes[s][0], height = shapes[s][1];
        if ((size_t)width * height > 1024 && trial % 4)
            width = height = 32;
        size_t n = (size_t)width * height;
        dwt_band band = (dwt_band)(trial % 4);
        unsigned style = (unsigned)(test_random() & TIER1_STYLE_ALL);
        unsigned planes = (unsigned)test_random_range(1, 14);
        int32_t *q = xmalloc(n * sizeof *q), *back = xmalloc(n * sizeof *back);
        uint8_t *lowest = xmalloc(n);
        random_block(q, width, height, width, planes);
        tier1_encoded_block e;
        REQUIRE(tier1_encode_block(q, width, width, height, band, style, planes, NULL, &e) ==
                GJ2K_OK);
        double energy = 0.0, cumulative = 0.0;
        for (size_t i = 0; i < n; i++)
            energy += (double)q[i] * (double)q[i];
        for (unsigned k = 0; k <= e.num_passes; k++) {
            tier1_decode_result result;
            CHECK_EQ(decode_prefix(&e, k, width, height, band, style, back, lowest, &result),
                     GJ2K_OK);
            CHECK_EQ(result.passes_decoded, k);
            unsigned p = k ? e.num_planes - 1 - (k + 1) / 3 : e.num_planes;
            bool cleanup = k == 0 || tier1_pass_type_of(k - 1) == TIER1_PASS_CLEANUP;
            double error = 0.0;
            size_t wrong = 0;
            for (size_t i = 0; i < n; i++) {
                unsigned low = lowest[i];
                uint32_t v = q[i] < 0 ? (uint32_t)-q[i] : (uint32_t)q[i];
                uint32_t known = low >= 32 ? 0 : v >> low << low;
                int32_t expected = q[i] < 0 ? -(int32_t)known : (int32_t)known;
                if (back[i] != expected || low < p || low > p + (cleanup ? 0 : 1))
                    wrong++;
                double r = known ? (double)known + (low ? (double)(1u << (low - 1)) : 0.0) : 0.0;
                error += ((double)v - r) * ((double)v - r);
            }
            if (wrong)
                fprintf(stderr, "%ux%u style 0x%02x: %zu wrong after %u of %u passes\n", width,
                        height, style, wrong, k, e.num_passes);
            CHECK_EQ(wrong, 0);
            if (k)
                cumulative += e.passes[k - 1].distortion_reduction;
            CHECK(energy - cumulative - error <= 1e-9 * energy &&
                  error - (energy - cumulative) <= 1e-9 * energy);
        }
        tier1_encoded_block_release(&e);
        free(q);
        free(back);
        free(lowest);
    }
}

/* Pass lengths never decrease and end at the size; significance and cleanup
 * passes never increase the error; the reductions add up to the energy. */
static void test_distortion_and_lengths(void)
{
    for (int trial = 0; trial < 200; trial++) {
        unsigned s = (unsigned)test_random_range(0, NUM_SHAPES - 1);
        uint32_t width = shapes[s][0], height = shapes[s][1];
        size_t n = (size_t)width * height;
        unsigned style = (unsigned)(test_random() & TIER1_STYLE_ALL);
        unsigned planes = (unsigned)test_random_range(1, 30);
        int32_t *q = xmalloc(n * sizeof *q);
        random_block(q, width, height, width, planes);
        tier1_encoded_block e;
        REQUIRE(tier1_encode_block(q, width, width, height, (dwt_band)(trial % 4), style, 30,
                                   NULL, &e) == GJ2K_OK);
        CHECK_EQ(e.missing_msbs + e.num_planes, 30);
        double energy = 0.0, sum = 0.0;
        for (size_t i = 0; i < n; i++)
            energy += (double)q[i] * (double)q[i];
        for (unsigned j = 0; j < e.num_passes; j++) {
            sum += e.passes[j].distortion_reduction;
            if (tier1_pass_type_of(j) != TIER1_PASS_REFINEMENT)
                CHECK(e.passes[j].distortion_reduction >= 0.0);
            if (j)
                CHECK(e.passes[j].length >= e.passes[j - 1].length);
        }
        if (e.num_passes) {
            CHECK_EQ(e.passes[e.num_passes - 1].length, e.size);
            CHECK(sum - energy <= 1e-9 * energy && energy - sum <= 1e-9 * energy);
        }
        tier1_encoded_block_release(&e);
        free(q);
    }
}

static void test_zero_block(void)
{
    int32_t q[64 * 64] = {0}, back[64 * 64];
    tier1_encoded_block e;
    CHECK_EQ(tier1_encode_block(q, 64, 64, 64, DWT_BAND_LH, TIER1_STYLE_ALL, 12, NULL, &e),
             GJ2K_OK);
    CHECK_EQ(e.num_passes, 0);
    CHECK_EQ(e.size, 0);
    CHECK_EQ(e.num_planes, 0);
    CHECK_EQ(e.missing_msbs, 12);
    tier1_encoded_block_release(&e);
    memset(back, 0x55, sizeof back);
    tier1_decode_request request = {NULL, 0, NULL, 0, 12, 64, 64, DWT_BAND_LH, 0};
    tier1_decode_result result;
    CHECK_EQ(tier1_decode_block(&request, NULL, back, 64, NULL, &result), GJ2K_OK);
    CHECK_EQ(result.passes_decoded, 0);
    CHECK(memcmp(q, back, sizeof q) == 0);
}

/* ---------------------------------------------- the reference model */

/* A plain restatement of Annex D: contexts from neighbour arrays, symbols
 * straight into the MQ coder. Its bytes must equal tier1_encode_block's. */
typedef struct reference {
    const int32_t *q;
    int w, h;
    dwt_band band;
    bool causal, raw;
    uint8_t *sig, *visited, *refined;
    mq_encoder *mq;
} reference;

static bool ref_significant(const reference *m, int x, int y, int dx, int dy)
{
    if (m->causal && dy == 1 && y % 4 == 3)
        return false; /* D.7: the next stripe is not looked at */
    x += dx;
    y += dy;
    return x >= 0 && y >= 0 && x < m->w && y < m->h && m->sig[y * m->w + x];
}

static int ref_contribution(const reference *m, int x, int y, int dx, int dy)
{
    return ref_significant(m, x, y, dx, dy) ? (m->q[(y + dy) * m->w + x + dx] < 0 ? -1 : 1) : 0;
}

static void ref_code(reference *m, unsigned context, unsigned bit)
{
    if (m->raw)
        mq_encoder_bypass_put_bit(m->mq, bit);
    else
        mq_encoder_encode_bit(m->mq, context, bit);
}

static void ref_sign(reference *m, int x, int y)
{
    bool negative = m->q[y * m->w + x] < 0;
    m->sig[y * m->w + x] = 1;
    if (m->raw) {
        ref_code(m, 0, negative);
        return;
    }
    int h = clip(ref_contribution(m, x, y, -1, 0) + ref_contribution(m, x, y, 1, 0));
    int v = clip(ref_contribution(m, x, y, 0, -1) + ref_contribution(m, x, y, 0, 1));
    for (int r = 0; r < 9; r++)
        if (sc_rows[r][0] == h && sc_rows[r][1] == v)
            ref_code(m, (unsigned)sc_rows[r][2], negative ^ (unsigned)sc_rows[r][3]);
}

static int ref_zero_context(const reference *m, int x, int y)
{
    int h = ref_significant(m, x, y, -1, 0) + ref_significant(m, x, y, 1, 0);
    int v = ref_significant(m, x, y, 0, -1) + ref_significant(m, x, y, 0, 1);
    int d = ref_significant(m, x, y, -1, -1) + ref_significant(m, x, y, 1, -1) +
            ref_significant(m, x, y, -1, 1) + ref_significant(m, x, y, 1, 1);
    return table_zero_context(m->band, h, v, d);
}

static unsigned ref_bit(const reference *m, int x, int y, unsigned p)
{
    int32_t v = m->q[y * m->w + x];
    return ((uint32_t)(v < 0 ? -v : v) >> p) & 1u;
}

static void ref_pass(reference *m, tier1_pass_type type, unsigned p)
{
    for (int y0 = 0; y0 < m->h; y0 += 4)
        for (int x = 0; x < m->w; x++) {
            int y = y0, stop = y0 + 4 < m->h ? y0 + 4 : m->h;
            if (type == TIER1_PASS_CLEANUP && stop - y0 == 4) {
                bool run = true;
                for (int r = y0; r < stop; r++)
                    run = run && !m->sig[r * m->w + x] && !m->visited[r * m->w + x] &&
                          ref_zero_context(m, x, r) == 0;
                if (run) {
                    int k = 0;
                    while (k < 4 && !ref_bit(m, x, y0 + k, p))
                        k++;
                    ref_code(m, MQ_CONTEXT_RUN_LENGTH, k < 4);
                    if (k == 4)
                        continue;
                    ref_code(m, MQ_CONTEXT_UNIFORM, (unsigned)k >> 1);
                    ref_code(m, MQ_CONTEXT_UNIFORM, (unsigned)k & 1u);
                    ref_sign(m, x, y0 + k);
                    y = y0 + k + 1;
                }
            }
            for (; y < stop; y++) {
                size_t i = (size_t)y * m->w + x;
                int zc = ref_zero_context(m, x, y);
                if (type == TIER1_PASS_SIGNIFICANCE && !m->sig[i] && zc > 0) {
                    m->visited[i] = 1;
                    ref_code(m, (unsigned)zc, ref_bit(m, x, y, p));
                    if (ref_bit(m, x, y, p))
                        ref_sign(m, x, y);
                } else if (type == TIER1_PASS_REFINEMENT && m->sig[i] && !m->visited[i]) {
                    bool any = zc > 0;
                    ref_code(m, m->refined[i] ? 16 : any ? 15 : 14, ref_bit(m, x, y, p));
                    m->refined[i] = 1;
                } else if (type == TIER1_PASS_CLEANUP) {
                    if (!m->sig[i] && !m->visited[i]) {
                        ref_code(m, (unsigned)zc, ref_bit(m, x, y, p));
                        if (ref_bit(m, x, y, p))
                            ref_sign(m, x, y);
                    }
                    m->visited[i] = 0;
                }
            }
        }
}

static void test_matches_reference_model(void)
{
    for (unsigned trial = 0; trial < 4 * (TIER1_STYLE_ALL + 1); trial++) {
        unsigned style = trial % (TIER1_STYLE_ALL + 1);
        unsigned sh = (unsigned)test_random_range(0, NUM_SHAPES - 1);
        int w = (int)shapes[sh][0], h = (int)shapes[sh][1];
        if (w * h > 1200 && trial % 8)
            w = h = 21;
        unsigned planes = (unsigned)test_random_range(1, 16);
        size_t n = (size_t)w * h;
        int32_t *q = xmalloc(n * sizeof *q);
        random_block(q, (uint32_t)w, (uint32_t)h, (size_t)w, planes);
        reference m = {q, w, h, (dwt_band)(style % 4), (style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0,
                       false, calloc(n, 1), calloc(n, 1), calloc(n, 1), NULL};
        tier1_encoded_block e;
        REQUIRE(tier1_encode_block(q, (size_t)w, (uint32_t)w, (uint32_t)h, m.band, style, planes,
                                   NULL, &e) == GJ2K_OK);
        mq_encoder mq;
        mq_context contexts[MQ_NUM_CONTEXTS];
        REQUIRE(mq_encoder_init(&mq, contexts, 0));
        m.mq = &mq;
        unsigned passes = e.num_planes ? 3 * e.num_planes - 2 : 0;
        bool open = false, predictable = style & TIER1_STYLE_PREDICTABLE;
        for (unsigned j = 0; j < passes; j++) {
            tier1_pass_type type = j == 0 ? TIER1_PASS_CLEANUP : (tier1_pass_type)((j - 1) % 3);
            m.raw = (style & TIER1_STYLE_BYPASS) && j >= 10 && type != TIER1_PASS_CLEANUP;
            if (!open) {
                if (m.raw)
                    mq_encoder_start_bypass(&mq);
                else
                    mq_encoder_start(&mq);
                open = true;
            }
            ref_pass(&m, type, e.num_planes - 1 - (j + 2) / 3);
            if (type == TIER1_PASS_CLEANUP && (style & TIER1_STYLE_SEGMENTATION))
                for (unsigned k = 0; k < 4; k++)
                    mq_encoder_encode_bit(&mq, MQ_CONTEXT_UNIFORM, (k + 1) & 1u);
            if ((style & TIER1_STYLE_TERMINATE_EACH_PASS) || j == passes - 1 ||
                ((style & TIER1_STYLE_BYPASS) && j >= 9 && type != TIER1_PASS_SIGNIFICANCE)) {
                if (m.raw)
                    mq_encoder_flush_bypass(&mq, predictable);
                else if (predictable)
                    mq_encoder_flush_predictable(&mq);
                else
                    mq_encoder_flush(&mq);
                open = false;
            }
            if (style & TIER1_STYLE_RESET)
                mq_reset_contexts(mq.contexts);
        }
        bool same = mq.length == e.size && (e.size == 0 || memcmp(mq.data, e.data, e.size) == 0);
        if (!same)
            fprintf(stderr, "style 0x%02x %dx%d planes %u: %zu bytes, reference %zu\n", style, w,
                    h, planes, e.size, mq.length);
        CHECK(same);
        mq_encoder_release(&mq);
        tier1_encoded_block_release(&e);
        free(m.sig);
        free(m.visited);
        free(m.refined);
        free(q);
    }
}

/* Random, damaged and inconsistent input: never a crash or an out-of-bounds
 * read (ASan), an allowed status, magnitudes below 2^planes. */
static void test_corrupt_input(void)
{
    int32_t *back = xmalloc(4096 * sizeof *back);
    uint8_t *lowest = xmalloc(4096);
    unsigned damaged_with_symbols = 0, flagged = 0;
    for (int trial = 0; trial < 3000; trial++) {
        unsigned s = (unsigned)test_random_range(0, NUM_SHAPES - 1);
        uint32_t width = shapes[s][0], height = shapes[s][1];
        unsigned style = (unsigned)(test_random() & TIER1_STYLE_ALL);
        dwt_band band = (dwt_band)(test_random() % 4);
        unsigned planes = (unsigned)test_random_range(0, 31);
        size_t size = (size_t)test_random_range(0, 3000);
        uint8_t *data = xmalloc(size);
        tier1_segment segments[TIER1_MAX_PASSES];
        unsigned count = (unsigned)test_random_range(0, 12);
        if (trial % 3 == 0 && planes > 0) {
            /* a real block, damaged */
            int32_t *q = xmalloc((size_t)width * height * sizeof *q);
            random_block(q, width, height, width, planes);
            tier1_encoded_block e;
            REQUIRE(tier1_encode_block(q, width, width, height, band, style, planes, NULL, &e) ==
                    GJ2K_OK);
            size = e.size;
            free(data);
            data = xmalloc(size);
            if (size)
                memcpy(data, e.data, size);
            for (int k = 0; k < 3 && size; k++)
                data[test_random() % size] ^= (uint8_t)(1u << (test_random() % 8));
            damaged_with_symbols += size > 0 && (style & TIER1_STYLE_SEGMENTATION);
            size_t unused;
            count = segments_for(&e, e.num_passes, segments, &unused);
            count = (unsigned)test_random_range(0, count);
            tier1_encoded_block_release(&e);
            free(q);
        } else {
            for (size_t i = 0; i < size; i++)
                data[i] = (uint8_t)(test_random() % 5 ? test_random() : 0xFF);
            for (unsigned k = 0; k < count; k++) {
                segments[k].length = (size_t)test_random_range(0, (int64_t)size / 2 + 8);
                segments[k].num_passes = (unsigned)test_random_range(0, 40);
            }
        }
        tier1_decode_request request = {data, size, segments, count, planes, width, height,
                                        band, style};
        tier1_decode_result result;
        gj2k_status status = tier1_decode_block(&request, NULL, back, width, lowest, &result);
        CHECK(status == GJ2K_OK || status == GJ2K_ERROR_TRUNCATED ||
              status == GJ2K_ERROR_MALFORMED);
        flagged += trial % 3 == 0 && planes > 0 && (style & TIER1_STYLE_SEGMENTATION) &&
                   result.segmentation_errors > 0;
        for (size_t i = 0; i < (size_t)width * height; i++) {
            uint32_t v = back[i] < 0 ? (uint32_t)-back[i] : (uint32_t)back[i];
            CHECK(planes == 31 || v >> planes == 0);
            CHECK(lowest[i] <= planes);
        }
        free(data);
    }
    /* damage is seen by the segmentation symbols (D.5) */
    CHECK(damaged_with_symbols < 50 || flagged > damaged_with_symbols / 4);
    free(back);
    free(lowest);
}

/* Terminated segments: exact boundaries, each clean and decodable alone
 * after the ones before it; bytes past a segment are never read (a
 * damaged later segment leaves earlier passes alone). */
static void test_segment_structure(void)
{
    for (int trial = 0; trial < 100; trial++) {
        uint32_t width = 32, height = (uint32_t)test_random_range(1, 40);
        size_t n = (size_t)width * height;
        unsigned style = (unsigned)(test_random() & TIER1_STYLE_ALL) |
                         (trial & 1 ? TIER1_STYLE_TERMINATE_EACH_PASS : TIER1_STYLE_BYPASS);
        unsigned planes = (unsigned)test_random_range(6, 14);
        int32_t *q = xmalloc(n * sizeof *q), *a = xmalloc(n * sizeof *a);
        int32_t *b = xmalloc(n * sizeof *b);
        random_block(q, width, height, width, planes);
        tier1_encoded_block e;
        REQUIRE(tier1_encode_block(q, width, width, height, DWT_BAND_HL, style, planes, NULL,
                                   &e) == GJ2K_OK);
        tier1_segment segments[TIER1_MAX_PASSES];
        size_t size;
        unsigned count = segments_for(&e, e.num_passes, segments, &size), total = 0;
        CHECK_EQ(size, e.size);
        size_t start = 0;
        for (unsigned k = 0; k < count; k++) {
            CHECK(segment_is_clean(e.data + start, segments[k].length));
            start += segments[k].length;
            total += segments[k].num_passes;
        }
        CHECK_EQ(total, e.num_passes);
        /* Table D.9: with bypass alone, segments end after pass 9, after each
         * raw refinement pass and after each cleanup pass from pass 12 on */
        unsigned expected = 0;
        for (unsigned j = 0; j < e.num_passes; j++)
            expected += (style & TIER1_STYLE_TERMINATE_EACH_PASS) || j == e.num_passes - 1 ||
                        j == 9 || (j > 9 && (j - 1) % 3 != 0);
        CHECK_EQ(count, expected);
        if (count == 0) { /* an all-zero block */
            tier1_encoded_block_release(&e);
            free(q);
            free(a);
            free(b);
            continue;
        }
        /* damage everything after segment k: passes up to k decode the same */
        unsigned k = (unsigned)test_random_range(0, count - 1);
        size_t end = 0;
        for (unsigned i = 0; i <= k; i++)
            end += segments[i].length;
        uint8_t *damaged = xmalloc(e.size);
        if (e.size)
            memcpy(damaged, e.data, e.size);
        for (size_t i = end; i < e.size; i++)
            damaged[i] = (uint8_t)test_random();
        tier1_decode_request good = {e.data, end, segments, k + 1, e.num_planes, width, height,
                                     DWT_BAND_HL, style};
        tier1_decode_request bad = good;
        bad.data = damaged;
        bad.size = e.size;
        CHECK_EQ(tier1_decode_block(&good, NULL, a, width, NULL, NULL), GJ2K_OK);
        CHECK_EQ(tier1_decode_block(&bad, NULL, b, width, NULL, NULL), GJ2K_OK);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        free(damaged);
        tier1_encoded_block_release(&e);
        free(q);
        free(a);
        free(b);
    }
}

static void test_invalid_arguments(void)
{
    const gj2k_status bad = GJ2K_ERROR_INVALID_ARGUMENT;
    int32_t q[16] = {0}, back[16];
    tier1_encoded_block e;
    CHECK_EQ(tier1_encode_block(q, 4, 0, 4, DWT_BAND_LL, 0, 8, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, DWT_BAND_LL, 0x40, 8, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, (dwt_band)4, 0, 8, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, DWT_BAND_LL, 0, 32, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 3, 4, 4, DWT_BAND_LL, 0, 8, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 1, 1, 4096, DWT_BAND_LL, 0, 31, NULL, &e), bad);
    q[5] = 256; /* 9 planes */
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, DWT_BAND_LL, 0, 8, NULL, &e), bad);
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, DWT_BAND_LL, 0, 9, NULL, &e), GJ2K_OK);
    CHECK_EQ(e.num_planes, 9);
    tier1_encoded_block_release(&e);
    q[5] = INT32_MIN; /* 32 planes */
    CHECK_EQ(tier1_encode_block(q, 4, 4, 4, DWT_BAND_LL, 0, 31, NULL, &e), bad);
    tier1_decode_request request = {NULL, 0, NULL, 0, 32, 4, 4, DWT_BAND_LL, 0};
    CHECK_EQ(tier1_decode_block(&request, NULL, back, 4, NULL, NULL), GJ2K_ERROR_UNSUPPORTED);
    request.num_planes = 5;
    request.width = 2048;
    CHECK_EQ(tier1_decode_block(&request, NULL, back, 4, NULL, NULL), bad);
    request.width = 4;
    request.num_segments = 1;
    CHECK_EQ(tier1_decode_block(&request, NULL, back, 4, NULL, NULL), bad);
}

/* ------------------------------------------------------------- bench */

/* Roughly Laplacian blocks of scale `scale` (about log2(scale) + 3 planes). */
static void bench_scale(double scale)
{
    enum { BLOCKS = 400 };
    int32_t *q = xmalloc(BLOCKS * 4096 * sizeof *q), *back = xmalloc(4096 * sizeof *back);
    tier1_encoded_block *e = xmalloc(BLOCKS * sizeof *e);
    for (int i = 0; i < BLOCKS * 4096; i++) {
        double u = ((double)(test_random() >> 11) + 0.5) / 9007199254740992.0;
        int32_t v = (int32_t)(-scale * log(u));
        q[i] = test_random() & 1 ? v : -v;
    }
    tier1_workspace *ws = tier1_workspace_create();
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t bytes = 0;
    for (int b = 0; b < BLOCKS; b++) {
        tier1_encode_block(q + b * 4096, 64, 64, 64, DWT_BAND_HH, 0, 20, ws, &e[b]);
        bytes += e[b].size;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int b = 0; b < BLOCKS; b++) {
        tier1_segment segment = {e[b].size, e[b].num_passes};
        tier1_decode_request r = {e[b].data, e[b].size, &segment, 1, e[b].num_planes, 64, 64,
                                  DWT_BAND_HH, 0};
        tier1_decode_block(&r, ws, back, 64, NULL, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t2);
    double enc = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double dec = (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec);
    double samples = BLOCKS * 4096.0;
    printf("tier1 64x64 blocks, %.2f bits/sample: encode %.1f Msamples/s, decode %.1f "
           "Msamples/s\n",
           8.0 * (double)bytes / samples, samples / enc * 1e-6, samples / dec * 1e-6);
    for (int b = 0; b < BLOCKS; b++)
        tier1_encoded_block_release(&e[b]);
    tier1_workspace_destroy(ws);
    free(e);
    free(q);
    free(back);
}

static void bench(void)
{
    bench_scale(20.0);
    bench_scale(2.0);
    bench_scale(0.3);
}

/* tier1_encode_block_unmeasured: the same bytes and truncation points as
 * the measured encoder, every style, with and without fractions; its
 * distortions 0 where the measured ones are not. */
static void test_unmeasured_same_bytes(void)
{
    for (int trial = 0; trial < 80; trial++) {
        uint32_t width = (uint32_t)test_random_range(1, 64), height = (uint32_t)test_random_range(1, 64);
        size_t n = (size_t)width * height;
        dwt_band band = (dwt_band)(trial % 4);
        unsigned style = (unsigned)(test_random() & TIER1_STYLE_ALL);
        unsigned planes = (unsigned)test_random_range(1, 16);
        int32_t *q = xmalloc(n * sizeof *q);
        uint8_t *fractions = xmalloc(n);
        random_block(q, width, height, width, planes);
        for (size_t i = 0; i < n; i++)
            fractions[i] = (uint8_t)test_random();
        const uint8_t *f = trial % 2 ? fractions : NULL;
        tier1_encoded_block a, b;
        REQUIRE(tier1_encode_block_with_fractions(q, f, width, width, height, band, style, planes,
                                                  NULL, &a) == GJ2K_OK);
        REQUIRE(tier1_encode_block_unmeasured(q, f, width, width, height, band, style, planes,
                                              NULL, &b) == GJ2K_OK);
        CHECK(a.size == b.size && a.num_passes == b.num_passes && a.num_planes == b.num_planes);
        CHECK(a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
        double measured = 0.0;
        for (unsigned j = 0; j < a.num_passes && j < b.num_passes; j++) {
            CHECK_EQ(a.passes[j].length, b.passes[j].length);
            CHECK(a.passes[j].ends_segment == b.passes[j].ends_segment);
            CHECK(b.passes[j].distortion_reduction == 0.0);
            measured += fabs(a.passes[j].distortion_reduction);
        }
        CHECK(a.num_passes == 0 || measured > 0.0);
        tier1_encoded_block_release(&a);
        tier1_encoded_block_release(&b);
        free(q);
        free(fractions);
    }
}

static const test_case cases[] = {
    {"context_tables", test_context_tables},
    {"round_trip_shapes", test_round_trip_shapes},
    {"round_trip_all_styles", test_round_trip_all_styles},
    {"deep_planes", test_deep_planes},
    {"truncated_passes", test_truncated_passes},
    {"distortion_and_lengths", test_distortion_and_lengths},
    {"zero_block", test_zero_block},
    {"matches_reference_model", test_matches_reference_model},
    {"corrupt_input", test_corrupt_input},
    {"segment_structure", test_segment_structure},
    {"invalid_arguments", test_invalid_arguments},
    {"unmeasured_same_bytes", test_unmeasured_same_bytes},
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        bench();
        return 0;
    }
    return test_main(argc, argv, cases, sizeof cases / sizeof cases[0]);
}
