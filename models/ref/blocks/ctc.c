/* ctc: Configurable Tag Cache reference model (see ctc.h for the contract and the
 * decisions; HMS paper Sec. III-D, Fig. 10). */
#include "ctc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(CTC_SECTOR_BITS == 32, "ctc sectors are uint32_t");
_Static_assert(CTC_SECTORS <= 8, "ctc valid/dirty masks are uint8_t");
_Static_assert((CTC_MAX_WAYS & (CTC_MAX_WAYS - 1)) == 0, "tree PLRU needs a power-of-two way count");
_Static_assert(CTC_MAX_WAYS == CTC_MAX_L2_WAYS * CTC_TCW_PER_L2W, "ways");
_Static_assert(CTC_PLRU_BITS <= 31, "plru bits fit uint32_t");

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

void ctc_default_cfg(ctc_cfg *cfg) {
  cfg->sets = CTC_SETS;
  cfg->row_bits = CTC_ROW_BITS;
  cfg->l2_ways = CTC_RESET_L2_WAYS;
}

static uint32_t log2u(uint32_t v) {
  uint32_t b = 0;
  while ((1u << b) < v) b++;
  return b;
}

/* Validate cfg; 0 or CTC_EINVAL with a reason. */
static int cfg_check(const ctc_cfg *cfg, char *err, size_t errlen) {
  if (!cfg || cfg->sets == 0 || (cfg->sets & (cfg->sets - 1)) != 0) {
    set_err(err, errlen, "ctc: sets must be a power of two >= 1");
    return CTC_EINVAL;
  }
  if (cfg->row_bits > 64 || cfg->row_bits <= log2u(cfg->sets) + CTC_SECTOR_IDX_BITS) {
    set_err(err, errlen, "ctc: row_bits must be > log2(sets) + 3 and <= 64");
    return CTC_EINVAL;
  }
  if (cfg->l2_ways > CTC_MAX_L2_WAYS) {
    set_err(err, errlen, "ctc: l2_ways must be 0..4 (CTC_MAX_L2_WAYS)");
    return CTC_EINVAL;
  }
  return CTC_OK;
}

static void set_up(ctc *c, const ctc_cfg *cfg) {
  c->cfg = *cfg;
  c->set_bits = log2u(cfg->sets);
  c->l2_ways = cfg->l2_ways;
}

int ctc_init(ctc *c, const ctc_cfg *cfg, char *err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  if (cfg_check(cfg, err, errlen) != CTC_OK) return CTC_EINVAL;
  c->lines = calloc((size_t)cfg->sets * CTC_MAX_WAYS, sizeof(ctc_line));
  c->plru = calloc(cfg->sets, sizeof(uint32_t));
  if (!c->lines || !c->plru) {
    free(c->lines);
    free(c->plru);
    memset(c, 0, sizeof(*c));
    set_err(err, errlen, "ctc: out of memory");
    return CTC_EINVAL;
  }
  c->own = 1;
  set_up(c, cfg);
  return CTC_OK;
}

size_t ctc_mem_bytes(const ctc_cfg *cfg) {
  if (cfg_check(cfg, NULL, 0) != CTC_OK) return 0;
  return (size_t)cfg->sets * CTC_MAX_WAYS * sizeof(ctc_line) + (size_t)cfg->sets * sizeof(uint32_t);
}

int ctc_init_in(ctc *c, const ctc_cfg *cfg, void *mem, char *err, size_t errlen) {
  memset(c, 0, sizeof(*c));
  if (cfg_check(cfg, err, errlen) != CTC_OK) return CTC_EINVAL;
  memset(mem, 0, ctc_mem_bytes(cfg));
  c->lines = (ctc_line *)mem;
  c->plru = (uint32_t *)(c->lines + (size_t)cfg->sets * CTC_MAX_WAYS);
  set_up(c, cfg);
  return CTC_OK;
}

void ctc_free(ctc *c) {
  if (c->own) {
    free(c->lines);
    free(c->plru);
  }
  memset(c, 0, sizeof(*c));
}

void ctc_reset(ctc *c) {
  memset(c->lines, 0, (size_t)c->cfg.sets * CTC_MAX_WAYS * sizeof(ctc_line));
  memset(c->plru, 0, (size_t)c->cfg.sets * sizeof(uint32_t));
  memset(&c->stats, 0, sizeof(c->stats));
  c->l2_ways = c->cfg.l2_ways;
}

uint32_t ctc_ways(const ctc *c) { return c->l2_ways * CTC_TCW_PER_L2W; }

uint32_t ctc_set_of(const ctc *c, uint64_t row) {
  return (uint32_t)((row >> CTC_SECTOR_IDX_BITS) & (c->cfg.sets - 1u));
}

uint64_t ctc_tag_of(const ctc *c, uint64_t row) { return row >> (CTC_SECTOR_IDX_BITS + c->set_bits); }

static uint64_t row_of(const ctc *c, uint64_t tag, uint32_t set, uint32_t sector) {
  return (tag << (CTC_SECTOR_IDX_BITS + c->set_bits)) | ((uint64_t)set << CTC_SECTOR_IDX_BITS) | sector;
}

