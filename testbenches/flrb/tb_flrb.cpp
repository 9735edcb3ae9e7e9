// Verilator testbench of rtl/flrb/flrb.sv against the C reference models/ref/blocks/flrb.c.
//
// The same transactions go to the RTL (valid/ready handshakes, random response
// back-pressure) and to flrb_exec(); every response is compared field by field.
// On the first mismatch it prints seed, cycle, transaction index, the field and
// both values, and exits 1. Functional-coverage counters are asserted at the end.
//
// Usage: tb_flrb [--config full|small|tiny] [--mode directed|random|all] [--seed N]
//                [--count N] [--trace FILE.fst] [--cov FILE] [--quiet]
//   full  = the paper's sizes (flrb_pkg / flrb_params.h)
//   small = a tiny structure (FLRB_TB_SMALL_* from CMake) where capacity and
//           bucket conflicts happen constantly.
//   tiny  = 4 descriptors, 8 direct-mapped buckets (Ways = 1).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <verilated.h>
#include <verilated_cov.h>
#include <verilated_fst_c.h>

#include "Vflrb_full.h"
#include "Vflrb_small.h"
#include "Vflrb_tiny.h"

extern "C" {
#include "blocks/flrb.h"
}

namespace {

struct Opts {
  std::string config = "small";
  std::string mode = "all";
  uint64_t seed = 1;
  uint64_t count = 20000;
  std::string trace;
  std::string cov;
  bool quiet = false;
  bool require_cov = false;  // random mode: fail on functional-coverage holes
};

// splitmix64: deterministic per seed, independent of the C library.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
  bool chance(uint32_t pct) { return below(100) < pct; }
};

// Functional coverage points (asserted at the end, per mode).
enum Cov {
  C_Q0, C_Q1, C_Q2, C_Q3, C_Q4, C_Q5, C_Q6, C_Q7,          // queue reached (any response)
  C_DEM1, C_DEM2, C_DEM3, C_DEM4, C_DEM5, C_DEM6, C_DEM7,   // demoted from queue i
  C_HIT, C_CREATE, C_EV_CAP, C_EV_CAP_CB, C_EV_CONF, C_EV_CONF_CB,
  C_TICK_EMPTY, C_TICK_LIVE, C_TICK_EV, C_TICK_EV_CB, C_CAND, C_REF_SAT, C_RBM_SAT,
  C_FULL, C_EMPTY_AGAIN, C_SETPOS_HIT, C_SETPOS_MISS, C_LOOKUP_MISS, C_NEIGH_MASK,
  C_NEIGH_MISS, C_WRAP_EXPIRE, C_RESET_MID, C_BACKPRESSURE, C_BAD_OP, C_NCOV
};
const char *kCovName[C_NCOV] = {
  "queue0", "queue1", "queue2", "queue3", "queue4", "queue5", "queue6", "queue7",
  "demote_from1", "demote_from2", "demote_from3", "demote_from4", "demote_from5",
  "demote_from6", "demote_from7", "access_hit", "access_create", "evict_capacity",
  "evict_capacity_copyback", "evict_conflict", "evict_conflict_copyback", "tick_empty_queue",
  "tick_not_expired", "tick_evict", "tick_evict_copyback", "candidate", "refcnt_saturated",
  "rbmcnt_saturated", "structure_full", "empty_again", "setpos_hit", "setpos_miss",
  "lookup_miss", "neigh_mask_nonzero", "neigh_miss", "expiry_across_time_wrap",
  "reset_mid_traffic", "rsp_backpressure", "unknown_op"};

