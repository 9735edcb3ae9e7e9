/* repl_eabp: EABP, effective-address-based priority (Mu et al., "Orchestrating
 * cache management and memory scheduling for GPGPU applications", IEEE TVLSI
 * 22(8), 2014), as the HAC paper describes and uses it: its ref. [20] and the
 * baseline "EABP" of Sec. V-C. Built from that description only (docs/hac.md).
 *
 * What the HAC paper says about it: lines accessed by requests with more
 * effective addresses (threads coalesced into the request) are more likely to
 * be reused, so they get a higher priority for a longer time (Sec. III-B); EABP
 * does not distinguish DRAM and NVM lines, which is what HAC adds (Sec. V-C:
 * "by distinguishing DRAM and NVM cache lines"). The memory-scheduling half of
 * [20] is not an L2 policy and is not modelled.
 *
 * Implemented: HAC's coalescing groups (Sec. IV-A: Low = 1..8, Middle = 9..23,
 * High = 24..32 effective addresses) with HAC's static insertion positions
 * stripped of the memory type: High at MRU, Middle at central (A/2), Low
 * at LRU (0). A hit moves the line to MRU (LRU promotion). The victim is the
 * LRU line; no bypass. With every request fully coalesced or ea unknown this is
 * exactly LRU (tests/unit/test_repl_hac.c checks that).
 *
 * Hardware cost beyond an LRU stack: none (the group comes with the request).
 */
#include <stdint.h>

#include "repl.h"
#include "repl_stack.h"

static void eabp_on_fill(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  rstk_state *s = st;
  const int g = rstk_group(a->ea_count);
  const uint32_t p = g == RSTK_HIGH ? s->ways - 1 : g == RSTK_MIDDLE ? s->ways / 2 : 0;
  rstk_move(rstk_pos(s, set), s->ways, way, p);
}

static uint64_t eabp_overhead_bits(uint32_t sets, uint32_t ways) {
  (void)sets;
  (void)ways;
  return 0;
}

const repl_ops repl_eabp_ops = {
    .name = "eabp",
    .desc = "EABP: insertion by coalescing group (High MRU, Middle central, Low LRU), LRU promotion; HAC paper ref. [20]",
    .state_bytes = rstk_state_bytes,
    .init = rstk_state_init,
    .on_hit = rstk_hit_mru,
    .victim = rstk_victim_lru,
    .valid_only = 1,
    .on_fill = eabp_on_fill,
    .on_invalidate = rstk_on_invalidate,
    .overhead_bits = eabp_overhead_bits,
    .check = 0,
};
