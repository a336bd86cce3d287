/* command_codec.c - `gj2k decode`: a JPEG 2000 codestream or JP2 file to an
 * image file, with opj_decompress's options (`gj2k encode` is command_encode.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"

#include "commands.h"
#include "device_warm_up.h"
#include "gpu_stage.h"
#include "interrupt.h"
#include "options.h"
#include "standard_streams.h"

static const option_spec decode_options[] = {
    {"-i", "FILE", "input: a JPEG 2000 codestream (.j2k .j2c .jpc) or JP2 file (.jp2 .jpx)"},
    {"-o", "FILE", "output image; its extension chooses the format (.pgx: one file a component)"},
    {"-r", "N", "discard the N highest resolution levels"},
    {"-l", "N", "decode only the first N quality layers"},
    {"-d", "X0,Y0,X1,Y1", "decode only this region of the reference grid"},
    {"-t", "N", "decode only tile N"},
    {"-c", "C0,C1,...", "keep only these components, in this order"},
    {"-p", "BITS", "write every component at this precision"},
    {"--force-rgb", NULL, "render grey and ICC images as sRGB too (sYCC always is)"},
    {"--upsample", NULL,
     "bring subsampled components to full size (done anyway for PNM, PNG, TIFF and BMP)"},
    {"--raw-components", NULL,
     "the codestream's components as coded: no palette, channel or colour rendering"},
    {"-split-pnm", NULL, "PNM output: one PGM file a component, OUT_0.pgm, OUT_1.pgm, ..."},
    {"--split-pnm", NULL, "the same"},
    {"--allow-partial", NULL,
     "decode an incomplete codestream to what it holds (else that is an error)"},
    {"-allow-partial", NULL, "the same (opj_decompress's spelling)"},
    {"--max-memory", "SIZE",
     "most memory the decode's buffers may hold (e.g. 3G; default: half the machine's)"},
    {"--strip-rows", "N",
     "decode N rows at a time (PNM output written as decoded); default: only an image too "
     "large for --max-memory"},
    {"-threads", "N", "threads for Tier-1 (default: every core)"},
    {"--device", "auto|gpu|cpu",
     "where decoding runs (auto, the default: a GPU from 2^25 samples)"},
    {"--devices", "LIST",
     "which GPUs: 0, 0,1 or all (also -G, -device_id; default: the first for one file, every "
     "one for a batch, its files shared out among them)"},
    {"-v", NULL, "describe what was decoded"},
    {"--help", NULL, "this text"},
};
#define DECODE_OPTION_COUNT (sizeof decode_options / sizeof decode_options[0])

/* Whether the output format holds only components of one size (the rest
 * write every component at its own size: PGX, raw, split PNM). */
static bool needs_one_size(gj2k_file_format format, bool split)
{
    return (format == GJ2K_FORMAT_PNM && !split) || format == GJ2K_FORMAT_PNG ||
           format == GJ2K_FORMAT_TIFF || format == GJ2K_FORMAT_BMP || format == GJ2K_FORMAT_TGA;
}

/* Parses "a,b,c,..." into at most `max` numbers; returns how many, 0 if malformed. */
static size_t parse_number_list(const char *text, uint32_t *values, size_t max)
{
    size_t count = 0;
    const char *p = text;
    while (count < max) {
        char *end;
        if (*p < '0' || *p > '9')
            return 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (v > 0xffffffffull)
            return 0;
        values[count++] = (uint32_t)v;
        if (*end == '\0')
            return count;
        if (*end != ',')
            return 0;
        p = end + 1;
    }
    return 0;
}

static int decode_parsed(parsed_options *parsed, batch_request **batch);

/* A decode from standard input or to standard output (-i -, -o -): the
 * whole codestream read, decoded in memory, the image written to the file
 * or, in `format`, to standard output. */
static int decode_streams(const char *input, const char *output, gj2k_file_format format,
                          const gj2k_decode_options *decode, const gj2k_write_options *write,
                          const held_warnings *held, const held_warnings *held_output)
{
    uint8_t *data = NULL, *bytes = NULL;
    size_t size = 0, count = 0;
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    gj2k_status status = read_path_all(input, &data, &size, &error);
    if (status == GJ2K_OK)
        status = gj2k_decode_memory(data, size, decode, &image, &error);
    free(data);
    if (status == GJ2K_OK && path_is_standard(output)) {
        status = gj2k_image_write_memory(image, format, write, &bytes, &count, &error);
        if (status == GJ2K_OK)
            status = write_standard_output(bytes, count, &error);
        free(bytes);
    } else if (status == GJ2K_OK) {
        status = gj2k_image_write_file(image, output, write, &error);
    }
    gj2k_image_destroy(image);
    if (status != GJ2K_OK) {
        report_error("%s: %s", path_is_standard(input) ? "standard input" : input,
                     error.message);
        return 1;
    }
    print_held_warnings(held);
    print_held_warnings(held_output);
    return 0;
}

