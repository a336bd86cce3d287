/* test_quantization.c - step sizes, their QCD/QCC fields and the deadzone
 * quantizer (T.800 Annex E, A.6.4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantization.h"
#include "test_harness.h"

#define U_FLOAT (1.0 / 16777216.0) /* 2^-24 */

/* Every (exponent, mantissa) pair: eq. E-3, and back exactly. */
static void test_step_size_round_trip(void)
{
    for (unsigned range = 0; range <= 40; range += 4 + (unsigned)(test_random() % 3)) {
        for (unsigned e = 0; e < 32; e++)
            for (unsigned mu = 0; mu < 2048; mu++) {
                quant_step step = {(uint8_t)e, (uint16_t)mu}, back = {99, 9999};
                double delta = quant_step_size(step, range);
                if (delta != pow(2.0, (double)range - e) * (1.0 + mu / 2048.0)) {
                    CHECK(false);
                    return;
                }
                bool ok = quant_step_from_size(delta, range, &back);
                if (!ok || back.exponent != e || back.mantissa != mu) {
                    fprintf(stderr, "Rb %u (%u, %u) comes back as (%u, %u)\n", range, e, mu,
                            back.exponent, back.mantissa);
                    CHECK(false);
                    return;
                }
            }
    }
    /* Table E.1 and eq. E-4. */
    CHECK_EQ(quant_band_gain_log2(DWT_BAND_LL), 0);
    CHECK_EQ(quant_band_gain_log2(DWT_BAND_HL), 1);
    CHECK_EQ(quant_band_gain_log2(DWT_BAND_LH), 1);
    CHECK_EQ(quant_band_gain_log2(DWT_BAND_HH), 2);
    CHECK_EQ(quant_dynamic_range(8, DWT_BAND_LL), 8);
    CHECK_EQ(quant_dynamic_range(8, DWT_BAND_HH), 10);
    CHECK_EQ(quant_dynamic_range(12, DWT_BAND_LH), 13);
}

/* Any step: the result is the largest representable step not above it,
 * and steps needing an exponent outside 0..31 are refused. */
static void test_step_from_size_floor(void)
{
    for (int i = 0; i < 100000; i++) {
        unsigned range = (unsigned)test_random_range(1, 40);
        double delta = ldexp(1.0 + (double)(test_random() >> 11) / 9007199254740992.0,
                             (int)range - (int)test_random_range(0, 31));
        quant_step step;
        REQUIRE(quant_step_from_size(delta, range, &step));
        double below = quant_step_size(step, range);
        quant_step next = step;
        double above;
        if (step.mantissa < 2047) {
            next.mantissa++;
            above = quant_step_size(next, range);
        } else {
            above = ldexp(1.0, (int)range - step.exponent + 1);
        }
        if (!(below <= delta && delta < above)) {
            fprintf(stderr, "delta %.17g -> (%u, %u)\n", delta, step.exponent, step.mantissa);
            CHECK(false);
            return;
        }
    }
    quant_step step;
    CHECK(!quant_step_from_size(0.0, 8, &step));
    CHECK(!quant_step_from_size(-1.0, 8, &step));
    CHECK(!quant_step_from_size(NAN, 8, &step));
    CHECK(!quant_step_from_size(INFINITY, 8, &step));
    CHECK(!quant_step_from_size(512.0, 8, &step));          /* exponent -1 */
    CHECK(quant_step_from_size(511.0, 8, &step) && step.exponent == 0 && step.mantissa == 2040);
    CHECK(!quant_step_from_size(ldexp(1.999, -24), 8, &step)); /* exponent 32 */
    CHECK(quant_step_from_size(ldexp(1.0, -23), 8, &step) && step.exponent == 31 &&
          step.mantissa == 0);
    CHECK(quant_step_from_size(0.75, 0, &step) && step.exponent == 1 && step.mantissa == 1024);
}

/* Eq. E-5 and eq. E-2. */
static void test_derived_steps_and_magnitude_bits(void)
{
    quant_step ll = {20, 1234}, step;
    REQUIRE(quant_step_derived(ll, 5, 5, &step));
    CHECK(step.exponent == 20 && step.mantissa == 1234);
    REQUIRE(quant_step_derived(ll, 5, 1, &step));
    CHECK(step.exponent == 16 && step.mantissa == 1234);
    REQUIRE(quant_step_derived(ll, 20, 1, &step));
    CHECK(step.exponent == 1);
    CHECK(!quant_step_derived(ll, 22, 1, &step));
    quant_step high = {31, 7};
    REQUIRE(quant_step_derived(high, 3, 3, &step));
    CHECK(step.exponent == 31 && step.mantissa == 7);
    CHECK(!quant_step_derived(high, 3, 4, &step));
    for (unsigned e0 = 0; e0 < 32; e0++)
        for (unsigned levels = 0; levels <= 32; levels++)
            for (unsigned n = 0; n <= levels; n++) {
                quant_step base = {(uint8_t)e0, 99};
                long want = (long)e0 - (long)levels + (long)n;
                bool ok = quant_step_derived(base, levels, n, &step);
                CHECK(ok == (want >= 0 && want <= 31));
                if (ok)
                    CHECK(step.exponent == want && step.mantissa == 99);
            }
    for (unsigned g = 0; g < 8; g++)
        for (unsigned e = 0; e < 32; e++) {
            quant_step s = {(uint8_t)e, 0};
            if (g + e >= 1)
                CHECK_EQ(quant_magnitude_bits(g, s), g + e - 1);
        }
    CHECK_EQ(quant_magnitude_bits(2, (quant_step){8, 0}), 9);
}

