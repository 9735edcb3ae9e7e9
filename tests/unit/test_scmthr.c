/* Unit tests of the SCM throttling decision (models/ref/mem/scmthr.c, HMS Sec. III-E): the window's average
 * SCM power against the threshold, state changes only at window ends, the multipliers in force, the
 * throttled time (completed periods plus the running one), counters, and rejected parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mem/scmthr.h"

static scmthr_cfg cfg_of(double w, uint32_t rm, uint32_t wm) {
  scmthr_cfg c = {w, 1000000, rm, wm}; /* 1 us windows */
  return c;
}

static void bad_parameters(void **state) {
  (void)state;
  scmthr t;
  char err[128];
  scmthr_cfg c = cfg_of(0.0, 2, 2);
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), -1);
  c = cfg_of(1.0, 1, 1); /* nothing would change */
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), -1);
  c = cfg_of(1.0, 0, 2);
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), -1);
  c = cfg_of(1.0, 2, 1);
  c.window_ps = 0;
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), -1);
  c = cfg_of(1.0, 1, 2); /* tWR only (Fig. 20 "wt") */
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), 0);
}

/* 1 W threshold, 1 us windows. Window energies (J): 0.5 uJ (0.5 W), 2 uJ (2 W: throttle), 1.5 uJ (still
 * hot), 1 uJ (exactly 1 W: not above, lift), 3 uJ (throttle again), then stats at 5.4 us mid-window. */
static void windows_decide(void **state) {
  (void)state;
  scmthr t;
  char err[128];
  scmthr_cfg c = cfg_of(1.0, 2, 3);
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), 0);
  uint32_t rm, wm;
  scmthr_mult(&t, &rm, &wm);
  assert_int_equal(rm, 1);
  assert_int_equal(wm, 1);
  double e = 0;
  e += 0.5e-6;
  assert_int_equal(scmthr_window(&t, 1000000, e), 0);
  assert_false(t.throttled);
  assert_true(t.last_power_w > 0.4999 && t.last_power_w < 0.5001);
  e += 2e-6;
  assert_int_equal(scmthr_window(&t, 2000000, e), 1);
  assert_true(t.throttled);
  scmthr_mult(&t, &rm, &wm);
  assert_int_equal(rm, 2);
  assert_int_equal(wm, 3);
  e += 1.5e-6;
  assert_int_equal(scmthr_window(&t, 3000000, e), 0);
  assert_true(t.throttled);
  assert_int_equal(scmthr_throttled_ps(&t, 3000000), 1000000);
  e += 1e-6;
  assert_int_equal(scmthr_window(&t, 4000000, e), 1);
  assert_false(t.throttled);
  scmthr_mult(&t, &rm, &wm);
  assert_int_equal(rm, 1);
  assert_int_equal(wm, 1);
  assert_int_equal(scmthr_throttled_ps(&t, 4500000), 2000000); /* 2 .. 4 us */
  e += 3e-6;
  assert_int_equal(scmthr_window(&t, 5000000, e), 1);
  assert_int_equal(scmthr_throttled_ps(&t, 5400000), 2400000); /* + the running period */
  assert_int_equal(t.engagements, 2);
  assert_int_equal(t.windows, 5);
  assert_true(t.peak_power_w > 2.999 && t.peak_power_w < 3.001);
}

/* A window of a different length (the last one before a stop) is averaged over its own length. */
static void uneven_window(void **state) {
  (void)state;
  scmthr t;
  char err[128];
  scmthr_cfg c = cfg_of(1.0, 2, 2);
  assert_int_equal(scmthr_init(&t, &c, err, sizeof err), 0);
  assert_int_equal(scmthr_window(&t, 250000, 0.3e-6), 1); /* 0.3 uJ in 0.25 us: 1.2 W */
  assert_true(t.last_power_w > 1.1999 && t.last_power_w < 1.2001);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_parameters),
      cmocka_unit_test(windows_decide),
      cmocka_unit_test(uneven_window),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
