/* test_tiff.c - TIFF reading and writing through libtiff: the shared flower,
 * pngsuite and cinema files, layouts made here with libtiff itself (strips,
 * tiles, planar, odd depths, palette, min-is-white, signed), metadata,
 * unsupported kinds and malformed input. */
#include "gj2k.h"
#include "io_test_support.h"
#include "test_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GJ2K_HAVE_TIFF
#include <tiffio.h>

#include "tiff_test_files.h"

/* ------------------------------------------------------------ helpers */

static gj2k_status read_tiff(const uint8_t *data, size_t size, gj2k_image **image,
                             gj2k_error *error)
{
    return gj2k_image_read_memory(data, size, GJ2K_FORMAT_TIFF, NULL, image, error);
}

/* Writes and reads back through `format`; NULL after a failed check. */
static gj2k_image *checked_round_trip(const gj2k_image *image, gj2k_file_format format,
                                      warnings *seen)
{
    gj2k_image *back = round_trip(image, format, NULL, seen);
    CHECK(back != NULL);
    return back;
}

static gj2k_image *new_image(uint32_t width, uint32_t height, uint32_t count, uint32_t precision,
                             bool is_signed)
{
    gj2k_component_info info[4] = {{0}};
    for (uint32_t c = 0; c < count; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision,
                                        .is_signed = is_signed};
    gj2k_image *image = NULL;
    gj2k_error error;
    if (gj2k_image_create(&image, 0, 0, width, height, count, info, &error) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < count; c++)
        for (size_t i = 0; i < (size_t)width * height; i++)
            image->components[c].samples[i] = (int32_t)test_random_range(
                is_signed ? -((int64_t)1 << (precision - 1)) : 0,
                is_signed ? ((int64_t)1 << (precision - 1)) - 1 : ((int64_t)1 << precision) - 1);
    image->color_space = count >= 3 ? GJ2K_COLOR_SRGB : GJ2K_COLOR_GRAY;
    return image;
}

/* ------------------------------------------------------ shared files */

/* flower-minisblack-NN: precision NN, exact TIFF round trips, and the
 * relations the series really has (measured): NN = 2, 4, 6, 8 are
 * floor(v16 * (2^NN - 1) / 65535); odd NN are the NN+1 file rounded,
 * round(v * (2^NN - 1) / (2^(NN+1) - 1)). */
static void flower_grey_depths(void)
{
    gj2k_image *series[17] = {NULL};
    for (int nn = 1; nn <= 16; nn++) {
        char name[64];
        snprintf(name, sizeof name, "flower-minisblack-%02d.tif", nn);
        series[nn] = read_shared(name);
        REQUIRE(series[nn] != NULL);
        const gj2k_image *image = series[nn];
        CHECK(image->x1 == 73 && image->y1 == 43 && image->num_components == 1);
        CHECK_EQ(image->components[0].precision, nn);
        CHECK(!image->components[0].is_signed && image->color_space == GJ2K_COLOR_GRAY);
        /* even NN and 1: 72 dpi; odd NN >= 3 say "no unit" */
        double expected = (nn % 2 == 0 || nn == 1) ? 72 / 0.0254 : 0;
        CHECK(fabs(image->resolution_x - expected) < 1e-3 &&
              fabs(image->resolution_y - expected) < 1e-3);
        gj2k_image *back = checked_round_trip(image, GJ2K_FORMAT_TIFF, NULL);
        REQUIRE(back != NULL);
        CHECK(same_image(image, back));
        gj2k_image_destroy(back);
    }
    const int32_t *v16 = series[16]->components[0].samples;
    for (int nn = 2; nn <= 15; nn++) {
        const int32_t *v = series[nn]->components[0].samples;
        int64_t top = ((int64_t)1 << nn) - 1, next = ((int64_t)1 << (nn + 1)) - 1;
        const int32_t *up = series[nn + 1]->components[0].samples;
        size_t mismatches = 0;
        for (size_t i = 0; i < 73 * 43; i++) {
            if (nn % 2 == 1)
                mismatches += v[i] != (2 * up[i] * top + next) / (2 * next);
            else if (nn <= 8)
                mismatches += v[i] != v16[i] * top / 65535;
        }
        if (mismatches)
            fprintf(stderr, "flower-minisblack-%02d: %zu samples off\n", nn, mismatches);
        CHECK_EQ(mismatches, 0);
    }
    for (int nn = 1; nn <= 16; nn++)
        gj2k_image_destroy(series[nn]);
}

