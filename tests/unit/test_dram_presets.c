/* Unit tests of the technology presets (models/ref/mem/dram.c) driven through the
 * memory-controller engine (models/ref/mem/mc.c).
 *
 * Every expected cycle is a sum of named timing terms whose values are copied
 * here from the papers (or from the documented Strata derivation), not read
 * from the preset: a wrong number in a preset row fails. Per technology:
 *  - closed-bank read: done at tRCD + CL + tBURST after arrival (one cycle
 *    early is not done);
 *  - row hit: CL + tBURST;
 *  - clean row conflict: PRE at max(tRAS, tRCD + tRTP), ACT tRP later;
 *  - dirty row conflict after a write: PRE at tRCD + CWL + tBURST + tWR (write
 *    recovery), ACT tRP_DIRTY later (NVM array write-back; tRP for DRAM);
 *  - tRRD (ACT -> ACT) and tRRD_PRE (array-writing PRE -> PRE);
 *  - refresh: DRAM rows REF at tREFI and ACT tRFC later; NVM rows never REF;
 *  - runtime throttling (mc_scale_timing, HMS Sec. III-E);
 *  - the engine advanced only at mc_next_event() issues exactly the commands
 *    of one advanced every cycle (the new constraints are in the event time).
 */
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

/* ------------------------------------------------------ paper values */

typedef struct paper {
  const char *name;
  int nvm;
  uint32_t CL, CWL, RCD, RP, RP_DIRTY, RAS, RTP, WR, BURST;
  uint32_t RRD;     /* ACT -> ACT, same bank group (tRRD_L) */
  uint32_t RRD_PRE; /* array-writing PRE spacing (0 = none) */
  uint32_t RFC, REFI;
} paper;

/* RP_DIRTY here is the PRE -> ACT time after a write (tRP for DRAM and for
 * presets that put the array write in tWR). */
static const paper k_paper[] = {
    /* HMS Table I: CL 14 RCD 14 RAS 33 WR 16 RP 14; CWL 8, tRTP 14, tRRD_L 10,
     * tRFC 260, tREFI 3900 Ramulator HBM x 2 ns; BL2 DDR -> tBURST 1 */
    {"hbm2", 0, 14, 8, 14, 14, 14, 33, 14, 16, 1, 10, 0, 260, 3900},
    /* HAC Table I / GPGPU-Sim GTX480: CL 12 WL 4 RCD 12 RP 12 RAS 28 RTPL 2 WR 12 RRD 6; BL8/4 */
    {"gddr5_gtx480", 0, 12, 4, 12, 12, 12, 28, 2, 12, 2, 6, 0, 102, 3604},
    /* FLRB Table II: tRCD 11, tRP 11, tRRDact 5, tRRDpre 5, tRFC 64, tREFI 7.8 us x 400 MHz;
     * JEDEC DDR3-800: CL 6, CWL 5, tRAS 15, tRTP 4, tWR 6; BL8/2 */
    {"ddr3_800", 0, 6, 5, 11, 11, 11, 15, 4, 6, 4, 5, 5, 64, 3120},
    /* JEDEC DDR3-1600K: 11-11-11, CWL 8, tRAS 28, tRTP 6, tWR 12, tRRD 5, tRFC 128, tREFI 6240 */
    {"ddr3_1600", 0, 11, 8, 11, 11, 11, 28, 6, 12, 4, 5, 0, 128, 6240},
    /* GTX480 Hynix timings in ns re-expressed at 1 GHz / 1.25 GHz (rounded up) */
    {"gddr5_1000", 0, 13, 5, 13, 13, 13, 31, 3, 13, 2, 7, 0, 110, 3900},
    {"gddr5_1250", 0, 17, 6, 17, 17, 17, 38, 3, 17, 2, 9, 0, 138, 4875},
    /* FLRB Table II PCM: tRCD 34, tRP 138 (dirty write-back), tRRDact 3, tRRDpre 18;
     * clean tRP = DRAM tRP 11; tRAS = tRCD; interface ddr3_800 */
    {"pcm_flrb", 1, 6, 5, 34, 11, 138, 34, 4, 6, 4, 3, 18, 0, 0},
    /* HAC Table I NVM: tRCD 55, tRP 150, tRRDact 6, tRRDpre 22; clean tRP = DRAM 12; GTX480 interface */
    {"pcm_hac", 1, 12, 4, 55, 12, 150, 55, 2, 12, 2, 6, 22, 0, 0},
    /* Hybrid graphics Sec. 3.1 derivation (dram.c): STT-RAM read = write cycle 147 = 44 / 0.3 */
    {"sttram", 1, 13, 5, 147 - 13, 13, 13, 147 - 13, 3, 13, 2, 7, 0, 0, 0},
    /* RRAM: tRCD 13 + 2 ns, tRAS 31 + 2, write cycle (44/0.5 - 0.6 x 46)/0.4 = 151 -> tRP_DIRTY 151 - 33 */
    {"rram", 1, 13, 5, 13 + 2, 13, 151 - 33, 31 + 2, 3, 13, 2, 7, 0, 0, 0},
    /* HMS Table I SCM (MLC): CL 14 RCD 120 RAS 120 WR 1000 RP 14; footnote 4 SLC 60/60/150, TLC 250/250/2350 */
    {"scm_slc", 1, 14, 8, 60, 14, 14, 60, 14, 150, 1, 10, 0, 0, 0},
    {"scm_mlc", 1, 14, 8, 120, 14, 14, 120, 14, 1000, 1, 10, 0, 0, 0},
    {"scm_tlc", 1, 14, 8, 250, 14, 14, 250, 14, 2350, 1, 10, 0, 0, 0},
    /* HBM2 pseudo-channel: HMS Table I core timings as hbm2; BL4 DDR -> tBURST 2; tRRD_L 3 from
     * Ramulator 2.0's HBM2 2 Gbps preset */
    {"hbm2_pc", 0, 14, 8, 14, 14, 14, 33, 14, 16, 2, 3, 0, 260, 3900},
};
#define NPAPER (sizeof k_paper / sizeof k_paper[0])

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ------------------------------------------------------------ harness */