int command_decode(int argc, char **argv)
{
    parsed_options options;
    option_spec *specs;
    int refused = batch_options_parse("decode", argc, argv, decode_options, DECODE_OPTION_COUNT,
                                      &options, &specs);
    if (refused != 0)
        return refused;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k decode -i INPUT.{j2k,j2c,jp2} -o OUTPUT [options]\n"
                           "       gj2k decode -i A -i B ... | -ImgDir DIR | --files-from LIST  "
                           "-o OUTDIR [-OutFor png] [options]",
                           "Decodes a JPEG 2000 codestream or JP2 file to an image file. The "
                           "options follow opj_decompress. With several inputs, a directory or "
                           "a list, every file is decoded with the same options into the output "
                           "directory, several at once; a failed file is reported and the run "
                           "goes on (exit status 1 at the end).", specs, options.spec_count);
        static const char *const examples[] = {
            "gj2k decode -i photo.jp2 -o photo.png",
            "gj2k decode -i big.j2k -o preview.ppm -r 2 -l 1      # a quarter size, one layer",
            "gj2k decode -i big.j2k -o crop.tif -d 0,0,1024,1024",
            "gj2k decode -y archive --recursive -a previews -OutFor png -r 2",
            NULL};
        options_print_examples(examples);
        options_free(&options);
        free(specs);
        return 0;
    }
    /* A batch: its options read, then those of the decode checked as for one
       file, with stand-ins for -i and -o. */
    batch_request *batch = NULL;
    if (batch_requested(&options)) {
        batch = decode_batch_begin(&options);
        if (batch == NULL) {
            options_free(&options);
            free(specs);
            return EXIT_USAGE;
        }
    } else if (batch_options_refused(&options, "decode")) {
        options_free(&options);
        free(specs);
        return EXIT_USAGE;
    } else {
        options_narrow_to_one_gpu(&options); /* before anything starts CUDA */
    }
    int status = decode_parsed(&options, &batch);
    if (batch != NULL) /* refused before it ran */
        decode_batch_cancel(batch);
    free(specs);
    return status;
}

/* The rest of `gj2k decode`, on the parsed options (freed here): one file,
 * or with *batch each of its files (the batch then run, freed and NULL). */
