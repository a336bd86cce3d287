/* cinema_profile.h - the digital cinema profiles on the encoder's side
 * (gj2k_profile; T.800 Amd 1): the options the profile fixes, and the
 * written codestream checked against it (j2k_cinema_check). */
#ifndef GJ2K_CINEMA_PROFILE_H
#define GJ2K_CINEMA_PROFILE_H

#include "codestream.h"
#include "gj2k.h"

typedef struct cinema_options {
    gj2k_encode_options options;          /* the caller's, with the profile's choices */
    const j2k_cinema_limits *limits;
    double target;                        /* bytes of the one layer */
    gj2k_progression_change changes[2];   /* 4K: its two POC volumes */
} cinema_options;

/* Checks the image against `profile` (and options->frame_rate) and fills
 * `out` from `options`, warning of what the profile overrides. */
gj2k_status cinema_options_make(const gj2k_image *image, const gj2k_encode_options *options,
                                cinema_options *out, gj2k_error *error);

/* Whether a written codestream keeps the profile (GJ2K_OK), else
 * GJ2K_ERROR_LIMIT with the rules broken, *over set to the bytes by which
 * the largest component passes its share (0 when that is not the fault). */
gj2k_status cinema_check_codestream(const uint8_t *codestream, size_t size,
                                    const j2k_cinema_limits *limits, size_t *over,
                                    gj2k_error *error);

#endif
