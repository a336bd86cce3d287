/* gpu_levels.cuh - the decomposition levels of one plane on the device:
 * the launch of each level's kernel (dwt_level_kernels.cuh) for the way its
 * input arrives and its output leaves, and every level of a plane forward
 * (2D_SD, F.4.2) and back (2D_SR, F.3.2), with the last LL placed or the
 * coefficients dequantized. Included by gpu_stage.cu after the stage's
 * state; used by its whole-plane path and by gpu_strips.cuh. */
#ifndef GJ2K_GPU_LEVELS_CUH
#define GJ2K_GPU_LEVELS_CUH

/* The final LL band (compact, `w` x `h`, its first coefficient at band
 * coordinates x0, y0) into its place: code-block by code-block when
 * `blocks`, else the top-left of the Mallat layout; copied (5/3, into
 * `bands`) or quantized (9/7, into q and fractions). */
template <typename T>
__global__ void place_ll(const T *from, size_t from_stride, uint32_t w, uint32_t h, bool blocks,
                         codeblock_layout_band layout, size_t stride, T *bands, int32_t *q,
                         uint8_t *fractions, float delta)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)w * h)
        return;
    size_t x = k % w, y = k / w;
    size_t at = blocks ? codeblock_layout_offset(&layout, layout.x0 + (uint32_t)x, layout.y0 + (uint32_t)y)
                       : y * stride + x;
    T v = from[y * from_stride + x];
    if (q == nullptr)
        bands[at] = v;
    else
        dwt_levels::quantize_store((float)v, delta, &q[at], &fractions[at]);
}

static dwt_levels::Area area_of(dwt_rect r) { return dwt_levels::Area{r.x0, r.y0, r.x1, r.y1}; }

/* Output rows a warp gives at this level (Y): the stage's choice, or with
 * none (0) the most, up to 128, that still give the device about 64 warps
 * an SM; never more blocks down than a grid holds. */
static int rows_for(const gpu_stage *g, dwt_levels::Area a, const dwt_levels::Window &win, int halo)
{
    uint64_t height = (uint64_t)(win.end - win.begin);
    uint64_t blocks = ((uint64_t)(a.x1 - (a.x0 & ~1u)) + (64 - 2 * halo) - 1) / (64 - 2 * halo);
    int rows = g->rows;
    if (rows == 0) {
        uint64_t target = (uint64_t)g->sm_count * 64;
        rows = 128;
        while (rows > 8 && blocks * ((height + rows - 1) / rows) < target)
            rows /= 2;
    }
    while ((height + rows - 1) / rows > 65535)
        rows *= 2;
    return rows;
}

/* A level's kernel for the way its input arrives: the filter's type
 * (bytes 0) or samples at their storage width. */
template <int Wavelet, bool Blocks>
static void launch_forward_level_as(gpu_stage *g, const typename dwt_levels::Filter<Wavelet>::T *in,
                                    const dwt_levels::SamplesIn &samples, size_t stride,
                                    dwt_levels::Area a, const dwt_levels::Window &win,
                                    const dwt_levels::ForwardOut &out)
{
    constexpr int halo = dwt_levels::Filter<Wavelet>::kHalo;
    int rows = rows_for(g, a, win, halo);
    dim3 grid = dwt_levels::level_grid<halo>(a, rows, win);
    unsigned threads = 32 * dwt_levels::kWarpsPerBlock;
    const void *data = samples.data;
    int64_t offset = samples.offset;
    if (samples.bytes == 1 && samples.is_signed)
        dwt_levels::forward_level<Wavelet, 1, true, Blocks><<<grid, threads, 0, g->stream>>>(
            (const int8_t *)data, offset, stride, a, win, out, rows);
    else if (samples.bytes == 1)
        dwt_levels::forward_level<Wavelet, 1, false, Blocks><<<grid, threads, 0, g->stream>>>(
            (const uint8_t *)data, offset, stride, a, win, out, rows);
    else if (samples.bytes == 2 && samples.is_signed)
        dwt_levels::forward_level<Wavelet, 2, true, Blocks><<<grid, threads, 0, g->stream>>>(
            (const int16_t *)data, offset, stride, a, win, out, rows);
    else if (samples.bytes == 2)
        dwt_levels::forward_level<Wavelet, 2, false, Blocks><<<grid, threads, 0, g->stream>>>(
            (const uint16_t *)data, offset, stride, a, win, out, rows);
    else if (samples.bytes == 4 && Wavelet != dwt_levels::k53Narrow) /* never narrow (narrow_53_holds) */
        dwt_levels::forward_level<Wavelet == dwt_levels::k53Narrow ? dwt_levels::k53 : Wavelet, 4,
                                  false, Blocks><<<grid, threads, 0, g->stream>>>(
            (const int32_t *)data, offset, stride, a, win, out, rows);
    else
        dwt_levels::forward_level<Wavelet, 0, false, Blocks><<<grid, threads, 0, g->stream>>>(
            in, 0, stride, a, win, out, rows);
}

