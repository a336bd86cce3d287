/* test_markers.c - the marker segments of Annex A: every segment's reader
 * against its writer, rejection of invalid fields, the precedence of A.6
 * and the index segments (PPM, PPT, PLM, PLT, TLM). Whole codestreams:
 * test_codestream.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "codestream_test_support.h"
#include "test_harness.h"

/* ------------------------------------------------------------ helpers */

/* The parameters of the segment that `buffer` holds, checking its length. */
static bool segment_body(const byte_buffer *buffer, size_t start, uint16_t marker,
                         byte_reader *body)
{
    if (buffer->failed || buffer->size - start < 4)
        return false;
    const uint8_t *p = buffer->data + start;
    size_t length = (size_t)(p[2] << 8 | p[3]);
    if ((p[0] << 8 | p[1]) != marker || length != buffer->size - start - 2)
        return false;
    *body = (byte_reader){p + 4, length - 2, 0};
    return true;
}

/* A reader over hand-made parameters. */
static byte_reader bytes_reader(const uint8_t *bytes, size_t size)
{
    return (byte_reader){bytes, size, 0};
}

/* ---------------------------------------------------------------- SIZ */

static void siz_round_trip(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t components = iteration == 0   ? J2K_MAX_COMPONENTS
                              : iteration == 1 ? 257
                                               : (uint32_t)test_random_range(1, 300);
        j2k_siz siz = random_siz(components, J2K_MAX_TILES);
        siz.capabilities = (uint16_t)test_random();
        if (iteration == 2)
            siz.components[0].precision = 38, siz.components[0].is_signed = true;
        byte_buffer out = {0};
        gj2k_error error = {0};
        REQUIRE(j2k_siz_write(&out, &siz, &error) == GJ2K_OK);
        byte_reader body;
        REQUIRE(segment_body(&out, 0, J2K_SIZ, &body));
        CHECK_EQ(out.size, 40 + 3 * components); /* Lsiz = 38 + 3 Csiz, plus the marker */
        j2k_siz back;
        REQUIRE(j2k_siz_read(&body, &back, &error) == GJ2K_OK);
        CHECK(back.capabilities == siz.capabilities && back.image_x1 == siz.image_x1 &&
              back.image_y1 == siz.image_y1 && back.image_x0 == siz.image_x0 &&
              back.image_y0 == siz.image_y0 && back.tile_width == siz.tile_width &&
              back.tile_height == siz.tile_height && back.tile_x0 == siz.tile_x0 &&
              back.tile_y0 == siz.tile_y0 && back.num_components == components);
        for (uint32_t c = 0; c < components; c++)
            CHECK(back.components[c].precision == siz.components[c].precision &&
                  back.components[c].is_signed == siz.components[c].is_signed &&
                  back.components[c].dx == siz.components[c].dx &&
                  back.components[c].dy == siz.components[c].dy);
        /* Eq. B-5, and the tiles cover the image exactly. */
        uint64_t across = ((uint64_t)siz.image_x1 - siz.tile_x0 + siz.tile_width - 1) / siz.tile_width;
        CHECK_EQ(back.tiles_across, across);
        uint64_t area = 0;
        for (uint32_t t = 0; t < back.num_tiles; t += 1 + back.num_tiles / 50) {
            dwt_rect r = j2k_tile_rect(&back, t);
            CHECK(r.x0 < r.x1 && r.y0 < r.y1);
        }
        for (uint32_t t = 0; t < back.tiles_across; t++) {
            dwt_rect r = j2k_tile_rect(&back, t);
            area += r.x1 - r.x0;
        }
        CHECK_EQ(area, siz.image_x1 - siz.image_x0);
        j2k_siz_free(&back);
        j2k_siz_free(&siz);
        byte_buffer_free(&out);
    }
}

/* Parses SIZ parameters after patching one 32-bit field or one byte. */
static void expect_siz_error(const uint8_t *base, size_t size, size_t at, uint32_t value,
                             int width, gj2k_status status, const char *message)
{
    uint8_t bytes[64];
    memcpy(bytes, base, size);
    for (int i = 0; i < width; i++)
        bytes[at + (size_t)i] = (uint8_t)(value >> (8 * (width - 1 - i)));
    byte_reader r = bytes_reader(bytes, size);
    j2k_siz siz;
    gj2k_error error = {0};
    CHECK(j2k_siz_read(&r, &siz, &error) == status);
    if (!contains(error.message, message))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", error.message, message);
    CHECK(contains(error.message, message));
}

static void siz_rejects_invalid(void)
{
    /* 100x80 at (0,0), tiles 64x64 from (0,0), one 8-bit component. */
    const uint8_t good[] = {0, 0, 0, 0, 0, 100, 0, 0, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7, 1, 1};
    byte_reader r = bytes_reader(good, sizeof good);
    j2k_siz siz;
    REQUIRE(j2k_siz_read(&r, &siz, NULL) == GJ2K_OK);
    CHECK(siz.num_tiles == 4 && siz.tiles_across == 2 && siz.tiles_down == 2);
    j2k_siz_free(&siz);
    size_t n = sizeof good;
    expect_siz_error(good, n, 18, 0, 4, GJ2K_ERROR_MALFORMED, "tile width 0");
    expect_siz_error(good, n, 22, 0, 4, GJ2K_ERROR_MALFORMED, "tile height 0");
    expect_siz_error(good, n, 10, 100, 4, GJ2K_ERROR_MALFORMED, "empty image");
    expect_siz_error(good, n, 26, 5, 4, GJ2K_ERROR_MALFORMED, "XTOsiz 5 > XOsiz 0");
    expect_siz_error(good, n, 34, 0, 2, GJ2K_ERROR_MALFORMED, "0 components");
    expect_siz_error(good, n, 34, 20000, 2, GJ2K_ERROR_MALFORMED, "20000 components");
    expect_siz_error(good, n, 34, 2, 2, GJ2K_ERROR_MALFORMED, "does not match 2 components");
    expect_siz_error(good, n, 36, 38, 1, GJ2K_ERROR_MALFORMED, "precision 39");
    expect_siz_error(good, n, 37, 0, 1, GJ2K_ERROR_MALFORMED, "subsampling 0x1");
    /* 1x1 tiles over 1000x1000: a million tiles. */
    uint8_t many[sizeof good];
    memcpy(many, good, n);
    many[4] = 0x03, many[5] = 0xE8, many[8] = 0x03, many[9] = 0xE8;
    many[21] = 1, many[25] = 1;
    expect_siz_error(many, n, 21, 1, 1, GJ2K_ERROR_LIMIT, "1000000 tiles");
    /* XTOsiz + XTsiz <= XOsiz: the first tile column misses the image. */
    uint8_t offset[sizeof good];
    memcpy(offset, good, n);
    offset[13] = 70; /* XOsiz 70, Xsiz 100, tiles 64 from 0 */
    expect_siz_error(offset, n, 0, 0, 2, GJ2K_ERROR_MALFORMED, "first tile column");
}

