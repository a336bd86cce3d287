/* test_transcode.c - gj2k_transcode_memory between Part 1 and HT code-blocks:
 * lossless files over a range of coding options come back exact both ways
 * (the decoded images and every code-block's coefficients), lossy files are
 * exact where they can be and lose only the partial bit-planes the report
 * counts, several layers are re-coded from all, what cannot be carried is
 * refused, and the thread count changes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gj2k.h"
#include "test_harness.h"
#include "transcode_test_support.h"

/* One set of encoding options for the lossless round trips. */
typedef struct option_set {
    const char *name;
    uint32_t x0, y0, width, height, components, precision;
    gj2k_encode_options options;
    const double *targets;
    unsigned layers;
} option_set;

static const double lossless_last[] = {30.0, 10.0, 0.0};

static void set_precincts(gj2k_encode_options *o, uint32_t first, uint32_t second)
{
    o->num_precinct_sizes = 2;
    o->precinct_width[0] = o->precinct_height[0] = first;
    o->precinct_width[1] = o->precinct_height[1] = second;
}

/* Part 1 -> HT -> Part 1 of one lossless file: every step exact. */
static void lossless_round_trip(const option_set *set)
{
    fprintf(stderr, "-- %s\n", set->name);
    gj2k_image *image = make_image(set->x0, set->y0, set->width, set->height, set->components,
                                   set->precision, set->precision > 8 ? 9 : 5, 7);
    gj2k_encode_options options = set->options;
    options.threads = 2;
    if (set->layers > 1)
        options.target = GJ2K_TARGET_RATIO, options.num_layers = set->layers,
        options.targets = set->targets;
    coded_file part1 = {0}, ht = {0}, back = {0};
    gj2k_transcode_report to_ht = {0}, to_part1 = {0};
    bool ok = image != NULL && encode_image(image, &options, &part1) &&
              transcode_to(&part1, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 0, &to_ht, &ht) &&
              transcode_to(&ht, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 0, &to_part1, &back);
    CHECK(ok);
    if (!ok) {
        gj2k_image_destroy(image);
        coded_file_free(&part1), coded_file_free(&ht), coded_file_free(&back);
        return;
    }
    bool part15 = false, cap = false;
    unsigned style = 0, layers = 0;
    /* HT: Rsiz bit 14, a CAP, style bit 6 (with bit 3 kept alone), one layer */
    CHECK(codestream_facts(&ht, &part15, &cap, &style, &layers));
    CHECK(part15 && cap);
    CHECK_EQ(style, 0x40u | (set->options.code_block_style & 0x08u));
    CHECK_EQ(layers, 1);
    CHECK(codestream_facts(&back, &part15, &cap, &style, &layers));
    CHECK(!part15 && !cap);
    CHECK_EQ(style, set->options.code_block_style & 0x08u);
    CHECK_EQ(layers, 1);
    CHECK_EQ(to_ht.coder, GJ2K_CODER_HT);
    CHECK_EQ(to_part1.coder, GJ2K_CODER_PART1);
    CHECK_EQ(to_ht.input_layers, set->layers ? set->layers : 1);
    CHECK_EQ(to_ht.truncated_blocks, 0);
    CHECK_EQ(to_ht.partial_plane_blocks, 0);
    CHECK_EQ(to_part1.partial_plane_blocks, 0);
    CHECK(to_ht.num_codeblocks > 0);
    CHECK_EQ(to_part1.ht_codeblocks, to_part1.num_codeblocks);
    CHECK_EQ(to_ht.ht_codeblocks, 0);
    /* the images: the source's, from both files */
    gj2k_image *from_ht = decode_raw(&ht), *from_back = decode_raw(&back);
    CHECK(images_equal(image, from_ht));
    CHECK(images_equal(image, from_back));
    /* gj2k's own lossless file of one layer comes back byte for byte: every
       header, marker and box carried, the blocks coded as its encoder did
       (but for the mode switches HT has no room for) */
    if (set->layers <= 1 && (set->options.code_block_style & ~0x08u) == 0)
        CHECK(part1.size == back.size && memcmp(part1.data, back.data, back.size) == 0);
    /* the coefficients, block by block */
    block_census census = {0};
    CHECK(compare_blocks(&part1, &ht, BLOCKS_EXACT, &census));
    CHECK(census.with_data > 0);
    CHECK_EQ(census.changed, 0);
    CHECK(compare_blocks(&part1, &back, BLOCKS_EXACT, &census));
    CHECK(census.with_data > 0);
    gj2k_image_destroy(from_ht);
    gj2k_image_destroy(from_back);
    gj2k_image_destroy(image);
    coded_file_free(&part1);
    coded_file_free(&ht);
    coded_file_free(&back);
}

