/* dwt_53.c - the reversible 5/3 wavelet on one line (T.800 Annex F.3.8.1
 * inverse, F.4.8.1 forward).
 *
 * Integer rules (docs/numerics.md): every lifting step gives what exact
 * arithmetic gives, stored as int32: exact whenever it fits, which valid
 * data guarantees; otherwise it wraps modulo 2^32 (only corrupt input gets
 * there, and no undefined behaviour results). The steps are written in
 * 32-bit operations that cannot overflow (dwt_lifting_53.h), so the
 * compiler vectorises them; the floor divisions are arithmetic right
 * shifts, which gcc and clang define for negative values (the static
 * assertion below refuses a compiler that does otherwise).
 *
 * Symmetric extension (F.3.7, F.4.7): the line is split into its even
 * (low-pass) and odd (high-pass) samples, each held in scratch with one pad
 * element on either side. A lifting step reads one neighbour of the other
 * parity on each side; at a border, whole-sample symmetric extension mirrors
 * that neighbour onto the one just inside, which is exactly the value a pad
 * gets by copying its neighbour. Lifting steps preserve the symmetry, so
 * extending before every step equals extending the input once (F.3.7).
 */
#include "dwt.h"
#include "vector_clones.h"
#include "dwt_lifting_53.h"

#include <string.h>

_Static_assert((-3 >> 1) == -2, "gj2k needs >> to be an arithmetic shift");

static inline int32_t to_int32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* Y(2n+1) op= floor((X(2n) + X(2n+2)) / 2) over the odd samples, sign = +1
 * for the inverse, -1 for the forward (F.3.8.1, F.4.8.1), by the exact
 * 32-bit steps of dwt_lifting_53.h (vectorisable). `lo` has pads. */
GJ2K_VECTOR_CLONES
static void predict(int32_t *restrict hi, size_t nh, int32_t *restrict lo, size_t nl, size_t s,
                    int sign)
{
    lo[-1] = lo[0];
    lo[nl] = lo[nl - 1];
    const int32_t *left = lo - s; /* the even neighbour before hi[h] is left[h] */
    if (sign > 0)
        for (size_t h = 0; h < nh; h++)
            hi[h] = dwt53_add(hi[h], dwt53_half(left[h], left[h + 1]));
    else
        for (size_t h = 0; h < nh; h++)
            hi[h] = dwt53_sub(hi[h], dwt53_half(left[h], left[h + 1]));
}

/* Y(2n) op= floor((Y(2n-1) + Y(2n+1) + 2) / 4) over the even samples,
 * sign = +1 for the forward, -1 for the inverse (F.4.8.1, F.3.8.1). */
GJ2K_VECTOR_CLONES
static void update(int32_t *restrict lo, size_t nl, int32_t *restrict hi, size_t nh, size_t s,
                   int sign)
{
    hi[-1] = hi[0];
    hi[nh] = hi[nh - 1];
    const int32_t *left = hi + s - 1; /* the odd neighbour before lo[l] is left[l] */
    if (sign > 0)
        for (size_t l = 0; l < nl; l++)
            lo[l] = dwt53_add(lo[l], dwt53_quarter(left[l], left[l + 1]));
    else
        for (size_t l = 0; l < nl; l++)
            lo[l] = dwt53_sub(lo[l], dwt53_quarter(left[l], left[l + 1]));
}

GJ2K_VECTOR_CLONES
void dwt_forward_53_line(int32_t *line, uint32_t i0, uint32_t i1, int32_t *scratch)
{
    if (i1 <= i0)
        return;
    size_t n = (size_t)(i1 - i0), s = i0 & 1u; /* s: the first sample is odd */
    if (n == 1) {
        /* 1D_SD (F.4.6): a lone sample at an odd coordinate is doubled. */
        if (s)
            line[0] = to_int32((int64_t)line[0] * 2);
        return;
    }
    size_t nl = (n + 1 - s) / 2, nh = n - nl;
    int32_t *lo = scratch + 1, *hi = scratch + nl + 3;
    for (size_t l = 0; l < nl; l++)
        lo[l] = line[2 * l + s];
    for (size_t h = 0; h < nh; h++)
        hi[h] = line[2 * h + 1 - s];
    predict(hi, nh, lo, nl, s, -1);
    update(lo, nl, hi, nh, s, +1);
    memcpy(line, lo, nl * sizeof *line);
    memcpy(line + nl, hi, nh * sizeof *line);
}

GJ2K_VECTOR_CLONES
void dwt_inverse_53_line(int32_t *line, uint32_t i0, uint32_t i1, int32_t *scratch)
{
    if (i1 <= i0)
        return;
    size_t n = (size_t)(i1 - i0), s = i0 & 1u;
    if (n == 1) {
        /* 1D_SR (F.3.6): a lone sample at an odd coordinate is halved (a floor
         * division, exact for every coefficient the forward makes). */
        if (s)
            line[0] = line[0] >> 1;
        return;
    }
    size_t nl = (n + 1 - s) / 2, nh = n - nl;
    int32_t *lo = scratch + 1, *hi = scratch + nl + 3;
    memcpy(lo, line, nl * sizeof *line);
    memcpy(hi, line + nl, nh * sizeof *line);
    update(lo, nl, hi, nh, s, -1);
    predict(hi, nh, lo, nl, s, +1);
    for (size_t l = 0; l < nl; l++)
        line[2 * l + s] = lo[l];
    for (size_t h = 0; h < nh; h++)
        line[2 * h + 1 - s] = hi[h];
}
