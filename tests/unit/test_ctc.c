/* Unit tests of the Configurable Tag Cache reference model (models/ref/blocks/ctc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "blocks/ctc.h"

/* Row of (tag, set, sector) under the documented mapping. */
static uint64_t mkrow(const ctc *c, uint64_t tag, uint32_t set, uint32_t sec) {
  return (tag << (3 + c->set_bits)) | ((uint64_t)set << 3) | sec;
}

static ctc mk(uint32_t sets, uint32_t l2_ways) {
  ctc c;
  ctc_cfg cfg = {sets, CTC_ROW_BITS, l2_ways};
  assert_int_equal(ctc_init(&c, &cfg, NULL, 0), CTC_OK);
  return c;
}

typedef struct wb_log {
  ctc_wb wb[4096];
  uint32_t n;
} wb_log;

static void log_wb(void *ctx, const ctc_wb *wb) {
  wb_log *l = ctx;
  l->wb[l->n++] = *wb;
}

static void test_init_validation(void **st) {
  (void)st;
  ctc c;
  char err[128];
  ctc_cfg bad_sets = {6, 33, 4};
  assert_int_equal(ctc_init(&c, &bad_sets, err, sizeof err), CTC_EINVAL);
  assert_non_null(strstr(err, "sets"));
  ctc_cfg bad_ways = {16, 33, 5};
  assert_int_equal(ctc_init(&c, &bad_ways, err, sizeof err), CTC_EINVAL);
  ctc_cfg bad_rows = {256, 11, 4};
  assert_int_equal(ctc_init(&c, &bad_rows, err, sizeof err), CTC_EINVAL);
  ctc_cfg def;
  ctc_default_cfg(&def);
  assert_int_equal(def.sets, CTC_SETS);
  assert_int_equal(ctc_init(&c, &def, err, sizeof err), CTC_OK);
  assert_int_equal(ctc_ways(&c), CTC_RESET_L2_WAYS * CTC_TCW_PER_L2W);
  /* 22-bit tag of HMS Sec. III-D */
  assert_int_equal(CTC_TAG_BITS, 22);
  ctc_result r;
  assert_int_equal(ctc_lookup(&c, (uint64_t)1 << 33, &r), CTC_EINVAL);
  ctc_free(&c);
}

static void test_mapping(void **st) {
  (void)st;
  ctc c = mk(256, 4);
  uint64_t row = mkrow(&c, 0x2abcdeu, 0x5a, 6);
  assert_int_equal(ctc_set_of(&c, row), 0x5a);
  assert_int_equal(ctc_tag_of(&c, row), 0x2abcde);
  ctc_free(&c);
}

static void test_fill_lookup_update(void **st) {
  (void)st;
  ctc c = mk(16, 4);
  ctc_result r;
  uint64_t row = mkrow(&c, 7, 3, 5);
  assert_int_equal(ctc_lookup(&c, row, &r), CTC_OK);
  assert_false(r.hit);
  assert_false(r.line_hit);
  ctc_fill(&c, row, 0xdeadbeefu, &r);
  assert_true(r.stored);
  assert_false(r.hit);
  assert_int_equal(r.way, 0);
  ctc_lookup(&c, row, &r);
  assert_true(r.hit);
  assert_int_equal(r.data, 0xdeadbeefu);
  /* same line, other sector: line hit, sector miss */
  ctc_lookup(&c, row ^ 1u, &r);
  assert_false(r.hit);
  assert_true(r.line_hit);
  /* a fill never overwrites a valid (possibly newer) sector */
  ctc_update(&c, row, 0x11111111u, 1, &r);
  assert_true(r.hit);
  ctc_fill(&c, row, 0x22222222u, &r);
  assert_true(r.hit);
  assert_int_equal(r.data, 0x11111111u);
  assert_int_equal(ctc_line_at(&c, 3, 0)->dirty, 1u << 5);
  /* update without dirty keeps the dirty bit */
  ctc_update(&c, row, 0x33333333u, 0, &r);
  assert_int_equal(ctc_line_at(&c, 3, 0)->dirty, 1u << 5);
  assert_int_equal(ctc_line_at(&c, 3, 0)->data[5], 0x33333333u);
  ctc_free(&c);
}

