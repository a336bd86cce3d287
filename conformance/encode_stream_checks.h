/* encode_stream_checks.h - checks of what gj2k's encoder wrote, read back
 * through gj2k's own codestream and JP2 parsers, and how encode_crosscheck.c
 * records what its checks find. */
#ifndef GJ2K_ENCODE_STREAM_CHECKS_H
#define GJ2K_ENCODE_STREAM_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encode_cases.h"
#include "gj2k.h"

/* What the checks of one case found: the first failure, and details. */
typedef struct verdict {
    bool failed;
    char why[800];
    char details[600];
} verdict;

/* Records a failure, unless one is recorded already. */
__attribute__((format(printf, 2, 3))) void verdict_fail(verdict *v, const char *format, ...);
/* Appends ", detail" to the details. */
__attribute__((format(printf, 2, 3))) void verdict_detail(verdict *v, const char *format, ...);

/* Parses the file gj2k wrote for case `c` from `image` (through its JP2
 * boxes) and checks that its headers say what was asked: SIZ against the
 * image and the tiling (A.5.1), COD/QCD of tile 0 (levels, code-blocks,
 * style, wavelet, progression, layers, SOP/EPH, MCT, precincts,
 * quantization and guard bits; A.6), POC, TLM and PLT (A.7), EOC, every
 * tile present, and the report's figures. False with the first discrepancy
 * recorded in `v`. */
bool encode_headers_check(const encode_case *c, const gj2k_image *image, const uint8_t *data,
                          size_t size, const gj2k_encode_report *report, verdict *v);

/* Marks in empty[0..num_components) the components that have a tile without
 * samples of theirs (a narrow tile at the image's edge, subsampled away:
 * B.3, eq. B-12), which opj_decompress cannot decode. False when the file
 * (.j2k or .jp2) does not parse. */
bool find_empty_tile_components(const uint8_t *data, size_t size, bool *empty,
                                uint32_t num_components);

#endif
