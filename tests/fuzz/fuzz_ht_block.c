/* fuzz_ht_block.c - libFuzzer target for the HT block decoder of T.814
 * (ht_decode_block, codec/tier1/ht_decode.h). The first FUZZ_HEADER bytes
 * are the request, the rest the code-block's bytes:
 *   [0]     bits 0-1 the passes (1, 2, 3, 3: a cleanup segment of 1 pass,
 *           then a refinement segment of the rest, T.814 Annex B), bit 2
 *           the vertically causal style (0x08), bits 3-4 how the segment
 *           lengths are read (below), bits 5-7 all set: a request the
 *           decoder must refuse, or one at the edges of what it takes;
 *   [1]     num_planes, 0..32;
 *   [2..5]  width and height (16 bits each, little-endian), mapped into
 *           1..1024 with width * height <= 4096;
 *   [6]     bits 0-2 the row stride's excess over the width, less 1;
 *           bits 6-7 the band (which HT decoding does not use);
 *   [7..10] the two segment lengths (16 bits each);
 *   [11]    with the refusal bits: the geometry or the segments to break.
 * The length modes: 0 and 1 split the data between the segments exactly,
 * 2 takes the lengths as given (past the data: truncation), 3 gives the
 * refinement segment a few bytes more than there are or, rarely, a length
 * near SIZE_MAX.
 *
 * The decoder's promises (tier1.h, ht_decode.h), abort() making a finding:
 * a status of GJ2K_OK, _MALFORMED, _TRUNCATED, _UNSUPPORTED or
 * _INVALID_ARGUMENT; the last two exactly for what the header says the
 * decoder does not take, with nothing written; otherwise the whole block
 * written and nothing outside it (guards after each row and after the
 * block), each lowest known plane num_planes - 1 or, after the refinement
 * passes, one below (never above num_planes), each magnitude a multiple of
 * 2^lowest and at most 2^30 plus the refinement bit: the cleanup pass
 * refuses a quad with U_q - 1 + p > 30 (7.3.7) and its magnitudes are at
 * most 2^(U_q - 1 + p) (7.3.8). No bound in num_planes holds: the cleanup
 * pass codes every bit from plane num_planes - 1 = p up (ht_decode.h, T.814
 * 7.1), so a magnitude may well pass 2^num_planes. A second decode into
 * differently poisoned buffers, and a third without lowest_known_plane and
 * result, give the same. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ht_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_HEADER 12
#define FUZZ_TAIL 64 /* guard entries after the block */
#define FUZZ_REFUSAL_BITS 0xE0u

static const ht_lookup *lookup_tables(void)
{
    static ht_lookup lookup;
    static bool built;
    if (!built) {
        ht_lookup_build(&lookup);
        built = true;
    }
    return &lookup;
}

static uint32_t read16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

typedef struct fuzz_request {
    tier1_decode_request request;
    tier1_segment segments[3];
    size_t stride, rows;      /* the buffers: rows * stride + FUZZ_TAIL entries */
    gj2k_status refusal;      /* GJ2K_OK when the decoder should take it */
    unsigned passes;          /* the sum of num_passes, when taken */
} fuzz_request;