/* Chunky and planar files decode alike at every depth; both round-trip. */
static void flower_rgb_contig_planar(void)
{
    static const int depths[] = {2, 4, 8, 10, 12, 14, 16};
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "flower-rgb-contig-%02d.tif", depths[k]);
        gj2k_image *contig = read_shared(name);
        snprintf(name, sizeof name, "flower-rgb-planar-%02d.tif", depths[k]);
        gj2k_image *planar = read_shared(name);
        REQUIRE(contig != NULL && planar != NULL);
        CHECK(contig->num_components == 3 && contig->color_space == GJ2K_COLOR_SRGB);
        CHECK_EQ(contig->components[2].precision, depths[k]);
        if (!same_image(contig, planar)) {
            fprintf(stderr, "%d bits: contig and planar differ\n", depths[k]);
            CHECK(false);
        }
        gj2k_image *back = checked_round_trip(planar, GJ2K_FORMAT_TIFF, NULL);
        REQUIRE(back != NULL);
        CHECK(same_image(back, contig));
        gj2k_image_destroy(back);
        gj2k_image_destroy(contig);
        gj2k_image_destroy(planar);
    }
}

static void require_png(void)
{
    if (!gj2k_format_can_write(GJ2K_FORMAT_PNG))
        test_skip("this build has no PNG (libpng)");
}

/* Every flower file goes to PNG and back exactly (1/2/4 bits natively,
 * other depths through sBIT). */
static void flower_to_png(void)
{
    require_png();
    for (int nn = 1; nn <= 16; nn++) {
        for (int rgb = 0; rgb < 2; rgb++) {
            char name[64];
            if (rgb && (nn % 2 || nn == 6))
                continue;
            snprintf(name, sizeof name, rgb ? "flower-rgb-contig-%02d.tif"
                                            : "flower-minisblack-%02d.tif", nn);
            gj2k_image *image = read_shared(name);
            REQUIRE(image != NULL);
            gj2k_image *back = checked_round_trip(image, GJ2K_FORMAT_PNG, NULL);
            REQUIRE(back != NULL);
            if (!same_image(image, back)) {
                fprintf(stderr, "%s differs after PNG\n", name);
                CHECK(false);
            }
            gj2k_image_destroy(back);
            gj2k_image_destroy(image);
        }
    }
}

/* basn4a08.tif holds the PNG suite's basn4a08 exactly. basn6a08.tif does not
 * (measured): its maker applied the PNG's gAMA 1.0, so its colour samples are
 * one non-decreasing function of the PNG's (the same for R, G and B, fixing
 * 0 and 255; e.g. 32 -> 97, 224 -> 243) and its alpha is within 2. */
static void png_pairs(void)
{
    require_png();
    static const char *const names[2] = {"basn4a08", "basn6a08"};
    static const size_t icc_sizes[2] = {4380, 3144};
    for (int k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s.tif", names[k]);
        gj2k_image *tiff = read_shared(name);
        snprintf(name, sizeof name, "pngsuite/%s.png", names[k]);
        gj2k_image *png = read_shared(name);
        REQUIRE(tiff != NULL && png != NULL);
        REQUIRE(tiff->num_components == png->num_components && tiff->x1 == 32 && tiff->y1 == 32);
        uint32_t last = tiff->num_components - 1;
        for (uint32_t c = 0; c <= last; c++)
            CHECK(tiff->components[c].precision == 8 &&
                  tiff->components[c].role == png->components[c].role);
        CHECK(tiff->components[last].role == GJ2K_ROLE_OPACITY);
        CHECK(tiff->color_space == png->color_space);
        if (k == 0) {
            CHECK(same_image(tiff, png));
        } else {
            int map[256];
            for (int v = 0; v < 256; v++)
                map[v] = -1;
            for (uint32_t c = 0; c <= last; c++)
                for (size_t i = 0; i < 32 * 32; i++) {
                    int from = png->components[c].samples[i], to = tiff->components[c].samples[i];
                    if (c == last) {
                        CHECK(abs(from - to) <= 2);
                        continue;
                    }
                    CHECK(map[from] < 0 || map[from] == to);
                    map[from] = to;
                }
            CHECK(map[0] == 0 && map[255] == 255 && map[32] == 97 && map[224] == 243);
            for (int v = 0, previous = 0; v < 256; v++)
                if (map[v] >= 0) {
                    CHECK(map[v] >= previous);
                    previous = map[v];
                }
        }
        REQUIRE(tiff->icc_profile_size == icc_sizes[k]);
        const uint8_t *icc = tiff->icc_profile;
        CHECK(((size_t)icc[0] << 24 | (size_t)icc[1] << 16 | (size_t)icc[2] << 8 | icc[3]) ==
              icc_sizes[k]);
        CHECK(memcmp(icc + 36, "acsp", 4) == 0);
        gj2k_image_destroy(tiff);
        gj2k_image_destroy(png);
    }
}

