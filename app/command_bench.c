/* command_bench.c - `gj2k bench`: times the sample transforms of the coding
 * pipeline (level shift, RCT/ICT, multi-level DWT, quantization) forward and
 * inverse on an image, checks that the reversible path is exact, and prints
 * throughput. The CPU reference runs here; GPU stages join as they land. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "component_transform.h"
#include "dwt.h"
#include "gj2k.h"
#include "level_shift.h"
#include "options.h"
#include "quantization.h"

static const option_spec bench_options[] = {
    {"-i", "FILE", "image to time (default: a synthetic 3-component 8-bit image)"},
    {"-s", "WxH", "size of the synthetic image (default 1920x1080)"},
    {"-l", "LEVELS", "decomposition levels, 0..32 (default 5)"},
    {"-n", "REPEATS", "runs of each stage; the fastest counts (default 3)"},
    {"--help", NULL, "this text"},
};
#define BENCH_OPTION_COUNT (sizeof bench_options / sizeof bench_options[0])

typedef struct bench_setup {
    uint32_t width, height, components, precision;
    bool is_signed;
    unsigned levels, repeats;
} bench_setup;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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

/* Runs one stage `repeats` times from fresh copies of `inputs` and returns the
 * fastest time; `stage` transforms the planes in place. */
typedef void (*stage_fn)(void *planes[3], const bench_setup *setup, gj2k_status *status);

static double time_stage(stage_fn stage, void *const inputs[3], void *work[3], size_t bytes,
                         const bench_setup *setup, gj2k_status *status)
{
    double best = INFINITY;
    for (unsigned r = 0; r < setup->repeats && *status == GJ2K_OK; r++) {
        for (uint32_t c = 0; c < setup->components; c++)
            memcpy(work[c], inputs[c], bytes);
        double start = now_seconds();
        stage(work, setup, status);
        double elapsed = now_seconds() - start;
        best = elapsed < best ? elapsed : best;
    }
    return best;
}

static size_t plane_size(const bench_setup *s) { return (size_t)s->width * s->height; }

static dwt_rect plane_rect(const bench_setup *s) { return (dwt_rect){0, 0, s->width, s->height}; }

static void stage_shift_rct(void *p[3], const bench_setup *s, gj2k_status *status)
{
    (void)status;
    for (uint32_t c = 0; c < s->components; c++)
        level_shift_forward(p[c], plane_size(s), s->precision, s->is_signed);
    if (s->components >= 3)
        rct_forward(p[0], p[1], p[2], plane_size(s));
}

static void stage_forward_53(void *p[3], const bench_setup *s, gj2k_status *status)
{
    for (uint32_t c = 0; c < s->components && *status == GJ2K_OK; c++)
        *status = dwt_forward_53(p[c], s->width, plane_rect(s), s->levels);
}

static void stage_inverse_53(void *p[3], const bench_setup *s, gj2k_status *status)
{
    for (uint32_t c = 0; c < s->components && *status == GJ2K_OK; c++)
        *status = dwt_inverse_53(p[c], s->width, plane_rect(s), s->levels);
}

static void stage_inverse_rct_shift(void *p[3], const bench_setup *s, gj2k_status *status)
{
    (void)status;
    if (s->components >= 3)
        rct_inverse(p[0], p[1], p[2], plane_size(s));
    for (uint32_t c = 0; c < s->components; c++)
        level_shift_inverse(p[c], plane_size(s), s->precision, s->is_signed);
}

/* Irreversible planes are floats; the level shift happens on integers first. */
static void stage_ict(void *p[3], const bench_setup *s, gj2k_status *status)
{
    (void)status;
    if (s->components >= 3)
        ict_forward(p[0], p[1], p[2], plane_size(s));
}

static void stage_forward_97(void *p[3], const bench_setup *s, gj2k_status *status)
{
    for (uint32_t c = 0; c < s->components && *status == GJ2K_OK; c++)
        *status = dwt_forward_97(p[c], s->width, plane_rect(s), s->levels);
}

static void stage_inverse_97(void *p[3], const bench_setup *s, gj2k_status *status)
{
    for (uint32_t c = 0; c < s->components && *status == GJ2K_OK; c++)
        *status = dwt_inverse_97(p[c], s->width, plane_rect(s), s->levels);
}

