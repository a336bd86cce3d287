/* test_png.c - PNG reading and writing through libpng: the PNG suite, Adam7,
 * sBIT precision, ICC and pHYs, and malformed input. Reference decodes and
 * the interlaced or sBIT files here are made with libpng directly. */
#include "gj2k.h"
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GJ2K_HAVE_PNG
#include <png.h>
#include <setjmp.h>

/* ------------------------------------------------------------ helpers */

static gj2k_status read_png(const uint8_t *data, size_t size, gj2k_image **image,
                            gj2k_error *error)
{
    return gj2k_image_read_memory(data, size, GJ2K_FORMAT_PNG, NULL, image, error);
}

/* Writes `image` as PNG and reads it back; NULL (after a failed check) on error. */
static gj2k_image *png_round_trip(const gj2k_image *image, warnings *seen)
{
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNG, NULL, seen);
    CHECK(back != NULL);
    return back;
}

static gj2k_image *random_png_image(uint32_t width, uint32_t height, uint32_t count,
                                    const uint32_t *precision)
{
    gj2k_component_info info[4] = {{0}};
    for (uint32_t c = 0; c < count; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision[c]};
    gj2k_image *image = NULL;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, width, height, count, info, &error) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < count; c++)
        for (size_t i = 0; i < (size_t)width * height; i++)
            image->components[c].samples[i] =
                (int32_t)test_random_range(0, ((int64_t)1 << precision[c]) - 1);
    image->color_space = count >= 3 ? GJ2K_COLOR_SRGB : GJ2K_COLOR_GRAY;
    if (count == 2 || count == 4)
        image->components[count - 1].role = GJ2K_ROLE_OPACITY;
    return image;
}

/* libpng used directly by the tests: its errors print and return to here. */
typedef struct png_file_writer {
    uint8_t *data;
    size_t size;
} png_file_writer;

static void grow_write(png_structp png, png_bytep bytes, size_t count)
{
    png_file_writer *w = png_get_io_ptr(png);
    w->data = realloc(w->data, w->size + count);
    memcpy(w->data + w->size, bytes, count);
    w->size += count;
}

static void no_flush(png_structp png) { (void)png; }

/* Writes 8- or 16-bit (or 1/2/4-bit grey) samples with libpng itself,
 * optionally Adam7-interlaced and with an sBIT chunk. */
static uint8_t *libpng_write(const gj2k_image *image, int depth, bool interlaced,
                             const png_color_8 *sbit, size_t *size)
{
    static const int types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    uint32_t w = image->x1, h = image->y1, n = image->num_components;
    size_t row_bytes = ((size_t)w * n * (size_t)depth + 7) / 8;
    uint8_t *pixels = calloc(h, row_bytes);
    png_bytep *rows = malloc(sizeof *rows * h);
    for (uint32_t y = 0; y < h; y++) {
        rows[y] = pixels + y * row_bytes;
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t c = 0; c < n; c++) {
                uint32_t v = (uint32_t)image->components[c].samples[(size_t)y * w + x];
                size_t i = (size_t)x * n + c;
                if (depth == 16) {
                    rows[y][2 * i] = (uint8_t)(v >> 8);
                    rows[y][2 * i + 1] = (uint8_t)v;
                } else if (depth == 8) {
                    rows[y][i] = (uint8_t)v;
                } else {
                    for (int b = 0; b < depth; b++)
                        if (v >> (depth - 1 - b) & 1)
                            rows[y][(i * (size_t)depth + (size_t)b) / 8] |=
                                (uint8_t)(0x80u >> ((i * (size_t)depth + (size_t)b) % 8));
                }
            }
    }
    png_file_writer out = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(pixels);
        free(rows);
        free(out.data);
        return NULL;
    }
    png_set_write_fn(png, &out, grow_write, no_flush);
    png_set_IHDR(png, info, w, h, depth, types[n - 1],
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (sbit != NULL)
        png_set_sBIT(png, info, sbit);
    png_write_info(png, info);
    png_write_image(png, rows); /* runs every Adam7 pass when interlaced */
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(pixels);
    free(rows);
    *size = out.size;
    return out.data;
}

/* ---------------------------------------------------------- the suite */

