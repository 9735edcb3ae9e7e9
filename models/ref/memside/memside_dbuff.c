/* memside_dbuff: the partition's DRAM channel as a set-associative buffer of its PCM channel, with a lazy
 * write queue for the PCM write-backs -- the "Dbuff" design the hybrid DRAM+PCM paper evaluates as its first
 * baseline (shared/papers/hybrid-dram-pcm-flrb-placement.txt Sec. III: "uses DRAM as a buffer of the PCM. To
 * mitigate the write latency of PCM, it employs a write queue to enable lazy-write", after Qureshi et al. [25];
 * Sec. VIII: "DRAM as a set-associative cache that is logically placed between processor and PCM. PCM is
 * accessed when DRAM buffer eviction or buffer miss happens"; Sec. VII-B: block sizes 512 B - 4 KB and 4, 8, 16
 * ways tried, the best is 1 KB, 8-way, this policy's defaults). Config configs/dbuff.toml, docs/hybrid_dram_pcm.md.
 *
 * The partition (memside.partition_channels = 2, Sec. III's adaptation: DRAM and PCM in every partition) has a
 * DRAM device and a PCM device. The program lies in the PCM part of the map (program_in_first_part): every
 * physical line has its static place on PCM. The PCM device's address space is cut into `block`-byte blocks
 * (aligned device-address ranges: with block <= the row, one block is consecutive columns of one row); block
 * b belongs to set b mod sets; the DRAM device's first `size` bytes are sets x ways frames of a block each
 * (frame = set x ways + way, at device address frame x block).
 *
 *  - Hit: the access goes to its line's place in the frame (DRAM); a write marks its 128 B line dirty.
 *  - Miss (read or write: the buffer allocates on both, as [25]'s DRAM buffer holds every page in use): the
 *    least recently used way of the set that no fill is using becomes the block's frame, and the fill
 *      1. holds new accesses to the block and to the victim (route answers HOLD);
 *      2. drains: waits until the accesses already sent to the frame are answered (complete), so no write of
 *         the victim is still on its way;
 *      3. reads the block from PCM (class fill) and, if the victim has dirty lines, the victim from DRAM
 *         (class writeback) into a free entry of the write queue;
 *      4. writes the block into the frame (class fill), then releases the held accesses.
 *    A clean victim is dropped without a transfer (its PCM copy is current).
 *  - Lazy write queue (`write_queue` entries, each a victim's bytes and dirty-line mask): an entry goes to
 *    PCM, its dirty lines only (one transfer per run of consecutive dirty lines: [25] Sec. 4's line-level
 *    write-back; the paper's PCM likewise writes back only dirty row-buffer data, Sec. VI), when the PCM
 *    device's data-bus utilisation over the last drain_ns is at most drain_util ("idle enough"), one entry at a
 *    time; when the queue is full a dirty eviction forces the oldest entry out at once. While entries wait and
 *    PCM is busy the policy asks for one wake-up drain_ns ahead (env->wake; nothing polls). When the program is
 *    done every queued entry is written.
 *  - A miss on a block whose victim copy is still in the write queue holds until that entry is written (it is
 *    written at once if it was still waiting), then fills from PCM: the PCM copy is current again.
 *
 * What the paper leaves open and this file decides: LRU replacement within a set (not given; [25] uses LRU);
 * write-allocate (above); the set index is the block number modulo the sets (no hashing); the queue's size
 * (32) and drain rule (utilisation <= 0.5 over 500 ns, Strata's choice: the paper says only "lazy-write");
 * fills in flight per partition (16, a bound on the policy's buffers); tags are free (no tag-store access is
 * timed: a lookup costs no delay, as in [25]'s evaluation of an ideal tag store).
 */
#include <stdio.h>
#include <string.h>

#include "memside.h"

#define DB_LINE 128u
#define DB_MIN_BLOCK 256u
#define DB_MAX_BLOCK 4096u
#define DB_MAX_WAYS 32u
#define DB_MAX_FILLS 64u
#define DB_MAX_WQ 32u /* with DB_MAX_FILLS: at most 64 x 2 + 32 x 16 transfers outstanding, < MEMSIDE_XFER_SLOTS */

