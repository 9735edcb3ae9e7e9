// Workload summary from a functional run (see describe.h).
#include "describe.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "functional.h"

extern "C" {
#include "gpu/coalesce.h"
}

namespace strata {
namespace {

using nlohmann::json;

struct Hist {
  uint64_t insts = 0, reqs = 0;
  uint64_t ea[kWarpSize] = {};  // requests with ea = i + 1
  void add(const coal_req* r, int n) {
    ++insts;
    reqs += static_cast<uint64_t>(n);
    for (int i = 0; i < n; ++i) ++ea[std::min<unsigned>(std::max<unsigned>(r[i].ea_count, 1), kWarpSize) - 1];
  }
  void merge(const Hist& h) {
    insts += h.insts;
    reqs += h.reqs;
    for (unsigned i = 0; i < kWarpSize; ++i) ea[i] += h.ea[i];
  }
  json to_json() const {
    json j;
    j["insts"] = insts;
    j["requests"] = reqs;
    j["ea"] = std::vector<uint64_t>(ea, ea + kWarpSize);
    return j;
  }
};

struct BlockStats {
  uint64_t instances = 0, insts = 0, loads = 0, stores = 0;
  uint64_t ld_reqs = 0, st_reqs = 0;
  uint64_t ld_min = UINT64_MAX, ld_max = 0, st_min = UINT64_MAX, st_max = 0;  // per instance (warp instructions)
};

// every class of Op (program_if.h), in its order
constexpr unsigned kOps = static_cast<unsigned>(Op::Atomic) + 1;
const char* const kOpNames[kOps] = {"alu", "sfu", "load", "store", "barrier", "exit", "shared", "atomic"};

struct KernelStats {
  std::string name;
  uint64_t launches = 0, ctas = 0, warps = 0;
  uint32_t warps_per_cta = 0;
  std::vector<unsigned> reads, writes;
  uint64_t op[kOps] = {};  // by Op
  uint64_t thread_insts = 0, load_bytes = 0, store_bytes = 0;
  Hist ld, st;
  std::unordered_set<uint64_t> lines;
  std::vector<OffloadBlock> blocks;
  std::vector<BlockStats> bs;
};


std::string limit_names(uint32_t l) {
  std::string s;
  const char* n[5] = {"shared-memory", "barrier", "atomic", "divergent", "call"};
  for (unsigned i = 0; i < 5; ++i)
    if (l & (1u << i)) s += (s.empty() ? "" : ",") + std::string(n[i]);
  return s;
}

const char* kind_name(ofl_kind k) {
  return k == OFL_CANDIDATE ? "candidate" : k == OFL_CONDITIONAL ? "conditional" : "no";
}

json decision_json(const ofl_params& p, const OffloadBlock& b) {
  ofl_decision d;
  const ofl_block ob = b.ofl();
  json j;
  if (ofl_decide(&p, &ob, &d) != 0) {
    j["decision"] = "invalid";
    return j;
  }
  j["decision"] = kind_name(d.kind);
  j["trips_used"] = d.trips_used;
  j["min_trips"] = d.min_trips;
  j["tx"] = static_cast<double>(d.bw.tx_q16) / OFL_ONE;
  j["rx"] = static_cast<double>(d.bw.rx_q16) / OFL_ONE;
  j["saves_tx"] = (d.tag & OFL_TAG_TX) != 0;
  j["saves_rx"] = (d.tag & OFL_TAG_RX) != 0;
  return j;
}

json params_json(const ofl_params& p) {
  return json{{"warp_size", p.warp_size},
              {"line_words", p.line_words},
              {"coal_ld", static_cast<double>(p.coal_ld_q16) / OFL_ONE},
              {"coal_st", static_cast<double>(p.coal_st_q16) / OFL_ONE},
              {"miss_ld", static_cast<double>(p.miss_ld_q16) / OFL_ONE}};
}

// Average requests per instruction as a Q16 coalescing ratio within [1, S_W].
uint32_t coal_q16(uint64_t reqs, uint64_t insts) {
  if (!insts) return OFL_ONE;
  const uint64_t q = (reqs * OFL_ONE + insts / 2) / insts;
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(q, OFL_ONE), uint64_t(kWarpSize) * OFL_ONE));
}

