/* Unit tests of the FLRB descriptor multi-queue C reference (models/ref/blocks/flrb.h).
 * Expected values are worked out from the paper's rules (Sec. IV) and the
 * decisions D1..D9 in flrb.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "blocks/flrb.h"

static flrb_cfg small_cfg(void) {
  flrb_cfg c;
  flrb_cfg_default(&c);
  c.cap_w = 3;  /* 8 descriptors */
  c.bkt_w = 4;  /* 16 buckets */
  c.ways = 2;
  return c;
}

static void test_cfg(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c;
  flrb_cfg_default(&c);
  assert_int_equal(c.cap_w, 12);
  assert_int_equal(c.lifetime, 150);
  assert_int_equal(FLRB_DESC_BITS, 64);
  assert_int_equal(flrb_init(&f, &c), 0);
  assert_int_equal(f.cap, 4096);
  flrb_free(&f);
  c.ways = 0;
  assert_int_equal(flrb_init(&f, &c), -1);
  flrb_cfg_default(&c);
  c.cand_queue = FLRB_NQ;
  assert_int_equal(flrb_init(&f, &c), -1);
  flrb_cfg_default(&c);
  c.bkt_w = FLRB_SEG_W;
  assert_int_equal(flrb_init(&f, &c), -1);
}

static void test_queue_of(void **st) {
  (void)st;
  /* D1: queue i holds [2^(i-1), 2^i); 0 holds 0; the high end is open. */
  assert_int_equal(flrb_queue_of(0), 0);
  assert_int_equal(flrb_queue_of(1), 1);
  assert_int_equal(flrb_queue_of(2), 2);
  assert_int_equal(flrb_queue_of(3), 2);
  assert_int_equal(flrb_queue_of(4), 3);
  assert_int_equal(flrb_queue_of(7), 3);
  assert_int_equal(flrb_queue_of(63), 6);
  assert_int_equal(flrb_queue_of(64), 7);
  assert_int_equal(flrb_queue_of(255), 7);
}

static void test_expired_wrap(void **st) {
  (void)st;
  uint32_t top = FLRB_TIME_MASK;
  assert_false(flrb_expired(100, 100));
  assert_true(flrb_expired(100, 101));
  assert_false(flrb_expired(100, 99));
  /* exptm wrapped past 2^31, now not yet */
  assert_false(flrb_expired(20, top - 10));
  assert_true(flrb_expired(top - 10, 20));
  assert_true(flrb_expired(top, 0));
}

static void test_access_counts(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  /* create by a PCM write: refcnt 3 -> queue 2, clr 0 (PCM) */
  assert_int_equal(flrb_access(&f, 5, true, true, false, 1000, &r), 0);
  assert_false(r.found);
  assert_int_equal(r.refcnt, 3);
  assert_int_equal(r.queue, 2);
  assert_false(r.clr);
  assert_int_equal(r.exptm, 1150);
  assert_int_equal(r.occ, 1);
  /* DRAM write counts 1; DRAM-served create gets clr 1 */
  assert_int_equal(flrb_access(&f, 6, true, false, true, 1001, &r), 0);
  assert_int_equal(r.refcnt, 1);
  assert_int_equal(r.rbmcnt, 1);
  assert_true(r.clr);
  /* read of seg 5 adds 1 -> 4 -> queue 3, refreshes exptm */
  assert_int_equal(flrb_access(&f, 5, false, true, true, 1010, &r), 0);
  assert_true(r.found);
  assert_int_equal(r.refcnt, 4);
  assert_int_equal(r.queue, 3);
  assert_int_equal(r.exptm, 1160);
  assert_false(r.cand); /* one row-buffer miss only */
  assert_int_equal(flrb_access(&f, 5, false, true, true, 1011, &r), 0);
  assert_true(r.cand); /* queue 3, rbm 2, PCM (D8) */
  assert_int_equal(flrb_set_position(&f, 5, true, &r), 1);
  assert_true(r.clr);
  assert_int_equal(flrb_access(&f, 5, false, false, true, 1012, &r), 0);
  assert_false(r.cand); /* now in DRAM */
  assert_int_equal(flrb_set_position(&f, 77, true, &r), 0);
  assert_false(r.found);
  assert_int_equal(flrb_check(&f), 0);
  assert_int_equal(flrb_access(&f, 1u << FLRB_SEG_W, false, false, false, 0, &r), -1);
  flrb_free(&f);
}

