// Plain configuration structs handed to modules by the platform builder.
// Modules never parse config files themselves.
//
// No defaults here: the schema (platform/schema.cpp) is the one home of every
// key's default, range and source. Fields are zero (not a usable
// configuration) until platform/module_cfg.h fills the struct from a Config;
// module tests start from the same functions over the schema defaults
// (default_config()) and set what their hand-computed timings depend on.
// (McCfg, below, still carries its own defaults; it is being reworked.)
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

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
  unsigned ldst_per_cycle = 0;   // memory instructions accepted by the LD/ST unit per cycle
};

struct L1Cfg {                   // l1.*
  unsigned size_bytes = 0;
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
  unsigned size_bytes = 0;       // total
  unsigned assoc = 0;
  unsigned latency = 0;          // hit latency, L2 cycles
  unsigned mshrs = 0;            // per bank
  unsigned bytes_per_cycle = 0;  // per bank data port
  std::string policy;            // replacement/insertion policy (models/ref/repl.h registry)
};

// Memory controller (per channel). Device timing comes from the preset table
// named by `device` (models/ref/dram.h).
struct McCfg {
  std::string device = "hbm2";
  unsigned ranks = 1;
  unsigned read_queue = 64;    // entries (sector requests)
  unsigned write_queue = 64;
  unsigned wq_high = 48;       // start write drain at this occupancy
  unsigned wq_low = 16;        // stop write drain here
  bool open_page = true;
  bool refresh = true;
  bool refresh_per_bank = true;  // per-bank refresh where the device has it (dram_timing.RFC_PB > 0)
  // Power states (docs/memctrl.md "Power and energy"): precharge power-down
  // after this many idle memory cycles (0 = never); NVM ranks power-gated
  // after the preset's tGATE_IDLE.
  unsigned powerdown_idle_cycles = 0;
  bool nvm_power_gating = false;
  // Command timing checker (models/ref/tcheck.h) on every issued command; the
  // first violation ends the run (exit status 3). timing_check_device: the
  // preset the commands are checked against (empty = `device`).
  bool timing_check = true;
  std::string timing_check_device;
  // Mixed technologies on the channel (docs/memctrl.md): the preset of each
  // rank (empty = every rank `device`); each shares `device`'s interface.
  std::vector<std::string> rank_devices;
  // Check that the memory kind of every request (GpuExt::mem_type, from the
  // address map) is the kind of the rank serving it; a mismatch is a model
  // bug (fatal). The platform turns it on.
  bool check_mem_type = false;
};

}  // namespace strata
