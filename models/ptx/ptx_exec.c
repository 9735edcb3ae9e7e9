/* Functional SIMT executor of the PTX front end (docs/ptx.md "Executor").
 *
 * A warp runs 32 lanes in lock step under an active mask. Divergence uses a reconvergence
 * stack (PDOM, Fung et al. MICRO 2007 Sec. 3; GPGPU-Sim's simt_stack): the top entry runs; a
 * divergent branch turns the top entry into the reconvergence entry at the branch's immediate
 * post-dominator and pushes one entry per side; an entry pops when its pc reaches its
 * reconvergence pc or its mask empties. A call pushes a call-frame entry; ret removes the
 * returning lanes from the entries down to it; exit removes lanes from every entry.
 *
 * Registers are [register][lane] arrays of 64-bit words (a register window per function in
 * the kernel's layout), predicates are 32-bit lane masks. Every source is a register
 * (immediates are constant registers filled at CTA init), so the lane loops are plain array
 * loops the compiler vectorises when the whole warp is active. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptx_impl.h"
#include "gpu/atomic.h"

#define FULL 0xffffffffu
#define MAX_STACK 64
#define MAX_CALLS 32
#define QUANTUM 256

enum { W_RUN, W_BAR, W_DONE };

typedef struct stk_ent {
  uint32_t pc, rpc, mask, call; /* call: 1 for the entry a call pushed */
} stk_ent;

typedef struct call_rec {
  uint32_t caller_fn, caller_frame, stk_index;
  const ptx_call_info *ci;
} call_rec;

typedef struct warp {
  uint64_t *regs; /* kernel register file: nregs x 32 */
  uint32_t *preds;
  uint64_t *R;    /* current window */
  uint32_t *PR;
  uint32_t fn, frame;
  uint32_t sp, csp;
  uint32_t exist, state, bar_id;
  uint32_t red_op, red_dst, red_mask; /* bar.red waiting for its result */
  stk_ent stk[MAX_STACK];
  call_rec calls[MAX_CALLS];
} warp;

struct ptx_cta {
  ptx_launch l;
  const ptx_kernel *k;
  const ptx_module *m;
  const ptx_inst *code;
  uint32_t id[3];
  uint32_t nthreads, nwarps;
  uint8_t *params;
  uint32_t param_bytes;
  uint8_t *shared;
  uint32_t shared_bytes;
  uint8_t *local;
  uint32_t lpt; /* local bytes per thread */
  /* ptx_cta_set_local: .local variables in the caller's global memory (lg_stride 0: in `local`) */
  uint64_t lg_base, lg_stride;
  uint64_t *regs;
  uint32_t *preds;
  warp *w;
  uint32_t live_warps;
  uint32_t bar_count[16], bar_expect[16];
  uint32_t red_sum[16], red_and[16], red_or[16]; /* bar.red accumulators (and: 1 until a false lane) */
  uint64_t clock;
  /* the last region ptx_launch.map returned, per space (0 global, 1 const) */
  uint8_t *map_ptr[2];
  uint64_t map_base[2], map_len[2];
  char err[480];
};

static const uint64_t kZero[PTX_WARP];
static int g_have_fma = -1;

const char *ptx_iclass_name(ptx_iclass c) {
  static const char *n[] = {"alu", "sfu", "intdiv", "fp64", "load", "store", "atomic", "shared",
                            "local", "const", "barrier", "membar", "warp", "branch", "exit"};
  return (unsigned)c < PTX_IC_COUNT ? n[c] : "?";
}

/* ------------------------------------------------------------------ errors */

