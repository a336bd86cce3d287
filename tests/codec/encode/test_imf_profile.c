/* test_imf_profile.c - the IMF profiles (gj2k_profile GJ2K_PROFILE_IMF_*,
 * T.800 Amd 8): each of the six encodes to a codestream whose Rsiz names
 * it with its levels and that keeps every rule (j2k_imf_check: one tile or
 * the _R profiles' tiles, 9/7 or 5/3, 32x32, precincts, CPRL, one layer, a
 * tile-part a component, TLM, the rates at the frame rate); the _R ones
 * are lossless within their levels' rate; the levels are chosen from the
 * image, the frame rate and the coded size, or kept as asked; what the
 * profiles do not take is refused; a codestream that breaks them is said
 * to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "gj2k.h"
#include "test_harness.h"

/* `components` components of `precision` bits, gradients with noise; the
 * components after the first subsampled `dx` across. */
static gj2k_image *picture(uint32_t w, uint32_t h, uint32_t components, uint32_t precision,
                           uint32_t dx, bool is_signed)
{
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = c ? dx : 1, .dy = 1, .precision = precision,
                                        .is_signed = is_signed};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, w, h, components, info, NULL) != GJ2K_OK)
        return NULL;
    int32_t top = (1 << (precision - (is_signed ? 1 : 0))) - 1;
    for (uint32_t c = 0; c < components; c++) {
        gj2k_component *k = &image->components[c];
        for (size_t i = 0; i < (size_t)k->width * k->height; i++) {
            int32_t v = (int32_t)((i % k->width) * (uint32_t)top / k->width / 2 +
                                  (i / k->width) * (uint32_t)top / k->height / 4 + c * 7) +
                        (int32_t)test_random_range(-top / 64, top / 64) + top / 8;
            k->samples[i] = v < 0 ? 0 : v > top ? top : v;
        }
    }
    return image;
}

/* The codestream of an encode's output (after the jp2c box in a JP2). */
static const uint8_t *codestream_of(const uint8_t *data, size_t size, size_t *codestream_size)
{
    for (size_t i = 0; i + 8 <= size && data[0] != 0xFF; i++)
        if (memcmp(data + i, "jp2c", 4) == 0) {
            *codestream_size = size - i - 4;
            return data + i + 4;
        }
    *codestream_size = size;
    return data;
}

typedef struct imf_result {
    unsigned rsiz;
    size_t bytes;            /* the codestream's */
    unsigned levels, tiles;
    int warnings;
    char warning[1024];
} imf_result;

/* Encodes with `o`, checks the codestream against its profile at the frame
 * rate, and (reversible, lossless) that it decodes to the image. */
static bool encode_checked(const gj2k_image *image, gj2k_encode_options o, bool lossless,
                           imf_result *result)
{
    test_warnings warnings = {0};
    o.warning = record_warning;
    o.warning_user = &warnings;
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    if (gj2k_encode_memory(image, &o, &data, &size, NULL, &error) != GJ2K_OK) {
        printf("encode: %s\n", error.message);
        return false;
    }
    size_t codestream_size;
    const uint8_t *codestream = codestream_of(data, size, &codestream_size);
    j2k_codestream *cs = NULL;
    bool ok = j2k_codestream_parse(codestream, codestream_size, NULL, NULL, &cs, &error) ==
              GJ2K_OK;
    char why[512] = "";
    if (ok && !j2k_imf_check(cs, o.frame_rate, why, sizeof why)) {
        printf("profile %d: %s\n", (int)o.profile, why);
        ok = false;
    }
    if (ok) {
        *result = (imf_result){.rsiz = cs->siz.capabilities, .bytes = codestream_size,
                               .levels = cs->main_header.cod->coding.levels,
                               .tiles = cs->siz.num_tiles, .warnings = warnings.count};
        snprintf(result->warning, sizeof result->warning, "%s", warnings.last);
    }
    j2k_codestream_destroy(cs);
    gj2k_image *back = NULL;
    ok = ok && gj2k_decode_memory(data, size, NULL, &back, &error) == GJ2K_OK;
    for (uint32_t c = 0; ok && lossless && c < image->num_components; c++)
        ok = memcmp(back->components[c].samples, image->components[c].samples,
                    sizeof(int32_t) * image->components[c].width * image->components[c].height) ==
             0;
    gj2k_image_destroy(back);
    free(data);
    return ok;
}

