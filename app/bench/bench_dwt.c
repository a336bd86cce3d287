/* bench_dwt.c - see bench_dwt.h.
 *
 * For single-component 8-bit images of 1024^2 .. 16384^2 samples, 5 levels,
 * both wavelets, forward and inverse, it prints the kernel time (CUDA events
 * around the level kernels and any sample pass; transfers apart), the bytes
 * the levels must move at the least, the effective rate and that rate as a
 * share of the device-to-device copy bandwidth measured in the same run.
 * Least bytes: forward, the input at its storage width (1 byte) read once,
 * every subband written once (4 bytes a coefficient), every intermediate LL
 * written and read once; inverse, the same the other way, the samples
 * written at 1 byte. The 9/7 forward also writes the fractions rate control
 * uses (1 byte a coefficient), counted apart. Then the whole GPU stage of a
 * three-component 4096^2 image, transfers included (bench_gpu.c). */
#include "bench_dwt.h"
#include "bench_dwt_cpu.h"
#include "bench_dwt_strategies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gpu.h"
#include "dwt.h"
#include "gj2k.h"
#include "gpu_stage.h"
#include "options.h"

#define BENCH_LEVELS 5

static const option_spec dwt_options[] = {
    {"-n", "REPEATS", "runs of each case; the fastest counts (default 3)"},
    {"--min", "N", "smallest side to try, of 1024 2048 4096 8192 16384 (default 1024)"},
    {"--max", "N", "largest side to try, of 1024 2048 4096 8192 16384 (default 16384)"},
    {"--strategy", "NAME", "GPU DWT strategies side by side: register, block, separable, "
                           "convolution, polyconvolution or all"},
    {"--levels", "A-B", "with --strategy: the level counts to try (default 1-6)"},
    {"--calibrate", NULL, "with --strategy all: fit the time model on this run and print it"},
    {"--predict", NULL, "the time model beside each measurement (implies --strategy all)"},
    {"--cpu", NULL, "the CPU's vertical-pass methods, 1 thread and all (--max 8192)"},
    {"-threads", "N", "with --cpu: the threads beside one (default: every core)"},
    {"--help", NULL, "this text"},
};
#define DWT_OPTION_COUNT (sizeof dwt_options / sizeof dwt_options[0])

static uint64_t ceil_shift(uint64_t v, unsigned n) { return (v + ((uint64_t)1 << n) - 1) >> n; }

/* Least bytes a transform of levels of an n x n image moves, either way
 * (see above). */
static double least_bytes(uint32_t n)
{
    double bytes = (double)n * n * 1.0;   /* samples in (forward) or out (inverse) */
    for (unsigned level = 1; level <= BENCH_LEVELS; level++) {
        double area = (double)ceil_shift(n, level - 1) * ceil_shift(n, level - 1);
        double ll = (double)ceil_shift(n, level) * ceil_shift(n, level);
        bytes += (area - ll) * 4.0;       /* HL, LH, HH written (read) once */
        bytes += level < BENCH_LEVELS ? 2 * ll * 4.0 : ll * 4.0; /* LL: through, or the last band */
    }
    return bytes;
}

typedef struct dwt_case {
    uint32_t n;
    uint8_t *samples;      /* 8-bit input, n * n */
    int32_t *coefficients; /* forward out, inverse in (5/3) */
    float *floats;         /* inverse in (9/7) */
    uint8_t *fractions;
    uint8_t *back;         /* inverse out, 8-bit */
} dwt_case;

static double kernel_ms(gpu_stage *gpu)
{
    double ms[GPU_PHASES];
    gpu_stage_take_times(gpu, ms);
    return ms[GPU_PHASE_LEVELS] + ms[GPU_PHASE_SAMPLE_PASSES];
}

/* Each subband of an n x n plane of BENCH_LEVELS levels in 64 x 64
 * code-blocks, as the encoder's default. */
static void default_layout(codeblock_layout_band *layout, uint32_t n)
{
    dwt_rect plane = {0, 0, n, n};
    for (unsigned s = 0; s < 3 * BENCH_LEVELS + 1; s++) {
        dwt_rect b = dwt_band_rect(plane, dwt_subband_level(s, BENCH_LEVELS), dwt_subband_band(s));
        layout[s] = (codeblock_layout_band){.x0 = b.x0, .y0 = b.y0, .x1 = b.x1, .y1 = b.y1,
                                            .width_log2 = 6, .height_log2 = 6};
    }
    codeblock_layout_set_bases(layout, 3 * BENCH_LEVELS + 1);
}

/* Best kernel times of `repeats` runs: forward (Mallat layout, then code-
 * block by code-block as the encoder takes them) and inverse; false on failure. */
