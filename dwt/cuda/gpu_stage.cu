/* gpu_stage.cu - see gpu_stage.h. The host side of the GPU stage and its
 * elementwise kernels (level shift, RCT/ICT, rounding): the stage's state,
 * buffers and streams, and the path of a tile's planes through it. One
 * translation unit with what it includes: dwt_level_kernels.cuh (one
 * register-based kernel a decomposition level), gpu_levels.cuh (the
 * levels of a plane), gpu_probes.cuh (bench and test probes) and
 * gpu_strips.cuh (planes larger than the device). Everything follows
 * docs/numerics.md to the letter, so every value is the CPU reference's:
 * 5/3 in 64-bit integers with arithmetic shifts (32-bit where no sum can
 * overflow), 9/7 and the ICT in binary32 in the CPU's order (nvcc
 * --fmad=false: no contraction). Every CUDA call and launch is checked;
 * failures become GJ2K_ERROR_DEVICE.
 */
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <type_traits>

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
#include "gpu_stage.h"
}

#include "device_check.cuh"
#include "dwt_level_kernels.cuh"
#include "stream_memory.cuh"

namespace {

constexpr int kThreads = 256;

template <bool Reversible>
using FilterOf = dwt_levels::Filter<Reversible ? dwt_levels::k53 : dwt_levels::k97>;
constexpr int kTimedPhases = 64;

unsigned blocks_for(size_t n) { return (unsigned)((n + kThreads - 1) / kThreads); }

/* ---------------------------------------------- elementwise stages */

/* Samples at their storage width in, level-shifted (G.1.1) out: int32
 * for 5/3, converted to float for 9/7 (as encode_tile does on the CPU);
 * the first level kernel does the same on load (dwt_levels::load_input). */
template <typename T>
__global__ void load_samples(dwt_levels::SamplesIn in, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = dwt_levels::load_input<T>(in, i);
}

/* Samples back: level-shifted, clamped (G.1.2; 9/7 rounded first) and at
 * their storage width, as the last inverse level does on its store. */
template <typename T>
__global__ void store_samples(const T *in, dwt_levels::SamplesOut out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dwt_levels::store_output<T>(out, i, in[i]);
}

__global__ void rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t r = c0[i], g = c1[i], b = c2[i];
    c0[i] = dwt_levels::wrap((r + 2 * g + b) >> 2);
    c1[i] = dwt_levels::wrap(b - g);
    c2[i] = dwt_levels::wrap(r - g);
}

__global__ void rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int64_t y0 = c0[i], y1 = c1[i], y2 = c2[i];
    int64_t g = y0 - ((y2 + y1) >> 2);
    c0[i] = dwt_levels::wrap(y2 + g);
    c1[i] = dwt_levels::wrap(g);
    c2[i] = dwt_levels::wrap(y1 + g);
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

/* -------------------------------------------------- host side */

/* The LL area after `level` levels (eq. B-15). */
dwt_rect ll_rect(dwt_rect tile, unsigned level) { return dwt_band_rect(tile, level, DWT_BAND_LL); }

unsigned usable_precision(unsigned p) { return p < 1 ? 1 : p > 32 ? 32 : p; }

}  // namespace

/* Two streams: uploads and kernels on `stream`, downloads on `copies`, so
 * that one plane's download runs beside the next plane's upload and
 * kernels (each through page-locked halves of its own). Each plane's outputs go to one of two output sets, taken in
 * turn: an event orders each set's download after its kernels, and a set
 * is taken again only once its download has landed (download_pending). */
