/* memside_flrb: the parallelism-conscious migration of the hybrid DRAM+PCM paper ("pc-hw": FLRB, the hardware
 * half of its co-design), shared/papers/hybrid-dram-pcm-flrb-placement.txt Sec. IV. Config configs/flrb.toml,
 * docs/hybrid_dram_pcm.md "FLRB".
 *
 * The partition (memside.partition_channels = 2, Sec. III: DRAM and PCM in every partition) has a DRAM device
 * and a PCM device; the program lies in the PCM part of the map (Sec. VI: data arrays are initially placed on
 * PCM). The PCM device's address space is cut into 256 B segments (Sec. IV: "monitors and migrates data at the
 * grain of 256-byte segment"); segment idx = PCM device address / 256. The segment descriptors (idx, clr,
 * exptm, refcnt, rbmcnt), their M = 8 LRU queues, expiry, promotion, eviction and the candidate test are the
 * FLRB engine (models/ref/blocks/flrb.h), reached ONLY through its ops table (memside_cfg.blocks->flrb, the C
 * reference when NULL), so the Verilated RTL block can stand in for it (co-simulation). This file adds what the
 * paper puts around the engine in the memory controller (Fig. 2):
 *
 *  - Counting: every L2 access the devices answer (complete) is one ACCESS of its segment, with the device that
 *    served it (PCM writes weigh 3 in the engine) and its row-buffer outcome (t->row: a miss or a conflict is a
 *    row-buffer miss, the rbm flag). The time of exptm ("the last accessed time plus a constant (150)") is by
 *    default the partition's access count, the logical time of the multi-queue (MQ) algorithm RaPP [26] uses and
 *    FLRB extends; `clock = cycles` makes it the PCM channel's memory cycle instead (docs/hybrid_dram_pcm.md
 *    measures both: 150 cycles = 375 ns at DDR3-800 is shorter than the reuse distance behind the L2 of
 *    nearly every segment, so almost nothing becomes a candidate).
 *  - Round-robin queue checks (Sec. IV "checks the queues in a round-robin fashion"): one engine TICK per memory
 *    cycle, as the hardware does, replayed when the policy next runs (an access, a completion, the quantum
 *    timer): stretches in which no queue head can expire (the engine's cycles_to_expiry) cost at most M - 1
 *    ticks (they only move the round-robin pointer), so the result equals ticking every cycle and nothing polls.
 *    A tick that drops a DRAM segment's descriptor from the low-end queue asks for its copy-back to PCM.
 *  - Candidates (the engine: queue >= m = 3 and >= n = 2 row-buffer misses, in PCM) are migrated to DRAM with
 *    their same-row neighbours in the same queue (batch migration: the engine's NEIGH mask, kept to the device
 *    row of the candidate, the row buffer the migration buffers are sized by) into consecutive slots of the
 *    reserved DRAM region (Sec. IV: "the MC could place the migrated segments into physically contiguous
 *    destination addresses").
 *  - Free space (Sec. IV): a pool of consecutive free slots through a pointer, and a list of the `freed_list`
 *    (50) most recently freed slots, used for single segments; when the pool pointer meets used slots it sweeps
 *    on to the next free one.
 *  - The remap table: PCM segment -> DRAM slot, `remap_entries` (4096) entries at most (Sec. IV Space Overhead:
 *    a 20 KB remapping table; 4K entries of a 22-bit index and a slot number). DRAM is full when the table or
 *    the reserved region is.
 *  - Eviction: a DRAM segment whose descriptor leaves the multi-queue (a tick from the low-end queue, or a
 *    capacity or bucket-conflict eviction when a descriptor is created) is copied back to its place in PCM and
 *    its remap entry is cleaned (Sec. IV). A segment whose descriptor was evicted while it moved to DRAM is
 *    copied back the same way (no DRAM segment without a descriptor).
 *  - Proactive demotion (Sec. IV "If DRAM runs out, the data segment can be proactively migrated to PCM despite
 *    its exptm"): when a candidate finds DRAM full, a clock hand over the remap table looks at up to 32 DRAM
 *    segments and copies back the one in the lowest queue, if lower than the candidate's; the candidate waits
 *    for the next chance (deferred).
 *  - Bandwidth-aware quota (Sec. IV Eq. 1-3), per quantum of `quantum_cycles` (1000) memory cycles, one
 *    env->wake timer: BW_util of each channel over the last quantum is its data-bus utilisation (env->dev_util)
 *    minus the share the policy's own completed migration bytes took (Eq. 1 counts the regular transactions);
 *    MigrationDataSize = (1 - BW_util) x PeakBW x quantum (Eq. 3, PeakBW = bus bytes x data rate x clock,
 *    Eq. 2), the smaller of the two channels' (a migrated byte crosses both). A batch takes what the quota has
 *    left (trimmed to it); with less than one segment left the candidate is deferred to the next quantum.
 *    Copy-backs are charged to the quota but never wait for it (their descriptor is gone).
 *  - Moves go through the two row-buffer-sized migration buffers (Sec. IV Space Overhead: "two row
 *    buffer-sized migration buffers that decouple data copying and address updating"): a batch or up to a
 *    row's worth of copy-backs per buffer. A move (1) holds new accesses to its segments (route: HOLD, ticket =
 *    buffer + 1), (2) waits until the accesses already sent to them are answered, so no write is still on its
 *    way, (3) reads them (class migration), (4) writes them to their new places (class migration), (5) switches
 *    the remap table, tells the engine (SETPOS) and releases the held accesses. Copy-backs go first when a
 *    buffer frees.
 *
 * What the paper leaves open and this file decides: the rbm flag is the access's worst column outcome (miss or
 * conflict); the quota of the first quantum is the full peak; a candidate that finds no free buffer, no quota
 * or a full DRAM waits in a 16-entry deferred list, retried at the next quantum and when a buffer frees
 * (re-checked against its descriptor); the reserved region is `dram_size` bytes of the DRAM device from
 * `dram_offset` (by default the device's first bytes, as many as the partition's DRAM part: in pc-hw the program
 * lies in PCM only; in pc the engine's arrays keep the DRAM part and the region lies beyond it); in-flight accesses are counted per bucket of segments (65536
 * buckets), so a move may wait for an unrelated access of its bucket; no migrations start after the program's
 * end; the remap lookup costs no time (on-chip table).
 */
#include <stdio.h>
#include <string.h>

#include "blocks/blocks.h"
#include "memside.h"

#define FL_SEG 256u
#define FL_BUFS 2u
#define FL_MAX_BATCH 32u   /* FLRB_ROW_SEGS: segments of an 8 KiB row, the engine's neighbour mask */
#define FL_DEFER 16u
#define FL_BUCKETS 65536u
#define FL_CLOCK_LOOK 32u

