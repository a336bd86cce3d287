/* describe_json_string.c - JSON strings of a description (RFC 8259, 7). */

#include "describe.h"

/* The length of the well-formed UTF-8 sequence at `p` (RFC 3629, 4: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 0 when there is
 * none; `left` bytes remain. */
static size_t utf8_sequence(const unsigned char *p, size_t left)
{
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;
    if (n == 0 || n > left)
        return 0;
    for (size_t k = 1; k < n; k++)
        if (p[k] < 0x80 || p[k] > 0xbf)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

void describe_json_string(byte_buffer *out, const char *text, size_t size, bool latin1)
{
    const unsigned char *bytes = (const unsigned char *)text;
    byte_buffer_put_u8(out, '"');
    for (size_t i = 0; i < size; i++) {
        unsigned char c = bytes[i];
        size_t n = !latin1 && c >= 0x80 ? utf8_sequence(bytes + i, size - i) : 0;
        if (c == '"' || c == '\\') {
            byte_buffer_put_u8(out, '\\');
            byte_buffer_put_u8(out, c);
        } else if (n > 0) { /* UTF-8 (a file name) passes through */
            byte_buffer_append(out, bytes + i, n);
            i += n - 1;
        } else if (c < 0x20 || c >= 0x7f) {
            /* Latin-1 text (COM), and a byte of a name that is not UTF-8,
             * as the character of that number: JSON is UTF-8 (RFC 8259, 8.1) */
            byte_buffer_printf(out, "\\u%04x", c);
        } else {
            byte_buffer_put_u8(out, c);
        }
    }
    byte_buffer_put_u8(out, '"');
}
