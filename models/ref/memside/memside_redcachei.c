/* memside_redcachei: the RedCachei baseline of HMS (hms-dram-cache-over-scm.txt Sec. IV-B; the paper's ref.
 * [25]) over the DRAM-cache engine (memside_dcache_engine.c), as Strata models it from the HMS paper's
 * description ("bypasses DRAM cache with dynamic access count thresholds to identify hot data", "an ideal
 * gamma update without DRAM BW overhead"): a line missing the DRAM cache is filled once it has been accessed
 * gamma times (hashed per-line counters, kept at no cost); gamma moves by one every RED_EPOCH accesses,
 * hill-climbing on the epoch's DRAM-cache hit rate (the same direction while the rate does not fall, else
 * back). The Alloy-style TAD organisation RedCache builds on (a probe per access reads the line's
 * tag-bearing column), memside.dcache.line_bytes lines, no tag cache, no SCM awareness.
 */
#include "memside_dcache_engine.h"

#define RED_COUNTERS 16384u
#define RED_EPOCH 4096u
#define RED_GAMMA_MIN 1u
#define RED_GAMMA_MAX 8u

typedef struct redcachei_st {
  uint32_t gamma;                 /* the threshold now, RED_GAMMA_MIN..RED_GAMMA_MAX */
  int32_t step;                   /* its last move, +1 or -1 */
  uint32_t acc, hit;              /* accesses and hits of the current epoch */
  uint64_t prev_hit, prev_acc;    /* those of the previous epoch */
  uint8_t cnt[RED_COUNTERS];      /* accesses per line (hashed), counted while it is not cached */
} redcachei_st;

static size_t redcachei_state_bytes(const memside_cfg *cfg) {
  (void)cfg;
  return sizeof(redcachei_st);
}

static void redcachei_sample(dc_st *s, uint64_t slot, uint64_t block, int hit) {
  (void)slot, (void)block;
  redcachei_st *r = (redcachei_st *)s->ds;
  ++r->acc;
  r->hit += hit ? 1u : 0u;
  if (r->acc < RED_EPOCH) return;
  /* rate now < rate before (cross-multiplied): turn round */
  if (r->prev_acc && (uint64_t)r->hit * r->prev_acc < r->prev_hit * r->acc) r->step = -r->step;
  const int32_t g = (int32_t)r->gamma + r->step;
  r->gamma = g < (int32_t)RED_GAMMA_MIN ? RED_GAMMA_MIN : g > (int32_t)RED_GAMMA_MAX ? RED_GAMMA_MAX : (uint32_t)g;
  r->prev_hit = r->hit;
  r->prev_acc = r->acc;
  r->acc = r->hit = 0;
}

/* Not accessed gamma times yet: to SCM, no fill. */
static int redcachei_miss(dc_st *s, const memside_req *rq, uint64_t block, uint64_t slot) {
  (void)rq, (void)slot;
  redcachei_st *r = (redcachei_st *)s->ds;
  uint8_t *c = &r->cnt[(uint32_t)(((block + 1) * 0x9e3779b97f4a7c15ull) >> 50) & (RED_COUNTERS - 1)];
  if (*c < 255) ++*c;
  if (*c < r->gamma) return DC_MISS_BYPASS;
  *c = 0;
  return DC_MISS_FILL;
}

static int redcachei_init(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  (void)cfg, (void)err, (void)errlen;
  redcachei_st *r = (redcachei_st *)s->ds;
  r->gamma = 2;
  r->step = 1;
  return 0;
}

static const dc_design redcachei_design = {
    .name = "redcachei",
    .org = DC_ORG_TAD,
    .tags = DC_TAGS_PROBE_LINE,
    .state_bytes = redcachei_state_bytes,
    .init = redcachei_init,
    .sample = redcachei_sample,
    .miss = redcachei_miss,
};

static size_t dcache_redcachei_state_bytes(const memside_cfg *cfg) { return dcache_state_bytes(&redcachei_design, cfg); }

static int dcache_redcachei_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return dcache_init(st, &redcachei_design, cfg, env, err, errlen);
}

const memside_ops memside_redcachei_ops = {
    .name = "redcachei",
    .desc = "RedCachei baseline of HMS (Sec. IV-B): DRAM cache over SCM filling a line after gamma accesses (ideal "
            "gamma update), TAD probes per access",
    .state_bytes = dcache_redcachei_state_bytes,
    .init = dcache_redcachei_init,
    DCACHE_OPS_COMMON,
};
