// Strata GPU: num_sms SMs (models/sm/sm.h) and the CTA dispatcher running one
// Program's kernels back to back from t = 0. A kernel ends when all its CTAs
// finished (every warp exited with its loads returned) and every store was
// acknowledged by the L2; the L1s are then invalidated and the next kernel
// starts on the following core cycle. CTAs go round robin to SMs with a free
// CTA slot and enough free warp slots. When the program has no further kernel,
// the GPU records gpu.cycles and calls sc_core::sc_stop().
//
// The golden store is the functional memory the kernels' generators read and
// write (the Program must have been init()ed with it); with `check` on, every
// returned load is compared against it (models/common/check.h). Global atomics
// are performed by the L2 banks; the GPU observes each (AtomicObserver, set on
// the banks by the platform) and performs it on the golden memory in the same
// order, checking with `check` on that the bank read the golden old value.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "common/cfg.h"
#include "common/check.h"
#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"
#include "common/program_if.h"
#include "sm/sm.h"

namespace strata {

class Gpu : public sc_core::sc_module, public SmHost, public AtomicObserver {
 public:
  SC_HAS_PROCESS(Gpu);
  Gpu(sc_core::sc_module_name name, unsigned num_sms, const SmCfg& sm, const L1Cfg& l1, const amap* map,
      PayloadPool& pool, bstore* golden, bool check, StatsRegistry& stats);
  ~Gpu() override;

  Sm& sm(unsigned i) { return *sms_.at(i); }
  unsigned num_sms() const { return static_cast<unsigned>(sms_.size()); }
  void load(ProgramIf* prog);  // before sc_start; not owned
  bool finished() const { return finished_; }
  // Set when a kernel's CTA cannot fit an SM (more warps than sm.max_warps):
  // the launch is refused, the simulation stops, and the caller reports it as
  // bad input naming the key (platform/platform.cpp). Empty otherwise.
  const std::string& launch_error() const { return launch_error_; }
  // Called once when the last kernel has ended (the platform stops its sampler).
  void on_finished(std::function<void()> f) { on_finished_ = std::move(f); }
  // Called at every kernel boundary: launch kernel_index (from 0, empty
  // launches included) has ended, and the next launch starts in this same
  // call of the kernel process, before its first CTA is dispatched (last =
  // false), or the program is done (last = true, before on_finished). The
  // platform passes it to every memory partition (MemSide::kernel_boundary).
  void on_kernel_boundary(std::function<void(uint32_t kernel_index, bool last)> f) {
    on_kernel_boundary_ = std::move(f);
  }
  // Kernel sampling: f tells whether nothing is in flight below the SMs (L2 banks, memory side, controllers);
  // the GPU asks it, every kIdlePollCycles core cycles, before a launch the program runs functionally
  // (ProgramIf::wants_idle_memory). Only at launch boundaries: no poll in the request path.
  void set_memory_idle(std::function<bool()> f) { memory_idle_ = std::move(f); }
  static constexpr uint64_t kIdlePollCycles = 64;
  uint64_t idle_wait_cycles() const { return idle_wait_cycles_; }  // core cycles spent waiting for it
  uint64_t instructions() const;  // thread instructions so far (cumulative)
  uint64_t warp_instructions() const;  // warp instructions so far (cumulative)
  uint64_t mem_requests() const;  // L1 -> L2 requests so far (cumulative)
  // An L2 bank performed an atomic lane: the same operation on the golden memory.
  void performed(unsigned bank, uint64_t addr, gpu_atom_op op, gpu_atom_type type, uint64_t a, uint64_t b,
                 uint64_t old, uint64_t now_ps) override;
  // Fraction of the program done, 0..1: in warp instructions where the program
  // estimates them per kernel (ProgramIf::kernel_warp_insts), else in kernels
  // and the CTAs of the running one.
  double progress() const;
  // Kernels launched so far (the running one included) and the program's estimate of all.
  uint64_t kernels_launched() const { return launched_; }
  unsigned kernels_expected() const;
  uint64_t cycles() const { return cycles_; }
  // gpu.cycles as a cumulative reading: cycles_ at the end of a run (finished or
  // stopped_early), the core cycles so far in the middle of one (a window's mark).
  uint64_t cycles_so_far() const { return finished_ || stopped_ ? cycles_ : std::max(cycles_, now_cycle()); }
  // Call f once when the SMs have issued n warp instructions in all (n >= 1),
  // from inside the issuing SM's cycle (models/sm/sm.h SmHost::on_inst_mark);
  // f may arm the next mark. The platform's measurement windows use it.
  void at_warp_instructions(uint64_t n, std::function<void()> f) {
    inst_mark = n;
    on_mark_ = std::move(f);
  }
  // The run stops before the program finished (time limit, interrupt): gpu.cycles
  // becomes the core cycles simulated so far, so that gpu.ipc covers them.
  void stopped_early() {
    if (finished_ || stopped_) return;  // idempotent: the instruction limit calls it at its instruction
    stopped_ = true;
    cycles_ = std::max<uint64_t>(cycles_, now_cycle());
    if (kernel_) close_kernel_record(cycles_);
  }
  uint64_t kernels() const { return kernels_; }
  // Per-kernel stats kernel.<n>.<name>.{ctas,cycles,instructions,warp_instructions,
  // ipc,mem_requests,l1_accesses,l1_misses}: n counts launches from 1, name is
  // the kernel's (characters other than letters, digits and '_' become '_').
  // Each sums over the kernels to the GPU's total (gpu.cycles, gpu.instructions,
  // ...); after stopped_early() the running kernel counts with what it did.
  // Call once, after the simulation. With a measurement window (window_start)
  // they cover the window: launches that ended before it are left out, the one
  // running at its start counts from there (start_cycle = the window's first).
  void register_kernel_stats(StatsRegistry& stats);
  // The measurement window starts now (sim.warmup_instructions; the platform
  // calls it with StatsRegistry::mark).
  void window_start();

