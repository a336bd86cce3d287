/* byte_buffer.h - a growable output buffer for the format writers, and a
 * bounds-checked cursor over input bytes for the readers. */
#ifndef GJ2K_BYTE_BUFFER_H
#define GJ2K_BYTE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Output: appends never fail loudly; a failed allocation sets `failed`, later
 * appends do nothing, and the writer checks `failed` once at the end. A
 * `counting` buffer keeps no bytes (data stays NULL): it only adds up their
 * size, for writers run to learn how long their output would be. */
typedef struct byte_buffer {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
    bool counting;
} byte_buffer;

bool byte_buffer_reserve(byte_buffer *buffer, size_t extra);
void byte_buffer_append(byte_buffer *buffer, const void *bytes, size_t count);
void byte_buffer_put_u8(byte_buffer *buffer, uint8_t value);
void byte_buffer_put_u16_be(byte_buffer *buffer, uint16_t value);
void byte_buffer_put_u16_le(byte_buffer *buffer, uint16_t value);
void byte_buffer_put_u32_be(byte_buffer *buffer, uint32_t value);
void byte_buffer_put_u32_le(byte_buffer *buffer, uint32_t value);
/* printf appended, of any length */
void byte_buffer_printf(byte_buffer *buffer, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the bytes to the caller (who frees them) and empties the buffer. */
uint8_t *byte_buffer_release(byte_buffer *buffer, size_t *size);
void byte_buffer_free(byte_buffer *buffer);

/* Input: every read checks the remaining length first. */
typedef struct byte_reader {
    const uint8_t *data;
    size_t size, position;
} byte_reader;

static inline size_t byte_reader_remaining(const byte_reader *r) { return r->size - r->position; }

static inline bool byte_reader_u8(byte_reader *r, uint8_t *v)
{
    if (byte_reader_remaining(r) < 1) return false;
    *v = r->data[r->position++];
    return true;
}
static inline bool byte_reader_u16_be(byte_reader *r, uint16_t *v)
{
    if (byte_reader_remaining(r) < 2) return false;
    const uint8_t *p = r->data + r->position;
    *v = (uint16_t)((p[0] << 8) | p[1]);
    r->position += 2;
    return true;
}
static inline bool byte_reader_u16_le(byte_reader *r, uint16_t *v)
{
    if (byte_reader_remaining(r) < 2) return false;
    const uint8_t *p = r->data + r->position;
    *v = (uint16_t)(p[0] | (p[1] << 8));
    r->position += 2;
    return true;
}
static inline bool byte_reader_u32_be(byte_reader *r, uint32_t *v)
{
    if (byte_reader_remaining(r) < 4) return false;
    const uint8_t *p = r->data + r->position;
    *v = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
    r->position += 4;
    return true;
}
static inline bool byte_reader_u32_le(byte_reader *r, uint32_t *v)
{
    if (byte_reader_remaining(r) < 4) return false;
    const uint8_t *p = r->data + r->position;
    *v = ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
    r->position += 4;
    return true;
}
static inline bool byte_reader_skip(byte_reader *r, size_t count)
{
    if (byte_reader_remaining(r) < count) return false;
    r->position += count;
    return true;
}

#endif
