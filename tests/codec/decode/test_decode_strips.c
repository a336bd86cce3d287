/* test_decode_strips.c - decoding in strips of rows (tile_strips.c,
 * decode_strips.c) gives the same samples as decoding each tile whole:
 * random images of odd sizes and origins coded with random parameters
 * (either wavelet, 1-7 resolutions, code-block and precinct sizes, tiles,
 * layers cut by rate control, code-block styles), decoded at random
 * reductions, regions and strip heights; and every conformance file. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "io_test_support.h"
#include "test_harness.h"

/* A random image of 1 to 4 components at a random origin; one component
 * alone may be subsampled, and three of one size take a component
 * transform. */
static gj2k_image *random_strip_image(void)
{
    uint32_t n = (uint32_t)test_random_range(1, 4);
    uint32_t precision = (uint32_t)test_random_range(1, 16);
    bool is_signed = test_random() % 4 == 0;
    uint32_t x0 = (uint32_t)test_random_range(0, 40), y0 = (uint32_t)test_random_range(0, 40);
    uint32_t x1 = x0 + (uint32_t)test_random_range(1, 130);
    uint32_t y1 = y0 + (uint32_t)test_random_range(1, 260);
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision,
                                        .is_signed = is_signed};
    if (n == 1 && test_random() % 3 == 0) {
        info[0].dx = (uint32_t)test_random_range(1, 3);
        info[0].dy = (uint32_t)test_random_range(1, 3);
    }
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, x0, y0, x1, y1, n, info, NULL) != GJ2K_OK)
        return NULL;
    if (image->components[0].width == 0 || image->components[0].height == 0) {
        gj2k_image_destroy(image); /* subsampled out of existence: another */
        return random_strip_image();
    }
    fill_random(image);
    /* smooth rows now and then, so that lossy layers cut into real content */
    for (uint32_t c = 0; c < n && test_random() % 2; c++) {
        gj2k_component *k = &image->components[c];
        for (size_t i = 1; i < (size_t)k->width * k->height; i++)
            k->samples[i] = (k->samples[i] + k->samples[i - 1]) / 2;
    }
    return image;
}

static uint32_t power_of_two(unsigned lo, unsigned hi)
{
    return 1u << test_random_range(lo, hi);
}

/* Codes `image` with random parameters. */
static uint8_t *random_encode(const gj2k_image *image, size_t *size, unsigned *levels)
{
    gj2k_encode_options options = {0};
    options.irreversible = test_random() % 2;
    options.num_resolutions = (unsigned)test_random_range(1, 7);
    options.code_block_width = power_of_two(2, 6);
    options.code_block_height = power_of_two(2, 6);
    if (test_random() % 2) {
        options.num_precinct_sizes = 1;
        options.precinct_width[0] = power_of_two(3, 7);
        options.precinct_height[0] = power_of_two(3, 7);
    }
    if (test_random() % 3 == 0) {
        options.tile_width = (uint32_t)test_random_range(17, 90);
        options.tile_height = (uint32_t)test_random_range(17, 120);
        /* the first tile must reach the image (B.2) */
        uint32_t w = options.tile_width, h = options.tile_height;
        options.tile_x0 = (uint32_t)test_random_range(image->x0 >= w ? image->x0 - w + 1 : 0,
                                                      image->x0);
        options.tile_y0 = (uint32_t)test_random_range(image->y0 >= h ? image->y0 - h + 1 : 0,
                                                      image->y0);
    }
    options.code_block_style = (unsigned)(test_random() % 64);
    options.progression = (gj2k_progression)(test_random() % 5);
    double ratios[2] = {40, 8};
    if (options.irreversible || test_random() % 2) {
        options.target = GJ2K_TARGET_RATIO;
        options.num_layers = 2;
        options.targets = ratios;
    }
    options.threads = 1;
    *levels = options.num_resolutions - 1;
    uint8_t *data = NULL;
    gj2k_error error = {0};
    gj2k_status status = gj2k_encode_memory(image, &options, &data, size, NULL, &error);
    if (status == GJ2K_ERROR_LIMIT && options.num_layers == 2) { /* too small to cut: whole */
        options.target = GJ2K_TARGET_NONE;
        options.num_layers = 0;
        options.targets = NULL;
        status = gj2k_encode_memory(image, &options, &data, size, NULL, &error);
    }
    if (status != GJ2K_OK) {
        fprintf(stderr, "encode: %s\n", error.message);
        return NULL;
    }
    return data;
}

/* Decodes whole and in strips of `rows`; true when both succeed alike. */
static bool same_in_strips(const uint8_t *data, size_t size, gj2k_decode_options options,
                           uint32_t rows)
{
    gj2k_image *whole = NULL, *strips = NULL;
    gj2k_decode_report report = {0};
    gj2k_error e1 = {0}, e2 = {0};
    options.strip_rows = 0;
    options.report = &report;
    gj2k_status s1 = gj2k_decode_memory(data, size, &options, &whole, &e1);
    bool whole_in_strips = report.strips != 0;
    options.strip_rows = rows;
    gj2k_status s2 = gj2k_decode_memory(data, size, &options, &strips, &e2);
    bool ok = s1 == s2 && !whole_in_strips && (s1 != GJ2K_OK || report.strips != 0);
    if (ok && s1 == GJ2K_OK)
        ok = images_equal(whole, strips);
    if (!ok)
        fprintf(stderr, "whole: %s (%s), strips of %u: %s (%s), reduce %u, region %d %u,%u,%u,%u\n",
                gj2k_status_name(s1), e1.message, rows, gj2k_status_name(s2), e2.message,
                options.reduce, options.use_region, options.region_x0, options.region_y0,
                options.region_x1, options.region_y1);
    gj2k_image_destroy(whole);
    gj2k_image_destroy(strips);
    return ok;
}

