// SM/GPU module tests: GPU with 1-2 SMs + a fake L2 (fixed-latency memory
// with a byte store, Strata AT base protocol). Timings are hand-computed from
// the pipeline description in models/sm/sm.h:
//   * an instruction issued at cycle c with an ALU/SFU destination makes it
//     readable at c + alu_latency / sfu_latency;
//   * a load issued at c is looked up in the L1 at c; on a hit its register is
//     ready at c + l1.latency; on a miss the request leaves at c and the register
//     is ready in the cycle the response is processed (c + fake latency);
//   * Exit waits for all of the warp's register writes; a kernel ends in the
//     cycle its last warp exits or its last store is acknowledged, and
//     gpu.cycles = that cycle + 1.
// Kernel boundaries reach every memory partition's policy (memside_ops.kernel_boundary)
// once per launch, in order, when the next launch starts.
// Each case runs in a forked child process (a fresh SystemC simulation context).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

#include "common/payload.h"
#include "common/stats.h"
#include "memside/mem_side.h"
#include "platform/module_cfg.h"
#include "sm/gpu.h"
#include "workloads/functional.h"
#include "workloads/program.h"
#include "workloads/registry.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
#include "memside/memside.h"
}

using namespace strata;
using sc_core::sc_time;
using sc_core::SC_PS;

