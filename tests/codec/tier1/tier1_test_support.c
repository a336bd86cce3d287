/* tier1_test_support.c - see tier1_test_support.h. */
#include "tier1_test_support.h"

#include <time.h>

#include "test_harness.h"

void random_block(int32_t *q, uint32_t width, uint32_t height, size_t stride, unsigned planes)
{
    unsigned zero_percent = (unsigned)test_random_range(0, 95);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            int32_t v = 0;
            if ((unsigned)test_random_range(0, 99) >= zero_percent) {
                unsigned bits = (unsigned)test_random_range(1, planes);
                v = (int32_t)(test_random() & ((1ull << bits) - 1));
                if (test_random() & 1)
                    v = -v;
            }
            q[y * stride + x] = v;
        }
    if (test_random() & 1) /* often reach the top plane */
        q[0] = (int32_t)((1ull << planes) - 1);
}


void random_block_shape(uint32_t *width, uint32_t *height)
{
    static const uint32_t shapes[][2] = {{1, 1},   {1, 7},    {5, 1},    {3, 9},
                                         {17, 4},  {64, 64},  {32, 32},  {4, 1024},
                                         {1024, 4}, {16, 256}, {63, 65}};
    const uint32_t *s = shapes[test_random() % (sizeof shapes / sizeof shapes[0])];
    *width = s[0];
    *height = s[0] * s[1] > 4096 ? 4096 / s[0] : s[1];
}

double tier1_test_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
