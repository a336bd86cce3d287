/* format_bmp.c - Windows and OS/2 bitmaps.
 * Reads the info headers of 12 (OS/2 core), 40, 52, 56, 108 (V4) and 124 (V5)
 * bytes; 1, 4 and 8-bit palettes (uncompressed, RLE4, RLE8), 16 and 32-bit
 * pixels (BI_RGB or bit fields, each channel scaled to 8 bits) and 24-bit.
 * Writes 8-bit grey with a palette, 24-bit RGB, or 32-bit with alpha. */
#include "error.h"
#include "image_formats.h"

#include <stdlib.h>
#include <string.h>

enum {
    BI_RGB = 0, BI_RLE8 = 1, BI_RLE4 = 2, BI_BITFIELDS = 3, BI_ALPHABITFIELDS = 6,
    FILE_HEADER_SIZE = 14, CORE_HEADER_SIZE = 12, INFO_HEADER_SIZE = 40,
    V4_HEADER_SIZE = 108, V5_HEADER_SIZE = 124,
};
#define LCS_SRGB 0x73524742u           /* 'sRGB' */
#define PROFILE_EMBEDDED 0x4D424544u   /* 'MBED' */
#define LCS_GM_IMAGES 4u

typedef struct bmp_info {
    uint32_t pixel_offset;
    uint32_t header_size;
    uint32_t width, height;
    bool top_down;
    uint32_t bit_count;
    uint32_t compression;
    uint32_t colors_used;
    int32_t x_ppm, y_ppm;
    uint32_t masks[4];                 /* red, green, blue, alpha */
    uint32_t masks_end;                /* file offset after the masks that follow a 40-byte header */
    uint32_t cs_type, profile_offset, profile_size;
    uint64_t samples_per_byte;         /* the most the pixel data can justify */
} bmp_info;

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint32_t get_u16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static gj2k_status parse_headers(const uint8_t *data, size_t size, bmp_info *b, gj2k_error *error)
{
    memset(b, 0, sizeof *b);
    if (size < FILE_HEADER_SIZE + 4)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "BMP: file of %zu bytes is too short", size);
    if (data[0] != 'B' || data[1] != 'M')
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "BMP: no 'BM' signature");
    b->pixel_offset = get_u32(data + 10);
    b->header_size = get_u32(data + 14);
    uint32_t hs = b->header_size;
    if (hs != CORE_HEADER_SIZE && hs != INFO_HEADER_SIZE && hs != 52 && hs != 56 &&
        hs != V4_HEADER_SIZE && hs != V5_HEADER_SIZE)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "BMP: info header of %u bytes is not supported", hs);
    if (size - FILE_HEADER_SIZE < hs)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "BMP: the %u-byte info header is cut short",
                         hs);
    const uint8_t *h = data + FILE_HEADER_SIZE;
    int64_t height;
    if (hs == CORE_HEADER_SIZE) {
        b->width = get_u16(h + 4);
        height = get_u16(h + 6);
        b->bit_count = get_u16(h + 10);
    } else {
        int32_t width = (int32_t)get_u32(h + 4);
        if (width <= 0)
            return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "BMP: width %d is invalid", width);
        b->width = (uint32_t)width;
        height = (int32_t)get_u32(h + 8);
        b->bit_count = get_u16(h + 14);
        b->compression = get_u32(h + 16);
        b->x_ppm = (int32_t)get_u32(h + 24);
        b->y_ppm = (int32_t)get_u32(h + 28);
        b->colors_used = get_u32(h + 32);
        if (hs >= 52)
            for (int i = 0; i < 3; i++)
                b->masks[i] = get_u32(h + 40 + 4 * i);
        if (hs >= 56)
            b->masks[3] = get_u32(h + 52);
        if (hs >= V4_HEADER_SIZE)
            b->cs_type = get_u32(h + 56);
        if (hs >= V5_HEADER_SIZE) {
            b->profile_offset = get_u32(h + 112);
            b->profile_size = get_u32(h + 116);
        }
    }
    b->masks_end = FILE_HEADER_SIZE + hs;
    if (hs == INFO_HEADER_SIZE &&
        (b->compression == BI_BITFIELDS || b->compression == BI_ALPHABITFIELDS)) {
        uint32_t count = b->compression == BI_ALPHABITFIELDS ? 4 : 3;
        if (size - b->masks_end < 4 * count)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "BMP: the bit field masks are cut short");
        for (uint32_t i = 0; i < count; i++)
            b->masks[i] = get_u32(data + b->masks_end + 4 * i);
        b->masks_end += 4 * count;
    }
    if (b->width == 0 || height == 0 || height == INT32_MIN)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "BMP: empty or invalid size %ux%lld",
                         b->width, (long long)height);
    b->top_down = height < 0;
    b->height = (uint32_t)(height < 0 ? -height : height);

    uint32_t bits = b->bit_count, comp = b->compression;
    bool bits_ok = bits == 1 || bits == 4 || bits == 8 || bits == 16 || bits == 24 || bits == 32;
    if (!bits_ok || (hs == CORE_HEADER_SIZE && bits > 8 && bits != 24))
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "BMP: %u bits per pixel not supported",
                         bits);
    bool comp_ok = comp == BI_RGB || (comp == BI_RLE8 && bits == 8) ||
                   (comp == BI_RLE4 && bits == 4) ||
                   ((comp == BI_BITFIELDS || comp == BI_ALPHABITFIELDS) &&
                    (bits == 16 || bits == 32));
    if (!comp_ok)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "BMP: compression %u with %u bits per pixel not supported", comp, bits);
    if (b->pixel_offset < b->masks_end)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                         "BMP: pixel data offset %u lies inside the headers", b->pixel_offset);
    if (b->pixel_offset >= size)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "BMP: pixel data offset %u beyond the file's %zu bytes", b->pixel_offset,
                         size);
    return GJ2K_OK;
}