/* Reads the header (FUZZ_HEADER bytes at h) over the `rest` bytes after it. */
static void read_request(const uint8_t *h, const uint8_t *rest, size_t rest_size, fuzz_request *f)
{
    memset(f, 0, sizeof *f);
    tier1_decode_request *r = &f->request;
    const bool refuse = (h[0] & FUZZ_REFUSAL_BITS) == FUZZ_REFUSAL_BITS;
    const uint8_t breaks = h[11];
    r->data = rest;
    r->size = rest_size;
    r->num_planes = h[1] % 33u;
    r->style = TIER1_STYLE_HT | ((h[0] & 4u) ? TIER1_STYLE_VERTICALLY_CAUSAL : 0u);
    r->band = (dwt_band)(h[6] >> 6);
    uint32_t w = 1 + read16(h + 2) % TIER1_MAX_SIZE, ht = 1 + read16(h + 4) % TIER1_MAX_SIZE;
    if ((size_t)w * ht > TIER1_MAX_SAMPLES)
        ht = 1 + ht % (TIER1_MAX_SAMPLES / w);
    f->stride = w + 1 + (h[6] & 7u);
    if (refuse && (breaks & 1u)) { /* a size out of range, or a stride below the width */
        w = read16(h + 2) % 1100u;
        ht = read16(h + 4) % 1100u;
        f->stride = (breaks & 2u) && w > 0 ? w - 1 : w + 1;
    }
    r->width = w;
    r->height = ht;
    const bool bad_size = w == 0 || ht == 0 || w > TIER1_MAX_SIZE || ht > TIER1_MAX_SIZE ||
                          (size_t)w * ht > TIER1_MAX_SAMPLES || f->stride < w;
    /* a refused block gets a few rows: nothing may be written */
    f->rows = bad_size ? (ht < 4 ? ht : 4) : ht;

    /* the segments */
    const unsigned passes = 1 + ((h[0] & 3u) == 3 ? 2 : (h[0] & 3u));
    size_t l0 = read16(h + 7), l1 = read16(h + 9);
    switch ((h[0] >> 3) & 3u) {
    case 0:
    case 1: /* exact */
        l0 = passes == 1 ? rest_size : l0 % (rest_size + 1);
        l1 = rest_size - l0;
        break;
    case 2: /* as given */
        break;
    default: /* a little past the end, or near SIZE_MAX */
        l0 %= rest_size + 1;
        l1 = (l1 >> 8) == 0xFF ? SIZE_MAX - (l1 & 0xFFu) : rest_size - l0 + (l1 & 15u);
        break;
    }
    f->segments[0] = (tier1_segment){.length = l0, .num_passes = 1};
    f->segments[1] = (tier1_segment){.length = l1, .num_passes = passes - 1};
    r->num_segments = passes > 1 ? 2 : 1;
    if (refuse && !(breaks & 1u)) { /* segments of any pass counts: 0..3 of them */
        r->num_segments = (breaks >> 1) % 4u;
        f->segments[0].num_passes = (breaks >> 3) & 3u;
        f->segments[1].num_passes = (breaks >> 5) & 3u;
        f->segments[2] = (tier1_segment){.length = l1 & 15u,
                                         .num_passes = (breaks & 0x80u) ? UINT_MAX : 1};
    }
    r->segments = f->segments;

    /* what the decoder must refuse (ht_decode.h: more than one HT set,
     * placeholder passes) */
    unsigned long long total = 0;
    for (unsigned s = 0; s < r->num_segments; s++)
        total += f->segments[s].num_passes;
    f->passes = (unsigned)(total < 4 ? total : 4);
    if (bad_size)
        f->refusal = GJ2K_ERROR_INVALID_ARGUMENT;
    else if (r->num_planes > TIER1_MAX_PLANES || total > 3 ||
             (r->num_segments > 0 && f->segments[0].num_passes != 1))
        f->refusal = GJ2K_ERROR_UNSUPPORTED;
}

typedef struct fuzz_output {
    gj2k_status status;
    tier1_decode_result result;
    int32_t *coefficients;
    uint8_t *lowest;
} fuzz_output;

static void decode(const fuzz_request *f, int32_t poison, uint8_t lowest_poison, bool with_lowest,
                   fuzz_output *out)
{
    size_t entries = f->rows * f->stride + FUZZ_TAIL;
    out->coefficients = malloc(entries * sizeof *out->coefficients);
    out->lowest = malloc(entries);
    if (out->coefficients == NULL || out->lowest == NULL)
        abort();
    for (size_t i = 0; i < entries; i++)
        out->coefficients[i] = poison;
    memset(out->lowest, lowest_poison, entries);
    out->result = (tier1_decode_result){.passes_decoded = 99, .segmentation_errors = 99};
    out->status = ht_decode_block(&f->request, lookup_tables(), out->coefficients, f->stride,
                                  with_lowest ? out->lowest : NULL,
                                  with_lowest ? &out->result : NULL);
}

static void release(fuzz_output *out)
{
    free(out->coefficients);
    free(out->lowest);
}

