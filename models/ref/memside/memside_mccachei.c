/* memside_mccachei: the McCachei baseline of HMS (hms-dram-cache-over-scm.txt Sec. IV-B) over the
 * DRAM-cache engine (memside_dcache_engine.c): the mostly-clean DRAM cache (Sim et al., MICRO 2012, the HMS
 * paper's ref. [124]) with a perfect hit/miss predictor and zero-cost tag probes (no probe traffic), every
 * read miss filled (no SCM awareness), and partial write-through; AMIL's geometry, memside.dcache.line_bytes
 * lines, no tag cache.
 *
 * The dirty-region tracker, as Strata models it: a page (4 KiB physical) whose hashed write counter reaches
 * DIRT_THRESHOLD enters a DIRT_PAGES-entry LRU list; writes to listed pages stay in the DRAM cache
 * (write-back), every other write also goes to SCM (write-through: a hit, which stays clean) or only goes
 * there (a miss, no fill), keeping the cache mostly clean.
 */
#include "memside_dcache_engine.h"

#define DIRT_COUNTERS 1024u
#define DIRT_PAGES 64u
#define DIRT_THRESHOLD 16u

typedef struct mccachei_st {
  uint8_t cnt[DIRT_COUNTERS];   /* writes per 4 KiB page (hashed), to enter the tracker */
  uint64_t page[DIRT_PAGES];    /* pages in write-back mode (page + 1; 0 = empty) */
  uint64_t used[DIRT_PAGES];    /* last write to each (LRU) */
  uint64_t clock;
} mccachei_st;

static size_t mccachei_state_bytes(const memside_cfg *cfg) {
  (void)cfg;
  return sizeof(mccachei_st);
}

/* Is the page of pa in write-back mode? (counts the write) */
static int dirt_write(mccachei_st *d, uint64_t pa) {
  const uint64_t page = (pa >> 12) + 1;
  ++d->clock;
  uint32_t lru = 0;
  for (uint32_t i = 0; i < DIRT_PAGES; ++i) {
    if (d->page[i] == page) {
      d->used[i] = d->clock;
      return 1;
    }
    if (d->used[i] < d->used[lru]) lru = i;
  }
  uint8_t *c = &d->cnt[(uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 54) & (DIRT_COUNTERS - 1)];
  if (++*c < DIRT_THRESHOLD) return 0;
  *c = 0;
  d->page[lru] = page; /* the LRU page leaves (its dirty lines are written back when they are evicted) */
  d->used[lru] = d->clock;
  return 1;
}

/* A write hit on a clean line outside the tracked pages also goes to SCM. */
static int mccachei_write_through(dc_st *s, uint64_t pa) { return !dirt_write((mccachei_st *)s->ds, pa); }

/* A write miss outside the tracked pages goes to SCM, no fill; every read miss fills. */
static int mccachei_miss(dc_st *s, const memside_req *rq, uint64_t block, uint64_t slot) {
  (void)block, (void)slot;
  return rq->write && !dirt_write((mccachei_st *)s->ds, rq->pa) ? DC_MISS_BYPASS : DC_MISS_FILL;
}

static const dc_design mccachei_design = {
    .name = "mccachei",
    .org = DC_ORG_AMIL,
    .tags = DC_TAGS_IDEAL,
    .state_bytes = mccachei_state_bytes,
    .write_through = mccachei_write_through,
    .miss = mccachei_miss,
};

static size_t dcache_mccachei_state_bytes(const memside_cfg *cfg) { return dcache_state_bytes(&mccachei_design, cfg); }

static int dcache_mccachei_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return dcache_init(st, &mccachei_design, cfg, env, err, errlen);
}

const memside_ops memside_mccachei_ops = {
    .name = "mccachei",
    .desc = "McCachei baseline of HMS (Sec. IV-B): mostly-clean DRAM cache over SCM, ideal predictor and free "
            "probes, partial write-through (dirty-region tracker)",
    .state_bytes = dcache_mccachei_state_bytes,
    .init = dcache_mccachei_init,
    DCACHE_OPS_COMMON,
};
