/* gpu_dwt_model.h - the GPU DWT strategies (gpu_strategies.h) as numbers:
 * how each launches its kernels, and a model of its time (issue 15, after
 * Puchala, Stokfiszewski and Wieloch's hybrid analytic-simulation model).
 *
 * The launch shapes are the one source of truth: the strategy lab launches
 * what gpu_dwt_launch_shape says, and the model counts from it. For each
 * kernel of each level the model simulates the waves of thread blocks on
 * the device's SMs (occupancy as the CUDA runtime reports it): each wave
 * moves its bytes at the bandwidth its resident threads can draw, and works
 * on as many SMs as it has blocks. A kernel then takes the longer of
 *   its memory traffic at the device's measured copy bandwidth, and
 *   its on-chip time: L2 traffic and work (loads and lifting steps) on the
 *   SMs at their clock, each times a strategy's fitted factor,
 * and the transform adds a launch cost a kernel (the device's measured
 * latency + a fitted overhead) and its last LL's 2-D copy (measured). What
 * the device sets (bandwidth, SMs, clock, latency, occupancy) is measured
 * on it; the three strategy constants are fitted on one GPU
 * (gpu_dwt_model_fit) and kept in gpu_dwt_calibrated, so that a
 * prediction for another device needs only its measured properties. Host
 * C only: tests/dwt/test_gpu_dwt_model.c runs it without a GPU. */
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
    double l2_bytes;    /* the L2 cache */
    /* 2-D copies into a wider buffer (the last LL into place): a fixed
     * cost, then bytes read + written a second, of regions the L2 cache
     * holds and of larger ones */
    double copy2d_us, copy2d_cached_gbps, copy2d_gbps;
    int max_threads_per_sm;
    /* resident blocks an SM holds of each kernel: [strategy][reversible][forward][kernel] */
    uint8_t blocks_per_sm[GPU_DWT_STRATEGIES][2][2][GPU_DWT_MAX_KERNELS];
} gpu_dwt_device;

/* A transform's model terms, kernel by kernel: seconds of memory traffic
 * at the device's copy bandwidth (data the L2 cache cannot hold), seconds
 * of L2 traffic at 64 bytes a clock an SM (data it holds), seconds of work
 * at one unit a clock an SM; the launches; and the seconds known from the
 * device alone (the last LL's 2-D copy). A kernel takes the longer of its
 * memory traffic and its on-chip time (L2 traffic and work, each times a
 * strategy's factor): a roofline, whose roof the device sets. */
#define GPU_DWT_MAX_LAUNCHES (GPU_DWT_MAX_KERNELS * 32)
typedef struct gpu_dwt_terms {
    unsigned kernels;
    double memory_s[GPU_DWT_MAX_LAUNCHES], cached_s[GPU_DWT_MAX_LAUNCHES],
        work_s[GPU_DWT_MAX_LAUNCHES];
    double launches, fixed_s;
} gpu_dwt_terms;

void gpu_dwt_model_terms(const gpu_dwt_device *device, gpu_dwt_strategy strategy, bool reversible,
                         bool forward, dwt_rect tile, unsigned levels, gpu_dwt_terms *terms);

/* A strategy's fitted constants, for one wavelet and direction. */
typedef struct gpu_dwt_calibration {
    gpu_dwt_strategy strategy;
    bool reversible, forward;
    double overhead_us;     /* a launch, beyond the device's latency (may be negative) */
    double cached_factor;   /* L2 traffic's cost against 64 bytes a clock an SM */
    double work_factor;     /* work's cost against one unit a clock an SM */
} gpu_dwt_calibration;

/* The model's time in milliseconds, from the terms and a calibration. */
double gpu_dwt_model_time(const gpu_dwt_device *device, const gpu_dwt_terms *terms,
                          const gpu_dwt_calibration *calibration);

/* The calibration for the strategy, wavelet and direction in `table`, or NULL. */
const gpu_dwt_calibration *gpu_dwt_calibration_find(const gpu_dwt_calibration *table, size_t count,
                                                    gpu_dwt_strategy strategy, bool reversible,
                                                    bool forward);

/* The constants that fit measured_ms[i] best (n >= 3 transforms on
 * `device`, relative errors weighed alike), into *out, its strategy fields
 * untouched; false when there is nothing to fit. */
bool gpu_dwt_model_fit(const gpu_dwt_device *device, const gpu_dwt_terms *const *terms,
                       const double *measured_ms, size_t n, gpu_dwt_calibration *out);

/* The constants fitted on the calibration GPU (gpu_dwt_calibrated.c says
 * which, and the command that made them). */
extern const gpu_dwt_calibration gpu_dwt_calibrated[];
extern const size_t gpu_dwt_calibrated_count;
extern const char gpu_dwt_calibrated_on[];

#endif
