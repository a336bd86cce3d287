/* gpu_stage_open.c - the --device policy, one place for encoder and decoder. */
#include "gpu_stage.h"

#include "error.h"

gj2k_status gpu_stage_open(gj2k_device device, unsigned gpu, uint64_t samples,
                           uint64_t auto_min_samples, gpu_stage **out, gj2k_error *error)
{
    *out = NULL;
    switch (device) {
    case GJ2K_DEVICE_CPU:
        return GJ2K_OK;
    case GJ2K_DEVICE_GPU: {
        gj2k_status status = gpu_stage_create(gpu, out, error);
        gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
        if (status == GJ2K_ERROR_DEVICE && (gj2k_device_probe(&info), info.device_count == 0))
            /* one message for a missing GPU, in the words `gj2k --version` prints */
            return gj2k_fail(error, GJ2K_ERROR_DEVICE, "no usable GPU (%s)", info.detail);
        return status;
    }
    case GJ2K_DEVICE_AUTO: {
        if (samples < auto_min_samples)
            return GJ2K_OK;
        gj2k_error ignored; /* no usable GPU: the CPU does it */
        gpu_stage_create(gpu, out, &ignored);
        return GJ2K_OK;
    }
    }
    return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "unknown device %d", (int)device);
}