/* The file row index that holds image row y (counted from the top). */
static uint32_t stored_row(const bmp_info *b, uint32_t y)
{
    return b->top_down ? y : b->height - 1 - y;
}

/* Where RLE decoding stands: x, y count pixels and stored rows. */
typedef struct rle_cursor {
    const bmp_info *b;
    uint8_t *indices;
    uint64_t x, y;
    bool clipped;
} rle_cursor;

static void rle_put(rle_cursor *c, uint8_t index)
{
    if (c->x < c->b->width && c->y < c->b->height)
        c->indices[(size_t)stored_row(c->b, (uint32_t)c->y) * c->b->width + c->x] = index;
    else
        c->clipped = true;
    c->x++;
}

/* Decodes RLE4 or RLE8 into `indices` (top row first), clipping what runs
 * past the image. Pixels the data skips keep index 0. */
static gj2k_status decode_rle(const uint8_t *p, size_t n, const bmp_info *b, uint8_t *indices,
                              const gj2k_read_options *options, gj2k_error *error)
{
    bool four = b->compression == BI_RLE4;
    rle_cursor c = {.b = b, .indices = indices};
    size_t pos = 0;
    for (;;) {
        if (n - pos < 2) {
            if (c.y >= b->height)
                break; /* every row ended; a missing end-of-bitmap is harmless */
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "BMP: RLE data ends at row %llu of %u without end-of-bitmap",
                             (unsigned long long)c.y, b->height);
        }
        uint32_t count = p[pos], value = p[pos + 1];
        pos += 2;
        if (count > 0) {
            for (uint32_t i = 0; i < count; i++)
                rle_put(&c, four ? (uint8_t)((i & 1) ? value & 15 : value >> 4) : (uint8_t)value);
        } else if (value == 0) { /* end of line */
            c.x = 0;
            c.y++;
        } else if (value == 1) { /* end of bitmap */
            break;
        } else if (value == 2) { /* delta */
            if (n - pos < 2)
                return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "BMP: RLE delta cut short");
            c.x += p[pos];
            c.y += p[pos + 1];
            pos += 2;
        } else { /* an absolute run of `value` pixels */
            size_t bytes = four ? (value + 1) / 2 : value;
            if (n - pos < bytes)
                return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "BMP: RLE absolute run cut short");
            for (uint32_t i = 0; i < value; i++) {
                uint8_t byte = p[pos + (four ? i / 2 : i)];
                rle_put(&c, four ? (uint8_t)((i & 1) ? byte & 15 : byte >> 4) : byte);
            }
            pos += bytes + (bytes & 1); /* runs are padded to 16 bits */
            if (pos > n)
                pos = n;
        }
    }
    if (c.clipped)
        gj2k_warn(options->warning, options->warning_user,
                  "BMP: RLE data runs past the image; the excess is ignored");
    return GJ2K_OK;
}

