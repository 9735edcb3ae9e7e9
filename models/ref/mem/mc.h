/* mc: memory-controller engine for one channel (pure C, no SystemC).
 *
 * What it models
 *  - Requests are 32 B column accesses ("atoms") belonging to a parent request
 *    (a 128 B line request with a sector mask becomes one atom per sector).
 *    The engine reports a parent as done when its last atom is done: a read
 *    when the last data beat of its last atom arrives (column command + CL +
 *    tBURST), a write when its data has been sent (column command + CWL + tBURST).
 *  - Separate read and write queues (sizes in atoms), each split into per-bank
 *    FIFOs so scheduling looks at one bank's few entries, not the whole queue.
 *  - FR-FCFS (Rixner et al., ISCA 2000; the scheduler of HMS Table I and HAC
 *    Table I): among the commands that are legal now, column commands to open
 *    rows first, then ACT/PRE; oldest request first within each class.
 *  - Open-page policy (or closed page: precharge a row once no queued request
 *    hits it).
 *  - Write drain: switch to writes when the write queue reaches wq_high (then
 *    drain down to wq_low), or opportunistically when there are no reads (then
 *    back to reads as soon as one arrives).
 *  - Bank / bank-group / rank state and every constraint of dram_timing (see
 *    dram.h): tRCD, tRP, tRAS, tRC, tCCD_S/L, tRRD_S/L, tFAW, tWTR_S/L, tRTP,
 *    tWR, tRTW, data-bus occupancy, command-bus slots (one command per cycle, or
 *    one row + one column command per cycle with dual_cmd_bus), and all-bank
 *    refresh every tREFI blocking the rank for tRFC (open banks are
 *    precharged first).
 *  - Row-buffer write-back (NVM): a PRE of a dirty row buffer holds the bank
 *    for tRP_DIRTY instead of tRP when the preset sets it, and precharges that
 *    write the cell array (every DRAM PRE, dirty NVM PREs) are spaced tRRD_PRE
 *    apart per rank (dram.h). Clean and dirty precharges are counted apart.
 *  - Runtime throttling (HMS Sec. III-E): mc_scale_timing() multiplies tRCD and
 *    the write-recovery times for the commands issued afterwards.
 *  - Mixed technologies on one channel (HMS Sec. III-A: a DRAM-cache rank and
 *    an SCM rank sharing the channel): each rank may run its own preset
 *    (mc_cfg.rank_devs) with its own bank/bank-group/rank timing, energy,
 *    refresh (none on NVM ranks) and power gating; the ranks share the
 *    command bus(es), the data bus and the clock, and a burst of another rank
 *    than the previous one starts tRTRS after it ended (any multi-rank
 *    channel).
 *  - Power states per rank (JEDEC): active standby (some bank open), precharge
 *    standby (all closed), precharge power-down entered cfg.pd_idle cycles
 *    after the rank's last command (and the end of its last data burst) when
 *    all its banks are closed, nothing is queued for it and no refresh is
 *    pending; it leaves power-down when a request for it arrives or its
 *    refresh falls due (at least tCKE after entry) and issues nothing for
 *    tXP. NVM ranks with cfg.nvm_gating are power-gated tGATE_IDLE cycles
 *    after their last command (hybrid graphics memory Sec. 4.2) and woken the
 *    same way, paying tWAKE. Entry is never an event: the times are derived
 *    from command timestamps when the rank wakes or at stats time.
 *
 * Time and events
 *  - Time is in memory command-clock cycles. The engine never ticks: the caller
 *    asks mc_next_event() for the earliest cycle at which something can happen
 *    (a command becomes legal, a request completes, a refresh falls due) and
 *    calls mc_advance() at that cycle. Calling mc_advance() at other cycles is
 *    harmless (nothing happens that is not legal), calling it twice at the same
 *    cycle is allowed (e.g. after a new submission in that cycle).
 *  - Calls must use non-decreasing `now`.
 *
 * Memory: mc_init() allocates every array (sized from the config); nothing is
 * allocated afterwards. No printing, no globals.
 */
#ifndef STRATA_MC_H
#define STRATA_MC_H
#include <stddef.h>
#include <stdint.h>

#include "dram.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_NEVER UINT64_MAX

/* MC_CMD_PDX is not a bus command: it reports that a rank left precharge
 * power-down (bg = 0) or power gating (bg = 1) at `cycle` (CKE high / wake-up
 * start), having entered it at cycle `row`; the rank's next command waits tXP
 * (bg 0) or tWAKE (bg 1). Logged only with power-down or gating enabled. */
