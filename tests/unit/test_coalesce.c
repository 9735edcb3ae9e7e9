/* Unit tests of the warp memory coalescer (models/ref/gpu/coalesce.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "gpu/coalesce.h"

static void fill_linear(uint64_t addr[32], uint64_t base, uint64_t stride) {
  for (unsigned i = 0; i < 32; ++i) addr[i] = base + i * stride;
}

/* 32 x 4 B consecutive, line aligned: one request, all four sectors, ea 32. */
static void fully_coalesced(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0x10000, 4);
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 1);
  assert_int_equal(r[0].line_addr, 0x10000);
  assert_int_equal(r[0].sector_mask, 0xf);
  assert_int_equal(r[0].ea_count, 32);
  assert_int_equal(r[0].thread_mask, 0xffffffffu);
  assert_int_equal(r[0].bytes, 128);
  assert_true(r[0].byte_mask[0] == ~0ull && r[0].byte_mask[1] == ~0ull);
}

/* Misaligned start (offset 64): two lines, 16 threads each, sectors 2,3 and 0,1. */
static void misaligned_two_lines(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0x10040, 4);
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 2);
  assert_int_equal(r[0].line_addr, 0x10000);
  assert_int_equal(r[0].sector_mask, 0xc);
  assert_int_equal(r[0].ea_count, 16);
  assert_int_equal(r[0].thread_mask, 0x0000ffffu);
  assert_true(r[0].byte_mask[0] == 0 && r[0].byte_mask[1] == ~0ull);
  assert_int_equal(r[1].line_addr, 0x10080);
  assert_int_equal(r[1].sector_mask, 0x3);
  assert_int_equal(r[1].ea_count, 16);
  assert_int_equal(r[1].thread_mask, 0xffff0000u);
}

/* Stride 8 B with 4 B accesses: 2 lines, 16 threads each, every sector, half the bytes. */
static void strided(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0, 8);
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 2);
  for (unsigned i = 0; i < 2; ++i) {
    assert_int_equal(r[i].line_addr, i * 128);
    assert_int_equal(r[i].ea_count, 16);
    assert_int_equal(r[i].sector_mask, 0xf);
    assert_int_equal(r[i].bytes, 64);
    assert_true(r[i].byte_mask[0] == 0x0f0f0f0f0f0f0f0full);
  }
  /* Stride 32 B: 8 lines x 4 threads, one byte run per sector. */
  fill_linear(a, 0, 32);
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 8);
  for (unsigned i = 0; i < 8; ++i) {
    assert_int_equal(r[i].ea_count, 4);
    assert_int_equal(r[i].sector_mask, 0xf);
    assert_int_equal(r[i].bytes, 16);
  }
  /* Stride 128 B, 4 B: 32 requests, ea 1, one sector each. */
  fill_linear(a, 0, 128 + 32);
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 32);
  for (unsigned i = 0; i < 32; ++i) {
    assert_int_equal(r[i].ea_count, 1);
    assert_int_equal(r[i].sector_mask, 1u << (i % 4));
    assert_int_equal(r[i].line_addr, (uint64_t)i * 160 & ~127ull);
  }
}

/* Scattered (gather): every lane its own line -> ea 1, request order = lane order. */
static void scattered(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  for (unsigned i = 0; i < 32; ++i) a[i] = (uint64_t)(31 - i) * 4096 + 12;
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 32);
  for (unsigned i = 0; i < 32; ++i) {
    assert_int_equal(r[i].line_addr, (uint64_t)(31 - i) * 4096);
    assert_int_equal(r[i].ea_count, 1);
    assert_int_equal(r[i].thread_mask, 1u << i);
    assert_int_equal(r[i].sector_mask, 1);
    assert_true(r[i].byte_mask[0] == 0xf000ull && r[i].byte_mask[1] == 0);
  }
  /* Several lanes on the same word (broadcast) count as several effective addresses. */
  for (unsigned i = 0; i < 32; ++i) a[i] = (i & 1) ? 0x2000 : 0x3004;
  assert_int_equal(coal_warp(a, 0xffffffffu, 4, r), 2);
  assert_int_equal(r[0].line_addr, 0x3000);
  assert_int_equal(r[0].ea_count, 16);
  assert_int_equal(r[0].bytes, 4);
  assert_int_equal(r[1].line_addr, 0x2000);
  assert_int_equal(r[1].ea_count, 16);
}

