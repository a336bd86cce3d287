/* mq_coder.h - the MQ arithmetic coder of ITU-T T.800 Annex C, both
 * directions, with the raw (bypass) bit coding of Annex D.6.
 *
 * A context's state is one byte: (index into Table C.2) << 1 | MPS. The
 * encoder and the decoder each carry MQ_NUM_CONTEXTS of them; they persist
 * across codeword segments and change only as the symbols and
 * mq_reset_contexts say.
 *
 * Encoder output goes to a growable buffer owned by the encoder. Codeword
 * segments (Annex D.4) are appended one after another: mq_encoder_start (or
 * mq_encoder_start_bypass) begins one at the current end of the buffer, and a
 * flush ends it. A terminated segment never ends with 0xFF: that byte is
 * dropped, since a decoder supplies 0xFF bytes past the end (C.3.4).
 *
 * The decoder reads one segment of caller-given length and never outside it:
 * past its end it sees 0xFF bytes (C.3.4), so truncated or corrupt data give
 * wrong symbols but never wrong memory accesses.
 */
#ifndef GJ2K_MQ_CODER_H
#define GJ2K_MQ_CODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The per-symbol functions below must be inlined into the coding passes. */
#if defined(__GNUC__)
#define MQ_INLINE static inline __attribute__((always_inline))
#else
#define MQ_INLINE static inline
#endif

#define MQ_NUM_CONTEXTS 19 /* Table D.7: 9 zero coding, 5 sign, 3 refinement, run-length, uniform */
#define MQ_NUM_STATES 47   /* Table C.2 */

/* The context labels of Annex D (Tables D.1-D.4, D.7). */
enum {
    MQ_CONTEXT_ZERO_FIRST = 0,    /* zero coding, 0..8 */
    MQ_CONTEXT_SIGN_FIRST = 9,    /* sign coding, 9..13 */
    MQ_CONTEXT_REFINE_FIRST = 14, /* magnitude refinement, 14..16 */
    MQ_CONTEXT_RUN_LENGTH = 17,
    MQ_CONTEXT_UNIFORM = 18
};

typedef uint8_t mq_context;

/* One state of Table C.2 for one MPS sense: Qe and the states that follow
 * an MPS and an LPS (index << 1 | MPS, SWITCH applied). */
typedef struct mq_state {
    uint16_t qe;
    uint8_t next_mps;
    uint8_t next_lps;
} mq_state;

/* Indexed by a context's state byte. */
extern const mq_state mq_states[2 * MQ_NUM_STATES];

/* Sets the 19 contexts to their initial states (Table D.7): all index 0,
 * MPS 0, except UNIFORM (46), RUN-LENGTH (3) and zero coding context 0 (4). */
void mq_reset_contexts(mq_context contexts[MQ_NUM_CONTEXTS]);

/* ------------------------------------------------------------- encoder */

typedef struct mq_encoder {
    uint8_t *data;          /* all segments so far; owned, free with mq_encoder_release */
    size_t length;          /* bytes in data, the pending byte B included */
    size_t capacity;
    size_t segment_start;   /* where the current segment began */
    bool out_of_memory;     /* a byte could not be stored; the output is unusable */
    uint32_t a, c;          /* interval and code registers (C.2) */
    unsigned ct;            /* shifts until the next byte (C.2) */
    uint32_t raw_byte;      /* bypass: bits gathered, MSB first (D.6) */
    unsigned raw_free;      /* bypass: bit positions left in raw_byte */
    unsigned raw_size;      /* bypass: bits raw_byte holds, 8 or 7 after 0xFF */
    mq_context contexts[MQ_NUM_CONTEXTS];
} mq_encoder;

/* An empty encoder with `capacity` bytes reserved (0 for a default) and the
 * contexts at their initial states. Fails only when the memory cannot be had. */
bool mq_encoder_init(mq_encoder *e, size_t capacity);
void mq_encoder_release(mq_encoder *e);

/* INITENC (C.2.8): begins an arithmetic-coded segment at the end of the buffer. */
void mq_encoder_start(mq_encoder *e);
/* BYTEOUT (C.2.7), with the bit stuffing after 0xFF. */
void mq_encoder_byte_out(mq_encoder *e);
/* FLUSH (C.2.9): the default termination of a segment. */
void mq_encoder_flush(mq_encoder *e);
/* Predictable termination (D.4.2): only the bits needed to identify the
 * final interval, its spare bits left as the coder had them. */
void mq_encoder_flush_predictable(mq_encoder *e);
/* Bytes of the buffer that suffice to decode every symbol of the current
 * segment coded so far, when the rest is replaced by 0xFF (C.3.4). An upper
 * bound, at most 4 bytes past the pending byte; the caller caps it by the
 * final length of the segment. */
size_t mq_encoder_truncation_length(const mq_encoder *e);

/* The coder's state at the end of a pass, to find later, once the
 * segment's bytes are final, the shortest prefix that still decodes every
 * symbol coded up to then (mq_snapshot_truncation_length). */
typedef struct mq_snapshot {
    size_t length;        /* bytes in the buffer, the pending byte B included */
    uint32_t pending;     /* B as it was (a later carry may raise it) */
    uint32_t a, c;
    unsigned ct;
} mq_snapshot;

