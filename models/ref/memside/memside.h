/* memside: the memory-side controller interface of one memory partition.
 *
 * Where a byte lives is decided in two steps (docs/architecture.md
 * "Two-level address map"): physical address -> (L2 bank, memory partition)
 * is static and is all the GPU side knows; partition -> device location
 * (device controller, rank, bank group, bank, row, column; devaddr.h) belongs
 * to the partition's memory-side controller, a policy behind the table of
 * functions below. The policy decides where each access of the L2 goes, may
 * move data with transfers of its own (migrations, fills, write-backs,
 * probes) that the device controllers see as real requests with a request
 * class, and owns its remap state. Device contents are stored by device
 * address, so moving a mapping without moving the bytes is caught by the
 * golden-memory checker.
 *
 * Adding a policy = one file memside_<name>.c defining `const memside_ops
 * memside_<name>_ops` (with its parameters: memside_params below) and ONE
 * line in MEMSIDE_POLICIES of memside.c; the config key `memside.policy`
 * then accepts its name and its keys exist (docs/extending.md). The SystemC shell
 * (models/memside/mem_side.h) hosts any policy over the partition's device
 * controllers.
 *
 * Policy state is one block sized by state_bytes() and owned by the shell;
 * policy calls never allocate and never print.
 *
 * Time: a policy sees simulated time in picoseconds since the start of the
 * run (memside_env.now_ps; uint64_t: 213 days), asks to be woken at a later
 * time (env.wake -> memside_ops.wake; one timer entry per wake-up, nothing
 * polls; env.unwake drops them), may make an access wait before it reaches its device
 * (memside_target.delay_ps: a remap lookup, a page walk), hears the device's
 * row-buffer outcome and service time in complete(), and may ask a device's
 * data-bus utilisation over a recent window (env.dev_util).
 */
#ifndef STRATA_MEMSIDE_H
#define STRATA_MEMSIDE_H
#include <stddef.h>
#include <stdint.h>

#include "base/addrmap.h"
#include "base/devaddr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMSIDE_MAX_DEVS 8

/* Request classes as the device controllers and stats see them (numbering
 * shared with the SystemC ReqClass, models/common/payload.h). */
enum memside_class {
  MEMSIDE_DEMAND = 0, MEMSIDE_WRITEBACK = 1, MEMSIDE_FILL = 2, MEMSIDE_MIGRATION = 3, MEMSIDE_PROBE = 4,
  MEMSIDE_OFFLOAD = 5, MEMSIDE_PAGE_IN = 6, MEMSIDE_PAGE_OUT = 7
};

/* Where an access goes: device controller `dev` of the partition, device
 * address `addr` there (devaddr.h: where the byte at memside_req.pa lives;
 * 128 B-aligned for a whole line, granule-aligned for a piece, which may sit
 * at another offset of its device line than of its physical line: the shell
 * moves its bytes), and the memory kind (AMAP_MEM_*) of the rank that serves
 * it -- what the L2 learns about the line. */
typedef struct memside_target {
  uint32_t dev;
  uint8_t kind;
  uint64_t addr;
  /* A write that also goes to a second place (a write-through DRAM cache:
   * the same bytes to the memory it caches): route sets mirror = 1, the
   * device and the 128 B-aligned device address of the line's copy, and a
   * tag. The shell sends the copy (the write's bytes at the same offsets)
   * as a write of the policy's own, class MEMSIDE_WRITEBACK, and calls
   * done(mirror_tag) once it is written. At most MEMSIDE_MIRROR_SLOTS in
   * flight (the policy keeps count). The shell zeroes *out before route. */
  uint8_t mirror;
  uint32_t mirror_dev;
  uint64_t mirror_addr, mirror_tag;
  /* route (optional): the access reaches its device delay_ps picoseconds
   * later (the time the policy's lookup takes). Requests to one device keep
   * their order: none reaches it earlier than one sent to it before (the
   * shell annotates the AT request with the delay; a device's arrival times
   * never decrease while a delay is in force). 0: at once. */
  uint64_t delay_ps;
  /* complete() (set by the shell from the device's response): the row-buffer
   * outcome of the access's column commands (MEMSIDE_ROW_*, the worst of
   * them) and its service time at the device controller, ps from its arrival
   * there to its answer (saturates at UINT32_MAX). dev / kind / addr: where
   * it was served. */
  uint8_t row;
  uint32_t latency_ps;
} memside_target;