static int failures = 0;
#define EXPECT(cond)                                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)
#define EXPECT_EQ(a, b)                                                                                     \
  do {                                                                                                      \
    const long long _a = static_cast<long long>(a), _b = static_cast<long long>(b);                         \
    if (_a != _b) {                                                                                         \
      std::fprintf(stderr, "%s:%d: EXPECT_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, #a, _a, #b, \
                   _b);                                                                                     \
      ++failures;                                                                                           \
    }                                                                                                       \
  } while (0)

// ------------------------------------------------------------------ fake L2

struct FakeCfg {
  unsigned latency = 100;      // SM cycles from BEGIN_REQ to BEGIN_RESP
  bool accept_later = false;   // return TLM_ACCEPTED and send END_REQ after end_req_delay cycles
  unsigned end_req_delay = 10;
  bool corrupt = false;        // flip a byte of the first read response
};

struct FakeMem : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<FakeMem> tsock;
  struct Rec {
    uint64_t cycle, addr;
    bool write;
    uint8_t sectors, ea, mem_type;
    uint32_t sm, warp, ch, bank;
    uint64_t bm[2];
  };
  std::vector<Rec> log;
  FakeCfg cfg;
  uint64_t period_ps;
  bstore* mem;
  bool corrupted = false;
  std::map<tlm::tlm_generic_payload*, int> port;
  std::map<int, tlm::tlm_generic_payload*> awaiting_end;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> resp_peq, endreq_peq;

  SC_HAS_PROCESS(FakeMem);
  FakeMem(sc_core::sc_module_name n, FakeCfg c, uint64_t pps, bstore* m)
      : sc_module(n), tsock("tsock"), cfg(c), period_ps(pps), mem(m), resp_peq("rp"), endreq_peq("ep") {
    tsock.register_nb_transport_fw(this, &FakeMem::fw);
    SC_METHOD(respond);
    sensitive << resp_peq.get_event();
    dont_initialize();
    SC_METHOD(end_req);
    sensitive << endreq_peq.get_event();
    dont_initialize();
  }
  uint64_t cyc() const { return sc_core::sc_time_stamp().value() / period_ps; }
  tlm::tlm_sync_enum fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    if (awaiting_end.count(id) && awaiting_end[id]) {
      std::fprintf(stderr, "protocol violation: BEGIN_REQ before END_REQ\n");
      ++failures;
    }
    GpuExt& x = GpuExt::get(gp);
    log.push_back({cyc(), gp.get_address(), gp.is_write(), x.sector_mask, x.ea_count, static_cast<uint8_t>(x.mem_type),
                   x.sm_id, x.warp_id, x.l2_bank / 2 /* l2_per_channel of the test map */, x.l2_bank, {x.byte_mask[0], x.byte_mask[1]}});
    if (gp.is_write()) {
      bstore_write_masked(mem, gp.get_address(), gp.get_data_ptr(), x.byte_mask);
    } else {
      unsigned char* dp = gp.get_data_ptr();
      for (unsigned s = 0; s < kSectorsPerLine; ++s)
        if ((x.sector_mask >> s) & 1u) bstore_read(mem, gp.get_address() + s * kSectorBytes, dp + s * kSectorBytes, kSectorBytes);
      if (cfg.corrupt && !corrupted) {
        for (unsigned s = 0; s < kSectorsPerLine; ++s)
          if ((x.sector_mask >> s) & 1u) {
            dp[s * kSectorBytes] ^= 0x5a;
            break;
          }
        corrupted = true;
      }
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    port[&gp] = id;
    resp_peq.notify(gp, sc_time(static_cast<double>(cfg.latency * period_ps), SC_PS) + d);
    if (cfg.accept_later) {
      awaiting_end[id] = &gp;
      endreq_peq.notify(gp, sc_time(static_cast<double>(cfg.end_req_delay * period_ps), SC_PS));
      return tlm::TLM_ACCEPTED;
    }
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void end_req() {
    while (tlm::tlm_generic_payload* gp = endreq_peq.get_next_transaction()) {
      const int id = port[gp];
      awaiting_end[id] = nullptr;
      tlm::tlm_phase ph = tlm::END_REQ;
      sc_time d = sc_core::SC_ZERO_TIME;
      tsock[id]->nb_transport_bw(*gp, ph, d);
    }
  }
  void respond() {
    while (tlm::tlm_generic_payload* gp = resp_peq.get_next_transaction()) {
      const int id = port[gp];
      port.erase(gp);
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_time d = sc_core::SC_ZERO_TIME;
      if (tsock[id]->nb_transport_bw(*gp, ph, d) != tlm::TLM_COMPLETED) {
        std::fprintf(stderr, "SM did not complete BEGIN_RESP\n");
        ++failures;
      }
    }
  }
};

// ------------------------------------------------------------------ tiny programs

using Gen = std::function<void(WarpCtx&, WarpInst&)>;

struct FnKernel : Kernel {
  Gen gen;
  void warp_begin(WarpCtx& w) const override { w.pc = 0; }
  void warp_next(WarpCtx& w, WarpInst& o) const override { gen(w, o); }
};

struct TinyProgram : Program {
  std::vector<std::unique_ptr<FnKernel>> ks;
  size_t next = 0;
  std::function<void(TinyProgram&)> on_init;
  TinyProgram() : Program("tiny") {}
  unsigned array_of(const std::string& n, uint64_t bytes) { return add_array(n, bytes); }
  void put(uint64_t addr, const void* p, size_t len) { write_init(addr, p, len); }
  FnKernel& kernel(uint32_t ctas, uint32_t wpc, Gen g) {
    ks.emplace_back(new FnKernel);
    FnKernel& k = *ks.back();
    k.name = "k" + std::to_string(ks.size());
    k.ctas = ctas;
    k.warps_per_cta = wpc;
    k.gen = std::move(g);
    return k;
  }
  Kernel* next_kernel() override {
    if (next >= ks.size()) return nullptr;
    ks[next]->golden = golden_;
    return ks[next++].get();
  }
  bool verify(bstore*, std::string*) const override { return true; }
  unsigned kernels_estimate() const override { return static_cast<unsigned>(ks.size()); }

 protected:
  void init_data() override {
    if (on_init) on_init(*this);
  }
};

// Contiguous 32 x `bytes` lanes from `base`.
static void lanes_linear(WarpInst& o, uint64_t base, unsigned bytes) {
  for (unsigned l = 0; l < kWarpSize; ++l) o.addr[l] = base + l * bytes;
}

// ------------------------------------------------------------------ environment

struct Env {
  StatsRegistry stats;
  PayloadPool pool;
  amap map{};
  bstore golden{}, device{};
  std::unique_ptr<Gpu> gpu;
  std::unique_ptr<FakeMem> mem;
  std::vector<std::vector<IssueRec>> logs;
  // Schema defaults (platform/module_cfg.h), then every value the hand-computed timings use.
  SmCfg sm = sm_cfg(default_config());
  L1Cfg l1 = l1_cfg(default_config());

  Env() {
    sm.clk.mhz = 1000.0;  // 1 ns cycles
    sm.max_warps = 8;
    sm.max_ctas = 4;
    sm.issue_width = 1;
    sm.sched = WarpSched::LooseRoundRobin;
    sm.alu_latency = 4;
    sm.sfu_latency = 20;
    sm.ldst_per_cycle = 1;
    l1.enabled = true;
    l1.write_allocate = false;
    l1.size_bytes = 4096;
    l1.assoc = 4;
    l1.latency = 20;
    l1.mshrs = 8;
    l1.mshr_merge = 4;
    bstore_init(&golden);
    bstore_init(&device);
    char err[128];
    if (amap_init(&map, "off:32 col:4 ch:2 col:16 ba:4 row", 2, 1, 1, 4, 2048, 2, 0, err, sizeof err) != 0) {
      std::fprintf(stderr, "amap: %s\n", err);
      std::exit(1);
    }
    amap_add_region(&map, 1ull << 30, 1ull << 30, AMAP_MEM_NVM);
  }
  ~Env() {
    bstore_free(&golden);
    bstore_free(&device);
  }
  void build(TinyProgram& p, unsigned nsm = 1, bool check = false, FakeCfg fc = FakeCfg()) {
    p.init(&golden, &device);
    gpu.reset(new Gpu("gpu", nsm, sm, l1, &map, pool, &golden, check, stats));
    mem.reset(new FakeMem("fake_l2", fc, sm.clk.period_ps(), &device));
    logs.resize(nsm);
    for (unsigned i = 0; i < nsm; ++i) {
      gpu->sm(i).isock.bind(mem->tsock);
      gpu->sm(i).set_issue_log(&logs[i]);
    }
    gpu->load(&p);
  }
  void run() {
    sc_core::sc_start(sc_time(10, sc_core::SC_MS));
    EXPECT(gpu->finished());
    if (!gpu->finished())
      for (unsigned i = 0; i < gpu->num_sms(); ++i) std::fprintf(stderr, "%s", gpu->sm(i).debug_state().c_str());
    EXPECT_EQ(pool.live(), 0);  // every payload released
  }
  double st(const char* n) { return stats.get(n); }
  // issue cycle of the k-th instruction of (cta, warp) in SM s's log
  long long at(unsigned s, uint32_t cta, unsigned warp, unsigned k) {
    unsigned seen = 0;
    for (const IssueRec& r : logs[s])
      if (r.cta == cta && r.warp == warp && seen++ == k) return static_cast<long long>(r.cycle);
    return -1;
  }
};

// ------------------------------------------------------------------ cases

// ALU-only kernels: exact cycle counts and IPC.
static void case_alu_ipc() {
  const unsigned K = 100;
  TinyProgram p;
  // Two warps, K independent ALU ops each (16 rotating registers, no WAW stall), then Exit.
  p.kernel(1, 2, [K](WarpCtx& w, WarpInst& o) {
    if (w.pc < K) o.alu(static_cast<uint8_t>(w.pc % 16), 0xffffffffu);
    else o.exit();
    ++w.pc;
  });
  Env e;
  e.build(p);
  e.run();
  // LRR, width 1: warp 0 at even cycles, warp 1 at odd; last ALUs at 2K-2, 2K-1;
  // Exits wait for them: 2K+2, 2K+3. gpu.cycles = 2K+4.
  EXPECT_EQ(e.st("gpu.cycles"), 2 * K + 4);
  EXPECT_EQ(e.st("gpu.warp_instructions"), 2 * (K + 1));
  EXPECT_EQ(e.st("gpu.instructions"), 2 * (K + 1) * 32);
  EXPECT(std::abs(e.st("gpu.ipc") - 2.0 * (K + 1) * 32 / (2 * K + 4)) < 1e-9);
  EXPECT_EQ(e.at(0, 0, 0, K), 2 * K + 2);
  EXPECT_EQ(e.at(0, 0, 1, K), 2 * K + 3);
  EXPECT_EQ(e.st("gpu.kernels"), 1);
}

static void case_alu_dual_issue_and_chain() {
  const unsigned K = 50;
  TinyProgram p;
  // Warp 0: K independent ALU ops; warp 1: dependent chain of K/5 SFU ops.
  p.kernel(1, 2, [K](WarpCtx& w, WarpInst& o) {
    if (w.warp == 0) {
      if (w.pc < K) o.alu(static_cast<uint8_t>(w.pc % 16), 0xffffffffu);
      else o.exit();
    } else {
      if (w.pc < K / 5) o.sfu(static_cast<uint8_t>((w.pc + 1) % 8), 0x0000ffffu, static_cast<uint8_t>(w.pc % 8));
      else o.exit();
    }
    ++w.pc;
  });
  Env e;
  e.sm.issue_width = 2;
  e.build(p);
  e.run();
  // warp 0: ALUs at 0..K-1, Exit at K-1+4; warp 1: SFU i at 20 i, Exit at 20 (K/5).
  EXPECT_EQ(e.at(0, 0, 0, K), K + 3);
  for (unsigned i = 0; i < K / 5; ++i) EXPECT_EQ(e.at(0, 0, 1, i), 20 * i);
  EXPECT_EQ(e.at(0, 0, 1, K / 5), 20 * (K / 5));
  EXPECT_EQ(e.st("gpu.cycles"), 20 * (K / 5) + 1);
  EXPECT_EQ(e.st("gpu.instructions"), (K + 1) * 32 + (K / 5) * 16 + 32);
}

// Load miss: the dependent instruction waits exactly the memory latency; a
// second load of the same line hits and waits exactly the L1 latency.
static void case_load_miss_then_hit() {
  TinyProgram p;
  uint64_t A = 0;
  p.on_init = [&A](TinyProgram& t) {
    A = t.array(0).base;
    uint32_t v[32];
    for (unsigned i = 0; i < 32; ++i) v[i] = 1000 + i;
    t.put(A, v, sizeof v);
  };
  p.array_of("A", 4096);
  p.kernel(1, 1, [&A](WarpCtx& w, WarpInst& o) {
    switch (w.pc++) {
      case 0: o.alu(0, ~0u); break;
      case 1: o.load(1, ~0u, 4, 0); lanes_linear(o, A, 4); break;
      case 2: o.alu(2, ~0u, 1); break;
      case 3: o.load(3, ~0u, 4, 0); lanes_linear(o, A, 4); break;
      case 4: o.alu(4, ~0u, 3); break;
      default: o.exit();
    }
  });
  Env e;
  e.build(p, 1, true);
  e.run();
  const long long ld1 = e.at(0, 0, 0, 1), use1 = e.at(0, 0, 0, 2), ld2 = e.at(0, 0, 0, 3), use2 = e.at(0, 0, 0, 4);
  EXPECT_EQ(ld1, 4);             // after the ALU that produces the address register
  EXPECT_EQ(use1, ld1 + 100);    // miss: fake L2 latency
  EXPECT_EQ(ld2, use1 + 1);
  EXPECT_EQ(use2, ld2 + 20);     // hit: L1 latency
  EXPECT_EQ(e.mem->log.size(), 1u);
  EXPECT_EQ(e.mem->log[0].sectors, 0xf);
  EXPECT_EQ(e.mem->log[0].ea, 32);
  EXPECT_EQ(e.mem->log[0].cycle, 4);
  EXPECT_EQ(e.st("l1.accesses"), 2);
  EXPECT_EQ(e.st("l1.hits"), 1);
  EXPECT_EQ(e.st("l1.misses"), 1);
  EXPECT_EQ(e.st("gpu.mem_requests"), 1);
  EXPECT_EQ(e.st("check.loads"), 64);
  EXPECT_EQ(e.st("check.bytes"), 256);
  EXPECT_EQ(e.st("coalescer.ea_hist.25_32"), 2);
  EXPECT_EQ(e.st("coalescer.requests_per_inst"), 1);
  // one cycle late is not on time: the dependent ALU could not issue earlier
  EXPECT(use1 != ld1 + 99);
}

// Regression: an L1 hit processed in a cycle in which nothing issues (the
// second line of a two-line load) must still wake the warp when its register
// is released. 8 B x 32 lanes = 2 lines: requests at t and t+1, ready at t+1+20.
static void case_hit_wake() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 8); lanes_linear(o, A, 8); break;
      case 1: o.alu(2, ~0u, 1); break;
      case 2: o.load(3, ~0u, 8); lanes_linear(o, A, 8); break;
      case 3: o.alu(4, ~0u, 3); break;
      default: o.exit();
    }
  });
  Env e;
  e.build(p);
  e.run();
  // first load: lines at 0 and 1, responses at 100 and 101 -> ALU at 101
  EXPECT_EQ(e.at(0, 0, 0, 1), 101);
  EXPECT_EQ(e.at(0, 0, 0, 2), 102);
  EXPECT_EQ(e.at(0, 0, 0, 3), 102 + 1 + 20);
  EXPECT_EQ(e.st("l1.hits"), 2);
}

