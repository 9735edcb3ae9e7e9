#include "platform/module_cfg.h"

#include <cstdint>
#include <string>

extern "C" {
#include "mem/hostmem.h"
#include "mem/link.h"
}

namespace strata {

SmCfg sm_cfg(const Config& C) {
  SmCfg sm;
  sm.clk.mhz = C.f("gpu.core_clock_mhz");
  sm.max_warps = static_cast<unsigned>(C.i("sm.max_warps"));
  sm.max_ctas = static_cast<unsigned>(C.i("sm.max_ctas"));
  sm.issue_width = static_cast<unsigned>(C.i("sm.issue_width"));
  sm.sched = C.s("sm.scheduler") == "lrr" ? WarpSched::LooseRoundRobin : WarpSched::GreedyThenOldest;
  sm.alu_latency = static_cast<unsigned>(C.i("sm.alu_latency"));
  sm.sfu_latency = static_cast<unsigned>(C.i("sm.sfu_latency"));
  sm.shared_latency = static_cast<unsigned>(C.i("sm.shared_latency"));
  sm.ldst_per_cycle = static_cast<unsigned>(C.i("sm.ldst_per_cycle"));
  sm.max_atomics = static_cast<unsigned>(C.i("sm.max_atomics_per_warp"));
  return sm;
}

L1Cfg l1_cfg(const Config& C) {
  L1Cfg l1;
  l1.enabled = C.b("l1.enabled");
  l1.size_bytes = C.size("l1.size");
  l1.assoc = static_cast<unsigned>(C.i("l1.assoc"));
  l1.latency = static_cast<unsigned>(C.i("l1.latency"));
  l1.mshrs = static_cast<unsigned>(C.i("l1.mshrs"));
  l1.mshr_merge = static_cast<unsigned>(C.i("l1.mshr_merge"));
  l1.write_allocate = C.b("l1.write_allocate");
  return l1;
}

XbarCfg xbar_cfg(const Config& C) {
  XbarCfg xb;
  xb.clk.mhz = C.f("noc.clock_mhz");
  xb.latency = static_cast<unsigned>(C.i("noc.latency"));
  xb.bytes_per_cycle = static_cast<unsigned>(C.i("noc.bytes_per_cycle"));
  xb.queue = static_cast<unsigned>(C.i("noc.queue"));
  return xb;
}

bool host_path_cfg(const Config& C, HostPathCfg* out) {
  if (C.s("hostpath.link") == "none") return false;
  const link_preset* lp = link_find(C.s("hostpath.link").c_str());         // the schema checked both names
  const hostmem_preset* hp = hostmem_find(C.s("hostpath.device").c_str());
  const unsigned q = static_cast<unsigned>(C.i("hostpath.queue"));
  out->link = LinkCfg::from_preset(*lp, q);
  for (::link_cfg* d : {&out->link.req, &out->link.resp}) {  // the preset's fields a config may override
    if (C.has("hostpath.gbps")) d->bytes_per_s = static_cast<uint64_t>(C.f("hostpath.gbps") * 1e9 + 0.5);
    if (C.has("hostpath.latency_ns")) d->latency_ps = static_cast<uint64_t>(C.f("hostpath.latency_ns") * 1e3 + 0.5);
  }
  out->mem = HostMemCfg::from_preset(*hp, C.size("hostpath.size"), q);
  return true;
}

void add_host_device(const Config& C, memside_cfg* m) {
  if (m->ndevs >= MEMSIDE_MAX_DEVS)
    C.fail("hostpath.link", "expected memside.partition_channels below " + std::to_string(MEMSIDE_MAX_DEVS) +
                            " (a partition's channels and the host device), got " + std::to_string(m->ndevs));
  const uint32_t h = m->ndevs++;
  m->dev_channel[h] = UINT32_MAX;
  m->geom[h] = devaddr_geom{};
  m->dev_bytes[h] = C.size("hostpath.size");
  for (unsigned r = 0; r < AMAP_MAX_RANKS; ++r) {
    m->rank_kind[h][r] = AMAP_MEM_HOST;
    m->rank_tech[h][r] = 0;  // DRAM_TID_NONE: no DRAM technology
    m->rank_trcd[h][r] = m->rank_twr[h][r] = 0;
    m->rank_gate_idle[h][r] = m->rank_twake[h][r] = 0;
  }
}

L2Cfg l2_cfg(const Config& C) {
  L2Cfg l2;
  l2.clk.mhz = C.f("l2.clock_mhz");
  l2.banks = static_cast<unsigned>(C.i("l2.banks"));
  l2.size_bytes = C.size("l2.size");
  l2.assoc = static_cast<unsigned>(C.i("l2.assoc"));
  l2.latency = static_cast<unsigned>(C.i("l2.latency"));
  l2.mshrs = static_cast<unsigned>(C.i("l2.mshrs"));
  l2.bytes_per_cycle = static_cast<unsigned>(C.i("l2.bytes_per_cycle"));
  l2.atomic_latency = static_cast<unsigned>(C.i("l2.atomic_latency"));
  l2.policy = C.s("l2.policy");
  return l2;
}

const Config& default_config() {
  static const Config c = [] {
    Config d;
    d.load("", {});
    return d;
  }();
  return c;
}

}  // namespace strata
