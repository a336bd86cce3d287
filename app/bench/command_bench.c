/* command_bench.c - `gj2k bench`: times the sample transforms of the coding
 * pipeline (level shift, RCT/ICT, multi-level DWT, quantization) forward and
 * inverse on an image, checks that the reversible path is exact, times whole
 * encodes (bench_encode.c), or times decoding a JPEG 2000 file; prints
 * throughput. The transforms run the CPU reference; GPU stages join as they land. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_batch.h"
#include "bench_encode.h"
#include "bench_dwt.h"
#include "bench_gpu.h"
#include "clock.h"
#include "commands.h"
#include "component_transform.h"
#include "dwt.h"
#include "gj2k.h"
#include "image_compare.h"
#include "level_shift.h"
#include "image_formats.h"
#include "options.h"
#include "parallel_pool.h"
#include "quantization.h"

static const option_spec bench_options[] = {
    {"-i", "FILE", "image to time (default: a synthetic 3-component 8-bit image); a JPEG 2000 "
                   "file times its decoding"},
    {"-s", "WxH", "size of the synthetic image (default 1920x1080)"},
    {"-l", "LEVELS", "decomposition levels, 0..32 (default 5)"},
    {"-n", "REPEATS", "runs of each stage; the fastest counts (default 3)"},
    {"-threads", "N", "threads for encoding and decoding (default: every core)"},
    {"--help", NULL, "this text"},
};
#define BENCH_OPTION_COUNT (sizeof bench_options / sizeof bench_options[0])

typedef struct bench_setup bench_setup;

struct bench_setup {
    uint32_t width, height, components, precision;
    bool is_signed;
    unsigned levels, repeats;
    int32_t *indices; /* scratch for the quantization stage */
};

static void print_row(const char *stage, double seconds, const bench_setup *setup)
{
    double megapixels = (double)setup->width * setup->height * 1e-6;
    printf("  %-34s %9.2f ms %9.1f MP/s\n", stage, seconds * 1e3, megapixels / seconds);
}

/* A deterministic, photograph-like test pattern: smooth gradients plus noise. */
static gj2k_status make_synthetic(uint32_t width, uint32_t height, gj2k_image **out,
                                  gj2k_error *error)
{
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_status status = gj2k_image_create(out, 0, 0, width, height, 3, info, error);
    if (status != GJ2K_OK)
        return status;
    uint32_t noise = 12345;
    for (uint32_t c = 0; c < 3; c++) {
        int32_t *s = (*out)->components[c].samples;
        for (uint32_t y = 0; y < height; y++)
            for (uint32_t x = 0; x < width; x++) {
                noise = noise * 1664525u + 1013904223u;
                double v = 128 + 60 * sin(x * (0.01 + 0.004 * c)) * cos(y * 0.013) +
                           (double)(noise >> 28) - 8;
                s[(size_t)y * width + x] = v < 0 ? 0 : v > 255 ? 255 : (int32_t)v;
            }
    }
    return GJ2K_OK;
}

/* A stage transforms the planes of every component in place; the planes
 * hold int32 samples or float coefficients as the stage expects. */
typedef gj2k_status (*stage_fn)(void *plane, const bench_setup *setup);

typedef struct bench_stage {
    const char *name;
    stage_fn per_component;          /* run on each component's plane, or NULL */
    void (*on_three)(void *, void *, void *, size_t); /* run once on the first three */
} bench_stage;

static size_t plane_size(const bench_setup *s) { return (size_t)s->width * s->height; }

static dwt_rect plane_rect(const bench_setup *s) { return (dwt_rect){0, 0, s->width, s->height}; }

static gj2k_status shift_forward(void *p, const bench_setup *s)
{
    level_shift_forward(p, plane_size(s), s->precision, s->is_signed);
    return GJ2K_OK;
}

static gj2k_status shift_inverse(void *p, const bench_setup *s)
{
    level_shift_inverse(p, plane_size(s), s->precision, s->is_signed);
    return GJ2K_OK;
}

static gj2k_status forward_53(void *p, const bench_setup *s)
{
    return dwt_forward_53(p, s->width, plane_rect(s), s->levels);
}

static gj2k_status inverse_53(void *p, const bench_setup *s)
{
    return dwt_inverse_53(p, s->width, plane_rect(s), s->levels);
}

static gj2k_status forward_97(void *p, const bench_setup *s)
{
    return dwt_forward_97(p, s->width, plane_rect(s), s->levels);
}

