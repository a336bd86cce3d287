/* test_ht_plane_window.c - the HT encoder's plane estimates
 * (codec/encode/ht_plane_window.h): bytes fall and distortion rises plane by
 * plane, a zero slope sends the finest plane and a huge one nothing, the
 * threshold meets a byte or distortion budget on the estimates, and the
 * window holds the plane the threshold picks. */
#include <math.h>
#include <stdlib.h>

#include "ht_plane_window.h"
#include "test_harness.h"

static void random_block(int32_t *c, uint32_t n, unsigned bits)
{
    for (uint32_t i = 0; i < n; i++) {
        unsigned b = (unsigned)test_random_range(0, bits);
        int32_t v = b ? (int32_t)(test_random() & ((1u << b) - 1)) : 0;
        c[i] = test_random() & 1 ? -v : v;
    }
}

static void estimates_are_monotonic(void)
{
    int32_t c[64 * 64];
    for (int round = 0; round < 20; round++) {
        random_block(c, 64 * 64, (unsigned)test_random_range(1, 16));
        ht_block_estimate e;
        ht_estimate_block(c, NULL, 64, 64, 64, 1.0, &e);
        for (unsigned p = 1; p < e.num_planes; p++) {
            CHECK(e.bytes[p] <= e.bytes[p - 1]);
            CHECK(e.distortion[p] >= e.distortion[p - 1]);
        }
        if (e.num_planes > 0) {
            CHECK(e.distortion[e.num_planes - 1] <= e.energy);
            CHECK_EQ(ht_estimate_choice(&e, 0.0), 0);
            CHECK_EQ(ht_estimate_choice(&e, 1e30), HT_PLANE_NONE);
        }
    }
    int32_t zero[16] = {0};
    ht_block_estimate e;
    ht_estimate_block(zero, NULL, 4, 4, 4, 1.0, &e);
    CHECK_EQ(e.num_planes, 0);
    CHECK_EQ(ht_estimate_choice(&e, 1.0), HT_PLANE_NONE);
}

static void threshold_meets_budgets(void)
{
    enum { BLOCKS = 40 };
    ht_block_estimate *blocks = malloc(BLOCKS * sizeof *blocks);
    int32_t *c = malloc(32 * 32 * sizeof *c);
    REQUIRE(blocks != NULL && c != NULL);
    double all_bytes = 0.0, energy = 0.0;
    for (int i = 0; i < BLOCKS; i++) {
        random_block(c, 32 * 32, (unsigned)test_random_range(2, 12));
        ht_estimate_block(c, NULL, 32, 32, 32, 0.5 + i % 3, &blocks[i]);
        all_bytes += blocks[i].num_planes ? blocks[i].bytes[0] : 0.0;
        energy += blocks[i].energy;
    }
    for (int k = 1; k <= 3; k++) {
        double budget = all_bytes * k / 4.0, bytes = 0.0;
        double lambda = ht_estimate_threshold(blocks, BLOCKS, budget, 0.0);
        for (int i = 0; i < BLOCKS; i++) {
            unsigned p = ht_estimate_choice(&blocks[i], lambda);
            bytes += p == HT_PLANE_NONE ? 0.0 : blocks[i].bytes[p];
            unsigned lowest = 99, highest = 99;
            ht_plane_window(&blocks[i], lambda, &lowest, &highest);
            CHECK(lowest <= highest && highest < blocks[i].num_planes);
            if (p != HT_PLANE_NONE)
                CHECK(lowest <= p && p <= highest);
        }
        CHECK(bytes <= budget);
        CHECK(bytes > budget * 0.5); /* near it, not far below */
        double distortion = 0.0, allowed = energy / (10.0 * k);
        lambda = ht_estimate_threshold(blocks, BLOCKS, 0.0, allowed);
        for (int i = 0; i < BLOCKS; i++) {
            unsigned p = ht_estimate_choice(&blocks[i], lambda);
            distortion += p == HT_PLANE_NONE ? blocks[i].energy : blocks[i].distortion[p];
        }
        CHECK(distortion <= allowed);
    }
    free(blocks);
    free(c);
}

static const test_case cases[] = {
    {"estimates_are_monotonic", estimates_are_monotonic},
    {"threshold_meets_budgets", threshold_meets_budgets},
};
TEST_MAIN(cases)