/* The cinema frame: its tags say 12 bits a sample (packed), so precision 12;
 * exact through TIFF and PNG; and the 8-bit PNG beside it is exactly
 * floor(v12 * 255 / 4095) (measured: v12 >> 4 misses about 11% of samples). */
static void cinema_frame(void)
{
    gj2k_image *frame = read_shared("cinema2k_rgb12.tif");
    REQUIRE(frame != NULL);
    CHECK(frame->x1 == 2048 && frame->y1 == 1556 && frame->num_components == 3);
    for (uint32_t c = 0; c < 3; c++)
        CHECK_EQ(frame->components[c].precision, 12);
    gj2k_image *back = checked_round_trip(frame, GJ2K_FORMAT_TIFF, NULL);
    REQUIRE(back != NULL);
    CHECK(same_image(frame, back));
    gj2k_image_destroy(back);
    if (gj2k_format_can_read(GJ2K_FORMAT_PNG)) {
        back = checked_round_trip(frame, GJ2K_FORMAT_PNG, NULL);
        REQUIRE(back != NULL);
        CHECK(same_image(frame, back));
        gj2k_image_destroy(back);
        gj2k_image *eight = read_shared("cinema2k_rgb8.png");
        REQUIRE(eight != NULL);
        CHECK(eight->num_components == 3 && eight->x1 == 2048 && eight->y1 == 1556);
        size_t off = 0;
        for (uint32_t c = 0; c < 3; c++) {
            CHECK_EQ(eight->components[c].precision, 8);
            for (size_t i = 0; i < (size_t)2048 * 1556; i++)
                off += eight->components[c].samples[i] !=
                       frame->components[c].samples[i] * 255 / 4095;
        }
        CHECK_EQ(off, 0);
        gj2k_image_destroy(eight);
    }
    gj2k_image_destroy(frame);
}

/* ------------------------------------------------- files made here */

/* Checks that `data` reads as the stored `values` of `spec` (grey or RGB,
 * unsigned, extras as unassociated alpha). */
static bool reads_as_values(const uint8_t *data, size_t size, const tiff_spec *spec,
                            const uint32_t *values)
{
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (read_tiff(data, size, &image, &error) != GJ2K_OK) {
        fprintf(stderr, "read: %s\n", error.message);
        return false;
    }
    bool ok = image->num_components == spec->samples && image->x1 == spec->width &&
              image->y1 == spec->height;
    for (uint32_t c = 0; ok && c < spec->samples; c++) {
        const gj2k_component *comp = &image->components[c];
        bool alpha = c >= (spec->photometric == PHOTOMETRIC_RGB ? 3u : 1u);
        ok = comp->precision == spec->bits && !comp->is_signed &&
             comp->role == (alpha ? GJ2K_ROLE_OPACITY : GJ2K_ROLE_COLOR);
        for (size_t i = 0; ok && i < (size_t)spec->width * spec->height; i++)
            ok = (uint32_t)comp->samples[i] == values[i * spec->samples + c];
    }
    gj2k_image_destroy(image);
    return ok;
}

/* Strips (with a partial last one) and tiles (edge tiles, and tiles larger
 * than the image), chunky and planar, 1 to 16 bits, 1 to 4 samples, four
 * compressions, both byte orders. */
