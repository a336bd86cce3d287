/* test_raw.c - raw samples (big- and little-endian): random round trips,
 * subsampled and signed layouts, and unusable geometries. */
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void raw_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        gj2k_raw_geometry g = {.num_components = (uint32_t)test_random_range(1, 5),
                               .precision = (uint32_t)test_random_range(1, 16),
                               .is_signed = test_random_range(0, 1) != 0};
        uint32_t dx[8], dy[8];
        for (uint32_t c = 0; c < g.num_components; c++) {
            dx[c] = c < 4 ? (uint32_t)test_random_range(1, 3) : 1;
            dy[c] = c < 4 ? (uint32_t)test_random_range(1, 3) : 1;
            if (c < 4) {
                g.dx[c] = dx[c] == 1 && test_random_range(0, 1) ? 0 : dx[c]; /* 0 means 1 */
                g.dy[c] = dy[c];
            }
        }
        g.width = (uint32_t)test_random_range(1, 37);
        g.height = (uint32_t)test_random_range(1, 37);
        gj2k_image *image = make_image(g.width, g.height, g.num_components, g.precision,
                                       g.is_signed, dx, dy);
        REQUIRE(image != NULL);
        fill_random(image);
        gj2k_read_options options = {.raw = &g};
        gj2k_file_format format = iteration % 2 ? GJ2K_FORMAT_RAW : GJ2K_FORMAT_RAWL;
        gj2k_image *back = round_trip(image, format, &options, NULL);
        CHECK(back != NULL && images_equal(image, back));
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
}

static void raw_subsampled_and_signed(void)
{
    gj2k_image *image;
    warnings warned = {0};
    /* 4:2:0 on a 3x3 grid: the chroma planes are 2x2. */
    gj2k_raw_geometry g = {.width = 3, .height = 3, .num_components = 3, .precision = 8,
                           .dx = {1, 2, 2}, .dy = {1, 2, 2}};
    gj2k_read_options options = {.raw = &g, .warning = record_warning, .warning_user = &warned};
    uint8_t bytes[18];
    for (int i = 0; i < 18; i++)
        bytes[i] = (uint8_t)(i * 3);
    REQUIRE(read_bytes(bytes, 17, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 3);
    CHECK(image->x1 == 3 && image->y1 == 3);
    CHECK(image->components[1].width == 2 && image->components[1].height == 2 &&
          image->components[1].dx == 2 && image->components[2].dy == 2);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 3, 6, 9, 12, 15, 18, 21, 24}, 9));
    CHECK(samples_are(image, 1, (const int32_t[]){27, 30, 33, 36}, 4));
    CHECK(samples_are(image, 2, (const int32_t[]){39, 42, 45, 48}, 4));
    CHECK(warned.count == 0);
    gj2k_image_destroy(image);
    CHECK(read_bytes(bytes, 16, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_ERROR_TRUNCATED);
    REQUIRE(read_bytes(bytes, 18, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    gj2k_image_destroy(image);

    /* Signed 12-bit: full 16-bit two's complement or 12-bit patterns. */
    g = (gj2k_raw_geometry){.width = 4, .height = 1, .num_components = 1, .precision = 12,
                            .is_signed = true};
    static const uint8_t be[] = {0xf8, 0x00, 0x07, 0xff, 0x0f, 0xff, 0x08, 0x00};
    static const uint8_t le[] = {0x00, 0xf8, 0xff, 0x07, 0xff, 0x0f, 0x00, 0x08};
    REQUIRE(read_bytes(be, 8, GJ2K_FORMAT_RAW, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].is_signed && image->components[0].precision == 12);
    CHECK(samples_are(image, 0, (const int32_t[]){-2048, 2047, -1, -2048}, 4));
    gj2k_image_destroy(image);
    REQUIRE(read_bytes(le, 8, GJ2K_FORMAT_RAWL, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){-2048, 2047, -1, -2048}, 4));
    gj2k_image_destroy(image);
    /* -4096 and 4096 do not fit in 12 bits. */
    CHECK(read_bytes((const uint8_t[]){0xf0, 0, 0, 0, 0, 0, 0, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    CHECK(read_bytes((const uint8_t[]){0x10, 0, 0, 0, 0, 0, 0, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    g.is_signed = false;
    CHECK(read_bytes((const uint8_t[]){0, 0, 0, 0, 0, 0, 0x10, 0}, 8, GJ2K_FORMAT_RAW, &options,
                     &image) == GJ2K_ERROR_MALFORMED);
    g.precision = 7;
    CHECK(read_bytes((const uint8_t[]){0, 0x80, 0, 0}, 4, GJ2K_FORMAT_RAW, &options, &image) ==
          GJ2K_ERROR_MALFORMED);

    /* No geometry, or an unusable one. */
    options.raw = NULL;
    CHECK(read_bytes(bytes, 4, GJ2K_FORMAT_RAW, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    options.raw = &g;
    g.precision = 17;
    CHECK(read_bytes(bytes, 18, GJ2K_FORMAT_RAWL, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    g.precision = 8;
    g.width = 0;
    CHECK(read_bytes(bytes, 18, GJ2K_FORMAT_RAWL, &options, &image) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
}

static const test_case cases[] = {
    {"raw_random_round_trips", raw_random_round_trips},
    {"raw_subsampled_and_signed", raw_subsampled_and_signed},
};

TEST_MAIN(cases)