// Which array holds an address: the program's arrays sorted by base (refreshed
// at every launch: a CUDA program allocates while it runs).
class ArrayIndex {
 public:
  void refresh(const Program& p) {
    if (p.arrays().size() == spans_.size()) return;
    spans_.clear();
    for (size_t i = 0; i < p.arrays().size(); ++i)
      spans_.push_back({p.arrays()[i].base, p.arrays()[i].base + p.arrays()[i].bytes, static_cast<unsigned>(i)});
    std::sort(spans_.begin(), spans_.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  }
  int find(uint64_t addr) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), addr, [](uint64_t a, const Span& s) { return a < s.lo; });
    if (it == spans_.begin()) return -1;
    --it;
    return addr < it->hi ? static_cast<int>(it->idx) : -1;
  }
  size_t size() const { return spans_.size(); }

 private:
  struct Span {
    uint64_t lo, hi;
    unsigned idx;
  };
  std::vector<Span> spans_;
};

// A memory instruction's requests into the per-array counts (ArrayAccess).
struct LineSets {  // per array, the lines read and written in the current launch
  std::vector<std::unordered_set<uint64_t>> rd, wr;
};

void count_accesses(const WarpInst& in, const coal_req* r, int n, const ArrayIndex& ix, std::vector<ArrayAccess>* out,
                    LineSets* lines) {
  if (n <= 0) return;
  const bool write = in.op != Op::Load;
  const uint64_t lanes = static_cast<uint64_t>(__builtin_popcount(in.active));
  const uint64_t contiguous = (lanes * in.bytes + COAL_LINE_BYTES - 1) / COAL_LINE_BYTES;
  const bool coal = static_cast<uint64_t>(n) <= contiguous + 1;  // a shifted contiguous window spans one line more
  const int first = ix.find(r[0].line_addr);
  if (first >= 0) {
    ArrayAccess& a = (*out)[static_cast<unsigned>(first)];
    ++(write ? a.writes : a.reads);
    ++(coal ? a.coal_insts : a.uncoal_insts);
  }
  for (int i = 0; i < n; ++i) {
    const int k = ix.find(r[i].line_addr);
    if (k < 0) continue;
    ArrayAccess& a = (*out)[static_cast<unsigned>(k)];
    ++(write ? (coal ? a.wr_coal : a.wr_uncoal) : (coal ? a.rd_coal : a.rd_uncoal));
    if ((write ? lines->wr : lines->rd)[static_cast<unsigned>(k)].insert(r[i].line_addr).second)
      ++(write ? a.wr_lines : a.rd_lines);
  }
}

class Observer : public FuncObserver {
 public:
  explicit Observer(const Program& p) : prog_(p) {}
  std::vector<KernelStats> ks;
  std::vector<LaunchProfile> launches;
  std::unordered_set<uint64_t> all_lines;
  KernelStats* cur = nullptr;
  // Open block instance of each warp of the CTA (the driver interleaves the
  // warps at barriers); `wc` is the warp whose instructions come now.
  struct Open {
    int block = -1;
    uint64_t ld = 0, st = 0;
  };
  std::vector<Open> open;
  uint32_t wc = 0;

