/* tier1_decode_block.h - the Tier-1 block decoder (T.800 Annex D over the
 * MQ decoder of Annex C), the mirror of tier1_encode.c: the same passes and
 * scan, reading symbols instead. Written once, inline, for the host
 * (tier1_decode.c) and the GPU (cuda/tier1_decode_gpu.cu): the CPU build
 * and its tests run the very code the GPU runs. */
#ifndef GJ2K_TIER1_DECODE_BLOCK_H
#define GJ2K_TIER1_DECODE_BLOCK_H

#include <string.h>

#include "tier1.h"
#include "tier1_words.h"

/* What the passes read: scalars and pointers only, so that each pass
 * works on a copy in locals (registers) and writes back the MQ registers. */
typedef struct tier1_block_decoder {
    uint32_t *words;   /* the word of stripe 0, column 0 (borders at -1) */
    uint32_t *mag;     /* magnitude bits decoded so far, row-major */
    ptrdiff_t ws;      /* words a stripe: width + 2 */
    uint32_t width, height;
    const uint8_t *zero_context;
    bool causal;
    mq_decoder mq;     /* its contexts: the state's below */
} tier1_block_decoder;

/* A block decoder and its MQ contexts: the caller's (the GPU keeps it in
 * shared memory). */
typedef struct tier1_block_decoder_state {
    tier1_block_decoder block;
    mq_context contexts[MQ_NUM_CONTEXTS];
} tier1_block_decoder_state;

/* Decodes the sign (D.3.2) of row r of the column at w, which has just
 * become significant, and updates the words. */
GJ2K_HD_INLINE void decode_sign(tier1_block_decoder *b, uint32_t *w, unsigned r, bool raw)
{
    unsigned negative;
    if (raw) {
        negative = mq_decoder_bypass_bit(&b->mq);
    } else {
        unsigned sc = TIER1_SIGN_TABLE[t1w_sign_index(w, r)];
        negative = mq_decoder_decode_bit(&b->mq, sc & 15u) ^ (sc >> 4);
    }
    t1w_set_significant(w, b->ws, b->causal, r, negative != 0);
}

/* One sample of the significance propagation pass: decoded when not yet
 * significant and some neighbour is. */
GJ2K_HD_INLINE void propagate_sample(tier1_block_decoder *b, uint32_t *w, uint32_t *m,
                                     uint32_t one, unsigned r, bool raw)
{
    uint32_t word = *w;
    if (word & T1W_SIG((int)r, 1))
        return;
    unsigned n = t1w_neighbours(word, r);
    if (n == 0)
        return;
    unsigned bit = raw ? mq_decoder_bypass_bit(&b->mq)
                       : mq_decoder_decode_bit(&b->mq, b->zero_context[n]);
    *w = word | T1W_VISITED(r);
    if (bit) {
        decode_sign(b, w, r, raw);
        *m |= one;
    }
}

/* Significance propagation pass (D.3.1), on the pass's copy of the decoder. */
GJ2K_HD_INLINE void significance_pass_on(tier1_block_decoder *b, unsigned p, bool raw)
{
    const uint32_t one = 1u << p, w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *wd = words + x;
            uint32_t *m = b->mag + (size_t)y0 * w + x;
            uint32_t word = *wd;
            /* nothing significant around, or all four significant: nothing
               to visit (the column before is done; this one changes only
               its own rows' neighbourhoods, which the rows re-read) */
            if (!(word & T1W_WINDOW) || (word & T1W_SELF_ALL) == T1W_SELF_ALL)
                continue;
            if (rows == 4) { /* the rows as constants: their shifts are too */
                propagate_sample(b, wd, m, one, 0, raw);
                propagate_sample(b, wd, m + w, one, 1, raw);
                propagate_sample(b, wd, m + 2 * (size_t)w, one, 2, raw);
                propagate_sample(b, wd, m + 3 * (size_t)w, one, 3, raw);
                continue;
            }
            for (uint32_t r = 0; r < rows; r++)
                propagate_sample(b, wd, m + (size_t)r * w, one, r, raw);
        }
    }
}

