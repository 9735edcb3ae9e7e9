// Module tests of strata::L2Bank with a fake memory target and a scripted
// initiator. Each scenario has its own rig (bank + driver + memory), all
// elaborated together and run in one simulation, independently (each starts at
// t = 0). Timing expectations are worked out by hand in the comments: L2 clock
// 1 GHz (T = 1 ns), hit latency 10 cycles, 32 B/cycle data port, memory
// latency 50 ns unless stated.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "l2/l2_bank.h"
#include "platform/module_cfg.h"
#include "l2_driver.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

using FakeMem = LineMem;

// Driver (crossbar side), rig and records: tests/module/l2_driver.h.
using Rec = L2Rec;
using Driver = L2Driver;
using Rig = L2Rig;

static L2Cfg small_cfg() {
  L2Cfg c = l2_cfg(default_config());  // schema defaults, then what the timings below depend on
  c.clk.mhz = 1000.0;
  c.banks = 1;
  c.size_bytes = 4096;  // 32 lines: 8 sets x 4 ways
  c.assoc = 4;
  c.latency = 10;
  c.mshrs = 4;
  c.bytes_per_cycle = 32;
  c.policy = "lru";
  return c;
}
static constexpr uint64_t kSetSpan = 8 * 128;  // next line in the same set

// ------------------------------------------------------------ scenarios

// A: hit latency and data-port serialisation.
static void scenario_latency(Driver& d) {
  d.read(0x1000, 0xf);  // t=0 miss: fill at 0, back at 50; resp = max(50, 0+6) + 4 = 54
  d.wait_until_ns(100);
  d.read(0x1000, 0xf);  // hit: lookup 100, resp 110
  d.wait_until_ns(200);
  d.read(0x1000, 0xf);  // hit: lookup 200 -> 210
  d.read(0x1000, 0xf);  // lookup 201 (tag pipeline), ready 207, port busy until 210 -> 214
  d.read(0x1000, 0x1);  // lookup 202, 1 sector: ready 211, port free at 214 -> 215
  d.wait_until_ns(300);
  d.read(0x1000, 0x4);  // lookup 300, 1 cycle on the port: ready 309 -> 310
}
static void check_latency(Rig& r) {
  const std::vector<double> exp = {54, 110, 210, 214, 215, 310};
  CHECK(r.drv.recs.size() == exp.size(), "n=%zu", r.drv.recs.size());
  for (size_t i = 0; i < exp.size() && i < r.drv.recs.size(); ++i)
    CHECK(r.drv.recs[i].t_resp == exp[i], "req %zu resp at %.1f expected %.1f", i, r.drv.recs[i].t_resp, exp[i]);
  CHECK(r.st("hits") == 5 && r.st("misses") == 1, "hits %.0f misses %.0f", r.st("hits"), r.st("misses"));
  CHECK(r.mem.log.size() == 1 && r.mem.log[0].t_ns == 0 && r.mem.log[0].sector_mask == 0xf, "fill log");
  for (unsigned b = 0; b < 128; ++b) CHECK(r.drv.recs[1].data[b] == init_byte(0x1000 + b), "data byte %u", b);
}

