/* Unit tests of the bypass scorer C reference (models/ref/blocks/bps.c, HMS Sec. III-C, Fig. 9). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "blocks/bps.h"

static bps_t fresh(void) {
  bps_cfg_t c;
  bps_cfg_default(&c);
  bps_t s;
  assert_int_equal(bps_init(&s, &c), 0);
  return s;
}

static bps_access_t acc(uint32_t ncols, bool w, uint32_t act) {
  bps_access_t a = {ncols, w, act};
  return a;
}

static void config(void **st) {
  (void)st;
  bps_cfg_t c;
  bps_cfg_default(&c);
  /* HMS Table I: tRCD 120 vs 14, tWR 1000 vs 16 */
  assert_int_equal(c.num_rd, 106);
  assert_int_equal(c.num_wr, 1090);
  assert_int_equal(bps_cfg_timing(&c, 14, 240, 16, 2000), 0); /* throttled SCM (Sec. III-E) */
  assert_int_equal(c.num_rd, 226);
  assert_int_equal(c.num_wr, 226 + 1984);
  assert_int_equal(bps_cfg_timing(&c, 20, 10, 16, 1000), -1); /* SCM faster than DRAM */
  assert_int_equal(bps_cfg_timing(&c, 0, 60000, 0, 60000), -1); /* exceeds NUM_W */
  assert_int_equal(c.num_rd, 226); /* unchanged on failure */
  bps_t s;
  c.num_wr = BPS_NUM_MAX + 1;
  assert_int_equal(bps_init(&s, &c), -1);
  bps_cfg_default(&c);
  c.lfsr_seed = BPS_LFSR_MASK + 1;
  assert_int_equal(bps_init(&s, &c), -1);
  c.lfsr_seed = 0; /* 0 selects the default seed: an LFSR must not start at 0 */
  assert_int_equal(bps_init(&s, &c), 0);
  assert_int_equal(s.lfsr, BPS_LFSR_SEED);
  assert_int_equal(bps_set_numerators(&s, 1, BPS_NUM_MAX + 1), -1);
  assert_int_equal(s.cfg.num_rd, 106);
  assert_int_equal(bps_set_numerators(&s, 1, 2), 0);
  assert_int_equal(s.cfg.num_wr, 2);
}

static void penalty(void **st) {
  (void)st;
  /* Eq. 1 in UQ.4: 106 cycles over 1 column = 1696 */
  assert_int_equal(bps_penalty(106, 1), 106 << BPS_PEN_FRAC);
  assert_int_equal(bps_penalty(106, 0), 106 << BPS_PEN_FRAC); /* 0 treated as 1 */
  assert_int_equal(bps_penalty(106, 3), (106 << BPS_PEN_FRAC) / 3); /* truncates: 565 */
  assert_int_equal(bps_penalty(106, 3), 565);
  assert_int_equal(bps_penalty(1090, 64), 272);
  assert_int_equal(bps_penalty(BPS_NUM_MAX, 1), BPS_NUM_MAX << BPS_PEN_FRAC);
  assert_int_equal(bps_penalty(0, 5), 0);
}

static void levels(void **st) {
  (void)st;
  assert_int_equal(bps_level(0, 0), 0);
  assert_int_equal(bps_level(24, 100), 0); /* 96 < 100 */
  assert_int_equal(bps_level(25, 100), 1); /* exactly on the boundary: upper level */
  assert_int_equal(bps_level(49, 100), 1);
  assert_int_equal(bps_level(50, 100), 2);
  assert_int_equal(bps_level(74, 100), 2);
  assert_int_equal(bps_level(75, 100), 3);
  assert_int_equal(bps_level(100, 100), BPS_NLEVELS - 1); /* the maximum is clamped */
  assert_int_equal(bps_level(1, 3), 1);                   /* 4 >= 3 */
}

