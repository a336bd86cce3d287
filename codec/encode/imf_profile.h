/* imf_profile.h - the IMF profiles on the encoder's side (gj2k_profile
 * GJ2K_PROFILE_IMF_*; T.800 Amd 8, SMPTE ST 2067-21): the options the
 * profile fixes, its main and sub levels chosen or checked against the
 * image, the frame rate and the coded size, and the written codestream
 * checked against it (j2k_imf_check). */
#ifndef GJ2K_IMF_PROFILE_H
#define GJ2K_IMF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"

typedef struct imf_options {
    gj2k_encode_options options;      /* the caller's, with the profile's choices */
    const j2k_imf_profile *profile;
    unsigned main_level, sub_level;   /* asked for, or (once settled) chosen */
    bool choose_main, choose_sub;     /* left to the encoder */
    double frame_rate;                /* 0: not given */
    double samples;                   /* component samples a frame */
    double most_bytes;                /* bytes a frame the levels allow (0: no bound) */
    double usual_bytes;               /* a 9/7 frame's budget without a target: what the
                                         main level's highest sub level allows (0: none) */
    double target;                    /* the one layer's bytes, when by bytes */
    double asked;                     /* the caller's bytes (0: lossless, or by PSNR) */
} imf_options;

/* The profile's Rsiz bits 8-15 (J2K_RSIZ_IMF_*), or 0 for a profile not IMF. */
unsigned imf_profile_rsiz(gj2k_profile profile);
/* Rsiz of an encode with these options: the profile's, with the levels
 * asked for (0 where they are left to the encoder). */
unsigned imf_options_rsiz(const gj2k_encode_options *options);

/* Checks the image and the levels against the profile (and the frame
 * rate) and fills `out` from `options`, warning of what the profile
 * overrides. */
gj2k_status imf_options_make(const gj2k_image *image, const gj2k_encode_options *options,
                             imf_options *out, gj2k_error *error);

/* Whether an encode of `bytes` passes the bytes the levels allow; if so,
 * the options are changed to that many bytes (with a warning that the
 * caller's target, or losslessness, is given up) for an encode again. */
bool imf_lower_to_bound(imf_options *imf, size_t bytes);

/* Chooses the levels left to the encoder for a codestream of `bytes` (the
 * lowest whose rates it keeps) and sets them in imf->options. */
gj2k_status imf_levels_settle(imf_options *imf, size_t bytes, gj2k_error *error);

/* Writes the settled levels into the codestream's Rsiz, then checks it
 * against the profile at the frame rate: GJ2K_ERROR_LIMIT with the rules
 * broken. */
gj2k_status imf_finish_codestream(const imf_options *imf, uint8_t *codestream, size_t size,
                                  gj2k_error *error);

#endif
