/* tier1_gpu_common.cuh - what the GPU's block decoder and encoder share:
 * the device copies of the coders' tables (made from the host's
 * initializers, tier1_tables.h, before the one-source coders are included),
 * growable device buffers from a pool of the coder's and the error of a failed CUDA call. */
#ifndef GJ2K_TIER1_GPU_COMMON_CUH
#define GJ2K_TIER1_GPU_COMMON_CUH

#include <cstdint>
#include <new>

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
}
#include "mq_coder.h"
#include "stream_memory.cuh"
#include "tier1_tables.h"

/* The tables the one-source coders read on the device (MQ_STATES,
 * TIER1_ZERO_CONTEXT, TIER1_SIGN_TABLE); const, so each .cu has its own. */
__device__ const mq_state mq_states_device[2 * MQ_NUM_STATES] = {MQ_STATES_INITIALIZER};
__device__ const uint8_t tier1_zero_context_device[4][512] = TIER1_ZERO_CONTEXT_INITIALIZER;
__device__ const uint8_t tier1_sign_table_device[256] = TIER1_SIGN_TABLE_INITIALIZER;

namespace tier1_cuda {

/* Threads a CUDA block of the coding kernels: each keeps its coder's state
 * in shared memory. */
constexpr int kThreads = 64;

/* Threads of a warp that code a block each, by default. The blocks of one
 * warp take different branches at nearly every symbol, and a warp runs its
 * threads' branches one after another: one block a warp, the rest of its
 * threads idle, measured 2.2-5x faster than 32 (docs/gpu-notes.md). */
constexpr unsigned kDefaultLanes = 1;

/* The block thread t codes with `lanes` blocks a warp, or count (none). */
__device__ inline uint32_t block_of_thread(uint32_t t, uint32_t lanes, uint32_t count)
{
    uint32_t lane = t % 32, i = t / 32 * lanes + lane;
    return lane < lanes && i < count ? i : count;
}

/* Where thread threadIdx.x keeps its coder's state among a CUDA block's
 * (dynamic shared memory: only the working lanes take room, so that with
 * one lane a warp shared memory does not limit the warps an SM holds). */
__device__ inline uint32_t state_slot(uint32_t lanes)
{
    return threadIdx.x / 32 * lanes + threadIdx.x % 32;
}

/* The dynamic shared memory of a CUDA block: states of `bytes` each. */
inline size_t shared_bytes(unsigned lanes, size_t bytes) { return kThreads / 32 * lanes * bytes; }

/* CUDA blocks of kThreads threads for `count` blocks at `lanes` a warp. */
inline unsigned grid_for(size_t count, unsigned lanes)
{
    size_t threads = (count + lanes - 1) / lanes * 32;
    return (unsigned)((threads + kThreads - 1) / kThreads);
}

inline unsigned valid_lanes(unsigned lanes) { return lanes >= 1 && lanes <= 32 ? lanes : kDefaultLanes; }

inline gj2k_status device_fail(gj2k_error *error, cudaError_t e, const char *what)
{
    cudaGetLastError();
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU Tier-1: %s: %s", what, cudaGetErrorString(e));
}

/* A device buffer grown to at least `bytes`, from its coder's pool in the
 * order of the coder's stream (stream_memory.cuh): growing never waits for
 * the other work on the device. It grows by half again at least, so that
 * sizes that vary from image to image settle after a few. */
struct Buffer {
    void *data = nullptr;
    size_t capacity = 0;
    const stream_memory *memory = nullptr; /* the coder's, which outlives its buffers */
    cudaError_t reserve(const stream_memory &from, size_t bytes)
    {
        if (bytes <= capacity)
            return cudaSuccess;
        if (bytes < capacity + capacity / 2)
            bytes = capacity + capacity / 2;
        memory = &from;
        stream_memory_free(memory, data);
        data = nullptr;
        capacity = 0;
        cudaError_t e = stream_memory_trim(memory); /* the old one given back first */
        if (e == cudaSuccess)
            e = stream_memory_alloc(memory, &data, bytes);
        if (e == cudaSuccess) /* ready for the copies and kernels of any stream */
            e = cudaStreamSynchronize(memory->stream);
        if (e == cudaSuccess)
            capacity = bytes;
        return e;
    }
    template <typename T> T *as() const { return static_cast<T *>(data); }
    Buffer() = default;
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    ~Buffer()
    {
        if (memory != nullptr)
            stream_memory_free(memory, data);
    }
};

/* Device `device` (visible ones numbered from 0), or why it is not there. */
inline gj2k_status check_device(unsigned device, gj2k_error *error)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return device_fail(error, e, "no device");
    if (count == 0)
        return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU Tier-1: no GPU");
    if (device >= (unsigned)count)
        return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU Tier-1: no GPU %u (%d usable)", device,
                         count);
    return GJ2K_OK;
}

/* The calling thread's CUDA calls go to the coder's device: a coder may be
 * used from any of the library's threads, each with a current device of
 * its own. Returns from a function with `gj2k_error *error` in scope. */
#define TIER1_USE_DEVICE(device)                                                               \
    do {                                                                                       \
        cudaError_t use_device_e_ = cudaSetDevice(device);                                     \
        if (use_device_e_ != cudaSuccess)                                                      \
            return tier1_cuda::device_fail(error, use_device_e_, "cudaSetDevice");             \
    } while (0)

template <typename Coder> void destroy_coder(Coder *coder)
{
    if (coder == nullptr)
        return;
    cudaSetDevice(coder->device); /* its buffers are freed on its device */
    stream_memory memory = coder->memory;
    cudaStream_t stream = coder->stream;
    delete coder; /* the buffers back to the pool, in the stream's order */
    stream_memory_close(&memory);
    if (stream != nullptr)
        cudaStreamDestroy(stream);
    cudaGetLastError();
}

/* A coder (tier1_gpu or tier1_gpu_encoder: a struct with a `stream`, a
 * `device` and the `memory` of its buffers, declared before them) on
 * device `device`, with a stream of rank `rank` (stream_create_ranked) and
 * a pool of its own. */
template <typename Coder>
gj2k_status create_coder(unsigned device, unsigned rank, Coder **out, gj2k_error *error)
{
    *out = nullptr;
    gj2k_status status = check_device(device, error);
    if (status != GJ2K_OK)
        return status;
    TIER1_USE_DEVICE((int)device);
    Coder *coder = new (std::nothrow) Coder;
    if (coder == nullptr)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    coder->device = (int)device;
    cudaError_t e = stream_create_ranked(&coder->stream, rank);
    if (e == cudaSuccess)
        e = stream_memory_open(&coder->memory, coder->device, coder->stream);
    if (e != cudaSuccess) {
        destroy_coder(coder);
        return device_fail(error, e, "stream");
    }
    *out = coder;
    return GJ2K_OK;
}

} // namespace tier1_cuda

#endif