/* The parameters, memside.flrb.<name>: X(index, name, type, default, min, max, doc). */
#define FL_PARAMS(X)                                                                                              \
  X(FL_DESCRIPTORS, "descriptors", MEMSIDE_P_INT, "4096", 2, 65536,                                               \
    "policy flrb: segment descriptors of the multi-queue per partition, a power of two (Sec. IV Space Overhead: "  \
    "capped at 4K descriptors, 32 KB)")                                                                           \
  X(FL_LIFETIME, "lifetime", MEMSIDE_P_INT, "150", 1, 1073741823,                                                 \
    "policy flrb: exptm = last access + this, in the unit of memside.flrb.clock (Sec. IV: 150)")                  \
  X(FL_CAND_QUEUE, "cand_queue", MEMSIDE_P_INT, "3", 0, 7,                                                        \
    "policy flrb: m, a PCM segment in queue >= m is a migration candidate (Sec. IV: m = 3)")                      \
  X(FL_CAND_RBM, "cand_rbm", MEMSIDE_P_INT, "2", 0, 3,                                                            \
    "policy flrb: n, row-buffer misses a candidate needs (Sec. IV: n = 2)")                                       \
  X(FL_PCM_WR_WEIGHT, "pcm_write_weight", MEMSIDE_P_INT, "3", 1, 255,                                             \
    "policy flrb: refcnt increment of a PCM write, other accesses add 1 (Sec. IV: 3)")                            \
  X(FL_QUANTUM, "quantum_cycles", MEMSIDE_P_INT, "1000", 10, 10000000,                                            \
    "policy flrb: time quantum of the bandwidth-aware migration quota, memory cycles (Sec. IV Eq. 1-3: 1000)")    \
  X(FL_QUOTA, "quota", MEMSIDE_P_BOOL, "true", 0, 1,                                                              \
    "policy flrb: limit migration bytes per quantum to the bandwidth left by regular traffic (Sec. IV Eq. 3)")    \
  X(FL_BATCH, "batch", MEMSIDE_P_BOOL, "true", 0, 1,                                                              \
    "policy flrb: migrate a candidate's same-row neighbours of its queue with it (Sec. IV batch migration)")      \
  X(FL_DRAM_SIZE, "dram_size", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 40),                                     \
    "policy flrb: reserved DRAM region for migrated segments per partition, bytes (multiple of 256); 0: the "     \
    "partition's DRAM part of the map (addrmap.dram_size / DRAM channels: 256 MB, Sec. VI)")                      \
  X(FL_DRAM_OFFSET, "dram_offset", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 40),                                 \
    "policy flrb: DRAM device address where the reserved region starts, bytes (multiple of 256); 0: the "        \
    "device's start. With arrays placed in the DRAM part (pc: placement.mode = engine) it must lie beyond that "  \
    "part's bytes per channel, so migrated segments never overwrite placed arrays")                              \
  X(FL_REMAP, "remap_entries", MEMSIDE_P_INT, "4096", 1, 1048576,                                                 \
    "policy flrb: entries of the remap table, i.e. segments in DRAM at most per partition (Sec. IV Space "        \
    "Overhead: 20 KB remapping table, 4K entries)")                                                               \
  X(FL_FREED, "freed_list", MEMSIDE_P_INT, "50", 1, 1024,                                                         \
    "policy flrb: entries of the list of recently freed DRAM slots (Sec. IV: 50)")                               \
  X(FL_PROACTIVE, "proactive_demotion", MEMSIDE_P_BOOL, "true", 0, 1,                                             \
    "policy flrb: when DRAM is full, copy a colder DRAM segment back to PCM for a candidate (Sec. IV)")          \
  X(FL_CLOCK, "clock", MEMSIDE_P_ENUM, "accesses", 0, 0,                                                          \
    "policy flrb: the time of exptm (Sec. IV: last accessed time + 150): accesses (the partition's accesses, the "\
    "logical time of the multi-queue algorithm of RaPP [26] the scheme extends) or cycles (memory cycles)")

enum {
#define X(id, nm, ty, def, lo, hi, doc) id,
  FL_PARAMS(X)
#undef X
  FL_NPARAMS
};

static const memside_param fl_param[] = {
#define X(id, nm, ty, def, lo, hi, doc) {nm, ty, def, lo, hi, id == FL_CLOCK ? "cycles|accesses" : NULL, doc, "flrb", NULL},
    FL_PARAMS(X)
#undef X
};

static const memside_params fl_params = {"memside.flrb.", fl_param, FL_NPARAMS, NULL};

/* The policy's counters, flrb.<name> (summed) and memside.p<N>.flrb.<name>. */
#define FL_STATS(X)                                                                                               \
  X(S_READS_DRAM, "reads_dram", "L2 reads served by DRAM (a migrated segment)")                                   \
  X(S_WRITES_DRAM, "writes_dram", "L2 write-backs served by DRAM (a migrated segment)")                           \
  X(S_READS_PCM, "reads_pcm", "L2 reads served by PCM")                                                           \
  X(S_WRITES_PCM, "writes_pcm", "L2 write-backs served by PCM")                                                   \
  X(S_RBM, "row_misses", "L2 accesses whose column accesses missed the row buffer (miss or conflict): rbm")        \
  X(S_CANDIDATES, "candidates", "accesses after which the engine reported a migration candidate")                 \
  X(S_BATCHES, "migrations", "migrations PCM -> DRAM started (a candidate and its batch)")                         \
  X(S_PROMOTED, "migrated_segments", "segments migrated PCM -> DRAM (completed)")                                 \
  X(S_NEIGHBOURS, "batch_neighbours", "of those, same-row neighbours migrated with a candidate")                  \
  X(S_BATCH_MAX, "batch_max", "largest batch, segments (summed over partitions: the sum of their maxima)")        \
  X(S_EVICT_TICK, "evictions_expired", "DRAM segments whose descriptor expired out of the low-end queue")          \
  X(S_EVICT_CREATE, "evictions_capacity", "DRAM segments whose descriptor was evicted to make room for a new one") \
  X(S_EVICT_ORPHAN, "evictions_in_flight", "segments whose descriptor was evicted while they moved to DRAM")        \
  X(S_PROACTIVE, "proactive_demotions", "DRAM segments copied back to PCM early because DRAM was full")            \
  X(S_COPYBACKS, "copybacks", "segments copied back DRAM -> PCM (completed)")                                     \
  X(S_DEMOTIONS, "demotions", "expired descriptors moved to the next lower queue (round-robin checks)")           \
  X(S_DESC_DROPPED, "descriptors_released", "descriptors of PCM segments that left the multi-queue")              \
  X(S_TICKS, "ticks", "round-robin queue checks (engine TICKs, one per memory cycle)")                             \
  X(S_QUANTA, "quanta", "quota quanta (timer wake-ups)")                                                          \
  X(S_QUOTA_BYTES, "quota_bytes", "migration bytes the quanta allowed (Eq. 3), summed")                           \
  X(S_MIG_BYTES, "migration_bytes", "bytes migrated, each direction counted once (read = written)")               \
  X(S_DEFER_QUOTA, "quota_deferrals", "candidates deferred because the quantum's quota was used up")              \
  X(S_DEFER_QUOTA_TRIM, "quota_trims", "batches cut short to the quantum's quota")                                \
  X(S_DEFER_BUF, "buffer_deferrals", "candidates deferred because both migration buffers were busy")              \
  X(S_DEFER_FULL, "dram_full_deferrals", "candidates deferred because DRAM (region or remap table) was full")       \
  X(S_HOLDS, "holds", "accesses held because their segment was moving")                                           \
  X(S_K0_DRAM, "first_kernel_dram", "accesses of the first kernel launch served by DRAM")                         \
  X(S_K0_ALL, "first_kernel_accesses", "accesses of the first kernel launch")                                     \
  X(S_KL_DRAM, "last_kernel_dram", "accesses of the last kernel launch served by DRAM")                           \
  X(S_KL_ALL, "last_kernel_accesses", "accesses of the last kernel launch")