/* The parameters, memside.dbuff.<name>: X(index, name, type, default, min, max, doc). */
#define DB_PARAMS(X)                                                                                              \
  X(DB_SIZE, "size", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 44),                                                \
    "policy dbuff: DRAM buffer bytes per partition; 0: the partition's DRAM part of the map (addrmap.dram_size / "  \
    "DRAM channels: the paper's 256 MB, Sec. VI)")                                                                \
  X(DB_BLOCK, "block", MEMSIDE_P_SIZE, "1KiB", DB_MIN_BLOCK, DB_MAX_BLOCK,                                        \
    "policy dbuff: buffer block bytes, a power of two: the unit of fill and replacement (paper Sec. VII-B: 512 B "  \
    "to 4 KB tried, 1 KB best)")                                                                                  \
  X(DB_WAYS, "ways", MEMSIDE_P_INT, "8", 1, DB_MAX_WAYS,                                                          \
    "policy dbuff: associativity of the DRAM buffer (paper Sec. VII-B: 4, 8, 16 tried, 8 best)")                  \
  X(DB_WQ, "write_queue", MEMSIDE_P_INT, "32", 1, DB_MAX_WQ,                                                      \
    "policy dbuff: entries of the lazy write queue, dirty victims waiting to be written to PCM (Sec. III, after "  \
    "[25]; the size is Strata's choice)")                                                                         \
  X(DB_DRAIN_UTIL, "drain_util", MEMSIDE_P_FLOAT, "0.5", 0, 1,                                                    \
    "policy dbuff: a queued write-back goes to PCM when the PCM channel's data-bus utilisation over the last "    \
    "drain_ns is at most this (a full queue drains regardless)")                                                  \
  X(DB_DRAIN_NS, "drain_ns", MEMSIDE_P_FLOAT, "500", 1, 1e9,                                                      \
    "policy dbuff: window of that utilisation and period of the re-check while write-backs wait, ns")            \
  X(DB_FILLS, "fills", MEMSIDE_P_INT, "16", 1, DB_MAX_FILLS,                                                      \
    "policy dbuff: block fills (PCM -> DRAM) in flight per partition; a miss beyond them waits")

enum {
#define X(id, nm, ty, def, lo, hi, doc) id,
  DB_PARAMS(X)
#undef X
  DB_NPARAMS
};

static const memside_param db_param[] = {
#define X(id, nm, ty, def, lo, hi, doc) {nm, ty, def, lo, hi, NULL, doc, "dbuff", NULL},
    DB_PARAMS(X)
#undef X
};

static const memside_params db_params = {"memside.dbuff.", db_param, DB_NPARAMS, NULL};

/* The policy's counters, dbuff.<name> (summed) and memside.p<N>.dbuff.<name>. */
#define DB_STATS(X)                                                                                               \
  X(S_READ_HITS, "read_hits", "L2 reads whose block was in the DRAM buffer when they arrived")                    \
  X(S_WRITE_HITS, "write_hits", "L2 write-backs whose block was in the DRAM buffer when they arrived")             \
  X(S_READ_MISSES, "read_misses", "L2 reads whose block was not in the DRAM buffer (or was being filled)")         \
  X(S_WRITE_MISSES, "write_misses", "L2 write-backs whose block was not in the DRAM buffer (or was being filled)") \
  X(S_FILLS, "fills", "blocks read from PCM and written into a DRAM frame")                                      \
  X(S_FILL_BYTES, "fill_bytes", "bytes of those fills (each read from PCM and written to DRAM)")                   \
  X(S_CLEAN_EVICT, "clean_evictions", "victim blocks without dirty lines, dropped without a transfer")             \
  X(S_DIRTY_EVICT, "dirty_evictions", "victim blocks with dirty lines, read from DRAM into the write queue")        \
  X(S_WB_BYTES, "writeback_bytes", "bytes the write queue wrote to PCM (dirty lines only)")                       \
  X(S_WB_LINES, "writeback_lines", "128 B lines the write queue wrote to PCM")                                    \
  X(S_DRAIN_IDLE, "drains_idle", "write-queue entries written because PCM was idle enough")                        \
  X(S_DRAIN_FULL, "drains_full", "write-queue entries written at once because the queue was full")                 \
  X(S_DRAIN_CONFLICT, "drains_conflict", "write-queue entries written at once because a miss wanted their block")  \
  X(S_DRAIN_END, "drains_end", "write-queue entries written when the program was done")                            \
  X(S_HOLDS, "holds", "times an access was held (its block or victim in a fill, no fill slot or free way, queue full)") \
  X(S_DRAIN_WAKES, "drain_wakes", "wake-ups that re-checked PCM's utilisation for waiting write-backs")

