/* ht_decode_block.h - the HT block decoder of ITU-T T.814 written once for
 * the host (ht_decode.c) and the GPU's batch decoder (codec/tier1/cuda):
 * the HT cleanup pass (7.3: MagSgn, MEL and VLC streams, CxtVLC and U-VLC
 * codes) and the HT SigProp and MagRef passes (7.4, 7.5). Clause numbers
 * are T.814's.
 *
 * The HT cleanup segment of Lcup bytes ends with Scup, the length of its
 * MEL and VLC suffix, in 12 bits (the last byte and the low nibble of the
 * one before). Three streams share it: MagSgn forward from the start,
 * LSB first; MEL forward from Lcup - Scup, MSB first; VLC backward from
 * the high nibble of byte Lcup - 2, LSB first. The refinement segment
 * holds SigProp forward from its start and MagRef backward from its end,
 * both LSB first. Forward streams drop the MSB of a byte after 0xFF
 * (bit-stuffing); backward ones drop the MSB of a byte whose low 7 bits are
 * all ones when the byte before (above it) exceeds 0x8F. */
#ifndef GJ2K_HT_DECODE_BLOCK_H
#define GJ2K_HT_DECODE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device_code.h"
#include "ht_decode.h"

/* Bits of v (v > 0): one more than the index of its highest one. */
GJ2K_HD_INLINE unsigned ht_bits_of(uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return 32u - (unsigned)__clz(v);
#else
    return 32u - (unsigned)__builtin_clz(v);
#endif
}

/* The index of the lowest one of a quad's 4-bit pattern (not 0). */
GJ2K_HD_INLINE unsigned ht_lowest_bit(unsigned v)
{
    return (v & 1u) ? 0 : (v & 2u) ? 1 : (v & 4u) ? 2 : 3;
}

/* Loops over a quad pair's two quads and a quad's four samples unrolled,
 * so that their small arrays stay in registers (on the GPU) and their
 * indices become constants (on the host: 20% fewer instructions decoding). */
#if defined(__CUDA_ARCH__) || (defined(__clang__) && !defined(__CUDACC__))
#define HT_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define HT_UNROLL _Pragma("GCC unroll 4")
#else /* the host side of a .cu file: not where the host decodes */
#define HT_UNROLL
#endif

/* memset, on both sides. */
GJ2K_HD_INLINE void ht_fill(void *to, int value, size_t n)
{
    uint8_t *p = (uint8_t *)to;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)value;
}

/* ------------------------------------------------------- bit streams */

/* MagSgn and SigProp (7.3.2, 7.4): forward, LSB first; past the end they
 * read `fill` bytes (MagSgn 0xFF, SigProp 0). */
typedef struct forward_bits {
    const uint8_t *data;
    size_t size, pos;
    uint64_t bits;
    unsigned count;
    bool after_ff;
    uint8_t fill;
} forward_bits;

GJ2K_HD_INLINE void forward_init(forward_bits *r, const uint8_t *data, size_t size, uint8_t fill)
{
    ht_fill(r, 0, sizeof *r);
    r->data = data;
    r->size = size;
    r->fill = fill;
}

/* Whether none of the four bytes of x is 0xFF. */
GJ2K_HD_INLINE bool ht_no_ff(uint32_t x)
{
    uint32_t y = ~x; /* a byte 0xFF of x is a zero byte of y */
    return ((y - 0x01010101u) & ~y & 0x80808080u) == 0;
}

