/* mc: memory-controller engine for one channel. See mc.h for the model.
 *
 * Implementation notes
 *  - Every timing constraint is kept as an "earliest legal cycle" per scope
 *    (bank, bank group, rank, channel buses), updated when a command issues
 *    (the Ramulator/DRAMSys formulation: {scope, preceding cmd, following cmd,
 *    latency} folded into next-allowed times). Whether a command is legal at
 *    cycle t is then a handful of max() operations.
 *  - Each bank caches its FR-FCFS candidate (the one command it would issue
 *    next: column command for its oldest row hit, else PRE for a conflict,
 *    else ACT for its oldest request). The cache is invalidated only when the
 *    bank's queue or state, the read/write mode or the rank's refresh state
 *    changes (and not by a submission that cannot change it: cand_kept).
 *  - Candidates are grouped in classes per rank (ACT / column command per
 *    bank group, PRE, array-writing PRE) sharing every constraint but the
 *    bank's own; each class keeps a floor (rank / group / bus terms,
 *    recomputed per row or column half after a command), its smallest own
 *    earliest cycle and its oldest candidate. A scheduling pass is then a few
 *    operations per non-empty class (mc.h, docs/memctrl.md "Scheduling
 *    pass"), and it keeps the commands legal at the next event for
 *    mc_advance there: one pass per command.
 *  - Completions are two FIFOs (reads, writes): CL and CWL are constants, so
 *    data returns in column-command order within each direction (or, with
 *    mc_cfg.done_at_issue, are reported when the last column command issues).
 *  - Power states cost no events: a rank is idle (all banks closed, nothing
 *    queued, no refresh pending) from its last command on, so its power-down
 *    entry is last_cmd + pd_idle (not before its last burst ends) and its
 *    gating entry last_cmd + tGATE_IDLE. Only when the idleness ends (a
 *    submission for the rank, its refresh falling due: rank_wake) is the exit
 *    decided, the time accounted and tXP / tWAKE folded into the rank's
 *    act_ok (all its banks are closed, so ACT or REF comes next; ref_earliest
 *    reads it too) -- a rank-level timing change, so the floors are
 *    invalidated; an idle rank has no candidates, so no cached candidate
 *    changes. Standby time is split at every ACT opening the rank's first
 *    bank and every PRE closing its last one.
 */
#include "mc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
enum { FLOORS_ROW = 1, FLOORS_COL = 2, FLOORS_ALL = 3 };

enum { C_NONE = 0, C_ACT, C_PRE, C_COL };
enum { K_HIT = 0, K_MISS = 1, K_CONFLICT = 2 };

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

const char *mc_cmd_name(mc_cmd c) {
  switch (c) {
    case MC_CMD_ACT: return "ACT";
    case MC_CMD_PRE: return "PRE";
    case MC_CMD_RD: return "RD";
    case MC_CMD_WR: return "WR";
    case MC_CMD_REF: return "REF";
    case MC_CMD_PDX: return "PDX";
    case MC_CMD_REFPB: return "REFPB";
  }
  return "?";
}

/* ------------------------------------------------------------------ init */

/* ref_due_min and ref_npend from the ranks (after a refresh state change). */
static void ref_update(mc *m) {
  uint64_t e = MC_NEVER;
  uint32_t np = 0;
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) {
    if (m->ranks[r].ref_pending) np++;
    else if (m->ranks[r].ref_due < e) e = m->ranks[r].ref_due;
  }
  m->ref_due_min = e;
  m->ref_npend = np;
}

void mc_free(mc *m) {
  if (!m) return;
  free(m->atoms);
  free(m->parents);
  free(m->banks);
  free(m->groups);
  free(m->ranks);
  free(m->live);
  free(m->floor);
  free(m->cmask);
  free(m->cmin);
  free(m->cold);
  free(m->cbase);
  free(m->ccol);
  free(m->c_own);
  free(m->c_seq);
  free(m->c_floor);
  free(m->c_kind);
  free(m->stale_w);
  for (int q = 0; q < 2; ++q) {
    free(m->ring[q].t);
    free(m->ring[q].parent);
  }
  memset(m, 0, sizeof *m);
}