template <class V>
class Harness {
 public:
  Harness(const Opts &o, const flrb_cfg &cfg) : o_(o), rng_{o.seed} {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->randReset(2);
    ctx_->randSeed((int)(o.seed & 0x7fffffff));
    if (!o.trace.empty()) ctx_->traceEverOn(true);
    m_ = std::make_unique<V>(ctx_.get(), "TOP");
    if (!o.trace.empty()) {
      tfp_ = std::make_unique<VerilatedFstC>();
      m_->trace(tfp_.get(), 99);
      tfp_->open(o.trace.c_str());
    }
    if (flrb_init(&c_, &cfg) != 0) {
      std::fprintf(stderr, "tb_flrb: flrb_init failed\n");
      std::exit(2);
    }
    cap_ = 1u << cfg.cap_w;
    nbkt_w_ = cfg.bkt_w;
    ways_ = cfg.ways;
  }
  ~Harness() {
    if (tfp_) tfp_->close();
    m_->final();
    flrb_free(&c_);
  }

  // One clock: inputs are set while clk is low; posedge; outputs settle.
  void step() {
    m_->clk_i = 0;
    m_->eval();
    dump();
    m_->clk_i = 1;
    m_->eval();
    dump();
    cycle_++;
    m_->clk_i = 0;
    m_->eval();
  }
  void dump() {
    if (tfp_) tfp_->dump(ctx_->time());
    ctx_->timeInc(500);  // half of a 1 ns clock period (1 ps time unit): a 1 GHz controller clock in the trace
  }

  // Assert rst_ni for a few cycles; wait until the hash clear is done.
  void reset_hw() {
    m_->rst_ni = 0;
    m_->req_valid_i = 0;
    m_->rsp_ready_i = 0;
    step();
    step();
    m_->rst_ni = 1;
    m_->eval();
    flrb_reset(&c_);
    uint64_t guard = 0;
    while (!m_->req_ready_o) {
      step();
      if (++guard > (1u << 20)) fail_proto("req_ready never rises after reset");
    }
  }

  [[noreturn]] void fail_proto(const char *what) {
    std::printf("FAIL seed=%" PRIu64 " cycle=%" PRIu64 " txn=%" PRIu64 ": %s\n", o_.seed, cycle_, txn_, what);
    std::exit(1);
  }

  static flrb_resp rtl_resp(V *m) {
    flrb_resp r;
    std::memset(&r, 0, sizeof r);
    r.op = m->rsp_op_o;
    r.found = m->rsp_found_o;
    r.seg = m->rsp_seg_o;
    r.queue = m->rsp_queue_o;
    r.clr = m->rsp_clr_o;
    r.exptm = m->rsp_exptm_o;
    r.refcnt = m->rsp_refcnt_o;
    r.rbmcnt = m->rsp_rbmcnt_o;
    r.cand = m->rsp_cand_o;
    r.ev_valid = m->rsp_ev_valid_o;
    r.ev_conf = m->rsp_ev_conf_o;
    r.ev_copyback = m->rsp_ev_copyback_o;
    r.ev_seg = m->rsp_ev_seg_o;
    r.demoted = m->rsp_demoted_o;
    r.tick_q = m->rsp_tick_q_o;
    r.mask = m->rsp_mask_o;
    r.occ = m->rsp_occ_o;
    return r;
  }

  void compare(const flrb_req &q, const flrb_resp &rtl, const flrb_resp &ref) {
#define FLRB_CMP(f)                                                                                  \
  if ((uint64_t)rtl.f != (uint64_t)ref.f) {                                                          \
    std::printf("MISMATCH seed=%" PRIu64 " cycle=%" PRIu64 " txn=%" PRIu64 " field=%s rtl=0x%" PRIx64 \
                " c=0x%" PRIx64 "\n  request: op=%u seg=0x%x wr=%d pcm=%d rbm=%d clr=%d now=0x%" PRIx64 "\n", \
                o_.seed, cycle_, txn_, #f, (uint64_t)rtl.f, (uint64_t)ref.f, (unsigned)q.op, q.seg,    \
                q.is_write, q.is_pcm, q.rbm, q.clr, q.now);                                          \
    std::exit(1);                                                                                    \
  }
    FLRB_CMP(op) FLRB_CMP(found) FLRB_CMP(seg) FLRB_CMP(queue) FLRB_CMP(clr) FLRB_CMP(exptm)
    FLRB_CMP(refcnt) FLRB_CMP(rbmcnt) FLRB_CMP(cand) FLRB_CMP(ev_valid) FLRB_CMP(ev_conf)
    FLRB_CMP(ev_copyback) FLRB_CMP(ev_seg) FLRB_CMP(demoted) FLRB_CMP(tick_q) FLRB_CMP(mask)
    FLRB_CMP(occ)
#undef FLRB_CMP
  }

