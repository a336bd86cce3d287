/* format_tga.c - Truevision TGA (opj_compress reads it): uncompressed and
 * run-length encoded, 8-bit grey, 15/16-bit (5-5-5), 24-bit and 32-bit
 * (with alpha) true colour, and colour-mapped images with 8-bit indices;
 * either origin. Writes 8-bit grey, RGB and RGBA, uncompressed, top-left. */
#include "error.h"
#include "image_formats.h"

#include <stdlib.h>
#include <string.h>

enum {
    TGA_HEADER_SIZE = 18,
    TGA_MAPPED = 1, TGA_TRUE_COLOR = 2, TGA_GREY = 3, TGA_RLE = 8, /* RLE adds 8 to a type */
    TGA_TOP_DOWN = 0x20, TGA_RIGHT_TO_LEFT = 0x10,
};

typedef struct tga_info {
    uint32_t width, height;
    unsigned type;            /* without the RLE bit */
    bool rle;
    unsigned depth;           /* bits a pixel (an index, for colour-mapped images) */
    unsigned descriptor;
    const uint8_t *map;       /* colour map entries, map_depth bits each */
    unsigned map_first, map_count, map_depth;
    size_t pixel_offset;
} tga_info;

static unsigned get_u16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

static gj2k_status parse_header(const uint8_t *data, size_t size, tga_info *t, gj2k_error *error)
{
    memset(t, 0, sizeof *t);
    if (size < TGA_HEADER_SIZE)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "TGA: file of %zu bytes is too short", size);
    unsigned id_length = data[0], map_type = data[1], type = data[2];
    t->rle = (type & TGA_RLE) != 0;
    t->type = type & ~(unsigned)TGA_RLE;
    t->map_first = get_u16(data + 3);
    t->map_count = get_u16(data + 5);
    t->map_depth = data[7];
    t->width = get_u16(data + 12);
    t->height = get_u16(data + 14);
    t->depth = data[16];
    t->descriptor = data[17];
    if (t->type != TGA_MAPPED && t->type != TGA_TRUE_COLOR && t->type != TGA_GREY)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "TGA: image type %u is not supported",
                         type);
    if (t->width == 0 || t->height == 0)
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TGA: empty image (%ux%u)", t->width,
                         t->height);
    bool depth_ok = t->type == TGA_GREY     ? t->depth == 8
                    : t->type == TGA_MAPPED ? t->depth == 8
                                            : t->depth == 15 || t->depth == 16 ||
                                                  t->depth == 24 || t->depth == 32;
    if (!depth_ok)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TGA: %u bits a pixel in an image of type %u is not supported", t->depth,
                         type);
    size_t map_bytes = 0;
    if (map_type == 1) {
        if (t->map_depth != 24 && t->map_depth != 32)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "TGA: colour map entries of %u bits are not supported",
                             t->map_depth);
        map_bytes = (size_t)t->map_count * (t->map_depth / 8);
    } else if (map_type != 0 || t->type == TGA_MAPPED) {
        return gj2k_fail(error, GJ2K_ERROR_MALFORMED, "TGA: colour map type %u with image type %u",
                         map_type, type);
    }
    if (size - TGA_HEADER_SIZE < id_length + map_bytes)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "TGA: the colour map is cut short");
    t->map = map_bytes ? data + TGA_HEADER_SIZE + id_length : NULL;
    t->pixel_offset = TGA_HEADER_SIZE + id_length + map_bytes;
    return GJ2K_OK;
}

/* Components of a pixel's bytes (little-endian), in RGB(A) order or grey. */
static void unpack(const tga_info *t, const uint8_t *px, int32_t rgba[4])
{
    if (t->type == TGA_GREY) {
        rgba[0] = px[0];
    } else if (t->type == TGA_MAPPED) {
        unsigned index = px[0] >= t->map_first ? px[0] - t->map_first : t->map_count;
        if (index >= t->map_count) { /* outside the map: black, opaque */
            rgba[0] = rgba[1] = rgba[2] = 0;
            rgba[3] = 255;
            return;
        }
        const uint8_t *e = t->map + (size_t)index * (t->map_depth / 8);
        rgba[0] = e[2], rgba[1] = e[1], rgba[2] = e[0];
        rgba[3] = t->map_depth == 32 ? e[3] : 255;
    } else if (t->depth <= 16) { /* A1 R5 G5 B5: each channel scaled to 8 bits */
        unsigned v = get_u16(px);
        for (int c = 0; c < 3; c++) {
            unsigned five = (v >> (10 - 5 * c)) & 31u;
            rgba[c] = (int32_t)(five << 3 | five >> 2);
        }
        rgba[3] = 255;
    } else {
        rgba[0] = px[2], rgba[1] = px[1], rgba[2] = px[0];
        rgba[3] = t->depth == 32 ? px[3] : 255;
    }
}

