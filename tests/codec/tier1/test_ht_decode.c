/* test_ht_decode.c - the HT block decoder's own parts (codec/tier1/ht_decode.h):
 * the CxtVLC tables are complete prefix codes and fill every look-up entry;
 * a cleanup segment whose MEL says every quad is empty gives a zero block;
 * bad suffix lengths, too many passes and bad sizes are refused; the lowest
 * known planes are laid out as the coefficients; pass counts and segment
 * lengths whose sums wrap around are refused or read safely (the last two
 * found by fuzz_ht_block). (Decoding against OpenJPH:
 * conformance/ht_crosscheck.c.) */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "ht_decode.h"
#include "test_harness.h"

/* Each context's codewords (first bit read in bit 0): none a prefix of
 * another, and together they cover every 7-bit window exactly once. */
static void vlc_tables_are_complete(void)
{
    static ht_lookup lookup;
    ht_lookup_build(&lookup);
    for (int t = 0; t < 2; t++) {
        const ht_vlc_code *codes = t ? ht_vlc_table1 : ht_vlc_table0;
        size_t count = t ? HT_VLC_TABLE1_SIZE : HT_VLC_TABLE0_SIZE;
        unsigned covered[8] = {0};
        for (size_t i = 0; i < count; i++) {
            const ht_vlc_code *c = &codes[i];
            REQUIRE(c->context < 8 && c->length >= 1 && c->length <= 7);
            CHECK(c->codeword < (1u << c->length));
            CHECK((c->e_k & ~c->rho) == 0 && (c->e_1 & ~c->e_k) == 0);
            CHECK(c->u_off || (c->e_k == 0 && c->e_1 == 0));
            CHECK(c->rho != 0 || c->context != 0); /* an empty context-0 quad is MEL's */
            covered[c->context] += 1u << (7 - c->length);
            for (size_t j = 0; j < count; j++) {
                const ht_vlc_code *d = &codes[j];
                if (j != i && d->context == c->context && d->length >= c->length)
                    CHECK((d->codeword & ((1u << c->length) - 1)) != c->codeword);
            }
        }
        for (int k = 0; k < 8; k++)
            CHECK_EQ(covered[k], 128);
        for (unsigned e = 0; e < 8 << 7; e++)
            CHECK(lookup.entry[t][e] != 0);
    }
}

static gj2k_status decode(const uint8_t *data, size_t size, const tier1_segment *segments,
                          unsigned num_segments, unsigned planes, uint32_t w, uint32_t h,
                          int32_t *out, uint8_t *lowest)
{
    static ht_lookup lookup;
    ht_lookup_build(&lookup);
    tier1_decode_request r = {.data = data, .size = size, .segments = segments,
                              .num_segments = num_segments, .num_planes = planes, .width = w,
                              .height = h, .style = TIER1_STYLE_HT};
    tier1_decode_result result;
    return ht_decode_block(&r, &lookup, out, w, lowest, &result);
}

static void empty_block_and_bad_input(void)
{
    int32_t out[64 * 64];
    uint8_t lowest[64 * 64];
    /* Scup = 2, no MagSgn bytes; MEL reads 1 bits (0xF2 with its low nibble
     * taken as ones): runs of empty quads, the whole block zero */
    const uint8_t empty[] = {0xF2, 0x00};
    tier1_segment one = {.length = 2, .num_passes = 1};
    memset(out, 0x55, sizeof out);
    CHECK(decode(empty, 2, &one, 1, 5, 37, 23, out, lowest) == GJ2K_OK);
    bool zero = true, plane = true;
    for (size_t i = 0; i < 37 * 23; i++)
        zero = zero && out[i] == 0, plane = plane && lowest[i] == 4;
    CHECK(zero && plane);
    /* Scup larger than the segment, or above 4079 */
    const uint8_t long_suffix[] = {0x03, 0x00};
    CHECK(decode(long_suffix, 2, &one, 1, 5, 8, 8, out, NULL) == GJ2K_ERROR_MALFORMED);
    const uint8_t huge[] = {0, 0, 0x0F, 0xFF};
    tier1_segment four = {.length = 4, .num_passes = 1};
    CHECK(decode(huge, 4, &four, 1, 5, 8, 8, out, NULL) == GJ2K_ERROR_MALFORMED);
    /* a segment of 1 byte; bytes missing */
    tier1_segment short_one = {.length = 1, .num_passes = 1};
    CHECK(decode(empty, 1, &short_one, 1, 5, 8, 8, out, NULL) == GJ2K_ERROR_MALFORMED);
    CHECK(decode(empty, 1, &one, 1, 5, 8, 8, out, NULL) == GJ2K_ERROR_TRUNCATED);
    /* more than one HT set (placeholder passes), bad sizes */
    tier1_segment many[2] = {{.length = 2, .num_passes = 1}, {.length = 0, .num_passes = 3}};
    CHECK(decode(empty, 2, many, 2, 5, 8, 8, out, NULL) == GJ2K_ERROR_UNSUPPORTED);
    CHECK(decode(empty, 2, &one, 1, 5, 0, 8, out, NULL) == GJ2K_ERROR_INVALID_ARGUMENT);
    CHECK(decode(empty, 2, &one, 1, 5, 128, 64, out, NULL) == GJ2K_ERROR_INVALID_ARGUMENT);
}

