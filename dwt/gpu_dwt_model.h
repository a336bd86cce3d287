/* gpu_dwt_model.h - the GPU DWT strategies (gpu_strategies.h) as numbers:
 * how each launches its kernels, and a model of its time (issue 15, after
 * Puchala, Stokfiszewski and Wieloch's hybrid analytic-simulation model).
 *
 * The launch shapes are the one source of truth: the strategy lab launches
 * what gpu_dwt_launch_shape says, and the model counts from it. For each
 * kernel of each level the model simulates the waves of thread blocks on
 * the device's SMs (occupancy as the CUDA runtime reports it) and adds up:
 *   launches  x (the device's measured launch latency + a strategy's overhead)
 * + bytes moved / (the device's measured copy bandwidth x efficiency),
 *   with the bandwidth scaled down while too few threads are resident to
 *   fill the memory system, and by the tail of the last wave
 * + work (loads and lifting steps) / (SMs x clock x a work rate).
 * The three strategy constants are fitted by least squares on one GPU
 * (gpu_dwt_model_fit) and kept in gpu_dwt_calibrated; a prediction for any
 * other device needs only that device's measured properties. Host C only:
 * tests/dwt/test_gpu_dwt_model.c runs it without a GPU. */
#ifndef GJ2K_GPU_DWT_MODEL_H
#define GJ2K_GPU_DWT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwt.h"

typedef enum gpu_dwt_strategy {
    GPU_DWT_REGISTER = 0, /* one kernel a level, registers and warp shuffles (the codec's) */
    GPU_DWT_BLOCK,        /* one kernel a level, a tile in shared memory, a barrier a step */
    GPU_DWT_SEPARABLE,    /* a vertical and a horizontal kernel a level, tiles in shared memory */
    GPU_DWT_CONVOLUTION,  /* a vertical and a horizontal kernel a level, direct filtering */
    GPU_DWT_POLYCONVOLUTION, /* one kernel a level, a 2x2 quad a thread from its 2-D window */
    GPU_DWT_STRATEGIES
} gpu_dwt_strategy;

const char *gpu_dwt_strategy_name(gpu_dwt_strategy strategy);
/* By name, as `gj2k bench dwt --strategy` takes it; false when unknown. */
bool gpu_dwt_strategy_parse(const char *name, gpu_dwt_strategy *strategy);
/* Whether the strategy gives the CPU reference's bits (all do but the
 * 9/7 convolution, whose filter sums round otherwise). */
bool gpu_dwt_strategy_exact(gpu_dwt_strategy strategy, bool reversible);

#define GPU_DWT_MAX_KERNELS 2 /* kernels a level */

/* One kernel of one level, as launched. */
typedef struct gpu_dwt_kernel {
    uint32_t grid_x, grid_y, threads;
    uint32_t rows;          /* the register kernels' output rows a block gives (Y) */
    double read_elements;   /* a block reads from memory (its tile and halo) */
    double loads_per_position, steps_per_position; /* the work of a thread, per output */
} gpu_dwt_kernel;

typedef struct gpu_dwt_launch {
    unsigned kernels;
    gpu_dwt_kernel kernel[GPU_DWT_MAX_KERNELS]; /* in launch order */
} gpu_dwt_launch;

/* The kernels of one level of `area` (not empty) on a device of
 * `sm_count` SMs. */
gpu_dwt_launch gpu_dwt_launch_shape(gpu_dwt_strategy strategy, bool reversible, bool forward,
                                    dwt_rect area, int sm_count);

/* What the model needs of a device: measured by the strategy lab
 * (gpu_dwt_lab_device) on it. */
typedef struct gpu_dwt_device {
    int sm_count;
    double clock_ghz;
    double copy_gbps;   /* device-to-device copy: bytes read + written a second */
    double launch_us;   /* back-to-back launches of an empty kernel, each */
    int max_threads_per_sm;
    /* resident blocks an SM holds of each kernel: [strategy][reversible][forward][kernel] */
    uint8_t blocks_per_sm[GPU_DWT_STRATEGIES][2][2][GPU_DWT_MAX_KERNELS];
} gpu_dwt_device;

/* A transform's model terms, the unknowns' factors: launches (each costing
 * launch_us + the overhead), seconds at the full copy bandwidth, seconds of
 * work at one unit a clock on every SM. */
typedef struct gpu_dwt_terms {
    double launches, memory_s, work_s;
} gpu_dwt_terms;

gpu_dwt_terms gpu_dwt_model_terms(const gpu_dwt_device *device, gpu_dwt_strategy strategy,
                                  bool reversible, bool forward, dwt_rect tile, unsigned levels);

/* A strategy's fitted constants, for one wavelet and direction. */
typedef struct gpu_dwt_calibration {
    gpu_dwt_strategy strategy;
    bool reversible, forward;
    double overhead_us;     /* a launch, beyond the device's latency */
    double efficiency;      /* of the copy bandwidth */
    double work_rate;       /* work units a clock an SM (0: work not limiting) */
} gpu_dwt_calibration;

/* The model's time in milliseconds, from the terms and a calibration. */
double gpu_dwt_model_time(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                          const gpu_dwt_calibration *calibration);

/* The calibration for the strategy, wavelet and direction in `table`, or NULL. */
const gpu_dwt_calibration *gpu_dwt_calibration_find(const gpu_dwt_calibration *table, size_t count,
                                                    gpu_dwt_strategy strategy, bool reversible,
                                                    bool forward);

/* Least squares of measured_ms[i] against terms[i] (n >= 3) on `device`:
 * the constants (non-negative) in *out, its strategy fields untouched;
 * false when the terms say nothing (singular). */
bool gpu_dwt_model_fit(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                       const double *measured_ms, size_t n, gpu_dwt_calibration *out);

/* The constants fitted on the calibration GPU (gpu_dwt_calibrated.c says
 * which, and the command that made them). */
extern const gpu_dwt_calibration gpu_dwt_calibrated[];
extern const size_t gpu_dwt_calibrated_count;
extern const char gpu_dwt_calibrated_on[];

#endif
