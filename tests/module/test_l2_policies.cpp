// Module tests of strata::L2Bank under the hybrid-memory replacement policies
// (lru, hac_static, hac, hac_literal, eabp, wbar; models/ref/cache/repl_*.c), with a fake memory
// and a scripted initiator (tests/module/tlm_harness.h). Part of the address
// space is NVM through the address map (amap_add_region).
//
//  A. Writeback-hit dirtiness (HAC Algorithm 2 lines 2-3) inside the L2: a write
//     hit makes an NVM line dirty, so once it reaches LRU, demand reads with a
//     smaller EA are bypassed (Algorithm 1 lines 10-11) and the line survives;
//     the same traffic without the write hit bypasses nothing and evicts it.
//     Every read returns the right data, in both runs.
//  B. Swapping the policy changes nothing else: with a footprint that fits (no
//     set ever needs a victim) every policy gives identical response times,
//     data and l2.bank0.* stats.
//  C. With evictions (3x the capacity, half NVM, out-of-order memory, both
//     backpressure paths): every read under every policy returns the reference
//     data (bypassed reads included), the final memory+cache image is the
//     reference, and the policy-independent stats (accesses, reads, writes) are
//     equal across policies; only hac and hac_literal bypass.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
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

namespace {

using Rec = L2Rec;        // tests/module/l2_driver.h (records, response order, reference image)
using Driver = L2Driver;

// One bank per policy; the driver's seed 5 decides its slow END_RESP answers.
struct Rig : L2Rig {
  Rig(const std::string& n, const L2Cfg& cfg, const amap* map) : L2Rig(n, cfg, 1 << 20, map, 0, 5) {}
};

L2Cfg cfg_for(const std::string& policy, unsigned size, unsigned assoc) {
  L2Cfg c = l2_cfg(default_config());  // schema defaults, then what the timings below depend on
  c.clk.mhz = 1000.0;
  c.banks = 1;
  c.size_bytes = size;
  c.assoc = assoc;
  c.latency = 10;
  c.mshrs = 8;
  c.bytes_per_cycle = 32;
  c.policy = policy;
  return c;
}

const char* const kPolicies[] = {"lru", "hac_static", "hac", "hac_literal", "eabp", "wbar"};
amap g_map;
constexpr uint64_t kNvmBase = 0x10000, kNvmSize = 0x10000;  // [64 KiB, 128 KiB) is NVM

// ---------------------------------------------------------------- A
// One set of 8 ways (1 KiB), hac, mc reset to 8. X = an NVM line read with ea 32:
// mc 6, EA = 8*31/64 = 3, CNP = 4 - 6/8 + 3 = 7 (MRU). With `dirty`, a write hit
// (ea 32; NP = 7 + 8 - 0 - 1 -> MRU) makes it dirty. Then 24 pairs "read a new DRAM
// line L_k with ea 1 (EA 0), re-read it". Pair k: the miss gives mc 6+k, CDP =
// 1 + mc/4 - 1 = 1,2,2,2,2,3,3,3 (k = 1..8); the re-read hit moves L_k to DP = pos
// + 4 + mc/4 = 6 (k = 1) or MRU (k >= 2), pushing X down one each time from k = 2;
// the k = 8 miss (set full, evicts position 0, inserts at 3) pushes it to LRU. From
// k = 9 on, dirty X (EA 3 > 0) turns away reads of EA 0, and each bypass ages its EA
// flag by one (docs/hac.md, "bypass aging"): the two reads of pair 9 and the first of
// pair 10 are bypassed (EA 3 -> 2 -> 1 -> 0), the re-read of pair 10 evicts X (one NVM
// write-back) and allocates L_10; pairs 11..24 behave like pairs 1..8 (miss, hit).
// hits = write + 8 re-reads + 14 re-reads = 23; the final read of X refetches it and
// must see the written bytes (they went to memory with the write-back). Without the
// aging X would stay for ever: 32 bypasses. Clean X is evicted by the k = 9 miss.
unsigned char g_pat[32];
const uint64_t kX = kNvmBase;
// X read (and written), then pairs 1..pairs of reads of L_k.
void x_then_pairs(Driver& d, bool dirty, unsigned pairs) {
  for (unsigned i = 0; i < 32; ++i) g_pat[i] = static_cast<unsigned char>(0xD0 + i);
  d.read(kX, 0xf, 32);
  d.wait_ns(100);
  if (dirty) {
    d.write(kX, 0, 32, g_pat, 32);
    d.wait_ns(100);
  }
  for (unsigned k = 1; k <= pairs; ++k) {
    d.read(k * 128, 0xf, 1);
    d.wait_ns(100);
    d.read(k * 128, 0xf, 1);
    d.wait_ns(100);
  }
}
void scenario_dirty(Driver& d, bool dirty) {
  x_then_pairs(d, dirty, 24);
  d.read(kX, 0x1, 32);
  d.wait_ns(100);
}

// D: as A up to pair 8 (dirty X, EA 3, at LRU), then three back-to-back reads
// of L_9 (EA 0): the first is bypassed; the other two arrive while its fill is
// in flight and wait for it (MSHR merges), so L_9 is fetched once and the
// policy decides (and ages X) once.
const uint64_t kL9 = 9 * 128;
void scenario_merge(Driver& d) {
  x_then_pairs(d, true, 8);
  for (int i = 0; i < 3; ++i) d.read(kL9, 0xf, 1);
  d.wait_ns(300);
}
void check_merge(Rig& r) {
  size_t fills = 0, reads = 0, bad = 0;
  for (const MemReq& m : r.mem.log) fills += m.addr == kL9 && m.cls == ReqClass::Fill;
  for (const Rec& x : r.drv.recs) {
    if (x.addr != kL9) continue;
    ++reads;
    if (x.t_resp < 0) ++bad;
    for (unsigned b = 0; b < kLineBytes; ++b) bad += x.data[b] != init_byte(kL9 + b);
  }
  CHECK(reads == 3 && bad == 0, "D: %zu reads of L_9, %zu bad bytes / missing responses", reads, bad);
  CHECK(fills == 1, "D: L_9 fetched %zu times (expected once: the later reads wait for the bypassed fill)", fills);
  CHECK(r.st("bypasses") == 1 && r.st("mshr_merges") >= 2, "D: bypasses %.0f, mshr merges %.0f", r.st("bypasses"),
        r.st("mshr_merges"));
  CHECK(r.bank.idle() && r.pool.live() == 0, "D: idle, no leak");
  std::printf("D: bypasses %.0f merges %.0f fills of L_9 %zu\n", r.st("bypasses"), r.st("mshr_merges"), fills);
}
void check_dirty(Rig& r, bool dirty) {
  const char* tag = dirty ? "dirty" : "clean";
  size_t bad = 0;
  for (const Rec& x : r.drv.recs) {
    if (x.t_resp < 0) ++bad;
    if (x.write || x.t_resp < 0) continue;
    for (unsigned b = 0; b < kLineBytes; ++b) {
      if (!((x.mask >> (b / 32)) & 1u)) continue;
      const bool written = dirty && x.addr == kX && &x != &r.drv.recs[0] && b < 32;  // reads after the write hit
      const unsigned char e = written ? g_pat[b] : init_byte(x.addr + b);
      if (x.data[b] != e && ++bad <= 2)
        std::printf("  A %s: record %td line %llx byte %u: %02x expected %02x\n", tag, &x - &r.drv.recs[0],
                    (unsigned long long)x.addr, b, x.data[b], e);
    }
  }
  CHECK(bad == 0, "%s: %zu bad bytes / missing responses", tag, bad);
  size_t x_fills = 0;
  for (const MemReq& m : r.mem.log) x_fills += m.addr == kX && m.cls == ReqClass::Fill;
  if (dirty) {
    CHECK(r.st("bypasses") == 3 && r.st("hits") == 23, "dirty: bypasses %.0f hits %.0f", r.st("bypasses"),
          r.st("hits"));
    CHECK(x_fills == 2, "dirty: X evicted after 3 bypasses and refetched (fills of X %zu)", x_fills);
    CHECK(r.st("writebacks.nvm") == 1, "dirty: X written back once (%.0f)", r.st("writebacks.nvm"));
  } else {
    CHECK(r.st("bypasses") == 0, "clean: bypasses %.0f", r.st("bypasses"));
    CHECK(x_fills == 2, "clean: X evicted and refetched (fills %zu)", x_fills);
  }
  CHECK(r.bank.idle() && r.pool.live() == 0, "%s: idle, no leak", tag);
  std::printf("A %s: hits %.0f misses %.0f bypasses %.0f nvm misses %.0f\n", tag, r.st("hits"), r.st("misses"),
              r.st("bypasses"), r.st("misses.nvm"));
}

// ---------------------------------------------------------------- B and C
// 4 sets x 8 ways (4 KiB). Line k (0 <= k < lines) is NVM when (k / 16) is odd and
// then lives in the NVM window; either way it maps to set k % 4. B: 32 lines = 8
// per set (fits), C: 96 lines (3x the capacity).
uint64_t line_addr(unsigned k) { return ((k / 16) % 2 ? kNvmBase : 0) + uint64_t(k) * 128; }

void random_traffic(Driver& d, unsigned lines, unsigned count, unsigned seed) {
  std::mt19937 rng(seed);
  unsigned char buf[128];
  for (unsigned i = 0; i < count; ++i) {
    const uint64_t line = line_addr(rng() % lines);
    const uint8_t ea = static_cast<uint8_t>(rng() % 33);  // 0 = unknown
    if (rng() % 100 < 40) {
      unsigned off, len;
      switch (rng() % 3) {
        case 0: off = 0; len = 128; break;
        case 1: off = (rng() % 4) * 32; len = 32; break;
        default: off = rng() % 128; len = 1 + rng() % (128 - off); break;
      }
      for (unsigned b = 0; b < len; ++b) buf[off + b] = static_cast<unsigned char>(rng());
      if (!d.ref.empty()) std::memcpy(&d.ref[line + off], buf + off, len);
      d.write(line, off, len, buf + off, ea);
    } else {
      const int id = d.read(line, static_cast<uint8_t>(rng() % 15 + 1), ea);
      if (!d.ref.empty()) std::memcpy(d.recs[id].expect, &d.ref[line], 128);
    }
    if (rng() % 6 == 0) d.wait_ns(rng() % 40);
  }
}

bool reads_match(const Rig& r, size_t* bad_out) {  // every read equals its expected bytes
  size_t bad = 0;
  for (const Rec& x : r.drv.recs) {
    if (x.t_resp < 0) { ++bad; continue; }
    if (x.write) continue;
    for (unsigned s = 0; s < 4; ++s)
      if (((x.mask >> s) & 1u) && std::memcmp(x.data + s * 32, x.expect + s * 32, 32) != 0) ++bad;
  }
  *bad_out = bad;
  return bad == 0;
}

}  // namespace

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
  char err[160];
  if (amap_init(&g_map, "off:32 col:4 col:16 ba:4 row", 1, 1, 1, 4, 2048, 1, 0, err, sizeof err) != 0 ||
      amap_add_region(&g_map, kNvmBase, kNvmSize, AMAP_MEM_NVM) != 0) {
    std::printf("amap: %s\n", err);
    return 1;
  }

  // A
  Rig a_dirty("a_dirty", cfg_for("hac", 1024, 8), &g_map), a_clean("a_clean", cfg_for("hac", 1024, 8), &g_map);
  a_dirty.drv.script = [](Driver& d) { scenario_dirty(d, true); };
  a_clean.drv.script = [](Driver& d) { scenario_dirty(d, false); };
  Rig d_merge("d_merge", cfg_for("hac", 1024, 8), &g_map);
  d_merge.drv.script = [](Driver& d) { scenario_merge(d); };

  // B: no evictions
  std::vector<std::unique_ptr<Rig>> b, c;
  for (const char* p : kPolicies) {
    b.emplace_back(new Rig(std::string("b_") + p, cfg_for(p, 4096, 8), &g_map));
    b.back()->drv.script = [](Driver& d) { random_traffic(d, 32, 1500, 77); };
  }
  // C: evictions, every rig checked against its own reference image
  for (const char* p : kPolicies) {
    c.emplace_back(new Rig(std::string("c_") + p, cfg_for(p, 4096, 8), &g_map));
    Rig& r = *c.back();
    r.mem.jitter_ns = 60;
    r.mem.backpressure = true;
    r.drv.slow_end_resp = true;
    r.drv.ref.resize(256 * 1024);
    for (size_t i = 0; i < r.drv.ref.size(); ++i) r.drv.ref[i] = init_byte(i);
    r.drv.script = [](Driver& d) { random_traffic(d, 96, 5000, 2024); };
  }
  sc_start();

  check_dirty(a_dirty, true);
  check_dirty(a_clean, false);
  check_merge(d_merge);

  // B: everything equal to lru's run
  const Rig& b0 = *b[0];
  for (size_t i = 1; i < b.size(); ++i) {
    const Rig& r = *b[i];
    size_t diff = 0;
    for (size_t k = 0; k < b0.drv.recs.size() && k < r.drv.recs.size(); ++k)
      diff += b0.drv.recs[k].t_resp != r.drv.recs[k].t_resp ||
              (!r.drv.recs[k].write && std::memcmp(b0.drv.recs[k].data, r.drv.recs[k].data, kLineBytes) != 0);
    CHECK(diff == 0 && b0.drv.recs.size() == r.drv.recs.size(), "B %s: %zu responses differ from lru", r.policy.c_str(),
          diff);
    size_t sdiff = 0, n = 0;
    for (const auto& e : b0.stats.entries()) {
      if (e.name.rfind("l2.bank0.", 0) != 0) continue;
      ++n;
      if (e.value() != r.stats.get(e.name)) {
        ++sdiff;
        std::printf("  B %s: %s %.0f vs lru %.0f\n", r.policy.c_str(), e.name.c_str(), r.stats.get(e.name), e.value());
      }
    }
    CHECK(sdiff == 0 && n >= 20, "B %s: %zu of %zu bank stats differ from lru", r.policy.c_str(), sdiff, n);
  }
  CHECK(b0.st("misses") > 0 && b0.st("hits") > 1000 && b0.st("accesses.nvm") > 0 && b0.st("accesses.dram") > 0,
        "B exercises hits, misses, NVM and DRAM lines");
  CHECK(b0.st("writebacks.dram") + b0.st("writebacks.nvm") == 0, "B: no evictions");

  // C: correct data under every policy; policy-independent counts equal
  for (size_t i = 0; i < c.size(); ++i) {
    Rig& r = *c[i];
    size_t bad = 0;
    CHECK(reads_match(r, &bad), "C %s: %zu bad reads", r.policy.c_str(), bad);
    tlm_generic_payload gp;
    std::vector<uint8_t> all(r.drv.ref.size());
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0);
    gp.set_data_ptr(all.data());
    gp.set_data_length(static_cast<unsigned>(all.size()));
    r.bank.tsock.get_base_export()->transport_dbg(gp);
    CHECK(all == r.drv.ref, "C %s: final memory+cache image equals the reference", r.policy.c_str());
    CHECK(r.st("hits") + r.st("misses") == r.st("accesses"), "C %s: hits+misses", r.policy.c_str());
    CHECK(r.st("accesses.dram") + r.st("accesses.nvm") == r.st("accesses"), "C %s: by type", r.policy.c_str());
    CHECK(r.st("misses.dram") + r.st("misses.nvm") == r.st("misses"), "C %s: misses by type", r.policy.c_str());
    for (const char* s : {"accesses", "reads", "writes", "accesses.nvm"})
      CHECK(r.st(s) == c[0]->st(s), "C %s: %s %.0f vs lru %.0f", r.policy.c_str(), s, r.st(s), c[0]->st(s));
    const bool is_hac = r.policy == "hac" || r.policy == "hac_literal";
    CHECK(is_hac ? r.st("bypasses") > 0 : r.st("bypasses") == 0, "C %s: bypasses %.0f", r.policy.c_str(),
          r.st("bypasses"));
    CHECK(r.st("writebacks.nvm") > 0 && r.st("writebacks.dram") > 0, "C %s: both kinds of writebacks",
          r.policy.c_str());
    CHECK(r.bank.idle() && r.pool.live() == 0, "C %s: idle, no leak", r.policy.c_str());
    std::printf("C %-10s hits %5.0f misses %5.0f (nvm %4.0f) bypasses %4.0f writebacks dram %4.0f nvm %4.0f\n",
                r.policy.c_str(), r.st("hits"), r.st("misses"), r.st("misses.nvm"), r.st("bypasses"),
                r.st("writebacks.dram"), r.st("writebacks.nvm"));
  }
  return report();
}
