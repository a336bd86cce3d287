/* forward_plane.h - one tile-component on its way through the encoder's
 * sample transforms: its samples copied (or packed for the GPU's upload),
 * level-shifted (T.800 G.1.1), through RCT or ICT with components 1 and 2
 * (G.2, G.3), the DWT (F.4) and, for 9/7, quantization (E.1). Each step
 * is a parallel_body (parallel_pool.h): over an array of planes, the index
 * naming the plane, or over the rows of a plane, FORWARD_PLANE_ROWS a task. */
#ifndef GJ2K_FORWARD_PLANE_H
#define GJ2K_FORWARD_PLANE_H

#include "codeblock_layout.h"
#include "encode_plan.h"
#include "parallel_pool.h"

/* One tile-component on its way from samples to quantization indices. */
typedef struct forward_plane {
    const encode_component_plan *plan;
    const gj2k_component *source;
    parallel_pool *pool;     /* the threads its DWT may share out its rows and columns to */
    dwt_rect rect;           /* the tile-component (eq. B-12) */
    bool reversible;
    int32_t *integers;       /* samples, then 5/3 coefficients or quantization indices */
    float *floats;           /* 9/7 path on the CPU: the integers' memory as samples, then
                                coefficients (each element read as it was last stored) */
    uint8_t *fractions;      /* 9/7 path: |a| / Delta - |q| in 1/256, for rate control */
    void *packed;            /* GPU path: the samples at storage width, packed_bytes each */
    unsigned packed_bytes;
    /* GPU path: integers and fractions hold the coefficients code-block by
     * code-block (codeblock_layout.h), each block contiguous. */
    bool blocks;
    codeblock_layout_band layout[J2K_MAX_SUBBANDS];
} forward_plane;

static inline size_t forward_plane_area(const forward_plane *plane)
{
    return (size_t)(plane->rect.x1 - plane->rect.x0) * (plane->rect.y1 - plane->rect.y0);
}

#define FORWARD_PLANE_ROWS 16

/* Over planes: the samples copied into `integers`. */
gj2k_status forward_plane_copy(void *planes, size_t index, unsigned worker);
/* Over planes: the samples at their storage width in `packed` (1 or 2
 * bytes, gpu_input_bytes), or in `integers` (packed_bytes 4) when one does
 * not fit. */
gj2k_status forward_plane_pack(void *planes, size_t index, unsigned worker);
/* Over planes: copied and level-shifted, and for 9/7 into `floats`. */
gj2k_status forward_plane_load(void *planes, size_t index, unsigned worker);
/* Over rows of planes 0..2 (`planes`), FORWARD_PLANE_ROWS a task: RCT or
 * ICT in place. */
gj2k_status forward_plane_component_transform(void *planes, size_t task, unsigned worker);
/* Over planes: every DWT level (its rows and columns shared out on the
 * plane's pool), then for 9/7 quantization into `integers` and `fractions`. */
gj2k_status forward_plane_transform(void *planes, size_t index, unsigned worker);

#endif
