/* level_shift.c - DC level shifting (T.800 Annex G.1).
 *
 * Precision is taken as 1..32 (a value outside is clamped into it): int32
 * samples cannot hold more. Arithmetic is done in 64 bits, so nothing
 * overflows; the inverse clamps to the precision's range and to int32.
 */
#include "level_shift.h"
#include "vector_clones.h"

#include <math.h>

static unsigned usable_precision(unsigned precision)
{
    return precision < 1 ? 1 : precision > 32 ? 32 : precision;
}

/* The range of a component's samples, limited to int32. */
static void sample_range(unsigned precision, bool is_signed, int64_t *lo, int64_t *hi)
{
    unsigned p = usable_precision(precision);
    if (is_signed) {
        *lo = -((int64_t)1 << (p - 1));
        *hi = ((int64_t)1 << (p - 1)) - 1;
    } else {
        *lo = 0;
        *hi = ((int64_t)1 << p) - 1;
        if (*hi > INT32_MAX)
            *hi = INT32_MAX;
    }
}

static int64_t offset_of(unsigned precision, bool is_signed)
{
    return is_signed ? 0 : (int64_t)1 << (usable_precision(precision) - 1);
}

GJ2K_VECTOR_CLONES
void level_shift_forward(int32_t *samples, size_t count, unsigned precision, bool is_signed)
{
    /* Eq. G-1: I' = I - 2^(Ssiz - 1) for unsigned components. */
    int64_t offset = offset_of(precision, is_signed);
    if (offset == 0)
        return;
    for (size_t i = 0; i < count; i++)
        samples[i] = (int32_t)(uint32_t)(uint64_t)((int64_t)samples[i] - offset);
}

static int32_t shift_back(int64_t v, int64_t offset, int64_t lo, int64_t hi)
{
    v += offset; /* eq. G-2 */
    return (int32_t)(v < lo ? lo : v > hi ? hi : v);
}

GJ2K_VECTOR_CLONES
void level_shift_inverse(int32_t *samples, size_t count, unsigned precision, bool is_signed)
{
    int64_t lo, hi, offset = offset_of(precision, is_signed);
    sample_range(precision, is_signed, &lo, &hi);
    if (usable_precision(precision) <= 31) {
        /* clamped before the offset is added, all in 32 bits (the compiler
         * vectorises it): the same values as shift_back's */
        const int32_t low = (int32_t)(lo - offset), high = (int32_t)(hi - offset),
                      add = (int32_t)offset;
        for (size_t i = 0; i < count; i++) {
            int32_t v = samples[i];
            v = v < low ? low : v > high ? high : v;
            samples[i] = v + add;
        }
        return;
    }
    for (size_t i = 0; i < count; i++)
        samples[i] = shift_back(samples[i], offset, lo, hi);
}

GJ2K_VECTOR_CLONES
void level_shift_inverse_float(const float *values, int32_t *samples, size_t count,
                               unsigned precision, bool is_signed)
{
    int64_t lo, hi, offset = offset_of(precision, is_signed);
    sample_range(precision, is_signed, &lo, &hi);
    if (usable_precision(precision) <= 20) {
        /* The same values without lrintf (a call each): NaN as 0, clamped to
           the range before the offset (integer bounds, so clamping and
           rounding commute), then rounded half to even by adding and taking
           away 1.5 * 2^23 (|v| < 2^21 here: the sum's unit is 1). The
           compiler vectorises it. */
        const float low = (float)(lo - offset), high = (float)(hi - offset);
        const float magic = 12582912.0f;
        const int32_t add = (int32_t)offset;
        for (size_t i = 0; i < count; i++) {
            float v = values[i];
            v = v == v ? v : 0.0f;
            v = v < low ? low : v > high ? high : v;
            samples[i] = (int32_t)((v + magic) - magic) + add;
        }
        return;
    }
    for (size_t i = 0; i < count; i++) {
        float v = values[i];
        int64_t r;
        /* Round half to even (lrintf, default rounding mode). Values beyond
         * +-2^31 saturate first (the final clamp would take them to the same
         * bound, and lrintf's result would be unspecified); NaN becomes 0. */
        if (v != v)
            r = 0;
        else if (v >= 2147483648.0f)
            r = INT32_MAX;
        else if (v < -2147483648.0f)
            r = INT32_MIN;
        else
            r = (int64_t)lrintf(v);
        samples[i] = shift_back(r, offset, lo, hi);
    }
}
