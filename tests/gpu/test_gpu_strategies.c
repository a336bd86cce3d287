/* test_gpu_strategies.c - every GPU DWT strategy of the lab
 * (gpu_strategies.h) against the CPU reference (dwt.h) on fresh random
 * planes of odd sizes and origins, 0 to 7 levels, both wavelets, forward
 * and inverse, every device buffer poisoned first: the same bits from every
 * strategy that says it is exact, the 9/7 convolution within 1e-4 of the
 * plane's largest value. Skips (exit 77) without a usable GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwt.h"
#include "gpu_strategies.h"
#include "gpu_test_support.h"
#include "test_harness.h"

#define CAPACITY ((size_t)400 * 400)

static gpu_dwt_lab *open_lab(void)
{
    gpu_dwt_lab *lab = NULL;
    gj2k_error error = {0};
    if (gpu_dwt_lab_create(&lab, CAPACITY, &error) != GJ2K_OK) {
        gpu_dwt_lab_destroy(lab);
        test_skip(error.message);
    }
    return lab;
}

static size_t area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* Compares n elements of the lab's output with the reference's. */
static bool same(const void *got, const void *want, size_t n, bool reversible, bool exact,
                 const char *what, gpu_dwt_strategy s, dwt_rect r, unsigned levels)
{
    if (exact) {
        if (memcmp(got, want, n * 4) == 0)
            return true;
    } else {
        const float *g = got, *w = want;
        float largest = 0;
        for (size_t i = 0; i < n; i++)
            largest = fmaxf(largest, fabsf(w[i]));
        bool ok = true;
        for (size_t i = 0; i < n && ok; i++)
            ok = fabsf(g[i] - w[i]) <= 1e-4f * (largest + 1.0f);
        if (ok)
            return true;
    }
    fprintf(stderr, "%s %s (%s) differs: %ux%u at (%u,%u), %u levels\n", gpu_dwt_strategy_name(s),
            what, reversible ? "5/3" : "9/7", r.x1 - r.x0, r.y1 - r.y0, r.x0, r.y0, levels);
    return false;
}

static void run_cases(bool reversible)
{
    gpu_dwt_lab *lab = open_lab();
    gj2k_error error = {0};
    int32_t *input = xmalloc(CAPACITY * 4), *forward = xmalloc(CAPACITY * 4);
    int32_t *inverse = xmalloc(CAPACITY * 4), *got = xmalloc(CAPACITY * 4);
    for (int c = 0; c < gpu_test_case_count(40); c++) {
        dwt_rect r = gpu_test_random_rect();
        size_t n = area(r), stride = r.x1 - r.x0;
        unsigned levels = (unsigned)test_random_range(0, 7);
        /* 8-bit samples (the 5/3's 32-bit sums) or wide ones */
        bool narrow = test_random_range(0, 1) == 0;
        unsigned precision = narrow ? 8 : 32;
        for (size_t i = 0; i < n; i++) {
            int64_t v = narrow ? test_random_range(-128, 127) : test_random_range(-(1 << 26), 1 << 26);
            if (reversible) {
                input[i] = (int32_t)v;
            } else {
                float f = (float)test_random_range(-128000, 127000) / 1000.0f;
                memcpy(&input[i], &f, 4);
            }
        }
        memcpy(forward, input, n * 4);
        if (reversible)
            REQUIRE(dwt_forward_53(forward, stride, r, levels) == GJ2K_OK);
        else
            REQUIRE(dwt_forward_97((float *)forward, stride, r, levels) == GJ2K_OK);
        memcpy(inverse, forward, n * 4);
        if (reversible)
            REQUIRE(dwt_inverse_53(inverse, stride, r, levels) == GJ2K_OK);
        else
            REQUIRE(dwt_inverse_97_interop((float *)inverse, stride, r, levels) == GJ2K_OK);
        for (int s = 0; s < GPU_DWT_STRATEGIES; s++) {
            bool exact = gpu_dwt_strategy_exact((gpu_dwt_strategy)s, reversible);
            REQUIRE(gpu_dwt_lab_poison(lab, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_put(lab, GPU_DWT_SAMPLES, input, r, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_run(lab, (gpu_dwt_strategy)s, reversible, true, r, levels, precision,
                                    NULL, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_get(lab, GPU_DWT_BANDS, got, r, &error) == GJ2K_OK);
            CHECK(same(got, forward, n, reversible, exact, "forward", (gpu_dwt_strategy)s, r, levels));
            REQUIRE(gpu_dwt_lab_poison(lab, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_put(lab, GPU_DWT_BANDS, forward, r, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_run(lab, (gpu_dwt_strategy)s, reversible, false, r, levels, precision,
                                    NULL, &error) == GJ2K_OK);
            REQUIRE(gpu_dwt_lab_get(lab, GPU_DWT_BACK, got, r, &error) == GJ2K_OK);
            CHECK(same(got, inverse, n, reversible, exact, "inverse", (gpu_dwt_strategy)s, r, levels));
        }
    }
    free(input);
    free(forward);
    free(inverse);
    free(got);
    gpu_dwt_lab_destroy(lab);
}

static void strategies_match_cpu_53(void) { run_cases(true); }
static void strategies_match_cpu_97(void) { run_cases(false); }

/* The lab's own comparison finds a changed element and its size. */
static void lab_compare_counts(void)
{
    gpu_dwt_lab *lab = open_lab();
    gj2k_error error = {0};
    dwt_rect r = {3, 1, 120, 77};
    size_t n = area(r);
    int32_t *samples = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++)
        samples[i] = (int32_t)test_random_range(-100, 100);
    REQUIRE(gpu_dwt_lab_put(lab, GPU_DWT_SAMPLES, samples, r, &error) == GJ2K_OK);
    REQUIRE(gpu_dwt_lab_run(lab, GPU_DWT_REGISTER, true, true, r, 3, 8, NULL, &error) == GJ2K_OK);
    REQUIRE(gpu_dwt_lab_keep(lab, true, r, &error) == GJ2K_OK);
    REQUIRE(gpu_dwt_lab_run(lab, GPU_DWT_BLOCK, true, true, r, 3, 8, NULL, &error) == GJ2K_OK);
    uint64_t differ = 9;
    double largest = -1;
    REQUIRE(gpu_dwt_lab_compare(lab, true, true, r, &differ, &largest, &error) == GJ2K_OK);
    CHECK_EQ(differ, 0);
    CHECK(largest == 0);
    REQUIRE(gpu_dwt_lab_get(lab, GPU_DWT_BANDS, samples, r, &error) == GJ2K_OK);
    samples[17] += 5;
    REQUIRE(gpu_dwt_lab_put(lab, GPU_DWT_BANDS, samples, r, &error) == GJ2K_OK);
    REQUIRE(gpu_dwt_lab_compare(lab, true, true, r, &differ, &largest, &error) == GJ2K_OK);
    CHECK_EQ(differ, 1);
    CHECK(largest == 5.0);
    free(samples);
    gpu_dwt_lab_destroy(lab);
}

static const test_case cases[] = {
    {"strategies_match_cpu_53", strategies_match_cpu_53},
    {"strategies_match_cpu_97", strategies_match_cpu_97},
    {"lab_compare_counts", lab_compare_counts},
};
TEST_MAIN(cases)
