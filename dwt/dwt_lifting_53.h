/* dwt_lifting_53.h - the 5/3 lifting steps (T.800 F.3.8.1, F.4.8.1) on
 * int32 values in 32-bit operations, exactly as 64-bit arithmetic gives
 * them (docs/numerics.md), so that loops over them vectorise:
 *   floor((a + b) / 2)     = (a >> 1) + (b >> 1) + (a & b & 1)
 *   floor((a + b + 2) / 4) = (a >> 2) + (b >> 2) + (((a & 3) + (b & 3) + 2) >> 2)
 * (a = 2 (a >> 1) + (a & 1), likewise b, and the parts add without
 * overflow); the step's sum wraps modulo 2^32 as the int64 form stored
 * as int32 does. Used by the 1-D lines (dwt_53.c) and the columns lifted
 * across rows (dwt_columns.c). */
#ifndef GJ2K_DWT_LIFTING_53_H
#define GJ2K_DWT_LIFTING_53_H

#include <stdint.h>

static inline int32_t dwt53_half(int32_t a, int32_t b) { return (a >> 1) + (b >> 1) + (a & b & 1); }

static inline int32_t dwt53_quarter(int32_t a, int32_t b)
{
    return (a >> 2) + (b >> 2) + (((a & 3) + (b & 3) + 2) >> 2);
}

static inline int32_t dwt53_add(int32_t x, int32_t p) { return (int32_t)((uint32_t)x + (uint32_t)p); }
static inline int32_t dwt53_sub(int32_t x, int32_t p) { return (int32_t)((uint32_t)x - (uint32_t)p); }

#endif
