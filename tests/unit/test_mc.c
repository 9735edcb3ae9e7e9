/* Unit tests of the memory-controller engine (models/ref/mem/mc.c) and the device
 * preset table (models/ref/mem/dram.c). Expected completion cycles are worked out
 * by hand from the hbm2 row (HMS Table I + the Ramulator-derived values in
 * dram.c): CL 14, CWL 8, tRCD 14, tRP 14, tRAS 33, tRC 47, tCCD_S 1, tCCD_L 2,
 * tRRD_S 8, tRRD_L 10, tFAW 40, tWTR_S 4, tWTR_L 8, tRTP 14, tWR 16, tRTW 9,
 * tRFC 260, tREFI 3900, tBURST 1. Every check is exact: a completion one cycle
 * early fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/addrmap.h"
#include "mem/dram.h"
#include "mem/mc.h"

/* ------------------------------------------------------------ harness */

#define MAXDONE 70000
#define MAXLOG 200000

typedef struct logent {
  uint64_t cycle, row;
  mc_cmd cmd;
  uint32_t rank, bg, bank, col;
} logent;

typedef struct harness {
  mc m;
  uint64_t done_user[MAXDONE], done_cycle[MAXDONE];
  int done_write[MAXDONE];
  uint8_t done_row[MAXDONE]; /* mc.done_row during the callback */
  unsigned ndone;
  logent log[MAXLOG];
  unsigned nlog;
} harness;

static harness H; /* large: static, one test at a time */

static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  harness *h = ctx;
  if (h->ndone < MAXDONE) {
    h->done_user[h->ndone] = user;
    h->done_cycle[h->ndone] = cycle;
    h->done_write[h->ndone] = is_write;
    h->done_row[h->ndone] = h->m.done_row;
  }
  h->ndone++;
}

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  harness *h = ctx;
  if (h->nlog < MAXLOG) h->log[h->nlog] = (logent){cycle, row, cmd, rank, bg, bank, col};
  h->nlog++;
}

static mc_cfg base_cfg(const char *dev, int refresh) {
  mc_cfg c;
  memset(&c, 0, sizeof c);
  c.dev = dram_find(dev);
  c.ranks = 1;
  c.rq_size = 64;
  c.wq_size = 64;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = 1;
  c.refresh = refresh;
  return c;
}

static void setup_cfg(const mc_cfg *c) {
  memset(&H, 0, sizeof H);
  char err[256];
  assert_int_equal(mc_init(&H.m, c, err, sizeof err), 0);
  mc_set_done(&H.m, on_done, &H);
  mc_set_cmd_log(&H.m, on_cmd, &H);
}

static void setup(const char *dev, int refresh) {
  mc_cfg c = base_cfg(dev, refresh);
  setup_cfg(&c);
}

static mc_addr A(uint32_t bg, uint32_t bank, uint64_t row, uint32_t col) {
  mc_addr a = {0, bg, bank, col, row, 0};
  return a;
}

static void submit1(uint64_t now, int w, mc_addr a, uint64_t user) {
  assert_int_equal(mc_submit(&H.m, now, w, &a, 1, user), 0);
}

/* Advance event by event up to and including cycle `until`. */
static void run_until(uint64_t until) {
  for (;;) {
    const uint64_t t = mc_next_event(&H.m);
    if (t == MC_NEVER || t > until) break;
    mc_advance(&H.m, t);
  }
}

static uint64_t done_cycle_of(uint64_t user) {
  for (unsigned i = 0; i < H.ndone && i < MAXDONE; ++i)
    if (H.done_user[i] == user) return H.done_cycle[i];
  return MC_NEVER;
}

static int done_row_of(uint64_t user) {
  for (unsigned i = 0; i < H.ndone && i < MAXDONE; ++i)
    if (H.done_user[i] == user) return H.done_row[i];
  return -1;
}

static int find_cmd(mc_cmd c, unsigned nth, logent *out) {
  for (unsigned i = 0; i < H.nlog && i < MAXLOG; ++i)
    if (H.log[i].cmd == c && nth-- == 0) {
      *out = H.log[i];
      return 1;
    }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  mc_free(&H.m);
  return 0;
}

/* -------------------------------------------------------------- presets */

