/* tile_strips.h - decodes a tile a few rows at a time, in memory that
 * grows with the tile's width, not its area: each band keeps only the
 * code-block rows that the current rows reach (Annex D per code-block),
 * and each level of the inverse DWT (Annex F.3) runs over a window of rows
 * wide enough that the rows asked for come out exactly as the whole
 * tile's transform gives them. The samples are the same bits as
 * tile_decode's. Used for tiles too large to hold whole, and to write an
 * image as it is decoded. */
#ifndef GJ2K_TILE_STRIPS_H
#define GJ2K_TILE_STRIPS_H

#include "codestream.h"
#include "gj2k.h"
#include "tile_decoder.h"

typedef struct tile_strips tile_strips;

/* Reads the tile's packets (Tier-2) and sets up its planes; the image's
 * components say which part of each tile-component is wanted (as for
 * tile_decode). The settings must outlive the strips; the GPU is not used. */
gj2k_status tile_strips_begin(const j2k_codestream *codestream, const uint8_t *data,
                              uint32_t tile_index, const tile_decode_settings *settings,
                              const gj2k_image *image, tile_strips **out, gj2k_error *error);

/* Decodes the tile's samples on rows [grid_y0, grid_y1) of the reference
 * grid reduced by 2^reduce (component c's rows ceil(grid_y / dy)) and
 * writes those inside `image`, whose components may cover only those rows.
 * Calls must ask for rows in increasing order, without overlap; `last`
 * marks the call that reaches the end of what is decoded. Components 0-2
 * under a component transform go together: a strip may hold rows of
 * theirs that lie beside those the grid rows give (their subsampling may
 * differ); `image` then should be the whole image. */
gj2k_status tile_strips_decode(tile_strips *strips, uint32_t grid_y0, uint32_t grid_y1, bool last,
                               gj2k_image *image, gj2k_error *error);

void tile_strips_free(tile_strips *strips);

#endif
