#include "platform/platform.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
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
#include "noc/xbar.h"
#include "platform/module_cfg.h"
#include "sm/gpu.h"
#include "workloads/registry.h"

extern "C" {
#include "addrmap.h"
#include "bstore.h"
#include "dram.h"
}

namespace fs = std::filesystem;
using sc_core::sc_time;
using sc_core::SC_PS;

namespace strata {

namespace {

double host_now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// Samples the platform once per epoch: time series (CSV), traced values (VCD),
// progress line, deadlock watchdog. One event per epoch; costs nothing between.
struct Sampler : sc_core::sc_module {
  SC_HAS_PROCESS(Sampler);
  Sampler(sc_core::sc_module_name n, double epoch_ns, Gpu* gpu, std::vector<L2Bank*> l2,
          std::vector<MemCtrl*> mcs, double core_mhz)
      : sc_module(n), gpu_(gpu), l2_(std::move(l2)), mcs_(std::move(mcs)), core_mhz_(core_mhz) {
    epoch_ = sc_time(epoch_ns * 1000.0, SC_PS);
    bw_.assign(mcs_.size(), 0.0);
    rq_.assign(mcs_.size(), 0.0);
    wq_.assign(mcs_.size(), 0.0);
    last_bytes_.assign(mcs_.size(), 0);
    ev_.bind<&Sampler::tick>(this);  // created last: runs after the models due at the same time
  }
  void start() { ev_.notify(epoch_); }
  void stop() { ev_.cancel(); }

  void trace(sc_core::sc_trace_file* tf) {
    for (size_t c = 0; c < mcs_.size(); ++c) {
      sc_core::sc_trace(tf, bw_[c], "mem.ch" + std::to_string(c) + ".bandwidth_gbps");
      sc_core::sc_trace(tf, rq_[c], "mem.ch" + std::to_string(c) + ".read_queue");
      sc_core::sc_trace(tf, wq_[c], "mem.ch" + std::to_string(c) + ".write_queue");
    }
    sc_core::sc_trace(tf, l2_hit_rate_, "l2.hit_rate");
    sc_core::sc_trace(tf, ipc_, "gpu.ipc");
    sc_core::sc_trace(tf, inst_, "gpu.instructions");
  }

  void open_csv(const std::string& path) {
    csv_.open(path);
    csv_ << "time_ns,gpu.instructions,gpu.ipc,l2.hit_rate";
    for (size_t c = 0; c < mcs_.size(); ++c)
      csv_ << ",mem.ch" << c << ".bandwidth_gbps,mem.ch" << c << ".read_queue,mem.ch" << c << ".write_queue";
    csv_ << "\n";
  }

  void tick() {
    const double dt_s = epoch_.to_seconds();
    const uint64_t inst = gpu_->instructions();
    ipc_ = static_cast<double>(inst - last_inst_) / (dt_s * core_mhz_ * 1e6);
    inst_ = static_cast<double>(inst);
    uint64_t acc = 0, hits = 0;
    for (L2Bank* b : l2_) acc += b->accesses(), hits += b->hits();
    l2_hit_rate_ = acc > last_acc_ ? static_cast<double>(hits - last_hits_) / static_cast<double>(acc - last_acc_) : 0;
    last_acc_ = acc;
    last_hits_ = hits;
    uint64_t req = gpu_->mem_requests();
    for (size_t c = 0; c < mcs_.size(); ++c) {
      const uint64_t by = mcs_[c]->bytes_transferred();
      bw_[c] = static_cast<double>(by - last_bytes_[c]) / dt_s / 1e9;
      last_bytes_[c] = by;
      rq_[c] = mcs_[c]->read_queue_occupancy();
      wq_[c] = mcs_[c]->write_queue_occupancy();
    }
    if (csv_.is_open()) {
      csv_ << sc_core::sc_time_stamp().to_seconds() * 1e9 << "," << inst << "," << ipc_ << "," << l2_hit_rate_;
      for (size_t c = 0; c < mcs_.size(); ++c) csv_ << "," << bw_[c] << "," << rq_[c] << "," << wq_[c];
      csv_ << "\n";
    }
    // Watchdog: the GPU is not finished but nothing moved for a long time.
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
    if (progress_) print_progress(inst, req);
    if (!gpu_->finished()) ev_.notify(epoch_);
  }

