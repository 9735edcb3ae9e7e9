/* Per-lane evaluators of the PTX executor for the operations without a fast path: integer
 * operations of any width (ptx_igen), comparisons, float operations with rounding modes,
 * flush-to-zero, saturation and the approximate functions (ptx_fgen32/64), and cvt.
 * Semantics follow NVIDIA's PTX ISA manual, Sec. 9.7 (integer, floating-point, comparison and
 * conversion instructions). Directed rounding (.rz/.rm/.rp) switches the host FPU's rounding
 * mode around the one operation; this file is built with -frounding-math so the compiler keeps
 * the operation between the switches. */
#include <fenv.h>
#include <math.h>

#include "ptx_impl.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static uint64_t trunc_w(uint64_t v, unsigned w) { return w >= 8 ? v : v & ((1ull << (8 * w)) - 1); }
static int64_t sext_w(uint64_t v, unsigned w) { return w >= 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * w)) >> (64 - 8 * w); }

bool ptx_icmp(ptx_cmp c, ptx_ty t, uint64_t a, uint64_t b) {
  unsigned w = ptx_ty_bytes(t);
  uint64_t ua = trunc_w(a, w), ub = trunc_w(b, w);
  int64_t sa = sext_w(a, w), sb = sext_w(b, w);
  bool s = ptx_ty_signed(t);
  switch (c) {
    case CMP_EQ: return ua == ub;
    case CMP_NE: return ua != ub;
    case CMP_LT: return s ? sa < sb : ua < ub;
    case CMP_LE: return s ? sa <= sb : ua <= ub;
    case CMP_GT: return s ? sa > sb : ua > ub;
    case CMP_GE: return s ? sa >= sb : ua >= ub;
    case CMP_LO: return ua < ub;
    case CMP_LS: return ua <= ub;
    case CMP_HI: return ua > ub;
    case CMP_HS: return ua >= ub;
    default: return false;
  }
}

bool ptx_fcmp(ptx_cmp c, double a, double b) {
  bool un = isnan(a) || isnan(b);
  switch (c) {
    case CMP_EQ: return !un && a == b;
    case CMP_NE: return !un && a != b;
    case CMP_LT: return !un && a < b;
    case CMP_LE: return !un && a <= b;
    case CMP_GT: return !un && a > b;
    case CMP_GE: return !un && a >= b;
    case CMP_EQU: return un || a == b;
    case CMP_NEU: return un || a != b;
    case CMP_LTU: return un || a < b;
    case CMP_LEU: return un || a <= b;
    case CMP_GTU: return un || a > b;
    case CMP_GEU: return un || a >= b;
    case CMP_NUM: return !un;
    case CMP_NAN: return un;
    default: return false;
  }
}

static uint64_t brev(uint64_t v, unsigned bits) {
  uint64_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
  return r;
}

static int64_t clamp_s32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

