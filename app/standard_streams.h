/* standard_streams.h - "-" as a file name: standard input for -i,
 * standard output for -o (gj2k in shell pipelines; --format then names the
 * output's format). */
#ifndef GJ2K_APP_STANDARD_STREAMS_H
#define GJ2K_APP_STANDARD_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

/* Whether `path` is "-". */
bool path_is_standard(const char *path);

/* A file's bytes, or with "-" all of standard input, in a malloc'ed buffer. */
gj2k_status read_path_all(const char *path, uint8_t **data, size_t *size, gj2k_error *error);

/* Writes all of `data` to standard output. */
gj2k_status write_standard_output(const uint8_t *data, size_t size, gj2k_error *error);

/* The format an output named "-" takes: --format, -OutFor or -O as an
 * extension ("jp2", "png"); GJ2K_FORMAT_UNKNOWN when none is given or
 * known. `extension` may be NULL. */
gj2k_file_format standard_output_format(const char *extension);

#endif