enum {
#define X(id, nm, desc) id,
  FL_STATS(X)
#undef X
  FL_NSTATS
};

static const char *const fl_stat_names[] = {
#define X(id, nm, desc) nm,
    FL_STATS(X)
#undef X
    NULL};
static const char *const fl_stat_descs[] = {
#define X(id, nm, desc) desc,
    FL_STATS(X)
#undef X
    NULL};

#define B(i) (1ull << (i))
#define FL_ACCESSES (B(S_READS_DRAM) | B(S_WRITES_DRAM) | B(S_READS_PCM) | B(S_WRITES_PCM))
static const memside_derived fl_derived[] = {
    {"dram_hit_share", "L2 accesses served by DRAM / all L2 accesses", B(S_READS_DRAM) | B(S_WRITES_DRAM),
     FL_ACCESSES},
    {"writes_redirected_to_dram", "L2 write-backs served by DRAM / all L2 write-backs", B(S_WRITES_DRAM),
     B(S_WRITES_DRAM) | B(S_WRITES_PCM)},
    {"migration_rate", "segments migrated (to DRAM and back) / L2 accesses", B(S_PROMOTED) | B(S_COPYBACKS),
     FL_ACCESSES},
    {"avg_batch", "segments per migration (batch size)", B(S_PROMOTED), B(S_BATCHES)},
    {"row_miss_rate", "L2 accesses missing the row buffer / all L2 accesses", B(S_RBM), FL_ACCESSES},
    {"first_kernel_dram_share", "DRAM share of the first kernel launch's accesses", B(S_K0_DRAM), B(S_K0_ALL)},
    {"last_kernel_dram_share", "DRAM share of the last kernel launch's accesses", B(S_KL_DRAM), B(S_KL_ALL)},
    {NULL, NULL, 0, 0}};
#undef B

/* A remap-table entry: where a PCM segment lives while it is not (only) at home. */
enum fl_where { W_DRAM = 1, W_IN, W_OUT, W_PENDING };
typedef struct fl_map {
  uint32_t key;   /* segment + 1; 0: empty */
  uint32_t slot;  /* DRAM slot (device address slot x 256 of the DRAM device) */
  uint8_t where;  /* enum fl_where: in DRAM; moving in; copying back; in DRAM, copy-back queued */
  uint8_t buf;    /* W_IN / W_OUT: the migration buffer */
} fl_map;

enum fl_phase { P_FREE, P_DRAIN, P_READ, P_WRITE };
enum { TAG_READ = 1, TAG_WRITE = 2 };

/* A migration buffer: up to a row of segments moving one way. */
typedef struct fl_buf {
  uint8_t phase;   /* enum fl_phase */
  uint8_t out;     /* 1: copy-backs DRAM -> PCM; 0: a migration PCM -> DRAM */
  uint8_t n;
  uint16_t pending;
  uint32_t seg[FL_MAX_BATCH], slot[FL_MAX_BATCH];
  unsigned char data[FL_MAX_BATCH * FL_SEG];
} fl_buf;

typedef struct fl_st {
  memside_cfg cfg;
  memside_env env;
  const flrb_ops *eng;
  void *eng_st;
  uint32_t dram, pcm;              /* device indices */
  uint32_t row_segs, max_batch;    /* segments per device row; per buffer */
  uint32_t cand_queue;
  uint64_t nsegs;                  /* PCM segments of the channel */
  uint64_t base;                   /* DRAM device address of slot 0 (memside.flrb.dram_offset) */
  uint64_t tck_ps;                 /* PCM memory cycle */
  uint64_t quantum_ps;
  double peak_q[2];                /* peak bytes per quantum of the DRAM [0] and PCM [1] channel (Eq. 2) */
  int quota_on, batch_on, proactive_on;
  int access_clock;                /* exptm counts accesses, not memory cycles */
  uint64_t accesses;               /* accesses counted (the access clock) */
  /* remap table (open addressing, linear probing) and the reserved region's slots */
  uint32_t map_mask, map_n, map_cap, clock;
  uint32_t nslots, nfree, pool;    /* slots; free ones; the pool pointer */
  uint32_t freed_n, freed_max;
  /* time */
  uint64_t tick_cyc;               /* last memory cycle ticked */
  int armed, ended;
  uint64_t routed_mark, routed;    /* accesses routed: at the last quantum, in all */
  int64_t budget;                  /* migration bytes left in this quantum */
  uint64_t own_done[2];            /* own bytes completed this quantum on DRAM [0] and PCM [1] */
  /* waiting work */
  uint32_t defer[FL_DEFER], ndefer;
  uint32_t out_head, out_n;        /* copy-back ring (capacity map_cap) */
  uint64_t k_dram, k_all;          /* accesses of the current kernel launch */
  uint32_t kernels;
  fl_map *map;                     /* the arrays after the header (the block is never moved) */
  uint32_t *freed, *ring;
  uint64_t *bits;                  /* bit set: slot used */
  fl_buf buf[FL_BUFS];
  uint16_t inflight[FL_BUCKETS];   /* accesses routed and not answered, per bucket of segments */
  uint64_t c[FL_NSTATS];
  /* followed by: engine state, map entries [map_mask + 1], freed list [freed_max], copy-back ring [map_cap],
   * slot bitmap [(nslots + 63) / 64] */
} fl_st;

static size_t align16(size_t x) { return (x + 15u) & ~(size_t)15u; }

static const flrb_ops *engine_of(const memside_cfg *cfg) {
  return (cfg->blocks ? cfg->blocks : &memside_blocks_c)->flrb;
}

/* The engine's configuration from the parameters (Sec. IV values by default; the hash as flrb_params.h's
 * proportions: half as many buckets as descriptors, 4 ways). */
static void engine_cfg(const memside_value *p, flrb_cfg *fc) {
  flrb_cfg_default(fc);
  uint32_t w = 0;
  while ((1ull << w) < (uint64_t)p[FL_DESCRIPTORS].i) ++w;
  fc->cap_w = w;
  fc->bkt_w = w > 1 ? w - 1 : 1;
  fc->lifetime = (uint32_t)p[FL_LIFETIME].i;
  fc->cand_queue = (uint32_t)p[FL_CAND_QUEUE].i;
  fc->cand_rbm = (uint32_t)p[FL_CAND_RBM].i;
  fc->pcm_wr_weight = (uint32_t)p[FL_PCM_WR_WEIGHT].i;
}

