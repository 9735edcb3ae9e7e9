/* Strata's CUDA headers: the profiler control calls (CUDA Runtime API, "Profiler Control"). A
 * simulated run records its statistics for the whole program; these calls mark nothing. */
#ifndef STRATA_CUDA_PROFILER_API_H
#define STRATA_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
#ifdef __cplusplus
}
#endif
#endif