static void test_saturation(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  for (int i = 0; i < 100; i++) flrb_access(&f, 9, true, true, true, (uint64_t)i, &r);
  assert_int_equal(r.refcnt, FLRB_REF_MAX);
  assert_int_equal(r.rbmcnt, FLRB_RBM_MAX);
  assert_int_equal(r.queue, FLRB_NQ - 1);
  flrb_access(&f, 9, false, false, false, 200, &r);
  assert_int_equal(r.refcnt, FLRB_REF_MAX);
  assert_int_equal(flrb_check(&f), 0);
  flrb_free(&f);
}

static void test_tick_demote_evict(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  /* seg 1: refcnt 200 (queue 7), DRAM; seg 2: refcnt 1 (queue 1), PCM */
  for (int i = 0; i < 200; i++) flrb_access(&f, 1, false, false, false, 100, &r); /* exptm 250 */
  assert_int_equal(r.queue, 7);
  flrb_access(&f, 2, false, true, false, 0, &r);
  /* not expired at t=150 (exptm 150): tick checks queue 0,1,... round robin */
  flrb_tick(&f, 150, &r);
  assert_int_equal(r.tick_q, 0);
  assert_false(r.found);
  flrb_tick(&f, 150, &r);
  assert_int_equal(r.tick_q, 1);
  assert_true(r.found);
  assert_false(r.demoted);
  /* queue 1 head expires at 151: refcnt 1 -> 0, queue 0, new exptm */
  for (int i = 0; i < 7; i++) flrb_tick(&f, 151, &r); /* queues 2..7, 0 */
  flrb_tick(&f, 151, &r);
  assert_int_equal(r.tick_q, 1);
  assert_true(r.demoted);
  assert_int_equal(r.seg, 2);
  assert_int_equal(r.refcnt, 0);
  assert_int_equal(r.queue, 0);
  assert_int_equal(r.exptm, 301);
  /* queue 7 head: 200 -> min(100, 63) = 63 -> queue 6 */
  for (int i = 0; i < 5; i++) flrb_tick(&f, 260, &r);
  assert_int_equal(r.tick_q, 6);
  flrb_tick(&f, 260, &r);
  assert_int_equal(r.tick_q, 7);
  assert_true(r.demoted);
  assert_int_equal(r.refcnt, 63);
  assert_int_equal(r.queue, 6);
  /* queue 0 head (seg 2, PCM) leaves at 302 without copy-back */
  flrb_tick(&f, 302, &r);
  assert_int_equal(r.tick_q, 0);
  assert_true(r.ev_valid);
  assert_false(r.ev_copyback);
  assert_int_equal(r.ev_seg, 2);
  assert_int_equal(r.occ, 1);
  assert_int_equal(flrb_lookup(&f, 2, &r), 0);
  assert_int_equal(flrb_check(&f), 0);
  /* seg 1 decays to queue 0 and leaves with copy-back (DRAM) */
  int evicted = 0;
  for (uint64_t t = 400; t < 100000 && !evicted; t += 200)
    for (int i = 0; i < 8; i++) {
      flrb_tick(&f, t, &r);
      if (r.ev_valid) {
        assert_int_equal(r.ev_seg, 1);
        assert_true(r.ev_copyback);
        evicted = 1;
        break;
      }
    }
  assert_true(evicted);
  assert_int_equal(f.occ, 0);
  assert_int_equal(flrb_check(&f), 0);
  flrb_free(&f);
}