  // Drive one request into RTL and C model; compare. abort_after > 0: assert
  // reset that many cycles after acceptance instead (the request is dropped).
  flrb_resp txn(const flrb_req &q, int abort_after = 0) {
    m_->req_op_i = (uint8_t)q.op;
    m_->req_seg_i = q.seg;
    m_->req_write_i = q.is_write;
    m_->req_pcm_i = q.is_pcm;
    m_->req_rbm_i = q.rbm;
    m_->req_clr_i = q.clr;
    m_->req_now_i = (uint32_t)(q.now & FLRB_TIME_MASK);
    m_->req_valid_i = 1;
    m_->eval();
    uint64_t guard = 0;
    while (!m_->req_ready_o) {
      step();
      if (++guard > 1000) fail_proto("request not accepted");
    }
    step();                           // accepted at this edge
    m_->req_valid_i = 0;
    m_->req_seg_i = (uint32_t)rng_.next() & FLRB_SEG_MASK;  // inputs are don't-care now
    m_->req_now_i = (uint32_t)rng_.next() & FLRB_TIME_MASK;
    m_->eval();
    if (abort_after > 0) {
      for (int i = 1; i < abort_after; i++) step();
      reset_hw();
      cov_[C_RESET_MID]++;
      txn_++;
      flrb_resp z;
      std::memset(&z, 0, sizeof z);
      return z;
    }
    uint32_t lat = 0;
    while (!m_->rsp_valid_o) {
      step();
      if (++lat > 1000) fail_proto("no response");
    }
    if (lat > max_lat_[q.op & 7]) max_lat_[q.op & 7] = lat;
    bool pop = c_.fhead != FLRB_NIL;
    uint32_t neigh = (q.op == FLRB_OP_NEIGH) ? live_neighbours(q.seg) : 0;
    flrb_resp ref;
    flrb_exec(&c_, &q, &ref);
    uint32_t want = expected_latency(q, ref, pop, neigh);
    if (lat != want) {
      std::printf("LATENCY seed=%" PRIu64 " cycle=%" PRIu64 " txn=%" PRIu64 " op=%u: %u cycles, documented %u\n",
                  o_.seed, cycle_, txn_, (unsigned)q.op, lat, want);
      std::exit(1);
    }
    flrb_resp rtl = rtl_resp(m_.get());
    compare(q, rtl, ref);
    if (rng_.chance(10)) {            // hold the response: it must not change
      cov_[C_BACKPRESSURE]++;
      m_->rsp_ready_i = 0;
      for (uint32_t i = 0, n = 1 + rng_.below(3); i < n; i++) {
        step();
        if (!m_->rsp_valid_o) fail_proto("rsp_valid dropped under back-pressure");
        compare(q, rtl_resp(m_.get()), ref);
      }
    }
    m_->rsp_ready_i = 1;
    m_->eval();
    step();
    m_->rsp_ready_i = 0;
    m_->eval();
    count_cov(q, ref);
    txn_++;
    return ref;
  }

