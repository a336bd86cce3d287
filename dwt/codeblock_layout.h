/* codeblock_layout.h - subband coefficients laid out code-block by
 * code-block, the form Tier-1 takes them in: each band's rows of code-blocks
 * one after another, in each row its code-blocks left to right, and each
 * code-block's coefficients contiguous, row by row. The code-blocks are the
 * cells of the 2^xcb' x 2^ycb' grid anchored at the band's origin, clipped
 * to the band (B.7, eq. B-17/B-18). The bands follow each other in subband
 * (QCD) order, LL first. Shared by the GPU kernels and the encoder. */
#ifndef GJ2K_CODEBLOCK_LAYOUT_H
#define GJ2K_CODEBLOCK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define CODEBLOCK_LAYOUT_FN __host__ __device__ inline
#else
#define CODEBLOCK_LAYOUT_FN static inline
#endif

typedef struct codeblock_layout_band {
    uint32_t x0, y0, x1, y1;          /* the band on its own grid (eq. B-15) */
    uint8_t width_log2, height_log2;  /* xcb', ycb' */
    size_t base;                      /* where the band's first code-block starts */
} codeblock_layout_band;

/* Gives each of `count` bands its base: the bands one after another. */
CODEBLOCK_LAYOUT_FN void codeblock_layout_set_bases(codeblock_layout_band *bands, unsigned count)
{
    size_t base = 0;
    for (unsigned s = 0; s < count; s++) {
        bands[s].base = base;
        base += (size_t)(bands[s].x1 - bands[s].x0) * (bands[s].y1 - bands[s].y0);
    }
}

/* Where coefficient (u, v) of the band (absolute band coordinates) lies. */
CODEBLOCK_LAYOUT_FN size_t codeblock_layout_offset(const codeblock_layout_band *b, uint32_t u,
                                                   uint32_t v)
{
    uint64_t cell_x = (uint64_t)(u >> b->width_log2) << b->width_log2;
    uint64_t cell_y = (uint64_t)(v >> b->height_log2) << b->height_log2;
    uint64_t x0 = cell_x > b->x0 ? cell_x : b->x0, y0 = cell_y > b->y0 ? cell_y : b->y0;
    uint64_t x1 = cell_x + ((uint64_t)1 << b->width_log2), y1 = cell_y + ((uint64_t)1 << b->height_log2);
    x1 = x1 < b->x1 ? x1 : b->x1;
    y1 = y1 < b->y1 ? y1 : b->y1;
    return b->base + (size_t)((y0 - b->y0) * (b->x1 - b->x0) + (x0 - b->x0) * (y1 - y0) +
                              (v - y0) * (x1 - x0) + (u - x0));
}

#endif
