/* test_pnm.c - PNM (PBM, PGM, PPM and PAM): random round trips and hand-made
 * files with known samples. */
#include "io_test_support.h"
#include "test_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pnm_random_round_trips(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t n = (uint32_t)test_random_range(1, 4);
        uint32_t precision = (uint32_t)(iteration < 16 ? iteration + 1 : test_random_range(1, 16));
        gj2k_image *image = random_image(n, precision, false);
        REQUIRE(image != NULL);
        image->color_space = n <= 2 ? GJ2K_COLOR_GRAY : GJ2K_COLOR_SRGB;
        if (n == 2 || n == 4)
            image->components[n - 1].role = GJ2K_ROLE_OPACITY;
        warnings warned = {0};
        gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNM, NULL, &warned);
        CHECK(back != NULL && images_equal(image, back));
        CHECK(back == NULL || back->color_space == image->color_space);
        CHECK_EQ(warned.count, 0);
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }
    /* Signed samples come back offset by 2^(precision-1), with a warning. */
    gj2k_image *image = make_image(3, 1, 1, 10, true, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[0].samples[0] = -512;
    image->components[0].samples[1] = 0;
    image->components[0].samples[2] = 511;
    warnings warned = {0};
    gj2k_image *back = round_trip(image, GJ2K_FORMAT_PNM, NULL, &warned);
    REQUIRE(back != NULL);
    CHECK(warned.count == 1);
    CHECK(!back->components[0].is_signed && back->components[0].precision == 10);
    CHECK(samples_are(back, 0, (const int32_t[]){0, 512, 1023}, 3));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

static void pnm_hand_made_files(void)
{
    gj2k_image *image;
    warnings warned = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &warned};

    /* P1: 1 is black, so samples are inverted; digits need no separator. */
    REQUIRE(read_text("P1\n# a comment\n3 2\n1 0 1\n001\n", NULL, 0, GJ2K_FORMAT_PNM, &options,
                      &image) == GJ2K_OK);
    CHECK(image->x1 == 3 && image->y1 == 2 && image->num_components == 1);
    CHECK(image->components[0].precision == 1 && image->color_space == GJ2K_COLOR_GRAY);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 1, 0, 1, 1, 0}, 6));
    gj2k_image_destroy(image);

    /* P2 with maxval 1000 (10 bits) and comments between fields. */
    REQUIRE(read_text("P2 # grey\n2 2 # size\n1000\n0 999\n1000\n7\n", NULL, 0, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 10);
    CHECK(samples_are(image, 0, (const int32_t[]){0, 999, 1000, 7}, 4));
    gj2k_image_destroy(image);

    /* P3 */
    REQUIRE(read_text("P3\n2 1\n255\n255 0 10   1 2 3", NULL, 0, GJ2K_FORMAT_PNM, &options,
                      &image) == GJ2K_OK);
    CHECK(image->num_components == 3 && image->color_space == GJ2K_COLOR_SRGB);
    CHECK(samples_are(image, 0, (const int32_t[]){255, 1}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){0, 2}, 2));
    CHECK(samples_are(image, 2, (const int32_t[]){10, 3}, 2));
    gj2k_image_destroy(image);

    /* P4: rows of 10 pixels take 2 bytes; the spare bits are ignored. */
    REQUIRE(read_text("P4\n10 2\n", (const uint8_t[]){0xff, 0xc0, 0xaa, 0x9f}, 4,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 1);
    CHECK(samples_are(image, 0,
                      (const int32_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, 20));
    gj2k_image_destroy(image);

    /* P5 16-bit big-endian, and a comment right after maxval. */
    REQUIRE(read_text("P5 2 1 65535#x\n", (const uint8_t[]){1, 2, 0xff, 0xff}, 4,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 16);
    CHECK(samples_are(image, 0, (const int32_t[]){258, 65535}, 2));
    gj2k_image_destroy(image);

    /* P6 with maxval 1023 */
    REQUIRE(read_text("P6\n1 1\n1023\n", (const uint8_t[]){3, 0xff, 0, 0, 2, 1}, 6,
                      GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(image->components[0].precision == 10);
    CHECK(samples_of(image, 0)[0] == 1023 && samples_of(image, 1)[0] == 0 &&
          samples_of(image, 2)[0] == 513);
    gj2k_image_destroy(image);

    /* PAM grey + alpha, RGB_ALPHA with comments, an unknown TUPLTYPE. */
    REQUIRE(read_text("P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\n"
                      "ENDHDR\n", (const uint8_t[]){10, 20, 30, 40}, 4, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 2);
    CHECK(image->color_space == GJ2K_COLOR_GRAY);
    CHECK(image->components[0].role == GJ2K_ROLE_COLOR &&
          image->components[1].role == GJ2K_ROLE_OPACITY);
    CHECK(samples_are(image, 0, (const int32_t[]){10, 30}, 2));
    CHECK(samples_are(image, 1, (const int32_t[]){20, 40}, 2));
    gj2k_image_destroy(image);
    REQUIRE(read_text("P7\n# made by hand\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 4095\n"
                      "TUPLTYPE RGB_ALPHA\n# last\nENDHDR\n",
                      (const uint8_t[]){0, 1, 0, 2, 0x0f, 0xff, 0, 4}, 8, GJ2K_FORMAT_PNM,
                      &options, &image) == GJ2K_OK);
    CHECK_EQ(image->num_components, 4);
    CHECK(image->color_space == GJ2K_COLOR_SRGB);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY && image->components[0].precision == 12);
    CHECK(samples_of(image, 2)[0] == 4095 && samples_of(image, 3)[0] == 4);
    gj2k_image_destroy(image);
    warned.count = 0;
    REQUIRE(read_text("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 1\nTUPLTYPE FOO\nENDHDR\n",
                      (const uint8_t[]){1, 0, 1}, 3, GJ2K_FORMAT_PNM, &options, &image) == GJ2K_OK);
    CHECK(warned.count == 1 && image->num_components == 3 && image->components[0].precision == 1);
    gj2k_image_destroy(image);

    /* Malformed headers and samples. */
    static const bad_header bad[] = {
        {"P5 2 1 0\n", 2, GJ2K_ERROR_MALFORMED},         /* maxval 0 */
        {"P5 2 1 70000\n", 4, GJ2K_ERROR_MALFORMED},     /* maxval too large */
        {"P2 2 1 10\n5 11\n", 0, GJ2K_ERROR_MALFORMED},  /* sample above maxval */
        {"P5 2 1 100\n\x05\xc8", 0, GJ2K_ERROR_MALFORMED},
        {"P3 1 1 255\n1 2 x", 0, GJ2K_ERROR_MALFORMED},
        {"P1\n2 1\n1 2\n", 0, GJ2K_ERROR_MALFORMED},
        {"P5 0 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P5 99999999999 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P5 2x 1 255\n", 2, GJ2K_ERROR_MALFORMED},
        {"P7\nWIDTH 2\nENDHDR\n", 2, GJ2K_ERROR_MALFORMED},
        {"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n", 5, GJ2K_ERROR_UNSUPPORTED},
        {"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nSIZE 3\nENDHDR\n", 5, GJ2K_ERROR_MALFORMED},
        {"P8 1 1 255\n", 1, GJ2K_ERROR_MALFORMED},
        {"P5 2 1 255\n", 1, GJ2K_ERROR_TRUNCATED},
        {"P2 2 1 255\n1", 0, GJ2K_ERROR_TRUNCATED},
        {"P6 1 1 255", 0, GJ2K_ERROR_TRUNCATED},
    };
    check_bad_headers(bad, sizeof bad / sizeof bad[0], GJ2K_FORMAT_PNM, &options);
}

static const test_case cases[] = {
    {"pnm_random_round_trips", pnm_random_round_trips},
    {"pnm_hand_made_files", pnm_hand_made_files},
};

TEST_MAIN(cases)
