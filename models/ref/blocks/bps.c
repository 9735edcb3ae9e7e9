/* bps: SCM-aware DRAM-cache bypass scorer, C reference (HMS paper Sec. III-C, Fig. 9).
 * Formats and decisions are specified in bps.h; rtl/bps/bps_scorer.sv matches this bit for bit. */
#include "bps.h"

#include <string.h>

_Static_assert(BPS_ENC_BYPASS_L1 < 4 && BPS_ENC_FILL_INVALID < 4 && BPS_ENC_FILL_WIN < 4 &&
                   BPS_ENC_BYPASS_L2 < 4, "miss paths index bps_counters_t.path[4]");
_Static_assert(BPS_AFF_W <= 32 && BPS_AVG_W <= 32, "state registers are held in uint32_t");

#define PEN_MASK ((1u << BPS_PEN_W) - 1u)
#define LVL_MASK ((1u << BPS_LVL_W) - 1u)

void bps_cfg_default(bps_cfg_t *cfg) {
  cfg->num_rd = BPS_NUM_RD_DEFAULT; /* tRCD,SCM - tRCD,DRAM (Table I: 120 - 14) */
  cfg->num_wr = BPS_NUM_WR_DEFAULT; /* + tWR,SCM - tWR,DRAM (Table I: 1000 - 16) */
  cfg->avg_on_miss = true;
  cfg->lfsr_seed = BPS_LFSR_SEED;
}

int bps_cfg_timing(bps_cfg_t *cfg, uint32_t trcd_dram, uint32_t trcd_scm, uint32_t twr_dram,
                   uint32_t twr_scm) {
  if (trcd_scm < trcd_dram || twr_scm < twr_dram) return -1;
  uint64_t rd = (uint64_t)trcd_scm - trcd_dram;
  uint64_t wr = rd + ((uint64_t)twr_scm - twr_dram);
  if (wr > BPS_NUM_MAX) return -1;
  cfg->num_rd = (uint32_t)rd;
  cfg->num_wr = (uint32_t)wr;
  return 0;
}

static uint32_t seed_or_default(uint32_t seed) {
  seed &= BPS_LFSR_MASK;
  return seed ? seed : BPS_LFSR_SEED;
}

int bps_init(bps_t *s, const bps_cfg_t *cfg) {
  if (cfg->num_rd > BPS_NUM_MAX || cfg->num_wr > BPS_NUM_MAX) return -1;
  if (cfg->lfsr_seed > BPS_LFSR_MASK) return -1;
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->lfsr = seed_or_default(cfg->lfsr_seed);
  return 0;
}

int bps_set_numerators(bps_t *s, uint32_t num_rd, uint32_t num_wr) {
  if (num_rd > BPS_NUM_MAX || num_wr > BPS_NUM_MAX) return -1;
  s->cfg.num_rd = num_rd;
  s->cfg.num_wr = num_wr;
  return 0;
}

void bps_set_avg_on_miss(bps_t *s, bool on) { s->cfg.avg_on_miss = on; }

void bps_clear(bps_t *s, uint32_t seed) {
  s->max_pen = 0;
  s->max_aff = 0;
  s->max_act = 0;
  s->avg = 0;
  s->lfsr = seed_or_default(seed);
  s->cnt.clears++;
}

uint32_t bps_penalty(uint32_t num, uint32_t ncols) {
  num &= BPS_NUM_MAX;
  ncols &= BPS_NCOL_MAX;
  if (ncols == 0) ncols = 1;
  return ((num << BPS_PEN_FRAC) / ncols) & PEN_MASK;
}

uint32_t bps_level(uint64_t v, uint64_t m) {
  if (m == 0) return 0;
  uint32_t lvl = 0;
  for (uint32_t k = 1; k < BPS_NLEVELS; k++)
    if (v * BPS_NLEVELS >= k * m) lvl++;
  return lvl;
}

uint32_t bps_avg_update(uint32_t avg, uint32_t pen) {
  /* avg + floor((P - avg) * AVG_WNUM / 2^AVG_WSHIFT), P = pen << AVG_XFRAC (Sec. IV-A, 1%). */
  uint64_t p = (uint64_t)pen << BPS_AVG_XFRAC;
  if (p >= avg)
    return (uint32_t)(avg + (((p - avg) * BPS_AVG_WNUM) >> BPS_AVG_WSHIFT));
  uint64_t down = ((avg - p) * BPS_AVG_WNUM + ((1ull << BPS_AVG_WSHIFT) - 1u)) >> BPS_AVG_WSHIFT;
  return (uint32_t)(avg - down);
}

uint32_t bps_lfsr_next(uint32_t state) {
  uint32_t lsb = state & 1u;
  state >>= 1;
  if (lsb) state ^= BPS_LFSR_TAPS;
  return state & BPS_LFSR_MASK;
}

