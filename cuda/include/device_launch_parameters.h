/* Strata's CUDA headers: threadIdx, blockIdx, blockDim, gridDim, warpSize. */
#ifndef STRATA_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#define STRATA_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#include "cuda_runtime.h"
#endif
