/* gpu_test_support.h - what the GPU tests share: how many random cases a
 * test runs and the random tile-components they run on. */
#ifndef GJ2K_GPU_TEST_SUPPORT_H
#define GJ2K_GPU_TEST_SUPPORT_H

#include "dwt.h"

/* GJ2K_GPU_TEST_CASES (fewer under compute-sanitizer), else `fallback`. */
int gpu_test_case_count(int fallback);

/* Sizes 1 to ~300 (a side of 1 now and then), any origin parity. */
dwt_rect gpu_test_random_rect(void);

#endif