  // Documented latency (rtl/flrb/flrb.sv header): edges from acceptance to rsp_valid.
  uint32_t expected_latency(const flrb_req &q, const flrb_resp &r, bool pop, uint32_t neigh) const {
    switch (q.op) {
      case FLRB_OP_ACCESS:
        if (r.found) return 4;
        if (r.ev_valid) return r.ev_conf ? ways_ + 5 : 6;
        return pop ? 5 : 4;
      case FLRB_OP_TICK: return !r.found ? 0 : r.demoted ? 3 : r.ev_valid ? 2 : 1;
      case FLRB_OP_SETPOS:
      case FLRB_OP_LOOKUP: return r.found ? 2 : 1;
      case FLRB_OP_NEIGH: return r.found ? 2 + FLRB_ROW_SEGS + neigh : 1;
      default: return 0;
    }
  }
  // Existing descriptors of seg's row other than seg (before the op).
  uint32_t live_neighbours(uint32_t seg) {
    uint32_t n = 0, base = seg & ~(FLRB_ROW_SEGS - 1u);
    flrb_resp t;
    for (uint32_t k = 0; k < FLRB_ROW_SEGS; k++)
      if (base + k != seg && flrb_lookup(&c_, base + k, &t) == 1) n++;
    return n;
  }

  void count_cov(const flrb_req &q, const flrb_resp &r) {
    if (r.found || q.op == FLRB_OP_ACCESS) cov_[C_Q0 + r.queue]++;
    if (r.occ == cap_) cov_[C_FULL]++;
    if (r.occ != 0) was_nonempty_ = true;
    if (r.occ == 0 && was_nonempty_ && q.op == FLRB_OP_TICK) cov_[C_EMPTY_AGAIN]++;
    switch (q.op) {
      case FLRB_OP_ACCESS:
        cov_[r.found ? C_HIT : C_CREATE]++;
        if (r.ev_valid) {
          if (r.ev_conf) cov_[r.ev_copyback ? C_EV_CONF_CB : C_EV_CONF]++;
          else cov_[r.ev_copyback ? C_EV_CAP_CB : C_EV_CAP]++;
        }
        if (r.cand) cov_[C_CAND]++;
        if (r.refcnt == FLRB_REF_MAX) cov_[C_REF_SAT]++;
        if (r.rbmcnt == FLRB_RBM_MAX) cov_[C_RBM_SAT]++;
        break;
      case FLRB_OP_TICK:
        if (!r.found) cov_[C_TICK_EMPTY]++;
        else if (r.demoted) cov_[C_DEM1 + r.tick_q - 1]++;
        else if (r.ev_valid) cov_[r.ev_copyback ? C_TICK_EV_CB : C_TICK_EV]++;
        else cov_[C_TICK_LIVE]++;
        /* expired although exptm is numerically larger than now: the time wrapped */
        if ((r.demoted || r.ev_valid) && last_exptm_seen(r) > (uint32_t)(q.now & FLRB_TIME_MASK))
          cov_[C_WRAP_EXPIRE]++;
        break;
      case FLRB_OP_SETPOS: cov_[r.found ? C_SETPOS_HIT : C_SETPOS_MISS]++; break;
      case FLRB_OP_LOOKUP: if (!r.found) cov_[C_LOOKUP_MISS]++; break;
      case FLRB_OP_NEIGH:
        if (!r.found) cov_[C_NEIGH_MISS]++;
        if (r.mask) cov_[C_NEIGH_MASK]++;
        break;
      default: cov_[C_BAD_OP]++; break;
    }
  }
  // exptm of the head before the tick acted: for an eviction the response
  // holds it; for a demotion it was overwritten, so use now - lifetime - 1 as
  // a lower bound proxy is wrong; instead remember it from the pre-tick lookup.
  uint32_t last_exptm_seen(const flrb_resp &r) const { return r.demoted ? pre_exptm_ : r.exptm; }