enum {
#define X(id, nm, desc) id,
  DB_STATS(X)
#undef X
  DB_NSTATS
};

static const char *const db_stat_names[] = {
#define X(id, nm, desc) nm,
    DB_STATS(X)
#undef X
    NULL};
static const char *const db_stat_descs[] = {
#define X(id, nm, desc) desc,
    DB_STATS(X)
#undef X
    NULL};

#define B(i) (1ull << (i))
#define DB_ACCESSES (B(S_READ_HITS) | B(S_WRITE_HITS) | B(S_READ_MISSES) | B(S_WRITE_MISSES))
static const memside_derived db_derived[] = {
    {"hit_rate", "accesses whose block was in the DRAM buffer / all accesses", B(S_READ_HITS) | B(S_WRITE_HITS),
     DB_ACCESSES},
    {"miss_rate", "DRAM buffer misses / all accesses (the paper's dcm, Table IV)",
     B(S_READ_MISSES) | B(S_WRITE_MISSES), DB_ACCESSES},
    {"writes_redirected_to_dram", "L2 write-backs that found their block in DRAM / all L2 write-backs",
     B(S_WRITE_HITS), B(S_WRITE_HITS) | B(S_WRITE_MISSES)},
    {"dirty_eviction_share", "dirty victims / all victims", B(S_DIRTY_EVICT), B(S_CLEAN_EVICT) | B(S_DIRTY_EVICT)},
    {NULL, NULL, 0, 0}};
#undef B

/* Tickets of held accesses: a fill slot k + 1, a write-queue entry DB_T_WQ + q, or DB_T_WAIT (a free fill slot,
 * way or queue entry). */
#define DB_T_WQ (DB_MAX_FILLS + 1u)
#define DB_T_WAIT (DB_T_WQ + DB_MAX_WQ)

/* Transfer tags: kind << 32 | slot or entry. */
enum { TAG_FILL_READ = 1, TAG_VICTIM_READ = 2, TAG_FILL_WRITE = 3, TAG_WQ_WRITE = 4 };

/* One way of a set: the block it holds, its dirty lines, the accesses sent to it not yet answered. */
typedef struct db_way {
  uint32_t tag;      /* block number + 1; 0: empty */
  uint32_t dirty;    /* bit i: line i of the block written since the fill */
  uint32_t inflight; /* accesses routed to the frame and not yet answered */
  uint8_t fill;      /* fill slot + 1 while the frame is being filled (and its victim evicted); 0: ready */
  uint8_t age;       /* LRU rank in the set: 0 most recent, ways - 1 least */
} db_way;

enum db_fill_phase { F_FREE, F_DRAIN, F_READ, F_WRITE };
enum db_wq_state { Q_FREE, Q_LOADING, Q_QUEUED, Q_WRITING };

typedef struct db_fill {
  uint64_t blk;      /* the block filled */
  uint64_t victim;   /* the victim's block + 1, 0: none (an empty way) */
  uint32_t frame;    /* set x ways + way */
  int32_t wq;        /* write-queue entry of a dirty victim, -1 */
  uint8_t phase;     /* enum db_fill_phase */
  uint8_t pending;   /* transfers outstanding */
  unsigned char buf[DB_MAX_BLOCK];
} db_fill;

typedef struct db_wq {
  uint64_t blk;      /* the victim's block */
  uint64_t seq;      /* queue order: oldest first */
  uint32_t dirty;    /* its dirty lines */
  uint8_t state;     /* enum db_wq_state */
  uint16_t pending;  /* transfers outstanding */
  unsigned char buf[DB_MAX_BLOCK];
} db_wq;

typedef struct db_st {
  memside_cfg cfg;
  memside_env env;
  uint32_t dram, pcm;          /* device indices */
  uint32_t block, lines, ways, nfills, nwq;
  uint64_t sets, blocks_max;   /* sets; PCM blocks a tag can name */
  uint32_t drain_util_q16;
  uint64_t drain_ps;
  uint64_t seq;
  int armed, ended;            /* a drain wake-up is pending; the program is done */
  uint32_t waiters;            /* accesses held with DB_T_WAIT since the last release of them */
  db_fill fill[DB_MAX_FILLS];
  db_wq wq[DB_MAX_WQ];
  uint64_t c[DB_NSTATS];
  /* followed by the ways: sets x ways db_way */
} db_st;

