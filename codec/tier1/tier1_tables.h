/* tier1_tables.h - the tables of the MQ coder and of Tier-1 as constant
 * initializers, so that the host's arrays (mq_coder.c, tier1_contexts.c)
 * and the GPU's (codec/tier1/cuda) hold the same values from one source:
 * Table C.2 (Qe, NMPS, NLPS, SWITCH), Table D.1 (zero coding contexts by
 * band and neighbourhood), Tables D.2 and D.3 (sign coding). */
#ifndef GJ2K_TIER1_TABLES_H
#define GJ2K_TIER1_TABLES_H

/* Table C.2, one row (Qe, NMPS, NLPS, SWITCH) per index, expanded to the
 * two MPS senses: state = index << 1 | MPS. An LPS with SWITCH = 1 flips the
 * MPS. */
#define MQ_ROW(qe, nmps, nlps, sw)                                                             \
    {(uint32_t)(qe) << 16, qe, (uint8_t)((nmps) << 1), (uint8_t)((nlps) << 1 | (sw))},         \
    {(uint32_t)(qe) << 16, qe, (uint8_t)((nmps) << 1 | 1), (uint8_t)((nlps) << 1 | (1 - (sw)))}

#define MQ_STATES_INITIALIZER \
    MQ_ROW(0x5601, 1, 1, 1),   MQ_ROW(0x3401, 2, 6, 0),   MQ_ROW(0x1801, 3, 9, 0), \
    MQ_ROW(0x0AC1, 4, 12, 0),  MQ_ROW(0x0521, 5, 29, 0),  MQ_ROW(0x0221, 38, 33, 0), \
    MQ_ROW(0x5601, 7, 6, 1),   MQ_ROW(0x5401, 8, 14, 0),  MQ_ROW(0x4801, 9, 14, 0), \
    MQ_ROW(0x3801, 10, 14, 0), MQ_ROW(0x3001, 11, 17, 0), MQ_ROW(0x2401, 12, 18, 0), \
    MQ_ROW(0x1C01, 13, 20, 0), MQ_ROW(0x1601, 29, 21, 0), MQ_ROW(0x5601, 15, 14, 1), \
    MQ_ROW(0x5401, 16, 14, 0), MQ_ROW(0x5101, 17, 15, 0), MQ_ROW(0x4801, 18, 16, 0), \
    MQ_ROW(0x3801, 19, 17, 0), MQ_ROW(0x3401, 20, 18, 0), MQ_ROW(0x3001, 21, 19, 0), \
    MQ_ROW(0x2801, 22, 19, 0), MQ_ROW(0x2401, 23, 20, 0), MQ_ROW(0x2201, 24, 21, 0), \
    MQ_ROW(0x1C01, 25, 22, 0), MQ_ROW(0x1801, 26, 23, 0), MQ_ROW(0x1601, 27, 24, 0), \
    MQ_ROW(0x1401, 28, 25, 0), MQ_ROW(0x1201, 29, 26, 0), MQ_ROW(0x1101, 30, 27, 0), \
    MQ_ROW(0x0AC1, 31, 28, 0), MQ_ROW(0x09C1, 32, 29, 0), MQ_ROW(0x08A1, 33, 30, 0), \
    MQ_ROW(0x0521, 34, 31, 0), MQ_ROW(0x0441, 35, 32, 0), MQ_ROW(0x02A1, 36, 33, 0), \
    MQ_ROW(0x0221, 37, 34, 0), MQ_ROW(0x0141, 38, 35, 0), MQ_ROW(0x0111, 39, 36, 0), \
    MQ_ROW(0x0085, 40, 37, 0), MQ_ROW(0x0049, 41, 38, 0), MQ_ROW(0x0025, 42, 39, 0), \
    MQ_ROW(0x0015, 43, 40, 0), MQ_ROW(0x0009, 44, 41, 0), MQ_ROW(0x0005, 45, 42, 0), \
    MQ_ROW(0x0001, 45, 43, 0), MQ_ROW(0x5601, 46, 46, 0),

/* The context labels of Annex D as lookup tables over a sample's
 * neighbour flags (tier1.h): constant expressions of the rules of Tables
 * D.1 and D.3, expanded for every neighbourhood by the preprocessor. */
#define TT_BIT(n, k) (((n) >> (k)) & 1) /* TT_: this header's helpers */

/* Neighbour counts of a 3 x 3 window (NW N NE W . E SW S SE, bits 0-8; the
 * sample's own bit 4 is ignored). */