/* Row-buffer outcome of an access (numbering shared with mc_row, mc.h). */
enum memside_row { MEMSIDE_ROW_HIT = 0, MEMSIDE_ROW_MISS = 1, MEMSIDE_ROW_CONFLICT = 2 };

/* A transfer of the policy's own: whole 32 B sectors at a 32 B-aligned
 * device address, up to MEMSIDE_XFER_MAX bytes (the metadata column of a
 * DRAM-cache row, a 64 B or 256 B DRAM-cache line, a migration segment, a
 * page, a 64 KiB chunk of a 2 MiB migration). The shell sends it to the
 * device controller as one request; the controller splits it into its
 * lines (MemCtrl span requests, as DRAMSys splits a parent transaction into
 * children) and answers once, when the last is done. Writes take their
 * bytes from buf when issued; reads fill buf when the transfer completes
 * (then memside_ops.done is called with tag). buf belongs to the policy
 * state. */
#define MEMSIDE_XFER_MAX 65536
typedef struct memside_xfer {
  uint32_t dev;
  uint64_t addr;
  uint32_t bytes;
  uint8_t write;
  uint8_t cls;           /* enum memside_class */
  unsigned char *buf;
  uint64_t tag;
} memside_xfer;

/* What the hosting shell offers a policy. */
typedef struct memside_env {
  void *ctx;
  /* Queue a transfer of the policy's own. Returns 0, or -1 when the shell's
   * queue is full (never for a policy that keeps at most MEMSIDE_XFER_SLOTS
   * transfers outstanding). */
  int (*issue)(void *ctx, const memside_xfer *x);
  /* Accesses held by route() may be routed again: those holding `ticket`
   * (see route) and those holding none; ticket 0: every held access. */
  void (*release)(void *ctx, uint32_t ticket);
  /* The current simulated time, ps since the start of the run. */
  uint64_t (*now_ps)(void *ctx);
  /* Call memside_ops.wake(st, now, tag) at time at_ps (at_ps <= now: in the
   * next delta cycle, never from inside this call). Wake-ups due at the same
   * time come in the order they were asked for. Returns 0, or -1 when
   * MEMSIDE_WAKE_SLOTS wake-ups are pending (nothing is scheduled). */
  int (*wake)(void *ctx, uint64_t at_ps, uint64_t tag);
  /* Drop the pending wake-ups asked for with `tag` (a timer the policy no
   * longer needs, e.g. once the program is done: a pending wake-up keeps the
   * simulation going until it is due). Returns how many were dropped. */
  uint32_t (*unwake)(void *ctx, uint64_t tag);
  /* Data-bus busy fraction of device `dev` over the last window_ps, in
   * 1/65536 (0 .. 65536), computed from the device's counters when asked
   * (the window is rounded to the device's snapshot step and capped at the
   * span it keeps: MemCtrl::bus_util_q16); 0 for a device that keeps none. */
  uint32_t (*dev_util)(void *ctx, uint32_t dev, uint64_t window_ps);
} memside_env;

#define MEMSIDE_WAKE_SLOTS 256

#define MEMSIDE_XFER_SLOTS 1024
#define MEMSIDE_MIRROR_SLOTS 256

/* ---------------------------------------------------------- parameters
 *
 * A policy owns its config keys: it declares them in its own file as a table
 * of memside_param (name, type, range, default, one-line doc) and points
 * memside_ops.params at it; policies of one family share one table (the DRAM
 * caches: memside.dcache.*). The platform puts every registered table's keys
 * into the config schema (platform/schema.cpp: `strata --list-keys`, range
 * and type checks, "did you mean", config.txt) and hands the running policy
 * the values of its table in memside_cfg.param, in declaration order. The
 * C way of Ramulator 2's parameters declared inside each implementation. */
enum memside_ptype { MEMSIDE_P_INT, MEMSIDE_P_SIZE, MEMSIDE_P_FLOAT, MEMSIDE_P_BOOL, MEMSIDE_P_ENUM };