// B: miss -> fill -> responses in arrival order; merges; a write merged behind a
// read is not visible to that read but is to a later read.
static unsigned char g_wdata[128];
static void scenario_merge(Driver& d) {
  for (unsigned i = 0; i < 128; ++i) g_wdata[i] = static_cast<unsigned char>(0xA0 + i);
  d.read(0x2000, 0x1);                 // t0: miss, fill {s0} at 0 -> back at 50
  d.wait_ns(1);
  d.read(0x2000, 0x2);                 // t1: merge, extra fill {s1} at 1 -> back at 51
  d.wait_ns(1);
  d.write(0x2000, 0, 32, g_wdata);     // t2: merge (full sector 0, no fetch)
  d.wait_ns(1);
  d.read(0x2000, 0x1);                 // t3: merge; must see the write
  d.wait_ns(1);
  d.write(0x2000, 64 + 5, 3, g_wdata + 69);  // t4: partial write of s2: extra fill {s2} at 4 -> 54
}
static void check_merge(Rig& r) {
  auto& R = r.drv.recs;
  CHECK(R.size() == 5, "n");
  CHECK(r.drv.order == std::vector<int>({0, 1, 2, 3, 4}), "response order");
  // all replayed after the last fill (54): 1 sector each through the port
  const double exp[] = {55, 56, 57, 58, 59};
  for (int i = 0; i < 5; ++i) CHECK(R[i].t_resp == exp[i], "req %d at %.1f exp %.1f", i, R[i].t_resp, exp[i]);
  for (unsigned b = 0; b < 32; ++b) {
    CHECK(R[0].data[b] == init_byte(0x2000 + b), "read before write sees memory, byte %u", b);
    CHECK(R[1].data[32 + b] == init_byte(0x2000 + 32 + b), "sector 1 byte %u", b);
    CHECK(R[3].data[b] == g_wdata[b], "read after write sees the write, byte %u", b);
  }
  CHECK(r.mem.count(ReqClass::Fill) == 3, "fills %zu", r.mem.count(ReqClass::Fill));
  if (r.mem.log.size() == 3) {
    CHECK(r.mem.log[0].sector_mask == 0x1 && r.mem.log[1].sector_mask == 0x2 && r.mem.log[2].sector_mask == 0x4,
          "fill masks");
  }
  CHECK(r.st("mshr_merges") == 4, "merges %.0f", r.st("mshr_merges"));
  CHECK(r.st("misses") == 5 && r.st("hits") == 0, "misses %.0f", r.st("misses"));
  CHECK(r.st("fill_bytes") == 96, "fill bytes %.0f", r.st("fill_bytes"));
}

// C: dirty eviction writes back exactly the dirty sectors' bytes.
static void scenario_evict(Driver& d) {
  for (unsigned i = 0; i < 128; ++i) g_wdata[i] = static_cast<unsigned char>(0x55 ^ i);
  d.write(0x0, 32, 32, g_wdata + 32);   // line A, sector 1 full: allocate w/o fetch
  d.write(0x0, 96, 32, g_wdata + 96);   // sector 3
  d.wait_ns(20);
  for (unsigned k = 1; k <= 3; ++k) d.read(k * kSetSpan, 0xf);  // B, C, D in the same set
  d.wait_ns(100);
  d.read(4 * kSetSpan, 0xf);            // E evicts A (LRU)
  d.wait_ns(100);
  d.read(0x0, 0xA);                     // A again: miss, data from memory = the written-back bytes
}
static void check_evict(Rig& r) {
  std::vector<MemReq> wbs;
  for (const MemReq& m : r.mem.log)
    if (m.cls == ReqClass::Writeback) wbs.push_back(m);
  CHECK(wbs.size() == 1, "writebacks %zu", wbs.size());
  if (wbs.size() == 1) {
    CHECK(wbs[0].addr == 0 && wbs[0].write, "wb addr");
    CHECK(wbs[0].byte_mask[0] == 0xffffffff00000000ull && wbs[0].byte_mask[1] == 0xffffffff00000000ull,
          "wb byte mask %016llx %016llx", (unsigned long long)wbs[0].byte_mask[0],
          (unsigned long long)wbs[0].byte_mask[1]);
    CHECK(wbs[0].sector_mask == 0xA, "wb sector mask");
  }
  for (unsigned b = 0; b < 128; ++b) {
    const bool dirty = (b >= 32 && b < 64) || b >= 96;
    CHECK(r.mem.mem[b] == (dirty ? g_wdata[b] : init_byte(b)), "memory byte %u after writeback", b);
  }
  const Rec& last = r.drv.recs.back();
  for (unsigned b = 32; b < 64; ++b) CHECK(last.data[b] == g_wdata[b], "re-read byte %u", b);
  CHECK(r.st("writebacks.dram") == 1 && r.st("writeback_bytes") == 64, "wb stats");
  CHECK(r.st("writebacks.nvm") == 0, "nvm wb");
  CHECK(r.mem.count(ReqClass::Fill) == 5, "B,C,D,E,A only: no fill for the full-sector writes (fills %zu)", r.mem.count(ReqClass::Fill));
}

