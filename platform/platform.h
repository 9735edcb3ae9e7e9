// Builds a Strata platform from a validated Config, runs it, and reports.
//
// Elaboration (build()): address map, functional memories (device + golden),
// payload pool, GPU (SMs + L1s), crossbar, L2 banks, memory controllers, the
// epoch sampler (time series, VCD, progress). Then run() simulates until the
// workload finishes (or sim.max_time_us), and report() writes stats.json,
// stats.txt, timeseries.csv and config.txt into the output directory and prints
// a summary. One Platform per process (SystemC elaborates once).
#pragma once
#include <memory>
#include <string>

#include "platform/config.h"
#include "platform/memsys.h"  // mem_devices, init_address_map (shared with memtrace)
#include "workloads/program.h"

namespace strata {

struct RunOptions {
  std::string out_dir;   // created if missing
  std::string vcd;       // empty = no VCD
  bool quiet = false;    // no progress line, no summary
  bool progress = true;  // progress line on stderr (only if stderr is a terminal)
};

// The workload program of a validated config (workload.name, its knobs
// workload.<name>.<knob>, workload.footprint, sim.seed); not yet init()ed.
// Shared by the platform and `strata --describe-workload`.
std::unique_ptr<Program> make_workload_program(const Config& C);

// Exit statuses of a run (sc_main returns them).
enum ExitCode { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitCheckFailed = 3 };

class Platform {
 public:
  Platform(const Config& cfg, const RunOptions& opt);
  ~Platform();
  void build();  // throws ConfigError on inconsistent input
  int run();     // returns an ExitCode
 private:
  struct Impl;
  std::unique_ptr<Impl> p_;
};

}  // namespace strata
