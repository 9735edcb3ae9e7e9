/* Internal data structures of the PTX front end (docs/ptx.md "Data structures"): the decoded
 * module shared by the parser (ptx_parse.c, ptx_decode.c), the control-flow analysis
 * (ptx_cfg.c) and the executor (ptx_exec.c, ptx_fp.c). */
#ifndef STRATA_PTX_IMPL_H
#define STRATA_PTX_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptx.h"

#define PTX_R_NONE 0xffffu      /* no register operand */
#define PTX_PC_NONE 0xffffffffu /* no reconvergence point (the virtual exit) */
#define PTX_MAX_REGS 60000u     /* registers (incl. constants) per function */
#define PTX_MAX_PREDS 60000u

/* Value types. */
typedef enum ptx_ty {
  TY_NONE, TY_B8, TY_B16, TY_B32, TY_B64, TY_U8, TY_U16, TY_U32, TY_U64,
  TY_S8, TY_S16, TY_S32, TY_S64, TY_F16, TY_F16X2, TY_F32, TY_F64, TY_PRED
} ptx_ty;
unsigned ptx_ty_bytes(ptx_ty t);
bool ptx_ty_signed(ptx_ty t);
bool ptx_ty_float(ptx_ty t);

/* Comparisons of setp / set / slct. */
typedef enum ptx_cmp {
  CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
  CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN
} ptx_cmp;

/* Modifier bits (ptx_inst.mod). */
enum {
  MOD_FTZ = 1u << 0, MOD_SAT = 1u << 1, MOD_APPROX = 1u << 2, MOD_FULL = 1u << 3,
  MOD_NEG_C = 1u << 4,   /* setp/selp predicate operand c is negated */
  MOD_HAS_C = 1u << 5,   /* setp: combine with predicate c */
  MOD_HAS_Q = 1u << 6,   /* setp / shfl: second destination predicate */
  MOD_CLAMP = 1u << 7 /* shf: .clamp (else .wrap) */
};

/* Rounding (ptx_inst.rnd). */
typedef enum ptx_rnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI } ptx_rnd;

/* Boolean combine of setp. */
typedef enum ptx_bop { BOP_NONE, BOP_AND, BOP_OR, BOP_XOR } ptx_bop;

/* Decoded operation kinds: the executor's switch. Fast kinds for the hot (op, type) pairs;
 * K_IGEN / K_FGEN evaluate every other integer / float operation per lane (ptx_inst.op). */
typedef enum ptx_kind {
  K_NOP,
  K_MOV, K_MOV_PRED, K_SREG, K_SYMADDR,
  K_ADD32, K_ADD64, K_SUB32, K_SUB64, K_MULLO32, K_MULLO64, K_MULWIDE_S32, K_MULWIDE_U32,
  K_MAD32, K_MAD64, K_AND32, K_AND64, K_OR32, K_OR64, K_XOR32, K_XOR64,
  K_SHL32, K_SHL64, K_SHRU32, K_SHRS32, K_SHRU64, K_SHRS64,
  K_IGEN, /* any other integer op of any width */
  K_FADD32, K_FSUB32, K_FMUL32, K_FFMA32, K_FADD64, K_FSUB64, K_FMUL64, K_FFMA64,
  K_FGEN32, K_FGEN64, /* any other float op (rounding modes, ftz, sat, div, sqrt, approx, ...) */
  K_SETP_I32, K_SETP_I64, K_SETP_F32, K_SETP_F64, K_SETP_GEN,
  K_SELP, K_SLCT, K_PRED_LOGIC,
  K_CVT_ZX32_64, K_CVT_SX32_64, K_CVT_TRUNC64_32, K_CVT_GEN, K_CVTA,
  K_LD, K_ST, K_ATOM,
  K_BRA, K_CALL, K_CALL_NATIVE, K_RET, K_EXIT, K_TRAP, K_BAR, K_MEMBAR,
  K_VOTE, K_SHFL, K_ACTIVEMASK,
  K_TEX,     /* tex.1d.v4 with an integer coordinate (tex1Dfetch) */
  K_VPRINTF, /* call of vprintf (kernel printf) */
  K_COUNT
} ptx_kind;

/* Generic operations (ptx_inst.op) of K_IGEN / K_FGEN / K_PRED_LOGIC / K_ATOM / K_VOTE / K_SHFL. */
typedef enum ptx_gop {
  G_ADD, G_SUB, G_MULLO, G_MULHI, G_MULWIDE, G_MADLO, G_MADHI, G_MADWIDE, G_DIV, G_REM,
  G_MIN, G_MAX, G_ABS, G_NEG, G_AND, G_OR, G_XOR, G_NOT, G_CNOT, G_SHL, G_SHR, G_POPC,
  G_CLZ, G_BREV, G_BFE, G_BFI, G_BFIND, G_SAD, G_MUL24LO, G_MAD24LO, G_PRMT, G_SHF_L, G_SHF_R,
  /* float only */
  G_MUL, G_FMA, G_RCP, G_SQRT, G_RSQRT, G_SIN, G_COS, G_LG2, G_EX2, G_TANH, G_TESTP, G_COPYSIGN,
  /* vote / shfl modes */
  G_ALL, G_ANY, G_UNI, G_BALLOT, G_UP, G_DOWN, G_BFLY, G_IDX,
  /* atomics */
  G_EXCH, G_CAS, G_INC, G_DEC
} ptx_gop;