static void moving_average(void **st) {
  (void)st;
  /* P = 100 << 8 = 25600; 25600 * 655 >> 16 = 255 (floor of 255.86) */
  assert_int_equal(bps_avg_update(0, 100), 255);
  /* downward steps use ceil: never stuck above the target */
  assert_int_equal(bps_avg_update(25601, 100), 25600);
  uint32_t a = 0;
  for (int i = 0; i < 2000; i++) {
    uint32_t n = bps_avg_update(a, 1000);
    assert_true(n >= a);
    assert_true(n <= (1000u << BPS_AVG_XFRAC));
    a = n;
  }
  /* within 1% weight, 2000 steps: (1-0.01)^2000 ~ 2e-9, so within the dead band (~100 lsb) */
  assert_true((1000u << BPS_AVG_XFRAC) - a <= 101);
  for (int i = 0; i < 3000; i++) {
    uint32_t n = bps_avg_update(a, 10);
    assert_true(n <= a && n >= (10u << BPS_AVG_XFRAC));
    a = n;
  }
  assert_int_equal(a, 10u << BPS_AVG_XFRAC);
  /* largest values do not overflow the AVG_W register */
  a = bps_avg_update((1u << BPS_AVG_W) - 1u - 300u, (1u << BPS_PEN_W) - 1u);
  assert_true(a < (1u << BPS_AVG_W));
}

static void lfsr_period(void **st) {
  (void)st;
  uint32_t x = BPS_LFSR_SEED, n = 0;
  do {
    x = bps_lfsr_next(x);
    assert_int_not_equal(x, 0);
    n++;
  } while (x != BPS_LFSR_SEED && n < 70000);
  assert_int_equal(n, (1u << BPS_LFSR_W) - 1u); /* maximal length */
}

static void fig9_paths(void **st) {
  (void)st;
  bps_t s = fresh();
  bps_result_t r;
  /* cold: the first miss sets the maxima, its level is the top one, avg is 0 -> fill */
  bps_miss(&s, &(bps_access_t){1, true, 10}, false, 0, &r);
  assert_int_equal(r.path, BPS_PATH_FILL_INVALID);
  assert_true(r.fill);
  assert_int_equal(r.pen, 1090 << BPS_PEN_FRAC);
  assert_int_equal(r.pen_level, BPS_NLEVELS - 1);
  assert_int_equal(r.aff_level, BPS_NLEVELS - 1);
  assert_int_equal(r.avg_level, 0);
  assert_int_equal(r.store_level, BPS_NLEVELS - 1);
  assert_int_equal(s.max_pen, 1090 << BPS_PEN_FRAC);
  assert_int_equal(s.max_act, 10);
  assert_int_equal(s.max_aff, (1090 << BPS_PEN_FRAC) * 10);
  /* a read streaming over 64 columns has a tiny penalty: level 0 <= avg level -> bypass */
  bps_miss(&s, &(bps_access_t){64, false, 10}, true, 3, &r);
  assert_int_equal(r.path, BPS_PATH_BYPASS_L1);
  assert_false(r.fill);
  assert_false(r.dec_victim);
  assert_int_equal(r.pen_level, 0);
  /* high penalty, victim at the top level: tie -> bypass; act == max_act -> p_dec = 1 */
  uint32_t lfsr0 = s.lfsr;
  bps_miss(&s, &(bps_access_t){1, true, 10}, true, 3, &r);
  assert_int_equal(r.path, BPS_PATH_BYPASS_L2);
  assert_true(r.dec_victim);
  assert_int_equal(r.victim_new_level, 2);
  assert_int_not_equal(s.lfsr, lfsr0); /* one draw consumed */
  /* victim at level 2 -> request (level 3) wins */
  bps_miss(&s, &(bps_access_t){1, true, 10}, true, 2, &r);
  assert_int_equal(r.path, BPS_PATH_FILL_WIN);
  assert_true(r.fill);
  assert_int_equal(r.store_level, 3);
  /* act = 0: affinity level 0 -> never wins, never decrements (p_dec = 0) */
  for (int i = 0; i < 100; i++) {
    bps_miss(&s, &(bps_access_t){1, true, 0}, true, 1, &r);
    if (r.path == BPS_PATH_BYPASS_L1) break; /* average caught up */
    assert_int_equal(r.path, BPS_PATH_BYPASS_L2);
    assert_false(r.dec_victim);
    assert_int_equal(r.victim_new_level, 1);
  }
  uint64_t sum = 0;
  for (int p = 0; p < 4; p++) sum += s.cnt.path[p];
  assert_int_equal(s.cnt.misses, sum);
  assert_int_equal(s.cnt.decrements, 1);
}

