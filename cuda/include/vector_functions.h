/* Strata's CUDA headers: make_<type>N constructors of the vector types. */
#ifndef STRATA_CUDA_VECTOR_FUNCTIONS_H
#define STRATA_CUDA_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#define STRATA_MK(T, N)                                                                                   \
  static __host__ __device__ __forceinline__ N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }        \
  static __host__ __device__ __forceinline__ N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; } \
  static __host__ __device__ __forceinline__ N##3 make_##N##3(T x, T y, T z) {                           \
    N##3 v; v.x = x; v.y = y; v.z = z; return v;                                                          \
  }                                                                                                       \
  static __host__ __device__ __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) {                      \
    N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v;                                                 \
  }
STRATA_MK(signed char, char)
STRATA_MK(unsigned char, uchar)
STRATA_MK(short, short)
STRATA_MK(unsigned short, ushort)
STRATA_MK(int, int)
STRATA_MK(unsigned int, uint)
STRATA_MK(long, long)
STRATA_MK(unsigned long, ulong)
STRATA_MK(long long, longlong)
STRATA_MK(unsigned long long, ulonglong)
STRATA_MK(float, float)
STRATA_MK(double, double)
#undef STRATA_MK

#endif
