/* test_stream_memory.c - common/stream_memory.cuh on the GPU (through
 * stream_memory_probe.cu): copies through a coder's two page-locked halves
 * come back as sent for sizes around the half's size (1 MiB), on one stream
 * or two, with the staging kept or released between copies, and write
 * nothing past their ends; ranked streams take the priorities their ranks
 * ask. Every case skips without a usable GPU. */
#include <stdio.h>

#include "stream_memory_probe.h"
#include "test_harness.h"

enum { HALF = 1 << 20 };

static void need_gpu(void)
{
    if (!stream_memory_probe_has_gpu())
        test_skip("no usable GPU");
}

/* Sizes around the half's edges, and one odd one drawn fresh each run. */
static void round_trips(bool two_streams, bool release_between)
{
    need_gpu();
    size_t sizes[] = {0, 1, 3, 4095, HALF - 1, HALF, HALF + 1, 2 * HALF, 3 * HALF + HALF / 2 + 7,
                      (size_t)test_random_range(1, 5 * HALF)};
    char why[256] = "";
    bool ok = stream_memory_round_trip(sizes, sizeof sizes / sizeof sizes[0], test_random(),
                                       two_streams, release_between, why, sizeof why);
    if (!ok)
        printf("%s\n", why);
    CHECK(ok);
}

static void test_round_trip_one_stream(void) { round_trips(false, false); }
static void test_round_trip_two_streams(void) { round_trips(true, false); }
static void test_released_and_made_again(void) { round_trips(true, true); }

static void test_ranked_priorities(void)
{
    need_gpu();
    char why[256] = "";
    bool ok = stream_memory_ranked_priorities(20, why, sizeof why);
    if (!ok)
        printf("%s\n", why);
    CHECK(ok);
}

static const test_case cases[] = {
    {"round_trip_one_stream", test_round_trip_one_stream},
    {"round_trip_two_streams", test_round_trip_two_streams},
    {"released_and_made_again", test_released_and_made_again},
    {"ranked_priorities", test_ranked_priorities},
};

TEST_MAIN(cases)
