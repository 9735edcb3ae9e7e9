/* Unit tests of the address map (models/ref/base/addrmap.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/addrmap.h"
#include "mem/dram.h"

static void hbm2_layout(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2, 0, err, sizeof err), 0);
  amap_loc l;
  amap_decode(&m, 0, &l);
  assert_int_equal(l.ch, 0);
  amap_decode(&m, 128, &l); /* next line -> next channel */
  assert_int_equal(l.ch, 1);
  assert_int_equal(l.col, 0);
  amap_decode(&m, 64, &l); /* third sector of line 0 */
  assert_int_equal(l.col, 2);
  amap_decode(&m, 1024, &l); /* 8 lines later: channel 0, next bank group */
  assert_int_equal(l.ch, 0);
  assert_int_equal(l.bg, 1);
  amap_decode(&m, 4096, &l); /* 32 lines later: channel 0, bg 0, column 4 */
  assert_int_equal(l.bg, 0);
  assert_int_equal(l.col, 4);
  amap_decode(&m, 64ull * 1024, &l); /* bank 1 */
  assert_int_equal(l.ba, 1);
  assert_int_equal(l.row, 0);
  amap_decode(&m, 256ull * 1024, &l);
  assert_int_equal(l.row, 1);
  /* L2 bank: channel * 2 + (bits above the channel) mod 2 */
  assert_int_equal(amap_l2_bank(&m, 0), 0);
  assert_int_equal(amap_l2_bank(&m, 1024), 1);
  assert_int_equal(amap_l2_bank(&m, 128), 2);
}

static void non_pow2_channels(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:12 bg:4 ba:4 col:16 row", 12, 1, 4, 4, 2048, 1, 1, err, sizeof err), 0);
  /* 12 consecutive lines hit 12 different channels, also with hashing */
  for (uint64_t base = 0; base < (1ull << 30); base += 12 * 128 * 977) {
    unsigned seen = 0;
    for (unsigned i = 0; i < 12; ++i) seen |= 1u << amap_channel(&m, base + i * 128ull);
    assert_int_equal(seen, 0xfff);
  }
}

static void errors(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:8 bg:4 col:16 ba:4", 8, 1, 4, 4, 2048, 1, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "row"));
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:4 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 1, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "ch field count 4"));
  assert_int_equal(amap_init(&m, "off:32 col:4 ch:8 bg:4 col:8 ba:4 row", 8, 1, 4, 4, 2048, 1, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "1024-byte rows"));
  assert_int_equal(amap_init(&m, "off:32 foo:4 row", 1, 1, 1, 1, 32, 1, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "unknown field 'foo'"));
}

static void regions(void **state) {
  (void)state;
  amap m;
  char err[256];
  assert_int_equal(amap_init(&m, "off:32 col:64 row", 1, 1, 1, 1, 2048, 1, 0, err, sizeof err), 0);
  assert_int_equal(amap_mem_type(&m, 5), AMAP_MEM_DRAM);
  amap_add_region(&m, 1ull << 30, 1ull << 30, AMAP_MEM_NVM);
  assert_int_equal(amap_mem_type(&m, (1ull << 30) + 7), AMAP_MEM_NVM);
  assert_int_equal(amap_mem_type(&m, (2ull << 30)), AMAP_MEM_DRAM);
}

/* addrmap.layout = "auto": the derived layout of the HBM2 baseline is the
 * baseline's own, a DDR3 geometry (one bank group, 8 banks, 4 KiB rows) drops
 * the bg field, and every preset's derived layout is accepted by amap_init
 * and maps the whole row of one channel chunk into one bank. */
static void default_layouts(void **state) {
  (void)state;
  char buf[128];
  assert_int_equal(amap_default_layout(buf, sizeof buf, 32, 2048, 8, 1, 4, 4), 0);
  assert_string_equal(buf, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row");
  assert_int_equal(amap_default_layout(buf, sizeof buf, 32, 4096, 8, 2, 1, 8), 0);
  assert_string_equal(buf, "off:32 col:4 ch:8 col:32 ba:8 ra:2 row");
  assert_int_equal(amap_default_layout(buf, sizeof buf, 256, 2048, 12, 1, 1, 16), 0);
  assert_string_equal(buf, "off:256 ch:12 col:8 ba:16 row");
  assert_int_equal(amap_default_layout(buf, 10, 32, 2048, 8, 1, 4, 4), -1);   /* too short */
  assert_int_equal(amap_default_layout(buf, sizeof buf, 48, 2048, 8, 1, 4, 4), -1); /* row not whole atoms */
  for (size_t i = 0; i < dram_count(); ++i) {
    const dram_preset *d = dram_at(i);
    char err[256];
    amap m;
    assert_int_equal(amap_default_layout(buf, sizeof buf, d->atom_bytes, d->row_bytes, 8, 2, d->bankgroups,
                                         d->banks_per_group), 0);
    assert_int_equal(amap_init(&m, buf, 8, 2, d->bankgroups, d->banks_per_group, d->row_bytes, 1, 1, err, sizeof err), 0);
    assert_int_equal(m.atom_bytes, d->atom_bytes);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(hbm2_layout), cmocka_unit_test(non_pow2_channels),
                                     cmocka_unit_test(errors), cmocka_unit_test(regions),
                                     cmocka_unit_test(default_layouts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
