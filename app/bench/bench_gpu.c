/* bench_gpu.c - see bench_gpu.h. */
#include "bench_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "component_transform.h"
#include "dwt.h"
#include "gpu_stage.h"
#include "level_shift.h"
#include "options.h"
#include "quantization.h"

typedef struct gpu_bench {
    const gj2k_image *image;
    uint32_t count;         /* planes: 3 with a component transform, else 1 */
    dwt_rect rect;
    unsigned levels;
    int32_t *samples[3];    /* GPU output, and the inverse's input */
    void *packed[3];        /* the samples at storage width (gpu_input_bytes) */
    void *packed_back[3];   /* the inverse's output at that width */
    unsigned packed_bytes;
    uint8_t *fractions[3];
    float *floats[3];       /* inverse input (9/7) */
    float steps[3 * DWT_MAX_LEVELS + 1];
} gpu_bench;

static size_t plane_area(const gpu_bench *b)
{
    return (size_t)(b->rect.x1 - b->rect.x0) * (b->rect.y1 - b->rect.y0);
}

static void reset_samples(gpu_bench *b)
{
    for (uint32_t c = 0; c < b->count; c++)
        memcpy(b->samples[c], b->image->components[c].samples, plane_area(b) * sizeof(int32_t));
}

/* The CPU reference of the forward path, for the check. */
static bool forward_matches_cpu(gpu_bench *b, bool reversible)
{
    size_t n = plane_area(b), stride = b->rect.x1 - b->rect.x0;
    const gj2k_component *first = &b->image->components[0];
    bool same = true;
    int32_t *cpu[3] = {NULL, NULL, NULL};
    float *f[3] = {NULL, NULL, NULL};
    uint8_t *fr = malloc(n);
    for (uint32_t c = 0; c < b->count; c++) {
        cpu[c] = malloc(n * sizeof(int32_t));
        f[c] = malloc(n * sizeof(float));
        if (cpu[c] == NULL || f[c] == NULL || fr == NULL) {
            same = false;
            goto done;
        }
        memcpy(cpu[c], b->image->components[c].samples, n * sizeof(int32_t));
        level_shift_forward(cpu[c], n, first->precision, first->is_signed);
        for (size_t i = 0; i < n; i++)
            f[c][i] = (float)cpu[c][i];
    }
    if (b->count == 3 && reversible)
        rct_forward(cpu[0], cpu[1], cpu[2], n);
    if (b->count == 3 && !reversible)
        ict_forward(f[0], f[1], f[2], n);
    for (uint32_t c = 0; c < b->count && same; c++) {
        if (reversible) {
            dwt_forward_53(cpu[c], stride, b->rect, b->levels);
            same = memcmp(cpu[c], b->samples[c], n * sizeof(int32_t)) == 0;
            continue;
        }
        dwt_forward_97(f[c], stride, b->rect, b->levels);
        for (unsigned s = 0; s < 3 * b->levels + 1; s++) {
            unsigned level = dwt_subband_level(s, b->levels);
            dwt_band band = dwt_subband_band(s);
            uint32_t x, y, w, h;
            dwt_band_placement(b->rect, level, band, &x, &y, &w, &h);
            for (uint32_t row = 0; row < h; row++) {
                size_t at = (size_t)(y + row) * stride + x;
                quant_forward_with_fractions(f[c] + at, cpu[c] + at, fr + at, w, b->steps[s]);
            }
        }
        same = memcmp(cpu[c], b->samples[c], n * sizeof(int32_t)) == 0 &&
               memcmp(fr, b->fractions[c], n) == 0;
    }
done:
    for (uint32_t c = 0; c < b->count; c++) {
        free(cpu[c]);
        free(f[c]);
    }
    free(fr);
    return same;
}

/* The forward job of plane c: the packed samples in, the indices (and their
 * fractions) out. */
static gpu_forward_plane forward_plane(const gpu_bench *b, uint32_t c)
{
    const gj2k_component *first = &b->image->components[0];
    return (gpu_forward_plane){.rect = b->rect, .levels = b->levels,
                               .precision = first->precision, .is_signed = first->is_signed,
                               .input = b->packed[c], .input_bytes = b->packed_bytes,
                               .output = b->samples[c], .fractions = b->fractions[c],
                               .steps = b->steps};
}