static void test_eviction_writes_back_dirty_sectors(void **st) {
  (void)st;
  ctc c = mk(4, 1); /* 4 ways */
  ctc_result r;
  for (uint32_t t = 0; t < 4; t++) {
    for (uint32_t s = 0; s < 8; s++) ctc_update(&c, mkrow(&c, t, 2, s), 100 * t + s, (s & 1) == 0, &r);
  }
  /* all ways valid: a new line evicts the PLRU way (0 after 0..3 in order) */
  assert_int_equal(ctc_victim(&c, 2), 0);
  ctc_fill(&c, mkrow(&c, 9, 2, 1), 5, &r);
  assert_true(r.evicted);
  assert_int_equal(r.way, 0);
  assert_int_equal(r.n_wb, 4);
  for (uint32_t i = 0; i < 4; i++) {
    assert_int_equal(r.wb[i].row, mkrow(&c, 0, 2, 2 * i));
    assert_int_equal(r.wb[i].data, 2 * i);
  }
  assert_int_equal(c.stats.evictions, 1);
  assert_int_equal(c.stats.writebacks, 4);
  ctc_free(&c);
}

static void test_plru_16_ways(void **st) {
  (void)st;
  ctc c = mk(2, 4);
  ctc_result r;
  for (uint32_t w = 0; w < 16; w++) {
    ctc_fill(&c, mkrow(&c, w, 1, 0), w, &r);
    assert_int_equal(r.way, w); /* invalid ways first, lowest index */
  }
  assert_int_equal(ctc_victim(&c, 1), 0);
  ctc_lookup(&c, mkrow(&c, 0, 1, 0), &r); /* touch way 0 */
  assert_int_equal(ctc_victim(&c, 1), 8);
  ctc_lookup(&c, mkrow(&c, 8, 1, 0), &r);
  assert_int_equal(ctc_victim(&c, 1), 4);
  /* a lookup miss does not change the tree */
  uint32_t before = ctc_plru_bits(&c, 1);
  ctc_lookup(&c, mkrow(&c, 99, 1, 0), &r);
  ctc_lookup(&c, mkrow(&c, 0, 1, 3), &r); /* line hit, sector miss */
  assert_int_equal(ctc_plru_bits(&c, 1), before);
  /* the set next door is untouched */
  assert_int_equal(ctc_plru_bits(&c, 0), 0);
  ctc_free(&c);
}

static void test_plru_12_ways_never_leaves_enabled(void **st) {
  (void)st;
  ctc c = mk(1, 3);
  ctc_result r;
  for (uint32_t w = 0; w < 12; w++) ctc_fill(&c, mkrow(&c, w, 0, 0), w, &r);
  assert_int_equal(ctc_victim(&c, 0), 0);
  ctc_lookup(&c, mkrow(&c, 0, 0, 0), &r);
  assert_int_equal(ctc_victim(&c, 0), 8);
  uint32_t x = 12345;
  for (int i = 0; i < 5000; i++) {
    x = x * 1103515245u + 12345u;
    ctc_fill(&c, mkrow(&c, (x >> 16) % 40, 0, 0), x, &r);
    assert_true(r.way < 12);
  }
  ctc_free(&c);
}