static ptx_step_status fault(ptx_cta *c, const ptx_inst *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ptx_step_status fault(ptx_cta *c, const ptx_inst *in, const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ptx_errf(c->err, sizeof c->err, c->m->name, in ? in->line : 0, "kernel %s, CTA (%u,%u,%u): %s", c->m->funcs[c->k->fn].name,
           c->id[0], c->id[1], c->id[2], msg);
  return PTX_STEP_ERROR;
}

const char *ptx_cta_error(const ptx_cta *c) { return c->err; }

/* ------------------------------------------------------------------ CTA setup */

static void fill_consts(ptx_cta *c, warp *w) {
  const ptx_kernel *k = c->k;
  for (uint32_t r = 0; r < k->nreach; ++r) {
    const ptx_func *f = &c->m->funcs[k->reach[r]];
    uint64_t *R = w->regs + (size_t)k->reg_base[k->reach[r]] * PTX_WARP;
    for (uint32_t i = 0; i < f->nconsts; ++i) {
      uint64_t *dst = R + (size_t)f->const_reg[i] * PTX_WARP;
      for (unsigned l = 0; l < PTX_WARP; ++l) dst[l] = f->const_val[i];
    }
    uint32_t *PR = w->preds + k->pred_base[k->reach[r]];
    PR[0] = 0;
    PR[1] = FULL;
  }
}

void ptx_cta_reset(ptx_cta *c, const uint32_t id[3]) {
  const ptx_kernel *k = c->k;
  const ptx_func *entry = &c->m->funcs[k->fn];
  memcpy(c->id, id, sizeof c->id);
  memset(c->shared, 0, c->shared_bytes);
  if (c->local) memset(c->local, 0, (size_t)c->lpt * c->nwarps * PTX_WARP);
  memset(c->regs, 0, (size_t)k->nregs * PTX_WARP * c->nwarps * sizeof *c->regs);
  memset(c->preds, 0, (size_t)k->npreds * c->nwarps * sizeof *c->preds);
  memset(c->bar_count, 0, sizeof c->bar_count);
  memset(c->bar_expect, 0, sizeof c->bar_expect);
  memset(c->red_sum, 0, sizeof c->red_sum);
  memset(c->red_or, 0, sizeof c->red_or);
  for (unsigned b = 0; b < 16; ++b) c->red_and[b] = 1;
  c->live_warps = c->nwarps;
  c->clock = 0;
  memset(c->map_ptr, 0, sizeof c->map_ptr);
  c->lg_base = 0;
  c->lg_stride = 0;
  c->err[0] = 0;
  for (uint32_t i = 0; i < c->nwarps; ++i) {
    warp *w = &c->w[i];
    w->regs = c->regs + (size_t)k->nregs * PTX_WARP * i;
    w->preds = c->preds + (size_t)k->npreds * i;
    fill_consts(c, w);
    w->fn = k->fn;
    w->R = w->regs + (size_t)k->reg_base[k->fn] * PTX_WARP;
    w->PR = w->preds + k->pred_base[k->fn];
    w->frame = 0;
    uint32_t first = i * PTX_WARP;
    uint32_t n = c->nthreads - first < PTX_WARP ? c->nthreads - first : PTX_WARP;
    w->exist = n == PTX_WARP ? FULL : (1u << n) - 1;
    w->sp = 1;
    w->csp = 0;
    w->stk[0].pc = entry->first_pc;
    w->stk[0].rpc = PTX_PC_NONE;
    w->stk[0].mask = w->exist;
    w->stk[0].call = 0;
    w->state = W_RUN;
    w->red_op = 0;
  }
}

int ptx_cta_init(ptx_cta **out, const ptx_launch *l, const uint32_t id[3], char *err, size_t errlen) {
  *out = NULL;
  const ptx_kernel *k = l->kernel;
  if (!k) {
    ptx_errf(err, errlen, "<ptx>", 0, "no kernel");
    return -1;
  }
  const ptx_module *m = k->mod;
  const ptx_func *entry = &m->funcs[k->fn];
  if (k->error) {
    snprintf(err, errlen, "%s", k->error);
    return -1;
  }
  uint64_t nt = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  if (nt == 0 || nt > 1024 || l->grid[0] == 0 || l->grid[1] == 0 || l->grid[2] == 0 || l->grid[1] > 65535 || l->grid[2] > 65535) {
    ptx_errf(err, errlen, m->name, entry->line, "kernel %s: launch dimensions grid (%u,%u,%u) block (%u,%u,%u): expected 1..1024 threads per block",
             entry->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
    return -1;
  }
  ptx_kernel_info ki = ptx_kernel_get_info(k);
  if (l->params_size != ki.param_bytes || (ki.param_bytes && !l->params)) {
    ptx_errf(err, errlen, m->name, entry->line, "kernel %s: parameter buffer of %zu bytes, expected %u", entry->name, l->params_size, ki.param_bytes);
    return -1;
  }
  if ((uint64_t)k->dyn_base + l->dyn_shared > (1u << 30)) {
    ptx_errf(err, errlen, m->name, entry->line, "kernel %s: shared memory exceeds 1 GiB", entry->name);
    return -1;
  }
  if (g_have_fma < 0) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    g_have_fma = __builtin_cpu_supports("fma") ? 1 : 0;
#else
    g_have_fma = 0;
#endif
  }
  ptx_cta *c = calloc(1, sizeof *c);
  if (!c) goto oom;
  c->l = *l;
  c->k = k;
  c->m = m;
  c->code = m->code;
  c->nthreads = (uint32_t)nt;
  c->nwarps = (uint32_t)((nt + PTX_WARP - 1) / PTX_WARP);
  c->param_bytes = ki.param_bytes;
  c->params = malloc(ki.param_bytes ? ki.param_bytes : 1);
  c->shared_bytes = k->dyn_base + l->dyn_shared;
  c->shared = malloc(c->shared_bytes ? c->shared_bytes : 1);
  c->lpt = k->local_bytes;
  c->local = c->lpt ? malloc((size_t)c->lpt * c->nwarps * PTX_WARP) : NULL;
  c->regs = malloc((size_t)k->nregs * PTX_WARP * c->nwarps * sizeof *c->regs);
  c->preds = malloc((size_t)(k->npreds ? k->npreds : 1) * c->nwarps * sizeof *c->preds);
  c->w = calloc(c->nwarps, sizeof *c->w);
  if (!c->params || !c->shared || (c->lpt && !c->local) || !c->regs || !c->preds || !c->w) goto oom;
  if (ki.param_bytes) memcpy(c->params, l->params, ki.param_bytes);
  ptx_cta_reset(c, id);
  *out = c;
  return 0;
oom:
  ptx_cta_free(c);
  ptx_errf(err, errlen, m->name, entry->line, "kernel %s: out of memory for a CTA", entry->name);
  return -1;
}

void ptx_cta_free(ptx_cta *c) {
  if (!c) return;
  free(c->params);
  free(c->shared);
  free(c->local);
  free(c->regs);
  free(c->preds);
  free(c->w);
  free(c);
}

unsigned ptx_cta_warps(const ptx_cta *c) { return c->nwarps; }
void ptx_cta_set_local(ptx_cta *c, uint64_t base, uint64_t stride) {
  c->lg_base = base;
  c->lg_stride = stride;
}
uint8_t *ptx_cta_shared(ptx_cta *c, uint32_t *bytes) {
  if (bytes) *bytes = c->shared_bytes;
  return c->shared;
}

/* ------------------------------------------------------------------ helpers */

#define LANES(stmt)                                                     \
  do {                                                                  \
    if (m == FULL) {                                                    \
      for (unsigned l = 0; l < PTX_WARP; ++l) {                         \
        stmt;                                                           \
      }                                                                 \
    } else {                                                            \
      for (uint32_t mm_ = m; mm_; mm_ &= mm_ - 1) {                     \
        unsigned l = (unsigned)__builtin_ctz(mm_);                      \
        stmt;                                                           \
      }                                                                 \
    }                                                                   \
  } while (0)

static inline uint64_t *reg(warp *w, uint16_t r) { return w->R + (size_t)r * PTX_WARP; }
static inline const uint64_t *sreg_or_zero(warp *w, uint16_t r) { return r == PTX_R_NONE ? kZero : w->R + (size_t)r * PTX_WARP; }

static uint64_t sym_value(const ptx_cta *c, const warp *w, const ptx_inst *in) {
  const ptx_kernel *k = c->k;
  uint64_t off = (uint64_t)in->imm;
  switch (in->sym) {
    case SYM_GLOBAL: return c->m->seg_base[0] + off;
    case SYM_CONST: return c->m->seg_base[1] + off;
    case SYM_SHARED_MOD: return off;
    case SYM_SHARED_FN: return k->shared_base[in->fn] + off;
    case SYM_SHARED_DYN: return k->dyn_base + off;
    case SYM_FRAME: return w->frame + off;
    case SYM_FRAME_PARAM: return (w->frame + off) | PTX_PARAM_FRAME_TAG;
    case SYM_KPARAM: return off;
    default: return off;
  }
}

static uint64_t sreg_value(const ptx_cta *c, unsigned wi, unsigned l, uint8_t sr) {
  uint32_t t = wi * PTX_WARP + l;
  const uint32_t *b = c->l.block;
  switch (sr) {
    case SR_TID_X: return t % b[0];
    case SR_TID_Y: return (t / b[0]) % b[1];
    case SR_TID_Z: return t / (b[0] * b[1]);
    case SR_NTID_X: return b[0];
    case SR_NTID_Y: return b[1];
    case SR_NTID_Z: return b[2];
    case SR_CTAID_X: return c->id[0];
    case SR_CTAID_Y: return c->id[1];
    case SR_CTAID_Z: return c->id[2];
    case SR_NCTAID_X: return c->l.grid[0];
    case SR_NCTAID_Y: return c->l.grid[1];
    case SR_NCTAID_Z: return c->l.grid[2];
    case SR_LANEID: return l;
    case SR_WARPID: return wi;
    case SR_NWARPID: return c->nwarps;
    case SR_SMID: return 0;
    case SR_NSMID: return 1;
    case SR_GRIDID: return 0;
    case SR_LANEMASK_EQ: return 1u << l;
    case SR_LANEMASK_LT: return (1u << l) - 1;
    case SR_LANEMASK_LE: return l == 31 ? FULL : (2u << l) - 1;
    case SR_LANEMASK_GT: return l == 31 ? 0 : ~((2u << l) - 1);
    case SR_LANEMASK_GE: return ~((1u << l) - 1);
    case SR_CLOCK: return (uint32_t)c->clock;
    default: return c->clock; /* clock64, globaltimer: instructions executed by the CTA */
  }
}

/* little-endian values of n <= 8 bytes (PTX memory is little-endian, as is the host) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PTX executor assumes a little-endian host"
#endif
static inline uint64_t ld_bytes(const uint8_t *p, unsigned n) {
  uint16_t h;
  uint32_t w;
  uint64_t d;
  switch (n) {
    case 1: return p[0];
    case 2: memcpy(&h, p, 2); return h;
    case 4: memcpy(&w, p, 4); return w;
    default: memcpy(&d, p, 8); return d;
  }
}
static inline void st_bytes(uint8_t *p, uint64_t v, unsigned n) {
  uint16_t h = (uint16_t)v;
  uint32_t w = (uint32_t)v;
  switch (n) {
    case 1: p[0] = (uint8_t)v; break;
    case 2: memcpy(p, &h, 2); break;
    case 4: memcpy(p, &w, 4); break;
    default: memcpy(p, &v, 8); break;
  }
}

/* Resolve the address of lane l for space sp: returns the space actually used (generic
 * resolves by window) and the address within it. */
static ptx_space resolve(ptx_space sp, uint64_t a, uint64_t *out) {
  if (sp == PTX_SPACE_PARAM && (a & PTX_PARAM_FRAME_TAG)) {
    *out = a & ~PTX_PARAM_FRAME_TAG;
    return PTX_SPACE_LOCAL;
  }
  if (sp != PTX_SPACE_GENERIC) {
    *out = a;
    return sp;
  }
  if (a >= PTX_WINDOW_SHARED) {
    *out = a - PTX_WINDOW_SHARED;
    return PTX_SPACE_SHARED;
  }
  if (a >= PTX_WINDOW_LOCAL) {
    *out = a - PTX_WINDOW_LOCAL;
    return PTX_SPACE_LOCAL;
  }
  if (a >= PTX_WINDOW_CONST) {
    *out = a - PTX_WINDOW_CONST;
    return PTX_SPACE_CONST;
  }
  *out = a;
  return PTX_SPACE_GLOBAL;
}

/* Pointer to n bytes of CTA-owned memory (shared, local of thread t, kernel params), or NULL. */
static uint8_t *cta_mem(ptx_cta *c, ptx_space sp, uint64_t a, unsigned n, uint32_t t) {
  switch (sp) {
    case PTX_SPACE_SHARED: return a + n <= c->shared_bytes && a + n >= a ? c->shared + a : NULL;
    case PTX_SPACE_LOCAL: return a + n <= c->lpt && a + n >= a ? c->local + (size_t)t * c->lpt + a : NULL;
    case PTX_SPACE_PARAM: return a + n <= c->param_bytes && a + n >= a ? c->params + a : NULL;
    default: return NULL;
  }
}

static const char *space_name(ptx_space sp) {
  static const char *n[] = {"generic", "global", "shared", "local", "param", "const"};
  return n[sp];
}

/* ------------------------------------------------------------------ fused multiply-add */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("fma"))) static void ffma32_hw(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C, uint32_t m) {
  LANES(D[l] = ptx_bits32(__builtin_fmaf(ptx_f32(A[l]), ptx_f32(B[l]), ptx_f32(C[l]))));
}
__attribute__((target("fma"))) static void ffma64_hw(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C, uint32_t m) {
  LANES(D[l] = ptx_bits64(__builtin_fma(ptx_f64(A[l]), ptx_f64(B[l]), ptx_f64(C[l]))));
}
#define HAVE_FMA_HW 1
#endif

static void ffma32(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C, uint32_t m) {
#ifdef HAVE_FMA_HW
  if (g_have_fma == 1) {
    ffma32_hw(D, A, B, C, m);
    return;
  }
#endif
  LANES(D[l] = ptx_bits32(fmaf(ptx_f32(A[l]), ptx_f32(B[l]), ptx_f32(C[l]))));
}
static void ffma64(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C, uint32_t m) {
#ifdef HAVE_FMA_HW
  if (g_have_fma == 1) {
    ffma64_hw(D, A, B, C, m);
    return;
  }
#endif
  LANES(D[l] = ptx_bits64(fma(ptx_f64(A[l]), ptx_f64(B[l]), ptx_f64(C[l]))));
}

/* ------------------------------------------------------------------ control flow */

static void remove_lanes(warp *w, uint32_t lanes, uint32_t down_to) {
  for (uint32_t i = w->sp; i-- > down_to;) w->stk[i].mask &= ~lanes;
}

