/* device_check.cuh - how dwt/cuda checks every CUDA call and launch: a
 * failure clears CUDA's sticky error and becomes GJ2K_ERROR_DEVICE, the
 * message naming what failed. GPU_CHECK returns from a function that has
 * `gj2k_error *error` in scope. Included by gpu_stage.cu and
 * gpu_strategies.cu. */
#ifndef GJ2K_DEVICE_CHECK_CUH
#define GJ2K_DEVICE_CHECK_CUH

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
}

static inline gj2k_status device_fail(gj2k_error *error, cudaError_t e, const char *what)
{
    cudaGetLastError();
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU: %s: %s", what, cudaGetErrorString(e));
}

#define GPU_CHECK(call, what)                                                                  \
    do {                                                                                       \
        cudaError_t gpu_check_e_ = (call);                                                     \
        if (gpu_check_e_ != cudaSuccess)                                                       \
            return device_fail(error, gpu_check_e_, what);                                     \
    } while (0)
/* The calling thread's CUDA calls go to device `device` (a stage or coder
 * may be used from any of the library's threads, and each thread has its
 * own current device: CUDA's default is the first). */
#define GPU_USE_DEVICE(device) GPU_CHECK(cudaSetDevice(device), "cudaSetDevice")
/* Every launch is checked where it is made. */
#define GPU_LAUNCHED(what) GPU_CHECK(cudaGetLastError(), what)

#endif
