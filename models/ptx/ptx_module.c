/* PTX parser, module level: directives, variables and their segments, function headers and
 * bodies (declarations, labels, scopes), call resolution, kernels; and the module API. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse_int.h"

#define MAX_VAR_BYTES (1ull << 30)
#define MAX_INIT_BYTES (64u << 20)

static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

static bool is_pow2(uint64_t a) { return a && (a & (a - 1)) == 0; }

/* ------------------------------------------------------------------ symbols */


static bool fn_scope_lookup(P *p, const char *k, uint32_t n, decl **out) {
  int32_t i = pp_hm_get(&p->fsyms, k, n);
  if (i >= 0) {
    *out = &p->decls[i];
    return true;
  }
  /* %r15 -> range %r<N> */
  uint32_t d = n;
  while (d > 0 && k[d - 1] >= '0' && k[d - 1] <= '9') --d;
  if (d == n || d == 0 || n - d > 9 || (n - d > 1 && k[d] == '0')) return false;
  i = pp_hm_get(&p->fsyms, k, d);
  if (i < 0 || p->decls[i].count == 0) return false;
  uint32_t num = 0;
  for (uint32_t j = d; j < n; ++j) num = num * 10 + (uint32_t)(k[j] - '0');
  if (num >= p->decls[i].count) return false;
  p->tmp = p->decls[i];
  p->tmp.idx += num;
  p->tmp.count = 0;
  *out = &p->tmp;
  return true;
}

decl *pp_lookup(P *p, const char *k, uint32_t n) {
  decl *d;
  if (p->fn && fn_scope_lookup(p, k, n, &d)) return d;
  int32_t v = pp_hm_get(&p->modsyms, k, n);
  if (v < 0) return NULL;
  const ptx_var *var = &p->m->vars[v];
  memset(&p->tmp, 0, sizeof p->tmp);
  p->tmp.what = D_VAR;
  p->tmp.size = var->size;
  p->tmp.off = (int64_t)var->offset;
  switch (var->space) {
    case PTX_SPACE_GLOBAL: p->tmp.symk = SYM_GLOBAL; break;
    case PTX_SPACE_CONST: p->tmp.symk = SYM_CONST; break;
    default: p->tmp.symk = var->is_extern ? SYM_SHARED_DYN : SYM_SHARED_MOD; break;
  }
  return &p->tmp;
}

static bool declare(P *p, const char *k, uint32_t n, decl d, uint32_t line) {
  /* the same name twice in one scope is an error; an outer one is shadowed */
  int32_t prev = pp_hm_get(&p->fsyms, k, n);
  uint32_t mark = p->depth ? p->scope_mark[p->depth - 1] : 0;
  if (prev >= 0 && (uint32_t)prev >= mark) return pp_fail(p, line, "'%.*s' declared twice", (int)(n > 60 ? 60 : n), k);
  decl *nd = pp_grow(p, p->decls, &p->cap_decls, p->ndecls + 1, sizeof *nd);
  if (!nd) return false;
  p->decls = nd;
  d.k = k;
  d.n = n;
  d.shadow = prev;
  p->decls[p->ndecls] = d;
  if (pp_hm_set(&p->fsyms, k, n, (int32_t)p->ndecls) == -2) return pp_fail(p, line, "out of memory");
  p->ndecls++;
  return true;
}

static void pop_scope(P *p) {
  uint32_t mark = p->scope_mark[--p->depth];
  while (p->ndecls > mark) {
    decl *d = &p->decls[--p->ndecls];
    pp_hm_set(&p->fsyms, d->k, d->n, d->shadow); /* existing key: no allocation */
  }
}

/* ------------------------------------------------------------------ small grammar pieces */

static bool expect_word(P *p, const char *what, tok *out) {
  if (p->t.k != TK_WORD) return pp_fail(p, p->t.line, "expected %s, found %s", what, pp_tokstr(p, &p->t));
  *out = p->t;
  pp_next(p);
  return true;
}

static bool expect_uint(P *p, const char *what, uint64_t *v) {
  uint64_t x = 0;
  if (p->t.k != TK_WORD || !pp_parse_int(p->t.s, p->t.n, &x))
    return pp_fail(p, p->t.line, "expected %s, found %s", what, pp_tokstr(p, &p->t));
  *v = x;
  pp_next(p);
  return true;
}

