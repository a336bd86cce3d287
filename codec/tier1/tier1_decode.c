/* tier1_decode.c - Tier-1 code-block decoding (T.800 Annex D) on the host:
 * the checks and scratch around tier1_decode_block.h's decoder. */
#include <string.h>

#include "tier1_decode_block.h"

gj2k_status tier1_decode_block(const tier1_decode_request *request, tier1_workspace *workspace,
                               int32_t *coefficients, size_t stride, uint8_t *lowest_known_plane,
                               tier1_decode_result *result)
{
    tier1_decode_result scratch;
    if (result == NULL)
        result = &scratch;
    memset(result, 0, sizeof *result);
    if (request == NULL || coefficients == NULL ||
        !tier1_block_is_valid(request->width, request->height, request->band, request->style) ||
        stride < request->width || (request->num_segments > 0 && request->segments == NULL) ||
        (request->data == NULL && request->size > 0))
        return GJ2K_ERROR_INVALID_ARGUMENT;
    if (request->num_planes > TIER1_MAX_PLANES)
        return GJ2K_ERROR_UNSUPPORTED;

    tier1_workspace *ws = workspace ? workspace : tier1_workspace_create();
    if (ws == NULL)
        return GJ2K_ERROR_OUT_OF_MEMORY;
    tier1_block_decoder_state decoder;
    gj2k_status status =
        tier1_decode_block_in(request, &decoder, ws->flags, ws->magnitudes, coefficients, stride,
                              lowest_known_plane, result);
    if (ws != workspace)
        tier1_workspace_destroy(ws);
    return status;
}