/* SPqcd/SPqcc fields (Tables A.29, A.30) for every pair, both ways. */
static void test_step_pack_unpack(void)
{
    CHECK_EQ(quant_step_pack((quant_step){5, 0}, true), 0x28);
    CHECK_EQ(quant_step_pack((quant_step){10, 0x123}, false), 0x5123);
    CHECK_EQ(quant_step_pack((quant_step){31, 2047}, false), 0xFFFF);
    quant_step s = quant_step_unpack(0x88, true);
    CHECK(s.exponent == 17 && s.mantissa == 0);
    s = quant_step_unpack(0x8801, false);
    CHECK(s.exponent == 17 && s.mantissa == 1);
    for (unsigned e = 0; e < 32; e++) {
        quant_step r = quant_step_unpack(quant_step_pack((quant_step){(uint8_t)e, 0}, true), true);
        CHECK(r.exponent == e && r.mantissa == 0);
        CHECK(quant_step_pack((quant_step){(uint8_t)e, 0}, true) <= 0xFF);
        for (unsigned mu = 0; mu < 2048; mu++) {
            quant_step q = {(uint8_t)e, (uint16_t)mu};
            uint16_t field = quant_step_pack(q, false);
            r = quant_step_unpack(field, false);
            if (field != (e << 11 | mu) || r.exponent != e || r.mantissa != mu) {
                CHECK(false);
                return;
            }
        }
    }
}

/* Random sign, 24 random bits, magnitude below 2^max_exponent. */
static float random_coefficient(int min_exponent, int max_exponent)
{
    double m = (double)(test_random() >> 40) / 16777216.0; /* [0, 1) */
    float a = (float)ldexp(m, (int)test_random_range(min_exponent, max_exponent));
    return test_random() % 2 ? -a : a;
}

/* With t = |a| / delta, the binary32 quotient is within u t of t, so
 * q = sign(a) floor(fl(t)) has |q| <= t (1 + u) and t < (|q| + 1)(1 + u):
 * |a| lies in [|q| delta, (|q| + 1) delta) up to 2u. q = 0 exactly when
 * fl(t) < 1. With r = 1/2 the reconstruction (|q| + 1/2) delta is then
 * within delta/2 of a, up to those 2u and the three roundings of
 * ((float)q + r) * delta: 5 u (|q| + 1) delta in all; 6 u (|q| + 2) is allowed. Signs are symmetric and zero
 * stays zero. */
static void test_quantizer_properties(void)
{
    enum { N = 4096 };
    static float a[N], neg[N], back[N], back_neg[N];
    static int32_t q[N], q_neg[N];
    for (int iteration = 0; iteration < 40; iteration++) {
        float delta = (float)ldexp(1.0 + (double)(test_random() >> 41) / 8388608.0,
                                   (int)test_random_range(-8, 8));
        for (int i = 0; i < N; i++) {
            a[i] = i < 2 ? (i ? -0.0f : 0.0f) : random_coefficient(-12, 20);
            neg[i] = -a[i];
        }
        quant_forward(a, q, N, delta);
        quant_forward(neg, q_neg, N, delta);
        quant_inverse(q, back, N, delta, 0.5f);
        quant_inverse(q_neg, back_neg, N, delta, 0.5f);
        for (int i = 0; i < N; i++) {
            double t = fabs((double)a[i]) / delta, m = fabs((double)q[i]);
            bool ok = q_neg[i] == -q[i] && back_neg[i] == -back[i];
            ok = ok && (q[i] == 0 || (q[i] < 0) == (a[i] < 0));
            ok = ok && m <= t * (1 + 2 * U_FLOAT) && t < (m + 1) * (1 + 2 * U_FLOAT);
            float quotient = fabsf(a[i]) / delta; /* the quantizer's own division */
            ok = ok && m == floorf(quotient) && (q[i] == 0) == (quotient < 1.0f);
            if (q[i] == 0)
                ok = ok && back[i] == 0.0f;
            else
                ok = ok && fabs((double)back[i] - a[i]) <= delta * (0.5 + 6 * U_FLOAT * (m + 2));
            if (!ok) {
                fprintf(stderr, "a %.9g delta %.9g: q %d, back %.9g\n", a[i], delta, q[i], back[i]);
                CHECK(false);
                return;
            }
        }
        /* r = 0 reconstructs q delta. */
        quant_inverse(q, back, N, delta, 0.0f);
        for (int i = 0; i < N; i++)
            CHECK(back[i] == (float)q[i] * delta);
    }
    /* One IEEE division, not a product with a rounded reciprocal: here
     * a / delta is exactly 7, but a * fl(1 / delta) rounds below 7. */
    float a7 = 0x1.c47aep+2f, d7 = 0x1.028f5cp+0f;
    int32_t q7;
    quant_forward(&a7, &q7, 1, d7);
    CHECK_EQ(q7, 7);
    /* Saturation and NaN. */
    float extreme[3] = {1e30f, -1e30f, NAN};
    int32_t qe[3];
    quant_forward(extreme, qe, 3, 1.0f);
    CHECK_EQ(qe[0], INT32_MAX);
    CHECK_EQ(qe[1], -INT32_MAX);
    CHECK_EQ(qe[2], 0);
}