static db_way *ways_of(const db_st *s) { return (db_way *)(void *)((char *)(uintptr_t)s + sizeof(db_st)); }

static uint64_t size_of(const memside_cfg *cfg) {
  if (cfg->param && cfg->param[DB_SIZE].i) return (uint64_t)cfg->param[DB_SIZE].i;
  for (uint32_t k = 0; k < cfg->map->nparts; ++k) /* the DRAM part of the map, per channel serving it */
    if (cfg->map->part[k].mem == AMAP_MEM_DRAM && cfg->map->part[k].nch)
      return cfg->map->part[k].bytes / cfg->map->part[k].nch;
  return 0;
}

static uint64_t frames_of(const memside_cfg *cfg) {
  if (!cfg->param) return 0;
  const uint64_t block = (uint64_t)cfg->param[DB_BLOCK].i, ways = (uint64_t)cfg->param[DB_WAYS].i;
  if (!block || !ways) return 0;
  return size_of(cfg) / block / ways * ways;
}

static size_t db_state_bytes(const memside_cfg *cfg) {
  const uint64_t frames = frames_of(cfg);
  return sizeof(db_st) + (size_t)(frames <= (1ull << 32) ? frames : 0) * sizeof(db_way);
}

static int pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* The partition's DRAM device and PCM (NVM) device, one kind each. */
static int find_devices(db_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  int dd = -1, pd = -1;
  for (uint32_t d = 0; d < cfg->ndevs && d < MEMSIDE_MAX_DEVS; ++d) {
    const unsigned k = cfg->rank_kind[d][0];
    for (uint32_t r = 1; r < cfg->geom[d].ranks && r < AMAP_MAX_RANKS; ++r)
      if (cfg->rank_kind[d][r] != k) {
        snprintf(err, errlen, "memside.policy = dbuff: expected one memory kind per channel of a partition "
                              "(mem.channel_devices with memside.partition_channels = 2), got a mixed channel");
        return -1;
      }
    if (k == AMAP_MEM_DRAM && dd < 0) dd = (int)d;
    else if ((k == AMAP_MEM_NVM || k == AMAP_MEM_SCM) && pd < 0) pd = (int)d;
  }
  if (dd < 0 || pd < 0) {
    snprintf(err, errlen, "memside.policy = dbuff: expected a DRAM channel and a PCM channel in every memory "
                          "partition (mem.channel_devices = \"ddr3_800, pcm_flrb\", memside.partition_channels = 2)");
    return -1;
  }
  s->dram = (uint32_t)dd;
  s->pcm = (uint32_t)pd;
  return 0;
}

