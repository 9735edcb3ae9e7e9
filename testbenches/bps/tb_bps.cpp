// Verilator testbench of the bypass scorer (rtl/bps/bps_scorer.sv) against its C reference
// (models/ref/blocks/bps.c). Every transaction goes to the RTL and to the C model; the response fields
// and the state registers are compared one by one. Directed corner cases first, then seeded
// random traffic in phases ("regimes") that drive the moving average to every level.
//
// Usage: tb_bps [--mode directed|random|both] [--seed N] [--count N] [--trace FILE.fst]
//               [--coverage FILE] [--variant r1|r4] [--no-cov-check] [--quiet]
//   --trace writes FST; a name ending in .vcd is converted with fst2vcd (GTKWave tools).
//   --variant r4 runs the block built with DivStepsPerCycle = 4.
// Exit status: 0 pass; 1 mismatch, protocol error or unmet functional coverage; 2 bad usage.
#include <verilated.h>
#include <verilated_cov.h>
#include <verilated_fst_c.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vbps_scorer.h"
#include "Vbps_scorer_r4.h"
#include "blocks/bps.h"

namespace {

struct Opts {
  std::string mode = "both";
  uint64_t seed = 1;
  uint64_t count = 100000;
  std::string trace;
  std::string coverage = "coverage.dat";
  std::string variant = "r1";
  bool cov_check = true;
  bool quiet = false;
};

// One request as the harness drives it (stimulus + timing of the handshake).
struct Req {
  unsigned op = BPS_OP_MISS;
  unsigned ncols = 1, wr = 0, act = 1, vvalid = 0, vlevel = 0, seed = 0;
  unsigned num_rd = BPS_NUM_RD_DEFAULT, num_wr = BPS_NUM_WR_DEFAULT, avg_on_miss = 1;
  unsigned gap = 0;    // idle cycles (req_valid low) before the request
  unsigned stall = 0;  // cycles resp_ready is held low once resp_valid is seen
  int reset_at = -1;   // >= 1: assert reset this many cycles after the handshake cycle
};

// Functional coverage points (asserted at the end).
enum Cov {
  C_BYPASS_L1, C_FILL_INVALID, C_FILL_WIN, C_BYPASS_L2, C_HIT, C_CLEAR,
  C_DEC, C_NODEC_DRAW, C_NODEC_LEVEL0, C_DRAWHIT_LEVEL0,
  C_PEN_L0, C_PEN_L1, C_PEN_L2, C_PEN_L3,
  C_AVG_L0, C_AVG_L1, C_AVG_L2, C_AVG_L3,
  C_AFF_L0, C_AFF_L1, C_AFF_L2, C_AFF_L3,
  C_STORE_L0, C_STORE_L1, C_STORE_L2, C_STORE_L3,
  C_VICT_L0, C_VICT_L1, C_VICT_L2, C_VICT_L3,
  C_TIE_PEN_AVG, C_TIE_AFF_VICT, C_PEN_ON_BOUNDARY, C_PEN_IS_MAX,
  C_NCOLS0, C_NCOLS_GT_ROW, C_ACT_MAX, C_ACT0, C_WRITE, C_PEN_ZERO,
  C_AVG_OFF_MISS, C_CFG_CHANGE, C_CLEAR_SEED0,
  C_RESET_BUSY, C_RESET_RESP, C_RESP_STALL, C_BACK_TO_BACK,
  C_NUM
};
const char *const kCovName[C_NUM] = {
  "path.bypass_l1", "path.fill_invalid", "path.fill_win", "path.bypass_l2", "path.hit",
  "path.clear", "victim.decremented", "victim.kept_by_draw", "victim.kept_at_level0",
  "victim.draw_hit_at_level0",
  "pen_level.0", "pen_level.1", "pen_level.2", "pen_level.3",
  "avg_level.0", "avg_level.1", "avg_level.2", "avg_level.3",
  "aff_level.0", "aff_level.1", "aff_level.2", "aff_level.3",
  "store_level.0", "store_level.1", "store_level.2", "store_level.3",
  "victim_level_l2.0", "victim_level_l2.1", "victim_level_l2.2", "victim_level_l2.3",
  "tie.pen_eq_avg_level", "tie.aff_eq_victim_level", "pen.on_level_boundary", "pen.equals_max",
  "ncols.zero", "ncols.above_row", "act.max", "act.zero", "write", "pen.zero",
  "miss.avg_not_updated", "cfg.numerators_changed", "clear.seed0",
  "reset.while_busy", "reset.while_resp_held", "resp.stalled", "req.back_to_back",
};
static_assert(BPS_NLEVELS == 4, "coverage bins assume 4 levels");

template <class M>
class Harness {
 public:
  Harness(const Opts &o, VerilatedContext *ctx) : o_(o), ctx_(ctx), rng_(o.seed) {
    dut_ = std::make_unique<M>(ctx_, "bps_scorer");
    if (!o_.trace.empty()) {
      ctx_->traceEverOn(true);
      tfp_ = std::make_unique<VerilatedFstC>();
      dut_->trace(tfp_.get(), 99);
      // The model is built with FST tracing; a .vcd name gets an FST converted by fst2vcd.
      fst_path_ = o_.trace;
      if (fst_path_.size() > 4 && fst_path_.compare(fst_path_.size() - 4, 4, ".vcd") == 0) fst_path_ += ".fst";
      tfp_->open(fst_path_.c_str());
    }
    d_ = (BPS_PEN_W + steps() - 1) / steps();
    bps_cfg_default(&cfg_);
    dut_->clk_i = 0;
    dut_->rst_ni = 1;
    idle_inputs();
    reset(3);
  }
  ~Harness() {
    dut_->final();
    close_trace();
  }
  void close_trace() {
    if (!tfp_) return;
    tfp_->close();
    tfp_.reset();
    if (fst_path_ != o_.trace) {
      std::string cmd = "fst2vcd '" + fst_path_ + "' -o '" + o_.trace + "' >/dev/null";
      if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "tb_bps: fst2vcd failed, FST kept in %s\n", fst_path_.c_str());
      else std::remove(fst_path_.c_str());
    }
  }

