/* repl_lru: true least-recently-used replacement (the baseline of every L2
 * study in shared/papers/, e.g. HAC paper Sec. V "LRU" baseline; GPGPU-Sim's
 * default L2 policy).
 *
 * State: one age counter per way (uint8_t, 0 = most recent, ways-1 = least
 * recent), kept as a permutation of 0..ways-1 in every set, which is how a
 * hardware true-LRU is built (ways x log2(ways) bits per set). A hit or a fill
 * makes the way age 0 and ages every younger way by one; an invalidation makes
 * the way the oldest so it is reused first. The victim is the allowed valid way
 * with the largest age (an invalid allowed way first, lowest index).
 */
#include <stdint.h>
#include <string.h>

#include "repl.h"

typedef struct lru_state {
  uint32_t sets, ways;
  uint8_t age[]; /* sets * ways */
} lru_state;

static size_t lru_state_bytes(uint32_t sets, uint32_t ways) {
  return sizeof(lru_state) + (size_t)sets * ways;
}

static void lru_init(void *st, uint32_t sets, uint32_t ways) {
  lru_state *s = st;
  s->sets = sets;
  s->ways = ways;
  for (uint32_t set = 0; set < sets; ++set)
    for (uint32_t w = 0; w < ways; ++w) s->age[(size_t)set * ways + w] = (uint8_t)w;
}

/* Per-byte ">= c" for bytes < 128 (ages are < 32): setting each byte's top
 * bit before subtracting c keeps borrows inside the byte, and the top bit
 * survives exactly when the byte is >= c. Returns 0x80 in those bytes. */
#define LRU_H 0x8080808080808080ull
#define LRU_L 0x0101010101010101ull
static inline uint64_t lru_ge(uint64_t x, uint8_t c) { return ((x | LRU_H) - LRU_L * c) & LRU_H; }

/* Move `way` to age `to` (0 = MRU, ways-1 = LRU), shifting the ways between:
 * ages in [to, from) grow by one (to < from), ages in (from, to] shrink by one
 * (to > from). Eight ages at a time (SWAR), the ways % 8 rest one by one. */
static void lru_move(lru_state *s, uint32_t set, uint32_t way, uint8_t to) {
  uint8_t *a = s->age + (size_t)set * s->ways;
  const uint8_t from = a[way];
  if (to == from) return;
  const uint8_t lo = to < from ? to : (uint8_t)(from + 1), hi = to < from ? from : (uint8_t)(to + 1);
  uint32_t w = 0;
  for (; w + 8 <= s->ways; w += 8) {
    uint64_t x;
    memcpy(&x, a + w, 8);
    const uint64_t in = (lru_ge(x, lo) & ~lru_ge(x, hi)) >> 7; /* 0x01 in bytes with lo <= age < hi */
    x = to < from ? x + in : x - in;                           /* no carry/borrow: ages stay in 0..31 */
    memcpy(a + w, &x, 8);
  }
  for (; w < s->ways; ++w)
    if (a[w] >= lo && a[w] < hi) a[w] = (uint8_t)(to < from ? a[w] + 1 : a[w] - 1);
  a[way] = to;
}

static void lru_on_hit(void *st, uint32_t set, uint32_t way, const repl_access *acc) {
  (void)acc;
  lru_move(st, set, way, 0);
}

static int lru_victim(void *st, uint32_t set, const repl_line *lines, uint32_t way_mask, const repl_access *acc) {
  (void)acc;
  const lru_state *s = st;
  const uint8_t *a = s->age + (size_t)set * s->ways;
  int best = -1;
  /* One pass: the first (lowest) invalid allowed way wins outright, else the
   * allowed way with the largest age. */
  for (uint32_t w = 0; w < s->ways; ++w) {
    if (!((way_mask >> w) & 1u)) continue;
    if (lines && !lines[w].valid) return (int)w; /* NULL: all valid (repl_ops.valid_only) */
    if (best < 0 || a[w] > a[best]) best = (int)w;
  }
  return best; /* -1 only for an empty mask, which the cache core never passes */
}

static void lru_on_fill(void *st, uint32_t set, uint32_t way, const repl_access *acc) {
  (void)acc;
  lru_move(st, set, way, 0);
}

static void lru_on_invalidate(void *st, uint32_t set, uint32_t way) {
  lru_state *s = st;
  lru_move(s, set, way, (uint8_t)(s->ways - 1));
}

const repl_ops repl_lru_ops = {
    .name = "lru",
    .desc = "true LRU (age counters per set); baseline policy of the HAC paper, Sec. V",
    .state_bytes = lru_state_bytes,
    .init = lru_init,
    .on_hit = lru_on_hit,
    .victim = lru_victim,
    .valid_only = 1,
    .on_fill = lru_on_fill,
    .on_invalidate = lru_on_invalidate,
};