typedef enum mc_cmd {
  MC_CMD_ACT = 0, MC_CMD_PRE = 1, MC_CMD_RD = 2, MC_CMD_WR = 3, MC_CMD_REF = 4, MC_CMD_PDX = 5,
  MC_CMD_REFPB = 6 /* per-bank refresh of (rank, bg, bank) */
} mc_cmd;
#define MC_NCMDS 7

/* Name of a command ("ACT", "PRE", "RD", "WR", "REF", "PDX"). */
const char *mc_cmd_name(mc_cmd c);

/* Idealisations (mc_cfg.ideal; HAC paper Sec. III-C, Fig. 3: "we separately set
 * the NVM write latency, NVM read latency, DRAM write latency and DRAM read
 * latency to 0"). Each removes what one technology adds to one direction, on
 * the ranks of that technology (nvm_*: NVM and SCM presets, dram_*: DRAM),
 * for every command issued:
 *  - *_READ: the array read and the row cycle around it -- tRCD = 0 (a row
 *    is in the row buffer as soon as it is activated), tRAS = tRC = 0, and a
 *    clean row buffer precharges in 0 cycles (tRP = 0; the precharge a read's
 *    row conflict waits for) without counting for tRRD_PRE.
 *  - *_WRITE: the array write -- tWR = 0 (write recovery before PRE), a dirty
 *    row buffer precharges in 0 cycles (tRP_DIRTY, or tRP for presets without
 *    one: the row's write-back) and does not count for tRRD_PRE.
 * The channel interface stays: CL, CWL, tBURST, the data bus and its
 * turnarounds (tRTW, tWTR, tRTRS, tCCD), the command bus, tRRD, tFAW,
 * refresh and power-down exits -- they are the same for both technologies on
 * a channel, and bandwidth stays finite. */
typedef enum mc_ideal {
  MC_IDEAL_NONE = 0, MC_IDEAL_NVM_WRITE = 1, MC_IDEAL_NVM_READ = 2, MC_IDEAL_DRAM_WRITE = 3, MC_IDEAL_DRAM_READ = 4
} mc_ideal;

typedef struct mc_cfg {
  const dram_preset *dev;  /* device timing/geometry/energy (not copied; must outlive the engine) */
  uint32_t ranks;          /* ranks on the channel, >= 1 */
  /* Per-rank devices (mixed technologies on one channel, e.g. the HMS DRAM
   * rank + SCM rank): `ranks` pointers, rank r runs rank_devs[r]; NULL = every
   * rank runs `dev`. Every entry must share dev's channel interface and bank
   * geometry (dram_same_interface); ranks differ in bank/rank timing, energy,
   * refresh (NVM ranks none) and power gating. Neither the array nor the
   * presets are copied: both must outlive the engine. */
  const dram_preset *const *rank_devs;
  uint32_t rq_size;        /* read queue entries (atoms), >= 1 */
  uint32_t wq_size;        /* write queue entries (atoms), >= 1 */
  uint32_t wq_high;        /* start draining writes at this occupancy, 1..wq_size */
  uint32_t wq_low;         /* stop a forced drain at this occupancy, < wq_high */
  int open_page;           /* 1 = open page, 0 = closed page */
  int refresh;             /* 1 = refresh every tREFI (ignored when the device has tREFI 0) */
  int refresh_per_bank;    /* 1 = per-bank refresh (one bank every tREFI / banks, blocking only that bank for
                              tRFC_PB) when the device has it (RFC_PB > 0); else all-bank */
  uint32_t pd_idle;        /* precharge power-down after this many cycles with the rank idle (0 = never) */
  int nvm_gating;          /* 1 = power-gate NVM ranks after the preset's tGATE_IDLE (ignored when it is 0) */
  /* 1 = report a parent done when its last column command issues, with its
   * completion cycle (then in the future), instead of at that cycle: no
   * completion events, for callers that only record completions (the trace
   * player). Counters then include parents whose data is still in flight
   * until their completion cycle; mc_idle() ignores in-flight data. Scheduling
   * is the same either way. */
  int done_at_issue;
  uint32_t ideal;          /* mc_ideal: a latency idealised away (MC_IDEAL_NONE = the device as specified) */
  /* 1 = demand first: a parent submitted as background (mc_submit_class) is
   * younger than every demand parent in the FR-FCFS order between banks, so
   * a legal demand command goes before a legal background one of the same
   * kind (column commands still before row commands). Within one bank the
   * queue order stays arrival order. 0 = arrival order throughout. */
  int demand_first;
} mc_cfg;

