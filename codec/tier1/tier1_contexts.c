/* tier1_contexts.c - the context labels of T.800 Annex D as lookup tables
 * over a sample's neighbour flags (tier1.h; their values: tier1_tables.h),
 * and what both coding directions share. */
#include <stdlib.h>

#include "tier1.h"
#include "tier1_tables.h"

/* Indexed by dwt_band: LL, HL, LH, HH. */
const uint8_t tier1_zero_context[4][512] = TIER1_ZERO_CONTEXT_INITIALIZER;

/* Indexed by t1w_sign_index(): context label | XOR bit << 4. */
const uint8_t tier1_sign_table[256] = TIER1_SIGN_TABLE_INITIALIZER;

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
