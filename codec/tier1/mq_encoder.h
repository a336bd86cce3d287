/* mq_encoder.h - the MQ encoder (T.800 Annex C.2), its terminations (C.2.9,
 * D.4.2) and the raw bypass writer (D.6), inline for the host and the GPU
 * alike. Output goes to a buffer the encoder is given: on the host it grows
 * as needed (mq_encoder_init, mq_buffer_grown); on the GPU it is a slot of
 * fixed size, and filling it sets out_of_memory. See mq_coder.h for how
 * segments follow one another.
 * The encoder holds scalars and a pointer to its contexts (the caller's)
 * only, and nothing here takes its address out of line: a coder can copy
 * it into a local that the compiler keeps in registers. */
#ifndef GJ2K_MQ_ENCODER_H
#define GJ2K_MQ_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mq_coder.h"

typedef struct mq_encoder {
    uint8_t *data;          /* all segments so far (on the host: owned, see mq_encoder_release) */
    size_t length;          /* bytes in data, the pending byte B included */
    size_t capacity;
    size_t segment_start;   /* where the current segment began */
    bool out_of_memory;     /* a byte could not be stored; the output is unusable */
    uint32_t a, c;          /* interval and code registers (C.2) */
    unsigned ct;            /* shifts until the next byte (C.2) */
    uint32_t raw_byte;      /* bypass: bits gathered, MSB first (D.6) */
    unsigned raw_free;      /* bypass: bit positions left in raw_byte */
    unsigned raw_size;      /* bypass: bits raw_byte holds, 8 or 7 after 0xFF */
    mq_context *contexts;   /* MQ_NUM_CONTEXTS of them, the caller's */
} mq_encoder;

/* A grown buffer: its bytes and capacity, or data NULL when it could not
 * grow (the old buffer is then still the caller's). */
typedef struct mq_buffer {
    uint8_t *data;
    size_t capacity;
} mq_buffer;

#ifdef __cplusplus
extern "C" {
#endif
/* Host only (mq_encoder.c): an empty encoder with `capacity` bytes reserved
 * (0 for a default) and its `contexts` (MQ_NUM_CONTEXTS, the caller's) at
 * their initial states; fails only when the memory cannot be had.
 * mq_buffer_grown doubles a buffer of `capacity` bytes. */
bool mq_encoder_init(mq_encoder *e, mq_context *contexts, size_t capacity);
void mq_encoder_release(mq_encoder *e);
mq_buffer mq_buffer_grown(uint8_t *data, size_t capacity);
#ifdef __cplusplus
}
#endif

/* INITENC (C.2.8, Figure C.10): begins an arithmetic-coded segment at the
 * end of the buffer. The byte before the segment is a dummy B: it is never
 * 0xFF and never receives a carry (C < 2^27 at the first BYTEOUT). */
MQ_INLINE void mq_encoder_start(mq_encoder *e)
{
    e->segment_start = e->length;
    e->a = 0x8000;
    e->c = 0;
    e->ct = 12;
}

/* An empty encoder writing into `data` (`capacity` bytes, never grown on
 * the GPU), its `contexts` at their initial states. */
MQ_INLINE void mq_encoder_begin(mq_encoder *e, mq_context *contexts, uint8_t *data,
                                size_t capacity)
{
    e->contexts = contexts;
    e->data = data;
    e->length = 0;
    e->capacity = capacity;
    e->out_of_memory = false;
    e->raw_byte = 0;
    e->raw_free = e->raw_size = 8;
    mq_reset_contexts(e->contexts);
    mq_encoder_start(e);
}

/* Appends a byte to the buffer; used by the coders. */
MQ_INLINE void mq_encoder_put_byte(mq_encoder *e, uint32_t byte)
{
    if (e->length == e->capacity) {
#ifdef GJ2K_DEVICE_BUILD
        e->out_of_memory = true;
        return;
#else
        mq_buffer grown = mq_buffer_grown(e->data, e->capacity);
        if (grown.data == NULL) {
            e->out_of_memory = true;
            return;
        }
        e->data = grown.data;
        e->capacity = grown.capacity;
#endif
    }
    e->data[e->length++] = (uint8_t)byte;
}