  flrb_req mk(flrb_op op, uint32_t seg = 0, bool wr = false, bool pcm = true, bool rbm = false,
              bool clr = false) {
    flrb_req q;
    std::memset(&q, 0, sizeof q);
    q.op = op;
    q.seg = seg & FLRB_SEG_MASK;
    q.is_write = wr;
    q.is_pcm = pcm;
    q.rbm = rbm;
    q.clr = clr;
    q.now = now_;
    return q;
  }
  flrb_resp access(uint32_t seg, bool wr, bool pcm, bool rbm) { return txn(mk(FLRB_OP_ACCESS, seg, wr, pcm, rbm)); }
  flrb_resp tick() {
    // remember the exptm of the head the tick will examine (for wrap coverage)
    uint32_t q = c_.rr;
    pre_exptm_ = c_.cnt[q] ? c_.d[c_.head[q]].exptm : 0;
    return txn(mk(FLRB_OP_TICK));
  }
  void ticks(int n) { for (int i = 0; i < n; i++) tick(); }
  void check_c() {
    int rc = flrb_check(&c_);
    if (rc != 0) {
      std::printf("FAIL seed=%" PRIu64 " txn=%" PRIu64 ": C model invariant %d\n", o_.seed, txn_, rc);
      std::exit(1);
    }
  }
  // A segment whose bucket is b, distinct for different i (tag = i + 1).
  uint32_t seg_in_bucket(uint32_t b, uint32_t i) {
    uint32_t hi = (i + 1) << nbkt_w_;
    uint32_t s = hi;
    return s ^ (flrb_bucket(s, nbkt_w_) ^ b);  // fix the low chunk so bucket == b
  }

