/* strategy_kernels.cuh - the other ways of computing one decomposition
 * level on the GPU, beside the register-based kernels of
 * dwt_level_kernels.cuh (which the codec runs), for `gj2k bench dwt
 * --strategy` and the time model (gpu_strategies.h):
 *
 * - block: a tile of the level and its halo in shared memory, lifted down
 *   the columns and then along the rows (or back) in one kernel, every
 *   lifting step a parallel pass with a block barrier after it (the
 *   monolithic, block-based scheme).
 * - separable: the same tiles, one direction a kernel: the vertical pass
 *   over tall slabs of columns (whole rows of the slab loaded, so every
 *   load is a coalesced row; Kucis et al. adapt the vertical pass so),
 *   the horizontal pass over wide strips of rows, an intermediate plane
 *   between them.
 * - convolution: one direction a kernel, no shared memory: every position
 *   filtered straight from its neighbours (the 9/7 by its 9- and 7-tap
 *   filters, host-made from the lifting steps; the 5/3, whose rounding is
 *   no filter, by its lifting written out as one expression of the five
 *   inputs).
 * - polyconvolution: one kernel, no shared memory, no barriers: a thread
 *   gives a 2x2 quad of outputs from its whole 2-D neighbourhood, lifting
 *   it in registers (both directions' steps fused, the work of the halo
 *   done again by every thread).
 *
 * Every strategy reads outside the level's area mirrored (F.3.7, F.4.7) and
 * runs the lifting steps of dwt_levels::Filter, in the reference's order,
 * so each gives the CPU reference's bits, except the 9/7 convolution,
 * whose sums of products round differently (gpu_dwt_strategy_exact).
 * Included by gpu_strategies.cu. */
#ifndef GJ2K_STRATEGY_KERNELS_CUH
#define GJ2K_STRATEGY_KERNELS_CUH

#include "dwt_level_kernels.cuh"

