#include "platform/platform.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <systemc>

#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"
#include "l2/l2_bank.h"
#include "memctrl/mem_ctrl.h"
#include "memctrl/scm_throttle.h"
#include "memside/mem_side.h"
#include "noc/xbar.h"
#include "platform/fast_forward.h"
#include "platform/kernel_sampling.h"
#include "platform/memory_side.h"
#include "platform/placement.h"
#include "platform/module_cfg.h"
#include "sm/gpu.h"
#include "workloads/registry.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
#include "cache/cache.h"
#include "memside/memside.h"
#include "power/gpu_power.h"
}

namespace fs = std::filesystem;
using sc_core::sc_time;
using sc_core::SC_PS;

namespace strata {

namespace {

// SIGINT/SIGTERM during a run: the first asks the sampler to stop the run at
// its next epoch (the stats of what was simulated are then written, marked
// partial); a second one exits at once.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal) {
    static const char msg[] = "\nstrata: second interrupt, exiting at once (no stats written)\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(kExitInterrupted);
  }
  g_stop_signal = sig;
}

double host_now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Samples the platform once per epoch: the probes the modules registered
// (models/common/probe.h) into the time series (CSV) and the VCD, the progress
// line, and a deadlock watchdog. One event per epoch; costs nothing between.
struct Sampler : sc_core::sc_module {
  SC_HAS_PROCESS(Sampler);
  Sampler(sc_core::sc_module_name n, double epoch_ns, Gpu* gpu, ProbeRegistry& probes)
      : sc_module(n), gpu_(gpu), probes_(probes) {
    epoch_ = sc_time(epoch_ns * 1000.0, SC_PS);
    ev_.bind<&Sampler::tick>(this, {Stage::Sampler, 0});  // after the models due at the same time
  }
  void start() { ev_.notify(epoch_); }
  void stop() {
    ev_.cancel();
    if (limit_armed_) limit_ev_.cancel();  // the workload finished first: the run drains as without a limit
    limit_armed_ = false;
  }
  // sim.max_time_us: stop the run at `at` unless the workload finishes first.
  void arm_limit(sc_time at) {
    limit_ev_.bind<&Sampler::limit>(this, {Stage::Sampler, 1});
    limit_ev_.notify(at);
    limit_armed_ = true;
  }
  void limit() {
    limit_armed_ = false;
    time_limited_ = true;
    Scheduler::get().pause();
    sc_core::sc_stop();
  }
  // sim.max_instructions reached (from inside the SM that issued the last one).
  void instruction_limit() {
    inst_limited_ = true;
    Scheduler::get().pause();
    sc_core::sc_stop();
  }
  // The measurement window starts now (sim.warmup_instructions): rates restart
  // from this point, the time series is written from here, one epoch apart.
  void window_start() {
    const double dt = (sim_now() - last_tick_).to_seconds();
    probes_.sample(dt);  // the rate/ratio probes' previous readings become the mark's
    last_tick_ = sim_now();
    write_csv_ = true;
    if (ev_.pending()) {
      ev_.cancel();
      ev_.notify(epoch_);
    }
  }

  void trace(sc_core::sc_trace_file* tf) {
    for (ProbeRegistry::Probe& p : probes_.probes()) sc_core::sc_trace(tf, p.value, p.name);
  }

  void open_csv(const std::string& path) {
    csv_.open(path);
    csv_ << "time_ns";
    for (const ProbeRegistry::Probe& p : probes_.probes()) csv_ << "," << p.name;
    csv_ << "\n";
  }

  void close_csv() { csv_.close(); }

  void tick() {
    const double dt_s = (sim_now() - last_tick_).to_seconds();
    last_tick_ = sim_now();
    probes_.sample(dt_s);
    if (csv_.is_open() && write_csv_) {
      // time_ns as a whole number (or with its ps digits), never in e-notation on long runs
      const int64_t ps = static_cast<int64_t>(std::llround(sc_core::sc_time_stamp().to_seconds() * 1e12));
      if (ps % 1000 == 0) {
        csv_ << ps / 1000;
      } else {
        char t[32];
        std::snprintf(t, sizeof t, "%lld.%03lld", static_cast<long long>(ps / 1000), static_cast<long long>(ps % 1000));
        csv_ << t;
      }
      for (const ProbeRegistry::Probe& p : probes_.probes()) {
        csv_ << ",";
        if (p.value == std::floor(p.value) && std::fabs(p.value) < 9e15) csv_ << static_cast<int64_t>(p.value);
        else csv_ << p.value;  // counts print whole, rates with 6 significant digits
      }
      csv_ << "\n";
    }
    if (g_stop_signal) {  // SIGINT/SIGTERM (Platform::run): stop here, the stats are written
      interrupted_ = true;
      Scheduler::get().pause();
      sc_core::sc_stop();
      return;
    }
    // Watchdog: the GPU is not finished but nothing moved for a long time.
    const uint64_t inst = gpu_->instructions(), req = gpu_->mem_requests();
    if (inst == last_inst_ && req == last_req_) {
      if (++idle_epochs_ * dt_s > 1e-3 + 1000 * dt_s) {
        stalled_ = true;
        Scheduler::get().pause();
        sc_core::sc_stop();
        return;
      }
    } else {
      idle_epochs_ = 0;
    }
    last_inst_ = inst;
    last_req_ = req;
    if (progress_ != Progress::Off) report_progress(inst, req);
    if (!gpu_->finished()) ev_.notify(epoch_);
  }

  // Progress on stderr, from this epoch event (nothing polls on its own). On a
  // terminal one line redrawn at most twice a second, from 2 s on; otherwise
  // (batch and Slurm logs) one line every heartbeat_s_ host seconds. "L2 req"
  // are the L1 -> L2 requests (gpu.mem_requests), "ctrl req" the requests at
  // the memory controllers (mem.reads + mem.writes), as in the summary.
  void report_progress(uint64_t inst, uint64_t l2_req) {
    const double now = host_now(), host = now - host_start_;
    if (progress_ == Progress::Terminal ? host < 2.0 || now - last_print_ < 0.5 : now - last_print_ < heartbeat_s_)
      return;
    last_print_ = now;
    const double frac = gpu_->progress(), ctrl = ctrl_requests_();
    char eta[32] = "?";
    if (frac > 0.001) std::snprintf(eta, sizeof eta, "%.0f s", host * (1 - frac) / frac);
    const double us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    if (progress_ == Progress::Terminal) {
      std::fprintf(stderr, "\r[strata] %.1f us | %3.0f%% | ETA %s | %.3g inst | %.3g L2 req | %.3g ctrl req, %.3g/s   ",
                   us, frac * 100, eta, static_cast<double>(inst), static_cast<double>(l2_req), ctrl, ctrl / host);
      printed_ = true;
    } else {
      std::fprintf(stderr, "[strata] host %.0f s: %.1f us simulated, %.1f%% done (kernel %llu of %u), ETA %s, %.3g inst, "
                   "%.3g L2 req, %.3g ctrl req (%.3g ctrl req/s)\n",
                   host, us, frac * 100, static_cast<unsigned long long>(gpu_->kernels_launched()),
                   gpu_->kernels_expected(), eta, static_cast<double>(inst), static_cast<double>(l2_req), ctrl,
                   ctrl / host);
      std::fflush(stderr);
    }
  }

