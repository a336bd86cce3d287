/* test_gpu_dwt_model.c - the GPU DWT strategies' launch shapes and time
 * model (dwt/gpu_dwt_model.h), host code only: every launch covers its
 * level, the terms grow with the work, and the fit gives back the
 * constants that made a set of times. */
#include <math.h>
#include <string.h>

#include "gpu_dwt_model.h"
#include "test_harness.h"

static gpu_dwt_device h100_like(void)
{
    gpu_dwt_device d;
    memset(&d, 0, sizeof d);
    d.sm_count = 132;
    d.clock_ghz = 1.98;
    d.copy_gbps = 2600;
    d.launch_us = 2.0;
    d.l2_bytes = 50.0 * 1048576;
    d.copy2d_us = 3;
    d.copy2d_gbps = 1500;
    d.copy2d_cached_gbps = 3000;
    d.max_threads_per_sm = 2048;
    return d;
}

static void names_parse_back(void)
{
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++) {
        gpu_dwt_strategy back;
        CHECK(gpu_dwt_strategy_parse(gpu_dwt_strategy_name((gpu_dwt_strategy)s), &back));
        CHECK_EQ(back, s);
        CHECK(gpu_dwt_strategy_exact((gpu_dwt_strategy)s, true));
    }
    gpu_dwt_strategy unused;
    CHECK(!gpu_dwt_strategy_parse("fastest", &unused));
    CHECK(!gpu_dwt_strategy_exact(GPU_DWT_CONVOLUTION, false));
    CHECK(gpu_dwt_strategy_exact(GPU_DWT_POLYCONVOLUTION, false));
}

/* The kernels' blocks cover every position of random areas. */
static void launches_cover_the_level(void)
{
    for (int i = 0; i < 500; i++) {
        uint32_t x0 = (uint32_t)test_random_range(0, 9), y0 = (uint32_t)test_random_range(0, 9);
        dwt_rect a = {x0, y0, x0 + (uint32_t)test_random_range(1, 20000),
                      y0 + (uint32_t)test_random_range(1, 20000)};
        uint64_t cols = a.x1 - (a.x0 & ~1u), rows = a.y1 - (a.y0 & ~1u);
        for (int s = 0; s < GPU_DWT_STRATEGIES; s++)
            for (int rev = 0; rev < 2; rev++)
                for (int fwd = 0; fwd < 2; fwd++) {
                    gpu_dwt_launch l = gpu_dwt_launch_shape((gpu_dwt_strategy)s, rev, fwd, a, 132);
                    CHECK(l.kernels >= 1 && l.kernels <= GPU_DWT_MAX_KERNELS);
                    for (unsigned k = 0; k < l.kernels; k++) {
                        const gpu_dwt_kernel *g = &l.kernel[k];
                        CHECK(g->grid_x >= 1 && g->grid_y >= 1 && g->grid_y <= 65535);
                        CHECK(g->threads == 128 || g->threads == 256);
                        CHECK(g->read_elements > 0 && g->loads_per_position >= 1);
                    }
                    if (s == GPU_DWT_REGISTER) { /* 4 warps of 64 - 2 halo columns, `rows` rows */
                        const gpu_dwt_kernel *g = &l.kernel[0];
                        unsigned halo = rev ? 2 : 4;
                        CHECK((uint64_t)g->grid_x * 4 * (64 - 2 * halo) >= cols);
                        CHECK((uint64_t)g->grid_y * g->rows >= rows);
                        CHECK(g->rows >= 8 && (g->rows & (g->rows - 1)) == 0);
                    }
                    if (s == GPU_DWT_BLOCK) {
                        CHECK((uint64_t)l.kernel[0].grid_x * 64 >= cols);
                        CHECK((uint64_t)l.kernel[0].grid_y * 32 >= rows);
                    }
                    if (s == GPU_DWT_POLYCONVOLUTION) {
                        CHECK((uint64_t)l.kernel[0].grid_x * 128 * 2 >= cols);
                        CHECK((uint64_t)l.kernel[0].grid_y * 2 >= rows);
                    }
                    if (s == GPU_DWT_CONVOLUTION)
                        CHECK((uint64_t)l.kernel[0].grid_x * 256 >= a.x1 - a.x0 &&
                              l.kernel[0].grid_y == a.y1 - a.y0);
                }
    }
}

static double traffic(const gpu_dwt_terms *t)
{
    double s = 0;
    for (unsigned k = 0; k < t->kernels; k++)
        s += t->memory_s[k] + t->cached_s[k];
    return s;
}

