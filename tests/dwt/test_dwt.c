/* test_dwt.c - the reference wavelet transforms (dwt/dwt.h, T.800 Annex F)
 * and the subband geometry (Annex B.5).
 *
 * 9/7 round-trip bound. With u = 2^-24 and M = max |x| of a line, a lifting
 * step x = x + c (a + b) commits at most u (4 |c| N + V) to first order
 * (N bounds a and b, V the result). Bounding the intermediates by their
 * worst-case gains (|odd| <= 4.17 M after alpha, |even| <= 1.44 M after beta,
 * 6.72 M after gamma, 7.40 M after delta) and propagating every step's error
 * of the forward and the inverse through the inverse steps that follow
 * (each adds 2 |c| times its neighbours' error) gives 530 u M for the round
 * trip of one 1-D level; the 1-D test uses that (largest measured over 200
 * seeds: 18 u M). In 2-D that worst case compounds through the magnitude
 * growth and the synthesis gains of the levels below into something far too
 * loose to catch anything, so the 2-D test allows 64 u M per 1-D pass (two
 * passes per level that has an area): six times the largest error measured
 * over 200 seeds (10.5 u M per pass), and for a 300 x 300 tile (18 passes)
 * still about 1/15 of the effect of a lifting constant or scale factor wrong
 * in its fourth digit (~1e-3 M; a wrong normalisation is O(M)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwt.h"
#include "dwt_lifting_53.h"
#include "parallel_pool.h"
#include "test_harness.h"

#define U_FLOAT (1.0 / 16777216.0) /* 2^-24 */

/* ------------------------------------------------------------ helpers */

/* A random origin: small, anywhere, or so that [o, o + length) ends just
 * below 2^32, with either parity. */
static uint32_t random_origin(uint32_t length)
{
    uint64_t top = 0xFFFFFFFFull - length;
    switch (test_random() % 3) {
    case 0:
        return (uint32_t)test_random_range(0, 9);
    case 1:
        return (uint32_t)test_random_range(0, (int64_t)top);
    default:
        return (uint32_t)(top - (uint64_t)test_random_range(0, 3));
    }
}

/* Mostly short lengths, some up to `max`. */
static uint32_t random_length(uint32_t max)
{
    return (uint32_t)(test_random() % 2 ? test_random_range(1, 12) : test_random_range(1, max));
}

static int32_t random_sample(unsigned bits)
{
    int64_t half = (int64_t)1 << (bits - 1);
    return (int32_t)test_random_range(-half, half - 1);
}

/* Whole-sample symmetric extension (F.3.7): the coordinate of [i0, i1)
 * that X(i) equals, periodic with period 2 (i1 - i0 - 1). */
static int64_t mirror(int64_t i, int64_t i0, int64_t i1)
{
    int64_t n = i1 - i0;
    if (n == 1)
        return i0;
    int64_t period = 2 * (n - 1), m = (i - i0) % period;
    if (m < 0)
        m += period;
    return i0 + (m >= n ? period - m : m);
}

/* Where the forward transform puts the coefficient of coordinate c. */
static size_t output_position(uint32_t i0, uint32_t i1, uint64_t c)
{
    size_t n = i1 - i0, s = i0 & 1u, nl = (n + 1 - s) / 2;
    size_t p = (size_t)(c - i0);
    return c % 2 == 0 ? (p - s) / 2 : nl + (p - (1 - s)) / 2;
}

static size_t low_count(uint32_t i0, uint32_t i1)
{
    size_t n = i1 - i0;
    return (n + 1 - (i0 & 1u)) / 2;
}

/* ------------------------------------------------------------ 1-D 5/3 */

static void test_dwt53_line_round_trip(void)
{
    int32_t *line = malloc(600 * sizeof *line), *copy = malloc(600 * sizeof *copy);
    int32_t *scratch = malloc(DWT_LINE_SCRATCH(600) * sizeof *scratch);
    REQUIRE(line && copy && scratch);
    for (int iteration = 0; iteration < 3000; iteration++) {
        uint32_t n = random_length(600), i0 = random_origin(n);
        unsigned bits = (unsigned)test_random_range(1, 28);
        for (uint32_t i = 0; i < n; i++)
            copy[i] = line[i] = random_sample(bits);
        dwt_forward_53_line(line, i0, i0 + n, scratch);
        dwt_inverse_53_line(line, i0, i0 + n, scratch);
        if (memcmp(line, copy, n * sizeof *line) != 0) {
            fprintf(stderr, "5/3 line of %u at %u (%u bits) does not come back\n", n, i0, bits);
            CHECK(false);
            break;
        }
    }
    free(line), free(copy), free(scratch);
}

/* Lifting against convolution with the 5/3 analysis filters. The high-pass
 * output is X(2n+1) - floor(s/2) with s = X(2n) + X(2n+2), so it exceeds the
 * exact X(2n+1) - s/2 by 0 or 1/2. The low-pass output is X(2n) + floor((t +
 * 2) / 4) with t the sum of the two integer high-pass neighbours: floor(t/4 +
 * 1/2) - t/4 is one of 0, -1/4, 1/2, 1/4, and each neighbour's own rounding
 * (0 or 1/2) adds up to 1/4 more, so low - exact is in [-1/4, 3/4]. Symmetric
 * extension does not change this at the borders. */
