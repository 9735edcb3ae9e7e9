/* Stacks of vaults in the address map (addrmap.h): the `st` and `va` digits
 * give the channel as stack x vaults + vault, amap_decode returns both, the
 * stack of an address is a run of consecutive address bits wherever `st`
 * stands (TOM Sec. 3.2.1 / 4.3: stack mappings by two consecutive bits
 * [p+1:p] above the 128 B line offset, p = 7..16, for 4 stacks), and bad
 * layouts are refused with a one-line reason. Layouts without st/va decode
 * as before (test_addrmap*.c) with stack 0 and vault = channel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "base/addrmap.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static uint64_t bits(uint64_t pa, unsigned lo, unsigned n) { return (pa >> lo) & ((1ull << n) - 1); }

/* TOM Table 1: 4 stacks x 16 vaults of 16 banks; 2 KiB rows of 32 B columns.
 * Consecutive lines go to the 16 vaults of a stack, then the next stack. */
static void tom_stacks(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 va:16 st:4 col:16 ba:16 row", 64, 1, 1, 16, 2048, 2, 0, err, sizeof err),
                   0);
  assert_true(m.d.fast);
  assert_int_equal(m.stacks, 4);
  assert_int_equal(m.vaults, 16);
  for (unsigned k = 0; k < 200000; ++k) {
    const uint64_t pa = k < 4096 ? (uint64_t)k * 128 : rnd() & ((1ull << 40) - 1);
    amap_loc l;
    amap_decode(&m, pa, &l);
    assert_int_equal(l.vault, bits(pa, 7, 4));
    assert_int_equal(l.stack, bits(pa, 11, 2));
    assert_int_equal(l.ch, l.stack * 16 + l.vault);
    assert_int_equal(l.col, bits(pa, 5, 2) | bits(pa, 13, 4) << 2);
    assert_int_equal(l.ba, bits(pa, 17, 4));
    assert_int_equal(l.row, pa >> 21);
    /* the L2 bank: the channel's banks, chosen by the bits above the channel's last digit (st) */
    assert_int_equal(l.l2_bank, l.ch * 2 + bits(pa, 13, 1));
    assert_int_equal(amap_channel(&m, pa), l.ch);
    assert_int_equal(amap_l2_bank(&m, pa), l.l2_bank);
  }
  /* line k of a 8 KiB block: vault k mod 16 of stack k / 16 */
  for (unsigned k = 0; k < 64; ++k) {
    amap_loc l;
    amap_decode(&m, (uint64_t)k * 128, &l);
    assert_int_equal(l.vault, k % 16);
    assert_int_equal(l.stack, k / 16);
  }
}

/* The same map written with `ch:64` decodes to the same channel, bank, row
 * and column (stack 0, vault = channel there): st/va only name the digits. */
static void same_as_flat_channel(void **state) {
  (void)state;
  for (int hash = 0; hash < 2; ++hash) {
    amap s, f;
    char err[256];
    assert_int_equal(amap_init(&s, "off:32 col:4 va:16 st:4 col:16 ba:16 row", 64, 1, 1, 16, 2048, 4, hash, err,
                               sizeof err), 0);
    assert_int_equal(amap_init(&f, "off:32 col:4 ch:64 col:16 ba:16 row", 64, 1, 1, 16, 2048, 4, hash, err, sizeof err),
                     0);
    assert_int_equal(f.stacks, 1);
    assert_int_equal(f.vaults, 64);
    for (unsigned k = 0; k < 100000; ++k) {
      const uint64_t pa = rnd() & ((1ull << 44) - 1);
      amap_loc a, b;
      amap_decode(&s, pa, &a);
      amap_decode(&f, pa, &b);
      assert_int_equal(a.ch, b.ch);
      assert_int_equal(a.ba, b.ba);
      assert_int_equal(a.col, b.col);
      assert_int_equal(a.row, b.row);
      assert_int_equal(a.l2_bank, b.l2_bank);
      assert_int_equal(b.stack, 0);
      assert_int_equal(b.vault, b.ch);
      /* hashed: the stack and vault are those of the permuted channel */
      assert_int_equal(a.stack, a.ch / 16);
      assert_int_equal(a.vault, a.ch % 16);
    }
  }
}