static bool time_case(gpu_stage *gpu, dwt_case *k, bool reversible, unsigned repeats,
                      double *forward_ms, double *blocks_ms, double *inverse_ms, bool *round_trip)
{
    float steps[3 * BENCH_LEVELS + 1];
    for (unsigned s = 0; s < 3 * BENCH_LEVELS + 1; s++)
        steps[s] = 1.0f / 64.0f; /* fine steps: every plane of work */
    dwt_rect rect = {0, 0, k->n, k->n};
    gpu_forward_plane f = {.rect = rect, .levels = BENCH_LEVELS, .precision = 8,
                           .input = k->samples, .input_bytes = 1, .output = k->coefficients,
                           .fractions = k->fractions, .steps = steps};
    gpu_inverse_plane i = {.rect = rect, .levels = BENCH_LEVELS, .precision = 8,
                           .samples = k->coefficients, .floats = k->floats, .output = k->back,
                           .output_bytes = 1};
    gj2k_error error = {0};
    size_t count = (size_t)k->n * k->n;
    *forward_ms = *inverse_ms = 1e30;
    for (unsigned r = 0; r < repeats; r++) {
        kernel_ms(gpu);
        if (gpu_forward(gpu, &f, 1, reversible, false, NULL, NULL, &error) != GJ2K_OK)
            goto failed;
        double ms = kernel_ms(gpu);
        *forward_ms = ms < *forward_ms ? ms : *forward_ms;
        if (!reversible) /* dequantize at the middle of each step, as a decoder would */
            for (size_t x = 0; x < count; x++) {
                int32_t q = k->coefficients[x];
                k->floats[x] = q == 0 ? 0.0f
                             : ((float)q + (q > 0 ? 0.5f : -0.5f)) * steps[0];
            }
        if (gpu_inverse(gpu, &i, 1, reversible, false, NULL, NULL, &error) != GJ2K_OK)
            goto failed;
        ms = kernel_ms(gpu);
        *inverse_ms = ms < *inverse_ms ? ms : *inverse_ms;
    }
    codeblock_layout_band layout[3 * BENCH_LEVELS + 1];
    default_layout(layout, k->n);
    gpu_forward_plane blocks = f;
    blocks.layout = layout;
    *blocks_ms = 1e30;
    for (unsigned r = 0; r < repeats; r++) {
        kernel_ms(gpu);
        if (gpu_forward(gpu, &blocks, 1, reversible, false, NULL, NULL, &error) != GJ2K_OK)
            goto failed;
        double ms = kernel_ms(gpu);
        *blocks_ms = ms < *blocks_ms ? ms : *blocks_ms;
    }
    /* The 5/3 is exact; the 9/7 at these steps lands within one level. */
    *round_trip = true;
    for (size_t x = 0; x < count && *round_trip; x++) {
        int d = (int)k->back[x] - (int)k->samples[x];
        *round_trip = reversible ? d == 0 : (d >= -1 && d <= 1);
    }
    return true;
failed:
    report_error("bench dwt: %s", error.message);
    return false;
}

static void free_case(dwt_case *k)
{
    free(k->samples);
    free(k->coefficients);
    free(k->floats);
    free(k->fractions);
    free(k->back);
}

static bool make_case(dwt_case *k, uint32_t n)
{
    memset(k, 0, sizeof *k);
    k->n = n;
    size_t count = (size_t)n * n;
    k->samples = malloc(count);
    k->coefficients = malloc(count * sizeof(int32_t));
    k->floats = malloc(count * sizeof(float));
    k->fractions = malloc(count);
    k->back = malloc(count);
    if (!k->samples || !k->coefficients || !k->floats || !k->fractions || !k->back)
        return false;
    uint64_t state = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t x = 0; x < count; x++) { /* gradients plus noise */
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        size_t row = x / n, column = x % n;
        k->samples[x] = (uint8_t)(((row + column) / 16 + (state >> 59)) & 0xFF);
    }
    return true;
}

