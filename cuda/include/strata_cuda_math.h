/* Strata's CUDA headers: math functions in device code (NVIDIA's CUDA Math
 * API documentation gives their meaning and accuracy). A function with a PTX
 * instruction of its own maps to the clang builtin for it (sqrt.rn, fma.rn,
 * min/max, abs, cvt.rmi/rpi/rzi/rni, the .approx intrinsics); the others call
 * an `.extern .func` named as in libdevice (`__nv_expf`), which Strata's PTX
 * executor computes natively with the host's libm (docs/cuda.md). Host code
 * keeps <math.h>; clang overloads on __host__/__device__. */
#ifndef STRATA_CUDA_MATH_H
#define STRATA_CUDA_MATH_H

#include "strata_cuda_defs.h"

#if defined(__cplusplus) && defined(__CUDA__)
#include <math.h>
#include <stdlib.h>
#include <cmath>
#include <cstdlib>

#define STRATA_DEV static __device__ __forceinline__

/* libdevice-named functions the executor implements (one or two arguments) */
#define STRATA_NV1(R, NAME, A) extern "C" __device__ R __nv_##NAME(A);
#define STRATA_NV2(R, NAME, A, B) extern "C" __device__ R __nv_##NAME(A, B);
#define STRATA_F1(NAME)                   \
  STRATA_NV1(float, NAME##f, float)       \
  STRATA_NV1(double, NAME, double)        \
  STRATA_DEV float NAME##f(float x) { return __nv_##NAME##f(x); } \
  STRATA_DEV float NAME(float x) { return __nv_##NAME##f(x); }    \
  STRATA_DEV double NAME(double x) { return __nv_##NAME(x); }
#define STRATA_F2(NAME)                          \
  STRATA_NV2(float, NAME##f, float, float)       \
  STRATA_NV2(double, NAME, double, double)       \
  STRATA_DEV float NAME##f(float x, float y) { return __nv_##NAME##f(x, y); } \
  STRATA_DEV float NAME(float x, float y) { return __nv_##NAME##f(x, y); }    \
  STRATA_DEV double NAME(double x, double y) { return __nv_##NAME(x, y); }

STRATA_F1(exp) STRATA_F1(exp2) STRATA_F1(exp10) STRATA_F1(expm1)
STRATA_F1(log) STRATA_F1(log2) STRATA_F1(log10) STRATA_F1(log1p)
STRATA_F1(sin) STRATA_F1(cos) STRATA_F1(tan) STRATA_F1(asin) STRATA_F1(acos) STRATA_F1(atan)
STRATA_F1(sinh) STRATA_F1(cosh) STRATA_F1(tanh) STRATA_F1(asinh) STRATA_F1(acosh) STRATA_F1(atanh)
STRATA_F1(cbrt) STRATA_F1(erf) STRATA_F1(erfc) STRATA_F1(lgamma) STRATA_F1(tgamma) STRATA_F1(round)
STRATA_F2(pow) STRATA_F2(atan2) STRATA_F2(fmod) STRATA_F2(hypot) STRATA_F2(remainder) STRATA_F2(copysign)
STRATA_F2(fdim) STRATA_F2(nextafter)
STRATA_NV2(float, ldexpf, float, int)
STRATA_NV2(double, ldexp, double, int)

/* one PTX instruction each */
#define STRATA_B1(NAME, BF, BD)                                     \
  STRATA_DEV float NAME##f(float x) { return BF(x); }               \
  STRATA_DEV float NAME(float x) { return BF(x); }                  \
  STRATA_DEV double NAME(double x) { return BD(x); }
STRATA_B1(sqrt, __nvvm_sqrt_rn_f, __nvvm_sqrt_rn_d)
STRATA_B1(fabs, __nvvm_fabs_f, __nvvm_fabs_d)
STRATA_B1(floor, __nvvm_floor_f, __nvvm_floor_d)
STRATA_B1(ceil, __nvvm_ceil_f, __nvvm_ceil_d)
STRATA_B1(trunc, __nvvm_trunc_f, __nvvm_trunc_d)
STRATA_B1(rint, __nvvm_round_f, __nvvm_round_d)
STRATA_B1(nearbyint, __nvvm_round_f, __nvvm_round_d)
STRATA_DEV float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
STRATA_DEV double rsqrt(double x) { return __nvvm_rsqrt_approx_d(x); }
STRATA_DEV float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
STRATA_DEV float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
STRATA_DEV double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
STRATA_DEV double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
STRATA_DEV float fmin(float a, float b) { return __nvvm_fmin_f(a, b); }
STRATA_DEV float fmax(float a, float b) { return __nvvm_fmax_f(a, b); }
STRATA_DEV float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
STRATA_DEV double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
STRATA_DEV float fma(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
STRATA_DEV float ldexpf(float x, int e) { return __nv_ldexpf(x, e); }
STRATA_DEV double ldexp(double x, int e) { return __nv_ldexp(x, e); }
STRATA_DEV long lroundf(float x) { return (long)__nv_roundf(x); }
STRATA_DEV long lround(double x) { return (long)__nv_round(x); }
STRATA_DEV void sincosf(float x, float* s, float* c) {
  *s = __nv_sinf(x);
  *c = __nv_cosf(x);
}
STRATA_DEV void sincos(double x, double* s, double* c) {
  *s = __nv_sin(x);
  *c = __nv_cos(x);
}
STRATA_DEV int __isnanf(float x) { return x != x; }
STRATA_DEV int __isinff(float x) { return __nvvm_fabs_f(x) == __builtin_huge_valf(); }
STRATA_DEV int __finitef(float x) { return !__isnanf(x) && !__isinff(x); }
STRATA_DEV bool isnan(float x) { return x != x; }
STRATA_DEV bool isnan(double x) { return x != x; }
STRATA_DEV bool isinf(float x) { return __nvvm_fabs_f(x) == __builtin_huge_valf(); }
STRATA_DEV bool isinf(double x) { return __nvvm_fabs_d(x) == __builtin_huge_val(); }
STRATA_DEV bool isfinite(float x) { return !isnan(x) && !isinf(x); }
STRATA_DEV bool isfinite(double x) { return !isnan(x) && !isinf(x); }
STRATA_DEV bool signbit(float x) { return __nvvm_bitcast_f2i(x) < 0; }
STRATA_DEV bool signbit(double x) { return __nvvm_bitcast_d2ll(x) < 0; }

/* frexp, modf, nan, scalbn, ilogb by their definitions (C11 7.12.6), on the bits of the value */
STRATA_DEV float frexpf(float x, int* e) {
  if (x == 0.0f || x != x || __nvvm_fabs_f(x) == __builtin_huge_valf()) {
    *e = 0;
    return x;
  }
  int adj = 0;
  if (__nvvm_fabs_f(x) < 0x1p-126f) x *= 0x1p25f, adj = 25; /* subnormal: normalise first */
  int b = __nvvm_bitcast_f2i(x);
  *e = ((b >> 23) & 0xff) - 126 - adj;
  return __nvvm_bitcast_i2f((b & ~(0xff << 23)) | (126 << 23));
}
STRATA_DEV double frexp(double x, int* e) {
  if (x == 0.0 || x != x || __nvvm_fabs_d(x) == __builtin_huge_val()) {
    *e = 0;
    return x;
  }
  int adj = 0;
  if (__nvvm_fabs_d(x) < 0x1p-1022) x *= 0x1p54, adj = 54;
  long long b = __nvvm_bitcast_d2ll(x);
  *e = (int)((b >> 52) & 0x7ff) - 1022 - adj;
  return __nvvm_bitcast_ll2d((b & ~(0x7ffll << 52)) | (1022ll << 52));
}
STRATA_DEV float frexp(float x, int* e) { return frexpf(x, e); }
STRATA_DEV float modff(float x, float* ip) {
  *ip = __nvvm_trunc_f(x);
  return __nvvm_fabs_f(x) == __builtin_huge_valf() ? __builtin_copysignf(0.0f, x) : x - *ip;
}
STRATA_DEV double modf(double x, double* ip) {
  *ip = __nvvm_trunc_d(x);
  return __nvvm_fabs_d(x) == __builtin_huge_val() ? __builtin_copysign(0.0, x) : x - *ip;
}
STRATA_DEV float nanf(const char*) { return __builtin_nanf(""); }
STRATA_DEV double nan(const char*) { return __builtin_nan(""); }
STRATA_DEV float scalbnf(float x, int n) { return __nv_ldexpf(x, n); }
STRATA_DEV double scalbn(double x, int n) { return __nv_ldexp(x, n); }
STRATA_DEV int ilogbf(float x) {
  int e;
  frexpf(x, &e);
  return e - 1;
}
STRATA_DEV int ilogb(double x) {
  int e;
  frexp(x, &e);
  return e - 1;
}

/* the fast intrinsics: the .approx PTX instructions */
STRATA_DEV float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
STRATA_DEV float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }
STRATA_DEV float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
STRATA_DEV float __frsqrt_rn(float x) { return __nvvm_rsqrt_approx_f(x); }
/* __fadd_rn and __fmul_rn are never merged into an fma (CUDA Math API): clang 14 contracts its own
 * add.rn/mul.rn builtins, so they are written as the PTX instructions themselves. */
STRATA_DEV float __fadd_rn(float a, float b) {
  float r;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
STRATA_DEV float __fmul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
STRATA_DEV float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
/* The other rounding modes of the CUDA Math API's intrinsics (_rz toward zero, _ru up, _rd down; PTX
 * .rz .rp .rm), written as the PTX instructions so clang cannot merge or reorder them. */
#define STRATA_R2(NAME, INS, T, C)                                    \
  STRATA_DEV T NAME(T a, T b) {                                       \
    T r;                                                              \
    asm(INS " %0, %1, %2;" : "=" C(r) : C(a), C(b));                  \
    return r;                                                         \
  }
#define STRATA_R1(NAME, INS, T, C)                                    \
  STRATA_DEV T NAME(T a) {                                            \
    T r;                                                              \
    asm(INS " %0, %1;" : "=" C(r) : C(a));                            \
    return r;                                                         \
  }
#define STRATA_R3(NAME, INS, T, C)                                    \
  STRATA_DEV T NAME(T a, T b, T c) {                                  \
    T r;                                                              \
    asm(INS " %0, %1, %2, %3;" : "=" C(r) : C(a), C(b), C(c));        \
    return r;                                                         \
  }
#define STRATA_RMODES(M, PTXM)                                                         \
  STRATA_R2(__fsub_##M, "sub." #PTXM ".f32", float, "f")                               \
  STRATA_R2(__fdiv_##M, "div." #PTXM ".f32", float, "f")                               \
  STRATA_R2(__dadd_##M, "add." #PTXM ".f64", double, "d")                              \
  STRATA_R2(__dsub_##M, "sub." #PTXM ".f64", double, "d")                              \
  STRATA_R2(__dmul_##M, "mul." #PTXM ".f64", double, "d")                              \
  STRATA_R2(__ddiv_##M, "div." #PTXM ".f64", double, "d")                              \
  STRATA_R1(__dsqrt_##M, "sqrt." #PTXM ".f64", double, "d")                            \
  STRATA_R1(__drcp_##M, "rcp." #PTXM ".f64", double, "d")                              \
  STRATA_R3(__fma_##M, "fma." #PTXM ".f64", double, "d")
#define STRATA_RMODES_DIRECTED(M, PTXM)                                                \
  STRATA_R2(__fadd_##M, "add." #PTXM ".f32", float, "f")                               \
  STRATA_R2(__fmul_##M, "mul." #PTXM ".f32", float, "f")                               \
  STRATA_R1(__fsqrt_##M, "sqrt." #PTXM ".f32", float, "f")                             \
  STRATA_R1(__frcp_##M, "rcp." #PTXM ".f32", float, "f")                               \
  STRATA_R3(__fmaf_##M, "fma." #PTXM ".f32", float, "f")
STRATA_RMODES(rn, rn)
STRATA_RMODES(rz, rz)
STRATA_RMODES(ru, rp)
STRATA_RMODES(rd, rm)
STRATA_RMODES_DIRECTED(rz, rz)
STRATA_RMODES_DIRECTED(ru, rp)
STRATA_RMODES_DIRECTED(rd, rm)
/* conversions with a rounding mode: cvt.rni/rzi/rmi/rpi to integers, cvt.rn/rz/rm/rp to floats */
#define STRATA_CVT(NAME, INS, TO, CTO, FROM, CFROM)                    \
  STRATA_DEV TO NAME(FROM a) {                                        \
    TO r;                                                             \
    asm("cvt." INS " %0, %1;" : "=" CTO(r) : CFROM(a));               \
    return r;                                                         \
  }
#define STRATA_CVT4(BASE, SUFFIX, TO, CTO, FROM, CFROM, I)             \
  STRATA_CVT(BASE##_ru, "rp" I "." SUFFIX, TO, CTO, FROM, CFROM)      \
  STRATA_CVT(BASE##_rd, "rm" I "." SUFFIX, TO, CTO, FROM, CFROM)
STRATA_CVT4(__float2int, "s32.f32", int, "r", float, "f", "i")
STRATA_CVT4(__float2uint, "u32.f32", unsigned, "r", float, "f", "i")
STRATA_CVT4(__double2int, "s32.f64", int, "r", double, "d", "i")
STRATA_CVT4(__double2uint, "u32.f64", unsigned, "r", double, "d", "i")
STRATA_CVT4(__int2float, "f32.s32", float, "f", int, "r", "")
STRATA_CVT4(__uint2float, "f32.u32", float, "f", unsigned, "r", "")
STRATA_CVT4(__double2float, "f32.f64", float, "f", double, "d", "")
STRATA_CVT(__float2uint_rz, "rzi.u32.f32", unsigned, "r", float, "f")
STRATA_CVT(__double2int_rz, "rzi.s32.f64", int, "r", double, "d")
STRATA_CVT(__double2uint_rz, "rzi.u32.f64", unsigned, "r", double, "d")
STRATA_CVT(__int2float_rz, "rz.f32.s32", float, "f", int, "r")
STRATA_CVT(__uint2float_rz, "rz.f32.u32", float, "f", unsigned, "r")
STRATA_CVT(__double2float_rz, "rz.f32.f64", float, "f", double, "d")
STRATA_CVT(__double2uint_rn, "rni.u32.f64", unsigned, "r", double, "d")
STRATA_CVT(__uint2float_rn, "rn.f32.u32", float, "f", unsigned, "r")
STRATA_CVT(__float2ll_rn, "rni.s64.f32", long long, "l", float, "f")
STRATA_CVT(__float2ll_rz, "rzi.s64.f32", long long, "l", float, "f")
STRATA_CVT(__float2ull_rn, "rni.u64.f32", unsigned long long, "l", float, "f")
STRATA_CVT(__float2ull_rz, "rzi.u64.f32", unsigned long long, "l", float, "f")
STRATA_CVT(__double2ll_rn, "rni.s64.f64", long long, "l", double, "d")
STRATA_CVT(__double2ll_rz, "rzi.s64.f64", long long, "l", double, "d")
STRATA_CVT(__double2ull_rn, "rni.u64.f64", unsigned long long, "l", double, "d")
STRATA_CVT(__double2ull_rz, "rzi.u64.f64", unsigned long long, "l", double, "d")
STRATA_CVT(__ll2float_rn, "rn.f32.s64", float, "f", long long, "l")
STRATA_CVT(__ull2float_rn, "rn.f32.u64", float, "f", unsigned long long, "l")
STRATA_CVT(__ll2double_rn, "rn.f64.s64", double, "d", long long, "l")
STRATA_CVT(__ull2double_rn, "rn.f64.u64", double, "d", unsigned long long, "l")
STRATA_DEV double __int2double_rn(int a) { return (double)a; }
STRATA_DEV double __uint2double_rn(unsigned a) { return (double)a; }
STRATA_DEV float __float2float_rn(float a) { return a; }
#undef STRATA_CVT4
#undef STRATA_CVT
#undef STRATA_RMODES
#undef STRATA_RMODES_DIRECTED
#undef STRATA_R1
#undef STRATA_R2
#undef STRATA_R3
STRATA_DEV float __saturatef(float x) { return __nvvm_saturate_f(x); }
STRATA_DEV float __exp2f(float x) { return __nvvm_ex2_approx_f(x); }
STRATA_DEV float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
STRATA_DEV float __exp10f(float x) { return __nvvm_ex2_approx_f(x * 3.3219280948873622f); }
STRATA_DEV float __log2f(float x) { return __nvvm_lg2_approx_f(x); }
STRATA_DEV float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
STRATA_DEV float __log10f(float x) { return __nvvm_lg2_approx_f(x) * 0.3010299956639812f; }
STRATA_DEV float __powf(float x, float y) { return __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)); }
STRATA_DEV float __sinf(float x) { return __nvvm_sin_approx_f(x); }
STRATA_DEV float __cosf(float x) { return __nvvm_cos_approx_f(x); }
STRATA_DEV float __tanf(float x) { return __nvvm_sin_approx_f(x) / __nvvm_cos_approx_f(x); }
STRATA_DEV void __sincosf(float x, float* s, float* c) {
  *s = __nvvm_sin_approx_f(x);
  *c = __nvvm_cos_approx_f(x);
}
STRATA_DEV int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
STRATA_DEV int __float2int_rz(float x) { return __nvvm_f2i_rz(x); }
STRATA_DEV unsigned __float2uint_rn(float x) { return __nvvm_f2ui_rn(x); }
STRATA_DEV float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
STRATA_DEV int __double2int_rn(double x) { return __nvvm_d2i_rn(x); }
STRATA_DEV float __double2float_rn(double x) { return __nvvm_d2f_rn(x); }

/* std:: spellings of the device overloads */
namespace std {
using ::exp; using ::exp2; using ::expm1; using ::log; using ::log2; using ::log10; using ::log1p;
using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2;
using ::sinh; using ::cosh; using ::tanh; using ::cbrt; using ::erf; using ::erfc; using ::round;
using ::pow; using ::fmod; using ::hypot; using ::sqrt; using ::fabs; using ::floor; using ::ceil;
using ::trunc; using ::rint; using ::fmin; using ::fmax; using ::fma; using ::isnan; using ::isinf;
using ::isfinite; using ::signbit; using ::copysign; using ::abs; using ::min; using ::max; using ::frexp;
using ::modf; using ::nan; using ::scalbn; using ::ilogb;
}  // namespace std

#undef STRATA_NV1
#undef STRATA_NV2
#undef STRATA_F1
#undef STRATA_F2
#undef STRATA_B1
#undef STRATA_DEV
#endif /* __cplusplus && __CUDA__ */

#endif