static void every_profile(void)
{
    static const struct {
        gj2k_profile profile;
        unsigned rsiz, max_levels;
        bool reversible;
    } profiles[] = {
        {GJ2K_PROFILE_IMF_2K, 0x0400, 5, false},   {GJ2K_PROFILE_IMF_4K, 0x0500, 6, false},
        {GJ2K_PROFILE_IMF_8K, 0x0600, 7, false},   {GJ2K_PROFILE_IMF_2K_R, 0x0700, 5, true},
        {GJ2K_PROFILE_IMF_4K_R, 0x0800, 6, true}, {GJ2K_PROFILE_IMF_8K_R, 0x0900, 7, true},
    };
    gj2k_image *image = picture(300, 180, 3, 10, 1, false);
    REQUIRE(image != NULL);
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        gj2k_encode_options o = {.profile = profiles[i].profile, .frame_rate = 24,
                                 .format = i == 3 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K};
        imf_result r;
        REQUIRE(encode_checked(image, o, profiles[i].reversible, &r));
        /* 300x180x3 at 24 fps is 3.9 Msamples/s and a few Mbit/s: levels 1 */
        CHECK_EQ(r.rsiz, profiles[i].rsiz | 0x11);
        CHECK_EQ(r.levels, profiles[i].max_levels);
        CHECK_EQ(r.tiles, 1);
        CHECK_EQ(r.warnings, 0);
    }
    gj2k_image_destroy(image);
}

/* With a frame rate the levels left out are the lowest the samples and the
 * coded bytes a second take; a sub level asked for bounds the bytes. */
static void levels_chosen(void)
{
    gj2k_image *image = picture(256, 128, 3, 8, 1, false);
    REQUIRE(image != NULL);
    imf_result r;
    /* 98.3 Msamples/s: main level 2 (130); lossless, some 35 KB a frame, about
       280 Mbit/s: sub level 2 (400), which main level 4 is the first to take */
    gj2k_encode_options o = {.profile = GJ2K_PROFILE_IMF_2K_R, .frame_rate = 1000};
    REQUIRE(encode_checked(image, o, true, &r));
    CHECK(r.bytes > 25000 && r.bytes <= 50000);
    CHECK_EQ(r.rsiz, 0x0724);
    /* sub level 1 asked for: 200 Mbit/s is 25000 bytes a frame, so not lossless */
    o.imf_sub_level = GJ2K_IMF_LEVEL(1);
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK(r.bytes <= 25000 && r.bytes > 20000);
    CHECK_EQ(r.rsiz, 0x0712);
    CHECK_EQ(r.warnings, 1);
    CHECK(strstr(r.warning, "not lossless") != NULL);
    /* lossy without a target: the budget of the lowest main level the samples
       take (2), at its highest sub level (1) */
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_2K, .frame_rate = 1000};
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK(r.bytes <= 25000 && r.bytes > 20000);
    CHECK_EQ(r.rsiz, 0x0412);
    /* lossy: the levels' bytes are the budget; a smaller target is kept */
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_4K, .frame_rate = 1000,
                              .imf_main_level = GJ2K_IMF_LEVEL(3)};
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK(r.bytes <= 25000 && r.bytes > 20000);
    CHECK_EQ(r.rsiz, 0x0513);
    double ratio = 40;
    o.target = GJ2K_TARGET_RATIO;
    o.num_layers = 1;
    o.targets = &ratio;
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK(r.bytes <= 256 * 128 * 3 / 40 && r.bytes > 256 * 128 * 3 / 50);
    CHECK_EQ(r.rsiz, 0x0513);
    /* without a frame rate the levels are as asked (0 when left out) */
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_8K_R};
    REQUIRE(encode_checked(image, o, true, &r));
    CHECK_EQ(r.rsiz, 0x0900);
    CHECK_EQ(r.warnings, 0);
    o.imf_main_level = GJ2K_IMF_LEVEL(6);
    o.imf_sub_level = GJ2K_IMF_LEVEL(3);
    REQUIRE(encode_checked(image, o, true, &r));
    CHECK_EQ(r.rsiz, 0x0936);
    CHECK_EQ(r.warnings, 1);
    CHECK(strstr(r.warning, "without a frame rate") != NULL);
    gj2k_image_destroy(image);
}