static bool is_ident(const tok *t) {
  if (t->k != TK_WORD || t->n == 0) return false;
  unsigned char c = (unsigned char)t->s[0];
  return c == '_' || c == '$' || c == '%' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool expect_ident(P *p, const char *what, tok *out) {
  if (!is_ident(&p->t)) return pp_fail(p, p->t.line, "expected %s, found %s", what, pp_tokstr(p, &p->t));
  for (uint32_t i = 0; i < p->t.n; ++i)
    if (p->t.s[i] == '.') return pp_fail(p, p->t.line, "expected %s, found %s", what, pp_tokstr(p, &p->t));
  *out = p->t;
  pp_next(p);
  return true;
}

/* Skip the rest of the current source line (.loc, .file, .target extras). */
static void skip_line(P *p, uint32_t line) {
  while (p->t.k != TK_EOF && p->t.line == line) pp_next(p);
}

/* [.align N] [.vN] .type -> element type, alignment (0 = natural), vector length */
typedef struct vartype {
  ptx_ty ty;
  uint32_t align;
  uint32_t vec;
  uint32_t elem; /* bytes per element (vector included) */
} vartype;

static bool parse_vartype(P *p, vartype *vt, bool allow_ptr) {
  vt->ty = TY_NONE;
  vt->align = 0;
  vt->vec = 1;
  for (;;) {
    if (pp_word(p, ".align")) {
      pp_next(p);
      uint64_t a = 0;
      if (!expect_uint(p, "an alignment", &a)) return false;
      if (!is_pow2(a) || a > 4096) return pp_fail(p, p->t.line, "expected a power-of-two alignment <= 4096");
      vt->align = (uint32_t)a;
    } else if (pp_word(p, ".v2") || pp_word(p, ".v4")) {
      vt->vec = p->t.s[2] == '2' ? 2 : 4;
      pp_next(p);
    } else if (allow_ptr && pp_word(p, ".ptr")) {
      /* .ptr [.space] [.align N]: attributes of the pointee, not of the parameter */
      pp_next(p);
      if (pp_word(p, ".global") || pp_word(p, ".shared") || pp_word(p, ".const") || pp_word(p, ".local")) pp_next(p);
      if (pp_word(p, ".align")) {
        pp_next(p);
        uint64_t a = 0;
        if (!expect_uint(p, "an alignment", &a)) return false;
      }
    } else if (p->t.k == TK_WORD && p->t.n > 1 && p->t.s[0] == '.' && pp_type_of(p->t.s + 1, p->t.n - 1) != TY_NONE &&
               vt->ty == TY_NONE) {
      vt->ty = pp_type_of(p->t.s + 1, p->t.n - 1);
      pp_next(p);
    } else {
      break;
    }
  }
  if (vt->ty == TY_NONE || vt->ty == TY_PRED)
    return pp_fail(p, p->t.line, "expected a variable type (.b8 .. .f64), found %s", pp_tokstr(p, &p->t));
  vt->elem = ptx_ty_bytes((ptx_ty)vt->ty) * vt->vec;
  if (!vt->align) vt->align = vt->elem;
  return true;
}

/* name [N][M]... -> element count (0 with *unsized for name[]) */
static bool parse_dims(P *p, uint64_t *count, bool *unsized) {
  *count = 1;
  *unsized = false;
  while (pp_is(p, '[')) {
    pp_next(p);
    if (pp_is(p, ']')) {
      *unsized = true;
      pp_next(p);
      continue;
    }
    uint64_t d = 0;
    if (!expect_uint(p, "an array size", &d)) return false;
    if (!pp_expect(p, ']', "']'")) return false;
    if (d && *count > MAX_VAR_BYTES / d) return pp_fail(p, p->t.line, "array too large (limit %llu bytes)", (unsigned long long)MAX_VAR_BYTES);
    *count *= d;
  }
  if (*unsized) *count = 0;
  return true;
}

/* ------------------------------------------------------------------ initialisers */

static bool put_elem(P *p, uint8_t *img, uint64_t at, const vartype *vt, const tok *t, bool neg) {
  numlit nl;
  if (!pp_parse_num(t->s, t->n, &nl)) {
    if (is_ident(t)) return pp_fail(p, t->line, "address initialisers (%s) are not supported", pp_tokstr(p, t));
    return pp_fail(p, t->line, "expected a number in the initialiser, found %s", pp_tokstr(p, t));
  }
  unsigned sz = ptx_ty_bytes(vt->ty);
  uint64_t bits;
  if (vt->ty == TY_F32) {
    if (nl.kind == NUM_F32) bits = nl.bits;
    else if (nl.kind == NUM_F64) bits = ptx_bits32((float)ptx_f64(nl.bits));
    else if (nl.kind == NUM_DEC) bits = ptx_bits32((float)nl.d);
    else bits = ptx_bits32((float)nl.bits);
    if (neg) bits ^= 0x80000000u;
  } else if (vt->ty == TY_F64) {
    if (nl.kind == NUM_F64) bits = nl.bits;
    else if (nl.kind == NUM_F32) bits = ptx_bits64((double)ptx_f32(nl.bits));
    else if (nl.kind == NUM_DEC) bits = ptx_bits64(nl.d);
    else bits = ptx_bits64((double)nl.bits);
    if (neg) bits ^= 0x8000000000000000ull;
  } else {
    if (nl.kind == NUM_DEC) return pp_fail(p, t->line, "expected an integer in the initialiser, found %s", pp_tokstr(p, t));
    bits = neg ? (uint64_t)0 - nl.bits : nl.bits;
  }
  for (unsigned i = 0; i < sz; ++i) img[at + i] = (uint8_t)(bits >> (8 * i));
  return true;
}

/* Make the initial image of segment s at least `need` bytes; new bytes are zero. */
static bool img_reserve(P *p, int s, uint64_t need) {
  if (need > MAX_INIT_BYTES) return pp_fail(p, p->t.line, "initialised data too large (limit %u bytes)", MAX_INIT_BYTES);
  uint32_t cap = p->cap_img[s];
  uint8_t *ni = pp_grow(p, p->m->seg_image[s], &p->cap_img[s], (uint32_t)need, 1);
  if (!ni) return false;
  if (p->cap_img[s] > cap) memset(ni + cap, 0, p->cap_img[s] - cap);
  p->m->seg_image[s] = ni;
  return true;
}

/* = v | = {v, {v, v}, ...}: elements from byte `base` of segment s (at most cap_elems unless unsized) */
static bool parse_init(P *p, int s, uint64_t base, const vartype *vt, uint64_t cap_elems, bool unsized, uint64_t *nelems) {
  uint64_t n = 0;
  unsigned depth = 0;
  unsigned esz = ptx_ty_bytes(vt->ty);
  do {
    if (pp_is(p, '{')) {
      if (++depth > 16) return pp_fail(p, p->t.line, "initialiser nested too deeply");
      pp_next(p);
      continue;
    }
    if (pp_is(p, '}')) {
      if (depth == 0) return pp_fail(p, p->t.line, "unbalanced '}' in initialiser");
      --depth;
      pp_next(p);
    } else {
      bool neg = false;
      if (pp_is(p, '-')) {
        neg = true;
        pp_next(p);
      }
      if (p->t.k != TK_WORD) return pp_fail(p, p->t.line, "expected an initialiser value, found %s", pp_tokstr(p, &p->t));
      if (!unsized && n >= cap_elems) return pp_fail(p, p->t.line, "too many initialiser values (the variable holds %llu)", (unsigned long long)cap_elems);
      uint64_t at = base + n * esz;
      if (!img_reserve(p, s, at + esz)) return false;
      tok t = p->t;
      pp_next(p);
      if (!put_elem(p, p->m->seg_image[s], at, vt, &t, neg)) return false;
      ++n;
    }
    if (depth > 0 && pp_is(p, ',')) pp_next(p);
  } while (depth > 0 && !p->failed && p->t.k != TK_EOF);
  if (depth > 0) return pp_fail(p, p->t.line, "expected '}' closing the initialiser");
  *nelems = n;
  return true;
}

/* ------------------------------------------------------------------ module-scope variables */

static bool module_var(P *p, ptx_space space, bool is_extern, uint32_t line) {
  vartype vt;
  if (pp_word(p, ".texref") && space == PTX_SPACE_GLOBAL && !is_extern) {
    /* a texture reference: a global variable holding its descriptor (ptx_tex_desc), which the
     * runtime writes when the program binds the reference; the handle is its address */
    pp_next(p);
    memset(&vt, 0, sizeof vt);
    vt.ty = TY_B8;
    vt.elem = sizeof(ptx_tex_desc);
    vt.vec = 1;
    vt.align = 8;
  } else if (pp_word(p, ".texref") || pp_word(p, ".samplerref") || pp_word(p, ".surfref")) {
    pp_next(p);
    tok name;
    if (!expect_ident(p, "a name", &name)) return false;
    return pp_expect(p, ';', "';'");
  } else if (!parse_vartype(p, &vt, false)) {
    return false;
  }
  tok name;
  if (!expect_ident(p, "a variable name", &name)) return false;
  uint64_t count;
  bool unsized;
  if (!parse_dims(p, &count, &unsized)) return false;
  if (count > MAX_VAR_BYTES / vt.elem) return pp_fail(p, line, "variable too large (limit %llu bytes)", (unsigned long long)MAX_VAR_BYTES);
  ptx_module *m = p->m;
  if (pp_hm_get(&p->modsyms, name.s, name.n) != -1) return pp_fail(p, line, "'%.*s' declared twice", (int)(name.n > 60 ? 60 : name.n), name.s);
  ptx_var v = {0};
  v.space = (uint8_t)space;
  v.is_extern = is_extern;
  v.align = vt.align;
  v.size = count * vt.elem;
  if (space == PTX_SPACE_SHARED && is_extern) {
    v.offset = 0;
    v.size = 0;
  } else if (space == PTX_SPACE_SHARED) {
    v.offset = align_up(m->shared_mod_bytes, vt.align);
    if (v.offset + v.size > MAX_VAR_BYTES) return pp_fail(p, line, "shared variables too large");
    m->shared_mod_bytes = (uint32_t)(v.offset + v.size);
    if (vt.align > m->shared_mod_align) m->shared_mod_align = vt.align;
  } else {
    if (is_extern) return pp_fail(p, line, "extern .global/.const variables are not supported (one module, no linking)");
    int s = space == PTX_SPACE_GLOBAL ? 0 : 1;
    v.offset = align_up(m->seg_size[s], vt.align);
    if (pp_is(p, '=')) {
      pp_next(p);
      uint64_t n = 0;
      if (!parse_init(p, s, v.offset, &vt, count * vt.vec, unsized, &n)) return false;
      if (unsized) {
        count = (n + vt.vec - 1) / vt.vec;
        v.size = count * vt.elem;
      }
      uint64_t end = v.offset + v.size;
      if (!img_reserve(p, s, end)) return false;
      if (end > m->seg_init[s]) m->seg_init[s] = end;
    } else if (unsized) {
      return pp_fail(p, line, "expected an array size or an initialiser for '%.*s'", (int)(name.n > 60 ? 60 : name.n), name.s);
    }
    m->seg_size[s] = v.offset + v.size;
    if (m->seg_size[s] > MAX_VAR_BYTES) return pp_fail(p, line, "global/const segment too large");
    if (vt.align > m->seg_align[s]) m->seg_align[s] = vt.align;
  }
  if (!pp_expect(p, ';', "';' after the variable")) return false;
  ptx_var *nv = pp_grow(p, m->vars, &p->cap_vars, m->nvars + 1, sizeof *nv);
  if (!nv) return false;
  m->vars = nv;
  v.name = pp_strdup(p, name.s, name.n);
  if (!v.name) return false;
  m->vars[m->nvars] = v;
  if (pp_hm_set(&p->modsyms, name.s, name.n, (int32_t)m->nvars) == -2) return pp_fail(p, line, "out of memory");
  m->nvars++;
  return true;
}

/* ------------------------------------------------------------------ functions */

typedef struct hdr_param {
  tok name;
  uint32_t size, align;
} hdr_param;

static bool parse_param(P *p, hdr_param *hp) {
  if (pp_word(p, ".reg")) return pp_fail(p, p->t.line, "register parameters (.reg) are not supported; expected .param");
  if (!pp_word(p, ".param")) return pp_fail(p, p->t.line, "expected .param, found %s", pp_tokstr(p, &p->t));
  pp_next(p);
  vartype vt;
  if (!parse_vartype(p, &vt, true)) return false;
  if (!expect_ident(p, "a parameter name", &hp->name)) return false;
  uint64_t count;
  bool unsized;
  if (!parse_dims(p, &count, &unsized)) return false;
  if (unsized || count * vt.elem > 65536) return pp_fail(p, p->t.line, "expected a parameter of 1..65536 bytes");
  hp->size = (uint32_t)(count * vt.elem);
  hp->align = vt.align;
  return true;
}

static int32_t find_func(P *p, const char *k, uint32_t n) {
  int32_t v = pp_hm_get(&p->modsyms, k, n);
  return v <= -2 ? -2 - v : -1;
}

static bool body(P *p);

static bool function(P *p, bool is_entry, uint32_t line) {
  hdr_param ret = {0}, params[256];
  bool has_ret = false;
  unsigned np = 0;
  if (!is_entry && pp_is(p, '(')) {
    pp_next(p);
    if (!parse_param(p, &ret)) return false;
    has_ret = true;
    if (!pp_expect(p, ')', "')' after the return parameter")) return false;
  }
  tok name;
  if (!expect_ident(p, "a function name", &name)) return false;
  if (pp_is(p, '(')) {
    pp_next(p);
    while (!pp_is(p, ')')) {
      if (np == 256) return pp_fail(p, p->t.line, "more than 256 parameters");
      if (!parse_param(p, &params[np++])) return false;
      if (pp_is(p, ',')) pp_next(p);
      else if (!pp_is(p, ')')) return pp_fail(p, p->t.line, "expected ',' or ')' in the parameter list, found %s", pp_tokstr(p, &p->t));
    }
    pp_next(p);
  }
  /* performance directives */
  for (;;) {
    if (pp_word(p, ".maxntid") || pp_word(p, ".reqntid") || pp_word(p, ".minnctapersm") || pp_word(p, ".maxnreg") ||
        pp_word(p, ".maxnctapersm") || pp_word(p, ".maxclusterrank") || pp_word(p, ".reqnctapercluster")) {
      pp_next(p);
      uint64_t v = 0;
      if (!expect_uint(p, "a number", &v)) return false;
      while (pp_is(p, ',')) {
        pp_next(p);
        if (!expect_uint(p, "a number", &v)) return false;
      }
    } else if (pp_word(p, ".noreturn")) {
      pp_next(p);
    } else if (pp_word(p, ".pragma")) {
      pp_next(p);
      if (p->t.k != TK_STR) return pp_fail(p, p->t.line, "expected a string after .pragma");
      pp_next(p);
      if (!pp_expect(p, ';', "';'")) return false;
    } else {
      break;
    }
  }
  ptx_module *m = p->m;
  int32_t fi = find_func(p, name.s, name.n);
  if (fi < 0) {
    if (pp_hm_get(&p->modsyms, name.s, name.n) != -1) return pp_fail(p, line, "'%.*s' declared twice", (int)(name.n > 60 ? 60 : name.n), name.s);
    ptx_func *nf = pp_grow(p, m->funcs, &p->cap_funcs, m->nfuncs + 1, sizeof *nf);
    if (!nf) return false;
    m->funcs = nf;
    fi = (int32_t)m->nfuncs;
    memset(&m->funcs[fi], 0, sizeof m->funcs[fi]);
    m->funcs[fi].name = pp_strdup(p, name.s, name.n);
    if (!m->funcs[fi].name) return false;
    m->nfuncs++;
    if (pp_hm_set(&p->modsyms, name.s, name.n, -2 - fi) == -2) return pp_fail(p, line, "out of memory");
  }
  ptx_func *f = &m->funcs[fi];
  if (f->has_body && pp_is(p, '{')) return pp_fail(p, line, "function '%s' defined twice", f->name);
  f->is_entry = is_entry;
  f->line = line;
  /* (re)record the parameter layout: the definition's names win over a prototype's */
  for (unsigned i = 0; i < f->nparams; ++i) free(f->params[i].name);
  free(f->params);
  f->params = np ? calloc(np, sizeof *f->params) : NULL;
  if (np && !f->params) return pp_fail(p, line, "out of memory");
  f->nparams = np;
  free(f->ret.name);
  memset(&f->ret, 0, sizeof f->ret);
  uint32_t off = 0;
  if (has_ret) {
    f->ret.name = pp_strdup(p, ret.name.s, ret.name.n);
    if (!f->ret.name) return false;
    f->ret.size = ret.size;
    f->ret.align = ret.align;
    f->ret.offset = 0;
    off = ret.size;
  }
  for (unsigned i = 0; i < np; ++i) {
    off = (uint32_t)align_up(off, params[i].align);
    f->params[i].name = pp_strdup(p, params[i].name.s, params[i].name.n);
    if (!f->params[i].name) return false;
    f->params[i].offset = off;
    f->params[i].size = params[i].size;
    f->params[i].align = params[i].align;
    off += params[i].size;
  }
  if (pp_is(p, ';')) {
    pp_next(p);
    return true;
  }
  if (!pp_is(p, '{')) return pp_fail(p, p->t.line, "expected '{' or ';' after the function header, found %s", pp_tokstr(p, &p->t));
  pp_next(p);
  /* function state */
  p->fn = f;
  p->fi = (uint32_t)fi;
  f->has_body = true;
  f->npreds = 2;
  f->first_pc = m->ncode;
  p->ndecls = 0;
  p->depth = 0;
  p->nfix = 0;
  p->frame = is_entry ? 0 : off;
  p->fshared = 0;
  p->sink_reg = PTX_R_NONE;
  pp_hm_free(&p->fsyms);
  pp_hm_free(&p->labels);
  pp_hm_free(&p->constmap);
  free(p->constkeys);
  free(p->constregs);
  p->constkeys = NULL;
  p->constregs = NULL;
  p->cmap_cap = p->cmap_used = 0;
  p->cap_fconst = 0;
  p->sink_pred = PTX_R_NONE;
  /* parameters become frame variables (functions) or parameter-buffer variables (kernels) */
  if (has_ret) {
    decl d = {0};
    d.what = D_VAR;
    d.symk = SYM_FRAME_PARAM;
    d.off = 0;
    d.size = ret.size;
    if (!declare(p, ret.name.s, ret.name.n, d, line)) return false;
  }
  for (unsigned i = 0; i < np; ++i) {
    decl d = {0};
    d.what = D_VAR;
    d.symk = is_entry ? SYM_KPARAM : SYM_FRAME_PARAM;
    d.off = f->params[i].offset;
    d.size = f->params[i].size;
    if (!declare(p, params[i].name.s, params[i].name.n, d, line)) return false;
  }
  bool ok = body(p);
  p->fn = NULL;
  return ok;
}

static bool body_var(P *p, ptx_space space, bool is_param, uint32_t line) {
  vartype vt;
  if (!parse_vartype(p, &vt, false)) return false;
  tok name;
  if (!expect_ident(p, "a variable name", &name)) return false;
  uint64_t count;
  bool unsized;
  if (!parse_dims(p, &count, &unsized)) return false;
  if (unsized) return pp_fail(p, line, "expected an array size for '%.*s'", (int)(name.n > 60 ? 60 : name.n), name.s);
  if (count > MAX_VAR_BYTES / vt.elem) return pp_fail(p, line, "variable too large");
  uint64_t size = count * vt.elem;
  decl d = {0};
  d.what = D_VAR;
  d.size = size;
  ptx_func *f = p->fn;
  if (space == PTX_SPACE_SHARED) {
    uint64_t o = align_up(p->fshared, vt.align);
    if (o + size > MAX_VAR_BYTES) return pp_fail(p, line, "shared variables too large");
    d.symk = SYM_SHARED_FN;
    d.off = (int64_t)o;
    p->fshared = (uint32_t)(o + size);
    f->shared_bytes = p->fshared;
    if (vt.align > f->shared_align) f->shared_align = vt.align;
  } else {
    uint64_t o = align_up(p->frame, vt.align);
    if (o + size > (1u << 24)) return pp_fail(p, line, "local/param variables of a function exceed 16 MiB");
    d.symk = is_param ? SYM_FRAME_PARAM : SYM_FRAME;
    d.off = (int64_t)o;
    p->frame = (uint32_t)(o + size);
  }
  if (pp_is(p, '=')) return pp_fail(p, line, "initialisers of function-scope variables are not supported");
  if (!declare(p, name.s, name.n, d, line)) return false;
  return pp_expect(p, ';', "';' after the variable");
}

static bool body_reg(P *p, uint32_t line) {
  vartype vt = {TY_NONE, 0, 1, 0};
  if (pp_word(p, ".v2") || pp_word(p, ".v4")) return pp_fail(p, line, "vector registers are not supported");
  if (p->t.k == TK_WORD && p->t.n > 1 && p->t.s[0] == '.') vt.ty = pp_type_of(p->t.s + 1, p->t.n - 1);
  if (vt.ty == TY_NONE) return pp_fail(p, p->t.line, "expected a register type, found %s", pp_tokstr(p, &p->t));
  pp_next(p);
  ptx_func *f = p->fn;
  for (;;) {
    tok name;
    if (!expect_ident(p, "a register name", &name)) return false;
    uint64_t cnt = 0;
    if (pp_is(p, '<')) {
      pp_next(p);
      if (!expect_uint(p, "a register count", &cnt)) return false;
      if (!pp_expect(p, '>', "'>'")) return false;
      if (cnt == 0) return pp_fail(p, line, "expected a register count > 0");
    }
    uint64_t need = cnt ? cnt : 1;
    decl d = {0};
    d.count = (uint32_t)(cnt > PTX_MAX_REGS ? PTX_MAX_REGS + 1 : cnt);
    d.ty = (uint8_t)vt.ty;
    if (vt.ty == TY_PRED) {
      if (f->npreds + need > PTX_MAX_PREDS) return pp_fail(p, line, "too many predicates (limit %u)", PTX_MAX_PREDS);
      d.what = D_PRED;
      d.idx = f->npreds;
      f->npreds += (uint32_t)need;
    } else {
      if (f->nregs + need > PTX_MAX_REGS) return pp_fail(p, line, "too many registers (limit %u)", PTX_MAX_REGS);
      d.what = D_REG;
      d.idx = f->nregs;
      uint32_t cap = f->nregs;
      uint8_t *w = realloc(f->reg_wide, (size_t)(f->nregs + need));
      if (!w) return pp_fail(p, line, "out of memory");
      f->reg_wide = w;
      memset(w + cap, ptx_ty_bytes((ptx_ty)vt.ty) == 8, (size_t)need);
      f->nregs += (uint32_t)need;
    }
    if (!declare(p, name.s, name.n, d, line)) return false;
    if (pp_is(p, ',')) {
      pp_next(p);
      continue;
    }
    break;
  }
  return pp_expect(p, ';', "';' after the register declaration");
}

static bool body(P *p) {
  ptx_module *m = p->m;
  for (;;) {
    if (p->failed) return false;
    uint32_t line = p->t.line;
    if (p->t.k == TK_EOF) return pp_fail(p, line, "expected '}' closing function '%s'", p->fn->name);
    if (pp_is(p, '}')) {
      pp_next(p);
      if (p->depth == 0) break;
      pop_scope(p);
      continue;
    }
    if (pp_is(p, '{')) {
      if (p->depth == 64) return pp_fail(p, line, "blocks nested too deeply");
      p->scope_mark[p->depth++] = p->ndecls;
      pp_next(p);
      continue;
    }
    if (pp_is(p, ';')) {
      pp_next(p);
      continue;
    }
    if (p->t.k == TK_WORD && p->t.s[0] == '.') {
      if (pp_word(p, ".reg")) {
        pp_next(p);
        if (!body_reg(p, line)) return false;
      } else if (pp_word(p, ".local") || pp_word(p, ".param") || pp_word(p, ".shared")) {
        ptx_space sp = pp_word(p, ".shared") ? PTX_SPACE_SHARED : PTX_SPACE_LOCAL;
        bool is_param = pp_word(p, ".param");
        pp_next(p);
        if (!body_var(p, sp, is_param, line)) return false;
      } else if (pp_word(p, ".loc") || pp_word(p, ".file")) {
        skip_line(p, line);
      } else if (pp_word(p, ".pragma")) {
        pp_next(p);
        if (p->t.k != TK_STR) return pp_fail(p, p->t.line, "expected a string after .pragma");
        pp_next(p);
        if (!pp_expect(p, ';', "';'")) return false;
      } else {
        return pp_fail(p, line, "expected a declaration or an instruction, found %s", pp_tokstr(p, &p->t));
      }
      continue;
    }
    if (is_ident(&p->t)) {
      tok nx = pp_peek(p);
      if (nx.k == TK_PUNCT && nx.c == ':') {
        tok name = p->t;
        pp_next(p);
        pp_next(p);
        int32_t prev = pp_hm_set(&p->labels, name.s, name.n, (int32_t)(m->ncode - p->fn->first_pc));
        if (prev == -2) return pp_fail(p, line, "out of memory");
        if (prev != -1) return pp_fail(p, line, "label '%.*s' defined twice", (int)(name.n > 60 ? 60 : name.n), name.s);
        continue;
      }
    }
    if (!pp_instruction(p)) return false;
  }
  ptx_func *f = p->fn;
  f->npc = m->ncode - f->first_pc;
  f->frame_bytes = p->frame;
  if (f->nregs == 0) {
    /* executor windows are never empty */
    uint8_t *w = realloc(f->reg_wide, 1);
    if (!w) return pp_fail(p, p->t.line, "out of memory");
    f->reg_wide = w;
    w[0] = 0;
    f->nregs = 1;
  }
  for (uint32_t i = 0; i < p->nfix; ++i) {
    int32_t pc = pp_hm_get(&p->labels, p->fix[i].k, p->fix[i].n);
    if (pc < 0) return pp_fail(p, p->fix[i].line, "branch to undefined label '%.*s'", (int)(p->fix[i].n > 60 ? 60 : p->fix[i].n), p->fix[i].k);
    m->code[p->fix[i].pc].target = f->first_pc + (uint32_t)pc;
  }
  /* a body that can fall off its end (or has a label at its end) gets an implicit ret at the
   * closing brace */
  bool label_at_end = false;
  for (uint32_t i = 0; i < p->nfix; ++i) label_at_end |= m->code[p->fix[i].pc].target == f->first_pc + f->npc;
  if (f->npc == 0 || label_at_end || (m->code[m->ncode - 1].kind != K_RET && m->code[m->ncode - 1].kind != K_EXIT &&
                      !(m->code[m->ncode - 1].kind == K_BRA && m->code[m->ncode - 1].guard == PTX_R_NONE))) {
    ptx_inst *nc = pp_grow(p, m->code, &p->cap_code, m->ncode + 1, sizeof *nc);
    if (!nc) return false;
    m->code = nc;
    ptx_inst *in = &m->code[m->ncode++];
    memset(in, 0, sizeof *in);
    in->kind = K_RET;
    in->guard = PTX_R_NONE;
    in->fn = p->fi;
    in->line = p->t.line;
    f->npc++;
  }
  if (ptx_cfg_reconv(m, p->fi) != 0) return pp_fail(p, f->line, "out of memory");
  return true;
}

/* ------------------------------------------------------------------ top level */

static bool skip_section(P *p) {
  pp_next(p); /* .section */
  while (p->t.k != TK_EOF && !pp_is(p, '{')) pp_next(p);
  if (p->t.k == TK_EOF) return pp_fail(p, p->t.line, "expected '{' after .section");
  unsigned depth = 0;
  do {
    if (pp_is(p, '{')) depth++;
    else if (pp_is(p, '}')) depth--;
    pp_next(p);
  } while (depth > 0 && p->t.k != TK_EOF);
  if (depth) return pp_fail(p, p->t.line, "expected '}' closing .section");
  return true;
}

static bool toplevel(P *p) {
  uint32_t line = p->t.line;
  if (pp_word(p, ".version")) {
    pp_next(p);
    tok v;
    if (!expect_word(p, "a version such as 6.0", &v)) return false;
    unsigned a = 0, b = 0;
    char buf[16];
    if (v.n >= sizeof buf) return pp_fail(p, line, "expected a version such as 6.0");
    memcpy(buf, v.s, v.n);
    buf[v.n] = 0;
    char extra;
    if (sscanf(buf, "%u.%u%c", &a, &b, &extra) != 2 || a > 99 || b > 99) return pp_fail(p, line, "expected a version such as 6.0, found %s", pp_tokstr(p, &v));
    p->m->version_major = a;
    p->m->version_minor = b;
    return true;
  }
  if (pp_word(p, ".target")) {
    pp_next(p);
    tok t = {0};
    if (!expect_word(p, "a target such as sm_70", &t)) return false;
    if (t.n > 3 && memcmp(t.s, "sm_", 3) == 0) {
      unsigned sm = 0;
      for (uint32_t i = 3; i < t.n && t.s[i] >= '0' && t.s[i] <= '9' && sm < 10000; ++i) sm = sm * 10 + (unsigned)(t.s[i] - '0');
      p->m->sm = sm;
    }
    while (pp_is(p, ',')) {
      pp_next(p);
      if (!expect_word(p, "a target option", &t)) return false;
    }
    return true;
  }
  if (pp_word(p, ".address_size")) {
    pp_next(p);
    uint64_t a = 0;
    if (!expect_uint(p, "64", &a)) return false;
    if (a != 64) return pp_fail(p, line, "expected .address_size 64 (32-bit addressing is not supported)");
    return true;
  }
  if (pp_word(p, ".file") || pp_word(p, ".loc")) {
    skip_line(p, line);
    return true;
  }
  if (pp_word(p, ".section")) return skip_section(p);
  if (pp_word(p, ".pragma")) {
    pp_next(p);
    if (p->t.k != TK_STR) return pp_fail(p, p->t.line, "expected a string after .pragma");
    pp_next(p);
    return pp_expect(p, ';', "';'");
  }
  bool is_extern = false;
  while (pp_word(p, ".visible") || pp_word(p, ".extern") || pp_word(p, ".weak") || pp_word(p, ".common")) {
    if (pp_word(p, ".extern")) is_extern = true;
    pp_next(p);
  }
  if (pp_word(p, ".entry") || pp_word(p, ".func")) {
    bool e = pp_word(p, ".entry");
    pp_next(p);
    return function(p, e, line);
  }
  if (pp_word(p, ".global") || pp_word(p, ".const") || pp_word(p, ".shared")) {
    ptx_space sp = pp_word(p, ".global") ? PTX_SPACE_GLOBAL : pp_word(p, ".const") ? PTX_SPACE_CONST : PTX_SPACE_SHARED;
    pp_next(p);
    return module_var(p, sp, is_extern, line);
  }
  if (pp_word(p, ".local")) return pp_fail(p, line, "module-scope .local variables are not supported");
  return pp_fail(p, line, "expected a directive (.version, .target, .entry, .func, .global, ...), found %s", pp_tokstr(p, &p->t));
}

static void free_parser(P *p) {
  pp_hm_free(&p->modsyms);
  pp_hm_free(&p->fsyms);
  pp_hm_free(&p->labels);
  pp_hm_free(&p->constmap);
  free(p->constkeys);
  free(p->constregs);
  free(p->decls);
  free(p->fix);
  free(p->callfix);
}

int ptx_parse(const char *text, size_t len, const char *name, ptx_module **out, char *err, size_t errlen) {
  *out = NULL;
  if (err && errlen) err[0] = 0;
  P p;
  memset(&p, 0, sizeof p);
  p.src = p.cur = text ? text : "";
  p.end = p.src + (text ? len : 0);
  p.line = 1;
  p.name = name ? name : "<ptx>";
  p.err = err;
  p.errlen = errlen;
  ptx_module *m = calloc(1, sizeof *m);
  if (!m) {
    ptx_errf(err, errlen, p.name, 0, "out of memory");
    return -1;
  }
  p.m = m;
  m->name = pp_strdup(&p, p.name, (uint32_t)strlen(p.name));
  m->seg_align[0] = m->seg_align[1] = 1;
  m->shared_mod_align = 1;
  if (len > 0x7fffffffu) pp_fail(&p, 0, "input too large");
  pp_next(&p);
  while (!p.failed && p.t.k != TK_EOF) toplevel(&p);
  /* calls -> callee functions */
  for (uint32_t i = 0; !p.failed && i < p.ncallfix; ++i) {
    int32_t f = find_func(&p, p.callfix[i].k, p.callfix[i].n);
    if (f < 0) {
      pp_fail(&p, p.callfix[i].line, "call to undeclared function '%.*s'", (int)(p.callfix[i].n > 60 ? 60 : p.callfix[i].n), p.callfix[i].k);
      break;
    }
    ptx_inst *in = &m->code[p.callfix[i].pc];
    in->target = (uint32_t)f;
    const ptx_func *cf0 = &m->funcs[f];
    if (!cf0->has_body && strcmp(cf0->name, "vprintf") == 0) {
      /* kernel printf: clang passes the format and a buffer of the arguments (ptx_exec.c) */
      const ptx_call_info *ci = &m->calls[in->imm];
      bool ok = ci->nargs == 2 && (ci->ret_size == 0 || ci->ret_size == 4);
      for (unsigned j = 0; ok && j < 2; ++j) ok = m->call_args[ci->first_arg + j].size == 8;
      if (!ok) {
        pp_fail(&p, in->line, "call of 'vprintf' with arguments of the wrong number or size (expected a format and an argument buffer, 64-bit each)");
        break;
      }
      in->kind = K_VPRINTF;
      in->cls = PTX_IC_BRANCH;
      continue;
    }
    int nat = cf0->has_body ? -1 : ptx_native_find(cf0->name);
    if (nat >= 0) {
      /* a libdevice math function: one instruction evaluated per lane (ptx_native.c) */
      const ptx_call_info *ci = &m->calls[in->imm];
      unsigned rb, na, ab[2];
      ptx_native_sig(nat, &rb, &na, ab);
      bool ok = ci->ret_size == rb && ci->nargs == na;
      for (unsigned j = 0; ok && j < na; ++j) ok = m->call_args[ci->first_arg + j].size == ab[j];
      if (!ok) {
        pp_fail(&p, in->line, "call of '%s' with arguments of the wrong number or size", cf0->name);
        break;
      }
      in->kind = K_CALL_NATIVE;
      in->op = (uint8_t)nat;
      in->cls = rb == 8 ? PTX_IC_FP64 : PTX_IC_SFU;
      continue;
    }
    ptx_func *caller = &m->funcs[in->fn];
    uint32_t *nc = realloc(caller->callees, (caller->ncallees + 1) * sizeof *nc);
    if (!nc) {
      pp_fail(&p, p.callfix[i].line, "out of memory");
      break;
    }
    caller->callees = nc;
    nc[caller->ncallees++] = (uint32_t)f;
    /* the argument list must match the callee's formals */
    const ptx_call_info *ci = &m->calls[in->imm];
    const ptx_func *cf = &m->funcs[f];
    if (cf->has_body || cf->nparams) {
      if (ci->nargs != cf->nparams || (ci->ret_size != 0) != (cf->ret.size != 0)) {
        pp_fail(&p, in->line, "call of '%s' with %u arguments%s; it takes %u%s", cf->name, ci->nargs,
                ci->ret_size ? " and a return value" : "", cf->nparams, cf->ret.size ? " and returns a value" : "");
        break;
      }
    }
  }
  if (!p.failed) {
    unsigned nk = 0;
    for (uint32_t i = 0; i < m->nfuncs; ++i) nk += m->funcs[i].is_entry && m->funcs[i].has_body;
    m->kernels = nk ? calloc(nk, sizeof *m->kernels) : NULL;
    if (nk && !m->kernels) pp_fail(&p, 0, "out of memory");
    for (uint32_t i = 0; !p.failed && i < m->nfuncs; ++i) {
      if (!(m->funcs[i].is_entry && m->funcs[i].has_body)) continue;
      ptx_kernel *k = &m->kernels[m->nkernels++];
      k->mod = m;
      k->fn = i;
      if (ptx_kernel_layout(m, k, err, errlen) != 0) p.failed = true;
    }
  }
  free_parser(&p);
  if (p.failed) {
    ptx_free(m);
    return -1;
  }
  *out = m;
  return 0;
}

void ptx_free(ptx_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->nfuncs; ++i) {
    ptx_func *f = &m->funcs[i];
    free(f->name);
    for (unsigned j = 0; j < f->nparams; ++j) free(f->params[j].name);
    free(f->params);
    free(f->ret.name);
    free(f->const_reg);
    free(f->const_val);
    free(f->reg_wide);
    free(f->unsupported);
    free(f->callees);
  }
  for (uint32_t i = 0; i < m->nkernels; ++i) {
    ptx_kernel *k = &m->kernels[i];
    free(k->reg_base);
    free(k->pred_base);
    free(k->shared_base);
    free(k->reach);
    free(k->error);
  }
  for (uint32_t i = 0; i < m->nvars; ++i) free(m->vars[i].name);
  free(m->vars);
  free(m->kernels);
  free(m->funcs);
  free(m->code);
  free(m->calls);
  free(m->call_args);
  free(m->seg_image[0]);
  free(m->seg_image[1]);
  free(m->name);
  free(m);
}

