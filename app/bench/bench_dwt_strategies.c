/* bench_dwt_strategies.c - see bench_dwt_strategies.h.
 *
 * For each side from --min to --max (1024 .. 16384), both wavelets, each
 * level count, forward and inverse, every chosen strategy runs on the same
 * plane in device memory (the strategy lab, gpu_strategies.h); the best of
 * `repeats` kernel times counts. Each output is compared on the device with
 * the register strategy's, which the tests hold to the CPU reference. The
 * least bytes a transform moves: the plane in and out at 4 bytes a sample,
 * every intermediate LL written and read once. With a calibration
 * (gpu_dwt_calibrated.c, or --calibrate fitting one from this run) each row
 * gets the model's prediction and its error. */
#include "bench_dwt_strategies.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "gpu_dwt_model.h"
#include "gpu_strategies.h"
#include "options.h"

#define MAX_ROWS 4096

typedef struct measured {
    uint32_t n;
    unsigned levels;
    bool reversible, forward;
    gpu_dwt_strategy strategy;
    double ms;
    uint64_t differ;
    double largest;
    gpu_dwt_terms terms;
} measured;

static uint64_t ceil_shift(uint64_t v, unsigned k) { return (v + ((uint64_t)1 << k) - 1) >> k; }

static double least_bytes(uint32_t n, unsigned levels)
{
    double bytes = 2.0 * n * n * 4; /* the plane in, the bands out */
    for (unsigned level = 1; level < levels; level++) {
        double ll = (double)ceil_shift(n, level) * ceil_shift(n, level);
        bytes += 2 * ll * 4;
    }
    return bytes;
}

void bench_dwt_fill_plane(int32_t *plane, uint32_t n, bool reversible)
{
    uint64_t state = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int32_t v = (int32_t)(((i / n + i % n) / 16 + (state >> 59)) & 0xFF) - 128;
        if (reversible) {
            plane[i] = v;
        } else {
            float f = (float)v;
            memcpy(&plane[i], &f, 4);
        }
    }
}

/* Best of `repeats` runs of one case; its output compared with the kept one. */
static bool time_one(gpu_dwt_lab *lab, measured *m, unsigned repeats, bool compare)
{
    gj2k_error error = {0};
    dwt_rect tile = {0, 0, m->n, m->n};
    m->ms = 1e30;
    /* at least `repeats` runs, more for short ones (20 ms of runs, 30 at most):
     * the best of a few 10-us runs is noise */
    double total = 0;
    for (unsigned r = 0; r < repeats || (total < 20.0 && r < 30); r++) {
        double ms;
        if (!m->forward && gpu_dwt_lab_restore(lab, tile, &error) != GJ2K_OK)
            goto failed;
        if (gpu_dwt_lab_run(lab, m->strategy, m->reversible, m->forward, tile, m->levels, 8, &ms,
                            &error) != GJ2K_OK)
            goto failed;
        m->ms = ms < m->ms ? ms : m->ms;
        total += ms;
    }
    m->differ = 0;
    m->largest = 0;
    if (compare && gpu_dwt_lab_compare(lab, m->forward, m->reversible, tile, &m->differ,
                                       &m->largest, &error) != GJ2K_OK)
        goto failed;
    return true;
failed:
    report_error("bench dwt: %s", error.message);
    return false;
}

static void print_row(const measured *m, const measured *best, double copy_gbps,
                      const gpu_dwt_device *device, const gpu_dwt_calibration *table, size_t count)
{
    double bytes = least_bytes(m->n, m->levels), gbps = bytes / (m->ms * 1e6);
    const gpu_dwt_calibration *c =
        gpu_dwt_calibration_find(table, count, m->strategy, m->reversible, m->forward);
    char predicted[64] = "";
    if (c != NULL) {
        double p = gpu_dwt_model_time(device, &m->terms, c);
        snprintf(predicted, sizeof predicted, " %.3f | %+.1f%% |", p, 100.0 * (p - m->ms) / m->ms);
    } else {
        snprintf(predicted, sizeof predicted, " - | - |");
    }
    bool exact = m->differ == 0;
    printf("| %u² | %s | %s | %u | %s%s | %.3f | %.1f | %.0f | %.0f%% |%s %s |\n", m->n,
           m->reversible ? "5/3" : "9/7", m->forward ? "forward" : "inverse", m->levels,
           gpu_dwt_strategy_name(m->strategy), m == best ? " *" : "", m->ms, bytes / 1e6, gbps,
           100.0 * gbps / copy_gbps, predicted,
           exact ? "same bits"
                 : (gpu_dwt_strategy_exact(m->strategy, m->reversible) ? "DIFFERS" : "within 1e-4"));
}

