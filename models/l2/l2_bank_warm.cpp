// L2Bank's part of the functional fast-forward (platform/fast_forward.h): the request path's tag-side effects
// without timing, in a file of its own so that the bank's request path (l2_bank.cpp) compiles as it did.
#include "l2/l2_bank.h"

namespace strata {

// The request path's outcomes (l2_bank.cpp try_handle), none waiting for anything: nothing is in flight
// before the simulation starts, so a sector miss is filled at once and no way is busy.
uint8_t L2Bank::warm(uint64_t line, uint8_t req, uint8_t partial, bool wr, bool atom, uint8_t ea_count,
                     uint64_t* dirty_victim) {
  req &= all_sectors_;
  repl_access acc{};
  acc.is_write = wr;
  acc.ea_count = ea_count;
  const uint32_t set = cache_set_of(&c_, line);
  const int w = cache_find(&c_, line);
  if (w >= 0) {  // present: 2. a hit, or 3. its missing sectors fetched
    cache_line* l = cache_line_at(&c_, set, static_cast<uint32_t>(w));
    acc.mem_type = l->mem_type;
    cache_touch(&c_, set, static_cast<uint32_t>(w), &acc);
    l->valid_sectors |= wr ? partial : req;
    if (wr) l->valid_sectors |= static_cast<uint8_t>(req & ~partial);
    if (wr || atom) l->dirty_sectors |= req;
    return l->mem_type;
  }
  const uint8_t mt = mem_type_of(line);
  if (wr && !req) return mt;  // 4. a write with no bytes
  acc.mem_type = mt;
  acc.allow_bypass = !wr && !atom;  // a demand read miss (the fast-forward issues demand requests only)
  const int v = cache_victim_masked(&c_, line, ~0u, &acc);
  if (v < 0) return mt;  // 6. bypassed (or no way allowed): nothing allocated
  cache_line* l = cache_line_at(&c_, set, static_cast<uint32_t>(v));
  if (l->valid && l->dirty_sectors && dirty_victim) *dirty_victim = l->line_addr;  // its write-back is the caller's
  cache_install(&c_, set, static_cast<uint32_t>(v), line, mt, &acc);  // 7.
  l->valid_sectors = req;  // the fetched sectors and a write's whole ones
  l->dirty_sectors = (wr || atom) ? req : 0;
  return mt;
}

void L2Bank::warm_finish(bstore* golden) {
  for (uint32_t s = 0; s < c_.sets; ++s)
    for (uint32_t w = 0; w < c_.ways; ++w) {
      const cache_line* l = cache_line_at(&c_, s, w);
      unsigned char* d = cache_data_at(&c_, s, w);
      if (l->valid && d) bstore_read(golden, l->line_addr, d, kLineBytes);
    }
}

}  // namespace strata
