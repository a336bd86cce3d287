/* gpu_strategies_none.c - the strategy lab (gpu_strategies.h) in a build
 * without CUDA: every call fails with GJ2K_ERROR_DEVICE. */
#include "error.h"
#include "gpu_strategies.h"

static gj2k_status no_cuda(gj2k_error *error)
{
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "GPU: this build of gj2k has no CUDA");
}

gj2k_status gpu_dwt_lab_create(gpu_dwt_lab **out, size_t capacity, gj2k_error *error)
{
    (void)capacity;
    *out = NULL;
    return no_cuda(error);
}
void gpu_dwt_lab_destroy(gpu_dwt_lab *lab) { (void)lab; }
gj2k_status gpu_dwt_lab_device(gpu_dwt_lab *lab, gpu_dwt_device *device, gj2k_error *error)
{
    (void)lab, (void)device;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_put(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, const void *data,
                            dwt_rect tile, gj2k_error *error)
{
    (void)lab, (void)buffer, (void)data, (void)tile;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_get(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, void *data, dwt_rect tile,
                            gj2k_error *error)
{
    (void)lab, (void)buffer, (void)data, (void)tile;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_poison(gpu_dwt_lab *lab, gj2k_error *error)
{
    (void)lab;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_run(gpu_dwt_lab *lab, gpu_dwt_strategy strategy, bool reversible,
                            bool forward, dwt_rect tile, unsigned levels, unsigned precision,
                            double *ms, gj2k_error *error)
{
    (void)lab, (void)strategy, (void)reversible, (void)forward, (void)tile, (void)levels;
    (void)precision, (void)ms;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_keep(gpu_dwt_lab *lab, bool forward, dwt_rect tile, gj2k_error *error)
{
    (void)lab, (void)forward, (void)tile;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_restore(gpu_dwt_lab *lab, dwt_rect tile, gj2k_error *error)
{
    (void)lab, (void)tile;
    return no_cuda(error);
}
gj2k_status gpu_dwt_lab_compare(gpu_dwt_lab *lab, bool forward, bool reversible, dwt_rect tile,
                                uint64_t *differ, double *largest, gj2k_error *error)
{
    (void)lab, (void)forward, (void)reversible, (void)tile;
    *differ = 0;
    *largest = 0;
    return no_cuda(error);
}
