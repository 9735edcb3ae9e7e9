/* memside_rapp: rank-based page placement over the partition's DRAM and PCM channels -- the "RaPP" design the
 * hybrid DRAM+PCM paper evaluates as its second baseline (shared/papers/hybrid-dram-pcm-flrb-placement.txt
 * Sec. III: "organizes DRAM and PCM in a large flat memory and migrates pages between them. The memory controller
 * is used to monitor the misses and write-backs in LLC for each memory frame (or page), ranks frames and
 * dynamically adjusts their placement according to their 'popularity'"; its first GPU modification: "We
 * implement a page remapping table to facilitate accesses to migrated data"; after Ramos, Gorbatov and
 * Bianchini, "Page placement in hybrid memory systems", ICS 2011 [26], which ranks pages "according to popularity
 * (access frequency) and write intensity, migrating top-ranked pages to DRAM" with the Multi-Queue (MQ) algorithm
 * of Zhou et al. (USENIX 2001)). Config configs/rapp.toml, docs/hybrid_dram_pcm.md.
 *
 * The partition (memside.partition_channels = 2, Sec. III's second modification: DRAM and PCM in every
 * partition) has a DRAM device and a PCM device. The program lies in the PCM part of the map
 * (program_in_first_part): every physical line has its home on PCM, as Sec. VI places data ("data arrays are
 * initially placed on PCM"). The PCM device's address space is cut into `page`-byte pages (aligned device-address
 * ranges, the unit RaPP ranks and migrates); the DRAM device's first `size` bytes are `size / page` frames
 * (frame f at device address f x page).
 *
 *  - Ranking (the multi-queue): every page has a descriptor with a weighted reference count, an expiry time and
 *    its place in one of `queues` LRU queues. Each access of the L2 (an LLC miss = a fill, or a write-back) adds
 *    1, a write-back adds `write_weight`, to its page's count (Sec. IV, for the multi-queue it takes "in a way
 *    similar to" [26]: "weighs PCM write access by 3 and other accesses by 1"); the page moves to the tail (most
 *    recent end) of queue q(count): queue 0 holds count 0, queue i holds [2^(i-1), 2^i), the last queue
 *    everything above (Sec. IV's ranges, MQ's log2 of the frequency); its expiry becomes now + lifetime. Time is
 *    the partition's access count (MQ's logical clock). After each access, the head (least recent end) of each
 *    queue i > 0 whose expiry has passed is demoted to the tail of queue i - 1 (MQ's Adjust), its count halved and
 *    clamped into queue i - 1's range (as the FLRB reference does, models/ref/blocks/flrb.h D2: without it the next
 *    access would undo the demotion), its expiry renewed. Each queue keeps its DRAM pages and its PCM pages in two
 *    LRU lists (one ranking; the two lists find the coldest DRAM page without a search).
 *  - Migration: an access to a page on PCM whose queue is at least `threshold` makes it a candidate. It moves to a
 *    free DRAM frame, or, when every frame is in use, to the frame of the coldest DRAM page (the least recent one
 *    of the lowest queue holding DRAM pages) if that page ranks lower (a lower queue; otherwise the candidate stays
 *    on PCM: RaPP keeps the top-ranked pages in DRAM). The move
 *      1. holds new accesses to the page and to the victim (route answers HOLD);
 *      2. drains: waits until the accesses already sent to the page's PCM place and to the frame are answered;
 *      3. reads the page from PCM and the victim from the DRAM frame (class MIGRATION, one transfer each);
 *      4. writes the page into the frame and the victim back to its home on PCM (class MIGRATION): always
 *         (`writeback = always`, RaPP's flat memory, where the victim's PCM frame holds other data: "each
 *         migration involves two PCM memory frames and one DRAM frame" [26]), or only if the L2 wrote the victim
 *         while it was in DRAM (`writeback = dirty`: Strata keeps every page's home frame, so a clean victim's
 *         home copy is current);
 *      5. updates the remap table (page -> frame, frame -> page) and releases the held accesses.
 *    At most `migrations` moves are in flight per partition; a candidate beyond them stays on PCM until its next
 *    access.
 *
 * What the papers leave open and this file decides: the page size (4 KiB: RaPP's OS pages; the paper says "memory
 * frame (or page)"), the threshold queue (7: at least 64 weighted accesses; one read of each of a 4 KiB page's 32 lines per
 * partition gives 32, queue 6, so a page migrates when the L2 comes back to it or writes it, not when a kernel
 * streams through it once), the
 * lifetime (4096 accesses of the partition: MQ derives it from the workload's temporal distance, a fixed value
 * here), moves in flight (4), victims go back to their home PCM frame (the paper: "we assume that the MC could put
 * data evenly across the PCM area for wear leveling", so no PCM frame rotation), a descriptor for every PCM page
 * (the remap table is direct-indexed; Sec. IV's 4K-descriptor cap is FLRB's, not RaPP's), and the table lookups
 * are free (no delay). The policy needs no timer: expiry is checked at each access, as MQ does.
 */
