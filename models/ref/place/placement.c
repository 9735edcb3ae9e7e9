/* placement: the Placement Cost Graph, its models and runtime (placement.h).
 * Source: shared/papers/hybrid-dram-pcm-flrb-placement.txt Sec. V. */
#include "placement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ traffic */

/* What the models need of a kernel or a migration phase: transactions per
 * device (0 = PCM, 1 = DRAM, enum plc_where) and the instruction counts. */
typedef struct traffic {
  double rd_coal[2], rd_uncoal[2], wr_coal[2], wr_uncoal[2];
  double coal_insts, uncoal_insts;
  double insts, syncs, warps, warps_per_cta;
} traffic;

static const plc_mem *mem_of(const plc_state *s, int d) { return d == PLC_DRAM ? &s->cfg.dram : &s->cfg.pcm; }

static traffic kernel_traffic(const plc_state *s, uint32_t k, uint32_t dram) {
  const plc_kernel_prof *p = &s->prof[k];
  traffic t;
  memset(&t, 0, sizeof t);
  for (uint32_t a = 0; a < s->cfg.narrays; ++a) {
    const plc_array_prof *q = &p->arr[a];
    const int d = (dram >> a) & 1u;
    t.rd_coal[d] += (double)q->rd_coal;
    t.rd_uncoal[d] += (double)q->rd_uncoal;
    t.wr_coal[d] += (double)q->wr_coal;
    t.wr_uncoal[d] += (double)q->wr_uncoal;
    t.coal_insts += (double)q->coal_insts;
    t.uncoal_insts += (double)q->uncoal_insts;
  }
  t.insts = (double)p->insts;
  t.syncs = (double)p->syncs;
  t.warps = (double)p->warps;
  t.warps_per_cta = p->warps_per_cta ? (double)p->warps_per_cta : 1.0;
  return t;
}

/* The copy kernel that moves an array (platform/placement.h): one thread per
 * 4-byte word, a coalesced load from the old place and a coalesced store to
 * the new one, then exit: 3 warp instructions per 128 B, 8 warps per CTA. */
#define COPY_WARP_BYTES 128.0
#define COPY_WARP_INSTS 3.0
#define COPY_CTA_WARPS 8.0

static traffic migration_traffic(const plc_state *s, uint32_t prev, uint32_t cur) {
  traffic t;
  memset(&t, 0, sizeof t);
  const uint32_t moved = prev ^ cur;
  for (uint32_t a = 0; a < s->cfg.narrays; ++a) {
    if (!((moved >> a) & 1u)) continue;
    const double z = (double)s->size[a];
    const double lines = ceil(z / (double)s->cfg.line_bytes), warps = ceil(z / COPY_WARP_BYTES);
    const int to = (cur >> a) & 1u;
    t.rd_coal[!to] += lines;
    t.wr_coal[to] += lines;
    t.coal_insts += 2.0 * warps;
    t.insts += COPY_WARP_INSTS * warps;
    t.warps += warps;
  }
  t.warps_per_cta = COPY_CTA_WARPS;
  return t;
}

/* ------------------------------------------------------------------ device terms */

/* Per device, in SM-clock cycles (Sec. V-D: "we adjust the calculation of
 * [MWP, CWP, memory waiting cycles] by taking into account different access
 * latency to different memory systems"). */
typedef struct devterms {
  double bus;       /* data-bus cycles of one transaction on one channel */
  double hit, miss; /* latency of a row-buffer hit / miss read */
  double wmiss;     /* latency of a write that closes a written row (NVM: the array write, tRP_DIRTY) */
  double reopen;    /* bank cycles from closing a written row to the next column access of the bank:
                       tRP_DIRTY (NVM array write; tRP for DRAM, which restores every row) + tRCD */
  double pre_gap;   /* rank cycles between two row-writing precharges (tRRD_PRE, dram.h) */
  double visit_atoms; /* column accesses a written row receives while open (written_row_atoms) */
} devterms;

static double atoms_per_line(const plc_state *s, const dram_preset *p) {
  const double a = (double)s->cfg.line_bytes / (double)p->atom_bytes;
  return a < 1.0 ? 1.0 : a;
}

