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
#include "vector_clones.h"

#include <float.h>
#include <stdbool.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "gj2k needs float expressions evaluated in binary32 (FLT_EVAL_METHOD 0)"
#endif

_Static_assert(((int64_t)-5 >> 2) == -2, "gj2k needs >> to be an arithmetic shift");

static inline int32_t to_int32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* Whether every sample of the three is within +-2^29, where the RCT's
 * 32-bit steps give the 64-bit results (no sum passes 2^31). */
static inline bool rct_fits_32(const int32_t *c0, const int32_t *c1, const int32_t *c2, size_t n)
{
    uint32_t outside = 0;
    for (size_t i = 0; i < n; i++)
        outside |= ((uint32_t)c0[i] + (1u << 29)) | ((uint32_t)c1[i] + (1u << 29)) |
                   ((uint32_t)c2[i] + (1u << 29));
    return outside < (1u << 30);
}

enum { RCT_CHUNK = 512 };

GJ2K_VECTOR_CLONES
void rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t count)
{
    for (size_t at = 0; at < count; at += RCT_CHUNK) {
        size_t n = count - at < RCT_CHUNK ? count - at : RCT_CHUNK;
        int32_t *a = c0 + at, *b = c1 + at, *c = c2 + at;
        if (rct_fits_32(a, b, c, n)) { /* the common case, vectorised */
            for (size_t i = 0; i < n; i++) {
                int32_t r = a[i], g = b[i], bl = c[i];
                a[i] = (r + 2 * g + bl) >> 2; /* eq. G-5 */
                b[i] = bl - g;
                c[i] = r - g;
            }
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            int64_t r = a[i], g = b[i], bl = c[i];
            a[i] = to_int32((r + 2 * g + bl) >> 2);
            b[i] = to_int32(bl - g);
            c[i] = to_int32(r - g);
        }
    }
}

GJ2K_VECTOR_CLONES
void rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t count)
{
    for (size_t at = 0; at < count; at += RCT_CHUNK) {
        size_t n = count - at < RCT_CHUNK ? count - at : RCT_CHUNK;
        int32_t *a = c0 + at, *b = c1 + at, *c = c2 + at;
        if (rct_fits_32(a, b, c, n)) {
            for (size_t i = 0; i < n; i++) {
                int32_t y0 = a[i], y1 = b[i], y2 = c[i];
                int32_t g = y0 - ((y2 + y1) >> 2); /* eq. G-6 */
                a[i] = y2 + g;
                b[i] = g;
                c[i] = y1 + g;
            }
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            int64_t y0 = a[i], y1 = b[i], y2 = c[i];
            int64_t g = y0 - ((y2 + y1) >> 2);
            a[i] = to_int32(y2 + g);
            b[i] = to_int32(g);
            c[i] = to_int32(y1 + g);
        }
    }
}

GJ2K_VECTOR_CLONES
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

GJ2K_VECTOR_CLONES
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
