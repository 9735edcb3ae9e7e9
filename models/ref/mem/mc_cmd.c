/* mc_cmd.c: the bookkeeping of an issued ACT, PRE, RD or WR (mc.h).
 *
 * mc_sched.c decides which command issues; these functions record that it
 * did. Every timing constraint is kept as an "earliest legal cycle" per scope
 * (bank, bank group, rank, channel buses), moved forward here when a command
 * issues (the Ramulator / DRAMSys formulation: {scope, preceding cmd,
 * following cmd, latency} folded into next-allowed times), so whether a
 * command is legal at cycle t is a handful of max() operations in the pass.
 * Each command also counts itself (channel counters, the rank's per-command
 * counts for energy), splits the rank's standby time (mc_power.c), marks its
 * bank's candidate stale and goes to the command log.
 */
#include "mc_internal.h"

void mc_issue_act(mc *m, mc_bank_ *B, uint64_t now) {
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
  standby_bank_opens(R, now);
  R->last_cmd = now;
  R->n_act++;
  use_row_bus(m, now);
  m->st.acts++;
  stale_bank(m, B);
  log_cmd(m, now, MC_CMD_ACT, B, row, 0);
}

/* `conflict`: the PRE resolves a row conflict (the next ACT's first access
 * counts as a conflict, not a miss). */
void mc_issue_pre(mc *m, mc_bank_ *B, uint64_t now, int conflict) {
  B->open = 0;
  mc_rank_ *R = &m->ranks[B->rank];
  const dram_timing *t = &R->t;
  /* A dirty row buffer writes back to the array (tRP_DIRTY, when the preset
   * models the write there); array writes are spaced tRRD_PRE per rank. */
  const uint32_t rp = B->dirty ? R->rp_dirty : t->RP;
  if (pre_writes_array(R, B)) R->wpre_ok = now + t->RRD_PRE;
  if (B->dirty) m->st.pres_dirty++, R->n_pre_dirty++;
  B->dirty = 0;
  B->pre_conflict = (uint8_t)conflict; /* the next ACT opens the row a conflict asked for */
  B->act_ok = max64(B->act_ok, now + rp);
  standby_bank_closes(R, now);
  R->last_cmd = now;
  R->n_pre++;
  use_row_bus(m, now);
  m->st.pres++;
  stale_bank(m, B);
  log_cmd(m, now, MC_CMD_PRE, B, B->open_row, 0);
}

/* Completions are two FIFOs (reads, writes): CL and CWL are constants, so
 * data returns in column-command order within each direction. Cannot
 * overflow: the capacity bounds the column commands in flight (mc_init). */
static inline void ring_push(mc *m, int q, uint64_t t, uint32_t parent) {
  mc_ring_ *r = &m->ring[q];
  uint32_t i = r->head + r->n;
  if (i >= r->cap) i -= r->cap;
  r->t[i] = t;
  r->parent[i] = parent;
  r->n++;
}

/* Column access of B's candidate atom (RD in read mode, WR in write mode):
 * the atom leaves its bank FIFO and the queue, and completes CL (CWL) +
 * tBURST later -- reported then, or now with that cycle (done_at_issue). */
void mc_issue_col(mc *m, mc_bank_ *B, uint64_t now) {
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
  if (m->row_track) { /* K_* and mc_row share their numbering */
    mc_parent_ *P = &m->parents[A->parent];
    if (B->first_kind > P->row) P->row = B->first_kind;
  }
  B->first_kind = K_HIT;
  R->nq--;
  R->last_cmd = now;
  const uint32_t bytes = A->bytes;
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
    R->wr_bytes += bytes;
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
    R->rd_bytes += bytes;
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