static gj2k_status read_palette_image(const uint8_t *data, size_t size, const bmp_info *b,
                                      const gj2k_read_options *options, gj2k_image **out,
                                      gj2k_error *error)
{
    /* The palette sits between the headers and the pixel data. */
    uint32_t entry = b->header_size == CORE_HEADER_SIZE ? 3 : 4;
    uint32_t capacity = 1u << b->bit_count;
    uint32_t entries = b->colors_used != 0 && b->colors_used < capacity ? b->colors_used : capacity;
    uint32_t room = (b->pixel_offset - b->masks_end) / entry;
    if (entries > room)
        entries = room;
    uint8_t palette[256][3]; /* r, g, b */
    for (uint32_t i = 0; i < entries; i++) {
        const uint8_t *e = data + b->masks_end + (size_t)i * entry;
        palette[i][0] = e[2];
        palette[i][1] = e[1];
        palette[i][2] = e[0];
    }

    size_t pixels = (size_t)b->width * b->height;
    uint8_t *indices = calloc(pixels, 1);
    if (indices == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "BMP: out of memory");
    const uint8_t *p = data + b->pixel_offset;
    size_t available = size - b->pixel_offset;
    gj2k_status status = GJ2K_OK;
    if (b->compression == BI_RLE4 || b->compression == BI_RLE8) {
        status = decode_rle(p, available, b, indices, options, error);
    } else {
        size_t stride = ((size_t)b->width * b->bit_count + 31) / 32 * 4;
        for (uint32_t y = 0; y < b->height; y++) {
            const uint8_t *row = p + (size_t)stored_row(b, y) * stride;
            uint8_t *dst = indices + (size_t)y * b->width;
            for (uint32_t x = 0; x < b->width; x++) {
                if (b->bit_count == 8)
                    dst[x] = row[x];
                else if (b->bit_count == 4)
                    dst[x] = (x & 1) ? row[x / 2] & 15 : row[x / 2] >> 4;
                else
                    dst[x] = (row[x / 8] >> (7 - (x & 7))) & 1;
            }
        }
    }
    bool used[256] = {false};
    for (size_t i = 0; i < pixels && status == GJ2K_OK; i++) {
        if (indices[i] >= entries)
            status = gj2k_fail(error, GJ2K_ERROR_MALFORMED,
                               "BMP: palette index %u beyond the %u-entry palette", indices[i],
                               entries);
        used[indices[i]] = true;
    }
    bool grey = true;
    for (uint32_t i = 0; i < entries; i++)
        if (used[i] && (palette[i][0] != palette[i][1] || palette[i][1] != palette[i][2]))
            grey = false;
    uint32_t channels = grey ? 1 : 3;
    gj2k_image *image = NULL;
    if (status == GJ2K_OK)
        status = image_check_sample_budget(options, pixels * channels, size,
                                           b->samples_per_byte * channels, error);
    if (status == GJ2K_OK) {
        gj2k_component_info info[3];
        for (uint32_t c = 0; c < 3; c++)
            info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
        status = gj2k_image_create(&image, 0, 0, b->width, b->height, channels, info, error);
    }
    if (status == GJ2K_OK) {
        image->color_space = grey ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
        for (uint32_t c = 0; c < channels; c++) {
            int32_t *s = image->components[c].samples;
            for (size_t i = 0; i < pixels; i++)
                s[i] = palette[indices[i]][c];
        }
        *out = image;
    }
    free(indices);
    return status;
}

