/* Device math functions computed natively (docs/ptx.md "Math functions"): Strata's CUDA headers
 * (cuda/include/strata_cuda_math.h) turn math functions without a PTX instruction of their own
 * into calls of external functions named as in NVIDIA's libdevice (`__nv_expf`, `__nv_pow`,
 * ...). There is no libdevice here, so a `call` of such an `.extern .func` is executed as one
 * instruction that evaluates the host's libm per lane. This table is the list of those
 * functions: a name missing here stays an unsupported call. */
#include <math.h>
#include <string.h>

#include "ptx_impl.h"

typedef enum { A_F32, A_F64, A_S32 } atype;

typedef struct native {
  const char *name;
  uint8_t ret; /* atype */
  uint8_t nargs;
  uint8_t arg[2];
  float (*f1)(float);
  float (*f2)(float, float);
  double (*d1)(double);
  double (*d2)(double, double);
} native;

static float exp10f_(float x) { return powf(10.0f, x); }
static double exp10_(double x) { return pow(10.0, x); }

#define F1X(n, ff, df) {"__nv_" #n "f", A_F32, 1, {A_F32, 0}, ff, NULL, NULL, NULL}, {"__nv_" #n, A_F64, 1, {A_F64, 0}, NULL, NULL, df, NULL},
#define F1(n) F1X(n, n##f, n)
#define F2(n) {"__nv_" #n "f", A_F32, 2, {A_F32, A_F32}, NULL, n##f, NULL, NULL}, {"__nv_" #n, A_F64, 2, {A_F64, A_F64}, NULL, NULL, NULL, n},

static const native kNative[] = {
    F1(exp) F1(exp2) F1X(exp10, exp10f_, exp10_) F1(expm1) F1(log) F1(log2) F1(log10) F1(log1p) F1(sin) F1(cos)
    F1(tan) F1(asin) F1(acos) F1(atan) F1(sinh) F1(cosh) F1(tanh) F1(asinh) F1(acosh) F1(atanh) F1(cbrt)
    F1(erf) F1(erfc) F1(lgamma) F1(tgamma) F1(round) F1(sqrt) F1(floor) F1(ceil) F1(trunc) F1(fabs) F1(rint)
    F2(pow) F2(atan2) F2(fmod) F2(hypot) F2(remainder) F2(copysign) F2(fdim) F2(nextafter) F2(fmin) F2(fmax)
    {"__nv_ldexpf", A_F32, 2, {A_F32, A_S32}, NULL, NULL, NULL, NULL},
    {"__nv_ldexp", A_F64, 2, {A_F64, A_S32}, NULL, NULL, NULL, NULL},
};
#undef F1X
#undef F1
#undef F2

#define NNATIVE (sizeof kNative / sizeof kNative[0])

int ptx_native_find(const char *name) {
  for (size_t i = 0; i < NNATIVE; ++i)
    if (strcmp(kNative[i].name, name) == 0) return (int)i;
  return -1;
}

static unsigned abytes(uint8_t t) { return t == A_F64 ? 8 : 4; }

void ptx_native_sig(int id, unsigned *ret_bytes, unsigned *nargs, unsigned arg_bytes[2]) {
  const native *n = &kNative[id];
  *ret_bytes = abytes(n->ret);
  *nargs = n->nargs;
  for (unsigned i = 0; i < 2; ++i) arg_bytes[i] = i < n->nargs ? abytes(n->arg[i]) : 0;
}

uint64_t ptx_native_eval(int id, uint64_t a, uint64_t b) {
  const native *n = &kNative[id];
  if (n->f1) return ptx_bits32(n->f1(ptx_f32(a)));
  if (n->f2) return ptx_bits32(n->f2(ptx_f32(a), ptx_f32(b)));
  if (n->d1) return ptx_bits64(n->d1(ptx_f64(a)));
  if (n->d2) return ptx_bits64(n->d2(ptx_f64(a), ptx_f64(b)));
  int e = (int)(int32_t)(uint32_t)b;
  if (n->ret == A_F32) return ptx_bits32(ldexpf(ptx_f32(a), e));
  return ptx_bits64(ldexp(ptx_f64(a), e));
}