static void test_cycles_to_expiry(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  assert_int_equal(flrb_cycles_to_expiry(&f, 0), UINT32_MAX);
  flrb_access(&f, 1, false, true, false, 100, &r);  /* exptm 250, queue 1 */
  flrb_access(&f, 2, true, true, false, 90, &r);    /* exptm 240, queue 2 */
  assert_int_equal(flrb_cycles_to_expiry(&f, 200), 41);  /* expired at 241 */
  assert_int_equal(flrb_cycles_to_expiry(&f, 241), 0);
  /* the answer is exact: one cycle earlier no tick acts, at that time one does */
  for (int i = 0; i < 8; i++) {
    flrb_tick(&f, 240, &r);
    assert_false(r.demoted);
  }
  int acted = 0;
  for (int i = 0; i < 8; i++) {
    flrb_tick(&f, 241, &r);
    acted += r.demoted;
  }
  assert_int_equal(acted, 1);
  /* across the time wrap */
  flrb_reset(&f);
  flrb_access(&f, 3, false, true, false, FLRB_TIME_MASK - 9, &r);  /* exptm 140 */
  assert_int_equal(flrb_cycles_to_expiry(&f, FLRB_TIME_MASK - 9), 151);
  flrb_free(&f);
}

static void test_tick_wrap(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  uint64_t t0 = FLRB_TIME_MASK - 50; /* exptm wraps to 99 */
  flrb_access(&f, 3, false, true, false, t0, &r);
  assert_int_equal(r.exptm, 99);
  flrb_tick(&f, t0 + 100, &r); /* queue 0 */
  flrb_tick(&f, t0 + 100, &r); /* queue 1: t = 2^31 + 49 -> 49 < 99 */
  assert_true(r.found);
  assert_false(r.demoted);
  for (int i = 0; i < 8; i++) flrb_tick(&f, t0 + 151, &r); /* 100 > 99 */
  assert_int_equal(r.tick_q, 1);
  assert_true(r.demoted);
  flrb_free(&f);
}

static void test_capacity_eviction(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg(); /* 8 descriptors, 32 slots */
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  /* segs 0..7: seg 0..5 read once (queue 1), seg 6,7 read twice (queue 2) */
  for (uint32_t s = 0; s < 8; s++) {
    flrb_access(&f, s, false, true, false, s, &r);
    if (s >= 6) flrb_access(&f, s, false, true, false, s, &r);
  }
  flrb_access(&f, 3, false, true, false, 10, &r); /* seg 3 -> queue 2 */
  flrb_set_position(&f, 0, true, &r);             /* seg 0 in DRAM */
  assert_int_equal(f.occ, 8);
  /* new seg: LRU head of queue 1 is seg 0 (DRAM -> copy-back) */
  flrb_access(&f, 100, false, true, false, 20, &r);
  assert_true(r.ev_valid);
  assert_false(r.ev_conf);
  assert_true(r.ev_copyback);
  assert_int_equal(r.ev_seg, 0);
  assert_int_equal(r.occ, 8);
  flrb_access(&f, 101, false, true, false, 21, &r);
  assert_int_equal(r.ev_seg, 1);
  assert_false(r.ev_copyback);
  assert_int_equal(flrb_lookup(&f, 1, &r), 0);
  assert_int_equal(flrb_lookup(&f, 2, &r), 1);
  assert_int_equal(flrb_check(&f), 0);
  flrb_free(&f);
}

static void test_bucket_conflict(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg(); /* 16 buckets x 2 ways */
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  /* 0x10, 0x20, 0x30 all hash to bucket 1^0=... compute via flrb_bucket */
  uint32_t a = 0x11, b = 0x22, d = 0x33; /* lo ^ hi: 1^1, 2^2, 3^3 = 0 */
  assert_int_equal(flrb_bucket(a, 4), 0);
  assert_int_equal(flrb_bucket(b, 4), 0);
  assert_int_equal(flrb_bucket(d, 4), 0);
  flrb_access(&f, a, false, true, false, 0, &r);
  flrb_access(&f, a, false, true, false, 0, &r); /* a: 2 */
  flrb_access(&f, b, false, true, false, 0, &r); /* b: 1 */
  flrb_access(&f, d, false, true, false, 0, &r); /* conflict: evict b */
  assert_true(r.ev_valid);
  assert_true(r.ev_conf);
  assert_int_equal(r.ev_seg, b);
  assert_int_equal(r.occ, 2);
  flrb_access(&f, d, false, true, false, 0, &r); /* d: 2 ties with a */
  flrb_access(&f, b, false, true, false, 0, &r); /* tie: lowest way (a) */
  assert_int_equal(r.ev_seg, a);
  assert_int_equal(flrb_check(&f), 0);
  flrb_free(&f);
}