/* A masked channel scaled to 8 bits. */
typedef struct channel_mask {
    uint32_t mask, shift, max;
} channel_mask;

static channel_mask make_channel(uint32_t mask)
{
    channel_mask m = {.mask = mask};
    if (mask != 0) {
        while (((mask >> m.shift) & 1) == 0)
            m.shift++;
        m.max = mask >> m.shift;
    }
    return m;
}

static int32_t channel_value(const channel_mask *m, uint32_t pixel)
{
    if (m->max == 0)
        return 0;
    uint64_t v = (pixel & m->mask) >> m->shift;
    return (int32_t)((v * 255 + m->max / 2) / m->max);
}

static gj2k_status read_direct_image(const uint8_t *data, size_t size, const bmp_info *b,
                                     const gj2k_read_options *options, gj2k_image **out,
                                     gj2k_error *error)
{
    uint32_t masks[4] = {0, 0, 0, 0};
    if (b->compression == BI_BITFIELDS || b->compression == BI_ALPHABITFIELDS) {
        memcpy(masks, b->masks, sizeof masks);
    } else if (b->bit_count == 16) {
        masks[0] = 0x7c00;
        masks[1] = 0x03e0;
        masks[2] = 0x001f;
    } else if (b->bit_count == 32) {
        masks[0] = 0x00ff0000;
        masks[1] = 0x0000ff00;
        masks[2] = 0x000000ff;
        if (b->header_size >= V4_HEADER_SIZE)
            masks[3] = b->masks[3];
    }
    bool alpha = b->bit_count != 24 && masks[3] != 0;
    channel_mask channels[4];
    for (int c = 0; c < 4; c++)
        channels[c] = make_channel(masks[c]);
    uint32_t n = alpha ? 4 : 3;
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < 4; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    uint64_t pixels = (uint64_t)b->width * b->height;
    gj2k_status status = image_check_sample_budget(options, pixels * n, size,
                                                   b->samples_per_byte * n, error);
    gj2k_image *image;
    if (status == GJ2K_OK)
        status = gj2k_image_create(&image, 0, 0, b->width, b->height, n, info, error);
    if (status != GJ2K_OK)
        return status;
    image->color_space = GJ2K_COLOR_SRGB;
    if (alpha)
        image->components[3].role = GJ2K_ROLE_OPACITY;
    size_t stride = ((size_t)b->width * b->bit_count + 31) / 32 * 4;
    const uint8_t *p = data + b->pixel_offset;
    size_t i = 0;
    for (uint32_t y = 0; y < b->height; y++) {
        const uint8_t *px = p + (size_t)stored_row(b, y) * stride;
        for (uint32_t x = 0; x < b->width; x++, i++) {
            if (b->bit_count == 24) {
                image->components[0].samples[i] = px[2];
                image->components[1].samples[i] = px[1];
                image->components[2].samples[i] = px[0];
                px += 3;
                continue;
            }
            uint32_t pixel = b->bit_count == 16 ? get_u16(px) : get_u32(px);
            px += b->bit_count / 8;
            for (uint32_t c = 0; c < n; c++)
                image->components[c].samples[i] = channel_value(&channels[c], pixel);
        }
    }
    *out = image;
    return GJ2K_OK;
}