  static unsigned steps();

  // ---- directed suite -----------------------------------------------------------------
  void directed() {
    Req r;
    // cold start: state is zero, the first miss sets the maxima and fills (victim invalid)
    r = miss(1, 1, 10, 0, 0);
    run(r);
    // second-level comparison: tie with a top-level victim -> bypass, p_dec = 1 (act == max)
    run(miss(1, 1, 10, 1, 3));
    run(miss(1, 1, 10, 1, 2));      // request level 3 beats 2 -> fill
    run(miss(1, 1, 0, 1, 1));       // act 0: affinity level 0, p_dec = 0
    run(miss(1, 1, 0, 1, 0));       // victim at level 0 is never decremented (tie 0 == 0)
    run(miss(64, 0, 10, 1, 0));     // streaming read: lowest level -> first-level bypass
    // level boundaries: num 64 -> max pen 1024; ncols 2,3,4,5 -> 512, 341, 256 (=1/4), 204
    Req c = clear(0x1234);
    run(c);
    for (unsigned n = 1; n <= 8; n++) {
      Req m = miss(n, 0, 200 - 20 * n, 0, 0);
      m.num_rd = 64;
      run(m);
    }
    // ties between the request's and the average's level: identical traffic lets the
    // average climb to the top level; then every miss bypasses at the first level
    run(clear(0));
    for (int i = 0; i < 400; i++) run(miss(4, 0, 7, 1, (unsigned)i & 3));
    // hits only (avg_on_miss off for misses in between)
    run(clear(77));
    for (int i = 0; i < 50; i++) {
      Req h = hit(1 + (unsigned)i % 5, i & 1, (unsigned)i * 5);
      run(h);
      Req m = miss(2, 1, 100, 1, 1);
      m.avg_on_miss = 0;
      run(m);
    }
    // extremes: largest numerator, one column, act at its maximum; the average saturates
    // at the top of its register without overflow; then zero penalties
    run(clear(0xffff));
    for (int i = 0; i < 1500; i++) {
      Req h = hit(1, 1, BPS_ACT_MAX);
      h.num_wr = BPS_NUM_MAX;
      run(h);
    }
    for (unsigned v = 0; v < 4; v++) {
      Req m = miss(0, 1, BPS_ACT_MAX, 1, v);
      m.num_wr = BPS_NUM_MAX;
      run(m);
    }
    Req big = miss(BPS_NCOL_MAX, 0, 0, 1, 3);
    run(big);
    for (int i = 0; i < 20; i++) {
      Req z = miss(1, 0, 5, i & 1, 2);
      z.num_rd = 0;
      run(z);  // pen 0
    }
    // throttling: tRCD and tWR doubled (Sec. III-E) mid-stream
    run(clear(3));
    for (int i = 0; i < 60; i++) {
      Req m = miss(1 + (unsigned)i % 9, i % 3 == 0, 30 + (unsigned)i, 1, (unsigned)i & 3);
      if (i >= 30) {
        m.num_rd = 2 * BPS_NUM_RD_DEFAULT;
        m.num_wr = 2 * BPS_NUM_WR_DEFAULT;
      }
      run(m);
    }
    // handshake corner cases: long response stalls, back to back, idle gaps
    for (int i = 0; i < 20; i++) {
      Req m = miss(1 + (unsigned)i, i & 1, 100, 1, 3);
      m.stall = (unsigned)(i * 3);
      m.gap = (unsigned)(i % 2 ? 0 : 7);
      run(m);
    }
    // reset in every cycle of a transaction, and while the response is held
    for (unsigned k = 1; k <= d_ + 4; k++) {
      run(miss(2, 1, 40, 1, 1));
      Req m = miss(3, 0, 9, 1, 2);
      m.stall = 3;
      m.reset_at = (int)k;
      run(m);
    }
    Req cl = clear(5);
    cl.stall = 2;
    cl.reset_at = 1;
    run(cl);
    // decrement probability: act = max/4 over many draws (checked against the model draw
    // by draw; the rate itself is checked by unit_test_bps)
    run(clear(0x5a5a));
    run(miss(1, 1, 200, 0, 0));
    for (int i = 0; i < 300; i++) run(miss(1, 1, 50, 1, 3));
    // successful draws against a level-0 victim must not decrement (p_dec = 40/200, the
    // request's affinity level 0 ties the victim's)
    run(clear(0x0bad));
    run(miss(1, 1, 200, 0, 0));
    for (int i = 0; i < 60; i++) run(miss(1, 1, 40, 1, 0));
  }

