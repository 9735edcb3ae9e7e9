/* memside: the registry of memory-side controller policies and the helpers
 * they share (memside.h).
 *
 * Adding a policy = one file memside_<name>.c defining `const memside_ops
 * memside_<name>_ops` plus ONE line in MEMSIDE_POLICIES below:
 *     X(memside_<name>_ops, "<name>")
 * The string must equal the ops' .name (test_memside checks it).
 */
#include "memside.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMSIDE_POLICIES \
  X(memside_plain_ops, "plain") \
  X(memside_swap_ops, "swap") \
  X(memside_swap_forget_ops, "swap_forget") \
  X(memside_hostpage_ops, "hostpage") \
  X(memside_dcache_ops, "dcache") \
  X(memside_beari_ops, "beari") \
  X(memside_mccachei_ops, "mccachei") \
  X(memside_redcachei_ops, "redcachei") \
  X(memside_dbuff_ops, "dbuff") \
  X(memside_rapp_ops, "rapp") \
  X(memside_flrb_ops, "flrb") \
  X(memside_hgm_ops, "hgm")

#define X(sym, nm) extern const memside_ops sym;
MEMSIDE_POLICIES
#undef X

static const memside_ops *const memside_table[] = {
#define X(sym, nm) &sym,
    MEMSIDE_POLICIES
#undef X
};

static const char memside_name_list[] = ""
#define X(sym, nm) ", " nm
    MEMSIDE_POLICIES
#undef X
    ;

const memside_ops *memside_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof memside_table / sizeof memside_table[0]; ++i)
    if (strcmp(memside_table[i]->name, name) == 0) return memside_table[i];
  return NULL;
}

const char *memside_names(void) { return memside_name_list + 2; }
size_t memside_count(void) { return sizeof memside_table / sizeof memside_table[0]; }
const memside_ops *memside_at(size_t i) { return i < memside_count() ? memside_table[i] : NULL; }

int memside_check_map(const memside_cfg *cfg, char *err, size_t errlen) {
  /* A line is one device address range when its atoms are consecutive
   * columns of one row: the map's lowest column digit (with the byte offset)
   * spans a multiple of 128 B in every part. */
  const uint64_t chunk = amap_col_chunk_bytes(cfg->map);
  const uint64_t atom = cfg->map->atom_bytes;
  if (atom <= 128 && 128 % atom == 0 && chunk && chunk % 128 == 0) return 0;
  if (atom >= 128 && atom % 128 == 0) return 0; /* one atom holds whole lines */
  snprintf(err, errlen,
           "the address map splits a 128 B line over several rows or banks (lowest column chunk %llu B, atom %llu B); "
           "expected a layout whose first col field times off covers a multiple of 128 B, e.g. \"off:32 col:4 ...\"",
           (unsigned long long)chunk, (unsigned long long)atom);
  return -1;
}

int memside_param_index(const memside_params *p, const char *name) {
  if (!p || !name) return -1;
  for (uint32_t i = 0; i < p->count; ++i)
    if (strcmp(p->param[i].name, name) == 0) return (int)i;
  return -1;
}

/* Index of `text` among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *text) {
  const size_t n = strlen(text);
  int k = 0;
  for (const char *c = choices; c && *c; ++k) {
    const char *e = strchr(c, '|');
    const size_t len = e ? (size_t)(e - c) : strlen(c);
    if (len == n && strncmp(c, text, n) == 0) return k;
    if (!e) break;
    c = e + 1;
  }
  return -1;
}

int memside_param_parse(const memside_param *p, const char *text, memside_value *out) {
  char *end = NULL;
  switch (p->type) {
    case MEMSIDE_P_INT:
    case MEMSIDE_P_SIZE: {
      const long long v = strtoll(text, &end, 0);
      if (end == text || v < 0) return -1;
      long long mul = 1;
      while (*end == ' ') ++end;
      if (p->type == MEMSIDE_P_SIZE && *end) {
        const char u = (char)tolower((unsigned char)*end);
        mul = u == 'k' ? 1ll << 10 : u == 'm' ? 1ll << 20 : u == 'g' ? 1ll << 30 : u == 't' ? 1ll << 40 : 0;
        if (!mul) return -1;
        ++end;
        if (tolower((unsigned char)*end) == 'i') ++end;
        if (tolower((unsigned char)*end) == 'b') ++end;
      }
      if (*end || (double)v * (double)mul < p->min || (double)v * (double)mul > p->max) return -1;
      out->i = v * mul;
      return 0;
    }
    case MEMSIDE_P_FLOAT:
      out->f = strtod(text, &end);
      return end == text || *end || out->f < p->min || out->f > p->max ? -1 : 0;
    case MEMSIDE_P_BOOL:
      if (strcmp(text, "true") && strcmp(text, "false")) return -1;
      out->i = strcmp(text, "true") == 0;
      return 0;
    case MEMSIDE_P_ENUM:
      out->i = choice_index(p->choices, text);
      return out->i < 0 ? -1 : 0;
  }
  return -1;
}

int memside_param_defaults(const memside_params *p, memside_value *out) {
  for (uint32_t i = 0; p && i < p->count; ++i)
    if (memside_param_parse(&p->param[i], p->param[i].def, &out[i]) != 0) return (int)i;
  return -1;
}

uint32_t memside_page_part(const amap *map, uint64_t page, uint32_t partition, uint32_t *before) {
  const uint32_t k = map->part_channels ? map->part_channels : 1;
  uint32_t mine = 0;
  *before = 0;
  for (uint32_t i = 0; i < 32; ++i) {
    const uint32_t p = amap_channel(map, page * 4096 + i * 128) / k;
    if (p == partition) mine |= 1u << i;
    else if (p < partition) ++*before;
  }
  return mine;
}
