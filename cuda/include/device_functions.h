/* Strata's CUDA headers: synchronisation, atomics, warp and integer functions. */
#ifndef STRATA_CUDA_DEVICE_FUNCTIONS_H
#define STRATA_CUDA_DEVICE_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