  Gpu* gpu_;
  ProbeRegistry& probes_;
  sc_time epoch_;
  Event ev_, limit_ev_;
  uint64_t last_inst_ = 0, last_req_ = 0, idle_epochs_ = 0;
  enum class Progress { Off, Terminal, Heartbeat } progress_ = Progress::Off;
  double heartbeat_s_ = 30;
  std::function<double()> ctrl_requests_;  // memory-controller requests so far
  bool stalled_ = false, printed_ = false;
  bool limit_armed_ = false, time_limited_ = false, interrupted_ = false, inst_limited_ = false;
  bool write_csv_ = true;  // false during a warm-up (the time series covers the window)
  sc_time last_tick_ = sc_core::SC_ZERO_TIME;
  double host_start_ = 0, last_print_ = 0;
  std::ofstream csv_;
};

}  // namespace

struct Platform::Impl {
  Config cfg;  // the caller's, with the values decided while building (Config::derive: memside_ops.derive)
  RunOptions opt;
  StatsRegistry stats;
  ProbeRegistry probes;  // time series (timeseries.csv, VCD)
  PayloadPool pool;
  amap map{};
  bstore golden{};
  std::unique_ptr<Program> program;
  std::unique_ptr<PlacementEngine> placement;  // placement.mode = engine: the GPU runs the program through it
  std::unique_ptr<FastForward> ff;  // sim.fast_forward_instructions: the GPU runs the program through it
  double ff_refresh_s = 0;           // host time of the devices' refresh after it
  std::unique_ptr<KernelSampler> ksampler;  // sim.kernel_sampling: the GPU runs the program through it
  std::unique_ptr<Gpu> gpu;
  std::unique_ptr<Xbar> xbar;
  std::vector<std::unique_ptr<L2Bank>> l2;
  // The memory side (platform/memory_side.h, shared with strata memtrace): device controllers, memory-side
  // controllers, the manager, the host path, SCM throttling.
  std::unique_ptr<MemorySide> mem;
  std::unique_ptr<Sampler> sampler;
  sc_core::sc_trace_file* tf = nullptr;
  double host_seconds = 0, sim_seconds = 0, mem_req_rate = 0, mem_access_rate = 0, peak_rss = 0, host_setup = 0;
  uint64_t program_footprint = 0;
  double partial = 0, stop_reason = 0;  // sim.partial, sim.stop_reason (StopReason)
  // Measurement window (sim.warmup_instructions, sim.max_instructions): where it started.
  double window = 0, window_start_s = 0, warmup_insts = 0;
  uint64_t inst_base = 0;  // thread instructions at the window's start (the time series' gpu.instructions)
  // The stat recording the memory-side policy's derivation (memside_ops.derive), when it names one.
  DerivedStat derived_stat;

  Impl(const Config& c, const RunOptions& o) : cfg(c), opt(o) { bstore_init(&golden); }
  ~Impl() {
    if (tf) sc_core::sc_close_vcd_trace_file(tf);
    bstore_free(&golden);
  }

  // The parts of a platform (build() puts them together; other topologies --
  // stacks with vaults, links, NDP SMs -- reuse them).
  void build_gpu(unsigned nsm, const SmCfg& sm, const L1Cfg& l1);
  void build_interconnect(unsigned nsm, unsigned nbanks, const XbarCfg& xb);
  bool derive_policy_config(const MemDevices& md);
  void build_memory_side(const MemDevices& md);
  void build_l2(unsigned nbanks, const L2Cfg& l2c);
  void load_initial_data();
  void fast_forward();
  void kernel_sampling();
  void register_energy_metrics();
  void register_gpu_power();
  HostHooks host_hooks();

  // Platform::run in steps, in the order run() calls them.
  bool prepare_outputs();  // true when the output directory was created now
  void arm_window();
  void start_window();
  void arm_instruction_limit();
  void run_simulation();
  void reject_unusable_run(bool created_out);
  void measure_run();
  StopReason classify_stop(int* status);
  void record_stop(StopReason reason);
  bool write_results();
  void print_summary(StopReason reason, int status);
  uint64_t warmup = 0, max_insts = 0;  // sim.warmup_instructions, sim.max_instructions (arm_window)
};

Platform::Platform(const Config& cfg, const RunOptions& opt) : p_(new Impl(cfg, opt)) {}
Platform::~Platform() = default;

std::unique_ptr<Program> make_workload_program(const Config& C) {
  const WorkloadInfo* wi = find_workload(C.s("workload.name"));
  std::map<std::string, int64_t> knobs;
  for (const KnobSpec& k : wi->knobs) knobs[k.name] = C.i("workload." + wi->name + "." + k.name);
  knobs[kFootprintKnob] = static_cast<int64_t>(C.size("workload.footprint"));
  knobs[kMaxFootprintKnob] = static_cast<int64_t>(C.size("sim.max_footprint"));
  return wi->make(knobs, static_cast<uint64_t>(C.i("sim.seed")));
}

CudaDevice cuda_device(const Config& C) {
  CudaDevice d;
  d.sms = static_cast<unsigned>(C.i("gpu.num_sms"));
  d.core_mhz = C.f("gpu.core_clock_mhz");
  d.l2_bytes = C.size("l2.size");
  d.mem_bytes = C.size("sim.max_footprint");
  d.max_warps_per_sm = static_cast<unsigned>(C.i("sm.max_warps"));
  d.max_ctas_per_sm = static_cast<unsigned>(C.i("sm.max_ctas"));
  const MemDevices md = mem_devices(C);
  d.mem_mhz = md.interface_of(0)->clk_mhz;  // channels of their own interface: channel 0's clock
  d.bus_bits = 0;
  for (unsigned c = 0; c < md.channels; ++c) d.bus_bits += md.interface_of(c)->bus_bits;
  return d;
}

static std::string bytes_text(uint64_t b) {
  char t[48];
  if (b >= (1ull << 30)) std::snprintf(t, sizeof t, "%.4g GiB", static_cast<double>(b) / (1ull << 30));
  else std::snprintf(t, sizeof t, "%.4g MiB", static_cast<double>(b) / (1ull << 20));
  return t;
}

void check_footprint(const Config& C, const Program& prog) {
  const uint64_t need = prog.footprint_bytes(), max = C.size("sim.max_footprint");
  if (need <= max) return;
  // Blame the last knob set away from its default (the error names where), else the limit itself.
  std::string key = "sim.max_footprint";
  const std::string pre = "workload." + C.s("workload.name") + ".";
  for (const KeySpec& k : Config::schema())
    if ((k.name.compare(0, pre.size(), pre) == 0 || k.name == "workload.footprint") && C.has(k.name) &&
        C.origin(k.name) != "default")
      key = k.name;
  C.fail(key, "expected a workload within sim.max_footprint (" + bytes_text(max) + "), got " + C.s(key) +
                  ": workload " + C.s("workload.name") + " needs " + bytes_text(need) + " (" + std::to_string(need) +
                  " bytes) of arrays; raise sim.max_footprint if you mean it");
}

