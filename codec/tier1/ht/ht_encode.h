/* ht_encode.h - the HT block encoder of ITU-T T.814 | ISO/IEC 15444-15
 * (HTJ2K): the HT cleanup pass (clause 7.3, the mirror of ht_decode.h's
 * decoder) of one code-block at a chosen bit-plane. */
#ifndef GJ2K_HT_ENCODE_H
#define GJ2K_HT_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ht_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CxtVLC codes indexed the encoder's way: [table][context][rho][u_off]
 * [eps], eps being the quad's samples whose exponent equals U_q (7.3.5).
 * An entry holds the codeword (bits 0-6, first bit sent in bit 0), its
 * length (7-9) and e_k (10-13) of the cheapest code that fits; 0 where
 * none does. */
typedef struct ht_encode_tables {
    uint16_t code[2][8][16][2][16];
} ht_encode_tables;

/* Fills the tables from ht_vlc_table0 and ht_vlc_table1. */
void ht_encode_tables_build(ht_encode_tables *tables);

/* Bytes an HT cleanup segment of a width x height block may take. */
size_t ht_cleanup_bound(uint32_t width, uint32_t height);

/* The largest Scup (T.814 7.3.1: the MEL and VLC bytes and the two that
 * hold Scup) a segment may have. */
#define HT_MAX_SCUP 4079u

/*
 * Codes the HT cleanup pass of a width x height block (1..1024 each, at
 * most 4096 samples) of signed `coefficients` (row y at y * stride) at
 * bit-plane `plane`: each magnitude's bits from `plane` up, so that a
 * decoder told num_planes = plane + 1 (Mb minus the missing MSBs) gets
 * them back. Writes the segment to `out` (capacity bytes: at least
 * ht_cleanup_bound) and its length Lcup to *length. A block with nothing
 * significant at `plane` gives a valid segment too (the caller may send no
 * pass instead). GJ2K_ERROR_LIMIT when the magnitudes need more than 31
 * bits or the MEL and VLC streams exceed HT_MAX_SCUP; then *length is 0.
 * Magnitudes must stay below 2^30 at plane 0 (U_q - 1 + p <= 30, the
 * decoder's bound).
 */
gj2k_status ht_encode_cleanup(const int32_t *coefficients, size_t stride, uint32_t width,
                              uint32_t height, unsigned plane, const ht_encode_tables *tables,
                              uint8_t *out, size_t capacity, size_t *length);

/* An HT code-block coded at one or several bit-planes, for rate control
 * to choose from: choice j is a cleanup pass at plane `planes[j]` of
 * `lengths[j]` bytes at data + offsets[j], followed there, when
 * refinements[j] is not 0, by an HT refinement segment of that many bytes
 * (SigProp and MagRef of the plane below); coarsest first. */
#define HT_MAX_CHOICES (2 * TIER1_MAX_PLANES)
typedef struct ht_encoded_block {
    uint8_t *data;        /* every choice's segments, back to back; malloc'ed */
    size_t size;
    unsigned num_planes;  /* magnitude bit-planes of the block (0: all zero, no choice) */
    unsigned num_choices;
    uint8_t planes[HT_MAX_CHOICES];
    size_t offsets[HT_MAX_CHOICES], lengths[HT_MAX_CHOICES], refinements[HT_MAX_CHOICES];
    /* Decrease of the squared error, in squared quantization steps, from
     * the choice before (from nothing sent, for choice 0) to this one; the
     * decoder reconstructs at the middle of what it knows (with fractions:
     * at r = 1/2 even at plane 0, as tier1_encode_block_with_fractions). */
    double distortion_reduction[HT_MAX_CHOICES];
} ht_encoded_block;

/*
 * Codes a block (as ht_encode_cleanup) at planes `highest` down to `lowest`
 * (clipped to its own planes; 0, 0: at plane 0 alone, lossless or every
 * bit the quantizer kept; 0, TIER1_MAX_PLANES: at every plane). With
 * `refine`, each plane p >= 1 is also a choice with its refinement segment
 * (`causal`: vertically causal SigProp, the style's bit 8).
 * `fractions` (may be NULL; same layout as the coefficients) hold each
 * |a| / Delta - |q| in 1/256 for the distortions. On failure *out holds
 * nothing to free.
 */
gj2k_status ht_encode_block(const int32_t *coefficients, const uint8_t *fractions, size_t stride,
                            uint32_t width, uint32_t height, unsigned lowest, unsigned highest,
                            bool refine, bool causal, const ht_encode_tables *tables,
                            ht_encoded_block *out);
void ht_encoded_block_release(ht_encoded_block *block);

#ifdef __cplusplus
}
#endif

#endif