static void set_window(ptx_cta *c, warp *w, uint32_t fn) {
  w->fn = fn;
  w->R = w->regs + (size_t)c->k->reg_base[fn] * PTX_WARP;
  w->PR = w->preds + c->k->pred_base[fn];
}

/* Pop finished entries; returns false when the warp has no entries left (it has exited). */
static bool settle(ptx_cta *c, warp *w) {
  while (w->sp) {
    stk_ent *e = &w->stk[w->sp - 1];
    if (e->mask != 0 && e->pc != e->rpc) return true;
    if (e->call && w->csp) {
      call_rec *r = &w->calls[--w->csp];
      w->frame = r->caller_frame;
      set_window(c, w, r->caller_fn);
    }
    w->sp--;
  }
  return false;
}

static void barrier_check(ptx_cta *c) {
  for (unsigned b = 0; b < 16; ++b) {
    if (!c->bar_count[b]) continue;
    uint32_t expect = c->bar_expect[b] ? c->bar_expect[b] : c->live_warps;
    if (expect > c->live_warps) expect = c->live_warps;
    if (c->bar_count[b] < expect) continue;
    for (uint32_t i = 0; i < c->nwarps; ++i) {
      warp *w = &c->w[i];
      if (w->state != W_BAR || w->bar_id != b) continue;
      w->state = W_RUN;
      if (w->red_op == G_POPC) {
        uint64_t *D = w->R + (size_t)w->red_dst * PTX_WARP;
        for (uint32_t mm = w->red_mask; mm; mm &= mm - 1) D[__builtin_ctz(mm)] = c->red_sum[b];
      } else if (w->red_op == G_AND || w->red_op == G_OR) {
        bool r = w->red_op == G_AND ? c->red_and[b] != 0 : c->red_or[b] != 0;
        w->PR[w->red_dst] = (w->PR[w->red_dst] & ~w->red_mask) | (r ? w->red_mask : 0);
      }
      w->red_op = 0;
    }
    c->bar_count[b] = 0;
    c->bar_expect[b] = 0;
    c->red_sum[b] = 0;
    c->red_and[b] = 1;
    c->red_or[b] = 0;
  }
}

static void warp_done(ptx_cta *c, warp *w) {
  w->state = W_DONE;
  c->live_warps--;
  barrier_check(c);
}

/* ------------------------------------------------------------------ memory */

/* Host pointer to n bytes at a through ptx_launch.map (the last region cached), or NULL. */
static inline uint8_t *mapped(ptx_cta *c, ptx_space sp, uint64_t a, unsigned n) {
  if (!c->l.map) return NULL;
  int s = sp == PTX_SPACE_CONST;
  if (c->map_ptr[s] && a - c->map_base[s] < c->map_len[s] && c->map_len[s] - (a - c->map_base[s]) >= n)
    return c->map_ptr[s] + (a - c->map_base[s]);
  uint64_t base = 0, len = 0;
  uint8_t *p = c->l.map(c->l.mem.ctx, sp, a, &base, &len);
  if (!p || a < base || a - base >= len || len - (a - base) < n) return NULL;
  c->map_ptr[s] = p;
  c->map_base[s] = base;
  c->map_len[s] = len;
  return p + (a - base);
}

static ptx_step_status do_mem(ptx_cta *c, warp *w, unsigned wi, const ptx_inst *in, uint32_t m, ptx_winst *out) {
  const unsigned eb = ptx_ty_bytes((ptx_ty)in->ty), vec = in->vec, n = eb * vec;
  const bool store = in->kind == K_ST;
  const uint64_t *B = sreg_or_zero(w, in->base);
  const uint64_t sv = sym_value(c, w, in);
  const ptx_space isp = (ptx_space)in->space;
  /* per instruction: the element registers and the extension of loaded elements */
  uint64_t *V[4];
  for (unsigned v = 0; v < vec; ++v) V[v] = reg(w, store ? in->s[v] : in->d[v]);
  const unsigned sh = 64 - 8 * eb;
  const bool sx = ptx_ty_signed((ptx_ty)in->ty) && eb < 8, wide = in->ty2;
  ptx_space first_sp = PTX_SPACE_GENERIC;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint64_t a = B[l] + sv;
    ptx_space sp = isp;
    if (isp == PTX_SPACE_GENERIC || isp == PTX_SPACE_PARAM) sp = resolve(isp, a, &a);
    if (first_sp == PTX_SPACE_GENERIC) first_sp = sp;
    unsigned th = wi * PTX_WARP + l;
    if (a & (n - 1)) return fault(c, in, "misaligned %s %s of %u bytes at %s address 0x%llx (thread %u)", space_name(sp), store ? "store" : "load", n,
                                  space_name(sp), (unsigned long long)a, th);
    uint8_t buf[32];
    uint8_t *p;
    if ((sp == PTX_SPACE_GLOBAL || sp == PTX_SPACE_CONST) && (p = mapped(c, sp, a, n)) != NULL) {
      if (store) {
        if (sp == PTX_SPACE_CONST) return fault(c, in, "store to const memory at 0x%llx", (unsigned long long)a);
        for (unsigned v = 0; v < vec; ++v) st_bytes(p + v * eb, V[v][l], eb);
      }
    } else if (sp == PTX_SPACE_GLOBAL || sp == PTX_SPACE_CONST) {
      p = buf;
      if (store) {
        if (sp == PTX_SPACE_CONST) return fault(c, in, "store to const memory at 0x%llx", (unsigned long long)a);
        for (unsigned v = 0; v < vec; ++v) st_bytes(buf + v * eb, V[v][l], eb);
        if (!c->l.mem.store || c->l.mem.store(c->l.mem.ctx, a, buf, n) != 0)
          return fault(c, in, "global store of %u bytes at 0x%llx faulted (thread %u)", n, (unsigned long long)a, th);
      } else if (!c->l.mem.load || c->l.mem.load(c->l.mem.ctx, sp, a, buf, n) != 0) {
        return fault(c, in, "%s load of %u bytes at 0x%llx faulted (thread %u)", space_name(sp), n, (unsigned long long)a, th);
      }
    } else if (sp == PTX_SPACE_LOCAL && c->lg_stride && isp != PTX_SPACE_PARAM && !in->fparam) {
      /* a .local variable in the caller's memory, word by word at its interleaved addresses */
      if (a + n > c->lpt || a + n < a)
        return fault(c, in, "local %s of %u bytes at local address 0x%llx is out of bounds (thread %u)", store ? "store" : "load", n,
                     (unsigned long long)a, th);
      p = buf;
      if (store)
        for (unsigned v = 0; v < vec; ++v) st_bytes(buf + v * eb, V[v][l], eb);
      const unsigned piece = n < 4 ? n : 4;
      for (unsigned o = 0; o < n; o += piece) {
        const uint64_t ga = ptx_local_addr(c->lg_base, c->lg_stride, th, a + o);
        uint8_t *q = mapped(c, PTX_SPACE_GLOBAL, ga, piece);
        if (q) {
          if (store) memcpy(q, buf + o, piece);
          else memcpy(buf + o, q, piece);
        } else if (store ? (!c->l.mem.store || c->l.mem.store(c->l.mem.ctx, ga, buf + o, piece) != 0)
                         : (!c->l.mem.load || c->l.mem.load(c->l.mem.ctx, PTX_SPACE_GLOBAL, ga, buf + o, piece) != 0)) {
          return fault(c, in, "local %s of %u bytes at 0x%llx (global 0x%llx) faulted (thread %u)", store ? "store" : "load", n,
                       (unsigned long long)a, (unsigned long long)ga, th);
        }
      }
    } else {
      p = cta_mem(c, sp, a, n, th);
      if (!p) return fault(c, in, "%s %s of %u bytes at %s address 0x%llx is out of bounds (thread %u)", space_name(sp), store ? "store" : "load", n,
                           space_name(sp), (unsigned long long)a, th);
      if (store)
        for (unsigned v = 0; v < vec; ++v) st_bytes(p + v * eb, V[v][l], eb);
    }
    if (!store)
      for (unsigned v = 0; v < vec; ++v) {
        uint64_t x = ld_bytes(p + v * eb, eb);
        if (sx) {
          int64_t sxv = (int64_t)(x << sh) >> sh;
          x = wide ? (uint64_t)sxv : (uint32_t)sxv;
        }
        V[v][l] = x;
      }
    if (out) {
      out->addr[l] = a;
      if (store && vec == 1) out->data[l] = V[0][l];
    }
  }
  if (out) {
    out->bytes = (uint8_t)n;
    out->is_store = store;
    out->space = (uint8_t)(first_sp == PTX_SPACE_GENERIC ? isp : first_sp);
    if (isp == PTX_SPACE_PARAM || in->fparam) out->space = PTX_SPACE_PARAM; /* a device function's parameter (its frame) */
    if (first_sp != PTX_SPACE_GENERIC && first_sp != isp) {
      out->cls = first_sp == PTX_SPACE_SHARED  ? PTX_IC_SHARED
                 : first_sp == PTX_SPACE_LOCAL ? PTX_IC_LOCAL
                 : first_sp == PTX_SPACE_CONST ? PTX_IC_CONST
                 : store                       ? PTX_IC_STORE
                                               : PTX_IC_LOAD;
    }
  }
  return PTX_STEP_OK;
}