static int db_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  db_st *s = (db_st *)st;
  if (!cfg->param) {
    snprintf(err, errlen, "memside.dbuff: the policy's parameter values are missing (memside_cfg.param)");
    return -1;
  }
  const uint64_t block = (uint64_t)cfg->param[DB_BLOCK].i, ways = (uint64_t)cfg->param[DB_WAYS].i;
  const uint64_t size = size_of(cfg), frames = frames_of(cfg);
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->cfg.param = NULL; /* valid during init only */
  s->env = *env;
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  if (!pow2(block) || block < DB_MIN_BLOCK || block > DB_MAX_BLOCK) {
    snprintf(err, errlen, "memside.dbuff.block: expected a power of two from %u to %u bytes, got %llu", DB_MIN_BLOCK,
             DB_MAX_BLOCK, (unsigned long long)block);
    return -1;
  }
  if (find_devices(s, cfg, err, errlen) != 0) return -1;
  const amap *m = cfg->map;
  if (m->nparts < 2 || m->part[0].mem == AMAP_MEM_DRAM || !m->part[0].bytes || !m->part[0].nch) {
    snprintf(err, errlen, "memside.policy = dbuff: expected the PCM part of the map first and bounded, then the "
                          "DRAM part (addrmap.part_order = \"nvm, dram\", addrmap.nvm_size > 0)");
    return -1;
  }
  const uint64_t pcm_bytes = m->part[0].bytes / m->part[0].nch;
  uint64_t dram_bytes = 0;
  for (uint32_t k = 1; k < m->nparts; ++k)
    if (m->part[k].mem == AMAP_MEM_DRAM && m->part[k].nch) dram_bytes = m->part[k].bytes / m->part[k].nch;
  if (!frames || frames > (1ull << 30) || (dram_bytes && size > dram_bytes)) {
    snprintf(err, errlen, "memside.dbuff.size: expected at least one set (%llu B) and at most the partition's DRAM "
             "(%llu B per channel, addrmap.dram_size / channels), got %llu B", (unsigned long long)(block * ways),
             (unsigned long long)dram_bytes, (unsigned long long)size);
    return -1;
  }
  if (size >= pcm_bytes) {
    snprintf(err, errlen, "memside.dbuff.size: expected a DRAM buffer smaller than the PCM it buffers (%llu B per "
             "channel), got %llu B", (unsigned long long)pcm_bytes, (unsigned long long)size);
    return -1;
  }
  s->block = (uint32_t)block;
  s->lines = s->block / DB_LINE;
  s->ways = (uint32_t)ways;
  s->sets = frames / ways;
  s->blocks_max = pcm_bytes / block;
  if (s->blocks_max >= UINT32_MAX) {
    snprintf(err, errlen, "memside.dbuff.block: expected fewer than 2^32 blocks of PCM per channel, got %llu",
             (unsigned long long)s->blocks_max);
    return -1;
  }
  s->nwq = (uint32_t)cfg->param[DB_WQ].i;
  s->nfills = (uint32_t)cfg->param[DB_FILLS].i;
  s->drain_util_q16 = (uint32_t)(cfg->param[DB_DRAIN_UTIL].f * 65536.0 + 0.5);
  s->drain_ps = (uint64_t)(cfg->param[DB_DRAIN_NS].f * 1000.0 + 0.5);
  db_way *w = ways_of(s);
  memset(w, 0, (size_t)frames * sizeof *w);
  for (uint64_t f = 0; f < frames; ++f) w[f].age = (uint8_t)(f % ways);
  for (uint32_t k = 0; k < DB_MAX_FILLS; ++k) s->fill[k].wq = -1;
  return 0;
}

/* --------------------------------------------------------------- lookup */

/* The block and offset of a PCM device address. */
static uint64_t block_of(const db_st *s, uint64_t pcm_addr) { return pcm_addr / s->block; }

/* The frame holding block b (any state), or -1. */
static int64_t find_frame(const db_st *s, uint64_t b) {
  const uint64_t set = b % s->sets;
  const db_way *w = ways_of(s) + set * s->ways;
  for (uint32_t i = 0; i < s->ways; ++i)
    if (w[i].tag == (uint32_t)(b + 1)) return (int64_t)(set * s->ways + i);
  return -1;
}

/* Way `frame` becomes the most recent of its set. */
static void touch(db_st *s, uint64_t frame) {
  db_way *w = ways_of(s) + frame / s->ways * s->ways, *me = ways_of(s) + frame;
  const uint8_t a = me->age;
  for (uint32_t i = 0; i < s->ways; ++i)
    if (w[i].age < a) ++w[i].age;
  me->age = 0;
}

/* The frame's place for a line at `off` in its block, as a target on the DRAM device. */
static void frame_target(const db_st *s, uint64_t frame, uint64_t off, memside_target *out) {
  out->dev = s->dram;
  out->addr = frame * s->block + off;
  out->kind = AMAP_MEM_DRAM;
  out->mirror = 0;
}

static void db_locate(const void *st, uint64_t pa, memside_target *out) {
  const db_st *s = (const db_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (out->dev != s->pcm) return; /* outside the PCM part: flat (the platform keeps programs out of it) */
  const int64_t f = find_frame(s, block_of(s, out->addr));
  if (f >= 0 && !ways_of(s)[f].fill) frame_target(s, (uint64_t)f, out->addr % s->block, out);
}

static unsigned db_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  db_locate(st, pa, &t);
  return t.kind;
}

/* ------------------------------------------------------- the write queue */

