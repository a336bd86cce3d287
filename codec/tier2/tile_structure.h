/* tile_structure.h - the partition of a tile-component into resolutions,
 * subbands, precincts and code-blocks (T.800 B.5-B.7), with the Tier-2 state
 * of each code-block (B.10) that packets build up layer after layer.
 *
 * Coordinates: a resolution's rect is on its own grid (eq. B-14), a band's
 * and a code-block's on the band's grid (eq. B-15). Precincts are numbered
 * row-major within their resolution (B.6); a precinct holds, per band (LL at
 * r = 0; HL, LH, HH at r > 0), the code-blocks it contains, row-major. */
#ifndef GJ2K_TILE_STRUCTURE_H
#define GJ2K_TILE_STRUCTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "codestream.h"
#include "dwt.h"
#include "gj2k.h"
#include "memory_budget.h"
#include "tag_tree.h"
#include "tier1.h"

/* Allocation caps for one tile-component (GJ2K_ERROR_LIMIT beyond), checked
 * from the geometry before anything is allocated: about 1 GiB of structure
 * at most. Each precinct and code-block holds at least one sample. */
#define TILE_MAX_PRECINCTS (1u << 22)
#define TILE_MAX_CODEBLOCKS (1u << 22)
/* Bounds on what packet headers may claim for one code-block: Mb (E.1) is
 * at most 7 guard bits + exponent 31 - 1, plus an ROI shift of up to 255
 * (Annex H); 3 Mb - 2 passes. Anything above is corrupt. */
#define TILE_MAX_MISSING_MSBS 300u
#define TILE_MAX_BLOCK_PASSES 900u

/* What an encoder supplies for one code-block (tier2_encode_tile). */
/* One way an HT code-block may be sent (T.814): its cleanup pass coding
 * bit-plane `plane` up, alone or with the SigProp and MagRef passes of
 * plane - 1 (num_passes 1 or 3; pass_lengths as tile_codeblock_source's),
 * the bytes at `data`, with its missing MSBs (B.10.5 as T.814 reads them:
 * Mb - 1 - plane). */
typedef struct tile_codeblock_choice {
    const uint8_t *data;
    size_t pass_lengths[3];
    unsigned num_passes;
    unsigned plane, missing_msbs;
} tile_codeblock_choice;

typedef struct tile_codeblock_source {
    const uint8_t *data;         /* the codeword segments back to back */
    const size_t *pass_lengths;  /* bytes that decode passes 0..j, cumulative (exact
                                    where a layer ends) */
    unsigned num_passes;         /* entries of pass_lengths */
    unsigned missing_msbs;       /* B.10.5 */
    const uint8_t *layer_passes; /* passes included once layer l is sent: one per layer,
                                    non-decreasing, at most num_passes */
    /* NULL, or num_passes choices of an HT block: then layer_passes[l] = j + 1
     * sends choice j whole (its one or three passes) in the first layer that
     * names one (later layers must name the same), and data, pass_lengths and
     * missing_msbs go unused. */
    const tile_codeblock_choice *choices;
    /* In an HT MIXED tile-component (T.814 Table A.4): the block is coded
     * with Part 1's block coder, its first contribution one segment. */
    bool part1;
} tile_codeblock_source;

/* Which block coder a code-block of an HT tile-component turned out to use
 * (T.814 Annex B): unknown until its first cleanup pass is met, since its
 * first passes may be placeholders; in a MIXED one, the first non-empty
 * contribution may show it Part 1's instead. */
typedef enum tile_codeblock_coder {
    TILE_CODER_AS_STYLED = 0, /* as the style says; HT: no cleanup pass met yet */
    TILE_CODER_HT,            /* HT, its first HT cleanup pass met */
    TILE_CODER_PART1          /* Part 1 (T.800), in an HT MIXED tile-component */
} tile_codeblock_coder;

typedef struct tile_codeblock {
    dwt_rect rect; /* on the band's grid, clipped to the band and the precinct */
    /* Tier-2 state (B.10.4-B.10.7), both directions. */
    bool included;          /* in some earlier packet */
    uint8_t lblock;         /* B.10.7.1: starts at 3 */
    uint16_t missing_msbs;  /* B.10.5: set on first inclusion */
    uint16_t num_passes;    /* coding passes signalled so far, placeholders included */
    uint8_t coder;          /* tile_codeblock_coder */
    /* Decoder output: the bytes of every accepted contribution, in layer
     * order, and the codeword segments they form (tier1_segment). */
    uint8_t *data;
    size_t size, capacity;
    tier1_segment *segments;
    unsigned num_segments, segments_capacity;
    unsigned passes_received; /* the sum of segments[].num_passes */
    unsigned placeholder_passes; /* HT: passes before the first cleanup, in no segment */
    /* Encoder input; NULL: the block is never included. */
    const tile_codeblock_source *source;
} tile_codeblock;

typedef struct tile_precinct_band {
    dwt_rect rect;                   /* the precinct's area in the band (may be empty) */
    uint32_t blocks_wide, blocks_high;
    uint32_t first_block_x, first_block_y; /* code-block grid index of blocks[0] */
    tile_codeblock *blocks;          /* blocks_wide * blocks_high, row-major */
    tag_tree inclusion;              /* B.10.4 */
    tag_tree zero_planes;            /* B.10.5 */
} tile_precinct_band;

typedef struct tile_precinct {
    /* Where the position-driven orders meet it on the reference grid
     * (B.12.1.3): its top-left, or the tile's edge when it starts outside. */
    uint32_t ref_x, ref_y;
    tile_precinct_band bands[3];
} tile_precinct;