GJ2K_HD_INLINE uint32_t forward_read(forward_bits *r, unsigned n)
{
    /* four whole bytes at once while none needs unstuffing */
    if (r->count < n && r->count <= 32 && !r->after_ff && r->pos + 4 <= r->size) {
        const uint8_t *d = r->data + r->pos;
        uint32_t x = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
                     (uint32_t)d[3] << 24;
        if (ht_no_ff(x)) {
            r->bits |= (uint64_t)x << r->count;
            r->count += 32;
            r->pos += 4;
        }
    }
    while (r->count < n) {
        uint8_t b = r->pos < r->size ? r->data[r->pos] : r->fill;
        r->pos++;
        unsigned bits = r->after_ff ? 7 : 8;
        r->bits |= (uint64_t)(b & ((1u << bits) - 1)) << r->count;
        r->count += bits;
        r->after_ff = b == 0xFF;
    }
    uint32_t v = (uint32_t)(r->bits & (((uint64_t)1 << n) - 1));
    r->bits >>= n;
    r->count -= n;
    return v;
}

/* VLC and MagRef (7.3.2, 7.5): backward from `pos` down to `stop`, LSB
 * first; zeros past the end. */
typedef struct backward_bits {
    const uint8_t *data;
    ptrdiff_t pos, stop;
    uint64_t bits;
    unsigned count;
    uint8_t previous;
} backward_bits;

GJ2K_HD_INLINE void backward_init(backward_bits *r, const uint8_t *data, ptrdiff_t pos,
                                  ptrdiff_t stop, uint8_t previous)
{
    ht_fill(r, 0, sizeof *r);
    r->data = data;
    r->pos = pos;
    r->stop = stop;
    r->previous = previous;
}

GJ2K_HD_INLINE void backward_fill(backward_bits *r, unsigned n)
{
    while (r->count < n) {
        if (r->pos < r->stop) { /* exhausted: zeros */
            r->count += 8;
            continue;
        }
        uint8_t b = r->data[r->pos--];
        unsigned bits = r->previous > 0x8F && (b & 0x7F) == 0x7F ? 7 : 8;
        r->bits |= (uint64_t)(b & ((1u << bits) - 1)) << r->count;
        r->count += bits;
        r->previous = b;
    }
}

GJ2K_HD_INLINE uint32_t backward_peek(backward_bits *r, unsigned n)
{
    backward_fill(r, n);
    return (uint32_t)(r->bits & (((uint64_t)1 << n) - 1));
}

GJ2K_HD_INLINE void backward_skip(backward_bits *r, unsigned n)
{
    r->bits >>= n;
    r->count -= n;
}

GJ2K_HD_INLINE uint32_t backward_read(backward_bits *r, unsigned n)
{
    uint32_t v = backward_peek(r, n);
    backward_skip(r, n);
    return v;
}

/* MEL (7.3.3): adaptive run lengths, bits forward MSB first, the last byte
 * of its range with its low nibble taken as ones, then 0xFF bytes. */
typedef struct mel_decoder {
    const uint8_t *data;
    size_t pos, end;
    uint8_t byte;
    unsigned left, k, run;
    bool after_ff, one;
} mel_decoder;

/* The MEL exponent E of state k (Table 2): 0 0 0 1 1 1 2 2 2 3 3 4 5. */
GJ2K_HD_INLINE unsigned ht_mel_exponent(unsigned k)
{
    return k < 9 ? k / 3 : k < 11 ? 3 : k - 7;
}

GJ2K_HD_INLINE unsigned mel_bit(mel_decoder *m)
{
    if (m->left == 0) {
        uint8_t b = 0xFF;
        if (m->pos < m->end)
            b = m->pos + 1 == m->end ? (uint8_t)(m->data[m->pos] | 0x0F) : m->data[m->pos];
        m->pos++;
        m->left = m->after_ff ? 7 : 8;
        m->after_ff = b == 0xFF;
        m->byte = b;
    }
    m->left--;
    return (m->byte >> m->left) & 1u;
}

/* The next MEL symbol: a 1 bit is a run of 2^E zeros; a 0 bit and E more
 * bits (MSB first) a run of that many zeros and then a one. */
GJ2K_HD_INLINE unsigned mel_symbol(mel_decoder *m)
{
    if (m->run == 0 && !m->one) {
        unsigned e = ht_mel_exponent(m->k);
        if (mel_bit(m)) {
            m->run = 1u << e;
            m->k += m->k < 12;
        } else {
            unsigned r = 0;
            for (unsigned i = 0; i < e; i++)
                r = r << 1 | mel_bit(m);
            m->run = r;
            m->one = true;
            m->k -= m->k > 0;
        }
    }
    if (m->run > 0) {
        m->run--;
        return 0;
    }
    m->one = false;
    return 1;
}