static gj2k_status inverse_97(void *p, const bench_setup *s)
{
    return dwt_inverse_97_interop(p, s->width, plane_rect(s), s->levels);
}

/* Quantizes with step 1/2 into the scratch indices and reconstructs (r = 1/2). */
static gj2k_status quantize_and_back(void *p, const bench_setup *s)
{
    quant_forward(p, s->indices, plane_size(s), 0.5f);
    quant_inverse(s->indices, p, plane_size(s), 0.5f, 0.5f);
    return GJ2K_OK;
}

static void rct_forward_planes(void *a, void *b, void *c, size_t n) { rct_forward(a, b, c, n); }
static void rct_inverse_planes(void *a, void *b, void *c, size_t n) { rct_inverse(a, b, c, n); }
static void ict_forward_planes(void *a, void *b, void *c, size_t n) { ict_forward(a, b, c, n); }
static void ict_inverse_planes(void *a, void *b, void *c, size_t n) { ict_inverse(a, b, c, n); }

static const bench_stage reversible_stages[] = {
    {"level shift", shift_forward, NULL},
    {"RCT", NULL, rct_forward_planes},
    {"forward 5/3 DWT", forward_53, NULL},
    {"inverse 5/3 DWT", inverse_53, NULL},
    {"inverse RCT", NULL, rct_inverse_planes},
    {"inverse level shift", shift_inverse, NULL},
};

/* The level shift and the conversion to float happen before these. */
static const bench_stage irreversible_stages[] = {
    {"ICT", NULL, ict_forward_planes},
    {"forward 9/7 DWT", forward_97, NULL},
    {"quantize + dequantize", quantize_and_back, NULL},
    {"inverse 9/7 DWT", inverse_97, NULL},
    {"inverse ICT", NULL, ict_inverse_planes},
};

/* Runs each stage in turn on `planes`, each from the previous one's output;
 * every stage runs `repeats` times from a fresh copy and the fastest counts. */
static gj2k_status run_chain(const bench_stage *stages, size_t count, void *planes[3],
                             void *work[3], const bench_setup *setup)
{
    size_t bytes = plane_size(setup) * 4; /* int32 or float */
    for (size_t i = 0; i < count; i++) {
        if (stages[i].on_three != NULL && setup->components < 3)
            continue;
        double best = INFINITY;
        for (unsigned r = 0; r < setup->repeats; r++) {
            for (uint32_t c = 0; c < setup->components; c++)
                memcpy(work[c], planes[c], bytes);
            double start = now_seconds();
            if (stages[i].on_three != NULL)
                stages[i].on_three(work[0], work[1], work[2], plane_size(setup));
            for (uint32_t c = 0; stages[i].per_component != NULL && c < setup->components; c++) {
                gj2k_status status = stages[i].per_component(work[c], setup);
                if (status != GJ2K_OK)
                    return status;
            }
            double elapsed = now_seconds() - start;
            best = elapsed < best ? elapsed : best;
        }
        print_row(stages[i].name, best, setup);
        for (uint32_t c = 0; c < setup->components; c++)
            memcpy(planes[c], work[c], bytes);
    }
    return GJ2K_OK;
}

static bool parse_size(const char *text, uint32_t *width, uint32_t *height)
{
    unsigned long w, h;
    char *end;
    w = strtoul(text, &end, 10);
    if (*end != 'x')
        return false;
    h = strtoul(end + 1, &end, 10);
    if (*end != '\0' || w == 0 || h == 0 || w > 65536 || h > 65536)
        return false;
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return true;
}

/* The fastest of `repeats` runs of one DWT on a fresh copy of `source`
 * (n elements of 4 bytes) in `plane`, on `pool` (NULL: one thread). */
static double time_dwt(bool reversible, bool forward, parallel_pool *pool, const void *source,
                       void *plane, size_t n, const bench_setup *s)
{
    double best = INFINITY;
    for (unsigned r = 0; r < s->repeats; r++) {
        memcpy(plane, source, n * 4);
        double start = now_seconds();
        gj2k_status status =
            reversible ? (forward ? dwt_forward_53_on : dwt_inverse_53_on)(pool, plane, s->width,
                                                                          plane_rect(s), s->levels)
            : forward  ? dwt_forward_97_on(pool, plane, s->width, plane_rect(s), s->levels)
                       : dwt_inverse_97_interop_on(pool, plane, s->width, plane_rect(s), s->levels);
        double elapsed = now_seconds() - start;
        if (status != GJ2K_OK)
            return -1.0;
        best = elapsed < best ? elapsed : best;
    }
    return best;
}