  void kernel_begin(const Kernel& k) override {
    index_.refresh(prog_);
    launches.emplace_back();
    launch_ = &launches.back();
    launch_->name = k.name;
    launch_->warps = k.warps();
    launch_->warps_per_cta = k.warps_per_cta;
    launch_->arrays.assign(index_.size(), ArrayAccess());
    lines_.rd.assign(index_.size(), {});
    lines_.wr.assign(index_.size(), {});
    cur = nullptr;
    for (KernelStats& s : ks)
      if (s.name == k.name) cur = &s;
    if (!cur) {
      ks.emplace_back();
      cur = &ks.back();
      cur->name = k.name;
      cur->warps_per_cta = k.warps_per_cta;
      cur->blocks = k.blocks;
      cur->bs.resize(k.blocks.size());
    }
    ++cur->launches;
    cur->ctas += k.ctas;
    cur->warps += k.warps();
    for (unsigned a : k.reads)
      if (std::find(cur->reads.begin(), cur->reads.end(), a) == cur->reads.end()) cur->reads.push_back(a);
    for (unsigned a : k.writes)
      if (std::find(cur->writes.begin(), cur->writes.end(), a) == cur->writes.end()) cur->writes.push_back(a);
    blocks_ = k.blocks.size();
    open.assign(std::max<uint32_t>(k.warps_per_cta, 1), Open());
    wc = 0;
  }

  void warp_resume(uint32_t warp) override { wc = warp < open.size() ? warp : 0; }

  void close() {
    Open& o = open[wc];
    if (o.block < 0) return;
    BlockStats& b = cur->bs[static_cast<unsigned>(o.block)];
    b.ld_min = std::min(b.ld_min, o.ld);
    b.ld_max = std::max(b.ld_max, o.ld);
    b.st_min = std::min(b.st_min, o.st);
    b.st_max = std::max(b.st_max, o.st);
    o.block = -1;
  }

  void inst(const WarpInst& in) override {
    KernelStats& k = *cur;
    const unsigned op = static_cast<unsigned>(in.op);
    ++k.op[op];
    ++launch_->insts;
    if (in.op == Op::Barrier) ++launch_->syncs;
    const uint64_t lanes = static_cast<uint64_t>(__builtin_popcount(in.active));
    k.thread_insts += lanes;
    int n = 0;
    if ((in.op == Op::Load || in.op == Op::Store) && in.active) {
      n = coal_warp(in.addr, in.active, in.bytes, reqs_);
      if (n < 0)
        throw std::runtime_error("kernel " + k.name + ": misaligned " + std::to_string(in.bytes) +
                                 "-byte access in a warp instruction");
      (in.op == Op::Load ? k.ld : k.st).add(reqs_, n);
      count_accesses(in, reqs_, n, index_, &launch_->arrays, &lines_);
      (in.op == Op::Load ? k.load_bytes : k.store_bytes) += lanes * in.bytes;
      for (int i = 0; i < n; ++i) {
        k.lines.insert(reqs_[i].line_addr);
        all_lines.insert(reqs_[i].line_addr);
      }
    }
    // Offload block instances.
    Open& o = open[wc];
    if (in.block == kNoBlock || in.block_entry || static_cast<int>(in.block) != o.block) close();
    if (in.block != kNoBlock) {
      if (in.block >= blocks_)
        throw std::runtime_error("kernel " + k.name + ": instruction tagged with offload block " +
                                 std::to_string(in.block) + " of " + std::to_string(blocks_));
      BlockStats& b = k.bs[in.block];
      if (o.block < 0) {
        if (!in.block_entry)
          throw std::runtime_error("kernel " + k.name + ": offload block " + k.blocks[in.block].name +
                                   " entered without an entry-tagged instruction");
        ++b.instances;
        o.block = in.block;
        o.ld = o.st = 0;
      }
      ++b.insts;
      if (in.op == Op::Load) ++b.loads, ++o.ld, b.ld_reqs += static_cast<uint64_t>(n);
      if (in.op == Op::Store) ++b.stores, ++o.st, b.st_reqs += static_cast<uint64_t>(n);
    }
  }
  void warp_end() override { close(); }

 private:
  const Program& prog_;
  ArrayIndex index_;
  LineSets lines_;
  LaunchProfile* launch_ = nullptr;
  coal_req reqs_[COAL_MAX_REQS];
  size_t blocks_ = 0;
};

