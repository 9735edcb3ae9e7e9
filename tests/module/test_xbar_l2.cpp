// End-to-end module test of the SM -> Xbar -> L2Bank -> memory path as the
// platform binds it (to_l2[b] -> bank b, GpuExt::l2_bank from the address
// map): 4 SMs issue a seeded random mix of reads and (partial) writes; each SM
// owns its lines (so program order per SM defines the expected values), all SMs
// share the 4 banks and their sets, so evictions, merges, stalls and
// backpressure interleave. Every read is checked against a reference byte
// array; at the end the memory+L2 image read through the crossbar's debug
// path must equal the reference.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "l2/l2_bank.h"
#include "noc/xbar.h"
#include "platform/module_cfg.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

static constexpr unsigned kSms = 4, kBanks = 4, kLinesPerSm = 160;
static std::vector<uint8_t> g_mem(1 << 20), g_ref(1 << 20);

struct Rec {
  uint64_t line;
  uint8_t mask;
  bool write, done = false;
  unsigned char expect[kLineBytes];
};

struct Sm : TestInitiator<Sm> {
  unsigned id;
  const amap& map;
  unsigned count;
  std::vector<Rec> recs;
  uint64_t bad = 0, answered = 0;
  Sm(sc_module_name n, unsigned i, PayloadPool& p, const amap& m, unsigned cnt)
      : TestInitiator(n, p), id(i), map(m), count(cnt) {
    recs.reserve(cnt);
  }
  void run() {
    std::mt19937 rng(77 + id);
    for (unsigned i = 0; i < count; ++i) {
      const uint64_t line = (static_cast<uint64_t>(rng() % kLinesPerSm) * kSms + id) * kLineBytes;
      tlm_generic_payload* gp = pool.alloc();
      gp->set_address(line);
      GpuExt& e = GpuExt::get(*gp);
      e.l2_bank = amap_l2_bank(&map, line);
      e.sm_id = id;  // the issuing SM (the crossbar routes responses by the hop it pushed, not by this)
      e.tag = i;
      e.ea_count = static_cast<uint8_t>(1 + rng() % 32);
      recs.push_back(Rec{line, 0, false, false, {}});
      Rec& r = recs.back();
      if (rng() % 100 < 40) {
        gp->set_command(tlm::TLM_WRITE_COMMAND);
        unsigned off, len;
        if (rng() & 1) {
          off = (rng() % 4) * 32;
          len = 32 * (1 + rng() % (4 - off / 32));
        } else {
          off = rng() % 128;
          len = 1 + rng() % (128 - off);
        }
        for (unsigned b = off; b < off + len; ++b) {
          gp->get_data_ptr()[b] = static_cast<unsigned char>(rng());
          g_ref[line + b] = gp->get_data_ptr()[b];
        }
        e.set_bytes(off, len);
        r.write = true;
      } else {
        gp->set_command(tlm::TLM_READ_COMMAND);
        e.sector_mask = static_cast<uint8_t>(1 + rng() % 15);
        r.mask = e.sector_mask;
        std::memcpy(r.expect, &g_ref[line], kLineBytes);
      }
      begin_req(*gp);
      if (rng() % 4 == 0) wait(sc_time(rng() % 8, SC_NS));
    }
  }
  double on_response(tlm_generic_payload& gp) {
    GpuExt& e = GpuExt::get(gp);
    Rec& r = recs[e.tag];
    if (r.done || e.sm_id != id) ++bad;
    r.done = true;
    ++answered;
    if (!r.write)
      for (unsigned s = 0; s < kSectorsPerLine; ++s)
        if ((r.mask >> s) & 1u && std::memcmp(gp.get_data_ptr() + s * 32, r.expect + s * 32, 32) != 0) ++bad;
    return -1;
  }
};

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
  const unsigned count = getenv("XL2_N") ? static_cast<unsigned>(atoi(getenv("XL2_N"))) : 5000;
  for (size_t a = 0; a < g_mem.size(); ++a) g_mem[a] = g_ref[a] = init_byte(a);
  amap map;
  char err[160];
  if (amap_init(&map, "off:32 col:4 ch:4 col:16 ba:4 row", 4, 1, 1, 4, 2048, 1, 0, err, sizeof err) != 0) {
    std::printf("amap: %s\n", err);
    return 1;
  }
  PayloadPool pool;
  StatsRegistry stats;
  XbarCfg xc = xbar_cfg(default_config());  // schema defaults, then the test's own values
  xc.clk.mhz = 1400;
  xc.latency = 8;
  xc.bytes_per_cycle = 32;
  xc.queue = 4;
  L2Cfg lc = l2_cfg(default_config());
  lc.clk.mhz = 1400;
  lc.banks = kBanks;
  lc.size_bytes = kBanks * 8192;  // 64 lines per bank (16 sets x 4 ways); footprint 640 lines
  lc.assoc = 4;
  lc.latency = 20;
  lc.mshrs = 6;
  lc.bytes_per_cycle = 32;
  Xbar xbar("xbar", kSms, kBanks, xc, stats);
  std::vector<std::unique_ptr<Sm>> sms;
  std::vector<std::unique_ptr<L2Bank>> banks;
  std::vector<std::unique_ptr<LineMem>> mems;  // one channel per bank, fixed latency 40 ns + jitter 0..39 ns
  std::vector<L2Bank*> bp;
  for (unsigned i = 0; i < kSms; ++i) {
    sms.emplace_back(new Sm(("sm" + std::to_string(i)).c_str(), i, pool, map, count));
    sms.back()->isock.bind(xbar.from_sm);
  }
  struct Kinds : MemKindIf {  // the static map's kinds, as a memory side would tell them
    const amap* m;
    uint8_t kind_of(uint64_t line) const override { return static_cast<uint8_t>(amap_mem_type(m, line)); }
  } kinds;
  kinds.m = &map;
  for (unsigned b = 0; b < kBanks; ++b) {
    banks.emplace_back(new L2Bank(("l2_" + std::to_string(b)).c_str(), b, kBanks, lc, &kinds, pool, stats));
    mems.emplace_back(new LineMem(("mem" + std::to_string(b)).c_str(), g_mem, 5 + b));
    mems.back()->lat_ns = 40;
    mems.back()->jitter_ns = 39;
    xbar.to_l2.bind(banks.back()->tsock);
    banks.back()->isock.bind(mems.back()->tsock);
    bp.push_back(banks.back().get());
  }
  L2Bank::register_totals(stats, bp);

  const auto t0 = std::chrono::steady_clock::now();
  sc_start();
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  uint64_t bad = 0, answered = 0;
  for (auto& s : sms) {
    bad += s->bad;
    answered += s->answered;
  }
  CHECK(bad == 0, "%llu wrong/duplicate responses", (unsigned long long)bad);
  CHECK(answered == uint64_t(kSms) * count, "answered %llu", (unsigned long long)answered);
  // final image through the crossbar's debug path (L2 valid sectors over memory)
  size_t diff = 0;
  for (unsigned i = 0; i < kSms; ++i)
    for (uint64_t k = 0; k < kLinesPerSm; ++k) {
      const uint64_t line = (k * kSms + i) * kLineBytes;
      tlm_generic_payload* gp = pool.alloc();
      gp->set_address(line);
      gp->set_command(tlm::TLM_READ_COMMAND);
      GpuExt::get(*gp).l2_bank = amap_l2_bank(&map, line);
      sms[0]->isock->transport_dbg(*gp);
      diff += std::memcmp(gp->get_data_ptr(), &g_ref[line], kLineBytes) != 0;
      gp->release();
    }
  CHECK(diff == 0, "%zu lines differ from the reference", diff);
  for (auto& b : banks) CHECK(b->idle(), "bank %s idle", b->name());
  CHECK(xbar.idle(), "xbar idle");
  CHECK(pool.live() == 0, "payload leak %zu", pool.live());
  // every bank served traffic and hit/miss/writeback paths were all exercised
  for (unsigned b = 0; b < kBanks; ++b) CHECK(stats.get("l2.bank" + std::to_string(b) + ".accesses") > 0, "bank %u", b);
  CHECK(stats.get("l2.hits") > 0 && stats.get("l2.misses") > 0 && stats.get("l2.writebacks.dram") > 0, "paths");
  CHECK(stats.get("noc.req.packets") == answered && stats.get("noc.resp.packets") == answered, "noc packets");
  const double reqs = static_cast<double>(answered);
  std::printf("xbar+l2: %.0f requests, %.1f us simulated, host %.3f s (%.0f req/s), l2 hit rate %.3f, "
              "noc req delay %.2f cyc, resp delay %.2f cyc\n",
              reqs, sc_time_stamp().to_seconds() * 1e6, host, reqs / host, stats.get("l2.hit_rate"),
              stats.get("noc.req.avg_queue_delay"), stats.get("noc.resp.avg_queue_delay"));
  return report();
}