#define MAXDONE 4096
#define MAXLOG 200000

typedef struct logent {
  uint64_t cycle, row;
  mc_cmd cmd;
  uint32_t rank, bg, bank, col;
} logent;

typedef struct harness {
  mc m;
  uint64_t done_user[MAXDONE], done_cycle[MAXDONE];
  unsigned ndone;
  logent log[MAXLOG];
  unsigned nlog;
} harness;

static harness H, H2; /* large: static */

static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  harness *h = ctx;
  (void)is_write;
  if (h->ndone < MAXDONE) {
    h->done_user[h->ndone] = user;
    h->done_cycle[h->ndone] = cycle;
  }
  h->ndone++;
}

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  harness *h = ctx;
  if (h->nlog < MAXLOG) h->log[h->nlog] = (logent){cycle, row, cmd, rank, bg, bank, col};
  h->nlog++;
}

static void setup_h(harness *h, const char *dev, int refresh, uint32_t qsize) {
  memset(h, 0, sizeof *h);
  mc_cfg c;
  memset(&c, 0, sizeof c);
  c.dev = dram_find(dev);
  if (!c.dev) fail_msg("no preset %s", dev);
  c.ranks = 1;
  c.rq_size = qsize;
  c.wq_size = qsize;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = 1;
  c.refresh = refresh;
  char err[256];
  if (mc_init(&h->m, &c, err, sizeof err) != 0) fail_msg("%s: %s", dev, err);
  mc_set_done(&h->m, on_done, h);
  mc_set_cmd_log(&h->m, on_cmd, h);
}

static void setup(const char *dev, int refresh) { setup_h(&H, dev, refresh, 64); }

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

static uint64_t cmd_cycle(mc_cmd c, unsigned nth) {
  for (unsigned i = 0; i < H.nlog && i < MAXLOG; ++i)
    if (H.log[i].cmd == c && nth-- == 0) return H.log[i].cycle;
  return MC_NEVER;
}

static unsigned count_cmd(mc_cmd c) {
  unsigned n = 0;
  for (unsigned i = 0; i < H.nlog && i < MAXLOG; ++i) n += H.log[i].cmd == c;
  return n;
}

#define EXPECT(p, what, got, want)                                                                      \
  do {                                                                                                  \
    const uint64_t g_ = (got), w_ = (want);                                                             \
    if (g_ != w_) fail_msg("%s: %s = %llu, expected %llu", (p)->name, what, (unsigned long long)g_,     \
                           (unsigned long long)w_);                                                     \
  } while (0)

