/* describe_codeblocks.h - the code-blocks of an HT codestream counted by
 * block coder (T.814 Annex B) for `gj2k info`. */
#ifndef GJ2K_DESCRIBE_CODEBLOCKS_H
#define GJ2K_DESCRIBE_CODEBLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "byte_buffer.h"
#include "codestream.h"
#include "gj2k.h"

typedef struct codeblock_census {
    uint64_t ht, part1;         /* code-blocks with data, by the coder they use */
    uint64_t with_placeholders; /* HT ones whose first passes are placeholders */
    uint64_t multiple_sets;     /* HT ones sent in more than one HT set */
    uint64_t damaged_tiles;     /* tiles whose packets stop early (counted as far as read) */
} codeblock_census;

/* Whether a codestream's code-blocks are counted: an HT one (a CAP marker
 * with Ccap15, T.814 Table A.3). */
bool codeblock_census_wanted(const j2k_codestream *cs);

/* Reads every tile's packet headers; fails only for bad coding parameters
 * or lack of memory. */
gj2k_status codeblock_census_of(const j2k_codestream *cs, const uint8_t *codestream,
                                codeblock_census *census, gj2k_error *error);

/* The census as a line of text, or as the JSON member "codeblocks" after
 * a ", ". */
void codeblock_census_describe(const codeblock_census *census, bool json, byte_buffer *out);

#endif
