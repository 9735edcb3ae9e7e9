/* scmthr: SCM power throttling of one memory stack (HMS,
 * hms-dram-cache-over-scm.txt Sec. III-E: "a simple SCM power throttling
 * technique that monitors the memory stack's temperature and adjusts SCM's
 * timing parameters. If the temperature increases too high, the timing
 * parameters for SCM activation (tRCD) and/or write recovery (tWR) are
 * doubled to limit power consumption"; Fig. 20: "at (wt) indicates power
 * throttling by doubling the corresponding timing parameters").
 *
 * Strata has no thermal model; the proxy for the stack's temperature is the
 * average power of its SCM ranks over a window (their energy from the energy
 * model, docs/memctrl.md, at the window's end minus at its start, over the
 * window). The decision is made once per window, at its end: the stack is
 * throttled during the next window when the last window's SCM power exceeded
 * the threshold, and runs at the preset's timing again when it did not. The
 * SCM power is the part throttling acts on (the DRAM ranks' power does not
 * respond to it, so a threshold on the whole stack could keep it throttled for
 * nothing).
 *
 * The caller (the SystemC shell models/memctrl/scm_throttle.h) owns time and
 * energy: it calls scmthr_window() at every window boundary with the stack's
 * cumulative SCM energy and applies the multipliers scmthr_mult() reports to
 * the SCM ranks (mc_scale_rank_timing) when the state changes. No allocation,
 * no printing, no globals.
 */
#ifndef STRATA_SCMTHR_H
#define STRATA_SCMTHR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scmthr_cfg {
  double threshold_w;    /* average SCM power of the stack above which it is throttled, watts (> 0) */
  uint64_t window_ps;    /* evaluation window, picoseconds (> 0) */
  uint32_t rcd_mult;     /* tRCD multiplier while throttled (>= 1; the paper: 2) */
  uint32_t wr_mult;      /* tWR multiplier while throttled (>= 1; the paper: 2); not both 1 */
} scmthr_cfg;

typedef struct scmthr {
  scmthr_cfg cfg;
  double last_energy_j;  /* cumulative SCM energy at the last window boundary */
  double last_power_w;   /* average SCM power of the last window */
  double peak_power_w;   /* highest window average so far */
  uint64_t last_ps;      /* time of the last window boundary */
  uint64_t since_ps;     /* start of the current throttled period (when throttled) */
  uint64_t throttled_ps; /* throttled time in completed periods */
  uint64_t windows;      /* windows evaluated */
  uint64_t engagements;  /* transitions into the throttled state */
  uint8_t throttled;
} scmthr;

/* Validate cfg and reset *t (not throttled, time and energy 0). Returns 0, or
 * -1 with a one-line reason in err (t untouched). */
int scmthr_init(scmthr *t, const scmthr_cfg *cfg, char *err, size_t errlen);

/* End of a window at time now_ps (> the last boundary) with the stack's
 * cumulative SCM energy energy_j (>= the last one): decides the state for the
 * next window. Returns 1 when the state changed (apply scmthr_mult), else 0. */
int scmthr_window(scmthr *t, uint64_t now_ps, double energy_j);

/* The tRCD and tWR multipliers in force (1, 1 when not throttled). */
void scmthr_mult(const scmthr *t, uint32_t *rcd_mult, uint32_t *wr_mult);

/* Throttled time from 0 up to now_ps (>= the last boundary), picoseconds. */
uint64_t scmthr_throttled_ps(const scmthr *t, uint64_t now_ps);

#ifdef __cplusplus
}
#endif
#endif
