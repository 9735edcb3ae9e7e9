/* tcheck: DRAM/NVM command timing-constraint checker. See tcheck.h for the
 * rules and docs/timing_checker.md for the table with formulas.
 *
 * Implementation notes
 *  - Pairwise history, not next-allowed times: each scope keeps the cycle of
 *    its last command of each kind, and every rule is evaluated as
 *    "new - previous >= spacing" with the spacing written in the JEDEC form of
 *    dram.h (e.g. WR -> RD same bank group = CWL + tBURST + tWTR_L). That is
 *    deliberately a different formulation from mc.c, so one bug cannot hide in
 *    both.
 *  - The last command of a scope is enough for every rule because each spacing
 *    only depends on the kinds of the two commands and the scope: an older
 *    command of the same kind in the same scope was itself checked to precede
 *    the last one, so it cannot impose a later bound. tFAW needs the last four.
 *  - Per command: a constant number of comparisons. The refresh-interval rule
 *    is one comparison against a precomputed deadline (the earliest rank's);
 *    only a REF recomputes it (O(ranks)).
 *  - Speed (docs/memtrace.md "Benchmark"): ACT, PRE, RD and WR each have their
 *    own function (tail calls of the dispatch in tcheck_cmd); all their
 *    pairwise comparisons are ORed into one flag without a branch per rule,
 *    and only a raised flag runs the rule-by-rule evaluation that counts and
 *    describes the violations (cold code). The formulation stays pairwise --
 *    the prior command's cycle and the spacing -- rather than precomputed
 *    earliest-allowed times: those would be the engine's own folding.
 */
#include "tcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEVER_ (INT64_MIN / 4) /* "no such command yet": far in the past, no overflow when adding a spacing */
#define NOLIMIT_ INT64_MAX

static const char *const k_rule_names[TCHECK_NRULES] = {
    [TCHECK_OK] = "ok",
    [TCHECK_ORDER] = "command order",
    [TCHECK_CMD_BUS] = "command bus",
    [TCHECK_ADDR] = "address",
    [TCHECK_ACT_OPEN] = "ACT to open bank",
    [TCHECK_COL_CLOSED] = "column command to closed bank",
    [TCHECK_COL_ROW] = "column command to a row that is not open",
    [TCHECK_REF_OPEN] = "REF with open bank",
    [TCHECK_REF_NONE] = "REF on a device without refresh",
    [TCHECK_RCD] = "tRCD",
    [TCHECK_RP] = "tRP",
    [TCHECK_RAS] = "tRAS",
    [TCHECK_RC] = "tRC",
    [TCHECK_CCD_S] = "tCCD_S",
    [TCHECK_CCD_L] = "tCCD_L",
    [TCHECK_RRD_S] = "tRRD_S",
    [TCHECK_RRD_L] = "tRRD_L",
    [TCHECK_FAW] = "tFAW",
    [TCHECK_WTR_S] = "tWTR_S",
    [TCHECK_WTR_L] = "tWTR_L",
    [TCHECK_RTP] = "tRTP",
    [TCHECK_WR] = "tWR",
    [TCHECK_RTW] = "tRTW",
    [TCHECK_RFC] = "tRFC",
    [TCHECK_RP_DIRTY] = "tRP_DIRTY",
    [TCHECK_RRD_PRE] = "tRRD_PRE",
    [TCHECK_DATA_BUS] = "data bus",
    [TCHECK_REFI] = "refresh interval (9 x tREFI)",
    [TCHECK_XP] = "tXP",
    [TCHECK_CKE] = "tCKE",
    [TCHECK_PD_ENTRY] = "power-down entry",
    [TCHECK_RTRS] = "tRTRS",
};

const char *tcheck_rule_name(tcheck_rule r) {
  return (unsigned)r < TCHECK_NRULES ? k_rule_names[r] : "?";
}

/* ------------------------------------------------------------------ init */

void tcheck_free(tcheck *c) {
  if (!c) return;
  free(c->banks);
  free(c->groups);
  free(c->rk);
  memset(c, 0, sizeof *c);
}

/* Spacings derived from the rank's timing in force (after init and every scaling). */
static void derive(tcheck_rank_ *R) {
  const dram_timing *t = &R->t;
  R->wtr_l_need = (int64_t)t->CWL + t->BURST + t->WTR_L;
  R->wtr_s_need = (int64_t)t->CWL + t->BURST + t->WTR_S;
  R->wr_need = (int64_t)t->CWL + t->BURST + t->WR;
}

static void update_deadline(tcheck *c) {
  c->ref_deadline = NOLIMIT_;
  if (!c->refresh) return;
  for (uint32_t r = 0; r < c->ranks; ++r) {
    const tcheck_rank_ *R = &c->rk[r];
    if (R->t.REFI && R->ref_base + 9 * (int64_t)R->t.REFI < c->ref_deadline)
      c->ref_deadline = R->ref_base + 9 * (int64_t)R->t.REFI;
  }
}