/* Wait for a read that must complete exactly at `want`: not done at want - 1. */
static void expect_done_at(const paper *p, const char *what, uint64_t user, uint64_t want) {
  run_until(want - 1);
  if (done_cycle_of(user) != MC_NEVER)
    fail_msg("%s: %s done at %llu, before %llu", p->name, what, (unsigned long long)done_cycle_of(user),
             (unsigned long long)want);
  run_until(want);
  EXPECT(p, what, done_cycle_of(user), want);
}

/* -------------------------------------------------------------- tests */

static void table_matches_presets(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(dram_count(), NPAPER);
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    const dram_preset *d = dram_find(p->name);
    if (!d) fail_msg("no preset %s", p->name);
    if (dram_validate(d, err, sizeof err) != 0) fail_msg("%s", err);
    EXPECT(p, "tech", d->tech, p->nvm ? DRAM_TECH_NVM : DRAM_TECH_DRAM);
    /* 32 B (one L2 sector) per column access, except the hybrid DRAM+PCM paper's 64-bit DDR3-800 channel */
    const int x64 = !strcmp(p->name, "ddr3_800") || !strcmp(p->name, "pcm_flrb");
    EXPECT(p, "atom_bytes", d->atom_bytes, x64 ? 64 : 32);
    if (p->nvm) {
      EXPECT(p, "tREFI", d->t.REFI, 0);
      EXPECT(p, "tRFC", d->t.RFC, 0);
      if (!(d->e.pre_dirty_pj > d->e.pre_pj) && strcmp(p->name, "sttram") && strcmp(p->name, "rram"))
        fail_msg("%s: dirty PRE must cost the array write", p->name);
    }
  }
  /* validation of the new fields */
  dram_preset bad = *dram_find("pcm_flrb");
  bad.t.RP_DIRTY = bad.t.RP - 1;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  assert_non_null(strstr(err, "tRP_DIRTY"));
  bad = *dram_find("pcm_flrb");
  bad.t.REFI = 3120;
  bad.t.RFC = 64;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  assert_non_null(strstr(err, "NVM"));

  /* HMS Table I: SCM (MLC) closed-page miss 149 ns = tRP + tRCD + CL + tBURST, row hit 15 ns */
  const dram_preset *s = dram_find("scm_mlc");
  assert_int_equal(s->t.RP + s->t.RCD + s->t.CL + s->t.BURST, 149);
  assert_int_equal(s->t.CL + s->t.BURST, 15);
  /* Hybrid graphics Sec. 3.1 (b) under the documented array-cycle model:
   * PBW ratio = tRC(gddr5_1000) / (0.6 read cycle + 0.4 write cycle). */
  const dram_preset *g = dram_find("gddr5_1000");
  const dram_preset *r = dram_find("rram"), *t = dram_find("sttram");
  const double mr = 0.6 * (r->t.RAS + r->t.RP) + 0.4 * (r->t.RAS + r->t.RP_DIRTY);
  const double mt = 0.6 * (t->t.RAS + t->t.RP) + 0.4 * (t->t.RAS + t->t.RP_DIRTY);
  assert_true(g->t.RC / mr > 0.495 && g->t.RC / mr < 0.505);
  assert_true(g->t.RC / mt > 0.297 && g->t.RC / mt < 0.303);
  /* (a): RRAM read +2 ns; STT-RAM reads slower and writes faster than RRAM */
  assert_int_equal(r->t.RCD, g->t.RCD + 2);
  assert_true(t->t.RCD > r->t.RCD);
  assert_true(t->t.RAS + t->t.RP_DIRTY < r->t.RAS + r->t.RP_DIRTY);
  /* (d): leakage 37 % / 48 % of DRAM */
  assert_true(t->e.bg_mw == g->e.bg_mw * 0.37 && r->e.bg_mw == g->e.bg_mw * 0.48);
  /* A column access must move whole sectors of a line: 16 B (a 16-bit BL8 channel) is refused. */
  bad = *dram_find("ddr3_1600");
  bad.bus_bits = 16;
  bad.atom_bytes = 16;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  assert_non_null(strstr(err, "atom_bytes 16"));

  /* Hybrid DRAM+PCM Table II channel (issue 26): DDR3-800 x8, 64 bits as DRAMSim2's JEDEC_DATA_BUS_BITS --
   * eight x8 devices, BL8 -> 64 B, tBURST 4, 8 KiB rows (8 x 1 KiB pages), tFAW 40 ns; per-command energies
   * and background power of eight devices: twice those of the 32-bit (four-device) DDR3 row ddr3_1600. */
  const dram_preset *d8 = dram_find("ddr3_800"), *d4 = dram_find("ddr3_1600"), *pf = dram_find("pcm_flrb");
  assert_int_equal(d8->bus_bits, 64);
  assert_int_equal(d8->burst_len, 8);
  assert_int_equal(d8->t.BURST, 4);
  assert_int_equal(d8->row_bytes, 8192);
  assert_int_equal(d8->t.FAW, 16);
  assert_true(fabs(d8->e.rd_pj - 2 * d4->e.rd_pj) < 1e-9 && fabs(d8->e.wr_pj - 2 * d4->e.wr_pj) < 1e-9);
  assert_true(fabs(d8->e.act_pj - 2 * d4->e.act_pj) < 1e-9 && fabs(d8->e.pre_pj - 2 * d4->e.pre_pj) < 1e-9);
  assert_true(fabs(d8->e.ref_pj - 2 * d4->e.ref_pj) < 1e-9 && d8->e.bg_mw == 2 * d4->e.bg_mw);
  /* pcm_flrb: the same interface, PCM array energies per 64 B (HMS Table I pJ/bit x 512 bits) */
  assert_int_equal(pf->bus_bits, d8->bus_bits);
  assert_int_equal(pf->atom_bytes, d8->atom_bytes);
  assert_int_equal(pf->row_bytes, d8->row_bytes);
  assert_int_equal(pf->t.BURST, d8->t.BURST);
  assert_true(pf->e.rd_pj == d8->e.rd_pj && pf->e.wr_pj == d8->e.wr_pj && pf->e.pre_pj == d8->e.pre_pj);
  assert_true(fabs(pf->e.act_pj - 2.47 * 512) < 1e-9 && fabs(pf->e.pre_dirty_pj - 16.82 * 512) < 1e-9);
  assert_true(pf->e.bg_mw == d8->e.bg_mw / 2);

  /* peak bandwidths */
  assert_true(dram_peak_bytes_per_s(dram_find("ddr3_800")) == 6.4e9);
  assert_true(dram_peak_bytes_per_s(dram_find("pcm_flrb")) == 6.4e9);
  assert_true(dram_peak_bytes_per_s(dram_find("ddr3_1600")) == 6.4e9);
  assert_true(dram_peak_bytes_per_s(dram_find("gddr5_1250")) == 20e9);
}

