/* memside_hostpage: pages start in host memory; hot ones move into device DRAM.
 *
 * The worked example of docs/extending.md: a memory-side policy that declares
 * its own parameters (HP_PARAMS below, memside.hostpage.*), sees time (a
 * periodic wake-up), hears the devices (row-buffer outcome and service time in
 * complete()), shares state with the other partitions (the GPU-wide manager,
 * memside_mgr.h) and reaches host memory over a link (hostpath.link).
 *
 *  - Placement. Every page of the program starts in host memory, the last
 *    device of each partition (docs/architecture.md "Host path"). Device DRAM
 *    holds only pages the policy promoted, each line at the place the static
 *    map gives it (memside_static_locate).
 *  - Counting. Every access of the L2 adds 1 to its 4 KiB page's counter in
 *    the manager, whichever partition routes it: under the line interleave a
 *    page spans every partition, and all of them see one count.
 *  - Promotion. An access to a page still on the host that finds the page's
 *    GPU-wide count at `threshold` or above starts the promotion of this
 *    partition's lines of the page (its part; each partition moves its own):
 *      1. new accesses to the page are held (route answers HOLD);
 *      2. accesses already sent to the host are waited for (complete), so no
 *         write-back still on its way lands after the copy;
 *      3. the part is read from the host in one transfer over the link
 *         (class page_in);
 *      4. it is written to DRAM, one transfer per device-contiguous run;
 *      5. the mapping switches (the page is in the partition's promotion
 *         table) and the held accesses are released.
 *    At most HP_SLOTS promotions per partition are in flight; a partition
 *    promotes at most `max_pages` pages; with a migration budget in the
 *    manager (memside.mgr.quantum_ns) each promotion asks it for its bytes.
 *    Pages never move back.
 *  - Decay. Partition 0 asks for a wake-up `decay_ns` ahead while accesses
 *    come (one timer event per period; after a period without any access in
 *    any partition it stops asking until its next access; when the program is
 *    done it drops the pending one, so the timer never lengthens a run) and
 *    halves every page counter then (memside_mgr_decay), so the count
 *    measures recent use.
 *  - Feedback. complete() carries the device's row-buffer outcome and service
 *    time; the policy counts them for the accesses DRAM served (row_hits,
 *    row_misses, row_conflicts, dram_latency_ps) and the host's service time
 *    (host_latency_ps).
 *
 * Host layout. The host copy of a page sits at the page's physical address
 * with its lines grouped by partition (partition order, each group in address
 * order), so a partition's part is one contiguous host range and its
 * promotion one transfer over the link. Every partition computes the layout
 * from the static map (the page's 32 lines decoded), so none overlaps
 * another's. hostpath.size must cover the program's highest page.
 *
 * Accesses in flight to the host are counted per bucket of pages (a hash of
 * the page number, HP_BUCKETS of them): a promotion waits for its bucket to
 * drain and holds the bucket's new host accesses meanwhile, so it never waits
 * for ever; a bucket shared with another page only delays that page briefly.
 */
#include <stdio.h>
#include <string.h>

#include "memside.h"
#include "memside_mgr.h"

#define HP_PAGE MGR_PAGE_BYTES
#define HP_LINE 128u
#define HP_LINES (HP_PAGE / HP_LINE) /* 32: one bit each in a uint32_t mask */
#define HP_SLOTS 4u
#define HP_BUCKETS 1024u
#define HP_MAX_PAGES 4194304

/* The parameters, memside.hostpage.<name>: X(index, name, type, default, min, max, doc). */
#define HP_PARAMS(X)                                                                                            \
  X(HP_THRESHOLD, "threshold", MEMSIDE_P_INT, "16", 2, 1e9,                                                     \
    "policy hostpage: a page moves from host memory into device DRAM once its GPU-wide access count reaches "   \
    "this (the counters halve every decay_ns, so: accesses in the last few periods)")                          \
  X(HP_DECAY_NS, "decay_ns", MEMSIDE_P_FLOAT, "2000", 1, 1e9,                                                   \
    "policy hostpage: period of the page counters' decay, ns of simulated time (each period halves them)")     \
  X(HP_MAXPAGES, "max_pages", MEMSIDE_P_INT, "16384", 1, HP_MAX_PAGES,                                          \
    "policy hostpage: pages each partition may promote (its part of each); later hot pages stay on the host")