struct gpu_stage {
    cudaStream_t stream;
    cudaStream_t copies;
    void *planes[3];       /* per MCT plane: int32 or float samples of a tile-component */
    void *work[3];         /* work[0]: uploads; work[1], work[2]: the LL between levels */
    void *values[2];       /* output sets: coefficients or indices (forward), samples (inverse) */
    uint8_t *fractions[2]; /*   and 9/7 fractions */
    cudaEvent_t kernels_done[2];  /* a set written: its download may start */
    pinned_staging up, down; /* the uploads' and downloads' host side (stream_memory.cuh);
                                not the strips' (gpu_strips.cuh) */
    size_t capacity;       /* elements each buffer holds */
    size_t memory_limit;   /* elements a buffer may hold at most (tests); 0: the device's memory */
    /* Timing: event pairs around phases, read at each synchronization. */
    cudaEvent_t phase_start[kTimedPhases], phase_stop[kTimedPhases];
    gpu_phase phase_of[kTimedPhases];
    int timed;
    double phase_ms[GPU_PHASES];
    int rows;              /* output rows a warp gives in the level kernels; 0: by level */
    int sm_count;
    int device;            /* the CUDA device (visible ones numbered from 0) */
    stream_memory memory;  /* the buffers', in the order of `stream` */
};

/* Marks the start and the end of a timed phase on a stream (by default
 * the kernels'). */
static void phase_begin(gpu_stage *g, gpu_phase phase, cudaStream_t stream = nullptr)
{
    if (g->timed < kTimedPhases) {
        g->phase_of[g->timed] = phase;
        cudaEventRecord(g->phase_start[g->timed], stream != nullptr ? stream : g->stream);
    }
}

static void phase_end(gpu_stage *g, cudaStream_t stream = nullptr)
{
    if (g->timed < kTimedPhases)
        cudaEventRecord(g->phase_stop[g->timed++], stream != nullptr ? stream : g->stream);
}

/* Waits for both streams and adds up the timed phases (copies on the two
 * streams may overlap each other and the kernels). */
static cudaError_t synchronize(gpu_stage *g)
{
    cudaError_t e = cudaStreamSynchronize(g->stream);
    cudaError_t copies = cudaStreamSynchronize(g->copies);
    if (e == cudaSuccess)
        e = copies;
    for (int i = 0; i < g->timed && e == cudaSuccess; i++) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, g->phase_start[i], g->phase_stop[i]) == cudaSuccess)
            g->phase_ms[g->phase_of[i]] += ms;
    }
    g->timed = 0;
    return e;
}

extern "C" int gpu_stage_set_rows(gpu_stage *g, int rows)
{
    if (g != nullptr && rows >= 0 && rows <= 1024 && rows % 2 == 0)
        g->rows = rows;
    return g != nullptr ? g->rows : 0;
}

extern "C" void gpu_stage_take_times(gpu_stage *g, double ms[GPU_PHASES])
{ /* no CUDA call: the times were read at synchronize */
    for (int i = 0; i < GPU_PHASES; i++) {
        ms[i] = g != nullptr ? g->phase_ms[i] : 0.0;
        if (g != nullptr)
            g->phase_ms[i] = 0.0;
    }
}

/* Device bytes a plane of `elements` samples needs: 8 buffers of 4-byte
 * elements and two of fractions (ensure_capacity). */
static size_t bytes_for(size_t elements) { return elements * (8 * 4 + 2); }

/* The most elements each buffer may hold: what the device's free memory
 * allows beside the buffers held now (9/10 of it), or the test limit. */
static size_t affordable_capacity(gpu_stage *g)
{
    size_t free_bytes = 0, total = 0, most = g->capacity;
    if (cudaSetDevice(g->device) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) /* 9/10 of free + held: stable */
        most = (free_bytes + bytes_for(g->capacity)) / 10 * 9 / bytes_for(1);
    else
        cudaGetLastError();
    return g->memory_limit != 0 && g->memory_limit < most ? g->memory_limit : most;
}

/* The buffers back to the stage's pool, once both streams are done with
 * them: no wait for the rest of the device. */