int mc_init(mc *m, const mc_cfg *cfg, char *err, size_t errlen) {
#define FAIL(...)                                           \
  do {                                                      \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__);  \
    mc_free(m);                                             \
    return -1;                                              \
  } while (0)
  memset(m, 0, sizeof *m);
  if (!cfg || !cfg->dev) FAIL("mc: no device preset");
  if (dram_validate(cfg->dev, err, errlen) != 0) {
    mc_free(m);
    return -1;
  }
  if (cfg->ranks < 1 || cfg->ranks > 255) FAIL("mc: ranks must be 1..255, got %u", cfg->ranks);
  if (cfg->rq_size < 1 || cfg->wq_size < 1) FAIL("mc: queue sizes must be >= 1");
  if (cfg->wq_high < 1 || cfg->wq_high > cfg->wq_size)
    FAIL("mc: wq_high must be 1..write queue size (%u), got %u", cfg->wq_size, cfg->wq_high);
  if (cfg->wq_low >= cfg->wq_high) FAIL("mc: wq_low (%u) must be < wq_high (%u)", cfg->wq_low, cfg->wq_high);
  if (cfg->rank_devs)
    for (uint32_t r = 0; r < cfg->ranks; ++r) {
      const dram_preset *rd = cfg->rank_devs[r];
      if (!rd) FAIL("mc: rank %u has no device preset", r);
      if (rd == cfg->dev) continue;
      if (dram_validate(rd, err, errlen) != 0) {
        mc_free(m);
        return -1;
      }
      char why[160];
      if (!dram_same_interface(cfg->dev, rd, why, sizeof why))
        FAIL("mc: rank %u (%s) cannot share a channel with %s: %s", r, rd->name, cfg->dev->name, why);
    }
  m->cfg = *cfg;
  m->t = cfg->dev->t;
  const dram_preset *d = cfg->dev;
  m->banks_per_rank = d->bankgroups * d->banks_per_group;
  m->nbanks = cfg->ranks * m->banks_per_rank;
  m->natoms = cfg->rq_size + cfg->wq_size;
  /* At most one column command per cycle, each in flight for <= max(CL,CWL)+tBURST cycles. */
  const uint32_t ringcap = (m->t.CL > m->t.CWL ? m->t.CL : m->t.CWL) + m->t.BURST + 2;
  m->nparents = m->natoms + 2 * ringcap;
  m->atoms = calloc(m->natoms, sizeof *m->atoms);
  m->parents = calloc(m->nparents, sizeof *m->parents);
  m->banks = calloc(m->nbanks, sizeof *m->banks);
  m->groups = calloc((size_t)cfg->ranks * d->bankgroups, sizeof *m->groups);
  m->ranks = calloc(cfg->ranks, sizeof *m->ranks);
  if (m->ranks)
    for (uint32_t r = 0; r < cfg->ranks; ++r) {
      const dram_preset *rd = cfg->rank_devs ? cfg->rank_devs[r] : d;
      m->ranks[r].dev = rd;
      m->ranks[r].idx = r;
      m->ranks[r].t = rd->t;
      if (rd != d) m->mixed = 1;
    }
  m->nwords = (m->nbanks + 63) / 64;
  m->live = calloc(m->nwords, sizeof *m->live);
  m->ngroups = cfg->ranks * d->bankgroups;
  if (m->banks_per_rank > 64) FAIL("mc: at most 64 banks per rank, %s has %u", d->name, m->banks_per_rank);
  m->cpr = 2 * d->bankgroups + 2;
  m->nclasses = cfg->ranks * m->cpr;
  m->floor = calloc(m->nclasses, sizeof *m->floor);
  m->cmask = calloc(m->nclasses, sizeof *m->cmask);
  m->cmin = calloc(m->nclasses, sizeof *m->cmin);
  m->cold = calloc(m->nclasses, sizeof *m->cold);
  m->cbase = calloc(m->nclasses, sizeof *m->cbase);
  m->ccol = calloc(m->nclasses, sizeof *m->ccol);
  if (m->cmin && m->cold && m->cbase && m->ccol)
    for (uint32_t c = 0; c < m->nclasses; ++c) {
      const uint32_t k = c % m->cpr;
      m->cmin[c] = MC_NEVER;
      m->cold[c] = NIL;
      m->cbase[c] = (c / m->cpr) * m->banks_per_rank;
      m->ccol[c] = (uint8_t)(k >= d->bankgroups && k < 2 * d->bankgroups);
      if (m->ccol[c] && c < 64) m->ccol_bits |= 1ull << c;
    }
  m->c_own = calloc(m->nbanks, sizeof *m->c_own);
  m->c_seq = calloc(m->nbanks, sizeof *m->c_seq);
  m->c_floor = calloc(m->nbanks, sizeof *m->c_floor);
  m->c_kind = calloc(m->nbanks, sizeof *m->c_kind);
  m->stale_w = calloc(m->nwords, sizeof *m->stale_w);
  for (int q = 0; q < 2; ++q) {
    m->ring[q].cap = ringcap;
    m->ring[q].t = calloc(ringcap, sizeof *m->ring[q].t);
    m->ring[q].parent = calloc(ringcap, sizeof *m->ring[q].parent);
    if (!m->ring[q].t || !m->ring[q].parent) FAIL("mc: out of memory");
  }
  if (!m->atoms || !m->parents || !m->banks || !m->groups || !m->ranks || !m->live || !m->floor || !m->cmask ||
      !m->cmin || !m->cold || !m->cbase || !m->ccol || !m->c_own ||
      !m->c_seq || !m->c_floor || !m->c_kind || !m->stale_w)
    FAIL("mc: out of memory");
  for (uint32_t i = 0; i < m->natoms; ++i) m->atoms[i].next = i + 1 < m->natoms ? i + 1 : NIL;
  m->atom_free = 0;
  for (uint32_t i = 0; i < m->nparents; ++i) m->parents[i].remaining = i + 1 < m->nparents ? i + 1 : NIL;
  m->parent_free = 0;
  for (uint32_t b = 0; b < m->nbanks; ++b) {
    mc_bank_ *B = &m->banks[b];
    B->head[0] = B->head[1] = B->tail[0] = B->tail[1] = NIL;
    B->cand_atom = NIL;
    B->rank = (uint8_t)(b / m->banks_per_rank);
    B->bg = (uint8_t)((b % m->banks_per_rank) / d->banks_per_group);
    B->ba = b % d->banks_per_group;
    B->gi = (uint32_t)B->rank * d->bankgroups + B->bg;
    B->idx = b;
    B->rbase = (uint32_t)B->rank * m->banks_per_rank;
    B->cls_act = (uint32_t)B->rank * m->cpr + B->bg;
    B->cls_pre = (uint32_t)B->rank * m->cpr + 2 * d->bankgroups;
    B->stale = 1;
    m->live[b >> 6] |= 1ull << (b & 63);
    m->stale_w[b >> 6] |= 1ull << (b & 63);
  }

  m->bus_rank = NIL;
  m->lp_on = (uint8_t)(cfg->pd_idle != 0);
  for (uint32_t r = 0; r < cfg->ranks; ++r) {
    mc_rank_ *R = &m->ranks[r];
    const dram_timing *t = &R->dev->t;
    /* Refresh: DRAM ranks only (an NVM rank has tREFI 0 and never falls due).
     * Per-bank refresh (JESD235 REFSB, LPDDR4 REFpb): one bank every tREFI /
     * banks, round robin, each blocking only its bank for tRFC_PB, so the
     * rank's banks are all refreshed once per tREFI. */
    const int refreshes = cfg->refresh && t->REFI > 0;
    R->ref_pb = (uint8_t)(refreshes && cfg->refresh_per_bank && t->RFC_PB > 0);
    R->refi_pb = R->ref_pb ? t->REFI / m->banks_per_rank : t->REFI;
    if (R->ref_pb && R->refi_pb == 0) R->refi_pb = 1;
    if (refreshes) m->refresh_on = 1;
    R->gate_idle = cfg->nvm_gating ? t->GATE_IDLE : 0;
    if (R->gate_idle) m->lp_on = 1;
    R->pre_writes_all = (uint8_t)(R->dev->tech == DRAM_TECH_DRAM);
    /* ranks staggered across one refresh interval */
    R->ref_due = refreshes ? R->refi_pb + (uint64_t)r * (R->refi_pb / cfg->ranks) : MC_NEVER;
  }
  ref_update(m);
  return 0;
#undef FAIL
}

void mc_set_done(mc *m, mc_done_fn fn, void *ctx) {
  m->done = fn;
  m->done_ctx = ctx;
}

void mc_set_cmd_log(mc *m, mc_cmd_fn fn, void *ctx) {
  m->cmd_log = fn;
  m->cmd_ctx = ctx;
}

/* -------------------------------------------------------------- helpers */

static inline uint32_t bank_index(const mc *m, uint32_t rank, uint32_t bg, uint32_t ba) {
  return rank * m->banks_per_rank + bg * m->cfg.dev->banks_per_group + ba;
}

static inline mc_group_ *group_of(mc *m, const mc_bank_ *B) {
  return &m->groups[B->gi];
}

static void occ_touch(mc *m, uint64_t now) {
  if (now > m->occ_t) {
    const uint64_t dt = now - m->occ_t;
    m->st.rq_occ_sum += (uint64_t)m->rq_n * dt;
    m->st.wq_occ_sum += (uint64_t)m->wq_n * dt;
    m->occ_t = now;
  }
}

/* Mark a bank's candidate for recomputation (and the bank live). */
static inline void stale_bank(mc *m, mc_bank_ *B) {
  const uint32_t b = B->idx;
  B->stale = 1;
  m->stale_w[b >> 6] |= 1ull << (b & 63);
  m->cand_valid = 0;
  m->best_valid = 0;
  m->live[b >> 6] |= 1ull << (b & 63);
}

static void stale_all(mc *m) {
  m->floors_valid &= (uint8_t)~FLOORS_COL; /* called on read/write mode switches: the column floors change */
  for (uint32_t b = 0; b < m->nbanks; ++b) stale_bank(m, &m->banks[b]);
}

static void stale_rank(mc *m, uint32_t r) {
  for (uint32_t b = r * m->banks_per_rank; b < (r + 1) * m->banks_per_rank; ++b) stale_bank(m, &m->banks[b]);
}

static void compute_cand(mc *m, mc_bank_ *B);

static void cand_update(mc *m, mc_bank_ *B);

/* 1 if some bank's write candidate is a row hit (write mode): the stale
 * candidates brought up to date (as the next pass would), then a column
 * class with a member. */
static int write_hits_left(mc *m) {
  for (uint32_t w = 0; w < m->nwords; ++w) {
    uint64_t bits = m->stale_w[w];
    m->stale_w[w] = 0;
    for (; bits; bits &= bits - 1) cand_update(m, &m->banks[w * 64 + (uint32_t)__builtin_ctzll(bits)]);
  }
  if (m->nclasses <= 64) return (m->cnz & m->ccol_bits) != 0;
  for (uint32_t c = 0; c < m->nclasses; ++c)
    if (m->ccol[c] && m->cmask[c]) return 1;
  return 0;
}

/* Write-drain hysteresis: forced drain from wq_high down to wq_low; an
 * opportunistic drain (no reads waiting) ends as soon as a read arrives. */
