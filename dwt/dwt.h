/* dwt.h - the CPU reference discrete wavelet transforms of ITU-T T.800 Annex F.
 *
 * These are the exact definition that every other implementation (the CUDA
 * kernels included) must reproduce bit for bit; docs/numerics.md states the
 * floating-point rules that make that possible.
 *
 * Geometry: a tile-component (or any resolution of it) covers [x0, x1) x
 * [y0, y1) on its own grid (Annex B.5). A sample's parity, and so whether it
 * becomes a low- or high-pass coefficient, comes from its absolute coordinate.
 *
 * Layout: the 2-D transforms work in place on `height` rows of `width`
 * samples, `stride` elements apart. After a forward transform of L levels the
 * buffer holds the subbands in Mallat order: at each level the low-pass
 * columns come first, then the high-pass ones, and likewise for rows, so that
 * LL of level L sits in the top-left corner (dwt_band_placement says where
 * every band is). The inverse transforms take that layout back to samples.
 */
#ifndef GJ2K_DWT_H
#define GJ2K_DWT_H

#include "gj2k.h"

typedef struct dwt_rect {
    uint32_t x0, y0, x1, y1;
} dwt_rect;

typedef enum dwt_band { DWT_BAND_LL = 0, DWT_BAND_HL = 1, DWT_BAND_LH = 2, DWT_BAND_HH = 3 } dwt_band;

#define DWT_MAX_LEVELS 32 /* COD SPcod allows 0..32 decomposition levels (Annex A.6.1) */

/* Subband s of a tile-component transformed to `levels` levels, numbered
 * as the quantization steps are (Annex A.6.4, eq. E-5): 0 is the LL of
 * level `levels`, then HL, LH, HH of level levels, levels - 1, ..., 1. */
static inline dwt_band dwt_subband_band(unsigned s)
{
    return s == 0 ? DWT_BAND_LL : (dwt_band)((s - 1) % 3 + 1);
}
static inline unsigned dwt_subband_level(unsigned s, unsigned levels)
{
    return s == 0 ? levels : levels - (s - 1) / 3;
}

/* The area of subband `band` at decomposition level `level` (1..32) of a
 * tile-component covering `tile` (Annex B.5, eq. B-15). Level 0 with
 * DWT_BAND_LL is the tile-component itself. */
dwt_rect dwt_band_rect(dwt_rect tile, unsigned level, dwt_band band);

/* Where the forward transform of `tile` to at least `level` levels leaves
 * band `band` of level `level` in the buffer: column, row and size. */
void dwt_band_placement(dwt_rect tile, unsigned level, dwt_band band, uint32_t *x, uint32_t *y,
                        uint32_t *width, uint32_t *height);

/* Elements of scratch that a 1-D transform of n samples needs. */
#define DWT_LINE_SCRATCH(n) ((size_t)(n) + 16)

/* 1-D transforms (Annex F.3.6-F.3.8, F.4.6-F.4.8) of the samples X[i0..i1)
 * held in line[0 .. i1-i0), with whole-sample symmetric extension (F.3.7,
 * F.4.7). Forward leaves the ceil(i1/2)-ceil(i0/2) low-pass coefficients at
 * the start of `line` followed by the high-pass ones; inverse takes that
 * order back. A single sample at an odd coordinate is doubled (halved in the
 * inverse), as F.4.8 and F.3.8 say. `scratch` holds DWT_LINE_SCRATCH(i1-i0). */
void dwt_forward_53_line(int32_t *line, uint32_t i0, uint32_t i1, int32_t *scratch);
void dwt_inverse_53_line(int32_t *line, uint32_t i0, uint32_t i1, int32_t *scratch);
void dwt_forward_97_line(float *line, uint32_t i0, uint32_t i1, float *scratch);
void dwt_inverse_97_line(float *line, uint32_t i0, uint32_t i1, float *scratch);
/* The inverse as OpenJPEG and Grok compute it (DWT97_INV_K_INTEROP for 1/K):
 * what the decoder uses, so that gj2k decodes a 9/7 codestream to the
 * samples they decode it to. */