// With the L1 disabled every load goes to the L2 and no merging happens.
static void case_l1_disabled() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 4); lanes_linear(o, A, 4); break;
      case 1: o.load(2, ~0u, 4, 1); lanes_linear(o, A, 4); break;
      default: o.exit();
    }
  });
  Env e;
  e.l1.enabled = false;
  e.build(p);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 2u);
  EXPECT_EQ(e.at(0, 0, 0, 1), 100);
  EXPECT_EQ(e.st("gpu.cycles"), 201);
  EXPECT_EQ(e.st("l1.hits"), 0);
}

// Two warps load the same line: one L2 request, the second merges into the
// MSHR; a third load wants more sectors and extends the MSHR by a second request.
static void case_mshr_merge() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(1, 3, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0:
        if (w.warp == 2) {
          o.load(1, ~0u, 4);  // whole line: sectors 0-3
        } else {
          o.load(1, 0x0000ffffu, 4);  // lanes 0-15: sectors 0-1
        }
        lanes_linear(o, A, 4);
        break;
      case 1: o.alu(2, ~0u, 1); break;
      default: o.exit();
    }
  });
  Env e;
  e.build(p);
  e.run();
  // LRR: warp 0 load at 0, warp 1 at 1, warp 2 at 2 (one L1 request per cycle).
  EXPECT_EQ(e.mem->log.size(), 2u);
  EXPECT_EQ(e.mem->log[0].sectors, 0x3);
  EXPECT_EQ(e.mem->log[0].ea, 16);
  EXPECT_EQ(e.mem->log[0].cycle, 0);
  EXPECT_EQ(e.mem->log[1].sectors, 0xc);
  EXPECT_EQ(e.mem->log[1].cycle, 2);
  EXPECT_EQ(e.st("l1.sm0.mshr_merges"), 2);
  EXPECT_EQ(e.at(0, 0, 0, 1), 100);  // first response at 100 serves warps 0 and 1
  EXPECT_EQ(e.at(0, 0, 1, 1), 101);  // (one issue per cycle)
  EXPECT_EQ(e.at(0, 0, 2, 1), 102);  // warp 2 needs sectors 2-3 from the second request
}

// MSHR merge limit: with mshr_merge = 1, a second load of the line stalls the
// L1 until the first response returns, then hits.
static void case_mshr_merge_limit() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(1, 2, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 4); lanes_linear(o, A, 4); break;
      case 1: o.alu(2, ~0u, 1); break;
      default: o.exit();
    }
  });
  Env e;
  e.l1.mshr_merge = 1;
  e.build(p);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 1u);
  EXPECT_EQ(e.at(0, 0, 0, 1), 100);
  // warp 1's request retries at 100 after the fill (processed before the L1
  // stage in that cycle), hits, and is ready 20 cycles later.
  EXPECT_EQ(e.at(0, 0, 1, 1), 120);
  // refused at 1 and retried once at 2 (it was issued at 1), then asleep until the response
  EXPECT_EQ(e.st("l1.sm0.reservation_fails"), 2);
}

