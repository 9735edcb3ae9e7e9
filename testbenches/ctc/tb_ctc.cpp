// tb_ctc: Verilator testbench of the Configurable Tag Cache (rtl/ctc/ctc.sv).
//
// Scoreboard: every transaction is driven into the RTL through its valid/ready
// ports (with random gaps and back-pressure) and applied to the C reference
// (models/ref/blocks/ctc.h); the response fields and the ordered list of write-backs
// must agree exactly. The first mismatch prints seed, cycle, transaction index
// and field and exits 1. Functional-coverage counters are asserted at the end.
//
// Usage: tb_ctc [--mode directed|random|all] [--seed N] [--count N]
//               [--trace FILE.fst|FILE.vcd] [--coverage FILE.dat] [--quiet]
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

// The same harness is built twice: tb_ctc (the paper configuration, Sets =
// SETS) and tb_ctc_small (ctc_small_top.sv: Sets = TB_SMALL_SETS, so every set
// conflicts constantly and the parameterisation itself is verified).
#ifdef CTC_TB_SMALL
#include "Vctc_small.h"
using Model = Vctc_small;
#else
#include "Vctc.h"
using Model = Vctc;
#endif
#include "verilated.h"
#include "verilated_cov.h"
#include "verilated_fst_c.h"

extern "C" {
#include "blocks/ctc.h"
}

#ifdef CTC_TB_SMALL
constexpr uint32_t kSets = CTC_TB_SMALL_SETS;
#else
constexpr uint32_t kSets = CTC_SETS;
#endif
constexpr uint32_t log2c(uint32_t v) { return v <= 1 ? 0 : 1 + log2c(v / 2); }
constexpr uint32_t kSetBits = log2c(kSets);
constexpr uint32_t kTagBits = CTC_ROW_BITS - kSetBits - CTC_SECTOR_IDX_BITS;
static_assert((1u << kSetBits) == kSets, "sets must be a power of two");

