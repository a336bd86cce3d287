/* test_color_render.c - palette, channel definitions, colour space and
 * resolution from a JP2 header; upsampling; sYCC / grey / ICC to RGB;
 * precision changes.
 *
 * Sources: common/error.c common/byte_buffer.c io/image.c codec/jp2/jp2_read.c
 *          codec/jp2/jp2_write.c codec/jp2/color_render.c codec/jp2/color_rgb.c
 *          codec/jp2/color_icc.c tests/test_harness.c tests/codec/jp2/test_color_render.c
 *          (includes: -Iinclude -Icommon -Iio -Icodec/jp2 -Itests; link -lm, and with
 *          -DGJ2K_HAVE_LCMS2 also -llcms2) */
#include "color_render.h"
#include "gj2k.h"
#include "jp2_file.h"
#include "test_harness.h"

#ifdef GJ2K_HAVE_LCMS2
#include <lcms2.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

typedef test_warnings warnings;

/* An image on [x0, x1) x [y0, y1) whose components share precision and sign. */
static gj2k_image *make_image(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t n,
                              uint32_t precision, bool is_signed, const uint32_t *dx,
                              const uint32_t *dy)
{
    gj2k_component_info info[8];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (gj2k_component_info){dx ? dx[c] : 1, dy ? dy[c] : 1, precision, is_signed};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, x0, y0, x1, y1, n, info, &error) != GJ2K_OK)
        fprintf(stderr, "gj2k_image_create: %s\n", error.message);
    return image;
}

static int64_t sample(const gj2k_image *image, uint32_t c, size_t i)
{
    return color_render_sample(&image->components[c], i);
}

/* ---------------------------------------------------------------- cases */

/* pclr + cmap: one index component becomes three palette columns of their
 * own depth and sign (one 38 bits deep), plus a directly mapped alpha. */