/* ------------------------------------------------------- cleanup pass */

/* U-VLC (7.3.6): the prefix (1, 2, 3 or 5), then the suffix of its length
 * and, for suffixes of 28 and more, a 4-bit extension. */
GJ2K_HD_INLINE unsigned uvlc_prefix(backward_bits *vlc)
{
    uint32_t t = backward_peek(vlc, 3);
    if (t & 1u) {
        backward_skip(vlc, 1);
        return 1;
    }
    if (t & 2u) {
        backward_skip(vlc, 2);
        return 2;
    }
    backward_skip(vlc, 3);
    return t & 4u ? 3 : 5;
}

GJ2K_HD_INLINE unsigned uvlc_suffix(backward_bits *vlc, unsigned prefix)
{
    return prefix == 3 ? backward_read(vlc, 1) : prefix == 5 ? backward_read(vlc, 5) : 0;
}

GJ2K_HD_INLINE unsigned uvlc_extension(backward_bits *vlc, unsigned suffix)
{
    return suffix >= 28 ? backward_read(vlc, 4) : 0;
}

GJ2K_HD_INLINE unsigned max4(unsigned a, unsigned b, unsigned c, unsigned d)
{
    unsigned m = a > b ? a : b, n = c > d ? c : d;
    return m > n ? m : n;
}

/* The HT cleanup pass (7.3) of a w x h block at plane p: signed values
 * into `coefficients`, 1 in `significant` (when not NULL: the refinement
 * passes need it) for each significant sample; `rows`: 2 (w + 4) bytes of
 * scratch. */