void dwt_inverse_97_interop_line(float *line, uint32_t i0, uint32_t i1, float *scratch);

/* Multi-level 2-D transforms (Annex F.4.2 2D_SD: columns, then rows, at each
 * level; Annex F.3.2 2D_SR: rows, then columns). `levels` may be 0..32; a
 * level whose area is empty does nothing. Fail only when scratch memory
 * cannot be allocated. */
gj2k_status dwt_forward_53(int32_t *data, size_t stride, dwt_rect tile, unsigned levels);
gj2k_status dwt_inverse_53(int32_t *data, size_t stride, dwt_rect tile, unsigned levels);
gj2k_status dwt_forward_97(float *data, size_t stride, dwt_rect tile, unsigned levels);
gj2k_status dwt_inverse_97(float *data, size_t stride, dwt_rect tile, unsigned levels);
gj2k_status dwt_inverse_97_interop(float *data, size_t stride, dwt_rect tile, unsigned levels);
/* The same on a worker pool's threads (parallel_pool.h; NULL: the
 * caller's alone): each level's column batches, then its rows, shared out,
 * with the same results. */
struct parallel_pool;
gj2k_status dwt_forward_53_on(struct parallel_pool *pool, int32_t *data, size_t stride,
                              dwt_rect tile, unsigned levels);
gj2k_status dwt_inverse_53_on(struct parallel_pool *pool, int32_t *data, size_t stride,
                              dwt_rect tile, unsigned levels);
gj2k_status dwt_forward_97_on(struct parallel_pool *pool, float *data, size_t stride,
                              dwt_rect tile, unsigned levels);
gj2k_status dwt_inverse_97_interop_on(struct parallel_pool *pool, float *data, size_t stride,
                                      dwt_rect tile, unsigned levels);

/* How a 2-D transform runs its vertical passes (issue 15's CPU
 * comparison): strips of DWT_STRIP columns lifted across whole rows (the
 * default: vectorised, cache-resident; dwt_columns.h), or batches of
 * columns copied out and filtered as lines. The results are the same. */
typedef enum dwt_vertical { DWT_VERTICAL_STRIPS = 0, DWT_VERTICAL_LINES } dwt_vertical;
/* Any of the above by arguments: 5/3 (`reversible`, int32) or 9/7 (float);
 * the 9/7 inverse with the decoders' 1/K when `interop`. */
gj2k_status dwt_transform_2d(struct parallel_pool *pool, dwt_vertical vertical, void *data,
                             size_t stride, dwt_rect tile, unsigned levels, bool reversible,
                             bool forward, bool interop);

/* The squared L2 norm of the synthesis of one coefficient of band `band`
 * at decomposition level `level` (1..32; level 0 is the samples: 1): the
 * squared sample error that a unit coefficient error causes after the
 * inverse transform (Annex F, 2D_SR), for the 5/3 (`reversible`) or 9/7
 * filters. NAN only when scratch memory cannot be allocated. */
double dwt_synthesis_energy(bool reversible, unsigned level, dwt_band band);

/* The lifting constants of the irreversible 9/7 filter (Annex F.4.8.2, Table F.4). */
#define DWT97_ALPHA (-1.586134342059924f)
#define DWT97_BETA (-0.052980118572961f)
#define DWT97_GAMMA (0.882911075530934f)
#define DWT97_DELTA (0.443506852043971f)
#define DWT97_K (1.230174104914001f)
#define DWT97_INV_K (1.0f / 1.230174104914001f)
/* 1/K as OpenJPEG's and Grok's synthesis apply it: 13318 / 2^14, a 13-bit
 * fixed-point value of 1/K (their high band is scaled by 2/K = 13318 / 2^13
 * against steps without the band's gain, which is the same in binary32).
 * It is smaller than 1/K by 3.3e-5 of it: at 16 bits that moves samples by up to 3,
 * so the decoder uses it to decode as they do (docs/numerics.md). */
#define DWT97_INV_K_INTEROP (0x1.a03p-1f)

#endif
