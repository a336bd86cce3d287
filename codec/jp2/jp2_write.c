/* jp2_write.c - describing an image as JP2 boxes and writing a JP2 file
 * (T.800 Annex I), and the resolution box arithmetic. */
#include "error.h"
#include "jp2_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ resolution */

bool jp2_resolution_to_ppm(const jp2_resolution *resolution, double *vertical,
                           double *horizontal)
{
    if (resolution->vertical_denominator == 0 || resolution->horizontal_denominator == 0)
        return false;
    /* Annex I.5.3.7.1, eq. I-1 and I-2: N / D * 10^E grid points per metre. */
    *vertical = (double)resolution->vertical_numerator / resolution->vertical_denominator *
                pow(10.0, resolution->vertical_exponent);
    *horizontal = (double)resolution->horizontal_numerator /
                  resolution->horizontal_denominator * pow(10.0, resolution->horizontal_exponent);
    return true;
}

/* The fraction num / den closest to x > 0 with both in 1..65535, from the
 * continued fraction of x and the last admissible semiconvergent. */
static void closest_fraction(double x, uint32_t *num, uint32_t *den)
{
    const uint64_t limit = 65535;
    uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;
    double rest = x;
    for (int step = 0; step < 64; step++) {
        double whole = floor(rest);
        if (whole > (double)limit) {
            whole = (double)limit + 1; /* forces the bounded branch below */
        }
        uint64_t a = (uint64_t)whole;
        uint64_t p2 = a * p1 + p0, q2 = a * q1 + q0;
        if (p2 > limit || q2 > limit) {
            uint64_t k_p = p1 ? (limit - p0) / p1 : limit;
            uint64_t k_q = q1 ? (limit - q0) / q1 : limit;
            uint64_t k = k_p < k_q ? k_p : k_q;
            uint64_t ps = k * p1 + p0, qs = k * q1 + q0;
            if (qs > 0 && ps > 0 &&
                (q1 == 0 || p1 == 0 ||
                 fabs((double)ps / (double)qs - x) < fabs((double)p1 / (double)q1 - x))) {
                p1 = ps;
                q1 = qs;
            }
            break;
        }
        p0 = p1;
        q0 = q1;
        p1 = p2;
        q1 = q2;
        double fraction = rest - floor(rest);
        if (fraction < 1e-12)
            break;
        rest = 1.0 / fraction;
    }
    if (q1 == 0 || p1 == 0) { /* x outside what a fraction can reach */
        p1 = x >= 1.0 ? limit : 1;
        q1 = x >= 1.0 ? 1 : limit;
    }
    *num = (uint32_t)p1;
    *den = (uint32_t)q1;
}

/* N / D * 10^E closest to `ppm`, trying exponents nearest 0 first. */
static void encode_ppm(double ppm, uint16_t *numerator, uint16_t *denominator, int8_t *exponent)
{
    double best_error = INFINITY;
    for (int distance = 0; distance <= 40; distance++) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            int e = distance * sign;
            if (distance == 0 && sign < 0)
                continue;
            double scaled = ppm / pow(10.0, e);
            if (scaled > 65535.0 || scaled < 1.0 / 65535.0)
                continue;
            uint32_t n, d;
            closest_fraction(scaled, &n, &d);
            double error = fabs((double)n / d * pow(10.0, e) - ppm) / ppm;
            if (error < best_error) {
                best_error = error;
                *numerator = (uint16_t)n;
                *denominator = (uint16_t)d;
                *exponent = (int8_t)e;
            }
        }
    }
}

bool jp2_resolution_from_ppm(double vertical, double horizontal, jp2_resolution *resolution)
{
    if (!(vertical > 0 && vertical < 1e30) || !(horizontal > 0 && horizontal < 1e30))
        return false;
    *resolution = (jp2_resolution){0};
    encode_ppm(vertical, &resolution->vertical_numerator, &resolution->vertical_denominator,
               &resolution->vertical_exponent);
    encode_ppm(horizontal, &resolution->horizontal_numerator,
               &resolution->horizontal_denominator, &resolution->horizontal_exponent);
    return true;
}