/* Closed-bank read, then a row hit. */
static void read_miss_then_hit(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    setup(p->name, 0);
    submit1(0, 0, A(0, 0, 7, 0), 1);
    const uint64_t d1 = p->RCD + p->CL + p->BURST;
    expect_done_at(p, "closed-bank read", 1, d1);
    EXPECT(p, "ACT", cmd_cycle(MC_CMD_ACT, 0), 0);
    EXPECT(p, "RD", cmd_cycle(MC_CMD_RD, 0), p->RCD);
    submit1(d1, 0, A(0, 0, 7, 1), 2);
    expect_done_at(p, "row-hit read", 2, d1 + p->CL + p->BURST);
    const mc_stats *st = mc_get_stats(&H.m, d1 + p->CL + p->BURST);
    EXPECT(p, "row_hits", st->row_hits, 1);
    EXPECT(p, "row_misses", st->row_misses, 1);
    mc_free(&H.m);
  }
}

/* Two reads to different rows of one bank: the second waits for a clean PRE. */
static void clean_conflict(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    setup(p->name, 0);
    submit1(0, 0, A(0, 0, 1, 0), 1);
    submit1(0, 0, A(0, 0, 2, 0), 2);
    const uint64_t pre = max_u64(p->RAS, p->RCD + p->RTP);
    const uint64_t act2 = pre + p->RP;
    expect_done_at(p, "read after clean conflict", 2, act2 + p->RCD + p->CL + p->BURST);
    EXPECT(p, "PRE", cmd_cycle(MC_CMD_PRE, 0), pre);
    EXPECT(p, "second ACT", cmd_cycle(MC_CMD_ACT, 1), act2);
    EXPECT(p, "dirty PREs", mc_get_stats(&H.m, act2)->pres_dirty, 0);
    mc_free(&H.m);
  }
}

