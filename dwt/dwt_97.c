/* dwt_97.c - the irreversible 9/7 wavelet on one line (T.800 Annex F.3.8.2
 * inverse, F.4.8.2 forward), in binary32 arithmetic.
 *
 * Every lifting step is evaluated as x = x + c * (a + b): one addition of
 * the two neighbours, one product, one addition, each rounded to binary32
 * (no contraction to fused multiply-add: the build passes -ffp-contract=off).
 * The inverse subtracts, which in IEEE arithmetic is the same as adding with
 * -c. docs/numerics.md states these rules for every implementation.
 *
 * Borders: the same padded even/odd split as dwt_53.c (whole-sample
 * symmetric extension, F.3.7 and F.4.7); pads are refreshed before each step.
 */
#include "dwt.h"
#include "vector_clones.h"

#include <float.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gj2k needs float expressions evaluated in binary32 (FLT_EVAL_METHOD 0, e.g. SSE on x86)"
#endif

/* hi[h] = hi[h] + c * (lo[h - s] + lo[h - s + 1]): the odd-sample steps. */
GJ2K_VECTOR_CLONES
static void lift_odd(float *hi, size_t nh, float *lo, size_t nl, size_t s, float c)
{
    lo[-1] = lo[0];
    lo[nl] = lo[nl - 1];
    const float *left = lo - s;
    for (size_t h = 0; h < nh; h++)
        hi[h] = hi[h] + c * (left[h] + left[h + 1]);
}

/* lo[l] = lo[l] + c * (hi[l + s - 1] + hi[l + s]): the even-sample steps. */
GJ2K_VECTOR_CLONES
static void lift_even(float *lo, size_t nl, float *hi, size_t nh, size_t s, float c)
{
    hi[-1] = hi[0];
    hi[nh] = hi[nh - 1];
    const float *left = hi + s - 1;
    for (size_t l = 0; l < nl; l++)
        lo[l] = lo[l] + c * (left[l] + left[l + 1]);
}

GJ2K_VECTOR_CLONES
static void scale(float *v, size_t n, float k)
{
    for (size_t i = 0; i < n; i++)
        v[i] = v[i] * k;
}

GJ2K_VECTOR_CLONES
void dwt_forward_97_line(float *line, uint32_t i0, uint32_t i1, float *scratch)
{
    if (i1 <= i0)
        return;
    size_t n = (size_t)(i1 - i0), s = i0 & 1u;
    if (n == 1) {
        /* 1D_SD (F.4.6): a lone sample at an odd coordinate is doubled. */
        if (s)
            line[0] = line[0] * 2.0f;
        return;
    }
    size_t nl = (n + 1 - s) / 2, nh = n - nl;
    float *lo = scratch + 1, *hi = scratch + nl + 3;
    for (size_t l = 0; l < nl; l++)
        lo[l] = line[2 * l + s];
    for (size_t h = 0; h < nh; h++)
        hi[h] = line[2 * h + 1 - s];
    /* F.4.8.2, steps 1 to 6: alpha, beta, gamma, delta, then the scaling by 1/K and K. */
    lift_odd(hi, nh, lo, nl, s, DWT97_ALPHA);
    lift_even(lo, nl, hi, nh, s, DWT97_BETA);
    lift_odd(hi, nh, lo, nl, s, DWT97_GAMMA);
    lift_even(lo, nl, hi, nh, s, DWT97_DELTA);
    scale(lo, nl, DWT97_INV_K);
    scale(hi, nh, DWT97_K);
    memcpy(line, lo, nl * sizeof *line);
    memcpy(line + nl, hi, nh * sizeof *line);
}

/* The inverse, the high-pass band scaled by `inverse_k` (1/K, or the
 * decoders' value of it: DWT97_INV_K_INTEROP). */
GJ2K_VECTOR_CLONES
static void inverse_97_line(float *line, uint32_t i0, uint32_t i1, float *scratch,
                            float inverse_k)
{
    if (i1 <= i0)
        return;
    size_t n = (size_t)(i1 - i0), s = i0 & 1u;
    if (n == 1) {
        /* 1D_SR (F.3.6): a lone sample at an odd coordinate is halved. */
        if (s)
            line[0] = line[0] * 0.5f;
        return;
    }
    size_t nl = (n + 1 - s) / 2, nh = n - nl;
    float *lo = scratch + 1, *hi = scratch + nl + 3;
    memcpy(lo, line, nl * sizeof *line);
    memcpy(hi, line + nl, nh * sizeof *line);
    /* F.3.8.2, steps 1 to 6: the scaling by K and 1/K, then delta, gamma, beta, alpha. */
    scale(lo, nl, DWT97_K);
    scale(hi, nh, inverse_k);
    lift_even(lo, nl, hi, nh, s, -DWT97_DELTA);
    lift_odd(hi, nh, lo, nl, s, -DWT97_GAMMA);
    lift_even(lo, nl, hi, nh, s, -DWT97_BETA);
    lift_odd(hi, nh, lo, nl, s, -DWT97_ALPHA);
    for (size_t l = 0; l < nl; l++)
        line[2 * l + s] = lo[l];
    for (size_t h = 0; h < nh; h++)
        line[2 * h + 1 - s] = hi[h];
}

void dwt_inverse_97_line(float *line, uint32_t i0, uint32_t i1, float *scratch)
{
    inverse_97_line(line, i0, i1, scratch, DWT97_INV_K);
}

void dwt_inverse_97_interop_line(float *line, uint32_t i0, uint32_t i1, float *scratch)
{
    inverse_97_line(line, i0, i1, scratch, DWT97_INV_K_INTEROP);
}
