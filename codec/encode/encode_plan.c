/* encode_plan.c - see encode_plan.h. */
#include "encode_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "component_transform.h"
#include "error.h"
#include "imf_profile.h"
#include "quantization.h"

static bool is_power_of_two(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

static unsigned log2_of(uint32_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

/* Whether components 0..2 can take a component transform (Annex G: same
 * size, subsampling, depth and sign). */
static bool components_allow_mct(const gj2k_image *image)
{
    if (image->num_components < 3)
        return false;
    const gj2k_component *a = &image->components[0];
    for (int c = 1; c < 3; c++) {
        const gj2k_component *b = &image->components[c];
        if (b->dx != a->dx || b->dy != a->dy || b->width != a->width || b->height != a->height ||
            b->precision != a->precision || b->is_signed != a->is_signed)
            return false;
    }
    return true;
}

/* Code-block and precinct sizes (A.6.1, Table A.18 and A.21). */
static gj2k_status plan_coding(const gj2k_encode_options *o, j2k_component_coding *coding,
                               gj2k_error *error)
{
    unsigned resolutions = o->num_resolutions ? o->num_resolutions : 6;
    if (resolutions > GJ2K_MAX_RESOLUTIONS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "%u resolutions: at most %d (32 decomposition levels)", resolutions,
                         GJ2K_MAX_RESOLUTIONS);
    uint32_t cw = o->code_block_width ? o->code_block_width : 64;
    uint32_t ch = o->code_block_height ? o->code_block_height : 64;
    if (!is_power_of_two(cw) || !is_power_of_two(ch) || cw < 4 || ch < 4 || cw > 1024 ||
        ch > 1024 || cw * ch > 4096)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "code-block %ux%u: each side a power of two from 4 to 1024, at most "
                         "4096 samples", cw, ch);
    unsigned style = o->code_block_style | (o->high_throughput ? J2K_CBLK_HT : 0u);
    if (style & J2K_CBLK_HT) {
        /* HTONLY (T.814 Table A.4): every block HT; of Table A.19's bits the
         * encoder takes only the vertically causal context with it. */
        if (style & ~(J2K_CBLK_HT | J2K_CBLK_VERTICAL_CAUSAL))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "code-block style %u: with HT (64) the only other bit allowed is 8 "
                             "(vertically causal): 64 or 72", style);
    } else if (style > 63) {
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "code-block style %u: 0..63, or 64 / 72 for HT code-blocks", style);
    }
    memset(coding, 0, sizeof *coding);
    coding->levels = (uint8_t)(resolutions - 1);
    coding->code_block_width_log2 = (uint8_t)log2_of(cw);
    coding->code_block_height_log2 = (uint8_t)log2_of(ch);
    coding->code_block_style = (uint8_t)style;
    coding->transform = o->irreversible ? J2K_TRANSFORM_97 : J2K_TRANSFORM_53;
    j2k_component_coding_default_precincts(coding);
    if (o->num_precinct_sizes == 0)
        return GJ2K_OK;
    if (o->num_precinct_sizes > GJ2K_MAX_RESOLUTIONS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "more precinct sizes than resolutions");
    coding->precincts_defined = true;
    /* The first size is the highest resolution's; below the last one given,
     * each resolution halves it (as opj_compress), PPx >= 1 above r = 0. */
    unsigned given = o->num_precinct_sizes;
    for (unsigned i = 0; i < given; i++)
        if (!is_power_of_two(o->precinct_width[i]) || !is_power_of_two(o->precinct_height[i]) ||
            o->precinct_width[i] > 32768 || o->precinct_height[i] > 32768)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "precinct %ux%u: sides must be powers of two up to 32768",
                             o->precinct_width[i], o->precinct_height[i]);
    for (unsigned step = 0; step < resolutions; step++) {
        unsigned r = resolutions - 1 - step;
        unsigned i = step < given ? step : given - 1;
        unsigned halvings = step < given ? 0 : step - (given - 1);
        int pw = (int)log2_of(o->precinct_width[i]) - (int)halvings;
        int ph = (int)log2_of(o->precinct_height[i]) - (int)halvings;
        int least = r == 0 ? 0 : 1;
        coding->precinct_width_log2[r] = (uint8_t)(pw < least ? least : pw);
        coding->precinct_height_log2[r] = (uint8_t)(ph < least ? least : ph);
    }
    return GJ2K_OK;
}