static void update_mode_(mc *m) {
  if (!m->write_mode) {
    if (m->wq_n >= m->cfg.wq_high || (m->rq_n == 0 && m->wq_n > 0)) {
      m->write_mode = 1;
      m->forced_drain = m->wq_n >= m->cfg.wq_high;
      m->drain_extra = m->cfg.wq_low;
      m->st.write_drains++;
      stale_all(m);
    }
  } else {
    if (m->wq_n >= m->cfg.wq_high && !m->forced_drain) {
      m->forced_drain = 1;
      m->drain_extra = m->cfg.wq_low;
    }
    int stop = m->wq_n == 0 || (m->rq_n > 0 && (!m->forced_drain || m->wq_n <= m->cfg.wq_low));
    /* Finish write row hits to rows the drain already opened before leaving
     * it (each one left behind costs a row re-open in the next drain); at most
     * wq_low extra writes, so reads are never starved. */
    if (stop && m->wq_n && m->forced_drain && m->drain_extra && write_hits_left(m)) stop = 0;
    if (stop) {
      m->write_mode = 0;
      m->forced_drain = 0;
      stale_all(m);
    }
  }
}

/* 1 when update_mode() would change anything now (conservative: a forced
 * drain that would continue for write row hits counts as a change). */
static inline int mode_change_pending(const mc *m) {
  if (!m->write_mode) return m->wq_n >= m->cfg.wq_high || (m->rq_n == 0 && m->wq_n > 0);
  if (m->wq_n >= m->cfg.wq_high && !m->forced_drain) return 1;
  return m->wq_n == 0 || (m->rq_n > 0 && (!m->forced_drain || m->wq_n <= m->cfg.wq_low));
}

/* update_mode when it would change anything (the common case: nothing). */
static inline void update_mode(mc *m) {
  if (mode_change_pending(m)) update_mode_(m);
}

static int queue_has_row(const mc *m, const mc_bank_ *B, int q, uint64_t row) {
  for (uint32_t i = B->head[q]; i != NIL; i = m->atoms[i].next)
    if (m->atoms[i].row == row) return 1;
  return 0;
}

static void compute_cand_(mc *m, mc_bank_ *B);

/* Smallest own earliest cycle among the banks of class c (rank base rb). */
static inline void class_min(mc *m, uint32_t c, uint32_t rb) {
  uint64_t v = MC_NEVER;
  for (uint64_t bits = m->cmask[c]; bits; bits &= bits - 1) v = min64(v, m->c_own[rb + (uint32_t)__builtin_ctzll(bits)]);
  m->cmin[c] = v;
}
/* 1 when bank a's candidate is older than bank b's (FR-FCFS order: smaller
 * seq; equal seqs -- refresh and closed-page PREs -- the lower bank). */
static inline int older(const mc *m, uint32_t a, uint32_t b) {
  return m->c_seq[a] < m->c_seq[b] || (m->c_seq[a] == m->c_seq[b] && a < b);
}
/* Oldest candidate of class c (rank base rb). */
static inline void class_oldest(mc *m, uint32_t c, uint32_t rb) {
  uint32_t o = NIL;
  for (uint64_t bits = m->cmask[c]; bits; bits &= bits - 1) {
    const uint32_t b = rb + (uint32_t)__builtin_ctzll(bits);
    if (o == NIL || older(m, b, o)) o = b;
  }
  m->cold[c] = o;
}

/* The FR-FCFS candidate of one bank under the current mode; a bank without
 * one leaves the live set until it is marked stale again. */
static void compute_cand(mc *m, mc_bank_ *B) {
  m->stale_w[B->idx >> 6] &= ~(1ull << (B->idx & 63));
  cand_update(m, B);
}
/* compute_cand without clearing the bank's stale bit (scan clears whole words). */
static void cand_update(mc *m, mc_bank_ *B) {
  const uint32_t b = B->idx;
  const uint32_t old = m->c_kind[b] != C_NONE ? m->c_floor[b] : UINT32_MAX;
  const uint64_t old_own = m->c_own[b], old_seq = m->c_seq[b];
  const uint8_t old_kind = m->c_kind[b];
  compute_cand_(m, B);
  if (B->cand == C_COL && old_kind == C_COL && B->col_ok == old_own) {
    /* The usual case after a column command: another column command of the
     * bank (its row stays open, col_ok is the ACT's), so the same class
     * (mode switches refile every bank through stale_all, but the class of a
     * column command does not depend on the mode) and the same own earliest
     * cycle: membership and class minimum stand, only the oldest may change.
     * When the new candidate is the atom submitted right after the old one
     * (seq + 1: the next sector of the same line), no other candidate of the
     * class lies between them (seqs are unique), so a bank that was the
     * oldest stays the oldest. */
    m->c_seq[b] = B->cand_seq;
    const uint32_t cls = old, o = m->cold[cls];
    if (o == b) {
      if (B->cand_seq != old_seq + 1) class_oldest(m, cls, B->rbase);
    } else if (o == NIL || older(m, b, o)) {
      m->cold[cls] = b;
    }
    return;
  }
  m->c_kind[b] = B->cand;
  m->c_seq[b] = B->cand_seq;
  uint32_t cls;
  uint64_t own;
  switch (B->cand) {
    case C_ACT: own = B->act_ok; cls = B->cls_act; break;
    case C_COL: own = B->col_ok; cls = B->cls_act + m->cfg.dev->bankgroups; break;
    case C_PRE: /* a PRE that writes the array also waits for the rank's tRRD_PRE */
      own = B->pre_ok;
      cls = B->cls_pre + (m->ranks[B->rank].t.RRD_PRE && (B->dirty || m->ranks[B->rank].pre_writes_all) ? 1 : 0);
      break;
    default: m->live[b >> 6] &= ~(1ull << (b & 63)); own = MC_NEVER; cls = UINT32_MAX; break;
  }
  m->c_own[b] = own;
  m->c_floor[b] = cls == UINT32_MAX ? 0 : cls;
  /* class membership and class minima (a minimum is recomputed only when
   * the bank that may have held it left the class or got later) */
  const uint32_t rb = B->rbase;
  const uint64_t bit = 1ull << (b - rb);
  if (old != UINT32_MAX && old != cls) {
    m->cmask[old] &= ~bit;
    if (!m->cmask[old]) m->cnz &= ~(1ull << (old & 63));
    if (old_own <= m->cmin[old]) class_min(m, old, rb);
    if (m->cold[old] == b) class_oldest(m, old, rb);
  }
  if (cls != UINT32_MAX) {
    m->cmask[cls] |= bit;
    m->cnz |= 1ull << (cls & 63);
    if (own <= m->cmin[cls]) m->cmin[cls] = own;
    else if (old == cls && old_own <= m->cmin[cls]) class_min(m, cls, rb);
    const uint32_t o = m->cold[cls];
    if (o == b) class_oldest(m, cls, rb); /* it was the oldest: its priority may have changed */
    else if (o == NIL || older(m, b, o)) m->cold[cls] = b;
  }
}

/* The bank a pending refresh of rank r needs closed (per-bank refresh), or
 * NULL for an all-bank refresh. */
static inline mc_bank_ *ref_target(mc *m, uint32_t r) {
  return m->ranks[r].ref_pb ? &m->banks[r * m->banks_per_rank + m->ranks[r].ref_bank] : NULL;
}
/* 1 when a pending refresh holds bank B (all banks of its rank, or just B). */
static inline int ref_blocks(const mc *m, const mc_bank_ *B) {
  const mc_rank_ *R = &m->ranks[B->rank];
  return R->ref_pending && (!R->ref_pb || B->idx == B->rank * m->banks_per_rank + R->ref_bank);
}

static void compute_cand_(mc *m, mc_bank_ *B) {
  B->stale = 0;
  B->cand = C_NONE;
  B->cand_atom = NIL;
  B->conflict = 0;
  if (ref_blocks(m, B)) {  /* refresh due: close the bank, nothing else */
    if (B->open) {
      B->cand = C_PRE;
      B->cand_seq = 0;
    }
    return;
  }
  const int q = m->write_mode;
  if (B->n[q] == 0) {
    if (!m->cfg.open_page && B->open && !queue_has_row(m, B, !q, B->open_row)) {
      B->cand = C_PRE;  /* closed page: nothing left for this row */
      B->cand_seq = UINT64_MAX;
    }
    return;
  }
  if (B->open) {
    for (uint32_t i = B->head[q]; i != NIL; i = m->atoms[i].next) {
      if (m->atoms[i].row == B->open_row) {
        B->cand = C_COL;
        B->cand_atom = i;
        B->cand_seq = m->atoms[i].seq;
        return;
      }
    }
    B->cand = C_PRE;  /* row conflict for the oldest request */
    B->cand_seq = m->atoms[B->head[q]].seq;
    B->conflict = 1;
    return;
  }
  B->cand = C_ACT;
  B->cand_atom = B->head[q];
  B->cand_seq = m->atoms[B->head[q]].seq;
}