static void test_dwt53_line_matches_convolution(void)
{
    static const double h0[5] = {-1.0 / 8, 2.0 / 8, 6.0 / 8, 2.0 / 8, -1.0 / 8};
    static const double h1[3] = {-0.5, 1.0, -0.5};
    int32_t x[300], y[300], scratch[DWT_LINE_SCRATCH(300)];
    for (int iteration = 0; iteration < 1000; iteration++) {
        uint32_t n = (uint32_t)test_random_range(2, 300), i0 = random_origin(n), i1 = i0 + n;
        unsigned bits = (unsigned)test_random_range(1, 24);
        for (uint32_t i = 0; i < n; i++)
            y[i] = x[i] = random_sample(bits);
        dwt_forward_53_line(y, i0, i1, scratch);
        for (uint64_t c = i0; c < i1; c++) {
            double conv = 0, got = y[output_position(i0, i1, c)];
            bool low = c % 2 == 0;
            for (int k = low ? -2 : -1; k <= (low ? 2 : 1); k++)
                conv += (low ? h0[k + 2] : h1[k + 1]) * x[mirror((int64_t)c + k, i0, i1) - i0];
            double d = got - conv;
            bool ok = low ? d >= -0.25 && d <= 0.75 : d >= 0 && d <= 0.5;
            if (!ok) {
                fprintf(stderr, "5/3 n=%u i0=%u coordinate %llu: lifting %g, convolution %g\n", n,
                        i0, (unsigned long long)c, got, conv);
                CHECK(ok);
                return;
            }
        }
    }
}

/* The inverse of an impulse is the synthesis filter: 8 in a low-pass
 * coefficient gives 8 (1/2, 1, 1/2); 8 in a high-pass one gives
 * 8 (-1/8, -2/8, 6/8, -2/8, -1/8) (integer rounding is exact at this size). */
static void test_dwt53_line_synthesis_taps(void)
{
    static const int32_t g0[3] = {4, 8, 4}, g1[5] = {-1, -2, 6, -2, -1};
    int32_t line[40], scratch[DWT_LINE_SCRATCH(40)];
    for (uint32_t parity = 0; parity < 2; parity++) {
        uint32_t i0 = 1000 + parity, i1 = i0 + 40;
        for (int high = 0; high < 2; high++) {
            size_t nl = low_count(i0, i1), index = high ? nl + 10 : 10;
            memset(line, 0, sizeof line);
            line[index] = 8;
            dwt_inverse_53_line(line, i0, i1, scratch);
            /* The coordinate of the coefficient. */
            uint64_t c = high ? 2 * (i0 / 2 + 10) + 1 : 2 * ((i0 + 1) / 2 + 10);
            int reach = high ? 2 : 1;
            for (uint64_t i = i0; i < i1; i++) {
                int64_t k = (int64_t)i - (int64_t)c;
                int32_t want = llabs(k) <= reach ? (high ? g1 : g0)[k + reach] : 0;
                CHECK_EQ(line[i - i0], want);
            }
        }
    }
}

/* ------------------------------------------------------------ 1-D 9/7 */

