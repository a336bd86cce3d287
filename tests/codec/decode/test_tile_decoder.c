/* test_tile_decoder.c - tiles that a codestream lacks (no tile-part at all):
 * the decoder fills them without building their structure
 * (tile_decode_missing), and the fill must equal what the whole pipeline
 * makes of a tile of zero coefficients (tile_decode), for either wavelet,
 * any depth and sign, component transform or not, any reduction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "dwt.h"
#include "gj2k.h"
#include "test_harness.h"
#include "tile_decoder.h"
#include "io_test_support.h"

#define POISON 0x5A5A5A5

/* Copies the codestream without the tile-parts of the tiles marked in
 * `drop`: the main header, every other tile-part from its SOT to the next
 * (A.4.2), then EOC. The parts go in tile order, which is the order gj2k
 * writes them in when no tile-part division is asked for. */
static uint8_t *drop_tiles(const uint8_t *data, const j2k_codestream *cs, const bool *drop,
                           size_t *out_size)
{
    if (!cs->has_eoc)
        return NULL;
    uint8_t *out = xmalloc(cs->size);
    size_t kept = cs->main_header_end;
    memcpy(out, data, kept);
    for (size_t i = 0; i < cs->num_tiles_present; i++) {
        const j2k_tile *tile = &cs->tiles[i];
        if (drop[tile->index])
            continue;
        for (size_t p = 0; p < tile->num_parts; p++) {
            const j2k_tile_part *part = &tile->parts[p];
            memcpy(out + kept, data + part->sot_offset, part->data_end - part->sot_offset);
            kept += part->data_end - part->sot_offset;
        }
    }
    memcpy(out + kept, data + cs->eoc_offset, 2);
    *out_size = kept + 2;
    return out;
}

/* A random image of 1 or 3 components, at a random origin, with random
 * samples; a single component may be subsampled. */
static gj2k_image *random_origin_image(void)
{
    uint32_t n = test_random() % 2 ? 3 : 1;
    uint32_t precision = (uint32_t)test_random_range(1, 16);
    bool is_signed = test_random() % 2;
    uint32_t x0 = (uint32_t)test_random_range(0, 20), y0 = (uint32_t)test_random_range(0, 20);
    uint32_t x1 = x0 + (uint32_t)test_random_range(3, 150); /* a sample at 3x subsampling */
    uint32_t y1 = y0 + (uint32_t)test_random_range(3, 150);
    gj2k_component_info info[3];
    for (uint32_t c = 0; c < n; c++)
        info[c] = (gj2k_component_info){.dx = 1, .dy = 1, .precision = precision,
                                        .is_signed = is_signed};
    if (n == 1 && test_random() % 2) { /* subsampled */
        info[0].dx = (uint32_t)test_random_range(1, 3);
        info[0].dy = (uint32_t)test_random_range(1, 3);
    }
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, x0, y0, x1, y1, n, info, NULL) != GJ2K_OK)
        return NULL;
    fill_random(image);
    return image;
}

/* What a visitor does to one sample of a tile; `count` is its tally. */
typedef void sample_visitor(int32_t *sample, const gj2k_component *component, size_t *count);

/* Visits every sample of tile t (at the reduction) in every component. */
static void visit_tile(gj2k_image *image, const j2k_siz *siz, uint32_t t, unsigned reduce,
                       sample_visitor *visit, size_t *count)
{
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *k = &image->components[c];
        dwt_rect r = dwt_band_rect(j2k_tile_component_rect(siz, t, c), reduce, DWT_BAND_LL);
        for (uint32_t y = r.y0; y < r.y1; y++)
            for (uint32_t x = r.x0; x < r.x1; x++)
                if (x >= k->x0 && x - k->x0 < k->width && y >= k->y0 && y - k->y0 < k->height)
                    visit(&k->samples[(size_t)(y - k->y0) * k->width + (x - k->x0)], k, count);
    }
}

static void poison_sample(int32_t *sample, const gj2k_component *component, size_t *count)
{
    (void)component;
    *sample = POISON;
    ++*count;
}

/* Counts the samples that are not the level shift's offset (G.1.2). */
static void count_not_offset(int32_t *sample, const gj2k_component *component, size_t *count)
{
    int32_t offset = component->is_signed ? 0 : 1 << (component->precision - 1);
    *count += *sample != offset;
}