static void layouts_made_here(void)
{
    static const uint16_t bits[] = {1, 2, 3, 5, 8, 10, 12, 16};
    static const uint16_t compressions[] = {COMPRESSION_NONE, COMPRESSION_LZW,
                                            COMPRESSION_ADOBE_DEFLATE, COMPRESSION_PACKBITS};
    static const uint32_t blocks[3][2] = {{0, 7}, {16, 16}, {48, 32}};
    int made = 0;
    for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++)
        for (uint16_t samples = 1; samples <= 4; samples++)
            for (uint16_t planar = 1; planar <= 2; planar++)
                for (int k = 0; k < 3; k++) {
                    uint16_t compression = compressions[made % 4];
                    if (!TIFFIsCODECConfigured(compression))
                        compression = COMPRESSION_NONE;
                    tiff_spec spec = {
                        .width = 37, .height = 23, .bits = bits[b], .samples = samples,
                        .photometric = samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK,
                        .planar = planar, .compression = compression,
                        .tile_width = blocks[k][0], .tile_height = blocks[k][1],
                        .rows_per_strip = blocks[k][1], .big_endian = made % 3 == 1,
                        .extra_count = samples % 2 == 0, .extras = {EXTRASAMPLE_UNASSALPHA}};
                    uint32_t *values = random_values(&spec);
                    size_t size;
                    uint8_t *data = make_tiff(&spec, values, &size);
                    REQUIRE(data != NULL);
                    if (!reads_as_values(data, size, &spec, values)) {
                        fprintf(stderr, "%u bits, %u samples, planar %u, blocks %ux%u, "
                                "compression %u, big-endian %d: wrong\n", spec.bits, samples,
                                planar, blocks[k][0], blocks[k][1], compression, spec.big_endian);
                        CHECK(false);
                    }
                    free(data);
                    free(values);
                    made++;
                }
}

/* Palettes become RGB (precision 8 for an 8-bit map scaled by 257, else 16);
 * min-is-white is inverted. */
static void palette_and_miniswhite(void)
{
    static const uint16_t palette_bits[] = {2, 4, 8};
    for (size_t k = 0; k < 3; k++)
        for (int scaled = 0; scaled < 2; scaled++) {
            size_t entries = (size_t)1 << palette_bits[k];
            uint16_t *map = malloc(3 * entries * sizeof *map);
            for (size_t i = 0; i < 3 * entries; i++)
                map[i] = scaled ? (uint16_t)(257 * (test_random() & 255)) : (uint16_t)test_random();
            if (!scaled)
                map[0] = 1; /* at least one entry is not a multiple of 257 */
            tiff_spec spec = {.width = 21, .height = 13, .bits = palette_bits[k], .samples = 1,
                              .photometric = PHOTOMETRIC_PALETTE, .rows_per_strip = 5,
                              .tile_width = k == 1 ? 16 : 0, .tile_height = 16,
                              .colormap = map};
            uint32_t *values = random_values(&spec);
            size_t size;
            uint8_t *data = make_tiff(&spec, values, &size);
            REQUIRE(data != NULL);
            gj2k_image *image = NULL;
            gj2k_error error;
            REQUIRE(read_tiff(data, size, &image, &error) == GJ2K_OK);
            CHECK(image->num_components == 3 && image->color_space == GJ2K_COLOR_SRGB);
            for (uint32_t c = 0; c < 3; c++) {
                CHECK_EQ(image->components[c].precision, scaled ? 8 : 16);
                for (size_t i = 0; i < 21 * 13; i++)
                    CHECK_EQ(image->components[c].samples[i],
                             map[c * entries + values[i]] / (scaled ? 257 : 1));
            }
            gj2k_image_destroy(image);
            free(data);
            free(values);
            free(map);
        }

    static const uint16_t white_bits[] = {1, 8, 12};
    for (size_t k = 0; k < 3; k++) {
        tiff_spec spec = {.width = 19, .height = 6, .bits = white_bits[k], .samples = 1,
                          .photometric = PHOTOMETRIC_MINISWHITE, .rows_per_strip = 4};
        uint32_t *values = random_values(&spec);
        size_t size;
        uint8_t *data = make_tiff(&spec, values, &size);
        REQUIRE(data != NULL);
        gj2k_image *image = NULL;
        gj2k_error error;
        REQUIRE(read_tiff(data, size, &image, &error) == GJ2K_OK);
        CHECK(image->color_space == GJ2K_COLOR_GRAY);
        CHECK_EQ(image->components[0].precision, white_bits[k]);
        for (size_t i = 0; i < 19 * 6; i++)
            CHECK_EQ(image->components[0].samples[i],
                     (int32_t)((1u << white_bits[k]) - 1 - values[i]));
        gj2k_image_destroy(image);
        free(data);
        free(values);
    }
}

/* Signed samples (ours and libtiff's two's complement at 5, 12, 16 bits),
 * alpha roles, and components of mixed precision. */
