/* memside_hgm: the hybrid graphics memory's NVM controller and data migration
 * (shared/papers/hybrid-graphics-memory-dram-sttram-rram.txt, Sec. 4.1-4.2,
 * Figs. 6-8; docs/hybrid_graphics.md).
 *
 * A partition is two device controllers (memside.partition_channels = 2): a
 * GDDR5 channel that holds the program (the map's DRAM part:
 * program_in_first_part) and an NVM bus with an RRAM rank and an STT-RAM rank
 * (mem.channel_devices = "gddr5_1250, rram+sttram"). The GPU reads and writes
 * DRAM and only reads NVM (Sec. 4.1); rows the policy finds idle move to NVM,
 * where the idle ones are powered off row by row.
 *
 *  - Per DRAM row (the device row of a bank, row_bytes): the time of its last
 *    access (the row timer, Sec. 4.1 "Timers are employed to manage the idle
 *    state of each DRAM row"), its reads and writes since it was placed in
 *    DRAM (the access counters, Fig. 7), the accesses in flight.
 *  - Start point (Fig. 8): a row is not migrated at its time-out. It becomes
 *    eligible when it has been idle for idle_timeout_ns AND its access
 *    density since it was placed (accesses per microsecond of residence) has
 *    fallen to density_per_us or below, so a row in a burst, or one that is
 *    accessed again and again with short pauses ("interleaved access",
 *    Fig. 3), stays in DRAM. Eligible times live in a min-heap examined at
 *    every decision period (a wake-up every period_ns; no per-cycle work).
 *  - Destination: STT-RAM when the row's write fraction is above
 *    stt_write_fraction (STT-RAM writes faster), else RRAM (read-only or
 *    very low write intensity); the other one when that has no free row.
 *  - Memory intensity: in a period where the DRAM channel's data bus was busy
 *    less than min_intensity, no migration starts (the period counts in
 *    migration_disabled_ns): migration would cost more than it saves.
 *  - Migration buffers (Sec. 4.1): at most `buffers` rows move at once, each
 *    through a row-sized buffer: accesses to the row are held, those already
 *    routed drain, the row is read (class MIGRATION), written to its new
 *    place, the mapping table entry switches and the held accesses go.
 *  - A GPU write to a row in NVM migrates the row back to its DRAM row first
 *    (the write waits; Sec. 4.1 "GPU can only read from the NVM partition").
 *    The DRAM row is kept for the row while it lives in NVM (home placement:
 *    the mapping table maps DRAM row -> NVM row; see docs for what that
 *    leaves out).
 *  - Per-row NVM power gating (Sec. 4.2): an NVM row idle for its rank's
 *    tGATE_IDLE is powered off; a read or a migration to it wakes it (the
 *    access waits tWAKE; counted in wakeups). Accounted lazily at each
 *    access: the gated and powered row-time integrals (gated_row_ns,
 *    powered_row_ns) are what the power model charges leakage for.
 *
 * Every threshold is a key (HGM_PARAMS) with its default's reason; the paper
 * gives none.
 */
#include <stdio.h>
#include <string.h>

#include "mem/dram.h"
#include "memside.h"

#define HGM_MAX_BUFFERS 16u
#define HGM_MAX_ROW 4096u