bool write_file_atomic(const std::string& path, const std::function<bool(const std::string&)>& write) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  if (!write(tmp)) {
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, path, ec);
  return !ec;
}

// The configured memory-side policy's changes to the configuration, decided once before the address map is
// built from the program's footprint (derive_memside_config, platform/memory_side.h). True when it changed.
bool Platform::Impl::derive_policy_config(const MemDevices& md) {
  MemSideProgram prog;
  prog.footprint_bytes = program->footprint_bytes();
  for (const auto& a : program->arrays()) prog.end = std::max<uint64_t>(prog.end, a.base + a.bytes);
  return derive_memside_config(cfg, md, prog, &derived_stat);
}

// GPU: SMs (with their L1s) and the CTA dispatcher, running the program.
void Platform::Impl::build_gpu(unsigned nsm, const SmCfg& sm, const L1Cfg& l1) {
  gpu.reset(new Gpu("gpu", nsm, sm, l1, &map, pool, &golden, cfg.b("sim.check"), stats));
  gpu->load(placement ? static_cast<ProgramIf*>(placement.get()) : program.get());
  Gpu* g = gpu.get();
  const uint64_t* base = &inst_base;
  probes.level("gpu.instructions", "count", [g, base] { return static_cast<double>(g->instructions() - *base); });
  probes.rate("gpu.ipc", "instructions/cycle", [g] { return g->instructions(); }, 1.0 / (sm.clk.mhz * 1e6));
}

// SM <-> L2 crossbar: SM i on port i, L2 bank b on port b.
void Platform::Impl::build_interconnect(unsigned nsm, unsigned nbanks, const XbarCfg& xb) {
  xbar.reset(new Xbar("noc", nsm, nbanks, xb, stats));
  for (unsigned i = 0; i < nsm; ++i) gpu->sm(i).isock.bind(xbar->from_sm);
}

// Memory side (platform/memory_side.h, the builder strata memtrace uses too): device controllers, the host path,
// the manager and a memory-side controller per partition, each with the partition's L2 banks upstream.
void Platform::Impl::build_memory_side(const MemDevices& md) {
  const unsigned nbanks = static_cast<unsigned>(cfg.i("l2.banks"));
  const unsigned nparts = md.channels / static_cast<unsigned>(cfg.i("memside.partition_channels"));
  mem.reset(new MemorySide(cfg, pool, stats));
  MemSideProgram prog;
  prog.footprint_bytes = program->footprint_bytes();
  for (const auto& a : program->arrays()) prog.end = std::max<uint64_t>(prog.end, a.base + a.bytes);
  mem->build(md, &map, nparts ? nbanks / nparts : 0, prog);
}

// L2 banks: bank b serves memory partition b / (banks per partition) (the
// static map, addrmap.h) and asks that partition's memory side about lines.
void Platform::Impl::build_l2(unsigned nbanks, const L2Cfg& l2c) {
  const unsigned per = nbanks / static_cast<unsigned>(mem->partitions());
  const uint32_t all_ways = l2c.assoc >= 32 ? 0xffffffffu : (1u << l2c.assoc) - 1u;
  const uint32_t reserved = mem->l2_reserved_ways(l2c.assoc) & all_ways;
  for (unsigned b = 0; b < nbanks; ++b) {
    MemSide* side = &mem->side(b / per);
    l2.emplace_back(new L2Bank(("l2_bank" + std::to_string(b)).c_str(), b, nbanks, l2c, side, pool, stats));
    if (gpu) l2.back()->set_atomic_observer(gpu.get());  // the golden memory follows the L2's atomic order
    if (reserved)  // ways the memory-side policy takes for itself (e.g. a tag cache carved out of the L2)
      cache_set_way_mask(l2.back()->tags(), all_ways & ~reserved);
    xbar->to_l2.bind(l2.back()->tsock);
    l2.back()->isock.bind(side->tsock);
  }
  if (mem->um()) {  // a write to a page not in device memory faults; a page-out drops its lines from the L2
    for (auto& b : l2) b->set_write_fetch(true);
  }
  if (mem->um())
    for (unsigned p = 0; p < mem->partitions(); ++p) {
      std::vector<L2Bank*> banks;
      for (unsigned b = p * per; b < (p + 1) * per; ++b) banks.push_back(l2[b].get());
      mem->side(p).set_l2_evict([banks](uint64_t line, unsigned char* out) {
        uint8_t dirty = 0;
        for (L2Bank* b : banks) dirty = static_cast<uint8_t>(dirty | b->evict_line(line, out));
        return dirty;
      });
    }
}

// A running program's hooks: bytes it copied into the golden memory reach the
// devices line by line, where each partition's memory side places them; the
// clock is SystemC's.
HostHooks Platform::Impl::host_hooks() {
  HostHooks h;
  h.write_device = [this](uint64_t addr, uint64_t len) {
    unsigned char line[kLineBytes];
    for (uint64_t a = addr & ~uint64_t(kLineBytes - 1); a < addr + len; a += kLineBytes) {
      bstore_read(&golden, a, line, kLineBytes);
      mem->write_functional(a, line, kLineBytes);
      l2[amap_l2_bank(&map, a)]->write_functional(a, line);  // a copy the L2 holds from an earlier kernel
    }
  };
  h.now_ps = [] { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5); };
  return h;
}