/* A write opens row 1; a read of row 2 arrives when the write is done: PRE
 * after write recovery, ACT after the dirty-precharge time. */
static void dirty_conflict_write_recovery(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    setup(p->name, 0);
    submit1(0, 1, A(0, 0, 1, 0), 1);
    const uint64_t data_end = p->RCD + p->CWL + p->BURST;
    run_until(data_end);
    EXPECT(p, "WR", cmd_cycle(MC_CMD_WR, 0), p->RCD);
    EXPECT(p, "write done", done_cycle_of(1), data_end);
    submit1(data_end, 0, A(0, 0, 2, 0), 2);
    const uint64_t pre = max_u64(p->RAS, data_end + p->WR); /* write recovery */
    const uint64_t act2 = pre + p->RP_DIRTY;                 /* array write-back (NVM) */
    expect_done_at(p, "read after dirty conflict", 2, act2 + p->RCD + p->CL + p->BURST);
    EXPECT(p, "PRE (write recovery)", cmd_cycle(MC_CMD_PRE, 0), pre);
    EXPECT(p, "ACT after dirty PRE", cmd_cycle(MC_CMD_ACT, 1), act2);
    const mc_stats *st = mc_get_stats(&H.m, act2);
    EXPECT(p, "dirty PREs", st->pres_dirty, 1);
    EXPECT(p, "row conflicts", st->row_conflicts, 1);
    mc_free(&H.m);
  }
}

/* ACT -> ACT in one bank group: tRRD_L (the papers' tRRDact). */
static void act_spacing(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    setup(p->name, 0);
    submit1(0, 0, A(0, 0, 1, 0), 1);
    submit1(0, 0, A(0, 1, 1, 0), 2);
    run_until(1000);
    EXPECT(p, "first ACT", cmd_cycle(MC_CMD_ACT, 0), 0);
    EXPECT(p, "second ACT (tRRD)", cmd_cycle(MC_CMD_ACT, 1), p->RRD);
    mc_free(&H.m);
  }
}

/* Two banks with open rows (written or only read) precharged at the same
 * cycle: the second PRE waits tRRD_PRE when both write the array (every DRAM
 * PRE, dirty NVM PREs), else one command slot. */
static void pre_spacing_case(const paper *p, int dirty) {
  setup(p->name, 0);
  submit1(0, dirty, A(0, 0, 1, 0), 1);
  submit1(0, dirty, A(0, 1, 1, 0), 2);
  run_until(4000);
  assert_int_equal(H.ndone, 2);
  const uint64_t t0 = 5000; /* past every write recovery (scm_tlc: 2350) */
  submit1(t0, 0, A(0, 0, 2, 0), 3);
  submit1(t0, 0, A(0, 1, 2, 0), 4);
  run_until(t0 + 2000);
  const int writes_array = dirty || !p->nvm;
  const uint64_t gap = writes_array && p->RRD_PRE > 1 ? p->RRD_PRE : 1;
  EXPECT(p, dirty ? "first dirty PRE" : "first clean PRE", cmd_cycle(MC_CMD_PRE, 0), t0);
  EXPECT(p, dirty ? "second dirty PRE (tRRD_PRE)" : "second clean PRE", cmd_cycle(MC_CMD_PRE, 1), t0 + gap);
  EXPECT(p, "ACT after the first PRE", cmd_cycle(MC_CMD_ACT, 2), t0 + (dirty ? p->RP_DIRTY : p->RP));
  mc_free(&H.m);
}

static void pre_spacing(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    pre_spacing_case(&k_paper[i], 0);
    pre_spacing_case(&k_paper[i], 1);
  }
}

/* DRAM rows: REF at tREFI, a read arriving then waits tRFC. NVM rows: no REF
 * ever, and an empty engine has no next event. */