// D: partial-sector write to an absent line fetches exactly that sector.
static void scenario_partial(Driver& d) {
  const unsigned char v[4] = {1, 2, 3, 4};
  d.write(0x3000, 40, 4, v);        // sector 1 partially: fill {s1}
  d.wait_ns(100);
  d.read(0x3000, 0x2);              // hit, merged data
  const unsigned char full[32] = {9};
  d.write(0x3000, 64, 32, full);    // present line, full sector 2: no fetch
  d.wait_ns(30);
  d.read(0x3000, 0x6);              // hit
}
static void check_partial(Rig& r) {
  CHECK(r.mem.log.size() == 1, "one fill only (%zu)", r.mem.log.size());
  if (!r.mem.log.empty()) CHECK(r.mem.log[0].sector_mask == 0x2 && !r.mem.log[0].write, "fill mask s1");
  const Rec& rd = r.drv.recs[1];
  for (unsigned b = 32; b < 64; ++b) {
    const unsigned char e = (b >= 40 && b < 44) ? static_cast<unsigned char>(b - 39) : init_byte(0x3000 + b);
    CHECK(rd.data[b] == e, "byte %u = %u expected %u", b, rd.data[b], e);
  }
  CHECK(r.drv.recs[0].t_resp == 51, "write ack after fill: %.1f", r.drv.recs[0].t_resp);  // max(50, 0+9)+1
  CHECK(r.drv.recs[3].data[64] == 9 && r.drv.recs[3].data[65] == 0, "full-sector write data");
  CHECK(r.st("hits") == 2 && r.st("misses") == 2, "hits %.0f misses %.0f", r.st("hits"), r.st("misses"));
}

// E: backpressure: 2 MSHRs, 20 distinct-line misses issued back to back.
static void scenario_backpressure(Driver& d) {
  for (unsigned k = 0; k < 20; ++k) d.read(0x10000 + k * 128, 0xf);
}
static void check_backpressure(Rig& r) {
  CHECK(r.drv.recs.size() == 20, "n");
  bool all = true;
  for (const Rec& x : r.drv.recs) all = all && x.t_resp >= 0;
  CHECK(all, "every request answered");
  CHECK(r.drv.late_accepts > 0, "input queue full -> TLM_ACCEPTED + later END_REQ (%u)", r.drv.late_accepts);
  CHECK(r.st("stalls") > 0, "stalls counted");
  // 2 MSHRs, 50 ns memory: misses complete in pairs every ~50 ns
  CHECK(r.drv.recs[19].t_resp >= 9 * 50, "MSHR limit bounds throughput (%.1f)", r.drv.recs[19].t_resp);
  CHECK(r.bank.idle(), "bank idle at end");
}