  // ------------------------------------------------------------ directed suite
  void directed() {
    reset_hw();
    now_ = 1000;
    // empty structure: every queue empty, misses, unknown op
    ticks(FLRB_NQ);
    txn(mk(FLRB_OP_LOOKUP, 42));
    txn(mk(FLRB_OP_SETPOS, 42, false, false, false, true));
    txn(mk(FLRB_OP_NEIGH, 42));
    { flrb_req q = mk(FLRB_OP_ACCESS); q.op = (flrb_op)6; txn(q); }
    // promotion through every queue, then saturation (PCM writes weigh 3)
    for (int i = 0; i < 70; i++) access(7, false, true, i & 1);
    for (int i = 0; i < 70; i++) access(7, true, true, true);
    // candidate, then migrated (DRAM): no longer a candidate
    txn(mk(FLRB_OP_SETPOS, 7, false, false, false, true));
    access(7, false, false, true);
    check_c();
    // demotion chain 7 -> 0 and exit with copy-back (DRAM), PCM one without
    access(8, false, true, false);
    for (int step = 0; step < 9; step++) {
      now_ += 1000;
      ticks(FLRB_NQ);
    }
    check_c();
    // time wrap-around: exptm wraps, expiry across the wrap
    reset_hw();
    now_ = FLRB_TIME_MASK - 200;                     // exptm = 2^31 - 51: not wrapped
    for (uint32_t s = 0; s < 4; s++) for (uint32_t k = 0; k <= s * 3; k++) access(100 + s, k & 1, true, false);
    now_ = FLRB_TIME_MASK + 20;                      // now wrapped to 19: all expired
    ticks(2 * FLRB_NQ);
    now_ = FLRB_TIME_MASK - 60;                      // exptm wraps to 89
    for (uint32_t s = 0; s < 4; s++) access(200 + s, true, true, true);
    now_ = FLRB_TIME_MASK - 10;                      // numerically past 89, yet not expired
    ticks(2 * FLRB_NQ);
    for (int i = 0; i < 40; i++) {
      now_ += 25;
      ticks(FLRB_NQ);
    }
    now_ += 100000;
    for (int i = 0; i < 10; i++) { ticks(FLRB_NQ); now_ += 200; }
    check_c();
    // bucket conflict: Ways+1 segments of one bucket; ties -> lowest way
    reset_hw();
    now_ = 5000;
    for (uint32_t i = 0; i <= ways_; i++) access(seg_in_bucket(3, i), false, true, false);
    txn(mk(FLRB_OP_SETPOS, seg_in_bucket(3, 1), false, false, false, true));
    for (uint32_t i = 0; i <= ways_ + 1; i++) access(seg_in_bucket(3, 10 + i), false, true, false);
    check_c();
    // fill to capacity with distinct segments spread over buckets, then beyond
    reset_hw();
    now_ = 20000;
    uint32_t n = cap_ + cap_ / 2 + 8;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t seg = (i * 0x9E3779B1u) & FLRB_SEG_MASK;
      access(seg, i & 1, (i & 2) != 0, false);
      if (i % 3 == 0) txn(mk(FLRB_OP_SETPOS, seg, false, false, false, true));
    }
    check_c();
    // everything expires and leaves: empty again; free list reuse afterwards
    now_ += 10000;
    for (uint32_t i = 0; i < 9 * cap_ / 4 + 64 && c_.occ; i++) {
      ticks(FLRB_NQ);
      now_ += 200;
    }
    for (uint32_t i = 0; i < 32; i++) access(0x3000 + i * 7, false, true, true);
    check_c();
    // neighbours: one row, several segments in the same queue, one in DRAM
    reset_hw();
    now_ = 90000;
    uint32_t base = 11u * FLRB_ROW_SEGS;
    for (uint32_t k = 0; k < FLRB_ROW_SEGS; k += 3) access(base + k, true, true, true);
    access(base + 4, false, false, false);
    txn(mk(FLRB_OP_SETPOS, base + 6, false, false, false, true));
    txn(mk(FLRB_OP_NEIGH, base));
    txn(mk(FLRB_OP_NEIGH, base + 3));
    txn(mk(FLRB_OP_NEIGH, base + 1));
    // the same with three segments of distinct buckets (survives in any config)
    reset_hw();
    for (uint32_t k = 0; k < 3; k++) access(base + k, true, true, false);
    txn(mk(FLRB_OP_NEIGH, base));
    // reset in the middle of traffic (request accepted, not answered)
    for (int k = 1; k <= 6; k++) {
      access(base + 1, false, true, false);
      txn(mk(FLRB_OP_ACCESS, base + 2, true, true, true), k);
      txn(mk(FLRB_OP_LOOKUP, base + 1));   // must be gone
    }
    check_c();
  }

  // ------------------------------------------------------------ random
  uint32_t rand_seg() {
    uint32_t r = rng_.below(100);
    if (r < 20) return (small_range_ ? 0x40 : 0x1000) + rng_.below(4);  // very hot: climb to queue 7
    if (small_range_) return rng_.below(256);
    if (r < 45) return 0x1000 + rng_.below(96);                // hot rows
    if (r < 85) return rng_.below(6000) * 5;                    // warm: about capacity
    return (uint32_t)rng_.next() & FLRB_SEG_MASK;               // cold
  }
  // Phases of 2000 transactions: three busy ones, then a quiet one (mostly
  // ticks, time runs faster) in which the structure drains towards empty.
  void random(uint64_t count) {
    reset_hw();
    small_range_ = cap_ < 1024;
    now_ = (FLRB_TIME_MASK + 1ull) - 5000;   // wraps 2^31 early, in the first busy phase
    std::vector<uint32_t> recent(64, 0);
    for (uint64_t i = 0; i < count; i++) {
      bool quiet = (i / 2000) % 4 == 3;
      uint32_t r = rng_.below(1000);
      if (quiet) {
        now_ += rng_.below(40);
        if (r < 900) { tick(); continue; }
      } else {
        now_ += rng_.chance(1) ? 100 + rng_.below(300) : rng_.below(3);
      }
      if (r < 600 && rng_.below(400) == 0) {                   // burst of PCM writes: saturation
        uint32_t seg = (small_range_ ? 0x40 : 0x1000) + rng_.below(4);
        for (uint32_t b = 0; b < 90; b++) {                      // counts as 90 transactions
          access(seg, true, true, rng_.chance(50));
          if (b + 1 == 90 || i + 1 == count) break;
          i++;
        }
      } else if (r < 600) {
        uint32_t seg = rand_seg();
        recent[i & 63] = seg;
        access(seg, rng_.chance(40), rng_.chance(70), rng_.chance(35));
      } else if (r < 900) {
        tick();
      } else if (r < 940) {
        txn(mk(FLRB_OP_SETPOS, recent[rng_.below(64)], false, false, false, rng_.chance(60)));
      } else if (r < 970) {
        txn(mk(FLRB_OP_LOOKUP, rng_.chance(50) ? recent[rng_.below(64)] : rand_seg()));
      } else if (r < 990) {
        txn(mk(FLRB_OP_NEIGH, recent[rng_.below(64)]));
      } else if (r < 999) {
        flrb_req q = mk(FLRB_OP_ACCESS);
        q.op = (flrb_op)(5 + rng_.below(3));
        txn(q);
      } else if (rng_.below(20) == 0) {                         // rare reset mid-traffic
        txn(mk(FLRB_OP_ACCESS, rand_seg(), true, true, true), 1 + (int)rng_.below(6));
      } else {
        tick();
      }
      if ((i & 4095) == 0) check_c();
    }
    check_c();
  }

  bool require(const std::vector<Cov> &need) {
    bool ok = true;
    for (Cov c : need)
      if (cov_[c] == 0) {
        std::printf("COVERAGE HOLE seed=%" PRIu64 ": %s never reached\n", o_.seed, kCovName[c]);
        ok = false;
      }
    return ok;
  }
  void report() const {
    if (o_.quiet) return;
    std::printf("functional coverage (%s):\n", o_.config.c_str());
    for (int c = 0; c < C_NCOV; c++) std::printf("  %-26s %" PRIu64 "\n", kCovName[c], cov_[c]);
    std::printf("max latency (cycles accept->rsp_valid): access %u tick %u setpos %u lookup %u neigh %u\n",
                max_lat_[0], max_lat_[1], max_lat_[2], max_lat_[3], max_lat_[4]);
  }
  void write_cov(const std::string &f) { ctx_->coveragep()->write(f.c_str()); }

  uint64_t txns() const { return txn_; }
  uint64_t cycles() const { return cycle_; }

 private:
  const Opts &o_;
  Rng rng_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> m_;
  std::unique_ptr<VerilatedFstC> tfp_;
  flrb c_;
  uint32_t cap_ = 0, nbkt_w_ = 0, ways_ = 0;
  uint64_t cycle_ = 0, txn_ = 0;
  uint64_t now_ = 0;
  uint64_t cov_[C_NCOV] = {};
  uint32_t max_lat_[8] = {};
  uint32_t pre_exptm_ = 0;
  bool was_nonempty_ = false;
  bool small_range_ = false;
};