/* Per-group floors of the candidates' earliest cycles under the current
 * state: an ACT needs the group's and rank's tRRD, tFAW and a row-command
 * slot; a column command of the current mode the group's and rank's
 * tCCD/tWTR/tRTW, a column-command slot and the data bus (its burst starts CL
 * or CWL after the command). The bank's own term is added in scan(). */
static inline uint64_t rank_act_floor(const mc *m, const mc_rank_ *R) {
  uint64_t ra = max64(R->act_ok, m->row_bus_ok);
  if (R->t.FAW && R->faw_n == 4) ra = max64(ra, R->faw[R->faw_i] + R->t.FAW);
  return ra;
}
/* The data bus: a burst starts after the previous one ended, tRTRS later
 * when that one came from another rank (CL, CWL and tRTRS are the channel's). */
static inline uint64_t rank_col_floor(const mc *m, const mc_rank_ *R) {
  const uint64_t lat = m->write_mode ? m->t.CWL : m->t.CL;
  uint64_t busy = m->bus_free;
  if (m->bus_rank != NIL && m->bus_rank != R->idx) busy += m->t.RTRS;
  const uint64_t colfloor = max64(m->col_bus_ok, busy > lat ? busy - lat : 0);
  return max64(m->write_mode ? R->wr_ok : R->rd_ok, colfloor);
}

static void group_floors(mc *m) {
  const uint8_t stale = (uint8_t)(FLOORS_ALL & ~m->floors_valid);
  if (!stale) return;
  m->floors_valid = FLOORS_ALL;
  /* locals: the stores to floor[] may alias every field of m for the compiler */
  const uint32_t ng = m->cfg.dev->bankgroups, nr = m->cfg.ranks, cpr = m->cpr;
  const uint64_t row_bus = m->row_bus_ok;
  const int wm = m->write_mode;
  uint64_t *f = m->floor;
  const mc_group_ *G = m->groups;
  for (uint32_t r = 0; r < nr; ++r, f += cpr, G += ng) {
    const mc_rank_ *R = &m->ranks[r];
    if (stale & FLOORS_ROW) {
      const uint64_t ra = rank_act_floor(m, R);
      for (uint32_t g = 0; g < ng; ++g) f[g] = max64(G[g].act_ok, ra);
      f[2 * ng] = row_bus;                        /* PRE */
      f[2 * ng + 1] = max64(row_bus, R->wpre_ok); /* PRE writing the array (tRRD_PRE) */
    }
    if (stale & FLOORS_COL) {
      const uint64_t rc = rank_col_floor(m, R);
      if (wm)
        for (uint32_t g = 0; g < ng; ++g) f[ng + g] = max64(G[g].wr_ok, rc);
      else
        for (uint32_t g = 0; g < ng; ++g) f[ng + g] = max64(G[g].rd_ok, rc);
    }
  }
}

/* Earliest cycle of one bank's candidate, floors computed for its group only
 * (same terms as group_floors + the bank's own term). */
static uint64_t bank_earliest(const mc *m, const mc_bank_ *B) {
  const mc_rank_ *R = &m->ranks[B->rank];
  const mc_group_ *G = &m->groups[B->gi];
  switch (B->cand) {
    case C_ACT: return max64(B->act_ok, max64(G->act_ok, rank_act_floor(m, R)));
    case C_PRE: {
      const uint64_t e = max64(B->pre_ok, m->row_bus_ok);
      if (R->t.RRD_PRE && (B->dirty || R->pre_writes_all)) return max64(e, R->wpre_ok);
      return e;
    }
    case C_COL: return max64(B->col_ok, max64(m->write_mode ? G->wr_ok : G->rd_ok, rank_col_floor(m, R)));
    default: return MC_NEVER;
  }
}

/* One FR-FCFS pass over the live banks. Returns t = max(now, the earliest
 * cycle of any candidate) (MC_NEVER: no candidate) and keeps in best_col /
 * best_row the oldest column command and the oldest row command (ACT/PRE)
 * legal at t (NIL: none): at `now` when
 * something is legal now, else at the next cycle anything is. Nothing changes
 * the engine between events, so the commands found for a future t are the
 * ones mc_advance(t) would find: they are kept (best_*) for it. */
static uint64_t scan(mc *m, uint64_t now) {
  uint32_t bc = NIL, br = NIL;
  uint64_t col_seq = UINT64_MAX, emin = MC_NEVER;
  /* candidates of the banks whose queue or state changed (a bank left
   * without one leaves the live set) */
  for (uint32_t w = 0; w < m->nwords; ++w) {
    uint64_t bits = m->stale_w[w];
    m->stale_w[w] = 0; /* a candidate update marks no bank stale */
    for (; bits; bits &= bits - 1) cand_update(m, &m->banks[w * 64 + (uint32_t)__builtin_ctzll(bits)]);
  }
  group_floors(m);
  /* Pass 1: each class's earliest cycle E = max(its smallest own earliest
   * cycle, its floor) and t = max(now, the smallest E). Pass 2: in each
   * class with E <= t, its choice; the oldest column command and the oldest
   * row command of those (ties -- refresh and closed-page PREs -- to the
   * lowest bank, as a pass in bank order would). Up to 64 classes (6 ranks):
   * only the classes with a candidate; more: in blocks of 64. */
  const uint64_t *own = m->c_own, *seq = m->c_seq, *fl = m->floor, *cmin = m->cmin, *cmask = m->cmask;
  const uint32_t ncl = m->nclasses;
  uint64_t E[64];
  uint64_t qmin = 0; /* classes at the smallest E so far (ncl <= 64) */
  if (ncl <= 64) {
    for (uint64_t bits = m->cnz; bits; bits &= bits - 1) {
      /* selects, not branches: which class is the earliest is data, not a pattern */
      const uint32_t i = (uint32_t)__builtin_ctzll(bits);
      const uint64_t e = max64(cmin[i], fl[i]);
      const uint64_t lt = (uint64_t)0 - (uint64_t)(e < emin); /* all ones: a new minimum (drops the old one's) */
      qmin = (qmin & ~lt) | ((uint64_t)(e <= emin) << i);
      emin = min64(emin, e);
    }
  } else {
    for (uint32_t c = 0; c < ncl; ++c) emin = min64(emin, max64(cmin[c], fl[c]));
  }
  if (emin != MC_NEVER) {
    emin = max64(emin, now);
    for (uint32_t c0 = 0; c0 < ncl; c0 += 64) {
      const uint32_t n = ncl - c0 < 64 ? ncl - c0 : 64;
      if (ncl > 64)
        for (uint32_t i = 0; i < n; ++i) E[i] = max64(cmin[c0 + i], fl[c0 + i]);
      /* the classes that reach t: those legal now when t = now, else those at the minimum */
      uint64_t qual = 0;
      if (ncl <= 64) {
        qual = qmin;
        if (emin == now) /* something is legal now (rare after a command): every class at or before now */
          for (uint64_t bits = m->cnz & ~qmin; bits; bits &= bits - 1) {
            const uint32_t i = (uint32_t)__builtin_ctzll(bits);
            if (max64(cmin[i], fl[i]) <= now) qual |= 1ull << i;
          }
      } else
        for (uint32_t i = 0; i < n; ++i) qual |= (uint64_t)(E[i] <= emin) << i;
      for (; qual; qual &= qual - 1) {
        const uint32_t c = c0 + (uint32_t)__builtin_ctzll(qual);
        /* the class's choice: its oldest candidate if that one is legal at
         * t (the usual case), else the oldest of those that are */
        uint32_t o = m->cold[c];
        if (own[o] > emin) {
          o = NIL;
          for (uint64_t bits = cmask[c]; bits; bits &= bits - 1) {
            const uint32_t b = m->cbase[c] + (uint32_t)__builtin_ctzll(bits);
            if (own[b] <= emin && (o == NIL || older(m, b, o))) o = b;
          }
        }
        if (m->ccol[c]) {
          if (seq[o] < col_seq) bc = o, col_seq = seq[o];
        } else if (br == NIL || older(m, o, br)) {
          br = o;
        }
      }
    }
  }
  m->cand_emin = emin;  /* a lower bound of every candidate's earliest cycle until the next change (stale_bank) */
  m->cand_valid = 1;
  m->best_t = emin;
  m->best_col = bc;
  m->best_row = br;
  m->best_valid = 1;
  return emin;
}

