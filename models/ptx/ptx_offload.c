/* Offload-candidate blocks of a PTX kernel (see ptx_offload.h; docs/offload_candidates.md "PTX
 * kernels"). One pass over the kernel body's decoded instructions at load: per-instruction
 * register facts, liveness over the control-flow graph (backward, to a fixed point), regions,
 * then per region its counts, limits, live-in/out and trip-count kind. Nothing here runs per
 * executed instruction. */
#include "ptx_offload.h"

#include <stdlib.h>

#include "ptx_impl.h"

#define NSREG 32u /* pseudo-registers for per-thread special registers (ptx_sreg ids) */
#define MAX_DEPTH 8

typedef struct ifacts {
  uint32_t def[6], use[12];
  uint8_t nd, nu;
  uint8_t gld, gst; /* memory requests per lane of a load / store: 1 global, a local one's 4-byte words */
  uint8_t shared, atomic, sync, leaves, call, sfu;
  uint8_t remat_kind; /* a pure computation that may be recomputed from the constant bank */
  uint32_t s0, s1;    /* successors (index in the body) or PTX_PC_NONE */
} ifacts;

typedef struct region {
  uint32_t a, b;
  uint8_t loop;
} region;

typedef struct back {
  uint32_t v, u; /* target (loop head), branch */
} back;

typedef struct ctx {
  const ptx_module *m;
  const ptx_func *F;
  const ptx_inst *code;
  uint32_t n, b0, nr, np, V, W;
  ifacts *fx;
  uint8_t *is_const; /* per register: an immediate */
  uint64_t *const_val;
  uint8_t *remat;    /* per variable: recomputable from the constant bank */
  uint64_t *live;    /* n x W: live-in of every instruction (whole graph) */
  uint64_t *scratch; /* n x W: region-restricted liveness */
  region *rg;
  unsigned nrg, caprg;
  int oom;
} ctx;

static void add_def(ifacts *f, uint32_t v) {
  if (f->nd < 6) f->def[f->nd++] = v;
}
static void add_use(ifacts *f, uint32_t v) {
  if (f->nu < 12) f->use[f->nu++] = v;
}

/* Per-thread special registers a block needs from the SM that runs it (thread and CTA
 * identity); the others are launch constants or the executing SM's own (lane, clock). */
static bool sreg_per_thread(unsigned s) {
  switch (s) {
    case SR_TID_X: case SR_TID_Y: case SR_TID_Z: case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z:
    case SR_WARPID: case SR_SMID: return true;
    default: return false;
  }
}

static bool is_shared_sym(unsigned s) { return s == SYM_SHARED_MOD || s == SYM_SHARED_FN || s == SYM_SHARED_DYN; }

