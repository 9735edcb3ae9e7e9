/* Unit test of the memory-controller engine's event contract (models/ref/mem/mc.h):
 * "calling mc_advance() at other cycles [than mc_next_event()] is harmless".
 * The SystemC shell relies on it (it skips wake-ups before the next event and
 * keeps only the earliest pending notification), and the engine's scheduling
 * pass only visits live banks with cached candidates, so a stale cache or a
 * wrong next-event time would show here.
 *
 * Two engines get the same random requests at the same cycles: engine A is
 * advanced at every cycle, engine B only at the cycles mc_next_event()
 * announces (and at submission cycles). Their command logs (cycle, command,
 * rank, bank group, bank, row, column), completions, queue occupancies after
 * every cycle and occupancy integrals must be identical.
 * Configurations cover 1..5 ranks (16..80 banks: more than one 64-bit word of
 * the live-bank mask), open and closed page, refresh on, both command-bus
 * styles (hbm2 dual, gddr5 single).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "mem/dram.h"
#include "mem/mc.h"

#define MAXLOG 120000
#define MAXDONE 20000

typedef struct ent {
  uint64_t cycle, row;
  uint32_t cmd, rank, bg, bank, col;
} ent;

typedef struct side {
  mc m;
  ent log[MAXLOG];
  unsigned nlog;
  uint64_t done[MAXDONE][2]; /* user, cycle */
  unsigned ndone;
} side;

static side A, B;

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  side *s = ctx;
  if (s->nlog < MAXLOG) s->log[s->nlog++] = (ent){cycle, row, (uint32_t)cmd, rank, bg, bank, col};
}

static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  (void)is_write;
  side *s = ctx;
  if (s->ndone < MAXDONE) {
    s->done[s->ndone][0] = user;
    s->done[s->ndone][1] = cycle;
    s->ndone++;
  }
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static void init_side(side *s, const mc_cfg *c) {
  memset(&s->m, 0, sizeof s->m);
  s->nlog = s->ndone = 0;
  char err[200];
  assert_int_equal(mc_init(&s->m, c, err, sizeof err), 0);
  mc_set_cmd_log(&s->m, on_cmd, s);
  mc_set_done(&s->m, on_done, s);
}

static int g_refresh_per_bank; /* per-bank refresh in run_pair (hbm2: JESD235 REFSB) */
static const dram_preset *const *g_rank_devs; /* a preset per rank in run_pair (mixed channel), or NULL */

static void run_pair(const char *dev, unsigned ranks, int open_page, uint64_t seed, uint32_t pd_idle, int gating) {
  mc_cfg c = {0};
  c.dev = dram_find(dev);
  assert_non_null(c.dev);
  c.ranks = ranks;
  c.rank_devs = g_rank_devs;
  c.rq_size = 48;
  c.wq_size = 48;
  c.wq_high = 40;
  c.wq_low = 16;
  c.open_page = open_page;
  c.refresh = 1;
  c.refresh_per_bank = g_refresh_per_bank;
  c.pd_idle = pd_idle;
  c.nvm_gating = gating;
  init_side(&A, &c);
  init_side(&B, &c);
  const dram_preset *d = c.dev;
  const unsigned want = 3000;
  unsigned submitted = 0, wakeups = 0, pause = 0;
  uint64_t now = 0;
  while (A.ndone < want || B.ndone < want) {
    int sub = 0;
    /* bursts of requests with gaps, so queues fill (write drains) and empty */
    /* with power states: now and then a long pause, so ranks power down */
    if (pause) {
      pause--;
    } else if ((pd_idle | gating) && submitted < want && (lcg(&seed) % 512) == 0) {
      pause = 1000 + (unsigned)(lcg(&seed) % 2000);
    } else if (submitted < want && (lcg(&seed) % 4) == 0) {
      const int w = (lcg(&seed) % 3) == 0;
      const unsigned n = 1 + (unsigned)(lcg(&seed) % 4);
      mc_addr a[4];
      const uint32_t rk = (uint32_t)(lcg(&seed) % ranks), bg = (uint32_t)(lcg(&seed) % d->bankgroups),
                     ba = (uint32_t)(lcg(&seed) % d->banks_per_group);
      const uint64_t row = lcg(&seed) % 6;
      for (unsigned k = 0; k < n; ++k) a[k] = (mc_addr){rk, bg, ba, (uint32_t)k, row, 0};
      const int ca = mc_can_accept(&A.m, w, n), cb = mc_can_accept(&B.m, w, n);
      assert_int_equal(ca, cb);
      if (ca) {
        assert_int_equal(mc_submit(&A.m, now, w, a, n, submitted), 0);
        assert_int_equal(mc_submit(&B.m, now, w, a, n, submitted), 0);
        submitted++;
        sub = 1;
      }
    }
    mc_advance(&A.m, now);
    const uint64_t nb = mc_next_event(&B.m);
    if (sub || nb <= now) {
      mc_advance(&B.m, now);
      wakeups++;
    }
    /* same observable state after every cycle */
    assert_int_equal(A.nlog, B.nlog);
    assert_int_equal(A.ndone, B.ndone);
    assert_int_equal(mc_rq_occupancy(&A.m), mc_rq_occupancy(&B.m));
    assert_int_equal(mc_wq_occupancy(&A.m), mc_wq_occupancy(&B.m));
    now++;
    assert_true(now < 5000000);
  }
  for (unsigned i = 0; i < A.nlog; ++i) assert_memory_equal(&A.log[i], &B.log[i], sizeof(ent));
  for (unsigned i = 0; i < A.ndone; ++i) assert_memory_equal(A.done[i], B.done[i], sizeof A.done[i]);
  assert_true(wakeups < now); /* B skipped cycles (A ran every one) */
  const mc_stats *sa = mc_get_stats(&A.m, now), *sb = mc_get_stats(&B.m, now);
  assert_int_equal(sa->rq_occ_sum, sb->rq_occ_sum);
  assert_int_equal(sa->wq_occ_sum, sb->wq_occ_sum);
  assert_int_equal(sa->row_hits, sb->row_hits);
  assert_int_equal(sa->write_drains, sb->write_drains);
  assert_true(sa->refs > 0 || !d->t.REFI);
  assert_int_equal(sa->powerdowns, sb->powerdowns);
  assert_int_equal(sa->gate_wakeups, sb->gate_wakeups);
  if (pd_idle && (!open_page || d->t.REFI)) assert_true(sa->powerdowns + sa->gate_wakeups > 0);
  if (gating && !open_page) assert_true(sa->gate_wakeups > 0);
  for (uint32_t r = 0; r < ranks; ++r) {
    mc_power pa, pb;
    mc_rank_power(&A.m, r, now, &pa);
    mc_rank_power(&B.m, r, now, &pb);
    assert_memory_equal(&pa, &pb, sizeof pa);
  }
  mc_free(&A.m);
  mc_free(&B.m);
}

