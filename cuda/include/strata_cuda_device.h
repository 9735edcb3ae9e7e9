/* Strata's CUDA headers: what device code calls. Each function maps to a
 * clang NVPTX builtin, which becomes one PTX instruction (special registers,
 * bar.sync, membar, atom, vote, shfl, min/max, sqrt, fma, ...), or to an
 * external function named as in NVIDIA's libdevice (`__nv_expf`, ...). There
 * is no libdevice here: clang leaves those as `call` instructions of an
 * `.extern .func`, and Strata's PTX executor computes them natively
 * (docs/cuda.md lists them). Semantics: NVIDIA's CUDA C++ Programming Guide
 * (built-in variables, synchronisation, atomic and warp functions) and CUDA
 * Math API documentation. */
#ifndef STRATA_CUDA_DEVICE_H
#define STRATA_CUDA_DEVICE_H

#include "strata_cuda_defs.h"
#include "vector_types.h"
#include <string.h>
#include <time.h> /* nvcc's headers include it too: sources call time() without including it */

#if defined(__cplusplus) && defined(__CUDA__)

#define STRATA_DEV static __device__ __forceinline__
#define STRATA_HD static __host__ __device__ __forceinline__

/* ---- built-in variables: threadIdx, blockIdx, blockDim, gridDim, warpSize */
#define STRATA_SREG(TYPE, REG)                                                                  \
  struct TYPE {                                                                                 \
    __declspec(property(get = get_x)) unsigned int x;                                           \
    __declspec(property(get = get_y)) unsigned int y;                                           \
    __declspec(property(get = get_z)) unsigned int z;                                           \
    static __device__ __forceinline__ unsigned int get_x() { return __nvvm_read_ptx_sreg_##REG##_x(); } \
    static __device__ __forceinline__ unsigned int get_y() { return __nvvm_read_ptx_sreg_##REG##_y(); } \
    static __device__ __forceinline__ unsigned int get_z() { return __nvvm_read_ptx_sreg_##REG##_z(); } \
    __device__ operator dim3() const { return dim3(x, y, z); }                                  \
    __device__ operator uint3() const { return uint3{x, y, z}; }                                \
  }
STRATA_SREG(__strata_tid_t, tid);
STRATA_SREG(__strata_ctaid_t, ctaid);
STRATA_SREG(__strata_ntid_t, ntid);
STRATA_SREG(__strata_nctaid_t, nctaid);
#undef STRATA_SREG
extern const __device__ __attribute__((weak)) __strata_tid_t threadIdx;
extern const __device__ __attribute__((weak)) __strata_ctaid_t blockIdx;
extern const __device__ __attribute__((weak)) __strata_ntid_t blockDim;
extern const __device__ __attribute__((weak)) __strata_nctaid_t gridDim;
/* a constant, not a macro: host code reads cudaDeviceProp::warpSize */
static constexpr int warpSize = 32;

/* ---- synchronisation */
STRATA_DEV void __threadfence(void) { __nvvm_membar_gl(); }
STRATA_DEV void __threadfence_block(void) { __nvvm_membar_cta(); }
STRATA_DEV void __threadfence_system(void) { __nvvm_membar_sys(); }
/* __syncthreads as the PTX instruction with a memory clobber: clang 14's builtin (llvm.nvvm.barrier0)
 * let its optimiser move a shared-memory load above the barrier (thread 0 stores, the others load after
 * the barrier: the others' load was hoisted into their branch before bar.sync), which a GPU happens to
 * tolerate only by timing. The asm statement orders every memory access around it. */
STRATA_DEV void strata_syncthreads(void) { asm volatile("bar.sync 0;" ::: "memory"); }
#define __syncthreads() strata_syncthreads()
STRATA_DEV int __syncthreads_count(int p) { return __nvvm_bar0_popc(p); }
STRATA_DEV int __syncthreads_and(int p) { return __nvvm_bar0_and(p); }
STRATA_DEV int __syncthreads_or(int p) { return __nvvm_bar0_or(p); }
STRATA_DEV void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }

/* ---- memcpy and memset in device code (host code keeps <string.h>'s) */
STRATA_DEV void* memcpy(void* d, const void* s, size_t n) { return __builtin_memcpy(d, s, n); }
STRATA_DEV void* memset(void* d, int v, size_t n) { return __builtin_memset(d, v, n); }

/* ---- stopping a kernel: trap ends the run with one line naming the thread (docs/ptx.md) */
STRATA_DEV void __trap(void) { asm volatile("trap;"); }

/* ---- integer intrinsics */
STRATA_DEV int __popc(unsigned x) { return __builtin_popcount(x); }
STRATA_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
STRATA_DEV int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
STRATA_DEV int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
STRATA_DEV int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1; }
STRATA_DEV int __ffsll(long long x) { return x == 0 ? 0 : __builtin_ctzll((unsigned long long)x) + 1; }
STRATA_DEV unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
STRATA_DEV unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
STRATA_DEV int __mul24(int a, int b) { return __nvvm_mul24_i(a, b); }
STRATA_DEV unsigned __umul24(unsigned a, unsigned b) { return __nvvm_mul24_ui(a, b); }
STRATA_DEV int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
STRATA_DEV unsigned __umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }
STRATA_DEV float __int_as_float(int x) { return __nvvm_bitcast_i2f(x); }
STRATA_DEV int __float_as_int(float x) { return __nvvm_bitcast_f2i(x); }
STRATA_DEV unsigned __float_as_uint(float x) { return (unsigned)__nvvm_bitcast_f2i(x); }
STRATA_DEV float __uint_as_float(unsigned x) { return __nvvm_bitcast_i2f((int)x); }
STRATA_DEV double __longlong_as_double(long long x) { return __nvvm_bitcast_ll2d(x); }
STRATA_DEV long long __double_as_longlong(double x) { return __nvvm_bitcast_d2ll(x); }
STRATA_DEV long long clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }
STRATA_DEV int clock(void) { return __nvvm_read_ptx_sreg_clock(); }