enum {
#define X(id, nm, ty, def, lo, hi, doc) id,
  HP_PARAMS(X)
#undef X
  HP_NPARAMS
};

static const memside_param hp_param[] = {
#define X(id, nm, ty, def, lo, hi, doc) {nm, ty, def, lo, hi, NULL, doc, "hostpage", NULL},
    HP_PARAMS(X)
#undef X
};

static const memside_params hp_params = {"memside.hostpage.", hp_param, HP_NPARAMS, NULL};

/* The policy's counters, hostpage.<name> (summed) and memside.p<N>.hostpage.<name>. */
#define HP_STATS(X)                                                                                 \
  X(S_HOST_READS, "host_reads", "L2 reads served by host memory (over the link)")                  \
  X(S_HOST_WRITES, "host_writes", "L2 write-backs served by host memory")                         \
  X(S_HOST_READ_BYTES, "host_read_bytes", "bytes of the L2 reads served by host memory (sectors)") \
  X(S_HOST_WRITE_BYTES, "host_write_bytes", "bytes of the L2 write-backs to host memory (sectors)") \
  X(S_HOST_LAT, "host_latency_ps", "sum of the host path's service times of those accesses, ps")   \
  X(S_DRAM_READS, "dram_reads", "L2 reads served by device DRAM (promoted pages)")                 \
  X(S_DRAM_WRITES, "dram_writes", "L2 write-backs served by device DRAM")                          \
  X(S_DRAM_READ_BYTES, "dram_read_bytes", "bytes of the L2 reads served by device DRAM (sectors)") \
  X(S_DRAM_WRITE_BYTES, "dram_write_bytes", "bytes of the L2 write-backs to device DRAM (sectors)") \
  X(S_DRAM_LAT, "dram_latency_ps", "sum of the device controllers' service times of those accesses, ps") \
  X(S_ROW_HITS, "row_hits", "DRAM-served accesses whose column accesses all hit an open row (device feedback)") \
  X(S_ROW_MISSES, "row_misses", "DRAM-served accesses that opened a row in an idle bank (device feedback)") \
  X(S_ROW_CONFLICTS, "row_conflicts", "DRAM-served accesses that closed another row first (device feedback)") \
  X(S_PROMOTIONS, "promotions", "pages whose part in this partition moved from host memory into DRAM")       \
  X(S_PROMOTED_BYTES, "promoted_bytes", "bytes those promotions read from the host and wrote to DRAM (each)") \
  X(S_FULL, "full", "promotions not started: the partition's max_pages are promoted or in flight")           \
  X(S_DENIED, "denied", "promotions not started: the manager's migration budget refused their bytes")        \
  X(S_FIRST_TOUCHES, "first_touches", "accesses that found no GPU-wide counter for their page and created it") \
  X(S_HELD, "held", "accesses held while their page (or a page of its bucket) was being promoted")           \
  X(S_DECAYS, "decays", "timer wake-ups that halved the GPU-wide page counters (partition 0)")

enum {
#define X(id, nm, desc) id,
  HP_STATS(X)
#undef X
  HP_NSTATS
};

static const char *const hp_stat_names[] = {
#define X(id, nm, desc) nm,
    HP_STATS(X)
#undef X
    NULL};
static const char *const hp_stat_descs[] = {
#define X(id, nm, desc) desc,
    HP_STATS(X)
#undef X
    NULL};