static void stage_inverse_ict(void *p[3], const bench_setup *s, gj2k_status *status)
{
    (void)status;
    if (s->components >= 3)
        ict_inverse(p[0], p[1], p[2], plane_size(s));
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

static int run_bench(const gj2k_image *image, bench_setup *setup)
{
    size_t count = plane_size(setup);
    void *original[3] = {0}, *work[3] = {0}, *coefficients[3] = {0}, *floats[3] = {0};
    int32_t *indices[3] = {0};
    int exit_code = 1;
    for (uint32_t c = 0; c < setup->components; c++) {
        original[c] = malloc(count * sizeof(int32_t));
        work[c] = malloc(count * sizeof(int32_t));
        coefficients[c] = malloc(count * sizeof(int32_t));
        floats[c] = malloc(count * sizeof(float));
        indices[c] = malloc(count * sizeof(int32_t));
        if (!original[c] || !work[c] || !coefficients[c] || !floats[c] || !indices[c]) {
            report_error("bench: out of memory for a %ux%u image", setup->width, setup->height);
            goto done;
        }
        memcpy(original[c], image->components[c].samples, count * sizeof(int32_t));
    }
    gj2k_status status = GJ2K_OK;
    double t;
    printf("gj2k bench: %ux%u, %u component%s, %u-bit, %u levels, CPU reference, best of %u\n",
           setup->width, setup->height, setup->components, setup->components == 1 ? "" : "s",
           setup->precision, setup->levels, setup->repeats);

    printf("reversible (5/3, RCT):\n");
    t = time_stage(stage_shift_rct, original, work, count * 4, setup, &status);
    print_row("level shift + RCT", t, setup);
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(coefficients[c], work[c], count * 4);
    t = time_stage(stage_forward_53, coefficients, work, count * 4, setup, &status);
    print_row("forward 5/3 DWT", t, setup);
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(coefficients[c], work[c], count * 4);
    t = time_stage(stage_inverse_53, coefficients, work, count * 4, setup, &status);
    print_row("inverse 5/3 DWT", t, setup);
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(coefficients[c], work[c], count * 4);
    t = time_stage(stage_inverse_rct_shift, coefficients, work, count * 4, setup, &status);
    print_row("inverse RCT + level shift", t, setup);
    bool exact = status == GJ2K_OK;
    for (uint32_t c = 0; c < setup->components && exact; c++)
        exact = memcmp(work[c], original[c], count * 4) == 0;
    printf("  lossless round trip: %s\n", exact ? "exact" : "MISMATCH");

    printf("irreversible (9/7, ICT, quantization step 1/2 for every band):\n");
    for (uint32_t c = 0; c < setup->components; c++) {
        memcpy(work[c], original[c], count * 4);
        level_shift_forward(work[c], count, setup->precision, setup->is_signed);
        for (size_t i = 0; i < count; i++)
            ((float *)coefficients[c])[i] = (float)((int32_t *)work[c])[i];
    }
    t = time_stage(stage_ict, coefficients, floats, count * 4, setup, &status);
    print_row("ICT", t, setup);
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(coefficients[c], floats[c], count * 4);
    t = time_stage(stage_forward_97, coefficients, floats, count * 4, setup, &status);
    print_row("forward 9/7 DWT", t, setup);
    double start = now_seconds();
    for (uint32_t c = 0; c < setup->components; c++)
        quant_forward(floats[c], indices[c], count, 0.5f);
    print_row("quantize", now_seconds() - start, setup);
    start = now_seconds();
    for (uint32_t c = 0; c < setup->components; c++)
        quant_inverse(indices[c], coefficients[c], count, 0.5f, 0.5f);
    print_row("dequantize", now_seconds() - start, setup);
    t = time_stage(stage_inverse_97, coefficients, floats, count * 4, setup, &status);
    print_row("inverse 9/7 DWT", t, setup);
    for (uint32_t c = 0; c < setup->components; c++)
        memcpy(coefficients[c], floats[c], count * 4);
    t = time_stage(stage_inverse_ict, coefficients, floats, count * 4, setup, &status);
    print_row("inverse ICT", t, setup);
    double squared = 0;
    for (uint32_t c = 0; c < setup->components; c++) {
        level_shift_inverse_float(floats[c], work[c], count, setup->precision, setup->is_signed);
        for (size_t i = 0; i < count; i++) {
            double d = ((int32_t *)work[c])[i] - ((int32_t *)original[c])[i];
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
        free(original[c]);
        free(work[c]);
        free(coefficients[c]);
        free(floats[c]);
        free(indices[c]);
    }
    return exit_code;
}

int command_bench(int argc, char **argv)
{
    parsed_options options;
    if (!options_parse("bench", argc, argv, bench_options, BENCH_OPTION_COUNT, 0, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k bench [-i FILE | -s WxH] [-l LEVELS] [-n REPEATS]",
                           "Times each sample transform of the pipeline, forward and inverse, "
                           "and prints megapixels per second.", bench_options, BENCH_OPTION_COUNT);
        options_free(&options);
        return 0;
    }
    bench_setup setup = {.width = 1920, .height = 1080, .levels = 5, .repeats = 3};
    const char *input = options_get(&options, "-i");
    const char *size = options_get(&options, "-s");
    const char *levels = options_get(&options, "-l");
    const char *repeats = options_get(&options, "-n");
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
    if (!gj2k_image_is_uniform(image) || first->precision > 16) {
        report_error("bench: %s needs components of one size and at most 16 bits", input);
        gj2k_image_destroy(image);
        return 1;
    }
    setup.width = first->width;
    setup.height = first->height;
    setup.components = image->num_components < 3 ? 1 : 3;
    setup.precision = first->precision;
    setup.is_signed = first->is_signed;
    int code = run_bench(image, &setup);
    gj2k_image_destroy(image);
    return code;
}
