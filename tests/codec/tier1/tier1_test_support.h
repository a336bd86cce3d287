/* tier1_test_support.h - what the Tier-1 tests share. */
#ifndef GJ2K_TIER1_TEST_SUPPORT_H
#define GJ2K_TIER1_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* A random block: magnitudes below 2^planes, often small or zero, the
 * top plane reached half the time; rows `stride` apart. */
void random_block(int32_t *q, uint32_t width, uint32_t height, size_t stride, unsigned planes);

/* The shape of a random block for the GPU tests: one of a few sizes from
 * 1x1 to 1024x4 and 64x64, at most 4096 samples. */
void random_block_shape(uint32_t *width, uint32_t *height);

/* Seconds on the monotonic clock, for the benchmarks. */
double tier1_test_seconds(void);

#endif
