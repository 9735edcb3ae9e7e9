/* Unit tests of the command timing checker (models/ref/mem/tcheck.c).
 *
 *  1. Directed sequences, one per rule: the last command is placed exactly at
 *     the limit (must pass) and one cycle too early (must fail with exactly
 *     that rule and exactly one violation). Spacings are written from the
 *     preset's numbers, and every preset of the table is run after a
 *     "spread" that makes each rule separable from the others (e.g. tRRD_L >
 *     tRRD_S, tRC > tRAS + tRP), so each one-cycle-early case breaks one rule
 *     only.
 *  2. State rules (ACT to an open bank, column command to a closed bank or to
 *     another row, REF with open banks, REF without refresh, idle PRE = no-op),
 *     command order, address range, refresh interval, timing replacement.
 *  3. The checker attached to the mc engine (mc_set_cmd_log) on seeded random
 *     traffic for every preset, 1-3 ranks, open and closed page: no violation,
 *     and its command counts equal the engine's.
 *  4. The key test: the engine runs on a deliberately broken copy of a preset
 *     (one parameter shrunk), the checker on the true preset: every case must
 *     be caught, with the rule of the broken parameter.
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

static tcheck C;

static void tc_init(const dram_preset *d, unsigned ranks) {
  char err[256];
  if (tcheck_init(&C, d, ranks, err, sizeof err) != 0) fail_msg("tcheck_init: %s", err);
}

static void X(uint64_t cyc, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row) {
  tcheck_cmd(&C, cyc, cmd, rank, bg, bank, row, 0);
}
#define ACT(t, r, g, b, row) X((uint64_t)(t), MC_CMD_ACT, r, g, b, row)
#define PRE(t, r, g, b) X((uint64_t)(t), MC_CMD_PRE, r, g, b, 0)
#define RD(t, r, g, b, row) X((uint64_t)(t), MC_CMD_RD, r, g, b, row)
#define WR(t, r, g, b, row) X((uint64_t)(t), MC_CMD_WR, r, g, b, row)
#define REF(t, r) X((uint64_t)(t), MC_CMD_REF, r, 0, 0, 0)

static uint32_t umax(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* Geometry of the preset under test; FB/FG map a flat bank index of a rank
 * to (bank group, bank). */
static uint32_t NBG = 4, NBPG = 4;
#define FG(k) ((uint32_t)(k) / NBPG)
#define FB(k) ((uint32_t)(k) % NBPG)

/* A copy of preset p whose rules can each be violated alone (see the file
 * comment). Still a valid preset (dram_validate). */
static dram_preset spread(const dram_preset *p) {
  dram_preset d = *p;
  dram_timing *t = &d.t;
  t->RCD = umax(t->RCD, 2);
  t->RTP = umax(t->RTP, 2);
  t->RRD_S = umax(t->RRD_S, 2);
  t->RRD_L = umax(t->RRD_L, t->RRD_S + 1);
  t->CCD_S = umax(t->CCD_S, t->BURST + 1);
  t->CCD_L = umax(t->CCD_L, t->CCD_S + 1);
  t->WTR_L = umax(t->WTR_L, t->WTR_S + 1);
  t->RTW = umax(t->RTW, umax(2, t->CL + t->BURST + 1 > t->CWL ? t->CL + t->BURST + 1 - t->CWL : 0));
  t->FAW = umax(t->FAW, 4 * t->RRD_L + 2);
  t->RAS = umax(t->RAS, t->RCD + 2);
  if (t->RCD + t->CWL + t->BURST + t->WR < t->RAS + 1) t->WR = t->RAS + 1 - t->RCD - t->CWL - t->BURST;
  t->RC = t->RAS + t->RP + 5;
  t->RP_DIRTY = umax(t->RP_DIRTY, t->RP + 3);
  t->RRD_PRE = umax(t->RRD_PRE, 3);
  char err[256];
  if (dram_validate(&d, err, sizeof err) != 0) fail_msg("spread(%s): %s", p->name, err);
  return d;
}

/* ------------------------------------------------ directed rule sequences */

/* Each scenario issues a legal prefix and then one command at limit + dl
 * (dl = 0: exactly at the limit, dl = -1: one cycle early). */
typedef struct scen {
  const char *name;
  tcheck_rule rule;
  unsigned ranks;
  void (*run)(const dram_timing *t, int dual, int64_t dl);
  int needs; /* NEED_* below: skipped on presets without it */
} scen;
/* refresh (not NVM), >= 2 bank groups, >= 2 banks per group; NO_RTRS: run on a copy with tRTRS 0 (isolates the
 * plain data-bus rule) */
enum { NEED_REF = 1, NEED_2BG = 2, NEED_2BPG = 4, NO_RTRS = 8, NEED_WR_RD_GAP = 16 };
/* NEED_WR_RD_GAP: a read issued right after a write may reach the bus before that write's burst ends plus
 * tRTRS (CWL + tBURST + tRTRS > CL + 1); not on devices whose CL is long enough to hide it */

