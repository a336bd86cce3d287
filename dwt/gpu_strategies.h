/* gpu_strategies.h - every GPU DWT strategy of gpu_dwt_model.h on one
 * plane in device memory, for `gj2k bench dwt --strategy` and the tests
 * (issue 15): the strategy lab. The codec itself runs the register
 * strategy inside the GPU stage (gpu_stage.h), fused with its sample,
 * quantization and code-block passes; the lab runs the bare transform of
 * every strategy the same way, so that they compare like with like.
 *
 * Layout as dwt.h: a tile-component of rect.x1 - rect.x0 samples a row;
 * forward takes the samples (5/3 int32, 9/7 float) to the Mallat layout
 * of `levels` levels, inverse takes that layout back (the 9/7 inverse as
 * the decoder's: dwt_inverse_97_interop). The lab keeps the forward's
 * input, its output, the inverse's output and a reference copy of each on
 * the device, so that a run repeats without transfers and is checked
 * there. In a build without CUDA every call fails with GJ2K_ERROR_DEVICE. */
#ifndef GJ2K_GPU_STRATEGIES_H
#define GJ2K_GPU_STRATEGIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwt.h"
#include "gj2k.h"
#include "gpu_dwt_model.h"

typedef struct gpu_dwt_lab gpu_dwt_lab;

/* Opens the first CUDA device with room for planes of `capacity` elements. */
gj2k_status gpu_dwt_lab_create(gpu_dwt_lab **out, size_t capacity, gj2k_error *error);
void gpu_dwt_lab_destroy(gpu_dwt_lab *lab);

/* The device's properties the time model needs, measured now. */
gj2k_status gpu_dwt_lab_device(gpu_dwt_lab *lab, gpu_dwt_device *device, gj2k_error *error);

/* The lab's buffers: the forward's input (samples), its output (bands),
 * the inverse's output (back). */
typedef enum gpu_dwt_buffer { GPU_DWT_SAMPLES = 0, GPU_DWT_BANDS, GPU_DWT_BACK } gpu_dwt_buffer;

/* Host to a buffer, a buffer to host (the tile's elements, 4 bytes each). */
gj2k_status gpu_dwt_lab_put(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, const void *data,
                            dwt_rect tile, gj2k_error *error);
gj2k_status gpu_dwt_lab_get(gpu_dwt_lab *lab, gpu_dwt_buffer buffer, void *data, dwt_rect tile,
                            gj2k_error *error);
/* Fills every buffer with 0xFF bytes (no result may pass unwritten). */
gj2k_status gpu_dwt_lab_poison(gpu_dwt_lab *lab, gj2k_error *error);

/* One transform by `strategy`: forward samples -> bands, or inverse
 * bands -> back; `precision` bits of the samples (8 or 16 let the 5/3
 * forward use 32-bit sums where none can overflow, as the codec does).
 * *ms: the kernels' time (CUDA events). */
gj2k_status gpu_dwt_lab_run(gpu_dwt_lab *lab, gpu_dwt_strategy strategy, bool reversible,
                            bool forward, dwt_rect tile, unsigned levels, unsigned precision,
                            double *ms, gj2k_error *error);

/* Copies the bands (forward) or back (inverse) aside as the reference;
 * restores the reference bands as the inverse's input; compares the
 * current output with the reference: elements whose bits differ and the
 * largest difference. */
gj2k_status gpu_dwt_lab_keep(gpu_dwt_lab *lab, bool forward, dwt_rect tile, gj2k_error *error);
gj2k_status gpu_dwt_lab_restore(gpu_dwt_lab *lab, dwt_rect tile, gj2k_error *error);
gj2k_status gpu_dwt_lab_compare(gpu_dwt_lab *lab, bool forward, bool reversible, dwt_rect tile,
                                uint64_t *differ, double *largest, gj2k_error *error);

#endif
