/* component_transform.h - the multiple component transforms of Annex G:
 * the reversible RCT (G.2) on integers and the irreversible ICT (G.3) on
 * floats. All work in place on three level-shifted components of `count`
 * samples each. */
#ifndef GJ2K_COMPONENT_TRANSFORM_H
#define GJ2K_COMPONENT_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

/* Y0 = floor((I0 + 2 I1 + I2) / 4), Y1 = I2 - I1, Y2 = I0 - I1 (eq. G-5). */
void rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t count);
/* I1 = Y0 - floor((Y2 + Y1) / 4), I0 = Y2 + I1, I2 = Y1 + I1 (eq. G-6). */
void rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t count);

/* RGB to YCbCr with the coefficients of eq. G-9. */
void ict_forward(float *c0, float *c1, float *c2, size_t count);
/* YCbCr to RGB with the coefficients of eq. G-10. */
void ict_inverse(float *c0, float *c1, float *c2, size_t count);

/* The squared sample error (summed over the three outputs) that a unit
 * error on transformed component `component` (0..2) causes after the
 * inverse transform: from eq. G-6 without its rounding for the RCT, from
 * ict_inverse itself for the ICT. Rate control weighs distortion with it. */
double rct_synthesis_energy(unsigned component);
double ict_synthesis_energy(unsigned component);

#endif