static void facts_of(ctx *c, uint32_t i) {
  const ptx_inst *in = &c->code[i];
  ifacts *f = &c->fx[i];
  const uint32_t NR = c->nr, NP = c->np;
#define REG(r) ((r) != PTX_R_NONE && (r) < NR && !c->is_const[(r)])
#define PRED(p) ((p) != PTX_R_NONE && (p) >= 2 && (p) < NP)
  /* destinations: predicates for setp, predicate logic, vote (except ballot), shfl's second,
   * bar.red.and/or; registers otherwise */
  bool d0_pred = false, d1_pred = false;
  switch (in->kind) {
    case K_SETP_I32: case K_SETP_I64: case K_SETP_F32: case K_SETP_F64: case K_SETP_GEN:
      d0_pred = true;
      d1_pred = (in->mod & MOD_HAS_Q) != 0;
      break;
    case K_PRED_LOGIC: case K_MOV_PRED: d0_pred = true; break;
    case K_VOTE: d0_pred = in->op != G_BALLOT; break;
    case K_SHFL: d1_pred = (in->mod & MOD_HAS_Q) != 0; break;
    case K_BAR: d0_pred = in->op != G_POPC; break;
    default: break;
  }
  for (int j = 0; j < 4; ++j) {
    uint16_t d = in->d[j];
    bool pr = (j == 0 && d0_pred) || (j == 1 && d1_pred);
    if (pr) {
      if (PRED(d)) add_def(f, NR + d);
    } else if (REG(d)) {
      add_def(f, d);
    }
  }
  for (int j = 0; j < 4; ++j)
    if (REG(in->s[j])) add_use(f, in->s[j]);
  if (REG(in->base)) add_use(f, in->base);
  if (PRED(in->pa)) add_use(f, NR + in->pa);
  if (PRED(in->pb)) add_use(f, NR + in->pb);
  if (PRED(in->guard)) add_use(f, NR + in->guard);
  if (in->kind == K_SREG && sreg_per_thread(in->op) && in->op < NSREG) add_use(f, NR + NP + in->op);
#undef REG
#undef PRED
  const bool mem = in->kind == K_LD || in->kind == K_ST || in->kind == K_ATOM;
  const bool global_space = in->space == PTX_SPACE_GLOBAL || in->space == PTX_SPACE_GENERIC;
  f->shared = mem && (in->space == PTX_SPACE_SHARED || is_shared_sym(in->sym));
  /* .local variables are device memory (a timed run sends each 4-byte word: docs/cuda.md "Local
   * memory"); a device function's parameters are not */
  const unsigned lbytes = ptx_ty_bytes((ptx_ty)in->ty) * (in->vec ? in->vec : 1u);
  const uint8_t reqs = in->space == PTX_SPACE_LOCAL ? (in->fparam ? 0 : (uint8_t)(lbytes < 4 ? 1 : lbytes / 4)) : global_space ? 1 : 0;
  f->gld = in->kind == K_LD && !f->shared ? reqs : 0;
  f->gst = in->kind == K_ST && !f->shared ? reqs : 0;
  f->atomic = in->kind == K_ATOM;
  f->sync = in->kind == K_BAR || in->kind == K_MEMBAR;
  f->leaves = in->kind == K_EXIT || in->kind == K_RET || in->kind == K_TRAP;
  f->call = in->kind == K_CALL;
  f->sfu = in->cls == PTX_IC_SFU || in->cls == PTX_IC_INTDIV || in->cls == PTX_IC_FP64;
  /* pure computations (no predicate involved) and kernel-parameter loads */
  bool pure = in->kind >= K_MOV && in->kind <= K_CVTA && in->kind != K_MOV_PRED && in->kind != K_SETP_I32 &&
              in->kind != K_SETP_I64 && in->kind != K_SETP_F32 && in->kind != K_SETP_F64 && in->kind != K_SETP_GEN &&
              in->kind != K_SELP && in->kind != K_PRED_LOGIC && (in->kind != K_SREG || !sreg_per_thread(in->op));
  if (in->kind == K_LD && in->space == PTX_SPACE_PARAM && in->sym == SYM_KPARAM && in->base == PTX_R_NONE) pure = true;
  f->remat_kind = pure && in->guard == PTX_R_NONE;
  /* successors */
  f->s0 = f->s1 = PTX_PC_NONE;
  const bool guarded = in->guard != PTX_R_NONE;
  const uint32_t next = i + 1 < c->n ? i + 1 : PTX_PC_NONE;
  if (in->kind == K_BRA) {
    if (in->target >= c->b0 && in->target - c->b0 < c->n) f->s0 = in->target - c->b0;
    if (guarded) f->s1 = next;
  } else if (f->leaves) {
    if (guarded) f->s0 = next;
  } else {
    f->s0 = next;
  }
}

static uint32_t weight(const ctx *c, uint32_t v) {
  if (v < c->nr) return c->F->reg_wide && c->F->reg_wide[v] ? 2u : 1u;
  return 1u;
}

/* Registers recomputable from the constant bank: defined once, by an unguarded pure
 * computation whose register sources are immediates or recomputable themselves (the least
 * fixed point, so a loop counter, which depends on itself, never is). */