static void victim_level_zero_never_decrements(void **st) {
  (void)st;
  bps_t s = fresh();
  bps_result_t r;
  bps_miss(&s, &(bps_access_t){1, false, 0}, true, 0, &r); /* aff 0, victim 0: tie */
  assert_int_equal(r.path, BPS_PATH_BYPASS_L2);
  assert_false(r.dec_victim);
  assert_int_equal(r.victim_new_level, 0);
  assert_int_equal(s.cnt.draws, 1);
}

static void pdec_statistics(void **st) {
  (void)st;
  bps_t s = fresh();
  bps_result_t r;
  bps_miss(&s, &(bps_access_t){1, true, 200}, false, 0, &r); /* max_act = 200 */
  int dec = 0, n = 0;
  for (int i = 0; i < 4000; i++) {
    bps_clear(&s, (uint32_t)(i + 1)); /* keep avg 0 so the first level always passes */
    bps_miss(&s, &(bps_access_t){1, true, 200}, false, 0, &r);
    bps_miss(&s, &(bps_access_t){1, true, 50}, true, 3, &r); /* p_dec = 50/200 */
    assert_int_equal(r.path, BPS_PATH_BYPASS_L2);
    n++;
    dec += r.dec_victim;
  }
  double p = (double)dec / n;
  assert_true(p > 0.22 && p < 0.28);
}

static void hit_updates_average(void **st) {
  (void)st;
  bps_cfg_t c;
  bps_cfg_default(&c);
  c.avg_on_miss = false;
  bps_t s;
  assert_int_equal(bps_init(&s, &c), 0);
  bps_result_t r;
  bps_miss(&s, &(bps_access_t){2, false, 1}, false, 0, &r);
  assert_int_equal(s.avg, 0); /* misses leave it alone in this mode */
  bps_hit(&s, &(bps_access_t){2, false, 1}, &r);
  assert_int_equal(r.path, BPS_PATH_HIT);
  assert_false(r.fill);
  assert_int_equal(s.avg, bps_avg_update(0, 53 << BPS_PEN_FRAC));
  assert_int_equal(s.cnt.hits, 1);
  /* in the default mode misses update it too */
  bps_t d = fresh();
  bps_miss(&d, &(bps_access_t){2, false, 1}, false, 0, &r);
  assert_int_equal(d.avg, bps_avg_update(0, 53 << BPS_PEN_FRAC));
}

static void uniform_traffic_converges_to_bypass(void **st) {
  (void)st;
  /* Identical requests: the average rises to the maximum, its level reaches the request's
   * level and the first-level comparison starts to bypass (discretisation, Sec. III-C3). */
  bps_t s = fresh();
  bps_result_t r;
  int first_bypass = -1;
  for (int i = 0; i < 1000 && first_bypass < 0; i++) {
    bps_miss(&s, &(bps_access_t){4, false, 1}, false, 0, &r);
    if (r.path == BPS_PATH_BYPASS_L1) first_bypass = i;
  }
  /* avg reaches 3/4 of the max after ln(4)/0.01 ~ 138 steps */
  assert_true(first_bypass > 130 && first_bypass < 145);
  /* a write without locality is still worth caching (Fig. 8b) once a larger max is seen */
  bps_miss(&s, &(bps_access_t){1, true, 1}, false, 0, &r);
  assert_int_equal(r.path, BPS_PATH_FILL_INVALID);
}

