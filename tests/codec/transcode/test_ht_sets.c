/* test_ht_sets.c - HT code-blocks as T.814 Annex B lets a codestream carry
 * them beyond what OpenJPH and Grok write: placeholder passes before the
 * first cleanup pass, more than one HT set a block (the last one decoded),
 * and Part 1 blocks beside HT ones (MIXED, code-block style 0xC0). No
 * encoder in Debian writes them, so the codestreams are spliced here from
 * gj2k's own Part 1 and HT files of one image: each block's bytes are sent
 * again with Tier-2 (tier2_encode_tile) in such a form, and the result must
 * decode to the same samples and coefficients as the files it came from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "decode_job.h"
#include "test_harness.h"
#include "tier2_encode.h"
#include "transcode_test_support.h"
#include "transcode_tile.h"

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v & 0xFFFF);
}

/* A block's bytes as Tier-2 sends them again (sources point here). */
typedef struct spliced_block {
    uint8_t *data;
    size_t lengths[64];
    uint8_t layer_passes[2];
    tile_codeblock_source source;
} spliced_block;

/* Per-pass cumulative byte counts of a received block's segments, from
 * pass `first` of `lengths` on. */
static unsigned segments_as_passes(const tile_codeblock *cb, size_t base, size_t *lengths,
                                   unsigned first)
{
    size_t end = base;
    unsigned pass = first;
    for (unsigned s = 0; s < cb->num_segments; s++) {
        end += cb->segments[s].length;
        for (unsigned j = 0; j < cb->segments[s].num_passes; j++)
            lengths[pass++] = end;
    }
    return pass;
}

/*
 * Block i's new form, by i % 4: 0: the Part 1 block (when `part1` has
 * it), sent in layer (i / 4) % 2; 1: the HT block as it was; 2: the HT
 * block after k placeholder planes (3k passes, its missing MSBs k fewer),
 * the placeholders alone in layer 0; 3: two HT sets, the first its
 * cleanup segment one plane too high (layer 0), the second the block
 * itself after an empty refinement segment (layer 1). 2 and 3 need a
 * missing MSB to give away, else the block goes as 1.
 */
static bool splice_block(const transcode_block *ht, const transcode_block *part1, size_t i,
                         spliced_block *out)
{
    const tile_codeblock *h = ht->block;
    memset(out, 0, sizeof *out);
    out->source.layer_passes = out->layer_passes;
    out->source.pass_lengths = out->lengths;
    if (h->num_segments == 0 && (part1 == NULL || part1->block->num_segments == 0))
        return true; /* never included */
    unsigned form = (unsigned)(i % 4);
    if (form == 0 && part1 != NULL && part1->block->num_segments > 0) {
        const tile_codeblock *p = part1->block;
        out->data = malloc(p->size ? p->size : 1);
        if (out->data == NULL || p->placeholder_passes != 0 || p->num_passes > 64)
            return false;
        memcpy(out->data, p->data, p->size);
        unsigned passes = segments_as_passes(p, 0, out->lengths, 0);
        unsigned layer = (unsigned)(i / 4) % 2;
        out->layer_passes[0] = layer == 0 ? (uint8_t)passes : 0;
        out->layer_passes[1] = (uint8_t)passes;
        out->source = (tile_codeblock_source){.data = out->data, .pass_lengths = out->lengths,
                                              .num_passes = passes, .missing_msbs = p->missing_msbs,
                                              .layer_passes = out->layer_passes, .part1 = true};
        return true;
    }
    if (h->num_segments == 0)
        return true;
    if (h->placeholder_passes != 0 || h->num_segments > 2)
        return false; /* gj2k writes neither */
    unsigned k = h->missing_msbs >= 1 ? 1 + (unsigned)(i / 4) % 2 : 0;
    if (k > h->missing_msbs)
        k = h->missing_msbs;
    if (k == 0 || form < 2)
        form = 1;
    size_t cleanup = h->segments[0].length;
    out->data = malloc(h->size + cleanup);
    if (out->data == NULL)
        return false;
    unsigned passes = 0;
    size_t base = 0;
    if (form == 2) { /* 3k placeholders */
        for (; passes < 3 * k; passes++)
            out->lengths[passes] = 0;
        out->layer_passes[0] = (uint8_t)passes;
    } else if (form == 3) { /* 3(k - 1) placeholders, a first set, an empty refinement */
        for (; passes < 3 * (k - 1); passes++)
            out->lengths[passes] = 0;
        memcpy(out->data, h->data, cleanup);
        base = cleanup;
        out->lengths[passes++] = base;
        out->layer_passes[0] = (uint8_t)passes;
        out->lengths[passes++] = base;
        out->lengths[passes++] = base;
    }
    memcpy(out->data + base, h->data, h->size);
    passes = segments_as_passes(h, base, out->lengths, passes);
    if (form == 1)
        out->layer_passes[0] = (uint8_t)passes;
    out->layer_passes[1] = (uint8_t)passes;
    out->source = (tile_codeblock_source){.data = out->data, .pass_lengths = out->lengths,
                                          .num_passes = passes,
                                          .missing_msbs = h->missing_msbs - (form == 1 ? 0 : k),
                                          .layer_passes = out->layer_passes};
    return true;
}

