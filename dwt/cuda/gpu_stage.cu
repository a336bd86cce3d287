/* gpu_stage.cu - see gpu_stage.h. The kernels follow docs/numerics.md to
 * the letter, so every value is the CPU reference's:
 *  - a 1-D level lifts a line in place, one step at a time over the samples
 *    of one parity, reading neighbours mirrored at the line's ends (whole-
 *    sample symmetric extension, F.3.7 and F.4.7: the same values the CPU's
 *    pads copy in), then moves the low-pass samples before the high-pass
 *    ones (or back, for the inverse);
 *  - columns are lines across threads (neighbouring columns, coalesced);
 *    rows are made columns by a tiled transpose;
 *  - 5/3 steps in 64-bit integers with arithmetic shifts; 9/7 steps as
 *    x + c * (a + b) in binary32 (nvcc --fmad=false: no contraction).
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

extern "C" {
#include "gpu_stage.h"
}

namespace {

constexpr float kAlpha = -1.586134342059924f, kBeta = -0.052980118572961f;
constexpr float kGamma = 0.882911075530934f, kDelta = 0.443506852043971f;
constexpr float kK = 1.230174104914001f;
constexpr float kInvK = 1.0f / 1.230174104914001f;
constexpr int kThreads = 256;
constexpr int kTile = 32;

gj2k_status device_fail(gj2k_error *error, cudaError_t e, const char *what)
{
    if (error != nullptr) {
        error->status = GJ2K_ERROR_DEVICE;
        std::snprintf(error->message, sizeof error->message, "GPU: %s: %s", what,
                      cudaGetErrorString(e));
    }
    cudaGetLastError();
    return GJ2K_ERROR_DEVICE;
}

#define GPU_CHECK(call, what)                                                                  \
    do {                                                                                       \
        cudaError_t gpu_check_e_ = (call);                                                     \
        if (gpu_check_e_ != cudaSuccess)                                                       \
            return device_fail(error, gpu_check_e_, what);                                     \
    } while (0)
/* Every launch is checked where it is made. */
#define GPU_LAUNCHED(what) GPU_CHECK(cudaGetLastError(), what)

unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

__device__ __forceinline__ int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* Whole-sample symmetric extension of local index i into [0, n), n >= 2. */
__device__ __forceinline__ int64_t mirror(int64_t i, int64_t n)
{
    int64_t period = 2 * (n - 1);
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

/* ----------------------------------------------------------- lifting */

/* The 5/3 steps (F.4.8.1 forward: odd samples first, then even; F.3.8.1
 * inverse: even first, then odd) in 64-bit integers, and the 1-sample rule. */
struct Lift53 {
    static __device__ int32_t forward_odd(int32_t x, int32_t a, int32_t b) { return wrap32((int64_t)x - (((int64_t)a + b) >> 1)); }
    static __device__ int32_t forward_even(int32_t x, int32_t a, int32_t b) { return wrap32((int64_t)x + (((int64_t)a + b + 2) >> 2)); }
    static __device__ int32_t inverse_even(int32_t x, int32_t a, int32_t b) { return wrap32((int64_t)x - (((int64_t)a + b + 2) >> 2)); }
    static __device__ int32_t inverse_odd(int32_t x, int32_t a, int32_t b) { return wrap32((int64_t)x + (((int64_t)a + b) >> 1)); }
    static __device__ int32_t lone_forward(int32_t x) { return wrap32((int64_t)x * 2); }
    static __device__ int32_t lone_inverse(int32_t x) { return wrap32((int64_t)x >> 1); }
};

/* The 9/7 steps: x + c * (a + b) in binary32 (F.4.8.2, F.3.8.2). */
struct Lift97 {
    static __device__ float step(float x, float a, float b, float c) { return x + c * (a + b); }
    static __device__ float lone_forward(float x) { return x * 2.0f; }
    static __device__ float lone_inverse(float x) { return x * 0.5f; }
};

/* One lifting step over the samples of parity `parity` (absolute) of every
 * line: line c holds data[i * stride + c], i in [0, n), starting at
 * absolute coordinate i0. Thread per line. */
template <typename T, typename Step>
__global__ void lift_lines(T *data, size_t stride, uint32_t lines, uint32_t n, uint32_t i0,
                           unsigned parity, Step step)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= lines || n < 2)
        return;
    uint32_t first = ((i0 & 1u) == parity) ? 0u : 1u;
    for (uint32_t i = first; i < n; i += 2) {
        T a = data[(size_t)mirror((int64_t)i - 1, n) * stride + c];
        T b = data[(size_t)mirror((int64_t)i + 1, n) * stride + c];
        T *x = &data[(size_t)i * stride + c];
        *x = step(*x, a, b);
    }
}

