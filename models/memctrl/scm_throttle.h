// ScmThrottle: SCM power throttling of the memory stacks (HMS,
// hms-dram-cache-over-scm.txt Sec. III-E), the SystemC side of the C
// decision models/ref/mem/scmthr.h. Channels are grouped into stacks of
// `stack_channels` consecutive channels; at the end of every window (one
// event per window, no polling in between) each stack's SCM power over the
// window -- the energy model's energy of its SCM ranks (MemCtrl::rank_energy)
// -- decides whether its SCM ranks run the next window with tRCD and/or tWR
// multiplied (MemCtrl::scale_rank_timing, the runtime timing hook) or at
// their preset's timing. Every change is reported to `on_change` (the
// platform passes it to the memory-side policy, e.g. the DRAM cache's bypass
// numerators, memside_ops.timing_changed).
//
// Stats: scm.throttled_seconds (mean over stacks; with one stack, the time it
// was throttled), scm.throttled_fraction, scm.throttle_engagements,
// scm.throttle_windows, scm.peak_window_power_w, per stack
// scm.stack<K>.throttled_seconds, per channel mem.ch<N>.scm_throttled_seconds.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include "common/sched.h"
#include "common/stats.h"
#include "memctrl/mem_ctrl.h"

extern "C" {
#include "mem/scmthr.h"
}

namespace strata {

class ScmThrottle : public sc_core::sc_module {
 public:
  // (channel, rank, its timing now in force)
  using Changed = std::function<void(unsigned, unsigned, const dram_timing&)>;

  // cfg: threshold, window and multipliers (scmthr_cfg); stack_channels: a
  // divisor of mcs.size(). Bad parameters (or no SCM rank in a stack) throw
  // std::invalid_argument with a one-line reason.
  ScmThrottle(sc_core::sc_module_name name, const scmthr_cfg& cfg, unsigned stack_channels,
              std::vector<MemCtrl*> mcs, StatsRegistry& stats, Changed on_change);

  void start();  // arm the first window (before or at the start of the simulation)
  void stop();   // no further windows (the workload has finished)
  bool throttled(unsigned stack) const { return st_[stack].throttled != 0; }
  unsigned stacks() const { return static_cast<unsigned>(st_.size()); }
  const scmthr& state(unsigned stack) const { return st_[stack]; }

 private:
  void tick();
  double scm_energy(unsigned stack);
  uint64_t now_ps() const;

  std::vector<MemCtrl*> mcs_;
  unsigned per_;
  std::vector<scmthr> st_;                      // per stack
  std::vector<std::vector<unsigned>> scm_ranks_;  // per channel: its non-DRAM ranks
  Changed on_change_;
  sc_core::sc_time window_;
  Event ev_;
  bool stopped_ = false;
};

}  // namespace strata
