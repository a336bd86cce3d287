/* gpu_strips.cuh - levels too large for the device in one piece go through
 * it in strips of rows (issue 5: images larger than the GPU's memory, with
 * tiles larger than it). A strip uploads the rows its outputs need (the
 * lifting halo included; rows beyond the level's edges are read mirrored as
 * always), runs the level's kernel over its rows only (dwt_levels::Window)
 * and takes back its rows of the bands, in the Mallat layout, and of the
 * LL, which waits in host memory for the next level. Once a level's LL fits,
 * the remaining levels run in one piece. Strip after strip, synchronously:
 * this path is for size, not speed. Included by gpu_stage.cu after the
 * whole-plane path, whose pieces it uses; gpu_forward and gpu_inverse send
 * a plane here when it is larger than the stage's buffers. */
#ifndef GJ2K_GPU_STRIPS_CUH
#define GJ2K_GPU_STRIPS_CUH

#include <algorithm>

/* Output rows a strip of a level `w` wide may give: its window (outputs
 * plus the halo) and its LL must fit the stage's buffers. Fails when not
 * even the thinnest strip fits. */
static gj2k_status strip_height(const gpu_stage *g, uint64_t w, int halo, int64_t *strip,
                                gj2k_error *error)
{
    int64_t rows = w == 0 ? 0 : ((int64_t)(g->capacity / w) - 2 * halo - 6) & ~(int64_t)1;
    *strip = rows >= 2 * halo + 2 ? rows : 0;
    if (*strip == 0)
        return device_fail(error, cudaErrorMemoryAllocation, "a level too wide for the GPU");
    return GJ2K_OK;
}

/* The host memory of a group's strips, freed with it: each plane's LL
 * between levels (two buffers, for levels 1 and 2, then taken in turn) and
 * a copy of its samples where they cannot stay in place. */
struct strip_host_memory {
    void *lls[3][2] = {};
    void *samples[3] = {};
    ~strip_host_memory()
    {
        for (uint32_t k = 0; k < 3; k++) {
            std::free(lls[k][0]);
            std::free(lls[k][1]);
            std::free(samples[k]);
        }
    }
    bool allocate_lls(dwt_rect plane, uint32_t group, size_t element_bytes)
    {
        for (uint32_t k = 0; k < group; k++) {
            lls[k][0] = std::malloc((rect_area(ll_rect(plane, 1)) + 1) * element_bytes);
            lls[k][1] = std::malloc((rect_area(ll_rect(plane, 2)) + 1) * element_bytes);
            if (lls[k][0] == nullptr || lls[k][1] == nullptr)
                return false;
        }
        return true;
    }
};

/* A strip [r0, r1) of a level's area `a` (absolute rows, r0 even): the
 * input rows it reads, [first, last), and the Mallat rows it gives: low
 * (LL and HL) rows from low_first, high (LH and HH) rows from lh + high_first. */
struct strip_rows {
    int64_t first, last;
    int64_t low_first, low_count;
    int64_t high_first, high_count;
};

static strip_rows strip_rows_of(dwt_rect a, int64_t r0, int64_t r1, int halo)
{
    strip_rows s;
    s.first = std::max<int64_t>(a.y0, r0 - halo - 2);
    s.last = std::min<int64_t>(a.y1, r1 + halo + 2);
    int64_t out0 = std::max<int64_t>(a.y0, r0), out1 = r1;
    s.low_first = (out0 + 1) / 2 - ((int64_t)a.y0 + 1) / 2;
    s.low_count = (out1 + 1) / 2 - (out0 + 1) / 2;
    s.high_first = out0 / 2 - (int64_t)a.y0 / 2;
    s.high_count = out1 / 2 - out0 / 2;
    return s;
}

/* Rows [row, row + rows) of `width` elements of `bytes` each between host
 * memory of `host_pitch` elements a row and device memory of `width`. */
static cudaError_t copy_rows(void *to, size_t to_pitch, const void *from, size_t from_pitch,
                             size_t width, size_t rows, size_t bytes, cudaMemcpyKind kind,
                             cudaStream_t stream)
{
    if (width == 0 || rows == 0)
        return cudaSuccess;
    return cudaMemcpy2DAsync(to, to_pitch * bytes, from, from_pitch * bytes, width * bytes, rows,
                             kind, stream);
}