json access_json(const ArrayAccess& a) {
  return json{{"reads", a.reads},           {"writes", a.writes},       {"coalesced_insts", a.coal_insts},
              {"uncoalesced_insts", a.uncoal_insts}, {"read_coalesced", a.rd_coal}, {"read_uncoalesced", a.rd_uncoal},
              {"write_coalesced", a.wr_coal}, {"write_uncoalesced", a.wr_uncoal}, {"lines_read", a.rd_lines},
              {"lines_written", a.wr_lines}};
}

}  // namespace

void ArrayAccess::merge(const ArrayAccess& o) {
  reads += o.reads;
  writes += o.writes;
  coal_insts += o.coal_insts;
  uncoal_insts += o.uncoal_insts;
  rd_coal += o.rd_coal;
  rd_uncoal += o.rd_uncoal;
  wr_coal += o.wr_coal;
  wr_uncoal += o.wr_uncoal;
  rd_lines += o.rd_lines;
  wr_lines += o.wr_lines;
}

std::vector<LaunchProfile> profile_launches(Program& prog) {
  Observer obs(prog);
  run_functional(prog, &obs);
  for (LaunchProfile& l : obs.launches) l.arrays.resize(prog.arrays().size());
  return std::move(obs.launches);
}

json describe_program(Program& prog, const DescribeOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  Observer obs(prog);
  const FuncCounts fc = run_functional(prog, &obs);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ofl_params paper;
  ofl_params_paper(&paper);
  json d;
  d["workload"] = opt.title;
  d["program"] = prog.name();
  d["seed"] = opt.seed;
  d["sass_pcs"] = opt.sass_pcs;
  d["ptx_lines"] = opt.ptx_lines;
  d["footprint_bytes"] = prog.footprint_bytes();
  d["touched_bytes"] = static_cast<uint64_t>(obs.all_lines.size()) * COAL_LINE_BYTES;
  d["launches"] = fc.kernels;
  d["warps"] = fc.warps;
  d["warp_insts"] = fc.warp_insts;
  d["thread_insts"] = fc.thread_insts;
  d["host_seconds"] = secs;
  d["offload_params"] = params_json(paper);
  json arrays = json::array();
  for (const ArrayInfo& a : prog.arrays()) arrays.push_back({{"name", a.name}, {"base", a.base}, {"bytes", a.bytes}});
  d["arrays"] = arrays;
  Hist tld, tst;
  uint64_t mem_insts = 0, cand_mem_insts = 0;
  json kernels = json::array();
  for (const KernelStats& k : obs.ks) {
    json kj;
    kj["name"] = k.name;
    kj["launches"] = k.launches;
    kj["ctas"] = k.ctas;
    kj["warps_per_cta"] = k.warps_per_cta;
    kj["warps"] = k.warps;
    std::vector<std::string> rd, wr;
    for (unsigned a : k.reads) rd.push_back(prog.array(a).name);
    for (unsigned a : k.writes) wr.push_back(prog.array(a).name);
    kj["reads"] = rd;
    kj["writes"] = wr;
    json mix;
    for (unsigned i = 0; i < kOps; ++i) mix[kOpNames[i]] = k.op[i];
    kj["mix"] = mix;
    kj["thread_insts"] = k.thread_insts;
    kj["load_bytes"] = k.load_bytes;
    kj["store_bytes"] = k.store_bytes;
    kj["touched_bytes"] = static_cast<uint64_t>(k.lines.size()) * COAL_LINE_BYTES;
    kj["coalescing"] = {{"load", k.ld.to_json()}, {"store", k.st.to_json()}};
    std::vector<ArrayAccess> per(prog.arrays().size());  // this name's launches, per array
    for (const LaunchProfile& l : obs.launches)
      if (l.name == k.name)
        for (size_t a = 0; a < l.arrays.size(); ++a) per[a].merge(l.arrays[a]);
    json aj = json::array();
    for (size_t a = 0; a < per.size(); ++a) {
      if (!per[a].reads && !per[a].writes && !per[a].rd_coal && !per[a].rd_uncoal && !per[a].wr_coal &&
          !per[a].wr_uncoal)
        continue;
      json x = access_json(per[a]);
      x["array"] = prog.array(static_cast<unsigned>(a)).name;
      aj.push_back(x);
    }
    kj["arrays"] = aj;
    tld.merge(k.ld);
    tst.merge(k.st);
    mem_insts += k.op[2] + k.op[3];
    json blocks = json::array();
    for (size_t i = 0; i < k.blocks.size(); ++i) {
      const OffloadBlock& b = k.blocks[i];
      const BlockStats& s = k.bs[i];
      json bj;
      bj["name"] = b.name;
      bj["pc_begin"] = b.pc_begin;
      bj["pc_end"] = b.pc_end;
      bj["kind"] = trip_kind_name(b.trip);
      bj["trips"] = b.trips;
      bj["live_in"] = b.live_in;
      bj["live_out"] = b.live_out;
      bj["loads"] = b.loads;
      bj["stores"] = b.stores;
      bj["alu"] = b.alu;
      bj["sfu"] = b.sfu;
      bj["limits"] = limit_names(b.limits);
      bj["paper"] = decision_json(paper, b);
      json ob;
      ob["instances"] = s.instances;
      ob["insts"] = s.insts;
      ob["loads"] = s.loads;
      ob["stores"] = s.stores;
      ob["load_requests"] = s.ld_reqs;
      ob["store_requests"] = s.st_reqs;
      ob["loads_per_instance_min"] = s.instances ? s.ld_min : 0;
      ob["loads_per_instance_max"] = s.ld_max;
      ob["stores_per_instance_min"] = s.instances ? s.st_min : 0;
      ob["stores_per_instance_max"] = s.st_max;
      ofl_params meas = paper;
      meas.coal_ld_q16 = coal_q16(s.ld_reqs, s.loads);
      meas.coal_st_q16 = coal_q16(s.st_reqs, s.stores);
      ob["coal_ld"] = static_cast<double>(meas.coal_ld_q16) / OFL_ONE;
      ob["coal_st"] = static_cast<double>(meas.coal_st_q16) / OFL_ONE;
      bj["observed"] = ob;
      bj["measured"] = decision_json(meas, b);
      if (bj["paper"]["decision"] != "no") cand_mem_insts += s.loads + s.stores;
      blocks.push_back(bj);
    }
    kj["blocks"] = blocks;
    kernels.push_back(kj);
  }
  d["kernels"] = kernels;
  d["coalescing"] = {{"load", tld.to_json()}, {"store", tst.to_json()}};
  d["mem_insts"] = mem_insts;
  d["mem_insts_in_candidates"] = cand_mem_insts;
  return d;
}