static void find_remat(ctx *c) {
  uint32_t *ndef = calloc(c->nr + 1, sizeof *ndef);
  if (!ndef) {
    c->oom = 1;
    return;
  }
  for (uint32_t i = 0; i < c->n; ++i)
    for (unsigned j = 0; j < c->fx[i].nd; ++j)
      if (c->fx[i].def[j] < c->nr) ndef[c->fx[i].def[j]]++;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = 0; i < c->n; ++i) {
      const ifacts *f = &c->fx[i];
      if (!f->remat_kind || f->nd != 1 || f->def[0] >= c->nr || ndef[f->def[0]] != 1 || c->remat[f->def[0]]) continue;
      bool all = true;
      for (unsigned j = 0; j < f->nu && all; ++j) all = f->use[j] < c->nr && c->remat[f->use[j]];
      if (all) c->remat[f->def[0]] = 1, changed = true;
    }
  }
  free(ndef);
}

static inline void bs_set(uint64_t *s, uint32_t v) { s[v >> 6] |= 1ull << (v & 63); }
static inline bool bs_get(const uint64_t *s, uint32_t v) { return (s[v >> 6] >> (v & 63)) & 1u; }

/* live-in of instruction i from `out` (its successors' live-in): use | (out & ~kill) */
static void transfer(const ctx *c, uint32_t i, uint64_t *dst, const uint64_t *out) {
  const ifacts *f = &c->fx[i];
  for (uint32_t w = 0; w < c->W; ++w) dst[w] = out[w];
  if (c->code[i].guard == PTX_R_NONE)
    for (unsigned j = 0; j < f->nd; ++j) dst[f->def[j] >> 6] &= ~(1ull << (f->def[j] & 63));
  for (unsigned j = 0; j < f->nu; ++j) bs_set(dst, f->use[j]);
}

static void liveness(ctx *c) {
  const uint32_t W = c->W;
  uint64_t *out = c->scratch, *tmp = c->scratch + W;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = c->n; i-- > 0;) {
      const ifacts *f = &c->fx[i];
      for (uint32_t w = 0; w < W; ++w) out[w] = 0;
      if (f->s0 != PTX_PC_NONE)
        for (uint32_t w = 0; w < W; ++w) out[w] |= c->live[(size_t)f->s0 * W + w];
      if (f->s1 != PTX_PC_NONE)
        for (uint32_t w = 0; w < W; ++w) out[w] |= c->live[(size_t)f->s1 * W + w];
      transfer(c, i, tmp, out);
      uint64_t *L = c->live + (size_t)i * W;
      for (uint32_t w = 0; w < W; ++w)
        if (L[w] != tmp[w]) L[w] = tmp[w], changed = true;
    }
  }
}

static bool breaker(const ctx *c, uint32_t i) {
  const ifacts *f = &c->fx[i];
  return f->sync || f->atomic || f->shared || f->leaves || f->call;
}

/* Sec. 3.1.4: the warp's threads must be converged when the block ends. Control enters [a, b]
 * only at a, and every edge out of it goes to one instruction (where all threads continue,
 * usually b + 1; a trailing unconditional branch may jump elsewhere); otherwise divergent. */
static bool diverges(const ctx *c, uint32_t a, uint32_t b) {
  uint32_t exit_to = PTX_PC_NONE;
  for (uint32_t i = 0; i < c->n; ++i) {
    const ifacts *f = &c->fx[i];
    const bool fin = i >= a && i <= b;
    for (int k = 0; k < 2; ++k) {
      uint32_t t = k ? f->s1 : f->s0;
      if (t == PTX_PC_NONE) continue;
      const bool tin = t >= a && t <= b;
      if (fin && !tin) {
        if (exit_to != PTX_PC_NONE && t != exit_to) return true;
        exit_to = t;
      }
      if (!fin && tin && t != a) return true;
    }
  }
  return false;
}

static bool violates(const ctx *c, uint32_t a, uint32_t b) {
  for (uint32_t i = a; i <= b; ++i)
    if (breaker(c, i)) return true;
  return diverges(c, a, b);
}

static void push_region(ctx *c, uint32_t a, uint32_t b, uint8_t loop) {
  if (c->nrg == c->caprg) {
    unsigned cap = c->caprg ? 2 * c->caprg : 16;
    region *r = realloc(c->rg, cap * sizeof *r);
    if (!r) {
      c->oom = 1;
      return;
    }
    c->rg = r;
    c->caprg = cap;
  }
  c->rg[c->nrg].a = a;
  c->rg[c->nrg].b = b;
  c->rg[c->nrg].loop = loop;
  c->nrg++;
}