static void release_buffers(gpu_stage *g)
{
    if (g->copies != nullptr)
        cudaStreamSynchronize(g->copies);
    for (int i = 0; i < 3; i++) {
        stream_memory_free(&g->memory, g->planes[i]);
        stream_memory_free(&g->memory, g->work[i]);
        g->planes[i] = g->work[i] = nullptr;
    }
    for (int i = 0; i < 2; i++) {
        stream_memory_free(&g->memory, g->values[i]);
        stream_memory_free(&g->memory, g->fractions[i]);
        g->values[i] = nullptr;
        g->fractions[i] = nullptr;
    }
    g->capacity = 0;
}

/* Buffers of `elements` elements, or as many as the device affords: planes
 * larger than that go through in strips (gpu_strips.cuh). */
static gj2k_status ensure_capacity(gpu_stage *g, size_t elements, gj2k_error *error)
{
    if (elements <= g->capacity)
        return GJ2K_OK;
    size_t most = affordable_capacity(g);
    if (elements > most)
        elements = most;
    if (elements <= g->capacity)
        return GJ2K_OK;
    release_buffers(g);
    GPU_CHECK(stream_memory_trim(&g->memory), "device memory");
    size_t bytes = elements * 4;
    for (int i = 0; i < 3; i++) {
        GPU_CHECK(stream_memory_alloc(&g->memory, &g->planes[i], bytes), "device memory");
        GPU_CHECK(stream_memory_alloc(&g->memory, &g->work[i], bytes), "device memory");
    }
    for (int i = 0; i < 2; i++) {
        GPU_CHECK(stream_memory_alloc(&g->memory, &g->values[i], bytes), "device memory");
        GPU_CHECK(stream_memory_alloc(&g->memory, (void **)&g->fractions[i], elements),
                  "device memory");
    }
    /* in the kernels' stream order: ready for the copies' stream too */
    GPU_CHECK(cudaStreamSynchronize(g->stream), "device memory");
    g->capacity = elements;
    return GJ2K_OK;
}

