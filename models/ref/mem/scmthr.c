/* scmthr: SCM power throttling of one memory stack (HMS Sec. III-E); see scmthr.h. */
#include "scmthr.h"

#include <stdio.h>
#include <string.h>

int scmthr_init(scmthr *t, const scmthr_cfg *cfg, char *err, size_t errlen) {
  if (!(cfg->threshold_w > 0)) {
    snprintf(err, errlen, "expected a power threshold > 0 W, got %g", cfg->threshold_w);
    return -1;
  }
  if (!cfg->window_ps) {
    snprintf(err, errlen, "expected a window > 0");
    return -1;
  }
  if (!cfg->rcd_mult || !cfg->wr_mult || (cfg->rcd_mult == 1 && cfg->wr_mult == 1)) {
    snprintf(err, errlen, "expected multipliers >= 1 and not both 1 (tRCD x%u, tWR x%u)", cfg->rcd_mult, cfg->wr_mult);
    return -1;
  }
  memset(t, 0, sizeof *t);
  t->cfg = *cfg;
  return 0;
}

int scmthr_window(scmthr *t, uint64_t now_ps, double energy_j) {
  const uint64_t dt = now_ps > t->last_ps ? now_ps - t->last_ps : 0;
  const double p = dt ? (energy_j - t->last_energy_j) / ((double)dt * 1e-12) : 0.0;
  t->last_energy_j = energy_j;
  t->last_ps = now_ps;
  t->last_power_w = p;
  if (p > t->peak_power_w) t->peak_power_w = p;
  ++t->windows;
  const uint8_t hot = p > t->cfg.threshold_w;
  if (hot == t->throttled) return 0;
  if (hot) {
    t->since_ps = now_ps;
    ++t->engagements;
  } else {
    t->throttled_ps += now_ps - t->since_ps;
  }
  t->throttled = hot;
  return 1;
}

void scmthr_mult(const scmthr *t, uint32_t *rcd_mult, uint32_t *wr_mult) {
  *rcd_mult = t->throttled ? t->cfg.rcd_mult : 1;
  *wr_mult = t->throttled ? t->cfg.wr_mult : 1;
}

uint64_t scmthr_throttled_ps(const scmthr *t, uint64_t now_ps) {
  return t->throttled_ps + (t->throttled && now_ps > t->since_ps ? now_ps - t->since_ps : 0);
}