/* ------------------------------------------------------------------ module API */

int ptx_module_check(const ptx_module *m, char *err, size_t errlen) {
  for (uint32_t i = 0; i < m->nkernels; ++i)
    if (m->kernels[i].error) {
      snprintf(err, errlen, "%s", m->kernels[i].error);
      return -1;
    }
  return 0;
}

unsigned ptx_module_kernel_count(const ptx_module *m) { return m->nkernels; }
const ptx_kernel *ptx_module_kernel_at(const ptx_module *m, unsigned i) { return i < m->nkernels ? &m->kernels[i] : NULL; }

const ptx_kernel *ptx_kernel_find(const ptx_module *m, const char *name, char *err, size_t errlen) {
  for (uint32_t i = 0; i < m->nkernels; ++i) {
    const ptx_kernel *k = &m->kernels[i];
    if (strcmp(m->funcs[k->fn].name, name) != 0) continue;
    if (k->error) {
      if (err && errlen) snprintf(err, errlen, "%s", k->error);
      return NULL;
    }
    return k;
  }
  ptx_errf(err, errlen, m->name, 0, "no kernel (.entry) named '%s'", name);
  return NULL;
}

ptx_segment ptx_module_segment(const ptx_module *m, ptx_space space) {
  ptx_segment s = {0, 1, NULL, 0};
  int i = space == PTX_SPACE_GLOBAL ? 0 : space == PTX_SPACE_CONST ? 1 : -1;
  if (i < 0) return s;
  s.size = m->seg_size[i];
  s.align = m->seg_align[i];
  s.image = m->seg_image[i];
  s.init_bytes = m->seg_init[i];
  return s;
}

