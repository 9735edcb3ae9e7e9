/* Mixed technologies on one channel (models/ref/mem/mc.c mc_cfg.rank_devs,
 * models/ref/mem/tcheck.c tcheck_init_ranks): the HMS channel with a DRAM rank
 * (hbm2) and an SCM rank (scm_mlc) sharing the command buses and the data bus
 * (HMS Sec. III-A, Fig. 6a; timing HMS Table I). Hand-computed command
 * cycles, each rank's own timing and energy, the tRTRS rank switch on the
 * data bus, refresh and power gating per rank, the checker catching an SCM
 * timing violation, and seeded random traffic on mixed pairs of presets.
 * (Event-driven = every-cycle on mixed channels: test_mc_sched.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mem/dram.h"
#include "mem/mc.h"
#include "mem/tcheck.h"

typedef struct ent {
  uint64_t cycle;
  mc_cmd cmd;
  uint32_t rank, bg, bank;
  uint64_t row;
} ent;

#define MAXLOG 200000
static struct {
  ent log[MAXLOG];
  unsigned n;
  tcheck c;
  uint64_t done[16];
  const dram_preset *devs[4];
} H;

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  (void)ctx;
  if (H.n < MAXLOG) H.log[H.n++] = (ent){cycle, cmd, rank, bg, bank, row};
  tcheck_cmd(&H.c, cycle, cmd, rank, bg, bank, row, col);
}
static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  (void)ctx;
  (void)is_write;
  if (user < 16) H.done[user] = cycle;
}

/* Engine with rank r on devs[r]; the checker on the same presets. */
static void setup(mc *m, const char *d0, const char *d1, int refresh, int gating, int open_page) {
  memset(&H, 0, sizeof H);
  H.devs[0] = dram_find(d0);
  H.devs[1] = dram_find(d1);
  assert_non_null(H.devs[0]);
  assert_non_null(H.devs[1]);
  char err[256];
  assert_int_equal(tcheck_init_ranks(&H.c, H.devs[0], H.devs, 2, err, sizeof err), 0);
  tcheck_expect_refresh(&H.c, refresh);
  mc_cfg c = {0};
  c.dev = H.devs[0];
  c.rank_devs = H.devs;
  c.ranks = 2;
  c.rq_size = c.wq_size = 64;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = open_page;
  c.refresh = refresh;
  c.refresh_per_bank = 1;
  c.nvm_gating = gating;
  if (mc_init(m, &c, err, sizeof err) != 0) fail_msg("mc_init: %s", err);
  mc_set_cmd_log(m, on_cmd, NULL);
  mc_set_done(m, on_done, NULL);
}

static void run_to(mc *m, uint64_t end) {
  for (uint64_t e = mc_next_event(m); e <= end; e = mc_next_event(m)) mc_advance(m, e);
}

static const ent *nth(mc_cmd cmd, uint32_t rank, unsigned k) {
  for (unsigned i = 0; i < H.n; ++i)
    if (H.log[i].cmd == cmd && H.log[i].rank == rank && k-- == 0) return &H.log[i];
  return NULL;
}
static uint64_t at(mc_cmd cmd, uint32_t rank, unsigned k) {
  const ent *e = nth(cmd, rank, k);
  if (!e) fail_msg("no %s number %u on rank %u", mc_cmd_name(cmd), k, rank);
  return e->cycle;
}

static void submit(mc *m, uint64_t now, int wr, uint32_t rank, uint64_t row, uint32_t col, uint64_t user) {
  const mc_addr a = {rank, 0, 0, col, row, 0};
  assert_int_equal(mc_submit(m, now, wr, &a, 1, user), 0);
  mc_advance(m, now);
}

