/* encoded_block.c - see encoded_block.h. */
#include "encoded_block.h"

#include <stdlib.h>

/* Keeps a block's Tier-1 output in eb: its passes' lengths and weighted
 * distortions, and `data` (malloc'ed, owned by eb once this succeeds). */
gj2k_status encoded_block_keep(encoded_block *eb, const tier1_pass_info *passes, size_t n,
                               unsigned num_planes, uint8_t *data, size_t size, double weight,
                               unsigned num_layers)
{
    /* One allocation: lengths, distortions, then layer_passes. */
    size_t bytes = n * (sizeof(size_t) + sizeof(double)) + num_layers;
    uint8_t *memory = calloc(1, bytes ? bytes : 1);
    if (memory == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    eb->lengths = (size_t *)(void *)memory;
    eb->distortion = (double *)(void *)(memory + n * sizeof(size_t));
    eb->layer_passes = memory + n * (sizeof(size_t) + sizeof(double));
    for (size_t j = 0; j < n; j++) {
        eb->lengths[j] = passes[j].length;
        eb->distortion[j] = passes[j].distortion_reduction * weight;
    }
    eb->num_planes = (uint8_t)num_planes;
    eb->num_passes = (uint8_t)n;
    eb->data = data;
    eb->size = size;
    return GJ2K_OK;
}

/* Keeps an HT block's choices in eb, each one's bytes and weighted
 * distortion as a pass's, for rate control. Choices are not nested: one
 * that is no shorter than a finer one after it (a plane's cleanup with its
 * refinement against the next plane's cleanup) is left out, so that the
 * lengths rate control sees grow as it expects; the few that still do not
 * are raised to the longest before them (Tier-2 sends the real ones). */
gj2k_status encoded_block_keep_ht(encoded_block *eb, ht_encoded_block *ht, double weight,
                                  unsigned num_layers)
{
    bool kept[HT_MAX_CHOICES];
    size_t next = SIZE_MAX; /* bytes of the nearest finer choice kept */
    for (unsigned j = ht->num_choices; j-- > 0;) {
        size_t bytes = ht->lengths[j] + ht->refinements[j];
        kept[j] = bytes < next || j + 1 == ht->num_choices;
        if (kept[j])
            next = bytes;
    }
    tier1_pass_info passes[HT_MAX_CHOICES];
    eb->choices = calloc(ht->num_choices ? ht->num_choices : 1, sizeof *eb->choices);
    if (eb->choices == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    unsigned n = 0;
    size_t longest = 0;
    double reduction = 0.0; /* of choices left out, carried to the next kept */
    for (unsigned j = 0; j < ht->num_choices; j++) {
        reduction += ht->distortion_reduction[j];
        if (!kept[j])
            continue;
        size_t cleanup = ht->lengths[j], all = cleanup + ht->refinements[j];
        longest = all > longest ? all : longest;
        passes[n] = (tier1_pass_info){.length = longest, .distortion_reduction = reduction,
                                      .ends_segment = true};
        eb->choices[n++] = (tile_codeblock_choice){.data = ht->data + ht->offsets[j],
                                                   .pass_lengths = {cleanup, all, all},
                                                   .num_passes = ht->refinements[j] ? 3u : 1u,
                                                   .plane = ht->planes[j]};
        reduction = 0.0;
    }
    gj2k_status status = encoded_block_keep(eb, passes, n, ht->num_planes, ht->data, ht->size, weight,
                                    num_layers);
    if (status != GJ2K_OK) {
        free(eb->choices);
        eb->choices = NULL;
    }
    return status;
}
