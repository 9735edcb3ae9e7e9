/* mc_sched.c: the FR-FCFS decision of the memory-controller engine (mc.h).
 *
 * FR-FCFS (Rixner et al., ISCA 2000; HMS and HAC Table I): among the commands
 * legal now, column commands to open rows first, then ACT / PRE; oldest
 * request first within each kind. Three layers, each with its cached state:
 *  - A bank's candidate (bank_candidate): the one command it would issue next
 *    -- column command for its oldest row hit, else PRE for a conflict, else
 *    ACT for its oldest request. Cached per bank (c_kind, c_seq, c_own,
 *    c_class) and recomputed only for banks marked stale (mc_internal.h
 *    stale_bank): their queue or state, the mode or the rank's refresh state
 *    changed.
 *  - Classes: the candidates of one kind in one scope that share every
 *    constraint but the bank's own (mc.h: ACT and column command per bank
 *    group, PRE, array-writing PRE, per rank). Each keeps its members (cmask),
 *    their smallest own earliest cycle (cmin), its oldest member (cold) and a
 *    floor from rank, group and bus state (group_floors, recomputed for the
 *    row or column half after a command of that kind).
 *  - The pass (mc_sched_scan): t = max(now, the earliest class), then in each
 *    class reaching t its choice, and the oldest column and row command of
 *    those: a few operations per non-empty class, not per bank.
 * The read/write mode (write drain) is decided here too: it selects the
 * queue the candidates come from.
 */
#include "mc_internal.h"

/* ------------------------------------------------------ a bank's candidate */

static int queue_has_row(const mc *m, const mc_bank_ *B, int q, uint64_t row) {
  for (uint32_t i = B->head[q]; i != NIL; i = m->atoms[i].next)
    if (m->atoms[i].row == row) return 1;
  return 0;
}

/* The FR-FCFS candidate of bank B under the current mode (B->cand,
 * cand_atom, cand_seq, conflict). */