/* Fits every strategy's constants from the rows; prints them as
 * gpu_dwt_calibrated.c takes them. */
static size_t calibrate(const measured *rows, size_t n, const gpu_dwt_device *device,
                        gpu_dwt_calibration *table)
{
    size_t count = 0;
    const gpu_dwt_terms **terms = malloc(n * sizeof *terms);
    double *ms = malloc(n * sizeof *ms);
    if (terms == NULL || ms == NULL) {
        free(terms);
        free(ms);
        return 0;
    }
    printf("\ncalibration (paste into dwt/gpu_dwt_calibrated.c; device: %d SMs, %.0f GB/s):\n",
           device->sm_count, device->copy_gbps);
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++)
        for (int rev = 1; rev >= 0; rev--)
            for (int fwd = 1; fwd >= 0; fwd--) {
                size_t k = 0;
                for (size_t i = 0; i < n; i++)
                    if ((int)rows[i].strategy == s && rows[i].reversible == rev &&
                        rows[i].forward == fwd) {
                        terms[k] = &rows[i].terms;
                        ms[k++] = rows[i].ms;
                    }
                gpu_dwt_calibration c = {(gpu_dwt_strategy)s, rev, fwd, 0, 0, 0};
                if (k < 3 || !gpu_dwt_model_fit(device, terms, ms, k, &c))
                    continue;
                table[count++] = c;
                static const char *const names[GPU_DWT_STRATEGIES] = {
                    "GPU_DWT_REGISTER", "GPU_DWT_BLOCK", "GPU_DWT_SEPARABLE", "GPU_DWT_CONVOLUTION",
                    "GPU_DWT_POLYCONVOLUTION"};
                printf("    {%s, %s, %s, %.4f, %.6g, %.6g},\n", names[s], rev ? "true" : "false",
                       fwd ? "true" : "false", c.overhead_us, c.cached_factor, c.work_factor);
            }
    free(terms);
    free(ms);
    return count;
}

/* Average and worst errors of the model over the rows, by strategy and all told. */
static void print_errors(const measured *rows, size_t n, const gpu_dwt_device *device,
                         const gpu_dwt_calibration *table, size_t count, const char *title)
{
    printf("\n%s\n| strategy | rows | average error | worst error |\n| --- | ---: | ---: | ---: |\n",
           title);
    double all_sum = 0, all_worst = 0;
    size_t all = 0;
    for (int s = 0; s <= GPU_DWT_STRATEGIES; s++) {
        double sum = 0, worst = 0;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (s < GPU_DWT_STRATEGIES && (int)rows[i].strategy != s)
                continue;
            const gpu_dwt_calibration *c = gpu_dwt_calibration_find(
                table, count, rows[i].strategy, rows[i].reversible, rows[i].forward);
            if (c == NULL)
                continue;
            double e = fabs(gpu_dwt_model_time(device, &rows[i].terms, c) - rows[i].ms) / rows[i].ms;
            sum += e;
            worst = e > worst ? e : worst;
            k++;
        }
        if (s == GPU_DWT_STRATEGIES) {
            all_sum = sum, all_worst = worst, all = k;
            break;
        }
        if (k > 0)
            printf("| %s | %zu | %.1f%% | %.1f%% |\n", gpu_dwt_strategy_name((gpu_dwt_strategy)s), k,
                   100 * sum / k, 100 * worst);
    }
    if (all > 0)
        printf("| all | %zu | %.1f%% | %.1f%% |\n", all, 100 * all_sum / all, 100 * all_worst);
    /* the model's pick against the measured winner, case by case */
    size_t cases = 0, agree = 0;
    double lost = 0;
    for (size_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && rows[end].n == rows[i].n && rows[end].levels == rows[i].levels &&
                          rows[end].reversible == rows[i].reversible &&
                          rows[end].forward == rows[i].forward;
             end++)
            ;
        double best_ms = INFINITY, best_p = INFINITY;
        size_t measured_best = i, picked = i;
        bool complete = end - i > 1;
        for (size_t j = i; j < end; j++) {
            const gpu_dwt_calibration *c = gpu_dwt_calibration_find(
                table, count, rows[j].strategy, rows[j].reversible, rows[j].forward);
            if (c == NULL || !gpu_dwt_strategy_exact(rows[j].strategy, rows[j].reversible)) {
                complete = complete && c != NULL;
                continue;
            }
            double p = gpu_dwt_model_time(device, &rows[j].terms, c);
            if (rows[j].ms < best_ms)
                best_ms = rows[j].ms, measured_best = j;
            if (p < best_p)
                best_p = p, picked = j;
        }
        if (!complete)
            continue;
        cases++;
        agree += picked == measured_best;
        lost += rows[picked].ms / best_ms - 1;
    }
    if (cases > 0)
        printf("the model picks the fastest exact strategy in %zu of %zu cases; its picks are %.1f%% "
               "slower than the best on average\n", agree, cases, 100 * lost / cases);
}

