/* format_tiff.c - TIFF 6.0 through libtiff (>= 4.5), both ways in memory.
 *
 * Reading takes the first directory: 1..16 bits a sample (packed MSB first,
 * rows padded to a byte), 1..4 samples a pixel, chunky or planar, strips or
 * tiles, any compression libtiff decodes; grey (min-is-black or -white), RGB
 * and palette. Errors and warnings reach per-handle handlers given through
 * TIFFOpenOptions, never the process-global ones. */
#include "error.h"
#include "image_formats.h"
#include "tiff_metadata.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

/* libtiff may not allocate more than this at once beyond the file's size. */
#define TIFF_ALLOC_MARGIN ((tmsize_t)64 << 20)
/* A strip or tile buffer may always be this large (tiles can exceed the image). */
#define TIFF_BLOCK_FLOOR ((uint64_t)64 << 20)
/* Written strips hold about this many bytes (uncompressed). */
#define TIFF_STRIP_TARGET 65536u

/* What libtiff's per-handle handlers report into. */
typedef struct tiff_messages {
    gj2k_warning_fn warning;
    void *warning_user;
    char error[200]; /* the first error */
} tiff_messages;

static int on_tiff_error(TIFF *tiff, void *user, const char *module, const char *format,
                         va_list args)
{
    (void)tiff;
    tiff_messages *messages = user;
    if (messages->error[0] == '\0') {
        char text[180];
        vsnprintf(text, sizeof text, format, args);
        snprintf(messages->error, sizeof messages->error, "%s%s%s", module ? module : "",
                 module ? ": " : "", text);
    }
    return 1; /* handled: libtiff calls no global handler */
}

static int on_tiff_warning(TIFF *tiff, void *user, const char *module, const char *format,
                           va_list args)
{
    (void)tiff;
    (void)module;
    tiff_messages *messages = user;
    if (messages->warning != NULL) {
        char text[200];
        vsnprintf(text, sizeof text, format, args);
        gj2k_warn(messages->warning, messages->warning_user, "TIFF: %s", text);
    }
    return 1;
}

static TIFFOpenOptions *open_options(tiff_messages *messages, tmsize_t max_alloc)
{
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_tiff_error, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_tiff_warning, messages);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, max_alloc);
    return options;
}

static int map_nothing(thandle_t handle, void **base, toff_t *size)
{
    (void)handle;
    (void)base;
    (void)size;
    return 0;
}

static void unmap_nothing(thandle_t handle, void *base, toff_t size)
{
    (void)handle;
    (void)base;
    (void)size;
}

static int close_nothing(thandle_t handle)
{
    (void)handle;
    return 0;
}

/* New position for a seek, or false when it falls outside 0..limit. */
static bool seek_target(size_t position, size_t size, toff_t offset, int whence, size_t limit,
                        size_t *target)
{
    uint64_t base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = position; break;
    case SEEK_END: base = size; break;
    default: return false;
    }
    uint64_t to = base + offset; /* a negative offset arrives wrapped modulo 2^64 */
    if (to > limit)
        return false;
    *target = (size_t)to;
    return true;
}

/* ---------------------------------------------------------------- reading */

typedef struct tiff_source {
    const uint8_t *data;
    size_t size, position;
    bool short_read; /* a read asked for bytes past the end */
} tiff_source;

static tmsize_t source_read(thandle_t handle, void *bytes, tmsize_t count)
{
    tiff_source *source = handle;
    size_t left = source->position < source->size ? source->size - source->position : 0;
    size_t n = count < 0 ? 0 : (size_t)count;
    if (n > left) {
        n = left;
        source->short_read = true;
    }
    if (n > 0)
        memcpy(bytes, source->data + source->position, n);
    source->position += n;
    return (tmsize_t)n;
}

static tmsize_t source_write(thandle_t handle, void *bytes, tmsize_t count)
{
    (void)handle;
    (void)bytes;
    (void)count;
    return 0;
}

static toff_t source_seek(thandle_t handle, toff_t offset, int whence)
{
    tiff_source *source = handle;
    size_t target;
    if (!seek_target(source->position, source->size, offset, whence, SIZE_MAX / 2, &target))
        return (toff_t)-1;
    source->position = target;
    return target;
}