  // ---- random traffic -------------------------------------------------------------------
  void random(uint64_t count) {
    uint64_t left_in_regime = 0;
    int regime = 0;
    unsigned fix_ncols = 1, fix_wr = 0, fix_act = 1;
    Req cfgr;  // current configuration
    for (uint64_t i = 0; i < count; i++) {
      if (left_in_regime == 0) {
        regime = chance(0.3) ? 1 : (int)uni(0, 4);
        left_in_regime = uni(100, 1500);
        fix_ncols = (unsigned)uni(1, 40);
        fix_wr = chance(0.3);
        fix_act = (unsigned)uni(0, BPS_ACT_MAX);
        // a steady phase after a clear (e.g. a new kernel) lets the average reach the top level
        if (regime == 1 && chance(0.7)) {
          Req c = cfgr;
          c.op = BPS_OP_CLEAR;
          c.seed = chance(0.35) ? 0 : (unsigned)uni(0, BPS_LFSR_MASK);
          run(c);
        }
      }
      left_in_regime--;
      Req r = cfgr;
      r.op = chance(0.45) ? BPS_OP_HIT : BPS_OP_MISS;
      switch (regime) {
        case 0:  // mixed
          r.ncols = rand_ncols();
          r.wr = chance(0.3);
          r.act = rand_act();
          break;
        case 1:  // steady: the average converges to this traffic's level (ties)
          r.ncols = fix_ncols + (chance(0.1) ? (unsigned)uni(0, 2) : 0);
          r.wr = fix_wr;
          r.act = fix_act;
          break;
        case 2:  // write-heavy, little spatial locality (Fig. 8b)
          r.ncols = chance(0.98) ? (unsigned)uni(0, 4) : (unsigned)uni(BPS_ROW_COLS + 1, BPS_NCOL_MAX);
          r.wr = chance(0.9);
          r.act = rand_act();
          break;
        case 3:  // streaming reads (Fig. 8a) with a few single writes
          r.ncols = chance(0.9) ? (unsigned)uni(16, BPS_ROW_COLS) : 1;
          r.wr = !(r.ncols > 1);
          r.act = rand_act();
          break;
        default:  // activation counters disabled (act = 1), as in the paper's evaluation
          r.ncols = rand_ncols();
          r.wr = chance(0.3);
          r.act = 1;
          break;
      }
      r.vvalid = chance(0.85);
      r.vlevel = (unsigned)uni(0, BPS_NLEVELS - 1);
      r.gap = chance(0.7) ? 0 : (unsigned)uni(1, 5);
      r.stall = chance(0.8) ? 0 : (unsigned)uni(1, 4);
      if (chance(0.001)) {
        r.op = BPS_OP_CLEAR;
        r.seed = chance(0.35) ? 0 : (unsigned)uni(0, BPS_LFSR_MASK);
      }
      if (chance(0.002)) {  // numerators reprogrammed (throttling, another device, tiny gaps)
        int k = (int)uni(0, 3);
        cfgr.num_rd = k == 0 ? BPS_NUM_RD_DEFAULT : k == 1 ? 2 * BPS_NUM_RD_DEFAULT
                    : k == 2 ? (unsigned)uni(0, BPS_NUM_MAX) : (chance(0.5) ? 0 : (unsigned)uni(1, 4));
        cfgr.num_wr = k == 0 ? BPS_NUM_WR_DEFAULT : k == 1 ? 2 * BPS_NUM_WR_DEFAULT
                    : k == 2 ? (unsigned)uni(0, BPS_NUM_MAX) : (unsigned)uni(0, 40);
        r.num_rd = cfgr.num_rd;
        r.num_wr = cfgr.num_wr;
      }
      if (chance(0.001)) cfgr.avg_on_miss = r.avg_on_miss = !cfgr.avg_on_miss;
      if (chance(0.001)) {  // reset mid-traffic: while busy, or while the response is held
        if (chance(0.5)) {
          r.stall = (unsigned)uni(1, 4);
          r.reset_at = (int)(d_ + 2 + uni(0, r.stall - 1));
        } else {
          r.reset_at = (int)uni(1, d_ + 1);
        }
      }
      run(r);
    }
  }

