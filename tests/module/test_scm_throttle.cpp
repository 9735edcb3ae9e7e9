// Module test of strata::ScmThrottle (models/memctrl/scm_throttle.h, HMS Sec. III-E) on a MemCtrl with a
// DRAM rank (hbm2) and an SCM rank (scm_mlc: tRCD 120, tWR 1000, CWL 8, tBURST 1; background 40 mW
// precharge standby, 48 mW active standby, 20 mW power-down, 4.3 nJ per dirty precharge):
//  - writes to one 32 B column of a new row in each of the SCM rank's 16 banks, round after round, sent
//    until 4 us (the write queue then drains; closed page: every write PRE + ACT + WR + PRE (dirty)),
//    so the rank is active for several microseconds;
//  - then nothing: its banks are closed and it enters power-down (pd_idle 50 cycles).
// Threshold 30 mW, window 1 us: the first window (about 62 mW) throttles the SCM rank at 1 us: tRCD x2
// and tWR x2 from then on (every ACT -> WR on the SCM rank at least 240 cycles, some exactly; every WR ->
// dirty PRE at least CWL + tBURST + 2000, some exactly), none before (some ACT -> WR exactly 120, WR ->
// PRE exactly 1009); the DRAM rank keeps its timing; the first whole window in power-down (20 mW) lifts
// it. The callback hears (rank 1, 240, 2000) at 1 us and (rank 1, 120, 1000) when lifted, nothing else;
// the built-in timing checker (scaled with the engine) sees no violation; scm.throttled_seconds is the
// time between the two exactly. A threshold above every window's power never throttles: the platform
// test integ_scm_throttle_high (a second run here would need a fresh simulation context).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"
#include "memctrl/scm_throttle.h"
#include "tlm_harness.h"

using namespace strata;
using strata_test::TestInitiator;