/* The parameters, memside.hgm.<name>: X(index, name, type, default, min, max, doc). */
#define HGM_PARAMS(X)                                                                                          \
  X(HGM_PERIOD, "period_ns", MEMSIDE_P_INT, "1000", 10, 1e9,                                                   \
    "decision period, ns: time-outs and the memory intensity are examined once per period (Fig. 8; Strata "   \
    "choice: the NVM presets' 1 us gating time-out, so a decision is never later than a gating one)")         \
  X(HGM_IDLE, "idle_timeout_ns", MEMSIDE_P_INT, "40000000", 1, 1e12,                                           \
    "DRAM row time-out, ns without an access (Sec. 4.1 row timers; Strata choice: the break-even idle time of " \
    "a move, 40 ms: a 2 KiB move costs ~130 nJ, a row in NVM instead of DRAM saves its DRAM leakage, "         \
    "200 mW x 2 KiB / 128 MiB = 3 uW; docs/hybrid_graphics.md \"Calibration\")")                              \
  X(HGM_DENSITY, "density_per_us", MEMSIDE_P_FLOAT, "0.1", 0, 1e9,                                             \
    "a timed-out row moves once its accesses per microsecond since it was placed in DRAM are at most this "   \
    "(Fig. 8 access density; Strata choice: one access per 10 us, the time-out)")                             \
  X(HGM_STT_WF, "stt_write_fraction", MEMSIDE_P_FLOAT, "0.05", 0, 1,                                           \
    "rows whose writes / accesses since placed in DRAM exceed this go to STT-RAM, the others to RRAM "       \
    "(Sec. 4.1: RRAM for read-only or extremely low write intensity; Strata choice: 1 write in 20)")          \
  X(HGM_MIN_INT, "min_intensity", MEMSIDE_P_FLOAT, "0.02", 0, 1,                                               \
    "no migration starts in a period where the DRAM channel's bus utilisation was below this (Sec. 4.2; "     \
    "Strata choice: 2 %)")                                                                                   \
  X(HGM_BUFFERS, "buffers", MEMSIDE_P_INT, "4", 1, HGM_MAX_BUFFERS,                                            \
    "migration buffers per memory controller, one row each (Sec. 4.1; Strata choice)")                        \
  X(HGM_RRAM, "rram_bytes", MEMSIDE_P_SIZE, "128MiB", 0, (double)(1ull << 40),                                 \
    "RRAM capacity per NVM bus, bytes (Sec. 4.1: 128 MB per channel)")                                        \
  X(HGM_STT, "stt_bytes", MEMSIDE_P_SIZE, "8MiB", 0, (double)(1ull << 40),                                     \
    "STT-RAM capacity per NVM bus, bytes (Sec. 4.1: 8 MB per channel)")

enum {
#define X(id, nm, ty, def, lo, hi, doc) id,
  HGM_PARAMS(X)
#undef X
  HGM_NPARAMS
};

static const memside_param hgm_param[] = {
#define X(id, nm, ty, def, lo, hi, doc) {nm, ty, def, lo, hi, NULL, doc, NULL, NULL},
    HGM_PARAMS(X)
#undef X
};

static const memside_params hgm_params = {"memside.hgm.", hgm_param, HGM_NPARAMS, NULL};

#define HGM_STATS(X)                                                                                             \
  X(S_TO_RRAM, "migrations_to_rram", "rows moved from DRAM to RRAM")                                              \
  X(S_TO_STT, "migrations_to_stt", "rows moved from DRAM to STT-RAM")                                             \
  X(S_TO_DRAM, "migrations_to_dram", "rows moved back to DRAM because the GPU wrote them")                        \
  X(S_NVM_READS, "nvm_reads", "GPU reads served by NVM")                                                          \
  X(S_DRAM_ACC, "dram_accesses", "GPU accesses served by DRAM")                                                   \
  X(S_WAKEUPS, "wakeups", "reads or migrations that found their NVM row powered off (each waited tWAKE)")         \
  X(S_GATED_NS, "gated_row_ns", "NVM rows holding data and powered off, integrated over time, row-ns")            \
  X(S_POWERED_NS, "powered_row_ns", "NVM rows holding data and powered on, integrated over time, row-ns")         \
  X(S_DISABLED_NS, "migration_disabled_ns", "decision periods with migration off (DRAM bus below min_intensity), ns") \
  X(S_HOLDS, "holds", "GPU accesses held by a row in migration")                                                  \
  X(S_NO_SLOT, "no_free_nvm_row", "eligible rows left in DRAM because neither NVM rank had a free row")            \
  X(S_NO_BUF, "no_free_buffer", "decision periods that left eligible rows for want of a migration buffer")

enum {
#define X(id, nm, desc) id,
  HGM_STATS(X)
#undef X
  HGM_NSTATS
};

static const char *const hgm_stat_names[] = {
#define X(id, nm, desc) nm,
    HGM_STATS(X)
#undef X
    NULL};
static const char *const hgm_stat_descs[] = {
#define X(id, nm, desc) desc,
    HGM_STATS(X)
#undef X
    NULL};

#define B(i) (1ull << (i))
static const memside_derived hgm_derived[] = {
    {"nvm_read_fraction", "GPU accesses served by NVM / all GPU accesses", B(S_NVM_READS),
     B(S_NVM_READS) | B(S_DRAM_ACC)},
    {"gated_fraction", "powered-off share of the NVM rows holding data (time-averaged)", B(S_GATED_NS),
     B(S_GATED_NS) | B(S_POWERED_NS)},
    {NULL, NULL, 0, 0},
};