struct Step53ForwardOdd {
    __device__ int32_t operator()(int32_t x, int32_t a, int32_t b) const { return Lift53::forward_odd(x, a, b); }
};
struct Step53ForwardEven {
    __device__ int32_t operator()(int32_t x, int32_t a, int32_t b) const { return Lift53::forward_even(x, a, b); }
};
struct Step53InverseEven {
    __device__ int32_t operator()(int32_t x, int32_t a, int32_t b) const { return Lift53::inverse_even(x, a, b); }
};
struct Step53InverseOdd {
    __device__ int32_t operator()(int32_t x, int32_t a, int32_t b) const { return Lift53::inverse_odd(x, a, b); }
};
struct Step97 {
    float c;
    __device__ float operator()(float x, float a, float b) const { return Lift97::step(x, a, b, c); }
};

/* Scaling of the 9/7 (F.4.8.2 step 5-6, F.3.8.2 step 1-2): low-pass samples
 * (even absolute coordinate) by `low`, high-pass by `high`. */
__global__ void scale_lines(float *data, size_t stride, uint32_t lines, uint32_t n, uint32_t i0,
                            float low, float high)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= lines || n < 2)
        return;
    for (uint32_t i = 0; i < n; i++) {
        float *x = &data[(size_t)i * stride + c];
        *x = *x * (((i0 + i) & 1u) ? high : low);
    }
}

/* A line of one sample (1D_SD F.4.6, 1D_SR F.3.6): doubled or halved when odd. */
template <typename T, typename Lift>
__global__ void lone_sample(T *data, uint32_t lines, uint32_t i0, bool forward)
{
    uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= lines || (i0 & 1u) == 0)
        return;
    data[c] = forward ? Lift::lone_forward(data[c]) : Lift::lone_inverse(data[c]);
}

/* Line position i of a line starting at i0 <-> its place in the low-first
 * order: low samples (even absolute) at (i - s) / 2, high at nl + (i + s - 1) / 2. */
__device__ __forceinline__ uint32_t split_position(uint32_t i, uint32_t s, uint32_t nl)
{
    return ((i + s) & 1u) == 0 ? (i - s) / 2 : nl + (i + s - 1) / 2;
}

/* Moves each line's samples to low-first order (forward) or back. Lines
 * are columns of `from`/`to` (row i at i * stride). */
template <typename T>
__global__ void reorder_lines(const T *from, T *to, size_t stride, uint32_t lines, uint32_t n,
                              uint32_t i0, bool forward)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)lines * n)
        return;
    uint32_t c = (uint32_t)(k % lines), i = (uint32_t)(k / lines);
    uint32_t s = i0 & 1u, nl = (n + 1 - s) / 2;
    uint32_t j = split_position(i, s, nl);
    if (forward)
        to[(size_t)j * stride + c] = from[(size_t)i * stride + c];
    else
        to[(size_t)i * stride + c] = from[(size_t)j * stride + c];
}

/* out (w rows of h) = transpose of in (h rows of w). */
template <typename T>
__global__ void transpose(const T *in, size_t in_stride, T *out, size_t out_stride, uint32_t w,
                          uint32_t h)
{
    __shared__ T tile[kTile][kTile + 1];
    uint32_t x = blockIdx.x * kTile + threadIdx.x;
    for (uint32_t dy = threadIdx.y; dy < kTile; dy += blockDim.y) {
        uint32_t y = blockIdx.y * kTile + dy;
        if (x < w && y < h)
            tile[dy][threadIdx.x] = in[(size_t)y * in_stride + x];
    }
    __syncthreads();
    uint32_t ox = blockIdx.y * kTile + threadIdx.x;
    for (uint32_t dy = threadIdx.y; dy < kTile; dy += blockDim.y) {
        uint32_t oy = blockIdx.x * kTile + dy;
        if (ox < h && oy < w)
            out[(size_t)oy * out_stride + ox] = tile[threadIdx.x][dy];
    }
}

