/* tier1_encode_block.h - the Tier-1 block encoder (T.800 Annex D over the
 * MQ encoder of Annex C): the three coding passes over the stripe-oriented
 * scan, the segment structure of the code-block styles, truncation points
 * and distortion reductions. Written once, inline, for the host
 * (tier1_encode.c) and the GPU (cuda/tier1_encode_gpu.cu): the CPU build
 * and its tests run the very code the GPU runs. The floating-point sums are
 * plain adds and multiplies in a fixed order (CUDA code is built without
 * fused multiply-adds), so both sides give the same distortions. */
#ifndef GJ2K_TIER1_ENCODE_BLOCK_H
#define GJ2K_TIER1_ENCODE_BLOCK_H

#include <string.h>

#include "tier1.h"
#include "tier1_words.h"

typedef struct tier1_block_encoder {
    uint32_t *words;      /* the state word of stripe 0, column 0 (tier1_words.h) */
    const uint32_t *mag;  /* |q| with the sign in bit 31, row-major */
    ptrdiff_t ws;         /* words a stripe: width + 2 */
    uint32_t width, height;
    const uint8_t *zero_context;
    bool causal;
    /* Irreversible path: each |q|'s fraction below 1 in 1/256, row-major
     * (NULL: none), and reconstruction at r = 1/2 even when every plane is
     * known. */
    const uint8_t *fractions;
    bool half_at_zero;
    /* Whether the distortion reductions are wanted (rate control); false
     * leaves them 0 and saves their arithmetic. The bytes are the same. */
    bool measure;
    mq_encoder mq;        /* its contexts: the state's below */
} tier1_block_encoder;

/* A block encoder and its MQ contexts: the caller's (the GPU keeps it in
 * shared memory). */
typedef struct tier1_block_encoder_state {
    tier1_block_encoder block;
    mq_context contexts[MQ_NUM_CONTEXTS];
} tier1_block_encoder_state;

#define TIER1_SIGN_BIT 0x80000000u


/* Reads a block of coefficients (row y at y * stride) as magnitudes with
 * the sign in bit 31 (row-major; `magnitudes` may be `coefficients` when
 * stride is the width). Returns the OR of all magnitudes; sets *bad for
 * INT32_MIN, whose magnitude needs 32 bits. */
GJ2K_HD_INLINE uint32_t tier1_encode_load(const int32_t *coefficients, size_t stride,
                                          uint32_t width, uint32_t height, uint32_t *magnitudes,
                                          bool *bad)
{
    uint32_t all = 0;
    for (uint32_t y = 0; y < height; y++) {
        const int32_t *row = coefficients + (size_t)y * stride;
        uint32_t *out = magnitudes + (size_t)y * width;
        for (uint32_t x = 0; x < width; x++) {
            int32_t q = row[x];
            if (q == INT32_MIN)
                *bad = true;
            uint32_t v = q < 0 ? (uint32_t)0 - (uint32_t)q : (uint32_t)q;
            all |= v;
            out[x] = (v & ~TIER1_SIGN_BIT) | (q < 0 ? TIER1_SIGN_BIT : 0);
        }
    }
    return all;
}

/* Magnitude bit-planes of a block whose magnitudes OR to `all`. */
GJ2K_HD_INLINE unsigned tier1_planes_of(uint32_t all)
{
    unsigned planes = 0;
    while (planes < 32 && (all >> planes) != 0)
        planes++;
    return planes;
}

/* The distortions' magnitudes are integers in units of 1/512 (|q| < 2^31
 * and fractions in 1/256 plus a half: exact in 41 bits), so that only the
 * final product is a double, rounded once as a product of the same values
 * in doubles would be. */
#define TIER1_UNIT_BITS 9

/* Midpoint reconstruction of magnitude v when the planes >= p are known
 * (E.1.1.2 with r = 1/2; r = 0 at p = 0 unless half_at_zero), in units. */
GJ2K_HD_INLINE int64_t encode_midpoint(uint32_t v, unsigned p, bool half_at_zero)
{
    uint32_t known = p >= 31 ? 0 : v >> p << p;
    if (known == 0)
        return 0;
    int64_t half = p > 0 ? (int64_t)1 << (p - 1 + TIER1_UNIT_BITS)
                         : half_at_zero ? (int64_t)1 << (TIER1_UNIT_BITS - 1) : 0;
    return ((int64_t)known << TIER1_UNIT_BITS) + half;
}