int tcheck_init(tcheck *c, const dram_preset *dev, uint32_t ranks, char *err, size_t errlen) {
  return tcheck_init_ranks(c, dev, NULL, ranks, err, errlen);
}

int tcheck_init_ranks(tcheck *c, const dram_preset *dev, const dram_preset *const *rank_devs, uint32_t ranks,
                      char *err, size_t errlen) {
#define FAIL(...)                                          \
  do {                                                     \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    tcheck_free(c);                                        \
    return -1;                                             \
  } while (0)
  memset(c, 0, sizeof *c);
  if (!dev) FAIL("tcheck: no device preset");
  if (dram_validate(dev, err, errlen) != 0) {
    tcheck_free(c);
    return -1;
  }
  if (ranks < 1 || ranks > 255) FAIL("tcheck: ranks must be 1..255, got %u", ranks);
  if (rank_devs)
    for (uint32_t r = 0; r < ranks; ++r) {
      const dram_preset *rd = rank_devs[r];
      if (!rd) FAIL("tcheck: rank %u has no device preset", r);
      if (rd == dev) continue;
      if (dram_validate(rd, err, errlen) != 0) {
        tcheck_free(c);
        return -1;
      }
      char why[160];
      if (!dram_same_interface(dev, rd, why, sizeof why))
        FAIL("tcheck: rank %u (%s) cannot share a channel with %s: %s", r, rd->name, dev->name, why);
    }
  c->dev = dev;
  c->t = dev->t;
  c->ranks = ranks;
  c->banks_per_rank = dev->bankgroups * dev->banks_per_group;
  c->ngroups = ranks * dev->bankgroups;
  c->nbg = dev->bankgroups;
  c->nbpg = dev->banks_per_group;
  c->dual = (uint8_t)(dev->dual_cmd_bus != 0);
  c->banks = calloc((size_t)ranks * c->banks_per_rank, sizeof *c->banks);
  c->groups = calloc(c->ngroups, sizeof *c->groups);
  c->rk = calloc(ranks, sizeof *c->rk);
  if (!c->banks || !c->groups || !c->rk) FAIL("tcheck: out of memory");
  for (uint32_t b = 0; b < ranks * c->banks_per_rank; ++b) {
    tcheck_bank_ *B = &c->banks[b];
    const dram_preset *bd = rank_devs ? rank_devs[b / c->banks_per_rank] : dev;
    B->act = B->pre = B->rd = B->wr = B->refpb = NEVER_;
    B->refd = 0;
    B->rcd = bd->t.RCD;
    B->rp_need = bd->t.RP;
  }
  for (uint32_t g = 0; g < c->ngroups; ++g) c->groups[g].act = c->groups[g].rd = c->groups[g].wr = NEVER_;
  for (uint32_t r = 0; r < ranks; ++r) {
    tcheck_rank_ *R = &c->rk[r];
    R->dev = rank_devs ? rank_devs[r] : dev;
    R->t = R->dev->t;
    derive(R);
    R->pre_writes_all = (uint8_t)(R->dev->tech == DRAM_TECH_DRAM);
    if (R->dev != dev) c->mixed = 1;
    R->act = R->rd = R->wr = R->pre = R->ref = R->refpb = R->wpre = NEVER_;
    R->last = R->burst_end = R->pdx = NEVER_;
    R->ref_base = 0;
    for (int i = 0; i < 4; ++i) R->faw[i] = NEVER_;
  }
  c->last_cmd = c->last_row_cmd = c->last_col_cmd = NEVER_;
  c->bus_end = NEVER_;
  c->bus_rank = UINT32_MAX;
  c->refresh = 1;
  update_deadline(c);
  return 0;
#undef FAIL
}

void tcheck_expect_refresh(tcheck *c, int on) {
  c->refresh = (uint8_t)(on != 0);
  update_deadline(c);
}

/* tRCD, tWR, tRP_DIRTY of `base` scaled into `t`; -1 (t unchanged) when out of range. */
static int scale_into(dram_timing *t, const dram_timing *base, unsigned rcd_mult, unsigned wr_mult, int dry) {
  if (!rcd_mult || !wr_mult) return -1;
  const uint64_t rcd = (uint64_t)base->RCD * rcd_mult, wr = (uint64_t)base->WR * wr_mult,
                 rpd = (uint64_t)base->RP_DIRTY * wr_mult;
  if (rcd > UINT32_MAX || wr > UINT32_MAX || rpd > UINT32_MAX) return -1;
  if (dry) return 0;
  t->RCD = (uint32_t)rcd;
  t->WR = (uint32_t)wr;
  t->RP_DIRTY = (uint32_t)rpd;
  return 0;
}

