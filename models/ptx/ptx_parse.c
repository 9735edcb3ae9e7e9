/* PTX parser: text -> decoded module (docs/ptx.md "Parser"). A one-token-lookahead recursive
 * descent over a small lexer; symbols in hash tables with block scopes; every instruction is
 * decoded here into a ptx_inst (ptx_decode.c), so the executor never sees a string. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse_int.h"

void ptx_errf(char *err, size_t errlen, const char *name, uint32_t line, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  int n = snprintf(err, errlen, "%s:%u: ", name ? name : "<ptx>", line);
  if (n < 0) n = 0;
  if ((size_t)n < errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  /* one line: newlines and control characters from quoted input become spaces */
  for (char *q = err; *q; ++q)
    if ((unsigned char)*q < 0x20) *q = ' ';
}

unsigned ptx_ty_bytes(ptx_ty t) {
  switch (t) {
    case TY_B8: case TY_U8: case TY_S8: return 1;
    case TY_B16: case TY_U16: case TY_S16: case TY_F16: return 2;
    case TY_B32: case TY_U32: case TY_S32: case TY_F32: case TY_F16X2: return 4;
    case TY_B64: case TY_U64: case TY_S64: case TY_F64: return 8;
    default: return 0;
  }
}
bool ptx_ty_signed(ptx_ty t) { return t == TY_S8 || t == TY_S16 || t == TY_S32 || t == TY_S64; }
bool ptx_ty_float(ptx_ty t) { return t == TY_F16 || t == TY_F16X2 || t == TY_F32 || t == TY_F64; }

static const struct {
  const char *s;
  ptx_ty t;
} kTypes[] = {{"b8", TY_B8},   {"b16", TY_B16}, {"b32", TY_B32}, {"b64", TY_B64}, {"u8", TY_U8},
              {"u16", TY_U16}, {"u32", TY_U32}, {"u64", TY_U64}, {"s8", TY_S8},   {"s16", TY_S16},
              {"s32", TY_S32}, {"s64", TY_S64}, {"f16", TY_F16}, {"f16x2", TY_F16X2},
              {"f32", TY_F32}, {"f64", TY_F64}, {"pred", TY_PRED}};

ptx_ty pp_type_of(const char *s, uint32_t n) {
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i)
    if (strlen(kTypes[i].s) == n && memcmp(kTypes[i].s, s, n) == 0) return kTypes[i].t;
  return TY_NONE;
}

/* ------------------------------------------------------------------ errors */

bool pp_fail(P *p, uint32_t line, const char *fmt, ...) {
  if (p->failed) return false;
  p->failed = true;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ptx_errf(p->err, p->errlen, p->name, line, "%s", msg);
  return false;
}

/* "'tok'" for messages, truncated and printable */
const char *pp_tokstr(P *p, const tok *t) {
  if (t->k == TK_EOF) return "end of file";
  size_t n = t->n < 40 ? t->n : 40;
  size_t o = 0;
  p->tokbuf[o++] = '\'';
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)t->s[i];
    p->tokbuf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  if (t->n > 40) {
    memcpy(p->tokbuf + o, "...", 3);
    o += 3;
  }
  p->tokbuf[o++] = '\'';
  p->tokbuf[o] = 0;
  return p->tokbuf;
}

void *pp_grow(P *p, void *arr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return arr;
  uint64_t nc = *cap ? *cap : 16;
  while (nc < need) nc *= 2;
  if (nc > 0x7fffffffu / elem) {
    pp_fail(p, p->t.line, "input too large");
    return NULL;
  }
  void *q = realloc(arr, (size_t)nc * elem);
  if (!q) {
    pp_fail(p, p->t.line, "out of memory");
    return NULL;
  }
  *cap = (uint32_t)nc;
  return q;
}

char *pp_strdup(P *p, const char *s, uint32_t n) {
  char *q = malloc((size_t)n + 1);
  if (!q) {
    pp_fail(p, p->t.line, "out of memory");
    return NULL;
  }
  memcpy(q, s, n);
  q[n] = 0;
  return q;
}

/* ------------------------------------------------------------------ lexer */

