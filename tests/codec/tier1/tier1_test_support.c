/* tier1_test_support.c - see tier1_test_support.h. */
#include "tier1_test_support.h"

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