/* Column accesses a row opened by a coalesced write stream receives before
 * the controller closes it (the dirty row write-back of Sec. VI: "writing back
 * dirty row buffers only"). At most a row (row_bytes / atom_bytes). The
 * controller writes in drains of drain_atoms (wq_high - wq_low) column accesses
 * between read phases, and the GPU's concurrent warps' stores spread a drain
 * over the banks of the channel, so a written row takes drain_atoms / banks
 * before the reads that follow close it. The old estimate (a stream fills its
 * rows) took one array write per 8 KiB; the pc_sw runs measured 3.5 (mersenne)
 * to 98 (convsep) atoms per dirty precharge (mem.ch<N>.write_atoms /
 * dirty_precharges) against this bound's 4 and the old 128. */
static double written_row_atoms(const plc_state *s, const plc_mem *m) {
  const dram_preset *p = m->dev;
  const double row = (double)p->row_bytes / (double)p->atom_bytes;
  if (!s->cfg.drain_atoms) return row;
  const double banks = (double)(p->bankgroups * p->banks_per_group) * (double)m->ranks;
  const double v = (double)s->cfg.drain_atoms / banks;
  return v < 1.0 ? 1.0 : v > row ? row : v;
}

static devterms dev_terms(const plc_state *s, int d) {
  const plc_mem *m = mem_of(s, d);
  const dram_preset *p = m->dev;
  const double r = s->cfg.core_mhz / p->clk_mhz;
  const double burst = atoms_per_line(s, p) * (double)p->t.BURST;
  const double rp_w = p->t.RP_DIRTY ? (double)p->t.RP_DIRTY : (double)p->t.RP;
  devterms t;
  t.bus = burst * r;
  t.hit = ((double)p->t.CL + burst) * r;
  t.miss = ((double)p->t.RP + (double)p->t.RCD + (double)p->t.CL + burst) * r;
  t.wmiss = (rp_w + (double)p->t.RCD + (double)p->t.CWL + burst) * r;
  t.reopen = (rp_w + (double)p->t.RCD) * r;
  t.pre_gap = (double)p->t.RRD_PRE * r;
  t.visit_atoms = written_row_atoms(s, m);
  return t;
}

/* Row activations (rows opened) of a device: a coalesced read stream opens a
 * row per row_bytes, a coalesced write stream one per written_row_atoms
 * column accesses (each closed with the row write-back), every uncoalesced
 * transaction its own. */
static double acts_rd(const plc_state *s, const traffic *t, int d) {
  const dram_preset *p = mem_of(s, d)->dev;
  return t->rd_coal[d] * (double)s->cfg.line_bytes / (double)p->row_bytes + t->rd_uncoal[d];
}
static double acts_wr(const plc_state *s, const traffic *t, int d) {
  const plc_mem *m = mem_of(s, d);
  return t->wr_coal[d] * atoms_per_line(s, m->dev) / written_row_atoms(s, m) + t->wr_uncoal[d];
}

/* Busy time of a device in SM cycles, per channel (its transactions and
 * written rows spread evenly over the channels: the map interleaves lines):
 *  - the data bus: every transaction's bursts (the ranks of a channel share
 *    it, so this is also each rank's write bandwidth bound);
 *  - the written rows' write-back: each closes with tRP_DIRTY (NVM array
 *    write) or tRP, then its bank opens the next row (tRCD), the banks of the
 *    channel in parallel, but a rank spaces its row-writing precharges by
 *    tRRD_PRE (Table II: PCM tRRDpre 18, DRAM 5), so the rows cost
 *    max(reopen / banks, tRRD_PRE / ranks) each. The bus waits for them: the
 *    controller stays in write mode until the drain is written, and the reads
 *    that follow need the rows the write-back closed, so the two add (the old
 *    model spread the array writes, one per 8 KiB, over every bank and left
 *    out tRRD_PRE and tRCD: 0.23 / 0.44 ms predicted for mersenne on PCM
 *    against 0.34 / 0.90 ms simulated). */