static double max_abs_float(const float *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

static void test_dwt97_line_round_trip(void)
{
    float line[600], copy[600], scratch[DWT_LINE_SCRATCH(600)];
    double worst = 0;
    for (int iteration = 0; iteration < 3000; iteration++) {
        uint32_t n = random_length(600), i0 = random_origin(n);
        double range = ldexp(1.0, (int)test_random_range(0, 24));
        for (uint32_t i = 0; i < n; i++)
            copy[i] = line[i] = (float)((double)test_random_range(-1000000, 1000000) / 1e6 * range);
        double m = max_abs_float(copy, n);
        dwt_forward_97_line(line, i0, i0 + n, scratch);
        dwt_inverse_97_line(line, i0, i0 + n, scratch);
        double error = 0;
        for (uint32_t i = 0; i < n; i++)
            error = fmax(error, fabs((double)line[i] - copy[i]));
        if (m > 0)
            worst = fmax(worst, error / (U_FLOAT * m));
        if (error > 530 * U_FLOAT * m) {
            fprintf(stderr, "9/7 line of %u at %u: error %g, max %g\n", n, i0, error, m);
            CHECK(false);
            return;
        }
    }
    printf("largest 9/7 line round-trip error: %.2f u max|x| (bound 530)\n", worst);
}

/* The analysis filter taps of the 9/7 (F.4.8.2; low-pass DC gain
 * 1, high-pass Nyquist gain 2). The lifting differs from them by binary32
 * rounding: the forward part of the analysis above gives about 50 u M, plus
 * the rounding of the lifting constants to float; 128 u M is allowed. */
static const double h0_97[5] = {0.6029490182363579, 0.2668641184428723, -0.07822326652898785,
                                -0.01686411844287495, 0.02674875741080976};
static const double h1_97[4] = {1.115087052456994, -0.5912717631142470, -0.05754352622849957,
                                0.09127176311424948};

static void test_dwt97_line_matches_convolution(void)
{
    float x[300], y[300], scratch[DWT_LINE_SCRATCH(300)];
    double worst = 0;
    for (int iteration = 0; iteration < 1000; iteration++) {
        uint32_t n = (uint32_t)test_random_range(2, 300), i0 = random_origin(n), i1 = i0 + n;
        double range = ldexp(1.0, (int)test_random_range(0, 24));
        for (uint32_t i = 0; i < n; i++)
            y[i] = x[i] = (float)((double)test_random_range(-1000000, 1000000) / 1e6 * range);
        double m = max_abs_float(x, n);
        dwt_forward_97_line(y, i0, i1, scratch);
        for (uint64_t c = i0; c < i1; c++) {
            bool low = c % 2 == 0;
            double conv = 0;
            for (int k = low ? -4 : -3; k <= (low ? 4 : 3); k++)
                conv += (low ? h0_97 : h1_97)[abs(k)] * x[mirror((int64_t)c + k, i0, i1) - i0];
            double got = y[output_position(i0, i1, c)], d = fabs(got - conv);
            if (m > 0)
                worst = fmax(worst, d / (U_FLOAT * m));
            if (d > 128 * U_FLOAT * m) {
                fprintf(stderr, "9/7 n=%u i0=%u coordinate %llu: lifting %.9g, convolution %.9g\n",
                        n, i0, (unsigned long long)c, got, conv);
                CHECK(false);
                return;
            }
        }
    }
    printf("largest 9/7 lifting - convolution difference: %.2f u max|x| (bound 128)\n", worst);
}

/* Synthesis filters of the 9/7: g0(n) = (-1)^n h1(n) (DC gain 2) and
 * g1(n) = (-1)^n h0(n) (Nyquist gain 1): the 9/7 synthesis filter taps. */
static void test_dwt97_line_synthesis_taps(void)
{
    static const double g0[4] = {1.115087052456994, 0.5912717631142470, -0.05754352622849957,
                                 -0.09127176311424948};
    static const double g1[5] = {0.6029490182363579, -0.2668641184428723, -0.07822326652898785,
                                 0.01686411844287495, 0.02674875741080976};
    float line[40], scratch[DWT_LINE_SCRATCH(40)];
    for (uint32_t parity = 0; parity < 2; parity++) {
        uint32_t i0 = 4000 + parity, i1 = i0 + 40;
        for (int high = 0; high < 2; high++) {
            size_t nl = low_count(i0, i1), index = high ? nl + 10 : 10;
            memset(line, 0, sizeof line);
            line[index] = 1.0f;
            dwt_inverse_97_line(line, i0, i1, scratch);
            uint64_t c = high ? 2 * (i0 / 2 + 10) + 1 : 2 * ((i0 + 1) / 2 + 10);
            int reach = high ? 4 : 3;
            for (uint64_t i = i0; i < i1; i++) {
                int64_t k = llabs((int64_t)i - (int64_t)c);
                double want = k <= reach ? (high ? g1 : g0)[k] : 0.0;
                CHECK(fabs(line[i - i0] - want) <= 1e-6);
            }
        }
    }
}

/* 1D_SD / 1D_SR: a lone sample at an odd coordinate doubles, at an even
 * one stays; the inverse halves it back. */
static void test_single_sample_rule(void)
{
    int32_t scratch[DWT_LINE_SCRATCH(1)];
    float fscratch[DWT_LINE_SCRATCH(1)];
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t i0 = random_origin(1);
        int32_t v = random_sample(24), x = v;
        float f = (float)v * 0.37f, g = f;
        dwt_forward_53_line(&x, i0, i0 + 1, scratch);
        dwt_forward_97_line(&g, i0, i0 + 1, fscratch);
        CHECK_EQ(x, i0 % 2 ? 2 * v : v);
        CHECK(g == (i0 % 2 ? 2.0f * f : f));
        dwt_inverse_53_line(&x, i0, i0 + 1, scratch);
        dwt_inverse_97_line(&g, i0, i0 + 1, fscratch);
        CHECK_EQ(x, v);
        CHECK(g == f);
    }
    /* An empty line is left alone. */
    int32_t untouched = 7;
    dwt_forward_53_line(&untouched, 5, 5, scratch);
    dwt_inverse_53_line(&untouched, 5, 5, scratch);
    CHECK_EQ(untouched, 7);
}

/* ------------------------------------------------------------ geometry */

static bool rect_equal(dwt_rect a, dwt_rect b)
{
    return a.x0 == b.x0 && a.y0 == b.y0 && a.x1 == b.x1 && a.y1 == b.y1;
}

