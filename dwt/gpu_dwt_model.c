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

gpu_dwt_terms gpu_dwt_model_terms(const gpu_dwt_device *device, gpu_dwt_strategy strategy,
                                  bool reversible, bool forward, dwt_rect tile, unsigned levels)
{
    gpu_dwt_terms t = {0, 0, 0};
    double bytes_per_s = device->copy_gbps * 1e9, clocks = device->sm_count * device->clock_ghz * 1e9;
    for (unsigned level = 1; level <= levels && level < 32; level++) {
        dwt_rect a = ll_after(tile, level - 1);
        if (a.x1 <= a.x0 || a.y1 <= a.y0)
            break;
        double positions = (double)(a.x1 - a.x0) * (a.y1 - a.y0);
        gpu_dwt_launch launch = gpu_dwt_launch_shape(strategy, reversible, forward, a, device->sm_count);
        for (unsigned i = 0; i < launch.kernels; i++) {
            const gpu_dwt_kernel *k = &launch.kernel[i];
            double blocks = (double)k->grid_x * k->grid_y;
            unsigned per_sm = device->blocks_per_sm[strategy][reversible][forward][i];
            if (per_sm == 0)
                per_sm = (unsigned)(device->max_threads_per_sm / (int)k->threads);
            double resident = (double)device->sm_count * (per_sm ? per_sm : 1);
            /* too few threads to fill the memory system; the last wave's tail */
            double fill = blocks * k->threads / (device->sm_count * SATURATING_THREADS);
            fill = fill < 1 ? fill : 1;
            double waves = ceil(blocks / resident), tail = blocks > resident ? blocks / (waves * resident) : 1;
            double reads = blocks * k->read_elements;
            reads = reads > positions ? reads : positions;
            double bytes = (reads + positions) * 4.0;
            t.memory_s += bytes / (bytes_per_s * fill * tail);
            t.work_s += positions * (k->loads_per_position + k->steps_per_position) / clocks / tail;
            t.launches += 1;
        }
    }
    if (forward)
        t.launches += 1; /* the last LL into place */
    return t;
}

double gpu_dwt_model_time(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                          const gpu_dwt_calibration *c)
{
    double ms = terms->launches * (device->launch_us + c->overhead_us) * 1e-3;
    if (c->efficiency > 0)
        ms += terms->memory_s / c->efficiency * 1e3;
    if (c->work_rate > 0)
        ms += terms->work_s / c->work_rate * 1e3;
    return ms;
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
            double s = a[c][k];
            a[c][k] = a[p][k];
            a[p][k] = s;
        }
        double s = b[c];
        b[c] = b[p];
        b[p] = s;
        for (int r = c + 1; r < m; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < m; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = m - 1; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < m; k++)
            s -= a[c][k] * u[k];
        u[c] = s / a[c][c];
    }
    return true;
}

bool gpu_dwt_model_fit(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                       const double *measured_ms, size_t n, gpu_dwt_calibration *out)
{
    /* y = u0 launches 1e-3 + u1 memory_s 1e3 + u2 work_s 1e3, weighted by
     * 1 / measured (relative errors count alike); every subset of the three
     * unknowns is tried and the best non-negative solution kept. */
    double best = INFINITY, best_u[3] = {0, 0, 0};
    for (int mask = 1; mask < 8; mask++) {
        int index[3], m = 0;
        for (int k = 0; k < 3; k++)
            if (mask & (1 << k))
                index[m++] = k;
        if ((size_t)m > n)
            continue;
        double a[3][3] = {{0}}, b[3] = {0}, u[3] = {0};
        for (size_t i = 0; i < n; i++) {
            double x[3] = {terms[i].launches * 1e-3, terms[i].memory_s * 1e3, terms[i].work_s * 1e3};
            double y = measured_ms[i] - terms[i].launches * device->launch_us * 1e-3;
            double w = 1.0 / (measured_ms[i] * measured_ms[i]);
            for (int r = 0; r < m; r++) {
                for (int c = 0; c < m; c++)
                    a[r][c] += w * x[index[r]] * x[index[c]];
                b[r] += w * x[index[r]] * y;
            }
        }
        if (!solve(a, b, m, u))
            continue;
        double full[3] = {0, 0, 0};
        bool ok = true;
        for (int r = 0; r < m; r++) {
            full[index[r]] = u[r];
            ok = ok && u[r] >= 0;
        }
        if (!ok)
            continue;
        double sse = 0;
        for (size_t i = 0; i < n; i++) {
            double p = terms[i].launches * (device->launch_us + full[0]) * 1e-3 +
                       full[1] * terms[i].memory_s * 1e3 + full[2] * terms[i].work_s * 1e3;
            double e = (p - measured_ms[i]) / measured_ms[i];
            sse += e * e;
        }
        if (sse < best) {
            best = sse;
            memcpy(best_u, full, sizeof best_u);
        }
    }
    if (!isfinite(best))
        return false;
    out->overhead_us = best_u[0];
    out->efficiency = best_u[1] > 0 ? 1.0 / best_u[1] : 0;
    out->work_rate = best_u[2] > 0 ? 1.0 / best_u[2] : 0;
    return true;
}