/* Significance propagation pass (D.3.1): the decoder copied into locals,
 * the body specialised for raw and MQ coding. */
GJ2K_HD_STATIC GJ2K_HOST_NOINLINE void significance_pass(tier1_block_decoder *state, unsigned p,
                                                         bool raw)
{
    tier1_block_decoder b = *state;
    if (raw)
        significance_pass_on(&b, p, true);
    else
        significance_pass_on(&b, p, false);
    state->mq = b.mq;
}

/* One sample of the magnitude refinement pass: refined when significant
 * before this plane (not visited by its significance pass); returns the
 * column's word with it marked refined. */
GJ2K_HD_INLINE uint32_t refine_sample(tier1_block_decoder *b, uint32_t word, uint32_t *m,
                                      unsigned p, unsigned r, bool raw)
{
    if ((word & (T1W_SIG((int)r, 1) | T1W_VISITED(r))) != T1W_SIG((int)r, 1))
        return word;
    unsigned context = (word & T1W_REFINED(r)) ? 16u : t1w_neighbours(word, r) ? 15u : 14u;
    unsigned bit = raw ? mq_decoder_bypass_bit(&b->mq) : mq_decoder_decode_bit(&b->mq, context);
    *m |= (uint32_t)bit << p;
    return word | T1W_REFINED(r);
}

/* Magnitude refinement pass (D.3.3) on the pass's copy of the decoder:
 * samples significant before this plane (not visited by its significance
 * pass). */
GJ2K_HD_INLINE void refinement_pass_on(tier1_block_decoder *b, unsigned p, bool raw)
{
    const uint32_t w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t word = words[x];
            if (!(word & T1W_SELF_ALL))
                continue; /* nothing significant to refine */
            uint32_t *m = b->mag + (size_t)y0 * w + x;
            if (rows == 4) {
                word = refine_sample(b, word, m, p, 0, raw);
                word = refine_sample(b, word, m + w, p, 1, raw);
                word = refine_sample(b, word, m + 2 * (size_t)w, p, 2, raw);
                word = refine_sample(b, word, m + 3 * (size_t)w, p, 3, raw);
            } else {
                for (uint32_t r = 0; r < rows; r++)
                    word = refine_sample(b, word, m + (size_t)r * w, p, r, raw);
            }
            words[x] = word; /* refinement changes no other word */
        }
    }
}

/* Magnitude refinement pass (D.3.3), as significance_pass. */
GJ2K_HD_STATIC GJ2K_HOST_NOINLINE void refinement_pass(tier1_block_decoder *state, unsigned p,
                                                       bool raw)
{
    tier1_block_decoder b = *state;
    if (raw)
        refinement_pass_on(&b, p, true);
    else
        refinement_pass_on(&b, p, false);
    state->mq = b.mq;
}

/* One sample of the cleanup pass outside run-length mode: decoded when
 * neither significant nor visited. */
GJ2K_HD_INLINE void clean_sample(tier1_block_decoder *b, uint32_t *w, uint32_t *m, uint32_t one,
                                 unsigned r)
{
    uint32_t word = *w;
    if ((word & (T1W_SIG((int)r, 1) | T1W_VISITED(r))) ||
        !mq_decoder_decode_bit(&b->mq, b->zero_context[t1w_neighbours(word, r)]))
        return;
    decode_sign(b, w, r, false);
    *m |= one;
}

/* Cleanup pass (D.3.4) with run-length decoding, on the pass's copy of
 * the decoder; clears the visited flags. */