// gpu_power.enabled: the activity-based GPU power model (models/ref/power/gpu_power.c) over the run's
// activity counts, read when stats are written (nothing on the request path), and the system figures of the
// hybrid graphics memory paper (Sec. 5.2, Figs. 10 and 12): system power = GPU + memory, energy efficiency =
// instructions per second per watt (= instructions per joule).
void Platform::Impl::register_gpu_power() {
  if (!cfg.b("gpu_power.enabled")) return;
  auto par = std::make_shared<gpw_params>();
  for (size_t i = 0; i < gpw_param_count(); ++i) *gpw_param_ptr(par.get(), i) = cfg.f(std::string("gpu_power.") + gpw_param_key(i));
  StatsRegistry* S = &stats;
  // One memory controller per memory partition (memside.partition_channels channels behind one controller: the
  // hybrid graphics memory's GDDR5 channel and NVM bus share one, its NVM controller "integrated in the memory
  // controller", Sec. 4.1); one per channel otherwise.
  const unsigned sms = static_cast<unsigned>(cfg.i("gpu.num_sms")),
                 mcs = static_cast<unsigned>(std::max<int64_t>(1, cfg.i("mem.channels") / cfg.i("memside.partition_channels")));
  for (const char* k : {"gpu.instructions", "gpu.warp_instructions", "l1.accesses", "l2.accesses", "noc.req.flits",
                        "noc.resp.flits", "mem.reads", "mem.writes", "mem.energy_j", "sim.seconds"})
    if (!stats.has(k)) throw ConfigError(std::string("key 'gpu_power.enabled': this platform has no stat ") + k);
  // Energies since t = 0 (total(): the registry takes the window's growth of these Delta readings).
  const auto energy = [S, par, sms, mcs] {
    gpw_activity a{};
    a.thread_insts = S->total("gpu.instructions");
    a.warp_insts = S->total("gpu.warp_instructions");
    a.l1_accesses = S->total("l1.accesses");
    a.l2_accesses = S->total("l2.accesses");
    a.noc_flits = S->total("noc.req.flits") + S->total("noc.resp.flits");
    a.mc_accesses = S->total("mem.reads") + S->total("mem.writes");
    a.seconds = S->total("sim.seconds");
    a.sms = sms, a.mcs = mcs;
    gpw_energy e;
    gpw_compute(par.get(), &a, &e);
    return e;
  };
  const auto secs = [S] { return S->total("sim.seconds"); };
  using F = double gpw_energy::*;
  const struct { const char* part; F f; const char* what; } parts[] = {
      {"core", &gpw_energy::core_j, "SMs: thread and warp instructions, SM leakage"},
      {"cache", &gpw_energy::cache_j, "L1 and L2 accesses, L2 and crossbar leakage"},
      {"noc", &gpw_energy::noc_j, "crossbar flits"},
      {"mc", &gpw_energy::mc_j, "memory-controller requests and leakage"},
  };
  for (const auto& p : parts) {
    const F f = p.f;
    const std::string what = std::string("GPU ") + p.what + " (gpu_power.*)";
    stats.formula(std::string("gpu.energy.") + p.part + "_j", what, Unit::Joule, [energy, f] { return energy().*f; });
    stats.ratio(std::string("gpu.power_w.") + p.part, "average power: " + what, Unit::Watt,
                [energy, f] { return energy().*f; }, secs);
  }
  const auto gpu_j = [energy] { return energy().total_j; };
  const auto sys_j = [S, energy] { return energy().total_j + S->total("mem.energy_j"); };
  stats.formula("gpu.energy_j", "GPU chip energy: cores, caches, crossbar, memory controllers (gpu_power.*)",
                Unit::Joule, gpu_j);
  stats.ratio("gpu.power_w", "average GPU chip power: gpu.energy_j / simulated time", Unit::Watt, gpu_j, secs);
  stats.formula("sys.energy_j", "system energy: gpu.energy_j + mem.energy_j", Unit::Joule, sys_j);
  stats.ratio("sys.power_w", "average system power: sys.energy_j / simulated time (GPU + memory)", Unit::Watt, sys_j,
              secs);
  stats.ratio("sim.ips", "throughput: thread instructions per simulated second (hybrid graphics memory Fig. 9)",
              Unit::PerSecond, [S] { return S->total("gpu.instructions"); }, secs);
  stats.ratio("sim.ips_per_w", "energy efficiency: sim.ips / sys.power_w = instructions per joule of the system "
              "(hybrid graphics memory Fig. 12)", Unit::Ratio, [S] { return S->total("gpu.instructions"); }, sys_j);
}

// sim.edp for every run; nvm.lifetime_years where the map has an NVM part of known size (hybrid DRAM+PCM
// paper Sec. VII-I, the endurance model of its ref. [25]: Y = Wmax x S / (F x B x 2^25) with Wmax = 1e8 writes
// per cell, S the PCM bytes, F x B the write traffic in bytes per second, 2^25 s ~ a year).
void Platform::Impl::register_energy_metrics() {
  StatsRegistry* S = &stats;
  stats.level("sim.edp", "energy-delay product: mem.energy_j x sim.seconds (hybrid DRAM+PCM Sec. VI)",
              Unit::JouleSecond, [S] { return S->get("mem.energy_j") * S->get("sim.seconds"); });
  register_gpu_power();
  uint64_t nvm_bytes = 0;
  for (unsigned i = 0; i < map.nparts; ++i)
    if (map.part[i].mem == AMAP_MEM_NVM) nvm_bytes = map.part[i].bytes;
  // A memory of NVM only (pcm_only_partition, the paper's pcmOnly) has no parts: addrmap.nvm_size is its size.
  const bool all_nvm = map.nparts == 0 && map.mem_default == AMAP_MEM_NVM;
  if (all_nvm) nvm_bytes = cfg.size("addrmap.nvm_size");
  // The NVM write traffic: the NVM ranks' where the memory mixes kinds; every byte written where it is all
  // NVM (pcm_only_partition, the paper's pcmOnly: no kind stats in a memory of one kind).
  const std::string writes = stats.has("mem.nvm.write_bytes") ? "mem.nvm.write_bytes" : "mem.write_bytes";
  if (!nvm_bytes || (!all_nvm && !stats.has("mem.nvm.write_bytes")) || !stats.has(writes)) return;
  const double size = static_cast<double>(nvm_bytes);
  stats.level("nvm.lifetime_years",
              "PCM lifetime at this write rate: 1e8 x NVM part bytes / (" + writes + " per second x 2^25) "
              "(hybrid DRAM+PCM Sec. VII-I; 0 when nothing was written)",
              Unit::Year, [S, size, writes] {
                const double secs = S->get("sim.seconds"), wr = S->get(writes);
                return wr > 0 && secs > 0 ? 1e8 * size / (wr / secs * 33554432.0) : 0.0;
              });
  // B of the model, the paper's own per-design figure (Sec. VII-I: pcm-only B = 19.19, Dbuff 7.16, RaPP 8.59, pc
  // 2.29): averaged over workloads it stays finite where a lifetime has nothing written (infinite, shown as 0).
  stats.ratio("nvm.write_bytes_per_cycle", "NVM write traffic in bytes per core cycle, the B of nvm.lifetime_years "
              "(" + writes + " / gpu.cycles)", Unit::Ratio, [S, writes] { return S->get(writes); },
              [S] { return S->get("gpu.cycles"); });
}

// The program's initial data (in the golden memory after Program::init) into
// the devices, each line where its partition's memory side places it.
void Platform::Impl::load_initial_data() {
  struct Ctx {
    Impl* P;
  } ctx{this};
  const int rc = bstore_foreach(&golden, [](void* c, uint64_t addr, const unsigned char* bytes) {
    Impl* P = static_cast<Ctx*>(c)->P;
    for (unsigned o = 0; o < BSTORE_PAGE_BYTES; o += kLineBytes) {
      P->mem->write_functional(addr + o, bytes + o, kLineBytes);
    }
  }, &ctx);
  if (rc != 0) throw std::bad_alloc();
}