namespace {

// ------------------------------------------------------------------ random
struct Rng {  // xoshiro256** seeded by splitmix64: same stream on every host
  uint64_t s[4];
  explicit Rng(uint64_t seed) {
    for (auto &x : s) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      x = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
  }
  uint32_t below(uint32_t n) { return (uint32_t)((next() >> 32) * n >> 32); }
  bool chance(uint32_t percent) { return below(100) < percent; }
};

// ------------------------------------------------------------------ transactions
struct Txn {
  uint32_t op = CTC_OP_LOOKUP;
  uint64_t row = 0;
  uint32_t data = 0;
  uint32_t dirty = 0;
  uint32_t l2_ways = 0;
};

struct Obs {
  uint32_t hit = 0, line_hit = 0, stored = 0, evicted = 0, err = 0, way = 0, data = 0, nwb = 0;
  std::vector<ctc_wb> wbs;
};

const char *op_name(uint32_t op) {
  switch (op) {
    case CTC_OP_LOOKUP: return "lookup";
    case CTC_OP_FILL: return "fill";
    case CTC_OP_UPDATE: return "update";
    case CTC_OP_INVAL: return "invalidate";
    case CTC_OP_CONFIG: return "configure";
    case CTC_OP_FLUSH: return "flush";
    default: return "undefined-op";
  }
}

// Functional coverage: each counter named here is asserted by the mode that needs it.
struct Cov {
  uint64_t ops[8] = {};
  uint64_t lookup_hit = 0, lookup_miss = 0, lookup_line_hit_sector_miss = 0;
  uint64_t fill_kept = 0, update_hit = 0, install_invalid = 0, install_tie_invalid = 0;
  uint64_t evict_way[CTC_MAX_WAYS] = {};
  uint64_t evict_clean = 0, evict_dirty = 0, evict_all8 = 0, evict_all_ways_dirty = 0;
  uint64_t inval_hit = 0, inval_wb = 0, not_stored = 0, err = 0;
  uint64_t config_to[CTC_MAX_L2_WAYS + 1] = {}, config_shrink_wb = 0, config_grow = 0;
  uint64_t flush_wb = 0, max_walk_wb = 0;
  uint64_t wb_stall = 0, rsp_stall = 0, req_gap = 0, resets_mid_traffic = 0;
  uint64_t wbs = 0, latency_checks = 0;
};

// ------------------------------------------------------------------ harness
class Bench {
 public:
  Bench(uint64_t seed, const char *trace, bool quiet)
      : seed_(seed), rng_(seed ^ 0x5eedull), quiet_(quiet) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->randReset(2);  // SRAM contents random at power-up: the init walk must clear them
    ctx_->randSeed((int)(seed & 0x7fffffff));
    ctx_->debug(0);
    ctx_->traceEverOn(trace != nullptr);
    top_ = std::make_unique<Model>(ctx_.get(), "TOP");
    if (trace) {
      // The model is built with --trace-fst; a .vcd name is written as FST and
      // converted with GTKWave's fst2vcd when the run ends.
      std::string name = trace;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".vcd") == 0) {
        vcd_ = name;
        name += ".tmp.fst";
      }
      fst_ = name;
      tfp_ = std::make_unique<VerilatedFstC>();
      top_->trace(tfp_.get(), 99);
      tfp_->open(fst_.c_str());
    }
    ctc_cfg cfg;
    ctc_default_cfg(&cfg);
    cfg.sets = kSets;
    char err[128];
    if (ctc_init(&ref_, &cfg, err, sizeof err) != CTC_OK) {
      fprintf(stderr, "tb_ctc: %s\n", err);
      exit(2);
    }
    idle_inputs();
    // power-on: rst_ni falls (an edge for the asynchronous reset), then held low
    top_->clk_i = 0;
    top_->rst_ni = 1;
    top_->eval();
    reset(3);
  }
  ~Bench() {
    close_trace();
    top_->final();
    ctc_free(&ref_);
  }
  void close_trace() {
    if (!tfp_) return;
    tfp_->close();
    tfp_.reset();
    if (!vcd_.empty()) {
      std::string cmd = "fst2vcd -f '" + fst_ + "' -o '" + vcd_ + "' >/dev/null";
      if (std::system(cmd.c_str()) != 0) fprintf(stderr, "tb_ctc: fst2vcd failed; the FST is %s\n", fst_.c_str());
      else std::remove(fst_.c_str());
    }
  }

  Cov cov;
  Rng &rng() { return rng_; }
  const ctc &ref() const { return ref_; }
  uint64_t txns() const { return txn_idx_; }
  // Cycles from the request handshake edge to the first cycle with rsp_valid_o.
  uint64_t last_latency() const { return latency_; }
  // Run t with no gaps and no back-pressure and check the documented latency.
  void expect_latency(const Txn &t, uint64_t cycles, const char *what) {
    uint32_t saved[3] = {wb_stall_pct, rsp_stall_pct, gap_pct};
    wb_stall_pct = rsp_stall_pct = gap_pct = 0;
    run(t);
    wb_stall_pct = saved[0];
    rsp_stall_pct = saved[1];
    gap_pct = saved[2];
    if (latency_ != cycles) {
      char buf[96];
      snprintf(buf, sizeof buf, "%s: %" PRIu64 " cycles, documented %" PRIu64, what, latency_, cycles);
      fail("latency", "differs from the header of rtl/ctc/ctc.sv", buf);
    }
    cov.latency_checks++;
  }
  uint64_t cycles() const { return cycle_; }
  // Back-pressure / gap probabilities in percent (0 = always ready / no gaps).
  uint32_t wb_stall_pct = 30, rsp_stall_pct = 25, gap_pct = 20;

  // Hold reset for n cycles, reset the C model, wait for the init walk.
  void reset(int n) {
    top_->rst_ni = 0;
    for (int i = 0; i < n; i++) cycle();
    top_->rst_ni = 1;
    ctc_reset(&ref_);
    uint64_t limit = kSets + 16;
    for (uint64_t i = 0; !top_->req_ready_o; i++) {
      if (top_->wb_valid_o || top_->rsp_valid_o) fail("init", "no output may be valid during the init walk");
      if (i > limit) fail("init", "req_ready_o not raised after the init walk");
      cycle();
    }
    if (top_->l2_ways_o != CTC_RESET_L2_WAYS) fail("l2_ways_o", "not RESET_L2_WAYS after reset");
  }

  // Run one transaction on RTL and C model and compare. If reset_after >= 0 the
  // RTL is reset that many cycles after the request handshake (reset mid-traffic):
  // the transaction is abandoned (not applied to the C model). Returns false then.
  bool run(const Txn &t, int reset_after = -1) {
    txn_ = t;
    // request, with optional idle gap first
    if (gap_pct && rng_.chance(gap_pct)) {
      cov.req_gap++;
      for (uint32_t g = rng_.below(3) + 1; g; g--) {
        idle_inputs();
        check_idle_outputs();
        cycle();
      }
    }
    top_->req_valid_i = 1;
    top_->req_op_i = t.op;
    top_->req_row_i = t.row;
    top_->req_data_i = t.data;
    top_->req_dirty_i = t.dirty;
    top_->req_l2_ways_i = t.l2_ways;
    for (int i = 0; !top_->req_ready_o; i++) {
      if (i > 4) fail("req_ready_o", "not ready while idle");
      cycle();
    }
    cycle();  // handshake
    idle_inputs();
    rtl_.wbs.clear();
    uint64_t start = cycle_;
    bool have_wb_prev = false;
    uint64_t wb_prev_row = 0;
    uint32_t wb_prev_data = 0;
    bool have_rsp_prev = false;
    uint32_t rsp_prev_sig = 0;
    for (;;) {
      if (reset_after >= 0 && cycle_ - start >= (uint64_t)reset_after) {
        cov.resets_mid_traffic++;
        reset(1 + (int)rng_.below(3));
        return false;
      }
      if (cycle_ - start > 200000) fail("rsp_valid_o", "timeout: no response");
      top_->wb_ready_i = !(wb_stall_pct && rng_.chance(wb_stall_pct));
      top_->rsp_ready_i = !(rsp_stall_pct && rng_.chance(rsp_stall_pct));
      top_->eval();
      if (top_->req_ready_o) fail("req_ready_o", "ready while a request is in flight");
      if (top_->wb_valid_o && top_->rsp_valid_o) fail("wb_valid_o", "write-back and response at once");
      if (top_->wb_valid_o) {
        // valid/ready: payload stable while stalled
        if (have_wb_prev && (top_->wb_row_o != wb_prev_row || top_->wb_data_o != wb_prev_data))
          fail("wb_row_o/wb_data_o", "changed while wb_valid_o was stalled");
        if (top_->wb_ready_i) {
          rtl_.wbs.push_back(ctc_wb{top_->wb_row_o, top_->wb_data_o});
          have_wb_prev = false;
        } else {
          cov.wb_stall++;
          have_wb_prev = true;
          wb_prev_row = top_->wb_row_o;
          wb_prev_data = top_->wb_data_o;
        }
      }
      if (top_->rsp_valid_o) {
        if (!have_rsp_prev) latency_ = cycle_ - start + 1;
        uint32_t sig = rsp_sig();
        if (have_rsp_prev && sig != rsp_prev_sig) fail("rsp_*", "changed while rsp_valid_o was stalled");
        if (top_->rsp_ready_i) {
          capture_rsp();
          cycle();
          break;
        }
        cov.rsp_stall++;
        have_rsp_prev = true;
        rsp_prev_sig = sig;
      }
      cycle();
    }
    idle_inputs();
    expect_ = apply_ref(t);
    compare();
    cover(t);
    txn_idx_++;
    return true;
  }

  [[noreturn]] void fail(const char *field, const char *what, const std::string &detail = "") {
    fprintf(stderr,
            "tb_ctc: MISMATCH seed=%" PRIu64 " cycle=%" PRIu64 " txn=%" PRIu64 " op=%s row=0x%09" PRIx64
            " data=0x%08x dirty=%u l2_ways=%u field=%s: %s%s%s\n",
            seed_, cycle_, txn_idx_, op_name(txn_.op), txn_.row, txn_.data, txn_.dirty, txn_.l2_ways, field,
            what, detail.empty() ? "" : " ", detail.c_str());
    close_trace();
    exit(1);
  }

  void write_coverage(const char *path) { ctx_->coveragep()->write(path); }

 private:
  void idle_inputs() {
    top_->req_valid_i = 0;
    top_->wb_ready_i = 0;
    top_->rsp_ready_i = 0;
  }
  void check_idle_outputs() {
    top_->eval();
    if (top_->wb_valid_o || top_->rsp_valid_o) fail("wb_valid_o/rsp_valid_o", "valid while idle");
  }
  // One clock cycle: inputs are already applied to the low phase.
  void cycle() {
    top_->clk_i = 0;
    top_->eval();
    if (tfp_) tfp_->dump(ctx_->time());
    ctx_->timeInc(500);  // 1 ns clock period (1 ps time unit): the 1 GHz memory-bus clock, HMS Table I
    top_->clk_i = 1;
    top_->eval();
    if (tfp_) tfp_->dump(ctx_->time());
    ctx_->timeInc(500);
    cycle_++;
  }
  uint32_t rsp_sig() const {
    uint32_t h = top_->rsp_hit_o | top_->rsp_line_hit_o << 1 | top_->rsp_stored_o << 2 |
                 top_->rsp_evicted_o << 3 | top_->rsp_err_o << 4 | top_->rsp_way_o << 5;
    return h ^ top_->rsp_data_o * 2654435761u ^ top_->rsp_nwb_o << 12;
  }
  void capture_rsp() {
    rtl_.hit = top_->rsp_hit_o;
    rtl_.line_hit = top_->rsp_line_hit_o;
    rtl_.stored = top_->rsp_stored_o;
    rtl_.evicted = top_->rsp_evicted_o;
    rtl_.err = top_->rsp_err_o;
    rtl_.way = top_->rsp_way_o;
    rtl_.data = top_->rsp_data_o;
    rtl_.nwb = top_->rsp_nwb_o;
  }

  static void collect(void *ctx, const ctc_wb *wb) { static_cast<Obs *>(ctx)->wbs.push_back(*wb); }

  Obs apply_ref(const Txn &t) {
    Obs o;
    // what the C model's state says before the op (for coverage only)
    pre_all_ways_dirty_ = false;
    pre_invalid_ways_ = 0;
    pre_l2w_ = ref_.l2_ways;
    if (t.op == CTC_OP_FILL || t.op == CTC_OP_UPDATE) {
      uint32_t set = ctc_set_of(&ref_, t.row), n = ctc_ways(&ref_);
      pre_all_ways_dirty_ = n > 0;
      for (uint32_t w = 0; w < n; w++) {
        const ctc_line *l = ctc_line_at(&ref_, set, w);
        if (!l->dirty) pre_all_ways_dirty_ = false;
        if (!l->valid) pre_invalid_ways_++;
      }
    }
    ctc_result r;
    int rc = CTC_OK;
    switch (t.op) {
      case CTC_OP_LOOKUP: rc = ctc_lookup(&ref_, t.row, &r); break;
      case CTC_OP_FILL: rc = ctc_fill(&ref_, t.row, t.data, &r); break;
      case CTC_OP_UPDATE: rc = ctc_update(&ref_, t.row, t.data, (int)t.dirty, &r); break;
      case CTC_OP_INVAL: rc = ctc_invalidate(&ref_, t.row, &r); break;
      case CTC_OP_CONFIG:
      case CTC_OP_FLUSH: {
        memset(&r, 0, sizeof r);
        int n = t.op == CTC_OP_CONFIG ? ctc_configure(&ref_, t.l2_ways, collect, &o)
                                      : ctc_flush(&ref_, collect, &o);
        if (n < 0) {
          o.err = 1;
        } else {
          o.nwb = (uint32_t)n;
        }
        return o;
      }
      default: o.err = 1; return o;  // the RTL answers undefined opcodes with err
    }
    if (rc != CTC_OK) fail("row", "row does not fit ROW_BITS (testbench bug)");
    o.hit = r.hit;
    o.line_hit = r.line_hit;
    o.stored = r.stored;
    o.evicted = r.evicted;
    o.way = r.way;
    o.data = r.data;
    o.nwb = r.n_wb;
    for (uint32_t i = 0; i < r.n_wb; i++) o.wbs.push_back(r.wb[i]);
    return o;
  }

  void compare() {
    char buf[160];
#define CTC_CMP(f)                                                                       \
  if (rtl_.f != expect_.f) {                                                             \
    snprintf(buf, sizeof buf, "rtl=0x%x c=0x%x", (unsigned)rtl_.f, (unsigned)expect_.f); \
    fail("rsp_" #f, "response differs", buf);                                            \
  }
    CTC_CMP(err)
    CTC_CMP(hit)
    CTC_CMP(line_hit)
    CTC_CMP(stored)
    CTC_CMP(evicted)
    CTC_CMP(way)
    CTC_CMP(data)
    CTC_CMP(nwb)
#undef CTC_CMP
    if (rtl_.wbs.size() != expect_.wbs.size()) {
      snprintf(buf, sizeof buf, "rtl=%zu c=%zu", rtl_.wbs.size(), expect_.wbs.size());
      fail("wb count", "number of write-back beats differs", buf);
    }
    for (size_t i = 0; i < rtl_.wbs.size(); i++) {
      if (rtl_.wbs[i].row != expect_.wbs[i].row || rtl_.wbs[i].data != expect_.wbs[i].data) {
        snprintf(buf, sizeof buf, "beat %zu: rtl row=0x%09" PRIx64 " data=0x%08x, c row=0x%09" PRIx64 " data=0x%08x",
                 i, rtl_.wbs[i].row, rtl_.wbs[i].data, expect_.wbs[i].row, expect_.wbs[i].data);
        fail("wb_row_o/wb_data_o", "write-back differs", buf);
      }
    }
    if (top_->l2_ways_o != ref_.l2_ways) fail("l2_ways_o", "carve-out differs from the C model");
  }

  void cover(const Txn &t) {
    const Obs &o = expect_;
    cov.ops[t.op & 7]++;
    cov.wbs += o.wbs.size();
    if (o.err) cov.err++;
    switch (t.op) {
      case CTC_OP_LOOKUP:
        if (o.hit)
          cov.lookup_hit++;
        else
          cov.lookup_miss++;
        if (o.line_hit && !o.hit) cov.lookup_line_hit_sector_miss++;
        break;
      case CTC_OP_FILL:
      case CTC_OP_UPDATE:
        if (!o.stored) cov.not_stored++;
        if (t.op == CTC_OP_FILL && o.hit) cov.fill_kept++;
        if (t.op == CTC_OP_UPDATE && o.hit) cov.update_hit++;
        if (o.stored && !o.line_hit && !o.evicted) {
          cov.install_invalid++;
          if (pre_invalid_ways_ > 1) cov.install_tie_invalid++;
        }
        if (o.evicted) {
          cov.evict_way[o.way]++;
          if (o.nwb == 0) cov.evict_clean++;
          if (o.nwb > 0) cov.evict_dirty++;
          if (o.nwb == CTC_SECTORS) cov.evict_all8++;
          if (pre_all_ways_dirty_) cov.evict_all_ways_dirty++;
        }
        break;
      case CTC_OP_INVAL:
        if (o.line_hit) cov.inval_hit++;
        if (o.nwb) cov.inval_wb++;
        break;
      case CTC_OP_CONFIG:
        if (!o.err) {
          cov.config_to[t.l2_ways]++;
          if (o.nwb) cov.config_shrink_wb++;
          if (t.l2_ways > pre_l2w_) cov.config_grow++;
        }
        if (o.nwb > cov.max_walk_wb) cov.max_walk_wb = o.nwb;
        break;
      case CTC_OP_FLUSH:
        if (o.nwb) cov.flush_wb++;
        if (o.nwb > cov.max_walk_wb) cov.max_walk_wb = o.nwb;
        break;
      default: break;
    }
  }

  uint64_t seed_;
  Rng rng_;
  bool quiet_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> top_;
  std::unique_ptr<VerilatedFstC> tfp_;
  std::string fst_, vcd_;
  ctc ref_;
  Txn txn_;
  Obs rtl_, expect_;
  uint64_t cycle_ = 0, txn_idx_ = 0;
  bool pre_all_ways_dirty_ = false;
  uint32_t pre_invalid_ways_ = 0;
  uint32_t pre_l2w_ = 0;
  uint64_t latency_ = 0;
};

