/* Unit tests of the power-state and energy model of the memory-controller
 * engine (models/ref/mem/mc.h "Power states", docs/memctrl.md "Power and energy")
 * and of the timing checker's power-down rules (models/ref/mem/tcheck.h PDX).
 *
 * Hand-computed cases on hbm2 (1 GHz: one cycle = 1 ns; tRCD 14, CL 14,
 * tBURST 1, tRTP 14, tRAS 33, tRP 14, tXP 10, tCKE 10; precharge standby
 * 40 mW, active standby 48 mW, power-down 20 mW) and sttram (tRCD = tRAS 134,
 * CL 13, tBURST 2, tRTP 3, tRRD 7, tGATE_IDLE 1000, tWAKE 30). Every run has
 * the timing checker attached and must end with zero violations.
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
#include "mem/tcheck.h"

#define MAXLOG 200000

typedef struct logent {
  uint64_t cycle, row;
  mc_cmd cmd;
  uint32_t rank, bg, bank;
} logent;

typedef struct harness {
  mc m;
  tcheck c;
  logent log[MAXLOG];
  unsigned nlog;
  uint64_t done_cycle[64];
  unsigned ndone;
} harness;

static harness H;

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  harness *h = ctx;
  tcheck_cmd(&h->c, cycle, cmd, rank, bg, bank, row, col);
  if (h->nlog < MAXLOG) h->log[h->nlog++] = (logent){cycle, row, cmd, rank, bg, bank};
}

static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  (void)user;
  (void)is_write;
  harness *h = ctx;
  if (h->ndone < 64) h->done_cycle[h->ndone] = cycle;
  h->ndone++;
}

static mc_cfg cfg_of(const char *dev, int open_page, uint32_t pd_idle, int gating) {
  mc_cfg c = {0};
  c.dev = dram_find(dev);
  assert_non_null(c.dev);
  c.ranks = 1;
  c.rq_size = c.wq_size = 64;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = open_page;
  c.refresh = 0;
  c.pd_idle = pd_idle;
  c.nvm_gating = gating;
  return c;
}

static void setup(const mc_cfg *c) {
  memset(&H, 0, sizeof H);
  char err[200];
  assert_int_equal(mc_init(&H.m, c, err, sizeof err), 0);
  assert_int_equal(tcheck_init(&H.c, c->dev, c->ranks, err, sizeof err), 0);
  tcheck_expect_refresh(&H.c, c->refresh);
  mc_set_cmd_log(&H.m, on_cmd, &H);
  mc_set_done(&H.m, on_done, &H);
}

static void teardown(void) {
  if (!tcheck_ok(&H.c)) fail_msg("timing check: %s", tcheck_error(&H.c));
  mc_free(&H.m);
  tcheck_free(&H.c);
}

/* Advance at every engine event up to and including t. */
static void run_to(uint64_t t) {
  for (uint64_t e = mc_next_event(&H.m); e != MC_NEVER && e <= t; e = mc_next_event(&H.m)) mc_advance(&H.m, e);
}

static void read_at(uint64_t t, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row) {
  run_to(t);
  mc_addr a = {rank, bg, bank, 0, row, 0};
  assert_int_equal(mc_submit(&H.m, t, 0, &a, 1, 0), 0);
  mc_advance(&H.m, t);
}

/* n-th logged command of a kind (cycle), or MC_NEVER. */
static uint64_t nth(mc_cmd cmd, unsigned n, uint64_t *row) {
  for (unsigned i = 0; i < H.nlog; ++i)
    if (H.log[i].cmd == cmd && n-- == 0) {
      if (row) *row = H.log[i].row;
      return H.log[i].cycle;
    }
  return MC_NEVER;
}

static void near(double got, double want, double rel) {
  const double d = got > want ? got - want : want - got;
  if (d > rel * (want > 0 ? want : -want)) fail_msg("got %.9g, expected %.9g (+- %.2g %%)", got, want, rel * 100);
}

/* Closed page, power-down after 50 idle cycles:
 *   read at 0:   ACT 0, RD 14, PRE 33 (tRAS), data until 29
 *   idle from the PRE at 33: power-down entry max(33 + 50, 29) = 83
 *   read at 200: exit at 200 (>= 83 + tCKE), ACT at 200 + tXP = 210, RD 224,
 *                PRE 243, done 239
 *   at 300: idle again since 243, down since 293.
 * Time in state at 300: active [0,33) + [210,243) = 66; power-down
 * [83,200) + [293,300) = 124; precharge standby the rest, 110. */
