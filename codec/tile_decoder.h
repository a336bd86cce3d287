/* tile_decoder.h - decodes one tile of a parsed codestream into an image:
 * Tier-2 (Annex B) -> Tier-1 per code-block on all threads (Annex D) ->
 * dequantization and ROI (Annex E, H) -> inverse DWT (Annex F) -> inverse
 * component transform (Annex G.2, G.3) -> level shift and clamp (G.1). */
#ifndef GJ2K_TILE_DECODER_H
#define GJ2K_TILE_DECODER_H

#include "codestream.h"
#include "gpu_stage.h"
#include "gj2k.h"

typedef struct tile_decode_settings {
    unsigned reduce;      /* resolution levels discarded */
    unsigned max_layers;  /* 0: all */
    unsigned threads;     /* 0: every core */
    gpu_stage *gpu;       /* NULL: the inverse transforms on the CPU */
    gj2k_warning_fn warning;
    void *warning_user;
} tile_decode_settings;

/* Decodes tile `tile_index` of `codestream` (whose bytes are `data`) and
 * writes the part of it that falls inside `image`. The image's components
 * are the codestream's, at the reduced resolution: component c covers
 * [x0, x0 + width) x [y0, y0 + height) of its grid reduced by 2^reduce. A
 * tile with no tile-parts decodes to mid-grey (zero coefficients). */
gj2k_status tile_decode(const j2k_codestream *codestream, const uint8_t *data, uint32_t tile_index,
                        const tile_decode_settings *settings, gj2k_image *image,
                        gj2k_error *error);

#endif