  // ---- coverage -------------------------------------------------------------------------
  bool check_coverage() const {
    bool ok = true;
    for (int i = 0; i < C_NUM; i++) {
      if (!o_.quiet || cov_[i] == 0)
        std::printf("  cov %-28s %10" PRIu64 "%s\n", kCovName[i], cov_[i], cov_[i] ? "" : "  <-- MISSED");
      if (cov_[i] == 0) ok = false;
    }
    return ok;
  }
  uint64_t txns() const { return txn_; }
  uint64_t cycles() const { return cycle_; }

 private:
  // ---- stimulus helpers -------------------------------------------------------------
  Req miss(unsigned ncols, unsigned wr, unsigned act, unsigned vv, unsigned vl) {
    Req r = base_;
    r.op = BPS_OP_MISS;
    r.ncols = ncols; r.wr = wr; r.act = act; r.vvalid = vv; r.vlevel = vl;
    return r;
  }
  Req hit(unsigned ncols, unsigned wr, unsigned act) {
    Req r = miss(ncols, wr, act, 0, 0);
    r.op = BPS_OP_HIT;
    return r;
  }
  Req clear(unsigned seed) {
    Req r = base_;
    r.op = BPS_OP_CLEAR;
    r.seed = seed;
    return r;
  }
  uint64_t uni(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  unsigned rand_ncols() {
    double p = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (p < 0.40) return (unsigned)uni(1, 4);
    if (p < 0.70) return (unsigned)uni(5, 16);
    if (p < 0.95) return (unsigned)uni(17, BPS_ROW_COLS);
    return chance(0.5) ? 0 : (unsigned)uni(BPS_ROW_COLS + 1, BPS_NCOL_MAX);
  }
  unsigned rand_act() {
    double p = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (p < 0.1) return BPS_ACT_MAX;
    if (p < 0.2) return (unsigned)uni(0, 3);
    return (unsigned)uni(0, BPS_ACT_MAX);
  }

  // ---- clocking -------------------------------------------------------------------------
  void half(int clk) {
    dut_->clk_i = clk;
    dut_->eval();
    if (tfp_) tfp_->dump(ctx_->time());
    ctx_->timeInc(500);  // 1 ns clock period (1 GHz memory-bus clock, HMS Table I)
  }
  void tick() {
    half(1);
    half(0);
    cycle_++;
  }
  // Inputs while no request is offered: random values that must be ignored.
  void idle_inputs() {
    dut_->req_valid_i = 0;
    dut_->req_op_i = (uint8_t)uni(0, 2);
    dut_->req_ncols_i = (uint8_t)uni(0, BPS_NCOL_MAX);
    dut_->req_write_i = (uint8_t)uni(0, 1);
    dut_->req_act_i = (uint8_t)uni(0, BPS_ACT_MAX);
    dut_->req_victim_valid_i = (uint8_t)uni(0, 1);
    dut_->req_victim_level_i = (uint8_t)uni(0, BPS_NLEVELS - 1);
    dut_->req_seed_i = (uint16_t)uni(0, BPS_LFSR_MASK);
    dut_->cfg_num_rd_i = (uint16_t)uni(0, BPS_NUM_MAX);
    dut_->cfg_num_wr_i = (uint16_t)uni(0, BPS_NUM_MAX);
    dut_->cfg_avg_on_miss_i = (uint8_t)uni(0, 1);
  }
  void reset(unsigned cycles) {
    dut_->rst_ni = 0;
    dut_->resp_ready_i = 0;
    dut_->eval();  // asynchronous reset
    for (unsigned i = 0; i < cycles; i++) tick();
    dut_->rst_ni = 1;
    tick();
    cfg_.lfsr_seed = BPS_LFSR_SEED;
    if (bps_init(&ref_, &cfg_) != 0) fail("model", "bps_init", 0, 1);
    check_state();
  }

  [[noreturn]] void fail(const char *what, const char *field, uint64_t rtl, uint64_t model) {
    std::fprintf(stderr,
                 "MISMATCH seed=%" PRIu64 " cycle=%" PRIu64 " txn=%" PRIu64 " %s field=%s rtl=%" PRIu64
                 " model=%" PRIu64 "\n  request: op=%u ncols=%u write=%u act=%u victim_valid=%u "
                 "victim_level=%u seed=%u num_rd=%u num_wr=%u avg_on_miss=%u\n",
                 o_.seed, cycle_, txn_, what, field, rtl, model, cur_.op, cur_.ncols, cur_.wr, cur_.act,
                 cur_.vvalid, cur_.vlevel, cur_.seed, cur_.num_rd, cur_.num_wr, cur_.avg_on_miss);
    close_trace();
    std::exit(1);
  }
  void cmp(const char *field, uint64_t rtl, uint64_t model) {
    if (rtl != model) fail("response", field, rtl, model);
  }
  void check_state() {
    auto st = [&](const char *f, uint64_t r, uint64_t m) {
      if (r != m) fail("state", f, r, m);
    };
    st("max_pen", dut_->st_max_pen_o, ref_.max_pen);
    st("max_aff", dut_->st_max_aff_o, ref_.max_aff);
    st("max_act", dut_->st_max_act_o, ref_.max_act);
    st("avg", dut_->st_avg_o, ref_.avg);
    st("lfsr", dut_->st_lfsr_o, ref_.lfsr);
  }

  // ---- one transaction ----------------------------------------------------------------
  void run(const Req &r) {
    cur_ = r;
    for (unsigned g = 0; g < r.gap; g++) {
      idle_inputs();
      tick();
    }
    if (r.gap == 0 && last_accept_ == cycle_) cov_[C_BACK_TO_BACK]++;
    dut_->req_valid_i = 1;
    dut_->req_op_i = (uint8_t)r.op;
    dut_->req_ncols_i = (uint8_t)r.ncols;
    dut_->req_write_i = (uint8_t)r.wr;
    dut_->req_act_i = (uint8_t)r.act;
    dut_->req_victim_valid_i = (uint8_t)r.vvalid;
    dut_->req_victim_level_i = (uint8_t)r.vlevel;
    dut_->req_seed_i = (uint16_t)r.seed;
    dut_->cfg_num_rd_i = (uint16_t)r.num_rd;
    dut_->cfg_num_wr_i = (uint16_t)r.num_wr;
    dut_->cfg_avg_on_miss_i = (uint8_t)r.avg_on_miss;
    dut_->resp_ready_i = 0;
    dut_->eval();
    for (unsigned guard = 0; !dut_->req_ready_o; guard++) {
      if (guard > 100) fail("protocol", "req_ready_o timeout", 0, 1);
      tick();
      dut_->eval();
    }
    tick();  // handshake edge
    txn_++;
    idle_inputs();  // request and configuration are sampled: anything may follow
    dut_->eval();
    unsigned lat = 1;
    const unsigned want_lat = r.op == BPS_OP_CLEAR ? 1 : d_ + 2;
    while (!dut_->resp_valid_o) {
      if (r.reset_at >= 0 && (unsigned)r.reset_at == lat) return do_reset(C_RESET_BUSY);
      if (lat > want_lat) fail("protocol", "latency", lat, want_lat);
      tick();
      lat++;
      dut_->eval();
    }
    if (lat != want_lat) fail("protocol", "latency", lat, want_lat);

    // C model: configuration as sampled at the handshake, then the same operation.
    bps_result_t m{};
    if (r.num_rd != ref_.cfg.num_rd || r.num_wr != ref_.cfg.num_wr) cov_[C_CFG_CHANGE]++;
    if (bps_set_numerators(&ref_, r.num_rd, r.num_wr) != 0) fail("model", "numerators", 0, 1);
    bps_set_avg_on_miss(&ref_, r.avg_on_miss != 0);
    bps_access_t a{r.ncols, r.wr != 0, r.act};
    uint64_t draws0 = ref_.cnt.draws;
    if (r.op == BPS_OP_HIT) {
      bps_hit(&ref_, &a, &m);
    } else if (r.op == BPS_OP_MISS) {
      bps_miss(&ref_, &a, r.vvalid != 0, r.vlevel, &m);
    } else {
      bps_clear(&ref_, r.seed);
      m.path = BPS_PATH_CLEAR;
    }

    // Response, held stable while resp_ready is low.
    struct Snap {
      unsigned path, fill, store, dec, vlev, pen, pl, al, fl;
      bool operator!=(const Snap &o) const { return std::memcmp(this, &o, sizeof o) != 0; }
    };
    auto snap = [&]() {
      return Snap{dut_->resp_path_o, dut_->resp_fill_o, dut_->resp_store_level_o, dut_->resp_dec_victim_o,
                  dut_->resp_victim_level_o, dut_->resp_pen_o, dut_->resp_pen_level_o,
                  dut_->resp_avg_level_o, dut_->resp_aff_level_o};
    };
    Snap s0 = snap();
    for (unsigned k = 0; k < r.stall; k++) {
      if (r.reset_at >= 0 && (unsigned)r.reset_at == lat) return do_reset(C_RESET_RESP);
      if (dut_->req_ready_o) fail("protocol", "req_ready_o while response held", 1, 0);
      tick();
      lat++;
      dut_->eval();
      if (!dut_->resp_valid_o) fail("protocol", "resp_valid_o dropped", 0, 1);
      if (snap() != s0) fail("protocol", "response changed while stalled", 1, 0);
      cov_[C_RESP_STALL]++;
    }
    cmp("path", s0.path, m.path);
    cmp("fill", s0.fill, m.fill);
    cmp("store_level", s0.store, m.store_level);
    cmp("dec_victim", s0.dec, m.dec_victim);
    cmp("victim_level", s0.vlev, m.victim_new_level);
    cmp("pen", s0.pen, m.pen);
    cmp("pen_level", s0.pl, m.pen_level);
    cmp("avg_level", s0.al, m.avg_level);
    cmp("aff_level", s0.fl, m.aff_level);
    check_state();
    dut_->resp_ready_i = 1;
    dut_->eval();
    tick();  // response handshake
    dut_->resp_ready_i = 0;
    last_accept_ = cycle_;
    if (r.reset_at >= 0 && r.op != BPS_OP_CLEAR && lat < (unsigned)r.reset_at) {
      // reset point after the response: reset while idle
      do_reset(C_NUM);
    }
    sample(r, m, draws0);
  }

  void do_reset(Cov c) {
    if (c != C_NUM) cov_[c]++;
    reset(1 + (unsigned)uni(0, 3));
  }

  void sample(const Req &r, const bps_result_t &m, uint64_t draws0) {
    if (r.op == BPS_OP_CLEAR) {
      cov_[C_CLEAR]++;
      if (r.seed == 0) cov_[C_CLEAR_SEED0]++;
      return;
    }
    if (r.op == BPS_OP_HIT) cov_[C_HIT]++;
    if (r.op == BPS_OP_MISS) {
      cov_[C_BYPASS_L1 + m.path]++;
      if (!r.avg_on_miss) cov_[C_AVG_OFF_MISS]++;
      if (m.path == BPS_PATH_BYPASS_L1 && m.pen_level == m.avg_level) cov_[C_TIE_PEN_AVG]++;
      if (m.path == BPS_PATH_BYPASS_L2) {
        cov_[C_VICT_L0 + r.vlevel]++;
        if (m.aff_level == r.vlevel) cov_[C_TIE_AFF_VICT]++;
        if (m.dec_victim) cov_[C_DEC]++;
        else if (r.vlevel == 0) cov_[C_NODEC_LEVEL0]++;
        else cov_[C_NODEC_DRAW]++;
        if (m.draw_hit && r.vlevel == 0) cov_[C_DRAWHIT_LEVEL0]++;
        if (ref_.cnt.draws != draws0 + 1) fail("model", "draw count", 0, 1);
      }
      if (m.fill) cov_[C_STORE_L0 + m.store_level]++;
    }
    cov_[C_PEN_L0 + m.pen_level]++;
    cov_[C_AVG_L0 + m.avg_level]++;
    cov_[C_AFF_L0 + m.aff_level]++;
    for (unsigned k = 1; k < BPS_NLEVELS; k++)
      if (ref_.max_pen && (uint64_t)m.pen * BPS_NLEVELS == (uint64_t)k * ref_.max_pen) cov_[C_PEN_ON_BOUNDARY]++;
    if (m.pen == ref_.max_pen) cov_[C_PEN_IS_MAX]++;
    if (m.pen == 0) cov_[C_PEN_ZERO]++;
    if (r.ncols == 0) cov_[C_NCOLS0]++;
    if (r.ncols > BPS_ROW_COLS) cov_[C_NCOLS_GT_ROW]++;
    if (r.act == BPS_ACT_MAX) cov_[C_ACT_MAX]++;
    if (r.act == 0) cov_[C_ACT0]++;
    if (r.wr) cov_[C_WRITE]++;
  }

  const Opts &o_;
  VerilatedContext *ctx_;
  std::unique_ptr<M> dut_;
  std::unique_ptr<VerilatedFstC> tfp_;
  std::string fst_path_;
  std::mt19937_64 rng_;
  bps_cfg_t cfg_;
  bps_t ref_;
  Req base_, cur_;
  unsigned d_ = 0;
  uint64_t cycle_ = 0, txn_ = 0, last_accept_ = ~0ull;
  uint64_t cov_[C_NUM] = {};
};

template <>
unsigned Harness<Vbps_scorer>::steps() { return 1; }
template <>
unsigned Harness<Vbps_scorer_r4>::steps() { return 4; }

[[noreturn]] void usage(const char *msg) {
  std::fprintf(stderr,
               "tb_bps: %s\nusage: tb_bps [--mode directed|random|both] [--seed N] [--count N] "
               "[--trace FILE.fst] [--coverage FILE] [--variant r1|r4] [--no-cov-check] [--quiet]\n",
               msg);
  std::exit(2);
}

uint64_t num_arg(const char *opt, const char *v) {
  char *end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v, &end, 0);
  if (!*v || *end || errno || v[0] == '-') usage((std::string(opt) + ": expected a non-negative integer").c_str());
  return x;
}