/* Field-wise comparison: struct padding bytes are unspecified, so no memcmp. */
static void assert_result_equal(const bps_result_t *x, const bps_result_t *y) {
  assert_int_equal(x->path, y->path);
  assert_int_equal(x->fill, y->fill);
  assert_int_equal(x->need_victim, y->need_victim);
  assert_int_equal(x->dec_victim, y->dec_victim);
  assert_int_equal(x->draw_hit, y->draw_hit);
  assert_int_equal(x->store_level, y->store_level);
  assert_int_equal(x->victim_new_level, y->victim_new_level);
  assert_int_equal(x->pen, y->pen);
  assert_int_equal(x->pen_level, y->pen_level);
  assert_int_equal(x->avg_level, y->avg_level);
  assert_int_equal(x->aff_level, y->aff_level);
  assert_int_equal(x->act, y->act);
  assert_int_equal(x->max_act, y->max_act);
}

static void two_stage_equals_one_shot(void **st) {
  (void)st;
  bps_t a = fresh(), b = fresh();
  uint32_t x = 12345;
  for (int i = 0; i < 20000; i++) {
    x = x * 1103515245u + 12345u;
    bps_access_t q = acc((x >> 8) % 70, (x >> 16) & 1, (x >> 17) & 0xff);
    bool vv = (x >> 25) & 1;
    uint32_t vl = (x >> 26) & 3;
    bps_result_t ra, rb;
    if ((x >> 30) == 0) {
      bps_hit(&a, &q, &ra);
      bps_hit(&b, &q, &rb);
    } else {
      bps_miss(&a, &q, vv, vl, &ra);
      bps_miss_begin(&b, &q, vv, &rb);
      assert_true(rb.need_victim == (rb.path == 0 && !rb.fill && vv && rb.pen_level > rb.avg_level));
      bps_miss_finish(&b, &rb, vl);
    }
    assert_result_equal(&ra, &rb);
    assert_int_equal(a.max_pen, b.max_pen);
    assert_int_equal(a.avg, b.avg);
    assert_int_equal(a.max_aff, b.max_aff);
    assert_int_equal(a.max_act, b.max_act);
    assert_int_equal(a.lfsr, b.lfsr);
    assert_memory_equal(&a.cnt, &b.cnt, sizeof a.cnt);
    assert_true(a.avg <= (a.max_pen << BPS_AVG_XFRAC));
  }
  /* every path taken */
  for (int p = 0; p < 4; p++) assert_true(a.cnt.path[p] > 0);
}

static void clear_resets(void **st) {
  (void)st;
  bps_t s = fresh();
  bps_result_t r;
  bps_miss(&s, &(bps_access_t){1, true, 9}, false, 0, &r);
  bps_clear(&s, 0x1234);
  assert_int_equal(s.max_pen, 0);
  assert_int_equal(s.max_aff, 0);
  assert_int_equal(s.max_act, 0);
  assert_int_equal(s.avg, 0);
  assert_int_equal(s.lfsr, 0x1234);
  assert_int_equal(s.cnt.clears, 1);
  assert_int_equal(s.cnt.misses, 1);
  bps_clear(&s, 0x10000); /* only LFSR_W bits count: 0 -> default seed */
  assert_int_equal(s.lfsr, BPS_LFSR_SEED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(config),
      cmocka_unit_test(penalty),
      cmocka_unit_test(levels),
      cmocka_unit_test(moving_average),
      cmocka_unit_test(lfsr_period),
      cmocka_unit_test(fig9_paths),
      cmocka_unit_test(victim_level_zero_never_decrements),
      cmocka_unit_test(pdec_statistics),
      cmocka_unit_test(hit_updates_average),
      cmocka_unit_test(uniform_traffic_converges_to_bypass),
      cmocka_unit_test(two_stage_equals_one_shot),
      cmocka_unit_test(clear_resets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