static void s_rcd(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  RD(t->RCD + dl, 0, 0, 0, 1);
}
static void s_rcd_wr(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  WR(t->RCD + dl, 0, 0, 0, 1);
}
static void s_ras(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  PRE(t->RAS + dl, 0, 0, 0);
}
static void s_rp(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  const int64_t p = t->RC - t->RP + 1; /* late enough that tRC holds one cycle early */
  ACT(0, 0, 0, 0, 1);
  PRE(p, 0, 0, 0);
  ACT(p + t->RP + dl, 0, 0, 0, 2);
}
static void s_rc(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  PRE(t->RAS, 0, 0, 0);
  ACT(t->RC + dl, 0, 0, 0, 2);
}
static void s_rrd_l(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_L + dl, 0, 0, 1, 1);
}
static void s_rrd_s(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_S + dl, 0, 1, 0, 1);
}
static void s_faw(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  for (uint32_t i = 0; i < 4; ++i) ACT(i * t->RRD_L, 0, FG(i), FB(i), 1); /* four banks, tRRD_L apart */
  ACT(t->FAW + dl, 0, FG(4), FB(4), 1);
}
static void s_ccd_l(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_L, 0, 0, 1, 1);
  const int64_t c = t->RRD_L + t->RCD;
  RD(c, 0, 0, 0, 1);
  RD(c + t->CCD_L + dl, 0, 0, 1, 1);
}
static void s_ccd_l_wr(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_L, 0, 0, 1, 1);
  const int64_t c = t->RRD_L + t->RCD;
  WR(c, 0, 0, 0, 1);
  WR(c + t->CCD_L + dl, 0, 0, 1, 1);
}
static void s_ccd_s(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_S, 0, 1, 0, 1);
  const int64_t c = t->RRD_S + t->RCD;
  RD(c, 0, 0, 0, 1);
  RD(c + t->CCD_S + dl, 0, 1, 0, 1);
}
static void s_ccd_s_wr(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_S, 0, 1, 0, 1);
  const int64_t c = t->RRD_S + t->RCD;
  WR(c, 0, 0, 0, 1);
  WR(c + t->CCD_S + dl, 0, 1, 0, 1);
}
static void s_wtr_l(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_L, 0, 0, 1, 1);
  const int64_t c = t->RRD_L + t->RCD;
  WR(c, 0, 0, 0, 1);
  RD(c + t->CWL + t->BURST + t->WTR_L + dl, 0, 0, 1, 1);
}
static void s_wtr_s(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_S, 0, 1, 0, 1);
  const int64_t c = t->RRD_S + t->RCD;
  WR(c, 0, 0, 0, 1);
  RD(c + t->CWL + t->BURST + t->WTR_S + dl, 0, 1, 0, 1);
}
static void s_rtw(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  RD(t->RCD, 0, 0, 0, 1);
  WR(t->RCD + t->RTW + dl, 0, 0, 0, 1);
}
static void s_rtp(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  RD(t->RAS, 0, 0, 0, 1);
  PRE(t->RAS + t->RTP + dl, 0, 0, 0);
}
static void s_wr(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  WR(t->RCD, 0, 0, 0, 1);
  PRE(t->RCD + t->CWL + t->BURST + t->WR + dl, 0, 0, 0);
}
static void s_rfc_act(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  REF(10, 0);
  ACT(10 + t->RFC + dl, 0, 0, 0, 1);
}
static void s_rfc_ref(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  REF(10, 0);
  REF(10 + t->RFC + dl, 0);
}
static void s_rp_ref(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  const int64_t p = t->RC - t->RP + 1;
  ACT(0, 0, 0, 0, 1);
  PRE(p, 0, 0, 0);
  REF(p + t->RP + dl, 0);
}
static void s_rc_ref(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  PRE(t->RAS, 0, 0, 0);
  REF(t->RC + dl, 0);
}
/* A written row buffer is precharged: the next ACT / REF waits tRP_DIRTY. */
static int64_t dirty_pre(const dram_timing *t) {
  ACT(0, 0, 0, 0, 1);
  WR(t->RCD, 0, 0, 0, 1);
  int64_t p = t->RCD + t->CWL + t->BURST + t->WR;
  if (p < t->RC) p = t->RC;
  PRE(p, 0, 0, 0);
  return p;
}
static void s_rp_dirty(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(dirty_pre(t) + t->RP_DIRTY + dl, 0, 0, 0, 2);
}
static void s_rp_dirty_ref(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  REF(dirty_pre(t) + t->RP_DIRTY + dl, 0);
}
/* Two precharges of written row buffers (array writes on DRAM and NVM). */
static void s_rrd_pre(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(t->RRD_L, 0, FG(1), FB(1), 1);
  const int64_t w0 = t->RRD_L + t->RCD, w1 = w0 + t->CCD_L;
  WR(w0, 0, 0, 0, 1);
  WR(w1, 0, FG(1), FB(1), 1);
  int64_t p = w1 + t->CWL + t->BURST + t->WR;
  if (p < t->RRD_L + t->RAS) p = t->RRD_L + t->RAS;
  PRE(p, 0, 0, 0);
  PRE(p + t->RRD_PRE + dl, 0, FG(1), FB(1));
}
/* Two ranks: a WR of rank 1 whose burst would start before rank 0's read
 * burst ends (no rank-scoped rule applies across ranks); with tRTRS, it must
 * start tRTRS after that burst (rank switch on the data bus). */