static uint64_t region_of(const memside_cfg *cfg) {
  if (cfg->param[FL_DRAM_SIZE].i) return (uint64_t)cfg->param[FL_DRAM_SIZE].i;
  for (uint32_t k = 0; k < cfg->map->nparts; ++k)
    if (cfg->map->part[k].mem == AMAP_MEM_DRAM && cfg->map->part[k].nch)
      return cfg->map->part[k].bytes / cfg->map->part[k].nch;
  return 0;
}

/* Sizes of the arrays after the header. */
typedef struct fl_layout {
  size_t eng, map, freed, ring, bits, total;
  uint32_t map_entries, cap, nslots;
} fl_layout;

static int layout_of(const memside_cfg *cfg, fl_layout *l) {
  memset(l, 0, sizeof *l);
  if (!cfg->param) return -1;
  flrb_cfg fc;
  engine_cfg(cfg->param, &fc);
  const uint64_t slots = region_of(cfg) / FL_SEG;
  if (slots == 0 || slots > (1ull << 31)) return -1;
  l->nslots = (uint32_t)slots;
  const uint64_t cap = (uint64_t)cfg->param[FL_REMAP].i < slots ? (uint64_t)cfg->param[FL_REMAP].i : slots;
  l->cap = (uint32_t)cap;
  uint32_t e = 2;
  while (e < 2 * cap) e <<= 1;
  l->map_entries = e;
  l->eng = align16(engine_of(cfg)->state_bytes(&fc));
  if (l->eng == 0) return -1;
  l->map = align16((size_t)e * sizeof(fl_map));
  l->freed = align16((size_t)cfg->param[FL_FREED].i * sizeof(uint32_t));
  l->ring = align16((size_t)cap * sizeof(uint32_t));
  l->bits = align16((size_t)((slots + 63) / 64) * sizeof(uint64_t));
  l->total = align16(sizeof(fl_st)) + l->eng + l->map + l->freed + l->ring + l->bits;
  return 0;
}

static size_t fl_state_bytes(const memside_cfg *cfg) {
  fl_layout l;
  return layout_of(cfg, &l) == 0 ? l.total : sizeof(fl_st);
}

static int pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* The partition's DRAM device and PCM (NVM) device, one kind each (as dbuff). */
static int find_devices(fl_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  int dd = -1, pd = -1;
  for (uint32_t d = 0; d < cfg->ndevs && d < MEMSIDE_MAX_DEVS; ++d) {
    const unsigned k = cfg->rank_kind[d][0];
    for (uint32_t r = 1; r < cfg->geom[d].ranks && r < AMAP_MAX_RANKS; ++r)
      if (cfg->rank_kind[d][r] != k) {
        snprintf(err, errlen, "memside.policy = flrb: expected one memory kind per channel of a partition "
                              "(mem.channel_devices with memside.partition_channels = 2), got a mixed channel");
        return -1;
      }
    if (k == AMAP_MEM_DRAM && dd < 0) dd = (int)d;
    else if ((k == AMAP_MEM_NVM || k == AMAP_MEM_SCM) && pd < 0) pd = (int)d;
  }
  if (dd < 0 || pd < 0) {
    snprintf(err, errlen, "memside.policy = flrb: expected a DRAM channel and a PCM channel in every memory "
                          "partition (mem.channel_devices = \"ddr3_800, pcm_flrb\", memside.partition_channels = 2)");
    return -1;
  }
  s->dram = (uint32_t)dd;
  s->pcm = (uint32_t)pd;
  return 0;
}

static int fl_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  fl_st *s = (fl_st *)st;
  if (!cfg->param) {
    snprintf(err, errlen, "memside.flrb: the policy's parameter values are missing (memside_cfg.param)");
    return -1;
  }
  const memside_value *p = cfg->param;
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->cfg.param = NULL; /* valid during init only */
  s->env = *env;
  s->eng = engine_of(cfg);
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  if (!pow2((uint64_t)p[FL_DESCRIPTORS].i)) {
    snprintf(err, errlen, "memside.flrb.descriptors: expected a power of two, got %lld", (long long)p[FL_DESCRIPTORS].i);
    return -1;
  }
  if (find_devices(s, cfg, err, errlen) != 0) return -1;
  const amap *m = cfg->map;
  if (m->nparts < 2 || m->part[0].mem == AMAP_MEM_DRAM || !m->part[0].bytes || !m->part[0].nch) {
    snprintf(err, errlen, "memside.policy = flrb: expected the PCM part of the map first and bounded, then the "
                          "DRAM part (addrmap.part_order = \"nvm, dram\", addrmap.nvm_size > 0)");
    return -1;
  }
  uint64_t dram_bytes = 0;
  for (uint32_t k = 1; k < m->nparts; ++k)
    if (m->part[k].mem == AMAP_MEM_DRAM && m->part[k].nch) dram_bytes = m->part[k].bytes / m->part[k].nch;
  const uint64_t region = region_of(cfg);
  if (region < FL_SEG || region % FL_SEG || (dram_bytes && !p[FL_DRAM_OFFSET].i && region > dram_bytes)) {
    snprintf(err, errlen, "memside.flrb.dram_size: expected a multiple of 256 B up to the partition's DRAM (%llu B "
             "per channel, addrmap.dram_size / channels), got %llu B", (unsigned long long)dram_bytes,
             (unsigned long long)region);
    return -1;
  }
  const uint64_t off = (uint64_t)p[FL_DRAM_OFFSET].i;
  if (off % FL_SEG || (off && off < dram_bytes)) {
    snprintf(err, errlen, "memside.flrb.dram_offset: expected 0 or a multiple of 256 B at or beyond the map's DRAM "
             "part (%llu B per channel, addrmap.dram_size / channels), got %llu B", (unsigned long long)dram_bytes,
             (unsigned long long)off);
    return -1;
  }
  s->base = off;
  s->nsegs = m->part[0].bytes / m->part[0].nch / FL_SEG;
  if (s->nsegs > (1ull << FLRB_SEG_W)) {
    snprintf(err, errlen, "addrmap.nvm_size: expected at most %llu B of PCM per channel (the descriptor's %u-bit "
             "segment index, Sec. IV Space Overhead), got %llu B", (unsigned long long)((1ull << FLRB_SEG_W) * FL_SEG),
             FLRB_SEG_W, (unsigned long long)(s->nsegs * FL_SEG));
    return -1;
  }
  const uint32_t row = cfg->geom[s->pcm].columns * cfg->geom[s->pcm].atom_bytes;
  const uint32_t drow = cfg->geom[s->dram].columns * cfg->geom[s->dram].atom_bytes;
  if (row < FL_SEG || row % FL_SEG || drow % FL_SEG) {
    snprintf(err, errlen, "memside.policy = flrb: expected device rows of a multiple of 256 B, got %u B", row);
    return -1;
  }
  if (cfg->dev_clk_mhz[s->pcm] <= 0 || cfg->dev_clk_mhz[s->dram] <= 0 || !cfg->dev_bytes_per_clk[s->pcm] ||
      !cfg->dev_bytes_per_clk[s->dram]) {
    snprintf(err, errlen, "memside.policy = flrb: expected the channels' clocks and bus widths (memside_cfg)");
    return -1;
  }
  s->row_segs = row / FL_SEG;
  s->max_batch = s->row_segs < FL_MAX_BATCH ? s->row_segs : FL_MAX_BATCH;
  flrb_cfg fc;
  engine_cfg(p, &fc);
  fl_layout l;
  if (layout_of(cfg, &l) != 0) {
    snprintf(err, errlen, "memside.flrb.descriptors: expected an engine configuration blocks.flrb accepts");
    return -1;
  }
  char *mem = (char *)st + align16(sizeof(fl_st));
  s->eng_st = mem;
  if (s->eng->init(s->eng_st, &fc) != 0) {
    snprintf(err, errlen, "memside.flrb.descriptors: expected an engine configuration blocks.flrb accepts");
    return -1;
  }
  mem += l.eng;
  s->map = (fl_map *)(void *)mem;
  mem += l.map;
  s->freed = (uint32_t *)(void *)mem;
  mem += l.freed;
  s->ring = (uint32_t *)(void *)mem;
  mem += l.ring;
  s->bits = (uint64_t *)(void *)mem;
  memset(s->map, 0, l.map + l.freed + l.ring + l.bits);
  s->map_mask = l.map_entries - 1;
  s->map_cap = l.cap;
  s->nslots = s->nfree = l.nslots;
  s->freed_max = (uint32_t)p[FL_FREED].i;
  s->cand_queue = fc.cand_queue;
  s->tck_ps = (uint64_t)(1e6 / cfg->dev_clk_mhz[s->pcm] + 0.5);
  s->quantum_ps = (uint64_t)p[FL_QUANTUM].i * s->tck_ps;
  for (int k = 0; k < 2; ++k) { /* Eq. 2: PeakBW = bus bytes x data rate x clock; over one quantum */
    const uint32_t d = k ? s->pcm : s->dram;
    s->peak_q[k] = (double)cfg->dev_bytes_per_clk[d] * cfg->dev_clk_mhz[d] * 1e-6 * (double)s->quantum_ps;
  }
  s->quota_on = (int)p[FL_QUOTA].i;
  s->batch_on = (int)p[FL_BATCH].i;
  s->proactive_on = (int)p[FL_PROACTIVE].i;
  s->access_clock = p[FL_CLOCK].i == 1;
  s->budget = (int64_t)(s->peak_q[0] < s->peak_q[1] ? s->peak_q[0] : s->peak_q[1]);
  return 0;
}

