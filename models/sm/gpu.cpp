#include "sm/gpu.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace strata {

Gpu::Gpu(sc_core::sc_module_name name, unsigned num_sms, const SmCfg& sm, const L1Cfg& l1, const amap* map,
         PayloadPool& pool, bstore* golden, bool check, StatsRegistry& stats)
    : sc_module(name), cfg_(sm), period_ps_(sm.clk.period_ps()), golden_(golden), checker_(check, stats) {
  if (num_sms == 0) SC_REPORT_FATAL(this->name(), "num_sms must be >= 1");
  if (!golden) SC_REPORT_FATAL(this->name(), "a golden (functional) memory is required");
  for (unsigned i = 0; i < num_sms; ++i)
    sms_.emplace_back(new Sm(("sm" + std::to_string(i)).c_str(), i, sm, l1, map, pool, golden, &checker_, this, stats));

  kernel_ev_.bind<&Gpu::kernel_method>(this, {Stage::Gpu, 0});
  dispatch_ev_.bind<&Gpu::dispatch_method>(this, {Stage::Gpu, 0});
  kernel_ev_.notify(sc_core::SC_ZERO_TIME);  // launches the first kernel at t = 0

  const Gpu* g = this;
  // Cycles: until the last kernel ended at the end of a run; mid-run (a window's mark) the cycles so far.
  stats.formula("gpu.cycles", "core cycles until the last kernel ended (a window: its core cycles)", Unit::Cycle,
                [g] { return static_cast<double>(g->cycles_so_far()); });
  stats.counter("gpu.kernels", "kernels completed", Unit::Count, &kernels_);
  stats.formula("gpu.instructions", "thread instructions issued (active lanes per warp instruction, as GPGPU-Sim "
                "gpu_sim_insn)", Unit::Count, [g] { return static_cast<double>(g->instructions()); });
  stats.formula("gpu.warp_instructions", "warp instructions issued", Unit::Count, [g] {
    uint64_t s = 0;
    for (auto& m : g->sms_) s += m->warp_insts();
    return static_cast<double>(s);
  });
  stats.ratio("gpu.ipc", "thread instructions per core cycle, whole GPU", Unit::InstPerCycle,
              [g] { return static_cast<double>(g->instructions()); },
              [g] { return static_cast<double>(g->cycles_so_far()); });
  stats.formula("gpu.mem_requests", "L1 -> L2 requests, all SMs", Unit::Count,
                [g] { return static_cast<double>(g->mem_requests()); });
  stats.formula("gpu.atomic_instructions", "global atomic warp instructions issued (performed at the L2), all SMs",
                Unit::Count, [g] { return static_cast<double>(g->totals_now().atomic_insts); });
  stats.formula("gpu.atomic_requests", "atomic line requests sent to the L2, all SMs", Unit::Count,
                [g] { return static_cast<double>(g->totals_now().atomic_reqs); });
  auto sum = [g](uint64_t (Sm::*f)() const) {
    uint64_t s = 0;
    for (auto& m : g->sms_) s += ((*m).*f)();
    return static_cast<double>(s);
  };
  stats.formula("l1.accesses", "L1 line requests, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_accesses); });
  stats.formula("l1.hits", "L1 hits, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_hits); });
  stats.formula("l1.misses", "L1 misses, all SMs", Unit::Count, [sum] { return sum(&Sm::l1_misses); });
  stats.ratio("l1.miss_rate", "L1 misses / accesses, all SMs", Unit::Ratio, [sum] { return sum(&Sm::l1_misses); },
              [sum] { return sum(&Sm::l1_accesses); });
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
  stats.ratio(
      "coalescer.requests_per_inst", "line requests per warp memory instruction", Unit::Ratio,
      [g] {
        uint64_t r = 0;
        for (auto& m : g->sms_) r += m->coalescer().reqs;
        return static_cast<double>(r);
      },
      [g] {
        uint64_t i = 0;
        for (auto& m : g->sms_) i += m->coalescer().insts;
        return static_cast<double>(i);
      });
}

Gpu::~Gpu() = default;

void Gpu::load(ProgramIf* prog) { prog_ = prog; }

uint64_t Gpu::instructions() const {
  uint64_t s = 0;
  for (auto& m : sms_) s += m->thread_insts();
  return s;
}
uint64_t Gpu::warp_instructions() const {
  uint64_t s = 0;
  for (auto& m : sms_) s += m->warp_insts();
  return s;
}
uint64_t Gpu::mem_requests() const {
  uint64_t s = 0;
  for (auto& m : sms_) s += m->mem_requests();
  return s;
}
unsigned Gpu::kernels_expected() const {
  if (!prog_) return 0;
  return std::max<unsigned>(prog_->kernels_estimate(), static_cast<unsigned>(launched_));
}

double Gpu::progress() const {
  if (finished_) return 1.0;
  if (!prog_) return 0.0;
  const unsigned n = std::max<unsigned>(kernels_expected(), static_cast<unsigned>(kernels_ + 1));
  // In warp instructions, if the program estimates every kernel's: the ended
  // kernels at their estimates, the running one at what it issued (at most its
  // estimate). Called by the progress report only (twice a second at most).
  uint64_t total = 0, done = 0;
  for (unsigned k = 0; k < n; ++k) {
    const uint64_t w = prog_->kernel_warp_insts(k);
    if (w == 0) {
      total = 0;
      break;
    }
    total += w;
    if (k < kernels_) done += w;
    else if (kernel_ && k + 1 == launched_) done += std::min(w, warp_instructions() - at_launch_.warp_insts);
  }
  if (total) return std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  // Else in kernels, and the CTAs of the running one.
  double cur = 0;
  if (kernel_ && kernel_->ctas) cur = static_cast<double>(ctas_done_) / kernel_->ctas;
  return std::min(1.0, (static_cast<double>(kernels_) + cur) / n);
}

Gpu::KernelRecord Gpu::totals_now() const {
  KernelRecord r;
  for (auto& m : sms_) {
    r.thread_insts += m->thread_insts();
    r.warp_insts += m->warp_insts();
    r.mem_requests += m->mem_requests();
    r.l1_accesses += m->l1_accesses();
    r.l1_misses += m->l1_misses();
    r.atomic_insts += m->atomic_insts();
    r.atomic_reqs += m->atomic_requests();
  }
  return r;
}

void Gpu::open_kernel_record(const KernelIf& k) {
  ++launched_;
  at_launch_ = totals_now();
  at_launch_.name = k.name;
  at_launch_.ctas = k.ctas;
  at_launch_.start_cycle = now_cycle();
}

void Gpu::window_start() {
  first_record_ = kernel_records_.size();
  window_launch_ = kernel_ ? launched_ : 0;
  at_window_ = totals_now();
  at_window_.start_cycle = now_cycle();
}

void Gpu::close_kernel_record(uint64_t end_cycle) {
  const KernelRecord now = totals_now();
  if (window_launch_ && window_launch_ == launched_) {  // running at the window's start: counts from there
    const std::string name = at_launch_.name;
    const uint64_t ctas = at_launch_.ctas;
    at_launch_ = at_window_;
    at_launch_.name = name;
    at_launch_.ctas = ctas;
  }
  KernelRecord r;
  r.name = at_launch_.name;
  r.ctas = at_launch_.ctas;
  r.start_cycle = at_launch_.start_cycle;
  r.cycles = end_cycle - at_launch_.start_cycle;
  r.thread_insts = now.thread_insts - at_launch_.thread_insts;
  r.warp_insts = now.warp_insts - at_launch_.warp_insts;
  r.mem_requests = now.mem_requests - at_launch_.mem_requests;
  r.l1_accesses = now.l1_accesses - at_launch_.l1_accesses;
  r.l1_misses = now.l1_misses - at_launch_.l1_misses;
  r.atomic_insts = now.atomic_insts - at_launch_.atomic_insts;
  r.atomic_reqs = now.atomic_reqs - at_launch_.atomic_reqs;
  if (kernel_) kernel_->counters(&r.counters);
  kernel_records_.push_back(std::move(r));
}

void Gpu::register_kernel_stats(StatsRegistry& stats) {
  for (size_t i = first_record_; i < kernel_records_.size(); ++i) {
    const KernelRecord& r = kernel_records_[i];
    std::string name = r.name.empty() ? "kernel" : r.name;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    const std::string p = "kernel." + std::to_string(i + 1) + "." + name + ".";
    const std::string of = " of kernel launch " + std::to_string(i + 1) + " (" + r.name + ")";
    // Values of a finished record, reported as they are (level): registered after the simulation.
    auto v = [&r](const uint64_t KernelRecord::*f) { return [&r, f] { return static_cast<double>(r.*f); }; };
    stats.level(p + "ctas", "thread blocks (CTAs)" + of, Unit::Count, v(&KernelRecord::ctas));
    stats.level(p + "start_cycle", "core cycle at which it started (or the window started)" + of, Unit::Cycle,
                v(&KernelRecord::start_cycle));
    stats.level(p + "cycles", "core cycles from its start to the start of the next launch" + of, Unit::Cycle,
                v(&KernelRecord::cycles));
    stats.level(p + "instructions", "thread instructions" + of, Unit::Count, v(&KernelRecord::thread_insts));
    stats.level(p + "warp_instructions", "warp instructions" + of, Unit::Count, v(&KernelRecord::warp_insts));
    stats.level(p + "ipc", "thread instructions per core cycle" + of, Unit::InstPerCycle, [&r] {
      return r.cycles ? static_cast<double>(r.thread_insts) / static_cast<double>(r.cycles) : 0.0;
    });
    stats.level(p + "mem_requests", "L1 -> L2 requests" + of, Unit::Count, v(&KernelRecord::mem_requests));
    stats.level(p + "l1_accesses", "L1 line requests" + of, Unit::Count, v(&KernelRecord::l1_accesses));
    stats.level(p + "l1_misses", "L1 misses" + of, Unit::Count, v(&KernelRecord::l1_misses));
    if (r.atomic_insts) {  // kernels with global atomics only
      stats.level(p + "atomic_instructions", "global atomic warp instructions" + of, Unit::Count,
                  v(&KernelRecord::atomic_insts));
      stats.level(p + "atomic_requests", "atomic line requests to the L2" + of, Unit::Count,
                  v(&KernelRecord::atomic_reqs));
    }
    for (const KernelCounter& c : r.counters)
      stats.level(p + c.name, c.desc + of, c.ratio ? Unit::Ratio : Unit::Count, [&c] { return c.value; });
  }
}

void Gpu::performed(unsigned bank, uint64_t addr, gpu_atom_op op, gpu_atom_type type, uint64_t a, uint64_t b,
                    uint64_t old, uint64_t now_ps) {
  const unsigned n = gpu_atom_bytes(type);
  uint64_t g = 0;
  bstore_read(golden_, addr, &g, n);
  if (checker_.enabled()) checker_.compare_atomic(bank, addr, now_ps / period_ps_, &g, &old, n);
  const uint64_t nv = gpu_atom_apply(op, type, g, a, b);
  if (bstore_write(golden_, addr, &nv, n) != 0) SC_REPORT_FATAL(name(), "golden memory: out of memory");
}

uint64_t Gpu::now_cycle() const {
  return sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value() / period_ps_;
}

void Gpu::kernel_method() {
  if (!prog_ || finished_ || kernel_) return;
  if (launched_ && memory_idle_ && prog_->wants_idle_memory() && !memory_idle_()) {
    // kernel sampling: the next launch runs functionally once the write-backs still queued have drained
    if (++idle_polls_ > 1000000)
      SC_REPORT_FATAL(name(), "kernel sampling: the memory system did not go idle in 64 M core cycles after a launch");
    idle_wait_cycles_ += kIdlePollCycles;
    kernel_ev_.notify(sc_core::sc_time(static_cast<double>(kIdlePollCycles * period_ps_), sc_core::SC_PS));
    return;
  }
  idle_polls_ = 0;
  // Between kernels the L1s are invalidated; before the first launch they are empty, or hold what a
  // fast-forward left in them (platform/fast_forward.h).
  if (launched_) for (auto& m : sms_) m->kernel_boundary();
  for (;;) {
    kernel_ = prog_->next_kernel();
    if (launched_ && on_kernel_boundary_) on_kernel_boundary_(static_cast<uint32_t>(launched_ - 1), !kernel_);
    if (kernel_) open_kernel_record(*kernel_);
    if (!kernel_) {
      // Done. The simulation goes on until nothing is left to do (the memory
      // controllers drain the write-backs still queued), then sc_start returns.
      finished_ = true;
      if (on_finished_) on_finished_();
      return;
    }
    if (kernel_->ctas == 0) {  // empty launch: nothing to run
      close_kernel_record(at_launch_.start_cycle);
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
  // A kernel a fast-forward stopped in: its begun CTAs are done or go onto their SMs as it left them.
  next_cta_ = std::min(prog_->resume_cta(), kernel_->ctas);
  const std::vector<ProgramIf::ResumedCta>& resumed = prog_->resumed_ctas();
  for (const ProgramIf::ResumedCta& r : resumed)
    sms_.at(r.sm)->resume_cta(kernel_, r.cta, r.ctx, r.state, r.atom_seq);
  ctas_done_ = next_cta_ - static_cast<uint32_t>(resumed.size());
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

void Gpu::on_inst_mark(unsigned) {
  inst_mark = UINT64_MAX;
  std::function<void()> f = std::move(on_mark_);
  on_mark_ = nullptr;
  if (f) f();
}

void Gpu::check_kernel_end() {
  if (!kernel_ || ctas_done_ < kernel_->ctas) return;
  for (auto& m : sms_)
    if (m->stores_in_flight()) return;
  ++kernels_;
  const uint64_t c = now_cycle();
  cycles_ = c + 1;
  close_kernel_record(cycles_);
  {
    const KernelRecord& r = kernel_records_.back();
    prog_->launch_ended(r.cycles, r.warp_insts, r.thread_insts);
  }
  kernel_ = nullptr;
  const uint64_t now_ps = sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value();
  kernel_ev_.notify(sc_core::sc_time(static_cast<double>((c + 1) * period_ps_ - now_ps), sc_core::SC_PS));
}

}  // namespace strata