GJ2K_HD_STATIC gj2k_status ht_cleanup_pass(const uint8_t *d, size_t lcup, unsigned p,
                                           const ht_lookup *lookup, uint32_t w, uint32_t h,
                                           int32_t *coefficients, size_t stride,
                                           uint8_t *significant, uint8_t *rows)
{
    if (lcup < 2)
        return GJ2K_ERROR_MALFORMED;
    size_t scup = (size_t)d[lcup - 1] << 4 | (d[lcup - 2] & 0x0Fu);
    if (scup < 2 || scup > lcup || scup > 4079)
        return GJ2K_ERROR_MALFORMED;
    size_t pcup = lcup - scup;
    forward_bits magsgn;
    forward_init(&magsgn, d, pcup, 0xFF);
    mel_decoder mel;
    ht_fill(&mel, 0, sizeof mel);
    mel.data = d;
    mel.pos = pcup;
    mel.end = lcup - 1;
    backward_bits vlc;
    backward_init(&vlc, d, (ptrdiff_t)lcup - 3, (ptrdiff_t)pcup, 0);
    uint8_t last = (uint8_t)(d[lcup - 2] | 0x0F);
    vlc.bits = last >> 4;
    vlc.count = 4;
    if (((last >> 4) & 7u) == 7u) { /* the nibble's top bit is a stuffed one */
        vlc.bits &= 7u;
        vlc.count = 3;
    }
    vlc.previous = last;

    /* the exponents E of the bottom sample row of the quad row above, and of
     * this one, at column x + 1 (the borders stay 0) */
    ht_fill(rows, 0, 2 * ((size_t)w + 4));
    uint8_t *above = rows, *below = rows + w + 4;
    const uint32_t qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (uint32_t r = 0; r < qh; r++) {
        const bool initial = r == 0;
        const uint16_t *table = lookup->entry[initial ? 0 : 1];
        ht_fill(below, 0, w + 4);
        unsigned left = 0; /* rho of the quad to the left */
        for (uint32_t q = 0; q < qw; q += 2) {
            const unsigned count = q + 1 < qw ? 2 : 1;
            unsigned rho[2] = {0, 0}, u_off[2] = {0, 0}, e_k[2] = {0, 0}, e_1[2] = {0, 0};
            HT_UNROLL for (unsigned k = 0; k < 2; k++) {
                if (k >= count)
                    break;
                const uint8_t *a = above + 2 * (q + k) + 1; /* a[-1]: the column to the left */
                unsigned c;
                if (initial) /* eq. 1 */
                    c = ((left & 3u) != 0) | ((left >> 2) & 1u) << 1 | ((left >> 3) & 1u) << 2;
                else /* eq. 2 */
                    c = (a[-1] || a[0]) | (((left >> 2) | (left >> 3)) & 1u) << 1 |
                        (unsigned)(a[1] || a[2]) << 2;
                if (c == 0 && mel_symbol(&mel) == 0) { /* an insignificant quad */
                    left = 0;
                    continue;
                }
                uint16_t entry = table[c << 7 | backward_peek(&vlc, 7)];
                if (entry == 0)
                    return GJ2K_ERROR_MALFORMED;
                backward_skip(&vlc, entry >> 13);
                rho[k] = entry & 15u;
                u_off[k] = (entry >> 4) & 1u;
                e_k[k] = (entry >> 5) & 15u;
                e_1[k] = (entry >> 9) & 15u;
                left = rho[k];
            }
            /* u_q (7.3.6) */
            unsigned u[2] = {0, 0};
            if (u_off[0] && u_off[1]) {
                if (initial && mel_symbol(&mel) == 0) {
                    unsigned p1 = uvlc_prefix(&vlc);
                    if (p1 > 2) {
                        u[1] = backward_read(&vlc, 1) + 1;
                        unsigned s1 = uvlc_suffix(&vlc, p1);
                        u[0] = p1 + s1 + 4 * uvlc_extension(&vlc, s1);
                    } else {
                        unsigned p2 = uvlc_prefix(&vlc);
                        unsigned s2 = uvlc_suffix(&vlc, p2);
                        u[0] = p1;
                        u[1] = p2 + s2 + 4 * uvlc_extension(&vlc, s2);
                    }
                } else {
                    unsigned p1 = uvlc_prefix(&vlc), p2 = uvlc_prefix(&vlc);
                    unsigned s1 = uvlc_suffix(&vlc, p1), s2 = uvlc_suffix(&vlc, p2);
                    unsigned x1 = uvlc_extension(&vlc, s1), x2 = uvlc_extension(&vlc, s2);
                    unsigned bias = initial ? 2 : 0; /* the first row's pair after a MEL 1 */
                    u[0] = bias + p1 + s1 + 4 * x1;
                    u[1] = bias + p2 + s2 + 4 * x2;
                }
            } else if (u_off[0] || u_off[1]) {
                unsigned p1 = uvlc_prefix(&vlc), s1 = uvlc_suffix(&vlc, p1);
                unsigned value = p1 + s1 + 4 * uvlc_extension(&vlc, s1);
                if (u_off[0])
                    u[0] = value;
                else
                    u[1] = value;
            }
            /* MagSgn (7.3.8): each significant sample's magnitude and sign */
            HT_UNROLL for (unsigned k = 0; k < 2; k++) {
                if (k >= count)
                    break;
                if (rho[k] == 0)
                    continue;
                const uint32_t x = 2 * (q + k);
                unsigned kappa = 1; /* the exponent predictor (7.3.7) */
                if (!initial && (rho[k] & (rho[k] - 1))) {
                    const uint8_t *a = above + x + 1;
                    unsigned e = max4(a[-1], a[0], a[1], a[2]);
                    kappa = e > 2 ? e - 1 : 1;
                }
                unsigned bound = kappa + u[k];
                if (bound - 1 + p > 30)
                    return GJ2K_ERROR_MALFORMED;
                HT_UNROLL for (unsigned n = 0; n < 4; n++) { /* the samples in order */
                    if (!((rho[k] >> n) & 1u))
                        continue;
                    unsigned m = bound - ((e_k[k] >> n) & 1u);
                    uint32_t v = forward_read(&magsgn, m) + (((e_1[k] >> n) & 1u) << m);
                    uint32_t mu = (v >> 1) + 1, sx = x + (n >> 1), sy = 2 * r + (n & 1u);
                    unsigned exponent = ht_bits_of(v | 1u); /* bits of v */
                    if (n & 1u)
                        below[sx + 1] = (uint8_t)exponent;
                    if (sx < w && sy < h) {
                        int32_t magnitude = (int32_t)(mu << p);
                        coefficients[(size_t)sy * stride + sx] = (v & 1u) ? -magnitude : magnitude;
                        if (significant != NULL)
                            significant[(size_t)sy * w + sx] = 1;
                    }
                }
            }
        }
        uint8_t *t = above;
        above = below;
        below = t;
    }
    return GJ2K_OK;
}

