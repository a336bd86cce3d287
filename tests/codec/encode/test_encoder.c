/* test_encoder.c - the encoder through the public API: what it writes
 * decodes (in gj2k) to the source exactly on the reversible path, rate
 * control meets its targets, layers add quality, bad options fail cleanly.
 * Interoperability with OpenJPEG is conformance/encode_crosscheck.c's job. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "dwt.h"
#include "gj2k.h"
#include "image_compare.h"
#include "io_test_support.h"
#include "test_harness.h"

/* Smooth gradients plus noise, so that code-blocks hold real structure. */
static gj2k_image *smooth_image(uint32_t x0, uint32_t y0, uint32_t width, uint32_t height,
                              uint32_t components, uint32_t precision, bool is_signed,
                              uint32_t subsampling)
{
    gj2k_component_info info[4];
    for (uint32_t c = 0; c < components; c++)
        info[c] = (gj2k_component_info){.dx = c > 0 ? subsampling : 1,
                                        .dy = c > 0 ? subsampling : 1, .precision = precision,
                                        .is_signed = is_signed};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    if (gj2k_image_create(&image, x0, y0, x0 + width, y0 + height, components, info, &error) !=
        GJ2K_OK)
        return NULL;
    int64_t range = (int64_t)1 << precision;
    int64_t low = is_signed ? -range / 2 : 0;
    for (uint32_t c = 0; c < components; c++) {
        gj2k_component *comp = &image->components[c];
        for (uint32_t y = 0; y < comp->height; y++)
            for (uint32_t x = 0; x < comp->width; x++) {
                double smooth = 0.5 + 0.35 * sin((x + 3.0 * c) * 0.07) * cos(y * 0.05);
                int64_t v = (int64_t)(smooth * (double)range) + test_random_range(-range / 16, range / 16);
                v = v < 0 ? 0 : v >= range ? range - 1 : v;
                comp->samples[(size_t)y * comp->width + x] = (int32_t)(v + low);
            }
    }
    return image;
}

static gj2k_image *decode(const uint8_t *data, size_t size, unsigned max_layers)
{
    gj2k_decode_options options = {.max_layers = max_layers};
    gj2k_image *out = NULL;
    gj2k_error error = {0};
    if (gj2k_decode_memory(data, size, &options, &out, &error) != GJ2K_OK) {
        printf("decode failed: %s\n", error.message);
        return NULL;
    }
    return out;
}

/* PSNR of the first `layers` layers of `data` decoded against `image`, all
 * components together (codec/decode/image_compare.c); NAN when decoding fails. */
static double decoded_psnr(const gj2k_image *image, const uint8_t *data, size_t size,
                           unsigned layers)
{
    gj2k_image *back = decode(data, size, layers);
    image_difference difference;
    char why[128];
    bool compared = back != NULL && image_compare(image, back, &difference, why, sizeof why);
    if (back != NULL && !compared)
        printf("layer %u: %s\n", layers, why);
    gj2k_image_destroy(back);
    return compared ? difference.psnr : NAN;
}

/* Encodes, decodes and requires the source back. */
static bool lossless_round_trip(const gj2k_image *image, const gj2k_encode_options *options,
                                const char *what)
{
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    if (gj2k_encode_memory(image, options, &data, &size, NULL, &error) != GJ2K_OK) {
        printf("%s: encode failed: %s\n", what, error.message);
        return false;
    }
    gj2k_image *back = decode(data, size, 0);
    bool ok = back != NULL && images_equal(image, back);
    if (!ok)
        printf("%s: not lossless\n", what);
    gj2k_image_destroy(back);
    free(data);
    return ok;
}