static toff_t source_size(thandle_t handle) { return ((tiff_source *)handle)->size; }

/* How the stored samples of a pixel become the image's components. */
typedef struct tiff_layout {
    uint32_t width, height;
    uint16_t bits, samples, planar;
    uint16_t photometric, compression;
    bool is_signed;
    const uint16_t *palette[3]; /* PHOTOMETRIC_PALETTE: 2^bits entries each */
    unsigned palette_shift;     /* 8 when the map is 8-bit values times 257 */
} tiff_layout;

static gj2k_status read_failure(const tiff_source *source, const tiff_messages *messages,
                                const char *what, gj2k_error *error)
{
    return gj2k_fail(error, source->short_read ? GJ2K_ERROR_TRUNCATED : GJ2K_ERROR_MALFORMED,
                     "TIFF: %s%s%s", what, messages->error[0] ? ": " : "", messages->error);
}

/* Unpacks `count` samples of `bits` bits, packed MSB first with no padding
 * inside a row (TIFF 6.0 section 2, BitsPerSample). */
static void unpack_samples(const uint8_t *row, size_t count, unsigned bits, uint32_t *values)
{
    if (bits == 8) {
        for (size_t i = 0; i < count; i++)
            values[i] = row[i];
    } else if (bits == 16) { /* libtiff already swapped these to host order */
        for (size_t i = 0; i < count; i++) {
            uint16_t v;
            memcpy(&v, row + 2 * i, 2);
            values[i] = v;
        }
    } else {
        uint32_t accumulator = 0, mask = (1u << bits) - 1;
        unsigned held = 0;
        for (size_t i = 0; i < count; i++) {
            while (held < bits) {
                accumulator = (accumulator << 8) | *row++;
                held += 8;
            }
            held -= bits;
            values[i] = (accumulator >> held) & mask;
        }
    }
}

/* Stores stored sample `sample` (0..samples-1) of one pixel at `at`. */
static inline void store_sample(gj2k_image *image, const tiff_layout *layout, uint32_t sample,
                                size_t at, uint32_t raw)
{
    if (layout->palette[0] != NULL) {
        if (sample == 0) {
            for (int c = 0; c < 3; c++)
                image->components[c].samples[at] = layout->palette[c][raw] >> layout->palette_shift;
            return;
        }
        image->components[sample + 2].samples[at] = (int32_t)raw;
        return;
    }
    int32_t v = (int32_t)raw;
    if (layout->is_signed && (raw >> (layout->bits - 1)) != 0)
        v -= (int32_t)(1u << layout->bits); /* sign extension from `bits` */
    if (layout->photometric == PHOTOMETRIC_MINISWHITE && sample == 0)
        v = layout->is_signed ? -1 - v : (int32_t)((1u << layout->bits) - 1) - v;
    image->components[sample].samples[at] = v;
}

/* Distributes one unpacked block row: `pixels` pixels starting at column x0
 * of row y; plane < 0 means chunky (every sample of each pixel). */
static void store_row(gj2k_image *image, const tiff_layout *layout, const uint32_t *values,
                      uint32_t x0, uint32_t pixels, uint32_t y, int plane)
{
    size_t at = (size_t)y * layout->width + x0;
    if (plane >= 0) {
        for (uint32_t x = 0; x < pixels; x++)
            store_sample(image, layout, (uint32_t)plane, at + x, values[x]);
        return;
    }
    for (uint32_t x = 0; x < pixels; x++)
        for (uint32_t s = 0; s < layout->samples; s++)
            store_sample(image, layout, s, at + x, values[(size_t)x * layout->samples + s]);
}

/* Bytes of a block row of `pixels` pixels: whole pixels, padded to a byte. */
static uint64_t block_row_bytes(const tiff_layout *layout, uint64_t pixels)
{
    uint64_t per_pixel = layout->planar == PLANARCONFIG_SEPARATE ? 1 : layout->samples;
    return (pixels * per_pixel * layout->bits + 7) / 8;
}