static void refresh_dram_only(void **state) {
  (void)state;
  for (size_t i = 0; i < NPAPER; ++i) {
    const paper *p = &k_paper[i];
    setup(p->name, 1);
    if (!p->nvm) {
      run_until(p->REFI - 1);
      submit1(p->REFI, 0, A(0, 0, 3, 0), 1);
      expect_done_at(p, "read behind REF", 1, p->REFI + p->RFC + p->RCD + p->CL + p->BURST);
      EXPECT(p, "REF", cmd_cycle(MC_CMD_REF, 0), p->REFI);
      EXPECT(p, "ACT after REF (tRFC)", cmd_cycle(MC_CMD_ACT, 0), p->REFI + p->RFC);
    } else {
      assert_true(mc_next_event(&H.m) == MC_NEVER);
      /* traffic spread over many would-be refresh intervals, reads and writes */
      for (unsigned k = 0; k < 40; ++k) {
        const uint64_t at = (uint64_t)k * 2500;
        run_until(at);
        const uint32_t bg = (k & 2) && dram_find(p->name)->bankgroups > 1 ? 1 : 0;
        submit1(at, (int)(k & 1), A(bg, k % 3 % 2, k % 5, k % 8), 100 + k);
      }
      run_until(200000);
      EXPECT(p, "completions", H.ndone, 40);
      EXPECT(p, "REF commands", count_cmd(MC_CMD_REF), 0);
      EXPECT(p, "refs", mc_get_stats(&H.m, 200000)->refs, 0);
      assert_true(mc_next_event(&H.m) == MC_NEVER);
    }
    mc_free(&H.m);
  }
}

/* HMS Sec. III-E: throttling doubles tRCD and/or tWR for later commands; (1,1)
 * restores the preset. */
static void throttling(void **state) {
  (void)state;
  const paper *p = NULL;
  for (size_t i = 0; i < NPAPER; ++i)
    if (!strcmp(k_paper[i].name, "scm_mlc")) p = &k_paper[i];
  setup("scm_mlc", 0);
  assert_int_equal(mc_scale_timing(&H.m, 0, 1), -1);
  assert_int_equal(mc_scale_timing(&H.m, 1, 0), -1);
  assert_int_equal(mc_scale_timing(&H.m, 2, 2), 0);
  submit1(0, 0, A(0, 0, 1, 0), 1);
  expect_done_at(p, "throttled read", 1, 2 * p->RCD + p->CL + p->BURST);
  /* a write to the open row, then a conflicting read: PRE after 2 x tWR */
  const uint64_t tw = 1000;
  run_until(tw);
  submit1(tw, 1, A(0, 0, 1, 1), 2);
  run_until(tw + 100);
  const uint64_t wr = cmd_cycle(MC_CMD_WR, 0);
  EXPECT(p, "WR (row hit)", wr, tw);
  submit1(tw + 100, 0, A(0, 0, 2, 0), 3);
  const uint64_t pre = wr + p->CWL + p->BURST + 2 * p->WR;
  expect_done_at(p, "read after throttled write recovery", 3, pre + p->RP + 2 * p->RCD + p->CL + p->BURST);
  EXPECT(p, "PRE (2 x tWR)", cmd_cycle(MC_CMD_PRE, 0), pre);
  /* restored: another bank opens with the preset's tRCD */
  const uint64_t t1 = pre + 1000;
  run_until(t1);
  assert_int_equal(mc_scale_timing(&H.m, 1, 1), 0);
  submit1(t1, 0, A(1, 0, 5, 0), 4);
  expect_done_at(p, "read after un-throttling", 4, t1 + p->RCD + p->CL + p->BURST);
  mc_free(&H.m);

  /* PCM keeps its array write in tRP_DIRTY: wr_mult scales it */
  for (size_t i = 0; i < NPAPER; ++i)
    if (!strcmp(k_paper[i].name, "pcm_flrb")) p = &k_paper[i];
  setup("pcm_flrb", 0);
  assert_int_equal(mc_scale_timing(&H.m, 1, 2), 0);
  submit1(0, 1, A(0, 0, 1, 0), 1);
  const uint64_t data_end = p->RCD + p->CWL + p->BURST;
  run_until(data_end);
  submit1(data_end, 0, A(0, 0, 2, 0), 2);
  const uint64_t pre2 = data_end + 2 * p->WR;
  expect_done_at(p, "read after throttled dirty PRE", 2, pre2 + 2 * p->RP_DIRTY + p->RCD + p->CL + p->BURST);
  EXPECT(p, "ACT after 2 x tRP_DIRTY", cmd_cycle(MC_CMD_ACT, 1), pre2 + 2 * p->RP_DIRTY);
  mc_free(&H.m);
}

/* ------------------------------------------- event-driven == per-cycle */

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

#define NREQ 600
typedef struct req {
  uint64_t at;
  mc_addr a;
  int w;
} req;
static req R[NREQ];