/* The 5/3 in 32-bit arithmetic is exact while no sum can overflow: inputs
 * of `bytes` bytes (a bit more after the RCT) at most double in each 1D
 * pass, and a step's sum is at most four times its inputs, so level L's
 * largest sum stays under 2^(8 bytes + 2 L + 2), which must be < 2^31. */
static bool narrow_53_holds(unsigned bytes, unsigned levels)
{
    return (bytes == 1 || bytes == 2) && 8 * bytes + 2 * levels <= 28;
}

template <bool Blocks>
static void launch_forward_level_with(gpu_stage *g, bool reversible, bool narrow, const void *in,
                                      const dwt_levels::SamplesIn &samples, size_t stride,
                                      dwt_levels::Area a, const dwt_levels::Window &win,
                                      const dwt_levels::ForwardOut &out)
{
    if (!reversible)
        launch_forward_level_as<dwt_levels::k97, Blocks>(g, (const float *)in, samples, stride, a,
                                                         win, out);
    else if (narrow)
        launch_forward_level_as<dwt_levels::k53Narrow, Blocks>(g, (const int32_t *)in, samples,
                                                               stride, a, win, out);
    else
        launch_forward_level_as<dwt_levels::k53, Blocks>(g, (const int32_t *)in, samples, stride,
                                                         a, win, out);
}

/* The kernel for the filter, its arithmetic and the output layout. */
template <bool Reversible>
static void launch_forward_level(gpu_stage *g, const typename FilterOf<Reversible>::T *in,
                                 const dwt_levels::SamplesIn &samples, size_t stride,
                                 dwt_levels::Area a, const dwt_levels::Window &win,
                                 const dwt_levels::ForwardOut &out, bool narrow, bool blocks)
{
    if (blocks)
        launch_forward_level_with<true>(g, Reversible, narrow, in, samples, stride, a, win, out);
    else
        launch_forward_level_with<false>(g, Reversible, narrow, in, samples, stride, a, win, out);
}

/* A level's kernel for the way its output leaves: the filter's type into
 * `out` (bytes 0) or samples at their width into samples.data. */
template <int Wavelet, bool Dequantize>
static void launch_inverse_level_as(gpu_stage *g, const void *ll, size_t ll_stride, const void *bands,
                                    size_t stride, const dwt_levels::Dequantization &dq,
                                    dwt_levels::Area a, const dwt_levels::Window &win,
                                    typename dwt_levels::Filter<Wavelet>::T *out,
                                    const dwt_levels::SamplesOut &samples, size_t out_stride)
{
    constexpr int halo = dwt_levels::Filter<Wavelet>::kHalo;
    int rows = rows_for(g, a, win, halo);
    dim3 grid = dwt_levels::level_grid<halo>(a, rows, win);
    unsigned threads = 32 * dwt_levels::kWarpsPerBlock;
    void *data = samples.data;
    if (samples.bytes == 1)
        dwt_levels::inverse_level<Wavelet, 1, Dequantize><<<grid, threads, 0, g->stream>>>(
            ll, ll_stride, bands, stride, dq, a, win, (uint8_t *)data, samples, out_stride, rows);
    else if (samples.bytes == 2)
        dwt_levels::inverse_level<Wavelet, 2, Dequantize><<<grid, threads, 0, g->stream>>>(
            ll, ll_stride, bands, stride, dq, a, win, (uint16_t *)data, samples, out_stride, rows);
    else if (samples.bytes == 4)
        dwt_levels::inverse_level<Wavelet, 4, Dequantize><<<grid, threads, 0, g->stream>>>(
            ll, ll_stride, bands, stride, dq, a, win, (int32_t *)data, samples, out_stride, rows);
    else
        dwt_levels::inverse_level<Wavelet, 0, Dequantize><<<grid, threads, 0, g->stream>>>(
            ll, ll_stride, bands, stride, dq, a, win, out, samples, out_stride, rows);
}

