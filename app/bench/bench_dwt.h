/* bench_dwt.h - `gj2k bench dwt`: the GPU stage's level kernels against the
 * device's own copy bandwidth. */
#ifndef GJ2K_APP_BENCH_DWT_H
#define GJ2K_APP_BENCH_DWT_H

/* Runs the benchmark (arguments after "dwt"); returns the exit status. */
int bench_dwt(int argc, char **argv);

#endif
