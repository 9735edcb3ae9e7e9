/* Parser state shared by ptx_parse.c (lexer, tables), ptx_module.c (directives, declarations,
 * functions) and ptx_decode.c (instructions). Parse time only. */
#ifndef STRATA_PTX_PARSE_INT_H
#define STRATA_PTX_PARSE_INT_H

#include <stddef.h>

#include "ptx_impl.h"

typedef enum { TK_EOF, TK_WORD, TK_PUNCT, TK_STR } tkind;
typedef struct tok {
  uint8_t k;
  char c;
  const char *s;
  uint32_t n;
  uint32_t line;
} tok;

typedef struct hent {
  const char *k;
  uint32_t n;
  int32_t v;
} hent;
typedef struct hmap {
  hent *e;
  uint32_t cap, used;
} hmap;

typedef enum { NUM_INT, NUM_F32, NUM_F64, NUM_DEC } numkind;
typedef struct numlit {
  numkind kind;
  uint64_t bits;
  double d;
} numlit;

/* A name declared in a function: register, predicate, or a variable with an address. */
typedef enum { D_REG, D_PRED, D_VAR } dkind;
typedef struct decl {
  const char *k;
  uint32_t n;
  uint8_t what;  /* dkind */
  uint8_t ty;    /* D_REG: declared type */
  uint8_t symk;  /* D_VAR: ptx_symk (SYM_FRAME_PARAM for .param variables of the frame) */
  uint32_t idx;  /* register / predicate index */
  uint32_t count; /* D_REG/D_PRED: range %name<count> (0: a single register) */
  int64_t off;   /* D_VAR: offset */
  uint64_t size; /* D_VAR: bytes */
  int32_t shadow; /* previous decl of the same name (outer scope), -1 */
} decl;

typedef struct fixup {
  uint32_t pc;
  const char *k;
  uint32_t n;
  uint32_t line;
} fixup;

typedef struct P {
  const char *src, *cur, *end;
  uint32_t line;
  tok t;
  const char *name;
  char *err;
  size_t errlen;
  bool failed;
  char tokbuf[64];
  ptx_module *m;
  uint32_t cap_img[2];
  uint32_t cap_code, cap_funcs, cap_vars, cap_calls, cap_args;
  hmap modsyms; /* name -> var index (>= 0) or ~func index (< -1 encoded as -2 - f) */
  /* current function */
  ptx_func *fn;
  uint32_t fi;
  hmap fsyms;
  decl *decls;
  uint32_t ndecls, cap_decls;
  uint32_t scope_mark[64];
  unsigned depth;
  hmap labels; /* name -> pc (relative) */
  fixup *fix;
  uint32_t nfix, cap_fix;
  fixup *callfix; /* module-level: call sites -> callee names */
  uint32_t ncallfix, cap_callfix;
  uint32_t cap_consts;
  hmap constmap; /* unused */
  uint64_t *constkeys; /* constant table: open addressing on the 64-bit value */
  uint32_t *constregs;
  uint32_t cmap_cap, cmap_used;
  uint32_t cap_fconst;
  tok lst[256]; /* names of the parenthesised lists of the current instruction */
  uint32_t nlst;
  uint32_t sink_pred;
  uint32_t sink_reg;
  uint32_t frame;         /* next free frame offset */
  uint32_t fshared;       /* next free function-scope shared offset */
  decl tmp;               /* pp_lookup's answer for module-scope variables */
} P;

bool pp_fail(P *p, uint32_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *pp_tokstr(P *p, const tok *t);
void *pp_grow(P *p, void *arr, uint32_t *cap, uint32_t need, size_t elem);
char *pp_strdup(P *p, const char *s, uint32_t n);
void pp_next(P *p);
tok pp_peek(P *p);
bool pp_is(const P *p, char c);
bool pp_word(const P *p, const char *w);
bool pp_expect(P *p, char c, const char *what);
int32_t pp_hm_get(const hmap *h, const char *k, uint32_t n);
int32_t pp_hm_set(hmap *h, const char *k, uint32_t n, int32_t v);
void pp_hm_free(hmap *h);
bool pp_parse_int(const char *s, uint32_t n, uint64_t *out);
bool pp_parse_num(const char *s, uint32_t n, numlit *out);
ptx_ty pp_type_of(const char *s, uint32_t n);

/* ptx_module.c */
decl *pp_lookup(P *p, const char *k, uint32_t n);
/* ptx_decode.c: parse one instruction statement (guard included) at p->t. */
bool pp_instruction(P *p);

#endif