static void powerdown_hand_computed(void **state) {
  (void)state;
  mc_cfg c = cfg_of("hbm2", 0, 50, 0);
  setup(&c);
  read_at(0, 0, 0, 0, 5);
  read_at(200, 0, 0, 0, 5);
  run_to(300);
  uint64_t entry = 0;
  assert_int_equal(nth(MC_CMD_ACT, 0, NULL), 0);
  assert_int_equal(nth(MC_CMD_PRE, 0, NULL), 33);
  assert_int_equal(nth(MC_CMD_PDX, 0, &entry), 200);
  assert_int_equal(entry, 83);
  assert_int_equal(nth(MC_CMD_ACT, 1, NULL), 210); /* pays tXP */
  assert_int_equal(nth(MC_CMD_RD, 1, NULL), 224);
  assert_int_equal(nth(MC_CMD_PRE, 1, NULL), 243);
  assert_int_equal(nth(MC_CMD_PDX, 1, NULL), MC_NEVER);
  assert_int_equal(H.done_cycle[1], 239);
  mc_power p;
  mc_rank_power(&H.m, 0, 300, &p);
  assert_int_equal(p.act_standby, 66);
  assert_int_equal(p.power_down, 124);
  assert_int_equal(p.pre_standby, 110);
  assert_int_equal(p.gated, 0);
  assert_int_equal(p.powerdowns, 1);
  assert_int_equal(mc_get_stats(&H.m, 300)->powerdowns, 1);
  mc_energy_j e, r;
  mc_energy(&H.m, 300, &e);
  mc_rank_energy(&H.m, 0, 300, &r);
  /* 48 mW x 66 ns + 40 mW x 110 ns + 20 mW x 124 ns = 10,048 pJ */
  near(e.bg, (48.0 * 66 + 40.0 * 110 + 20.0 * 124) * 1e-12, 1e-9);
  near(e.act, 2 * 1.17 * 256e-12, 1e-9);
  near(e.pre, 2 * 0.39 * 256e-12, 1e-9);
  near(e.rd, 2 * 0.93 * 256e-12, 1e-9);
  near(r.total, e.total, 1e-12); /* one rank: rank = channel */
  assert_int_equal(tcheck_checked(&H.c), 7); /* 2 x (ACT, RD, PRE) + PDX */
  teardown();
}

/* The exit comes at least tCKE after the entry; an arrival at the entry
 * cycle itself finds the rank still up; the time-out is counted from the
 * rank's last command, so traffic keeps it up. */
static void powerdown_edges(void **state) {
  (void)state;
  mc_cfg c = cfg_of("hbm2", 0, 50, 0);
  setup(&c);
  read_at(0, 0, 0, 0, 5);  /* PRE 33, entry 83 */
  read_at(85, 0, 0, 0, 5); /* down at 83, exit held to 83 + tCKE = 93, ACT 103 */
  run_to(150);
  uint64_t entry = 0;
  assert_int_equal(nth(MC_CMD_PDX, 0, &entry), 93);
  assert_int_equal(entry, 83);
  assert_int_equal(nth(MC_CMD_ACT, 1, NULL), 103);
  /* PRE at 103 + 33 = 136, entry 186: a read at 186 sees no power-down */
  read_at(186, 0, 0, 0, 5);
  assert_int_equal(nth(MC_CMD_PRE, 1, NULL), 136);
  assert_int_equal(nth(MC_CMD_ACT, 2, NULL), 186);
  assert_int_equal(nth(MC_CMD_PDX, 1, NULL), MC_NEVER);
  run_to(1000);
  mc_power p;
  mc_rank_power(&H.m, 0, 1000, &p);
  assert_int_equal(p.act_standby + p.pre_standby + p.power_down, 1000);
  assert_int_equal(p.powerdowns, 1);
  /* [83,93) and from PRE 219 + 50 = 269 to 1000 */
  assert_int_equal(p.power_down, 10 + (1000 - 269));
  teardown();
}

