/* byte_buffer.c - see byte_buffer.h. */
#include "byte_buffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "large_buffer.h"

bool byte_buffer_reserve(byte_buffer *buffer, size_t extra)
{
    if (buffer->failed)
        return false;
    if (buffer->counting)
        return true;
    if (extra <= buffer->capacity - buffer->size)
        return true;
    if (extra > SIZE_MAX / 2 - buffer->size) {
        buffer->failed = true;
        return false;
    }
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity - buffer->size < extra)
        capacity *= 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (data == NULL) {
        buffer->failed = true;
        return false;
    }
    /* the part not yet written: huge pages when it is large (an image's bytes) */
    large_buffer_advise(data + buffer->size, capacity - buffer->size);
    buffer->data = data;
    buffer->capacity = capacity;
    return true;
}

void byte_buffer_append(byte_buffer *buffer, const void *bytes, size_t count)
{
    if (count == 0 || !byte_buffer_reserve(buffer, count))
        return;
    if (buffer->counting) {
        if (count > SIZE_MAX - buffer->size)
            buffer->failed = true;
        else
            buffer->size += count;
        return;
    }
    memcpy(buffer->data + buffer->size, bytes, count);
    buffer->size += count;
}

void byte_buffer_put_u8(byte_buffer *buffer, uint8_t value) { byte_buffer_append(buffer, &value, 1); }

void byte_buffer_put_u16_be(byte_buffer *buffer, uint16_t value)
{
    uint8_t b[2] = {(uint8_t)(value >> 8), (uint8_t)value};
    byte_buffer_append(buffer, b, 2);
}

void byte_buffer_put_u16_le(byte_buffer *buffer, uint16_t value)
{
    uint8_t b[2] = {(uint8_t)value, (uint8_t)(value >> 8)};
    byte_buffer_append(buffer, b, 2);
}

void byte_buffer_put_u32_be(byte_buffer *buffer, uint32_t value)
{
    uint8_t b[4] = {(uint8_t)(value >> 24), (uint8_t)(value >> 16), (uint8_t)(value >> 8),
                    (uint8_t)value};
    byte_buffer_append(buffer, b, 4);
}

void byte_buffer_put_u32_le(byte_buffer *buffer, uint32_t value)
{
    uint8_t b[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16),
                    (uint8_t)(value >> 24)};
    byte_buffer_append(buffer, b, 4);
}

void byte_buffer_printf(byte_buffer *buffer, const char *format, ...)
{
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (length < 0)
        buffer->failed = true;
    else if (buffer->counting)
        byte_buffer_append(buffer, NULL, (size_t)length); /* its size only */
    else if (byte_buffer_reserve(buffer, (size_t)length + 1)) { /* vsnprintf's NUL too */
        vsnprintf((char *)buffer->data + buffer->size, (size_t)length + 1, format, again);
        buffer->size += (size_t)length;
    }
    va_end(again);
}

uint8_t *byte_buffer_release(byte_buffer *buffer, size_t *size)
{
    uint8_t *data = buffer->data;
    *size = buffer->size;
    *buffer = (byte_buffer){0};
    return data;
}

void byte_buffer_free(byte_buffer *buffer)
{
    free(buffer->data);
    *buffer = (byte_buffer){0};
}