/* [a, b] cut at breakers (left out) and after unconditional branches (kept as the piece's
 * last instruction: the code after one is reached only by jumps) */
static void straight(ctx *c, uint32_t a, uint32_t b) {
  uint32_t s = a;
  for (uint32_t q = a; q <= b + 1; ++q) {
    if (q == b + 1 || breaker(c, q)) {
      if (q > s) push_region(c, s, q - 1, 0);
      s = q + 1;
    } else if (c->code[q].kind == K_BRA && c->code[q].guard == PTX_R_NONE) {
      push_region(c, s, q, 0);
      s = q + 1;
    }
  }
}

static int cmp_back(const void *x, const void *y) {
  const back *p = x, *q = y;
  if (p->v != q->v) return p->v < q->v ? -1 : 1;
  return p->u < q->u ? -1 : p->u > q->u;
}

/* merge the spans of `bk` (sorted in place) into outermost loops; returns their count in iv */
static unsigned merge(back *bk, unsigned nb, back *iv) {
  qsort(bk, nb, sizeof *bk, cmp_back);
  unsigned n = 0;
  for (unsigned i = 0; i < nb; ++i) {
    if (n && bk[i].v <= iv[n - 1].u) {
      if (bk[i].u > iv[n - 1].u) iv[n - 1].u = bk[i].u;
    } else {
      iv[n++] = bk[i];
    }
  }
  return n;
}

static void partition(ctx *c, uint32_t lo, uint32_t hi, back *bk, unsigned nb, int depth) {
  back *iv = malloc((nb ? nb : 1) * sizeof *iv);
  back *inner = malloc((nb ? nb : 1) * sizeof *inner);
  if (!iv || !inner) {
    c->oom = 1;
    free(iv);
    free(inner);
    return;
  }
  unsigned nl = merge(bk, nb, iv);
  uint32_t p = lo;
  for (unsigned l = 0; l < nl && !c->oom; ++l) {
    const back L = iv[l];
    if (L.v > p) straight(c, p, L.v - 1);
    push_region(c, L.v, L.u, 1);
    if (depth < MAX_DEPTH && violates(c, L.v, L.u)) {
      unsigned ni = 0;
      for (unsigned i = 0; i < nb; ++i)
        if (bk[i].v > L.v && bk[i].u <= L.u) inner[ni++] = bk[i]; /* same head: the same loop */
      back *copy = malloc((ni ? ni : 1) * sizeof *copy);
      if (!copy) {
        c->oom = 1;
        break;
      }
      for (unsigned i = 0; i < ni; ++i) copy[i] = inner[i];
      partition(c, L.v, L.u, copy, ni, depth + 1);
      free(copy);
    }
    p = L.u + 1;
  }
  if (p <= hi && !c->oom) straight(c, p, hi);
  free(iv);
  free(inner);
}

static int cmp_region(const void *x, const void *y) {
  const region *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b > q->b ? -1 : 1;
  return (int)q->loop - (int)p->loop;
}

static bool defined_in(const ctx *c, uint32_t v, uint32_t a, uint32_t b) {
  for (uint32_t i = a; i <= b; ++i)
    for (unsigned j = 0; j < c->fx[i].nd; ++j)
      if (c->fx[i].def[j] == v) return true;
  return false;
}

static bool is_add(const ptx_inst *in) {
  return in->kind == K_ADD32 || in->kind == K_ADD64 || (in->kind == K_IGEN && in->op == G_ADD);
}
static bool is_sub(const ptx_inst *in) {
  return in->kind == K_SUB32 || in->kind == K_SUB64 || (in->kind == K_IGEN && in->op == G_SUB);
}

/* Sec. 3.1.3 / 5.2: the loop's exit condition is a compare whose loop-defined operands are
 * induction variables (every write in the loop adds or subtracts an invariant to one of them,
 * or copies one); then the trip count is known at entry, and static when the bounds, steps and
 * starting values are immediates (computed here by stepping the one induction variable).
 * Anything else is decided during the loop. */