// ------------------------------------------------------------------ stimulus
uint64_t mkrow(uint64_t tag, uint32_t set, uint32_t sec) {
  return (tag << (kSetBits + CTC_SECTOR_IDX_BITS)) | ((uint64_t)(set % kSets) << CTC_SECTOR_IDX_BITS) | sec;
}

Txn op_row(uint32_t op, uint64_t row, uint32_t data = 0, uint32_t dirty = 0) {
  Txn t;
  t.op = op;
  t.row = row;
  t.data = data;
  t.dirty = dirty;
  return t;
}

Txn op_cfg(uint32_t ways) {
  Txn t;
  t.op = CTC_OP_CONFIG;
  t.l2_ways = ways;
  return t;
}

Txn op_flush() {
  Txn t;
  t.op = CTC_OP_FLUSH;
  return t;
}

// Directed suite: corner cases first (STYLE.md).
void directed(Bench &b) {
  Rng &r = b.rng();
  const uint32_t W = CTC_MAX_WAYS;
  // 0. latency of the handshake (rtl/ctc/ctc.sv header), on an empty cache
  b.expect_latency(op_row(CTC_OP_LOOKUP, mkrow(1, 2, 3)), 2, "lookup miss");
  b.expect_latency(op_row(CTC_OP_FILL, mkrow(1, 2, 3), 7), 3, "fill into an invalid way");
  b.expect_latency(op_row(CTC_OP_LOOKUP, mkrow(1, 2, 3)), 3, "lookup hit");
  b.expect_latency(op_row(CTC_OP_FILL, mkrow(1, 2, 3), 8), 3, "fill of a valid sector");
  b.expect_latency(op_row(CTC_OP_UPDATE, mkrow(1, 2, 4), 9, 0), 3, "update of a present line");
  b.expect_latency(op_cfg(CTC_MAX_L2_WAYS), 1, "configure without shrink");
  b.expect_latency(op_flush(), 1 + 3 * kSets, "flush without dirty lines");
  // 1. empty: lookups miss, invalidate misses, flush writes nothing back
  for (uint32_t i = 0; i < 8; i++) b.run(op_row(CTC_OP_LOOKUP, mkrow(i, i * 31 % kSets, i)));
  b.run(op_row(CTC_OP_INVAL, mkrow(3, 3, 3)));
  b.run(op_flush());
  // 2. one set filled to all 16 ways, in order (ties among invalid ways -> lowest)
  for (uint32_t w = 0; w < W; w++) b.run(op_row(CTC_OP_FILL, mkrow(100 + w, 7, w & 7), 0x1000 + w));
  for (uint32_t w = 0; w < W; w++) b.run(op_row(CTC_OP_LOOKUP, mkrow(100 + w, 7, w & 7)));
  // sector semantics: line hit + sector miss, fill kept, update clean/dirty
  b.run(op_row(CTC_OP_LOOKUP, mkrow(100, 7, 5)));
  b.run(op_row(CTC_OP_FILL, mkrow(100, 7, 0), 0xbad));
  b.run(op_row(CTC_OP_UPDATE, mkrow(101, 7, 1), 0x5eed, 1));
  b.run(op_row(CTC_OP_FILL, mkrow(101, 7, 1), 0xbad));
  b.run(op_row(CTC_OP_UPDATE, mkrow(101, 7, 1), 0x5eee, 0));
  // 3. full set: every new line evicts the pseudo-LRU victim; cycle through all ways
  for (uint32_t i = 0; i < 3 * W; i++) b.run(op_row(CTC_OP_FILL, mkrow(200 + i, 7, i & 7), 0x2000 + i));
  // 4. all ways dirty, all sectors dirty: each eviction writes back 8 sectors
  for (uint32_t w = 0; w < W; w++)
    for (uint32_t s = 0; s < CTC_SECTORS; s++)
      b.run(op_row(CTC_OP_UPDATE, mkrow(300 + w, 9, s), (uint32_t)r.next(), 1));
  b.expect_latency(op_row(CTC_OP_FILL, mkrow(399, 9, 0), 1), 4 + CTC_SECTORS, "fill evicting 8 dirty sectors");
  for (uint32_t i = 0; i < 2 * W; i++) b.run(op_row(CTC_OP_UPDATE, mkrow(400 + i, 9, i & 7), i, i & 1));
  // a flush walk: 1 + 3 per set + (2 + dirty sectors) per dirty line
  b.run(op_cfg(CTC_MAX_L2_WAYS));
  {
    uint64_t lines = 0, sectors = 0;
    for (uint32_t set = 0; set < kSets; set++)
      for (uint32_t w = 0; w < W; w++) {
        const ctc_line *l = ctc_line_at(&b.ref(), set, w);
        if (l->dirty) lines++;
        sectors += (uint64_t)__builtin_popcount(l->dirty);
      }
    b.expect_latency(op_flush(), 1 + 3 * kSets + 2 * lines + sectors, "flush with dirty lines");
  }
  // 5. invalidate: dirty line (write-backs), clean line, absent line
  for (uint32_t s = 0; s < CTC_SECTORS; s += 2) b.run(op_row(CTC_OP_UPDATE, mkrow(77, 11, s), s, 1));
  b.run(op_row(CTC_OP_FILL, mkrow(77, 11, 1), 1));
  b.run(op_row(CTC_OP_INVAL, mkrow(77, 11, 1)));
  b.run(op_row(CTC_OP_LOOKUP, mkrow(77, 11, 0)));
  b.run(op_row(CTC_OP_FILL, mkrow(78, 11, 1), 1));
  b.run(op_row(CTC_OP_INVAL, mkrow(78, 11, 6)));
  // 6. extreme rows: all-zero and all-ones row, last set, largest tag
  const uint64_t maxrow = (CTC_ROW_BITS >= 64) ? ~0ull : ((1ull << CTC_ROW_BITS) - 1);
  b.run(op_row(CTC_OP_UPDATE, 0, 0xffffffffu, 1));
  b.run(op_row(CTC_OP_UPDATE, maxrow, 0xa5a5a5a5u, 1));
  b.run(op_row(CTC_OP_LOOKUP, maxrow));
  b.run(op_row(CTC_OP_LOOKUP, 0));
  // 7. reconfiguration: dirty lines in every way of a few sets, then shrink step by step
  for (uint32_t set : {0u, 1u, kSets / 2, kSets - 1})
    for (uint32_t w = 0; w < W; w++) b.run(op_row(CTC_OP_UPDATE, mkrow(500 + w, set, w & 7), set * 100 + w, 1));
  for (int k = CTC_MAX_L2_WAYS - 1; k >= 0; k--) {
    b.run(op_cfg((uint32_t)k));
    b.run(op_row(CTC_OP_LOOKUP, mkrow(500, 0, 0)));
  }
  // 8. zero ways: nothing is stored, lookups miss, flush is empty
  b.run(op_row(CTC_OP_FILL, mkrow(1, 1, 1), 1));
  b.run(op_row(CTC_OP_UPDATE, mkrow(1, 1, 1), 1, 1));
  b.run(op_row(CTC_OP_LOOKUP, mkrow(1, 1, 1)));
  b.run(op_flush());
  // grow back one L2 way at a time; new ways start empty
  for (uint32_t k = 1; k <= CTC_MAX_L2_WAYS; k++) {
    b.run(op_cfg(k));
    b.run(op_row(CTC_OP_FILL, mkrow(600 + k, 1, 0), k));
  }
  b.run(op_cfg(CTC_MAX_L2_WAYS));  // same count: no change
  // 9. errors: carve-out out of range, undefined opcodes; nothing changes
  for (uint32_t bad = CTC_MAX_L2_WAYS + 1; bad < (1u << CTC_L2W_BITS); bad++) b.run(op_cfg(bad));
  for (uint32_t op = CTC_OP_FLUSH + 1; op < (1u << CTC_OP_BITS); op++) b.run(op_row(op, mkrow(1, 1, 1)));
  // 10. reconfiguration under traffic: random row ops on 4 sets interleaved with configure
  for (uint32_t i = 0; i < 3000; i++) {
    if (i % 150 == 149) {
      b.run(op_cfg(r.below(CTC_MAX_L2_WAYS + 1)));
      continue;
    }
    uint32_t op = r.below(3) == 0 ? CTC_OP_LOOKUP : (r.chance(50) ? CTC_OP_FILL : CTC_OP_UPDATE);
    b.run(op_row(op, mkrow(r.below(40), 20 + r.below(4), r.below(8)), (uint32_t)r.next(), r.below(2)));
  }
  b.run(op_cfg(CTC_MAX_L2_WAYS));
  // 11. reset mid-traffic: an eviction of 8 dirty sectors under heavy back-pressure
  for (uint32_t w = 0; w < W; w++)
    for (uint32_t s = 0; s < CTC_SECTORS; s++) b.run(op_row(CTC_OP_UPDATE, mkrow(700 + w, 30, s), w * 8 + s, 1));
  b.wb_stall_pct = 90;
  b.run(op_row(CTC_OP_FILL, mkrow(999, 30, 0), 9), 6);
  b.wb_stall_pct = 30;
  b.run(op_row(CTC_OP_LOOKUP, mkrow(700, 30, 0)));  // empty after reset
  b.run(op_flush());                                // nothing to write back
  // reset in the middle of a flush walk
  for (uint32_t s = 0; s < 64; s++) b.run(op_row(CTC_OP_UPDATE, mkrow(5, s, s & 7), s, 1));
  b.run(op_flush(), 150);
  b.run(op_row(CTC_OP_LOOKUP, mkrow(5, 3, 3)));
  // 12. full cache: every sector of every line of every set dirty, then one flush
  //     writes back SETS * MAX_WAYS * SECTORS beats (the widest rsp_nwb_o value)
  uint32_t saved[3] = {b.wb_stall_pct, b.rsp_stall_pct, b.gap_pct};
  b.wb_stall_pct = b.rsp_stall_pct = b.gap_pct = 0;
  for (uint32_t set = 0; set < kSets; set++)
    for (uint32_t w = 0; w < W; w++)
      for (uint32_t s = 0; s < CTC_SECTORS; s++)
        b.run(op_row(CTC_OP_UPDATE, mkrow(800 + w, set, s), (uint32_t)r.next(), 1));
  b.run(op_flush());
  b.wb_stall_pct = saved[0];
  b.rsp_stall_pct = saved[1];
  b.gap_pct = saved[2];
  b.run(op_row(CTC_OP_LOOKUP, mkrow(800, 0, 0)));
}