/* The DWT of one component on every thread against one thread: the CPU
 * side of the wavelet stage's comparison (issue 15), bit for bit. */
static int bench_dwt_threads(const gj2k_image *image, const bench_setup *setup, unsigned threads)
{
    size_t n = plane_size(setup);
    parallel_pool *pool = NULL;
    int32_t *source = malloc(n * 4), *one = malloc(n * 4), *many = malloc(n * 4);
    float *floats = malloc(n * 4);
    if (!source || !one || !many || !floats ||
        parallel_pool_create(threads, &pool, NULL) != GJ2K_OK) {
        free(source), free(one), free(many), free(floats);
        report_error("bench: out of memory for a %ux%u plane", setup->width, setup->height);
        return 1;
    }
    memcpy(source, image->components[0].samples, n * 4);
    level_shift_forward(source, n, setup->precision, setup->is_signed);
    for (size_t i = 0; i < n; i++)
        floats[i] = (float)source[i];
    printf("DWT of one component on %u threads against one (5 levels as above, same bits "
           "required):\n", parallel_pool_size(pool));
    int code = 0;
    for (int k = 0; k < 4; k++) {
        bool reversible = k < 2, forward = k % 2 == 0;
        const void *from = reversible ? (const void *)source : (const void *)floats;
        double single = time_dwt(reversible, forward, NULL, from, one, n, setup);
        double shared = time_dwt(reversible, forward, pool, from, many, n, setup);
        bool same = single >= 0 && shared >= 0 && memcmp(one, many, n * 4) == 0;
        printf("  %-34s %9.2f ms, one thread %9.2f ms: %.2fx, %s\n",
               k == 0 ? "forward 5/3 DWT" : k == 1 ? "inverse 5/3 DWT"
               : k == 2 ? "forward 9/7 DWT" : "inverse 9/7 DWT",
               shared * 1e3, single * 1e3, single / shared, same ? "same bits" : "DIFFERENT BITS");
        code |= same ? 0 : 1;
    }
    parallel_pool_destroy(pool);
    free(source), free(one), free(many), free(floats);
    return code;
}

static int run_bench(const gj2k_image *image, bench_setup *setup)
{
    size_t count = plane_size(setup);
    void *planes[3] = {0}, *work[3] = {0};
    int exit_code = 1;
    setup->indices = malloc(count * sizeof(int32_t));
    bool allocated = setup->indices != NULL;
    for (uint32_t c = 0; c < setup->components; c++) {
        planes[c] = malloc(count * 4);
        work[c] = malloc(count * 4);
        allocated = allocated && planes[c] && work[c];
    }
    if (!allocated) {
        report_error("bench: out of memory for a %ux%u image", setup->width, setup->height);
        goto done;
    }
    printf("gj2k bench: %ux%u, %u component%s, %u-bit, %u levels, CPU reference, best of %u\n",
           setup->width, setup->height, setup->components, setup->components == 1 ? "" : "s",
           setup->precision, setup->levels, setup->repeats);

    printf("reversible (5/3%s):\n", setup->components >= 3 ? ", RCT" : "");
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(planes[c], image->components[c].samples, count * 4);
    gj2k_status status = run_chain(reversible_stages, sizeof reversible_stages /
                                   sizeof reversible_stages[0], planes, work, setup);
    bool exact = status == GJ2K_OK;
    for (uint32_t c = 0; c < setup->components && exact; c++)
        exact = memcmp(planes[c], image->components[c].samples, count * 4) == 0;
    printf("  lossless round trip: %s\n", exact ? "exact" : "MISMATCH");

    printf("irreversible (9/7%s, quantization step 1/2 for every band):\n",
           setup->components >= 3 ? ", ICT" : "");
    for (uint32_t c = 0; c < setup->components; c++) {
        int32_t *samples = work[c];
        memcpy(samples, image->components[c].samples, count * 4);
        level_shift_forward(samples, count, setup->precision, setup->is_signed);
        for (size_t i = 0; i < count; i++)
            ((float *)planes[c])[i] = (float)samples[i];
    }
    if (status == GJ2K_OK)
        status = run_chain(irreversible_stages, sizeof irreversible_stages /
                           sizeof irreversible_stages[0], planes, work, setup);
    double squared = 0;
    for (uint32_t c = 0; c < setup->components && status == GJ2K_OK; c++) {
        int32_t *samples = work[c];
        level_shift_inverse_float(planes[c], samples, count, setup->precision, setup->is_signed);
        for (size_t i = 0; i < count; i++) {
            double d = samples[i] - image->components[c].samples[i];
            squared += d * d;
        }
    }
    double peak = (double)((1u << setup->precision) - 1);
    double mse = squared / ((double)count * setup->components);
    printf("  lossy round trip: PSNR %.2f dB\n", mse > 0 ? 10 * log10(peak * peak / mse) : INFINITY);
    if (status != GJ2K_OK)
        report_error("bench: %s", gj2k_status_name(status));
    else
        exit_code = exact ? 0 : 1;
done:
    for (uint32_t c = 0; c < 3; c++) {
        free(planes[c]);
        free(work[c]);
    }
    free(setup->indices);
    return exit_code;
}