/* ------------------------------------------------------------ remap table and slots */

static uint32_t hash_seg(const fl_st *s, uint32_t seg) { return (seg * 2654435761u) & s->map_mask; }

static fl_map *map_find(const fl_st *s, uint32_t seg) {
  for (uint32_t i = hash_seg(s, seg);; i = (i + 1) & s->map_mask) {
    fl_map *e = &s->map[i];
    if (e->key == seg + 1) return e;
    if (!e->key) return NULL;
  }
}

static fl_map *map_add(fl_st *s, uint32_t seg, uint32_t slot, uint8_t where, uint8_t buf) {
  uint32_t i = hash_seg(s, seg);
  while (s->map[i].key) i = (i + 1) & s->map_mask;
  s->map[i] = (fl_map){seg + 1, slot, where, buf};
  ++s->map_n;
  return &s->map[i];
}

/* Remove an entry, shifting the ones after it back (no tombstones). */
static void map_del(fl_st *s, fl_map *e) {
  uint32_t i = (uint32_t)(e - s->map);
  s->map[i].key = 0;
  --s->map_n;
  for (uint32_t j = (i + 1) & s->map_mask; s->map[j].key; j = (j + 1) & s->map_mask) {
    const uint32_t h = hash_seg(s, s->map[j].key - 1);
    /* entry j may move to the hole i when its home h is not in (i, j] cyclically */
    if (((j - h) & s->map_mask) >= ((j - i) & s->map_mask)) {
      s->map[i] = s->map[j];
      s->map[j].key = 0;
      i = j;
    }
  }
}

static int slot_used(const fl_st *s, uint32_t k) { return (int)((s->bits[k >> 6] >> (k & 63)) & 1u); }
static void slot_take(fl_st *s, uint32_t k) {
  s->bits[k >> 6] |= 1ull << (k & 63);
  --s->nfree;
}
static void slot_free(fl_st *s, uint32_t k) {
  s->bits[k >> 6] &= ~(1ull << (k & 63));
  ++s->nfree;
  if (s->freed_n == s->freed_max) { /* the list keeps the most recent: drop the oldest (the pool sweep finds it) */
    memmove(s->freed, s->freed + 1, (s->freed_max - 1) * sizeof *s->freed);
    --s->freed_n;
  }
  s->freed[s->freed_n++] = k;
}

/* One free slot (nfree > 0): a recently freed one, else the pool pointer's next free slot. */
static uint32_t take_one(fl_st *s) {
  while (s->freed_n) {
    const uint32_t k = s->freed[--s->freed_n];
    if (!slot_used(s, k)) {
      slot_take(s, k);
      return k;
    }
  }
  while (slot_used(s, s->pool)) s->pool = s->pool + 1 == s->nslots ? 0 : s->pool + 1;
  const uint32_t k = s->pool;
  slot_take(s, k);
  s->pool = s->pool + 1 == s->nslots ? 0 : s->pool + 1;
  return k;
}

/* n slots (n <= nfree) for a batch: consecutive from the pool when the pool has n free in a row there (Sec. IV:
 * physically contiguous destinations), else one at a time. */
static void take_slots(fl_st *s, uint32_t n, uint32_t *out) {
  int run = n > 1 && s->pool + n <= s->nslots;
  for (uint32_t i = 0; run && i < n; ++i)
    if (slot_used(s, s->pool + i)) run = 0;
  if (run) {
    for (uint32_t i = 0; i < n; ++i) {
      out[i] = s->pool + i;
      slot_take(s, out[i]);
    }
    s->pool = s->pool + n == s->nslots ? 0 : s->pool + n;
    return;
  }
  for (uint32_t i = 0; i < n; ++i) out[i] = take_one(s);
}

/* Segments that may still move to DRAM: free slots, room in the remap table. */
static uint32_t room(const fl_st *s) {
  const uint32_t t = s->map_cap - s->map_n;
  return t < s->nfree ? t : s->nfree;
}

/* ------------------------------------------------------------------ the engine */

static uint64_t cycle_now(const fl_st *s) { return s->env.now_ps(s->env.ctx) / s->tck_ps; }

