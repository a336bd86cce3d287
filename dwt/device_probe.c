/* device_probe.c - gj2k_device_probe: the build's probe fills a whole
 * gj2k_device_info, of which the caller gets as much as its struct_size
 * holds (struct_size.h); a struct_size refused leaves it untouched, since
 * the probe cannot fail. */
#include "gj2k.h"
#include "gpu_stage.h"
#include "struct_size.h"

void gj2k_device_probe(gj2k_device_info *info)
{
    if (info == NULL || STRUCT_SIZE_CHECK(info, gj2k_device_info, NULL) != GJ2K_OK)
        return;
    gj2k_device_info whole;
    device_probe_fill(&whole);
    STRUCT_SIZE_GIVE(info, &whole, gj2k_device_info);
}