/* The magnitude the distortion is measured against, in units: |q|, plus
 * its fraction (1/256ths, taken at their middle) when known. */
GJ2K_HD_INLINE int64_t encode_true_value(const tier1_block_encoder *b, const uint32_t *m)
{
    int64_t v = (int64_t)(*m & ~TIER1_SIGN_BIT) << TIER1_UNIT_BITS;
    if (b->fractions != NULL)
        v += 2 * (int64_t)b->fractions[m - b->mag] + 1;
    return v;
}

/*
 * A pass's distortion reduction (J.14 wants a pass's total only) follows
 * exactly from integer sums over its coded samples: a sample's reduction
 * is (t - before)^2 - (t - after)^2 = d (2 (t - before) - d) with
 * d = after - before, and d depends only on the bit coded. So a pass sums,
 * by that bit, the samples and their residues t - base (base: the part of
 * the reconstruction the pass does not change), and converts once.
 */
typedef struct encode_tally {
    int64_t sum_zero, sum_one; /* residues in units, by bit coded (no array:
                                  on the GPU it would leave the registers) */
    int64_t count_zero, count_one;
} encode_tally;

GJ2K_HD_INLINE void encode_tally_add(encode_tally *tally, unsigned bit, int64_t residue)
{
    if (bit) {
        tally->sum_one += residue;
        tally->count_one++;
    } else {
        tally->sum_zero += residue;
        tally->count_zero++;
    }
}

/* The sum over n samples of d (2 (residue - offset) - d), in squared
 * magnitudes. */
GJ2K_HD_INLINE double encode_tally_reduction(int64_t sum, int64_t n, int64_t d, int64_t offset)
{
    return (double)d * (double)(2 * (sum - n * offset) - n * d) *
           (1.0 / (double)((int64_t)1 << (2 * TIER1_UNIT_BITS)));
}

/* Samples that became significant on plane p: before 0, after `value`,
 * residues their true values. */
GJ2K_HD_INLINE double encode_significance_reduction(const encode_tally *tally, int64_t value)
{
    return encode_tally_reduction(tally->sum_one, tally->count_one, value, 0);
}

/* Samples refined on plane p: residues t minus the planes above p, so
 * t - before = residue - h(p + 1), and after - before = bit << p + h(p) -
 * h(p + 1), h(q) being the midpoint's half step once planes >= q are known. */
GJ2K_HD_INLINE double encode_refinement_reduction(const encode_tally *tally, unsigned p,
                                                  bool half_at_zero)
{
    int64_t h_above = (int64_t)1 << (p + TIER1_UNIT_BITS);
    int64_t h_here = p > 0 ? (int64_t)1 << (p - 1 + TIER1_UNIT_BITS)
                           : half_at_zero ? (int64_t)1 << (TIER1_UNIT_BITS - 1) : 0;
    return encode_tally_reduction(tally->sum_zero, tally->count_zero, h_here - h_above, h_above) +
           encode_tally_reduction(tally->sum_one, tally->count_one, h_here, h_above);
}

/* Codes the sign (D.3.2) of row r of the column at w, which has just
 * become significant (`word` its magnitude with the sign in bit 31), and
 * updates the words. */
GJ2K_HD_INLINE void encode_sign(tier1_block_encoder *b, uint32_t *w, uint32_t word,
                                       unsigned r, bool raw)
{
    unsigned negative = word >> 31;
    if (raw) {
        mq_encoder_bypass_put_bit(&b->mq, negative);
    } else {
        unsigned sc = TIER1_SIGN_TABLE[t1w_sign_index(w, r)];
        mq_encoder_encode_bit(&b->mq, sc & 15u, negative ^ (sc >> 4));
    }
    t1w_set_significant(w, b->ws, b->causal, r, negative != 0);
}

/* One sample of the significance propagation pass (D.3.1): coded when not
 * yet significant and some neighbour is; with `measure`, tallied when it
 * becomes significant. */
GJ2K_HD_INLINE void propagate_sample(tier1_block_encoder *b, uint32_t *w, const uint32_t *m,
                                     unsigned p, unsigned r, bool raw, bool measure,
                                     encode_tally *tally)
{
    uint32_t state = *w;
    if (state & T1W_SIG((int)r, 1))
        return;
    unsigned n = t1w_neighbours(state, r);
    if (n == 0)
        return;
    uint32_t word = *m;
    unsigned bit = (word >> p) & 1u;
    if (raw)
        mq_encoder_bypass_put_bit(&b->mq, bit);
    else
        mq_encoder_encode_bit(&b->mq, b->zero_context[n], bit);
    *w = state | T1W_VISITED(r);
    if (!bit)
        return;
    encode_sign(b, w, word, r, raw);
    if (measure)
        encode_tally_add(tally, 1, encode_true_value(b, m));
}

