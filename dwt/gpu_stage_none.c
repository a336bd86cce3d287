/* gpu_stage_none.c - the GPU stage of a build without CUDA: no device. */
#include "gpu_stage.h"

#include "error.h"

gj2k_status gpu_stage_create(unsigned device, gpu_stage **out, gj2k_error *error)
{
    (void)device;
    *out = NULL;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

gj2k_status gpu_stage_create_ranked(unsigned device, unsigned rank, gpu_stage **out,
                                    gj2k_error *error)
{
    (void)rank;
    return gpu_stage_create(device, out, error);
}

void gpu_stage_destroy(gpu_stage *stage) { (void)stage; }

bool gpu_stage_fits(gpu_stage *stage, size_t largest_area)
{
    (void)stage, (void)largest_area;
    return false;
}

bool gpu_stage_takes(gpu_stage *stage, size_t width, size_t height)
{
    (void)stage, (void)width, (void)height;
    return false;
}

void gpu_stage_set_memory_limit(gpu_stage *stage, size_t elements)
{
    (void)stage, (void)elements;
}

gj2k_status gpu_stage_reserve(gpu_stage *stage, size_t largest_area, gj2k_error *error)
{
    (void)stage, (void)largest_area;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

int gpu_stage_set_rows(gpu_stage *stage, int rows)
{
    (void)stage, (void)rows;
    return 0;
}

void gpu_stage_take_times(gpu_stage *stage, double ms[GPU_PHASES])
{
    (void)stage;
    for (int i = 0; i < GPU_PHASES; i++)
        ms[i] = 0.0;
}

gj2k_status gpu_stage_probe_pinned(gpu_stage *stage, size_t bytes, gpu_pinned_probe *probe,
                                   gj2k_error *error)
{
    (void)stage, (void)bytes, (void)probe;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

gj2k_status gpu_stage_copy_bandwidth(gpu_stage *stage, size_t bytes, double *gbps,
                                     gj2k_error *error)
{
    (void)stage, (void)bytes, (void)gbps;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

gj2k_status gpu_stage_poison(gpu_stage *stage, gj2k_error *error)
{
    (void)stage;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

gj2k_status gpu_forward(gpu_stage *stage, gpu_forward_plane *planes, uint32_t count,
                        bool reversible, bool mct, gpu_plane_done_fn done, void *done_user,
                        gj2k_error *error)
{
    (void)stage, (void)planes, (void)count, (void)reversible, (void)mct, (void)done, (void)done_user;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}

gj2k_status gpu_inverse(gpu_stage *stage, gpu_inverse_plane *planes, uint32_t count,
                        bool reversible, bool mct, gpu_plane_wait_fn wait, void *wait_user,
                        gj2k_error *error)
{
    (void)stage, (void)planes, (void)count, (void)reversible, (void)mct, (void)wait, (void)wait_user;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this gj2k was built without CUDA");
}