namespace {

devaddr_geom geom() {
  devaddr_geom g;
  char err[128];
  if (devaddr_init(&g, 2, 4, 4, 64, 32, err, sizeof err) != 0) std::abort();
  return g;
}

struct Writer : TestInitiator<Writer> {
  Writer(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<Writer>(n, p) {}
  unsigned sent = 0;
  void run() {
    const devaddr_geom g = geom();
    for (uint64_t row = 1; strata_test::now_ns() < 4000; ++row)
      for (unsigned b = 0; b < 16; ++b) {
        const devaddr_loc l{1, b % 4, b / 4, 0, row};
        tlm::tlm_generic_payload* gp = pool.alloc();
        gp->set_command(tlm::TLM_WRITE_COMMAND);
        gp->set_address(devaddr_encode(&g, &l));
        GpuExt::get(*gp).sector_mask = 1;
        begin_req(*gp);
        ++sent;
      }
  }
};

struct Log {  // the SCM rank's commands, per bank
  uint64_t act[16] = {}, wr[16] = {};
  bool wr_since_act[16] = {}, dirty[16] = {};
  std::vector<std::pair<uint64_t, uint64_t>> act_wr, wr_pre;  // (cycle of the first command, gap)
  unsigned dram_cmds = 0;
};

void on_cmd(void* ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t, uint32_t) {
  Log& L = *static_cast<Log*>(ctx);
  if (rank != 1) {
    ++L.dram_cmds;
    return;
  }
  const unsigned b = bg * 4 + bank;
  if (cmd == MC_CMD_ACT) {
    L.act[b] = cycle;
    L.wr_since_act[b] = false;
  } else if (cmd == MC_CMD_WR) {
    if (!L.wr_since_act[b]) L.act_wr.push_back({L.act[b], cycle - L.act[b]});
    L.wr_since_act[b] = L.dirty[b] = true;
    L.wr[b] = cycle;
  } else if (cmd == MC_CMD_PRE && L.dirty[b]) {
    L.wr_pre.push_back({L.wr[b], cycle - L.wr[b]});
    L.dirty[b] = false;
  }
}

struct Change {
  double at_ns;
  unsigned ch, rank, rcd, wr;
};

}  // namespace

int sc_main(int, char*[]) {
  bstore mem;
  bstore_init(&mem);
  PayloadPool pool;
  StatsRegistry stats;
  McCfg c = mc_test_setup_dram_scm();
  const dram_preset* const* devs = c.engine.rank_devs;
  c.engine.pd_idle = 50;
  c.engine.open_page = 0;  // closed page: an idle rank has every bank closed and can power down
  MemCtrl mc("mc", 0, c, &mem, pool, stats);
  Log log;
  mc.set_cmd_log(on_cmd, &log);
  Writer w("w", pool);
  w.isock.bind(mc.tsock);

  std::vector<Change> changes;
  scmthr_cfg tc{};
  tc.threshold_w = 0.030;
  tc.window_ps = 1000000;  // 1 us
  tc.rcd_mult = 2;
  tc.wr_mult = 2;
  ScmThrottle thr("thr", tc, 1, {&mc}, stats, [&](unsigned ch, unsigned r, const dram_timing& t) {
    changes.push_back({strata_test::now_ns(), ch, r, t.RCD, t.WR});
  });
  thr.start();
  sc_core::sc_start(sc_core::sc_time(40, sc_core::SC_US));
  thr.stop();
  sc_core::sc_start();  // drain

  const dram_timing& scm = devs[1]->t;
  CHECK(w.sent > 48, "writes sent: %u", w.sent);
  CHECK(changes.size() == 2, "timing changes: %zu", changes.size());
  double lifted_ns = 0;
  if (changes.size() == 2) {
    const Change &a = changes[0], &b = changes[1];
    CHECK(a.at_ns == 1000 && a.ch == 0 && a.rank == 1 && a.rcd == 2 * scm.RCD && a.wr == 2 * scm.WR,
          "throttled at %.0f ns: ch %u rank %u tRCD %u tWR %u", a.at_ns, a.ch, a.rank, a.rcd, a.wr);
    CHECK(b.rank == 1 && b.rcd == scm.RCD && b.wr == scm.WR && b.at_ns > 4000 && b.at_ns <= 40000 &&
              static_cast<uint64_t>(b.at_ns) % 1000 == 0,
          "lifted at %.0f ns: rank %u tRCD %u tWR %u", b.at_ns, b.rank, b.rcd, b.wr);
    lifted_ns = b.at_ns;
  }
  CHECK(thr.state(0).engagements == 1 && !thr.throttled(0), "engagements %llu, throttled at the end %d",
        static_cast<unsigned long long>(thr.state(0).engagements), thr.throttled(0));
  CHECK(mc.rank_timing(0).RCD == devs[0]->t.RCD && mc.rank_timing(0).WR == devs[0]->t.WR, "DRAM rank's timing changed");
  CHECK(mc.rank_timing(1).RCD == scm.RCD && mc.rank_timing(1).WR == scm.WR, "SCM rank not back to its preset");

  // Gaps on the SCM rank: before 1 us the preset's, while throttled the doubled, after the preset's again.
  uint64_t min_before[2] = {UINT64_MAX, UINT64_MAX}, min_during[2] = {UINT64_MAX, UINT64_MAX};
  unsigned n_during[2] = {0, 0};
  const uint64_t lifted = static_cast<uint64_t>(lifted_ns);
  for (int k = 0; k < 2; ++k)
    for (const auto& [at, gap] : k ? log.wr_pre : log.act_wr) {
      if (at < 1000) min_before[k] = std::min(min_before[k], gap);
      else if (at < lifted) min_during[k] = std::min(min_during[k], gap), ++n_during[k];
    }
  CHECK(min_before[0] == scm.RCD, "ACT -> WR before throttling: min %llu, expected %u",
        static_cast<unsigned long long>(min_before[0]), scm.RCD);
  CHECK(n_during[0] > 10 && min_during[0] == 2 * scm.RCD, "ACT -> WR throttled: %u, min %llu, expected %u", n_during[0],
        static_cast<unsigned long long>(min_during[0]), 2 * scm.RCD);
  CHECK(min_before[1] == scm.CWL + scm.BURST + scm.WR, "WR -> PRE before throttling: min %llu, expected %u",
        static_cast<unsigned long long>(min_before[1]), scm.CWL + scm.BURST + scm.WR);
  CHECK(n_during[1] > 10 && min_during[1] == scm.CWL + scm.BURST + 2 * scm.WR,
        "WR -> PRE throttled: %u, min %llu, expected %u", n_during[1], static_cast<unsigned long long>(min_during[1]),
        scm.CWL + scm.BURST + 2 * scm.WR);
  CHECK(mc.timing_checker() && mc.timing_checker()->checked > 0, "timing checker did not run");
  const double secs = stats.get("scm.throttled_seconds"), want = (lifted_ns - 1000) * 1e-9;
  CHECK(std::fabs(secs - want) < 1e-15, "scm.throttled_seconds %.12g, expected %.12g", secs, want);
  CHECK(stats.get("mem.ch0.scm_throttled_seconds") == secs, "per-channel throttled time");
  CHECK(stats.get("scm.throttle_engagements") == 1, "scm.throttle_engagements %g", stats.get("scm.throttle_engagements"));
  std::printf("writes %u, throttled 1000 .. %.0f ns, ACT->WR %llu/%llu, WR->PRE %llu/%llu cycles\n", w.sent, lifted_ns,
              static_cast<unsigned long long>(min_before[0]), static_cast<unsigned long long>(min_during[0]),
              static_cast<unsigned long long>(min_before[1]), static_cast<unsigned long long>(min_during[1]));
  bstore_free(&mem);
  return strata_test::report();
}