gj2k_status bmp_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error)
{
    *out = NULL;
    bmp_info b;
    gj2k_status status = parse_headers(data, size, &b, error);
    if (status != GJ2K_OK)
        return status;
    /* A first check at one sample a pixel guards the palette indices; the
     * readers check again once they know the number of components. */
    uint64_t pixels = (uint64_t)b.width * b.height; /* both below 2^31 */
    size_t available = size - b.pixel_offset;
    bool rle = b.compression == BI_RLE4 || b.compression == BI_RLE8;
    b.samples_per_byte = rle ? IMAGE_MAX_SAMPLES_PER_FILE_BYTE : 8;
    if (!rle) {
        uint64_t stride = ((uint64_t)b.width * b.bit_count + 31) / 32 * 4;
        uint64_t needed = stride * (b.height - 1) + ((uint64_t)b.width * b.bit_count + 7) / 8;
        if (needed > available)
            return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                             "BMP: pixel data needs %llu bytes, %zu remain",
                             (unsigned long long)needed, available);
    }
    status = image_check_sample_budget(options, pixels, size, b.samples_per_byte, error);
    if (status != GJ2K_OK)
        return status;

    gj2k_image *image = NULL;
    if (b.bit_count <= 8)
        status = read_palette_image(data, size, &b, options, &image, error);
    else
        status = read_direct_image(data, size, &b, options, &image, error);
    if (status != GJ2K_OK)
        return status;

    if (b.x_ppm > 0)
        image->resolution_x = b.x_ppm;
    if (b.y_ppm > 0)
        image->resolution_y = b.y_ppm;
    if (b.header_size >= V5_HEADER_SIZE && b.cs_type == PROFILE_EMBEDDED && b.profile_size > 0) {
        size_t start = FILE_HEADER_SIZE;
        if (b.profile_offset > size - start || b.profile_size > size - start - b.profile_offset) {
            gj2k_warn(options->warning, options->warning_user,
                      "BMP: embedded ICC profile lies outside the file; ignored");
        } else {
            status = gj2k_image_set_icc_profile(image, data + start + b.profile_offset,
                                                b.profile_size, error);
            if (status != GJ2K_OK) {
                gj2k_image_destroy(image);
                return status;
            }
        }
    }
    *out = image;
    return GJ2K_OK;
}

/* ------------------------------------------------------------ writing */

/* A sample as 8 bits: signed samples offset to unsigned, fewer bits shifted
 * up (exactly reversible), more bits rescaled with rounding. */
static uint8_t to_8_bits(const gj2k_component *comp, size_t i)
{
    int64_t v = comp->samples ? comp->samples[i] : comp->wide_samples[i];
    int64_t lo = image_sample_min(comp), hi = image_sample_max(comp);
    v = (v < lo ? lo : v > hi ? hi : v) - lo;
    uint32_t p = comp->precision;
    if (p == 8)
        return (uint8_t)v;
    if (p < 8)
        return (uint8_t)(v << (8 - p));
    int64_t max = ((int64_t)1 << p) - 1;
    return (uint8_t)((v * 255 + max / 2) / max);
}

static void put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put_u32(uint8_t *p, uint32_t v)
{
    put_u16(p, v & 0xffff);
    put_u16(p + 2, v >> 16);
}

static int32_t pels_per_metre(double resolution)
{
    return resolution > 0 && resolution < 2147483647.0 ? (int32_t)(resolution + 0.5) : 0;
}

