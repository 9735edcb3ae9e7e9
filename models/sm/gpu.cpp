#include "sm/gpu.h"

#include <algorithm>
#include <string>

namespace strata {

Gpu::Gpu(sc_core::sc_module_name name, unsigned num_sms, const SmCfg& sm, const L1Cfg& l1, const amap* map,
         PayloadPool& pool, bstore* golden, bool check, StatsRegistry& stats)
    : sc_module(name), cfg_(sm), period_ps_(sm.clk.period_ps()), checker_(check, stats) {
  if (num_sms == 0) SC_REPORT_FATAL(this->name(), "num_sms must be >= 1");
  if (!golden) SC_REPORT_FATAL(this->name(), "a golden (functional) memory is required");
  for (unsigned i = 0; i < num_sms; ++i)
    sms_.emplace_back(new Sm(("sm" + std::to_string(i)).c_str(), i, sm, l1, map, pool, golden, &checker_, this, stats));

  kernel_ev_.bind<&Gpu::kernel_method>(this, {Stage::Gpu, 0});
  dispatch_ev_.bind<&Gpu::dispatch_method>(this, {Stage::Gpu, 0});
  kernel_ev_.notify(sc_core::SC_ZERO_TIME);  // launches the first kernel at t = 0

  const Gpu* g = this;
  stats.counter("gpu.cycles", "core cycles until the last kernel ended", Unit::Cycle, &cycles_);
  stats.counter("gpu.kernels", "kernels completed", Unit::Count, &kernels_);
  stats.formula("gpu.instructions", "thread instructions issued (active lanes per warp instruction, as GPGPU-Sim "
                "gpu_sim_insn)", Unit::Count, [g] { return static_cast<double>(g->instructions()); });
  stats.formula("gpu.warp_instructions", "warp instructions issued", Unit::Count, [g] {
    uint64_t s = 0;
    for (auto& m : g->sms_) s += m->warp_insts();
    return static_cast<double>(s);
  });
  stats.formula("gpu.ipc", "thread instructions per core cycle, whole GPU", Unit::InstPerCycle,
                [g] { return static_cast<double>(g->instructions()) / static_cast<double>(g->cycles_); });
  stats.formula("gpu.mem_requests", "L1 -> L2 requests, all SMs", Unit::Count,
                [g] { return static_cast<double>(g->mem_requests()); });
  auto sum = [g](uint64_t (Sm::*f)() const) {
    uint64_t s = 0;
    for (auto& m : g->sms_) s += ((*m).*f)();
    return static_cast<double>(s);
  };
  stats.formula("l1.accesses", "L1 line requests, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_accesses); });
  stats.formula("l1.hits", "L1 hits, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_hits); });
  stats.formula("l1.misses", "L1 misses, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_misses); });
  stats.formula("l1.miss_rate", "L1 misses / accesses, all SMs", Unit::Ratio,
                [sum] { return sum(&Sm::l1_misses) / sum(&Sm::l1_accesses); });
  static const char* const kBucket[COAL_HIST_BUCKETS] = {"1", "2_8", "9_16", "17_24", "25_32"};
  static const char* const kRange[COAL_HIST_BUCKETS] = {"1", "2-8", "9-16", "17-24", "25-32"};
  for (unsigned b = 0; b < COAL_HIST_BUCKETS; ++b)
    stats.formula(std::string("coalescer.ea_hist.") + kBucket[b],
                  std::string("coalesced requests with ") + kRange[b] +
                      " effective addresses (active threads in the line; HAC paper Sec. III-A)",
                  Unit::Count, [g, b] {
                    uint64_t s = 0;
                    for (auto& m : g->sms_) s += m->coalescer().bucket[b];
                    return static_cast<double>(s);
                  });
  stats.formula("coalescer.requests_per_inst", "line requests per warp memory instruction", Unit::Ratio, [g] {
    uint64_t r = 0, i = 0;
    for (auto& m : g->sms_) r += m->coalescer().reqs, i += m->coalescer().insts;
    return static_cast<double>(r) / static_cast<double>(i);
  });
}

Gpu::~Gpu() = default;

void Gpu::load(ProgramIf* prog) { prog_ = prog; }

uint64_t Gpu::instructions() const {
  uint64_t s = 0;
  for (auto& m : sms_) s += m->thread_insts();
  return s;
}
uint64_t Gpu::mem_requests() const {
  uint64_t s = 0;
  for (auto& m : sms_) s += m->mem_requests();
  return s;
}
double Gpu::progress() const {
  if (finished_) return 1.0;
  if (!prog_) return 0.0;
  const double est = std::max<double>(prog_->kernels_estimate(), static_cast<double>(kernels_ + 1));
  double cur = 0;
  if (kernel_ && kernel_->ctas) cur = static_cast<double>(ctas_done_) / kernel_->ctas;
  return std::min(1.0, (static_cast<double>(kernels_) + cur) / est);
}

uint64_t Gpu::now_cycle() const {
  return sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value() / period_ps_;
}

void Gpu::kernel_method() {
  if (!prog_ || finished_ || kernel_) return;
  for (auto& m : sms_) m->kernel_boundary();
  for (;;) {
    kernel_ = prog_->next_kernel();
    if (!kernel_) {
      // Done. The simulation goes on until nothing is left to do (the memory
      // controllers drain the write-backs still queued), then sc_start returns.
      finished_ = true;
      if (on_finished_) on_finished_();
      return;
    }
    if (kernel_->ctas == 0) {  // empty launch: nothing to run
      ++kernels_;
      continue;
    }
    if (kernel_->warps_per_cta == 0) SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": CTA of 0 warps").c_str());
    if (kernel_->warps_per_cta > cfg_.max_warps) {  // the user's configuration: stop, reported as bad input
      launch_error_ = "kernel " + kernel_->name + " has CTAs of " + std::to_string(kernel_->warps_per_cta) +
                      " warps (" + std::to_string(kernel_->warps_per_cta * 32u) + " threads)";
      kernel_ = nullptr;
      Scheduler::get().pause();
      sc_core::sc_stop();
      return;
    }
    break;
  }
  next_cta_ = 0;
  ctas_done_ = 0;
  dispatch();
}

void Gpu::dispatch_method() { dispatch(); }

void Gpu::dispatch() {
  if (!kernel_) return;
  const unsigned n = num_sms();
  while (next_cta_ < kernel_->ctas) {
    bool placed = false;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned s = (rr_ + i) % n;
      if (sms_[s]->can_accept(*kernel_)) {
        sms_[s]->launch_cta(kernel_, next_cta_++);
        rr_ = (s + 1) % n;
        placed = true;
        break;
      }
    }
    if (!placed) break;
  }
}

void Gpu::on_cta_done(unsigned) {
  ++ctas_done_;
  // Dispatch from a separate process: the calling SM is in the middle of its cycle.
  if (next_cta_ < kernel_->ctas) dispatch_ev_.notify(sc_core::SC_ZERO_TIME);
  check_kernel_end();
}

void Gpu::on_stores_drained(unsigned) { check_kernel_end(); }

void Gpu::check_kernel_end() {
  if (!kernel_ || ctas_done_ < kernel_->ctas) return;
  for (auto& m : sms_)
    if (m->stores_in_flight()) return;
  ++kernels_;
  const uint64_t c = now_cycle();
  cycles_ = c + 1;
  kernel_ = nullptr;
  const uint64_t now_ps = sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value();
  kernel_ev_.notify(sc_core::sc_time(static_cast<double>((c + 1) * period_ps_ - now_ps), sc_core::SC_PS));
}

}  // namespace strata