/* ---- atomics (generic address space, as CUDA's) */
STRATA_DEV int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
STRATA_DEV unsigned atomicAdd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v); }
STRATA_DEV unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long*)p, (long long)v);
}
STRATA_DEV float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
STRATA_DEV double atomicAdd(double* p, double v) { return __nvvm_atom_add_gen_d(p, v); }
STRATA_DEV int atomicSub(int* p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
STRATA_DEV unsigned atomicSub(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, -(int)v); }
STRATA_DEV int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
STRATA_DEV unsigned atomicExch(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_xchg_gen_i((int*)p, (int)v); }
STRATA_DEV unsigned long long atomicExch(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_xchg_gen_ll((long long*)p, (long long)v);
}
STRATA_DEV float atomicExch(float* p, float v) {
  return __int_as_float(__nvvm_atom_xchg_gen_i((int*)p, __float_as_int(v)));
}
STRATA_DEV int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
STRATA_DEV unsigned atomicMin(unsigned* p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
STRATA_DEV long long atomicMin(long long* p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
STRATA_DEV unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_min_gen_ull(p, v);
}
STRATA_DEV int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
STRATA_DEV unsigned atomicMax(unsigned* p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
STRATA_DEV long long atomicMax(long long* p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
STRATA_DEV unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_max_gen_ull(p, v);
}
STRATA_DEV unsigned atomicInc(unsigned* p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
STRATA_DEV unsigned atomicDec(unsigned* p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }
STRATA_DEV int atomicCAS(int* p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
STRATA_DEV unsigned atomicCAS(unsigned* p, unsigned c, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int*)p, (int)c, (int)v);
}
STRATA_DEV unsigned long long atomicCAS(unsigned long long* p, unsigned long long c, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long*)p, (long long)c, (long long)v);
}
STRATA_DEV int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
STRATA_DEV unsigned atomicAnd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_and_gen_i((int*)p, (int)v); }
STRATA_DEV unsigned long long atomicAnd(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_and_gen_ll((long long*)p, (long long)v);
}
STRATA_DEV int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }
STRATA_DEV unsigned atomicOr(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_or_gen_i((int*)p, (int)v); }
STRATA_DEV unsigned long long atomicOr(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_or_gen_ll((long long*)p, (long long)v);
}
STRATA_DEV int atomicXor(int* p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
STRATA_DEV unsigned atomicXor(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_xor_gen_i((int*)p, (int)v); }
STRATA_DEV unsigned long long atomicXor(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_xor_gen_ll((long long*)p, (long long)v);
}
/* float and double min/max (CUDA offers them on newer parts): a compare-and-swap loop */
STRATA_DEV float atomicMin(float* p, float v) {
  int old = *(volatile int*)p, seen;
  while (__int_as_float(old) > v && (seen = __nvvm_atom_cas_gen_i((int*)p, old, __float_as_int(v))) != old) old = seen;
  return __int_as_float(old);
}
STRATA_DEV float atomicMax(float* p, float v) {
  int old = *(volatile int*)p, seen;
  while (__int_as_float(old) < v && (seen = __nvvm_atom_cas_gen_i((int*)p, old, __float_as_int(v))) != old) old = seen;
  return __int_as_float(old);
}
STRATA_DEV double atomicMin(double* p, double v) {
  long long old = *(volatile long long*)p, seen;
  while (__longlong_as_double(old) > v &&
         (seen = __nvvm_atom_cas_gen_ll((long long*)p, old, __double_as_longlong(v))) != old)
    old = seen;
  return __longlong_as_double(old);
}
STRATA_DEV double atomicMax(double* p, double v) {
  long long old = *(volatile long long*)p, seen;
  while (__longlong_as_double(old) < v &&
         (seen = __nvvm_atom_cas_gen_ll((long long*)p, old, __double_as_longlong(v))) != old)
    old = seen;
  return __longlong_as_double(old);
}

/* scoped atomics: _block (the CTA's threads) and _system (the host and other GPUs as well). One
 * simulated GPU whose host never runs during a kernel makes every scope the device's. */
#define STRATA_SCOPED(OP)                                                                             \
  template <class T, class V>                                                                         \
  STRATA_DEV T OP##_block(T* p, V v) { return OP(p, (T)v); }                                          \
  template <class T, class V>                                                                         \
  STRATA_DEV T OP##_system(T* p, V v) { return OP(p, (T)v); }
STRATA_SCOPED(atomicAdd) STRATA_SCOPED(atomicSub) STRATA_SCOPED(atomicExch) STRATA_SCOPED(atomicMin)
STRATA_SCOPED(atomicMax) STRATA_SCOPED(atomicInc) STRATA_SCOPED(atomicDec) STRATA_SCOPED(atomicAnd)
STRATA_SCOPED(atomicOr) STRATA_SCOPED(atomicXor)
#undef STRATA_SCOPED
template <class T, class C, class V>
STRATA_DEV T atomicCAS_block(T* p, C c, V v) { return atomicCAS(p, (T)c, (T)v); }
template <class T, class C, class V>
STRATA_DEV T atomicCAS_system(T* p, C c, V v) { return atomicCAS(p, (T)c, (T)v); }

/* ---- warp vote and shuffle (the *_sync forms; the mask names the lanes taking part) */
STRATA_DEV unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p); }
STRATA_DEV int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p); }
STRATA_DEV int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p); }
STRATA_DEV int __uni_sync(unsigned mask, int p) { return __nvvm_vote_uni_sync(mask, p); }
STRATA_DEV unsigned __activemask(void) { return __nvvm_vote_ballot_sync(0xffffffffu, 1); }
/* shfl's c operand: (32 - width) << 8 is the segment mask, the low 5 bits the clamp */
#define STRATA_SHFL(T, SUF, CAST_IN, CAST_OUT)                                                              \
  STRATA_DEV T __shfl_sync(unsigned m, T v, int src, int w = 32) {                                         \
    return CAST_OUT(__nvvm_shfl_sync_idx_##SUF(m, CAST_IN(v), src, ((32 - w) << 8) | 0x1f));                \
  }                                                                                                         \
  STRATA_DEV T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {                                   \
    return CAST_OUT(__nvvm_shfl_sync_up_##SUF(m, CAST_IN(v), d, (32 - w) << 8));                            \
  }                                                                                                         \
  STRATA_DEV T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {                                 \
    return CAST_OUT(__nvvm_shfl_sync_down_##SUF(m, CAST_IN(v), d, ((32 - w) << 8) | 0x1f));                 \
  }                                                                                                         \
  STRATA_DEV T __shfl_xor_sync(unsigned m, T v, int lm, int w = 32) {                                      \
    return CAST_OUT(__nvvm_shfl_sync_bfly_##SUF(m, CAST_IN(v), lm, ((32 - w) << 8) | 0x1f));                \
  }
#define STRATA_ID(x) (x)
#define STRATA_TO_I(x) ((int)(x))
#define STRATA_TO_U(x) ((unsigned)(x))
STRATA_SHFL(int, i32, STRATA_ID, STRATA_ID)
STRATA_SHFL(unsigned, i32, STRATA_TO_I, STRATA_TO_U)
STRATA_SHFL(float, f32, STRATA_ID, STRATA_ID)
#undef STRATA_SHFL
#undef STRATA_ID
#undef STRATA_TO_I
#undef STRATA_TO_U
STRATA_DEV long long __shfl_sync(unsigned m, long long v, int src, int w = 32) {
  int lo = __shfl_sync(m, (int)(v & 0xffffffff), src, w), hi = __shfl_sync(m, (int)(v >> 32), src, w);
  return ((long long)hi << 32) | (unsigned)lo;
}
STRATA_DEV double __shfl_sync(unsigned m, double v, int src, int w = 32) {
  return __longlong_as_double(__shfl_sync(m, __double_as_longlong(v), src, w));
}
STRATA_DEV double __shfl_up_sync(unsigned m, double v, unsigned d, int w = 32) {
  long long b = __double_as_longlong(v);
  int lo = __shfl_up_sync(m, (int)(b & 0xffffffff), d, w), hi = __shfl_up_sync(m, (int)(b >> 32), d, w);
  return __longlong_as_double(((long long)hi << 32) | (unsigned)lo);
}
STRATA_DEV double __shfl_down_sync(unsigned m, double v, unsigned d, int w = 32) {
  long long b = __double_as_longlong(v);
  int lo = __shfl_down_sync(m, (int)(b & 0xffffffff), d, w), hi = __shfl_down_sync(m, (int)(b >> 32), d, w);
  return __longlong_as_double(((long long)hi << 32) | (unsigned)lo);
}
STRATA_DEV double __shfl_xor_sync(unsigned m, double v, int lm, int w = 32) {
  long long b = __double_as_longlong(v);
  int lo = __shfl_xor_sync(m, (int)(b & 0xffffffff), lm, w), hi = __shfl_xor_sync(m, (int)(b >> 32), lm, w);
  return __longlong_as_double(((long long)hi << 32) | (unsigned)lo);
}

/* ---- min/max for host and device code, as CUDA's math headers give them to both; abs for device
 * code (host code keeps <stdlib.h>'s) */
STRATA_HD int min(int a, int b) { return a < b ? a : b; }
STRATA_HD unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
STRATA_HD long long min(long long a, long long b) { return a < b ? a : b; }
STRATA_HD unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
STRATA_HD float min(float a, float b) { return __builtin_fminf(a, b); }
STRATA_HD double min(double a, double b) { return __builtin_fmin(a, b); }
STRATA_HD int max(int a, int b) { return a > b ? a : b; }
STRATA_HD unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
STRATA_HD long long max(long long a, long long b) { return a > b ? a : b; }
STRATA_HD unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
STRATA_HD float max(float a, float b) { return __builtin_fmaxf(a, b); }
STRATA_HD double max(double a, double b) { return __builtin_fmax(a, b); }
/* mixed argument types, as CUDA's headers resolve them: the wider or unsigned type */
STRATA_HD double min(float a, double b) { return __builtin_fmin(a, b); }
STRATA_HD double min(double a, float b) { return __builtin_fmin(a, b); }
STRATA_HD double max(float a, double b) { return __builtin_fmax(a, b); }
STRATA_HD double max(double a, float b) { return __builtin_fmax(a, b); }
STRATA_HD unsigned min(int a, unsigned b) { return min((unsigned)a, b); }
STRATA_HD unsigned min(unsigned a, int b) { return min(a, (unsigned)b); }
STRATA_HD unsigned max(int a, unsigned b) { return max((unsigned)a, b); }
STRATA_HD unsigned max(unsigned a, int b) { return max(a, (unsigned)b); }
STRATA_HD unsigned long long min(long long a, unsigned long long b) { return min((unsigned long long)a, b); }
STRATA_HD unsigned long long min(unsigned long long a, long long b) { return min(a, (unsigned long long)b); }
STRATA_HD unsigned long long max(long long a, unsigned long long b) { return max((unsigned long long)a, b); }
STRATA_HD unsigned long long max(unsigned long long a, long long b) { return max(a, (unsigned long long)b); }
STRATA_HD unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
STRATA_HD unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
STRATA_DEV int abs(int a) { return a < 0 ? -a : a; }
STRATA_DEV long labs(long a) { return a < 0 ? -a : a; }
STRATA_DEV long long llabs(long long a) { return a < 0 ? -a : a; }

#undef STRATA_DEV
#undef STRATA_HD
#endif /* __cplusplus && __CUDA__ */

#endif
