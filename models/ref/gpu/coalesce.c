/* coalesce: see coalesce.h. */
#include "coalesce.h"

#include <string.h>

/* Branch-free population count: the build does not assume the POPCNT
 * instruction, so __builtin_popcount would be a libgcc call. */
static inline unsigned popc32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (unsigned)((x * 0x01010101u) >> 24);
}
/* Bits [lo, hi) of a 32-bit word, 0 <= lo <= hi <= 32. */
static inline uint32_t span32(unsigned lo, unsigned hi) {
  return (uint32_t)(((1ull << hi) - 1ull) & ~((1ull << lo) - 1ull));
}
/* Bits [lo, hi) of a 64-bit word, 0 <= lo <= hi <= 64. */
static inline uint64_t span64(unsigned lo, unsigned hi) {
  const uint64_t up = hi >= 64 ? ~0ull : ((1ull << hi) - 1ull);
  return lo >= 64 ? 0 : up & ~((1ull << lo) - 1ull);
}

/* Bit i of x (16 bits) -> bits 4i..4i+3: the byte mask of 4 B slots. */
static inline uint64_t spread4(uint64_t x) {
  x = (x | x << 24) & 0x000000ff000000ffull;
  x = (x | x << 12) & 0x000f000f000f000full;
  x = (x | x << 6) & 0x0303030303030303ull;
  x = (x | x << 3) & 0x1111111111111111ull;
  return x * 0xfu;
}
/* Bit i of x (8 bits) -> bits 8i..8i+7: the byte mask of 8 B slots. */
static inline uint64_t spread8(uint64_t x) {
  x = (x | x << 28) & 0x0000000f0000000full;
  x = (x | x << 14) & 0x0003000300030003ull;
  x = (x | x << 7) & 0x0101010101010101ull;
  return x * 0xffu;
}

static int bad_size(unsigned bytes) { return bytes == 0 || bytes > 16 || (bytes & (bytes - 1)) != 0; }

int coal_warp_general(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]) {
  if (bad_size(bytes)) return -1;
  /* Line -> request index: an open-addressed table of 64 slots (at most 32
   * lines, so a probe always ends at an empty slot) instead of a linear search
   * over the requests so far, which cost up to 32 compares per lane for
   * scattered warps. A lane on the previous lane's line (the common case of
   * gathers with locality) skips the table. Request order stays that of the
   * first lane of each line. */
  uint8_t tab[64];
  memset(tab, 0xff, sizeof tab);
  const uint64_t bmask = (1ull << bytes) - 1ull;
  uint64_t bad = 0, prev_line = 0;
  coal_req *q = NULL;
  unsigned n = 0;
  for (uint32_t act = active; act; act &= act - 1) {
    const unsigned lane = (unsigned)__builtin_ctz(act);
    const uint64_t a = addr[lane];
    bad |= a;
    const uint64_t line = a & ~(uint64_t)(COAL_LINE_BYTES - 1);
    const unsigned off = (unsigned)(a & (COAL_LINE_BYTES - 1));
    if (!q || line != prev_line) {
      unsigned h = (unsigned)(((line >> 7) * 0x9E3779B97F4A7C15ull) >> 58);
      for (;;) {
        const unsigned r = tab[h];
        if (r == 0xffu) {
          tab[h] = (uint8_t)n;
          q = &out[n++];
          memset(q, 0, sizeof *q);
          q->line_addr = line;
          break;
        }
        if (out[r].line_addr == line) {
          q = &out[r];
          break;
        }
        h = (h + 1) & 63u;
      }
      prev_line = line;
    }
    const uint32_t lb = 1u << lane;
    const unsigned s = off / COAL_SECTOR_BYTES;
    q->thread_mask |= lb;
    q->sector_mask = (uint8_t)(q->sector_mask | (1u << s));
    q->sector_threads[s] |= lb;
    q->ea_count++;
    /* bytes <= 16 and aligned: the range lies within one 64-bit mask word, and
     * two lanes' ranges are either the same or disjoint. */
    uint64_t *w = &q->byte_mask[off >> 6];
    const uint64_t m = bmask << (off & 63u);
    q->bytes = (uint16_t)(q->bytes + ((*w & m) ? 0u : bytes));
    *w |= m;
  }
  if (bad & (bytes - 1)) return -1;
  return (int)n;
}

/* Unit-stride fast path: active lane l accesses a0 + (l - f) * bytes, f = the
 * first active lane. Returns the request count, -1 for a misaligned first
 * address (the general path fails on the same lane), or -2 when the pattern is
 * not unit-stride (nothing written then that the general path relies on).
 * Lines come out in address order, which is the order of their first lanes. */