template <class V>
int run(const Opts &o, const flrb_cfg &cfg) {
  Harness<V> h(o, cfg);
  bool ok = true;
  if (o.mode == "directed" || o.mode == "all") {
    h.directed();
    ok &= h.require({C_Q0, C_Q1, C_Q2, C_Q3, C_Q4, C_Q5, C_Q6, C_Q7, C_DEM1, C_DEM2, C_DEM3,
                     C_DEM4, C_DEM5, C_DEM6, C_DEM7, C_HIT, C_CREATE, C_EV_CAP, C_EV_CAP_CB,
                     C_EV_CONF, C_EV_CONF_CB, C_TICK_EMPTY, C_TICK_LIVE, C_TICK_EV, C_TICK_EV_CB,
                     C_CAND, C_REF_SAT, C_RBM_SAT, C_FULL, C_EMPTY_AGAIN, C_SETPOS_HIT,
                     C_SETPOS_MISS, C_LOOKUP_MISS, C_NEIGH_MASK, C_NEIGH_MISS, C_WRAP_EXPIRE,
                     C_RESET_MID, C_BAD_OP});
  }
  if (o.mode == "random" || o.mode == "all") {
    h.random(o.count);
    // Random stimulus reaches these only with enough traffic, and how much
    // depends on the seed and the structure size (the full 4K-descriptor
    // configuration fills up only after tens of thousands of transactions):
    // CTest asks for them with --require-coverage at seeds and counts that
    // reach them; any other seed and count reports holes without failing.
    if (o.require_cov) {
      // tiny (4 descriptors, direct mapped): descriptors rarely live long enough to
      // expire exactly across the single 2^31 wrap; the directed suite covers it.
      if (o.config != "tiny") ok &= h.require({C_WRAP_EXPIRE});
      ok &= h.require({C_Q0, C_Q1, C_Q2, C_Q3, C_Q4, C_Q5, C_Q6, C_Q7, C_DEM1, C_DEM2, C_DEM3,
                       C_DEM4, C_DEM5, C_DEM6, C_DEM7, C_HIT, C_CREATE, C_EV_CAP, C_EV_CAP_CB,
                       C_EV_CONF, C_EV_CONF_CB, C_TICK_EMPTY, C_TICK_LIVE, C_TICK_EV, C_TICK_EV_CB,
                       C_CAND, C_REF_SAT, C_RBM_SAT, C_FULL, C_EMPTY_AGAIN, C_SETPOS_HIT,
                       C_SETPOS_MISS, C_LOOKUP_MISS, C_NEIGH_MASK, C_BACKPRESSURE, C_BAD_OP});
    }
  }
  h.report();
  if (!o.cov.empty()) h.write_cov(o.cov);
  std::printf("%s: config=%s mode=%s seed=%" PRIu64 " transactions=%" PRIu64 " cycles=%" PRIu64
              " mismatches=0\n", ok ? "PASS" : "FAIL", o.config.c_str(), o.mode.c_str(), o.seed,
              h.txns(), h.cycles());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&](const char *name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tb_flrb: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    auto num = [&](const char *name) -> uint64_t {
      std::string v = val(name);
      char *end = nullptr;
      uint64_t x = std::strtoull(v.c_str(), &end, 0);
      if (v.empty() || *end) {
        std::fprintf(stderr, "tb_flrb: %s: expected a number, got '%s'\n", name, v.c_str());
        std::exit(2);
      }
      return x;
    };
    if (a == "--seed") o.seed = num("--seed");
    else if (a == "--count") o.count = num("--count");
    else if (a == "--trace") o.trace = val("--trace");
    else if (a == "--cov") o.cov = val("--cov");
    else if (a == "--config") o.config = val("--config");
    else if (a == "--mode") o.mode = val("--mode");
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--require-coverage") o.require_cov = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: tb_flrb [--config full|small|tiny] [--mode directed|random|all] [--seed N]\n"
                  "               [--count N] [--trace FILE.fst] [--cov coverage.dat] [--quiet]\n"
                  "               [--require-coverage]   (random mode: fail on functional-coverage holes)\n");
      return 0;
    } else {
      std::fprintf(stderr, "tb_flrb: unknown option '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (o.mode != "directed" && o.mode != "random" && o.mode != "all") {
    std::fprintf(stderr, "tb_flrb: --mode: expected directed, random or all\n");
    return 2;
  }
  flrb_cfg cfg;
  flrb_cfg_default(&cfg);
  if (o.config == "full") return run<Vflrb_full>(o, cfg);
  if (o.config == "small") {
    cfg.cap_w = FLRB_TB_SMALL_CAPW;
    cfg.bkt_w = FLRB_TB_SMALL_BKTW;
    cfg.ways = FLRB_TB_SMALL_WAYS;
    return run<Vflrb_small>(o, cfg);
  }
  if (o.config == "tiny") {
    cfg.cap_w = FLRB_TB_TINY_CAPW;
    cfg.bkt_w = FLRB_TB_TINY_BKTW;
    cfg.ways = FLRB_TB_TINY_WAYS;
    return run<Vflrb_tiny>(o, cfg);
  }
  std::fprintf(stderr, "tb_flrb: --config: expected full, small or tiny\n");
  return 2;
}