// sim.fast_forward_instructions (platform/fast_forward.h): the program's first warp instructions functionally,
// the L1s and the L2 warmed, before the detailed simulation; the GPU then runs the rest through it. The devices
// get the data the fast-forward wrote (the golden memory, line by line where the memory side places it).
void Platform::Impl::fast_forward() {
  const uint64_t n = static_cast<uint64_t>(cfg.i("sim.fast_forward_instructions"));
  if (!n) return;
  const char* key = "sim.fast_forward_instructions";
  const memside_ops* ops = memside_find(cfg.s("memside.policy").c_str());
  if (!ops || !ops->warm_free) {
    std::string ok;
    for (size_t i = 0; i < memside_count(); ++i)
      if (memside_at(i)->warm_free) ok += std::string(ok.empty() ? "" : ", ") + memside_at(i)->name;
    cfg.fail(key, "expected 0 with memside.policy = " + cfg.s("memside.policy") +
                      " (the fast-forward does not warm a memory-side policy's state; policies it supports: " + ok +
                      ")");
  }
  if (mem->um()) cfg.fail(key, "expected 0 with um.enabled = true (the fast-forward does not warm page tables)");
  std::vector<Sm*> sms;
  for (unsigned i = 0; i < gpu->num_sms(); ++i) sms.push_back(&gpu->sm(i));
  std::vector<L2Bank*> banks;
  for (auto& b : l2) banks.push_back(b.get());
  ProgramIf* inner = placement ? static_cast<ProgramIf*>(placement.get()) : program.get();
  ff.reset(new FastForward(cfg, *inner, sms, banks, &map, &golden, cfg.b("sim.fast_forward_warm")));
  if (!ff->run(n))
    cfg.fail(key, "expected a fast-forward shorter than the workload, which ends after " +
                      std::to_string(ff->warp_insts()) + " warp instructions, got " + std::to_string(n));
  gpu->load(ff.get());
  {  // the devices get what the fast-forward wrote (a host copy's bytes reached them already)
    const double t0 = host_now();
    unsigned char line[kLineBytes];
    for (uint64_t a : ff->written_lines()) {
      bstore_read(&golden, a, line, kLineBytes);
      mem->write_functional(a, line, kLineBytes);
    }
    ff_refresh_s = host_now() - t0;
  }
  FastForward* f = ff.get();
  stats.level("sim.fast_forward_warp_instructions",
              "warp instructions run functionally before the detailed part (sim.fast_forward_instructions; not in "
              "gpu.*)", Unit::Count, [f] { return static_cast<double>(f->warp_insts()); });
  stats.level("sim.fast_forward_thread_instructions", "thread instructions of the fast-forward", Unit::Count,
              [f] { return static_cast<double>(f->thread_insts()); });
  stats.level("sim.fast_forward_launches", "kernel launches begun in the fast-forward (the one it stopped in included)",
              Unit::Count, [f] { return static_cast<double>(f->launches()); });
  stats.level("sim.fast_forward_ctas", "CTAs the fast-forward began (those handed over in flight included)", Unit::Count,
              [f] { return static_cast<double>(f->ctas()); });
  stats.level("sim.fast_forward_ctas_in_flight",
              "CTAs the fast-forward had begun and handed to the SMs as it left them (warp contexts, barriers)",
              Unit::Count, [f] { return static_cast<double>(f->in_flight()); });
  stats.level("sim.fast_forward_l2_requests", "line requests the fast-forward's L1s sent to the L2 (warming it)",
              Unit::Count, [f] { return static_cast<double>(f->l2_requests()); });
  stats.level("host.fast_forward_seconds", "host time of the fast-forward (inside host.setup_seconds)", Unit::Second,
              [f, this] { return f->host_seconds() + ff_refresh_s; });
  stats.level("host.fast_forward_warp_instructions_per_second", "fast-forward speed: warp instructions per host second",
              Unit::PerSecond, [f, this] {
                const double t = f->host_seconds() + ff_refresh_s;
                return t > 0 ? f->warp_insts() / t : 0.0;
              });
  Gpu* g = gpu.get();
  const double* hs = &host_seconds;
  stats.level("host.warp_instructions_per_second", "detailed speed: warp instructions per host second of the simulation",
              Unit::PerSecond, [g, hs] { return *hs > 0 ? static_cast<double>(g->warp_instructions()) / *hs : 0.0; });
}

// sim.kernel_sampling (platform/kernel_sampling.h): the first sim.kernel_sampling_detailed launches of each
// signature in detail, the later ones functionally through a FastForward engine (caches warm), their cycles
// extrapolated. The GPU waits for an idle memory system before a functional launch.
void Platform::Impl::kernel_sampling() {
  if (!cfg.b("sim.kernel_sampling")) return;
  const char* key = "sim.kernel_sampling";
  const memside_ops* ops = memside_find(cfg.s("memside.policy").c_str());
  if (!ops || !ops->warm_free)
    cfg.fail(key, "expected false with memside.policy = " + cfg.s("memside.policy") +
                      " (a functional launch does not warm a memory-side policy's state; only plain)");
  if (mem->um()) cfg.fail(key, "expected false with um.enabled = true (a functional launch does not warm page tables)");
  for (const char* k : {"sim.fast_forward_instructions", "sim.warmup_instructions", "sim.max_instructions"})
    if (cfg.i(k))
      cfg.fail(key, std::string("expected false with ") + k +
                        " (the estimate is of the whole program: sampling does not combine with a window)");
  std::vector<Sm*> sms;
  for (unsigned i = 0; i < gpu->num_sms(); ++i) sms.push_back(&gpu->sm(i));
  std::vector<L2Bank*> banks;
  for (auto& b : l2) banks.push_back(b.get());
  ProgramIf* inner = placement ? static_cast<ProgramIf*>(placement.get()) : program.get();
  ff.reset(new FastForward(cfg, *inner, sms, banks, &map, &golden, true));
  auto flush = [](void* ctx) {  // the devices get what a functional launch wrote and what the L2 dropped dirty
    Impl* ip = static_cast<Impl*>(ctx);
    unsigned char line[kLineBytes];
    for (uint64_t a : ip->ff->written_lines()) {
      bstore_read(&ip->golden, a, line, kLineBytes);
      ip->mem->write_functional(a, line, kLineBytes);
    }
  };
  ksampler.reset(new KernelSampler(*inner, *ff, static_cast<unsigned>(cfg.i("sim.kernel_sampling_detailed")), flush,
                                   this));
  gpu->load(ksampler.get());
  gpu->set_memory_idle([this] {
    for (auto& b : l2)
      if (!b->idle()) return false;
    for (size_t p = 0; p < mem->partitions(); ++p)
      if (!mem->side(p).idle()) return false;
    for (size_t c = 0; c < mem->channels(); ++c)
      if (!mem->ctrl(c).idle()) return false;
    return true;
  });
  KernelSampler* k = ksampler.get();
  FastForward* f = ff.get();
  Gpu* g = gpu.get();
  const double period_s = 1e-6 / cfg.f("gpu.core_clock_mhz");
  stats.level("sampling.detailed_launches", "launches simulated in detail (the first of each signature)",
              Unit::Count, [k] { return static_cast<double>(k->detailed_launches()); });
  stats.level("sampling.functional_launches", "launches run functionally, their cycles extrapolated", Unit::Count,
              [k] { return static_cast<double>(k->functional_launches()); });
  stats.level("sampling.signatures", "launch signatures seen (kernel name, grid, CTA size, size bucket)",
              Unit::Count, [k] { return static_cast<double>(k->signatures()); });
  stats.level("sampling.functional_warp_instructions", "warp instructions of the functional launches (not in gpu.*)",
              Unit::Count, [k] { return static_cast<double>(k->functional_warp_insts()); });
  stats.level("sampling.functional_thread_instructions", "thread instructions of the functional launches",
              Unit::Count, [k] { return static_cast<double>(k->functional_thread_insts()); });
  stats.level("sampling.est_cycles",
              "estimated core cycles of the whole program: the detailed launches' plus the functional ones' "
              "extrapolated at their signature's detailed warp instructions per cycle", Unit::Cycle,
              [k] { return k->est_cycles(); });
  stats.level("sampling.est_instructions", "thread instructions of the whole program (detailed + functional)",
              Unit::Count, [k] { return static_cast<double>(k->est_thread_insts()); });
  stats.level("sampling.est_ipc", "estimated IPC of the whole program (est_instructions / est_cycles)", Unit::InstPerCycle,
              [k] { return k->est_cycles() > 0 ? k->est_thread_insts() / k->est_cycles() : 0.0; });
  stats.level("sampling.est_seconds", "estimated kernel time of the whole program (est_cycles at the core clock)",
              Unit::Second, [k, period_s] { return k->est_cycles() * period_s; });
  stats.level("sampling.idle_wait_cycles",
              "core cycles the GPU waited before functional launches for the memory system to go idle (in gpu.cycles, "
              "not in est_cycles)", Unit::Cycle, [g] { return static_cast<double>(g->idle_wait_cycles()); });
  stats.level("host.sampling_functional_seconds", "host time of the functional launches", Unit::Second,
              [f] { return f->host_seconds(); });
}

