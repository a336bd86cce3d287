/* format_png.c - PNG (ISO/IEC 15948) through libpng 1.6.
 *
 * Reading keeps samples at their stored depth: grey of 1..16 bits, palettes
 * expanded to 8-bit RGB, tRNS turned into an alpha component. A consistent
 * sBIT (every sample's low bits zero) lowers the precision, so images written
 * here at 10 or 12 bits come back exactly. libpng reports failures through
 * per-struct callbacks that longjmp back; nothing process-global is touched. */
#include "error.h"
#include "image_formats.h"
#include "png_chromaticity.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ancillary chunks (iCCP, text) larger than this are dropped by libpng. */
#define PNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)64 << 20)

/* What the libpng callbacks share with the reader or writer. */
typedef struct png_context {
    png_structp png;
    png_infop info;
    gj2k_warning_fn warning;
    void *warning_user;
    char message[200];     /* libpng's error message */
    /* reading */
    const uint8_t *data;
    size_t size, position;
    bool truncated;        /* the read callback ran out of bytes */
    const gj2k_read_options *options;
    gj2k_image *image;
    uint8_t *pixels;       /* decoded rows */
    png_bytep *rows;
    /* writing */
    byte_buffer *out;
    const gj2k_image *source;
    uint8_t *row;
    char *xmp_text;        /* the XMP packet, NUL-terminated, for its iTXt chunk */
} png_context;

/* The iTXt keyword of an XMP packet (XMP Specification Part 3, 1.1.5). */
#define PNG_XMP_KEYWORD "XML:com.adobe.xmp"

