/* dwt_level_kernels.cuh - one decomposition level per kernel, both
 * directions at once, in registers (the register-based strategy of
 * Enfedaque, Auli-Llinas and Moure): each warp owns a block of 64 columns
 * (two neighbouring columns per thread, an even and an odd one) by `rows`
 * output rows (Y in the paper; rows_for in gpu_levels.cuh picks it). It
 * slides down its block a batch of row pairs at a time: vertical lifting
 * runs inside each thread as a pipeline over the last few rows (kept in
 * registers, so each row of the block and its halo is loaded once),
 * horizontal lifting trades neighbours through warp shuffles. No shared memory, no block
 * barriers. Neighbouring blocks overlap by the halo (2 samples a side for
 * 5/3, 4 for 9/7), and samples outside the level's area are read mirrored
 * (whole-sample symmetric extension, F.3.7 / F.4.7), which by the symmetry
 * of the lifting steps gives the CPU reference's values bit for bit
 * (docs/numerics.md). Register arrays are indexed only by unrolled
 * compile-time indices. Included by gpu_stage.cu. */
#ifndef GJ2K_DWT_LEVEL_KERNELS_CUH
#define GJ2K_DWT_LEVEL_KERNELS_CUH

#include <cstdint>

extern "C" {
#include "codeblock_layout.h"
#include "dwt.h"
}