/* Earliest REF of a rank whose refresh is pending and whose banks are all
 * closed: tRP after the last PRE and tRC after the last ACT (both folded into
 * the banks' act_ok), and a row-command slot. */
static uint64_t ref_earliest(const mc *m, uint32_t r) {
  uint64_t e = m->lp_on ? max64(m->row_bus_ok, m->ranks[r].act_ok) : m->row_bus_ok; /* + tXP / tWAKE */
  if (m->ranks[r].ref_pb) return max64(e, m->banks[r * m->banks_per_rank + m->ranks[r].ref_bank].act_ok);
  for (uint32_t b = r * m->banks_per_rank; b < (r + 1) * m->banks_per_rank; ++b) e = max64(e, m->banks[b].act_ok);
  return e;
}
/* The pending refresh of rank r could issue now that the banks it needs are
 * closed (all of them, or its target bank). */
static inline int ref_closed(const mc *m, uint32_t r) {
  return m->ranks[r].ref_pb ? !m->banks[r * m->banks_per_rank + m->ranks[r].ref_bank].open : m->ranks[r].nopen == 0;
}

static inline void log_cmd(mc *m, uint64_t now, mc_cmd c, const mc_bank_ *B, uint64_t row, uint32_t col) {
  if (m->cmd_log) m->cmd_log(m->cmd_ctx, now, c, B->rank, B->bg, B->ba, row, col);
}

/* Every command goes through one of these two, so they also mark the
 * scheduling floors (rank, group and bus terms) for recomputation. */
static inline void use_row_bus(mc *m, uint64_t now) {
  m->floors_valid = m->cfg.dev->dual_cmd_bus ? (uint8_t)(m->floors_valid & ~FLOORS_ROW) : 0;
  m->row_bus_ok = now + 1;
  if (!m->cfg.dev->dual_cmd_bus) m->col_bus_ok = now + 1;
}

static inline void use_col_bus(mc *m, uint64_t now) {
  m->floors_valid = m->cfg.dev->dual_cmd_bus ? (uint8_t)(m->floors_valid & ~FLOORS_COL) : 0;
  m->col_bus_ok = now + 1;
  if (!m->cfg.dev->dual_cmd_bus) m->row_bus_ok = now + 1;
}

/* --------------------------------------------------------- power states */

static inline int rank_idle(const mc_rank_ *R) { return R->nopen == 0 && R->nq == 0 && !R->ref_pending; }

/* Power-down and gating entry of an idle rank (MC_NEVER: disabled). */
static inline uint64_t pd_entry(const mc *m, const mc_rank_ *R) {
  return m->cfg.pd_idle ? max64(R->last_cmd + m->cfg.pd_idle, R->data_end) : MC_NEVER;
}
static inline uint64_t gate_entry(const mc *m, const mc_rank_ *R) {
  (void)m;
  return R->gate_idle ? max64(R->last_cmd + R->gate_idle, R->data_end) : MC_NEVER;
}

/* Rank r stops being idle at cycle `trig` (a request for it arrives, its
 * refresh falls due). If it powered down or was gated before trig, account
 * that time, report the exit (MC_CMD_PDX) and hold its next command for tXP
 * or tWAKE. A no-op for a rank that was not idle. */
static void rank_wake(mc *m, uint32_t r, uint64_t trig) {
  mc_rank_ *R = &m->ranks[r];
  if (!rank_idle(R)) return;
  const uint64_t pe = pd_entry(m, R), ge = gate_entry(m, R);
  uint64_t exit, ok, entry;
  uint32_t kind;
  if (ge < trig) { /* gated (after a power-down when its timer is shorter) */
    if (pe < ge) R->pd_cyc += ge - pe;
    exit = trig;
    R->gated_cyc += exit - ge;
    R->gate_wakeups++;
    m->st.gate_wakeups++;
    ok = exit + R->t.WAKE;
    entry = min64(pe, ge);
    kind = 1;
  } else if (pe < trig) { /* precharge power-down, at least tCKE long */
    exit = max64(trig, pe + R->t.CKE);
    R->pd_cyc += exit - pe;
    R->pd_exits++;
    m->st.powerdowns++;
    ok = exit + R->t.XP;
    entry = pe;
    kind = 0;
  } else {
    return;
  }
  R->act_ok = max64(R->act_ok, ok);
  m->floors_valid &= (uint8_t)~FLOORS_ROW;
  if (m->cmd_log) m->cmd_log(m->cmd_ctx, exit, MC_CMD_PDX, r, kind, 0, entry, 0);
}

/* ------------------------------------------------------------- commands */

static void issue_act(mc *m, mc_bank_ *B, uint64_t now) {
  mc_rank_ *R = &m->ranks[B->rank];
  const dram_timing *t = &R->t;
  mc_group_ *G = group_of(m, B);
  const uint64_t row = m->atoms[B->cand_atom].row;
  B->open = 1;
  B->dirty = 0;
  B->open_row = row;
  B->first_kind = B->pre_conflict ? K_CONFLICT : K_MISS;
  B->pre_conflict = 0;
  B->col_ok = now + t->RCD;
  B->pre_ok = max64(B->pre_ok, now + t->RAS);
  B->act_ok = max64(B->act_ok, now + (t->RC ? t->RC : t->RAS + t->RP));
  G->act_ok = max64(G->act_ok, now + t->RRD_L);
  R->act_ok = max64(R->act_ok, now + t->RRD_S);
  R->faw[R->faw_i] = now; /* overwrite the oldest of the last four */
  R->faw_i = (R->faw_i + 1) & 3u;
  if (R->faw_n < 4) R->faw_n++;
  if (R->nopen++ == 0) { /* precharge standby -> active standby */
    R->closed_cyc += now - R->since;
    R->since = now;
  }
  R->last_cmd = now;
  R->n_act++;
  use_row_bus(m, now);
  m->st.acts++;
  stale_bank(m, B);
  log_cmd(m, now, MC_CMD_ACT, B, row, 0);
}

static void issue_pre(mc *m, mc_bank_ *B, uint64_t now, int conflict) {
  B->open = 0;
  mc_rank_ *R = &m->ranks[B->rank];
  const dram_timing *t = &R->t;
  /* A dirty row buffer writes back to the array (tRP_DIRTY, when the preset
   * models the write there); array writes are spaced tRRD_PRE per rank. */
  const uint32_t rp = B->dirty && t->RP_DIRTY ? t->RP_DIRTY : t->RP;
  if (t->RRD_PRE && (B->dirty || R->pre_writes_all)) R->wpre_ok = now + t->RRD_PRE;
  if (B->dirty) m->st.pres_dirty++, R->n_pre_dirty++;
  B->dirty = 0;
  B->pre_conflict = (uint8_t)conflict; /* the next ACT opens the row a conflict asked for */
  B->act_ok = max64(B->act_ok, now + rp);
  if (--R->nopen == 0) { /* active standby -> precharge standby */
    R->open_cyc += now - R->since;
    R->since = now;
  }
  R->last_cmd = now;
  R->n_pre++;
  use_row_bus(m, now);
  m->st.pres++;
  stale_bank(m, B);
  log_cmd(m, now, MC_CMD_PRE, B, B->open_row, 0);
}

