/* quantization.c - scalar quantization of subband coefficients (T.800
 * Annex E) and the step size fields of QCD/QCC (Annex A.6.4).
 */
#include "quantization.h"
#include "vector_clones.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gj2k needs float expressions evaluated in binary32 (FLT_EVAL_METHOD 0)"
#endif

unsigned quant_band_gain_log2(dwt_band band)
{
    /* Table E.1. */
    switch (band) {
    case DWT_BAND_LL:
        return 0;
    case DWT_BAND_HL:
    case DWT_BAND_LH:
        return 1;
    case DWT_BAND_HH:
        return 2;
    }
    return 0;
}

unsigned quant_dynamic_range(unsigned precision, dwt_band band)
{
    return precision + quant_band_gain_log2(band); /* eq. E-4 */
}

double quant_step_size(quant_step step, unsigned dynamic_range)
{
    /* Eq. E-3; exact in double for every 5-bit exponent and 11-bit mantissa. */
    return ldexp(1.0 + step.mantissa / 2048.0, (int)dynamic_range - (int)step.exponent);
}

bool quant_step_from_size(double delta, unsigned dynamic_range, quant_step *step)
{
    if (!(delta > 0) || isinf(delta))
        return false;
    int e;
    double m = frexp(delta, &e); /* delta = m 2^e, 0.5 <= m < 1: floor(log2 delta) = e - 1 */
    long exponent = (long)dynamic_range - (e - 1);
    if (exponent < 0 || exponent > 31)
        return false;
    /* delta / 2^(Rb - eb) = 2m in [1, 2); (2m - 1) 2^11 is exact, its floor
     * the largest mantissa whose step does not exceed delta. */
    double mantissa = floor((2.0 * m - 1.0) * 2048.0);
    step->exponent = (uint8_t)exponent;
    step->mantissa = (uint16_t)mantissa;
    return true;
}

bool quant_step_derived(quant_step ll_step, unsigned levels, unsigned band_level,
                        quant_step *step)
{
    /* Eq. E-5: (eb, mub) = (e0 - NL + nb, mu0). */
    long exponent = (long)ll_step.exponent - (long)levels + (long)band_level;
    if (exponent < 0 || exponent > 31)
        return false;
    step->exponent = (uint8_t)exponent;
    step->mantissa = ll_step.mantissa;
    return true;
}

unsigned quant_magnitude_bits(unsigned guard_bits, quant_step step)
{
    unsigned sum = guard_bits + step.exponent; /* eq. E-2 */
    return sum > 0 ? sum - 1 : 0;
}

uint16_t quant_step_pack(quant_step step, bool reversible)
{
    /* Tables A.29 (8 bits: exponent above three reserved bits) and A.30. */
    if (reversible)
        return (uint16_t)((step.exponent & 31u) << 3);
    return (uint16_t)(((step.exponent & 31u) << 11) | (step.mantissa & 0x7FFu));
}

quant_step quant_step_unpack(uint16_t field, bool reversible)
{
    quant_step step;
    if (reversible) {
        step.exponent = (uint8_t)((field >> 3) & 31u);
        step.mantissa = 0;
    } else {
        step.exponent = (uint8_t)((field >> 11) & 31u);
        step.mantissa = (uint16_t)(field & 0x7FFu);
    }
    return step;
}

/* Annex E: q = sign(a) floor(|a| / delta), m = |a| / delta being one IEEE
 * binary32 division, then truncation toward zero (a floor here). A quotient
 * of 2^31 or more saturates; NaN gives 0. */
static inline int32_t deadzone_index(float a, float m)
{
    /* written without branches (and no conversion out of range) so that
       the loops below vectorise */
    bool small = m < 2147483648.0f; /* false for NaN too */
    int32_t q = (int32_t)(small ? m : 0.0f);
    q = small ? q : (m != m ? 0 : INT32_MAX);
    return a < 0.0f ? -q : q;
}

GJ2K_VECTOR_CLONES
void quant_forward(const float *coefficients, int32_t *indices, size_t count, float delta)
{
    for (size_t i = 0; i < count; i++) {
        float a = coefficients[i];
        indices[i] = deadzone_index(a, fabsf(a) / delta);
    }
}

GJ2K_VECTOR_CLONES
void quant_forward_with_fractions(const float *coefficients, int32_t *indices, uint8_t *fractions,
                                  size_t count, float delta)
{
    for (size_t i = 0; i < count; i++) {
        float a = coefficients[i];
        float m = fabsf(a) / delta;
        int32_t q = deadzone_index(a, m);
        indices[i] = q;
        /* m's excess over |q| (its fraction below 2^31, where (float)|q| is
           exact or m whole; above, saturated); NaN and infinity give 255.
           No floorf: the loop vectorises. */
        float fraction = (m - fabsf((float)q)) * 256.0f;
        fractions[i] = (uint8_t)(fraction < 255.0f ? fraction : 255.0f);
    }
}

GJ2K_VECTOR_CLONES
void quant_inverse(const int32_t *indices, float *coefficients, size_t count, float delta,
                   float r)
{
    for (size_t i = 0; i < count; i++) {
        int32_t q = indices[i];
        /* Eq. E-6: Rq = (q + r sign(q)) delta; q converts to the nearest float. */
        float v;
        if (q > 0)
            v = ((float)q + r) * delta;
        else if (q < 0)
            v = ((float)q - r) * delta;
        else
            v = 0.0f;
        coefficients[i] = v;
    }
}
