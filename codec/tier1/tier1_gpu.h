/* tier1_gpu.h - Tier-1 decoding of many code-blocks at once on the GPU
 * (cuda/tier1_decode_gpu.cu), one thread a block running the very decoder
 * the host runs (tier1_decode_block.h), so that each block decodes to the
 * same coefficients, lowest known planes and result as tier1_decode_block
 * gives. Without CUDA (tier1_gpu_none.c) tier1_gpu_create fails with
 * GJ2K_ERROR_DEVICE. */
#ifndef GJ2K_TIER1_GPU_H
#define GJ2K_TIER1_GPU_H

#include "tier1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One block of a batch: its bytes, segments and geometry, and where its
 * output goes. */
typedef struct tier1_gpu_block {
    uint64_t data_offset;      /* its bytes in the batch's data */
    uint64_t size;             /* bytes available there */
    uint32_t first_segment;    /* its segments in the batch's list */
    uint32_t num_segments;
    uint32_t num_planes;
    uint32_t width, height;    /* 1..1024, width * height <= 4096 */
    uint32_t band;             /* dwt_band */
    uint32_t style;            /* TIER1_STYLE_* */
    uint64_t output_offset;    /* its first sample in the outputs; rows `width` apart */
} tier1_gpu_block;

typedef struct tier1_gpu_result {
    gj2k_status status;        /* as tier1_decode_block returns */
    unsigned passes_decoded;
    unsigned segmentation_errors;
} tier1_gpu_result;

typedef struct tier1_gpu tier1_gpu;

/* A decoder on the first GPU, its buffers grown as batches need. */
gj2k_status tier1_gpu_create(tier1_gpu **out, gj2k_error *error);
void tier1_gpu_destroy(tier1_gpu *gpu);
/* Blocks decoded so far (refused ones not counted). */
uint64_t tier1_gpu_blocks(const tier1_gpu *gpu);

/* Decodes blocks[0 .. count): each block's coefficients and lowest known
 * planes (tier1_decode_block's outputs, stride its width) at its
 * output_offset in `coefficients` and `lowest` (`samples` elements each),
 * its outcome in results[i]. A block tier1_decode_block would refuse (bad
 * geometry, style, more than 31 planes, segments or bytes outside the
 * batch) is refused the same way and its output left alone. Fails with
 * GJ2K_ERROR_DEVICE when the GPU does. */
gj2k_status tier1_gpu_decode(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                             const tier1_segment *segments, size_t num_segments,
                             const tier1_gpu_block *blocks, size_t count, int32_t *coefficients,
                             uint8_t *lowest, size_t samples, tier1_gpu_result *results,
                             gj2k_error *error);

#ifdef __cplusplus
}
#endif

#endif