#define B(i) (1ull << (i))
static const memside_derived hp_derived[] = {
    {"row_hit_rate", "row hits / accesses served by device DRAM (the devices' feedback)", B(S_ROW_HITS),
     B(S_DRAM_READS) | B(S_DRAM_WRITES)},
    {"host_share", "accesses served by host memory / all accesses routed", B(S_HOST_READS) | B(S_HOST_WRITES),
     B(S_HOST_READS) | B(S_HOST_WRITES) | B(S_DRAM_READS) | B(S_DRAM_WRITES)},
    {"avg_host_latency_ps", "host path's service time per host access, ps", B(S_HOST_LAT),
     B(S_HOST_READS) | B(S_HOST_WRITES)},
    {"avg_dram_latency_ps", "device controller's service time per DRAM access, ps", B(S_DRAM_LAT),
     B(S_DRAM_READS) | B(S_DRAM_WRITES)},
    {NULL, NULL, 0, 0}};
#undef B

enum hp_phase { HP_FREE, HP_DRAIN, HP_READ, HP_WRITE };

/* One promotion in flight: the page, this partition's lines of it and where they are on the host. */
typedef struct hp_slot {
  uint64_t page;     /* page number (physical address / 4 KiB) */
  uint64_t host;     /* host address of the part */
  uint32_t bucket;   /* the page's in-flight bucket */
  uint32_t mine;     /* bit i: line i of the page is this partition's */
  uint32_t pending;  /* transfers outstanding */
  uint8_t phase;     /* enum hp_phase */
  unsigned char buf[HP_PAGE];
} hp_slot;

typedef struct hp_st {
  memside_cfg cfg;
  memside_env env;
  memside_mgr *mgr;
  uint32_t host;               /* the host device's index */
  uint64_t threshold, period_ps;
  uint32_t max_pages, promoted, table_mask;
  int owner, armed, stopped;   /* partition 0 keeps the decay timer; a wake-up is pending; the program is done */
  uint64_t mark;               /* the manager's access count when the timer was last armed */
  uint32_t inflight[HP_BUCKETS];
  hp_slot slot[HP_SLOTS];
  uint64_t c[HP_NSTATS];
  /* followed by the promotion table: table_mask + 1 page numbers + 1 (0 = empty), open addressing */
} hp_st;

static uint32_t popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

static uint32_t table_slots(uint64_t max_pages) { /* a power of two at least twice max_pages: never over half full */
  uint32_t n = 16;
  while (n < 2 * max_pages) n <<= 1;
  return n;
}

static uint64_t *table_of(const hp_st *s) { return (uint64_t *)(void *)((char *)(uintptr_t)s + sizeof(hp_st)); }

static uint32_t hash_page(uint64_t page) { return (uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 32); }

static uint32_t bucket_of(uint64_t page) { return hash_page(page) & (HP_BUCKETS - 1); }

static int is_promoted(const hp_st *s, uint64_t page) {
  const uint64_t *t = table_of(s);
  for (uint32_t h = hash_page(page) & s->table_mask;; h = (h + 1) & s->table_mask) {
    if (t[h] == page + 1) return 1;
    if (!t[h]) return 0;
  }
}

static void mark_promoted(hp_st *s, uint64_t page) {
  uint64_t *t = table_of(s);
  uint32_t h = hash_page(page) & s->table_mask;
  while (t[h]) h = (h + 1) & s->table_mask;
  t[h] = page + 1;
  ++s->promoted;
}

/* This partition's lines of `page` (bit i = line i) and the page's lines in lower partitions. */
static uint32_t part_layout(const hp_st *s, uint64_t page, uint32_t *before) {
  return memside_page_part(s->cfg.map, page, s->cfg.partition, before);
}

/* The host copy of line pa (a line of this partition). */
static void host_target(const hp_st *s, uint64_t pa, memside_target *out) {
  const uint64_t page = pa / HP_PAGE;
  uint32_t before;
  const uint32_t mine = part_layout(s, page, &before), i = (uint32_t)(pa % HP_PAGE / HP_LINE);
  out->dev = s->host;
  out->addr = page * HP_PAGE + (uint64_t)(before + popcount32(mine & ((1u << i) - 1u))) * HP_LINE;
  out->kind = AMAP_MEM_HOST;
  out->mirror = 0;
}

