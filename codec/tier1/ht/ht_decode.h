/* ht_decode.h - the HT block decoder of ITU-T T.814 | ISO/IEC 15444-15
 * (HTJ2K): the HT cleanup pass (clause 7.3: MagSgn, MEL and VLC streams,
 * CxtVLC and U-VLC codes) and the HT SigProp and MagRef passes (7.4, 7.5)
 * of one code-block, giving what tier1_decode_block gives for a Part 1
 * block. */
#ifndef GJ2K_HT_DECODE_H
#define GJ2K_HT_DECODE_H

#include <stdint.h>

#include "tier1.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One CxtVLC codeword (ht_vlc_tables.c): context, the quad's significance
 * rho (bit 0 top-left, 1 bottom-left, 2 top-right, 3 bottom-right), u_off,
 * the EMB bits e_k and e_1, the codeword (first bit read in bit 0), its length. */
typedef struct ht_vlc_code {
    uint8_t context, rho, u_off, e_k, e_1, codeword, length;
} ht_vlc_code;

#define HT_VLC_TABLE0_SIZE 444
#define HT_VLC_TABLE1_SIZE 358
extern const ht_vlc_code ht_vlc_table0[HT_VLC_TABLE0_SIZE]; /* the first quad row */
extern const ht_vlc_code ht_vlc_table1[HT_VLC_TABLE1_SIZE]; /* every other */

/* The codes as look-up tables: [table][context << 7 | the next 7 bits]
 * gives rho (bits 0-3), u_off (4), e_k (5-8), e_1 (9-12) and the length
 * (13-15); 0 where no codeword matches. */
typedef struct ht_lookup {
    uint16_t entry[2][8 << 7];
} ht_lookup;

/* Fills the look-up tables from the two code lists. */
void ht_lookup_build(ht_lookup *lookup);

/*
 * Decodes an HT code-block as tier1_decode_block does a Part 1 one: the
 * request's segments are the HT cleanup segment (one pass) and, when there
 * are more passes, the HT refinement segment (SigProp, then MagRef); its
 * num_planes is Mb minus the missing MSBs of the packet header, so that
 * the cleanup pass decodes plane num_planes - 1 (T.814 7.1; placeholder
 * passes and earlier HT sets are left out by Tier-2,
 * tile_codeblock_coded_of: at most 3 passes). `coefficients` receive
 * sign * magnitude with each known bit at its plane, `lowest_known_plane`
 * (may be NULL) the lowest plane known of each. Damaged data gives
 * GJ2K_ERROR_MALFORMED with the block as far as it was decoded (the rest
 * zero); GJ2K_ERROR_UNSUPPORTED for what this decoder does not take.
 */
gj2k_status ht_decode_block(const tier1_decode_request *request, const ht_lookup *lookup,
                            int32_t *coefficients, size_t stride, uint8_t *lowest_known_plane,
                            tier1_decode_result *result);

#ifdef __cplusplus
}
#endif

#endif