/* Synthesis energy of each subband s (LL, then HL, LH, HH from level
 * `levels` to 1): it depends on the wavelet, the level and the band alone, so
 * every component shares it. */
static gj2k_status plan_band_energies(bool reversible, unsigned levels,
                                      double energy[J2K_MAX_SUBBANDS], gj2k_error *error)
{
    for (unsigned s = 0; s < 3 * levels + 1; s++) {
        energy[s] = dwt_synthesis_energy(reversible, dwt_subband_level(s, levels),
                                         dwt_subband_band(s));
        if (!(energy[s] > 0.0))
            return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return GJ2K_OK;
}

/* Quantization of one component (E.1): reversible, one exponent per band
 * (Rb); irreversible, Delta_b = 1 / sqrt(synthesis energy), so every band's
 * quantization error weighs alike in the image. `energy`: plan_band_energies
 * for the component's levels. */
static void plan_quantization(encode_component_plan *cp, bool reversible, bool mct,
                              uint32_t component, unsigned guard_bits,
                              const double energy[J2K_MAX_SUBBANDS])
{
    unsigned levels = cp->coding.levels;
    j2k_quantization *q = &cp->quantization;
    q->style = reversible ? J2K_QUANT_NONE : J2K_QUANT_EXPOUNDED;
    q->guard_bits = (uint8_t)guard_bits;
    q->num_steps = (uint8_t)(3 * levels + 1);
    double mct_energy = 1.0;
    if (mct && component < 3)
        mct_energy = reversible ? rct_synthesis_energy(component) : ict_synthesis_energy(component);
    for (unsigned s = 0; s < q->num_steps; s++) {
        unsigned range = quant_dynamic_range(cp->precision, dwt_subband_band(s));
        if (reversible) {
            q->steps[s] = (quant_step){.exponent = (uint8_t)range, .mantissa = 0};
            cp->step[s] = 1.0;
        } else {
            /* Mb = G + eps - 1 must stay within 31 planes (Tier-1). */
            unsigned max_exponent = 32 - guard_bits;
            quant_step step;
            if (!quant_step_from_size(1.0 / sqrt(energy[s]), range, &step) ||
                step.exponent > max_exponent)
                step = (quant_step){.exponent = (uint8_t)max_exponent, .mantissa = 0};
            q->steps[s] = step;
            cp->step[s] = quant_step_size(step, range);
        }
        cp->weight[s] = cp->step[s] * cp->step[s] * energy[s] * mct_energy;
    }
}

/* SIZ (A.5.1) with the tile grid of the options. */
static gj2k_status plan_siz(const gj2k_image *image, const gj2k_encode_options *o, j2k_siz *siz,
                            gj2k_error *error)
{
    memset(siz, 0, sizeof *siz);
    siz->image_x0 = image->x0;
    siz->image_y0 = image->y0;
    siz->image_x1 = image->x1;
    siz->image_y1 = image->y1;
    siz->tile_x0 = o->tile_x0;
    siz->tile_y0 = o->tile_y0;
    if (o->tile_x0 > image->x0 || o->tile_y0 > image->y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "tile origin %u,%u lies right of or below the image origin %u,%u (B.2)",
                         o->tile_x0, o->tile_y0, image->x0, image->y0);
    siz->tile_width = o->tile_width ? o->tile_width : image->x1 - o->tile_x0;
    siz->tile_height = o->tile_height ? o->tile_height : image->y1 - o->tile_y0;
    if ((uint64_t)o->tile_x0 + siz->tile_width <= image->x0 ||
        (uint64_t)o->tile_y0 + siz->tile_height <= image->y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "the first tile (%ux%u from %u,%u) does not reach the image (B.2)",
                         siz->tile_width, siz->tile_height, o->tile_x0, o->tile_y0);
    siz->num_components = image->num_components;
    siz->components = calloc(image->num_components, sizeof *siz->components);
    if (siz->components == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *ic = &image->components[c];
        siz->components[c] = (j2k_component_size){.precision = (uint8_t)ic->precision,
                                                  .is_signed = ic->is_signed,
                                                  .dx = (uint8_t)ic->dx, .dy = (uint8_t)ic->dy};
    }
    return j2k_siz_validate(siz, error);
}

static gj2k_status check_image(const gj2k_image *image, gj2k_error *error)
{
    if (image == NULL || image->num_components == 0 || image->components == NULL ||
        image->x1 <= image->x0 || image->y1 <= image->y0)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "encode: an empty image");
    if (image->num_components > J2K_MAX_COMPONENTS)
        return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED, "%u components: at most %u",
                         image->num_components, J2K_MAX_COMPONENTS);
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *ic = &image->components[c];
        if (ic->samples == NULL)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u holds no samples", c);
        if (ic->precision < 1 || ic->precision > ENCODE_MAX_PRECISION)
            return gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                             "component %u: %u-bit samples (the encoder takes 1 to %u bits)", c,
                             ic->precision, ENCODE_MAX_PRECISION);
        if (ic->dx < 1 || ic->dx > 255 || ic->dy < 1 || ic->dy > 255)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u: subsampling %ux%u (1..255)", c, ic->dx, ic->dy);
        uint32_t x0 = (uint32_t)(((uint64_t)image->x0 + ic->dx - 1) / ic->dx);
        uint32_t y0 = (uint32_t)(((uint64_t)image->y0 + ic->dy - 1) / ic->dy);
        uint32_t x1 = (uint32_t)(((uint64_t)image->x1 + ic->dx - 1) / ic->dx);
        uint32_t y1 = (uint32_t)(((uint64_t)image->y1 + ic->dy - 1) / ic->dy);
        if (ic->x0 != x0 || ic->y0 != y0 || ic->width != x1 - x0 || ic->height != y1 - y0)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "component %u: its area does not match the image's (eq. B-1)", c);
    }
    return GJ2K_OK;
}

