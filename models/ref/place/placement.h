/* placement: compiler-directed data placement on a hybrid DRAM+PCM memory.
 *
 * Source: shared/papers/hybrid-dram-pcm-flrb-placement.txt Sec. V.
 *  - Profile (Sec. V-A): per kernel and per array the reads and writes (warp
 *    memory instructions), the coalesced and uncoalesced memory transactions
 *    (line requests), and per kernel the instructions and synchronisations.
 *  - Models (Sec. V-D): the performance model is Hong and Kim's MWP/CWP
 *    analytical model (ref. [8] of the paper, ISCA 2009) with the memory
 *    latency, departure delay and bandwidth of the device each array lives
 *    on; the energy model is Eq. 4-6 (background f(AF) x T per rank, reads and
 *    writes x energy per operation, refresh Pref x Nrank x T). Every device
 *    number is read from a dram_preset (mem/dram.h): one source of truth.
 *  - Placement Cost Graph (Sec. V-B): per kernel one node per legal
 *    placement (a bit mask over the arrays, bit set = the array in DRAM),
 *    legal when the DRAM arrays fit D and the PCM arrays fit C (size
 *    constraints (1) and (2)); an edge between consecutive kernels weighs the
 *    next kernel's cost plus the migration cost of changing placement. The
 *    cost is the energy-delay product (Sec. VI). The shortest path (dynamic
 *    programming) is the plan.
 *  - Runtime (Sec. V-C): plc_get_size, plc_cal_place, plc_malloc_hyb,
 *    plc_data_migrate, plc_finalize over a DRAM part and a PCM part of the
 *    physical address space.
 *
 * Every array has a place at every kernel (the paper's v = 0, "occupies no
 * GPU memory", would drop live data between kernels; Strata keeps all arrays
 * resident, so an array a kernel does not touch still counts against the
 * capacity and may move). State is an explicit struct sized at init; nothing
 * allocates, nothing prints. Floating point (the models are estimates; no RTL
 * must match them).
 */
#ifndef STRATA_PLACEMENT_H
#define STRATA_PLACEMENT_H
#include <stddef.h>
#include <stdint.h>

#include "mem/dram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Arrays per program: 2^A nodes per kernel and (2^A)^2 edges per step; the
 * paper (Sec. V-B) notes GPU programs "typically use less than ten arrays". */
#define PLC_MAX_ARRAYS 10u
#define PLC_MAX_KERNELS 4096u

enum plc_where { PLC_PCM = 0, PLC_DRAM = 1 };

/* Accesses of one kernel to one array (Sec. V-A's profile). Transactions are
 * line requests of the coalescer; an instruction is coalesced when its
 * requests are no more than the lines its active lanes' bytes would fill
 * contiguously, else uncoalesced. */
typedef struct plc_array_prof {
  uint64_t reads, writes;                 /* warp load / store instructions */
  uint64_t coal_insts, uncoal_insts;      /* of those, coalesced / uncoalesced */
  uint64_t rd_coal, rd_uncoal;            /* read transactions of coalesced / uncoalesced loads */
  uint64_t wr_coal, wr_uncoal;            /* write transactions of coalesced / uncoalesced stores */
} plc_array_prof;

typedef struct plc_kernel_prof {
  uint64_t insts;          /* warp instructions (all kinds) */
  uint64_t syncs;          /* barrier warp instructions */
  uint64_t warps;          /* warps launched */
  uint32_t warps_per_cta;
  plc_array_prof arr[PLC_MAX_ARRAYS];
} plc_kernel_prof;

/* One memory type of the hybrid system: its channels' preset and the part of
 * the physical address space it owns. */
typedef struct plc_mem {
  const dram_preset *dev;  /* device preset (dram_find); not owned */
  uint32_t channels;       /* channels of this type */
  uint32_t ranks;          /* ranks per channel */
  uint64_t base;           /* physical address of the part */
  uint64_t capacity;       /* bytes of the part (C for PCM, D for DRAM) */
  /* The controller's power-state policy (mem.powerdown_idle_cycles > 0, mem.nvm_power_gating): whether an idle
   * rank of this part drops to precharge power-down, and (NVM) whether it is power-gated. Eq. 5's f(AF) starts
   * at the power an idle rank really draws: precharge standby when neither is on. */
  uint8_t powerdown;
  uint8_t gating;
} plc_mem;

/* placement.force: the plan of plc_cal_place (a calibration setting: the models' prediction for one kind). */
enum plc_force { PLC_FORCE_NONE = 0, PLC_FORCE_PCM = 1, PLC_FORCE_DRAM = 2 };

typedef struct plc_cfg {
  uint32_t sms;              /* SMs */
  uint32_t max_warps;        /* warp slots per SM */
  double core_mhz;           /* SM clock */
  uint32_t line_bytes;       /* bytes of one memory transaction (L2 line) */
  uint32_t narrays, nkernels;
  plc_mem dram, pcm;
  uint64_t align;            /* allocation alignment of plc_malloc_hyb (power of two) */
  double migration_weight;   /* factor on the migration part of the edge weights in the DP (1 = the models'
                                estimate; 0 = free: each kernel gets its own best placement); >= 0. The
                                reported costs and plc_sequence_edp stay unweighted. */
  uint32_t drain_atoms;      /* column accesses the controller writes per write drain (mem.wq_high - mem.wq_low):
                                the bound on what a written row receives before it is closed (0 = no bound: a
                                coalesced write stream fills its rows) */
  uint8_t force;             /* enum plc_force: PLC_FORCE_NONE = the DP's plan; PCM / DRAM = every array there at
                                every kernel (-1 from plc_cal_place if that is not legal) */
  uint8_t static_only;       /* no migration edges: one placement for every kernel (programs whose
                                addresses cannot change between kernels) */
} plc_cfg;

