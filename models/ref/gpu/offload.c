/* offload: TOM bandwidth cost-benefit (Eq. 1-4) and candidate decision
 * (Sec. 3.1.2-3.1.4). See offload.h. */
#include "offload.h"

#include <stddef.h>

#define OFL_MAX_TOTAL (UINT64_C(1) << 32)

void ofl_params_paper(ofl_params *p) {
  p->warp_size = 32;          /* Sec. 3.1.1: "S_W is the size of a warp (e.g. 32)" */
  p->line_words = 32;         /* "32 for 128B cache lines and 4B addresses" */
  p->coal_ld_q16 = OFL_ONE;   /* "we assume all memory instructions ... perfectly coalesced" */
  p->coal_st_q16 = OFL_ONE;
  p->miss_ld_q16 = OFL_ONE / 2; /* "we choose an estimate of 50% for Miss_LD" */
}

int ofl_params_check(const ofl_params *p) {
  if (!p || p->warp_size < 1 || p->warp_size > 64 || p->line_words < 1 || p->line_words > 256) return -1;
  const uint64_t max_coal = (uint64_t)p->warp_size << OFL_Q;
  if (p->coal_ld_q16 < OFL_ONE || p->coal_ld_q16 > max_coal) return -1;
  if (p->coal_st_q16 < OFL_ONE || p->coal_st_q16 > max_coal) return -1;
  if (p->miss_ld_q16 > OFL_ONE) return -1;
  return 0;
}

static int counts_ok(const ofl_counts *c) {
  return c && c->reg_tx <= OFL_MAX_REGS && c->reg_rx <= OFL_MAX_REGS && c->n_ld <= OFL_MAX_TOTAL &&
         c->n_st <= OFL_MAX_TOTAL;
}

int ofl_bw_thread(const ofl_counts *c, ofl_bw *out) {
  if (!counts_ok(c) || !out) return -1;
  const int64_t one = OFL_ONE;
  const int64_t ld = (int64_t)c->n_ld, st = (int64_t)c->n_st;
  out->tx_q16 = (int64_t)c->reg_tx * one - (ld * one + 2 * st * one); /* Eq. 1 */
  out->rx_q16 = (int64_t)c->reg_rx * one - (ld * one + st * one / 4); /* Eq. 2 */
  return 0;
}

int ofl_bw_warp(const ofl_params *p, const ofl_counts *c, ofl_bw *out) {
  if (ofl_params_check(p) != 0 || !counts_ok(c) || !out) return -1;
  const int64_t sw = p->warp_size, sc = p->line_words;
  const int64_t ld = (int64_t)c->n_ld, st = (int64_t)c->n_st;
  /* Coal_LD x Miss_LD in Q16, rounded once: <= 2^22 (Coal <= 64, Miss <= 1). */
  const int64_t cm = ((int64_t)p->coal_ld_q16 * (int64_t)p->miss_ld_q16 + (OFL_ONE / 2)) >> OFL_Q;
  const int64_t coal_st = p->coal_st_q16;
  /* Eq. 3: loads send addresses of the lines that miss; stores send address and data. */
  const int64_t tx_benefit = ld * cm + st * (sw * OFL_ONE + coal_st);
  /* Eq. 4: loads receive S_C words per missing line; stores an acknowledgement (1/4) per line. */
  const int64_t rx_benefit = ld * cm * sc + (st * coal_st) / 4;
  out->tx_q16 = (int64_t)c->reg_tx * sw * OFL_ONE - tx_benefit;
  out->rx_q16 = (int64_t)c->reg_rx * sw * OFL_ONE - rx_benefit;
  return 0;
}

static int block_ok(const ofl_block *b) {
  if (!b || b->live_in > OFL_MAX_REGS || b->live_out > OFL_MAX_REGS || b->n_ld > OFL_MAX_OPS ||
      b->n_st > OFL_MAX_OPS || (b->limits & ~OFL_LIMIT_ALL))
    return 0;
  switch (b->trip) {
    case OFL_TRIP_NONE:
    case OFL_TRIP_AT_ENTRY:
    case OFL_TRIP_UNKNOWN: return 1;
    case OFL_TRIP_STATIC: return b->trips >= 1;
  }
  return 0;
}

static uint32_t clamp_trips(uint32_t t) { return t < 1 ? 1 : t > OFL_MAX_TRIPS ? OFL_MAX_TRIPS : t; }

int ofl_block_bw(const ofl_params *p, const ofl_block *b, uint32_t trips, ofl_bw *out) {
  if (!block_ok(b)) return -1;
  const uint64_t n = b->trip == OFL_TRIP_NONE ? 1 : clamp_trips(trips);
  ofl_counts c;
  c.reg_tx = b->live_in;
  c.reg_rx = b->live_out;
  c.n_ld = (uint64_t)b->n_ld * n; /* Sec. 3.1.3: the trip count multiplies loads and stores */
  c.n_st = (uint64_t)b->n_st * n;
  return ofl_bw_warp(p, &c, out);
}

static uint32_t tag_of(const ofl_bw *bw) {
  return (bw->tx_q16 < 0 ? OFL_TAG_TX : 0u) | (bw->rx_q16 < 0 ? OFL_TAG_RX : 0u);
}

int ofl_decide(const ofl_params *p, const ofl_block *b, ofl_decision *out) {
  if (ofl_params_check(p) != 0 || !block_ok(b) || !out) return -1;
  ofl_decision d;
  d.kind = OFL_NOT_CANDIDATE;
  d.min_trips = 0;
  d.trips_used = b->trip == OFL_TRIP_STATIC ? clamp_trips(b->trips) : 1;
  if (b->trip == OFL_TRIP_AT_ENTRY) {
    /* Smallest trip count with BW_TX + BW_RX < 0: the total does not increase
     * with the trip count (more loads/stores, same registers), so bisect. */
    ofl_bw bw;
    ofl_block_bw(p, b, OFL_MAX_TRIPS, &bw);
    if (bw.tx_q16 + bw.rx_q16 < 0) {
      uint32_t lo = 1, hi = OFL_MAX_TRIPS;
      while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        ofl_block_bw(p, b, mid, &bw);
        if (bw.tx_q16 + bw.rx_q16 < 0) hi = mid;
        else lo = mid + 1;
      }
      d.min_trips = lo;
      d.trips_used = lo;
    }
  }
  ofl_block_bw(p, b, d.trips_used, &d.bw);
  d.tag = tag_of(&d.bw);
  const int saves = d.bw.tx_q16 + d.bw.rx_q16 < 0;
  if (b->limits == 0 && saves) d.kind = b->trip == OFL_TRIP_AT_ENTRY ? OFL_CONDITIONAL : OFL_CANDIDATE;
  *out = d;
  return 0;
}

int ofl_offload_allowed(const ofl_decision *d, uint32_t trips) {
  if (!d) return 0;
  if (d->kind == OFL_CANDIDATE) return 1;
  return d->kind == OFL_CONDITIONAL && trips >= d->min_trips;
}
