/* test_ht_encode.c - the HT block encoder (codec/tier1/ht_encode.h) against
 * the decoder (ht_decode.h): random blocks of odd shapes, sparse and dense,
 * small and 30-bit magnitudes, coded at every plane, decode to their
 * magnitudes' bits from that plane up with their signs. (Against OpenJPH:
 * conformance/ht_crosscheck.c.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ht_encode.h"
#include "test_harness.h"

static ht_encode_tables tables;
static ht_lookup lookup;

static void build_tables(void)
{
    ht_encode_tables_build(&tables);
    ht_lookup_build(&lookup);
}

/* Random coefficients: a fraction `density` of 1/16 non-zero, magnitudes of
 * up to `bits` bits (at least one with all of them). */
static void random_block(int32_t *c, size_t stride, uint32_t w, uint32_t h, unsigned density,
                         unsigned bits)
{
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t v = 0;
            if ((unsigned)test_random_range(0, 15) < density) {
                unsigned b = (unsigned)test_random_range(1, bits);
                v = (int32_t)(test_random() & ((1ull << b) - 1));
                if (test_random() & 1)
                    v = -v;
            }
            c[(size_t)y * stride + x] = v;
        }
    c[(size_t)test_random_range(0, h - 1) * stride + (size_t)test_random_range(0, w - 1)] =
        (int32_t)((1u << (bits - 1)) | (uint32_t)(test_random() & ((1ull << (bits - 1)) - 1)));
}

/* Codes c at `plane`, decodes and compares; false on any difference. */
static bool round_trip(const int32_t *c, size_t stride, uint32_t w, uint32_t h, unsigned plane)
{
    size_t capacity = ht_cleanup_bound(w, h);
    uint8_t *data = malloc(capacity);
    int32_t *out = malloc((size_t)w * h * sizeof *out);
    if (data == NULL || out == NULL) {
        CHECK(false);
        free(data);
        free(out);
        return false;
    }
    memset(data, 0xA5, capacity);
    size_t length = 0;
    gj2k_status s = ht_encode_cleanup(c, stride, w, h, plane, &tables, data, capacity, &length);
    CHECK(s == GJ2K_OK);
    bool same = s == GJ2K_OK;
    if (same) {
        for (size_t i = 0; i < (size_t)w * h; i++)
            out[i] = 0x5A5A5A5A; /* poisoned */
        tier1_segment segment = {.length = length, .num_passes = 1};
        tier1_decode_request r = {.data = data, .size = length, .segments = &segment,
                                  .num_segments = 1, .num_planes = plane + 1, .width = w,
                                  .height = h, .style = TIER1_STYLE_HT};
        tier1_decode_result result;
        s = ht_decode_block(&r, &lookup, out, w, NULL, &result);
        CHECK(s == GJ2K_OK);
        same = s == GJ2K_OK;
        for (uint32_t y = 0; y < h && same; y++)
            for (uint32_t x = 0; x < w && same; x++) {
                int32_t v = c[(size_t)y * stride + x];
                uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
                int32_t expect = (int32_t)((m >> plane) << plane);
                if (v < 0)
                    expect = -expect;
                if (out[(size_t)y * w + x] != expect) {
                    fprintf(stderr, "block %ux%u plane %u: sample (%u,%u) %d decoded as %d\n", w, h,
                              plane, x, y, expect, out[(size_t)y * w + x]);
                    same = false;
                }
            }
        /* no 0xFF followed by a byte above 0x8F inside the segment */
        for (size_t i = 0; i + 1 < length; i++)
            if (data[i] == 0xFF && data[i + 1] > 0x8F) {
                fprintf(stderr, "block %ux%u plane %u: 0xFF%02X at byte %zu of %zu\n", w, h, plane,
                          data[i + 1], i, length);
                same = false;
                break;
            }
        CHECK(data[length - 1] != 0xFF);
    }
    free(data);
    free(out);
    return same;
}

static void round_trip_random_blocks(void)
{
    build_tables();
    static const uint32_t shapes[][2] = {{64, 64}, {1, 1},  {2, 2},   {3, 5},    {5, 3},
                                         {1, 64},  {64, 1}, {33, 17}, {1024, 4}, {4, 1024},
                                         {32, 128}, {7, 9}, {16, 16}, {63, 65}};
    int32_t *c = malloc(4096 * 2 * sizeof *c);
    REQUIRE(c != NULL);
    unsigned failures = 0;
    for (int round = 0; round < 300; round++) {
        const uint32_t *shape = shapes[round % (sizeof shapes / sizeof shapes[0])];
        uint32_t w = shape[0], h = shape[1];
        if (w * h > 4096)
            continue;
        if (round % 3 == 2 && w > 1) /* odd shapes besides the table */
            w = (uint32_t)test_random_range(1, w);
        size_t stride = w + (size_t)test_random_range(0, 3);
        unsigned bits = (unsigned)test_random_range(1, round % 5 == 0 ? 30 : 16);
        unsigned density = (unsigned)test_random_range(0, 16);
        random_block(c, stride, w, h, density, bits);
        unsigned plane = (unsigned)test_random_range(0, bits - 1);
        if (!round_trip(c, stride, w, h, plane) && ++failures > 5)
            break;
    }
    CHECK_EQ(failures, 0);
    free(c);
}