static int row_ok(const ctc *c, uint64_t row) {
  return c->cfg.row_bits >= 64 || (row >> c->cfg.row_bits) == 0;
}

const ctc_line *ctc_line_at(const ctc *c, uint32_t set, uint32_t way) {
  return &c->lines[(size_t)set * CTC_MAX_WAYS + way];
}

static ctc_line *line_mut(ctc *c, uint32_t set, uint32_t way) {
  return &c->lines[(size_t)set * CTC_MAX_WAYS + way];
}

uint32_t ctc_plru_bits(const ctc *c, uint32_t set) { return c->plru[set]; }

/* Tree pseudo-LRU. Enabled ways are the prefix [0, n_en). Walking down, the
 * left subtree [lo, lo+half) always holds an enabled way (we only enter subtrees
 * that do); the right one does iff lo + half < n_en. */
static uint32_t plru_walk(uint32_t bits, uint32_t n_en) {
  uint32_t node = 0, lo = 0;
  for (uint32_t span = CTC_MAX_WAYS; span > 1; span >>= 1) {
    uint32_t half = span >> 1;
    uint32_t right = (lo + half < n_en) && ((bits >> node) & 1u);
    node = 2u * node + 1u + right;
    lo += right * half;
  }
  return lo;
}

/* Make `way` most recently used: each node on its path points away from it. */
static uint32_t plru_touch(uint32_t bits, uint32_t way) {
  uint32_t node = 0, lo = 0;
  for (uint32_t span = CTC_MAX_WAYS; span > 1; span >>= 1) {
    uint32_t half = span >> 1;
    uint32_t right = way >= lo + half;
    if (right)
      bits &= ~(1u << node); /* victim to the left */
    else
      bits |= 1u << node;    /* victim to the right */
    node = 2u * node + 1u + right;
    lo += right * half;
  }
  return bits;
}

int ctc_victim(const ctc *c, uint32_t set) {
  uint32_t n = ctc_ways(c);
  if (n == 0) return -1;
  for (uint32_t w = 0; w < n; w++)
    if (ctc_line_at(c, set, w)->valid == 0) return (int)w;
  return (int)plru_walk(c->plru[set], n);
}

/* Way holding tag in set among the enabled ways, or -1. */
static int find(const ctc *c, uint32_t set, uint64_t tag) {
  uint32_t n = ctc_ways(c);
  for (uint32_t w = 0; w < n; w++) {
    const ctc_line *l = ctc_line_at(c, set, w);
    if (l->valid && l->tag == tag) return (int)w;
  }
  return -1;
}

/* Dirty sectors of line (set, way) into wb[] (ascending sector); returns count. */
static uint32_t collect_wb(const ctc *c, uint32_t set, const ctc_line *l, ctc_wb *wb) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < CTC_SECTORS; s++) {
    if ((l->dirty >> s) & 1u) {
      wb[n].row = row_of(c, l->tag, set, s);
      wb[n].data = l->data[s];
      n++;
    }
  }
  return n;
}

int ctc_lookup(ctc *c, uint64_t row, ctc_result *r) {
  memset(r, 0, sizeof(*r));
  if (!row_ok(c, row)) return CTC_EINVAL;
  uint32_t set = ctc_set_of(c, row), sec = (uint32_t)(row & (CTC_SECTORS - 1u));
  c->stats.lookups++;
  int w = find(c, set, ctc_tag_of(c, row));
  if (w < 0) return CTC_OK;
  const ctc_line *l = ctc_line_at(c, set, (uint32_t)w);
  r->line_hit = 1;
  r->way = (uint8_t)w;
  if ((l->valid >> sec) & 1u) {
    r->hit = 1;
    r->data = l->data[sec];
    c->plru[set] = plru_touch(c->plru[set], (uint32_t)w);
    c->stats.lookup_hits++;
  }
  return CTC_OK;
}

/* Shared body of fill (is_fill) and update. */
static int write_sector(ctc *c, uint64_t row, uint32_t data, int is_fill, int dirty, ctc_result *r) {
  memset(r, 0, sizeof(*r));
  if (!row_ok(c, row)) return CTC_EINVAL;
  uint32_t set = ctc_set_of(c, row), sec = (uint32_t)(row & (CTC_SECTORS - 1u));
  uint64_t tag = ctc_tag_of(c, row);
  if (is_fill)
    c->stats.fills++;
  else
    c->stats.updates++;
  int w = find(c, set, tag);
  if (w >= 0) {
    r->line_hit = 1;
    r->hit = (uint8_t)((ctc_line_at(c, set, (uint32_t)w)->valid >> sec) & 1u);
  } else {
    w = ctc_victim(c, set);
    if (w < 0) return CTC_OK; /* no ways: nothing stored */
    ctc_line *v = line_mut(c, set, (uint32_t)w);
    if (v->valid) {
      r->evicted = 1;
      r->n_wb = collect_wb(c, set, v, r->wb);
      c->stats.evictions++;
      c->stats.writebacks += r->n_wb;
    }
    v->tag = tag;
    v->valid = 0;
    v->dirty = 0;
  }
  ctc_line *l = line_mut(c, set, (uint32_t)w);
  uint8_t bit = (uint8_t)(1u << sec);
  if (!(is_fill && (l->valid & bit))) {
    l->data[sec] = data;
    l->valid |= bit;
    if (!is_fill && dirty) l->dirty |= bit;
  }
  r->stored = 1;
  r->way = (uint8_t)w;
  r->data = l->data[sec];
  c->plru[set] = plru_touch(c->plru[set], (uint32_t)w);
  return CTC_OK;
}

