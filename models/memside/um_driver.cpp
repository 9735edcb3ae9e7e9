// UmDriver implementation; see um_driver.h and docs/um.md.
#include "memside/um_driver.h"

#include <stdexcept>
#include <string>

#include "memside/mem_side.h"

namespace strata {

UmDriver::UmDriver(const UmCfg& cfg, StatsRegistry& S) : cfg_(cfg) {
  mem_.assign((um_bytes(&cfg_.model) + 7) / 8, 0);
  char err[256] = "";
  if (um_init(&u_, &cfg_.model, mem_.data(), err, sizeof err) != 0) throw std::invalid_argument(err);
  ev_.bind<&UmDriver::batch_process>(this, {Stage::MemSide, 0xffffu});
  const um_stats* st = &u_.st;
  S.counter("um.faults", "far faults: pages an access found on the host, serviced by the driver", Unit::Count,
            &st->faults);
  S.counter("um.fault_accesses", "fault-buffer entries: accesses that found their page not resident (again at each "
            "replay that still does)", Unit::Count, &st->fault_accesses);
  S.counter("um.fault_batches", "fault batches the driver serviced (each after the fault-handling latency)",
            Unit::Count, &st->batches);
  S.formula("um.fault_stall_seconds", "simulated time with at least one far fault outstanding", Unit::Second,
            [this] {
              return static_cast<double>(stall_ps_ + (stalled_ ? now_ps() - stall_from_ps_ : 0)) * 1e-12;
            });
  S.counter("um.pages_in", "pages moved from host memory into device memory (faulted and prefetched)", Unit::Count,
            &st->pages_in);
  S.counter("um.pages_out", "pages sent back to host memory to free frames (evicted)", Unit::Count, &st->pages_out);
  S.counter("um.prefetched_pages", "pages the prefetcher added to a batch (um.prefetch = tree)", Unit::Count,
            &st->prefetched);
  S.counter("um.deferred", "faulted pages a batch left for the next (um.batch_max, or no frame free)", Unit::Count,
            &st->deferred);
  S.counter("um.remote_accesses", "accesses served from host memory over the link at cacheline granularity "
            "(um.remote = counters: pages not in device memory; 0 otherwise)", Unit::Count, &st->remote_accesses);
  S.counter("um.counter_migrations", "64 KiB leaves whose access count reached um.counter_threshold and moved in",
            Unit::Count, &st->counter_migrations);
  S.counter("um.counter_full", "access counts at the threshold that found too few free frames (the leaf stays "
            "remote)", Unit::Count, &st->counter_full);
  S.level("um.resident_pages_peak", "most pages resident, arriving or leaving at once (at most the frames)",
          Unit::Count, [st] { return static_cast<double>(st->resident_peak); });
  S.level("um.frames", "device page frames of 4 KiB (um.rhbm x the program's pages, or um.frames)", Unit::Count,
          [this] { return static_cast<double>(cfg_.model.frames); });
}

void UmDriver::attach(const std::vector<MemSide*>& parts) {
  parts_ = parts;
  if (parts_.size() > 0xffffu) throw std::invalid_argument("um: more than 65535 memory partitions");
}

uint64_t UmDriver::now_ps() const {
  return static_cast<uint64_t>(sim_now().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
}

void UmDriver::start_latency() {
  phase_ = Phase::Latency;
  ev_.notify(sc_core::sc_time(static_cast<double>(cfg_.fault_ps), sc_core::SC_PS));
}

void UmDriver::fault(uint64_t page) {
  if (!stalled_) {
    stalled_ = true;
    stall_from_ps_ = now_ps();
  }
  if (um_fault(&u_, page) && phase_ == Phase::Idle) start_latency();
}

void UmDriver::remote(uint64_t page) {
  if (um_remote(&u_, page) && phase_ == Phase::Idle) start_latency();
}

// Step 3: decide the batch; page-outs first (every partition its part of each), page-ins once they are done.
void UmDriver::batch_process() {
  (void)um_batch(&u_);
  left_.assign(static_cast<size_t>(u_.n_out > u_.n_in ? u_.n_out : u_.n_in), 0);
  phase_ = Phase::Out;
  jobs_left_ = 0;
  for (uint64_t j = 0; j < u_.n_out; ++j) {
    uint16_t n = 0;
    for (MemSide* m : parts_) n = static_cast<uint16_t>(n + (m->um_move(u_.out_list[j], static_cast<uint32_t>(j), false) ? 1 : 0));
    left_[j] = n;
    if (n) ++jobs_left_;
    else (void)um_page_out_done(&u_, u_.out_list[j]);
  }
  if (!jobs_left_) start_in();
}

void UmDriver::start_in() {
  phase_ = Phase::In;
  jobs_left_ = 0;
  for (uint64_t j = 0; j < u_.n_in; ++j) {
    uint16_t n = 0;
    for (MemSide* m : parts_) n = static_cast<uint16_t>(n + (m->um_move(u_.in_list[j], static_cast<uint32_t>(j), true) ? 1 : 0));
    left_[j] = n;
    if (n) ++jobs_left_;
    else um_page_in_done(&u_, u_.in_list[j]);
  }
  if (!jobs_left_) finish();
}

void UmDriver::part_done(uint32_t job) {
  if (job >= left_.size() || !left_[job] || (phase_ != Phase::Out && phase_ != Phase::In))
    throw std::logic_error("um: a partition reported a page move the driver did not start");
  if (--left_[job]) return;
  if (phase_ == Phase::In) um_page_in_done(&u_, u_.in_list[job]);  // resident once every part is in
  else (void)um_page_out_done(&u_, u_.out_list[job]);  // on the host (faults again if it was wanted meanwhile)
  if (--jobs_left_) return;
  if (phase_ == Phase::Out) start_in();
  else finish();
}

// Step 5: the replay; the next batch if faults wait.
void UmDriver::finish() {
  phase_ = Phase::Idle;
  for (MemSide* m : parts_) m->um_release();
  if (um_pending(&u_)) {
    start_latency();
  } else if (stalled_) {
    stalled_ = false;
    stall_ps_ += now_ps() - stall_from_ps_;
  }
}

}  // namespace strata
