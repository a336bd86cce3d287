/* gpu_stage.h - the GPU stage behind a plain C interface: the sample
 * transforms of a tile on a CUDA device, giving exactly the CPU reference's
 * bits (docs/numerics.md).
 *
 * Forward (encoding): samples -> DC level shift (G.1) -> RCT or ICT on
 * components 0..2 (G.2, G.3) -> every decomposition level (F.4) -> for 9/7,
 * quantization of every subband (E.1) with the fractions rate control uses.
 * Inverse (decoding): coefficients (dequantized, or in half steps that the
 * GPU dequantizes, E.1.1.2) -> every level (F.3) -> inverse RCT or ICT ->
 * level shift back, clamp (and rounding for 9/7).
 * Buffers are host memory in the layout of the CPU path: one tile-component
 * of rect.x1 - rect.x0 samples a row, the subbands in the Mallat layout of
 * dwt.h, or, for the forward outputs, code-block by code-block
 * (codeblock_layout.h). Uploads and downloads overlap the kernels (two
 * streams), each through a pair of page-locked halves of the stage's own
 * for each way (the strips' copies from and to the caller's memory as it is).
 * A plane larger than the device's memory goes through in strips of rows
 * (Mallat layout only).
 * In a build without CUDA every call fails with GJ2K_ERROR_DEVICE.
 */
#ifndef GJ2K_GPU_STAGE_H
#define GJ2K_GPU_STAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codeblock_layout.h"
#include "dwt.h"
#include "gj2k.h"

typedef struct gpu_stage gpu_stage;

/* --device auto takes the GPU only for images of at least this many samples,
 * chosen by whole-process times (docs/gpu-notes.md; tests/gpu/whole_process.sh,
 * best of 5). Encoding, with Tier-1 on the GPU, breaks even at a 3840x2160
 * RGB photo (24.9M samples; H200, 2026-11-27: 432 against 412 ms lossless,
 * 2026-11-26 on an H100: 457 against 532 ms) and is faster above (8K: 880
 * against 1516 ms): opening the device costs some 200 ms that reading the
 * input does not hide. Decoding, GPU-resident since 2026-11-27, is faster at
 * 7680x4320 (99.5M samples: 788 against 1445 ms lossless) and slower at
 * 3840x2160 (430 against 380 ms), where reading hides nothing of the open:
 * auto takes the GPU from 2^25 samples. */
#define GPU_STAGE_AUTO_MIN_ENCODE_SAMPLES ((uint64_t)1 << 24)
#define GPU_STAGE_AUTO_MIN_DECODE_SAMPLES ((uint64_t)1 << 25)

/* One tile-component for gpu_forward. */
typedef struct gpu_forward_plane {
    dwt_rect rect;          /* the tile-component on its grid */
    unsigned levels;        /* decomposition levels */
    uint32_t precision;
    bool is_signed;
    const void *input;      /* the samples, row-major, input_bytes each: */
    unsigned input_bytes;   /* 1 or 2 (uint8/int8, uint16/int16 by the sign), or 4 (int32) */
    int32_t *output;        /* 5/3 coefficients or 9/7 indices */
    uint8_t *fractions;     /* 9/7 out: |a| / Delta - |q| in 1/256 (as encode_tile makes them) */
    const float *steps;     /* 9/7: Delta of each subband, LL first (QCD order) */
    const codeblock_layout_band *layout; /* each subband's code-blocks (QCD order), laid out in
                                            output and fractions as Tier-1 takes them; NULL:
                                            the Mallat layout of dwt.h */
    /* Device memory the outputs stay in instead of coming down to output
     * and fractions (NULL: they come down), for the GPU's Tier-1; a plane
     * too large for the stage's buffers is refused then. */
    int32_t *device_output;
    uint8_t *device_fractions;
} gpu_forward_plane;

/* The narrowest width gpu_forward takes samples of `precision` bits in:
 * uploads are the stage's bottleneck, so samples travel at storage width. */
static inline unsigned gpu_input_bytes(uint32_t precision)
{
    return precision <= 8 ? 1u : precision <= 16 ? 2u : 4u;
}

/* One tile-component for gpu_inverse. */
typedef struct gpu_inverse_plane {
    dwt_rect rect;
    unsigned levels;
    uint32_t precision;
    bool is_signed;
    int32_t *samples;       /* 5/3 in: coefficients; out (both, when output is NULL): samples */
    const float *floats;    /* 9/7 in: dequantized coefficients, unless: */
    bool halves;            /* dequantized on the GPU (E.1.1.2): samples holds each coefficient
                               in signed half steps, +-(2 |q| + 2^lowest plane), below 2^31 */
    const float *half_steps; /* 9/7 with halves: Delta_s / 2 for each subband s, LL first */
    void *output;           /* or the samples here, output_bytes each (gpu_input_bytes: */
    unsigned output_bytes;  /*   1 or 2, uint/int by the sign; the downloads are the cost) */
    /* Device memory that holds what `samples` would (5/3 coefficients or half
     * steps), read where it lies instead of uploaded (the GPU's Tier-1 left
     * it there: tier1_gpu_decode_placed); NULL: none. A plane too large for
     * the stage's buffers is refused then. */
    const int32_t *device_input;
} gpu_inverse_plane;

/* The --device policy: no stage for cpu, or for auto below
 * `auto_min_samples` samples (GPU_STAGE_AUTO_MIN_*_SAMPLES) or without a
 * usable GPU (*out NULL, GJ2K_OK); gpu fails with GJ2K_ERROR_DEVICE when
 * GPU `gpu` does not open. */
