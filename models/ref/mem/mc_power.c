/* mc_power.c: power states and energy of the memory-controller engine (mc.h).
 *
 * Power states per rank (JEDEC): active standby (some bank open), precharge
 * standby (all closed), precharge power-down entered cfg.pd_idle cycles
 * after the rank's last command (and the end of its last burst) while it is
 * idle, and for NVM ranks with cfg.nvm_gating power gating tGATE_IDLE cycles
 * after it (hybrid graphics memory Sec. 4.2).
 *
 * They cost no events: a rank is idle (all banks closed, nothing queued, no
 * refresh pending: rank_idle) from its last command on, so its power-down
 * entry is last_cmd + pd_idle (not before its last burst ends) and its gating
 * entry last_cmd + tGATE_IDLE. Only when the idleness ends (a submission for
 * the rank, its refresh falling due: rank_wake) is the exit decided, the time
 * accounted and tXP / tWAKE folded into the rank's act_ok (all its banks are
 * closed, so ACT or REF comes next; the refresh's earliest cycle reads it
 * too) -- a rank-level timing change, so the floors are invalidated; an idle
 * rank has no candidates, so no cached candidate changes. Standby time is
 * split at every ACT opening the rank's first bank and every PRE closing its
 * last one (mc_internal.h standby_bank_opens / _closes). At stats time a
 * period still running is counted up to `now` (mc_rank_power).
 *
 * Energy: command energies from each rank's preset times its command counts,
 * background = power of each state x time in it.
 */
#include "mc_internal.h"

#include <string.h>

void mc_power_init(mc *m) {
  m->lp_on = (uint8_t)(m->cfg.pd_idle != 0);
  for (uint32_t r = 0; r < m->cfg.ranks; ++r) {
    mc_rank_ *R = &m->ranks[r];
    R->gate_idle = m->cfg.nvm_gating ? R->dev->t.GATE_IDLE : 0;
    if (R->gate_idle) m->lp_on = 1;
  }
}

/* Power-down and gating entry of an idle rank (MC_NEVER: disabled). */
static inline uint64_t pd_entry(const mc *m, const mc_rank_ *R) {
  return m->cfg.pd_idle ? max64(R->last_cmd + m->cfg.pd_idle, R->data_end) : MC_NEVER;
}
static inline uint64_t gate_entry(const mc_rank_ *R) {
  return R->gate_idle ? max64(R->last_cmd + R->gate_idle, R->data_end) : MC_NEVER;
}

/* Idle rank r stops being idle at cycle `trig` (a request for it arrives,
 * its refresh falls due). If it powered down or was gated before trig,
 * account that time, report the exit (MC_CMD_PDX) and hold its next command
 * for tXP or tWAKE. */
void mc_power_exit(mc *m, uint32_t r, uint64_t trig) {
  mc_rank_ *R = &m->ranks[r];
  const uint64_t pe = pd_entry(m, R), ge = gate_entry(R);
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

void mc_rank_power(const mc *m, uint32_t r, uint64_t now, mc_power *out) {
  const mc_rank_ *R = &m->ranks[r];
  uint64_t open = R->open_cyc, closed = R->closed_cyc, pd = R->pd_cyc, gated = R->gated_cyc;
  if (now > R->since) {
    if (R->nopen) open += now - R->since;
    else closed += now - R->since;
  }
  if (m->lp_on && rank_idle(R)) { /* a power-down / gating period still running at now */
    const uint64_t pe = pd_entry(m, R), ge = gate_entry(R);
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
