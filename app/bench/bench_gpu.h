/* bench_gpu.h - the GPU stage's timings in `gj2k bench`. */
#ifndef GJ2K_APP_BENCH_GPU_H
#define GJ2K_APP_BENCH_GPU_H

#include "gj2k.h"

/*
 * Times the GPU stage on `image` (components 0..2 alike, at most 16 bits):
 * opening the device once, then the forward path (upload, level shift, RCT
 * or ICT, `levels` levels, 9/7 quantization, download) and the inverse path,
 * both wavelets, the fastest of `repeats`; checks each against the CPU
 * reference (same bits). Prints one row each, or one line saying why there
 * is no GPU. Returns 0, or 1 when a result differs or a call fails.
 */
int bench_gpu_stage(const gj2k_image *image, unsigned levels, unsigned repeats);

#endif
