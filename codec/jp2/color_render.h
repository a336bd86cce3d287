/* color_render.h - what a decoder does to decoded components before handing
 * them over: the JP2 header's instructions (palette, channel definitions,
 * colour space, resolution; T.800 Annex I.5.3) and the conversions a user
 * may ask for (full-size components, RGB, another precision).
 *
 * Every function works on the image in place, replacing component storage
 * as needed. On failure the image stays valid (destroyable) but may be partly
 * converted (e.g. upsampled by color_render_to_rgb before a refusal).
 * None keeps state between calls: images may be rendered on several threads. */
#ifndef GJ2K_COLOR_RENDER_H
#define GJ2K_COLOR_RENDER_H

#include "gj2k.h"
#include "jp2_file.h"

/*
 * Applies a JP2 file's header to the image decoded from its codestream, in
 * the order Annex I.5.3 implies:
 *  1. cmap (+ pclr): channel i is component cmap[i].component, copied
 *     (type 0) or looked up in palette column cmap[i].palette_column (type 1)
 *     with that column's depth and sign; indices outside the palette are
 *     clamped to it (one warning). Without cmap the channels are the
 *     components.
 *  2. cdef: roles (opacity, premultiplied opacity; colour and unspecified
 *     stay GJ2K_ROLE_COLOR), then channels of type colour associated with
 *     colours 1, 2, 3.. move to positions 0, 1, 2.. (by association), the
 *     other channels follow in their order.
 *  3. colour space: the first colr box this build can interpret (Annex I.5.3.3
 *     says readers use the first; a JPX file may put one we cannot use first,
 *     which is skipped with a warning). Enumerated 16 / 17 / 18 set SRGB /
 *     GRAY / SYCC, 24 (e-sYCC) ESYCC, and clear the ICC profile; methods 2 and 3 copy the profile
 *     into image->icc_profile and set GRAY for a 'GRAY' profile, else UNKNOWN.
 *  4. resolution: resd (display) when present, else resc (capture): the
 *     size the file asks a viewer to show, which is what image files record.
 * A mismatch between ihdr/bpcc and the codestream is a warning (the
 * codestream governs). `jp2` may be NULL (a raw codestream): nothing happens.
 * On failure the image may be partly changed; the caller discards it.
 */
gj2k_status color_render_apply_jp2(gj2k_image *image, const jp2_file *jp2,
                                   gj2k_warning_fn warning, void *warning_user,
                                   gj2k_error *error);

/*
 * Makes every component cover the whole image area at dx = dy = 1 by sample
 * replication. Canvas column X (x0 <= X < x1) takes the component's column
 * floor(X / dx), the sample whose area [x*dx, (x+1)*dx) holds X (Annex B.2);
 * where that column lies before the component (X < dx * ceil(x0 / dx)) no
 * sample covers X and it is left 0, as OpenJPEG's upsampling leaves it (the
 * T.803 references follow it). Rows alike. A component with no samples at all is
 * filled with its middle value (0 signed, 2^(p-1) unsigned).
 */
gj2k_status color_render_upsample(gj2k_image *image, gj2k_error *error);

/*
 * Renders the colour components as sRGB: the first 1 (grey) or 3 components
 * of role colour become R, G, B at positions 0..2, followed by every other
 * component unchanged (opacity passes through). Components are upsampled
 * first when the colour components differ in size. By colour space:
 *  - an ICC profile (image->icc_profile, 'GRAY' or 'RGB '): through LittleCMS
 *    to sRGB, perceptual intent; R, G, B take the first colour component's
 *    precision, unsigned. Needs a build with GJ2K_HAVE_LCMS2, else
 *    GJ2K_ERROR_UNSUPPORTED. The profile is dropped.
 *  - GRAY, or UNKNOWN with fewer than 3 colour components: R = G = B = grey.
 *  - SYCC and ESYCC: R = Y + 1.402 Cr', G = Y - 0.344136 Cb' - 0.714136 Cr',
 *    B = Y + 1.772 Cb' (IEC 61966-2-1 Amd. 1), where Cb' = Cb - 2^(p-1) for
 *    unsigned p-bit chroma (Cb itself when signed), scaled to Y's precision;
 *    a signed Y is offset by 2^(p-1). Rounded to nearest, clamped to
 *    [0, 2^p - 1] with Y's precision p, unsigned.
 *  - SRGB, or UNKNOWN with 3 or more colour components: unchanged.
 * Ends with color_space = SRGB.
 */
gj2k_status color_render_to_rgb(gj2k_image *image, gj2k_warning_fn warning, void *warning_user,
                                gj2k_error *error);

typedef enum color_render_signedness {
    COLOR_RENDER_KEEP_SIGN = 0,
    COLOR_RENDER_UNSIGNED,
    COLOR_RENDER_SIGNED
} color_render_signedness;

/*
 * Converts a component to `bits` (1..38) bits and the chosen signedness (as
 * opj_decompress -p): first the sign, signed -> unsigned adds 2^(p-1) and
 * unsigned -> signed subtracts it; then the depth, by s = |bits - p| bits:
 * deeper multiplies by 2^s, shallower rounds to nearest,
 * floor((v + 2^(s-1)) / 2^s), clamped to the target range.
 */
gj2k_status color_render_set_component_precision(gj2k_component *component, uint32_t bits,
                                                 color_render_signedness sign,
                                                 gj2k_error *error);

/* The same for every component of the image. */
gj2k_status color_render_set_precision(gj2k_image *image, uint32_t bits,
                                       color_render_signedness sign, gj2k_error *error);

/* ------------------------------------------- shared by the color_*.c files */

static inline int64_t color_render_sample(const gj2k_component *component, size_t index)
{
    return component->samples != NULL ? component->samples[index]
                                      : component->wide_samples[index];
}

static inline void color_render_set_sample(gj2k_component *component, size_t index,
                                           int64_t value)
{
    if (component->samples != NULL)
        component->samples[index] = (int32_t)value;
    else
        component->wide_samples[index] = value;
}

/* Gives `component` fresh zeroed storage for width x height samples of its
 * precision (narrow up to 31 bits, wide above), forgetting the old storage
 * (the caller keeps or frees it). */
gj2k_status color_render_allocate(gj2k_component *component, gj2k_error *error);

/* Frees a component's storage and forgets it. */
void color_render_release(gj2k_component *component);

/* Makes *out a copy of *source with storage of its own. */
gj2k_status color_render_copy(const gj2k_component *source, gj2k_component *out,
                              gj2k_error *error);

/* Gives rgb[0..2] the geometry and precision of `like`, unsigned, role
 * colour, with fresh zeroed storage; on failure none is left allocated. */
gj2k_status color_render_new_rgb(const gj2k_component *like, gj2k_component rgb[3],
                                 gj2k_error *error);

/* Converts the colour components `colors[0..num_colors)` (1 or 3, of one
 * geometry) from image->icc_profile to sRGB, writing three new components to
 * rgb[0..2] (the caller owns them). color_icc.c; without GJ2K_HAVE_LCMS2 it
 * fails with GJ2K_ERROR_UNSUPPORTED. */
gj2k_status color_render_icc_to_srgb(const gj2k_image *image, const uint32_t *colors,
                                     uint32_t num_colors, gj2k_component rgb[3],
                                     gj2k_error *error);

#endif
