/* describe_output.c - what a description is written with: printf of any
 * length, and JSON strings (RFC 8259, 7). */
#include <stdarg.h>
#include <stdio.h>

#include "describe.h"

void describe_printf(byte_buffer *out, const char *format, ...)
{
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    /* room for the NUL vsnprintf writes, which the size then leaves out */
    if (length < 0)
        out->failed = true;
    else if (out->counting)
        byte_buffer_append(out, NULL, (size_t)length); /* its size only */
    else if (byte_buffer_reserve(out, (size_t)length + 1)) {
        vsnprintf((char *)out->data + out->size, (size_t)length + 1, format, again);
        out->size += (size_t)length;
    }
    va_end(again);
}

void describe_json_string(byte_buffer *out, const char *text, size_t size, bool latin1)
{
    byte_buffer_put_u8(out, '"');
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') {
            byte_buffer_put_u8(out, '\\');
            byte_buffer_put_u8(out, c);
        } else if (c < 0x20 || (latin1 && c >= 0x7f)) {
            describe_printf(out, "\\u%04x", c);
        } else {
            byte_buffer_put_u8(out, c);
        }
    }
    byte_buffer_put_u8(out, '"');
}