/* Eq. B-15 by hand for tile [3, 17) x [0, 5), and at the ends of the range. */
static void test_band_rect_table(void)
{
    static const struct {
        dwt_rect tile;
        unsigned level;
        dwt_band band;
        dwt_rect want;
    } table[] = {
        {{3, 0, 17, 5}, 0, DWT_BAND_LL, {3, 0, 17, 5}},
        {{3, 0, 17, 5}, 0, DWT_BAND_HH, {0, 0, 0, 0}},
        {{3, 0, 17, 5}, 1, DWT_BAND_LL, {2, 0, 9, 3}},
        {{3, 0, 17, 5}, 1, DWT_BAND_HL, {1, 0, 8, 3}},
        {{3, 0, 17, 5}, 1, DWT_BAND_LH, {2, 0, 9, 2}},
        {{3, 0, 17, 5}, 1, DWT_BAND_HH, {1, 0, 8, 2}},
        {{3, 0, 17, 5}, 2, DWT_BAND_LL, {1, 0, 5, 2}},
        {{3, 0, 17, 5}, 2, DWT_BAND_HL, {1, 0, 4, 2}},
        {{3, 0, 17, 5}, 2, DWT_BAND_LH, {1, 0, 5, 1}},
        {{3, 0, 17, 5}, 2, DWT_BAND_HH, {1, 0, 4, 1}},
        {{3, 0, 17, 5}, 3, DWT_BAND_LL, {1, 0, 3, 1}},
        {{3, 0, 17, 5}, 3, DWT_BAND_HL, {0, 0, 2, 1}},
        {{3, 0, 17, 5}, 3, DWT_BAND_LH, {1, 0, 3, 1}},
        {{3, 0, 17, 5}, 3, DWT_BAND_HH, {0, 0, 2, 1}},
        {{4294967291u, 7, 4294967295u, 8}, 1, DWT_BAND_LL, {2147483646u, 4, 2147483648u, 4}},
        {{4294967291u, 7, 4294967295u, 8}, 1, DWT_BAND_HH, {2147483645u, 3, 2147483647u, 4}},
        {{4294967291u, 7, 4294967295u, 8}, 32, DWT_BAND_LL, {1, 1, 1, 1}},
        {{4294967291u, 7, 4294967295u, 8}, 32, DWT_BAND_HL, {1, 1, 1, 1}},
        {{0, 0, 4294967295u, 1}, 32, DWT_BAND_LL, {0, 0, 1, 1}},
        {{0, 0, 4294967295u, 1}, 32, DWT_BAND_HL, {0, 0, 1, 1}},
        {{0, 0, 4294967295u, 1}, 32, DWT_BAND_LH, {0, 0, 1, 0}},
        {{0, 0, 1, 1}, 32, DWT_BAND_HH, {0, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        dwt_rect got = dwt_band_rect(table[i].tile, table[i].level, table[i].band);
        if (!rect_equal(got, table[i].want)) {
            fprintf(stderr, "row %zu: got [%u,%u)x[%u,%u)\n", i, got.x0, got.x1, got.y0, got.y1);
            CHECK(false);
        }
    }
}

/* The rect of LL at level n by repeated halving (ceil(ceil(x/2)/2) =
 * ceil(x/4)): an independent form of eq. B-15 with zero offsets. */
static dwt_rect halve(dwt_rect r, unsigned times)
{
    for (unsigned i = 0; i < times; i++) {
        r.x0 = (uint32_t)(((uint64_t)r.x0 + 1) / 2), r.x1 = (uint32_t)(((uint64_t)r.x1 + 1) / 2);
        r.y0 = (uint32_t)(((uint64_t)r.y0 + 1) / 2), r.y1 = (uint32_t)(((uint64_t)r.y1 + 1) / 2);
    }
    return r;
}

/* Bands split their parent exactly, placements agree with band rects and
 * with the Mallat layout, and all placements tile the buffer once. */
static void test_band_rect_partition(void)
{
    static unsigned char cover[64 * 64];
    for (int iteration = 0; iteration < 400; iteration++) {
        bool small = iteration % 2 == 0;
        uint32_t w = small ? (uint32_t)test_random_range(1, 64) : (uint32_t)test_random_range(1, 0x7FFFFFFF);
        uint32_t h = small ? (uint32_t)test_random_range(1, 64) : (uint32_t)test_random_range(1, 0x7FFFFFFF);
        uint32_t x0 = random_origin(w), y0 = random_origin(h);
        dwt_rect tile = {x0, y0, x0 + w, y0 + h};
        unsigned levels = (unsigned)test_random_range(1, 32);
        if (small)
            memset(cover, 0, sizeof cover);
        for (unsigned n = 1; n <= levels; n++) {
            dwt_rect parent = dwt_band_rect(tile, n - 1, DWT_BAND_LL);
            REQUIRE(rect_equal(parent, halve(tile, n - 1)));
            dwt_rect b[4];
            for (int k = 0; k < 4; k++)
                b[k] = dwt_band_rect(tile, n, (dwt_band)k);
            /* Widths: LL + HL = parent, LH + HH = parent; heights likewise. */
            CHECK_EQ((uint64_t)(b[0].x1 - b[0].x0) + (b[1].x1 - b[1].x0), parent.x1 - parent.x0);
            CHECK_EQ((uint64_t)(b[2].x1 - b[2].x0) + (b[3].x1 - b[3].x0), parent.x1 - parent.x0);
            CHECK_EQ((uint64_t)(b[0].y1 - b[0].y0) + (b[2].y1 - b[2].y0), parent.y1 - parent.y0);
            CHECK_EQ((uint64_t)(b[1].y1 - b[1].y0) + (b[3].y1 - b[3].y0), parent.y1 - parent.y0);
            for (int k = 0; k < 4; k++) {
                uint32_t x, y, bw, bh;
                dwt_band_placement(tile, n, (dwt_band)k, &x, &y, &bw, &bh);
                CHECK_EQ(bw, b[k].x1 - b[k].x0);
                CHECK_EQ(bh, b[k].y1 - b[k].y0);
                CHECK_EQ(x, (k & 1) ? b[0].x1 - b[0].x0 : 0);
                CHECK_EQ(y, (k & 2) ? b[0].y1 - b[0].y0 : 0);
                if (small && (k != 0 || n == levels))
                    for (uint32_t j = y; j < y + bh; j++)
                        for (uint32_t i = x; i < x + bw; i++)
                            cover[j * 64 + i]++;
            }
        }
        if (small)
            for (uint32_t j = 0; j < 64; j++)
                for (uint32_t i = 0; i < 64; i++)
                    if (cover[j * 64 + i] != (i < w && j < h)) {
                        fprintf(stderr, "tile %ux%u, %u levels: (%u,%u) covered %d times\n", w, h,
                                levels, i, j, cover[j * 64 + i]);
                        CHECK(false);
                        return;
                    }
    }
}

/* ------------------------------------------------------------ 2-D */

/* What a 1-D transform does to a constant line of value v: low-pass v and
 * high-pass 0 from two samples on; a lone sample stays low (even) or becomes
 * a doubled high-pass (odd). */
static void constant_line(uint32_t i0, uint32_t i1, double v, double *low, double *high)
{
    *low = v, *high = 0;
    if (i1 - i0 == 1 && i0 % 2)
        *high = 2 * v;
}

/* A constant image: every band, found by dwt_band_placement, holds what the
 * level-by-level constant model says (5/3 exactly, 9/7 within 1e-5). */
static void test_constant_image_layout(void)
{
    for (int iteration = 0; iteration < 300; iteration++) {
        uint32_t w = (uint32_t)test_random_range(1, 40), h = (uint32_t)test_random_range(1, 40);
        uint32_t x0 = random_origin(w), y0 = random_origin(h);
        dwt_rect tile = {x0, y0, x0 + w, y0 + h};
        unsigned levels = (unsigned)test_random_range(0, 10);
        int32_t c = random_sample(16);
        int32_t *a = malloc((size_t)w * h * sizeof *a);
        float *f = malloc((size_t)w * h * sizeof *f);
        REQUIRE(a && f);
        for (size_t i = 0; i < (size_t)w * h; i++)
            a[i] = c, f[i] = (float)c;
        REQUIRE(dwt_forward_53(a, w, tile, levels) == GJ2K_OK);
        REQUIRE(dwt_forward_97(f, w, tile, levels) == GJ2K_OK);
        double ll = c;
        bool ok = true;
        for (unsigned n = 1; n <= levels && ok; n++) {
            dwt_rect p = halve(tile, n - 1);
            if (p.x1 == p.x0 || p.y1 == p.y0)
                break;
            double vl, vh, value[4], tolerance = 1e-5 * (4 * fabs(ll) + 1);
            constant_line(p.y0, p.y1, ll, &vl, &vh);
            constant_line(p.x0, p.x1, vl, &value[DWT_BAND_LL], &value[DWT_BAND_HL]);
            constant_line(p.x0, p.x1, vh, &value[DWT_BAND_LH], &value[DWT_BAND_HH]);
            for (int k = (n == levels ? 0 : 1); k < 4; k++) {
                uint32_t bx, by, bw, bh;
                dwt_band_placement(tile, n, (dwt_band)k, &bx, &by, &bw, &bh);
                for (uint32_t y = by; y < by + bh; y++)
                    for (uint32_t x = bx; x < bx + bw; x++) {
                        size_t i = (size_t)y * w + x;
                        ok = ok && a[i] == (int32_t)value[k];
                        ok = ok && fabs(f[i] - value[k]) <= tolerance;
                    }
            }
            ll = value[DWT_BAND_LL];
        }
        if (levels == 0)
            for (size_t i = 0; i < (size_t)w * h; i++)
                ok = ok && a[i] == c && f[i] == (float)c;
        if (!ok) {
            fprintf(stderr, "constant %d, tile [%u,%u)x[%u,%u), %u levels\n", c, tile.x0, tile.x1,
                    tile.y0, tile.y1, levels);
            CHECK(false);
        }
        free(a), free(f);
        if (!ok)
            return;
    }
}

/* A random tile for the 2-D tests: sizes 1..max (often small or thin). */
static dwt_rect random_tile(uint32_t max)
{
    uint32_t w = random_length(max), h = random_length(max);
    if (test_random() % 4 == 0) {
        if (test_random() % 2)
            w = 1;
        else
            h = 1;
    }
    uint32_t x0 = random_origin(w), y0 = random_origin(h);
    dwt_rect tile = {x0, y0, x0 + w, y0 + h};
    return tile;
}

static void test_dwt53_2d_round_trip(void)
{
    for (int iteration = 0; iteration < 400; iteration++) {
        dwt_rect tile = random_tile(300);
        size_t w = tile.x1 - tile.x0, h = tile.y1 - tile.y0;
        size_t stride = w + (size_t)test_random_range(0, 5);
        unsigned levels = (unsigned)test_random_range(0, 32), bits = (unsigned)test_random_range(1, 24);
        int32_t *a = malloc(stride * h * sizeof *a), *copy = malloc(stride * h * sizeof *a);
        REQUIRE(a && copy);
        for (size_t i = 0; i < stride * h; i++)
            copy[i] = a[i] = random_sample(bits);
        REQUIRE(dwt_forward_53(a, stride, tile, levels) == GJ2K_OK);
        bool padding_kept = true;
        for (size_t y = 0; y < h; y++)
            for (size_t x = w; x < stride; x++)
                padding_kept = padding_kept && a[y * stride + x] == copy[y * stride + x];
        CHECK(padding_kept);
        REQUIRE(dwt_inverse_53(a, stride, tile, levels) == GJ2K_OK);
        bool same = memcmp(a, copy, stride * h * sizeof *a) == 0;
        if (!same)
            fprintf(stderr, "5/3 tile [%u,%u)x[%u,%u), %u levels, %u bits does not come back\n",
                    tile.x0, tile.x1, tile.y0, tile.y1, levels, bits);
        free(a), free(copy);
        REQUIRE(same);
    }
}

static void test_dwt97_2d_round_trip(void)
{
    double worst = 0;
    for (int iteration = 0; iteration < 400; iteration++) {
        dwt_rect tile = random_tile(300);
        size_t w = tile.x1 - tile.x0, h = tile.y1 - tile.y0;
        unsigned levels = (unsigned)test_random_range(0, 32);
        double range = ldexp(1.0, (int)test_random_range(0, 24));
        float *a = malloc(w * h * sizeof *a), *copy = malloc(w * h * sizeof *a);
        REQUIRE(a && copy);
        for (size_t i = 0; i < w * h; i++)
            copy[i] = a[i] = (float)((double)test_random_range(-1000000, 1000000) / 1e6 * range);
        double m = max_abs_float(copy, w * h);
        REQUIRE(dwt_forward_97(a, w, tile, levels) == GJ2K_OK);
        REQUIRE(dwt_inverse_97(a, w, tile, levels) == GJ2K_OK);
        unsigned passes = 0;
        for (unsigned n = 1; n <= levels; n++) {
            dwt_rect p = halve(tile, n - 1);
            passes += 2 * (p.x1 > p.x0 && p.y1 > p.y0);
        }
        double error = 0;
        for (size_t i = 0; i < w * h; i++)
            error = fmax(error, fabs((double)a[i] - copy[i]));
        if (m > 0)
            worst = fmax(worst, error / (U_FLOAT * m * (passes ? passes : 1)));
        bool ok = error <= 64 * U_FLOAT * m * passes;
        if (!ok)
            fprintf(stderr, "9/7 tile [%u,%u)x[%u,%u), %u levels: error %g, max %g\n", tile.x0,
                    tile.x1, tile.y0, tile.y1, levels, error, m);
        free(a), free(copy);
        REQUIRE(ok);
    }
    printf("largest 9/7 2-D round-trip error: %.2f u max|x| per pass (bound 64)\n", worst);
}

/* The obvious implementation of 2D_SD and 2D_SR from the 1-D functions: one
 * column at a time, levels from the halved tile. */
static void separable_53(int32_t *a, size_t stride, dwt_rect tile, unsigned levels, bool forward)
{
    size_t w = tile.x1 - tile.x0, h = tile.y1 - tile.y0, longest = w > h ? w : h;
    int32_t *col = malloc(h * sizeof *col), *scratch = malloc(DWT_LINE_SCRATCH(longest) * sizeof *col);
    for (unsigned i = 0; i < levels; i++) {
        dwt_rect p = halve(tile, forward ? i : levels - 1 - i);
        for (int pass = 0; pass < 2; pass++) {
            bool columns = (pass == 0) == forward;
            for (size_t k = 0; k < (columns ? p.x1 - p.x0 : p.y1 - p.y0); k++) {
                if (columns) {
                    for (size_t y = 0; y < p.y1 - p.y0; y++)
                        col[y] = a[y * stride + k];
                    (forward ? dwt_forward_53_line : dwt_inverse_53_line)(col, p.y0, p.y1, scratch);
                    for (size_t y = 0; y < p.y1 - p.y0; y++)
                        a[y * stride + k] = col[y];
                } else {
                    (forward ? dwt_forward_53_line : dwt_inverse_53_line)(a + k * stride, p.x0, p.x1,
                                                                           scratch);
                }
            }
        }
    }
    free(col), free(scratch);
}

static void separable_97(float *a, size_t stride, dwt_rect tile, unsigned levels, bool forward)
{
    size_t w = tile.x1 - tile.x0, h = tile.y1 - tile.y0, longest = w > h ? w : h;
    float *col = malloc(h * sizeof *col), *scratch = malloc(DWT_LINE_SCRATCH(longest) * sizeof *col);
    for (unsigned i = 0; i < levels; i++) {
        dwt_rect p = halve(tile, forward ? i : levels - 1 - i);
        for (int pass = 0; pass < 2; pass++) {
            bool columns = (pass == 0) == forward;
            for (size_t k = 0; k < (columns ? p.x1 - p.x0 : p.y1 - p.y0); k++) {
                if (columns) {
                    for (size_t y = 0; y < p.y1 - p.y0; y++)
                        col[y] = a[y * stride + k];
                    (forward ? dwt_forward_97_line : dwt_inverse_97_line)(col, p.y0, p.y1, scratch);
                    for (size_t y = 0; y < p.y1 - p.y0; y++)
                        a[y * stride + k] = col[y];
                } else {
                    (forward ? dwt_forward_97_line : dwt_inverse_97_line)(a + k * stride, p.x0, p.x1,
                                                                           scratch);
                }
            }
        }
    }
    free(col), free(scratch);
}

/* dwt_forward_* and dwt_inverse_* agree bit for bit with the separable
 * reference (columns then rows forward, rows then columns inverse). */
static void test_dwt_2d_matches_separable_reference(void)
{
    for (int iteration = 0; iteration < 150; iteration++) {
        dwt_rect tile = random_tile(160);
        size_t w = tile.x1 - tile.x0, h = tile.y1 - tile.y0, stride = w + 3;
        unsigned levels = (unsigned)test_random_range(0, 8);
        int32_t *a = malloc(stride * h * sizeof *a), *b = malloc(stride * h * sizeof *b);
        float *f = malloc(stride * h * sizeof *f), *g = malloc(stride * h * sizeof *g);
        REQUIRE(a && b && f && g);
        for (size_t i = 0; i < stride * h; i++) {
            a[i] = b[i] = random_sample(16);
            f[i] = g[i] = (float)a[i] * 0.125f;
        }
        bool ok = true;
        for (int direction = 0; direction < 2; direction++) {
            bool forward = direction == 0;
            REQUIRE((forward ? dwt_forward_53 : dwt_inverse_53)(a, stride, tile, levels) == GJ2K_OK);
            REQUIRE((forward ? dwt_forward_97 : dwt_inverse_97)(f, stride, tile, levels) == GJ2K_OK);
            separable_53(b, stride, tile, levels, forward);
            separable_97(g, stride, tile, levels, forward);
            ok = ok && memcmp(a, b, stride * h * sizeof *a) == 0;
            ok = ok && memcmp(f, g, stride * h * sizeof *f) == 0;
        }
        if (!ok)
            fprintf(stderr, "tile [%u,%u)x[%u,%u), %u levels differs from the reference\n", tile.x0,
                    tile.x1, tile.y0, tile.y1, levels);
        free(a), free(b), free(f), free(g);
        REQUIRE(ok);
    }
}

/* Empty tiles and zero levels change nothing; a 1x1 tile follows the
 * single-sample rule in each direction (x4 at odd, odd, in HH). */
static void test_dwt_2d_degenerate_tiles(void)
{
    int32_t a[4] = {1, 2, 3, 4};
    float f[4] = {1, 2, 3, 4};
    dwt_rect empty_x = {5, 5, 5, 7}, empty_y = {5, 5, 7, 5}, two = {5, 5, 7, 7};
    CHECK(dwt_forward_53(a, 2, empty_x, 3) == GJ2K_OK);
    CHECK(dwt_inverse_53(a, 2, empty_y, 3) == GJ2K_OK);
    CHECK(dwt_forward_97(f, 2, empty_y, 3) == GJ2K_OK);
    CHECK(dwt_inverse_97(f, 2, empty_x, 3) == GJ2K_OK);
    CHECK(dwt_forward_53(a, 2, two, 0) == GJ2K_OK);
    CHECK(dwt_forward_97(f, 2, two, 0) == GJ2K_OK);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(a[i], i + 1);
        CHECK(f[i] == (float)(i + 1));
    }
    for (uint32_t parity = 0; parity < 4; parity++) {
        uint32_t x0 = 0xFFFFFFF0u + (parity & 1), y0 = 12 + (parity >> 1);
        dwt_rect one = {x0, y0, x0 + 1, y0 + 1};
        unsigned levels = (unsigned)test_random_range(1, 32);
        /* Follow the sample down the levels: it stays in LL while both of
         * its coordinates are even, and leaves for HL, LH or HH, doubled
         * once for each odd coordinate, at the first level where one is odd. */
        int factor = 1;
        unsigned leaves = 0;
        dwt_band band = DWT_BAND_LL;
        for (unsigned n = 1; n <= levels && leaves == 0; n++) {
            dwt_rect p = halve(one, n - 1);
            if (p.x0 % 2 || p.y0 % 2) {
                factor = (p.x0 % 2 ? 2 : 1) * (p.y0 % 2 ? 2 : 1);
                band = (dwt_band)((p.x0 % 2) | (p.y0 % 2) << 1);
                leaves = n;
            }
        }
        int32_t v = -12345, x = v;
        float fv = 3.25f, fx = fv;
        REQUIRE(dwt_forward_53(&x, 1, one, levels) == GJ2K_OK);
        REQUIRE(dwt_forward_97(&fx, 1, one, levels) == GJ2K_OK);
        CHECK_EQ(x, v * factor);
        CHECK(fx == fv * (float)factor);
        /* The sample is in the band the placement names. */
        uint32_t bx, by, bw, bh;
        dwt_band_placement(one, leaves ? leaves : levels, band, &bx, &by, &bw, &bh);
        CHECK(bx == 0 && by == 0 && bw == 1 && bh == 1);
        REQUIRE(dwt_inverse_53(&x, 1, one, levels) == GJ2K_OK);
        REQUIRE(dwt_inverse_97(&fx, 1, one, levels) == GJ2K_OK);
        CHECK_EQ(x, v);
        CHECK(fx == fv);
    }
}

/* The multi-level transforms on a pool of threads give the single
 * thread's results bit for bit: random sizes (some large enough to be
 * shared out), origins and levels, each direction and filter. */
static void test_dwt_2d_pool_matches_serial(void)
{
    parallel_pool *pool = NULL;
    REQUIRE(parallel_pool_create(4, &pool, NULL) == GJ2K_OK);
    for (int round = 0; round < 24; round++) {
        uint32_t w = round % 3 ? (uint32_t)test_random_range(1, 200)
                               : (uint32_t)test_random_range(300, 700);
        uint32_t h = round % 3 ? (uint32_t)test_random_range(1, 200)
                               : (uint32_t)test_random_range(300, 700);
        uint32_t x0 = random_origin(w), y0 = random_origin(h);
        dwt_rect r = {x0, y0, x0 + w, y0 + h};
        unsigned levels = (unsigned)test_random_range(0, 7);
        size_t n = (size_t)w * h;
        int32_t *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
        float *f = xmalloc(n * sizeof *f), *g = xmalloc(n * sizeof *g);
        for (size_t i = 0; i < n; i++) {
            a[i] = b[i] = random_sample(12);
            f[i] = g[i] = (float)random_sample(12) * 0.75f;
        }
        CHECK(dwt_forward_53(a, w, r, levels) == GJ2K_OK);
        CHECK(dwt_forward_53_on(pool, b, w, r, levels) == GJ2K_OK);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        CHECK(dwt_inverse_53(a, w, r, levels) == GJ2K_OK);
        CHECK(dwt_inverse_53_on(pool, b, w, r, levels) == GJ2K_OK);
        CHECK(memcmp(a, b, n * sizeof *a) == 0);
        CHECK(dwt_forward_97(f, w, r, levels) == GJ2K_OK);
        CHECK(dwt_forward_97_on(pool, g, w, r, levels) == GJ2K_OK);
        CHECK(memcmp(f, g, n * sizeof *f) == 0);
        CHECK(dwt_inverse_97_interop(f, w, r, levels) == GJ2K_OK);
        CHECK(dwt_inverse_97_interop_on(pool, g, w, r, levels) == GJ2K_OK);
        CHECK(memcmp(f, g, n * sizeof *f) == 0);
        free(a), free(b), free(f), free(g);
    }
    parallel_pool_destroy(pool);
}

/* The 32-bit lifting steps equal the 64-bit ones on any int32 inputs. */
static void test_dwt53_steps_match_64bit(void)
{
    static const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -3, -2, -1, 0, 1, 2, 3, INT32_MAX - 1,
                                    INT32_MAX};
    for (int i = 0; i < 200000; i++) {
        int32_t a = i < 121 ? edges[i % 11] : (int32_t)(uint32_t)test_random();
        int32_t b = i < 121 ? edges[i / 11] : (int32_t)(uint32_t)test_random();
        if (i >= 121 && i % 3 == 0) /* small values too */
            a = (int32_t)test_random_range(-1000, 1000), b = (int32_t)test_random_range(-1000, 1000);
        CHECK_EQ(dwt53_half(a, b), (int32_t)(((int64_t)a + b) >> 1));
        CHECK_EQ(dwt53_quarter(a, b), (int32_t)(((int64_t)a + b + 2) >> 2));
        CHECK_EQ(dwt53_add(a, b), (int32_t)(uint32_t)(uint64_t)((int64_t)a + b));
        CHECK_EQ(dwt53_sub(a, b), (int32_t)(uint32_t)(uint64_t)((int64_t)a - b));
    }
}

