/* device_probe_none.c - the device probe of a build without CUDA. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "gj2k.h"
#include "gpu_stage.h"

void device_probe_fill(gj2k_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->detail, sizeof info->detail, "this gj2k was built without CUDA");
}

gj2k_status gj2k_device_warm_up(double *milliseconds, gj2k_error *error)
{
    if (milliseconds != NULL)
        *milliseconds = 0.0;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}