gj2k_status gpu_stage_open(gj2k_device device, unsigned gpu, uint64_t samples,
                           uint64_t auto_min_samples, gpu_stage **out, gj2k_error *error);

/* Opens CUDA device `device` (the visible ones numbered from 0, as
 * CUDA_VISIBLE_DEVICES leaves them). GJ2K_ERROR_DEVICE when there is no
 * such device or this build has no CUDA; the message says why. A stage may
 * be used from any thread: each call makes its device the thread's own. */
gj2k_status gpu_stage_create(unsigned device, gpu_stage **out, gj2k_error *error);
/* ... whose kernels run at rank `rank`'s stream priority among the stages
 * sharing the GPU (0: the default; gj2k_gpu_context_create_ranked). */
gj2k_status gpu_stage_create_ranked(unsigned device, unsigned rank, gpu_stage **out,
                                    gj2k_error *error);
void gpu_stage_destroy(gpu_stage *stage);
/* Whether a tile whose largest tile-component has `largest_area` samples
 * fits in the device memory the stage holds or can still get, whole (as the
 * code-block layout needs). */
bool gpu_stage_fits(gpu_stage *stage, size_t largest_area);
/* Whether a tile-component of width x height samples can go through the
 * stage at all: whole, or in strips of rows (a tile larger than the
 * device's memory), which needs a few dozen rows of it to fit. */
bool gpu_stage_takes(gpu_stage *stage, size_t width, size_t height);
/* For tests: as if the device could hold `elements` elements a buffer at
 * most (0: its real memory); larger planes then go through in strips. */
void gpu_stage_set_memory_limit(gpu_stage *stage, size_t elements);
/* Takes the device memory for tile-components of up to `largest_area`
 * samples now, so that later tiles never reallocate: gpu_stage_fits may then
 * be asked from one thread while another runs a tile. */
gj2k_status gpu_stage_reserve(gpu_stage *stage, size_t largest_area, gj2k_error *error);

/* Output rows a warp gives in the level kernels (Y of the register-based
 * strategy): an even number up to 1024, or 0 (the default) to choose by
 * level so the device stays full; returns the one in use. */
int gpu_stage_set_rows(gpu_stage *stage, int rows);

/* Where the device's time went (CUDA event timing), in milliseconds since
 * the last call: copies to and from host memory (from the first chunk's
 * copy queued to the last one's end, so the host's waits and memcpy
 * through the page-locked halves between chunks count too), the
 * elementwise passes over samples (level shift, RCT/ICT, conversions), the
 * level kernels. */
typedef enum gpu_phase {
    GPU_PHASE_COPIES = 0,
    GPU_PHASE_SAMPLE_PASSES,
    GPU_PHASE_LEVELS,
    GPU_PHASES
} gpu_phase;
void gpu_stage_take_times(gpu_stage *stage, double ms[GPU_PHASES]);

/* What pinned (page-locked) host memory would change for `bytes` of
 * upload (times in ms, rates in GB/s). */
typedef struct gpu_pinned_probe {
    double allocate_ms;      /* cudaHostAlloc of `bytes` */
    double pinned_gbps;      /* upload from it */
    double pageable_gbps;    /* upload from ordinary memory */
    double memcpy_gbps;      /* one host thread copying ordinary memory into pinned */
    double register_ms;      /* cudaHostRegister of ordinary memory already written */
    double registered_gbps;  /* upload from it, once registered */
} gpu_pinned_probe;
gj2k_status gpu_stage_probe_pinned(gpu_stage *stage, size_t bytes, gpu_pinned_probe *probe,
                                   gj2k_error *error);

/* The device-to-device copy bandwidth (bytes read plus bytes written, per
 * second, in GB/s) of `bytes`-byte copies: the yardstick of `gj2k bench dwt`. */
gj2k_status gpu_stage_copy_bandwidth(gpu_stage *stage, size_t bytes, double *gbps,
                                     gj2k_error *error);
/* Fills every device buffer of the stage with 0xFF, so that a test sees
 * any output element a kernel failed to write. */
gj2k_status gpu_stage_poison(gpu_stage *stage, gj2k_error *error);

/* Told, in order, that plane `plane`'s outputs are in host memory. */
typedef void (*gpu_plane_done_fn)(void *user, uint32_t plane);

/* The forward path of one tile's `count` planes; `mct` transforms planes
 * 0..2, which must then agree in rect. `done` (may be NULL) hears of each
 * plane as it lands, so that Tier-1 can start on it while the GPU goes on. */
gj2k_status gpu_forward(gpu_stage *stage, gpu_forward_plane *planes, uint32_t count,
                        bool reversible, bool mct, gpu_plane_done_fn done, void *done_user,
                        gj2k_error *error);
/* Asked, in order, to wait until plane `plane`'s coefficients are in host
 * memory; false gives up (the CPU side failed). */
typedef bool (*gpu_plane_wait_fn)(void *user, uint32_t plane);

/* The inverse path of one tile's planes. `wait` (may be NULL) is asked
 * before each plane is read, so that the GPU can start on a plane while
 * Tier-1 is still decoding the next; when it gives up, gpu_inverse fails
 * with GJ2K_ERROR_INVALID_ARGUMENT. */
gj2k_status gpu_inverse(gpu_stage *stage, gpu_inverse_plane *planes, uint32_t count,
                        bool reversible, bool mct, gpu_plane_wait_fn wait, void *wait_user,
                        gj2k_error *error);

/* The build's device probe (cuda/device_probe.cu
 * or device_probe_none.c) into a whole struct; gj2k_device_probe
 * (device_probe.c) hands the caller as much as its struct_size holds. */
void device_probe_fill(gj2k_device_info *info);

#endif
