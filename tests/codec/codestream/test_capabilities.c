/* test_capabilities.c - the CAP marker segment and its Part 15 field Ccap15
 * (T.814 A.2, Table A.3): the writer against the reader, MAGB's code, Ccap15
 * derived from a main header, and the main header writer's CAP after SIZ
 * with Rsiz bit 14. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream.h"
#include "codestream_test_support.h"
#include "test_harness.h"

/* ------------------------------------------------------------ helpers */

/* A main header of one HT COD (5/3, `levels` levels) and a reversible QCD of
 * `guard_bits` whose band b has exponent base + b % 3. */
static void ht_header(j2k_header_params *h, unsigned levels, unsigned guard_bits, unsigned base)
{
    *h = (j2k_header_params){0};
    j2k_cod cod = {.progression = J2K_LRCP, .layers = 1};
    cod.coding.levels = (uint8_t)levels;
    cod.coding.code_block_width_log2 = 6;
    cod.coding.code_block_height_log2 = 6;
    cod.coding.code_block_style = J2K_CBLK_HT;
    cod.coding.transform = J2K_TRANSFORM_53;
    j2k_component_coding_default_precincts(&cod.coding);
    j2k_quantization q = {.style = J2K_QUANT_NONE, .guard_bits = (uint8_t)guard_bits,
                          .num_steps = (uint8_t)(3 * levels + 1)};
    for (unsigned b = 0; b < q.num_steps; b++)
        q.steps[b] = (quant_step){.exponent = (uint8_t)(base + b % 3)};
    (void)(j2k_header_set_cod(h, &cod, NULL) == GJ2K_OK &&
           j2k_header_set_qcd(h, &q, NULL) == GJ2K_OK);
}

/* A SIZ of `components` 8-bit components on a 64x64 image, one tile. */
static j2k_siz small_siz(uint32_t components, uint16_t rsiz)
{
    j2k_siz siz = {.capabilities = rsiz, .image_x1 = 64, .image_y1 = 64, .tile_width = 64,
                   .tile_height = 64, .num_components = components};
    siz.components = calloc(components, sizeof *siz.components);
    for (uint32_t c = 0; c < components; c++)
        siz.components[c] = (j2k_component_size){.precision = 8, .dx = 1, .dy = 1};
    return siz;
}

/* -------------------------------------------------------------- cases */

/* j2k_cap_write's bytes are T.814 A.2's (CAP, Lcap 8, Pcap, Ccap15) and
 * j2k_cap_read gives back what was written; the model's limits refuse. */
static void cap_write_read_round_trip(void)
{
    const uint16_t values[] = {0x0000, 0x0003, 0x0027, 0x8000, 0xC01F, 0x3820, 0x001F};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        j2k_capabilities cap = {.present = true, .pcap = J2K_PCAP_PART15, .has_ccap15 = true,
                                .ccap15 = values[i]};
        byte_buffer out = {0};
        gj2k_error error = {0};
        REQUIRE(j2k_cap_write(&out, &cap, &error) == GJ2K_OK);
        const uint8_t expected[] = {0xFF, 0x50, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00,
                                    (uint8_t)(values[i] >> 8), (uint8_t)values[i]};
        CHECK_EQ(out.size, sizeof expected);
        CHECK(memcmp(out.data, expected, sizeof expected) == 0);
        byte_reader body = {out.data + 4, out.size - 4, 0};
        j2k_capabilities back;
        REQUIRE(j2k_cap_read(&body, &back, &error) == GJ2K_OK);
        CHECK(back.present && back.pcap == J2K_PCAP_PART15 && back.has_ccap15);
        CHECK_EQ(back.ccap15, values[i]);
        byte_buffer_free(&out);
    }
    /* Pcap beyond Part 15, no Ccap15, the reserved set 01 and bits 6-10 */
    const j2k_capabilities refused[] = {
        {.present = true, .pcap = J2K_PCAP_PART15 | (1u << 30), .has_ccap15 = true},
        {.present = true, .pcap = 0, .has_ccap15 = true},
        {.present = true, .pcap = J2K_PCAP_PART15, .has_ccap15 = false},
        {.present = true, .pcap = J2K_PCAP_PART15, .has_ccap15 = true, .ccap15 = 0x4000},
        {.present = true, .pcap = J2K_PCAP_PART15, .has_ccap15 = true, .ccap15 = 0x0040},
        {.present = true, .pcap = J2K_PCAP_PART15, .has_ccap15 = true, .ccap15 = 0x0400},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        byte_buffer out = {0};
        gj2k_error error = {0};
        CHECK(j2k_cap_write(&out, &refused[i], &error) == GJ2K_ERROR_INVALID_ARGUMENT);
        CHECK(strstr(error.message, "CAP") != NULL);
        CHECK_EQ(out.size, 0);
        byte_buffer_free(&out);
    }
}