// A load issued after a store to a line whose fill is still in flight must
// not merge into that fill (it carries the bytes from before the store): it
// waits until the fill retired and misses on its own; --check stays clean.
static void case_load_after_store_in_flight() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.on_init = [](TinyProgram& q) {
    uint32_t v[32];
    for (unsigned i = 0; i < 32; ++i) v[i] = i;
    q.put(q.array(0).base, v, sizeof v);
  };
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 4); lanes_linear(o, A, 4); break;  // miss, fill at 100
      case 1: o.alu(2, ~0u); break;                             // store data, independent of the load
      case 2:
        o.store(0xfu, 4, 2, kNoReg);
        lanes_linear(o, A, 4);
        for (unsigned l = 0; l < 4; ++l) {
          const uint32_t v = 0xabc0 + l;
          o.data[l] = v;
          bstore_write(p.ks[0]->golden, o.addr[l], &v, 4);
        }
        break;
      case 3: o.load(3, ~0u, 4); lanes_linear(o, A, 4); break;  // must see the stored words
      case 4: o.alu(4, ~0u, 1, 3); break;
      default: o.exit();
    }
  });
  Env e;
  e.build(p, 1, true);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 3u);  // load, store, and the second load on its own
  if (e.mem->log.size() == 3u) {
    EXPECT(!e.mem->log[0].write && e.mem->log[1].write && !e.mem->log[2].write);
    EXPECT(e.mem->log[2].cycle >= 100);  // after the first fill retired
  }
  EXPECT_EQ(e.st("l1.sm0.mshr_merges"), 0);
  EXPECT_EQ(e.st("check.loads"), 64);
}

// Stores: write-through with data and byte masks; the kernel ends only when
// the last store is acknowledged; a following kernel reads the stored values.
static void case_stores_write_through() {
  const uint32_t mask = 0x00ff000fu;  // lanes 0-3 (line 0, sector 0) and 16-23 (line 1, sectors 0-1)
  TinyProgram p;
  p.array_of("B", 4096);
  p.kernel(1, 1, [&p, mask](WarpCtx& w, WarpInst& o) {
    const uint64_t B = p.array(0).base;
    switch (w.pc++) {
      case 0: o.alu(0, ~0u); break;
      case 1:
        o.store(mask, 8, 0, kNoReg);
        lanes_linear(o, B, 8);
        for (unsigned l = 0; l < 32; ++l) {
          o.data[l] = 0x1111111111111111ull * (l % 15 + 1);
          if ((mask >> l) & 1u) bstore_write(p.ks[0]->golden, o.addr[l], &o.data[l], 8);
        }
        break;
      default: o.exit();
    }
  });
  p.kernel(1, 1, [&p, mask](WarpCtx& w, WarpInst& o) {
    const uint64_t B = p.array(0).base;
    switch (w.pc++) {
      case 0: o.load(1, mask, 8); lanes_linear(o, B, 8); break;
      default: o.exit();
    }
  });
  Env e;
  e.build(p, 1, true);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 4u);  // 2 store lines, then 2 load lines
  EXPECT(e.mem->log[0].write && e.mem->log[1].write && !e.mem->log[2].write && !e.mem->log[3].write);
  EXPECT_EQ(e.mem->log[0].cycle, 4);
  EXPECT_EQ(e.mem->log[1].cycle, 5);
  EXPECT_EQ(e.mem->log[0].ea, 4);
  EXPECT_EQ(e.mem->log[1].ea, 8);
  EXPECT(e.mem->log[0].bm[0] == 0xffffffffull && e.mem->log[0].bm[1] == 0);
  EXPECT(e.mem->log[1].bm[0] == ~0ull && e.mem->log[1].bm[1] == 0);
  EXPECT_EQ(e.mem->log[0].sectors, 0x1);
  EXPECT_EQ(e.mem->log[1].sectors, 0x3);
  // device memory holds exactly the stored bytes
  for (unsigned l = 0; l < 32; ++l) {
    uint64_t v = 0;
    bstore_read(&e.device, p.array(0).base + 8 * l, &v, 8);
    const uint64_t want = ((mask >> l) & 1u) ? 0x1111111111111111ull * (l % 15 + 1) : 0;
    EXPECT(v == want);
  }
  // kernel 1 ends when the second store's ack is processed (5 + 100); kernel 2
  // starts on the next cycle, its loads miss (L1 invalidated) and return 100 later.
  EXPECT_EQ(e.mem->log[2].cycle, 106);
  EXPECT_EQ(e.mem->log[3].cycle, 107);
  EXPECT_EQ(e.st("gpu.cycles"), 208);
  EXPECT_EQ(e.st("gpu.kernels"), 2);
  EXPECT_EQ(e.st("check.loads"), 12);
}

// Write-allocate: a store of whole sectors makes them valid in the L1, so a
// later load of those sectors hits; without write-allocate it misses.
static void case_write_allocate(bool alloc) {
  TinyProgram p;
  p.array_of("B", 4096);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t B = p.array(0).base;
    switch (w.pc++) {
      case 0:
        o.store(0x000000ffu, 4, kNoReg);  // sector 0 fully written
        lanes_linear(o, B, 4);
        for (unsigned l = 0; l < 8; ++l) {
          o.data[l] = 0xabc0 + l;
          uint32_t v = static_cast<uint32_t>(o.data[l]);
          bstore_write(p.ks[0]->golden, o.addr[l], &v, 4);
        }
        break;
      case 1: o.load(1, 0x000000ffu, 4); lanes_linear(o, B, 4); break;
      case 2: o.alu(2, ~0u, 1); break;
      default: o.exit();
    }
  });
  Env e;
  e.l1.write_allocate = alloc;
  e.build(p, 1, true);
  e.run();
  EXPECT_EQ(e.mem->log.size(), alloc ? 1u : 2u);
  EXPECT_EQ(e.at(0, 0, 0, 2), alloc ? 1 + 20 : 1 + 100);
  EXPECT_EQ(e.st("check.loads"), 8);
}

// Barrier: warp 1 waits at the barrier until warp 0 (slow dependent chain) arrives.
static void case_barrier() {
  TinyProgram p;
  p.kernel(1, 2, [](WarpCtx& w, WarpInst& o) {
    const unsigned chain = w.warp == 0 ? 10 : 0;
    const unsigned pc = w.pc++;
    if (pc < chain) o.alu(static_cast<uint8_t>(pc + 1), ~0u, static_cast<uint8_t>(pc));
    else if (pc == chain) o.barrier();
    else if (pc == chain + 1) o.alu(20, ~0u);
    else o.exit();
  });
  Env e;
  e.build(p);
  e.run();
  const long long bar0 = e.at(0, 0, 0, 10), bar1 = e.at(0, 0, 1, 0), after1 = e.at(0, 0, 1, 1);
  EXPECT_EQ(bar1, 1);
  EXPECT_EQ(bar0, 37);  // 10 dependent ALU ops at 0, 4, ..., 36; a barrier does not wait for registers
  EXPECT(after1 > bar0);
  EXPECT_EQ(after1, bar0 + 1);
}