/*
 * `ht` (one tile) sent again in two layers as a MIXED codestream, its
 * blocks in the forms of splice_block, taking Part 1 blocks from `part1`
 * (same image and structure; NULL: HT blocks only). The main header is
 * ht's with the COD's style, layers and Ccap15 changed.
 */
static bool splice(const coded_file *ht, const coded_file *part1, coded_file *out)
{
    decode_job jh = {0}, jp = {0};
    gj2k_error error = {0};
    bool ok = decode_job_open(&jh, ht->data, ht->size, NULL, &error) == GJ2K_OK &&
              jh.cs->siz.num_tiles == 1;
    if (ok && part1 != NULL)
        ok = decode_job_open(&jp, part1->data, part1->size, NULL, &error) == GJ2K_OK;
    transcode_tile th = {0}, tp = {0};
    ok = ok && transcode_tile_read(jh.cs, jh.codestream, 0, NULL, NULL, &th, &error) == GJ2K_OK;
    if (ok && part1 != NULL)
        ok = transcode_tile_read(jp.cs, jp.codestream, 0, NULL, NULL, &tp, &error) == GJ2K_OK &&
             tp.num_blocks == th.num_blocks;
    spliced_block *blocks = ok ? calloc(th.num_blocks + 1, sizeof *blocks) : NULL;
    ok = ok && blocks != NULL;
    for (size_t i = 0; ok && i < th.num_blocks; i++) {
        ok = splice_block(&th.blocks[i], part1 ? &tp.blocks[i] : NULL, i, &blocks[i]);
        th.blocks[i].block->source = &blocks[i].source;
    }
    byte_buffer packets = {0};
    for (uint32_t c = 0; ok && c < th.num_components; c++)
        th.components[c].coding.code_block_style =
            (uint8_t)(th.components[c].coding.code_block_style | J2K_CBLK_HT_MIXED);
    tier2_encode_params params = {.num_layers = 2, .progression = th.params[0].progression};
    ok = ok && tier2_encode_tile(th.components, th.num_components, &params, &packets, NULL, NULL,
                                 &error) == GJ2K_OK;
    size_t end = 0, cod = find_marker(ht, J2K_COD, &end), cap = find_marker(ht, J2K_CAP, NULL);
    ok = ok && cod != 0 && cap != 0 && find_marker(ht, J2K_COC, NULL) == 0;
    if (ok) {
        out->size = end + 12 + 2 + packets.size + 2;
        out->data = malloc(out->size);
        ok = out->data != NULL;
    }
    if (ok) {
        uint8_t *o = out->data;
        memcpy(o, ht->data, end);
        put16(o + cod + 6, 2);          /* marker, Lcod, Scod, progression, then the layers */
        o[cod + 12] |= J2K_CBLK_HT_MIXED; /* ... MCT, NL, xcb, ycb, then the style */
        size_t ccap = cap + 8;          /* marker, Lcap, Pcap (4), then Ccap15 */
        put16(o + ccap, be16(o + ccap) | J2K_CCAP15_SET_MASK | J2K_CCAP15_MULTIPLE_SETS);
        uint8_t *sot = o + end;
        put16(sot, J2K_SOT);
        put16(sot + 2, 10);
        put16(sot + 4, 0);
        put32(sot + 6, (uint32_t)(12 + 2 + packets.size));
        sot[10] = 0;
        sot[11] = 1;
        put16(sot + 12, J2K_SOD);
        memcpy(sot + 14, packets.data, packets.size);
        put16(sot + 14 + packets.size, J2K_EOC);
    }
    if (!ok)
        fprintf(stderr, "splice: %s\n", error.message);
    for (size_t i = 0; blocks != NULL && i < th.num_blocks; i++)
        free(blocks[i].data);
    free(blocks);
    byte_buffer_free(&packets);
    transcode_tile_free(&th);
    if (part1 != NULL)
        transcode_tile_free(&tp);
    decode_job_close(&jh);
    if (part1 != NULL)
        decode_job_close(&jp);
    return ok;
}

