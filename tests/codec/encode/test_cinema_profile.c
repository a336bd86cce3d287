/* test_cinema_profile.c - the digital cinema profiles (gj2k_profile,
 * T.800 Amd 1): 2K at 24 and 48 fps and 4K at 24 encode to codestreams
 * that keep every rule (j2k_cinema_check: Rsiz, one tile, 9/7, 32x32,
 * precincts, CPRL, tile-parts, TLM, the frame's and each component's
 * bytes), also when one component would take more than its share, and in
 * JP2; images and rates the profiles do not take are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "gj2k.h"
#include "test_harness.h"

/* 12-bit X'Y'Z'-like samples: gradients with noise of `noise` (0..2047);
 * grey (all three alike) puts every byte in one component after the ICT. */
static gj2k_image *frame(uint32_t w, uint32_t h, uint32_t precision, int noise, bool grey)
{
    gj2k_component_info info[3];
    for (int c = 0; c < 3; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, w, h, 3, info, NULL) != GJ2K_OK)
        return NULL;
    int32_t top = (1 << precision) - 1;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        int32_t n = (int32_t)test_random_range(-noise, noise);
        for (int c = 0; c < 3; c++) {
            int32_t v = (int32_t)((i % w) * (uint32_t)top / w / 2 + (i / w) * (uint32_t)top / h / 4) +
                        (grey || c == 0 ? n : n / 4) + top / 8;
            image->components[c].samples[i] = v < 0 ? 0 : v > top ? top : v;
        }
    }
    return image;
}

/* Encodes with the profile and checks the codestream (inside a JP2 too). */
static void encode_and_check(const gj2k_image *image, gj2k_profile profile, unsigned rate,
                             gj2k_file_format format, bool full_budget)
{
    gj2k_encode_options o = {.profile = profile, .frame_rate = rate, .format = format};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    gj2k_status status = gj2k_encode_memory(image, &o, &data, &size, NULL, &error);
    if (status != GJ2K_OK)
        printf("encode: %s\n", error.message);
    REQUIRE(status == GJ2K_OK);
    const uint8_t *codestream = data;
    size_t codestream_size = size;
    if (format == GJ2K_FORMAT_JP2) { /* the jp2c box is the last: from its contents on */
        size_t at = 0;
        for (size_t i = 4; i + 4 <= size && at == 0; i++)
            if (memcmp(data + i, "jp2c", 4) == 0)
                at = i + 4;
        REQUIRE(at != 0);
        codestream = data + at;
        codestream_size = size - at;
    }
    j2k_codestream *cs = NULL;
    REQUIRE(j2k_codestream_parse(codestream, codestream_size, NULL, NULL, &cs, &error) == GJ2K_OK);
    unsigned rsiz = profile == GJ2K_PROFILE_CINEMA_4K ? J2K_RSIZ_CINEMA_4K : J2K_RSIZ_CINEMA_2K;
    const j2k_cinema_limits *limits = j2k_cinema_limits_of(rsiz, rate ? rate : 24);
    REQUIRE(limits != NULL);
    char why[512];
    bool ok = j2k_cinema_check(cs, limits, why, sizeof why);
    if (!ok)
        printf("profile %d at %u fps: %s\n", (int)profile, rate, why);
    CHECK(ok);
    CHECK(codestream_size <= limits->frame_bytes);
    /* noise is dear: the frame's budget is used, unless one component's share
       bounds it (then the frame is smaller: the retry happened) */
    if (full_budget)
        CHECK(codestream_size > limits->frame_bytes * 9 / 10);
    else
        CHECK(codestream_size < limits->frame_bytes * 9 / 10);
    j2k_codestream_destroy(cs);
    gj2k_image *back = NULL;
    CHECK(gj2k_decode_memory(data, size, NULL, &back, &error) == GJ2K_OK);
    gj2k_image_destroy(back);
    free(data);
}

static void test_two_k(void)
{
    gj2k_image *image = frame(2048, 1080, 12, 900, false);
    REQUIRE(image != NULL);
    encode_and_check(image, GJ2K_PROFILE_CINEMA_2K, 24, GJ2K_FORMAT_J2K, true);
    encode_and_check(image, GJ2K_PROFILE_CINEMA_2K, 48, GJ2K_FORMAT_J2K, true);
    encode_and_check(image, GJ2K_PROFILE_CINEMA_2K, 24, GJ2K_FORMAT_JP2, true);
    gj2k_image_destroy(image);
}

/* Grey noise: after the ICT one component holds nearly all of it and would
 * pass its 1041666 bytes; the encoder lowers the frame's budget. */
static void test_component_share(void)
{
    gj2k_image *image = frame(2048, 1080, 12, 2047, true);
    REQUIRE(image != NULL);
    encode_and_check(image, GJ2K_PROFILE_CINEMA_2K, 24, GJ2K_FORMAT_J2K, false);
    gj2k_image_destroy(image);
}

static void test_four_k(void)
{
    gj2k_image *image = frame(4096, 2160, 12, 300, false);
    REQUIRE(image != NULL);
    encode_and_check(image, GJ2K_PROFILE_CINEMA_4K, 24, GJ2K_FORMAT_J2K, true);
    gj2k_image_destroy(image);
}

static void test_refusals(void)
{
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_image *eight = frame(640, 480, 8, 10, false);
    gj2k_image *wide = frame(2100, 100, 12, 10, false);
    REQUIRE(eight != NULL && wide != NULL);
    gj2k_encode_options o = {.profile = GJ2K_PROFILE_CINEMA_2K, .frame_rate = 24};
    CHECK_EQ(gj2k_encode_memory(eight, &o, &data, &size, NULL, &error),
             GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "12-bit") != NULL);
    CHECK_EQ(gj2k_encode_memory(wide, &o, &data, &size, NULL, &error),
             GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "2048x1080") != NULL);
    o.frame_rate = 30;
    CHECK_EQ(gj2k_encode_memory(eight, &o, &data, &size, NULL, &error),
             GJ2K_ERROR_INVALID_ARGUMENT);
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_CINEMA_4K, .frame_rate = 48};
    CHECK_EQ(gj2k_encode_memory(wide, &o, &data, &size, NULL, &error),
             GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(data == NULL);
    gj2k_image_destroy(eight);
    gj2k_image_destroy(wide);
}

static const test_case cases[] = {
    {"two_k", test_two_k},
    {"component_share", test_component_share},
    {"four_k", test_four_k},
    {"refusals", test_refusals},
};

TEST_MAIN(cases)
