/* gpu_dwt_model.c - see gpu_dwt_model.h. */
#include "gpu_dwt_model.h"

#include <math.h>
#include <string.h>

static const char *const strategy_names[GPU_DWT_STRATEGIES] = {
    "register", "block", "separable", "convolution", "polyconvolution"};

const char *gpu_dwt_strategy_name(gpu_dwt_strategy strategy)
{
    return (unsigned)strategy < GPU_DWT_STRATEGIES ? strategy_names[strategy] : "unknown";
}

bool gpu_dwt_strategy_parse(const char *name, gpu_dwt_strategy *strategy)
{
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++)
        if (strcmp(name, strategy_names[s]) == 0) {
            *strategy = (gpu_dwt_strategy)s;
            return true;
        }
    return false;
}

bool gpu_dwt_strategy_exact(gpu_dwt_strategy strategy, bool reversible)
{
    return reversible || strategy != GPU_DWT_CONVOLUTION;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* The shapes below are those strategy_kernels.cuh and
 * dwt_level_kernels.cuh are written for: tiles of the block and separable
 * kernels, 256 threads; the convolution's 256 positions a block and a row
 * a block; the polyconvolution's 128 quads a block and a quad row a block;
 * the register kernels' 4 warps of 64 - 2 halo columns and `rows` rows. */
enum { BLOCK_W = 64, BLOCK_H = 32, SLAB_W = 64, SLAB_H = 64, STRIP_W = 128, STRIP_H = 16 };

/* A shared-memory tile kernel: TW x TH positions, halos hx, hy. */
static gpu_dwt_kernel tile_kernel(uint64_t cols, uint64_t rows, unsigned tw, unsigned th,
                                  unsigned hx, unsigned hy, double steps)
{
    gpu_dwt_kernel k;
    k.grid_x = (uint32_t)ceil_div(cols, tw);
    k.grid_y = (uint32_t)ceil_div(rows, th);
    k.threads = 256;
    double window = (double)(tw + 2 * hx) * (th + 2 * hy);
    k.read_elements = window;
    k.loads_per_position = window / ((double)tw * th);
    /* every direction's steps over its part of the window */
    double vertical = hy ? (double)(tw + 2 * hx) * (th + 2 * hy) : 0;
    double horizontal = hx ? (double)(tw + 2 * hx) * th : 0;
    k.steps_per_position = (vertical + horizontal) * steps / 2 / ((double)tw * th);
    return k;
}

gpu_dwt_launch gpu_dwt_launch_shape(gpu_dwt_strategy strategy, bool reversible, bool forward,
                                    dwt_rect area, int sm_count)
{
    gpu_dwt_launch l;
    memset(&l, 0, sizeof l);
    unsigned halo = reversible ? 2 : 4;
    double steps = reversible ? 2 : 6; /* lifting steps (and the 9/7's two scalings) */
    uint64_t cols = area.x1 - (area.x0 & ~1u), rows = area.y1 - (area.y0 & ~1u);
    switch (strategy) {
    case GPU_DWT_REGISTER: {
        /* dwt/cuda/gpu_levels.cuh rows_for: the most rows, up to 128, that
         * still give about 64 warps an SM */
        uint64_t warps = ceil_div(cols, 64 - 2 * halo), r = 128;
        while (r > 8 && warps * ceil_div(rows, r) < (uint64_t)sm_count * 64)
            r /= 2;
        while (ceil_div(rows, r) > 65535)
            r *= 2;
        gpu_dwt_kernel *k = &l.kernel[0];
        k->grid_x = (uint32_t)ceil_div(warps, 4);
        k->grid_y = (uint32_t)ceil_div(rows, r);
        k->threads = 128;
        k->rows = (uint32_t)r;
        k->read_elements = 4.0 * 64 * (double)(r + 2 * halo);
        k->loads_per_position = 64.0 / (64 - 2 * halo) * (double)(r + 2 * halo) / (double)r;
        k->steps_per_position = k->loads_per_position * steps;
        l.kernels = 1;
        break;
    }
    case GPU_DWT_BLOCK:
        l.kernel[0] = tile_kernel(cols, rows, BLOCK_W, BLOCK_H, halo, halo, steps);
        l.kernels = 1;
        break;
    case GPU_DWT_SEPARABLE: {
        gpu_dwt_kernel v = tile_kernel(cols, rows, SLAB_W, SLAB_H, 0, halo, steps);
        gpu_dwt_kernel h = tile_kernel(cols, rows, STRIP_W, STRIP_H, halo, 0, steps);
        l.kernel[0] = forward ? v : h;
        l.kernel[1] = forward ? h : v;
        l.kernels = 2;
        break;
    }
    case GPU_DWT_CONVOLUTION:
        for (int i = 0; i < 2; i++) {
            gpu_dwt_kernel *k = &l.kernel[i];
            k->grid_x = (uint32_t)ceil_div(area.x1 - area.x0, 256);
            k->grid_y = area.y1 - area.y0;
            k->threads = 256;
            k->read_elements = 256; /* each input from memory once, its neighbours' through the cache */
            k->loads_per_position = reversible ? 4 : 9;
            k->steps_per_position = reversible ? 2 : 9;
        }
        l.kernels = 2;
        break;
    case GPU_DWT_POLYCONVOLUTION: {
        unsigned n = 2 + 2 * halo;
        gpu_dwt_kernel *k = &l.kernel[0];
        k->grid_x = (uint32_t)ceil_div(ceil_div(cols, 2), 128);
        k->grid_y = (uint32_t)ceil_div(rows, 2);
        k->threads = 128;
        k->read_elements = 256.0 * 2;
        k->loads_per_position = n * n / 4.0;
        k->steps_per_position = ((double)n * n + 2.0 * n) * steps / 2 / 4.0;
        l.kernels = 1;
        break;
    }
    default:
        break;
    }
    return l;
}

/* ceil(v / 2^n): the LL area after n levels (eq. B-15). */
static dwt_rect ll_after(dwt_rect t, unsigned n)
{
    dwt_rect r;
    uint64_t d = (uint64_t)1 << n;
    r.x0 = (uint32_t)(((uint64_t)t.x0 + d - 1) >> n);
    r.y0 = (uint32_t)(((uint64_t)t.y0 + d - 1) >> n);
    r.x1 = (uint32_t)(((uint64_t)t.x1 + d - 1) >> n);
    r.y1 = (uint32_t)(((uint64_t)t.y1 + d - 1) >> n);
    return r;
}

/* Threads an SM needs resident to keep its share of the memory system busy. */
#define SATURATING_THREADS 1024.0

void gpu_dwt_model_terms(const gpu_dwt_device *device, gpu_dwt_strategy strategy, bool reversible,
                         bool forward, dwt_rect tile, unsigned levels, gpu_dwt_terms *t)
{
    memset(t, 0, sizeof *t);
    double bytes_per_s = device->copy_gbps * 1e9;
    double sm_clocks = device->sm_count * device->clock_ghz * 1e9;
    for (unsigned level = 1; level <= levels && level < 32; level++) {
        dwt_rect a = ll_after(tile, level - 1);
        if (a.x1 <= a.x0 || a.y1 <= a.y0)
            break;
        double positions = (double)(a.x1 - a.x0) * (a.y1 - a.y0);
        gpu_dwt_launch launch = gpu_dwt_launch_shape(strategy, reversible, forward, a, device->sm_count);
        for (unsigned i = 0; i < launch.kernels && t->kernels < GPU_DWT_MAX_LAUNCHES; i++) {
            const gpu_dwt_kernel *k = &launch.kernel[i];
            double blocks = (double)k->grid_x * k->grid_y;
            unsigned per_sm = device->blocks_per_sm[strategy][reversible][forward][i];
            if (per_sm == 0)
                per_sm = (unsigned)(device->max_threads_per_sm / (int)k->threads);
            double resident = (double)device->sm_count * (per_sm ? per_sm : 1);
            double reads = blocks * k->read_elements;
            reads = reads > positions ? reads : positions;
            double bytes_per_block = (reads + positions) * 4.0 / blocks;
            double work_per_block = positions * (k->loads_per_position + k->steps_per_position) / blocks;
            /* the full waves of resident blocks, then the last, partial one:
             * each moves its bytes at the bandwidth its resident threads can
             * draw, and works on as many SMs as it has blocks */
            double full = floor(blocks / resident), rest = blocks - full * resident;
            double traffic = 0, work = 0;
            for (int wave = 0; wave < 2; wave++) {
                double count = wave == 0 ? full * resident : rest, per = wave == 0 ? resident : rest;
                if (count <= 0)
                    continue;
                double fill = per * k->threads / (device->sm_count * SATURATING_THREADS);
                traffic += count * bytes_per_block / (fill < 1 ? fill : 1);
                double sms = per < device->sm_count ? per : device->sm_count;
                work += count * work_per_block / (sms * device->clock_ghz * 1e9);
            }
            /* the level's input and output both in the L2 cache, or not */
            unsigned at = t->kernels++;
            if (positions * 8.0 <= device->l2_bytes)
                t->cached_s[at] = traffic / (sm_clocks * 64.0);
            else
                t->memory_s[at] = traffic / bytes_per_s;
            t->work_s[at] = work;
            t->launches += 1;
        }
    }
    if (forward) { /* the last LL into place: a 2-D copy */
        dwt_rect ll = ll_after(tile, levels < 32 ? levels : 32);
        double bytes = 8.0 * (ll.x1 - ll.x0) * (ll.y1 - ll.y0);
        double rate = bytes <= device->l2_bytes ? device->copy2d_cached_gbps : device->copy2d_gbps;
        t->launches += 1;
        t->fixed_s += device->copy2d_us * 1e-6 + bytes / ((rate > 0 ? rate : device->copy_gbps) * 1e9);
    }
}

/* The kernels' part of the time, in seconds: each the longer of its
 * memory traffic and its on-chip time. */
static double kernels_s(const gpu_dwt_terms *t, double cached_factor, double work_factor)
{
    double s = 0;
    for (unsigned k = 0; k < t->kernels; k++) {
        double chip = cached_factor * t->cached_s[k] + work_factor * t->work_s[k];
        s += t->memory_s[k] > chip ? t->memory_s[k] : chip;
    }
    return s;
}

double gpu_dwt_model_time(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                          const gpu_dwt_calibration *c)
{
    return terms->launches * (device->launch_us + c->overhead_us) * 1e-3 + terms->fixed_s * 1e3 +
           kernels_s(terms, c->cached_factor, c->work_factor) * 1e3;
}

const gpu_dwt_calibration *gpu_dwt_calibration_find(const gpu_dwt_calibration *table, size_t count,
                                                    gpu_dwt_strategy strategy, bool reversible,
                                                    bool forward)
{
    for (size_t i = 0; i < count; i++)
        if (table[i].strategy == strategy && table[i].reversible == reversible &&
            table[i].forward == forward)
            return &table[i];
    return NULL;
}

/* For factors (a, b): the best overhead (weighted least squares, closed
 * form; never below minus the latency) and the sum of squared relative errors. */
static double fit_overhead(const gpu_dwt_device *device, const gpu_dwt_terms *const *terms,
                           const double *ms, size_t n, double a, double b, double *overhead)
{
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double base = terms[i]->launches * device->launch_us * 1e-3 + terms[i]->fixed_s * 1e3 +
                      kernels_s(terms[i], a, b) * 1e3;
        double x = terms[i]->launches * 1e-3, w = 1.0 / (ms[i] * ms[i]);
        sxx += w * x * x;
        sxy += w * x * (ms[i] - base);
    }
    double o = sxx > 0 ? sxy / sxx : 0;
    *overhead = o > -device->launch_us ? o : -device->launch_us;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double p = terms[i]->launches * (device->launch_us + *overhead) * 1e-3 + terms[i]->fixed_s * 1e3 +
                   kernels_s(terms[i], a, b) * 1e3;
        double e = (p - ms[i]) / ms[i];
        sse += e * e;
    }
    return sse;
}

