/* ht_decode.c - see ht_decode.h: the VLC look-up tables, and the host's
 * entry to the block decoder of ht_decode_block.h. */
#include "ht_decode.h"

#include "ht_decode_block.h"

#include <string.h>

void ht_lookup_build(ht_lookup *lookup)
{
    memset(lookup, 0, sizeof *lookup);
    for (int t = 0; t < 2; t++) {
        const ht_vlc_code *codes = t ? ht_vlc_table1 : ht_vlc_table0;
        size_t count = t ? HT_VLC_TABLE1_SIZE : HT_VLC_TABLE0_SIZE;
        for (size_t i = 0; i < count; i++) {
            const ht_vlc_code *c = &codes[i];
            uint16_t entry = (uint16_t)(c->rho | c->u_off << 4 | c->e_k << 5 | c->e_1 << 9 |
                                        c->length << 13);
            /* every 7-bit window whose first `length` bits are the codeword */
            for (unsigned rest = 0; rest < (1u << (7 - c->length)); rest++)
                lookup->entry[t][c->context << 7 | rest << c->length | c->codeword] = entry;
        }
    }
}

gj2k_status ht_decode_block(const tier1_decode_request *request, const ht_lookup *lookup,
                            int32_t *coefficients, size_t stride, uint8_t *lowest_known_plane,
                            tier1_decode_result *result)
{
    uint8_t scratch[2 * TIER1_MAX_SAMPLES + 2 * (TIER1_MAX_SIZE + 4)];
    if (request->width > TIER1_MAX_SIZE || request->height > TIER1_MAX_SIZE ||
        (size_t)request->width * request->height > TIER1_MAX_SAMPLES)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    return ht_decode_block_in(request, lookup, coefficients, stride, lowest_known_plane, scratch,
                              result);
}
