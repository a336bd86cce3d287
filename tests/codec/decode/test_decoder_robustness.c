/* test_decoder_robustness.c - the decoder (gj2k_decode_memory) over damaged
 * input: every conformance codestream and JP2 file whole, cut short at many
 * points and with random bytes flipped, and hand-made codestreams whose SIZ
 * (T.800 A.5.1) claims absurd sizes. Whatever the input, a decode returns:
 * either an error with a one-line message or a consistent image. Run under
 * ASan+UBSan (the CI's sanitizer build), this is where overreads show. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "codestream.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "test_harness.h"

/* ASan's allocator hooks see every allocation's size (clang's headers). */
#if defined(TEST_UNDER_ASAN) && defined(__has_include)
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#define ROBUST_ALLOCATION_HOOKS 1
#endif
#endif

/* Per conformance file: cuts spread over the whole file, cuts every few
 * bytes among its first ones (the headers), and copies with random bytes
 * flipped; run in random order until the file's CPU budget is spent. */
#define SPREAD_CUTS 40
#define HEADER_CUT_BYTES 300
#define HEADER_CUT_STEP 3
#define FLIPS 60
#define MAX_VARIANTS (HEADER_CUT_BYTES / HEADER_CUT_STEP + SPREAD_CUTS + FLIPS)
#define MIN_VARIANTS 12
#define FILE_BUDGET_S 0.9
/* Damaged copies of files that take longer than this to decode whole are
 * decoded at a lower resolution (reduce), which still reads every packet
 * header (Tier-2) but runs Tier-1 and the inverse DWT on fewer samples. */
#define VARIANT_TARGET_S 0.02
/* A damaged copy may decode at most this many times the whole file's
 * samples (gj2k_decode_options.max_samples), as the fuzzer's limit does. */
#define SAMPLE_FACTOR 4
/* Cuts at least this far into the first tile-part's data keep a decodable
 * tile-part: a file cut there must decode, with a warning. */
#define TILE_DATA_MARGIN 16
/* The groups the conformance files are split into (one ctest case each). */
#define GROUPS 6

/* ------------------------------------------------------------ helpers */

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time: what a budget counts, unmoved by other load on the machine. */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *data = NULL;
    long length = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        length = ftell(f);
    if (length > 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = malloc((size_t)length);
        if (data != NULL && fread(data, 1, (size_t)length, f) != (size_t)length) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    *size = length > 0 ? (size_t)length : 0;
    return data;
}

typedef struct warnings {
    unsigned count;
    bool multi_line; /* a warning was empty or held a newline */
    char first[256];
} warnings;

static void collect_warning(void *user, const char *message)
{
    warnings *w = user;
    if (message == NULL || message[0] == '\0' || strchr(message, '\n') != NULL)
        w->multi_line = true;
    else if (w->count == 0)
        snprintf(w->first, sizeof w->first, "%s", message);
    w->count++;
}

static uint32_t ceil_div(uint32_t v, uint32_t d) { return (uint32_t)(((uint64_t)v + d - 1) / d); }

/* An image the decoder returned: components that agree with the canvas
 * (eq. B-1) and hold their samples. */
static bool image_is_valid(const gj2k_image *image)
{
    if (image == NULL || image->num_components == 0 || image->components == NULL ||
        image->x1 <= image->x0 || image->y1 <= image->y0)
        return false;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *k = &image->components[c];
        if (k->dx == 0 || k->dy == 0 || k->precision == 0 || k->precision > GJ2K_MAX_PRECISION)
            return false;
        if (k->x0 != ceil_div(image->x0, k->dx) || k->y0 != ceil_div(image->y0, k->dy) ||
            k->width != ceil_div(image->x1, k->dx) - k->x0 ||
            k->height != ceil_div(image->y1, k->dy) - k->y0)
            return false;
        if ((uint64_t)k->width * k->height > 0 && k->samples == NULL && k->wide_samples == NULL)
            return false;
    }
    return true;
}

/* What one decode of damaged input gave. */
typedef struct outcome {
    gj2k_status status;
    unsigned warnings;
    uint64_t samples;  /* of the image decoded */
    double cpu;        /* seconds the decode took */
    char message[256];
} outcome;