#include <stdio.h>
#include <string.h>

#include "memside.h"

#define RP_LINE 128u
#define RP_MIN_PAGE 1024u
#define RP_MAX_PAGE 16384u
#define RP_MAX_QUEUES 16u
#define RP_MAX_MOVES 16u /* 2 transfers each at a time: far below MEMSIDE_XFER_SLOTS */
#define RP_NIL 0xFFFFFFFFu
#define RP_COUNT_MAX 0x7FFFFFFFu

enum { WB_ALWAYS, WB_DIRTY };

/* The parameters, memside.rapp.<name>: X(index, name, type, default, min, max, choices, doc). */
#define RP_PARAMS(X)                                                                                              \
  X(RP_PAGE, "page", MEMSIDE_P_SIZE, "4KiB", RP_MIN_PAGE, RP_MAX_PAGE, NULL,                                      \
    "policy rapp: page bytes, a power of two: the unit RaPP ranks and migrates (Sec. III: 'each memory frame (or "  \
    "page)'; [26]'s 4 KB pages)")                                                                                 \
  X(RP_SIZE, "size", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 44), NULL,                                          \
    "policy rapp: DRAM bytes per partition pages migrate into (size / page frames); 0: the partition's DRAM part "  \
    "of the map (addrmap.dram_size / DRAM channels: the paper's 256 MB, Sec. VI)")                                \
  X(RP_QUEUES, "queues", MEMSIDE_P_INT, "8", 2, RP_MAX_QUEUES, NULL,                                              \
    "policy rapp: LRU queues of the multi-queue; queue i holds counts in [2^(i-1), 2^i) (Sec. IV: M = 8 for the "   \
    "multi-queue taken from [26])")                                                                               \
  X(RP_THRESHOLD, "threshold", MEMSIDE_P_INT, "7", 1, RP_MAX_QUEUES - 1, NULL,                                    \
    "policy rapp: a page on PCM in this queue or above migrates to DRAM (Strata choice: queue 7, 64 weighted "     \
    "accesses, more than one read of each line of a 4 KiB page; below memside.rapp.queues)")                      \
  X(RP_WRITE_WEIGHT, "write_weight", MEMSIDE_P_INT, "3", 1, 1024, NULL,                                           \
    "policy rapp: what an L2 write-back adds to its page's count, a fill adds 1 (Sec. IV: writes weigh 3; [26] "    \
    "ranks by popularity and write intensity)")                                                                   \
  X(RP_LIFETIME, "lifetime", MEMSIDE_P_INT, "4096", 1, 2147483647.0, NULL,                                        \
    "policy rapp: accesses of the partition after a page's last access before it is demoted one queue (MQ's "      \
    "lifetime; Strata choice)")                                                                                   \
  X(RP_MIGRATIONS, "migrations", MEMSIDE_P_INT, "4", 1, RP_MAX_MOVES, NULL,                                       \
    "policy rapp: page moves (PCM -> DRAM with its victim back) in flight per partition (Strata choice)")          \
  X(RP_WRITEBACK, "writeback", MEMSIDE_P_ENUM, "always", 0, 0, "always|dirty",                                    \
    "policy rapp: a victim goes back to PCM always (RaPP's flat memory, [26]) or only if written while in DRAM")

enum {
#define X(id, nm, ty, def, lo, hi, ch, doc) id,
  RP_PARAMS(X)
#undef X
  RP_NPARAMS
};

static const memside_param rp_param[] = {
#define X(id, nm, ty, def, lo, hi, ch, doc) {nm, ty, def, lo, hi, ch, doc, "rapp", NULL},
    RP_PARAMS(X)
#undef X
};