/* MAGB (T.814 Table A.3): each B gets the smallest code whose bound covers
 * it; the bounds are 8, MAGB + 8, 4 (MAGB - 19) + 27 and 74. */
static void magb_code_and_bound(void)
{
    CHECK_EQ(j2k_ccap15_magnitude_bound(0), 8);
    CHECK_EQ(j2k_ccap15_magnitude_bound(1), 9);
    CHECK_EQ(j2k_ccap15_magnitude_bound(19), 27);
    CHECK_EQ(j2k_ccap15_magnitude_bound(20), 31);
    CHECK_EQ(j2k_ccap15_magnitude_bound(30), 71);
    CHECK_EQ(j2k_ccap15_magnitude_bound(31), 74);
    const unsigned b[] = {0, 1, 8, 9, 11, 27, 28, 31, 32, 35, 36, 37, 71, 72, 74};
    const unsigned magb[] = {0, 0, 0, 1, 3, 19, 20, 20, 21, 21, 22, 22, 30, 31, 31};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
        CHECK_EQ(j2k_ccap15_magb(b[i]), magb[i]);
    for (unsigned planes = 0; planes <= 74; planes++) {
        uint16_t code = j2k_ccap15_magb(planes);
        CHECK(code <= 31);
        CHECK(j2k_ccap15_magnitude_bound(code) >= planes);
        CHECK(code == 0 || j2k_ccap15_magnitude_bound((uint16_t)(code - 1)) < planes);
    }
    CHECK_EQ(j2k_ccap15_magb(200), 31);
}

/* Ccap15 from a main header: HTONLY, MAGB from the largest Mb over every
 * component's subbands (QCC and COC where given), HTIRV with a 9/7
 * component, RGN with an RGN; a component not HT is refused. */
