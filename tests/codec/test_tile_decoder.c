/* test_tile_decoder.c - tiles that a codestream lacks (no tile-part at all):
 * the decoder fills them without building their structure
 * (tile_decode_missing), and the fill must equal what the whole pipeline
 * makes of a tile of zero coefficients (tile_decode), for either wavelet,
 * any depth and sign, component transform or not, any reduction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "gj2k.h"
#include "test_harness.h"
#include "tile_decoder.h"
#include "tile_structure.h"

#define POISON 0x5A5A5A5

static uint32_t read_u16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t read_u32(const uint8_t *p) { return read_u16(p) << 16 | read_u16(p + 2); }

/* Copies the codestream without the tile-parts of the tiles marked in
 * `drop` (Isot): the main header's segments (A.4), then each tile-part
 * Psot bytes long from its SOT (A.4.2), then EOC. */
static uint8_t *drop_tiles(const uint8_t *data, size_t size, const bool *drop, size_t *out_size)
{
    size_t at = 2; /* past SOC */
    while (at + 4 <= size && read_u16(data + at) != 0xFF90)
        at += 2 + read_u16(data + at + 2);
    uint8_t *out = xmalloc(size);
    memcpy(out, data, at);
    size_t kept = at;
    while (at + 12 <= size && read_u16(data + at) == 0xFF90) {
        uint32_t tile = read_u16(data + at + 4), length = read_u32(data + at + 6);
        if (length < 14 || at + length > size)
            break;
        if (!drop[tile]) {
            memcpy(out + kept, data + at, length);
            kept += length;
        }
        at += length;
    }
    if (at + 2 == size && read_u16(data + at) == 0xFFD9) {
        memcpy(out + kept, data + at, 2);
        kept += 2;
    } else {
        free(out);
        return NULL;
    }
    *out_size = kept;
    return out;
}

static gj2k_image *random_image(bool *mct_possible)
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
    int64_t lo = is_signed ? -(1ll << (precision - 1)) : 0;
    int64_t hi = is_signed ? (1ll << (precision - 1)) - 1 : (1ll << precision) - 1;
    for (uint32_t c = 0; c < n; c++) {
        const gj2k_component *k = &image->components[c];
        for (size_t i = 0; i < (size_t)k->width * k->height; i++)
            k->samples[i] = (int32_t)test_random_range(lo, hi);
    }
    *mct_possible = n == 3;
    return image;
}

/* Sets the samples of tile t (at the reduction) in every component to
 * POISON; returns how many. */
static size_t poison_tile(gj2k_image *image, const j2k_siz *siz, uint32_t t, unsigned reduce)
{
    size_t count = 0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        gj2k_component *k = &image->components[c];
        dwt_rect r = tile_rect_reduce(j2k_tile_component_rect(siz, t, c), reduce);
        for (uint32_t y = r.y0; y < r.y1; y++)
            for (uint32_t x = r.x0; x < r.x1; x++)
                if (x >= k->x0 && x - k->x0 < k->width && y >= k->y0 && y - k->y0 < k->height) {
                    k->samples[(size_t)(y - k->y0) * k->width + (x - k->x0)] = POISON;
                    count++;
                }
    }
    return count;
}

static bool same_samples(const gj2k_image *a, const gj2k_image *b)
{
    if (a->num_components != b->num_components)
        return false;
    for (uint32_t c = 0; c < a->num_components; c++) {
        const gj2k_component *p = &a->components[c], *q = &b->components[c];
        if (p->width != q->width || p->height != q->height)
            return false;
        if (memcmp(p->samples, q->samples, (size_t)p->width * p->height * sizeof(int32_t)) != 0)
            return false;
    }
    return true;
}

/* Every sample of the missing tiles is the level shift's offset. */
static bool tiles_are_offset(const gj2k_image *image, const j2k_siz *siz, const bool *drop,
                             unsigned reduce)
{
    for (uint32_t t = 0; t < siz->num_tiles; t++) {
        if (!drop[t])
            continue;
        for (uint32_t c = 0; c < image->num_components; c++) {
            const gj2k_component *k = &image->components[c];
            int32_t offset = k->is_signed ? 0 : 1 << (k->precision - 1);
            dwt_rect r = tile_rect_reduce(j2k_tile_component_rect(siz, t, c), reduce);
            for (uint32_t y = r.y0; y < r.y1; y++)
                for (uint32_t x = r.x0; x < r.x1; x++)
                    if (x >= k->x0 && x - k->x0 < k->width && y >= k->y0 &&
                        y - k->y0 < k->height &&
                        k->samples[(size_t)(y - k->y0) * k->width + (x - k->x0)] != offset)
                        return false;
        }
    }
    return true;
}

static void missing_tiles_match_zero_coefficients(void)
{
    size_t poisoned_total = 0;
    for (int trial = 0; trial < 60; trial++) {
        bool mct_possible = false;
        gj2k_image *image = random_image(&mct_possible);
        REQUIRE(image != NULL);
        gj2k_encode_options options = {
            .irreversible = test_random() % 2,
            .num_resolutions = (unsigned)test_random_range(1, 5),
            .tile_width = (uint32_t)test_random_range(8, 64),
            .tile_height = (uint32_t)test_random_range(8, 64),
            .mct = mct_possible && test_random() % 2 ? GJ2K_MCT_ON : GJ2K_MCT_OFF,
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
        j2k_codestream_destroy(whole);
        if (dropped == 0) {
            free(drop);
            free(data);
            gj2k_image_destroy(image);
            continue;
        }
        size_t cut_size = 0;
        uint8_t *cut = drop_tiles(data, size, drop, &cut_size);
        REQUIRE(cut != NULL);

        unsigned reduce = (unsigned)test_random_range(0, options.num_resolutions - 1);
        gj2k_decode_options decode = {.reduce = reduce, .threads = 2};
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
            poisoned_total += poison_tile(full, &cs->siz, t, reduce);
            CHECK(tile_decode(cs, cut, t, &settings, full, NULL) == GJ2K_OK);
        }
        bool same = same_samples(fast, full), offset = tiles_are_offset(fast, &cs->siz, drop, reduce);
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
