/* test_pgx.c - PGX: random round trips and hand-made files with known
 * samples, every depth in both byte orders. */
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pgx_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t precision = (uint32_t)(iteration < 31 ? iteration + 1 : test_random_range(1, 31));
        bool is_signed = test_random_range(0, 1) != 0;
        gj2k_image *image = random_image(1, precision, is_signed);
        REQUIRE(image != NULL);
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_PGX, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->color_space == GJ2K_COLOR_GRAY);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
}

static void pgx_hand_made_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};

    REQUIRE(read_text("PG ML +12 3 2\n", (const uint8_t[]){0, 1, 0x0f, 0xff, 1, 0, 0, 0, 2, 0,
                                                          0, 9}, 12, GJ2K_FORMAT_PGX, &options,
                      &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->num_components == 1);
    CHECK(image->components[0].precision == 12 && !image->components[0].is_signed);
    CHECK(image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){1, 4095, 256, 0, 512, 9}, 6));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG LM - 8 3 2\n", (const uint8_t[]){0xff, 0x80, 0x7f, 0, 1, 0xfe}, 6,
                      GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].is_signed && image->components[0].precision == 8);
    CHECK(samples_are(image, 0, (const int32_t[]){-1, -128, 127, 0, 1, -2}, 6));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG ML -16 2 1\n", (const uint8_t[]){0x80, 0, 0x7f, 0xff}, 4,
                      GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(samples_are(image, 0, (const int32_t[]){-32768, 32767}, 2));
    gj2k_image_destroy(image);

    REQUIRE(read_text("PG\tLM\t1 3 1\n", (const uint8_t[]){0, 1, 1}, 3, GJ2K_FORMAT_PGX,
                      &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 1 && !image->components[0].is_signed);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 1, 1}, 3));
    gj2k_image_destroy(image);

    /* 20 bits unsigned, little-endian, 4 bytes each: a value above range is clamped. */
    warned.count = 0;
    REQUIRE(read_text("PG LM + 20 2 1\n", (const uint8_t[]){0xff, 0xff, 0x0f, 0, 0, 0, 0x10, 0},
                      8, GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1);
    CHECK(samples_are(image, 0, (const int32_t[]){0xfffff, 0xfffff}, 2));
    gj2k_image_destroy(image);

    /* 24 bits signed, big-endian. */
    warned.count = 0;
    REQUIRE(read_text("PG ML -24 3 1\n", (const uint8_t[]){0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0,
                                                          0, 0, 0x7f, 0xff, 0xff},
                      12, GJ2K_FORMAT_PGX, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 0);
    CHECK(samples_are(image, 0, (const int32_t[]){-1, -8388608, 8388607}, 3));
    gj2k_image_destroy(image);

    /* Every depth 1..16 in both byte orders gives the same samples. */
    for (uint32_t depth = 1; depth <= 16; depth++) {
        uint8_t be[8], le[8];
        int32_t expected[4];
        unsigned bytes = depth <= 8 ? 1 : 2;
        for (int i = 0; i < 4; i++) {
            uint32_t v = (uint32_t)test_random_range(0, ((int64_t)1 << depth) - 1);
            expected[i] = (int32_t)v;
            if (bytes == 1) {
                be[i] = le[i] = (uint8_t)v;
            } else {
                be[2 * i] = le[2 * i + 1] = (uint8_t)(v >> 8);
                be[2 * i + 1] = le[2 * i] = (uint8_t)v;
            }
        }
        char header[64];
        for (int order = 0; order < 2; order++) {
            snprintf(header, sizeof header, "PG %s %u 2 2\n", order ? "LM" : "ML", depth);
            REQUIRE(read_text(header, order ? le : be, 4 * bytes, GJ2K_FORMAT_PGX, &options,
                              &image) == GJ2K_OK);
            CHECK(image->components[0].precision == depth);
            CHECK(samples_are(image, 0, expected, 4));
            gj2k_image_destroy(image);
        }
    }

    static const bad_header bad[] = {
        {"PG XX + 8 1 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 0 1 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 32 1 1\n", 4, GJ2K_ERROR_UNSUPPORTED},
        {"PG ML + 8 0 1\n", 1, GJ2K_ERROR_MALFORMED},
        {"PG ML + 8 2 2\n", 3, GJ2K_ERROR_TRUNCATED},
        {"PG ML + 8 2 2", 0, GJ2K_ERROR_TRUNCATED},
        {"PG ML + 8 2x2\n", 4, GJ2K_ERROR_MALFORMED},
        {"PGML + 8 1 1\n", 1, GJ2K_ERROR_MALFORMED},
    };
    check_bad_headers(bad, sizeof bad / sizeof bad[0], GJ2K_FORMAT_PGX, &options);
}

static const test_case cases[] = {
    {"pgx_random_round_trips", pgx_random_round_trips},
    {"pgx_hand_made_files", pgx_hand_made_files},
};

TEST_MAIN(cases)
