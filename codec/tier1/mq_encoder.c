/* mq_encoder.c - the MQ encoder (T.800 Annex C.2), its terminations (C.2.9,
 * D.4.2) and the raw bypass writer (D.6). See mq_encoder.h. */
#include "mq_encoder.h"

#include <stdlib.h>

bool mq_encoder_init(mq_encoder *e, size_t capacity)
{
    *e = (mq_encoder){0};
    e->capacity = capacity ? capacity : 256;
    e->data = malloc(e->capacity);
    if (e->data == NULL) {
        e->capacity = 0;
        e->out_of_memory = true;
        return false;
    }
    mq_reset_contexts(e->contexts);
    mq_encoder_start(e);
    return true;
}

void mq_encoder_release(mq_encoder *e)
{
    free(e->data);
    e->data = NULL;
    e->length = e->capacity = 0;
}

void mq_encoder_put_byte(mq_encoder *e, uint32_t byte)
{
    if (e->length == e->capacity) {
        size_t capacity = e->capacity ? 2 * e->capacity : 256;
        uint8_t *grown = capacity > e->capacity ? realloc(e->data, capacity) : NULL;
        if (grown == NULL) {
            e->out_of_memory = true;
            return;
        }
        e->data = grown;
        e->capacity = capacity;
    }
    e->data[e->length++] = (uint8_t)byte;
}

/* INITENC (C.2.8, Figure C.10). The byte before the segment is a dummy B:
 * it is never 0xFF and never receives a carry (C < 2^27 at the first BYTEOUT). */
void mq_encoder_start(mq_encoder *e)
{
    e->segment_start = e->length;
    e->a = 0x8000;
    e->c = 0;
    e->ct = 12;
}

/* The pending byte B, or 0 for the dummy before the segment. */
static uint32_t pending_byte(const mq_encoder *e)
{
    return e->length > e->segment_start ? e->data[e->length - 1] : 0;
}

/* BYTEOUT (C.2.7, Figure C.9). */
void mq_encoder_byte_out(mq_encoder *e)
{
    if (pending_byte(e) != 0xFF) {
        if (e->c >= 0x8000000u) {
            /* the carry goes into B; B + 1 can be 0xFF, never more */
            if (e->length > e->segment_start)
                e->data[e->length - 1]++;
            e->c &= 0x7FFFFFFu;
        }
    }
    if (pending_byte(e) == 0xFF) {
        mq_encoder_put_byte(e, e->c >> 20); /* 7 bits behind a stuffed 0 */
        e->c &= 0xFFFFFu;
        e->ct = 7;
    } else {
        mq_encoder_put_byte(e, e->c >> 19);
        e->c &= 0x7FFFFu;
        e->ct = 8;
    }
}

/* A segment never ends with 0xFF: the decoder supplies it (C.3.4). */
static void drop_final_ff(mq_encoder *e)
{
    if (e->length > e->segment_start && e->data[e->length - 1] == 0xFF)
        e->length--;
}

/* FLUSH (C.2.9, Figure C.11) with SETBITS (Figure C.12): the value with the
 * most trailing 1 bits in [C, C + A), then two bytes out. */
void mq_encoder_flush(mq_encoder *e)
{
    uint32_t top = e->c + e->a;
    e->c |= 0xFFFFu;
    if (e->c >= top)
        e->c -= 0x8000u;
    e->c <<= e->ct;
    mq_encoder_byte_out(e);
    e->c <<= e->ct;
    mq_encoder_byte_out(e);
    drop_final_ff(e);
}

/* Predictable termination (D.4.2): the 12 - CT bits of C from bit 15 up
 * still to go out are pushed, no more; the spare bits of the last byte are
 * the coder's own, which a decoder can recompute to check the segment. A
 * decoder reading 1 bits afterwards lands inside [C, C + 2^15) and so inside
 * the final interval, A being at least 0x8000. */
void mq_encoder_flush_predictable(mq_encoder *e)
{
    int k = 12 - (int)e->ct;
    while (k > 0) {
        e->c <<= e->ct;
        mq_encoder_byte_out(e);
        k -= (int)e->ct;
    }
    drop_final_ff(e);
}

/* The final code value lies in [C, C + A) of the current frame; bytes that
 * give its bits down to bit 0 of C, with 1 bits after them, stay in that
 * interval. The 27 - CT bits below the pending byte need at most
 * ceil((27 - CT) / 7) more bytes (7 bits each after 0xFF). */
size_t mq_encoder_truncation_length(const mq_encoder *e)
{
    return e->length + (27 - e->ct + 6) / 7;
}

mq_snapshot mq_encoder_snapshot(const mq_encoder *e)
{
    return (mq_snapshot){.length = e->length, .pending = pending_byte(e), .a = e->a, .c = e->c,
                         .ct = e->ct};
}

/*
 * The code value as a decoder sees it: byte i adds F_i * 2^-p_i, where p
 * advances by 8 per byte and by 7 after 0xFF (the stuffed bit overlaps the
 * 0xFF's last bit, where the encoder's carry lands; C.2.7, C.3.4). With B at
 * index b, bit k of the snapshot's C weighs 2^(k - 27 + CT - p_b). Cutting
 * after byte L-1 and filling with 1 bits gives P_L + 2^-p_(L-1); the full
 * stream's value lies in [low, low + A) and the cut value is not below it,
 * so the cut works when P_L + 2^-p_(L-1) <= low + A. All in units of
 * 2^-(p_b + 51 - CT): byte i weighs 2^(51 - CT - (p_i - p_b)).
 */
size_t mq_snapshot_truncation_length(const mq_snapshot *s, const uint8_t *data,
                                     size_t segment_start, size_t segment_end)
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

void mq_encoder_start_bypass(mq_encoder *e)
{
    e->segment_start = e->length;
    e->raw_byte = 0;
    e->raw_size = 8;
    e->raw_free = 8;
}

void mq_encoder_flush_bypass(mq_encoder *e, bool predictable)
{
    if (e->raw_free < e->raw_size) {
        /* pad with 0, 1, 0, 1... (the first pad bit is 0, so never 0xFF) */
        mq_encoder_put_byte(e, e->raw_byte | (0x55u >> (8 - e->raw_free)));
    } else if (e->length > e->segment_start && e->data[e->length - 1] == 0xFF) {
        if (predictable)
            mq_encoder_put_byte(e, 0x2A); /* a whole padding byte of 7 bits */
        else
            e->length--;
    }
    e->raw_byte = 0;
    e->raw_size = 8;
    e->raw_free = 8;
}

size_t mq_encoder_bypass_truncation_length(const mq_encoder *e)
{
    return e->length + (e->raw_free < e->raw_size ? 1 : 0);
}
