/* io_test_support.c - helpers shared by the image file format tests. */
#include "io_test_support.h"

#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ general helpers */

uint8_t *load_bytes(const char *path, size_t *size) { return test_read_file(path, size); }

/* Reads a shared image; NULL after a failed check. */
gj2k_image *read_shared(const char *relative)
{
    char name[128];
    snprintf(name, sizeof name, "images/%s", relative);
    const char *path = test_shared_path(name);
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_read_file(path, NULL, &image, &error) != GJ2K_OK) {
        fprintf(stderr, "%s\n", error.message);
        CHECK(false);
    }
    return image;
}

/* Same geometry, precision, sign, roles and samples. */
bool same_image(const gj2k_image *a, const gj2k_image *b)
{
    if (a->num_components != b->num_components || a->x1 != b->x1 || a->y1 != b->y1)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *p = &a->components[c], *q = &b->components[c];
        if (p->width != q->width || p->height != q->height || p->precision != q->precision ||
            p->is_signed != q->is_signed || p->role != q->role)
            return false;
        size_t n = (size_t)p->width * p->height; /* an empty component has no samples */
        if (n > 0 && memcmp(p->samples, q->samples, sizeof *p->samples * n) != 0)
            return false;
    }
    return true;
}

/* True when every sample lies in its component's precision range. */
bool samples_in_range(const gj2k_image *image)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        int64_t lo = comp->is_signed ? -((int64_t)1 << (comp->precision - 1)) : 0;
        int64_t hi = (comp->is_signed ? lo + ((int64_t)1 << comp->precision)
                                      : ((int64_t)1 << comp->precision)) - 1;
        for (size_t i = 0; i < (size_t)comp->width * comp->height; i++)
            if (comp->samples[i] < lo || comp->samples[i] > hi)
                return false;
    }
    return true;
}

/* ------------------------------------------- the uncompressed formats */

gj2k_status read_bytes(const void *data, size_t size, gj2k_file_format format,
                       const gj2k_read_options *options, gj2k_image **out)
{
    gj2k_error error = {0};
    gj2k_status status = gj2k_image_read_memory(data, size, format, options, out, &error);
    if (status == GJ2K_OK)
        CHECK(*out != NULL);
    else
        CHECK(*out == NULL && error.message[0] != '\0');
    return status;
}

/* Reads a NUL-terminated header followed by `extra` raw bytes. */
gj2k_status read_text(const char *header, const void *extra, size_t extra_size,
                      gj2k_file_format format, const gj2k_read_options *options,
                      gj2k_image **out)
{
    byte_buffer b = {0};
    byte_buffer_append(&b, header, strlen(header));
    byte_buffer_append(&b, extra, extra_size);
    gj2k_status status = read_bytes(b.data, b.size, format, options, out);
    byte_buffer_free(&b);
    return status;
}

void check_bad_headers(const bad_header *bad, size_t count, gj2k_file_format format,
                       const gj2k_read_options *options)
{
    static const uint8_t zeros[16];
    for (size_t i = 0; i < count; i++) {
        REQUIRE(bad[i].extra <= sizeof zeros);
        gj2k_image *image = NULL;
        gj2k_status status = read_text(bad[i].text, zeros, bad[i].extra, format, options, &image);
        if (status != bad[i].status)
            fprintf(stderr, "case %zu: status %s\n", i, gj2k_status_name(status));
        CHECK(status == bad[i].status);
        gj2k_image_destroy(image);
    }
}

gj2k_image *make_image(uint32_t width, uint32_t height, uint32_t n, uint32_t precision,
                       bool is_signed, const uint32_t *dx, const uint32_t *dy)
{
    gj2k_component_info info[8];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (gj2k_component_info){.dx = dx ? dx[c] : 1, .dy = dy ? dy[c] : 1,
                                        .precision = precision, .is_signed = is_signed};
    gj2k_image *image = NULL;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, width, height, n, info, &error) != GJ2K_OK) {
        fprintf(stderr, "gj2k_image_create: %s\n", error.message);
        return NULL;
    }
    return image;
}

void fill_random(gj2k_image *image)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *comp = &image->components[c];
        int64_t lo = comp->is_signed ? -((int64_t)1 << (comp->precision - 1)) : 0;
        int64_t hi = comp->is_signed ? ((int64_t)1 << (comp->precision - 1)) - 1
                                     : ((int64_t)1 << comp->precision) - 1;
        for (size_t i = 0; i < (size_t)comp->width * comp->height; i++) {
            int64_t r = test_random_range(0, 9);
            comp->samples[i] = (int32_t)(r == 0 ? lo : r == 1 ? hi : test_random_range(lo, hi));
        }
    }
}

