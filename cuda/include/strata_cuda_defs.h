/* Strata's CUDA headers: the function and variable qualifiers, as clang's
 * CUDA mode spells them (attributes global, device, host, shared, constant,
 * managed, launch_bounds). `strata cuda build` includes cuda_runtime.h in
 * every CUDA source, as nvcc does, so sources that use __global__ without an
 * include build unchanged. */
#ifndef STRATA_CUDA_DEFS_H
#define STRATA_CUDA_DEFS_H

#ifdef __CUDA__
/* nvcc defines it when it compiles a CUDA source; sources test it to mark functions __host__ __device__ */
#ifndef __CUDACC__
#define __CUDACC__
#endif
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#endif
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
/* A kernel parameter the kernel reads in place (CUDA 11.7): kernel parameters are read-only here
 * anyway, so the qualifier changes nothing (clang 14 does not know it). */
#define __grid_constant__
#define CUDART_CB

/* The simulated toolkit version the headers describe (CUDA 11.0 API level). */
#define CUDART_VERSION 11000
#define CUDA_VERSION 11000
#define __CUDACC_VER_MAJOR__ 11
#define __CUDACC_VER_MINOR__ 0
#define __STRATA_CUDA__ 1

#endif