/* Raw size (bits of every sample / 8) and the layers' goals. */
static gj2k_status plan_layers(const gj2k_image *image, const gj2k_encode_options *o,
                               encode_plan *plan, gj2k_error *error)
{
    unsigned layers = o->num_layers ? o->num_layers : 1;
    if (layers > GJ2K_MAX_LAYERS)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%u layers: at most %d", layers,
                         GJ2K_MAX_LAYERS);
    plan->cod.layers = (uint16_t)layers;
    double raw_bytes = 0.0, peak = 0.0;
    for (uint32_t c = 0; c < image->num_components; c++) {
        const gj2k_component *ic = &image->components[c];
        raw_bytes += (double)ic->width * ic->height * ic->precision / 8.0;
        double p = ldexp(1.0, (int)ic->precision) - 1.0;
        peak = p > peak ? p : peak;
    }
    double area = (double)(image->x1 - image->x0) * (image->y1 - image->y0);
    if (o->target == GJ2K_TARGET_NONE) {
        if (layers > 1)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "%u layers need a target each (a ratio, PSNR, bpp or size)", layers);
        plan->layers[0].lossless = true;
        return GJ2K_OK;
    }
    if (o->targets == NULL || o->target > GJ2K_TARGET_BYTES)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "layer targets missing");
    for (unsigned l = 0; l < layers; l++) {
        double t = o->targets[l];
        encode_layer_target *lt = &plan->layers[l];
        if (!(t >= 0.0) || !isfinite(t))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "layer %u: target %g", l + 1, t);
        bool lossless = t == 0.0 || (o->target == GJ2K_TARGET_RATIO && t <= 1.0);
        if (l > 0 && plan->layers[l - 1].lossless && !lossless)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "layer %u: only the last layers can keep everything", l + 1);
        lt->lossless = lossless;
        if (lossless)
            continue;
        double bytes = 0.0;
        switch (o->target) {
        case GJ2K_TARGET_RATIO: bytes = raw_bytes / t; break;
        case GJ2K_TARGET_BPP: bytes = t * area / 8.0; break;
        case GJ2K_TARGET_BYTES: bytes = t; break;
        case GJ2K_TARGET_PSNR:
            lt->by_distortion = true;
            lt->max_squared_error = peak * peak * pow(10.0, -t / 10.0) * (double)plan->total_samples;
            break;
        default: break;
        }
        if (!lt->by_distortion)
            lt->max_bytes = bytes >= (double)SIZE_MAX ? SIZE_MAX : (size_t)floor(bytes);
        if (l > 0 && !plan->layers[l - 1].lossless &&
            (lt->by_distortion ? lt->max_squared_error > plan->layers[l - 1].max_squared_error
                               : lt->max_bytes < plan->layers[l - 1].max_bytes))
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "layer %u: targets must rise in quality from layer to layer", l + 1);
    }
    return GJ2K_OK;
}

