/* test_component_transform.c - RCT and ICT (T.800 Annex G.2, G.3) and the
 * DC level shift (G.1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "component_transform.h"
#include "level_shift.h"
#include "test_harness.h"

#define U_FLOAT (1.0 / 16777216.0) /* 2^-24 */
#define COUNT 4096

static int32_t random_signed(unsigned bits)
{
    int64_t half = (int64_t)1 << (bits - 1);
    return (int32_t)test_random_range(-half, half - 1);
}

/* Exact round trip for level-shifted samples of 1..30 bits. */
static void test_rct_round_trip(void)
{
    static int32_t c[3][COUNT], copy[3][COUNT];
    for (int iteration = 0; iteration < 60; iteration++) {
        unsigned bits = (unsigned)test_random_range(1, 30);
        size_t count = (size_t)test_random_range(0, COUNT);
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < count; i++)
                copy[k][i] = c[k][i] = random_signed(bits);
        rct_forward(c[0], c[1], c[2], count);
        rct_inverse(c[0], c[1], c[2], count);
        for (int k = 0; k < 3; k++)
            if (memcmp(c[k], copy[k], count * sizeof c[k][0]) != 0) {
                fprintf(stderr, "RCT of %u-bit samples does not come back\n", bits);
                CHECK(false);
                return;
            }
    }
}

/* Eq. G-5 by hand and against a floor computed in double. */
static void test_rct_forward_formula(void)
{
    static const int32_t table[][6] = {
        /* R, G, B -> Y0, Y1, Y2 */
        {10, 20, 30, 20, 10, -10}, {-1, 0, 0, -1, 0, -1}, {-3, -2, -2, -3, 0, -1},
        {255, 0, 0, 63, 0, 255},   {0, 0, 255, 63, 255, 0}, {-128, 127, -128, -1, -255, -255},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int32_t r = table[i][0], g = table[i][1], b = table[i][2];
        rct_forward(&r, &g, &b, 1);
        CHECK_EQ(r, table[i][3]);
        CHECK_EQ(g, table[i][4]);
        CHECK_EQ(b, table[i][5]);
        rct_inverse(&r, &g, &b, 1);
        CHECK_EQ(r, table[i][0]);
        CHECK_EQ(g, table[i][1]);
        CHECK_EQ(b, table[i][2]);
    }
    for (int i = 0; i < 20000; i++) {
        int32_t r = random_signed(17), g = random_signed(17), b = random_signed(17);
        int32_t y0 = r, y1 = g, y2 = b;
        rct_forward(&y0, &y1, &y2, 1);
        CHECK_EQ(y0, (int64_t)floor(((double)r + 2.0 * g + b) / 4.0));
        CHECK_EQ(y1, b - g);
        CHECK_EQ(y2, r - g);
    }
}

/* Eq. G-9 and G-10 with the standard's decimal coefficients, in double. */
static const double ict[3][3] = {{0.299, 0.587, 0.114},
                                 {-0.16875, -0.33126, 0.5},
                                 {0.5, -0.41869, -0.08131}};
static const double ict_inv[3][3] = {{1.0, 0.0, 1.402},
                                     {1.0, -0.34413, -0.71414},
                                     {1.0, 1.772, 0.0}};

static float random_value(double range)
{
    return (float)((double)test_random_range(-1000000, 1000000) / 1e6 * range);
}

/* Forward and inverse against the matrices in double. One row takes three
 * products and two sums, and each coefficient is off its decimal value by at
 * most u |c|: the error is below 6 u sum |c_j x_j|; 8 u is allowed. A wrong
 * digit in a coefficient moves the result by about 1e-5 |x| or more. */
static void test_ict_matches_matrix(void)
{
    for (int i = 0; i < 20000; i++) {
        double range = ldexp(1.0, (int)test_random_range(0, 20));
        float in[3] = {random_value(range), random_value(range), random_value(range)};
        for (int inverse = 0; inverse < 2; inverse++) {
            float out[3] = {in[0], in[1], in[2]};
            (inverse ? ict_inverse : ict_forward)(&out[0], &out[1], &out[2], 1);
            const double(*m)[3] = inverse ? ict_inv : ict;
            for (int row = 0; row < 3; row++) {
                double exact = 0, magnitude = 0;
                for (int j = 0; j < 3; j++) {
                    exact += m[row][j] * in[j];
                    magnitude += fabs(m[row][j] * in[j]);
                }
                if (fabs(out[row] - exact) > 8 * U_FLOAT * magnitude) {
                    fprintf(stderr, "ICT %s row %d: %.9g, exact %.9g\n",
                            inverse ? "inverse" : "forward", row, out[row], exact);
                    CHECK(false);
                    return;
                }
            }
        }
    }
}