/* With dq, the bands come as half steps to dequantize. */
template <bool Reversible>
static void launch_inverse_level(gpu_stage *g, const void *ll, size_t ll_stride, const void *bands,
                                 size_t stride, const dwt_levels::Dequantization *dq,
                                 dwt_levels::Area a, const dwt_levels::Window &win,
                                 typename FilterOf<Reversible>::T *out,
                                 const dwt_levels::SamplesOut &samples, size_t out_stride)
{
    if (Reversible && dq != nullptr)
        launch_inverse_level_as<dwt_levels::k53, true>(g, ll, ll_stride, bands, stride, *dq, a, win,
                                                       (int32_t *)out, samples, out_stride);
    else if (Reversible)
        launch_inverse_level_as<dwt_levels::k53, false>(g, ll, ll_stride, bands, stride, {}, a, win,
                                                        (int32_t *)out, samples, out_stride);
    else if (dq != nullptr)
        launch_inverse_level_as<dwt_levels::k97, true>(g, ll, ll_stride, bands, stride, *dq, a, win,
                                                       (float *)out, samples, out_stride);
    else
        launch_inverse_level_as<dwt_levels::k97, false>(g, ll, ll_stride, bands, stride, {}, a, win,
                                                        (float *)out, samples, out_stride);
}

/* A plane without levels dequantized into `out` (E.1.1.2, as the kernels). */
template <typename T>
__global__ void dequantize_plane(const int32_t *halves, float half_delta, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if constexpr (std::is_same<T, float>::value)
        out[i] = dwt_levels::dequantize_halves(halves[i], half_delta);
    else
        out[i] = dwt_levels::dequantize_halves_integer(halves[i]);
}

/* The row stride of a compact intermediate LL of width w and height h:
 * even where the buffer has room, so the level kernels move pairs. */
static size_t padded_stride(const gpu_stage *g, uint32_t w, uint32_t h)
{
    size_t even = ((size_t)w + 1) & ~(size_t)1;
    return even * h <= g->capacity ? even : (w > 0 ? w : 1);
}

/* Every level of one plane forward (2D_SD, F.4.2), one kernel a level:
 * `in` holds the level-shifted (and transformed) samples, or the first
 * level reads them as they came (`first`, bytes > 0); 5/3 coefficients
 * go to `bands` in the Mallat layout, 9/7 indices and fractions to
 * `indices`/`fractions`; `scratch` holds two LL buffers. */
template <bool Reversible>
static gj2k_status forward_levels(gpu_stage *g, const void *in, const dwt_levels::SamplesIn &first,
                                  dwt_rect tile, unsigned levels, const float *steps,
                                  const codeblock_layout_band *layout, void *bands,
                                  int32_t *indices, uint8_t *fractions, void *scratch[2],
                                  bool narrow, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    size_t stride = tile.x1 - tile.x0;
    if (levels > 32)
        levels = 32;
    const T *current = (const T *)in;
    size_t current_stride = stride;
    dwt_rect last = tile;
    for (unsigned level = 1; level <= levels; level++) {
        dwt_rect a = ll_rect(tile, level - 1), next = ll_rect(tile, level);
        if (a.x1 <= a.x0 || a.y1 <= a.y0)
            break;
        dwt_levels::ForwardOut out = {};
        out.ll = scratch[level & 1];
        out.ll_stride = padded_stride(g, next.x1 > next.x0 ? next.x1 - next.x0 : 0,
                                      next.y1 > next.y0 ? next.y1 - next.y0 : 0);
        out.bands = bands;
        out.indices = indices;
        out.fractions = fractions;
        out.stride = stride;
        for (int band = 1; band <= 3; band++) {
            unsigned s = 1 + 3 * (levels - level) + (band - 1);
            out.delta[band] = Reversible ? 1.0f : steps[s];
            if (layout != nullptr)
                out.layout[band] = layout[s];
        }
        dwt_levels::SamplesIn samples = level == 1 ? first : dwt_levels::SamplesIn{};
        launch_forward_level<Reversible>(g, current, samples, current_stride, area_of(a),
                                         dwt_levels::whole_level(area_of(a)), out, narrow,
                                         layout != nullptr);
        GPU_LAUNCHED("forward level");
        current = (const T *)out.ll;
        current_stride = out.ll_stride;
        last = next;
    }
    uint32_t w = last.x1 > last.x0 ? last.x1 - last.x0 : 0, h = last.y1 > last.y0 ? last.y1 - last.y0 : 0;
    if ((size_t)w * h == 0)
        return GJ2K_OK;
    if (Reversible && layout == nullptr) {
        GPU_CHECK(cudaMemcpy2DAsync(bands, stride * sizeof(T), current, current_stride * sizeof(T),
                                    w * sizeof(T), h, cudaMemcpyDeviceToDevice, g->stream), "copy LL");
        return GJ2K_OK;
    }
    codeblock_layout_band ll = layout != nullptr ? layout[0] : codeblock_layout_band{};
    place_ll<T><<<blocks_for((size_t)w * h), kThreads, 0, g->stream>>>(
        current, current_stride, w, h, layout != nullptr, ll, stride, (T *)bands,
        Reversible ? nullptr : indices, fractions, Reversible ? 1.0f : steps[0]);
    GPU_LAUNCHED("place LL");
    return GJ2K_OK;
}