static double busy_cycles(const plc_state *s, const traffic *t, int d) {
  const plc_mem *m = mem_of(s, d);
  const devterms dt = dev_terms(s, d);
  const double trans = t->rd_coal[d] + t->rd_uncoal[d] + t->wr_coal[d] + t->wr_uncoal[d];
  const double banks = (double)(m->dev->bankgroups * m->dev->banks_per_group) * (double)m->ranks;
  const double ch = (double)m->channels;
  const double per_row = fmax(dt.reopen / banks, dt.pre_gap / (double)m->ranks);
  return trans * dt.bus / ch + acts_wr(s, t, d) * per_row / ch;
}

/* ------------------------------------------------------------------ performance model */

/* Hong and Kim's MWP/CWP model (ISCA 2009, the paper's ref. [8]), per warp:
 * Mem_L, departure delay and bandwidth are transaction-weighted over the two
 * devices. The SM issues one warp instruction per cycle (Strata's SM). The
 * result is at least the busiest device's busy time (bandwidth bound). */
static double exec_seconds(const plc_state *s, const traffic *t) {
  const double f = s->cfg.core_mhz * 1e6;
  const double warps = t->warps > 0 ? t->warps : 1.0;
  const double ctas = ceil(warps / t->warps_per_cta);
  const double active_sms = ctas < (double)s->cfg.sms ? ctas : (double)s->cfg.sms;
  double n = floor((double)s->cfg.max_warps / t->warps_per_cta) * t->warps_per_cta;
  if (n < t->warps_per_cta) n = t->warps_per_cta;
  if (n > ceil(warps / active_sms)) n = ceil(warps / active_sms);
  const double rep = warps / (n * active_sms);
  const double insts_w = t->insts / warps, comp = insts_w;
  const double coal_w = t->coal_insts / warps, uncoal_w = t->uncoal_insts / warps, mem_w = coal_w + uncoal_w;
  if (mem_w <= 0) return comp * n * rep / f;

  const devterms dt[2] = {dev_terms(s, 0), dev_terms(s, 1)};
  double tc = 0, tu = 0, lat_c = 0, lat_u = 0, dep_c = 0, dep_u = 0;
  for (int d = 0; d < 2; ++d) {
    const double ch = (double)mem_of(s, d)->channels;
    const double c = t->rd_coal[d] + t->wr_coal[d], u = t->rd_uncoal[d] + t->wr_uncoal[d];
    tc += c;
    tu += u;
    /* A coalesced write is a row hit but for the share that opens a new row
     * (1 / the lines a written row receives): that one waits for the previous
     * row's write-back and the activation (reopen). Taking every write as a
     * row hit was the old model's PCM write latency. */
    const double lines_per_row = fmax(1.0, dt[d].visit_atoms / atoms_per_line(s, mem_of(s, d)->dev));
    lat_c += t->rd_coal[d] * dt[d].hit + t->wr_coal[d] * (dt[d].hit + dt[d].reopen / lines_per_row);
    lat_u += t->rd_uncoal[d] * dt[d].miss + t->wr_uncoal[d] * dt[d].wmiss;
    dep_c += c * fmax(1.0, dt[d].bus / ch);
    dep_u += u * fmax(1.0, dt[d].bus / ch);
  }
  lat_c = tc > 0 ? lat_c / tc : 0;
  lat_u = tu > 0 ? lat_u / tu : 0;
  dep_c = tc > 0 ? dep_c / tc : 1;
  dep_u = tu > 0 ? dep_u / tu : 1;
  const double per_c = t->coal_insts > 0 ? tc / t->coal_insts : 0;   /* transactions per coalesced instruction */
  const double per_u = t->uncoal_insts > 0 ? tu / t->uncoal_insts : 0;
  const double mem_l_c = lat_c + fmax(per_c - 1.0, 0) * dep_c;
  const double mem_l_u = lat_u + fmax(per_u - 1.0, 0) * dep_u;
  const double mem_l = (mem_l_c * coal_w + mem_l_u * uncoal_w) / mem_w;
  const double departure = (dep_u * per_u * uncoal_w + dep_c * coal_w) / mem_w;

  /* MWP: latency over departure, the bandwidth share, the warps. */
  const double bytes = (tc + tu) * (double)s->cfg.line_bytes;
  const double busy = fmax(busy_cycles(s, t, 0), busy_cycles(s, t, 1));
  const double mem_bw = busy > 0 ? bytes / (busy / f) : INFINITY;               /* bytes / s */
  const double bytes_per_inst = (tc + tu) / (t->coal_insts + t->uncoal_insts) * (double)s->cfg.line_bytes;
  const double bw_per_warp = f * bytes_per_inst / mem_l;
  double mwp = fmin(fmin(mem_l / fmax(departure, 1.0), mem_bw / (bw_per_warp * active_sms)), n);
  if (mwp < 1.0) mwp = 1.0;
  const double mem_cycles = mem_l_u * uncoal_w + mem_l_c * coal_w;
  const double cwp = fmin((mem_cycles + comp) / fmax(comp, 1e-9), n);

  double exec;
  if (mwp == n && cwp == n) exec = (mem_cycles + comp + comp / mem_w * (mwp - 1.0)) * rep;
  else if (cwp >= mwp || comp > mem_cycles) exec = (mem_cycles * n / mwp + comp / mem_w * (mwp - 1.0)) * rep;
  else exec = (mem_l + comp * n) * rep;
  /* Synchronisation (Hong and Kim Eq. 24): departure x (MWP - 1) per barrier per active CTA. */
  exec += departure * (mwp - 1.0) * (t->syncs / warps) * (n / t->warps_per_cta) * rep;
  return fmax(exec, busy) / f;
}