/* hbm2 rank 0 + scm_mlc rank 1 (HMS Table I: DRAM CL 14 RCD 14 RAS 33 WR 16
 * RP 14; SCM CL 14 RCD 120 RAS 120 WR 1000 RP 14; tBURST 1; one row and one
 * column command per cycle; tRTRS 1), open page, refresh off:
 *  A  reads at 0, bank 0 of each rank: ACT r0 0, ACT r1 1 (row-command slot;
 *     no tRRD across ranks); RD r0 14 (its tRCD), RD r1 1 + 120 = 121 (the SCM
 *     rank's tRCD); done 14 + CL 14 + 1 = 29 and 121 + 15 = 136.
 *  B  row hits at 200: r0, r1, r0. RD r0 200 (burst 214-215); r1 switches
 *     ranks: burst >= 215 + tRTRS 1 -> RD 216 - CL = 202 (201 without
 *     tRTRS); r0 again: burst >= 217 + 1 -> RD 204. Done 215, 217, 219.
 *  C  at 400 a read on r0 and a write on r1: RD r0 400 (burst 414-415), then
 *     the write (queue otherwise empty): burst >= 415 + 1 -> WR 416 - CWL 8 =
 *     408; no tRTW or tWTR across ranks. Write data sent at 417.
 *  D  at 500 row conflicts on both: r0 PRE 500 (tRTP after 400 done), ACT
 *     514, RD 528, done 543; r1's row buffer is dirty: PRE after CWL + tBURST
 *     + tWR 1000 of the SCM rank = 417 + 1000 = 1417, ACT 1431, RD 1431 + 120
 *     = 1551, done 1566 = PRE + 149 (HMS Table I: SCM row miss 149 ns). */