static size_t rect_area(dwt_rect r) { return (size_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

#include "gpu_levels.cuh"

extern "C" gj2k_status gpu_stage_create(unsigned device, gpu_stage **out, gj2k_error *error)
{
    return gpu_stage_create_ranked(device, 0, out, error);
}

extern "C" gj2k_status gpu_stage_create_ranked(unsigned device, unsigned rank, gpu_stage **out,
                                               gj2k_error *error)
{
    *out = nullptr;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return device_fail(error, e != cudaSuccess ? e : cudaErrorNoDevice, "no usable GPU");
    if (device >= (unsigned)count)
        return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU %u: there %s %d usable GPU%s (0 to %d)",
                         device, count == 1 ? "is" : "are", count, count == 1 ? "" : "s",
                         count - 1);
    gpu_stage *g = new (std::nothrow) gpu_stage(); /* zeroed, no staging yet */
    if (g == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    g->rows = 0; /* by level (rows_for) */
    g->device = (int)device;
    e = cudaSetDevice(g->device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, g->device);
    if (e == cudaSuccess)
        e = stream_create_ranked(&g->stream, rank);
    if (e == cudaSuccess)
        e = stream_create_ranked(&g->copies, rank);
    if (e == cudaSuccess)
        e = stream_memory_open(&g->memory, g->device, g->stream);
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        e = cudaEventCreateWithFlags(&g->kernels_done[i], cudaEventDisableTiming);
    }
    for (int i = 0; i < kTimedPhases && e == cudaSuccess; i++) {
        e = cudaEventCreate(&g->phase_start[i]);
        if (e == cudaSuccess)
            e = cudaEventCreate(&g->phase_stop[i]);
    }
    if (e != cudaSuccess) {
        gpu_stage_destroy(g); /* what was made before the failure */
        return device_fail(error, e, "cannot open the GPU");
    }
    *out = g;
    return GJ2K_OK;
}

extern "C" void gpu_stage_destroy(gpu_stage *g)
{
    if (g == nullptr)
        return;
    cudaSetDevice(g->device); /* a stage is freed on its own device whatever fails */
    release_buffers(g);
    stream_memory_close(&g->memory);
    auto destroy_event = [](cudaEvent_t e) { if (e != nullptr) cudaEventDestroy(e); };
    for (int i = 0; i < 2; i++)
        destroy_event(g->kernels_done[i]);
    for (int i = 0; i < kTimedPhases; i++) {
        destroy_event(g->phase_start[i]);
        destroy_event(g->phase_stop[i]);
    }
    pinned_staging_release(&g->up); /* on this device, their copies waited for */
    pinned_staging_release(&g->down);
    if (g->stream != nullptr)
        cudaStreamDestroy(g->stream);
    if (g->copies != nullptr)
        cudaStreamDestroy(g->copies);
    cudaGetLastError();
    delete g;
}

extern "C" bool gpu_stage_fits(gpu_stage *g, size_t largest_area)
{
    if (g == nullptr)
        return false;
    return largest_area <= g->capacity || largest_area <= affordable_capacity(g);
}

extern "C" bool gpu_stage_takes(gpu_stage *g, size_t width, size_t height)
{
    if (g == nullptr)
        return false;
    if (width * height <= g->capacity) /* held already: no need to ask the device */
        return true;
    /* whole, or in strips of at least a few rows (strip_height) */
    size_t most = std::max(g->capacity, affordable_capacity(g));
    return width * height <= most || (width != 0 && width <= most / 32);
}

extern "C" void gpu_stage_set_memory_limit(gpu_stage *g, size_t elements)
{
    if (g == nullptr)
        return;
    g->memory_limit = elements;
    if (elements != 0 && g->capacity > elements) { /* smaller buffers from the next call */
        cudaSetDevice(g->device);
        cudaStreamSynchronize(g->stream);
        cudaStreamSynchronize(g->copies);
        release_buffers(g);
        cudaGetLastError();
    }
}

extern "C" gj2k_status gpu_stage_reserve(gpu_stage *g, size_t largest_area, gj2k_error *error)
{
    GPU_USE_DEVICE(g->device);
    return ensure_capacity(g, largest_area > 0 ? largest_area : 1, error);
}

/* Makes room for the largest of the planes. */
template <typename Plane>
static gj2k_status reserve_for(gpu_stage *g, const Plane *planes, uint32_t count, gj2k_error *error)
{
    size_t largest = 1;
    for (uint32_t c = 0; c < count; c++)
        largest = rect_area(planes[c].rect) > largest ? rect_area(planes[c].rect) : largest;
    return ensure_capacity(g, largest, error);
}

/* RCT or ICT (G.2, G.3), either way, over planes 0..2 of n samples. */
static gj2k_status component_transform(gpu_stage *g, size_t n, bool reversible, bool forward,
                                       gj2k_error *error)
{
    int32_t *i[3] = {(int32_t *)g->planes[0], (int32_t *)g->planes[1], (int32_t *)g->planes[2]};
    float *f[3] = {(float *)g->planes[0], (float *)g->planes[1], (float *)g->planes[2]};
    unsigned blocks = blocks_for(n);
    if (reversible && forward)
        rct_forward<<<blocks, kThreads, 0, g->stream>>>(i[0], i[1], i[2], n);
    else if (reversible)
        rct_inverse<<<blocks, kThreads, 0, g->stream>>>(i[0], i[1], i[2], n);
    else if (forward)
        ict_forward<<<blocks, kThreads, 0, g->stream>>>(f[0], f[1], f[2], n);
    else
        ict_inverse<<<blocks, kThreads, 0, g->stream>>>(f[0], f[1], f[2], n);
    GPU_LAUNCHED("component transform");
    return GJ2K_OK;
}

#include "gpu_probes.cuh"

/* Where the samples of a plane go back (in output set `set`): level
 * shift, clamp (G.1.2) and width, 1 or 2 bytes when the caller takes them so. */
static dwt_levels::SamplesOut samples_out(gpu_stage *g, const gpu_inverse_plane *p, int set)
{
    unsigned prec = usable_precision(p->precision);
    dwt_levels::SamplesOut r = {};
    r.data = g->values[set];
    r.bytes = p->output != nullptr && (p->output_bytes == 1 || p->output_bytes == 2)
                  ? p->output_bytes : 4;
    r.offset = p->is_signed ? 0 : (int64_t)1 << (prec - 1);
    r.lo = p->is_signed ? -((int64_t)1 << (prec - 1)) : 0;
    r.hi = p->is_signed ? ((int64_t)1 << (prec - 1)) - 1 : ((int64_t)1 << prec) - 1;
    if (r.hi > INT32_MAX)
        r.hi = INT32_MAX;
    return r;
}

/* How a forward plane's samples are read from `data` (G.1.1). */
static dwt_levels::SamplesIn samples_in(const void *data, const gpu_forward_plane *p)
{
    unsigned bytes = p->input_bytes == 1 || p->input_bytes == 2 ? p->input_bytes : 4;
    return dwt_levels::SamplesIn{data, bytes, p->is_signed,
                                 p->is_signed ? 0 : (int64_t)1 << (usable_precision(p->precision) - 1)};
}

/* A plane whose outputs wait in output set `set` for their download. */
struct pending_plane {
    bool active;
    uint32_t index;
    int set;
};

/* The pending plane's outputs down to the host, on the copy stream after its
 * kernels; returns once they have landed. */
static gj2k_status download_pending(gpu_stage *g, pending_plane *pending, void *to, size_t bytes,
                                    void *fractions_to, size_t fraction_bytes, gj2k_error *error)
{
    int s = pending->set;
    pending->active = false;
    GPU_CHECK(cudaStreamWaitEvent(g->copies, g->kernels_done[s], 0), "stream order");
    /* through the stage's page-locked halves: landed when they return */
    phase_begin(g, GPU_PHASE_COPIES, g->copies);
    cudaError_t e = pinned_staging_download(&g->down, to, g->values[s], bytes, g->copies);
    if (e == cudaSuccess && fractions_to != nullptr)
        e = pinned_staging_download(&g->down, fractions_to, g->fractions[s], fraction_bytes,
                                    g->copies);
    phase_end(g, g->copies);
    GPU_CHECK(e, "download");
    GPU_CHECK(cudaStreamSynchronize(g->copies), "download");
    return GJ2K_OK;
}

/* Host to device on the kernels' stream, before the kernels that read it,
 * through the stage's page-locked halves (`from` may be reused at once).
 * Registering the caller's memory for the time of the copy instead cost
 * the encoding workers 21 of their 38 s summed (8 at once on one GPU; its
 * driver calls wait on each other: docs/gpu-notes.md, eleventh session). */
static gj2k_status upload(gpu_stage *g, void *to, const void *from, size_t bytes, gj2k_error *error)
{
    phase_begin(g, GPU_PHASE_COPIES, g->stream);
    cudaError_t e = pinned_staging_upload(&g->up, to, from, bytes, g->stream);
    phase_end(g, g->stream);
    GPU_CHECK(e, "upload");
    return GJ2K_OK;
}

static gj2k_status forward_download(gpu_stage *g, gpu_forward_plane *planes, bool reversible,
                                    pending_plane *pending, gpu_plane_done_fn done,
                                    void *done_user, gj2k_error *error)
{
    if (!pending->active)
        return GJ2K_OK;
    gpu_forward_plane *p = &planes[pending->index];
    size_t area = rect_area(p->rect);
    gj2k_status status = GJ2K_OK;
    if (p->device_output != nullptr) { /* the outputs stay: wait for their kernels only */
        pending->active = false;
        GPU_CHECK(cudaEventSynchronize(g->kernels_done[pending->set]), "forward transform");
    } else {
        status = download_pending(g, pending, p->output, area * 4,
                                  reversible ? nullptr : p->fractions, area, error);
    }
    if (status == GJ2K_OK && done != nullptr)
        done(done_user, pending->index);
    return status;
}

/* Every level of one forward plane into output set `set`, its samples in
 * `in` (the filter's type) or read as they came from first.data (bytes > 0). */
static gj2k_status forward_plane(gpu_stage *g, gpu_forward_plane *p, bool reversible,
                                 const void *in, const dwt_levels::SamplesIn &first, int set,
                                 gj2k_error *error)
{
    void *scratch[2] = {g->work[1], g->work[2]};
    void *values = p->device_output != nullptr ? (void *)p->device_output : g->values[set];
    uint8_t *fractions = p->device_output != nullptr ? p->device_fractions : g->fractions[set];
    phase_begin(g, GPU_PHASE_LEVELS);
    gj2k_status status = reversible
                 ? forward_levels<true>(g, in, first, p->rect, p->levels, nullptr, p->layout,
                                        values, nullptr, nullptr, scratch,
                                        narrow_53_holds(p->input_bytes, p->levels), error)
                 : forward_levels<false>(g, in, first, p->rect, p->levels, p->steps, p->layout,
                                         nullptr, (int32_t *)values, fractions, scratch, false,
                                         error);
    phase_end(g);
    if (status != GJ2K_OK)
        return status;
    GPU_CHECK(cudaEventRecord(g->kernels_done[set], g->stream), "event");
    return GJ2K_OK;
}

#include "gpu_strips.cuh"

/* Planes 0..2 are uploaded, level-shifted and transformed together (with
 * mct); every other plane alone, its first level reading the samples as
 * they came (no separate pass) unless it has no level. Each plane's
 * download waits until the next plane's upload and kernels are queued. */
extern "C" gj2k_status gpu_forward(gpu_stage *g, gpu_forward_plane *planes, uint32_t count,
                                   bool reversible, bool mct, gpu_plane_done_fn done,
                                   void *done_user, gj2k_error *error)
{
    GPU_USE_DEVICE(g->device);
    gj2k_status status = reserve_for(g, planes, count, error);
    pending_plane pending = {};
    int set = 0;
    for (uint32_t c = 0; c < count && status == GJ2K_OK;) {
        uint32_t group = (mct && c == 0 && count >= 3) ? 3 : 1;
        size_t n = rect_area(planes[c].rect);
        if (n == 0) { /* nothing to do, but Tier-1 may be waiting to hear so, in order */
            status = forward_download(g, planes, reversible, &pending, done, done_user, error);
            for (uint32_t k = 0; k < group && done != nullptr && status == GJ2K_OK; k++)
                done(done_user, c + k);
            c += group;
            continue;
        }
        if (n > g->capacity && planes[c].device_output != nullptr) {
            status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                               "GPU stage: a plane kept on the device must fit its buffers");
            break;
        }
        if (n > g->capacity) { /* larger than the stage's buffers: in strips */
            status = forward_download(g, planes, reversible, &pending, done, done_user, error);
            if (status == GJ2K_OK)
                status = reversible ? forward_in_strips<true>(g, planes + c, group, error)
                                    : forward_in_strips<false>(g, planes + c, group, error);
            for (uint32_t k = 0; k < group && done != nullptr && status == GJ2K_OK; k++)
                done(done_user, c + k);
            c += group;
            continue;
        }
        if (group == 1 && planes[c].levels > 0) {
            gpu_forward_plane *p = &planes[c];
            dwt_levels::SamplesIn first = samples_in(g->work[0], p);
            status = upload(g, g->work[0], p->input, n * first.bytes, error);
            if (status == GJ2K_OK)
                status = forward_plane(g, p, reversible, nullptr, first, set, error);
            if (status == GJ2K_OK)
                status = forward_download(g, planes, reversible, &pending, done, done_user, error);
            if (status != GJ2K_OK)
                break;
            pending = pending_plane{true, c, set};
            set ^= 1;
            c++;
            continue;
        }
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            dwt_levels::SamplesIn uploaded = samples_in(g->work[0], &planes[c + k]);
            status = upload(g, g->work[0], planes[c + k].input, n * uploaded.bytes, error);
            if (status != GJ2K_OK)
                break;
            phase_begin(g, GPU_PHASE_SAMPLE_PASSES);
            if (reversible)
                load_samples<<<blocks_for(n), kThreads, 0, g->stream>>>(uploaded, (int32_t *)g->planes[k], n);
            else
                load_samples<<<blocks_for(n), kThreads, 0, g->stream>>>(uploaded, (float *)g->planes[k], n);
            phase_end(g);
            cudaError_t launched = cudaGetLastError();
            if (launched != cudaSuccess)
                status = device_fail(error, launched, "load samples");
        }
        if (status == GJ2K_OK && group == 3) {
            phase_begin(g, GPU_PHASE_SAMPLE_PASSES);
            status = component_transform(g, n, reversible, true, error);
            phase_end(g);
        }
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            status = forward_plane(g, &planes[c + k], reversible, g->planes[k],
                                   dwt_levels::SamplesIn{}, set, error);
            if (status == GJ2K_OK)
                status = forward_download(g, planes, reversible, &pending, done, done_user, error);
            if (status != GJ2K_OK)
                break;
            pending = pending_plane{true, c + k, set};
            set ^= 1;
        }
        c += group;
    }
    if (status == GJ2K_OK)
        status = forward_download(g, planes, reversible, &pending, done, done_user, error);
    cudaError_t e = synchronize(g);
    if (status == GJ2K_OK && e != cudaSuccess)
        return device_fail(error, e, "forward transform");
    return status;
}