/* Penalty, maxima and levels common to hits and misses; avg_level uses the old average. */
static void observe(bps_t *s, const bps_access_t *a, bps_result_t *res) {
  uint32_t act = a->act & BPS_ACT_MAX;
  uint32_t pen = bps_penalty(a->is_write ? s->cfg.num_wr : s->cfg.num_rd, a->ncols);
  uint32_t aff = pen * act; /* < 2^AFF_W */
  if (pen > s->max_pen) s->max_pen = pen;
  if (aff > s->max_aff) s->max_aff = aff;
  if (act > s->max_act) s->max_act = act;
  memset(res, 0, sizeof *res);
  res->pen = pen;
  res->pen_level = bps_level(pen, s->max_pen);
  res->aff_level = bps_level(aff, s->max_aff);
  res->avg_level = bps_level(s->avg, (uint64_t)s->max_pen << BPS_AVG_XFRAC);
  res->act = act;
  res->max_act = s->max_act;
}

void bps_hit(bps_t *s, const bps_access_t *a, bps_result_t *res) {
  observe(s, a, res);
  res->path = BPS_PATH_HIT;
  s->avg = bps_avg_update(s->avg, res->pen);
  s->cnt.hits++;
}

void bps_miss_begin(bps_t *s, const bps_access_t *a, bool victim_valid, bps_result_t *res) {
  observe(s, a, res);
  s->cnt.misses++;
  if (s->cfg.avg_on_miss) s->avg = bps_avg_update(s->avg, res->pen);
  if (res->pen_level <= res->avg_level) { /* Fig. 9 step 2: first-level comparison */
    res->path = BPS_PATH_BYPASS_L1;
    s->cnt.path[BPS_PATH_BYPASS_L1]++;
  } else if (!victim_valid) { /* "If the victim is invalid, the miss fill is done" */
    res->path = BPS_PATH_FILL_INVALID;
    res->fill = true;
    res->store_level = res->aff_level;
    s->cnt.path[BPS_PATH_FILL_INVALID]++;
  } else {
    res->need_victim = true; /* steps 3-4 need the victim's level from AMIL */
  }
}

void bps_miss_finish(bps_t *s, bps_result_t *res, uint32_t victim_level) {
  if (!res->need_victim) return;
  res->need_victim = false;
  victim_level &= LVL_MASK;
  if (res->aff_level > victim_level) { /* step 4 -> 5: replace, store the level */
    res->path = BPS_PATH_FILL_WIN;
    res->fill = true;
    res->store_level = res->aff_level;
    s->cnt.path[BPS_PATH_FILL_WIN]++;
    return;
  }
  /* Not replaced: decrement the victim's level with p_dec = act / max_act (Sec. III-C3). */
  res->path = BPS_PATH_BYPASS_L2;
  s->cnt.path[BPS_PATH_BYPASS_L2]++;
  uint32_t r = s->lfsr & BPS_ACT_MAX;
  for (uint32_t i = 0; i < BPS_LFSR_STEPS; i++) s->lfsr = bps_lfsr_next(s->lfsr);
  s->cnt.draws++;
  res->draw_hit = (uint64_t)r * res->max_act < ((uint64_t)res->act << BPS_ACT_W);
  res->dec_victim = res->draw_hit && victim_level > 0;
  res->victim_new_level = victim_level - (res->dec_victim ? 1u : 0u);
  if (res->dec_victim) s->cnt.decrements++;
}

void bps_miss(bps_t *s, const bps_access_t *a, bool victim_valid, uint32_t victim_level,
              bps_result_t *res) {
  bps_miss_begin(s, a, victim_valid, res);
  bps_miss_finish(s, res, victim_level);
}

/* ---------------------------------------------- implementation "c" */

static size_t c_state_bytes(void) { return sizeof(bps_t); }
static int c_init(void *st, const bps_cfg_t *cfg) { return bps_init((bps_t *)st, cfg); }
static int c_set_numerators(void *st, uint32_t num_rd, uint32_t num_wr) {
  return bps_set_numerators((bps_t *)st, num_rd, num_wr);
}
static void c_hit(void *st, const bps_access_t *a, bps_result_t *res) { bps_hit((bps_t *)st, a, res); }
static void c_miss(void *st, const bps_access_t *a, bool victim_valid, uint32_t victim_level, bps_result_t *res) {
  bps_miss((bps_t *)st, a, victim_valid, victim_level, res);
}
static void c_miss_begin(void *st, const bps_access_t *a, bool victim_valid, bps_result_t *res) {
  bps_miss_begin((bps_t *)st, a, victim_valid, res);
}

const bps_ops bps_c_ops = {
    .name = "c",
    .desc = "the C reference model (bps.c), the golden model of rtl/bps",
    .state_bytes = c_state_bytes,
    .init = c_init,
    .set_numerators = c_set_numerators,
    .hit = c_hit,
    .miss = c_miss,
    .miss_begin = c_miss_begin,
};
