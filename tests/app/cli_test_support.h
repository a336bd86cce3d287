/* cli_test_support.h - running the gj2k program as a user runs it, and
 * the checks test_cli and test_cli_decode share. Compiled into both. */
#ifndef GJ2K_CLI_TEST_SUPPORT_H
#define GJ2K_CLI_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct run_result {
    int exit_code;
    char out[16384];
    char err[4096];
} run_result;

/* Runs `gj2k ARGS` through the shell (GJ2K_PROGRAM), capturing both streams. */
void run_gj2k(run_result *r, const char *args);
int count_lines(const char *text);
bool file_exists(const char *path);
/* Number of entries in the test's temporary directory. */
int temp_entries(void);
/* The image file at `path` read with the library, or NULL (said on stderr). */
gj2k_image *read_image(const char *path);
/* Whether `name` is a program on PATH (a peer such as opj_decompress). */
bool program_available(const char *name);
/* `gj2k decode` of `encoded` to `decoded_path` gives the samples of
 * `expected` (what failed is said). */
bool decodes_to(const char *encoded, const char *decoded_path, const gj2k_image *expected);
/* A deterministic test image (smooth gradients plus noise) of `components`
 * components of `precision` bits written to `path`; returns it, or NULL. */
gj2k_image *write_test_image(const char *path, uint32_t width, uint32_t height,
                             uint32_t components, uint32_t precision);

#endif