static void advance_only_at_events(void **state) {
  (void)state;
  const char *devs[] = {"hbm2", "gddr5_gtx480"};
  for (int dv = 0; dv < 2; ++dv)
    for (unsigned ranks = 1; ranks <= 5; ranks += 2)
      for (int open = 0; open <= 1; ++open)
        run_pair(devs[dv], ranks, open, 99 + (uint64_t)dv * 31 + ranks * 7 + (uint64_t)open, 0, 0);
  /* 7 hbm2 ranks: 70 candidate classes, more than one 64-bit class word */
  run_pair("hbm2", 7, 1, 4242, 0, 0);
}

/* The same with precharge power-down (short time-out, so exits are frequent)
 * and NVM power gating: wake-ups come from submissions and refreshes falling
 * due, never from the cycles the engine is advanced at. */
static void advance_only_at_events_powerdown(void **state) {
  (void)state;
  const char *devs[] = {"hbm2", "gddr5_gtx480", "sttram"};
  for (int dv = 0; dv < 3; ++dv)
    for (unsigned ranks = 1; ranks <= 5; ranks += 2)
      for (int open = 0; open <= 1; ++open)
        run_pair(devs[dv], ranks, open, 7 + (uint64_t)dv * 31 + ranks * 7 + (uint64_t)open, 12, dv == 2);
}

/* The same with per-bank refresh (one bank every tREFI / 16 on hbm2), with
 * and without power-down. */
static void advance_only_at_events_refresh_per_bank(void **state) {
  (void)state;
  g_refresh_per_bank = 1;
  for (unsigned ranks = 1; ranks <= 3; ranks += 2)
    for (int open = 0; open <= 1; ++open) {
      run_pair("hbm2", ranks, open, 501 + ranks * 7 + (uint64_t)open, 0, 0);
      run_pair("hbm2", ranks, open, 601 + ranks * 7 + (uint64_t)open, 12, 0);
    }
  g_refresh_per_bank = 0;
}

/* The same on mixed channels (a DRAM rank and an NVM rank sharing the buses:
 * per-rank timing floors, tRTRS, refresh only on the DRAM rank, gating only on
 * the NVM rank), with per-bank refresh, power-down and gating. */
static void advance_only_at_events_mixed(void **state) {
  (void)state;
  static const char *const pairs[][2] = {
      {"hbm2", "scm_mlc"}, {"scm_slc", "hbm2"}, {"gddr5_gtx480", "pcm_hac"}, {"ddr3_800", "pcm_flrb"}};
  g_refresh_per_bank = 1;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
    const dram_preset *devs[2] = {dram_find(pairs[i][0]), dram_find(pairs[i][1])};
    g_rank_devs = devs;
    for (int open = 0; open <= 1; ++open) {
      run_pair(pairs[i][0], 2, open, 301 + i * 7 + (uint64_t)open, 0, 0);
      run_pair(pairs[i][0], 2, open, 401 + i * 7 + (uint64_t)open, 12, 1);
    }
  }
  g_rank_devs = NULL;
  g_refresh_per_bank = 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(advance_only_at_events_mixed),
      cmocka_unit_test(advance_only_at_events),
      cmocka_unit_test(advance_only_at_events_powerdown),
      cmocka_unit_test(advance_only_at_events_refresh_per_bank),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