namespace dwt_strategies {

using dwt_levels::Area;
using dwt_levels::Filter;
using dwt_levels::mirror;

constexpr int kThreads = 256;

/* A level's area, its size and its low-pass counts. */
struct Level {
    Area a;
    int64_t w, h;
    uint32_t lw, lh;
};

inline Level level_of(Area a)
{
    return Level{a, (int64_t)(a.x1 - a.x0), (int64_t)(a.y1 - a.y0),
                 dwt_levels::low_count(a.x0, a.x1), dwt_levels::low_count(a.y0, a.y1)};
}

/* The Mallat column (row) of absolute column x (row y) of the level: the
 * low-pass (even) ones first, then the high-pass ones. */
__device__ __forceinline__ size_t mallat_x(const Level &l, int64_t x)
{
    return (x & 1) ? l.lw + (size_t)(x / 2 - l.a.x0 / 2) : (size_t)(x / 2 - (l.a.x0 + 1) / 2);
}
__device__ __forceinline__ size_t mallat_y(const Level &l, int64_t y)
{
    return (y & 1) ? l.lh + (size_t)(y / 2 - l.a.y0 / 2) : (size_t)(y / 2 - (l.a.y0 + 1) / 2);
}

/* Where a kernel reads and writes, by area-local position (lx, ly) of the
 * interleaved level: a compact plane, or the level's bands (LL compact in
 * `ll`, HL, LH and HH in the Mallat buffer `bands`). */
template <typename T> struct PlaneIn {
    const T *p;
    size_t stride;
    __device__ __forceinline__ T get(const Level &, int64_t lx, int64_t ly) const
    {
        return p[(size_t)ly * stride + (size_t)lx];
    }
};
template <typename T> struct PlaneOut {
    T *p;
    size_t stride;
    __device__ __forceinline__ void put(const Level &, int64_t lx, int64_t ly, T v) const
    {
        p[(size_t)ly * stride + (size_t)lx] = v;
    }
};
template <typename T> struct BandsIn {
    const T *ll;
    size_t ll_stride;
    const T *bands;
    size_t stride;
    __device__ __forceinline__ T get(const Level &l, int64_t lx, int64_t ly) const
    {
        int64_t x = l.a.x0 + lx, y = l.a.y0 + ly;
        size_t cx = mallat_x(l, x), cy = mallat_y(l, y);
        return ((x | y) & 1) ? bands[cy * stride + cx] : ll[cy * ll_stride + cx];
    }
};
template <typename T> struct BandsOut {
    T *ll;
    size_t ll_stride;
    T *bands;
    size_t stride;
    __device__ __forceinline__ void put(const Level &l, int64_t lx, int64_t ly, T v) const
    {
        int64_t x = l.a.x0 + lx, y = l.a.y0 + ly;
        size_t cx = mallat_x(l, x), cy = mallat_y(l, y);
        if ((x | y) & 1)
            bands[cy * stride + cx] = v;
        else
            ll[cy * ll_stride + cx] = v;
    }
};

/* Lifting steps: 2 (5/3) or 4 (9/7), as many samples of halo; which
 * parity of position a step updates (forward: odd first; inverse: even
 * first) and the step itself. */
template <typename F> __host__ __device__ constexpr int steps_of() { return F::kReversible ? 2 : 4; }
template <bool Forward> __host__ __device__ constexpr int step_parity(int step)
{
    return Forward ? ((step & 1) == 0 ? 1 : 0) : ((step & 1) == 0 ? 0 : 1);
}
template <typename F, bool Forward>
__device__ __forceinline__ typename F::T lift(int step, typename F::T x, typename F::T a, typename F::T b)
{
    return Forward ? F::forward_step(step, x, a, b) : F::inverse_step(step, x, a, b);
}
/* The scaling of a position by parity: after the steps forward, before them back. */
template <typename F, bool Forward>
__device__ __forceinline__ typename F::T scale(int parity, typename F::T x)
{
    if (Forward)
        return parity ? F::scale_high_forward(x) : F::scale_low_forward(x);
    return parity ? F::scale_high_inverse(x) : F::scale_low_inverse(x);
}
/* A line of one sample: doubled (halved back) at an odd coordinate (F.4.6, F.3.6). */
template <typename F, bool Forward>
__device__ __forceinline__ typename F::T lone(typename F::T x)
{
    return Forward ? F::lone_forward(x) : F::lone_inverse(x);
}

/* ------------------------------------------- block and separable */

/* One direction's lifting of a tile in shared memory (`s`, rows `pitch`
 * apart): lines [l0, l1) of `count` positions each, position i of a line at
 * s[line * across + i * along]; position 0 is at an even coordinate. Every
 * step is one parallel pass and a barrier. A level one sample long in this
 * direction takes the lone rule instead (`odd`: its coordinate is odd). */
template <typename F, bool Forward>
__device__ void lift_tile(typename F::T *s, int across, int along, int l0, int l1, int count,
                          bool lone_line, bool odd)
{
    using T = typename F::T;
    const int lines = l1 - l0;
    if (lone_line) {
        if (odd)
            for (int k = threadIdx.x; k < lines * count; k += blockDim.x) {
                T *v = s + (l0 + k / count) * across + (k % count) * along;
                *v = lone<F, Forward>(*v);
            }
        __syncthreads();
        return;
    }
    auto scale_all = [&]() {
        if (!F::kReversible) {
            for (int k = threadIdx.x; k < lines * count; k += blockDim.x) {
                int i = k % count;
                T *v = s + (l0 + k / count) * across + i * along;
                *v = scale<F, Forward>(i & 1, *v);
            }
            __syncthreads();
        }
    };
    if (!Forward)
        scale_all();
#pragma unroll
    for (int step = 0; step < steps_of<F>(); step++) {
        const int first = step_parity<Forward>(step) ? 1 : 2; /* positions 1 .. count - 2 */
        const int per_line = (count - first) / 2;
        for (int k = threadIdx.x; k < lines * per_line; k += blockDim.x) {
            int i = first + 2 * (k / lines);
            T *v = s + (l0 + k % lines) * across + i * along;
            *v = lift<F, Forward>(step, *v, v[-along], v[along]);
        }
        __syncthreads();
    }
    if (Forward)
        scale_all();
}

/* A tile of TW x TH positions of the level (its top-left even on both
 * axes) and the halo of the directions it lifts (Vertical, Horizontal):
 * loaded mirrored from `src`, lifted in shared memory (forward: columns,
 * then rows, 2D_SD; inverse: rows, then columns, 2D_SR), stored to `dst`. */
template <int Wavelet, bool Forward, bool Vertical, bool Horizontal, int TW, int TH, class Src, class Dst>
__global__ void __launch_bounds__(kThreads) tile_level(Level l, Src src, Dst dst)
{
    using F = Filter<Wavelet>;
    using T = typename F::T;
    constexpr int H = F::kHalo, HX = Horizontal ? H : 0, HY = Vertical ? H : 0;
    constexpr int SW = TW + 2 * HX, SH = TH + 2 * HY, P = SW + 1; /* odd pitch: rows on other banks */
    __shared__ T s[SH * P];
    const int64_t X = (int64_t)(l.a.x0 & ~1u) + (int64_t)blockIdx.x * TW;
    const int64_t Y = (int64_t)(l.a.y0 & ~1u) + (int64_t)blockIdx.y * TH;
    for (int k = threadIdx.x; k < SW * SH; k += blockDim.x) {
        int i = k / SW, j = k % SW;
        s[i * P + j] = src.get(l, mirror(X - HX + j - l.a.x0, l.w), mirror(Y - HY + i - l.a.y0, l.h));
    }
    __syncthreads();
    const bool lone_x = l.w < 2, lone_y = l.h < 2;
    const bool odd_x = (l.a.x0 & 1u) != 0, odd_y = (l.a.y0 & 1u) != 0;
    if (Forward) { /* columns over the whole window, then the tile's rows */
        if (Vertical)
            lift_tile<F, true>(s, 1, P, 0, SW, SH, lone_y, odd_y);
        if (Horizontal)
            lift_tile<F, true>(s, P, 1, HY, HY + TH, SW, lone_x, odd_x);
    } else { /* rows over the whole window, then the tile's columns */
        if (Horizontal)
            lift_tile<F, false>(s, P, 1, 0, SH, SW, lone_x, odd_x);
        if (Vertical)
            lift_tile<F, false>(s, 1, P, HX, HX + TW, SH, lone_y, odd_y);
    }
    for (int k = threadIdx.x; k < TW * TH; k += blockDim.x) {
        int i = k / TW, j = k % TW;
        int64_t lx = X + j - l.a.x0, ly = Y + i - l.a.y0;
        if (lx >= 0 && lx < l.w && ly >= 0 && ly < l.h)
            dst.put(l, lx, ly, s[(i + HY) * P + j + HX]);
    }
}

/* Tile sizes: both directions; the vertical slabs; the horizontal strips. */
constexpr int kBlockW = 64, kBlockH = 32;
constexpr int kSlabW = 64, kSlabH = 64;
constexpr int kStripW = 128, kStripH = 16;

/* ------------------------------------------------ convolution */

/* The 9/7's filters of interleaved positions: position j of parity p is
 * the sum of taps[p][o + 4] times position j + o, o in -4..4 (forward:
 * samples to coefficients; inverse: coefficients to samples). */
struct Taps {
    float t[2][9];
};

/* One direction of a level, each position on a thread of its own, every
 * input read where it lies (through the cache). */
template <int Wavelet, bool Forward, bool Vertical, class Src, class Dst>
__global__ void __launch_bounds__(kThreads) convolve_level(Level l, Src src, Dst dst, Taps taps)
{
    using F = Filter<Wavelet>;
    using T = typename F::T;
    const int64_t lx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, ly = blockIdx.y;
    if (lx >= l.w)
        return;
    const int64_t n = Vertical ? l.h : l.w, at = Vertical ? ly : lx;
    const bool odd = (((Vertical ? l.a.y0 : l.a.x0) + at) & 1) != 0;
    auto x = [&](int o) -> T {
        int64_t m = mirror(at + o, n);
        return Vertical ? src.get(l, lx, m) : src.get(l, m, ly);
    };
    T v;
    if (n < 2) {
        v = odd ? lone<F, Forward>(x(0)) : x(0);
    } else if constexpr (F::kReversible) {
        /* The two steps written out: exact, as the lifting. */
        if (Forward && odd) {
            v = F::forward_step(0, x(0), x(-1), x(1));
        } else if (Forward) {
            T left = F::forward_step(0, x(-1), x(-2), x(0)), right = F::forward_step(0, x(1), x(0), x(2));
            v = F::forward_step(1, x(0), left, right);
        } else if (!odd) {
            v = F::inverse_step(0, x(0), x(-1), x(1));
        } else {
            T left = F::inverse_step(0, x(-1), x(-2), x(0)), right = F::inverse_step(0, x(1), x(0), x(2));
            v = F::inverse_step(1, x(0), left, right);
        }
    } else {
        const float *t = taps.t[odd ? 1 : 0];
        float sum = 0.0f;
#pragma unroll
        for (int o = -4; o <= 4; o++)
            sum += t[o + 4] * x(o);
        v = sum;
    }
    dst.put(l, lx, ly, v);
}

/* ---------------------------------------------- polyconvolution */

/* Lifting of lines of a register window v[N][N]: lines [L0, L1), positions
 * 0..N-1 (position 0 even), along rows (Vertical: down columns). Indices
 * are compile-time after unrolling, so v stays in registers. */
template <typename F, bool Forward, bool Vertical, int N, int L0, int L1>
__device__ __forceinline__ void lift_window(typename F::T (&v)[N][N], bool lone_line, bool odd)
{
    auto at = [&](int line, int i) -> typename F::T & { return Vertical ? v[i][line] : v[line][i]; };
    if (lone_line) {
        if (odd) {
#pragma unroll
            for (int line = L0; line < L1; line++)
#pragma unroll
                for (int i = 0; i < N; i++)
                    at(line, i) = lone<F, Forward>(at(line, i));
        }
        return;
    }
#pragma unroll
    for (int line = L0; line < L1; line++) {
        if (!Forward && !F::kReversible) {
#pragma unroll
            for (int i = 0; i < N; i++)
                at(line, i) = scale<F, false>(i & 1, at(line, i));
        }
#pragma unroll
        for (int step = 0; step < steps_of<F>(); step++) {
#pragma unroll
            for (int i = 1; i < N - 1; i++)
                if ((i & 1) == step_parity<Forward>(step))
                    at(line, i) = lift<F, Forward>(step, at(line, i), at(line, i - 1), at(line, i + 1));
        }
        if (Forward && !F::kReversible) {
#pragma unroll
            for (int i = 0; i < N; i++)
                at(line, i) = scale<F, true>(i & 1, at(line, i));
        }
    }
}

template <int Wavelet, bool Forward, class Src, class Dst>
__global__ void __launch_bounds__(128) quad_level(Level l, Src src, Dst dst)
{
    using F = Filter<Wavelet>;
    using T = typename F::T;
    constexpr int H = F::kHalo, N = 2 + 2 * H;
    const int64_t qx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t X = (int64_t)(l.a.x0 & ~1u) + 2 * qx, Y = (int64_t)(l.a.y0 & ~1u) + 2 * (int64_t)blockIdx.y;
    if (X >= (int64_t)l.a.x1)
        return;
    T v[N][N];
#pragma unroll
    for (int i = 0; i < N; i++) {
        int64_t ly = mirror(Y - H + i - l.a.y0, l.h);
#pragma unroll
        for (int j = 0; j < N; j++)
            v[i][j] = src.get(l, mirror(X - H + j - l.a.x0, l.w), ly);
    }
    const bool lone_x = l.w < 2, lone_y = l.h < 2;
    const bool odd_x = (l.a.x0 & 1u) != 0, odd_y = (l.a.y0 & 1u) != 0;
    if (Forward) { /* every column, then the two middle rows */
        lift_window<F, true, true, N, 0, N>(v, lone_y, odd_y);
        lift_window<F, true, false, N, H, H + 2>(v, lone_x, odd_x);
    } else { /* every row, then the two middle columns */
        lift_window<F, false, false, N, 0, N>(v, lone_x, odd_x);
        lift_window<F, false, true, N, H, H + 2>(v, lone_y, odd_y);
    }
#pragma unroll
    for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            int64_t lx = X + j - l.a.x0, ly = Y + i - l.a.y0;
            if (lx >= 0 && lx < l.w && ly >= 0 && ly < l.h)
                dst.put(l, lx, ly, v[H + i][H + j]);
        }
}

}  // namespace dwt_strategies

#endif