typedef struct memside_param {
  /* Key relative to the family's prefix ("a" with prefix "memside.swap." is
   * memside.swap.a); a name starting with '=' is a whole key of its own
   * ("=l2.ctc_ways"), for a parameter that belongs to another level's
   * section but only this family reads. */
  const char *name;
  uint8_t type;          /* enum memside_ptype */
  const char *def;       /* default as a config file would write it ("256", "4KiB", "true", "amil") */
  double min, max;       /* inclusive range of INT/SIZE/FLOAT values */
  const char *choices;   /* ENUM: the values separated by '|' ("amil|tad"); the policy gets the index */
  const char *doc;       /* one line: meaning, unit, source */
  /* Non-NULL: a value other than def is valid only with memside.policy =
   * only (a config error otherwise, naming only_why). */
  const char *only;
  const char *only_why;
} memside_param;

/* One parameter's value: INT, SIZE (bytes), BOOL (0/1) and ENUM (index into
 * choices) in i, FLOAT in f. */
typedef union memside_value {
  int64_t i;
  double f;
} memside_value;

/* What the config says about the platform around the memory side (known
 * before anything is built). */
typedef struct memside_sys {
  uint32_t channels;            /* memory channels in all */
  uint32_t nparts;              /* memory partitions (one memory-side controller each) */
  uint32_t l2_banks;            /* L2 banks of each partition */
  uint32_t l2_sets, l2_assoc;   /* of each L2 bank (128 B lines) */
  uint64_t seed;                /* sim.seed */
} memside_sys;

/* A family's parameters: the keys prefix + name of each param[i], checks
 * across them (optional), shared by every policy pointing at it. */
typedef struct memside_params {
  const char *prefix;           /* "memside.<family>." */
  const memside_param *param;
  uint32_t count;
  /* Checks that involve several keys, run on every config load whichever
   * policy is chosen (as a key's range is): 0, or -1 with *bad = the index
   * of the parameter at fault and a one-line "expected ..., got ..." in err. */
  int (*validate)(const memside_value *v, const memside_sys *sys, uint32_t *bad, char *err, size_t errlen);
} memside_params;

/* Index of a family's parameter by name (as declared), or -1. */
int memside_param_index(const memside_params *p, const char *name);
/* Parse a value as the parameter's type ("4KiB", "0x7F0000", "true", an
 * enum choice) within its range: 0, or -1 if malformed or out of range. The
 * platform reads values through its config (platform/schema.cpp); this is
 * for C callers (the unit tests, the defaults below). */
int memside_param_parse(const memside_param *p, const char *text, memside_value *out);
/* Every parameter's default into out[0..count): -1, or the index of a
 * default that does not parse (a bad table). */
int memside_param_defaults(const memside_params *p, memside_value *out);

/* A policy's changes to the configuration, decided once before the platform
 * is built (memside_ops.derive): keys set as a config file would set them,
 * with the reason config.txt shows, and a stat recording the decision. */
#define MEMSIDE_DERIVE_MAX 8
typedef struct memside_derivation {
  uint32_t n;
  struct {
    char key[64], value[64];
  } kv[MEMSIDE_DERIVE_MAX];
  char reason[200];
  const char *stat_name, *stat_desc; /* NULL: no stat */
  double stat_value;
} memside_derivation;

/* What a derive hook sees: the policy's parameters and the platform as the
 * config and the workload set it up, before the address map is built. */
typedef struct memside_plan {
  const memside_value *param;
  memside_sys sys;
  uint64_t footprint_bytes;     /* bytes of all the program's arrays */
  uint64_t program_end;         /* end of the program's highest array (they start at address 0) */
  uint32_t row_bytes;           /* device row of the channel interface */
  uint32_t kind_channels[3];    /* channels with at least one rank of each AMAP_MEM_* kind */
  uint64_t part_bytes[3];       /* addrmap.<kind>_size of each AMAP_MEM_* kind (0: unbounded) */
} memside_plan;