/* The pending byte B, or 0 for the dummy before the segment. */
MQ_INLINE uint32_t mq_encoder_pending_byte(const mq_encoder *e)
{
    return e->length > e->segment_start ? e->data[e->length - 1] : 0;
}

/* BYTEOUT (C.2.7, Figure C.9), with the bit stuffing after 0xFF. */
MQ_INLINE void mq_encoder_byte_out(mq_encoder *e)
{
    if (mq_encoder_pending_byte(e) != 0xFF) {
        if (e->c >= 0x8000000u) {
            /* the carry goes into B; B + 1 can be 0xFF, never more */
            if (e->length > e->segment_start)
                e->data[e->length - 1]++;
            e->c &= 0x7FFFFFFu;
        }
    }
    if (mq_encoder_pending_byte(e) == 0xFF) {
        mq_encoder_put_byte(e, e->c >> 20); /* 7 bits behind a stuffed 0 */
        e->c &= 0xFFFFFu;
        e->ct = 7;
    } else {
        mq_encoder_put_byte(e, e->c >> 19);
        e->c &= 0x7FFFFu;
        e->ct = 8;
    }
}


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
        if (GJ2K_UNLIKELY(--e->ct == 0)) /* a byte in 8 shifts */
            mq_encoder_byte_out(e);
    } while ((e->a & 0x8000u) == 0);
}

/* A segment never ends with 0xFF: the decoder supplies it (C.3.4). */
MQ_INLINE void mq_encoder_drop_final_ff(mq_encoder *e)
{
    if (e->length > e->segment_start && e->data[e->length - 1] == 0xFF)
        e->length--;
}

/* FLUSH (C.2.9, Figure C.11) with SETBITS (Figure C.12): the value with the
 * most trailing 1 bits in [C, C + A), then two bytes out. */
MQ_INLINE void mq_encoder_flush(mq_encoder *e)
{
    uint32_t top = e->c + e->a;
    e->c |= 0xFFFFu;
    if (e->c >= top)
        e->c -= 0x8000u;
    e->c <<= e->ct;
    mq_encoder_byte_out(e);
    e->c <<= e->ct;
    mq_encoder_byte_out(e);
    mq_encoder_drop_final_ff(e);
}

/* Predictable termination (D.4.2): the 12 - CT bits of C from bit 15 up
 * still to go out are pushed, no more; the spare bits of the last byte are
 * the coder's own, which a decoder can recompute to check the segment. A
 * decoder reading 1 bits afterwards lands inside [C, C + 2^15) and so inside
 * the final interval, A being at least 0x8000. */
MQ_INLINE void mq_encoder_flush_predictable(mq_encoder *e)
{
    int k = 12 - (int)e->ct;
    while (k > 0) {
        e->c <<= e->ct;
        mq_encoder_byte_out(e);
        k -= (int)e->ct;
    }
    mq_encoder_drop_final_ff(e);
}

/* Bytes of the buffer that suffice to decode every symbol of the current
 * segment coded so far, when the rest is replaced by 0xFF (C.3.4). The final
 * code value lies in [C, C + A) of the current frame; bytes that give its
 * bits down to bit 0 of C, with 1 bits after them, stay in that interval:
 * the 27 - CT bits below the pending byte need at most ceil((27 - CT) / 7)
 * more bytes (7 bits each after 0xFF). An upper bound; the caller caps it
 * by the final length of the segment. */
MQ_INLINE size_t mq_encoder_truncation_length(const mq_encoder *e)
{
    return e->length + (27 - e->ct + 6) / 7;
}

/* The coder's state at the end of a pass, to find later, once the
 * segment's bytes are final, the shortest prefix that still decodes every
 * symbol coded up to then (mq_snapshot_truncation_length). */
typedef struct mq_snapshot {
    size_t length;        /* bytes in the buffer, the pending byte B included */
    uint32_t pending;     /* B as it was (a later carry may raise it) */
    uint32_t a, c;
    unsigned ct;
} mq_snapshot;

MQ_INLINE mq_snapshot mq_encoder_snapshot(const mq_encoder *e)
{
    mq_snapshot s;
    s.length = e->length;
    s.pending = mq_encoder_pending_byte(e);
    s.a = e->a;
    s.c = e->c;
    s.ct = e->ct;
    return s;
}