int bench_dwt_strategies(const char *which, const char *levels_text, uint32_t smallest,
                         uint32_t largest, unsigned repeats, bool calibrate_now)
{
    gpu_dwt_strategy only = GPU_DWT_REGISTER;
    bool all = strcmp(which, "all") == 0;
    if (!all && !gpu_dwt_strategy_parse(which, &only)) {
        report_error("bench dwt: unknown strategy \"%s\" (register, block, separable, "
                     "convolution, polyconvolution or all)", which);
        return EXIT_USAGE;
    }
    unsigned long first = 1, last = 6;
    if (levels_text != NULL) {
        char low[16] = "", high[16] = "";
        const char *dash = strchr(levels_text, '-');
        size_t length = dash ? (size_t)(dash - levels_text) : strlen(levels_text);
        if (length >= sizeof low || (dash && strlen(dash + 1) >= sizeof high)) {
            report_error("bench dwt: --levels takes N or A-B, 1..8");
            return EXIT_USAGE;
        }
        memcpy(low, levels_text, length);
        strcpy(high, dash ? dash + 1 : low);
        if (!options_parse_uint(low, 1, 8, &first) || !options_parse_uint(high, first, 8, &last)) {
            report_error("bench dwt: --levels takes N or A-B, 1..8");
            return EXIT_USAGE;
        }
    }
    gj2k_error error = {0};
    gpu_dwt_lab *lab = NULL;
    if (gpu_dwt_lab_create(&lab, (size_t)largest * largest, &error) != GJ2K_OK) {
        printf("gj2k bench dwt: no GPU strategy lab (%s)\n", error.message);
        gpu_dwt_lab_destroy(lab);
        return 0;
    }
    gpu_dwt_device device;
    if (gpu_dwt_lab_device(lab, &device, &error) != GJ2K_OK) {
        report_error("bench dwt: %s", error.message);
        gpu_dwt_lab_destroy(lab);
        return 1;
    }
    printf("gj2k bench dwt --strategy %s: %d SMs at %.2f GHz, %.0f MB of L2, device-to-device "
           "copy %.0f GB/s (read + write; 2-D into a wider buffer %.0f GB/s, %.0f GB/s in the L2 "
           "after %.1f us), "
           "a launch %.2f us; best of %u; least bytes: the plane in and out at 4 bytes a sample, "
           "each intermediate LL once each way; * marks each case's fastest exact strategy; "
           "model: %s\n",
           which, device.sm_count, device.clock_ghz, device.l2_bytes / 1048576, device.copy_gbps,
           device.copy2d_gbps, device.copy2d_cached_gbps, device.copy2d_us, device.launch_us, repeats,
           gpu_dwt_calibrated_count > 0 ? gpu_dwt_calibrated_on : "not calibrated");
    printf("resident blocks an SM (5/3 forward, inverse; 9/7 forward, inverse; a level's kernels):");
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++) {
        printf(" %s", gpu_dwt_strategy_name((gpu_dwt_strategy)s));
        for (int rev = 1; rev >= 0; rev--)
            for (int fwd = 1; fwd >= 0; fwd--)
                printf("%s%u/%u", rev && fwd ? " " : ",", device.blocks_per_sm[s][rev][fwd][0],
                       device.blocks_per_sm[s][rev][fwd][1]);
    }
    printf("\n");
    printf("| size | wavelet | direction | levels | strategy | kernel ms | least MB | GB/s | of copy | "
           "model ms | error | result |\n");
    printf("| ---: | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    measured *rows = calloc(MAX_ROWS, sizeof *rows);
    int32_t *plane = malloc((size_t)largest * largest * 4);
    int code = rows && plane ? 0 : 1;
    size_t n_rows = 0;
    for (uint32_t n = smallest; n <= largest && code == 0; n *= 2) {
        dwt_rect tile = {0, 0, n, n};
        for (int rev = 1; rev >= 0 && code == 0; rev--) {
            bench_dwt_fill_plane(plane, n, rev);
            if (gpu_dwt_lab_put(lab, GPU_DWT_SAMPLES, plane, tile, &error) != GJ2K_OK) {
                report_error("bench dwt: %s", error.message);
                code = 1;
                break;
            }
            for (unsigned levels = (unsigned)first; levels <= last && code == 0; levels++)
                for (int fwd = 1; fwd >= 0 && code == 0; fwd--) {
                    /* the register strategy first: the reference kept on the device */
                    measured reference = {n, levels, rev, fwd, GPU_DWT_REGISTER, 0, 0, 0, {0}};
                    if (fwd) {
                        if (!time_one(lab, &reference, 1, false) ||
                            gpu_dwt_lab_keep(lab, true, tile, &error) != GJ2K_OK)
                            code = 1;
                    } else if (!time_one(lab, &reference, 1, false) ||
                               gpu_dwt_lab_keep(lab, false, tile, &error) != GJ2K_OK) {
                        code = 1;
                    }
                    size_t group = n_rows;
                    for (int s = 0; s < GPU_DWT_STRATEGIES && code == 0 && n_rows < MAX_ROWS; s++) {
                        if (!all && s != (int)only)
                            continue;
                        measured *m = &rows[n_rows];
                        *m = (measured){n, levels, rev, fwd, (gpu_dwt_strategy)s, 0, 0, 0, {0}};
                        if (!time_one(lab, m, repeats, true)) {
                            code = 1;
                            break;
                        }
                        gpu_dwt_model_terms(&device, m->strategy, m->reversible, m->forward, tile,
                                            m->levels, &m->terms);
                        n_rows++;
                    }
                    const measured *best = NULL;
                    for (size_t i = group; i < n_rows; i++)
                        if (gpu_dwt_strategy_exact(rows[i].strategy, rows[i].reversible) &&
                            (best == NULL || rows[i].ms < best->ms))
                            best = &rows[i];
                    for (size_t i = group; i < n_rows; i++) {
                        print_row(&rows[i], best, device.copy_gbps, &device, gpu_dwt_calibrated,
                                  gpu_dwt_calibrated_count);
                        if (rows[i].differ != 0 && gpu_dwt_strategy_exact(rows[i].strategy, rows[i].reversible))
                            code = 1;
                    }
                    fflush(stdout);
                }
        }
    }
    if (code == 0 && gpu_dwt_calibrated_count > 0) {
        double start = now_seconds();
        volatile double sink = 0;
        for (size_t i = 0; i < n_rows; i++) {
            gpu_dwt_terms t;
            gpu_dwt_model_terms(&device, rows[i].strategy, rows[i].reversible, rows[i].forward,
                                (dwt_rect){0, 0, rows[i].n, rows[i].n}, rows[i].levels, &t);
            const gpu_dwt_calibration *c = gpu_dwt_calibration_find(
                gpu_dwt_calibrated, gpu_dwt_calibrated_count, rows[i].strategy, rows[i].reversible,
                rows[i].forward);
            if (c != NULL)
                sink += gpu_dwt_model_time(&device, &t, c);
        }
        double each = n_rows > 0 ? (now_seconds() - start) * 1e3 / n_rows : 0;
        (void)sink;
        print_errors(rows, n_rows, &device, gpu_dwt_calibrated, gpu_dwt_calibrated_count,
                     "the model (calibrated on another run) against this run:");
        printf("a prediction takes %.4f ms (its terms and time, %zu of them timed together)\n",
               each, n_rows);
    }
    if (code == 0 && calibrate_now) {
        gpu_dwt_calibration table[GPU_DWT_STRATEGIES * 4];
        size_t count = calibrate(rows, n_rows, &device, table);
        print_errors(rows, n_rows, &device, table, count, "the model fitted on this run:");
    }
    free(rows);
    free(plane);
    gpu_dwt_lab_destroy(lab);
    return code;
}