static void presets_valid(void **state) {
  (void)state;
  char err[256];
  assert_true(dram_count() >= 2);
  for (size_t i = 0; i < dram_count(); ++i) {
    const dram_preset *p = dram_at(i);
    if (dram_validate(p, err, sizeof err) != 0) fail_msg("%s", err);
    assert_ptr_equal(dram_find(p->name), p);
    assert_non_null(strstr(dram_names(), p->name));
  }
  assert_null(dram_at(dram_count()));
  assert_null(dram_find("ddr9"));
  /* the first rows are the pinned baselines; technology rows follow (test_dram_presets.c) */
  assert_int_equal(strncmp(dram_names(), "hbm2, gddr5_gtx480, ", 20), 0);

  const dram_preset *h = dram_find("hbm2");
  assert_int_equal(h->atom_bytes, 32);
  assert_int_equal(h->t.BURST, 1);
  /* HMS Table I: 8 channels x 32 GB/s = 256 GB/s; row hit 15 ns, closed-page miss 43 ns */
  assert_true(dram_peak_bytes_per_s(h) * 8 == 256e9);
  assert_int_equal(h->t.CL + h->t.BURST, 15);
  assert_int_equal(h->t.RP + h->t.RCD + h->t.CL + h->t.BURST, 43);
  const dram_preset *g = dram_find("gddr5_gtx480");
  assert_int_equal(g->atom_bytes, 32);
  assert_int_equal(g->t.BURST, 2);
  /* 12 channels x 924 MHz x 4 x 4 B = 177.4 GB/s */
  const double gpeak = dram_peak_bytes_per_s(g) * 12 / 1e9;
  assert_true(gpeak > 177.3 && gpeak < 177.5);

  /* validation catches inconsistent rows */
  dram_preset bad = *h;
  bad.atom_bytes = 64;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  assert_non_null(strstr(err, "atom_bytes"));
  bad = *h;
  bad.t.RC = 40;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  bad = *h;
  bad.t.RFC = 0;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
}

static void init_errors(void **state) {
  (void)state;
  mc m;
  char err[256];
  mc_cfg c = base_cfg("hbm2", 1);
  c.wq_low = c.wq_high;
  assert_int_equal(mc_init(&m, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "wq_low"));
  c = base_cfg("hbm2", 1);
  c.wq_high = 65;
  assert_int_equal(mc_init(&m, &c, err, sizeof err), -1);
  c = base_cfg("hbm2", 1);
  c.dev = NULL;
  assert_int_equal(mc_init(&m, &c, err, sizeof err), -1);
  c = base_cfg("hbm2", 1);
  c.ranks = 0;
  assert_int_equal(mc_init(&m, &c, err, sizeof err), -1);
}

/* ------------------------------------------------------------- latency */

/* Closed bank: ACT at arrival, RD at +tRCD, data done at +CL+tBURST. */
static void closed_bank_read(void **state) {
  (void)state;
  setup("hbm2", 0);
  submit1(100, 0, A(0, 0, 5, 3), 7);
  assert_int_equal(mc_next_event(&H.m), 100);
  mc_advance(&H.m, 100);
  assert_int_equal(mc_next_event(&H.m), 114); /* tRCD */
  mc_advance(&H.m, 114);
  assert_int_equal(mc_next_event(&H.m), 129); /* CL + tBURST */
  mc_advance(&H.m, 128);                       /* one cycle early: nothing */
  assert_int_equal(H.ndone, 0);
  mc_advance(&H.m, 129);
  assert_int_equal(H.ndone, 1);
  assert_int_equal(H.done_user[0], 7);
  assert_int_equal(H.done_cycle[0], 100 + 14 + 14 + 1);
  assert_int_equal(H.done_write[0], 0);
  assert_int_equal(mc_next_event(&H.m), MC_NEVER);
  assert_true(mc_idle(&H.m));
  logent e;
  assert_true(find_cmd(MC_CMD_ACT, 0, &e));
  assert_int_equal(e.cycle, 100);
  assert_int_equal(e.row, 5);
  assert_true(find_cmd(MC_CMD_RD, 0, &e));
  assert_int_equal(e.cycle, 114);
  assert_int_equal(e.col, 3);
  const mc_stats *s = mc_get_stats(&H.m, 129);
  assert_int_equal(s->reads, 1);
  assert_int_equal(s->rd_atoms, 1);
  assert_int_equal(s->row_misses, 1);
  assert_int_equal(s->row_hits, 0);
  assert_int_equal(s->acts, 1);
  assert_int_equal(s->rd_lat_sum, 29);
  assert_int_equal(s->rd_bytes, 32);
  mc_energy_j en;
  mc_energy(&H.m, 1000, &en);
  assert_true(en.act > 299.51e-12 && en.act < 299.53e-12); /* 1.17 pJ/bit x 256 bit */
  assert_true(en.rd > 238.07e-12 && en.rd < 238.09e-12);  /* 0.93 pJ/bit x 256 bit */
  /* background by power state (open page: the row stays open from the ACT at
   * 100): precharge standby 40 mW x 100 ns + active standby 48 mW x 900 ns */
  assert_true(en.bg > 47.19e-9 && en.bg < 47.21e-9);
}

/* A second access to the open row is a row hit: tCCD after the first (same
 * bank group: tCCD_L), or CL + tBURST from arrival when the row is already open. */