gj2k_image *random_image(uint32_t n, uint32_t precision, bool is_signed)
{
    static const uint32_t sizes[] = {1, 2, 3, 7, 17, 33};
    uint32_t w = test_random_range(0, 2) ? (uint32_t)test_random_range(1, 40)
                                         : sizes[test_random_range(0, 5)];
    uint32_t h = test_random_range(0, 2) ? (uint32_t)test_random_range(1, 40)
                                         : sizes[test_random_range(0, 5)];
    gj2k_image *image = make_image(w, h, n, precision, is_signed, NULL, NULL);
    if (image != NULL)
        fill_random(image);
    return image;
}

/* True when both images have the same geometry, components and samples. */
bool images_equal(const gj2k_image *a, const gj2k_image *b)
{
    if (a->x0 != b->x0 || a->y0 != b->y0 || a->x1 != b->x1 || a->y1 != b->y1 ||
        a->num_components != b->num_components) {
        fprintf(stderr,
                "images differ: (%u,%u)-(%u,%u) %u components vs (%u,%u)-(%u,%u) %u components\n",
                a->x0, a->y0, a->x1, a->y1, a->num_components, b->x0, b->y0, b->x1, b->y1,
                b->num_components);
        return false;
    }
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *p = &a->components[c], *q = &b->components[c];
        if (p->dx != q->dx || p->dy != q->dy || p->width != q->width ||
            p->height != q->height || p->precision != q->precision ||
            p->is_signed != q->is_signed || p->role != q->role) {
            fprintf(stderr,
                    "component %u differs: %ux%u /%u,%u %u bits %s role %d vs %ux%u /%u,%u %u "
                    "bits %s role %d\n", c, p->width, p->height, p->dx, p->dy, p->precision,
                    p->is_signed ? "signed" : "unsigned", (int)p->role, q->width, q->height,
                    q->dx, q->dy, q->precision, q->is_signed ? "signed" : "unsigned",
                    (int)q->role);
            return false;
        }
        for (size_t i = 0; i < (size_t)p->width * p->height; i++)
            if (p->samples[i] != q->samples[i]) {
                fprintf(stderr, "component %u sample %zu: %d vs %d\n", c, i, p->samples[i],
                        q->samples[i]);
                return false;
            }
    }
    return true;
}

/* Writes `image` in `format` and reads it back (NULL on failure). */
gj2k_image *round_trip(const gj2k_image *image, gj2k_file_format format,
                       const gj2k_read_options *read_options, warnings *warned)
{
    gj2k_write_options write_options = {.warning = record_warning, .warning_user = warned};
    uint8_t *data;
    size_t size;
    gj2k_error error = {0};
    gj2k_status status = gj2k_image_write_memory(image, format, warned ? &write_options : NULL,
                                                 &data, &size, &error);
    if (status != GJ2K_OK) {
        fprintf(stderr, "writing %s: %s\n", gj2k_format_name(format), error.message);
        return NULL;
    }
    gj2k_image *back = NULL;
    status = gj2k_image_read_memory(data, size, format, read_options, &back, &error);
    free(data);
    if (status != GJ2K_OK)
        fprintf(stderr, "reading %s back: %s\n", gj2k_format_name(format), error.message);
    return back;
}

/* Component c's samples; a missing component fails the check and reads as zeros. */
const int32_t *samples_of(const gj2k_image *image, uint32_t c)
{
    static const int32_t zeros[1024];
    CHECK(c < image->num_components);
    return c < image->num_components ? image->components[c].samples : zeros;
}