static int pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* The checks across keys, whichever policy runs. */
static int rp_validate(const memside_value *v, const memside_sys *sys, uint32_t *bad, char *err, size_t errlen) {
  (void)sys;
  if (!pow2((uint64_t)v[RP_PAGE].i)) {
    *bad = RP_PAGE;
    snprintf(err, errlen, "expected a power of two from %u to %u bytes, got %lld", RP_MIN_PAGE, RP_MAX_PAGE,
             (long long)v[RP_PAGE].i);
    return -1;
  }
  if (v[RP_THRESHOLD].i >= v[RP_QUEUES].i) {
    *bad = RP_THRESHOLD;
    snprintf(err, errlen, "expected a queue below memside.rapp.queues (%lld), got %lld", (long long)v[RP_QUEUES].i,
             (long long)v[RP_THRESHOLD].i);
    return -1;
  }
  return 0;
}

static const memside_params rp_params = {"memside.rapp.", rp_param, RP_NPARAMS, rp_validate};

/* The policy's counters, rapp.<name> (summed) and memside.p<N>.rapp.<name>. */
#define RP_STATS(X)                                                                                               \
  X(S_READ_DRAM, "read_dram", "L2 reads served from a page migrated to DRAM (hits in DRAM)")                      \
  X(S_WRITE_DRAM, "write_dram", "L2 write-backs served by a page migrated to DRAM (writes redirected to DRAM)")    \
  X(S_READ_PCM, "read_pcm", "L2 reads served from PCM (the page at its home)")                                     \
  X(S_WRITE_PCM, "write_pcm", "L2 write-backs served by PCM")                                                      \
  X(S_MIGRATIONS, "migrations", "pages moved from PCM to a DRAM frame")                                           \
  X(S_MIGRATION_BYTES, "migration_bytes", "bytes of those moves (each read from PCM and written to DRAM)")        \
  X(S_EVICTIONS, "evictions", "victim pages moved from DRAM back to PCM (their frame given to a hotter page)")     \
  X(S_EVICTION_BYTES, "eviction_bytes", "bytes written back to PCM by evictions")                                  \
  X(S_CLEAN_EVICTIONS, "clean_evictions", "victims not written back (writeback = dirty and the L2 did not write them)") \
  X(S_PROMOTIONS, "promotions", "accesses that moved their page to a higher queue")                                \
  X(S_DEMOTIONS, "demotions", "expired queue heads moved to the queue below")                                      \
  X(S_CANDIDATES, "candidates", "accesses to a page on PCM at or above the threshold queue")                       \
  X(S_DECLINED, "declined", "candidates left on PCM because every DRAM page ranks as high")                        \
  X(S_NO_SLOT, "no_slot", "candidates left on PCM because memside.rapp.migrations moves were in flight")           \
  X(S_HOLDS, "holds", "times an access was held (its page or its frame's page being moved)")                      \
  X(S_DATA_BYTES, "data_bytes", "bytes of the distinct pages the partition's accesses touched")

enum {
#define X(id, nm, desc) id,
  RP_STATS(X)
#undef X
  RP_NSTATS
};

static const char *const rp_stat_names[] = {
#define X(id, nm, desc) nm,
    RP_STATS(X)
#undef X
    NULL};
static const char *const rp_stat_descs[] = {
#define X(id, nm, desc) desc,
    RP_STATS(X)
#undef X
    NULL};

#define B(i) (1ull << (i))
#define RP_ACCESSES (B(S_READ_DRAM) | B(S_WRITE_DRAM) | B(S_READ_PCM) | B(S_WRITE_PCM))
static const memside_derived rp_derived[] = {
    {"dram_hit_rate", "accesses served by DRAM / all accesses", B(S_READ_DRAM) | B(S_WRITE_DRAM), RP_ACCESSES},
    {"writes_redirected_to_dram", "L2 write-backs served by DRAM / all L2 write-backs", B(S_WRITE_DRAM),
     B(S_WRITE_DRAM) | B(S_WRITE_PCM)},
    {"migration_rate",
     "bytes migrated, both ways (PCM -> DRAM and back) / bytes of the pages touched (the paper's migration rate, "
     "Sec. VII-G: migrated data weighted by the times migrated over the data size)",
     B(S_MIGRATION_BYTES) | B(S_EVICTION_BYTES), B(S_DATA_BYTES)},
    {NULL, NULL, 0, 0}};
#undef B

/* Transfer tags: kind << 32 | move slot. */
enum { TAG_READ_IN = 1, TAG_READ_OUT = 2, TAG_WRITE_IN = 3, TAG_WRITE_OUT = 4 };

enum rp_loc { L_PCM = 0, L_DRAM = 1 };
enum rp_move_phase { M_FREE, M_DRAIN, M_READ, M_WRITE };

