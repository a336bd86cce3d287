/* test_mq.c - the MQ arithmetic coder (T.800 Annex C) and the raw bypass
 * coding of Annex D.6, each direction checked by the other, by the T.88
 * Annex H.2 test sequence and by a second transcription of Table C.2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mq_decoder.h"
#include "mq_encoder.h"
#include "test_harness.h"

/* Random symbols over all contexts with skewed probabilities, flushed
 * either way, decode exactly; and a prefix cut at a truncation point
 * decodes its symbols. */
static void test_mq_round_trip_random(void)
{
    static const unsigned one_in[] = {2, 3, 10, 100, 1000, 100000};
    for (int trial = 0; trial < 300; trial++) {
        size_t n = trial % 50 == 0 ? (size_t)test_random_range(100000, 300000)
                                    : (size_t)test_random_range(0, 3000);
        unsigned rarity[MQ_NUM_CONTEXTS], favoured[MQ_NUM_CONTEXTS];
        for (unsigned c = 0; c < MQ_NUM_CONTEXTS; c++) {
            rarity[c] = one_in[test_random() % 6];
            favoured[c] = test_random() & 1;
        }
        uint8_t *cx = xmalloc(n), *bits = xmalloc(n);
        for (size_t i = 0; i < n; i++) {
            cx[i] = (uint8_t)(test_random() % MQ_NUM_CONTEXTS);
            bits[i] = (uint8_t)(favoured[cx[i]] ^ (test_random() % rarity[cx[i]] == 0));
        }
        size_t cut = n ? (size_t)test_random_range(0, (int64_t)n) : 0, cut_length = 0;
        mq_encoder e;
        mq_context encoder_contexts[MQ_NUM_CONTEXTS];
        REQUIRE(mq_encoder_init(&e, encoder_contexts, 16));
        for (size_t i = 0; i < n; i++) {
            if (i == cut)
                cut_length = mq_encoder_truncation_length(&e);
            mq_encoder_encode_bit(&e, cx[i], bits[i]);
        }
        if (cut == n)
            cut_length = mq_encoder_truncation_length(&e);
        bool predictable = test_random() & 1;
        if (predictable)
            mq_encoder_flush_predictable(&e);
        else
            mq_encoder_flush(&e);
        REQUIRE(!e.out_of_memory);
        CHECK(segment_is_clean(e.data, e.length));
        if (cut_length > e.length)
            cut_length = e.length;
        for (int pass = 0; pass < 2; pass++) {
            size_t length = pass ? cut_length : e.length, count = pass ? cut : n;
            uint8_t *copy = xmalloc(length);
            if (length)
                memcpy(copy, e.data, length);
            mq_context contexts[MQ_NUM_CONTEXTS];
            mq_decoder d = {.contexts = contexts};
            mq_reset_contexts(d.contexts);
            mq_decoder_start(&d, copy, length);
            size_t wrong = 0;
            for (size_t i = 0; i < count; i++)
                wrong += mq_decoder_decode_bit(&d, cx[i]) != bits[i];
            if (wrong)
                fprintf(stderr, "trial %d (%s, %zu symbols, %s): %zu wrong\n", trial,
                        predictable ? "predictable" : "flush", count,
                        pass ? "truncated" : "whole", wrong);
            CHECK(wrong == 0);
            free(copy);
        }
        mq_encoder_release(&e);
        free(cx);
        free(bits);
    }
}

/* ITU-T T.88 Annex H.2 (the same MQ coder): 256 decisions in one context
 * starting at index 0, MPS 0, code to these bytes; T.88 then appends the
 * 0xFF 0xAC marker, which T.800 does not. */
static const uint8_t h2_decisions[32] = {
    0x00, 0x02, 0x00, 0x51, 0x00, 0x00, 0x00, 0xC0, 0x03, 0x52, 0x87, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA,
    0x82, 0xC0, 0x20, 0x00, 0xFC, 0xD7, 0x9E, 0xF6, 0xBF, 0x7F, 0xED, 0x90, 0x4F, 0x46, 0xA3, 0xBF};
static const uint8_t h2_coded[30] = {0x84, 0xC7, 0x3B, 0xFC, 0xE1, 0xA1, 0x43, 0x04, 0x02, 0x20,
                                     0x00, 0x00, 0x41, 0x0D, 0xBB, 0x86, 0xF4, 0x31, 0x7F, 0xFF,
                                     0x88, 0xFF, 0x37, 0x47, 0x1A, 0xDB, 0x6A, 0xDF, 0xFF, 0xAC};

