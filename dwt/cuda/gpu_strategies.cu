/* gpu_strategies.cu - see gpu_strategies.h. The lab's buffers and the
 * level loop of every strategy: the register kernels of
 * dwt_level_kernels.cuh (as the GPU stage launches them, with plain
 * outputs) and the kernels of strategy_kernels.cuh. Every CUDA call and
 * launch is checked; failures become GJ2K_ERROR_DEVICE. */
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
#include "gpu_strategies.h"
}

#include "device_check.cuh"
#include "strategy_kernels.cuh"

namespace {

using dwt_levels::Area;
using dwt_strategies::Level;

enum { SAMPLES = 0, BANDS, BACK, LL0, LL1, BETWEEN, KEPT_BANDS, KEPT_BACK, BUFFERS };

Area area_of(dwt_rect r) { return Area{r.x0, r.y0, r.x1, r.y1}; }
size_t area_size(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }
dwt_rect ll_rect(dwt_rect tile, unsigned level) { return dwt_band_rect(tile, level, DWT_BAND_LL); }

__global__ void empty_kernel() {}

__device__ __forceinline__ uint32_t bits_of(float v) { return __float_as_uint(v); }
__device__ __forceinline__ uint32_t bits_of(int32_t v) { return (uint32_t)v; }

/* Elements whose bits differ, and the largest difference. */
template <typename T>
__global__ void compare(const T *a, const T *b, size_t n, unsigned long long *differ, float *largest)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T x = a[i], y = b[i];
    if (bits_of(x) != bits_of(y)) {
        atomicAdd(differ, 1ull);
        float d = fabsf((float)x - (float)y);
        if (d != d)
            d = INFINITY;
        atomicMax((int *)largest, __float_as_int(d)); /* non-negative floats order as ints */
    }
}

/* The 9/7's filters of interleaved positions (strategy_kernels.cuh's
 * Taps), from the lifting steps run in double on impulses. */
dwt_strategies::Taps taps_97(bool forward)
{
    dwt_strategies::Taps taps;
    const double c[4] = {DWT97_ALPHA, DWT97_BETA, DWT97_GAMMA, DWT97_DELTA};
    for (int impulse_parity = 0; impulse_parity < 2; impulse_parity++) {
        double v[40] = {0};
        const int at = 20 + impulse_parity;
        v[at] = 1.0;
        if (forward) {
            for (int step = 0; step < 4; step++)
                for (int i = 1; i < 39; i++)
                    if ((i & 1) == (step % 2 == 0 ? 1 : 0))
                        v[i] += c[step] * (v[i - 1] + v[i + 1]);
            for (int i = 0; i < 40; i++)
                v[i] *= (i & 1) ? (double)DWT97_K : 1.0 / (double)DWT97_K;
        } else {
            for (int i = 0; i < 40; i++)
                v[i] *= (i & 1) ? (double)DWT97_INV_K_INTEROP : (double)DWT97_K;
            for (int step = 0; step < 4; step++)
                for (int i = 1; i < 39; i++)
                    if ((i & 1) == (step % 2 == 0 ? 0 : 1))
                        v[i] -= c[3 - step] * (v[i - 1] + v[i + 1]);
        }
        /* output j = at - o takes weight v[j] for input offset o */
        for (int o = -4; o <= 4; o++) {
            int j = at - o;
            taps.t[j & 1][o + 4] = (float)v[j];
        }
    }
    return taps;
}

}  // namespace

struct gpu_dwt_lab {
    int device;
    int sm_count;
    size_t capacity;
    void *buffer[BUFFERS];
    cudaStream_t stream;
    cudaEvent_t start, stop;
    unsigned long long *differ;
    float *largest;
    dwt_strategies::Taps forward_taps, inverse_taps;
};