/* A PCM page: its multi-queue descriptor and its remap-table entry. */
typedef struct rp_page {
  uint32_t prev, next; /* neighbours in its queue's list (RP_NIL at the ends) */
  uint32_t count;      /* weighted reference count */
  uint32_t expiry;     /* logical time after which it is demoted (serial arithmetic modulo 2^32) */
  uint32_t frame;      /* remap table: DRAM frame + 1; 0: at its home on PCM */
  uint32_t inflight;   /* accesses routed to its PCM home and not yet answered */
  uint8_t queue;       /* its queue, valid when listed */
  uint8_t listed;      /* in a queue (accessed at least once) */
  uint8_t move;        /* move slot + 1 while it is moved in or out; 0 */
} rp_page;

/* A DRAM frame. */
typedef struct rp_frame {
  uint32_t page;     /* the page it holds + 1; 0: free */
  uint32_t inflight; /* accesses routed to it and not yet answered */
  uint8_t dirty;     /* the L2 wrote its page since it came in */
} rp_frame;

typedef struct rp_move {
  uint32_t page, victim, frame; /* victim: page + 1, 0: a free frame */
  uint8_t phase;                /* enum rp_move_phase */
  uint8_t pending;              /* transfers outstanding */
  uint8_t write_back;           /* the victim is written to PCM */
} rp_move;

typedef struct rp_list {
  uint32_t head, tail; /* head: least recent */
} rp_list;

typedef struct rp_st {
  memside_cfg cfg;
  memside_env env;
  uint32_t dram, pcm;       /* device indices */
  uint32_t page_bytes, pages, frames, frames_used;
  uint32_t queues, threshold, write_weight, lifetime, nmoves, writeback;
  uint32_t now;             /* accesses routed (MQ's logical clock) */
  rp_list list[RP_MAX_QUEUES][2];
  rp_move move[RP_MAX_MOVES];
  uint64_t c[RP_NSTATS];
  /* followed by pages x rp_page, frames x rp_frame, nmoves x 2 x page_bytes of move buffers */
} rp_st;

static rp_page *pages_of(const rp_st *s) { return (rp_page *)(void *)((char *)(uintptr_t)s + sizeof(rp_st)); }
static rp_frame *frames_of(const rp_st *s) { return (rp_frame *)(void *)(pages_of(s) + s->pages); }
static unsigned char *buf_of(const rp_st *s, uint32_t k, int victim) {
  return (unsigned char *)(frames_of(s) + s->frames) + ((size_t)k * 2u + (size_t)victim) * s->page_bytes;
}

/* --------------------------------------------------------------- geometry */

static uint64_t dram_part_bytes(const amap *m) {
  for (uint32_t k = 0; k < m->nparts; ++k)
    if (m->part[k].mem == AMAP_MEM_DRAM && m->part[k].nch) return m->part[k].bytes / m->part[k].nch;
  return 0;
}

static uint64_t pcm_part_bytes(const amap *m) {
  return m->nparts >= 2 && m->part[0].mem != AMAP_MEM_DRAM && m->part[0].nch ? m->part[0].bytes / m->part[0].nch
                                                                              : 0;
}

static uint64_t size_of(const memside_cfg *cfg) {
  return cfg->param[RP_SIZE].i ? (uint64_t)cfg->param[RP_SIZE].i : dram_part_bytes(cfg->map);
}

static size_t rp_state_bytes(const memside_cfg *cfg) {
  if (!cfg->param) return sizeof(rp_st);
  const uint64_t page = (uint64_t)cfg->param[RP_PAGE].i;
  if (!pow2(page)) return sizeof(rp_st);
  const uint64_t pages = pcm_part_bytes(cfg->map) / page, frames = size_of(cfg) / page;
  if (pages >= RP_NIL || frames >= RP_NIL) return sizeof(rp_st); /* init refuses it */
  return sizeof(rp_st) + (size_t)pages * sizeof(rp_page) + (size_t)frames * sizeof(rp_frame) +
         (size_t)cfg->param[RP_MIGRATIONS].i * 2u * (size_t)page;
}

