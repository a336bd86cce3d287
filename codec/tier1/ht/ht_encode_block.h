/* ht_encode_block.h - the HT cleanup pass encoder of ITU-T T.814 (7.3)
 * written once for the host (ht_encode.c) and the GPU's batch encoder
 * (codec/tier1/cuda): the mirror of ht_decode_block.h. Clause numbers are
 * T.814's.
 *
 * The segment is written as the decoder reads it: MagSgn forward from the
 * start (LSB first, a byte after 0xFF holds 7 bits), then the MEL bytes
 * (MSB first, the same stuffing), then the VLC bytes in reverse order of
 * writing (LSB first; after a byte above 0x8F, one whose low 7 bits are
 * all ones holds 7 bits), the first VLC bits in the high nibble of byte
 * Lcup - 2, and Scup in the low nibble of that byte and the whole of the
 * last. */
#ifndef GJ2K_HT_ENCODE_BLOCK_H
#define GJ2K_HT_ENCODE_BLOCK_H

#include "ht_decode_block.h"
#include "ht_encode.h"

/* The scratch ht_encode_cleanup_in takes for a block `width` wide: the MEL
 * and VLC bytes and two rows of exponents. */
GJ2K_HD_INLINE size_t ht_encode_scratch_bytes(uint32_t width)
{
    return 2 * ((size_t)HT_MAX_SCUP + 1) + 2 * ((size_t)width + 4);
}

/* ------------------------------------------------------- bit streams */

/* MagSgn (7.3.2): forward, LSB first. */
typedef struct magsgn_writer {
    uint8_t *data;
    size_t pos, capacity;
    uint64_t bits;
    unsigned count, room; /* room: bits the next byte holds (7 after 0xFF) */
    bool overflow;
} magsgn_writer;

GJ2K_HD_INLINE void magsgn_put(magsgn_writer *w, uint32_t value, unsigned n)
{
    w->bits |= (uint64_t)value << w->count;
    w->count += n;
    while (w->count >= w->room) {
        uint8_t b = (uint8_t)(w->bits & ((1u << w->room) - 1));
        if (w->pos < w->capacity)
            w->data[w->pos] = b;
        else
            w->overflow = true;
        w->pos++;
        w->bits >>= w->room;
        w->count -= w->room;
        w->room = b == 0xFF ? 7 : 8;
    }
}

/* Pads the last byte with ones; a final 0xFF goes, as the decoder reads
 * 0xFF past the end. */
GJ2K_HD_INLINE void magsgn_finish(magsgn_writer *w)
{
    if (w->count > 0)
        magsgn_put(w, (1u << (w->room - w->count)) - 1, w->room - w->count);
    if (w->pos > 0 && w->pos <= w->capacity && w->data[w->pos - 1] == 0xFF)
        w->pos--;
}

/* MEL (7.3.3): the adaptive run-length coder, bits MSB first. */
typedef struct mel_writer {
    uint8_t *data;
    size_t pos, capacity;
    unsigned byte, count, room;
    unsigned k, run;
    bool overflow;
} mel_writer;

GJ2K_HD_INLINE void mel_put_bit(mel_writer *m, unsigned bit)
{
    m->byte = m->byte << 1 | bit;
    if (++m->count < m->room)
        return;
    if (m->pos < m->capacity)
        m->data[m->pos++] = (uint8_t)m->byte;
    else
        m->overflow = true;
    m->room = m->byte == 0xFF ? 7 : 8;
    m->byte = 0;
    m->count = 0;
}

/* One MEL symbol: 0 (an insignificant quad) or 1. */
GJ2K_HD_INLINE void mel_put_symbol(mel_writer *m, unsigned symbol)
{
    unsigned e = ht_mel_exponent(m->k);
    if (symbol == 0) {
        if (++m->run == 1u << e) { /* a full run: 1 */
            mel_put_bit(m, 1);
            m->run = 0;
            m->k += m->k < 12;
        }
        return;
    }
    mel_put_bit(m, 0); /* the run so far, then the one */
    for (unsigned i = e; i-- > 0;)
        mel_put_bit(m, (m->run >> i) & 1u);
    m->run = 0;
    m->k -= m->k > 0;
}