extern "C" gj2k_status gpu_dwt_lab_create(gpu_dwt_lab **out, size_t capacity, gj2k_error *error)
{
    *out = nullptr;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU: no CUDA device (%s)",
                         e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    gpu_dwt_lab *lab = (gpu_dwt_lab *)calloc(1, sizeof *lab);
    if (lab == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    *out = lab;
    lab->capacity = capacity > 0 ? capacity : 1;
    GPU_CHECK(cudaGetDevice(&lab->device), "cudaGetDevice");
    GPU_CHECK(cudaDeviceGetAttribute(&lab->sm_count, cudaDevAttrMultiProcessorCount, lab->device),
              "device attribute");
    GPU_CHECK(cudaStreamCreateWithFlags(&lab->stream, cudaStreamNonBlocking), "stream");
    GPU_CHECK(cudaEventCreate(&lab->start), "event");
    GPU_CHECK(cudaEventCreate(&lab->stop), "event");
    for (int i = 0; i < BUFFERS; i++)
        GPU_CHECK(cudaMalloc(&lab->buffer[i], lab->capacity * 4), "cudaMalloc");
    GPU_CHECK(cudaMalloc(&lab->differ, sizeof *lab->differ), "cudaMalloc");
    GPU_CHECK(cudaMalloc(&lab->largest, sizeof *lab->largest), "cudaMalloc");
    lab->forward_taps = taps_97(true);
    lab->inverse_taps = taps_97(false);
    return GJ2K_OK;
}

extern "C" void gpu_dwt_lab_destroy(gpu_dwt_lab *lab)
{
    if (lab == nullptr)
        return;
    for (int i = 0; i < BUFFERS; i++)
        cudaFree(lab->buffer[i]);
    cudaFree(lab->differ);
    cudaFree(lab->largest);
    if (lab->start)
        cudaEventDestroy(lab->start);
    if (lab->stop)
        cudaEventDestroy(lab->stop);
    if (lab->stream)
        cudaStreamDestroy(lab->stream);
    free(lab);
}

static gj2k_status check_tile(gpu_dwt_lab *lab, dwt_rect tile, gj2k_error *error)
{
    if (tile.x1 <= tile.x0 || tile.y1 <= tile.y0 || area_size(tile) > lab->capacity)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "strategy lab: a plane of %ux%u does not fit its %zu elements",
                         tile.x1 - tile.x0, tile.y1 - tile.y0, lab->capacity);
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_put(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, const void *data,
                                       dwt_rect tile, gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    /* on the lab's stream: a non-blocking stream does not wait for the legacy
     * default stream, and a pageable upload may still be under way when
     * cudaMemcpy returns */
    GPU_CHECK(cudaMemcpyAsync(lab->buffer[buffer], data, area_size(tile) * 4, cudaMemcpyHostToDevice,
                              lab->stream), "upload");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "upload");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_get(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, void *data,
                                       dwt_rect tile, gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    GPU_CHECK(cudaMemcpyAsync(data, lab->buffer[buffer], area_size(tile) * 4, cudaMemcpyDeviceToHost,
                              lab->stream), "download");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "download");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_poison(gpu_dwt_lab *lab, gj2k_error *error)
{
    for (int i = 0; i < BUFFERS; i++)
        GPU_CHECK(cudaMemsetAsync(lab->buffer[i], 0xFF, lab->capacity * 4, lab->stream), "poison");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "poison");
    return GJ2K_OK;
}

/* ------------------------------------------------ one level */

/* The register kernels, as gpu_levels.cuh launches them (rows by
 * gpu_dwt_launch_shape), with the outputs in the filter's type. */
