/* batch_test_files.h - the files of the batch tests (test_cli_batch.c,
 * test_cli_batch_processes.c): named below the test's temporary directory. */
#ifndef GJ2K_TESTS_BATCH_TEST_FILES_H
#define GJ2K_TESTS_BATCH_TEST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

#define PATH_SIZE 1024

/* The path of `name` below the temporary directory, in `path` (PATH_SIZE). */
void path_in(char *path, const char *name);
void make_directory(const char *name);
void write_text(const char *name, const char *text);
/* A test image `name` below the temporary directory; returned (the test
 * ends when it cannot be written). */
gj2k_image *image_at(const char *name, uint32_t width, uint32_t height, uint32_t components);
/* Whether the encoded file `name` decodes to `expected`. */
bool encoded_as(const char *name, const gj2k_image *expected);
bool exists(const char *name);
/* The bytes of a file (size in *size; free them), or NULL. */
uint8_t *contents(const char *name, size_t *size);
/* A file as a NUL-terminated string (free it), or NULL. */
char *text_of(const char *name);
/* Whether the two files hold the same bytes (and some). */
bool same_bytes(const char *a, const char *b);
/* How many times `needle` occurs in `text`. */
int occurrences(const char *text, const char *needle);
/* Whether the directory `name` holds a temporary of gj2k's writes. */
bool temporaries_in(const char *name);

#endif