/* The fastest of `repeats` decodes of `data` on `device`, in seconds; the
 * image of the last is kept in *image. */
static bool time_decode(const uint8_t *data, size_t size, unsigned threads, gj2k_device device,
                        unsigned repeats, gj2k_image **image, double *best,
                        gj2k_decode_report *best_report, gj2k_error *error)
{
    gj2k_decode_report report = GJ2K_DECODE_REPORT_INIT;
    gj2k_decode_options options = {.threads = threads, .device = device, .report = &report};
    *best = INFINITY;
    for (unsigned r = 0; r < repeats; r++) {
        gj2k_image_destroy(*image);
        *image = NULL;
        double start = now_seconds();
        if (gj2k_decode_memory(data, size, &options, image, error) != GJ2K_OK)
            return false;
        double elapsed = now_seconds() - start;
        if (elapsed < *best)
            *best_report = report;
        *best = elapsed < *best ? elapsed : *best;
    }
    return true;
}

static void print_decode_stages(const gj2k_decode_report *r)
{
    printf("    stages: open GPU %.2f, tiles %.2f ms: Tier-2 %.2f, Tier-1 %.2f (%llu blocks by GPU "
           "Tier-1), transforms and samples out %.2f (GPU copies %.2f) ms\n", r->open_ms,
           r->tiles_ms, r->tier2_ms, r->tier1_ms, (unsigned long long)r->gpu_blocks,
           r->transform_ms, r->copies_ms);
}

/* Times decoding a JPEG 2000 file held in memory (no file I/O counted), on
 * the CPU and, where there is one, on the GPU (the first GPU decode of a
 * process also opens the device; the best of the repeats leaves that out). */
