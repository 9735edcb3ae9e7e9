// UmDriver: Unified Memory's fault service, GPU-wide (docs/um.md). It owns
// the page table (the C decision model models/ref/memside/um.h: page states,
// fault buffer, tree-based neighbourhood prefetch and pre-eviction, frames)
// and plays the driver's loop over the memory partitions' shells (MemSide):
//
//   1. an access of the L2 whose 4 KiB page is not resident is held by its
//      partition's shell, which reports the fault here (fault());
//   2. the first fault while the driver is idle starts the fault-handling
//      latency (um.fault_us, HMS Table I: 20 us); faults arriving meanwhile
//      join the batch (the fault buffer);
//   3. when it has passed, the batch is decided (um_batch: the faulted pages
//      in fault order up to um.batch_max, their prefetches, the victims);
//   4. every partition sends its part of each victim page to host memory
//      (page-out: its L2 lines dropped, dirty bytes kept, the device part
//      read, written to the host over the link), and once all are out,
//      every partition moves its part of each incoming page in (host read
//      over the link, device writes); a page is resident once every part is
//      in;
//   5. the batch ends with a replay: every held access asks again; faults
//      left over (batch_max, frames) or new ones start the next batch at 2.
//
// The driver has no clock process of its own: one Event for the latency,
// the rest runs inside the shells' transfer completions. Nothing is
// allocated per fault or per page.
#pragma once
#include <cstdint>
#include <vector>

#include "common/sched.h"
#include "common/stats.h"

extern "C" {
#include "memside/um.h"
}

namespace strata {

class MemSide;

struct UmCfg {
  um_cfg model{};            // pages, frames, prefetch, batch_max
  uint64_t fault_ps = 20000000;  // fault-handling latency (HMS Table I: 20 us)
};

class UmDriver {
 public:
  // Throws std::invalid_argument with the model's one-line reason (a bad frame count).
  UmDriver(const UmCfg& cfg, StatsRegistry& stats);
  UmDriver(const UmDriver&) = delete;
  UmDriver& operator=(const UmDriver&) = delete;

  // The memory partitions' shells, in partition order (each then calls back here).
  void attach(const std::vector<MemSide*>& parts);

  // The hot path (MemSide::ask): a page's state, a resident page's access.
  uint8_t state(uint64_t page) const { return um_page_state(&u_, page); }
  void touch(uint64_t page) { um_touch(&u_, page); }
  // An access found its page not resident (step 1).
  void fault(uint64_t page);
  // Access counters (um.remote = counters): pages not resident are served remotely; remote(page) counts an
  // access so served (a leaf hot enough is queued for migration like faulted pages).
  bool remote() const { return u_.cfg.counter_threshold != 0; }
  void remote(uint64_t page);
  // A partition finished its part of job `job` of the running batch (step 4).
  void part_done(uint32_t job);

  bool idle() const { return phase_ == Phase::Idle && !um_pending(&u_); }
  const um_stats& stats() const { return u_.st; }
  const um& model() const { return u_; }

 private:
  enum class Phase { Idle, Latency, Out, In };
  void batch_process();  // the latency has passed: decide and start the batch
  void start_in();       // every page-out done: the page-ins
  void finish();         // every page-in done: replay, next batch
  void start_latency();
  uint64_t now_ps() const;

  UmCfg cfg_;
  um u_{};
  std::vector<uint64_t> mem_;       // the model's block
  std::vector<MemSide*> parts_;
  std::vector<uint16_t> left_;      // per job of the running batch: partitions not done yet
  uint64_t jobs_left_ = 0;          // jobs of the running phase not done yet
  Phase phase_ = Phase::Idle;
  Event ev_;
  uint64_t stall_from_ps_ = 0;      // start of the current stretch with faults outstanding
  uint64_t stall_ps_ = 0;           // simulated time with at least one fault outstanding (ended stretches)
  bool stalled_ = false;
};

}  // namespace strata