uint64_t ptx_igen(const ptx_inst *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e) {
  ptx_ty t = (ptx_ty)in->ty;
  unsigned w = ptx_ty_bytes(t), bits = 8 * w;
  bool s = ptx_ty_signed(t), sat = in->mod & MOD_SAT;
  uint64_t ua = trunc_w(a, w), ub = trunc_w(b, w);
  int64_t sa = sext_w(a, w), sb = sext_w(b, w);
  switch ((ptx_gop)in->op) {
    case G_ADD: return sat ? (uint32_t)clamp_s32(sa + sb) : trunc_w(a + b, w);
    case G_SUB: return sat ? (uint32_t)clamp_s32(sa - sb) : trunc_w(a - b, w);
    case G_MULLO: return trunc_w(a * b, w);
    case G_MULHI:
    case G_MADHI: {
      uint64_t hi;
      if (w == 8) hi = s ? (uint64_t)(((i128)sa * (i128)sb) >> 64) : (uint64_t)(((u128)ua * (u128)ub) >> 64);
      else hi = s ? (uint64_t)((sa * sb) >> bits) : (ua * ub) >> bits;
      if (in->op == G_MULHI) return trunc_w(hi, w);
      if (sat) return (uint32_t)clamp_s32(sext_w(hi, 4) + sext_w(c, 4));
      return trunc_w(hi + c, w);
    }
    case G_MULWIDE: return trunc_w(s ? (uint64_t)(sa * sb) : ua * ub, 2 * w);
    case G_MADWIDE: return trunc_w((s ? (uint64_t)(sa * sb) : ua * ub) + c, 2 * w);
    case G_MADLO: return trunc_w(a * b + c, w);
    case G_DIV:
      if (ub == 0) return trunc_w(~0ull, w);
      if (s) {
        if (sb == -1) return trunc_w(0 - ua, w);
        return trunc_w((uint64_t)(sa / sb), w);
      }
      return ua / ub;
    case G_REM:
      if (ub == 0) return ua;
      if (s) {
        if (sb == -1) return 0;
        return trunc_w((uint64_t)(sa % sb), w);
      }
      return ua % ub;
    case G_MIN: return s ? trunc_w((uint64_t)(sa < sb ? sa : sb), w) : (ua < ub ? ua : ub);
    case G_MAX: return s ? trunc_w((uint64_t)(sa > sb ? sa : sb), w) : (ua > ub ? ua : ub);
    case G_ABS: return sa < 0 ? trunc_w(0 - ua, w) : ua;
    case G_NEG: return trunc_w(0 - ua, w);
    case G_AND: return ua & ub;
    case G_OR: return ua | ub;
    case G_XOR: return ua ^ ub;
    case G_NOT: return trunc_w(~ua, w);
    case G_CNOT: return ua == 0;
    case G_SHL: return (uint32_t)b >= bits ? 0 : trunc_w(ua << (uint32_t)b, w);
    case G_SHR:
      if (s) return trunc_w((uint64_t)(sa >> ((uint32_t)b >= bits ? bits - 1 : (uint32_t)b)), w);
      return (uint32_t)b >= bits ? 0 : ua >> (uint32_t)b;
    case G_POPC: return (uint64_t)__builtin_popcountll(ua);
    case G_CLZ: return ua == 0 ? bits : (uint64_t)__builtin_clzll(ua) - (64 - bits);
    case G_BREV: return brev(ua, bits);
    case G_BFE: {
      uint32_t pos = (uint32_t)b & 0xff, len = (uint32_t)c & 0xff, msb = bits - 1;
      uint64_t sbit = 0;
      if (s && len != 0) sbit = (ua >> (pos + len - 1 < msb ? pos + len - 1 : msb)) & 1;
      uint64_t r = 0;
      for (uint32_t i = 0; i <= msb; ++i) {
        uint64_t bit = (i < len && pos + i <= msb) ? (ua >> (pos + i)) & 1 : sbit;
        r |= bit << i;
      }
      return r;
    }
    case G_BFI: {
      uint32_t pos = (uint32_t)c & 0xff, len = (uint32_t)e & 0xff, msb = bits - 1;
      uint64_t r = ub;
      for (uint32_t i = 0; i < len && pos + i <= msb; ++i) r = (r & ~(1ull << (pos + i))) | (((ua >> i) & 1) << (pos + i));
      return r;
    }
    case G_BFIND: {
      uint64_t v = (s && sa < 0) ? trunc_w(~ua, w) : ua;
      if (v == 0) return 0xffffffffu;
      return 63u - (uint64_t)__builtin_clzll(v);
    }
    case G_SAD: return trunc_w((s ? (uint64_t)(sa > sb ? sa - sb : sb - sa) : (ua > ub ? ua - ub : ub - ua)) + c, w);
    case G_MUL24LO:
    case G_MAD24LO: {
      uint64_t p = s ? (uint64_t)(sext_w(a & 0xffffff, 3) * sext_w(b & 0xffffff, 3)) : (a & 0xffffff) * (b & 0xffffff);
      if (in->op == G_MAD24LO) p += c;
      return (uint32_t)p;
    }
    case G_SHF_L:
    case G_SHF_R: {
      /* funnel shift of the 64-bit b:a by c (wrap: c mod 32; clamp: at most 32) */
      uint32_t n = (in->mod & MOD_CLAMP) ? ((uint32_t)c > 32 ? 32 : (uint32_t)c) : (uint32_t)c & 31;
      uint64_t all = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu);
      return in->op == G_SHF_L ? (uint32_t)((all << n) >> 32) : (uint32_t)(all >> n);
    }
    case G_PRMT: {
      uint64_t all = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu), r = 0;
      for (unsigned i = 0; i < 4; ++i) {
        unsigned sel = (unsigned)(c >> (4 * i)) & 15;
        uint64_t byte = (all >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
      }
      return r;
    }
    default: return 0;
  }
}