static void missing_tiles_match_zero_coefficients(void)
{
    size_t poisoned_total = 0;
    for (int trial = 0; trial < 60; trial++) {
        gj2k_image *image = random_origin_image();
        REQUIRE(image != NULL);
        gj2k_encode_options options = {
            .irreversible = test_random() % 2,
            .num_resolutions = (unsigned)test_random_range(1, 5),
            .tile_width = (uint32_t)test_random_range(8, 64),
            .tile_height = (uint32_t)test_random_range(8, 64),
            .mct = image->num_components == 3 && test_random() % 2 ? GJ2K_MCT_ON : GJ2K_MCT_OFF,
            .threads = 1};
        /* The first tile reaches the image (B.2). */
        options.tile_x0 = image->x0 - (uint32_t)test_random_range(
                              0, image->x0 < options.tile_width ? image->x0 : options.tile_width - 1);
        options.tile_y0 = image->y0 - (uint32_t)test_random_range(
                              0, image->y0 < options.tile_height ? image->y0 : options.tile_height - 1);
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_error error = {0};
        gj2k_status status = gj2k_encode_memory(image, &options, &data, &size, NULL, &error);
        if (status != GJ2K_OK)
            fprintf(stderr, "  encode: %s\n", error.message);
        REQUIRE(status == GJ2K_OK);

        j2k_codestream *whole = NULL;
        REQUIRE(j2k_codestream_parse(data, size, NULL, NULL, &whole, NULL) == GJ2K_OK);
        uint32_t num_tiles = whole->siz.num_tiles;
        bool *drop = calloc(num_tiles, sizeof *drop);
        REQUIRE(drop != NULL);
        /* Tiles with samples (a thin edge tile of a subsampled component may
         * have none, and the decoder passes over it). */
        unsigned dropped = 0, wanted = (unsigned)test_random_range(1, 3);
        for (unsigned k = 0; k < 4 * wanted && dropped < wanted; k++) {
            uint32_t t = (uint32_t)test_random_range(0, num_tiles - 1);
            dwt_rect r = j2k_tile_component_rect(&whole->siz, t, 0);
            if (r.x1 > r.x0 && r.y1 > r.y0 && !drop[t]) {
                dropped++;
                drop[t] = true;
            }
        }
        size_t cut_size = 0;
        uint8_t *cut = dropped ? drop_tiles(data, whole, drop, &cut_size) : NULL;
        j2k_codestream_destroy(whole);
        if (dropped == 0) {
            free(drop);
            free(data);
            gj2k_image_destroy(image);
            continue;
        }
        REQUIRE(cut != NULL);

        unsigned reduce = (unsigned)test_random_range(0, options.num_resolutions - 1);
        /* Without allow_partial the missing tiles are an error, naming one. */
        gj2k_decode_report strict_report = {0};
        gj2k_decode_options strict = {.reduce = reduce, .threads = 2, .report = &strict_report};
        gj2k_image *refused = NULL;
        CHECK(gj2k_decode_memory(cut, cut_size, &strict, &refused, &error) ==
                  GJ2K_ERROR_TRUNCATED &&
              refused == NULL && strstr(error.message, "has no tile-parts") != NULL);
        CHECK(strict_report.incomplete && !strict_report.over_memory);
        gj2k_decode_options decode = {.reduce = reduce, .threads = 2, .allow_partial = true};
        gj2k_image *fast = NULL, *full = NULL;
        /* A small image may vanish at a reduction: then one level less. */
        while ((status = gj2k_decode_memory(cut, cut_size, &decode, &fast, &error)) ==
                   GJ2K_ERROR_MALFORMED && decode.reduce > 0 && strstr(error.message, "empty"))
            reduce = --decode.reduce;
        if (status != GJ2K_OK)
            fprintf(stderr, "  decode: %s\n", error.message);
        REQUIRE(status == GJ2K_OK);
        /* One warning however many tiles are missing, naming them, after
         * the parser's when no tile is left. */
        test_warnings w = {0};
        decode.warning = record_warning;
        decode.warning_user = &w;
        REQUIRE(gj2k_decode_memory(cut, cut_size, &decode, &full, NULL) == GJ2K_OK);
        CHECK_EQ(w.count, 1 + (dropped == num_tiles));
        char expected[64];
        if (dropped == 1)
            snprintf(expected, sizeof expected, "has no tile-parts");
        else
            snprintf(expected, sizeof expected, "%u tiles have no tile-parts", dropped);
        if (strstr(w.last, expected) == NULL)
            fprintf(stderr, "  warning \"%s\", expected \"%s\"\n", w.last, expected);
        CHECK(strstr(w.last, expected) != NULL);

        /* The same tiles through the whole pipeline, over poison. */
        j2k_codestream *cs = NULL;
        REQUIRE(j2k_codestream_parse(cut, cut_size, NULL, NULL, &cs, NULL) == GJ2K_OK);
        tile_decode_settings settings = {.reduce = reduce};
        for (uint32_t t = 0; t < num_tiles; t++) {
            if (!drop[t])
                continue;
            CHECK(j2k_codestream_tile(cs, t) == NULL);
            visit_tile(full, &cs->siz, t, reduce, poison_sample, &poisoned_total);
            CHECK(tile_decode(cs, cut, t, &settings, full, NULL, NULL) == GJ2K_OK);
        }
        size_t not_offset = 0;
        for (uint32_t t = 0; t < num_tiles; t++)
            if (drop[t])
                visit_tile(fast, &cs->siz, t, reduce, count_not_offset, &not_offset);
        bool same = images_equal(fast, full), offset = not_offset == 0;
        if (!same || !offset)
            fprintf(stderr, "  trial %d: %u-bit %s, %s, %u resolutions, reduce %u, %u of %u tiles "
                    "missing: %s\n", trial, image->components[0].precision,
                    image->components[0].is_signed ? "signed" : "unsigned",
                    options.irreversible ? "9/7" : "5/3", options.num_resolutions, reduce, dropped,
                    num_tiles, !same ? "differs from the pipeline" : "not the offset");
        CHECK(same);
        CHECK(offset);
        j2k_codestream_destroy(cs);
        gj2k_image_destroy(fast);
        gj2k_image_destroy(full);
        free(cut);
        free(drop);
        free(data);
        gj2k_image_destroy(image);
    }
    printf("  %zu samples of missing tiles compared\n", poisoned_total);
    CHECK(poisoned_total > 0);
}

static const test_case cases[] = {
    {"missing_tiles_match_zero_coefficients", missing_tiles_match_zero_coefficients},
};

TEST_MAIN(cases)