gj2k_status bmp_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error)
{
    uint32_t n = image->num_components;
    if (n == 0 || n > 4)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "BMP: %u components cannot be written (1..4)", n);
    const gj2k_component *comps = image->components;
    bool any_signed = false, rescaled = false, shifted = false;
    for (uint32_t c = 0; c < n; c++) {
        if (comps[c].width != comps[0].width || comps[c].height != comps[0].height)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "BMP: components of different sizes (%ux%u and %ux%u)",
                             comps[0].width, comps[0].height, comps[c].width, comps[c].height);
        any_signed |= comps[c].is_signed;
        rescaled |= comps[c].precision > 8;
        shifted |= comps[c].precision < 8;
    }
    uint32_t width = comps[0].width, height = comps[0].height;
    if (width == 0 || height == 0)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "BMP: empty image");
    if (width > INT32_MAX || height > INT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "BMP: image of %ux%u is too large",
                         width, height);
    if (any_signed)
        gj2k_warn(options->warning, options->warning_user,
                  "BMP: signed samples written offset to unsigned");
    if (rescaled)
        gj2k_warn(options->warning, options->warning_user,
                  "BMP: samples deeper than 8 bits rescaled to 8 (lossy)");
    if (shifted)
        gj2k_warn(options->warning, options->warning_user,
                  "BMP: samples of fewer than 8 bits written shifted up to 8 bits");
    if ((n == 2 || n == 4) && comps[n - 1].role == GJ2K_ROLE_COLOR)
        gj2k_warn(options->warning, options->warning_user,
                  "BMP: component %u written as alpha", n - 1);

    uint32_t bit_count = n == 1 ? 8 : n == 3 ? 24 : 32;
    bool icc = image->icc_profile != NULL && image->icc_profile_size > 0;
    uint32_t header_size = icc ? V5_HEADER_SIZE : bit_count == 32 ? V4_HEADER_SIZE
                                                                  : INFO_HEADER_SIZE;
    uint32_t palette_size = bit_count == 8 ? 256 * 4 : 0;
    uint64_t stride = ((uint64_t)width * bit_count + 31) / 32 * 4;
    uint64_t pixel_offset = FILE_HEADER_SIZE + header_size + palette_size;
    uint64_t image_size = stride * height;
    uint64_t file_size = pixel_offset + image_size + (icc ? image->icc_profile_size : 0);
    if (file_size > UINT32_MAX)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "BMP: a file of %llu bytes exceeds the format's 4 GiB",
                         (unsigned long long)file_size);
    if (!byte_buffer_reserve(out, (size_t)file_size))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "BMP: out of memory");
    uint8_t *start = out->data + out->size;
    memset(start, 0, (size_t)pixel_offset);

    start[0] = 'B';
    start[1] = 'M';
    put_u32(start + 2, (uint32_t)file_size);
    put_u32(start + 10, (uint32_t)pixel_offset);
    uint8_t *h = start + FILE_HEADER_SIZE;
    put_u32(h, header_size);
    put_u32(h + 4, width);
    put_u32(h + 8, height); /* bottom-up */
    put_u16(h + 12, 1);
    put_u16(h + 14, bit_count);
    put_u32(h + 16, bit_count == 32 ? BI_BITFIELDS : BI_RGB);
    put_u32(h + 20, (uint32_t)image_size);
    put_u32(h + 24, (uint32_t)pels_per_metre(image->resolution_x));
    put_u32(h + 28, (uint32_t)pels_per_metre(image->resolution_y));
    put_u32(h + 32, bit_count == 8 ? 256 : 0);
    if (header_size >= V4_HEADER_SIZE) {
        if (bit_count == 32) {
            put_u32(h + 40, 0x00ff0000);
            put_u32(h + 44, 0x0000ff00);
            put_u32(h + 48, 0x000000ff);
            put_u32(h + 52, 0xff000000);
        }
        put_u32(h + 56, icc ? PROFILE_EMBEDDED : LCS_SRGB);
    }
    if (icc) {
        put_u32(h + 108, LCS_GM_IMAGES);
        put_u32(h + 112, (uint32_t)(pixel_offset + image_size - FILE_HEADER_SIZE));
        put_u32(h + 116, (uint32_t)image->icc_profile_size);
    }
    for (uint32_t i = 0; i < palette_size / 4; i++)
        memset(h + header_size + 4 * i, (int)i, 3);

    uint8_t *pixels = start + pixel_offset;
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)(height - 1 - y) * stride;
        size_t i = (size_t)y * width;
        uint8_t *p = row;
        for (uint32_t x = 0; x < width; x++, i++) {
            if (n == 1) {
                *p++ = to_8_bits(&comps[0], i);
            } else if (n == 2) {
                uint8_t grey = to_8_bits(&comps[0], i);
                *p++ = grey;
                *p++ = grey;
                *p++ = grey;
                *p++ = to_8_bits(&comps[1], i);
            } else {
                *p++ = to_8_bits(&comps[2], i);
                *p++ = to_8_bits(&comps[1], i);
                *p++ = to_8_bits(&comps[0], i);
                if (n == 4)
                    *p++ = to_8_bits(&comps[3], i);
            }
        }
        memset(p, 0, (size_t)(row + stride - p));
    }
    if (icc)
        memcpy(pixels + image_size, image->icc_profile, image->icc_profile_size);
    out->size += (size_t)file_size;
    return GJ2K_OK;
}