/* ------------------------------------------------------- COD and COC */

static void coding_style_round_trip(void)
{
    for (int iteration = 0; iteration < 400; iteration++) {
        unsigned levels = iteration % 3 == 0 ? 0 : iteration % 3 == 1 ? 32
                                                                         : (unsigned)test_random_range(0, 32);
        j2k_cod cod = random_cod(levels);
        cod.progression = (uint8_t)(iteration % 5);
        byte_buffer out = {0};
        gj2k_error error = {0};
        REQUIRE(j2k_cod_write(&out, &cod, &error) == GJ2K_OK);
        /* Lcod = 12, or 13 + NL with precincts (Table A.12). */
        CHECK_EQ(out.size - 2, cod.coding.precincts_defined ? 13 + levels : 12);
        byte_reader body;
        REQUIRE(segment_body(&out, 0, J2K_COD, &body));
        j2k_cod back;
        REQUIRE(j2k_cod_read(&body, &back, &error) == GJ2K_OK);
        CHECK(cod_equal(&cod, &back));
        byte_buffer_free(&out);

        uint32_t components = rand_bool() ? (uint32_t)test_random_range(1, 256)
                                          : (uint32_t)test_random_range(257, 16384);
        j2k_coc coc = {.component = (uint32_t)test_random_range(0, components - 1),
                       .coding = random_coding(levels)};
        REQUIRE(j2k_coc_write(&out, &coc, components, &error) == GJ2K_OK);
        size_t component_bytes = components < 257 ? 1 : 2;
        CHECK_EQ(out.size - 2, 8 + component_bytes + (coc.coding.precincts_defined ? levels + 1 : 0));
        REQUIRE(segment_body(&out, 0, J2K_COC, &body));
        j2k_coc coc_back;
        REQUIRE(j2k_coc_read(&body, components, &coc_back, &error) == GJ2K_OK);
        CHECK(coc_back.component == coc.component && coding_equal(&coc.coding, &coc_back.coding));
        byte_buffer_free(&out);
    }
}

static void expect_cod_error(const uint8_t *bytes, size_t size, gj2k_status status,
                             const char *message)
{
    byte_reader r = bytes_reader(bytes, size);
    j2k_cod cod;
    gj2k_error error = {0};
    CHECK(j2k_cod_read(&r, &cod, &error) == status);
    if (!contains(error.message, message))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", error.message, message);
    CHECK(contains(error.message, message));
}

