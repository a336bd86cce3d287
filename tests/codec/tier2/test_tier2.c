/* test_tier2.c - Tier-2 (T.800 Annex B): tag trees, packet header bits,
 * packets and whole tiles, each direction checked by the other and by
 * hand-computed references. The tile structure and the packet order are
 * tested in test_tier2_order.c.
 *
 * Built by hand with:
 *   gcc -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -g -Wall -Wextra -Wpedantic -Wshadow
 *     -Wstrict-prototypes -Wmissing-prototypes -Werror -Iinclude -Icommon -Idwt -Iquant
 *     -Icodec/codestream -Icodec/tier1 -Icodec/tier2 -Itests
 *     common/error.c common/byte_buffer.c dwt/dwt_2d.c dwt/dwt_53.c dwt/dwt_97.c
 *     quant/quantization.c codec/codestream/marker_*.c codec/codestream/codestream_*.c
 *     codec/tier2/tile_structure.c codec/tier2/tag_tree.c codec/tier2/packet_bits.c codec/tier2/packet_header.c
 *     codec/tier2/packet_iterator.c codec/tier2/tier2_decode.c codec/tier2/tier2_encode.c
 *     codec/tier1/mq_*.c codec/tier1/tier1_*.c tests/test_harness.c
 *     tests/codec/tier2/tier2_test_support.c tests/codec/tier2/test_tier2.c -lm -o /tmp/test_tier2
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "packet_bits.h"
#include "packet_header.h"
#include "packet_iterator.h"
#include "tag_tree.h"
#include "test_harness.h"
#include "tier2_test_support.h"
#include "tier2_decode.h"
#include "tier2_encode.h"
#include "tile_structure.h"

/* ------------------------------------------------------------ helpers */

/* Packs a string of '0'/'1' (spaces ignored) MSB first, zero padded. */
static size_t pack_bits(const char *s, uint8_t *out)
{
    size_t n = 0;
    memset(out, 0, 64);
    for (; *s; s++)
        if (*s == '0' || *s == '1') {
            if (*s == '1')
                out[n / 8] |= (uint8_t)(0x80u >> (n % 8));
            n++;
        }
    return (n + 7) / 8;
}

/* Every code-block of a tile-component in a fixed order (r, k, band, raster). */
static size_t list_blocks(tile_component *tc, tile_codeblock **out)
{
    size_t n = 0;
    for (unsigned r = 0; r < tc->num_resolutions; r++) {
        tile_resolution *res = &tc->resolutions[r];
        for (uint32_t k = 0; k < tile_resolution_num_precincts(res); k++)
            for (unsigned b = 0; b < res->num_bands; b++) {
                tile_precinct_band *pb = &res->precincts[k].bands[b];
                for (size_t i = 0; i < (size_t)pb->blocks_wide * pb->blocks_high; i++) {
                    if (out != NULL)
                        out[n] = &pb->blocks[i];
                    n++;
                }
            }
    }
    return n;
}

/* Random Tier-1 output for one block: passes, cumulative lengths, bytes,
 * and how many passes each of `layers` layers includes. */
typedef struct fake_block {
    tile_codeblock_source source;
    uint8_t *data;
    size_t *pass_lengths;
    uint8_t *layer_passes;
} fake_block;

static void fake_block_make(fake_block *f, unsigned layers, unsigned max_passes)
{
    memset(f, 0, sizeof *f);
    unsigned passes = rnd(0, 3) == 0 ? 0 : rnd(1, max_passes);
    f->pass_lengths = xcalloc(passes + 1, sizeof *f->pass_lengths);
    size_t total = 0;
    for (unsigned j = 0; j < passes; j++) {
        total += rnd(0, 4) == 0 ? 0 : rnd(1, rnd(0, 9) == 0 ? 3000 : 40);
        f->pass_lengths[j] = total;
    }
    f->data = xcalloc(total + 1, 1);
    for (size_t i = 0; i < total; i++)
        f->data[i] = (uint8_t)(rnd(0, 3) == 0 ? 0xFF : test_random());
    f->layer_passes = xcalloc(layers, 1);
    unsigned so_far = 0;
    for (unsigned l = 0; l < layers; l++) {
        if (rnd(0, 2) == 0 || l == layers - 1)
            so_far += rnd(0, passes - so_far);
        f->layer_passes[l] = (uint8_t)so_far;
    }
    f->source = (tile_codeblock_source){.data = f->data, .pass_lengths = f->pass_lengths,
                                        .num_passes = passes, .missing_msbs = rnd(0, 20),
                                        .layer_passes = f->layer_passes};
}

static void fake_block_free(fake_block *f)
{
    free(f->data);
    free(f->pass_lengths);
    free(f->layer_passes);
}

/* Checks what a decoder received against the source for `layers` layers:
 * the bytes and the codeword segments of the passes they hold (D.4). */
