/* mq_decoder.h - the MQ decoder (T.800 Annex C.3) and the raw bypass reader
 * (D.6), all inline, for the host and the GPU alike. It reads one segment
 * of caller-given length and never outside it; see mq_coder.h.
 * The decoder holds scalars and a pointer to its contexts (kept by the
 * caller) only, so that a coding pass can copy it into a local that the
 * compiler keeps in registers (a store to a context byte may alias any
 * memory, so registers kept in memory would be reloaded after each). */
#ifndef GJ2K_MQ_DECODER_H
#define GJ2K_MQ_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mq_coder.h"

typedef struct mq_decoder {
    const uint8_t *at;      /* the byte B last read, or the segment's end */
    size_t left;            /* bytes from B to the segment's end */
    uint32_t a, c;          /* interval and code registers (C.3) */
    unsigned ct;
    mq_context *contexts;   /* MQ_NUM_CONTEXTS of them, the caller's */
} mq_decoder;

/* The byte k places after B, or 0xFF past the end of the segment (C.3.4). */
MQ_INLINE uint32_t mq_decoder_byte_at(const mq_decoder *d, size_t k)
{
    return k < d->left ? d->at[k] : 0xFFu;
}

/* Moves B on by one byte, or stays at the segment's end. */
MQ_INLINE void mq_decoder_advance(mq_decoder *d)
{
    if (d->left > 0) {
        d->at++;
        d->left--;
    }
}

/* BYTEIN (C.3.4): a 0xFF followed by a byte above 0x8F is a marker or the
 * end; the decoder then feeds 1 bits and stays put. */
MQ_INLINE void mq_decoder_byte_in(mq_decoder *d)
{
    if (mq_decoder_byte_at(d, 0) == 0xFF) {
        uint32_t next = mq_decoder_byte_at(d, 1);
        if (next > 0x8F) {
            d->c += 0xFF00u;
            d->ct = 8;
        } else { /* B is not the end: it has a byte after it */
            d->at++;
            d->left--;
            d->c += next << 9;
            d->ct = 7;
        }
    } else { /* B is not past the end: it is not 0xFF */
        d->at++;
        d->left--;
        d->c += mq_decoder_byte_at(d, 0) << 8;
        d->ct = 8;
    }
}

/* DECODE (C.3.2): MPS_EXCHANGE and LPS_EXCHANGE (C.3.3), RENORMD (C.3.3). */
MQ_INLINE unsigned mq_decoder_decode_bit(mq_decoder *d, unsigned context)
{
    mq_context *cx = &d->contexts[context];
    const mq_state *s = &MQ_STATES[*cx];
    uint32_t qe = s->qe;
    unsigned mps = *cx & 1u, bit;
    d->a -= qe;
    if (d->c < s->qe_high) {
        /* the lower sub-interval: the LPS, or the MPS after an exchange */
        if (d->a < qe) {
            bit = mps;
            *cx = s->next_mps;
        } else {
            bit = mps ^ 1u;
            *cx = s->next_lps;
        }
        d->a = qe;
    } else {
        d->c -= s->qe_high;
        if (d->a & 0x8000u)
            return mps;
        if (d->a < qe) {
            bit = mps ^ 1u;
            *cx = s->next_lps;
        } else {
            bit = mps;
            *cx = s->next_mps;
        }
    }
    do {
        if (GJ2K_UNLIKELY(d->ct == 0)) /* a byte in 8 shifts */
            mq_decoder_byte_in(d);
        d->a <<= 1;
        d->c <<= 1;
        d->ct--;
    } while ((d->a & 0x8000u) == 0);
    return bit;
}

/* One raw bit (D.6): after 0xFF the stuffed MSB of the next byte is skipped. */
MQ_INLINE unsigned mq_decoder_bypass_bit(mq_decoder *d)
{
    if (d->ct == 0) {
        bool after_ff = d->c == 0xFF;
        d->c = mq_decoder_byte_at(d, 0);
        mq_decoder_advance(d);
        d->ct = after_ff ? 7 : 8;
    }
    d->ct--;
    return (d->c >> d->ct) & 1u;
}

/* INITDEC (C.3.5, Figure C.20) on a segment of `length` bytes. Contexts
 * (d->contexts, set by the caller) are untouched. */
MQ_INLINE void mq_decoder_start(mq_decoder *d, const uint8_t *data, size_t length)
{
    d->at = data;
    d->left = data != NULL ? length : 0;
    d->c = mq_decoder_byte_at(d, 0) << 16;
    mq_decoder_byte_in(d);
    d->c <<= 7;
    d->ct -= 7;
    d->a = 0x8000;
}

/* Begins a raw (bypass) segment (D.6). */
MQ_INLINE void mq_decoder_start_bypass(mq_decoder *d, const uint8_t *data, size_t length)
{
    d->at = data;
    d->left = data != NULL ? length : 0;
    d->c = 0;
    d->ct = 0;
}

#endif