static ofl_trip trip_kind(const ctx *c, uint32_t a, uint32_t b, uint32_t *trips) {
  const ptx_inst *code = c->code;
  uint32_t latch = PTX_PC_NONE;
  for (uint32_t i = a; i <= b; ++i)
    if (code[i].kind == K_BRA && c->fx[i].s0 == a) latch = i;
  if (latch == PTX_PC_NONE) return OFL_TRIP_UNKNOWN;
  uint32_t br = latch;
  bool cont_when; /* the predicate's value that continues the loop */
  if (code[latch].guard != PTX_R_NONE) {
    cont_when = !code[latch].guard_neg;
  } else {
    /* unconditional back edge: the condition is the last guarded branch out of the loop */
    br = PTX_PC_NONE;
    for (uint32_t i = a; i < latch; ++i)
      if (code[i].kind == K_BRA && code[i].guard != PTX_R_NONE && (c->fx[i].s0 < a || c->fx[i].s0 > b)) br = i;
    if (br == PTX_PC_NONE) return OFL_TRIP_UNKNOWN;
    cont_when = code[br].guard_neg;
  }
  const uint32_t pv = c->nr + code[br].guard;
  uint32_t sp = PTX_PC_NONE; /* the compare defining the predicate: last definition before br */
  for (uint32_t i = a; i < br; ++i)
    for (unsigned j = 0; j < c->fx[i].nd; ++j)
      if (c->fx[i].def[j] == pv) sp = i;
  if (sp == PTX_PC_NONE) return OFL_TRIP_UNKNOWN;
  const ptx_inst *cmp = &code[sp];
  const bool setp = cmp->kind == K_SETP_I32 || cmp->kind == K_SETP_I64 || cmp->kind == K_SETP_F32 ||
                    cmp->kind == K_SETP_F64 || cmp->kind == K_SETP_GEN;
  if (!setp || (cmp->mod & MOD_HAS_C) || cmp->guard != PTX_R_NONE || cmp->d[0] != code[br].guard ||
      defined_in(c, pv, sp + 1, b))
    return OFL_TRIP_UNKNOWN;
  /* the induction family: loop-defined registers reached from the compare's operands */
  uint32_t fam[16];
  unsigned nf = 0;
  bool at_entry = false;
  for (int k = 0; k < 2; ++k) {
    uint16_t r = cmp->s[k];
    if (r == PTX_R_NONE || c->is_const[r]) continue;
    if (!defined_in(c, r, a, b)) {
      at_entry = true; /* a bound computed before the loop */
      continue;
    }
    if (nf < 16) fam[nf++] = r;
    else return OFL_TRIP_UNKNOWN;
  }
  if (!nf) return OFL_TRIP_UNKNOWN; /* the compare does not change during the loop */
  for (unsigned q = 0; q < nf; ++q) {
    const uint32_t r = fam[q];
    for (uint32_t i = a; i <= b; ++i) {
      const ifacts *f = &c->fx[i];
      bool defs = false;
      for (unsigned j = 0; j < f->nd; ++j) defs |= f->def[j] == r;
      if (!defs) continue;
      const ptx_inst *in = &code[i];
      if (f->nd != 1 || in->guard != PTX_R_NONE) return OFL_TRIP_UNKNOWN;
      uint16_t src[2] = {PTX_R_NONE, PTX_R_NONE};
      if (in->kind == K_MOV && in->vec == 1) src[0] = in->s[0];
      else if (is_add(in) || is_sub(in)) src[0] = in->s[0], src[1] = in->s[1];
      else return OFL_TRIP_UNKNOWN;
      if (is_sub(in) && (in->s[1] == PTX_R_NONE || (!c->is_const[in->s[1]] && defined_in(c, in->s[1], a, b))))
        return OFL_TRIP_UNKNOWN; /* r = x - (something changing): not a step */
      unsigned loopsrc = 0;
      for (int k = 0; k < 2; ++k) {
        uint16_t s = src[k];
        if (s == PTX_R_NONE || c->is_const[s]) continue;
        if (!defined_in(c, s, a, b)) {
          at_entry = true; /* a step from a register: known at entry */
          continue;
        }
        ++loopsrc;
        bool known = false;
        for (unsigned t = 0; t < nf; ++t) known |= fam[t] == s;
        if (!known) {
          if (nf == 16) return OFL_TRIP_UNKNOWN;
          fam[nf++] = s;
        }
      }
      if (loopsrc != 1) return OFL_TRIP_UNKNOWN; /* r = r + step, or a copy of a family member */
    }
  }
  if (at_entry || nf != 1 || cmp->kind == K_SETP_F32 || cmp->kind == K_SETP_F64) return OFL_TRIP_AT_ENTRY;
  /* static: one induction variable r, stepped once per iteration by an immediate, starting
   * from the same immediate at every definition outside the loop, compared to an immediate */
  const uint32_t r = fam[0];
  uint32_t step_at = PTX_PC_NONE;
  for (uint32_t i = a; i <= b; ++i)
    if (c->fx[i].nd == 1 && c->fx[i].def[0] == r) {
      if (step_at != PTX_PC_NONE) return OFL_TRIP_AT_ENTRY;
      step_at = i;
    }
  const ptx_inst *st = &code[step_at];
  if (!(is_add(st) || is_sub(st))) return OFL_TRIP_AT_ENTRY;
  const uint16_t other = st->s[0] == r ? st->s[1] : st->s[0];
  if (other == PTX_R_NONE || !c->is_const[other]) return OFL_TRIP_AT_ENTRY;
  uint64_t step = c->const_val[other];
  if (is_sub(st)) step = 0 - step;
  bool have_init = false;
  uint64_t init = 0;
  for (uint32_t i = 0; i < c->n; ++i) {
    if (i >= a && i <= b) continue;
    const ifacts *f = &c->fx[i];
    for (unsigned j = 0; j < f->nd; ++j) {
      if (f->def[j] != r) continue;
      const ptx_inst *in = &code[i];
      if (in->kind != K_MOV || in->vec != 1 || in->guard != PTX_R_NONE || in->s[0] == PTX_R_NONE || !c->is_const[in->s[0]])
        return OFL_TRIP_AT_ENTRY;
      const uint64_t v = c->const_val[in->s[0]];
      if (have_init && v != init) return OFL_TRIP_AT_ENTRY;
      have_init = true;
      init = v;
    }
  }
  if (!have_init) return OFL_TRIP_AT_ENTRY;
  const uint16_t bound = cmp->s[0] == r ? cmp->s[1] : cmp->s[0];
  if (bound == PTX_R_NONE || !c->is_const[bound]) return OFL_TRIP_AT_ENTRY;
  const uint64_t bv = c->const_val[bound];
  const bool ind_first = cmp->s[0] == r;
  const bool stepped_before_compare = step_at < sp;
  const uint64_t mask = ptx_ty_bytes((ptx_ty)cmp->ty) >= 8 ? ~0ull : (1ull << (8 * ptx_ty_bytes((ptx_ty)cmp->ty))) - 1;
  /* iterations = executions of the exit test; with the test at the top (every global access
   * of the loop after it) the accesses run once less */
  bool mem_before = false, mem_after = false;
  for (uint32_t i = a; i <= b; ++i)
    if (c->fx[i].gld || c->fx[i].gst) {
      if (i < br) mem_before = true;
      else mem_after = true;
    }
  const bool one_less = br != latch && mem_after && !mem_before;
  for (uint64_t k = 1; k <= OFL_MAX_TRIPS; ++k) {
    const uint64_t v = (init + (stepped_before_compare ? k : k - 1) * step) & mask;
    const bool res = ind_first ? ptx_icmp((ptx_cmp)cmp->op, (ptx_ty)cmp->ty, v, bv & mask)
                               : ptx_icmp((ptx_cmp)cmp->op, (ptx_ty)cmp->ty, bv & mask, v);
    if (res != cont_when) {
      uint64_t t = one_less ? k - 1 : k;
      *trips = (uint32_t)(t < 1 ? 1 : t);
      return OFL_TRIP_STATIC;
    }
  }
  return OFL_TRIP_AT_ENTRY; /* more than OFL_MAX_TRIPS: taken as known at entry */
}