static void on_png_error(png_structp png, png_const_charp message)
{
    png_context *context = png_get_error_ptr(png);
    snprintf(context->message, sizeof context->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message)
{
    png_context *context = png_get_error_ptr(png);
    gj2k_warn(context->warning, context->warning_user, "PNG: %s", message);
}

static void read_from_memory(png_structp png, png_bytep bytes, size_t count)
{
    png_context *context = png_get_io_ptr(png);
    if (count > context->size - context->position) {
        context->truncated = true;
        png_error(png, "the file ends early");
    }
    memcpy(bytes, context->data + context->position, count);
    context->position += count;
}

/* Which status a libpng error message stands for. */
static gj2k_status classify_read_error(const png_context *context)
{
    const char *m = context->message;
    if (context->truncated || strstr(m, "Not enough image data") != NULL)
        return GJ2K_ERROR_TRUNCATED;
    if (strstr(m, "user limit") != NULL)
        return GJ2K_ERROR_LIMIT;
    if (strstr(m, "ut of memory") != NULL || strstr(m, "nsufficient memory") != NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    return GJ2K_ERROR_MALFORMED;
}

/* Stored sample `index` of a decoded row (packed depths were unpacked to bytes). */
static inline uint32_t row_sample(const uint8_t *row, size_t index, bool wide)
{
    return wide ? (uint32_t)((row[2 * index] << 8) | row[2 * index + 1]) : row[index];
}

/* sBIT (ISO/IEC 15948 11.3.3.4): precision `s` applies when 0 < s < depth and
 * no sample has any of the low (depth - s) bits set; the samples shift down. */
static void apply_significant_bits(gj2k_component *component, unsigned significant)
{
    if (significant == 0 || significant >= component->precision)
        return;
    unsigned shift = component->precision - significant;
    size_t count = (size_t)component->width * component->height;
    int32_t low = (int32_t)((1u << shift) - 1);
    for (size_t i = 0; i < count; i++)
        if ((component->samples[i] & low) != 0)
            return;
    for (size_t i = 0; i < count; i++)
        component->samples[i] >>= shift;
    component->precision = significant;
}

/* Fills the image from the decoded rows: PLTE lookup, and tRNS (11.3.2.1) as
 * an alpha component: 0 where a pixel matches it, else opaque. */
static void convert_rows(png_context *context, int color_type, unsigned depth)
{
    png_structp png = context->png;
    png_infop info = context->info;
    gj2k_image *image = context->image;
    uint32_t width = image->x1, height = image->y1;
    bool wide = depth == 16;
    uint32_t max = (1u << depth) - 1;
    png_colorp palette = NULL;
    int palette_size = 0;
    png_bytep trans_alpha = NULL;
    int trans_count = 0;
    png_color_16p trans = NULL;
    bool has_trns = png_get_tRNS(png, info, &trans_alpha, &trans_count, &trans) != 0;
    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_get_PLTE(png, info, &palette, &palette_size);

    unsigned channels = png_get_channels(png, info);
    size_t bad_indices = 0;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *row = context->rows[y];
        for (uint32_t x = 0; x < width; x++) {
            size_t at = (size_t)y * width + x, first = (size_t)x * channels;
            if (color_type == PNG_COLOR_TYPE_PALETTE) {
                uint32_t index = row[x];
                png_color entry = {0, 0, 0};
                if ((int)index < palette_size)
                    entry = palette[index];
                else
                    bad_indices++;
                image->components[0].samples[at] = entry.red;
                image->components[1].samples[at] = entry.green;
                image->components[2].samples[at] = entry.blue;
                if (image->num_components == 4)
                    image->components[3].samples[at] =
                        (int)index < trans_count ? trans_alpha[index] : 255;
                continue;
            }
            for (unsigned c = 0; c < channels; c++)
                image->components[c].samples[at] = (int32_t)row_sample(row, first + c, wide);
            if (has_trns && channels < image->num_components) {
                bool clear;
                if (channels == 1)
                    clear = row_sample(row, first, wide) == trans->gray;
                else
                    clear = row_sample(row, first, wide) == trans->red &&
                            row_sample(row, first + 1, wide) == trans->green &&
                            row_sample(row, first + 2, wide) == trans->blue;
                image->components[channels].samples[at] = clear ? 0 : (int32_t)max;
            }
        }
    }
    if (bad_indices > 0)
        gj2k_warn(context->warning, context->warning_user,
                  "PNG: %zu pixels index past the %d-entry palette (read as black)", bad_indices,
                  palette_size);
}

/* Reads the whole file; libpng errors longjmp out of here to read_guarded. */
static gj2k_status read_body(png_context *context, gj2k_error *error)
{
    png_structp png = context->png;
    png_infop info = context->info;
    png_read_info(png, info);

    png_uint_32 width, height;
    int depth, color_type, interlace;
    png_get_IHDR(png, info, &width, &height, &depth, &color_type, &interlace, NULL, NULL);

    bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    uint32_t components;
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: components = has_trns ? 2 : 1; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: components = 2; break;
    case PNG_COLOR_TYPE_RGB: components = has_trns ? 4 : 3; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: components = 4; break;
    case PNG_COLOR_TYPE_PALETTE: components = has_trns ? 4 : 3; break;
    default:
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNG: colour type %d", color_type);
    }
    uint32_t precision = color_type == PNG_COLOR_TYPE_PALETTE ? 8 : (uint32_t)depth;
    gj2k_component_info component_info[4];
    for (uint32_t c = 0; c < components; c++)
        component_info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    uint64_t samples = image_sample_count(0, 0, width, height, components, component_info);
    gj2k_status status = image_check_sample_budget(context->options, samples, context->size,
                                                   IMAGE_MAX_SAMPLES_PER_FILE_BYTE, error);
    if (status != GJ2K_OK)
        return status;

    if (depth < 8)
        png_set_packing(png); /* one byte per sample, values unscaled */
    png_set_interlace_handling(png); /* Adam7 (8.2): png_read_image combines the passes */
    png_read_update_info(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    if (row_bytes == 0 || row_bytes > SIZE_MAX / height)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "PNG: rows of %zu bytes", row_bytes);

    status = gj2k_image_create(&context->image, 0, 0, width, height, components,
                               component_info, error);
    if (status != GJ2K_OK)
        return status;
    context->pixels = malloc(row_bytes * height);
    context->rows = malloc(sizeof *context->rows * height);
    if (context->pixels == NULL || context->rows == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PNG: out of memory for %ux%u pixels",
                         (unsigned)width, (unsigned)height);
    for (uint32_t y = 0; y < height; y++)
        context->rows[y] = context->pixels + (size_t)y * row_bytes;
    png_read_image(png, context->rows);
    png_read_end(png, NULL);

    gj2k_image *image = context->image;
    convert_rows(context, color_type, (unsigned)depth);
    bool grey = (color_type & PNG_COLOR_MASK_COLOR) == 0;
    image->color_space = grey ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
    if (components == 2 || components == 4)
        image->components[components - 1].role = GJ2K_ROLE_OPACITY;

    png_color_8p sbit;
    if (png_get_sBIT(png, info, &sbit) != 0) {
        unsigned colour[3] = {sbit->red, sbit->green, sbit->blue};
        uint32_t colours = grey ? 1 : 3;
        if (grey)
            colour[0] = sbit->gray;
        for (uint32_t c = 0; c < colours; c++)
            apply_significant_bits(&image->components[c], colour[c]);
        if (color_type & PNG_COLOR_MASK_ALPHA)
            apply_significant_bits(&image->components[components - 1], sbit->alpha);
    }

    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_size;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_size) != 0 &&
        profile_size > 0) {
        status = gj2k_image_set_icc_profile(image, profile, profile_size, error);
        if (status != GJ2K_OK)
            return status;
    }
    /* gAMA and cHRM, unless iCCP or sRGB says it already: sRGB's values are
     * sRGB; others become the ICC profile they describe (or a warning) */
    png_chromaticity chromaticity = {0};
    if (png_get_valid(png, info, PNG_INFO_iCCP | PNG_INFO_sRGB) == 0 &&
        (png_get_gAMA(png, info, &chromaticity.gamma) |
         (chromaticity.has_primaries = png_get_cHRM(
              png, info, &chromaticity.white[0], &chromaticity.white[1], &chromaticity.red[0],
              &chromaticity.red[1], &chromaticity.green[0], &chromaticity.green[1],
              &chromaticity.blue[0], &chromaticity.blue[1]) != 0)) != 0 &&
        !png_chromaticity_is_srgb(&chromaticity)) {
        uint8_t *made = NULL;
        size_t made_size = 0;
        gj2k_error why = {0};
        if (png_chromaticity_profile(&chromaticity, grey, &made, &made_size, &why) == GJ2K_OK) {
            status = gj2k_image_set_icc_profile(image, made, made_size, error);
            free(made);
            if (status != GJ2K_OK)
                return status;
        } else {
            gj2k_warn(context->warning, context->warning_user,
                      "PNG: gAMA/cHRM are not carried (%s); the image is taken as sRGB",
                      why.message);
        }
    }
    png_uint_32 res_x, res_y; /* pHYs (11.3.5.3) in pixels per metre only */
    int unit;
    if (png_get_pHYs(png, info, &res_x, &res_y, &unit) != 0 && unit == PNG_RESOLUTION_METER &&
        res_x > 0 && res_y > 0) {
        image->resolution_x = res_x;
        image->resolution_y = res_y;
    }
    png_textp texts;
    int num_texts = 0;
    png_get_text(png, info, &texts, &num_texts);
    for (int i = 0; i < num_texts && image->xmp == NULL; i++)
        if (strcmp(texts[i].key, PNG_XMP_KEYWORD) == 0 && texts[i].text != NULL) {
            size_t length = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE
                                ? texts[i].itxt_length : texts[i].text_length;
            status = gj2k_image_set_metadata(image, GJ2K_METADATA_XMP,
                                             (const uint8_t *)texts[i].text, length, error);
            if (status != GJ2K_OK)
                return status;
        }
    png_uint_32 exif_size = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &exif_size, &exif) != 0 && exif != NULL && exif_size > 0)
        return gj2k_image_set_metadata(image, GJ2K_METADATA_EXIF, exif, exif_size, error);
    return GJ2K_OK;
}