enum hgm_where { W_DRAM = 0, W_TO_NVM = 1, W_NVM = 2, W_BACK = 3, W_WAIT_BACK = 4 };

typedef struct hgm_row {
  uint64_t last_ps;   /* last access (the row timer) */
  uint64_t placed_ps; /* first access, or return to DRAM */
  uint32_t reads, writes;
  uint32_t slot;      /* W_NVM / W_BACK: NVM row (tech bit 31 = STT-RAM) */
  uint16_t inflight;  /* routed, not answered */
  uint8_t where;      /* enum hgm_where */
  uint8_t touched;    /* in the heap or in NVM */
} hgm_row;

typedef struct hgm_slot {
  uint64_t last_ps;   /* last read or migration write */
  uint32_t owner;     /* DRAM row */
} hgm_slot;

typedef struct hgm_heap_ent {
  uint64_t key;
  uint32_t row;
} hgm_heap_ent;

enum hgm_phase { B_FREE = 0, B_DRAIN, B_READ, B_WRITE };

typedef struct hgm_buf {
  uint8_t phase, back;  /* back: NVM -> DRAM */
  uint32_t row, slot;
  uint64_t wake_ps;     /* the destination NVM row's wake-up delay (to NVM) */
} hgm_buf;

#define STT_BIT 0x80000000u

typedef struct hgm_st {
  memside_cfg cfg;
  memside_env env;
  uint32_t dram, nvm;             /* device indices */
  uint32_t rank_rram, rank_stt;   /* NVM ranks */
  uint32_t row_bytes, row_shift;
  uint32_t nrows, nslots[2];      /* DRAM rows tracked; RRAM, STT-RAM rows */
  uint64_t period_ps, idle_ps, gate_ps[2], wake_ps[2];
  double density_per_ps, stt_wf, min_int;
  uint32_t nbufs;
  int stopped, wake_pending;
  uint32_t heap_n, nfree[2], nback;
  uint64_t c[HGM_NSTATS];
  memside_stats st;
  hgm_buf buf[HGM_MAX_BUFFERS];
  unsigned char data[HGM_MAX_BUFFERS][HGM_MAX_ROW];
  /* carved from the block after the struct */
  hgm_row *row;
  hgm_heap_ent *heap;
  hgm_slot *slot[2];
  uint32_t *freel[2];
  uint32_t *backq;                /* rows waiting for a buffer to move back (FIFO) */
  uint32_t back_head;
  uint64_t on_ps[2];              /* powered row-time of each NVM rank (RRAM, STT-RAM), ps */
  uint64_t rank_rows[2];          /* rows of each NVM rank (rram_bytes, stt_bytes) */
} hgm_st;

/* Rows of the DRAM device the policy tracks: the DRAM part's share of one channel, bounded by the program's
 * end when it is known (device rows above it are never accessed). */
static uint32_t dram_rows(const memside_cfg *cfg, uint32_t dram, uint32_t row_bytes) {
  const amap *m = cfg->map;
  uint64_t bytes = 0;
  for (unsigned i = 0; i < m->nparts; ++i)
    if (m->part[i].mem == AMAP_MEM_DRAM && m->part[i].nch) bytes = m->part[i].bytes / m->part[i].nch;
  if (cfg->program_end) {
    const uint64_t nch = m->nparts ? m->part[0].nch : 1;
    uint64_t prog = (cfg->program_end + nch - 1) / nch + cfg->geom[dram].row_span;
    prog = (prog + cfg->geom[dram].row_span - 1) / cfg->geom[dram].row_span * cfg->geom[dram].row_span;
    if (!bytes || prog < bytes) bytes = prog;
  }
  uint64_t n = bytes / row_bytes;
  return n > (1u << 24) ? (1u << 24) : (uint32_t)n;
}

static uint32_t slots_of(const memside_cfg *cfg, int tech, uint32_t nrows, uint32_t row_bytes) {
  uint64_t n = (uint64_t)cfg->param[tech ? HGM_STT : HGM_RRAM].i / row_bytes;
  return n > nrows ? nrows : (uint32_t)n;
}

