/* repl: the replacement/insertion policy interface of Strata's set-associative
 * caches (L1, L2, tag caches). A policy is C code behind this table of
 * functions; adding one means one new file (repl_<name>.c) and one line in
 * repl_registry.c. The cache core (cache.h) calls it; the policy never sees
 * tags or data, only what repl_line / repl_access tell it.
 *
 * Policy state is one block of memory sized by state_bytes() and owned by the
 * cache; policy calls never allocate and never print.
 */
#ifndef STRATA_REPL_H
#define STRATA_REPL_H
#include <stddef.h>
#include <stdint.h>

/* What the cache tells a policy about one access. */
typedef struct repl_access {
  uint8_t is_write;      /* the access writes this cache (store, or writeback from above) */
  uint8_t is_writeback;  /* dirty data evicted from an upper level (not a demand access) */
  uint8_t mem_type;      /* AMAP_MEM_* of the line's address (addrmap.h) */
  uint8_t ea_count;      /* effective addresses of the coalesced request, 1..32; 0 = unknown */
  uint8_t allow_bypass;  /* the cache can serve this miss without allocating */
} repl_access;

/* What a policy may read about each way of the set being replaced. */
typedef struct repl_line {
  uint8_t valid;
  uint8_t dirty;         /* any sector dirty */
  uint8_t mem_type;      /* AMAP_MEM_* */
} repl_line;

#define REPL_BYPASS (-1)

typedef struct repl_ops {
  const char *name;      /* config value, e.g. "lru" */
  const char *desc;      /* one line, with the paper it comes from */
  /* Bytes of state for a cache of sets x ways (may be 0). */
  size_t (*state_bytes)(uint32_t sets, uint32_t ways);
  /* Reset state (all ways invalid). */
  void (*init)(void *st, uint32_t sets, uint32_t ways);
  /* A hit on (set, way). */
  void (*on_hit)(void *st, uint32_t set, uint32_t way, const repl_access *a);
  /* Pick the way to fill for a miss in `set`. lines[] has one entry per way;
   * only ways whose bit is set in way_mask may be chosen (ways carved out for a
   * tag cache are masked off). An invalid allowed way must be preferred. May
   * return REPL_BYPASS only when a->allow_bypass is set; a bypass is final (the
   * cache serves the miss without allocating), so the policy may update its
   * state when it returns it (hac ages the would-be victim, docs/hac.md). */
  int (*victim)(void *st, uint32_t set, const repl_line *lines, uint32_t way_mask, const repl_access *a);
  /* A new line was installed in (set, way). */
  void (*on_fill)(void *st, uint32_t set, uint32_t way, const repl_access *a);
  /* (set, way) was invalidated. */
  void (*on_invalidate)(void *st, uint32_t set, uint32_t way);
  /* --- Optional (NULL = none); added for the hybrid-memory policies ------- */
  /* Bits of hardware state this policy adds to a cache of sets x ways on top
   * of a true-LRU recency stack (ways x log2(ways) bits per set), counted the
   * way the HAC paper (Sec. V-D) counts its 3312 B: per-set counters plus
   * per-line flags. NULL = 0 (lru). Reported as l2.policy_overhead_bytes. */
  uint64_t (*overhead_bits)(uint32_t sets, uint32_t ways);
  /* Whether the policy can run a cache of sets x ways: NULL if it can, else a
   * one-line static reason naming what it needs
   * ("an associativity of at least 8 ..."). NULL pointer = any geometry. */
  const char *(*check)(uint32_t sets, uint32_t ways);
  /* 1 when victim() reads lines[] only for validity (LRU and the recency-stack policies). The
   * cache core takes an invalid allowed way itself before asking the policy, so it then passes
   * lines = NULL (every allowed way is valid) and does not copy the set's line states; a policy
   * with this flag must accept NULL. 0 = lines[] is always given. */
  uint8_t valid_only;
} repl_ops;

/* The policy called `name`, or NULL. */
const repl_ops *repl_find(const char *name);
/* Comma-separated names of all registered policies (for error messages). */
const char *repl_names(void);

#endif