static void drive(harness *h, int every_cycle, uint64_t end) {
  unsigned i = 0;
  if (every_cycle) {
    for (uint64_t c = 0; c <= end; ++c) {
      for (; i < NREQ && R[i].at <= c; ++i) assert_int_equal(mc_submit(&h->m, c, R[i].w, &R[i].a, 1, i), 0);
      mc_advance(&h->m, c);
    }
    return;
  }
  for (;;) {
    uint64_t t = mc_next_event(&h->m);
    if (i < NREQ && R[i].at < t) t = R[i].at;
    if (t == MC_NEVER || t > end) break;
    for (; i < NREQ && R[i].at <= t; ++i) assert_int_equal(mc_submit(&h->m, t, R[i].w, &R[i].a, 1, i), 0);
    mc_advance(&h->m, t);
  }
}

static void event_driven_matches_every_cycle(void **state) {
  (void)state;
  for (size_t pi = 0; pi < NPAPER; ++pi) {
    const paper *p = &k_paper[pi];
    const dram_preset *d = dram_find(p->name);
    uint64_t s = 12345 + pi, at = 0;
    for (unsigned i = 0; i < NREQ; ++i) {
      at += lcg(&s) % 40;
      R[i].at = at;
      R[i].w = lcg(&s) % 10 < 4; /* 40 % writes */
      R[i].a = A((uint32_t)(lcg(&s) % d->bankgroups), (uint32_t)(lcg(&s) % 2), lcg(&s) % 3, (uint32_t)(lcg(&s) % 8));
    }
    const uint64_t end = at + 60000;
    setup_h(&H, p->name, 1, NREQ);
    setup_h(&H2, p->name, 1, NREQ);
    drive(&H, 0, end);
    drive(&H2, 1, end);
    EXPECT(p, "completions (event-driven)", H.ndone, NREQ);
    EXPECT(p, "command count", H.nlog, H2.nlog);
    assert_true(H.nlog < MAXLOG);
    for (unsigned k = 0; k < H.nlog; ++k)
      if (memcmp(&H.log[k], &H2.log[k], sizeof H.log[k]) != 0)
        fail_msg("%s: command %u differs: %s at %llu vs %s at %llu", p->name, k, mc_cmd_name(H.log[k].cmd),
                 (unsigned long long)H.log[k].cycle, mc_cmd_name(H2.log[k].cmd),
                 (unsigned long long)H2.log[k].cycle);
    if (p->nvm) EXPECT(p, "REF on NVM", count_cmd(MC_CMD_REF), 0);
    if (p->RRD_PRE || p->RP_DIRTY != p->RP)
      assert_true(mc_get_stats(&H.m, end)->pres_dirty > 0); /* the new constraints were exercised */
    mc_free(&H.m);
    mc_free(&H2.m);
  }
}

/* Technology ids (dram.h tech_id): every preset names its technology, the one its source describes,
 * inside its memory kind; names round-trip; a preset without one, or with one of another kind, is
 * refused. */