/* Strips of columns lifted across rows (the default) give the lines'
 * bits: every wavelet and direction, odd sizes and origins, any values. */
static void test_dwt_columns_match_lines(void)
{
    parallel_pool *pool = NULL;
    REQUIRE(parallel_pool_create(3, &pool, NULL) == GJ2K_OK);
    for (int round = 0; round < 300; round++) {
        dwt_rect r = random_tile(round % 10 ? 150 : 600);
        uint32_t w = r.x1 - r.x0, h = r.y1 - r.y0;
        unsigned levels = (unsigned)test_random_range(0, 7);
        unsigned bits = round % 4 == 0 ? 32 : 12;
        size_t n = (size_t)w * h;
        int32_t *a = xmalloc(n * 4), *b = xmalloc(n * 4), *c = xmalloc(n * 4);
        for (int kind = 0; kind < 5; kind++) { /* 5/3 both ways, 9/7 forward, inverse, interop */
            bool reversible = kind < 2, forward = kind == 0 || kind == 2, interop = kind == 4;
            for (size_t i = 0; i < n; i++) {
                if (reversible) {
                    a[i] = random_sample(bits);
                } else {
                    float f = (float)random_sample(12) * 0.37f;
                    memcpy(&a[i], &f, 4);
                }
            }
            memcpy(b, a, n * 4);
            memcpy(c, a, n * 4);
            CHECK(dwt_transform_2d(NULL, DWT_VERTICAL_LINES, a, w, r, levels, reversible, forward,
                                   interop) == GJ2K_OK);
            CHECK(dwt_transform_2d(NULL, DWT_VERTICAL_STRIPS, b, w, r, levels, reversible, forward,
                                   interop) == GJ2K_OK);
            CHECK(dwt_transform_2d(pool, DWT_VERTICAL_STRIPS, c, w, r, levels, reversible, forward,
                                   interop) == GJ2K_OK);
            if (memcmp(a, b, n * 4) != 0 || memcmp(a, c, n * 4) != 0) {
                fprintf(stderr, "kind %d, %ux%u at (%u,%u), %u levels: strips differ\n", kind, w, h,
                        r.x0, r.y0, levels);
                CHECK(false);
            }
        }
        free(a), free(b), free(c);
    }
    parallel_pool_destroy(pool);
}

