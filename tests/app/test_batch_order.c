/* test_batch_order.c - the order a batch takes its files in
 * (app/batch/batch_order.c, built into the test): largest first, the first
 * wave spread over the sizes, the list's own (by path); every file once whatever the
 * sizes and the wave; the names parsed. */
#include <stdio.h>
#include <stdlib.h>

#include "batch_order.h"
#include "test_harness.h"

static bool same_order(const size_t *got, const size_t *expected, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (got[i] != expected[i]) {
            fprintf(stderr, "position %zu: %zu, expected %zu\n", i, got[i], expected[i]);
            return false;
        }
    return true;
}

/* Largest first; equal sizes keep the list's order. */
static void test_largest_first(void)
{
    static const uint64_t bytes[] = {5, 9, 1, 9, 3};
    static const size_t expected[] = {1, 3, 0, 4, 2};
    size_t order[5];
    REQUIRE(batch_order_files(bytes, 5, 2, BATCH_ORDER_SIZE, order));
    CHECK(same_order(order, expected, 5));
}

/* The first wave at positions 0, 3, 6 of the sizes sorted (7 files, 3 at
 * once), then the rest largest first; a wave of one, or of all the files,
 * is largest first. */
static void test_spread_first_wave(void)
{
    static const uint64_t bytes[] = {30, 70, 10, 50, 60, 20, 40};
    /* sorted: 70 (1), 60 (4), 50 (3), 40 (6), 30 (0), 20 (5), 10 (2) */
    static const size_t spread[] = {1, 6, 2, 4, 3, 0, 5};
    static const size_t largest[] = {1, 4, 3, 6, 0, 5, 2};
    size_t order[7];
    REQUIRE(batch_order_files(bytes, 7, 3, BATCH_ORDER_SPREAD, order));
    CHECK(same_order(order, spread, 7));
    REQUIRE(batch_order_files(bytes, 7, 1, BATCH_ORDER_SPREAD, order));
    CHECK(same_order(order, largest, 7));
    REQUIRE(batch_order_files(bytes, 7, 7, BATCH_ORDER_SPREAD, order));
    CHECK(same_order(order, largest, 7));
    REQUIRE(batch_order_files(bytes, 7, 40, BATCH_ORDER_SPREAD, order));
    CHECK(same_order(order, largest, 7));
}

/* The list's order (by path), sizes aside. */
static void test_name_order(void)
{
    static const uint64_t bytes[] = {1, 9, 5};
    static const size_t expected[] = {0, 1, 2};
    size_t order[3];
    REQUIRE(batch_order_files(bytes, 3, 2, BATCH_ORDER_NAME, order));
    CHECK(same_order(order, expected, 3));
}

/* Every policy over random sizes and waves: each file exactly once. */
static void test_every_file_once(void)
{
    for (int round = 0; round < 200; round++) {
        size_t count = (size_t)test_random_range(0, 300);
        size_t wave = (size_t)test_random_range(0, 320);
        batch_order_policy policy = (batch_order_policy)test_random_range(0, 2);
        uint64_t *bytes = malloc((count + 1) * sizeof *bytes);
        size_t *order = malloc((count + 1) * sizeof *order);
        unsigned char *seen = calloc(count + 1, 1);
        REQUIRE(bytes != NULL && order != NULL && seen != NULL);
        for (size_t i = 0; i < count; i++)
            bytes[i] = (uint64_t)test_random_range(0, 20); /* many equal sizes */
        REQUIRE(batch_order_files(bytes, count, wave, policy, order));
        bool once = true;
        for (size_t i = 0; i < count; i++) {
            once = once && order[i] < count && !seen[order[i]];
            if (order[i] < count)
                seen[order[i]] = 1;
        }
        if (!once)
            fprintf(stderr, "%zu files, a wave of %zu, policy %d: not each once\n", count, wave,
                    (int)policy);
        CHECK(once);
        free(bytes);
        free(order);
        free(seen);
    }
}

static void test_names(void)
{
    batch_order_policy p = BATCH_ORDER_NAME;
    CHECK(batch_order_parse("size", &p) && p == BATCH_ORDER_SIZE);
    CHECK(batch_order_parse("spread", &p) && p == BATCH_ORDER_SPREAD);
    CHECK(batch_order_parse("name", &p) && p == BATCH_ORDER_NAME);
    CHECK(!batch_order_parse("largest", &p));
    CHECK(!batch_order_parse("", &p));
    CHECK(!batch_order_parse(NULL, &p));
    /* settings left zero (batch_run.h) take spread: the measured default */
    batch_order_policy zero = (batch_order_policy)0;
    CHECK(zero == BATCH_ORDER_SPREAD);
}

static const test_case cases[] = {
    {"largest_first", test_largest_first},
    {"spread_first_wave", test_spread_first_wave},
    {"name_order", test_name_order},
    {"every_file_once", test_every_file_once},
    {"names", test_names},
};

TEST_MAIN(cases)
