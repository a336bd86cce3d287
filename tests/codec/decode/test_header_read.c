/* test_header_read.c - gj2k_header_read_memory and _file: what gj2k wrote
 * (random sizes, origins, subsampling, precision, tiles, wavelet, levels,
 * layers, progression, code-blocks, HT) read back from the codestream and
 * from JP2, the colour of JP2 files, a codestream cut after its main
 * header, a file's headers read without its samples, and refusals that
 * name the file. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "gj2k.h"
#include "test_harness.h"

static gj2k_image *make_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint32_t count,
                              uint32_t precision, bool is_signed, uint32_t dx2)
{
    gj2k_component_info info[3];
    for (uint32_t c = 0; c < count; c++) /* components 1.. subsampled by dx2 across */
        info[c] = (gj2k_component_info){.dx = c ? dx2 : 1, .dy = 1, .precision = precision,
                                        .is_signed = is_signed};
    gj2k_image *image = NULL;
    if (gj2k_image_create(&image, x0, y0, x0 + w, y0 + h, count, info, NULL) != GJ2K_OK)
        return NULL;
    for (uint32_t c = 0; c < count; c++) {
        gj2k_component *k = &image->components[c];
        for (size_t i = 0; i < (size_t)k->width * k->height; i++)
            k->samples[i] = (int32_t)(test_random() % (1u << (precision - 1)));
    }
    return image;
}

static void test_what_was_written(void)
{
    static const double ratios[2] = {6.0, 2.0}; /* room for the headers of a small image */
    for (int i = 0; i < 24; i++) {
        bool ht = i % 4 == 3, irreversible = !ht && i % 2 == 1, jp2 = i % 3 == 0;
        uint32_t count = i % 5 == 0 ? 1 : 3, dx2 = count == 3 && i % 7 == 2 ? 2 : 1;
        uint32_t precision = i % 6 == 1 ? 12 : 8;
        bool is_signed = i % 8 == 5;
        gj2k_image *image = make_image((uint32_t)test_random_range(0, 9),
                                       (uint32_t)test_random_range(0, 9),
                                       (uint32_t)test_random_range(64, 300),
                                       (uint32_t)test_random_range(48, 200), count, precision,
                                       is_signed, dx2);
        REQUIRE(image != NULL);
        if (dx2 > 1) /* subsampled colour: sYCC's colr box (UNKNOWN writes sRGB or grey) */
            image->color_space = GJ2K_COLOR_SYCC;
        uint32_t block_log2 = (uint32_t)test_random_range(2, 6);
        gj2k_encode_options o = {
            .format = jp2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K,
            .irreversible = irreversible, .high_throughput = ht,
            .num_resolutions = (unsigned)test_random_range(1, 6),
            .code_block_width = 1u << block_log2, .code_block_height = 1u << (12 - block_log2 > 6 ? 6 : 12 - block_log2),
            .tile_width = i % 2 ? 64 : 0, .tile_height = i % 2 ? 48 : 0,
            .progression = (gj2k_progression)(test_random() % 5)};
        if (irreversible) {
            o.target = GJ2K_TARGET_RATIO;
            o.num_layers = 2;
            o.targets = ratios;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_error error = {0};
        gj2k_encode_report report = {0};
        gj2k_status encoded = gj2k_encode_memory(image, &o, &data, &size, &report, &error);
        if (encoded != GJ2K_OK)
            printf("case %d: %s\n", i, error.message);
        REQUIRE(encoded == GJ2K_OK);
        gj2k_header *h = NULL;
        REQUIRE(gj2k_header_read_memory(data, size, &h, &error) == GJ2K_OK);
        CHECK_EQ(h->format, jp2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K);
        CHECK(h->x0 == image->x0 && h->y0 == image->y0 && h->x1 == image->x1 &&
              h->y1 == image->y1);
        CHECK_EQ(h->width, image->x1 - image->x0);
        CHECK_EQ(h->num_components, count);
        for (uint32_t c = 0; c < count && c < h->num_components; c++) {
            const gj2k_component *k = &image->components[c];
            CHECK_EQ(h->components[c].precision, precision);
            CHECK_EQ(h->components[c].is_signed, is_signed);
            CHECK_EQ(h->components[c].dx, k->dx);
            CHECK_EQ(h->components[c].width, k->width);
            CHECK_EQ(h->components[c].height, k->height);
        }
        CHECK_EQ(h->ht, ht);
        CHECK_EQ(h->reversible, !irreversible);
        CHECK_EQ(h->mct, report.mct);
        CHECK_EQ(h->num_resolutions, o.num_resolutions);
        CHECK_EQ(h->num_layers, irreversible ? 2u : 1u);
        CHECK_EQ(h->progression, o.progression);
        CHECK_EQ(h->code_block_width, o.code_block_width);
        CHECK_EQ(h->code_block_height, o.code_block_height);
        CHECK_EQ(h->num_tiles, report.num_tiles);
        CHECK_EQ(h->tile_width, o.tile_width ? 64u : h->x1);
        CHECK_EQ((h->capabilities & 0x4000) != 0, ht);
        if (jp2)
            CHECK_EQ(h->color_space, count == 1 ? GJ2K_COLOR_GRAY
                                     : dx2 > 1  ? GJ2K_COLOR_SYCC
                                                : GJ2K_COLOR_SRGB);
        else
            CHECK_EQ(h->color_space, GJ2K_COLOR_UNKNOWN);
        gj2k_header_free(h);

        if (!jp2) { /* the main header alone: the first SOT and what follows cut off */
            size_t cut = 0;
            for (size_t k = 2; k + 1 < size && cut == 0; k++)
                if (data[k] == 0xFF && data[k + 1] == 0x90)
                    cut = k;
            REQUIRE(cut != 0);
            REQUIRE(gj2k_header_read_memory(data, cut, &h, &error) == GJ2K_OK);
            CHECK_EQ(h->num_components, count);
            CHECK_EQ(h->width, image->x1 - image->x0);
            gj2k_header_free(h);
        }
        free(data);
        gj2k_image_destroy(image);
    }
}

/* Bytes this process has read from files so far (Linux's /proc/self/io
 * rchar), or -1 where that is not kept. */
static long long bytes_read_so_far(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    if (f == NULL)
        return -1;
    long long rchar = -1;
    char line[128];
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "rchar: %lld", &rchar) == 1)
            break;
    fclose(f);
    return rchar;
}

