// Builds a Strata platform from a validated Config, runs it, and reports.
//
// Elaboration (build()): address map, functional memories (device + golden),
// payload pool, GPU (SMs + L1s), crossbar, L2 banks, memory controllers, the
// epoch sampler (time series, VCD, progress). Then run() simulates until the
// workload finishes (or sim.max_time_us, or sim.max_instructions warp
// instructions after a warm-up of sim.warmup_instructions, when every stat
// restarts from zero: common/stats.h "Measurement windows"), and report() writes stats.json,
// stats.txt, timeseries.csv and config.txt into the output directory and prints
// a summary. One Platform per process (SystemC elaborates once).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "platform/config.h"
#include "platform/memsys.h"  // mem_devices, init_address_map (shared with memtrace)
#include "workloads/cuda_program.h"
#include "workloads/program.h"

namespace strata {

struct RunOptions {
  std::string out_dir;   // created if missing
  std::string vcd;       // empty = no VCD
  bool quiet = false;    // no progress line, no summary
  bool progress = true;  // progress on stderr: a line on a terminal, else a heartbeat line
  double heartbeat_s = 30;  // host seconds between heartbeat lines when stderr is not a terminal (0: none)
  // The program to run instead of the config's workload (`strata cuda run`: a CUDA program), not yet init()ed.
  std::function<std::unique_ptr<Program>(const Config&)> make_program;
};

// The workload program of a validated config (workload.name, its knobs
// workload.<name>.<knob>, workload.footprint, sim.seed); not yet init()ed.
// Shared by the platform and `strata --describe-workload`.
std::unique_ptr<Program> make_workload_program(const Config& C);

// The simulated GPU as a CUDA program sees it (cudaGetDeviceProperties): SMs,
// clocks, L2, bus width, and sim.max_footprint as its device memory.
CudaDevice cuda_device(const Config& C);

// Reject a workload whose arrays would need more host memory than
// sim.max_footprint (before its data is written): ConfigError naming the key
// and the workload knobs that were set. Call after make_workload_program.
void check_footprint(const Config& C, const Program& prog);

// Write a file through `write(tmp)` into PATH.tmp, then rename it to PATH, so
// that a file under its final name is always complete. False on failure.
bool write_file_atomic(const std::string& path, const std::function<bool(const std::string&)>& write);

// Exit statuses of a run (sc_main returns them). kExitInterrupted: stopped by
// SIGINT/SIGTERM, the stats of what was simulated are written (sim.partial = 1).
enum ExitCode { kExitOk = 0, kExitFailure = 1, kExitBadInput = 2, kExitCheckFailed = 3, kExitInterrupted = 4 };

// Why a run ended: the stat sim.stop_reason (stats.json holds numbers only).
// 0 completed; 1 time limit (sim.max_time_us); 2 interrupted (SIGINT/SIGTERM);
// 3 stalled (the watchdog); 4 instruction limit (sim.max_instructions: the
// stats are an instruction window, the program did not complete; exit 0).
// Any non-zero reason also sets sim.partial = 1.
enum class StopReason { Completed = 0, TimeLimit = 1, Interrupted = 2, Stalled = 3, InstructionLimit = 4 };

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
