/* tier1_contexts.c - the context labels of T.800 Annex D as lookup tables
 * over a sample's neighbour flags (tier1.h), and what both coding
 * directions share. The tables are constant expressions of the rules of
 * Tables D.1 and D.3, expanded for every neighbourhood by the preprocessor. */
#include <stdlib.h>

#include "tier1.h"

#define BIT(n, k) (((n) >> (k)) & 1)

/* Neighbour counts of an 8-bit neighbourhood (bit order of TIER1_FLAG_*). */
#define SUM_H(n) (BIT(n, 3) + BIT(n, 4))                           /* W, E */
#define SUM_V(n) (BIT(n, 1) + BIT(n, 6))                           /* N, S */
#define SUM_D(n) (BIT(n, 0) + BIT(n, 2) + BIT(n, 5) + BIT(n, 7))   /* NW, NE, SW, SE */

/* Table D.1 for LL and LH (vertically high-pass) bands, with h the count of
 * horizontal neighbours; HL swaps h and v. */
#define ZC_PRIMARY(h, v, d)                                                                    \
    ((h) == 2   ? 8                                                                            \
     : (h) == 1 ? ((v) >= 1 ? 7 : (d) >= 1 ? 6 : 5)                                           \
     : (v) == 2 ? 4                                                                            \
     : (v) == 1 ? 3                                                                            \
     : (d) >= 2 ? 2                                                                            \
                : (d))
/* Table D.1 for HH (diagonally high-pass): d diagonal, hv = h + v. */
#define ZC_DIAGONAL(hv, d)                                                                     \
    ((d) >= 3   ? 8                                                                            \
     : (d) == 2 ? ((hv) >= 1 ? 7 : 6)                                                          \
     : (d) == 1 ? ((hv) >= 2 ? 5 : (hv) == 1 ? 4 : 3)                                         \
     : (hv) >= 2 ? 2                                                                           \
                 : (hv))

#define ZC_LL(n) ZC_PRIMARY(SUM_H(n), SUM_V(n), SUM_D(n))
#define ZC_HL(n) ZC_PRIMARY(SUM_V(n), SUM_H(n), SUM_D(n))
#define ZC_HH(n) ZC_DIAGONAL(SUM_H(n) + SUM_V(n), SUM_D(n))

#define R4(f, n) f(n), f((n) + 1), f((n) + 2), f((n) + 3)
#define R16(f, n) R4(f, n), R4(f, (n) + 4), R4(f, (n) + 8), R4(f, (n) + 12)
#define R64(f, n) R16(f, n), R16(f, (n) + 16), R16(f, (n) + 32), R16(f, (n) + 48)
#define R256(f, n) R64(f, n), R64(f, (n) + 64), R64(f, (n) + 128), R64(f, (n) + 192)

/* Indexed by dwt_band: LL, HL, LH, HH. */
const uint8_t tier1_zero_context[4][256] = {
    {R256(ZC_LL, 0)},
    {R256(ZC_HL, 0)},
    {R256(ZC_LL, 0)},
    {R256(ZC_HH, 0)},
};

/* Table D.2: a direct neighbour adds 1 when positive and significant, -1
 * when negative; each direction's sum is clipped to -1..1. The index here is
 * tier1_sign_index(): significance of N, W, E, S in bits 0-3, their
 * negativity in bits 4-7. */
#define CONTRIB(n, sig, neg) (BIT(n, sig) ? (BIT(n, neg) ? -1 : 1) : 0)
#define CLIP(x) ((x) > 0 ? 1 : (x) < 0 ? -1 : 0)
#define SIGN_H(n) CLIP(CONTRIB(n, 1, 5) + CONTRIB(n, 2, 6))
#define SIGN_V(n) CLIP(CONTRIB(n, 0, 4) + CONTRIB(n, 3, 7))
/* Table D.3: context label | XOR bit << 4. */
#define SC_HV(h, v)                                                                            \
    ((h) == 1   ? ((v) == 1 ? 13 : (v) == 0 ? 12 : 11)                                         \
     : (h) == 0 ? ((v) == 1 ? 10 : (v) == 0 ? 9 : 10 | 16)                                     \
                : ((v) == 1 ? 11 | 16 : (v) == 0 ? 12 | 16 : 13 | 16))
#define SC(n) SC_HV(SIGN_H(n), SIGN_V(n))

const uint8_t tier1_sign_table[256] = {R256(SC, 0)};

tier1_workspace *tier1_workspace_create(void)
{
    return malloc(sizeof(tier1_workspace));
}

void tier1_workspace_destroy(tier1_workspace *workspace)
{
    free(workspace);
}

bool tier1_block_is_valid(uint32_t width, uint32_t height, dwt_band band, unsigned style)
{
    return width >= 1 && height >= 1 && width <= TIER1_MAX_SIZE && height <= TIER1_MAX_SIZE &&
           (uint64_t)width * height <= TIER1_MAX_SAMPLES && (unsigned)band <= DWT_BAND_HH &&
           (style & ~TIER1_STYLE_ALL) == 0;
}