/* Location of one atom inside the channel (from amap_decode). */
typedef struct mc_addr {
  uint32_t rank, bg, bank;  /* bank = bank within its bank group */
  uint32_t col;             /* column-access index within the row */
  uint64_t row;
  /* Data bytes the access carries for its request, 1 .. atom_bytes; 0 = the
   * whole atom. A 64 B column access holding one asked 32 B sector moves a
   * whole burst (bus time, energy) but delivers 32 B: rd_bytes / wr_bytes
   * count these, so they equal what the requesters asked for. */
  uint32_t bytes;
} mc_addr;

/* Row-buffer outcome of a column access, in increasing cost: the row was
 * open (hit), the bank was idle (ACT; miss), another row was open (PRE + ACT;
 * conflict). A parent's outcome is the worst of its column accesses
 * (mc.done_row during the done callback). */
typedef enum mc_row { MC_ROW_HIT = 0, MC_ROW_MISS = 1, MC_ROW_CONFLICT = 2 } mc_row;

/* Called once per finished parent request: user is the caller's tag from
 * mc_submit, cycle the completion cycle; mc.done_row holds the parent's row
 * outcome (mc_row) during the call when mc_set_row_track is on (else
 * MC_ROW_HIT). Must not call back into the engine. */
typedef void (*mc_done_fn)(void *ctx, uint64_t user, int is_write, uint64_t cycle);
/* Called once per issued command (timing checkers, traces, RTL-style tests).
 * For REF, bg/bank/row/col are 0. Must not call back into the engine. */
typedef void (*mc_cmd_fn)(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank,
                          uint64_t row, uint32_t col);

/* Per-channel counters (plain integers; energy from mc_energy()). */
typedef struct mc_stats {
  uint64_t reads, writes;            /* parent requests completed */
  uint64_t rd_atoms, wr_atoms;       /* column accesses issued */
  uint64_t row_hits;                 /* column access to a row opened earlier for another access */
  uint64_t row_misses;               /* first access after an ACT to a closed (idle) bank */
  uint64_t row_conflicts;            /* first access after PRE of another row + ACT */
  uint64_t acts, pres, pres_dirty, refs; /* refs: all-bank and per-bank REF commands */
  uint64_t refs_pb;                       /* per-bank REF commands (among refs) */
  uint64_t rd_lat_sum, rd_lat_count; /* parent reads: arrival -> completion, cycles */
  uint64_t rd_bytes, wr_bytes;       /* data bytes of the column accesses (mc_addr.bytes) */
  uint64_t bus_busy;                 /* data-bus cycles carrying data */
  uint64_t write_drains;             /* switches from read mode to write mode */
  uint64_t rq_occ_sum, wq_occ_sum;   /* integral of queue occupancy over cycles (atom-cycles) */
  uint64_t powerdowns;               /* precharge power-down periods ended (exits) */
  uint64_t gate_wakeups;             /* power-gated periods ended (wake-ups) */
} mc_stats;

typedef struct mc_energy_j {
  double act, pre, rd, wr, ref, bg, total;  /* joules */
} mc_energy_j;

/* Cycles one rank spent in each power state, and its exits (mc_rank_power). */
typedef struct mc_power {
  uint64_t act_standby;   /* some bank open */
  uint64_t pre_standby;   /* all banks closed, clock enabled (incl. the tXP / wake-up time after an exit) */
  uint64_t power_down;    /* precharge power-down */
  uint64_t gated;         /* NVM power gating */
  uint64_t powerdowns, gate_wakeups;  /* exits */
} mc_power;

