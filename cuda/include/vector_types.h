/* Strata's CUDA headers: vector types and dim3 (NVIDIA's CUDA Runtime API
 * documentation, "Data types used by CUDA Runtime"). Written for Strata; the
 * members and alignments follow the documented layout so device code and host
 * code agree on struct sizes. */
#ifndef STRATA_CUDA_VECTOR_TYPES_H
#define STRATA_CUDA_VECTOR_TYPES_H

#include "strata_cuda_defs.h"

#define STRATA_VEC1(T, N, A) struct __attribute__((aligned(A))) N##1 { T x; }; typedef struct N##1 N##1
#define STRATA_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; }; typedef struct N##2 N##2
#define STRATA_VEC3(T, N) struct N##3 { T x, y, z; }; typedef struct N##3 N##3
#define STRATA_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; }; typedef struct N##4 N##4
#define STRATA_VECS(T, N, A1, A2, A4) STRATA_VEC1(T, N, A1); STRATA_VEC2(T, N, A2); STRATA_VEC3(T, N); STRATA_VEC4(T, N, A4)

STRATA_VECS(signed char, char, 1, 2, 4);
STRATA_VECS(unsigned char, uchar, 1, 2, 4);
STRATA_VECS(short, short, 2, 4, 8);
STRATA_VECS(unsigned short, ushort, 2, 4, 8);
STRATA_VECS(int, int, 4, 8, 16);
STRATA_VECS(unsigned int, uint, 4, 8, 16);
STRATA_VECS(long, long, 8, 16, 16);
STRATA_VECS(unsigned long, ulong, 8, 16, 16);
STRATA_VECS(long long, longlong, 8, 16, 16);
STRATA_VECS(unsigned long long, ulonglong, 8, 16, 16);
STRATA_VECS(float, float, 4, 8, 16);
STRATA_VECS(double, double, 8, 16, 16);

#undef STRATA_VEC1
#undef STRATA_VEC2
#undef STRATA_VEC3
#undef STRATA_VEC4
#undef STRATA_VECS

/* A grid or block shape; unspecified dimensions are 1. */
struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif
