/* test_bmp.c - BMP: random round trips, hand-made palette, RLE and
 * direct-colour files, and a V5 header with an embedded ICC profile. */
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bmp_random_round_trips(void)
{
    static const uint32_t counts[] = {1, 3, 4};
    for (int iteration = 0; iteration < 120; iteration++) {
        uint32_t n = counts[iteration % 3];
        gj2k_image *image = random_image(n, 8, false);
        REQUIRE(image != NULL);
        if (n == 4)
            image->components[3].role = GJ2K_ROLE_OPACITY;
        image->resolution_x = (double)test_random_range(0, 10000);
        image->resolution_y = (double)test_random_range(0, 10000);
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->resolution_x == image->resolution_x);
        CHECK(back == NULL || back->resolution_y == image->resolution_y);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }

    /* Grey + alpha becomes 32-bit with the grey replicated. */
    gj2k_image *image = make_image(3, 2, 2, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    fill_random(image);
    image->components[1].role = GJ2K_ROLE_OPACITY;
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_BMP, NULL, NULL);
    REQUIRE(back != NULL);
    CHECK_EQ(back->num_components, 4);
    CHECK(back->components[3].role == GJ2K_ROLE_OPACITY);
    for (uint32_t c = 0; c < 3; c++)
        CHECK(samples_are(back, c, samples_of(image, 0), 6));
    CHECK(samples_are(back, 3, samples_of(image, 1), 6));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    /* Other precisions become 8 bits, with a warning: 4 bits shift up, 12
     * bits round; signed samples are offset. */
    image = make_image(2, 1, 1, 4, false, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = 15;
    image->components[0].samples[1] = 3;
    warnings warned = {0};
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count >= 1);
    CHECK(samples_are(back, 0, (const int32_t[]){240, 48}, 2));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    image = make_image(3, 1, 1, 12, true, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = -2048;
    image->components[0].samples[1] = 0;
    image->components[0].samples[2] = 2047;
    warned = (warnings){0};
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count >= 2);
    CHECK(samples_are(back, 0, (const int32_t[]){0, (2048 * 255 + 2047) / 4095, 255}, 3));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    /* An ICC profile travels in a V5 header. */
    image = make_image(5, 3, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    fill_random(image);
    uint8_t profile[300];
    for (size_t i = 0; i < sizeof profile; i++)
        profile[i] = (uint8_t)(i * 7 + 1);
    REQUIRE(gj2k_image_set_icc_profile(image, profile, sizeof profile, NULL) == GJ2K_OK);
    back = round_trip(image, GJ2K_FORMAT_BMP, NULL, NULL);
    REQUIRE(back != NULL);
    CHECK(images_equal(image, back));
    CHECK(back->icc_profile_size == sizeof profile &&
          memcmp(back->icc_profile, profile, sizeof profile) == 0);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

/* Checks an RGB image against palette indices of colour_palette. */
static bool indices_are(const gj2k_image *image, const uint8_t *indices, size_t n)
{
    if (image->num_components != 3)
        return false;
    for (uint32_t c = 0; c < 3; c++)
        for (size_t i = 0; i < n; i++)
            if (image->components[c].samples[i] != 10 * indices[i] + (int32_t)c) {
                fprintf(stderr, "component %u pixel %zu: %d, expected index %u\n", c, i,
                        image->components[c].samples[i], indices[i]);
                return false;
            }
    return true;
}

static void bmp_palette_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};
    uint8_t palette[16 * 4];
    colour_palette(palette, 16);

    /* 1-bit, bottom-up, width 3: stored rows are padded to 4 bytes. */
    bmp_spec s = {.header_size = 40, .width = 3, .height = 2, .bits = 1, .palette = palette,
                  .palette_bytes = 8, .pixels = (const uint8_t[]){0xa0, 0, 0, 0, 0x60, 0, 0, 0},
                  .pixel_bytes = 8, .x_ppm = 2835, .y_ppm = 1000};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->color_space == GJ2K_COLOR_SRGB);
    CHECK(indices_are(image, (const uint8_t[]){0, 1, 1, 1, 0, 1}, 6));
    CHECK(image->resolution_x == 2835 && image->resolution_y == 1000);
    gj2k_image_destroy(image);

    /* 4-bit grey palette, top-down: one grey component. */
    uint8_t grey[16 * 4];
    for (int i = 0; i < 16; i++)
        memset(grey + 4 * i, 17 * i, 3), grey[4 * i + 3] = 0;
    s = (bmp_spec){.header_size = 40, .width = 5, .height = -2, .bits = 4, .palette = grey,
                   .palette_bytes = 64,
                   .pixels = (const uint8_t[]){0x01, 0x23, 0x40, 0, 0xfe, 0xdc, 0xb0, 0},
                   .pixel_bytes = 8};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 17, 34, 51, 68, 255, 238, 221, 204, 187},
                      10));
    gj2k_image_destroy(image);

    /* 8-bit with 3 palette entries; index 5 lies beyond them. */
    s = (bmp_spec){.header_size = 40, .width = 2, .height = 1, .bits = 8, .colors_used = 3,
                   .palette = palette, .palette_bytes = 12,
                   .pixels = (const uint8_t[]){2, 1, 0, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(indices_are(image, (const uint8_t[]){2, 1}, 2));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 5, 0, 0};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);
    s.pixels = (const uint8_t[]){3, 0, 0, 0};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);

    /* Only the entries in use decide between grey and colour. */
    uint8_t mixed[3 * 4] = {40, 40, 40, 0, 0, 0, 255, 0, 90, 90, 90, 0};
    s = (bmp_spec){.header_size = 40, .width = 3, .height = 1, .bits = 8, .colors_used = 3,
                   .palette = mixed, .palette_bytes = sizeof mixed,
                   .pixels = (const uint8_t[]){2, 0, 2, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){90, 40, 90}, 3));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 1, 2, 0};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_are(image, 0, (const int32_t[]){90, 255, 90}, 3));
    CHECK(samples_are(image, 1, (const int32_t[]){90, 0, 90}, 3));
    gj2k_image_destroy(image);

    /* OS/2 core header: 3-byte palette entries, 8 bits. */
    s = (bmp_spec){.header_size = 12, .width = 3, .height = 1, .bits = 8,
                   .palette = (const uint8_t[]){0, 0, 255, 0, 255, 0, 255, 0, 0},
                   .palette_bytes = 9,
                   .pixels = (const uint8_t[]){2, 0, 1, 0}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 255, 0}, 3));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 0, 255}, 3));
    CHECK(samples_are(image, 2, (const int32_t[]){255, 0, 0}, 3));
    gj2k_image_destroy(image);

    /* RLE8: a run, an absolute run with its pad byte, end of line, a delta
     * and end of bitmap. Skipped pixels take index 0. */
    static const uint8_t rle8[] = {3, 1, 0, 3, 2, 3, 2, 0, 0, 0,   /* row 0 */
                                   2, 4, 0, 2, 2, 1,               /* row 1, delta (2,1) */
                                   2, 5, 0, 1};                    /* row 2 at x = 4, end */
    s = (bmp_spec){.header_size = 40, .width = 6, .height = 3, .bits = 8, .compression = 1,
                   .palette = palette, .palette_bytes = 64, .colors_used = 16,
                   .pixels = rle8, .pixel_bytes = sizeof rle8};
    warned.count = 0;
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 0);
    CHECK(indices_are(image, (const uint8_t[]){0, 0, 0, 0, 5, 5, 4, 4, 0, 0, 0, 0,
                                               1, 1, 1, 2, 3, 2}, 18));
    gj2k_image_destroy(image);

    /* RLE4: alternating run nibbles, absolute runs (one padded), a delta. */
    static const uint8_t rle4[] = {4, 0x12, 0, 3, 0x34, 0x50, 0, 0,             /* row 0 */
                                   0, 5, 0x67, 0x89, 0xa0, 0, 0, 2, 1, 0,       /* row 1 */
                                   1, 0xf0, 0, 1};
    s = (bmp_spec){.header_size = 40, .width = 7, .height = 2, .bits = 4, .compression = 2,
                   .palette = palette, .palette_bytes = 64,
                   .pixels = rle4, .pixel_bytes = sizeof rle4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(indices_are(image, (const uint8_t[]){6, 7, 8, 9, 10, 0, 15, 1, 2, 1, 2, 3, 4, 5}, 14));
    gj2k_image_destroy(image);

    /* A run past the row's end is clipped with a warning; a delta past the
     * last row is harmless; data that stops early is truncated. */
    static const uint8_t rle_long[] = {9, 3, 0, 2, 0, 5, 0, 1};
    s = (bmp_spec){.header_size = 40, .width = 4, .height = 2, .bits = 8, .compression = 1,
                   .palette = palette, .palette_bytes = 64,
                   .pixels = rle_long, .pixel_bytes = sizeof rle_long};
    warned.count = 0;
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    CHECK(indices_are(image, (const uint8_t[]){0, 0, 0, 0, 3, 3, 3, 3}, 8));
    gj2k_image_destroy(image);
    s.pixels = (const uint8_t[]){2, 3, 0, 0};
    s.pixel_bytes = 4;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
    s.pixels = (const uint8_t[]){0, 8, 1, 2};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
}

