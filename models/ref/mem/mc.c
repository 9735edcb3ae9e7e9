/* mc: memory-controller engine for one channel. See mc.h for the model.
 *
 * This file: the public API -- init/free, mc_submit, mc_advance (its numbered
 * steps), mc_next_event, timing scaling, counters. The decision of which
 * command issues is in mc_sched.c, the bookkeeping of an issued command in
 * mc_cmd.c, refresh in mc_refresh.c, power states and energy in mc_power.c;
 * mc_internal.h holds what they share (docs/memctrl.md "Source layout").
 *
 * Implementation notes
 *  - Every timing constraint is kept as an "earliest legal cycle" per scope
 *    (bank, bank group, rank, channel buses), updated when a command issues
 *    (mc_cmd.c), so whether a command is legal at cycle t is a handful of
 *    max() operations.
 *  - Each bank caches its FR-FCFS candidate; candidates are grouped in
 *    classes sharing every constraint but the bank's own, so a scheduling
 *    pass is a few operations per non-empty class (mc_sched.c). The engine
 *    does not change between events, so a pass also keeps the commands legal
 *    at the next event for mc_advance there: one pass per command.
 *  - The cached next event (next_cache) survives a submission that cannot
 *    change it (mc_submit step 3): the trace player's usual case.
 *  - Completions are two FIFOs (reads, writes): CL and CWL are constants, so
 *    data returns in column-command order within each direction (or, with
 *    mc_cfg.done_at_issue, are reported when the last column command issues).
 */
#include "mc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  free(m->c_class);
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
  if (cfg->dev->atom_bytes > 65535u || cfg->dev->row_bytes / cfg->dev->atom_bytes > 65535u)
    FAIL("mc: device '%s': %u B per column access and %u columns per row (at most 65 535 each)",
         cfg->dev->name, cfg->dev->atom_bytes, cfg->dev->row_bytes / cfg->dev->atom_bytes);
  if (cfg->rq_size < 1 || cfg->wq_size < 1) FAIL("mc: queue sizes must be >= 1");
  if (cfg->wq_high < 1 || cfg->wq_high > cfg->wq_size)
    FAIL("mc: wq_high must be 1..write queue size (%u), got %u", cfg->wq_size, cfg->wq_high);
  if (cfg->wq_low >= cfg->wq_high) FAIL("mc: wq_low (%u) must be < wq_high (%u)", cfg->wq_low, cfg->wq_high);
  if (cfg->ideal > MC_IDEAL_DRAM_READ) FAIL("mc: ideal must be an mc_ideal, got %u", cfg->ideal);
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
  m->atom_bytes = cfg->dev->atom_bytes;
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
      m->ranks[r].pre_writes_all = (uint8_t)(rd->tech == DRAM_TECH_DRAM); /* every DRAM PRE restores the row */
      const int nvm = rd->tech == DRAM_TECH_NVM;
      m->ranks[r].ideal_rd = (uint8_t)(cfg->ideal == (nvm ? MC_IDEAL_NVM_READ : MC_IDEAL_DRAM_READ));
      m->ranks[r].ideal_wr = (uint8_t)(cfg->ideal == (nvm ? MC_IDEAL_NVM_WRITE : MC_IDEAL_DRAM_WRITE));
      mc_rank_timing(&m->ranks[r]);
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
  m->c_class = calloc(m->nbanks, sizeof *m->c_class);
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
      !m->c_seq || !m->c_class || !m->c_kind || !m->stale_w)
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
  mc_refresh_init(m);
  mc_power_init(m);
  return 0;
#undef FAIL
}

void mc_rank_timing(mc_rank_ *R) {
  const dram_timing *p = &R->dev->t; /* the preset: R->t.RP may already be idealised */
  R->rp_dirty = R->t.RP_DIRTY ? R->t.RP_DIRTY : p->RP;
  if (R->ideal_rd) R->t.RCD = R->t.RAS = R->t.RC = R->t.RP = 0;
  if (R->ideal_wr) R->t.WR = R->rp_dirty = 0;
  R->wpre_clean = (uint8_t)(p->RRD_PRE && R->pre_writes_all && !R->ideal_rd);
  R->wpre_dirty = (uint8_t)(p->RRD_PRE && !R->ideal_wr);
}

void mc_set_done(mc *m, mc_done_fn fn, void *ctx) {
  m->done = fn;
  m->done_ctx = ctx;
}

void mc_set_row_track(mc *m, int on) { m->row_track = (uint8_t)(on != 0); }

