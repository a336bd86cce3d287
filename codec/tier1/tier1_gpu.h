/* tier1_gpu.h - Tier-1 coding of many code-blocks at once on the GPU, one
 * thread a block running the very coder the host runs: decoding
 * (cuda/tier1_decode_gpu.cu, tier1_decode_block.h) gives each block the
 * coefficients, lowest known planes and result tier1_decode_block gives;
 * encoding (cuda/tier1_encode_gpu.cu, tier1_encode_block.h) the bytes,
 * planes and passes (truncation points, distortion reductions)
 * tier1_encode_block_with_fractions gives. Without CUDA (tier1_gpu_none.c)
 * the create functions fail with GJ2K_ERROR_DEVICE. */
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

/* A decoder on GPU `device` (CUDA's numbering of the visible ones), its
 * buffers grown as batches need. Usable from any thread, one call at a time. */
gj2k_status tier1_gpu_create(unsigned device, tier1_gpu **out, gj2k_error *error);
/* ... whose kernels run at rank `rank`'s stream priority among the coders
 * sharing the GPU (0: the default; gj2k_gpu_context_create_ranked). */
gj2k_status tier1_gpu_create_ranked(unsigned device, unsigned rank, tier1_gpu **out,
                                    gj2k_error *error);
void tier1_gpu_destroy(tier1_gpu *gpu);
/* For benchmarks and tests: how many threads of each warp decode a block
 * each (1..32; the default, 1, measured fastest). */
void tier1_gpu_set_lanes(tier1_gpu *gpu, unsigned lanes);
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

/* ------------------------------------- decoding into device memory */

/* Device memory of a tile's planes, where tier1_gpu_decode_placed leaves
 * each decoded block dequantized in signed half steps (dequantize.h), for
 * the GPU's inverse transforms to read where it lies (gpu_inverse_plane's
 * device_input). Starts as zeros. Destroy it before its tier1_gpu. */
typedef struct tier1_gpu_planes tier1_gpu_planes;
gj2k_status tier1_gpu_planes_create(tier1_gpu *gpu, size_t samples, tier1_gpu_planes **out,
                                    gj2k_error *error);
void tier1_gpu_planes_destroy(tier1_gpu_planes *planes);
/* The device address of element 0. */
int32_t *tier1_gpu_planes_data(const tier1_gpu_planes *planes);
/* For tests: `count` elements at `offset` from or to host memory. */
gj2k_status tier1_gpu_planes_fetch(tier1_gpu_planes *planes, size_t offset, size_t count,
                                   int32_t *to, gj2k_error *error);
gj2k_status tier1_gpu_planes_put(tier1_gpu_planes *planes, size_t offset, size_t count,
                                 const int32_t *from, gj2k_error *error);

/* Where block i's values go: element `origin` of planes object `set` (of
 * the batch's) is its top-left corner, rows `stride` apart; `roi_shift` is
 * its component's (0: none). */
typedef struct tier1_gpu_placement {
    uint64_t origin;
    uint64_t stride;
    uint32_t set;
    uint32_t roi_shift;
} tier1_gpu_placement;

/* tier1_gpu_decode, but each block's outputs, instead of coming back, are
 * dequantized into planes[placements[i].set] (the planes of several tiles
 * may share a batch) at placements[i]: sign * dequantize_halves() of each
 * coefficient, which must fit in 31 bits (Mb <= 30). Blocks refused
 * (GJ2K_ERROR_INVALID_ARGUMENT, GJ2K_ERROR_UNSUPPORTED) or whose placement
 * reaches outside its planes leave them alone; the results come back. */
gj2k_status tier1_gpu_decode_placed(tier1_gpu *gpu, const uint8_t *data, size_t data_size,
                                    const tier1_segment *segments, size_t num_segments,
                                    const tier1_gpu_block *blocks, size_t count,
                                    const tier1_gpu_placement *placements,
                                    tier1_gpu_planes *const *planes, size_t num_sets,
                                    tier1_gpu_result *results, gj2k_error *error);

/* ------------------------------------------------------------- encoder */

/* Where a batch's coefficients come from: one array of them (and of their
 * fractions, or NULL: the reversible path), code-block by code-block; or,
 * when `resident`, the encoder's input memory (tier1_gpu_encoder_input),
 * at the span's place: after the samples of the spans before it. */
