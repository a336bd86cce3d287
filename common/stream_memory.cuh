/* stream_memory.cuh - the memory a stream's work uses. First, device memory
 * taken and given back in the order of one stream (cudaMallocFromPoolAsync,
 * cudaFreeAsync) from a pool of its owner's. cudaFree waits for the whole
 * device, so when one of the workers sharing a GPU grew a buffer, every
 * other worker's kernels drained first (docs/gpu-notes.md, seventh
 * session); here a buffer grows in its own stream's order. The pool keeps
 * what is given back (no release threshold) until it is closed: the
 * owner's buffers are reused, returned to the driver between images only
 * when one grows (stream_memory_trim). Where the device has no memory
 * pools, the calls fall back to cudaMalloc and cudaFree. Second, two
 * page-locked halves for a coder's copies (pinned_staging, below).
 * Included by CUDA sources only. */
#ifndef GJ2K_STREAM_MEMORY_CUH
#define GJ2K_STREAM_MEMORY_CUH

#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

struct stream_memory {
    cudaMemPool_t pool;  /* nullptr: plain cudaMalloc */
    cudaStream_t stream; /* the order of every allocation and free */
};

/* A pool on `device` for allocations ordered on `stream`. */
static inline cudaError_t stream_memory_open(stream_memory *m, int device, cudaStream_t stream)
{
    m->pool = nullptr;
    m->stream = stream;
    int supported = 0;
    cudaError_t e = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
    if (e != cudaSuccess || !supported)
        return e;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    e = cudaMemPoolCreate(&m->pool, &props);
    if (e != cudaSuccess) {
        m->pool = nullptr;
        return e;
    }
    uint64_t keep = UINT64_MAX; /* what is freed stays in the pool */
    e = cudaMemPoolSetAttribute(m->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) {
        cudaMemPoolDestroy(m->pool);
        m->pool = nullptr;
    }
    return e;
}

static inline cudaError_t stream_memory_alloc(const stream_memory *m, void **out, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (m->pool == nullptr)
        return cudaMalloc(out, bytes);
    return cudaMallocFromPoolAsync(out, bytes, m->pool, m->stream);
}

/* Frees `pointer` once the stream's work queued before has run; work on
 * other streams that used it must be complete (or waited for) first. */
static inline cudaError_t stream_memory_free(const stream_memory *m, void *pointer)
{
    if (pointer == nullptr)
        return cudaSuccess;
    if (m->pool == nullptr)
        return cudaFree(pointer);
    return cudaFreeAsync(pointer, m->stream);
}

/* What the pool holds beyond its allocations given back to the driver,
 * once the stream has reached the frees queued on it: after a buffer grew,
 * so that the smaller one it replaced is not kept beside it. */
static inline cudaError_t stream_memory_trim(const stream_memory *m)
{
    if (m->pool == nullptr)
        return cudaSuccess;
    cudaError_t e = cudaStreamSynchronize(m->stream);
    return e == cudaSuccess ? cudaMemPoolTrimTo(m->pool, 0) : e;
}

/* After every allocation of the pool is freed: waits for the stream, then
 * gives the pool's memory back. The stream stays the owner's. */
static inline void stream_memory_close(stream_memory *m)
{
    if (m->pool != nullptr) {
        cudaStreamSynchronize(m->stream);
        cudaMemPoolDestroy(m->pool);
    }
    m->pool = nullptr;
}

/* A stream for coder `rank` of several sharing a GPU (a batch's workers):
 * rank 0 at the default priority, each next rank one level higher, round
 * the levels the device has. Kernels of equal size launched at nearly the
 * same time on streams of one priority share the GPU and end together, so
 * that their workers then all do their CPU part at once while it waits
 * (docs/gpu-notes.md, twelfth session); at different priorities the
 * higher one's blocks are scheduled first and its kernel ends first. */
static inline cudaError_t stream_create_ranked(cudaStream_t *stream, unsigned rank)
{
    int least = 0, greatest = 0;
    if (rank > 0 && cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
        cudaGetLastError(); /* not the caller's: a stream of the default priority */
        least = greatest = 0;
    }
    if (rank == 0 || least == greatest)
        return cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
    unsigned levels = (unsigned)(least - greatest) + 1; /* greater priority: lower number */
    return cudaStreamCreateWithPriority(stream, cudaStreamNonBlocking,
                                        least - (int)(rank % levels));
}

/* Page-locked host memory that a coder's copies go through: two halves of
 * kPinnedChunk bytes, made at the first copy, each with an event marking
 * its last copy. A copy to or from pageable memory goes through the
 * driver's staging instead, one at a time over the process: with 16
 * decodes at once on one GPU, 8 MB downloads ran one after the other at
 * 1.4 GB/s and a kernel launch waited 119 ms behind them while the GPU
 * ran no kernel (a CUPTI trace: docs/gpu-notes.md, eleventh session).
 * Page-locked memory is dear to make (a few ms a MB there, the workers in
 * turn), so each coder holds only the two halves. Where none can be had,
 * the copies go from and to the caller's memory as they are. */
constexpr size_t kPinnedChunk = (size_t)1 << 20;

