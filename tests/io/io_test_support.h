/* io_test_support.h - helpers shared by the image file format tests (PNM,
 * PGX, BMP, raw, PNG and TIFF): warning capture, file loading, random images,
 * image comparison, and byte builders for hand-made BMP, PNG and TIFF files.
 * Compiled into each test program that uses it (images_equal: also into
 * test_encoder and fuzz_encode). */
#ifndef GJ2K_IO_TEST_SUPPORT_H
#define GJ2K_IO_TEST_SUPPORT_H

#include "byte_buffer.h"
#include "gj2k.h"
#include "test_harness.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------ general helpers */

/* Counts the warnings a reader or writer gives and keeps the last one; the
 * callback is record_warning (test_harness.h). */
typedef test_warnings warnings;

/* test_read_file (test_harness.h), under the name the format tests use. */
uint8_t *load_bytes(const char *path, size_t *size);
/* Reads images/`relative` under the shared directory; NULL after a failed check. */
gj2k_image *read_shared(const char *relative);

/* Same geometry, precision, sign, roles and samples (quietly). */
bool same_image(const gj2k_image *a, const gj2k_image *b);
/* True when every sample lies in its component's precision range. */
bool samples_in_range(const gj2k_image *image);

/* ------------------------------------------- the uncompressed formats */

/* Reads from memory, checking that success and failure are reported consistently. */
gj2k_status read_bytes(const void *data, size_t size, gj2k_file_format format,
                       const gj2k_read_options *options, gj2k_image **out);
/* Reads a NUL-terminated header followed by `extra` raw bytes. */
gj2k_status read_text(const char *header, const void *extra, size_t extra_size,
                      gj2k_file_format format, const gj2k_read_options *options,
                      gj2k_image **out);
/* A damaged file: a NUL-terminated header, `extra` zero bytes (at most 16)
 * after it, and the status reading it must give. */
typedef struct bad_header {
    const char *text;
    size_t extra;
    gj2k_status status;
} bad_header;
/* Reads each of the `count` files in `format`, checking each gives its status. */
void check_bad_headers(const bad_header *bad, size_t count, gj2k_file_format format,
                       const gj2k_read_options *options);
/* An image of n like components (dx, dy: per component, NULL for all 1). */
gj2k_image *make_image(uint32_t width, uint32_t height, uint32_t n, uint32_t precision,
                       bool is_signed, const uint32_t *dx, const uint32_t *dy);
/* Random samples, with the extremes of the range favoured. */
void fill_random(gj2k_image *image);
/* A randomly sized image of random samples. */
gj2k_image *random_image(uint32_t n, uint32_t precision, bool is_signed);
/* True when both images have the same geometry (origin, size, subsampling),
 * components (precision, sign, role) and samples (printing the first
 * difference). Components of up to 31 bits only: it compares `samples`. */
bool images_equal(const gj2k_image *a, const gj2k_image *b);
/* Writes `image` in `format` and reads it back (NULL on failure). */
gj2k_image *round_trip(const gj2k_image *image, gj2k_file_format format,
                       const gj2k_read_options *read_options, warnings *warned);
/* Component c's samples; a missing component fails the check and reads as zeros. */
const int32_t *samples_of(const gj2k_image *image, uint32_t c);
/* Compares component c's samples with the expected list. */
bool samples_are(const gj2k_image *image, uint32_t c, const int32_t *expected, size_t n);

/* ------------------------------------------------------ BMP builder */

typedef struct bmp_spec {
    uint32_t header_size;          /* 12, 40, 52, 56, 108 or 124 */
    int32_t width, height;
    uint16_t bits;
    uint32_t compression;
    uint32_t colors_used;
    uint32_t masks[4];
    uint32_t masks_after_header;   /* 3 or 4 masks after a 40-byte header */
    const uint8_t *palette;        /* entries of 4 bytes (3 for a 12-byte header) */
    size_t palette_bytes;
    const uint8_t *pixels;
    size_t pixel_bytes;
    int32_t x_ppm, y_ppm;
} bmp_spec;

/* The file `s` describes (the caller frees it). */
byte_buffer build_bmp(const bmp_spec *s);
/* Builds the file and reads it, letting gj2k detect the format. */
gj2k_status read_bmp(const bmp_spec *spec, const gj2k_read_options *options,
                     gj2k_image **out);
/* A colour palette: entry i is r = 10i, g = 10i + 1, b = 10i + 2. */
void colour_palette(uint8_t *palette, int entries);

/* ------------------------------------------------------ PNG chunks */

/* CRC-32 of PNG chunks (ISO 3309 polynomial, reflected). */
uint32_t crc32_of(const uint8_t *bytes, size_t count);
uint32_t get_u32_be(const uint8_t *p);
void put_u32_be(uint8_t *p, uint32_t v);
/* Offset of the first chunk of type `type`, or 0 when there is none. */
size_t find_chunk(const uint8_t *data, size_t size, const char *type);
/* Appends a chunk with its CRC; returns its size. */
size_t put_chunk(uint8_t *out, const char *type, const uint8_t *payload, uint32_t length);
/* Recomputes every chunk's CRC, so that corrupted content reaches the decoder. */
void fix_crcs(uint8_t *data, size_t size);

/* ---------------------------------------------------- TIFF directories */

/* A little-endian classic TIFF with one IFD of SHORT/LONG entries, followed
 * by `tail` bytes (at offset 8 + 2 + 12 * count + 4). */
typedef struct ifd_entry {
    uint16_t tag, type;
    uint32_t count, value;
} ifd_entry;

size_t build_tiff(uint8_t *out, const ifd_entry *entries, uint16_t count,
                  const uint8_t *tail, size_t tail_size);

#endif