static int find_devs(const memside_cfg *cfg, uint32_t *dram, uint32_t *nvm, uint32_t *rr, uint32_t *stt) {
  if (cfg->ndevs != 2) return -1;
  *dram = cfg->rank_kind[0][0] == AMAP_MEM_DRAM ? 0 : 1;
  *nvm = 1 - *dram;
  if (cfg->rank_kind[*dram][0] != AMAP_MEM_DRAM || cfg->geom[*nvm].ranks != 2) return -1;
  *rr = *stt = UINT32_MAX;
  for (uint32_t r = 0; r < 2; ++r) {
    if (cfg->rank_tech[*nvm][r] == DRAM_TID_RRAM) *rr = r;
    if (cfg->rank_tech[*nvm][r] == DRAM_TID_STTRAM) *stt = r;
  }
  return *rr == UINT32_MAX || *stt == UINT32_MAX ? -1 : 0;
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

static size_t hgm_state_bytes(const memside_cfg *cfg) {
  uint32_t d, n, rr, stt;
  if (find_devs(cfg, &d, &n, &rr, &stt) != 0) return sizeof(hgm_st);
  const uint32_t rb = cfg->geom[d].columns * cfg->geom[d].atom_bytes;
  const uint32_t nr = dram_rows(cfg, d, rb), s0 = slots_of(cfg, 0, nr, rb), s1 = slots_of(cfg, 1, nr, rb);
  return align8(sizeof(hgm_st)) + align8((size_t)nr * sizeof(hgm_row)) + align8((size_t)nr * sizeof(hgm_heap_ent)) +
         align8((size_t)(s0 + s1) * sizeof(hgm_slot)) + align8((size_t)(s0 + s1) * 4) + align8((size_t)nr * 4);
}

static uint64_t cycles_ps(uint32_t cycles, double mhz) { return mhz > 0 ? (uint64_t)(cycles * 1e6 / mhz + 0.5) : 0; }

static int hgm_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  hgm_st *s = (hgm_st *)st;
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->env = *env;
  if (find_devs(cfg, &s->dram, &s->nvm, &s->rank_rram, &s->rank_stt) != 0) {
    snprintf(err, errlen,
             "memside.policy: expected hgm's partitions of a DRAM channel and an NVM bus of an RRAM and an STT-RAM "
             "rank (memside.partition_channels = 2, mem.ranks = 2, mem.channel_devices = \"gddr5_1250, "
             "rram+sttram\"), got %u device(s)",
             cfg->ndevs);
    return -1;
  }
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  const devaddr_geom *g = &cfg->geom[s->dram];
  s->row_bytes = g->columns * g->atom_bytes;
  if (!g->pow2 || s->row_bytes > HGM_MAX_ROW || (s->row_bytes & (s->row_bytes - 1))) {
    snprintf(err, errlen, "memside.policy: expected hgm's rows a power of two up to %u B, got %u B", HGM_MAX_ROW,
             s->row_bytes);
    return -1;
  }
  while ((1u << s->row_shift) < s->row_bytes) ++s->row_shift;
  s->nrows = dram_rows(cfg, s->dram, s->row_bytes);
  s->nslots[0] = slots_of(cfg, 0, s->nrows, s->row_bytes);
  s->nslots[1] = slots_of(cfg, 1, s->nrows, s->row_bytes);
  s->period_ps = (uint64_t)cfg->param[HGM_PERIOD].i * 1000u;
  s->idle_ps = (uint64_t)cfg->param[HGM_IDLE].i * 1000u;
  s->density_per_ps = cfg->param[HGM_DENSITY].f * 1e-6;
  s->stt_wf = cfg->param[HGM_STT_WF].f;
  s->min_int = cfg->param[HGM_MIN_INT].f;
  s->nbufs = (uint32_t)cfg->param[HGM_BUFFERS].i;
  s->rank_rows[0] = (uint64_t)cfg->param[HGM_RRAM].i / s->row_bytes;
  s->rank_rows[1] = (uint64_t)cfg->param[HGM_STT].i / s->row_bytes;
  const uint32_t rk[2] = {s->rank_rram, s->rank_stt};
  for (int t = 0; t < 2; ++t) {
    s->gate_ps[t] = cycles_ps(cfg->rank_gate_idle[s->nvm][rk[t]], cfg->dev_clk_mhz[s->nvm]);
    s->wake_ps[t] = cycles_ps(cfg->rank_twake[s->nvm][rk[t]], cfg->dev_clk_mhz[s->nvm]);
  }
  unsigned char *p = (unsigned char *)st + align8(sizeof(hgm_st));
  s->row = (hgm_row *)p;
  p += align8((size_t)s->nrows * sizeof(hgm_row));
  s->heap = (hgm_heap_ent *)p;
  p += align8((size_t)s->nrows * sizeof(hgm_heap_ent));
  s->slot[0] = (hgm_slot *)p;
  s->slot[1] = s->slot[0] + s->nslots[0];
  p += align8((size_t)(s->nslots[0] + s->nslots[1]) * sizeof(hgm_slot));
  s->freel[0] = (uint32_t *)p;
  s->freel[1] = s->freel[0] + s->nslots[0];
  p += align8((size_t)(s->nslots[0] + s->nslots[1]) * 4);
  s->backq = (uint32_t *)p;
  memset(s->row, 0, (size_t)s->nrows * sizeof(hgm_row));
  for (int t = 0; t < 2; ++t) {
    s->nfree[t] = s->nslots[t];
    for (uint32_t i = 0; i < s->nslots[t]; ++i) s->freel[t][i] = s->nslots[t] - 1 - i; /* pop gives 0 first */
  }
  return 0;
}