static void s_data_bus(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(1, 1, 0, 0, 1);
  const int64_t c = t->RCD + 1;
  RD(c, 0, 0, 0, 1);
  WR(c + t->CL + t->BURST + t->RTRS - t->CWL + dl, 1, 0, 0, 1);
}
/* Rank switch after a write burst: rank 1's RD burst tRTRS after rank 0's WR burst. */
static void s_rtrs_wr_rd(const dram_timing *t, int dual, int64_t dl) {
  (void)dual;
  ACT(0, 0, 0, 0, 1);
  ACT(1, 1, 0, 0, 1);
  const int64_t c = t->RCD + 1;
  WR(c, 0, 0, 0, 1);
  const int64_t end = c + t->CWL + t->BURST;
  RD(end + t->RTRS - t->CL + dl, 1, 0, 0, 1);
}
/* Two commands in one command-bus slot: two column commands of different
 * ranks (dual bus), or a column and a row command (single bus). */
static void s_cmd_bus(const dram_timing *t, int dual, int64_t dl) {
  ACT(0, 0, 0, 0, 1);
  ACT(1, 1, 0, 0, 1);
  const int64_t c = t->RCD + 1;
  WR(c, 0, 0, 0, 1);
  if (dual) RD(c + 1 + dl, 1, 0, 0, 1);
  else ACT(c + 1 + dl, 1, FG(1), FB(1), 1);
}

static const scen k_scen[] = {
    {"tRCD (RD)", TCHECK_RCD, 1, s_rcd, 0},
    {"tRCD (WR)", TCHECK_RCD, 1, s_rcd_wr, 0},
    {"tRAS", TCHECK_RAS, 1, s_ras, 0},
    {"tRP", TCHECK_RP, 1, s_rp, 0},
    {"tRC", TCHECK_RC, 1, s_rc, 0},
    {"tRRD_L", TCHECK_RRD_L, 1, s_rrd_l, NEED_2BPG},
    {"tRRD_S", TCHECK_RRD_S, 1, s_rrd_s, NEED_2BG},
    {"tFAW", TCHECK_FAW, 1, s_faw, 0},
    {"tCCD_L (RD)", TCHECK_CCD_L, 1, s_ccd_l, NEED_2BPG},
    {"tCCD_L (WR)", TCHECK_CCD_L, 1, s_ccd_l_wr, NEED_2BPG},
    {"tCCD_S (RD)", TCHECK_CCD_S, 1, s_ccd_s, NEED_2BG},
    {"tCCD_S (WR)", TCHECK_CCD_S, 1, s_ccd_s_wr, NEED_2BG},
    {"tWTR_L", TCHECK_WTR_L, 1, s_wtr_l, NEED_2BPG},
    {"tWTR_S", TCHECK_WTR_S, 1, s_wtr_s, NEED_2BG},
    {"tRTW", TCHECK_RTW, 1, s_rtw, 0},
    {"tRTP", TCHECK_RTP, 1, s_rtp, 0},
    {"tWR", TCHECK_WR, 1, s_wr, 0},
    {"tRFC (ACT)", TCHECK_RFC, 1, s_rfc_act, NEED_REF},
    {"tRFC (REF)", TCHECK_RFC, 1, s_rfc_ref, NEED_REF},
    {"tRP (REF)", TCHECK_RP, 1, s_rp_ref, NEED_REF},
    {"tRC (REF)", TCHECK_RC, 1, s_rc_ref, NEED_REF},
    {"data bus", TCHECK_DATA_BUS, 2, s_data_bus, NO_RTRS},
    {"tRTRS (RD -> WR)", TCHECK_RTRS, 2, s_data_bus, 0},
    {"tRTRS (WR -> RD)", TCHECK_RTRS, 2, s_rtrs_wr_rd, NEED_WR_RD_GAP},
    {"command bus", TCHECK_CMD_BUS, 2, s_cmd_bus, 0},
    {"tRP_DIRTY", TCHECK_RP_DIRTY, 1, s_rp_dirty, 0},
    {"tRP_DIRTY (REF)", TCHECK_RP_DIRTY, 1, s_rp_dirty_ref, NEED_REF},
    {"tRRD_PRE", TCHECK_RRD_PRE, 1, s_rrd_pre, 0},
};