static void test_configure_and_flush(void **st) {
  (void)st;
  ctc c = mk(4, 4);
  ctc_result r;
  wb_log *log = test_malloc(sizeof *log);
  log->n = 0;
  for (uint32_t s = 0; s < 4; s++)
    for (uint32_t w = 0; w < 16; w++) ctc_update(&c, mkrow(&c, w, s, w & 7), w, 1, &r);
  /* 4 -> 2 L2 ways: ways 8..15 of every set written back, in set/way order */
  assert_int_equal(ctc_configure(&c, 2, log_wb, log), 32);
  assert_int_equal(log->n, 32);
  assert_int_equal(log->wb[0].row, mkrow(&c, 8, 0, 0));
  assert_int_equal(log->wb[8].row, mkrow(&c, 8, 1, 0));
  assert_int_equal(log->wb[31].row, mkrow(&c, 15, 3, 7));
  assert_int_equal(ctc_ways(&c), 8);
  ctc_lookup(&c, mkrow(&c, 3, 2, 3), &r);
  assert_true(r.hit); /* kept */
  ctc_lookup(&c, mkrow(&c, 12, 2, 4), &r);
  assert_false(r.hit); /* removed */
  /* growing keeps everything and writes nothing back */
  assert_int_equal(ctc_configure(&c, 4, NULL, NULL), 0);
  assert_int_equal(ctc_victim(&c, 0), 8); /* new ways are invalid */
  assert_int_equal(ctc_configure(&c, 5, NULL, NULL), CTC_EINVAL);
  log->n = 0;
  assert_int_equal(ctc_flush(&c, log_wb, log), 32);
  ctc_lookup(&c, mkrow(&c, 3, 2, 3), &r);
  assert_false(r.hit);
  /* zero ways: nothing stored */
  ctc_configure(&c, 0, NULL, NULL);
  ctc_fill(&c, mkrow(&c, 1, 1, 1), 1, &r);
  assert_false(r.stored);
  assert_int_equal(ctc_victim(&c, 1), -1);
  test_free(log);
  ctc_free(&c);
}

static void test_invalidate(void **st) {
  (void)st;
  ctc c = mk(8, 1);
  ctc_result r;
  ctc_update(&c, mkrow(&c, 5, 1, 2), 0xa, 1, &r);
  ctc_fill(&c, mkrow(&c, 5, 1, 3), 0xb, &r);
  ctc_invalidate(&c, mkrow(&c, 5, 1, 7), &r);
  assert_true(r.line_hit);
  assert_false(r.hit);
  assert_int_equal(r.n_wb, 1);
  assert_int_equal(r.wb[0].row, mkrow(&c, 5, 1, 2));
  assert_int_equal(r.wb[0].data, 0xa);
  ctc_lookup(&c, mkrow(&c, 5, 1, 3), &r);
  assert_false(r.line_hit);
  ctc_invalidate(&c, mkrow(&c, 5, 1, 3), &r);
  assert_false(r.line_hit);
  assert_int_equal(r.n_wb, 0);
  ctc_reset(&c);
  assert_int_equal(c.stats.writebacks, 0);
  ctc_free(&c);
}

static void test_l2_way_mask(void **st) {
  (void)st;
  assert_int_equal(ctc_l2_data_way_mask(16, 0), 0xffffu);
  assert_int_equal(ctc_l2_data_way_mask(16, 1), 0xefffu); /* L2W 12 carved (Fig. 10) */
  assert_int_equal(ctc_l2_data_way_mask(16, 4), 0x0fffu); /* 12 data ways as in Table I */
  assert_int_equal(ctc_l2_data_way_mask(32, 4), 0x0fffffffu);
  assert_int_equal(ctc_l2_data_way_mask(16, 5), 0u);
  assert_int_equal(ctc_l2_data_way_mask(2, 1), 0u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_validation),
      cmocka_unit_test(test_mapping),
      cmocka_unit_test(test_fill_lookup_update),
      cmocka_unit_test(test_eviction_writes_back_dirty_sectors),
      cmocka_unit_test(test_plru_16_ways),
      cmocka_unit_test(test_plru_12_ways_never_leaves_enabled),
      cmocka_unit_test(test_configure_and_flush),
      cmocka_unit_test(test_invalidate),
      cmocka_unit_test(test_l2_way_mask),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