/* The G-10 coefficients invert G-9 only to about 1e-5 (both are rounded to
 * five digits): the round trip differs from the input by (A B - I) x plus
 * rounding, so the bound is ||A B - I|| max|x| + 24 u * 4 max|x|. */
static void test_ict_round_trip(void)
{
    double mismatch = 0;
    for (int row = 0; row < 3; row++) {
        double sum = 0;
        for (int j = 0; j < 3; j++) {
            double p = 0;
            for (int k = 0; k < 3; k++)
                p += ict_inv[row][k] * ict[k][j];
            sum += fabs(p - (row == j));
        }
        mismatch = fmax(mismatch, sum);
    }
    CHECK(mismatch < 1e-4);
    static float c[3][COUNT], copy[3][COUNT];
    for (int iteration = 0; iteration < 40; iteration++) {
        double range = ldexp(1.0, (int)test_random_range(0, 24));
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < COUNT; i++)
                copy[k][i] = c[k][i] = random_value(range);
        ict_forward(c[0], c[1], c[2], COUNT);
        ict_inverse(c[0], c[1], c[2], COUNT);
        for (size_t i = 0; i < COUNT; i++) {
            double m = fmax(fabs(copy[0][i]), fmax(fabs(copy[1][i]), fabs(copy[2][i])));
            for (int k = 0; k < 3; k++)
                if (fabs((double)c[k][i] - copy[k][i]) > (mismatch + 96 * U_FLOAT) * m) {
                    fprintf(stderr, "ICT round trip: %.9g back as %.9g\n", copy[k][i], c[k][i]);
                    CHECK(false);
                    return;
                }
        }
    }
}

/* Forward subtracts 2^(p-1) from unsigned samples, inverse adds it back and
 * clamps to the precision's range. */
static void test_level_shift_round_trip(void)
{
    static int32_t s[1024], copy[1024];
    for (unsigned p = 1; p <= 31; p++)
        for (int is_signed = 0; is_signed < 2; is_signed++) {
            int64_t lo = is_signed ? -((int64_t)1 << (p - 1)) : 0;
            int64_t hi = is_signed ? ((int64_t)1 << (p - 1)) - 1 : ((int64_t)1 << p) - 1;
            int64_t offset = is_signed ? 0 : (int64_t)1 << (p - 1);
            for (size_t i = 0; i < 1024; i++)
                copy[i] = s[i] = (int32_t)(i < 2 ? (i ? hi : lo) : test_random_range(lo, hi));
            level_shift_forward(s, 1024, p, is_signed);
            for (size_t i = 0; i < 1024; i++)
                CHECK_EQ(s[i], copy[i] - offset);
            level_shift_inverse(s, 1024, p, is_signed);
            CHECK(memcmp(s, copy, sizeof s) == 0);
            /* Out-of-range values clamp. */
            int32_t out[4] = {(int32_t)(hi - offset + 1), (int32_t)(lo - offset - 1), INT32_MAX,
                              INT32_MIN};
            level_shift_inverse(out, 4, p, is_signed);
            CHECK_EQ(out[0], hi);
            CHECK_EQ(out[1], lo);
            CHECK_EQ(out[2], hi);
            CHECK_EQ(out[3], lo);
        }
}

/* Round half to even, then shift and clamp; NaN and huge values are
 * defined too. */