static const char *const suite[] = {
    "basn0g01", "basn0g02", "basn0g04", "basn0g08", "basn0g16", "basn2c08", "basn2c16",
    "basn3p01", "basn3p02", "basn3p04", "basn3p08", "basn4a08", "basn4a16", "basn6a08",
    "basn6a16", "ftbbn0g01", "ftbbn0g02", "ftbbn0g04", "ftbbn2c16", "ftbbn3p08",
    "ftbgn2c16", "ftbgn3p08", "ftbrn2c08", "ftbwn0g16", "ftbwn3p08", "ftbyn3p08",
    "ftp0n0g08", "ftp0n2c08", "ftp0n3p08", "ftp1n3p08",
};
#define SUITE_SIZE (sizeof suite / sizeof suite[0])

static uint8_t *load_suite(const char *name, size_t *size)
{
    char relative[64];
    snprintf(relative, sizeof relative, "images/pngsuite/%s.png", name);
    uint8_t *data = load_bytes(test_shared_path(relative), size);
    if (data == NULL)
        fprintf(stderr, "cannot read %s\n", relative);
    return data;
}

/* libpng's own expansion (palette to RGB, tRNS to alpha; grey below 8 bits
 * is scaled to 8 when tRNS forces expansion), as a reference decode. */
typedef struct reference {
    const uint8_t *data;
    size_t size, at;
    png_structp png;
    png_infop info;
    png_bytep pixels;
    png_bytep *rows;
    unsigned channels, depth, stored_depth, color_type;
} reference;

static void reference_read(png_structp png, png_bytep out, size_t count)
{
    reference *r = png_get_io_ptr(png);
    if (count > r->size - r->at)
        png_error(png, "end of data");
    memcpy(out, r->data + r->at, count);
    r->at += count;
}

static void reference_body(reference *r)
{
    png_set_read_fn(r->png, r, reference_read);
    png_read_info(r->png, r->info);
    r->stored_depth = png_get_bit_depth(r->png, r->info);
    r->color_type = png_get_color_type(r->png, r->info);
    png_set_palette_to_rgb(r->png);
    png_set_tRNS_to_alpha(r->png);
    png_set_packing(r->png);
    png_read_update_info(r->png, r->info);
    r->channels = png_get_channels(r->png, r->info);
    r->depth = png_get_bit_depth(r->png, r->info);
    uint32_t h = png_get_image_height(r->png, r->info);
    size_t row_bytes = png_get_rowbytes(r->png, r->info);
    r->pixels = malloc(row_bytes * h);
    r->rows = malloc(sizeof *r->rows * h);
    for (uint32_t y = 0; y < h; y++)
        r->rows[y] = r->pixels + y * row_bytes;
    png_read_image(r->png, r->rows);
}

static bool reference_guarded(reference *r)
{
    if (setjmp(png_jmpbuf(r->png)))
        return false;
    reference_body(r);
    return true;
}

static bool reference_matches(const uint8_t *data, size_t size, const gj2k_image *image)
{
    reference r = {.data = data, .size = size};
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    r.info = png_create_info_struct(r.png);
    bool ok = reference_guarded(&r) && r.channels == image->num_components;
    for (uint32_t c = 0; ok && c < image->num_components; c++) {
        const gj2k_component *comp = &image->components[c];
        /* png_set_tRNS_to_alpha expands sub-byte grey to 8 bits (bit replication) */
        bool expanded = r.color_type == PNG_COLOR_TYPE_GRAY && r.stored_depth < 8;
        uint32_t scale = expanded ? 255u / ((1u << comp->precision) - 1) : 1;
        for (size_t i = 0; ok && i < (size_t)comp->width * comp->height; i++) {
            const uint8_t *row = r.rows[i / comp->width];
            size_t k = (i % comp->width) * r.channels + c;
            uint32_t v = r.depth == 16 ? (uint32_t)(row[2 * k] << 8 | row[2 * k + 1]) : row[k];
            ok = v == (uint32_t)comp->samples[i] * scale;
        }
    }
    png_destroy_read_struct(&r.png, &r.info, NULL);
    free(r.pixels);
    free(r.rows);
    return ok;
}

