// Module test of the memory-side shell (models/memside/mem_side.h) hosting the HMS DRAM cache (policy
// dcache without bypass or tag cache: HMS-B-C, models/ref/memside/memside_dcache.c) over a MemCtrl with a DRAM
// rank (hbm2, rank 0) and an SCM rank (scm_mlc, rank 1), one channel, refresh off, open page. The
// commands the controller issues for one L2 read miss follow the flow of HMS Sec. III-F:
//  1. the probe: ACT + RD of the DRAM row's metadata column (AMIL: column 63) on rank 0;
//  2. once its data is back (>= CL + BL/2 after that RD), the demand: ACT on rank 1, RD tRCD,SCM = 120
//     cycles later (its 4 sectors: 4 RDs of the same SCM row);
//  3. the fill: 8 RDs of the 256 B line on rank 1 (row hits), then 8 WRs of the line into the DRAM row
//     and 1 WR of its metadata column (rank 0);
// and the L2 read is answered no earlier than probe + SCM read (hand-computed from the presets). A
// second read of the same line, sent after the fill, is a DRAM-cache hit: a probe, then 4 RDs on rank 0
// (row hits: the probe left the row open) and no SCM command. The bytes returned are the line's initial
// bytes both times (set up through the shell's back door).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"
#include "memside/mem_side.h"
#include "tlm_harness.h"

using namespace strata;
using strata_test::TestInitiator;
using tlm::tlm_generic_payload;