/* ------------------------------------------------------------------ energy model */

/* f(AF) of Eq. 5, mW per rank: background power as a segmented linear
 * function of the activity factor AF (the rank's busy share of T). The paper
 * fits its segments to DRAMSim2 runs and does not print them; here they join
 * the preset's power states: AF 0 = what an idle rank of the platform draws
 * (0 for an NVM rank that is power-gated, GATE_IDLE != 0 and gating on;
 * precharge power-down when the controller powers idle ranks down; otherwise
 * precharge standby: the old model took power-down or gating whatever the
 * controller did, so an idle DRAM part of an all-PCM plan cost nothing where
 * the simulation's six idle DDR3 channels draw 2.5 W), AF 0.5 = precharge
 * standby, AF 1 = active standby (Strata estimate of the knot). */
static double bg_mw(const plc_mem *m, double af) {
  const dram_preset *p = m->dev;
  const double idle = m->gating && p->t.GATE_IDLE ? 0.0 : m->powerdown ? p->e.pd_mw : p->e.bg_mw;
  if (af <= 0) return idle;
  if (af >= 1) return p->e.act_stby_mw;
  if (af <= 0.5) return idle + (p->e.bg_mw - idle) * (af / 0.5);
  return p->e.bg_mw + (p->e.act_stby_mw - p->e.bg_mw) * ((af - 0.5) / 0.5);
}

/* Eq. 4-6 for a phase of T seconds. `dram_data`: some array is in DRAM
 * (Eq. 6's Nrank counts the DRAM ranks that store data). */
static double energy_j(const plc_state *s, const traffic *t, double T, int dram_data) {
  const double f = s->cfg.core_mhz * 1e6;
  double e = 0;
  for (int d = 0; d < 2; ++d) {
    const plc_mem *m = mem_of(s, d);
    const dram_preset *p = m->dev;
    const double atoms = atoms_per_line(s, p);
    const double nrd = (t->rd_coal[d] + t->rd_uncoal[d]) * atoms, nwr = (t->wr_coal[d] + t->wr_uncoal[d]) * atoms;
    const double ar = acts_rd(s, t, d), aw = acts_wr(s, t, d);
    /* Nrd x Erd + Nwr x Ewr: column energy, plus the row activations and
     * precharges of the rows they open (a written row's precharge is the
     * preset's pre_dirty_pj: the NVM array write). */
    e += (nrd * p->e.rd_pj + nwr * p->e.wr_pj + (ar + aw) * p->e.act_pj + ar * p->e.pre_pj + aw * p->e.pre_dirty_pj) *
         1e-12;
    /* Eq. 5: sum over ranks of f(AF_i) x T; data interleave over every rank of the device. */
    const double ranks = (double)m->channels * (double)m->ranks;
    const double af = T > 0 ? fmin(1.0, busy_cycles(s, t, d) / f / T) : 0;
    e += ranks * bg_mw(m, af) * 1e-3 * T;
    /* Eq. 6: Pref x Nrank x T, Pref = one REF's energy per tREFI. */
    if (p->t.REFI && (d != PLC_DRAM || dram_data)) {
      const double pref_w = p->e.ref_pj * 1e-12 / ((double)p->t.REFI / (p->clk_mhz * 1e6));
      e += pref_w * ranks * T;
    }
  }
  return e;
}