// F: seeded random mix against a reference byte array; out-of-order memory
// responses, memory and initiator backpressure, evictions.
static std::vector<uint8_t> g_ref;
static constexpr unsigned kFootLines = 96;  // 3x the cache
static void scenario_random(Driver& d) {
  g_ref.resize(1024 * 128);
  for (size_t a = 0; a < g_ref.size(); ++a) g_ref[a] = init_byte(a);
  std::mt19937 rng(2024);
  unsigned char buf[128];
  // L2_RANDOM_N / L2_RANDOM_LINES: longer runs for host-speed measurements (defaults keep CTest fast)
  const int count = getenv("L2_RANDOM_N") ? atoi(getenv("L2_RANDOM_N")) : 6000;
  const unsigned foot = getenv("L2_RANDOM_LINES") ? static_cast<unsigned>(atoi(getenv("L2_RANDOM_LINES"))) : kFootLines;
  for (int i = 0; i < count; ++i) {
    const uint64_t line = (rng() % foot) * 128;
    if (rng() % 100 < 45) {
      unsigned off, len;
      switch (rng() % 4) {
        case 0: off = 0; len = 128; break;                               // full line
        case 1: off = (rng() % 4) * 32; len = 32; break;                 // one full sector
        default: off = rng() % 128; len = 1 + rng() % (128 - off); break;  // arbitrary bytes
      }
      for (unsigned b = 0; b < len; ++b) buf[off + b] = static_cast<unsigned char>(rng());
      std::memcpy(&g_ref[line + off], buf + off, len);
      d.write(line, off, len, buf + off);
    } else {
      uint8_t m = static_cast<uint8_t>(rng() % 15 + 1);
      const int id = d.read(line, m);
      std::memcpy(d.recs[id].expect, &g_ref[line], 128);
    }
    if (rng() % 8 == 0) d.wait_ns(rng() % 40);
  }
}
static void check_random(Rig& r) {
  size_t bad = 0, reads = 0;
  for (const Rec& x : r.drv.recs) {
    if (x.t_resp < 0) { ++bad; continue; }
    if (x.write) continue;
    ++reads;
    if (getenv("L2_RANDOM_N")) continue;
    for (unsigned s = 0; s < 4; ++s)
      if ((x.mask >> s) & 1u)
        if (std::memcmp(x.data + s * 32, x.expect + s * 32, 32) != 0) {
          if (bad == 0 && getenv("L2DBG")) {
            for (const Rec& y : r.drv.recs) {
              if (&y > &x) break;
              if (y.addr == x.addr) std::printf("  id %td %c mask %x issue %.0f resp %.0f\n", &y - &r.drv.recs[0], y.write ? 'W' : 'R', y.mask, y.t_issue, y.t_resp);
            }
            for (const MemReq& m : r.mem.log) if (m.addr == x.addr && m.t_ns <= x.t_resp) std::printf("  mem %c %s mask %x t %.0f\n", m.write ? 'W' : 'R', m.cls == ReqClass::Fill ? "fill" : "wb", m.sector_mask, m.t_ns);
            for (unsigned b = 0; b < 32; ++b) std::printf("%02x/%02x ", x.data[s*32+b], x.expect[s*32+b]);
            std::printf("\n");
          }
          if (bad < 3) std::printf("bad read id %td line %llx sector %u issued %.0f\n", &x - &r.drv.recs[0],
                                   (unsigned long long)x.addr, s, x.t_issue);
          ++bad;
        }
  }
  CHECK(bad == 0, "%zu bad/missing responses of %zu", bad, r.drv.recs.size());
  CHECK(reads > 3000, "reads %zu", reads);
  if (getenv("L2_RANDOM_N")) return;
  // final state: memory overlaid with the L2's valid sectors (debug path) equals the reference
  tlm_generic_payload gp;
  std::vector<uint8_t> all(g_ref.size());
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0);
  gp.set_data_ptr(all.data());
  gp.set_data_length(static_cast<unsigned>(all.size()));
  r.bank.tsock.get_base_export()->transport_dbg(gp);
  CHECK(all == g_ref, "final memory+cache image matches the reference");
  CHECK(r.st("writebacks.dram") > 100, "evictions wrote back (%.0f)", r.st("writebacks.dram"));
  CHECK(r.st("mshr_merges") > 0 && r.st("stalls") > 0, "merges %.0f stalls %.0f", r.st("mshr_merges"), r.st("stalls"));
  CHECK(r.mem.accepted_late > 0 && r.drv.late_accepts > 0, "both backpressure paths exercised");
  CHECK(r.st("hits") + r.st("misses") == r.st("accesses"), "hits+misses");
  CHECK(r.st("reads") + r.st("writes") == r.st("accesses"), "reads+writes");
  CHECK(r.bank.idle(), "idle");
  CHECK(r.pool.live() == 0, "payload leak: %zu live", r.pool.live());
  std::printf("random: %zu requests, hit rate %.3f, merges %.0f, stalls %.0f, writebacks %.0f, end %.0f ns\n",
              r.drv.recs.size(), r.st("hits") / r.st("accesses"), r.st("mshr_merges"), r.st("stalls"),
              r.st("writebacks.dram"), sc_time_stamp().to_double() / 1000.0);
}