/* n bytes (1-16, naturally aligned) of global or const memory for the texture unit and printf. */
static int read_mem(ptx_cta *c, ptx_space sp, uint64_t a, void *dst, unsigned n) {
  uint8_t *p = mapped(c, sp, a, n);
  if (p) {
    memcpy(dst, p, n);
    return 0;
  }
  return c->l.mem.load && c->l.mem.load(c->l.mem.ctx, sp, a, dst, n) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- textures */

static const char *tex_format_name(unsigned f) {
  return f == PTX_TEX_SIGNED ? "signed" : f == PTX_TEX_UNSIGNED ? "unsigned" : "float";
}

/* tex.1d.v4.DT.s32 (tex1Dfetch): per lane, the handle's descriptor (ptx_tex_desc, read
 * functionally: a texture unit keeps descriptors in its own cache), then element x of the bound
 * linear memory, each channel into one destination register (missing channels 0). In element
 * mode integer channels are sign- or zero-extended to 32 bits and float channels are the 32-bit
 * value; in normalized mode 8- and 16-bit integers become floats in [0, 1] (unsigned) or
 * [-1, 1] (signed). A coordinate outside [0, elements) returns zeros without a memory access,
 * as CUDA defines for tex1Dfetch. For a timing model the instruction is a global load of the
 * element by each lane that fetched one (the texture path of the L1, docs/ptx.md "Textures"). */
static ptx_step_status do_tex(ptx_cta *c, warp *w, unsigned wi, const ptx_inst *in, uint32_t m, ptx_winst *out) {
  const uint64_t *B = sreg_or_zero(w, in->base);
  const uint64_t sv = sym_value(c, w, in);
  const uint64_t *X = reg(w, in->s[0]);
  uint64_t *D[4];
  for (unsigned i = 0; i < 4; ++i) D[i] = reg(w, in->d[i]);
  ptx_tex_desc td;
  memset(&td, 0, sizeof td);
  uint64_t cur = 0;
  bool have = false;
  unsigned esz = 0, first_esz = 0;
  uint32_t fetched = 0;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm), th = wi * PTX_WARP + l;
    uint64_t h = B[l] + sv;
    if (!have || h != cur) {
      uint64_t ga = 0;
      uint64_t raw[4];
      bool ok = (h & 7) == 0 && resolve(PTX_SPACE_GENERIC, h, &ga) == PTX_SPACE_GLOBAL;
      for (unsigned i = 0; ok && i < 4; ++i) ok = read_mem(c, PTX_SPACE_GLOBAL, ga + 8 * i, &raw[i], 8) == 0;
      if (ok) memcpy(&td, raw, sizeof td);
      if (!ok || td.magic != PTX_TEX_MAGIC)
        return fault(c, in, "texture fetch through handle 0x%llx, which is not a texture object or a bound texture reference (thread %u)",
                     (unsigned long long)h, th);
      if (td.kind != PTX_TEX_LINEAR || (td.channels != 1 && td.channels != 2 && td.channels != 4) ||
          (td.bits != 8 && td.bits != 16 && td.bits != 32) || td.format > PTX_TEX_FLOAT ||
          (td.format == PTX_TEX_FLOAT && td.bits != 32) || td.read_mode > PTX_TEX_NORMALIZED ||
          (td.read_mode == PTX_TEX_NORMALIZED && (td.format == PTX_TEX_FLOAT || td.bits == 32)))
        return fault(c, in, "texture handle 0x%llx has a descriptor of a kind the executor does not implement (kind %u, %u channels of %u bits, format %u, read mode %u)",
                     (unsigned long long)h, td.kind, td.channels, td.bits, td.format, td.read_mode);
      esz = td.channels * td.bits / 8u;
      if (td.base % esz)
        return fault(c, in, "texture at 0x%llx is not aligned to its %u-byte elements", (unsigned long long)td.base, esz);
      const bool want_f = td.format == PTX_TEX_FLOAT || td.read_mode == PTX_TEX_NORMALIZED;
      if (want_f != (in->ty == TY_F32))
        return fault(c, in, "texture of %u %u-bit %s channels (%s read mode) fetched as .%s (thread %u)", td.channels, td.bits,
                     tex_format_name(td.format), td.read_mode == PTX_TEX_NORMALIZED ? "normalized-float" : "element-type",
                     in->ty == TY_F32 ? "f32" : in->ty == TY_S32 ? "s32" : "u32", th);
      have = true;
      cur = h;
    }
    int32_t x = (int32_t)X[l];
    uint64_t vals[4] = {0, 0, 0, 0};
    if (x >= 0 && (uint64_t)x < td.bytes / esz) {
      if (first_esz == 0) first_esz = esz;
      else if (esz != first_esz)
        return fault(c, in, "lanes of one tex instruction fetch elements of %u and %u bytes (thread %u)", first_esz, esz, th);
      uint64_t a = td.base + (uint64_t)x * esz;
      uint8_t buf[16];
      if (read_mem(c, PTX_SPACE_GLOBAL, a, buf, esz) != 0)
        return fault(c, in, "texture load of %u bytes at 0x%llx faulted (thread %u)", esz, (unsigned long long)a, th);
      const unsigned cb = td.bits / 8u, sh = 64 - td.bits;
      for (unsigned ch = 0; ch < td.channels; ++ch) {
        uint64_t r = ld_bytes(buf + ch * cb, cb);
        int64_t sx = (int64_t)(r << sh) >> sh;
        if (td.read_mode == PTX_TEX_NORMALIZED) {
          float f = td.format == PTX_TEX_SIGNED ? (float)sx / (float)((1u << (td.bits - 1)) - 1u)
                                                : (float)r / (float)((1u << td.bits) - 1u);
          if (f < -1.0f) f = -1.0f;
          vals[ch] = ptx_bits32(f);
        } else {
          vals[ch] = td.format == PTX_TEX_SIGNED ? (uint32_t)sx : (uint32_t)r;
        }
      }
      fetched |= 1u << l;
      if (out) out->addr[l] = a;
    }
    for (unsigned i = 0; i < 4; ++i) D[i][l] = vals[i];
  }
  if (out) {
    out->active = fetched;
    out->space = PTX_SPACE_GLOBAL;
    out->is_store = 0;
    out->bytes = (uint8_t)first_esz;
    if (!fetched) out->cls = PTX_IC_ALU; /* every coordinate out of range: no memory access */
  }
  return PTX_STEP_OK;
}

/* ---------------------------------------------------------------- kernel printf */

typedef struct print_rd {
  ptx_cta *c;
  unsigned th;
} print_rd;

/* a generic address of thread th (format, argument buffer, %s strings) */
static int print_read(void *ctx, uint64_t a, void *dst, unsigned n) {
  print_rd *r = (print_rd *)ctx;
  uint64_t sa = 0;
  ptx_space sp = resolve(PTX_SPACE_GENERIC, a, &sa);
  if (sp == PTX_SPACE_GLOBAL || sp == PTX_SPACE_CONST) return read_mem(r->c, sp, sa, dst, n);
  if (sp == PTX_SPACE_LOCAL && r->c->lg_stride) {
    /* .local variables in the caller's memory (ptx_cta_set_local): byte by byte at their interleaved addresses */
    if (sa + n > r->c->lpt || sa + n < sa) return -1;
    for (unsigned i = 0; i < n; ++i)
      if (read_mem(r->c, PTX_SPACE_GLOBAL, ptx_local_addr(r->c->lg_base, r->c->lg_stride, r->th, sa + i), (uint8_t *)dst + i, 1) != 0)
        return -1;
    return 0;
  }
  uint8_t *p = cta_mem(r->c, sp, sa, n, r->th);
  if (!p) return -1;
  memcpy(dst, p, n);
  return 0;
}

/* vprintf(fmt, args) per active lane in lane order (ptx_printf.c); the text goes to
 * ptx_launch.print. Functional only: a timing model sees a call (class branch) without memory
 * accesses. The return value is the number of arguments the format consumed. */
static ptx_step_status do_vprintf(ptx_cta *c, warp *w, unsigned wi, const ptx_inst *in, uint32_t m) {
  const ptx_call_info *ci = &c->m->calls[in->imm];
  const ptx_call_arg *args = &c->m->call_args[ci->first_arg];
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm), th = wi * PTX_WARP + l;
    uint8_t *fr = c->local + (size_t)th * c->lpt + w->frame;
    uint64_t fmt = ld_bytes(fr + args[0].off, 8), buf = ld_bytes(fr + args[1].off, 8);
    print_rd r = {c, th};
    int n = 0;
    char why[240];
    if (ptx_printf_run(print_read, &r, fmt, buf, c->l.print, c->l.mem.ctx, &n, why, sizeof why) != 0)
      return fault(c, in, "%s (thread %u)", why, th);
    if (ci->ret_size) st_bytes(fr + ci->ret_off, (uint32_t)n, 4);
  }
  return PTX_STEP_OK;
}

static ptx_atom_type atom_type(ptx_ty t) {
  switch (t) {
    case TY_S32: return PTX_ATY_S32;
    case TY_U64: case TY_B64: return PTX_ATY_U64;
    case TY_S64: return PTX_ATY_S64;
    case TY_F32: return PTX_ATY_F32;
    case TY_F64: return PTX_ATY_F64;
    default: return PTX_ATY_U32;
  }
}