/* Reads every strip or tile into the image. */
static gj2k_status read_blocks(TIFF *tiff, const tiff_layout *layout, gj2k_image *image,
                               const tiff_source *source, const tiff_messages *messages,
                               gj2k_error *error)
{
    bool tiled = TIFFIsTiled(tiff) != 0;
    uint32_t block_width = layout->width, block_height = 0;
    if (tiled) {
        TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &block_width);
        TIFFGetField(tiff, TIFFTAG_TILELENGTH, &block_height);
        if (block_width == 0 || block_height == 0)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TIFF: tiles of %ux%u", block_width,
                             block_height);
    } else {
        TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &block_height);
        if (block_height == 0 || block_height > layout->height)
            block_height = layout->height;
    }
    /* The block and one row of unpacked values may not cost much more than
     * the image itself (tiles may overhang it) or TIFF_BLOCK_FLOOR. */
    uint64_t per_pixel = layout->planar == PLANARCONFIG_SEPARATE ? 1 : layout->samples;
    uint64_t row_bytes = block_row_bytes(layout, block_width);
    uint64_t row_values = (uint64_t)block_width * per_pixel;
    if (row_bytes > UINT64_MAX / 8 / block_height)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "TIFF: blocks of %ux%u pixels", block_width,
                         block_height);
    uint64_t block_bytes = row_bytes * block_height;
    uint64_t block_cost = block_bytes + row_values * sizeof(uint32_t);
    uint64_t image_cost = block_row_bytes(layout, layout->width) * layout->height *
                              (layout->planar == PLANARCONFIG_SEPARATE ? layout->samples : 1) +
                          (uint64_t)layout->width * per_pixel * sizeof(uint32_t);
    if (block_cost > TIFF_BLOCK_FLOOR && block_cost > 2 * image_cost)
        return gj2k_fail(error, GJ2K_ERROR_LIMIT, "TIFF: %s of %ux%u pixels is too large",
                         tiled ? "a tile" : "a strip", block_width, block_height);
    if (tiled && (uint64_t)TIFFTileSize64(tiff) != block_bytes)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TIFF: tile size %llu, expected %llu",
                         (unsigned long long)TIFFTileSize64(tiff),
                         (unsigned long long)block_bytes);

    uint8_t *block = malloc((size_t)block_bytes);
    uint32_t *values = malloc((size_t)row_values * sizeof *values);
    if (block == NULL || values == NULL) {
        free(block);
        free(values);
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TIFF: out of memory for a %s",
                         tiled ? "tile" : "strip");
    }
    gj2k_status status = GJ2K_OK;
    int planes = layout->planar == PLANARCONFIG_SEPARATE ? layout->samples : 1;
    /* 64-bit positions: a step past 2^32 - 1 must end the loops, not wrap */
    for (int plane = 0; plane < planes && status == GJ2K_OK; plane++) {
        for (uint64_t y0 = 0; y0 < layout->height && status == GJ2K_OK; y0 += block_height) {
            uint32_t rows = (uint32_t)(layout->height - y0 < block_height ? layout->height - y0
                                                                          : block_height);
            for (uint64_t x0 = 0; x0 < layout->width; x0 += block_width) {
                uint32_t pixels = (uint32_t)(layout->width - x0 < block_width ? layout->width - x0
                                                                              : block_width);
                tmsize_t want = (tmsize_t)(tiled ? block_bytes : row_bytes * rows);
                tmsize_t got;
                if (tiled)
                    got = TIFFReadEncodedTile(tiff, TIFFComputeTile(tiff, (uint32_t)x0,
                                                                    (uint32_t)y0, 0,
                                                                    (uint16_t)plane),
                                              block, want);
                else
                    got = TIFFReadEncodedStrip(tiff, TIFFComputeStrip(tiff, (uint32_t)y0,
                                                                      (uint16_t)plane),
                                               block, want);
                if (got != want) {
                    char what[80];
                    snprintf(what, sizeof what, "cannot decode the %s at row %llu",
                             tiled ? "tile" : "strip", (unsigned long long)y0);
                    status = read_failure(source, messages, what, error);
                    break;
                }
                for (uint32_t r = 0; r < rows; r++) {
                    unpack_samples(block + r * row_bytes, (size_t)(pixels * per_pixel),
                                   layout->bits, values);
                    store_row(image, layout, values, (uint32_t)x0, pixels, (uint32_t)(y0 + r),
                              layout->planar == PLANARCONFIG_SEPARATE ? plane : -1);
                }
            }
        }
    }
    free(block);
    free(values);
    return status;
}