static void test_lossless_shapes_and_depths(void)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 17}, {19, 1}, {33, 47}, {130, 67}};
    static const uint32_t depths[] = {1, 8, 12, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
            for (uint32_t components = 1; components <= 4; components += 2) {
                bool is_signed = (s + d) % 2 == 1;
                gj2k_image *image = smooth_image((uint32_t)s * 3, (uint32_t)d, sizes[s][0],
                                                 sizes[s][1], components, depths[d], is_signed, 1);
                REQUIRE(image != NULL);
                gj2k_encode_options options = {.num_resolutions = 1 + (unsigned)(s + d) % 7};
                char what[96];
                snprintf(what, sizeof what, "%ux%u %u-bit %s x%u", sizes[s][0], sizes[s][1],
                         depths[d], is_signed ? "signed" : "unsigned", components);
                CHECK(lossless_round_trip(image, &options, what));
                gj2k_image_destroy(image);
            }
}

static void test_lossless_options(void)
{
    gj2k_image *image = smooth_image(5, 3, 157, 91, 3, 8, false, 1);
    REQUIRE(image != NULL);
    for (unsigned variant = 0; variant < 24; variant++) {
        gj2k_encode_options o = {0};
        o.progression = (gj2k_progression)(variant % 5);
        o.code_block_style = (variant * 11) % 64;
        o.code_block_width = 4u << (variant % 4);
        o.code_block_height = 64u >> (variant % 3);
        o.num_resolutions = 1 + variant % 8;
        o.use_sop = variant % 2;
        o.use_eph = variant % 3 == 0;
        o.use_plt = variant % 4 == 1;
        o.use_tlm = variant % 5 == 2;
        o.format = variant % 2 ? GJ2K_FORMAT_JP2 : GJ2K_FORMAT_J2K;
        if (variant % 3 == 1) {
            o.tile_width = 48 + variant;
            o.tile_height = 40;
            o.tile_x0 = variant % 5;
            o.tile_y0 = variant % 3;
        }
        if (variant % 4 == 3) {
            o.num_precinct_sizes = 2;
            o.precinct_width[0] = o.precinct_height[0] = 64;
            o.precinct_width[1] = 32;
            o.precinct_height[1] = 16;
        }
        if (variant % 6 == 5)
            o.mct = GJ2K_MCT_OFF;
        char what[32];
        snprintf(what, sizeof what, "variant %u", variant);
        CHECK(lossless_round_trip(image, &o, what));
    }
    gj2k_image_destroy(image);
}

static void test_lossless_subsampled(void)
{
    gj2k_image *image = smooth_image(1, 1, 77, 51, 3, 8, false, 2);
    REQUIRE(image != NULL);
    gj2k_encode_options o = {.tile_width = 32, .tile_height = 32};
    CHECK(lossless_round_trip(image, &o, "subsampled, tiled"));
    gj2k_image_destroy(image);
}

/* Byte targets: never above, within 1 % (the fill adds passes one by one). */
static void test_rate_targets(void)
{
    gj2k_image *image = smooth_image(0, 0, 320, 240, 3, 8, false, 1);
    REQUIRE(image != NULL);
    double raw = 320.0 * 240 * 3;
    static const gj2k_rate_target kinds[] = {GJ2K_TARGET_RATIO, GJ2K_TARGET_BPP, GJ2K_TARGET_BYTES};
    for (int irreversible = 0; irreversible < 2; irreversible++)
        for (size_t k = 0; k < 3; k++) {
            double targets[3];
            double bytes[3] = {raw / 60, raw / 25, raw / 8};
            for (int l = 0; l < 3; l++)
                targets[l] = kinds[k] == GJ2K_TARGET_RATIO ? raw / bytes[l]
                             : kinds[k] == GJ2K_TARGET_BPP ? bytes[l] * 8 / (320.0 * 240)
                                                           : bytes[l];
            gj2k_encode_options o = {.irreversible = irreversible, .target = kinds[k],
                                     .num_layers = 3, .targets = targets, .use_plt = k == 1,
                                     .tile_width = k == 2 ? 100 : 0, .tile_height = k == 2 ? 100 : 0};
            uint8_t *data = NULL;
            size_t size = 0;
            gj2k_encode_report report = GJ2K_ENCODE_REPORT_INIT;
            gj2k_error error = {0};
            REQUIRE(gj2k_encode_memory(image, &o, &data, &size, &report, &error) == GJ2K_OK);
            size_t wanted = (size_t)floor(bytes[2]);
            printf("kind %zu irreversible %d: %zu bytes for %zu\n", k, irreversible, size, wanted);
            CHECK(size <= wanted);
            CHECK(size >= wanted * 0.99);
            CHECK_EQ(report.bytes, size);
            for (int l = 0; l < 3; l++) {
                CHECK(report.layer_bytes[l] <= (size_t)floor(bytes[l]));
                if (l > 0)
                    CHECK(report.layer_bytes[l] > report.layer_bytes[l - 1]);
            }
            /* Each layer adds quality. */
            double previous = 0.0;
            for (unsigned layers = 1; layers <= 3; layers++) {
                double p = decoded_psnr(image, data, size, layers);
                REQUIRE(!isnan(p));
                CHECK(p > previous);
                previous = p;
            }
            free(data);
        }
    gj2k_image_destroy(image);
}