template <int Wavelet>
static gj2k_status register_level(gpu_dwt_lab *lab, bool forward, const void *in, size_t in_stride,
                                  dwt_rect a, void *ll, size_t ll_stride, void *bands, size_t stride,
                                  void *out, size_t out_stride, gj2k_error *error)
{
    using T = typename dwt_levels::Filter<Wavelet>::T;
    constexpr int H = dwt_levels::Filter<Wavelet>::kHalo;
    gpu_dwt_launch shape = gpu_dwt_launch_shape(GPU_DWT_REGISTER, H == 2, forward, a, lab->sm_count);
    int rows = (int)shape.kernel[0].rows;
    dim3 grid(shape.kernel[0].grid_x, shape.kernel[0].grid_y);
    Area area = area_of(a);
    dwt_levels::Window win = dwt_levels::whole_level(area);
    if (forward) {
        dwt_levels::ForwardOut o = {};
        o.ll = ll;
        o.ll_stride = ll_stride;
        o.bands = bands;
        o.stride = stride;
        dwt_levels::forward_level<Wavelet, 0, false, false><<<grid, 128, 0, lab->stream>>>(
            (const T *)in, 0, in_stride, area, win, o, rows);
    } else {
        constexpr int Inverse = Wavelet == dwt_levels::k53Narrow ? dwt_levels::k53 : Wavelet;
        dwt_levels::inverse_level<Inverse, 0, false><<<grid, 128, 0, lab->stream>>>(
            ll, ll_stride, bands, stride, dwt_levels::Dequantization{}, area, win, (T *)out,
            dwt_levels::SamplesOut{}, out_stride, rows);
    }
    GPU_LAUNCHED("register level");
    return GJ2K_OK;
}

static dim3 grid_of(const gpu_dwt_kernel &k) { return dim3(k.grid_x, k.grid_y); }

/* One level of the other strategies: forward reads the plane `in` and
 * writes LL to `ll`, the rest to `bands`; inverse reads those and writes
 * the plane `out`; `between` holds the intermediate plane of the
 * two-kernel strategies. */
template <int Wavelet>
static gj2k_status strategy_level(gpu_dwt_lab *lab, gpu_dwt_strategy strategy, bool forward,
                                  const void *in, size_t in_stride, dwt_rect a, void *ll,
                                  size_t ll_stride, void *bands, size_t stride, void *out,
                                  size_t out_stride, void *between, gj2k_error *error)
{
    using namespace dwt_strategies;
    using T = typename Filter<Wavelet>::T;
    constexpr bool Reversible = Filter<Wavelet>::kReversible;
    constexpr int Inverse = Wavelet == dwt_levels::k53Narrow ? dwt_levels::k53 : Wavelet;
    const Level l = level_of(area_of(a));
    const gpu_dwt_launch shape = gpu_dwt_launch_shape(strategy, Reversible, forward, a, lab->sm_count);
    const size_t mid_stride = a.x1 - a.x0;
    PlaneIn<T> plane_in = {(const T *)in, in_stride};
    PlaneOut<T> plane_out = {(T *)out, out_stride};
    PlaneIn<T> mid_in = {(const T *)between, mid_stride};
    PlaneOut<T> mid_out = {(T *)between, mid_stride};
    BandsIn<T> bands_in = {(const T *)ll, ll_stride, (const T *)bands, stride};
    BandsOut<T> bands_out = {(T *)ll, ll_stride, (T *)bands, stride};
    cudaStream_t s = lab->stream;
    const dim3 g0 = grid_of(shape.kernel[0]), g1 = grid_of(shape.kernel[1]);
    switch (strategy) {
    case GPU_DWT_BLOCK:
        if (forward)
            tile_level<Wavelet, true, true, true, kBlockW, kBlockH><<<g0, kThreads, 0, s>>>(l, plane_in, bands_out);
        else
            tile_level<Inverse, false, true, true, kBlockW, kBlockH><<<g0, kThreads, 0, s>>>(l, bands_in, plane_out);
        break;
    case GPU_DWT_SEPARABLE:
        if (forward) {
            tile_level<Wavelet, true, true, false, kSlabW, kSlabH><<<g0, kThreads, 0, s>>>(l, plane_in, mid_out);
            GPU_LAUNCHED("separable level");
            tile_level<Wavelet, true, false, true, kStripW, kStripH><<<g1, kThreads, 0, s>>>(l, mid_in, bands_out);
        } else {
            tile_level<Inverse, false, false, true, kStripW, kStripH><<<g0, kThreads, 0, s>>>(l, bands_in, mid_out);
            GPU_LAUNCHED("separable level");
            tile_level<Inverse, false, true, false, kSlabW, kSlabH><<<g1, kThreads, 0, s>>>(l, mid_in, plane_out);
        }
        break;
    case GPU_DWT_CONVOLUTION:
        if (forward) {
            convolve_level<Wavelet, true, true><<<g0, kThreads, 0, s>>>(l, plane_in, mid_out, lab->forward_taps);
            GPU_LAUNCHED("convolution level");
            convolve_level<Wavelet, true, false><<<g1, kThreads, 0, s>>>(l, mid_in, bands_out, lab->forward_taps);
        } else {
            convolve_level<Inverse, false, false><<<g0, kThreads, 0, s>>>(l, bands_in, mid_out, lab->inverse_taps);
            GPU_LAUNCHED("convolution level");
            convolve_level<Inverse, false, true><<<g1, kThreads, 0, s>>>(l, mid_in, plane_out, lab->inverse_taps);
        }
        break;
    case GPU_DWT_POLYCONVOLUTION:
        if (forward)
            quad_level<Wavelet, true><<<g0, 128, 0, s>>>(l, plane_in, bands_out);
        else
            quad_level<Inverse, false><<<g0, 128, 0, s>>>(l, bands_in, plane_out);
        break;
    default:
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "strategy lab: unknown strategy %d",
                         (int)strategy);
    }
    GPU_LAUNCHED("strategy level");
    return GJ2K_OK;
}

