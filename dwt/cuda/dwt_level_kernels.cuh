/* dwt_level_kernels.cuh - one decomposition level per kernel, both
 * directions at once, in registers (the register-based strategy of
 * Enfedaque, Auli-Llinas and Moure): each warp owns a strip of 64 columns
 * (two neighbouring columns per thread, an even and an odd one) by Rows
 * output rows plus the lifting halo above and below; vertical lifting runs
 * inside each thread on its registers, horizontal lifting trades neighbours
 * through warp shuffles. No shared memory, no block barriers. Neighbouring
 * strips overlap by the halo (2 samples a side for 5/3, 4 for 9/7), and
 * samples outside the level's area are read mirrored (whole-sample
 * symmetric extension, F.3.7 / F.4.7), which by the symmetry of the lifting
 * steps gives the CPU reference's values bit for bit (docs/numerics.md).
 * Register arrays are indexed only by unrolled compile-time indices.
 * Included by gpu_stage.cu. */
#ifndef GJ2K_DWT_LEVEL_KERNELS_CUH
#define GJ2K_DWT_LEVEL_KERNELS_CUH

#include <cstdint>

namespace dwt_levels {

/* Output rows per thread (Y in the paper) is the template parameter Rows:
 * 8, 16, 24 or 32 are built (gpu_stage.cu picks one; `gj2k bench` times each). */
constexpr int kWarpsPerBlock = 4;
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
    int64_t period = 2 * (n - 1); /* lines shorter than the halo reflect more than once */
    i %= period;
    if (i < 0)
        i += period;
    return i < n ? i : period - i;
}

/* The two filters: halo, sample type and the steps (F.4.8, F.3.8). */
template <bool Reversible> struct Filter;