static plc_cost phase_cost(const plc_state *s, const traffic *t, int dram_data) {
  plc_cost c;
  c.seconds = exec_seconds(s, t);
  c.energy_j = energy_j(s, t, c.seconds, dram_data);
  c.edp = c.seconds * c.energy_j;
  return c;
}

/* ------------------------------------------------------------------ public models */

plc_cost plc_kernel_cost(const plc_state *s, uint32_t k, uint32_t dram) {
  const traffic t = kernel_traffic(s, k, dram);
  return phase_cost(s, &t, dram != 0);
}

plc_cost plc_migration_cost(const plc_state *s, uint32_t prev, uint32_t cur) {
  plc_cost z = {0, 0, 0};
  if (prev == cur) return z;
  const traffic t = migration_traffic(s, prev, cur);
  return phase_cost(s, &t, (prev | cur) != 0);
}

int plc_legal(const plc_state *s, uint32_t dram) {
  uint64_t d = 0, p = 0;
  for (uint32_t a = 0; a < s->cfg.narrays; ++a) {
    if ((dram >> a) & 1u) d += s->size[a];
    else p += s->size[a];
  }
  /* Constraints (1) and (2): PCM arrays < C, DRAM arrays < D (an empty part is always legal). */
  return (p == 0 || p < s->cfg.pcm.capacity) && (d == 0 || d < s->cfg.dram.capacity);
}

/* ------------------------------------------------------------------ init */

static size_t nmask(uint32_t narrays) { return (size_t)1 << narrays; }

size_t plc_workspace_bytes(const plc_cfg *c) {
  if (!c || c->narrays == 0 || c->narrays > PLC_MAX_ARRAYS || c->nkernels == 0 || c->nkernels > PLC_MAX_KERNELS)
    return 0;
  const size_t m = nmask(c->narrays);
  return 2 * m * sizeof(double) + m * m * sizeof(double) + ((size_t)c->nkernels * m + c->nkernels) * sizeof(uint16_t);
}

static int fail(char *err, size_t n, const char *why) {
  if (err && n) snprintf(err, n, "%s", why);
  return -1;
}

static int mem_ok(const plc_mem *m, int dram, char *err, size_t n) {
  char why[160];
  const char *name = dram ? "DRAM" : "PCM";
  if (!m->dev) return snprintf(why, sizeof why, "no %s device preset", name), fail(err, n, why);
  if ((m->dev->tech == DRAM_TECH_DRAM) != dram) {
    snprintf(why, sizeof why, "%s device %s is %s", name, m->dev->name, dram ? "non-volatile" : "DRAM");
    return fail(err, n, why);
  }
  if (m->channels == 0 || m->ranks == 0 || m->capacity == 0) {
    snprintf(why, sizeof why, "%s part needs channels, ranks and a capacity > 0", name);
    return fail(err, n, why);
  }
  return 0;
}

