/* command_info.c - `gj2k info FILE [--json]`: what a file holds, as the
 * library's gj2k_describe_file describes it. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "gj2k.h"
#include "options.h"

static const option_spec info_options[] = {
    {"--json", NULL, "print a JSON object instead of text"},
    {"-F", "GEOMETRY", "geometry of raw input, as for convert"},
    {"--help", NULL, "this text"},
};
#define INFO_OPTION_COUNT (sizeof info_options / sizeof info_options[0])

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
    gj2k_describe_options describe = GJ2K_DESCRIBE_OPTIONS_INIT;
    describe.style = json ? GJ2K_DESCRIBE_JSON : GJ2K_DESCRIBE_TEXT;
    describe.warning = report_warning;
    describe.warning_user = (void *)path;
    gj2k_raw_geometry geometry;
    if (raw != NULL) {
        if (!parse_raw_geometry(raw, &geometry))
            return EXIT_USAGE;
        describe.raw = &geometry;
    }
    char *text = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    if (gj2k_describe_file(path, &describe, &text, &size, &error) != GJ2K_OK) {
        report_error("%s", error.message);
        return 1;
    }
    fwrite(text, 1, size, stdout);
    free(text);
    return 0;
}