int ctc_fill(ctc *c, uint64_t row, uint32_t data, ctc_result *r) {
  return write_sector(c, row, data, 1, 0, r);
}

int ctc_update(ctc *c, uint64_t row, uint32_t data, int dirty, ctc_result *r) {
  return write_sector(c, row, data, 0, dirty, r);
}

int ctc_invalidate(ctc *c, uint64_t row, ctc_result *r) {
  memset(r, 0, sizeof(*r));
  if (!row_ok(c, row)) return CTC_EINVAL;
  uint32_t set = ctc_set_of(c, row);
  c->stats.invalidates++;
  int w = find(c, set, ctc_tag_of(c, row));
  if (w < 0) return CTC_OK;
  ctc_line *l = line_mut(c, set, (uint32_t)w);
  r->line_hit = 1;
  r->hit = (uint8_t)((l->valid >> (row & (CTC_SECTORS - 1u))) & 1u);
  r->way = (uint8_t)w;
  r->n_wb = collect_wb(c, set, l, r->wb);
  c->stats.writebacks += r->n_wb;
  l->valid = 0;
  l->dirty = 0;
  return CTC_OK;
}

/* Write back and invalidate the lines of ways [from, to) in every set. */
static int walk_flush(ctc *c, uint32_t from, uint32_t to, ctc_wb_fn fn, void *ctx) {
  uint32_t total = 0;
  ctc_wb wb[CTC_SECTORS];
  for (uint32_t s = 0; s < c->cfg.sets; s++) {
    for (uint32_t w = from; w < to; w++) {
      ctc_line *l = line_mut(c, s, w);
      if (!l->valid) continue;
      uint32_t n = collect_wb(c, s, l, wb);
      if (fn)
        for (uint32_t i = 0; i < n; i++) fn(ctx, &wb[i]);
      total += n;
      l->valid = 0;
      l->dirty = 0;
    }
  }
  c->stats.writebacks += total;
  return (int)total;
}

int ctc_configure(ctc *c, uint32_t l2_ways, ctc_wb_fn fn, void *ctx) {
  if (l2_ways > CTC_MAX_L2_WAYS) return CTC_EINVAL;
  c->stats.reconfigs++;
  int n = 0;
  uint32_t new_ways = l2_ways * CTC_TCW_PER_L2W;
  if (new_ways < ctc_ways(c)) n = walk_flush(c, new_ways, ctc_ways(c), fn, ctx);
  c->l2_ways = l2_ways;
  return n;
}

int ctc_flush(ctc *c, ctc_wb_fn fn, void *ctx) {
  c->stats.flushes++;
  return walk_flush(c, 0, ctc_ways(c), fn, ctx);
}

uint32_t ctc_l2_data_way_mask(uint32_t l2_assoc, uint32_t l2_ways) {
  if (l2_assoc < CTC_MAX_L2_WAYS || l2_assoc > 32 || l2_ways > CTC_MAX_L2_WAYS) return 0;
  uint32_t all = l2_assoc == 32 ? 0xffffffffu : (1u << l2_assoc) - 1u;
  uint32_t first = l2_assoc - CTC_MAX_L2_WAYS; /* L2W 12 of 16 in Fig. 10 */
  uint32_t carved = ((1u << l2_ways) - 1u) << first;
  return all & ~carved;
}

/* ---------------------------------------------- implementation "c" */

/* State block: the ctc, then its arrays. */
static size_t c_head(void) { return (sizeof(ctc) + 15u) & ~(size_t)15u; }
static size_t c_state_bytes(const ctc_cfg *cfg) { return c_head() + ctc_mem_bytes(cfg); }
static int c_init(void *st, const ctc_cfg *cfg, char *err, size_t errlen) {
  return ctc_init_in((ctc *)st, cfg, (char *)st + c_head(), err, errlen);
}
static int c_lookup(void *st, uint64_t row, ctc_result *r) { return ctc_lookup((ctc *)st, row, r); }
static int c_fill(void *st, uint64_t row, uint32_t data, ctc_result *r) { return ctc_fill((ctc *)st, row, data, r); }
static int c_update(void *st, uint64_t row, uint32_t data, int dirty, ctc_result *r) {
  return ctc_update((ctc *)st, row, data, dirty, r);
}

const ctc_ops ctc_c_ops = {
    .name = "c",
    .desc = "the C reference model (ctc.c), the golden model of rtl/ctc",
    .state_bytes = c_state_bytes,
    .init = c_init,
    .lookup = c_lookup,
    .fill = c_fill,
    .update = c_update,
};
