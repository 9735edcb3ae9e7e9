/* Unit tests of TOM's offload cost-benefit and decision (models/ref/gpu/offload.c)
 * against values computed by hand from Eq. 1-4 of tom-ndp-offload-and-mapping.txt,
 * including the paper's own LIBOR example (Sec. 3.1.5: +110.25 for one
 * iteration, -39 for four, candidate from four iterations on). All values are
 * Q16 words: x * 65536. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/offload.h"

#define Q(x) ((int64_t)((x) * 65536.0)) /* exact for the quarters used here */

/* Eq. 1-2, 3 live-in, 1 live-out, 2 loads, 1 store:
 * TX = 3 - (2 + 2*1) = -1, RX = 1 - (2 + 1/4) = -1.25. */
static void thread_level(void **state) {
  (void)state;
  ofl_counts c = {3, 1, 2, 1};
  ofl_bw bw;
  assert_int_equal(ofl_bw_thread(&c, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(-1.0));
  assert_int_equal(bw.rx_q16, Q(-1.25));
}

/* Paper parameters: S_W 32, S_C 32, Coal 1, Miss 0.5. LIBOR loop (Sec. 3.1.5):
 * 5 live-in, 0 live-out, 1 load, 1 store per iteration.
 * 1 iteration: TX = 5*32 - (0.5 + 33) = 126.5, RX = 0 - (16 + 0.25) = -16.25, sum 110.25.
 * 4 iterations: TX = 160 - (2 + 132) = 26, RX = -(64 + 1) = -65, sum -39. */
static void libor_example(void **state) {
  (void)state;
  ofl_params p;
  ofl_params_paper(&p);
  assert_int_equal(ofl_params_check(&p), 0);
  ofl_counts one = {5, 0, 1, 1}, four = {5, 0, 4, 4};
  ofl_bw bw;
  assert_int_equal(ofl_bw_warp(&p, &one, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(126.5));
  assert_int_equal(bw.rx_q16, Q(-16.25));
  assert_int_equal(bw.tx_q16 + bw.rx_q16, Q(110.25));
  assert_int_equal(ofl_bw_warp(&p, &four, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(26));
  assert_int_equal(bw.rx_q16, Q(-65));
  assert_int_equal(bw.tx_q16 + bw.rx_q16, Q(-39));
  /* The same through the block form. */
  ofl_block b = {5, 0, 1, 1, OFL_TRIP_AT_ENTRY, 0, 0};
  assert_int_equal(ofl_block_bw(&p, &b, 4, &bw), 0);
  assert_int_equal(bw.tx_q16 + bw.rx_q16, Q(-39));
}

/* Loops (Sec. 3.1.3). Known at entry: conditional from 4 iterations on
 * (3 iterations: TX = 160 - 1.5 - 99 = 59.5, RX = -48.75, sum +10.75 >= 0);
 * the tag at 4 iterations is RX only (TX = +26). Unknown: taken as 1 -> not a
 * candidate (+110.25). Static 4 -> candidate; static 3 -> not. */
static void loop_kinds(void **state) {
  (void)state;
  ofl_params p;
  ofl_params_paper(&p);
  ofl_decision d;
  ofl_block b = {5, 0, 1, 1, OFL_TRIP_AT_ENTRY, 0, 0};
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_CONDITIONAL);
  assert_int_equal(d.min_trips, 4);
  assert_int_equal(d.trips_used, 4);
  assert_int_equal(d.tag, OFL_TAG_RX);
  assert_int_equal(d.bw.tx_q16, Q(26));
  assert_int_equal(d.bw.rx_q16, Q(-65));
  assert_int_equal(ofl_offload_allowed(&d, 3), 0);
  assert_int_equal(ofl_offload_allowed(&d, 4), 1);
  assert_int_equal(ofl_offload_allowed(&d, 100), 1);
  ofl_bw bw;
  assert_int_equal(ofl_block_bw(&p, &b, 3, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(59.5));
  assert_int_equal(bw.rx_q16, Q(-48.75));

  b.trip = OFL_TRIP_UNKNOWN;
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
  assert_int_equal(d.trips_used, 1);
  assert_int_equal(d.bw.tx_q16 + d.bw.rx_q16, Q(110.25));
  assert_int_equal(d.tag, OFL_TAG_RX);
  assert_int_equal(ofl_offload_allowed(&d, 100), 0);

  b.trip = OFL_TRIP_STATIC;
  b.trips = 4;
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_CANDIDATE);
  assert_int_equal(d.trips_used, 4);
  assert_int_equal(d.bw.tx_q16 + d.bw.rx_q16, Q(-39));
  b.trips = 3;
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
  assert_int_equal(d.bw.tx_q16 + d.bw.rx_q16, Q(10.75));

  /* A loop with no memory instructions never pays off. */
  ofl_block nomem = {2, 1, 0, 0, OFL_TRIP_AT_ENTRY, 0, 0};
  assert_int_equal(ofl_decide(&p, &nomem, &d), 0);
  assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
  assert_int_equal(d.min_trips, 0);
  assert_int_equal(d.trips_used, 1);
  assert_int_equal(d.bw.tx_q16, Q(64));
  assert_int_equal(d.bw.rx_q16, Q(32));
}

/* Straight-line block like STREAM add: 1 live-in (thread index), 0 live-out,
 * 2 loads, 1 store: TX = 32 - (2*0.5 + 33) = -2, RX = -(2*16 + 0.25) = -32.25
 * -> candidate saving both channels. With a limit violated it is not. */
static void straight_block_and_limits(void **state) {
  (void)state;
  ofl_params p;
  ofl_params_paper(&p);
  ofl_decision d;
  ofl_block b = {1, 0, 2, 1, OFL_TRIP_NONE, 0, 0};
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_CANDIDATE);
  assert_int_equal(d.tag, OFL_TAG_TX | OFL_TAG_RX);
  assert_int_equal(d.bw.tx_q16, Q(-2));
  assert_int_equal(d.bw.rx_q16, Q(-32.25));
  /* NONE ignores trip counts. */
  ofl_bw bw;
  assert_int_equal(ofl_block_bw(&p, &b, 1000, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(-2));
  const uint32_t lim[] = {OFL_LIMIT_SHARED, OFL_LIMIT_BARRIER, OFL_LIMIT_ATOMIC, OFL_LIMIT_DIVERGENT};
  for (unsigned i = 0; i < 4; ++i) {
    b.limits = lim[i];
    assert_int_equal(ofl_decide(&p, &b, &d), 0);
    assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
    assert_int_equal(d.bw.tx_q16, Q(-2)); /* the estimate is still reported */
  }
  /* 4 live-ins (e.g. three base pointers in registers too) tip it over:
   * TX = 128 - 34 = 94, RX = -32.25, sum 61.75. */
  b.limits = 0;
  b.live_in = 4;
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
  assert_int_equal(d.bw.tx_q16 + d.bw.rx_q16, Q(61.75));
  assert_int_equal(d.tag, OFL_TAG_RX);
}

/* Measured coalescing and miss rate: Coal_LD 2, Coal_ST 4, Miss 0.25;
 * 2 live-in, 1 live-out, 3 loads, 2 stores:
 * TX = 64 - (3*2*0.25 + 2*(32+4)) = 64 - 73.5 = -9.5,
 * RX = 32 - (3*2*32*0.25 + 0.25*2*4) = 32 - 50 = -18.
 * Fractional coalescing 1.5 with Miss 1/3 (Q16 21845): Coal*Miss = 98304*21845/65536
 * = 32767.5 -> rounds to 32768 (0.5); 1 load, 0 stores, 0 registers: TX = -0.5,
 * RX = -16. Coal_ST 1.5, 1 store: RX term 1.5/4 = 0.375 (exact), TX = -(32 + 1.5). */
static void measured_parameters(void **state) {
  (void)state;
  ofl_params p = {32, 32, 2 * OFL_ONE, 4 * OFL_ONE, OFL_ONE / 4};
  assert_int_equal(ofl_params_check(&p), 0);
  ofl_counts c = {2, 1, 3, 2};
  ofl_bw bw;
  assert_int_equal(ofl_bw_warp(&p, &c, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(-9.5));
  assert_int_equal(bw.rx_q16, Q(-18));
  ofl_params f = {32, 32, 3 * OFL_ONE / 2, 3 * OFL_ONE / 2, 21845};
  ofl_counts one_ld = {0, 0, 1, 0}, one_st = {0, 0, 0, 1};
  assert_int_equal(ofl_bw_warp(&f, &one_ld, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(-0.5));
  assert_int_equal(bw.rx_q16, Q(-16));
  assert_int_equal(ofl_bw_warp(&f, &one_st, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(-33.5));
  assert_int_equal(bw.rx_q16, Q(-0.375));
  /* A 16-thread "warp" with 64 B lines (S_C 16): 1 live-in, 1 load, paper rates:
   * TX = 16 - 0.5 = 15.5, RX = -(16 * 0.5) = -8. */
  ofl_params s = {16, 16, OFL_ONE, OFL_ONE, OFL_ONE / 2};
  ofl_counts c2 = {1, 0, 1, 0};
  assert_int_equal(ofl_bw_warp(&s, &c2, &bw), 0);
  assert_int_equal(bw.tx_q16, Q(15.5));
  assert_int_equal(bw.rx_q16, Q(-8));
}

/* Bad parameters and counts are refused, outputs untouched. */
static void ranges(void **state) {
  (void)state;
  ofl_params p;
  ofl_params_paper(&p);
  ofl_params bad = p;
  bad.warp_size = 0;
  assert_int_equal(ofl_params_check(&bad), -1);
  bad = p;
  bad.miss_ld_q16 = OFL_ONE + 1;
  assert_int_equal(ofl_params_check(&bad), -1);
  bad = p;
  bad.coal_ld_q16 = OFL_ONE - 1; /* fewer than one line per instruction */
  assert_int_equal(ofl_params_check(&bad), -1);
  bad = p;
  bad.coal_st_q16 = 33 * OFL_ONE; /* more lines than threads */
  assert_int_equal(ofl_params_check(&bad), -1);
  bad = p;
  bad.line_words = 0;
  assert_int_equal(ofl_params_check(&bad), -1);
  assert_int_equal(ofl_params_check(NULL), -1);

  ofl_bw bw = {7, 7};
  ofl_counts c = {OFL_MAX_REGS + 1, 0, 1, 1};
  assert_int_equal(ofl_bw_warp(&p, &c, &bw), -1);
  assert_int_equal(ofl_bw_thread(&c, &bw), -1);
  c.reg_tx = 1;
  c.n_ld = (UINT64_C(1) << 32) + 1;
  assert_int_equal(ofl_bw_warp(&p, &c, &bw), -1);
  assert_true(bw.tx_q16 == 7 && bw.rx_q16 == 7);
  assert_int_equal(ofl_bw_warp(&bad, &(ofl_counts){1, 0, 1, 1}, &bw), -1);

  ofl_decision d;
  ofl_block b = {1, 0, OFL_MAX_OPS + 1, 0, OFL_TRIP_NONE, 0, 0};
  assert_int_equal(ofl_decide(&p, &b, &d), -1);
  b.n_ld = 1;
  b.trip = OFL_TRIP_STATIC;
  b.trips = 0; /* a static loop runs at least once */
  assert_int_equal(ofl_decide(&p, &b, &d), -1);
  b.trips = 1;
  b.limits = 32; /* unknown limit bit */
  assert_int_equal(ofl_decide(&p, &b, &d), -1);
  b.limits = OFL_LIMIT_CALL; /* a known limit: decided, never a candidate */
  assert_int_equal(ofl_decide(&p, &b, &d), 0);
  assert_int_equal(d.kind, OFL_NOT_CANDIDATE);
}

/* Extremes stay exact (no overflow): the largest block, clamped trips. */
static void extremes(void **state) {
  (void)state;
  ofl_params p = {64, 256, 64 * OFL_ONE, 64 * OFL_ONE, OFL_ONE};
  assert_int_equal(ofl_params_check(&p), 0);
  ofl_counts c = {OFL_MAX_REGS, OFL_MAX_REGS, UINT64_C(1) << 32, UINT64_C(1) << 32};
  ofl_bw bw;
  assert_int_equal(ofl_bw_warp(&p, &c, &bw), 0);
  /* TX = 1024*64 - (2^32*64 + 2^32*(64+64)); RX = 1024*64 - (2^32*64*256 + 2^32*64/4), in Q16. */
  const int64_t n = INT64_C(1) << 32;
  assert_true(bw.tx_q16 == (INT64_C(65536) - (n * 64 + n * 128)) * OFL_ONE);
  assert_true(bw.rx_q16 == INT64_C(65536) * OFL_ONE - (n * 64 * 256 + n * 16) * OFL_ONE);
  ofl_block b = {1, 0, 1, 0, OFL_TRIP_STATIC, 0xffffffffu, 0};
  ofl_decision d;
  ofl_params pp;
  ofl_params_paper(&pp);
  assert_int_equal(ofl_decide(&pp, &b, &d), 0);
  assert_int_equal(d.trips_used, OFL_MAX_TRIPS);
  assert_int_equal(d.kind, OFL_CANDIDATE);
  /* 1 live-in, 1 load per iteration, known at entry: 32 - 16.5 N < 0 from N = 2. */
  b.trip = OFL_TRIP_AT_ENTRY;
  assert_int_equal(ofl_decide(&pp, &b, &d), 0);
  assert_int_equal(d.kind, OFL_CONDITIONAL);
  assert_int_equal(d.min_trips, 2);
  assert_int_equal(d.bw.tx_q16, Q(31));
  assert_int_equal(d.bw.rx_q16, Q(-32));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thread_level),        cmocka_unit_test(libor_example), cmocka_unit_test(loop_kinds),
      cmocka_unit_test(straight_block_and_limits), cmocka_unit_test(measured_parameters),
      cmocka_unit_test(ranges),              cmocka_unit_test(extremes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
