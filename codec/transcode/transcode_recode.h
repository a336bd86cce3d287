/* transcode_recode.h - one code-block's coefficients, as Tier-1 recovered
 * them (transcode_tile.h), coded again with the other block coder, so
 * that a decoder recovers the same coefficients from the new codestream:
 *  - to Part 1 (T.800 Annex D): every bit-plane down to the last one
 *    decoded, the passes of that plane up to the last decoded (a cleanup
 *    pass codes it whole; a significance or refinement pass part of it).
 *    The coefficients are coded shifted down by that plane, so that the
 *    coder terminates right after it (the bits are shift-invariant: the
 *    contexts never see a plane's number); the missing MSBs put them back.
 *    A block whose last plane is partial ends on a truncation point within
 *    a segment: it is decoded again to check it gives the same values, and
 *    loses that plane if not (never seen);
 *  - to HT (T.814 7.3): the cleanup pass at the lowest bit-plane known for
 *    every coefficient, with missing MSBs Mb - 1 - plane. A Part 1 block
 *    that stopped after a significance or refinement pass loses the bits of
 *    that partial plane (counted: gj2k_transcode_report.partial_plane_blocks),
 *    since the transcoder codes no HT SigProp or MagRef passes (an HT block
 *    that has them loses them too, re-coded as HT).
 * Either way, blocks whose planes all decode (lossless files) are exact. */
#ifndef GJ2K_TRANSCODE_RECODE_H
#define GJ2K_TRANSCODE_RECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"
#include "ht_encode.h"
#include "tier1.h"
#include "tile_structure.h"
#include "transcode_tile.h"

/* A block coded again: what Tier-2 sends of it (`source`, one layer). */
typedef struct transcode_recoded {
    bool lost_partial_plane;   /* the bits of a partially decoded plane were dropped */
    bool truncated;            /* the input's block stops above plane 0 or within a plane */
    bool damaged;              /* the input's block is damaged (transcode_coefficients) */
    uint8_t *data;             /* malloc'ed: the codeword segments (Part 1) or the HT
                                  cleanup segment */
    size_t *pass_lengths;      /* Part 1: per pass, cumulative (malloc'ed with data) */
    tile_codeblock_choice choice; /* HT: the one cleanup pass */
    uint8_t layer_passes[1];
    tile_codeblock_source source;
} transcode_recoded;

/* One thread's scratch for re-coding. */
typedef struct transcode_recoder {
    tier1_workspace *workspace;        /* Part 1 coding and the check's decoding */
    const ht_encode_tables *ht_tables; /* HT coding (NULL when coding Part 1) */
    tier1_encoded_block encoded;
    int32_t shifted[TIER1_MAX_SAMPLES];
    uint8_t *ht_segment;               /* ht_cleanup_bound of the largest block */
    transcode_coefficients check;      /* the Part 1 check's decoding */
} transcode_recoder;

gj2k_status transcode_recoder_init(transcode_recoder *r, const ht_encode_tables *ht_tables);
void transcode_recoder_free(transcode_recoder *r);

/*
 * Codes block b again from `in` (its transcode_block_decode) with
 * the HT block coder when `to_ht`, else Part 1's with code-block style
 * `style` (Table A.19 bits 0-5). On failure *out holds nothing to free.
 */
gj2k_status transcode_block_recode(const transcode_block *b, const transcode_coefficients *in,
                                   bool to_ht, unsigned style, transcode_recoder *r,
                                   transcode_recoded *out);
void transcode_recoded_free(transcode_recoded *block);

#endif
