/* device_probe.cu - finds the CUDA runtime and the first usable GPU. A machine
 * without a GPU or a driver is not an error: it reports zero devices. */
#include <cstdio>
#include <cstring>
#include <ctime>

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
}
#include "gj2k.h"

static double seconds_now()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Device 0's primary context, which every later runtime call shares. */
extern "C" gj2k_status gj2k_device_warm_up(double *milliseconds, gj2k_error *error)
{
    double start = seconds_now();
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0 && (status = cudaSetDevice(0)) == cudaSuccess)
        status = cudaFree(nullptr); /* creates the context */
    if (milliseconds != nullptr)
        *milliseconds = (seconds_now() - start) * 1e3;
    if (status != cudaSuccess || count == 0) {
        cudaGetLastError();
        return gj2k_fail(error, GJ2K_ERROR_DEVICE, "no usable GPU: %s",
                         status != cudaSuccess ? cudaGetErrorString(status) : "none found");
    }
    return GJ2K_OK;
}

extern "C" void device_probe_fill(gj2k_device_info *info)
{
    std::memset(info, 0, sizeof *info);
    info->cuda_built = true;
    cudaRuntimeGetVersion(&info->runtime_version);
    cudaError_t status = cudaDriverGetVersion(&info->driver_version);
    if (status != cudaSuccess || info->driver_version == 0) {
        std::snprintf(info->detail, sizeof info->detail, "no CUDA driver installed");
        info->driver_version = 0;
        return;
    }
    int count = 0;
    status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        std::snprintf(info->detail, sizeof info->detail, "no CUDA device: %s",
                      status != cudaSuccess ? cudaGetErrorString(status) : "none found");
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return;
    }
    cudaDeviceProp properties;
    status = cudaGetDeviceProperties(&properties, 0);
    if (status != cudaSuccess) {
        std::snprintf(info->detail, sizeof info->detail, "cannot query CUDA device 0: %s",
                      cudaGetErrorString(status));
        cudaGetLastError();
        return;
    }
    info->device_count = count;
    std::snprintf(info->device_name, sizeof info->device_name, "%s", properties.name);
    info->compute_major = properties.major;
    info->compute_minor = properties.minor;
    info->global_memory = properties.totalGlobalMem;
    info->multiprocessors = properties.multiProcessorCount;
}