static void lossless_round_trips(void)
{
    option_set sets[6];
    memset(sets, 0, sizeof sets);
    sets[0] = (option_set){.name = "1 component, 8 bits, no decomposition, 64x64 blocks",
                           .width = 97, .height = 83, .components = 1, .precision = 8,
                           .options = {.num_resolutions = 1}};
    sets[1] = (option_set){.name = "3 components, 8 bits, 5 levels, tiles, precincts, RPCL, "
                                   "32x32 blocks, JP2",
                           .x0 = 5, .y0 = 3, .width = 300, .height = 200, .components = 3,
                           .precision = 8,
                           .options = {.format = GJ2K_FORMAT_JP2, .num_resolutions = 6,
                                       .tile_width = 128, .tile_height = 96,
                                       .progression = GJ2K_RPCL, .code_block_width = 32,
                                       .code_block_height = 32}};
    set_precincts(&sets[1].options, 128, 64);
    sets[2] = (option_set){.name = "1 component, 16 bits, 5 levels, 16x64 blocks, tiles, "
                                   "SOP, EPH, PLT, TLM",
                           .width = 160, .height = 120, .components = 1, .precision = 16,
                           .options = {.num_resolutions = 6, .code_block_width = 16,
                                       .code_block_height = 64, .tile_width = 100,
                                       .tile_height = 70, .use_sop = true, .use_eph = true,
                                       .use_plt = true, .use_tlm = true}};
    sets[3] = (option_set){.name = "3 components, 16 bits, 3 levels, 64x32 blocks, CPRL, "
                                   "3 layers (the last lossless)",
                           .width = 130, .height = 90, .components = 3, .precision = 16,
                           .options = {.num_resolutions = 4, .code_block_width = 64,
                                       .code_block_height = 32, .progression = GJ2K_CPRL},
                           .targets = lossless_last, .layers = 3};
    sets[4] = (option_set){.name = "3 components, 8 bits, every Part 1 mode switch (-M 63)",
                           .width = 200, .height = 150, .components = 3, .precision = 8,
                           .options = {.code_block_style = 63, .code_block_width = 32,
                                       .code_block_height = 16}};
    sets[5] = (option_set){.name = "1 component, 12 bits, 0 levels, 4x1024 blocks, precincts",
                           .width = 70, .height = 1030, .components = 1, .precision = 12,
                           .options = {.num_resolutions = 1, .code_block_width = 1024,
                                       .code_block_height = 4}};
    set_precincts(&sets[5].options, 2048, 1024);
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        lossless_round_trip(&sets[i]);
}

/* A lossy Part 1 file (rate control cuts blocks anywhere) re-coded as HT
 * keeps every whole plane and loses exactly the partial ones it counts;
 * that HT file, as Part 1 (truncated at whole planes now), is exact both
 * ways; and Part 1 to Part 1 keeps the partial planes too. */
static void lossy_part1_partial_planes(void)
{
    gj2k_image *image = make_image(0, 0, 256, 192, 3, 8, 5, 11);
    double ratio = 20.0;
    gj2k_encode_options options = {.irreversible = true, .target = GJ2K_TARGET_RATIO,
                                   .num_layers = 1, .targets = &ratio, .threads = 2};
    coded_file lossy = {0}, ht = {0}, whole = {0}, ht_again = {0}, part1 = {0};
    gj2k_transcode_report r1 = {0}, r2 = {0}, r3 = {0}, r4 = {0};
    REQUIRE(image != NULL && encode_image(image, &options, &lossy));
    REQUIRE(transcode_to(&lossy, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 0, &r1, &ht));
    block_census census = {0};
    CHECK(compare_blocks(&lossy, &ht, BLOCKS_WHOLE_PLANES, &census));
    fprintf(stderr, "%zu blocks with data, %zu end within a plane, %zu changed; report: %llu "
            "truncated, %llu lost a partial plane\n", census.with_data, census.partial,
            census.changed, (unsigned long long)r1.truncated_blocks,
            (unsigned long long)r1.partial_plane_blocks);
    CHECK(census.changed > 0);                         /* the case is there */
    CHECK_EQ(r1.partial_plane_blocks, census.changed); /* and counted exactly */
    CHECK(census.partial >= census.changed);
    CHECK(r1.truncated_blocks > 0);
    /* HT -> Part 1: whole planes, exact */
    REQUIRE(transcode_to(&ht, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 0, &r2, &whole));
    CHECK(compare_blocks(&ht, &whole, BLOCKS_EXACT, &census));
    CHECK_EQ(r2.partial_plane_blocks, 0);
    gj2k_image *a = decode_raw(&ht), *b = decode_raw(&whole);
    CHECK(images_equal(a, b));
    gj2k_image_destroy(b);
    /* a Part 1 file truncated at whole planes -> HT: nothing lost */
    REQUIRE(transcode_to(&whole, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 0, &r3, &ht_again));
    CHECK_EQ(r3.partial_plane_blocks, 0);
    CHECK(r3.truncated_blocks > 0);
    CHECK(compare_blocks(&whole, &ht_again, BLOCKS_EXACT, &census));
    b = decode_raw(&ht_again);
    CHECK(images_equal(a, b));
    gj2k_image_destroy(a);
    gj2k_image_destroy(b);
    /* Part 1 -> Part 1 keeps the partial planes (a truncation within a segment) */
    REQUIRE(transcode_to(&lossy, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 0, &r4, &part1));
    CHECK_EQ(r4.partial_plane_blocks, 0);
    CHECK(compare_blocks(&lossy, &part1, BLOCKS_EXACT, &census));
    CHECK(census.partial > 0);
    a = decode_raw(&lossy), b = decode_raw(&part1);
    CHECK(images_equal(a, b));
    gj2k_image_destroy(a);
    gj2k_image_destroy(b);
    gj2k_image_destroy(image);
    coded_file_free(&lossy), coded_file_free(&ht), coded_file_free(&whole);
    coded_file_free(&ht_again), coded_file_free(&part1);
}