static uint64_t image_samples(const gj2k_image *image)
{
    uint64_t n = 0;
    for (uint32_t c = 0; image != NULL && c < image->num_components; c++)
        n += (uint64_t)image->components[c].width * image->components[c].height;
    return n;
}

/* Decodes a copy of exactly `size` bytes (ASan sees any read past them) and
 * checks the promises every decode keeps. */
static outcome decode_checked(const uint8_t *data, size_t size, unsigned reduce,
                              uint64_t max_samples, bool allow_partial, uint64_t max_memory,
                              const char *what)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (copy == NULL) {
        CHECK(copy != NULL);
        return (outcome){.status = GJ2K_ERROR_OUT_OF_MEMORY};
    }
    if (size > 0)
        memcpy(copy, data, size);
    warnings w = {0};
    gj2k_decode_options options = {.threads = 1, .reduce = reduce, .max_samples = max_samples,
                                   .allow_partial = allow_partial, .max_memory = max_memory,
                                   .warning = collect_warning, .warning_user = &w};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    double start = cpu_seconds();
    gj2k_status status = gj2k_decode_memory(copy, size, &options, &image, &error);
    double cpu = cpu_seconds() - start;
    bool ok;
    if (status != GJ2K_OK)
        ok = image == NULL && error.status == status && error.message[0] != '\0' &&
             strchr(error.message, '\n') == NULL;
    else
        ok = image_is_valid(image);
    ok = ok && !w.multi_line;
    if (!ok)
        fprintf(stderr, "  %s: status %s, message \"%s\", %u warnings%s\n", what,
                gj2k_status_name(status), error.message, w.count,
                w.multi_line ? " (one empty or of several lines)" : "");
    CHECK(ok);
    outcome o = {.status = status, .warnings = w.count, .samples = image_samples(image), .cpu = cpu};
    gj2k_image_destroy(image);
    free(copy);
    snprintf(o.message, sizeof o.message, "%s", status != GJ2K_OK ? error.message : w.first);
    return o;
}

/* --------------------------------------------- the conformance files */

typedef struct test_file {
    char name[64];
    uint8_t *data;
    size_t size;
    bool raw;               /* a bare codestream (.j2k, .j2c) rather than JP2 */
    size_t codestream_at;   /* where the codestream starts in the file */
    size_t first_data;      /* where the first tile-part's data starts in the file; 0: unknown */
} test_file;

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Where the codestream and the first tile-part's data (after its SOD) lie. */
static void locate_codestream(test_file *f)
{
    const uint8_t *cs_data = f->data;
    size_t cs_size = f->size;
    jp2_file jp2;
    memset(&jp2, 0, sizeof jp2);
    if (!f->raw) {
        if (jp2_file_read(f->data, f->size, &jp2, NULL, NULL, NULL) != GJ2K_OK)
            return;
        f->codestream_at = (size_t)jp2.codestream_offset;
        cs_data = f->data + f->codestream_at;
        cs_size = (size_t)jp2.codestream_length;
        jp2_file_free(&jp2);
    }
    j2k_codestream *cs = NULL;
    if (j2k_codestream_parse(cs_data, cs_size, NULL, NULL, &cs, NULL) != GJ2K_OK)
        return;
    for (size_t t = 0; t < cs->num_tiles_present; t++)
        for (size_t p = 0; p < cs->tiles[t].num_parts; p++)
            if (cs->tiles[t].parts[p].ordinal == 0)
                f->first_data = f->codestream_at + cs->tiles[t].parts[p].data_start;
    j2k_codestream_destroy(cs);
}

/* Every codestream and JP2 file of the conformance suite, by name; skips
 * the case when ../shared is missing. */