// LRR and GTO issue orders differ (two warps of independent ALU ops).
static void case_sched_order(WarpSched sched) {
  TinyProgram p;
  p.kernel(1, 2, [](WarpCtx& w, WarpInst& o) {
    if (w.pc < 20) o.alu(static_cast<uint8_t>(w.pc % 16), ~0u);
    else o.exit();
    ++w.pc;
  });
  Env e;
  e.sm.sched = sched;
  e.build(p);
  e.run();
  const std::vector<IssueRec>& L = e.logs[0];
  EXPECT_EQ(L.size(), 42u);
  if (sched == WarpSched::LooseRoundRobin) {
    for (unsigned i = 0; i < 40; ++i) EXPECT_EQ(L[i].warp, i % 2);
  } else {
    for (unsigned i = 0; i < 20; ++i) EXPECT_EQ(L[i].warp, 0);  // greedy: warp 0 until it stalls at Exit
    for (unsigned i = 20; i < 40; ++i) EXPECT_EQ(L[i].warp, 1);
    EXPECT_EQ(L[40].op == Op::Exit, true);
  }
}

// Scattered loads: 32 requests with ea 1, GpuExt fields filled from the address map.
static void case_scattered_and_ext() {
  TinyProgram p;
  p.array_of("A", 64 * 1024);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0:
        o.load(1, ~0u, 4);
        for (unsigned l = 0; l < 32; ++l) o.addr[l] = A + l * 1024 + 4;
        break;
      case 1:
        o.load(2, 0x3u, 4);
        o.addr[0] = (1ull << 30) + 128;  // NVM region
        o.addr[1] = (1ull << 30) + 132;
        break;
      default: o.exit();
    }
  });
  Env e;
  e.l1.mshrs = 32;  // (with 8, the 9th line waits for the first response)
  e.build(p, 1, true);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 33u);
  for (unsigned i = 0; i < 32; ++i) {
    amap_loc loc;
    amap_decode(&e.map, p.array(0).base + i * 1024, &loc);
    EXPECT_EQ(e.mem->log[i].ea, 1);
    EXPECT_EQ(e.mem->log[i].sectors, 1);
    EXPECT_EQ(e.mem->log[i].ch, loc.ch);
    EXPECT_EQ(e.mem->log[i].bank, loc.l2_bank);
    EXPECT_EQ(e.mem->log[i].cycle, i);  // one L1 request per cycle
  }
  // The GPU side knows only the static map (L2 bank): a request carries no
  // memory kind; the memory side tells it in the response (GpuExt::mem_type).
  EXPECT_EQ(e.mem->log[32].mem_type, AMAP_MEM_DRAM);
  EXPECT_EQ(e.mem->log[32].ea, 2);
  EXPECT_EQ(e.mem->log[32].ch, 1);  // line 0x40000080: the channel digit above 4 columns
  EXPECT_EQ(e.st("coalescer.ea_hist.1"), 32);
  EXPECT_EQ(e.st("coalescer.ea_hist.2_8"), 1);
  EXPECT(std::abs(e.st("coalescer.requests_per_inst") - 16.5) < 1e-9);
}

// END_REQ arriving later (TLM_ACCEPTED): the SM never sends BEGIN_REQ before it.
static void case_accept_later() {
  TinyProgram p;
  p.array_of("A", 64 * 1024);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    switch (w.pc++) {
      case 0:
        o.load(1, 0xffu, 4);
        for (unsigned l = 0; l < 8; ++l) o.addr[l] = A + l * 1024;
        break;
      default: o.exit();
    }
  });
  Env e;
  FakeCfg fc;
  fc.accept_later = true;
  fc.end_req_delay = 10;
  e.build(p, 1, false, fc);
  e.run();
  EXPECT_EQ(e.mem->log.size(), 8u);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(e.mem->log[i].cycle, 10 * i);
}

// CTAs are dispatched round robin to SMs with free slots; per-SM stats.
static void case_dispatch_two_sms() {
  TinyProgram p;
  p.kernel(6, 2, [](WarpCtx& w, WarpInst& o) {
    if (w.pc < 10) o.alu(static_cast<uint8_t>(w.pc % 8), ~0u);
    else o.exit();
    ++w.pc;
  });
  Env e;
  e.sm.max_ctas = 1;
  e.build(p, 2);
  e.run();
  EXPECT_EQ(e.st("gpu.sm0.ctas"), 3);
  EXPECT_EQ(e.st("gpu.sm1.ctas"), 3);
  EXPECT_EQ(e.logs[0][0].cta, 0u);
  EXPECT_EQ(e.logs[1][0].cta, 1u);
  EXPECT_EQ(e.st("gpu.instructions"), 6 * 2 * 11 * 32);
}

// Event-driven: a latency-bound kernel costs a handful of SM evaluations, not one per cycle.
static void case_event_driven() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    if (w.pc < 5) {
      o.load(static_cast<uint8_t>(w.pc + 1), ~0u, 4, static_cast<uint8_t>(w.pc));  // dependent chain
      lanes_linear(o, A + 128 * w.pc, 4);
    } else {
      o.exit();
    }
    ++w.pc;
  });
  Env e;
  FakeCfg fc;
  fc.latency = 1000;
  e.build(p, 1, false, fc);
  e.run();
  EXPECT_EQ(e.st("gpu.cycles"), 5001);
  EXPECT(e.st("gpu.sm0.wakeups") <= 15);
}

// Event-driven under structural stalls: 8 warps x 4 independent loads to
// distinct lines with 2 MSHRs and a 200-cycle memory. The LD/ST queue stays
// full and ready loads wait for a slot; the SM must sleep until a response
// frees an MSHR (the L1 stage then frees a queue slot) instead of being
// evaluated every cycle. 32 misses, 2 in flight per 200-cycle round trip.
static void case_event_driven_struct_stall() {
  TinyProgram p;
  p.array_of("A", 64 * 128);
  p.kernel(1, 8, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t A = p.array(0).base;
    if (w.pc < 4) {
      o.load(static_cast<uint8_t>(w.pc + 1), ~0u, 4);
      lanes_linear(o, A + 128 * (w.warp * 4 + w.pc), 4);
    } else {
      o.exit();
    }
    ++w.pc;
  });
  Env e;
  e.l1.mshrs = 2;
  FakeCfg fc;
  fc.latency = 200;
  e.build(p, 1, true, fc);
  e.run();
  EXPECT_EQ(e.st("gpu.warp_instructions"), 8 * 5);
  EXPECT_EQ(e.st("l1.misses"), 32);
  EXPECT_EQ(e.st("check.loads"), 32 * 32);
  // 16 rounds of 2 misses, each waiting a full round trip.
  EXPECT(e.st("gpu.cycles") >= 16 * 200);
  // A few evaluations per round trip, not one per cycle.
  EXPECT(e.st("gpu.sm0.wakeups") * 10 < e.st("gpu.cycles"));
  // Refusals are counted per evaluation, so they stay few as well.
  EXPECT(e.st("l1.sm0.reservation_fails") * 10 < e.st("gpu.cycles"));
}