static void each_rule_at_limit(void **state) {
  (void)state;
  unsigned cases = 0;
  for (size_t pi = 0; pi < dram_count(); ++pi) {
    const dram_preset d0 = spread(dram_at(pi));
    NBG = d0.bankgroups;
    NBPG = d0.banks_per_group;
    for (size_t s = 0; s < sizeof k_scen / sizeof k_scen[0]; ++s) {
      const scen *S = &k_scen[s];
      dram_preset d = d0;
      if (S->needs & NO_RTRS) d.t.RTRS = 0;
      if (((S->needs & NEED_REF) && !d.t.REFI) || ((S->needs & NEED_2BG) && NBG < 2) ||
          ((S->needs & NEED_2BPG) && NBPG < 2) || (S->rule == TCHECK_RTRS && !d.t.RTRS) ||
          ((S->needs & NEED_WR_RD_GAP) && d.t.CWL + d.t.BURST + d.t.RTRS <= d.t.CL + 1))
        continue;
      /* exactly at the limit: legal */
      tc_init(&d, S->ranks);
      S->run(&d.t, d.dual_cmd_bus, 0);
      if (!tcheck_ok(&C)) fail_msg("%s / %s at the limit: %s", d.name, S->name, tcheck_error(&C));
      const uint64_t last = C.last_cmd;
      tcheck_free(&C);
      /* one cycle early: exactly this rule, once */
      tc_init(&d, S->ranks);
      S->run(&d.t, d.dual_cmd_bus, -1);
      if (tcheck_ok(&C)) fail_msg("%s / %s one cycle early: not caught", d.name, S->name);
      if (tcheck_first_rule(&C) != S->rule || C.violations != 1)
        fail_msg("%s / %s one cycle early: expected %s once, got %llu violation(s), first: %s", d.name, S->name,
                 tcheck_rule_name(S->rule), (unsigned long long)C.violations, tcheck_error(&C));
      assert_int_equal(tcheck_first_cycle(&C), last - 1);
      assert_non_null(strstr(tcheck_error(&C), tcheck_rule_name(S->rule)));
      tcheck_free(&C);
      cases++;
    }
  }
  printf("  %u rule cases (%zu presets), each legal at the limit and caught one cycle early\n", cases, dram_count());
}

/* The one-line message: cycle, command, coordinates, rule, required vs actual. */
static void message_format(void **state) {
  (void)state;
  tc_init(dram_find("hbm2"), 1);
  ACT(0, 0, 2, 0, 7);
  ACT(10, 0, 2, 1, 7);
  RD(24, 0, 2, 0, 7);
  RD(25, 0, 2, 1, 7); /* tCCD_L 2 */
  assert_false(tcheck_ok(&C));
  assert_string_equal(tcheck_error(&C),
                      "cycle 25: RD rank 0 bg 2 bank 1: tCCD_L (RD -> RD same bank group) needs 2 cycles after RD at "
                      "cycle 24, got 1");
  assert_int_equal(tcheck_checked(&C), 4);
  assert_int_equal(C.cmds[MC_CMD_RD], 2);
  tcheck_free(&C);
}

/* ------------------------------------------------------------ state rules */

static void state_rules(void **state) {
  (void)state;
  const dram_preset *h = dram_find("hbm2");
  /* ACT to an open bank */
  tc_init(h, 1);
  ACT(0, 0, 0, 0, 1);
  ACT(100, 0, 0, 0, 2);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_ACT_OPEN);
  tcheck_free(&C);
  /* column command to a closed bank */
  tc_init(h, 1);
  RD(5, 0, 1, 1, 3);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_COL_CLOSED);
  tcheck_free(&C);
  tc_init(h, 1);
  ACT(0, 0, 0, 0, 1);
  PRE(40, 0, 0, 0);
  WR(100, 0, 0, 0, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_COL_CLOSED);
  tcheck_free(&C);
  /* column command to another row than the open one */
  tc_init(h, 1);
  ACT(0, 0, 0, 0, 1);
  RD(20, 0, 0, 0, 2);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_COL_ROW);
  assert_non_null(strstr(tcheck_error(&C), "row 2, open row 1"));
  tcheck_free(&C);
  /* REF with an open bank (of that rank only) */
  tc_init(h, 2);
  ACT(0, 1, 3, 3, 1);
  REF(300, 0);
  assert_true(tcheck_ok(&C));
  REF(301, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_REF_OPEN);
  tcheck_free(&C);
  /* PRE of a closed bank: an allowed no-op, counted */
  tc_init(h, 1);
  PRE(5, 0, 0, 0);
  ACT(6, 0, 0, 0, 1); /* no tRP from the no-op */
  PRE(6 + 33, 0, 0, 0);
  PRE(6 + 34, 0, 0, 0);
  assert_true(tcheck_ok(&C));
  assert_int_equal(C.pre_idle, 2);
  assert_int_equal(C.cmds[MC_CMD_PRE], 3);
  tcheck_free(&C);
  /* REF on a device without refresh (an NVM-like row) */
  dram_preset nvm = *h;
  nvm.t.REFI = nvm.t.RFC = 0;
  tc_init(&nvm, 1);
  ACT(0, 0, 0, 0, 1);
  PRE(100, 0, 0, 0);
  ACT(200, 0, 0, 0, 1);
  tcheck_finish(&C, 1000000); /* no refresh-interval rule without tREFI */
  assert_true(tcheck_ok(&C));
  REF(300, 0);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_REF_NONE);
  tcheck_free(&C);
  /* address range and command order */
  tc_init(h, 1);
  ACT(0, 1, 0, 0, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_ADDR);
  tcheck_free(&C);
  tc_init(h, 1);
  ACT(0, 0, 4, 0, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_ADDR);
  tcheck_free(&C);
  tc_init(h, 1);
  ACT(100, 0, 0, 0, 1);
  ACT(50, 0, 1, 0, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_ORDER);
  tcheck_free(&C);
  /* init errors */
  char err[128];
  assert_int_equal(tcheck_init(&C, h, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "ranks"));
  assert_int_equal(tcheck_init(&C, NULL, 1, err, sizeof err), -1);
  dram_preset bad = *h;
  bad.t.CCD_L = 0;
  assert_int_equal(tcheck_init(&C, &bad, 1, err, sizeof err), -1);
}