static test_file *load_conformance(size_t *count)
{
    const char *dir = test_shared_path("conformance/input");
    char dir_copy[1024];
    snprintf(dir_copy, sizeof dir_copy, "%s", dir);
    DIR *d = opendir(dir_copy);
    if (d == NULL)
        test_skip("conformance/input is missing from the shared data");
    char **names = NULL;
    size_t n = 0, capacity = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *dot = strrchr(e->d_name, '.');
        if (dot == NULL || strlen(e->d_name) >= sizeof ((test_file *)0)->name ||
            (strcmp(dot, ".j2k") != 0 && strcmp(dot, ".j2c") != 0 && strcmp(dot, ".jp2") != 0))
            continue;
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            names = realloc(names, capacity * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n == 0)
        test_skip("no codestreams in conformance/input");
    qsort(names, n, sizeof *names, compare_names);
    test_file *files = calloc(n, sizeof *files);
    for (size_t i = 0; i < n; i++) {
        test_file *f = &files[i];
        snprintf(f->name, sizeof f->name, "%s", names[i]);
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir_copy, names[i]);
        f->data = read_whole_file(path, &f->size);
        f->raw = strcmp(strrchr(names[i], '.'), ".jp2") != 0;
        if (f->data != NULL)
            locate_codestream(f);
        free(names[i]);
    }
    free(names);
    *count = n;
    return files;
}

static void free_files(test_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(files[i].data);
    free(files);
}

/* The files of group `group`: sizes balanced by dealing them out largest
 * first to the group holding the fewest bytes. */
static bool in_group(const test_file *files, size_t count, size_t index, unsigned group)
{
    size_t *order = malloc(count * sizeof *order);
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    for (size_t i = 1; i < count; i++) /* by size, descending; stable by name */
        for (size_t j = i; j > 0 && files[order[j]].size > files[order[j - 1]].size; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint64_t load[GROUPS] = {0};
    unsigned owner = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned g = 0;
        for (unsigned k = 1; k < GROUPS; k++)
            if (load[k] < load[g])
                g = k;
        load[g] += files[order[i]].size;
        if (order[i] == index)
            owner = g;
    }
    free(order);
    return owner == group;
}

/* One damaged copy: a cut (flips == 0) or flipped bytes. */
typedef struct variant {
    size_t cut;     /* bytes kept */
    unsigned flips; /* bytes changed: 1..3 */
} variant;

/* The reduce at which damaged copies decode: the least that makes a whole
 * decode cheap, as long as the file has the levels; *cost: that decode's. */
static unsigned variant_reduce(const test_file *f, double *cost)
{
    unsigned reduce = 0;
    while (*cost > VARIANT_TARGET_S && reduce < 3) {
        outcome o = decode_checked(f->data, f->size, reduce + 1, 0, false, 0, f->name);
        if (o.status != GJ2K_OK)
            break; /* fewer levels than that */
        reduce++;
        *cost = o.cpu;
    }
    return reduce;
}

