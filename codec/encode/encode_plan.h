/* encode_plan.h - what an encode will write, decided from the image and the
 * options before any sample is transformed: the SIZ of Annex A.5.1, the COD
 * of A.6.1, per component the quantization of A.6.4 / E.1 and the weights
 * rate control gives each subband, and the quality layers' targets. */
#ifndef GJ2K_ENCODE_PLAN_H
#define GJ2K_ENCODE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codestream.h"
#include "gj2k.h"
#include "progress_meter.h"

#define ENCODE_DEFAULT_GUARD_BITS 2u
#define ENCODE_MAX_PRECISION 24u /* deepest input: 5/3 planes and float 9/7 stay exact enough */

typedef struct encode_component_plan {
    uint32_t precision;
    bool is_signed;
    j2k_component_coding coding;
    /* Guard bits start at the option's value; the encoder raises them when a
     * code-block needs more magnitude bit-planes than Mb allows (E.1). */
    j2k_quantization quantization;
    double step[J2K_MAX_SUBBANDS];   /* Delta_b (E.1): 1 for the reversible path */
    /* The squared sample error one squared quantization step of subband s
     * causes: Delta_b^2 times the synthesis energy of the band (Annex F) and
     * of the component transform (Annex G). Rate control's distortion unit. */
    double weight[J2K_MAX_SUBBANDS];
} encode_component_plan;

/* One quality layer's goal. */
typedef struct encode_layer_target {
    bool lossless;       /* every coding pass */
    bool by_distortion;  /* meet max_squared_error, else max_bytes */
    size_t max_bytes;    /* of the whole output */
    double max_squared_error; /* summed over every sample of every component */
} encode_layer_target;

typedef struct encode_plan {
    j2k_siz siz;
    j2k_cod cod;                     /* progression, layers, MCT, SOP/EPH, default coding */
    bool reversible;
    encode_component_plan *components;
    j2k_header_params main_header;   /* COD, QCD, QCC, main POC, COM (filled by the encoder) */
    j2k_header_params *tile_headers; /* per tile: its POC, or NULL when no tile has one */
    encode_layer_target layers[GJ2K_MAX_LAYERS];
    gj2k_file_format format;
    bool use_plt, use_tlm;
    gj2k_tile_parts tile_parts;      /* -TP */
    bool ht_refinement;              /* HT choices with SigProp and MagRef (T.814 7.4, 7.5) */
    unsigned threads;
    uint64_t total_samples;          /* over all components */
    progress_meter *progress;        /* the code-blocks' samples as they are coded */
} encode_plan;

/* Whether HT code-blocks (T.814) are coded at every bit-plane, for rate
 * control to choose one, rather than at plane 0 alone: unless one layer
 * keeps every bit. */
static inline bool encode_plan_ht_choices(const encode_plan *plan)
{
    return !(plan->cod.layers == 1 && plan->layers[0].lossless);
}

/* Checks the options against the image and Annex A's limits and fills the
 * plan; on failure the plan holds nothing to free. */
gj2k_status encode_plan_create(const gj2k_image *image, const gj2k_encode_options *options,
                               gj2k_file_format format, encode_plan *plan, gj2k_error *error);
/* Builds main_header from the plan's COD and the components' quantization
 * (their guard bits final): QCD from component 0, QCC where another differs. */
gj2k_status encode_plan_finish_headers(encode_plan *plan, const char *comment, gj2k_error *error);
void encode_plan_free(encode_plan *plan);

#endif
