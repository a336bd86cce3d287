/* gpu_context.h - gj2k_gpu_context (include/gj2k.h): one GPU's transform
 * stage and Tier-1 coders, made once and kept across encodes and decodes,
 * so that their device buffers are allocated once (and grown) rather than
 * each call: freeing device memory waits for the whole GPU, and calls
 * coding at once on one GPU would stall each other on it. */
#ifndef GJ2K_GPU_CONTEXT_H
#define GJ2K_GPU_CONTEXT_H

#include "gj2k.h"
#include "gpu_stage.h"
#include "tier1_gpu.h"

struct gj2k_gpu_context {
    unsigned gpu;                /* CUDA's number of the visible GPU */
    unsigned rank;               /* its streams' priority (gj2k_gpu_context_create_ranked) */
    gpu_stage *stage;            /* made with the context */
    tier1_gpu *decoder;          /* made when a decode first wants one */
    tier1_gpu_encoder *encoder;  /* and when an encode does */
};

/* The context's Tier-1 coders, made on first use; NULL when one cannot be
 * made (the CPU's Tier-1 then codes, as when a call opens its own GPU). */
tier1_gpu *gpu_context_decoder(gj2k_gpu_context *context);
tier1_gpu_encoder *gpu_context_encoder(gj2k_gpu_context *context);

/* The context an encode or decode with `device` codes on: `context` unless
 * the device is the CPU (NULL then, and when none was given). */
static inline gj2k_gpu_context *gpu_context_for(gj2k_gpu_context *context, gj2k_device device)
{
    return device == GJ2K_DEVICE_CPU ? NULL : context;
}

#endif
