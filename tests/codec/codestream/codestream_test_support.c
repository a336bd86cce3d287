/* codestream_test_support.c - see codestream_test_support.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codestream_test_support.h"
#include "test_harness.h"

void collect_warning(void *user, const char *message)
{
    warnings *w = user;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", message);
    size_t used = strlen(w->all);
    snprintf(w->all + used, sizeof w->all - used, "%s\n", message);
    if (getenv("GJ2K_TEST_VERBOSE"))
        fprintf(stderr, "  warning: %s\n", message);
}

bool contains(const char *text, const char *part) { return strstr(text, part) != NULL; }

bool rand_bool(void) { return test_random() & 1; }

j2k_component_coding random_coding(unsigned levels)
{
    j2k_component_coding c = {.levels = (uint8_t)levels};
    c.code_block_width_log2 = (uint8_t)test_random_range(2, 10);
    c.code_block_height_log2 = (uint8_t)test_random_range(2, 12 - c.code_block_width_log2 > 10
                                                                 ? 10
                                                                 : 12 - c.code_block_width_log2);
    c.code_block_style = (uint8_t)test_random_range(0, 63);
    c.transform = (uint8_t)test_random_range(0, 1);
    c.precincts_defined = rand_bool();
    j2k_component_coding_default_precincts(&c);
    if (c.precincts_defined)
        for (unsigned r = 0; r <= levels; r++) {
            c.precinct_width_log2[r] = (uint8_t)test_random_range(r == 0 ? 0 : 1, 15);
            c.precinct_height_log2[r] = (uint8_t)test_random_range(r == 0 ? 0 : 1, 15);
        }
    return c;
}

j2k_cod random_cod(unsigned levels)
{
    return (j2k_cod){.use_sop = rand_bool(), .use_eph = rand_bool(),
                     .progression = (uint8_t)test_random_range(0, 4),
                     .layers = (uint16_t)test_random_range(1, 65535),
                     .mct = (uint8_t)test_random_range(0, 1), .coding = random_coding(levels)};
}

j2k_quantization random_quantization(unsigned levels)
{
    j2k_quantization q = {.style = (uint8_t)test_random_range(0, 2),
                          .guard_bits = (uint8_t)test_random_range(0, 7)};
    q.num_steps = (uint8_t)(q.style == J2K_QUANT_DERIVED ? 1 : 3 * levels + 1);
    for (unsigned i = 0; i < q.num_steps; i++) {
        /* Derived exponents must stay >= 0 through eq. E-5: e0 >= NL - 1. */
        q.steps[i].exponent = (uint8_t)test_random_range(
            q.style == J2K_QUANT_DERIVED && levels > 0 ? levels - 1 : 0, 31);
        q.steps[i].mantissa = q.style == J2K_QUANT_NONE ? 0 : (uint16_t)test_random_range(0, 2047);
    }
    return q;
}

bool coding_equal(const j2k_component_coding *a, const j2k_component_coding *b)
{
    if (a->precincts_defined != b->precincts_defined || a->levels != b->levels ||
        a->code_block_width_log2 != b->code_block_width_log2 ||
        a->code_block_height_log2 != b->code_block_height_log2 ||
        a->code_block_style != b->code_block_style || a->transform != b->transform)
        return false;
    for (unsigned r = 0; r <= a->levels; r++)
        if (a->precinct_width_log2[r] != b->precinct_width_log2[r] ||
            a->precinct_height_log2[r] != b->precinct_height_log2[r])
            return false;
    return true;
}

bool cod_equal(const j2k_cod *a, const j2k_cod *b)
{
    return a->use_sop == b->use_sop && a->use_eph == b->use_eph &&
           a->progression == b->progression && a->layers == b->layers && a->mct == b->mct &&
           coding_equal(&a->coding, &b->coding);
}