/* A cleanup segment with one significant quad (make_fuzz_seeds' one_quad:
 * Lcup 3, Scup 2, MEL's first bit 0, VLC 000: rho 2 in context 0, T.814
 * 7.3.5; the MagSgn bit 1: -2^p below the top-left sample), then 3 bytes
 * of SigProp and MagRef (7.4, 7.5). */
static const uint8_t one_quad_and_refinement[] = {0x01, 0x02, 0x00, 0xA5, 0x3C, 0x5A};

/* lowest_known_plane has the coefficients' layout (tier1.h): rows `stride`
 * apart, and nothing between the rows written (it was rows `width` apart). */
static void lowest_planes_follow_stride(void)
{
    static ht_lookup lookup;
    ht_lookup_build(&lookup);
    enum { W = 5, H = 7, STRIDE = 9 };
    int32_t packed[W * H], out[H * STRIDE];
    uint8_t packed_lowest[W * H], lowest[H * STRIDE];
    memset(out, 0x55, sizeof out);
    memset(lowest, 0xEE, sizeof lowest);
    const tier1_segment segments[2] = {{.length = 3, .num_passes = 1},
                                       {.length = 3, .num_passes = 2}};
    tier1_decode_request r = {.data = one_quad_and_refinement,
                              .size = sizeof one_quad_and_refinement, .segments = segments,
                              .num_segments = 2, .num_planes = 12, .width = W, .height = H,
                              .style = TIER1_STYLE_HT};
    tier1_decode_result result;
    REQUIRE(ht_decode_block(&r, &lookup, packed, W, packed_lowest, &result) == GJ2K_OK);
    CHECK_EQ(result.passes_decoded, 3);
    CHECK_EQ(packed[W], -(1 << 11)); /* the cleanup pass's sample, its MagRef bit 0 */
    REQUIRE(ht_decode_block(&r, &lookup, out, STRIDE, lowest, &result) == GJ2K_OK);
    bool same = true, untouched = true, planes = true;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < STRIDE; x++) {
            const int i = y * STRIDE + x;
            if (x >= W) {
                untouched = untouched && out[i] == 0x55555555 && lowest[i] == 0xEE;
                continue;
            }
            same = same && out[i] == packed[y * W + x] && lowest[i] == packed_lowest[y * W + x];
            planes = planes && (lowest[i] == 10 || lowest[i] == 11);
        }
    CHECK(same && untouched && planes);
}

/* Counts whose sums wrap around: passes 1 + 3 + UINT_MAX are no 3 passes
 * (refused as more than one HT set), and a refinement segment of SIZE_MAX
 * bytes after a cleanup segment of 3 leaves no refinement bytes to read
 * (the sum wrapped to 2, and SigProp read past the data). */
static void counts_do_not_wrap(void)
{
    static ht_lookup lookup;
    ht_lookup_build(&lookup);
    int32_t out[4 * 4];
    uint8_t lowest[4 * 4], cleanup[3]; /* the cleanup segment alone: no byte after it */
    memcpy(cleanup, one_quad_and_refinement, sizeof cleanup);
    tier1_decode_request r = {.data = cleanup, .size = sizeof cleanup, .num_planes = 8,
                              .width = 4, .height = 4, .style = TIER1_STYLE_HT};
    tier1_decode_result result;
    const tier1_segment passes[3] = {{.length = 3, .num_passes = 1},
                                     {.length = 0, .num_passes = 3},
                                     {.length = 0, .num_passes = UINT_MAX}};
    r.segments = passes;
    r.num_segments = 3;
    CHECK(ht_decode_block(&r, &lookup, out, 4, lowest, &result) == GJ2K_ERROR_UNSUPPORTED);
    const tier1_segment lengths[2] = {{.length = 3, .num_passes = 1},
                                      {.length = SIZE_MAX, .num_passes = 2}};
    r.segments = lengths;
    r.num_segments = 2;
    REQUIRE(ht_decode_block(&r, &lookup, out, 4, lowest, &result) == GJ2K_ERROR_TRUNCATED);
    CHECK_EQ(result.passes_decoded, 1);
    CHECK_EQ(out[4], -(1 << 7));
    CHECK_EQ(lowest[4], 7);
}

/* HT codeword segments (T.814 Annex B): the cleanup pass alone, then the
 * SigProp and MagRef passes of its set together. */
static void segments_group_ht_passes(void)
{
    CHECK(tier1_pass_ends_segment(0, TIER1_STYLE_HT));
    CHECK(!tier1_pass_ends_segment(1, TIER1_STYLE_HT));
    CHECK(tier1_pass_ends_segment(2, TIER1_STYLE_HT));
    CHECK(tier1_pass_ends_segment(3, TIER1_STYLE_HT));
    CHECK(!tier1_pass_ends_segment(4, TIER1_STYLE_HT));
    /* the Part 1 rules stand without the HT bit */
    CHECK(!tier1_pass_ends_segment(0, 0));
    CHECK(tier1_pass_ends_segment(1, TIER1_STYLE_TERMINATE_EACH_PASS));
}

static const test_case cases[] = {
    {"vlc_tables_are_complete", vlc_tables_are_complete},
    {"empty_block_and_bad_input", empty_block_and_bad_input},
    {"segments_group_ht_passes", segments_group_ht_passes},
    {"lowest_planes_follow_stride", lowest_planes_follow_stride},
    {"counts_do_not_wrap", counts_do_not_wrap},
};
TEST_MAIN(cases)
