/* mq_decoder.c - the MQ decoder (T.800 Annex C.3) and the raw bypass reader
 * (D.6). */
#include "mq_decoder.h"

/* INITDEC (C.3.5, Figure C.20). */
void mq_decoder_start(mq_decoder *d, const uint8_t *data, size_t length)
{
    d->data = data;
    d->length = data != NULL ? length : 0;
    d->position = 0;
    d->c = mq_decoder_byte_at(d, 0) << 16;
    mq_decoder_byte_in(d);
    d->c <<= 7;
    d->ct -= 7;
    d->a = 0x8000;
}

void mq_decoder_start_bypass(mq_decoder *d, const uint8_t *data, size_t length)
{
    d->data = data;
    d->length = data != NULL ? length : 0;
    d->position = 0;
    d->c = 0;
    d->ct = 0;
}