/* PSNR targets: the model's estimate stays close to the truth. */
static void test_psnr_targets(void)
{
    gj2k_image *image = smooth_image(0, 0, 256, 192, 3, 8, false, 1);
    REQUIRE(image != NULL);
    double targets[2] = {32.0, 40.0};
    gj2k_encode_options o = {.irreversible = true, .target = GJ2K_TARGET_PSNR, .num_layers = 2,
                             .targets = targets};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, &error) == GJ2K_OK);
    for (unsigned layers = 1; layers <= 2; layers++) {
        double p = decoded_psnr(image, data, size, layers);
        REQUIRE(!isnan(p));
        printf("layer %u: PSNR %.2f dB for %.1f\n", layers, p, targets[layers - 1]);
        CHECK(p >= targets[layers - 1] - 0.05); /* decoded and corrected: the target holds */
        CHECK(p <= targets[layers - 1] + 1.5);
    }
    free(data);
    gj2k_image_destroy(image);
}

static void test_same_bytes_every_thread_count(void)
{
    gj2k_image *image = smooth_image(0, 0, 300, 200, 3, 8, false, 1);
    REQUIRE(image != NULL);
    double ratio = 30.0;
    uint8_t *first = NULL;
    size_t first_size = 0;
    for (unsigned threads = 1; threads <= 4; threads++) {
        gj2k_encode_options o = {.irreversible = true, .target = GJ2K_TARGET_RATIO,
                                 .num_layers = 1, .targets = &ratio, .threads = threads};
        uint8_t *data = NULL;
        size_t size = 0;
        REQUIRE(gj2k_encode_memory(image, &o, &data, &size, NULL, NULL) == GJ2K_OK);
        if (first == NULL) {
            first = data;
            first_size = size;
            continue;
        }
        CHECK(size == first_size && memcmp(data, first, size) == 0);
        free(data);
    }
    free(first);
    gj2k_image_destroy(image);
}

static void expect_failure(const gj2k_image *image, const gj2k_encode_options *o, const char *what)
{
    uint8_t *data = (uint8_t *)1;
    size_t size = 1;
    gj2k_error error = {0};
    gj2k_status status = gj2k_encode_memory(image, o, &data, &size, NULL, &error);
    printf("%s: %s\n", what, error.message);
    CHECK(status != GJ2K_OK);
    CHECK(data == NULL && size == 0);
    CHECK(error.message[0] != '\0' && strchr(error.message, '\n') == NULL);
}