static int bench_decode(const char *path, unsigned repeats, unsigned threads)
{
    uint8_t *data;
    size_t size;
    gj2k_error error = {0};
    if (file_read_all(path, &data, &size, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    double best = INFINITY, best_gpu = INFINITY;
    gj2k_image *image = NULL, *on_gpu = NULL;
    gj2k_decode_report report = {0}, gpu_report = {0};
    if (!time_decode(data, size, threads, GJ2K_DEVICE_CPU, repeats, &image, &best, &report,
                     &error)) {
        report_error("%s: %s", path, error.message);
        free(data);
        return 1;
    }
    gj2k_error gpu_error = {0};
    bool gpu = time_decode(data, size, threads, GJ2K_DEVICE_GPU, repeats, &on_gpu, &best_gpu,
                           &gpu_report, &gpu_error);
    double megapixels = (double)(image->x1 - image->x0) * (image->y1 - image->y0) * 1e-6;
    printf("gj2k bench: decode %s (%zu bytes): %ux%u, %u components, %u threads, best of %u\n",
           path, size, image->x1 - image->x0, image->y1 - image->y0, image->num_components,
           parallel_thread_count(threads), repeats);
    printf("  %-34s %9.2f ms %9.1f MP/s\n", "decode (memory to image), CPU", best * 1e3,
           megapixels / best);
    print_decode_stages(&report);
    int code = 0;
    if (gpu) {
        char why[160];
        image_difference difference;
        bool same = image_compare(image, on_gpu, &difference, why, sizeof why) &&
                    difference.identical;
        printf("  %-34s %9.2f ms %9.1f MP/s  %s\n", "decode (memory to image), GPU", best_gpu * 1e3,
               megapixels / best_gpu, same ? "same samples as the CPU" : "DIFFERS FROM THE CPU");
        print_decode_stages(&gpu_report);
        code = same ? 0 : 1;
    } else { /* no GPU is no failure; a GPU that fails is */
        gj2k_device_info device = GJ2K_DEVICE_INFO_INIT;
        gj2k_device_probe(&device);
        printf("  decode on the GPU: %s\n", gpu_error.message);
        code = device.device_count > 0 ? 1 : 0;
    }
    gj2k_image_destroy(image);
    gj2k_image_destroy(on_gpu);
    free(data);
    return code;
}

int command_bench(int argc, char **argv)
{
    if (argc > 0 && strcmp(argv[0], "dwt") == 0)
        return bench_dwt(argc - 1, argv + 1);
    if (argc > 0 && strcmp(argv[0], "batch") == 0)
        return bench_batch(argc - 1, argv + 1);
    parsed_options options;
    if (!options_parse("bench", argc, argv, bench_options, BENCH_OPTION_COUNT, 0, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k bench [-i FILE | -s WxH] [-l LEVELS] [-n REPEATS] [-threads N]",
                           "Times each sample transform of the pipeline, forward and inverse,\n"
                           "then whole encodes (lossless, and lossy -I -r 20) from memory to\n"
                           "memory and a whole read + encode + write run; a JPEG 2000 file\n"
                           "times its decoding instead. Prints megapixels per second.",
                           bench_options, BENCH_OPTION_COUNT);
        static const char *const examples[] = {
            "gj2k bench -i photo.ppm                 # transforms, then whole encodes",
            "gj2k bench -i photo.j2k -threads 4      # a decode from memory",
            "gj2k bench batch -i photo.ppm -b 16", NULL};
        options_print_examples(examples);
        options_free(&options);
        return 0;
    }
    bench_setup setup = {.width = 1920, .height = 1080, .levels = 5, .repeats = 3};
    const char *input = options_get(&options, "-i");
    const char *size = options_get(&options, "-s");
    const char *levels = options_get(&options, "-l");
    const char *repeats = options_get(&options, "-n");
    const char *threads = options_get(&options, "-threads");
    options_free(&options);
    unsigned long value;
    if (levels != NULL) {
        if (!options_parse_uint(levels, 0, DWT_MAX_LEVELS, &value)) {
            report_error("bench: -l %s: expected 0..%d levels", levels, DWT_MAX_LEVELS);
            return EXIT_USAGE;
        }
        setup.levels = (unsigned)value;
    }
    if (repeats != NULL) {
        if (!options_parse_uint(repeats, 1, 1000, &value)) {
            report_error("bench: -n %s: expected 1..1000 repeats", repeats);
            return EXIT_USAGE;
        }
        setup.repeats = (unsigned)value;
    }
    unsigned thread_count = 0;
    if (threads != NULL) {
        if (!options_parse_threads(threads, &value)) {
            report_error("bench: -threads %s: expected 1..1024", threads);
            return EXIT_USAGE;
        }
        thread_count = (unsigned)value;
    }
    gj2k_file_format format = input ? gj2k_format_from_path(input) : GJ2K_FORMAT_UNKNOWN;
    if (format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2)
        return bench_decode(input, setup.repeats, thread_count);
    if (size != NULL && !parse_size(size, &setup.width, &setup.height)) {
        report_error("bench: -s %s: expected WIDTHxHEIGHT, each 1..65536", size);
        return EXIT_USAGE;
    }
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    gj2k_status status = input ? gj2k_image_read_file(input, NULL, &image, &error)
                               : make_synthetic(setup.width, setup.height, &image, &error);
    if (status != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    const gj2k_component *first = &image->components[0];
    int code = 0;
    if (!gj2k_image_is_uniform(image) || first->precision > 16) {
        printf("gj2k bench: %s: transforms skipped (they need components of one size and at "
               "most 16 bits)\n", input);
    } else {
        setup.width = first->width;
        setup.height = first->height;
        setup.components = image->num_components < 3 ? 1 : 3;
        setup.precision = first->precision;
        setup.is_signed = first->is_signed;
        code = run_bench(image, &setup);
        if (bench_dwt_threads(image, &setup, thread_count) != 0)
            code = 1;
        if (bench_gpu_stage(image, setup.levels, setup.repeats) != 0)
            code = 1;
    }
    if (bench_encode(image, input, setup.levels + 1, setup.repeats, thread_count) != 0)
        code = 1;
    gj2k_image_destroy(image);
    return code;
}