/* The models' estimate of one kernel (or one migration phase) under a placement. */
typedef struct plc_cost {
  double seconds;  /* performance model */
  double energy_j; /* Eq. 4 */
  double edp;      /* energy_j x seconds */
} plc_cost;

/* A move of plc_data_migrate: array `array` from `from` to `to` (bytes). */
typedef struct plc_move {
  uint32_t array;
  uint8_t to_dram;
  uint64_t from, to, bytes;
} plc_move;

typedef struct plc_state {
  plc_cfg cfg;
  uint64_t size[PLC_MAX_ARRAYS];        /* dataSizes[] (plc_get_size) */
  plc_kernel_prof *prof;                /* caller's, nkernels entries */
  uint16_t *place;                      /* plan: DRAM mask per kernel (workspace) */
  uint16_t *parent;                     /* DP back-pointers, nkernels x 2^narrays (workspace) */
  double *best, *next;                  /* DP path lengths, 2^narrays each (workspace) */
  double predicted_edp;                 /* length of the shortest path */
  double all_pcm_edp;                   /* the all-PCM sequence under the same models */
  uint64_t addr[PLC_MAX_ARRAYS];        /* current base of each array (plc_malloc_hyb) */
  uint8_t allocated[PLC_MAX_ARRAYS];
  uint8_t in_dram[PLC_MAX_ARRAYS];
  uint8_t solved;
} plc_state;

/* Bytes of workspace plc_init needs for cfg (0 if cfg is out of range). */
size_t plc_workspace_bytes(const plc_cfg *cfg);

/* Validate cfg and set up s over the caller's profile (cfg->nkernels
 * entries, kept, not copied) and workspace (plc_workspace_bytes(cfg) bytes,
 * 8-byte aligned, kept). Returns 0, or -1 with a one-line reason in err
 * (s unusable). */
int plc_init(plc_state *s, const plc_cfg *cfg, plc_kernel_prof *prof, void *work, size_t work_bytes, char *err,
             size_t errlen);

/* The models (Sec. V-D). Cost of kernel k when the arrays in mask `dram`
 * are in DRAM, the others in PCM. */
plc_cost plc_kernel_cost(const plc_state *s, uint32_t k, uint32_t dram);
/* Cost of the migrations between two placements (every array whose bit
 * differs is read from its old memory and written to its new one by a copy
 * kernel); all zero when prev == cur. */
plc_cost plc_migration_cost(const plc_state *s, uint32_t prev, uint32_t cur);
/* Whether mask `dram` meets size constraints (1) and (2). */
int plc_legal(const plc_state *s, uint32_t dram);

/* getSize: dataSizes[] from sizes[0..narrays) (a negative size = unknown:
 * plc_cal_place uses the largest known size, Sec. V-C). Returns 0, -1 if no
 * size is known. */
int plc_get_size(plc_state *s, const int64_t *sizes);
/* calPlace: solve the Placement Cost Graph for minimum total EDP (dynamic
 * programming over kernels, O(K x 4^A) edge weights, no allocation). Ties
 * keep the smaller mask (fewer arrays in DRAM, then lower indices), so the
 * plan is deterministic. Returns 0, -1 when some kernel has no legal
 * placement (the arrays fit neither memory mix). */
int plc_cal_place(plc_state *s);
/* The plan: DRAM mask of kernel k (after plc_cal_place). */
uint32_t plc_plan(const plc_state *s, uint32_t k);
/* Total EDP of a given placement sequence masks[0..nkernels) under the
 * models (the path length; infinity if some mask is illegal). */
double plc_sequence_edp(const plc_state *s, const uint16_t *masks);

/* mallocHyb: the address of array a for kernel k's placement: first fit in
 * the planned part, else in the other part (Sec. V-C: "if the target device
 * is the small DRAM, it tries PCM"). Returns 0 and *addr, -1 when neither
 * part has room or a is already allocated. */
int plc_malloc_hyb(plc_state *s, uint32_t k, uint32_t a, uint64_t *addr);
/* dataMigrate (before kernel k >= 1): the arrays whose place differs
 * between kernels k-1 and k, in the order to copy them (DRAM -> PCM first,
 * so their space is free for PCM -> DRAM), each with its new address (the
 * allocation is updated; the caller moves the bytes). An array that does not
 * fit its planned part stays. Returns the number of moves in out[0..max). */
uint32_t plc_data_migrate(plc_state *s, uint32_t k, plc_move *out, uint32_t max);
/* finalize: free array a. */
void plc_finalize(plc_state *s, uint32_t a);

/* The plan as text into buf (at most n bytes, NUL-terminated): per kernel its
 * name (names[k], may be NULL), each array D or P by name (arrays[a]), the
 * predicted seconds, energy and EDP, and the migrations. Returns the length
 * it needed (as snprintf). */
size_t plc_plan_text(const plc_state *s, const char *const *kernels, const char *const *arrays, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
