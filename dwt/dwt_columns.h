/* dwt_columns.h - the vertical 1-D transforms of a 2-D level (VER_SD,
 * VER_SR: T.800 F.4.2, F.3.2) on a strip of neighbouring columns at once,
 * lifted across whole rows of the strip: each lifting step is one pass over
 * rows of DWT_STRIP contiguous elements, which the compiler vectorises, and
 * the strip's rows stay in cache between the steps. The arithmetic of each
 * element is that of the 1-D line functions of dwt.h, so the result is the
 * same to the bit (test dwt_columns_match_lines).
 *
 * The strip is columns [c0, c1) (c1 - c0 <= DWT_STRIP) of rows [y0, y1) of
 * the level on its grid (the parity of y0 chooses low and high rows, as
 * i0 does for a line); `data` addresses the level's top-left element, rows
 * `stride` elements apart; `scratch` holds DWT_STRIP_SCRATCH(y1 - y0). */
#ifndef GJ2K_DWT_COLUMNS_H
#define GJ2K_DWT_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#define DWT_STRIP 64
#define DWT_STRIP_SCRATCH(n) (((size_t)(n) + 4) * DWT_STRIP)

void dwt_columns_forward_53(int32_t *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, int32_t *scratch);
void dwt_columns_inverse_53(int32_t *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, int32_t *scratch);
void dwt_columns_forward_97(float *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, float *scratch);
/* `inverse_k`: 1/K (the reference) or DWT97_INV_K_INTEROP (the decoder's). */
void dwt_columns_inverse_97(float *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, float *scratch, float inverse_k);

#endif
