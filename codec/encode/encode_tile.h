/* encode_tile.h - the forward path of one tile up to Tier-1: samples ->
 * DC level shift (G.1) -> component transform (G.2, G.3) -> forward DWT
 * (F.4) -> quantization (E.1) -> every code-block coded on all threads
 * (Annex D), with the rate and distortion of each coding pass kept for
 * rate control. */
#ifndef GJ2K_ENCODE_TILE_H
#define GJ2K_ENCODE_TILE_H

#include "encode_plan.h"
#include "gpu_stage.h"
#include "gj2k.h"
#include "parallel_pool.h"
#include "tile_structure.h"

/* One code-block's Tier-1 output. */
typedef struct encoded_block {
    tile_codeblock *block;     /* in its tile's structure */
    uint32_t component;
    uint32_t precinct;         /* its precinct in resolution `resolution` (Tier-2) */
    uint8_t resolution;
    uint8_t subband_index;     /* QCD order */
    uint8_t num_planes;        /* magnitude bit-planes coded */
    uint8_t num_passes;
    uint8_t *data;             /* the codeword segments (malloc'ed) */
    size_t size;
    size_t *lengths;           /* per pass: bytes that decode passes 0..j */
    double *distortion;        /* per pass: weighted squared error it removes (may be < 0) */
    uint8_t *layer_passes;     /* per layer: passes included once it is sent */
    /* HT blocks: num_passes choices (into data), coarsest first; a "pass" of
     * lengths and distortion is then a choice (tile_codeblock_source). */
    tile_codeblock_choice *choices;
    tile_codeblock_source source;
} encoded_block;

typedef struct encoded_tile {
    uint32_t index;
    uint32_t num_components;
    tile_component *components; /* the structure Tier-2 walks */
    encoded_block *blocks;
    size_t num_blocks;
    double energy;              /* weighted squared error with no pass sent */
    double transform_ms, tier1_ms; /* wall time of its transforms, then of Tier-1 */
} encoded_tile;

/* The GPU's parts of an encode. */
typedef struct encode_gpu {
    gpu_stage *stage;                /* the transforms */
    struct tier1_gpu_encoder *tier1; /* Tier-1 (tier1_gpu.h); NULL: on the CPU threads */
    uint64_t tier1_blocks;           /* code-blocks it has coded so far */
    size_t deferred_samples;         /* Tier-1's input memory the deferred tiles hold */
} encode_gpu;

/* A tile whose GPU Tier-1 waits to share a batch with the next tiles', so
 * that small tiles together fill the GPU: its coefficients in the input
 * memory of gpu->tier1 after those of the tiles deferred before it. */
typedef struct encode_deferral encode_deferral;

/* Transforms and codes tile `tile_index` of `image` as `plan` says, the
 * transforms on gpu->stage when there is one (on the CPU when the tile does
 * not fit the GPU's free memory; *on_gpu tells), then Tier-1 on gpu->tier1
 * when there is one and the tile went through the GPU whole, the CPU's work
 * on `pool`'s threads. The result is the same bytes whichever ran it. The
 * blocks' layer_passes hold plan->cod.layers zeros for rate control to
 * fill. */
/* With `deferral` (may be NULL), a tile that goes through the GPU whole
 * with Tier-1 there leaves its Tier-1 for encode_tiles_code_on_gpu and sets
 * *deferral (else NULL: the tile is done); the caller reserves the input
 * memory of the deferred tiles beforehand (tier1_gpu_encoder_input), since
 * growing it loses what it holds. */
gj2k_status encode_tile(const encode_plan *plan, const gj2k_image *image, uint32_t tile_index,
                        encode_gpu *gpu, parallel_pool *pool, bool *on_gpu,
                        encode_deferral **deferral, encoded_tile *out, gj2k_error *error);
/* GPU Tier-1 of the deferred tiles, in order, in as few batches as they
 * fit; each tile then as encode_tile leaves it (its Tier-1 time: the
 * batches' for the first, none for the others). Frees the deferrals; a
 * failure frees their tiles too. */
gj2k_status encode_tiles_code_on_gpu(const encode_plan *plan, encode_gpu *gpu,
                                     parallel_pool *pool, encode_deferral **deferrals,
                                     size_t count, gj2k_error *error);
void encoded_tile_free(encoded_tile *tile);

#endif