template <> struct Filter<true> {
    using T = int32_t;
    static constexpr int kHalo = 2;
    /* forward: odd -= (even + even) >> 1, then even += (odd + odd + 2) >> 2 */
    static __device__ __forceinline__ T forward_step(int step, T x, T a, T b)
    {
        return step == 0 ? wrap((int64_t)x - (((int64_t)a + b) >> 1))
                         : wrap((int64_t)x + (((int64_t)a + b + 2) >> 2));
    }
    static constexpr int kSteps = 2;
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

template <> struct Filter<false> {
    using T = float;
    static constexpr int kHalo = 4;
    static constexpr int kSteps = 4;
    static __device__ __forceinline__ float forward_coefficient(int step)
    {
        return step == 0 ? -1.586134342059924f : step == 1 ? -0.052980118572961f
             : step == 2 ? 0.882911075530934f : 0.443506852043971f;
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
    static __device__ __forceinline__ T scale_low_forward(T x) { return x * (1.0f / 1.230174104914001f); }
    static __device__ __forceinline__ T scale_high_forward(T x) { return x * 1.230174104914001f; }
    static __device__ __forceinline__ T scale_low_inverse(T x) { return x * 1.230174104914001f; }
    static __device__ __forceinline__ T scale_high_inverse(T x) { return x * (1.0f / 1.230174104914001f); }
    static __device__ __forceinline__ T lone_forward(T x) { return x * 2.0f; }
    static __device__ __forceinline__ T lone_inverse(T x) { return x * 0.5f; }
};

/* A level's area on its own grid. */
struct Area {
    uint32_t x0, y0, x1, y1;
};

__device__ __forceinline__ uint32_t low_count(uint32_t a0, uint32_t a1) { return (a1 + 1) / 2 - (a0 + 1) / 2; }

/* Where the warp's samples lie: first loaded column and row (both even,
 * absolute), and the lane. */
struct Strip {
    int64_t column, row;
    int lane;
};

template <int Halo, int Rows>
__device__ __forceinline__ Strip strip_of(Area a)
{
    Strip s;
    s.lane = threadIdx.x & 31;
    int64_t warp = (int64_t)blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
    s.column = (int64_t)(a.x0 & ~1u) + warp * (64 - 2 * Halo) - Halo;
    s.row = (int64_t)(a.y0 & ~1u) + (int64_t)blockIdx.y * Rows - Halo;
    return s;
}

/* Vertical lifting of one column held in registers v[0..R), row 0 at an
 * even absolute coordinate: after step j the rows within j + 1 of either
 * end are stale, and the Rows rows from Halo on are the result. */
template <bool Reversible, bool Forward, int Rows>
__device__ __forceinline__ void lift_registers(typename Filter<Reversible>::T *v)
{
    using F = Filter<Reversible>;
    constexpr int R = Rows + 2 * F::kHalo;
    if (Forward) {
#pragma unroll
        for (int step = 0; step < F::kSteps; step++) {
            /* odd rows on even steps, even rows on odd steps */
#pragma unroll
            for (int k = 1 + step; k < R - 1 - step; k++)
                if ((k & 1) == ((step & 1) ^ 1))
                    v[k] = F::forward_step(step, v[k], v[k - 1], v[k + 1]);
        }
#pragma unroll
        for (int k = F::kHalo; k < F::kHalo + Rows; k++)
            v[k] = (k & 1) ? F::scale_high_forward(v[k]) : F::scale_low_forward(v[k]);
    } else {
#pragma unroll
        for (int k = 0; k < R; k++)
            v[k] = (k & 1) ? F::scale_high_inverse(v[k]) : F::scale_low_inverse(v[k]);
#pragma unroll
        for (int step = 0; step < F::kSteps; step++) {
            /* even rows on even steps, odd rows on odd steps */
#pragma unroll
            for (int k = 1 + step; k < R - 1 - step; k++)
                if ((k & 1) == (step & 1))
                    v[k] = F::inverse_step(step, v[k], v[k - 1], v[k + 1]);
        }
    }
}

/* Horizontal lifting of one row: this lane's even (low) sample e and odd
 * (high) sample o; the neighbours come from the lanes on either side. */
template <bool Reversible, bool Forward>
__device__ __forceinline__ void lift_lanes(typename Filter<Reversible>::T &e, typename Filter<Reversible>::T &o)
{
    using F = Filter<Reversible>;
    if (Forward) {
#pragma unroll
        for (int step = 0; step < F::kSteps; step++) {
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
        for (int step = 0; step < F::kSteps; step++) {
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
    float f = (m - floorf(m)) * 256.0f;
    *fraction = (uint8_t)(f < 255.0f ? f : 255.0f);
}

/* The first level may read the samples as they arrive from the host: at
 * their storage width (1, 2 or 4 bytes; signed or not), level-shifted
 * (G.1.1) and converted on load, exactly as the separate pass would. With
 * bytes == 0 the input is already of the filter's type. */
struct SamplesIn {
    const void *data;
    unsigned bytes;
    bool is_signed;
    int64_t offset;
};

template <typename T>
__device__ __forceinline__ T load_input(const T *in, const SamplesIn &samples, size_t at)
{
    if (samples.bytes == 0)
        return in[at];
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

/* The last inverse level may write the samples as the host takes them:
 * level-shifted back, clamped (G.1.2; 9/7 rounded half to even first, as
 * lrintf) and at 1, 2 or 4 bytes. With bytes == 0, the filter's type. */
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

template <typename T>
__device__ __forceinline__ void store_output(T *out, const SamplesOut &samples, size_t at, T v)
{
    if (samples.bytes == 0) {
        out[at] = v;
        return;
    }
    int64_t x = to_integer(v) + samples.offset;
    int32_t clamped = (int32_t)(x < samples.lo ? samples.lo : x > samples.hi ? samples.hi : x);
    if (samples.bytes == 1)
        ((uint8_t *)samples.data)[at] = (uint8_t)clamped;
    else if (samples.bytes == 2)
        ((uint16_t *)samples.data)[at] = (uint16_t)clamped;
    else
        ((int32_t *)samples.data)[at] = clamped;
}

/* Where a level's outputs go: LL compact into `ll`; HL, LH, HH into the
 * Mallat buffer `bands` (5/3), or quantized into `indices` and
 * `fractions` (9/7), both with `stride`. */
struct ForwardOut {
    void *ll;
    size_t ll_stride;
    void *bands;
    int32_t *indices;
    uint8_t *fractions;
    size_t stride;
    float delta[4]; /* per band (HL, LH, HH at 1..3) */
};

template <bool Reversible, int Rows>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
forward_level(const typename Filter<Reversible>::T *in, SamplesIn samples, size_t in_stride, Area a,
              ForwardOut out)
{
    using F = Filter<Reversible>;
    using T = typename F::T;
    constexpr int H = F::kHalo, R = Rows + 2 * H;
    const int64_t w = a.x1 - a.x0, h = a.y1 - a.y0;
    Strip s = strip_of<H, Rows>(a);
    int64_t xe = s.column + 2 * s.lane; /* this lane's even column */
    size_t ce = (size_t)mirror(xe - a.x0, w), co = (size_t)mirror(xe + 1 - a.x0, w);
    T ve[R], vo[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
        size_t row = (size_t)mirror(s.row + k - a.y0, h) * in_stride;
        ve[k] = load_input(in, samples, row + ce);
        vo[k] = load_input(in, samples, row + co);
    }
    if (h >= 2) {
        lift_registers<Reversible, true, Rows>(ve);
        lift_registers<Reversible, true, Rows>(vo);
    } else if (a.y0 & 1u) {
#pragma unroll
        for (int k = 0; k < R; k++) {
            ve[k] = F::lone_forward(ve[k]);
            vo[k] = F::lone_forward(vo[k]);
        }
    }
    const uint32_t lw = low_count(a.x0, a.x1), lh = low_count(a.y0, a.y1);
    const bool lane_valid = s.lane >= H / 2 && s.lane < 32 - H / 2;
    /* The lane's columns are an even (low-pass) and an odd (high-pass) one;
     * row k has the parity of k (s.row is even): every band is known at
     * compile time, and only the row offsets change with k. */
    const bool low_in = lane_valid && xe >= a.x0 && xe < a.x1;
    const bool high_in = lane_valid && xe + 1 >= a.x0 && xe + 1 < a.x1;
    const size_t low_x = (size_t)(xe / 2 - (a.x0 + 1) / 2);
    const size_t high_x = lw + (size_t)(xe / 2 - a.x0 / 2);
    const int64_t half_row = s.row / 2;
#pragma unroll
    for (int k = H; k < H + Rows; k++) {
        T e = ve[k], o = vo[k];
        if (w >= 2) {
            lift_lanes<Reversible, true>(e, o);
        } else if (a.x0 & 1u) {
            e = F::lone_forward(e);
            o = F::lone_forward(o);
        }
        int64_t y = s.row + k;
        if (y < a.y0 || y >= a.y1)
            continue;
        const bool high_row = (k & 1) != 0; /* folded: the loop is unrolled */
        size_t oy = high_row ? lh + (size_t)(half_row + k / 2 - a.y0 / 2)
                             : (size_t)(half_row + k / 2 - (a.y0 + 1) / 2);
        if (low_in) {
            if (!high_row) { /* LL */
                ((T *)out.ll)[oy * out.ll_stride + low_x] = e;
            } else if (Reversible) { /* LH */
                ((T *)out.bands)[oy * out.stride + low_x] = e;
            } else {
                size_t at = oy * out.stride + low_x;
                quantize_store((float)e, out.delta[2], &out.indices[at], &out.fractions[at]);
            }
        }
        if (high_in) { /* HL or HH */
            size_t at = oy * out.stride + high_x;
            if (Reversible)
                ((T *)out.bands)[at] = o;
            else
                quantize_store((float)o, out.delta[high_row ? 3 : 1], &out.indices[at],
                               &out.fractions[at]);
        }
    }
}

/* Where a level's inputs come from: LL compact in `ll`, HL, LH, HH in
 * the Mallat buffer `bands`; the result, compact, to `out`. */
template <bool Reversible, int Rows>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
inverse_level(const typename Filter<Reversible>::T *ll, size_t ll_stride,
              const typename Filter<Reversible>::T *bands, size_t stride, Area a,
              typename Filter<Reversible>::T *out, SamplesOut samples, size_t out_stride)
{
    using F = Filter<Reversible>;
    using T = typename F::T;
    constexpr int H = F::kHalo, R = Rows + 2 * H;
    const int64_t w = a.x1 - a.x0, h = a.y1 - a.y0;
    const uint32_t lw = low_count(a.x0, a.x1), lh = low_count(a.y0, a.y1);
    Strip s = strip_of<H, Rows>(a);
    int64_t xe = s.column + 2 * s.lane;
    /* The sample at local (i, j) comes from the subband its parities name. */
    /* The columns (mirrored) and where they sit in their bands: the same
     * for every row. */
    bool high_column[2];
    size_t ox[2];
#pragma unroll
    for (int side = 0; side < 2; side++) {
        int64_t x = a.x0 + mirror(xe + side - a.x0, w);
        high_column[side] = (x & 1) != 0;
        ox[side] = high_column[side] ? lw + (size_t)(x / 2 - a.x0 / 2)
                                     : (size_t)(x / 2 - (a.x0 + 1) / 2);
    }
    T ve[R], vo[R];
#pragma unroll
    for (int k = 0; k < R; k++) {
        int64_t y = a.y0 + mirror(s.row + k - a.y0, h);
        bool high_row = (y & 1) != 0;
        size_t oy = high_row ? lh + (size_t)(y / 2 - a.y0 / 2) : (size_t)(y / 2 - (a.y0 + 1) / 2);
        ve[k] = (!high_row && !high_column[0]) ? ll[oy * ll_stride + ox[0]] : bands[oy * stride + ox[0]];
        vo[k] = (!high_row && !high_column[1]) ? ll[oy * ll_stride + ox[1]] : bands[oy * stride + ox[1]];
    }
    /* HOR_SR on every row held, then VER_SR (F.3.2). */
#pragma unroll
    for (int k = 0; k < R; k++) {
        if (w >= 2) {
            lift_lanes<Reversible, false>(ve[k], vo[k]);
        } else if (a.x0 & 1u) {
            ve[k] = F::lone_inverse(ve[k]);
            vo[k] = F::lone_inverse(vo[k]);
        }
    }
    if (h >= 2) {
        lift_registers<Reversible, false, Rows>(ve);
        lift_registers<Reversible, false, Rows>(vo);
    } else if (a.y0 & 1u) {
#pragma unroll
        for (int k = 0; k < R; k++) {
            ve[k] = F::lone_inverse(ve[k]);
            vo[k] = F::lone_inverse(vo[k]);
        }
    }
    if (s.lane < H / 2 || s.lane >= 32 - H / 2)
        return;
#pragma unroll
    for (int k = H; k < H + Rows; k++) {
        int64_t y = s.row + k;
        if (y < a.y0 || y >= a.y1)
            continue;
        size_t row = (size_t)(y - a.y0) * out_stride;
        if (xe >= a.x0 && xe < a.x1)
            store_output(out, samples, row + (size_t)(xe - a.x0), ve[k]);
        if (xe + 1 >= a.x0 && xe + 1 < a.x1)
            store_output(out, samples, row + (size_t)(xe + 1 - a.x0), vo[k]);
    }
}

/* Grid of a level's kernel: strips of 64 - 2 Halo columns, Rows rows. */
template <int Halo, int Rows>
inline dim3 level_grid(Area a)
{
    uint64_t columns = (uint64_t)(a.x1 - (a.x0 & ~1u));
    uint64_t rows = (uint64_t)(a.y1 - (a.y0 & ~1u));
    uint64_t strips = (columns + (64 - 2 * Halo) - 1) / (64 - 2 * Halo);
    return dim3((unsigned)((strips + kWarpsPerBlock - 1) / kWarpsPerBlock),
                (unsigned)((rows + Rows - 1) / Rows));
}

}  // namespace dwt_levels

#endif
