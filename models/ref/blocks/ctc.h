/* ctc: Configurable Tag Cache (CTC) of the HMS DRAM cache -- C reference model.
 *
 * HMS paper (hms-dram-cache-over-scm), Sec. III-D and Fig. 10: a set-associative
 * cache of DRAM-cache tags carved out of L2 ways. Up to MAX_L2_WAYS (4) of the
 * 16 L2 ways can be given to it; each carved 128 B L2 way holds TCW_PER_L2W (4)
 * 32 B tag-cache ways. A tag-cache line covers SECTORS (8) consecutive DRAM-cache
 * rows, one 4 B sector per row: the row's AMIL metadata (Sec. III-B: tag, valid
 * and dirty bits of its eight 256 B DRAM cachelines). Each line has one tag and
 * per-sector valid and dirty bits (8+8+22 = 38 bits, Sec. III-D).
 *
 * This is the code the HMS DRAM-cache controller calls (lookup on every L2 miss,
 * fill after an AMIL probe, update when the controller changes a row's tags) and
 * the golden model of rtl/ctc/ctc.sv, which must agree with it on every field
 * of every transaction. All sizes come from rtl/params/ctc.toml (ctc_params.h).
 *
 * Decisions where the paper is silent (the RTL implements the same ones):
 *  - Row -> line mapping: sector = row[2:0], set = row[SET_BITS+2:3],
 *    tag = the remaining upper bits. `row` is the bank-local DRAM-cache row index
 *    (the controller strips the bits that selected the L2 bank).
 *  - Carving: configure(k) gives L2 ways 12..12+k-1 to the CTC (Fig. 10), i.e.
 *    tag-cache ways 0..4k-1 are enabled, k in 0..MAX_L2_WAYS. k = 0 disables it.
 *  - Replacement: tree pseudo-LRU over MAX_WAYS leaves (MAX_WAYS-1 bits per set,
 *    heap order: node n has children 2n+1 / 2n+2; bit 0 = victim on the left).
 *    The paper's "4-bit pseudo-LRU per set" cannot order 16 ways; we keep a full
 *    15-bit tree. The victim is the lowest-numbered enabled way whose line is
 *    invalid, else the tree walk restricted to enabled ways (a subtree without
 *    enabled ways is never entered). A hit (lookup hit, fill/update to a present
 *    line) and an install make the way most recently used (every node on its
 *    path points away from it). Lookup misses and invalidations leave the tree.
 *    Reconfiguration keeps the tree bits.
 *  - fill(row, data): installs the AMIL metadata just read from DRAM, clean. If
 *    the sector is already valid the cached (newer) copy is kept unchanged.
 *  - update(row, data, dirty): the controller changed the row's tags; writes the
 *    sector (allocating the line if needed), valid, dirty |= dirty.
 *  - invalidate(row): removes the whole line holding row; its dirty sectors are
 *    written back first (metadata is never dropped).
 *  - configure(k) writes back and invalidates the lines of the ways it removes
 *    (Sec. III-D: "changed across kernels by flushing dirty lines"); lines in the
 *    ways that stay are kept. flush() writes back and invalidates all lines.
 *  - Write-back order: an evicted line's dirty sectors in ascending sector
 *    order; a walk (configure/flush) in ascending set, way, sector order.
 *
 * Allocation happens only in ctc_init; no other call allocates or prints.
 */
#ifndef STRATA_CTC_H
#define STRATA_CTC_H
#include <stddef.h>
#include <stdint.h>

#include "ctc_params.h"

typedef struct ctc_cfg {
  uint32_t sets;     /* power of two, >= 1 (CTC_SETS per L2 bank in the paper setup) */
  uint32_t row_bits; /* width of a row index; tag = row_bits - log2(sets) - 3 bits, 1..64 */
  uint32_t l2_ways;  /* L2 ways carved out at init, 0..CTC_MAX_L2_WAYS */
} ctc_cfg;

/* Fills cfg with the paper configuration of ctc.toml (SETS, ROW_BITS, RESET_L2_WAYS). */
void ctc_default_cfg(ctc_cfg *cfg);

/* One sector written back toward the AMIL column of `row`. */
typedef struct ctc_wb {
  uint64_t row;
  uint32_t data;
} ctc_wb;

/* Outcome of one row operation. Fields not listed for an operation are 0. */
typedef struct ctc_result {
  uint8_t hit;       /* the row's sector was valid before the operation */
  uint8_t line_hit;  /* the line holding the row was present before the operation */
  uint8_t stored;    /* fill/update: the sector is now held (0 only with 0 ways) */
  uint8_t evicted;   /* fill/update: a valid line was replaced */
  uint8_t way;       /* way hit (lookup hit, line_hit) or installed (stored) */
  uint32_t data;     /* lookup hit / fill / update: the sector's value after the op */
  uint32_t n_wb;     /* write-backs produced (0..CTC_SECTORS), in wb[0..n_wb) */
  ctc_wb wb[CTC_SECTORS];
} ctc_result;

/* Sink for the write-backs of configure/flush (may be NULL to count only). */
typedef void (*ctc_wb_fn)(void *ctx, const ctc_wb *wb);

typedef struct ctc_line {
  uint64_t tag;
  uint8_t valid;     /* per-sector valid bits; line valid <=> valid != 0 */
  uint8_t dirty;     /* per-sector dirty bits (subset of valid) */
  uint32_t data[CTC_SECTORS];
} ctc_line;

typedef struct ctc_stats {
  uint64_t lookups, lookup_hits, fills, updates, invalidates;
  uint64_t evictions, writebacks, reconfigs, flushes;
} ctc_stats;