static size_t hp_state_bytes(const memside_cfg *cfg) {
  const uint64_t pages = cfg->param ? (uint64_t)cfg->param[HP_MAXPAGES].i : 1;
  return sizeof(hp_st) + (size_t)table_slots(pages) * sizeof(uint64_t);
}

static int hp_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  hp_st *s = (hp_st *)st;
  memset(s, 0, hp_state_bytes(cfg));
  s->cfg = *cfg;
  s->cfg.param = NULL; /* valid during init only */
  s->env = *env;
  s->mgr = cfg->mgr;
  if (!cfg->param) {
    snprintf(err, errlen, "memside.hostpage: the policy's parameter values are missing (memside_cfg.param)");
    return -1;
  }
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  if (!s->mgr || !s->mgr->cfg.page_slots) {
    snprintf(err, errlen, "memside.mgr.page_counters: expected a power of two with memside.policy = hostpage (it "
             "decides on the GPU-wide page counters), got 0");
    return -1;
  }
  s->host = cfg->ndevs;
  for (uint32_t d = 0; d < cfg->ndevs; ++d)
    if (cfg->rank_kind[d][0] == AMAP_MEM_HOST) s->host = d;
  if (s->host == cfg->ndevs) {
    snprintf(err, errlen, "hostpath.link: expected a link to host memory with memside.policy = hostpage (every page "
             "starts there), got none");
    return -1;
  }
  const uint64_t end = (cfg->program_end + HP_PAGE - 1) / HP_PAGE * HP_PAGE;
  if (cfg->dev_bytes[s->host] && end > cfg->dev_bytes[s->host]) {
    snprintf(err, errlen, "hostpath.size: expected at least %llu B with memside.policy = hostpage (a page's host "
             "copy is at its physical address; the program ends there), got %llu", (unsigned long long)end,
             (unsigned long long)cfg->dev_bytes[s->host]);
    return -1;
  }
  s->threshold = (uint64_t)cfg->param[HP_THRESHOLD].i;
  s->period_ps = (uint64_t)(cfg->param[HP_DECAY_NS].f * 1000.0 + 0.5);
  s->max_pages = (uint32_t)cfg->param[HP_MAXPAGES].i;
  s->table_mask = table_slots(s->max_pages) - 1;
  s->owner = cfg->partition == 0;
  return 0;
}

static void hp_locate(const void *st, uint64_t pa, memside_target *out) {
  const hp_st *s = (const hp_st *)st;
  if (is_promoted(s, pa / HP_PAGE)) memside_static_locate(&s->cfg, pa, out);
  else host_target(s, pa, out);
}

static unsigned hp_kind_of(const void *st, uint64_t pa) {
  const hp_st *s = (const hp_st *)st;
  if (!is_promoted(s, pa / HP_PAGE)) return AMAP_MEM_HOST;
  memside_target t;
  memside_static_locate(&s->cfg, pa, &t);
  return t.kind;
}

/* The decay timer (partition 0): one wake-up decay_ns ahead. */
static void arm(hp_st *s) {
  if (s->env.wake(s->env.ctx, s->env.now_ps(s->env.ctx) + s->period_ps, 0) != 0) return;
  s->armed = 1;
  s->mark = s->mgr->st.accesses;
}

static void hp_wake(void *st, uint64_t now_ps, uint64_t tag) {
  (void)now_ps;
  (void)tag;
  hp_st *s = (hp_st *)st;
  s->armed = 0;
  ++s->c[S_DECAYS];
  memside_mgr_decay(s->mgr);
  if (s->mgr->st.accesses != s->mark && !s->stopped) arm(s); /* accesses came this period: keep going */
}

