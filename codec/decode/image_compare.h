/* image_compare.h - sample-by-sample comparison of an image with its coded
 * and decoded copy: bit-exactness, the largest error and PSNR. Used by
 * `gj2k encode -v`, `gj2k bench`, the encoder's tests and the conformance
 * cross-checks. */
#ifndef GJ2K_IMAGE_COMPARE_H
#define GJ2K_IMAGE_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "gj2k.h"

typedef struct image_difference {
    bool identical;          /* every sample of every component equal */
    uint64_t samples;        /* samples compared, all components together */
    uint64_t max_abs_error;  /* largest |original - decoded| */
    double normalised_mse;   /* mean of (error / peak)^2 over all samples (see below) */
    double psnr;             /* dB; INFINITY when identical */
} image_difference;

/*
 * Compares `decoded` with `original` sample by sample. Both must have the same
 * number of components and each component the same width and height; when
 * they do not, returns false and writes why (one line) to `why`.
 *
 * PSNR is computed over all components together: every squared error is
 * divided by its component's peak squared, peak = 2^precision - 1 of the
 * original's component, and averaged over all samples:
 *     PSNR = 10 log10(1 / (sum((e / peak_c)^2) / N)).
 * When every component has the same precision (the usual case) this is the
 * familiar 10 log10(peak^2 / MSE), MSE = sum(e^2) / N over all samples; when
 * precisions differ, each component weighs by its samples in its own scale
 * (no component's infinite PSNR makes the figure infinite).
 */
bool image_compare(const gj2k_image *original, const gj2k_image *decoded,
                   image_difference *difference, char *why, size_t why_size);

/* What image_compare_encoded found. */
typedef enum encoded_comparison {
    ENCODED_COMPARED,     /* decoded to the original's shape: see *difference */
    ENCODED_UNDECODABLE,  /* the decoder failed: `why` holds its message */
    ENCODED_OTHER_SHAPE,  /* decoded to another shape: `why` says how */
} encoded_comparison;

/*
 * Decodes the codestream or JP2 file `data` with `options` (the device, GPU
 * and context a batch worker codes on, or the defaults: NULL) and compares
 * the image with `original` as image_compare does. Anything but
 * ENCODED_COMPARED leaves one line in `why`.
 */
encoded_comparison image_compare_encoded(const gj2k_image *original, const uint8_t *data,
                                         size_t size, const gj2k_decode_options *options,
                                         image_difference *difference, char *why,
                                         size_t why_size);

/* Bytes of the image's samples as the ratio targets count them:
 * the sum over components of width * height * precision / 8. */
double image_raw_bytes(const gj2k_image *image);

#endif