static void signed_and_alpha(void)
{
    gj2k_image *image = new_image(31, 9, 1, 12, true);
    REQUIRE(image != NULL);
    gj2k_image *back = checked_round_trip(image, GJ2K_FORMAT_TIFF, NULL);
    REQUIRE(back != NULL);
    CHECK(same_image(image, back) && back->components[0].is_signed);
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);

    static const uint16_t signed_bits[] = {5, 12, 16};
    for (size_t k = 0; k < 3; k++) {
        tiff_spec spec = {.width = 17, .height = 5, .bits = signed_bits[k], .samples = 1,
                          .photometric = PHOTOMETRIC_MINISBLACK, .format = SAMPLEFORMAT_INT,
                          .rows_per_strip = 2, .big_endian = k == 2};
        uint32_t *values = random_values(&spec);
        size_t size;
        uint8_t *data = make_tiff(&spec, values, &size);
        REQUIRE(data != NULL);
        REQUIRE(read_tiff(data, size, &image, &(gj2k_error){0}) == GJ2K_OK);
        CHECK(image->components[0].is_signed && image->components[0].precision == signed_bits[k]);
        for (size_t i = 0; i < 17 * 5; i++) {
            int64_t v = values[i];
            if (v >> (signed_bits[k] - 1))
                v -= (int64_t)1 << signed_bits[k];
            CHECK_EQ(image->components[0].samples[i], v);
        }
        gj2k_image_destroy(image);
        free(data);
        free(values);
    }

    static const gj2k_component_role roles[3] = {GJ2K_ROLE_OPACITY,
                                                 GJ2K_ROLE_PREMULTIPLIED_OPACITY,
                                                 GJ2K_ROLE_COLOR};
    for (int k = 0; k < 3; k++) {
        uint32_t count = k == 2 ? 4 : 2;
        image = new_image(8, 8, count, 16, false);
        REQUIRE(image != NULL);
        image->components[count - 1].role = roles[k];
        back = checked_round_trip(image, GJ2K_FORMAT_TIFF, NULL);
        REQUIRE(back != NULL);
        CHECK(same_image(image, back));
        gj2k_image_destroy(back);
        gj2k_image_destroy(image);
    }

    image = new_image(10, 3, 4, 8, false);
    REQUIRE(image != NULL);
    image->components[3].precision = 1; /* RGB 8 bits with a 1-bit alpha */
    for (size_t i = 0; i < 30; i++)
        image->components[3].samples[i] &= 1;
    warnings seen = {0};
    back = checked_round_trip(image, GJ2K_FORMAT_TIFF, &seen);
    REQUIRE(back != NULL);
    CHECK(seen.count == 1 && strstr(seen.last, "8 bits") != NULL);
    image->components[3].precision = 8;
    image->components[3].role = GJ2K_ROLE_COLOR; /* no ExtraSamples role was given */
    CHECK(same_image(image, back));
    gj2k_image_destroy(back);
    gj2k_image_destroy(image);
}

/* An ICC blob and a resolution survive TIFF -> TIFF (through centimetres);
 * inch resolutions are converted. */
static void icc_and_resolution(void)
{
    gj2k_image *image = new_image(9, 7, 3, 8, false);
    REQUIRE(image != NULL);
    uint8_t icc[300];
    for (size_t i = 0; i < sizeof icc; i++)
        icc[i] = (uint8_t)test_random();
    REQUIRE(gj2k_image_set_icc_profile(image, icc, sizeof icc, NULL) == GJ2K_OK);
    image->resolution_x = 11811;
    image->resolution_y = 5906;
    gj2k_image *once = checked_round_trip(image, GJ2K_FORMAT_TIFF, NULL);
    REQUIRE(once != NULL);
    gj2k_image *twice = checked_round_trip(once, GJ2K_FORMAT_TIFF, NULL);
    REQUIRE(twice != NULL);
    const gj2k_image *both[2] = {once, twice};
    for (int k = 0; k < 2; k++) {
        CHECK(same_image(both[k], image));
        CHECK(both[k]->icc_profile_size == sizeof icc &&
              memcmp(both[k]->icc_profile, icc, sizeof icc) == 0);
        /* TIFF stores rationals through float: a few parts in 10^7 */
        CHECK(fabs(both[k]->resolution_x - 11811) < 0.01 &&
              fabs(both[k]->resolution_y - 5906) < 0.01);
    }
    gj2k_image_destroy(once);
    gj2k_image_destroy(twice);
    gj2k_image_set_icc_profile(image, NULL, 0, NULL);
    image->resolution_x = image->resolution_y = 0;
    once = checked_round_trip(image, GJ2K_FORMAT_TIFF, NULL);
    REQUIRE(once != NULL);
    CHECK(once->icc_profile == NULL && once->resolution_x == 0 && once->resolution_y == 0);
    gj2k_image_destroy(once);
    gj2k_image_destroy(image);

    tiff_spec spec = {.width = 4, .height = 1, .bits = 8, .samples = 1, .rows_per_strip = 1,
                      .photometric = PHOTOMETRIC_MINISBLACK, .resolution_x = 300,
                      .resolution_y = 150, .resolution_unit = RESUNIT_INCH};
    uint32_t values[4] = {1, 2, 3, 4};
    size_t size;
    uint8_t *data = make_tiff(&spec, values, &size);
    REQUIRE(data != NULL && read_tiff(data, size, &image, NULL) == GJ2K_OK);
    CHECK(fabs(image->resolution_x - 300 / 0.0254) < 1e-6 &&
          fabs(image->resolution_y - 150 / 0.0254) < 1e-6);
    gj2k_image_destroy(image);
    free(data);
}

