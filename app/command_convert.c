/* command_convert.c - `gj2k convert -i A -o B`: between any two image file
 * formats this build reads and writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gj2k.h"
#include "interrupt.h"
#include "options.h"

static const option_spec convert_options[] = {
    {"-i", "FILE", "input image (.png .tif .pgm .ppm .pnm .pam .pbm .pgx .bmp .raw .rawl)"},
    {"-o", "FILE", "output image; its extension chooses the format"},
    {"-F", "GEOMETRY", "raw input geometry, as opj_compress: W,H,NCOMP,BITS,{s,u}[@DXxDY:...]"},
    {"-v", NULL, "describe what was converted"},
    {"--help", NULL, "this text"},
};
#define CONVERT_OPTION_COUNT (sizeof convert_options / sizeof convert_options[0])

static void describe(const char *path, const gj2k_image *image)
{
    printf("%s: %ux%u, %u component%s", path, image->x1 - image->x0, image->y1 - image->y0,
           image->num_components, image->num_components == 1 ? "" : "s");
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        printf("%s%u-bit%s", c ? ", " : " (", comp->precision, comp->is_signed ? " signed" : "");
    }
    printf(")\n");
}

int command_convert(int argc, char **argv)
{
    parsed_options options;
    if (!options_parse("convert", argc, argv, convert_options, CONVERT_OPTION_COUNT, 0, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k convert -i INPUT -o OUTPUT [-F GEOMETRY] [-v]",
                           "Converts an image between file formats; the samples are kept "
                           "exactly where the output format can hold them. A JPEG 2000 input "
                           "is decoded.", convert_options, CONVERT_OPTION_COUNT);
        static const char *const examples[] = {
            "gj2k convert -i scan.tif -o scan.png",
            "gj2k convert -i frame.raw -o frame.pgm -F 1920,1080,1,12,u", NULL};
        options_print_examples(examples);
        options_free(&options);
        return 0;
    }
    const char *input = options_get(&options, "-i");
    const char *output = options_get(&options, "-o");
    const char *raw = options_get(&options, "-F");
    bool verbose = options_has(&options, "-v");
    options_free(&options);
    if (input == NULL || output == NULL) {
        report_error("convert: needs -i INPUT and -o OUTPUT (see gj2k convert --help)");
        return EXIT_USAGE;
    }

    gj2k_file_format out_format = gj2k_format_from_path(output);
    if (out_format == GJ2K_FORMAT_J2K || out_format == GJ2K_FORMAT_JP2) {
        report_error("convert: -o %s: JPEG 2000 output is gj2k encode's (gj2k encode -i %s -o %s)",
                     output, input, output);
        return EXIT_USAGE;
    }
    gj2k_raw_geometry geometry;
    gj2k_read_options read_options = {.warning = report_warning, .warning_user = (void *)input};
    gj2k_file_format in_format = gj2k_format_from_path(input);
    if (in_format == GJ2K_FORMAT_RAW || in_format == GJ2K_FORMAT_RAWL) {
        if (raw == NULL) {
            report_error("convert: raw input %s needs its geometry: -F W,H,NCOMP,BITS,{s,u}", input);
            return EXIT_USAGE;
        }
        if (!parse_raw_geometry(raw, &geometry))
            return EXIT_USAGE;
        read_options.raw = &geometry;
    }
    gj2k_error error = {0};
    gj2k_image *image = NULL;
    /* a JPEG 2000 input (by its first bytes) is decoded, as gj2k decode would */
    gj2k_file_format signature = gj2k_format_of_file(input);
    gj2k_decode_options decode = {.upsample = true, .guess_sycc = true, .warning = report_warning,
                                  .warning_user = (void *)input};
    gj2k_status read = signature == GJ2K_FORMAT_J2K || signature == GJ2K_FORMAT_JP2
                           ? gj2k_decode_file(input, &decode, &image, &error)
                           : gj2k_image_read_file(input, &read_options, &image, &error);
    if (read != GJ2K_OK) {
        if (strstr(error.message, input) != NULL)
            report_error("%s", error.message);
        else
            report_error("%s: %s", input, error.message);
        return 1;
    }
    gj2k_write_options write_options = {.warning = report_warning, .warning_user = (void *)output,
                                        .temporary = interrupt_temporary};
    gj2k_status status = gj2k_image_write_file(image, output, &write_options, &error);
    if (status == GJ2K_OK && verbose) {
        describe(input, image);
        printf("written to %s (%s)\n", output, gj2k_format_name(gj2k_format_from_path(output)));
    }
    gj2k_image_destroy(image);
    if (status != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    return 0;
}