/* What the spliced file's style, CAP and blocks look like. */
static void check_facts(const coded_file *f)
{
    bool part15 = false, has_cap = false;
    unsigned style = 0, layers = 0;
    REQUIRE(codestream_facts(f, &part15, &has_cap, &style, &layers));
    CHECK(part15 && has_cap);
    CHECK_EQ(style & 0xC0u, 0xC0u);
    CHECK_EQ(layers, 2u);
}

static gj2k_image *decode_on(const coded_file *f, unsigned layers, gj2k_device device,
                             gj2k_status *status)
{
    gj2k_decode_options options = {.raw_components = true, .device = device,
                                   .max_layers = layers};
    gj2k_image *image = NULL;
    gj2k_error error = {0};
    *status = gj2k_decode_memory(f->data, f->size, &options, &image, &error);
    if (*status != GJ2K_OK)
        fprintf(stderr, "decode: %s\n", error.message);
    return image;
}

/* The image encoded with `options` as Part 1 and as HT (its
 * high_throughput set), and the two spliced into *mixed (splice). */
static void mixed_of(const gj2k_image *image, gj2k_encode_options options, coded_file *part1,
                     coded_file *ht, coded_file *mixed)
{
    REQUIRE(encode_image(image, &options, part1));
    options.high_throughput = true;
    REQUIRE(encode_image(image, &options, ht));
    REQUIRE(splice(ht, part1, mixed));
}

/* Lossless: Part 1 and HT blocks of one image, placeholders and two HT
 * sets, decode to the image; the coefficients match block for block. */
