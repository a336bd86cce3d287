/* tier1_gpu_none.c - tier1_gpu.h in a build without CUDA: no GPU to use. */
#include "error.h"
#include "tier1_gpu.h"

gj2k_status tier1_gpu_create(unsigned device, tier1_gpu **out, gj2k_error *error)
{
    (void)device;
    *out = NULL;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_create_ranked(unsigned device, unsigned rank, tier1_gpu **out,
                                    gj2k_error *error)
{
    (void)rank;
    return tier1_gpu_create(device, out, error);
}

void tier1_gpu_destroy(tier1_gpu *gpu) { (void)gpu; }

uint64_t tier1_gpu_blocks(const tier1_gpu *gpu)
{
    (void)gpu;
    return 0;
}

gj2k_status tier1_gpu_decode(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                             const tier1_segment *segments, size_t num_segments,
                             const tier1_gpu_block *blocks, size_t count, int32_t *coefficients,
                             uint8_t *lowest, size_t samples, tier1_gpu_result *results,
                             gj2k_error *error)
{
    (void)gpu, (void)data, (void)data_size, (void)segments, (void)num_segments, (void)blocks;
    (void)count, (void)coefficients, (void)lowest, (void)samples, (void)results;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_encoder_create(unsigned device, tier1_gpu_encoder **out,
                                     gj2k_error *error)
{
    (void)device;
    *out = NULL;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_encoder_create_ranked(unsigned device, unsigned rank,
                                            tier1_gpu_encoder **out, gj2k_error *error)
{
    (void)rank;
    return tier1_gpu_encoder_create(device, out, error);
}

void tier1_gpu_encoder_destroy(tier1_gpu_encoder *gpu) { (void)gpu; }

void tier1_gpu_encoder_set_room(tier1_gpu_encoder *gpu, unsigned bytes_per_sample)
{
    (void)gpu, (void)bytes_per_sample;
}

gj2k_status tier1_gpu_encode(tier1_gpu_encoder *gpu, const tier1_gpu_span *spans,
                             size_t num_spans, const tier1_gpu_encode_block *blocks,
                             size_t count, tier1_gpu_encoded *results, uint8_t **data,
                             size_t *data_size, tier1_pass_info **passes, size_t *num_passes,
                             gj2k_error *error)
{
    (void)gpu, (void)spans, (void)num_spans, (void)blocks, (void)count, (void)results;
    *data = NULL;
    *passes = NULL;
    *data_size = *num_passes = 0;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

void tier1_gpu_encoder_set_lanes(tier1_gpu_encoder *gpu, unsigned lanes) { (void)gpu, (void)lanes; }

void tier1_gpu_set_lanes(tier1_gpu *gpu, unsigned lanes) { (void)gpu, (void)lanes; }

gj2k_status tier1_gpu_encoder_input(tier1_gpu_encoder *gpu, size_t samples, bool fractions,
                                    int32_t **coefficients, uint8_t **fraction_bytes,
                                    gj2k_error *error)
{
    (void)gpu, (void)samples, (void)fractions;
    *coefficients = NULL;
    *fraction_bytes = NULL;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_encoder_fetch(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                                    int32_t *coefficients, uint8_t *fractions,
                                    gj2k_error *error)
{
    (void)gpu, (void)offset, (void)count, (void)coefficients, (void)fractions;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_encoder_put(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                                  const int32_t *coefficients, const uint8_t *fractions,
                                  gj2k_error *error)
{
    (void)gpu, (void)offset, (void)count, (void)coefficients, (void)fractions;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_planes_create(tier1_gpu *gpu, size_t samples, tier1_gpu_planes **out,
                                    gj2k_error *error)
{
    (void)gpu, (void)samples;
    *out = NULL;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

void tier1_gpu_planes_destroy(tier1_gpu_planes *planes) { (void)planes; }

int32_t *tier1_gpu_planes_data(const tier1_gpu_planes *planes)
{
    (void)planes;
    return NULL;
}

gj2k_status tier1_gpu_planes_fetch(tier1_gpu_planes *planes, size_t offset, size_t count,
                                   int32_t *to, gj2k_error *error)
{
    (void)planes, (void)offset, (void)count, (void)to;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_planes_put(tier1_gpu_planes *planes, size_t offset, size_t count,
                                 const int32_t *from, gj2k_error *error)
{
    (void)planes, (void)offset, (void)count, (void)from;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}

gj2k_status tier1_gpu_decode_placed(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                                    const tier1_segment *segments, size_t num_segments,
                                    const tier1_gpu_block *blocks, size_t count,
                                    const tier1_gpu_placement *placements,
                                    tier1_gpu_planes *const *planes, size_t num_sets,
                                    tier1_gpu_result *results, gj2k_error *error)
{
    (void)gpu, (void)data, (void)data_size, (void)segments, (void)num_segments, (void)blocks;
    (void)count, (void)placements, (void)planes, (void)num_sets, (void)results;
    return gj2k_fail(error, GJ2K_ERROR_DEVICE, "this build of gj2k has no CUDA");
}