/* More samples, more levels: more of every term; launches counted. */
static void terms_follow_the_work(void)
{
    gpu_dwt_device d = h100_like();
    static gpu_dwt_terms t, back, one, six;
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++) {
        unsigned kernels = s == GPU_DWT_SEPARABLE || s == GPU_DWT_CONVOLUTION ? 2 : 1;
        double last = 0;
        for (uint32_t n = 256; n <= 16384; n *= 2) {
            gpu_dwt_model_terms(&d, (gpu_dwt_strategy)s, true, true, (dwt_rect){0, 0, n, n}, 5, &t);
            CHECK(traffic(&t) > last);
            last = traffic(&t);
            /* the first level's data outgrow the L2 cache, or not */
            CHECK((t.memory_s[0] > 0) == ((double)n * n * 8 > d.l2_bytes));
            CHECK(t.work_s[0] > 0);
            CHECK(t.kernels == 5 * kernels && t.launches == 5 * kernels + 1 && t.fixed_s > 0);
            gpu_dwt_model_terms(&d, (gpu_dwt_strategy)s, true, false, (dwt_rect){0, 0, n, n}, 5, &back);
            CHECK(back.launches == 5 * kernels && back.fixed_s == 0);
        }
        gpu_dwt_model_terms(&d, (gpu_dwt_strategy)s, false, true, (dwt_rect){0, 0, 4096, 4096}, 1, &one);
        gpu_dwt_model_terms(&d, (gpu_dwt_strategy)s, false, true, (dwt_rect){0, 0, 4096, 4096}, 6, &six);
        CHECK(traffic(&six) > traffic(&one) && six.launches > one.launches);
    }
    /* a level of one sample still counts */
    gpu_dwt_model_terms(&d, GPU_DWT_BLOCK, true, true, (dwt_rect){0, 0, 1, 1}, 3, &t);
    CHECK(t.launches >= 2);
    /* the roofline: a slower memory never makes a kernel faster, a faster one never slower */
    gpu_dwt_calibration c = {GPU_DWT_REGISTER, true, true, 1.0, 0.5, 0.2};
    gpu_dwt_device slow = d;
    slow.copy_gbps = d.copy_gbps / 2;
    gpu_dwt_model_terms(&d, GPU_DWT_REGISTER, true, true, (dwt_rect){0, 0, 8192, 8192}, 5, &t);
    gpu_dwt_model_terms(&slow, GPU_DWT_REGISTER, true, true, (dwt_rect){0, 0, 8192, 8192}, 5, &back);
    CHECK(gpu_dwt_model_time(&slow, &back, &c) >= gpu_dwt_model_time(&d, &t, &c));
}

/* Times made from known constants (with a little noise) fit back to them. */
static void fit_recovers_constants(void)
{
    gpu_dwt_device d = h100_like();
    gpu_dwt_calibration truth = {GPU_DWT_BLOCK, true, true, 3.5, 0.8, 2.5};
    static gpu_dwt_terms terms[30];
    const gpu_dwt_terms *pointers[30];
    double ms[30];
    size_t n = 0;
    for (uint32_t side = 1024; side <= 16384; side *= 2)
        for (unsigned levels = 1; levels <= 6; levels++) {
            gpu_dwt_model_terms(&d, GPU_DWT_BLOCK, true, true, (dwt_rect){0, 0, side, side}, levels,
                                &terms[n]);
            pointers[n] = &terms[n];
            double noise = 1.0 + 0.002 * (double)test_random_range(-1, 1);
            ms[n] = gpu_dwt_model_time(&d, &terms[n], &truth) * noise;
            n++;
        }
    gpu_dwt_calibration fit = {GPU_DWT_BLOCK, true, true, 0, 0, 0};
    REQUIRE(gpu_dwt_model_fit(&d, pointers, ms, n, &fit));
    CHECK(fabs(fit.work_factor - truth.work_factor) / truth.work_factor < 0.05);
    for (size_t i = 0; i < n; i++)
        CHECK(fabs(gpu_dwt_model_time(&d, &terms[i], &fit) - ms[i]) / ms[i] < 0.02);
    /* nothing to fit from */
    CHECK(!gpu_dwt_model_fit(&d, pointers, ms, 2, &fit));
    double bad[3] = {1, 0, 1};
    CHECK(!gpu_dwt_model_fit(&d, pointers, bad, 3, &fit));
    CHECK(gpu_dwt_calibration_find(&truth, 1, GPU_DWT_BLOCK, true, true) == &truth);
    CHECK(gpu_dwt_calibration_find(&truth, 1, GPU_DWT_BLOCK, true, false) == NULL);
}

/* The calibration table covers every strategy, wavelet and direction once. */
static void calibration_covers_every_case(void)
{
    CHECK(gpu_dwt_calibrated_count == GPU_DWT_STRATEGIES * 4);
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++)
        for (int rev = 0; rev < 2; rev++)
            for (int fwd = 0; fwd < 2; fwd++) {
                const gpu_dwt_calibration *c = gpu_dwt_calibration_find(
                    gpu_dwt_calibrated, gpu_dwt_calibrated_count, (gpu_dwt_strategy)s, rev, fwd);
                REQUIRE(c != NULL);
                CHECK(c->cached_factor >= 0 && c->work_factor >= 0 && c->overhead_us > -20);
            }
}

static const test_case cases[] = {
    {"names_parse_back", names_parse_back},
    {"launches_cover_the_level", launches_cover_the_level},
    {"terms_follow_the_work", terms_follow_the_work},
    {"fit_recovers_constants", fit_recovers_constants},
    {"calibration_covers_every_case", calibration_covers_every_case},
};
TEST_MAIN(cases)
