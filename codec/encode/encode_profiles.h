/* encode_profiles.h - encodes under a codestream profile (gj2k_profile):
 * the profile's options, the codestream checked against it and coded
 * again where it must be, then boxed as JP2 when asked; and the parts of
 * encoder.c they share. */
#ifndef GJ2K_ENCODE_PROFILES_H
#define GJ2K_ENCODE_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"
#include "gj2k.h"

/* `image` coded with whole options (struct_size.h) into `out` as `format`
 * (encoder.c). */
gj2k_status encoder_code_image(const gj2k_image *image, const gj2k_encode_options *options,
                               gj2k_file_format format, byte_buffer *out,
                               gj2k_encode_report *report, gj2k_error *error);

/* A JP2 file of `image` around `codestream` (Annex I) into `out` (encoder.c). */
gj2k_status encoder_write_jp2(const gj2k_image *image, const uint8_t *codestream, size_t size,
                              byte_buffer *out, gj2k_error *error);

/* A digital cinema profile's encode (T.800 Amd 1): its options, then the
 * codestream checked; a component over its share lowers the frame's
 * budget by the excess and the encode runs again (rate control shares
 * bytes by distortion, not by component). */
gj2k_status encode_cinema(const gj2k_image *image, const gj2k_encode_options *options,
                          gj2k_file_format format, byte_buffer *out, gj2k_encode_report *report,
                          gj2k_error *error);

/* An IMF profile's encode (T.800 Amd 8): its options; a lossless or PSNR
 * encode past the bytes its levels allow at the frame rate is coded again
 * within them; the levels left to the encoder are chosen for the coded
 * size, written into Rsiz, and the codestream checked. */
gj2k_status encode_imf(const gj2k_image *image, const gj2k_encode_options *options,
                       gj2k_file_format format, byte_buffer *out, gj2k_encode_report *report,
                       gj2k_error *error);

#endif