typedef struct tier1_gpu_span {
    const int32_t *coefficients;
    const uint8_t *fractions;
    size_t samples;
    bool resident;            /* the pointers are not read; then: */
    bool resident_fractions;  /*   whether fractions are there too */
} tier1_gpu_span;

/* One block of a batch to encode: its coefficients at `offset` in span
 * `span`, rows `width` apart. */
typedef struct tier1_gpu_encode_block {
    uint32_t span;
    uint64_t offset;
    uint32_t width, height;    /* 1..1024, width * height <= 4096 */
    uint32_t band;             /* dwt_band */
    uint32_t style;            /* TIER1_STYLE_* */
} tier1_gpu_encode_block;

/* What became of a block: tier1_encode_block_with_fractions's status (with
 * magnitude_bits 31), or GJ2K_ERROR_LIMIT when its bytes outgrew the room
 * the GPU gave it (then code it on the host); on success its bytes at
 * data_offset in the batch's output and its passes at passes_offset. */
typedef struct tier1_gpu_encoded {
    gj2k_status status;
    uint32_t num_planes, num_passes;
    uint64_t data_offset, size;
    uint64_t passes_offset;
} tier1_gpu_encoded;

typedef struct tier1_gpu_encoder tier1_gpu_encoder;

/* An encoder on GPU `device`, its buffers grown as batches need. Usable
 * from any thread, one call at a time. */
gj2k_status tier1_gpu_encoder_create(unsigned device, tier1_gpu_encoder **out,
                                     gj2k_error *error);
/* ... at rank `rank`'s stream priority (as tier1_gpu_create_ranked). */
gj2k_status tier1_gpu_encoder_create_ranked(unsigned device, unsigned rank,
                                            tier1_gpu_encoder **out, gj2k_error *error);
void tier1_gpu_encoder_destroy(tier1_gpu_encoder *gpu);
/* The room each block's bytes get on the GPU: bytes_per_sample (by default
 * 4) for each of its samples, and TIER1_GPU_ROOM_PER_BLOCK for the
 * terminations of up to TIER1_MAX_PASSES segments (a tiny block terminated
 * at every pass is mostly terminations). For tests: small values make
 * blocks overflow. */
#define TIER1_GPU_ROOM_PER_BLOCK (16 * TIER1_MAX_PASSES)
void tier1_gpu_encoder_set_room(tier1_gpu_encoder *gpu, unsigned bytes_per_sample);
/* For benchmarks and tests: how many threads of each warp code a block
 * each (1..32; the default, 1, measured fastest: the others idle, so that a
 * warp never runs diverging blocks one branch after another). */
void tier1_gpu_encoder_set_lanes(tier1_gpu_encoder *gpu, unsigned lanes);

/* Device memory for `samples` coefficients (and as many fractions, when
 * asked) where a batch's resident spans lie, for the GPU's transforms to
 * write into (gpu_forward_plane's device_output): kept until a call asks
 * for more. The batch leaves it as it was. */
gj2k_status tier1_gpu_encoder_input(tier1_gpu_encoder *gpu, size_t samples, bool fractions,
                                    int32_t **coefficients, uint8_t **fraction_bytes,
                                    gj2k_error *error);
/* Copies `count` coefficients (and fractions, when not NULL) from the input
 * memory at `offset` to the host, or from the host there. */
gj2k_status tier1_gpu_encoder_fetch(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                                    int32_t *coefficients, uint8_t *fractions,
                                    gj2k_error *error);
gj2k_status tier1_gpu_encoder_put(tier1_gpu_encoder *gpu, size_t offset, size_t count,
                                  const int32_t *coefficients, const uint8_t *fractions,
                                  gj2k_error *error);

/* Encodes blocks[0 .. count) of the spans. results[i] tells of block i;
 * the bytes of all blocks land in *data (*data_size bytes) and their passes
 * in *passes (*num_passes), both malloc'ed, the caller frees them (NULL
 * when empty). A block whose geometry, style or span is bad is refused
 * with GJ2K_ERROR_INVALID_ARGUMENT. Fails with GJ2K_ERROR_DEVICE when the
 * GPU does. */
gj2k_status tier1_gpu_encode(tier1_gpu_encoder *gpu, const tier1_gpu_span *spans,
                             size_t num_spans, const tier1_gpu_encode_block *blocks,
                             size_t count, tier1_gpu_encoded *results, uint8_t **data,
                             size_t *data_size, tier1_pass_info **passes, size_t *num_passes,
                             gj2k_error *error);

#ifdef __cplusplus
}
#endif

#endif