/*
 * The fewest bytes of the buffer (counted from 0, as `length`) such that
 * the segment [segment_start, segment_end) cut there, followed by the 1 bits
 * a decoder supplies (C.3.4), codes a value inside the interval [C, C + A)
 * of the snapshot: every symbol up to it decodes as coded. Never ends on
 * 0xFF; at most segment_end.
 *
 * The code value as a decoder sees it: byte i adds F_i * 2^-p_i, where p
 * advances by 8 per byte and by 7 after 0xFF (the stuffed bit overlaps the
 * 0xFF's last bit, where the encoder's carry lands; C.2.7, C.3.4). With B at
 * index b, bit k of the snapshot's C weighs 2^(k - 27 + CT - p_b). Cutting
 * after byte L-1 and filling with 1 bits gives P_L + 2^-p_(L-1); the full
 * stream's value lies in [low, low + A) and the cut value is not below it,
 * so the cut works when P_L + 2^-p_(L-1) <= low + A. All in units of
 * 2^-(p_b + 51 - CT): byte i weighs 2^(51 - CT - (p_i - p_b)).
 */
GJ2K_HD static inline size_t mq_snapshot_truncation_length(const mq_snapshot *s,
                                                           const uint8_t *data,
                                                           size_t segment_start,
                                                           size_t segment_end)
{
    if (s->length >= segment_end)
        return segment_end;
    bool has_b = s->length > segment_start; /* else B is the dummy byte 0 */
    size_t b = s->length - 1;               /* index of B (when has_b) */
    uint32_t final_b = has_b ? data[b] : 0;
    int64_t margin = ((int64_t)s->c + (int64_t)s->a) << 24; /* low + A - P_b, bytes after b unknown */
    if (has_b) /* a later carry into B: its value rose by one unit */
        margin -= (int64_t)(final_b - s->pending) * ((int64_t)1 << (51 - s->ct));
    /* Cut right after B: only 1 bits follow it. */
    if ((!has_b || final_b != 0xFF) && margin - ((int64_t)1 << (51 - s->ct)) >= 0)
        return s->length;
    unsigned shift = 0;             /* p_i - p_b */
    uint32_t previous = final_b;
    for (size_t length = s->length + 1; length <= segment_end && length <= s->length + 5;
         length++) {
        size_t i = length - 1;       /* the last byte kept */
        shift += previous == 0xFF ? 7 : 8;
        if ((int)shift > 51 - (int)s->ct)
            break;
        int64_t weight = (int64_t)1 << (51 - s->ct - shift);
        margin -= (int64_t)data[i] * weight;
        previous = data[i];
        if (data[i] != 0xFF && margin - weight >= 0)
            return length;
    }
    return segment_end;
}

/* ----------------------------------------------------------- bypass */

/* Bypass (raw) coding, D.6: bits go MSB first; after a 0xFF byte the next
 * byte carries 7 bits behind a stuffed 0. */
MQ_INLINE void mq_encoder_start_bypass(mq_encoder *e)
{
    e->segment_start = e->length;
    e->raw_byte = 0;
    e->raw_size = 8;
    e->raw_free = 8;
}

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

/* Ends a raw segment: pads the last byte with 0, 1, 0, 1... (the first pad
 * bit is 0, so never 0xFF). A final 0xFF is dropped, or with predictable
 * termination followed by a whole padding byte of 7 bits. */
MQ_INLINE void mq_encoder_flush_bypass(mq_encoder *e, bool predictable)
{
    if (e->raw_free < e->raw_size) {
        mq_encoder_put_byte(e, e->raw_byte | (0x55u >> (8 - e->raw_free)));
    } else if (e->length > e->segment_start && e->data[e->length - 1] == 0xFF) {
        if (predictable)
            mq_encoder_put_byte(e, 0x2A);
        else
            e->length--;
    }
    e->raw_byte = 0;
    e->raw_size = 8;
    e->raw_free = 8;
}

/* Bytes that hold every raw bit so far (the partial byte included). */
MQ_INLINE size_t mq_encoder_bypass_truncation_length(const mq_encoder *e)
{
    return e->length + (e->raw_free < e->raw_size ? 1 : 0);
}

#endif