int plc_init(plc_state *s, const plc_cfg *c, plc_kernel_prof *prof, void *work, size_t work_bytes, char *err,
             size_t errlen) {
  if (!s || !c || !prof) return fail(err, errlen, "null state, configuration or profile");
  if (c->narrays == 0 || c->narrays > PLC_MAX_ARRAYS) return fail(err, errlen, "arrays outside 1..10 (PLC_MAX_ARRAYS)");
  if (c->nkernels == 0 || c->nkernels > PLC_MAX_KERNELS)
    return fail(err, errlen, "kernels outside 1..4096 (PLC_MAX_KERNELS)");
  if (c->sms == 0 || c->max_warps == 0 || !(c->core_mhz > 0) || c->line_bytes == 0)
    return fail(err, errlen, "GPU needs SMs, warp slots, a clock and a line size > 0");
  if (c->align == 0 || (c->align & (c->align - 1))) return fail(err, errlen, "alignment is not a power of two");
  if (!(c->migration_weight >= 0) || !isfinite(c->migration_weight))
    return fail(err, errlen, "migration weight is not a finite number >= 0");
  if (c->force > PLC_FORCE_DRAM) return fail(err, errlen, "force is not none, pcm or dram");
  if (mem_ok(&c->dram, 1, err, errlen) || mem_ok(&c->pcm, 0, err, errlen)) return -1;
  if (c->dram.base < c->pcm.base + c->pcm.capacity && c->pcm.base < c->dram.base + c->dram.capacity)
    return fail(err, errlen, "DRAM and PCM parts overlap");
  if (!work || work_bytes < plc_workspace_bytes(c) || ((uintptr_t)work & 7u))
    return fail(err, errlen, "workspace missing, short or not 8-byte aligned");
  for (uint32_t k = 0; k < c->nkernels; ++k) {
    const plc_kernel_prof *p = &prof[k];
    uint64_t mem = 0;
    for (uint32_t a = 0; a < c->narrays; ++a) mem += p->arr[a].reads + p->arr[a].writes;
    if (mem > p->insts) return fail(err, errlen, "a kernel has more memory instructions than instructions");
  }
  memset(s, 0, sizeof *s);
  s->cfg = *c;
  s->prof = prof;
  const size_t m = nmask(c->narrays);
  double *dw = (double *)work;
  s->best = dw;
  s->next = dw + m;
  /* The migration table follows (m x m doubles), then the masks. */
  s->parent = (uint16_t *)(dw + 2 * m + m * m);
  s->place = s->parent + (size_t)c->nkernels * m;
  return 0;
}

int plc_get_size(plc_state *s, const int64_t *sizes) {
  int64_t largest = -1;
  for (uint32_t a = 0; a < s->cfg.narrays; ++a)
    if (sizes[a] > largest) largest = sizes[a];
  if (largest < 0) return -1;
  for (uint32_t a = 0; a < s->cfg.narrays; ++a) s->size[a] = (uint64_t)(sizes[a] < 0 ? largest : sizes[a]);
  s->solved = 0;
  return 0;
}

/* ------------------------------------------------------------------ DP */

static double *mig_table(const plc_state *s) { return s->next + nmask(s->cfg.narrays); }