/* The whole file, then cuts and flips in random order. */
static void damage_one_file(const test_file *f)
{
    double start = seconds_now(), cpu_start = cpu_seconds();
    char what[160];
    snprintf(what, sizeof what, "%s whole", f->name);
    outcome whole = decode_checked(f->data, f->size, 0, 0, false, 0, what);
    if (whole.status != GJ2K_OK)
        fprintf(stderr, "  %s: %s\n", what, whole.message);
    CHECK(whole.status == GJ2K_OK);
    if (whole.status != GJ2K_OK)
        return;
    double cost = whole.cpu;
    unsigned reduce = variant_reduce(f, &cost);
    uint64_t max_samples = SAMPLE_FACTOR * whole.samples;
    /* A damaged copy may cost more than the file (bigger after a flip), not
     * without bound: past this it counts as a hang. */
    double slow = 1.0 + 20.0 * cost;

    variant list[MAX_VARIANTS];
    size_t count = 0;
    for (size_t at = 0; at < HEADER_CUT_BYTES && at < f->size; at += HEADER_CUT_STEP)
        list[count++] = (variant){.cut = at};
    for (size_t k = 1; k <= SPREAD_CUTS; k++) {
        size_t at = (size_t)((uint64_t)f->size * k / (SPREAD_CUTS + 1));
        at += (size_t)test_random_range(0, 15); /* vary the phase from run to run */
        if (at < f->size)
            list[count++] = (variant){.cut = at};
    }
    for (size_t k = 0; k < FLIPS; k++)
        list[count++] = (variant){.flips = (unsigned)test_random_range(1, 3)};
    for (size_t i = count; i > 1; i--) { /* shuffle: any prefix is a fair sample */
        size_t j = (size_t)test_random_range(0, (int64_t)i - 1);
        variant t = list[i - 1];
        list[i - 1] = list[j];
        list[j] = t;
    }

    uint8_t *copy = malloc(f->size);
    REQUIRE(copy != NULL);
    unsigned cuts = 0, cuts_ok = 0, flips = 0, flips_ok = 0, late_failures = 0;
    size_t done = 0;
    for (; done < count; done++) {
        if (done >= MIN_VARIANTS && cpu_seconds() - cpu_start > FILE_BUDGET_S)
            break;
        const variant *v = &list[done];
        outcome o;
        if (v->flips == 0) {
            snprintf(what, sizeof what, "%s cut to %zu bytes (-r %u)", f->name, v->cut, reduce);
            /* Without allow_partial a cut that loses tile data is an error
             * (GJ2K_ERROR_TRUNCATED), naming what is missing; only the final
             * EOC may go without one. */
            o = decode_checked(f->data, v->cut, reduce, max_samples, false, 0, what);
            if (f->first_data != 0 && v->cut >= f->first_data && v->cut + 2 < f->size &&
                o.status != GJ2K_ERROR_TRUNCATED) {
                fprintf(stderr, "  %s without allow_partial: %s, \"%s\"\n", what,
                        gj2k_status_name(o.status), o.message);
                CHECK(o.status == GJ2K_ERROR_TRUNCATED);
            }
            o = decode_checked(f->data, v->cut, reduce, max_samples, true, 0, what);
            cuts++;
            cuts_ok += o.status == GJ2K_OK;
            /* A file that keeps its main header and the start of a tile-part
             * decodes what it holds, with a warning (codestreams and JP2
             * alike: the jp2c box then runs past the end of the file). */
            bool expect_ok = f->first_data != 0 &&
                             v->cut >= f->first_data + TILE_DATA_MARGIN;
            if (expect_ok && (o.status != GJ2K_OK || o.warnings == 0)) {
                if (late_failures++ < 3)
                    fprintf(stderr, "  %s: %s, %s\"%s\"\n", what, gj2k_status_name(o.status),
                            o.status == GJ2K_OK ? "no warning, " : "", o.message);
                CHECK(o.status == GJ2K_OK && o.warnings > 0);
            }
        } else {
            memcpy(copy, f->data, f->size);
            int p = snprintf(what, sizeof what, "%s (-r %u) with bytes flipped:", f->name, reduce);
            for (unsigned k = 0; k < v->flips; k++) { /* half among the first 400 bytes */
                size_t limit = f->size < 400 || test_random() % 2 ? f->size : 400;
                size_t at = (size_t)test_random_range(0, (int64_t)limit - 1);
                uint8_t mask = (uint8_t)test_random_range(1, 255);
                copy[at] ^= mask;
                if (p > 0 && (size_t)p < sizeof what)
                    p += snprintf(what + p, sizeof what - (size_t)p, " %zu^0x%02x", at, mask);
            }
            o = decode_checked(copy, f->size, reduce, max_samples, true, 0, what);
            flips++;
            flips_ok += o.status == GJ2K_OK;
        }
        if (o.cpu > slow)
            fprintf(stderr, "  %s: %.2f s of CPU, more than %.2f s\n", what, o.cpu, slow);
        CHECK(o.cpu <= slow);
    }
    free(copy);
    printf("  %-18s %8zu bytes, whole %.3f s, -r %u: cuts %3u/%3u decoded, flips %2u/%2u, "
           "%3zu of %zu variants, %.2f s CPU, %.2f s\n", f->name, f->size, whole.cpu, reduce,
           cuts_ok, cuts, flips_ok, flips, done, count, cpu_seconds() - cpu_start,
           seconds_now() - start);
}

