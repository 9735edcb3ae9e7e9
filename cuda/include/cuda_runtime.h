/* Strata's CUDA headers: the one header a CUDA source needs (`strata cuda
 * build` includes it in every CUDA source, as nvcc does). Host API:
 * cuda_runtime_api.h; device functions: strata_cuda_device.h and
 * strata_cuda_math.h. docs/cuda.md says what is supported. */
#ifndef STRATA_CUDA_RUNTIME_H
#define STRATA_CUDA_RUNTIME_H
/* NVIDIA's include-guard name: helper headers (the CUDA samples' helper_cuda.h) test it to see that
 * the runtime API is declared. */
#define __CUDA_RUNTIME_H__

#include "strata_cuda_defs.h"
#include "vector_types.h"
#include "vector_functions.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "strata_cuda_device.h"
#include "strata_cuda_math.h"
#include "strata_cuda_texture.h"
#include "strata_cuda_printf.h"

#endif
