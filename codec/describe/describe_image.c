/* describe_image.c - `gj2k info` for image files other than JPEG 2000
 * (PNM, PGX, PNG, TIFF, BMP, TGA, raw): what reading the file gives, its
 * size on the reference grid, colour space, components, ICC profile,
 * metadata and resolution, as text or as one JSON object. */
#include <string.h>

#include "describe.h"

/* What a component means (JP2 cdef, Annex I.5.3.6). */
static const char *role_name(gj2k_component_role role)
{
    switch (role) {
    case GJ2K_ROLE_OPACITY: return "opacity";
    case GJ2K_ROLE_PREMULTIPLIED_OPACITY: return "premultiplied opacity";
    case GJ2K_ROLE_COLOR: break;
    }
    return "colour";
}

static const char *color_space_name(gj2k_color_space space)
{
    switch (space) {
    case GJ2K_COLOR_GRAY: return "greyscale";
    case GJ2K_COLOR_SRGB: return "sRGB";
    case GJ2K_COLOR_SYCC: return "sYCC";
    case GJ2K_COLOR_ESYCC: return "e-sYCC";
    case GJ2K_COLOR_UNKNOWN: break;
    }
    return "unspecified";
}

static void describe_text(const char *path, gj2k_file_format format, const gj2k_image *image,
                          byte_buffer *out)
{
    byte_buffer_printf(out, "%s: %s image\n", path, gj2k_format_name(format));
    byte_buffer_printf(out, "  size        %u x %u (canvas origin %u,%u)\n", image->x1 - image->x0,
                    image->y1 - image->y0, image->x0, image->y0);
    byte_buffer_printf(out, "  colour      %s\n", color_space_name(image->color_space));
    byte_buffer_printf(out, "  components  %u\n", image->num_components);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        byte_buffer_printf(out, "    %u: %ux%u, %u-bit %s, subsampling %ux%u, %s\n", c,
                        comp->width, comp->height, comp->precision,
                        comp->is_signed ? "signed" : "unsigned", comp->dx, comp->dy,
                        role_name(comp->role));
    }
    if (image->icc_profile_size)
        byte_buffer_printf(out, "  ICC profile %zu bytes\n", image->icc_profile_size);
    if (image->xmp_size || image->exif_size || image->iptc_size)
        byte_buffer_printf(out, "  metadata    XMP %zu bytes, EXIF %zu bytes, IPTC %zu bytes\n",
                        image->xmp_size, image->exif_size, image->iptc_size);
    if (image->resolution_x > 0)
        byte_buffer_printf(out, "  resolution  %.2f x %.2f pixels per metre (%.1f x %.1f dpi)\n",
                        image->resolution_x, image->resolution_y, image->resolution_x * 0.0254,
                        image->resolution_y * 0.0254);
}

static void describe_json(const char *path, gj2k_file_format format, const gj2k_image *image,
                          byte_buffer *out)
{
    byte_buffer_printf(out, "{\"file\": ");
    describe_json_string(out, path, strlen(path), false);
    byte_buffer_printf(out, ", \"format\": \"%s\", \"width\": %u, \"height\": %u, \"x0\": %u, "
                    "\"y0\": %u, \"colour\": \"%s\", \"icc_profile_bytes\": %zu, "
                    "\"resolution_ppm\": [%.4f, %.4f], \"metadata_bytes\": {\"xmp\": %zu, "
                    "\"exif\": %zu, \"iptc\": %zu}, \"components\": [",
                    gj2k_format_name(format), image->x1 - image->x0, image->y1 - image->y0,
                    image->x0, image->y0, color_space_name(image->color_space),
                    image->icc_profile_size, image->resolution_x, image->resolution_y,
                    image->xmp_size, image->exif_size, image->iptc_size);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        byte_buffer_printf(out, "%s{\"width\": %u, \"height\": %u, \"precision\": %u, "
                        "\"signed\": %s, \"dx\": %u, \"dy\": %u, \"role\": \"%s\"}",
                        c ? ", " : "", comp->width, comp->height, comp->precision,
                        describe_json_bool(comp->is_signed), comp->dx, comp->dy,
                        role_name(comp->role));
    }
    byte_buffer_printf(out, "]}\n");
}

gj2k_status describe_image(const char *path, gj2k_file_format format,
                           const gj2k_describe_options *options, byte_buffer *out,
                           gj2k_error *error)
{
    /* what reading passes over (trailing bytes, clamped samples) is not
     * part of the description, as `gj2k info` has always had it */
    gj2k_read_options read = {.struct_size = sizeof read, .raw = options->raw};
    gj2k_image *image = NULL;
    gj2k_status status = gj2k_image_read_file(path, &read, &image, error);
    if (status != GJ2K_OK)
        return status; /* its message names the file */
    if (options->style == GJ2K_DESCRIBE_JSON)
        describe_json(path, format, image, out);
    else
        describe_text(path, format, image, out);
    gj2k_image_destroy(image);
    return GJ2K_OK;
}