int plc_cal_place(plc_state *s) {
  const uint32_t m = (uint32_t)nmask(s->cfg.narrays), K = s->cfg.nkernels;
  double *mig = mig_table(s);
  /* Edge weights' migration part: independent of the kernel, once. */
  for (uint32_t p = 0; p < m; ++p)
    for (uint32_t c = 0; c < m; ++c)
      mig[(size_t)p * m + c] = s->cfg.static_only && p != c ? INFINITY
                               : p == c                      ? 0.0
                                                             : s->cfg.migration_weight * plc_migration_cost(s, p, c).edp;
  if (s->cfg.force != PLC_FORCE_NONE) {  /* placement.force: every array in one kind at every kernel */
    const uint32_t f = s->cfg.force == PLC_FORCE_DRAM ? m - 1 : 0;
    if (!plc_legal(s, f)) return -1;
    for (uint32_t k = 0; k < K; ++k) s->place[k] = (uint16_t)f;
    s->solved = 1;
    s->predicted_edp = plc_sequence_edp(s, s->place);
    s->all_pcm_edp = 0;
    for (uint32_t k = 0; k < K; ++k) s->all_pcm_edp += plc_legal(s, 0) ? plc_kernel_cost(s, k, 0).edp : INFINITY;
    return 0;
  }
  /* Group 1: edges from the start node carry S1(V). */
  for (uint32_t c = 0; c < m; ++c) s->best[c] = plc_legal(s, c) ? plc_kernel_cost(s, 0, c).edp : INFINITY;
  for (uint32_t k = 1; k < K; ++k) {
    for (uint32_t c = 0; c < m; ++c) {
      s->next[c] = INFINITY;
      s->parent[(size_t)k * m + c] = 0;
      if (!plc_legal(s, c)) continue;
      double b = INFINITY;
      uint32_t arg = 0;
      for (uint32_t p = 0; p < m; ++p) {
        const double v = s->best[p] + mig[(size_t)p * m + c];
        if (v < b) b = v, arg = p;
      }
      if (b == INFINITY) continue;
      s->next[c] = b + plc_kernel_cost(s, k, c).edp;  /* w = S_k(V_c) + S_k(V_p, V_c) */
      s->parent[(size_t)k * m + c] = (uint16_t)arg;
    }
    memcpy(s->best, s->next, m * sizeof(double));
  }
  /* End node: zero-weight edges from the last group. */
  double b = INFINITY;
  uint32_t arg = 0;
  for (uint32_t c = 0; c < m; ++c)
    if (s->best[c] < b) b = s->best[c], arg = c;
  if (b == INFINITY) return -1;
  for (uint32_t k = K; k-- > 0;) {
    s->place[k] = (uint16_t)arg;
    if (k) arg = s->parent[(size_t)k * m + arg];
  }
  s->solved = 1;
  s->predicted_edp = s->cfg.migration_weight == 1.0 ? b : plc_sequence_edp(s, s->place);  /* unweighted length */
  s->all_pcm_edp = 0;  /* every array on PCM at every kernel: no migration */
  for (uint32_t k = 0; k < K; ++k) s->all_pcm_edp += plc_legal(s, 0) ? plc_kernel_cost(s, k, 0).edp : INFINITY;
  return 0;
}

uint32_t plc_plan(const plc_state *s, uint32_t k) { return s->solved && k < s->cfg.nkernels ? s->place[k] : 0; }

double plc_sequence_edp(const plc_state *s, const uint16_t *masks) {
  double sum = 0;
  for (uint32_t k = 0; k < s->cfg.nkernels; ++k) {
    if (!plc_legal(s, masks[k])) return INFINITY;
    sum += plc_kernel_cost(s, k, masks[k]).edp;
    if (k) sum += plc_migration_cost(s, masks[k - 1], masks[k]).edp;
  }
  return sum;
}

/* ------------------------------------------------------------------ runtime */

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* First fit of `bytes` in part `d`, skipping array `self`: the lowest of the
 * part's base and the (aligned) ends of its arrays where nothing overlaps. */
static int first_fit(const plc_state *s, int d, uint32_t self, uint64_t bytes, uint64_t *out) {
  const plc_mem *m = mem_of(s, d);
  const uint64_t need = align_up(bytes ? bytes : 1, s->cfg.align), end = m->base + m->capacity;
  int found = 0;
  uint64_t best = 0;
  for (uint32_t c = 0; c <= s->cfg.narrays; ++c) {
    uint64_t start;
    if (c == s->cfg.narrays) start = align_up(m->base, s->cfg.align);
    else if (c != self && s->allocated[c] && s->in_dram[c] == d) start = align_up(s->addr[c] + s->size[c], s->cfg.align);
    else continue;
    if (start < m->base || start + need > end || (found && start >= best)) continue;
    int clash = 0;
    for (uint32_t o = 0; o < s->cfg.narrays && !clash; ++o)
      if (o != self && s->allocated[o] && s->in_dram[o] == d)
        clash = start < align_up(s->addr[o] + s->size[o], s->cfg.align) && s->addr[o] < start + need;
    if (!clash) found = 1, best = start;
  }
  if (found) *out = best;
  return found ? 0 : -1;
}

