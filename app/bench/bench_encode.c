/* bench_encode.c - see bench_encode.h. */
#include "bench_encode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "image_compare.h"
#include "options.h"
#include "parallel_pool.h"

static double megapixels(const gj2k_image *image)
{
    return (double)(image->x1 - image->x0) * (image->y1 - image->y0) * 1e-6;
}

/* A codestream kept to compare with. */
typedef struct encoded_output {
    uint8_t *data;
    size_t size;
} encoded_output;

/* Encodes `repeats` times, keeping the fastest time and the last output;
 * then decodes that output and compares it with the image. With `same_as`
 * (an earlier output, on another device) says whether the bytes are the
 * same; with `keep` hands the output over. */
static bool time_encode(const char *name, const gj2k_image *image,
                        const gj2k_encode_options *options, unsigned repeats, bool *exact,
                        const encoded_output *same_as, encoded_output *keep)
{
    double best = INFINITY;
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    gj2k_encode_report report = GJ2K_ENCODE_REPORT_INIT, best_report = {0};
    for (unsigned r = 0; r < repeats; r++) {
        free(data);
        data = NULL;
        double start = now_seconds();
        gj2k_status status = gj2k_encode_memory(image, options, &data, &size, &report, &error);
        double elapsed = now_seconds() - start;
        if (status != GJ2K_OK) {
            report_error("bench: encode %s: %s", name, error.message);
            return false;
        }
        if (elapsed < best)
            best_report = report;
        best = elapsed < best ? elapsed : best;
    }
    image_difference difference;
    char why[256];
    /* checked by a decode with the defaults (its own device choice), not on
     * the encode's device and context as encode_check_options would: one
     * reference for the CPU's and the GPU's output */
    gj2k_decode_options decode = GJ2K_DECODE_OPTIONS_INIT;
    decode.threads = options->threads;
    bool compared = image_compare_encoded(image, data, size, &decode, &difference, why,
                                          sizeof why) == ENCODED_COMPARED;
    bool same = same_as != NULL && same_as->size == size &&
                memcmp(same_as->data, data, size) == 0;
    if (keep != NULL && compared) {
        keep->data = data;
        keep->size = size;
    } else {
        free(data);
    }
    if (!compared) {
        report_error("bench: encode %s: the output does not decode back: %s", name, why);
        return false;
    }
    char quality[64];
    if (difference.identical)
        snprintf(quality, sizeof quality, "exact");
    else
        snprintf(quality, sizeof quality, "PSNR %.2f dB", difference.psnr);
    *exact = difference.identical;
    printf("  %-34s %9.2f ms %9.1f MP/s %10zu bytes, %s%s\n", name, best * 1e3,
           megapixels(image) / best, size, quality,
           same_as == NULL ? "" : same ? ", same bytes as the CPU" : ", BYTES DIFFER FROM THE CPU");
    printf("    stages: open GPU %.2f, transforms %.2f (GPU copies %.2f), Tier-1 %.2f (%llu blocks "
           "on the GPU), rate control %.2f, Tier-2 %.2f ms\n", best_report.open_ms,
           best_report.transform_ms, best_report.copies_ms, best_report.tier1_ms,
           (unsigned long long)best_report.gpu_blocks, best_report.rate_ms, best_report.tier2_ms);
    return same_as == NULL || same;
}

/* Read + encode + write, as `gj2k encode -i path -o dir/out.j2k` does. */
static bool time_whole_run(const char *path, const char *directory,
                           const gj2k_encode_options *options, unsigned repeats, double mp)
{
    char output[4096 + 16];
    snprintf(output, sizeof output, "%s/out.j2k", directory);
    double best = INFINITY;
    gj2k_error error = {0};
    for (unsigned r = 0; r < repeats; r++) {
        double start = now_seconds();
        gj2k_image *image = NULL;
        gj2k_status status = gj2k_image_read_file(path, NULL, &image, &error);
        if (status == GJ2K_OK)
            status = gj2k_encode_file(image, output, options, NULL, &error);
        double elapsed = now_seconds() - start;
        gj2k_image_destroy(image);
        if (status != GJ2K_OK) {
            report_error("bench: whole run: %s", error.message);
            remove(output);
            return false;
        }
        best = elapsed < best ? elapsed : best;
    }
    remove(output);
    printf("  %-34s %9.2f ms %9.1f MP/s\n", "whole run (read + encode + write)", best * 1e3,
           mp / best);
    return true;
}

