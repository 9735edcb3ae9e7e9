// Plain configuration structs handed to modules by the platform builder.
// Modules never parse config files themselves.
//
// No defaults here: the schema (platform/schema.cpp) is the one home of every
// key's default, range and source. Fields are zero (not a usable
// configuration) until platform/module_cfg.h fills the struct from a Config;
// module tests start from the same functions over the schema defaults
// (default_config()) and set what their hand-computed timings depend on.
// McCfg, below, is the ready-made memory-controller set-up (mc_setup).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "mem/mc.h"  // mc_cfg, dram_preset (models/ref)

namespace strata {

// One clock domain; all module time is derived from it (no magic nanoseconds).
struct Clock {
  double mhz = 0;
  sc_core::sc_time period() const { return sc_core::sc_time(1e6 / mhz, sc_core::SC_PS); }
  uint64_t period_ps() const { return static_cast<uint64_t>(1e6 / mhz + 0.5); }
};

enum class WarpSched { LooseRoundRobin, GreedyThenOldest };

struct SmCfg {                   // gpu.core_clock_mhz, sm.*
  Clock clk;                     // core clock
  unsigned max_warps = 0;        // warp slots per SM
  unsigned max_ctas = 0;         // resident CTAs per SM
  unsigned issue_width = 0;      // warp instructions issued per cycle (one scheduler per unit)
  WarpSched sched = WarpSched::GreedyThenOldest;
  unsigned alu_latency = 0;      // cycles (dependent-issue latency of ALU ops)
  unsigned sfu_latency = 0;      // cycles
  unsigned shared_latency = 0;   // cycles (a shared-memory access without bank conflict)
  unsigned ldst_per_cycle = 0;   // memory instructions accepted by the LD/ST unit per cycle
  unsigned max_atomics = 4;      // global atomic instructions in flight per warp (1..kMaxAtomicsPerWarp)
};

struct L1Cfg {                   // l1.*
  uint64_t size_bytes = 0;
  unsigned assoc = 0;
  unsigned latency = 0;          // hit latency, core cycles
  unsigned mshrs = 0;            // distinct lines in flight
  unsigned mshr_merge = 0;       // requests merged per MSHR
  bool write_allocate = false;   // write-through always; allocate on write miss or not
  bool enabled = false;
};

struct XbarCfg {                 // noc.*
  Clock clk;                     // interconnect clock
  unsigned latency = 0;          // cycles per traversal, each direction
  unsigned bytes_per_cycle = 0;  // per port, each direction
  unsigned queue = 0;            // requests buffered per output port
};

struct L2Cfg {                   // l2.*
  Clock clk;
  unsigned banks = 0;            // total banks (a multiple of mem channels)
  uint64_t size_bytes = 0;       // total (64-bit: l2.size goes to 4 GiB and beyond)
  unsigned assoc = 0;
  unsigned latency = 0;          // hit latency, L2 cycles
  unsigned mshrs = 0;            // per bank
  unsigned bytes_per_cycle = 0;  // per bank data port
  unsigned atomic_latency = 0;   // cycles the bank's atomic unit adds to a hit (docs/l2_and_noc.md "Atomics")
  std::string policy;            // replacement/insertion policy (models/ref/cache/repl.h registry)
};

// Memory controller (per channel), ready-made: the engine configuration with
// its device presets and the timing checker's preset. strata::mc_setup
// (platform/memsys.h) builds it from the config -- the one place config ->
// mc_cfg, shared by the platform and `strata memtrace` -- with the presets of
// MemDevices (mem.device with its mem.timing / mem.energy overrides); module
// tests build one from a preset name (tests/module/mc_test_setup.h). MemCtrl
// copies the presets, so they need to live only through its constructor.
struct McCfg {
  // models/ref/mem/mc.h: dev, ranks, rank_devs (a preset per rank for mixed
  // technologies on the channel, NULL = every rank dev; each shares dev's
  // interface), queue sizes, watermarks, page policy, refresh, power states.
  ::mc_cfg engine{};
  // Command timing checker (models/ref/mem/tcheck.h) on every issued command; the
  // first violation ends the run (exit status 3). The preset the commands are
  // checked against (mem.timing_check_device, else engine.dev; with
  // engine.rank_devs every rank is checked against its own): nullptr = off.
  const ::dram_preset* check_dev = nullptr;
  // Set by MemCtrl's constructor from `engine` (read by its request path and
  // messages); callers leave them.
  std::string device;  // engine.dev->name
  unsigned ranks = 0, read_queue = 0, write_queue = 0;
};

}  // namespace strata