static void palette_expansion(void)
{
    gj2k_image *image = make_image(0, 0, 3, 2, 2, 4, false, NULL, NULL);
    REQUIRE(image != NULL);
    const int32_t indices[6] = {0, 1, 2, 3, 2, 9}; /* 9 is outside the palette */
    for (int i = 0; i < 6; i++) {
        image->components[0].samples[i] = indices[i];
        image->components[1].samples[i] = 10 + i;
    }
    jp2_depth depths[3] = {{8, false}, {5, true}, {38, false}};
    int64_t values[4 * 3] = {10, -16, 5, 20, -1, ((int64_t)1 << 38) - 1,
                             30, 15,  7, 40, 0,  123456789012LL};
    jp2_component_mapping maps[4] = {{0, 1, 2}, {0, 1, 0}, {1, 0, 0}, {0, 1, 1}};
    jp2_file jp2 = {.has_palette = true,
                    .palette = {4, 3, depths, values},
                    .mappings = maps,
                    .num_mappings = 4,
                    .header = {.height = 2, .width = 3, .num_components = 2,
                               .bits_per_component = 3}};
    warnings w = {0};
    gj2k_error error = {0};
    REQUIRE(color_render_apply_jp2(image, &jp2, record_warning, &w, &error) == GJ2K_OK);
    CHECK_EQ(w.count, 1);
    CHECK(strstr(w.last, "clamped") != NULL);
    REQUIRE(image->num_components == 4);
    const gj2k_component *wide = &image->components[0];
    CHECK(wide->precision == 38 && !wide->is_signed && wide->wide_samples != NULL &&
          wide->samples == NULL);
    CHECK(image->components[1].precision == 8 && !image->components[1].is_signed);
    CHECK(image->components[2].precision == 4 && image->components[2].samples != NULL);
    CHECK(image->components[3].precision == 5 && image->components[3].is_signed);
    for (int i = 0; i < 6; i++) {
        int e = indices[i] > 3 ? 3 : indices[i];
        CHECK_EQ(sample(image, 0, (size_t)i), values[e * 3 + 2]);
        CHECK_EQ(sample(image, 1, (size_t)i), values[e * 3 + 0]);
        CHECK_EQ(sample(image, 2, (size_t)i), 10 + i);
        CHECK_EQ(sample(image, 3, (size_t)i), values[e * 3 + 1]);
    }
    /* A cmap entry naming a component the codestream lacks is an error. */
    jp2_component_mapping bad[1] = {{7, 0, 0}};
    jp2.mappings = bad;
    jp2.num_mappings = 1;
    CHECK(color_render_apply_jp2(image, &jp2, NULL, NULL, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(strstr(error.message, "component 7") != NULL);
    gj2k_image_destroy(image);
}

/* cdef: roles, and colour channels moved to the colour they name. */
static void channel_definitions(void)
{
    gj2k_image *image = make_image(0, 0, 2, 1, 5, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    for (uint32_t c = 0; c < 5; c++)
        image->components[c].samples[0] = (int32_t)c;
    /* 0: opacity, 1: colour 3, 2: colour 1, 3: colour 2, 4: premultiplied. */
    jp2_channel_definition defs[5] = {
        {0, 1, 0}, {1, 0, 3}, {2, 0, 1}, {3, 0, 2}, {4, 2, 0}};
    jp2_file jp2 = {.channels = defs, .num_channels = 5,
                    .header = {.height = 1, .width = 2, .num_components = 5,
                               .bits_per_component = 7}};
    warnings w = {0};
    gj2k_error error = {0};
    REQUIRE(color_render_apply_jp2(image, &jp2, record_warning, &w, &error) == GJ2K_OK);
    CHECK_EQ(w.count, 0);
    const int64_t order[5] = {2, 3, 1, 0, 4};
    const gj2k_component_role roles[5] = {GJ2K_ROLE_COLOR, GJ2K_ROLE_COLOR, GJ2K_ROLE_COLOR,
                                          GJ2K_ROLE_OPACITY, GJ2K_ROLE_PREMULTIPLIED_OPACITY};
    for (uint32_t c = 0; c < 5; c++) {
        CHECK_EQ(sample(image, c, 0), order[c]);
        CHECK_EQ(image->components[c].role, roles[c]);
    }
    gj2k_image_destroy(image);

    /* file2.jp2's cdef: components stored Cr, Cb, Y. */
    image = make_image(0, 0, 1, 1, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    for (uint32_t c = 0; c < 3; c++)
        image->components[c].samples[0] = (int32_t)(100 + c);
    jp2_channel_definition reversed[3] = {{0, 0, 3}, {1, 0, 2}, {2, 0, 1}};
    jp2.channels = reversed;
    jp2.num_channels = 3;
    jp2.header.num_components = 3;
    jp2.header.width = 1;
    REQUIRE(color_render_apply_jp2(image, &jp2, record_warning, &w, &error) == GJ2K_OK);
    CHECK(sample(image, 0, 0) == 102 && sample(image, 1, 0) == 101 && sample(image, 2, 0) == 100);
    CHECK_EQ(w.count, 0);
    gj2k_image_destroy(image);
}

/* colr and res: first interpretable colr box wins; resd before resc. */
static void colour_space_and_resolution(void)
{
    gj2k_image *image = make_image(0, 0, 2, 2, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    uint8_t icc[140] = {0};
    memcpy(icc + 16, "GRAY", 4);
    jp2_color_spec colors[3] = {{.method = 1, .enumerated = 21}, /* ROMM-RGB: not rendered */
                                {.method = 1, .enumerated = 18},
                                {.method = 2, .icc_profile = icc, .icc_profile_size = sizeof icc}};
    jp2_file jp2 = {.colors = colors, .num_colors = 3,
                    .header = {.height = 2, .width = 2, .num_components = 3,
                               .bits_per_component = 7},
                    .has_capture_resolution = true,
                    .capture_resolution = {1000, 1, 2000, 1, 0, 0}};
    warnings w = {0};
    gj2k_error error = {0};
    REQUIRE(color_render_apply_jp2(image, &jp2, record_warning, &w, &error) == GJ2K_OK);
    CHECK(image->color_space == GJ2K_COLOR_SYCC && image->icc_profile == NULL);
    CHECK_EQ(w.count, 1);
    CHECK(image->resolution_x == 2000 && image->resolution_y == 1000);

    jp2.colors = colors + 2;
    jp2.num_colors = 1;
    jp2.has_display_resolution = true;
    jp2.display_resolution = (jp2_resolution){3, 1, 5, 2, 2, -1}; /* 300, 0.25 */
    /* disagrees with the codestream: the decoder compares ihdr with SIZ (decoder.c),
     * not the rendering, which may see a region or a strip */
    jp2.header.bits_per_component = 11;
    w.count = 0;
    REQUIRE(color_render_apply_jp2(image, &jp2, record_warning, &w, &error) == GJ2K_OK);
    CHECK(image->color_space == GJ2K_COLOR_GRAY && image->icc_profile_size == sizeof icc);
    CHECK(image->icc_profile != NULL && memcmp(image->icc_profile, icc, sizeof icc) == 0);
    CHECK(fabs(image->resolution_y - 300) < 1e-9 && fabs(image->resolution_x - 0.25) < 1e-12);
    CHECK_EQ(w.count, 0);
    CHECK(color_render_apply_jp2(image, NULL, NULL, NULL, &error) == GJ2K_OK);
    gj2k_image_destroy(image);
}

/* Replication on odd canvas origins, 4:2:0, and an empty component. */
static void upsample_values(void)
{
    /* Canvas [3, 10) x [1, 6); dx = 2, dy = 3: columns 2..4, row 1 on the
     * component grid (x0 = ceil(3/2) = 2, y0 = ceil(1/3) = 1). */
    uint32_t dx[2] = {1, 2}, dy[2] = {1, 3};
    gj2k_image *image = make_image(3, 1, 10, 6, 2, 8, false, dx, dy);
    REQUIRE(image != NULL);
    const gj2k_component *sub = &image->components[1];
    REQUIRE(sub->x0 == 2 && sub->width == 3 && sub->y0 == 1 && sub->height == 1);
    for (int i = 0; i < 3; i++)
        image->components[1].samples[i] = 50 + i;
    gj2k_error error = {0};
    REQUIRE(color_render_upsample(image, &error) == GJ2K_OK);
    sub = &image->components[1];
    CHECK(sub->dx == 1 && sub->dy == 1 && sub->x0 == 3 && sub->y0 == 1);
    REQUIRE(sub->width == 7 && sub->height == 5);
    /* Canvas x 3..9: x=3 lies in sample 1's area, which the component lacks:
     * no sample covers it and it stays 0 (as OpenJPEG leaves it); 4,5 -> 2;
     * 6,7 -> 3; 8,9 -> 4. Canvas rows 1, 2 lie in row 0's area: 0 too; rows
     * 3..5 -> row 1. */
    const int32_t row[7] = {0, 50, 50, 51, 51, 52, 52};
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++)
            CHECK_EQ(sub->samples[y * 7 + x], y < 2 ? 0 : row[x]);
    gj2k_image_destroy(image);

    /* 4:2:0 on [0, 5) x [0, 3): a 3 x 2 chroma plane. */
    uint32_t d2[1] = {2};
    image = make_image(0, 0, 5, 3, 1, 8, false, d2, d2);
    REQUIRE(image != NULL);
    for (int i = 0; i < 6; i++)
        image->components[0].samples[i] = 10 * (i + 1); /* rows 10 20 30 / 40 50 60 */
    REQUIRE(color_render_upsample(image, &error) == GJ2K_OK);
    const int32_t expect[15] = {10, 10, 20, 20, 30, 10, 10, 20, 20, 30, 40, 40, 50, 50, 60};
    for (int i = 0; i < 15; i++)
        CHECK_EQ(image->components[0].samples[i], expect[i]);
    gj2k_image_destroy(image);

    /* Canvas [1, 2) with dx = 4 holds no sample: the middle value. */
    uint32_t d4[1] = {4}, d1[1] = {1};
    image = make_image(1, 0, 2, 2, 1, 8, false, d4, d1);
    REQUIRE(image != NULL && image->components[0].width == 0);
    REQUIRE(color_render_upsample(image, &error) == GJ2K_OK);
    CHECK(image->components[0].width == 1 && image->components[0].samples[1] == 128);
    gj2k_image_destroy(image);
}

static void set_ycc(gj2k_image *image, size_t i, int y, int cb, int cr)
{
    image->components[0].samples[i] = y;
    image->components[1].samples[i] = cb;
    image->components[2].samples[i] = cr;
}

/* sYCC -> sRGB on known values, with clamping, 4:2:0 chroma and alpha. */
static void sycc_to_rgb_values(void)
{
    gj2k_image *image = make_image(0, 0, 5, 1, 4, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[3].role = GJ2K_ROLE_OPACITY;
    image->color_space = GJ2K_COLOR_SYCC;
    set_ycc(image, 0, 128, 128, 128);
    set_ycc(image, 1, 255, 128, 128);
    set_ycc(image, 2, 0, 128, 128);
    set_ycc(image, 3, 100, 200, 50); /* R = 100 - 1.402*78 < 0 */
    set_ycc(image, 4, 255, 255, 255);
    for (int i = 0; i < 5; i++)
        image->components[3].samples[i] = 200 + i;
    gj2k_error error = {0};
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(image->num_components == 4);
    CHECK(image->color_space == GJ2K_COLOR_SRGB);
    const int64_t expect[5][3] = {{128, 128, 128}, {255, 255, 255}, {0, 0, 0},
                                  {0, 131, 228},   {255, 121, 255}};
    for (int i = 0; i < 5; i++)
        for (uint32_t k = 0; k < 3; k++)
            CHECK_EQ(sample(image, k, (size_t)i), expect[i][k]);
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY && sample(image, 3, 4) == 204);
    gj2k_image_destroy(image);

    /* 4:2:0: chroma (dx = dy = 2) is replicated before the conversion;
     * 10-bit chroma is scaled to the 8-bit luma. */
    uint32_t dx[3] = {1, 2, 2};
    image = make_image(0, 0, 4, 2, 3, 8, false, dx, dx);
    REQUIRE(image != NULL);
    image->components[1].precision = image->components[2].precision = 10;
    image->color_space = GJ2K_COLOR_SYCC;
    for (int i = 0; i < 8; i++)
        image->components[0].samples[i] = 100;
    image->components[1].samples[0] = 512;
    image->components[2].samples[0] = 512;
    image->components[1].samples[1] = 512;
    image->components[2].samples[1] = 512 + 4 * 40; /* Cr' = 40 at 8 bits */
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(image->components[0].width == 4 && image->components[0].precision == 8);
    CHECK(sample(image, 0, 0) == 100 && sample(image, 0, 5) == 100);
    CHECK_EQ(sample(image, 0, 3), 156); /* 100 + 1.402 * 40 = 156.08 */
    CHECK_EQ(sample(image, 1, 6), 71);  /* 100 - 0.714136 * 40 = 71.43 */
    CHECK_EQ(sample(image, 2, 7), 100);
    gj2k_image_destroy(image);

    /* e-sYCC: colr enumeration 24 is interpreted, and rendered with the
     * same matrix as sYCC. */
    image = make_image(0, 0, 5, 1, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    jp2_color_spec esycc = {.method = 1, .enumerated = 24};
    jp2_file jp2 = {.colors = &esycc, .num_colors = 1,
                    .header = {.height = 1, .width = 5, .num_components = 3,
                               .bits_per_component = 7}};
    REQUIRE(color_render_apply_jp2(image, &jp2, NULL, NULL, &error) == GJ2K_OK);
    CHECK(image->color_space == GJ2K_COLOR_ESYCC);
    set_ycc(image, 0, 128, 128, 128);
    set_ycc(image, 3, 100, 200, 50);
    set_ycc(image, 4, 255, 255, 255);
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    CHECK(image->color_space == GJ2K_COLOR_SRGB);
    CHECK(sample(image, 0, 0) == 128 && sample(image, 1, 0) == 128 && sample(image, 2, 0) == 128);
    CHECK(sample(image, 0, 3) == 0 && sample(image, 1, 3) == 131 && sample(image, 2, 3) == 228);
    CHECK(sample(image, 0, 4) == 255 && sample(image, 1, 4) == 121 && sample(image, 2, 4) == 255);
    gj2k_image_destroy(image);
}

/* Grey -> three equal components; opacity passes through; sRGB untouched. */
static void grey_to_rgb(void)
{
    gj2k_image *image = make_image(0, 0, 3, 2, 2, 12, false, NULL, NULL);
    REQUIRE(image != NULL);
    image->color_space = GJ2K_COLOR_GRAY;
    image->components[1].role = GJ2K_ROLE_OPACITY;
    for (int i = 0; i < 6; i++) {
        image->components[0].samples[i] = 700 * i;
        image->components[1].samples[i] = 4095 - i;
    }
    gj2k_error error = {0};
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(image->num_components == 4);
    for (uint32_t k = 0; k < 3; k++) {
        CHECK(image->components[k].precision == 12 && image->components[k].role == GJ2K_ROLE_COLOR);
        for (int i = 0; i < 6; i++)
            CHECK_EQ(sample(image, k, (size_t)i), 700 * i);
    }
    CHECK(image->components[3].role == GJ2K_ROLE_OPACITY && sample(image, 3, 5) == 4090);
    CHECK(image->components[0].samples != image->components[1].samples);
    /* Already RGB: nothing changes. */
    int32_t *before = image->components[2].samples;
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    CHECK(image->num_components == 4 && image->components[2].samples == before);
    gj2k_image_destroy(image);
}

/* Precision up and down, signed to unsigned and back, narrow and wide. */
static void precision_change(void)
{
    gj2k_image *image = make_image(0, 0, 5, 1, 1, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    const int32_t in8[5] = {0, 1, 127, 128, 255};
    gj2k_error error = {0};
    gj2k_component *comp = &image->components[0];
    memcpy(comp->samples, in8, sizeof in8);
    REQUIRE(color_render_set_precision(image, 4, COLOR_RENDER_KEEP_SIGN, &error) == GJ2K_OK);
    const int64_t down4[5] = {0, 0, 8, 8, 15}; /* (v + 8) >> 4, 255 -> 16 clamped */
    for (int i = 0; i < 5; i++)
        CHECK_EQ(comp->samples[i], down4[i]);
    CHECK(comp->precision == 4);
    REQUIRE(color_render_set_precision(image, 12, COLOR_RENDER_KEEP_SIGN, &error) == GJ2K_OK);
    CHECK(comp->samples[4] == 15 * 256 && comp->precision == 12);
    /* 12 -> 38 bits moves to wide storage and back. */
    REQUIRE(color_render_set_precision(image, 38, COLOR_RENDER_KEEP_SIGN, &error) == GJ2K_OK);
    CHECK(comp->samples == NULL && comp->wide_samples != NULL);
    CHECK(comp->wide_samples[4] == (int64_t)15 << 34);
    REQUIRE(color_render_set_precision(image, 8, COLOR_RENDER_KEEP_SIGN, &error) == GJ2K_OK);
    CHECK(comp->samples != NULL && comp->wide_samples == NULL && comp->samples[4] == 240);
    gj2k_image_destroy(image);

    image = make_image(0, 0, 5, 1, 1, 12, true, NULL, NULL);
    REQUIRE(image != NULL);
    comp = &image->components[0];
    const int32_t in12[5] = {-2048, -9, -8, 0, 2047};
    memcpy(comp->samples, in12, sizeof in12);
    REQUIRE(color_render_set_component_precision(comp, 8, COLOR_RENDER_KEEP_SIGN, &error) ==
            GJ2K_OK);
    /* floor((v + 8) / 16): -128, floor(-1/16) = -1, 0, 0, 128 -> 127 */
    const int64_t signed8[5] = {-128, -1, 0, 0, 127};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(comp->samples[i], signed8[i]);
    REQUIRE(color_render_set_component_precision(comp, 8, COLOR_RENDER_UNSIGNED, &error) ==
            GJ2K_OK);
    const int64_t unsigned8[5] = {0, 127, 128, 128, 255};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(comp->samples[i], unsigned8[i]);
    CHECK(!comp->is_signed);
    REQUIRE(color_render_set_component_precision(comp, 16, COLOR_RENDER_SIGNED, &error) ==
            GJ2K_OK);
    CHECK(comp->is_signed && comp->samples[0] == -32768 && comp->samples[4] == 127 * 256);
    CHECK(color_render_set_precision(image, 39, COLOR_RENDER_KEEP_SIGN, &error) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
    gj2k_image_destroy(image);
}

#ifdef GJ2K_HAVE_LCMS2
/* An lcms-made profile in memory (the caller frees it). */
static uint8_t *save_profile(cmsHPROFILE profile, size_t *size)
{
    cmsUInt32Number bytes = 0;
    if (profile == NULL || !cmsSaveProfileToMem(profile, NULL, &bytes))
        return NULL;
    uint8_t *data = malloc(bytes);
    if (data != NULL && !cmsSaveProfileToMem(profile, data, &bytes)) {
        free(data);
        data = NULL;
    }
    cmsCloseProfile(profile);
    *size = bytes;
    return data;
}

static double srgb_encode(double linear)
{
    return linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
}
#endif

/* ICC -> sRGB: an sRGB profile is the identity (within 1); a grey gamma
 * 2.2 profile gives sRGB(value^2.2). */
static void icc_to_srgb(void)
{
#ifndef GJ2K_HAVE_LCMS2
    gj2k_image *plain = make_image(0, 0, 1, 1, 1, 8, false, NULL, NULL);
    REQUIRE(plain != NULL);
    uint8_t header[128] = {0};
    memcpy(header + 16, "GRAY", 4);
    gj2k_error error = {0};
    REQUIRE(gj2k_image_set_icc_profile(plain, header, sizeof header, &error) == GJ2K_OK);
    CHECK(color_render_to_rgb(plain, NULL, NULL, &error) == GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "built without lcms2") != NULL);
    gj2k_image_destroy(plain);
    test_skip("built without LittleCMS: only the refusal was checked");
#else
    cmsContext context = cmsCreateContext(NULL, NULL);
    size_t srgb_size = 0, grey_size = 0;
    uint8_t *srgb = save_profile(cmsCreate_sRGBProfileTHR(context), &srgb_size);
    cmsToneCurve *gamma = cmsBuildGamma(context, 2.2);
    uint8_t *grey = save_profile(cmsCreateGrayProfileTHR(context, cmsD50_xyY(), gamma), &grey_size);
    cmsFreeToneCurve(gamma);
    cmsDeleteContext(context);
    REQUIRE(srgb != NULL && grey != NULL);

    gj2k_image *image = make_image(0, 0, 64, 4, 4, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    image->components[3].role = GJ2K_ROLE_OPACITY;
    int32_t original[3][256];
    for (uint32_t k = 0; k < 3; k++)
        for (int i = 0; i < 256; i++)
            image->components[k].samples[i] = original[k][i] = (int32_t)test_random_range(0, 255);
    image->components[3].samples[7] = 77;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_set_icc_profile(image, srgb, srgb_size, &error) == GJ2K_OK);
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(image->num_components == 4);
    CHECK(image->icc_profile == NULL && image->color_space == GJ2K_COLOR_SRGB);
    int worst = 0;
    for (uint32_t k = 0; k < 3; k++)
        for (int i = 0; i < 256; i++) {
            int d = abs((int)sample(image, k, (size_t)i) - original[k][i]);
            worst = d > worst ? d : worst;
        }
    CHECK(worst <= 1);
    CHECK(sample(image, 3, 7) == 77 && image->components[3].role == GJ2K_ROLE_OPACITY);
    gj2k_image_destroy(image);

    image = make_image(0, 0, 256, 1, 1, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    for (int i = 0; i < 256; i++)
        image->components[0].samples[i] = i;
    REQUIRE(gj2k_image_set_icc_profile(image, grey, grey_size, &error) == GJ2K_OK);
    REQUIRE(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_OK);
    REQUIRE(image->num_components == 3);
    worst = 0;
    for (int i = 0; i < 256; i++) {
        double want = 255 * srgb_encode(pow(i / 255.0, 2.2));
        for (uint32_t k = 0; k < 3; k++) {
            int d = (int)fabs((double)sample(image, k, (size_t)i) - want);
            worst = d > worst ? d : worst;
        }
    }
    CHECK(worst <= 2);
    CHECK(abs((int)sample(image, 0, 128) - 129) <= 1); /* 0.502^2.2 = 0.2195 -> 0.506 */
    gj2k_image_destroy(image);

    /* Refusals: a damaged profile, and an RGB profile on one component. */
    image = make_image(0, 0, 2, 2, 3, 8, false, NULL, NULL);
    REQUIRE(image != NULL);
    srgb[40] ^= 0xFF;
    memset(srgb + 128, 0xEE, 64); /* the tag table */
    REQUIRE(gj2k_image_set_icc_profile(image, srgb, srgb_size, &error) == GJ2K_OK);
    CHECK(color_render_to_rgb(image, NULL, NULL, &error) != GJ2K_OK);
    CHECK(error.message[0] != '\0' && image->num_components == 3);
    image->components[1].role = image->components[2].role = GJ2K_ROLE_OPACITY;
    memset(srgb, 0, 128);
    memcpy(srgb + 16, "RGB ", 4);
    REQUIRE(gj2k_image_set_icc_profile(image, srgb, srgb_size, &error) == GJ2K_OK);
    CHECK(color_render_to_rgb(image, NULL, NULL, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(strstr(error.message, "needs 3 colour components") != NULL);
    gj2k_image_destroy(image);
    free(srgb);
    free(grey);
#endif
}

/* The ICC profiles of file5/7 (RGB) and file8 (grey) convert through the
 * whole path: jp2_file_read, color_render_apply_jp2, color_render_to_rgb;
 * a neutral input stays neutral (within 2 of 255). */
static void conformance_icc_profiles(void)
{
#ifndef GJ2K_HAVE_LCMS2
    test_skip("built without LittleCMS");
#else
    const char *names[3] = {"file5.jp2", "file7.jp2", "file8.jp2"};
    for (int n = 0; n < 3; n++) {
        char relative[64];
        snprintf(relative, sizeof relative, "conformance/input/%s", names[n]);
        FILE *file = fopen(test_shared_path(relative), "rb");
        REQUIRE(file != NULL);
        static uint8_t head[20000]; /* the header boxes lie in the first 14 KB */
        size_t size = fread(head, 1, sizeof head, file);
        fclose(file);
        /* Cut the file after jp2h, closing it with a stand-in jp2c. */
        jp2_file jp2;
        gj2k_error error = {0};
        size_t cut = n == 0 ? 670 : n == 1 ? 13456 : 491;
        REQUIRE(size > cut + 12);
        const uint8_t jp2c[12] = {0, 0, 0, 12, 'j', 'p', '2', 'c', 0xFF, 0x4F, 0xFF, 0x51};
        memcpy(head + cut, jp2c, sizeof jp2c);
        REQUIRE(jp2_file_read(head, cut + sizeof jp2c, &jp2, NULL, NULL, &error) == GJ2K_OK);
        jp2_depth depth;
        REQUIRE(jp2_file_component_depth(&jp2, 0, &depth));
        gj2k_image *image = make_image(0, 0, jp2.header.width, 1, jp2.header.num_components,
                                       depth.precision, false, NULL, NULL);
        REQUIRE(image != NULL);
        int64_t top = ((int64_t)1 << depth.precision) - 1;
        for (uint32_t c = 0; c < image->num_components; c++)
            for (uint32_t x = 0; x < image->components[c].width; x++)
                image->components[c].samples[x] = (int32_t)(x * top / (jp2.header.width - 1));
        REQUIRE(color_render_apply_jp2(image, &jp2, NULL, NULL, &error) == GJ2K_OK);
        CHECK(image->icc_profile != NULL);
        gj2k_status status = color_render_to_rgb(image, NULL, NULL, &error);
        if (status != GJ2K_OK)
            fprintf(stderr, "%s: %s\n", names[n], error.message);
        REQUIRE(status == GJ2K_OK);
        REQUIRE(image->num_components == 3);
        int64_t tolerance = 2 * (top / 255);
        uint32_t last = image->components[0].width - 1;
        for (uint32_t x = 0; x <= last; x++) {
            int64_t r = sample(image, 0, x), g = sample(image, 1, x), b = sample(image, 2, x);
            CHECK(llabs(r - g) <= tolerance && llabs(b - g) <= tolerance);
        }
        CHECK(sample(image, 0, 0) <= tolerance && sample(image, 1, last) >= top - tolerance);
        gj2k_image_destroy(image);
        jp2_file_free(&jp2);
    }
#endif
}

static const test_case cases[] = {
    {"palette_expansion", palette_expansion},
    {"channel_definitions", channel_definitions},
    {"colour_space_and_resolution", colour_space_and_resolution},
    {"upsample_values", upsample_values},
    {"sycc_to_rgb_values", sycc_to_rgb_values},
    {"grey_to_rgb", grey_to_rgb},
    {"precision_change", precision_change},
    {"icc_to_srgb", icc_to_srgb},
    {"conformance_icc_profiles", conformance_icc_profiles},
};

TEST_MAIN(cases)