static ptx_atom_op atom_op(uint8_t op) {
  switch (op) {
    case G_ADD: return PTX_ATOM_ADD;
    case G_MIN: return PTX_ATOM_MIN;
    case G_MAX: return PTX_ATOM_MAX;
    case G_EXCH: return PTX_ATOM_EXCH;
    case G_CAS: return PTX_ATOM_CAS;
    case G_INC: return PTX_ATOM_INC;
    case G_DEC: return PTX_ATOM_DEC;
    case G_AND: return PTX_ATOM_AND;
    case G_OR: return PTX_ATOM_OR;
    default: return PTX_ATOM_XOR;
  }
}

/* The atomic unit's arithmetic is models/ref/gpu/atomic.c, shared with the L2's atomic unit. */
_Static_assert((int)PTX_ATOM_XOR == (int)GPU_ATOM_XOR && (int)PTX_ATOM_CAS == (int)GPU_ATOM_CAS &&
                   (int)PTX_ATY_F64 == (int)GPU_ATY_F64 && (int)PTX_ATY_S32 == (int)GPU_ATY_S32,
               "ptx_atom_op/ptx_atom_type are numbered as gpu_atom_op/gpu_atom_type");
uint64_t ptx_atom_apply(ptx_atom_op op, ptx_atom_type ty, uint64_t old, uint64_t a, uint64_t b) {
  return gpu_atom_apply((gpu_atom_op)op, (gpu_atom_type)ty, old, a, b);
}

int ptx_warp_set_reg(ptx_cta *c, unsigned warp_i, uint32_t r, uint32_t lanes, const uint64_t *vals) {
  if (warp_i >= c->nwarps || r >= c->k->nregs) return -1;
  uint64_t *R = c->w[warp_i].regs + (size_t)r * PTX_WARP;
  for (uint32_t m = lanes; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    R[l] = vals[l];
  }
  return 0;
}

static ptx_step_status do_atom(ptx_cta *c, warp *w, unsigned wi, const ptx_inst *in, uint32_t m, ptx_winst *out) {
  unsigned n = ptx_ty_bytes((ptx_ty)in->ty);
  const uint64_t *B = sreg_or_zero(w, in->base);
  const uint64_t *S0 = reg(w, in->s[0]);
  const uint64_t *S1 = sreg_or_zero(w, in->s[1]);
  uint64_t *D = reg(w, in->d[0]);
  uint64_t sv = sym_value(c, w, in);
  ptx_atom_op op = atom_op(in->op);
  ptx_atom_type ty = atom_type((ptx_ty)in->ty);
  ptx_space first_sp = PTX_SPACE_GENERIC;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint64_t a, old;
    ptx_space sp = resolve((ptx_space)in->space, B[l] + sv, &a);
    if (first_sp == PTX_SPACE_GENERIC) first_sp = sp;
    if (a & (n - 1)) return fault(c, in, "misaligned atomic at %s address 0x%llx (thread %u)", space_name(sp), (unsigned long long)a, wi * PTX_WARP + l);
    if (sp == PTX_SPACE_GLOBAL) {
      if (c->l.mem.atomic) {
        if (c->l.mem.atomic(c->l.mem.ctx, a, op, ty, S0[l], S1[l], &old) != 0)
          return fault(c, in, "global atomic at 0x%llx faulted (thread %u)", (unsigned long long)a, wi * PTX_WARP + l);
      } else {
        uint8_t buf[8];
        if (!c->l.mem.load || c->l.mem.load(c->l.mem.ctx, PTX_SPACE_GLOBAL, a, buf, n) != 0)
          return fault(c, in, "global atomic at 0x%llx faulted (thread %u)", (unsigned long long)a, wi * PTX_WARP + l);
        old = ld_bytes(buf, n);
        st_bytes(buf, ptx_atom_apply(op, ty, old, S0[l], S1[l]), n);
        if (!c->l.mem.store || c->l.mem.store(c->l.mem.ctx, a, buf, n) != 0)
          return fault(c, in, "global atomic at 0x%llx faulted (thread %u)", (unsigned long long)a, wi * PTX_WARP + l);
      }
    } else if (sp == PTX_SPACE_SHARED) {
      uint8_t *p = cta_mem(c, sp, a, n, 0);
      if (!p) return fault(c, in, "shared atomic at 0x%llx is out of bounds (thread %u)", (unsigned long long)a, wi * PTX_WARP + l);
      old = ld_bytes(p, n);
      st_bytes(p, ptx_atom_apply(op, ty, old, S0[l], S1[l]), n);
    } else {
      return fault(c, in, "atomic on %s memory (address 0x%llx, thread %u)", space_name(sp), (unsigned long long)a, wi * PTX_WARP + l);
    }
    D[l] = old;
    if (out) out->addr[l] = a;
  }
  if (out) {
    out->bytes = (uint8_t)n;
    out->is_store = 2;
    out->space = (uint8_t)(first_sp == PTX_SPACE_GENERIC ? PTX_SPACE_GLOBAL : first_sp);
    out->cls = first_sp == PTX_SPACE_SHARED ? PTX_IC_SHARED : PTX_IC_ATOMIC;
  }
  return PTX_STEP_OK;
}

/* ------------------------------------------------------------------ warp-wide */

static void do_shfl(warp *w, const ptx_inst *in, uint32_t m) {
  const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]), *Cv = reg(w, in->s[2]);
  uint64_t *D = reg(w, in->d[0]);
  uint64_t src[PTX_WARP];
  memcpy(src, A, sizeof src);
  uint32_t pv = 0;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint32_t b = (uint32_t)Bv[l] & 31, cc = (uint32_t)Cv[l];
    uint32_t cval = cc & 31, seg = (cc >> 8) & 31;
    uint32_t maxl = (l & seg) | (cval & ~seg), minl = l & seg;
    int32_t j;
    bool ok;
    switch (in->op) {
      case G_UP: j = (int32_t)l - (int32_t)b; ok = j >= (int32_t)maxl; break;
      case G_DOWN: j = (int32_t)l + (int32_t)b; ok = j <= (int32_t)maxl; break;
      case G_BFLY: j = (int32_t)(l ^ b); ok = j <= (int32_t)maxl; break;
      default: j = (int32_t)(minl | (b & ~seg)); ok = j <= (int32_t)maxl; break;
    }
    if (!ok) j = (int32_t)l;
    D[l] = (uint32_t)src[j];
    if (ok) pv |= 1u << l;
  }
  if (in->mod & MOD_HAS_Q) w->PR[in->d[1]] = (w->PR[in->d[1]] & ~m) | (pv & m);
}

/* ------------------------------------------------------------------ one instruction */

static inline uint32_t bop(uint8_t op, uint32_t a, uint32_t b) {
  return op == BOP_AND ? (a & b) : op == BOP_OR ? (a | b) : (a ^ b);
}

#define SETP_LOOP(T, cond)                                   \
  for (unsigned l = 0; l < PTX_WARP; ++l) {                  \
    T a = (T)A[l], b = (T)Bv[l];                             \
    t |= (uint32_t)(cond) << l;                              \
  }

