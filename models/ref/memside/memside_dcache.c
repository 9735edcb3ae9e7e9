/* memside_dcache: the DRAM cache of HMS (hms-dram-cache-over-scm.txt Sec.
 * III) as a memory-side policy ("dcache"), over the DRAM-cache engine
 * (memside_dcache_engine.c: geometry, tags, tag cache, probes, MSHRs,
 * fills and write-backs).
 *
 * What HMS adds to the engine:
 *  - its organisation by config (memside.dcache.org: AMIL, Sec. III-B, or
 *    TAD, the paper's HMST) and the Configurable Tag Cache (l2.ctc_ways,
 *    Sec. III-D);
 *  - the SCM-aware bypass (memside.dcache.bypass; Sec. III-C, Fig. 9) with
 *    the bypass scorer (blocks.bypass_scorer: bps.c, the code the RTL
 *    testbench compares against, or another implementation of bps_ops):
 *    a miss takes an MSHR that gathers the line's requests while the
 *    demand is served by SCM, then the scorer decides fill or bypass
 *    (Sec. III-F); a hit updates the scorer's average SCM penalty; the
 *    victim's DRAM-affinity level is stored in its metadata and may be
 *    decremented at a bypass;
 *  - per-2 MiB-page activation counters in the DRAM-affinity score
 *    (memside.dcache.act_counters, Sec. III-C2/C3);
 *  - Eq. 1's numerators following SCM throttling (Sec. III-E).
 * Without the bypass policy every miss fills (the paper's HMS-B; HMS-B-C
 * without the tag cache).
 */
#include <stdio.h>
#include <string.h>

#include "memside_dcache_engine.h"
#include "memside_dcache_params.h"

/* Activation counters (Sec. III-C3): 8 bits per 2 MiB page. */
#define DC_PAGE_BYTES (2u << 20)

typedef struct hms_st {
  const bps_ops *bps;    /* the scorer's implementation (memside_cfg.blocks; blocks.bypass_scorer) */
  void *bps_st;          /* its state, after act[] in this block */
  bps_cfg_t bc;          /* its configuration in force (Eq. 1 numerators follow SCM throttling) */
  int no_second_level;   /* memside.dcache.bypass_second_level = false (Sec. IV-B's check) */
  uint32_t page_blocks;  /* DRAM-cache lines per 2 MiB page */
  uint32_t act_pages;    /* activation counters (0: disabled, the score uses 1) */
  uint8_t act[];         /* act_pages counters */
} hms_st;

/* Activation counters of the partition: its share of the SCM part in 2 MiB pages. */
static uint32_t act_pages_of(const memside_cfg *c) {
  const dc_params p = dc_params_get(c);
  if (!p.bypass || !p.act_counters || !c->map->nparts || !c->map->part[0].nch) return 0;
  const uint64_t per_ch = c->map->part[0].bytes / c->map->part[0].nch;
  return (uint32_t)((per_ch + DC_PAGE_BYTES - 1) / DC_PAGE_BYTES);
}

/* Offset of the scorer's state: after hms_st and the activation counters. */
static size_t bps_offset(const memside_cfg *cfg) { return (sizeof(hms_st) + act_pages_of(cfg) + 15u) & ~(size_t)15u; }

static size_t hms_state_bytes(const memside_cfg *cfg) {
  return bps_offset(cfg) + (dc_params_get(cfg).bypass ? dc_blocks(cfg)->bypass_scorer->state_bytes() : 0);
}

/* The activation counter of block's 2 MiB page, counted up by one row
 * activation (Sec. III-C2/C3: 8-bit counters; at saturation every counter
 * of the partition is halved, the low-cost right shift of the paper's MSB
 * register). 1 when the counters are disabled (the paper's evaluation). */
static uint32_t act_count(hms_st *h, uint64_t block) {
  if (!h->act_pages) return 1;
  uint8_t *c = &h->act[(block / h->page_blocks) % h->act_pages];
  if (*c == BPS_ACT_MAX)
    for (uint32_t i = 0; i < h->act_pages; ++i) h->act[i] >>= 1;
  return ++*c;
}

/* Sec. III-F: a hit updates the average SCM penalty (its group: the line's requests in flight). */
static void hms_hit(dc_st *s, const memside_req *rq, uint32_t cols) {
  hms_st *h = (hms_st *)s->ds;
  const bps_access_t a = {cols > BPS_NCOL_MAX ? BPS_NCOL_MAX : cols, rq->write != 0, 1};
  bps_result_t r;
  h->bps->hit(h->bps_st, &a, &r);
}

/* Every miss waits for the scorer's decision. */
static int hms_miss(dc_st *s, const memside_req *rq, uint64_t block, uint64_t slot) {
  (void)s, (void)rq, (void)block, (void)slot;
  return DC_MISS_DECIDE;
}