/* Every suite file reads with the layout its name encodes, as libpng decodes it. */
static void pngsuite_reads(void)
{
    for (size_t i = 0; i < SUITE_SIZE; i++) {
        const char *name = suite[i];
        size_t length = strlen(name), size;
        int type = name[length - 4] - '0', depth = atoi(name + length - 2);
        uint8_t *data = load_suite(name, &size);
        REQUIRE(data != NULL);
        bool trns = find_chunk(data, size, "tRNS") != 0;
        uint32_t components = type == 0 ? 1 : type == 4 ? 2 : type == 6 ? 4 : 3;
        if (trns && (type == 0 || type == 2 || type == 3))
            components++;
        gj2k_image *image = NULL;
        gj2k_error error = {0};
        if (read_png(data, size, &image, &error) != GJ2K_OK) {
            fprintf(stderr, "%s: %s\n", name, error.message);
            CHECK(false);
            free(data);
            continue;
        }
        CHECK_EQ(image->x1, 32);
        CHECK_EQ(image->y1, 32);
        CHECK_EQ(image->num_components, components);
        CHECK_EQ(image->color_space, (type == 0 || type == 4) ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB);
        for (uint32_t c = 0; c < components; c++) {
            const gj2k_component *comp = &image->components[c];
            CHECK_EQ(comp->precision, type == 3 ? 8 : depth);
            CHECK(!comp->is_signed && comp->dx == 1 && comp->dy == 1);
            bool alpha = c == components - 1 && components % 2 == 0;
            CHECK_EQ(comp->role, alpha ? GJ2K_ROLE_OPACITY : GJ2K_ROLE_COLOR);
        }
        if (!reference_matches(data, size, image)) {
            fprintf(stderr, "%s differs from libpng's expansion\n", name);
            CHECK(false);
        }
        gj2k_image_destroy(image);
        free(data);
    }
}

/* Suite file -> PNG -> image is exact, and writing is deterministic. */
static void pngsuite_round_trip(void)
{
    for (size_t i = 0; i < SUITE_SIZE; i++) {
        size_t size;
        uint8_t *data = load_suite(suite[i], &size);
        REQUIRE(data != NULL);
        gj2k_image *image = NULL, *back = NULL;
        gj2k_error error;
        REQUIRE(read_png(data, size, &image, &error) == GJ2K_OK);
        back = png_round_trip(image, NULL);
        if (back == NULL || !same_image(image, back)) {
            fprintf(stderr, "%s does not survive a round trip\n", suite[i]);
            CHECK(false);
        }
        uint8_t *first, *second;
        size_t first_size, second_size;
        REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &first, &first_size,
                                        &error) == GJ2K_OK);
        REQUIRE(gj2k_image_write_memory(back, GJ2K_FORMAT_PNG, NULL, &second, &second_size,
                                        &error) == GJ2K_OK);
        CHECK(first_size == second_size && memcmp(first, second, first_size) == 0);
        free(first);
        free(second);
        gj2k_image_destroy(image);
        gj2k_image_destroy(back);
        free(data);
    }
}

/* Reads `data` and checks it equals `expected`. */
static bool reads_as(const uint8_t *data, size_t size, const gj2k_image *expected)
{
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (read_png(data, size, &image, &error) != GJ2K_OK) {
        fprintf(stderr, "read: %s\n", error.message);
        return false;
    }
    bool same = same_image(image, expected);
    gj2k_image_destroy(image);
    return same;
}

/* Adam7 files (written by libpng) decode to the same samples as progressive
 * ones, for the suite's images and for odd sizes at every depth. */