namespace dwt_levels {

constexpr int kWarpsPerBlock = 4;
/* Row pairs loaded together, ahead of their lifting. */
constexpr int kForwardBatch = 2, kInverseBatch = 4; /* measured best (docs/gpu-notes.md) */
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ int32_t wrap(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* Local index i (any integer) of a line of n >= 1 samples, mirrored into [0, n). */
__device__ __forceinline__ int64_t mirror(int64_t i, int64_t n)
{
    if (i >= 0 && i < n) /* nearly always: no division */
        return i;
    if (n == 1)
        return 0;
    if (i < 0 && -i < n)
        return -i;
    if (i >= n && i < 2 * n - 1)
        return 2 * (n - 1) - i;
    /* Lines shorter than the halo reflect more than once, and lanes or
     * warps past a short line's end land here too; i is always within a
     * few blocks' width (~256) of the line, so 32 bits suffice (and keep
     * the division inline: no call, no stack). */
    int32_t period = (int32_t)(2 * (n - 1)), k = (int32_t)i % period;
    if (k < 0)
        k += period;
    return k < n ? k : period - k;
}

/* The filters: halo, sample type and the steps (F.4.8, F.3.8). The 5/3
 * comes twice: in 64-bit arithmetic, exact for any int32 input (as the CPU
 * reference), and in 32-bit arithmetic for inputs small enough that no sum
 * can overflow (narrow_53_holds on the host), where it is the same. */
enum Wavelet : int { k97 = 0, k53 = 1, k53Narrow = 2 };

/* Blocks per SM each kernel is built for (__launch_bounds__), which sets
 * its register budget: the most that fit with no local memory (ptxas -v,
 * sm_75 to sm_90; docs/gpu-notes.md), capped at the threads an SM holds.
 * Left to itself, ptxas spills a few bytes to reach the next occupancy
 * step. */
constexpr int max_threads_per_sm()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
    return 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
    return 1536;
#else
    return 2048;
#endif
}
constexpr int blocks_per_sm(int wanted)
{
    constexpr int most = max_threads_per_sm() / (32 * kWarpsPerBlock);
    return wanted < most ? wanted : most;
}
constexpr int forward_min_blocks(int wavelet) { return blocks_per_sm(wavelet == k97 ? 9 : 10); }
constexpr int inverse_min_blocks(bool dequantize) { return blocks_per_sm(dequantize ? 6 : 7); }
template <int Wavelet> struct Filter;

template <> struct Filter<k53> {
    using T = int32_t;
    static constexpr bool kReversible = true;
    static constexpr int kHalo = 2;
    /* forward: odd -= (even + even) >> 1, then even += (odd + odd + 2) >> 2 */
    static __device__ __forceinline__ T forward_step(int step, T x, T a, T b)
    {
        return step == 0 ? wrap((int64_t)x - (((int64_t)a + b) >> 1))
                         : wrap((int64_t)x + (((int64_t)a + b + 2) >> 2));
    }
    /* inverse: even -= (odd + odd + 2) >> 2, then odd += (even + even) >> 1 */
    static __device__ __forceinline__ T inverse_step(int step, T x, T a, T b)
    {
        return step == 0 ? wrap((int64_t)x - (((int64_t)a + b + 2) >> 2))
                         : wrap((int64_t)x + (((int64_t)a + b) >> 1));
    }
    static __device__ __forceinline__ T scale_low_forward(T x) { return x; }
    static __device__ __forceinline__ T scale_high_forward(T x) { return x; }
    static __device__ __forceinline__ T scale_low_inverse(T x) { return x; }
    static __device__ __forceinline__ T scale_high_inverse(T x) { return x; }
    static __device__ __forceinline__ T lone_forward(T x) { return wrap((int64_t)x * 2); }
    static __device__ __forceinline__ T lone_inverse(T x) { return wrap((int64_t)x >> 1); }
};

template <> struct Filter<k53Narrow> : Filter<k53> {
    static __device__ __forceinline__ T forward_step(int step, T x, T a, T b)
    {
        return step == 0 ? x - ((a + b) >> 1) : x + ((a + b + 2) >> 2);
    }
};

template <> struct Filter<k97> {
    using T = float;
    static constexpr bool kReversible = false;
    static constexpr int kHalo = 4;
    static __device__ __forceinline__ float forward_coefficient(int step)
    {
        return step == 0 ? DWT97_ALPHA : step == 1 ? DWT97_BETA : step == 2 ? DWT97_GAMMA : DWT97_DELTA;
    }
    /* x + c * (a + b), one rounding each (nvcc --fmad=false) */
    static __device__ __forceinline__ T forward_step(int step, T x, T a, T b)
    {
        return x + forward_coefficient(step) * (a + b);
    }
    /* inverse steps: -delta (even), -gamma (odd), -beta (even), -alpha (odd) */
    static __device__ __forceinline__ T inverse_step(int step, T x, T a, T b)
    {
        return x + (-forward_coefficient(3 - step)) * (a + b);
    }
    static __device__ __forceinline__ T scale_low_forward(T x) { return x * DWT97_INV_K; }
    static __device__ __forceinline__ T scale_high_forward(T x) { return x * DWT97_K; }
    static __device__ __forceinline__ T scale_low_inverse(T x) { return x * DWT97_K; }
    /* Decoding only: 1/K as the CPU decoder applies it (dwt.h). */
    static __device__ __forceinline__ T scale_high_inverse(T x) { return x * DWT97_INV_K_INTEROP; }
    static __device__ __forceinline__ T lone_forward(T x) { return x * 2.0f; }
    static __device__ __forceinline__ T lone_inverse(T x) { return x * 0.5f; }
};

/* One column's vertical lifting as a pipeline (F.4.8, F.3.8 run down the
 * column): each feed takes the next two rows, 2n and 2n + 1, and gives
 * back a finished pair of rows H / 2 pairs behind, so after H warm-up
 * feeds from row 2m - H it gives rows 2m, 2m + 1, then each next pair.
 * Each value goes through the same operations as in the whole-column
 * form, so the bits are the same. */
template <typename F, bool Forward, bool Reversible = F::kReversible> struct Column;

template <typename F> struct Column<F, true, true> { /* 5/3 analysis */
    int32_t even = 0, odd = 0, high = 0; /* x[2n-2], x[2n-1], d[n-2] */
    __device__ __forceinline__ void feed(int32_t x0, int32_t x1, int32_t &low_out, int32_t &high_out)
    {
        int32_t d = F::forward_step(0, odd, even, x0); /* d[n-1] */
        low_out = F::forward_step(1, even, high, d);   /* s[n-1] */
        high_out = d;
        even = x0, odd = x1, high = d;
    }
};

template <typename F> struct Column<F, true, false> { /* 9/7 analysis */
    float even = 0, odd = 0, o1 = 0, e2 = 0, o3 = 0; /* x[2n-2], x[2n-1], o1[n-2], e2[n-2], o3[n-3] */
    __device__ __forceinline__ void feed(float x0, float x1, float &low_out, float &high_out)
    {
        float o1n = F::forward_step(0, odd, even, x0); /* o1[n-1] */
        float e2n = F::forward_step(1, even, o1, o1n); /* e2[n-1] */
        float o3n = F::forward_step(2, o1, e2, e2n);   /* o3[n-2] */
        float e4 = F::forward_step(3, e2, o3, o3n);    /* e4[n-2] */
        low_out = F::scale_low_forward(e4);
        high_out = F::scale_high_forward(o3n);
        even = x0, odd = x1, o1 = o1n, e2 = e2n, o3 = o3n;
    }
};

template <typename F> struct Column<F, false, true> { /* 5/3 synthesis: fed s[n], d[n] */
    int32_t even = 0, high = 0; /* x[2n-2], d[n-1] */
    __device__ __forceinline__ void feed(int32_t s, int32_t d, int32_t &even_out, int32_t &odd_out)
    {
        int32_t e = F::inverse_step(0, s, high, d); /* x[2n] */
        odd_out = F::inverse_step(1, high, even, e); /* x[2n-1] */
        even_out = even;
        even = e, high = d;
    }
};

template <typename F> struct Column<F, false, false> { /* 9/7 synthesis: fed K s[n], d[n] / K */
    float high = 0, e1 = 0, o1 = 0, e2 = 0; /* d[n-1], e1[n-1], o1[n-2], e2[n-2] */
    __device__ __forceinline__ void feed(float s, float d, float &even_out, float &odd_out)
    {
        float e1n = F::inverse_step(0, s, high, d);   /* e1[n] */
        float o1n = F::inverse_step(1, high, e1, e1n); /* o1[n-1] */
        float e2n = F::inverse_step(2, e1, o1, o1n);  /* e2[n-1] */
        odd_out = F::inverse_step(3, o1, e2, e2n);    /* x[2n-3] */
        even_out = e2;                                /* x[2n-4] */
        high = d, e1 = e1n, o1 = o1n, e2 = e2n;
    }
};

/* Feeds `Pairs` row pairs of the lane's two columns (e[] even, o[] odd)
 * through their pipelines, leaving each finished pair in its place. */
template <int Pairs, typename C, typename T>
__device__ __forceinline__ void feed_pairs(C &even_column, C &odd_column, T *e, T *o)
{
#pragma unroll
    for (int i = 0; i < Pairs; i++) {
        even_column.feed(e[2 * i], e[2 * i + 1], e[2 * i], e[2 * i + 1]);
        odd_column.feed(o[2 * i], o[2 * i + 1], o[2 * i], o[2 * i + 1]);
    }
}

/* Horizontal lifting of one row: this lane's even (low) sample e and odd
 * (high) sample o; the neighbours come from the lanes on either side. */
template <int Wavelet, bool Forward>
__device__ __forceinline__ void lift_lanes(typename Filter<Wavelet>::T &e, typename Filter<Wavelet>::T &o)
{
    using F = Filter<Wavelet>;
    constexpr int steps = F::kReversible ? 2 : 4;
    if (Forward) {
#pragma unroll
        for (int step = 0; step < steps; step++) {
            if ((step & 1) == 0) { /* odd samples: even neighbours here and to the right */
                auto right = __shfl_down_sync(kFull, e, 1);
                o = F::forward_step(step, o, e, right);
            } else {              /* even samples: odd neighbours to the left and here */
                auto left = __shfl_up_sync(kFull, o, 1);
                e = F::forward_step(step, e, left, o);
            }
        }
        e = F::scale_low_forward(e);
        o = F::scale_high_forward(o);
    } else {
        e = F::scale_low_inverse(e);
        o = F::scale_high_inverse(o);
#pragma unroll
        for (int step = 0; step < steps; step++) {
            if ((step & 1) == 0) {
                auto left = __shfl_up_sync(kFull, o, 1);
                e = F::inverse_step(step, e, left, o);
            } else {
                auto right = __shfl_down_sync(kFull, e, 1);
                o = F::inverse_step(step, o, e, right);
            }
        }
    }
}

/* Quantization on the store (E.1), as quant_forward_with_fractions. */
__device__ __forceinline__ void quantize_store(float v, float delta, int32_t *q, uint8_t *fraction)
{
    float m = fabsf(v) / delta;
    int32_t index;
    if (m < 2147483648.0f)
        index = (int32_t)m;
    else
        index = m != m ? 0 : INT32_MAX;
    *q = v < 0.0f ? -index : index;
    float f = (m - (float)index) * 256.0f; /* m's excess over |q|, as the CPU's */
    *fraction = (uint8_t)(f < 255.0f ? f : 255.0f);
}

/* Dequantization (E.1.1.2) of a coefficient held in signed half steps,
 * h = +-(2 |q| + 2^lowest plane), as the decoder's CPU path: 9/7,
 * ((float)|h| * 0.5f) * Delta, as |h| * (Delta / 2) (both halvings exact);
 * 5/3, |h| / 2 rounded down, signed. */
__device__ __forceinline__ float dequantize_halves(int32_t h, float half_delta)
{
    float v = (float)(h < 0 ? -h : h) * half_delta;
    return h < 0 ? -v : v;
}

__device__ __forceinline__ int32_t dequantize_halves_integer(int32_t h)
{
    int32_t v = (h < 0 ? -h : h) >> 1;
    return h < 0 ? -v : v;
}

/* How an inverse level reads its bands: as they are (the filter's type),
 * or, dequantized on the GPU, from int32 half steps (9/7: times
 * half_delta, by band: LL, HL, LH, HH); the LL input is quantized only at
 * the deepest level (ll_quantized), after which it is the previous level's
 * output. */
struct Dequantization {
    bool ll_quantized;
    float half_delta[4];
};

/* Samples as they arrive from the host: at their storage width (1, 2 or 4
 * bytes; signed or not), level-shifted (G.1.1) and converted on load. For
 * a level kernel, bytes == 0 says the input is of the filter's type. The
 * elementwise pass (load_input) takes the width at run time; the level
 * kernels take it as a template parameter (Input). */
struct SamplesIn {
    const void *data;
    unsigned bytes;
    bool is_signed;
    int64_t offset;
};

template <typename T>
__device__ __forceinline__ T load_input(const SamplesIn &samples, size_t at)
{
    int64_t v;
    if (samples.bytes == 1)
        v = samples.is_signed ? (int64_t)((const int8_t *)samples.data)[at]
                              : (int64_t)((const uint8_t *)samples.data)[at];
    else if (samples.bytes == 2)
        v = samples.is_signed ? (int64_t)((const int16_t *)samples.data)[at]
                              : (int64_t)((const uint16_t *)samples.data)[at];
    else
        v = ((const int32_t *)samples.data)[at];
    return (T)wrap(v - samples.offset);
}

/* Samples as the host takes them: level-shifted back, clamped (G.1.2; 9/7
 * rounded half to even first, as lrintf) and at 1, 2 or 4 bytes. For a
 * level kernel, bytes == 0 says the output is of the filter's type. */
struct SamplesOut {
    void *data;
    unsigned bytes;
    int64_t offset, lo, hi;
};

__device__ __forceinline__ int64_t to_integer(int32_t v) { return v; }
__device__ __forceinline__ int64_t to_integer(float v)
{
    if (v != v)
        return 0;
    if (v >= 2147483648.0f)
        return INT32_MAX;
    if (v < -2147483648.0f)
        return INT32_MIN;
    return (int64_t)__float2int_rn(v);
}

__device__ __forceinline__ int32_t to_sample(int64_t v, const SamplesOut &samples)
{
    int64_t x = v + samples.offset;
    return (int32_t)(x < samples.lo ? samples.lo : x > samples.hi ? samples.hi : x);
}

template <typename T>
__device__ __forceinline__ void store_output(const SamplesOut &samples, size_t at, T v)
{
    int32_t clamped = to_sample(to_integer(v), samples);
    if (samples.bytes == 1)
        ((uint8_t *)samples.data)[at] = (uint8_t)clamped;
    else if (samples.bytes == 2)
        ((uint16_t *)samples.data)[at] = (uint16_t)clamped;
    else
        ((int32_t *)samples.data)[at] = clamped;
}

/* The element type a level kernel reads (Bytes == 0: the filter's own) and
 * writes (Bytes == 0: the filter's own; else samples, as store_output). */
template <typename T, int Bytes, bool Signed> struct Input { using type = T; };
template <typename T> struct Input<T, 1, false> { using type = uint8_t; };
template <typename T> struct Input<T, 1, true> { using type = int8_t; };
template <typename T> struct Input<T, 2, false> { using type = uint16_t; };
template <typename T> struct Input<T, 2, true> { using type = int16_t; };
template <typename T, bool Signed> struct Input<T, 4, Signed> { using type = int32_t; };

template <typename T, int Bytes> struct Output { using type = T; };
template <typename T> struct Output<T, 1> { using type = uint8_t; };
template <typename T> struct Output<T, 2> { using type = uint16_t; };
template <typename T> struct Output<T, 4> { using type = int32_t; };

template <typename T, int Bytes, typename In>
__device__ __forceinline__ T convert_input(In v, int64_t offset)
{
    if constexpr (Bytes == 0)
        return v;
    else
        return (T)wrap((int64_t)v - offset);
}

template <int Bytes, typename T>
__device__ __forceinline__ typename Output<T, Bytes>::type convert_output(T v, const SamplesOut &samples)
{
    if constexpr (Bytes == 0)
        return v;
    else
        return (typename Output<T, Bytes>::type)to_sample(to_integer(v), samples);
}

/* A lane's two neighbouring elements, moved as one when aligned. */
template <typename V> struct alignas(2 * sizeof(V)) Pair {
    V first, second;
};

/* Whether every even local column of every row of a buffer starts an
 * aligned Pair. */
template <typename V>
__device__ __forceinline__ bool pairs_aligned(const V *base, size_t stride)
{
    return ((uintptr_t)base % sizeof(Pair<V>)) == 0 && (stride & 1) == 0;
}

/* A level's area on its own grid. */
struct Area {
    uint32_t x0, y0, x1, y1;
};

__host__ __device__ inline uint32_t low_count(uint32_t a0, uint32_t a1) { return (a1 + 1) / 2 - (a0 + 1) / 2; }

/* The part of a level one launch covers and where its buffers start: the
 * output rows [begin, end) (absolute, begin even); the input's first row
 * (area-local); the LL row, low band row and high band row (Mallat rows,
 * the high ones counted from 0, not from lh) at row 0 of their buffers;
 * the output's first row (area-local). A whole level: begin = y0 rounded
 * down to even, end = y1, the rest 0. A strip of a level too large for the
 * device (gpu_strips.cuh) holds only the rows around it. */
struct Window {
    int64_t begin, end;
    int64_t in_row0;
    int64_t ll_row0, low_row0, high_row0;
    int64_t out_row0;
};

__host__ __device__ inline Window whole_level(Area a)
{
    return Window{(int64_t)(a.y0 & ~1u), (int64_t)a.y1, 0, 0, 0, 0, 0};
}

/* Where the warp's block lies: its first loaded column (even, absolute,
 * the halo included), its first output row (even, absolute), how many
 * row pairs it gives (its last ones may fall outside the area), and the lane. */
struct Block {
    int64_t column, row;
    int pairs;
    int lane;
};

template <int Halo>
__device__ __forceinline__ Block block_of(Area a, int rows, const Window &win)
{
    Block b;
    b.lane = threadIdx.x & 31;
    int64_t warp = (int64_t)blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
    b.column = (int64_t)(a.x0 & ~1u) + warp * (64 - 2 * Halo) - Halo;
    b.row = win.begin + (int64_t)blockIdx.y * rows;
    int64_t end = b.row + rows < win.end ? b.row + rows : win.end;
    b.pairs = (int)((end - b.row + 1) / 2);
    return b;
}

/* Where a level's outputs go: LL compact into `ll`; HL, LH, HH into
 * `bands` (5/3, and 9/7 in the Mallat layout without `indices`: the lab's plain
 * transform), or quantized into `indices` and `fractions` (9/7): code-
 * block by code-block (`blocks`: `layout`, by band) or in the Mallat layout
 * with `stride`. */
struct ForwardOut {
    void *ll;
    size_t ll_stride;
    void *bands;
    int32_t *indices;
    uint8_t *fractions;
    size_t stride;
    float delta[4]; /* per band (HL, LH, HH at 1..3) */
    codeblock_layout_band layout[4];
};

/* Forward level (2D_SD, F.4.2: columns, then rows): reads `in` (`rows`
 * must be even: the output rows each warp gives). */
template <int Wavelet, int InBytes, bool InSigned, bool Blocks>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, forward_min_blocks(Wavelet))
forward_level(const typename Input<typename Filter<Wavelet>::T, InBytes, InSigned>::type *__restrict__ in,
              int64_t offset, size_t in_stride, Area a, Window win, ForwardOut out, int rows)
{
    using F = Filter<Wavelet>;
    constexpr bool Reversible = F::kReversible;
    using T = typename F::T;
    using In = typename Input<T, InBytes, InSigned>::type;
    constexpr int H = F::kHalo;
    const int64_t w = a.x1 - a.x0, h = a.y1 - a.y0;
    const Block b = block_of<H>(a, rows, win);
    const int64_t xe = b.column + 2 * b.lane; /* this lane's even column */
    const int64_t ce = mirror(xe - a.x0, w), co = mirror(xe + 1 - a.x0, w);
    const bool vector = co == ce + 1 && (a.x0 & 1u) == 0 && pairs_aligned(in, in_stride);

    /* The lane's columns are an even (low-pass) and an odd (high-pass)
     * one; where each lands in its band is the same for every row. */
    const uint32_t lw = low_count(a.x0, a.x1), lh = low_count(a.y0, a.y1);
    const bool lane_valid = b.lane >= H / 2 && b.lane < 32 - H / 2;
    const bool low_in = lane_valid && xe >= a.x0 && xe < a.x1;
    const bool high_in = lane_valid && xe + 1 >= a.x0 && xe + 1 < a.x1;
    const size_t low_x = (size_t)(xe / 2 - (a.x0 + 1) / 2);
    const size_t high_x = lw + (size_t)(xe / 2 - a.x0 / 2);

    /* Row r's two samples as stored, then as the filter takes them. */
    auto fetch = [&](int64_t r, In &e, In &o) {
        const In *row = in + (size_t)(mirror(r - a.y0, h) - win.in_row0) * in_stride;
        if (vector) {
            Pair<In> p = *reinterpret_cast<const Pair<In> *>(row + ce);
            e = p.first, o = p.second;
        } else {
            e = row[ce], o = row[co];
        }
    };
    auto load = [&](int64_t r, T &e, T &o) {
        In ve, vo;
        fetch(r, ve, vo);
        e = convert_input<T, InBytes>(ve, offset);
        o = convert_input<T, InBytes>(vo, offset);
    };
    /* A row lifted across the lanes. */
    auto lift_row = [&](T &e, T &o) {
        if (w >= 2) {
            lift_lanes<Wavelet, true>(e, o);
        } else if (a.x0 & 1u) {
            e = F::lone_forward(e);
            o = F::lone_forward(o);
        }
    };
    /* Rows y (low) and y + 1 (high), lifted, to their bands. */
    auto store = [&](int64_t y, T low_e, T low_o, T high_e, T high_o) {
#pragma unroll
        for (int part = 0; part < 2; part++) {
            T e = part ? high_e : low_e, o = part ? high_o : low_o;
            int64_t yy = y + part;
            if (yy < a.y0 || yy >= a.y1)
                continue;
            size_t oy = part ? lh + (size_t)(yy / 2 - a.y0 / 2) : (size_t)(yy / 2 - (a.y0 + 1) / 2);
            size_t band_row = oy - (size_t)(part ? win.high_row0 : win.low_row0);
            /* Band coordinates: column 2u (low) or 2u + 1 (high) is u; rows likewise. */
            uint32_t u = (uint32_t)(xe / 2), v = (uint32_t)(yy / 2);
            if (low_in) {
                if (!part) { /* LL */
                    ((T *)out.ll)[(oy - (size_t)win.ll_row0) * out.ll_stride + low_x] = e;
                } else { /* LH */
                    size_t at = Blocks ? codeblock_layout_offset(&out.layout[2], u, v)
                                       : band_row * out.stride + low_x;
                    if (Reversible || (!Blocks && out.indices == nullptr))
                        ((T *)out.bands)[at] = e;
                    else
                        quantize_store((float)e, out.delta[2], &out.indices[at], &out.fractions[at]);
                }
            }
            if (high_in) { /* HL or HH */
                size_t at = Blocks ? codeblock_layout_offset(&out.layout[part ? 3 : 1], u, v)
                                   : band_row * out.stride + high_x;
                if (Reversible || (!Blocks && out.indices == nullptr))
                    ((T *)out.bands)[at] = o;
                else
                    quantize_store((float)o, out.delta[part ? 3 : 1], &out.indices[at], &out.fractions[at]);
            }
        }
    };

    if (h < 2) { /* one row: no vertical lifting (F.4.6), doubled at an odd row */
        for (int j = 0; j < b.pairs; j++) {
            T e0, o0, e1, o1;
            load(b.row + 2 * j, e0, o0);
            load(b.row + 2 * j + 1, e1, o1);
            if (a.y0 & 1u) {
                e1 = F::lone_forward(e1);
                o1 = F::lone_forward(o1);
            }
            lift_row(e0, o0);
            lift_row(e1, o1);
            store(b.row + 2 * j, e0, o0, e1, o1);
        }
        return;
    }
    Column<F, true> even_column, odd_column;
    int64_t r = b.row - H;
    { /* warm-up: the H rows above the block and its first H */
        T e[2 * H], o[2 * H];
#pragma unroll
        for (int i = 0; i < 2 * H; i++)
            load(r + i, e[i], o[i]);
        feed_pairs<H>(even_column, odd_column, e, o);
        r += 2 * H;
    }
    /* Each batch in phases, so the lanes' independent work overlaps:
     * loads, the columns' pipelines, the rows across the lanes, stores. */
    int j = 0;
    for (; j + kForwardBatch <= b.pairs; j += kForwardBatch, r += 2 * kForwardBatch) {
        T e[2 * kForwardBatch], o[2 * kForwardBatch];
#pragma unroll
        for (int i = 0; i < 2 * kForwardBatch; i++)
            load(r + i, e[i], o[i]);
        feed_pairs<kForwardBatch>(even_column, odd_column, e, o);
#pragma unroll
        for (int i = 0; i < 2 * kForwardBatch; i++)
            lift_row(e[i], o[i]);
#pragma unroll
        for (int i = 0; i < kForwardBatch; i++)
            store(b.row + 2 * (j + i), e[2 * i], o[2 * i], e[2 * i + 1], o[2 * i + 1]);
    }
    for (; j < b.pairs; j++, r += 2) {
        T e[2], o[2];
        load(r, e[0], o[0]);
        load(r + 1, e[1], o[1]);
        feed_pairs<1>(even_column, odd_column, e, o);
        lift_row(e[0], o[0]);
        lift_row(e[1], o[1]);
        store(b.row + 2 * j, e[0], o[0], e[1], o[1]);
    }
}

