/* describe_codeblocks.h - the code-blocks of an HT codestream counted by
 * block coder (T.814 Annex B) for `gj2k info`. */
#ifndef GJ2K_DESCRIBE_CODEBLOCKS_H
#define GJ2K_DESCRIBE_CODEBLOCKS_H

#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"

typedef struct codeblock_census {
    uint64_t ht, part1;         /* code-blocks with data, by the coder they use */
    uint64_t with_placeholders; /* HT ones whose first passes are placeholders */
    uint64_t multiple_sets;     /* HT ones sent in more than one HT set */
    uint64_t damaged_tiles;     /* tiles whose packets stop early (counted as far as read) */
} codeblock_census;

/* Reads every tile's packet headers; fails only for bad coding parameters
 * or lack of memory. */
gj2k_status codeblock_census_of(const j2k_codestream *cs, const uint8_t *codestream,
                                codeblock_census *census, gj2k_error *error);

#endif