static bool block_matches(const tile_codeblock *got, const tile_codeblock_source *s,
                          unsigned layers, unsigned style)
{
    unsigned passes = layers == 0 ? 0 : s->layer_passes[layers - 1];
    if (got->passes_received != passes)
        return false;
    if (passes == 0)
        return got->size == 0 && got->num_segments == 0;
    if (got->missing_msbs != s->missing_msbs || got->size != s->pass_lengths[passes - 1] ||
        (got->size > 0 && memcmp(got->data, s->data, got->size) != 0))
        return false;
    unsigned seg = 0, start = 0;
    for (unsigned j = 0; j < passes; j++)
        if (j == passes - 1 || tier1_pass_ends_segment(j, style)) {
            size_t begin = start == 0 ? 0 : s->pass_lengths[start - 1];
            if (seg >= got->num_segments || got->segments[seg].num_passes != j + 1 - start ||
                got->segments[seg].length != s->pass_lengths[j] - begin)
                return false;
            seg++;
            start = j + 1;
        }
    return seg == got->num_segments;
}

/* ------------------------------------------------------------ tag trees */

static void test_tag_tree_hand_example(void)
{
    /* Leaves 1 3 2 / 2 2 1: level 1 holds 1 1, the root 1 (B.10.2). */
    static const uint32_t values[6] = {1, 3, 2, 2, 2, 1};
    tag_tree t;
    REQUIRE(tag_tree_init(&t, 3, 2, NULL) == GJ2K_OK);
    CHECK_EQ(t.num_levels, 3);
    for (unsigned i = 0; i < 6; i++)
        tag_tree_set_value(&t, i % 3, i / 3, values[i]);
    tag_tree_update_minima(&t);
    byte_buffer out = {0};
    packet_bit_writer w;
    packet_bit_writer_init(&w, &out);
    /* (0,0) < 2: root 0 1, node 1, leaf 1; (1,0) < 2: leaf 0; (2,1) < 2:
     * node 1, leaf 1; (1,0) < 4: leaf 0 1. */
    CHECK(tag_tree_encode(&t, 0, 0, 2, &w));
    CHECK(!tag_tree_encode(&t, 1, 0, 2, &w));
    CHECK(tag_tree_encode(&t, 2, 1, 2, &w));
    CHECK(tag_tree_encode(&t, 1, 0, 4, &w));
    packet_bits_flush(&w);
    uint8_t expect[64];
    size_t n = pack_bits("0111 0 11 01", expect);
    CHECK_EQ(out.size, n);
    CHECK(out.size == n && memcmp(out.data, expect, n) == 0);
    tag_tree d;
    REQUIRE(tag_tree_init(&d, 3, 2, NULL) == GJ2K_OK);
    packet_bit_reader r;
    packet_bit_reader_init(&r, out.data, out.size);
    uint32_t v = 99;
    CHECK(tag_tree_decode(&d, 0, 0, 2, &r, &v) && v == 1);
    CHECK(!tag_tree_decode(&d, 1, 0, 2, &r, &v));
    CHECK(tag_tree_decode(&d, 2, 1, 2, &r, &v) && v == 1);
    CHECK(tag_tree_decode(&d, 1, 0, 4, &r, &v) && v == 3);
    CHECK_EQ(packet_bits_finish(&r), n);
    CHECK(!r.overrun);
    tag_tree_free(&t);
    tag_tree_free(&d);
    byte_buffer_free(&out);
}

static void test_tag_tree_round_trip_random(void)
{
    for (int round = 0; round < 300; round++) {
        uint32_t w = rnd(1, 20), h = rnd(1, 20), maxv = rnd(0, 12);
        tag_tree t, d;
        REQUIRE(tag_tree_init(&t, w, h, NULL) == GJ2K_OK);
        REQUIRE(tag_tree_init(&d, w, h, NULL) == GJ2K_OK);
        uint32_t *values = xcalloc((size_t)w * h, sizeof *values);
        for (uint32_t i = 0; i < w * h; i++) {
            values[i] = rnd(0, maxv);
            tag_tree_set_value(&t, i % w, i / w, values[i]);
        }
        tag_tree_update_minima(&t);
        unsigned queries = rnd(1, 4 * w * h);
        uint32_t *qx = xcalloc(queries, 4), *qy = xcalloc(queries, 4), *qt = xcalloc(queries, 4);
        byte_buffer out = {0};
        packet_bit_writer wr;
        packet_bit_writer_init(&wr, &out);
        for (unsigned q = 0; q < queries; q++) {
            qx[q] = rnd(0, w - 1);
            qy[q] = rnd(0, h - 1);
            qt[q] = rnd(0, maxv + 2);
            bool below = tag_tree_encode(&t, qx[q], qy[q], qt[q], &wr);
            CHECK(below == (values[qy[q] * w + qx[q]] < qt[q]));
        }
        packet_bits_flush(&wr);
        packet_bit_reader rd;
        packet_bit_reader_init(&rd, out.data, out.size);
        for (unsigned q = 0; q < queries; q++) {
            uint32_t v = UINT32_MAX, truth = values[qy[q] * w + qx[q]];
            bool below = tag_tree_decode(&d, qx[q], qy[q], qt[q], &rd, &v);
            CHECK(below == (truth < qt[q]));
            CHECK(!below || v == truth);
        }
        CHECK_EQ(packet_bits_finish(&rd), out.size);
        CHECK(!rd.overrun);
        free(values);
        free(qx);
        free(qy);
        free(qt);
        byte_buffer_free(&out);
        tag_tree_free(&t);
        tag_tree_free(&d);
    }
}