static void test_level_shift_inverse_float_rounding(void)
{
    static const struct {
        float v;
        unsigned precision;
        bool is_signed;
        int32_t want;
    } table[] = {
        {0.5f, 8, true, 0},       {1.5f, 8, true, 2},         {2.5f, 8, true, 2},
        {-0.5f, 8, true, 0},      {-1.5f, 8, true, -2},       {-2.5f, 8, true, -2},
        {0.49999997f, 8, true, 0}, {2.5000002f, 8, true, 3},   {127.5f, 8, true, 127},
        {-128.5f, 8, true, -128}, {-200.0f, 8, true, -128},   {0.5f, 8, false, 128},
        {-0.5f, 8, false, 128},   {126.5f, 8, false, 254},    {127.5f, 8, false, 255},
        {-128.5f, 8, false, 0},   {-127.5f, 8, false, 0},     {-126.5f, 8, false, 2},
        {3e9f, 16, false, 65535}, {-3e9f, 16, true, -32768},  {1e30f, 31, false, INT32_MAX},
        {NAN, 8, false, 128},     {INFINITY, 12, true, 2047}, {-INFINITY, 12, false, 0},
        {1023.5f, 12, true, 1024}, {1024.5f, 12, true, 1024},  {2047.49f, 12, true, 2047},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int32_t got;
        level_shift_inverse_float(&table[i].v, &got, 1, table[i].precision, table[i].is_signed);
        if (got != table[i].want) {
            fprintf(stderr, "row %zu: %.9g -> %d, want %d\n", i, table[i].v, got, table[i].want);
            CHECK(false);
        }
    }
    /* Agrees with rounding in double (ties to even) on random halves. */
    for (int i = 0; i < 20000; i++) {
        float v = (float)test_random_range(-70000, 70000) * 0.5f;
        int32_t got;
        level_shift_inverse_float(&v, &got, 1, 16, false);
        double r = nearbyint(v) + 32768;
        CHECK_EQ(got, r < 0 ? 0 : r > 65535 ? 65535 : r);
    }
    /* Whole arrays (the vectorised path, odd lengths) against lrintf, every
     * precision and signedness, values near and past the range, halves,
     * NaN and infinities. */
    for (int trial = 0; trial < 200; trial++) {
        unsigned precision = (unsigned)test_random_range(1, 32);
        bool is_signed = test_random() & 1;
        size_t n = (size_t)test_random_range(1, 301);
        float v[301];
        int32_t got[301];
        double span = ldexp(1.0, (int)(precision < 30 ? precision + 1 : 31));
        for (size_t i = 0; i < n; i++) {
            int kind = (int)test_random_range(0, 9);
            double x = ((double)test_random() / 4294967296.0 * 2.0 - 1.0) * span;
            v[i] = kind == 0   ? NAN
                   : kind == 1 ? (test_random() & 1 ? INFINITY : -INFINITY)
                   : kind < 5  ? (float)(floor(x) + 0.5)
                               : (float)x;
        }
        level_shift_inverse_float(v, got, n, precision, is_signed);
        double lo = is_signed ? -ldexp(1.0, (int)precision - 1) : 0.0;
        double hi = is_signed ? ldexp(1.0, (int)precision - 1) - 1 : ldexp(1.0, (int)precision) - 1;
        hi = hi > INT32_MAX ? INT32_MAX : hi;
        double offset = is_signed ? 0.0 : ldexp(1.0, (int)precision - 1);
        for (size_t i = 0; i < n; i++) {
            double r = v[i] != v[i] ? 0.0 : v[i] >= 2147483648.0f ? INT32_MAX
                       : v[i] < -2147483648.0f                    ? INT32_MIN
                                                                  : (double)lrintf(v[i]);
            r += offset;
            r = r < lo ? lo : r > hi ? hi : r;
            if (got[i] != (int32_t)r) {
                fprintf(stderr, "precision %u%s: %.9g -> %d, want %.0f\n", precision,
                        is_signed ? " signed" : "", v[i], got[i], r);
                CHECK(false);
                break;
            }
        }
    }
}

static const test_case cases[] = {
    {"rct_round_trip", test_rct_round_trip},
    {"rct_forward_formula", test_rct_forward_formula},
    {"ict_round_trip", test_ict_round_trip},
    {"ict_matches_matrix", test_ict_matches_matrix},
    {"level_shift_round_trip", test_level_shift_round_trip},
    {"level_shift_inverse_float_rounding", test_level_shift_inverse_float_rounding},
};

TEST_MAIN(cases)
