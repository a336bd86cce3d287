/* codestream_test_support.h - what test_markers and test_codestream share:
 * random coding parameters, their comparison, and a warning recorder.
 * Compiled into both programs. */
#ifndef GJ2K_CODESTREAM_TEST_SUPPORT_H
#define GJ2K_CODESTREAM_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "codestream.h"

/* Every warning a parse gave (collect_warning is its gj2k_warning_fn). */
typedef struct warnings {
    int count;
    char last[256];
    char all[4096]; /* every message, one a line, as far as it fits */
} warnings;
void collect_warning(void *user, const char *message);

bool contains(const char *text, const char *part);
bool rand_bool(void);

/* Random valid coding parameters, COD and quantization of `levels` levels. */
j2k_component_coding random_coding(unsigned levels);
j2k_cod random_cod(unsigned levels);
j2k_quantization random_quantization(unsigned levels);
/* A valid SIZ of `components` components with at most ~`max_tiles` tiles. */
j2k_siz random_siz(uint32_t components, uint32_t max_tiles);

bool coding_equal(const j2k_component_coding *a, const j2k_component_coding *b);
bool cod_equal(const j2k_cod *a, const j2k_cod *b);
bool quantization_equal(const j2k_quantization *a, const j2k_quantization *b);
bool poc_equal(const j2k_progression_change *a, const j2k_progression_change *b);
bool header_equal(const j2k_header_params *a, const j2k_header_params *b);

#endif
