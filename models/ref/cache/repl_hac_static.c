/* repl_hac_static: the static hybrid-memory-aware L2 policy of the HAC paper
 * (shared/papers/hac-l2-for-hybrid-memory.txt, Sec. IV-A and IV-B, Fig. 5).
 *
 * Six line classes on a miss: coalescing group of the request (Sec. IV-A: Low =
 * 1..8 effective addresses, Middle = 9..23, High = 24..32; repl_stack.h) x the
 * line's memory (NVM or DRAM, from the address map). Insertion positions in the
 * recency stack (0 = LRU, A-1 = MRU, A = associativity), Sec. IV-B:
 *     HN: MRU = A-1     HD: MRU-1 = A-2
 *     MN: central = A/2 MD: central-1 = A/2-1
 *     LN: LRU+1 = 1     LD: LRU = 0
 * ("central" of positions 0..A-1 is taken as A/2, the upper middle, so MN sits
 * above MD as HNP > HDP > MNP > MDP > LNP > LDP requires.) Every miss, read or
 * write, is classified the same way (the static policy has no writeback case).
 * A hit promotes an NVM line by A/2 and a DRAM line by A/4 positions, at most
 * to MRU. The victim is the line at the LRU position. No bypass.
 *
 * Hardware cost beyond an LRU stack: the 1-bit memory-type flag per line that
 * the promotion needs (the group only matters at insertion, from the request).
 * Requires A >= 8 (the paper's assumption, Sec. IV-B).
 */
#include <stdint.h>

#include "repl.h"
#include "repl_stack.h"

/* Insertion position of a missing line (Sec. IV-B). */
static uint32_t hacs_insert_pos(uint32_t ways, const repl_access *a) {
  const int nvm = rstk_is_nvm(a->mem_type);
  switch (rstk_group(a->ea_count)) {
    case RSTK_HIGH: return nvm ? ways - 1 : ways - 2;
    case RSTK_MIDDLE: return nvm ? ways / 2 : ways / 2 - 1;
    default: return nvm ? 1u : 0u;
  }
}

static void hacs_on_hit(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  rstk_state *s = st;
  uint8_t *pos = rstk_pos(s, set);
  const uint32_t step = rstk_is_nvm(a->mem_type) ? s->ways / 2 : s->ways / 4;
  rstk_move(pos, s->ways, way, rstk_clamp((int32_t)(pos[way] + step), s->ways));
}

static void hacs_on_fill(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  rstk_state *s = st;
  rstk_move(rstk_pos(s, set), s->ways, way, hacs_insert_pos(s->ways, a));
}

static const char *hacs_check(uint32_t sets, uint32_t ways) {
  (void)sets;
  return ways < 8 ? "an associativity of at least 8 (HAC paper Sec. IV-B)" : 0;
}

const repl_ops repl_hac_static_ops = {
    .name = "hac_static",
    .desc = "static hybrid-aware insertion (6 classes: ea group x NVM/DRAM) and promotion; HAC paper Sec. IV-B",
    .state_bytes = rstk_state_bytes,
    .init = rstk_state_init,
    .on_hit = hacs_on_hit,
    .victim = rstk_victim_lru,
    .valid_only = 1,
    .on_fill = hacs_on_fill,
    .on_invalidate = rstk_on_invalidate,
    .overhead_bits = rstk_type_bit_per_line,
    .check = hacs_check,
};