/* ------------------------------------------------------- describe image */

static uint8_t encode_depth(jp2_depth depth)
{
    return (uint8_t)((depth.precision - 1u) | (depth.is_signed ? 0x80u : 0u));
}

/* Colours a colour space has; 0 when the ICC header does not say. */
static uint32_t colors_of_space(const gj2k_image *image, uint32_t color_components)
{
    if (image->icc_profile != NULL && image->icc_profile_size >= 20) {
        /* ICC.1 header: data colour space signature at bytes 16..19. */
        const uint8_t *p = image->icc_profile + 16;
        if (memcmp(p, "GRAY", 4) == 0)
            return 1;
        if (memcmp(p, "RGB ", 4) == 0 || memcmp(p, "YCbr", 4) == 0)
            return 3;
        return color_components;
    }
    switch (image->color_space) {
    case GJ2K_COLOR_GRAY: return 1;
    case GJ2K_COLOR_SRGB:
    case GJ2K_COLOR_SYCC:
    case GJ2K_COLOR_ESYCC: return 3;
    case GJ2K_COLOR_UNKNOWN: break;
    }
    return color_components < 3 ? 1 : 3;
}

static gj2k_status describe_channels(jp2_file *out, const gj2k_image *image, gj2k_error *error)
{
    bool plain = true;
    uint32_t color_components = 0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        plain = plain && image->components[c].role == GJ2K_ROLE_COLOR;
        color_components += image->components[c].role == GJ2K_ROLE_COLOR;
    }
    if (plain)
        return GJ2K_OK;
    out->channels = malloc(image->num_components * sizeof *out->channels);
    if (out->channels == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for cdef");
    out->num_channels = image->num_components;
    uint32_t colors = colors_of_space(image, color_components), next_color = 1;
    for (uint32_t c = 0; c < image->num_components; c++) {
        jp2_channel_definition *def = &out->channels[c];
        def->channel = (uint16_t)c;
        switch (image->components[c].role) {
        case GJ2K_ROLE_COLOR:
            if (next_color <= colors) {
                def->type = JP2_CHANNEL_COLOR;
                def->association = (uint16_t)next_color++;
            } else {
                def->type = JP2_CHANNEL_UNSPECIFIED;
                def->association = JP2_ASSOCIATION_NONE;
            }
            break;
        case GJ2K_ROLE_OPACITY:
            def->type = JP2_CHANNEL_OPACITY;
            def->association = JP2_ASSOCIATION_WHOLE_IMAGE;
            break;
        case GJ2K_ROLE_PREMULTIPLIED_OPACITY:
            def->type = JP2_CHANNEL_PREMULTIPLIED_OPACITY;
            def->association = JP2_ASSOCIATION_WHOLE_IMAGE;
            break;
        }
    }
    return GJ2K_OK;
}

