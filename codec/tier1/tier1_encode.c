/* tier1_encode.c - Tier-1 code-block encoding (T.800 Annex D) on the host:
 * the checks, scratch and growable output around tier1_encode_block.h's
 * encoder. */
#include <stdlib.h>
#include <string.h>

#include "tier1_encode_block.h"

void tier1_encoded_block_release(tier1_encoded_block *block)
{
    free(block->data);
    block->data = NULL;
    block->size = 0;
}

static gj2k_status encode_block(const int32_t *coefficients, const uint8_t *fractions,
                                size_t stride, uint32_t width, uint32_t height, dwt_band band,
                                unsigned style, unsigned magnitude_bits, bool measure,
                                tier1_workspace *workspace, tier1_encoded_block *out)
{
    if (out == NULL)
        return GJ2K_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (coefficients == NULL || !tier1_block_is_valid(width, height, band, style) ||
        stride < width || magnitude_bits < 1 || magnitude_bits > TIER1_MAX_PLANES)
        return GJ2K_ERROR_INVALID_ARGUMENT;

    tier1_workspace *ws = workspace ? workspace : tier1_workspace_create();
    if (ws == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    gj2k_status status = GJ2K_OK;
    bool bad = false;
    unsigned planes = tier1_planes_of(
        tier1_encode_load(coefficients, stride, width, height, ws->magnitudes, &bad));
    if (bad || planes > magnitude_bits)
        status = GJ2K_ERROR_INVALID_ARGUMENT;
    mq_context contexts[MQ_NUM_CONTEXTS];
    tier1_block_encoder b;
    if (status == GJ2K_OK && planes > 0) {
        b.mag = ws->magnitudes;
        b.width = width;
        b.height = height;
        b.zero_context = tier1_zero_context[band];
        b.causal = (style & TIER1_STYLE_VERTICALLY_CAUSAL) != 0;
        b.half_at_zero = fractions != NULL;
        b.measure = measure;
        b.fractions = fractions;
        if (fractions != NULL && stride != width) {
            for (uint32_t y = 0; y < height; y++)
                memcpy(ws->fractions + (size_t)y * width, fractions + (size_t)y * stride, width);
            b.fractions = ws->fractions;
        }
        if (!mq_encoder_init(&b.mq, contexts, (size_t)width * height * planes / 4 + 64))
            status = GJ2K_ERROR_OUT_OF_MEMORY;
    }
    if (status == GJ2K_OK && planes > 0) {
        mq_snapshot snapshots[TIER1_MAX_PASSES];
        tier1_encode_passes(&b, ws->flags, planes, style, out->passes, snapshots);
        if (b.mq.out_of_memory) {
            mq_encoder_release(&b.mq);
            memset(out, 0, sizeof *out);
            status = GJ2K_ERROR_OUT_OF_MEMORY;
        } else {
            out->data = b.mq.data;
            out->size = b.mq.length;
            out->num_passes = 3 * planes - 2;
        }
    }
    if (status == GJ2K_OK) {
        out->num_planes = planes;
        out->missing_msbs = magnitude_bits - planes;
    }
    if (ws != workspace)
        tier1_workspace_destroy(ws);
    return status;
}

gj2k_status tier1_encode_block(const int32_t *coefficients, size_t stride, uint32_t width,
                               uint32_t height, dwt_band band, unsigned style,
                               unsigned magnitude_bits, tier1_workspace *workspace,
                               tier1_encoded_block *out)
{
    return encode_block(coefficients, NULL, stride, width, height, band, style, magnitude_bits,
                        true, workspace, out);
}

gj2k_status tier1_encode_block_with_fractions(const int32_t *coefficients,
                                              const uint8_t *fractions, size_t stride,
                                              uint32_t width, uint32_t height, dwt_band band,
                                              unsigned style, unsigned magnitude_bits,
                                              tier1_workspace *workspace,
                                              tier1_encoded_block *out)
{
    return encode_block(coefficients, fractions, stride, width, height, band, style,
                        magnitude_bits, true, workspace, out);
}

gj2k_status tier1_encode_block_unmeasured(const int32_t *coefficients, const uint8_t *fractions,
                                          size_t stride, uint32_t width, uint32_t height,
                                          dwt_band band, unsigned style, unsigned magnitude_bits,
                                          tier1_workspace *workspace, tier1_encoded_block *out)
{
    return encode_block(coefficients, fractions, stride, width, height, band, style,
                        magnitude_bits, false, workspace, out);
}