/* ---- the eligibility heap (min key first) */
static uint64_t eligible_at(const hgm_st *s, const hgm_row *r) {
  uint64_t t = r->last_ps + s->idle_ps;
  if (s->density_per_ps > 0) {
    const double n = (double)r->reads + (double)r->writes;
    const uint64_t d = r->placed_ps + (uint64_t)(n / s->density_per_ps);
    if (d > t) t = d;
  } else {
    t = UINT64_MAX; /* density 0: never */
  }
  return t;
}

static void heap_push(hgm_st *s, uint32_t row, uint64_t key) {
  uint32_t i = s->heap_n++;
  while (i) {
    const uint32_t up = (i - 1) / 2;
    if (s->heap[up].key <= key) break;
    s->heap[i] = s->heap[up];
    i = up;
  }
  s->heap[i].key = key;
  s->heap[i].row = row;
}

static hgm_heap_ent heap_pop(hgm_st *s) {
  const hgm_heap_ent top = s->heap[0], last = s->heap[--s->heap_n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= s->heap_n) break;
    if (c + 1 < s->heap_n && s->heap[c + 1].key < s->heap[c].key) ++c;
    if (s->heap[c].key >= last.key) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (s->heap_n) s->heap[i] = last;
  return top;
}

/* ---- locations */
static uint64_t slot_addr(const hgm_st *s, uint32_t slot) {
  const devaddr_geom *g = &s->cfg.geom[s->nvm];
  const uint32_t k = slot & ~STT_BIT;
  devaddr_loc l;
  l.ra = (slot & STT_BIT) ? s->rank_stt : s->rank_rram;
  l.ba = k % g->banks; /* consecutive NVM rows of a rank spread over its banks, then bank groups */
  l.bg = (k / g->banks) % g->bankgroups;
  l.row = k / (g->banks * g->bankgroups);
  l.col = 0;
  return devaddr_encode(g, &l);
}

static hgm_slot *slot_of(hgm_st *s, uint32_t slot) { return &s->slot[(slot & STT_BIT) ? 1 : 0][slot & ~STT_BIT]; }

/* The row of a DRAM device address, or UINT32_MAX beyond the tracked rows. */
static uint32_t row_of(const hgm_st *s, uint64_t dram_addr) {
  const uint64_t r = dram_addr >> s->row_shift;
  return r < s->nrows ? (uint32_t)r : UINT32_MAX;
}

static void hgm_locate(const void *st, uint64_t pa, memside_target *out) {
  const hgm_st *s = (const hgm_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (out->dev != s->dram) return;
  const uint32_t r = row_of(s, out->addr);
  if (r == UINT32_MAX) return;
  const hgm_row *w = &s->row[r];
  if (w->where == W_NVM || w->where == W_BACK || w->where == W_WAIT_BACK) {
    out->addr = slot_addr(s, w->slot) + (out->addr & (s->row_bytes - 1));
    out->dev = s->nvm;
    out->kind = AMAP_MEM_NVM;
  }
}

static unsigned hgm_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  hgm_locate(st, pa, &t);
  return t.kind;
}