/* Significance propagation pass (D.3.1): insignificant samples with a
 * significant neighbour, in stripe order (D.1). Returns its distortion
 * reduction (with `measure`). */
GJ2K_HD_INLINE double encode_significance_pass_on(tier1_block_encoder *b, unsigned p, bool raw,
                                                 bool measure)
{
    encode_tally tally = {0, 0, 0, 0};
    const uint32_t w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *wd = words + x;
            const uint32_t *m = b->mag + (size_t)y0 * w + x;
            uint32_t state = *wd; /* nothing to visit in the column: as the decoder */
            if (!(state & T1W_WINDOW) || (state & T1W_SELF_ALL) == T1W_SELF_ALL)
                continue;
            if (rows == 4) {
                propagate_sample(b, wd, m, p, 0, raw, measure, &tally);
                propagate_sample(b, wd, m + w, p, 1, raw, measure, &tally);
                propagate_sample(b, wd, m + 2 * (size_t)w, p, 2, raw, measure, &tally);
                propagate_sample(b, wd, m + 3 * (size_t)w, p, 3, raw, measure, &tally);
                continue;
            }
            for (uint32_t r = 0; r < rows; r++)
                propagate_sample(b, wd, m + (size_t)r * w, p, r, raw, measure, &tally);
        }
    }
    return measure ? encode_significance_reduction(
                         &tally, encode_midpoint(1u << p, p, b->half_at_zero))
                   : 0.0;
}

/* One sample of the magnitude refinement pass (D.3.3): coded when
 * significant before this plane; with `measure`, tallied. Returns the
 * column's state with it marked refined. */
GJ2K_HD_INLINE uint32_t refine_sample(tier1_block_encoder *b, uint32_t state, const uint32_t *m,
                                      unsigned p, unsigned r, bool raw, bool measure,
                                      encode_tally *tally)
{
    if ((state & (T1W_SIG((int)r, 1) | T1W_VISITED(r))) != T1W_SIG((int)r, 1))
        return state;
    uint32_t v = *m & ~TIER1_SIGN_BIT;
    unsigned bit = (v >> p) & 1u;
    if (raw)
        mq_encoder_bypass_put_bit(&b->mq, bit);
    else
        mq_encoder_encode_bit(&b->mq,
                              (state & T1W_REFINED(r)) ? 16u
                              : t1w_neighbours(state, r) ? 15u : 14u,
                              bit);
    if (measure) /* the residue below the planes above p */
        encode_tally_add(tally, bit,
                         encode_true_value(b, m) -
                             ((int64_t)(v >> (p + 1) << (p + 1)) << TIER1_UNIT_BITS));
    return state | T1W_REFINED(r);
}

/* Magnitude refinement pass (D.3.3): samples significant before this plane. */
GJ2K_HD_INLINE double encode_refinement_pass_on(tier1_block_encoder *b, unsigned p, bool raw,
                                                bool measure)
{
    encode_tally tally = {0, 0, 0, 0};
    const uint32_t w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t state = words[x];
            if (!(state & T1W_SELF_ALL))
                continue; /* nothing significant to refine */
            const uint32_t *m = b->mag + (size_t)y0 * w + x;
            if (rows == 4) {
                state = refine_sample(b, state, m, p, 0, raw, measure, &tally);
                state = refine_sample(b, state, m + w, p, 1, raw, measure, &tally);
                state = refine_sample(b, state, m + 2 * (size_t)w, p, 2, raw, measure, &tally);
                state = refine_sample(b, state, m + 3 * (size_t)w, p, 3, raw, measure, &tally);
            } else {
                for (uint32_t r = 0; r < rows; r++)
                    state = refine_sample(b, state, m + (size_t)r * w, p, r, raw, measure,
                                          &tally);
            }
            words[x] = state; /* refinement changes no other word */
        }
    }
    return measure ? encode_refinement_reduction(&tally, p, b->half_at_zero) : 0.0;
}

