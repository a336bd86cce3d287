/* describe.h - the parts of gj2k_describe_file (describe_file.c, gj2k.h):
 * what `gj2k info` says of a file, written into a byte_buffer as text or
 * as one JSON object. */
#ifndef GJ2K_DESCRIBE_H
#define GJ2K_DESCRIBE_H

#include <stdbool.h>
#include <stddef.h>

#include "byte_buffer.h"
#include "codestream.h"
#include "error.h"
#include "gj2k.h"
#include "jp2_file.h"

/* `size` bytes of `text` as a JSON string (RFC 8259, 7): quoted, '"' and
 * '\' escaped, control characters as \u00XX, and with `latin1` (a COM
 * marker's ISO 8859-15 text, T.800 A.9.2) bytes 0x7F and up as well. */
void describe_json_string(byte_buffer *out, const char *text, size_t size, bool latin1);

/* A JSON boolean literal. */
static inline const char *describe_json_bool(bool value) { return value ? "true" : "false"; }

/* A JPEG 2000 codestream or JP2 file (describe_jpeg2000.c); failures
 * name the file. */
gj2k_status describe_jpeg2000(const char *path, const gj2k_describe_options *options,
                              byte_buffer *out, gj2k_error *error);

/* Any other image file, of the format its first bytes (else its name)
 * announce (describe_image.c). */
gj2k_status describe_image(const char *path, gj2k_file_format format,
                           const gj2k_describe_options *options, byte_buffer *out,
                           gj2k_error *error);

/* A JP2 file's boxes (Annex I): lines of text, or the JSON member "jp2"
 * followed by ", " (describe_jp2.c). */
void describe_jp2_text(const jp2_file *jp2, byte_buffer *out);
void describe_jp2_json(const jp2_file *jp2, byte_buffer *out);

/* A codestream's SIZ, headers, markers and tiles (Annex A) as the JSON
 * member "codestream" (describe_codestream_json.c; the text is
 * j2k_codestream_describe's). */
void describe_codestream_json(const j2k_codestream *cs, byte_buffer *out);

/* A codestream that names a digital cinema or IMF profile checked against
 * it: lines of text, or a JSON member "profile" after a ", "; nothing for
 * any other (describe_profiles.c). */
void describe_profile_check(const j2k_codestream *cs, bool json, byte_buffer *out);

#endif