/* ------------------------------------------------------------ forward */

/* The host side of a forward plane in strips: where its Mallat outputs go
 * (pitch: the tile-component's width) and the LL between levels. */
struct forward_strip_target {
    int32_t *values;
    uint8_t *fractions;     /* 9/7 */
    size_t pitch;
    const float *steps;
    unsigned levels;
    bool narrow;
};

/* One strip [r0, r1) of forward level `level` over area `a`: its input rows
 * [first, last) are on the device at `in` (the filter's type) or as samples
 * (`first_samples`); its band rows go to the host Mallat layout, its LL
 * rows to `ll_host` (compact, one LL width a row). */
template <bool Reversible>
static gj2k_status forward_strip(gpu_stage *g, const void *in, const dwt_levels::SamplesIn &first_samples,
                                 dwt_rect a, unsigned level, int64_t r0, int64_t r1,
                                 const forward_strip_target &t, void *ll_host, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    strip_rows s = strip_rows_of(a, r0, r1, H);
    uint64_t w = a.x1 - a.x0;
    uint32_t lw = dwt_levels::low_count(a.x0, a.x1), lh = dwt_levels::low_count(a.y0, a.y1);
    dwt_levels::Window win = {r0, r1, s.first - (int64_t)a.y0, s.low_first, s.low_first,
                              (int64_t)lh + s.high_first - s.low_count, 0};
    dwt_levels::ForwardOut out = {};
    out.ll = g->work[1];
    out.ll_stride = lw > 0 ? lw : 1;
    out.bands = g->values[0];
    out.indices = (int32_t *)g->values[0];
    out.fractions = g->fractions[0];
    out.stride = w;
    for (int band = 1; band <= 3; band++)
        out.delta[band] = Reversible ? 1.0f : t.steps[1 + 3 * (t.levels - level) + (band - 1)];
    launch_forward_level<Reversible>(g, (const T *)in, first_samples, w, area_of(a), win, out,
                                     t.narrow, false);
    GPU_LAUNCHED("forward level (strip)");
    const int32_t *values = (const int32_t *)g->values[0];
    size_t high_row = (size_t)lh + s.high_first;
    GPU_CHECK(copy_rows(t.values + s.low_first * t.pitch + lw, t.pitch, values + lw, w, w - lw,
                        s.low_count, 4, cudaMemcpyDeviceToHost, g->stream), "download");
    GPU_CHECK(copy_rows(t.values + high_row * t.pitch, t.pitch, values + s.low_count * w, w, w,
                        s.high_count, 4, cudaMemcpyDeviceToHost, g->stream), "download");
    if (!Reversible) {
        GPU_CHECK(copy_rows(t.fractions + s.low_first * t.pitch + lw, t.pitch, g->fractions[0] + lw,
                            w, w - lw, s.low_count, 1, cudaMemcpyDeviceToHost, g->stream), "download");
        GPU_CHECK(copy_rows(t.fractions + high_row * t.pitch, t.pitch, g->fractions[0] + s.low_count * w,
                            w, w, s.high_count, 1, cudaMemcpyDeviceToHost, g->stream), "download");
    }
    GPU_CHECK(copy_rows((T *)ll_host + s.low_first * lw, lw, g->work[1], lw, lw, s.low_count,
                        sizeof(T), cudaMemcpyDeviceToHost, g->stream), "download");
    GPU_CHECK(cudaStreamSynchronize(g->stream), "forward strip");
    return GJ2K_OK;
}

/* `rows` rows of an LL band (w wide, on the device at `from`) quantized or
 * copied into rows `y`.. of the top-left of the host Mallat layout. */
