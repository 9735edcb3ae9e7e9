/* mc_internal.h: what the memory-controller engine's source files share. Private to
 * models/ref/mc*.c: not installed, included by nothing else (the API is mc.h).
 *
 * The engine (mc.h for the model, docs/memctrl.md "Source layout") is split by concern:
 *   mc.c          public API: init/free, submit, advance (its numbered steps), next event,
 *                 timing scaling, counters
 *   mc_sched.c    the FR-FCFS decision: each bank's candidate, the candidate classes, their
 *                 floors, the scheduling pass, the read/write mode (write drain)
 *   mc_cmd.c      the bookkeeping of an issued ACT / PRE / RD / WR: timing state, counters,
 *                 completions
 *   mc_refresh.c  all-bank and per-bank refresh: falling due, issue, earliest cycle
 *   mc_power.c    power-down and NVM gating (rank wake-up), power-state time, energy
 *
 * The build has no link-time optimisation, so a helper that a hot path calls from another file
 * (once per command, submission or pass) is defined here, static inline; what runs once per
 * pass or less is an ordinary function of its file, declared at the end.
 */
#ifndef STRATA_MC_INTERNAL_H
#define STRATA_MC_INTERNAL_H
#include "mc.h"

#define NIL UINT32_MAX
/* mc.floors_valid bits: the ACT / PRE class floors, the column class floors */
enum { FLOORS_ROW = 1, FLOORS_COL = 2, FLOORS_ALL = 3 };
/* A bank's candidate (mc_bank_.cand, mc.c_kind) */
enum { C_NONE = 0, C_ACT, C_PRE, C_COL };
/* What the first column access after an ACT counts as (mc_bank_.first_kind) */
enum { K_HIT = 0, K_MISS = 1, K_CONFLICT = 2 };

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static inline uint32_t bank_index(const mc *m, uint32_t rank, uint32_t bg, uint32_t ba) {
  return rank * m->banks_per_rank + bg * m->cfg.dev->banks_per_group + ba;
}

static inline mc_group_ *group_of(mc *m, const mc_bank_ *B) { return &m->groups[B->gi]; }

/* 1 when a PRE of B now writes the cell array (spaced tRRD_PRE per rank): a
 * dirty row buffer, or any DRAM row (restore), unless mc_cfg.ideal removed
 * that direction's array time on the rank (mc_rank_timing). */
static inline int pre_writes_array(const mc_rank_ *R, const mc_bank_ *B) {
  return B->dirty ? R->wpre_dirty : R->wpre_clean;
}
/* The rank's derived timing (rp_dirty, wpre_*) and mc_cfg.ideal applied to
 * R->t; after init and after every rescale of R->t. */
void mc_rank_timing(mc_rank_ *R);

static inline void log_cmd(mc *m, uint64_t now, mc_cmd c, const mc_bank_ *B, uint64_t row, uint32_t col) {
  if (m->cmd_log) m->cmd_log(m->cmd_ctx, now, c, B->rank, B->bg, B->ba, row, col);
}

/* ------------------------------------------------- scheduling (mc_sched.c) */

/* Mark a bank's candidate for recomputation (and the bank live): its queue or
 * state changed. Also drops what a pass cached (cand_emin, best_*). */
static inline void stale_bank(mc *m, mc_bank_ *B) {
  const uint32_t b = B->idx;
  B->stale = 1;
  m->stale_w[b >> 6] |= 1ull << (b & 63);
  m->cand_valid = 0;
  m->best_valid = 0;
  m->live[b >> 6] |= 1ull << (b & 63);
}

/* The FR-FCFS order between two banks' candidates: 1 when bank a's is older
 * (smaller seq; equal seqs -- refresh and closed-page PREs -- the lower bank,
 * as a pass in bank order would choose). */
static inline int older(const mc *m, uint32_t a, uint32_t b) {
  return m->c_seq[a] < m->c_seq[b] || (m->c_seq[a] == m->c_seq[b] && a < b);
}

/* Floors of a rank's candidates' earliest cycles (the rank and bus terms;
 * mc_sched.c adds the bank-group terms, the bank's own term comes last).
 * An ACT needs the rank's tRRD_S, tXP / tWAKE, tRFC (all in act_ok), tFAW
 * and a row-command slot. */
static inline uint64_t rank_act_floor(const mc *m, const mc_rank_ *R) {
  uint64_t ra = max64(R->act_ok, m->row_bus_ok);
  if (R->t.FAW && R->faw_n == 4) ra = max64(ra, R->faw[R->faw_i] + R->t.FAW);
  return ra;
}
/* A column command of the current mode needs the rank's tCCD_S / tWTR_S /
 * tRTW, a column-command slot and the data bus: its burst starts CL or CWL
 * after it, after the previous burst ended, tRTRS later when that one came
 * from another rank (CL, CWL and tRTRS are the channel's). */
