/* png_chromaticity.h - a PNG's gAMA and cHRM (PNG 11.3.3.2, 11.3.3.1)
 * made into the ICC profile they describe (LittleCMS), so that a JP2 file
 * keeps the colour: JP2 names a colour space by enumeration or by a
 * restricted ICC profile (T.800 I.5.3.3), never by gamma and primaries. */
#ifndef GJ2K_PNG_CHROMATICITY_H
#define GJ2K_PNG_CHROMATICITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct png_chromaticity {
    double gamma;           /* the file's gAMA (encoding gamma, e.g. 0.45455); 0: none */
    bool has_primaries;     /* cHRM given: */
    double white[2], red[2], green[2], blue[2]; /* CIE xy */
} png_chromaticity;

/* Whether it is sRGB's, within what a PNG encoder rounds to (then no
 * profile is needed: JP2's enumerated sRGB says it). */
bool png_chromaticity_is_srgb(const png_chromaticity *c);

/* The profile (malloc'ed, *profile and *size) of a grey or RGB image with
 * those values: a matrix/TRC profile (ICC.1 restricted, as JP2 asks); a
 * missing gamma is 1/2.2, missing primaries sRGB's. GJ2K_ERROR_UNSUPPORTED
 * in a build without LittleCMS. */
gj2k_status png_chromaticity_profile(const png_chromaticity *c, bool grey, uint8_t **profile,
                                     size_t *size, gj2k_error *error);

#endif