// The checker catches a corrupted response: exit status 3 and one line on stderr.
static void case_check_catches_corruption() {
  TinyProgram p;
  p.on_init = [](TinyProgram& t) {
    uint32_t v[32];
    for (unsigned i = 0; i < 32; ++i) v[i] = 0x01020304u + i;
    t.put(t.array(0).base, v, sizeof v);
  };
  p.array_of("A", 4096);
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 4); lanes_linear(o, p.array(0).base, 4); break;
      default: o.exit();
    }
  });
  Env e;
  FakeCfg fc;
  fc.corrupt = true;
  e.build(p, 1, true, fc);
  e.run();  // must not return: check_failed exits with status 3
}

// PayloadPool::alloc guarantees (payload.h): GpuExt reset and generic-payload
// attributes reset for both data modes; Data::Zero zeroes the buffer,
// Data::Stale leaves the previous contents.
static void case_payload_pool() {
  PayloadPool pool;
  tlm::tlm_generic_payload* gp = pool.alloc();
  std::memset(gp->get_data_ptr(), 0xa5, kLineBytes);
  GpuExt& x = GpuExt::get(*gp);
  x.byte_mask[1] = 7;
  x.ea_count = 9;
  x.cls = ReqClass::Writeback;
  x.issue_ps = 42;
  gp->set_address(0x1000);
  gp->set_data_length(4);
  gp->set_response_status(tlm::TLM_OK_RESPONSE);
  gp->release();
  EXPECT_EQ(pool.live(), 0);
  for (int mode = 0; mode < 2; ++mode) {
    tlm::tlm_generic_payload* g = pool.alloc(mode ? PayloadPool::Data::Stale : PayloadPool::Data::Zero);
    EXPECT(g == gp);  // recycled
    const GpuExt& y = GpuExt::get(*g);
    EXPECT(y.byte_mask[0] == 0 && y.byte_mask[1] == 0 && y.ea_count == 0 && y.cls == ReqClass::Demand && y.issue_ps == 0);
    EXPECT(g->get_address() == 0 && g->get_data_length() == kLineBytes && g->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
    EXPECT_EQ(g->get_data_ptr()[77], mode ? 0xa5 : 0);
    std::memset(g->get_data_ptr(), 0xa5, kLineBytes);
    g->release();
  }
  EXPECT_EQ(pool.capacity(), 1);
}

// Every built-in workload runs to completion on 3 SMs + the fake L2 with the
// checker on, its host-side verify() passes, and the instruction count equals
// the functional driver's (timing never changes the program).
static void case_builtin_workloads(const char* name, std::map<std::string, int64_t> knobs, bool accept_later) {
  uint64_t want_insts = 0;
  {
    bstore g;
    bstore_init(&g);
    auto ref = find_workload(name)->make(knobs, 3);
    ref->init(&g, nullptr);
    want_insts = run_functional(*ref).thread_insts;
    bstore_free(&g);
  }
  Env e;
  e.sm.max_warps = 16;
  e.sm.issue_width = 2;
  e.sm.sched = WarpSched::GreedyThenOldest;
  e.l1.mshrs = 16;
  // Poison the pool: SM requests use PayloadPool::Data::Stale, so a byte the
  // SM or the memory side read without anyone having written it would be
  // 0xa5 garbage, which the checker and verify(device) catch; poisoned
  // GpuExt fields must be reset by alloc().
  {
    std::vector<tlm::tlm_generic_payload*> v;
    for (int i = 0; i < 600; ++i) {
      tlm::tlm_generic_payload* gp = e.pool.alloc();
      std::memset(gp->get_data_ptr(), 0xa5, kLineBytes);
      GpuExt& x = GpuExt::get(*gp);
      x.byte_mask[0] = x.byte_mask[1] = ~0ull;
      x.sector_mask = 0xf;
      x.tag = x.warp_id = 0xdead;
      v.push_back(gp);
    }
    for (tlm::tlm_generic_payload* gp : v) gp->release();
  }
  auto prog = find_workload(name)->make(knobs, 3);
  prog->init(&e.golden, &e.device);
  e.gpu.reset(new Gpu("gpu", 3, e.sm, e.l1, &e.map, e.pool, &e.golden, true, e.stats));
  FakeCfg fc;
  fc.latency = 150;
  fc.accept_later = accept_later;
  fc.end_req_delay = 2;
  e.mem.reset(new FakeMem("fake_l2", fc, e.sm.clk.period_ps(), &e.device));
  for (unsigned i = 0; i < 3; ++i) e.gpu->sm(i).isock.bind(e.mem->tsock);
  e.gpu->load(prog.get());
  e.logs.resize(3);
  e.run();
  std::string why;
  EXPECT(prog->verify(&e.golden, &why));
  EXPECT(prog->verify(&e.device, &why));  // the device memory got every store
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  EXPECT_EQ(e.st("gpu.instructions"), want_insts);
  EXPECT(e.st("check.loads") > 0);
}

// ------------------------------------------------------------------ kernel boundaries

// A memory-side policy that counts kernel boundaries (memside_ops.kernel_boundary)
// and keeps every line where the static map puts it.
struct KbState {
  memside_cfg cfg;
  uint32_t n;  // boundaries heard
  uint32_t index[64];
  uint8_t last[64];
};
static size_t kb_state_bytes(const memside_cfg*) { return sizeof(KbState); }
static int kb_init(void* st, const memside_cfg* cfg, const memside_env*, char*, size_t) {
  KbState* s = static_cast<KbState*>(st);
  s->cfg = *cfg;
  s->n = 0;
  return 0;
}
static void kb_locate(const void* st, uint64_t pa, memside_target* out) {
  memside_static_locate(&static_cast<const KbState*>(st)->cfg, pa, out);
}
static int kb_route(void* st, const memside_req* rq, uint32_t*, memside_target* out) {
  kb_locate(st, rq->pa, out);
  return MEMSIDE_GO;
}
static void kb_boundary(void* st, uint32_t kernel_index, uint8_t last) {
  KbState* s = static_cast<KbState*>(st);
  if (s->n < 64) {
    s->index[s->n] = kernel_index;
    s->last[s->n] = last;
  }
  ++s->n;
}
static memside_ops kb_ops() {
  memside_ops o{};
  o.name = "count_boundaries";
  o.desc = "test: counts kernel boundaries";
  o.state_bytes = kb_state_bytes;
  o.init = kb_init;
  o.locate = kb_locate;
  o.route = kb_route;
  o.kernel_boundary = kb_boundary;
  return o;
}

// Stands in for the L2 banks above a memory side and the device controller below it (no traffic).
struct NoTraffic : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<NoTraffic> isock;
  tlm_utils::multi_passthrough_target_socket<NoTraffic> tsock;
  explicit NoTraffic(sc_core::sc_module_name n) : sc_module(n), isock("isock"), tsock("tsock") {
    isock.register_nb_transport_bw(this, &NoTraffic::bw);
    tsock.register_nb_transport_fw(this, &NoTraffic::fw);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_COMPLETED; }
  tlm::tlm_sync_enum fw(int, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_COMPLETED; }
};