static void row_hit(void **state) {
  (void)state;
  setup("hbm2", 0);
  submit1(100, 0, A(0, 0, 5, 0), 1);
  submit1(100, 0, A(0, 0, 5, 1), 2);
  run_until(1000);
  assert_int_equal(done_cycle_of(1), 129);
  assert_int_equal(done_cycle_of(2), 114 + 2 + 15); /* RD at 116 (tCCD_L) */
  submit1(200, 0, A(0, 0, 5, 2), 3);
  run_until(1000);
  assert_int_equal(done_cycle_of(3), 200 + 15);     /* HMS Table I: row hit 15 ns */
  const mc_stats *s = mc_get_stats(&H.m, 1000);
  assert_int_equal(s->row_hits, 2);
  assert_int_equal(s->row_misses, 1);
  assert_int_equal(s->acts, 1);
  /* a parent of 4 atoms (a 128 B line) completes with its last atom */
  mc_addr line[4] = {A(1, 0, 9, 0), A(1, 0, 9, 1), A(1, 0, 9, 2), A(1, 0, 9, 3)};
  assert_int_equal(mc_submit(&H.m, 300, 0, line, 4, 4), 0);
  run_until(1000);
  /* ACT 300, RDs at 314, 316, 318, 320 (tCCD_L), last data at 320 + 15 */
  assert_int_equal(done_cycle_of(4), 335);
  assert_int_equal(H.ndone, 4);
}

/* Row conflict: PRE at the earliest legal cycle max(ACT + tRAS, RD + tRTP),
 * then tRP + tRCD + CL + tBURST. */
static void row_conflict(void **state) {
  (void)state;
  setup("hbm2", 0);
  submit1(100, 0, A(0, 0, 0, 0), 1);
  run_until(119);
  submit1(120, 0, A(0, 0, 1, 0), 2);
  run_until(1000);
  assert_int_equal(done_cycle_of(1), 129);
  logent e;
  assert_true(find_cmd(MC_CMD_PRE, 0, &e));
  assert_int_equal(e.cycle, 133);                       /* ACT 100 + tRAS 33 > RD 114 + tRTP 14 */
  assert_int_equal(done_cycle_of(2), 133 + 14 + 14 + 14 + 1); /* = 176 */
  const mc_stats *s = mc_get_stats(&H.m, 1000);
  assert_int_equal(s->row_conflicts, 1);
  assert_int_equal(s->pres, 1);
  /* tRTP binds when the read comes late in the row's life */
  submit1(400, 0, A(0, 0, 1, 5), 3);  /* hit at 400: RD 400 */
  run_until(400);
  submit1(401, 0, A(0, 0, 2, 0), 4);  /* conflict: PRE at max(147 + 33, 400 + 14) = 414 */
  run_until(2000);
  assert_int_equal(done_cycle_of(3), 415);
  assert_true(find_cmd(MC_CMD_PRE, 1, &e));
  assert_int_equal(e.cycle, 414);
  assert_int_equal(done_cycle_of(4), 414 + 43);
}

/* All-bank refresh at tREFI blocks activation for tRFC; open banks are
 * precharged first. */
static void refresh_blocks(void **state) {
  (void)state;
  setup("hbm2", 1);
  assert_int_equal(mc_next_event(&H.m), 3900); /* idle engine still wakes for refresh */
  run_until(3900);
  logent e;
  assert_true(find_cmd(MC_CMD_REF, 0, &e));
  assert_int_equal(e.cycle, 3900);
  submit1(3901, 0, A(2, 3, 7, 0), 1);
  run_until(5000);
  assert_true(find_cmd(MC_CMD_ACT, 0, &e));
  assert_int_equal(e.cycle, 3900 + 260);
  assert_int_equal(done_cycle_of(1), 3900 + 260 + 14 + 14 + 1);
  assert_int_equal(mc_next_event(&H.m), 7800);
  /* second refresh with an open bank: PRE at the due time (tRAS, tRTP long
   * met), REF tRP later, then the row must be re-opened */
  run_until(7800);
  assert_true(find_cmd(MC_CMD_PRE, 0, &e));
  assert_int_equal(e.cycle, 7800);
  run_until(7813);
  assert_false(find_cmd(MC_CMD_REF, 1, &e));
  run_until(7814);
  assert_true(find_cmd(MC_CMD_REF, 1, &e));
  assert_int_equal(e.cycle, 7814);
  submit1(7820, 0, A(2, 3, 7, 1), 2); /* would be a row hit without the refresh */
  run_until(9000);
  assert_int_equal(done_cycle_of(2), 7814 + 260 + 29);
  const mc_stats *s = mc_get_stats(&H.m, 9000);
  assert_int_equal(s->refs, 2);
  /* refresh off: no REF ever */
  teardown(NULL);
  setup("hbm2", 0);
  assert_int_equal(mc_next_event(&H.m), MC_NEVER);
}

/* Write then read: the read waits CWL + tBURST + tWTR after the write
 * (tWTR_L in the same bank group, tWTR_S in another). */
