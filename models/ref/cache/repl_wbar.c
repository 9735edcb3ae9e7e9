/* repl_wbar: WBAR, write-back aware shared last-level cache management for
 * hybrid main memory (Zhang, Ju, Zhao, Gao, Jia, DAC 2016), as the HAC paper
 * describes and uses it: its ref. [5] and the baseline "WBAR" of Sec. V-C.
 * Built from that description only (docs/hac.md says what and why).
 *
 * What the HAC paper says about it: a CPU LLC policy for a DRAM+NVM main
 * memory (Sec. II-B) that is aware of write-backs, i.e. of the cost of evicting
 * dirty lines to NVM, the most expensive memory operation (Sec. III-C, Fig. 3:
 * NVM writes matter most, then NVM reads); it does not use GPU features
 * (coalescing, bypass), which is why HAC beats it (Sec. V-C: "WBAR can't take
 * full advantage of the characteristics of the GPU"). The DAC paper's abstract
 * adds its two aims: a higher hit ratio for NVM lines and fewer NVM write-backs.
 *
 * Implemented, one mechanism per aim, on a recency stack (0 = LRU, A-1 = MRU):
 *  - NVM-hit priority: a missing NVM line is inserted at MRU, a DRAM line
 *    at central (A/2); a hit moves the line to MRU.
 *  - Write-back awareness: the victim is the LRU-most allowed line among the
 *    lower half of the stack (positions < A/2) that is not a dirty NVM line;
 *    only when every such line is dirty NVM (or none is allowed) is the LRU
 *    line evicted. Dirty NVM lines thus survive up to half a stack longer.
 * No coalescing information, no bypass, no adaptation.
 *
 * Hardware cost beyond an LRU stack: the 1-bit memory-type flag per line (the
 * dirty bit exists in any write-back cache).
 */
#include <stdint.h>

#include "repl.h"
#include "repl_stack.h"

static int wbar_victim(void *st, uint32_t set, const repl_line *lines, uint32_t way_mask, const repl_access *a) {
  (void)a;
  rstk_state *s = st;
  const int inv = rstk_invalid(lines, s->ways, way_mask);
  if (inv >= 0) return inv;
  const uint8_t *pos = rstk_pos(s, set);
  int best = -1;
  for (uint32_t w = 0; w < s->ways; ++w) {
    if (!((way_mask >> w) & 1u) || pos[w] >= s->ways / 2) continue;
    if (lines[w].dirty && rstk_is_nvm(lines[w].mem_type)) continue;
    if (best < 0 || pos[w] < pos[best]) best = (int)w;
  }
  return best >= 0 ? best : rstk_lowest(pos, s->ways, way_mask);
}

static void wbar_on_fill(void *st, uint32_t set, uint32_t way, const repl_access *a) {
  rstk_state *s = st;
  rstk_move(rstk_pos(s, set), s->ways, way, rstk_is_nvm(a->mem_type) ? s->ways - 1 : s->ways / 2);
}

const repl_ops repl_wbar_ops = {
    .name = "wbar",
    .desc = "WBAR: NVM lines inserted at MRU, DRAM at central; victim spares dirty NVM lines in the LRU half; HAC ref. [5]",
    .state_bytes = rstk_state_bytes,
    .init = rstk_state_init,
    .on_hit = rstk_hit_mru,
    .victim = wbar_victim,
    .on_fill = wbar_on_fill,
    .on_invalidate = rstk_on_invalidate,
    .overhead_bits = rstk_type_bit_per_line,
    .check = 0,
};