/* ------------------------------------------------------------------ floats */

static int fe_mode(uint8_t rnd) {
  switch (rnd) {
    case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
    case RND_RM: case RND_RMI: return FE_DOWNWARD;
    case RND_RP: case RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}

static float ftz32(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }

static float sat32(float x) { return isnan(x) ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static double sat64(double x) { return isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

uint64_t ptx_fgen32(const ptx_inst *in, uint64_t ab, uint64_t bb, uint64_t cb) {
  float x = ptx_f32(ab), y = ptx_f32(bb), z = ptx_f32(cb);
  bool ftz = in->mod & MOD_FTZ;
  if (ftz) {
    x = ftz32(x);
    y = ftz32(y);
    z = ftz32(z);
  }
  int mode = fe_mode(in->rnd), old = FE_TONEAREST;
  if (mode != FE_TONEAREST) {
    old = fegetround();
    fesetround(mode);
  }
  volatile float r;
  switch ((ptx_gop)in->op) {
    case G_ADD: r = x + y; break;
    case G_SUB: r = x - y; break;
    case G_MUL: r = x * y; break;
    case G_FMA: r = fmaf(x, y, z); break;
    case G_DIV: r = x / y; break;
    case G_RCP: r = 1.0f / x; break;
    case G_SQRT: r = sqrtf(x); break;
    case G_RSQRT: r = 1.0f / sqrtf(x); break;
    case G_SIN: r = sinf(x); break;
    case G_COS: r = cosf(x); break;
    case G_LG2: r = log2f(x); break;
    case G_EX2: r = exp2f(x); break;
    case G_TANH: r = tanhf(x); break;
    case G_MIN: r = (isnan(x) && isnan(y)) ? NAN : fminf(x, y); break;
    case G_MAX: r = (isnan(x) && isnan(y)) ? NAN : fmaxf(x, y); break;
    case G_ABS: r = fabsf(x); break;
    case G_NEG: r = -x; break;
    case G_COPYSIGN: r = copysignf(y, x); break;
    default: r = 0.0f; break;
  }
  float v = r;
  if (mode != FE_TONEAREST) fesetround(old);
  if (in->mod & MOD_SAT) v = sat32(v);
  if (ftz) v = ftz32(v);
  if (in->op == G_ABS && !ftz) return ab & 0x7fffffffu; /* bit operations keep NaN payloads */
  if (in->op == G_NEG && !ftz) return (ab ^ 0x80000000u) & 0xffffffffu;
  return ptx_bits32(v);
}

uint64_t ptx_fgen64(const ptx_inst *in, uint64_t ab, uint64_t bb, uint64_t cb) {
  double x = ptx_f64(ab), y = ptx_f64(bb), z = ptx_f64(cb);
  int mode = fe_mode(in->rnd), old = FE_TONEAREST;
  if (mode != FE_TONEAREST) {
    old = fegetround();
    fesetround(mode);
  }
  volatile double r;
  switch ((ptx_gop)in->op) {
    case G_ADD: r = x + y; break;
    case G_SUB: r = x - y; break;
    case G_MUL: r = x * y; break;
    case G_FMA: r = fma(x, y, z); break;
    case G_DIV: r = x / y; break;
    case G_RCP: r = 1.0 / x; break;
    case G_SQRT: r = sqrt(x); break;
    case G_RSQRT: r = 1.0 / sqrt(x); break;
    case G_SIN: r = sin(x); break;
    case G_COS: r = cos(x); break;
    case G_LG2: r = log2(x); break;
    case G_EX2: r = exp2(x); break;
    case G_TANH: r = tanh(x); break;
    case G_MIN: r = (isnan(x) && isnan(y)) ? NAN : fmin(x, y); break;
    case G_MAX: r = (isnan(x) && isnan(y)) ? NAN : fmax(x, y); break;
    case G_ABS: r = fabs(x); break;
    case G_NEG: r = -x; break;
    case G_COPYSIGN: r = copysign(y, x); break;
    default: r = 0.0; break;
  }
  double v = r;
  if (mode != FE_TONEAREST) fesetround(old);
  if (in->mod & MOD_SAT) v = sat64(v);
  if (in->op == G_ABS) return ab & 0x7fffffffffffffffull;
  if (in->op == G_NEG) return ab ^ 0x8000000000000000ull;
  return ptx_bits64(v);
}

/* ------------------------------------------------------------------ half precision */

static float half_to_float(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  uint32_t bits;
  if (e == 0) {
    if (m == 0) {
      bits = s;
    } else {
      float f = (float)m * 0x1p-24f;
      return s ? -f : f;
    }
  } else if (e == 31) {
    bits = s | 0x7f800000u | (m << 13);
  } else {
    bits = s | ((e + 112) << 23) | (m << 13);
  }
  return ptx_f32(bits);
}

/* round to nearest even */
static uint16_t float_to_half(float f) {
  uint32_t x = (uint32_t)ptx_bits32(f);
  uint16_t s = (uint16_t)((x >> 16) & 0x8000);
  float a = fabsf(f);
  if (isnan(f)) return (uint16_t)(s | 0x7e00);
  if (a >= 65520.0f) return (uint16_t)(s | 0x7c00);
  if (a < 0x1p-14f) {
    /* subnormal: multiples of 2^-24 */
    float q = nearbyintf(a * 0x1p24f);
    return (uint16_t)(s | (uint16_t)q);
  }
  int e;
  float mant = frexpf(a, &e); /* a = mant * 2^e, mant in [0.5, 1) */
  float q = nearbyintf(mant * 2048.0f); /* 11 significant bits */
  if (q >= 2048.0f) {
    q /= 2.0f;
    e++;
  }
  uint16_t he = (uint16_t)(e - 1 + 15);
  if (he >= 31) return (uint16_t)(s | 0x7c00);
  return (uint16_t)(s | (he << 10) | ((uint16_t)q & 1023));
}

/* ------------------------------------------------------------------ cvt */

static double round_int(double v, uint8_t rnd) {
  switch (rnd) {
    case RND_RZI: return trunc(v);
    case RND_RMI: return floor(v);
    case RND_RPI: return ceil(v);
    default: return nearbyint(v);
  }
}

uint64_t ptx_cvt(const ptx_inst *in, uint64_t v) {
  ptx_ty dt = (ptx_ty)in->ty, st = (ptx_ty)in->ty2;
  unsigned dw = ptx_ty_bytes(dt), sw = ptx_ty_bytes(st);
  bool dfl = ptx_ty_float(dt), sfl = ptx_ty_float(st), sat = in->mod & MOD_SAT, ftz = in->mod & MOD_FTZ;
  if (sfl) {
    double x = st == TY_F16 ? (double)half_to_float((uint16_t)v) : st == TY_F32 ? (double)ptx_f32(v) : ptx_f64(v);
    if (ftz && st == TY_F32) x = ftz32((float)x);
    if (!dfl) {
      /* float -> integer: round, then saturate to the destination range (NaN -> 0) */
      double r = round_int(x, in->rnd);
      bool s = ptx_ty_signed(dt);
      if (isnan(r)) return 0;
      if (s) {
        double lim = ldexp(1.0, (int)(8 * dw - 1));
        int64_t mx = dw == 8 ? INT64_MAX : (int64_t)(((uint64_t)1 << (8 * dw - 1)) - 1);
        int64_t iv = r >= lim ? mx : r < -lim ? -mx - 1 : (int64_t)r;
        return dw < 4 ? (uint32_t)iv : trunc_w((uint64_t)iv, dw);
      }
      double hi = ldexp(1.0, (int)(8 * dw));
      uint64_t uv = r <= 0 ? 0 : r >= hi ? (dw == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * dw)) - 1) : (uint64_t)r;
      return uv;
    }
    /* float -> float */
    if (dt == TY_F64) {
      double r = x;
      if (in->rnd >= RND_RNI) r = round_int(x, in->rnd);
      if (sat) r = sat64(r);
      return ptx_bits64(r);
    }
    if (dt == TY_F32) {
      float r;
      if (st == TY_F64 && in->rnd <= RND_RP) {
        int mode = fe_mode(in->rnd), old = FE_TONEAREST;
        if (mode != FE_TONEAREST) {
          old = fegetround();
          fesetround(mode);
        }
        volatile float t = (float)x;
        r = t;
        if (mode != FE_TONEAREST) fesetround(old);
      } else {
        r = (float)x;
        if (in->rnd >= RND_RNI) r = (float)round_int(x, in->rnd);
      }
      if (sat) r = sat32(r);
      if (ftz) r = ftz32(r);
      return ptx_bits32(r);
    }
    /* f16 */
    float f = (float)x;
    if (sat) f = sat32(f);
    return float_to_half(f);
  }
  /* integer source */
  int64_t si = sext_w(v, sw);
  uint64_t ui = trunc_w(v, sw);
  bool ss = ptx_ty_signed(st);
  if (dfl) {
    int mode = fe_mode(in->rnd), old = FE_TONEAREST;
    if (mode != FE_TONEAREST) {
      old = fegetround();
      fesetround(mode);
    }
    uint64_t r;
    if (dt == TY_F64) {
      volatile double d = ss ? (double)si : (double)ui;
      r = ptx_bits64(sat ? sat64(d) : d);
    } else {
      volatile float f = ss ? (float)si : (float)ui;
      float g = sat ? sat32(f) : f;
      r = dt == TY_F16 ? float_to_half(g) : ptx_bits32(g);
    }
    if (mode != FE_TONEAREST) fesetround(old);
    return r;
  }
  bool ds = ptx_ty_signed(dt);
  uint64_t r;
  if (sat) {
    /* clamp to the destination range */
    if (ds) {
      int64_t lo = dw == 8 ? INT64_MIN : -(int64_t)((uint64_t)1 << (8 * dw - 1));
      int64_t hi = dw == 8 ? INT64_MAX : (int64_t)(((uint64_t)1 << (8 * dw - 1)) - 1);
      if (ss) r = (uint64_t)(si < lo ? lo : si > hi ? hi : si);
      else r = ui > (uint64_t)hi ? (uint64_t)hi : ui;
    } else {
      uint64_t hi = dw == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * dw)) - 1;
      if (ss) r = si < 0 ? 0 : (uint64_t)si > hi ? hi : (uint64_t)si;
      else r = ui > hi ? hi : ui;
    }
  } else {
    r = ss ? (uint64_t)si : ui;
  }
  /* narrower destinations are sign- or zero-extended into their 32-bit register */
  if (dw < 4) return ds ? (uint32_t)sext_w(r, dw) : trunc_w(r, dw);
  return trunc_w(r, dw);
}