static void hms_channel_hand_checked(void **state) {
  (void)state;
  mc m;
  setup(&m, "hbm2", "scm_mlc", 0, 0, 1);
  submit(&m, 0, 0, 0, 5, 0, 0);
  submit(&m, 0, 0, 1, 7, 0, 1);
  run_to(&m, 199);
  assert_int_equal(at(MC_CMD_ACT, 0, 0), 0);
  assert_int_equal(at(MC_CMD_ACT, 1, 0), 1);
  assert_int_equal(at(MC_CMD_RD, 0, 0), 14);
  assert_int_equal(at(MC_CMD_RD, 1, 0), 121);
  assert_int_equal(H.done[0], 29);
  assert_int_equal(H.done[1], 136);

  submit(&m, 200, 0, 0, 5, 1, 2);
  submit(&m, 200, 0, 1, 7, 1, 3);
  submit(&m, 200, 0, 0, 5, 2, 4);
  run_to(&m, 399);
  assert_int_equal(at(MC_CMD_RD, 0, 1), 200);
  assert_int_equal(at(MC_CMD_RD, 1, 1), 202);
  assert_int_equal(at(MC_CMD_RD, 0, 2), 204);
  assert_int_equal(H.done[2], 215);
  assert_int_equal(H.done[3], 217);
  assert_int_equal(H.done[4], 219);

  submit(&m, 400, 0, 0, 5, 3, 5);
  submit(&m, 400, 1, 1, 7, 3, 6);
  run_to(&m, 499);
  assert_int_equal(at(MC_CMD_RD, 0, 3), 400);
  assert_int_equal(at(MC_CMD_WR, 1, 0), 408);
  assert_int_equal(H.done[6], 417);

  submit(&m, 500, 0, 1, 9, 0, 7);
  submit(&m, 500, 0, 0, 6, 0, 8);
  run_to(&m, 3000);
  assert_int_equal(at(MC_CMD_PRE, 0, 0), 500);
  assert_int_equal(at(MC_CMD_ACT, 0, 1), 514);
  assert_int_equal(at(MC_CMD_RD, 0, 4), 528);
  assert_int_equal(H.done[8], 543);
  assert_int_equal(at(MC_CMD_PRE, 1, 0), 1417);
  assert_int_equal(at(MC_CMD_ACT, 1, 1), 1431);
  assert_int_equal(at(MC_CMD_RD, 1, 2), 1551);
  assert_int_equal(H.done[7], 1566);
  assert_int_equal(H.done[7] - at(MC_CMD_PRE, 1, 0), 149);
  assert_null(nth(MC_CMD_REF, 0, 0));
  assert_null(nth(MC_CMD_REFPB, 0, 0));
  assert_true(tcheck_ok(&H.c));
  assert_int_equal(tcheck_checked(&H.c), H.n);

  /* Energy per rank from its own preset (HMS Table I pJ/bit x 256 bit). */
  const dram_preset *dr = H.devs[0], *sc = H.devs[1];
  mc_energy_j e0, e1, tot;
  mc_rank_energy(&m, 0, 3000, &e0);
  mc_rank_energy(&m, 1, 3000, &e1);
  mc_energy(&m, 3000, &tot);
  assert_true(fabs(e0.act - 2 * dr->e.act_pj * 1e-12) < 1e-18);
  assert_true(fabs(e1.act - 2 * sc->e.act_pj * 1e-12) < 1e-18);
  assert_true(fabs(e1.act - 2 * 2.47 * 256 * 1e-12) < 1e-15); /* SCM ACT 2.47 pJ/bit */
  assert_true(fabs(e0.act - 2 * 1.17 * 256 * 1e-12) < 1e-15); /* DRAM ACT 1.17 pJ/bit */
  assert_true(fabs(e0.pre - dr->e.pre_pj * 1e-12) < 1e-18);     /* one clean PRE */
  assert_true(fabs(e1.pre - sc->e.pre_dirty_pj * 1e-12) < 1e-18); /* one dirty PRE: PRE (WR) 16.82 pJ/bit */
  assert_true(fabs(e0.rd - 5 * dr->e.rd_pj * 1e-12) < 1e-18);
  assert_true(fabs(e1.rd - 3 * sc->e.rd_pj * 1e-12) < 1e-18);
  assert_true(fabs(e1.wr - sc->e.wr_pj * 1e-12) < 1e-18);
  assert_true(e0.wr == 0 && e0.ref == 0 && e1.ref == 0);
  assert_true(fabs(tot.total - (e0.total + e1.total)) < 1e-15);
  assert_true(fabs(tot.act - (e0.act + e1.act)) < 1e-18);
  assert_ptr_equal(mc_rank_device(&m, 0), dr);
  assert_ptr_equal(mc_rank_device(&m, 1), sc);
  assert_null(mc_rank_device(&m, 2));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* Refresh per rank: the DRAM rank refreshes bank by bank (hbm2: one REFPB
 * every 3900 / 16 = 243 cycles), the SCM rank never (NVM, no tREFI); the
 * refresh-interval rule runs on the DRAM rank only. */
static void refresh_only_on_the_dram_rank(void **state) {
  (void)state;
  mc m;
  setup(&m, "hbm2", "scm_mlc", 1, 0, 1);
  run_to(&m, 3 * 3900);
  for (unsigned k = 0; k < 48; ++k) assert_int_equal(at(MC_CMD_REFPB, 0, k), (uint64_t)(k + 1) * 243);
  assert_null(nth(MC_CMD_REFPB, 1, 0));
  assert_null(nth(MC_CMD_REF, 1, 0));
  tcheck_finish(&H.c, 3 * 3900);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
  /* and the same with the ranks swapped (the SCM rank first): rank r's
   * refreshes are staggered by r x 243 / 2 ranks = 121 cycles */
  setup(&m, "scm_mlc", "hbm2", 1, 0, 1);
  run_to(&m, 3900);
  for (unsigned k = 0; k < 15; ++k) assert_int_equal(at(MC_CMD_REFPB, 1, k), (uint64_t)(k + 1) * 243 + 121);
  assert_null(nth(MC_CMD_REFPB, 0, 0));
  tcheck_finish(&H.c, 3900);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* NVM power gating applies to the SCM rank only (scm_mlc tGATE_IDLE 1000,
 * tWAKE 30), closed page so both ranks close their rows: reads to both ranks
 * at 0; the SCM rank precharges at max(ACT 1 + tRAS 120, RD 121 + tRTP 14) =
 * 135 and is gated from 135 + 1000; the DRAM rank is never gated. A read at
 * 5000 wakes it: ACT 5030 (tWAKE), data at 5030 + 120 + 14 + 1. */
static void gating_only_on_the_nvm_rank(void **state) {
  (void)state;
  mc m;
  setup(&m, "hbm2", "scm_mlc", 0, 1, 0); /* closed page: banks close after the reads */
  submit(&m, 0, 0, 0, 5, 0, 0);
  submit(&m, 0, 0, 1, 7, 0, 1);
  run_to(&m, 5000);
  /* SCM: ACT 1, RD 121, PRE at max(tRAS 1 + 120, tRTP 121 + 14) = 135, data ends 136 */
  assert_int_equal(at(MC_CMD_PRE, 1, 0), 135);
  mc_power p0, p1;
  mc_rank_power(&m, 0, 5000, &p0);
  mc_rank_power(&m, 1, 5000, &p1);
  assert_int_equal(p0.gated, 0);
  assert_int_equal(p1.gated, 5000 - (135 + 1000));
  /* a read at 5000 wakes the SCM rank: ACT tWAKE 30 later */
  submit(&m, 5000, 0, 1, 7, 1, 2);
  run_to(&m, 6000);
  assert_int_equal(at(MC_CMD_ACT, 1, 1), 5030);
  assert_int_equal(H.done[2], 5030 + 120 + 14 + 1);
  mc_rank_power(&m, 1, 6000, &p1);
  assert_int_equal(p1.gate_wakeups, 1);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* The checker uses each rank's preset: an RD tRCD 14 after its ACT is legal on
 * the DRAM rank and a tRCD violation on the SCM rank (needs 120), named with
 * the rank's device. */
static void checker_catches_scm_rank_timing(void **state) {
  (void)state;
  const dram_preset *devs[2] = {dram_find("hbm2"), dram_find("scm_mlc")};
  tcheck c;
  char err[256];
  assert_int_equal(tcheck_init_ranks(&c, devs[0], devs, 2, err, sizeof err), 0);
  tcheck_cmd(&c, 0, MC_CMD_ACT, 0, 0, 0, 5, 0);
  tcheck_cmd(&c, 1, MC_CMD_ACT, 1, 0, 0, 7, 0);
  tcheck_cmd(&c, 14, MC_CMD_RD, 0, 0, 0, 5, 0);
  assert_true(tcheck_ok(&c));
  tcheck_cmd(&c, 120, MC_CMD_RD, 1, 0, 0, 7, 0); /* 119 after the ACT */
  assert_false(tcheck_ok(&c));
  assert_int_equal(tcheck_first_rule(&c), TCHECK_RCD);
  assert_non_null(strstr(tcheck_error(&c), "rank 1 (scm_mlc)"));
  assert_non_null(strstr(tcheck_error(&c), "needs 120 cycles"));
  tcheck_free(&c);
  /* at the limit it passes; the SCM rank's tWR 1000 binds its PRE */
  assert_int_equal(tcheck_init_ranks(&c, devs[0], devs, 2, err, sizeof err), 0);
  tcheck_cmd(&c, 1, MC_CMD_ACT, 1, 0, 0, 7, 0);
  tcheck_cmd(&c, 121, MC_CMD_WR, 1, 0, 0, 7, 0);
  tcheck_cmd(&c, 121 + 8 + 1 + 999, MC_CMD_PRE, 1, 0, 0, 0, 0);
  assert_int_equal(tcheck_first_rule(&c), TCHECK_WR);
  tcheck_free(&c);
  /* rank switch on the data bus: DRAM burst 14+14 .. 29, SCM RD at 15 -> burst 29 (needs 30) */
  assert_int_equal(tcheck_init_ranks(&c, devs[0], devs, 2, err, sizeof err), 0);
  tcheck_cmd(&c, 0, MC_CMD_ACT, 1, 0, 0, 7, 0);
  tcheck_cmd(&c, 1, MC_CMD_ACT, 0, 0, 0, 5, 0);
  tcheck_cmd(&c, 120, MC_CMD_RD, 1, 0, 0, 7, 0); /* burst 134-135 */
  tcheck_cmd(&c, 121, MC_CMD_RD, 0, 0, 0, 5, 0); /* burst 135: needs 136 */
  assert_int_equal(tcheck_first_rule(&c), TCHECK_RTRS);
  tcheck_free(&c);
  /* a rank device with another interface is refused, naming the field */
  const dram_preset *bad[2] = {dram_find("hbm2"), dram_find("pcm_hac")};
  assert_int_equal(tcheck_init_ranks(&c, bad[0], bad, 2, err, sizeof err), -1);
  assert_non_null(strstr(err, "pcm_hac"));
  mc m;
  mc_cfg mc_c = {0};
  mc_c.dev = bad[0];
  mc_c.rank_devs = bad;
  mc_c.ranks = 2;
  mc_c.rq_size = mc_c.wq_size = 8;
  mc_c.wq_high = 4;
  assert_int_equal(mc_init(&m, &mc_c, err, sizeof err), -1);
  assert_non_null(strstr(err, "rank 1 (pcm_hac) cannot share a channel with hbm2"));
}

/* ------------------------------------------------------------ random traffic */

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* Seeded random traffic (both ranks, 4 rows per bank, a third writes, idle
 * gaps) on an engine running `eng` per rank, checked against `truth` per rank,
 * with per-bank refresh, power-down and NVM gating on. Returns the number of
 * log entries. */
static unsigned random_run(const dram_preset *const *eng, const dram_preset *const *truth, uint64_t seed,
                           int open_page) {
  memset(&H, 0, sizeof H);
  char err[256];
  assert_int_equal(tcheck_init_ranks(&H.c, truth[0], truth, 2, err, sizeof err), 0);
  mc m;
  mc_cfg c = {0};
  c.dev = eng[0];
  c.rank_devs = eng;
  c.ranks = 2;
  c.rq_size = c.wq_size = 32;
  c.wq_high = 24;
  c.wq_low = 8;
  c.open_page = open_page;
  c.refresh = 1;
  c.refresh_per_bank = 1;
  c.pd_idle = 40;
  c.nvm_gating = 1;
  if (mc_init(&m, &c, err, sizeof err) != 0) fail_msg("mc_init: %s", err);
  mc_set_cmd_log(&m, on_cmd, NULL);
  mc_set_done(&m, on_done, NULL);
  const dram_preset *d = eng[0];
  uint64_t s = seed, now = 0, sent = 0;
  while (sent < 3000 && tcheck_ok(&H.c)) {
    const uint64_t r = lcg(&s);
    if (r % 5 == 0) now += 1 + lcg(&s) % 400; /* idle gaps: power-down, gating, refresh */
    const mc_addr a = {(uint32_t)(lcg(&s) & 1), (uint32_t)(lcg(&s) % d->bankgroups),
                       (uint32_t)(lcg(&s) % d->banks_per_group), (uint32_t)(lcg(&s) % 8), lcg(&s) % 4, 0};
    const int wr = lcg(&s) % 3 == 0;
    while (!mc_can_accept(&m, wr, 1)) {
      const uint64_t e = mc_next_event(&m);
      now = e > now ? e : now + 1;
      mc_advance(&m, now);
    }
    if (mc_submit(&m, now, wr, &a, 1, 99) == 0) sent++;
    mc_advance(&m, now);
  }
  while (!mc_idle(&m)) {
    const uint64_t e = mc_next_event(&m);
    now = e > now ? e : now + 1;
    mc_advance(&m, now);
  }
  now += 5000;
  run_to(&m, now);
  tcheck_finish(&H.c, now);
  const mc_stats *st = mc_get_stats(&m, now);
  if (tcheck_ok(&H.c)) {
    assert_int_equal(H.c.cmds[MC_CMD_RD], st->rd_atoms);
    assert_int_equal(H.c.cmds[MC_CMD_WR], st->wr_atoms);
    assert_int_equal(H.c.cmds[MC_CMD_ACT], st->acts);
    assert_int_equal(H.c.cmds[MC_CMD_REFPB] + H.c.cmds[MC_CMD_REF], st->refs);
  }
  mc_free(&m);
  return H.n;
}

static const char *const k_pairs[][2] = {
    {"hbm2", "scm_slc"}, {"hbm2", "scm_mlc"}, {"scm_tlc", "hbm2"},      {"gddr5_gtx480", "pcm_hac"},
    {"ddr3_800", "pcm_flrb"}, {"gddr5_1000", "rram"}, {"gddr5_1000", "sttram"},
};

static void random_mixed_traffic_is_legal(void **state) {
  (void)state;
  uint64_t total = 0;
  for (size_t i = 0; i < sizeof k_pairs / sizeof k_pairs[0]; ++i)
    for (int open = 0; open <= 1; ++open) {
      const dram_preset *devs[2] = {dram_find(k_pairs[i][0]), dram_find(k_pairs[i][1])};
      random_run(devs, devs, 11 + i, open);
      if (!tcheck_ok(&H.c))
        fail_msg("%s + %s, %s page: %s", devs[0]->name, devs[1]->name, open ? "open" : "closed", tcheck_error(&H.c));
      assert_int_equal(H.c.pre_idle, 0);
      total += tcheck_checked(&H.c);
      tcheck_free(&H.c);
    }
  printf("  %llu commands on mixed channels checked, no violation\n", (unsigned long long)total);
}

/* The engine runs the DRAM preset on both ranks (a configuration bug: the SCM
 * rank simulated as DRAM); the checker, on the true mixed channel, catches
 * the first SCM command that is too early with the SCM rank's rule. */
static void wrong_rank_device_caught(void **state) {
  (void)state;
  const dram_preset *truth[2] = {dram_find("hbm2"), dram_find("scm_mlc")};
  const dram_preset *eng[2] = {dram_find("hbm2"), dram_find("hbm2")};
  random_run(eng, truth, 5, 1);
  assert_false(tcheck_ok(&H.c));
  assert_int_equal(tcheck_first_rule(&H.c), TCHECK_RCD);
  assert_non_null(strstr(tcheck_error(&H.c), "rank 1 (scm_mlc)"));
  printf("  SCM rank run as DRAM: caught: %s\n", tcheck_error(&H.c));
  tcheck_free(&H.c);
}

/* SCM write recovery binds only the precharge (the semantics of Ramulator's
 * HBM model, which the HMS paper ran with Table I's SCM tWR = 1000: the
 * WR -> PRE constraint nCWL + nBL + nWR, bank scope; RD and WR to the open
 * row are row hits with only the bus turnarounds). scm_mlc rank 1, bank 0:
 *  A  WR row 7 at 0 (reads empty: opportunistic drain): ACT 0, WR 0 + tRCD
 *     120 = 120, data sent 120 + CWL 8 + 1 = 129.
 *  B  RD row 7 at 200 (row hit): legal from 129 + tWTR_L 8 = 137 -> RD 200,
 *     done 215 -- not after the write recovery (1129).
 *  C  WR row 7 at 300 (row hit in a new drain): tRTW after the RD (209) ->
 *     WR 300, data sent 309 -- the earlier write's recovery does not hold it.
 *  D  RD row 9 at 400 (conflict with the dirty row): PRE at 309 + tWR 1000 =
 *     1309 (the last write's recovery), ACT 1323, RD 1443, done 1458.
 * Counters: 1 miss (A), 2 row hits (B, C), 1 conflict (D), 1 dirty PRE. */
static void scm_write_recovery_binds_only_the_precharge(void **state) {
  (void)state;
  mc m;
  setup(&m, "hbm2", "scm_mlc", 0, 0, 1);
  assert_int_equal(H.devs[1]->t.WR, 1000);
  submit(&m, 0, 1, 1, 7, 0, 0);
  run_to(&m, 199);
  assert_int_equal(at(MC_CMD_ACT, 1, 0), 0);
  assert_int_equal(at(MC_CMD_WR, 1, 0), 120);
  assert_int_equal(H.done[0], 129);
  submit(&m, 200, 0, 1, 7, 1, 1);
  run_to(&m, 299);
  assert_int_equal(at(MC_CMD_RD, 1, 0), 200);
  assert_int_equal(H.done[1], 215);
  submit(&m, 300, 1, 1, 7, 2, 2);
  run_to(&m, 399);
  assert_int_equal(at(MC_CMD_WR, 1, 1), 300);
  assert_int_equal(H.done[2], 309);
  assert_null(nth(MC_CMD_PRE, 1, 0));
  submit(&m, 400, 0, 1, 9, 0, 3);
  run_to(&m, 3000);
  assert_int_equal(at(MC_CMD_PRE, 1, 0), 309 + 1000);
  assert_int_equal(at(MC_CMD_ACT, 1, 1), 1323);
  assert_int_equal(at(MC_CMD_RD, 1, 1), 1443);
  assert_int_equal(H.done[3], 1458);
  const mc_stats *st = mc_get_stats(&m, 3000);
  assert_int_equal(st->row_misses, 1);
  assert_int_equal(st->row_hits, 2);
  assert_int_equal(st->row_conflicts, 1);
  assert_int_equal(st->pres_dirty, 1);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hms_channel_hand_checked),
      cmocka_unit_test(scm_write_recovery_binds_only_the_precharge),
      cmocka_unit_test(refresh_only_on_the_dram_rank),
      cmocka_unit_test(gating_only_on_the_nvm_rank),
      cmocka_unit_test(checker_catches_scm_rank_timing),
      cmocka_unit_test(random_mixed_traffic_is_legal),
      cmocka_unit_test(wrong_rank_device_caught),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