/* The partition a policy serves and its parameters. */
typedef struct memside_cfg {
  const amap *map;            /* the static physical map (plain decodes physical addresses with it) */
  uint32_t partition;         /* this partition (= memory channel index of the map today) */
  uint32_t ndevs;             /* device controllers of the partition */
  uint32_t dev_channel[MEMSIDE_MAX_DEVS];    /* global channel index of each */
  devaddr_geom geom[MEMSIDE_MAX_DEVS];       /* device-address geometry of each */
  uint8_t rank_kind[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS]; /* AMAP_MEM_* of each rank of each */
  uint8_t rank_tech[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS]; /* its technology (dram.h DRAM_TID_*: PCM, STT-RAM, SCM MLC, ...) */
  /* tRCD and tWR of each rank of each, device cycles, as the run starts (its
   * preset's); memside_ops.timing_changed reports later changes. */
  uint32_t rank_trcd[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS];
  uint32_t rank_twr[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS];
  /* NVM power gating of each rank's preset (tGATE_IDLE: idle cycles before it is gated, 0 = never; tWAKE:
   * wake-up cycles), device cycles: a policy that gates NVM row by row (hgm) uses the preset's figures. */
  uint32_t rank_gate_idle[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS];
  uint32_t rank_twake[MEMSIDE_MAX_DEVS][AMAP_MAX_RANKS];
  /* Command clock of each device (MHz, its rank 0 preset's clk_mhz) and its peak data bytes per command
   * clock (bus bytes x data rate): a policy that counts time in memory cycles or sizes a budget by the peak
   * bandwidth (FLRB's quantum and quota, Eq. 1-3). 0: not given (the host device). */
  double dev_clk_mhz[MEMSIDE_MAX_DEVS];
  uint32_t dev_bytes_per_clk[MEMSIDE_MAX_DEVS];
  /* Implementations of the swappable blocks a policy calls (blocks.h: bypass scorer, tag cache, FLRB; config
   * blocks.*); NULL: the C reference of each (memside_blocks_c). */
  const struct memside_blocks *blocks;
  memside_sys sys;            /* the platform around it */
  uint64_t footprint_bytes;   /* the program's array bytes (a policy sized relative to the footprint) */
  uint64_t program_end;       /* end of the program's highest array (0: not known before it runs, a CUDA program) */
  /* Capacity of each device, bytes, where the platform gives it (the host device: hostpath.size); 0: not given. */
  uint64_t dev_bytes[MEMSIDE_MAX_DEVS];
  /* The GPU-wide memory-side manager every partition shares (memside_mgr.h:
   * page-access counters, migration budget), or NULL when the platform has
   * none (memside.mgr.*). */
  struct memside_mgr *mgr;
  /* The values of the policy's parameters (memside_ops.params), in
   * declaration order; NULL when it declares none. Valid during init only:
   * init copies what it keeps. */
  const memside_value *param;
} memside_cfg;

/* Counters every policy keeps (zero where it does not apply). */
typedef struct memside_stats {
  uint64_t moves;         /* completed data moves (segment swaps, migrations, fills) */
  uint64_t moved_bytes;   /* bytes written by the policy's own transfers */
  uint64_t remaps;        /* mapping changes */
} memside_stats;

#define MEMSIDE_GO 0
#define MEMSIDE_HOLD 1

/* An access of the L2 as a policy sees it. */
typedef struct memside_req {
  uint64_t pa;           /* 128 B-aligned physical line address; under a policy with a granule below 128 B
                          * (memside_ops.granule), the granule-aligned address of the piece it touches */
  uint8_t write;         /* 1: a write-back, 0: a fill (read) */
  uint8_t cls;           /* enum memside_class (demand fill or write-back) */
  uint8_t sectors;       /* 32 B sectors of the 128 B line it reads or writes (bit i = sector i, never 0; all in
                          * pa's piece under a granule) */
} memside_req;