static bool inside(const fuzz_request *f, size_t i)
{
    return i < f->rows * f->stride && i % f->stride < f->request.width;
}

/* The promises of the header comment for one decode. */
static void check(const fuzz_request *f, const fuzz_output *out, int32_t poison,
                  uint8_t lowest_poison, bool with_lowest)
{
    const gj2k_status s = out->status;
    if (s != GJ2K_OK && s != GJ2K_ERROR_MALFORMED && s != GJ2K_ERROR_TRUNCATED &&
        s != GJ2K_ERROR_UNSUPPORTED && s != GJ2K_ERROR_INVALID_ARGUMENT)
        abort();
    const bool refused = s == GJ2K_ERROR_UNSUPPORTED || s == GJ2K_ERROR_INVALID_ARGUMENT;
    if (refused ? s != f->refusal : f->refusal != GJ2K_OK)
        abort();
    const size_t entries = f->rows * f->stride + FUZZ_TAIL;
    for (size_t i = 0; i < entries; i++) {
        if (refused || !inside(f, i)) { /* untouched */
            if (out->coefficients[i] != poison || out->lowest[i] != lowest_poison)
                abort();
            continue;
        }
        if (with_lowest && out->lowest[i] == lowest_poison)
            abort();
    }
    if (refused)
        return;
    const unsigned planes = f->request.num_planes, p = planes > 0 ? planes - 1 : 0;
    const unsigned decoded = with_lowest ? out->result.passes_decoded : 0;
    if (with_lowest && (decoded > f->passes || out->result.segmentation_errors != 0))
        abort();
    const uint64_t bound = ((uint64_t)1 << 30) + (p > 0 ? (uint64_t)1 << (p - 1) : 0);
    for (size_t i = 0; i < entries; i++) {
        if (!inside(f, i))
            continue;
        int32_t c = out->coefficients[i];
        uint64_t magnitude = c < 0 ? (uint64_t)0 - (uint64_t)(int64_t)c : (uint64_t)c;
        if (magnitude > bound || ((planes == 0 || f->passes == 0) && c != 0))
            abort();
        if (!with_lowest)
            continue;
        unsigned lowest = out->lowest[i];
        if (lowest > planes || lowest > p || lowest + (decoded > 1 ? 1u : 0u) < p)
            abort();
        if (magnitude & (((uint64_t)1 << lowest) - 1))
            abort(); /* a bit below the lowest known plane */
    }
}

static void check_same(const fuzz_request *f, const fuzz_output *a, const fuzz_output *b,
                       bool lowest_too)
{
    if (a->status != b->status)
        abort();
    if (a->status == GJ2K_ERROR_UNSUPPORTED || a->status == GJ2K_ERROR_INVALID_ARGUMENT)
        return; /* nothing written */
    if (lowest_too && memcmp(&a->result, &b->result, sizeof a->result) != 0)
        abort();
    const size_t entries = f->rows * f->stride + FUZZ_TAIL;
    for (size_t i = 0; i < entries; i++)
        if (inside(f, i) && (a->coefficients[i] != b->coefficients[i] ||
                             (lowest_too && a->lowest[i] != b->lowest[i])))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FUZZ_HEADER)
        return 0;
    fuzz_request f;
    read_request(data, data + FUZZ_HEADER, size - FUZZ_HEADER, &f);
    /* poisons beyond any magnitude the decoder may write, and planes above 32 */
    static const int32_t poison[3] = {0x7FFFFFF1, -0x7FFFFFE3, 0x7A5A5A5A};
    static const uint8_t lowest_poison[3] = {0xEE, 0xD7, 0xC3};
    fuzz_output out[3];
    for (int k = 0; k < 3; k++) {
        decode(&f, poison[k], lowest_poison[k], k < 2, &out[k]);
        check(&f, &out[k], poison[k], lowest_poison[k], k < 2);
    }
    check_same(&f, &out[0], &out[1], true);
    check_same(&f, &out[0], &out[2], false);
    for (int k = 0; k < 3; k++)
        release(&out[k]);
    return 0;
}