/* A refresh falling due wakes a powered-down rank; the REF pays tXP. */
static void powerdown_refresh(void **state) {
  (void)state;
  mc_cfg c = cfg_of("hbm2", 1, 100, 0);
  c.refresh = 1;
  setup(&c);
  tcheck_expect_refresh(&H.c, 1);
  const uint32_t refi = c.dev->t.REFI; /* 3900 */
  run_to(refi + 1000);
  uint64_t entry = 0;
  assert_int_equal(nth(MC_CMD_PDX, 0, &entry), refi); /* down since 100 (idle from cycle 0) */
  assert_int_equal(entry, 100);
  assert_int_equal(nth(MC_CMD_REF, 0, NULL), refi + c.dev->t.XP);
  mc_power p;
  mc_rank_power(&H.m, 0, refi + 1000, &p);
  /* down [100, 3900) and again from REF + 100 */
  assert_int_equal(p.power_down, (refi - 100) + (refi + 1000 - (refi + 10 + 100)));
  teardown();
}

/* Power-down disabled (0) and a time-out never reached give the same
 * command stream and counters; the counters of the model's new stats stay 0. */
static void powerdown_off_is_unchanged(void **state) {
  (void)state;
  static logent ref[MAXLOG];
  unsigned nref = 0;
  mc_stats sref;
  for (int pass = 0; pass < 2; ++pass) {
    mc_cfg c = cfg_of("gddr5_gtx480", 1, pass ? 1000000 : 0, 1);
    c.refresh = 1;
    c.ranks = 2;
    setup(&c);
    tcheck_expect_refresh(&H.c, 1);
    uint64_t s = 7;
    for (uint64_t t = 0; t < 20000; t += 1 + (s >> 60)) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      mc_addr a = {(uint32_t)(s >> 20) & 1, (uint32_t)(s >> 24) & 3, (uint32_t)(s >> 28) & 3, 0, (s >> 32) & 7, 0};
      run_to(t);
      if (mc_can_accept(&H.m, (int)((s >> 40) & 1), 1)) mc_submit(&H.m, t, (int)((s >> 40) & 1), &a, 1, 0);
      mc_advance(&H.m, t);
    }
    run_to(40000);
    const mc_stats *st = mc_get_stats(&H.m, 40000);
    assert_int_equal(st->powerdowns, 0);
    assert_int_equal(st->gate_wakeups, 0);
    if (!pass) {
      nref = H.nlog;
      memcpy(ref, H.log, sizeof(logent) * nref);
      sref = *st;
    } else {
      assert_int_equal(H.nlog, nref);
      for (unsigned i = 0; i < nref; ++i) assert_memory_equal(&H.log[i], &ref[i], sizeof(logent));
      assert_memory_equal(st, &sref, sizeof sref);
    }
    teardown();
  }
}

/* NVM gating (sttram, tGATE_IDLE 1000, tWAKE 30), power-down off:
 *   read at 0: ACT 0, RD 134, PRE 137, data until 149; gated from 1137
 *   two reads to two banks at 2000: one wake-up, both ACTs after it:
 *   ACT 2030 and 2037 (tRRD 7, not a second tWAKE). */
static void nvm_gating_wake_once(void **state) {
  (void)state;
  mc_cfg c = cfg_of("sttram", 0, 0, 1);
  setup(&c);
  read_at(0, 0, 0, 0, 1);
  run_to(2000);
  assert_int_equal(H.done_cycle[0], 149);
  mc_addr a[2] = {{0, 1, 0, 0, 3, 0}, {0, 2, 0, 0, 3, 0}};
  assert_int_equal(mc_submit(&H.m, 2000, 0, &a[0], 1, 1), 0);
  assert_int_equal(mc_submit(&H.m, 2000, 0, &a[1], 1, 2), 0);
  mc_advance(&H.m, 2000);
  run_to(3000);
  uint64_t entry = 0;
  assert_int_equal(nth(MC_CMD_PRE, 0, NULL), 137);
  assert_int_equal(nth(MC_CMD_PDX, 0, &entry), 2000);
  assert_int_equal(entry, 1137);
  assert_int_equal(nth(MC_CMD_PDX, 1, NULL), MC_NEVER);
  assert_int_equal(nth(MC_CMD_ACT, 1, NULL), 2030);
  assert_int_equal(nth(MC_CMD_ACT, 2, NULL), 2037);
  assert_int_equal(H.done_cycle[1], 2000 + 30 + 149); /* unloaded latency + tWAKE once */
  mc_power p;
  mc_rank_power(&H.m, 0, 3000, &p);
  assert_int_equal(p.gate_wakeups, 1);
  assert_int_equal(p.powerdowns, 0);
  assert_int_equal(p.gated, 2000 - 1137);
  assert_int_equal(mc_get_stats(&H.m, 3000)->gate_wakeups, 1);
  /* a gated rank draws nothing: background = the other states only */
  const dram_energy *e = &c.dev->e;
  mc_energy_j en;
  mc_energy(&H.m, 3000, &en);
  near(en.bg, (e->act_stby_mw * (double)p.act_standby + e->bg_mw * (double)p.pre_standby) * 1e-12, 1e-9);
  assert_int_equal(p.act_standby + p.pre_standby + p.gated, 3000);
  teardown();
}