namespace {

struct Cmd {
  uint64_t cycle;
  mc_cmd cmd;
  uint32_t rank, col;
};

void on_cmd(void* ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t, uint32_t, uint64_t, uint32_t col) {
  static_cast<std::vector<Cmd>*>(ctx)->push_back({cycle, cmd, rank, col});
}

struct Reader : TestInitiator<Reader> {
  Reader(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<Reader>(n, p) {}
  std::vector<double> sent_ns, resp_ns;
  std::vector<std::vector<unsigned char>> data;
  void run() {
    for (int k = 0; k < 2; ++k) {
      if (k) wait(sc_core::sc_time(5, sc_core::SC_US));  // the fill is done by then
      tlm_generic_payload* gp = pool.alloc();
      gp->set_command(tlm::TLM_READ_COMMAND);
      gp->set_address(0);  // physical line 0: SCM block 0, DRAM-cache slot 0
      GpuExt& e = GpuExt::get(*gp);
      e.sector_mask = 0xf;
      e.cls = ReqClass::Demand;
      sent_ns.push_back(strata_test::now_ns());
      begin_req(*gp);
    }
  }
  double on_response(tlm_generic_payload& gp) {
    resp_ns.push_back(strata_test::now_ns());
    data.emplace_back(gp.get_data_ptr(), gp.get_data_ptr() + kLineBytes);
    return -1;
  }
};

}  // namespace

int sc_main(int, char*[]) {
  bstore mem;
  bstore_init(&mem);
  PayloadPool pool;
  StatsRegistry stats;
  McCfg c = mc_test_setup_dram_scm();
  const dram_preset* const* devs = c.engine.rank_devs;
  c.engine.refresh = 0;
  MemCtrl mc("mc", 0, c, &mem, pool, stats);
  std::vector<Cmd> log;
  mc.set_cmd_log(on_cmd, &log);

  // One channel: the SCM part (rank 1) is the program's memory, the DRAM part (rank 0) the cache.
  amap map;
  static const uint32_t ch[1] = {0}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg parts[2] = {{AMAP_MEM_SCM, 1ull << 30, 1, 1, ch, r1}, {AMAP_MEM_DRAM, 1ull << 28, 1, 1, ch, r0}};
  char err[256];
  if (amap_init_parts(&map, parts, 2, 0, NULL, 1, 2, 4, 4, 2048, 32, 2, 0, err, sizeof err) != 0) {
    std::printf("FAIL amap: %s\n", err);
    return 1;
  }
  memside_cfg m{};
  m.map = &map;
  m.ndevs = 1;
  if (devaddr_init(&m.geom[0], 2, 4, 4, 64, 32, err, sizeof err) != 0) return 1;
  m.rank_kind[0][0] = AMAP_MEM_DRAM;
  m.rank_kind[0][1] = AMAP_MEM_SCM;
  // The DRAM-cache family's parameters (memside_dcache_params.c): defaults, a 32 KiB cache, 4 MSHRs.
  const memside_params* fam = memside_find("dcache")->params;
  std::vector<memside_value> par(fam->count);
  if (memside_param_defaults(fam, par.data()) != -1) return 1;
  par[memside_param_index(fam, "size")].i = 16 * 2048;
  par[memside_param_index(fam, "mshrs")].i = 4;
  m.param = par.data();
  MemSide side("side", memside_find("dcache"), m, 1, pool, stats);
  side.connect(mc.tsock, &mem);
  Reader rd("rd", pool);
  rd.isock.bind(side.tsock);
  unsigned char init[256];
  for (unsigned i = 0; i < sizeof init; ++i) init[i] = strata_test::init_byte(i);
  side.write_functional(0, init, sizeof init);

  sc_core::sc_start();

  const dram_timing &d = devs[0]->t, &s = devs[1]->t;
  const double ns_per_cycle = 1e3 / devs[0]->clk_mhz;
  CHECK(rd.resp_ns.size() == 2, "responses: %zu", rd.resp_ns.size());
  for (const auto& v : rd.data) CHECK(std::memcmp(v.data(), init, kLineBytes) == 0, "line 0's bytes");

  // The first read: probe, demand on SCM, fill.
  size_t i = 0;
  auto next = [&](mc_cmd want, uint32_t rank) -> const Cmd* {
    while (i < log.size() && !(log[i].cmd == want && log[i].rank == rank)) ++i;
    return i < log.size() ? &log[i++] : nullptr;
  };
  const Cmd* pact = next(MC_CMD_ACT, 0);
  const Cmd* prd = next(MC_CMD_RD, 0);
  CHECK(pact && prd && prd->col == 63 && prd->cycle - pact->cycle == d.RCD,
        "probe: ACT then RD of column 63 tRCD later on the DRAM rank");
  const Cmd* sact = next(MC_CMD_ACT, 1);
  CHECK(pact && prd && sact && sact->cycle >= prd->cycle + d.CL + d.BURST,
        "the demand goes to SCM once the probe's data is back (ACT %llu, probe RD %llu, CL %u, burst %u)",
        sact ? static_cast<unsigned long long>(sact->cycle) : 0ull,
        prd ? static_cast<unsigned long long>(prd->cycle) : 0ull, d.CL, d.BURST);
  const Cmd* srd = next(MC_CMD_RD, 1);
  CHECK(sact && srd && srd->cycle - sact->cycle == s.RCD, "SCM RD %u cycles after its ACT, expected tRCD %u",
        (sact && srd) ? static_cast<unsigned>(srd->cycle - sact->cycle) : 0u, s.RCD);
  unsigned scm_rd = 0, dram_wr = 0, meta_wr = 0, scm_any_late = 0;
  for (const Cmd& x : log) {
    if (x.rank == 1 && x.cmd == MC_CMD_RD) ++scm_rd;
    if (x.rank == 0 && x.cmd == MC_CMD_WR) (x.col == 63 ? meta_wr : dram_wr) += 1;
    if (x.rank == 1 && x.cycle * ns_per_cycle > rd.sent_ns.back()) ++scm_any_late;
  }
  CHECK(scm_rd == 4 + 8, "SCM column reads: %u, expected 4 (demand) + 8 (the 256 B fill)", scm_rd);
  CHECK(dram_wr == 8 && meta_wr == 1, "DRAM writes: %u line columns (8) and %u metadata column (1)", dram_wr, meta_wr);
  // Hand-computed floor of the first answer: probe ACT->RD->data on DRAM, then ACT->RD->data on SCM.
  const double floor_ns = (d.RCD + d.CL + d.BURST + s.RCD + s.CL + s.BURST) * ns_per_cycle;
  CHECK(rd.resp_ns.size() == 2 && rd.resp_ns[0] - rd.sent_ns[0] >= floor_ns,
        "first read answered after %.1f ns, at least %.1f expected", rd.resp_ns.empty() ? 0 : rd.resp_ns[0] - rd.sent_ns[0],
        floor_ns);
  // The second read: a DRAM-cache hit, no SCM command after it was sent.
  CHECK(scm_any_late == 0, "SCM commands after the second read: %u (a hit)", scm_any_late);
  CHECK(stats.get("memside.p0.dcache.read_hits") == 1 && stats.get("memside.p0.dcache.read_misses") == 1 && stats.get("memside.p0.dcache.fills") == 1 &&
            stats.get("memside.p0.dcache.probes") == 2,
        "read hits %g, misses %g, fills %g, probes %g", stats.get("memside.p0.dcache.read_hits"), stats.get("memside.p0.dcache.read_misses"),
        stats.get("memside.p0.dcache.fills"), stats.get("memside.p0.dcache.probes"));
  std::printf("first read %.1f ns (floor %.1f), second %.1f ns; %zu commands\n",
              rd.resp_ns.size() > 0 ? rd.resp_ns[0] - rd.sent_ns[0] : 0, floor_ns,
              rd.resp_ns.size() > 1 ? rd.resp_ns[1] - rd.sent_ns[1] : 0, log.size());
  bstore_free(&mem);
  return strata_test::report();
}