static int decode_parsed(parsed_options *parsed, batch_request **batch)
{
    parsed_options options = *parsed;
    const char *input = options_get(&options, "-i"), *output = options_get(&options, "-o");
    const char *reduce = options_get(&options, "-r"), *layers = options_get(&options, "-l");
    const char *region = options_get(&options, "-d"), *tile = options_get(&options, "-t");
    const char *components = options_get(&options, "-c"), *precision = options_get(&options, "-p");
    const char *threads = options_get(&options, "-threads");
    const char *device = options_get(&options, "--device");
    const char *devices = options_get(&options, "--devices");
    const char *max_memory = options_get(&options, "--max-memory");
    const char *strip_rows = options_get(&options, "--strip-rows");
    const char *format_text = options_get(&options, "-OutFor"); /* or --format, -O */
    held_warnings held;
    held_warnings_init(&held, input);
    bool split = options_has(&options, "-split-pnm") || options_has(&options, "--split-pnm");
    gj2k_decode_options decode = {.force_rgb = options_has(&options, "--force-rgb"),
                                  .raw_components = options_has(&options, "--raw-components"),
                                  .guess_sycc = true,
                                  .upsample = options_has(&options, "--upsample"),
                                  .allow_partial = options_has(&options, "--allow-partial") ||
                                                   options_has(&options, "-allow-partial"),
                                  .warning = hold_warning, .warning_user = &held};
    bool verbose = options_has(&options, "-v");
    bool quiet = options_has(&options, "--quiet");
    options_free(&options);
    if (input == NULL || output == NULL) {
        report_error("decode: needs -i INPUT and -o OUTPUT (see gj2k decode --help)");
        return EXIT_USAGE;
    }
    /* The output is checked before anything is decoded; -o - is standard
       output, in the format --format names. */
    bool to_standard = *batch == NULL && path_is_standard(output);
    if (to_standard && format_text == NULL) {
        report_error("decode: -o - (standard output) needs --format, e.g. --format png");
        return EXIT_USAGE;
    }
    if (to_standard && verbose) {
        report_error("decode: -v prints to standard output, which -o - takes for the image");
        return EXIT_USAGE;
    }
    gj2k_file_format format = to_standard ? standard_output_format(format_text)
                                          : gj2k_format_from_path(output);
    if (to_standard && (split || format == GJ2K_FORMAT_PGX)) {
        report_error("decode: -o - writes one file: not PGX or -split-pnm");
        return EXIT_USAGE;
    }
    if (format == GJ2K_FORMAT_UNKNOWN || !gj2k_format_can_write(format) ||
        format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2) {
        report_error("decode: -o %s: %s", output,
                     format == GJ2K_FORMAT_UNKNOWN
                         ? "unknown output format "
                           "(use .ppm .pgm .pam .png .tif .bmp .tga .pgx .raw .rawl)"
                     : format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2
                         ? "JPEG 2000 output is gj2k encode's (it takes a JPEG 2000 input)"
                         : "this build cannot write that format");
        return EXIT_USAGE;
    }
    if (split && format != GJ2K_FORMAT_PNM) {
        report_error("decode: -split-pnm needs a PNM output (.pgm .ppm .pnm), not %s", output);
        return EXIT_USAGE;
    }
    if (needs_one_size(format, split))
        decode.upsample = true;
    unsigned long value;
    uint32_t numbers[GJ2K_MAX_COMPONENTS];
    if (reduce && !options_parse_uint(reduce, 0, 32, &value)) {
        report_error("decode: -r %s: expected 0..32 resolution levels", reduce);
        return EXIT_USAGE;
    }
    decode.reduce = reduce ? (unsigned)value : 0;
    if (layers && !options_parse_uint(layers, 1, 65535, &value)) {
        report_error("decode: -l %s: expected 1..65535 layers", layers);
        return EXIT_USAGE;
    }
    decode.max_layers = layers ? (unsigned)value : 0;
    if (tile) {
        if (!options_parse_uint(tile, 0, 65534, &value)) {
            report_error("decode: -t %s: expected a tile index 0..65534", tile);
            return EXIT_USAGE;
        }
        decode.use_tile = true;
        decode.tile = (uint32_t)value;
    }
    /* opj_decompress's -p NS (scaled) is what gj2k does; NC (clipped) is refused */
    char bits[16] = "";
    if (precision) {
        size_t n = strlen(precision);
        snprintf(bits, sizeof bits, "%s", precision);
        if (n > 1 && n < sizeof bits && (bits[n - 1] == 'S' || bits[n - 1] == 's'))
            bits[n - 1] = '\0';
        else if (n > 1 && n < sizeof bits && (bits[n - 1] == 'C' || bits[n - 1] == 'c')) {
            report_error("decode: -p %s: gj2k scales samples to the precision (opj's %.*sS); "
                         "clipping them is not offered", precision, (int)(n - 1), precision);
            return EXIT_USAGE;
        }
    }
    if (precision && !options_parse_uint(bits, 1, GJ2K_MAX_PRECISION, &value)) {
        report_error("decode: -p %s: expected 1..%d bits (S after them: scaled, as always)",
                     precision, GJ2K_MAX_PRECISION);
        return EXIT_USAGE;
    }
    decode.precision = precision ? (unsigned)value : 0;
    if (threads && !options_parse_threads(threads, &value)) {
        report_error("decode: -threads %s: expected 1..1024 or ALL_CPUS", threads);
        return EXIT_USAGE;
    }
    decode.threads = threads ? (unsigned)value : 0;
    if (max_memory && !options_parse_size(max_memory, &decode.max_memory)) {
        report_error("decode: --max-memory %s: expected a size such as 3G or 512M", max_memory);
        return EXIT_USAGE;
    }
    if (strip_rows && !options_parse_uint(strip_rows, 1, 1u << 30, &value)) {
        report_error("decode: --strip-rows %s: expected 1..%u rows", strip_rows, 1u << 30);
        return EXIT_USAGE;
    }
    decode.strip_rows = strip_rows ? (uint32_t)value : 0;
    int device_index = GJ2K_DEVICE_AUTO;
    if (device && !options_parse_device(device, &device_index)) {
        report_error("decode: --device %s: expected auto, gpu or cpu", device);
        return EXIT_USAGE;
    }
    decode.device = (gj2k_device)device_index;
    if (devices != NULL && *batch == NULL) { /* a batch shares them out (decode_batch_run) */
        unsigned gpus[OPTIONS_MAX_GPUS];
        size_t count;
        int status = options_read_devices("decode", devices, device_index, gpus, &count);
        if (status != 0)
            return status;
        decode.gpu = count > 0 ? gpus[0] : 0;
    }
    if (region) {
        if (parse_number_list(region, numbers, 4) != 4 || numbers[2] <= numbers[0] ||
            numbers[3] <= numbers[1]) {
            report_error("decode: -d %s: expected X0,Y0,X1,Y1 with X0 < X1 and Y0 < Y1", region);
            return EXIT_USAGE;
        }
        decode.use_region = true;
        decode.region_x0 = numbers[0];
        decode.region_y0 = numbers[1];
        decode.region_x1 = numbers[2];
        decode.region_y1 = numbers[3];
    }
    if (components) {
        size_t count = parse_number_list(components, numbers, GJ2K_MAX_COMPONENTS);
        if (count == 0) {
            report_error("decode: -c %s: expected component indices separated by commas",
                         components);
            return EXIT_USAGE;
        }
        decode.components = numbers;
        decode.num_components = (uint32_t)count;
    }
    gj2k_error error = {0};
    gj2k_decode_report report = {0};
    decode.report = &report;
    held_warnings held_output;
    held_warnings_init(&held_output, output);
    gj2k_write_options write_options = {.warning = hold_warning, .warning_user = &held_output,
                                        .temporary = interrupt_temporary,
                                        .split_components = split};
    if (*batch != NULL) {
        decode.report = NULL;
        int status = decode_batch_run(*batch, &decode, &write_options);
        *batch = NULL;
        return status;
    }
    if (to_standard || (*batch == NULL && path_is_standard(input)))
        return decode_streams(input, output, format, &decode, &write_options, &held,
                              &held_output);
    /* the GPU opens while the input is read and parsed */
    device_warm_up warm_up;
    device_warm_up_start(&warm_up, decode.device, device_warm_up_codestream_samples(input),
                         GPU_STAGE_AUTO_MIN_DECODE_SAMPLES);
    progress_line line;
    progress_line_start(&line, "decode", quiet);
    decode.progress = progress_line_update;
    decode.progress_user = &line;
    gj2k_status status = gj2k_decode_to_file(input, output, &decode, &write_options, &error);
    progress_line_end(&line);
    double warm_up_ms = -1.0;
    if (!device_warm_up_finish(&warm_up, &warm_up_ms))
        warm_up_ms = -1.0;
    if (status != GJ2K_OK) {
        report_error("%s: %s%s", input, error.message,
                     report.incomplete    ? " (-allow-partial decodes what it holds)"
                     : report.over_memory ? " (--max-memory SIZE)"
                                          : "");
        return 1;
    }
    print_held_warnings(&held);
    print_held_warnings(&held_output);
    if (verbose)
        printf("%s: %ux%u, %u components, %u tile%s (%u with transforms on the GPU, %llu "
               "code-blocks by GPU Tier-1), %u strips%s, written to %s\n", input, report.width,
               report.height, report.num_components, report.num_tiles,
               report.num_tiles == 1 ? "" : "s", report.gpu_tiles,
               (unsigned long long)report.gpu_blocks, report.strips,
               report.streamed ? " written as decoded" : "", output);
    if (verbose)
        printf("%s: read and parse %.2f, open GPU %.2f, tiles %.2f (Tier-2 %.2f, Tier-1 %.2f, "
               "transforms and samples out %.2f, of which GPU copies %.2f), write %.2f ms\n",
               input, report.read_ms, report.open_ms, report.tiles_ms, report.tier2_ms,
               report.tier1_ms, report.transform_ms, report.copies_ms, report.write_ms);
    if (verbose && warm_up_ms >= 0.0)
        printf("%s: opening the GPU took %.1f ms, on a thread of its own while the input was "
               "read\n", input, warm_up_ms);
    return 0;
}