// G: memory type per line from the address map: NVM lines' fills and
// write-backs are tagged NVM and counted in writebacks.nvm; the policy sees it.
static amap g_map;
static constexpr uint64_t kNvmBase = 0x8000;
static void scenario_nvm(Driver& d) {
  static unsigned char v[32];
  for (unsigned i = 0; i < 32; ++i) v[i] = static_cast<unsigned char>(0xC0 + i);
  d.write(0x0, 0, 32, v);                       // DRAM line, set 0
  d.write(kNvmBase, 32, 32, v);                 // NVM line, set 0 (kNvmBase is a multiple of 8 lines)
  d.wait_ns(20);
  for (unsigned k = 1; k <= 4; ++k) d.read(k * kSetSpan + 0x10000, 0x1);  // evict both
}
static void check_nvm(Rig& r) {
  CHECK(r.st("writebacks.nvm") == 1 && r.st("writebacks.dram") == 1, "wb dram %.0f nvm %.0f",
        r.st("writebacks.dram"), r.st("writebacks.nvm"));
  for (const MemReq& m : r.mem.log) {
    const bool nvm = m.addr >= kNvmBase && m.addr < 2 * kNvmBase;
    CHECK((m.mem_type == MemType::NVM) == nvm, "mem type of %llx", (unsigned long long)m.addr);
  }
  CHECK(r.mem.mem[kNvmBase + 32] == 0xC0 && r.mem.mem[kNvmBase + 63] == 0xC0 + 31, "NVM data written back");
}