static void mixed_lossless_decodes_alike(void)
{
    static const struct {
        uint32_t width, height, components, precision, block;
    } shapes[] = {{97, 61, 3, 8, 32}, {130, 75, 1, 12, 16}, {64, 64, 1, 16, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        gj2k_image *image = make_image(0, 0, shapes[s].width, shapes[s].height,
                                       shapes[s].components, shapes[s].precision, 5,
                                       (uint32_t)(11 + s));
        REQUIRE(image != NULL);
        gj2k_encode_options options = {.threads = 1, .code_block_width = shapes[s].block,
                                       .code_block_height = shapes[s].block,
                                       .num_resolutions = 4};
        coded_file part1 = {0}, ht = {0}, mixed = {0};
        mixed_of(image, options, &part1, &ht, &mixed);
        check_facts(&mixed);
        gj2k_image *decoded = decode_raw(&mixed);
        CHECK(images_equal(decoded, image));
        block_census census;
        CHECK(compare_blocks(&ht, &mixed, BLOCKS_EXACT, &census));
        CHECK(census.with_data > 8);
        /* the first layer alone: the Part 1 blocks of layer 1 and the second
           HT sets missing, the first sets a plane too high: it decodes */
        gj2k_status status;
        gj2k_image *first = decode_on(&mixed, 1, GJ2K_DEVICE_CPU, &status);
        CHECK(first != NULL && !images_equal(first, image));
        /* both transcoder directions take it */
        coded_file to_part1 = {0}, to_ht = {0};
        CHECK(transcode_to(&mixed, GJ2K_CODER_PART1, GJ2K_FORMAT_UNKNOWN, 1, NULL, &to_part1));
        CHECK(transcode_to(&mixed, GJ2K_CODER_HT, GJ2K_FORMAT_UNKNOWN, 1, NULL, &to_ht));
        gj2k_image *back = decode_raw(&to_part1), *again = decode_raw(&to_ht);
        CHECK(images_equal(back, image) && images_equal(again, image));
        gj2k_image_destroy(back);
        gj2k_image_destroy(again);
        gj2k_image_destroy(first);
        gj2k_image_destroy(decoded);
        coded_file_free(&to_part1);
        coded_file_free(&to_ht);
        coded_file_free(&mixed);
        coded_file_free(&ht);
        coded_file_free(&part1);
        gj2k_image_destroy(image);
    }
}

/* Lossy HT with SigProp and MagRef passes, sent with placeholders and two
 * sets in a MIXED codestream: the same samples as the file it came from. */
static void sets_with_refinement_decode_alike(void)
{
    gj2k_image *image = make_image(0, 0, 150, 101, 3, 8, 6, 7);
    REQUIRE(image != NULL);
    static const double ratio[] = {12.0};
    gj2k_encode_options options = {.threads = 1, .irreversible = true, .high_throughput = true,
                                   .ht_refinement = true, .target = GJ2K_TARGET_RATIO,
                                   .num_layers = 1, .targets = ratio, .code_block_width = 32,
                                   .code_block_height = 32};
    coded_file ht = {0}, spliced = {0};
    REQUIRE(encode_image(image, &options, &ht));
    REQUIRE(splice(&ht, NULL, &spliced));
    check_facts(&spliced);
    gj2k_image *a = decode_raw(&ht), *b = decode_raw(&spliced);
    CHECK(a != NULL && images_equal(a, b));
    block_census census;
    CHECK(compare_blocks(&ht, &spliced, BLOCKS_EXACT, &census));
    gj2k_image_destroy(a);
    gj2k_image_destroy(b);
    coded_file_free(&spliced);
    coded_file_free(&ht);
    gj2k_image_destroy(image);
}

/* A Part 1 codestream whose COD says MIXED: every block opens as Part 1
 * opens (Lblock grown only as far as needed), so each is read as Part 1. */
static void part1_blocks_in_a_mixed_style(void)
{
    gj2k_image *image = make_image(0, 0, 90, 70, 3, 8, 4, 3);
    REQUIRE(image != NULL);
    gj2k_encode_options options = {.threads = 1};
    coded_file f = {0};
    REQUIRE(encode_image(image, &options, &f));
    size_t cod = find_marker(&f, J2K_COD, NULL);
    REQUIRE(cod != 0);
    f.data[cod + 12] = 0xC0;
    gj2k_image *decoded = decode_raw(&f);
    CHECK(images_equal(decoded, image));
    gj2k_image_destroy(decoded);
    coded_file_free(&f);
    gj2k_image_destroy(image);
}

/* The GPU's block decoders take the same blocks (Tier-2 is the host's):
 * the spliced files decode alike there. Skipped without a usable GPU. */
static void gpu_decodes_alike(void)
{
    gj2k_image *image = make_image(0, 0, 211, 97, 3, 10, 6, 5);
    REQUIRE(image != NULL);
    gj2k_encode_options options = {.threads = 1, .code_block_width = 16,
                                   .code_block_height = 16};
    coded_file part1 = {0}, ht = {0}, mixed = {0};
    mixed_of(image, options, &part1, &ht, &mixed);
    gj2k_status status;
    gj2k_image *gpu = decode_on(&mixed, 0, GJ2K_DEVICE_GPU, &status);
    if (status == GJ2K_ERROR_DEVICE) {
        coded_file_free(&mixed), coded_file_free(&ht), coded_file_free(&part1);
        gj2k_image_destroy(image);
        test_skip("no usable GPU");
    }
    CHECK(images_equal(gpu, image));
    for (unsigned layers = 1; layers <= 2; layers++) {
        gj2k_image *a = decode_on(&mixed, layers, GJ2K_DEVICE_CPU, &status);
        gj2k_image *b = decode_on(&mixed, layers, GJ2K_DEVICE_GPU, &status);
        CHECK(a != NULL && images_equal(a, b));
        gj2k_image_destroy(a);
        gj2k_image_destroy(b);
    }
    gj2k_image_destroy(gpu);
    coded_file_free(&mixed), coded_file_free(&ht), coded_file_free(&part1);
    gj2k_image_destroy(image);
}

static const test_case cases[] = {
    {"mixed_lossless_decodes_alike", mixed_lossless_decodes_alike},
    {"sets_with_refinement_decode_alike", sets_with_refinement_decode_alike},
    {"part1_blocks_in_a_mixed_style", part1_blocks_in_a_mixed_style},
    {"gpu_decodes_alike", gpu_decodes_alike},
};

TEST_MAIN(cases)