/* Names the photometric interpretations gj2k does not read. */
static const char *photometric_name(uint16_t photometric)
{
    switch (photometric) {
    case PHOTOMETRIC_MASK: return "transparency mask";
    case PHOTOMETRIC_SEPARATED: return "CMYK (separated)";
    case PHOTOMETRIC_YCBCR: return "YCbCr";
    case PHOTOMETRIC_CIELAB: return "CIE L*a*b*";
    case PHOTOMETRIC_ICCLAB: return "ICC L*a*b*";
    case PHOTOMETRIC_ITULAB: return "ITU L*a*b*";
    case PHOTOMETRIC_CFA: return "colour filter array";
    case PHOTOMETRIC_LOGL: return "LogL";
    case PHOTOMETRIC_LOGLUV: return "LogLuv";
    default: return "unknown";
    }
}

/* Reads the first directory's tags into a layout; fails on what gj2k cannot
 * read. SampleFormat: section 19; palette (ColorMap): section 5. */
static gj2k_status read_layout(TIFF *tiff, tiff_layout *layout, uint32_t *components,
                               gj2k_error *error)
{
    uint16_t format = SAMPLEFORMAT_UINT, compression = COMPRESSION_NONE;
    layout->compression = COMPRESSION_NONE;
    if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &layout->width) ||
        !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &layout->height) || layout->width == 0 ||
        layout->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TIFF: no image size");
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &layout->bits);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &layout->samples);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &layout->planar);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &compression);
    if (!TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &layout->photometric))
        layout->photometric = layout->samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;

    if (format == SAMPLEFORMAT_IEEEFP || format == SAMPLEFORMAT_COMPLEXIEEEFP ||
        format == SAMPLEFORMAT_COMPLEXINT)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF: %s samples are not supported",
                         format == SAMPLEFORMAT_IEEEFP ? "floating-point" : "complex");
    if (layout->bits < 1 || layout->bits > 16)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF: %u bits a sample (1..16 supported)", layout->bits);
    if (layout->samples < 1 || layout->samples > 4)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF: %u samples a pixel (1..4 supported)", layout->samples);
    if (layout->planar != PLANARCONFIG_CONTIG && layout->planar != PLANARCONFIG_SEPARATE)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TIFF: planar configuration %u",
                         layout->planar);
    if (!TIFFIsCODECConfigured(compression)) {
        const TIFFCodec *codec = TIFFFindCODEC(compression);
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF: compression %u (%s) is not available in this libtiff",
                         compression, codec ? codec->name : "unknown");
    }
    layout->is_signed = format == SAMPLEFORMAT_INT;
    layout->compression = compression;

    uint32_t colours;
    switch (layout->photometric) {
    case PHOTOMETRIC_MINISBLACK:
    case PHOTOMETRIC_MINISWHITE: colours = 1; break;
    case PHOTOMETRIC_RGB: colours = 3; break;
    case PHOTOMETRIC_PALETTE: colours = 1; break;
    default:
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF: photometric interpretation %u (%s) is not supported",
                         layout->photometric, photometric_name(layout->photometric));
    }
    if (layout->samples < colours)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "TIFF: %u samples a pixel for RGB", layout->samples);
    *components = layout->samples;
    if (layout->photometric == PHOTOMETRIC_PALETTE) {
        uint16_t *maps[3];
        if (!TIFFGetField(tiff, TIFFTAG_COLORMAP, &maps[0], &maps[1], &maps[2]))
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TIFF: palette image without a colour map");
        bool eight_bit = true;
        for (uint32_t c = 0; c < 3; c++) {
            layout->palette[c] = maps[c];
            for (uint32_t i = 0; i < (1u << layout->bits); i++)
                eight_bit = eight_bit && maps[c][i] % 257 == 0;
        }
        layout->palette_shift = 0;
        layout->is_signed = false; /* indices */
        if (eight_bit)
            layout->palette_shift = 8; /* v * 257 >> 8 == v for v <= 255 */
        *components = layout->samples + 2;
    }
    return GJ2K_OK;
}