static void random_images_decode_alike(void)
{
    for (int round = 0; round < 150; round++) {
        gj2k_image *image = random_strip_image();
        REQUIRE(image != NULL);
        size_t size = 0;
        unsigned levels = 0;
        uint8_t *data = random_encode(image, &size, &levels);
        REQUIRE(data != NULL);
        gj2k_decode_options options = {.threads = 1 + (unsigned)(test_random() % 2)};
        options.reduce = (unsigned)test_random_range(0, levels);
        if (test_random() % 3 == 0) {
            options.use_region = true;
            options.region_x0 = image->x0 + (uint32_t)test_random_range(0, image->x1 - image->x0 - 1);
            options.region_y0 = image->y0 + (uint32_t)test_random_range(0, image->y1 - image->y0 - 1);
            options.region_x1 = options.region_x0 + (uint32_t)test_random_range(1, 80);
            options.region_y1 = options.region_y0 + (uint32_t)test_random_range(1, 80);
        }
        if (test_random() % 4 == 0)
            options.max_layers = 1;
        uint32_t rows = (uint32_t)test_random_range(1, 40);
        bool same = same_in_strips(data, size, options, rows);
        if (!same)
            fprintf(stderr, "round %d: %ux%u at %u,%u, %u components\n", round,
                    image->x1 - image->x0, image->y1 - image->y0, image->x0, image->y0,
                    image->num_components);
        CHECK(same);
        free(data);
        gj2k_image_destroy(image);
        if (!same)
            return;
    }
}

/* Codes a 3-component image with the component transform forced on in its
 * COD (gj2k would not apply it to components of different subsampling). */
static uint8_t *forced_transform_codestream(uint32_t width, uint32_t height,
                                            const gj2k_component_info *info, size_t *size)
{
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, 0, 0, width, height, 3, info, NULL) != GJ2K_OK)
        return NULL;
    fill_random(image);
    gj2k_encode_options options = {.num_resolutions = 2, .threads = 1};
    uint8_t *data = NULL;
    gj2k_status status = gj2k_encode_memory(image, &options, &data, size, NULL, NULL);
    gj2k_image_destroy(image);
    if (status != GJ2K_OK)
        return NULL;
    for (size_t i = 0; i + 9 < *size; i++)
        if (data[i] == 0xFF && data[i + 1] == 0x52) { /* COD: SGcod's MCT byte (A.6.1) */
            data[i + 8] = 1;
            return data;
        }
    free(data);
    return NULL;
}

/* Components 0-2 under a component transform whose subsampling differs:
 * of different areas (the transform is skipped, as whole tiles skip it;
 * strips once overran a buffer here), or of one area but different
 * heights on the grid (strips once left rows undecoded in a region). */
static void component_transform_shapes_decode_alike(void)
{
    const gj2k_component_info different[3] = {{.dx = 1, .dy = 2, .precision = 8},
                                              {.dx = 2, .dy = 1, .precision = 8},
                                              {.dx = 2, .dy = 1, .precision = 8}};
    const gj2k_component_info same_area[3] = {{.dx = 1, .dy = 2, .precision = 8},
                                              {.dx = 1, .dy = 3, .precision = 8},
                                              {.dx = 1, .dy = 3, .precision = 8}};
    size_t size = 0;
    uint8_t *data = forced_transform_codestream(64, 64, different, &size);
    REQUIRE(data != NULL);
    for (uint32_t rows = 1; rows <= 9; rows += 4)
        CHECK(same_in_strips(data, size, (gj2k_decode_options){.threads = 1}, rows));
    free(data);
    data = forced_transform_codestream(8, 4, same_area, &size);
    REQUIRE(data != NULL);
    for (uint32_t y0 = 0; y0 < 4; y0++)
        for (uint32_t rows = 1; rows <= 6; rows++) {
            gj2k_decode_options options = {.threads = 1, .use_region = true, .region_x1 = 8,
                                           .region_y0 = y0, .region_y1 = y0 + 1};
            CHECK(same_in_strips(data, size, options, rows));
        }
    free(data);
}

/* Every conformance codestream, whole and in strips of a few rows. */
static void conformance_files_decode_alike(void)
{
    const char *dir = test_shared_path("conformance/input");
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    DIR *d = opendir(path);
    if (d == NULL)
        test_skip("conformance/input is missing from the shared data");
    unsigned files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *dot = strrchr(e->d_name, '.');
        if (dot == NULL || (strcmp(dot, ".j2k") != 0 && strcmp(dot, ".j2c") != 0 &&
                            strcmp(dot, ".jp2") != 0))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size = 0;
        uint8_t *data = test_read_file(path, &size);
        REQUIRE(data != NULL);
        gj2k_decode_options options = {.threads = 2};
        bool same = same_in_strips(data, size, options, (uint32_t)test_random_range(1, 70));
        if (!same)
            fprintf(stderr, "%s\n", e->d_name);
        CHECK(same);
        free(data);
        files++;
    }
    closedir(d);
    CHECK(files > 10);
}

static const test_case cases[] = {
    {"random_images_decode_alike", random_images_decode_alike},
    {"conformance_files_decode_alike", conformance_files_decode_alike},
    {"component_transform_shapes_decode_alike", component_transform_shapes_decode_alike},
};
TEST_MAIN(cases)