static void eng_req(fl_st *s, flrb_op op, uint32_t seg, flrb_resp *r) {
  const flrb_req q = {op, seg, false, false, false, false, 0};
  s->eng->exec(s->eng_st, &q, r);
}

static void queue_copyback(fl_st *s, fl_map *e) {
  e->where = W_PENDING;
  s->ring[(s->out_head + s->out_n++) % s->map_cap] = e->key - 1;
}

/* A descriptor left the multi-queue (r->ev_valid): a DRAM segment goes back to PCM (Sec. IV). */
static void evicted(fl_st *s, const flrb_resp *r, int stat) {
  if (!r->ev_valid) return;
  fl_map *e = r->ev_copyback ? map_find(s, r->ev_seg) : NULL;
  if (!e || e->where != W_DRAM) { /* a PCM segment (or one already leaving): the descriptor is released */
    ++s->c[S_DESC_DROPPED];
    return;
  }
  ++s->c[stat];
  queue_copyback(s, e);
}

/* The engine's time at memory cycle t: t, or the access clock (which no access moves while ticks replay). */
static uint64_t eng_time(const fl_st *s, uint64_t t) { return s->access_clock ? s->accesses : t; }

/* The round-robin checks of the memory cycles up to cyc, one TICK each (see the header). */
static void catch_up(fl_st *s, uint64_t cyc) {
  while (s->tick_cyc < cyc) {
    const uint64_t t = s->tick_cyc + 1;
    const uint32_t w0 = s->eng->cycles_to_expiry(s->eng_st, eng_time(s, t));
    const uint32_t w = s->access_clock && w0 ? UINT32_MAX : w0; /* no access in the replay: nothing expires */
    flrb_resp r;
    if (w > 0) { /* no head can expire in [t, t + w): those ticks only move the round-robin pointer */
      const uint64_t skip = (uint64_t)w < cyc - t + 1 ? (uint64_t)w : cyc - t + 1;
      for (uint64_t k = 0; k < skip % FLRB_NQ; ++k) {
        const flrb_req q = {FLRB_OP_TICK, 0, false, false, false, false, eng_time(s, t + k)};
        s->eng->exec(s->eng_st, &q, &r);
      }
      s->c[S_TICKS] += skip;
      s->tick_cyc += skip;
      continue;
    }
    const flrb_req q = {FLRB_OP_TICK, 0, false, false, false, false, eng_time(s, t)};
    s->eng->exec(s->eng_st, &q, &r);
    ++s->c[S_TICKS];
    if (r.demoted) ++s->c[S_DEMOTIONS];
    evicted(s, &r, S_EVICT_TICK);
    s->tick_cyc = t;
  }
}

/* ------------------------------------------------------------------ moves */

static int issue(fl_st *s, uint32_t dev, uint64_t addr, uint32_t bytes, int write, unsigned char *buf, unsigned kind,
                 uint32_t b) {
  const memside_xfer x = {dev, addr, bytes, (uint8_t)write, MEMSIDE_MIGRATION, buf, ((uint64_t)kind << 32) | b};
  /* at most FL_BUFS x FL_MAX_BATCH transfers outstanding: the shell never refuses */
  return s->env.issue(s->env.ctx, &x) == 0;
}

/* Buffer b's segments from (read) or to (write) one device, a transfer per run of consecutive places. */
static void transfer(fl_st *s, uint32_t b, int write) {
  fl_buf *f = &s->buf[b];
  const int on_dram = f->out != write; /* a migration reads PCM, writes DRAM; a copy-back the other way */
  const uint32_t dev = on_dram ? s->dram : s->pcm;
  for (uint32_t i = 0; i < f->n;) {
    const uint32_t at = on_dram ? f->slot[i] : f->seg[i];
    uint32_t j = i + 1;
    while (j < f->n && (on_dram ? f->slot[j] : f->seg[j]) == at + (j - i)) ++j;
    const uint64_t addr = (on_dram ? s->base : 0) + (uint64_t)at * FL_SEG;
    if (issue(s, dev, addr, (j - i) * FL_SEG, write, f->data + i * FL_SEG, write ? TAG_WRITE : TAG_READ, b))
      ++f->pending;
    i = j;
  }
}

/* Step 3 once step 2 is over: nothing sent to the buffer's segments is still unanswered. */
static void read_when_drained(fl_st *s, uint32_t b) {
  fl_buf *f = &s->buf[b];
  if (f->phase != P_DRAIN) return;
  for (uint32_t i = 0; i < f->n; ++i)
    if (s->inflight[f->seg[i] % FL_BUCKETS]) return;
  f->phase = P_READ;
  transfer(s, b, 0);
}

static int free_buffer(const fl_st *s) {
  for (uint32_t b = 0; b < FL_BUFS; ++b)
    if (s->buf[b].phase == P_FREE) return (int)b;
  return -1;
}

/* Up to a buffer's worth of queued copy-backs into buffer b. */
static void start_copybacks(fl_st *s, uint32_t b) {
  fl_buf *f = &s->buf[b];
  f->n = 0;
  while (s->out_n && f->n < s->max_batch) {
    const uint32_t seg = s->ring[s->out_head];
    s->out_head = (s->out_head + 1) % s->map_cap;
    --s->out_n;
    fl_map *e = map_find(s, seg);
    if (!e || e->where != W_PENDING) continue;
    e->where = W_OUT;
    e->buf = (uint8_t)b;
    f->seg[f->n] = seg;
    f->slot[f->n++] = e->slot;
  }
  if (!f->n) return;
  f->out = 1;
  f->pending = 0;
  f->phase = P_DRAIN;
  s->budget -= (int64_t)f->n * FL_SEG; /* charged, never waited for */
  if (s->budget < 0) s->budget = 0;
  read_when_drained(s, b);
}

static void defer(fl_st *s, uint32_t seg, int why) {
  ++s->c[why];
  for (uint32_t i = 0; i < s->ndefer; ++i)
    if (s->defer[i] == seg) return;
  if (s->ndefer == FL_DEFER) { /* keep the most recent */
    memmove(s->defer, s->defer + 1, (FL_DEFER - 1) * sizeof *s->defer);
    --s->ndefer;
  }
  s->defer[s->ndefer++] = seg;
}

/* DRAM is full: copy back the DRAM segment in the lowest queue among the next FL_CLOCK_LOOK of the remap table
 * (clock hand), if it is in a lower queue than the candidate's (Sec. IV proactive demotion). */
static void proactive(fl_st *s, uint32_t cand_queue) {
  fl_map *best = NULL;
  uint32_t best_q = FLRB_NQ, looked = 0;
  for (uint32_t n = 0; n <= s->map_mask && looked < FL_CLOCK_LOOK; ++n) {
    fl_map *e = &s->map[s->clock];
    s->clock = (s->clock + 1) & s->map_mask;
    if (!e->key || e->where != W_DRAM) continue;
    ++looked;
    flrb_resp r;
    eng_req(s, FLRB_OP_LOOKUP, e->key - 1, &r);
    const uint32_t q = r.found ? r.queue : 0;
    if (!best || q < best_q) best = e, best_q = q;
  }
  if (!best || best_q >= cand_queue) return;
  ++s->c[S_PROACTIVE];
  queue_copyback(s, best);
}

