/* mq_encoder.c - the host's side of the MQ encoder (mq_encoder.h): its
 * growable buffer. */
#include "mq_encoder.h"

#include <stdlib.h>

bool mq_encoder_init(mq_encoder *e, mq_context *contexts, size_t capacity)
{
    *e = (mq_encoder){0};
    capacity = capacity ? capacity : 256;
    uint8_t *data = malloc(capacity);
    mq_encoder_begin(e, contexts, data, data ? capacity : 0);
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

mq_buffer mq_buffer_grown(uint8_t *data, size_t capacity)
{
    size_t grown_capacity = capacity ? 2 * capacity : 256;
    uint8_t *grown = grown_capacity > capacity ? realloc(data, grown_capacity) : NULL;
    return (mq_buffer){grown, grown ? grown_capacity : capacity};
}