int plc_malloc_hyb(plc_state *s, uint32_t k, uint32_t a, uint64_t *addr) {
  if (a >= s->cfg.narrays || s->allocated[a]) return -1;
  const int want = (plc_plan(s, k) >> a) & 1u;
  int d = want;
  uint64_t at;
  if (first_fit(s, d, a, s->size[a], &at) != 0) {
    if (want != PLC_DRAM) return -1;  /* Sec. V-C: a failed DRAM allocation tries PCM */
    d = PLC_PCM;
    if (first_fit(s, d, a, s->size[a], &at) != 0) return -1;
  }
  s->addr[a] = at;
  s->in_dram[a] = (uint8_t)d;
  s->allocated[a] = 1;
  *addr = at;
  return 0;
}

uint32_t plc_data_migrate(plc_state *s, uint32_t k, plc_move *out, uint32_t max) {
  uint32_t n = 0;
  if (k == 0 || k >= s->cfg.nkernels) return 0;
  const uint32_t plan = plc_plan(s, k);
  for (int to = PLC_PCM; to <= PLC_DRAM; ++to)  /* DRAM -> PCM first: the space it frees serves PCM -> DRAM */
    for (uint32_t a = 0; a < s->cfg.narrays && n < max; ++a) {
      if (!s->allocated[a] || (int)((plan >> a) & 1u) != to || s->in_dram[a] == to) continue;
      uint64_t at;
      if (first_fit(s, to, a, s->size[a], &at) != 0) continue;  /* no room: the array stays */
      out[n].array = a;
      out[n].to_dram = (uint8_t)to;
      out[n].from = s->addr[a];
      out[n].to = at;
      out[n].bytes = s->size[a];
      ++n;
      s->addr[a] = at;
      s->in_dram[a] = (uint8_t)to;
    }
  return n;
}

void plc_finalize(plc_state *s, uint32_t a) {
  if (a < s->cfg.narrays) s->allocated[a] = 0;
}

/* ------------------------------------------------------------------ plan text */

#define APPEND(...)                                                   \
  do {                                                                \
    const int w_ = snprintf(buf ? buf + (len < n ? len : n) : NULL,  \
                            len < n ? n - len : 0, __VA_ARGS__);      \
    if (w_ > 0) len += (size_t)w_;                                    \
  } while (0)

size_t plc_plan_text(const plc_state *s, const char *const *kernels, const char *const *arrays, char *buf, size_t n) {
  size_t len = 0;
  if (buf && n) buf[0] = 0;
  APPEND("# placement plan (hybrid DRAM+PCM Sec. V): D = DRAM, P = PCM; predicted by the engine's models\n");
  APPEND("# arrays:");
  for (uint32_t a = 0; a < s->cfg.narrays; ++a)
    APPEND(" %s (%llu B)", arrays && arrays[a] ? arrays[a] : "?", (unsigned long long)s->size[a]);
  APPEND("\n");
  if (!s->solved) {
    APPEND("# not solved\n");
    return len;
  }
  for (uint32_t k = 0; k < s->cfg.nkernels; ++k) {
    const uint32_t m = s->place[k];
    if (k && s->place[k - 1] != m) {
      const plc_cost c = plc_migration_cost(s, s->place[k - 1], m);
      APPEND("migrate before kernel %u:", k);
      for (uint32_t a = 0; a < s->cfg.narrays; ++a)
        if (((s->place[k - 1] ^ m) >> a) & 1u)
          APPEND(" %s -> %s", arrays && arrays[a] ? arrays[a] : "?", (m >> a) & 1u ? "DRAM" : "PCM");
      APPEND("  predicted %.4g s %.4g J EDP %.4g J.s\n", c.seconds, c.energy_j, c.edp);
    }
    const plc_cost c = plc_kernel_cost(s, k, m);
    APPEND("kernel %u %s:", k, kernels && kernels[k] ? kernels[k] : "");
    for (uint32_t a = 0; a < s->cfg.narrays; ++a)
      APPEND(" %s=%c", arrays && arrays[a] ? arrays[a] : "?", (m >> a) & 1u ? 'D' : 'P');
    APPEND("  predicted %.4g s %.4g J EDP %.4g J.s\n", c.seconds, c.energy_j, c.edp);
  }
  APPEND("predicted EDP (sum over kernels and migrations): %.6g J.s; all arrays on PCM: %.6g J.s\n",
         s->predicted_edp, s->all_pcm_edp);
  return len;
}