static void bmp_direct_colour_files(void)
{
    gj2k_image *image;
    gj2k_read_options options = {0};

    /* 16-bit BI_RGB is 5-5-5, scaled to 8 bits. */
    bmp_spec s = {.header_size = 40, .width = 2, .height = 1, .bits = 16,
                  .pixels = (const uint8_t[]){0x00, 0x7c, 0xf0, 0x03}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3 && image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){255, 0}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 255}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){0, (16 * 255 + 15) / 31}, 2));
    gj2k_image_destroy(image);

    /* 16-bit 5-6-5 bit fields after a 40-byte header. */
    s = (bmp_spec){.header_size = 40, .width = 2, .height = 1, .bits = 16, .compression = 3,
                   .masks = {0xf800, 0x07e0, 0x001f}, .masks_after_header = 3,
                   .pixels = (const uint8_t[]){0xff, 0xff, 0x41, 0x08}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){255, (255 + 15) / 31}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){255, (2 * 255 + 31) / 63}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){255, (255 + 15) / 31}, 2));
    gj2k_image_destroy(image);

    /* 24-bit, 3 wide (rows padded to 12 bytes), bottom-up then top-down. */
    uint8_t rows[24];
    for (int i = 0; i < 24; i++)
        rows[i] = (uint8_t)(i % 12 < 9 ? 100 + i : 0);
    for (int top_down = 0; top_down < 2; top_down++) {
        s = (bmp_spec){.header_size = 40, .width = 3, .height = top_down ? -2 : 2, .bits = 24,
                       .pixels = rows, .pixel_bytes = 24};
        REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
        for (uint32_t y = 0; y < 2; y++)
            for (uint32_t x = 0; x < 3; x++) {
                const uint8_t *px = rows + 12 * (top_down ? y : 1 - y) + 3 * x;
                size_t i = y * 3 + x;
                CHECK(samples_of(image, 0)[i] == px[2] && samples_of(image, 1)[i] == px[1] &&
                      samples_of(image, 2)[i] == px[0]);
            }
        gj2k_image_destroy(image);
    }

    /* 32-bit BI_RGB: BGRX, the fourth byte is not alpha. */
    s = (bmp_spec){.header_size = 40, .width = 1, .height = 1, .bits = 32,
                   .pixels = (const uint8_t[]){1, 2, 3, 99}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK(image->num_components == 3);
    CHECK(samples_of(image, 0)[0] == 3 && samples_of(image, 1)[0] == 2 &&
          samples_of(image, 2)[0] == 1);
    gj2k_image_destroy(image);

    /* 32-bit BI_RGB in a V4 header whose alpha mask is set: BGRA. */
    s = (bmp_spec){.header_size = 108, .width = 1, .height = 1, .bits = 32,
                   .masks = {0, 0, 0, 0xff000000},
                   .pixels = (const uint8_t[]){1, 2, 3, 99}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_of(image, 0)[0] == 3 && samples_of(image, 3)[0] == 99);
    gj2k_image_destroy(image);

    /* 32-bit bit fields in a V4 header with an alpha mask. */
    s = (bmp_spec){.header_size = 108, .width = 2, .height = 1, .bits = 32, .compression = 3,
                   .masks = {0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000},
                   .pixels = (const uint8_t[]){1, 2, 3, 4, 5, 6, 7, 8}, .pixel_bytes = 8};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_are(image, 0, (const int32_t[]){3, 7}, 2));
    CHECK(samples_are(image, 3, (const int32_t[]){4, 8}, 2));
    gj2k_image_destroy(image);

    /* Unusual masks in a 56-byte header: 10 bits of red, 2 of alpha. */
    s = (bmp_spec){.header_size = 56, .width = 1, .height = 1, .bits = 32, .compression = 3,
                   .masks = {0x3ff00000, 0x000ffc00, 0x000003ff, 0xc0000000},
                   .pixels = (const uint8_t[]){0xff, 0x03, 0xf0, 0x7f}, .pixel_bytes = 4};
    REQUIRE(read_bmp(&s, &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(samples_of(image, 0)[0] == (0x3ff * 255 + 511) / 1023 && samples_of(image, 1)[0] == 0 &&
          samples_of(image, 2)[0] == 255 && samples_of(image, 3)[0] == (255 + 1) / 3);
    gj2k_image_destroy(image);

    /* Unsupported and malformed headers. */
    s = (bmp_spec){.header_size = 40, .width = 1, .height = 1, .bits = 24, .compression = 4,
                   .pixels = (const uint8_t[]){1, 2, 3, 0}, .pixel_bytes = 4};
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
    s.compression = 0;
    s.bits = 2;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
    s.bits = 24;
    s.width = 0;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_MALFORMED);
    s.width = 2;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_TRUNCATED);
    s.width = 1;
    s.header_size = 64;
    CHECK(read_bmp(&s, &options, &image) == GJ2K_ERROR_UNSUPPORTED);
}