// Seeded random traffic. Rows concentrate on a few hot sets with more tags than
// ways (so evictions and PLRU decisions are frequent), half of the row operations
// reuse a recently used row (hits), some rows are uniform over the whole row
// space, and now and then a burst dirties all sectors of one line. Exactly
// `count` transactions are compared (ones abandoned by a reset are not counted).
void random_traffic(Bench &b, uint64_t count) {
  Rng &r = b.rng();
  uint32_t hot[6];
  for (auto &h : hot) h = r.below(kSets);
  uint64_t recent[64] = {};
  uint32_t burst_left = 0;
  uint64_t burst_line = 0;
  const uint64_t done0 = b.txns();
  for (uint64_t i = 0; b.txns() - done0 < count; i++) {
    Txn t;
    uint32_t p = r.below(1000);
    if (burst_left) {
      t = op_row(CTC_OP_UPDATE, burst_line | (CTC_SECTORS - burst_left), (uint32_t)r.next(), 1);
      burst_left--;
    } else if (p < 3) {
      // mostly the paper's carve-outs (3-4 L2 ways), sometimes fewer, rarely invalid
      uint32_t k = r.chance(60) ? 3 + r.below(2) : r.below(CTC_MAX_L2_WAYS + 1);
      t = op_cfg(r.chance(4) ? r.below(1u << CTC_L2W_BITS) : k);
    } else if (p < 5) {
      t = op_flush();
    } else if (p < 6) {
      t.op = CTC_OP_FLUSH + 1 + r.below((1u << CTC_OP_BITS) - CTC_OP_FLUSH - 1);  // undefined
    } else if (p < 16) {
      burst_line = mkrow(r.below(24) * 0x9e37u % (1u << (kTagBits < 31 ? kTagBits : 31)), hot[r.below(6)], 0);
      burst_left = CTC_SECTORS;
      continue;
    } else {
      static const uint32_t ops[] = {CTC_OP_LOOKUP, CTC_OP_LOOKUP, CTC_OP_LOOKUP, CTC_OP_LOOKUP,
                                     CTC_OP_FILL,   CTC_OP_FILL,   CTC_OP_FILL,   CTC_OP_UPDATE,
                                     CTC_OP_UPDATE, CTC_OP_UPDATE, CTC_OP_INVAL};
      t.op = ops[r.below(sizeof ops / sizeof ops[0])];
      uint32_t q = r.below(100);
      if (q < 50) {
        t.row = recent[r.below(64)];
      } else if (q < 92) {
        t.row = mkrow(r.below(24) * 0x9e37u % (1u << (kTagBits < 31 ? kTagBits : 31)), hot[r.below(6)], r.below(CTC_SECTORS));
      } else {
        t.row = r.next() >> (64 - CTC_ROW_BITS);
      }
      if (t.op != CTC_OP_INVAL) recent[r.below(64)] = t.row;
      t.data = (uint32_t)r.next();
      t.dirty = r.below(2);
    }
    int reset_after = r.below(20000) == 0 ? (int)r.below(12) : -1;
    b.run(t, reset_after);
    if (i % 20000 == 19999) {  // move the hot sets now and then
      hot[r.below(6)] = r.below(kSets);
    }
  }
}