/* Candidate seg (queue q, in PCM): migrate it with its batch now if a buffer, quota and DRAM allow, else defer. */
static void migrate(fl_st *s, uint32_t seg, uint32_t q) {
  if (s->ended || map_find(s, seg)) return;
  const int b = free_buffer(s);
  if (b < 0) {
    defer(s, seg, S_DEFER_BUF);
    return;
  }
  const int64_t allow = s->quota_on ? s->budget / FL_SEG : FL_MAX_BATCH;
  if (allow < 1) {
    defer(s, seg, S_DEFER_QUOTA);
    return;
  }
  const uint32_t space = room(s);
  if (!space) {
    if (s->proactive_on) proactive(s, q);
    defer(s, seg, S_DEFER_FULL);
    int fb;
    while (s->out_n && (fb = free_buffer(s)) >= 0) start_copybacks(s, (uint32_t)fb);
    return;
  }
  fl_buf *f = &s->buf[b];
  f->n = 0;
  f->seg[f->n++] = seg;
  uint32_t mask = 0;
  if (s->batch_on) {
    flrb_resp r;
    eng_req(s, FLRB_OP_NEIGH, seg, &r);
    mask = r.mask;
  }
  /* the engine's window is FLRB_ROW_SEGS segments; keep the ones in the candidate's device row */
  const uint32_t base = seg & ~(FLRB_ROW_SEGS - 1u), row0 = seg / s->row_segs * s->row_segs;
  uint32_t limit = s->max_batch;
  if ((uint64_t)limit > (uint64_t)allow) limit = (uint32_t)allow;
  if (limit > space) limit = space;
  int trimmed = 0;
  for (uint32_t k = 0; k < FLRB_ROW_SEGS && mask; ++k) {
    const uint32_t n = base + k;
    if (!((mask >> k) & 1u) || n / s->row_segs * s->row_segs != row0 || map_find(s, n)) continue;
    if (f->n == limit) {
      trimmed = 1;
      break;
    }
    f->seg[f->n++] = n;
  }
  if (trimmed && s->quota_on && (uint64_t)allow < s->max_batch && allow <= space) ++s->c[S_DEFER_QUOTA_TRIM];
  /* segments in address order (the candidate among them), so consecutive ones read in one transfer */
  for (uint32_t i = 1; i < f->n; ++i)
    for (uint32_t j = i; j > 0 && f->seg[j - 1] > f->seg[j]; --j) {
      const uint32_t t = f->seg[j];
      f->seg[j] = f->seg[j - 1];
      f->seg[j - 1] = t;
    }
  take_slots(s, f->n, f->slot);
  for (uint32_t i = 0; i < f->n; ++i) map_add(s, f->seg[i], f->slot[i], W_IN, (uint8_t)b);
  ++s->c[S_BATCHES];
  s->c[S_NEIGHBOURS] += f->n - 1u;
  if (f->n > s->c[S_BATCH_MAX]) s->c[S_BATCH_MAX] = f->n;
  if (s->quota_on) s->budget -= (int64_t)f->n * FL_SEG;
  f->out = 0;
  f->pending = 0;
  f->phase = P_DRAIN;
  read_when_drained(s, (uint32_t)b);
}

/* Deferred candidates whose descriptor still exists and is in PCM, oldest first (with a quantum of 1000 cycles
 * and a lifetime of 150, one deferred to the next quantum has usually been demoted since: it was a candidate). */
static void retry_deferred(fl_st *s) {
  uint32_t n = s->ndefer, list[FL_DEFER];
  memcpy(list, s->defer, n * sizeof *list);
  s->ndefer = 0;
  for (uint32_t i = 0; i < n; ++i) {
    flrb_resp r;
    eng_req(s, FLRB_OP_LOOKUP, list[i], &r);
    if (r.found && !r.clr) migrate(s, list[i], r.queue > s->cand_queue ? r.queue : s->cand_queue);
  }
}

/* Free buffers to work: queued copy-backs first, then deferred candidates. */
static void schedule(fl_st *s) {
  int b;
  while (s->out_n && (b = free_buffer(s)) >= 0) start_copybacks(s, (uint32_t)b);
  if (s->ndefer && !s->ended && free_buffer(s) >= 0) retry_deferred(s);
}

/* Step 5: the buffer's segments switch places; the engine learns their position; held accesses go. */
static void finish(fl_st *s, uint32_t b) {
  fl_buf *f = &s->buf[b];
  for (uint32_t i = 0; i < f->n; ++i) {
    fl_map *e = map_find(s, f->seg[i]);
    flrb_resp r;
    const flrb_req q = {FLRB_OP_SETPOS, f->seg[i], false, false, false, f->out ? false : true, 0};
    const int found = s->eng->exec(s->eng_st, &q, &r) == 1;
    if (f->out) {
      slot_free(s, e->slot);
      map_del(s, e);
      ++s->c[S_COPYBACKS];
    } else {
      e->where = W_DRAM;
      ++s->c[S_PROMOTED];
      if (!found) { /* its descriptor was evicted during the move: back to PCM as an evicted DRAM segment */
        ++s->c[S_EVICT_ORPHAN];
        queue_copyback(s, e);
      }
    }
  }
  s->c[S_MIG_BYTES] += (uint64_t)f->n * FL_SEG;
  f->phase = P_FREE;
  s->env.release(s->env.ctx, b + 1);
  schedule(s);
}

static void fl_done(void *st, uint64_t tag) {
  fl_st *s = (fl_st *)st;
  const uint32_t b = (uint32_t)tag;
  fl_buf *f = &s->buf[b];
  if (--f->pending) return;
  /* the channel this phase used: a migration reads PCM [1] and writes DRAM [0], a copy-back the other way */
  const int on_pcm = (f->phase == P_READ) != f->out;
  s->own_done[on_pcm] += (uint64_t)f->n * FL_SEG;
  if (f->phase == P_READ) {
    f->phase = P_WRITE;
    transfer(s, b, 1);
    return;
  }
  finish(s, b);
}

/* ------------------------------------------------------------------ time: the quota quantum */

static void arm(fl_st *s) {
  if (s->armed || s->ended) return;
  if (s->env.wake(s->env.ctx, s->env.now_ps(s->env.ctx) + s->quantum_ps, 0) != 0) return;
  s->armed = 1;
  s->routed_mark = s->routed;
}