/* The partition's DRAM device and PCM (NVM) device, one kind each. */
static int find_devices(rp_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  int dd = -1, pd = -1;
  for (uint32_t d = 0; d < cfg->ndevs && d < MEMSIDE_MAX_DEVS; ++d) {
    const unsigned k = cfg->rank_kind[d][0];
    for (uint32_t r = 1; r < cfg->geom[d].ranks && r < AMAP_MAX_RANKS; ++r)
      if (cfg->rank_kind[d][r] != k) {
        snprintf(err, errlen, "memside.policy = rapp: expected one memory kind per channel of a partition "
                              "(mem.channel_devices with memside.partition_channels = 2), got a mixed channel");
        return -1;
      }
    if (k == AMAP_MEM_DRAM && dd < 0) dd = (int)d;
    else if ((k == AMAP_MEM_NVM || k == AMAP_MEM_SCM) && pd < 0) pd = (int)d;
  }
  if (dd < 0 || pd < 0) {
    snprintf(err, errlen, "memside.policy = rapp: expected a DRAM channel and a PCM channel in every memory "
                          "partition (mem.channel_devices = \"ddr3_800, pcm_flrb\", memside.partition_channels = 2)");
    return -1;
  }
  s->dram = (uint32_t)dd;
  s->pcm = (uint32_t)pd;
  return 0;
}

static int rp_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  rp_st *s = (rp_st *)st;
  if (!cfg->param) {
    snprintf(err, errlen, "memside.rapp: the policy's parameter values are missing (memside_cfg.param)");
    return -1;
  }
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->cfg.param = NULL; /* valid during init only */
  s->env = *env;
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  const uint64_t page = (uint64_t)cfg->param[RP_PAGE].i;
  if (!pow2(page) || page < RP_MIN_PAGE || page > RP_MAX_PAGE) {
    snprintf(err, errlen, "memside.rapp.page: expected a power of two from %u to %u bytes, got %llu", RP_MIN_PAGE,
             RP_MAX_PAGE, (unsigned long long)page);
    return -1;
  }
  if (cfg->param[RP_THRESHOLD].i >= cfg->param[RP_QUEUES].i) {
    snprintf(err, errlen, "memside.rapp.threshold: expected a queue below memside.rapp.queues (%lld), got %lld",
             (long long)cfg->param[RP_QUEUES].i, (long long)cfg->param[RP_THRESHOLD].i);
    return -1;
  }
  if (find_devices(s, cfg, err, errlen) != 0) return -1;
  const uint64_t pcm_bytes = pcm_part_bytes(cfg->map), dram_bytes = dram_part_bytes(cfg->map), size = size_of(cfg);
  if (!pcm_bytes) {
    snprintf(err, errlen, "memside.policy = rapp: expected the PCM part of the map first and bounded, then the "
                          "DRAM part (addrmap.part_order = \"nvm, dram\", addrmap.nvm_size > 0)");
    return -1;
  }
  if (size < page || (dram_bytes && size > dram_bytes) || size / page >= RP_NIL) {
    snprintf(err, errlen, "memside.rapp.size: expected at least one page (%llu B) and at most the partition's DRAM "
             "(%llu B per channel, addrmap.dram_size / channels), got %llu B", (unsigned long long)page,
             (unsigned long long)dram_bytes, (unsigned long long)size);
    return -1;
  }
  if (size >= pcm_bytes || pcm_bytes / page >= RP_NIL) {
    snprintf(err, errlen, "memside.rapp.size: expected less DRAM than the PCM its pages come from (%llu B per "
             "channel), got %llu B", (unsigned long long)pcm_bytes, (unsigned long long)size);
    return -1;
  }
  s->page_bytes = (uint32_t)page;
  s->pages = (uint32_t)(pcm_bytes / page);
  s->frames = (uint32_t)(size / page);
  s->queues = (uint32_t)cfg->param[RP_QUEUES].i;
  s->threshold = (uint32_t)cfg->param[RP_THRESHOLD].i;
  s->write_weight = (uint32_t)cfg->param[RP_WRITE_WEIGHT].i;
  s->lifetime = (uint32_t)cfg->param[RP_LIFETIME].i;
  s->nmoves = (uint32_t)cfg->param[RP_MIGRATIONS].i;
  s->writeback = (uint32_t)cfg->param[RP_WRITEBACK].i;
  for (uint32_t q = 0; q < RP_MAX_QUEUES; ++q)
    for (int l = 0; l < 2; ++l) s->list[q][l].head = s->list[q][l].tail = RP_NIL;
  memset(pages_of(s), 0, (size_t)s->pages * sizeof(rp_page));
  memset(frames_of(s), 0, (size_t)s->frames * sizeof(rp_frame));
  return 0;
}

/* ---------------------------------------------------------- the multi-queue */