/* The only function that calls setjmp; it changes none of its own locals. */
static gj2k_status read_guarded(png_context *context, gj2k_error *error)
{
    if (setjmp(png_jmpbuf(context->png)))
        return gj2k_fail(error, classify_read_error(context), "PNG: %s", context->message);
    return read_body(context, error);
}

gj2k_status png_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "PNG: no PNG signature");
    png_context context = {.warning = options->warning, .warning_user = options->warning_user,
                           .data = data, .size = size, .options = options};
    context.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                         on_png_warning);
    if (context.png != NULL)
        context.info = png_create_info_struct(context.png);
    if (context.info == NULL) {
        png_destroy_read_struct(&context.png, NULL, NULL);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PNG: out of memory");
    }
    png_set_read_fn(context.png, &context, read_from_memory);
    /* The sample budget bounds the image; these bound libpng's own buffers. */
    png_set_user_limits(context.png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_chunk_malloc_max(context.png, PNG_CHUNK_MALLOC_MAX);

    gj2k_status status = read_guarded(&context, error);
    png_destroy_read_struct(&context.png, &context.info, NULL);
    free(context.pixels);
    free(context.rows);
    if (status != GJ2K_OK) {
        gj2k_image_destroy(context.image);
        return status;
    }
    *out = context.image;
    return GJ2K_OK;
}