  void print_progress(uint64_t inst, uint64_t req) {
    const double now = host_now();
    if (now - host_start_ < 2.0 || now - last_print_ < 0.5) return;
    last_print_ = now;
    const double host = now - host_start_;
    const double frac = gpu_->progress();
    char eta[32] = "?";
    if (frac > 0.01) std::snprintf(eta, sizeof eta, "%.0fs", host * (1 - frac) / frac);
    std::fprintf(stderr, "\r[strata] %.1f us sim | %.3g inst | %.3g mem req | %.3g req/s | %3.0f%% | ETA %s   ",
                 sc_core::sc_time_stamp().to_seconds() * 1e6, static_cast<double>(inst), static_cast<double>(req),
                 static_cast<double>(req) / host, frac * 100, eta);
    printed_ = true;
  }

  Gpu* gpu_;
  std::vector<L2Bank*> l2_;
  std::vector<MemCtrl*> mcs_;
  double core_mhz_;
  sc_time epoch_;
  Event ev_;
  std::vector<double> bw_, rq_, wq_;
  std::vector<uint64_t> last_bytes_;
  double l2_hit_rate_ = 0, ipc_ = 0, inst_ = 0;
  uint64_t last_inst_ = 0, last_req_ = 0, last_acc_ = 0, last_hits_ = 0, idle_epochs_ = 0;
  bool stalled_ = false, progress_ = false, printed_ = false;
  double host_start_ = 0, last_print_ = 0;
  std::ofstream csv_;
};

}  // namespace

struct Platform::Impl {
  const Config& cfg;
  RunOptions opt;
  StatsRegistry stats;
  PayloadPool pool;
  amap map{};
  bstore device{}, golden{};
  std::unique_ptr<Program> program;
  std::unique_ptr<Gpu> gpu;
  std::unique_ptr<Xbar> xbar;
  std::vector<std::unique_ptr<L2Bank>> l2;
  std::vector<std::unique_ptr<MemCtrl>> mcs;
  std::unique_ptr<Sampler> sampler;
  sc_core::sc_trace_file* tf = nullptr;
  double host_seconds = 0, sim_seconds = 0, mem_req_rate = 0, mem_access_rate = 0, peak_rss = 0, host_setup = 0;
  uint64_t program_footprint = 0;

