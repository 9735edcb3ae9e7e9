/* memside_beari: the BEARi baseline of HMS (hms-dram-cache-over-scm.txt Sec. IV-B) over the DRAM-cache
 * engine (memside_dcache_engine.c): the DRAM cache with BEAR's ideal DRAM Cache Presence (presence known
 * without an L2 lookup or a probe: no tag traffic at all), its Bandwidth-Aware Bypass (Chou, Jaleel,
 * Qureshi, ISCA 2015; the HMS paper's ref. [35]), the TAD organisation of the Alloy cache BEAR builds on,
 * and memside.dcache.line_bytes lines (configs/beari.toml: 64 B, as the paper's main results, Sec. IV-A; 256 B
 * is its Fig. 16b variant). No SCM awareness, no tag cache.
 *
 * The bypass, as Strata models it: set dueling over DRAM-cache slots. Slots with slot % BAB_PERIOD == 0
 * always fill, == 1 fill with probability 1/10 (90 % bypass); every other slot follows the 90 % bypass while
 * its hit rate stays within 1/16 of the always-fill group's, else always fills. Group counters are halved
 * every BAB_WINDOW sampled accesses so the choice follows phases.
 */
#include "memside_dcache_engine.h"
#include "memside_dcache_params.h"

#define BAB_PERIOD 32u
#define BAB_WINDOW 4096u

typedef struct beari_st {
  uint32_t rng;              /* the random draws (xorshift32, never 0) */
  uint32_t acc[2], hit[2];   /* accesses and hits of the two sampled slot groups (always fill, 90 % bypass) */
} beari_st;

static size_t beari_state_bytes(const memside_cfg *cfg) {
  (void)cfg;
  return sizeof(beari_st);
}

static void beari_sample(dc_st *s, uint64_t slot, uint64_t block, int hit) {
  (void)block;
  beari_st *b = (beari_st *)s->ds;
  const uint32_t g = (uint32_t)(slot % BAB_PERIOD);
  if (g > 1) return;
  ++b->acc[g];
  b->hit[g] += hit ? 1u : 0u;
  if (b->acc[0] + b->acc[1] >= BAB_WINDOW)
    for (int i = 0; i < 2; ++i) b->acc[i] >>= 1, b->hit[i] >>= 1;
}

static int beari_fills(beari_st *b, uint64_t slot) {
  const uint32_t g = (uint32_t)(slot % BAB_PERIOD);
  if (g == 0) return 1;
  if (g > 1) { /* a follower: bypass while the bypassing group's hit rate is within 1/16 of the filling one's */
    const uint64_t ha = (uint64_t)b->hit[0] * (b->acc[1] ? b->acc[1] : 1);
    const uint64_t hb = (uint64_t)b->hit[1] * (b->acc[0] ? b->acc[0] : 1);
    const uint64_t scale = (uint64_t)(b->acc[0] ? b->acc[0] : 1) * (b->acc[1] ? b->acc[1] : 1);
    if (hb * 16 + scale < ha * 16) return 1; /* rate_b < rate_a - 1/16: bypassing costs hits */
  }
  b->rng ^= b->rng << 13; /* xorshift32 */
  b->rng ^= b->rng >> 17;
  b->rng ^= b->rng << 5;
  return b->rng % 10u == 0; /* fill with probability 1/10 */
}

static int beari_miss(dc_st *s, const memside_req *rq, uint64_t block, uint64_t slot) {
  (void)rq, (void)block;
  return beari_fills((beari_st *)s->ds, slot) ? DC_MISS_FILL : DC_MISS_BYPASS;
}

static int beari_init(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  (void)err, (void)errlen;
  ((beari_st *)s->ds)->rng = dc_params_get(cfg).seed ? dc_params_get(cfg).seed : 0x9e3779b9u;
  return 0;
}

static const dc_design beari_design = {
    .name = "beari",
    .org = DC_ORG_TAD,
    .tags = DC_TAGS_IDEAL,
    .state_bytes = beari_state_bytes,
    .init = beari_init,
    .sample = beari_sample,
    .miss = beari_miss,
};

static size_t dcache_beari_state_bytes(const memside_cfg *cfg) { return dcache_state_bytes(&beari_design, cfg); }

static int dcache_beari_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return dcache_init(st, &beari_design, cfg, env, err, errlen);
}

const memside_ops memside_beari_ops = {
    .name = "beari",
    .desc = "BEARi baseline of HMS (Sec. IV-B): DRAM cache over SCM with ideal presence bits (no probes), BEAR's "
            "bandwidth-aware bypass, TAD",
    .state_bytes = dcache_beari_state_bytes,
    .init = dcache_beari_init,
    DCACHE_OPS_COMMON,
};
