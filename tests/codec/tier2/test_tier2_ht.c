/* test_tier2_ht.c - the packet header rules of HT code-blocks (T.814
 * Annex B), each direction checked by the other: placeholder passes before
 * the first cleanup pass, several HT sets a block, Part 1 blocks beside HT
 * ones in a MIXED tile-component, all spread over random layers; and what
 * the decoder then hands Tier-1 (tile_codeblock_coded_of: the last set). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet_header.h"
#include "test_harness.h"
#include "tier2_test_support.h"
#include "tile_structure.h"

#define MAX_PASSES 48

/* A block as a random encoder could send it, and what Tier-1 must get. */
typedef struct ht_fake {
    tile_codeblock_source source;
    size_t lengths[MAX_PASSES];
    uint8_t data[MAX_PASSES * 64];
    uint8_t layer_passes[8];
    bool part1;
} ht_fake;

static void ht_fake_make(ht_fake *f, unsigned layers, bool mixed)
{
    memset(f, 0, sizeof *f);
    unsigned passes = 0, placeholders = 0;
    size_t total = 0;
    f->part1 = mixed && rnd(0, 2) == 0;
    if (f->part1) { /* Part 1 passes, one segment (style 0): every one with bytes */
        passes = rnd(1, 30);
        for (unsigned j = 0; j < passes; j++)
            f->lengths[j] = total += rnd(1, rnd(0, 5) == 0 ? 60 : 9);
    } else {
        placeholders = 3 * rnd(0, 3);
        unsigned sets = rnd(1, 3);
        for (; passes < placeholders; passes++)
            f->lengths[passes] = 0;
        for (unsigned s = 0; s < sets; s++) {
            /* a later set's cleanup may be empty: that set is not decoded */
            bool empty = s > 0 && rnd(0, 3) == 0;
            f->lengths[passes++] = total += empty ? 0 : rnd(2, rnd(0, 4) == 0 ? 600 : 30);
            unsigned refinement = s + 1 < sets ? 2 : rnd(0, 2);
            for (unsigned j = 0; j < refinement; j++)
                f->lengths[passes++] = total += rnd(0, 2) == 0 ? 0 : rnd(1, 20);
        }
    }
    for (size_t i = 0; i < total; i++)
        f->data[i] = (uint8_t)test_random();
    /* cumulative passes per layer; an HT block's first contribution with
       bytes holds one cleanup pass with bytes, its last (T.814 Annex B) */
    unsigned sent = 0;
    bool opened = false;
    for (unsigned l = 0; l < layers; l++) {
        if (l + 1 == layers)
            sent = passes;
        else if (rnd(0, 1))
            sent = rnd(sent, passes);
        if (!f->part1 && !opened && sent > placeholders) {
            opened = true;
            if (sent > placeholders + 3)
                sent = placeholders + 3;
        }
        f->layer_passes[l] = (uint8_t)sent;
    }
    f->source = (tile_codeblock_source){.data = f->data, .pass_lengths = f->lengths,
                                        .num_passes = passes, .missing_msbs = rnd(0, 4),
                                        .layer_passes = f->layer_passes, .part1 = f->part1};
}

/* What Tier-1 gets once `sent` passes are in: the last set whose cleanup
 * has bytes (HT) or every pass (Part 1). */
static void check_coded(const tile_codeblock *got, const ht_fake *f, unsigned sent,
                        unsigned style, unsigned mb)
{
    tile_codeblock_coded coded;
    tile_coded_status status = tile_codeblock_coded_of(got, style, mb, &coded);
    if (sent == 0 || f->lengths[sent - 1] == 0) {
        CHECK_EQ(status, TILE_CODED_NONE);
        return;
    }
    unsigned planes = mb - f->source.missing_msbs;
    if (f->part1) {
        REQUIRE(status == TILE_CODED_OK);
        CHECK(!(coded.style & J2K_CBLK_HT));
        CHECK_EQ(coded.size, f->lengths[sent - 1]);
        CHECK_EQ(coded.num_planes, planes);
        CHECK(memcmp(coded.data, f->data, coded.size) == 0);
        return;
    }
    unsigned cleanup = MAX_PASSES; /* the last cleanup pass sent with bytes */
    for (unsigned j = 0; j < sent; j += 3) {
        size_t before = j == 0 ? 0 : f->lengths[j - 1];
        if (f->lengths[j] > before)
            cleanup = j;
    }
    if (cleanup / 3 >= planes) {
        CHECK_EQ(status, TILE_CODED_TOO_DEEP);
        return;
    }
    REQUIRE(status == TILE_CODED_OK);
    size_t start = cleanup == 0 ? 0 : f->lengths[cleanup - 1];
    CHECK(coded.style & J2K_CBLK_HT);
    CHECK_EQ(coded.num_planes, planes - cleanup / 3);
    CHECK(coded.data == got->data + start);
    CHECK_EQ(coded.segments[0].num_passes, 1u);
    CHECK_EQ(coded.segments[0].length, f->lengths[cleanup] - start);
    unsigned refinement = sent - cleanup - 1 < 2 ? sent - cleanup - 1 : 2;
    size_t refinement_bytes = f->lengths[cleanup + refinement] - f->lengths[cleanup];
    CHECK_EQ(coded.num_segments, refinement_bytes > 0 ? 2u : 1u);
    if (refinement_bytes > 0) {
        CHECK_EQ(coded.segments[1].num_passes, refinement);
        CHECK_EQ(coded.segments[1].length, refinement_bytes);
    }
    CHECK(memcmp(got->data, f->data, got->size) == 0);
}