template <int Wavelet>
static gj2k_status run_levels(gpu_dwt_lab *lab, gpu_dwt_strategy strategy, bool forward,
                              dwt_rect tile, unsigned levels, gj2k_error *error)
{
    using T = typename dwt_levels::Filter<Wavelet>::T;
    const size_t stride = tile.x1 - tile.x0;
    void *bands = lab->buffer[BANDS];
    if (levels > 32)
        levels = 32;
    auto level_stride = [](dwt_rect r) { return ((size_t)(r.x1 - r.x0) + 1) & ~(size_t)1; };
    if (forward) {
        const void *current = lab->buffer[SAMPLES];
        size_t current_stride = stride;
        dwt_rect last = tile;
        bool moved = false;
        for (unsigned level = 1; level <= levels; level++) {
            dwt_rect a = ll_rect(tile, level - 1), next = ll_rect(tile, level);
            if (a.x1 <= a.x0 || a.y1 <= a.y0)
                break;
            void *ll = lab->buffer[(level & 1) ? LL1 : LL0];
            size_t ll_stride = level_stride(next);
            gj2k_status status =
                strategy == GPU_DWT_REGISTER
                    ? register_level<Wavelet>(lab, true, current, current_stride, a, ll, ll_stride,
                                              bands, stride, nullptr, 0, error)
                    : strategy_level<Wavelet>(lab, strategy, true, current, current_stride, a, ll,
                                              ll_stride, bands, stride, nullptr, 0,
                                              lab->buffer[BETWEEN], error);
            if (status != GJ2K_OK)
                return status;
            current = ll;
            current_stride = ll_stride;
            last = next;
            moved = true;
        }
        size_t w = last.x1 - last.x0, h = last.y1 - last.y0;
        if (w * h > 0)
            GPU_CHECK(cudaMemcpy2DAsync(bands, stride * sizeof(T), current, current_stride * sizeof(T),
                                        w * sizeof(T), h, cudaMemcpyDeviceToDevice, lab->stream),
                      moved ? "place LL" : "copy");
        return GJ2K_OK;
    }
    const void *ll = bands;
    size_t ll_stride = stride;
    void *back = lab->buffer[BACK];
    bool any = false;
    for (unsigned level = levels; level >= 1; level--) {
        dwt_rect a = ll_rect(tile, level - 1);
        if (a.x1 <= a.x0 || a.y1 <= a.y0)
            continue;
        void *target = level == 1 ? back : lab->buffer[(level & 1) ? LL1 : LL0];
        size_t target_stride = level == 1 ? stride : level_stride(a);
        gj2k_status status =
            strategy == GPU_DWT_REGISTER
                ? register_level<Wavelet>(lab, false, nullptr, 0, a, (void *)ll, ll_stride, bands,
                                          stride, target, target_stride, error)
                : strategy_level<Wavelet>(lab, strategy, false, nullptr, 0, a, (void *)ll, ll_stride,
                                          bands, stride, target, target_stride,
                                          lab->buffer[BETWEEN], error);
        if (status != GJ2K_OK)
            return status;
        ll = target;
        ll_stride = target_stride;
        any = true;
    }
    if (!any)
        GPU_CHECK(cudaMemcpyAsync(back, bands, area_size(tile) * sizeof(T), cudaMemcpyDeviceToDevice,
                                  lab->stream), "copy");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_run(gpu_dwt_lab *lab, gpu_dwt_strategy strategy, bool reversible,
                                       bool forward, dwt_rect tile, unsigned levels,
                                       unsigned precision, double *ms, gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    if ((unsigned)strategy >= GPU_DWT_STRATEGIES)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "strategy lab: unknown strategy %d",
                         (int)strategy);
    /* 32-bit 5/3 sums where none can overflow (gpu_levels.cuh narrow_53_holds) */
    unsigned bytes = precision <= 8 ? 1 : precision <= 16 ? 2 : 4;
    bool narrow = reversible && forward && bytes <= 2 && 8 * bytes + 2 * levels <= 28;
    GPU_CHECK(cudaEventRecord(lab->start, lab->stream), "event");
    if (!reversible)
        status = run_levels<dwt_levels::k97>(lab, strategy, forward, tile, levels, error);
    else if (narrow)
        status = run_levels<dwt_levels::k53Narrow>(lab, strategy, forward, tile, levels, error);
    else
        status = run_levels<dwt_levels::k53>(lab, strategy, forward, tile, levels, error);
    if (status != GJ2K_OK)
        return status;
    GPU_CHECK(cudaEventRecord(lab->stop, lab->stream), "event");
    GPU_CHECK(cudaEventSynchronize(lab->stop), "transform");
    float elapsed = 0;
    GPU_CHECK(cudaEventElapsedTime(&elapsed, lab->start, lab->stop), "event time");
    if (ms != nullptr)
        *ms = elapsed;
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_keep(gpu_dwt_lab *lab, bool forward, dwt_rect tile, gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    GPU_CHECK(cudaMemcpyAsync(lab->buffer[forward ? KEPT_BANDS : KEPT_BACK],
                              lab->buffer[forward ? BANDS : BACK], area_size(tile) * 4,
                              cudaMemcpyDeviceToDevice, lab->stream), "keep");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "keep");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_restore(gpu_dwt_lab *lab, dwt_rect tile, gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    GPU_CHECK(cudaMemcpyAsync(lab->buffer[BANDS], lab->buffer[KEPT_BANDS], area_size(tile) * 4,
                              cudaMemcpyDeviceToDevice, lab->stream), "restore");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "restore");
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_compare(gpu_dwt_lab *lab, bool forward, bool reversible,
                                           dwt_rect tile, uint64_t *differ, double *largest,
                                           gj2k_error *error)
{
    gj2k_status status = check_tile(lab, tile, error);
    if (status != GJ2K_OK)
        return status;
    size_t n = area_size(tile);
    GPU_CHECK(cudaMemsetAsync(lab->differ, 0, sizeof *lab->differ, lab->stream), "compare");
    GPU_CHECK(cudaMemsetAsync(lab->largest, 0, sizeof *lab->largest, lab->stream), "compare");
    const void *a = lab->buffer[forward ? BANDS : BACK], *b = lab->buffer[forward ? KEPT_BANDS : KEPT_BACK];
    unsigned blocks = (unsigned)((n + 255) / 256);
    if (reversible)
        compare<int32_t><<<blocks, 256, 0, lab->stream>>>((const int32_t *)a, (const int32_t *)b, n,
                                                          lab->differ, lab->largest);
    else
        compare<float><<<blocks, 256, 0, lab->stream>>>((const float *)a, (const float *)b, n,
                                                        lab->differ, lab->largest);
    GPU_LAUNCHED("compare");
    unsigned long long count = 0;
    float most = 0;
    GPU_CHECK(cudaMemcpyAsync(&count, lab->differ, sizeof count, cudaMemcpyDeviceToHost, lab->stream), "compare");
    GPU_CHECK(cudaMemcpyAsync(&most, lab->largest, sizeof most, cudaMemcpyDeviceToHost, lab->stream), "compare");
    GPU_CHECK(cudaStreamSynchronize(lab->stream), "compare");
    *differ = count;
    *largest = most;
    return GJ2K_OK;
}

/* ------------------------------------------- the model's device */

/* Resident blocks an SM holds of kernel `k` of a strategy's level. */
template <int W>
static int occupancy_of(gpu_dwt_strategy strategy, bool forward, unsigned k, int *blocks)
{
    using namespace dwt_strategies;
    using T = typename Filter<W>::T;
    constexpr int I = W == dwt_levels::k53Narrow ? dwt_levels::k53 : W;
    const void *f = nullptr;
    int threads = kThreads;
    switch (strategy) {
    case GPU_DWT_REGISTER:
        threads = 128;
        f = forward ? (const void *)dwt_levels::forward_level<W, 0, false, false>
                    : (const void *)dwt_levels::inverse_level<I, 0, false>;
        break;
    case GPU_DWT_BLOCK:
        f = forward ? (const void *)tile_level<W, true, true, true, kBlockW, kBlockH, PlaneIn<T>, BandsOut<T>>
                    : (const void *)tile_level<I, false, true, true, kBlockW, kBlockH, BandsIn<T>, PlaneOut<T>>;
        break;
    case GPU_DWT_SEPARABLE:
        if (forward)
            f = k == 0 ? (const void *)tile_level<W, true, true, false, kSlabW, kSlabH, PlaneIn<T>, PlaneOut<T>>
                       : (const void *)tile_level<W, true, false, true, kStripW, kStripH, PlaneIn<T>, BandsOut<T>>;
        else
            f = k == 0 ? (const void *)tile_level<I, false, false, true, kStripW, kStripH, BandsIn<T>, PlaneOut<T>>
                       : (const void *)tile_level<I, false, true, false, kSlabW, kSlabH, PlaneIn<T>, PlaneOut<T>>;
        break;
    case GPU_DWT_CONVOLUTION:
        if (forward)
            f = k == 0 ? (const void *)convolve_level<W, true, true, PlaneIn<T>, PlaneOut<T>>
                       : (const void *)convolve_level<W, true, false, PlaneIn<T>, BandsOut<T>>;
        else
            f = k == 0 ? (const void *)convolve_level<I, false, false, BandsIn<T>, PlaneOut<T>>
                       : (const void *)convolve_level<I, false, true, PlaneIn<T>, PlaneOut<T>>;
        break;
    case GPU_DWT_POLYCONVOLUTION:
        threads = 128;
        f = forward ? (const void *)quad_level<W, true, PlaneIn<T>, BandsOut<T>>
                    : (const void *)quad_level<I, false, BandsIn<T>, PlaneOut<T>>;
        break;
    default:
        return 0;
    }
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, threads, 0) == cudaSuccess;
}

