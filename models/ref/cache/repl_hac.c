/* repl_hac: HAC, the dynamic hybrid-memory-aware L2 insertion, promotion and
 * bypass policy of shared/papers/hac-l2-for-hybrid-memory.txt (Sec. IV-B,
 * Algorithm 1 = insertion + bypass, Algorithm 2 = promotion; Sec. V-A, V-D).
 *
 * State (Sec. IV-B, Fig. 4), A = associativity (a power of two >= 8):
 *  - per set, a saturating miss counter mc of n = log2(A) + 1 bits, reset to
 *    2^(n-1) (A = 16: 5 bits, initial 16, Sec. V-A); range 0 .. 2^n - 1;
 *  - per line, an EA flag of m = log2(A/2) bits, EA = A*(ea-1)/64 (integer
 *    division, i.e. (A*(ea-1)) >> 6; A = 16: 0..7), written by every request
 *    to the line ("EA is updated at each memory request");
 *  - per line, the memory-type bit (the cache line's mem_type, from the address
 *    map) and a position in the recency stack (0 = LRU, A-1 = MRU; repl_stack.h).
 * All formulas below are evaluated in integer arithmetic with mc/8 and mc/4
 * truncating (shifts in hardware), then clamped to 0..A-1.
 *
 * Algorithm 1 (miss):
 *   writeback miss: evict the LRU line; insert NVM at DNP = A-1-mc/8,
 *     DRAM at DDP = A/2+mc/4 (mc unchanged).
 *   demand miss: if the LRU line C is a dirty NVM line and C.EA > req.EA, and the
 *     cache allows a bypass, bypass (stack and mc unchanged; C.EA -= 1, the
 *     bypass aging below); else evict C
 *     and: NVM: mc -= 2 (saturating at 0), insert at CNP = A/2-mc/8+EA;
 *          DRAM: mc += 1 (saturating at 2^n-1), insert at CDP = A/8+mc/4+EA-1,
 *     using the updated mc (lines 16-20).
 * Algorithm 2 (hit): a writeback hit makes the line dirty (the cache core does
 *   that: it owns the dirty bits); DRAM line: DP = pos+A/2+mc/4, NVM line:
 *   NP = pos+A-mc/8-1, each at most MRU. mc is unchanged by hits.
 *
 * Decisions where the paper is open (docs/hac.md lists them with reasons):
 *  - "writeback" = any write request reaching the L2 (repl_access.is_write:
 *    stores through the write-through L1, and writebacks from a write-back
 *    upper level). GPGPU-Sim's L1 sends global stores down as writes, and the
 *    L2's handling of them (Alg. 2 line 3: set dirty, update content) is the
 *    paper's writeback hit. Writes are never bypassed (the L2 only offers a
 *    bypass for demand reads).
 *  - ea unknown (0) counts as 32 (repl_stack.h): EA = A/2-1, the maximum, so
 *    such a request is never bypassed.
 *  - A line filled through an invalid way (cold set) is inserted at the same
 *    computed position; the invalid way's old position is simply vacated.
 *  - Bypass aging: a bypass lowers the would-be victim's EA flag by one (the
 *    paper is silent on what a bypass does to the set). Taken literally ("bypass
 *    req; break;") a dirty high-EA NVM line at LRU turns away every lower-EA
 *    demand miss of its set until a write or a better-coalesced miss comes: the
 *    set freezes (measured: neuralnet, 48 images, miss rate 0.090 under lru,
 *    0.205 under the literal rule, 0.093 with aging; docs/hac.md). The stack is
 *    not touched: promoting or demoting lines for a request that allocates
 *    nothing would reorder unrelated lines. No extra storage (the flag exists).
 *  - A sector miss on a resident line (tag hit, sectors missing) is a hit here
 *    (promotion, no mc change): the policy works on lines.
 *  - The victim of a demand miss whose allowed ways are restricted (fills in
 *    flight, tag-cache ways) is the allowed way nearest LRU; the bypass test
 *    looks at that way.
 */
#include <stdint.h>

#include "repl.h"
#include "repl_stack.h"

typedef struct hac_state {
  uint32_t sets, ways;
  uint32_t mc_max;  /* 2^n - 1 */
  uint32_t mc_init; /* 2^(n-1) */
  uint32_t aging;   /* 1: hac (bypass aging), 0: hac_literal */
  uint8_t *pos;     /* sets * ways, recency positions */
  uint8_t *ea;      /* sets * ways, EA flags */
  uint8_t *mc;      /* sets, miss counters */
  uint8_t mem[];    /* storage of the three arrays */
} hac_state;

static size_t hac_state_bytes(uint32_t sets, uint32_t ways) {
  return sizeof(hac_state) + (size_t)sets * ways * 2 + sets;
}

/* n = log2(A) + 1 bits of mc (Sec. IV-B). */
static uint32_t hac_mc_bits(uint32_t ways) { return rstk_log2(ways) + 1; }

static void hac_init_common(void *st, uint32_t sets, uint32_t ways, uint32_t aging) {
  hac_state *s = st;
  s->aging = aging;
  s->sets = sets;
  s->ways = ways;
  const uint32_t n = hac_mc_bits(ways);
  s->mc_max = (1u << n) - 1u;
  s->mc_init = 1u << (n - 1);
  s->pos = s->mem;
  s->ea = s->mem + (size_t)sets * ways;
  s->mc = s->mem + (size_t)sets * ways * 2;
  for (uint32_t set = 0; set < sets; ++set) {
    rstk_init(s->pos + (size_t)set * ways, ways);
    for (uint32_t w = 0; w < ways; ++w) s->ea[(size_t)set * ways + w] = 0;
    s->mc[set] = (uint8_t)s->mc_init;
  }
}