static ptx_step_status step(ptx_cta *c, unsigned wi, ptx_winst *out) {
  warp *w = &c->w[wi];
  if (w->state == W_DONE) return PTX_STEP_EXITED;
  if (w->state == W_BAR) return PTX_STEP_WAITING;
  if (!settle(c, w)) {
    warp_done(c, w);
    return PTX_STEP_EXITED;
  }
  stk_ent *e = &w->stk[w->sp - 1];
  const ptx_inst *in = &c->code[e->pc];
  uint32_t act = e->mask, m = act;
  if (in->guard != PTX_R_NONE) {
    uint32_t g = w->PR[in->guard];
    m &= in->guard_neg ? ~g : g;
  }
  c->clock++;
  if (out) {
    out->cls = (ptx_iclass)in->cls;
    out->active = m;
    out->pc = e->pc;
    out->line = in->line;
    uint32_t rb = c->k->reg_base[w->fn];
    out->dst = in->d[0] == PTX_R_NONE || in->kind == K_SETP_I32 || in->kind == K_SETP_I64 || in->kind == K_SETP_F32 ||
                       in->kind == K_SETP_F64 || in->kind == K_SETP_GEN || in->kind == K_PRED_LOGIC || in->kind == K_MOV_PRED ||
                       (in->kind == K_VOTE && in->op != G_BALLOT)
                   ? PTX_NOREG
                   : rb + in->d[0];
    for (int i = 0; i < 3; ++i) out->src[i] = in->s[i] == PTX_R_NONE ? PTX_NOREG : rb + in->s[i];
    if (in->base != PTX_R_NONE) out->src[2] = rb + in->base;
    out->bytes = 0;
    out->is_store = 0;
    out->space = 0;
  }
  ptx_step_status st = PTX_STEP_OK;
  uint32_t next = e->pc + 1;
  if (m == 0) goto advance;
  switch ((ptx_kind)in->kind) {
    case K_NOP:
    case K_MEMBAR: break;
    case K_MOV: {
      unsigned wb = ptx_ty_bytes((ptx_ty)in->ty);
      uint64_t wm = wb >= 8 ? ~0ull : (1ull << (8 * wb)) - 1;
      if (in->vec == 1) {
        uint64_t *D = reg(w, in->d[0]);
        const uint64_t *A = reg(w, in->s[0]);
        LANES(D[l] = A[l] & wm);
      } else {
        unsigned eb = wb / in->vec;
        uint64_t em = eb >= 8 ? ~0ull : (1ull << (8 * eb)) - 1;
        if (in->ty2 == 1) {
          uint64_t *D = reg(w, in->d[0]);
          LANES({
            uint64_t v = 0;
            for (unsigned i = 0; i < in->vec; ++i) v |= (reg(w, in->s[i])[l] & em) << (8 * eb * i);
            D[l] = v;
          });
        } else {
          const uint64_t *A = reg(w, in->s[0]);
          LANES({
            uint64_t v = A[l];
            for (unsigned i = 0; i < in->vec; ++i) reg(w, in->d[i])[l] = (v >> (8 * eb * i)) & em;
          });
        }
      }
      break;
    }
    case K_MOV_PRED: {
      uint32_t v = w->PR[in->pa];
      if (in->mod & MOD_NEG_C) v = ~v;
      w->PR[in->d[0]] = (w->PR[in->d[0]] & ~m) | (v & m);
      break;
    }
    case K_SREG: {
      uint64_t *D = reg(w, in->d[0]);
      bool w64 = ptx_ty_bytes((ptx_ty)in->ty) == 8;
      LANES({
        uint64_t v = sreg_value(c, wi, l, in->op);
        D[l] = w64 ? v : (uint32_t)v;
      });
      break;
    }
    case K_SYMADDR: {
      uint64_t *D = reg(w, in->d[0]);
      uint64_t v = sym_value(c, w, in);
      if (ptx_ty_bytes((ptx_ty)in->ty) < 8) v = (uint32_t)v;
      LANES(D[l] = v);
      break;
    }
#define BIN(K, expr)                                                       \
  case K: {                                                                \
    uint64_t *D = reg(w, in->d[0]);                                        \
    const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]);          \
    LANES(D[l] = (expr));                                                  \
    break;                                                                 \
  }
      BIN(K_ADD32, (uint32_t)(A[l] + Bv[l]))
      BIN(K_ADD64, A[l] + Bv[l])
      BIN(K_SUB32, (uint32_t)(A[l] - Bv[l]))
      BIN(K_SUB64, A[l] - Bv[l])
      BIN(K_MULLO32, (uint32_t)((uint32_t)A[l] * (uint32_t)Bv[l]))
      BIN(K_MULLO64, A[l] * Bv[l])
      BIN(K_MULWIDE_S32, (uint64_t)((int64_t)(int32_t)(uint32_t)A[l] * (int64_t)(int32_t)(uint32_t)Bv[l]))
      BIN(K_MULWIDE_U32, (uint64_t)(uint32_t)A[l] * (uint32_t)Bv[l])
      BIN(K_AND32, (uint32_t)(A[l] & Bv[l]))
      BIN(K_AND64, A[l] & Bv[l])
      BIN(K_OR32, (uint32_t)(A[l] | Bv[l]))
      BIN(K_OR64, A[l] | Bv[l])
      BIN(K_XOR32, (uint32_t)(A[l] ^ Bv[l]))
      BIN(K_XOR64, A[l] ^ Bv[l])
      BIN(K_SHL32, (uint32_t)Bv[l] > 31 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)Bv[l]))
      BIN(K_SHL64, (uint32_t)Bv[l] > 63 ? 0 : A[l] << (uint32_t)Bv[l])
      BIN(K_SHRU32, (uint32_t)Bv[l] > 31 ? 0 : (uint32_t)A[l] >> (uint32_t)Bv[l])
      BIN(K_SHRU64, (uint32_t)Bv[l] > 63 ? 0 : A[l] >> (uint32_t)Bv[l])
      BIN(K_SHRS32, (uint32_t)((int32_t)(uint32_t)A[l] >> ((uint32_t)Bv[l] > 31 ? 31 : (uint32_t)Bv[l])))
      BIN(K_SHRS64, (uint64_t)((int64_t)A[l] >> ((uint32_t)Bv[l] > 63 ? 63 : (uint32_t)Bv[l])))
      BIN(K_FADD32, ptx_bits32(ptx_f32(A[l]) + ptx_f32(Bv[l])))
      BIN(K_FSUB32, ptx_bits32(ptx_f32(A[l]) - ptx_f32(Bv[l])))
      BIN(K_FMUL32, ptx_bits32(ptx_f32(A[l]) * ptx_f32(Bv[l])))
      BIN(K_FADD64, ptx_bits64(ptx_f64(A[l]) + ptx_f64(Bv[l])))
      BIN(K_FSUB64, ptx_bits64(ptx_f64(A[l]) - ptx_f64(Bv[l])))
      BIN(K_FMUL64, ptx_bits64(ptx_f64(A[l]) * ptx_f64(Bv[l])))
#undef BIN
#define UN(K, expr)                                                        \
  case K: {                                                                \
    uint64_t *D = reg(w, in->d[0]);                                        \
    const uint64_t *A = reg(w, in->s[0]);                                  \
    LANES(D[l] = (expr));                                                  \
    break;                                                                 \
  }
      UN(K_CVT_ZX32_64, (uint32_t)A[l])
      UN(K_CVT_SX32_64, (uint64_t)(int64_t)(int32_t)(uint32_t)A[l])
      UN(K_CVT_TRUNC64_32, (uint32_t)A[l])