static gj2k_status describe_color(jp2_file *out, const gj2k_image *image, gj2k_error *error)
{
    out->colors = calloc(1, sizeof *out->colors);
    if (out->colors == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for colr");
    out->num_colors = 1;
    jp2_color_spec *spec = &out->colors[0];
    if (image->icc_profile != NULL && image->icc_profile_size > 0) {
        if (image->icc_profile_size > UINT32_MAX - 64)
            return gj2k_fail(error, GJ2K_ERROR_LIMIT, "JP2: ICC profile of %zu bytes is too large",
                             image->icc_profile_size);
        spec->method = JP2_COLOR_METHOD_RESTRICTED_ICC;
        spec->icc_profile = malloc(image->icc_profile_size);
        if (spec->icc_profile == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for colr");
        memcpy(spec->icc_profile, image->icc_profile, image->icc_profile_size);
        spec->icc_profile_size = image->icc_profile_size;
        return GJ2K_OK;
    }
    spec->method = JP2_COLOR_METHOD_ENUMERATED;
    switch (image->color_space) {
    case GJ2K_COLOR_GRAY: spec->enumerated = JP2_ENUM_GREYSCALE; break;
    case GJ2K_COLOR_SRGB: spec->enumerated = JP2_ENUM_SRGB; break;
    case GJ2K_COLOR_SYCC: spec->enumerated = JP2_ENUM_SYCC; break;
    case GJ2K_COLOR_ESYCC: /* a JPX colour space: JP2's colr takes 16, 17, 18 (I.5.3.3) */
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "JP2: e-sYCC is not a JP2 colour space (sRGB, greyscale or sYCC); "
                         "convert the image to RGB first");
    case GJ2K_COLOR_UNKNOWN: {
        uint32_t color_components = 0;
        for (uint32_t c = 0; c < image->num_components; c++)
            color_components += image->components[c].role == GJ2K_ROLE_COLOR;
        spec->enumerated = color_components < 3 ? JP2_ENUM_GREYSCALE : JP2_ENUM_SRGB;
        out->header.colorspace_unknown = 1;
        break;
    }
    }
    return GJ2K_OK;
}

static gj2k_status describe(jp2_file *out, const gj2k_image *image, gj2k_error *error)
{
    if (image->num_components == 0 || image->num_components > GJ2K_MAX_COMPONENTS ||
        image->x1 <= image->x0 || image->y1 <= image->y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "JP2: image of %u components on a %ux%u area cannot be described",
                         image->num_components, image->x1 > image->x0 ? image->x1 - image->x0 : 0,
                         image->y1 > image->y0 ? image->y1 - image->y0 : 0);
    out->brand = JP2_BRAND_JP2;
    out->compatibility = malloc(sizeof *out->compatibility);
    if (out->compatibility == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for ftyp");
    out->compatibility[0] = JP2_BRAND_JP2;
    out->num_compatibility = 1;

    bool same_depth = true;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->precision < 1 || comp->precision > GJ2K_MAX_PRECISION)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "JP2: component %u has precision %u", c, comp->precision);
        same_depth = same_depth && comp->precision == image->components[0].precision &&
                     comp->is_signed == image->components[0].is_signed;
    }
    out->header = (jp2_image_header){.height = image->y1 - image->y0,
                                     .width = image->x1 - image->x0,
                                     .num_components = (uint16_t)image->num_components,
                                     .compression = 7};
    if (same_depth) {
        out->header.bits_per_component = encode_depth((jp2_depth){
            (uint8_t)image->components[0].precision, image->components[0].is_signed});
    } else {
        out->header.bits_per_component = JP2_BPC_VARIES;
        out->component_depths = malloc(image->num_components * sizeof *out->component_depths);
        if (out->component_depths == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for bpcc");
        for (uint32_t c = 0; c < image->num_components; c++)
            out->component_depths[c] = (jp2_depth){(uint8_t)image->components[c].precision,
                                                   image->components[c].is_signed};
    }
    gj2k_status status = describe_color(out, image, error);
    if (status == GJ2K_OK)
        status = describe_channels(out, image, error);
    if (status != GJ2K_OK)
        return status;
    /* The image's resolution is what a viewer should show: resd (I.5.3.7.2). */
    double vertical = image->resolution_y > 0 ? image->resolution_y : image->resolution_x;
    double horizontal = image->resolution_x > 0 ? image->resolution_x : image->resolution_y;
    out->has_display_resolution =
        jp2_resolution_from_ppm(vertical, horizontal, &out->display_resolution);
    const uint8_t *metadata[JP2_METADATA_KINDS] = {image->xmp, image->exif, image->iptc};
    const size_t sizes[JP2_METADATA_KINDS] = {image->xmp_size, image->exif_size, image->iptc_size};
    for (int k = 0; k < JP2_METADATA_KINDS; k++) {
        if (metadata[k] == NULL || sizes[k] == 0)
            continue;
        if (sizes[k] > UINT32_MAX - 64)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "JP2: metadata of %zu bytes does not fit a uuid box", sizes[k]);
        out->metadata[k] = malloc(sizes[k]);
        if (out->metadata[k] == NULL)
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "JP2: out of memory for metadata");
        memcpy(out->metadata[k], metadata[k], sizes[k]);
        out->metadata_size[k] = sizes[k];
    }
    return GJ2K_OK;
}

