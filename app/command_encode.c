/* command_encode.c - `gj2k encode`: an image file to a JPEG 2000 codestream
 * (.j2k .j2c .jpc) or JP2 file, with opj_compress's options mapped onto
 * gj2k_encode_options. Every option is checked before the input is read, so
 * a usage error (exit 2) never touches the output; the library writes whole
 * files only (a temporary name, then a rename). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "commands.h"
#include "device_warm_up.h"
#include "encode_request.h"
#include "gpu_stage.h"
#include "gj2k.h"
#include "image_compare.h"
#include "image_formats.h" /* file_read_all, file_write_whole */
#include "interrupt.h"
#include "options.h"
#include "parallel_pool.h"  /* parallel_thread_count */
#include "standard_streams.h"

gj2k_status encode_read_input(const encode_request *request, const gj2k_raw_geometry *geometry,
                              gj2k_image **image, gj2k_error *error)
{
    uint8_t *data;
    size_t size;
    gj2k_status status = read_path_all(request->input, &data, &size, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_file_format format = gj2k_format_from_path(request->input);
    if (format == GJ2K_FORMAT_UNKNOWN)
        format = gj2k_format_from_signature(data, size);
    if (format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2) {
        gj2k_decode_options decode = {.threads = request->options.threads,
                                      .warning = report_warning,
                                      .warning_user = (void *)request->input};
        status = gj2k_decode_memory(data, size, &decode, image, error);
    } else if (format == GJ2K_FORMAT_UNKNOWN) {
        status = GJ2K_ERROR_UNSUPPORTED;
        snprintf(error->message, sizeof error->message, "unknown image format");
    } else {
        gj2k_read_options read = {.raw = geometry, .warning = report_warning,
                                  .warning_user = (void *)request->input};
        status = gj2k_image_read_memory(data, size, format, &read, image, error);
    }
    free(data);
    return status;
}

bool encode_move_origin(gj2k_image *image, uint32_t x, uint32_t y)
{
    uint64_t x1 = (uint64_t)x + (image->x1 - image->x0);
    uint64_t y1 = (uint64_t)y + (image->y1 - image->y0);
    if (x1 > UINT32_MAX || y1 > UINT32_MAX) {
        report_error("encode: -d %u,%u: the image would end beyond the reference grid (2^32)", x,
                     y);
        return false;
    }
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *component = &image->components[c];
        uint64_t cx0 = ((uint64_t)x + component->dx - 1) / component->dx;
        uint64_t cy0 = ((uint64_t)y + component->dy - 1) / component->dy;
        uint64_t width = (x1 + component->dx - 1) / component->dx - cx0;
        uint64_t height = (y1 + component->dy - 1) / component->dy - cy0;
        if (width != component->width || height != component->height) {
            report_error("encode: -d %u,%u: component %u (subsampled %ux%u) would become "
                         "%llux%llu instead of %ux%u; choose an origin that keeps its size",
                         x, y, c, component->dx, component->dy, (unsigned long long)width,
                         (unsigned long long)height, component->width, component->height);
            return false;
        }
    }
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *component = &image->components[c];
        component->x0 = (uint32_t)(((uint64_t)x + component->dx - 1) / component->dx);
        component->y0 = (uint32_t)(((uint64_t)y + component->dy - 1) / component->dy);
    }
    image->x0 = x;
    image->y0 = y;
    image->x1 = (uint32_t)x1;
    image->y1 = (uint32_t)y1;
    return true;
}