static void adam7_matches_progressive(void)
{
    for (size_t i = 0; i < SUITE_SIZE; i++) {
        size_t size;
        uint8_t *data = load_suite(suite[i], &size);
        REQUIRE(data != NULL);
        gj2k_image *image = NULL;
        gj2k_error error;
        REQUIRE(read_png(data, size, &image, &error) == GJ2K_OK);
        free(data);
        uint32_t p = image->components[0].precision;
        bool uniform = true;
        for (uint32_t c = 0; c < image->num_components; c++)
            uniform = uniform && image->components[c].precision == p;
        if (uniform && (p >= 8 || image->num_components == 1)) {
            size_t interlaced_size;
            uint8_t *interlaced = libpng_write(image, (int)p, true, NULL, &interlaced_size);
            REQUIRE(interlaced != NULL);
            CHECK(interlaced[28] == 1); /* IHDR interlace method: Adam7 */
            if (!reads_as(interlaced, interlaced_size, image)) {
                fprintf(stderr, "%s interlaced differs\n", suite[i]);
                CHECK(false);
            }
            free(interlaced);
        }
        gj2k_image_destroy(image);
    }
    static const uint32_t sizes[][2] = {{1, 1}, {2, 3}, {5, 7}, {9, 9}, {37, 23}, {64, 1}, {1, 40}};
    static const int depths[] = {1, 2, 4, 8, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            for (uint32_t n = 1; n <= 4; n++) {
                if (depths[d] < 8 && n > 1)
                    continue;
                uint32_t precision[4] = {(uint32_t)depths[d], (uint32_t)depths[d],
                                         (uint32_t)depths[d], (uint32_t)depths[d]};
                gj2k_image *image = random_png_image(sizes[s][0], sizes[s][1], n, precision);
                REQUIRE(image != NULL);
                for (int interlace = 0; interlace < 2; interlace++) {
                    size_t size;
                    uint8_t *data = libpng_write(image, depths[d], interlace, NULL, &size);
                    REQUIRE(data != NULL);
                    if (!reads_as(data, size, image)) {
                        fprintf(stderr, "%ux%u depth %d, %u components, interlace %d differs\n",
                                sizes[s][0], sizes[s][1], depths[d], n, interlace);
                        CHECK(false);
                    }
                    free(data);
                }
                gj2k_image_destroy(image);
            }
}

/* Every precision 1..16 with 1..4 components survives exactly, written at
 * the depth the brief gives (1/2/4 for such grey, else 8 or 16, with sBIT). */
static void depths_round_trip(void)
{
    static const int color_types[4] = {0, 4, 2, 6};
    for (uint32_t n = 1; n <= 4; n++)
        for (uint32_t p = 1; p <= 16; p++) {
            uint32_t precision[4] = {p, p, p, p};
            gj2k_image *image = random_png_image((uint32_t)test_random_range(1, 40),
                                                 (uint32_t)test_random_range(1, 20), n, precision);
            REQUIRE(image != NULL);
            uint8_t *data;
            size_t size;
            gj2k_error error;
            REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size,
                                            &error) == GJ2K_OK);
            uint32_t depth = (n == 1 && (p == 1 || p == 2 || p == 4)) ? p : p <= 8 ? 8 : 16;
            CHECK_EQ(data[24], depth);
            CHECK_EQ(data[25], color_types[n - 1]);
            CHECK_EQ(find_chunk(data, size, "sBIT") != 0, p != depth);
            if (!reads_as(data, size, image)) {
                fprintf(stderr, "%u components of %u bits differ\n", n, p);
                CHECK(false);
            }
            free(data);
            gj2k_image_destroy(image);
        }
}

/* sBIT: per-component precisions are recorded and restored; an sBIT that the
 * samples contradict (low bits set) leaves the full depth. */
static void sbit_precision(void)
{
    uint32_t mixed[4] = {5, 6, 5, 3};
    gj2k_image *image = random_png_image(13, 11, 4, mixed);
    REQUIRE(image != NULL);
    uint8_t *data;
    size_t size;
    gj2k_error error;
    REQUIRE(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size, &error) ==
            GJ2K_OK);
    size_t sbit = find_chunk(data, size, "sBIT");
    REQUIRE(sbit != 0);
    CHECK_EQ(get_u32_be(data + sbit), 4);
    CHECK(memcmp(data + sbit + 8, "\x05\x06\x05\x03", 4) == 0);
    CHECK(reads_as(data, size, image));
    free(data);
    gj2k_image_destroy(image);

    /* 8-bit grey written by libpng with sBIT 5 */
    uint32_t eight[1] = {8};
    image = random_png_image(16, 9, 1, eight);
    REQUIRE(image != NULL);
    image->components[0].samples[0] |= 1; /* at least one sample has low bits */
    png_color_8 five = {.gray = 5};
    data = libpng_write(image, 8, false, &five, &size);
    REQUIRE(data != NULL);
    CHECK(reads_as(data, size, image)); /* contradicted: full depth, unchanged */
    free(data);
    size_t count = (size_t)image->x1 * image->y1;
    for (size_t i = 0; i < count; i++)
        image->components[0].samples[i] &= ~7;
    data = libpng_write(image, 8, true, &five, &size);
    REQUIRE(data != NULL);
    gj2k_image *back = NULL;
    REQUIRE(read_png(data, size, &back, &error) == GJ2K_OK);
    CHECK_EQ(back->components[0].precision, 5);
    for (size_t i = 0; i < count; i++)
        CHECK_EQ(back->components[0].samples[i], image->components[0].samples[i] >> 3);
    free(data);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    /* 12 bits in 16-bit RGB */
    uint32_t twelve[3] = {12, 12, 12};
    image = random_png_image(7, 5, 3, twelve);
    REQUIRE(image != NULL);
    back = png_round_trip(image, NULL);
    REQUIRE(back != NULL);
    CHECK(same_image(image, back));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