bool quantization_equal(const j2k_quantization *a, const j2k_quantization *b)
{
    if (a->style != b->style || a->guard_bits != b->guard_bits || a->num_steps != b->num_steps)
        return false;
    for (unsigned i = 0; i < a->num_steps; i++)
        if (a->steps[i].exponent != b->steps[i].exponent ||
            a->steps[i].mantissa != b->steps[i].mantissa)
            return false;
    return true;
}

bool poc_equal(const j2k_progression_change *a, const j2k_progression_change *b)
{
    return a->resolution_start == b->resolution_start &&
           a->component_start == b->component_start && a->layer_end == b->layer_end &&
           a->resolution_end == b->resolution_end && a->component_end == b->component_end &&
           a->progression == b->progression;
}

bool header_equal(const j2k_header_params *a, const j2k_header_params *b)
{
    if ((a->cod == NULL) != (b->cod == NULL) || (a->cod && !cod_equal(a->cod, b->cod)))
        return false;
    if ((a->qcd == NULL) != (b->qcd == NULL) || (a->qcd && !quantization_equal(a->qcd, b->qcd)))
        return false;
    if (a->num_cocs != b->num_cocs || a->num_qccs != b->num_qccs || a->num_rgns != b->num_rgns ||
        a->num_pocs != b->num_pocs || a->num_comments != b->num_comments)
        return false;
    for (size_t i = 0; i < a->num_cocs; i++)
        if (a->cocs[i].component != b->cocs[i].component ||
            !coding_equal(&a->cocs[i].coding, &b->cocs[i].coding))
            return false;
    for (size_t i = 0; i < a->num_qccs; i++)
        if (a->qccs[i].component != b->qccs[i].component ||
            !quantization_equal(&a->qccs[i].quantization, &b->qccs[i].quantization))
            return false;
    for (size_t i = 0; i < a->num_rgns; i++)
        if (a->rgns[i].component != b->rgns[i].component || a->rgns[i].shift != b->rgns[i].shift)
            return false;
    for (size_t i = 0; i < a->num_pocs; i++)
        if (!poc_equal(&a->pocs[i], &b->pocs[i]))
            return false;
    for (size_t i = 0; i < a->num_comments; i++)
        if (a->comments[i].registration != b->comments[i].registration ||
            a->comments[i].size != b->comments[i].size ||
            (a->comments[i].size &&
             memcmp(a->comments[i].data, b->comments[i].data, a->comments[i].size) != 0))
            return false;
    return true;
}

/* A valid SIZ of `components` components with at most ~`max_tiles` tiles. */
j2k_siz random_siz(uint32_t components, uint32_t max_tiles)
{
    j2k_siz siz = {.capabilities = 0, .num_components = components};
    siz.components = calloc(components, sizeof *siz.components);
    for (uint32_t c = 0; c < components; c++)
        siz.components[c] = (j2k_component_size){.precision = (uint8_t)test_random_range(1, 38),
                                                 .is_signed = rand_bool(),
                                                 .dx = (uint8_t)test_random_range(1, 255),
                                                 .dy = (uint8_t)test_random_range(1, 255)};
    do {
        siz.tile_x0 = (uint32_t)test_random_range(0, 1000);
        siz.tile_y0 = (uint32_t)test_random_range(0, 1000);
        siz.tile_width = (uint32_t)test_random_range(1, 3000);
        siz.tile_height = (uint32_t)test_random_range(1, 3000);
        siz.image_x0 = siz.tile_x0 + (uint32_t)test_random_range(0, siz.tile_width - 1);
        siz.image_y0 = siz.tile_y0 + (uint32_t)test_random_range(0, siz.tile_height - 1);
        siz.image_x1 = siz.image_x0 + (uint32_t)test_random_range(1, 6000);
        siz.image_y1 = siz.image_y0 + (uint32_t)test_random_range(1, 6000);
    } while (j2k_siz_validate(&siz, NULL) != GJ2K_OK || siz.num_tiles > max_tiles);
    return siz;
}