static void print_report(const encode_request *request, const gj2k_image *image,
                         const gj2k_encode_report *report, double seconds,
                         double warm_up_ms, const image_difference *difference)
{
    const gj2k_encode_options *o = &request->options;
    double pixels = (double)(image->x1 - image->x0) * (image->y1 - image->y0);
    double raw = image_raw_bytes(image);
    printf("%s: %zu bytes", request->output, report->bytes);
    if (o->format == GJ2K_FORMAT_JP2)
        printf(" (JP2, codestream %zu bytes)", report->codestream_bytes);
    printf(", %ux%u, %u component%s\n", image->x1 - image->x0, image->y1 - image->y0,
           image->num_components, image->num_components == 1 ? "" : "s");
    printf("  ratio %.2f:1 (%.0f raw bytes), %.4f bits per pixel\n",
           report->bytes ? raw / (double)report->bytes : 0.0, raw,
           pixels > 0 ? 8.0 * (double)report->bytes / pixels : 0.0);
    printf("  %u layer%s, bytes up to each:", report->num_layers,
           report->num_layers == 1 ? "" : "s");
    for (unsigned l = 0; l < report->num_layers && l < GJ2K_MAX_LAYERS; l++)
        printf(" %zu", report->layer_bytes[l]);
    printf("\n  %s%s, %u tile%s (%u with transforms on the GPU), %zu code-blocks (%llu by GPU "
           "Tier-1), %u guard bits\n",
           o->irreversible ? "9/7 irreversible" : "5/3 reversible",
           report->mct ? (o->irreversible ? " with ICT" : " with RCT") : "", report->num_tiles,
           report->num_tiles == 1 ? "" : "s", report->gpu_tiles, report->num_codeblocks,
           (unsigned long long)report->gpu_blocks, report->guard_bits);
    printf("  encode time %.2f ms, %.2f MP/s, %u thread%s\n", seconds * 1e3,
           seconds > 0 ? pixels * 1e-6 / seconds : 0.0, parallel_thread_count(o->threads),
           parallel_thread_count(o->threads) == 1 ? "" : "s");
    printf("  stages: open GPU %.2f, transforms %.2f (GPU copies %.2f), Tier-1 %.2f, rate control "
           "%.2f, Tier-2 %.2f ms\n", report->open_ms, report->transform_ms, report->copies_ms,
           report->tier1_ms, report->rate_ms, report->tier2_ms);
    if (warm_up_ms >= 0.0)
        printf("  opening the GPU took %.1f ms, on a thread of its own while the input was read\n",
               warm_up_ms);
    if (difference->identical)
        printf("  PSNR: lossless (bit-exact)\n");
    else
        printf("  PSNR: %.2f dB over all components, max abs error %llu\n", difference->psnr,
               (unsigned long long)difference->max_abs_error);
}

/* Decodes the encoded bytes and compares them with the image; false (after
 * one line on stderr) when they do not decode to an image of its shape. */
static bool measure(const encode_request *request, const gj2k_image *image, const uint8_t *data,
                    size_t size, image_difference *difference)
{
    char why[256];
    gj2k_decode_options decode = encode_check_options(&request->options);
    switch (image_compare_encoded(image, data, size, &decode, difference, why, sizeof why)) {
    case ENCODED_COMPARED:
        return true;
    case ENCODED_UNDECODABLE:
        report_error("%s: the encoded output does not decode: %s", request->output, why);
        return false;
    case ENCODED_OTHER_SHAPE:
        report_error("%s: the encoded output decodes to another shape: %s", request->output, why);
        return false;
    }
    return false;
}