static void test_refusals_name_the_file(void)
{
    gj2k_header *h = NULL;
    gj2k_error error = {0};
    static const uint8_t not_jpeg2000[] = "P6\n2 2\n255\nxxxxxxxxxxxx";
    CHECK_EQ(gj2k_header_read_memory(not_jpeg2000, sizeof not_jpeg2000, &h, &error),
             GJ2K_ERROR_MALFORMED);
    CHECK(h == NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/not.j2k", test_temp_dir());
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fwrite(not_jpeg2000, 1, sizeof not_jpeg2000, f);
    fclose(f);
    CHECK_EQ(gj2k_header_read_file(path, &h, &error), GJ2K_ERROR_MALFORMED);
    CHECK(strstr(error.message, path) != NULL);
    /* another kind of file, however long, is refused from its first bytes */
    if (bytes_read_so_far() >= 0) {
        f = fopen(path, "r+b");
        REQUIRE(f != NULL);
        REQUIRE(fseeko(f, (off_t)(64ll << 20) - 1, SEEK_SET) == 0 && fputc(0, f) == 0);
        REQUIRE(fclose(f) == 0);
        long long before = bytes_read_so_far();
        CHECK_EQ(gj2k_header_read_file(path, &h, &error), GJ2K_ERROR_MALFORMED);
        long long read = bytes_read_so_far() - before;
        CHECK(read < (1ll << 20) || (fprintf(stderr, "%lld bytes read of %s\n", read, path), 0));
        remove(path);
    }
    snprintf(path, sizeof path, "%s/missing.j2k", test_temp_dir());
    CHECK(gj2k_header_read_file(path, &h, &error) != GJ2K_OK);
    CHECK(strstr(error.message, path) != NULL);
    CHECK(h == NULL);
    gj2k_header_free(NULL);
}

/* A file's headers read without its samples: a codestream and a JP2 file
 * made 256 MiB long (sparse: the tile data's place, zeros), of which a
 * few hundred KiB at most may be read; the header equals the one read from
 * the file's first bytes in memory. */
static void test_only_the_headers_read(void)
{
    if (bytes_read_so_far() < 0) {
        test_skip("no /proc/self/io: the bytes read cannot be counted here");
        return;
    }
    gj2k_image *image = make_image(0, 0, 640, 480, 3, 8, false, 1);
    REQUIRE(image != NULL);
    const long long big = 256ll << 20;
    for (int jp2 = 0; jp2 < 2; jp2++) {
        gj2k_encode_options o = {.format = jp2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K};
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_error error = {0};
        REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
        gj2k_header *want = NULL;
        REQUIRE(gj2k_header_read_memory(data, size, &want, &error) == GJ2K_OK);
        char path[1024];
        snprintf(path, sizeof path, "%s/big.%s", test_temp_dir(), jp2 ? "jp2" : "j2k");
        FILE *f = fopen(path, "wb");
        REQUIRE(f != NULL);
        /* the codestream's box (JP2) or the codestream stretched over the
         * file: the last tile-part's bytes run on, as if its tile were big */
        REQUIRE(fwrite(data, 1, size, f) == size);
        REQUIRE(fseeko(f, (off_t)big - 1, SEEK_SET) == 0 && fputc(0, f) == 0);
        REQUIRE(fclose(f) == 0);
        long long before = bytes_read_so_far();
        gj2k_header *got = NULL;
        CHECK(gj2k_header_read_file(path, &got, &error) == GJ2K_OK ||
              (fprintf(stderr, "%s\n", error.message), 0));
        long long read = bytes_read_so_far() - before;
        CHECK(read < (1ll << 20) || (fprintf(stderr, "%lld bytes read of %s\n", read, path), 0));
        if (got != NULL) {
            CHECK_EQ(got->format, want->format);
            CHECK_EQ(got->width, want->width);
            CHECK_EQ(got->height, want->height);
            CHECK_EQ(got->num_components, want->num_components);
            CHECK_EQ(got->num_resolutions, want->num_resolutions);
            CHECK_EQ(got->color_space, want->color_space);
        }
        gj2k_header_free(got);
        gj2k_header_free(want);
        remove(path);
        free(data);
    }
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"what_was_written", test_what_was_written},
    {"only_the_headers_read", test_only_the_headers_read},
    {"refusals_name_the_file", test_refusals_name_the_file},
};

TEST_MAIN(cases)