/* What gj2k does not read is refused by name. */
static void unsupported_kinds(void)
{
    static const struct {
        uint16_t bits, samples, photometric, format;
        const char *named;
    } kinds[] = {
        {8, 3, PHOTOMETRIC_YCBCR, SAMPLEFORMAT_UINT, "YCbCr"},
        {8, 4, PHOTOMETRIC_SEPARATED, SAMPLEFORMAT_UINT, "CMYK"},
        {32, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_IEEEFP, "floating-point"},
        {32, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_UINT, "32 bits"},
        {8, 5, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_UINT, "5 samples"},
        {8, 3, PHOTOMETRIC_CIELAB, SAMPLEFORMAT_UINT, "L*a*b*"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        tiff_spec spec = {.width = 8, .height = 4, .bits = kinds[k].bits,
                          .samples = kinds[k].samples, .photometric = kinds[k].photometric,
                          .format = kinds[k].format, .rows_per_strip = 4};
        if (kinds[k].samples == 5)
            spec.extra_count = 4; /* grey and four unspecified extras */
        size_t size;
        uint8_t *data = make_tiff(&spec, NULL, &size);
        REQUIRE(data != NULL);
        gj2k_image *image = NULL;
        gj2k_error error = {0};
        CHECK_EQ(read_tiff(data, size, &image, &error), GJ2K_ERROR_UNSUPPORTED);
        if (strstr(error.message, kinds[k].named) == NULL) {
            fprintf(stderr, "message '%s' lacks '%s'\n", error.message, kinds[k].named);
            CHECK(false);
        }
        free(data);
    }
}

/* What the writer cannot hold is refused with a message. */
static void write_rejects(void)
{
    gj2k_component_info info[5];
    for (int c = 0; c < 5; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = 8};
    struct {
        uint32_t count;
        int change;
        const char *named;
    } cases[] = {{5, 0, "1 to 4"}, {1, 1, "16 bits"}, {3, 2, "one size"}, {2, 3, "signed"}};
    for (size_t k = 0; k < 4; k++) {
        gj2k_component_info use[5];
        memcpy(use, info, sizeof use);
        if (cases[k].change == 1)
            use[0].precision = 17;
        if (cases[k].change == 2)
            use[2].dy = 2;
        if (cases[k].change == 3)
            use[1].is_signed = true;
        gj2k_image *image = NULL;
        gj2k_error error = {0};
        REQUIRE(gj2k_image_create(&image, 0, 0, 6, 6, cases[k].count, use, &error) == GJ2K_OK);
        uint8_t *data = NULL;
        size_t size;
        CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_TIFF, NULL, &data, &size, &error),
                 GJ2K_ERROR_UNSUPPORTED);
        CHECK(data == NULL && strstr(error.message, cases[k].named) != NULL);
        gj2k_image_destroy(image);
    }
}

/* ------------------------------------------------------ malformed input */

/* Every prefix that cuts pixel data fails; random damage (half of it in the
 * first directory) never crashes, and what still decodes is sane. Files: a
 * shared uncompressed one, a planar one, ours (deflate), libtiff's tiled LZW. */