int tcheck_scale(tcheck *c, unsigned rcd_mult, unsigned wr_mult) {
  if (scale_into(&c->t, &c->dev->t, rcd_mult, wr_mult, 1) != 0) return -1;
  for (uint32_t r = 0; r < c->ranks; ++r) /* all or nothing */
    if (scale_into(&c->rk[r].t, &c->rk[r].dev->t, rcd_mult, wr_mult, 1) != 0) return -1;
  scale_into(&c->t, &c->dev->t, rcd_mult, wr_mult, 0);
  for (uint32_t r = 0; r < c->ranks; ++r) {
    scale_into(&c->rk[r].t, &c->rk[r].dev->t, rcd_mult, wr_mult, 0);
    derive(&c->rk[r]);
  }
  return 0;
}

int tcheck_scale_rank(tcheck *c, uint32_t r, unsigned rcd_mult, unsigned wr_mult) {
  if (r >= c->ranks || scale_into(&c->rk[r].t, &c->rk[r].dev->t, rcd_mult, wr_mult, 0) != 0) return -1;
  derive(&c->rk[r]);
  return 0;
}

/* ----------------------------------------------------------- violations */

/* The command being checked, for messages. */
typedef struct cur_ {
  int64_t cycle;
  mc_cmd cmd;
  uint32_t rank, bg, bank;
  int rank_only; /* refresh-interval rule: about a rank, not the command */
} cur_;

static void prefix(const tcheck *c, char *buf, size_t n, const cur_ *k) {
  char rk[48];
  if (c->mixed && k->rank < c->ranks)
    snprintf(rk, sizeof rk, "rank %u (%s)", k->rank, c->rk[k->rank].dev->name);
  else
    snprintf(rk, sizeof rk, "rank %u", k->rank);
  if (k->rank_only)
    snprintf(buf, n, "cycle %lld: %s", (long long)k->cycle, rk);
  else if (k->cmd == MC_CMD_REF)
    snprintf(buf, n, "cycle %lld: REF %s", (long long)k->cycle, rk);
  else
    snprintf(buf, n, "cycle %lld: %s %s bg %u bank %u", (long long)k->cycle, mc_cmd_name(k->cmd), rk, k->bg, k->bank);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5), cold, noinline))