/* Every level of one plane back (2D_SR, F.3.2): `bands` holds the Mallat
 * layout (with `dequantize`, in half steps to dequantize on load; 9/7 by
 * half_steps); the samples end in `out` (stride: the tile's width), or,
 * with `last` (bytes > 0, levels > 0), shifted, clamped and narrowed in
 * last.data. */
template <bool Reversible>
static gj2k_status inverse_levels(gpu_stage *g, const void *bands, bool dequantize,
                                  const float *half_steps, dwt_rect tile, unsigned levels,
                                  void *out, const dwt_levels::SamplesOut &last, void *scratch[2],
                                  gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    size_t stride = tile.x1 - tile.x0;
    if (levels > 32)
        levels = 32;
    const void *ll = bands;
    size_t ll_stride = stride;
    bool ll_quantized = dequantize;
    for (unsigned level = levels; level >= 1; level--) {
        dwt_rect a = ll_rect(tile, level - 1);
        if (a.x1 <= a.x0 || a.y1 <= a.y0)
            continue;
        T *target = level == 1 ? (T *)out : (T *)scratch[level & 1];
        size_t target_stride = level == 1 ? a.x1 - a.x0 : padded_stride(g, a.x1 - a.x0, a.y1 - a.y0);
        dwt_levels::SamplesOut samples = level == 1 ? last : dwt_levels::SamplesOut{};
        dwt_levels::Dequantization dq = {ll_quantized, {}};
        if (half_steps != nullptr) {
            dq.half_delta[0] = half_steps[0];
            for (int band = 1; band <= 3; band++)
                dq.half_delta[band] = half_steps[1 + 3 * (levels - level) + (band - 1)];
        }
        launch_inverse_level<Reversible>(g, ll, ll_stride, bands, stride,
                                         dequantize ? &dq : nullptr, area_of(a),
                                         dwt_levels::whole_level(area_of(a)), target, samples,
                                         target_stride);
        GPU_LAUNCHED("inverse level");
        ll = target;
        ll_stride = target_stride;
        ll_quantized = false;
    }
    if (last.bytes != 0 && levels > 0) /* the last level wrote the samples themselves */
        return GJ2K_OK;
    if (ll == out)
        return GJ2K_OK;
    /* No level ran: the samples are the coefficients (none: no launch). */
    size_t n = rect_area(tile);
    if (n == 0)
        return GJ2K_OK;
    if (ll_quantized) {
        dequantize_plane<T><<<blocks_for(n), kThreads, 0, g->stream>>>(
            (const int32_t *)ll, half_steps != nullptr ? half_steps[0] : 0.0f, (T *)out, n);
        GPU_LAUNCHED("dequantize");
    } else {
        GPU_CHECK(cudaMemcpyAsync(out, ll, n * sizeof(T), cudaMemcpyDeviceToDevice, g->stream), "copy");
    }
    return GJ2K_OK;
}

#endif