static void write_to_read(void **state) {
  (void)state;
  setup("hbm2", 0);
  submit1(10, 0, A(1, 0, 0, 0), 1); /* opens bg1/bank0 row 0: ACT 10, RD 24 */
  run_until(99);
  assert_int_equal(done_cycle_of(1), 39);
  submit1(100, 1, A(0, 0, 0, 0), 2); /* write, opportunistic drain (no reads) */
  run_until(114);
  logent e;
  assert_true(find_cmd(MC_CMD_WR, 0, &e));
  assert_int_equal(e.cycle, 114);
  submit1(115, 0, A(0, 0, 0, 1), 3); /* same bank group: hit, waits tWTR_L */
  submit1(115, 0, A(1, 0, 0, 1), 4); /* other bank group: hit, waits tWTR_S */
  run_until(1000);
  assert_int_equal(done_cycle_of(2), 114 + 8 + 1);              /* write done: CWL + tBURST */
  assert_int_equal(done_cycle_of(4), 114 + 8 + 1 + 4 + 15);     /* RD at 127 */
  assert_int_equal(done_cycle_of(3), 114 + 8 + 1 + 8 + 15);     /* RD at 131 */
  /* read then write: tRTW = 9 between the commands */
  submit1(200, 0, A(0, 0, 0, 2), 5);
  run_until(200);
  submit1(201, 1, A(0, 0, 0, 3), 6);
  run_until(1000);
  assert_true(find_cmd(MC_CMD_WR, 1, &e));
  assert_int_equal(e.cycle, 200 + 9);
  assert_int_equal(done_cycle_of(6), 209 + 9);
  const mc_stats *s = mc_get_stats(&H.m, 1000);
  assert_int_equal(s->writes, 2);
  assert_int_equal(s->wr_atoms, 2);
  assert_int_equal(s->wr_bytes, 64);
}

/* FR-FCFS: a younger row hit goes before an older row conflict. */
static void frfcfs_hit_first(void **state) {
  (void)state;
  setup("hbm2", 0);
  submit1(10, 0, A(0, 0, 0, 0), 1);
  run_until(99);
  submit1(100, 0, A(0, 0, 1, 0), 2); /* older: conflict */
  submit1(100, 0, A(0, 0, 0, 1), 3); /* younger: hit */
  run_until(1000);
  assert_int_equal(done_cycle_of(3), 115);
  /* the conflict's PRE waits for tRTP after the hit's RD */
  assert_int_equal(done_cycle_of(2), 100 + 14 + 43);
  assert_true(done_cycle_of(3) < done_cycle_of(2));
  /* and among requests of the same class the oldest goes first */
  submit1(200, 0, A(0, 0, 1, 4), 4);
  submit1(200, 0, A(0, 0, 1, 5), 5);
  run_until(1000);
  assert_int_equal(done_cycle_of(4), 215);
  assert_int_equal(done_cycle_of(5), 217);
}

/* Write drain: writes wait while reads are pending until the write queue
 * reaches wq_high, then drain down to wq_low, then reads resume. */
static void write_drain(void **state) {
  (void)state;
  /* nw = 5: below wq_high; 6: forced drain; 7: forced drain whose last two
   * writes hit rows the drain opened (finished before leaving, at most wq_low extra) */
  for (int nw = 5; nw <= 7; ++nw) {
    mc_cfg c = base_cfg("hbm2", 0);
    c.wq_size = 8;
    c.wq_high = 6;
    c.wq_low = 2;
    setup_cfg(&c);
    for (unsigned i = 0; i < 20; ++i) submit1(0, 0, A(i % 4, 1, 0, i / 4), i);
    /* writes 0..3 open row 0 of bank 2 in each bank group; 4 and 5 go to row 1
     * (conflicts) unless nw == 7, where they hit row 0 */
    const unsigned nwr = nw == 7 ? 6 : (unsigned)nw;
    for (unsigned i = 0; i < nwr; ++i) submit1(0, 1, A(i % 4, 2, i < 4 || nw == 7 ? 0 : 1, i), 100 + i);
    run_until(10000);
    char seq[64] = {0};
    unsigned k = 0;
    for (unsigned i = 0; i < H.nlog; ++i)
      if (H.log[i].cmd == MC_CMD_RD || H.log[i].cmd == MC_CMD_WR) seq[k++] = H.log[i].cmd == MC_CMD_RD ? 'R' : 'W';
    if (nw == 5)
      assert_string_equal(seq, "RRRRRRRRRRRRRRRRRRRRWWWWW"); /* below high: reads first, then idle drain */
    else if (nw == 6)
      assert_string_equal(seq, "WWWWRRRRRRRRRRRRRRRRRRRRWW"); /* high 6 -> low 2, reads, rest */
    else
      assert_string_equal(seq, "WWWWWWRRRRRRRRRRRRRRRRRRRR"); /* low reached, but 2 open-row hits left */
    assert_int_equal(H.ndone, 20 + nwr);
    assert_int_equal(mc_get_stats(&H.m, 10000)->write_drains, 1 + (nw == 6));
    teardown(NULL);
  }
  /* queue full -> submit refused, nothing enqueued */
  mc_cfg c = base_cfg("hbm2", 0);
  c.rq_size = 4;
  setup_cfg(&c);
  mc_addr line[4] = {A(0, 0, 0, 0), A(0, 0, 0, 1), A(0, 0, 0, 2), A(0, 0, 0, 3)};
  assert_int_equal(mc_submit(&H.m, 0, 0, line, 3, 1), 0);
  assert_false(mc_can_accept(&H.m, 0, 2));
  assert_int_equal(mc_submit(&H.m, 0, 0, line, 2, 2), -1);
  assert_int_equal(mc_rq_occupancy(&H.m), 3);
  mc_addr bad = A(4, 0, 0, 0);
  assert_int_equal(mc_submit(&H.m, 0, 0, &bad, 1, 3), -1);
}