/* An NVM row is used at now: gating accounted since its last use; returns the wake-up delay (0: powered). */
static uint64_t touch_slot(hgm_st *s, uint32_t slot, uint64_t now) {
  hgm_slot *q = slot_of(s, slot);
  const int t = (slot & STT_BIT) ? 1 : 0;
  const uint64_t idle = now > q->last_ps ? now - q->last_ps : 0;
  uint64_t wake = 0;
  if (s->gate_ps[t] && idle > s->gate_ps[t]) {
    s->c[S_POWERED_NS] += s->gate_ps[t] / 1000u;
    s->c[S_GATED_NS] += (idle - s->gate_ps[t]) / 1000u;
    s->on_ps[t] += s->gate_ps[t];
    ++s->c[S_WAKEUPS];
    wake = s->wake_ps[t];
  } else {
    s->c[S_POWERED_NS] += idle / 1000u;
    s->on_ps[t] += idle;
  }
  q->last_ps = now + wake;
  return wake;
}

/* ---- migrations */
static void issue_row(hgm_st *s, uint32_t b, int write) {
  hgm_buf *m = &s->buf[b];
  const uint64_t dram_addr = (uint64_t)m->row << s->row_shift;
  const int to_dram = m->back ? write : !write; /* the transfer's device: DRAM side? */
  memside_xfer x = {to_dram ? s->dram : s->nvm, to_dram ? dram_addr : slot_addr(s, m->slot), s->row_bytes,
                    (uint8_t)write, MEMSIDE_MIGRATION, s->data[b], b};
  (void)s->env.issue(s->env.ctx, &x); /* at most HGM_MAX_BUFFERS transfers < MEMSIDE_XFER_SLOTS */
  if (write) s->st.moved_bytes += s->row_bytes;
}

static void start_copy(hgm_st *s, uint32_t b) {
  hgm_buf *m = &s->buf[b];
  if (m->phase != B_DRAIN || s->row[m->row].inflight) return;
  m->phase = B_READ;
  if (m->back) (void)touch_slot(s, m->slot, s->env.now_ps(s->env.ctx)); /* the read wakes the row */
  issue_row(s, b, 0);
}

static int free_buffer(const hgm_st *s) {
  for (uint32_t b = 0; b < s->nbufs; ++b)
    if (s->buf[b].phase == B_FREE) return (int)b;
  return -1;
}

static void begin(hgm_st *s, uint32_t b, uint32_t row, uint32_t slot, int back) {
  hgm_buf *m = &s->buf[b];
  m->phase = B_DRAIN;
  m->back = (uint8_t)back;
  m->row = row;
  m->slot = slot;
  s->row[row].where = back ? W_BACK : W_TO_NVM;
  if (!back) s->row[row].slot = slot;
  start_copy(s, b);
}

static void start_backs(hgm_st *s) {
  while (s->nback) {
    const int b = free_buffer(s);
    if (b < 0) return;
    const uint32_t r = s->backq[s->back_head];
    s->back_head = (s->back_head + 1) % s->nrows;
    --s->nback;
    begin(s, (uint32_t)b, r, s->row[r].slot, 1);
  }
}

/* Each decision period: move the eligible rows while buffers and NVM rows last (Fig. 8). */
static void decide(hgm_st *s, uint64_t now) {
  const uint32_t util = s->env.dev_util(s->env.ctx, s->dram, s->period_ps);
  if ((double)util < s->min_int * 65536.0) {
    s->c[S_DISABLED_NS] += s->period_ps / 1000u;
    return;
  }
  while (s->heap_n && s->heap[0].key <= now) {
    const int b = free_buffer(s);
    if (b < 0 || s->nback) { /* write-backs first: a GPU write waits on them */
      ++s->c[S_NO_BUF];
      return;
    }
    const hgm_heap_ent e = heap_pop(s);
    hgm_row *r = &s->row[e.row];
    const uint64_t key = eligible_at(s, r);
    if (key > now) {
      heap_push(s, e.row, key);
      continue;
    }
    const uint32_t acc = r->reads + r->writes;
    int t = acc && (double)r->writes > s->stt_wf * (double)acc ? 1 : 0;
    if (!s->nfree[t]) t = 1 - t;
    if (!s->nfree[t]) {
      ++s->c[S_NO_SLOT];
      heap_push(s, e.row, now + s->idle_ps);
      return;
    }
    const uint32_t k = s->freel[t][--s->nfree[t]];
    const uint32_t slot = k | (t ? STT_BIT : 0);
    slot_of(s, slot)->owner = e.row;
    slot_of(s, slot)->last_ps = now; /* a free row is off; the migration write powers it */
    begin(s, (uint32_t)b, e.row, slot, 0);
  }
}

