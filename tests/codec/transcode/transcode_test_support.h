/* transcode_test_support.h - what the transcoder's tests share: test images,
 * encoding and transcoding in memory, decoded images compared, and two
 * files' code-blocks compared coefficient by coefficient through the
 * transcoder's own Tier-2 + Tier-1 path (transcode_tile.h). */
#ifndef GJ2K_TRANSCODE_TEST_SUPPORT_H
#define GJ2K_TRANSCODE_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gj2k.h"

/* Bytes in memory (malloc'ed). */
typedef struct coded_file {
    uint8_t *data;
    size_t size;
} coded_file;

void coded_file_free(coded_file *f);

/* A deterministic image: smooth gradients with noise of `noise_bits` bits,
 * components of `precision` bits on [x0, x0 + width) x [y0, y0 + height). */
gj2k_image *make_image(uint32_t x0, uint32_t y0, uint32_t width, uint32_t height,
                       uint32_t components, uint32_t precision, unsigned noise_bits,
                       uint32_t seed);

/* gj2k_encode_memory, false (said) on failure. */
bool encode_image(const gj2k_image *image, const gj2k_encode_options *options, coded_file *out);
/* gj2k_transcode_memory to `coder` in `format` (UNKNOWN: the input's). */
bool transcode_to(const coded_file *in, gj2k_block_coder coder, gj2k_file_format format,
                  unsigned threads, gj2k_transcode_report *report, coded_file *out);
/* gj2k_decode_memory with the raw components (no colour rendering), or NULL. */
gj2k_image *decode_raw(const coded_file *f);
/* Same geometry and samples. */
bool images_equal(const gj2k_image *a, const gj2k_image *b);

/* The offset of the main header's marker segment `marker` (the last one),
 * or 0; *end (may be NULL) gets the offset of the first SOT, where the main
 * header ends. */
size_t find_marker(const coded_file *f, uint16_t marker, size_t *end);

/* Whether the codestream's main header has a CAP and Rsiz bit 14, and its
 * COD's code-block style. */
bool codestream_facts(const coded_file *f, bool *part15, bool *has_cap, unsigned *style,
                      unsigned *layers);

/* How `after`'s code-blocks must relate to `before`'s. */
typedef enum block_relation {
    BLOCKS_EXACT,        /* the same coefficients, the same lowest plane where non-zero */
    BLOCKS_WHOLE_PLANES  /* `before`'s without a partially decoded last plane (HT re-coding) */
} block_relation;

typedef struct block_census {
    size_t blocks;             /* code-blocks compared */
    size_t with_data;          /* of those, with non-zero coefficients in `before` */
    size_t partial;            /* of those, whose last plane `before` codes in part */
    size_t changed;            /* of those, whose coefficients or reconstruction changed */
} block_census;

/* Decodes every code-block of both files (Tier-2 + Tier-1 alone) and
 * checks the relation, tile by tile, block by block; false (said, with
 * where) at the first difference. */
bool compare_blocks(const coded_file *before, const coded_file *after, block_relation relation,
                    block_census *census);

#endif