/* The program is done: no more decay, and no wake-up left pending (it would keep the simulation going). */
static void hp_kernel_boundary(void *st, uint32_t kernel_index, uint8_t last) {
  (void)kernel_index;
  hp_st *s = (hp_st *)st;
  if (!last) return;
  s->stopped = 1;
  if (s->armed) (void)s->env.unwake(s->env.ctx, 0);
  s->armed = 0;
}

/* Step 3 once step 2 is over: read the part from the host. */
static void read_when_drained(hp_st *s, uint32_t k) {
  hp_slot *sl = &s->slot[k];
  if (sl->phase != HP_DRAIN || s->inflight[sl->bucket]) return;
  sl->phase = HP_READ;
  const memside_xfer x = {s->host, sl->host, popcount32(sl->mine) * HP_LINE, 0, MEMSIDE_PAGE_IN, sl->buf, k};
  if (s->env.issue(s->env.ctx, &x) == 0) sl->pending = 1; /* HP_SLOTS x 33 transfers < MEMSIDE_XFER_SLOTS */
}

/* Step 4: the part's lines to their DRAM places, a transfer per run of lines contiguous there. */
static void write_to_dram(hp_st *s, uint32_t k) {
  hp_slot *sl = &s->slot[k];
  sl->phase = HP_WRITE;
  memside_xfer run = {0, 0, 0, 1, MEMSIDE_PAGE_IN, NULL, k};
  uint32_t off = 0;
  for (uint32_t i = 0; i < HP_LINES; ++i) {
    if (!((sl->mine >> i) & 1u)) continue;
    memside_target t;
    memside_static_locate(&s->cfg, sl->page * HP_PAGE + i * HP_LINE, &t);
    if (run.bytes && t.dev == run.dev && t.addr == run.addr + run.bytes) {
      run.bytes += HP_LINE;
    } else {
      if (run.bytes && s->env.issue(s->env.ctx, &run) == 0) ++sl->pending;
      run.dev = t.dev;
      run.addr = t.addr;
      run.bytes = HP_LINE;
      run.buf = sl->buf + off;
    }
    off += HP_LINE;
  }
  if (s->env.issue(s->env.ctx, &run) == 0) ++sl->pending;
}

/* Steps 1-2 for `page` if a slot, the table and the budget allow. */
static void try_promote(hp_st *s, uint64_t page, uint32_t bucket) {
  uint32_t k = 0, busy = 0;
  for (uint32_t j = HP_SLOTS; j-- > 0;)
    if (s->slot[j].phase == HP_FREE) k = j;
    else ++busy;
  if (busy == HP_SLOTS) return; /* the next access to the page tries again */
  if (s->promoted + busy >= s->max_pages) {
    ++s->c[S_FULL];
    return;
  }
  uint32_t before;
  const uint32_t mine = part_layout(s, page, &before);
  if (!memside_mgr_take_budget(s->mgr, (uint64_t)popcount32(mine) * HP_LINE)) {
    ++s->c[S_DENIED];
    return;
  }
  hp_slot *sl = &s->slot[k];
  sl->page = page;
  sl->host = page * HP_PAGE + (uint64_t)before * HP_LINE;
  sl->bucket = bucket;
  sl->mine = mine;
  sl->pending = 0;
  sl->phase = HP_DRAIN;
  read_when_drained(s, k);
}

static int hp_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  hp_st *s = (hp_st *)st;
  const uint64_t page = rq->pa / HP_PAGE;
  if (*ticket == 0) { /* an access's first call: count it once, held or not */
    if (!memside_mgr_page_count(s->mgr, rq->pa)) ++s->c[S_FIRST_TOUCHES];
    (void)memside_mgr_count(s->mgr, rq->pa);
    if (s->owner && !s->armed && !s->stopped) arm(s);
  }
  if (is_promoted(s, page)) {
    memside_static_locate(&s->cfg, rq->pa, out);
    return MEMSIDE_GO;
  }
  const uint32_t b = bucket_of(page);
  for (uint32_t k = 0; k < HP_SLOTS; ++k)
    if (s->slot[k].phase != HP_FREE && s->slot[k].bucket == b) {
      if (*ticket == 0) ++s->c[S_HELD];
      *ticket = k + 1;
      return MEMSIDE_HOLD;
    }
  host_target(s, rq->pa, out);
  ++s->inflight[b];
  if (memside_mgr_page_count(s->mgr, rq->pa) >= s->threshold) try_promote(s, page, b);
  return MEMSIDE_GO;
}