void ptx_module_set_base(ptx_module *m, ptx_space space, uint64_t base) {
  if (space == PTX_SPACE_GLOBAL) m->seg_base[0] = base;
  if (space == PTX_SPACE_CONST) m->seg_base[1] = base;
}

int ptx_module_symbol(const ptx_module *m, const char *name, ptx_space *space, uint64_t *addr, uint64_t *size) {
  for (uint32_t i = 0; i < m->nvars; ++i) {
    const ptx_var *v = &m->vars[i];
    if (strcmp(v->name, name) != 0) continue;
    if (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST) return -1;
    int s = v->space == PTX_SPACE_GLOBAL ? 0 : 1;
    if (space) *space = (ptx_space)v->space;
    if (addr) *addr = m->seg_base[s] + v->offset;
    if (size) *size = v->size;
    return 0;
  }
  return -1;
}

ptx_kernel_info ptx_kernel_get_info(const ptx_kernel *k) {
  const ptx_func *f = &k->mod->funcs[k->fn];
  ptx_kernel_info i;
  memset(&i, 0, sizeof i);
  i.name = f->name;
  i.nparams = f->nparams;
  uint32_t end = 0;
  for (unsigned j = 0; j < f->nparams; ++j)
    if (f->params[j].offset + f->params[j].size > end) end = f->params[j].offset + f->params[j].size;
  i.param_bytes = end;
  i.shared_static = k->shared_static;
  i.local_per_thread = k->local_bytes;
  i.regs = k->nregs;
  i.insts = f->npc;
  i.line = f->line;
  return i;
}

ptx_param_info ptx_kernel_param(const ptx_kernel *k, unsigned i) {
  const ptx_func *f = &k->mod->funcs[k->fn];
  ptx_param_info r = {NULL, 0, 0, 0};
  if (i >= f->nparams) return r;
  r.name = f->params[i].name;
  r.offset = f->params[i].offset;
  r.size = f->params[i].size;
  r.align = f->params[i].align;
  return r;
}