/* A power-of-two step divides exactly: |q| delta <= |a| < (|q| + 1) delta
 * holds exactly, q = 0 iff |a| < delta, and with r = 1/2 the error is at
 * most delta / 2 exactly. */
static void test_quantizer_power_of_two_exact(void)
{
    enum { N = 4096 };
    static float a[N], back[N];
    static int32_t q[N];
    for (int k = -10; k <= 10; k++) {
        float delta = ldexpf(1.0f, k);
        for (int i = 0; i < N; i++)
            a[i] = random_coefficient(k - 14, k + 22); /* |q| < 2^22: q + 1/2 exact */
        a[0] = delta, a[1] = -delta, a[2] = nextafterf(delta, 0.0f), a[3] = 3 * delta;
        quant_forward(a, q, N, delta);
        quant_inverse(q, back, N, delta, 0.5f);
        CHECK_EQ(q[0], 1);
        CHECK_EQ(q[1], -1);
        CHECK_EQ(q[2], 0);
        CHECK_EQ(q[3], 3);
        for (int i = 0; i < N; i++) {
            double m = fabs((double)q[i]), x = fabs((double)a[i]);
            bool ok = m * delta <= x && x < (m + 1) * delta && (q[i] == 0) == (x < delta);
            ok = ok && (q[i] == 0 ? back[i] == 0.0f : fabs((double)back[i] - a[i]) <= delta / 2.0);
            if (!ok) {
                fprintf(stderr, "a %.9g delta 2^%d: q %d, back %.9g\n", a[i], k, q[i], back[i]);
                CHECK(false);
                return;
            }
        }
    }
}

/* The fractions beside the indices: what |a| / delta exceeds |q| by, in
 * 1/256 (floor, at most 255), as the one IEEE division gives it; the
 * indices are quant_forward's; NaN and infinity give 255. */
static void test_forward_with_fractions(void)
{
    enum { N = 4099 }; /* odd: the vector loops' tails too */
    static float a[N];
    static int32_t q[N], plain[N];
    static uint8_t f[N];
    float delta = 0.37f + (float)(test_random() % 1000) / 1000.0f;
    for (int i = 0; i < N; i++)
        a[i] = random_coefficient(-12, 24);
    a[0] = NAN, a[1] = INFINITY, a[2] = -INFINITY, a[3] = 0.0f, a[4] = -0.0f;
    memset(f, 0xA5, sizeof f); /* poisoned */
    quant_forward_with_fractions(a, q, f, N, delta);
    quant_forward(a, plain, N, delta);
    CHECK_EQ(f[0], 255);
    CHECK_EQ(f[1], 255);
    CHECK_EQ(f[2], 255);
    CHECK_EQ(f[3], 0);
    CHECK_EQ(f[4], 0);
    for (int i = 0; i < N; i++) {
        float m = fabsf(a[i]) / delta;
        bool whole_range = m < 16777216.0f; /* below 2^24 every |q| is exact */
        int expected = 255;
        if (m == m && whole_range) {
            float fraction = (m - floorf(m)) * 256.0f;
            expected = fraction < 255.0f ? (int)fraction : 255;
        } else if (m == m && m < 2147483648.0f) {
            expected = 0; /* m is whole */
        }
        if (q[i] != plain[i] || (i > 2 && m < 2147483648.0f && f[i] != expected)) {
            fprintf(stderr, "a %.9g delta %.9g: q %d (%d), fraction %u, expected %d\n", a[i],
                    delta, q[i], plain[i], f[i], expected);
            CHECK(false);
            return;
        }
    }
    /* exact quotients with a power-of-two step: 3.5 and -2.75 */
    const float exact[2] = {1.75f, -1.375f};
    quant_forward_with_fractions(exact, q, f, 2, 0.5f);
    CHECK(q[0] == 3 && f[0] == 128 && q[1] == -2 && f[1] == 192);
}

static const test_case cases[] = {
    {"step_size_round_trip", test_step_size_round_trip},
    {"step_from_size_floor", test_step_from_size_floor},
    {"derived_steps_and_magnitude_bits", test_derived_steps_and_magnitude_bits},
    {"step_pack_unpack", test_step_pack_unpack},
    {"quantizer_properties", test_quantizer_properties},
    {"quantizer_power_of_two_exact", test_quantizer_power_of_two_exact},
    {"forward_with_fractions", test_forward_with_fractions},
};

TEST_MAIN(cases)