/* Solves the m x m system a u = b (m <= 3) by Gaussian elimination with
 * partial pivoting; false when singular. */
static bool solve(double a[3][3], double b[3], int m, double u[3])
{
    for (int c = 0; c < m; c++) {
        int p = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-300)
            return false;
        for (int k = 0; k < m; k++) {
            double t = a[c][k];
            a[c][k] = a[p][k];
            a[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < m; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < m; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = m - 1; c >= 0; c--) {
        double t = b[c];
        for (int k = c + 1; k < m; k++)
            t -= a[c][k] * u[k];
        u[c] = t / a[c][c];
    }
    return true;
}

/* With each kernel's bound (memory or on-chip) taken from factors (a, b),
 * the time is linear in the overhead and the factors: their weighted least
 * squares (every subset of the three tried, the factors kept >= 0).
 * Returns the sum of squared relative errors of the result, in *a, *b, *o. */
static double refit_linear(const gpu_dwt_device *device, const gpu_dwt_terms *const *terms,
                           const double *ms, size_t n, double *a, double *b, double *o)
{
    double best = INFINITY, ba = *a, bb = *b, bo = *o;
    for (int mask = 1; mask < 8; mask++) {
        int index[3], m = 0;
        for (int k = 0; k < 3; k++)
            if (mask & (1 << k))
                index[m++] = k;
        double q[3][3] = {{0}}, r[3] = {0}, u[3] = {0};
        for (size_t i = 0; i < n; i++) {
            const gpu_dwt_terms *t = terms[i];
            double x[3] = {t->launches * 1e-3, 0, 0};
            double y = ms[i] - t->launches * device->launch_us * 1e-3 - t->fixed_s * 1e3;
            for (unsigned k = 0; k < t->kernels; k++) {
                double chip = *a * t->cached_s[k] + *b * t->work_s[k];
                if (t->memory_s[k] > chip)
                    y -= t->memory_s[k] * 1e3;
                else
                    x[1] += t->cached_s[k] * 1e3, x[2] += t->work_s[k] * 1e3;
            }
            double w = 1.0 / (ms[i] * ms[i]);
            for (int c = 0; c < m; c++) {
                for (int d = 0; d < m; d++)
                    q[c][d] += w * x[index[c]] * x[index[d]];
                r[c] += w * x[index[c]] * y;
            }
        }
        if (!solve(q, r, m, u))
            continue;
        double full[3] = {0, 0, 0};
        bool ok = true;
        for (int c = 0; c < m; c++) {
            full[index[c]] = u[c];
            ok = ok && (index[c] == 0 ? u[c] >= -device->launch_us : u[c] >= 0);
        }
        if (!ok)
            continue;
        double sse = 0;
        for (size_t i = 0; i < n; i++) {
            double p = terms[i]->launches * (device->launch_us + full[0]) * 1e-3 +
                       terms[i]->fixed_s * 1e3 + kernels_s(terms[i], full[1], full[2]) * 1e3;
            double e = (p - ms[i]) / ms[i];
            sse += e * e;
        }
        if (sse < best)
            best = sse, bo = full[0], ba = full[1], bb = full[2];
    }
    *a = ba, *b = bb, *o = bo;
    return best;
}

bool gpu_dwt_model_fit(const gpu_dwt_device *device, const gpu_dwt_terms *const *terms,
                       const double *measured_ms, size_t n, gpu_dwt_calibration *out)
{
    if (n < 3)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(measured_ms[i] > 0))
            return false;
    /* a grid of the two factors (0 and 10^-3 .. 10^3); then, from each of
     * the grid's best few points, a pattern search that narrows its steps */
    enum { GRID = 97, STARTS = 8 };
    double start_a[STARTS], start_b[STARTS], start_sse[STARTS];
    for (int k = 0; k < STARTS; k++)
        start_a[k] = start_b[k] = 0, start_sse[k] = INFINITY;
    for (int i = 0; i <= GRID; i++)
        for (int j = 0; j <= GRID; j++) {
            double a = i == 0 ? 0 : pow(10.0, -3 + 6.0 * (i - 1) / (GRID - 1));
            double b = j == 0 ? 0 : pow(10.0, -3 + 6.0 * (j - 1) / (GRID - 1));
            double o, sse = fit_overhead(device, terms, measured_ms, n, a, b, &o);
            int worst = 0;
            for (int k = 1; k < STARTS; k++)
                if (start_sse[k] > start_sse[worst])
                    worst = k;
            if (sse < start_sse[worst])
                start_a[worst] = a, start_b[worst] = b, start_sse[worst] = sse;
        }
    double best = INFINITY, best_a = 0, best_b = 0, best_o = 0;
    for (int k = 0; k < STARTS; k++) {
        if (!isfinite(start_sse[k]))
            continue;
        double a0 = start_a[k], b0 = start_b[k], o0;
        double sse0 = fit_overhead(device, terms, measured_ms, n, a0, b0, &o0);
        double step = pow(10.0, 6.0 / (GRID - 1));
        for (int round = 0; round < 400 && step > 1.0002; round++) {
            bool moved = false;
            for (int d = 0; d < 8; d++) { /* each factor alone, and both together */
                double fa = d == 0 || d == 4 || d == 6 ? step : d == 1 || d == 5 || d == 7 ? 1 / step : 1;
                double fb = d == 2 || d == 4 || d == 7 ? step : d == 3 || d == 5 || d == 6 ? 1 / step : 1;
                double a = a0 > 0 ? a0 * fa : fa > 1 ? 1e-4 : 0;
                double b = b0 > 0 ? b0 * fb : fb > 1 ? 1e-4 : 0;
                double o, sse = fit_overhead(device, terms, measured_ms, n, a, b, &o);
                if (sse < sse0) {
                    a0 = a, b0 = b, o0 = o, sse0 = sse;
                    moved = true;
                }
            }
            if (!moved)
                step = sqrt(step);
        }
        /* then each kernel's bound fixed by the factors, the rest linear */
        for (int round = 0; round < 20; round++) {
            double a = a0, b = b0, o = o0;
            double sse = refit_linear(device, terms, measured_ms, n, &a, &b, &o);
            if (!(sse < sse0 * (1 - 1e-9)))
                break;
            a0 = a, b0 = b, o0 = o, sse0 = sse;
        }
        if (sse0 < best)
            best = sse0, best_a = a0, best_b = b0, best_o = o0;
    }
    if (!isfinite(best))
        return false;
    out->overhead_us = best_o;
    out->cached_factor = best_a;
    out->work_factor = best_b;
    return true;
}
