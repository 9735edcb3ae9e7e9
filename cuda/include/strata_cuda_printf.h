/* Strata's CUDA headers: printf in device code. clang lowers a device-side printf(fmt, ...) to a
 * call of vprintf(fmt, argument buffer), which Strata's PTX executor formats per thread (docs/cuda.md
 * "Kernel printf"). The host's printf is stdio's; these declarations add the device overloads. */
#ifndef STRATA_CUDA_PRINTF_H
#define STRATA_CUDA_PRINTF_H

#include "strata_cuda_defs.h"

#if defined(__cplusplus) && defined(__CUDA__)
#include <stdio.h>
extern "C" {
__device__ int vprintf(const char* format, const char* args);
__device__ int printf(const char* format, ...);
}
#endif

#endif
