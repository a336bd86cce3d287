/* gpu_dwt_calibrated.c - the time model's constants (gpu_dwt_model.h),
 * fitted on one GPU by `gj2k bench dwt --strategy all --calibrate` and
 * written here as it prints them; predictions for other GPUs take only
 * their measured properties. Empty until a calibration run. */
#include "gpu_dwt_model.h"

const char gpu_dwt_calibrated_on[] = "not calibrated";
const gpu_dwt_calibration gpu_dwt_calibrated[] = {
    {GPU_DWT_REGISTER, true, true, 0, 0, 0},
};
const size_t gpu_dwt_calibrated_count = 0;
