/* tile_decoder.h - decodes one tile of a parsed codestream into an image:
 * Tier-2 (Annex B) -> Tier-1 per code-block on all threads (Annex D) ->
 * dequantization and ROI (Annex E, H) -> inverse DWT (Annex F) -> inverse
 * component transform (Annex G.2, G.3) -> level shift and clamp (G.1). */
#ifndef GJ2K_TILE_DECODER_H
#define GJ2K_TILE_DECODER_H

#include "codestream.h"
#include "gpu_stage.h"
#include "gj2k.h"
#include "memory_budget.h"
#include "parallel_pool.h"
#include "progress_meter.h"

typedef struct tile_decode_settings {
    unsigned reduce;      /* resolution levels discarded */
    unsigned max_layers;  /* 0: all */
    parallel_pool *pool;  /* the CPU threads (NULL: the caller's alone) */
    gpu_stage *gpu;       /* NULL: the inverse transforms on the CPU */
    struct tier1_gpu *tier1_gpu; /* NULL: Tier-1 on the CPU threads (tier1_gpu.h) */
    memory_budget *memory; /* the tile's planes are taken from it (NULL: no limit) */
    progress_meter *progress; /* the code-blocks' samples as they are decoded (may be NULL) */
    gj2k_warning_fn warning;
    void *warning_user;
} tile_decode_settings;

/* Decodes tile `tile_index` of `codestream` (whose bytes are `data`) and
 * writes the part of it that falls inside `image`. The image's components
 * are the codestream's, at the reduced resolution: component c covers
 * [x0, x0 + width) x [y0, y0 + height) of its grid reduced by 2^reduce. A
 * tile with no tile-parts decodes to mid-grey (zero coefficients). */
/* Where a tile's time went (ms of wall time, added to): Tier-2, Tier-1
 * with dequantization, and from the end of Tier-1 to the samples placed. */
typedef struct tile_decode_times {
    double tier2_ms, tier1_ms, transform_ms;
} tile_decode_times;
/* `times` (may be NULL) is added to. */
gj2k_status tile_decode(const j2k_codestream *codestream, const uint8_t *data, uint32_t tile_index,
                        const tile_decode_settings *settings, gj2k_image *image,
                        tile_decode_times *times, gj2k_error *error);

/* The same for a tile with no tile-parts, without building its structure:
 * every coefficient is zero, which decodes to the level shift's offset
 * (mid-grey). Fails as tile_decode would on parameters it cannot decode. */
gj2k_status tile_decode_missing(const j2k_codestream *codestream, uint32_t tile_index,
                                const tile_decode_settings *settings, gj2k_image *image,
                                gj2k_error *error);

/* The same in three steps, so that on the GPU the inverse transforms of a
 * tile run beside Tier-1 of its own later planes and of the next tile:
 * tile_decode_begin (Tier-2), tile_decode_blocks (Tier-1 and
 * dequantization) and tile_decode_samples (inverse DWT, component transform
 * and level shift into the image). With a GPU stage in the settings,
 * tile_decode_samples may start on its own thread before
 * tile_decode_blocks: it waits for each plane's code-blocks (and fails if
 * tile_decode_blocks does). Without one it must come after. Tiles cover
 * disjoint parts of the image, so the samples of one tile may be placed
 * while the next tile decodes; the GPU stage takes one tile at a time. */
typedef struct tile_decoding tile_decoding;
gj2k_status tile_decode_begin(const j2k_codestream *codestream, const uint8_t *data,
                              uint32_t tile_index, const tile_decode_settings *settings,
                              const gj2k_image *image, tile_decoding **out, gj2k_error *error);
gj2k_status tile_decode_blocks(tile_decoding *work, const tile_decode_settings *settings,
                               gj2k_error *error);
gj2k_status tile_decode_samples(tile_decoding *work, const tile_decode_settings *settings,
                                gj2k_image *image, gj2k_error *error);
void tile_decoding_free(tile_decoding *work);
/* Small tiles fill the GPU together: tile_decode_blocks of `count` tiles
 * in one GPU batch, where every one lies on the device
 * (tile_decoding_on_device; else each on its own). The first tile's
 * Tier-1 time is the batch's, the others' none. */
gj2k_status tile_decode_blocks_together(tile_decoding **works, size_t count,
                                        const tile_decode_settings *settings, gj2k_error *error);
/* Whether the tile's planes lie in device memory (its Tier-1 may join
 * others'), and how many samples its planes hold. */
bool tile_decoding_on_device(const tile_decoding *work);
uint64_t tile_decoding_samples(const tile_decoding *work);
/* Gives up on a tile whose Tier-1 will not run: a tile_decode_samples
 * waiting for it fails. */
void tile_decoding_abandon(tile_decoding *work);
/* Adds the tile's times so far to `times`. */
void tile_decoding_add_times(const tile_decoding *work, tile_decode_times *times);

#endif