/* Internal state (opaque to callers; fields may change). */
typedef struct mc_atom_ {
  uint64_t row, seq;
  uint32_t next, prev, parent;
  /* col: the command log's column (a row has at most 65 535, mc_init); bytes: data bytes
   * (mc_addr.bytes, 0 made atom_bytes). Two 16-bit fields so an atom stays 32 B. */
  uint16_t col, bytes;
} mc_atom_;
typedef struct mc_parent_ {
  uint64_t user, arrive;
  uint32_t remaining;
  uint8_t is_write;
  uint8_t row;      /* worst row outcome of its column accesses so far (mc_row) */
} mc_parent_;
typedef struct mc_bank_ {
  uint64_t open_row;
  uint64_t act_ok, pre_ok, col_ok; /* bank-local earliest cycles */
  uint64_t cand_seq;               /* priority of the candidate (smaller = older) */
  uint32_t head[2], tail[2], n[2]; /* per-bank FIFO of atoms: [0] reads, [1] writes */
  uint32_t cand_atom;
  uint8_t open, dirty, cand, stale, first_kind, conflict, pre_conflict;
  uint8_t rank, bg;                /* coordinates of this bank */
  uint32_t ba;
  uint32_t gi;                     /* index of its bank group in mc.groups */
  uint32_t idx;                    /* its index in mc.banks */
  uint32_t rbase;                  /* index of the first bank of its rank */
  uint32_t cls_act, cls_pre;       /* its ACT class and its rank's first PRE class (mc.floor); the column class is
                                      cls_act + bank groups */
} mc_bank_;
typedef struct mc_group_ {
  uint64_t act_ok, rd_ok, wr_ok;
} mc_group_;
typedef struct mc_rank_ {
  const dram_preset *dev;          /* the rank's device (mc_cfg.rank_devs[r] or dev) */
  dram_timing t;                   /* its timing in force (the preset's, scaled by mc_scale_timing) */
  uint8_t pre_writes_all;          /* DRAM: every PRE restores the row (counts for tRRD_PRE) */
  uint8_t wpre_clean, wpre_dirty;  /* a PRE of a clean / dirty row buffer counts for tRRD_PRE (mc_rank_timing) */
  uint8_t ideal_rd, ideal_wr;      /* mc_cfg.ideal applies to this rank's reads / writes */
  uint32_t rp_dirty;               /* PRE of a dirty row buffer -> ACT: tRP_DIRTY, or tRP (0 when ideal_wr) */
  uint8_t ref_pb;                  /* per-bank refresh in use on this rank */
  uint32_t refi_pb;                /* refresh interval per REF / REFPB (MC_NEVER-like 0 when not refreshing) */
  uint32_t gate_idle;              /* tGATE_IDLE in force (0 = no gating) */
  uint64_t act_ok, rd_ok, wr_ok;
  uint64_t faw[4];
  uint64_t ref_due;
  uint64_t wpre_ok;                /* earliest array-writing PRE (tRRD_PRE) */
  uint32_t faw_n, faw_i, nopen;
  uint8_t ref_pending;
  /* power states (see mc_power.c) */
  uint32_t nq;                     /* atoms queued for the rank */
  uint64_t last_cmd, data_end;     /* last command; end of its last data burst */
  uint64_t since;                  /* last change of nopen between 0 and > 0 */
  uint64_t open_cyc, closed_cyc;   /* cycles with some bank open / all closed, up to `since` */
  uint64_t pd_cyc, gated_cyc;      /* cycles powered down / gated, up to the last exit */
  uint64_t pd_exits, gate_wakeups;
  uint64_t n_act, n_pre, n_pre_dirty, n_rd, n_wr, n_ref; /* commands, for per-rank energy */
  uint64_t rd_bytes, wr_bytes;                           /* data bytes of its column accesses (mc_addr.bytes) */
  uint64_t n_refpb;                                      /* per-bank REFs */
  uint32_t ref_bank;                                     /* per-bank refresh: next bank (index in the rank) */
  uint32_t idx;                                          /* its index in mc.ranks */
} mc_rank_;
typedef struct mc_ring_ {
  uint64_t *t;
  uint32_t *parent;
  uint32_t cap, head, n;
} mc_ring_;