static void ccap15_from_main_header(void)
{
    j2k_siz siz = small_siz(3, J2K_RSIZ_PART15);
    j2k_header_params h;
    ht_header(&h, 5, 2, 8); /* exponents 8..10, Mb up to 2 + 10 - 1 = 11 */
    uint16_t ccap15 = 0xFFFF;
    gj2k_error error = {0};
    REQUIRE(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_OK);
    CHECK_EQ(ccap15, 3); /* HTONLY, one set, no RGN, homogeneous, reversible, MAGB 11 - 8 */

    /* component 1's QCC: 5 guard bits, exponents up to 14: Mb 18, MAGB 10 */
    j2k_qcc qcc = {.component = 1, .quantization = *h.qcd};
    qcc.quantization.guard_bits = 5;
    for (unsigned s = 0; s < qcc.quantization.num_steps; s++)
        qcc.quantization.steps[s].exponent = (uint8_t)(12 + s % 3);
    REQUIRE(j2k_header_add_qcc(&h, &qcc, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_OK);
    CHECK_EQ(ccap15, 10);

    /* component 2 irreversible, derived from one LL step (eq. E-5): ε0 20 at
     * 5 levels, 20 - 5 + n at level n, at most 20: Mb 2 + 20 - 1 = 21 */
    j2k_coc coc = {.component = 2, .coding = h.cod->coding};
    coc.coding.transform = J2K_TRANSFORM_97;
    REQUIRE(j2k_header_add_coc(&h, &coc, NULL, &error) == GJ2K_OK);
    j2k_qcc derived = {.component = 2,
                       .quantization = {.style = J2K_QUANT_DERIVED, .guard_bits = 2,
                                        .num_steps = 1, .steps = {{.exponent = 20, .mantissa = 5}}}};
    REQUIRE(j2k_header_add_qcc(&h, &derived, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_OK);
    CHECK_EQ(ccap15, J2K_CCAP15_IRREVERSIBLE | (21 - 8));

    j2k_rgn rgn = {.component = 0, .style = 0, .shift = 3};
    REQUIRE(j2k_header_add_rgn(&h, &rgn, NULL, &error) == GJ2K_OK);
    REQUIRE(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_OK);
    CHECK_EQ(ccap15, J2K_CCAP15_RGN | J2K_CCAP15_IRREVERSIBLE | (21 - 8));
    CHECK(strcmp(j2k_ccap15_set_name(ccap15), "HTONLY") == 0);

    /* a Part 1 component (HTDECLARED) and a mixed one are not written */
    coc.coding.code_block_style = 0;
    REQUIRE(j2k_header_add_coc(&h, &coc, NULL, &error) == GJ2K_OK);
    CHECK(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_ERROR_UNSUPPORTED);
    CHECK(strstr(error.message, "component 2") && strstr(error.message, "HTONLY"));
    coc.coding.code_block_style = J2K_CBLK_HT | J2K_CBLK_HT_MIXED;
    REQUIRE(j2k_header_add_coc(&h, &coc, NULL, &error) == GJ2K_OK);
    CHECK(j2k_ccap15_for_header(&siz, &h, &ccap15, &error) == GJ2K_ERROR_UNSUPPORTED);
    j2k_header_free(&h);
    j2k_siz_free(&siz);
}

/* Writes the main header, one empty tile-part and EOC; parses it back. */
static gj2k_status write_and_parse(const j2k_siz *siz, const j2k_header_params *h,
                                   byte_buffer *out, j2k_codestream **cs, gj2k_error *error)
{
    gj2k_status status = j2k_write_main_header(out, siz, h, error);
    size_t sot_offset = 0;
    j2k_sot sot = {.tile_index = 0, .part_index = 0, .num_parts = 1};
    if (status == GJ2K_OK)
        status = j2k_write_tile_part_begin(out, siz, &sot, NULL, &sot_offset, error);
    if (status != GJ2K_OK)
        return status;
    j2k_marker_write(out, J2K_SOD);
    byte_buffer_put_u8(out, 0); /* an empty packet */
    status = j2k_write_tile_part_end(out, sot_offset, error);
    j2k_marker_write(out, J2K_EOC);
    warnings w = {0};
    if (status == GJ2K_OK)
        status = j2k_codestream_parse(out->data, out->size, collect_warning, &w, cs, error);
    return status == GJ2K_OK && w.count != 0 ? GJ2K_ERROR_MALFORMED : status;
}

/* The main header of HT code-blocks: Rsiz bit 14, a CAP right after SIZ
 * with the derived Ccap15; refused without the bit; Part 1 ones unchanged. */
static void main_header_writes_cap(void)
{
    j2k_siz siz = small_siz(1, J2K_RSIZ_PART15);
    j2k_header_params h;
    ht_header(&h, 3, 1, 9); /* Mb up to 1 + 11 - 1 = 11 */
    byte_buffer out = {0};
    j2k_codestream *cs = NULL;
    gj2k_error error = {0};
    REQUIRE(write_and_parse(&siz, &h, &out, &cs, &error) == GJ2K_OK);
    size_t after_siz = 4 + ((size_t)out.data[4] << 8 | out.data[5]); /* SOC, SIZ, Lsiz.. */
    REQUIRE(out.size > after_siz + 10);
    CHECK(out.data[6] == 0x40 && out.data[7] == 0x00); /* Rsiz */
    const uint8_t cap[] = {0xFF, 0x50, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03};
    CHECK(memcmp(out.data + after_siz, cap, sizeof cap) == 0);
    CHECK(cs->siz.capabilities == J2K_RSIZ_PART15);
    CHECK(cs->capabilities.present && cs->capabilities.pcap == J2K_PCAP_PART15);
    CHECK(cs->capabilities.has_ccap15 && cs->capabilities.ccap15 == 0x0003);
    CHECK(cs->main_header.cod->coding.code_block_style == J2K_CBLK_HT);
    j2k_codestream_destroy(cs);
    cs = NULL;

    /* what `gj2k info` prints of it */
    byte_buffer text = {0};
    REQUIRE(j2k_codestream_parse(out.data, out.size, NULL, NULL, &cs, &error) == GJ2K_OK);
    REQUIRE(j2k_codestream_describe(cs, &text, &error) == GJ2K_OK);
    byte_buffer_put_u8(&text, 0);
    CHECK(strstr((const char *)text.data, "Part 15 (HTJ2K) (Rsiz 0x4000)") != NULL);
    CHECK(strstr((const char *)text.data, "CAP: Pcap 0x00020000, Part 15 Ccap15 0x0003: "
                                          "HTONLY, reversible only, MAGB 3") != NULL);
    byte_buffer_free(&text);
    j2k_codestream_destroy(cs);
    cs = NULL;

    /* HT blocks without Rsiz bit 14 */
    siz.capabilities = 0;
    out.size = 0;
    CHECK(j2k_write_main_header(&out, &siz, &h, &error) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(error.message, "Rsiz") != NULL);
    /* Rsiz bit 14 over Part 1 blocks: not HTONLY */
    siz.capabilities = J2K_RSIZ_PART15;
    h.cod->coding.code_block_style = 0;
    out.size = 0;
    CHECK(j2k_write_main_header(&out, &siz, &h, &error) == GJ2K_ERROR_UNSUPPORTED);
    /* Part 1: no CAP, COD follows SIZ */
    siz.capabilities = 0;
    out.size = 0;
    REQUIRE(write_and_parse(&siz, &h, &out, &cs, &error) == GJ2K_OK);
    CHECK(out.data[after_siz] == 0xFF && out.data[after_siz + 1] == 0x52);
    CHECK(!cs->capabilities.present && cs->siz.capabilities == 0);
    j2k_codestream_destroy(cs);
    byte_buffer_free(&out);
    j2k_header_free(&h);
    j2k_siz_free(&siz);
}

static const test_case cases[] = {
    {"cap_write_read_round_trip", cap_write_read_round_trip},
    {"magb_code_and_bound", magb_code_and_bound},
    {"ccap15_from_main_header", ccap15_from_main_header},
    {"main_header_writes_cap", main_header_writes_cap},
};

TEST_MAIN(cases)
