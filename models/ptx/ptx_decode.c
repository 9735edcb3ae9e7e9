/* PTX parser, instructions: operands and the decoding of each opcode into a ptx_inst
 * (docs/ptx.md "Adding an instruction"). Immediates become constant registers of the function,
 * special registers and symbol addresses used outside mov are materialised into a hidden
 * register by an extra mov, so every source of an executed instruction is a register. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse_int.h"

typedef enum { O_NONE, O_REG, O_PRED, O_IMM, O_SYM, O_ADDR, O_VEC, O_SREG, O_SINK, O_NAME, O_LIST, O_COMPLEX } okind;

typedef struct opnd {
  uint8_t k;
  bool neg;      /* !%p */
  uint32_t line;
  uint32_t reg;  /* O_REG / O_PRED */
  uint8_t rty;   /* O_REG: declared type */
  numlit num;    /* O_IMM */
  bool numneg;
  decl var;      /* O_SYM, O_ADDR with has_sym */
  bool has_base, has_sym;
  uint32_t base; /* O_ADDR register */
  int64_t off;   /* O_ADDR offset */
  uint32_t vec[4]; /* O_VEC registers (PTX_R_NONE for a sink) */
  uint8_t vec_k[4];
  uint8_t nvec;
  uint8_t sreg;
  tok name;        /* O_NAME */
  uint32_t lst0, nlst; /* O_LIST: into p->lst */
  bool has_q;      /* a|q */
  uint32_t q;
  uint8_t q_k;
} opnd;

#define MAXOPS 8

/* ------------------------------------------------------------------ constants */

static bool const_reg(P *p, uint64_t v, uint16_t *out, uint32_t line) {
  ptx_func *f = p->fn;
  if ((p->cmap_used + 1) * 2 > p->cmap_cap) {
    uint32_t nc = p->cmap_cap ? p->cmap_cap * 2 : 64;
    uint64_t *nk = malloc(nc * sizeof *nk);
    uint32_t *nr = malloc(nc * sizeof *nr);
    if (!nk || !nr) {
      free(nk);
      free(nr);
      return pp_fail(p, line, "out of memory");
    }
    for (uint32_t i = 0; i < nc; ++i) nr[i] = PTX_R_NONE;
    for (uint32_t i = 0; i < p->cmap_cap; ++i)
      if (p->constregs[i] != PTX_R_NONE) {
        uint32_t j = (uint32_t)((p->constkeys[i] * 0x9e3779b97f4a7c15ull) >> 32) & (nc - 1);
        while (nr[j] != PTX_R_NONE) j = (j + 1) & (nc - 1);
        nk[j] = p->constkeys[i];
        nr[j] = p->constregs[i];
      }
    free(p->constkeys);
    free(p->constregs);
    p->constkeys = nk;
    p->constregs = nr;
    p->cmap_cap = nc;
  }
  uint32_t j = (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> 32) & (p->cmap_cap - 1);
  while (p->constregs[j] != PTX_R_NONE) {
    if (p->constkeys[j] == v) {
      *out = (uint16_t)p->constregs[j];
      return true;
    }
    j = (j + 1) & (p->cmap_cap - 1);
  }
  if (f->nregs + 1 > PTX_MAX_REGS) return pp_fail(p, line, "too many registers and constants (limit %u)", PTX_MAX_REGS);
  uint32_t cap = p->cap_fconst;
  uint32_t *cr = pp_grow(p, f->const_reg, &cap, f->nconsts + 1, sizeof *cr);
  if (!cr) return false;
  f->const_reg = cr;
  uint64_t *cv = realloc(f->const_val, cap * sizeof *cv);
  if (!cv) return pp_fail(p, line, "out of memory");
  f->const_val = cv;
  p->cap_fconst = cap;
  uint8_t *w = realloc(f->reg_wide, (size_t)f->nregs + 1);
  if (!w) return pp_fail(p, line, "out of memory");
  f->reg_wide = w;
  w[f->nregs] = 1;
  f->const_reg[f->nconsts] = f->nregs;
  f->const_val[f->nconsts] = v;
  f->nconsts++;
  p->constkeys[j] = v;
  p->constregs[j] = f->nregs;
  p->cmap_used++;
  *out = (uint16_t)f->nregs++;
  return true;
}

static bool new_reg(P *p, uint16_t *out, bool wide, uint32_t line) {
  ptx_func *f = p->fn;
  if (f->nregs + 1 > PTX_MAX_REGS) return pp_fail(p, line, "too many registers (limit %u)", PTX_MAX_REGS);
  uint8_t *w = realloc(f->reg_wide, (size_t)f->nregs + 1);
  if (!w) return pp_fail(p, line, "out of memory");
  f->reg_wide = w;
  w[f->nregs] = wide;
  *out = (uint16_t)f->nregs++;
  return true;
}

/* value of an immediate for an operand of type ty (bits, truncated to the type) */
static bool imm_bits(P *p, const opnd *o, ptx_ty ty, uint64_t *out) {
  const numlit *n = &o->num;
  uint64_t v = 0;
  if (ty == TY_F32) {
    float f;
    if (n->kind == NUM_F32) f = ptx_f32(n->bits);
    else if (n->kind == NUM_F64) f = (float)ptx_f64(n->bits);
    else if (n->kind == NUM_DEC) f = (float)n->d;
    else f = (float)(int64_t)n->bits;
    if (o->numneg) f = -f;
    v = ptx_bits32(f);
  } else if (ty == TY_F64) {
    double d;
    if (n->kind == NUM_F64) d = ptx_f64(n->bits);
    else if (n->kind == NUM_F32) d = ptx_f32(n->bits);
    else if (n->kind == NUM_DEC) d = n->d;
    else d = (double)(int64_t)n->bits;
    if (o->numneg) d = -d;
    v = ptx_bits64(d);
  } else {
    if (n->kind == NUM_DEC) return pp_fail(p, o->line, "expected an integer immediate for a .%s operand", ty == TY_PRED ? "pred" : "integer");
    v = o->numneg ? (uint64_t)0 - n->bits : n->bits;
    if (n->kind == NUM_F32 && o->numneg) v = (n->bits ^ 0x80000000u);
    if (n->kind == NUM_F64 && o->numneg) v = (n->bits ^ 0x8000000000000000ull);
    unsigned b = ptx_ty_bytes(ty);
    if (ty == TY_PRED) v = v != 0;
    else if (b && b < 8) v &= (1ull << (8 * b)) - 1;
  }
  *out = v;
  return true;
}

/* ------------------------------------------------------------------ operands */

