/* GPU atomic-unit arithmetic (atomic.h). */
#include "atomic.h"

#include <stdbool.h>
#include <string.h>

static float f32_of(uint64_t v) {
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static double f64_of(uint64_t v) {
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}
static uint64_t bits_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static uint64_t bits_f64(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

unsigned gpu_atom_bytes(gpu_atom_type ty) {
  return ty == GPU_ATY_U64 || ty == GPU_ATY_S64 || ty == GPU_ATY_F64 ? 8u : 4u;
}

/* a < old (less) and a > old (greater) in the type's order. */
static void compare(gpu_atom_type ty, uint64_t a, uint64_t old, bool *less, bool *greater) {
  switch (ty) {
    case GPU_ATY_S32:
      *less = (int32_t)(uint32_t)a < (int32_t)(uint32_t)old;
      *greater = (int32_t)(uint32_t)a > (int32_t)(uint32_t)old;
      break;
    case GPU_ATY_S64:
      *less = (int64_t)a < (int64_t)old;
      *greater = (int64_t)a > (int64_t)old;
      break;
    case GPU_ATY_F32:
      *less = f32_of(a) < f32_of(old);
      *greater = f32_of(a) > f32_of(old);
      break;
    case GPU_ATY_F64:
      *less = f64_of(a) < f64_of(old);
      *greater = f64_of(a) > f64_of(old);
      break;
    default:
      *less = a < old;
      *greater = a > old;
      break;
  }
}

uint64_t gpu_atom_apply(gpu_atom_op op, gpu_atom_type ty, uint64_t old, uint64_t a, uint64_t b) {
  const uint64_t mask = gpu_atom_bytes(ty) == 8 ? ~0ull : 0xffffffffull;
  old &= mask;
  a &= mask;
  b &= mask;
  uint64_t r;
  bool less, greater;
  switch (op) {
    case GPU_ATOM_ADD:
      if (ty == GPU_ATY_F32) r = bits_f32(f32_of(old) + f32_of(a));
      else if (ty == GPU_ATY_F64) r = bits_f64(f64_of(old) + f64_of(a));
      else r = old + a;
      break;
    case GPU_ATOM_MIN:
    case GPU_ATOM_MAX:
      compare(ty, a, old, &less, &greater);
      r = (op == GPU_ATOM_MIN ? less : greater) ? a : old;
      break;
    case GPU_ATOM_EXCH: r = a; break;
    case GPU_ATOM_CAS: r = old == a ? b : old; break;
    case GPU_ATOM_INC: r = old >= a ? 0 : old + 1; break;
    case GPU_ATOM_DEC: r = (old == 0 || old > a) ? a : old - 1; break;
    case GPU_ATOM_AND: r = old & a; break;
    case GPU_ATOM_OR: r = old | a; break;
    default: r = old ^ a; break;
  }
  return r & mask;
}