/* Every plane of one block: plane 0 is lossless. */
static void every_plane(void)
{
    build_tables();
    int32_t c[37 * 29];
    random_block(c, 37, 37, 29, 12, 20);
    for (unsigned plane = 0; plane < 20; plane++)
        CHECK(round_trip(c, 37, 37, 29, plane));
}

/* Long runs and the first row's pairs: an empty block, a single sample, a
 * dense first row of large values (U-VLC's extension), a checkerboard. */
static void structured_blocks(void)
{
    build_tables();
    int32_t c[64 * 64];
    memset(c, 0, sizeof c);
    CHECK(round_trip(c, 64, 64, 64, 0));
    c[64 * 63 + 63] = -1;
    CHECK(round_trip(c, 64, 64, 64, 0));
    for (int x = 0; x < 64; x++)
        c[x] = (x & 1 ? -1 : 1) * (int32_t)(0x3FFFFFFF >> (x % 7));
    CHECK(round_trip(c, 64, 64, 64, 0));
    CHECK(round_trip(c, 64, 64, 64, 3));
    for (int i = 0; i < 64 * 64; i++)
        c[i] = ((i / 64 + i) & 1) ? 3 : 0;
    CHECK(round_trip(c, 64, 64, 64, 0));
    CHECK(round_trip(c, 64, 64, 64, 1));
}

/* Each choice decoded (cleanup, and refinement segment when there is one)
 * and reconstructed at the middle of what is known: its squared error is
 * the block's energy less the reductions up to it. */
static void choices_decode_as_promised(void)
{
    build_tables();
    int32_t c[64 * 64], out[64 * 64];
    uint8_t low[64 * 64];
    for (int round = 0; round < 12; round++) {
        uint32_t w = (uint32_t)test_random_range(1, 64), h = (uint32_t)test_random_range(1, 64);
        random_block(c, w, w, h, (unsigned)test_random_range(1, 16),
                     (unsigned)test_random_range(2, 14));
        ht_encoded_block e;
        REQUIRE(ht_encode_block(c, NULL, w, w, h, 0, TIER1_MAX_PLANES, true, round % 2 == 1,
                                &tables, &e) == GJ2K_OK);
        double energy = 0.0;
        for (size_t i = 0; i < (size_t)w * h; i++)
            energy += (double)c[i] * c[i];
        unsigned refined = 0;
        for (unsigned j = 0; j < e.num_choices; j++) {
            energy -= e.distortion_reduction[j];
            tier1_segment segments[2] = {{e.lengths[j], 1}, {e.refinements[j], 2}};
            tier1_decode_request r = {.data = e.data + e.offsets[j],
                                      .size = e.lengths[j] + e.refinements[j],
                                      .segments = segments,
                                      .num_segments = e.refinements[j] ? 2u : 1u,
                                      .num_planes = e.planes[j] + 1u, .width = w, .height = h,
                                      .style = TIER1_STYLE_HT |
                                               (round % 2 ? TIER1_STYLE_VERTICALLY_CAUSAL : 0u)};
            tier1_decode_result result;
            CHECK(ht_decode_block(&r, &lookup, out, w, low, &result) == GJ2K_OK);
            double error = 0.0;
            for (size_t i = 0; i < (size_t)w * h; i++) {
                double a = abs(c[i]), v = 0.0;
                if (out[i] != 0)
                    v = abs(out[i]) + (low[i] ? (double)(1u << (low[i] - 1)) : 0.0);
                error += (a - v) * (a - v);
            }
            CHECK(fabs(error - energy) <= 1e-6 * (1.0 + error));
            refined += e.refinements[j] != 0;
        }
        CHECK(e.num_planes < 2 || refined > 0);
        ht_encoded_block_release(&e);
    }
}

static void bad_arguments(void)
{
    build_tables();
    int32_t c[16] = {0};
    uint8_t out[256];
    size_t length = 1;
    CHECK_EQ(ht_encode_cleanup(c, 4, 0, 4, 0, &tables, out, sizeof out, &length),
             GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(length, 0);
    CHECK_EQ(ht_encode_cleanup(c, 3, 4, 4, 0, &tables, out, sizeof out, &length),
             GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK_EQ(ht_encode_cleanup(c, 4, 4, 4, 31, &tables, out, sizeof out, &length),
             GJ2K_ERROR_INVALID_ARGUMENT);
    c[5] = 1;
    CHECK_EQ(ht_encode_cleanup(c, 4, 4, 4, 0, &tables, out, 2, &length), GJ2K_ERROR_LIMIT);
}

static const test_case cases[] = {
    {"round_trip_random_blocks", round_trip_random_blocks},
    {"every_plane", every_plane},
    {"structured_blocks", structured_blocks},
    {"choices_decode_as_promised", choices_decode_as_promised},
    {"bad_arguments", bad_arguments},
};
TEST_MAIN(cases)