/* Lossy HT files (9/7 and 5/3, rate control picking each block's plane,
 * with HT SigProp and MagRef passes where they pay) to Part 1: exact,
 * decoded images equal. */
static void lossy_ht_to_part1_exact(void)
{
    for (int reversible = 0; reversible < 2; reversible++) {
        gj2k_image *image = make_image(0, 0, 200, 170, 3, 8, 5, 3);
        double ratio = reversible ? 12.0 : 25.0;
        gj2k_encode_options options = {.irreversible = !reversible, .high_throughput = true,
                                       .ht_refinement = true, .target = GJ2K_TARGET_RATIO,
                                       .num_layers = 1, .targets = &ratio, .tile_width = 120,
                                       .tile_height = 100, .threads = 2};
        coded_file ht = {0}, part1 = {0};
        gj2k_transcode_report report = {0};
        REQUIRE(image != NULL && encode_image(image, &options, &ht));
        REQUIRE(transcode_to(&ht, GJ2K_CODER_AUTO, GJ2K_FORMAT_UNKNOWN, 0, &report, &part1));
        CHECK_EQ(report.coder, GJ2K_CODER_PART1); /* the other coder than the input's */
        CHECK(report.truncated_blocks > 0);
        CHECK_EQ(report.partial_plane_blocks, 0);
        block_census census = {0};
        CHECK(compare_blocks(&ht, &part1, BLOCKS_EXACT, &census));
        CHECK(census.with_data > 0);
        /* blocks with HT SigProp and MagRef passes come through Part 1 passes
           ending within a plane, checked as they are coded */
        fprintf(stderr, "%s: %zu blocks with data, %zu with HT refinement passes\n",
                reversible ? "5/3" : "9/7", census.with_data, census.partial);
        CHECK(census.partial > 0);
        gj2k_image *a = decode_raw(&ht), *b = decode_raw(&part1);
        CHECK(images_equal(a, b));
        gj2k_image_destroy(a);
        gj2k_image_destroy(b);
        gj2k_image_destroy(image);
        coded_file_free(&ht);
        coded_file_free(&part1);
    }
}

/* Several lossy layers: one layer out, from all of them. */
static void layers_recoded_from_all(void)
{
    gj2k_image *image = make_image(0, 0, 180, 140, 1, 8, 5, 5);
    double ratios[] = {40.0, 20.0, 8.0};
    gj2k_encode_options options = {.irreversible = true, .target = GJ2K_TARGET_RATIO,
                                   .num_layers = 3, .targets = ratios, .threads = 2,
                                   .progression = GJ2K_LRCP};
    coded_file layered = {0}, ht = {0}, part1 = {0};
    gj2k_transcode_report report = {0};
    REQUIRE(image != NULL && encode_image(image, &options, &layered));
    REQUIRE(transcode_to(&layered, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 1, &report, &part1));
    CHECK_EQ(report.input_layers, 3);
    bool part15, cap;
    unsigned style, layers;
    CHECK(codestream_facts(&part1, &part15, &cap, &style, &layers));
    CHECK_EQ(layers, 1);
    block_census census = {0};
    CHECK(compare_blocks(&layered, &part1, BLOCKS_EXACT, &census));
    gj2k_image *a = decode_raw(&layered), *b = decode_raw(&part1);
    CHECK(images_equal(a, b));
    gj2k_image_destroy(b);
    REQUIRE(transcode_to(&layered, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 1, &report, &ht));
    CHECK(compare_blocks(&layered, &ht, BLOCKS_WHOLE_PLANES, &census));
    CHECK_EQ(report.partial_plane_blocks, census.changed);
    gj2k_image_destroy(a);
    gj2k_image_destroy(image);
    coded_file_free(&layered), coded_file_free(&ht), coded_file_free(&part1);
}