static int issue(db_st *s, uint32_t dev, uint64_t addr, uint32_t bytes, int write, uint8_t cls, unsigned char *buf,
                 unsigned kind, uint32_t idx) {
  const memside_xfer x = {dev, addr, bytes, (uint8_t)write, cls, buf, ((uint64_t)kind << 32) | idx};
  /* at most DB_MAX_FILLS x 2 + DB_MAX_WQ x 16 (runs of dirty lines) outstanding: the shell never refuses */
  return s->env.issue(s->env.ctx, &x) == 0;
}

/* Entry q to PCM: one write per run of consecutive dirty lines. */
static void write_entry(db_st *s, uint32_t q, int why) {
  db_wq *e = &s->wq[q];
  e->state = Q_WRITING;
  ++s->c[why];
  const uint64_t base = e->blk * s->block;
  for (uint32_t i = 0; i < s->lines;) {
    if (!((e->dirty >> i) & 1u)) {
      ++i;
      continue;
    }
    uint32_t j = i;
    while (j < s->lines && ((e->dirty >> j) & 1u)) ++j;
    const uint32_t bytes = (j - i) * DB_LINE;
    if (issue(s, s->pcm, base + (uint64_t)i * DB_LINE, bytes, 1, MEMSIDE_WRITEBACK, e->buf + i * DB_LINE,
              TAG_WQ_WRITE, q))
      ++e->pending;
    s->c[S_WB_BYTES] += bytes;
    s->c[S_WB_LINES] += j - i;
    i = j;
  }
}

/* The oldest queued entry, or -1; *writing: entries being written; *used: entries not free. */
static int oldest_queued(const db_st *s, uint32_t *writing, uint32_t *used) {
  int best = -1;
  *writing = *used = 0;
  for (uint32_t q = 0; q < s->nwq; ++q) {
    const db_wq *e = &s->wq[q];
    if (e->state != Q_FREE) ++*used;
    if (e->state == Q_WRITING) ++*writing;
    if (e->state == Q_QUEUED && (best < 0 || e->seq < s->wq[best].seq)) best = (int)q;
  }
  return best;
}

/* Lazy drain: the oldest waiting entry goes to PCM when PCM is idle enough and no other is being written; all
 * of them once the program is done. Otherwise one wake-up drain_ns ahead re-checks. */
static void drain(db_st *s) {
  for (;;) {
    uint32_t writing, used;
    const int q = oldest_queued(s, &writing, &used);
    if (q < 0) return;
    if (s->ended) {
      write_entry(s, (uint32_t)q, S_DRAIN_END);
      continue;
    }
    if (writing) return; /* its completion drains the next */
    if (s->env.dev_util(s->env.ctx, s->pcm, s->drain_ps) <= s->drain_util_q16) {
      write_entry(s, (uint32_t)q, S_DRAIN_IDLE);
      return;
    }
    if (!s->armed && s->env.wake(s->env.ctx, s->env.now_ps(s->env.ctx) + s->drain_ps, 0) == 0) s->armed = 1;
    return;
  }
}

static void db_wake(void *st, uint64_t now_ps, uint64_t tag) {
  (void)now_ps;
  (void)tag;
  db_st *s = (db_st *)st;
  s->armed = 0;
  ++s->c[S_DRAIN_WAKES];
  drain(s);
}

/* The program is done: no lazy waiting, every queued write-back goes to PCM, no wake-up left pending. */
static void db_kernel_boundary(void *st, uint32_t kernel_index, uint8_t last) {
  (void)kernel_index;
  db_st *s = (db_st *)st;
  if (!last) return;
  s->ended = 1;
  if (s->armed) (void)s->env.unwake(s->env.ctx, 0);
  s->armed = 0;
  drain(s);
}

/* --------------------------------------------------------------- fills */

/* Step 3 once step 2 is over: the block from PCM and a dirty victim from DRAM. */
static void read_when_drained(db_st *s, uint32_t k) {
  db_fill *f = &s->fill[k];
  if (f->phase != F_DRAIN || ways_of(s)[f->frame].inflight) return;
  f->phase = F_READ;
  if (issue(s, s->pcm, f->blk * s->block, s->block, 0, MEMSIDE_FILL, f->buf, TAG_FILL_READ, k)) ++f->pending;
  if (f->wq >= 0 &&
      issue(s, s->dram, (uint64_t)f->frame * s->block, s->block, 0, MEMSIDE_WRITEBACK, s->wq[f->wq].buf,
            TAG_VICTIM_READ, k))
    ++f->pending;
}