/* No rank longer than 9 x tREFI without REF: legal at exactly 9 x tREFI. */
static void refresh_interval(void **state) {
  (void)state;
  const dram_preset *h = dram_find("hbm2");
  const uint64_t lim = 9ull * h->t.REFI;
  /* from cycle 0, at a command */
  tc_init(h, 1);
  ACT(lim, 0, 0, 0, 1);
  assert_true(tcheck_ok(&C));
  tcheck_free(&C);
  tc_init(h, 1);
  ACT(lim + 1, 0, 0, 0, 1);
  assert_false(tcheck_ok(&C));
  assert_int_equal(tcheck_first_rule(&C), TCHECK_REFI);
  assert_int_equal(C.violations, 1);
  tcheck_free(&C);
  /* after a REF, at the end of the run; a late REF is itself a violation */
  tc_init(h, 2);
  REF(1000, 0);
  REF(1001, 1);
  tcheck_finish(&C, 1001 + lim - 1);
  assert_true(tcheck_ok(&C));
  REF(1000 + lim, 0);
  assert_true(tcheck_ok(&C));
  REF(1001 + lim + 1, 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_REFI);
  assert_non_null(strstr(tcheck_error(&C), "rank 1"));
  tcheck_free(&C);
  tc_init(h, 1);
  REF(1000, 0);
  tcheck_finish(&C, 1000 + lim);
  assert_true(tcheck_ok(&C));
  tcheck_finish(&C, 1000 + lim + 1);
  assert_int_equal(tcheck_first_rule(&C), TCHECK_REFI);
  tcheck_free(&C);
  /* off when the controller does not refresh */
  tc_init(h, 1);
  tcheck_expect_refresh(&C, 0);
  ACT(10 * lim, 0, 0, 0, 1);
  tcheck_finish(&C, 20 * lim);
  assert_true(tcheck_ok(&C));
  tcheck_free(&C);
}

/* tcheck_scale (mirror of mc_scale_timing): a scaled value applies to the
 * constraints started by commands issued after the call. */
static void timing_scaling(void **state) {
  (void)state;
  dram_preset h = *dram_find("hbm2");
  h.t.RP_DIRTY = 20;
  for (int64_t dl = -1; dl <= 0; ++dl) {
    tc_init(&h, 1);
    ACT(0, 0, 0, 0, 1);
    assert_int_equal(tcheck_scale(&C, 2, 3), 0);
    RD(14, 0, 0, 0, 1);       /* tRCD of the ACT before the call: 14 */
    ACT(100, 0, 1, 0, 1);
    RD(100 + 28 + dl, 0, 1, 0, 1); /* tRCD 2 x 14 */
    assert_int_equal(tcheck_ok(&C), dl == 0);
    if (dl) assert_int_equal(tcheck_first_rule(&C), TCHECK_RCD);
    tcheck_free(&C);
    tc_init(&h, 1);
    ACT(0, 0, 0, 0, 1);
    WR(14, 0, 0, 0, 1);
    assert_int_equal(tcheck_scale(&C, 1, 3), 0);
    WR(16, 0, 0, 0, 1);
    PRE(16 + 8 + 1 + 48 + dl, 0, 0, 0); /* CWL + tBURST + 3 x tWR 16 after the last WR */
    ACT(16 + 8 + 1 + 48 + 60 + 1, 0, 0, 0, 2); /* dirty: 3 x tRP_DIRTY 20 */
    assert_int_equal(tcheck_ok(&C), dl == 0);
    if (dl) assert_int_equal(tcheck_first_rule(&C), TCHECK_WR);
    tcheck_free(&C);
  }
  tc_init(&h, 1);
  assert_int_equal(tcheck_scale(&C, 0, 1), -1);
  assert_int_equal(tcheck_scale(&C, 1, 0x80000000u), -1);
  assert_int_equal(C.t.WR, 16);
  assert_int_equal(tcheck_scale(&C, 2, 2), 0);
  assert_int_equal(tcheck_scale(&C, 1, 1), 0);
  assert_int_equal(C.t.RCD, 14);
  assert_int_equal(C.t.RP_DIRTY, 20);
  tcheck_free(&C);
}

/* tcheck_scale_rank: the WR -> PRE spacing (CWL + tBURST + tWR, kept per
 * rank and refreshed by every scaling) of the scaled rank only, each rank
 * exactly at its limit legal and one cycle early caught as tWR. */
static void rank_scaling_wr(void **state) {
  (void)state;
  const dram_preset *h = dram_find("hbm2");
  const int64_t wr1 = h->t.CWL + h->t.BURST + h->t.WR, wr3 = h->t.CWL + h->t.BURST + 3 * (int64_t)h->t.WR;
  for (int rank = 0; rank < 2; ++rank)
    for (int64_t dl = -1; dl <= 0; ++dl) {
      tc_init(h, 2);
      assert_int_equal(tcheck_scale_rank(&C, 1, 1, 3), 0);
      assert_int_equal(tcheck_scale_rank(&C, 2, 1, 3), -1); /* no rank 2 */
      ACT(0, (uint32_t)rank, 0, 0, 1);
      WR(h->t.RCD, (uint32_t)rank, 0, 0, 1);
      PRE(h->t.RCD + (rank ? wr3 : wr1) + dl, (uint32_t)rank, 0, 0);
      if (dl == 0 && !tcheck_ok(&C)) fail_msg("rank %d at the tWR limit: %s", rank, tcheck_error(&C));
      if (dl) {
        assert_int_equal(tcheck_first_rule(&C), TCHECK_WR);
        assert_int_equal(C.violations, 1);
      }
      tcheck_free(&C);
    }
}