int bench_dwt(int argc, char **argv)
{
    parsed_options options;
    if (!options_parse("bench dwt", argc, argv, dwt_options, DWT_OPTION_COUNT, 0, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k bench dwt [-n REPEATS] [--min N] [--max N] [--strategy NAME|all "
                           "[--levels A-B] [--calibrate] [--predict] | --cpu [-threads N]]",
                           "Times the GPU stage's level kernels (5 levels, 8-bit input) against\n"
                           "the device's copy bandwidth, then the whole GPU stage of a\n"
                           "three-component image with its transfers. With --strategy, the\n"
                           "bare transform by each GPU strategy instead, each checked against\n"
                           "the register strategy's bits, with the time model's prediction.\n"
                           "With --cpu, the CPU's vertical-pass methods on one thread and all.",
                           dwt_options, DWT_OPTION_COUNT);
        options_free(&options);
        return 0;
    }
    unsigned long repeats = 3, smallest = 1024, largest = 16384;
    const char *text = options_get(&options, "-n");
    bool ok = text == NULL || options_parse_uint(text, 1, 100, &repeats);
    const char *max = options_get(&options, "--max");
    ok = ok && (max == NULL || options_parse_uint(max, 1024, 16384, &largest));
    const char *min = options_get(&options, "--min");
    ok = ok && (min == NULL || options_parse_uint(min, 1024, 16384, &smallest));
    const char *strategy = options_get(&options, "--strategy");
    if (strategy == NULL && options_has(&options, "--predict"))
        strategy = "all";
    const char *levels = options_get(&options, "--levels");
    bool calibrate = options_has(&options, "--calibrate");
    if (!ok) {
        options_free(&options);
        report_error("bench dwt: -n takes 1..100 repeats, --min and --max 1024..16384");
        return EXIT_USAGE;
    }
    bool cpu = options_has(&options, "--cpu");
    const char *threads_text = options_get(&options, "-threads");
    unsigned long threads = 0;
    if (cpu || threads_text != NULL) {
        int code = EXIT_USAGE;
        if (!cpu || strategy != NULL || calibrate)
            report_error("bench dwt: -threads goes with --cpu, which goes without --strategy");
        else if (threads_text != NULL && !options_parse_threads(threads_text, &threads))
            report_error("bench dwt: -threads takes 1..1024");
        else
            code = bench_dwt_cpu((uint32_t)smallest, max != NULL ? (uint32_t)largest : 8192,
                                 (unsigned)repeats, (unsigned)threads);
        options_free(&options);
        return code;
    }
    if (strategy != NULL || levels != NULL || calibrate) {
        int code = EXIT_USAGE;
        if (strategy == NULL)
            report_error("bench dwt: --levels and --calibrate go with --strategy");
        else if (calibrate && strcmp(strategy, "all") != 0)
            report_error("bench dwt: --calibrate needs --strategy all");
        else
            code = bench_dwt_strategies(strategy, levels, (uint32_t)smallest, (uint32_t)largest,
                                        (unsigned)repeats, calibrate);
        options_free(&options);
        return code;
    }
    options_free(&options);
    gpu_stage *gpu = NULL;
    gj2k_error error = {0};
    if (gpu_stage_create(0, &gpu, &error) != GJ2K_OK) {
        printf("gj2k bench dwt: no GPU stage (%s)\n", error.message);
        return 0;
    }
    double copy_gbps = 0;
    if (gpu_stage_copy_bandwidth(gpu, (size_t)1 << 30, &copy_gbps, &error) != GJ2K_OK) {
        report_error("bench dwt: %s", error.message);
        gpu_stage_destroy(gpu);
        return 1;
    }
    printf("gj2k bench dwt: %d levels, 8-bit single component, best of %lu; device-to-device "
           "copy %.0f GB/s (read + write); the 9/7 forward also writes 1 byte of fraction a "
           "coefficient, not counted\n", BENCH_LEVELS, repeats, copy_gbps);
    printf("| size | wavelet | direction | kernel ms | least MB | GB/s | of copy |\n");
    printf("| ---: | --- | --- | ---: | ---: | ---: | ---: |\n");
    int code = 0;
    for (uint32_t n = 1024; n <= largest && code == 0; n *= 2) {
        if (n < smallest)
            continue;
        dwt_case k;
        if (!make_case(&k, n)) {
            report_error("bench dwt: out of memory for %ux%u", n, n);
            free_case(&k);
            code = 1;
            break;
        }
        for (int wavelet = 0; wavelet < 2 && code == 0; wavelet++) {
            bool reversible = wavelet == 0, exact;
            double times[3];
            if (!time_case(gpu, &k, reversible, (unsigned)repeats, &times[0], &times[1], &times[2],
                           &exact)) {
                code = 1;
                break;
            }
            static const char *const directions[3] = {"forward", "forward, 64² code-blocks",
                                                      "inverse"};
            for (int d = 0; d < 3; d++) {
                double bytes = least_bytes(n);
                double gbps = bytes / (times[d] * 1e6);
                printf("| %u² | %s | %s | %.3f | %.1f | %.0f | %.0f%% |%s\n", n,
                       reversible ? "5/3" : "9/7", directions[d], times[d], bytes / 1e6, gbps,
                       100.0 * gbps / copy_gbps, d == 2 && !exact ? "  ROUND TRIP FAILED" : "");
            }
            if (!exact)
                code = 1;
        }
        free_case(&k);
    }
    gpu_stage_destroy(gpu);
    if (code != 0)
        return code;
    /* The whole stage with transfers, three components. */
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, 4096, 4096, 3, info, &error) != GJ2K_OK) {
        report_error("bench dwt: %s", error.message);
        return 1;
    }
    for (int c = 0; c < 3; c++)
        for (size_t x = 0; x < (size_t)4096 * 4096; x++)
            image->components[c].samples[x] = (int32_t)((x / 4096 + x % 4096 + 40 * (size_t)c) / 32 & 0xFF);
    code = bench_gpu_stage(image, BENCH_LEVELS, (unsigned)repeats);
    gj2k_image_destroy(image);
    return code;
}