gj2k_status jp2_file_describe_image(jp2_file *out, const gj2k_image *image, gj2k_error *error)
{
    *out = (jp2_file){0};
    gj2k_status status = describe(out, image, error);
    if (status != GJ2K_OK)
        jp2_file_free(out);
    return status;
}

/* ---------------------------------------------------------------- write */

/* Starts a box whose length is patched by end_box. */
static size_t begin_box(byte_buffer *out, uint32_t type)
{
    size_t start = out->size;
    byte_buffer_put_u32_be(out, 0);
    byte_buffer_put_u32_be(out, type);
    return start;
}

static void end_box(byte_buffer *out, size_t start)
{
    if (out->failed)
        return;
    if (out->size - start > UINT32_MAX) {
        out->failed = true; /* only jp2c may need XLBox, and it is written apart */
        return;
    }
    uint32_t length = (uint32_t)(out->size - start);
    out->data[start] = (uint8_t)(length >> 24);
    out->data[start + 1] = (uint8_t)(length >> 16);
    out->data[start + 2] = (uint8_t)(length >> 8);
    out->data[start + 3] = (uint8_t)length;
}

static bool valid_depth(jp2_depth depth)
{
    return depth.precision >= 1 && depth.precision <= GJ2K_MAX_PRECISION;
}

/* Refuses a jp2_file whose boxes could not be written as Annex I defines them. */
static gj2k_status check_writable(const jp2_file *file, gj2k_error *error)
{
    const jp2_image_header *h = &file->header;
    if (h->num_components == 0 || h->width == 0 || h->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "JP2: ihdr of %u components on %ux%u cannot be written",
                         h->num_components, h->width, h->height);
    if (h->bits_per_component == JP2_BPC_VARIES) {
        if (file->component_depths == NULL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "JP2: ihdr defers depths to bpcc but none are given");
        for (uint32_t c = 0; c < h->num_components; c++)
            if (!valid_depth(file->component_depths[c]))
                return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                                 "JP2: component %u has depth %u", c,
                                 file->component_depths[c].precision);
    } else if ((h->bits_per_component & 0x7F) >= GJ2K_MAX_PRECISION) {
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "JP2: ihdr BPC 0x%02x is invalid",
                         h->bits_per_component);
    }
    for (uint32_t i = 0; i < file->num_colors; i++) {
        const jp2_color_spec *spec = &file->colors[i];
        bool icc = spec->method == JP2_COLOR_METHOD_RESTRICTED_ICC ||
                   spec->method == JP2_COLOR_METHOD_ANY_ICC;
        if (icc && (spec->icc_profile == NULL || spec->icc_profile_size == 0 ||
                    spec->icc_profile_size > UINT32_MAX - 64))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "JP2: colr box %u has no usable ICC profile", i);
    }
    if (file->has_palette) {
        const jp2_palette *pal = &file->palette;
        if (pal->num_entries == 0 || pal->num_entries > JP2_MAX_PALETTE_ENTRIES ||
            pal->num_columns == 0 || pal->values == NULL || pal->column_depths == NULL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "JP2: palette of %u entries and %u columns cannot be written",
                             pal->num_entries, pal->num_columns);
        for (uint32_t c = 0; c < pal->num_columns; c++)
            if (!valid_depth(pal->column_depths[c]))
                return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                                 "JP2: palette column %u has depth %u", c,
                                 pal->column_depths[c].precision);
    }
    if (file->num_mappings > GJ2K_MAX_COMPONENTS || file->num_channels > 65535 ||
        file->num_compatibility > (UINT32_MAX - 64) / 4)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "JP2: %u cmap / %u cdef entries cannot be written", file->num_mappings,
                         file->num_channels);
    return GJ2K_OK;
}

static void write_resolution_box(byte_buffer *out, uint32_t type, const jp2_resolution *res)
{
    size_t box = begin_box(out, type);
    byte_buffer_put_u16_be(out, res->vertical_numerator);
    byte_buffer_put_u16_be(out, res->vertical_denominator);
    byte_buffer_put_u16_be(out, res->horizontal_numerator);
    byte_buffer_put_u16_be(out, res->horizontal_denominator);
    byte_buffer_put_u8(out, (uint8_t)res->vertical_exponent);
    byte_buffer_put_u8(out, (uint8_t)res->horizontal_exponent);
    end_box(out, box);
}