/* What the profile fixes is set, with one warning naming the caller's
 * choices it overrides; the _R profiles keep tiles of 1024, with at most 4
 * levels; a 4:2:2 image is taken. */
static void options_overridden(void)
{
    gj2k_image *image = picture(160, 96, 3, 12, 1, false);
    REQUIRE(image != NULL);
    gj2k_progression_change change = {.tile = -1, .layer_end = 1, .resolution_end = 2,
                                      .component_end = 3, .progression = GJ2K_RLCP};
    double ratios[2] = {40, 10};
    gj2k_encode_options o = {.profile = GJ2K_PROFILE_IMF_2K_R, .irreversible = true,
                             .num_resolutions = 9, .code_block_width = 64,
                             .code_block_height = 16, .progression = GJ2K_RPCL,
                             .progression_changes = &change, .num_progression_changes = 1,
                             .tile_width = 100, .tile_height = 50, .tile_parts =
                             GJ2K_TILE_PARTS_RESOLUTION, .target = GJ2K_TARGET_RATIO,
                             .num_layers = 2, .targets = ratios};
    imf_result r;
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK_EQ(r.rsiz, 0x0700);
    CHECK_EQ(r.levels, 5);
    CHECK_EQ(r.tiles, 1);
    CHECK_EQ(r.warnings, 1);
    const char *named[] = {"tiles", "resolutions", "-I", "code-blocks", "progression",
                           "progression changes", "tile-parts", "quality layers"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        CHECK(strstr(r.warning, named[i]) != NULL || (printf("%s: %s\n", named[i], r.warning), 0));
    CHECK(r.bytes <= 160 * 96 * 3 * 12 / 8 / 10);
    gj2k_image_destroy(image);
    /* tiles of 1024 on a 2K_R frame: two tiles, 4 levels; a lossy 2K takes one tile */
    image = picture(2048, 600, 1, 8, 1, false);
    REQUIRE(image != NULL);
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_2K_R, .tile_width = 1024,
                              .tile_height = 1024, .frame_rate = 30};
    REQUIRE(encode_checked(image, o, true, &r));
    CHECK_EQ(r.tiles, 2);
    CHECK_EQ(r.levels, 4);
    CHECK_EQ(r.warnings, 0);
    o.profile = GJ2K_PROFILE_IMF_2K;
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK_EQ(r.tiles, 1);
    CHECK_EQ(r.levels, 5);
    CHECK_EQ(r.warnings, 1);
    gj2k_image_destroy(image);
    /* 4:2:2, 16 bits: 2 samples a pixel, 480x270 at 960 fps 248.8 Msamples/s:
       main level 4 (260); at 50:1, 80 Mbit/s: sub level 1 */
    image = picture(480, 270, 3, 16, 2, false);
    REQUIRE(image != NULL);
    double ratio = 50;
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_2K, .frame_rate = 960,
                              .target = GJ2K_TARGET_RATIO, .num_layers = 1, .targets = &ratio};
    REQUIRE(encode_checked(image, o, false, &r));
    CHECK_EQ(r.rsiz, 0x0414);
    gj2k_image_destroy(image);
}

/* Expects `status` and a message holding `words`; nothing is written. */
static void refused(const gj2k_image *image, const gj2k_encode_options *o, gj2k_status status,
                    const char *words)
{
    gj2k_error error = {0};
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(gj2k_encode_memory(image, o, &data, &size, NULL, &error), status);
    CHECK(strstr(error.message, words) != NULL || (printf("%s\n", error.message), 0));
    CHECK(data == NULL && size == 0);
}