/* An unfinished run is sent as a full one (the decoder reads no further);
 * the last byte is padded with zeros, and a final 0xFF gets a zero byte
 * after it so that it is not followed by a VLC byte above 0x8F. */
GJ2K_HD_INLINE void mel_put_finish(mel_writer *m)
{
    if (m->run > 0)
        mel_put_bit(m, 1);
    while (m->count > 0)
        mel_put_bit(m, 0);
    if (m->pos > 0 && m->data[m->pos - 1] == 0xFF) {
        if (m->pos < m->capacity)
            m->data[m->pos++] = 0;
        else
            m->overflow = true;
    }
}

/* VLC (7.3.2): backward, LSB first; bytes kept in writing order, the first
 * one the nibble of byte Lcup - 2. */
typedef struct vlc_writer {
    uint8_t *data;
    size_t pos, capacity;
    uint64_t bits;
    unsigned count;
    uint8_t previous; /* the byte last written (the nibble with 0xF below) */
    uint8_t nibble;   /* the first bits, for the high nibble of byte Lcup - 2 */
    bool nibble_done, overflow;
} vlc_writer;

GJ2K_HD_INLINE void vlc_emit(vlc_writer *v, uint8_t b)
{
    if (v->pos < v->capacity)
        v->data[v->pos++] = b;
    else
        v->overflow = true;
}

/* Writes out whole bytes; with `finish`, the last one padded with zeros. */
GJ2K_HD_INLINE void vlc_drain(vlc_writer *v, bool finish)
{
    for (;;) {
        if (finish && v->count == 0 && v->nibble_done)
            return;
        if (!v->nibble_done) { /* 3 bits, or 4 unless the 3 are ones */
            if (v->count < 3 && !finish)
                return;
            if ((v->bits & 7u) == 7u && v->count >= 3) {
                v->nibble = 7; /* its top bit a stuffed zero */
                v->previous = 0x7F;
                v->bits >>= 3;
                v->count -= 3;
            } else {
                if (v->count < 4 && !finish)
                    return;
                unsigned nibble = (unsigned)(v->bits & 15u);
                v->nibble = (uint8_t)nibble;
                v->previous = (uint8_t)(nibble << 4 | 0x0Fu);
                v->bits >>= 4;
                v->count = v->count > 4 ? v->count - 4 : 0;
            }
            v->nibble_done = true;
            continue;
        }
        if (v->count == 0 || (v->count < 7 && !finish))
            return;
        if (v->previous > 0x8F && (v->bits & 0x7Fu) == 0x7Fu && v->count >= 7) {
            vlc_emit(v, 0x7F); /* the stuffed zero on top */
            v->previous = 0x7F;
            v->bits >>= 7;
            v->count -= 7;
            continue;
        }
        if (v->count < 8 && !finish)
            return;
        uint8_t b = (uint8_t)(v->bits & 0xFFu);
        vlc_emit(v, b);
        v->previous = b;
        v->bits >>= 8;
        v->count = v->count > 8 ? v->count - 8 : 0;
    }
}

GJ2K_HD_INLINE void vlc_put(vlc_writer *v, uint32_t value, unsigned n)
{
    v->bits |= (uint64_t)value << v->count;
    v->count += n;
    if (v->count >= 32)
        vlc_drain(v, false);
}

/* U-VLC (7.3.6) of u >= 1: the prefix, then its suffix and extension. */
GJ2K_HD_INLINE void uvlc_put_prefix(vlc_writer *v, unsigned u)
{
    if (u == 1)
        vlc_put(v, 1, 1);
    else if (u == 2)
        vlc_put(v, 2, 2);
    else if (u <= 4)
        vlc_put(v, 4, 3);
    else
        vlc_put(v, 0, 3);
}

GJ2K_HD_INLINE void uvlc_put_suffix(vlc_writer *v, unsigned u)
{
    if (u == 3 || u == 4)
        vlc_put(v, u - 3, 1);
    else if (u >= 5)
        vlc_put(v, u - 5 < 28 ? u - 5 : 28 + ((u - 33) & 3u), 5);
}