struct Need {
  const char *name;
  uint64_t value;
};

int check_coverage(const Bench &b, bool directed_run, bool random_run, bool quiet) {
  const Cov &c = b.cov;
  std::vector<Need> need = {
      {"op lookup", c.ops[CTC_OP_LOOKUP]},
      {"op fill", c.ops[CTC_OP_FILL]},
      {"op update", c.ops[CTC_OP_UPDATE]},
      {"op invalidate", c.ops[CTC_OP_INVAL]},
      {"op configure", c.ops[CTC_OP_CONFIG]},
      {"op flush", c.ops[CTC_OP_FLUSH]},
      {"lookup hit", c.lookup_hit},
      {"lookup miss", c.lookup_miss},
      {"lookup line hit, sector miss", c.lookup_line_hit_sector_miss},
      {"fill of a valid sector kept", c.fill_kept},
      {"update hit", c.update_hit},
      {"install into invalid way", c.install_invalid},
      {"tie among invalid ways", c.install_tie_invalid},
      {"eviction clean", c.evict_clean},
      {"eviction with write-back", c.evict_dirty},
      {"eviction of 8 dirty sectors", c.evict_all8},
      {"eviction with all ways dirty", c.evict_all_ways_dirty},
      {"invalidate hit", c.inval_hit},
      {"invalidate with write-back", c.inval_wb},
      {"not stored (0 ways)", c.not_stored},
      {"error response", c.err},
      {"configure shrink with write-back", c.config_shrink_wb},
      {"configure grow", c.config_grow},
      {"flush with write-back", c.flush_wb},
      {"write-back back-pressure", c.wb_stall},
      {"response back-pressure", c.rsp_stall},
      {"request gaps", c.req_gap},
  };
  for (uint32_t w = 0; w < CTC_MAX_WAYS; w++) {
    static char names[CTC_MAX_WAYS][24];
    snprintf(names[w], sizeof names[w], "way %u evicted", w);
    need.push_back({names[w], c.evict_way[w]});
  }
  for (uint32_t k = 0; k <= CTC_MAX_L2_WAYS; k++) {
    static char names[CTC_MAX_L2_WAYS + 1][24];
    snprintf(names[k], sizeof names[k], "configure to %u", k);
    need.push_back({names[k], c.config_to[k]});
  }
  if (directed_run) {
    need.push_back({"latency checks", c.latency_checks});
    need.push_back({"reset mid-traffic", c.resets_mid_traffic});
    need.push_back({"full-cache flush", c.max_walk_wb == (uint64_t)kSets * CTC_MAX_WAYS * CTC_SECTORS});
  }
  (void)random_run;
  int missing = 0;
  if (!quiet) printf("tb_ctc: functional coverage\n");
  for (const Need &n : need) {
    if (!quiet) printf("  %-36s %10" PRIu64 "\n", n.name, n.value);
    if (n.value == 0) {
      fprintf(stderr, "tb_ctc: coverage hole: %s never happened\n", n.name);
      missing++;
    }
  }
  return missing;
}

}  // namespace