static void hp_complete(void *st, const memside_req *rq, const memside_target *t) {
  hp_st *s = (hp_st *)st;
  const uint64_t bytes = (uint64_t)popcount32(rq->sectors) * 32;
  if (t->dev == s->host) {
    ++s->c[rq->write ? S_HOST_WRITES : S_HOST_READS];
    s->c[rq->write ? S_HOST_WRITE_BYTES : S_HOST_READ_BYTES] += bytes;
    s->c[S_HOST_LAT] += t->latency_ps;
    const uint32_t b = bucket_of(rq->pa / HP_PAGE);
    --s->inflight[b];
    for (uint32_t k = 0; k < HP_SLOTS; ++k)
      if (s->slot[k].bucket == b) read_when_drained(s, k);
    return;
  }
  ++s->c[rq->write ? S_DRAM_WRITES : S_DRAM_READS];
  s->c[rq->write ? S_DRAM_WRITE_BYTES : S_DRAM_READ_BYTES] += bytes;
  s->c[S_DRAM_LAT] += t->latency_ps;
  ++s->c[t->row == MEMSIDE_ROW_HIT ? S_ROW_HITS : t->row == MEMSIDE_ROW_MISS ? S_ROW_MISSES : S_ROW_CONFLICTS];
}

static void hp_done(void *st, uint64_t tag) {
  hp_st *s = (hp_st *)st;
  hp_slot *sl = &s->slot[tag];
  if (--sl->pending) return;
  if (sl->phase == HP_READ) {
    write_to_dram(s, (uint32_t)tag);
    return;
  }
  /* step 5 */
  const uint64_t bytes = (uint64_t)popcount32(sl->mine) * HP_LINE;
  mark_promoted(s, sl->page);
  ++s->c[S_PROMOTIONS];
  s->c[S_PROMOTED_BYTES] += bytes;
  sl->phase = HP_FREE;
  s->env.release(s->env.ctx, (uint32_t)tag + 1);
}

static int hp_busy(const void *st) {
  const hp_st *s = (const hp_st *)st;
  for (uint32_t k = 0; k < HP_SLOTS; ++k)
    if (s->slot[k].phase != HP_FREE) return 1;
  return 0;
}

static void hp_stats(const void *st, memside_stats *out) {
  const hp_st *s = (const hp_st *)st;
  out->moves = s->c[S_PROMOTIONS];
  out->moved_bytes = s->c[S_PROMOTED_BYTES];
  out->remaps = s->c[S_PROMOTIONS];
}

static void hp_stat_values(const void *st, uint64_t *out) {
  memcpy(out, ((const hp_st *)st)->c, sizeof(uint64_t) * HP_NSTATS);
}

const memside_ops memside_hostpage_ops = {
    .name = "hostpage",
    .desc = "worked example: pages start in host memory behind the link; pages hot GPU-wide move into device DRAM",
    .state_bytes = hp_state_bytes,
    .init = hp_init,
    .locate = hp_locate,
    .route = hp_route,
    .kind_of = hp_kind_of,
    .complete = hp_complete,
    .done = hp_done,
    .wake = hp_wake,
    .kernel_boundary = hp_kernel_boundary,
    .busy = hp_busy,
    .stats = hp_stats,
    .stat_prefix = "hostpage",
    .stat_names = hp_stat_names,
    .stat_descs = hp_stat_descs,
    .stat_values = hp_stat_values,
    .stat_derived = hp_derived,
    .params = &hp_params,
};