GJ2K_HD_INLINE void cleanup_pass_on(tier1_block_decoder *b, unsigned p)
{
    const uint32_t one = 1u << p, w = b->width, h = b->height;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t rows = h - y0 < 4 ? h - y0 : 4;
        uint32_t *words = b->words + (ptrdiff_t)(y0 / 4) * b->ws;
        for (uint32_t x = 0; x < w; x++) {
            uint32_t *wd = words + x;
            uint32_t *m = b->mag + (size_t)y0 * w + x;
            uint32_t r = 0;
            /* run mode: four rows, none significant or visited, and no
               significant neighbour */
            if (rows == 4 && !(*wd & (T1W_WINDOW | T1W_VISITED_ALL))) {
                if (!mq_decoder_decode_bit(&b->mq, MQ_CONTEXT_RUN_LENGTH))
                    continue;
                uint32_t k = mq_decoder_decode_bit(&b->mq, MQ_CONTEXT_UNIFORM) << 1;
                k |= mq_decoder_decode_bit(&b->mq, MQ_CONTEXT_UNIFORM);
                decode_sign(b, wd, k, false);
                m[(size_t)k * w] |= one;
                r = k + 1;
            }
            if (r == 0 && rows == 4) { /* the rows as constants */
                clean_sample(b, wd, m, one, 0);
                clean_sample(b, wd, m + w, one, 1);
                clean_sample(b, wd, m + 2 * (size_t)w, one, 2);
                clean_sample(b, wd, m + 3 * (size_t)w, one, 3);
            } else {
                for (; r < rows; r++)
                    clean_sample(b, wd, m + (size_t)r * w, one, r);
            }
            *wd &= ~T1W_VISITED_ALL;
        }
    }
}

/* Cleanup pass (D.3.4), the decoder copied into locals. */
GJ2K_HD_STATIC GJ2K_HOST_NOINLINE void cleanup_pass(tier1_block_decoder *state, unsigned p)
{
    tier1_block_decoder b = *state;
    cleanup_pass_on(&b, p);
    state->mq = b.mq;
}

/* Runs pass j (0-based) of a block of `planes` planes; returns false when
 * the segmentation symbol that ends a cleanup pass is wrong (D.5). */
GJ2K_HD static inline bool decode_pass(tier1_block_decoder *b, unsigned j, unsigned planes, unsigned style)
{
    tier1_pass_type type = tier1_pass_type_of(j);
    unsigned p = planes - 1 - (j + 2) / 3;
    bool raw = tier1_pass_is_raw(j, style), ok = true;
    if (type == TIER1_PASS_SIGNIFICANCE) {
        significance_pass(b, p, raw);
    } else if (type == TIER1_PASS_REFINEMENT) {
        refinement_pass(b, p, raw);
    } else {
        cleanup_pass(b, p);
        if (style & TIER1_STYLE_SEGMENTATION) {
            unsigned symbol = 0;
            for (unsigned k = 0; k < 4; k++)
                symbol = symbol << 1 | mq_decoder_decode_bit(&b->mq, MQ_CONTEXT_UNIFORM);
            ok = symbol == 0xA;
        }
    }
    if (style & TIER1_STYLE_RESET)
        mq_reset_contexts(b->mq.contexts);
    return ok;
}

/* Writes the signed coefficients and, if asked, the lowest known plane of
 * each: after a significance pass on plane p only the samples it visited
 * know bit p; after a refinement pass the significant ones too. */