void mc_set_cmd_log(mc *m, mc_cmd_fn fn, void *ctx) {
  m->cmd_log = fn;
  m->cmd_ctx = ctx;
}

/* Queue-occupancy integrals brought up to `now`. */
static void occ_touch(mc *m, uint64_t now) {
  if (now > m->occ_t) {
    const uint64_t dt = now - m->occ_t;
    m->st.rq_occ_sum += (uint64_t)m->rq_n * dt;
    m->st.wq_occ_sum += (uint64_t)m->wq_n * dt;
    m->occ_t = now;
  }
}

/* ------------------------------------------------------------- submission */

int mc_can_accept(const mc *m, int is_write, unsigned n) { return mc_can_accept_fast(m, is_write, n); }

/* 1 when a submission to the first nb atoms' banks leaves the cached next
 * event exact as far as the banks go: no touched bank whose candidate may
 * change is stale or holds a candidate at or before the earliest one (old
 * emin) -- then the earliest cycle over the other banks stands. Asked before
 * the atoms are queued. */
static inline int touched_banks_late(const mc *m, const mc_addr *atoms, unsigned nb, int q) {
  for (unsigned i = 0; i < nb; ++i) {
    const mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
    if (cand_kept(m, B, q, atoms[i].row)) continue;
    if (B->stale || (B->cand != C_NONE && mc_sched_bank_earliest(m, B) <= m->cand_emin)) return 0;
  }
  return 1;
}

/* A free parent record for a request of n atoms. Cannot run out: nparents
 * bounds the queued and in-flight parents (mc_init). */
static inline uint32_t parent_take(mc *m, uint64_t user, uint64_t now, unsigned n, int is_write) {
  const uint32_t p = m->parent_free;
  mc_parent_ *P = &m->parents[p];
  m->parent_free = P->remaining;
  P->user = user;
  P->arrive = now;
  P->remaining = n;
  P->is_write = (uint8_t)(is_write != 0);
  P->row = MC_ROW_HIT;
  return p;
}

/* A free atom for address x of parent p, next in arrival order (seq), not
 * linked into a bank queue yet. Cannot run out: natoms = rq_size + wq_size. */
_Static_assert(sizeof(mc_atom_) == 32, "an engine atom is 32 B: two per host cache line");
static inline uint32_t atom_take(mc *m, const mc_addr *x, uint32_t p) {
  const uint32_t a = m->atom_free;
  mc_atom_ *A = &m->atoms[a];
  m->atom_free = A->next;
  A->row = x->row;
  A->col = (uint16_t)x->col; /* < 65 536 (mc_init) */
  A->bytes = (uint16_t)(x->bytes && x->bytes < m->atom_bytes ? x->bytes : m->atom_bytes);
  A->seq = ++m->seq + m->seq_bias;
  A->parent = p;
  A->next = NIL;
  return a;
}

/* Queue the n atoms of parent p, all for one bank and row (the sectors of
 * one line, usually), at the tail of that bank's queue q: one bank lookup,
 * one candidate check (the atoms queue behind each other, so the first
 * decides), one wake-up. */
static inline void enqueue_line(mc *m, const mc_addr *atoms, unsigned n, uint32_t p, int q, uint64_t now) {
  mc_bank_ *B = &m->banks[bank_index(m, atoms[0].rank, atoms[0].bg, atoms[0].bank)];
  const int kept = cand_kept(m, B, q, atoms[0].row);
  rank_wake(m, atoms[0].rank, now);
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
}

/* Queue the n atoms of parent p, each at the tail of its bank's queue q. */
static inline void enqueue_each(mc *m, const mc_addr *atoms, unsigned n, uint32_t p, int q, uint64_t now) {
  for (unsigned i = 0; i < n; ++i) {
    const uint32_t a = atom_take(m, &atoms[i], p);
    mc_atom_ *A = &m->atoms[a];
    mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
    const int kept = cand_kept(m, B, q, atoms[i].row);
    rank_wake(m, atoms[i].rank, now);
    m->ranks[atoms[i].rank].nq++;
    A->prev = B->tail[q];
    if (B->tail[q] != NIL) m->atoms[B->tail[q]].next = a; else B->head[q] = a;
    B->tail[q] = a;
    B->n[q]++;
    if (!kept) stale_bank(m, B);
  }
}

/* The cached next event after a submission that cannot change the mode and
 * found the touched banks late (touched_banks_late; old_emin = the earliest
 * candidate before it): the new minimum is exactly min(old minimum, the
 * touched banks' new candidates), so the cache stays exact (never early) and
 * callers see the same wake-ups as with a full pass. The commands kept for
 * cycle best_t (had_best: valid before the submission) stay the choice there
 * unless a touched bank's candidate is legal at best_t (then it competes:
 * it was not among them, by the keep condition) or earlier (then the next
 * mc_advance passes again). */