static void test_bad_options(void)
{
    gj2k_image *image = smooth_image(10, 10, 64, 64, 3, 8, false, 1);
    REQUIRE(image != NULL);
    double rising[2] = {10.0, 20.0}, negative = -1.0;
    gj2k_encode_options o;
    o = (gj2k_encode_options){.code_block_width = 48};
    expect_failure(image, &o, "code-block 48");
    o = (gj2k_encode_options){.code_block_width = 128, .code_block_height = 64};
    expect_failure(image, &o, "code-block 128x64");
    o = (gj2k_encode_options){.num_resolutions = 34};
    expect_failure(image, &o, "34 resolutions");
    o = (gj2k_encode_options){.tile_x0 = 11};
    expect_failure(image, &o, "tile origin past image origin");
    o = (gj2k_encode_options){.target = GJ2K_TARGET_RATIO, .num_layers = 2, .targets = rising};
    expect_failure(image, &o, "falling quality");
    o = (gj2k_encode_options){.target = GJ2K_TARGET_PSNR, .num_layers = 1, .targets = &negative};
    expect_failure(image, &o, "negative target");
    o = (gj2k_encode_options){.num_layers = 3};
    expect_failure(image, &o, "layers without targets");
    o = (gj2k_encode_options){.num_precinct_sizes = 1, .precinct_width = {24}, .precinct_height = {32}};
    expect_failure(image, &o, "precinct 24");
    o = (gj2k_encode_options){.code_block_style = 65};
    expect_failure(image, &o, "style 65 (HT with bypass)");
    o = (gj2k_encode_options){.code_block_style = 128};
    expect_failure(image, &o, "style 128");
    o = (gj2k_encode_options){.high_throughput = true, .target = GJ2K_TARGET_RATIO,
                              .num_layers = 2, .targets = (const double[]){20, 10}};
    expect_failure(image, &o, "HT in two layers");
    gj2k_image_destroy(image);
    gj2k_image *deep = smooth_image(0, 0, 8, 8, 1, 30, false, 1);
    REQUIRE(deep != NULL);
    o = (gj2k_encode_options){0};
    expect_failure(deep, &o, "30-bit samples");
    gj2k_image_destroy(deep);
}

/* The synthesis energies behind rate control and the 9/7 steps: the 9/7
 * low-pass gains of Annex F (OpenJPEG's table has 1.965, 4.177 for LL). */
static void test_synthesis_energy(void)
{
    CHECK(fabs(sqrt(dwt_synthesis_energy(false, 1, DWT_BAND_LL)) - 1.965) < 0.01);
    CHECK(fabs(sqrt(dwt_synthesis_energy(false, 2, DWT_BAND_LL)) - 4.12) < 0.06);
    CHECK(dwt_synthesis_energy(true, 0, DWT_BAND_LL) == 1.0);
    /* 5/3 level 1 LL: taps 1/2 1 1/2 in each direction: (1.5)^2. */
    CHECK(fabs(dwt_synthesis_energy(true, 1, DWT_BAND_LL) - 2.25) < 1e-9);
    for (unsigned level = 1; level < 32; level++)
        CHECK(dwt_synthesis_energy(false, level + 1, DWT_BAND_HH) >
              dwt_synthesis_energy(false, level, DWT_BAND_HH));
}

/* gj2k_encode_file writes whole or not at all: a temporary name, then a
 * rename; on failure the old file stays and no temporary is left. */