// ------------------------------------------------------------------ text

namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string bytes_h(uint64_t b) {
  const char* u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  unsigned i = 0;
  while (v >= 1024 && i < 4) v /= 1024, ++i;
  return i ? fmt("%" PRIu64 " B (%.1f %s)", b, v, u[i]) : fmt("%" PRIu64 " B", b);
}

std::string hist_text(const json& h) {
  const uint64_t insts = h["insts"], reqs = h["requests"];
  std::string s = fmt("%" PRIu64 " insts -> %" PRIu64 " requests", insts, reqs);
  if (!insts) return s;
  s += fmt(" (%.2f per inst); requests by effective addresses:", static_cast<double>(reqs) / static_cast<double>(insts));
  for (unsigned i = 0; i < kWarpSize; ++i) {
    const uint64_t c = h["ea"][i];
    if (c) s += fmt(" %u:%" PRIu64, i + 1, c);
  }
  return s;
}

std::string decision_text(const json& d) {
  if (d["decision"] == "invalid") return "invalid block (out of range)";
  std::string s = fmt("TX %+.2f RX %+.2f", d["tx"].get<double>(), d["rx"].get<double>());
  const std::string dec = d["decision"];
  if (dec == "conditional") s += fmt(" at %u trips -> conditional candidate (trips >= %u)", d["trips_used"].get<unsigned>(),
                                     d["min_trips"].get<unsigned>());
  else if (dec == "candidate") s += " -> candidate";
  else s += " -> not a candidate";
  if (dec != "no") {
    s += " saving";
    if (d["saves_tx"].get<bool>()) s += " TX";
    if (d["saves_rx"].get<bool>()) s += " RX";
  }
  return s;
}

}  // namespace