template <bool Reversible>
static gj2k_status place_ll_rows(gpu_stage *g, const void *from, size_t w, size_t y, size_t rows,
                                 const forward_strip_target &t, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    place_ll<T><<<blocks_for(rows * w), kThreads, 0, g->stream>>>(
        (const T *)from, w, (uint32_t)w, (uint32_t)rows, false, codeblock_layout_band{}, w,
        (T *)g->values[0], Reversible ? nullptr : (int32_t *)g->values[0], g->fractions[0],
        Reversible ? 1.0f : t.steps[0]);
    GPU_LAUNCHED("place LL (rows)");
    GPU_CHECK(copy_rows(t.values + y * t.pitch, t.pitch, g->values[0], w, w, rows, 4,
                        cudaMemcpyDeviceToHost, g->stream), "download");
    if (!Reversible)
        GPU_CHECK(copy_rows(t.fractions + y * t.pitch, t.pitch, g->fractions[0], w, w, rows, 1,
                            cudaMemcpyDeviceToHost, g->stream), "download");
    GPU_CHECK(cudaStreamSynchronize(g->stream), "place LL");
    return GJ2K_OK;
}

/* The last LL band of a plane (`a`, compact in host memory) into the
 * top-left of its Mallat layout, rows at a time. */
template <bool Reversible>
static gj2k_status place_ll_in_rows(gpu_stage *g, const void *ll_host, dwt_rect a,
                                    const forward_strip_target &t, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    size_t w = a.x1 - a.x0, h = a.y1 - a.y0, step = w > 0 ? g->capacity / w : 0;
    gj2k_status status = GJ2K_OK;
    for (size_t y = 0; y < h && step > 0 && status == GJ2K_OK; y += step) {
        size_t rows = std::min(step, h - y);
        GPU_CHECK(cudaMemcpyAsync(g->work[0], (const T *)ll_host + y * w, rows * w * sizeof(T),
                                  cudaMemcpyHostToDevice, g->stream), "upload");
        status = place_ll_rows<Reversible>(g, g->work[0], w, y, rows, t, error);
    }
    return status;
}

/* Levels `level`..levels of a plane from its LL in host memory (`a`,
 * compact): in strips while a level is too large, then in one piece. */
template <bool Reversible>
static gj2k_status forward_from_host_ll(gpu_stage *g, const void *ll_host, dwt_rect tile,
                                        unsigned level, const forward_strip_target &t,
                                        void *spare[2], gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    const void *in_host = ll_host;
    for (; level <= t.levels + 1; level++) {
        dwt_rect a = ll_rect(tile, level - 1);
        size_t w = a.x1 - a.x0, h = a.y1 - a.y0, area = rect_area(a);
        if (area == 0)
            return GJ2K_OK;
        if (level == t.levels + 1) /* no level left: the LL band itself */
            return place_ll_in_rows<Reversible>(g, in_host, a, t, error);
        if (area <= g->capacity) { /* the rest in one piece */
            GPU_CHECK(cudaMemcpyAsync(g->work[0], in_host, area * sizeof(T), cudaMemcpyHostToDevice,
                                      g->stream), "upload");
            void *scratch[2] = {g->work[1], g->work[2]};
            gj2k_status status = forward_levels<Reversible>(
                g, g->work[0], dwt_levels::SamplesIn{}, a, t.levels - level + 1, t.steps, nullptr,
                Reversible ? g->values[0] : nullptr, Reversible ? nullptr : (int32_t *)g->values[0],
                g->fractions[0], scratch, t.narrow, error);
            if (status != GJ2K_OK)
                return status;
            GPU_CHECK(copy_rows(t.values, t.pitch, g->values[0], w, w, h, 4, cudaMemcpyDeviceToHost,
                                g->stream), "download");
            if (!Reversible)
                GPU_CHECK(copy_rows(t.fractions, t.pitch, g->fractions[0], w, w, h, 1,
                                    cudaMemcpyDeviceToHost, g->stream), "download");
            GPU_CHECK(cudaStreamSynchronize(g->stream), "forward levels");
            return GJ2K_OK;
        }
        int64_t strip = 0;
        gj2k_status status = strip_height(g, w, H, &strip, error);
        if (status != GJ2K_OK)
            return status;
        void *ll_out = spare[(level - 1) & 1]; /* never the one read: levels alternate */
        for (int64_t r0 = a.y0 & ~1u; r0 < (int64_t)a.y1; r0 += strip) {
            int64_t r1 = std::min<int64_t>(r0 + strip, a.y1);
            strip_rows s = strip_rows_of(a, r0, r1, H);
            GPU_CHECK(cudaMemcpyAsync(g->work[0], (const T *)in_host + (s.first - a.y0) * w,
                                      (size_t)(s.last - s.first) * w * sizeof(T),
                                      cudaMemcpyHostToDevice, g->stream), "upload");
            status = forward_strip<Reversible>(g, g->work[0], dwt_levels::SamplesIn{}, a, level, r0,
                                               r1, t, ll_out, error);
            if (status != GJ2K_OK)
                return status;
        }
        in_host = ll_out;
    }
    return GJ2K_OK;
}