  // --- from the SMs ---
  void on_cta_done(unsigned sm) override;
  void on_stores_drained(unsigned sm) override;
  void on_inst_mark(unsigned sm) override;

 private:
  void kernel_method();
  void dispatch_method();
  void dispatch();
  void check_kernel_end();
  uint64_t now_cycle() const;
  // One launch: counters at its start, then what it did (set when it ends).
  struct KernelRecord {
    std::string name;
    uint64_t ctas = 0, start_cycle = 0, cycles = 0, thread_insts = 0, warp_insts = 0, mem_requests = 0,
             l1_accesses = 0, l1_misses = 0, atomic_insts = 0, atomic_reqs = 0;
    std::vector<KernelCounter> counters;  // the kernel's own (KernelIf::counters)
  };
  void open_kernel_record(const KernelIf& k);
  void close_kernel_record(uint64_t end_cycle);  // end_cycle: the first cycle after the kernel
  KernelRecord totals_now() const;
  size_t first_record_ = 0;   // the first launch the stats report (window_start)
  uint64_t window_launch_ = 0;  // the launch running at window_start (0: none)
  KernelRecord at_window_;      // the totals at window_start

  const SmCfg cfg_;
  const uint64_t period_ps_;
  bstore* golden_;
  Checker checker_;
  std::vector<std::unique_ptr<Sm>> sms_;
  ProgramIf* prog_ = nullptr;
  const KernelIf* kernel_ = nullptr;
  uint32_t next_cta_ = 0, ctas_done_ = 0;
  unsigned rr_ = 0;
  bool finished_ = false, stopped_ = false;
  std::function<void()> on_mark_;
  std::string launch_error_;
  std::function<void()> on_finished_;
  std::function<void(uint32_t, bool)> on_kernel_boundary_;
  std::function<bool()> memory_idle_;
  uint64_t idle_wait_cycles_ = 0, idle_polls_ = 0;
  Event kernel_ev_, dispatch_ev_;
  uint64_t cycles_ = 0, kernels_ = 0, launched_ = 0;
  std::vector<KernelRecord> kernel_records_;  // one per launch (not per request)
  KernelRecord at_launch_;                    // the totals when the running kernel started
  uint64_t warp_insts_done_est_ = 0;          // estimated warp instructions of the ended kernels
};

}  // namespace strata