/* Eq. 1-3 for the quantum that starts now: the bytes the migrations may move in it. */
static int64_t quota(fl_st *s) {
  double allow = 0;
  for (int k = 0; k < 2; ++k) {
    const uint32_t d = k ? s->pcm : s->dram;
    double util = s->env.dev_util(s->env.ctx, d, s->quantum_ps) / 65536.0;
    util -= (double)s->own_done[k] / s->peak_q[k]; /* Eq. 1 counts the regular transactions only */
    if (util < 0) util = 0;
    if (util > 1) util = 1;
    const double a = (1.0 - util) * s->peak_q[k]; /* Eq. 3 */
    if (k == 0 || a < allow) allow = a;
    s->own_done[k] = 0;
  }
  return (int64_t)(allow + 0.5);
}

static void fl_wake(void *st, uint64_t now_ps, uint64_t tag) {
  (void)tag;
  fl_st *s = (fl_st *)st;
  s->armed = 0;
  ++s->c[S_QUANTA];
  catch_up(s, now_ps / s->tck_ps);
  s->budget = quota(s);
  s->c[S_QUOTA_BYTES] += (uint64_t)s->budget;
  schedule(s);
  if (s->routed != s->routed_mark || s->ndefer) arm(s); /* accesses came this quantum: keep going */
}

/* The program is done: no more migrations, no wake-up left pending (queued copy-backs still finish). */
static void fl_kernel_boundary(void *st, uint32_t kernel_index, uint8_t last) {
  fl_st *s = (fl_st *)st;
  if (kernel_index == 0) {
    s->c[S_K0_DRAM] = s->k_dram;
    s->c[S_K0_ALL] = s->k_all;
  }
  s->c[S_KL_DRAM] = s->k_dram;
  s->c[S_KL_ALL] = s->k_all;
  s->k_dram = s->k_all = 0;
  ++s->kernels;
  if (!last) return;
  s->ended = 1;
  s->ndefer = 0;
  if (s->armed) (void)s->env.unwake(s->env.ctx, 0);
  s->armed = 0;
}

/* ------------------------------------------------------------------ the request path */

static void fl_locate(const void *st, uint64_t pa, memside_target *out) {
  const fl_st *s = (const fl_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (out->dev != s->pcm) return; /* outside the PCM part: flat */
  const fl_map *e = map_find(s, (uint32_t)(out->addr / FL_SEG));
  if (!e || e->where == W_IN) return; /* at home (a segment moving in is there until the switch) */
  out->addr = s->base + (uint64_t)e->slot * FL_SEG + out->addr % FL_SEG;
  out->dev = s->dram;
  out->kind = AMAP_MEM_DRAM;
}

static unsigned fl_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  fl_locate(st, pa, &t);
  return t.kind;
}

static int fl_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  fl_st *s = (fl_st *)st;
  memside_static_locate(&s->cfg, rq->pa, out);
  if (out->dev != s->pcm) return MEMSIDE_GO; /* outside the PCM part: flat */
  if (*ticket == 0) {
    ++s->routed;
    arm(s);
  }
  const uint32_t seg = (uint32_t)(out->addr / FL_SEG);
  const fl_map *e = map_find(s, seg);
  if (e && (e->where == W_IN || e->where == W_OUT)) {
    ++s->c[S_HOLDS];
    *ticket = e->buf + 1u;
    return MEMSIDE_HOLD;
  }
  if (e) {
    out->addr = s->base + (uint64_t)e->slot * FL_SEG + out->addr % FL_SEG;
    out->dev = s->dram;
    out->kind = AMAP_MEM_DRAM;
  }
  ++s->inflight[seg % FL_BUCKETS];
  return MEMSIDE_GO;
}

/* The device's answer: count the access in the engine (with its row-buffer outcome), act on what it says. */
static void fl_complete(void *st, const memside_req *rq, const memside_target *t) {
  fl_st *s = (fl_st *)st;
  memside_target home;
  memside_static_locate(&s->cfg, rq->pa, &home);
  if (home.dev != s->pcm) return; /* a flat access outside the PCM part */
  const uint32_t seg = (uint32_t)(home.addr / FL_SEG);
  --s->inflight[seg % FL_BUCKETS];
  const int in_dram = t->dev == s->dram, rbm = t->row != MEMSIDE_ROW_HIT;
  ++s->c[in_dram ? (rq->write ? S_WRITES_DRAM : S_READS_DRAM) : (rq->write ? S_WRITES_PCM : S_READS_PCM)];
  s->c[S_RBM] += (uint64_t)rbm;
  s->k_dram += (uint64_t)in_dram;
  ++s->k_all;
  const uint64_t cyc = cycle_now(s);
  catch_up(s, cyc);
  const flrb_req q = {FLRB_OP_ACCESS, seg, rq->write != 0, !in_dram, rbm != 0, false, eng_time(s, cyc)};
  ++s->accesses;
  flrb_resp r;
  s->eng->exec(s->eng_st, &q, &r);
  evicted(s, &r, S_EVICT_CREATE);
  if (r.cand) {
    ++s->c[S_CANDIDATES];
    migrate(s, seg, r.queue);
  }
  for (uint32_t b = 0; b < FL_BUFS; ++b) read_when_drained(s, b);
  if (s->out_n) schedule(s);
}

/* The DRAM part stays the program's when the reserved region lies beyond it (fl_init refuses an offset inside). */
static uint8_t fl_later_parts_flat(const memside_value *param) { return param && param[FL_DRAM_OFFSET].i > 0; }

static int fl_busy(const void *st) {
  const fl_st *s = (const fl_st *)st;
  for (uint32_t b = 0; b < FL_BUFS; ++b)
    if (s->buf[b].phase != P_FREE) return 1;
  return s->out_n != 0;
}

static void fl_stats(const void *st, memside_stats *out) {
  const fl_st *s = (const fl_st *)st;
  out->moves = s->c[S_PROMOTED] + s->c[S_COPYBACKS];
  out->moved_bytes = s->c[S_MIG_BYTES];
  out->remaps = s->c[S_PROMOTED] + s->c[S_COPYBACKS];
}

static void fl_stat_values(const void *st, uint64_t *out) {
  memcpy(out, ((const fl_st *)st)->c, sizeof(uint64_t) * FL_NSTATS);
}

const memside_ops memside_flrb_ops = {
    .name = "flrb",
    .desc = "FLRB parallelism-conscious migration (hybrid DRAM+PCM paper Sec. IV, pc-hw): 256 B segments moved "
            "PCM -> DRAM by the descriptor multi-queue's row-buffer-miss candidates, in batches, within a "
            "bandwidth quota",
    .state_bytes = fl_state_bytes,
    .init = fl_init,
    .locate = fl_locate,
    .route = fl_route,
    .kind_of = fl_kind_of,
    .complete = fl_complete,
    .done = fl_done,
    .wake = fl_wake,
    .kernel_boundary = fl_kernel_boundary,
    .busy = fl_busy,
    .stats = fl_stats,
    .stat_prefix = "flrb",
    .stat_names = fl_stat_names,
    .stat_descs = fl_stat_descs,
    .stat_values = fl_stat_values,
    .stat_derived = fl_derived,
    .params = &fl_params,
    .program_in_first_part = 1,
    .later_parts_flat = fl_later_parts_flat,
};