/* ------------------------------------------------------ with the mc engine */

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

static mc M;
static uint64_t n_done;

static void on_done(void *ctx, uint64_t user, int w, uint64_t cyc) {
  (void)ctx, (void)user, (void)w, (void)cyc;
  n_done++;
}

typedef struct traffic {
  unsigned ranks;
  int open_page, refresh;
  unsigned rows;      /* distinct rows per bank (few = row hits, many = conflicts) */
  unsigned want;      /* parent requests to complete */
  unsigned wr_pct;    /* percentage of writes */
  uint64_t seed;
  int stop_on_violation;
  /* timing scaling (mc_scale_timing / tcheck_scale) at cycle scale_at (0 = none), back to 1 x at unscale_at */
  uint64_t scale_at, unscale_at;
  unsigned rcd_mult, wr_mult;
  int scale_engine, scale_checker;
} traffic;

/* Random traffic on an engine running `eng` with the checker on `truth`.
 * Returns the final cycle (after the engine drained and idled a little, so
 * refreshes keep coming). */
static uint64_t run_traffic(const dram_preset *eng, const dram_preset *truth, const traffic *tr) {
  mc_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dev = eng;
  cfg.ranks = tr->ranks;
  cfg.rq_size = 32;
  cfg.wq_size = 32;
  cfg.wq_high = 24;
  cfg.wq_low = 8;
  cfg.open_page = tr->open_page;
  cfg.refresh = tr->refresh;
  char err[256];
  if (mc_init(&M, &cfg, err, sizeof err) != 0) fail_msg("mc_init(%s): %s", eng->name, err);
  tc_init(truth, tr->ranks);
  mc_set_cmd_log(&M, tcheck_cmd, &C);
  mc_set_done(&M, on_done, NULL);
  n_done = 0;
  uint64_t seed = tr->seed, now = 0;
  unsigned submitted = 0;
  int scaled = 0;
  while (n_done < tr->want) {
    if (tr->stop_on_violation && !tcheck_ok(&C)) break;
    if (tr->scale_at && scaled < 2 && now >= (scaled ? tr->unscale_at : tr->scale_at)) {
      const unsigned rm = scaled ? 1 : tr->rcd_mult, wm = scaled ? 1 : tr->wr_mult;
      if (tr->scale_engine) assert_int_equal(mc_scale_timing(&M, rm, wm), 0);
      if (tr->scale_checker) assert_int_equal(tcheck_scale(&C, rm, wm), 0);
      scaled++;
    }
    if (submitted < tr->want && (lcg(&seed) & 3) != 0) {
      const int w = lcg(&seed) % 100 < tr->wr_pct;
      const unsigned n = 1 + (unsigned)(lcg(&seed) % 4);
      const uint32_t rk = (uint32_t)(lcg(&seed) % tr->ranks), bg = (uint32_t)(lcg(&seed) % eng->bankgroups),
                     ba = (uint32_t)(lcg(&seed) % eng->banks_per_group);
      const uint64_t row = lcg(&seed) % tr->rows;
      const uint32_t col = (uint32_t)(lcg(&seed) % 16) * 4;
      mc_addr a[4];
      for (unsigned k = 0; k < n; ++k) a[k] = (mc_addr){rk, bg, ba, col + k, row, 0};
      if (mc_submit(&M, now, w, a, n, submitted) == 0) submitted++;
    }
    const uint64_t nx = mc_next_event(&M);
    now = (lcg(&seed) & 1) ? nx : now + 1 + lcg(&seed) % 3;
    if (nx != MC_NEVER && nx < now) now = nx;
    if (now == MC_NEVER) now = M.now + 1;
    mc_advance(&M, now);
    assert_true(now < 100000000);
  }
  /* idle for a while: the engine keeps refreshing */
  const uint64_t until = now + 10 * (uint64_t)(truth->t.REFI ? truth->t.REFI : 1000);
  for (uint64_t e = mc_next_event(&M); e != MC_NEVER && e <= until; e = mc_next_event(&M)) mc_advance(&M, e);
  tcheck_finish(&C, until);
  return until;
}