typedef struct ctc {
  ctc_cfg cfg;
  uint32_t set_bits;
  uint32_t l2_ways;  /* current carve-out, 0..CTC_MAX_L2_WAYS */
  ctc_line *lines;   /* sets * CTC_MAX_WAYS */
  uint32_t *plru;    /* sets, CTC_PLRU_BITS bits each */
  uint8_t own;       /* ctc_init allocated lines and plru (ctc_free frees them); 0 after ctc_init_in */
  ctc_stats stats;
} ctc;

/* Status codes. */
#define CTC_OK 0
#define CTC_EINVAL (-1)

/* Validate cfg, allocate and reset (all lines invalid, tree bits 0).
 * Returns CTC_OK, or CTC_EINVAL with a one-line reason in err (err may be NULL);
 * on failure nothing is allocated. */
int ctc_init(ctc *c, const ctc_cfg *cfg, char *err, size_t errlen);
/* Bytes of the line and tree arrays of a cfg (0 for a cfg ctc_init refuses). */
size_t ctc_mem_bytes(const ctc_cfg *cfg);
/* ctc_init with the arrays in the caller's mem (ctc_mem_bytes(cfg) bytes, aligned for uint64_t, owned by
 * the caller; nothing allocated). Returns CTC_OK or CTC_EINVAL with a reason, as ctc_init. */
int ctc_init_in(ctc *c, const ctc_cfg *cfg, void *mem, char *err, size_t errlen);
/* Release what ctc_init allocated; safe on a zeroed or freed struct (and a no-op after ctc_init_in). */
void ctc_free(ctc *c);
/* Back to the state right after ctc_init (hardware reset): lines invalid, tree
 * bits 0, carve-out cfg.l2_ways, stats zero. Nothing is written back. */
void ctc_reset(ctc *c);

/* Tag-cache ways currently enabled (4 * l2_ways). */
uint32_t ctc_ways(const ctc *c);
/* Set, tag and sector of a row (the mapping documented above). */
uint32_t ctc_set_of(const ctc *c, uint64_t row);
uint64_t ctc_tag_of(const ctc *c, uint64_t row);

/* Each row operation returns CTC_OK, or CTC_EINVAL (state untouched, *r zeroed)
 * if row does not fit in cfg.row_bits. r must not be NULL. */

/* Look row up. Hit: r->data = the sector, the way becomes MRU. Miss: no change. */
int ctc_lookup(ctc *c, uint64_t row, ctc_result *r);
/* Install the sector read from the AMIL column (clean). A valid sector is kept
 * as is (r->hit = 1). A missing line takes the victim way; the victim's dirty
 * sectors are returned in r->wb. */
int ctc_fill(ctc *c, uint64_t row, uint32_t data, ctc_result *r);
/* Write the row's sector (allocating like fill), valid, dirty |= (dirty != 0). */
int ctc_update(ctc *c, uint64_t row, uint32_t data, int dirty, ctc_result *r);
/* Remove the line holding row; its dirty sectors are returned in r->wb.
 * r->line_hit/way tell whether and where it was. */
int ctc_invalidate(ctc *c, uint64_t row, ctc_result *r);

/* Give l2_ways L2 ways to the CTC (0..CTC_MAX_L2_WAYS). Lines of removed ways are
 * written back (fn per dirty sector, walk order above) and invalidated.
 * Returns the number of write-backs, or CTC_EINVAL (no change) if out of range. */
int ctc_configure(ctc *c, uint32_t l2_ways, ctc_wb_fn fn, void *ctx);
/* Write back every dirty sector and invalidate every line (e.g. between kernels).
 * Returns the number of write-backs. */
int ctc_flush(ctc *c, ctc_wb_fn fn, void *ctx);

/* The L2 ways (bit per way) that stay data ways of an l2_assoc-way L2 when
 * l2_ways of them are carved out for the CTC: Fig. 10 carves the highest
 * CTC_MAX_L2_WAYS ways, the CTC taking them from the lowest of those upwards
 * (l2_ways = 1 takes way l2_assoc-4). For the L2 bank's cache_set_way_mask().
 * Returns 0 if l2_assoc is not in CTC_MAX_L2_WAYS..32 or l2_ways > CTC_MAX_L2_WAYS. */
uint32_t ctc_l2_data_way_mask(uint32_t l2_assoc, uint32_t l2_ways);

/* Read-only views for tests, debug and the platform's stats. */
const ctc_line *ctc_line_at(const ctc *c, uint32_t set, uint32_t way);
uint32_t ctc_plru_bits(const ctc *c, uint32_t set);
/* The way a miss in `set` would fill now (invalid enabled way first, else the
 * tree walk), or -1 with 0 ways. Does not change state. */
int ctc_victim(const ctc *c, uint32_t set);

/* The tag cache as a swappable block (blocks.h; blocks.tag_cache): the calls the DRAM cache makes, on a
 * state block of state_bytes(cfg) bytes (aligned for uint64_t, zeroed or not) that the caller owns. The
 * contract of each call is that of the function above of the same name; an implementation must agree with
 * them on every field of every result (the C reference is the golden model). Nothing allocates. */
typedef struct ctc_ops {
  const char *name;  /* blocks.tag_cache value */
  const char *desc;  /* one line */
  size_t (*state_bytes)(const ctc_cfg *cfg);
  int (*init)(void *st, const ctc_cfg *cfg, char *err, size_t errlen);
  int (*lookup)(void *st, uint64_t row, ctc_result *r);
  int (*fill)(void *st, uint64_t row, uint32_t data, ctc_result *r);
  int (*update)(void *st, uint64_t row, uint32_t data, int dirty, ctc_result *r);
} ctc_ops;

/* This file's C reference as implementation "c" (its state: a ctc and its arrays). */
extern const ctc_ops ctc_c_ops;

#endif