static void test_mq_standard_test_sequence(void)
{
    mq_encoder e;
    mq_context encoder_contexts[MQ_NUM_CONTEXTS];
    REQUIRE(mq_encoder_init(&e, encoder_contexts, 0));
    memset(encoder_contexts, 0, sizeof encoder_contexts);
    for (unsigned i = 0; i < 256; i++)
        mq_encoder_encode_bit(&e, 0, (h2_decisions[i / 8] >> (7 - i % 8)) & 1u);
    mq_encoder_flush(&e);
    CHECK_EQ(e.length, 28);
    CHECK(memcmp(e.data, h2_coded, 28) == 0);
    mq_encoder_release(&e);

    /* decoding: without the marker, with it, and from the standard's bytes */
    for (size_t length = 28; length <= 30; length += 2) {
        mq_context contexts[MQ_NUM_CONTEXTS] = {0};
        mq_decoder d = {.contexts = contexts};
        mq_decoder_start(&d, h2_coded, length);
        unsigned wrong = 0;
        for (unsigned i = 0; i < 256; i++)
            wrong += mq_decoder_decode_bit(&d, 0) != ((h2_decisions[i / 8] >> (7 - i % 8)) & 1u);
        CHECK_EQ(wrong, 0);
    }
}

/* Several segments in one buffer, contexts carried over, each segment
 * decoded on its own bytes; every flushed segment is clean. */
static void test_mq_segments(void)
{
    for (int trial = 0; trial < 100; trial++) {
        enum { SEGMENTS = 6 };
        size_t count[SEGMENTS], start[SEGMENTS + 1];
        uint8_t *cx[SEGMENTS], *bits[SEGMENTS];
        mq_encoder e;
        mq_context encoder_contexts[MQ_NUM_CONTEXTS];
        REQUIRE(mq_encoder_init(&e, encoder_contexts, 0));
        for (int s = 0; s < SEGMENTS; s++) {
            count[s] = (size_t)test_random_range(0, 500);
            cx[s] = xmalloc(count[s]);
            bits[s] = xmalloc(count[s]);
            start[s] = e.length;
            mq_encoder_start(&e);
            for (size_t i = 0; i < count[s]; i++) {
                cx[s][i] = (uint8_t)(test_random() % 3);
                bits[s][i] = (uint8_t)(test_random() % (cx[s][i] + 2) == 0);
                mq_encoder_encode_bit(&e, cx[s][i], bits[s][i]);
            }
            if (s & 1)
                mq_encoder_flush_predictable(&e);
            else
                mq_encoder_flush(&e);
            CHECK(segment_is_clean(e.data + start[s], e.length - start[s]));
        }
        start[SEGMENTS] = e.length;
        mq_context contexts[MQ_NUM_CONTEXTS];
        mq_decoder d = {.contexts = contexts};
        mq_reset_contexts(d.contexts);
        size_t wrong = 0;
        for (int s = 0; s < SEGMENTS; s++) {
            mq_decoder_start(&d, e.data + start[s], start[s + 1] - start[s]);
            for (size_t i = 0; i < count[s]; i++)
                wrong += mq_decoder_decode_bit(&d, cx[s][i]) != bits[s][i];
            free(cx[s]);
            free(bits[s]);
        }
        CHECK_EQ(wrong, 0);
        mq_encoder_release(&e);
    }
}

/* Raw bits: stuffing after 0xFF (the next byte's MSB is 0), padding, exact
 * decoding, and decoding a prefix cut at a truncation length. */