/* ---------------------------------------------- elementwise stages */

__global__ void level_shift_forward(int32_t *s, size_t n, int64_t offset)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        s[i] = wrap32((int64_t)s[i] - offset);
}

__global__ void to_float(const int32_t *in, float *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)in[i];
}

__global__ void rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t r = c0[i], g = c1[i], b = c2[i];
    c0[i] = wrap32((r + 2 * g + b) >> 2);
    c1[i] = wrap32(b - g);
    c2[i] = wrap32(r - g);
}

__global__ void rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t y0 = c0[i], y1 = c1[i], y2 = c2[i];
    int64_t g = y0 - ((y2 + y1) >> 2);
    c0[i] = wrap32(y2 + g);
    c1[i] = wrap32(g);
    c2[i] = wrap32(y1 + g);
}

__global__ void ict_forward(float *c0, float *c1, float *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float r = c0[i], g = c1[i], b = c2[i];
    c0[i] = (0.299f * r + 0.587f * g) + 0.114f * b;
    c1[i] = (-0.16875f * r - 0.33126f * g) + 0.5f * b;
    c2[i] = (0.5f * r - 0.41869f * g) - 0.08131f * b;
}

__global__ void ict_inverse(float *c0, float *c1, float *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float y = c0[i], cb = c1[i], cr = c2[i];
    c0[i] = y + 1.402f * cr;
    c1[i] = (y - 0.34413f * cb) - 0.71414f * cr;
    c2[i] = y + 1.772f * cb;
}

/* E.1: q = sign(a) floor(|a| / delta) over one subband region, with the
 * fraction rate control weighs distortion by. */
__global__ void quantize(const float *a, int32_t *q, uint8_t *fractions, size_t stride,
                         uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, float delta)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)w * h)
        return;
    size_t at = (size_t)(y0 + k / w) * stride + x0 + k % w;
    float v = a[at];
    float m = fabsf(v) / delta;
    int32_t index;
    if (m < 2147483648.0f)
        index = (int32_t)m;
    else
        index = m != m ? 0 : INT32_MAX;
    q[at] = v < 0.0f ? -index : index;
    float fraction = (m - floorf(m)) * 256.0f;
    fractions[at] = (uint8_t)(fraction < 255.0f ? fraction : 255.0f);
}

__device__ __forceinline__ int32_t shift_back(int64_t v, int64_t offset, int64_t lo, int64_t hi)
{
    v += offset;
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

__global__ void level_shift_inverse(int32_t *s, size_t n, int64_t offset, int64_t lo, int64_t hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        s[i] = shift_back(s[i], offset, lo, hi);
}

__global__ void level_shift_inverse_float(const float *v, int32_t *s, size_t n, int64_t offset,
                                          int64_t lo, int64_t hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = v[i];
    int64_t r;
    if (x != x)
        r = 0;
    else if (x >= 2147483648.0f)
        r = INT32_MAX;
    else if (x < -2147483648.0f)
        r = INT32_MIN;
    else
        r = (int64_t)__float2int_rn(x); /* ties to even, as lrintf */
    s[i] = shift_back(r, offset, lo, hi);
}

/* -------------------------------------------------- host side */

uint32_t ceil_shift(uint32_t v, unsigned n)
{
    if (n >= 32)
        return v != 0;
    return (uint32_t)(((uint64_t)v + ((uint64_t)1 << n) - 1) >> n);
}

dwt_rect ll_rect(dwt_rect tile, unsigned level)
{
    return dwt_rect{ceil_shift(tile.x0, level), ceil_shift(tile.y0, level),
                    ceil_shift(tile.x1, level), ceil_shift(tile.y1, level)};
}

unsigned usable_precision(unsigned p) { return p < 1 ? 1 : p > 32 ? 32 : p; }

}  // namespace