/* ---------------------------------------------------------------- writing */

static void write_to_buffer(png_structp png, png_bytep bytes, size_t count)
{
    png_context *context = png_get_io_ptr(png);
    byte_buffer_append(context->out, bytes, count);
    if (context->out->failed)
        png_error(png, "out of memory for the output");
}

static void flush_nothing(png_structp png) { (void)png; }

/* Checks what PNG can hold: 1..4 components of one size and <= 16 bits. */
static gj2k_status check_writable(const gj2k_image *image, gj2k_error *error)
{
    if (image->num_components < 1 || image->num_components > 4)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "PNG holds 1 to 4 components; this image has %u", image->num_components);
    const gj2k_component *first = &image->components[0];
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->width != first->width || comp->height != first->height)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "PNG needs components of one size; component %u is %ux%u, "
                             "component 0 %ux%u", c, comp->width, comp->height, first->width,
                             first->height);
        if (comp->precision > 16)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "PNG holds at most 16 bits a sample; component %u has %u", c,
                             comp->precision);
        if (comp->samples == NULL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u has no samples", c);
    }
    if (first->width == 0 || first->height == 0 || first->width > PNG_UINT_31_MAX ||
        first->height > PNG_UINT_31_MAX)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "PNG cannot hold a %ux%u image",
                         first->width, first->height);
    return GJ2K_OK;
}

/* The bit depth a PNG of these components is written at. */
static unsigned written_depth(const gj2k_image *image)
{
    uint32_t deepest = 0;
    for (uint32_t c = 0; c < image->num_components; c++)
        if (image->components[c].precision > deepest)
            deepest = image->components[c].precision;
    if (image->num_components == 1 && (deepest == 1 || deepest == 2 || deepest == 4))
        return deepest;
    return deepest <= 8 ? 8 : 16;
}