template <class M>
int run_all(const Opts &o, VerilatedContext *ctx) {
  Harness<M> h(o, ctx);
  if (o.mode == "directed" || o.mode == "both") h.directed();
  if (o.mode == "random" || o.mode == "both") h.random(o.count);
  bool cov_ok = h.check_coverage();
  std::printf("tb_bps: variant=%s mode=%s seed=%" PRIu64 " transactions=%" PRIu64 " cycles=%" PRIu64
              " mismatches=0\n",
              o.variant.c_str(), o.mode.c_str(), o.seed, h.txns(), h.cycles());
  // Coverage is asserted for the directed suite and for random runs long enough to reach it.
  bool enforce = o.cov_check && (o.mode != "random" || o.count >= 50000);
  if (enforce && !cov_ok) {
    std::fprintf(stderr, "tb_bps: functional coverage incomplete (seed=%" PRIu64 ")\n", o.seed);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Opts o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&]() -> const char * {
      if (i + 1 >= argc) usage((a + ": missing value").c_str());
      return argv[++i];
    };
    if (a == "--mode") o.mode = val();
    else if (a == "--seed") o.seed = num_arg("--seed", val());
    else if (a == "--count") o.count = num_arg("--count", val());
    else if (a == "--trace") o.trace = val();
    else if (a == "--coverage") o.coverage = val();
    else if (a == "--variant") o.variant = val();
    else if (a == "--no-cov-check") o.cov_check = false;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "-h") usage("help");
    else usage(("unknown option " + a).c_str());
  }
  if (o.mode != "directed" && o.mode != "random" && o.mode != "both") usage("--mode: directed|random|both");
  if (o.variant != "r1" && o.variant != "r4") usage("--variant: r1|r4");
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  ctx->assertOn(true);
  int rc = o.variant == "r1" ? run_all<Vbps_scorer>(o, ctx.get()) : run_all<Vbps_scorer_r4>(o, ctx.get());
  if (!o.coverage.empty()) ctx->coveragep()->write(o.coverage.c_str());
  return rc;
}