static void damage_group(unsigned group)
{
    size_t count = 0;
    test_file *files = load_conformance(&count);
    for (size_t i = 0; i < count; i++) {
        if (!in_group(files, count, i, group))
            continue;
        if (files[i].data == NULL) {
            fprintf(stderr, "  cannot read %s\n", files[i].name);
            CHECK(files[i].data != NULL);
            continue;
        }
        damage_one_file(&files[i]);
    }
    free_files(files, count);
}

static void damaged_files_0(void) { damage_group(0); }
static void damaged_files_1(void) { damage_group(1); }
static void damaged_files_2(void) { damage_group(2); }
static void damaged_files_3(void) { damage_group(3); }
static void damaged_files_4(void) { damage_group(4); }
static void damaged_files_5(void) { damage_group(5); }

/* -------------------------------------------------- absurd SIZ values */

#ifdef ROBUST_ALLOCATION_HOOKS
/* The largest single allocation while armed (ASan's allocator hooks). */
static size_t largest_allocation;
static bool hook_armed;
static void malloc_hook(const volatile void *ptr, size_t size)
{
    (void)ptr;
    if (hook_armed && size > largest_allocation)
        largest_allocation = size;
}
static void free_hook(const volatile void *ptr) { (void)ptr; }
#endif

static long peak_rss_kb(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

/* SOC, SIZ (8x8, one tile), COD (NL = 0, one layer, 5/3), QCD, one
 * tile-part with an empty packet (a 0 bit: B.10.3), EOC. */
static uint8_t *tiny_codestream(uint32_t num_components, size_t *size)
{
    j2k_component_size *components = calloc(num_components, sizeof *components);
    for (uint32_t c = 0; c < num_components; c++)
        components[c] = (j2k_component_size){.precision = 8, .dx = 1, .dy = 1};
    j2k_siz siz = {.image_x1 = 8, .image_y1 = 8, .tile_width = 8, .tile_height = 8,
                   .num_components = num_components, .components = components};
    j2k_header_params header = {0};
    j2k_cod cod = {.progression = J2K_LRCP, .layers = 1,
                   .coding = {.levels = 0, .code_block_width_log2 = 6,
                              .code_block_height_log2 = 6, .transform = J2K_TRANSFORM_53}};
    j2k_component_coding_default_precincts(&cod.coding);
    j2k_quantization q = {.style = J2K_QUANT_NONE, .guard_bits = 2, .num_steps = 1};
    q.steps[0].exponent = 9;
    byte_buffer out = {0};
    bool ok = j2k_header_set_cod(&header, &cod, NULL) == GJ2K_OK &&
              j2k_header_set_qcd(&header, &q, NULL) == GJ2K_OK &&
              j2k_write_main_header(&out, &siz, &header, NULL) == GJ2K_OK;
    j2k_sot sot = {.tile_index = 0, .part_index = 0, .num_parts = 1};
    size_t sot_at = 0;
    ok = ok && j2k_write_tile_part_begin(&out, &siz, &sot, NULL, &sot_at, NULL) == GJ2K_OK;
    j2k_marker_write(&out, J2K_SOD);
    byte_buffer_put_u8(&out, 0); /* empty packet */
    ok = ok && j2k_write_tile_part_end(&out, sot_at, NULL) == GJ2K_OK;
    j2k_marker_write(&out, J2K_EOC);
    j2k_header_free(&header);
    free(components);
    CHECK(ok && !out.failed);
    return byte_buffer_release(&out, size);
}

static void put_u32_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The tiny codestream with its SIZ patched (Xsiz at byte 8 of the
 * codestream, then Ysiz, XOsiz, YOsiz, XTsiz, YTsiz: Table A.9). */
static uint8_t *patched_codestream(uint32_t width, uint32_t height, uint32_t tile_width,
                                   uint32_t tile_height, uint32_t num_components, size_t *size)
{
    uint8_t *data = tiny_codestream(num_components, size);
    bool as_expected = data != NULL && *size > 40 && data[2] == 0xFF && data[3] == 0x51;
    CHECK(as_expected);
    if (!as_expected) {
        free(data);
        return NULL;
    }
    put_u32_be(data + 8, width);
    put_u32_be(data + 12, height);
    put_u32_be(data + 24, tile_width);
    put_u32_be(data + 28, tile_height);
    return data;
}

/* The memory limit the absurd SIZ values are decoded under, whatever the
 * machine (the default is half its memory). */
#define ABSURD_MAX_MEMORY ((uint64_t)1 << 30)

/* A patched codestream must fail fast, before allocating anything like
 * what its SIZ claims. */
static void expect_refused(uint32_t width, uint32_t height, uint32_t tile_width,
                           uint32_t tile_height, uint32_t num_components)
{
    size_t size = 0;
    uint8_t *data = patched_codestream(width, height, tile_width, tile_height, num_components,
                                       &size);
    REQUIRE(data != NULL);
    char what[160];
    snprintf(what, sizeof what, "SIZ %ux%u, tiles %ux%u, %u components (%zu bytes)", width, height,
             tile_width, tile_height, num_components, size);
#ifdef ROBUST_ALLOCATION_HOOKS
    largest_allocation = 0;
    hook_armed = true;
#endif
    long rss_before = peak_rss_kb();
    double start = seconds_now();
    outcome o = decode_checked(data, size, 0, 0, true, ABSURD_MAX_MEMORY, what);
    double elapsed = seconds_now() - start;
    long rss_growth_kb = peak_rss_kb() - rss_before;
#ifdef ROBUST_ALLOCATION_HOOKS
    hook_armed = false;
    printf("  %s: %s in %.3f s, largest allocation %zu bytes: %s\n", what,
           gj2k_status_name(o.status), elapsed, largest_allocation, o.message);
    /* The input's copy and per-component tables: nothing near the image. */
    CHECK(largest_allocation < ((size_t)64 << 20));
#else
    printf("  %s: %s in %.3f s: %s\n", what, gj2k_status_name(o.status), elapsed, o.message);
#endif
    CHECK(o.status == GJ2K_ERROR_LIMIT || o.status == GJ2K_ERROR_MALFORMED);
    CHECK(elapsed < 1.0);
    CHECK(rss_growth_kb < 64 * 1024);
    free(data);
}

static void absurd_siz_fails_fast(void)
{
#ifdef ROBUST_ALLOCATION_HOOKS
    __sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook);
#endif
    /* The unpatched codestream is valid: an 8x8 mid-grey image. */
    size_t size = 0;
    uint8_t *data = tiny_codestream(1, &size);
    REQUIRE(data != NULL);
    outcome o = decode_checked(data, size, 0, 0, true, 0, "tiny codestream");
    CHECK(o.status == GJ2K_OK);
    free(data);

    expect_refused(60000, 60000, 60000, 60000, 16384); /* 5.9e13 samples */
    expect_refused(60000, 60000, 60000, 60000, 1);
    expect_refused(60000, 60000, 1, 1, 1);             /* 3.6e9 tiles */
    expect_refused(60000, 60000, 1, 1, 16384);
    expect_refused(UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, 3);
    expect_refused(1u << 31, 2, 1u << 31, 2, 1);
    expect_refused(65535, 65535, 256, 256, 4);         /* 65536 tiles of 256x256 */
    /* Few samples, but 65280 tiles of 256 components: every tile-component
     * costs set-up work, data or not. */
    expect_refused(255, 256, 1, 1, 256);
    expect_refused(64, 64, 1, 1, 16384);               /* 4096 tiles, 67M samples */
}