/* Component roles from ExtraSamples (TIFF 6.0 section 18), the ICC profile
 * (tag 34675) and the resolution (sections 3 and 8) in pixels per metre. */
static gj2k_status read_extras(TIFF *tiff, const tiff_layout *layout, gj2k_image *image,
                               gj2k_error *error)
{
    uint32_t colours = layout->photometric == PHOTOMETRIC_RGB ? 3 : 1;
    uint32_t first_extra = layout->palette[0] != NULL ? 3 : colours;
    uint16_t extra_count = 0;
    uint16_t *extras = NULL;
    TIFFGetField(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extras);
    for (uint32_t e = 0; first_extra + e < image->num_components && e < extra_count; e++) {
        gj2k_component *comp = &image->components[first_extra + e];
        if (extras[e] == EXTRASAMPLE_ASSOCALPHA)
            comp->role = GJ2K_ROLE_PREMULTIPLIED_OPACITY;
        else if (extras[e] == EXTRASAMPLE_UNASSALPHA)
            comp->role = GJ2K_ROLE_OPACITY;
    }
    image->color_space = colours == 1 && layout->palette[0] == NULL ? GJ2K_COLOR_GRAY
                                                                    : GJ2K_COLOR_SRGB;
    float res_x = 0, res_y = 0;
    uint16_t unit = RESUNIT_INCH;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_RESOLUTIONUNIT, &unit);
    if (TIFFGetField(tiff, TIFFTAG_XRESOLUTION, &res_x) &&
        TIFFGetField(tiff, TIFFTAG_YRESOLUTION, &res_y) && isfinite(res_x) && isfinite(res_y) &&
        res_x > 0 && res_y > 0 && (unit == RESUNIT_INCH || unit == RESUNIT_CENTIMETER)) {
        double per_metre = unit == RESUNIT_INCH ? 1 / 0.0254 : 100;
        image->resolution_x = res_x * per_metre;
        image->resolution_y = res_y * per_metre;
    }
    uint32_t icc_size = 0;
    void *icc = NULL;
    if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc != NULL && icc_size > 0)
        return gj2k_image_set_icc_profile(image, icc, icc_size, error);
    return GJ2K_OK;
}

static gj2k_status read_image(TIFF *tiff, const tiff_source *source,
                              const tiff_messages *messages, const gj2k_read_options *options,
                              gj2k_image **out, gj2k_error *error)
{
    tiff_layout layout = {0};
    uint32_t components = 0;
    gj2k_status status = read_layout(tiff, &layout, &components, error);
    if (status != GJ2K_OK)
        return status;
    gj2k_component_info info[6];
    for (uint32_t c = 0; c < components; c++) {
        bool mapped = layout.palette[0] != NULL && c < 3;
        info[c] = (gj2k_component_info){
            .dx = 1, .dy = 1, .is_signed = layout.is_signed,
            .precision = mapped ? 16 - layout.palette_shift : layout.bits};
    }
    uint64_t samples = image_sample_count(0, 0, layout.width, layout.height, components, info);
    status = image_check_sample_budget(options, samples, source->size,
                                       IMAGE_MAX_SAMPLES_PER_FILE_BYTE, error);
    if (status != GJ2K_OK)
        return status;
    /* Uncompressed pixels must all be in the file: refuse before allocating. */
    uint64_t stored = block_row_bytes(&layout, layout.width) * layout.height *
                      (layout.planar == PLANARCONFIG_SEPARATE ? layout.samples : 1);
    if (layout.compression == COMPRESSION_NONE && stored > source->size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "TIFF: %llu bytes of uncompressed pixels cannot fit in a %zu-byte file",
                         (unsigned long long)stored, source->size);
    gj2k_image *image;
    status = gj2k_image_create(&image, 0, 0, layout.width, layout.height, components, info, error);
    if (status != GJ2K_OK)
        return status;
    status = read_blocks(tiff, &layout, image, source, messages, error);
    if (status == GJ2K_OK)
        status = read_extras(tiff, &layout, image, error);
    if (status == GJ2K_OK)
        status = tiff_metadata_read(tiff, image, messages->warning, messages->warning_user, error);
    if (status != GJ2K_OK) {
        gj2k_image_destroy(image);
        return status;
    }
    *out = image;
    return GJ2K_OK;
}