/* Partial masks: inactive lanes neither count nor add bytes; empty mask -> 0 requests. */
static void partial_masks(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0x8000, 4);
  assert_int_equal(coal_warp(a, 0x000000ffu, 4, r), 1); /* lanes 0-7: sector 0 only */
  assert_int_equal(r[0].ea_count, 8);
  assert_int_equal(r[0].sector_mask, 0x1);
  assert_int_equal(r[0].bytes, 32);
  assert_int_equal(coal_warp(a, 0x80000001u, 4, r), 1); /* lanes 0 and 31 */
  assert_int_equal(r[0].ea_count, 2);
  assert_int_equal(r[0].sector_mask, 0x9);
  assert_true(r[0].byte_mask[0] == 0xfull && r[0].byte_mask[1] == (0xfull << 60));
  assert_int_equal(coal_warp(a, 0, 4, r), 0);
  /* Inactive lanes may hold garbage (misaligned) addresses. */
  a[5] = 3;
  assert_int_equal(coal_warp(a, ~(1u << 5), 4, r), 1);
  assert_int_equal(r[0].ea_count, 31);
}

/* 8-byte accesses: 32 x 8 B consecutive = 2 lines x 16 threads, all sectors. */
static void eight_byte(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0x4000, 8);
  assert_int_equal(coal_warp(a, 0xffffffffu, 8, r), 2);
  assert_int_equal(r[0].ea_count, 16);
  assert_int_equal(r[1].ea_count, 16);
  assert_int_equal(r[0].sector_mask, 0xf);
  assert_int_equal(r[0].bytes, 128);
  /* one 8 B access at offset 120: last sector, bytes 120..127 */
  a[0] = 0x4000 + 120;
  assert_int_equal(coal_warp(a, 1u, 8, r), 1);
  assert_int_equal(r[0].sector_mask, 0x8);
  assert_true(r[0].byte_mask[0] == 0 && r[0].byte_mask[1] == (0xffull << 56));
}

/* Byte masks of odd patterns and error handling (misaligned, bad size). */
static void byte_masks_and_errors(void **state) {
  (void)state;
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  memset(a, 0, sizeof a);
  a[0] = 0x100 + 4;   /* bytes 4..7 */
  a[1] = 0x100 + 64;  /* bytes 64..67 */
  a[2] = 0x100 + 100; /* bytes 100..103 */
  assert_int_equal(coal_warp(a, 0x7u, 4, r), 1);
  assert_true(r[0].byte_mask[0] == 0xf0ull);
  assert_true(r[0].byte_mask[1] == (0xfull | (0xfull << 36)));
  assert_int_equal(r[0].sector_mask, 0x1 | 0x4 | 0x8);
  assert_int_equal(r[0].bytes, 12);
  a[0] = 0x102; /* misaligned 4 B access */
  assert_int_equal(coal_warp(a, 0x1u, 4, r), -1);
  assert_int_equal(coal_warp(a, 0x1u, 3, r), -1);
  assert_int_equal(coal_warp(a, 0x1u, 2, r), 1);
}