static void truncation_and_corruption(void)
{
    char paths[4][600];
    snprintf(paths[0], sizeof paths[0], "%s", test_shared_path("images/flower-minisblack-08.tif"));
    snprintf(paths[1], sizeof paths[1], "%s", test_shared_path("images/flower-rgb-planar-12.tif"));
    snprintf(paths[2], sizeof paths[2], "%s/ours.tif", test_temp_dir());
    snprintf(paths[3], sizeof paths[3], "%s/made.tif", test_temp_dir());
    gj2k_image *image = new_image(40, 30, 4, 16, false);
    REQUIRE(image != NULL && gj2k_image_write_file(image, paths[2], NULL, NULL) == GJ2K_OK);
    gj2k_image_destroy(image);
    tiff_spec spec = {.width = 50, .height = 40, .bits = 8, .samples = 3,
                      .photometric = PHOTOMETRIC_RGB, .compression = COMPRESSION_LZW,
                      .tile_width = 32, .tile_height = 16};
    uint32_t *values = random_values(&spec);
    size_t size;
    uint8_t *data = make_tiff(&spec, values, &size);
    REQUIRE(data != NULL);
    free(values);
    free(data);

    int decoded = 0;
    for (int f = 0; f < 4; f++) {
        data = load_bytes(paths[f], &size);
        REQUIRE(data != NULL && size > 8);
        uint64_t end = data_end(paths[f]);
        REQUIRE(end > 0 && end <= size);
        for (size_t cut = 0; cut < size; cut += size > 4000 ? 7 : 1) {
            image = NULL;
            gj2k_error error = {0};
            gj2k_status status = read_tiff(data, cut, &image, &error);
            if (cut < end && status == GJ2K_OK) {
                fprintf(stderr, "%s cut at %zu (data ends at %llu) still reads\n", paths[f],
                        cut, (unsigned long long)end);
                CHECK(false);
            }
            CHECK((status == GJ2K_OK) == (image != NULL));
            gj2k_image_destroy(image);
        }
        bool little = data[0] == 'I';
        size_t ifd = little ? (size_t)data[4] | data[5] << 8 | (size_t)data[6] << 16 | (size_t)data[7] << 24
                            : (size_t)data[7] | data[6] << 8 | (size_t)data[5] << 16 | (size_t)data[4] << 24;
        REQUIRE(ifd + 2 < size);
        size_t ifd_bytes = 2 + 12 * (size_t)(little ? data[ifd] | data[ifd + 1] << 8
                                                   : data[ifd + 1] | data[ifd] << 8);
        if (ifd_bytes > size - ifd)
            ifd_bytes = size - ifd;
        uint8_t *damaged = malloc(size);
        for (int round = 0; round < 150; round++) {
            memcpy(damaged, data, size);
            for (int k = (int)test_random_range(1, 4); k > 0; k--) {
                size_t at = round % 2 ? ifd + (size_t)test_random_range(0, (int64_t)ifd_bytes - 1)
                                      : (size_t)test_random_range(0, (int64_t)size - 1);
                damaged[at] = (uint8_t)test_random();
            }
            image = NULL;
            if (read_tiff(damaged, size, &image, &(gj2k_error){0}) == GJ2K_OK) {
                decoded++;
                CHECK(image->num_components >= 1 && image->num_components <= 6);
                CHECK(samples_in_range(image));
                gj2k_image_destroy(image);
            }
        }
        free(damaged);
        free(data);
    }
    printf("%d of 600 damaged files still decoded\n", decoded);
}

/* Sizes the file cannot justify fail with LIMIT and no giant allocation;
 * max_samples is honoured. */