/* Queue of a count: 0 for 0, i for [2^(i-1), 2^i), the last queue above (Sec. IV's ranges). */
static uint32_t queue_of(const rp_st *s, uint32_t count) {
  uint32_t q = 0;
  while (count && q < s->queues - 1) {
    ++q;
    count >>= 1;
  }
  return q;
}

static uint32_t loc_of(const rp_page *p) { return p->frame ? L_DRAM : L_PCM; }

static void unlink_page(rp_st *s, uint32_t i) {
  rp_page *pg = pages_of(s), *p = pg + i;
  rp_list *l = &s->list[p->queue][loc_of(p)];
  if (p->prev != RP_NIL) pg[p->prev].next = p->next;
  else l->head = p->next;
  if (p->next != RP_NIL) pg[p->next].prev = p->prev;
  else l->tail = p->prev;
  p->prev = p->next = RP_NIL;
}

/* Page i to the tail (most recent end) of its queue's list for its place. */
static void link_tail(rp_st *s, uint32_t i) {
  rp_page *pg = pages_of(s), *p = pg + i;
  rp_list *l = &s->list[p->queue][loc_of(p)];
  p->prev = l->tail;
  p->next = RP_NIL;
  if (l->tail != RP_NIL) pg[l->tail].next = i;
  else l->head = i;
  l->tail = i;
}

/* expiry < now in serial arithmetic (modulo 2^32: correct while no listed page waits 2^31 accesses). */
static int expired(uint32_t expiry, uint32_t now) { return (int32_t)(expiry - now) < 0; }

/* An access to page i: count it (a write-back weighs write_weight), renew its expiry, move it to the tail of
 * its (new) queue. */
static void count_access(rp_st *s, uint32_t i, int write) {
  rp_page *p = pages_of(s) + i;
  if (p->listed) unlink_page(s, i);
  else {
    p->listed = 1;
    s->c[S_DATA_BYTES] += s->page_bytes;
  }
  const uint32_t w = write ? s->write_weight : 1u;
  p->count = p->count > RP_COUNT_MAX - w ? RP_COUNT_MAX : p->count + w;
  const uint32_t q = queue_of(s, p->count);
  if (q > p->queue) ++s->c[S_PROMOTIONS];
  p->queue = (uint8_t)q;
  p->expiry = s->now + s->lifetime;
  link_tail(s, i);
}

/* MQ's Adjust: the expired head of each queue above 0 (either list) goes to the tail of the queue below, its
 * count halved into that queue's range, its expiry renewed. */
static void demote_expired(rp_st *s) {
  rp_page *pg = pages_of(s);
  for (uint32_t q = 1; q < s->queues; ++q)
    for (int l = 0; l < 2; ++l) {
      const uint32_t h = s->list[q][l].head;
      if (h == RP_NIL || !expired(pg[h].expiry, s->now)) continue;
      unlink_page(s, h);
      const uint32_t top = (1u << (q - 1)) - 1u; /* the largest count of queue q - 1 */
      uint32_t c = pg[h].count / 2u;
      pg[h].count = c > top ? top : c;
      pg[h].queue = (uint8_t)(q - 1);
      pg[h].expiry = s->now + s->lifetime;
      link_tail(s, h);
      ++s->c[S_DEMOTIONS];
    }
}

/* The coldest DRAM page no move is using: the least recent of the lowest queue holding DRAM pages; RP_NIL. */
static uint32_t coldest_dram_page(const rp_st *s) {
  const rp_page *pg = pages_of(s);
  for (uint32_t q = 0; q < s->queues; ++q)
    for (uint32_t i = s->list[q][L_DRAM].head; i != RP_NIL; i = pg[i].next)
      if (!pg[i].move) return i;
  return RP_NIL;
}

/* --------------------------------------------------------------- lookup */

static void frame_target(const rp_st *s, uint32_t frame, uint64_t off, memside_target *out) {
  out->dev = s->dram;
  out->addr = (uint64_t)frame * s->page_bytes + off;
  out->kind = AMAP_MEM_DRAM;
  out->mirror = 0;
}

static void rp_locate(const void *st, uint64_t pa, memside_target *out) {
  const rp_st *s = (const rp_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (out->dev != s->pcm) return; /* outside the PCM part: flat (the platform keeps programs out of it) */
  const uint64_t i = out->addr / s->page_bytes;
  if (i < s->pages && pages_of(s)[i].frame)
    frame_target(s, pages_of(s)[i].frame - 1u, out->addr % s->page_bytes, out);
}

static unsigned rp_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  rp_locate(st, pa, &t);
  return t.kind;
}