static void describe_region(ctx *c, const region *R, ptx_oblock *ob) {
  const uint32_t W = c->W;
  uint32_t ld = 0, st = 0, alu = 0, sfu = 0;
  bool shared = false, sync = false, atomic = false, leaves = false, call = false;
  for (uint32_t i = R->a; i <= R->b; ++i) {
    const ifacts *f = &c->fx[i];
    if (f->gld) ld += f->gld;
    else if (f->gst) st += f->gst;
    else if (f->sfu) ++sfu;
    else ++alu;
    shared |= f->shared;
    sync |= f->sync;
    atomic |= f->atomic;
    leaves |= f->leaves;
    call |= f->call;
  }
  ob->pc_begin = c->b0 + R->a;
  ob->pc_end = c->b0 + R->b;
  ob->line_begin = c->code[R->a].line;
  ob->line_end = c->code[R->b].line;
  ob->n_alu = alu;
  ob->n_sfu = sfu;
  ob->loop = R->loop;
  ob->ofl.n_ld = ld;
  ob->ofl.n_st = st;
  ob->ofl.limits = (shared ? OFL_LIMIT_SHARED : 0u) | (sync ? OFL_LIMIT_BARRIER : 0u) | (atomic ? OFL_LIMIT_ATOMIC : 0u) |
                   (leaves || diverges(c, R->a, R->b) ? OFL_LIMIT_DIVERGENT : 0u) | (call ? OFL_LIMIT_CALL : 0u);
  /* live-in: liveness restricted to the region (nothing is live after it) */
  uint64_t *lin = c->scratch;
  const uint32_t len = R->b - R->a + 1;
  for (size_t w = 0; w < (size_t)len * W; ++w) lin[w] = 0;
  uint64_t *out = c->scratch + (size_t)len * W, *tmp = out + W;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = R->b + 1; i-- > R->a;) {
      const ifacts *f = &c->fx[i];
      for (uint32_t w = 0; w < W; ++w) out[w] = 0;
      for (int k = 0; k < 2; ++k) {
        uint32_t t = k ? f->s1 : f->s0;
        if (t == PTX_PC_NONE || t < R->a || t > R->b) continue;
        for (uint32_t w = 0; w < W; ++w) out[w] |= lin[(size_t)(t - R->a) * W + w];
      }
      transfer(c, i, tmp, out);
      uint64_t *L = lin + (size_t)(i - R->a) * W;
      for (uint32_t w = 0; w < W; ++w)
        if (L[w] != tmp[w]) L[w] = tmp[w], changed = true;
    }
  }
  uint32_t live_in = 0;
  for (uint32_t v = 0; v < c->V; ++v)
    if (bs_get(lin, v) && !(v < c->nr && c->remat[v])) live_in += weight(c, v);
  /* live-out: written in the region and live where control leaves it */
  uint64_t *exit_live = out, *defs = tmp;
  for (uint32_t w = 0; w < W; ++w) exit_live[w] = defs[w] = 0;
  for (uint32_t i = R->a; i <= R->b; ++i) {
    const ifacts *f = &c->fx[i];
    for (unsigned j = 0; j < f->nd; ++j) bs_set(defs, f->def[j]);
    for (int k = 0; k < 2; ++k) {
      uint32_t t = k ? f->s1 : f->s0;
      if (t == PTX_PC_NONE || (t >= R->a && t <= R->b)) continue;
      for (uint32_t w = 0; w < W; ++w) exit_live[w] |= c->live[(size_t)t * W + w];
    }
  }
  uint32_t live_out = 0;
  for (uint32_t v = 0; v < c->V; ++v)
    if (bs_get(defs, v) && bs_get(exit_live, v) && !(v < c->nr && c->remat[v])) live_out += weight(c, v);
  ob->ofl.live_in = live_in > OFL_MAX_REGS ? OFL_MAX_REGS : live_in;
  ob->ofl.live_out = live_out > OFL_MAX_REGS ? OFL_MAX_REGS : live_out;
  if (ob->ofl.n_ld > OFL_MAX_OPS) ob->ofl.n_ld = OFL_MAX_OPS;
  if (ob->ofl.n_st > OFL_MAX_OPS) ob->ofl.n_st = OFL_MAX_OPS;
  ob->ofl.trip = OFL_TRIP_NONE;
  ob->ofl.trips = 0;
  if (R->loop) {
    uint32_t t = 0;
    ob->ofl.trip = trip_kind(c, R->a, R->b, &t);
    if (ob->ofl.trip == OFL_TRIP_STATIC) ob->ofl.trips = t;
  }
}