/* pclr (Annex I.5.3.4): values in ceil(depth / 8) bytes, two's complement. */
static void write_palette(byte_buffer *out, const jp2_palette *pal)
{
    size_t box = begin_box(out, JP2_BOX_PALETTE);
    byte_buffer_put_u16_be(out, pal->num_entries);
    byte_buffer_put_u8(out, pal->num_columns);
    for (uint32_t c = 0; c < pal->num_columns; c++)
        byte_buffer_put_u8(out, encode_depth(pal->column_depths[c]));
    for (uint32_t e = 0; e < pal->num_entries; e++) {
        for (uint32_t c = 0; c < pal->num_columns; c++) {
            uint64_t value = (uint64_t)pal->values[(size_t)e * pal->num_columns + c];
            uint32_t bytes = (pal->column_depths[c].precision + 7u) / 8u;
            for (uint32_t b = bytes; b-- > 0;)
                byte_buffer_put_u8(out, (uint8_t)(value >> (8 * b)));
        }
    }
    end_box(out, box);
}

static void write_header(byte_buffer *out, const jp2_file *file)
{
    size_t jp2h = begin_box(out, JP2_BOX_HEADER);
    size_t box = begin_box(out, JP2_BOX_IMAGE_HEADER);
    const jp2_image_header *h = &file->header;
    byte_buffer_put_u32_be(out, h->height);
    byte_buffer_put_u32_be(out, h->width);
    byte_buffer_put_u16_be(out, h->num_components);
    byte_buffer_put_u8(out, h->bits_per_component);
    byte_buffer_put_u8(out, h->compression);
    byte_buffer_put_u8(out, h->colorspace_unknown);
    byte_buffer_put_u8(out, h->has_ipr);
    end_box(out, box);
    if (h->bits_per_component == JP2_BPC_VARIES) {
        box = begin_box(out, JP2_BOX_BITS_PER_COMPONENT);
        for (uint32_t c = 0; c < h->num_components; c++)
            byte_buffer_put_u8(out, encode_depth(file->component_depths[c]));
        end_box(out, box);
    }
    for (uint32_t i = 0; i < file->num_colors; i++) {
        const jp2_color_spec *spec = &file->colors[i];
        box = begin_box(out, JP2_BOX_COLOR);
        byte_buffer_put_u8(out, spec->method);
        byte_buffer_put_u8(out, (uint8_t)spec->precedence);
        byte_buffer_put_u8(out, spec->approximation);
        if (spec->method == JP2_COLOR_METHOD_ENUMERATED)
            byte_buffer_put_u32_be(out, spec->enumerated);
        else if (spec->icc_profile != NULL)
            byte_buffer_append(out, spec->icc_profile, spec->icc_profile_size);
        end_box(out, box);
    }
    if (file->has_palette)
        write_palette(out, &file->palette);
    if (file->mappings != NULL) {
        box = begin_box(out, JP2_BOX_COMPONENT_MAPPING);
        for (uint32_t i = 0; i < file->num_mappings; i++) {
            byte_buffer_put_u16_be(out, file->mappings[i].component);
            byte_buffer_put_u8(out, file->mappings[i].map_type);
            byte_buffer_put_u8(out, file->mappings[i].palette_column);
        }
        end_box(out, box);
    }
    if (file->channels != NULL && file->num_channels > 0) {
        box = begin_box(out, JP2_BOX_CHANNEL_DEFINITION);
        byte_buffer_put_u16_be(out, (uint16_t)file->num_channels);
        for (uint32_t i = 0; i < file->num_channels; i++) {
            byte_buffer_put_u16_be(out, file->channels[i].channel);
            byte_buffer_put_u16_be(out, file->channels[i].type);
            byte_buffer_put_u16_be(out, file->channels[i].association);
        }
        end_box(out, box);
    }
    if (file->has_capture_resolution || file->has_display_resolution) {
        box = begin_box(out, JP2_BOX_RESOLUTION);
        if (file->has_capture_resolution)
            write_resolution_box(out, JP2_BOX_CAPTURE_RESOLUTION, &file->capture_resolution);
        if (file->has_display_resolution)
            write_resolution_box(out, JP2_BOX_DISPLAY_RESOLUTION, &file->display_resolution);
        end_box(out, box);
    }
    end_box(out, jp2h);
}

