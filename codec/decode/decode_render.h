/* decode_render.h - the rendering a decoded image gets before the decoder
 * hands it over, in this order: a JP2 file's palette, component mapping,
 * channel definitions and colour space (Annex I.5.3; not with
 * raw_components), the components kept (-c), upsampling, the conversion to
 * sRGB (sYCC and e-sYCC unless raw_components, and with guess_sycc three
 * components whose second is subsampled; grey and ICC with force_rgb),
 * the output precision (-p). Each step's new buffers are taken from the
 * memory budget before it runs, and the image's charge follows its size. */
#ifndef GJ2K_DECODE_RENDER_H
#define GJ2K_DECODE_RENDER_H

#include "gj2k.h"
#include "jp2_file.h"
#include "memory_budget.h"

/* `jp2` is NULL for a raw codestream. */
gj2k_status decode_render(gj2k_image *image, const jp2_file *jp2,
                          const gj2k_decode_options *options, memory_budget *memory,
                          gj2k_error *error);

#endif