/* One sample of the cleanup pass outside run-length mode: coded when
 * neither significant nor visited. */
GJ2K_HD_INLINE void clean_sample(tier1_block_encoder *b, uint32_t *w, const uint32_t *m,
                                 unsigned p, unsigned r, bool measure, encode_tally *tally)
{
    uint32_t state = *w;
    if (state & (T1W_SIG((int)r, 1) | T1W_VISITED(r)))
        return;
    uint32_t word = *m;
    unsigned bit = (word >> p) & 1u;
    mq_encoder_encode_bit(&b->mq, b->zero_context[t1w_neighbours(state, r)], bit);
    if (!bit)
        return;
    encode_sign(b, w, word, r, false);
    if (measure)
        encode_tally_add(tally, 1, encode_true_value(b, m));
}

/* Cleanup pass (D.3.4): the samples the significance pass left, with
 * run-length coding of 4-sample columns whose samples and neighbours are all
 * insignificant. Clears the visited flags. */
GJ2K_HD_INLINE double encode_cleanup_pass_on(tier1_block_encoder *b, unsigned p, bool measure)
{
    encode_tally tally = {0, 0, 0, 0};
    const uint32_t w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *wd = words + x;
            const uint32_t *m = b->mag + (size_t)y0 * w + x;
            uint32_t r = 0;
            if (rows == 4 && !(*wd & (T1W_WINDOW | T1W_VISITED_ALL))) { /* run mode */
                uint32_t k = 0;
                while (k < 4 && !((m[(size_t)k * w] >> p) & 1u))
                    k++;
                if (k == 4) {
                    mq_encoder_encode_bit(&b->mq, MQ_CONTEXT_RUN_LENGTH, 0);
                    continue;
                }
                mq_encoder_encode_bit(&b->mq, MQ_CONTEXT_RUN_LENGTH, 1);
                mq_encoder_encode_bit(&b->mq, MQ_CONTEXT_UNIFORM, k >> 1);
                mq_encoder_encode_bit(&b->mq, MQ_CONTEXT_UNIFORM, k & 1u);
                encode_sign(b, wd, m[(size_t)k * w], k, false);
                if (measure)
                    encode_tally_add(&tally, 1, encode_true_value(b, m + (size_t)k * w));
                r = k + 1;
            }
            if (r == 0 && rows == 4) {
                clean_sample(b, wd, m, p, 0, measure, &tally);
                clean_sample(b, wd, m + w, p, 1, measure, &tally);
                clean_sample(b, wd, m + 2 * (size_t)w, p, 2, measure, &tally);
                clean_sample(b, wd, m + 3 * (size_t)w, p, 3, measure, &tally);
            } else {
                for (; r < rows; r++)
                    clean_sample(b, wd, m + (size_t)r * w, p, r, measure, &tally);
            }
            *wd &= ~T1W_VISITED_ALL;
        }
    }
    return measure ? encode_significance_reduction(
                         &tally, encode_midpoint(1u << p, p, b->half_at_zero))
                   : 0.0;
}

/* Codes pass j's type on plane p (raw: D.6 bypass; measure: its distortion
 * reduction returned, else 0) on a copy of the encoder in locals (kept in
 * registers: a context byte's store may alias any memory), each flag
 * constant in its own copy of the pass. */
GJ2K_HD_STATIC GJ2K_HOST_NOINLINE double encode_pass(tier1_block_encoder *state,
                                                     tier1_pass_type type, unsigned p, bool raw,
                                                     bool measure)
{
    tier1_block_encoder local = *state, *b = &local;
    double reduction;
    if (type == TIER1_PASS_SIGNIFICANCE && measure)
        reduction = raw ? encode_significance_pass_on(b, p, true, true)
                        : encode_significance_pass_on(b, p, false, true);
    else if (type == TIER1_PASS_SIGNIFICANCE)
        reduction = raw ? encode_significance_pass_on(b, p, true, false)
                        : encode_significance_pass_on(b, p, false, false);
    else if (type == TIER1_PASS_REFINEMENT && measure)
        reduction = raw ? encode_refinement_pass_on(b, p, true, true)
                        : encode_refinement_pass_on(b, p, false, true);
    else if (type == TIER1_PASS_REFINEMENT)
        reduction = raw ? encode_refinement_pass_on(b, p, true, false)
                        : encode_refinement_pass_on(b, p, false, false);
    else
        reduction = measure ? encode_cleanup_pass_on(b, p, true)
                            : encode_cleanup_pass_on(b, p, false);
    state->mq = local.mq;
    return reduction;
}