bool jp2_codestream_is_htj2k(const uint8_t *codestream, size_t size)
{
    /* Rsiz follows the SIZ marker and Lsiz */
    return size >= 8 && codestream[0] == 0xFF && codestream[1] == 0x4F &&
           codestream[2] == 0xFF && codestream[3] == 0x51 && (codestream[6] & 0x40) != 0;
}

void jp2_write_codestream_box(byte_buffer *out, const uint8_t *codestream, size_t size)
{
    if ((uint64_t)size + 8 > UINT32_MAX) {
        uint64_t length = (uint64_t)size + 16;
        byte_buffer_put_u32_be(out, 1);
        byte_buffer_put_u32_be(out, JP2_BOX_CODESTREAM);
        byte_buffer_put_u32_be(out, (uint32_t)(length >> 32));
        byte_buffer_put_u32_be(out, (uint32_t)length);
    } else {
        byte_buffer_put_u32_be(out, (uint32_t)(size + 8));
        byte_buffer_put_u32_be(out, JP2_BOX_CODESTREAM);
    }
    byte_buffer_append(out, codestream, size);
}

/* ftyp (I.5.2). A JPH file (T.814 Annex D) takes brand 'jph ' and lists
 * 'jph ', never 'jp2 ': a Part 1 reader cannot decode HT code-blocks. */
static void write_file_type(byte_buffer *out, const jp2_file *file, bool jph)
{
    size_t box = begin_box(out, JP2_BOX_FILE_TYPE);
    byte_buffer_put_u32_be(out, jph ? JP2_BRAND_JPH : file->brand);
    byte_buffer_put_u32_be(out, file->minor_version);
    if (jph)
        byte_buffer_put_u32_be(out, JP2_BRAND_JPH);
    for (uint32_t i = 0; i < file->num_compatibility; i++) {
        uint32_t brand = file->compatibility[i];
        if (!jph || (brand != JP2_BRAND_JP2 && brand != JP2_BRAND_JPH))
            byte_buffer_put_u32_be(out, brand);
    }
    end_box(out, box);
}

gj2k_status jp2_file_write(const jp2_file *file, const uint8_t *codestream,
                           size_t codestream_size, byte_buffer *out, gj2k_error *error)
{
    gj2k_status status = check_writable(file, error);
    if (status != GJ2K_OK)
        return status;
    if (codestream == NULL || codestream_size == 0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "JP2: no codestream to wrap");
    size_t start = out->size;
    /* Signature (I.5.1) and ftyp (I.5.2). */
    byte_buffer_put_u32_be(out, 12);
    byte_buffer_put_u32_be(out, JP2_BOX_SIGNATURE);
    byte_buffer_put_u32_be(out, JP2_SIGNATURE_CONTENT);
    write_file_type(out, file, jp2_codestream_is_htj2k(codestream, codestream_size));
    write_header(out, file);
    for (int k = 0; k < JP2_METADATA_KINDS; k++) { /* uuid boxes (I.7.2) before the codestream */
        if (file->metadata[k] == NULL)
            continue;
        size_t box = begin_box(out, JP2_BOX_UUID);
        byte_buffer_append(out, jp2_metadata_uuids[k], 16);
        byte_buffer_append(out, file->metadata[k], file->metadata_size[k]);
        end_box(out, box);
    }
    jp2_write_codestream_box(out, codestream, codestream_size);
    if (out->failed) {
        out->size = start < out->size ? start : out->size;
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY,
                         "JP2: out of memory writing the file (or a header box over 4 GiB)");
    }
    return GJ2K_OK;
}
