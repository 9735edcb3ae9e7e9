/* repl_stack: helpers shared by the position-based insertion/promotion
 * policies (repl_hac_static.c, repl_hac.c, repl_eabp.c, repl_wbar.c): a
 * recency stack per set, and the effective-address (coalescing) classes of the
 * HAC paper. Header-only (static inline), internal to models/ref.
 *
 * Recency stack. Positions follow the HAC paper (Sec. IV-B): 0 = LRU, ways-1
 * = MRU; "insert at p" and "promote to p" both move one way to position p and
 * shift the ways in between by one, which is how an LRU list with insertion at
 * an arbitrary position behaves (the victim at position 0 leaves, lines 1..p
 * move down one, the new line takes p). pos[] of one set is a permutation of
 * 0..ways-1 over ALL ways, valid or not; at reset way w sits at position w, and
 * an invalidated way goes to position 0. The victim is always the allowed way
 * with the smallest position (after the invalid-first rule of repl.h).
 *
 * Effective addresses. ea = number of threads of a warp whose addresses were
 * coalesced into the request, 1..32 (repl_access.ea_count). 0 means unknown (a
 * request that did not come from a coalescer); every policy here treats it as
 * 32, a fully coalesced request: EABP then behaves exactly as LRU, hac_static
 * puts the line in the High group, and hac never bypasses such a request
 * (docs/hac.md, "ea unknown").
 */
#ifndef STRATA_REPL_STACK_H
#define STRATA_REPL_STACK_H
#include <stddef.h>
#include <stdint.h>

#include "repl.h"
#include "base/addrmap.h"

/* Line of memory type t counts as NVM: NVM (PCM) and SCM alike, as in
 * l2.writebacks.nvm; only DRAM lines are DRAM. */
static inline int rstk_is_nvm(uint8_t t) { return t != AMAP_MEM_DRAM; }

/* Reset one set: way w at position w. */
static inline void rstk_init(uint8_t *pos, uint32_t ways) {
  for (uint32_t w = 0; w < ways; ++w) pos[w] = (uint8_t)w;
}

/* Move `way` to position `to` (0..ways-1): ways in (from, to] move down one
 * (to > from, a promotion), ways in [to, from) move up one (to < from). */
static inline void rstk_move(uint8_t *pos, uint32_t ways, uint32_t way, uint32_t to) {
  const uint32_t from = pos[way];
  if (to == from) return;
  for (uint32_t w = 0; w < ways; ++w) {
    const uint32_t p = pos[w];
    if (to > from && p > from && p <= to) pos[w] = (uint8_t)(p - 1);
    else if (to < from && p >= to && p < from) pos[w] = (uint8_t)(p + 1);
  }
  pos[way] = (uint8_t)to;
}

/* p clamped to 0..ways-1 (positions computed by the papers' formulas). */
static inline uint32_t rstk_clamp(int32_t p, uint32_t ways) {
  if (p < 0) return 0;
  if ((uint32_t)p >= ways) return ways - 1;
  return (uint32_t)p;
}

/* The lowest-index invalid way allowed by mask, else -1 (repl.h: an invalid
 * allowed way must be preferred). */
static inline int rstk_invalid(const repl_line *lines, uint32_t ways, uint32_t mask) {
  if (!lines) return -1; /* repl_ops.valid_only: the cache core found no invalid allowed way */
  for (uint32_t w = 0; w < ways; ++w)
    if (((mask >> w) & 1u) && !lines[w].valid) return (int)w;
  return -1;
}

/* The allowed way with the smallest position (the LRU-most), or -1 for an
 * empty mask. */
static inline int rstk_lowest(const uint8_t *pos, uint32_t ways, uint32_t mask) {
  int best = -1;
  for (uint32_t w = 0; w < ways; ++w)
    if (((mask >> w) & 1u) && (best < 0 || pos[w] < pos[best])) best = (int)w;
  return best;
}

/* floor(log2(v)), v >= 1. */
static inline uint32_t rstk_log2(uint32_t v) {
  uint32_t r = 0;
  while (v >>= 1) ++r;
  return r;
}

/* ea_count normalised to 1..32 (0 = unknown -> 32, see above). */
static inline uint32_t rstk_ea(uint8_t ea_count) {
  return ea_count == 0 || ea_count > 32 ? 32u : ea_count;
}

/* The three coalescing groups of HAC Sec. IV-A: Low = 1..8 effective
 * addresses, High = 24..32, Middle = the rest (9..23). */
enum { RSTK_LOW = 0, RSTK_MIDDLE = 1, RSTK_HIGH = 2 };
static inline int rstk_group(uint8_t ea_count) {
  const uint32_t ea = rstk_ea(ea_count);
  return ea <= 8 ? RSTK_LOW : ea >= 24 ? RSTK_HIGH : RSTK_MIDDLE;
}

/* State of a policy that keeps nothing but a recency stack per set
 * (hac_static, eabp, wbar): the ops below serve their tables directly. */
typedef struct rstk_state {
  uint32_t sets, ways;
  uint8_t pos[]; /* sets * ways, recency positions */
} rstk_state;

static inline uint8_t *rstk_pos(rstk_state *s, uint32_t set) { return s->pos + (size_t)set * s->ways; }

static inline size_t rstk_state_bytes(uint32_t sets, uint32_t ways) {
  return sizeof(rstk_state) + (size_t)sets * ways;
}

static inline void rstk_state_init(void *st, uint32_t sets, uint32_t ways) {
  rstk_state *s = st;
  s->sets = sets;
  s->ways = ways;
  for (uint32_t set = 0; set < sets; ++set) rstk_init(rstk_pos(s, set), ways);
}

/* A hit moves the line to MRU (LRU promotion). */
static inline void rstk_hit_mru(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  (void)a;
  rstk_state *s = st;
  rstk_move(rstk_pos(s, set), s->ways, way, s->ways - 1);
}

/* Victim: an invalid allowed way, else the LRU-most allowed way. */
static inline int rstk_victim_lru(void *st, uint32_t set, const repl_line *lines, uint32_t way_mask,
                                  const repl_access *a) {
  (void)a;
  rstk_state *s = st;
  const int inv = rstk_invalid(lines, s->ways, way_mask);
  return inv >= 0 ? inv : rstk_lowest(rstk_pos(s, set), s->ways, way_mask);
}

/* An invalidated way goes to LRU. */
static inline void rstk_on_invalidate(void *st, uint32_t set, uint32_t way) {
  rstk_state *s = st;
  rstk_move(rstk_pos(s, set), s->ways, way, 0);
}

/* One memory-type flag per line (HAC paper Sec. V-D counts it this way). */
static inline uint64_t rstk_type_bit_per_line(uint32_t sets, uint32_t ways) { return (uint64_t)sets * ways; }

#endif