/* A valid codestream of a few dozen bytes may decode to a large image: one
 * tile of 9000x9000 empty code-blocks (NL = 0) is mid-grey, and decodes
 * (a guess of samples per codestream byte refused it), while the memory
 * limit refuses the image by name, or sends the tile through in strips
 * when only its coefficients would not fit beside the image. */
static void large_sparse_image_decodes(void)
{
    size_t size = 0;
    uint8_t *data = patched_codestream(9000, 9000, 9000, 9000, 1, &size);
    REQUIRE(data != NULL);
    gj2k_decode_options options = {.threads = 2};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    gj2k_status status = gj2k_decode_memory(data, size, &options, &image, &error);
    if (status != GJ2K_OK)
        fprintf(stderr, "  %zu-byte codestream of 9000x9000: %s\n", size, error.message);
    CHECK(status == GJ2K_OK);
    if (status == GJ2K_OK) {
        const gj2k_component *c = &image->components[0];
        CHECK(c->width == 9000 && c->height == 9000);
        size_t grey = 0, count = (size_t)c->width * c->height;
        for (size_t i = 0; i < count; i++)
            grey += c->samples[i] == 128;
        CHECK_EQ(grey, count);
    }
    gj2k_image_destroy(image);
    /* 100 MiB cannot hold the image (309 MiB); 500 MiB holds it, but not
     * its tile's coefficients beside it: the tile goes in strips. */
    options.max_memory = (uint64_t)100 << 20;
    gj2k_decode_report report = {0};
    options.report = &report;
    status = gj2k_decode_memory(data, size, &options, &image, &error);
    CHECK(status == GJ2K_ERROR_LIMIT && image == NULL && report.over_memory &&
          !report.incomplete);
    if (strstr(error.message, "the decoded image") == NULL ||
        strstr(error.message, "memory limit") == NULL) {
        fprintf(stderr, "  under 100 MiB: \"%s\"\n", error.message);
        CHECK(!"the refusal names what needed the memory");
    }
    options.max_memory = (uint64_t)500 << 20;
    status = gj2k_decode_memory(data, size, &options, &image, &error);
    if (status != GJ2K_OK)
        fprintf(stderr, "  under 500 MiB: %s\n", error.message);
    CHECK(status == GJ2K_OK && report.strips > 1 && !report.over_memory);
    if (status == GJ2K_OK) {
        const gj2k_component *c = &image->components[0];
        size_t grey = 0, count = (size_t)c->width * c->height;
        for (size_t i = 0; i < count; i++)
            grey += c->samples[i] == 128;
        CHECK_EQ(grey, count);
    }
    gj2k_image_destroy(image);
    free(data);
}