static void engine_random_all_presets(void **state) {
  (void)state;
  uint64_t total = 0;
  for (size_t pi = 0; pi < dram_count(); ++pi) {
    const dram_preset *d = dram_at(pi);
    for (unsigned ranks = 1; ranks <= 3; ++ranks)
      for (int open = 0; open <= 1; ++open) {
        traffic tr = {.ranks = ranks, .open_page = open, .refresh = 1, .rows = 8, .want = 4000, .wr_pct = 33,
                      .seed = 1000 + pi * 31 + ranks * 7 + (unsigned)open, .stop_on_violation = 0};
        if (ranks == 2) { /* SCM-style throttling mid-run, mirrored in the checker */
          tr.scale_at = 3000, tr.unscale_at = 9000, tr.rcd_mult = 2, tr.wr_mult = 2;
          tr.scale_engine = tr.scale_checker = 1;
        }
        run_traffic(d, d, &tr);
        if (!tcheck_ok(&C))
          fail_msg("%s, %u rank(s), %s page: %s", d->name, ranks, open ? "open" : "closed", tcheck_error(&C));
        const mc_stats *s = mc_get_stats(&M, M.now);
        assert_int_equal(C.cmds[MC_CMD_ACT], s->acts);
        assert_int_equal(C.cmds[MC_CMD_PRE], s->pres);
        assert_int_equal(C.cmds[MC_CMD_RD], s->rd_atoms);
        assert_int_equal(C.cmds[MC_CMD_WR], s->wr_atoms);
        assert_int_equal(C.cmds[MC_CMD_REF], s->refs);
        assert_int_equal(tcheck_checked(&C), s->acts + s->pres + s->rd_atoms + s->wr_atoms + s->refs);
        assert_int_equal(C.pre_idle, 0);
        assert_true(s->refs > 0 || !d->t.REFI);
        total += tcheck_checked(&C);
        tcheck_free(&C);
        mc_free(&M);
      }
  }
  printf("  %llu engine commands checked on %zu presets, no violation\n", (unsigned long long)total, dram_count());
}

/* ----------------------------------- the key test: a broken engine is caught */

typedef struct broken {
  const char *what;
  const char *base;       /* preset */
  tcheck_rule rule;       /* expected first violation */
  void (*truth)(dram_preset *);  /* optional: the true device differs from the base (NULL: base) */
  void (*engine)(dram_preset *); /* the engine's wrong copy */
  int refresh_off;        /* engine runs without refresh */
  unsigned rcd_mult, wr_mult; /* != 0: the device is throttled (checker scaled), the engine forgot */
  unsigned ranks;         /* 0 = 1 */
} broken;

static void e_rcd(dram_preset *d) { d->t.RCD -= 4; }
static void e_rp(dram_preset *d) { d->t.RP -= 6; }
static void e_ras(dram_preset *d) { d->t.RAS -= 13; }
static void t_rc(dram_preset *d) { d->t.RC = d->t.RAS + d->t.RP + 13; }
static void t_ccd_s(dram_preset *d) { d->t.CCD_S = 2, d->t.CCD_L = 2; }
static void e_ccd_l(dram_preset *d) { d->t.CCD_L = d->t.CCD_S; }
static void e_rrd_s(dram_preset *d) { d->t.RRD_S /= 2; }
static void e_rrd_l(dram_preset *d) { d->t.RRD_L = d->t.RRD_S; }
static void e_faw(dram_preset *d) { d->t.FAW = 0; }
static void e_wtr_s(dram_preset *d) { d->t.WTR_S = 0; }
static void e_wtr_l(dram_preset *d) { d->t.WTR_L = d->t.WTR_S; }
static void e_rtp(dram_preset *d) { d->t.RTP = 2; }
static void e_wr(dram_preset *d) { d->t.WR = 2; }
static void e_rtw(dram_preset *d) { d->t.RTW = 1; }
static void e_rfc(dram_preset *d) { d->t.RFC /= 3; }
static void e_refi(dram_preset *d) { d->t.REFI *= 10; }
static void e_dual(dram_preset *d) { d->dual_cmd_bus = 1; }
static void t_rp_dirty(dram_preset *d) { d->t.RP_DIRTY = d->t.RP + 30; }
static void t_rrd_pre(dram_preset *d) { d->t.RRD_PRE = 20; }
static void e_rp_dirty(dram_preset *d) { d->t.RP_DIRTY = 0; }
static void e_rrd_pre(dram_preset *d) { d->t.RRD_PRE /= 3; }
static void e_rtrs(dram_preset *d) { d->t.RTRS = 0; }