static void refusals(void)
{
    gj2k_image *wide = picture(2049, 16, 1, 8, 1, false);
    gj2k_image *four = picture(32, 16, 4, 8, 1, false);
    gj2k_image *seven = picture(32, 16, 3, 7, 1, false);
    gj2k_image *signed_ = picture(32, 16, 1, 12, 1, true);
    gj2k_image *quarter = picture(32, 16, 3, 8, 1, false);
    REQUIRE(wide && four && seven && signed_ && quarter);
    quarter->components[1].dy = 2; /* 4:2:0 is not IMF's */
    quarter->components[1].height = 8;
    gj2k_encode_options o = {.profile = GJ2K_PROFILE_IMF_2K};
    refused(wide, &o, GJ2K_ERROR_INVALID_ARGUMENT, "at most 2048x1556");
    o.profile = GJ2K_PROFILE_IMF_4K_R; /* 4K takes it */
    imf_result r;
    CHECK(encode_checked(wide, o, true, &r));
    refused(four, &o, GJ2K_ERROR_INVALID_ARGUMENT, "1 to 3 components");
    refused(seven, &o, GJ2K_ERROR_INVALID_ARGUMENT, "8 to 16 bits");
    refused(signed_, &o, GJ2K_ERROR_INVALID_ARGUMENT, "unsigned");
    refused(quarter, &o, GJ2K_ERROR_INVALID_ARGUMENT, "subsampled");
    /* 32x16x3 at 60000 fps is 92.2 Msamples/s: more than main level 1 allows */
    o = (gj2k_encode_options){.profile = GJ2K_PROFILE_IMF_2K, .frame_rate = 60000,
                              .imf_main_level = GJ2K_IMF_LEVEL(1)};
    gj2k_image *fine = picture(32, 16, 3, 8, 1, false);
    REQUIRE(fine != NULL);
    refused(fine, &o, GJ2K_ERROR_INVALID_ARGUMENT, "main level 1 allows 65 Msamples/s");
    o.imf_main_level = GJ2K_IMF_LEVEL(4);
    o.imf_sub_level = GJ2K_IMF_LEVEL(3);
    refused(fine, &o, GJ2K_ERROR_INVALID_ARGUMENT, "takes sub levels up to 2");
    o.imf_main_level = GJ2K_IMF_LEVEL(12);
    refused(fine, &o, GJ2K_ERROR_INVALID_ARGUMENT, "main levels are 0 to 11");
    gj2k_image_destroy(fine);
    gj2k_image_destroy(wide);
    gj2k_image_destroy(four);
    gj2k_image_destroy(seven);
    gj2k_image_destroy(signed_);
    gj2k_image_destroy(quarter);
}

/* A codestream that names an IMF profile without keeping it is said not to,
 * rule by rule; the highest frame rates its levels allow. */
static void check_names_broken_rules(void)
{
    gj2k_image *image = picture(64, 32, 3, 8, 1, false);
    REQUIRE(image != NULL);
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, NULL, &data, &size, NULL, &error) == GJ2K_OK);
    data[6] = 0x04; /* Rsiz: IMF 2K, sub level 1, main level 1, on a plain encode */
    data[7] = 0x11;
    j2k_codestream *cs = NULL;
    REQUIRE(j2k_codestream_parse(data, size, NULL, NULL, &cs, &error) == GJ2K_OK);
    char why[1024];
    CHECK(!j2k_imf_check(cs, 0, why, sizeof why));
    const char *rules[] = {"code-blocks 64x64", "the 5/3 wavelet", "precincts",
                           "not CPRL", "no TLM"};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        CHECK(strstr(why, rules[i]) != NULL || (printf("%s: %s\n", rules[i], why), 0));
    double by_main, by_sub;
    j2k_imf_max_frame_rates(cs, &by_main, &by_sub);
    CHECK(by_main > 65e6 / (64 * 32 * 3) - 1 && by_main < 65e6 / (64 * 32 * 3) + 1);
    CHECK(by_sub > 200e6 / 8 / (double)size - 1 && by_sub < 200e6 / 8 / (double)size + 1);
    j2k_codestream_destroy(cs);
    free(data);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"every_profile", every_profile},
    {"levels_chosen", levels_chosen},
    {"options_overridden", options_overridden},
    {"refusals", refusals},
    {"check_names_broken_rules", check_names_broken_rules},
};

TEST_MAIN(cases)
