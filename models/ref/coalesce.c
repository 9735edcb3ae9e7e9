/* coalesce: see coalesce.h. */
#include "coalesce.h"

#include <string.h>

static unsigned popc32(uint32_t x) { return (unsigned)__builtin_popcount(x); }
static unsigned popc64(uint64_t x) { return (unsigned)__builtin_popcountll(x); }

int coal_warp(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]) {
  if (bytes == 0 || bytes > 16 || (bytes & (bytes - 1)) != 0) return -1;
  unsigned n = 0;
  for (unsigned lane = 0; lane < COAL_WARP; ++lane) {
    if (!((active >> lane) & 1u)) continue;
    const uint64_t a = addr[lane];
    if (a & (bytes - 1)) return -1;
    const uint64_t line = a & ~(uint64_t)(COAL_LINE_BYTES - 1);
    const unsigned off = (unsigned)(a & (COAL_LINE_BYTES - 1));
    /* Linear search: at most 32 distinct lines; a warp touching few lines (the
     * common, coalesced case) finds its line at once. */
    unsigned r = 0;
    while (r < n && out[r].line_addr != line) ++r;
    if (r == n) {
      memset(&out[n], 0, sizeof out[n]);
      out[n].line_addr = line;
      ++n;
    }
    coal_req *q = &out[r];
    q->thread_mask |= 1u << lane;
    q->sector_mask = (uint8_t)(q->sector_mask | (1u << (off / COAL_SECTOR_BYTES)));
    /* bytes <= 16 and aligned: the range lies within one 64-bit mask word. */
    const uint64_t m = ((1ull << bytes) - 1ull) << (off & 63u);
    q->byte_mask[off >> 6] |= m;
  }
  for (unsigned r = 0; r < n; ++r) {
    out[r].ea_count = (uint8_t)popc32(out[r].thread_mask);
    out[r].bytes = (uint16_t)(popc64(out[r].byte_mask[0]) + popc64(out[r].byte_mask[1]));
  }
  return (int)n;
}

unsigned coal_bucket(unsigned ea) {
  if (ea <= 1) return 0;
  if (ea <= 8) return 1;
  if (ea <= 16) return 2;
  if (ea <= 24) return 3;
  return 4;
}

void coal_hist_add(coal_hist *h, const coal_req *reqs, unsigned n) {
  h->insts++;
  h->reqs += n;
  for (unsigned r = 0; r < n; ++r) h->bucket[coal_bucket(reqs[r].ea_count)]++;
}
