/* test_harness.h - a very small test runner. Each test program lists its
 * cases in a table; `program NAME` runs one case (ctest registers each case
 * as its own test), `program` with no argument runs them all, `program
 * --list` names them (tests/cases_registered.cmake checks that list against
 * the cases CMake registers).
 * Exit status: 0 passed, 1 failed, 77 skipped (ctest SKIP_RETURN_CODE). */
#ifndef GJ2K_TEST_HARNESS_H
#define GJ2K_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

/* TEST_UNDER_ASAN: this build runs under AddressSanitizer (clang says so
 * through __has_feature, gcc through __SANITIZE_ADDRESS__). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TEST_UNDER_ASAN)
#define TEST_UNDER_ASAN 1
#endif

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

void test_check(bool ok, const char *file, int line, const char *expression);
/* Ends the current case as skipped, printing why. */
_Noreturn void test_skip(const char *why);

#define CHECK(cond) test_check((cond), __FILE__, __LINE__, #cond)
/* Checks and, on failure, prints both values and returns from the case. */
#define CHECK_EQ(a, b)                                                                         \
    do {                                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                        \
        if (check_a_ != check_b_) {                                                            \
            test_check_values(__FILE__, __LINE__, #a " == " #b, check_a_, check_b_);           \
            return;                                                                            \
        }                                                                                      \
    } while (0)
#define REQUIRE(cond)                                                                          \
    do {                                                                                       \
        bool require_ = (cond);                                                                \
        test_check(require_, __FILE__, __LINE__, #cond);                                       \
        if (!require_) return;                                                                 \
    } while (0)

void test_check_values(const char *file, int line, const char *expression, long long a,
                       long long b);
int test_main(int argc, char **argv, const test_case *cases, size_t count);
#define TEST_MAIN(cases)                                                                       \
    int main(int argc, char **argv) { return test_main(argc, argv, cases, sizeof cases / sizeof cases[0]); }

/* Deterministic random numbers; the seed is fresh each run (or GJ2K_TEST_SEED)
 * and printed, so a failure can be reproduced. */
uint64_t test_random(void);
/* Uniform in [lo, hi]. */
int64_t test_random_range(int64_t lo, int64_t hi);

/* ../shared (or GJ2K_SHARED_DIR, or the CMake option GJ2K_SHARED_DIR); skips
 * the case, saying so, when it is missing. `relative` is appended. */
const char *test_shared_path(const char *relative);
/* A fresh temporary directory for the case's files. */
const char *test_temp_dir(void);

/* A whole file's bytes (malloc'ed, the caller frees them; *size is their
 * count), or NULL when it cannot be opened or read. */
uint8_t *test_read_file(const char *path, size_t *size);

/* Counts the warnings a reader, writer or encode gives and keeps the last
 * one whole (an encode's run long). */
typedef struct test_warnings {
    int count;
    char last[1024];
} test_warnings;
/* A gj2k warning callback; `user` is a test_warnings. */
void record_warning(void *user, const char *message);

/* A `count`-component image of w x h random 8-bit samples, or NULL. */
gj2k_image *test_noise_image(uint32_t w, uint32_t h, uint32_t count);
/* Whether two images (NULL: not) have as many components, each of the same
 * size, precision and signedness, and every sample within `tolerance` of
 * the other's; test_same_samples: equal. */
bool test_samples_within(const gj2k_image *a, const gj2k_image *b, int32_t tolerance);
bool test_same_samples(const gj2k_image *a, const gj2k_image *b);

/* malloc that never returns NULL (exits when out of memory; n may be 0). */
void *xmalloc(size_t n);
/* Writes `size` bytes of `data` to `path` (a cut file when size is less
 * than data holds); false when it cannot. */
bool test_write_file(const char *path, const void *data, size_t size);
/* No marker inside an entropy-coded segment (0xFF then a byte above 0x8F)
 * and no final 0xFF. */
bool segment_is_clean(const uint8_t *data, size_t length);

#endif