static void test_encode_file_is_atomic(void)
{
    gj2k_image *image = smooth_image(0, 0, 40, 30, 1, 8, false, 1);
    REQUIRE(image != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/out.jp2", test_temp_dir());
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_file(image, path, NULL, NULL, &error) == GJ2K_OK);
    size_t size = 0;
    uint8_t *data = test_read_file(path, &size);
    REQUIRE(data != NULL);
    CHECK(size > 12 && data[4] == 'j' && data[5] == 'P'); /* the JP2 signature box */
    gj2k_image *back = decode(data, size, 0);
    CHECK(back != NULL && images_equal(image, back));
    gj2k_image_destroy(back);
    snprintf(path, sizeof path, "%s/out.png", test_temp_dir());
    CHECK(gj2k_encode_file(image, path, NULL, NULL, &error) == GJ2K_ERROR_INVALID_ARGUMENT);

    /* A write that fails half way (the file size limit is below the new
     * file's size) leaves the file already there as it was: a writer that
     * opened the name itself would have cut it short. */
    snprintf(path, sizeof path, "%s/out.jp2", test_temp_dir());
    gj2k_encode_options other = {.num_resolutions = 3};
    struct rlimit limit;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &limit) == 0);
    struct rlimit lowered = {.rlim_cur = 64, .rlim_max = limit.rlim_max};
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lowered) == 0);
    gj2k_status cut = gj2k_encode_file(image, path, &other, NULL, &error);
    setrlimit(RLIMIT_FSIZE, &limit);
    signal(SIGXFSZ, previous);
    CHECK(cut == GJ2K_ERROR_IO);
    size_t again_size = 0;
    uint8_t *again = test_read_file(path, &again_size);
    CHECK(again != NULL && again_size == size && memcmp(again, data, size) == 0);
    free(again);
    /* Nor does one that fails at the last step (the name is a directory,
     * so the rename fails) leave a file of any name behind. */
    snprintf(path, sizeof path, "%s/taken.j2k", test_temp_dir());
    REQUIRE(mkdir(path, 0700) == 0);
    CHECK(gj2k_encode_file(image, path, NULL, NULL, &error) == GJ2K_ERROR_IO);
    DIR *dir = opendir(test_temp_dir());
    REQUIRE(dir != NULL);
    int entries = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        entries++;
        bool expected = strcmp(e->d_name, "out.jp2") == 0 || strcmp(e->d_name, "taken.j2k") == 0;
        if (!expected)
            printf("left behind: %s\n", e->d_name);
        CHECK(expected);
    }
    closedir(dir);
    CHECK(entries == 2);
    free(data);
    gj2k_image_destroy(image);
}

/* The decode report counts the tiles decoded (none of them on the GPU
 * here), has each stage's time (Tier-2, Tier-1, the transforms; no GPU
 * copies) and is cleared when the decode fails; the encode report has
 * its stages too. */
static void test_decode_report(void)
{
    gj2k_image *image = smooth_image(5, 3, 157, 91, 3, 8, false, 1);
    REQUIRE(image != NULL);
    gj2k_encode_options o = {.tile_width = 48, .tile_height = 40, .tile_x0 = 1, .tile_y0 = 1};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_encode_report encoded = {0};
    gj2k_error error = {0};
    REQUIRE(gj2k_encode_memory(image, &o, &data, &size, &encoded, &error) == GJ2K_OK);
    CHECK(encoded.num_tiles == 12);
    CHECK(encoded.transform_ms > 0 && encoded.tier1_ms > 0 && encoded.rate_ms >= 0 &&
          encoded.tier2_ms > 0 && encoded.copies_ms == 0);
    gj2k_decode_report report = {.num_tiles = 99, .gpu_tiles = 99, .copies_ms = 99};
    gj2k_decode_options d = {.device = GJ2K_DEVICE_CPU, .report = &report};
    gj2k_image *back = NULL;
    CHECK(gj2k_decode_memory(data, size, &d, &back, &error) == GJ2K_OK);
    CHECK(report.num_tiles == encoded.num_tiles && report.gpu_tiles == 0);
    CHECK(report.tier2_ms > 0 && report.tier1_ms > 0 && report.transform_ms > 0 &&
          report.copies_ms == 0 && report.tier2_ms + report.tier1_ms <= report.tiles_ms);
    gj2k_image_destroy(back);
    d.use_tile = true;
    d.tile = 5;
    CHECK(gj2k_decode_memory(data, size, &d, &back, &error) == GJ2K_OK);
    CHECK(report.num_tiles == 1 && report.gpu_tiles == 0);
    gj2k_image_destroy(back);
    report = (gj2k_decode_report){.num_tiles = 99, .gpu_tiles = 99};
    CHECK(gj2k_decode_memory(data, 20, &d, &back, &error) != GJ2K_OK && back == NULL);
    CHECK(report.num_tiles == 0 && report.gpu_tiles == 0);
    free(data);
    gj2k_image_destroy(image);
}

/* SOT markers in a codestream: 0xFF90 cannot occur inside packet data
 * (after 0xFF its bytes stay below 0x90, Annex B.10.1 and D.4). */