static int time_paths(gpu_stage *gpu, gpu_bench *b, bool reversible, unsigned repeats)
{
    const gj2k_component *first = &b->image->components[0];
    double megapixels = (double)plane_area(b) * 1e-6;
    gj2k_error error = {0};
    gpu_forward_plane forward[3];
    gpu_inverse_plane inverse[3];
    for (uint32_t c = 0; c < b->count; c++) {
        forward[c] = forward_plane(b, c);
        inverse[c] = (gpu_inverse_plane){.rect = b->rect, .levels = b->levels,
                                         .precision = first->precision,
                                         .is_signed = first->is_signed, .samples = b->samples[c],
                                         .floats = b->floats[c]};
        /* Samples back at storage width, as the decoder takes them. */
        if (b->packed_bytes < 4) {
            inverse[c].output = b->packed_back[c];
            inverse[c].output_bytes = b->packed_bytes;
        }
    }
    double best_forward = 1e30, best_inverse = 1e30;
    double forward_ms[GPU_PHASES] = {0}, inverse_ms[GPU_PHASES] = {0}, phases[GPU_PHASES];
    bool same = true;
    for (unsigned r = 0; r < repeats; r++) {
        reset_samples(b);
        double start = now_seconds();
        if (gpu_forward(gpu, forward, b->count, reversible, b->count == 3, NULL, NULL, &error) != GJ2K_OK)
            goto failed;
        double middle = now_seconds();
        gpu_stage_take_times(gpu, phases);
        if (r == 0)
            same = forward_matches_cpu(b, reversible);
        /* The inverse of what came out (9/7: the indices as coefficients). */
        for (uint32_t c = 0; c < b->count && !reversible; c++)
            for (size_t i = 0; i < plane_area(b); i++)
                b->floats[c][i] = (float)b->samples[c][i] * b->steps[0];
        double again = now_seconds();
        if (gpu_inverse(gpu, inverse, b->count, reversible, b->count == 3, NULL, NULL, &error) != GJ2K_OK)
            goto failed;
        double end = now_seconds();
        if (middle - start < best_forward) {
            best_forward = middle - start;
            memcpy(forward_ms, phases, sizeof phases);
        }
        if (end - again < best_inverse) {
            best_inverse = end - again;
            gpu_stage_take_times(gpu, inverse_ms);
        }
        gpu_stage_take_times(gpu, phases);
    }
    printf("  GPU forward %s (with transfers)  %9.2f ms %9.1f MP/s  %s\n",
           reversible ? "5/3" : "9/7", best_forward * 1e3, megapixels / best_forward,
           same ? "same bits as the CPU" : "DIFFERS FROM THE CPU");
    printf("    device time: copies %.2f ms, sample passes %.3f ms, levels %.3f ms (copies "
           "overlap the kernels and each other)\n",
           forward_ms[GPU_PHASE_COPIES], forward_ms[GPU_PHASE_SAMPLE_PASSES],
           forward_ms[GPU_PHASE_LEVELS]);
    printf("  GPU inverse %s (with transfers)  %9.2f ms %9.1f MP/s\n", reversible ? "5/3" : "9/7",
           best_inverse * 1e3, megapixels / best_inverse);
    printf("    device time: copies %.2f ms, sample passes %.3f ms, levels %.3f ms\n",
           inverse_ms[GPU_PHASE_COPIES], inverse_ms[GPU_PHASE_SAMPLE_PASSES],
           inverse_ms[GPU_PHASE_LEVELS]);
    return same ? 0 : 1;
failed:
    report_error("bench: %s", error.message);
    return 1;
}

/* Y, the rows each warp of the level kernels gives (0: chosen by level):
 * the forward path's time without its copies for each, checked against
 * the CPU each time. */
