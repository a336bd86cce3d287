/* tier1_words.h - the state both Tier-1 coders keep of a code-block while
 * coding it (T.800 Annex D): one 32-bit word a stripe column, written once
 * for the host and the GPU. */
#ifndef GJ2K_TIER1_WORDS_H
#define GJ2K_TIER1_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "device_code.h"

/*
 * Tier-1's state is one word a stripe column (D.1: four rows, one
 * column), so that a sample's contexts come from one load and shifts:
 *  - bits 0-17: significance of the 3 x 6 window around the column, bit
 *    3 (row + 1) + col for rows -1..4 (the stripe's four, the last row of
 *    the stripe above, the first of the one below) and columns 0, 1, 2
 *    (x - 1, x, x + 1). Row r's 3 x 3 neighbourhood is (word >> 3 r) & 0x1FF,
 *    centre bit 4;
 *  - bits 18-23: the sign (negative) of rows -1..4 of the column itself;
 *  - bits 24-27: rows 0..3 refined at least once (Table D.4);
 *  - bits 28-31: rows 0..3 coded in this plane's significance pass.
 * Words lie stripe by stripe, width + 2 a stripe with a border column each
 * side, and a border stripe above and below.
 */
#define T1W_SIG(row, col) (1u << (3u * (unsigned)((row) + 1) + (unsigned)(col)))
#define T1W_NEG(row) (1u << (18u + (unsigned)((row) + 1)))
#define T1W_REFINED(r) (1u << (24u + (unsigned)(r)))
#define T1W_VISITED(r) (1u << (28u + (unsigned)(r)))
#define T1W_WINDOW 0x3FFFFu
#define T1W_VISITED_ALL 0xF0000000u
#define T1W_SELF_ALL (T1W_SIG(0, 1) | T1W_SIG(1, 1) | T1W_SIG(2, 1) | T1W_SIG(3, 1))

/* Words of the state of a width x height block (at most the
 * (width + 2) (height + 2) words of scratch callers give). */
#define TIER1_STATE_WORDS(w, h) (((size_t)(w) + 2) * (((size_t)(h) + 3) / 4 + 2))

/* Row r's 3 x 3 window without its centre, tier1_zero_context's index
 * (NW N NE W . E SW S SE, bits 0-8): non-zero when a neighbour is
 * significant. */
GJ2K_HD_INLINE unsigned t1w_neighbours(uint32_t word, unsigned r)
{
    return (word >> (3u * r)) & 0x1EFu;
}

/* Marks row r of the column at w significant (sign `negative`) in its word
 * and its neighbours' windows: the columns beside, and row 4 of the stripe
 * above (unless vertically causal, D.7) or row -1 of the one below; `ws`
 * words a stripe. */
GJ2K_HD_INLINE void t1w_set_significant(uint32_t *w, ptrdiff_t ws, bool causal, unsigned r,
                                        bool negative)
{
    uint32_t neg = negative ? T1W_NEG((int)r) : 0u;
    w[-1] |= T1W_SIG((int)r, 2);
    w[0] |= T1W_SIG((int)r, 1) | neg;
    w[1] |= T1W_SIG((int)r, 0);
    if (r == 0 && !causal) {
        uint32_t *up = w - ws;
        up[-1] |= T1W_SIG(4, 2);
        up[0] |= T1W_SIG(4, 1) | (negative ? T1W_NEG(4) : 0u);
        up[1] |= T1W_SIG(4, 0);
    } else if (r == 3) {
        uint32_t *down = w + ws;
        down[-1] |= T1W_SIG(-1, 2);
        down[0] |= T1W_SIG(-1, 1) | (negative ? T1W_NEG(-1) : 0u);
        down[1] |= T1W_SIG(-1, 0);
    }
}

/* The sign context (Tables D.2, D.3) of row r of the column at w, as
 * tier1_sign_table wants it: N, W, E, S significant where the 3 x 3 window
 * has them (bits 1, 3, 5, 7), each one's sign in the bit below. */
GJ2K_HD_INLINE unsigned t1w_sign_index(const uint32_t *w, unsigned r)
{
    uint32_t own = w[0];
    return ((own >> (3u * r)) & 0xAAu) | ((own >> (18u + r)) & 1u) |
           ((w[-1] >> (17u + r)) & 4u) | ((w[1] >> (15u + r)) & 16u) |
           ((own >> (14u + r)) & 64u);
}

#endif