/* TOM Sec. 4.3: the analyzer compares the stack mappings by two consecutive
 * address bits [p+1:p], p = 7..16 (bits 7:8 .. 16:17 with 128 B lines). Each
 * is a layout with st:4 at bit p: the digits below it (the vault, the bank
 * and column pieces) are moved under it until they hold p - 7 bits. */
static void consecutive_bit_stack_mapping(void **state) {
  (void)state;
  for (unsigned p = 7; p <= 16; ++p) {
    unsigned below = p - 7;
    char lay[128] = "off:32 col:4";
    char above[128] = "";
    if (below >= 4) {
      strcat(lay, " va:16");
      below -= 4;
    } else {
      strcat(above, " va:16");
    }
    if (below >= 4) {
      strcat(lay, " ba:16");
      below -= 4;
    } else {
      strcat(above, " ba:16");
    }
    char piece[32];
    if (below) {
      snprintf(piece, sizeof piece, " col:%u", 1u << below);
      strcat(lay, piece);
    }
    if (below < 4) {
      snprintf(piece, sizeof piece, " col:%u", 1u << (4 - below));
      strcat(above, piece);
    }
    strcat(lay, " st:4");
    strcat(lay, above);
    strcat(lay, " row");
    amap m;
    char err[256];
    if (amap_init(&m, lay, 64, 1, 1, 16, 2048, 1, 0, err, sizeof err) != 0) fail_msg("p %u '%s': %s", p, lay, err);
    for (unsigned k = 0; k < 20000; ++k) {
      const uint64_t pa = rnd() & ((1ull << 36) - 1);
      amap_loc l;
      amap_decode(&m, pa, &l);
      if (l.stack != bits(pa, p, 2)) fail_msg("layout '%s': stack %u of 0x%llx, want bits [%u:%u] = %u", lay, l.stack,
                                             (unsigned long long)pa, p + 1, p, (unsigned)bits(pa, p, 2));
      /* a 128 B line never spans two stacks, and addresses 2^(p+2) apart share their stack */
      amap_loc l2;
      amap_decode(&m, (pa & ~127ull) + 127, &l2);
      assert_int_equal(l2.stack, l.stack);
      amap_decode(&m, pa + (1ull << (p + 2)), &l2);
      assert_int_equal(l2.stack, l.stack);
    }
  }
}

/* Counts that are not powers of two (the div/mod decode): 3 stacks x 4 vaults. */
static void non_pow2_stacks(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 va:4 st:3 col:16 ba:4 row", 12, 1, 1, 4, 2048, 1, 0, err, sizeof err), 0);
  assert_false(m.d.fast);
  for (unsigned k = 0; k < 50000; ++k) {
    const uint64_t pa = rnd() & ((1ull << 38) - 1);
    amap_loc l;
    amap_decode(&m, pa, &l);
    const uint64_t q = pa >> 7;
    assert_int_equal(l.vault, q % 4);
    assert_int_equal(l.stack, (q / 4) % 3);
    assert_int_equal(l.ch, l.stack * 4 + l.vault);
    assert_int_equal(l.row, q / 12 / 16 / 4);
    assert_int_equal(amap_channel(&m, pa), l.ch);
  }
  /* stacks of one vault (st alone) and one stack of vaults (va alone) */
  assert_int_equal(amap_init(&m, "off:32 col:4 st:4 col:16 ba:4 row", 4, 1, 1, 4, 2048, 1, 0, err, sizeof err), 0);
  amap_loc l;
  amap_decode(&m, 3 * 128, &l);
  assert_int_equal(l.stack, 3);
  assert_int_equal(l.vault, 0);
  assert_int_equal(l.ch, 3);
  assert_int_equal(amap_init(&m, "off:32 col:4 va:4 col:16 ba:4 row", 4, 1, 1, 4, 2048, 1, 0, err, sizeof err), 0);
  amap_decode(&m, 3 * 128, &l);
  assert_int_equal(l.stack, 0);
  assert_int_equal(l.vault, 3);
  assert_int_equal(l.ch, 3);
}

