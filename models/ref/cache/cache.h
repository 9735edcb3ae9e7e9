/* cache: sectored set-associative tag (and optional data) store shared by the
 * L1, L2 and tag caches. 128 B lines of four 32 B sectors by default, per-sector
 * valid and dirty bits, the memory type of each line, and a replacement policy
 * behind repl.h. Timing, MSHRs and transport belong to the SystemC module using it.
 *
 * Set index = (line_addr / line_bytes / set_stride) mod sets, where set_stride
 * is the number of banks the address stream is interleaved over before it
 * reaches this cache (so a bank uses all of its sets).
 * No call allocates except cache_init.
 */
#ifndef STRATA_CACHE_H
#define STRATA_CACHE_H
#include <stddef.h>
#include <stdint.h>

#include "repl.h"

typedef struct cache_cfg {
  uint64_t size_bytes;   /* capacity of this cache (one bank); sets = size / (assoc * line) < 2^32 */
  uint32_t assoc;
  uint32_t line_bytes;   /* 128 */
  uint32_t sector_bytes; /* 32; line_bytes/sector_bytes <= 8 */
  uint32_t set_stride;   /* >= 1, see above */
  const repl_ops *policy;
  int with_data;         /* keep line data (functional model) */
} cache_cfg;

typedef struct cache_line {
  uint64_t line_addr;    /* full line address (tag), valid when valid_sectors != 0 */
  uint8_t valid;         /* line allocated */
  uint8_t valid_sectors; /* bit per sector */
  uint8_t dirty_sectors; /* bit per sector */
  uint8_t mem_type;      /* AMAP_MEM_* */
} cache_line;

typedef struct cache {
  cache_cfg cfg;
  uint32_t sets, ways, sectors;
  uint32_t way_mask;     /* ways usable for fills (all by default) */
  cache_line *lines;     /* sets * ways */
  unsigned char *data;   /* sets * ways * line_bytes, or NULL */
  void *repl_state;
  repl_line *scratch;    /* ways entries, for victim selection */
} cache;

/* Validate cfg (sizes powers of two where needed, assoc divides, policy set and
 * accepting the geometry, repl_ops.check)
 * and allocate. Returns 0, or -1 with a one-line reason in err. */
int cache_init(cache *c, const cache_cfg *cfg, char *err, size_t errlen);
void cache_free(cache *c);

/* (Inline: these three are on every model's per-request path.) */
static inline uint32_t cache_set_of(const cache *c, uint64_t line_addr) {
  /* Shifts and masks where the geometry allows (no 64-bit divisions on the hot path). */
  uint64_t idx = line_addr >> __builtin_ctz(c->cfg.line_bytes); /* power of two (cache_init) */
  const uint32_t st = c->cfg.set_stride;
  if (st > 1) idx = (st & (st - 1)) == 0 ? idx >> __builtin_ctz(st) : idx / st;
  return (c->sets & (c->sets - 1)) == 0 ? (uint32_t)(idx & (c->sets - 1)) : (uint32_t)(idx % c->sets);
}
/* Way holding line_addr in its set, or -1. Does not touch replacement state. */
int cache_find(const cache *c, uint64_t line_addr);
static inline cache_line *cache_line_at(cache *c, uint32_t set, uint32_t way) {
  return &c->lines[(size_t)set * c->ways + way];
}
/* Line data (line_bytes) of (set, way); NULL without data. */
static inline unsigned char *cache_data_at(cache *c, uint32_t set, uint32_t way) {
  if (!c->data) return NULL;
  return c->data + ((size_t)set * c->ways + way) * c->cfg.line_bytes;
}

/* Replacement-state update for a hit. */
void cache_touch(cache *c, uint32_t set, uint32_t way, const repl_access *a);
/* Way to (re)use for line_addr in its set (policy decision; an invalid way
 * first), or REPL_BYPASS. The caller writes back the victim if it is dirty,
 * then calls cache_install. */
int cache_victim(cache *c, uint64_t line_addr, const repl_access *a);
/* Put line_addr into (set, way): valid, no sectors valid or dirty yet,
 * memory type from `mem_type`; informs the policy (on_fill). The line's data
 * bytes are unspecified until written: write a sector before marking it valid. */
void cache_install(cache *c, uint32_t set, uint32_t way, uint64_t line_addr, uint8_t mem_type,
                   const repl_access *a);
/* Invalidate one line (policy on_invalidate) or all lines. */
void cache_invalidate(cache *c, uint32_t set, uint32_t way);
void cache_invalidate_all(cache *c);
/* Restrict fills to the ways in mask (CTC carve-out). Lines in removed ways stay
 * until the caller invalidates them. */
void cache_set_way_mask(cache *c, uint32_t mask);

/* --- Additions (L2 owner) ------------------------------------------------ */
/* Returned by cache_victim / cache_victim_masked when no way may be used
 * (the allowed mask is empty, or the policy returned an illegal way). */
#define CACHE_NO_WAY (-2)
/* As cache_victim, but only ways in (way_mask & extra_mask) are candidates;
 * the L2 passes the ways whose fills are not in flight. An invalid allowed
 * way is returned first (lowest index). Returns a way, REPL_BYPASS (only when
 * a->allow_bypass) or CACHE_NO_WAY. */
int cache_victim_masked(cache *c, uint64_t line_addr, uint32_t extra_mask, const repl_access *a);
/* Sector bits covered by bytes [offset, offset+len) of a line (clipped to the line). */
uint8_t cache_sector_bits(const cache *c, uint32_t offset, uint32_t len);

#endif
