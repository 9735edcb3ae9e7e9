// Module tests of the L2 bank's atomic path (common/gpu_ext.h, l2_bank.h
// "Atomics"): an atomic request that hits, one that misses (its sectors are
// fetched as a read's, the line allocated and dirtied), many lanes and
// requests contending for one word (the final value and every old value
// exact, the atomic unit's serialisation timed), the operations and types, and
// the observer seeing each lane in the order performed. L2 clock 1 GHz (T =
// 1 ns), hit latency 10 cycles, 32 B/cycle port, atomic unit latency 4 cycles,
// memory latency 50 ns; timings worked out by hand in the comments.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "l2/l2_bank.h"
#include "platform/module_cfg.h"
#include "l2_driver.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

namespace {

L2Cfg small_cfg() {
  L2Cfg c = l2_cfg(default_config());
  c.clk.mhz = 1000.0;
  c.banks = 1;
  c.size_bytes = 4096;  // 8 sets x 4 ways
  c.assoc = 4;
  c.latency = 10;
  c.mshrs = 4;
  c.bytes_per_cycle = 32;
  c.atomic_latency = 4;
  c.policy = "lru";
  return c;
}
constexpr uint64_t kSetSpan = 8 * 128;

uint64_t init_word(uint64_t a, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= static_cast<uint64_t>(init_byte(a + i)) << (8 * i);
  return v;
}

// The golden side: performs every lane it is told of on its own memory (the
// initial bytes of LineMem) and counts old values that differ from it.
struct Golden : AtomicObserver {
  std::map<uint64_t, uint64_t> words;
  uint64_t lanes = 0, mismatches = 0;
  std::vector<uint64_t> order;  // addresses in the order performed
  void performed(unsigned, uint64_t addr, gpu_atom_op op, gpu_atom_type type, uint64_t a, uint64_t b, uint64_t old,
                 uint64_t) override {
    const unsigned n = gpu_atom_bytes(type);
    auto it = words.find(addr);
    const uint64_t g = it == words.end() ? init_word(addr, n) : it->second;
    if (g != old) ++mismatches;
    words[addr] = gpu_atom_apply(op, type, g, a, b);
    ++lanes;
    order.push_back(addr);
  }
};

// One atomic warp instruction's line request and its lane arrays.
struct Job {
  AtomicReq req;
  uint64_t addr[32] = {}, a[32] = {}, b[32] = {}, old[32] = {};
  int rec = -1;
  Job() {
    req.addr = addr;
    req.a = a;
    req.b = b;
    req.old = old;
  }
};

int issue_atomic(L2Driver& d, Job& j, gpu_atom_op op, gpu_atom_type ty, uint32_t lanes, bool want_old = true) {
  j.req.op = op;
  j.req.type = ty;
  j.req.lanes = lanes;
  j.req.want_old = want_old;
  const uint64_t line = j.addr[__builtin_ctz(lanes)] & ~uint64_t(kLineBytes - 1);
  uint8_t mask = 0;
  for (uint32_t m = lanes; m; m &= m - 1) mask |= static_cast<uint8_t>(1u << ((j.addr[__builtin_ctz(m)] - line) / 32));
  tlm::tlm_generic_payload* gp = d.pool.alloc();
  gp->set_address(line);
  gp->set_command(tlm::TLM_READ_COMMAND);
  GpuExt& e = GpuExt::get(*gp);
  e.sector_mask = mask;
  e.ea_count = static_cast<uint8_t>(__builtin_popcount(lanes));
  e.atomic = &j.req;
  j.rec = d.issue(gp, false, line, mask);
  return j.rec;
}

uint32_t word_at(const L2Rec& r, unsigned off) {
  uint32_t v;
  std::memcpy(&v, r.data + off, 4);
  return v;
}

// H: a hit, then a read sees the result, then an eviction writes the dirty sector back.
Job g_hit;
void scenario_hit(L2Driver& d) {
  d.read(0x1000, 0xf);  // miss: 54
  d.wait_until_ns(100);
  g_hit.addr[0] = 0x1008, g_hit.a[0] = 5;
  g_hit.addr[1] = 0x100c, g_hit.a[1] = 7;
  // lookup 100; the data reach the unit when a 1-sector hit's would leave the port (109); the unit
  // takes it at 109, one cycle (no contended address), old values after 4 more: 113; port 113 -> 114
  issue_atomic(d, g_hit, GPU_ATOM_ADD, GPU_ATY_U32, 0x3);
  d.wait_until_ns(200);
  d.read(0x1000, 0x1);  // hit: 210, sees the atomics
  d.wait_until_ns(300);
  for (unsigned k = 1; k <= 4; ++k) d.read(0x1000 + k * kSetSpan, 0xf);  // evicts 0x1000 (LRU): write-back
}
void check_hit(L2Rig& r, Golden& g) {
  auto& R = r.drv.recs;
  CHECK(R.size() == 7, "records %zu", R.size());
  CHECK(R[1].t_resp == 114, "atomic hit answered at %.1f, expected 114", R[1].t_resp);
  CHECK(g_hit.old[0] == init_word(0x1008, 4) && g_hit.old[1] == init_word(0x100c, 4), "old values of the hit");
  CHECK(R[2].t_resp == 210, "read after it at %.1f", R[2].t_resp);
  CHECK(word_at(R[2], 8) == static_cast<uint32_t>(init_word(0x1008, 4) + 5) &&
            word_at(R[2], 12) == static_cast<uint32_t>(init_word(0x100c, 4) + 7),
        "a later read sees the atomics' results");
  std::vector<MemReq> wbs;
  for (const MemReq& m : r.mem.log)
    if (m.cls == ReqClass::Writeback) wbs.push_back(m);
  CHECK(wbs.size() == 1 && wbs[0].addr == 0x1000 && wbs[0].sector_mask == 0x1, "the dirty sector written back");
  uint32_t mem8, mem12;
  std::memcpy(&mem8, &r.mem.mem[0x1008], 4);
  std::memcpy(&mem12, &r.mem.mem[0x100c], 4);
  CHECK(mem8 == static_cast<uint32_t>(init_word(0x1008, 4) + 5) && mem12 == static_cast<uint32_t>(init_word(0x100c, 4) + 7),
        "memory holds the atomics' results after the write-back");
  CHECK(r.st("atomics") == 1 && r.st("atomic_lanes") == 2 && r.st("reads") == 6, "atomics %.0f lanes %.0f reads %.0f",
        r.st("atomics"), r.st("atomic_lanes"), r.st("reads"));
  CHECK(g.lanes == 2 && g.mismatches == 0, "observer: %llu lanes, %llu mismatches",
        static_cast<unsigned long long>(g.lanes), static_cast<unsigned long long>(g.mismatches));
  CHECK(r.bank.idle() && r.pool.live() == 0, "idle, no leak");
}

// M: a miss fetches the lanes' sectors only (as a read would), allocates the line, performs.
Job g_miss;
void scenario_miss(L2Driver& d) {
  g_miss.addr[3] = 0x3040, g_miss.a[3] = 0x11;  // sector 2
  g_miss.addr[9] = 0x3078, g_miss.a[9] = 0x22;  // sector 3 (64-bit)
  // fill {s2, s3} at 0, back at 50; the unit takes it at 50, answers at 54, port -> 55
  issue_atomic(d, g_miss, GPU_ATOM_OR, GPU_ATY_U64, (1u << 3) | (1u << 9));
}
void check_miss(L2Rig& r, Golden& g) {
  auto& R = r.drv.recs;
  CHECK(R.size() == 1 && R[0].t_resp == 55, "atomic miss answered at %.1f, expected 55", R.empty() ? -1.0 : R[0].t_resp);
  CHECK(r.mem.log.size() == 1 && r.mem.log[0].cls == ReqClass::Fill && r.mem.log[0].sector_mask == 0xc,
        "one fill of the lanes' sectors");
  CHECK(g_miss.old[3] == init_word(0x3040, 8) && g_miss.old[9] == init_word(0x3078, 8), "old values of the miss");
  CHECK(r.st("misses") == 1 && r.st("atomics") == 1 && r.st("bypasses") == 0, "counted as a miss");
  CHECK(cache_find(r.bank.tags(), 0x3000) >= 0, "the line allocated");
  CHECK(g.lanes == 2 && g.mismatches == 0, "observer");
}

// C: 8 requests of 32 lanes each, all on one word (u32 add 1), issued back to
// back to an absent line: the first misses, the others merge behind its fill
// (back at 50) and are replayed in order. Lanes 0-30 add 1 to word 0x5004,
// lane 31 adds 100 to word 0x5010: the unit is busy 31 cycles per request (its
// most contended address), so request k starts at 50 + 31 k, its old values
// leave 30 + 4 cycles later, port +1: 85 + 31 k. Lanes are performed in lane
// order, requests in arrival order: lane l of request k reads init + 31 k + l.
Job g_cont[8];
void scenario_contention(L2Driver& d) {
  for (unsigned k = 0; k < 8; ++k) {
    for (unsigned l = 0; l < 32; ++l) {
      g_cont[k].addr[l] = l == 31 ? 0x5010 : 0x5004;
      g_cont[k].a[l] = l == 31 ? 100 : 1;
    }
    issue_atomic(d, g_cont[k], GPU_ATOM_ADD, GPU_ATY_U32, 0xffffffffu);
  }
  d.wait_until_ns(2000);
  d.read(0x5000, 0x1);
}
void check_contention(L2Rig& r, Golden& g) {
  auto& R = r.drv.recs;
  CHECK(R.size() == 9, "records");
  const uint32_t base = static_cast<uint32_t>(init_word(0x5004, 4));
  for (unsigned k = 0; k < 8 && k < R.size(); ++k) {
    const double want = 85 + 31.0 * k;
    CHECK(R[k].t_resp == want, "request %u answered at %.1f, expected %.1f", k, R[k].t_resp, want);
    for (unsigned l = 0; l < 31; ++l)
      CHECK(static_cast<uint32_t>(g_cont[k].old[l]) == base + 31 * k + l, "request %u lane %u old %u, expected %u", k, l,
            static_cast<uint32_t>(g_cont[k].old[l]), base + 31 * k + l);
    CHECK(static_cast<uint32_t>(g_cont[k].old[31]) == static_cast<uint32_t>(init_word(0x5010, 4)) + 100 * k,
          "the other word's old value in request %u", k);
  }
  CHECK(word_at(R[8], 4) == base + 248 && word_at(R[8], 16) == static_cast<uint32_t>(init_word(0x5010, 4)) + 800,
        "final values exact (+248 and +800)");
  CHECK(r.st("atomics") == 8 && r.st("atomic_lanes") == 256 && r.st("mshr_merges") == 7, "counters");
  CHECK(g.lanes == 256 && g.mismatches == 0 && g.words[0x5004] == base + 248, "observer saw the L2's order");
  CHECK(r.bank.idle() && r.pool.live() == 0, "idle, no leak");
}

// O: the operations and types on one line, performed in lane order (red: no old value wanted,
// performed all the same).
Job g_ops, g_red;
void scenario_ops(L2Driver& d) {
  d.read(0x7000, 0xf);
  d.wait_until_ns(100);
  const uint64_t w64 = init_word(0x7000, 8);
  g_ops.addr[0] = 0x7000, g_ops.a[0] = w64, g_ops.b[0] = 0x1111222233334444ull;  // CAS succeeds
  g_ops.addr[1] = 0x7000, g_ops.a[1] = w64, g_ops.b[1] = 0x5555ull;              // then fails: old is the swap
  issue_atomic(d, g_ops, GPU_ATOM_CAS, GPU_ATY_U64, 0x3);
  d.wait_until_ns(200);
  g_red.addr[0] = 0x7020, g_red.a[0] = static_cast<uint32_t>(-5);  // min s32 against the init word
  g_red.addr[5] = 0x7024, g_red.a[5] = 0x80000000u;
  issue_atomic(d, g_red, GPU_ATOM_MIN, GPU_ATY_S32, 0x21, false);
  d.wait_until_ns(300);
  d.read(0x7000, 0x3);
}
void check_ops(L2Rig& r, Golden& g) {
  auto& R = r.drv.recs;
  CHECK(R.size() == 4, "records");
  const uint64_t w64 = init_word(0x7000, 8);
  CHECK(g_ops.old[0] == w64 && g_ops.old[1] == 0x1111222233334444ull, "CAS: the second lane sees the first's swap");
  uint64_t v;
  std::memcpy(&v, R[3].data, 8);
  CHECK(v == 0x1111222233334444ull, "CAS result %llx", static_cast<unsigned long long>(v));
  const int32_t i20 = static_cast<int32_t>(init_word(0x7020, 4)), i24 = static_cast<int32_t>(init_word(0x7024, 4));
  CHECK(static_cast<int32_t>(word_at(R[3], 0x20)) == (i20 < -5 ? i20 : -5), "min s32");
  (void)i24;
  CHECK(static_cast<int32_t>(word_at(R[3], 0x24)) == INT32_MIN, "min s32 with INT32_MIN");
  CHECK(g.lanes == 4 && g.mismatches == 0, "observer");
  CHECK(r.bank.idle() && r.pool.live() == 0, "idle, no leak");
}

}  // namespace

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
  const L2Cfg c = small_cfg();
  L2Rig hit("hit", c), miss("miss", c), cont("cont", c), ops("ops", c);
  Golden ghit, gmiss, gcont, gops;
  hit.bank.set_atomic_observer(&ghit);
  miss.bank.set_atomic_observer(&gmiss);
  cont.bank.set_atomic_observer(&gcont);
  ops.bank.set_atomic_observer(&gops);
  hit.drv.script = scenario_hit;
  miss.drv.script = scenario_miss;
  cont.drv.script = scenario_contention;
  ops.drv.script = scenario_ops;
  sc_start();
  check_hit(hit, ghit);
  check_miss(miss, gmiss);
  check_contention(cont, gcont);
  check_ops(ops, gops);
  return report();
}