static inline void atom_done(mc *m, uint32_t p, uint64_t t);

static void ring_push(mc *m, int q, uint64_t t, uint32_t parent) {
  mc_ring_ *r = &m->ring[q];
  /* Cannot overflow: capacity bounds the column commands in flight (mc_init). */
  uint32_t i = r->head + r->n;
  if (i >= r->cap) i -= r->cap;
  r->t[i] = t;
  r->parent[i] = parent;
  r->n++;
}

static void issue_col(mc *m, mc_bank_ *B, uint64_t now) {
  const int q = m->write_mode;
  mc_rank_ *R = &m->ranks[B->rank];
  const dram_timing *t = &R->t;
  mc_group_ *G = group_of(m, B);
  const uint32_t a = B->cand_atom;
  mc_atom_ *A = &m->atoms[a];
  /* unlink from the bank FIFO */
  if (A->prev != NIL) m->atoms[A->prev].next = A->next; else B->head[q] = A->next;
  if (A->next != NIL) m->atoms[A->next].prev = A->prev; else B->tail[q] = A->prev;
  B->n[q]--;
  switch (B->first_kind) {
    case K_MISS: m->st.row_misses++; break;
    case K_CONFLICT: m->st.row_conflicts++; break;
    default: m->st.row_hits++; break;
  }
  B->first_kind = K_HIT;
  R->nq--;
  R->last_cmd = now;
  const uint32_t bytes = m->cfg.dev->atom_bytes;
  if (q) {
    if (m->forced_drain && m->wq_n <= m->cfg.wq_low && m->drain_extra) m->drain_extra--;
    m->wq_n--;
    const uint64_t data_end = now + t->CWL + t->BURST;
    G->wr_ok = max64(G->wr_ok, now + t->CCD_L);
    R->wr_ok = max64(R->wr_ok, now + t->CCD_S);
    G->rd_ok = max64(G->rd_ok, data_end + t->WTR_L);
    R->rd_ok = max64(R->rd_ok, data_end + t->WTR_S);
    B->pre_ok = max64(B->pre_ok, data_end + t->WR);
    B->dirty = 1;
    m->bus_free = data_end;
    m->bus_rank = B->rank;
    R->data_end = data_end;
    R->n_wr++;
    m->st.wr_atoms++;
    m->st.wr_bytes += bytes;
    if (m->cfg.done_at_issue) atom_done(m, A->parent, data_end);
    else ring_push(m, 1, data_end, A->parent);
  } else {
    m->rq_n--;
    const uint64_t data_end = now + t->CL + t->BURST;
    G->rd_ok = max64(G->rd_ok, now + t->CCD_L);
    R->rd_ok = max64(R->rd_ok, now + t->CCD_S);
    R->wr_ok = max64(R->wr_ok, now + t->RTW);
    G->wr_ok = max64(G->wr_ok, now + t->RTW);
    B->pre_ok = max64(B->pre_ok, now + t->RTP);
    m->bus_free = data_end;
    m->bus_rank = B->rank;
    R->data_end = data_end;
    R->n_rd++;
    m->st.rd_atoms++;
    m->st.rd_bytes += bytes;
    if (m->cfg.done_at_issue) atom_done(m, A->parent, data_end);
    else ring_push(m, 0, data_end, A->parent);
  }
  m->st.bus_busy += t->BURST;
  use_col_bus(m, now);
  log_cmd(m, now, q ? MC_CMD_WR : MC_CMD_RD, B, A->row, A->col);
  /* free the atom */
  A->next = m->atom_free;
  m->atom_free = a;
  stale_bank(m, B);
}

static void issue_ref(mc *m, uint32_t r, uint64_t now) {
  mc_rank_ *R = &m->ranks[r];
  mc_bank_ *T = ref_target(m, r);
  if (T) { /* per-bank: only the target bank, next bank next time */
    T->act_ok = now + R->t.RFC_PB;
    stale_bank(m, T);
    R->ref_pending = 0;
    R->ref_due += R->refi_pb;
    ref_update(m);
    R->ref_bank = R->ref_bank + 1 == m->banks_per_rank ? 0 : R->ref_bank + 1;
    R->last_cmd = now;
    R->n_refpb++;
    use_row_bus(m, now);
    m->st.refs++;
    m->st.refs_pb++;
    log_cmd(m, now, MC_CMD_REFPB, T, 0, 0);
    return;
  }
  for (uint32_t b = r * m->banks_per_rank; b < (r + 1) * m->banks_per_rank; ++b) {
    m->banks[b].act_ok = now + R->t.RFC;
    stale_bank(m, &m->banks[b]);
  }
  R->ref_pending = 0;
  R->ref_due += R->t.REFI;
  ref_update(m);
  R->last_cmd = now;
  R->n_ref++;
  use_row_bus(m, now);
  m->st.refs++;
  if (m->cmd_log) m->cmd_log(m->cmd_ctx, now, MC_CMD_REF, r, 0, 0, 0, 0);
}

/* ----------------------------------------------------------- public API */

int mc_can_accept(const mc *m, int is_write, unsigned n) { return mc_can_accept_fast(m, is_write, n); }

/* 1 when appending an atom for `row` to bank B's queue q cannot change B's
 * (up-to-date) candidate, so B need not be recomputed: open page (closed
 * page looks at both queues), and the atom goes to the queue of the other
 * mode, or behind others in a bank whose candidate is an ACT or column
 * command for an older atom, a refresh PRE, or a conflict PRE the atom does
 * not resolve (it misses the open row too). A newer atom never becomes the
 * FR-FCFS choice over an older one of the same kind. */
static inline int cand_kept(const mc *m, const mc_bank_ *B, int q, uint64_t row) {
  if (B->stale || !m->cfg.open_page) return 0;
  if (q != m->write_mode) return 1;
  return B->n[q] && !(B->cand == C_PRE && B->conflict && B->open && row == B->open_row);
}

/* A free atom for address x of parent p, next in arrival order (seq), not
 * linked into a bank queue yet. Cannot run out: natoms = rq_size + wq_size. */
static inline uint32_t atom_take(mc *m, const mc_addr *x, uint32_t p) {
  const uint32_t a = m->atom_free;
  mc_atom_ *A = &m->atoms[a];
  m->atom_free = A->next;
  A->row = x->row;
  A->col = x->col;
  A->seq = ++m->seq;
  A->parent = p;
  A->next = NIL;
  return a;
}