// Memory sides of three partitions (two counting policies and `plain`,
// which has no kernel_boundary entry) hear every kernel boundary of the GPU,
// wired as the platform wires them (platform.cpp build()). Returns the core
// cycle of each boundary.
struct KbRig {
  memside_ops ops = kb_ops();
  bstore dev{};
  std::vector<std::unique_ptr<MemSide>> sides;
  std::vector<std::unique_ptr<NoTraffic>> ends;
  std::vector<uint64_t> cycles;
  KbRig(Env& e) {
    bstore_init(&dev);
    char err[128];
    for (unsigned p = 0; p < 3; ++p) {
      memside_cfg c{};
      c.map = &e.map;
      c.partition = p;
      c.ndevs = 1;
      c.dev_channel[0] = p % 2;
      if (devaddr_init(&c.geom[0], 1, 1, 4, 64, 32, err, sizeof err) != 0) std::fprintf(stderr, "%s\n", err);
      const memside_ops* o = p == 1 ? memside_find("plain") : &ops;
      sides.emplace_back(new MemSide(("side" + std::to_string(p)).c_str(), o, c, 1, e.pool, e.stats));
      ends.emplace_back(new NoTraffic(("end" + std::to_string(p)).c_str()));
      ends.back()->isock.bind(sides.back()->tsock);
      sides.back()->connect(ends.back()->tsock, &dev);
    }
    const uint64_t pps = e.sm.clk.period_ps();
    e.gpu->on_kernel_boundary([this, pps](uint32_t k, bool last) {
      cycles.push_back(sc_core::sc_time_stamp().value() / sc_time(1, SC_PS).value() / pps);
      for (auto& s : sides) s->kernel_boundary(k, last);
    });
  }
  ~KbRig() { bstore_free(&dev); }
  const KbState& policy(unsigned p) { return *static_cast<const KbState*>(sides[p]->policy_state()); }
};

// Four launches (stores, loads, an empty launch, ALU only): boundaries 0, 1,
// 2 and the last (3, last = 1), in order, in both counting policies; each at
// the cycle the next launch starts (its kernel.<n>.start_cycle; the empty
// launch starts and ends at once, so boundaries 1 and 2 share a cycle), the
// last at gpu.cycles; the first after the L2 acknowledged kernel 1's stores
// and before kernel 2's first instruction.
static void case_kernel_boundary() {
  TinyProgram p;
  p.array_of("A", 4096);
  p.kernel(2, 1, [&p](WarpCtx& w, WarpInst& o) {
    switch (w.pc++) {
      case 0: o.alu(0, ~0u); break;
      case 1:
        o.store(~0u, 4, 0);
        lanes_linear(o, p.array(0).base + w.cta * kLineBytes, 4);
        for (unsigned l = 0; l < 32; ++l) {
          o.data[l] = w.cta * 100 + l;
          bstore_write(p.ks[0]->golden, o.addr[l], &o.data[l], 4);
        }
        break;
      default: o.exit();
    }
  });
  p.kernel(1, 1, [&p](WarpCtx& w, WarpInst& o) {
    switch (w.pc++) {
      case 0: o.load(1, ~0u, 4); lanes_linear(o, p.array(0).base, 4); break;
      default: o.exit();
    }
  });
  p.kernel(0, 1, [](WarpCtx&, WarpInst& o) { o.exit(); });
  p.kernel(1, 1, [](WarpCtx& w, WarpInst& o) {
    if (w.pc++ == 0) o.alu(0, ~0u);
    else o.exit();
  });
  Env e;
  e.build(p, 1, true);
  KbRig rig(e);
  e.run();
  e.gpu->register_kernel_stats(e.stats);
  for (unsigned s : {0u, 2u}) {
    const KbState& st = rig.policy(s);
    EXPECT_EQ(st.n, 4);
    for (unsigned k = 0; k < 4 && k < st.n; ++k) {
      EXPECT_EQ(st.index[k], k);
      EXPECT_EQ(st.last[k], k == 3 ? 1 : 0);
    }
  }
  EXPECT_EQ(rig.cycles.size(), 4u);
  if (rig.cycles.size() != 4) return;
  EXPECT_EQ(rig.cycles[0], e.st("kernel.2.k2.start_cycle"));
  EXPECT_EQ(rig.cycles[1], e.st("kernel.3.k3.start_cycle"));
  EXPECT_EQ(rig.cycles[2], e.st("kernel.4.k4.start_cycle"));
  EXPECT_EQ(rig.cycles[1], rig.cycles[2]);
  EXPECT_EQ(rig.cycles[3], e.st("gpu.cycles"));
  uint64_t last_ack = 0;
  for (const FakeMem::Rec& r : e.mem->log)
    if (r.write) last_ack = std::max<uint64_t>(last_ack, r.cycle + e.mem->cfg.latency);
  EXPECT(last_ack > 0);
  EXPECT(rig.cycles[0] > last_ack);
  unsigned before = 0;
  for (const IssueRec& r : e.logs[0]) before += r.cycle < rig.cycles[0];
  EXPECT_EQ(before, 6u);  // kernel 1's two warps: ALU, store, exit
  EXPECT(e.logs[0].size() > 6 && e.logs[0][6].cycle >= rig.cycles[0]);
}

// A multi-kernel workload (bfs: one launch per level): one boundary per launch, in order, the last flagged.
static void case_kernel_boundary_bfs() {
  Env e;
  auto prog = find_workload("bfs")->make({{"scale", 10}, {"edge_factor", 8}}, 3);
  prog->init(&e.golden, &e.device);
  e.gpu.reset(new Gpu("gpu", 2, e.sm, e.l1, &e.map, e.pool, &e.golden, false, e.stats));
  e.mem.reset(new FakeMem("fake_l2", FakeCfg(), e.sm.clk.period_ps(), &e.device));
  for (unsigned i = 0; i < 2; ++i) e.gpu->sm(i).isock.bind(e.mem->tsock);
  e.gpu->load(prog.get());
  e.logs.resize(2);
  KbRig rig(e);
  e.run();
  const uint32_t kernels = static_cast<uint32_t>(e.st("gpu.kernels"));
  EXPECT(kernels >= 3);
  for (unsigned s : {0u, 2u}) {
    const KbState& st = rig.policy(s);
    EXPECT_EQ(st.n, kernels);
    for (uint32_t k = 0; k < st.n && k < 64; ++k) {
      EXPECT_EQ(st.index[k], k);
      EXPECT_EQ(st.last[k], k + 1 == st.n ? 1 : 0);
    }
  }
  for (size_t i = 1; i < rig.cycles.size(); ++i) EXPECT(rig.cycles[i] >= rig.cycles[i - 1]);
}

// ------------------------------------------------------------------ driver

struct Case {
  const char* name;
  std::function<void()> fn;
  int want_status;
  const char* want_stderr;
};