#define TT_SUM_H(n) (TT_BIT(n, 3) + TT_BIT(n, 5))                           /* W, E */
#define TT_SUM_V(n) (TT_BIT(n, 1) + TT_BIT(n, 7))                           /* N, S */
#define TT_SUM_D(n) (TT_BIT(n, 0) + TT_BIT(n, 2) + TT_BIT(n, 6) + TT_BIT(n, 8))   /* NW, NE, SW, SE */

/* Table D.1 for LL and LH (vertically high-pass) bands, with h the count of
 * horizontal neighbours; HL swaps h and v. */
#define TT_ZC_PRIMARY(h, v, d)                                                                    \
    ((h) == 2   ? 8                                                                            \
     : (h) == 1 ? ((v) >= 1 ? 7 : (d) >= 1 ? 6 : 5)                                           \
     : (v) == 2 ? 4                                                                            \
     : (v) == 1 ? 3                                                                            \
     : (d) >= 2 ? 2                                                                            \
                : (d))
/* Table D.1 for HH (diagonally high-pass): d diagonal, hv = h + v. */
#define TT_ZC_DIAGONAL(hv, d)                                                                     \
    ((d) >= 3   ? 8                                                                            \
     : (d) == 2 ? ((hv) >= 1 ? 7 : 6)                                                          \
     : (d) == 1 ? ((hv) >= 2 ? 5 : (hv) == 1 ? 4 : 3)                                         \
     : (hv) >= 2 ? 2                                                                           \
                 : (hv))

#define TT_ZC_LL(n) TT_ZC_PRIMARY(TT_SUM_H(n), TT_SUM_V(n), TT_SUM_D(n))
#define TT_ZC_HL(n) TT_ZC_PRIMARY(TT_SUM_V(n), TT_SUM_H(n), TT_SUM_D(n))
#define TT_ZC_HH(n) TT_ZC_DIAGONAL(TT_SUM_H(n) + TT_SUM_V(n), TT_SUM_D(n))

#define TT_R4(f, n) f(n), f((n) + 1), f((n) + 2), f((n) + 3)
#define TT_R16(f, n) TT_R4(f, n), TT_R4(f, (n) + 4), TT_R4(f, (n) + 8), TT_R4(f, (n) + 12)
#define TT_R64(f, n) TT_R16(f, n), TT_R16(f, (n) + 16), TT_R16(f, (n) + 32), TT_R16(f, (n) + 48)
#define TT_R256(f, n) TT_R64(f, n), TT_R64(f, (n) + 64), TT_R64(f, (n) + 128), TT_R64(f, (n) + 192)
#define TT_R512(f, n) TT_R256(f, n), TT_R256(f, (n) + 256)

/* Indexed by dwt_band (LL, HL, LH, HH), then by the 9-bit window. */
#define TIER1_ZERO_CONTEXT_INITIALIZER                                                         \
    {{TT_R512(TT_ZC_LL, 0)}, {TT_R512(TT_ZC_HL, 0)}, {TT_R512(TT_ZC_LL, 0)}, {TT_R512(TT_ZC_HH, 0)}}

/* Table D.2: a direct neighbour adds 1 when positive and significant, -1
 * when negative; each direction's sum is clipped to -1..1. The index here is
 * t1w_sign_index(): significance of N, W, E, S in bits 1, 3, 5, 7 (where
 * the 3 x 3 window has them), each one's negativity in the bit below. */
#define TT_CONTRIB(n, sig) (TT_BIT(n, sig) ? (TT_BIT(n, (sig) - 1) ? -1 : 1) : 0)
#define TT_CLIP(x) ((x) > 0 ? 1 : (x) < 0 ? -1 : 0)
#define TT_SIGN_H(n) TT_CLIP(TT_CONTRIB(n, 3) + TT_CONTRIB(n, 5))
#define TT_SIGN_V(n) TT_CLIP(TT_CONTRIB(n, 1) + TT_CONTRIB(n, 7))
/* Table D.3: context label | XOR bit << 4. */
#define TT_SC_HV(h, v)                                                                            \
    ((h) == 1   ? ((v) == 1 ? 13 : (v) == 0 ? 12 : 11)                                         \
     : (h) == 0 ? ((v) == 1 ? 10 : (v) == 0 ? 9 : 10 | 16)                                     \
                : ((v) == 1 ? 11 | 16 : (v) == 0 ? 12 | 16 : 13 | 16))
#define TT_SC(n) TT_SC_HV(TT_SIGN_H(n), TT_SIGN_V(n))

#define TIER1_SIGN_TABLE_INITIALIZER {TT_R256(TT_SC, 0)}

#endif