static gj2k_status plan_progression_changes(const gj2k_encode_options *o, encode_plan *plan,
                                            gj2k_error *error)
{
    uint32_t n = plan->siz.num_components;
    for (size_t i = 0; i < o->num_progression_changes; i++) {
        const gj2k_progression_change *in = &o->progression_changes[i];
        if (in->resolution_start > 32 || in->resolution_end > 33 || in->layer_end > 65535 ||
            in->component_end > n || (unsigned)in->progression > J2K_CPRL ||
            (in->tile >= 0 && (uint32_t)in->tile >= plan->siz.num_tiles) || in->tile < -1)
            return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                             "progression change %zu: out of range (tile %d of %u, components "
                             "up to %u)", i + 1, in->tile, plan->siz.num_tiles, n);
        j2k_progression_change change = {
            .resolution_start = (uint8_t)in->resolution_start,
            .component_start = in->component_start, .layer_end = (uint16_t)in->layer_end,
            .resolution_end = (uint8_t)in->resolution_end, .component_end = in->component_end,
            .progression = (uint8_t)in->progression};
        gj2k_status status = j2k_progression_change_check(&change, n, error);
        if (status != GJ2K_OK)
            return status;
        j2k_header_params *h = &plan->main_header;
        if (in->tile >= 0) {
            if (plan->tile_headers == NULL &&
                (plan->tile_headers = calloc(plan->siz.num_tiles, sizeof *plan->tile_headers)) == NULL)
                return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
            h = &plan->tile_headers[in->tile];
        }
        status = j2k_header_add_pocs(h, &change, 1, error);
        if (status != GJ2K_OK)
            return status;
    }
    return GJ2K_OK;
}