struct pinned_staging {
    uint8_t *halves = nullptr;
    cudaEvent_t done[2] = {}; /* each half's last copy */
    int next = 0;             /* the half the next chunk takes */
    bool refused = false;     /* no page-locked memory: copies as they are */

    pinned_staging() = default;
    pinned_staging(const pinned_staging &) = delete;
    pinned_staging &operator=(const pinned_staging &) = delete;
    ~pinned_staging();
};

/* The halves and events given back, on the device they were made on,
 * once the last copy of each half is complete (waited for here); the
 * staging is as new. */
static inline void pinned_staging_release(pinned_staging *p)
{
    for (cudaEvent_t &e : p->done) {
        if (e != nullptr) {
            cudaEventSynchronize(e);
            cudaEventDestroy(e);
        }
        e = nullptr;
    }
    if (p->halves != nullptr)
        cudaFreeHost(p->halves);
    p->halves = nullptr;
    p->next = 0;
    p->refused = false;
}

inline pinned_staging::~pinned_staging() { pinned_staging_release(this); }

/* The halves and their events, made at the first copy; false when refused. */
static inline bool pinned_staging_ready(pinned_staging *p)
{
    if (p->halves != nullptr || p->refused)
        return !p->refused;
    void *halves = nullptr;
    bool made = cudaHostAlloc(&halves, 2 * kPinnedChunk, cudaHostAllocDefault) == cudaSuccess;
    for (int i = 0; i < 2 && made; i++)
        made = cudaEventCreateWithFlags(&p->done[i], cudaEventDisableTiming) == cudaSuccess;
    p->halves = (uint8_t *)halves;
    if (!made) {
        cudaGetLastError(); /* not sticky: the copies go as they are */
        p->refused = true;
    }
    return made;
}

/* The next half, once its last copy is complete. */
static inline cudaError_t pinned_staging_half(pinned_staging *p, int *half)
{
    *half = p->next;
    p->next ^= 1;
    return cudaEventSynchronize(p->done[*half]);
}

/* Host to device on `stream`, a chunk at a time through the halves;
 * returns once the last chunk is queued (`from` may be reused at once).
 * After a failure copies may still run from the halves: their owner frees
 * them only through pinned_staging_release, which waits. */
static inline cudaError_t pinned_staging_upload(pinned_staging *p, void *to, const void *from,
                                                size_t bytes, cudaStream_t stream)
{
    if (bytes == 0)
        return cudaSuccess;
    if (!pinned_staging_ready(p))
        return cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream);
    cudaError_t e = cudaSuccess;
    for (size_t at = 0; at < bytes && e == cudaSuccess; at += kPinnedChunk) {
        size_t n = bytes - at < kPinnedChunk ? bytes - at : kPinnedChunk;
        int h = 0;
        if ((e = pinned_staging_half(p, &h)) != cudaSuccess)
            break;
        uint8_t *half = p->halves + h * kPinnedChunk;
        std::memcpy(half, (const uint8_t *)from + at, n);
        if ((e = cudaMemcpyAsync((uint8_t *)to + at, half, n, cudaMemcpyHostToDevice, stream)) ==
            cudaSuccess)
            e = cudaEventRecord(p->done[h], stream);
    }
    return e;
}

/* Device to host on `stream` after its earlier work, a chunk at a time:
 * one lands while the other is copied out. Returns once all of `to` is
 * written. */
static inline cudaError_t pinned_staging_download(pinned_staging *p, void *to, const void *from,
                                                  size_t bytes, cudaStream_t stream)
{
    if (bytes == 0)
        return cudaSuccess;
    if (!pinned_staging_ready(p)) {
        cudaError_t e = cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream);
        return e == cudaSuccess ? cudaStreamSynchronize(stream) : e;
    }
    size_t chunks = (bytes + kPinnedChunk - 1) / kPinnedChunk;
    int landing[2] = {0, 0}; /* the halves of chunks k and k - 1 */
    cudaError_t e = cudaSuccess;
    for (size_t k = 0; k <= chunks && e == cudaSuccess; k++) {
        if (k < chunks) { /* chunk k comes down ... */
            size_t at = k * kPinnedChunk, n = bytes - at < kPinnedChunk ? bytes - at : kPinnedChunk;
            int h = 0;
            if ((e = pinned_staging_half(p, &h)) != cudaSuccess)
                break;
            landing[k & 1] = h;
            if ((e = cudaMemcpyAsync(p->halves + h * kPinnedChunk, (const uint8_t *)from + at, n,
                                     cudaMemcpyDeviceToHost, stream)) == cudaSuccess)
                e = cudaEventRecord(p->done[h], stream);
        }
        if (k > 0 && e == cudaSuccess) { /* ... while chunk k - 1 is copied out */
            size_t at = (k - 1) * kPinnedChunk;
            size_t n = bytes - at < kPinnedChunk ? bytes - at : kPinnedChunk;
            int h = landing[(k - 1) & 1];
            if ((e = cudaEventSynchronize(p->done[h])) == cudaSuccess)
                std::memcpy((uint8_t *)to + at, p->halves + h * kPinnedChunk, n);
        }
    }
    return e;
}

#endif