static const struct {
  const char *s;
  ptx_sreg r;
} kSregs[] = {{"%tid.x", SR_TID_X},       {"%tid.y", SR_TID_Y},         {"%tid.z", SR_TID_Z},
              {"%ntid.x", SR_NTID_X},     {"%ntid.y", SR_NTID_Y},       {"%ntid.z", SR_NTID_Z},
              {"%ctaid.x", SR_CTAID_X},   {"%ctaid.y", SR_CTAID_Y},     {"%ctaid.z", SR_CTAID_Z},
              {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y},   {"%nctaid.z", SR_NCTAID_Z},
              {"%laneid", SR_LANEID},     {"%warpid", SR_WARPID},       {"%nwarpid", SR_NWARPID},
              {"%smid", SR_SMID},         {"%nsmid", SR_NSMID},         {"%gridid", SR_GRIDID},
              {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_lt", SR_LANEMASK_LT},
              {"%lanemask_le", SR_LANEMASK_LE}, {"%lanemask_gt", SR_LANEMASK_GT},
              {"%lanemask_ge", SR_LANEMASK_GE}, {"%clock", SR_CLOCK}, {"%clock64", SR_CLOCK64},
              {"%globaltimer", SR_GLOBALTIMER}};

static bool ident_like(const tok *t) {
  if (t->k != TK_WORD) return false;
  unsigned char c = (unsigned char)t->s[0];
  return c == '_' || c == '$' || c == '%' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool name_operand(P *p, opnd *o) {
  tok t = p->t;
  pp_next(p);
  if (t.n == 1 && t.s[0] == '_') {
    o->k = O_SINK;
    return true;
  }
  if (t.s[0] == '%') {
    for (size_t i = 0; i < sizeof kSregs / sizeof kSregs[0]; ++i)
      if (strlen(kSregs[i].s) == t.n && memcmp(kSregs[i].s, t.s, t.n) == 0) {
        o->k = O_SREG;
        o->sreg = (uint8_t)kSregs[i].r;
        return true;
      }
  }
  decl *d = pp_lookup(p, t.s, t.n);
  if (!d) {
    if (t.s[0] == '%') return pp_fail(p, t.line, "undeclared register %s", pp_tokstr(p, &t));
    o->k = O_NAME;
    o->name = t;
    return true;
  }
  if (d->what == D_REG) {
    o->k = O_REG;
    o->reg = d->idx;
    o->rty = d->ty;
  } else if (d->what == D_PRED) {
    o->k = O_PRED;
    o->reg = d->idx;
  } else {
    o->k = O_SYM;
    o->var = *d;
    o->name = t;
  }
  return true;
}

static bool operand(P *p, opnd *o) {
  memset(o, 0, sizeof *o);
  o->line = p->t.line;
  if (pp_is(p, '!')) {
    pp_next(p);
    if (!operand(p, o)) return false;
    if (o->k != O_PRED) return pp_fail(p, o->line, "expected a predicate after '!'");
    o->neg = true;
    return true;
  }
  if (pp_is(p, '-') || (p->t.k == TK_WORD && p->t.s[0] >= '0' && p->t.s[0] <= '9')) {
    if (pp_is(p, '-')) {
      o->numneg = true;
      pp_next(p);
    }
    if (p->t.k != TK_WORD || !pp_parse_num(p->t.s, p->t.n, &o->num))
      return pp_fail(p, p->t.line, "expected a number, found %s", pp_tokstr(p, &p->t));
    pp_next(p);
    o->k = O_IMM;
    return true;
  }
  if (pp_is(p, '{')) {
    pp_next(p);
    o->k = O_VEC;
    for (;;) {
      if (o->nvec == 4) return pp_fail(p, p->t.line, "expected at most 4 vector elements");
      opnd e;
      if (!ident_like(&p->t)) return pp_fail(p, p->t.line, "expected a register in the vector, found %s", pp_tokstr(p, &p->t));
      if (!name_operand(p, &e)) return false;
      if (e.k == O_REG) {
        o->vec[o->nvec] = e.reg;
        o->vec_k[o->nvec++] = O_REG;
      } else if (e.k == O_SINK) {
        o->vec[o->nvec] = PTX_R_NONE;
        o->vec_k[o->nvec++] = O_SINK;
      } else {
        return pp_fail(p, e.line ? e.line : o->line, "expected a register in the vector");
      }
      if (pp_is(p, ',')) {
        pp_next(p);
        continue;
      }
      break;
    }
    return pp_expect(p, '}', "'}' closing the vector");
  }
  if (pp_is(p, '[')) {
    pp_next(p);
    o->k = O_ADDR;
    if (ident_like(&p->t)) {
      opnd b;
      if (!name_operand(p, &b)) return false;
      if (b.k == O_REG) {
        o->has_base = true;
        o->base = b.reg;
      } else if (b.k == O_SYM) {
        o->has_sym = true;
        o->var = b.var;
        o->name = b.name;
      } else if (b.k == O_NAME) {
        return pp_fail(p, o->line, "undeclared symbol %s in an address", pp_tokstr(p, &b.name));
      } else {
        return pp_fail(p, o->line, "expected a register or a variable in the address");
      }
    } else if (p->t.k == TK_WORD) {
      uint64_t v = 0;
      if (!pp_parse_int(p->t.s, p->t.n, &v) || v > INT64_MAX) return pp_fail(p, p->t.line, "expected an address, found %s", pp_tokstr(p, &p->t));
      o->off = (int64_t)v;
      pp_next(p);
    } else {
      return pp_fail(p, p->t.line, "expected an address, found %s", pp_tokstr(p, &p->t));
    }
    if (pp_is(p, ',')) {
      /* texture / surface operand [handle, {coordinates}] (or with a sampler in the middle,
       * which no implemented instruction takes): the handle as the base or symbol, the
       * coordinates in vec */
      pp_next(p);
      opnd v;
      if (!pp_is(p, '{')) {
        if (p->t.k != TK_WORD) return pp_fail(p, p->t.line, "expected '{' with the coordinates, found %s", pp_tokstr(p, &p->t));
        pp_next(p); /* a sampler */
        if (!pp_expect(p, ',', "',' after the sampler")) return false;
        o->has_q = true; /* marks the sampler form */
      }
      if (!pp_is(p, '{')) return pp_fail(p, p->t.line, "expected '{' with the coordinates, found %s", pp_tokstr(p, &p->t));
      if (!operand(p, &v)) return false;
      if (v.k != O_VEC) return pp_fail(p, o->line, "expected the coordinates as a vector {..}");
      memcpy(o->vec, v.vec, sizeof o->vec);
      memcpy(o->vec_k, v.vec_k, sizeof o->vec_k);
      o->nvec = v.nvec;
      if (!pp_expect(p, ']', "']' closing the operand")) return false;
      o->k = O_COMPLEX;
      return true;
    }
    if (pp_is(p, '+') || pp_is(p, '-')) {
      bool neg = pp_is(p, '-');
      pp_next(p);
      if (pp_is(p, '-')) {
        neg = !neg;
        pp_next(p);
      }
      uint64_t v = 0;
      if (p->t.k != TK_WORD || !pp_parse_int(p->t.s, p->t.n, &v) || v > (1ull << 40))
        return pp_fail(p, p->t.line, "expected an address offset, found %s", pp_tokstr(p, &p->t));
      pp_next(p);
      o->off += neg ? -(int64_t)v : (int64_t)v;
    }
    return pp_expect(p, ']', "']' closing the address");
  }
  if (pp_is(p, '(')) {
    pp_next(p);
    o->k = O_LIST;
    o->lst0 = p->nlst;
    while (!pp_is(p, ')')) {
      if (!ident_like(&p->t)) return pp_fail(p, p->t.line, "expected a parameter name, found %s", pp_tokstr(p, &p->t));
      if (p->nlst == 256) return pp_fail(p, p->t.line, "more than 256 call arguments");
      p->lst[p->nlst++] = p->t;
      o->nlst++;
      pp_next(p);
      if (pp_is(p, ',')) pp_next(p);
      else if (!pp_is(p, ')')) return pp_fail(p, p->t.line, "expected ',' or ')', found %s", pp_tokstr(p, &p->t));
    }
    pp_next(p);
    return true;
  }
  if (ident_like(&p->t)) {
    if (!name_operand(p, o)) return false;
    if (pp_is(p, '|')) {
      pp_next(p);
      opnd q;
      if (!ident_like(&p->t) || !name_operand(p, &q) || (q.k != O_PRED && q.k != O_SINK))
        return p->failed ? false : pp_fail(p, o->line, "expected a predicate after '|'");
      o->has_q = true;
      o->q = q.reg;
      o->q_k = q.k;
    }
    return true;
  }
  return pp_fail(p, p->t.line, "expected an operand, found %s", pp_tokstr(p, &p->t));
}

/* ------------------------------------------------------------------ modifiers */

typedef struct mods {
  const char *s[16];
  uint32_t n[16];
  unsigned cnt;
  uint32_t used;
  ptx_ty ty[4];
  unsigned nty;
} mods;

static bool has(mods *m, const char *w) {
  size_t l = strlen(w);
  for (unsigned i = 0; i < m->cnt; ++i)
    if (m->n[i] == l && memcmp(m->s[i], w, l) == 0) {
      m->used |= 1u << i;
      return true;
    }
  return false;
}

/* modifiers that only carry memory-ordering or cache hints */
static void ignore_hints(mods *m) {
  static const char *k[] = {"weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "cta", "gpu",
                            "sys", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "aligned", "uni", "mmio"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i) has(m, k[i]);
  for (unsigned i = 0; i < m->cnt; ++i)
    if (m->n[i] > 4 && (memcmp(m->s[i], "L1::", 4) == 0 || memcmp(m->s[i], "L2::", 4) == 0)) m->used |= 1u << i;
}

static int rounding(mods *m) {
  static const char *k[] = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
  for (int i = 0; i < 8; ++i)
    if (has(m, k[i])) return RND_RN + i;
  return RND_NONE;
}

static int comparison(mods *m) {
  static const char *k[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                            "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (int i = 0; i < 18; ++i)
    if (has(m, k[i])) return i;
  return -1;
}

static ptx_space space_mod(mods *m) {
  if (has(m, "global")) return PTX_SPACE_GLOBAL;
  if (has(m, "shared")) return PTX_SPACE_SHARED;
  if (has(m, "local")) return PTX_SPACE_LOCAL;
  if (has(m, "param")) return PTX_SPACE_PARAM;
  if (has(m, "const")) return PTX_SPACE_CONST;
  return PTX_SPACE_GENERIC;
}

/* ------------------------------------------------------------------ emitting */

typedef struct ctx {
  P *p;
  uint32_t line;
  tok opc;
  mods md;
  opnd o[MAXOPS];
  unsigned no;
  uint16_t guard;
  uint8_t guard_neg;
  const char *unsup; /* set when the instruction is not implemented */
} ctx;

static ptx_inst *emit(ctx *c) {
  P *p = c->p;
  ptx_module *m = p->m;
  ptx_inst *nc = pp_grow(p, m->code, &p->cap_code, m->ncode + 1, sizeof *nc);
  if (!nc) return NULL;
  m->code = nc;
  ptx_inst *in = &m->code[m->ncode++];
  memset(in, 0, sizeof *in);
  in->guard = c->guard;
  in->guard_neg = c->guard_neg;
  in->fn = p->fi;
  in->line = c->line;
  in->vec = 1;
  in->base = PTX_R_NONE;
  in->pa = in->pb = PTX_R_NONE;
  for (int i = 0; i < 4; ++i) in->d[i] = in->s[i] = PTX_R_NONE;
  return in;
}

static bool unsup(ctx *c, const char *why) {
  c->unsup = why;
  return true;
}

/* kernel-visible value of a special register or a symbol address into a fresh register */
static bool materialise(ctx *c, const opnd *o, uint16_t *out) {
  P *p = c->p;
  if (!new_reg(p, out, true, c->line)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  in->guard = PTX_R_NONE; /* harmless for inactive lanes */
  in->guard_neg = 0;
  in->d[0] = *out;
  in->cls = PTX_IC_ALU;
  if (o->k == O_SREG) {
    in->kind = K_SREG;
    in->op = o->sreg;
    in->ty = TY_U32;
  } else {
    if (o->var.symk == SYM_NONE) return pp_fail(p, c->line, "symbol without an address");
    in->kind = K_SYMADDR;
    in->sym = o->var.symk;
    in->imm = o->var.off;
    in->ty = TY_U64;
  }
  return true;
}

static bool src(ctx *c, const opnd *o, ptx_ty ty, uint16_t *out) {
  P *p = c->p;
  switch (o->k) {
    case O_REG: *out = (uint16_t)o->reg; return true;
    case O_IMM: {
      uint64_t v = 0;
      if (!imm_bits(p, o, ty, &v)) return false;
      return const_reg(p, v, out, c->line);
    }
    case O_SREG:
    case O_SYM: return materialise(c, o, out);
    case O_PRED: return pp_fail(p, c->line, "expected a register or immediate, found a predicate");
    default: return pp_fail(p, c->line, "expected a register or immediate operand");
  }
}

static bool dst(ctx *c, const opnd *o, uint16_t *out) {
  P *p = c->p;
  if (o->k == O_REG) {
    *out = (uint16_t)o->reg;
    return true;
  }
  if (o->k == O_SINK) {
    if (p->sink_reg == PTX_R_NONE) {
      uint16_t r = 0;
      if (!new_reg(p, &r, true, c->line)) return false;
      p->sink_reg = r;
    }
    *out = (uint16_t)p->sink_reg;
    return true;
  }
  return pp_fail(p, c->line, "expected a destination register");
}

static bool sink_pred(ctx *c, uint16_t *out) {
  P *p = c->p;
  if (p->sink_pred == PTX_R_NONE) {
    if (p->fn->npreds + 1 > PTX_MAX_PREDS) return pp_fail(p, c->line, "too many predicates");
    p->sink_pred = p->fn->npreds++;
  }
  *out = (uint16_t)p->sink_pred;
  return true;
}

static bool pdst(ctx *c, const opnd *o, uint16_t *out) {
  if (o->k == O_PRED && !o->neg) {
    *out = (uint16_t)o->reg;
    return true;
  }
  if (o->k == O_SINK) return sink_pred(c, out);
  return pp_fail(c->p, c->line, "expected a destination predicate");
}

/* predicate source: %p, !%p, or 0/1 */
static bool psrc(ctx *c, const opnd *o, uint16_t *out, bool *neg) {
  *neg = false;
  if (o->k == O_PRED) {
    *out = (uint16_t)o->reg;
    *neg = o->neg;
    return true;
  }
  if (o->k == O_IMM && o->num.kind == NUM_INT) {
    *out = o->num.bits ? 1 : 0;
    return true;
  }
  return pp_fail(c->p, c->line, "expected a predicate operand");
}

static bool nops(ctx *c, unsigned lo, unsigned hi) {
  if (c->no < lo || c->no > hi) {
    if (lo == hi) return pp_fail(c->p, c->line, "'%.*s' takes %u operands, found %u", (int)(c->opc.n > 40 ? 40 : c->opc.n), c->opc.s, lo, c->no);
    return pp_fail(c->p, c->line, "'%.*s' takes %u to %u operands, found %u", (int)(c->opc.n > 40 ? 40 : c->opc.n), c->opc.s, lo, hi, c->no);
  }
  return true;
}

static ptx_ty one_type(ctx *c) { return c->md.nty ? c->md.ty[c->md.nty - 1] : TY_NONE; }

/* ------------------------------------------------------------------ arithmetic */

typedef struct arith {
  const char *name;
  uint8_t op;
  uint8_t nsrc;
} arith;

static const arith kArith[] = {
    {"add", G_ADD, 2},   {"sub", G_SUB, 2},     {"mul", G_MULLO, 2},  {"mad", G_MADLO, 3},   {"fma", G_FMA, 3},
    {"div", G_DIV, 2},   {"rem", G_REM, 2},     {"min", G_MIN, 2},    {"max", G_MAX, 2},     {"abs", G_ABS, 1},
    {"neg", G_NEG, 1},   {"and", G_AND, 2},     {"or", G_OR, 2},      {"xor", G_XOR, 2},     {"not", G_NOT, 1},
    {"cnot", G_CNOT, 1}, {"shl", G_SHL, 2},     {"shr", G_SHR, 2},    {"popc", G_POPC, 1},   {"clz", G_CLZ, 1},
    {"brev", G_BREV, 1}, {"bfe", G_BFE, 3},     {"bfi", G_BFI, 4},    {"bfind", G_BFIND, 1}, {"sad", G_SAD, 3},
    {"mul24", G_MUL24LO, 2}, {"mad24", G_MAD24LO, 3}, {"prmt", G_PRMT, 3}, {"shf", G_SHF_L, 3}, {"rcp", G_RCP, 1}, {"sqrt", G_SQRT, 1},
    {"rsqrt", G_RSQRT, 1}, {"sin", G_SIN, 1},  {"cos", G_COS, 1},    {"lg2", G_LG2, 1},     {"ex2", G_EX2, 1},
    {"tanh", G_TANH, 1}, {"copysign", G_COPYSIGN, 2}};

static bool d_arith(ctx *c, const arith *a) {
  P *p = c->p;
  mods *md = &c->md;
  int rnd = rounding(md);
  bool ftz = has(md, "ftz"), sat = has(md, "sat"), approx = has(md, "approx"), full = has(md, "full");
  bool lo = has(md, "lo"), hi = has(md, "hi"), wide = has(md, "wide");
  if (has(md, "cc")) return unsup(c, "carry (.cc)");
  bool shf_r = false, shf_clamp = false;
  if (a->op == G_SHF_L) {
    bool l = has(md, "l");
    shf_r = has(md, "r");
    shf_clamp = has(md, "clamp");
    bool wrap = has(md, "wrap");
    if (l == shf_r || shf_clamp == wrap || one_type(c) != TY_B32) return pp_fail(p, c->line, "expected shf.{l,r}.{wrap,clamp}.b32");
  }
  if (has(md, "shiftamt")) return unsup(c, ".shiftamt");
  ptx_ty ty = one_type(c);
  if (md->nty != 1) {
    if (a->op == G_PRMT && md->nty == 1) {
    } else {
      return pp_fail(p, c->line, "expected one type modifier on '%.*s'", (int)(c->opc.n > 40 ? 40 : c->opc.n), c->opc.s);
    }
  }
  if (a->op == G_PRMT && (has(md, "f4e") || has(md, "b4e") || has(md, "rc8") || has(md, "ecl") || has(md, "ecr") || has(md, "rc16")))
    return unsup(c, "prmt mode");
  if (!nops(c, 1 + a->nsrc, 1 + a->nsrc)) return false;
  if (ty == TY_F16 || ty == TY_F16X2) return unsup(c, "half-precision arithmetic");
  uint8_t op = a->op;
  if (op == G_MULLO && hi) op = G_MULHI;
  if (op == G_MULLO && wide) op = G_MULWIDE;
  if (op == G_MADLO && hi) op = G_MADHI;
  if (op == G_MADLO && wide) op = G_MADWIDE;
  if (op == G_SHF_L && shf_r) op = G_SHF_R;
  if (op == G_MUL24LO && hi) return unsup(c, "mul24.hi");
  if (op == G_MAD24LO && hi) return unsup(c, "mad24.hi");
  (void)lo;
  /* predicate logic */
  if (ty == TY_PRED) {
    if (op != G_AND && op != G_OR && op != G_XOR && op != G_NOT) return pp_fail(p, c->line, "expected an integer or float type");
    ptx_inst *in = emit(c);
    if (!in) return false;
    in->kind = K_PRED_LOGIC;
    in->op = op;
    in->ty = TY_PRED;
    in->cls = PTX_IC_ALU;
    bool n1 = false, n2 = false;
    if (!pdst(c, &c->o[0], &in->d[0]) || !psrc(c, &c->o[1], &in->pa, &n1)) return false;
    if (op != G_NOT && !psrc(c, &c->o[2], &in->pb, &n2)) return false;
    in->mod = (uint8_t)((n1 ? MOD_NEG_C : 0) | (n2 ? MOD_HAS_C : 0)); /* MOD_NEG_C: a negated; MOD_HAS_C: b negated */
    return true;
  }
  bool isf = ptx_ty_float(ty);
  if (isf && (op == G_REM || op == G_AND || op == G_OR || op == G_XOR || op == G_NOT || op == G_CNOT || op == G_SHL ||
              op == G_SHR || op == G_POPC || op == G_CLZ || op == G_BREV || op == G_BFE || op == G_BFI || op == G_BFIND ||
              op == G_SAD || op == G_MUL24LO || op == G_MAD24LO || op == G_PRMT || op == G_SHF_L || op == G_SHF_R || op == G_MULHI || op == G_MADHI ||
              op == G_MULWIDE || op == G_MADWIDE))
    return pp_fail(p, c->line, "'%.*s' does not take a float type", (int)(c->opc.n > 40 ? 40 : c->opc.n), c->opc.s);
  if (!isf && (op == G_FMA || op == G_RCP || op == G_SQRT || op == G_RSQRT || op == G_SIN || op == G_COS || op == G_LG2 ||
               op == G_EX2 || op == G_TANH || op == G_COPYSIGN))
    return pp_fail(p, c->line, "'%.*s' takes a float type", (int)(c->opc.n > 40 ? 40 : c->opc.n), c->opc.s);
  if (ty == TY_NONE) return pp_fail(p, c->line, "expected a type modifier");
  /* sources first: a special register or symbol source emits a mov before this instruction */
  uint16_t s[4] = {PTX_R_NONE, PTX_R_NONE, PTX_R_NONE, PTX_R_NONE};
  unsigned w = ptx_ty_bytes(ty);
  for (unsigned i = 0; i < a->nsrc; ++i) {
    ptx_ty sty = ty;
    /* shift amounts, bit positions and lengths are .u32 */
    if ((op == G_SHL || op == G_SHR) && i == 1) sty = TY_U32;
    if (op == G_BFE && i >= 1) sty = TY_U32;
    if (op == G_BFI && i >= 2) sty = TY_U32;
    if (op == G_MADWIDE && i == 2) sty = w == 4 ? TY_U64 : TY_U32;
    if ((op == G_SHF_L || op == G_SHF_R) && i == 2) sty = TY_U32;
    if (!src(c, &c->o[1 + i], sty, &s[i])) return false;
  }
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (!dst(c, &c->o[0], &in->d[0])) return false;
  for (int i = 0; i < 4; ++i) in->s[i] = s[i];
  in->ty = (uint8_t)ty;
  in->op = op;
  in->rnd = (uint8_t)rnd;
  in->mod = (uint8_t)((ftz ? MOD_FTZ : 0) | (sat ? MOD_SAT : 0) | (approx ? MOD_APPROX : 0) | (full ? MOD_FULL : 0) |
                       (shf_clamp ? MOD_CLAMP : 0));
  in->cls = PTX_IC_ALU;
  if (isf) {
    bool plain = !ftz && !sat && (rnd == RND_NONE || rnd == RND_RN);
    if (op == G_MADLO) op = G_FMA, in->op = G_FMA; /* mad.rn.f32 = fma.rn.f32 (sm_20+) */
    if (op == G_MULLO) op = G_MUL, in->op = G_MUL;
    if (ty == TY_F32) {
      in->kind = K_FGEN32;
      if (plain && op == G_ADD) in->kind = K_FADD32;
      if (plain && op == G_SUB) in->kind = K_FSUB32;
      if (plain && op == G_MUL) in->kind = K_FMUL32;
      if (plain && op == G_FMA) in->kind = K_FFMA32;
      if (op == G_RCP || op == G_SQRT || op == G_RSQRT || op == G_SIN || op == G_COS || op == G_LG2 || op == G_EX2 ||
          op == G_TANH || (op == G_DIV && (approx || full)))
        in->cls = PTX_IC_SFU;
    } else {
      in->kind = K_FGEN64;
      if (plain && op == G_ADD) in->kind = K_FADD64;
      if (plain && op == G_SUB) in->kind = K_FSUB64;
      if (plain && op == G_MUL) in->kind = K_FMUL64;
      if (plain && op == G_FMA) in->kind = K_FFMA64;
      in->cls = PTX_IC_FP64;
    }
    return true;
  }
  in->kind = K_IGEN;
  bool sgn = ptx_ty_signed(ty);
  if (!sat) {
    if (w == 4) {
      if (op == G_ADD) in->kind = K_ADD32;
      if (op == G_SUB) in->kind = K_SUB32;
      if (op == G_MULLO) in->kind = K_MULLO32;
      if (op == G_MADLO) in->kind = K_MAD32;
      if (op == G_MULWIDE) in->kind = sgn ? K_MULWIDE_S32 : K_MULWIDE_U32;
      if (op == G_AND) in->kind = K_AND32;
      if (op == G_OR) in->kind = K_OR32;
      if (op == G_XOR) in->kind = K_XOR32;
      if (op == G_SHL) in->kind = K_SHL32;
      if (op == G_SHR) in->kind = sgn ? K_SHRS32 : K_SHRU32;
    } else if (w == 8) {
      if (op == G_ADD) in->kind = K_ADD64;
      if (op == G_SUB) in->kind = K_SUB64;
      if (op == G_MULLO) in->kind = K_MULLO64;
      if (op == G_MADLO) in->kind = K_MAD64;
      if (op == G_AND) in->kind = K_AND64;
      if (op == G_OR) in->kind = K_OR64;
      if (op == G_XOR) in->kind = K_XOR64;
      if (op == G_SHL) in->kind = K_SHL64;
      if (op == G_SHR) in->kind = sgn ? K_SHRS64 : K_SHRU64;
    }
  } else if (!(ty == TY_S32 && (op == G_ADD || op == G_SUB || op == G_MADHI))) {
    return pp_fail(p, c->line, ".sat is only defined for add/sub/mad.hi .s32");
  }
  if ((op == G_MULWIDE || op == G_MADWIDE) && w == 8) return pp_fail(p, c->line, ".wide takes a 16- or 32-bit type");
  if (op == G_DIV || op == G_REM) in->cls = PTX_IC_INTDIV;
  return true;
}

/* ------------------------------------------------------------------ per-opcode decoders */

static bool d_setp(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  int cmp = comparison(md);
  if (cmp < 0) return pp_fail(p, c->line, "expected a comparison (.eq, .lt, ...) on setp");
  int bop = has(md, "and") ? BOP_AND : has(md, "or") ? BOP_OR : has(md, "xor") ? BOP_XOR : BOP_NONE;
  bool ftz = has(md, "ftz");
  ptx_ty ty = one_type(c);
  if (md->nty != 1 || ty == TY_PRED) return pp_fail(p, c->line, "expected one type modifier on setp");
  if (ty == TY_F16 || ty == TY_F16X2) return unsup(c, "half-precision setp");
  if (!nops(c, bop ? 4 : 3, bop ? 4 : 3)) return false;
  bool isf = ptx_ty_float(ty);
  if (!isf && cmp >= CMP_EQU) return pp_fail(p, c->line, "unordered comparisons need a float type");
  uint16_t a, b;
  if (!src(c, &c->o[1], ty, &a) || !src(c, &c->o[2], ty, &b)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (!pdst(c, &c->o[0], &in->d[0])) return false;
  if (c->o[0].has_q) {
    in->mod |= MOD_HAS_Q;
    if (c->o[0].q_k == O_SINK) {
      if (!sink_pred(c, &in->d[1])) return false;
    } else {
      in->d[1] = (uint16_t)c->o[0].q;
    }
  }
  if (bop) {
    bool neg = false;
    if (!psrc(c, &c->o[3], &in->pa, &neg)) return false;
    in->mod |= MOD_HAS_C | (neg ? MOD_NEG_C : 0);
  }
  if (ftz) in->mod |= MOD_FTZ;
  in->s[0] = a;
  in->s[1] = b;
  in->op = (uint8_t)cmp;
  in->ty = (uint8_t)ty;
  in->space = (uint8_t)bop;
  in->cls = ty == TY_F64 ? PTX_IC_FP64 : PTX_IC_ALU;
  unsigned w = ptx_ty_bytes(ty);
  if (ty == TY_F32) in->kind = K_SETP_F32;
  else if (ty == TY_F64) in->kind = K_SETP_F64;
  else if (w == 4) in->kind = K_SETP_I32;
  else if (w == 8) in->kind = K_SETP_I64;
  else in->kind = K_SETP_GEN;
  if (ftz && ty == TY_F32) in->kind = K_SETP_GEN;
  return true;
}

static bool d_testp(ctx *c) {
  mods *md = &c->md;
  static const char *k[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  int mode = -1;
  for (int i = 0; i < 6; ++i)
    if (has(md, k[i])) mode = i;
  ptx_ty ty = one_type(c);
  if (mode < 0 || (ty != TY_F32 && ty != TY_F64)) return pp_fail(c->p, c->line, "expected testp.{finite,infinite,number,notanumber,normal,subnormal}.{f32,f64}");
  if (!nops(c, 2, 2)) return false;
  uint16_t a;
  if (!src(c, &c->o[1], ty, &a)) return false;
  ptx_inst *in = emit(c);
  if (!in || !pdst(c, &c->o[0], &in->d[0])) return false;
  in->kind = K_SETP_GEN;
  in->op = (uint8_t)(0x80 | mode);
  in->ty = (uint8_t)ty;
  in->s[0] = a;
  in->s[1] = a;
  in->cls = PTX_IC_ALU;
  return true;
}

static bool d_selp(ctx *c, bool slct) {
  P *p = c->p;
  mods *md = &c->md;
  bool ftz = has(md, "ftz");
  if (md->nty != (slct ? 2u : 1u)) return pp_fail(p, c->line, "expected %s type modifier%s", slct ? "two" : "one", slct ? "s" : "");
  ptx_ty ty = md->ty[0];
  if (!nops(c, 4, 4)) return false;
  uint16_t a, b, cc = PTX_R_NONE;
  if (!src(c, &c->o[1], ty, &a) || !src(c, &c->o[2], ty, &b)) return false;
  bool neg = false;
  uint16_t pc = PTX_R_NONE;
  if (slct) {
    if (md->ty[1] != TY_S32 && md->ty[1] != TY_F32) return pp_fail(p, c->line, "expected slct.<type>.s32 or .f32");
    if (!src(c, &c->o[3], md->ty[1], &cc)) return false;
  } else if (!psrc(c, &c->o[3], &pc, &neg)) {
    return false;
  }
  ptx_inst *in = emit(c);
  if (!in || !dst(c, &c->o[0], &in->d[0])) return false;
  in->kind = slct ? K_SLCT : K_SELP;
  in->ty = (uint8_t)ty;
  in->ty2 = slct ? (uint8_t)md->ty[1] : 0;
  in->s[0] = a;
  in->s[1] = b;
  in->s[2] = cc;
  in->pa = pc;
  in->mod = (uint8_t)((neg ? MOD_NEG_C : 0) | (ftz ? MOD_FTZ : 0));
  in->cls = PTX_IC_ALU;
  return true;
}

static bool d_mov(ctx *c) {
  P *p = c->p;
  ptx_ty ty = one_type(c);
  if (c->md.nty != 1) return pp_fail(p, c->line, "expected one type modifier on mov");
  if (!nops(c, 2, 2)) return false;
  const opnd *d = &c->o[0], *a = &c->o[1];
  if (ty == TY_PRED) {
    ptx_inst *in;
    uint16_t pa = 0;
    bool neg = false;
    if (!psrc(c, a, &pa, &neg)) return false;
    in = emit(c);
    if (!in || !pdst(c, d, &in->d[0])) return false;
    in->kind = K_MOV_PRED;
    in->pa = pa;
    in->mod = neg ? MOD_NEG_C : 0;
    in->cls = PTX_IC_ALU;
    return true;
  }
  if (ty == TY_F16X2) return unsup(c, "mov.f16x2");
  if (a->k == O_SREG) {
    ptx_inst *in = emit(c);
    if (!in || !dst(c, d, &in->d[0])) return false;
    in->kind = K_SREG;
    in->op = a->sreg;
    in->ty = (uint8_t)ty;
    in->cls = PTX_IC_ALU;
    return true;
  }
  if (a->k == O_SYM) {
    if (a->var.symk == SYM_NONE) return pp_fail(p, c->line, "symbol without an address");
    ptx_inst *in = emit(c);
    if (!in || !dst(c, d, &in->d[0])) return false;
    in->kind = K_SYMADDR;
    in->sym = a->var.symk;
    in->imm = a->var.off;
    in->ty = (uint8_t)ty;
    in->cls = PTX_IC_ALU;
    return true;
  }
  if (a->k == O_NAME) return unsup(c, "function addresses");
  unsigned w = ptx_ty_bytes(ty);
  if (d->k == O_VEC || a->k == O_VEC) {
    /* pack {a,b} -> d or unpack d -> {a,b}: elements of w / n bytes */
    const opnd *v = d->k == O_VEC ? d : a;
    if (v->nvec != 2 && v->nvec != 4) return pp_fail(p, c->line, "expected a vector of 2 or 4 registers");
    if (w < 2 * v->nvec / 2 || (w != 2 && w != 4 && w != 8)) return pp_fail(p, c->line, "bad vector mov");
    ptx_inst *in = emit(c);
    if (!in) return false;
    in->kind = K_MOV;
    in->ty = (uint8_t)ty;
    in->vec = v->nvec;
    in->cls = PTX_IC_ALU;
    if (d->k == O_VEC) {
      if (a->k != O_REG) return pp_fail(p, c->line, "expected a register to unpack");
      in->ty2 = 2;
      in->s[0] = (uint16_t)a->reg;
      for (unsigned i = 0; i < v->nvec; ++i) {
        if (v->vec_k[i] == O_SINK) {
          opnd sk = {0};
          sk.k = O_SINK;
          if (!dst(c, &sk, &in->d[i])) return false;
        } else {
          in->d[i] = (uint16_t)v->vec[i];
        }
      }
    } else {
      in->ty2 = 1;
      if (!dst(c, d, &in->d[0])) return false;
      for (unsigned i = 0; i < v->nvec; ++i) {
        if (v->vec_k[i] != O_REG) return pp_fail(p, c->line, "expected registers to pack");
        in->s[i] = (uint16_t)v->vec[i];
      }
    }
    return true;
  }
  uint16_t s;
  if (!src(c, a, ty, &s)) return false;
  ptx_inst *in = emit(c);
  if (!in || !dst(c, d, &in->d[0])) return false;
  in->kind = K_MOV;
  in->ty = (uint8_t)ty;
  in->s[0] = s;
  in->cls = PTX_IC_ALU;
  return true;
}

static bool d_cvt(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  int rnd = rounding(md);
  bool ftz = has(md, "ftz"), sat = has(md, "sat");
  if (has(md, "relu") || has(md, "satfinite")) return unsup(c, "cvt.relu / .satfinite");
  if (md->nty != 2) return pp_fail(p, c->line, "expected cvt.<dtype>.<atype>");
  ptx_ty dt = md->ty[0], st = md->ty[1];
  if (dt == TY_PRED || st == TY_PRED || dt == TY_F16X2 || st == TY_F16X2) return pp_fail(p, c->line, "cvt does not take .pred or .f16x2");
  if (!nops(c, 2, 2)) return false;
  bool dfl = ptx_ty_float(dt), sfl = ptx_ty_float(st);
  if (sfl && !dfl && !(rnd >= RND_RNI && rnd <= RND_RPI)) return pp_fail(p, c->line, "float-to-integer cvt needs .rni, .rzi, .rmi or .rpi");
  if (dfl && sfl && ptx_ty_bytes(dt) < ptx_ty_bytes(st) && !(rnd >= RND_RN && rnd <= RND_RP))
    return pp_fail(p, c->line, "narrowing float cvt needs .rn, .rz, .rm or .rp");
  uint16_t a;
  if (!src(c, &c->o[1], st, &a)) return false;
  ptx_inst *in = emit(c);
  if (!in || !dst(c, &c->o[0], &in->d[0])) return false;
  in->s[0] = a;
  in->ty = (uint8_t)dt;
  in->ty2 = (uint8_t)st;
  in->rnd = (uint8_t)rnd;
  in->mod = (uint8_t)((ftz ? MOD_FTZ : 0) | (sat ? MOD_SAT : 0));
  in->cls = (dt == TY_F64 || st == TY_F64) ? PTX_IC_FP64 : PTX_IC_ALU;
  in->kind = K_CVT_GEN;
  unsigned dw = ptx_ty_bytes(dt), sw = ptx_ty_bytes(st);
  if (!dfl && !sfl && !sat) {
    if (dw == 8 && sw == 4) in->kind = ptx_ty_signed(st) ? K_CVT_SX32_64 : K_CVT_ZX32_64;
    if (dw == 4 && sw == 8) in->kind = K_CVT_TRUNC64_32;
  }
  return true;
}

static bool d_cvta(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  bool to = has(md, "to");
  ptx_space sp = space_mod(md);
  ptx_ty ty = one_type(c);
  if (sp == PTX_SPACE_GENERIC || sp == PTX_SPACE_PARAM) return pp_fail(p, c->line, "expected cvta[.to].{global,shared,local,const}");
  if (md->nty != 1 || (ty != TY_U64 && ty != TY_U32 && ty != TY_B64 && ty != TY_B32)) return pp_fail(p, c->line, "expected cvta .u32 or .u64");
  if (!nops(c, 2, 2)) return false;
  uint16_t a;
  if (!src(c, &c->o[1], TY_U64, &a)) return false;
  ptx_inst *in = emit(c);
  if (!in || !dst(c, &c->o[0], &in->d[0])) return false;
  in->kind = K_CVTA;
  in->space = (uint8_t)sp;
  in->vec = to ? 1 : 0;
  in->ty = (uint8_t)ty;
  in->s[0] = a;
  in->cls = PTX_IC_ALU;
  return true;
}

static ptx_space natural_space(uint8_t symk) {
  switch (symk) {
    case SYM_GLOBAL: return PTX_SPACE_GLOBAL;
    case SYM_CONST: return PTX_SPACE_CONST;
    case SYM_SHARED_MOD: case SYM_SHARED_FN: case SYM_SHARED_DYN: return PTX_SPACE_SHARED;
    case SYM_FRAME: case SYM_FRAME_PARAM: return PTX_SPACE_LOCAL;
    case SYM_KPARAM: return PTX_SPACE_PARAM;
    default: return PTX_SPACE_GENERIC;
  }
}

/* address operand -> base / sym / imm / effective space */
static bool address(ctx *c, const opnd *o, ptx_inst *in, ptx_space sp) {
  P *p = c->p;
  if (o->k != O_ADDR) return pp_fail(p, c->line, "expected an address [..]");
  in->base = o->has_base ? (uint16_t)o->base : PTX_R_NONE;
  in->imm = o->off;
  if (o->has_sym) {
    ptx_space nat = natural_space(o->var.symk);
    in->sym = o->var.symk == SYM_FRAME_PARAM ? SYM_FRAME : o->var.symk;
    in->imm += o->var.off;
    if (sp == PTX_SPACE_PARAM && nat == PTX_SPACE_LOCAL) { /* device-function params live in the frame */
      sp = PTX_SPACE_LOCAL;
      in->fparam = 1;
    }
    if (sp == PTX_SPACE_GENERIC) sp = nat;
    if (sp != nat) return pp_fail(p, c->line, "variable %s is not in the instruction's state space", pp_tokstr(p, &o->name));
  }
  in->space = (uint8_t)sp;
  return true;
}

static uint8_t mem_class(ptx_space sp, bool store) {
  switch (sp) {
    case PTX_SPACE_SHARED: return PTX_IC_SHARED;
    case PTX_SPACE_LOCAL: return PTX_IC_LOCAL;
    case PTX_SPACE_CONST: return PTX_IC_CONST;
    case PTX_SPACE_PARAM: return store ? PTX_IC_LOCAL : PTX_IC_CONST;
    default: return store ? PTX_IC_STORE : PTX_IC_LOAD;
  }
}

static bool d_ldst(ctx *c, bool store) {
  P *p = c->p;
  mods *md = &c->md;
  ignore_hints(md);
  ptx_space sp = space_mod(md);
  unsigned vec = has(md, "v2") ? 2 : has(md, "v4") ? 4 : 1;
  ptx_ty ty = one_type(c);
  if (md->nty != 1 || ty == TY_PRED) return pp_fail(p, c->line, "expected one value type on %s", store ? "st" : "ld");
  if (ty == TY_F16X2) ty = TY_B32;
  if (ty == TY_F16) ty = TY_B16;
  if (!nops(c, 2, 2)) return false;
  const opnd *val = store ? &c->o[1] : &c->o[0];
  const opnd *adr = store ? &c->o[0] : &c->o[1];
  if ((vec > 1) != (val->k == O_VEC) || (vec > 1 && val->nvec != vec)) return pp_fail(p, c->line, "expected a vector of %u registers", vec);
  uint16_t vals[4] = {PTX_R_NONE, PTX_R_NONE, PTX_R_NONE, PTX_R_NONE};
  if (store) {
    for (unsigned i = 0; i < vec; ++i) {
      if (vec > 1) {
        if (val->vec_k[i] != O_REG) return pp_fail(p, c->line, "expected registers to store");
        vals[i] = (uint16_t)val->vec[i];
      } else if (!src(c, val, ty, &vals[i])) {
        return false;
      }
    }
  }
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (!address(c, adr, in, sp)) return false;
  if (c->unsup) return true;
  if (store && (in->space == PTX_SPACE_CONST || (in->space == PTX_SPACE_PARAM))) return pp_fail(p, c->line, "cannot store to .const or kernel parameters");
  in->kind = store ? K_ST : K_LD;
  in->ty = (uint8_t)ty;
  in->vec = (uint8_t)vec;
  in->cls = mem_class((ptx_space)in->space, store);
  bool wide = false;
  for (unsigned i = 0; i < vec; ++i) {
    if (store) {
      in->s[i] = vals[i];
    } else if (vec > 1) {
      if (val->vec_k[i] == O_SINK) {
        opnd sk = {0};
        sk.k = O_SINK;
        if (!dst(c, &sk, &in->d[i])) return false;
      } else {
        in->d[i] = (uint16_t)val->vec[i];
      }
    } else if (!dst(c, val, &in->d[i])) {
      return false;
    }
    if (!store) wide = wide || p->fn->reg_wide[in->d[i]];
  }
  in->ty2 = wide;
  return true;
}

static bool d_atom(ctx *c, bool red) {
  P *p = c->p;
  mods *md = &c->md;
  ignore_hints(md);
  ptx_space sp = space_mod(md);
  if (sp != PTX_SPACE_GENERIC && sp != PTX_SPACE_GLOBAL && sp != PTX_SPACE_SHARED) return pp_fail(p, c->line, "atomics need .global, .shared or generic addresses");
  static const struct {
    const char *s;
    uint8_t op;
  } ops[] = {{"add", G_ADD}, {"min", G_MIN}, {"max", G_MAX}, {"exch", G_EXCH}, {"cas", G_CAS},
             {"inc", G_INC}, {"dec", G_DEC}, {"and", G_AND}, {"or", G_OR},    {"xor", G_XOR}};
  int op = -1;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; ++i)
    if (has(md, ops[i].s)) op = ops[i].op;
  if (op < 0) return pp_fail(p, c->line, "expected an atomic operation (.add, .cas, ...)");
  if (has(md, "noftz")) {
  }
  if (has(md, "v2") || has(md, "v4") || has(md, "v8")) return unsup(c, "vector atomics");
  ptx_ty ty = one_type(c);
  if (md->nty != 1) return pp_fail(p, c->line, "expected one type modifier");
  if (ty == TY_F16 || ty == TY_F16X2 || ty == TY_B16 || ty == TY_U16 || ty == TY_S16) return unsup(c, "16-bit atomics");
  unsigned w = ptx_ty_bytes(ty);
  if (w != 4 && w != 8) return pp_fail(p, c->line, "atomics take 32- or 64-bit types");
  if ((op == G_INC || op == G_DEC) && ty != TY_U32) return pp_fail(p, c->line, "atom.inc/.dec take .u32");
  if (ptx_ty_float(ty) && op != G_ADD && op != G_EXCH) return unsup(c, "float atomics other than add/exch");
  unsigned nsrc = op == G_CAS ? 2 : 1;
  if (!nops(c, (red ? 1 : 2) + nsrc, (red ? 1 : 2) + nsrc)) return false;
  unsigned a0 = red ? 0 : 1;
  uint16_t b, cc = PTX_R_NONE;
  if (!src(c, &c->o[a0 + 1], ty, &b)) return false;
  if (nsrc == 2 && !src(c, &c->o[a0 + 2], ty, &cc)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (!address(c, &c->o[a0], in, sp)) return false;
  if (c->unsup) return true;
  if (in->space != PTX_SPACE_GLOBAL && in->space != PTX_SPACE_SHARED && in->space != PTX_SPACE_GENERIC)
    return pp_fail(p, c->line, "atomics need .global, .shared or generic addresses");
  if (red) {
    opnd sk = {0};
    sk.k = O_SINK;
    if (!dst(c, &sk, &in->d[0])) return false;
  } else if (!dst(c, &c->o[0], &in->d[0])) {
    return false;
  }
  in->kind = K_ATOM;
  in->op = (uint8_t)op;
  in->ty = (uint8_t)ty;
  in->s[0] = b;
  in->s[1] = cc;
  in->cls = in->space == PTX_SPACE_SHARED ? PTX_IC_SHARED : PTX_IC_ATOMIC;
  return true;
}

static bool d_branch(ctx *c) {
  P *p = c->p;
  has(&c->md, "uni");
  if (!nops(c, 1, 1)) return false;
  if (c->o[0].k != O_NAME) return c->o[0].k == O_REG ? unsup(c, "indirect branch") : pp_fail(p, c->line, "expected a label");
  ptx_inst *in = emit(c);
  if (!in) return false;
  in->kind = K_BRA;
  in->cls = PTX_IC_BRANCH;
  in->reconv = PTX_PC_NONE;
  fixup *nf = pp_grow(p, p->fix, &p->cap_fix, p->nfix + 1, sizeof *nf);
  if (!nf) return false;
  p->fix = nf;
  fixup fx = {p->m->ncode - 1, c->o[0].name.s, c->o[0].name.n, c->line};
  p->fix[p->nfix++] = fx;
  return true;
}

static bool frame_param(ctx *c, const tok *t, uint32_t *off, uint32_t *size) {
  P *p = c->p;
  decl *d = pp_lookup(p, t->s, t->n);
  if (!d || d->what != D_VAR || d->symk != SYM_FRAME_PARAM) return pp_fail(p, c->line, "expected a .param variable, found %s", pp_tokstr(p, t));
  *off = (uint32_t)d->off;
  *size = (uint32_t)d->size;
  return true;
}

static bool d_call(ctx *c) {
  P *p = c->p;
  has(&c->md, "uni");
  unsigned i = 0;
  ptx_call_info ci = {0, 0, p->m->ncall_args, 0};
  if (i < c->no && c->o[i].k == O_LIST) {
    if (c->o[i].nlst != 1) return pp_fail(p, c->line, "expected one return parameter");
    if (!frame_param(c, &p->lst[c->o[i].lst0], &ci.ret_off, &ci.ret_size)) return false;
    ++i;
  }
  if (i >= c->no) return pp_fail(p, c->line, "expected a function name");
  if (c->o[i].k == O_REG) return unsup(c, "indirect call");
  if (c->o[i].k != O_NAME) return pp_fail(p, c->line, "expected a function name");
  tok fname = c->o[i].name;
  ++i;
  if (i < c->no && c->o[i].k == O_LIST) {
    for (uint32_t j = 0; j < c->o[i].nlst; ++j) {
      ptx_call_arg a;
      if (!frame_param(c, &p->lst[c->o[i].lst0 + j], &a.off, &a.size)) return false;
      ptx_call_arg *na = pp_grow(p, p->m->call_args, &p->cap_args, p->m->ncall_args + 1, sizeof *na);
      if (!na) return false;
      p->m->call_args = na;
      p->m->call_args[p->m->ncall_args++] = a;
      ci.nargs++;
    }
    ++i;
  }
  if (i != c->no) return unsup(c, "call with a prototype");
  ptx_call_info *nci = pp_grow(p, p->m->calls, &p->cap_calls, p->m->ncalls + 1, sizeof *nci);
  if (!nci) return false;
  p->m->calls = nci;
  p->m->calls[p->m->ncalls] = ci;
  ptx_inst *in = emit(c);
  if (!in) return false;
  in->kind = K_CALL;
  in->imm = p->m->ncalls++;
  in->cls = PTX_IC_BRANCH;
  fixup *nf = pp_grow(p, p->callfix, &p->cap_callfix, p->ncallfix + 1, sizeof *nf);
  if (!nf) return false;
  p->callfix = nf;
  fixup fx = {p->m->ncode - 1, fname.s, fname.n, c->line};
  p->callfix[p->ncallfix++] = fx;
  return true;
}

/* tex.1d.v4.DT.s32 {d0, d1, d2, d3}, [handle, {x}]: tex1Dfetch, element x of the linear
 * memory the handle's descriptor names (ptx_tex_desc); DT is s32, u32 or f32. The handle is a
 * 64-bit register (a texture object, or the address of a .texref) or a .texref by name. Other
 * geometries, float coordinates (filtered tex1D/tex2D on CUDA arrays), explicit samplers, levels,
 * gradients and the sparse form are not implemented. */
static bool d_tex(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  static const char *geo[] = {"2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms"};
  for (size_t i = 0; i < sizeof geo / sizeof geo[0]; ++i)
    if (has(md, geo[i])) return unsup(c, "texture geometry other than 1d");
  if (has(md, "level") || has(md, "grad") || has(md, "base")) return unsup(c, "texture levels and gradients");
  if (!has(md, "1d") || !has(md, "v4")) return pp_fail(p, c->line, "expected tex.1d.v4.DTYPE.CTYPE");
  if (md->nty != 2) return pp_fail(p, c->line, "expected a destination and a coordinate type on tex");
  ptx_ty dt = md->ty[0], ct = md->ty[1];
  if (ct == TY_F32) return unsup(c, "float texture coordinates (filtered fetches from CUDA arrays)");
  if (ct != TY_S32) return pp_fail(p, c->line, "expected .s32 or .f32 texture coordinates");
  if (dt != TY_S32 && dt != TY_U32 && dt != TY_F32) return unsup(c, "texture destination type other than s32, u32, f32");
  if (!nops(c, 2, 2)) return false;
  const opnd *d = &c->o[0], *a = &c->o[1];
  if (d->has_q) return unsup(c, "sparse texture fetch");
  if (d->k != O_VEC || d->nvec != 4) return pp_fail(p, c->line, "expected a vector of 4 destination registers");
  if (a->k != O_COMPLEX) return pp_fail(p, c->line, "expected a texture operand [handle, {x}]");
  if (a->has_q) return unsup(c, "texture fetch with an explicit sampler");
  if (a->nvec != 1 || a->vec_k[0] != O_REG) return pp_fail(p, c->line, "expected one coordinate register {x} for a 1d fetch");
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (a->has_sym) {
    if (a->var.symk != SYM_GLOBAL) return pp_fail(p, c->line, "texture %s is not a .global .texref", pp_tokstr(p, &a->name));
    in->sym = SYM_GLOBAL;
    in->imm = a->var.off + a->off;
  } else if (a->has_base) {
    in->base = (uint16_t)a->base;
    in->imm = a->off;
  } else {
    return pp_fail(p, c->line, "expected a texture handle register or .texref name");
  }
  for (unsigned i = 0; i < 4; ++i) {
    opnd one = {0};
    one.k = d->vec_k[i] == O_SINK ? O_SINK : O_REG;
    one.reg = d->vec[i];
    if (!dst(c, &one, &in->d[i])) return false;
  }
  in->kind = K_TEX;
  in->ty = (uint8_t)dt;
  in->s[0] = (uint16_t)a->vec[0];
  in->space = PTX_SPACE_GLOBAL;
  in->cls = PTX_IC_LOAD;
  return true;
}

static bool d_bar(ctx *c, bool barrier_kw) {
  P *p = c->p;
  mods *md = &c->md;
  has(md, "aligned");
  if (!barrier_kw && has(md, "warp")) {
    if (!has(md, "sync")) return pp_fail(p, c->line, "expected bar.warp.sync");
    if (!nops(c, 1, 1)) return false;
    ptx_inst *in = emit(c);
    if (!in) return false;
    in->kind = K_NOP;
    in->cls = PTX_IC_WARP;
    return true;
  }
  if (has(md, "arrive")) return unsup(c, "bar.arrive");
  if (has(md, "red")) {
    /* bar.red.popc.u32 d, a{, b}, {!}c   bar.red.{and,or}.pred p, a{, b}, {!}c */
    int op = has(md, "popc") ? G_POPC : has(md, "and") ? G_AND : has(md, "or") ? G_OR : -1;
    if (op < 0) return pp_fail(p, c->line, "expected bar.red.{popc,and,or}");
    if (one_type(c) != (op == G_POPC ? TY_U32 : TY_PRED)) return pp_fail(p, c->line, "expected bar.red.popc.u32 or bar.red.{and,or}.pred");
    if (!nops(c, 3, 4)) return false;
    uint16_t a, b = PTX_R_NONE, pc = 0;
    bool neg = false;
    if (!src(c, &c->o[1], TY_U32, &a)) return false;
    if (c->no == 4 && !src(c, &c->o[2], TY_U32, &b)) return false;
    if (!psrc(c, &c->o[c->no - 1], &pc, &neg)) return false;
    ptx_inst *in = emit(c);
    if (!in) return false;
    if (op == G_POPC ? !dst(c, &c->o[0], &in->d[0]) : !pdst(c, &c->o[0], &in->d[0])) return false;
    in->kind = K_BAR;
    in->op = (uint8_t)op;
    in->s[0] = a;
    in->s[1] = b;
    in->pa = pc;
    in->mod = neg ? MOD_NEG_C : 0;
    in->cls = PTX_IC_BARRIER;
    return true;
  }
  if (!has(md, "sync") && barrier_kw) return unsup(c, "barrier without .sync");
  if (!nops(c, 1, 2)) return false;
  uint16_t a, b = PTX_R_NONE;
  if (!src(c, &c->o[0], TY_U32, &a)) return false;
  if (c->no == 2 && !src(c, &c->o[1], TY_U32, &b)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  in->kind = K_BAR;
  in->s[0] = a;
  in->s[1] = b;
  in->cls = PTX_IC_BARRIER;
  return true;
}

static bool d_vote(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  bool sync = has(md, "sync");
  int op = has(md, "all") ? G_ALL : has(md, "any") ? G_ANY : has(md, "uni") ? G_UNI : has(md, "ballot") ? G_BALLOT : -1;
  if (op < 0) return pp_fail(p, c->line, "expected vote.{all,any,uni,ballot}");
  ptx_ty ty = one_type(c);
  if (op == G_BALLOT ? ty != TY_B32 : ty != TY_PRED) return pp_fail(p, c->line, "expected vote%s.%s", op == G_BALLOT ? ".ballot" : "", op == G_BALLOT ? "b32" : "pred");
  if (!nops(c, sync ? 3 : 2, sync ? 3 : 2)) return false;
  uint16_t pa = 0, mask = PTX_R_NONE;
  bool neg = false;
  if (!psrc(c, &c->o[1], &pa, &neg)) return false;
  if (sync && !src(c, &c->o[2], TY_U32, &mask)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  if (op == G_BALLOT ? !dst(c, &c->o[0], &in->d[0]) : !pdst(c, &c->o[0], &in->d[0])) return false;
  in->kind = K_VOTE;
  in->op = (uint8_t)op;
  in->pa = pa;
  in->mod = neg ? MOD_NEG_C : 0;
  in->s[0] = mask;
  in->cls = PTX_IC_WARP;
  return true;
}

static bool d_shfl(ctx *c) {
  P *p = c->p;
  mods *md = &c->md;
  bool sync = has(md, "sync");
  int op = has(md, "up") ? G_UP : has(md, "down") ? G_DOWN : has(md, "bfly") ? G_BFLY : has(md, "idx") ? G_IDX : -1;
  if (op < 0) return pp_fail(p, c->line, "expected shfl.{up,down,bfly,idx}");
  if (one_type(c) != TY_B32 || md->nty != 1) return pp_fail(p, c->line, "expected shfl .b32");
  if (!nops(c, sync ? 5 : 4, sync ? 5 : 4)) return false;
  uint16_t a, b, cc, mask = PTX_R_NONE;
  if (!src(c, &c->o[1], TY_B32, &a) || !src(c, &c->o[2], TY_B32, &b) || !src(c, &c->o[3], TY_B32, &cc)) return false;
  if (sync && !src(c, &c->o[4], TY_B32, &mask)) return false;
  ptx_inst *in = emit(c);
  if (!in || !dst(c, &c->o[0], &in->d[0])) return false;
  if (c->o[0].has_q) {
    in->mod |= MOD_HAS_Q;
    if (c->o[0].q_k == O_SINK) {
      if (!sink_pred(c, &in->d[1])) return false;
    } else {
      in->d[1] = (uint16_t)c->o[0].q;
    }
  }
  in->kind = K_SHFL;
  in->op = (uint8_t)op;
  in->s[0] = a;
  in->s[1] = b;
  in->s[2] = cc;
  in->s[3] = mask;
  in->cls = PTX_IC_WARP;
  return true;
}

static bool simple(ctx *c, uint8_t kind, uint8_t cls, unsigned nop) {
  if (!nops(c, nop, nop)) return false;
  ptx_inst *in = emit(c);
  if (!in) return false;
  in->kind = kind;
  in->cls = cls;
  return true;
}

/* ------------------------------------------------------------------ statement */

static bool decode(ctx *c) {
  P *p = c->p;
  const char *n = c->md.s[0];
  uint32_t l = c->md.n[0];
  c->md.used |= 1;
#define IS(w) (l == sizeof(w) - 1 && memcmp(n, w, l) == 0)
  for (size_t i = 0; i < sizeof kArith / sizeof kArith[0]; ++i)
    if (strlen(kArith[i].name) == l && memcmp(kArith[i].name, n, l) == 0) return d_arith(c, &kArith[i]);
  if (IS("setp")) return d_setp(c);
  if (IS("testp")) return d_testp(c);
  if (IS("selp")) return d_selp(c, false);
  if (IS("slct")) return d_selp(c, true);
  if (IS("mov")) return d_mov(c);
  if (IS("cvt")) return d_cvt(c);
  if (IS("cvta")) return d_cvta(c);
  if (IS("ld") || IS("ldu")) return d_ldst(c, false);
  if (IS("st")) return d_ldst(c, true);
  if (IS("atom")) return d_atom(c, false);
  if (IS("red")) return d_atom(c, true);
  if (IS("bra")) return d_branch(c);
  if (IS("call")) return d_call(c);
  if (IS("ret")) {
    has(&c->md, "uni");
    return simple(c, K_RET, PTX_IC_BRANCH, 0);
  }
  if (IS("exit")) return simple(c, K_EXIT, PTX_IC_EXIT, 0);
  if (IS("trap")) return simple(c, K_TRAP, PTX_IC_EXIT, 0);
  if (IS("bar")) return d_bar(c, false);
  if (IS("barrier")) return d_bar(c, true);
  if (IS("membar") || IS("fence")) {
    c->md.used = ~0u;
    if (c->md.cnt > 1 && c->md.n[1] >= 5 && memcmp(c->md.s[1], "proxy", 5) == 0) return unsup(c, "fence.proxy");
    return simple(c, K_MEMBAR, PTX_IC_MEMBAR, 0);
  }
  if (IS("vote")) return d_vote(c);
  if (IS("shfl")) return d_shfl(c);
  if (IS("tex")) return d_tex(c);
  if (IS("activemask")) {
    if (one_type(c) != TY_B32 || !nops(c, 1, 1)) return pp_fail(p, c->line, "expected activemask.b32 d");
    ptx_inst *in = emit(c);
    if (!in || !dst(c, &c->o[0], &in->d[0])) return false;
    in->kind = K_ACTIVEMASK;
    in->cls = PTX_IC_WARP;
    return true;
  }
  if (IS("prefetch") || IS("prefetchu") || IS("nanosleep") || IS("pmevent")) {
    c->md.used = ~0u;
    ptx_inst *in = emit(c);
    if (!in) return false;
    in->kind = K_NOP;
    in->cls = PTX_IC_ALU;
    return true;
  }
#undef IS
  return unsup(c, "opcode");
}

bool pp_instruction(P *p) {
  ctx c;
  memset(&c, 0, sizeof c);
  c.p = p;
  c.line = p->t.line;
  c.guard = PTX_R_NONE;
  p->nlst = 0;
  if (pp_is(p, '@')) {
    pp_next(p);
    if (pp_is(p, '!')) {
      c.guard_neg = 1;
      pp_next(p);
    }
    if (p->t.k != TK_WORD) return pp_fail(p, p->t.line, "expected a predicate after '@', found %s", pp_tokstr(p, &p->t));
    decl *d = pp_lookup(p, p->t.s, p->t.n);
    if (!d || d->what != D_PRED) return pp_fail(p, p->t.line, "expected a predicate after '@', found %s", pp_tokstr(p, &p->t));
    c.guard = (uint16_t)d->idx;
    pp_next(p);
  }
  if (p->t.k != TK_WORD || p->t.s[0] == '.' || p->t.s[0] == '%' || (p->t.s[0] >= '0' && p->t.s[0] <= '9'))
    return pp_fail(p, p->t.line, "expected an instruction, found %s", pp_tokstr(p, &p->t));
  c.opc = p->t;
  /* split the opcode into name and modifiers */
  const char *s = c.opc.s, *e = s + c.opc.n;
  while (s < e) {
    const char *q = s;
    while (q < e && *q != '.') ++q;
    if (c.md.cnt == 16) return pp_fail(p, c.line, "too many modifiers on %s", pp_tokstr(p, &c.opc));
    if (q == s) return pp_fail(p, c.line, "expected an instruction, found %s", pp_tokstr(p, &c.opc));
    c.md.s[c.md.cnt] = s;
    c.md.n[c.md.cnt] = (uint32_t)(q - s);
    if (c.md.cnt > 0) {
      ptx_ty t = pp_type_of(s, (uint32_t)(q - s));
      if (t != TY_NONE) {
        if (c.md.nty == 4) return pp_fail(p, c.line, "too many types on %s", pp_tokstr(p, &c.opc));
        c.md.ty[c.md.nty++] = t;
        c.md.used |= 1u << c.md.cnt;
      }
    }
    c.md.cnt++;
    s = q < e ? q + 1 : q;
    if (q + 1 == e && *q == '.') return pp_fail(p, c.line, "expected an instruction, found %s", pp_tokstr(p, &c.opc));
  }
  pp_next(p);
  /* operands */
  if (!pp_is(p, ';')) {
    for (;;) {
      if (c.no == MAXOPS) return pp_fail(p, p->t.line, "too many operands");
      if (!operand(p, &c.o[c.no++])) return false;
      if (pp_is(p, ',')) {
        pp_next(p);
        continue;
      }
      break;
    }
  }
  if (!pp_expect(p, ';', "';' ending the instruction")) return false;
  uint32_t before = p->m->ncode;
  if (!decode(&c)) return false;
  if (!c.unsup)
    for (unsigned i = 0; i < c.md.cnt; ++i)
      if (!(c.md.used & (1u << i))) {
        c.unsup = "modifier";
        break;
      }
  if (c.unsup) {
    /* not implemented: the kernels that reach it cannot run (ptx_kernel_find says why) */
    p->m->ncode = before;
    ptx_func *f = p->fn;
    if (!f->unsupported) {
      char buf[160];
      snprintf(buf, sizeof buf, "%.*s (%s)", (int)(c.opc.n > 80 ? 80 : c.opc.n), c.opc.s, c.unsup);
      f->unsupported = pp_strdup(p, buf, (uint32_t)strlen(buf));
      if (!f->unsupported) return false;
      f->unsupported_line = c.line;
    }
    ptx_inst *in = emit(&c);
    if (!in) return false;
    in->kind = K_NOP;
    in->cls = PTX_IC_ALU;
  }
  return true;
}
