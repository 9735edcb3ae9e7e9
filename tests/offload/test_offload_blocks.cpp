// Offload-candidate blocks (docs/offload_candidates.md), untimed:
//   - built-in kernels: the declared metadata of stream, random, stencil2d and
//     bfs equals the hand derivation (see each file's header), and equals what
//     the registers of their generated instruction streams give (live-in =
//     read before written inside an instance, live-out = written inside and
//     read after it before being rewritten), instance by instance;
//   - kernel library: the representative analogues declare blocks, and every
//     straight-line / static-loop block issues exactly its declared loads and
//     stores per instance (converged: no instance is split or merged);
//   - coalescing histogram (the C coalescer the SM uses): stream all 32-address
//     requests, random mostly 1;
//   - Accel-Sim: the hand-written trace tests/accelsim/data/blocks (loops with
//     static / at-entry / unknown trip counts, an atomic, a barrier, a memory
//     fence, a divergent region; derivation by hand in the test below) and the
//     external vectoradd trace.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "tests/common/expect.h"
#include "workloads/accelsim.h"
#include "workloads/describe.h"
#include "workloads/functional.h"
#include "workloads/registry.h"

using namespace strata;
using nlohmann::json;
using Knobs = std::map<std::string, int64_t>;

namespace {

const char* cur = "";  // case being checked (printed before its checks)

struct Mem {
  bstore g{};
  Mem() { bstore_init(&g); }
  ~Mem() { bstore_free(&g); }
};

json describe(const std::string& name, const Knobs& k, uint64_t seed = 1) {
  Mem m;
  auto prog = find_workload(name)->make(k, seed);
  prog->init(&m.g, nullptr);
  DescribeOptions o;
  o.title = name;
  o.seed = seed;
  return describe_program(*prog, o);
}

json describe_trace(const std::string& path) {
  Mem m;
  auto prog = make_accelsim_program(path);
  prog->init(&m.g, nullptr);
  DescribeOptions o;
  o.title = path;
  o.sass_pcs = true;
  return describe_program(*prog, o);
}

// Registers of a warp's instruction stream, per block: upward-exposed reads
// and values read after the instance (before being rewritten), intersected
// over all instances of all warps.
struct RegObserver : FuncObserver {
  struct I {
    Op op;
    uint8_t dst, src[3];
    uint16_t block;
    bool entry;
  };
  std::vector<I> seq;
  std::map<unsigned, std::set<unsigned>> live_in, live_out;
  std::map<unsigned, uint64_t> instances;
  void inst(const WarpInst& in) override {
    seq.push_back({in.op, in.dst, {in.src[0], in.src[1], in.src[2]}, in.block, in.block_entry});
  }
  void warp_end() override {
    for (size_t s = 0; s < seq.size();) {
      if (seq[s].block == kNoBlock) {
        ++s;
        continue;
      }
      const unsigned b = seq[s].block;
      size_t e = s + 1;
      while (e < seq.size() && seq[e].block == b && !seq[e].entry) ++e;
      std::set<unsigned> written, in, out;
      for (size_t i = s; i < e; ++i) {
        for (uint8_t r : seq[i].src)
          if (r != kNoReg && !written.count(r)) in.insert(r);
        if (seq[i].dst != kNoReg && seq[i].op != Op::Store) written.insert(seq[i].dst);
      }
      for (unsigned r : written) {
        for (size_t i = e; i < seq.size(); ++i) {
          bool read = false;
          for (uint8_t x : seq[i].src) read |= x == r;
          if (read) {
            out.insert(r);
            break;
          }
          if (seq[i].dst == r && seq[i].op != Op::Store) break;
        }
      }
      // What every instance needs: an instance whose lanes skip some of the
      // block's instructions (stencil2d's border-only warps, predicated off)
      // reads registers the skipped ones would have written.
      auto meet = [&](std::map<unsigned, std::set<unsigned>>& acc, const std::set<unsigned>& x) {
        if (!instances[b]) {
          acc[b] = x;
          return;
        }
        std::set<unsigned> both;
        for (unsigned r : acc[b])
          if (x.count(r)) both.insert(r);
        acc[b] = both;
      };
      meet(live_in, in);
      meet(live_out, out);
      ++instances[b];
      s = e;
    }
    seq.clear();
  }
};

void expect_block(const char* w, const json& b, const char* name, const char* kind, unsigned in, unsigned out,
                  unsigned ld, unsigned st, uint64_t pb, uint64_t pe) {
  std::fprintf(stderr, "  %s block %s\n", w, name);
  EXPECT(b["name"] == name);
  EXPECT(b["kind"] == kind);
  EXPECT_EQ(b["live_in"].get<unsigned>(), in);
  EXPECT_EQ(b["live_out"].get<unsigned>(), out);
  EXPECT_EQ(b["loads"].get<unsigned>(), ld);
  EXPECT_EQ(b["stores"].get<unsigned>(), st);
  EXPECT_EQ(b["pc_begin"].get<uint64_t>(), pb);
  EXPECT_EQ(b["pc_end"].get<uint64_t>(), pe);
}

// Hand-written kernels: declared blocks = hand derivation = register derivation.
void builtin_kernels() {
  std::fprintf(stderr, "builtin kernels\n");
  struct C {
    const char* w;
    Knobs k;
    const char *name, *kind;
    unsigned in, out, ld, st;
    uint64_t pb, pe;
    const char* decision;
  };
  const C cases[] = {
      // stream: steps 1-4 read r0 only from outside; nothing read after.
      {"stream", {{"n", 8192}}, "add", "straight", 1, 0, 2, 1, 1, 4, "candidate"},
      // random: steps 2-4 (ld r1 [r0]; r2 = f(r1); st [r0] r2).
      {"random", {{"table_words", 1 << 16}, {"updates", 8192}}, "update", "straight", 1, 0, 1, 1, 2, 4, "candidate"},
      // stencil2d: steps 1-11 (5 loads into r1..r5, r6 = sum, st [r0] r6 (r1)).
      {"stencil2d", {{"nx", 96}, {"ny", 40}, {"iters", 2}}, "jacobi", "straight", 1, 0, 5, 1, 1, 11, "candidate"},
      // bfs: steps 6-9 loop; r3 read before step 9 writes it; r8 read by step 10.
      // Unknown trip count taken as 1: TX = 32 - 1 = 31, RX = 32 - 32 = 0 -> no.
      {"bfs", {{"scale", 10}, {"edge_factor", 8}}, "scan_neighbours", "unknown", 1, 1, 2, 0, 6, 9, "no"},
  };
  for (const C& c : cases) {
    cur = c.w;
    std::fprintf(stderr, " %s\n", cur);
    const json d = describe(c.w, c.k);
    EXPECT_EQ(d["kernels"].size(), 1u);
    const json& k = d["kernels"][0];
    EXPECT_EQ(k["blocks"].size(), 1u);
    if (k["blocks"].size() != 1) continue;
    const json& b = k["blocks"][0];
    expect_block(c.w, b, c.name, c.kind, c.in, c.out, c.ld, c.st, c.pb, c.pe);
    EXPECT(b["limits"] == "");
    EXPECT(b["paper"]["decision"] == c.decision);
    EXPECT(b["observed"]["instances"].get<uint64_t>() > 0);
    // Straight blocks issue their loads/stores once per instance (stencil2d's
    // border-only warps skip the interior loads: predicated off).
    if (std::string(c.kind) == "straight") {
      EXPECT_EQ(b["observed"]["loads_per_instance_max"].get<unsigned>(), c.ld);
      EXPECT_EQ(b["observed"]["stores_per_instance_max"].get<unsigned>(), c.st);
    }
    // Register derivation from the generated instruction stream.
    Mem m;
    auto prog = find_workload(c.w)->make(c.k, 1);
    prog->init(&m.g, nullptr);
    RegObserver ro;
    run_functional(*prog, &ro);
    EXPECT_EQ(ro.instances[0], b["observed"]["instances"].get<uint64_t>());
    EXPECT_EQ(ro.live_in[0].size(), c.in);
    EXPECT_EQ(ro.live_out[0].size(), c.out);
  }
  // Eq. 3-4 with the paper's parameters for stream: TX -2, RX -32.25.
  cur = "stream";
  const json d = describe("stream", {{"n", 8192}});
  EXPECT(d["kernels"][0]["blocks"][0]["paper"]["tx"].get<double>() == -2.0);
  EXPECT(d["kernels"][0]["blocks"][0]["paper"]["rx"].get<double>() == -32.25);
  EXPECT_EQ(d["kernels"][0]["blocks"][0]["observed"]["instances"].get<uint64_t>(), 8192u / 32);
}

// Coalescing histograms (issue 4 item 6).
void coalescing() {
  std::fprintf(stderr, "coalescing\n");
  cur = "stream";
  json d = describe("stream", {{"n", 8192}});
  const json& ld = d["coalescing"]["load"];
  const json& st = d["coalescing"]["store"];
  EXPECT_EQ(ld["insts"].get<uint64_t>(), 2u * 8192 / 32);
  EXPECT_EQ(ld["requests"].get<uint64_t>(), 2u * 8192 / 32);
  EXPECT_EQ(ld["ea"][31].get<uint64_t>(), 2u * 8192 / 32);
  EXPECT_EQ(st["requests"].get<uint64_t>(), 8192u / 32);
  EXPECT_EQ(st["ea"][31].get<uint64_t>(), 8192u / 32);
  EXPECT_EQ(d["footprint_bytes"].get<uint64_t>(), 12u * 8192);
  EXPECT_EQ(d["touched_bytes"].get<uint64_t>(), 12u * 8192);
  cur = "random";
  d = describe("random", {{"table_words", 1 << 16}, {"updates", 8192}});
  for (const char* kind : {"load", "store"}) {
    const json& h = d["coalescing"][kind];
    const uint64_t reqs = h["requests"], ones = h["ea"][0];
    EXPECT_EQ(h["insts"].get<uint64_t>(), 8192u / 32);
    EXPECT(reqs > 30 * 256u);
    EXPECT(ones * 10 >= reqs * 9);  // >= 90% of the requests carry one address
  }
}

// Kernel library: annotated analogues, and every straight/static block issues
// exactly its declared loads and stores per instance.
void library() {
  std::fprintf(stderr, "library\n");
  const std::set<std::string> want = {"scalarprod", "blackscholes", "nn",      "reduction", "kmeans", "mersenne",
                                      "libor",      "scan",         "hotspot3d", "laplace",   "stencil", "conv2d",
                                      "convsep",    "srad",         "heartwall", "fwt",       "bitonic", "histogram",
                                      "mummer",     "backprop",     "neuralnet", "gaussian",  "ray",    "barneshut",
                                      "weather",    "cfd",          "streamcluster"};
  std::set<std::string> have;
  for (const WorkloadInfo& w : workload_registry()) {
    if (w.name == "accelsim" || w.name == "stream" || w.name == "random" || w.name == "stencil2d" || w.name == "bfs")
      continue;
    cur = w.name.c_str();
    std::fprintf(stderr, " %s\n", cur);
    Knobs k;
    k[kFootprintKnob] = 256 << 10;
    const json d = describe(w.name, k);
    for (const json& kj : d["kernels"])
      for (const json& b : kj["blocks"]) {
        have.insert(w.name);
        const json& o = b["observed"];
        EXPECT(o["instances"].get<uint64_t>() > 0);
        const std::string kind = b["kind"];
        const uint64_t t = kind == "static" ? b["trips"].get<uint64_t>() : 1;
        if (kind == "straight" || kind == "static") {
          EXPECT_EQ(o["loads_per_instance_max"].get<uint64_t>(), b["loads"].get<uint64_t>() * t);
          EXPECT_EQ(o["stores_per_instance_max"].get<uint64_t>(), b["stores"].get<uint64_t>() * t);
        } else if (b["loads"].get<uint64_t>() > 0) {
          EXPECT(o["loads_per_instance_max"].get<uint64_t>() >= b["loads"].get<uint64_t>());
        }
        if (b["limits"] != "") EXPECT(b["paper"]["decision"] == "no");
      }
  }
  for (const std::string& w : want) {
    if (!have.count(w)) std::fprintf(stderr, " %s declares no offload block\n", w.c_str());
    EXPECT(have.count(w));
  }
  // LIBOR, the paper's own example (Sec. 3.1.5): the rate-update loop is a
  // conditional candidate. Here 4 live-in (i, j, z, path), 1 load + 1 store per
  // iteration: 128 - 49.75 N < 0 from N = 3.
  cur = "libor";
  Knobs k;
  k[kFootprintKnob] = 256 << 10;
  const json d = describe("libor", k);
  const json& b = d["kernels"][0]["blocks"][1];
  EXPECT(b["name"] == "maturity_update");
  EXPECT(b["paper"]["decision"] == "conditional");
  EXPECT_EQ(b["paper"]["min_trips"].get<unsigned>(), 3u);
  EXPECT_EQ(b["observed"]["loads_per_instance_min"].get<unsigned>(), 6u);   // j = 5: i = 6..11
  EXPECT_EQ(b["observed"]["loads_per_instance_max"].get<unsigned>(), 11u);  // j = 0: i = 1..11
}

// Accel-Sim derivation on tests/accelsim/data/blocks/kernel-1.traceg (static
// code in the file; warp 0: loop B 2 trips, loop D 2, skips 0x240-0x250; warp 1:
// loop B 3 trips, loop D 1, falls through). By hand:
//  loop A 0x30-0x90: R0, R2, R8 read before written; R4, R5, R8 live after;
//    exit compare on R2 = R2 + c, R2 = MOV imm before -> static, 6 iterations / 2 entries = 3
//  0xa0-0xc0 (cut at BAR 0xd0): reads R8; writes R10, R11, used later
//  0xe0-0xf0: reads R4, R5; writes R12 (compared in loop B), R14 (never read)
//  loop B 0x100-0x130: R4, R5, R8, R12 in; R8 out; compare on a loaded value -> unknown
//  0x140: st [R10] R8 -> R10, R11, R8 in
//  loop C 0x150-0x190: ATOM -> atomic; R4, R5, R22, R12 in; compare R22 (induction) vs R12 -> at entry
//  0x150 alone (the piece of loop C before the atomic): R4, R5 in; R20 read by the ATOM
//  0x1a0-0x1b0: R4, R5 in; R24, R26 out
//  loop D 0x1c0-0x200: R4, R5, R10, R11, R24, R26 in; at entry; 6 in -> 192 - 49.75 N < 0 from 4
//  0x210-0x240 (cut at MEMBAR 0x250): warp 0 branches 0x230 -> 0x260: divergent
//  0x260 (cut at EXIT): R10, R11, R8 in
void accelsim(const std::string& data, const std::string& ext) {
  std::fprintf(stderr, "accelsim\n");
  cur = "blocks trace";
  const json d = describe_trace(data + "/blocks");
  EXPECT_EQ(d["kernels"].size(), 1u);
  const json& bl = d["kernels"][0]["blocks"];
  EXPECT_EQ(bl.size(), 11u);
  if (bl.size() != 11) return;
  expect_block("trace", bl[0], "loop@0x30", "static", 3, 3, 1, 0, 0x30, 0x90);
  EXPECT_EQ(bl[0]["trips"].get<unsigned>(), 3u);
  expect_block("trace", bl[1], "straight@0xa0", "straight", 1, 2, 0, 1, 0xa0, 0xc0);
  expect_block("trace", bl[2], "straight@0xe0", "straight", 2, 1, 1, 0, 0xe0, 0xf0);
  expect_block("trace", bl[3], "loop@0x100", "unknown", 4, 1, 1, 0, 0x100, 0x130);
  expect_block("trace", bl[4], "straight@0x140", "straight", 3, 0, 0, 1, 0x140, 0x140);
  expect_block("trace", bl[5], "loop@0x150", "at-entry", 4, 0, 1, 0, 0x150, 0x190);
  EXPECT(bl[5]["limits"] == "atomic");
  expect_block("trace", bl[6], "straight@0x150", "straight", 2, 1, 1, 0, 0x150, 0x150);
  expect_block("trace", bl[7], "straight@0x1a0", "straight", 2, 2, 1, 0, 0x1a0, 0x1b0);
  expect_block("trace", bl[8], "loop@0x1c0", "at-entry", 6, 0, 1, 1, 0x1c0, 0x200);
  EXPECT(bl[8]["paper"]["decision"] == "conditional");
  EXPECT_EQ(bl[8]["paper"]["min_trips"].get<unsigned>(), 4u);
  EXPECT_EQ(bl[8]["observed"]["loads_per_instance_min"].get<unsigned>(), 1u);
  EXPECT_EQ(bl[8]["observed"]["loads_per_instance_max"].get<unsigned>(), 2u);
  expect_block("trace", bl[9], "straight@0x210", "straight", 4, 0, 1, 1, 0x210, 0x240);
  EXPECT(bl[9]["limits"] == "divergent");
  expect_block("trace", bl[10], "straight@0x260", "straight", 3, 0, 0, 1, 0x260, 0x260);
  for (size_t i = 0; i < bl.size(); ++i)
    if (i != 5 && i != 9) EXPECT(bl[i]["limits"] == "");
  // Instances: 2 warps enter each block once, the piece at 0x150 once per loop C iteration.
  const unsigned inst[11] = {2, 2, 2, 2, 2, 4, 4, 2, 2, 2, 2};
  for (size_t i = 0; i < 11; ++i)
    if (i != 5) EXPECT_EQ(bl[i]["observed"]["instances"].get<uint64_t>(), inst[i]);
  EXPECT_EQ(bl[0]["observed"]["loads_per_instance_max"].get<unsigned>(), 3u);
  EXPECT_EQ(bl[3]["observed"]["loads_per_instance_min"].get<unsigned>(), 2u);
  EXPECT_EQ(bl[3]["observed"]["loads_per_instance_max"].get<unsigned>(), 3u);

  // External vectoradd (sm_61): 0x68-0xe8 between the bounds-check EXIT (0x58)
  // and the final one: reads R0 (the index) only, 2 LDG.E, 1 STG.E, nothing
  // live after; 4 of the 32 warps have threads below n.
  cur = "vectoradd";
  const json v = describe_trace(ext);
  const json& vb = v["kernels"][0]["blocks"];
  EXPECT_EQ(vb.size(), 1u);
  if (vb.size() == 1) {
    expect_block("vectoradd", vb[0], "straight@0x68", "straight", 1, 0, 2, 1, 0x68, 0xe8);
    EXPECT_EQ(vb[0]["alu"].get<unsigned>(), 10u);
    EXPECT(vb[0]["paper"]["decision"] == "candidate");
    EXPECT_EQ(vb[0]["observed"]["instances"].get<uint64_t>(), 4u);
  }
  EXPECT_EQ(v["warp_insts"].get<uint64_t>(), 344u);  // as tests/accelsim (same translation)
}

}  // namespace

int sc_main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ACCELSIM_DATA_DIR VECTORADD_TRACE_DIR\n", argv[0]);
    return 2;
  }
  builtin_kernels();
  coalescing();
  library();
  accelsim(argv[1], argv[2]);
  if (failures) std::fprintf(stderr, "%d failure(s)\n", failures);
  else std::fprintf(stderr, "all passed\n");
  return failures ? 1 : 0;
}