/* Existing layouts: one stack, the vault is the channel. */
static void flat_layouts(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2, 1, err, sizeof err), 0);
  assert_int_equal(m.stacks, 1);
  assert_int_equal(m.vaults, 8);
  for (unsigned k = 0; k < 10000; ++k) {
    amap_loc l;
    amap_decode(&m, rnd(), &l);
    assert_int_equal(l.stack, 0);
    assert_int_equal(l.vault, l.ch);
  }
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:12 bg:4 ba:4 col:16 row", 12, 1, 4, 4, 2048, 1, 1, err, sizeof err), 0);
  for (unsigned k = 0; k < 10000; ++k) {
    amap_loc l;
    amap_decode(&m, rnd(), &l);
    assert_int_equal(l.stack, 0);
    assert_int_equal(l.vault, l.ch);
  }
}

static void expect_error(const char *layout, uint32_t channels, const char *want) {
  amap m;
  char err[256] = "";
  assert_int_equal(amap_init(&m, layout, channels, 1, 1, 16, 2048, 1, 0, err, sizeof err), -1);
  if (!strstr(err, want)) fail_msg("layout '%s': error '%s', expected it to say '%s'", layout, err, want);
  assert_null(strchr(err, '\n')); /* one line */
}

static void bad_layouts(void **state) {
  (void)state;
  expect_error("off:32 col:4 ch:4 st:4 va:4 col:16 ba:16 row", 64, "'ch' and 'st'/'va' both give the channel");
  expect_error("off:32 col:4 ch:16 st:4 col:16 ba:16 row", 64, "'ch' and 'st'/'va' both give the channel");
  expect_error("off:32 col:4 va:16 st:2 col:16 ba:16 row", 64, "st x va counts give 32 channels (2 stacks x 16 vaults), geometry has 64");
  expect_error("off:32 col:4 va:8 st:4 va:2 col:16 ba:16 row", 64, "field 'va' appears twice");
  expect_error("off:32 col:4 va:16 st:2 st:2 col:16 ba:16 row", 64, "field 'st' appears twice");
  expect_error("off:32 col:4 va:16 st col:16 ba:16 row", 64, "field 'st' needs a count");
  expect_error("off:32 col:4 va:16 st:0 col:16 ba:16 row", 64, "needs a positive count");
  expect_error("off:32 col:4 vault:16 st:4 col:16 ba:16 row", 64, "unknown field 'vault' (expected off, col, ch, st, va");
  /* parts of a hybrid memory are decoded over their own channels: no stack digits there */
  amap m;
  char err[256] = "";
  static const uint32_t ch[2] = {0, 1}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg parts[2] = {{AMAP_MEM_DRAM, 1ull << 30, 2, 1, ch, r0}, {AMAP_MEM_NVM, 1ull << 30, 2, 1, ch, r1}};
  assert_int_equal(amap_init_parts(&m, parts, 2, 0, "off:32 col:4 va:2 col:16 ba:16 row", 2, 2, 1, 16, 2048, 32, 1, 0,
                                   err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "stack and vault digits (st, va) need a map of one memory kind"));
  assert_null(strchr(err, '\n'));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(tom_stacks), cmocka_unit_test(same_as_flat_channel),
                                     cmocka_unit_test(consecutive_bit_stack_mapping), cmocka_unit_test(non_pow2_stacks),
                                     cmocka_unit_test(flat_layouts), cmocka_unit_test(bad_layouts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