static size_t count_tile_parts(const uint8_t *data, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < size; i++)
        n += data[i] == 0xFF && data[i + 1] == 0x90;
    return n;
}

/* -TP R|L|C: every progression, tiled or not, decodes exactly; where the
 * split follows the progression's outer loops the count is exact; byte
 * targets still hold; more than 255 tile-parts a tile is refused. */
static void test_tile_parts(void)
{
    gj2k_image *image = smooth_image(3, 2, 150, 97, 3, 8, false, 1);
    REQUIRE(image != NULL);
    for (int split = 1; split <= 3; split++)
        for (int p = 0; p < 5; p++)
            for (int tiled = 0; tiled < 2; tiled++) {
                gj2k_encode_options o = {.tile_parts = (gj2k_tile_parts)split,
                                         .progression = (gj2k_progression)p,
                                         .num_resolutions = 4, .use_plt = tiled, .use_tlm = true,
                                         .tile_width = tiled ? 64 : 0, .tile_height = tiled ? 48 : 0};
                char what[64];
                snprintf(what, sizeof what, "-TP %c, progression %d, %s", "ORLC"[split], p,
                         tiled ? "tiled" : "one tile");
                CHECK(lossless_round_trip(image, &o, what));
            }
    static const struct {
        gj2k_tile_parts split;
        gj2k_progression progression;
        size_t per_tile;
    } exact[] = {{GJ2K_TILE_PARTS_COMPONENT, GJ2K_CPRL, 3},
                 {GJ2K_TILE_PARTS_RESOLUTION, GJ2K_RLCP, 4},
                 {GJ2K_TILE_PARTS_LAYER, GJ2K_LRCP, 3}};
    double ratios[3] = {40, 20, 8};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        gj2k_encode_options o = {.tile_parts = exact[i].split, .progression = exact[i].progression,
                                 .num_resolutions = 4, .tile_width = 64, .tile_height = 48,
                                 .irreversible = true, .target = GJ2K_TARGET_RATIO,
                                 .num_layers = 3, .targets = ratios};
        uint8_t *data = NULL;
        size_t size = 0;
        gj2k_encode_report report = {0};
        gj2k_error error = {0};
        REQUIRE(gj2k_encode_memory(image, &o, &data, &size, &report, &error) == GJ2K_OK);
        CHECK_EQ(count_tile_parts(data, size), exact[i].per_tile * report.num_tiles);
        CHECK(size <= (size_t)(150.0 * 97 * 3 / 8)); /* the last layer's budget */
        CHECK(!isnan(decoded_psnr(image, data, size, 0)));
        free(data);
    }
    double many[20];
    for (int l = 0; l < 20; l++)
        many[l] = 200.0 / (l + 1);
    gj2k_encode_options o = {.tile_parts = GJ2K_TILE_PARTS_COMPONENT, .progression = GJ2K_LRCP,
                             .num_resolutions = 6, .irreversible = true,
                             .target = GJ2K_TARGET_RATIO, .num_layers = 20, .targets = many};
    uint8_t *data = NULL;
    size_t size = 0;
    gj2k_error error = {0};
    CHECK_EQ(gj2k_encode_memory(image, &o, &data, &size, NULL, &error), GJ2K_ERROR_LIMIT);
    CHECK(strstr(error.message, "tile-parts") != NULL);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"lossless_shapes_and_depths", test_lossless_shapes_and_depths},
    {"lossless_options", test_lossless_options},
    {"lossless_subsampled", test_lossless_subsampled},
    {"rate_targets", test_rate_targets},
    {"psnr_targets", test_psnr_targets},
    {"same_bytes_every_thread_count", test_same_bytes_every_thread_count},
    {"bad_options", test_bad_options},
    {"synthesis_energy", test_synthesis_energy},
    {"encode_file_is_atomic", test_encode_file_is_atomic},
    {"decode_report", test_decode_report},
    {"tile_parts", test_tile_parts},
};

TEST_MAIN(cases)
