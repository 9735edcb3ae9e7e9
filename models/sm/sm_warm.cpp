// Sm's part of the functional fast-forward (platform/fast_forward.h): the L1 stage's tag-side effects without
// timing, in a file of its own so that the SM's pipeline (sm.cpp) compiles as it did.
#include "sm/sm.h"

namespace strata {

namespace {
// Sectors whose 32 bytes the request writes entirely (GpuExt::sector_full over its byte mask).
uint8_t full_sectors_of(const coal_req& r) {
  uint8_t full = 0;
  for (unsigned s = 0; s < kSectorsPerLine; ++s)
    if (static_cast<uint32_t>(r.byte_mask[s >> 1] >> ((s & 1) * 32)) == 0xffffffffu)
      full = static_cast<uint8_t>(full | (1u << s));
  return full;
}
}  // namespace

uint8_t Sm::warm_request(Op op, const coal_req& r) {
  if (!l1_on_) return r.sector_mask;
  const int way = cache_find(&l1_, r.line_addr);
  const uint32_t set = cache_set_of(&l1_, r.line_addr);
  if (op == Op::Atomic) {  // l1_atomic: the L1 copy goes, the L2 performs it
    if (way >= 0) cache_invalidate(&l1_, set, static_cast<uint32_t>(way));
    return r.sector_mask;
  }
  repl_access ra{};
  ra.ea_count = r.ea_count;
  if (op == Op::Load) {  // l1_load: the valid sectors hit, the rest miss
    if (way < 0) return r.sector_mask;
    cache_line* l = cache_line_at(&l1_, set, static_cast<uint32_t>(way));
    ra.mem_type = l->mem_type;
    if (l->valid_sectors & r.sector_mask) cache_touch(&l1_, set, static_cast<uint32_t>(way), &ra);
    return static_cast<uint8_t>(r.sector_mask & ~l->valid_sectors);
  }
  // l1_store: write-through; a present copy takes the bytes, a missing one is allocated (write-validate) with
  // its fully written sectors when the L1 write-allocates.
  ra.is_write = 1;
  if (way >= 0) {
    cache_touch(&l1_, set, static_cast<uint32_t>(way), &ra);
  } else if (l1cfg_.write_allocate) {
    const uint8_t full = full_sectors_of(r);
    if (full) {
      const int v = cache_victim(&l1_, r.line_addr, &ra);
      if (v >= 0) {
        cache_install(&l1_, set, static_cast<uint32_t>(v), r.line_addr, ra.mem_type, &ra);
        cache_line_at(&l1_, set, static_cast<uint32_t>(v))->valid_sectors = full;
      }
    }
  }
  return r.sector_mask;
}

// on_fill: the line installed when absent (an L1 that does not write-allocate installs only its own fills;
// before the simulation no store can come between), the sectors valid.
void Sm::warm_fill(const coal_req& r, uint8_t sectors, uint8_t mem_type) {
  if (!l1_on_ || !sectors) return;
  int way = cache_find(&l1_, r.line_addr);
  const uint32_t set = cache_set_of(&l1_, r.line_addr);
  repl_access ra{};
  ra.ea_count = r.ea_count;
  ra.mem_type = mem_type;
  if (way < 0) {
    way = cache_victim(&l1_, r.line_addr, &ra);
    if (way < 0) return;
    cache_install(&l1_, set, static_cast<uint32_t>(way), r.line_addr, mem_type, &ra);
  }
  cache_line_at(&l1_, set, static_cast<uint32_t>(way))->valid_sectors |= sectors;
}

void Sm::warm_finish(bstore* golden) {
  if (!l1_on_) return;
  for (uint32_t s = 0; s < l1_.sets; ++s)
    for (uint32_t w = 0; w < l1_.ways; ++w) {
      const cache_line* l = cache_line_at(&l1_, s, w);
      unsigned char* d = cache_data_at(&l1_, s, w);
      if (l->valid && d) bstore_read(golden, l->line_addr, d, kLineBytes);
    }
}

}  // namespace strata