void ptx_oblocks_free(ptx_oblocks *o) {
  if (!o) return;
  free(o->b);
  free(o->pc_block);
  o->b = NULL;
  o->pc_block = NULL;
  o->n = 0;
}

int ptx_offload_blocks(const ptx_kernel *k, ptx_oblocks *out, char *err, size_t errlen) {
  const ptx_module *m = k->mod;
  const ptx_func *F = &m->funcs[k->fn];
  memset(out, 0, sizeof *out);
  ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.F = F;
  c.n = F->npc;
  c.b0 = F->first_pc;
  c.code = m->code + F->first_pc;
  c.nr = F->nregs;
  c.np = F->npreds;
  c.V = c.nr + c.np + NSREG;
  c.W = (c.V + 63) / 64;
  out->first_pc = c.b0;
  out->npc = c.n;
  int rc = -1;
  const size_t n1 = c.n ? c.n : 1;
  c.fx = calloc(n1, sizeof *c.fx);
  c.is_const = calloc(c.nr + 1, 1);
  c.const_val = calloc(c.nr + 1, sizeof *c.const_val);
  c.remat = calloc(c.V, 1);
  c.live = calloc(n1 * c.W, sizeof *c.live);
  c.scratch = calloc((n1 + 2) * c.W, sizeof *c.scratch);
  out->pc_block = malloc(n1 * sizeof *out->pc_block);
  back *bk = malloc(n1 * sizeof *bk);
  if (!c.fx || !c.is_const || !c.const_val || !c.remat || !c.live || !c.scratch || !out->pc_block || !bk) goto out;
  for (uint32_t i = 0; i < F->nconsts; ++i)
    if (F->const_reg[i] < c.nr) {
      c.is_const[F->const_reg[i]] = 1;
      c.const_val[F->const_reg[i]] = F->const_val[i];
    }
  for (uint32_t i = 0; i < c.n; ++i) facts_of(&c, i);
  find_remat(&c);
  if (c.oom) goto out;
  liveness(&c);
  unsigned nb = 0;
  for (uint32_t i = 0; i < c.n; ++i)
    if (c.code[i].kind == K_BRA && c.fx[i].s0 != PTX_PC_NONE && c.fx[i].s0 <= i) bk[nb].v = c.fx[i].s0, bk[nb].u = i, nb++;
  if (c.n) partition(&c, 0, c.n - 1, bk, nb, 0);
  if (c.oom) goto out;
  if (c.nrg) qsort(c.rg, c.nrg, sizeof *c.rg, cmp_region);
  for (uint32_t i = 0; i < c.n; ++i) out->pc_block[i] = PTX_OBLOCK_NONE;
  out->b = calloc(c.nrg ? c.nrg : 1, sizeof *out->b);
  if (!out->b) goto out;
  for (unsigned r = 0; r < c.nrg && out->n < PTX_OBLOCK_MAX; ++r) {
    const region *R = &c.rg[r];
    if (r && R->a == c.rg[r - 1].a && R->b == c.rg[r - 1].b) continue; /* the same span twice */
    bool mem = false;
    for (uint32_t i = R->a; i <= R->b && !mem; ++i) mem = c.fx[i].gld || c.fx[i].gst;
    if (!mem) continue;
    describe_region(&c, R, &out->b[out->n]);
    for (uint32_t i = R->a; i <= R->b; ++i) out->pc_block[i] = (uint16_t)out->n; /* inner regions come later */
    out->n++;
  }
  rc = 0;
out:
  if (rc != 0) {
    ptx_oblocks_free(out);
    ptx_errf(err, errlen, m->name, F->line, "kernel %s: out of memory in the offload-block analysis", F->name);
  }
  free(c.fx);
  free(c.is_const);
  free(c.const_val);
  free(c.remat);
  free(c.live);
  free(c.scratch);
  free(c.rg);
  free(bk);
  return rc;
}