void Platform::build() {
  Impl& P = *p_;
  const Config& C = P.cfg;
  const double t0 = host_now();
  Scheduler::get();  // the models' event scheduler, a top-level module (common/sched.h)

  // Memory devices (a preset per channel and rank), the workload program (arrays, kernels), the memory-side
  // policy's derivation (it may depend on the program's footprint and change the map's keys), the static address map, then the
  // program's initial data into the golden memory.
  MemDevices md = mem_devices(C);
  const unsigned nbanks = static_cast<unsigned>(C.i("l2.banks"));
  if (P.opt.make_program) {
    P.program = P.opt.make_program(C);
  } else {
    P.program = make_workload_program(C);
    check_footprint(C, *P.program);
  }
  if (P.derive_policy_config(md)) md = mem_devices(C);
  init_address_map(C, md, &P.map);
  if (C.s("placement.mode") == "engine")  // profile (a second instance), solve, mallocHyb (platform/placement.h)
    P.placement.reset(new PlacementEngine(C, P.map, md, *P.program,
                                          P.opt.make_program ? P.opt.make_program(C) : make_workload_program(C),
                                          &P.golden));
  P.program->init(&P.golden, nullptr);

  // GPU.
  const SmCfg sm = sm_cfg(C);
  const L1Cfg l1 = l1_cfg(C);
  const unsigned nsm = static_cast<unsigned>(C.i("gpu.num_sms"));
  P.build_gpu(nsm, sm, l1);

  // Interconnect.
  P.build_interconnect(nsm, nbanks, xbar_cfg(C));

  // Memory side: device controllers and memory-side controllers.
  P.build_memory_side(md);
  {  // a policy caching the first part in the others needs the program there
    uint64_t end = 0, flat_end = 0;  // flat_end: arrays wholly beyond the first part (a placement engine's)
    const uint64_t first = P.map.nparts ? P.map.part[0].bytes : 0;
    for (const auto& a : P.program->arrays()) {
      uint64_t& e = first && a.base >= first ? flat_end : end;
      e = std::max<uint64_t>(e, a.base + a.bytes);
    }
    P.mem->check_placement(end, flat_end);
  }
  P.load_initial_data();
  P.program->set_host_hooks(P.host_hooks());
  P.mem->build_scm_throttle();

  // L2 banks between the crossbar and the memory side.
  P.build_l2(nbanks, l2_cfg(C));  // l2.banks = nbanks
  std::vector<L2Bank*> l2v;
  for (auto& b : P.l2) l2v.push_back(b.get());
  L2Bank::register_totals(P.stats, l2v);
  L2Bank::register_probes(P.probes, l2v);
  P.mem->register_totals(P.stats, &P.probes);  // mem.*, its probes, memside.*
  P.fast_forward();  // sim.fast_forward_instructions: the program's first part functionally, caches warm
  P.kernel_sampling();  // sim.kernel_sampling: later launches of a signature functionally, extrapolated

  // Sampler, time series, VCD.
  P.sampler.reset(new Sampler("sampler", C.f("sim.epoch_ns"), P.gpu.get(), P.probes));
  P.gpu->on_kernel_boundary([ip = &P](uint32_t k, bool last) {  // every partition's policy hears it
    ip->mem->kernel_boundary(k, last);
  });
  P.gpu->on_finished([s = P.sampler.get(), t = P.mem->throttle()] {  // the last sample is the end of the run
    s->stop();
    if (t) t->stop();
  });
  if (!P.opt.vcd.empty()) {
    std::string base = P.opt.vcd;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    P.tf = sc_core::sc_create_vcd_trace_file(base.c_str());
    if (!P.tf) throw ConfigError(P.opt.vcd + ": cannot create VCD file");
    P.tf->set_time_unit(1, sc_core::SC_PS);  // clocks of 901 MHz etc. are not whole ns
    P.sampler->trace(P.tf);
  }

  // Platform-level stats.
  Impl* ip = &P;
  P.stats.formula("sim.seconds", "simulated time (a window: its simulated time)", Unit::Second,
                  [] { return sc_core::sc_time_stamp().to_seconds(); });
  P.stats.value("sim.window", "1 if the stats cover a measurement window (sim.warmup_instructions ended, or "
                "sim.max_instructions stopped the run), else 0", Unit::Count, &P.window);
  P.stats.value("sim.window_start_seconds", "simulated time at which the window's stats start (0 without a warm-up)",
                Unit::Second, &P.window_start_s);
  P.stats.value("sim.warmup_warp_instructions", "warp instructions before the window (the warm-up; not in the stats)",
                Unit::Count, &P.warmup_insts);
  P.stats.value("sim.partial", "1 if the run stopped before the workload finished (see sim.stop_reason), else 0",
                Unit::Count, &P.partial);
  P.stats.value("sim.stop_reason",
                "why the run ended: 0 completed, 1 time limit (sim.max_time_us), 2 interrupted (SIGINT/SIGTERM), "
                "3 stalled, 4 instruction limit (sim.max_instructions: an instruction window)",
                Unit::Count, &P.stop_reason);
  P.stats.value("host.seconds", "host wall-clock time of the simulation (excluding set-up)", Unit::Second,
                &P.host_seconds);
  P.stats.value("host.setup_seconds", "host time to build the platform and initialise the workload data",
                Unit::Second, &P.host_setup);
  P.stats.value("host.mem_requests_per_second", "memory-controller requests simulated per host second",
                Unit::PerSecond, &P.mem_req_rate);
  P.stats.value("host.mem_accesses_per_second",
                "32 B DRAM column accesses (read + write bursts) simulated per host second", Unit::PerSecond,
                &P.mem_access_rate);
  P.stats.value("host.peak_rss_bytes", "peak resident memory of the simulator process", Unit::Byte, &P.peak_rss);
  P.stats.level("host.process_runs", "model process activations by the event scheduler (common/sched.h)", Unit::Count,
                  [] { return static_cast<double>(Scheduler::get().activations()); });
  if (!P.derived_stat.name.empty())  // the memory-side policy's derivation (memside_ops.derive)
    P.stats.value(P.derived_stat.name, P.derived_stat.desc, Unit::Count, &P.derived_stat.value);
  P.register_energy_metrics();
  if (P.placement) P.placement->register_stats(P.stats, [ip] { return ip->stats.total("mem.energy_j"); });
  P.stats.level("workload.footprint_bytes", "bytes of all arrays of the workload", Unit::Byte,
                  [ip] { return static_cast<double>(ip->program->footprint_bytes()); });
  P.host_setup = host_now() - t0;
}