static int coal_unit_stride(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int trusted,
                            coal_req out[COAL_MAX_REQS]) {
  const unsigned f = (unsigned)__builtin_ctz(active), last = 31u - (unsigned)__builtin_clz(active);
  const uint64_t a0 = addr[f];
  if (a0 & (bytes - 1)) return -1;
  if (a0 > ~0ull - 1024) return -2; /* keep the address arithmetic free of wrap-around */
  const unsigned sh = (unsigned)__builtin_ctz(bytes);
  /* Early exit for the common other patterns (gathers, broadcasts): the last
   * active lane is not where unit stride puts it. trusted: the caller
   * guarantees unit stride, no address is checked. */
  if (!trusted && addr[last] != a0 + ((uint64_t)(last - f) << sh)) return -2;
  const int contig = active == span32(f, last + 1);
  if (trusted) {
    /* nothing to check */
  } else if (contig) {
    /* Contiguous lanes (full and tail warps): branch-free check, two lanes
     * per step with GCC/Clang vector extensions (SSE2 on x86-64, scalar code
     * elsewhere). Lane f is included (it matches by construction). */
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    const uint64_t st2 = (uint64_t)bytes << 1;
    v2u64 acc = {0, 0}, acc2 = {0, 0}, e = {a0, a0 + bytes}, e2 = {a0 + st2, a0 + st2 + bytes};
    const v2u64 step = {st2 << 1, st2 << 1};
    unsigned l = f;
    for (; l + 4 <= last + 1; l += 4) {
      v2u64 x, y;
      memcpy(&x, &addr[l], sizeof x);
      memcpy(&y, &addr[l + 2], sizeof y);
      acc |= x ^ e;
      acc2 |= y ^ e2;
      e += step;
      e2 += step;
    }
    if (l + 2 <= last + 1) {
      v2u64 x;
      memcpy(&x, &addr[l], sizeof x);
      acc |= x ^ e;
      e = e2;
      l += 2;
    }
    acc |= acc2;
    uint64_t d = acc[0] | acc[1];
    if (l <= last) d |= addr[l] ^ e[0];
    if (d) return -2;
  } else {
    for (uint32_t m = active & (active - 1); m; m &= m - 1) {
      const unsigned l = (unsigned)__builtin_ctz(m);
      if (addr[l] != a0 + ((uint64_t)(l - f) << sh)) return -2;
    }
  }
  const uint64_t end = a0 + ((uint64_t)(last + 1 - f) << sh); /* exclusive */
  unsigned n = 0;
  for (uint64_t line = a0 & ~(uint64_t)(COAL_LINE_BYTES - 1); line < end; line += COAL_LINE_BYTES) {
    /* bnd[k] = first lane at or above address line + 32 k, clamped to 0..32
     * (lane of address x: f + (x - a0) / bytes, exact as both are multiples
     * of bytes). Lanes outside f..last are inactive, so clamping is enough. */
    if (contig && line >= a0 && line + COAL_LINE_BYTES <= end) {
      /* The line lies inside the warp's range: every lane of it is active,
       * all sectors and bytes are touched. */
      const unsigned v0 = f + (unsigned)((line - a0) >> sh), per = COAL_SECTOR_BYTES >> sh;
      coal_req *q = &out[n++];
      q->line_addr = line;
      /* bytes >= 4 here (32 lanes cannot cover a line of smaller accesses),
       * so per <= 8 and 4 * per <= 32. */
      const uint32_t unit = (1u << per) - 1u;
      q->thread_mask = (uint32_t)(((1ull << (4 * per)) - 1ull) << v0);
      for (unsigned k = 0; k < 4; ++k) q->sector_threads[k] = unit << (v0 + k * per);
      q->sector_mask = 0xf;
      q->ea_count = (uint8_t)(4 * per);
      q->bytes = COAL_LINE_BYTES;
      q->byte_mask[0] = q->byte_mask[1] = ~0ull;
      continue;
    }
    unsigned bnd[5];
    for (unsigned k = 0; k < 5; ++k) {
      const int64_t v = (int64_t)f + ((int64_t)(line + k * COAL_SECTOR_BYTES - a0) >> sh);
      bnd[k] = v < 0 ? 0u : v > 32 ? 32u : (unsigned)v;
    }
    const uint32_t tm = active & span32(bnd[0], bnd[4]);
    if (!tm) continue; /* a gap in the active mask spans this whole line */
    coal_req *q = &out[n++];
    q->line_addr = line;
    q->thread_mask = tm;
    uint8_t sm = 0;
    for (unsigned s = 0; s < 4; ++s) {
      const uint32_t st = active & span32(bnd[s], bnd[s + 1]);
      q->sector_threads[s] = st;
      sm = (uint8_t)(sm | ((st != 0) << s));
    }
    q->sector_mask = sm;
    const unsigned t0 = (unsigned)__builtin_ctz(tm), t1 = 31u - (unsigned)__builtin_clz(tm);
    const unsigned off0 = (unsigned)(a0 + ((uint64_t)(t0 - f) << sh) - line);
    unsigned ea;
    if (tm == span32(t0, t1 + 1)) { /* contiguous lanes: one byte range */
      ea = t1 - t0 + 1;
      const unsigned b0 = off0, b1 = off0 + (ea << sh);
      q->byte_mask[0] = span64(b0 < 64 ? b0 : 64, b1 < 64 ? b1 : 64);
      q->byte_mask[1] = span64(b0 > 64 ? b0 - 64 : 0, b1 > 64 ? b1 - 64 : 0);
    } else if (bytes == 4 || bytes == 8) {
      /* Holes in the mask: lane t0 + i covers access slot off0 / bytes + i of
       * the line; spread each slot bit over its bytes (no lane loop). */
      ea = popc32(tm);
      const uint64_t slots = (uint64_t)(tm >> t0) << (off0 >> sh);
      if (bytes == 4) {
        q->byte_mask[0] = spread4(slots & 0xffffu);
        q->byte_mask[1] = spread4((slots >> 16) & 0xffffu);
      } else {
        q->byte_mask[0] = spread8(slots & 0xffu);
        q->byte_mask[1] = spread8((slots >> 8) & 0xffu);
      }
    } else {
      ea = popc32(tm);
      q->byte_mask[0] = q->byte_mask[1] = 0;
      const uint64_t m = (1ull << bytes) - 1ull;
      for (uint32_t b = tm; b; b &= b - 1) {
        const unsigned off = off0 + (((unsigned)__builtin_ctz(b) - t0) << sh);
        q->byte_mask[off >> 6] |= m << (off & 63u);
      }
    }
    q->ea_count = (uint8_t)ea;
    q->bytes = (uint16_t)(ea << sh);
  }
  return (int)n;
}