gj2k_status tiff_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                      gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    tiff_source source = {.data = data, .size = size};
    tiff_messages messages = {.warning = options->warning, .warning_user = options->warning_user};
    tmsize_t max_alloc = size < (size_t)(INT64_MAX / 2) ? (tmsize_t)size + TIFF_ALLOC_MARGIN
                                                       : INT64_MAX / 2;
    TIFFOpenOptions *open = open_options(&messages, max_alloc);
    if (open == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TIFF: out of memory");
    /* "m": no memory mapping, every byte goes through source_read */
    TIFF *tiff = TIFFClientOpenExt("memory", "rm", &source, source_read, source_write,
                                   source_seek, close_nothing, source_size, map_nothing,
                                   unmap_nothing, open);
    TIFFOpenOptionsFree(open);
    if (tiff == NULL)
        return read_failure(&source, &messages, "cannot open", error);
    gj2k_status status = read_image(tiff, &source, &messages, options, out, error);
    TIFFClose(tiff);
    return status;
}

/* ---------------------------------------------------------------- writing */

/* A growable in-memory file: writes past the end extend it (zero-filled),
 * seeks may go back and overwrite, reads return what was written. */
typedef struct tiff_sink {
    uint8_t *data;
    size_t size, capacity, position;
    bool failed;
} tiff_sink;

static tmsize_t sink_write(thandle_t handle, void *bytes, tmsize_t count)
{
    tiff_sink *sink = handle;
    if (count < 0 || sink->failed)
        return -1;
    size_t n = (size_t)count;
    if (n > SIZE_MAX / 4 - sink->position) {
        sink->failed = true;
        return -1;
    }
    size_t end = sink->position + n;
    if (end > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 65536;
        while (capacity < end)
            capacity *= 2;
        uint8_t *data = realloc(sink->data, capacity);
        if (data == NULL) {
            sink->failed = true;
            return -1;
        }
        sink->data = data;
        sink->capacity = capacity;
    }
    if (sink->position > sink->size)
        memset(sink->data + sink->size, 0, sink->position - sink->size);
    memcpy(sink->data + sink->position, bytes, n);
    sink->position = end;
    if (end > sink->size)
        sink->size = end;
    return count;
}

static tmsize_t sink_read(thandle_t handle, void *bytes, tmsize_t count)
{
    tiff_sink *sink = handle;
    size_t left = sink->position < sink->size ? sink->size - sink->position : 0;
    size_t n = count < 0 ? 0 : (size_t)count;
    if (n > left)
        n = left;
    if (n > 0)
        memcpy(bytes, sink->data + sink->position, n);
    sink->position += n;
    return (tmsize_t)n;
}

static toff_t sink_seek(thandle_t handle, toff_t offset, int whence)
{
    tiff_sink *sink = handle;
    size_t target;
    if (!seek_target(sink->position, sink->size, offset, whence, SIZE_MAX / 4, &target))
        return (toff_t)-1;
    sink->position = target;
    return target;
}

static toff_t sink_size(thandle_t handle) { return ((tiff_sink *)handle)->size; }

/* Checks what the writer can hold; sets the common depth and signedness. */
static gj2k_status check_writable(const gj2k_image *image, const gj2k_write_options *options,
                                  uint16_t *bits, bool *is_signed, gj2k_error *error)
{
    if (image->num_components < 1 || image->num_components > 4)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TIFF output holds 1 to 4 components; this image has %u",
                         image->num_components);
    const gj2k_component *first = &image->components[0];
    *bits = 0;
    *is_signed = first->is_signed;
    bool mixed = false;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        if (comp->width != first->width || comp->height != first->height)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "TIFF needs components of one size; component %u is %ux%u, "
                             "component 0 %ux%u", c, comp->width, comp->height, first->width,
                             first->height);
        if (comp->precision > 16)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "TIFF output holds at most 16 bits a sample; component %u has %u",
                             c, comp->precision);
        if (comp->is_signed != first->is_signed)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "TIFF cannot mix signed and unsigned components");
        if (comp->samples == NULL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "component %u has no samples", c);
        mixed |= comp->precision != first->precision;
        if (comp->precision > *bits)
            *bits = (uint16_t)comp->precision;
    }
    if (first->width == 0 || first->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "TIFF cannot hold an empty image");
    if (mixed)
        gj2k_warn(options->warning, options->warning_user,
                  "TIFF: components of different precisions are all written at %u bits", *bits);
    return GJ2K_OK;
}