/* Inverse level (2D_SR, F.3.2: rows, then columns): LL compact in
 * `ll_data`, HL, LH, HH in the Mallat buffer `band_data`; the result,
 * compact, to `out` in the filter's type (OutBytes == 0) or as samples
 * (convert_output). */
template <int Wavelet, int OutBytes, bool Dequantize>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, inverse_min_blocks(Dequantize))
inverse_level(const void *__restrict__ ll_data, size_t ll_stride, const void *__restrict__ band_data,
              size_t stride, Dequantization dq, Area a, Window win,
              typename Output<typename Filter<Wavelet>::T, OutBytes>::type *__restrict__ out,
              SamplesOut samples, size_t out_stride, int rows)
{
    using F = Filter<Wavelet>;
    using T = typename F::T;
    using Out = typename Output<T, OutBytes>::type;
    constexpr int H = F::kHalo;
    const int64_t w = a.x1 - a.x0, h = a.y1 - a.y0;
    const uint32_t lw = low_count(a.x0, a.x1), lh = low_count(a.y0, a.y1);
    const Block b = block_of<H>(a, rows, win);
    const int64_t xe = b.column + 2 * b.lane;
    /* A band's element, dequantized when it comes so. */
    auto band_value = [&](const void *base, size_t at, bool quantized, float half_delta) -> T {
        if constexpr (Dequantize) {
            if (quantized) {
                int32_t h = ((const int32_t *)base)[at];
                if constexpr (F::kReversible)
                    return dequantize_halves_integer(h);
                else
                    return dequantize_halves(h, half_delta);
            }
        }
        return ((const T *)base)[at];
    };
    /* The lane's two columns (mirrored), where they sit in their bands and
     * where a low row holds them (LL or HL): the same for every row. */
    const void *low_base[2];
    size_t low_stride[2], ox[2], low_row0[2];
    bool low_quantized[2];
    float low_half_delta[2], high_half_delta[2];
#pragma unroll
    for (int side = 0; side < 2; side++) {
        int64_t x = a.x0 + mirror(xe + side - a.x0, w);
        bool high_column = (x & 1) != 0;
        ox[side] = high_column ? lw + (size_t)(x / 2 - a.x0 / 2) : (size_t)(x / 2 - (a.x0 + 1) / 2);
        low_base[side] = high_column ? band_data : ll_data;
        low_stride[side] = high_column ? stride : ll_stride;
        low_quantized[side] = high_column || dq.ll_quantized;
        /* Each band's step chosen here, by constant index: an index known
         * only at run time would put dq.half_delta in local memory. */
        low_half_delta[side] = high_column ? dq.half_delta[1] : dq.half_delta[0];   /* HL : LL */
        high_half_delta[side] = high_column ? dq.half_delta[3] : dq.half_delta[2]; /* HH : LH */
        low_row0[side] = (size_t)(high_column ? win.low_row0 : win.ll_row0);
    }
    const bool lane_valid = b.lane >= H / 2 && b.lane < 32 - H / 2;
    const bool even_in = lane_valid && xe >= a.x0 && xe < a.x1;
    const bool odd_in = lane_valid && xe + 1 >= a.x0 && xe + 1 < a.x1;
    const bool vector = even_in && odd_in && (a.x0 & 1u) == 0 && pairs_aligned(out, out_stride);

    /* Row r's two elements, as the bands hold them (dequantized). */
    auto load = [&](int64_t r, bool odd_slot, T &e, T &o) {
        int64_t y = a.y0 + mirror(r - a.y0, h);
        bool high_row = h >= 2 ? odd_slot : (y & 1) != 0; /* mirroring keeps parity from 2 rows on */
        size_t oy = high_row ? lh + (size_t)(y / 2 - a.y0 / 2) : (size_t)(y / 2 - (a.y0 + 1) / 2);
        if (high_row) { /* LH below LL, HH below HL */
            size_t at = (oy - (size_t)win.high_row0) * stride;
            e = band_value(band_data, at + ox[0], true, high_half_delta[0]);
            o = band_value(band_data, at + ox[1], true, high_half_delta[1]);
        } else {
            e = band_value(low_base[0], (oy - low_row0[0]) * low_stride[0] + ox[0], low_quantized[0],
                           low_half_delta[0]);
            o = band_value(low_base[1], (oy - low_row0[1]) * low_stride[1] + ox[1], low_quantized[1],
                           low_half_delta[1]);
        }
    };
    /* A row lifted across the lanes (HOR_SR), scaled for the columns. */
    auto lift_row = [&](bool odd_slot, T &e, T &o) {
        if (w >= 2) {
            lift_lanes<Wavelet, false>(e, o);
        } else if (a.x0 & 1u) {
            e = F::lone_inverse(e);
            o = F::lone_inverse(o);
        }
        if (h >= 2) {
            e = odd_slot ? F::scale_high_inverse(e) : F::scale_low_inverse(e);
            o = odd_slot ? F::scale_high_inverse(o) : F::scale_low_inverse(o);
        }
    };
    /* Rows y and y + 1 (columns xe, xe + 1) stored. */
    auto emit = [&](int64_t y, T e0, T o0, T e1, T o1) {
#pragma unroll
        for (int part = 0; part < 2; part++) {
            int64_t yy = y + part;
            if (yy < a.y0 || yy >= a.y1)
                continue;
            Out *row = out + (size_t)(yy - a.y0 - win.out_row0) * out_stride + (xe - a.x0);
            Out e = convert_output<OutBytes>(part ? e1 : e0, samples);
            Out o = convert_output<OutBytes>(part ? o1 : o0, samples);
            if (vector) {
                *reinterpret_cast<Pair<Out> *>(row) = Pair<Out>{e, o};
            } else {
                if (even_in)
                    row[0] = e;
                if (odd_in)
                    row[1] = o;
            }
        }
    };

    if (h < 2) { /* one row: no vertical lifting (F.3.6), halved at an odd row */
        for (int j = 0; j < b.pairs; j++) {
            T e0, o0, e1, o1;
            load(b.row + 2 * j, false, e0, o0);
            load(b.row + 2 * j + 1, true, e1, o1);
            lift_row(false, e0, o0);
            lift_row(true, e1, o1);
            if (a.y0 & 1u) {
                e1 = F::lone_inverse(e1);
                o1 = F::lone_inverse(o1);
            }
            emit(b.row + 2 * j, e0, o0, e1, o1);
        }
        return;
    }
    Column<F, false> even_column, odd_column;
    int64_t r = b.row - H;
    {
        T e[2 * H], o[2 * H];
#pragma unroll
        for (int i = 0; i < 2 * H; i++)
            load(r + i, i & 1, e[i], o[i]);
#pragma unroll
        for (int i = 0; i < 2 * H; i++)
            lift_row(i & 1, e[i], o[i]);
        feed_pairs<H>(even_column, odd_column, e, o);
        r += 2 * H;
    }
    /* Each batch in phases: loads, the rows across the lanes, the columns'
     * pipelines, stores. */
    int j = 0;
    for (; j + kInverseBatch <= b.pairs; j += kInverseBatch, r += 2 * kInverseBatch) {
        T e[2 * kInverseBatch], o[2 * kInverseBatch];
#pragma unroll
        for (int i = 0; i < 2 * kInverseBatch; i++)
            load(r + i, i & 1, e[i], o[i]);
#pragma unroll
        for (int i = 0; i < 2 * kInverseBatch; i++)
            lift_row(i & 1, e[i], o[i]);
        feed_pairs<kInverseBatch>(even_column, odd_column, e, o);
#pragma unroll
        for (int i = 0; i < kInverseBatch; i++)
            emit(b.row + 2 * (j + i), e[2 * i], o[2 * i], e[2 * i + 1], o[2 * i + 1]);
    }
    for (; j < b.pairs; j++, r += 2) {
        T e[2], o[2];
        load(r, false, e[0], o[0]);
        load(r + 1, true, e[1], o[1]);
        lift_row(false, e[0], o[0]);
        lift_row(true, e[1], o[1]);
        feed_pairs<1>(even_column, odd_column, e, o);
        emit(b.row + 2 * j, e[0], o[0], e[1], o[1]);
    }
}

/* Grid of a level's kernel: blocks of 64 - 2 Halo columns by `rows` rows
 * over the window's rows. */
template <int Halo>
inline dim3 level_grid(Area a, int rows, const Window &win)
{
    uint64_t columns = (uint64_t)(a.x1 - (a.x0 & ~1u));
    uint64_t height = (uint64_t)(win.end - win.begin);
    uint64_t blocks = (columns + (64 - 2 * Halo) - 1) / (64 - 2 * Halo);
    return dim3((unsigned)((blocks + kWarpsPerBlock - 1) / kWarpsPerBlock),
                (unsigned)((height + rows - 1) / rows));
}

}  // namespace dwt_levels

#endif