static void test_neighbours(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c;
  flrb_cfg_default(&c);
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  uint32_t base = 7u * FLRB_ROW_SEGS;
  for (uint32_t k = 0; k < 6; k++) flrb_access(&f, base + k, true, true, false, 0, &r); /* 3: q2 */
  flrb_access(&f, base + 2, false, true, false, 0, &r);   /* 4: queue 3 */
  flrb_access(&f, base + 4, false, false, false, 0, &r);  /* 4: queue 3 as well */
  flrb_set_position(&f, base + 5, true, &r);              /* DRAM: excluded */
  flrb_access(&f, base + FLRB_ROW_SEGS, true, true, false, 0, &r); /* next row */
  assert_int_equal(flrb_neighbours(&f, base + 1, &r), 1);
  assert_int_equal(r.queue, 2);
  assert_int_equal(r.mask, (1u << 0) | (1u << 3));
  assert_int_equal(flrb_neighbours(&f, base + 2, &r), 1);
  assert_int_equal(r.queue, 3);
  assert_int_equal(r.mask, 1u << 4);
  assert_int_equal(flrb_neighbours(&f, base + 9, &r), 0);
  assert_int_equal(r.mask, 0);
  flrb_free(&f);
}

/* Random traffic on a tiny structure; the full invariant check after every op. */
static void test_random_invariants(void **st) {
  (void)st;
  flrb f;
  flrb_cfg c = small_cfg();
  c.cap_w = 4;
  c.bkt_w = 3;
  c.ways = 4;
  flrb_resp r;
  assert_int_equal(flrb_init(&f, &c), 0);
  uint32_t x = 12345, evc = 0, evconf = 0, dem = 0;
  uint64_t now = FLRB_TIME_MASK - 20000; /* crosses the wrap */
  for (int i = 0; i < 60000; i++) {
    x = x * 1664525u + 1013904223u;
    uint32_t k = x >> 24;
    flrb_req q = {.op = k < 160 ? FLRB_OP_ACCESS : k < 230 ? FLRB_OP_TICK
                      : k < 240 ? FLRB_OP_SETPOS : k < 250 ? FLRB_OP_LOOKUP : FLRB_OP_NEIGH,
                  .seg = (x >> 8) & 63u, .is_write = x & 1u, .is_pcm = (x >> 1) & 1u,
                  .rbm = (x >> 2) & 1u, .clr = (x >> 3) & 1u, .now = now};
    now += (x >> 4) & 7u;
    assert_true(flrb_exec(&f, &q, &r) >= 0);
    evc += r.ev_valid && q.op == FLRB_OP_ACCESS && !r.ev_conf;
    evconf += r.ev_conf;
    dem += r.demoted;
    assert_true(r.occ <= f.cap);
    assert_int_equal(flrb_check(&f), 0);
  }
  assert_true(evc > 0);
  assert_true(evconf > 0);
  assert_true(dem > 0);
  flrb_reset(&f);
  assert_int_equal(flrb_check(&f), 0);
  assert_int_equal(flrb_lookup(&f, 1, &r), 0);
  flrb_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cfg),           cmocka_unit_test(test_queue_of),
      cmocka_unit_test(test_expired_wrap),  cmocka_unit_test(test_access_counts),
      cmocka_unit_test(test_saturation),    cmocka_unit_test(test_tick_demote_evict),
      cmocka_unit_test(test_tick_wrap),     cmocka_unit_test(test_cycles_to_expiry),     cmocka_unit_test(test_capacity_eviction),
      cmocka_unit_test(test_bucket_conflict), cmocka_unit_test(test_neighbours),
      cmocka_unit_test(test_random_invariants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
