/* forward_plane.c - see forward_plane.h. */
#include "forward_plane.h"

#include <string.h>

#include "component_transform.h"
#include "image_formats.h"
#include "level_shift.h"
#include "quantization.h"

/* Copies the tile-component's samples. */
gj2k_status forward_plane_copy(void *context, size_t index, unsigned worker)
{
    (void)worker;
    forward_plane *plane = &((forward_plane *)context)[index];
    dwt_rect r = plane->rect;
    size_t width = r.x1 - r.x0;
    const gj2k_component *c = plane->source;
    for (uint32_t y = r.y0; y < r.y1; y++)
        memcpy(plane->integers + (size_t)(y - r.y0) * width,
               c->samples + (size_t)(y - c->y0) * c->width + (r.x0 - c->x0),
               width * sizeof(int32_t));
    return GJ2K_OK;
}

/* Copies the tile-component's samples at their storage width (1 or 2
 * bytes, gpu_input_bytes) for the upload; 4 when a sample does not fit. */
gj2k_status forward_plane_pack(void *context, size_t index, unsigned worker)
{
    forward_plane *plane = &((forward_plane *)context)[index];
    dwt_rect r = plane->rect;
    size_t width = r.x1 - r.x0;
    const gj2k_component *c = plane->source;
    int64_t lo = image_sample_min(c), hi = image_sample_max(c);
    unsigned bytes = plane->packed_bytes;
    for (uint32_t y = r.y0; y < r.y1 && bytes < 4; y++) {
        const int32_t *row = c->samples + (size_t)(y - c->y0) * c->width + (r.x0 - c->x0);
        size_t at = (size_t)(y - r.y0) * width;
        for (size_t x = 0; x < width; x++) {
            if (row[x] < lo || row[x] > hi) {
                bytes = 4; /* out of its precision's range: send it whole */
                break;
            }
            if (bytes == 1)
                ((uint8_t *)plane->packed)[at + x] = (uint8_t)row[x];
            else
                ((uint16_t *)plane->packed)[at + x] = (uint16_t)row[x];
        }
    }
    plane->packed_bytes = bytes;
    if (bytes == 4) /* the integers buffer carries them, as on the CPU path */
        return forward_plane_copy(context, index, worker);
    return GJ2K_OK;
}

/* Copies the tile-component's samples and level-shifts them (G.1.1). */
gj2k_status forward_plane_load(void *context, size_t index, unsigned worker)
{
    forward_plane_copy(context, index, worker);
    forward_plane *plane = &((forward_plane *)context)[index];
    size_t area = forward_plane_area(plane);
    level_shift_forward(plane->integers, area, plane->plan->precision, plane->plan->is_signed);
    if (!plane->reversible)
        for (size_t i = 0; i < area; i++)
            plane->floats[i] = (float)plane->integers[i];
    return GJ2K_OK;
}

/* Quantizes plane rows [16 task, 16 task + 16) of every band of a 9/7
 * plane into `integers` (E.1, eq. E-1): a task of the pool. */
static gj2k_status quantize_rows(void *context, size_t task, unsigned worker)
{
    (void)worker;
    forward_plane *plane = context;
    unsigned levels = plane->plan->coding.levels;
    size_t stride = plane->rect.x1 - plane->rect.x0;
    uint64_t r0 = (uint64_t)task * FORWARD_PLANE_ROWS, r1 = r0 + FORWARD_PLANE_ROWS;
    for (unsigned s = 0; s < 3 * levels + 1; s++) {
        unsigned level = dwt_subband_level(s, levels);
        dwt_band band = dwt_subband_band(s);
        uint32_t x, y, w, h;
        dwt_band_placement(plane->rect, level, band, &x, &y, &w, &h);
        float delta = (float)plane->plan->step[s];
        uint64_t from = r0 > y ? r0 : y, to = r1 < (uint64_t)y + h ? r1 : (uint64_t)y + h;
        for (uint64_t row = from; row < to; row++) {
            size_t at = (size_t)row * stride + x;
            quant_forward_with_fractions(plane->floats + at, plane->integers + at,
                                         plane->fractions + at, w, delta);
        }
    }
    return GJ2K_OK;
}

/* Quantizes every band of a 9/7 plane, rows shared out on the pool. */
static gj2k_status quantize_plane(forward_plane *plane)
{
    size_t rows = plane->rect.y1 - plane->rect.y0;
    return parallel_for(plane->pool, (rows + FORWARD_PLANE_ROWS - 1) / FORWARD_PLANE_ROWS, quantize_rows, plane);
}

/* RCT or ICT (G.2, G.3) of planes 0..2, rows shared out on the pool. */
gj2k_status forward_plane_component_transform(void *context, size_t task, unsigned worker)
{
    (void)worker;
    forward_plane *planes = context;
    size_t width = planes[0].rect.x1 - planes[0].rect.x0;
    size_t rows = planes[0].rect.y1 - planes[0].rect.y0;
    size_t r0 = task * FORWARD_PLANE_ROWS, r1 = r0 + FORWARD_PLANE_ROWS < rows ? r0 + FORWARD_PLANE_ROWS : rows;
    size_t at = r0 * width, count = (r1 - r0) * width;
    if (planes[0].reversible)
        rct_forward(planes[0].integers + at, planes[1].integers + at, planes[2].integers + at,
                    count);
    else
        ict_forward(planes[0].floats + at, planes[1].floats + at, planes[2].floats + at, count);
    return GJ2K_OK;
}

/* The forward DWT of one plane (F.4.2), then quantization for 9/7. */
gj2k_status forward_plane_transform(void *context, size_t index, unsigned worker)
{
    (void)worker;
    forward_plane *plane = &((forward_plane *)context)[index];
    size_t stride = plane->rect.x1 - plane->rect.x0;
    unsigned levels = plane->plan->coding.levels;
    if (forward_plane_area(plane) == 0)
        return GJ2K_OK;
    if (plane->reversible)
        return dwt_forward_53_on(plane->pool, plane->integers, stride, plane->rect, levels);
    gj2k_status status = dwt_forward_97_on(plane->pool, plane->floats, stride, plane->rect,
                                           levels);
    if (status == GJ2K_OK)
        status = quantize_plane(plane);
    return status;
}