int main(int argc, char **argv) {
  uint64_t seed = 1, count = 100000;
  std::string mode = "all";
  const char *trace = nullptr, *covfile = nullptr;
  bool quiet = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        fprintf(stderr, "tb_ctc: %s needs a value\n", name);
        exit(2);
      }
      return argv[++i];
    };
    auto num = [&](const char *name) -> uint64_t {
      const char *v = val(name);
      char *end = nullptr;
      uint64_t x = strtoull(v, &end, 0);
      if (!*v || *end) {
        fprintf(stderr, "tb_ctc: %s: expected a number, got '%s'\n", name, v);
        exit(2);
      }
      return x;
    };
    if (a == "--seed") {
      seed = num("--seed");
    } else if (a == "--count") {
      count = num("--count");
    } else if (a == "--trace") {
      trace = val("--trace");
    } else if (a == "--coverage") {
      covfile = val("--coverage");
    } else if (a == "--mode") {
      mode = val("--mode");
      if (mode != "directed" && mode != "random" && mode != "all") {
        fprintf(stderr, "tb_ctc: --mode: expected directed, random or all, got '%s'\n", mode.c_str());
        return 2;
      }
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--help" || a == "-h") {
      printf("usage: tb_ctc [--mode directed|random|all] [--seed N] [--count N] [--trace FILE.fst|.vcd]\n"
             "              [--coverage FILE.dat] [--quiet]\n"
             "Drives the RTL tag cache and the C reference with identical transactions and\n"
             "compares every response and write-back; exits 1 on the first mismatch.\n");
      return 0;
    } else {
      fprintf(stderr, "tb_ctc: unknown option '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  Verilated::commandArgs(argc, argv);
  bool do_dir = mode != "random", do_rand = mode != "directed";
  Bench b(seed, trace, quiet);
  if (do_dir) directed(b);
  uint64_t after_dir = b.txns();
  if (do_rand) random_traffic(b, count);
  if (covfile) b.write_coverage(covfile);
  if (!quiet)
    printf("tb_ctc: seed=%" PRIu64 " mode=%s: %" PRIu64 " directed + %" PRIu64 " random transactions, %" PRIu64
           " write-backs, %" PRIu64 " cycles, 0 mismatches\n",
           seed, mode.c_str(), after_dir, b.txns() - after_dir, b.cov.wbs, b.cycles());
  // Coverage is asserted for the full directed suite and for random runs long
  // enough to reach every bin (short user runs only report it).
  int holes = 0;
  if (do_dir || count >= 100000) holes = check_coverage(b, do_dir, do_rand, quiet);
  if (holes) {
    fprintf(stderr, "tb_ctc: %d functional-coverage hole(s)\n", holes);
    return 1;
  }
  printf("tb_ctc: PASS\n");
  return 0;
}