static void ht_sets_round_trip_random(void)
{
    for (int round = 0; round < 400; round++) {
        bool mixed = rnd(0, 1);
        unsigned style = J2K_CBLK_HT | (mixed ? J2K_CBLK_HT_MIXED : 0), layers = rnd(1, 8);
        j2k_component_coding coding = {0};
        coding.code_block_width_log2 = coding.code_block_height_log2 = 2;
        coding.code_block_style = (uint8_t)style;
        j2k_component_coding_default_precincts(&coding);
        tile_component enc, dec;
        dwt_rect tile = {0, 0, 4 * rnd(1, 3), 4 * rnd(1, 3)}; /* 1..9 blocks */
        REQUIRE(tile_component_init(&enc, tile, 1, 1, &coding, 0, NULL) == GJ2K_OK);
        REQUIRE(tile_component_init(&dec, tile, 1, 1, &coding, 0, NULL) == GJ2K_OK);
        tile_precinct *pe = &enc.resolutions[0].precincts[0], *pd = &dec.resolutions[0].precincts[0];
        size_t n = (size_t)pe->bands[0].blocks_wide * pe->bands[0].blocks_high;
        ht_fake *fakes = xcalloc(n, sizeof *fakes);
        for (size_t i = 0; i < n; i++) {
            ht_fake_make(&fakes[i], layers, mixed);
            pe->bands[0].blocks[i].source = &fakes[i].source;
        }
        byte_buffer out = {0};
        packet_write_options o = {.num_layers = layers};
        for (unsigned l = 0; l < layers; l++) {
            gj2k_error e = {0};
            gj2k_status s = packet_write(pe, 1, l, style, &o, &out, &out, NULL, &e);
            if (s != GJ2K_OK)
                fprintf(stderr, "write: %s\n", e.message);
            REQUIRE(s == GJ2K_OK);
        }
        packet_stream st = {.data = out.data, .size = out.size};
        packet_header h = {0};
        unsigned mb = 6 + rnd(0, 4);
        for (unsigned l = 0; l < layers; l++) {
            gj2k_error e = {0};
            gj2k_status s = packet_read(&h, pd, 1, l, style, false, false, &st, &st, &e);
            if (s != GJ2K_OK)
                fprintf(stderr, "read: %s\n", e.message);
            REQUIRE(s == GJ2K_OK);
            for (size_t i = 0; i < h.num_contributions; i++) { /* as tier2_decode commits */
                const packet_contribution *c = &h.contributions[i];
                const tier1_segment *pieces = c->num_pieces ? &h.pieces[c->first_piece] : NULL;
                REQUIRE(tile_codeblock_append(c->block, c->data, c->bytes, pieces,
                                              (unsigned)c->num_pieces, c->placeholder_passes,
                                              style, NULL) == GJ2K_OK);
            }
            for (size_t i = 0; i < n; i++) {
                const tile_codeblock *got = &pd->bands[0].blocks[i];
                unsigned sent = fakes[i].layer_passes[l];
                CHECK_EQ(got->num_passes, sent);
                if (sent > 0 && fakes[i].lengths[sent - 1] > 0)
                    CHECK_EQ(got->coder, fakes[i].part1 ? TILE_CODER_PART1 : TILE_CODER_HT);
                check_coded(got, &fakes[i], sent, style, mb);
            }
        }
        CHECK_EQ(st.position, out.size);
        packet_header_free(&h);
        byte_buffer_free(&out);
        free(fakes);
        tile_component_free(&enc);
        tile_component_free(&dec);
    }
}

/* What the writer refuses: bytes in passes before an HT cleanup pass, a
 * cleanup segment of one byte, a Part 1 block outside MIXED. */
static void ht_sources_refused(void)
{
    static const struct {
        unsigned style, passes;
        size_t lengths[4];
        bool part1;
    } cases[] = {
        {J2K_CBLK_HT, 4, {0, 3, 3, 9}, false},
        {J2K_CBLK_HT, 1, {1}, false},
        {J2K_CBLK_HT, 2, {5, 9}, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        j2k_component_coding coding = {0};
        coding.code_block_width_log2 = coding.code_block_height_log2 = 2;
        coding.code_block_style = (uint8_t)cases[i].style;
        j2k_component_coding_default_precincts(&coding);
        tile_component enc;
        REQUIRE(tile_component_init(&enc, (dwt_rect){0, 0, 4, 4}, 1, 1, &coding, 0, NULL) ==
                GJ2K_OK);
        static const uint8_t data[16];
        uint8_t layer_passes[1] = {(uint8_t)cases[i].passes};
        tile_codeblock_source s = {.data = data, .pass_lengths = cases[i].lengths,
                                   .num_passes = cases[i].passes, .layer_passes = layer_passes,
                                   .part1 = cases[i].part1};
        enc.resolutions[0].precincts[0].bands[0].blocks[0].source = &s;
        byte_buffer out = {0};
        packet_write_options o = {.num_layers = 1};
        gj2k_error e = {0};
        CHECK_EQ(packet_write(&enc.resolutions[0].precincts[0], 1, 0, cases[i].style, &o, &out,
                              &out, NULL, &e),
                 GJ2K_ERROR_INVALID_ARGUMENT);
        CHECK(e.message[0] != '\0');
        byte_buffer_free(&out);
        tile_component_free(&enc);
    }
}

static const test_case cases[] = {
    {"ht_sets_round_trip_random", ht_sets_round_trip_random},
    {"ht_sources_refused", ht_sources_refused},
};
TEST_MAIN(cases)