/* Steps 1-2 for block b in a free slot k, way `frame` (the set's LRU way no fill uses). */
static void start_fill(db_st *s, uint32_t k, uint64_t b, uint64_t frame, int wq) {
  db_way *w = ways_of(s) + frame;
  db_fill *f = &s->fill[k];
  f->blk = b;
  f->victim = w->tag;
  f->frame = (uint32_t)frame;
  f->wq = wq;
  f->pending = 0;
  f->phase = F_DRAIN;
  if (w->tag) ++s->c[w->dirty ? S_DIRTY_EVICT : S_CLEAN_EVICT];
  if (wq >= 0) {
    db_wq *e = &s->wq[wq];
    e->blk = w->tag - 1u;
    e->dirty = w->dirty;
    e->state = Q_LOADING;
    e->pending = 0;
  }
  w->tag = (uint32_t)(b + 1);
  w->dirty = 0;
  w->fill = (uint8_t)(k + 1);
  touch(s, frame);
  read_when_drained(s, k);
}

static void release_waiters(db_st *s) {
  if (!s->waiters) return;
  s->waiters = 0;
  s->env.release(s->env.ctx, DB_T_WAIT);
}

static void db_done(void *st, uint64_t tag) {
  db_st *s = (db_st *)st;
  const unsigned kind = (unsigned)(tag >> 32);
  const uint32_t idx = (uint32_t)tag;
  if (kind == TAG_WQ_WRITE) {
    db_wq *e = &s->wq[idx];
    if (--e->pending) return;
    e->state = Q_FREE;
    s->env.release(s->env.ctx, DB_T_WQ + idx);
    release_waiters(s);
    drain(s);
    return;
  }
  db_fill *f = &s->fill[idx];
  if (--f->pending) return;
  if (f->phase == F_READ) { /* step 4: the block into its frame; the victim waits in the queue */
    if (f->wq >= 0) {
      s->wq[f->wq].state = Q_QUEUED;
      s->wq[f->wq].seq = s->seq++;
    }
    f->phase = F_WRITE;
    if (issue(s, s->dram, (uint64_t)f->frame * s->block, s->block, 1, MEMSIDE_FILL, f->buf, TAG_FILL_WRITE, idx))
      ++f->pending;
    if (f->wq >= 0) drain(s);
    return;
  }
  ways_of(s)[f->frame].fill = 0;
  ++s->c[S_FILLS];
  s->c[S_FILL_BYTES] += s->block;
  f->phase = F_FREE;
  f->wq = -1;
  s->env.release(s->env.ctx, idx + 1);
  release_waiters(s);
}

/* ---------------------------------------------------------- the request path */

static int hold(db_st *s, uint32_t *ticket, uint32_t t) {
  ++s->c[S_HOLDS];
  if (t == DB_T_WAIT) ++s->waiters;
  *ticket = t;
  return MEMSIDE_HOLD;
}

/* A miss on block b (not in the buffer): hold the access and start its fill if a slot, a way and (for a dirty
 * victim) a queue entry are free; otherwise hold it until one is. */
static int miss(db_st *s, uint64_t b, uint32_t *ticket) {
  for (uint32_t k = 0; k < s->nfills; ++k) /* the block is a victim being evicted */
    if (s->fill[k].phase != F_FREE && s->fill[k].victim == b + 1) return hold(s, ticket, k + 1);
  for (uint32_t q = 0; q < s->nwq; ++q) /* its dirty copy still waits to go to PCM: write it first */
    if (s->wq[q].state != Q_FREE && s->wq[q].blk == b) {
      if (s->wq[q].state == Q_QUEUED) write_entry(s, q, S_DRAIN_CONFLICT);
      return hold(s, ticket, DB_T_WQ + q);
    }
  int k = -1;
  for (uint32_t j = 0; j < s->nfills && k < 0; ++j)
    if (s->fill[j].phase == F_FREE) k = (int)j;
  if (k < 0) return hold(s, ticket, DB_T_WAIT);
  const uint64_t set = b % s->sets;
  const db_way *w = ways_of(s) + set * s->ways;
  int v = -1;
  for (uint32_t i = 0; i < s->ways; ++i) /* the least recent way no fill uses */
    if (!w[i].fill && (v < 0 || w[i].age > w[v].age)) v = (int)i;
  if (v < 0) return hold(s, ticket, DB_T_WAIT);
  int q = -1;
  if (w[v].tag && w[v].dirty) {
    uint32_t writing, used;
    for (uint32_t j = 0; j < s->nwq && q < 0; ++j)
      if (s->wq[j].state == Q_FREE) q = (int)j;
    if (q < 0) { /* the queue is full: its oldest entry goes now, the miss waits */
      const int o = oldest_queued(s, &writing, &used);
      if (o >= 0) write_entry(s, (uint32_t)o, S_DRAIN_FULL);
      return hold(s, ticket, DB_T_WAIT);
    }
  }
  start_fill(s, (uint32_t)k, b, set * s->ways + (uint64_t)v, q);
  return hold(s, ticket, (uint32_t)k + 1);
}