static void arm(hgm_st *s, uint64_t now) {
  if (s->stopped || s->wake_pending) return;
  if (s->env.wake(s->env.ctx, now + s->period_ps, 1) == 0) s->wake_pending = 1;
}

static int hgm_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  hgm_st *s = (hgm_st *)st;
  memside_static_locate(&s->cfg, rq->pa, out);
  if (out->dev != s->dram) return MEMSIDE_GO;
  const uint32_t ri = row_of(s, out->addr);
  if (ri == UINT32_MAX) return MEMSIDE_GO;
  hgm_row *r = &s->row[ri];
  const uint64_t now = s->env.now_ps(s->env.ctx);
  if (r->where == W_TO_NVM || r->where == W_BACK || r->where == W_WAIT_BACK) {
    *ticket = ri + 1;
    ++s->c[S_HOLDS];
    return MEMSIDE_HOLD;
  }
  if (r->where == W_NVM) {
    if (rq->write) { /* the GPU only reads NVM: the row goes back to DRAM first */
      r->where = W_WAIT_BACK;
      s->backq[(s->back_head + s->nback) % s->nrows] = ri;
      ++s->nback;
      start_backs(s);
      *ticket = ri + 1;
      ++s->c[S_HOLDS];
      return MEMSIDE_HOLD;
    }
    out->delay_ps = touch_slot(s, r->slot, now);
    out->addr = slot_addr(s, r->slot) + (out->addr & (s->row_bytes - 1));
    out->dev = s->nvm;
    out->kind = AMAP_MEM_NVM;
    ++s->c[S_NVM_READS];
  } else {
    ++s->c[S_DRAM_ACC];
    if (!r->touched) {
      r->touched = 1;
      r->placed_ps = now;
      r->last_ps = now;
      heap_push(s, ri, eligible_at(s, r) > now ? eligible_at(s, r) : now);
      arm(s, now);
    }
  }
  r->last_ps = now;
  if (rq->write)
    ++r->writes;
  else
    ++r->reads;
  ++r->inflight;
  return MEMSIDE_GO;
}

static void hgm_complete(void *st, const memside_req *rq, const memside_target *t) {
  hgm_st *s = (hgm_st *)st;
  memside_target home;
  memside_static_locate(&s->cfg, rq->pa, &home);
  if (home.dev != s->dram) return;
  (void)t;
  const uint32_t ri = row_of(s, home.addr);
  if (ri == UINT32_MAX) return;
  --s->row[ri].inflight;
  for (uint32_t b = 0; b < s->nbufs; ++b)
    if (s->buf[b].phase == B_DRAIN && s->buf[b].row == ri) start_copy(s, b);
}

static void hgm_done(void *st, uint64_t tag) {
  hgm_st *s = (hgm_st *)st;
  hgm_buf *m = &s->buf[tag];
  const uint64_t now = s->env.now_ps(s->env.ctx);
  if (m->phase == B_READ) {
    m->phase = B_WRITE;
    issue_row(s, (uint32_t)tag, 1);
    return;
  }
  /* the write is done: the mapping table entry switches, held accesses go */
  hgm_row *r = &s->row[m->row];
  ++s->st.moves;
  ++s->st.remaps;
  if (m->back) {
    const int t = (m->slot & STT_BIT) ? 1 : 0;
    (void)touch_slot(s, m->slot, now); /* powered until now; a free row is off */
    s->freel[t][s->nfree[t]++] = m->slot & ~STT_BIT;
    r->where = W_DRAM;
    r->reads = r->writes = 0;
    r->placed_ps = r->last_ps = now;
    heap_push(s, m->row, eligible_at(s, r));
    ++s->c[S_TO_DRAM];
  } else {
    (void)touch_slot(s, m->slot, now);
    r->where = W_NVM;
    ++s->c[(m->slot & STT_BIT) ? S_TO_STT : S_TO_RRAM];
  }
  m->phase = B_FREE;
  s->env.release(s->env.ctx, m->row + 1);
  start_backs(s);
}

static void hgm_wake(void *st, uint64_t now_ps, uint64_t tag) {
  (void)tag;
  hgm_st *s = (hgm_st *)st;
  s->wake_pending = 0;
  if (s->stopped) return;
  decide(s, now_ps);
  arm(s, now_ps);
}