static void test_bypass_round_trip(void)
{
    for (int trial = 0; trial < 300; trial++) {
        size_t n = (size_t)test_random_range(0, 5000);
        unsigned ones = (unsigned)test_random_range(0, 100); /* percent: many runs of 0xFF */
        uint8_t *bits = xmalloc(n);
        for (size_t i = 0; i < n; i++)
            bits[i] = (uint8_t)((unsigned)test_random_range(0, 99) < ones);
        size_t cut = (size_t)test_random_range(0, (int64_t)n), cut_length = 0;
        bool predictable = test_random() & 1;
        mq_encoder e;
        mq_context encoder_contexts[MQ_NUM_CONTEXTS];
        REQUIRE(mq_encoder_init(&e, encoder_contexts, 0));
        mq_encoder_start_bypass(&e);
        for (size_t i = 0; i < n; i++) {
            if (i == cut)
                cut_length = mq_encoder_bypass_truncation_length(&e);
            mq_encoder_bypass_put_bit(&e, bits[i]);
        }
        if (cut == n)
            cut_length = mq_encoder_bypass_truncation_length(&e);
        mq_encoder_flush_bypass(&e, predictable);
        for (size_t i = 0; i + 1 < e.length; i++)
            if (e.data[i] == 0xFF)
                CHECK(e.data[i + 1] < 0x80);
        CHECK(e.length == 0 || e.data[e.length - 1] != 0xFF);
        CHECK(e.length <= n / 7 + 2);
        if (cut_length > e.length)
            cut_length = e.length;
        for (int pass = 0; pass < 2; pass++) {
            size_t length = pass ? cut_length : e.length, count = pass ? cut : n, wrong = 0;
            uint8_t *copy = xmalloc(length);
            if (length)
                memcpy(copy, e.data, length);
            mq_decoder d;
            mq_decoder_start_bypass(&d, copy, length);
            for (size_t i = 0; i < count; i++)
                wrong += mq_decoder_bypass_bit(&d) != bits[i];
            CHECK_EQ(wrong, 0);
            free(copy);
        }
        mq_encoder_release(&e);
        free(bits);
    }
    /* all ones: FF 7F FF 7F ... */
    mq_encoder e;
    mq_context encoder_contexts[MQ_NUM_CONTEXTS];
    REQUIRE(mq_encoder_init(&e, encoder_contexts, 0));
    mq_encoder_start_bypass(&e);
    for (int i = 0; i < 8 + 7 + 8; i++)
        mq_encoder_bypass_put_bit(&e, 1);
    mq_encoder_flush_bypass(&e, false);
    CHECK_EQ(e.length, 2);
    CHECK_EQ(e.data[0], 0xFF);
    CHECK_EQ(e.data[1], 0x7F); /* the final 0xFF is left to the decoder */
    mq_encoder_release(&e);
}

/* Table C.2 again, typed independently as printed: Qe, NMPS, NLPS, SWITCH.
 * Round trips cannot see a typo that both directions share. */
static const uint16_t table_c2[47][4] = {
    {0x5601, 1, 1, 1},   {0x3401, 2, 6, 0},   {0x1801, 3, 9, 0},   {0x0AC1, 4, 12, 0},
    {0x0521, 5, 29, 0},  {0x0221, 38, 33, 0}, {0x5601, 7, 6, 1},   {0x5401, 8, 14, 0},
    {0x4801, 9, 14, 0},  {0x3801, 10, 14, 0}, {0x3001, 11, 17, 0}, {0x2401, 12, 18, 0},
    {0x1C01, 13, 20, 0}, {0x1601, 29, 21, 0}, {0x5601, 15, 14, 1}, {0x5401, 16, 14, 0},
    {0x5101, 17, 15, 0}, {0x4801, 18, 16, 0}, {0x3801, 19, 17, 0}, {0x3401, 20, 18, 0},
    {0x3001, 21, 19, 0}, {0x2801, 22, 19, 0}, {0x2401, 23, 20, 0}, {0x2201, 24, 21, 0},
    {0x1C01, 25, 22, 0}, {0x1801, 26, 23, 0}, {0x1601, 27, 24, 0}, {0x1401, 28, 25, 0},
    {0x1201, 29, 26, 0}, {0x1101, 30, 27, 0}, {0x0AC1, 31, 28, 0}, {0x09C1, 32, 29, 0},
    {0x08A1, 33, 30, 0}, {0x0521, 34, 31, 0}, {0x0441, 35, 32, 0}, {0x02A1, 36, 33, 0},
    {0x0221, 37, 34, 0}, {0x0141, 38, 35, 0}, {0x0111, 39, 36, 0}, {0x0085, 40, 37, 0},
    {0x0049, 41, 38, 0}, {0x0025, 42, 39, 0}, {0x0015, 43, 40, 0}, {0x0009, 44, 41, 0},
    {0x0005, 45, 42, 0}, {0x0001, 45, 43, 0}, {0x5601, 46, 46, 0}};

static void test_probability_table(void)
{
    for (unsigned i = 0; i < 47; i++)
        for (unsigned mps = 0; mps < 2; mps++) {
            const mq_state *s = &mq_states[2 * i + mps];
            CHECK_EQ(s->qe, table_c2[i][0]);
            CHECK_EQ(s->qe_high, (uint32_t)table_c2[i][0] << 16);
            CHECK_EQ(s->next_mps, 2 * table_c2[i][1] + mps);
            CHECK_EQ(s->next_lps, 2 * table_c2[i][2] + (mps ^ table_c2[i][3]));
        }
}


static const test_case cases[] = {
    {"round_trip_random", test_mq_round_trip_random},
    {"standard_test_sequence", test_mq_standard_test_sequence},
    {"probability_table", test_probability_table},
    {"segments", test_mq_segments},
    {"bypass_round_trip", test_bypass_round_trip},
};

TEST_MAIN(cases)
