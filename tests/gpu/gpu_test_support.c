/* gpu_test_support.c - see gpu_test_support.h. */
#include "gpu_test_support.h"

#include <stdlib.h>

#include "test_harness.h"

int gpu_test_case_count(int fallback)
{
    const char *text = getenv("GJ2K_GPU_TEST_CASES");
    int n = text ? atoi(text) : fallback;
    return n > 0 ? n : fallback;
}

dwt_rect gpu_test_random_rect(void)
{
    uint32_t x0 = (uint32_t)test_random_range(0, 9), y0 = (uint32_t)test_random_range(0, 9);
    int64_t shape = test_random_range(0, 9);
    uint32_t w = shape == 0 ? 1 : (uint32_t)test_random_range(1, 300);
    uint32_t h = shape == 1 ? 1 : (uint32_t)test_random_range(1, 300);
    return (dwt_rect){x0, y0, x0 + w, y0 + h};
}