/* Signed samples are offset (with a warning), out-of-range ones clamped
 * (with a warning); what PNG cannot hold is refused with a message. */
static void signed_and_rejects(void)
{
    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 12, .is_signed = true};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_create(&image, 0, 0, 17, 9, 1, &info, &error) == GJ2K_OK);
    for (size_t i = 0; i < 17 * 9; i++)
        image->components[0].samples[i] = (int32_t)test_random_range(-2048, 2047);
    warnings seen = {0};
    gj2k_image *back = png_round_trip(image, &seen);
    REQUIRE(back != NULL);
    CHECK(seen.count >= 1 && strstr(seen.last, "signed") != NULL);
    CHECK(!back->components[0].is_signed && back->components[0].precision == 12);
    for (size_t i = 0; i < 17 * 9; i++)
        CHECK_EQ(back->components[0].samples[i], image->components[0].samples[i] + 2048);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    info = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    REQUIRE(gj2k_image_create(&image, 0, 0, 3, 1, 1, &info, &error) == GJ2K_OK);
    image->components[0].samples[0] = 300;
    image->components[0].samples[1] = -5;
    image->components[0].samples[2] = 77;
    seen = (warnings){0};
    back = png_round_trip(image, &seen);
    REQUIRE(back != NULL);
    CHECK(strstr(seen.last, "clamped") != NULL);
    CHECK(back->components[0].samples[0] == 255 && back->components[0].samples[1] == 0 &&
          back->components[0].samples[2] == 77);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    uint8_t *data = NULL;
    size_t size;
    info.precision = 17;
    REQUIRE(gj2k_image_create(&image, 0, 0, 4, 4, 1, &info, &error) == GJ2K_OK);
    CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "16 bits") != NULL && data == NULL);
    gj2k_image_destroy(image);

    gj2k_component_info five[5];
    for (int c = 0; c < 5; c++)
        five[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    REQUIRE(gj2k_image_create(&image, 0, 0, 4, 4, 5, five, &error) == GJ2K_OK);
    CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "5") != NULL);
    gj2k_image_destroy(image);

    five[1].dx = 2; /* a subsampled component is smaller */
    REQUIRE(gj2k_image_create(&image, 0, 0, 4, 4, 3, five, &error) == GJ2K_OK);
    CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    gj2k_image_destroy(image);
}

/* A small well-formed ICC profile (ICC.1 section 7.2 header, one tag) that
 * libpng's iCCP checks accept. Its tag holds random bytes: libpng 1.6 reads
 * the first 81 bytes of iCCP as the keyword field and then wants 11 more, so
 * a profile that deflates too well would be refused on reading. */
#define ICC_SIZE 400
static void make_icc(uint8_t *icc, const char *color_space)
{
    memset(icc, 0, ICC_SIZE);
    put_u32_be(icc, ICC_SIZE);
    put_u32_be(icc + 8, 0x02100000);
    memcpy(icc + 12, "mntr", 4);
    memcpy(icc + 16, color_space, 4);
    memcpy(icc + 20, "XYZ ", 4);
    memcpy(icc + 36, "acsp", 4);
    put_u32_be(icc + 68, 0x0000f6d6); /* D50 */
    put_u32_be(icc + 72, 0x00010000);
    put_u32_be(icc + 76, 0x0000d32d);
    put_u32_be(icc + 128, 1);
    memcpy(icc + 132, "cprt", 4);
    put_u32_be(icc + 136, 144);
    put_u32_be(icc + 140, ICC_SIZE - 144);
    memcpy(icc + 144, "text", 4);
    for (size_t i = 152; i < ICC_SIZE; i++)
        icc[i] = (uint8_t)test_random();
}