/* ----------------------------------------------- independent timing check */

/* Replays the command log against the JEDEC rules of dram.h, written
 * independently of the engine (per command pair, last-command times). */
static void check_log(const dram_preset *d, unsigned ranks) {
  const dram_timing *t = &d->t;
  enum { NB = 64 };
  int64_t last_act[NB], last_pre[NB], last_rd[NB], last_wr[NB];
  int open[NB];
  uint64_t open_row[NB];
  for (int i = 0; i < NB; ++i) last_act[i] = last_pre[i] = last_rd[i] = last_wr[i] = -100000, open[i] = 0;
  int64_t acts[8][64];
  unsigned nacts[8] = {0};
  int64_t last_ref[8];
  for (int i = 0; i < 8; ++i) last_ref[i] = -100000;
  int64_t bus_end = -1, last_cmd = -1, last_row_cmd = -1, last_col_cmd = -1;
  const unsigned bpr = d->bankgroups * d->banks_per_group;
  for (unsigned i = 0; i < H.nlog && i < MAXLOG; ++i) {
    const logent *e = &H.log[i];
    const int64_t c = (int64_t)e->cycle;
    if (d->dual_cmd_bus) {
      const int row = e->cmd == MC_CMD_ACT || e->cmd == MC_CMD_PRE || e->cmd == MC_CMD_REF;
      if (row) { assert_true(c > last_row_cmd); last_row_cmd = c; }
      else { assert_true(c > last_col_cmd); last_col_cmd = c; }
    } else {
      assert_true(c > last_cmd);
    }
    assert_true(c >= last_cmd);
    last_cmd = c;
    const unsigned r = e->rank;
    if (e->cmd == MC_CMD_REF) {
      for (unsigned b = r * bpr; b < (r + 1) * bpr; ++b) {
        assert_false(open[b]);
        assert_true(c >= last_pre[b] + t->RP);
        assert_true(c >= last_act[b] + t->RC);
      }
      last_ref[r] = c;
      continue;
    }
    const unsigned b = r * bpr + e->bg * d->banks_per_group + e->bank;
    switch (e->cmd) {
      case MC_CMD_ACT:
        assert_false(open[b]);
        assert_true(c >= last_pre[b] + t->RP);
        assert_true(c >= last_act[b] + t->RC);
        assert_true(c >= last_ref[r] + t->RFC);
        for (unsigned o = r * bpr; o < (r + 1) * bpr; ++o) {
          if (o == b) continue;
          const int same_bg = (o - r * bpr) / d->banks_per_group == e->bg;
          assert_true(c >= last_act[o] + (same_bg ? t->RRD_L : t->RRD_S));
        }
        if (t->FAW && nacts[r] >= 4) assert_true(c >= acts[r][(nacts[r] - 4) % 64] + t->FAW);
        acts[r][nacts[r] % 64] = c;
        nacts[r]++;
        open[b] = 1;
        open_row[b] = e->row;
        last_act[b] = c;
        break;
      case MC_CMD_PRE:
        assert_true(open[b]);
        assert_true(c >= last_act[b] + t->RAS);
        assert_true(c >= last_rd[b] + t->RTP);
        assert_true(c >= last_wr[b] + t->CWL + t->BURST + t->WR);
        open[b] = 0;
        last_pre[b] = c;
        break;
      case MC_CMD_RD:
      case MC_CMD_WR: {
        const int rd = e->cmd == MC_CMD_RD;
        assert_true(open[b]);
        assert_true(open_row[b] == e->row);
        assert_true(c >= last_act[b] + t->RCD);
        for (unsigned o = r * bpr; o < (r + 1) * bpr; ++o) {
          const int same_bg = (o - r * bpr) / d->banks_per_group == e->bg;
          const uint32_t ccd = same_bg ? t->CCD_L : t->CCD_S;
          const uint32_t wtr = same_bg ? t->WTR_L : t->WTR_S;
          if (rd) {
            assert_true(c >= last_rd[o] + ccd);
            assert_true(c >= last_wr[o] + t->CWL + t->BURST + wtr);
          } else {
            assert_true(c >= last_wr[o] + ccd);
            assert_true(c >= last_rd[o] + t->RTW);
          }
        }
        const int64_t start = c + (rd ? t->CL : t->CWL);
        assert_true(start >= bus_end);
        bus_end = start + t->BURST;
        if (rd) last_rd[b] = c; else last_wr[b] = c;
        break;
      }
      default:
        fail();
    }
  }
  (void)ranks;
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* Seeded random mixed traffic: every command legal, every parent completes
 * exactly once, counters add up. */
static void random_traffic_legal(void **state) {
  (void)state;
  const char *devs[] = {"hbm2", "gddr5_gtx480"};
  for (int dv = 0; dv < 2; ++dv) {
    for (unsigned ranks = 1; ranks <= 2; ++ranks) {
      mc_cfg c = base_cfg(devs[dv], 1);
      c.ranks = ranks;
      c.rq_size = 32;
      c.wq_size = 32;
      c.wq_high = 24;
      c.wq_low = 8;
      c.open_page = ranks == 1; /* closed page on the 2-rank runs */
      setup_cfg(&c);
      const dram_preset *d = c.dev;
      uint64_t seed = 12345 + (uint64_t)dv * 7 + ranks, now = 0;
      unsigned submitted = 0, want = 6000, atoms = 0;
      while (H.ndone < want) {
        if (submitted < want && (lcg(&seed) & 3) != 0) {
          const int w = (lcg(&seed) % 3) == 0;
          const unsigned n = 1 + (unsigned)(lcg(&seed) % 4);
          mc_addr a[4];
          const uint32_t rk = (uint32_t)(lcg(&seed) % ranks), bg = (uint32_t)(lcg(&seed) % d->bankgroups),
                         ba = (uint32_t)(lcg(&seed) % d->banks_per_group);
          const uint64_t row = lcg(&seed) % 8;
          for (unsigned k = 0; k < n; ++k) a[k] = (mc_addr){rk, bg, ba, (uint32_t)k, row, 0};
          if (mc_submit(&H.m, now, w, a, n, submitted) == 0) submitted++, atoms += n;
        }
        const uint64_t nx = mc_next_event(&H.m);
        assert_true(nx >= now);
        now = (lcg(&seed) & 1) ? nx : now + 1 + lcg(&seed) % 5;
        if (nx != MC_NEVER && nx < now) now = nx; /* never skip an event */
        mc_advance(&H.m, now);
        assert_true(now < 10000000);
      }
      assert_int_equal(H.ndone, want);
      assert_true(H.nlog < MAXLOG);
      check_log(d, ranks);
      /* each user completed exactly once */
      static unsigned char seen[8000];
      memset(seen, 0, sizeof seen);
      for (unsigned i = 0; i < H.ndone; ++i) {
        assert_false(seen[H.done_user[i]]);
        seen[H.done_user[i]] = 1;
      }
      const mc_stats *s = mc_get_stats(&H.m, now);
      assert_int_equal(s->reads + s->writes, want);
      assert_int_equal(s->rd_atoms + s->wr_atoms, atoms);
      assert_int_equal(s->row_hits + s->row_misses + s->row_conflicts, atoms);
      assert_true(s->refs >= now / d->t.REFI - 1);
      assert_true(mc_idle(&H.m));
      teardown(NULL);
    }
  }
}

/* Streaming reads laid out as the baseline address map does
 * ("off:32 col:4 ch:8 bg:4 col:16 ba:4 row"): >= 90 % data-bus utilisation
 * including refresh; also reports the engine's host speed. */
static void streaming_bandwidth(void **state) {
  (void)state;
  setup("hbm2", 1);
  const unsigned lines = 16384; /* 2 MiB per channel */
  unsigned next = 0;
  uint64_t now = 0, first = MC_NEVER;
  const clock_t c0 = clock();
  while (H.ndone < lines) {
    while (next < lines) {
      const unsigned k = next;
      mc_addr a[4];
      for (unsigned s = 0; s < 4; ++s)
        a[s] = (mc_addr){0, k % 4, (k / 64) % 4, ((k / 4) % 16) * 4 + s, k / 256, 0};
      if (mc_submit(&H.m, now, 0, a, 4, k) != 0) break;
      next++;
    }
    now = mc_next_event(&H.m);
    mc_advance(&H.m, now);
    if (first == MC_NEVER && H.nlog) first = H.log[0].cycle;
  }
  const double host = (double)(clock() - c0) / CLOCKS_PER_SEC;
  const mc_stats *s = mc_get_stats(&H.m, now);
  const double util = (double)s->bus_busy / (double)(now - first);
  printf("  streaming reads: %u atoms in %llu cycles, bus utilisation %.1f%%, row hit rate %.1f%%, %.2f M atoms/host s\n",
         lines * 4, (unsigned long long)(now - first), util * 100, 100.0 * (double)s->row_hits / (double)s->rd_atoms,
         lines * 4 / host / 1e6);
  assert_true(util >= 0.90);
  assert_true(s->refs > 0);
  check_log(H.m.cfg.dev, 1);
}

/* GDDR5 preset: closed-bank read = tRCD + CL + tBURST = 12 + 12 + 2. */
static void gddr5_latency(void **state) {
  (void)state;
  setup("gddr5_gtx480", 0);
  submit1(50, 0, A(3, 1, 2, 0), 1);
  submit1(50, 0, A(3, 1, 2, 1), 2);
  run_until(1000);
  assert_int_equal(done_cycle_of(1), 50 + 26);
  assert_int_equal(done_cycle_of(2), 50 + 26 + 3); /* tCCD_L 3 */
}

/* Closed page: the row is precharged as soon as legal when nothing else
 * wants it, so a later access to another row skips the PRE. */
static void closed_page(void **state) {
  (void)state;
  mc_cfg c = base_cfg("hbm2", 0);
  c.open_page = 0;
  setup_cfg(&c);
  submit1(100, 0, A(0, 0, 0, 0), 1);
  submit1(100, 0, A(0, 0, 0, 1), 2);
  run_until(1000);
  logent e;
  assert_true(find_cmd(MC_CMD_PRE, 0, &e));
  assert_int_equal(e.cycle, 133); /* after both RDs (114, 116): tRAS binds */
  assert_int_equal(mc_get_stats(&H.m, 1000)->pres, 1);
  submit1(500, 0, A(0, 0, 1, 0), 3);
  run_until(1000);
  assert_int_equal(done_cycle_of(3), 529); /* a miss, not a conflict */
  assert_int_equal(mc_get_stats(&H.m, 1000)->row_conflicts, 0);
}

/* tRRD and tFAW: five activations to different banks. */
static void act_window(void **state) {
  (void)state;
  setup("hbm2", 0);
  for (unsigned i = 0; i < 5; ++i) submit1(0, 0, A(i % 4, i / 4, 0, 0), i);
  run_until(1000);
  logent e;
  const uint64_t want[5] = {0, 8, 16, 24, 40}; /* tRRD_S 8; the fifth waits tFAW 40 */
  for (unsigned i = 0; i < 5; ++i) {
    assert_true(find_cmd(MC_CMD_ACT, i, &e));
    assert_int_equal(e.cycle, want[i]);
  }
  assert_int_equal(done_cycle_of(4), 40 + 29);
}


/* STREAM-like mix on channel 0 of the baseline hbm2 address map (hash on):
 * c = a + b with 8 MiB arrays, reads of a and b as fast as the read queue
 * allows, the write of c 200 lines behind. Bounded by write->read turnarounds
 * and the row switches of each drain; guards the drain policy (the floors are
 * the measured values minus 2 points). */
static double stream_mix(unsigned wq, unsigned high, unsigned low) {
  amap map;
  char err[256];
  assert_int_equal(amap_init(&map, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2, 1, err, sizeof err), 0);
  mc_cfg c = base_cfg("hbm2", 1);
  c.wq_size = wq;
  c.wq_high = high;
  c.wq_low = low;
  setup_cfg(&c);
  static uint64_t lines[8192];
  unsigned n = 0;
  for (uint64_t k = 0; n < 8192; ++k)
    if (amap_channel(&map, k * 128) == 0) lines[n++] = k * 128;
  const uint64_t B = 8u << 20, C = 16u << 20;
  uint64_t now = 0;
  unsigned i = 0, wi = 0, total = 0;
  for (;;) {
    for (;;) {
      mc_addr a[4], b[4];
      if (wi < n && (wi + 200 <= i || i >= n)) {
        for (unsigned s = 0; s < 4; ++s) {
          amap_loc l;
          amap_decode(&map, C + lines[wi] + 32 * s, &l);
          a[s] = (mc_addr){l.ra, l.bg, l.ba, l.col, l.row, 0};
        }
        if (mc_submit(&H.m, now, 1, a, 4, total) == 0) {
          wi++, total++;
          continue;
        }
      }
      if (i < n && mc_can_accept(&H.m, 0, 8)) {
        for (unsigned s = 0; s < 4; ++s) {
          amap_loc l;
          amap_decode(&map, lines[i] + 32 * s, &l);
          a[s] = (mc_addr){l.ra, l.bg, l.ba, l.col, l.row, 0};
          amap_decode(&map, B + lines[i] + 32 * s, &l);
          b[s] = (mc_addr){l.ra, l.bg, l.ba, l.col, l.row, 0};
        }
        assert_int_equal(mc_submit(&H.m, now, 0, a, 4, total++), 0);
        assert_int_equal(mc_submit(&H.m, now, 0, b, 4, total++), 0);
        i++;
        continue;
      }
      break;
    }
    if (i >= n && wi >= n && H.ndone == total) break;
    now = mc_next_event(&H.m);
    assert_true(now != MC_NEVER);
    mc_advance(&H.m, now);
  }
  const mc_stats *s = mc_get_stats(&H.m, now);
  assert_int_equal(s->rd_atoms, 8 * n);
  assert_int_equal(s->wr_atoms, 4 * n);
  check_log(c.dev, 1);
  const double util = (double)s->bus_busy / (double)now;
  printf("  stream mix, write queue %u (%u/%u): bus utilisation %.1f%%, %llu drains\n", wq, high, low, 100 * util,
         (unsigned long long)s->write_drains);
  mc_free(&H.m);
  return util;
}

static void mixed_stream_bandwidth(void **state) {
  (void)state;
  assert_true(stream_mix(64, 48, 16) >= 0.68);
  assert_true(stream_mix(128, 112, 16) >= 0.78);
}

/* The row outcome of each parent (mc.done_row in the done callback): a read
 * of an idle bank is a miss, of the open row a hit, of another row of an
 * open bank a conflict; a line whose first sector opens the row is a miss
 * (its worst column access). */
static void row_outcome(void **state) {
  (void)state;
  setup("hbm2", 0);
  mc_set_row_track(&H.m, 1);
  const mc_addr line[4] = {A(0, 0, 5, 0), A(0, 0, 5, 1), A(0, 0, 5, 2), A(0, 0, 5, 3)};
  assert_int_equal(mc_submit(&H.m, 0, 0, line, 4, 1), 0);
  run_until(100);
  submit1(100, 0, A(0, 0, 5, 8), 2);
  run_until(200);
  submit1(200, 0, A(0, 0, 6, 0), 3);
  run_until(400);
  assert_int_equal(H.ndone, 3);
  assert_int_equal(done_row_of(1), MC_ROW_MISS);
  assert_int_equal(done_row_of(2), MC_ROW_HIT);
  assert_int_equal(done_row_of(3), MC_ROW_CONFLICT);
  /* the hand-computed times: miss 0 + tRCD 14 + 3 x tCCD_L 2 + CL 14 + 1; hit 100 + 15; conflict 200 + tRP 14
   * + tRCD 14 + 15 */
  assert_int_equal(done_cycle_of(1), 35);
  assert_int_equal(done_cycle_of(2), 115);
  assert_int_equal(done_cycle_of(3), 243);
}

/* mc_cfg.demand_first: a background read queued first in one bank and a
 * demand read queued after it in another bank of another bank group, both
 * needing an ACT: in arrival order the background ACT goes first (the demand
 * ACT tRRD_S = 8 later); with demand first the order turns round. Without
 * demand_first, mc_submit_class is mc_submit. */
static void demand_first(void **state) {
  (void)state;
  for (int prio = 0; prio < 2; ++prio) {
    mc_cfg c = base_cfg("hbm2", 0);
    c.demand_first = prio;
    setup_cfg(&c);
    const mc_addr bg_a = A(0, 0, 5, 0), dm_a = A(1, 0, 5, 0);
    assert_int_equal(mc_submit_class(&H.m, 0, 0, &bg_a, 1, 1, 1), 0);
    assert_int_equal(mc_submit_class(&H.m, 0, 0, &dm_a, 1, 2, 0), 0);
    run_until(200);
    assert_int_equal(H.ndone, 2);
    logent act;
    assert_true(find_cmd(MC_CMD_ACT, 0, &act));
    assert_int_equal(act.bg, prio ? 1 : 0);
    const uint64_t first = prio ? 2 : 1, second = prio ? 1 : 2;
    assert_int_equal(done_cycle_of(first), 29);
    assert_int_equal(done_cycle_of(second), 29 + 8);
    mc_free(&H.m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(presets_valid),
      cmocka_unit_test(init_errors),
      cmocka_unit_test_teardown(closed_bank_read, teardown),
      cmocka_unit_test_teardown(row_hit, teardown),
      cmocka_unit_test_teardown(row_conflict, teardown),
      cmocka_unit_test_teardown(refresh_blocks, teardown),
      cmocka_unit_test_teardown(write_to_read, teardown),
      cmocka_unit_test_teardown(frfcfs_hit_first, teardown),
      cmocka_unit_test_teardown(write_drain, teardown),
      cmocka_unit_test(random_traffic_legal),
      cmocka_unit_test_teardown(streaming_bandwidth, teardown),
      cmocka_unit_test_teardown(gddr5_latency, teardown),
      cmocka_unit_test_teardown(closed_page, teardown),
      cmocka_unit_test_teardown(act_window, teardown),
      cmocka_unit_test(mixed_stream_bandwidth),
      cmocka_unit_test_teardown(row_outcome, teardown),
      cmocka_unit_test(demand_first),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