typedef struct mc {
  mc_cfg cfg;
  dram_timing t;    /* channel interface timing (CL, CWL, tBURST, tRTRS: the same for every rank); per-rank
                       timing is in ranks[r].t */
  uint32_t nbanks, banks_per_rank;
  uint32_t atom_bytes; /* cfg.dev->atom_bytes, kept beside the atoms */
  mc_atom_ *atoms;
  uint32_t atom_free, natoms;
  mc_parent_ *parents;
  uint32_t parent_free, nparents;
  mc_bank_ *banks;
  mc_group_ *groups;
  mc_rank_ *ranks;
  mc_ring_ ring[2]; /* completions in order: [0] reads, [1] writes */
  uint64_t *live;   /* bit b: bank b is stale or has a candidate (the banks a scan visits) */
  /* Candidate classes: a class is the candidates of one kind in one scope
   * that share every constraint but the bank's own -- per rank r (cpr =
   * 2 x bank groups + 2 classes): [r cpr + g] ACT in bank group g, [r cpr +
   * bg + g] column command in bank group g, [r cpr + 2 bg] PRE, [r cpr + 2 bg
   * + 1] PRE writing the array (tRRD_PRE). floor[c] is the class's earliest
   * cycle from rank, group and bus state (recomputed per pass when commands
   * changed it); cmask[c] its banks (bit = bank within the rank), cmin[c] the
   * smallest own earliest cycle among them. A candidate's earliest cycle is
   * max(its own, its class's floor), so the earliest of a class is
   * max(cmin, floor) and a pass costs a few operations per class, not per
   * bank. */
  uint64_t *floor, *cmask, *cmin;
  uint32_t *cold;   /* per class: its oldest candidate (smallest seq, ties to the lowest bank), NIL when empty:
                       the FR-FCFS choice of the class whenever it is legal */
  uint32_t nclasses, cpr;
  uint64_t cnz;     /* classes with a candidate, a bit each (used when nclasses <= 64) */
  uint32_t *cbase;  /* per class: index of the first bank of its rank */
  uint8_t *ccol;    /* per class: 1 = column commands */
  uint64_t ccol_bits; /* the column classes among the first 64, a bit each (as cnz) */
  /* Per-bank copy of the candidate (its kind, FR-FCFS priority, the bank's
   * own earliest cycle for it, and its class). */
  uint64_t *c_own, *c_seq;
  uint32_t *c_class;
  uint8_t *c_kind;
  uint64_t *stale_w;  /* bit per bank: candidate to recompute */
  uint32_t nwords;  /* words in live */
  uint32_t ngroups; /* ranks x bank groups */
  uint64_t now, seq, occ_t;
  uint64_t seq_bias;              /* added to the seqs of the atoms being queued (mc_submit_class) */
  uint64_t bus_free;              /* end of the last data burst */
  uint64_t ref_due_min;           /* earliest ref_due of the ranks without a pending refresh (MC_NEVER: none) */
  uint32_t ref_npend;             /* ranks with a pending refresh */
  uint32_t bus_rank;              /* rank of that burst (tRTRS before another rank's burst); UINT32_MAX: none yet */
  uint64_t row_bus_ok, col_bus_ok;
  uint64_t next_cache;
  uint64_t cand_emin;             /* lower bound of every candidate's earliest cycle (valid with cand_valid) */
  /* The commands a scan found legal at cycle best_t = max(its now, the
   * earliest candidate): the oldest column and row command there (NIL =
   * none). Valid (best_valid) while nothing changed since -- the state does
   * not change between events -- so mc_advance(best_t) issues them without
   * another pass. */
  uint64_t best_t;
  uint32_t best_col, best_row;
  uint8_t best_valid;
  uint32_t rq_n, wq_n, drain_extra;
  uint8_t write_mode, forced_drain, next_valid, refresh_on, cand_valid;
  uint8_t mixed;                  /* ranks run different presets (mc_cfg.rank_devs) */
  uint8_t floors_valid;           /* floor[] matches the rank/group/bus state: FLOORS_ROW (ACT, PRE classes) and
                                     FLOORS_COL (column classes) bits, cleared by the commands and mode switches
                                     that change them */
  uint8_t lp_on;                  /* power-down or gating enabled on some rank */
  uint8_t done_row;               /* during the done callback: the reported parent's mc_row (mc_set_row_track) */
  uint8_t row_track;              /* keep each parent's row outcome (mc_set_row_track) */
  mc_done_fn done;
  void *done_ctx;
  mc_cmd_fn cmd_log;
  void *cmd_ctx;
  mc_stats st;
} mc;

/* Validate cfg and allocate the engine's arrays. Returns 0, or -1 with a
 * one-line reason in err (nothing allocated). The engine starts at cycle 0,
 * all banks closed, first refresh due at tREFI. */
int mc_init(mc *m, const mc_cfg *cfg, char *err, size_t errlen);
/* Free the arrays. The engine can be re-initialised afterwards. */
void mc_free(mc *m);

/* Completion callback (may be NULL: completions are then only counted). */
void mc_set_done(mc *m, mc_done_fn fn, void *ctx);
/* Keep each parent's row outcome for the done callback (mc.done_row; off
 * by default: a caller that does not read it pays nothing per command). */
void mc_set_row_track(mc *m, int on);
/* Command log hook (NULL to disable). */
void mc_set_cmd_log(mc *m, mc_cmd_fn fn, void *ctx);

