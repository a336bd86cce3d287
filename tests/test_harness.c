/* test_harness.c - see test_harness.h. */
#include "test_harness.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int case_failures;
static jmp_buf skip_jump;
static char skip_reason[512];
static uint64_t random_state;
static char temp_dir[256];

void test_check(bool ok, const char *file, int line, const char *expression)
{
    if (ok)
        return;
    case_failures++;
    if (case_failures <= 20)
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, expression);
}

void test_check_values(const char *file, int line, const char *expression, long long a,
                       long long b)
{
    case_failures++;
    fprintf(stderr, "FAIL %s:%d: %s (%lld vs %lld)\n", file, line, expression, a, b);
}

_Noreturn void test_skip(const char *why)
{
    snprintf(skip_reason, sizeof skip_reason, "%s", why);
    longjmp(skip_jump, 1);
}

uint64_t test_random(void)
{
    /* splitmix64 */
    uint64_t z = (random_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t test_random_range(int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return span == 0 ? (int64_t)test_random() : lo + (int64_t)(test_random() % span);
}

const char *test_shared_path(const char *relative)
{
    static char path[1024];
    const char *root = getenv("GJ2K_SHARED_DIR");
#ifdef GJ2K_DEFAULT_SHARED_DIR
    if (root == NULL || *root == '\0')
        root = GJ2K_DEFAULT_SHARED_DIR;
#endif
    struct stat st;
    if (root == NULL || stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char why[900];
        snprintf(why, sizeof why,
                 "shared test data not found at '%s': put ../shared beside the checkout, or "
                 "set GJ2K_SHARED_DIR / -DGJ2K_SHARED_DIR=...", root ? root : "(unset)");
        test_skip(why);
    }
    snprintf(path, sizeof path, "%s/%s", root, relative);
    return path;
}

const char *test_temp_dir(void)
{
    if (temp_dir[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(temp_dir, sizeof temp_dir, "%s/gj2k-test-XXXXXX", base ? base : "/tmp");
        if (mkdtemp(temp_dir) == NULL) {
            perror("mkdtemp");
            exit(1);
        }
    }
    return temp_dir;
}

static void remove_temp_dir(void)
{
    if (temp_dir[0] == '\0')
        return;
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", temp_dir);
    if (system(command) != 0)
        fprintf(stderr, "warning: could not remove %s\n", temp_dir);
    temp_dir[0] = '\0';
}

/* Runs one case; returns 0 passed, 1 failed, 77 skipped. */
static int run_case(const test_case *c)
{
    case_failures = 0;
    if (setjmp(skip_jump) != 0) {
        remove_temp_dir();
        if (case_failures > 0) { /* what ran before the skip failed: a skip would hide it */
            printf("[FAIL] %s (then skipped: %s)\n", c->name, skip_reason);
            return 1;
        }
        printf("[skip] %s: %s\n", c->name, skip_reason);
        return 77;
    }
    c->run();
    remove_temp_dir();
    printf("[%s] %s\n", case_failures ? "FAIL" : "ok", c->name);
    return case_failures ? 1 : 0;
}

int test_main(int argc, char **argv, const test_case *cases, size_t count)
{
    if (argc > 1 && strcmp(argv[1], "--list") == 0) { /* the cases' names, a line each */
        for (size_t i = 0; i < count; i++)
            printf("%s\n", cases[i].name);
        return 0;
    }
    const char *seed_text = getenv("GJ2K_TEST_SEED");
    uint64_t seed = seed_text ? strtoull(seed_text, NULL, 0)
                              : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    random_state = seed;
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("seed %llu (GJ2K_TEST_SEED to repeat)\n", (unsigned long long)seed);
    if (argc > 1) {
        for (size_t i = 0; i < count; i++)
            if (strcmp(cases[i].name, argv[1]) == 0)
                return run_case(&cases[i]);
        fprintf(stderr, "no test case named %s\n", argv[1]);
        return 1;
    }
    int failed = 0, skipped = 0;
    for (size_t i = 0; i < count; i++) {
        int result = run_case(&cases[i]);
        failed += result == 1;
        skipped += result == 77;
    }
    printf("%zu passed, %d failed, %d skipped\n", count - (size_t)failed - (size_t)skipped, failed,
           skipped);
    return failed ? 1 : 0;
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    long length = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        length = ftell(f);
    if (length < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    uint8_t *data = malloc(length > 0 ? (size_t)length : 1);
    if (data != NULL && fread(data, 1, (size_t)length, f) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)length;
    return data;
}

void record_warning(void *user, const char *message)
{
    test_warnings *w = user;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

bool test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

bool segment_is_clean(const uint8_t *data, size_t length)
{
    for (size_t i = 0; i + 1 < length; i++)
        if (data[i] == 0xFF && data[i + 1] > 0x8F)
            return false;
    return length == 0 || data[length - 1] != 0xFF;
}

gj2k_image *test_noise_image(uint32_t w, uint32_t h, uint32_t count)
{
    gj2k_component_info info[16];
    if (count == 0 || count > 16)
        return NULL;
    for (uint32_t c = 0; c < count; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, w, h, count, info, NULL) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < count; c++)
        for (size_t i = 0; i < (size_t)w * h; i++)
            image->components[c].samples[i] = (int32_t)(test_random() % 256);
    return image;
}

bool test_samples_within(const gj2k_image *a, const gj2k_image *b, int32_t tolerance)
{
    if (a == NULL || b == NULL || a->num_components != b->num_components)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *x = &a->components[c], *y = &b->components[c];
        if (x->width != y->width || x->height != y->height || x->precision != y->precision ||
            x->is_signed != y->is_signed)
            return false;
        for (size_t i = 0; i < (size_t)x->width * x->height; i++) {
            int64_t d = (int64_t)x->samples[i] - y->samples[i];
            if (d > tolerance || -d > tolerance)
                return false;
        }
    }
    return true;
}

bool test_same_samples(const gj2k_image *a, const gj2k_image *b)
{
    return test_samples_within(a, b, 0);
}
