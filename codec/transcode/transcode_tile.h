/* transcode_tile.h - one tile of a parsed codestream as the transcoder
 * (transcoder.c) takes it: Tier-2 (T.800 Annex B) gives its code-blocks
 * their bytes, listed with where each lies, and Tier-1 (Annex D, or the HT
 * block decoder of T.814) recovers each block's quantized coefficients
 * exactly as the decoder's does (codec/decode/tile_planes.c), with the
 * lowest bit-plane known of each and the last coding pass decoded: no
 * dequantization, no inverse transform. The tests compare two files'
 * coefficients block by block through the same path. */
#ifndef GJ2K_TRANSCODE_TILE_H
#define GJ2K_TRANSCODE_TILE_H

#include <stdbool.h>
#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"
#include "ht_decode.h"
#include "tier1.h"
#include "tile_structure.h"

/* One code-block of a tile. */
typedef struct transcode_block {
    tile_codeblock *block;   /* in its tile-component's structure (its Tier-2 data) */
    uint32_t component;
    uint8_t subband_index;   /* QCD order */
    dwt_band band;
    uint32_t width, height;
    unsigned magnitude_bits; /* Mb (E.1) */
    unsigned num_planes;     /* coded.num_planes; 0: no data */
    tile_codeblock_coded coded; /* what Tier-1 decodes of it (its last HT set for HT) */
} transcode_block;

typedef struct transcode_tile {
    uint32_t index;
    uint32_t num_components;
    j2k_tile_component_params *params; /* per component */
    tile_component *components;        /* the structure Tier-2 filled */
    transcode_block *blocks;           /* every block of every resolution, in the order of
                                          tier2_collect_blocks: component, resolution, band,
                                          precinct, row-major */
    size_t num_blocks;
    unsigned largest_magnitude_bits;   /* Mb over its subbands (T.814 MAGB) */
    bool irreversible;                 /* a component takes the 9/7 wavelet */
    bool damaged;                      /* Tier-2 stopped early on damaged data (warned) */
} transcode_tile;

/*
 * Resolves the coding parameters of tile `tile_index` of `cs` (whose bytes
 * are `codestream`), builds its structure and reads every packet of every
 * layer into it. Damaged packets end the walk with a warning, as in the
 * decoder. On failure *out holds nothing to free.
 */
gj2k_status transcode_tile_read(const j2k_codestream *cs, const uint8_t *codestream,
                                uint32_t tile_index, gj2k_warning_fn warning,
                                void *warning_user, transcode_tile *out, gj2k_error *error);
void transcode_tile_free(transcode_tile *tile);

/* What Tier-1 recovered of one code-block. */
typedef struct transcode_coefficients {
    int32_t values[TIER1_MAX_SAMPLES]; /* sign * magnitude, rows `width` apart */
    uint8_t lowest[TIER1_MAX_SAMPLES]; /* lowest bit-plane known of each */
    unsigned passes;                   /* coding passes decoded; 0: the block is all zero */
    unsigned last_plane;               /* the bit-plane of the last one decoded */
    tier1_pass_type last_type;         /* and its kind: after a cleanup pass its plane is
                                          known for every coefficient, after a significance
                                          or refinement pass only for some */
    bool damaged;                      /* the decoder would warn: decoded as far as it goes */
} transcode_coefficients;

/*
 * Tier-1 of block b, Part 1 or HT as its style says, into *out: what the
 * decoder recovers, damaged data decoded as far as it goes (out->damaged).
 * GJ2K_ERROR_UNSUPPORTED for what the decoder does not decode (more than
 * 31 bit-planes);
 * `workspace` for Part 1 blocks, `lookup` for HT ones.
 */
gj2k_status transcode_block_decode(const transcode_block *b, tier1_workspace *workspace,
                                   const ht_lookup *lookup, transcode_coefficients *out);

#endif
