/* cache: sectored set-associative tag/data store (see cache.h for the contract).
 *
 * Layout: lines[set * ways + way], data likewise in line_bytes blocks. The
 * replacement policy owns one block of state sized by its state_bytes(); the
 * core never interprets it. Only cache_init allocates.
 */
#include "cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

int cache_init(cache *c, const cache_cfg *cfg, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
#define FAIL(...)                                      \
  do {                                                 \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    return -1;                                         \
  } while (0)
  if (!cfg) FAIL("cache: no configuration");
  if (!cfg->policy) FAIL("cache: no replacement policy");
  if (!is_pow2(cfg->line_bytes)) FAIL("cache: line_bytes %u is not a power of two", cfg->line_bytes);
  if (!is_pow2(cfg->sector_bytes) || cfg->sector_bytes > cfg->line_bytes)
    FAIL("cache: sector_bytes %u must be a power of two <= line_bytes", cfg->sector_bytes);
  if (cfg->line_bytes / cfg->sector_bytes > 8)
    FAIL("cache: %u sectors per line, at most 8 supported", cfg->line_bytes / cfg->sector_bytes);
  if (cfg->assoc < 1 || cfg->assoc > 32) FAIL("cache: assoc %u out of range 1..32", cfg->assoc);
  if (cfg->set_stride < 1) FAIL("cache: set_stride must be >= 1");
  {
    const uint64_t set_bytes = (uint64_t)cfg->assoc * cfg->line_bytes;
    if (cfg->size_bytes < set_bytes || cfg->size_bytes % set_bytes != 0)
      FAIL("cache: size %llu bytes is not a positive multiple of assoc*line_bytes = %llu",
           (unsigned long long)cfg->size_bytes, (unsigned long long)set_bytes);
    if (cfg->size_bytes / set_bytes > UINT32_MAX)
      FAIL("cache: %llu sets, at most %u supported", (unsigned long long)(cfg->size_bytes / set_bytes), UINT32_MAX);
    const char *why = cfg->policy->check ? cfg->policy->check((uint32_t)(cfg->size_bytes / set_bytes), cfg->assoc) : NULL;
    if (why) FAIL("cache: policy %s needs %s", cfg->policy->name, why);
  }
#undef FAIL
  c->cfg = *cfg;
  c->ways = cfg->assoc;
  c->sets = (uint32_t)(cfg->size_bytes / ((uint64_t)cfg->assoc * cfg->line_bytes));
  c->sectors = cfg->line_bytes / cfg->sector_bytes;
  c->way_mask = c->ways == 32 ? 0xffffffffu : ((1u << c->ways) - 1u);
  const size_t nlines = (size_t)c->sets * c->ways;
  c->lines = calloc(nlines, sizeof *c->lines);
  c->scratch = calloc(c->ways, sizeof *c->scratch);
  const size_t sb = cfg->policy->state_bytes ? cfg->policy->state_bytes(c->sets, c->ways) : 0;
  c->repl_state = sb ? calloc(1, sb) : NULL;
  if (cfg->with_data) c->data = calloc(nlines, cfg->line_bytes);
  if (!c->lines || !c->scratch || (sb && !c->repl_state) || (cfg->with_data && !c->data)) {
    cache_free(c);
    if (err && errlen) snprintf(err, errlen, "cache: out of memory");
    return -1;
  }
  if (cfg->policy->init) cfg->policy->init(c->repl_state, c->sets, c->ways);
  return 0;
}

void cache_free(cache *c) {
  free(c->lines);
  free(c->data);
  free(c->repl_state);
  free(c->scratch);
  c->lines = NULL;
  c->data = NULL;
  c->repl_state = NULL;
  c->scratch = NULL;
}

int cache_find(const cache *c, uint64_t line_addr) {
  const uint64_t la = line_addr & ~(uint64_t)(c->cfg.line_bytes - 1);
  const cache_line *row = c->lines + (size_t)cache_set_of(c, la) * c->ways;
  for (uint32_t w = 0; w < c->ways; ++w)
    if (row[w].line_addr == la && row[w].valid) return (int)w;
  return -1;
}

