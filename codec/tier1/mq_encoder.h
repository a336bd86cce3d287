/* mq_encoder.h - the MQ encoder (T.800 Annex C.2) and the raw bypass writer
 * (D.6). Output goes to a growable buffer owned by the encoder; see
 * mq_coder.h for how segments follow one another. */
#ifndef GJ2K_MQ_ENCODER_H
#define GJ2K_MQ_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mq_coder.h"

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
    const mq_state *s = &MQ_STATES[*cx];
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

#endif
