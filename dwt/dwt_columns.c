/* dwt_columns.c - see dwt_columns.h. The strip is split into its even
 * (low-pass) and odd (high-pass) rows, each set held in scratch with a pad
 * row on either side, as dwt_53.c and dwt_97.c split a line: a pad refreshed
 * from its neighbour before each step is whole-sample symmetric extension
 * (F.3.7, F.4.7). */
#include "dwt_columns.h"
#include "vector_clones.h"

#include <string.h>

#include "dwt.h"
#include "dwt_lifting_53.h"

/* The strip's rows in scratch: lo rows 0..nl-1 at 1.., hi rows after. */
typedef struct strip {
    size_t width, nl, nh, s;
    void *lo, *hi; /* row 0 of each; row -1 and row n are the pads */
} strip;

static strip strip_of(void *scratch, size_t element, uint32_t y0, uint32_t y1, size_t width)
{
    strip t;
    size_t n = y1 - y0;
    t.width = width;
    t.s = y0 & 1u;
    t.nl = (n + 1 - t.s) / 2;
    t.nh = n - t.nl;
    t.lo = (char *)scratch + DWT_STRIP * element;
    t.hi = (char *)scratch + (t.nl + 3) * DWT_STRIP * element;
    return t;
}

/* Rows in and out: interleaved (the level's rows in order) or split (lows first). */
GJ2K_VECTOR_CLONES
static void strip_load(const strip *t, const char *data, size_t row_bytes, size_t element, bool split)
{
    size_t bytes = t->width * element;
    for (size_t l = 0; l < t->nl; l++)
        memcpy((char *)t->lo + l * DWT_STRIP * element, data + (split ? l : 2 * l + t->s) * row_bytes, bytes);
    for (size_t h = 0; h < t->nh; h++)
        memcpy((char *)t->hi + h * DWT_STRIP * element,
               data + (split ? t->nl + h : 2 * h + 1 - t->s) * row_bytes, bytes);
}

GJ2K_VECTOR_CLONES
static void strip_store(const strip *t, char *data, size_t row_bytes, size_t element, bool split)
{
    size_t bytes = t->width * element;
    for (size_t l = 0; l < t->nl; l++)
        memcpy(data + (split ? l : 2 * l + t->s) * row_bytes, (char *)t->lo + l * DWT_STRIP * element, bytes);
    for (size_t h = 0; h < t->nh; h++)
        memcpy(data + (split ? t->nl + h : 2 * h + 1 - t->s) * row_bytes,
               (char *)t->hi + h * DWT_STRIP * element, bytes);
}

/* The pad rows of a set of n rows: copies of its first and last. */
static void pad(void *rows, size_t n, size_t width, size_t element)
{
    char *r = rows;
    size_t row = DWT_STRIP * element;
    memcpy(r - row, r, width * element);
    memcpy(r + n * row, r + (n - 1) * row, width * element);
}

/* --------------------------------------------------------------- 5/3 */

/* The odd rows' step: hi[h] op= floor((lo[h - s] + lo[h - s + 1]) / 2). */
GJ2K_VECTOR_CLONES
static void predict_rows(const strip *t, int sign)
{
    int32_t *lo = t->lo, *hi = t->hi;
    pad(lo, t->nl, t->width, 4);
    for (size_t h = 0; h < t->nh; h++) {
        int32_t *restrict x = hi + h * DWT_STRIP;
        const int32_t *a = lo + ((ptrdiff_t)h - (ptrdiff_t)t->s) * DWT_STRIP, *b = a + DWT_STRIP;
        if (sign > 0)
            for (size_t c = 0; c < t->width; c++)
                x[c] = dwt53_add(x[c], dwt53_half(a[c], b[c]));
        else
            for (size_t c = 0; c < t->width; c++)
                x[c] = dwt53_sub(x[c], dwt53_half(a[c], b[c]));
    }
}

/* The even rows' step: lo[l] op= floor((hi[l + s - 1] + hi[l + s] + 2) / 4). */
GJ2K_VECTOR_CLONES
static void update_rows(const strip *t, int sign)
{
    int32_t *lo = t->lo, *hi = t->hi;
    pad(hi, t->nh, t->width, 4);
    for (size_t l = 0; l < t->nl; l++) {
        int32_t *restrict x = lo + l * DWT_STRIP;
        const int32_t *a = hi + ((ptrdiff_t)(l + t->s) - 1) * DWT_STRIP, *b = a + DWT_STRIP;
        if (sign > 0)
            for (size_t c = 0; c < t->width; c++)
                x[c] = dwt53_add(x[c], dwt53_quarter(a[c], b[c]));
        else
            for (size_t c = 0; c < t->width; c++)
                x[c] = dwt53_sub(x[c], dwt53_quarter(a[c], b[c]));
    }
}