static void histogram(void **state) {
  (void)state;
  assert_int_equal(coal_bucket(1), 0);
  assert_int_equal(coal_bucket(2), 1);
  assert_int_equal(coal_bucket(8), 1);
  assert_int_equal(coal_bucket(9), 2);
  assert_int_equal(coal_bucket(16), 2);
  assert_int_equal(coal_bucket(17), 3);
  assert_int_equal(coal_bucket(24), 3);
  assert_int_equal(coal_bucket(25), 4);
  assert_int_equal(coal_bucket(32), 4);
  coal_hist h;
  memset(&h, 0, sizeof h);
  uint64_t a[32];
  coal_req r[COAL_MAX_REQS];
  fill_linear(a, 0, 4);
  coal_hist_add(&h, r, (unsigned)coal_warp(a, 0xffffffffu, 4, r));
  fill_linear(a, 0, 4096);
  coal_hist_add(&h, r, (unsigned)coal_warp(a, 0xffffffffu, 4, r));
  assert_int_equal(h.insts, 2);
  assert_int_equal(h.reqs, 33);
  assert_int_equal(h.bucket[4], 1);
  assert_int_equal(h.bucket[0], 32);
  assert_int_equal(h.bucket[1] + h.bucket[2] + h.bucket[3], 0);
}

/* xorshift64*: deterministic random stream for the equivalence test. */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

static void assert_same_reqs(const coal_req *x, const coal_req *y, int n) {
  for (int r = 0; r < n; ++r) {
    assert_true(x[r].line_addr == y[r].line_addr);
    assert_int_equal(x[r].thread_mask, y[r].thread_mask);
    assert_int_equal(x[r].sector_mask, y[r].sector_mask);
    assert_int_equal(x[r].ea_count, y[r].ea_count);
    assert_int_equal(x[r].bytes, y[r].bytes);
    assert_true(x[r].byte_mask[0] == y[r].byte_mask[0] && x[r].byte_mask[1] == y[r].byte_mask[1]);
    uint32_t all = 0;
    for (unsigned s = 0; s < 4; ++s) {
      assert_int_equal(x[r].sector_threads[s], y[r].sector_threads[s]);
      assert_int_equal((x[r].sector_threads[s] != 0), (x[r].sector_mask >> s) & 1u);
      assert_int_equal(all & x[r].sector_threads[s], 0); /* sectors partition the lanes */
      all |= x[r].sector_threads[s];
    }
    assert_int_equal(all, x[r].thread_mask);
  }
}

/* The unit-stride fast path of coal_warp gives exactly the general path's
 * results: random bases (line-aligned or not), sizes, active masks (full,
 * contiguous runs, random holes, single lanes), and perturbed patterns that
 * must fall back (one lane off, broadcast, misaligned lanes). Output buffers
 * start with different garbage so no field can be left unwritten. */
static void fast_path_matches_general(void **state) {
  (void)state;
  uint64_t seed = 0x1234567887654321ull;
  unsigned fast_shaped = 0;
  for (unsigned it = 0; it < 200000; ++it) {
    static const unsigned sizes[5] = {1, 2, 4, 8, 16};
    const unsigned bytes = sizes[rnd(&seed) % 5];
    uint64_t a[32];
    const uint64_t base = (rnd(&seed) % (1ull << 40)) & ~(uint64_t)(bytes - 1);
    for (unsigned l = 0; l < 32; ++l) a[l] = base + (uint64_t)l * bytes;
    uint32_t active;
    switch (rnd(&seed) % 5) {
      case 0: active = 0xffffffffu; break;
      case 1: { /* contiguous run */
        const unsigned lo = (unsigned)(rnd(&seed) % 32), len = 1 + (unsigned)(rnd(&seed) % (32 - lo));
        active = (uint32_t)(((1ull << len) - 1) << lo);
        break;
      }
      case 2: active = (uint32_t)rnd(&seed); break;
      case 3: active = 1u << (rnd(&seed) % 32); break;
      default: active = (uint32_t)(rnd(&seed) | rnd(&seed)); break;
    }
    int unit = 0;
    switch (rnd(&seed) % 8) {
      case 0: a[rnd(&seed) % 32] += bytes * (1 + rnd(&seed) % 64); break;      /* one lane elsewhere */
      case 1: for (unsigned l = 0; l < 32; ++l) a[l] = base; break;            /* broadcast */
      case 2: if (bytes > 1) a[rnd(&seed) % 32] += 1; break;                   /* a misaligned lane */
      case 3: for (unsigned l = 0; l < 32; ++l) a[l] = base + (uint64_t)(31 - l) * bytes; break; /* reversed */
      default: ++fast_shaped; unit = 1; break;
    }
    coal_req x[COAL_MAX_REQS], y[COAL_MAX_REQS];
    memset(x, 0xa5, sizeof x);
    memset(y, 0x5a, sizeof y);
    const int nx = coal_warp(a, active, bytes, x), ny = coal_warp_general(a, active, bytes, y);
    assert_int_equal(nx, ny);
    assert_same_reqs(x, y, nx);
    if (unit) { /* the unit-stride promise (no address checks) gives the same */
      coal_req z[COAL_MAX_REQS];
      int l4 = -1;
      memset(z, 0x3c, sizeof z);
      assert_int_equal(coal_warp_line4(a, active, bytes, 1, z, &l4), ny);
      assert_same_reqs(z, y, ny);
    }
  }
  assert_true(fast_shaped > 80000); /* about half the patterns are unit-stride */
}