GJ2K_HD_INLINE void uvlc_put_extension(vlc_writer *v, unsigned u)
{
    if (u >= 33)
        vlc_put(v, (u - 33) >> 2, 4);
}

/* ------------------------------------------------------- cleanup pass */

typedef struct quad {
    unsigned rho, u_off, e_k, bound, e_max, kappa;
    uint32_t v[4];
    uint8_t e[4];
} quad;

GJ2K_HD_INLINE unsigned ht_max4(unsigned a, unsigned b, unsigned c, unsigned d)
{
    unsigned m = a > b ? a : b, n = c > d ? c : d;
    return m > n ? m : n;
}

/* The quad's samples at plane p (n: 0 top-left, 1 bottom-left, 2 top-right,
 * 3 bottom-right): v = 2 (mu - 1) + sign and the exponent E = bits of
 * 2 mu - 1 of each significant one (7.3.8). */
/* One sample of a quad (n: its index) at plane p. */
GJ2K_HD_INLINE void quad_sample(quad *qd, unsigned n, int32_t value, unsigned p)
{
    uint32_t magnitude = value < 0 ? (uint32_t)0 - (uint32_t)value : (uint32_t)value;
    uint32_t mu = magnitude >> p;
    qd->e[n] = 0;
    qd->v[n] = 0;
    if (mu == 0)
        return;
    qd->rho |= 1u << n;
    qd->v[n] = 2 * (mu - 1) + (value < 0);
    qd->e[n] = (uint8_t)ht_bits_of(2 * mu - 1);
    if (qd->e[n] > qd->e_max)
        qd->e_max = qd->e[n];
}

GJ2K_HD_INLINE void quad_load(quad *qd, const int32_t *c, size_t stride, uint32_t w, uint32_t h,
                      uint32_t x, uint32_t y, unsigned p)
{
    qd->rho = 0;
    qd->e_max = 0;
    const int32_t *top = c + (size_t)y * stride + x;
    if (x + 1 < w && y + 1 < h) { /* inside the block: no edge to test */
        quad_sample(qd, 0, top[0], p);
        quad_sample(qd, 1, top[stride], p);
        quad_sample(qd, 2, top[1], p);
        quad_sample(qd, 3, top[stride + 1], p);
        return;
    }
    HT_UNROLL for (unsigned n = 0; n < 4; n++) {
        uint32_t sx = x + (n >> 1), sy = y + (n & 1u);
        quad_sample(qd, n, sx < w && sy < h ? c[(size_t)sy * stride + sx] : 0, p);
    }
}