/* Where a symbol operand's address comes from (ptx_inst.sym). */
typedef enum ptx_symk {
  SYM_NONE,
  SYM_GLOBAL,     /* module global segment base + off */
  SYM_CONST,      /* module const segment base + off */
  SYM_SHARED_MOD, /* module-scope shared: off */
  SYM_SHARED_FN,  /* function-scope shared: kernel's base for the function + off */
  SYM_SHARED_DYN, /* extern shared: kernel's dynamic base + off */
  SYM_FRAME,      /* local memory of the current frame (locals, device-function params): frame + off */
  SYM_KPARAM,     /* kernel parameter buffer: off */
  SYM_FRAME_PARAM /* mov of a device-function .param: frame + off | PTX_PARAM_FRAME_TAG */
} ptx_symk;

/* A param-space address with this bit is a device-function parameter in the thread's frame
 * (local memory); without it, an offset in the kernel's parameter buffer. */
#define PTX_PARAM_FRAME_TAG (1ull << 40)

/* Special registers. */
typedef enum ptx_sreg {
  SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z, SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
  SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID,
  SR_GRIDID, SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE,
  SR_CLOCK, SR_CLOCK64, SR_GLOBALTIMER
} ptx_sreg;

/* One decoded instruction (48 bytes + line). Register operands are indices into the current
 * function's register window; immediates are read-only constant registers of that window, so
 * every source is a register. Predicates have their own window of 32-bit lane masks. */
typedef struct ptx_inst {
  uint8_t kind;   /* ptx_kind */
  uint8_t op;     /* ptx_gop for the generic kinds; ptx_cmp for setp; ptx_sreg for K_SREG */
  uint8_t ty;     /* operation type (ptx_ty) */
  uint8_t ty2;    /* cvt: source type; setp/slct: compared type; ld: register width class */
  uint8_t rnd;    /* ptx_rnd */
  uint8_t mod;    /* MOD_* bits */
  uint8_t space;  /* ptx_space for ld/st/atom/cvta; ptx_bop for setp; 1 = to-space for cvta */
  uint8_t vec;    /* vector length 1, 2, 4 (ld/st); combine op for setp lives in space */
  uint8_t sym;    /* ptx_symk of the address / K_SYMADDR */
  uint8_t guard_neg;
  uint16_t guard; /* predicate index or PTX_R_NONE */
  uint16_t d[4];  /* destination registers (d[1] = second predicate for setp / shfl) */
  uint16_t s[4];  /* sources (s[3] for st.v4 / bfi) */
  uint16_t pa, pb; /* predicate sources (selp c, setp c, pred logic a/b, vote a) */
  uint16_t base;   /* ld/st/atom: address register or PTX_R_NONE */
  uint8_t cls;     /* ptx_iclass for a timing model */
  uint8_t fparam;  /* ld/st: 1 for a device function's .param variable (in the frame; ptx_cta_set_local keeps it) */
  uint8_t pad[4];
  int64_t imm;    /* address offset (symbol offset included); call: index into call_args */
  uint32_t target; /* bra: target pc; call: callee function index */
  uint32_t reconv; /* bra: reconvergence pc (immediate post-dominator) or PTX_PC_NONE */
  uint32_t fn;     /* owning function */
  uint32_t line;
} ptx_inst;

/* A call site's argument list: caller-frame offsets and sizes of the param variables. */
typedef struct ptx_call_arg {
  uint32_t off, size;
} ptx_call_arg;
typedef struct ptx_call_info {
  uint32_t ret_off, ret_size; /* ret_size 0: no return value */
  uint32_t first_arg, nargs;  /* into module call_args */
} ptx_call_info;

typedef struct ptx_param {
  char *name;
  uint32_t offset, size, align;
} ptx_param;