/* Gating and power-down together: down first (shorter timer), then gated;
 * the exit costs tWAKE. */
static void nvm_powerdown_then_gated(void **state) {
  (void)state;
  mc_cfg c = cfg_of("sttram", 0, 100, 1);
  setup(&c);
  read_at(0, 0, 0, 0, 1); /* PRE 137: down from 237, gated from 1137 */
  read_at(5000, 0, 0, 0, 1);
  run_to(6000);
  uint64_t entry = 0;
  assert_int_equal(nth(MC_CMD_PDX, 0, &entry), 5000);
  assert_int_equal(entry, 237);
  assert_int_equal(nth(MC_CMD_ACT, 1, NULL), 5030);
  mc_power p;
  mc_rank_power(&H.m, 0, 5100, &p);
  assert_int_equal(p.power_down, 1137 - 237);
  assert_int_equal(p.gated, 5000 - 1137);
  teardown();
}

/* Streaming reads on hbm2 (open page, one pass over 8 rows of each of the 16
 * banks, 64 sectors per row): command energy per bit = RD + (ACT + PRE) /
 * 64 of HMS Table I (0.93 + 1.56 / 64 pJ/bit), within 1 %; background =
 * the preset's state powers x the time in each state. */
static void hbm2_stream_energy_per_bit(void **state) {
  (void)state;
  mc_cfg c = cfg_of("hbm2", 1, 0, 0);
  setup(&c);
  uint64_t t = 0;
  unsigned sent = 0;
  const unsigned total = 8 * 16 * 64;
  while (sent < total) {
    const unsigned row = sent / (16 * 64), bank = (sent / 64) % 16, col = sent % 64;
    mc_addr a = {0, bank % 4, bank / 4, col, row, 0};
    if (mc_can_accept(&H.m, 0, 1)) {
      assert_int_equal(mc_submit(&H.m, t, 0, &a, 1, sent), 0);
      sent++;
    }
    mc_advance(&H.m, t);
    t++;
  }
  run_to(t + 10000);
  const uint64_t end = t + 10000;
  const mc_stats *s = mc_get_stats(&H.m, end);
  assert_int_equal(s->rd_atoms, total);
  mc_energy_j e;
  mc_energy(&H.m, end, &e);
  const double bits = (double)s->rd_bytes * 8;
  near((e.act + e.pre + e.rd) * 1e12 / bits, 0.93 + (1.17 + 0.39) / 64, 0.01);
  mc_power p;
  mc_rank_power(&H.m, 0, end, &p);
  const dram_energy *d = &c.dev->e;
  near(e.bg, (d->act_stby_mw * (double)p.act_standby + d->bg_mw * (double)p.pre_standby) * 1e-12, 1e-9);
  assert_int_equal(p.act_standby + p.pre_standby, end);
  teardown();
}

/* Random traffic on several ranks with refresh, power-down and (NVM) gating:
 * the timing checker sees every command and every exit and finds nothing; the
 * states add up to the elapsed time; every exit is logged once. */