static int db_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  db_st *s = (db_st *)st;
  const int first = *ticket == 0;
  memside_static_locate(&s->cfg, rq->pa, out);
  if (out->dev != s->pcm) return MEMSIDE_GO; /* outside the PCM part: flat */
  const uint64_t b = block_of(s, out->addr), off = out->addr % s->block;
  const int64_t f = find_frame(s, b);
  if (f >= 0 && !ways_of(s)[f].fill) { /* in the buffer */
    db_way *w = ways_of(s) + f;
    if (first) ++s->c[rq->write ? S_WRITE_HITS : S_READ_HITS];
    if (rq->write) w->dirty |= 1u << (off / DB_LINE);
    ++w->inflight;
    touch(s, (uint64_t)f);
    frame_target(s, (uint64_t)f, off, out);
    return MEMSIDE_GO;
  }
  if (first) ++s->c[rq->write ? S_WRITE_MISSES : S_READ_MISSES];
  if (f >= 0) return hold(s, ticket, ways_of(s)[f].fill); /* being filled */
  return miss(s, b, ticket);
}

static void db_complete(void *st, const memside_req *rq, const memside_target *t) {
  db_st *s = (db_st *)st;
  if (t->dev != s->dram) return;
  memside_target home;
  memside_static_locate(&s->cfg, rq->pa, &home);
  if (home.dev != s->pcm) return; /* a flat access outside the PCM part */
  const uint64_t frame = t->addr / s->block;
  db_way *w = ways_of(s) + frame;
  if (w->inflight) --w->inflight;
  if (!w->inflight && w->fill) read_when_drained(s, w->fill - 1u);
}

static int db_busy(const void *st) {
  const db_st *s = (const db_st *)st;
  for (uint32_t k = 0; k < s->nfills; ++k)
    if (s->fill[k].phase != F_FREE) return 1;
  for (uint32_t q = 0; q < s->nwq; ++q)
    if (s->wq[q].state != Q_FREE) return 1;
  return 0;
}

static void db_stats(const void *st, memside_stats *out) {
  const db_st *s = (const db_st *)st;
  out->moves = s->c[S_FILLS] + s->c[S_DRAIN_IDLE] + s->c[S_DRAIN_FULL] + s->c[S_DRAIN_CONFLICT] + s->c[S_DRAIN_END];
  out->moved_bytes = s->c[S_FILL_BYTES] + s->c[S_WB_BYTES];
  out->remaps = s->c[S_FILLS];
}

static void db_stat_values(const void *st, uint64_t *out) {
  memcpy(out, ((const db_st *)st)->c, sizeof(uint64_t) * DB_NSTATS);
}

const memside_ops memside_dbuff_ops = {
    .name = "dbuff",
    .desc = "Dbuff (hybrid DRAM+PCM paper Sec. III, after Qureshi et al.): DRAM as a set-associative buffer of PCM "
            "with a lazy write queue",
    .state_bytes = db_state_bytes,
    .init = db_init,
    .locate = db_locate,
    .route = db_route,
    .kind_of = db_kind_of,
    .complete = db_complete,
    .done = db_done,
    .wake = db_wake,
    .kernel_boundary = db_kernel_boundary,
    .busy = db_busy,
    .stats = db_stats,
    .stat_prefix = "dbuff",
    .stat_names = db_stat_names,
    .stat_descs = db_stat_descs,
    .stat_values = db_stat_values,
    .stat_derived = db_derived,
    .params = &db_params,
    .program_in_first_part = 1,
};