/* The most common pattern of all: a full warp of 4 B accesses, lane l at
 * line + 4 l (one whole line, every sector). Returns 1 with out[0] filled, or
 * 0 when the pattern does not match (nothing written then). */
static int coal_full_line4(const uint64_t addr[COAL_WARP], coal_req out[COAL_MAX_REQS]) {
  const uint64_t a0 = addr[0];
  if (a0 & (COAL_LINE_BYTES - 1)) return 0;
  /* Branch-free check, two lanes per step (vector extensions as above):
   * (addr[l] - a0) ^ 4 l must be zero for every lane. */
  typedef uint64_t v2u64 __attribute__((vector_size(16)));
  const v2u64 base = {a0, a0};
  v2u64 acc = {0, 0}, acc2 = {0, 0}, off = {0, 4}, off2 = {8, 12};
  const v2u64 step = {16, 16};
  for (unsigned l = 0; l < COAL_WARP; l += 4) {
    v2u64 x, y;
    memcpy(&x, &addr[l], sizeof x);
    memcpy(&y, &addr[l + 2], sizeof y);
    acc |= (x - base) ^ off;
    acc2 |= (y - base) ^ off2;
    off += step;
    off2 += step;
  }
  acc |= acc2;
  if (acc[0] | acc[1]) return 0;
  coal_line4_req(a0, out);
  return 1;
}

/* Everything after the full-line check (trusted: the caller guarantees unit stride). */
static int coal_rest(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int trusted,
                     coal_req out[COAL_MAX_REQS]) {
  if (bad_size(bytes)) return -1;
  if (!active) return 0;
  const int n = coal_unit_stride(addr, active, bytes, trusted, out);
  return n != -2 ? n : coal_warp_general(addr, active, bytes, out);
}

int coal_warp(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]) {
  if (bytes == 4 && active == 0xffffffffu && coal_full_line4(addr, out)) return 1;
  return coal_rest(addr, active, bytes, 0, out);
}

int coal_warp_line4_impl(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int unit_stride,
                         coal_req out[COAL_MAX_REQS], int *line4) {
  if (bytes == 4 && active == 0xffffffffu) {
    /* Known unit stride: only the line alignment of lane 0 is left to check. */
    *line4 = unit_stride ? !(addr[0] & (COAL_LINE_BYTES - 1)) && (coal_line4_req(addr[0], out), 1)
                         : coal_full_line4(addr, out);
    if (*line4) return 1;
  } else {
    *line4 = 0;
  }
  return coal_rest(addr, active, bytes, unit_stride, out);
}
