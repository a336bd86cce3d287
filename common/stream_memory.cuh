/* stream_memory.cuh - device memory taken and given back in the order of
 * one stream (cudaMallocFromPoolAsync, cudaFreeAsync) from a pool of its
 * owner's. cudaFree waits for the whole device, so when one of the workers
 * sharing a GPU grew a buffer, every other worker's kernels drained first
 * (docs/gpu-notes.md, seventh session); here a buffer grows in its own
 * stream's order. The pool keeps what is given back (no release threshold)
 * until it is closed: the owner's buffers are reused, returned to the
 * driver between images only when one grows (stream_memory_trim). Where the device has no memory pools, the calls
 * fall back to cudaMalloc and cudaFree. Included by CUDA sources only. */
#ifndef GJ2K_STREAM_MEMORY_CUH
#define GJ2K_STREAM_MEMORY_CUH

#include <cstdint>

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

#endif
