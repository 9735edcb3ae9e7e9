// L2Bank's part of Unified Memory (docs/um.md "Page-out and the L2"), in a file of its own so that the
// bank's request path (l2_bank.cpp) compiles as it did without it.
#include <cstring>

#include "l2/l2_bank.h"

namespace strata {

uint8_t L2Bank::evict_line(uint64_t line, unsigned char* out) {
  const int way = cache_find(&c_, line);
  if (way < 0) return 0;
  const uint32_t set = cache_set_of(&c_, line), w = static_cast<uint32_t>(way);
  if (line_mshr_[static_cast<size_t>(set) * c_.ways + w] >= 0) return 0;  // a fill in flight: kept
  const cache_line* l = cache_line_at(&c_, set, w);
  const uint8_t dirty = l->dirty_sectors;
  if (const unsigned char* d = cache_data_at(&c_, set, w))
    for (unsigned s = 0; s < kSectorsPerLine; ++s)
      if ((dirty >> s) & 1u) std::memcpy(out + s * kSectorBytes, d + s * kSectorBytes, kSectorBytes);
  cache_invalidate(&c_, set, w);
  ++st_.um_evicted;
  return dirty;
}

}  // namespace strata