/* ------------------------------------------------- refinement passes */

/* Whether a neighbour of (x, y) is significant: after the cleanup pass or
 * earlier in this SigProp pass; in vertically causal mode the last row of
 * a stripe does not see the stripe below. */
GJ2K_HD_INLINE bool has_significant_neighbour(const uint8_t *cleanup, const uint8_t *added,
                                              uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                                              bool stripe_end_causal)
{
    uint32_t y1 = y + 1 < h && !stripe_end_causal ? y + 1 : y;
    uint32_t x0 = x > 0 ? x - 1 : 0, x1 = x + 1 < w ? x + 1 : x;
    for (uint32_t ny = y > 0 ? y - 1 : 0; ny <= y1; ny++)
        for (uint32_t nx = x0; nx <= x1; nx++)
            if ((nx != x || ny != y) && (cleanup[(size_t)ny * w + nx] | added[(size_t)ny * w + nx]))
                return true;
    return false;
}

/* HT SigProp (7.4) and, with two passes, HT MagRef (7.5) at plane p - 1. */
GJ2K_HD_STATIC void ht_refinement_passes(const uint8_t *d, size_t lref, unsigned passes, unsigned p,
                              bool causal, uint32_t w, uint32_t h, int32_t *coefficients,
                              size_t stride, const uint8_t *significant, uint8_t *added,
                              uint8_t *lowest)
{
    const unsigned plane = p - 1;
    forward_bits sigprop;
    forward_init(&sigprop, d, lref, 0x00);
    ht_fill(added, 0, (size_t)w * h);
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t y_end = h - y0 < 4 ? h : y0 + 4;
        for (uint32_t x0 = 0; x0 < w; x0 += 4) { /* groups of 4 columns */
            uint32_t x_end = w - x0 < 4 ? w : x0 + 4;
            for (uint32_t x = x0; x < x_end; x++)
                for (uint32_t y = y0; y < y_end; y++) {
                    size_t i = (size_t)y * w + x;
                    if (significant[i] ||
                        !has_significant_neighbour(significant, added, w, h, x, y,
                                                   causal && y == y0 + 3))
                        continue;
                    if (lowest != NULL)
                        lowest[(size_t)y * stride + x] = (uint8_t)plane;
                    added[i] = (uint8_t)forward_read(&sigprop, 1);
                }
            for (uint32_t x = x0; x < x_end; x++) /* then the signs of the group's new ones */
                for (uint32_t y = y0; y < y_end; y++) {
                    size_t i = (size_t)y * w + x;
                    if (!added[i])
                        continue;
                    int32_t magnitude = (int32_t)(1u << plane);
                    coefficients[(size_t)y * stride + x] =
                        forward_read(&sigprop, 1) ? -magnitude : magnitude;
                }
        }
    }
    if (passes < 2)
        return;
    backward_bits magref;
    backward_init(&magref, d, (ptrdiff_t)lref - 1, 0, 0xFF);
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t y_end = h - y0 < 4 ? h : y0 + 4;
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t y = y0; y < y_end; y++) {
                size_t i = (size_t)y * w + x;
                if (!significant[i])
                    continue;
                int32_t *c = &coefficients[(size_t)y * stride + x];
                int32_t bit = (int32_t)(backward_read(&magref, 1) << plane);
                *c = *c < 0 ? *c - bit : *c + bit;
                if (lowest != NULL)
                    lowest[(size_t)y * stride + x] = (uint8_t)plane;
            }
    }
}

