/* quantization.h - scalar quantization of subband coefficients (Annex E). */
#ifndef GJ2K_QUANTIZATION_H
#define GJ2K_QUANTIZATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwt.h"

/* A step size as QCD/QCC carry it (Annex A.6.4): exponent εb (5 bits) and
 * mantissa μb (11 bits; 0 for reversible transforms). */
typedef struct quant_step {
    uint8_t exponent;
    uint16_t mantissa;
} quant_step;

/* log2 of the nominal gain of a subband (Table E.1): LL 0, HL and LH 1, HH 2. */
unsigned quant_band_gain_log2(dwt_band band);

/* Rb, the nominal dynamic range of a subband (eq. E-4): component precision
 * plus the band's log2 gain. */
unsigned quant_dynamic_range(unsigned precision, dwt_band band);

/* Δb = 2^(Rb - εb) * (1 + μb / 2^11) (eq. E-3). */
double quant_step_size(quant_step step, unsigned dynamic_range);

/* The (εb, μb) whose step is the largest not above `delta` (exact when delta
 * is representable); fails (returns false) when delta is not positive or
 * needs an exponent outside 0..31. */
bool quant_step_from_size(double delta, unsigned dynamic_range, quant_step *step);

/* Derived quantization (eq. E-5): the step of a band at level nb of NL
 * levels from the LL band's (ε0, μ0): (ε0 - NL + nb, μ0). Returns false when
 * the exponent would fall outside 0..31. */
bool quant_step_derived(quant_step ll_step, unsigned levels, unsigned band_level,
                        quant_step *step);

/* Mb = G + εb - 1, the magnitude bit-planes of a band (eq. E-2). */
unsigned quant_magnitude_bits(unsigned guard_bits, quant_step step);

/* The SPqcd/SPqcc field of a step: ε << 3 for reversible (no quantization),
 * ε << 11 | μ otherwise (Table A.29, A.30), and back. */
uint16_t quant_step_pack(quant_step step, bool reversible);
quant_step quant_step_unpack(uint16_t field, bool reversible);

/* The deadzone quantizer (eq. E-1 as inverted by E.1.1.1):
 * q = sign(a) * floor(|a| / delta), with IEEE single-precision division. */
void quant_forward(const float *coefficients, int32_t *indices, size_t count, float delta);

/* quant_forward, plus each |a| / delta - |q| in 1/256 (truncated, at most
 * 255): what rate control measures distortion against (tier1.h).
 * `indices` may be the coefficients' own memory (each element is read
 * before its index is stored); otherwise the arrays do not overlap. */
void quant_forward_with_fractions(const float *coefficients, int32_t *indices, uint8_t *fractions,
                                  size_t count, float delta);
/* Reconstruction (eq. E-6): Rq = (q + r * sign(q)) * delta, and 0 for q = 0;
 * r is the reconstruction offset in [0, 1) (0.5 is customary). */
void quant_inverse(const int32_t *indices, float *coefficients, size_t count, float delta,
                   float r);

#endif