/* The full-line path (32 lanes x 4 B at line + 4 l): coal_warp_line4 flags
 * exactly that pattern and, flagged or not, gives the general path's requests.
 * Line-aligned bases with perturbations that must not be flagged (one lane
 * moved, two lanes swapped, a misaligned lane, a base off the line start, one
 * lane inactive, 8 B accesses). */
static void full_line4_matches_general(void **state) {
  (void)state;
  uint64_t seed = 0x0badc0ffee123457ull;
  unsigned flagged = 0;
  for (unsigned it = 0; it < 20000; ++it) {
    const uint64_t base = (rnd(&seed) % (1ull << 40)) & ~(uint64_t)127;
    uint64_t a[32];
    fill_linear(a, base, 4);
    uint32_t active = 0xffffffffu;
    unsigned bytes = 4;
    const unsigned kind = (unsigned)(rnd(&seed) % 8), l0 = (unsigned)(rnd(&seed) % 32);
    const unsigned l1 = (l0 + 1 + (unsigned)(rnd(&seed) % 31)) % 32;
    switch (kind) {
      case 0: a[l0] += 4 * (1 + rnd(&seed) % 64); break;
      case 1: { const uint64_t t = a[l0]; a[l0] = a[l1]; a[l1] = t; break; }
      case 2: a[l0] += 1 + rnd(&seed) % 3; break;
      case 3: fill_linear(a, base + 4 * (1 + rnd(&seed) % 31), 4); break;
      case 4: active &= ~(1u << l0); break;
      case 5: bytes = 8; break;
      default: break;
    }
    coal_req x[COAL_MAX_REQS], y[COAL_MAX_REQS];
    memset(x, 0xa5, sizeof x);
    memset(y, 0x5a, sizeof y);
    int line4 = -1;
    const int nx = coal_warp_line4(a, active, bytes, 0, x, &line4), ny = coal_warp_general(a, active, bytes, y);
    assert_int_equal(nx, ny);
    assert_same_reqs(x, y, nx);
    assert_int_equal(line4, kind >= 6);
    if (kind == 3 || kind == 4 || kind >= 6) { /* unit stride: the promise gives the same */
      int l4 = -1;
      coal_req z[COAL_MAX_REQS];
      memset(z, 0x3c, sizeof z);
      assert_int_equal(coal_warp_line4(a, active, bytes, 1, z, &l4), nx);
      assert_same_reqs(z, y, nx);
      assert_int_equal(l4, line4);
    }
    if (line4) {
      assert_int_equal(nx, 1);
      ++flagged;
    }
    assert_int_equal(coal_warp(a, active, bytes, y), nx);
    assert_same_reqs(x, y, nx);
  }
  assert_true(flagged > 4000);
}

/* Test oracle: the coalescer's definition written plainly (lane by lane, a
 * linear search for the lane's line, counts from the masks at the end). */