/* Sets the directory's tags for the image. */
static void set_tags(TIFF *tiff, const gj2k_image *image, uint16_t bits, bool is_signed,
                     uint32_t rows_per_strip)
{
    uint32_t count = image->num_components;
    uint16_t colours = count >= 3 ? 3 : 1;
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, image->components[0].width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, image->components[0].height);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)count);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC,
                 colours == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_SAMPLEFORMAT, is_signed ? SAMPLEFORMAT_INT : SAMPLEFORMAT_UINT);
    TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
    if (TIFFIsCODECConfigured(COMPRESSION_ADOBE_DEFLATE)) {
        TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        if (bits == 8 || bits == 16)
            TIFFSetField(tiff, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    } else {
        TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    }
    if (count > colours) {
        uint16_t extras[3];
        for (uint32_t c = colours; c < count; c++) {
            gj2k_component_role role = image->components[c].role;
            extras[c - colours] = role == GJ2K_ROLE_OPACITY ? EXTRASAMPLE_UNASSALPHA
                                  : role == GJ2K_ROLE_PREMULTIPLIED_OPACITY
                                      ? EXTRASAMPLE_ASSOCALPHA
                                      : EXTRASAMPLE_UNSPECIFIED;
        }
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, (uint16_t)(count - colours), extras);
    }
    if (image->icc_profile != NULL && image->icc_profile_size > 0 &&
        image->icc_profile_size <= UINT32_MAX)
        TIFFSetField(tiff, TIFFTAG_ICCPROFILE, (uint32_t)image->icc_profile_size,
                     image->icc_profile);
    if (image->resolution_x > 0 && image->resolution_y > 0) {
        TIFFSetField(tiff, TIFFTAG_XRESOLUTION, image->resolution_x / 100);
        TIFFSetField(tiff, TIFFTAG_YRESOLUTION, image->resolution_y / 100);
        TIFFSetField(tiff, TIFFTAG_RESOLUTIONUNIT, RESUNIT_CENTIMETER);
    }
}

/* Packs rows [y0, y0 + rows) into `strip`; returns how many samples were clamped. */
static size_t pack_rows(const gj2k_image *image, uint16_t bits, uint32_t y0, uint32_t rows,
                        size_t row_bytes, uint8_t *strip)
{
    uint32_t count = image->num_components, width = image->components[0].width;
    uint32_t mask = (1u << bits) - 1;
    size_t clamped = 0;
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *row = strip + r * row_bytes;
        uint32_t accumulator = 0; /* pending bits for depths other than 8 and 16 */
        unsigned held = 0;
        for (uint32_t x = 0; x < width; x++) {
            for (uint32_t c = 0; c < count; c++) {
                const gj2k_component *comp = &image->components[c];
                int64_t v = comp->samples[(size_t)(y0 + r) * width + x];
                int64_t lo = image_sample_min(comp), hi = image_sample_max(comp);
                if (v < lo || v > hi) {
                    v = v < lo ? lo : hi;
                    clamped++;
                }
                uint32_t stored = (uint32_t)v & mask; /* two's complement when signed */
                if (bits == 8) {
                    *row++ = (uint8_t)stored;
                } else if (bits == 16) {
                    uint16_t s = (uint16_t)stored;
                    memcpy(row, &s, 2);
                    row += 2;
                } else { /* MSB first, across byte boundaries */
                    accumulator = (accumulator << bits) | stored;
                    held += bits;
                    while (held >= 8) {
                        held -= 8;
                        *row++ = (uint8_t)(accumulator >> held);
                    }
                }
            }
        }
        if (held > 0) /* pad the row's last byte with zero bits */
            *row = (uint8_t)(accumulator << (8 - held));
    }
    return clamped;
}