void cache_touch(cache *c, uint32_t set, uint32_t way, const repl_access *a) {
  if (c->cfg.policy->on_hit) c->cfg.policy->on_hit(c->repl_state, set, way, a);
}

int cache_victim_masked(cache *c, uint64_t line_addr, uint32_t extra_mask, const repl_access *a) {
  const uint32_t set = cache_set_of(c, line_addr);
  const uint32_t mask = c->way_mask & extra_mask;
  if (mask == 0) return CACHE_NO_WAY;
  const cache_line *row = c->lines + (size_t)set * c->ways;
  /* An invalid allowed way is always taken first (repl.h contract); doing it
   * here too keeps every policy honest and the common cold case cheap. */
  for (uint32_t w = 0; w < c->ways; ++w)
    if (((mask >> w) & 1u) && !row[w].valid) return (int)w;
  const repl_line *lines = NULL; /* every allowed way is valid now: enough for a valid_only policy */
  if (!c->cfg.policy->valid_only) {
    for (uint32_t w = 0; w < c->ways; ++w) {
      c->scratch[w].valid = row[w].valid;
      c->scratch[w].dirty = row[w].dirty_sectors != 0;
      c->scratch[w].mem_type = row[w].mem_type;
    }
    lines = c->scratch;
  }
  const int v = c->cfg.policy->victim(c->repl_state, set, lines, mask, a);
  if (v == REPL_BYPASS) return a && a->allow_bypass ? REPL_BYPASS : CACHE_NO_WAY;
  if (v < 0 || (uint32_t)v >= c->ways || !((mask >> v) & 1u)) return CACHE_NO_WAY; /* policy bug */
  return v;
}

int cache_victim(cache *c, uint64_t line_addr, const repl_access *a) {
  return cache_victim_masked(c, line_addr, 0xffffffffu, a);
}

void cache_install(cache *c, uint32_t set, uint32_t way, uint64_t line_addr, uint8_t mem_type,
                   const repl_access *a) {
  cache_line *l = cache_line_at(c, set, way);
  l->line_addr = line_addr & ~(uint64_t)(c->cfg.line_bytes - 1);
  l->valid = 1;
  l->valid_sectors = 0;
  l->dirty_sectors = 0;
  l->mem_type = mem_type;
  /* The line's data is left as it is: no sector is valid yet, and every user
   * writes a sector's bytes before marking it valid (a zeroing store here
   * only pulled the cold line into the host cache ahead of its fill). */
  if (c->cfg.policy->on_fill) c->cfg.policy->on_fill(c->repl_state, set, way, a);
}

void cache_invalidate(cache *c, uint32_t set, uint32_t way) {
  cache_line *l = cache_line_at(c, set, way);
  l->valid = 0;
  l->valid_sectors = 0;
  l->dirty_sectors = 0;
  if (c->cfg.policy->on_invalidate) c->cfg.policy->on_invalidate(c->repl_state, set, way);
}

void cache_invalidate_all(cache *c) {
  memset(c->lines, 0, (size_t)c->sets * c->ways * sizeof *c->lines);
  if (c->cfg.policy->init) c->cfg.policy->init(c->repl_state, c->sets, c->ways);
}

void cache_set_way_mask(cache *c, uint32_t mask) {
  const uint32_t all = c->ways == 32 ? 0xffffffffu : ((1u << c->ways) - 1u);
  c->way_mask = mask & all;
}

uint8_t cache_sector_bits(const cache *c, uint32_t offset, uint32_t len) {
  if (len == 0 || offset >= c->cfg.line_bytes) return 0;
  uint32_t end = offset + len;
  if (end > c->cfg.line_bytes) end = c->cfg.line_bytes;
  const uint32_t first = offset / c->cfg.sector_bytes, last = (end - 1) / c->cfg.sector_bytes;
  uint32_t m = 0;
  for (uint32_t s = first; s <= last; ++s) m |= 1u << s;
  return (uint8_t)m;
}
