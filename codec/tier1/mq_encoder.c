/* mq_encoder.c - the host's side of the MQ encoder (mq_encoder.h): its
 * growable buffer. */
#include "mq_encoder.h"

#include <stdlib.h>

bool mq_encoder_init(mq_encoder *e, size_t capacity)
{
    *e = (mq_encoder){0};
    capacity = capacity ? capacity : 256;
    uint8_t *data = malloc(capacity);
    mq_encoder_begin(e, data, data ? capacity : 0);
    if (data == NULL) {
        e->out_of_memory = true;
        return false;
    }
    return true;
}

void mq_encoder_release(mq_encoder *e)
{
    free(e->data);
    e->data = NULL;
    e->length = e->capacity = 0;
}

bool mq_encoder_grow(mq_encoder *e)
{
    size_t capacity = e->capacity ? 2 * e->capacity : 256;
    uint8_t *grown = capacity > e->capacity ? realloc(e->data, capacity) : NULL;
    if (grown == NULL) {
        e->out_of_memory = true;
        return false;
    }
    e->data = grown;
    e->capacity = capacity;
    return true;
}

void mq_encoder_byte_out(mq_encoder *e) { mq_encoder_byte_out_inline(e); }