static gj2k_status write_strips(TIFF *tiff, const gj2k_image *image, uint16_t bits,
                                uint32_t rows_per_strip, size_t row_bytes,
                                const tiff_messages *messages, size_t *clamped,
                                gj2k_error *error)
{
    uint32_t height = image->components[0].height;
    uint8_t *strip = malloc(row_bytes * rows_per_strip);
    if (strip == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TIFF: out of memory for a strip");
    gj2k_status status = GJ2K_OK;
    uint32_t s = 0;
    for (uint64_t y0 = 0; y0 < height; y0 += rows_per_strip, s++) {
        uint32_t rows = (uint32_t)(height - y0 < rows_per_strip ? height - y0 : rows_per_strip);
        *clamped += pack_rows(image, bits, (uint32_t)y0, rows, row_bytes, strip);
        if (TIFFWriteEncodedStrip(tiff, s, strip, (tmsize_t)(row_bytes * rows)) < 0) {
            status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                               "TIFF: cannot write strip %u: %s", s, messages->error);
            break;
        }
    }
    free(strip);
    return status;
}

gj2k_status tiff_write(const gj2k_image *image, const gj2k_write_options *options,
                       byte_buffer *out, gj2k_error *error)
{
    uint16_t bits = 0;
    bool is_signed = false;
    gj2k_status status = check_writable(image, options, &bits, &is_signed, error);
    if (status != GJ2K_OK)
        return status;
    uint32_t width = image->components[0].width, height = image->components[0].height;
    size_t row_bytes = (size_t)(((uint64_t)width * image->num_components * bits + 7) / 8);
    uint32_t rows_per_strip = (uint32_t)(TIFF_STRIP_TARGET / row_bytes);
    if (rows_per_strip < 1)
        rows_per_strip = 1;
    if (rows_per_strip > height)
        rows_per_strip = height;
    /* Classic TIFF addresses 4 GiB; leave room for compression's worst case. */
    const char *mode = (uint64_t)row_bytes * height > ((uint64_t)3 << 30) ? "w8" : "w";

    tiff_messages messages = {.warning = options->warning, .warning_user = options->warning_user};
    TIFFOpenOptions *open = open_options(&messages, 0);
    if (open == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TIFF: out of memory");
    tiff_sink sink = {0};
    TIFF *tiff = TIFFClientOpenExt("memory", mode, &sink, sink_read, sink_write, sink_seek,
                                   close_nothing, sink_size, map_nothing, unmap_nothing, open);
    TIFFOpenOptionsFree(open);
    if (tiff == NULL) {
        free(sink.data);
        return gj2k_fail(error, sink.failed ? GJ2K_ERROR_OUT_OF_MEMORY : GJ2K_ERROR_INVALID_ARGUMENT,
                         "TIFF: cannot start the file: %s", messages.error);
    }
    set_tags(tiff, image, bits, is_signed, rows_per_strip);
    tiff_metadata_write(tiff, image, options->warning, options->warning_user);
    size_t clamped = 0;
    status = write_strips(tiff, image, bits, rows_per_strip, row_bytes, &messages, &clamped,
                          error);
    if (status == GJ2K_OK && TIFFFlush(tiff) != 1)
        status = gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "TIFF: cannot finish the file: %s",
                           messages.error);
    TIFFClose(tiff);
    if (status == GJ2K_OK && (sink.failed || messages.error[0] != '\0'))
        status = gj2k_fail(error, sink.failed ? GJ2K_ERROR_OUT_OF_MEMORY
                                              : GJ2K_ERROR_INVALID_ARGUMENT,
                           "TIFF: %s", sink.failed ? "out of memory for the output"
                                                   : messages.error);
    if (status == GJ2K_OK) {
        byte_buffer_append(out, sink.data, sink.size);
        if (clamped > 0)
            gj2k_warn(options->warning, options->warning_user,
                      "TIFF: %zu samples outside their precision's range were clamped", clamped);
    }
    free(sink.data);
    return status;
}