/* ------------------------------------------------------------ header bits */

static void test_bit_stuffing(void)
{
    byte_buffer out = {0};
    packet_bit_writer w;
    packet_bit_writer_init(&w, &out);
    packet_bits_write_value(&w, 0xFF, 8);  /* 0xFF */
    packet_bits_write_value(&w, 0x7F, 7);  /* then only 7 bits: 0x7F */
    packet_bits_write(&w, 1);              /* 1 and padding: 0x80 */
    packet_bits_flush(&w);
    REQUIRE(out.size == 3);
    CHECK(out.data[0] == 0xFF && out.data[1] == 0x7F && out.data[2] == 0x80);
    out.size = 0;
    packet_bit_writer_init(&w, &out);
    packet_bits_write_value(&w, 0xFF, 8); /* may not end on 0xFF: a 0x00 follows */
    packet_bits_flush(&w);
    REQUIRE(out.size == 2);
    CHECK(out.data[0] == 0xFF && out.data[1] == 0x00);
    packet_bit_reader r;
    packet_bit_reader_init(&r, out.data, 1); /* the stuffed byte missing */
    CHECK_EQ(packet_bits_read_value(&r, 8), 0xFF);
    packet_bits_finish(&r);
    CHECK(r.overrun);
    byte_buffer_free(&out);

    for (int round = 0; round < 500; round++) {
        unsigned n = rnd(0, 300);
        uint8_t *bits = xcalloc(n, 1);
        byte_buffer b = {0};
        packet_bit_writer_init(&w, &b);
        for (unsigned i = 0; i < n; i++) {
            bits[i] = (uint8_t)(rnd(0, 7) != 0); /* mostly ones: many 0xFF */
            packet_bits_write(&w, bits[i]);
        }
        packet_bits_flush(&w);
        for (size_t i = 0; i + 1 < b.size; i++)
            CHECK(b.data[i] != 0xFF || b.data[i + 1] < 0x80);
        CHECK(b.size == 0 || b.data[b.size - 1] != 0xFF);
        byte_buffer_put_u8(&b, 0xA5); /* what follows the header */
        packet_bit_reader_init(&r, b.data, b.size);
        for (unsigned i = 0; i < n; i++)
            CHECK(packet_bits_read(&r) == bits[i]);
        CHECK_EQ(packet_bits_finish(&r), b.size - 1);
        CHECK(!r.overrun);
        packet_bit_reader_init(&r, b.data, b.size / 2); /* cut short: reported */
        for (unsigned i = 0; i < n + 16; i++)
            packet_bits_read(&r);
        CHECK(r.overrun);
        free(bits);
        byte_buffer_free(&b);
    }
}

static void test_pass_count_codes(void)
{
    static const unsigned widths[] = {1, 2, 4, 9, 16};
    for (unsigned n = 1; n <= PACKET_MAX_NEW_PASSES; n++) {
        byte_buffer out = {0};
        packet_bit_writer w;
        packet_bit_writer_init(&w, &out);
        packet_bits_write_value(&w, 0, 3); /* misalign */
        packet_write_pass_count(&w, n);
        packet_bits_write(&w, 1);
        packet_bits_flush(&w);
        unsigned width = n == 1 ? widths[0] : n == 2 ? widths[1] : n <= 5 ? widths[2]
                       : n <= 36 ? widths[3] : widths[4];
        packet_bit_reader r;
        packet_bit_reader_init(&r, out.data, out.size);
        packet_bits_read_value(&r, 3);
        uint32_t code = packet_bits_read_value(&r, width);
        /* Table B.4 */
        uint32_t expect = n == 1 ? 0 : n == 2 ? 2 : n <= 5 ? 0xC + n - 3
                        : n <= 36 ? 0x1E0 + n - 6 : (0x1FFu << 7) + n - 37;
        CHECK_EQ(code, expect);
        CHECK_EQ(packet_bits_read(&r), 1);
        packet_bit_reader_init(&r, out.data, out.size);
        packet_bits_read_value(&r, 3);
        CHECK_EQ(packet_read_pass_count(&r), n);
        CHECK(!r.overrun);
        byte_buffer_free(&out);
    }
}

