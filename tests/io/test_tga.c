/* test_tga.c - TGA: random round trips (grey, RGB, RGBA), hand-made files
 * of each kind the reader takes (run-length packets, bottom-left origin,
 * right-to-left, 5-5-5 pixels, a colour map), and damaged ones. */
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tga_random_round_trips(void)
{
    static const uint32_t counts[] = {1, 3, 4};
    for (int iteration = 0; iteration < 90; iteration++) {
        uint32_t n = counts[iteration % 3];
        gj2k_image *image = random_image(n, 8, false);
        REQUIRE(image != NULL);
        if (n == 4)
            image->components[3].role = GJ2K_ROLE_OPACITY;
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_TGA, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
    /* what the writer refuses: 16-bit samples, two components */
    gj2k_image *deep = make_image(5, 4, 3, 12, false, NULL, NULL);
    gj2k_image *two = make_image(5, 4, 2, 8, false, NULL, NULL);
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    CHECK_EQ(gj2k_image_write_memory(deep, GJ2K_FORMAT_TGA, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "PNG or TIFF") != NULL);
    CHECK_EQ(gj2k_image_write_memory(two, GJ2K_FORMAT_TGA, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    gj2k_image_destroy(deep);
    gj2k_image_destroy(two);
}

/* An 18-byte header: image type, width, height, bits a pixel, descriptor,
 * and a colour map of `map_count` entries of `map_depth` bits. */
static size_t header(uint8_t *h, unsigned type, unsigned width, unsigned height, unsigned depth,
                     unsigned descriptor, unsigned map_count, unsigned map_depth)
{
    memset(h, 0, 18);
    h[1] = map_count ? 1 : 0;
    h[2] = (uint8_t)type;
    h[5] = (uint8_t)map_count, h[6] = (uint8_t)(map_count >> 8);
    h[7] = (uint8_t)map_depth;
    h[12] = (uint8_t)width, h[13] = (uint8_t)(width >> 8);
    h[14] = (uint8_t)height, h[15] = (uint8_t)(height >> 8);
    h[16] = (uint8_t)depth;
    h[17] = (uint8_t)descriptor;
    return 18;
}

static void tga_hand_made_files(void)
{
    uint8_t file[128];
    gj2k_image *image = NULL;
    /* RLE true colour, 3x2, bottom-left origin: a run of 3 red, then a
       literal packet of green, blue, white; the first row stored is the
       bottom one */
    size_t n = header(file, 10, 3, 2, 24, 0, 0, 0);
    const uint8_t rle[] = {0x82, 0, 0, 255, 0x02, 0, 255, 0, 255, 0, 0, 255, 255, 255};
    memcpy(file + n, rle, sizeof rle);
    REQUIRE(read_bytes(file, n + sizeof rle, GJ2K_FORMAT_TGA, NULL, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 3);
    CHECK_EQ(image->color_space, GJ2K_COLOR_SRGB);
    const int32_t red[] = {0, 0, 255, 255, 255, 255}, green[] = {255, 0, 255, 0, 0, 0},
                  blue[] = {0, 255, 255, 0, 0, 0};
    CHECK(samples_are(image, 0, red, 6));
    CHECK(samples_are(image, 1, green, 6));
    CHECK(samples_are(image, 2, blue, 6));
    gj2k_image_destroy(image);

    /* grey, top-left and right to left */
    n = header(file, 3, 3, 1, 8, 0x30, 0, 0);
    const uint8_t grey[] = {10, 20, 30};
    memcpy(file + n, grey, sizeof grey);
    REQUIRE(read_bytes(file, n + sizeof grey, GJ2K_FORMAT_TGA, NULL, &image) == GJ2K_OK);
    const int32_t mirrored[] = {30, 20, 10};
    CHECK_EQ(image->color_space, GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, mirrored, 3));
    gj2k_image_destroy(image);

    /* 5-5-5: white, pure red (scaled to 8 bits) */
    n = header(file, 2, 2, 1, 16, 0x20, 0, 0);
    const uint8_t five[] = {0xff, 0x7f, 0x00, 0x7c};
    memcpy(file + n, five, sizeof five);
    REQUIRE(read_bytes(file, n + sizeof five, GJ2K_FORMAT_TGA, NULL, &image) == GJ2K_OK);
    const int32_t r5[] = {255, 255}, g5[] = {255, 0};
    CHECK(samples_are(image, 0, r5, 2));
    CHECK(samples_are(image, 1, g5, 2));
    gj2k_image_destroy(image);

    /* colour-mapped, 32-bit entries with alpha: indices 1, 0, and 7 (off
       the map: black, opaque) */
    n = header(file, 1, 3, 1, 8, 0x20, 2, 32);
    const uint8_t mapped[] = {1, 2, 3, 40, 50, 60, 70, 80, 1, 0, 7};
    memcpy(file + n, mapped, sizeof mapped);
    REQUIRE(read_bytes(file, n + sizeof mapped, GJ2K_FORMAT_TGA, NULL, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK_EQ(image->components[3].role, GJ2K_ROLE_OPACITY);
    const int32_t mr[] = {70, 3, 0}, ma[] = {80, 40, 255};
    CHECK(samples_are(image, 0, mr, 3));
    CHECK(samples_are(image, 3, ma, 3));
    gj2k_image_destroy(image);
}

static void tga_damaged_files(void)
{
    uint8_t file[64] = {0};
    gj2k_image *image = NULL;
    CHECK_EQ(read_bytes(file, 10, GJ2K_FORMAT_TGA, NULL, &image), GJ2K_ERROR_TRUNCATED);
    size_t n = header(file, 2, 4, 4, 24, 0, 0, 0); /* 48 bytes of pixels needed */
    CHECK_EQ(read_bytes(file, n + 20, GJ2K_FORMAT_TGA, NULL, &image), GJ2K_ERROR_TRUNCATED);
    n = header(file, 10, 4, 4, 24, 0, 0, 0); /* a run of 4, then the data ends */
    const uint8_t short_rle[] = {0x83, 1, 2, 3, 0x05, 9};
    memcpy(file + n, short_rle, sizeof short_rle);
    CHECK_EQ(read_bytes(file, n + sizeof short_rle, GJ2K_FORMAT_TGA, NULL, &image),
             GJ2K_ERROR_TRUNCATED);
    n = header(file, 2, 4, 4, 12, 0, 0, 0);
    CHECK_EQ(read_bytes(file, n + 40, GJ2K_FORMAT_TGA, NULL, &image), GJ2K_ERROR_UNSUPPORTED);
    n = header(file, 7, 4, 4, 24, 0, 0, 0);
    CHECK_EQ(read_bytes(file, n + 48, GJ2K_FORMAT_TGA, NULL, &image), GJ2K_ERROR_UNSUPPORTED);
    /* 65535 x 65535 from a few bytes of run-length data: refused before allocating */
    n = header(file, 11, 65535, 65535, 8, 0, 0, 0);
    file[n] = 0xff, file[n + 1] = 7;
    CHECK_EQ(read_bytes(file, n + 2, GJ2K_FORMAT_TGA, NULL, &image), GJ2K_ERROR_LIMIT);
    CHECK(image == NULL);
}

static const test_case cases[] = {
    {"tga_random_round_trips", tga_random_round_trips},
    {"tga_hand_made_files", tga_hand_made_files},
    {"tga_damaged_files", tga_damaged_files},
};

TEST_MAIN(cases)