/* HTJ2K files (the shared samples: OpenJPH's codestreams, a JPH file, a
 * vertically causal .jhc) decode: the lossless photo to the very samples
 * of the photo it was made from, the others to their size. (OpenJPH's own
 * decoder against gj2k on many more: conformance/ht_crosscheck.c.) */
static void ht_shared_samples_decode(void)
{
    static const struct { const char *file; uint32_t width, height, components; } files[] = {
        {"images/htj2k/Bretagne1_ht.j2k", 640, 480, 3},
        {"images/htj2k/Bretagne1_ht_lossy.j2k", 640, 480, 3},
        {"images/htj2k/byte.jph", 20, 20, 1},
        {"images/htj2k/byte_causal.jhc", 20, 20, 1}};
    gj2k_image *photo = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_read_file(test_shared_path("images/Bretagne1.ppm"), NULL, &photo, &error) ==
            GJ2K_OK);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        gj2k_image *image = NULL;
        gj2k_decode_options options = {.device = GJ2K_DEVICE_CPU};
        if (gj2k_decode_file(test_shared_path(files[i].file), &options, &image, &error) != GJ2K_OK) {
            fprintf(stderr, "%s: %s\n", files[i].file, error.message);
            CHECK(false);
            continue;
        }
        CHECK(image->x1 - image->x0 == files[i].width && image->y1 - image->y0 == files[i].height);
        CHECK(image->num_components == files[i].components);
        if (i == 0)
            for (uint32_t c = 0; c < 3; c++)
                CHECK(memcmp(image->components[c].samples, photo->components[c].samples,
                             (size_t)640 * 480 * sizeof(int32_t)) == 0);
        gj2k_image_destroy(image);
    }
    gj2k_image_destroy(photo);
}

static const test_case cases[] = {
    {"damaged_files_0", damaged_files_0},
    {"damaged_files_1", damaged_files_1},
    {"damaged_files_2", damaged_files_2},
    {"damaged_files_3", damaged_files_3},
    {"damaged_files_4", damaged_files_4},
    {"damaged_files_5", damaged_files_5},
    {"absurd_siz_fails_fast", absurd_siz_fails_fast},
    {"large_sparse_image_decodes", large_sparse_image_decodes},
    {"ht_shared_samples_decode", ht_shared_samples_decode},
};

TEST_MAIN(cases)