// The SM pipeline reused outside the GPU (an NDP SM on a stack's logic layer,
// TOM Sec. 3): its own host (CTA dispatch), stat names and same-time stage; the
// same warp schedulers, L1 and coalescer. A store then a load-back of the same
// words from two CTAs, checked against the golden memory.
struct NdpHost : sc_core::sc_module, SmHost {
  SC_HAS_PROCESS(NdpHost);
  Sm* sm = nullptr;
  const KernelIf* k = nullptr;
  unsigned done = 0;
  bool drained = false;
  explicit NdpHost(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(launch); }
  void launch() {
    for (uint32_t c = 0; c < k->ctas; ++c) {
      EXPECT(sm->can_accept(*k));
      sm->launch_cta(k, c);
    }
  }
  void on_cta_done(unsigned) override { ++done; }
  void on_stores_drained(unsigned) override { drained = true; }
};

static void case_ndp_role() {
  TinyProgram p;
  p.array_of("V", 8192);
  p.kernel(2, 2, [&p](WarpCtx& w, WarpInst& o) {
    const uint64_t V = p.array(0).base + (w.cta * 2 + w.warp) * 128;
    switch (w.pc++) {
      case 0:
        o.store(~0u, 4, 0, kNoReg);
        lanes_linear(o, V, 4);
        for (unsigned l = 0; l < 32; ++l) {
          o.data[l] = 0xa0000000u + static_cast<uint32_t>(V) + l;
          bstore_write(p.ks[0]->golden, o.addr[l], &o.data[l], 4);
        }
        break;
      case 1: o.load(1, ~0u, 4); lanes_linear(o, V, 4); break;
      case 2: o.alu(2, ~0u); break;
      default: o.exit();
    }
  });
  Env e;
  p.init(&e.golden, &e.device);
  Checker checker(true, e.stats);
  NdpHost host("ndp_host");
  Sm sm("ndp_sm", 0, e.sm, e.l1, nullptr, e.pool, &e.golden, &checker, &host, e.stats,
        SmRole{"ndp.stack0.sm", "ndp.stack0.l1", Stage::NdpSm});
  FakeMem mem("vaults", FakeCfg(), e.sm.clk.period_ps(), &e.device);
  sm.isock.bind(mem.tsock);
  host.sm = &sm;
  host.k = p.next_kernel();
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  EXPECT_EQ(host.done, 2u);
  EXPECT(host.drained);
  EXPECT_EQ(e.st("ndp.stack0.sm.warp_instructions"), 4 * 4);
  EXPECT_EQ(e.st("ndp.stack0.sm.instructions"), 4 * 4 * 32);
  EXPECT_EQ(e.st("ndp.stack0.sm.ctas"), 2);
  EXPECT_EQ(e.st("ndp.stack0.l1.accesses"), 8);  // 4 stores + 4 loads, one line each
  EXPECT_EQ(e.st("check.loads"), 4 * 32);         // every lane's load compared, all equal
  EXPECT(!e.stats.has("gpu.sm0.instructions"));
  EXPECT_EQ(mem.log.size(), 8u);
  for (unsigned w = 0; w < 4; ++w) {  // the stored words reached the memory
    uint32_t v;
    bstore_read(&e.device, p.array(0).base + w * 128 + 4 * 7, &v, 4);
    EXPECT_EQ(v, 0xa0000000u + static_cast<uint32_t>(p.array(0).base + w * 128) + 7);
  }
  EXPECT_EQ(e.pool.live(), 0);
}

int sc_main(int, char**) {
  const std::vector<Case> cases = {
      {"alu_ipc", case_alu_ipc, 0, nullptr},
      {"alu_dual_issue_and_chain", case_alu_dual_issue_and_chain, 0, nullptr},
      {"load_miss_then_hit", case_load_miss_then_hit, 0, nullptr},
      {"hit_wake", case_hit_wake, 0, nullptr},
      {"l1_disabled", case_l1_disabled, 0, nullptr},
      {"mshr_merge", case_mshr_merge, 0, nullptr},
      {"mshr_merge_limit", case_mshr_merge_limit, 0, nullptr},
      {"load_after_store_in_flight", case_load_after_store_in_flight, 0, nullptr},
      {"stores_write_through", case_stores_write_through, 0, nullptr},
      {"write_allocate_on", [] { case_write_allocate(true); }, 0, nullptr},
      {"write_allocate_off", [] { case_write_allocate(false); }, 0, nullptr},
      {"barrier", case_barrier, 0, nullptr},
      {"sched_lrr", [] { case_sched_order(WarpSched::LooseRoundRobin); }, 0, nullptr},
      {"sched_gto", [] { case_sched_order(WarpSched::GreedyThenOldest); }, 0, nullptr},
      {"scattered_and_ext", case_scattered_and_ext, 0, nullptr},
      {"accept_later", case_accept_later, 0, nullptr},
      {"dispatch_two_sms", case_dispatch_two_sms, 0, nullptr},
      {"event_driven", case_event_driven, 0, nullptr},
      {"event_driven_struct_stall", case_event_driven_struct_stall, 0, nullptr},
      {"workload_stream", [] { case_builtin_workloads("stream", {{"n", 20000}}, false); }, 0, nullptr},
      {"workload_stencil2d", [] { case_builtin_workloads("stencil2d", {{"nx", 100}, {"ny", 60}, {"iters", 3}}, true); }, 0, nullptr},
      {"workload_random", [] { case_builtin_workloads("random", {{"table_words", 1 << 14}, {"updates", 5000}}, false); }, 0, nullptr},
      {"workload_bfs", [] { case_builtin_workloads("bfs", {{"scale", 10}, {"edge_factor", 8}}, true); }, 0, nullptr},
      {"payload_pool", case_payload_pool, 0, nullptr},
      {"ndp_role", case_ndp_role, 0, nullptr},
      {"kernel_boundary", case_kernel_boundary, 0, nullptr},
      {"kernel_boundary_bfs", case_kernel_boundary_bfs, 0, nullptr},
      {"check_catches_corruption", case_check_catches_corruption, 3,
       "strata: check failed: SM 0 warp 0 addr 0x0 cycle 100: expected 04030201 got 5e030201"},
  };
  int bad = 0;
  for (const Case& c : cases) {
    int pfd[2];
    if (pipe(pfd) != 0) return 1;
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
      close(pfd[0]);
      dup2(pfd[1], 2);
      sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
      c.fn();
      std::fflush(stdout);
      std::fflush(stderr);
      _exit(failures ? 1 : 0);
    }
    close(pfd[1]);
    std::string err;
    char buf[512];
    ssize_t n;
    while ((n = read(pfd[0], buf, sizeof buf)) > 0) err.append(buf, static_cast<size_t>(n));
    close(pfd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    bool ok = code == c.want_status;
    if (c.want_stderr && err.find(c.want_stderr) == std::string::npos) ok = false;
    std::printf("%-28s %s\n", c.name, ok ? "ok" : "FAILED");
    if (!ok) {
      std::printf("  exit status %d (want %d), stderr:\n%s\n", code, c.want_status, err.c_str());
      ++bad;
    }
  }
  return bad ? 1 : 0;
}