  Impl(const Config& c, const RunOptions& o) : cfg(c), opt(o) {
    bstore_init(&device);
    bstore_init(&golden);
  }
  ~Impl() {
    if (tf) sc_core::sc_close_vcd_trace_file(tf);
    bstore_free(&device);
    bstore_free(&golden);
  }
};

Platform::Platform(const Config& cfg, const RunOptions& opt) : p_(new Impl(cfg, opt)) {}
Platform::~Platform() = default;

std::unique_ptr<Program> make_workload_program(const Config& C) {
  const WorkloadInfo* wi = find_workload(C.s("workload.name"));
  std::map<std::string, int64_t> knobs;
  for (const KnobSpec& k : wi->knobs) knobs[k.name] = C.i("workload." + wi->name + "." + k.name);
  knobs[kFootprintKnob] = static_cast<int64_t>(C.size("workload.footprint"));
  return wi->make(knobs, static_cast<uint64_t>(C.i("sim.seed")));
}

void Platform::build() {
  Impl& P = *p_;
  const Config& C = P.cfg;
  const double t0 = host_now();
  Scheduler::get();  // the models' event scheduler, a top-level module (common/sched.h)

  // Memory devices (a preset per channel and rank) and the address map.
  const MemDevices md = mem_devices(C);
  const unsigned nch = md.channels;
  const unsigned nbanks = static_cast<unsigned>(C.i("l2.banks"));
  init_address_map(C, md, &P.map);

  // Workload program (arrays, kernels, initial data into device + golden memory).
  P.program = make_workload_program(C);
  P.program->init(&P.golden, &P.device);

  // GPU.
  const SmCfg sm = sm_cfg(C);
  const L1Cfg l1 = l1_cfg(C);
  const unsigned nsm = static_cast<unsigned>(C.i("gpu.num_sms"));
  P.gpu.reset(new Gpu("gpu", nsm, sm, l1, &P.map, P.pool, &P.golden, C.b("sim.check"), P.stats));
  P.gpu->load(P.program.get());

  // Crossbar, L2 banks, memory controllers.
  const XbarCfg xb = xbar_cfg(C);
  P.xbar.reset(new Xbar("noc", nsm, nbanks, xb, P.stats));
  for (unsigned i = 0; i < nsm; ++i) P.gpu->sm(i).isock.bind(P.xbar->from_sm);

  const L2Cfg l2 = l2_cfg(C);  // l2.banks = nbanks
  McCfg mc;
  mc.device = C.s("mem.device");
  mc.ranks = static_cast<unsigned>(C.i("mem.ranks"));
  mc.read_queue = static_cast<unsigned>(C.i("mem.read_queue"));
  mc.write_queue = static_cast<unsigned>(C.i("mem.write_queue"));
  mc.wq_high = static_cast<unsigned>(C.i("mem.wq_high"));
  mc.wq_low = static_cast<unsigned>(C.i("mem.wq_low"));
  mc.open_page = C.s("mem.page_policy") == "open";
  mc.refresh = C.b("mem.refresh");
  mc.refresh_per_bank = C.s("mem.refresh_mode") == "per_bank";
  mc.powerdown_idle_cycles = static_cast<unsigned>(C.i("mem.powerdown_idle_cycles"));
  mc.nvm_power_gating = C.b("mem.nvm_power_gating");
  mc.timing_check = C.b("mem.timing_check");
  mc.timing_check_device = C.s("mem.timing_check_device");
  mc.check_mem_type = true;  // the L2's per-line memory kind must be the serving rank's
  for (unsigned c = 0; c < nch; ++c) {
    mc.rank_devices.clear();
    if (md.mixed)
      for (unsigned r = 0; r < md.ranks; ++r) mc.rank_devices.push_back(md.at(c, r)->name);
    P.mcs.emplace_back(new MemCtrl(("mem_ch" + std::to_string(c)).c_str(), c, mc, &P.map, &P.device, P.pool, P.stats));
  }
  for (unsigned b = 0; b < nbanks; ++b) {
    P.l2.emplace_back(new L2Bank(("l2_bank" + std::to_string(b)).c_str(), b, nbanks, l2, &P.map, P.pool, P.stats));
    P.xbar->to_l2.bind(P.l2.back()->tsock);
    P.l2.back()->isock.bind(P.mcs[b / (nbanks / nch)]->tsock);
  }
  std::vector<L2Bank*> l2v;
  for (auto& b : P.l2) l2v.push_back(b.get());
  std::vector<MemCtrl*> mcv;
  for (auto& m : P.mcs) mcv.push_back(m.get());
  L2Bank::register_totals(P.stats, l2v);
  MemCtrl::register_totals(P.stats, mcv);

  // Sampler, time series, VCD.
  P.sampler.reset(new Sampler("sampler", C.f("sim.epoch_ns"), P.gpu.get(), l2v, mcv, sm.clk.mhz));
  P.gpu->on_finished([s = P.sampler.get()] { s->stop(); });  // the last sample is the end of the run
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
  P.stats.value("sim.seconds", "simulated time", Unit::Second, &P.sim_seconds);
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
  P.stats.formula("host.process_runs", "model process activations by the event scheduler (common/sched.h)", Unit::Count,
                  [] { return static_cast<double>(Scheduler::get().activations()); });
  P.stats.formula("workload.footprint_bytes", "bytes of all arrays of the workload", Unit::Byte,
                  [ip] { return static_cast<double>(ip->program->footprint_bytes()); });
  P.host_setup = host_now() - t0;
}

int Platform::run() {
  Impl& P = *p_;
  const Config& C = P.cfg;
  std::error_code ec;
  fs::create_directories(P.opt.out_dir, ec);
  if (ec || !fs::is_directory(P.opt.out_dir))
    throw ConfigError(P.opt.out_dir + ": cannot create output directory (" + ec.message() + ")");
  P.sampler->open_csv(P.opt.out_dir + "/timeseries.csv");
  P.sampler->progress_ = P.opt.progress && !P.opt.quiet && isatty(STDERR_FILENO);
  P.sampler->host_start_ = host_now();
  P.sampler->start();

  const double t0 = host_now();
  const double max_us = C.f("sim.max_time_us");
  if (max_us > 0)
    sc_core::sc_start(sc_time(max_us * 1e6, SC_PS));
  else
    sc_core::sc_start();
  P.host_seconds = host_now() - t0;
  if (P.sampler->printed_) std::fprintf(stderr, "\n");
  // End-of-run timing check (refresh interval); a violation exits with status 3.
  for (auto& m : P.mcs) m->finish_timing_check();
  P.sim_seconds = sc_core::sc_time_stamp().to_seconds();
  const double reqs = P.stats.get("mem.reads") + P.stats.get("mem.writes");
  P.mem_req_rate = P.host_seconds > 0 ? reqs / P.host_seconds : 0;
  double atoms = 0;
  for (size_t c = 0; c < P.mcs.size(); ++c) {
    const std::string ch = "mem.ch" + std::to_string(c) + ".";
    atoms += P.stats.get(ch + "read_atoms") + P.stats.get(ch + "write_atoms");
  }
  P.mem_access_rate = P.host_seconds > 0 ? atoms / P.host_seconds : 0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  P.peak_rss = static_cast<double>(ru.ru_maxrss) * 1024.0;

  int status = kExitOk;
  std::string why;
  if (P.sampler->stalled_) {
    std::fprintf(stderr, "strata: simulation stalled at %.3f us: no instruction retired and no memory request "
                 "for over 1 ms of simulated time (a model bug; please report with the config)\n",
                 P.sim_seconds * 1e6);
    status = kExitFailure;
  } else if (!P.gpu->finished()) {
    if (max_us <= 0) {
      std::fprintf(stderr, "strata: simulation ended before the workload finished\n");
      status = kExitFailure;
    }
  } else if (!P.program->verify(&P.golden, &why)) {
    std::fprintf(stderr, "strata: workload result check failed: %s\n", why.c_str());
    status = kExitFailure;
  }

  std::ofstream(P.opt.out_dir + "/config.txt") << "# effective configuration (key = value  # origin)\n"
                                                 << C.dump();
  if (!P.stats.write_json(P.opt.out_dir + "/stats.json") || !P.stats.write_txt(P.opt.out_dir + "/stats.txt")) {
    std::fprintf(stderr, "strata: %s: cannot write stats files\n", P.opt.out_dir.c_str());
    return kExitFailure;
  }
  if (!P.opt.quiet) {
    auto g = [&](const char* n) { return P.stats.get(n); };
    std::printf("strata %s on %s, workload %s%s\n", status == kExitOk ? "finished" : "STOPPED",
                C.files().empty() ? "built-in defaults" : C.files().front().c_str(), C.s("workload.name").c_str(),
                C.b("sim.check") ? " (golden-memory check on)" : "");
    std::printf("  simulated   %.3f us, %.0f GPU cycles, %.0f instructions, IPC %.2f\n", g("sim.seconds") * 1e6,
                g("gpu.cycles"), g("gpu.instructions"), g("gpu.ipc"));
    std::printf("  caches      L1 miss rate %.1f%%, L2 miss rate %.1f%% (%.0f accesses)\n", 100 * g("l1.miss_rate"),
                100 * g("l2.miss_rate"), g("l2.accesses"));
    std::printf("  memory      %.1f GB/s of %.1f GB/s peak (%.1f%%), read latency %.1f ns, row hits %.1f%%\n",
                g("mem.bandwidth_gbps"), g("mem.peak_bandwidth_gbps"),
                100 * g("mem.bandwidth_gbps") / std::max(1e-9, g("mem.peak_bandwidth_gbps")),
                g("mem.avg_read_latency_ns"), 100 * g("mem.row_hit_rate"));
    std::printf("  energy      %.3g J (memory)\n", g("mem.energy_j"));
    if (C.b("sim.check")) std::printf("  check       %.0f loads compared, all equal\n", g("check.loads"));
    if (C.b("mem.timing_check"))
      std::printf("  timing      %.0f DRAM commands checked, no violation\n", g("mem.timing_checked_commands"));
    std::printf("  host        %.2f s, %.3g memory requests/s, peak RSS %.0f MiB\n", g("host.seconds"),
                g("host.mem_requests_per_second"), g("host.peak_rss_bytes") / 1048576.0);
    std::printf("  output      %s/{stats.txt,stats.json,timeseries.csv}%s\n", P.opt.out_dir.c_str(),
                P.opt.vcd.empty() ? "" : (" and " + P.opt.vcd).c_str());
  }
  return status;
}

}  // namespace strata