static void coding_style_rejects_invalid(void)
{
    /* Scod, progression, layers (2), MCT, NL, xcb-2, ycb-2, style, transform [, precincts]. */
    const uint8_t good[] = {0x01, 0, 0, 1, 0, 1, 4, 4, 0, 1, 0x00, 0x55};
    byte_reader r = bytes_reader(good, sizeof good);
    j2k_cod cod;
    REQUIRE(j2k_cod_read(&r, &cod, NULL) == GJ2K_OK);
    CHECK(cod.coding.precinct_width_log2[0] == 0 && cod.coding.precinct_width_log2[1] == 5);
    uint8_t b[sizeof good];
#define PATCH(index, value) (memcpy(b, good, sizeof good), b[index] = (value), b)
    expect_cod_error(PATCH(5, 40), sizeof good, GJ2K_ERROR_MALFORMED,
                     "COD: 40 decomposition levels (at most 32)");
    expect_cod_error(PATCH(1, 5), sizeof good, GJ2K_ERROR_MALFORMED, "progression order 5");
    expect_cod_error(PATCH(3, 0), sizeof good, GJ2K_ERROR_MALFORMED, "0 quality layers");
    expect_cod_error(PATCH(4, 2), sizeof good, GJ2K_ERROR_UNSUPPORTED,
                     "multiple component transform 2");
    expect_cod_error(PATCH(5, 2), sizeof good, GJ2K_ERROR_MALFORMED, "3 precinct sizes");
    expect_cod_error(PATCH(6, 9), sizeof good, GJ2K_ERROR_MALFORMED, "code-block width 2^11");
    expect_cod_error(PATCH(7, 7), sizeof good, GJ2K_ERROR_MALFORMED, "xcb + ycb at most 12");
    expect_cod_error(PATCH(9, 2), sizeof good, GJ2K_ERROR_UNSUPPORTED, "wavelet transform 2");
    /* T.814 Table A.4: bit 6 (HT) and bits 6-7 (mixed) parse; bit 7 alone is reserved. */
    expect_cod_error(PATCH(8, 0x80), sizeof good, GJ2K_ERROR_MALFORMED, "bit 7 without bit 6");
    for (unsigned style = 0x40; style <= 0xC0; style += 0x80) {
        r = bytes_reader(PATCH(8, (uint8_t)style), sizeof good);
        REQUIRE(j2k_cod_read(&r, &cod, NULL) == GJ2K_OK);
        CHECK(cod.coding.code_block_style == style);
    }
    expect_cod_error(PATCH(0, 0x09), sizeof good, GJ2K_ERROR_UNSUPPORTED, "Scod 0x09");
    expect_cod_error(PATCH(11, 0x50), sizeof good, GJ2K_ERROR_MALFORMED,
                     "precinct exponent 0 at resolution 1");
    expect_cod_error(PATCH(11, 0x05), sizeof good, GJ2K_ERROR_MALFORMED,
                     "precinct exponent 0 at resolution 1");
    expect_cod_error(PATCH(0, 0x00), sizeof good, GJ2K_ERROR_MALFORMED, "2 unexplained bytes");
    expect_cod_error(good, 7, GJ2K_ERROR_MALFORMED, "too short");
#undef PATCH
    /* COC: 16-bit Ccoc when Csiz >= 257, and the index must be below Csiz. */
    const uint8_t coc_bytes[] = {0x01, 0x2C, 0x00, 3, 4, 4, 0, 1};
    r = bytes_reader(coc_bytes, sizeof coc_bytes);
    j2k_coc coc;
    REQUIRE(j2k_coc_read(&r, 301, &coc, NULL) == GJ2K_OK);
    CHECK(coc.component == 300 && coc.coding.levels == 3);
    r = bytes_reader(coc_bytes, sizeof coc_bytes);
    gj2k_error error = {0};
    CHECK(j2k_coc_read(&r, 300, &coc, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "COC: component 300 (the image has 300)"));
    r = bytes_reader(coc_bytes, sizeof coc_bytes); /* as 8-bit Ccoc: Scoc 0x2C */
    CHECK(j2k_coc_read(&r, 3, &coc, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "Scoc 0x2C"));
    /* The writer applies the same rules. */
    j2k_cod bad = random_cod(5);
    bad.layers = 0;
    byte_buffer out = {0};
    CHECK(j2k_cod_write(&out, &bad, &error) == GJ2K_ERROR_MALFORMED);
    bad = random_cod(5);
    bad.coding.code_block_width_log2 = 1;
    CHECK(j2k_cod_write(&out, &bad, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(out.size == 0);
    byte_buffer_free(&out);
}

/* ------------------------------------------------------- QCD and QCC */

static void quantization_round_trip(void)
{
    for (int iteration = 0; iteration < 300; iteration++) {
        unsigned levels = iteration % 3 == 0 ? 0 : iteration % 3 == 1 ? 32
                                                                         : (unsigned)test_random_range(0, 32);
        j2k_quantization q = random_quantization(levels);
        q.style = (uint8_t)(iteration / 3 % 3);
        q = (j2k_quantization){.style = q.style, .guard_bits = q.guard_bits};
        q.num_steps = (uint8_t)(q.style == J2K_QUANT_DERIVED ? 1 : 3 * levels + 1);
        for (unsigned i = 0; i < q.num_steps; i++)
            q.steps[i] = (quant_step){(uint8_t)test_random_range(levels ? levels - 1 : 0, 31),
                                      q.style ? (uint16_t)test_random_range(0, 2047) : 0};
        byte_buffer out = {0};
        gj2k_error error = {0};
        REQUIRE(j2k_qcd_write(&out, &q, &error) == GJ2K_OK);
        /* Lqcd: 4 + 3 NL, 5, or 5 + 6 NL (Table A.27). */
        size_t expected = q.style == 0 ? 4 + 3 * levels : q.style == 1 ? 5 : 5 + 6 * levels;
        CHECK_EQ(out.size - 2, expected);
        byte_reader body;
        REQUIRE(segment_body(&out, 0, J2K_QCD, &body));
        j2k_quantization back;
        REQUIRE(j2k_qcd_read(&body, &back, &error) == GJ2K_OK);
        CHECK(quantization_equal(&q, &back));
        /* Expanded to 3 NL + 1 subbands; derived ones follow eq. E-5. */
        quant_step steps[J2K_MAX_SUBBANDS];
        REQUIRE(j2k_quantization_expand(&back, levels, steps, &error) == GJ2K_OK);
        for (unsigned b = 0; b < 3 * levels + 1; b++) {
            unsigned band_level = b == 0 ? levels : levels - (b - 1) / 3;
            quant_step want = q.style == J2K_QUANT_DERIVED
                                  ? (quant_step){(uint8_t)(q.steps[0].exponent - levels + band_level),
                                                 q.steps[0].mantissa}
                                  : q.steps[b];
            CHECK(steps[b].exponent == want.exponent && steps[b].mantissa == want.mantissa);
        }
        if (q.style != J2K_QUANT_DERIVED && levels < 32) {
            CHECK(j2k_quantization_expand(&back, levels + 1, steps, &error) ==
                  GJ2K_ERROR_MALFORMED);
            CHECK(contains(error.message, "step sizes for"));
        }
        byte_buffer_free(&out);

        uint32_t components = (uint32_t)test_random_range(1, 600);
        j2k_qcc qcc = {.component = (uint32_t)test_random_range(0, components - 1),
                       .quantization = q};
        REQUIRE(j2k_qcc_write(&out, &qcc, components, &error) == GJ2K_OK);
        CHECK_EQ(out.size - 2, expected + (components < 257 ? 1 : 2));
        REQUIRE(segment_body(&out, 0, J2K_QCC, &body));
        j2k_qcc qcc_back;
        REQUIRE(j2k_qcc_read(&body, components, &qcc_back, &error) == GJ2K_OK);
        CHECK(qcc_back.component == qcc.component &&
              quantization_equal(&qcc.quantization, &qcc_back.quantization));
        byte_buffer_free(&out);
    }
}

static void expect_qcd_error(const uint8_t *bytes, size_t size, const char *message)
{
    byte_reader r = bytes_reader(bytes, size);
    j2k_quantization q;
    gj2k_error error = {0};
    CHECK(j2k_qcd_read(&r, &q, &error) == GJ2K_ERROR_MALFORMED);
    if (!contains(error.message, message))
        fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", error.message, message);
    CHECK(contains(error.message, message));
}

static void quantization_rejects_invalid(void)
{
    const uint8_t style3[] = {0x43, 0x48};
    expect_qcd_error(style3, 2, "QCD: quantization style 3");
    const uint8_t odd[] = {0x42, 0x48, 0x00, 0x50};
    expect_qcd_error(odd, 4, "3 bytes of step sizes");
    const uint8_t derived_two[] = {0x41, 0x48, 0x00, 0x50, 0x00};
    expect_qcd_error(derived_two, 5, "derived quantization with 2 step sizes");
    const uint8_t empty[] = {0x42};
    expect_qcd_error(empty, 1, "0 bytes of step sizes");
    uint8_t too_many[1 + 98];
    memset(too_many, 0x40, sizeof too_many);
    too_many[0] = 0x20;
    expect_qcd_error(too_many, sizeof too_many, "98 step sizes");
    /* Derived exponents below 0 (eq. E-5) cannot be expanded. */
    j2k_quantization derived = {.style = J2K_QUANT_DERIVED, .num_steps = 1, .steps = {{2, 0}}};
    quant_step steps[J2K_MAX_SUBBANDS];
    gj2k_error error = {0};
    CHECK(j2k_quantization_expand(&derived, 5, steps, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "below 0"));
    /* Writers: a mantissa without quantization, 8 guard bits, a bad component. */
    j2k_quantization q = {.style = J2K_QUANT_NONE, .num_steps = 1, .steps = {{8, 1}}};
    byte_buffer out = {0};
    CHECK(j2k_qcd_write(&out, &q, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(contains(error.message, "mantissa"));
    q.steps[0].mantissa = 0;
    q.guard_bits = 8;
    CHECK(j2k_qcd_write(&out, &q, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    q.guard_bits = 2;
    j2k_qcc qcc = {.component = 3, .quantization = q};
    CHECK(j2k_qcc_write(&out, &qcc, 3, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(contains(error.message, "QCC: component 3"));
    CHECK(out.size == 0);
    byte_buffer_free(&out);
}

/* ------------------------------------------------------- RGN and POC */

static void region_and_progression_round_trip(void)
{
    for (int iteration = 0; iteration < 200; iteration++) {
        uint32_t components = iteration % 2 ? (uint32_t)test_random_range(1, 256)
                                            : (uint32_t)test_random_range(257, 16384);
        bool wide = components >= 257;
        j2k_rgn rgn = {.component = (uint32_t)test_random_range(0, components - 1),
                       .shift = (uint8_t)test_random_range(0, 255)};
        byte_buffer out = {0};
        gj2k_error error = {0};
        REQUIRE(j2k_rgn_write(&out, &rgn, components, &error) == GJ2K_OK);
        CHECK_EQ(out.size - 2, wide ? 6 : 5);
        byte_reader body;
        REQUIRE(segment_body(&out, 0, J2K_RGN, &body));
        j2k_rgn rgn_back;
        REQUIRE(j2k_rgn_read(&body, components, &rgn_back, &error) == GJ2K_OK);
        CHECK(rgn_back.component == rgn.component && rgn_back.shift == rgn.shift &&
              rgn_back.style == 0);
        byte_buffer_free(&out);

        size_t count = (size_t)test_random_range(1, 20);
        j2k_progression_change changes[20];
        uint32_t limit = wide ? 16384 : 256;
        for (size_t i = 0; i < count; i++) {
            j2k_progression_change *c = &changes[i];
            c->resolution_start = (uint8_t)test_random_range(0, 32);
            c->resolution_end = (uint8_t)test_random_range(c->resolution_start + 1, 33);
            c->component_start = (uint32_t)test_random_range(0, limit - 1);
            c->component_end = (uint32_t)test_random_range(c->component_start + 1, limit);
            c->layer_end = (uint16_t)test_random_range(1, 65535);
            c->progression = (uint8_t)(i % 5);
        }
        if (!wide)
            changes[0].component_end = 256; /* written as 0 (Table A.32) */
        REQUIRE(j2k_poc_write(&out, changes, count, components, &error) == GJ2K_OK);
        CHECK_EQ(out.size - 2, 2 + count * (wide ? 9 : 7));
        if (!wide)
            CHECK(out.data[4 + 5] == 0);
        REQUIRE(segment_body(&out, 0, J2K_POC, &body));
        j2k_progression_change *back = NULL;
        size_t back_count = 0;
        REQUIRE(j2k_poc_read(&body, components, &back, &back_count, &error) == GJ2K_OK);
        CHECK_EQ(back_count, count);
        for (size_t i = 0; i < count && i < back_count; i++)
            CHECK(poc_equal(&changes[i], &back[i]));
        free(back);
        byte_buffer_free(&out);
    }
    /* Rejections. */
    gj2k_error error = {0};
    const uint8_t rgn_style1[] = {0, 1, 7};
    byte_reader r = bytes_reader(rgn_style1, 3);
    j2k_rgn rgn;
    CHECK(j2k_rgn_read(&r, 3, &rgn, &error) == GJ2K_ERROR_UNSUPPORTED);
    CHECK(contains(error.message, "RGN: ROI style 1"));
    r = bytes_reader(rgn_style1, 3);
    CHECK(j2k_rgn_read(&r, 300, &rgn, &error) == GJ2K_ERROR_MALFORMED); /* 16-bit Crgn 1, Srgn 7, no SPrgn */
    /* RSpoc, CSpoc, LYEpoc, REpoc, CEpoc, Ppoc (8-bit component fields). */
    const uint8_t pocs[][7] = {{33, 0, 0, 1, 34, 3, 0}, {2, 0, 0, 1, 2, 3, 0},
                               {0, 2, 0, 1, 1, 2, 0},   {0, 0, 0, 0, 1, 3, 0},
                               {0, 0, 0, 1, 1, 3, 5}};
    const char *messages[] = {"first resolution 33", "resolution end 2", "component end 2",
                              "layer end 0", "progression order 5"};
    for (size_t i = 0; i < 5; i++) {
        r = bytes_reader(pocs[i], 7);
        j2k_progression_change *list = NULL;
        size_t n = 0;
        CHECK(j2k_poc_read(&r, 3, &list, &n, &error) == GJ2K_ERROR_MALFORMED);
        if (!contains(error.message, messages[i]))
            fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", error.message, messages[i]);
        CHECK(contains(error.message, messages[i]));
        free(list);
    }
    r = bytes_reader(pocs[0], 6);
    j2k_progression_change *list = NULL;
    size_t n = 0;
    CHECK(j2k_poc_read(&r, 3, &list, &n, &error) == GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "multiple of 7"));
    free(list);
}

/* ------------------------------------------------------- precedence */

static void precedence_resolution(void)
{
    j2k_header_params main_header = {0}, tile = {0};
    gj2k_error error = {0};
    j2k_cod main_cod = random_cod(3), tile_cod = random_cod(4);
    main_cod.coding.code_block_width_log2 = 4, main_cod.coding.code_block_height_log2 = 4;
    tile_cod.coding.code_block_width_log2 = 5, tile_cod.coding.code_block_height_log2 = 5;
    j2k_coc main_coc = {.component = 1, .coding = random_coding(2)};
    main_coc.coding.code_block_width_log2 = 6, main_coc.coding.code_block_height_log2 = 6;
    j2k_coc tile_coc = {.component = 2, .coding = random_coding(1)};
    tile_coc.coding.code_block_width_log2 = 3, tile_coc.coding.code_block_height_log2 = 3;
    j2k_quantization qcd = {.style = J2K_QUANT_DERIVED, .guard_bits = 1, .num_steps = 1,
                            .steps = {{20, 100}}};
    j2k_qcc main_qcc = {.component = 1, .quantization = qcd}, tile_qcc = {.component = 2,
                                                                          .quantization = qcd};
    main_qcc.quantization.guard_bits = 2;
    tile_qcc.quantization.guard_bits = 3;
    j2k_quantization tile_qcd = qcd;
    tile_qcd.guard_bits = 4;
    j2k_rgn rgn = {.component = 1, .shift = 9}, tile_rgn = {.component = 2, .shift = 11};
    j2k_progression_change poc = {0, 0, 1, 1, 3, J2K_CPRL};
    REQUIRE(j2k_header_set_cod(&main_header, &main_cod, &error) == GJ2K_OK);
    REQUIRE(j2k_header_set_qcd(&main_header, &qcd, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_coc(&main_header, &main_coc, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_qcc(&main_header, &main_qcc, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_rgn(&main_header, &rgn, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_pocs(&main_header, &poc, 1, &error) == GJ2K_OK);

    j2k_tile_component_params out;
    /* No tile header: main COC for component 1, main COD for 0. */
    REQUIRE(j2k_resolve_tile_component(&main_header, NULL, 0, &out, &error) == GJ2K_OK);
    CHECK(out.coding.code_block_width_log2 == 4 && out.quantization.guard_bits == 1 &&
          out.roi_shift == 0 && out.num_pocs == 1 && out.layers == main_cod.layers);
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 1, &out, &error) == GJ2K_OK);
    CHECK(out.coding.code_block_width_log2 == 6 && out.quantization.guard_bits == 2 &&
          out.roi_shift == 9 && out.coding.levels == 2);
    /* Derived steps expand over the levels in force. */
    CHECK(out.steps[0].exponent == 20 && out.steps[6].exponent == 19 &&
          out.steps[6].mantissa == 100);

    /* A tile COD overrides the main COC too; a tile COC overrides the tile COD. */
    REQUIRE(j2k_header_set_cod(&tile, &tile_cod, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_coc(&tile, &tile_coc, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 1, &out, &error) == GJ2K_OK);
    CHECK(out.coding.code_block_width_log2 == 5 && out.layers == tile_cod.layers &&
          out.progression == tile_cod.progression);
    CHECK(out.quantization.guard_bits == 2); /* no tile QCD yet: main QCC */
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 2, &out, &error) == GJ2K_OK);
    CHECK(out.coding.code_block_width_log2 == 3 && out.coding.levels == 1);
    /* Tile QCD beats main QCC; tile QCC beats tile QCD; tile RGN beats none. */
    REQUIRE(j2k_header_set_qcd(&tile, &tile_qcd, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_qcc(&tile, &tile_qcc, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_header_add_rgn(&tile, &tile_rgn, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 1, &out, &error) == GJ2K_OK);
    CHECK(out.quantization.guard_bits == 4 && out.roi_shift == 9);
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 2, &out, &error) == GJ2K_OK);
    CHECK(out.quantization.guard_bits == 3 && out.roi_shift == 11);
    /* Tile POCs replace the main ones. */
    j2k_progression_change tile_pocs[2] = {{0, 0, 2, 2, 3, J2K_RLCP}, {0, 0, 3, 4, 3, J2K_LRCP}};
    REQUIRE(j2k_header_add_pocs(&tile, tile_pocs, 2, &error) == GJ2K_OK);
    REQUIRE(j2k_resolve_tile_component(&main_header, &tile, 0, &out, &error) == GJ2K_OK);
    CHECK(out.num_pocs == 2 && out.pocs[1].layer_end == 3);
    /* A second COC for a component replaces the first. */
    bool replaced = false;
    tile_coc.coding.code_block_width_log2 = 2;
    REQUIRE(j2k_header_add_coc(&tile, &tile_coc, &replaced, &error) == GJ2K_OK);
    CHECK(replaced && tile.num_cocs == 1 && j2k_header_find_coc(&tile, 2) != NULL &&
          j2k_header_find_coc(&tile, 2)->coding.code_block_width_log2 == 2);
    /* Expounded steps that do not cover the levels are an error. */
    j2k_quantization short_q = {.style = J2K_QUANT_EXPOUNDED, .num_steps = 4};
    REQUIRE(j2k_header_set_qcd(&tile, &short_q, &error) == GJ2K_OK);
    CHECK(j2k_resolve_tile_component(&main_header, &tile, 0, &out, &error) ==
          GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "component 0") && contains(error.message, "needs 13"));
    j2k_header_free(&tile);
    j2k_header_free(&main_header);
    CHECK(j2k_resolve_tile_component(&main_header, NULL, 0, &out, &error) ==
          GJ2K_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------- PPM, PPT, PLM, PLT, TLM */

/* Reads every segment of `marker` in `buffer` as indexed chunks. */
static size_t read_chunks(const byte_buffer *buffer, uint16_t marker, j2k_indexed_chunk *chunks,
                          size_t max)
{
    size_t n = 0, pos = 0;
    while (pos + 4 <= buffer->size && n < max) {
        size_t length = (size_t)(buffer->data[pos + 2] << 8 | buffer->data[pos + 3]);
        CHECK((buffer->data[pos] << 8 | buffer->data[pos + 1]) == marker);
        byte_reader body = {buffer->data + pos + 4, length - 2, 0};
        if (j2k_indexed_chunk_read(&body, "test", &chunks[n], NULL) != GJ2K_OK)
            break;
        CHECK(chunks[n].index == n);
        n++;
        pos += 2 + length;
    }
    CHECK(pos == buffer->size);
    return n;
}

static void index_segments_decode(void)
{
    gj2k_error error = {0};
    /* PLT: 5, 128, 32769 (7 bits a byte, high bit: more to come). */
    const uint8_t plt[] = {0, 0x05, 0x81, 0x00, 0x82, 0x80, 0x01};
    byte_reader r = bytes_reader(plt, sizeof plt);
    j2k_indexed_chunk chunk;
    REQUIRE(j2k_indexed_chunk_read(&r, "PLT", &chunk, &error) == GJ2K_OK);
    uint32_t *lengths = NULL;
    size_t count = 0;
    REQUIRE(j2k_packet_lengths_decode(chunk.data, chunk.size, "PLT", &lengths, &count, &error) ==
            GJ2K_OK);
    CHECK(count == 3 && lengths[0] == 5 && lengths[1] == 128 && lengths[2] == 32769);
    const uint8_t cut[] = {0x05, 0x81};
    CHECK(j2k_packet_lengths_decode(cut, 2, "PLT", &lengths, &count, &error) ==
          GJ2K_ERROR_MALFORMED);
    CHECK(contains(error.message, "PLT: the last packet length is cut off"));
    const uint8_t huge[] = {0x90, 0x80, 0x80, 0x80, 0x80, 0x00};
    CHECK(j2k_packet_lengths_decode(huge, 6, "PLT", &lengths, &count, &error) ==
          GJ2K_ERROR_MALFORMED);
    free(lengths);

    /* PLM: Zplm 1 arrives before Zplm 0; one (Nplm, Iplm) per tile-part. */
    const uint8_t plm1[] = {1, 2, 0x81, 0x00}, plm0[] = {0, 1, 7, 3, 1, 2, 3};
    j2k_indexed_chunk plm[2];
    r = bytes_reader(plm1, sizeof plm1);
    REQUIRE(j2k_indexed_chunk_read(&r, "PLM", &plm[0], &error) == GJ2K_OK);
    r = bytes_reader(plm0, sizeof plm0);
    REQUIRE(j2k_indexed_chunk_read(&r, "PLM", &plm[1], &error) == GJ2K_OK);
    size_t repeats = 1;
    CHECK(j2k_indexed_chunks_sort(plm, 2, &repeats, &error) == GJ2K_OK && repeats == 0 &&
          plm[0].index == 0 && plm[0].size == 6);
    uint8_t *joined;
    size_t size;
    REQUIRE(j2k_indexed_chunks_join(plm, 2, &joined, &size, &error) == GJ2K_OK);
    j2k_packet_lengths *parts;
    REQUIRE(j2k_plm_decode(joined, size, &parts, &count, &error) == GJ2K_OK);
    CHECK(count == 3 && parts[0].count == 1 && parts[0].lengths[0] == 7 && parts[1].count == 3 &&
          parts[1].lengths[2] == 3 && parts[2].count == 1 && parts[2].lengths[0] == 128);
    byte_buffer out = {0};
    REQUIRE(j2k_plm_write(&out, parts, count, &error) == GJ2K_OK);
    j2k_indexed_chunk written[4];
    CHECK(read_chunks(&out, J2K_PLM, written, 4) == 1 && written[0].size == size &&
          memcmp(written[0].data, joined, size) == 0);
    for (size_t i = 0; i < count; i++)
        free(parts[i].lengths);
    free(parts);
    free(joined);
    byte_buffer_free(&out);
    const uint8_t plm_short[] = {4, 1, 2};
    CHECK(j2k_plm_decode(plm_short, 3, &parts, &count, &error) == GJ2K_ERROR_MALFORMED);

    /* TLM: every ST (0, 1, 2 bytes of Ttlm) and SP (16 or 32-bit Ptlm). */
    const uint8_t tlm_implied[] = {0, 0x00, 0x00, 0x10, 0x00, 0x20};
    const uint8_t tlm_8_32[] = {1, 0x50, 3, 0x00, 0x01, 0x00, 0x00};
    const uint8_t tlm_16_16[] = {2, 0x20, 0x01, 0x02, 0x03, 0x04};
    j2k_tlm tlm;
    r = bytes_reader(tlm_implied, sizeof tlm_implied);
    REQUIRE(j2k_tlm_read(&r, &tlm, &error) == GJ2K_OK);
    CHECK(tlm.count == 2 && tlm.entries[0].tile_index == J2K_TLM_TILE_IMPLIED &&
          tlm.entries[1].length == 0x20);
    j2k_tlm_free(&tlm);
    r = bytes_reader(tlm_8_32, sizeof tlm_8_32);
    REQUIRE(j2k_tlm_read(&r, &tlm, &error) == GJ2K_OK);
    CHECK(tlm.index == 1 && tlm.count == 1 && tlm.entries[0].tile_index == 3 &&
          tlm.entries[0].length == 65536);
    j2k_tlm_free(&tlm);
    r = bytes_reader(tlm_16_16, sizeof tlm_16_16);
    REQUIRE(j2k_tlm_read(&r, &tlm, &error) == GJ2K_OK);
    CHECK(tlm.count == 1 && tlm.entries[0].tile_index == 0x0102 &&
          tlm.entries[0].length == 0x0304);
    REQUIRE(j2k_tlm_write(&out, &tlm, &error) == GJ2K_OK);
    CHECK(out.size == 2 + 2 + sizeof tlm_16_16 && memcmp(out.data + 4, tlm_16_16, 6) == 0);
    j2k_tlm_free(&tlm);
    byte_buffer_free(&out);
    const uint8_t tlm_reserved[] = {0, 0x01}, tlm_st3[] = {0, 0x30}, tlm_odd[] = {0, 0x20, 1};
    r = bytes_reader(tlm_reserved, 2);
    CHECK(j2k_tlm_read(&r, &tlm, &error) == GJ2K_ERROR_MALFORMED &&
          contains(error.message, "reserved bits"));
    r = bytes_reader(tlm_st3, 2);
    CHECK(j2k_tlm_read(&r, &tlm, &error) == GJ2K_ERROR_MALFORMED &&
          contains(error.message, "ST 3"));
    r = bytes_reader(tlm_odd, 3);
    CHECK(j2k_tlm_read(&r, &tlm, &error) == GJ2K_ERROR_MALFORMED &&
          contains(error.message, "multiple of 4"));

    /* PPM: Nppm may straddle segments; the joined payload is split per tile-part. */
    const uint8_t ppm0[] = {0, 0, 0, 0, 3, 'a', 'b', 'c', 0, 0};
    const uint8_t ppm1[] = {1, 0, 2, 'd', 'e', 0, 0, 0, 0};
    j2k_indexed_chunk ppm[2];
    r = bytes_reader(ppm1, sizeof ppm1);
    REQUIRE(j2k_indexed_chunk_read(&r, "PPM", &ppm[0], &error) == GJ2K_OK);
    r = bytes_reader(ppm0, sizeof ppm0);
    REQUIRE(j2k_indexed_chunk_read(&r, "PPM", &ppm[1], &error) == GJ2K_OK);
    REQUIRE(j2k_indexed_chunks_sort(ppm, 2, &repeats, &error) == GJ2K_OK);
    REQUIRE(j2k_indexed_chunks_join(ppm, 2, &joined, &size, &error) == GJ2K_OK);
    size_t *offsets, *sizes;
    REQUIRE(j2k_ppm_split(joined, size, &offsets, &sizes, &count, &error) == GJ2K_OK);
    CHECK(count == 3 && sizes[0] == 3 && memcmp(joined + offsets[0], "abc", 3) == 0 &&
          sizes[1] == 2 && memcmp(joined + offsets[1], "de", 2) == 0 && sizes[2] == 0);
    free(offsets);
    free(sizes);
    CHECK(j2k_ppm_split(joined, size - 1, &offsets, &sizes, &count, &error) ==
          GJ2K_ERROR_MALFORMED);
    free(joined);

    /* Writers split long runs over several segments with Z = 0, 1, 2, ... */
    size_t big = 150000;
    uint8_t *bytes = malloc(big);
    for (size_t i = 0; i < big; i++)
        bytes[i] = (uint8_t)test_random();
    j2k_bytes tile_parts[3] = {{bytes, 70000}, {bytes + 70000, 0}, {bytes + 70000, 80000}};
    REQUIRE(j2k_ppm_write(&out, tile_parts, 3, &error) == GJ2K_OK);
    j2k_indexed_chunk many[8];
    size_t n = read_chunks(&out, J2K_PPM, many, 8);
    CHECK(n == 3);
    REQUIRE(j2k_indexed_chunks_join(many, n, &joined, &size, &error) == GJ2K_OK);
    REQUIRE(j2k_ppm_split(joined, size, &offsets, &sizes, &count, &error) == GJ2K_OK);
    CHECK(count == 3);
    for (size_t i = 0; i < 3 && i < count; i++)
        CHECK(sizes[i] == tile_parts[i].size &&
              (sizes[i] == 0 || memcmp(joined + offsets[i], tile_parts[i].data, sizes[i]) == 0));
    free(offsets);
    free(sizes);
    free(joined);
    byte_buffer_free(&out);
    REQUIRE(j2k_ppt_write(&out, bytes, big, &error) == GJ2K_OK);
    n = read_chunks(&out, J2K_PPT, many, 8);
    CHECK(n == 3);
    REQUIRE(j2k_indexed_chunks_join(many, n, &joined, &size, &error) == GJ2K_OK);
    CHECK(size == big && memcmp(joined, bytes, big) == 0);
    free(joined);
    byte_buffer_free(&out);
    /* PLT: 40000 lengths of 1 to 5 bytes; no length is split between segments. */
    uint32_t *many_lengths = malloc(40000 * sizeof *many_lengths);
    for (size_t i = 0; i < 40000; i++)
        many_lengths[i] = (uint32_t)(test_random() >> (test_random() % 32));
    many_lengths[0] = UINT32_MAX;
    REQUIRE(j2k_plt_write(&out, many_lengths, 40000, &error) == GJ2K_OK);
    n = read_chunks(&out, J2K_PLT, many, 8);
    CHECK(n >= 2);
    lengths = NULL;
    count = 0;
    for (size_t i = 0; i < n; i++)
        REQUIRE(j2k_packet_lengths_decode(many[i].data, many[i].size, "PLT", &lengths, &count,
                                          &error) == GJ2K_OK);
    CHECK(count == 40000 && memcmp(lengths, many_lengths, 40000 * sizeof *lengths) == 0);
    free(lengths);
    free(many_lengths);
    free(bytes);
    byte_buffer_free(&out);
}

/* ------------------------------------------- CRG, COM, SOT, SOP, EPH */

static void misc_segments_round_trip(void)
{
    gj2k_error error = {0};
    byte_buffer out = {0};
    j2k_registration_offset crg[3] = {{0, 0}, {32768, 1}, {65535, 12345}}, crg_back[3];
    REQUIRE(j2k_crg_write(&out, crg, 3, &error) == GJ2K_OK);
    byte_reader body;
    REQUIRE(segment_body(&out, 0, J2K_CRG, &body));
    REQUIRE(j2k_crg_read(&body, 3, crg_back, &error) == GJ2K_OK);
    CHECK(memcmp(crg, crg_back, sizeof crg) == 0);
    REQUIRE(segment_body(&out, 0, J2K_CRG, &body));
    CHECK(j2k_crg_read(&body, 4, crg_back, &error) == GJ2K_ERROR_MALFORMED);
    byte_buffer_free(&out);

    const char *text = "Created by gj2k";
    j2k_comment com = {.registration = J2K_COMMENT_LATIN, .data = (uint8_t *)text,
                       .size = strlen(text)}, back;
    REQUIRE(j2k_com_write(&out, &com, &error) == GJ2K_OK);
    REQUIRE(segment_body(&out, 0, J2K_COM, &body));
    REQUIRE(j2k_com_read(&body, &back, &error) == GJ2K_OK);
    CHECK(back.registration == 1 && back.size == com.size && memcmp(back.data, text, back.size) == 0);
    free(back.data);
    byte_buffer_free(&out);
    com = (j2k_comment){.registration = J2K_COMMENT_BINARY};
    REQUIRE(j2k_com_write(&out, &com, &error) == GJ2K_OK);
    REQUIRE(segment_body(&out, 0, J2K_COM, &body));
    REQUIRE(j2k_com_read(&body, &back, &error) == GJ2K_OK);
    CHECK(back.registration == 0 && back.size == 0 && back.data == NULL);
    com.registration = 2;
    CHECK(j2k_com_write(&out, &com, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    byte_buffer_free(&out);

    for (int i = 0; i < 100; i++) {
        j2k_sot sot = {.tile_index = (uint32_t)test_random_range(0, 65534),
                       .length = i % 2 ? 0 : (uint32_t)test_random_range(14, UINT32_MAX),
                       .part_index = (uint8_t)test_random_range(0, 254),
                       .num_parts = (uint8_t)test_random_range(0, 255)}, sot_back;
        REQUIRE(j2k_sot_write(&out, &sot, &error) == GJ2K_OK);
        CHECK(out.size == J2K_SOT_SEGMENT_SIZE);
        REQUIRE(segment_body(&out, 0, J2K_SOT, &body));
        REQUIRE(j2k_sot_read(&body, &sot_back, &error) == GJ2K_OK);
        CHECK(sot_back.tile_index == sot.tile_index && sot_back.length == sot.length &&
              sot_back.part_index == sot.part_index && sot_back.num_parts == sot.num_parts);
        byte_buffer_free(&out);
    }
    const uint8_t sot_psot5[] = {0, 1, 0, 0, 0, 5, 0, 1}, sot_tp255[] = {0, 1, 0, 0, 0, 0, 255, 0},
                  sot_isot[] = {0xFF, 0xFF, 0, 0, 0, 0, 0, 1}, sot_long[] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    j2k_sot sot;
    byte_reader r = bytes_reader(sot_psot5, 8);
    CHECK(j2k_sot_read(&r, &sot, &error) == GJ2K_ERROR_MALFORMED && contains(error.message, "Psot 5"));
    r = bytes_reader(sot_tp255, 8);
    CHECK(j2k_sot_read(&r, &sot, &error) == GJ2K_ERROR_MALFORMED &&
          contains(error.message, "tile-part index 255"));
    r = bytes_reader(sot_isot, 8);
    CHECK(j2k_sot_read(&r, &sot, &error) == GJ2K_ERROR_MALFORMED &&
          contains(error.message, "tile index 65535"));
    r = bytes_reader(sot_long, 9);
    CHECK(j2k_sot_read(&r, &sot, &error) == GJ2K_ERROR_MALFORMED && contains(error.message, "Lsot 11"));

    j2k_sop_write(&out, 0xBEEF);
    j2k_marker_write(&out, J2K_EPH);
    uint16_t sequence = 0;
    CHECK(out.size == J2K_SOP_SEGMENT_SIZE + J2K_EPH_SIZE && j2k_sop_parse(out.data, out.size, &sequence) &&
          sequence == 0xBEEF && out.data[6] == 0xFF && out.data[7] == 0x92);
    CHECK(!j2k_sop_parse(out.data + 1, out.size - 1, &sequence));
    CHECK(!j2k_sop_parse(out.data, 5, &sequence));
    CHECK(strcmp(j2k_marker_name(J2K_PPT), "PPT") == 0 && strcmp(j2k_marker_name(0xFF4E), "unknown") == 0);
    byte_buffer_free(&out);
}

/* CAP (T.814 A.2): a Ccap for each Part in Pcap, most significant first;
 * Part 15's kept. */
static void capabilities_segment(void)
{
    j2k_capabilities cap;
    gj2k_error error = {0};
    const uint8_t part15[] = {0x00, 0x02, 0x00, 0x00, 0xC0, 0x25};
    byte_reader r = bytes_reader(part15, sizeof part15);
    REQUIRE(j2k_cap_read(&r, &cap, &error) == GJ2K_OK);
    CHECK(cap.present && cap.pcap == J2K_PCAP_PART15 && cap.has_ccap15 && cap.ccap15 == 0xC025);
    CHECK(strcmp(j2k_ccap15_set_name(cap.ccap15), "MIXED") == 0);
    CHECK(strcmp(j2k_ccap15_set_name(0x0003), "HTONLY") == 0);
    CHECK(strcmp(j2k_ccap15_set_name(0x8000), "HTDECLARED") == 0);
    CHECK(strcmp(j2k_ccap15_set_name(0x4000), "reserved") == 0);
    /* Parts 2 and 15: Part 2's Ccap first */
    const uint8_t two[] = {0x40, 0x02, 0x00, 0x00, 0x12, 0x34, 0x80, 0x01};
    r = bytes_reader(two, sizeof two);
    REQUIRE(j2k_cap_read(&r, &cap, &error) == GJ2K_OK);
    CHECK(cap.has_ccap15 && cap.ccap15 == 0x8001);
    /* no Part 15 */
    const uint8_t other[] = {0x40, 0x00, 0x00, 0x00, 0x12, 0x34};
    r = bytes_reader(other, sizeof other);
    REQUIRE(j2k_cap_read(&r, &cap, &error) == GJ2K_OK);
    CHECK(cap.present && !cap.has_ccap15);
    /* too short, too long */
    r = bytes_reader(part15, 5);
    CHECK(j2k_cap_read(&r, &cap, &error) == GJ2K_ERROR_MALFORMED && strstr(error.message, "Ccap"));
    r = bytes_reader(part15, 3);
    CHECK(j2k_cap_read(&r, &cap, &error) == GJ2K_ERROR_MALFORMED);
    r = bytes_reader(two, 6);
    CHECK(j2k_cap_read(&r, &cap, &error) == GJ2K_ERROR_MALFORMED);
    const uint8_t extra[] = {0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00};
    r = bytes_reader(extra, sizeof extra);
    CHECK(j2k_cap_read(&r, &cap, &error) == GJ2K_ERROR_MALFORMED && strstr(error.message, "past"));
    CHECK(strcmp(j2k_marker_name(J2K_CAP), "CAP") == 0 && strcmp(j2k_marker_name(J2K_CPF), "CPF") == 0);
}

static const test_case cases[] = {
    {"capabilities_segment", capabilities_segment},
    {"siz_round_trip", siz_round_trip},
    {"siz_rejects_invalid", siz_rejects_invalid},
    {"coding_style_round_trip", coding_style_round_trip},
    {"coding_style_rejects_invalid", coding_style_rejects_invalid},
    {"quantization_round_trip", quantization_round_trip},
    {"quantization_rejects_invalid", quantization_rejects_invalid},
    {"region_and_progression_round_trip", region_and_progression_round_trip},
    {"precedence_resolution", precedence_resolution},
    {"index_segments_decode", index_segments_decode},
    {"misc_segments_round_trip", misc_segments_round_trip},
};

TEST_MAIN(cases)