typedef struct memside_ops {
  const char *name;       /* config value of memside.policy */
  const char *desc;       /* one line */
  /* Bytes of state for this partition. */
  size_t (*state_bytes)(const memside_cfg *cfg);
  /* Set up state. The env stays valid for the policy's life. Returns 0, or
   * -1 with a one-line reason in err (a bad parameter). */
  int (*init)(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen);
  /* Where physical line `pa` lives now, without side effects (functional
   * back door: initial data, debug access, the L2's question about a line's
   * memory kind). */
  void (*locate)(const void *st, uint64_t pa, memside_target *out);
  /* An access of the L2 (*rq: its line, direction, class and sectors): fill
   * *out and return MEMSIDE_GO, or MEMSIDE_HOLD to keep it waiting until the
   * policy calls env->release (the shell then calls route again). *ticket is
   * 0 on an access's first call; a policy may set it when it holds the
   * access (e.g. the probe the access waits for) and gets it back on the
   * retries. */
  int (*route)(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out);
  /* Optional entries (NULL: the policy has nothing to do there). */
  /* The memory kind (AMAP_MEM_*) serving pa now: locate(pa).kind, cheaper
   * (the L2 asks at every line miss). */
  unsigned (*kind_of)(const void *st, uint64_t pa);
  /* An access routed with MEMSIDE_GO (*rq as route saw it, *t where it
   * went, with the device's feedback: t->row, t->latency_ps) has been
   * answered by its device. NULL: the shell skips the call (no cost). */
  void (*complete)(void *st, const memside_req *rq, const memside_target *t);
  /* One of the policy's own transfers has completed (a read's buf is filled). */
  void (*done)(void *st, uint64_t tag);
  /* A wake-up asked for with env->wake(at, tag) is due: now_ps >= at. */
  void (*wake)(void *st, uint64_t now_ps, uint64_t tag);
  /* The timing of rank `rank` of device `dev` changed during the run (SCM
   * throttling, HMS Sec. III-E: tRCD and/or tWR scaled): they are now trcd
   * and twr device cycles (memside_cfg.rank_trcd / rank_twr: the values the
   * run started with). A policy whose decisions depend on them (the DRAM
   * cache's bypass numerators, Eq. 1) follows. */
  void (*timing_changed)(void *st, uint32_t dev, uint32_t rank, uint32_t trcd, uint32_t twr);
  /* Kernel boundary (optional): kernel launch `kernel_index` (launch order,
   * from 0) has ended -- its CTAs finished and the L2 acknowledged its
   * stores; write-backs of its lines may still be on their way -- and the
   * next launch starts (`last` = 0) or the program is done (`last` = 1).
   * Every partition's policy hears it, in partition order, before the next
   * kernel's first CTA is dispatched (the kernel does not wait for the
   * policy). Placement and migration policies that act between kernels do
   * it here; it may issue transfers and release held accesses. */
  void (*kernel_boundary)(void *st, uint32_t kernel_index, uint8_t last);
  /* Work in progress (transfers outstanding or accesses held). */
  int (*busy)(const void *st);
  void (*stats)(const void *st, memside_stats *out);
  /* Counters of the policy's own (optional): NULL-terminated names and
   * descriptions, and their values in that order. The shell registers them
   * as <stat_prefix>.<name> summed over partitions and
   * memside.p<N>.<stat_prefix>.<name> per partition. */
  const char *stat_prefix;
  const char *const *stat_names;
  const char *const *stat_descs;
  void (*stat_values)(const void *st, uint64_t *out);
  /* Derived stats of the policy's counters (optional, NULL-terminated by
   * name): <stat_prefix>.<name> = sum of the counters in num / sum of those
   * in den (bit i = stat_names[i]; den 0: the plain sum), over all partitions
   * and per partition. A name starting with '=' is a whole stat name of its
   * own (without the prefix), e.g. "=ctc.hit_rate": registered over all
   * partitions only. */
  const struct memside_derived *stat_derived;
  /* The policy's parameters (NULL: none). */
  const memside_params *params;
  /* Changes to the configuration the policy decides before the platform is
   * built (optional), e.g. a DRAM cache that serves as memory when the
   * workload fits its DRAM: fill *out (out->n = 0: none) and return 0, or -1
   * with *bad = the index of the parameter at fault and err. Called once,
   * for the configured policy; the platform applies the keys (config.txt
   * names the reason), registers the stat, then builds with the result. */
  int (*derive)(const memside_plan *in, memside_derivation *out, uint32_t *bad, char *err, size_t errlen);
  /* Ways of every L2 bank of its partitions the policy takes for itself
   * (optional; a tag cache carved out of the L2): a mask of way numbers
   * (bit w = way w) the L2 must not fill with data, 0 for none. */
  uint32_t (*l2_reserved_ways)(const memside_value *param, uint32_t l2_assoc);
  /* 1: the program must lie in the map's first part only (a policy that turns the other parts' ranks into a
   * cache of it, e.g. the DRAM cache); the platform checks the workload's arrays against it. */
  uint8_t program_in_first_part;
  /* With program_in_first_part (optional; NULL: never): 1 when, with these parameter values, the parts after the
   * first are flat memory the program may use as well (flrb with its reserved region beyond the DRAM part,
   * memside.flrb.dram_offset: the pc design's engine-placed arrays); the platform then checks only the arrays
   * that start in the first part against it. */
  uint8_t (*later_parts_flat)(const memside_value *param);
  /* The policy's placement unit when it is smaller than the L2's 128 B line (optional; NULL or 0: whole
   * lines). 64 (or 32): the policy places each 64 B (32 B) piece of a line on its own, e.g. 64 B DRAM-cache
   * lines (HMS Sec. IV-A's baselines). The shell then routes one piece at a time: a request whose sectors
   * lie in two pieces is split into two requests of the shell's own, each routed, held, released and
   * completed on its own (memside_req.pa: the piece's address), and the L2 is answered once all are back.
   * Asked once, after init. */
  uint32_t (*granule)(const void *st);
  /* Background (leakage) energy of rank `rank` of device `dev` since the start of the run, joules, when the
   * policy powers its rows on and off itself (optional; NULL or a negative result: the device controller's own
   * power-state accounting stands). bg_w: the rank's background power with every row powered (its preset's
   * bg_mw); bg_bytes: 0 when bg_w is the whole rank's (mem.leakage = rank), else the capacity bg_w describes
   * (mem.leakage = capacity: the preset's bg_mib). hgm: per-row NVM power gating (Sec. 4.2) charges per powered
   * row bg_w / rows of the rank, or bg_w x row bytes / bg_bytes, times its powered time. The device controller
   * reports it as the rank's energy.bg_j (and in every sum over ranks). */
  double (*rank_background_j)(const void *st, uint32_t dev, uint32_t rank, double bg_w, double bg_bytes);
  /* 1: no access changes the policy's state (every line stays where the static map puts it), so a functional
   * fast-forward (sim.fast_forward_instructions, platform/fast_forward.h), which warms the L1s and the L2 but
   * sends nothing to the memory side, leaves nothing of the policy cold. 0: the platform refuses a
   * fast-forward with this policy (its tags, counters or page tables would start cold). */
  uint8_t warm_free;
} memside_ops;