int command_encode(int argc, char **argv)
{
    parsed_options parsed;
    option_spec *specs;
    int refused = batch_options_parse("encode", argc, argv, encode_options, encode_option_count,
                                      &parsed, &specs);
    if (refused != 0)
        return refused;
    if (batch_requested(&parsed) && !options_has(&parsed, "--help")) {
        int status = encode_batch(&parsed);
        options_free(&parsed);
        free(specs);
        return status;
    }
    if (!options_has(&parsed, "--help") && batch_options_refused(&parsed, "encode")) {
        options_free(&parsed);
        free(specs);
        return EXIT_USAGE;
    }
    if (options_has(&parsed, "--help")) {
        options_print_help(
            "gj2k encode -i INPUT -o OUTPUT.{j2k,j2c,jpc,jp2,jhc,jph} [options]\n"
            "       gj2k encode -i A -i B ... | -ImgDir DIR | --files-from LIST  -o OUTDIR "
            "[-OutFor jp2] [options]",
            "Compresses an image file to a JPEG 2000 codestream or JP2 file. The options\n"
            "follow opj_compress. Without -r/-q/--bpp/--bytes the result is lossless (5/3,\n"
            "one layer); each value of those gives one quality layer. A compression ratio\n"
            "is raw bytes / output bytes, raw bytes being the sum over components of\n"
            "width * height * precision / 8; bits per pixel count the whole output over\n"
            "the image area; PSNR is over all components together. --ht (or -M 64, or an\n"
            "output named .jhc or .jph) codes every code-block with HTJ2K's block coder\n"
            "(ITU-T T.814) in one quality layer; a .jph file is JP2's boxes branded 'jph '.\n"
            "With several inputs, a directory or a list, every file is encoded with the same\n"
            "options into the output directory, several at once; a failed file is reported\n"
            "and the run goes on (exit status 1 at the end).",
            specs, parsed.spec_count);
        static const char *const examples[] = {
            "gj2k encode -i photo.png -o photo.jp2            # lossless",
            "gj2k encode -i photo.ppm -o photo.j2k -I -r 40,20,10 -v   # lossy, 3 layers",
            "gj2k encode -i scan.tif -o scan.jph              # HTJ2K",
            "gj2k encode -i frame.tif -o frame.j2k -IMF 2K_R,framerate=24   # IMF",
            "gj2k encode -ImgDir scans --recursive -o archive -OutFor jp2 --verify",
            NULL};
        options_print_examples(examples);
        options_free(&parsed);
        free(specs);
        return 0;
    }
    encode_request request = {0};
    options_narrow_to_one_gpu(&parsed); /* before anything starts CUDA */
    bool ok = encode_request_read(&parsed, &request);
    bool quiet = options_has(&parsed, "--quiet");
    options_free(&parsed);
    free(specs);
    if (!ok)
        return EXIT_USAGE;
    gj2k_raw_geometry geometry;
    if (request.raw_geometry != NULL && !parse_raw_geometry(request.raw_geometry, &geometry))
        return EXIT_USAGE;
    if (request.verbose && path_is_standard(request.output)) {
        report_error("encode: -v prints to standard output, which -o - takes for the file");
        return EXIT_USAGE;
    }

    /* the GPU opens while the input is read */
    device_warm_up warm_up;
    device_warm_up_start(&warm_up, request.options.device,
                         device_warm_up_image_samples(request.input),
                         GPU_STAGE_AUTO_MIN_ENCODE_SAMPLES);
    gj2k_error error = {0};
    gj2k_image *image = NULL;
    if (encode_read_input(&request, request.raw_geometry ? &geometry : NULL, &image, &error) !=
        GJ2K_OK) {
        if (strstr(error.message, request.input) != NULL)
            report_error("%s", error.message);
        else
            report_error("%s: %s", request.input, error.message);
        device_warm_up_finish(&warm_up, NULL);
        return 1;
    }
    if (request.shift_origin && !encode_move_origin(image, request.origin_x, request.origin_y)) {
        gj2k_image_destroy(image);
        device_warm_up_finish(&warm_up, NULL);
        return EXIT_USAGE;
    }

    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_encode_report report = {0};
    double start = now_seconds();
    progress_line line;
    progress_line_start(&line, "encode", quiet);
    request.options.progress = progress_line_update;
    request.options.progress_user = &line;
    gj2k_status status = gj2k_encode_memory(image, &request.options, &data, &size, &report, &error);
    progress_line_end(&line);
    double seconds = now_seconds() - start;
    double warm_up_ms = -1.0;
    if (!device_warm_up_finish(&warm_up, &warm_up_ms))
        warm_up_ms = -1.0;
    /* With -v the output is decoded and measured before it is written: an
     * output that does not decode back is a failure and is not written. */
    image_difference difference = {0};
    bool done = status == GJ2K_OK;
    if (!done)
        report_error("%s: %s", request.output, error.message);
    if (done && request.verbose)
        done = measure(&request, image, data, size, &difference);
    gj2k_write_options write_options = {.temporary = interrupt_temporary};
    if (done && path_is_standard(request.output) &&
        write_standard_output(data, size, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        done = false;
    } else if (done && !path_is_standard(request.output) &&
               file_write_whole(request.output, data, size, &write_options, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        done = false;
    }
    if (done && request.verbose)
        print_report(&request, image, &report, seconds, warm_up_ms, &difference);
    free(data);
    gj2k_image_destroy(image);
    return done ? 0 : 1;
}
