/* Hybrid address maps (models/ref/base/addrmap.c amap_init_parts): physical
 * address ranges -> memory kind -> the channels x ranks serving that kind.
 * Contiguous and interleaved parts, the HMS rank split (a DRAM rank and an
 * SCM rank per channel), the hybrid DRAM+PCM channel split (even channels
 * DRAM, odd PCM), agreement of amap_mem_type with the kind of the serving
 * rank's device, no two addresses on one device location, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/addrmap.h"
#include "mem/dram.h"

static amap M, R; /* the hybrid map; a one-part reference map */
static const char *kHbm = "off:32 col:4 ch:8 bg:4 col:16 ba:4 row";

static uint64_t rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 11;
}

/* HMS: 8 channels x 2 ranks, rank 0 DRAM (1 GiB), rank 1 SCM (unbounded), contiguous. */
static void hms_ranks_contiguous(void **state) {
  (void)state;
  static const uint32_t ch[8] = {0, 1, 2, 3, 4, 5, 6, 7}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg p[2] = {{AMAP_MEM_DRAM, 1ull << 30, 8, 1, ch, r0}, {AMAP_MEM_SCM, 0, 8, 1, ch, r1}};
  char err[256];
  if (amap_init_parts(&M, p, 2, 0, kHbm, 8, 2, 4, 4, 2048, 32, 2, 1, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(amap_init(&R, kHbm, 8, 1, 4, 4, 2048, 2, 1, err, sizeof err), 0);
  assert_int_equal(M.nparts, 2);
  assert_int_equal(M.l2_per_channel, 2);
  uint64_t s = 1;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = rnd(&s) & ((1ull << 34) - 1);
    amap_loc a, b;
    amap_decode(&M, x, &a);
    /* DRAM part: the address itself; SCM part: the address above 1 GiB */
    amap_decode(&R, x < (1ull << 30) ? x : x - (1ull << 30), &b);
    assert_int_equal(a.ra, x < (1ull << 30) ? 0 : 1);
    assert_int_equal(amap_mem_type(&M, x), x < (1ull << 30) ? AMAP_MEM_DRAM : AMAP_MEM_SCM);
    assert_int_equal(a.ch, b.ch);
    assert_int_equal(a.bg, b.bg);
    assert_int_equal(a.ba, b.ba);
    assert_int_equal(a.row, b.row);
    assert_int_equal(a.col, b.col);
    assert_int_equal(a.l2_bank, b.l2_bank);
    assert_int_equal(amap_channel(&M, x), a.ch);
    assert_int_equal(amap_l2_bank(&M, x), a.l2_bank);
    assert_int_equal(a.l2_bank / M.l2_per_channel, a.ch); /* the L2 bank is on the serving channel */
  }
  assert_int_equal(amap_col_chunk_bytes(&M), 128);
}

/* Interleaved 1:4 in 4 KiB blocks (the shipped HMS config): block 0 of every
 * round of 5 is DRAM, blocks 1-4 SCM; part-local addresses are dense. */
static void interleaved_blocks(void **state) {
  (void)state;
  static const uint32_t ch[8] = {0, 1, 2, 3, 4, 5, 6, 7}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg p[2] = {{AMAP_MEM_DRAM, 4ull << 30, 8, 1, ch, r0}, {AMAP_MEM_SCM, 16ull << 30, 8, 1, ch, r1}};
  char err[256];
  if (amap_init_parts(&M, p, 2, 4096, "auto", 8, 2, 4, 4, 2048, 32, 2, 1, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(M.round_blocks, 5);
  assert_int_equal(amap_init(&R, kHbm, 8, 1, 4, 4, 2048, 2, 1, err, sizeof err), 0); /* "auto" = kHbm */
  uint64_t s = 2;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = rnd(&s) & ((1ull << 36) - 1);
    const uint64_t round = x / (5 * 4096), j = (x / 4096) % 5, in = x % 4096;
    const uint64_t local = j == 0 ? round * 4096 + in : (round * 4 + j - 1) * 4096 + in;
    amap_loc a, b;
    amap_decode(&M, x, &a);
    amap_decode(&R, local, &b);
    assert_int_equal(amap_mem_type(&M, x), j == 0 ? AMAP_MEM_DRAM : AMAP_MEM_SCM);
    assert_int_equal(a.ra, j == 0 ? 0 : 1);
    assert_true(a.ch == b.ch && a.bg == b.bg && a.ba == b.ba && a.row == b.row && a.col == b.col);
  }
  /* 4 KiB pages: the first pages of the address space */
  assert_int_equal(amap_mem_type(&M, 0), AMAP_MEM_DRAM);
  assert_int_equal(amap_mem_type(&M, 4096), AMAP_MEM_SCM);
  assert_int_equal(amap_mem_type(&M, 4 * 4096 + 4095), AMAP_MEM_SCM);
  assert_int_equal(amap_mem_type(&M, 5 * 4096), AMAP_MEM_DRAM);
}

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Scattered 1:1 interleave in 4 KiB pages (the HAC system: 12 channels of DRAM rank 0 + PCM rank 1):
 * every round of two pages still holds one page of each kind, and part-local addresses stay dense and
 * distinct (a bijection); the lines of one L2 set (48 KiB apart: 12 banks x 32 sets x 128 B) meet both
 * kinds about equally, where the fixed order gives every such stride one kind only. A one-kind or
 * contiguous map refuses it. */
static void scattered_blocks(void **state) {
  (void)state;
  static const uint32_t ch[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg p[2] = {{AMAP_MEM_DRAM, 1536ull << 20, 12, 1, ch, r0},
                              {AMAP_MEM_NVM, 1536ull << 20, 12, 1, ch, r1}};
  char err[256];
  amap F;
  if (amap_init_parts(&M, p, 2, 4096, "auto", 12, 2, 1, 16, 2048, 32, 1, 0, err, sizeof err) != 0)
    fail_msg("%s", err);
  F = M;
  assert_int_equal(amap_set_part_scatter(&M, 1, err, sizeof err), 0);
  /* per round: one page of each kind; over 4096 rounds both orders occur about equally */
  unsigned dram_first = 0;
  for (uint64_t r = 0; r < 4096; ++r) {
    const unsigned a = amap_mem_type(&M, r * 8192), b = amap_mem_type(&M, r * 8192 + 4096);
    assert_int_not_equal(a, b);
    dram_first += a == AMAP_MEM_DRAM;
    /* within a page the kind and the serving rank do not change */
    amap_loc x, y;
    amap_decode(&M, r * 8192, &x);
    amap_decode(&M, r * 8192 + 4095, &y);
    assert_int_equal(x.ra, y.ra);
    assert_int_equal(x.ra, a == AMAP_MEM_DRAM ? 0 : 1);
  }
  assert_in_range(dram_first, 1948, 2148);
  /* bijection: the device locations of the first 2 x 4096 pages are distinct atoms */
  enum { N = 8192 };
  static uint64_t key[N];
  for (uint64_t i = 0; i < N; ++i) {
    amap_loc a;
    amap_decode(&M, i * 4096 + 96, &a);
    key[i] = ((((uint64_t)a.ch * 2 + a.ra) * 16 + a.ba) << 40) | (a.row << 8) | a.col;
  }
  qsort(key, N, sizeof key[0], cmp_u64);
  for (int i = 1; i < N; ++i) assert_true(key[i] != key[i - 1]);
  /* a 48 KiB stride: one kind only with the fixed order, both kinds scattered */
  for (uint64_t base = 0; base < 12 * 4096; base += 4096) {
    unsigned nvm_fixed = 0, nvm_scat = 0;
    for (uint64_t k = 0; k < 256; ++k) {
      nvm_fixed += amap_mem_type(&F, base + k * 48 * 1024) == AMAP_MEM_NVM;
      nvm_scat += amap_mem_type(&M, base + k * 48 * 1024) == AMAP_MEM_NVM;
    }
    assert_true(nvm_fixed == 0 || nvm_fixed == 256);
    assert_in_range(nvm_scat, 96, 160);
  }
  /* off again: the fixed order */
  assert_int_equal(amap_set_part_scatter(&M, 0, err, sizeof err), 0);
  assert_int_equal(amap_mem_type(&M, 4096), AMAP_MEM_NVM);
  /* refused without interleaved parts */
  if (amap_init_parts(&M, p, 2, 0, "auto", 12, 2, 1, 16, 2048, 32, 1, 0, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(amap_set_part_scatter(&M, 1, err, sizeof err), -1);
  assert_non_null(strstr(err, "interleaved"));
}


/* The hybrid DRAM+PCM partition: 12 channels, DRAM on the even ones, PCM on
 * the odd ones, PCM first (6 GiB) then DRAM. Every address's kind is the kind
 * of the device serving it (ddr3_800 / pcm_flrb), and no two atoms of a
 * range share a device location. */
static void channel_split_agrees_with_devices(void **state) {
  (void)state;
  static const uint32_t ev[6] = {0, 2, 4, 6, 8, 10}, od[6] = {1, 3, 5, 7, 9, 11}, r0[1] = {0};
  const amap_part_cfg p[2] = {{AMAP_MEM_NVM, 6ull << 30, 6, 1, od, r0}, {AMAP_MEM_DRAM, 1536ull << 20, 6, 1, ev, r0}};
  char err[256];
  /* the presets' interface (Table II: 64-bit channels, 64 B column accesses, 8 KiB rows) */
  const dram_preset *d = dram_find("ddr3_800");
  assert_int_equal(d->row_bytes, dram_find("pcm_flrb")->row_bytes);
  assert_int_equal(d->atom_bytes, dram_find("pcm_flrb")->atom_bytes);
  if (amap_init_parts(&M, p, 2, 0, "auto", 12, 1, 1, d->banks_per_group, d->row_bytes, d->atom_bytes, 1, 1, err,
                      sizeof err) != 0)
    fail_msg("%s", err);
  const dram_preset *dev[12];
  for (int c = 0; c < 12; ++c) dev[c] = dram_find(c % 2 ? "pcm_flrb" : "ddr3_800");
  uint64_t s = 3;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = rnd(&s) % (8ull << 30);
    amap_loc a;
    amap_decode(&M, x, &a);
    assert_int_equal(amap_mem_type(&M, x), dram_mem_kind(dev[a.ch]));
    assert_int_equal(a.ch % 2, x < (6ull << 30));
  }
  /* a 4 MiB range at each part start: all atoms at distinct (ch, ra, bg, ba, row, col) */
  const size_t n = 2 * (4u << 20) / d->atom_bytes;
  uint64_t *key = malloc(n * sizeof *key);
  size_t k = 0;
  for (int part = 0; part < 2; ++part)
    for (uint64_t x = part ? 6ull << 30 : 0; x < (part ? 6ull << 30 : 0) + (4u << 20); x += d->atom_bytes) {
      amap_loc a;
      amap_decode(&M, x, &a);
      key[k++] = ((((uint64_t)a.ch * 16 + a.ra) * 8 + a.ba) * (1ull << 20) + a.row) * 256 + a.col;
    }
  assert_int_equal(k, n);
  qsort(key, k, sizeof *key, cmp_u64);
  for (size_t i = 1; i < k; ++i) assert_true(key[i] != key[i - 1]);
  free(key);
}

/* One kind: the map has no parts, amap_set_mem tags every address. */
static void one_kind_tag(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(amap_init(&M, kHbm, 8, 1, 4, 4, 2048, 1, 1, err, sizeof err), 0);
  assert_int_equal(amap_mem_type(&M, 12345), AMAP_MEM_DRAM);
  amap_set_mem(&M, AMAP_MEM_NVM);
  assert_int_equal(amap_mem_type(&M, 12345), AMAP_MEM_NVM);
  assert_int_equal(dram_mem_kind(dram_find("scm_mlc")), AMAP_MEM_SCM);
  assert_int_equal(dram_mem_kind(dram_find("pcm_hac")), AMAP_MEM_NVM);
  assert_int_equal(dram_mem_kind(dram_find("gddr5_gtx480")), AMAP_MEM_DRAM);
}

static void errors(void **state) {
  (void)state;
  static const uint32_t ch[8] = {0, 1, 2, 3, 4, 5, 6, 7}, r0[1] = {0}, r1[1] = {1}, bad[1] = {9};
  char err[256];
  amap_part_cfg p[2] = {{AMAP_MEM_DRAM, 1ull << 30, 8, 1, ch, r0}, {AMAP_MEM_SCM, 0, 8, 1, ch, r1}};
#define BAD(inter, lay, what)                                                                                 \
  do {                                                                                                        \
    assert_int_equal(amap_init_parts(&M, p, 2, inter, lay, 8, 2, 4, 4, 2048, 32, 1, 1, err, sizeof err), -1); \
    if (!strstr(err, what)) fail_msg("expected '%s' in '%s'", what, err);                                    \
  } while (0)
  BAD(4096, "auto", "needs a size > 0");         /* interleaved: every size */
  BAD(1000, "auto", "multiple of 4096");
  p[1].mem = AMAP_MEM_DRAM;
  BAD(0, "auto", "appears twice");
  p[1].mem = AMAP_MEM_SCM;
  p[1].ra = r0;
  BAD(0, "auto", "channel 0 rank 0 already serves another part");
  p[1].ra = r1;
  p[0].bytes = 0;
  BAD(0, "auto", "only the last part may be unbounded");
  p[0].bytes = 1000;
  BAD(0, "auto", "not a multiple of 4096");
  p[0].bytes = 1ull << 30;
  p[1].ch = bad;
  p[1].nch = 1;
  BAD(0, "auto", "channel 9 out of range");
  p[1].ch = ch;
  p[1].nch = 8;
  BAD(0, "off:32 col:4 ch:4 bg:4 col:16 ba:4 row", "ch field count 4");
  p[1].bytes = (1ull << 30) + 4096 * 4099; /* ratio 262144 : 266243 */
  BAD(4096, "auto", "blocks per round");
  p[1].bytes = 1ull << 32;
  assert_int_equal(amap_init_parts(&M, p, 2, 4096, "auto", 8, 2, 4, 4, 2048, 32, 1, 1, err, sizeof err), 0);
  assert_int_equal(M.round_blocks, 5);
#undef BAD
}

/* Partitions of two channels (amap_set_partition_channels; HMS Sep. DRAM&SCM, Fig. 6b): DRAM on the even
 * channels, SCM on the odd ones, both ranks each; the L2 bank of an address is in the partition of its
 * channel (channel / 2), the 4 L2 banks of a partition share the SCM part's traffic evenly, and the device
 * location does not change. One-part maps: the same, with the global channel. Bad counts are refused. */
static void two_channel_partitions(void **state) {
  (void)state;
  static const uint32_t even[4] = {0, 2, 4, 6}, odd[4] = {1, 3, 5, 7}, ra[2] = {0, 1};
  const amap_part_cfg p[2] = {{AMAP_MEM_SCM, 16ull << 30, 4, 2, odd, ra}, {AMAP_MEM_DRAM, 4ull << 30, 4, 2, even, ra}};
  char err[256];
  amap P2;
  if (amap_init_parts(&M, p, 2, 0, "auto", 8, 2, 4, 4, 2048, 32, 4, 1, err, sizeof err) != 0) fail_msg("%s", err);
  P2 = M;
  assert_int_equal(amap_set_partition_channels(&P2, 2, err, sizeof err), 0);
  assert_int_equal(P2.part_channels, 2);
  unsigned per_bank[16] = {0};
  uint64_t s = 7;
  for (int i = 0; i < 40000; ++i) {
    const uint64_t x = rnd(&s) & ((16ull << 30) - 1); /* the SCM part */
    amap_loc a, b;
    amap_decode(&P2, x, &a);
    amap_decode(&M, x, &b);
    assert_true(a.ch == b.ch && a.ra == b.ra && a.bg == b.bg && a.ba == b.ba && a.row == b.row && a.col == b.col);
    assert_int_equal(a.ch % 2, 1);
    assert_int_equal(a.l2_bank / 4, a.ch / 2); /* the L2 bank belongs to the channel's partition */
    assert_int_equal(amap_l2_bank(&P2, x), a.l2_bank);
    ++per_bank[a.l2_bank];
  }
  for (unsigned k = 0; k < 16; ++k) /* every L2 bank serves about 1/16 of the SCM lines */
    assert_true(per_bank[k] > 40000 / 16 * 9 / 10 && per_bank[k] < 40000 / 16 * 11 / 10);
  /* one-part map of 8 channels, 2 L2 banks per channel = 4 per 2-channel partition */
  assert_int_equal(amap_init(&R, kHbm, 8, 1, 4, 4, 2048, 4, 1, err, sizeof err), 0);
  assert_int_equal(amap_set_partition_channels(&R, 2, err, sizeof err), 0);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = rnd(&s) & ((1ull << 34) - 1);
    amap_loc a;
    amap_decode(&R, x, &a);
    assert_int_equal(a.l2_bank / 4, a.ch / 2);
    assert_int_equal(amap_l2_bank(&R, x), a.l2_bank);
  }
  assert_int_equal(amap_set_partition_channels(&R, 3, err, sizeof err), -1);
  assert_non_null(strstr(err, "power of two dividing the 8 channels, got 3"));
  assert_int_equal(amap_set_partition_channels(&R, 16, err, sizeof err), -1);
  assert_int_equal(amap_set_partition_channels(&R, 0, err, sizeof err), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hms_ranks_contiguous), cmocka_unit_test(interleaved_blocks), cmocka_unit_test(scattered_blocks),
      cmocka_unit_test(two_channel_partitions),
      cmocka_unit_test(channel_split_agrees_with_devices), cmocka_unit_test(one_kind_tag), cmocka_unit_test(errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