static unsigned popcount64(uint64_t x) {
  unsigned c = 0;
  for (; x; x &= x - 1) ++c;
  return c;
}
static int reference_coalesce(const uint64_t a[32], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]) {
  unsigned n = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((active >> l) & 1u)) continue;
    if (a[l] % bytes) return -1;
    const uint64_t line = a[l] / 128 * 128;
    const unsigned off = (unsigned)(a[l] % 128);
    unsigned r = 0;
    while (r < n && out[r].line_addr != line) ++r;
    if (r == n) {
      memset(&out[n], 0, sizeof out[n]);
      out[n++].line_addr = line;
    }
    out[r].thread_mask |= 1u << l;
    out[r].sector_mask = (uint8_t)(out[r].sector_mask | (1u << (off / 32)));
    out[r].sector_threads[off / 32] |= 1u << l;
    for (unsigned b = off; b < off + bytes; ++b) out[r].byte_mask[b / 64] |= 1ull << (b % 64);
  }
  for (unsigned r = 0; r < n; ++r) {
    out[r].ea_count = (uint8_t)popcount64(out[r].thread_mask);
    out[r].bytes = (uint16_t)(popcount64(out[r].byte_mask[0]) + popcount64(out[r].byte_mask[1]));
  }
  return (int)n;
}

/* The general (hashed) path and coal_warp give the oracle's requests on
 * scattered warps: addresses drawn from a few lines (sharing, duplicates),
 * from many lines (up to 32 distinct, colliding hash slots), runs of
 * neighbouring lanes on one line, and misaligned lanes. */
static void general_matches_reference(void **state) {
  (void)state;
  uint64_t seed = 0x5eed5eed12345678ull;
  for (unsigned it = 0; it < 100000; ++it) {
    static const unsigned sizes[5] = {1, 2, 4, 8, 16};
    const unsigned bytes = sizes[rnd(&seed) % 5];
    const unsigned kind = (unsigned)(rnd(&seed) % 4);
    const uint64_t base = (rnd(&seed) % (1ull << 36)) & ~(uint64_t)127;
    const unsigned nlines = kind == 0 ? 1 + (unsigned)(rnd(&seed) % 4) : kind == 1 ? 32 : 1 + (unsigned)(rnd(&seed) % 64);
    uint64_t a[32];
    for (unsigned l = 0; l < 32; ++l) {
      /* kind 3: lanes in runs on one line; else independent. Lines 2^k apart
       * (kind 1) or close together. */
      const uint64_t line = kind == 1 ? base + ((uint64_t)(rnd(&seed) % nlines) << (7 + rnd(&seed) % 20))
                                      : base + 128 * (rnd(&seed) % nlines);
      a[l] = (kind == 3 && l > 0 && rnd(&seed) % 4) ? (a[l - 1] & ~(uint64_t)127) : line;
      a[l] += (rnd(&seed) % 128) & ~(uint64_t)(bytes - 1);
    }
    if (bytes > 1 && rnd(&seed) % 16 == 0) a[rnd(&seed) % 32] |= 1; /* a misaligned lane */
    const uint32_t active = rnd(&seed) % 3 ? 0xffffffffu : (uint32_t)rnd(&seed);
    coal_req x[COAL_MAX_REQS], y[COAL_MAX_REQS], z[COAL_MAX_REQS];
    memset(x, 0xa5, sizeof x);
    memset(y, 0x5a, sizeof y);
    memset(z, 0x3c, sizeof z);
    const int nr = reference_coalesce(a, active, bytes, y);
    const int nx = coal_warp_general(a, active, bytes, x);
    assert_int_equal(nx, nr);
    if (nr > 0) assert_same_reqs(x, y, nr);
    const int nz = coal_warp(a, active, bytes, z);
    assert_int_equal(nz, nr);
    if (nr > 0) assert_same_reqs(z, y, nr);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fully_coalesced), cmocka_unit_test(misaligned_two_lines), cmocka_unit_test(strided),
      cmocka_unit_test(scattered),       cmocka_unit_test(partial_masks),        cmocka_unit_test(eight_byte),
      cmocka_unit_test(byte_masks_and_errors), cmocka_unit_test(histogram),
      cmocka_unit_test(fast_path_matches_general), cmocka_unit_test(full_line4_matches_general),
      cmocka_unit_test(general_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