gj2k_status tga_read(const uint8_t *data, size_t size, const gj2k_read_options *options,
                     gj2k_image **out, gj2k_error *error)
{
    tga_info t;
    gj2k_status status = parse_header(data, size, &t, error);
    if (status != GJ2K_OK)
        return status;
    bool grey = t.type == TGA_GREY;
    bool alpha = (t.type == TGA_TRUE_COLOR && t.depth == 32) ||
                 (t.type == TGA_MAPPED && t.map_depth == 32);
    uint32_t n = grey ? 1 : alpha ? 4 : 3;
    size_t bytes = (t.depth + 7) / 8; /* a pixel's, as stored */
    uint64_t pixels = (uint64_t)t.width * t.height;
    /* uncompressed: the file holds every pixel; RLE: a packet of 1 + bytes
       bytes gives at most 128 pixels */
    uint64_t per_byte = t.rle ? 128 / (1 + bytes) + 1 : 1;
    status = image_check_sample_budget(options, pixels * n, size, per_byte * n, error);
    if (status != GJ2K_OK)
        return status;
    const uint8_t *p = data + t.pixel_offset, *end = data + size;
    if (!t.rle && (uint64_t)(end - p) < pixels * bytes)
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED, "TGA: pixel data needs %llu bytes, %zu remain",
                         (unsigned long long)(pixels * bytes), (size_t)(end - p));
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < 4; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image;
    status = gj2k_image_create(&image, 0, 0, t.width, t.height, n, info, error);
    if (status != GJ2K_OK)
        return status;
    image->color_space = grey ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
    if (alpha)
        image->components[3].role = GJ2K_ROLE_OPACITY;
    bool top_down = (t.descriptor & TGA_TOP_DOWN) != 0;
    bool mirrored = (t.descriptor & TGA_RIGHT_TO_LEFT) != 0;
    uint64_t done = 0;
    unsigned run = 0, literal = 0; /* pixels left in the current RLE packet */
    const uint8_t *repeated = NULL;
    while (done < pixels) {
        const uint8_t *px;
        if (!t.rle) {
            px = p;
            p += bytes;
        } else {
            if (run == 0 && literal == 0) {
                if (end - p < 1)
                    break;
                unsigned header = *p++;
                unsigned count = (header & 0x7fu) + 1;
                if (header & 0x80u) {
                    if ((size_t)(end - p) < bytes)
                        break;
                    repeated = p;
                    p += bytes;
                    run = count;
                } else {
                    literal = count;
                }
            }
            if (run > 0) {
                px = repeated;
                run--;
            } else {
                if ((size_t)(end - p) < bytes)
                    break;
                px = p;
                p += bytes;
                literal--;
            }
        }
        int32_t rgba[4];
        unpack(&t, px, rgba);
        uint32_t row = (uint32_t)(done / t.width), column = (uint32_t)(done % t.width);
        uint32_t y = top_down ? row : t.height - 1 - row;
        uint32_t x = mirrored ? t.width - 1 - column : column;
        size_t at = (size_t)y * t.width + x;
        for (uint32_t c = 0; c < n; c++)
            image->components[c].samples[at] = rgba[c];
        done++;
    }
    if (done < pixels) {
        gj2k_image_destroy(image);
        return gj2k_fail(error, GJ2K_ERROR_TRUNCATED,
                         "TGA: the run-length data ends after %llu of %llu pixels",
                         (unsigned long long)done, (unsigned long long)pixels);
    }
    *out = image;
    return GJ2K_OK;
}

gj2k_status tga_write(const gj2k_image *image, const gj2k_write_options *options,
                      byte_buffer *out, gj2k_error *error)
{
    (void)options;
    uint32_t n = image->num_components;
    const gj2k_component *comps = image->components;
    if (n != 1 && n != 3 && n != 4)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TGA: writes grey, RGB or RGBA, not %u components (use PNG or TIFF)", n);
    for (uint32_t c = 0; c < n; c++)
        if (comps[c].precision != 8 || comps[c].is_signed || comps[c].width != comps[0].width ||
            comps[c].height != comps[0].height || comps[c].samples == NULL)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "TGA: writes 8-bit unsigned components of one size (component %u "
                             "is %u-bit %s, %ux%u; use PNG or TIFF, or decode with -p 8)",
                             c, comps[c].precision, comps[c].is_signed ? "signed" : "unsigned",
                             comps[c].width, comps[c].height);
    uint32_t width = comps[0].width, height = comps[0].height;
    if (width == 0 || height == 0 || width > 65535 || height > 65535)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                         "TGA: %ux%u does not fit its 16-bit sizes (use PNG or TIFF)", width,
                         height);
    size_t pixels = (size_t)width * height;
    if (!byte_buffer_reserve(out, TGA_HEADER_SIZE + pixels * n))
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "TGA: out of memory");
    uint8_t header[TGA_HEADER_SIZE] = {0};
    header[2] = n == 1 ? TGA_GREY : TGA_TRUE_COLOR;
    header[12] = (uint8_t)width, header[13] = (uint8_t)(width >> 8);
    header[14] = (uint8_t)height, header[15] = (uint8_t)(height >> 8);
    header[16] = (uint8_t)(8 * n);
    header[17] = (uint8_t)(TGA_TOP_DOWN | (n == 4 ? 8 : 0));
    byte_buffer_append(out, header, sizeof header);
    uint8_t *p = out->data + out->size;
    for (size_t i = 0; i < pixels; i++) {
        if (n == 1) {
            *p++ = (uint8_t)comps[0].samples[i];
            continue;
        }
        *p++ = (uint8_t)comps[2].samples[i]; /* BGR(A) */
        *p++ = (uint8_t)comps[1].samples[i];
        *p++ = (uint8_t)comps[0].samples[i];
        if (n == 4)
            *p++ = (uint8_t)comps[3].samples[i];
    }
    out->size += pixels * n;
    return GJ2K_OK;
}