static void technology_ids(void **state) {
  (void)state;
  static const struct {
    const char *preset, *tech;
  } want[] = {
      {"hbm2", "hbm2"},           {"hbm2_pc", "hbm2"},         {"gddr5_gtx480", "gddr5"},
      {"gddr5_1000", "gddr5"},    {"gddr5_1250", "gddr5"},     {"ddr3_800", "ddr3"},
      {"ddr3_1600", "ddr3"},      {"pcm_flrb", "pcm"},         {"pcm_hac", "pcm"},
      {"sttram", "sttram"},       {"rram", "rram"},            {"scm_slc", "scm_slc"},
      {"scm_mlc", "scm_mlc"},     {"scm_tlc", "scm_tlc"},
  };
  const size_t n = sizeof want / sizeof want[0];
  assert_int_equal(dram_count(), n); /* a new preset is added here with its technology */
  for (size_t i = 0; i < n; ++i) {
    const dram_preset *p = dram_find(want[i].preset);
    assert_non_null(p);
    if (strcmp(dram_tech_id_name(p->tech_id), want[i].tech) != 0)
      fail_msg("%s: technology %s, expected %s", p->name, dram_tech_id_name(p->tech_id), want[i].tech);
    assert_int_equal(dram_tech_id_find(want[i].tech), p->tech_id);
  }
  /* STT-RAM and RRAM are both NVM but two technologies; the SCM modes three */
  assert_int_equal(dram_mem_kind(dram_find("sttram")), dram_mem_kind(dram_find("rram")));
  assert_int_not_equal(dram_find("sttram")->tech_id, dram_find("rram")->tech_id);
  assert_int_not_equal(dram_find("scm_slc")->tech_id, dram_find("scm_tlc")->tech_id);
  assert_int_equal(dram_tech_id_find("nvm"), DRAM_TID_NONE);
  assert_string_equal(dram_tech_id_name(DRAM_TID_NONE), "?");
  assert_string_equal(dram_tech_id_name(DRAM_TID_COUNT), "?");
  char err[160];
  dram_preset bad = *dram_find("hbm2");
  bad.tech_id = DRAM_TID_NONE;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  assert_non_null(strstr(err, "technology"));
  bad.tech_id = DRAM_TID_PCM; /* a DRAM row cannot be PCM */
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  bad = *dram_find("pcm_flrb");
  bad.tech_id = DRAM_TID_SCM_MLC; /* an NVM row without the scm flag is not SCM */
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  bad = *dram_find("scm_mlc");
  bad.tech_id = DRAM_TID_RRAM;
  assert_int_equal(dram_validate(&bad, err, sizeof err), -1);
  bad.tech_id = DRAM_TID_SCM_TLC;
  assert_int_equal(dram_validate(&bad, err, sizeof err), 0);
}

/* Ranks of one channel share its interface and geometry (dram_same_interface); channels of one address
 * map share the geometry only (dram_same_geometry): the hybrid graphics memory's 1.25 GHz GDDR5 channel
 * and its 1 GHz NVM bus are two interfaces of one geometry, STT-RAM and RRAM one interface. Each check
 * names the first differing field. */
static void interface_and_geometry(void **state) {
  (void)state;
  const dram_preset *g1250 = dram_find("gddr5_1250"), *g1000 = dram_find("gddr5_1000");
  const dram_preset *stt = dram_find("sttram"), *rram = dram_find("rram"), *ddr3 = dram_find("ddr3_1600");
  const dram_preset *hbm2 = dram_find("hbm2"), *scm = dram_find("scm_mlc");
  char err[160];
  assert_int_equal(dram_same_interface(stt, rram, err, sizeof err), 1);
  assert_int_equal(dram_same_interface(g1000, stt, err, sizeof err), 1);
  assert_int_equal(dram_same_interface(hbm2, scm, err, sizeof err), 1); /* HMS Sec. III-A */
  assert_int_equal(dram_same_interface(g1250, rram, err, sizeof err), 0);
  assert_string_equal(err, "gddr5_1250: clk_mhz 1250, rram: clk_mhz 1000");
  assert_int_equal(dram_same_geometry(g1250, rram, err, sizeof err), 1);
  assert_int_equal(dram_same_geometry(g1250, hbm2, err, sizeof err), 1);
  assert_int_equal(dram_same_interface(g1250, hbm2, err, sizeof err), 0);
  assert_int_equal(dram_same_geometry(hbm2, ddr3, err, sizeof err), 0);
  assert_string_equal(err, "hbm2: bankgroups 4, ddr3_1600: bankgroups 1");
  assert_int_equal(dram_same_interface(hbm2, ddr3, NULL, 0), 0); /* no message buffer */
  dram_preset wide = *rram;
  wide.row_bytes = 4096; /* another row size: same interface fields, another geometry */
  assert_int_equal(dram_same_geometry(rram, &wide, err, sizeof err), 0);
  assert_string_equal(err, "rram: row_bytes 2048, rram: row_bytes 4096");
  assert_int_equal(dram_same_interface(rram, &wide, err, sizeof err), 0);
  assert_string_equal(err, "rram: row_bytes 2048, rram: row_bytes 4096");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_matches_presets),
      cmocka_unit_test(read_miss_then_hit),
      cmocka_unit_test(clean_conflict),
      cmocka_unit_test(dirty_conflict_write_recovery),
      cmocka_unit_test(act_spacing),
      cmocka_unit_test(pre_spacing),
      cmocka_unit_test(refresh_dram_only),
      cmocka_unit_test(throttling),
      cmocka_unit_test(event_driven_matches_every_cycle),
      cmocka_unit_test(technology_ids),
      cmocka_unit_test(interface_and_geometry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