/* ht_encode_cleanup with its scratch given: ht_encode_scratch_bytes. */
GJ2K_HD_STATIC gj2k_status ht_encode_cleanup_in(const int32_t *coefficients, size_t stride,
                                                uint32_t width, uint32_t height, unsigned plane,
                                                const ht_encode_tables *tables, uint8_t *out,
                                                size_t capacity, uint8_t *scratch, size_t *length)
{
    *length = 0;
    const uint32_t w = width, h = height;
    if (coefficients == NULL || tables == NULL || out == NULL || w == 0 || h == 0 ||
        w > TIER1_MAX_SIZE || h > TIER1_MAX_SIZE || (size_t)w * h > TIER1_MAX_SAMPLES ||
        stride < w || plane > 30)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    mel_writer mel;
    vlc_writer vlc;
    magsgn_writer magsgn;
    ht_fill(&mel, 0, sizeof mel);
    ht_fill(&vlc, 0, sizeof vlc);
    ht_fill(&magsgn, 0, sizeof magsgn);
    mel.data = scratch;
    mel.capacity = HT_MAX_SCUP + 1;
    mel.room = 8;
    vlc.data = scratch + HT_MAX_SCUP + 1;
    vlc.capacity = HT_MAX_SCUP + 1;
    magsgn.data = out;
    magsgn.capacity = capacity;
    magsgn.room = 8;

    uint8_t *above = scratch + 2 * (HT_MAX_SCUP + 1), *below = above + w + 4;
    ht_fill(above, 0, 2 * ((size_t)w + 4));
    const uint32_t qw = (w + 1) / 2, qh = (h + 1) / 2;
    for (uint32_t r = 0; r < qh; r++) {
        const bool initial = r == 0;
        ht_fill(below, 0, (size_t)w + 4);
        unsigned left = 0;
        for (uint32_t q = 0; q < qw; q += 2) {
            const unsigned count = q + 1 < qw ? 2 : 1;
            quad quads[2];
            ht_fill(quads, 0, sizeof quads); /* the second stays empty at a row's odd end */
            HT_UNROLL for (unsigned k = 0; k < 2; k++) {
                if (k >= count)
                    break;
                quad *qd = &quads[k];
                const uint32_t x = 2 * (q + k);
                quad_load(qd, coefficients, stride, w, h, x, 2 * r, plane);
                const uint8_t *a = above + x + 1;
                unsigned c;
                if (initial) /* eq. 1 */
                    c = ((left & 3u) != 0) | ((left >> 2) & 1u) << 1 | ((left >> 3) & 1u) << 2;
                else /* eq. 2 */
                    c = (a[-1] || a[0]) | (((left >> 2) | (left >> 3)) & 1u) << 1 |
                        (unsigned)(a[1] || a[2]) << 2;
                unsigned kappa = 1; /* 7.3.7 */
                if (!initial && (qd->rho & (qd->rho - 1))) {
                    unsigned e = ht_max4(a[-1], a[0], a[1], a[2]);
                    kappa = e > 2 ? e - 1 : 1;
                }
                qd->kappa = kappa;
                qd->bound = qd->e_max > kappa ? qd->e_max : kappa;
                qd->u_off = qd->bound > kappa;
                qd->e_k = 0;
                if (qd->bound - 1 + plane > 30)
                    return GJ2K_ERROR_LIMIT;
                if (c == 0)
                    mel_put_symbol(&mel, qd->rho != 0);
                if (c == 0 && qd->rho == 0) {
                    left = 0;
                    continue;
                }
                unsigned eps = 0;
                if (qd->u_off)
                    HT_UNROLL for (unsigned n = 0; n < 4; n++)
                        eps |= (unsigned)(qd->e[n] == qd->bound && qd->e[n] != 0) << n;
                uint16_t code = tables->code[initial ? 0 : 1][c][qd->rho][qd->u_off][eps];
                if (code == 0)
                    return GJ2K_ERROR_NOT_IMPLEMENTED; /* never: the tables cover every case */
                vlc_put(&vlc, code & 0x7Fu, (code >> 7) & 7u);
                qd->e_k = (code >> 10) & 15u;
                left = qd->rho;
            }
            /* u_q = U_q - kappa_q (7.3.6) */
            unsigned uq[2] = {0, 0}, off[2] = {0, 0};
            HT_UNROLL for (unsigned k = 0; k < 2; k++) {
                if (k >= count)
                    break;
                off[k] = quads[k].u_off;
                uq[k] = quads[k].bound - quads[k].kappa;
            }
            if (off[0] && off[1]) {
                if (initial && uq[0] > 2 && uq[1] > 2) { /* MEL 1: both less 2 */
                    mel_put_symbol(&mel, 1);
                    uvlc_put_prefix(&vlc, uq[0] - 2);
                    uvlc_put_prefix(&vlc, uq[1] - 2);
                    uvlc_put_suffix(&vlc, uq[0] - 2);
                    uvlc_put_suffix(&vlc, uq[1] - 2);
                    uvlc_put_extension(&vlc, uq[0] - 2);
                    uvlc_put_extension(&vlc, uq[1] - 2);
                } else if (initial) { /* MEL 0 */
                    mel_put_symbol(&mel, 0);
                    if (uq[0] > 2) { /* then u[1] is 1 or 2: one bit */
                        uvlc_put_prefix(&vlc, uq[0]);
                        vlc_put(&vlc, uq[1] - 1, 1);
                        uvlc_put_suffix(&vlc, uq[0]);
                        uvlc_put_extension(&vlc, uq[0]);
                    } else {
                        uvlc_put_prefix(&vlc, uq[0]);
                        uvlc_put_prefix(&vlc, uq[1]);
                        uvlc_put_suffix(&vlc, uq[1]);
                        uvlc_put_extension(&vlc, uq[1]);
                    }
                } else {
                    uvlc_put_prefix(&vlc, uq[0]);
                    uvlc_put_prefix(&vlc, uq[1]);
                    uvlc_put_suffix(&vlc, uq[0]);
                    uvlc_put_suffix(&vlc, uq[1]);
                    uvlc_put_extension(&vlc, uq[0]);
                    uvlc_put_extension(&vlc, uq[1]);
                }
            } else if (off[0] || off[1]) {
                unsigned u = off[0] ? uq[0] : uq[1];
                uvlc_put_prefix(&vlc, u);
                uvlc_put_suffix(&vlc, u);
                uvlc_put_extension(&vlc, u);
            }
            /* MagSgn (7.3.8) */
            HT_UNROLL for (unsigned k = 0; k < 2; k++) {
                if (k >= count)
                    break;
                const quad *qd = &quads[k];
                HT_UNROLL for (unsigned n = 0; n < 4; n++) { /* the samples in order */
                    if (!((qd->rho >> n) & 1u))
                        continue;
                    unsigned m = qd->bound - ((qd->e_k >> n) & 1u);
                    magsgn_put(&magsgn, qd->v[n] & (uint32_t)((1ull << m) - 1), m);
                    if (n & 1u)
                        below[2 * (q + k) + (n >> 1) + 1] = qd->e[n];
                }
            }
        }
        uint8_t *t = above;
        above = below;
        below = t;
    }
    magsgn_finish(&magsgn);
    mel_put_finish(&mel);
    vlc_drain(&vlc, true);
    size_t scup = mel.pos + vlc.pos + 2; /* and the nibble's byte and the last */
    if (mel.overflow || vlc.overflow || scup > HT_MAX_SCUP)
        return GJ2K_ERROR_LIMIT;
    size_t pcup = magsgn.pos, lcup = pcup + scup;
    if (magsgn.overflow || lcup > capacity)
        return GJ2K_ERROR_LIMIT;
    uint8_t *d = out + pcup;
    for (size_t i = 0; i < mel.pos; i++)
        *d++ = mel.data[i];
    for (size_t i = vlc.pos; i-- > 0;) /* the VLC bytes, last written first */
        *d++ = vlc.data[i];
    *d++ = (uint8_t)(vlc.nibble << 4 | (scup & 15u));
    *d = (uint8_t)(scup >> 4);
    *length = lcup;
    return GJ2K_OK;
}