/* gj2k_transcode_memory's status, its message said; no output on failure. */
static gj2k_status try_transcode(const uint8_t *data, size_t size, gj2k_transcode_options *o,
                                 gj2k_error *error)
{
    uint8_t *out = NULL;
    size_t out_size = 0;
    gj2k_status status = gj2k_transcode_memory(data, size, o, &out, &out_size, error);
    CHECK(status == GJ2K_OK || out == NULL);
    free(out);
    fprintf(stderr, "%s: %s\n", gj2k_status_name(status), error->message);
    return status;
}

/* What is refused, and how. */
static void refusals(void)
{
    gj2k_image *image = make_image(0, 0, 64, 64, 1, 8, 4, 1);
    coded_file f = {0};
    gj2k_encode_options options = {.threads = 1};
    REQUIRE(image != NULL && encode_image(image, &options, &f));
    gj2k_transcode_options o = {.coder = GJ2K_CODER_HT};
    gj2k_error error = {0};
    /* a region of interest with a shift: RGN (A.6.3) before the first SOT */
    size_t end = 0;
    find_marker(&f, 0, &end);
    uint8_t *rgn = xmalloc(f.size + 7);
    static const uint8_t segment[] = {0xFF, 0x5E, 0x00, 0x05, 0x00, 0x00, 0x03};
    memcpy(rgn, f.data, end);
    memcpy(rgn + end, segment, sizeof segment);
    memcpy(rgn + end + sizeof segment, f.data + end, f.size - end);
    CHECK_EQ(try_transcode(rgn, f.size + 7, &o, &error), GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "region of interest") != NULL);
    free(rgn);
    /* an incomplete codestream, as the decoder refuses it */
    CHECK_EQ(try_transcode(f.data, f.size * 2 / 3, &o, &error), GJ2K_ERROR_TRUNCATED);
    /* not JPEG 2000 at all */
    static const uint8_t junk[] = "P5\n2 2\n255\n\1\2\3\4";
    CHECK_EQ(try_transcode(junk, sizeof junk, &o, &error), GJ2K_ERROR_MALFORMED);
    /* an output that is not JPEG 2000; a coder that does not exist */
    o.format = GJ2K_FORMAT_PNG;
    CHECK_EQ(try_transcode(f.data, f.size, &o, &error), GJ2K_ERROR_INVALID_ARGUMENT);
    o.format = GJ2K_FORMAT_UNKNOWN;
    o.coder = (gj2k_block_coder)7;
    CHECK_EQ(try_transcode(f.data, f.size, &o, &error), GJ2K_ERROR_INVALID_ARGUMENT);
    gj2k_image_destroy(image);
    coded_file_free(&f);
}

/* The same bytes whatever the number of threads, both ways. */
static bool same_file(const coded_file *a, const coded_file *b)
{
    return a->size == b->size && memcmp(a->data, b->data, a->size) == 0;
}

static void same_bytes_every_thread_count(void)
{
    gj2k_image *image = make_image(0, 0, 333, 222, 3, 8, 5, 9);
    gj2k_encode_options options = {.tile_width = 160, .tile_height = 128, .threads = 2};
    coded_file part1 = {0}, ht = {0}, back = {0};
    REQUIRE(image != NULL && encode_image(image, &options, &part1));
    REQUIRE(transcode_to(&part1, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 1, NULL, &ht));
    REQUIRE(transcode_to(&ht, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 1, NULL, &back));
    for (unsigned threads = 2; threads <= 5; threads += 3) {
        coded_file other = {0};
        REQUIRE(transcode_to(&part1, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, threads, NULL, &other));
        CHECK(same_file(&ht, &other));
        coded_file_free(&other);
        REQUIRE(transcode_to(&ht, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, threads, NULL, &other));
        CHECK(same_file(&back, &other));
        coded_file_free(&other);
    }
    gj2k_image_destroy(image);
    coded_file_free(&part1), coded_file_free(&ht), coded_file_free(&back);
}

static const test_case cases[] = {
    {"lossless_round_trips", lossless_round_trips},
    {"lossy_part1_partial_planes", lossy_part1_partial_planes},
    {"lossy_ht_to_part1_exact", lossy_ht_to_part1_exact},
    {"layers_recoded_from_all", layers_recoded_from_all},
    {"refusals", refusals},
    {"same_bytes_every_thread_count", same_bytes_every_thread_count},
};
TEST_MAIN(cases)