static void random_traffic_checked(void **state) {
  (void)state;
  const char *devs[] = {"hbm2", "gddr5_gtx480", "ddr3_800", "pcm_hac", "scm_mlc"};
  for (unsigned d = 0; d < 5; ++d)
    for (int open = 0; open <= 1; ++open) {
      mc_cfg c = cfg_of(devs[d], open, 30, 1);
      c.ranks = 3;
      c.refresh = 1;
      setup(&c);
      tcheck_expect_refresh(&H.c, 1);
      uint64_t s = 1234 + d, t = 0;
      for (unsigned n = 0; n < 3000; ++n) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        t += (s >> 61) == 0 ? 1500 + ((s >> 40) & 1023) : (s >> 58) & 7; /* bursts and long gaps */
        mc_addr a = {(uint32_t)((s >> 20) % 3), (uint32_t)((s >> 24) % c.dev->bankgroups),
                     (uint32_t)((s >> 28) % c.dev->banks_per_group), (uint32_t)((s >> 33) & 7), (s >> 36) & 3, 0};
        run_to(t);
        const int w = (int)((s >> 45) & 1);
        if (mc_can_accept(&H.m, w, 1)) assert_int_equal(mc_submit(&H.m, t, w, &a, 1, n), 0);
        mc_advance(&H.m, t);
      }
      const uint64_t end = t + 20000;
      run_to(end);
      tcheck_finish(&H.c, end);
      const mc_stats *st = mc_get_stats(&H.m, end);
      uint64_t exits = 0, pd = 0;
      for (uint32_t r = 0; r < 3; ++r) {
        mc_power p;
        mc_rank_power(&H.m, r, end, &p);
        assert_int_equal(p.act_standby + p.pre_standby + p.power_down + p.gated, end);
        exits += p.powerdowns + p.gate_wakeups;
        pd += p.power_down;
      }
      assert_int_equal(exits, st->powerdowns + st->gate_wakeups);
      assert_int_equal(H.c.cmds[MC_CMD_PDX], exits);
      /* open page without refresh (NVM) keeps rows open: never idle */
      if (!open || c.dev->t.REFI) assert_true(st->powerdowns + st->gate_wakeups > 0);
      if (!open && c.dev->t.REFI) assert_true(pd > 0);
      if (c.dev->tech == DRAM_TECH_NVM && !open) assert_true(st->gate_wakeups > 0);
      if (c.dev->tech != DRAM_TECH_NVM) assert_int_equal(st->gate_wakeups, 0);
      mc_energy_j ch, rk, sum = {0};
      mc_energy(&H.m, end, &ch);
      for (uint32_t r = 0; r < 3; ++r) {
        mc_rank_energy(&H.m, r, end, &rk);
        sum.act += rk.act, sum.bg += rk.bg, sum.total += rk.total;
      }
      near(sum.act, ch.act, 1e-9);
      near(sum.bg, ch.bg, 1e-9);
      near(sum.total, ch.total, 1e-9);
      teardown();
    }
}

/* The checker's power-down rules, on hand-written streams (hbm2: tXP 10,
 * tCKE 10; sttram: tWAKE 30). */