std::string describe_text(const json& d) {
  std::string o;
  const json& P = d["offload_params"];
  o += fmt("workload %s (seed %" PRIu64 "): %zu arrays, footprint %s, %" PRIu64 " kernel launch%s, %" PRIu64
           " warp instructions; functional run %.2f s\n",
           d["workload"].get<std::string>().c_str(), d["seed"].get<uint64_t>(), d["arrays"].size(),
           bytes_h(d["footprint_bytes"]).c_str(), d["launches"].get<uint64_t>(),
           d["launches"].get<uint64_t>() == 1 ? "" : "es", d["warp_insts"].get<uint64_t>(),
           d["host_seconds"].get<double>());
  o += fmt("touched %s\n", bytes_h(d["touched_bytes"]).c_str());
  o += "arrays:\n";
  for (const json& a : d["arrays"])
    o += fmt("  %-20s base 0x%010" PRIx64 "  %s\n", a["name"].get<std::string>().c_str(), a["base"].get<uint64_t>(),
             bytes_h(a["bytes"]).c_str());
  const bool hex = d["sass_pcs"];
  const bool ptx = d.value("ptx_lines", false);
  for (const json& k : d["kernels"]) {
    auto names = [](const json& v) {
      std::string s;
      for (const json& x : v) s += " " + x.get<std::string>();
      return s.empty() ? std::string(" -") : s;
    };
    o += fmt("kernel %s: %" PRIu64 " launch%s, %" PRIu64 " CTAs x %u warps; reads%s; writes%s\n",
             k["name"].get<std::string>().c_str(), k["launches"].get<uint64_t>(),
             k["launches"].get<uint64_t>() == 1 ? "" : "es", k["ctas"].get<uint64_t>(), k["warps_per_cta"].get<unsigned>(),
             names(k["reads"]).c_str(), names(k["writes"]).c_str());
    const json& m = k["mix"];
    o += fmt("  instruction mix (warp): alu %" PRIu64 ", sfu %" PRIu64 ", ld %" PRIu64 ", st %" PRIu64
             ", barrier %" PRIu64 ", exit %" PRIu64 "; thread instructions %" PRIu64 "\n",
             m["alu"].get<uint64_t>(), m["sfu"].get<uint64_t>(), m["load"].get<uint64_t>(), m["store"].get<uint64_t>(),
             m["barrier"].get<uint64_t>(), m["exit"].get<uint64_t>(), k["thread_insts"].get<uint64_t>());
    o += fmt("  bytes: loaded %" PRIu64 ", stored %" PRIu64 ", touched %s\n", k["load_bytes"].get<uint64_t>(),
             k["store_bytes"].get<uint64_t>(), bytes_h(k["touched_bytes"]).c_str());
    for (const json& a : k["arrays"])
      o += fmt("  array %-16s ld %" PRIu64 " st %" PRIu64 " (coalesced %" PRIu64 ", uncoalesced %" PRIu64
               "); requests: read %" PRIu64 " + %" PRIu64 " uncoalesced, write %" PRIu64 " + %" PRIu64
               " uncoalesced; lines read %" PRIu64 ", written %" PRIu64 "\n",
               a["array"].get<std::string>().c_str(), a["reads"].get<uint64_t>(), a["writes"].get<uint64_t>(),
               a["coalesced_insts"].get<uint64_t>(), a["uncoalesced_insts"].get<uint64_t>(),
               a["read_coalesced"].get<uint64_t>(), a["read_uncoalesced"].get<uint64_t>(),
               a["write_coalesced"].get<uint64_t>(), a["write_uncoalesced"].get<uint64_t>(),
               a["lines_read"].get<uint64_t>(), a["lines_written"].get<uint64_t>());
    o += "  coalescing, loads : " + hist_text(k["coalescing"]["load"]) + "\n";
    o += "  coalescing, stores: " + hist_text(k["coalescing"]["store"]) + "\n";
    if (k["blocks"].empty()) {
      o += "  offload blocks: none\n";
      continue;
    }
    o += fmt("  offload blocks (TOM Eq. 3-4, words per warp; paper: S_W %u, S_C %u, Coal 1, Miss_LD %.2f):\n",
             P["warp_size"].get<unsigned>(), P["line_words"].get<unsigned>(), P["miss_ld"].get<double>());
    for (size_t i = 0; i < k["blocks"].size(); ++i) {
      const json& b = k["blocks"][i];
      const uint64_t pb = b["pc_begin"], pe = b["pc_end"];
      std::string range;
      if (hex) range = fmt(" pc 0x%" PRIx64 "-0x%" PRIx64, pb, pe);
      else if (ptx) range = fmt(" PTX lines %" PRIu64 "-%" PRIu64, pb, pe);
      else if (pb || pe) range = fmt(" steps %" PRIu64 "-%" PRIu64, pb, pe);
      std::string kind = b["kind"];
      if (kind == "static") kind += fmt(" loop, %u trips", b["trips"].get<unsigned>());
      else if (kind != "straight") kind += " loop";
      const std::string lim = b["limits"];
      o += fmt("    #%zu %s%s: %s; live-in %u, live-out %u; per %s: ld %u, st %u, alu %u, sfu %u; limits %s\n", i,
               b["name"].get<std::string>().c_str(), range.c_str(), kind.c_str(), b["live_in"].get<unsigned>(),
               b["live_out"].get<unsigned>(), b["kind"] == "straight" ? "execution" : "iteration",
               b["loads"].get<unsigned>(), b["stores"].get<unsigned>(), b["alu"].get<unsigned>(),
               b["sfu"].get<unsigned>(), lim.empty() ? "ok" : ("VIOLATED (" + lim + ")").c_str());
      o += "       paper estimate: " + decision_text(b["paper"]) + "\n";
      const json& ob = b["observed"];
      o += fmt("       observed: %" PRIu64 " instances, ld %" PRIu64 "-%" PRIu64 " st %" PRIu64 "-%" PRIu64
               " warp instructions per instance, Coal_LD %.2f Coal_ST %.2f\n",
               ob["instances"].get<uint64_t>(), ob["loads_per_instance_min"].get<uint64_t>(),
               ob["loads_per_instance_max"].get<uint64_t>(), ob["stores_per_instance_min"].get<uint64_t>(),
               ob["stores_per_instance_max"].get<uint64_t>(), ob["coal_ld"].get<double>(), ob["coal_st"].get<double>());
      o += "       with measured coalescing: " + decision_text(b["measured"]) + "\n";
    }
  }
  o += "total coalescing, loads : " + hist_text(d["coalescing"]["load"]) + "\n";
  o += "total coalescing, stores: " + hist_text(d["coalescing"]["store"]) + "\n";
  const uint64_t mi = d["mem_insts"], ci = d["mem_insts_in_candidates"];
  o += fmt("memory instructions in offload candidates (paper estimate): %" PRIu64 " of %" PRIu64 " (%.1f%%)\n", ci, mi,
           mi ? 100.0 * static_cast<double>(ci) / static_cast<double>(mi) : 0.0);
  return o;
}

}  // namespace strata
