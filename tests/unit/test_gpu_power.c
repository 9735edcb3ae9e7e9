/* Unit tests of the activity-based GPU power model (models/ref/power/gpu_power.h): the parameter table (keys,
 * defaults, members), the energy of each part against a hand computation, and linearity in the activity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "power/gpu_power.h"

static void table(void **state) {
  (void)state;
  gpw_params p;
  memset(&p, 0, sizeof p);
  gpw_defaults(&p);
  assert_int_equal(gpw_param_count(), sizeof(gpw_params) / sizeof(double)); /* every member has a key */
  for (size_t i = 0; i < gpw_param_count(); ++i) {
    assert_non_null(gpw_param_key(i));
    assert_non_null(gpw_param_doc(i));
  }
  assert_null(gpw_param_key(gpw_param_count()));
  assert_null(gpw_param_ptr(&p, gpw_param_count()));
  for (size_t i = 0; i < gpw_param_count(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      assert_true(strcmp(gpw_param_key(i), gpw_param_key(j)) != 0);
      assert_ptr_not_equal(gpw_param_ptr(&p, i), gpw_param_ptr(&p, j));
    }
    assert_true(*gpw_param_ptr(&p, i) == gpw_param_default(i));
    assert_true(gpw_param_default(i) > 0);
  }
  assert_true(p.thread_inst_pj == 58.0 && p.sm_static_w == 0.5); /* the table's row reaches its member */
}

static void hand_computed(void **state) {
  (void)state;
  gpw_params p;
  gpw_defaults(&p);
  gpw_activity a = {.thread_insts = 32e6, .warp_insts = 1e6, .l1_accesses = 2e5, .l2_accesses = 1e5,
                    .noc_flits = 4e5, .mc_accesses = 3e5, .seconds = 1e-4, .sms = 30, .mcs = 16};
  gpw_energy e;
  gpw_compute(&p, &a, &e);
  /* core: 32e6 x 58 pJ + 1e6 x 47 pJ + 0.5 W x 30 x 100 us = 1.856 mJ + 47 uJ + 1.5 mJ */
  assert_float_equal(e.core_j, 1.856e-3 + 47e-6 + 1.5e-3, 1e-12);
  /* cache: 2e5 x 566 pJ + 1e5 x 378 pJ + 1 W x 100 us */
  assert_float_equal(e.cache_j, 113.2e-6 + 37.8e-6 + 100e-6, 1e-12);
  assert_float_equal(e.noc_j, 4e5 * 150e-12, 1e-12);
  /* mc: 3e5 x 100 pJ + 0.25 W x 16 x 100 us */
  assert_float_equal(e.mc_j, 30e-6 + 400e-6, 1e-12);
  assert_float_equal(e.total_j, e.core_j + e.cache_j + e.noc_j + e.mc_j, 1e-15);
  /* twice the activity over twice the time: twice the energy; no activity: static power only */
  gpw_activity b = a;
  b.thread_insts *= 2, b.warp_insts *= 2, b.l1_accesses *= 2, b.l2_accesses *= 2, b.noc_flits *= 2;
  b.mc_accesses *= 2, b.seconds *= 2;
  gpw_energy f;
  gpw_compute(&p, &b, &f);
  assert_float_equal(f.total_j, 2 * e.total_j, 1e-12);
  gpw_activity idle = {.seconds = 1.0, .sms = 30, .mcs = 16};
  gpw_compute(&p, &idle, &f);
  assert_float_equal(f.total_j, 0.5 * 30 + 1.0 + 0.25 * 16, 1e-12);
  assert_float_equal(f.noc_j, 0.0, 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(table), cmocka_unit_test(hand_computed)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