static void tcheck_powerdown_rules(void **state) {
  (void)state;
  const dram_preset *d = dram_find("hbm2");
  tcheck c;
  char err[128];
  /* legal: PRE at 40, down 60..100, ACT at exit + tXP */
  assert_int_equal(tcheck_init(&c, d, 1, err, sizeof err), 0);
  tcheck_expect_refresh(&c, 0);
  tcheck_cmd(&c, 0, MC_CMD_ACT, 0, 0, 0, 1, 0);
  tcheck_cmd(&c, 40, MC_CMD_PRE, 0, 0, 0, 0, 0);
  tcheck_cmd(&c, 100, MC_CMD_PDX, 0, 0, 0, 60, 0);
  tcheck_cmd(&c, 110, MC_CMD_ACT, 0, 0, 0, 1, 0);
  assert_true(tcheck_ok(&c));
  tcheck_free(&c);
  /* one cycle early: tXP */
  assert_int_equal(tcheck_init(&c, d, 1, err, sizeof err), 0);
  tcheck_expect_refresh(&c, 0);
  tcheck_cmd(&c, 100, MC_CMD_PDX, 0, 0, 0, 60, 0);
  tcheck_cmd(&c, 109, MC_CMD_ACT, 0, 0, 0, 1, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_XP);
  tcheck_free(&c);
  /* down for less than tCKE */
  assert_int_equal(tcheck_init(&c, d, 1, err, sizeof err), 0);
  tcheck_expect_refresh(&c, 0);
  tcheck_cmd(&c, 69, MC_CMD_PDX, 0, 0, 0, 60, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_CKE);
  tcheck_free(&c);
  /* entry with a bank open */
  assert_int_equal(tcheck_init(&c, d, 1, err, sizeof err), 0);
  tcheck_expect_refresh(&c, 0);
  tcheck_cmd(&c, 0, MC_CMD_ACT, 0, 0, 0, 1, 0);
  tcheck_cmd(&c, 100, MC_CMD_PDX, 0, 0, 0, 60, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_PD_ENTRY);
  tcheck_free(&c);
  /* entry before the last read burst ended (RD 14: data until 29) */
  assert_int_equal(tcheck_init(&c, d, 1, err, sizeof err), 0);
  tcheck_expect_refresh(&c, 0);
  tcheck_cmd(&c, 0, MC_CMD_ACT, 0, 0, 0, 1, 0);
  tcheck_cmd(&c, 14, MC_CMD_RD, 0, 0, 0, 1, 0);
  tcheck_cmd(&c, 33, MC_CMD_PRE, 0, 0, 0, 0, 0);
  tcheck_cmd(&c, 100, MC_CMD_PDX, 0, 0, 0, 28, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_PD_ENTRY);
  tcheck_free(&c);
  /* gating: tWAKE, no tCKE; another rank is not held */
  const dram_preset *n = dram_find("sttram");
  assert_int_equal(tcheck_init(&c, n, 2, err, sizeof err), 0);
  tcheck_cmd(&c, 2000, MC_CMD_PDX, 0, 1, 0, 1999, 0);
  tcheck_cmd(&c, 2001, MC_CMD_ACT, 1, 0, 0, 1, 0);
  tcheck_cmd(&c, 2030, MC_CMD_ACT, 0, 0, 0, 1, 0);
  assert_true(tcheck_ok(&c));
  tcheck_cmd(&c, 2031, MC_CMD_PDX, 1, 1, 0, 2020, 0); /* rank 1 entered with its bank open */
  assert_int_equal(tcheck_first_rule(&c), TCHECK_PD_ENTRY);
  tcheck_free(&c);
  assert_int_equal(tcheck_init(&c, n, 1, err, sizeof err), 0);
  tcheck_cmd(&c, 2000, MC_CMD_PDX, 0, 1, 0, 1000, 0);
  tcheck_cmd(&c, 2029, MC_CMD_ACT, 0, 0, 0, 1, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_XP);
  tcheck_free(&c);
}

/* Preset data of the power model. */
static void presets_power_data(void **state) {
  (void)state;
  for (size_t i = 0; i < dram_count(); ++i) {
    const dram_preset *p = dram_at(i);
    assert_true(p->t.XP > 0 && p->t.CKE > 0);
    assert_true(p->e.act_stby_mw >= p->e.bg_mw && p->e.bg_mw > p->e.pd_mw && p->e.pd_mw > 0);
    if (p->tech == DRAM_TECH_NVM) assert_true(p->t.GATE_IDLE > 0 && p->t.WAKE > 0);
    else assert_int_equal(p->t.GATE_IDLE, 0);
  }
  /* hbm2 keeps HMS Table I's per-command energies (pJ/bit x 256 bit) */
  const dram_preset *h = dram_find("hbm2");
  near(h->e.act_pj, 1.17 * 256, 1e-12);
  near(h->e.pre_pj, 0.39 * 256, 1e-12);
  near(h->e.rd_pj, 0.93 * 256, 1e-12);
  near(h->e.wr_pj, 1.02 * 256, 1e-12);
  mc_cfg c = cfg_of("hbm2", 1, 10, 0);
  dram_preset bad = *h;
  bad.t.GATE_IDLE = 100;
  bad.t.WAKE = 10;
  char err[200];
  assert_int_not_equal(dram_validate(&bad, err, sizeof err), 0); /* DRAM cannot be gated */
  bad = *h;
  bad.e.pd_mw = bad.e.bg_mw * 2;
  assert_int_not_equal(dram_validate(&bad, err, sizeof err), 0);
  (void)c;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(powerdown_hand_computed), cmocka_unit_test(powerdown_edges),
      cmocka_unit_test(powerdown_refresh),       cmocka_unit_test(powerdown_off_is_unchanged),
      cmocka_unit_test(nvm_gating_wake_once),    cmocka_unit_test(nvm_powerdown_then_gated),
      cmocka_unit_test(hbm2_stream_energy_per_bit), cmocka_unit_test(random_traffic_checked),
      cmocka_unit_test(tcheck_powerdown_rules),  cmocka_unit_test(presets_power_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
