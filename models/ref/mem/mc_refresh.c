/* mc_refresh.c: refresh of the memory-controller engine (mc.h).
 *
 * DRAM ranks only (an NVM rank has tREFI 0 and never falls due). All-bank
 * refresh: a REF every tREFI per rank, ranks staggered across the interval;
 * when one falls due the rank takes no new ACT / RD / WR (ref_blocks: its
 * banks' only candidate is the PRE that closes them), and the REF issues
 * tRP after the last PRE and tRC after the last ACT, then ACTs wait tRFC.
 * Per-bank refresh (JESD235 REFSB, LPDDR4 REFpb; used when the preset has
 * tRFC_PB and mc_cfg.refresh_per_bank): one bank every tREFI / banks, round
 * robin, each blocking only its bank for tRFC_PB, so the rank's banks are
 * all refreshed once per tREFI.
 *
 * A refresh falling due is an event (ref_due_min); a pending one becomes one
 * when its banks are closed (mc_refresh_pending_next).
 */
#include "mc_internal.h"

void mc_refresh_init(mc *m) {
  const mc_cfg *cfg = &m->cfg;
  for (uint32_t r = 0; r < cfg->ranks; ++r) {
    mc_rank_ *R = &m->ranks[r];
    const dram_timing *t = &R->dev->t;
    const int refreshes = cfg->refresh && t->REFI > 0;
    R->ref_pb = (uint8_t)(refreshes && cfg->refresh_per_bank && t->RFC_PB > 0);
    R->refi_pb = R->ref_pb ? t->REFI / m->banks_per_rank : t->REFI;
    if (R->ref_pb && R->refi_pb == 0) R->refi_pb = 1;
    if (refreshes) m->refresh_on = 1;
    /* ranks staggered across one refresh interval */
    R->ref_due = refreshes ? R->refi_pb + (uint64_t)r * (R->refi_pb / cfg->ranks) : MC_NEVER;
  }
  mc_refresh_update(m);
}

void mc_refresh_update(mc *m) {
  uint64_t e = MC_NEVER;
  uint32_t np = 0;
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) {
    if (m->ranks[r].ref_pending) np++;
    else if (m->ranks[r].ref_due < e) e = m->ranks[r].ref_due;
  }
  m->ref_due_min = e;
  m->ref_npend = np;
}

/* Every bank of rank r: its candidate becomes the refresh's PRE (or none). */
static void stale_rank(mc *m, uint32_t r) {
  for (uint32_t b = r * m->banks_per_rank; b < (r + 1) * m->banks_per_rank; ++b) stale_bank(m, &m->banks[b]);
}

void mc_refresh_fall_due(mc *m, uint64_t now) {
  for (uint32_t r = 0; r < m->cfg.ranks; ++r)
    if (!m->ranks[r].ref_pending && now >= m->ranks[r].ref_due) {
      rank_wake(m, r, m->ranks[r].ref_due); /* before it is pending: the rank was idle until then */
      m->ranks[r].ref_pending = 1;
      if (m->ranks[r].ref_pb) stale_bank(m, ref_target(m, r));
      else stale_rank(m, r);
    }
  mc_refresh_update(m);
}

/* The pending refresh of rank r could issue now that the banks it needs are
 * closed (all of them, or its target bank). */
static inline int ref_closed(const mc *m, uint32_t r) {
  return m->ranks[r].ref_pb ? !m->banks[r * m->banks_per_rank + m->ranks[r].ref_bank].open : m->ranks[r].nopen == 0;
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

uint64_t mc_refresh_pending_next(const mc *m) {
  uint64_t e = MC_NEVER;
  for (uint32_t r = 0; r < m->cfg.ranks; ++r)
    if (m->ranks[r].ref_pending && ref_closed(m, r)) e = min64(e, ref_earliest(m, r));
  return e;
}

/* REF (all-bank) or REFPB of rank r at `now`. */
static void issue_ref(mc *m, uint32_t r, uint64_t now) {
  mc_rank_ *R = &m->ranks[r];
  mc_bank_ *T = ref_target(m, r);
  if (T) { /* per-bank: only the target bank, next bank next time */
    T->act_ok = now + R->t.RFC_PB;
    stale_bank(m, T);
    R->ref_pending = 0;
    R->ref_due += R->refi_pb;
    mc_refresh_update(m);
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
  mc_refresh_update(m);
  R->last_cmd = now;
  R->n_ref++;
  use_row_bus(m, now);
  m->st.refs++;
  if (m->cmd_log) m->cmd_log(m->cmd_ctx, now, MC_CMD_REF, r, 0, 0, 0, 0);
}

/* Ranks in index order: the first pending refresh that is legal at `now` issues. */
int mc_refresh_issue(mc *m, uint64_t now) {
  for (uint32_t r = 0; r < m->cfg.ranks; ++r)
    if (m->ranks[r].ref_pending && ref_closed(m, r) && ref_earliest(m, r) <= now) {
      issue_ref(m, r, now);
      return 1;
    }
  return 0;
}