// A run in named steps: prepare the outputs, arm the measurement window, run
// the simulation under the signal guard, reject what only the run could show
// to be bad input, take the end-of-run measurements, classify why the run
// stopped, write the result files, print the summary.
int Platform::run() {
  Impl& P = *p_;
  const bool created_out = P.prepare_outputs();
  P.arm_window();
  P.run_simulation();
  P.reject_unusable_run(created_out);
  P.measure_run();
  int status = kExitOk;
  const StopReason reason = P.classify_stop(&status);
  P.record_stop(reason);
  if (!P.write_results()) {
    std::fprintf(stderr, "strata: %s: cannot write stats files\n", P.opt.out_dir.c_str());
    return kExitFailure;
  }
  if (!P.opt.quiet) P.print_summary(reason, status);
  return status;
}

// The output directory (created if missing: true), the time series file and
// the progress line; the sampler (and the SCM throttle) start their epochs.
bool Platform::Impl::prepare_outputs() {
  std::error_code ec;
  const bool created = fs::create_directories(opt.out_dir, ec);
  if (ec || !fs::is_directory(opt.out_dir))
    throw ConfigError(opt.out_dir + ": cannot create output directory (" + ec.message() + ")");
  sampler->open_csv(opt.out_dir + "/timeseries.csv");
  using Progress = Sampler::Progress;
  sampler->progress_ = !opt.progress || opt.quiet  ? Progress::Off
                       : isatty(STDERR_FILENO)     ? Progress::Terminal
                       : opt.heartbeat_s > 0       ? Progress::Heartbeat
                                                   : Progress::Off;
  sampler->heartbeat_s_ = opt.heartbeat_s;
  sampler->ctrl_requests_ = [this] { return stats.total("mem.reads") + stats.total("mem.writes"); };
  sampler->host_start_ = sampler->last_print_ = host_now();
  sampler->start();
  if (mem->throttle()) mem->throttle()->start();
  return created;
}

// Run control: sim.max_time_us, and the measurement window's marks at
// warp-instruction counts, notified by the SMs (no polling): the warm-up's end
// (sim.warmup_instructions) and the instruction limit (sim.max_instructions).
void Platform::Impl::arm_window() {
  const double max_us = cfg.f("sim.max_time_us");
  if (max_us > 0) sampler->arm_limit(sc_time(max_us * 1e6, SC_PS));
  warmup = static_cast<uint64_t>(cfg.i("sim.warmup_instructions"));
  max_insts = static_cast<uint64_t>(cfg.i("sim.max_instructions"));
  if (warmup) {
    sampler->write_csv_ = false;
    gpu->at_warp_instructions(warmup, [this] { start_window(); });
  } else {
    arm_instruction_limit();
  }
}

// The warm-up's last instruction: every stat restarts here (the models are not
// touched), the per-kernel stats and the time series too.
void Platform::Impl::start_window() {
  stats.mark();
  gpu->window_start();
  window = 1;
  window_start_s = sc_core::sc_time_stamp().to_seconds();
  warmup_insts = static_cast<double>(gpu->warp_instructions());
  inst_base = gpu->instructions();
  sampler->window_start();
  arm_instruction_limit();
}

void Platform::Impl::arm_instruction_limit() {
  if (!max_insts) return;
  gpu->at_warp_instructions(warmup + max_insts, [this] {
    gpu->stopped_early();  // gpu.cycles and the running kernel's record end at this instruction
    stats.freeze();        // the stats of exactly this instruction (the SM's issue group goes on until the stop)
    sampler->instruction_limit();
  });
}

