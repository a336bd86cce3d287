/* bench_dwt_cpu.c - see bench_dwt_cpu.h. For each side and wavelet, the
 * forward and inverse transform of one plane of 8-bit-like samples (5
 * levels) by each vertical method on one thread and on the pool, the best
 * of `repeats`; every result must equal the first method's on one thread. */
#include "bench_dwt_cpu.h"
#include "bench_dwt_strategies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "dwt.h"
#include "options.h"
#include "parallel_pool.h"

#define LEVELS 5

/* Best time of `repeats` transforms of `source` into `out`; < 0 on failure. */
static double time_transform(parallel_pool *pool, dwt_vertical vertical, const int32_t *source,
                             int32_t *out, uint32_t n, bool reversible, bool forward,
                             unsigned repeats)
{
    dwt_rect tile = {0, 0, n, n};
    double best = 1e30;
    for (unsigned r = 0; r < repeats; r++) {
        memcpy(out, source, (size_t)n * n * 4);
        double start = now_seconds();
        if (dwt_transform_2d(pool, vertical, out, n, tile, LEVELS, reversible, forward, true) != GJ2K_OK)
            return -1;
        double elapsed = now_seconds() - start;
        best = elapsed < best ? elapsed : best;
    }
    return best;
}

int bench_dwt_cpu(uint32_t smallest, uint32_t largest, unsigned repeats, unsigned threads)
{
    parallel_pool *pool = NULL;
    if (parallel_pool_create(threads, &pool, NULL) != GJ2K_OK) {
        report_error("bench dwt: no worker pool");
        return 1;
    }
    size_t most = (size_t)largest * largest;
    int32_t *source = malloc(most * 4), *want = malloc(most * 4), *got = malloc(most * 4);
    if (!source || !want || !got) {
        free(source), free(want), free(got);
        parallel_pool_destroy(pool);
        report_error("bench dwt: out of memory for a %ux%u plane", largest, largest);
        return 1;
    }
    unsigned workers = parallel_pool_size(pool);
    printf("gj2k bench dwt --cpu: %d levels, one plane, best of %u; vertical pass by strips of %d "
           "columns lifted across rows, or by batches of columns filtered as lines; one thread and "
           "%u; every result the same bits as lines on one thread\n",
           LEVELS, repeats, 64, workers);
    printf("| size | wavelet | direction | lines, 1 thread | strips, 1 thread | lines, %u | "
           "strips, %u | strips: %u against 1 | strips %u against lines 1 |\n", workers, workers,
           workers, workers);
    printf("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    int code = 0;
    for (uint32_t n = smallest; n <= largest && code == 0; n *= 2) {
        for (int k = 0; k < 4 && code == 0; k++) {
            bool reversible = k < 2, forward = k % 2 == 0;
            bench_dwt_fill_plane(source, n, reversible);
            if (!forward) { /* the inverse takes coefficients: the forward's */
                dwt_rect tile = {0, 0, n, n};
                if (dwt_transform_2d(pool, DWT_VERTICAL_STRIPS, source, n, tile, LEVELS, reversible,
                                     true, true) != GJ2K_OK)
                    code = 1;
            }
            double ms[4];
            for (int m = 0; m < 4 && code == 0; m++) {
                dwt_vertical vertical = m % 2 ? DWT_VERTICAL_STRIPS : DWT_VERTICAL_LINES;
                ms[m] = time_transform(m < 2 ? NULL : pool, vertical, source, m == 0 ? want : got, n,
                                       reversible, forward, repeats) * 1e3;
                if (ms[m] < 0 || (m > 0 && memcmp(want, got, (size_t)n * n * 4) != 0)) {
                    report_error("bench dwt: %s %s at %u²: %s", reversible ? "5/3" : "9/7",
                                 forward ? "forward" : "inverse", n,
                                 ms[m] < 0 ? "out of memory" : "DIFFERENT BITS");
                    code = 1;
                }
            }
            if (code == 0)
                printf("| %u² | %s | %s | %.2f ms | %.2f ms (%.2fx) | %.2f ms | %.2f ms | %.1fx | "
                       "%.1fx |\n", n, reversible ? "5/3" : "9/7", forward ? "forward" : "inverse",
                       ms[0], ms[1], ms[0] / ms[1], ms[2], ms[3], ms[1] / ms[3], ms[0] / ms[3]);
            fflush(stdout);
        }
    }
    free(source), free(want), free(got);
    parallel_pool_destroy(pool);
    return code;
}
