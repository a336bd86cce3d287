/* ht_plane_window.h - the bit-planes worth coding an HT code-block at
 * (T.814) when rate control (T.800 J.14.3) will pick one: every plane's
 * bytes and distortion estimated from the block's histograms, one slope
 * threshold that meets the tile's share of the target on the estimates,
 * and each block then coded only at the plane that threshold picks and
 * its neighbours, instead of at every plane. */
#ifndef GJ2K_HT_PLANE_WINDOW_H
#define GJ2K_HT_PLANE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "tier1.h"

/* No plane: the block is better left out. */
#define HT_PLANE_NONE 0xFFu

typedef struct ht_block_estimate {
    uint8_t num_planes;                /* of its magnitudes (0: all zero) */
    float bytes[TIER1_MAX_PLANES];      /* the cleanup segment at plane p */
    float distortion[TIER1_MAX_PLANES]; /* weighted squared error left when sent at plane p */
    float energy;                       /* weighted squared error when left out */
} ht_block_estimate;

/* Estimates a width x height block of coefficients (row y at y * stride;
 * `fractions` may be NULL) whose squared quantization step weighs `weight`:
 * MagSgn bits from the magnitudes' lengths, a few bits a significant quad
 * for VLC and MEL, and a uniform error within the last plane. */
void ht_estimate_block(const int32_t *coefficients, const uint8_t *fractions, size_t stride,
                       uint32_t width, uint32_t height, double weight, ht_block_estimate *out);

/* The plane a block is sent at under slope threshold lambda (least
 * distortion + lambda * bytes), or HT_PLANE_NONE. */
unsigned ht_estimate_choice(const ht_block_estimate *e, double lambda);

/* The threshold at which the blocks' estimated bytes fit max_bytes (with
 * max_bytes 0: at which their distortion fits max_distortion). */
double ht_estimate_threshold(const ht_block_estimate *blocks, size_t count, double max_bytes,
                             double max_distortion);

/* The planes to code a block at under lambda: its choice, two finer and
 * one coarser (its top two when it is left out), as [*lowest, *highest]. */
void ht_plane_window(const ht_block_estimate *e, double lambda, unsigned *lowest,
                     unsigned *highest);

#endif