/* ------------------------------------------------------------ packets */

/* A 1-resolution tile-component with one precinct holding one 4x4 block. */
static void single_block(tile_component *tc, unsigned style)
{
    j2k_component_coding c = {0};
    c.code_block_width_log2 = c.code_block_height_log2 = 2;
    c.code_block_style = (uint8_t)style;
    j2k_component_coding_default_precincts(&c);
    REQUIRE(tile_component_init(tc, (dwt_rect){0, 0, 4, 4}, 1, 1, &c, 0, NULL) == GJ2K_OK);
}

static void test_segment_lengths_by_style(void)
{
    /* Hand-coded headers: 1 (not empty), inclusion 1, zero planes 1, passes. */
    static const size_t lengths[3] = {2, 5, 14};
    static const uint8_t passes_by_layer[1] = {3};
    uint8_t data[14] = {0};
    tile_codeblock_source s = {.data = data, .pass_lengths = lengths, .num_passes = 3,
                               .layer_passes = passes_by_layer};
    static const struct {
        unsigned style;
        const char *bits;
    } cases[] = {
        /* One segment, 14 bytes: Lblock 3 + log2(3) = 4 bits; 14 needs 4. */
        {0, "1 1 1 1100 0 1110"},
        /* A segment per pass, Lblock + 0 bits each: 9 bytes needs Lblock 4. */
        {TIER1_STYLE_TERMINATE_EACH_PASS, "1 1 1 1100 10 0010 0011 1001"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tile_component tc;
        single_block(&tc, cases[i].style);
        tile_precinct *p = &tc.resolutions[0].precincts[0];
        p->bands[0].blocks[0].source = &s;
        byte_buffer out = {0};
        packet_write_options o = {.num_layers = 1};
        REQUIRE(packet_write(p, 1, 0, cases[i].style, &o, &out, &out, NULL, NULL) == GJ2K_OK);
        uint8_t expect[64];
        size_t n = pack_bits(cases[i].bits, expect);
        CHECK(out.size == n + 14 && memcmp(out.data, expect, n) == 0);
        byte_buffer_free(&out);
        tile_component_free(&tc);
    }
    /* Bypass (D.6): segments end after pass 9, then after every refinement
     * and cleanup pass; a segment may span layers. */
    size_t bl[16];
    uint8_t bytes[16 * 3];
    for (unsigned j = 0; j < 16; j++)
        bl[j] = 3 * (j + 1);
    static const uint8_t layers[4] = {5, 11, 13, 16};
    tile_codeblock_source b = {.data = bytes, .pass_lengths = bl, .num_passes = 16,
                               .layer_passes = layers};
    tile_component enc, dec;
    single_block(&enc, TIER1_STYLE_BYPASS);
    single_block(&dec, TIER1_STYLE_BYPASS);
    enc.resolutions[0].precincts[0].bands[0].blocks[0].source = &b;
    byte_buffer out = {0};
    packet_write_options o = {.num_layers = 4};
    for (unsigned l = 0; l < 4; l++)
        REQUIRE(packet_write(&enc.resolutions[0].precincts[0], 1, l, TIER1_STYLE_BYPASS, &o, &out,
                             &out, NULL, NULL) == GJ2K_OK);
    packet_stream st = {.data = out.data, .size = out.size};
    packet_header h = {0};
    /* Pieces per layer: [0-4]; [5-9] [10]; [11] [12]; [13-14] [15]. */
    static const unsigned pieces[4] = {1, 2, 2, 2};
    tile_codeblock *got = &dec.resolutions[0].precincts[0].bands[0].blocks[0];
    for (unsigned l = 0; l < 4; l++) {
        REQUIRE(packet_read(&h, &dec.resolutions[0].precincts[0], 1, l, TIER1_STYLE_BYPASS, false,
                            false, &st, &st, NULL) == GJ2K_OK);
        CHECK_EQ(h.num_pieces, pieces[l]);
        const packet_contribution *c = &h.contributions[0];
        REQUIRE(tile_codeblock_append(c->block, c->data, c->bytes, &h.pieces[c->first_piece],
                                      (unsigned)c->num_pieces, 0, TIER1_STYLE_BYPASS,
                                      NULL) == GJ2K_OK);
    }
    CHECK_EQ(st.position, out.size);
    /* Segments: [0-9] [10-11] [12] [13-14] [15]. */
    static const unsigned seg_passes[5] = {10, 2, 1, 2, 1};
    REQUIRE(got->num_segments == 5);
    for (unsigned i = 0; i < 5; i++) {
        CHECK_EQ(got->segments[i].num_passes, seg_passes[i]);
        CHECK_EQ(got->segments[i].length, 3 * seg_passes[i]);
    }
    CHECK(block_matches(got, &b, 4, TIER1_STYLE_BYPASS));
    packet_header_free(&h);
    byte_buffer_free(&out);
    tile_component_free(&enc);
    tile_component_free(&dec);
}

/* Writes every packet of one component in LRCP, then reads them back. */
static void test_packet_round_trip_random(void)
{
    for (int round = 0; round < 150; round++) {
        tile_component *enc = random_components(random_tile(50, 70), 1, 3, 0);
        tile_component *dec = xcalloc(1, sizeof *dec);
        REQUIRE(tile_component_init(dec, enc->tile, enc->dx, enc->dy, &enc->coding, 0, NULL) == GJ2K_OK);
        unsigned layers = rnd(1, 5), style = enc->coding.code_block_style;
        size_t n = list_blocks(enc, NULL);
        tile_codeblock **eb = xcalloc(n, sizeof *eb), **db = xcalloc(n, sizeof *db);
        list_blocks(enc, eb);
        list_blocks(dec, db);
        fake_block *fakes = xcalloc(n, sizeof *fakes);
        for (size_t i = 0; i < n; i++) {
            fake_block_make(&fakes[i], layers, 40);
            eb[i]->source = &fakes[i].source;
        }
        packet_write_options o = {.num_layers = layers, .use_sop = rnd(0, 1), .use_eph = rnd(0, 1)};
        bool packed = rnd(0, 1);
        byte_buffer body = {0}, heads = {0};
        for (unsigned l = 0; l < layers; l++)
            for (unsigned r = 0; r < enc->num_resolutions; r++)
                for (uint32_t k = 0; k < tile_resolution_num_precincts(&enc->resolutions[r]); k++) {
                    REQUIRE(packet_write(&enc->resolutions[r].precincts[k], enc->resolutions[r].num_bands,
                                         l, style, &o, packed ? &heads : &body, &body, NULL,
                                         NULL) == GJ2K_OK);
                    o.sequence++;
                }
        packet_stream bs = {.data = body.data, .size = body.size};
        packet_stream hs = {.data = heads.data, .size = heads.size};
        packet_header h = {0};
        uint16_t sequence = 0;
        for (unsigned l = 0; l < layers; l++)
            for (unsigned r = 0; r < dec->num_resolutions; r++)
                for (uint32_t k = 0; k < tile_resolution_num_precincts(&dec->resolutions[r]); k++) {
                    gj2k_error e = {0};
                    REQUIRE(packet_read(&h, &dec->resolutions[r].precincts[k],
                                        dec->resolutions[r].num_bands, l, style, o.use_sop,
                                        o.use_eph, packed ? &hs : &bs, &bs, &e) == GJ2K_OK);
                    CHECK(h.sop_found == o.use_sop && (!o.use_sop || h.sop_sequence == sequence));
                    CHECK(!h.eph_missing);
                    sequence++;
                    for (size_t i = 0; i < h.num_contributions; i++) {
                        const packet_contribution *c = &h.contributions[i];
                        REQUIRE(tile_codeblock_append(c->block, c->data, c->bytes,
                                                      &h.pieces[c->first_piece],
                                                      (unsigned)c->num_pieces, 0, style,
                                                      NULL) == GJ2K_OK);
                    }
                }
        CHECK_EQ(bs.position, body.size);
        CHECK_EQ(hs.position, heads.size);
        for (size_t i = 0; i < n; i++)
            CHECK(block_matches(db[i], &fakes[i].source, layers, style));
        for (size_t i = 0; i < n; i++)
            fake_block_free(&fakes[i]);
        free(fakes);
        free(eb);
        free(db);
        packet_header_free(&h);
        byte_buffer_free(&body);
        byte_buffer_free(&heads);
        free_components(enc, 1);
        free_components(dec, 1);
    }
}

/* ------------------------------------------------------------ whole tiles */

typedef struct fake_tile {
    uint32_t nc;
    tile_component *enc;
    fake_block **fakes; /* per component, in list_blocks order */
    size_t *counts;
    tier2_encode_params params;
    j2k_progression_change pocs[2];
    byte_buffer data, headers;
    bool packed;
} fake_tile;

static void fake_tile_make(fake_tile *f)
{
    memset(f, 0, sizeof *f);
    f->nc = rnd(1, 3);
    f->enc = random_components(random_tile(60, 64), f->nc, 3, 0);
    f->fakes = xcalloc(f->nc, sizeof *f->fakes);
    f->counts = xcalloc(f->nc, sizeof *f->counts);
    f->params.num_layers = (uint16_t)rnd(1, 4);
    f->params.progression = (uint8_t)rnd(0, 4);
    f->params.use_sop = rnd(0, 1);
    f->params.use_eph = rnd(0, 1);
    if (rnd(0, 2) == 0) { /* a POC that covers some packets; the rest follow */
        f->pocs[0] = (j2k_progression_change){.resolution_start = 0, .component_start = 0,
                                              .layer_end = 1, .resolution_end = 2,
                                              .component_end = f->nc, .progression = (uint8_t)rnd(0, 4)};
        f->params.changes = f->pocs;
        f->params.num_changes = 1;
    }
    for (uint32_t c = 0; c < f->nc; c++) {
        f->counts[c] = list_blocks(&f->enc[c], NULL);
        tile_codeblock **blocks = xcalloc(f->counts[c], sizeof *blocks);
        list_blocks(&f->enc[c], blocks);
        f->fakes[c] = xcalloc(f->counts[c], sizeof **f->fakes);
        for (size_t i = 0; i < f->counts[c]; i++) {
            fake_block_make(&f->fakes[c][i], f->params.num_layers, 30);
            blocks[i]->source = &f->fakes[c][i].source;
        }
        free(blocks);
    }
    f->packed = rnd(0, 2) == 0;
    gj2k_error e = {0};
    j2k_packet_lengths lengths = {0};
    gj2k_status s = tier2_encode_tile(f->enc, f->nc, &f->params, &f->data,
                                      f->packed ? &f->headers : NULL, &lengths, &e);
    if (s != GJ2K_OK) {
        fprintf(stderr, "tier2_encode_tile: %s\n", e.message);
        exit(1);
    }
    size_t sum = 0, precincts = 0;
    for (size_t i = 0; i < lengths.count; i++)
        sum += lengths.lengths[i];
    for (uint32_t c = 0; c < f->nc; c++)
        precincts += f->enc[c].num_precincts;
    CHECK_EQ(sum, f->data.size);
    CHECK_EQ(lengths.count, precincts * f->params.num_layers);
    if (f->params.use_sop && lengths.count > 0)
        CHECK(f->data.data[0] == 0xFF && f->data.data[1] == 0x91);
    free(lengths.lengths);
}

static void fake_tile_free(fake_tile *f)
{
    for (uint32_t c = 0; c < f->nc; c++) {
        for (size_t i = 0; i < f->counts[c]; i++)
            fake_block_free(&f->fakes[c][i]);
        free(f->fakes[c]);
    }
    free(f->fakes);
    free(f->counts);
    free_components(f->enc, f->nc);
    byte_buffer_free(&f->data);
    byte_buffer_free(&f->headers);
}

static tile_component *fresh_components(const fake_tile *f, unsigned reduce)
{
    tile_component *dec = xcalloc(f->nc, sizeof *dec);
    for (uint32_t c = 0; c < f->nc; c++)
        if (tile_component_init(&dec[c], f->enc[c].tile, f->enc[c].dx, f->enc[c].dy,
                                &f->enc[c].coding, reduce, NULL) != GJ2K_OK)
            exit(1);
    return dec;
}

static void count_warning(void *user, const char *message)
{
    (void)message;
    ++*(int *)user;
}

static tier2_decode_params decode_params(const fake_tile *f, const j2k_bytes *parts, size_t nparts,
                                         int *warnings)
{
    return (tier2_decode_params){
        .tile_parts = parts, .num_tile_parts = nparts,
        .packed_headers = f->packed ? f->headers.data : NULL,
        .packed_headers_size = f->headers.size, .num_layers = f->params.num_layers,
        .progression = f->params.progression, .changes = f->params.changes,
        .num_changes = f->params.num_changes, .use_sop = f->params.use_sop,
        .use_eph = f->params.use_eph, .warning = count_warning, .warning_user = warnings};
}

/* A tile's packets (without packed headers) are the sum of its precincts'
 * as tier2_measure_precinct measures them, in every progression, with POCs,
 * SOP and EPH and up to 4 layers (what rate control relies on); a precinct
 * out of range is refused. */
static void test_precincts_sum_to_tile(void)
{
    for (int round = 0; round < 150; round++) {
        fake_tile f;
        fake_tile_make(&f);
        byte_buffer data = {0};
        gj2k_error e = {0};
        REQUIRE(tier2_encode_tile(f.enc, f.nc, &f.params, &data, NULL, NULL, &e) == GJ2K_OK);
        size_t sum = 0;
        for (uint32_t c = 0; c < f.nc; c++)
            for (unsigned r = 0; r < f.enc[c].num_resolutions; r++)
                for (uint32_t k = 0; k < tile_resolution_num_precincts(&f.enc[c].resolutions[r]);
                     k++) {
                    size_t bytes = SIZE_MAX;
                    REQUIRE(tier2_measure_precinct(&f.enc[c], r, k, &f.params, &bytes, &e) ==
                            GJ2K_OK);
                    sum += bytes;
                }
        CHECK_EQ(sum, data.size);
        size_t bytes = 0;
        uint32_t past = tile_resolution_num_precincts(&f.enc[0].resolutions[0]);
        CHECK(tier2_measure_precinct(&f.enc[0], 0, past, &f.params, &bytes, &e) ==
              GJ2K_ERROR_INVALID_ARGUMENT);
        byte_buffer_free(&data);
        fake_tile_free(&f);
    }
}

static void test_tile_round_trip(void)
{
    for (int round = 0; round < 150; round++) {
        fake_tile f;
        fake_tile_make(&f);
        unsigned reduce = rnd(0, 2), max_layers = rnd(0, f.params.num_layers);
        tile_component *dec = fresh_components(&f, reduce);
        /* Split the data into up to 3 tile-parts anywhere. */
        j2k_bytes parts[3];
        size_t cut1 = rnd(0, (unsigned)f.data.size), cut2 = rnd((unsigned)cut1, (unsigned)f.data.size);
        parts[0] = (j2k_bytes){f.data.data, cut1};
        parts[1] = (j2k_bytes){f.data.size ? f.data.data + cut1 : NULL, cut2 - cut1};
        parts[2] = (j2k_bytes){f.data.size ? f.data.data + cut2 : NULL, f.data.size - cut2};
        int warnings = 0;
        tier2_decode_params p = decode_params(&f, parts, 3, &warnings);
        p.max_layers = max_layers;
        tier2_decode_stats stats;
        gj2k_error e = {0};
        REQUIRE(tier2_decode_tile(dec, f.nc, &p, &stats, &e) == GJ2K_OK);
        CHECK_EQ(warnings, 0);
        CHECK(!stats.damaged);
        unsigned layers = max_layers == 0 ? f.params.num_layers : max_layers;
        uint8_t mb[3][3 * 3 + 1];
        const uint8_t *mbp[3];
        for (uint32_t c = 0; c < f.nc; c++) {
            memset(mb[c], 30, sizeof mb[c]);
            mbp[c] = mb[c];
            tile_codeblock **blocks = xcalloc(f.counts[c], sizeof *blocks);
            list_blocks(&dec[c], blocks);
            size_t i = 0;
            for (unsigned r = 0; r < dec[c].num_resolutions; r++) {
                bool kept = dec[c].resolutions[r].keep_data;
                CHECK(kept == (r + reduce <= dec[c].coding.levels));
                size_t end = i;
                for (uint32_t k = 0; k < tile_resolution_num_precincts(&dec[c].resolutions[r]); k++)
                    for (unsigned b = 0; b < dec[c].resolutions[r].num_bands; b++)
                        end += (size_t)dec[c].resolutions[r].precincts[k].bands[b].blocks_wide *
                               dec[c].resolutions[r].precincts[k].bands[b].blocks_high;
                for (; i < end; i++)
                    CHECK(block_matches(blocks[i], &f.fakes[c][i].source, kept ? layers : 0,
                                        dec[c].coding.code_block_style));
            }
            free(blocks);
        }
        tier2_block *out;
        size_t count;
        REQUIRE(tier2_collect_blocks(dec, f.nc, mbp, NULL, NULL, &out, &count, &e) == GJ2K_OK);
        size_t expected = 0;
        for (uint32_t c = 0; c < f.nc; c++)
            for (unsigned r = 0; r + reduce <= dec[c].coding.levels; r++)
                for (uint32_t k = 0; k < tile_resolution_num_precincts(&dec[c].resolutions[r]); k++)
                    for (unsigned b = 0; b < dec[c].resolutions[r].num_bands; b++)
                        expected += (size_t)dec[c].resolutions[r].precincts[k].bands[b].blocks_wide *
                                    dec[c].resolutions[r].precincts[k].bands[b].blocks_high;
        CHECK_EQ(count, expected);
        for (size_t i = 0; i < count; i++) {
            uint32_t passes = 0;
            for (unsigned s = 0; s < out[i].num_segments; s++)
                passes += out[i].segments[s].num_passes;
            CHECK(out[i].num_segments == 0 || out[i].num_planes <= 30);
            CHECK(out[i].num_segments > 0 || out[i].size == 0);
            CHECK(passes <= 30);
        }
        free(out);
        free_components(dec, f.nc);
        fake_tile_free(&f);
    }
}

/* Truncated and corrupted data: never a crash or an error, what is kept is a
 * prefix of the truth (truncation) or at least self-consistent (flips). */
static void test_tile_damaged_data(void)
{
    for (int round = 0; round < 200; round++) {
        fake_tile f;
        fake_tile_make(&f);
        bool flip = rnd(0, 1);
        byte_buffer *target = f.packed && rnd(0, 1) ? &f.headers : &f.data;
        size_t keep = target->size;
        if (!flip)
            keep = rnd(0, (unsigned)target->size);
        else
            for (unsigned n = rnd(1, 4); n > 0 && target->size > 0; n--)
                target->data[rnd(0, (unsigned)target->size - 1)] ^= (uint8_t)rnd(1, 255);
        uint8_t *copy = xcalloc(keep, 1);
        if (keep > 0)
            memcpy(copy, target->data, keep);
        j2k_bytes part = {target == &f.data ? copy : f.data.data, target == &f.data ? keep : f.data.size};
        int warnings = 0;
        tier2_decode_params p = decode_params(&f, &part, 1, &warnings);
        if (target == &f.headers) {
            p.packed_headers = copy;
            p.packed_headers_size = keep;
        }
        tile_component *dec = fresh_components(&f, 0);
        tier2_decode_stats stats;
        gj2k_error e = {0};
        REQUIRE(tier2_decode_tile(dec, f.nc, &p, &stats, &e) == GJ2K_OK);
        CHECK(!stats.damaged || warnings > 0);
        for (uint32_t c = 0; c < f.nc; c++) {
            tile_codeblock **blocks = xcalloc(f.counts[c], sizeof *blocks);
            list_blocks(&dec[c], blocks);
            for (size_t i = 0; i < f.counts[c]; i++) {
                const tile_codeblock *b = blocks[i];
                size_t bytes = 0;
                unsigned passes = 0;
                for (unsigned s = 0; s < b->num_segments; s++) {
                    bytes += b->segments[s].length;
                    passes += b->segments[s].num_passes;
                }
                CHECK(bytes == b->size && passes == b->passes_received);
                if (!flip && b->size > 0) /* a prefix of the block's true bytes */
                    CHECK(memcmp(b->data, f.fakes[c][i].data, b->size) == 0);
            }
            free(blocks);
        }
        free(copy);
        free_components(dec, f.nc);
        fake_tile_free(&f);
    }
}

/* A body cut inside a packet's SOP marker segment (A.8.1) is truncation,
 * never code-block data: with packed headers the header reads whole, and
 * the bytes of a cut SOP must not reach the block. */
static void test_sop_cut_short(void)
{
    static const uint8_t bytes[4] = {0x52, 0x13, 0x40, 0x07};
    size_t lengths[1] = {4};
    uint8_t layer_passes[1] = {1};
    tile_codeblock_source source = {.data = bytes, .pass_lengths = lengths, .num_passes = 1,
                                    .layer_passes = layer_passes};
    for (size_t keep = 0; keep <= 10; keep++) {
        tile_component enc, dec;
        single_block(&enc, 0);
        single_block(&dec, 0);
        enc.resolutions[0].precincts[0].bands[0].blocks[0].source = &source;
        byte_buffer heads = {0}, body = {0};
        packet_write_options o = {.num_layers = 1, .use_sop = true};
        REQUIRE(packet_write(&enc.resolutions[0].precincts[0], 1, 0, 0, &o, &heads, &body, NULL,
                             NULL) == GJ2K_OK);
        REQUIRE(body.size == 10); /* SOP (6), then the block's 4 bytes */
        packet_stream hs = {.data = heads.data, .size = heads.size};
        packet_stream bs = {.data = body.data, .size = keep};
        packet_header h = {0};
        gj2k_status status = packet_read(&h, &dec.resolutions[0].precincts[0], 1, 0, 0, true,
                                         false, &hs, &bs, NULL);
        CHECK_EQ(status, keep == 10 ? GJ2K_OK : GJ2K_ERROR_TRUNCATED);
        CHECK_EQ(h.num_complete, keep == 10 ? 1u : 0u);
        if (keep == 10)
            CHECK(h.contributions[0].bytes == 4 &&
                  memcmp(h.contributions[0].data, bytes, 4) == 0);
        packet_header_free(&h);
        byte_buffer_free(&heads);
        byte_buffer_free(&body);
        tile_component_free(&enc);
        tile_component_free(&dec);
    }
}

static const test_case cases[] = {
    {"precincts_sum_to_tile", test_precincts_sum_to_tile},
    {"tag_tree_hand_example", test_tag_tree_hand_example},
    {"tag_tree_round_trip_random", test_tag_tree_round_trip_random},
    {"bit_stuffing", test_bit_stuffing},
    {"pass_count_codes", test_pass_count_codes},
    {"segment_lengths_by_style", test_segment_lengths_by_style},
    {"packet_round_trip_random", test_packet_round_trip_random},
    {"tile_round_trip", test_tile_round_trip},
    {"tile_damaged_data", test_tile_damaged_data},
    {"sop_cut_short", test_sop_cut_short},
};

TEST_MAIN(cases)