/* 1 if a parent of n atoms fits in the read (is_write=0) or write queue now. */
int mc_can_accept(const mc *m, int is_write, unsigned n);
/* Enqueue a parent request of n >= 1 atoms arriving at cycle `now` (>= the
 * last cycle used; earlier values are treated as the last cycle). Atoms are
 * copied; `user` is returned by the done callback. Returns 0, or -1 when the
 * queue has no room for all n atoms or an address is out of range (nothing
 * enqueued). Never issues a command itself: call mc_advance. */
int mc_submit(mc *m, uint64_t now, int is_write, const mc_addr *atoms, unsigned n, uint64_t user);
/* The same for a parent of a background class (write-back, fill, migration,
 * ...; background = 1) or demand (0): with mc_cfg.demand_first, background
 * parents yield to demand ones (see there); without it, mc_submit. */
int mc_submit_class(mc *m, uint64_t now, int is_write, const mc_addr *atoms, unsigned n, uint64_t user,
                    int background);

/* Do everything possible at cycle `now`: report completions due at or before
 * now, start refreshes that are due, switch read/write mode, and issue every
 * command that is legal at now (FR-FCFS). Never allocates. */
void mc_advance(mc *m, uint64_t now);

/* Earliest cycle >= the last cycle used at which mc_advance can do something,
 * or MC_NEVER when the engine is idle for good (empty and no refresh). */
uint64_t mc_next_event(mc *m);
/* The same, answered inline when the engine has the answer cached (the
 * usual case in a caller's event loop; the trace player's hot path). */
static inline uint64_t mc_next_event_fast(mc *m) { return m->next_valid ? m->next_cache : mc_next_event(m); }
/* mc_idle, inline. */
static inline int mc_idle_fast(const mc *m) {
  return m->rq_n == 0 && m->wq_n == 0 && m->ring[0].n == 0 && m->ring[1].n == 0;
}
/* mc_can_accept, inline. */
static inline int mc_can_accept_fast(const mc *m, int is_write, unsigned n) {
  return is_write ? m->wq_n + n <= m->cfg.wq_size : m->rq_n + n <= m->cfg.rq_size;
}

/* Scale timing for commands issued from now on (HMS Sec. III-E SCM power
 * throttling: "the timing parameters for SCM activation (tRCD) and/or write
 * recovery (tWR) are doubled"). tRCD becomes rcd_mult x the preset's tRCD;
 * tWR and tRP_DIRTY (the array write, wherever the preset puts it) become
 * wr_mult x the preset's. Always relative to the preset, so (1, 1) restores
 * it. Constraints already implied by issued commands keep their old values.
 * Returns 0, or -1 (nothing changed) when a multiplier is 0 or a scaled value
 * would not fit in 32 bits. */
int mc_scale_timing(mc *m, unsigned rcd_mult, unsigned wr_mult);
/* The same for rank r only, relative to that rank's preset (HMS throttles
 * the SCM rank of a channel, not its DRAM rank). -1 also when r >= ranks. */
int mc_scale_rank_timing(mc *m, uint32_t r, unsigned rcd_mult, unsigned wr_mult);
/* Device of rank r (NULL when r >= ranks). */
const dram_preset *mc_rank_device(const mc *m, uint32_t r);

/* Queue occupancy (atoms waiting for their column command). */
uint32_t mc_rq_occupancy(const mc *m);
uint32_t mc_wq_occupancy(const mc *m);
/* 1 when no request is queued or in flight. */
int mc_idle(const mc *m);

/* Counters, with the occupancy integrals brought up to `now`. */
const mc_stats *mc_get_stats(mc *m, uint64_t now);
/* Energy by component up to cycle `now`: command energies from the preset's
 * per-command values (each rank's own preset), background = sum over ranks of
 * (power of each power state x time in it), see mc_rank_power. `now` >= the
 * last cycle used. */
void mc_energy(const mc *m, uint64_t now, mc_energy_j *out);
/* The same for rank r (< ranks); the ranks' energies add up to mc_energy. */
void mc_rank_energy(const mc *m, uint32_t r, uint64_t now, mc_energy_j *out);
/* Cycles rank r spent in each power state from cycle 0 up to `now` (the
 * states sum to now), with a power-down or gating period still running at
 * `now` counted up to now. Derived from command timestamps, no ticking. */
void mc_rank_power(const mc *m, uint32_t r, uint64_t now, mc_power *out);

#ifdef __cplusplus
}
#endif
#endif
