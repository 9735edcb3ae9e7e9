#include "platform/module_cfg.h"

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

L2Cfg l2_cfg(const Config& C) {
  L2Cfg l2;
  l2.clk.mhz = C.f("l2.clock_mhz");
  l2.banks = static_cast<unsigned>(C.i("l2.banks"));
  l2.size_bytes = C.size("l2.size");
  l2.assoc = static_cast<unsigned>(C.i("l2.assoc"));
  l2.latency = static_cast<unsigned>(C.i("l2.latency"));
  l2.mshrs = static_cast<unsigned>(C.i("l2.mshrs"));
  l2.bytes_per_cycle = static_cast<unsigned>(C.i("l2.bytes_per_cycle"));
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
