/* bench_dwt_strategies.h - `gj2k bench dwt --strategy NAME|all`: the GPU
 * DWT strategies side by side (dwt/gpu_strategies.h), with the time model's
 * prediction beside each measurement (dwt/gpu_dwt_model.h). */
#ifndef GJ2K_APP_BENCH_DWT_STRATEGIES_H
#define GJ2K_APP_BENCH_DWT_STRATEGIES_H

#include <stdbool.h>
#include <stdint.h>

/* Sides from `smallest` to `largest` (powers of two), level counts from
 * `levels` ("N" or "A-B"; NULL: 1-6), `repeats` runs each; `calibrate`
 * fits the model's constants on this run and prints them. Returns the exit
 * status (1 when an exact strategy gave other bits). */
int bench_dwt_strategies(const char *strategy, const char *levels, uint32_t smallest,
                         uint32_t largest, unsigned repeats, bool calibrate);

/* An n x n plane of gradients and noise: level-shifted 8-bit values, as
 * int32 (5/3) or float (9/7) bits; the same for every benchmark of the DWT. */
void bench_dwt_fill_plane(int32_t *plane, uint32_t n, bool reversible);

#endif