/* The squared error, in squared quantization steps, that sending a block
 * coded at plane 0 removes (ht_encoded_block's distortion_reduction of a
 * lone plane-0 choice): the sum of a^2 less that of (a - r)^2, a being |q|
 * plus its fraction (fractions may be NULL) and r the reconstruction
 * (|q|, plus 1/2 with fractions, for q != 0). */
GJ2K_HD_STATIC double ht_plane0_reduction(const int32_t *c, const uint8_t *fractions, size_t stride,
                                          uint32_t w, uint32_t h)
{
    if (fractions == NULL) { /* every value reconstructed exactly: the energy */
        double energy = 0.0;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                int64_t v = c[(size_t)y * stride + x];
                energy += (double)(v * v);
            }
        return energy;
    }
    double energy = 0.0, error = 0.0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t value = c[(size_t)y * stride + x];
            uint32_t m = value < 0 ? (uint32_t)0 - (uint32_t)value : (uint32_t)value;
            double a = (double)m + fractions[(size_t)y * stride + x] / 256.0;
            double r = m != 0 ? (double)m + 0.5 : 0.0;
            energy += a * a;
            error += (a - r) * (a - r);
        }
    return energy - error;
}

/* The HT refinement segment (7.4, 7.5) of a block whose cleanup pass
 * coded plane p >= 1: SigProp forward from its start (a bit for each
 * insignificant sample with a significant neighbour, then the signs of a
 * 4x4 group's new ones; the stuffing of MagSgn), MagRef backward from its
 * end (bit p - 1 of each sample significant after the cleanup; the
 * stuffing of VLC), as ht_refinement_passes reads them. `scratch`: 2 w h
 * bytes (the significance maps). *error gets the squared error, in squared
 * quantization steps, left after both passes (a: |q| plus its fraction;
 * the decoder reconstructs at the middle of what it knows). */
