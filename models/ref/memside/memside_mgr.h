/* memside_mgr: the GPU-wide memory-side manager, one per platform, whose
 * state the memory partitions' policies share (memside.h: memside_cfg.mgr).
 *
 * Why: under the line interleave a 4 KiB page spans every partition, so what
 * a page-level policy decides on (how hot a page is, how many bytes may move
 * this quantum) cannot live in one partition's policy. The manager holds:
 *   - GPU-wide access counters per 4 KiB page: a fixed table of page_slots
 *     entries (open addressing over MGR_PROBE slots; when they are all taken,
 *     the coldest of them gives way, ties to the first), saturating counts;
 *   - a migration budget: budget_bytes per quantum of quantum_ps of simulated
 *     time (the platform's clock, cfg.now_ps), spent by take_budget and
 *     refilled at each quantum's start; quantum_ps 0 = no budget (granted).
 *
 * Determinism: the manager has no time or process of its own; it changes only
 * inside policy calls, which the platform's event scheduler runs one at a time
 * in a fixed order (docs/architecture.md "GPU-wide memory-side manager"), and
 * it reads the clock only there. The same seed therefore gives the same
 * manager state and the same stats.
 *
 * The tables are one block of memside_mgr_bytes(cfg) owned by the caller;
 * calls never allocate and never print. */
#ifndef STRATA_MEMSIDE_MGR_H
#define STRATA_MEMSIDE_MGR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MGR_PAGE_BYTES 4096u
#define MGR_PROBE 8u            /* slots a page may take (its hash and the next 7) */
#define MGR_MAX_SLOTS (1u << 24)

typedef struct memside_mgr_cfg {
  uint32_t page_slots;          /* page counters: 0 (none) or a power of two from 16 to MGR_MAX_SLOTS */
  uint64_t quantum_ps;          /* migration-budget quantum, ps; 0: no budget (every request granted) */
  uint64_t budget_bytes;        /* bytes that may move per quantum (> 0 with quantum_ps > 0) */
  void *clock_ctx;
  uint64_t (*now_ps)(void *clock_ctx); /* the simulated time now, ps (needed with quantum_ps > 0) */
} memside_mgr_cfg;

typedef struct memside_mgr_stats {
  uint64_t accesses;            /* counted accesses */
  uint64_t replaced;            /* pages that gave way to another (table full in their probe window) */
  uint64_t granted_bytes;       /* migration bytes granted */
  uint64_t denied;              /* budget requests refused (over this quantum's budget) */
} memside_mgr_stats;

typedef struct memside_mgr {
  memside_mgr_cfg cfg;
  uint64_t *page;               /* per slot: page number + 1, 0 = empty */
  uint32_t *count;              /* per slot: accesses (saturating) */
  uint32_t pages;               /* slots in use */
  uint64_t quantum;             /* index of the quantum the budget was last refilled for */
  uint64_t spent;               /* bytes granted in it */
  memside_mgr_stats st;
} memside_mgr;

/* Bytes of the tables for cfg (0 without page counters). */
size_t memside_mgr_bytes(const memside_mgr_cfg *cfg);

/* Set up *m over `mem` (memside_mgr_bytes(cfg) bytes, zeroed here). Returns 0,
 * or -1 with a one-line reason in err (a bad size, a budget without clock). */
int memside_mgr_init(memside_mgr *m, const memside_mgr_cfg *cfg, void *mem, char *err, size_t errlen);

/* Count an access to physical address pa's 4 KiB page. Returns the page's
 * count after it (0 without page counters). */
uint32_t memside_mgr_count(memside_mgr *m, uint64_t pa);

/* The count of pa's page (0: not tracked), no side effects. */
uint32_t memside_mgr_page_count(const memside_mgr *m, uint64_t pa);

/* Age every page counter: halve it, rounding up, so a page once counted keeps
 * its entry with a count of at least 1 (a policy's periodic decay; the caller
 * decides when: one call per period from one wake-up, docs/architecture.md).
 * O(page_slots); no side effects on the budget. */
void memside_mgr_decay(memside_mgr *m);

/* Ask to move `bytes` now: 1 = granted (spent from this quantum's budget),
 * 0 = not within this quantum's budget (ask again later; the budget refills
 * at memside_mgr_next_quantum_ps). A request larger than a whole quantum's
 * budget is granted at the start of an unspent quantum, so it never starves. */
int memside_mgr_take_budget(memside_mgr *m, uint64_t bytes);

/* Start of the next quantum, ps (UINT64_MAX without a budget). */
uint64_t memside_mgr_next_quantum_ps(const memside_mgr *m);

#ifdef __cplusplus
}
#endif
#endif