/* --------------------------------------------------------------- moves */

static int issue(rp_st *s, uint32_t dev, uint64_t addr, int write, unsigned char *buf, unsigned kind, uint32_t k) {
  const memside_xfer x = {dev, addr, s->page_bytes, (uint8_t)write, MEMSIDE_MIGRATION, buf,
                          ((uint64_t)kind << 32) | k};
  return s->env.issue(s->env.ctx, &x) == 0; /* at most 2 x RP_MAX_MOVES outstanding: never refused */
}

/* Step 3 once step 2 is over: the page from PCM and the victim from its frame. */
static void read_when_drained(rp_st *s, uint32_t k) {
  rp_move *m = &s->move[k];
  if (m->phase != M_DRAIN || pages_of(s)[m->page].inflight || frames_of(s)[m->frame].inflight) return;
  m->phase = M_READ;
  if (issue(s, s->pcm, (uint64_t)m->page * s->page_bytes, 0, buf_of(s, k, 0), TAG_READ_IN, k)) ++m->pending;
  if (m->victim && issue(s, s->dram, (uint64_t)m->frame * s->page_bytes, 0, buf_of(s, k, 1), TAG_READ_OUT, k))
    ++m->pending;
}

/* Steps 1-2: page i to frame f, victim v + 1 (0: f is free), in slot k. */
static void start_move(rp_st *s, uint32_t k, uint32_t i, uint32_t f, uint32_t v) {
  rp_move *m = &s->move[k];
  m->page = i;
  m->frame = f;
  m->victim = v;
  m->pending = 0;
  m->phase = M_DRAIN;
  m->write_back = v && (s->writeback == WB_ALWAYS || frames_of(s)[f].dirty);
  pages_of(s)[i].move = (uint8_t)(k + 1);
  if (v) pages_of(s)[v - 1].move = (uint8_t)(k + 1);
  read_when_drained(s, k);
}

/* A candidate page i (on PCM, no move using it): move it into a free frame, or into the coldest DRAM page's
 * frame if that page ranks lower; otherwise it stays. */
static void try_migrate(rp_st *s, uint32_t i) {
  ++s->c[S_CANDIDATES];
  uint32_t k = 0;
  while (k < s->nmoves && s->move[k].phase != M_FREE) ++k;
  if (k == s->nmoves) {
    ++s->c[S_NO_SLOT];
    return;
  }
  if (s->frames_used < s->frames) {
    start_move(s, k, i, s->frames_used++, 0);
    return;
  }
  const uint32_t v = coldest_dram_page(s);
  if (v == RP_NIL || pages_of(s)[v].queue >= pages_of(s)[i].queue) {
    ++s->c[S_DECLINED];
    return;
  }
  start_move(s, k, i, pages_of(s)[v].frame - 1u, v + 1u);
}

/* Step 5: the remap table follows the bytes; the pages change lists; held accesses go. */
static void finish_move(rp_st *s, uint32_t k) {
  rp_move *m = &s->move[k];
  rp_page *pg = pages_of(s);
  rp_frame *fr = frames_of(s) + m->frame;
  if (m->victim) {
    const uint32_t v = m->victim - 1u;
    unlink_page(s, v);
    pg[v].frame = 0;
    pg[v].move = 0;
    link_tail(s, v); /* keeps its rank among the PCM pages of its queue, as the most recent */
    ++s->c[S_EVICTIONS];
    if (m->write_back) s->c[S_EVICTION_BYTES] += s->page_bytes;
    else ++s->c[S_CLEAN_EVICTIONS];
  }
  unlink_page(s, m->page);
  pg[m->page].frame = m->frame + 1u;
  pg[m->page].move = 0;
  link_tail(s, m->page);
  fr->page = m->page + 1u;
  fr->dirty = 0;
  ++s->c[S_MIGRATIONS];
  s->c[S_MIGRATION_BYTES] += s->page_bytes;
  m->phase = M_FREE;
  s->env.release(s->env.ctx, k + 1u);
}