static void hac_init(void *st, uint32_t sets, uint32_t ways) { hac_init_common(st, sets, ways, 1); }
static void hac_literal_init(void *st, uint32_t sets, uint32_t ways) { hac_init_common(st, sets, ways, 0); }

/* EA = A*(ea-1)/64 (Sec. IV-B), ea = 1..32 -> 0 .. A/2-1. */
static uint32_t hac_ea(uint32_t ways, uint8_t ea_count) { return ways * (rstk_ea(ea_count) - 1) / 64; }

static void hac_on_hit(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  hac_state *s = st;
  const uint32_t A = s->ways;
  const size_t base = (size_t)set * A;
  uint8_t *pos = s->pos + base;
  const int32_t mc = s->mc[set];
  /* Algorithm 2 lines 5-10 */
  const int32_t p = rstk_is_nvm(a->mem_type) ? (int32_t)pos[way] + (int32_t)A - mc / 8 - 1
                                            : (int32_t)pos[way] + (int32_t)A / 2 + mc / 4;
  rstk_move(pos, A, way, rstk_clamp(p, A));
  s->ea[base + way] = (uint8_t)hac_ea(A, a->ea_count);
}

static int hac_victim(void *st, uint32_t set, const repl_line *lines, uint32_t way_mask, const repl_access *a) {
  hac_state *s = st;
  const int inv = rstk_invalid(lines, s->ways, way_mask);
  if (inv >= 0) return inv;
  const size_t base = (size_t)set * s->ways;
  const int v = rstk_lowest(s->pos + base, s->ways, way_mask);
  /* Algorithm 1 lines 10-11: a demand miss does not evict a dirty NVM line
   * that was brought in by a better-coalesced request. */
  if (v >= 0 && a->allow_bypass && !a->is_write && lines[v].valid && lines[v].dirty &&
      rstk_is_nvm(lines[v].mem_type) && s->ea[base + (uint32_t)v] > hac_ea(s->ways, a->ea_count)) {
    /* Bypass aging (our decision, docs/hac.md): the bypass decision is final
     * (the L2 serves the miss without allocating), so the would-be victim's EA
     * flag drops by one; the stack and mc stay as they are. A line brought in
     * with flag E turns away at most E - e misses of EA e, i.e. "a higher
     * priority ... for a longer time" (Sec. III-B), not for ever. */
    if (s->aging) s->ea[base + (uint32_t)v]--;
    return REPL_BYPASS;
  }
  return v;
}

static void hac_on_fill(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  hac_state *s = st;
  const int32_t A = (int32_t)s->ways;
  const int nvm = rstk_is_nvm(a->mem_type);
  const int32_t EA = (int32_t)hac_ea(s->ways, a->ea_count);
  int32_t mc = s->mc[set], p;
  if (a->is_write) {  /* Algorithm 1 lines 2-8 */
    p = nvm ? A - 1 - mc / 8 : A / 2 + mc / 4;
  } else if (nvm) {   /* lines 15-17 */
    mc = mc >= 2 ? mc - 2 : 0;
    p = A / 2 - mc / 8 + EA;
  } else {            /* lines 18-20 */
    mc = mc < (int32_t)s->mc_max ? mc + 1 : (int32_t)s->mc_max;
    p = A / 8 + mc / 4 + EA - 1;
  }
  s->mc[set] = (uint8_t)mc;
  const size_t base = (size_t)set * s->ways;
  rstk_move(s->pos + base, s->ways, way, rstk_clamp(p, s->ways));
  s->ea[base + way] = (uint8_t)EA;
}

static void hac_on_invalidate(void *st, uint32_t set, uint32_t way) {
  hac_state *s = st;
  const size_t base = (size_t)set * s->ways;
  rstk_move(s->pos + base, s->ways, way, 0);
  s->ea[base + way] = 0;
}

/* Sec. V-D: n-bit mc per set, 1-bit memory type + m-bit EA flag per line.
 * 768 KB, 16-way, 128 B lines: 384 x 5 + 6144 x (1 + 3) = 26496 bits = 3312 B. */
static uint64_t hac_overhead_bits(uint32_t sets, uint32_t ways) {
  return (uint64_t)sets * hac_mc_bits(ways) + (uint64_t)sets * ways * (1 + rstk_log2(ways / 2));
}

static const char *hac_check(uint32_t sets, uint32_t ways) {
  (void)sets;
  if (ways < 8 || (ways & (ways - 1)) != 0)
    return "a power-of-two associativity of at least 8 (HAC paper Sec. IV-B)";
  return 0;
}

/* The two variants share every entry but name, description and init. */
#define HAC_OPS(nm, text, init_fn)                                                                  \
  {                                                                                                 \
    .name = nm, .desc = text, .state_bytes = hac_state_bytes, .init = init_fn, .on_hit = hac_on_hit, \
    .victim = hac_victim, .on_fill = hac_on_fill, .on_invalidate = hac_on_invalidate,               \
    .overhead_bits = hac_overhead_bits, .check = hac_check,                                         \
  }

/* hac: with bypass aging (the decision above). */
const repl_ops repl_hac_ops = HAC_OPS(
    "hac", "HAC: dynamic hybrid-aware insertion/promotion with miss counter, EA flags and bypass; HAC paper Alg. 1-2",
    hac_init);

/* hac_literal: Algorithm 1 as printed, a bypass changes nothing in the set. */
const repl_ops repl_hac_literal_ops = HAC_OPS(
    "hac_literal", "HAC exactly as Alg. 1-2 print it: a bypass leaves the set unchanged (no aging; sets can freeze)",
    hac_literal_init);