static void icc_and_resolution(void)
{
    static const char *const spaces[2] = {"GRAY", "RGB "};
    for (int k = 0; k < 2; k++) {
        uint32_t precision[3] = {k ? 8u : 16u, 8, 8};
        gj2k_image *image = random_png_image(9, 7, k ? 3 : 1, precision);
        REQUIRE(image != NULL);
        uint8_t icc[ICC_SIZE];
        make_icc(icc, spaces[k]);
        gj2k_error error;
        REQUIRE(gj2k_image_set_icc_profile(image, icc, sizeof icc, &error) == GJ2K_OK);
        image->resolution_x = 11811; /* 300 dpi */
        image->resolution_y = 5906;
        warnings seen = {0};
        gj2k_image *once = png_round_trip(image, &seen);
        REQUIRE(once != NULL);
        CHECK_EQ(seen.count, 0);
        gj2k_image *twice = png_round_trip(once, NULL);
        REQUIRE(twice != NULL);
        const gj2k_image *both[2] = {once, twice};
        for (int i = 0; i < 2; i++) {
            CHECK(same_image(both[i], image));
            CHECK(both[i]->icc_profile_size == sizeof icc &&
                  memcmp(both[i]->icc_profile, icc, sizeof icc) == 0);
            CHECK(both[i]->resolution_x == 11811 && both[i]->resolution_y == 5906);
        }
        gj2k_image_destroy(once);
        gj2k_image_destroy(twice);

        /* a profile that libpng refuses is left out, with a warning */
        uint8_t junk[50];
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (uint8_t)test_random();
        REQUIRE(gj2k_image_set_icc_profile(image, junk, sizeof junk, &error) == GJ2K_OK);
        image->resolution_x = image->resolution_y = 0;
        seen = (warnings){0};
        once = png_round_trip(image, &seen);
        REQUIRE(once != NULL);
        CHECK(seen.count >= 1 && strstr(seen.last, "ICC") != NULL);
        CHECK(once->icc_profile == NULL && once->resolution_x == 0 && once->resolution_y == 0);
        CHECK(same_image(once, image));
        gj2k_image_destroy(once);
        gj2k_image_destroy(image);
    }
}

/* Every prefix of a file fails: too short for a signature as malformed,
 * the rest as truncated. */
static void truncation(void)
{
    static const char *const names[] = {"basn2c08", "basn3p04", "basn6a16", "ftbwn0g16"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t size;
        uint8_t *data = load_suite(names[k], &size);
        REQUIRE(data != NULL);
        for (size_t cut = 0; cut < size; cut++) {
            uint8_t *prefix = malloc(cut ? cut : 1);
            memcpy(prefix, data, cut);
            gj2k_image *image = (gj2k_image *)&image;
            gj2k_error error = {0};
            gj2k_status status = read_png(prefix, cut, &image, &error);
            CHECK(image == NULL);
            if (status != (cut < 8 ? GJ2K_ERROR_MALFORMED : GJ2K_ERROR_TRUNCATED)) {
                fprintf(stderr, "%s cut at %zu: status %d (%s)\n", names[k], cut, status,
                        error.message);
                CHECK(false);
            }
            gj2k_image_destroy(image);
            free(prefix);
        }
        free(data);
    }
}

static void crc_and_corruption(void)
{
    size_t size;
    uint8_t *data = load_suite("basn6a16", &size);
    REQUIRE(data != NULL);
    size_t idat = find_chunk(data, size, "IDAT");
    REQUIRE(idat != 0);
    /* a damaged CRC of a critical chunk (IHDR at 8, then IDAT) */
    size_t crcs[2] = {8 + 8 + 13, idat + 8 + get_u32_be(data + idat)};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    for (int k = 0; k < 2; k++) {
        data[crcs[k]] ^= 0x10;
        CHECK_EQ(read_png(data, size, &image, &error), GJ2K_ERROR_MALFORMED);
        CHECK(strstr(error.message, "CRC") != NULL);
        data[crcs[k]] ^= 0x10;
    }

    /* Random damage, half of it with valid CRCs; nothing may crash, and
     * whatever decodes must be a sane image. */
    const char *const names[] = {"basn6a16", "basn3p02", "ftbbn0g04", "basn0g16"};
    int decoded = 0;
    for (int round = 0; round < 600; round++) {
        free(data);
        data = load_suite(names[round % 4], &size);
        REQUIRE(data != NULL);
        int flips = (int)test_random_range(1, 4);
        for (int f = 0; f < flips; f++)
            data[test_random_range(8, (int64_t)size - 1)] = (uint8_t)test_random();
        if (round % 2)
            fix_crcs(data, size);
        image = NULL;
        if (read_png(data, size, &image, &error) != GJ2K_OK) {
            CHECK(image == NULL);
            continue;
        }
        decoded++;
        CHECK(image->num_components >= 1 && image->num_components <= 4);
        for (uint32_t c = 0; c < image->num_components; c++) {
            const gj2k_component *comp = &image->components[c];
            CHECK(comp->precision >= 1 && comp->precision <= 16);
            for (size_t i = 0; i < (size_t)comp->width * comp->height; i++)
                if (comp->samples[i] < 0 || comp->samples[i] >> comp->precision != 0) {
                    CHECK(false);
                    break;
                }
        }
        gj2k_image_destroy(image);
    }
    printf("%d of 600 damaged files still decoded\n", decoded);
    free(data);
}