/* Settles the truncation points of the segment just ended (passes
 * first..last): an arithmetic pass's is the shortest prefix that decodes it
 * (its snapshot against the final bytes), a raw pass keeps its bound; all
 * are capped at the segment's final length, kept off a final 0xFF (a
 * decoder supplies it, C.3.4) and non-decreasing. */
GJ2K_HD_STATIC void encode_settle_lengths(tier1_pass_info *passes, const mq_snapshot *snapshots,
                                          unsigned style, const uint8_t *data, unsigned first,
                                          unsigned last, size_t segment_start,
                                          size_t segment_end)
{
    for (unsigned j = first; j <= last; j++) {
        size_t length = passes[j].length;
        if (!tier1_pass_is_raw(j, style) && j != last)
            length = mq_snapshot_truncation_length(&snapshots[j], data, segment_start,
                                                   segment_end);
        if (length > segment_end || j == last)
            length = segment_end;
        if (length > segment_start && length < segment_end && data[length - 1] == 0xFF)
            length--;
        if (j > 0 && length < passes[j - 1].length)
            length = passes[j - 1].length;
        passes[j].length = length;
    }
}

/*
 * Codes every pass of a block of `planes` (>= 1) planes whose magnitudes
 * are at block->mag (tier1_encode_load) into block->mq, begun on its
 * buffer. `flags` holds (width + 2) * (height + 2) elements of scratch;
 * `passes` receives each pass's truncation point and distortion reduction,
 * `snapshots` (TIER1_MAX_PASSES) is scratch. The caller sets the block's
 * width, height, zero_context, causal, fractions, half_at_zero and measure.
 */
GJ2K_HD_STATIC void tier1_encode_passes(tier1_block_encoder *block, uint32_t *flags,
                                        unsigned planes, unsigned style, tier1_pass_info *passes,
                                        mq_snapshot *snapshots)
{
    tier1_block_encoder *b = block;
    b->ws = (ptrdiff_t)b->width + 2;
    memset(flags, 0, sizeof(uint32_t) * TIER1_STATE_WORDS(b->width, b->height));
    b->words = flags + b->ws + 1;
    const bool predictable = (style & TIER1_STYLE_PREDICTABLE) != 0;
    unsigned count = 3 * planes - 2, segment_first = 0;
    size_t segment_start = 0;
    bool open = false;
    for (unsigned j = 0; j < count; j++) {
        tier1_pass_type type = tier1_pass_type_of(j);
        unsigned p = planes - 1 - (j + 2) / 3;
        bool raw = tier1_pass_is_raw(j, style);
        if (!open) {
            if (raw)
                mq_encoder_start_bypass(&b->mq);
            else
                mq_encoder_start(&b->mq);
            open = true;
            segment_first = j;
            segment_start = b->mq.length;
        }
        double reduction = encode_pass(b, type, p, raw, b->measure);
        if (type == TIER1_PASS_CLEANUP && (style & TIER1_STYLE_SEGMENTATION)) {
            /* D.5: 1010 in the UNIFORM context */
            for (unsigned k = 0; k < 4; k++)
                mq_encoder_encode_bit(&b->mq, MQ_CONTEXT_UNIFORM, (0xAu >> (3 - k)) & 1u);
        }
        tier1_pass_info *info = &passes[j];
        info->distortion_reduction = reduction;
        info->ends_segment = tier1_pass_ends_segment(j, style) || j == count - 1;
        if (info->ends_segment) {
            if (raw)
                mq_encoder_flush_bypass(&b->mq, predictable);
            else if (predictable)
                mq_encoder_flush_predictable(&b->mq);
            else
                mq_encoder_flush(&b->mq);
            info->length = b->mq.length;
            encode_settle_lengths(passes, snapshots, style, b->mq.data, segment_first, j,
                                  segment_start, b->mq.length);
            open = false;
        } else {
            /* a raw pass keeps this bound; an arithmetic pass's length is
             * settled from its snapshot when its segment ends */
            info->length = raw ? mq_encoder_bypass_truncation_length(&b->mq) : 0;
            snapshots[j] = mq_encoder_snapshot(&b->mq);
        }
        if (style & TIER1_STYLE_RESET)
            mq_reset_contexts(b->mq.contexts);
    }
}

#endif