static const broken k_broken[] = {
    {"tRCD shrunk", "hbm2", TCHECK_RCD, NULL, e_rcd, 0, 0, 0, 0},
    {"tRP shrunk", "hbm2", TCHECK_RP, NULL, e_rp, 0, 0, 0, 0},
    {"tRAS shrunk", "hbm2", TCHECK_RAS, NULL, e_ras, 0, 0, 0, 0},
    {"tRC shorter than the device's", "hbm2", TCHECK_RC, t_rc, NULL, 0, 0, 0, 0},
    {"tCCD_S shorter than the device's", "hbm2", TCHECK_CCD_S, t_ccd_s, NULL, 0, 0, 0, 0},
    {"tCCD_L shrunk", "hbm2", TCHECK_CCD_L, NULL, e_ccd_l, 0, 0, 0, 0},
    {"tRRD_S shrunk", "hbm2", TCHECK_RRD_S, NULL, e_rrd_s, 0, 0, 0, 0},
    {"tRRD_L shrunk", "hbm2", TCHECK_RRD_L, NULL, e_rrd_l, 0, 0, 0, 0},
    {"tFAW not modelled", "hbm2", TCHECK_FAW, NULL, e_faw, 0, 0, 0, 0},
    {"tWTR_S shrunk", "hbm2", TCHECK_WTR_S, NULL, e_wtr_s, 0, 0, 0, 0},
    {"tWTR_L shrunk", "hbm2", TCHECK_WTR_L, NULL, e_wtr_l, 0, 0, 0, 0},
    {"tRTP shrunk", "hbm2", TCHECK_RTP, NULL, e_rtp, 0, 0, 0, 0},
    {"tWR shrunk", "hbm2", TCHECK_WR, NULL, e_wr, 0, 0, 0, 0},
    {"tRTW shrunk", "hbm2", TCHECK_RTW, NULL, e_rtw, 0, 0, 0, 0},
    {"tRFC shrunk", "hbm2", TCHECK_RFC, NULL, e_rfc, 0, 0, 0, 0},
    {"tREFI x 10", "hbm2", TCHECK_REFI, NULL, e_refi, 0, 0, 0, 0},
    {"refresh off", "hbm2", TCHECK_REFI, NULL, NULL, 1, 0, 0, 0},
    {"gddr5: tRCD shrunk", "gddr5_gtx480", TCHECK_RCD, NULL, e_rcd, 0, 0, 0, 0},
    {"gddr5: tCCD_L shrunk", "gddr5_gtx480", TCHECK_CCD_L, NULL, e_ccd_l, 0, 0, 0, 0},
    {"gddr5: tWTR_S shrunk", "gddr5_gtx480", TCHECK_WTR_S, NULL, e_wtr_s, 0, 0, 0, 0},
    {"gddr5: dual command bus", "gddr5_gtx480", TCHECK_CMD_BUS, NULL, e_dual, 0, 0, 0, 0},
    {"tRP_DIRTY ignored", "hbm2", TCHECK_RP_DIRTY, t_rp_dirty, NULL, 0, 0, 0, 0},
    {"tRRD_PRE ignored", "hbm2", TCHECK_RRD_PRE, t_rrd_pre, NULL, 0, 0, 0, 0},
    {"pcm_flrb: tRP_DIRTY ignored", "pcm_flrb", TCHECK_RP_DIRTY, NULL, e_rp_dirty, 0, 0, 0, 0},
    {"pcm_flrb: tRRD_PRE shrunk", "pcm_flrb", TCHECK_RRD_PRE, NULL, e_rrd_pre, 0, 0, 0, 0},
    {"throttle x2 tRCD forgotten", "hbm2", TCHECK_RCD, NULL, NULL, 0, 2, 1, 0},
    {"throttle x4 tWR forgotten", "scm_slc", TCHECK_WR, NULL, NULL, 0, 1, 4, 0},
    {"ddr3_800 2 ranks: tRTRS ignored", "ddr3_800", TCHECK_RTRS, NULL, e_rtrs, 0, 0, 0, 2},
    {"gddr5 2 ranks: tRTRS ignored", "gddr5_gtx480", TCHECK_RTRS, NULL, e_rtrs, 0, 0, 0, 2},
};

static void broken_engine_caught(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof k_broken / sizeof k_broken[0]; ++i) {
    const broken *B = &k_broken[i];
    const dram_preset *base = dram_find(B->base);
    if (!base) { /* presets come and go; the hbm2-based cases always run */
      printf("  %-34s skipped: no preset %s\n", B->what, B->base);
      continue;
    }
    dram_preset truth = *base, eng = *base;
    if (B->truth) B->truth(&truth);
    if (B->engine) B->engine(&eng);
    char err[256];
    if (dram_validate(&truth, err, sizeof err) != 0) fail_msg("%s: truth: %s", B->what, err);
    if (dram_validate(&eng, err, sizeof err) != 0) fail_msg("%s: engine copy: %s", B->what, err);
    /* the unbroken engine passes the same traffic */
    traffic tr = {.ranks = B->ranks ? B->ranks : 1, .open_page = 1, .refresh = 1, .rows = 4, .want = 3000,
                  .wr_pct = 33, .seed = 777 + i, .stop_on_violation = 1};
    run_traffic(&truth, &truth, &tr);
    if (!tcheck_ok(&C)) fail_msg("%s: unbroken engine flagged: %s", B->what, tcheck_error(&C));
    tcheck_free(&C);
    mc_free(&M);
    /* the broken one is caught, with the rule of the broken parameter */
    tr.refresh = !B->refresh_off;
    if (B->rcd_mult) {
      tr.scale_at = 500, tr.unscale_at = UINT64_MAX, tr.rcd_mult = B->rcd_mult, tr.wr_mult = B->wr_mult;
      tr.scale_checker = 1;
    }
    run_traffic(&eng, &truth, &tr);
    if (tcheck_ok(&C)) fail_msg("%s: not caught (%llu commands checked)", B->what,
                                (unsigned long long)tcheck_checked(&C));
    if (tcheck_first_rule(&C) != B->rule)
      fail_msg("%s: expected %s, first violation: %s", B->what, tcheck_rule_name(B->rule), tcheck_error(&C));
    printf("  %-34s caught: %s\n", B->what, tcheck_error(&C));
    tcheck_free(&C);
    mc_free(&M);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_rule_at_limit),
      cmocka_unit_test(message_format),
      cmocka_unit_test(state_rules),
      cmocka_unit_test(refresh_interval),
      cmocka_unit_test(timing_scaling),
      cmocka_unit_test(rank_scaling_wr),
      cmocka_unit_test(engine_random_all_presets),
      cmocka_unit_test(broken_engine_caught),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