/* Emits the file; libpng errors longjmp out of here to write_guarded. */
static void write_body(png_context *context, unsigned depth, size_t *clamped)
{
    png_structp png = context->png;
    png_infop info = context->info;
    const gj2k_image *image = context->source;
    uint32_t count = image->num_components;
    uint32_t width = image->components[0].width, height = image->components[0].height;
    static const int color_types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_IHDR(png, info, width, height, (int)depth, color_types[count - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);

    /* sBIT records each component's precision where it is not the depth;
     * the samples are shifted up to the depth (11.3.3.4). */
    bool shifted = false;
    unsigned bits[4];
    for (uint32_t c = 0; c < count; c++) {
        bits[c] = image->components[c].precision;
        shifted |= bits[c] != depth;
    }
    if (shifted) {
        png_color_8 sbit = {0};
        if (count <= 2) {
            sbit.gray = (png_byte)bits[0];
            sbit.alpha = (png_byte)(count == 2 ? bits[1] : 0);
        } else {
            sbit.red = (png_byte)bits[0];
            sbit.green = (png_byte)bits[1];
            sbit.blue = (png_byte)bits[2];
            sbit.alpha = (png_byte)(count == 4 ? bits[3] : 0);
        }
        png_set_sBIT(png, info, &sbit);
    }
    if (image->icc_profile != NULL && image->icc_profile_size > 0) {
        png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, image->icc_profile,
                     (png_uint_32)image->icc_profile_size);
        if (png_get_valid(png, info, PNG_INFO_iCCP) == 0)
            gj2k_warn(context->warning, context->warning_user,
                      "PNG: libpng refused the ICC profile; it is left out");
    }
    if (image->resolution_x > 0 && image->resolution_y > 0 &&
        image->resolution_x < PNG_UINT_31_MAX && image->resolution_y < PNG_UINT_31_MAX)
        png_set_pHYs(png, info, (png_uint_32)(image->resolution_x + 0.5),
                     (png_uint_32)(image->resolution_y + 0.5), PNG_RESOLUTION_METER);
    if (context->xmp_text != NULL) {
        png_text text = {.compression = PNG_ITXT_COMPRESSION_NONE, .key = PNG_XMP_KEYWORD,
                         .text = context->xmp_text, .itxt_length = strlen(context->xmp_text)};
        png_set_text(png, info, &text, 1);
    }
    if (image->exif != NULL && image->exif_size > 0 && image->exif_size <= PNG_UINT_31_MAX)
        png_set_eXIf_1(png, info, (png_uint_32)image->exif_size, image->exif);
    png_write_info(png, info);

    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = context->row;
        if (depth < 8)
            memset(row, 0, ((size_t)width * depth + 7) / 8);
        for (uint32_t x = 0; x < width; x++) {
            for (uint32_t c = 0; c < count; c++) {
                const gj2k_component *comp = &image->components[c];
                int64_t v = comp->samples[(size_t)y * width + x];
                if (comp->is_signed)
                    v += (int64_t)1 << (comp->precision - 1);
                int64_t max = ((int64_t)1 << comp->precision) - 1;
                if (v < 0 || v > max) {
                    v = v < 0 ? 0 : max;
                    (*clamped)++;
                }
                uint32_t stored = (uint32_t)v << (depth - comp->precision);
                size_t index = (size_t)x * count + c;
                if (depth == 16) {
                    row[2 * index] = (uint8_t)(stored >> 8);
                    row[2 * index + 1] = (uint8_t)stored;
                } else if (depth == 8) {
                    row[index] = (uint8_t)stored;
                } else { /* 1, 2 or 4 bits, MSB first */
                    size_t bit = index * depth;
                    row[bit / 8] |= (uint8_t)(stored << (8 - depth - bit % 8));
                }
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
}

/* The only function that calls setjmp; it changes none of its own locals. */
static bool write_guarded(png_context *context, unsigned depth, size_t *clamped)
{
    if (setjmp(png_jmpbuf(context->png)))
        return false;
    write_body(context, depth, clamped);
    return true;
}

gj2k_status png_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error)
{
    gj2k_status status = check_writable(image, error);
    if (status != GJ2K_OK)
        return status;
    unsigned depth = written_depth(image);
    uint32_t width = image->components[0].width;
    for (uint32_t c = 0; c < image->num_components; c++)
        if (image->components[c].is_signed) {
            gj2k_warn(options->warning, options->warning_user,
                      "PNG: signed samples are stored offset by 2^(precision-1) as unsigned");
            break;
        }
    uint32_t last = image->num_components - 1;
    if (last % 2 == 1 && image->components[last].role == GJ2K_ROLE_PREMULTIPLIED_OPACITY)
        gj2k_warn(options->warning, options->warning_user,
                  "PNG: premultiplied opacity is stored as PNG's straight alpha, unchanged");
    else if (last % 2 == 1 && image->components[last].role == GJ2K_ROLE_COLOR)
        gj2k_warn(options->warning, options->warning_user,
                  "PNG: component %u is not opacity but is stored as alpha", last);

    png_context context = {.warning = options->warning, .warning_user = options->warning_user,
                           .out = out, .source = image};
    if (image->iptc != NULL)
        gj2k_warn(options->warning, options->warning_user,
                  "PNG: IPTC metadata has no PNG chunk; it is left out (JP2 and TIFF keep it)");
    size_t row_bytes = (size_t)width * image->num_components * (depth == 16 ? 2 : 1);
    context.row = malloc(row_bytes);
    if (image->xmp != NULL && image->xmp_size > 0) { /* its text, NUL-terminated */
        context.xmp_text = malloc(image->xmp_size + 1);
        if (context.xmp_text == NULL) {
            free(context.row);
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PNG: out of memory");
        }
        memcpy(context.xmp_text, image->xmp, image->xmp_size);
        context.xmp_text[image->xmp_size] = '\0';
    }
    context.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                          on_png_warning);
    if (context.png != NULL)
        context.info = png_create_info_struct(context.png);
    if (context.info == NULL || context.row == NULL) {
        png_destroy_write_struct(&context.png, NULL);
        free(context.row);
        free(context.xmp_text);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "PNG: out of memory");
    }
    png_set_write_fn(context.png, &context, write_to_buffer, flush_nothing);
    /* libpng's checks of what we hand it (an ICC profile it finds invalid)
     * warn instead of failing the write */
    png_set_benign_errors(context.png, 1);
    size_t clamped = 0;
    bool written = write_guarded(&context, depth, &clamped);
    png_destroy_write_struct(&context.png, &context.info);
    free(context.row);
    free(context.xmp_text);
    if (!written)
        return gj2k_fail(error, out->failed ? GJ2K_ERROR_OUT_OF_MEMORY
                                            : GJ2K_ERROR_INVALID_ARGUMENT,
                         "PNG: %s", context.message);
    if (clamped > 0)
        gj2k_warn(options->warning, options->warning_user,
                  "PNG: %zu samples outside their precision's range were clamped", clamped);
    return GJ2K_OK;
}