// sc_start with SIGINT/SIGTERM caught (the first asks the sampler to stop at
// its next epoch, see on_stop_signal) and the previous handlers restored;
// host.seconds is the time it took.
void Platform::Impl::run_simulation() {
  const double t0 = host_now();
  g_stop_signal = 0;
  struct sigaction sa {}, old_int{}, old_term{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sc_core::sc_start();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  host_seconds = host_now() - t0;
  if (sampler->printed_) std::fprintf(stderr, "\n");
}

// Bad input that only the run could find (a CTA larger than an SM, a warm-up
// longer than the workload): the time series and a directory the run created
// are removed, and the error names the key (exit 2).
void Platform::Impl::reject_unusable_run(bool created_out) {
  std::error_code ec;
  auto discard_outputs = [&] {
    sampler->close_csv();
    fs::remove(opt.out_dir + "/timeseries.csv", ec);
    if (created_out) fs::remove(opt.out_dir, ec);
  };
  if (!gpu->launch_error().empty()) {
    discard_outputs();
    cfg.fail("sm.max_warps", "expected enough warp slots for a CTA: " + gpu->launch_error() +
                                 ", which cannot fit an SM of " + std::to_string(cfg.i("sm.max_warps")) + " warp slots");
  }
  if (warmup && !stats.marked() && gpu->finished()) {  // the warm-up never ended: no window to report
    discard_outputs();
    cfg.fail("sim.warmup_instructions", "expected a warm-up shorter than the workload, which ends after " +
                                            std::to_string(gpu->warp_instructions()) + " warp instructions, got " +
                                            std::to_string(warmup));
  }
}

// The end-of-run timing check (refresh interval; a violation exits with
// status 3), the simulated time, and the host rates over the whole simulation
// (warm-up included: readings since t = 0) and peak memory.
void Platform::Impl::measure_run() {
  mem->finish_timing_check();
  sim_seconds = sc_core::sc_time_stamp().to_seconds();
  if (max_insts && sampler->inst_limited_) window = 1;
  const double reqs = stats.total("mem.reads") + stats.total("mem.writes");
  mem_req_rate = host_seconds > 0 ? reqs / host_seconds : 0;
  double atoms = 0;
  for (size_t c = 0; c < mem->channels(); ++c) {
    const std::string ch = "mem.ch" + std::to_string(c) + ".";
    atoms += stats.total(ch + "read_atoms") + stats.total(ch + "write_atoms");
  }
  mem_access_rate = host_seconds > 0 ? atoms / host_seconds : 0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  peak_rss = static_cast<double>(ru.ru_maxrss) * 1024.0;
}

// Why the run ended (sim.stop_reason) and its exit status; a stop that is not
// the user's request, and a failed result check, are explained on stderr.
StopReason Platform::Impl::classify_stop(int* status) {
  std::string why;
  *status = kExitOk;
  if (sampler->interrupted_) {
    *status = kExitInterrupted;
    std::fprintf(stderr, "strata: interrupted (%s) at %.3f us simulated: writing the partial stats to %s\n",
                 g_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", sim_seconds * 1e6, opt.out_dir.c_str());
    return StopReason::Interrupted;
  }
  if (sampler->stalled_) {
    std::fprintf(stderr, "strata: simulation stalled at %.3f us: no instruction retired and no memory request "
                 "for over 1 ms of simulated time (a model bug; please report with the config)\n",
                 sim_seconds * 1e6);
    *status = kExitFailure;
    return StopReason::Stalled;
  }
  if (!gpu->finished()) {
    if (sampler->inst_limited_) return StopReason::InstructionLimit;  // a requested stop: exit 0, the result is not checked
    if (sampler->time_limited_) return StopReason::TimeLimit;
    std::fprintf(stderr, "strata: simulation ended before the workload finished\n");
    *status = kExitFailure;
    return StopReason::Stalled;
  }
  if (!program->run_error().empty()) {  // bad input only the run could find (the program's PTX)
    std::fprintf(stderr, "strata: %s\n", program->run_error().c_str());
    *status = kExitBadInput;
    return StopReason::Completed;
  }
  if (!program->verify(&golden, &why)) {
    std::fprintf(stderr, "strata: workload result check failed: %s\n", why.c_str());
    *status = kExitFailure;
  }
  return StopReason::Completed;
}

// The stop into the stats: gpu.cycles of a stopped run, sim.stop_reason,
// sim.partial, and the per-kernel stats now that every launch is known.
void Platform::Impl::record_stop(StopReason reason) {
  if (reason == StopReason::TimeLimit || reason == StopReason::Interrupted || reason == StopReason::InstructionLimit)
    gpu->stopped_early();
  stop_reason = static_cast<double>(reason);
  partial = reason == StopReason::Completed ? 0 : 1;
  gpu->register_kernel_stats(stats);  // kernel.<n>.<name>.*
}

// config.txt, stats.json, stats.txt: each written to a temporary name, then
// renamed, so a stats file that exists is complete. False on failure.
bool Platform::Impl::write_results() {
  const bool config_ok = write_file_atomic(opt.out_dir + "/config.txt", [&](const std::string& f) {
    std::ofstream o(f);
    o << "# effective configuration (key = value  # origin)\n" << cfg.dump();
    o.close();
    return !o.fail();
  });
  if (placement && !write_file_atomic(opt.out_dir + "/placement_plan.txt",
                                      [&](const std::string& f) { return placement->write_plan(f); }))
    return false;
  return config_ok &&
         write_file_atomic(opt.out_dir + "/stats.json", [&](const std::string& f) { return stats.write_json(f); }) &&
         write_file_atomic(opt.out_dir + "/stats.txt", [&](const std::string& f) { return stats.write_txt(f); });
}

// The summary on stdout: how the run ended, the window it covers, the headline
// numbers, the checkers' verdicts, host cost and where the files are.
void Platform::Impl::print_summary(StopReason reason, int status) {
  const Config& C = cfg;
  auto g = [&](const char* n) { return stats.get(n); };
  const char* how = reason == StopReason::TimeLimit          ? "stopped at the time limit (sim.max_time_us)"
                    : reason == StopReason::InstructionLimit ? "stopped at the instruction limit (sim.max_instructions)"
                    : reason == StopReason::Interrupted      ? "INTERRUPTED"
                    : status == kExitOk                      ? "finished"
                                                             : "STOPPED";
  const std::string workload = opt.make_program ? "program " + program->name() : "workload " + C.s("workload.name");
  std::printf("strata %s on %s, %s%s\n", how, C.files().empty() ? "built-in defaults" : C.files().front().c_str(),
              workload.c_str(),
              C.b("sim.check") ? " (golden-memory check on)" : "");
  if (reason == StopReason::InstructionLimit)
    std::printf("  WINDOW      an instruction window, not a completed program: the stats cover %.0f warp "
                "instructions after a warm-up of %.0f (sim.partial = 1, sim.stop_reason = 4)\n",
                g("gpu.warp_instructions"), warmup_insts);
  else if (window)
    std::printf("  WINDOW      the stats cover the run after a warm-up of %.0f warp instructions (from %.3f us)\n",
                warmup_insts, window_start_s * 1e6);
  if (reason != StopReason::Completed && reason != StopReason::InstructionLimit)
    std::printf("  PARTIAL     the workload did not finish: the stats cover the %.3f us simulated%s "
                "(sim.partial = 1, sim.stop_reason = %d)\n",
                g("sim.seconds") * 1e6, window ? " after the warm-up" : "", static_cast<int>(reason));
  std::printf("  simulated   %.3f us, %.0f GPU cycles, %.0f instructions, IPC %.2f\n", g("sim.seconds") * 1e6,
              g("gpu.cycles"), g("gpu.instructions"), g("gpu.ipc"));
  std::printf("  caches      L1 miss rate %.1f%%, L2 miss rate %.1f%% (%.0f accesses)\n", 100 * g("l1.miss_rate"),
              100 * g("l2.miss_rate"), g("l2.accesses"));
  std::printf("  memory      %.1f GB/s of %.1f GB/s peak (%.1f%%), read latency %.1f ns, row hits %.1f%%\n",
              g("mem.bandwidth_gbps"), g("mem.peak_bandwidth_gbps"),
              100 * g("mem.bandwidth_gbps") / std::max(1e-9, g("mem.peak_bandwidth_gbps")),
              g("mem.avg_read_latency_ns"), 100 * g("mem.row_hit_rate"));
  std::printf("  energy      %.3g J (memory)\n", g("mem.energy_j"));
  auto whole = [&](const char* n) { return stats.total(n); };  // the checkers cover the whole run
  if (C.b("sim.check")) std::printf("  check       %.0f loads compared, all equal\n", whole("check.loads"));
  if (C.b("mem.timing_check"))
    std::printf("  timing      %.0f DRAM commands checked, no violation\n", whole("mem.timing_checked_commands"));
  std::printf("  host        %.2f s, %.3g ctrl req/s (memory-controller requests per host second), "
              "peak RSS %.0f MiB\n", g("host.seconds"), g("host.mem_requests_per_second"),
              g("host.peak_rss_bytes") / 1048576.0);
  std::printf("  output      %s/{stats.txt,stats.json,timeseries.csv}%s\n", opt.out_dir.c_str(),
              opt.vcd.empty() ? "" : (" and " + opt.vcd).c_str());
}

}  // namespace strata