static void hgm_kernel_boundary(void *st, uint32_t kernel_index, uint8_t last) {
  (void)kernel_index;
  hgm_st *s = (hgm_st *)st;
  if (!last) return;
  s->stopped = 1; /* the program is done: no more decisions keep the simulation going */
  (void)s->env.unwake(s->env.ctx, 1);
  s->wake_pending = 0;
}

static int hgm_busy(const void *st) {
  const hgm_st *s = (const hgm_st *)st;
  for (uint32_t b = 0; b < s->nbufs; ++b)
    if (s->buf[b].phase != B_FREE) return 1;
  return s->nback != 0;
}

static void hgm_stats(const void *st, memside_stats *out) { *out = ((const hgm_st *)st)->st; }

/* Row-time of the occupied NVM rows since each one's last use, per rank (RRAM, STT-RAM), ps: powered for up to
 * the rank's gating time-out, gated after it. Added to the accounted integrals when they are read. */
static void open_time(const hgm_st *s, uint64_t now, uint64_t on[2], uint64_t off[2]) {
  on[0] = on[1] = off[0] = off[1] = 0;
  for (uint32_t r = 0; r < s->nrows; ++r) {
    const hgm_row *w = &s->row[r];
    if (w->where != W_NVM && w->where != W_BACK && w->where != W_WAIT_BACK) continue;
    const int t = (w->slot & STT_BIT) ? 1 : 0;
    const hgm_slot *q = &s->slot[t][w->slot & ~STT_BIT];
    const uint64_t idle = now > q->last_ps ? now - q->last_ps : 0;
    const uint64_t pw = s->gate_ps[t] && idle > s->gate_ps[t] ? s->gate_ps[t] : idle;
    on[t] += pw;
    off[t] += idle - pw;
  }
}

/* The counters, the gating integrals up to now. */
static void hgm_stat_values(const void *st, uint64_t *out) {
  const hgm_st *s = (const hgm_st *)st;
  memcpy(out, s->c, sizeof(uint64_t) * HGM_NSTATS);
  uint64_t on[2], off[2];
  open_time(s, s->env.now_ps(s->env.ctx), on, off);
  out[S_POWERED_NS] += (on[0] + on[1]) / 1000u;
  out[S_GATED_NS] += (off[0] + off[1]) / 1000u;
}

/* Per-row gating (Sec. 4.2): a powered NVM row leaks its share of the rank's background power (or, with leakage
 * per capacity, its bytes' share of bg_w over bg_bytes), a gated or free row nothing; the DRAM channel keeps the
 * controller's accounting. */
static double hgm_rank_background_j(const void *st, uint32_t dev, uint32_t rank, double bg_w, double bg_bytes) {
  const hgm_st *s = (const hgm_st *)st;
  if (dev != s->nvm || (rank != s->rank_rram && rank != s->rank_stt)) return -1.0;
  const int t = rank == s->rank_stt ? 1 : 0;
  if (!s->rank_rows[t]) return 0.0;
  uint64_t on[2], off[2];
  open_time(s, s->env.now_ps(s->env.ctx), on, off);
  const double row_w = bg_bytes > 0 ? bg_w * (double)s->row_bytes / bg_bytes : bg_w / (double)s->rank_rows[t];
  return row_w * (double)(s->on_ps[t] + on[t]) * 1e-12;
}

const memside_ops memside_hgm_ops = {
    .name = "hgm",
    .desc = "hybrid graphics memory (Sec. 4): idle DRAM rows migrate to RRAM or STT-RAM by access density and write "
            "intensity, NVM read-only to the GPU, per-row NVM power gating",
    .state_bytes = hgm_state_bytes,
    .init = hgm_init,
    .locate = hgm_locate,
    .route = hgm_route,
    .kind_of = hgm_kind_of,
    .complete = hgm_complete,
    .done = hgm_done,
    .wake = hgm_wake,
    .kernel_boundary = hgm_kernel_boundary,
    .busy = hgm_busy,
    .stats = hgm_stats,
    .stat_prefix = "hgm",
    .stat_names = hgm_stat_names,
    .stat_descs = hgm_stat_descs,
    .stat_values = hgm_stat_values,
    .stat_derived = hgm_derived,
    .params = &hgm_params,
    .program_in_first_part = 1,
    .rank_background_j = hgm_rank_background_j,
};