#undef UN
    case K_MAD32: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]), *Cv = reg(w, in->s[2]);
      LANES(D[l] = (uint32_t)((uint32_t)A[l] * (uint32_t)Bv[l] + (uint32_t)Cv[l]));
      break;
    }
    case K_MAD64: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]), *Cv = reg(w, in->s[2]);
      LANES(D[l] = A[l] * Bv[l] + Cv[l]);
      break;
    }
    case K_FFMA32: ffma32(reg(w, in->d[0]), reg(w, in->s[0]), reg(w, in->s[1]), reg(w, in->s[2]), m); break;
    case K_FFMA64: ffma64(reg(w, in->d[0]), reg(w, in->s[0]), reg(w, in->s[1]), reg(w, in->s[2]), m); break;
    case K_IGEN: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = sreg_or_zero(w, in->s[0]), *Bv = sreg_or_zero(w, in->s[1]), *Cv = sreg_or_zero(w, in->s[2]),
                     *Ev = sreg_or_zero(w, in->s[3]);
      LANES(D[l] = ptx_igen(in, A[l], Bv[l], Cv[l], Ev[l]));
      break;
    }
    case K_FGEN32: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = sreg_or_zero(w, in->s[0]), *Bv = sreg_or_zero(w, in->s[1]), *Cv = sreg_or_zero(w, in->s[2]);
      LANES(D[l] = ptx_fgen32(in, A[l], Bv[l], Cv[l]));
      break;
    }
    case K_FGEN64: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = sreg_or_zero(w, in->s[0]), *Bv = sreg_or_zero(w, in->s[1]), *Cv = sreg_or_zero(w, in->s[2]);
      LANES(D[l] = ptx_fgen64(in, A[l], Bv[l], Cv[l]));
      break;
    }
    case K_CVT_GEN: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]);
      LANES(D[l] = ptx_cvt(in, A[l]));
      break;
    }
    case K_CVTA: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]);
      uint64_t win = in->space == PTX_SPACE_SHARED ? PTX_WINDOW_SHARED
                     : in->space == PTX_SPACE_LOCAL ? PTX_WINDOW_LOCAL
                     : in->space == PTX_SPACE_CONST ? PTX_WINDOW_CONST
                                                    : 0;
      bool w32 = ptx_ty_bytes((ptx_ty)in->ty) == 4;
      if (in->vec) { /* .to: generic -> space */
        LANES({
          uint64_t v = A[l] >= win ? A[l] - win : A[l];
          D[l] = w32 ? (uint32_t)v : v;
        });
      } else {
        LANES({
          uint64_t v = A[l] + win;
          D[l] = w32 ? (uint32_t)v : v;
        });
      }
      break;
    }
    case K_SETP_I32:
    case K_SETP_I64:
    case K_SETP_F32:
    case K_SETP_F64:
    case K_SETP_GEN: {
      const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]);
      uint32_t t = 0;
      bool sg = ptx_ty_signed((ptx_ty)in->ty);
      if (in->kind == K_SETP_I32 && sg) {
        switch (in->op) {
          case CMP_EQ: SETP_LOOP(int32_t, a == b); break;
          case CMP_NE: SETP_LOOP(int32_t, a != b); break;
          case CMP_LT: SETP_LOOP(int32_t, a < b); break;
          case CMP_LE: SETP_LOOP(int32_t, a <= b); break;
          case CMP_GT: SETP_LOOP(int32_t, a > b); break;
          case CMP_GE: SETP_LOOP(int32_t, a >= b); break;
          default: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)ptx_icmp((ptx_cmp)in->op, (ptx_ty)in->ty, A[l], Bv[l]) << l;
        }
      } else if (in->kind == K_SETP_I32) {
        switch (in->op) {
          case CMP_EQ: SETP_LOOP(uint32_t, a == b); break;
          case CMP_NE: SETP_LOOP(uint32_t, a != b); break;
          case CMP_LT: case CMP_LO: SETP_LOOP(uint32_t, a < b); break;
          case CMP_LE: case CMP_LS: SETP_LOOP(uint32_t, a <= b); break;
          case CMP_GT: case CMP_HI: SETP_LOOP(uint32_t, a > b); break;
          default: SETP_LOOP(uint32_t, a >= b); break;
        }
      } else if (in->kind == K_SETP_I64 && sg) {
        switch (in->op) {
          case CMP_EQ: SETP_LOOP(int64_t, a == b); break;
          case CMP_NE: SETP_LOOP(int64_t, a != b); break;
          case CMP_LT: SETP_LOOP(int64_t, a < b); break;
          case CMP_LE: SETP_LOOP(int64_t, a <= b); break;
          case CMP_GT: SETP_LOOP(int64_t, a > b); break;
          case CMP_GE: SETP_LOOP(int64_t, a >= b); break;
          default: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)ptx_icmp((ptx_cmp)in->op, (ptx_ty)in->ty, A[l], Bv[l]) << l;
        }
      } else if (in->kind == K_SETP_I64) {
        switch (in->op) {
          case CMP_EQ: SETP_LOOP(uint64_t, a == b); break;
          case CMP_NE: SETP_LOOP(uint64_t, a != b); break;
          case CMP_LT: case CMP_LO: SETP_LOOP(uint64_t, a < b); break;
          case CMP_LE: case CMP_LS: SETP_LOOP(uint64_t, a <= b); break;
          case CMP_GT: case CMP_HI: SETP_LOOP(uint64_t, a > b); break;
          default: SETP_LOOP(uint64_t, a >= b); break;
        }
      } else if (in->kind == K_SETP_F32) {
        switch (in->op) {
          case CMP_LT: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)(ptx_f32(A[l]) < ptx_f32(Bv[l])) << l; break;
          case CMP_GT: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)(ptx_f32(A[l]) > ptx_f32(Bv[l])) << l; break;
          case CMP_LE: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)(ptx_f32(A[l]) <= ptx_f32(Bv[l])) << l; break;
          case CMP_GE: for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)(ptx_f32(A[l]) >= ptx_f32(Bv[l])) << l; break;
          default:
            for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)ptx_fcmp((ptx_cmp)in->op, ptx_f32(A[l]), ptx_f32(Bv[l])) << l;
        }
      } else if (in->kind == K_SETP_F64) {
        for (unsigned l = 0; l < PTX_WARP; ++l) t |= (uint32_t)ptx_fcmp((ptx_cmp)in->op, ptx_f64(A[l]), ptx_f64(Bv[l])) << l;
      } else if (in->op & 0x80) { /* testp */
        for (unsigned l = 0; l < PTX_WARP; ++l) {
          double v = in->ty == TY_F32 ? (double)ptx_f32(A[l]) : ptx_f64(A[l]);
          int cl = in->ty == TY_F32 ? fpclassify(ptx_f32(A[l])) : fpclassify(v);
          bool r;
          switch (in->op & 7) {
            case 0: r = isfinite(v); break;
            case 1: r = isinf(v); break;
            case 2: r = !isnan(v); break;
            case 3: r = isnan(v); break;
            case 4: r = cl == FP_NORMAL; break;
            default: r = cl == FP_SUBNORMAL; break;
          }
          t |= (uint32_t)r << l;
        }
      } else {
        for (unsigned l = 0; l < PTX_WARP; ++l) {
          bool r;
          if (in->ty == TY_F32) {
            float a = ptx_f32(A[l]), b = ptx_f32(Bv[l]);
            if (in->mod & MOD_FTZ) {
              if (fpclassify(a) == FP_SUBNORMAL) a = copysignf(0.0f, a);
              if (fpclassify(b) == FP_SUBNORMAL) b = copysignf(0.0f, b);
            }
            r = ptx_fcmp((ptx_cmp)in->op, a, b);
          } else {
            r = ptx_icmp((ptx_cmp)in->op, (ptx_ty)in->ty, A[l], Bv[l]);
          }
          t |= (uint32_t)r << l;
        }
      }
      uint32_t r = t, q = ~t;
      if (in->mod & MOD_HAS_C) {
        uint32_t cm = w->PR[in->pa];
        if (in->mod & MOD_NEG_C) cm = ~cm;
        r = bop(in->space, t, cm);
        q = bop(in->space, ~t, cm);
      }
      w->PR[in->d[0]] = (w->PR[in->d[0]] & ~m) | (r & m);
      if (in->mod & MOD_HAS_Q) w->PR[in->d[1]] = (w->PR[in->d[1]] & ~m) | (q & m);
      break;
    }
    case K_SELP: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]);
      uint32_t cm = w->PR[in->pa];
      if (in->mod & MOD_NEG_C) cm = ~cm;
      LANES(D[l] = (cm >> l) & 1 ? A[l] : Bv[l]);
      break;
    }
    case K_SLCT: {
      uint64_t *D = reg(w, in->d[0]);
      const uint64_t *A = reg(w, in->s[0]), *Bv = reg(w, in->s[1]), *Cv = reg(w, in->s[2]);
      if (in->ty2 == TY_F32) {
        LANES(D[l] = ptx_f32(Cv[l]) >= 0.0f ? A[l] : Bv[l]);
      } else {
        LANES(D[l] = (int32_t)(uint32_t)Cv[l] >= 0 ? A[l] : Bv[l]);
      }
      break;
    }
    case K_PRED_LOGIC: {
      uint32_t a = w->PR[in->pa], r;
      if (in->mod & MOD_NEG_C) a = ~a;
      uint32_t b = in->pb == PTX_R_NONE ? 0 : w->PR[in->pb];
      if (in->mod & MOD_HAS_C) b = ~b;
      switch (in->op) {
        case G_AND: r = a & b; break;
        case G_OR: r = a | b; break;
        case G_XOR: r = a ^ b; break;
        default: r = ~a; break;
      }
      w->PR[in->d[0]] = (w->PR[in->d[0]] & ~m) | (r & m);
      break;
    }
    case K_LD:
    case K_ST:
      st = do_mem(c, w, wi, in, m, out);
      if (st != PTX_STEP_OK) return st;
      break;
    case K_ATOM:
      st = do_atom(c, w, wi, in, m, out);
      if (st != PTX_STEP_OK) return st;
      break;
    case K_TEX:
      st = do_tex(c, w, wi, in, m, out);
      if (st != PTX_STEP_OK) return st;
      break;
    case K_VPRINTF:
      st = do_vprintf(c, w, wi, in, m);
      if (st != PTX_STEP_OK) return st;
      break;
    case K_VOTE: {
      /* vote.sync: each lane votes over the lanes of its own member mask (a register operand may
       * differ per lane, e.g. two half-warp tiles voting in one instruction) */
      const uint64_t *M = in->s[0] == PTX_R_NONE ? NULL : reg(w, in->s[0]);
      uint32_t pv0 = w->PR[in->pa];
      if (in->mod & MOD_NEG_C) pv0 = ~pv0;
      uint64_t *D = in->op == G_BALLOT ? reg(w, in->d[0]) : NULL;
      uint32_t res = 0;
      for (uint32_t rest = m; rest; rest &= rest - 1) {
        const unsigned l = (unsigned)__builtin_ctz(rest);
        const uint32_t part = m & (M ? (uint32_t)M[l] : FULL), pv = pv0 & part;
        if (D)
          D[l] = pv;
        else if (in->op == G_ALL ? pv == part : in->op == G_ANY ? pv != 0 : (pv == 0 || pv == part))
          res |= 1u << l;
      }
      if (!D) w->PR[in->d[0]] = (w->PR[in->d[0]] & ~m) | res;
      break;
    }
    case K_SHFL: do_shfl(w, in, m); break;
    case K_ACTIVEMASK: {
      uint64_t *D = reg(w, in->d[0]);
      LANES(D[l] = act);
      break;
    }
    case K_BRA: {
      uint32_t taken = m, fall = act & ~m;
      if (!taken) break;
      if (!fall) {
        next = in->target;
        break;
      }
      /* divergence: the top entry waits at the reconvergence point; one entry per side */
      uint32_t R = in->reconv, fpc = e->pc + 1;
      if (w->sp + 2 > MAX_STACK) return fault(c, in, "reconvergence stack overflow (more than %d nested divergent branches)", MAX_STACK / 2);
      if (R == e->rpc && !e->call) {
        /* the top entry already waits for R below: it carries the fall-through lanes */
        e->pc = fpc;
        e->mask = fpc == R ? 0 : fall;
      } else {
        e->pc = R;
        if (fpc != R) {
          stk_ent *f = &w->stk[w->sp++];
          f->pc = fpc;
          f->rpc = R;
          f->mask = fall;
          f->call = 0;
        }
      }
      if (in->target != R) {
        stk_ent *t = &w->stk[w->sp++];
        t->pc = in->target;
        t->rpc = R;
        t->mask = taken;
        t->call = 0;
      }
      goto done;
    }
    case K_CALL: {
      const ptx_call_info *ci = &c->m->calls[in->imm];
      const ptx_func *callee = &c->m->funcs[in->target];
      const ptx_func *caller = &c->m->funcs[w->fn];
      if (w->csp == MAX_CALLS || w->sp + 1 > MAX_STACK) return fault(c, in, "call depth exceeds %d", MAX_CALLS);
      uint32_t frame = w->frame + ((caller->frame_bytes + 15u) & ~15u);
      for (uint32_t mm = ci->nargs ? m : 0; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint8_t *lm = c->local + (size_t)(wi * PTX_WARP + l) * c->lpt;
        for (uint32_t i = 0; i < ci->nargs && i < callee->nparams; ++i) {
          const ptx_call_arg *a = &c->m->call_args[ci->first_arg + i];
          uint32_t n = a->size < callee->params[i].size ? a->size : callee->params[i].size;
          memmove(lm + frame + callee->params[i].offset, lm + w->frame + a->off, n);
        }
      }
      e->pc = next;
      call_rec *r = &w->calls[w->csp++];
      r->caller_fn = w->fn;
      r->caller_frame = w->frame;
      r->stk_index = w->sp;
      r->ci = ci;
      stk_ent *f = &w->stk[w->sp++];
      f->pc = callee->first_pc;
      f->rpc = PTX_PC_NONE;
      f->mask = m;
      f->call = 1;
      w->frame = frame;
      set_window(c, w, in->target);
      goto done;
    }
    case K_CALL_NATIVE: {
      const ptx_call_info *ci = &c->m->calls[in->imm];
      const ptx_call_arg *args = &c->m->call_args[ci->first_arg];
      for (uint32_t mm = m; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        uint8_t *fr = c->local + (size_t)(wi * PTX_WARP + l) * c->lpt + w->frame;
        uint64_t a = ld_bytes(fr + args[0].off, args[0].size);
        uint64_t b = ci->nargs > 1 ? ld_bytes(fr + args[1].off, args[1].size) : 0;
        st_bytes(fr + ci->ret_off, ptx_native_eval(in->op, a, b), ci->ret_size);
      }
      break;
    }
    case K_RET:
      if (w->csp) {
        call_rec *r = &w->calls[w->csp - 1];
        const ptx_func *callee = &c->m->funcs[w->fn];
        uint32_t n = r->ci->ret_size < callee->ret.size ? r->ci->ret_size : callee->ret.size;
        if (n)
          for (uint32_t mm = m; mm; mm &= mm - 1) {
            unsigned l = (unsigned)__builtin_ctz(mm);
            uint8_t *lm = c->local + (size_t)(wi * PTX_WARP + l) * c->lpt;
            memmove(lm + r->caller_frame + r->ci->ret_off, lm + w->frame + callee->ret.offset, n);
          }
        e->pc = next;
        remove_lanes(w, m, r->stk_index);
        goto done;
      }
      goto exit_lanes; /* ret of the kernel is exit */
    case K_EXIT:
    exit_lanes:
      if (out) out->cls = PTX_IC_EXIT;
      e->pc = next;
      remove_lanes(w, m, 0);
      if (!settle(c, w)) {
        warp_done(c, w);
        return PTX_STEP_EXITED;
      }
      goto done;
    case K_TRAP:
      return fault(c, in, "trap executed (thread %u)", wi * PTX_WARP + (unsigned)__builtin_ctz(m));
    case K_BAR: {
      const uint64_t *A = reg(w, in->s[0]);
      unsigned first = act ? (unsigned)__builtin_ctz(act) : 0;
      uint32_t id = (uint32_t)A[first];
      if (id >= 16) return fault(c, in, "barrier id %u (expected 0..15)", id);
      if (in->s[1] != PTX_R_NONE) {
        uint32_t cnt = (uint32_t)reg(w, in->s[1])[first];
        if (cnt == 0 || cnt % PTX_WARP) return fault(c, in, "barrier thread count %u (expected a multiple of 32)", cnt);
        c->bar_expect[id] = cnt / PTX_WARP;
      }
      if (in->op) {
        /* bar.red: this warp's lanes join the CTA-wide reduction; results arrive at release */
        uint32_t pv = w->PR[in->pa];
        if (in->mod & MOD_NEG_C) pv = ~pv;
        pv &= m;
        c->red_sum[id] += (uint32_t)__builtin_popcount(pv);
        if (pv != m) c->red_and[id] = 0;
        if (pv) c->red_or[id] = 1;
        w->red_op = in->op;
        w->red_dst = in->d[0];
        w->red_mask = m;
      }
      e->pc = next;
      w->state = W_BAR;
      w->bar_id = id;
      c->bar_count[id]++;
      barrier_check(c);
      return PTX_STEP_BARRIER;
    }
    case K_COUNT: break;
  }