static inline void next_after_submit(mc *m, const mc_addr *atoms, unsigned nb, uint64_t now, uint64_t old_emin,
                                     int had_best) {
  uint64_t e = MC_NEVER;
  int best_ok = had_best;
  const uint64_t bt = m->best_t;
  uint32_t bcol = m->best_col, brow = m->best_row;
  for (unsigned i = 0; i < nb; ++i) {
    mc_bank_ *B = &m->banks[bank_index(m, atoms[i].rank, atoms[i].bg, atoms[i].bank)];
    if (!B->stale) continue; /* kept (cand_kept) or already recomputed: its candidate is counted */
    compute_cand(m, B);
    const uint64_t eb = mc_sched_bank_earliest(m, B);
    e = min64(e, eb);
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
}

/* Background parents under demand_first: their atoms' FR-FCFS priority
 * (seq) is biased above every demand atom's (seqs stay unique and increase
 * by one within a parent, as the scheduler's class bookkeeping expects). */
#define MC_BACKGROUND_SEQ (1ull << 62)

int mc_submit_class(mc *m, uint64_t now, int is_write, const mc_addr *atoms, unsigned n, uint64_t user,
                    int background) {
  if (!background || !m->cfg.demand_first) return mc_submit(m, now, is_write, atoms, n, user);
  m->seq_bias = MC_BACKGROUND_SEQ;
  const int r = mc_submit(m, now, is_write, atoms, n, user);
  m->seq_bias = 0;
  return r;
}

int mc_submit(mc *m, uint64_t now, int is_write, const mc_addr *atoms, unsigned n, uint64_t user) {
  /* 1. Check: room, and every address in range (nothing changes on failure). */
  if (n == 0 || !mc_can_accept(m, is_write, n) || m->parent_free == NIL) return -1;
  const dram_preset *d = m->cfg.dev;
  int one = 1; /* every atom in the same bank and row (the sectors of one line, usually) */
  for (unsigned i = 0; i < n; ++i) {
    if (atoms[i].rank >= m->cfg.ranks || atoms[i].bg >= d->bankgroups || atoms[i].bank >= d->banks_per_group)
      return -1;
    one &= atoms[i].rank == atoms[0].rank && atoms[i].bg == atoms[0].bg && atoms[i].bank == atoms[0].bank &&
           atoms[i].row == atoms[0].row;
  }
  /* The per-bank steps give the same answer for every atom of one bank and
   * row, so with `one` they look at the first atom only. */
  const unsigned nb = one ? 1 : n;
  const int q = is_write ? 1 : 0;
  /* 2. Time. */
  if (now < m->now) now = m->now;
  occ_touch(m, now);
  m->now = now;
  /* 3. Can the cached next event survive? Decided on the banks as they are
   * before the atoms queue (queueing drops cand_valid and best_valid). */
  const int keep = m->next_valid && m->cand_valid && touched_banks_late(m, atoms, nb, q);
  const uint64_t old_emin = m->cand_emin;
  const int had_best = m->best_valid;
  /* 4. Queue the parent and its atoms. */
  const uint32_t p = parent_take(m, user, now, n, is_write);
  if (one) enqueue_line(m, atoms, n, p, q, now);
  else enqueue_each(m, atoms, n, p, q, now);
  if (q) m->wq_n += n; else m->rq_n += n;
  /* 5. The cached next event: brought up to date from the touched banks, or
   * dropped (the next query passes). */
  if (keep && !mode_change_pending(m)) next_after_submit(m, atoms, nb, now, old_emin, had_best);
  else m->next_valid = 0;
  return 0;
}

/* ------------------------------------------------------------------ steps */

static void complete_one(mc *m, int q) {
  mc_ring_ *r = &m->ring[q];
  const uint64_t t = r->t[r->head];
  const uint32_t p = r->parent[r->head];
  r->head = r->head + 1 == r->cap ? 0 : r->head + 1;
  r->n--;
  atom_done(m, p, t);
}

/* The completions due at or before `now`, in time order across the two
 * FIFOs (reads first on a tie). */
static inline void complete_due(mc *m, uint64_t now) {
  while (m->ring[0].n | m->ring[1].n) {
    const int r = m->ring[0].n && m->ring[0].t[m->ring[0].head] <= now;
    const int w = m->ring[1].n && m->ring[1].t[m->ring[1].head] <= now;
    if (!r && !w) break;
    if (r && (!w || m->ring[0].t[m->ring[0].head] <= m->ring[1].t[m->ring[1].head])) complete_one(m, 0);
    else complete_one(m, 1);
  }
}

/* Earliest event given the earliest bank candidate `e`: completions, refresh. */
static uint64_t next_from(const mc *m, uint64_t e) {
  for (int q = 0; q < 2; ++q)
    if (m->ring[q].n) e = min64(e, m->ring[q].t[m->ring[q].head]);
  e = min64(e, refresh_next(m));
  if (e != MC_NEVER && e < m->now) e = m->now;
  return e;
}

/* 1 when some bank command is legal at `now`, chosen in best_col / best_row;
 * else 0 with the next event cached. */
static inline int commands_now(mc *m, uint64_t now) {
  if (m->cand_valid && m->cand_emin > now) {
    /* Nothing changed since a pass that found every candidate in the
     * future (e.g. this wake-up only completes requests): no pass needed. */
    m->next_cache = next_from(m, m->cand_emin);
    m->next_valid = 1;
    return 0;
  }
  /* The pass at the previous event may have found the commands legal now
   * (kept in best_*), and nothing changed since; else a pass. */
  if (m->best_valid && m->best_t == now) return 1;
  const uint64_t t = mc_sched_scan(m, now);
  if (t > now) {
    /* Nothing legal now: this pass saw the final state, so the next event is
     * known without another pass (same terms as mc_next_event), and the
     * commands legal then are kept for it. */
    m->next_cache = next_from(m, t);
    m->next_valid = 1;
    return 0;
  }
  return 1;
}

static inline void issue_row(mc *m, mc_bank_ *B, uint64_t now) {
  if (B->cand == C_ACT) mc_issue_act(m, B, now);
  else mc_issue_pre(m, B, now, B->conflict);
}

/* Issue the commands the pass chose for `now`: the column command first
 * (FR-FCFS), else the row command. With a dual command bus the row command
 * goes out in the same cycle when it is still legal and still the oldest:
 * unless the column command changed the mode or gave its own bank a row
 * command that is legal now -- then the next pass decides. */
static inline void issue_chosen(mc *m, uint64_t now) {
  mc_bank_ *const col = m->best_col == NIL ? NULL : &m->banks[m->best_col];
  mc_bank_ *const row = m->best_row == NIL ? NULL : &m->banks[m->best_row];
  if (!col) {
    issue_row(m, row, now);
    return;
  }
  mc_issue_col(m, col, now);
  if (!row || !m->cfg.dev->dual_cmd_bus) return;
  const uint8_t wm = m->write_mode;
  update_mode(m);
  compute_cand(m, col);
  if (m->write_mode == wm && !(col->cand != C_COL && col->cand != C_NONE && mc_sched_bank_earliest(m, col) <= now))
    issue_row(m, row, now);
}

void mc_advance(mc *m, uint64_t now) {
  if (now < m->now) now = m->now;
  occ_touch(m, now);
  m->now = now;
  m->next_valid = 0;
  /* 1. Report the completions due (none with done_at_issue). */
  complete_due(m, now);
  /* 2. Refreshes falling due become pending. */
  if (now >= m->ref_due_min) mc_refresh_fall_due(m, now);
  /* 3. Issue every legal command, best first (one per command bus per
   * cycle), until none is legal at now; the next event is then cached. */
  for (;;) {
    /* 3a. The read/write mode (write drain). */
    update_mode(m);
    /* 3b. A pending refresh whose banks are closed. */
    if (m->ref_npend && mc_refresh_issue(m, now)) continue;
    /* 3c. The FR-FCFS choice, unless nothing is legal now. */
    if (!commands_now(m, now)) break;
    /* 3d. Its bookkeeping. */
    issue_chosen(m, now);
  }
}

uint64_t mc_next_event(mc *m) {
  if (m->next_valid) return m->next_cache;
  update_mode(m);
  const uint64_t e = mc_sched_scan(m, m->now);
  m->next_cache = next_from(m, e);
  m->next_valid = 1;
  return m->next_cache;
}

/* ----------------------------------------------------------- throttling */

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
   * (mc_issue_act / _col / _pre read the rank's t), so the new values apply
   * to the commands issued from now on; the cached next event may now be wrong. */
  R->t.RCD = v[0];
  R->t.WR = v[1];
  R->t.RP_DIRTY = v[2];
  mc_rank_timing(R); /* the idealisation holds over a rescale */
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