static inline void bank_candidate(mc *m, mc_bank_ *B) {
  B->stale = 0;
  B->cand = C_NONE;
  B->cand_atom = NIL;
  B->conflict = 0;
  if (ref_blocks(m, B)) { /* refresh due: close the bank, nothing else */
    if (B->open) {
      B->cand = C_PRE;
      B->cand_seq = 0;
    }
    return;
  }
  const int q = m->write_mode;
  if (B->n[q] == 0) {
    if (!m->cfg.open_page && B->open && !queue_has_row(m, B, !q, B->open_row)) {
      B->cand = C_PRE; /* closed page: nothing left for this row */
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
    B->cand = C_PRE; /* row conflict for the oldest request */
    B->cand_seq = m->atoms[B->head[q]].seq;
    B->conflict = 1;
    return;
  }
  B->cand = C_ACT;
  B->cand_atom = B->head[q];
  B->cand_seq = m->atoms[B->head[q]].seq;
}

/* ---------------------------------------------------------------- classes */

/* Smallest own earliest cycle among the banks of class c (rank base rb). */
static inline void class_min(mc *m, uint32_t c, uint32_t rb) {
  uint64_t v = MC_NEVER;
  for (uint64_t bits = m->cmask[c]; bits; bits &= bits - 1) v = min64(v, m->c_own[rb + (uint32_t)__builtin_ctzll(bits)]);
  m->cmin[c] = v;
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

/* The class of bank B's candidate and its own earliest cycle (the bank's
 * term); NIL / MC_NEVER without a candidate. */
static inline uint32_t cand_class(const mc *m, const mc_bank_ *B, uint64_t *own) {
  switch (B->cand) {
    case C_ACT: *own = B->act_ok; return B->cls_act;
    case C_COL: *own = B->col_ok; return B->cls_act + m->cfg.dev->bankgroups;
    case C_PRE: /* a PRE that writes the array also waits for the rank's tRRD_PRE */
      *own = B->pre_ok;
      return B->cls_pre + (pre_writes_array(&m->ranks[B->rank], B) ? 1 : 0);
    default: *own = MC_NEVER; return NIL;
  }
}

/* Bank b's new candidate is again a column command with the same own
 * earliest cycle (the usual case after a column command: its row stays open,
 * col_ok is the ACT's), so the same class -- mode switches refile every bank
 * through stale_all, and the class of a column command does not depend on
 * the mode -- and the same class minimum: only the class's oldest may change.
 * When the new candidate is the atom submitted right after the old one
 * (seq + 1: the next sector of the same line), no other candidate of the
 * class lies between them (seqs are unique), so a bank that was the oldest
 * stays the oldest. */
static inline void class_keep_col(mc *m, const mc_bank_ *B, uint32_t cls, uint64_t old_seq) {
  const uint32_t b = B->idx, o = m->cold[cls];
  m->c_seq[b] = B->cand_seq;
  if (o == b) {
    if (B->cand_seq != old_seq + 1) class_oldest(m, cls, B->rbase);
  } else if (o == NIL || older(m, b, o)) {
    m->cold[cls] = b;
  }
}

/* File bank b's new candidate (class cls, own earliest cycle own; NIL: none)
 * after its old one (class old, own earliest old_own): class membership, the
 * classes' minima (recomputed only when the bank that may have held one left
 * the class or got later) and oldest members. */
static inline void class_refile(mc *m, uint32_t b, uint32_t rb, uint32_t old, uint64_t old_own, uint32_t cls,
                                uint64_t own) {
  const uint64_t bit = 1ull << (b - rb);
  if (old != NIL && old != cls) {
    m->cmask[old] &= ~bit;
    if (!m->cmask[old]) m->cnz &= ~(1ull << (old & 63));
    if (old_own <= m->cmin[old]) class_min(m, old, rb);
    if (m->cold[old] == b) class_oldest(m, old, rb);
  }
  if (cls != NIL) {
    m->cmask[cls] |= bit;
    m->cnz |= 1ull << (cls & 63);
    if (own <= m->cmin[cls]) m->cmin[cls] = own;
    else if (old == cls && old_own <= m->cmin[cls]) class_min(m, cls, rb);
    const uint32_t o = m->cold[cls];
    if (o == b) class_oldest(m, cls, rb); /* it was the oldest: its priority may have changed */
    else if (o == NIL || older(m, b, o)) m->cold[cls] = b;
  }
}

/* The bank's candidate (the decision), then its cached copy and class entry
 * (the bookkeeping): the column-after-column fast path, else a refile. */
void mc_sched_cand_update(mc *m, mc_bank_ *B) {
  const uint32_t b = B->idx;
  const uint8_t old_kind = m->c_kind[b];
  const uint32_t old = old_kind != C_NONE ? m->c_class[b] : NIL;
  const uint64_t old_own = m->c_own[b], old_seq = m->c_seq[b];
  bank_candidate(m, B);
  if (B->cand == C_COL && old_kind == C_COL && B->col_ok == old_own) {
    class_keep_col(m, B, old, old_seq);
    return;
  }
  m->c_kind[b] = B->cand;
  m->c_seq[b] = B->cand_seq;
  uint64_t own;
  const uint32_t cls = cand_class(m, B, &own);
  m->c_own[b] = own;
  m->c_class[b] = cls == NIL ? 0 : cls;
  if (cls == NIL) m->live[b >> 6] &= ~(1ull << (b & 63)); /* no candidate: out of the live set until stale */
  class_refile(m, b, B->rbase, old, old_own, cls, own);
}

/* The candidates of the banks marked stale, brought up to date (a candidate
 * update marks no bank stale, so whole words are cleared). */
static inline void update_stale(mc *m) {
  for (uint32_t w = 0; w < m->nwords; ++w) {
    uint64_t bits = m->stale_w[w];
    m->stale_w[w] = 0;
    for (; bits; bits &= bits - 1) mc_sched_cand_update(m, &m->banks[w * 64 + (uint32_t)__builtin_ctzll(bits)]);
  }
}

/* ----------------------------------------------------------------- floors */

/* Per-class floors of the candidates' earliest cycles under the current
 * state: an ACT class the group's tRRD_L and its rank's floor; a column class
 * the group's tCCD_L / tWTR_L / tRTW and its rank's; PRE the row-command
 * slot, an array-writing PRE also the rank's tRRD_PRE. The bank's own term is
 * added in the pass. Only the halves that commands invalidated. */
static inline void group_floors(mc *m) {
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
uint64_t mc_sched_bank_earliest(const mc *m, const mc_bank_ *B) {
  const mc_rank_ *R = &m->ranks[B->rank];
  const mc_group_ *G = &m->groups[B->gi];
  switch (B->cand) {
    case C_ACT: return max64(B->act_ok, max64(G->act_ok, rank_act_floor(m, R)));
    case C_PRE: {
      const uint64_t e = max64(B->pre_ok, m->row_bus_ok);
      if (pre_writes_array(R, B)) return max64(e, R->wpre_ok);
      return e;
    }
    case C_COL: return max64(B->col_ok, max64(m->write_mode ? G->wr_ok : G->rd_ok, rank_col_floor(m, R)));
    default: return MC_NEVER;
  }
}

/* ------------------------------------------------------------------- pass */

/* Earliest cycle of class c: its smallest own earliest cycle, held to its floor. */
static inline uint64_t class_earliest(const mc *m, uint32_t c) { return max64(m->cmin[c], m->floor[c]); }

/* Pass 1: the smallest class earliest cycle (MC_NEVER: no candidate). Up to
 * 64 classes (6 ranks) only the classes with a candidate are visited, and
 * *at_min gets the classes at that minimum, a bit each. */
static inline uint64_t classes_min(const mc *m, uint64_t *at_min) {
  uint64_t emin = MC_NEVER, qmin = 0;
  if (m->nclasses <= 64) {
    for (uint64_t bits = m->cnz; bits; bits &= bits - 1) {
      /* selects, not branches: which class is the earliest is data, not a pattern */
      const uint32_t i = (uint32_t)__builtin_ctzll(bits);
      const uint64_t e = class_earliest(m, i);
      const uint64_t lt = (uint64_t)0 - (uint64_t)(e < emin); /* all ones: a new minimum (drops the old one's) */
      qmin = (qmin & ~lt) | ((uint64_t)(e <= emin) << i);
      emin = min64(emin, e);
    }
  } else {
    for (uint32_t c = 0; c < m->nclasses; ++c) emin = min64(emin, class_earliest(m, c));
  }
  *at_min = qmin;
  return emin;
}

/* The classes of block c0 (64 classes from c0) that reach cycle t: those
 * legal at now when t = now, else those at the minimum (at_min, up to 64
 * classes). */
static inline uint64_t classes_reaching(const mc *m, uint32_t c0, uint64_t now, uint64_t t, uint64_t at_min) {
  uint64_t qual = 0;
  if (m->nclasses <= 64) {
    qual = at_min;
    if (t == now) /* something is legal now (rare after a command): every class at or before now */
      for (uint64_t bits = m->cnz & ~at_min; bits; bits &= bits - 1) {
        const uint32_t i = (uint32_t)__builtin_ctzll(bits);
        if (class_earliest(m, i) <= now) qual |= 1ull << i;
      }
    return qual;
  }
  const uint32_t n = m->nclasses - c0 < 64 ? m->nclasses - c0 : 64;
  for (uint32_t i = 0; i < n; ++i) qual |= (uint64_t)(class_earliest(m, c0 + i) <= t) << i;
  return qual;
}

/* The choice of class c at cycle t (which it reaches): its oldest candidate
 * if that one is legal at t (the usual case), else the oldest of those that are. */
static inline uint32_t class_choice(const mc *m, uint32_t c, uint64_t t) {
  const uint32_t o = m->cold[c];
  if (m->c_own[o] <= t) return o;
  uint32_t best = NIL;
  for (uint64_t bits = m->cmask[c]; bits; bits &= bits - 1) {
    const uint32_t b = m->cbase[c] + (uint32_t)__builtin_ctzll(bits);
    if (m->c_own[b] <= t && (best == NIL || older(m, b, best))) best = b;
  }
  return best;
}

uint64_t mc_sched_scan(mc *m, uint64_t now) {
  update_stale(m);
  group_floors(m);
  uint64_t at_min;
  uint64_t t = classes_min(m, &at_min);
  /* Pass 2: the oldest column command and the oldest row command among the
   * choices of the classes reaching t (the FR-FCFS order: mc_advance issues a
   * column command first). */
  uint32_t bc = NIL, br = NIL;
  if (t != MC_NEVER) {
    t = max64(t, now);
    for (uint32_t c0 = 0; c0 < m->nclasses; c0 += 64)
      for (uint64_t qual = classes_reaching(m, c0, now, t, at_min); qual; qual &= qual - 1) {
        const uint32_t c = c0 + (uint32_t)__builtin_ctzll(qual);
        const uint32_t o = class_choice(m, c, t);
        if (m->ccol[c]) {
          if (bc == NIL || older(m, o, bc)) bc = o;
        } else if (br == NIL || older(m, o, br)) {
          br = o;
        }
      }
  }
  /* Nothing changes the engine between events, so the commands found for a
   * future t are the ones mc_advance(t) would find: kept for it. t is also a
   * lower bound of every candidate's earliest cycle until the next change
   * (stale_bank drops both). */
  m->cand_emin = t;
  m->cand_valid = 1;
  m->best_t = t;
  m->best_col = bc;
  m->best_row = br;
  m->best_valid = 1;
  return t;
}

/* ----------------------------------------------------- read / write mode */

/* Every bank's candidate may change with the mode. */
static void stale_all(mc *m) {
  m->floors_valid &= (uint8_t)~FLOORS_COL; /* the column floors change with the mode */
  for (uint32_t b = 0; b < m->nbanks; ++b) stale_bank(m, &m->banks[b]);
}

/* 1 if some bank's write candidate is a row hit (write mode): the stale
 * candidates brought up to date (as the next pass would), then a column
 * class with a member. */
static int write_hits_left(mc *m) {
  update_stale(m);
  if (m->nclasses <= 64) return (m->cnz & m->ccol_bits) != 0;
  for (uint32_t c = 0; c < m->nclasses; ++c)
    if (m->ccol[c] && m->cmask[c]) return 1;
  return 0;
}

/* Write-drain hysteresis: forced drain from wq_high down to wq_low; an
 * opportunistic drain (no reads waiting) ends as soon as a read arrives. */
void mc_sched_mode(mc *m) {
  if (!m->write_mode) {
    if (m->wq_n >= m->cfg.wq_high || (m->rq_n == 0 && m->wq_n > 0)) {
      m->write_mode = 1;
      m->forced_drain = m->wq_n >= m->cfg.wq_high;
      m->drain_extra = m->cfg.wq_low;
      m->st.write_drains++;
      stale_all(m);
    }
    return;
  }
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