static inline uint64_t rank_col_floor(const mc *m, const mc_rank_ *R) {
  const uint64_t lat = m->write_mode ? m->t.CWL : m->t.CL;
  uint64_t busy = m->bus_free;
  if (m->bus_rank != NIL && m->bus_rank != R->idx) busy += m->t.RTRS;
  const uint64_t colfloor = max64(m->col_bus_ok, busy > lat ? busy - lat : 0);
  return max64(m->write_mode ? R->wr_ok : R->rd_ok, colfloor);
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

/* Bring bank B's candidate up to date (its class entry included). */
void mc_sched_cand_update(mc *m, mc_bank_ *B);
/* The same, clearing B's stale bit first (the scheduling pass clears whole words instead). */
static inline void compute_cand(mc *m, mc_bank_ *B) {
  m->stale_w[B->idx >> 6] &= ~(1ull << (B->idx & 63));
  mc_sched_cand_update(m, B);
}
/* Earliest cycle of bank B's (up-to-date) candidate; MC_NEVER without one. */
uint64_t mc_sched_bank_earliest(const mc *m, const mc_bank_ *B);
/* One FR-FCFS pass: returns t = max(now, the earliest candidate) (MC_NEVER:
 * none) and keeps the commands to issue at t in best_col / best_row. */
uint64_t mc_sched_scan(mc *m, uint64_t now);

/* 1 when mc_sched_mode() would change anything now (conservative: a forced
 * drain that would continue for write row hits counts as a change). */
static inline int mode_change_pending(const mc *m) {
  if (!m->write_mode) return m->wq_n >= m->cfg.wq_high || (m->rq_n == 0 && m->wq_n > 0);
  if (m->wq_n >= m->cfg.wq_high && !m->forced_drain) return 1;
  return m->wq_n == 0 || (m->rq_n > 0 && (!m->forced_drain || m->wq_n <= m->cfg.wq_low));
}
/* Write-drain hysteresis: switch the read/write mode when due. */
void mc_sched_mode(mc *m);
/* mc_sched_mode when it would change anything (the common case: nothing). */
static inline void update_mode(mc *m) {
  if (mode_change_pending(m)) mc_sched_mode(m);
}

/* ------------------------------------------------------ commands (mc_cmd.c) */

/* One atom of parent p is done at cycle t; the parent when it was its last
 * (counted, reported to the done callback, freed). */
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
  m->done_row = P->row;
  P->remaining = m->parent_free;
  m->parent_free = p;
  if (m->done) m->done(m->done_ctx, user, w, t);
}

/* Issue bank B's candidate at `now` (legal then): the timing state, counters
 * and power-state time it changes, the command log, B marked stale. */
void mc_issue_act(mc *m, mc_bank_ *B, uint64_t now);
void mc_issue_pre(mc *m, mc_bank_ *B, uint64_t now, int conflict);
void mc_issue_col(mc *m, mc_bank_ *B, uint64_t now);

/* -------------------------------------------------------- refresh (mc_refresh.c) */

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

/* Per-rank refresh setup at mc_init (interval, per-bank or all-bank, first due cycle). */
void mc_refresh_init(mc *m);
/* ref_due_min and ref_npend from the ranks (after a refresh state change). */
void mc_refresh_update(mc *m);
/* The refreshes due at `now` become pending (now >= ref_due_min). */
void mc_refresh_fall_due(mc *m, uint64_t now);
/* Issue one pending refresh that is legal at `now`; 1 when one issued. */
int mc_refresh_issue(mc *m, uint64_t now);
/* Earliest cycle a pending refresh whose banks are closed can issue (MC_NEVER: none). */
uint64_t mc_refresh_pending_next(const mc *m);
/* Earliest refresh event: one falling due, or a pending one becoming legal. */
static inline uint64_t refresh_next(const mc *m) {
  return m->ref_npend ? min64(m->ref_due_min, mc_refresh_pending_next(m)) : m->ref_due_min;
}

/* ------------------------------------------------------- power (mc_power.c) */

/* A rank is idle (its power-down / gating timers run) with all banks closed,
 * nothing queued for it and no refresh pending. */
static inline int rank_idle(const mc_rank_ *R) { return R->nopen == 0 && R->nq == 0 && !R->ref_pending; }

/* Standby time is split where the rank's first bank opens and its last one closes. */
static inline void standby_bank_opens(mc_rank_ *R, uint64_t now) {
  if (R->nopen++ == 0) { /* precharge standby -> active standby */
    R->closed_cyc += now - R->since;
    R->since = now;
  }
}
static inline void standby_bank_closes(mc_rank_ *R, uint64_t now) {
  if (--R->nopen == 0) { /* active standby -> precharge standby */
    R->open_cyc += now - R->since;
    R->since = now;
  }
}

/* Power-down and gating setup at mc_init (sets lp_on and each rank's gate_idle). */
void mc_power_init(mc *m);
/* Idle rank r stops being idle at cycle `trig`: account and report a
 * power-down or gating period that started before trig (see mc_power.c). */
void mc_power_exit(mc *m, uint32_t r, uint64_t trig);
/* Rank r stops being idle at `trig` (a request for it, its refresh falling
 * due): a no-op unless low-power states are on and the rank was idle. */
static inline void rank_wake(mc *m, uint32_t r, uint64_t trig) {
  if (m->lp_on && rank_idle(&m->ranks[r])) mc_power_exit(m, r, trig);
}

#endif