struct gpu_stage {
    cudaStream_t stream;
    void *planes[3];       /* per MCT plane: int32 or float samples of a tile-component */
    void *work[3];         /* scratch for the transposes and reorders */
    void *indices;         /* 9/7: int32 indices, and the int32 upload buffer */
    uint8_t *fractions;
    size_t capacity;       /* elements each buffer holds */
};

static gj2k_status ensure_capacity(gpu_stage *g, size_t elements, gj2k_error *error)
{
    if (elements <= g->capacity)
        return GJ2K_OK;
    for (int i = 0; i < 3; i++) {
        cudaFree(g->planes[i]);
        cudaFree(g->work[i]);
        g->planes[i] = g->work[i] = nullptr;
    }
    cudaFree(g->indices);
    cudaFree(g->fractions);
    g->indices = nullptr;
    g->fractions = nullptr;
    g->capacity = 0;
    size_t bytes = elements * 4;
    for (int i = 0; i < 3; i++) {
        GPU_CHECK(cudaMalloc(&g->planes[i], bytes), "cudaMalloc");
        GPU_CHECK(cudaMalloc(&g->work[i], bytes), "cudaMalloc");
    }
    GPU_CHECK(cudaMalloc(&g->indices, bytes), "cudaMalloc");
    GPU_CHECK(cudaMalloc((void **)&g->fractions, elements), "cudaMalloc");
    g->capacity = elements;
    return GJ2K_OK;
}

static size_t rect_area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

/* One 1-D level over the `lines` columns (n samples each, from i0) of `data`
 * (row stride `stride`), result low-first in `data`; `spare` holds as much. */
template <typename T>
static gj2k_status lift_columns(gpu_stage *g, T *data, T *spare, size_t stride, uint32_t lines,
                                uint32_t n, uint32_t i0, bool reversible, bool forward,
                                gj2k_error *error)
{
    if (lines == 0 || n == 0)
        return GJ2K_OK;
    unsigned blocks = blocks_for(lines);
    if (n == 1) {
        if (reversible)
            lone_sample<int32_t, Lift53><<<blocks, kThreads, 0, g->stream>>>((int32_t *)data, lines, i0, forward);
        else
            lone_sample<float, Lift97><<<blocks, kThreads, 0, g->stream>>>((float *)data, lines, i0, forward);
        GPU_LAUNCHED("lone sample");
        return GJ2K_OK;
    }
    size_t count = (size_t)lines * n;
    if (!forward) { /* back to the interleaved order first */
        reorder_lines<T><<<blocks_for(count), kThreads, 0, g->stream>>>(data, spare, stride, lines, n, i0, false);
        GPU_LAUNCHED("reorder");
        GPU_CHECK(cudaMemcpy2DAsync(data, stride * sizeof(T), spare, stride * sizeof(T), lines * sizeof(T), n,
                                    cudaMemcpyDeviceToDevice, g->stream), "copy");
    }
    if (reversible) {
        int32_t *d = (int32_t *)data;
        if (forward) {
            lift_lines<int32_t><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step53ForwardOdd{});
            lift_lines<int32_t><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step53ForwardEven{});
        } else {
            lift_lines<int32_t><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step53InverseEven{});
            lift_lines<int32_t><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step53InverseOdd{});
        }
    } else {
        float *d = (float *)data;
        if (forward) {
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step97{kAlpha});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step97{kBeta});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step97{kGamma});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step97{kDelta});
            scale_lines<<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, kInvK, kK);
        } else {
            scale_lines<<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, kK, kInvK);
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step97{-kDelta});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step97{-kGamma});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 0, Step97{-kBeta});
            lift_lines<float><<<blocks, kThreads, 0, g->stream>>>(d, stride, lines, n, i0, 1, Step97{-kAlpha});
        }
    }
    GPU_LAUNCHED("lifting");
    if (forward) {
        reorder_lines<T><<<blocks_for(count), kThreads, 0, g->stream>>>(data, spare, stride, lines, n, i0, true);
        GPU_LAUNCHED("reorder");
        GPU_CHECK(cudaMemcpy2DAsync(data, stride * sizeof(T), spare, stride * sizeof(T), lines * sizeof(T), n,
                                    cudaMemcpyDeviceToDevice, g->stream), "copy");
    }
    return GJ2K_OK;
}