void dwt_columns_forward_53(int32_t *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, int32_t *scratch)
{
    if (y1 <= y0 || c1 <= c0)
        return;
    if (y1 - y0 == 1) { /* 1D_SD (F.4.6): a lone sample at an odd coordinate is doubled */
        if (y0 & 1u)
            for (size_t c = c0; c < c1; c++)
                data[c] = dwt53_add(data[c], data[c]);
        return;
    }
    strip t = strip_of(scratch, 4, y0, y1, c1 - c0);
    strip_load(&t, (const char *)(data + c0), stride * 4, 4, false);
    predict_rows(&t, -1);
    update_rows(&t, +1);
    strip_store(&t, (char *)(data + c0), stride * 4, 4, true);
}

void dwt_columns_inverse_53(int32_t *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, int32_t *scratch)
{
    if (y1 <= y0 || c1 <= c0)
        return;
    if (y1 - y0 == 1) { /* 1D_SR (F.3.6): a lone sample at an odd coordinate is halved */
        if (y0 & 1u)
            for (size_t c = c0; c < c1; c++)
                data[c] = data[c] >> 1;
        return;
    }
    strip t = strip_of(scratch, 4, y0, y1, c1 - c0);
    strip_load(&t, (const char *)(data + c0), stride * 4, 4, true);
    update_rows(&t, -1);
    predict_rows(&t, +1);
    strip_store(&t, (char *)(data + c0), stride * 4, 4, false);
}

/* --------------------------------------------------------------- 9/7 */

/* hi[h] = hi[h] + c * (lo[h - s] + lo[h - s + 1]), as dwt_97.c's lift_odd. */
GJ2K_VECTOR_CLONES
static void lift_odd_rows(const strip *t, float k)
{
    float *lo = t->lo, *hi = t->hi;
    pad(lo, t->nl, t->width, 4);
    for (size_t h = 0; h < t->nh; h++) {
        float *restrict x = hi + h * DWT_STRIP;
        const float *a = lo + ((ptrdiff_t)h - (ptrdiff_t)t->s) * DWT_STRIP, *b = a + DWT_STRIP;
        for (size_t c = 0; c < t->width; c++)
            x[c] = x[c] + k * (a[c] + b[c]);
    }
}

/* lo[l] = lo[l] + c * (hi[l + s - 1] + hi[l + s]), as lift_even. */
GJ2K_VECTOR_CLONES
static void lift_even_rows(const strip *t, float k)
{
    float *lo = t->lo, *hi = t->hi;
    pad(hi, t->nh, t->width, 4);
    for (size_t l = 0; l < t->nl; l++) {
        float *restrict x = lo + l * DWT_STRIP;
        const float *a = hi + ((ptrdiff_t)(l + t->s) - 1) * DWT_STRIP, *b = a + DWT_STRIP;
        for (size_t c = 0; c < t->width; c++)
            x[c] = x[c] + k * (a[c] + b[c]);
    }
}

GJ2K_VECTOR_CLONES
static void scale_rows(float *rows, size_t n, size_t width, float k)
{
    for (size_t r = 0; r < n; r++) {
        float *restrict x = rows + r * DWT_STRIP;
        for (size_t c = 0; c < width; c++)
            x[c] = x[c] * k;
    }
}

void dwt_columns_forward_97(float *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, float *scratch)
{
    if (y1 <= y0 || c1 <= c0)
        return;
    if (y1 - y0 == 1) {
        if (y0 & 1u)
            for (size_t c = c0; c < c1; c++)
                data[c] = data[c] * 2.0f;
        return;
    }
    strip t = strip_of(scratch, 4, y0, y1, c1 - c0);
    strip_load(&t, (const char *)(data + c0), stride * 4, 4, false);
    lift_odd_rows(&t, DWT97_ALPHA);
    lift_even_rows(&t, DWT97_BETA);
    lift_odd_rows(&t, DWT97_GAMMA);
    lift_even_rows(&t, DWT97_DELTA);
    scale_rows(t.lo, t.nl, t.width, DWT97_INV_K);
    scale_rows(t.hi, t.nh, t.width, DWT97_K);
    strip_store(&t, (char *)(data + c0), stride * 4, 4, true);
}

void dwt_columns_inverse_97(float *data, size_t stride, uint32_t y0, uint32_t y1, size_t c0,
                            size_t c1, float *scratch, float inverse_k)
{
    if (y1 <= y0 || c1 <= c0)
        return;
    if (y1 - y0 == 1) {
        if (y0 & 1u)
            for (size_t c = c0; c < c1; c++)
                data[c] = data[c] * 0.5f;
        return;
    }
    strip t = strip_of(scratch, 4, y0, y1, c1 - c0);
    strip_load(&t, (const char *)(data + c0), stride * 4, 4, true);
    scale_rows(t.lo, t.nl, t.width, DWT97_K);
    scale_rows(t.hi, t.nh, t.width, inverse_k);
    lift_even_rows(&t, -DWT97_DELTA);
    lift_odd_rows(&t, -DWT97_GAMMA);
    lift_even_rows(&t, -DWT97_BETA);
    lift_odd_rows(&t, -DWT97_ALPHA);
    strip_store(&t, (char *)(data + c0), stride * 4, 4, false);
}