typedef struct memside_derived {
  const char *name, *desc;
  uint64_t num, den;
} memside_derived;

/* Policy by name, or NULL. */
const memside_ops *memside_find(const char *name);
/* Comma-separated names of every policy (for errors and --help). */
const char *memside_names(void);
size_t memside_count(void);
const memside_ops *memside_at(size_t i);

/* The static placement every policy starts from: the map's decode of pa
 * (memside_plain; also the initial mapping of the others). Inline: it is on
 * every access's path. */
static inline void memside_static_locate(const memside_cfg *cfg, uint64_t pa, memside_target *out) {
  amap_loc l;
  amap_decode(cfg->map, pa, &l);
  uint32_t d = 0;
  while (d + 1 < cfg->ndevs && cfg->dev_channel[d] != l.ch) ++d;
  const devaddr_loc dl = {l.ra, l.bg, l.ba, l.col, l.row};
  out->dev = d;
  out->addr = devaddr_encode(&cfg->geom[d], &dl);
  out->kind = cfg->rank_kind[d][l.ra];
  out->mirror = 0;
}

/* A 4 KiB page's lines (32 of 128 B) that partition `partition` serves under the static map (bit i = line i)
 * and, in *before, how many of the page's lines lie in lower partitions. The host layout of a page that
 * keeps each partition's part contiguous: the part's lines in address order from page * 4096 + *before * 128
 * (hostpage and Unified Memory move a part with one transfer over the host link). */
uint32_t memside_page_part(const amap *map, uint64_t page, uint32_t partition, uint32_t *before);

/* Checks shared by policies: the map keeps a 128 B line in consecutive
 * columns of one row (one device address range). Returns 0 or -1 with err. */
int memside_check_map(const memside_cfg *cfg, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