static void rp_done(void *st, uint64_t tag) {
  rp_st *s = (rp_st *)st;
  const uint32_t k = (uint32_t)tag;
  rp_move *m = &s->move[k];
  if (--m->pending) return;
  if (m->phase == M_READ) { /* step 4: the page into the frame, the victim home */
    m->phase = M_WRITE;
    if (issue(s, s->dram, (uint64_t)m->frame * s->page_bytes, 1, buf_of(s, k, 0), TAG_WRITE_IN, k)) ++m->pending;
    if (m->write_back &&
        issue(s, s->pcm, (uint64_t)(m->victim - 1u) * s->page_bytes, 1, buf_of(s, k, 1), TAG_WRITE_OUT, k))
      ++m->pending;
    return;
  }
  finish_move(s, k);
}

/* ---------------------------------------------------------- the request path */

static int rp_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  rp_st *s = (rp_st *)st;
  const int first = *ticket == 0;
  memside_static_locate(&s->cfg, rq->pa, out);
  if (out->dev != s->pcm) return MEMSIDE_GO; /* outside the PCM part: flat */
  const uint32_t i = (uint32_t)(out->addr / s->page_bytes);
  rp_page *p = pages_of(s) + i;
  if (first) { /* the memory controller sees the access once: rank, then age the queues */
    ++s->now;
    count_access(s, i, rq->write);
    demote_expired(s);
  }
  if (p->move) { /* being moved in or out: wait for the remap */
    ++s->c[S_HOLDS];
    *ticket = p->move;
    return MEMSIDE_HOLD;
  }
  if (p->frame) {
    rp_frame *f = frames_of(s) + (p->frame - 1u);
    ++f->inflight;
    if (rq->write) f->dirty = 1;
    ++s->c[rq->write ? S_WRITE_DRAM : S_READ_DRAM];
    frame_target(s, p->frame - 1u, out->addr % s->page_bytes, out);
    return MEMSIDE_GO;
  }
  ++p->inflight;
  ++s->c[rq->write ? S_WRITE_PCM : S_READ_PCM];
  if (p->queue >= s->threshold) try_migrate(s, i); /* this access goes on to PCM; the move drains it */
  return MEMSIDE_GO;
}

static void rp_complete(void *st, const memside_req *rq, const memside_target *t) {
  (void)rq;
  rp_st *s = (rp_st *)st;
  uint32_t k;
  if (t->dev == s->dram) {
    const uint64_t f = t->addr / s->page_bytes;
    if (f >= s->frames) return; /* a flat access outside the frames */
    rp_frame *fr = frames_of(s) + f;
    if (fr->inflight) --fr->inflight;
    if (fr->inflight || !fr->page) return;
    k = pages_of(s)[fr->page - 1u].move;
  } else if (t->dev == s->pcm) {
    const uint64_t i = t->addr / s->page_bytes;
    if (i >= s->pages) return;
    rp_page *p = pages_of(s) + i;
    if (p->inflight) --p->inflight;
    if (p->inflight) return;
    k = p->move;
  } else {
    return;
  }
  if (k) read_when_drained(s, k - 1u);
}

static int rp_busy(const void *st) {
  const rp_st *s = (const rp_st *)st;
  for (uint32_t k = 0; k < s->nmoves; ++k)
    if (s->move[k].phase != M_FREE) return 1;
  return 0;
}

static void rp_stats(const void *st, memside_stats *out) {
  const rp_st *s = (const rp_st *)st;
  out->moves = s->c[S_MIGRATIONS] + s->c[S_EVICTIONS] - s->c[S_CLEAN_EVICTIONS];
  out->moved_bytes = s->c[S_MIGRATION_BYTES] + s->c[S_EVICTION_BYTES];
  out->remaps = s->c[S_MIGRATIONS] + s->c[S_EVICTIONS];
}

static void rp_stat_values(const void *st, uint64_t *out) {
  memcpy(out, ((const rp_st *)st)->c, sizeof(uint64_t) * RP_NSTATS);
}

const memside_ops memside_rapp_ops = {
    .name = "rapp",
    .desc = "RaPP (hybrid DRAM+PCM paper Sec. III, after Ramos et al.): a multi-queue ranks pages by LLC misses and "
            "weighted write-backs, top-ranked pages migrate from PCM to DRAM through a remap table",
    .state_bytes = rp_state_bytes,
    .init = rp_init,
    .locate = rp_locate,
    .route = rp_route,
    .kind_of = rp_kind_of,
    .complete = rp_complete,
    .done = rp_done,
    .busy = rp_busy,
    .stats = rp_stats,
    .stat_prefix = "rapp",
    .stat_names = rp_stat_names,
    .stat_descs = rp_stat_descs,
    .stat_values = rp_stat_values,
    .stat_derived = rp_derived,
    .params = &rp_params,
    .program_in_first_part = 1,
};