static bool is_wch(unsigned char c) { return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.'; }

static void lex(P *p) {
  const char *c = p->cur, *e = p->end;
  for (;;) {
    while (c < e && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n' || *c == '\f' || *c == '\v')) {
      if (*c == '\n') p->line++;
      ++c;
    }
    if (c + 1 < e && c[0] == '/' && c[1] == '/') {
      while (c < e && *c != '\n') ++c;
      continue;
    }
    if (c + 1 < e && c[0] == '/' && c[1] == '*') {
      c += 2;
      while (c < e && !(c + 1 < e && c[0] == '*' && c[1] == '/')) {
        if (*c == '\n') p->line++;
        ++c;
      }
      c = c < e ? c + 2 : e;
      continue;
    }
    break;
  }
  p->t.line = p->line;
  p->t.s = c;
  if (c >= e) {
    p->t.k = TK_EOF;
    p->t.n = 0;
    p->cur = c;
    return;
  }
  if (is_wch((unsigned char)*c)) {
    const char *s = c;
    bool num = isdigit((unsigned char)*s) && !(e - s > 1 && s[0] == '0' && strchr("xXfFdDbB", s[1]));
    while (c < e) {
      if (is_wch((unsigned char)*c)) {
        ++c;
      } else if (num && (*c == '+' || *c == '-') && (c[-1] == 'e' || c[-1] == 'E')) {
        ++c;
      } else {
        break;
      }
    }
    p->t.k = TK_WORD;
    p->t.n = (uint32_t)(c - s);
  } else if (*c == '"') {
    const char *s = c++;
    while (c < e && *c != '"' && *c != '\n') ++c;
    if (c < e && *c == '"') ++c;
    p->t.k = TK_STR;
    p->t.n = (uint32_t)(c - s);
  } else {
    p->t.k = TK_PUNCT;
    p->t.c = *c;
    p->t.n = 1;
    ++c;
  }
  p->cur = c;
}

void pp_next(P *p) { lex(p); }

tok pp_peek(P *p) {
  const char *cur = p->cur;
  uint32_t line = p->line;
  tok save = p->t;
  lex(p);
  tok r = p->t;
  p->t = save;
  p->cur = cur;
  p->line = line;
  return r;
}

bool pp_is(const P *p, char c) { return p->t.k == TK_PUNCT && p->t.c == c; }
bool pp_word(const P *p, const char *w) {
  return p->t.k == TK_WORD && p->t.n == strlen(w) && memcmp(p->t.s, w, p->t.n) == 0;
}
bool pp_expect(P *p, char c, const char *what) {
  if (!pp_is(p, c)) return pp_fail(p, p->t.line, "expected %s, found %s", what, pp_tokstr(p, &p->t));
  pp_next(p);
  return true;
}

/* ------------------------------------------------------------------ hash tables */

static uint32_t hash(const char *s, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int32_t *hm_slot(hmap *h, const char *k, uint32_t n, bool *found) {
  uint32_t i = hash(k, n) & (h->cap - 1);
  for (;;) {
    hent *e = &h->e[i];
    if (!e->k) {
      *found = false;
      return &e->v;
    }
    if (e->n == n && memcmp(e->k, k, n) == 0) {
      *found = true;
      return &e->v;
    }
    i = (i + 1) & (h->cap - 1);
  }
}

int32_t pp_hm_get(const hmap *h, const char *k, uint32_t n) {
  if (!h->cap) return -1;
  bool f;
  int32_t *v = hm_slot((hmap *)h, k, n, &f);
  return f ? *v : -1;
}

/* Set k -> v; returns the previous value (-1 if none), or -2 when out of memory. */
int32_t pp_hm_set(hmap *h, const char *k, uint32_t n, int32_t v) {
  if ((h->used + 1) * 2 > h->cap) {
    uint32_t nc = h->cap ? h->cap * 2 : 64;
    hent *ne = calloc(nc, sizeof *ne);
    if (!ne) return -2;
    hmap nh = {ne, nc, 0};
    for (uint32_t i = 0; i < h->cap; ++i)
      if (h->e[i].k) {
        bool f;
        int32_t *s = hm_slot(&nh, h->e[i].k, h->e[i].n, &f);
        hent *ent = (hent *)((char *)s - offsetof(hent, v));
        ent->k = h->e[i].k;
        ent->n = h->e[i].n;
        *s = h->e[i].v;
        nh.used++;
      }
    free(h->e);
    *h = nh;
  }
  bool f;
  int32_t *s = hm_slot(h, k, n, &f);
  int32_t old = f ? *s : -1;
  if (!f) {
    hent *ent = (hent *)((char *)s - offsetof(hent, v));
    ent->k = k;
    ent->n = n;
    h->used++;
  }
  *s = v;
  return old;
}

void pp_hm_free(hmap *h) {
  free(h->e);
  h->e = NULL;
  h->cap = h->used = 0;
}

/* ------------------------------------------------------------------ numbers */

/* Integer literal (decimal, 0x hex, 0b binary, 0 octal; optional U suffix) -> bits. */
bool pp_parse_int(const char *s, uint32_t n, uint64_t *out) {
  if (n && (s[n - 1] == 'U' || s[n - 1] == 'u')) --n;
  if (n == 0) return false;
  unsigned base = 10;
  uint32_t i = 0;
  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, i = 2;
  else if (n > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, i = 2;
  else if (n > 1 && s[0] == '0') base = 8, i = 1;
  uint64_t v = 0;
  for (; i < n; ++i) {
    unsigned d;
    char c = s[i];
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return false;
    if (d >= base) return false;
    if (v > (UINT64_MAX - d) / base) return false;
    v = v * base + d;
  }
  *out = v;
  return true;
}

static bool hexbits(const char *s, uint32_t n, uint64_t *out) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < n; ++i) {
    char c = s[i];
    unsigned d;
    if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
    else return false;
    v = (v << 4) | d;
  }
  *out = v;
  return true;
}

/* A numeric literal: kind NUM_INT (bits), NUM_F32 (0f bits), NUM_F64 (0d bits), NUM_DEC (double). */
bool pp_parse_num(const char *s, uint32_t n, numlit *out) {
  if (n == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    out->kind = NUM_F32;
    return hexbits(s + 2, 8, &out->bits);
  }
  if (n == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    out->kind = NUM_F64;
    return hexbits(s + 2, 16, &out->bits);
  }
  if (!isdigit((unsigned char)s[0])) return false;
  bool dec = false;
  if (!(n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
    for (uint32_t i = 0; i < n; ++i)
      if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') dec = true;
  if (dec) {
    char buf[80];
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *endp;
    errno = 0;
    double d = strtod(buf, &endp);
    if (*endp) return false;
    out->kind = NUM_DEC;
    out->d = d;
    return true;
  }
  out->kind = NUM_INT;
  return pp_parse_int(s, n, &out->bits);
}