static void bmp_v5_embedded_profile(void)
{
    /* A hand-made V5 header whose profile lies after the pixels. */
    uint8_t profile[40];
    for (size_t i = 0; i < sizeof profile; i++)
        profile[i] = (uint8_t)(200 - i);
    bmp_spec s = {.header_size = 124, .width = 1, .height = 1, .bits = 24,
                  .pixels = (const uint8_t[]){9, 8, 7, 0}, .pixel_bytes = 4};
    byte_buffer b = build_bmp(&s);
    byte_buffer_append(&b, profile, sizeof profile);
    uint8_t *h = b.data + 14;
    memcpy(h + 56, "DEBM", 4); /* 'MBED' little-endian */
    uint32_t offset = (uint32_t)(b.size - sizeof profile - 14);
    for (int i = 0; i < 4; i++) {
        h[112 + i] = (uint8_t)(offset >> (8 * i));
        h[116 + i] = (uint8_t)(sizeof profile >> (8 * i));
    }
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};
    REQUIRE(read_bytes(b.data, b.size, GJ2K_FORMAT_BMP, &options, &image) == GJ2K_OK);
    CHECK(image->icc_profile_size == sizeof profile &&
          memcmp(image->icc_profile, profile, sizeof profile) == 0);
    CHECK(samples_of(image, 0)[0] == 7);
    gj2k_image_destroy(image);
    /* A profile reaching past the end of the file is ignored with a warning. */
    h[116] = (uint8_t)(sizeof profile + 1);
    REQUIRE(read_bytes(b.data, b.size, GJ2K_FORMAT_BMP, &options, &image) == GJ2K_OK);
    CHECK(image->icc_profile == NULL && warned.count == 1);
    gj2k_image_destroy(image);
    byte_buffer_free(&b);
}

static const test_case cases[] = {
    {"bmp_random_round_trips", bmp_random_round_trips},
    {"bmp_palette_files", bmp_palette_files},
    {"bmp_direct_colour_files", bmp_direct_colour_files},
    {"bmp_v5_embedded_profile", bmp_v5_embedded_profile},
};

TEST_MAIN(cases)
