/* bench_dwt_cpu.h - `gj2k bench dwt --cpu`: the CPU's ways of running the
 * vertical pass (dwt.h dwt_vertical) side by side, on one thread and on
 * every thread, bit for bit (issue 15's CPU comparison). */
#ifndef GJ2K_APP_BENCH_DWT_CPU_H
#define GJ2K_APP_BENCH_DWT_CPU_H

#include <stdint.h>

/* Square planes from `smallest` to `largest` (powers of two), 5 levels;
 * `threads` (0: every core) against one; returns the exit status. */
int bench_dwt_cpu(uint32_t smallest, uint32_t largest, unsigned repeats, unsigned threads);

#endif