// H: policy bypass. A test policy (installed into the bank's tag store) bypasses
// demand reads with ea_count == 1, else evicts way 0, and records what it saw.
static repl_access g_seen[64];
static unsigned g_nseen = 0;
static size_t tp_bytes(uint32_t, uint32_t) { return 0; }
static void tp_init(void*, uint32_t, uint32_t) {}
static void tp_hit(void*, uint32_t, uint32_t, const repl_access*) {}
static int tp_victim(void*, uint32_t, const repl_line*, uint32_t, const repl_access* a) {
  if (g_nseen < 64) g_seen[g_nseen++] = *a;
  return (a->allow_bypass && a->ea_count == 1) ? REPL_BYPASS : 0;
}
static void tp_fill(void*, uint32_t, uint32_t, const repl_access*) {}
static void tp_inv(void*, uint32_t, uint32_t) {}
static const repl_ops kTestPolicy = {"test", "test", tp_bytes, tp_init, tp_hit, tp_victim, tp_fill, tp_inv, nullptr, nullptr, 0};
static void scenario_bypass(Driver& d) {
  for (unsigned k = 0; k < 4; ++k) d.read(k * kSetSpan, 0xf);  // fill set 0 (invalid ways: no policy call)
  d.wait_ns(100);
  d.read(4 * kSetSpan, 0x6, 1);   // bypassed: fill {1,2}, answered at 100+50+2 = 152, not allocated
  d.wait_ns(100);
  d.read(4 * kSetSpan, 0x1, 7);   // allocated into way 0
  d.wait_ns(100);
  unsigned char v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  d.write(5 * kSetSpan, 0, 8, v);  // write miss: never bypassed
}
static void check_bypass(Rig& r) {
  CHECK(r.st("bypasses") == 1, "bypasses %.0f", r.st("bypasses"));
  const Rec& b = r.drv.recs[4];
  CHECK(b.t_resp == 152, "bypass response at %.1f", b.t_resp);
  for (unsigned i = 32; i < 96; ++i) CHECK(b.data[i] == init_byte(4 * kSetSpan + i), "bypass data %u", i);
  CHECK(g_nseen == 3, "policy calls %u", g_nseen);
  if (g_nseen == 3) {
    CHECK(g_seen[0].allow_bypass && g_seen[0].ea_count == 1 && !g_seen[0].is_write, "first access");
    CHECK(g_seen[1].allow_bypass && g_seen[1].ea_count == 7, "second access");
    CHECK(!g_seen[2].allow_bypass && g_seen[2].is_write, "writes not bypassable");
  }
  std::vector<uint8_t> fills;
  for (const MemReq& m : r.mem.log)
    if (m.addr == 4 * kSetSpan) fills.push_back(m.sector_mask);
  CHECK(fills == std::vector<uint8_t>({0x6, 0x1}), "bypass fill, then an allocating fill of sector 0 only");
  CHECK(cache_find(r.bank.tags(), 5 * kSetSpan) == 0 && cache_find(r.bank.tags(), 4 * kSetSpan) < 0,
        "the write allocated way 0 (evicting the second read's line)");
  CHECK(r.bank.idle() && r.pool.live() == 0, "idle, no leak");
}

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
  L2Cfg c = small_cfg();
  Rig lat("lat", c);
  lat.drv.script = scenario_latency;
  Rig merge("merge", c);
  merge.drv.script = scenario_merge;
  merge.mem.jitter_ns = 0;
  Rig evict("evict", c);
  evict.drv.script = scenario_evict;
  Rig partial("partial", c);
  partial.drv.script = scenario_partial;
  L2Cfg cb = c;
  cb.mshrs = 2;
  Rig bp("bp", cb);
  bp.drv.script = scenario_backpressure;
  Rig rnd("rnd", c);
  rnd.drv.script = scenario_random;
  rnd.mem.jitter_ns = getenv("NOJIT") ? 0 : 60;
  rnd.mem.backpressure = !getenv("NOBP");
  rnd.drv.slow_end_resp = !getenv("NOSLOW");
  std::vector<L2Bank*> banks = {&rnd.bank};
  L2Bank::register_totals(rnd.stats, banks);

  char err[160];
  if (amap_init(&g_map, "off:32 col:4 col:16 ba:4 row", 1, 1, 1, 4, 2048, 1, 0, err, sizeof err) != 0 ||
      amap_add_region(&g_map, kNvmBase, kNvmBase, AMAP_MEM_NVM) != 0) {
    std::printf("amap: %s\n", err);
    return 1;
  }
  Rig nvm("nvm", c, 1 << 20, &g_map);
  nvm.drv.script = scenario_nvm;
  Rig byp("byp", c);
  byp.drv.script = scenario_bypass;
  byp.bank.tags()->cfg.policy = &kTestPolicy;

  // set_stride with a real address map: 6 channels x 2 banks each = 12 banks;
  // bank 5 must spread its lines evenly over all of its sets.
  {
    amap m12;
    if (amap_init(&m12, "off:32 col:4 ch:6 col:16 ba:4 row", 6, 1, 1, 4, 2048, 2, 0, err, sizeof err) != 0) {
      std::printf("amap: %s\n", err);
      return 1;
    }
    L2Cfg c12 = c;
    c12.banks = 12;
    c12.size_bytes = 12 * 4096;
    static Rig r12("b12", c12, 1 << 20, &m12, 5);
    std::vector<unsigned> hist(r12.bank.tags()->sets, 0);
    unsigned n = 0;
    for (uint64_t line = 0; line < 12ull * 8 * 128 * 16; line += 128)
      if (amap_l2_bank(&m12, line) == 5) {
        ++hist[cache_set_of(r12.bank.tags(), line)];
        ++n;
      }
    CHECK(n == 8 * 16, "bank 5 owns 1/12 of the lines (%u)", n);
    for (unsigned h : hist) CHECK(h == 16, "set use %u (expected 16 each)", h);
  }

  sc_start();
  check_nvm(nvm);
  check_bypass(byp);

  // merge rig: the fill for s1 was issued at 1 and s2 at 4: check the log times
  check_latency(lat);
  check_merge(merge);
  check_evict(evict);
  check_partial(partial);
  check_backpressure(bp);
  check_random(rnd);
  CHECK(rnd.stats.get("l2.accesses") == rnd.st("accesses"), "totals");
  CHECK(rnd.stats.get("l2.miss_rate") > 0 && rnd.stats.get("l2.miss_rate") < 1, "miss rate");
  CHECK(std::abs(rnd.stats.get("l2.hit_rate") + rnd.stats.get("l2.miss_rate") - 1.0) < 1e-12, "rates");
  return report();
}