static int tune_rows(gpu_stage *gpu, gpu_bench *b, unsigned repeats)
{
    static const int choices[] = {0, 16, 32, 64, 128};
    gj2k_error error = {0};
    double phases[GPU_PHASES];
    int code = 0;
    printf("  rows per warp (Y, 0: by level): forward level kernels, 5/3 | 9/7:");
    for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++) {
        gpu_stage_set_rows(gpu, choices[i]);
        double best[2] = {1e30, 1e30};
        for (int wavelet = 0; wavelet < 2; wavelet++) {
            bool reversible = wavelet == 0;
            gpu_forward_plane forward[3];
            for (uint32_t c = 0; c < b->count; c++)
                forward[c] = forward_plane(b, c);
            for (unsigned r = 0; r < repeats; r++) {
                reset_samples(b);
                gpu_stage_take_times(gpu, phases);
                if (gpu_forward(gpu, forward, b->count, reversible, b->count == 3, NULL, NULL,
                                &error) != GJ2K_OK) {
                    report_error("bench: %s", error.message);
                    return 1;
                }
                gpu_stage_take_times(gpu, phases);
                double ms = phases[GPU_PHASE_LEVELS];
                best[wavelet] = ms < best[wavelet] ? ms : best[wavelet];
            }
            if (!forward_matches_cpu(b, reversible))
                code = 1;
        }
        printf("  %d: %.2f | %.2f ms", choices[i], best[0], best[1]);
    }
    printf("%s\n", code ? "  DIFFERS FROM THE CPU" : "  (same bits as the CPU)");
    gpu_stage_set_rows(gpu, 0); /* back to the default */
    return code;
}

int bench_gpu_stage(const gj2k_image *image, unsigned levels, unsigned repeats)
{
    const gj2k_component *first = &image->components[0];
    gpu_bench b = {.image = image, .count = image->num_components >= 3 ? 3 : 1,
                   .rect = {first->x0, first->y0, first->x0 + first->width,
                            first->y0 + first->height},
                   .levels = levels};
    gj2k_error error = {0};
    double start = now_seconds();
    gpu_stage *gpu = NULL;
    if (gpu_stage_create(0, &gpu, &error) != GJ2K_OK) {
        printf("GPU stage: none (%s)\n", error.message);
        return 0;
    }
    printf("GPU stage (%u component%s, %u levels, best of %u; opening the device took %.0f ms):\n",
           b.count, b.count == 1 ? "" : "s", levels, repeats, (now_seconds() - start) * 1e3);
    for (unsigned s = 0; s < 3 * levels + 1; s++)
        b.steps[s] = 0.5f;
    int code = 0;
    size_t n = plane_area(&b);
    for (uint32_t c = 0; c < b.count; c++) {
        b.samples[c] = malloc((n ? n : 1) * sizeof(int32_t));
        b.packed_bytes = gpu_input_bytes(first->precision);
        b.packed[c] = malloc((n ? n : 1) * b.packed_bytes);
        b.packed_back[c] = malloc((n ? n : 1) * b.packed_bytes);
        for (size_t i = 0; b.packed[c] != NULL && i < n; i++) {
            int32_t v = image->components[c].samples[i];
            if (b.packed_bytes == 1)
                ((uint8_t *)b.packed[c])[i] = (uint8_t)v;
            else if (b.packed_bytes == 2)
                ((uint16_t *)b.packed[c])[i] = (uint16_t)v;
            else
                ((int32_t *)b.packed[c])[i] = v;
        }
        b.fractions[c] = malloc(n ? n : 1);
        b.floats[c] = malloc((n ? n : 1) * sizeof(float));
        if (!b.samples[c] || !b.fractions[c] || !b.floats[c] || !b.packed[c] || !b.packed_back[c])
            code = 1;
    }
    if (code != 0)
        report_error("bench: out of memory");
    else
        code = time_paths(gpu, &b, true, repeats) | time_paths(gpu, &b, false, repeats) |
               tune_rows(gpu, &b, repeats);
    /* The probe only after clean runs; its failure is reported, not counted. */
    gpu_pinned_probe pinned;
    size_t probe = n * b.count * sizeof(int32_t);
    if (code == 0) {
        if (gpu_stage_probe_pinned(gpu, probe, &pinned, &error) == GJ2K_OK)
            printf("  pinned host memory: %.0f MB allocated in %.1f ms; upload %.1f GB/s from "
                   "it, %.1f GB/s from ordinary memory; one thread copies into it at %.1f GB/s; "
                   "registering ordinary memory takes %.1f ms, then uploads %.1f GB/s\n",
                   (double)probe / 1e6, pinned.allocate_ms, pinned.pinned_gbps,
                   pinned.pageable_gbps, pinned.memcpy_gbps, pinned.register_ms,
                   pinned.registered_gbps);
        else
            report_error("bench: %s", error.message);
    }
    for (uint32_t c = 0; c < b.count; c++) {
        free(b.samples[c]);
        free(b.packed[c]);
        free(b.packed_back[c]);
        free(b.fractions[c]);
        free(b.floats[c]);
    }
    gpu_stage_destroy(gpu);
    return code;
}