/* A forward group (planes 0..2 with a component transform, or one plane)
 * larger than the stage's buffers: level 1 (or, without levels, the
 * samples themselves) in strips for the whole group, the rest plane by
 * plane from the LL in host memory. */
template <bool Reversible>
static gj2k_status forward_in_strips(gpu_stage *g, gpu_forward_plane *planes, uint32_t group,
                                     gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    dwt_rect R = planes[0].rect;
    size_t w = R.x1 - R.x0;
    bool lifted = false; /* some plane of the group has levels */
    for (uint32_t k = 0; k < group; k++)
        lifted = lifted || planes[k].levels > 0;
    if (planes[0].layout != nullptr)
        return device_fail(error, cudaErrorInvalidValue, "the code-block layout needs a whole plane");
    int64_t strip = 0;
    gj2k_status status = strip_height(g, w, H, &strip, error);
    if (status != GJ2K_OK)
        return status;
    /* Host memory: the LL of each level, and the samples of a plane that
     * shares its buffer with its outputs (32-bit samples). */
    strip_host_memory host;
    auto &lls = host.lls;
    void **inputs = host.samples;
    if (!host.allocate_lls(R, group, sizeof(T)))
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for strips");
    for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
        size_t bytes = rect_area(R) * samples_in(nullptr, &planes[k]).bytes;
        if (planes[k].input == planes[k].output && (inputs[k] = std::malloc(bytes)) != nullptr)
            std::memcpy(inputs[k], planes[k].input, bytes);
        if (planes[k].input == planes[k].output && inputs[k] == nullptr)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for strips");
    }
    forward_strip_target targets[3];
    for (uint32_t k = 0; k < group; k++) {
        unsigned levels = std::min(planes[k].levels, 32u);
        targets[k] = forward_strip_target{planes[k].output, planes[k].fractions, w, planes[k].steps,
                                          levels, narrow_53_holds(planes[k].input_bytes, levels)};
    }
    const bool convert = group > 1 || !lifted; /* samples to planes[k] first */
    for (int64_t r0 = R.y0 & ~1u; r0 < (int64_t)R.y1 && status == GJ2K_OK; r0 += strip) {
        int64_t r1 = std::min<int64_t>(r0 + strip, R.y1);
        strip_rows s = strip_rows_of(R, r0, r1, H);
        if (!lifted) /* no lifting: the strip's own rows */
            s.first = std::max<int64_t>(r0, R.y0), s.last = r1;
        size_t n = (size_t)(s.last - s.first) * w;
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            const void *source = inputs[k] != nullptr ? inputs[k] : planes[k].input;
            dwt_levels::SamplesIn uploaded = samples_in(g->work[0], &planes[k]);
            status = upload(g, g->work[0],
                            (const uint8_t *)source + (size_t)(s.first - R.y0) * w * uploaded.bytes,
                            n * uploaded.bytes, error);
            if (status == GJ2K_OK && convert) {
                load_samples<<<blocks_for(n), kThreads, 0, g->stream>>>(uploaded, (T *)g->planes[k], n);
                cudaError_t launched = cudaGetLastError();
                if (launched != cudaSuccess)
                    status = device_fail(error, launched, "load samples (strip)");
            }
            if (status == GJ2K_OK && !convert)
                status = forward_strip<Reversible>(g, nullptr, uploaded, R, 1, r0, r1, targets[k],
                                                   lls[k][0], error);
        }
        if (status == GJ2K_OK && group == 3)
            status = component_transform(g, n, Reversible, true, error);
        for (uint32_t k = 0; k < group && status == GJ2K_OK && convert; k++) {
            if (targets[k].levels > 0) /* level 1 of this strip */
                status = forward_strip<Reversible>(g, g->planes[k], dwt_levels::SamplesIn{}, R, 1, r0,
                                                   r1, targets[k], lls[k][0], error);
            else /* no level: the samples are the LL band, placed row for row */
                status = place_ll_rows<Reversible>(g, g->planes[k], w, (size_t)(s.first - R.y0),
                                                   (size_t)(s.last - s.first), targets[k], error);
        }
    }
    for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
        if (targets[k].levels == 0)
            continue;
        status = forward_from_host_ll<Reversible>(g, lls[k][0], R, 2, targets[k], lls[k], error);
    }
    return status;
}