GJ2K_HD_STATIC gj2k_status ht_encode_refinement_in(const int32_t *c, const uint8_t *fractions,
                                                   size_t stride, uint32_t w, uint32_t h,
                                                   unsigned p, bool causal, uint8_t *out,
                                                   size_t capacity, uint8_t *scratch,
                                                   size_t *length, double *error)
{
    *length = 0;
    *error = 0.0;
    if (p < 1 || p > 30)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    const unsigned plane = p - 1;
    uint8_t *significant = scratch, *added = scratch + (size_t)w * h;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int32_t v = c[(size_t)y * stride + x];
            uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
            significant[(size_t)y * w + x] = (m >> p) != 0;
            added[(size_t)y * w + x] = 0;
        }
    magsgn_writer sigprop;
    ht_fill(&sigprop, 0, sizeof sigprop);
    sigprop.data = out;
    sigprop.capacity = capacity;
    sigprop.room = 8;
    double left = 0.0; /* the squared error left, sample by sample */
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
                    int32_t v = c[(size_t)y * stride + x];
                    uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
                    added[i] = (uint8_t)((m >> plane) & 1u);
                    magsgn_put(&sigprop, added[i], 1);
                }
            for (uint32_t x = x0; x < x_end; x++) /* then the signs of the group's new ones */
                for (uint32_t y = y0; y < y_end; y++)
                    if (added[(size_t)y * w + x])
                        magsgn_put(&sigprop, c[(size_t)y * stride + x] < 0, 1);
        }
    }
    if (sigprop.count > 0) /* zeros to the byte's end: the decoder reads zeros past it */
        magsgn_put(&sigprop, 0, sigprop.room - sigprop.count);
    if (sigprop.pos > 0 && sigprop.pos < capacity && out[sigprop.pos - 1] == 0xFF)
        out[sigprop.pos++] = 0; /* not 0xFF before a MagRef byte above 0x8F */
    vlc_writer magref;
    ht_fill(&magref, 0, sizeof magref);
    magref.data = out + (sigprop.pos < capacity ? sigprop.pos : capacity);
    magref.capacity = capacity - (sigprop.pos < capacity ? sigprop.pos : capacity);
    magref.nibble_done = true;
    magref.previous = 0xFF;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t y_end = h - y0 < 4 ? h : y0 + 4;
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t y = y0; y < y_end; y++) {
                size_t i = (size_t)y * w + x;
                int32_t v = c[(size_t)y * stride + x];
                uint32_t m = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
                double a =
                    (double)m + (fractions ? fractions[(size_t)y * stride + x] / 256.0 : 0.0);
                unsigned known = significant[i] | added[i]; /* known down to plane p - 1 */
                if (significant[i])
                    vlc_put(&magref, (m >> plane) & 1u, 1);
                double r = 0.0; /* the decoder's value: bits down to plane p - 1, or none */
                if (known)
                    r = (double)((uint64_t)(m >> plane) << plane) +
                        (plane > 0 ? (double)(1u << (plane - 1)) : fractions ? 0.5 : 0.0);
                left += (a - r) * (a - r);
            }
    }
    vlc_drain(&magref, true);
    if (sigprop.overflow || magref.overflow || sigprop.pos > capacity)
        return GJ2K_ERROR_LIMIT;
    /* MagRef's bytes from the segment's end back: reversed in place */
    for (size_t i = 0, j = magref.pos; i + 1 < j; i++, j--) {
        uint8_t t = magref.data[i];
        magref.data[i] = magref.data[j - 1];
        magref.data[j - 1] = t;
    }
    *length = sigprop.pos + magref.pos;
    *error = left;
    return GJ2K_OK;
}

#endif