/* Dimensions the file cannot justify, and max_samples, fail with LIMIT. */
static void limits(void)
{
    uint8_t file[128];
    memcpy(file, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = {0};
    put_u32_be(ihdr, 60000);
    put_u32_be(ihdr + 4, 60000);
    ihdr[8] = 8; /* 8-bit grey */
    size_t size = 8 + put_chunk(file + 8, "IHDR", ihdr, 13);
    /* zlib stream: one stored block holding a filter byte and a sample */
    static const uint8_t idat[] = {0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff, 0x00, 0x00,
                                   0x00, 0x02, 0x00, 0x01};
    size += put_chunk(file + size, "IDAT", idat, sizeof idat);
    size += put_chunk(file + size, "IEND", NULL, 0);
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    CHECK_EQ(read_png(file, size, &image, &error), GJ2K_ERROR_LIMIT);
    CHECK(image == NULL && strstr(error.message, "samples") != NULL);

    put_u32_be(ihdr, 0); /* zero width breaks IHDR */
    put_chunk(file + 8, "IHDR", ihdr, 13);
    CHECK_EQ(read_png(file, size, &image, &error), GJ2K_ERROR_MALFORMED);

    uint8_t *data = load_suite("basn2c08", &size);
    REQUIRE(data != NULL);
    gj2k_read_options options = {.max_samples = 32 * 32 * 3 - 1};
    CHECK_EQ(gj2k_image_read_memory(data, size, GJ2K_FORMAT_PNG, &options, &image, &error),
             GJ2K_ERROR_LIMIT);
    options.max_samples = 32 * 32 * 3;
    CHECK_EQ(gj2k_image_read_memory(data, size, GJ2K_FORMAT_PNG, &options, &image, &error),
             GJ2K_OK);
    gj2k_image_destroy(image);
    free(data);
}

static const test_case cases[] = {
    {"pngsuite_reads", pngsuite_reads},
    {"pngsuite_round_trip", pngsuite_round_trip},
    {"adam7_matches_progressive", adam7_matches_progressive},
    {"depths_round_trip", depths_round_trip},
    {"sbit_precision", sbit_precision},
    {"signed_and_rejects", signed_and_rejects},
    {"icc_and_resolution", icc_and_resolution},
    {"truncation", truncation},
    {"crc_and_corruption", crc_and_corruption},
    {"limits", limits},
};

#else /* built without libpng */

/* Asking for PNG fails clearly, naming the missing library. */
static void unavailable(void)
{
    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_create(&image, 0, 0, 2, 2, 1, &info, &error) == GJ2K_OK);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_PNG, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "libpng") != NULL && data == NULL);
    gj2k_image_destroy(image);
    static const uint8_t signature[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    error = (gj2k_error){0};
    CHECK_EQ(gj2k_image_read_memory(signature, sizeof signature, GJ2K_FORMAT_UNKNOWN, NULL,
                                    &image, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "libpng") != NULL && image == NULL);
    CHECK(!gj2k_format_can_read(GJ2K_FORMAT_PNG) && !gj2k_format_can_write(GJ2K_FORMAT_PNG));
}

static const test_case cases[] = {
    {"unavailable", unavailable},
};

#endif

TEST_MAIN(cases)