/* Fig. 9 for the requests MSHR F gathered. AMIL: the victim's level came with the tags that made this a miss
 * (its slot's metadata), no extra probe. */
static void hms_decide(dc_st *s, const dc_fill *F, dc_decision *out) {
  hms_st *h = (hms_st *)s->ds;
  const uint32_t meta = s->meta[F->slot];
  bps_access_t a = {F->cols > BPS_NCOL_MAX ? BPS_NCOL_MAX : F->cols, F->wr != 0, act_count(h, F->block)};
  if (a.act > BPS_ACT_MAX) a.act = BPS_ACT_MAX;
  bps_result_t r;
  if (h->no_second_level) { /* the paper's sensitivity check (Sec. IV-B): no victim comparison */
    h->bps->miss_begin(h->bps_st, &a, (meta & META_VALID) != 0, &r);
    if (r.need_victim) r.need_victim = 0, r.fill = 1, r.store_level = r.aff_level;
  } else {
    h->bps->miss(h->bps_st, &a, (meta & META_VALID) != 0, (meta & META_LVL) >> META_LVL_SHIFT, &r);
  }
  out->fill = r.fill;
  out->level = (uint8_t)r.store_level;
  out->first_level = r.path == BPS_PATH_BYPASS_L1;
  out->dec_victim = r.dec_victim;
  out->victim_level = (uint8_t)r.victim_new_level;
}

/* SCM throttling (Sec. III-E) scales the SCM rank's tRCD/tWR at run time: the bypass scorer's Eq. 1
 * numerators (the SCM penalty per access, Sec. III-C1) follow the timing in force (bps_set_numerators). */
static void hms_timing_changed(dc_st *s) {
  hms_st *h = (hms_st *)s->ds;
  bps_cfg_t bc = h->bc;
  const uint32_t c = s->cr[0], m = s->sr[0], cd = s->cdev, sd = s->sdev;
  if (bps_cfg_timing(&bc, s->cfg.rank_trcd[cd][c], s->cfg.rank_trcd[sd][m], s->cfg.rank_twr[cd][c],
                     s->cfg.rank_twr[sd][m]) == 0)
    if (h->bps->set_numerators(h->bps_st, bc.num_rd, bc.num_wr) == 0) /* beyond BPS_NUM_MAX: it keeps the last */
      h->bc = bc;
}

static int hms_init(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  hms_st *h = (hms_st *)s->ds;
  const dc_params p = dc_params_get(cfg);
  if (!p.bypass) { /* HMS-B: every miss fills; nothing to score */
    s->d.hit = NULL;
    s->d.miss = NULL;
    s->d.decide = NULL;
    s->d.timing_changed = NULL;
    return 0;
  }
  bps_cfg_t bc;
  bps_cfg_default(&bc);
  bc.num_rd = p.num_rd;
  bc.num_wr = p.num_wr;
  bc.lfsr_seed = p.seed & BPS_LFSR_MASK;
  h->bps = dc_blocks(cfg)->bypass_scorer;
  h->bps_st = (char *)h + bps_offset(cfg);
  h->bc = bc;
  if (h->bps->init(h->bps_st, &bc) != 0) {
    snprintf(err, errlen, "memside.dcache.bypass: Eq. 1 numerators %u/%u cycles exceed the scorer's %u", bc.num_rd,
             bc.num_wr, BPS_NUM_MAX);
    return -1;
  }
  h->no_second_level = p.no_second_level != 0;
  h->page_blocks = DC_PAGE_BYTES / s->line;
  h->act_pages = act_pages_of(cfg);
  return 0;
}

static const dc_design hms_design = {
    .name = "dcache",
    .org = DC_ORG_CONFIG,
    .tags = DC_TAGS_PROBE_GROUP,
    .tag_cache = 1,
    .state_bytes = hms_state_bytes,
    .init = hms_init,
    .hit = hms_hit,
    .miss = hms_miss,
    .decide = hms_decide,
    .timing_changed = hms_timing_changed,
};

static size_t dcache_hms_state_bytes(const memside_cfg *cfg) { return dcache_state_bytes(&hms_design, cfg); }

static int dcache_hms_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return dcache_init(st, &hms_design, cfg, env, err, errlen);
}

const memside_ops memside_dcache_ops = {
    .name = "dcache",
    .desc = "HMS DRAM cache over SCM: direct-mapped lines (256 B default), AMIL metadata column, fills with write-back "
            "(hms-dram-cache-over-scm Sec. III)",
    .state_bytes = dcache_hms_state_bytes,
    .init = dcache_hms_init,
    .derive = dc_derive,
    .l2_reserved_ways = dc_l2_reserved_ways,
    DCACHE_OPS_COMMON,
};
