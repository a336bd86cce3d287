/* device_probe_none.c - the device probe of a build without CUDA. */
#include <stdio.h>
#include <string.h>

#include "gj2k.h"

void gj2k_device_probe(gj2k_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->detail, sizeof info->detail, "this gj2k was built without CUDA");
}
