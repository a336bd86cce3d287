/* stream_memory_probe.cu - see stream_memory_probe.h. */
#include "stream_memory_probe.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "stream_memory.cuh"

namespace {

constexpr size_t kGuard = 256; /* bytes past each buffer that must stay as poisoned */
constexpr uint8_t kDevicePoison = 0xA5, kHostPoison = 0x5A;

bool failed(char *why, size_t why_size, const char *what, size_t bytes, cudaError_t e)
{
    snprintf(why, why_size, "%zu bytes: %s%s%s", bytes, what, e != cudaSuccess ? ": " : "",
             e != cudaSuccess ? cudaGetErrorString(e) : "");
    return false;
}

/* splitmix64: the test's own bytes, repeatable from the seed */
uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One size's round trip; buffers made and freed here. */
bool round_trip_one(pinned_staging *staging, size_t bytes, uint64_t *state, cudaStream_t up,
                    cudaStream_t down, cudaEvent_t uploaded, char *why, size_t why_size)
{
    uint8_t *source = (uint8_t *)malloc(bytes + 1), *expected = (uint8_t *)malloc(bytes + 1);
    uint8_t *back = (uint8_t *)malloc(bytes + kGuard);
    uint8_t guard[kGuard];
    uint8_t *device = nullptr;
    bool ok = source && expected && back;
    cudaError_t e = cudaSuccess;
    const char *what = "out of memory";
    if (ok) {
        for (size_t i = 0; i < bytes; i++)
            source[i] = expected[i] = (uint8_t)next_random(state);
        memset(back, kHostPoison, bytes + kGuard);
        what = "device buffer";
        e = cudaMalloc((void **)&device, bytes + kGuard);
        if (e == cudaSuccess) /* on `up`: the legacy stream does not order non-blocking ones */
            e = cudaMemsetAsync(device, kDevicePoison, bytes + kGuard, up);
        if (e == cudaSuccess) {
            what = "upload";
            e = pinned_staging_upload(staging, device, source, bytes, up);
        }
        ok = e == cudaSuccess;
    }
    if (ok) {
        for (size_t i = 0; i < bytes; i++) /* the upload must have taken its copy */
            source[i] = (uint8_t)~source[i];
        what = "stream order";
        e = cudaEventRecord(uploaded, up);
        if (e == cudaSuccess)
            e = cudaStreamWaitEvent(down, uploaded, 0);
        if (e == cudaSuccess) {
            what = "download";
            e = pinned_staging_download(staging, back, device, bytes, down);
        }
        if (e == cudaSuccess) {
            what = "guard"; /* after `down`, which waited for `up` (0 bytes return at once) */
            e = cudaStreamSynchronize(down);
            if (e == cudaSuccess)
                e = cudaMemcpy(guard, device + bytes, kGuard, cudaMemcpyDeviceToHost);
        }
        ok = e == cudaSuccess;
    }
    if (ok) {
        for (size_t i = 0; i < bytes && ok; i++)
            if (back[i] != expected[i]) {
                snprintf(why, why_size, "%zu bytes: byte %zu came back %u, sent %u", bytes, i,
                         back[i], expected[i]);
                ok = false;
                what = nullptr;
            }
        for (size_t i = 0; i < kGuard && ok; i++)
            if (back[bytes + i] != kHostPoison || guard[i] != kDevicePoison) {
                ok = false;
                what = "written past the end";
            }
    }
    if (!ok && what != nullptr)
        failed(why, why_size, what, bytes, e);
    cudaFree(device);
    free(source);
    free(expected);
    free(back);
    return ok;
}

} // namespace

extern "C" bool stream_memory_probe_has_gpu(void)
{
    int count = 0;
    bool has = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    cudaGetLastError();
    return has;
}

extern "C" bool stream_memory_round_trip(const size_t *sizes, size_t count, uint64_t seed,
                                         bool two_streams, bool release_between, char *why,
                                         size_t why_size)
{
    cudaStream_t up = nullptr, down = nullptr;
    cudaEvent_t uploaded = nullptr;
    cudaError_t e = cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking);
    if (e == cudaSuccess && two_streams)
        e = cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
    bool ok = e == cudaSuccess || failed(why, why_size, "streams", 0, e);
    uint64_t state = seed;
    {
        pinned_staging staging;
        for (size_t k = 0; k < count && ok; k++) {
            ok = round_trip_one(&staging, sizes[k], &state, up, two_streams ? down : up,
                                uploaded, why, why_size);
            if (release_between)
                pinned_staging_release(&staging);
        }
    } /* the staging's destructor waits for its copies */
    if (uploaded != nullptr)
        cudaEventDestroy(uploaded);
    if (down != nullptr)
        cudaStreamDestroy(down);
    if (up != nullptr)
        cudaStreamDestroy(up);
    return ok;
}

extern "C" bool stream_memory_ranked_priorities(unsigned ranks, char *why, size_t why_size)
{
    int least = 0, greatest = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (e != cudaSuccess)
        return failed(why, why_size, "priority range", 0, e);
    int levels = least - greatest + 1;
    for (unsigned rank = 0; rank < ranks; rank++) {
        cudaStream_t stream = nullptr;
        int priority = 0;
        if ((e = stream_create_ranked(&stream, rank)) != cudaSuccess)
            return failed(why, why_size, "stream_create_ranked", 0, e);
        e = cudaStreamGetPriority(stream, &priority);
        cudaStreamDestroy(stream);
        if (e != cudaSuccess)
            return failed(why, why_size, "cudaStreamGetPriority", 0, e);
        int expected = least - (int)(rank % (unsigned)levels);
        if (priority != expected) {
            snprintf(why, why_size, "rank %u: priority %d, expected %d (range %d..%d)", rank,
                     priority, expected, least, greatest);
            return false;
        }
    }
    return true;
}