mq_snapshot mq_encoder_snapshot(const mq_encoder *e);
/* The fewest bytes of the buffer (counted from 0, as `length`) such that
 * the segment [segment_start, segment_end) cut there, followed by the 1 bits
 * a decoder supplies (C.3.4), codes a value inside the interval [C, C + A)
 * of the snapshot: every symbol up to it decodes as coded. Never ends on
 * 0xFF; at most segment_end. */
size_t mq_snapshot_truncation_length(const mq_snapshot *snapshot, const uint8_t *data,
                                     size_t segment_start, size_t segment_end);

/* Appends a byte to the buffer (growing it); used by the coders. */
void mq_encoder_put_byte(mq_encoder *e, uint32_t byte);

/* ENCODE (C.2.2): CODEMPS (C.2.4) or CODELPS (C.2.5), then RENORME (C.2.6). */
MQ_INLINE void mq_encoder_encode_bit(mq_encoder *e, unsigned context, unsigned bit)
{
    mq_context *cx = &e->contexts[context];
    const mq_state *s = &mq_states[*cx];
    uint32_t qe = s->qe;
    e->a -= qe;
    if ((bit & 1u) == (*cx & 1u)) {
        if (e->a & 0x8000u) {
            e->c += qe;
            return;
        }
        if (e->a < qe)
            e->a = qe; /* conditional exchange: the MPS takes the lower part */
        else
            e->c += qe;
        *cx = s->next_mps;
    } else {
        if (e->a < qe)
            e->c += qe; /* conditional exchange: the LPS takes the upper part */
        else
            e->a = qe;
        *cx = s->next_lps;
    }
    do {
        e->a <<= 1;
        e->c <<= 1;
        if (--e->ct == 0)
            mq_encoder_byte_out(e);
    } while ((e->a & 0x8000u) == 0);
}

/* Bypass (raw) coding, D.6: bits go MSB first; after a 0xFF byte the next
 * byte carries 7 bits behind a stuffed 0. */
void mq_encoder_start_bypass(mq_encoder *e);
/* Ends a raw segment: pads the last byte with 0, 1, 0, 1... A final 0xFF is
 * dropped, or with predictable termination followed by a padding byte. */
void mq_encoder_flush_bypass(mq_encoder *e, bool predictable);
/* Bytes that hold every raw bit so far (the partial byte included). */
size_t mq_encoder_bypass_truncation_length(const mq_encoder *e);

MQ_INLINE void mq_encoder_bypass_put_bit(mq_encoder *e, unsigned bit)
{
    e->raw_free--;
    e->raw_byte |= (uint32_t)(bit & 1u) << e->raw_free;
    if (e->raw_free == 0) {
        mq_encoder_put_byte(e, e->raw_byte);
        e->raw_size = e->raw_byte == 0xFF ? 7 : 8;
        e->raw_free = e->raw_size;
        e->raw_byte = 0;
    }
}

/* ------------------------------------------------------------- decoder */

typedef struct mq_decoder {
    const uint8_t *data;    /* the current segment */
    size_t length;
    size_t position;        /* of the byte B last read (may pass the end) */
    uint32_t a, c;          /* interval and code registers (C.3) */
    unsigned ct;
    mq_context contexts[MQ_NUM_CONTEXTS];
} mq_decoder;

/* INITDEC (C.3.5) on a segment of `length` bytes. Contexts are untouched. */
void mq_decoder_start(mq_decoder *d, const uint8_t *data, size_t length);
/* Begins a raw (bypass) segment (D.6). */
void mq_decoder_start_bypass(mq_decoder *d, const uint8_t *data, size_t length);

/* The byte at `position`, or 0xFF past the end of the segment (C.3.4). */
MQ_INLINE uint32_t mq_decoder_byte_at(const mq_decoder *d, size_t position)
{
    return position < d->length ? d->data[position] : 0xFFu;
}

/* BYTEIN (C.3.4): a 0xFF followed by a byte above 0x8F is a marker or the
 * end; the decoder then feeds 1 bits and stays put. */
MQ_INLINE void mq_decoder_byte_in(mq_decoder *d)
{
    if (mq_decoder_byte_at(d, d->position) == 0xFF) {
        uint32_t next = mq_decoder_byte_at(d, d->position + 1);
        if (next > 0x8F) {
            d->c += 0xFF00u;
            d->ct = 8;
        } else {
            d->position++;
            d->c += next << 9;
            d->ct = 7;
        }
    } else {
        d->position++;
        d->c += mq_decoder_byte_at(d, d->position) << 8;
        d->ct = 8;
    }
}

/* DECODE (C.3.2): MPS_EXCHANGE and LPS_EXCHANGE (C.3.3), RENORMD (C.3.3). */
MQ_INLINE unsigned mq_decoder_decode_bit(mq_decoder *d, unsigned context)
{
    mq_context *cx = &d->contexts[context];
    const mq_state *s = &mq_states[*cx];
    uint32_t qe = s->qe;
    unsigned mps = *cx & 1u, bit;
    d->a -= qe;
    if ((d->c >> 16) < qe) {
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
        d->c -= qe << 16;
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
        if (d->ct == 0)
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
        d->c = mq_decoder_byte_at(d, d->position);
        d->position++;
        d->ct = after_ff ? 7 : 8;
    }
    d->ct--;
    return (d->c >> d->ct) & 1u;
}

#endif