advance:
  e->pc = next;
done:
  return st;
}

ptx_step_status ptx_warp_step(ptx_cta *c, unsigned warp_i, ptx_winst *out) {
  if (warp_i >= c->nwarps) return fault(c, NULL, "no warp %u (the CTA has %u)", warp_i, c->nwarps);
  if (c->err[0]) return PTX_STEP_ERROR;
  return step(c, warp_i, out);
}

int ptx_warp_next_independent(ptx_cta *c, unsigned warp_i, uint32_t r, const uint64_t *addr, uint32_t lanes, int atom_ok) {
  if (warp_i >= c->nwarps || c->err[0]) return 0;
  warp *w = &c->w[warp_i];
  if (w->state != W_RUN || !settle(c, w)) return 0;
  const stk_ent *e = &w->stk[w->sp - 1];
  const ptx_inst *in = &c->code[e->pc];
  switch ((ptx_kind)in->kind) {
    case K_ATOM:
      if (!atom_ok) return 0;
      break;
    case K_CALL: case K_CALL_NATIVE: case K_RET: case K_EXIT: case K_TRAP: case K_BAR: case K_MEMBAR:
    case K_TEX: case K_VPRINTF:
      return 0;
    default: break;
  }
  if (r != PTX_NOREG) {
    const uint32_t rb = c->k->reg_base[w->fn];
    /* another atomic may write the same destination (its caller delivers only the newest's values) */
    const int skip_d0 = in->kind == K_ATOM;
    for (int i = 0; i < 4; ++i)
      if ((in->d[i] != PTX_R_NONE && rb + in->d[i] == r && !(i == 0 && skip_d0)) || (in->s[i] != PTX_R_NONE && rb + in->s[i] == r)) return 0;
    if (in->base != PTX_R_NONE && rb + in->base == r) return 0;
  }
  if (in->kind == K_LD || in->kind == K_ST) {
    const ptx_space isp = (ptx_space)in->space;
    if (isp == PTX_SPACE_GLOBAL || isp == PTX_SPACE_GENERIC) {
      const uint64_t *B = sreg_or_zero(w, in->base);
      const uint64_t sv = sym_value(c, w, in);
      const uint64_t n = (uint64_t)ptx_ty_bytes((ptx_ty)in->ty) * in->vec;
      uint32_t m = e->mask;
      for (; m; m &= m - 1) {
        uint64_t a = B[__builtin_ctz(m)] + sv;
        if (resolve(isp, a, &a) != PTX_SPACE_GLOBAL) continue;
        for (uint32_t k = lanes; k; k &= k - 1) {
          const uint64_t b = addr[__builtin_ctz(k)] & ~7ull; /* the 8-byte word an atomic lane updates */
          if (a < b + 8 && b < a + n) return 0;
        }
      }
    }
  }
  return 1;
}

int ptx_cta_run(ptx_cta *c, uint64_t *insts) {
  uint64_t n = 0;
  int rc = 0;
  for (;;) {
    bool progress = false, live = false;
    for (unsigned i = 0; i < c->nwarps; ++i) {
      if (c->w[i].state == W_DONE) continue;
      live = true;
      for (unsigned q = 0; q < QUANTUM; ++q) {
        ptx_step_status s = step(c, i, NULL);
        if (s == PTX_STEP_ERROR) {
          rc = -1;
          goto out;
        }
        if (s == PTX_STEP_WAITING) break;
        progress = true;
        ++n;
        if (s == PTX_STEP_EXITED || s == PTX_STEP_BARRIER) break;
      }
    }
    if (!live) break;
    if (!progress) {
      fault(c, NULL, "deadlock: every live warp waits at a barrier that cannot complete");
      rc = -1;
      break;
    }
  }
out:
  if (insts) *insts = n;
  return rc;
}

int ptx_grid_run(const ptx_launch *l, uint64_t *insts, char *err, size_t errlen) {
  ptx_cta *c;
  uint32_t id[3] = {0, 0, 0};
  uint64_t total = 0;
  if (insts) *insts = 0;
  if (ptx_cta_init(&c, l, id, err, errlen) != 0) return -1;
  for (id[2] = 0; id[2] < l->grid[2]; ++id[2])
    for (id[1] = 0; id[1] < l->grid[1]; ++id[1])
      for (id[0] = 0; id[0] < l->grid[0]; ++id[0]) {
        ptx_cta_reset(c, id);
        uint64_t n;
        int rc = ptx_cta_run(c, &n);
        total += n;
        if (rc != 0) {
          snprintf(err, errlen, "%s", c->err);
          ptx_cta_free(c);
          if (insts) *insts = total;
          return -1;
        }
      }
  ptx_cta_free(c);
  if (insts) *insts = total;
  return 0;
}