typedef struct tile_band {
    dwt_band orientation;
    uint8_t level;                  /* decomposition level nb (eq. B-15) */
    uint8_t subband_index;          /* 0 for LL, else 3 (NL - nb) + orientation: QCD order */
    dwt_rect rect;
    uint8_t codeblock_width_log2;   /* xcb' (eq. B-17) */
    uint8_t codeblock_height_log2;  /* ycb' (eq. B-18) */
} tile_band;

typedef struct tile_resolution {
    dwt_rect rect;                  /* eq. B-14 */
    uint8_t precinct_width_log2;    /* PPx, PPy */
    uint8_t precinct_height_log2;
    uint32_t precincts_wide, precincts_high; /* eq. B-16 */
    uint32_t first_precinct_x, first_precinct_y; /* floor(trx0 / 2^PPx), floor(try0 / 2^PPy) */
    unsigned num_bands;             /* 1 at r = 0, else 3 */
    tile_band bands[3];
    tile_precinct *precincts;       /* row-major; NULL when the resolution is empty */
    bool keep_data;                 /* r <= NL - reduce: store what packets carry */
} tile_resolution;

typedef struct tile_component {
    dwt_rect tile;                  /* the tile on the reference grid */
    dwt_rect rect;                  /* the tile-component (eq. B-12) */
    uint32_t dx, dy;                /* XRsiz, YRsiz */
    j2k_component_coding coding;
    unsigned num_resolutions;       /* NL + 1 */
    tile_resolution *resolutions;
    size_t num_precincts, num_codeblocks; /* over all resolutions */
    memory_budget *memory;          /* what the structure took from it (NULL: none) */
    uint64_t charged;
} tile_component;

/*
 * Builds the structure of one tile-component: `tile` is the tile's area on
 * the reference grid (j2k_tile_rect), dx, dy the component's subsampling,
 * `coding` its coding style (checked here too). Resolutions above NL - reduce
 * still get their code-blocks (their packet headers must be read) but keep no
 * data (reduce > NL keeps none). Fails with GJ2K_ERROR_LIMIT past TILE_MAX_PRECINCTS or
 * TILE_MAX_CODEBLOCKS, before allocating them.
 */
gj2k_status tile_component_init(tile_component *tc, dwt_rect tile, uint32_t dx, uint32_t dy,
                                const j2k_component_coding *coding, unsigned reduce,
                                gj2k_error *error);
/* The same, with the structure's memory taken from `memory` first (given
 * back by tile_component_free); fails with GJ2K_ERROR_LIMIT, allocating
 * nothing, when it would not fit. */
gj2k_status tile_component_init_counted(tile_component *tc, dwt_rect tile, uint32_t dx,
                                        uint32_t dy, const j2k_component_coding *coding,
                                        unsigned reduce, memory_budget *memory,
                                        gj2k_error *error);
void tile_component_free(tile_component *tc);
/* Forgets every packet: Tier-2 state, tag trees and received data. */
void tile_component_reset(tile_component *tc);
/* The same for one precinct of `num_bands` bands. */
void tile_precinct_reset(tile_precinct *precinct, unsigned num_bands);

static inline const tile_precinct *tile_component_precinct(const tile_component *tc,
                                                           unsigned r, uint32_t k)
{
    return &tc->resolutions[r].precincts[k];
}
static inline uint32_t tile_resolution_num_precincts(const tile_resolution *res)
{
    return res->precincts_wide * res->precincts_high;
}

/* The code-block style a block is coded with: `style`, its tile-component's,
 * less the HT bits for a Part 1 block of an HT MIXED one. */
static inline unsigned tile_part1_style(unsigned style)
{
    return style & ~(unsigned)(J2K_CBLK_HT | J2K_CBLK_HT_MIXED);
}
static inline unsigned tile_codeblock_style(const tile_codeblock *block, unsigned style)
{
    return block->coder == TILE_CODER_PART1 ? tile_part1_style(style) : style;
}

/* What Tier-1 decodes of a received block: for HT, its last HT set whose
 * cleanup segment has bytes (each set codes the block anew, T.814 7.1),
 * with num_planes counted down past the planes of the passes before it
 * (three a plane, placeholders included); its refinement segment when it
 * has bytes. */
typedef struct tile_codeblock_coded {
    const uint8_t *data;
    size_t size;
    const tier1_segment *segments;
    unsigned num_segments;
    unsigned num_planes; /* Mb - missing MSBs - the planes skipped */
    unsigned style;      /* tile_codeblock_style */
} tile_codeblock_coded;

typedef enum tile_coded_status {
    TILE_CODED_NONE = 0, /* nothing to decode: zeros */
    TILE_CODED_OK,
    TILE_CODED_TOO_DEEP  /* more missing and skipped planes than Mb: data dropped */
} tile_coded_status;

/* The block's coded data as above, `style` its tile-component's, Mb its
 * band's (E.1). */
tile_coded_status tile_codeblock_coded_of(const tile_codeblock *block, unsigned style,
                                          unsigned magnitude_bits, tile_codeblock_coded *out);

/* Appends one packet's contribution to a code-block's received data
 * (decoder): its bytes, the lengths it gave (`pieces`, may be NULL when
 * none) and, for an HT block, the placeholder passes before them (T.814
 * Annex B: in no segment); `style` is the tile-component's. */
gj2k_status tile_codeblock_append(tile_codeblock *block, const uint8_t *bytes, size_t size,
                                  const tier1_segment *pieces, unsigned num_pieces,
                                  unsigned placeholder_passes, unsigned style, gj2k_error *error);

#endif