int mc_submit(mc *m, uint64_t now, int is_write, const mc_addr *atoms, unsigned n, uint64_t user) {
  if (n == 0 || !mc_can_accept(m, is_write, n) || m->parent_free == NIL) return -1;
  const dram_preset *d = m->cfg.dev;
  int one = 1; /* every atom in the same bank and row (the sectors of one line, usually) */
  for (unsigned i = 0; i < n; ++i) {
    if (atoms[i].rank >= m->cfg.ranks || atoms[i].bg >= d->bankgroups || atoms[i].bank >= d->banks_per_group)
      return -1;
    one &= atoms[i].rank == atoms[0].rank && atoms[i].bg == atoms[0].bg && atoms[i].bank == atoms[0].bank &&
           atoms[i].row == atoms[0].row;
  }
  /* The per-bank steps below give the same answer for every atom of one bank
   * and row (cand_kept, the bank's new candidate: the atoms queue behind each
   * other), so with `one` they look at the first atom only. */
  const unsigned nb = one ? 1 : n;
  if (now < m->now) now = m->now;
  occ_touch(m, now);
  m->now = now;
  /* The cached next event stays exact if no touched bank's current
   * candidate may be the one defining the earliest cycle (see below). */
  int keep = m->next_valid && m->cand_valid;
  const uint64_t old_emin = m->cand_emin;
  /* the commands kept for the next event (scan), merged below */
  const int had_best = m->best_valid;
  const uint64_t bt = m->best_t;
  uint32_t bcol = m->best_col, brow = m->best_row;
  const int q = is_write ? 1 : 0;
  for (unsigned i = 0; i < nb && keep; ++i) {
    const mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
    if (cand_kept(m, B, q, atoms[i].row)) continue;
    if (B->stale || (B->cand != C_NONE && bank_earliest(m, B) <= old_emin)) keep = 0;
  }
  const uint32_t p = m->parent_free;
  mc_parent_ *P = &m->parents[p];
  m->parent_free = P->remaining;
  P->user = user;
  P->arrive = now;
  P->remaining = n;
  P->is_write = (uint8_t)(is_write != 0);
  if (one) { /* the loop below for one bank and row: kept and the wake-up decided by the first atom */
    mc_bank_ *B = &m->banks[bank_index(m, atoms[0].rank, atoms[0].bg, atoms[0].bank)];
    const int kept = cand_kept(m, B, q, atoms[0].row);
    if (m->lp_on) rank_wake(m, atoms[0].rank, now);
    m->ranks[atoms[0].rank].nq += n;
    uint32_t tail = B->tail[q];
    for (unsigned i = 0; i < n; ++i) {
      const uint32_t a = atom_take(m, &atoms[i], p);
      m->atoms[a].prev = tail;
      if (tail != NIL) m->atoms[tail].next = a; else B->head[q] = a;
      tail = a;
    }
    B->tail[q] = tail;
    B->n[q] += n;
    if (!kept) stale_bank(m, B);
  } else for (unsigned i = 0; i < n; ++i) {
    const uint32_t a = atom_take(m, &atoms[i], p);
    mc_atom_ *A = &m->atoms[a];
    mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
    const int kept = cand_kept(m, B, q, atoms[i].row);
    if (m->lp_on) rank_wake(m, atoms[i].rank, now);
    m->ranks[atoms[i].rank].nq++;
    A->prev = B->tail[q];
    if (B->tail[q] != NIL) m->atoms[B->tail[q]].next = a; else B->head[q] = a;
    B->tail[q] = a;
    B->n[q]++;
    if (!kept) stale_bank(m, B);
  }
  if (q) m->wq_n += n; else m->rq_n += n;
  /* Keep the cached next event when this submission cannot change the
   * read/write mode and none of the touched banks held the earliest
   * candidate: the earliest cycle over the other banks is unchanged, so the
   * new minimum is exactly min(old minimum, the touched banks' new
   * candidates). The cache stays exact (never early), so callers see the same
   * wake-ups as with a full pass. Otherwise the next query does the pass. */
  if (keep && !mode_change_pending(m)) {
    uint64_t e = MC_NEVER;
    int best_ok = had_best;
    for (unsigned i = 0; i < nb; ++i) {
      mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
      if (!B->stale) continue; /* kept (cand_kept) or already recomputed: its candidate is counted */
      compute_cand(m, B);
      const uint64_t eb = bank_earliest(m, B);
      e = min64(e, eb);
      /* The commands kept for cycle bt stay the choice there unless a
       * touched bank's candidate is legal at bt (then it competes: it is not
       * among them, the keep condition above) or earlier (then pass again). */
      if (best_ok && eb <= bt) {
        if (eb < bt) best_ok = 0;
        else if (B->cand == C_COL) {
          if (bcol == NIL || m->c_seq[B->idx] < m->c_seq[bcol]) bcol = B->idx;
        } else if (brow == NIL || older(m, B->idx, brow)) {
          brow = B->idx;
        }
      }
    }
    m->next_cache = max64(min64(m->next_cache, e), now);
    m->cand_emin = min64(old_emin, e);
    m->cand_valid = 1;
    if (best_ok) {
      m->best_valid = 1;
      m->best_col = bcol;
      m->best_row = brow;
    }
  } else {
    m->next_valid = 0;
  }
  return 0;
}

/* One atom of parent p is done at cycle t; the parent when it was its last. */
static inline void atom_done(mc *m, uint32_t p, uint64_t t) {
  mc_parent_ *P = &m->parents[p];
  if (--P->remaining) return;
  if (P->is_write) {
    m->st.writes++;
  } else {
    m->st.reads++;
    m->st.rd_lat_sum += t - P->arrive;
    m->st.rd_lat_count++;
  }
  const uint64_t user = P->user;
  const int w = P->is_write;
  P->remaining = m->parent_free;
  m->parent_free = p;
  if (m->done) m->done(m->done_ctx, user, w, t);
}

static void complete_one(mc *m, int q) {
  mc_ring_ *r = &m->ring[q];
  const uint64_t t = r->t[r->head];
  const uint32_t p = r->parent[r->head];
  r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
  r->n--;
  atom_done(m, p, t);
}

static uint64_t next_from(const mc *m, uint64_t e);

void mc_advance(mc *m, uint64_t now) {
  if (now < m->now) now = m->now;
  occ_touch(m, now);
  m->now = now;
  m->next_valid = 0;
  /* 1. completions due, in time order across the two FIFOs (none with done_at_issue) */
  while (m->ring[0].n | m->ring[1].n) {
    const int r = m->ring[0].n && m->ring[0].t[m->ring[0].head] <= now;
    const int w = m->ring[1].n && m->ring[1].t[m->ring[1].head] <= now;
    if (!r && !w) break;
    if (r && (!w || m->ring[0].t[m->ring[0].head] <= m->ring[1].t[m->ring[1].head])) complete_one(m, 0);
    else complete_one(m, 1);
  }
  /* 2. refreshes falling due */
  if (now >= m->ref_due_min) {
    for (uint32_t r = 0; r < m->cfg.ranks; ++r)
      if (!m->ranks[r].ref_pending && now >= m->ranks[r].ref_due) {
        if (m->lp_on) rank_wake(m, r, m->ranks[r].ref_due);
        m->ranks[r].ref_pending = 1;
        if (m->ranks[r].ref_pb) stale_bank(m, ref_target(m, r));
        else stale_rank(m, r);
      }
    ref_update(m);
  }
  /* 3. issue every legal command, best first (one per command bus per cycle) */
  for (;;) {
    update_mode(m);
    if (m->ref_npend) {
      int done_ref = 0;
      for (uint32_t r = 0; r < m->cfg.ranks; ++r)
        if (m->ranks[r].ref_pending && ref_closed(m, r) && ref_earliest(m, r) <= now) {
          issue_ref(m, r, now);
          done_ref = 1;
          break;
        }
      if (done_ref) continue;
    }
    if (m->cand_valid && m->cand_emin > now) {
      /* Nothing changed since a pass that found every candidate in the
       * future (e.g. this wake-up only completes requests): no pass needed. */
      m->next_cache = next_from(m, m->cand_emin);
      m->next_valid = 1;
      break;
    }
    /* The pass at the previous event may have found the commands legal now
     * (kept in best_*), and nothing changed since; else a pass. */
    if (!(m->best_valid && m->best_t == now)) {
      const uint64_t t = scan(m, now);
      if (t > now) {
        /* Nothing legal now: this scan saw the final state, so the next event
         * is known without another pass (same terms as mc_next_event), and
         * the commands legal then are kept for it. */
        m->next_cache = next_from(m, t);
        m->next_valid = 1;
        break;
      }
    }
    mc_bank_ *const best_col = m->best_col == NIL ? NULL : &m->banks[m->best_col];
    mc_bank_ *const best_row = m->best_row == NIL ? NULL : &m->banks[m->best_row];
    if (best_col) {
      issue_col(m, best_col, now);
      /* Dual command bus: the row command this pass chose is still legal and
       * still the oldest one unless the column command changed the mode or
       * gave its own bank a row command that is legal now; then issue it
       * without another pass. */
      if (best_row && m->cfg.dev->dual_cmd_bus) {
        const uint8_t wm = m->write_mode;
        update_mode(m);
        compute_cand(m, best_col);
        if (m->write_mode == wm && !(best_col->cand != C_COL && best_col->cand != C_NONE &&
                                     bank_earliest(m, best_col) <= now)) {
          if (best_row->cand == C_ACT) issue_act(m, best_row, now);
          else issue_pre(m, best_row, now, best_row->conflict);
        }
      }
    } else if (best_row->cand == C_ACT) {
      issue_act(m, best_row, now);
    } else {
      issue_pre(m, best_row, now, best_row->conflict);
    }
  }
}