/* The scratch ht_decode_block_in takes for a width x height block. */
GJ2K_HD_INLINE size_t ht_decode_scratch_bytes(uint32_t width, uint32_t height)
{
    return 2 * (size_t)width * height + 2 * ((size_t)width + 4);
}

/* ht_decode_block with its scratch given: ht_decode_scratch_bytes. */
GJ2K_HD_STATIC gj2k_status ht_decode_block_in(const tier1_decode_request *request,
                                              const ht_lookup *lookup, int32_t *coefficients,
                                              size_t stride, uint8_t *lowest_known_plane,
                                              uint8_t *scratch, tier1_decode_result *result)
{
    const uint32_t w = request->width, h = request->height;
    uint8_t *significant = scratch, *added = scratch + (size_t)w * h;
    uint8_t *rows = added + (size_t)w * h;
    if (w == 0 || h == 0 || w > TIER1_MAX_SIZE || h > TIER1_MAX_SIZE ||
        (size_t)w * h > TIER1_MAX_SAMPLES || stride < w)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    unsigned passes = 0;
    size_t bytes = 0;
    for (unsigned s = 0; s < request->num_segments; s++) {
        const unsigned n = request->segments[s].num_passes;
        if (passes <= 3) /* past 3 the count is refused: no wrap-around */
            passes += n < 4 ? n : 4;
        const size_t length = request->segments[s].length;
        bytes = length < SIZE_MAX - bytes ? bytes + length : SIZE_MAX; /* >= lcup, no wrap */
    }
    if (request->num_planes > TIER1_MAX_PLANES || passes > 3 ||
        (request->num_segments > 0 && request->segments[0].num_passes != 1))
        return GJ2K_ERROR_UNSUPPORTED; /* placeholder passes; more than one HT set */
    for (uint32_t y = 0; y < h; y++)
        ht_fill(coefficients + (size_t)y * stride, 0, w * sizeof *coefficients);
    const unsigned p = request->num_planes > 0 ? request->num_planes - 1 : 0;
    if (lowest_known_plane != NULL) /* rows stride apart, as the coefficients' (tier1.h) */
        for (uint32_t y = 0; y < h; y++)
            ht_fill(lowest_known_plane + (size_t)y * stride, (int)p, w);
    if (result != NULL) {
        result->passes_decoded = 0;
        result->segmentation_errors = 0;
    }
    if (passes == 0)
        return GJ2K_OK;
    if (request->num_planes == 0)
        return GJ2K_ERROR_MALFORMED;
    size_t lcup = request->segments[0].length;
    if (lcup > request->size)
        return GJ2K_ERROR_TRUNCATED;
    const bool refine = passes > 1 && p > 0;
    if (refine)
        ht_fill(significant, 0, (size_t)w * h);
    gj2k_status status = ht_cleanup_pass(request->data, lcup, p, lookup, w, h, coefficients,
                                         stride, refine ? significant : NULL, rows);
    if (status != GJ2K_OK)
        return status;
    if (result != NULL)
        result->passes_decoded = 1;
    size_t lref = (bytes < request->size ? bytes : request->size) - lcup;
    if (refine && lref > 0) {
        ht_refinement_passes(request->data + lcup, lref, passes - 1, p,
                          (request->style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0, w, h,
                          coefficients, stride, significant, added, lowest_known_plane);
        if (result != NULL)
            result->passes_decoded = passes;
    }
    return bytes > request->size ? GJ2K_ERROR_TRUNCATED : GJ2K_OK;
}

#endif
