/* component_transform.c - the reversible (RCT, T.800 Annex G.2) and
 * irreversible (ICT, G.3) multiple component transforms.
 *
 * RCT: exact in 64-bit integers, floor division by 4 as an arithmetic shift;
 * results are stored as int32 (exact for valid data, modulo 2^32 otherwise).
 * ICT: binary32, each row evaluated left to right exactly as eq. G-9 and
 * G-10 are written, one rounding per operation, no fused multiply-add
 * (docs/numerics.md).
 */
#include "component_transform.h"

#include <float.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gj2k needs float expressions evaluated in binary32 (FLT_EVAL_METHOD 0)"
#endif

_Static_assert(((int64_t)-5 >> 2) == -2, "gj2k needs >> to be an arithmetic shift");

static inline int32_t to_int32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

void rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int64_t r = c0[i], g = c1[i], b = c2[i];
        c0[i] = to_int32((r + 2 * g + b) >> 2); /* eq. G-5 */
        c1[i] = to_int32(b - g);
        c2[i] = to_int32(r - g);
    }
}

void rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int64_t y0 = c0[i], y1 = c1[i], y2 = c2[i];
        int64_t g = y0 - ((y2 + y1) >> 2); /* eq. G-6 */
        c0[i] = to_int32(y2 + g);
        c1[i] = to_int32(g);
        c2[i] = to_int32(y1 + g);
    }
}

void ict_forward(float *c0, float *c1, float *c2, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float r = c0[i], g = c1[i], b = c2[i];
        /* Eq. G-9. */
        c0[i] = (0.299f * r + 0.587f * g) + 0.114f * b;
        c1[i] = (-0.16875f * r - 0.33126f * g) + 0.5f * b;
        c2[i] = (0.5f * r - 0.41869f * g) - 0.08131f * b;
    }
}

void ict_inverse(float *c0, float *c1, float *c2, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        float y = c0[i], cb = c1[i], cr = c2[i];
        /* Eq. G-10. */
        c0[i] = y + 1.402f * cr;
        c1[i] = (y - 0.34413f * cb) - 0.71414f * cr;
        c2[i] = y + 1.772f * cb;
    }
}

double rct_synthesis_energy(unsigned component)
{
    /* I1 = Y0 - (Y1 + Y2) / 4, I0 = Y2 + I1, I2 = Y1 + I1: Y0 reaches all three
     * with weight 1; Y1 and Y2 with 3/4, -1/4, -1/4. */
    return component == 0 ? 3.0 : 11.0 / 16.0;
}

double ict_synthesis_energy(unsigned component)
{
    float v[3] = {0.0f, 0.0f, 0.0f};
    v[component < 3 ? component : 0] = 1.0f;
    ict_inverse(&v[0], &v[1], &v[2], 1);
    return (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
}