/* One inverse plane's coefficients up (unless they are on the device) and
 * every level into `target`; with `last` (bytes > 0) the last level writes
 * the samples themselves. */
static gj2k_status inverse_plane(gpu_stage *g, const gpu_inverse_plane *p, bool reversible,
                                 void *target, const dwt_levels::SamplesOut &last,
                                 gj2k_error *error)
{
    size_t area = rect_area(p->rect);
    const void *bands = p->device_input;
    if (bands == nullptr) {
        const void *source = reversible || p->halves ? (const void *)p->samples
                                                     : (const void *)p->floats;
        gj2k_status uploaded = upload(g, g->work[0], source, area * 4, error);
        if (uploaded != GJ2K_OK)
            return uploaded;
        bands = g->work[0];
    }
    void *scratch[2] = {g->work[1], g->work[2]};
    phase_begin(g, GPU_PHASE_LEVELS);
    gj2k_status status =
        reversible ? inverse_levels<true>(g, bands, p->halves, nullptr, p->rect, p->levels,
                                          target, last, scratch, error)
                   : inverse_levels<false>(g, bands, p->halves, p->half_steps, p->rect,
                                           p->levels, target, last, scratch, error);
    phase_end(g);
    return status;
}

/* The pending plane's samples down to the host. */
static gj2k_status inverse_download(gpu_stage *g, gpu_inverse_plane *planes, pending_plane *pending,
                                    gj2k_error *error)
{
    if (!pending->active)
        return GJ2K_OK;
    gpu_inverse_plane *p = &planes[pending->index];
    dwt_levels::SamplesOut out = samples_out(g, p, pending->set);
    void *to = out.bytes < 4 ? p->output : (void *)p->samples;
    return download_pending(g, pending, to, rect_area(p->rect) * out.bytes, nullptr, 0, error);
}