typedef struct ptx_func {
  char *name;
  bool is_entry, has_body;
  uint32_t line;
  ptx_param *params; /* entry: kernel params (buffer offsets); func: formals (frame offsets) */
  unsigned nparams;
  ptx_param ret;      /* func: return param (frame offset), size 0 if none */
  uint32_t first_pc, npc;
  uint32_t nregs;     /* registers incl. constants */
  uint32_t npreds;    /* predicates; 0 is constant false, 1 constant true */
  uint32_t *const_reg; /* constant registers (immediates): register index and value */
  uint64_t *const_val;
  uint32_t nconsts;
  uint8_t *reg_wide;  /* per register: 1 if declared 64-bit */
  uint32_t frame_bytes;  /* formals + locals + call-site params */
  uint32_t shared_bytes; /* function-scope .shared */
  uint32_t shared_align;
  char *unsupported;     /* first unimplemented instruction (its text), or NULL */
  uint32_t unsupported_line;
  uint32_t *callees; unsigned ncallees;
} ptx_func;

/* A kernel: an entry function with its per-kernel layout of every reachable function. */
struct ptx_kernel {
  const ptx_module *mod;
  uint32_t fn;            /* entry function index */
  uint32_t *reg_base;     /* per module function: base of its register window (reachable only) */
  uint32_t *pred_base;
  uint32_t *shared_base;  /* per function: base of its function-scope shared */
  uint32_t nregs, npreds; /* totals over reachable functions */
  uint32_t shared_static; /* module shared + function shared */
  uint32_t dyn_base;      /* offset of extern shared (16-aligned) */
  uint32_t local_bytes;   /* per thread: deepest call chain of frames */
  uint32_t *reach; unsigned nreach; /* reachable functions (entry first) */
  char *error;            /* why it cannot run, or NULL */
};

typedef struct ptx_var {
  char *name;
  uint8_t space; /* ptx_space */
  bool is_extern;
  uint64_t offset, size;
  uint32_t align;
} ptx_var;

struct ptx_module {
  char *name;
  ptx_inst *code; uint32_t ncode;
  ptx_func *funcs; uint32_t nfuncs;
  ptx_kernel *kernels; uint32_t nkernels;
  ptx_var *vars; uint32_t nvars;
  ptx_call_info *calls; uint32_t ncalls;
  ptx_call_arg *call_args; uint32_t ncall_args;
  uint8_t *seg_image[2]; /* global, const */
  uint64_t seg_size[2];
  uint64_t seg_init[2];  /* bytes of seg_image */
  uint32_t seg_align[2];
  uint64_t seg_base[2];
  uint32_t shared_mod_bytes, shared_mod_align;
  uint32_t version_major, version_minor;
  uint32_t sm;
};

/* Formats "NAME:LINE: " + message into err (truncating). */
void ptx_errf(char *err, size_t errlen, const char *name, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Control flow (ptx_cfg.c): fill ptx_inst.reconv of every branch of function f. Returns 0 or
 * -1 when out of memory. */
int ptx_cfg_reconv(ptx_module *m, uint32_t f);
/* Per-kernel layout (ptx_cfg.c): reachable functions, register windows, frames, recursion. */
int ptx_kernel_layout(ptx_module *m, ptx_kernel *k, char *err, size_t errlen);

/* Device math functions computed natively (ptx_native.c): id by libdevice name or -1, the
 * sizes of return value and arguments, and the value for one lane (bit patterns). */
int ptx_native_find(const char *name);
void ptx_native_sig(int id, unsigned *ret_bytes, unsigned *nargs, unsigned arg_bytes[2]);
uint64_t ptx_native_eval(int id, uint64_t a, uint64_t b);

/* Kernel printf (ptx_printf.c): format one thread's vprintf(fmt, args) call. `rd` reads n bytes
 * (1, 4 or 8) at a generic address of the thread (0, or nonzero when not readable); the text goes
 * to `put` in pieces (put may be NULL). Returns 0 with *nargs = the arguments consumed, or -1
 * with a one-line reason in err (bad or unsupported conversion, unreadable memory). */
typedef int (*ptx_printf_read)(void *ctx, uint64_t addr, void *dst, unsigned n);
int ptx_printf_run(ptx_printf_read rd, void *rctx, uint64_t fmt_addr, uint64_t args_addr,
                   void (*put)(void *ctx, const char *s, size_t n), void *pctx, int *nargs, char *err, size_t errlen);

/* Float helpers (ptx_fp.c): the generic per-lane evaluators. */
uint64_t ptx_fgen32(const ptx_inst *in, uint64_t a, uint64_t b, uint64_t c);
uint64_t ptx_fgen64(const ptx_inst *in, uint64_t a, uint64_t b, uint64_t c);
uint64_t ptx_cvt(const ptx_inst *in, uint64_t v);
bool ptx_fcmp(ptx_cmp c, double a, double b);
uint64_t ptx_igen(const ptx_inst *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e);
bool ptx_icmp(ptx_cmp c, ptx_ty t, uint64_t a, uint64_t b);

static inline float ptx_f32(uint64_t v) {
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t ptx_bits32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline double ptx_f64(uint64_t v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}
static inline uint64_t ptx_bits64(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

#endif
