/* device_probe.cu - finds the CUDA runtime and the first usable GPU. A machine
 * without a GPU or a driver is not an error: it reports zero devices. */
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "gj2k.h"

extern "C" void gj2k_device_probe(gj2k_device_info *info)
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