/* Compares component c's samples with the expected list. */
bool samples_are(const gj2k_image *image, uint32_t c, const int32_t *expected, size_t n)
{
    if (c >= image->num_components) {
        fprintf(stderr, "no component %u\n", c);
        return false;
    }
    const gj2k_component *comp = &image->components[c];
    if ((size_t)comp->width * comp->height != n) {
        fprintf(stderr, "component %u holds %zu samples, expected %zu\n", c,
                (size_t)comp->width * comp->height, n);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (comp->samples[i] != expected[i]) {
            fprintf(stderr, "component %u sample %zu: %d, expected %d\n", c, i, comp->samples[i],
                    expected[i]);
            return false;
        }
    return true;
}

/* ------------------------------------------------------ BMP builder */

static void put32(byte_buffer *b, uint32_t v) { byte_buffer_put_u32_le(b, v); }

byte_buffer build_bmp(const bmp_spec *s)
{
    byte_buffer b = {0};
    uint32_t offset = 14 + s->header_size + 4 * s->masks_after_header + (uint32_t)s->palette_bytes;
    byte_buffer_append(&b, "BM", 2);
    put32(&b, offset + (uint32_t)s->pixel_bytes);
    put32(&b, 0);
    put32(&b, offset);
    put32(&b, s->header_size);
    if (s->header_size == 12) {
        byte_buffer_put_u16_le(&b, (uint16_t)s->width);
        byte_buffer_put_u16_le(&b, (uint16_t)s->height);
        byte_buffer_put_u16_le(&b, 1);
        byte_buffer_put_u16_le(&b, s->bits);
    } else {
        put32(&b, (uint32_t)s->width);
        put32(&b, (uint32_t)s->height);
        byte_buffer_put_u16_le(&b, 1);
        byte_buffer_put_u16_le(&b, s->bits);
        put32(&b, s->compression);
        put32(&b, (uint32_t)s->pixel_bytes);
        put32(&b, (uint32_t)s->x_ppm);
        put32(&b, (uint32_t)s->y_ppm);
        put32(&b, s->colors_used);
        put32(&b, 0);
        for (uint32_t i = 0; 40 + 4 * i < s->header_size && i < 4; i++)
            put32(&b, s->masks[i]);
        while (b.size < 14 + s->header_size)
            byte_buffer_put_u8(&b, 0);
        for (uint32_t i = 0; i < s->masks_after_header; i++)
            put32(&b, s->masks[i]);
    }
    byte_buffer_append(&b, s->palette, s->palette_bytes);
    byte_buffer_append(&b, s->pixels, s->pixel_bytes);
    return b;
}

gj2k_status read_bmp(const bmp_spec *spec, const gj2k_read_options *options,
                     gj2k_image **out)
{
    byte_buffer b = build_bmp(spec);
    gj2k_status status = read_bytes(b.data, b.size, GJ2K_FORMAT_UNKNOWN, options, out);
    byte_buffer_free(&b);
    return status;
}

/* A 16-entry colour palette: entry i is r = 10i, g = 10i + 1, b = 10i + 2. */
void colour_palette(uint8_t *palette, int entries)
{
    for (int i = 0; i < entries; i++) {
        palette[4 * i + 0] = (uint8_t)(10 * i + 2);
        palette[4 * i + 1] = (uint8_t)(10 * i + 1);
        palette[4 * i + 2] = (uint8_t)(10 * i);
        palette[4 * i + 3] = 0;
    }
}


/* ------------------------------------------------------ PNG chunks */

/* CRC-32 of PNG chunks (ISO 3309 polynomial, reflected). */
uint32_t crc32_of(const uint8_t *bytes, size_t count)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < count; i++) {
        crc ^= bytes[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

uint32_t get_u32_be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

void put_u32_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Offset of the first chunk of type `type`, or 0 when there is none. */
size_t find_chunk(const uint8_t *data, size_t size, const char *type)
{
    for (size_t at = 8; at + 12 <= size;) {
        uint32_t length = get_u32_be(data + at);
        if (memcmp(data + at + 4, type, 4) == 0)
            return at;
        if (length > size - at - 12)
            break;
        at += 12 + (size_t)length;
    }
    return 0;
}

/* Appends a chunk with its CRC. */
size_t put_chunk(uint8_t *out, const char *type, const uint8_t *payload, uint32_t length)
{
    put_u32_be(out, length);
    memcpy(out + 4, type, 4);
    if (length)
        memcpy(out + 8, payload, length);
    put_u32_be(out + 8 + length, crc32_of(out + 4, 4 + (size_t)length));
    return 12 + (size_t)length;
}


/* Recomputes every chunk's CRC, so that corrupted content reaches the decoder. */
void fix_crcs(uint8_t *data, size_t size)
{
    for (size_t at = 8; at + 12 <= size;) {
        uint32_t length = get_u32_be(data + at);
        if (length > size - at - 12)
            break;
        put_u32_be(data + at + 8 + length, crc32_of(data + at + 4, 4 + (size_t)length));
        at += 12 + (size_t)length;
    }
}

/* ---------------------------------------------------- TIFF directories */

size_t build_tiff(uint8_t *out, const ifd_entry *entries, uint16_t count,
                  const uint8_t *tail, size_t tail_size)
{
    memcpy(out, "II*\0\x08\0\0\0", 8);
    size_t at = 8;
    out[at++] = (uint8_t)count;
    out[at++] = (uint8_t)(count >> 8);
    for (uint16_t i = 0; i < count; i++) {
        uint8_t e[12] = {(uint8_t)entries[i].tag, (uint8_t)(entries[i].tag >> 8),
                         (uint8_t)entries[i].type, 0, (uint8_t)entries[i].count,
                         (uint8_t)(entries[i].count >> 8), (uint8_t)(entries[i].count >> 16),
                         (uint8_t)(entries[i].count >> 24)};
        for (int b = 0; b < 4; b++)
            e[8 + b] = (uint8_t)(entries[i].value >> (8 * b));
        memcpy(out + at, e, 12);
        at += 12;
    }
    memset(out + at, 0, 4);
    at += 4;
    memcpy(out + at, tail, tail_size);
    return at + tail_size;
}