/* ------------------------------------------------------------ inverse */

/* Where an inverse level's LL comes from in host memory: rows of `pitch`
 * elements, of the filter's type or, at the deepest level, as the
 * plane's coefficients come (`quantized`: half steps to dequantize). */
struct host_ll {
    const void *data;
    size_t pitch;
    bool quantized;
};

/* One strip [r0, r1) of inverse level `level` over area `a` of plane `p`
 * (its Mallat layout in host memory, pitch: the plane's width): uploads
 * the LL and band rows it reads and runs the level's kernel; its rows,
 * from max(r0, y0), end on the device at `target` or, with `last`, as
 * samples in last.data. */
template <bool Reversible>
static gj2k_status inverse_strip(gpu_stage *g, const gpu_inverse_plane *p, const host_ll &ll,
                                 dwt_rect a, unsigned level, int64_t r0, int64_t r1, void *target,
                                 const dwt_levels::SamplesOut &last, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    strip_rows s = strip_rows_of(a, r0, r1, H);
    size_t w = a.x1 - a.x0, pitch = p->rect.x1 - p->rect.x0;
    uint32_t lw = dwt_levels::low_count(a.x0, a.x1), lh = dwt_levels::low_count(a.y0, a.y1);
    int64_t low0 = (s.first + 1) / 2 - ((int64_t)a.y0 + 1) / 2, low1 = (s.last + 1) / 2 - ((int64_t)a.y0 + 1) / 2;
    int64_t high0 = s.first / 2 - (int64_t)a.y0 / 2, high1 = s.last / 2 - (int64_t)a.y0 / 2;
    size_t nlow = (size_t)(low1 - low0), nhigh = (size_t)(high1 - high0);
    const int32_t *bands = Reversible || p->halves ? p->samples : (const int32_t *)(const void *)p->floats;
    GPU_CHECK(copy_rows(g->work[1], lw, (const int32_t *)ll.data + (size_t)low0 * ll.pitch, ll.pitch,
                        lw, nlow, 4, cudaMemcpyHostToDevice, g->stream), "upload");
    GPU_CHECK(copy_rows(g->work[0], w, bands + (size_t)low0 * pitch, pitch, w, nlow, 4,
                        cudaMemcpyHostToDevice, g->stream), "upload");
    GPU_CHECK(copy_rows((int32_t *)g->work[0] + nlow * w, w, bands + ((size_t)lh + high0) * pitch,
                        pitch, w, nhigh, 4, cudaMemcpyHostToDevice, g->stream), "upload");
    dwt_levels::Window win = {r0, r1, 0, low0, low0, (int64_t)lh + high0 - (int64_t)nlow,
                              std::max<int64_t>(r0, a.y0) - a.y0};
    dwt_levels::Dequantization dq = {ll.quantized, {}};
    if (p->halves && p->half_steps != nullptr) {
        dq.half_delta[0] = p->half_steps[0];
        for (int band = 1; band <= 3; band++)
            dq.half_delta[band] = p->half_steps[1 + 3 * (p->levels - level) + (band - 1)];
    }
    launch_inverse_level<Reversible>(g, g->work[1], lw > 0 ? lw : 1, g->work[0], w,
                                     p->halves ? &dq : nullptr, area_of(a), win, (T *)target, last, w);
    GPU_LAUNCHED("inverse level (strip)");
    return GJ2K_OK;
}

