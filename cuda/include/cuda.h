/* Strata's CUDA headers: the driver API's basic types. Programs of the common
 * benchmark suites include <cuda.h> for the runtime's declarations; Strata
 * serves the runtime API only (cuda_runtime.h), and the driver API's types
 * here let such sources build. */
#ifndef STRATA_CUDA_H
#define STRATA_CUDA_H
#include "cuda_runtime.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
#define CUDA_SUCCESS 0
#endif
