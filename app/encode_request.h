/* encode_request.h - what `gj2k encode`'s command line asks for: its
 * options table (opj_compress's options) and their values read into
 * gj2k_encode_options, each checked (encode_request.c). */
#ifndef GJ2K_APP_ENCODE_REQUEST_H
#define GJ2K_APP_ENCODE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"
#include "options.h"

/* Progression order changes one -POC option may list. */
#define MAX_PROGRESSION_CHANGES 64

/* Everything the command line asked for; `options` points into the arrays. */
typedef struct encode_request {
    const char *input, *output, *raw_geometry;
    gj2k_encode_options options;
    double targets[GJ2K_MAX_LAYERS];
    gj2k_progression_change changes[MAX_PROGRESSION_CHANGES];
    bool shift_origin;
    uint32_t origin_x, origin_y;
    bool verbose;
} encode_request;

extern const option_spec encode_options[];
extern const size_t encode_option_count;

/* Fills `request` from the parsed options; false (after one line on
 * stderr) on a usage error. Its strings point into the arguments. */
bool encode_request_read(const parsed_options *parsed, encode_request *request);

/* The decode options that check an encode's output: on the device, GPU and
 * context that encoded it, with its threads. */
gj2k_decode_options encode_check_options(const gj2k_encode_options *encoded);

/* Reads the request's input: an image file, or a JPEG 2000 file (decoded,
 * to re-encode); command_encode.c. */
gj2k_status encode_read_input(const encode_request *request, const gj2k_raw_geometry *geometry,
                              gj2k_image **image, gj2k_error *error);

/* Moves the image's origin on the reference grid to (x, y) (opj_compress
 * -d): the image area shifts, each component's origin becomes ceil(x / dx).
 * Refuses (false, one line on stderr) when subsampling would change the
 * size of a component, since its samples would no longer fill it. */
bool encode_move_origin(gj2k_image *image, uint32_t x, uint32_t y);

#endif
