/* gpu_context.c - see gpu_context.h. */
#include "gpu_context.h"

#include <stdlib.h>

#include "error.h"

gj2k_status gj2k_gpu_context_create(unsigned gpu, gj2k_gpu_context **out, gj2k_error *error)
{
    return gj2k_gpu_context_create_ranked(gpu, 0, out, error);
}

gj2k_status gj2k_gpu_context_create_ranked(unsigned gpu, unsigned rank, gj2k_gpu_context **out,
                                           gj2k_error *error)
{
    *out = NULL;
    gj2k_gpu_context *context = calloc(1, sizeof *context);
    if (context == NULL)
        return gj2k_fail(error, GJ2K_ERROR_OUT_OF_MEMORY, "out of memory");
    context->gpu = gpu;
    context->rank = rank;
    gj2k_status status = gpu_stage_create_ranked(gpu, rank, &context->stage, error);
    if (status != GJ2K_OK) {
        free(context);
        return status;
    }
    *out = context;
    return GJ2K_OK;
}

void gj2k_gpu_context_destroy(gj2k_gpu_context *context)
{
    if (context == NULL)
        return;
    tier1_gpu_destroy(context->decoder);
    tier1_gpu_encoder_destroy(context->encoder);
    gpu_stage_destroy(context->stage);
    free(context);
}

tier1_gpu *gpu_context_decoder(gj2k_gpu_context *context)
{
    gj2k_error unused = {0};
    if (context->decoder == NULL &&
        tier1_gpu_create_ranked(context->gpu, context->rank, &context->decoder, &unused) != GJ2K_OK)
        context->decoder = NULL;
    return context->decoder;
}

tier1_gpu_encoder *gpu_context_encoder(gj2k_gpu_context *context)
{
    gj2k_error unused = {0};
    if (context->encoder == NULL &&
        tier1_gpu_encoder_create_ranked(context->gpu, context->rank, &context->encoder, &unused) !=
            GJ2K_OK)
        context->encoder = NULL;
    return context->encoder;
}