static void limits(void)
{
    enum { SHORT = 3, LONG = 4 };
    uint8_t tail[16] = {0};
    uint32_t data_at = 8 + 2 + 12 * 9 + 4;
    ifd_entry strips[9] = {
        {256, LONG, 1, 60000}, {257, LONG, 1, 60000}, {258, SHORT, 1, 8}, {259, SHORT, 1, 1},
        {262, SHORT, 1, 1}, {273, LONG, 1, data_at}, {277, SHORT, 1, 1},
        {278, LONG, 1, 60000}, {279, LONG, 1, 16}};
    uint8_t file[512];
    size_t size = build_tiff(file, strips, 9, tail, sizeof tail);
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    CHECK_EQ(read_tiff(file, size, &image, &error), GJ2K_ERROR_LIMIT);
    CHECK(image == NULL && strstr(error.message, "samples") != NULL);

    /* an 8x8 image in one 65536x65536 tile */
    ifd_entry tiles[10] = {
        {256, LONG, 1, 8}, {257, LONG, 1, 8}, {258, SHORT, 1, 8}, {259, SHORT, 1, 1},
        {262, SHORT, 1, 1}, {277, SHORT, 1, 1}, {322, LONG, 1, 65536}, {323, LONG, 1, 65536},
        {324, LONG, 1, 8 + 2 + 12 * 10 + 4}, {325, LONG, 1, 16}};
    size = build_tiff(file, tiles, 10, tail, sizeof tail);
    error = (gj2k_error){0};
    gj2k_status status = read_tiff(file, size, &image, &error);
    CHECK(status == GJ2K_ERROR_LIMIT || status == GJ2K_ERROR_MALFORMED);
    printf("giant tile: %s\n", error.message);

    /* the same file with a sane 16x16 tile and too little data: truncated */
    tiles[6].value = tiles[7].value = 16;
    size = build_tiff(file, tiles, 10, tail, sizeof tail);
    CHECK(read_tiff(file, size, &image, &error) != GJ2K_OK);

    /* a sane 8x1 image with an unknown tag: libtiff's warning reaches the caller */
    ifd_entry plain[10] = {
        {256, LONG, 1, 8}, {257, LONG, 1, 1}, {258, SHORT, 1, 8}, {259, SHORT, 1, 1},
        {262, SHORT, 1, 1}, {273, LONG, 1, 8 + 2 + 12 * 10 + 4}, {277, SHORT, 1, 1},
        {278, LONG, 1, 1}, {279, LONG, 1, 8}, {65000, SHORT, 1, 7}};
    size = build_tiff(file, plain, 10, tail, sizeof tail);
    warnings seen = {0};
    gj2k_read_options options = {.warning = record_warning, .warning_user = &seen};
    CHECK_EQ(gj2k_image_read_memory(file, size, GJ2K_FORMAT_TIFF, &options, &image, &error),
             GJ2K_OK);
    CHECK(seen.count >= 1 && strstr(seen.last, "65000") != NULL);
    gj2k_image_destroy(image);

    uint8_t *data = load_bytes(test_shared_path("images/flower-minisblack-08.tif"), &size);
    REQUIRE(data != NULL);
    options = (gj2k_read_options){.max_samples = 73 * 43 - 1};
    CHECK_EQ(gj2k_image_read_memory(data, size, GJ2K_FORMAT_TIFF, &options, &image, &error),
             GJ2K_ERROR_LIMIT);
    options.max_samples = 73 * 43;
    CHECK_EQ(gj2k_image_read_memory(data, size, GJ2K_FORMAT_TIFF, &options, &image, &error),
             GJ2K_OK);
    gj2k_image_destroy(image);
    free(data);
}

static const test_case cases[] = {
    {"flower_grey_depths", flower_grey_depths},
    {"flower_rgb_contig_planar", flower_rgb_contig_planar},
    {"flower_to_png", flower_to_png},
    {"png_pairs", png_pairs},
    {"cinema_frame", cinema_frame},
    {"layouts_made_here", layouts_made_here},
    {"palette_and_miniswhite", palette_and_miniswhite},
    {"signed_and_alpha", signed_and_alpha},
    {"icc_and_resolution", icc_and_resolution},
    {"unsupported_kinds", unsupported_kinds},
    {"write_rejects", write_rejects},
    {"truncation_and_corruption", truncation_and_corruption},
    {"limits", limits},
};

#else /* built without libtiff */

/* Asking for TIFF fails clearly, naming the missing library. */
static void unavailable(void)
{
    gj2k_component_info info = {.dx = 1, .dy = 1, .precision = 8};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_create(&image, 0, 0, 2, 2, 1, &info, &error) == GJ2K_OK);
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK_EQ(gj2k_image_write_memory(image, GJ2K_FORMAT_TIFF, NULL, &data, &size, &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "libtiff") != NULL && data == NULL);
    gj2k_image_destroy(image);
    static const uint8_t header[16] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    error = (gj2k_error){0};
    CHECK_EQ(gj2k_image_read_memory(header, sizeof header, GJ2K_FORMAT_UNKNOWN, NULL, &image,
                                    &error),
             GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "libtiff") != NULL && image == NULL);
    CHECK(!gj2k_format_can_read(GJ2K_FORMAT_TIFF) && !gj2k_format_can_write(GJ2K_FORMAT_TIFF));
}

static const test_case cases[] = {
    {"unavailable", unavailable},
};

#endif

TEST_MAIN(cases)
