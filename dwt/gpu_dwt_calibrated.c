/* gpu_dwt_calibrated.c - the time model's constants (gpu_dwt_model.h):
 * each strategy's launch overhead (us), L2-traffic factor and work factor,
 * for each wavelet (5/3: true) and direction (forward: true), fitted on an
 * NVIDIA H200 (132 SMs, 4155 GB/s copy; 2026-11-27) from the 600 rows of
 * `gj2k bench dwt --strategy all` (1024^2 .. 16384^2, 1-6 levels) by
 * gpu_dwt_model_fit, as `--calibrate` prints them. A prediction for another
 * GPU takes only its measured properties (gpu_dwt_lab_device). */
#include "gpu_dwt_model.h"

const char gpu_dwt_calibrated_on[] = "calibrated on an H200, 2026-11-27";
const gpu_dwt_calibration gpu_dwt_calibrated[] = {
    {GPU_DWT_REGISTER, true, true, -2.37992, 0, 0.215152},
    {GPU_DWT_REGISTER, true, false, -0.196693, 0.332468, 0.159281},
    {GPU_DWT_REGISTER, false, true, -2.06165, 0, 0.0809631},
    {GPU_DWT_REGISTER, false, false, -2.46208, 2.54965, 0.0344902},
    {GPU_DWT_BLOCK, true, true, -1.82751, 2.18907, 0.545365},
    {GPU_DWT_BLOCK, true, false, 1.39792, 0.441938, 0.574299},
    {GPU_DWT_BLOCK, false, true, -0.248055, 1.62433, 0.299486},
    {GPU_DWT_BLOCK, false, false, 3.04798, 0.292318, 0.315744},
    {GPU_DWT_SEPARABLE, true, true, -0.114333, 0.263792, 0.647644},
    {GPU_DWT_SEPARABLE, true, false, 1.57236, 0, 0.65888},
    {GPU_DWT_SEPARABLE, false, true, 0.371069, 0.589765, 0.380311},
    {GPU_DWT_SEPARABLE, false, false, 2.32735, 0, 0.381442},
    {GPU_DWT_CONVOLUTION, true, true, -2.31122, 0, 0.235687},
    {GPU_DWT_CONVOLUTION, true, false, -1.10398, 0, 0.509562},
    {GPU_DWT_CONVOLUTION, false, true, -1.21942, 0, 0.5882},
    {GPU_DWT_CONVOLUTION, false, false, -0.0558816, 0.458197, 0.6398},
    {GPU_DWT_POLYCONVOLUTION, true, true, -1.83638, 0, 0.0820268},
    {GPU_DWT_POLYCONVOLUTION, true, false, 0.994175, 0.853988, 0.221},
    {GPU_DWT_POLYCONVOLUTION, false, true, 0.303074, 0, 0.064892},
    {GPU_DWT_POLYCONVOLUTION, false, false, 6.23364, 0, 0.259664},
};
const size_t gpu_dwt_calibrated_count = sizeof gpu_dwt_calibrated / sizeof gpu_dwt_calibrated[0];
