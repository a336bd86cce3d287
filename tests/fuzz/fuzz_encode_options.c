/* fuzz_encode_options.c - libFuzzer target for `gj2k encode`'s option
 * parser (app/options.c, app/encode_request.c): the input is the argument
 * list, one argument a line. Whatever it says, parsing returns (a usage
 * error has printed its one line); options it accepts are within their
 * documented ranges, and the encoder takes them or refuses them cleanly on
 * a small image. Run it with -close_fd_mask=2: usage errors go to stderr. */
#include <stdlib.h>
#include <string.h>

#include "encode_request.h"
#include "gj2k.h"
#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_ARGUMENTS 48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[FUZZ_MAX_ARGUMENTS];
    int argc = 0;
    for (char *p = text; argc < FUZZ_MAX_ARGUMENTS;) {
        argv[argc++] = p;
        char *end = strchr(p, '\n');
        if (end == NULL)
            break;
        *end = '\0';
        p = end + 1;
    }
    parsed_options parsed;
    encode_request request;
    memset(&request, 0, sizeof request);
    if (options_parse("encode", argc, argv, encode_options, encode_option_count, 0, &parsed)) {
        bool ok = encode_request_read(&parsed, &request);
        options_free(&parsed);
        gj2k_encode_options *o = &request.options;
        if (ok && (o->num_layers > GJ2K_MAX_LAYERS ||
                   o->num_progression_changes > MAX_PROGRESSION_CHANGES ||
                   (o->num_layers > 1 && o->targets == NULL)))
            abort();
        if (ok) {
            /* The library's own checks on what the parser let through. */
            gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 8};
            gj2k_image *image = NULL;
            gj2k_error error = {0};
            if (gj2k_image_create(&image, 0, 0, 9, 7, 1, &info, &error) == GJ2K_OK) {
                o->threads = 1;
                o->device = GJ2K_DEVICE_CPU;
                o->warning = NULL;
                uint8_t *out = NULL;
                size_t out_size = 0;
                gj2k_status status = gj2k_encode_memory(image, o, &out, &out_size, NULL, &error);
                if (status != GJ2K_OK && (error.message[0] == '\0' || out != NULL))
                    abort();
                free(out);
                gj2k_image_destroy(image);
            }
        }
    }
    free(text);
    return 0;
}