GJ2K_HD_STATIC void write_block(const tier1_block_decoder *b, unsigned planes, unsigned passes,
                        int32_t *coefficients, size_t stride, uint8_t *lowest)
{
    tier1_pass_type type = passes ? tier1_pass_type_of(passes - 1) : TIER1_PASS_CLEANUP;
    unsigned p = passes ? planes - 1 - (passes + 1) / 3 : planes;
    for (uint32_t y = 0; y < b->height; y++) {
        const uint32_t *words = b->words + (ptrdiff_t)(y / 4) * b->ws;
        const unsigned r = y % 4;
        const uint32_t *m = b->mag + (size_t)y * b->width;
        int32_t *out = coefficients + (size_t)y * stride;
        for (uint32_t x = 0; x < b->width; x++) {
            int32_t v = (int32_t)m[x];
            out[x] = (words[x] & T1W_NEG((int)r)) ? -v : v;
        }
        if (lowest == NULL)
            continue;
        uint8_t *low = lowest + (size_t)y * stride;
        uint32_t known = T1W_VISITED(r);
        if (type == TIER1_PASS_REFINEMENT)
            known |= T1W_SIG((int)r, 1);
        for (uint32_t x = 0; x < b->width; x++) {
            bool at_p = type == TIER1_PASS_CLEANUP || (words[x] & known) != 0;
            low[x] = (uint8_t)(at_p ? p : p + 1);
        }
    }
}

/* tier1_decode_block on a request already checked (size, band, style,
 * planes <= 31), in caller scratch: the decoder's state at `decoder` (the
 * GPU keeps it in shared memory), `flags` of (width + 2) * (height + 2) and
 * `magnitudes` of width * height elements. */
GJ2K_HD_INLINE gj2k_status tier1_decode_block_in(const tier1_decode_request *request,
                                                 tier1_block_decoder_state *decoder,
                                                 uint32_t *flags, uint32_t *magnitudes,
                                                 int32_t *coefficients, size_t stride,
                                                 uint8_t *lowest_known_plane,
                                                 tier1_decode_result *result)
{
    const uint32_t width = request->width, height = request->height;
    const unsigned planes = request->num_planes, style = request->style;
    tier1_block_decoder *b = &decoder->block;
    b->mq.contexts = decoder->contexts;
    b->ws = (ptrdiff_t)width + 2;
    memset(flags, 0, sizeof(uint32_t) * TIER1_STATE_WORDS(width, height));
    memset(magnitudes, 0, sizeof(uint32_t) * (size_t)width * height);
    b->words = flags + b->ws + 1;
    b->mag = magnitudes;
    b->width = width;
    b->height = height;
    b->zero_context = TIER1_ZERO_CONTEXT[request->band];
    b->causal = (style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0;
    mq_reset_contexts(b->mq.contexts);

    gj2k_status status = GJ2K_OK;
    const unsigned max_passes = planes ? 3 * planes - 2 : 0;
    unsigned pass = 0;
    size_t offset = 0;
    for (unsigned s = 0; s < request->num_segments; s++) {
        const tier1_segment *segment = &request->segments[s];
        size_t available = offset < request->size ? request->size - offset : 0;
        size_t length = segment->length;
        if (length > available) {
            length = available;
            status = GJ2K_ERROR_TRUNCATED;
        }
        const uint8_t *data = length ? request->data + offset : NULL;
        offset = segment->length > SIZE_MAX - offset ? SIZE_MAX : offset + segment->length;
        if (segment->num_passes == 0)
            continue;
        unsigned n = segment->num_passes;
        if (n > max_passes - pass) {
            n = max_passes - pass;
            status = GJ2K_ERROR_MALFORMED;
        }
        if (n == 0)
            break;
        /* one coder per segment: its passes are all raw or all arithmetic */
        bool raw = tier1_pass_is_raw(pass, style);
        unsigned same = 1;
        while (same < n && tier1_pass_is_raw(pass + same, style) == raw)
            same++;
        if (same < n)
            status = GJ2K_ERROR_MALFORMED;
        if (raw)
            mq_decoder_start_bypass(&b->mq, data, length);
        else
            mq_decoder_start(&b->mq, data, length);
        for (unsigned k = 0; k < same; k++, pass++)
            if (!decode_pass(b, pass, planes, style))
                result->segmentation_errors++;
        if (same < n)
            break;
    }
    result->passes_decoded = pass;
    write_block(b, planes, pass, coefficients, stride, lowest_known_plane);
    return status;
}

#endif
