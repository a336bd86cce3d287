/* level_shift.h - DC level shifting of samples (Annex G.1). */
#ifndef GJ2K_LEVEL_SHIFT_H
#define GJ2K_LEVEL_SHIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unsigned samples of `precision` bits lose 2^(precision-1) (G.1.1, eq. G-1);
 * signed samples are left as they are. */
void level_shift_forward(int32_t *samples, size_t count, unsigned precision, bool is_signed);

/* Adds 2^(precision-1) back to unsigned samples (G.1.2, eq. G-2) and clamps
 * every sample to its precision's range. */
void level_shift_inverse(int32_t *samples, size_t count, unsigned precision, bool is_signed);

/* The inverse for the irreversible path: rounds each value to the nearest
 * integer (ties to even, as lrintf in the default rounding mode), then as
 * level_shift_inverse. */
void level_shift_inverse_float(const float *values, int32_t *samples, size_t count,
                               unsigned precision, bool is_signed);

#endif