/* Rows through a transpose: rows of the area become columns of `t`. */
template <typename T>
static gj2k_status lift_rows(gpu_stage *g, T *data, size_t stride, dwt_rect r, T *t, T *spare,
                             bool reversible, bool forward, gj2k_error *error)
{
    uint32_t w = r.x1 - r.x0, h = r.y1 - r.y0;
    dim3 block(kTile, 8);
    dim3 there((w + kTile - 1) / kTile, (h + kTile - 1) / kTile);
    transpose<T><<<there, block, 0, g->stream>>>(data, stride, t, h, w, h);
    GPU_LAUNCHED("transpose");
    gj2k_status status = lift_columns<T>(g, t, spare, h, h, w, r.x0, reversible, forward, error);
    if (status != GJ2K_OK)
        return status;
    dim3 back((h + kTile - 1) / kTile, (w + kTile - 1) / kTile);
    transpose<T><<<back, block, 0, g->stream>>>(t, h, data, stride, h, w);
    GPU_LAUNCHED("transpose");
    return GJ2K_OK;
}

/* Every level of one plane (2D_SD: columns then rows; 2D_SR: rows then columns). */
template <typename T>
static gj2k_status transform_plane(gpu_stage *g, T *data, dwt_rect tile, unsigned levels,
                                   bool reversible, bool forward, gj2k_error *error)
{
    size_t stride = tile.x1 - tile.x0;
    if (levels > 32)
        levels = 32;
    T *t = (T *)g->work[0], *spare = (T *)g->work[1];
    for (unsigned i = 0; i < levels; i++) {
        unsigned level = forward ? i + 1 : levels - i;
        dwt_rect r = ll_rect(tile, level - 1);
        uint32_t w = r.x1 > r.x0 ? r.x1 - r.x0 : 0, h = r.y1 > r.y0 ? r.y1 - r.y0 : 0;
        if (w == 0 || h == 0)
            continue;
        gj2k_status status;
        if (forward) {
            status = lift_columns<T>(g, data, spare, stride, w, h, r.y0, reversible, true, error);
            if (status == GJ2K_OK)
                status = lift_rows<T>(g, data, stride, r, t, spare, reversible, true, error);
        } else {
            status = lift_rows<T>(g, data, stride, r, t, spare, reversible, false, error);
            if (status == GJ2K_OK)
                status = lift_columns<T>(g, data, spare, stride, w, h, r.y0, reversible, false, error);
        }
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_stage_create(gpu_stage **out, gj2k_error *error)
{
    *out = nullptr;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return device_fail(error, e != cudaSuccess ? e : cudaErrorNoDevice, "no usable GPU");
    gpu_stage *g = (gpu_stage *)std::calloc(1, sizeof *g);
    if (g == nullptr) {
        if (error) {
            error->status = GJ2K_ERROR_OUT_OF_MEMORY;
            std::snprintf(error->message, sizeof error->message, "out of memory");
        }
        return GJ2K_ERROR_OUT_OF_MEMORY;
    }
    e = cudaSetDevice(0);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        std::free(g);
        return device_fail(error, e, "cannot open the GPU");
    }
    *out = g;
    return GJ2K_OK;
}

extern "C" void gpu_stage_destroy(gpu_stage *g)
{
    if (g == nullptr)
        return;
    for (int i = 0; i < 3; i++) {
        cudaFree(g->planes[i]);
        cudaFree(g->work[i]);
    }
    cudaFree(g->indices);
    cudaFree(g->fractions);
    cudaStreamDestroy(g->stream);
    std::free(g);
}

extern "C" size_t gpu_stage_free_memory(gpu_stage *g)
{
    size_t free_bytes = 0, total = 0;
    if (g == nullptr || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return free_bytes;
}

extern "C" size_t gpu_stage_bytes_needed(const dwt_rect *rects, uint32_t count)
{
    size_t largest = 0;
    for (uint32_t c = 0; c < count; c++)
        largest = rect_area(rects[c]) > largest ? rect_area(rects[c]) : largest;
    return largest * (7 * 4 + 1);
}

/* Planes `first`..`first + n` are uploaded, level-shifted and (with mct)
 * transformed together; each then goes through its levels alone. */
extern "C" gj2k_status gpu_forward(gpu_stage *g, gpu_forward_plane *planes, uint32_t count,
                                   bool reversible, bool mct, gj2k_error *error)
{
    size_t largest = 0;
    for (uint32_t c = 0; c < count; c++)
        largest = rect_area(planes[c].rect) > largest ? rect_area(planes[c].rect) : largest;
    gj2k_status status = ensure_capacity(g, largest ? largest : 1, error);
    if (status != GJ2K_OK)
        return status;
    uint32_t c = 0;
    while (c < count) {
        uint32_t group = (mct && c == 0 && count >= 3) ? 3 : 1;
        size_t n = rect_area(planes[c].rect);
        for (uint32_t k = 0; k < group; k++) {
            gpu_forward_plane *p = &planes[c + k];
            int32_t *d = (int32_t *)g->indices;
            if (n == 0)
                continue;
            GPU_CHECK(cudaMemcpyAsync(d, p->samples, n * 4, cudaMemcpyHostToDevice, g->stream), "upload");
            int64_t offset = p->is_signed ? 0 : (int64_t)1 << (usable_precision(p->precision) - 1);
            level_shift_forward<<<blocks_for(n), kThreads, 0, g->stream>>>(d, n, offset);
            GPU_LAUNCHED("level shift");
            if (reversible)
                GPU_CHECK(cudaMemcpyAsync(g->planes[k], d, n * 4, cudaMemcpyDeviceToDevice, g->stream), "copy");
            else
                to_float<<<blocks_for(n), kThreads, 0, g->stream>>>(d, (float *)g->planes[k], n);
            GPU_LAUNCHED("to float");
        }
        if (group == 3 && n > 0) {
            if (reversible)
                rct_forward<<<blocks_for(n), kThreads, 0, g->stream>>>((int32_t *)g->planes[0], (int32_t *)g->planes[1], (int32_t *)g->planes[2], n);
            else
                ict_forward<<<blocks_for(n), kThreads, 0, g->stream>>>((float *)g->planes[0], (float *)g->planes[1], (float *)g->planes[2], n);
            GPU_LAUNCHED("component transform");
        }
        for (uint32_t k = 0; k < group; k++) {
            gpu_forward_plane *p = &planes[c + k];
            size_t area = rect_area(p->rect);
            if (area == 0)
                continue;
            size_t stride = p->rect.x1 - p->rect.x0;
            if (reversible) {
                status = transform_plane<int32_t>(g, (int32_t *)g->planes[k], p->rect, p->levels, true, true, error);
                if (status != GJ2K_OK)
                    return status;
                GPU_CHECK(cudaMemcpyAsync(p->samples, g->planes[k], area * 4, cudaMemcpyDeviceToHost, g->stream), "download");
            } else {
                status = transform_plane<float>(g, (float *)g->planes[k], p->rect, p->levels, false, true, error);
                if (status != GJ2K_OK)
                    return status;
                unsigned levels = p->levels > 32 ? 32 : p->levels;
                for (unsigned s = 0; s < 3 * p->levels + 1; s++) {
                    unsigned level = s == 0 ? p->levels : p->levels - (s - 1) / 3;
                    dwt_band band = s == 0 ? DWT_BAND_LL : (dwt_band)((s - 1) % 3 + 1);
                    uint32_t x, y, w, h;
                    dwt_band_placement(p->rect, level > levels ? levels : level, band, &x, &y, &w, &h);
                    if ((size_t)w * h == 0)
                        continue;
                    quantize<<<blocks_for((size_t)w * h), kThreads, 0, g->stream>>>(
                        (const float *)g->planes[k], (int32_t *)g->indices, g->fractions, stride, x, y, w, h, p->steps[s]);
                    GPU_LAUNCHED("quantize");
                }
                GPU_CHECK(cudaMemcpyAsync(p->samples, g->indices, area * 4, cudaMemcpyDeviceToHost, g->stream), "download");
                GPU_CHECK(cudaMemcpyAsync(p->fractions, g->fractions, area, cudaMemcpyDeviceToHost, g->stream), "download");
            }
            /* The next plane reuses the buffers. */
            GPU_CHECK(cudaStreamSynchronize(g->stream), "forward transform");
        }
        c += group;
    }
    return GJ2K_OK;
}

extern "C" gj2k_status gpu_inverse(gpu_stage *g, gpu_inverse_plane *planes, uint32_t count,
                                   bool reversible, bool mct, gj2k_error *error)
{
    size_t largest = 0;
    for (uint32_t c = 0; c < count; c++)
        largest = rect_area(planes[c].rect) > largest ? rect_area(planes[c].rect) : largest;
    gj2k_status status = ensure_capacity(g, largest ? largest : 1, error);
    if (status != GJ2K_OK)
        return status;
    uint32_t c = 0;
    while (c < count) {
        uint32_t group = (mct && c == 0 && count >= 3) ? 3 : 1;
        for (uint32_t k = 0; k < group; k++) {
            gpu_inverse_plane *p = &planes[c + k];
            size_t n = rect_area(p->rect);
            if (n == 0)
                continue;
            const void *source = reversible ? (const void *)p->samples : (const void *)p->floats;
            GPU_CHECK(cudaMemcpyAsync(g->planes[k], source, n * 4, cudaMemcpyHostToDevice, g->stream), "upload");
            status = reversible
                ? transform_plane<int32_t>(g, (int32_t *)g->planes[k], p->rect, p->levels, true, false, error)
                : transform_plane<float>(g, (float *)g->planes[k], p->rect, p->levels, false, false, error);
            if (status != GJ2K_OK)
                return status;
        }
        size_t n = rect_area(planes[c].rect);
        if (group == 3 && n > 0) {
            if (reversible)
                rct_inverse<<<blocks_for(n), kThreads, 0, g->stream>>>((int32_t *)g->planes[0], (int32_t *)g->planes[1], (int32_t *)g->planes[2], n);
            else
                ict_inverse<<<blocks_for(n), kThreads, 0, g->stream>>>((float *)g->planes[0], (float *)g->planes[1], (float *)g->planes[2], n);
            GPU_LAUNCHED("inverse component transform");
        }
        for (uint32_t k = 0; k < group; k++) {
            gpu_inverse_plane *p = &planes[c + k];
            size_t area = rect_area(p->rect);
            if (area == 0)
                continue;
            unsigned prec = usable_precision(p->precision);
            int64_t offset = p->is_signed ? 0 : (int64_t)1 << (prec - 1);
            int64_t lo = p->is_signed ? -((int64_t)1 << (prec - 1)) : 0;
            int64_t hi = p->is_signed ? ((int64_t)1 << (prec - 1)) - 1 : ((int64_t)1 << prec) - 1;
            if (hi > INT32_MAX)
                hi = INT32_MAX;
            int32_t *out = (int32_t *)g->indices;
            if (reversible) {
                level_shift_inverse<<<blocks_for(area), kThreads, 0, g->stream>>>((int32_t *)g->planes[k], area, offset, lo, hi);
                out = (int32_t *)g->planes[k];
            } else {
                level_shift_inverse_float<<<blocks_for(area), kThreads, 0, g->stream>>>((const float *)g->planes[k], out, area, offset, lo, hi);
            }
            GPU_LAUNCHED("inverse level shift");
            GPU_CHECK(cudaMemcpyAsync(p->samples, out, area * 4, cudaMemcpyDeviceToHost, g->stream), "download");
            GPU_CHECK(cudaStreamSynchronize(g->stream), "inverse transform");
        }
        c += group;
    }
    return GJ2K_OK;
}