int bench_encode(const gj2k_image *image, const char *path, unsigned resolutions,
                 unsigned repeats, unsigned threads)
{
    gj2k_encode_options lossless = {.num_resolutions = resolutions, .threads = threads};
    static const double ratio_20[] = {20};
    gj2k_encode_options lossy = lossless;
    lossy.irreversible = true;
    lossy.target = GJ2K_TARGET_RATIO;
    lossy.num_layers = 1;
    lossy.targets = ratio_20;
    unsigned thread_count = parallel_thread_count(threads);
    printf("encode (image in memory to codestream in memory), %u thread%s, best of %u:\n",
           thread_count, thread_count == 1 ? "" : "s", repeats);
    bool exact = false, lossy_exact = false;
    encoded_output cpu[2] = {{0}};
    lossless.device = lossy.device = GJ2K_DEVICE_CPU;
    if (!time_encode("lossless (5/3)", image, &lossless, repeats, &exact, NULL, &cpu[0]) ||
        !time_encode("lossy (-I -r 20)", image, &lossy, repeats, &lossy_exact, NULL, &cpu[1])) {
        free(cpu[0].data), free(cpu[1].data);
        return 1;
    }
    /* The same on the GPU, where there is one (transforms and Tier-1); a
     * GPU that fails, or differs from the CPU, is a failure. */
    gj2k_encode_options on_gpu[2] = {lossless, lossy};
    on_gpu[0].device = on_gpu[1].device = GJ2K_DEVICE_GPU;
    gj2k_device_info device = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&device);
    bool gpu_ok = true, gpu_exact = false;
    if (device.device_count > 0)
        gpu_ok = time_encode("lossless (5/3), GPU", image, &on_gpu[0], repeats, &gpu_exact,
                             &cpu[0], NULL) &&
                 time_encode("lossy (-I -r 20), GPU", image, &on_gpu[1], repeats, &gpu_exact,
                             &cpu[1], NULL);
    else
        printf("  encode on the GPU: %s\n", device.detail);
    free(cpu[0].data), free(cpu[1].data);
    lossless.device = lossy.device = GJ2K_DEVICE_AUTO;

    /* A directory of our own for the whole run's files. */
    const char *tmp = getenv("TMPDIR");
    char directory[4096], input[4096 + 32];
    snprintf(directory, sizeof directory, "%s/gj2k-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(directory) == NULL) {
        report_error("bench: cannot make a temporary directory under %s", tmp && *tmp ? tmp : "/tmp");
        return 1;
    }
    bool ok = true;
    input[0] = '\0';
    if (path == NULL) { /* a synthetic image: write it as a file to read back */
        gj2k_error error = {0};
        snprintf(input, sizeof input, "%s/input.%s", directory,
                 image->num_components == 1 ? "pgm" : image->num_components == 3 ? "ppm" : "pam");
        ok = gj2k_image_write_file(image, input, NULL, &error) == GJ2K_OK;
        if (!ok)
            report_error("bench: %s", error.message);
        path = input;
    }
    ok = ok && time_whole_run(path, directory, &lossless, repeats, megapixels(image));
    if (input[0] != '\0')
        remove(input);
    rmdir(directory);
    if (ok && !exact)
        report_error("bench: the lossless encode did not decode back exactly");
    if (!gpu_ok)
        report_error("bench: the GPU's encode failed or differs from the CPU's");
    return ok && exact && gpu_ok ? 0 : 1;
}
