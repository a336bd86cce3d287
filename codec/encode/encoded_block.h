/* encoded_block.h - a code-block's Tier-1 output kept for rate control and
 * Tier-2 (encode_tile.h's encoded_block): a Part 1 block's passes, or an
 * HT block's choices (T.814) as passes of their own. */
#ifndef GJ2K_ENCODED_BLOCK_H
#define GJ2K_ENCODED_BLOCK_H

#include "encode_tile.h"
#include "ht_encode.h"
#include "tier1.h"

/* Keeps a block's Tier-1 output in eb: its passes' lengths and weighted
 * distortions, and `data` (malloc'ed, owned by eb once this succeeds). */
gj2k_status encoded_block_keep(encoded_block *eb, const tier1_pass_info *passes, size_t n,
                               unsigned num_planes, uint8_t *data, size_t size, double weight,
                               unsigned num_layers);

/* Keeps an HT block's choices in eb (its data owned by eb once this
 * succeeds), each as a pass for rate control: see encoded_block.c. */
gj2k_status encoded_block_keep_ht(encoded_block *eb, ht_encoded_block *ht, double weight,
                                  unsigned num_layers);

#endif