/* Earliest event given the earliest bank candidate `e`: completions, refresh. */
static uint64_t next_from(const mc *m, uint64_t e) {
  for (int q = 0; q < 2; ++q)
    if (m->ring[q].n) e = min64(e, m->ring[q].t[m->ring[q].head]);
  e = min64(e, m->ref_due_min); /* refreshes falling due */
  if (m->ref_npend) /* pending ones that can issue once their banks are closed */
    for (uint32_t r = 0; r < m->cfg.ranks; ++r)
      if (m->ranks[r].ref_pending && ref_closed(m, r)) e = min64(e, ref_earliest(m, r));
  if (e != MC_NEVER && e < m->now) e = m->now;
  return e;
}

uint64_t mc_next_event(mc *m) {
  if (m->next_valid) return m->next_cache;
  update_mode(m);
  const uint64_t e = scan(m, m->now);
  m->next_cache = next_from(m, e);
  m->next_valid = 1;
  return m->next_cache;
}

/* Scaled copies of tRCD, tWR, tRP_DIRTY of a preset; -1 when out of range. */
static int scaled(const dram_timing *base, unsigned rcd_mult, unsigned wr_mult, uint32_t out[3]) {
  if (!rcd_mult || !wr_mult) return -1;
  const uint64_t rcd = (uint64_t)base->RCD * rcd_mult, wr = (uint64_t)base->WR * wr_mult,
                 rpd = (uint64_t)base->RP_DIRTY * wr_mult;
  if (rcd > UINT32_MAX || wr > UINT32_MAX || rpd > UINT32_MAX) return -1;
  out[0] = (uint32_t)rcd;
  out[1] = (uint32_t)wr;
  out[2] = (uint32_t)rpd;
  return 0;
}

static void apply_scaled(mc *m, mc_rank_ *R, const uint32_t v[3]) {
  /* Every constraint is folded into an earliest cycle when its command issues
   * (issue_act/issue_col/issue_pre read the rank's t), so the new values apply
   * to the commands issued from now on; the cached next event may now be wrong. */
  R->t.RCD = v[0];
  R->t.WR = v[1];
  R->t.RP_DIRTY = v[2];
  m->next_valid = 0;
  m->cand_valid = 0;
  m->floors_valid = 0;
}

int mc_scale_timing(mc *m, unsigned rcd_mult, unsigned wr_mult) {
  uint32_t v[3];
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) /* all or nothing */
    if (scaled(&m->ranks[r].dev->t, rcd_mult, wr_mult, v) != 0) return -1;
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) {
    scaled(&m->ranks[r].dev->t, rcd_mult, wr_mult, v);
    apply_scaled(m, &m->ranks[r], v);
  }
  return 0;
}

int mc_scale_rank_timing(mc *m, uint32_t r, unsigned rcd_mult, unsigned wr_mult) {
  uint32_t v[3];
  if (r >= m->cfg.ranks || scaled(&m->ranks[r].dev->t, rcd_mult, wr_mult, v) != 0) return -1;
  apply_scaled(m, &m->ranks[r], v);
  return 0;
}

const dram_preset *mc_rank_device(const mc *m, uint32_t r) { return r < m->cfg.ranks ? m->ranks[r].dev : NULL; }

uint32_t mc_rq_occupancy(const mc *m) { return m->rq_n; }
uint32_t mc_wq_occupancy(const mc *m) { return m->wq_n; }

int mc_idle(const mc *m) { return mc_idle_fast(m); }

const mc_stats *mc_get_stats(mc *m, uint64_t now) {
  if (now >= m->now) occ_touch(m, now);
  return &m->st;
}

void mc_rank_power(const mc *m, uint32_t r, uint64_t now, mc_power *out) {
  const mc_rank_ *R = &m->ranks[r];
  uint64_t open = R->open_cyc, closed = R->closed_cyc, pd = R->pd_cyc, gated = R->gated_cyc;
  if (now > R->since) {
    if (R->nopen) open += now - R->since;
    else closed += now - R->since;
  }
  if (m->lp_on && rank_idle(R)) { /* a power-down / gating period still running at now */
    const uint64_t pe = pd_entry(m, R), ge = gate_entry(m, R);
    if (ge < now) {
      if (pe < ge) pd += ge - pe;
      gated += now - ge;
    } else if (pe < now) {
      pd += now - pe;
    }
  }
  out->act_standby = open;
  /* An exit held to tCKE after entry may lie a few cycles beyond `now`. */
  out->pre_standby = closed > pd + gated ? closed - pd - gated : 0;
  out->power_down = pd;
  out->gated = gated;
  out->powerdowns = R->pd_exits;
  out->gate_wakeups = R->gate_wakeups;
}

static double rank_bg_j(const mc *m, uint32_t r, uint64_t now) {
  const dram_energy *e = &m->ranks[r].dev->e;
  mc_power p;
  mc_rank_power(m, r, now, &p);
  /* mW x cycles / (cycles per second) = mJ; a gated rank draws nothing */
  const double mw_cycles = e->act_stby_mw * (double)p.act_standby + e->bg_mw * (double)p.pre_standby +
                           e->pd_mw * (double)p.power_down;
  return mw_cycles * 1e-3 / (m->cfg.dev->clk_mhz * 1e6);
}

void mc_rank_energy(const mc *m, uint32_t r, uint64_t now, mc_energy_j *out) {
  const dram_energy *e = &m->ranks[r].dev->e;
  const mc_rank_ *R = &m->ranks[r];
  out->act = (double)R->n_act * e->act_pj * 1e-12;
  out->pre = ((double)(R->n_pre - R->n_pre_dirty) * e->pre_pj + (double)R->n_pre_dirty * e->pre_dirty_pj) * 1e-12;
  out->rd = (double)R->n_rd * e->rd_pj * 1e-12;
  out->wr = (double)R->n_wr * e->wr_pj * 1e-12;
  out->ref = ((double)R->n_ref + (double)R->n_refpb / m->banks_per_rank) * e->ref_pj * 1e-12; /* REFPB: one bank's share */
  out->bg = rank_bg_j(m, r, now);
  out->total = out->act + out->pre + out->rd + out->wr + out->ref + out->bg;
}

void mc_energy(const mc *m, uint64_t now, mc_energy_j *out) {
  if (m->mixed) { /* each rank from its own preset */
    memset(out, 0, sizeof *out);
    for (uint32_t r = 0; r < m->cfg.ranks; ++r) {
      mc_energy_j x;
      mc_rank_energy(m, r, now, &x);
      out->act += x.act, out->pre += x.pre, out->rd += x.rd, out->wr += x.wr, out->ref += x.ref, out->bg += x.bg;
    }
    out->total = out->act + out->pre + out->rd + out->wr + out->ref + out->bg;
    return;
  }
  /* one preset: from the channel counters (the same sums, kept bit for bit) */
  const dram_energy *e = &m->cfg.dev->e;
  const mc_stats *s = &m->st;
  out->act = (double)s->acts * e->act_pj * 1e-12;
  out->pre = ((double)(s->pres - s->pres_dirty) * e->pre_pj + (double)s->pres_dirty * e->pre_dirty_pj) * 1e-12;
  out->rd = (double)s->rd_atoms * e->rd_pj * 1e-12;
  out->wr = (double)s->wr_atoms * e->wr_pj * 1e-12;
  out->ref = ((double)(s->refs - s->refs_pb) + (double)s->refs_pb / m->banks_per_rank) * e->ref_pj * 1e-12;
  out->bg = 0;
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) out->bg += rank_bg_j(m, r, now);
  out->total = out->act + out->pre + out->rd + out->wr + out->ref + out->bg;
}