/* The fastest of `repeats` runs of `work` (which enqueues on the lab's
 * stream and returns its CUDA status), by events around it, in ms. */
template <class Work>
static gj2k_status best_time(gpu_dwt_lab *lab, int repeats, float *best, gj2k_error *error,
                             Work work)
{
    *best = 1e30f;
    for (int r = 0; r < repeats; r++) {
        GPU_CHECK(cudaEventRecord(lab->start, lab->stream), "event");
        GPU_CHECK(work(), "timed work");
        GPU_CHECK(cudaEventRecord(lab->stop, lab->stream), "event");
        GPU_CHECK(cudaEventSynchronize(lab->stop), "timed work");
        float ms = 0;
        GPU_CHECK(cudaEventElapsedTime(&ms, lab->start, lab->stop), "event time");
        *best = ms < *best ? ms : *best;
    }
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_dwt_lab_device(gpu_dwt_lab *lab, gpu_dwt_device *d, gj2k_error *error)
{
    memset(d, 0, sizeof *d);
    int clock_khz = 0;
    d->sm_count = lab->sm_count;
    GPU_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, lab->device), "device attribute");
    GPU_CHECK(cudaDeviceGetAttribute(&d->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                                     lab->device), "device attribute");
    d->clock_ghz = clock_khz * 1e-6;
    /* copy bandwidth: the best of three copies of half the lab's plane */
    size_t bytes = lab->capacity * 2;
    float best = 0;
    gj2k_status status = best_time(lab, 3, &best, error, [&] {
        return cudaMemcpyAsync(lab->buffer[BACK], lab->buffer[SAMPLES], bytes,
                               cudaMemcpyDeviceToDevice, lab->stream);
    });
    if (status != GJ2K_OK)
        return status;
    d->copy_gbps = 2.0 * (double)bytes / (best * 1e6);
    int l2 = 0;
    GPU_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, lab->device), "device attribute");
    d->l2_bytes = l2;
    /* 2-D copies of a square into a buffer twice as wide (the last LL into
     * place): 512 x 512 and 2048 x 2048 (in the L2 cache) give the fixed
     * cost and the cached rate; a quarter of the lab's plane, the rate
     * beyond the cache */
    double copy_ms[3] = {0, 0, 0}, copy_bytes[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        size_t side = k == 0 ? 512 : k == 1 ? 2048 : (size_t)sqrt((double)lab->capacity / 4);
        if (side * side * 4 > lab->capacity)
            side = (size_t)sqrt((double)lab->capacity / 4);
        float fastest = 0;
        status = best_time(lab, 5, &fastest, error, [&] {
            return cudaMemcpy2DAsync(lab->buffer[BACK], 2 * side * 4, lab->buffer[SAMPLES], side * 4,
                                     side * 4, side, cudaMemcpyDeviceToDevice, lab->stream);
        });
        if (status != GJ2K_OK)
            return status;
        copy_ms[k] = fastest;
        copy_bytes[k] = 2.0 * (double)(side * side * 4);
    }
    double per_byte = copy_bytes[1] > copy_bytes[0] ? (copy_ms[1] - copy_ms[0]) / (copy_bytes[1] - copy_bytes[0]) : 0;
    per_byte = per_byte > 0 ? per_byte : copy_ms[1] / copy_bytes[1];
    d->copy2d_cached_gbps = 1.0 / (per_byte * 1e6);
    d->copy2d_us = (copy_ms[0] - per_byte * copy_bytes[0]) * 1e3;
    d->copy2d_us = d->copy2d_us > 0 ? d->copy2d_us : 0;
    d->copy2d_gbps = copy_bytes[2] / (copy_ms[2] * 1e6);
    /* launch latency: 200 empty kernels back to back */
    empty_kernel<<<1, 32, 0, lab->stream>>>();
    GPU_LAUNCHED("empty kernel");
    float ms = 0;
    status = best_time(lab, 1, &ms, error, [&] {
        for (int i = 0; i < 200; i++)
            empty_kernel<<<1, 32, 0, lab->stream>>>();
        return cudaGetLastError();
    });
    if (status != GJ2K_OK)
        return status;
    d->launch_us = ms * 1e3 / 200;
    for (int s = 0; s < GPU_DWT_STRATEGIES; s++)
        for (int rev = 0; rev < 2; rev++)
            for (int fwd = 0; fwd < 2; fwd++)
                for (unsigned k = 0; k < GPU_DWT_MAX_KERNELS; k++) {
                    int blocks = 0;
                    bool ok = rev ? occupancy_of<dwt_levels::k53>((gpu_dwt_strategy)s, fwd, k, &blocks)
                                  : occupancy_of<dwt_levels::k97>((gpu_dwt_strategy)s, fwd, k, &blocks);
                    d->blocks_per_sm[s][rev][fwd][k] = (uint8_t)(ok && blocks > 0 && blocks < 256 ? blocks : 0);
                }
    return GJ2K_OK;
}
