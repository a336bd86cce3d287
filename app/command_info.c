/* command_info.c - `gj2k info FILE [--json]`: what a file holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gj2k.h"
#include "options.h"

static const option_spec info_options[] = {
    {"--json", NULL, "print a JSON object instead of text"},
    {"-F", "GEOMETRY", "geometry of raw input, as for convert"},
    {"--help", NULL, "this text"},
};
#define INFO_OPTION_COUNT (sizeof info_options / sizeof info_options[0])

static const char *role_name(gj2k_component_role role)
{
    switch (role) {
    case GJ2K_ROLE_OPACITY: return "opacity";
    case GJ2K_ROLE_PREMULTIPLIED_OPACITY: return "premultiplied opacity";
    case GJ2K_ROLE_COLOR: break;
    }
    return "colour";
}

static const char *color_space_name(gj2k_color_space space)
{
    switch (space) {
    case GJ2K_COLOR_GRAY: return "greyscale";
    case GJ2K_COLOR_SRGB: return "sRGB";
    case GJ2K_COLOR_SYCC: return "sYCC";
    case GJ2K_COLOR_ESYCC: return "e-sYCC";
    case GJ2K_COLOR_UNKNOWN: break;
    }
    return "unspecified";
}

static void print_text(const char *path, gj2k_file_format format, const gj2k_image *image)
{
    printf("%s: %s image\n", path, gj2k_format_name(format));
    printf("  size        %u x %u (canvas origin %u,%u)\n", image->x1 - image->x0,
           image->y1 - image->y0, image->x0, image->y0);
    printf("  colour      %s\n", color_space_name(image->color_space));
    printf("  components  %u\n", image->num_components);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        printf("    %u: %ux%u, %u-bit %s, subsampling %ux%u, %s\n", c, comp->width, comp->height,
               comp->precision, comp->is_signed ? "signed" : "unsigned", comp->dx, comp->dy,
               role_name(comp->role));
    }
    if (image->icc_profile_size)
        printf("  ICC profile %zu bytes\n", image->icc_profile_size);
    if (image->xmp_size || image->exif_size || image->iptc_size)
        printf("  metadata    XMP %zu bytes, EXIF %zu bytes, IPTC %zu bytes\n", image->xmp_size,
               image->exif_size, image->iptc_size);
    if (image->resolution_x > 0)
        printf("  resolution  %.2f x %.2f pixels per metre (%.1f x %.1f dpi)\n",
               image->resolution_x, image->resolution_y, image->resolution_x * 0.0254,
               image->resolution_y * 0.0254);
}

static void print_json(const char *path, gj2k_file_format format, const gj2k_image *image)
{
    printf("{\"file\": ");
    print_json_string(path, strlen(path), false);
    printf(", \"format\": \"%s\", \"width\": %u, \"height\": %u, \"x0\": %u, \"y0\": %u, "
           "\"colour\": \"%s\", \"icc_profile_bytes\": %zu, \"resolution_ppm\": [%.4f, %.4f], "
           "\"metadata_bytes\": {\"xmp\": %zu, \"exif\": %zu, \"iptc\": %zu}, \"components\": [",
           gj2k_format_name(format), image->x1 - image->x0, image->y1 - image->y0, image->x0,
           image->y0, color_space_name(image->color_space), image->icc_profile_size,
           image->resolution_x, image->resolution_y, image->xmp_size, image->exif_size,
           image->iptc_size);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        printf("%s{\"width\": %u, \"height\": %u, \"precision\": %u, \"signed\": %s, "
               "\"dx\": %u, \"dy\": %u, \"role\": \"%s\"}",
               c ? ", " : "", comp->width, comp->height, comp->precision,
               comp->is_signed ? "true" : "false", comp->dx, comp->dy, role_name(comp->role));
    }
    printf("]}\n");
}

int command_info(int argc, char **argv)
{
    parsed_options options;
    if (!options_parse("info", argc, argv, info_options, INFO_OPTION_COUNT, 1, &options))
        return EXIT_USAGE;
    if (options_has(&options, "--help")) {
        options_print_help("gj2k info FILE [--json]",
                           "Describes an image file (size, components, precision, colour, ICC "
                           "profile, resolution) or a JPEG 2000 file (JP2 boxes, markers, "
                           "coding parameters, tiles). A file is known by its first bytes.",
                           info_options, INFO_OPTION_COUNT);
        static const char *const examples[] = {"gj2k info photo.jp2",
                                               "gj2k info scan.tif --json", NULL};
        options_print_examples(examples);
        options_free(&options);
        return 0;
    }
    bool json = options_has(&options, "--json");
    const char *raw = options_get(&options, "-F");
    const char *path = options.positional_count ? options.positional[0] : NULL;
    options_free(&options);
    if (path == NULL) {
        report_error("info: needs a FILE (see gj2k info --help)");
        return EXIT_USAGE;
    }
    /* what the file is, by its first bytes (its name only where it has none) */
    gj2k_file_format format = gj2k_format_of_file(path);
    if (format == GJ2K_FORMAT_J2K || format == GJ2K_FORMAT_JP2)
        return describe_jpeg2000(path, json);
    gj2k_read_options read_options = {0};
    gj2k_raw_geometry geometry;
    if (raw != NULL) {
        if (!parse_raw_geometry(raw, &geometry))
            return EXIT_USAGE;
        read_options.raw = &geometry;
    }
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(path, &read_options, &image, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    if (json)
        print_json(path, format, image);
    else
        print_text(path, format, image);
    gj2k_image_destroy(image);
    return 0;
}
