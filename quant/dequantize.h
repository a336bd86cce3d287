/* dequantize.h - a decoded coefficient's reconstruction in half
 * quantization steps, written once for the host's dequantization
 * (codec/decode/tile_planes.c) and the GPU's (codec/tier1/cuda): the
 * decoded magnitude plus r = 1/2 of its lowest decoded bit-plane (T.800
 * E.1.1.2), then the ROI shift (H.2). Magnitudes at or above 2^s belong to
 * the region and were scaled up by 2^s; the shift comes after the offset,
 * as in OpenJPEG, so fully decoded region coefficients reconstruct with
 * r = 0 (E.1.1.2 leaves r to the decoder). */
#ifndef GJ2K_DEQUANTIZE_H
#define GJ2K_DEQUANTIZE_H

#include <stdint.h>

#include "device_code.h"

/* |value| * 2, in half steps, of a coefficient of `magnitude` whose lowest
 * known plane is `lowest_plane`, in a component with ROI shift
 * `roi_shift` (0: none). Below 2^33 for magnitudes below 2^31. */
GJ2K_HD_INLINE uint64_t dequantize_halves(uint64_t magnitude, unsigned lowest_plane,
                                          unsigned roi_shift)
{
    unsigned lowest = lowest_plane < 32 ? lowest_plane : 31;
    uint64_t halves = magnitude ? 2 * magnitude + ((uint64_t)1 << lowest) : 0;
    if (roi_shift != 0 && roi_shift < 32 && magnitude >= ((uint64_t)1 << roi_shift))
        halves >>= roi_shift;
    return halves;
}

#endif