gj2k_status encode_plan_create(const gj2k_image *image, const gj2k_encode_options *o,
                               gj2k_file_format format, encode_plan *plan, gj2k_error *error)
{
    memset(plan, 0, sizeof *plan);
    gj2k_status status = check_image(image, error);
    if (status != GJ2K_OK)
        return status;
    if (format != GJ2K_FORMAT_J2K && format != GJ2K_FORMAT_JP2)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "encode: the output must be a codestream (.j2k .j2c) or a JP2 file");
    unsigned guard_bits = o->guard_bits ? o->guard_bits : ENCODE_DEFAULT_GUARD_BITS;
    if (guard_bits > 7)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "%u guard bits: at most 7", guard_bits);
    if ((unsigned)o->progression > J2K_CPRL || (unsigned)o->mct > GJ2K_MCT_ON)
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT, "unknown progression order or MCT mode");
    plan->format = format;
    plan->reversible = !o->irreversible;
    plan->use_plt = o->use_plt;
    plan->tile_parts = o->tile_parts;
    plan->use_tlm = o->use_tlm;
    plan->ht_refinement = o->ht_refinement;
    plan->threads = o->threads;
    for (uint32_t c = 0; c < image->num_components; c++)
        plan->total_samples += (uint64_t)image->components[c].width * image->components[c].height;

    bool mct = o->mct == GJ2K_MCT_ON || (o->mct == GJ2K_MCT_AUTO && components_allow_mct(image));
    if (mct && !components_allow_mct(image))
        return gj2k_fail(error, GJ2K_ERROR_INVALID_ARGUMENT,
                         "a component transform needs components 0-2 of one size, depth and sign");
    plan->cod = (j2k_cod){.use_sop = o->use_sop, .use_eph = o->use_eph,
                          .progression = (uint8_t)o->progression, .mct = mct ? 1 : 0};
    status = plan_coding(o, &plan->cod.coding, error);
    bool ht = (plan->cod.coding.code_block_style & J2K_CBLK_HT) != 0;
    if (status == GJ2K_OK && ht && o->num_layers > 1)
        status = gj2k_fail(error, GJ2K_ERROR_UNSUPPORTED,
                           "HT encoding takes one quality layer (-r/-q with one value), not %u",
                           o->num_layers);
    if (status == GJ2K_OK)
        status = plan_siz(image, o, &plan->siz, error);
    if (status == GJ2K_OK && ht)
        plan->siz.capabilities |= J2K_RSIZ_PART15; /* T.814 A.2 */
    if (status == GJ2K_OK && imf_profile_rsiz(o->profile) != 0) /* T.800 Amd 8 */
        plan->siz.capabilities = (uint16_t)imf_options_rsiz(o);
    else if (status == GJ2K_OK && o->profile != GJ2K_PROFILE_NONE) /* T.800 Amd 1 */
        plan->siz.capabilities = o->profile == GJ2K_PROFILE_CINEMA_4K ? J2K_RSIZ_CINEMA_4K
                                                                      : J2K_RSIZ_CINEMA_2K;
    if (status == GJ2K_OK)
        status = plan_layers(image, o, plan, error);
    if (status == GJ2K_OK && (plan->components = calloc(image->num_components,
                                                        sizeof *plan->components)) == NULL)
        status = gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    double energy[J2K_MAX_SUBBANDS];
    if (status == GJ2K_OK)
        status = plan_band_energies(plan->reversible, plan->cod.coding.levels, energy, error);
    for (uint32_t c = 0; status == GJ2K_OK && c < image->num_components; c++) {
        encode_component_plan *cp = &plan->components[c];
        cp->precision = image->components[c].precision;
        cp->is_signed = image->components[c].is_signed;
        cp->coding = plan->cod.coding;
        plan_quantization(cp, plan->reversible, mct, c, guard_bits, energy);
    }
    if (status == GJ2K_OK)
        status = plan_progression_changes(o, plan, error);
    if (status != GJ2K_OK)
        encode_plan_free(plan);
    return status;
}

static bool same_quantization(const j2k_quantization *a, const j2k_quantization *b)
{
    if (a->style != b->style || a->guard_bits != b->guard_bits || a->num_steps != b->num_steps)
        return false;
    for (unsigned s = 0; s < a->num_steps; s++)
        if (a->steps[s].exponent != b->steps[s].exponent ||
            a->steps[s].mantissa != b->steps[s].mantissa)
            return false;
    return true;
}

gj2k_status encode_plan_finish_headers(encode_plan *plan, const char *comment, gj2k_error *error)
{
    j2k_header_params *h = &plan->main_header;
    gj2k_status status = j2k_header_set_cod(h, &plan->cod, error);
    if (status == GJ2K_OK)
        status = j2k_header_set_qcd(h, &plan->components[0].quantization, error);
    for (uint32_t c = 1; status == GJ2K_OK && c < plan->siz.num_components; c++) {
        const j2k_quantization *q = &plan->components[c].quantization;
        if (same_quantization(q, &plan->components[0].quantization))
            continue;
        j2k_qcc qcc = {.component = c, .quantization = *q};
        status = j2k_header_add_qcc(h, &qcc, NULL, error);
    }
    if (status == GJ2K_OK && comment != NULL && comment[0] != '\0')
        status = j2k_header_add_comment(h, J2K_COMMENT_LATIN, (const uint8_t *)comment,
                                        strlen(comment), error);
    return status;
}

void encode_plan_free(encode_plan *plan)
{
    if (plan->tile_headers != NULL)
        for (uint32_t t = 0; t < plan->siz.num_tiles; t++)
            j2k_header_free(&plan->tile_headers[t]);
    free(plan->tile_headers);
    j2k_siz_free(&plan->siz);
    free(plan->components);
    j2k_header_free(&plan->main_header);
    memset(plan, 0, sizeof *plan);
}