#endif
static void
violation(tcheck *c, const cur_ *k, tcheck_rule rule, const char *fmt, ...) {
  if (c->violations++) return; /* only the first one is described */
  c->first_rule = rule;
  c->first_cycle = (uint64_t)k->cycle;
  char pre[112];
  prefix(c, pre, sizeof pre, k);
  char body[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  snprintf(c->msg, sizeof c->msg, "%s: %s", pre, body);
}

/* Spacing rule: the new command must come at least `need` cycles after the
 * previous command `prev_cmd` at `prev` (nothing to check when there was none). */
static inline void spacing(tcheck *c, const cur_ *k, tcheck_rule rule, const char *what, int64_t prev,
                           mc_cmd prev_cmd, int64_t need) {
  /* "no such command yet" (NEVER_, far in the past) always passes: cycle -
   * NEVER_ exceeds any spacing */
  if (__builtin_expect(k->cycle - prev >= need, 1)) return;
  violation(c, k, rule, "%s (%s) needs %lld cycles after %s at cycle %lld, got %lld", tcheck_rule_name(rule), what,
            (long long)need, mc_cmd_name(prev_cmd), (long long)prev, (long long)(k->cycle - prev));
}

/* ------------------------------------------------------------- commands */

static void refresh_interval(tcheck *c, const cur_ *k, int64_t now) {
  if (now <= c->ref_deadline) return;
  for (uint32_t r = 0; r < c->ranks; ++r) {
    tcheck_rank_ *R = &c->rk[r];
    const int64_t limit = 9 * (int64_t)R->t.REFI;
    if (!R->t.REFI || now - R->ref_base <= limit) continue;
    cur_ kk = *k;
    kk.rank = r;
    kk.rank_only = 1;
    violation(c, &kk, TCHECK_REFI, "%s: no REF since cycle %lld: needs a REF within %lld cycles (9 x tREFI %u), got %lld",
              tcheck_rule_name(TCHECK_REFI), (long long)R->ref_base, (long long)limit, R->t.REFI,
              (long long)(now - R->ref_base));
    R->ref_base = now; /* reported once per overdue interval */
  }
  update_deadline(c);
}

/* Each bus command has two parts: its rules, evaluated all at once into
 * one flag (the fast path: every rule is the same pairwise comparison "new -
 * previous < spacing" as in its *_rules function, the results ORed without a
 * branch per rule; a guard such as "tRC = 0: no constraint" is dropped
 * there, which can only raise the flag), and, only when the flag is up, the
 * rule-by-rule evaluation of *_rules that counts and describes every
 * violated rule in the order of the rule table. Then the history update. A
 * flag raised without a violation (possible only with commands out of order)
 * costs the slow evaluation and nothing else. The cold functions build the
 * description of the command (cur_) themselves, so the fast path passes
 * plain values. */
#if defined(__GNUC__)
#define TC_COLD_ __attribute__((cold, noinline))
#define TC_NOINLINE_ __attribute__((noinline))
#define TC_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#else
#define TC_COLD_
#define TC_NOINLINE_
#define TC_UNLIKELY_(x) (x)
#endif
#define CUR_(k, cy, cmd, rank, bg, bank) const cur_ k = {(cy), (cmd), (rank), (bg), (bank), 0}

TC_COLD_ static void act_rules(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank,
                               const tcheck_bank_ *B, const tcheck_group_ *G, const tcheck_rank_ *R, uint64_t row) {
  CUR_(kk, cy, MC_CMD_ACT, rank, bg, bank);
  const cur_ *k = &kk;
  const dram_timing *t = &R->t;
  if (B->open)
    violation(c, k, TCHECK_ACT_OPEN, "%s: row %llu is open (ACT to row %llu)", tcheck_rule_name(TCHECK_ACT_OPEN),
              (unsigned long long)B->row, (unsigned long long)row);
  if (t->RC) spacing(c, k, TCHECK_RC, "ACT -> ACT same bank", B->act, MC_CMD_ACT, t->RC);
  if (B->pre_dirty && t->RP_DIRTY)
    spacing(c, k, TCHECK_RP_DIRTY, "dirty PRE -> ACT same bank", B->pre, MC_CMD_PRE, B->rp_need);
  else
    spacing(c, k, TCHECK_RP, "PRE -> ACT same bank", B->pre, MC_CMD_PRE, B->rp_need);
  spacing(c, k, TCHECK_RFC, "REF -> ACT same rank", R->ref, MC_CMD_REF, t->RFC);
  spacing(c, k, TCHECK_RFC, "REFPB -> ACT same bank", B->refpb, MC_CMD_REFPB, t->RFC_PB);
  spacing(c, k, TCHECK_RRD_L, "ACT -> ACT same bank group", G->act, MC_CMD_ACT, t->RRD_L);
  spacing(c, k, TCHECK_RRD_S, "ACT -> ACT same rank", R->act, MC_CMD_ACT, t->RRD_S);
  /* faw[faw_i] is the oldest of the last four ACTs of the rank */
  if (t->FAW) spacing(c, k, TCHECK_FAW, "fifth ACT in a window, same rank", R->faw[R->faw_i], MC_CMD_ACT, t->FAW);
}

static inline void do_act(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank, tcheck_bank_ *B,
                          tcheck_group_ *G, tcheck_rank_ *R, uint64_t row) {
  const dram_timing *t = &R->t;
  const int bad = B->open | (cy - B->act < (int64_t)t->RC) | (cy - B->pre < (int64_t)B->rp_need) |
                  (cy - R->ref < (int64_t)t->RFC) | (cy - B->refpb < (int64_t)t->RFC_PB) |
                  (cy - G->act < (int64_t)t->RRD_L) | (cy - R->act < (int64_t)t->RRD_S) |
                  (cy - R->faw[R->faw_i] < (int64_t)t->FAW);
  if (TC_UNLIKELY_(bad)) act_rules(c, cy, rank, bg, bank, B, G, R, row);
  if (!B->open) R->nopen++;
  B->open = 1;
  B->dirty = 0;
  B->row = row;
  B->rcd = t->RCD;
  B->act = G->act = R->act = cy;
  B->rd = B->wr = NEVER_; /* column history of the new row */
  R->faw[R->faw_i] = cy;
  R->faw_i = (R->faw_i + 1) & 3u;
}

TC_COLD_ static void pre_rules(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank,
                               const tcheck_bank_ *B, const tcheck_rank_ *R) {
  CUR_(kk, cy, MC_CMD_PRE, rank, bg, bank);
  const cur_ *k = &kk;
  const dram_timing *t = &R->t;
  spacing(c, k, TCHECK_RAS, "ACT -> PRE same bank", B->act, MC_CMD_ACT, t->RAS);
  spacing(c, k, TCHECK_RTP, "RD -> PRE same bank", B->rd, MC_CMD_RD, t->RTP);
  spacing(c, k, TCHECK_WR, "WR -> PRE same bank: CWL + tBURST + tWR", B->wr, MC_CMD_WR, B->wr_need);
  if (t->RRD_PRE && (B->dirty || R->pre_writes_all))
    spacing(c, k, TCHECK_RRD_PRE, "array-writing PRE -> array-writing PRE same rank", R->wpre, MC_CMD_PRE,
            t->RRD_PRE);
}

static inline void do_pre(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank, tcheck_bank_ *B,
                          tcheck_rank_ *R) {
  const dram_timing *t = &R->t;
  if (!B->open) { /* PRE of an idle bank: a no-op (JEDEC), no timing, no state */
    c->pre_idle++;
    return;
  }
  const int wpre = t->RRD_PRE && (B->dirty || R->pre_writes_all); /* writes the array (tRRD_PRE) */
  const int bad = (cy - B->act < (int64_t)t->RAS) | (cy - B->rd < (int64_t)t->RTP) | (cy - B->wr < B->wr_need) |
                  (wpre & (cy - R->wpre < (int64_t)t->RRD_PRE));
  if (TC_UNLIKELY_(bad)) pre_rules(c, cy, rank, bg, bank, B, R);
  if (wpre) R->wpre = cy;
  B->pre_dirty = B->dirty;
  B->rp_need = B->dirty && t->RP_DIRTY ? t->RP_DIRTY : t->RP;
  B->open = 0;
  B->dirty = 0;
  R->nopen--;
  B->pre = cy;
  if (R->pre == NEVER_ || cy + B->rp_need > R->pre + R->pre_need) {
    R->pre = cy;
    R->pre_need = B->rp_need;
    R->pre_dirty = B->pre_dirty && t->RP_DIRTY;
  }
}

TC_COLD_ static void col_rules(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank,
                               const tcheck_bank_ *B, const tcheck_group_ *G, const tcheck_rank_ *R, uint64_t row,
                               int rd, int64_t start) {
  CUR_(kk, cy, rd ? MC_CMD_RD : MC_CMD_WR, rank, bg, bank);
  const cur_ *k = &kk;
  const dram_timing *t = &R->t;
  if (!B->open)
    violation(c, k, TCHECK_COL_CLOSED, "%s (row %llu)", tcheck_rule_name(TCHECK_COL_CLOSED), (unsigned long long)row);
  else if (B->row != row)
    violation(c, k, TCHECK_COL_ROW, "%s: row %llu, open row %llu", tcheck_rule_name(TCHECK_COL_ROW),
              (unsigned long long)row, (unsigned long long)B->row);
  spacing(c, k, TCHECK_RCD, "ACT -> RD/WR same bank", B->act, MC_CMD_ACT, B->rcd);
  if (rd) {
    spacing(c, k, TCHECK_CCD_L, "RD -> RD same bank group", G->rd, MC_CMD_RD, t->CCD_L);
    spacing(c, k, TCHECK_CCD_S, "RD -> RD same rank", R->rd, MC_CMD_RD, t->CCD_S);
    spacing(c, k, TCHECK_WTR_L, "WR -> RD same bank group: CWL + tBURST + tWTR_L", G->wr, MC_CMD_WR,
            (int64_t)t->CWL + t->BURST + t->WTR_L);
    spacing(c, k, TCHECK_WTR_S, "WR -> RD same rank: CWL + tBURST + tWTR_S", R->wr, MC_CMD_WR,
            (int64_t)t->CWL + t->BURST + t->WTR_S);
  } else {
    spacing(c, k, TCHECK_CCD_L, "WR -> WR same bank group", G->wr, MC_CMD_WR, t->CCD_L);
    spacing(c, k, TCHECK_CCD_S, "WR -> WR same rank", R->wr, MC_CMD_WR, t->CCD_S);
    spacing(c, k, TCHECK_RTW, "RD -> WR same rank", R->rd, MC_CMD_RD, t->RTW);
  }
  if (c->bus_end != NEVER_ && start < c->bus_end)
    violation(c, k, TCHECK_DATA_BUS, "%s: burst starts at cycle %lld, the previous burst ends at cycle %lld",
              tcheck_rule_name(TCHECK_DATA_BUS), (long long)start, (long long)c->bus_end);
  else if (c->bus_end != NEVER_ && c->bus_rank != k->rank && start < c->bus_end + (int64_t)c->t.RTRS)
    violation(c, k, TCHECK_RTRS,
              "%s (rank switch on the data bus) needs the burst to start %u cycles after rank %u's burst ended at cycle "
              "%lld, got %lld",
              tcheck_rule_name(TCHECK_RTRS), c->t.RTRS, c->bus_rank, (long long)c->bus_end,
              (long long)(start - c->bus_end));
}

static inline void do_col(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank, tcheck_bank_ *B,
                          tcheck_group_ *G, tcheck_rank_ *R, uint64_t row, int rd) {
  const dram_timing *t = &R->t;
  const int64_t start = cy + (rd ? t->CL : t->CWL);
  /* data bus: the burst starts after the previous one ended (NEVER_: far in the past), tRTRS later after another
   * rank's burst */
  int bad = !B->open | (B->row != row) | (cy - B->act < (int64_t)B->rcd) |
            (start < c->bus_end + (c->bus_rank != rank ? (int64_t)c->t.RTRS : 0));
  if (rd)
    bad |= (cy - G->rd < (int64_t)t->CCD_L) | (cy - R->rd < (int64_t)t->CCD_S) | (cy - G->wr < R->wtr_l_need) |
           (cy - R->wr < R->wtr_s_need);
  else
    bad |= (cy - G->wr < (int64_t)t->CCD_L) | (cy - R->wr < (int64_t)t->CCD_S) | (cy - R->rd < (int64_t)t->RTW);
  if (TC_UNLIKELY_(bad)) col_rules(c, cy, rank, bg, bank, B, G, R, row, rd, start);
  if (rd) {
    B->rd = G->rd = R->rd = cy;
  } else {
    B->wr = G->wr = R->wr = cy;
    B->wr_need = R->wr_need;
    B->dirty = 1;
  }
  const int64_t end = start + t->BURST;
  if (end > c->bus_end) {
    c->bus_end = end;
    c->bus_rank = rank;
  }
  R->burst_end = end;
}

/* Power-down / gating exit at k->cycle, entered at `entry` (kind 1: gated). */
static void do_pdx(tcheck *c, const cur_ *k, tcheck_rank_ *R, int64_t entry, int gated) {
  const dram_timing *t = &R->t;
  if (R->nopen)
    violation(c, k, TCHECK_PD_ENTRY, "%s: %u bank(s) open at entry (cycle %lld)", tcheck_rule_name(TCHECK_PD_ENTRY),
              R->nopen, (long long)entry);
  else if (entry <= R->last || entry < R->burst_end || entry > k->cycle)
    violation(c, k, TCHECK_PD_ENTRY, "%s at cycle %lld: last command at %lld, last burst ends at %lld, exit at %lld",
              tcheck_rule_name(TCHECK_PD_ENTRY), (long long)entry, (long long)R->last, (long long)R->burst_end,
              (long long)k->cycle);
  if (!gated && k->cycle - entry < (int64_t)t->CKE)
    violation(c, k, TCHECK_CKE, "%s (power-down entry -> exit) needs %u cycles after entry at cycle %lld, got %lld",
              tcheck_rule_name(TCHECK_CKE), t->CKE, (long long)entry, (long long)(k->cycle - entry));
  R->pdx = k->cycle;
  R->pdx_need = gated ? t->WAKE : t->XP;
  R->pdx_gated = (uint8_t)gated;
}

static void do_ref(tcheck *c, const cur_ *k, tcheck_rank_ *R) {
  const dram_timing *t = &R->t;
  if (t->REFI == 0) violation(c, k, TCHECK_REF_NONE, "%s", tcheck_rule_name(TCHECK_REF_NONE));
  if (R->nopen) violation(c, k, TCHECK_REF_OPEN, "%s: %u bank(s) open", tcheck_rule_name(TCHECK_REF_OPEN), R->nopen);
  if (R->pre_dirty)
    spacing(c, k, TCHECK_RP_DIRTY, "dirty PRE -> REF same rank", R->pre, MC_CMD_PRE, R->pre_need);
  else
    spacing(c, k, TCHECK_RP, "PRE -> REF same rank", R->pre, MC_CMD_PRE, R->pre_need);
  if (t->RC) spacing(c, k, TCHECK_RC, "ACT -> REF same rank", R->act, MC_CMD_ACT, t->RC);
  spacing(c, k, TCHECK_RFC, "REF -> REF same rank", R->ref, MC_CMD_REF, t->RFC);
  spacing(c, k, TCHECK_RFC, "REFPB -> REF same rank", R->refpb, MC_CMD_REFPB, t->RFC_PB);
  R->ref = R->ref_base = k->cycle;
  const uint32_t r = (uint32_t)(R - c->rk);
  for (uint32_t b = r * c->banks_per_rank; b < (r + 1) * c->banks_per_rank; ++b) c->banks[b].refd = k->cycle;
  update_deadline(c);
}

/* Per-bank refresh (JESD235 REFSB, LPDDR4 REFpb): the bank must be closed,
 * tRP / tRC after its PRE / ACT, tRFC after an all-bank REF, tRFC_PB after
 * its previous per-bank REF; it refreshes only that bank (the interval rule
 * then runs on the oldest refresh of the rank's banks). */
static void do_refpb(tcheck *c, const cur_ *k, tcheck_bank_ *B, tcheck_rank_ *R) {
  const dram_timing *t = &R->t;
  if (t->REFI == 0 || t->RFC_PB == 0)
    violation(c, k, TCHECK_REF_NONE, "%s (per-bank)", tcheck_rule_name(TCHECK_REF_NONE));
  if (B->open)
    violation(c, k, TCHECK_REF_OPEN, "%s: row %llu of the bank is open", tcheck_rule_name(TCHECK_REF_OPEN),
              (unsigned long long)B->row);
  if (B->pre_dirty && t->RP_DIRTY)
    spacing(c, k, TCHECK_RP_DIRTY, "dirty PRE -> REFPB same bank", B->pre, MC_CMD_PRE, B->rp_need);
  else
    spacing(c, k, TCHECK_RP, "PRE -> REFPB same bank", B->pre, MC_CMD_PRE, B->rp_need);
  if (t->RC) spacing(c, k, TCHECK_RC, "ACT -> REFPB same bank", B->act, MC_CMD_ACT, t->RC);
  spacing(c, k, TCHECK_RFC, "REF -> REFPB same rank", R->ref, MC_CMD_REF, t->RFC);
  spacing(c, k, TCHECK_RFC, "REFPB -> REFPB same bank", B->refpb, MC_CMD_REFPB, t->RFC_PB);
  B->refpb = B->refd = R->refpb = k->cycle;
  const uint32_t r = (uint32_t)(R - c->rk);
  int64_t base = k->cycle;
  for (uint32_t b = r * c->banks_per_rank; b < (r + 1) * c->banks_per_rank; ++b)
    if (c->banks[b].refd < base) base = c->banks[b].refd;
  R->ref_base = base;
  update_deadline(c);
}

/* Address out of range or unknown command. */
TC_COLD_ static void bad_addr(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank) {
  CUR_(k, cy, (unsigned)cmd >= MC_NCMDS ? MC_CMD_ACT : cmd, rank, bg, bank);
  const dram_preset *d = c->dev;
  violation(c, &k, TCHECK_ADDR, "%s out of range (command %d, %u ranks, %u bank groups x %u banks)",
            tcheck_rule_name(TCHECK_ADDR), (int)cmd, c->ranks, d->bankgroups, d->banks_per_group);
}

/* Command order and command-bus slots (the slow path of the test in bus_cmd). */
TC_COLD_ static void bus_rules(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                               int row_cmd) {
  CUR_(kk, cy, cmd, rank, bg, bank);
  const cur_ *k = &kk;
  if (k->cycle < c->last_cmd) {
    violation(c, k, TCHECK_ORDER, "%s: issued after a command at cycle %lld", tcheck_rule_name(TCHECK_ORDER),
              (long long)c->last_cmd);
  } else if (c->dual) {
    const int64_t prev = row_cmd ? c->last_row_cmd : c->last_col_cmd;
    if (k->cycle == prev)
      violation(c, k, TCHECK_CMD_BUS, "%s: second %s command in cycle %lld (one row + one column command per cycle)",
                tcheck_rule_name(TCHECK_CMD_BUS), row_cmd ? "row" : "column", (long long)prev);
  } else if (k->cycle == c->last_cmd) {
    violation(c, k, TCHECK_CMD_BUS, "%s: second command in cycle %lld (one command per cycle)",
              tcheck_rule_name(TCHECK_CMD_BUS), (long long)c->last_cmd);
  }
}

TC_COLD_ static void refresh_at(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank) {
  CUR_(k, cy, cmd, rank, bg, bank);
  refresh_interval(c, &k, cy);
}

TC_COLD_ static void xp_rule(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank) {
  CUR_(k, cy, cmd, rank, bg, bank);
  const tcheck_rank_ *R = &c->rk[rank];
  violation(c, &k, TCHECK_XP, "%s (%s -> any command same rank) needs %lld cycles after the exit at cycle %lld, got %lld",
            R->pdx_gated ? "tWAKE" : "tXP", R->pdx_gated ? "power-gating wake-up" : "power-down exit",
            (long long)R->pdx_need, (long long)R->pdx, (long long)(cy - R->pdx));
}

/* The rules every bus command shares (command order and bus slot, refresh
 * interval, tXP / tWAKE of its rank) and their history; returns the rank. */
static inline tcheck_rank_ *bus_cmd(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                                    int row_cmd) {
  c->cmds[cmd]++;
  /* a command before the last one, or in the slot of the last command on its bus (single bus: the last command;
   * dual bus: the last row or column command) */
  const int64_t slot = !c->dual ? c->last_cmd : row_cmd ? c->last_row_cmd : c->last_col_cmd;
  if (TC_UNLIKELY_(cy < c->last_cmd || cy == slot)) bus_rules(c, cy, cmd, rank, bg, bank, row_cmd);
  if (cy > c->last_cmd) c->last_cmd = cy;
  if (row_cmd) c->last_row_cmd = cy;
  else c->last_col_cmd = cy;
  if (TC_UNLIKELY_(cy > c->ref_deadline)) refresh_at(c, cy, cmd, rank, bg, bank);
  tcheck_rank_ *R = &c->rk[rank];
  if (TC_UNLIKELY_(cy - R->pdx < R->pdx_need)) xp_rule(c, cy, cmd, rank, bg, bank); /* no exit yet: pdx = NEVER_ */
  R->last = cy;
  return R;
}

/* ACT, PRE, RD, WR: the hot commands, one function each (tail calls of the dispatch in tcheck_cmd, each
 * with only the registers it needs). */
TC_NOINLINE_ static void act_cmd(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row) {
  if (TC_UNLIKELY_(rank >= c->ranks || bg >= c->nbg || bank >= c->nbpg)) {
    bad_addr(c, cy, MC_CMD_ACT, rank, bg, bank);
    return;
  }
  tcheck_rank_ *R = bus_cmd(c, cy, MC_CMD_ACT, rank, bg, bank, 1);
  do_act(c, cy, rank, bg, bank, &c->banks[rank * c->banks_per_rank + bg * c->nbpg + bank],
         &c->groups[rank * c->nbg + bg], R, row);
}

TC_NOINLINE_ static void pre_cmd(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank) {
  if (TC_UNLIKELY_(rank >= c->ranks || bg >= c->nbg || bank >= c->nbpg)) {
    bad_addr(c, cy, MC_CMD_PRE, rank, bg, bank);
    return;
  }
  tcheck_rank_ *R = bus_cmd(c, cy, MC_CMD_PRE, rank, bg, bank, 1);
  do_pre(c, cy, rank, bg, bank, &c->banks[rank * c->banks_per_rank + bg * c->nbpg + bank], R);
}

TC_NOINLINE_ static void col_cmd(tcheck *c, int64_t cy, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row, int rd) {
  const mc_cmd cmd = rd ? MC_CMD_RD : MC_CMD_WR;
  if (TC_UNLIKELY_(rank >= c->ranks || bg >= c->nbg || bank >= c->nbpg)) {
    bad_addr(c, cy, cmd, rank, bg, bank);
    return;
  }
  tcheck_rank_ *R = bus_cmd(c, cy, cmd, rank, bg, bank, 0);
  do_col(c, cy, rank, bg, bank, &c->banks[rank * c->banks_per_rank + bg * c->nbpg + bank],
         &c->groups[rank * c->nbg + bg], R, row, rd);
}

/* REF, REFPB, PDX and unknown commands. */
TC_COLD_ static void other_cmd(tcheck *c, int64_t cy, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                               uint64_t row) {
  if ((unsigned)cmd >= MC_NCMDS || rank >= c->ranks ||
      (cmd == MC_CMD_REFPB && (bg >= c->nbg || bank >= c->nbpg))) {
    bad_addr(c, cy, cmd, rank, bg, bank);
    return;
  }
  CUR_(k, cy, cmd, rank, bg, bank);
  if (cmd == MC_CMD_PDX) { /* on CKE, not the command bus; may be reported ahead of other ranks' commands */
    c->cmds[cmd]++;
    do_pdx(c, &k, &c->rk[rank], (int64_t)row, bg != 0);
    return;
  }
  tcheck_rank_ *R = bus_cmd(c, cy, cmd, rank, bg, bank, 1);
  if (cmd == MC_CMD_REF) do_ref(c, &k, R);
  else do_refpb(c, &k, &c->banks[rank * c->banks_per_rank + bg * c->nbpg + bank], R);
}

void tcheck_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                uint32_t col) {
  tcheck *c = ctx;
  (void)col;
  c->checked++;
  switch (cmd) {
    case MC_CMD_ACT: act_cmd(c, (int64_t)cycle, rank, bg, bank, row); return;
    case MC_CMD_PRE: pre_cmd(c, (int64_t)cycle, rank, bg, bank); return;
    case MC_CMD_RD: col_cmd(c, (int64_t)cycle, rank, bg, bank, row, 1); return;
    case MC_CMD_WR: col_cmd(c, (int64_t)cycle, rank, bg, bank, row, 0); return;
    default: other_cmd(c, (int64_t)cycle, cmd, rank, bg, bank, row); return;
  }
}

void tcheck_finish(tcheck *c, uint64_t now) {
  if ((int64_t)now <= c->ref_deadline) return;
  cur_ k = {(int64_t)now, MC_CMD_REF, 0, 0, 0, 1};
  refresh_interval(c, &k, (int64_t)now);
}

/* ---------------------------------------------------------------- query */

int tcheck_ok(const tcheck *c) { return c->violations == 0; }
const char *tcheck_error(const tcheck *c) { return c->violations ? c->msg : ""; }
tcheck_rule tcheck_first_rule(const tcheck *c) { return c->violations ? c->first_rule : TCHECK_OK; }
uint64_t tcheck_first_cycle(const tcheck *c) { return c->violations ? c->first_cycle : 0; }
uint64_t tcheck_checked(const tcheck *c) { return c->checked; }