static const test_case cases[] = {
    {"dwt53_steps_match_64bit", test_dwt53_steps_match_64bit},
    {"dwt_columns_match_lines", test_dwt_columns_match_lines},
    {"dwt_2d_pool_matches_serial", test_dwt_2d_pool_matches_serial},
    {"dwt53_line_round_trip", test_dwt53_line_round_trip},
    {"dwt53_line_matches_convolution", test_dwt53_line_matches_convolution},
    {"dwt53_line_synthesis_taps", test_dwt53_line_synthesis_taps},
    {"dwt97_line_round_trip", test_dwt97_line_round_trip},
    {"dwt97_line_matches_convolution", test_dwt97_line_matches_convolution},
    {"dwt97_line_synthesis_taps", test_dwt97_line_synthesis_taps},
    {"single_sample_rule", test_single_sample_rule},
    {"band_rect_table", test_band_rect_table},
    {"band_rect_partition", test_band_rect_partition},
    {"constant_image_layout", test_constant_image_layout},
    {"dwt53_2d_round_trip", test_dwt53_2d_round_trip},
    {"dwt97_2d_round_trip", test_dwt97_2d_round_trip},
    {"dwt_2d_matches_separable_reference", test_dwt_2d_matches_separable_reference},
    {"dwt_2d_degenerate_tiles", test_dwt_2d_degenerate_tiles},
};

TEST_MAIN(cases)