static gj2k_status wait_for_plane(gpu_plane_wait_fn wait, void *user, uint32_t plane,
                                  gj2k_error *error)
{
    if (wait == nullptr || wait(user, plane))
        return GJ2K_OK;
    return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                     "GPU: plane %u never came (its code-blocks failed)", plane);
}

/* Planes 0..2 go back through their levels, then the inverse RCT/ICT and
 * the level shift together (with mct); every other plane alone, its last
 * level writing the samples (no separate pass) unless it has no level.
 * Each plane's download waits until the next plane's work is queued. */
extern "C" gj2k_status gpu_inverse(gpu_stage *g, gpu_inverse_plane *planes, uint32_t count,
                                   bool reversible, bool mct, gpu_plane_wait_fn wait,
                                   void *wait_user, gj2k_error *error)
{
    GPU_USE_DEVICE(g->device);
    gj2k_status status = reserve_for(g, planes, count, error);
    pending_plane pending = {};
    int set = 0;
    for (uint32_t c = 0; c < count && status == GJ2K_OK;) {
        uint32_t group = (mct && c == 0 && count >= 3) ? 3 : 1;
        size_t n = rect_area(planes[c].rect);
        if (n == 0) {
            for (uint32_t k = 0; k < group && status == GJ2K_OK; k++)
                status = wait_for_plane(wait, wait_user, c + k, error);
            c += group;
            continue;
        }
        if (n > g->capacity && planes[c].device_input != nullptr) {
            status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                               "GPU stage: a plane read on the device must fit its buffers");
            break;
        }
        if (n > g->capacity) { /* larger than the stage's buffers: in strips */
            status = inverse_download(g, planes, &pending, error);
            for (uint32_t k = 0; k < group && status == GJ2K_OK; k++)
                status = wait_for_plane(wait, wait_user, c + k, error);
            if (status == GJ2K_OK)
                status = reversible ? inverse_in_strips<true>(g, planes + c, group, error)
                                    : inverse_in_strips<false>(g, planes + c, group, error);
            c += group;
            continue;
        }
        if (group == 1 && planes[c].levels > 0) {
            status = wait_for_plane(wait, wait_user, c, error);
            if (status == GJ2K_OK)
                status = inverse_plane(g, &planes[c], reversible, g->planes[0],
                                       samples_out(g, &planes[c], set), error);
            cudaError_t recorded = status == GJ2K_OK ? cudaEventRecord(g->kernels_done[set], g->stream)
                                                     : cudaSuccess;
            if (recorded != cudaSuccess)
                status = device_fail(error, recorded, "event");
            if (status == GJ2K_OK)
                status = inverse_download(g, planes, &pending, error);
            if (status != GJ2K_OK)
                break;
            pending = pending_plane{true, c, set};
            set ^= 1;
            c++;
            continue;
        }
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            status = wait_for_plane(wait, wait_user, c + k, error);
            if (status == GJ2K_OK)
                status = inverse_plane(g, &planes[c + k], reversible, g->planes[k],
                                       dwt_levels::SamplesOut{}, error);
        }
        if (status == GJ2K_OK && group == 3) {
            phase_begin(g, GPU_PHASE_SAMPLE_PASSES);
            status = component_transform(g, n, reversible, false, error);
            phase_end(g);
        }
        for (uint32_t k = 0; k < group && status == GJ2K_OK; k++) {
            dwt_levels::SamplesOut out = samples_out(g, &planes[c + k], set);
            phase_begin(g, GPU_PHASE_SAMPLE_PASSES);
            if (reversible)
                store_samples<<<blocks_for(n), kThreads, 0, g->stream>>>((const int32_t *)g->planes[k], out, n);
            else
                store_samples<<<blocks_for(n), kThreads, 0, g->stream>>>((const float *)g->planes[k], out, n);
            phase_end(g);
            cudaError_t launched = cudaGetLastError();
            if (launched == cudaSuccess)
                launched = cudaEventRecord(g->kernels_done[set], g->stream);
            if (launched != cudaSuccess) {
                status = device_fail(error, launched, "store samples");
                break;
            }
            status = inverse_download(g, planes, &pending, error);
            if (status != GJ2K_OK)
                break;
            pending = pending_plane{true, c + k, set};
            set ^= 1;
        }
        c += group;
    }
    if (status == GJ2K_OK)
        status = inverse_download(g, planes, &pending, error);
    cudaError_t e = synchronize(g);
    if (status == GJ2K_OK && e != cudaSuccess)
        return device_fail(error, e, "inverse transform");
    return status;
}