/* Samples rows [y, y + rows) of plane `p` (in last.data) down to the host. */
static gj2k_status download_sample_rows(gpu_stage *g, const gpu_inverse_plane *p,
                                        const dwt_levels::SamplesOut &last, void *samples, size_t y,
                                        size_t rows, gj2k_error *error)
{
    size_t w = p->rect.x1 - p->rect.x0;
    GPU_CHECK(cudaMemcpyAsync((uint8_t *)samples + y * w * last.bytes, last.data, rows * w * last.bytes,
                              cudaMemcpyDeviceToHost, g->stream), "download");
    GPU_CHECK(cudaStreamSynchronize(g->stream), "inverse strip");
    return GJ2K_OK;
}

/* Levels L..2 of a plane: in one piece while they fit, then in strips into
 * host memory; tells where level 1 finds its LL. */
template <bool Reversible>
static gj2k_status inverse_down_to_level_1(gpu_stage *g, const gpu_inverse_plane *p, void *spare[2],
                                           host_ll *ll, gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    dwt_rect R = p->rect;
    unsigned levels = std::min(p->levels, 32u), m = 1;
    size_t pitch = R.x1 - R.x0;
    while (m < levels && rect_area(ll_rect(R, m)) > g->capacity)
        m++;
    *ll = host_ll{Reversible || p->halves ? (const void *)p->samples : (const void *)p->floats, pitch,
                  p->halves};
    if (m < levels) { /* levels L..m+1 in one piece, from the top-left of the layout */
        dwt_rect sub = ll_rect(R, m);
        size_t w = sub.x1 - sub.x0, h = sub.y1 - sub.y0;
        GPU_CHECK(copy_rows(g->work[0], w, ll->data, pitch, w, h, 4, cudaMemcpyHostToDevice,
                            g->stream), "upload");
        void *scratch[2] = {g->work[1], g->work[2]};
        gj2k_status status = inverse_levels<Reversible>(g, g->work[0], p->halves, p->half_steps, sub,
                                                        levels - m, g->values[0],
                                                        dwt_levels::SamplesOut{}, scratch, error);
        if (status != GJ2K_OK)
            return status;
        void *out = spare[(m + 1) & 1];
        GPU_CHECK(cudaMemcpyAsync(out, g->values[0], w * h * sizeof(T), cudaMemcpyDeviceToHost,
                                  g->stream), "download");
        GPU_CHECK(cudaStreamSynchronize(g->stream), "inverse levels");
        *ll = host_ll{out, w, false};
    }
    for (unsigned level = m; level >= 2; level--) { /* too large: in strips */
        dwt_rect a = ll_rect(R, level - 1);
        size_t w = a.x1 - a.x0;
        int64_t strip = 0;
        gj2k_status status = strip_height(g, w, H, &strip, error);
        if (status != GJ2K_OK)
            return status;
        void *out = spare[level & 1];
        for (int64_t r0 = a.y0 & ~1u; r0 < (int64_t)a.y1; r0 += strip) {
            int64_t r1 = std::min<int64_t>(r0 + strip, a.y1);
            status = inverse_strip<Reversible>(g, p, *ll, a, level, r0, r1, g->values[0],
                                               dwt_levels::SamplesOut{}, error);
            if (status != GJ2K_OK)
                return status;
            int64_t y = std::max<int64_t>(r0, a.y0) - a.y0;
            GPU_CHECK(cudaMemcpyAsync((T *)out + (size_t)y * w, g->values[0],
                                      (size_t)(r1 - a.y0 - y) * w * sizeof(T), cudaMemcpyDeviceToHost,
                                      g->stream), "download");
            GPU_CHECK(cudaStreamSynchronize(g->stream), "inverse strip");
        }
        *ll = host_ll{out, w, false};
    }
    return GJ2K_OK;
}

/* An inverse group (planes 0..2 with a component transform, or one plane)
 * larger than the stage's buffers: each plane down to its level 1, then
 * level 1 (or, without levels, the coefficients themselves), the component
 * transform and the samples in strips for the whole group. */
template <bool Reversible>
static gj2k_status inverse_in_strips(gpu_stage *g, gpu_inverse_plane *planes, uint32_t group,
                                     gj2k_error *error)
{
    using T = typename FilterOf<Reversible>::T;
    constexpr int H = FilterOf<Reversible>::kHalo;
    dwt_rect R = planes[0].rect;
    size_t w = R.x1 - R.x0, area = rect_area(R);
    int64_t strip = 0;
    gj2k_status status = strip_height(g, w, H, &strip, error);
    if (status != GJ2K_OK)
        return status;
    strip_host_memory host;
    void **wide = host.samples;
    host_ll ll[3] = {};
    dwt_levels::SamplesOut last[3];
    if (!host.allocate_lls(R, group, sizeof(T)))
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for strips");
    for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
        last[k] = samples_out(g, &planes[k], 0);
        if (last[k].bytes == 4) /* samples over the coefficients: not until all are read */
            wide[k] = std::malloc(area * 4 + 1);
        if (last[k].bytes == 4 && wide[k] == nullptr)
            status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory for strips");
        if (status == GJ2K_OK && planes[k].levels > 0)
            status = inverse_down_to_level_1<Reversible>(g, &planes[k], host.lls[k], &ll[k], error);
    }
    for (int64_t r0 = R.y0 & ~1u; r0 < (int64_t)R.y1 && status == GJ2K_OK; r0 += strip) {
        int64_t r1 = std::min<int64_t>(r0 + strip, R.y1), y0 = std::max<int64_t>(r0, R.y0);
        size_t y = (size_t)(y0 - R.y0), rows = (size_t)(r1 - y0), n = rows * w;
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            if (planes[k].levels > 0) {
                status = inverse_strip<Reversible>(g, &planes[k], ll[k], R, 1, r0, r1, g->planes[k],
                                                   group == 1 ? last[k] : dwt_levels::SamplesOut{},
                                                   error);
                continue;
            }
            /* no level: the coefficients are the samples, dequantized if need be */
            const gpu_inverse_plane *p = &planes[k];
            const void *source = Reversible || p->halves ? (const void *)p->samples : (const void *)p->floats;
            status = upload(g, g->work[0], (const int32_t *)source + y * w, n * 4, error);
            cudaError_t e = cudaSuccess;
            if (status == GJ2K_OK && p->halves)
                dequantize_plane<T><<<blocks_for(n), kThreads, 0, g->stream>>>(
                    (const int32_t *)g->work[0], p->half_steps != nullptr ? p->half_steps[0] : 0.0f,
                    (T *)g->planes[k], n);
            else if (status == GJ2K_OK)
                e = cudaMemcpyAsync(g->planes[k], g->work[0], n * 4, cudaMemcpyDeviceToDevice, g->stream);
            if (e == cudaSuccess)
                e = cudaGetLastError();
            if (status == GJ2K_OK && e != cudaSuccess)
                status = device_fail(error, e, "dequantize (strip)");
        }
        if (status == GJ2K_OK && group == 3)
            status = component_transform(g, n, Reversible, false, error);
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            void *to = last[k].bytes < 4 ? planes[k].output : wide[k];
            if (group == 1 && planes[k].levels > 0) { /* the level wrote the samples itself */
                status = download_sample_rows(g, &planes[k], last[k], to, y, rows, error);
                continue;
            }
            store_samples<<<blocks_for(n), kThreads, 0, g->stream>>>((const T *)g->planes[k], last[k], n);
            cudaError_t e = cudaGetLastError();
            status = e == cudaSuccess ? download_sample_rows(g, &planes[k], last[k], to, y, rows, error)
                                      : device_fail(error, e, "store samples (strip)");
        }
    }
    for (uint32_t k = 0; k < group && status == GJ2K_OK; k++)
        if (wide[k] != nullptr)
            std::memcpy(planes[k].samples, wide[k], area * 4);
    return status;
}

#endif
