// The placement engine in the simulation (placement.mode = engine; docs/hybrid_dram_pcm.md "Placement engine"):
// the hybrid DRAM+PCM paper's compiler-directed placement (Sec. V) around a built-in workload.
//
// Before the run: a functional profiling pass over a second instance of the workload gives the per-launch,
// per-array profile (workloads/describe.h profile_launches); the C engine (models/ref/place/placement.h) solves
// the Placement Cost Graph for minimum EDP with the devices of the address map's DRAM and NVM parts; mallocHyb
// places each array in the DRAM or the PCM part of the physical address space (Program::set_array_base, before
// Program::init).
// During the run this class is the GPU's ProgramIf: before each launch k >= 1 dataMigrate lists the arrays whose
// placement changes, and each is moved by a copy kernel of its own (one thread per word: a load from the old
// place, a store to the new one, through the L1, L2 and memory system like any kernel), after which the program
// uses the new base (Program::relocate_array).
// A program that allocates while it runs (a CUDA program: cudaMalloc, its module variables, local memory)
// is profiled by a functional run of a second instance: its allocations, in the program's order, are the
// arrays (the PLC_MAX_ARRAYS of most memory transactions are planned), and each allocation of the run is
// mallocHyb's (Program::set_alloc_placer). Its host code keeps the pointers, so it gets the best static
// placement (the graph without migration edges, plc_cfg.static_only). Traces (fixed addresses) are refused.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "platform/config.h"
#include "platform/memsys.h"
#include "workloads/describe.h"
#include "workloads/lib_core.h"

extern "C" {
#include "base/addrmap.h"
#include "place/placement.h"
}

namespace strata {

class StatsRegistry;

class PlacementEngine : public ProgramIf {
 public:
  // Profiles (`profile_copy`: a second, not yet initialised instance of the same program), solves and places
  // prog's arrays (prog not yet initialised). Throws ConfigError naming placement.mode on a platform or program it
  // cannot serve.
  // `golden`: the run's functional memory (the copies read and write it like any kernel).
  PlacementEngine(const Config& C, const amap& map, const MemDevices& md, Program& prog,
                  std::unique_ptr<Program> profile_copy, bstore* golden);

  KernelIf* next_kernel() override;
  unsigned kernels_estimate() const override;
  uint64_t kernel_warp_insts(unsigned k) const override;

  // placement.* stats. `energy_now` reads mem.energy_j (for the simulated cost of each phase in the plan).
  void register_stats(StatsRegistry& S, std::function<double()> energy_now);
  // The plan (array -> DRAM/PCM per kernel, predicted vs simulated cost) into `path`. False on failure.
  bool write_plan(const std::string& path) const;

 private:
  struct Phase {  // a program kernel or a copy, as simulated
    std::string what;
    double t0 = 0, e0 = 0, t1 = 0, e1 = 0;
  };
  void begin_phase(const std::string& what);
  void end_phase();
  KernelIf* start_copy();
  // AllocPlacer of a program that allocates while it runs.
  uint64_t place(unsigned index, uint64_t bytes, uint64_t align);
  void release(unsigned index);
  bool overlaps_extra(uint64_t at, uint64_t bytes) const;
  uint64_t top_fit(const plc_mem& m, uint64_t bytes, uint64_t align) const;

  Program& prog_;
  bstore* golden_;
  std::vector<LaunchProfile> launches_;
  std::vector<plc_kernel_prof> prof_;
  std::vector<uint64_t> work_;
  plc_state st_{};
  dram_preset dram_dev_{}, pcm_dev_{};  // copies: the engine outlives the build's MemDevices
  bool migrate_ = true;  // the program is relocatable
  bool dynamic_ = false;  // the program allocates while it runs (AllocPlacer)
  // dynamic_: per allocation of the profile (arrays() index) its engine array or -1, and its bytes; the run's
  // live planned allocations (index -> address) and the others (address -> bytes, index -> address).
  std::vector<int> slot_;
  std::vector<uint64_t> profile_allocs_;
  std::map<unsigned, uint64_t> slot_addr_;
  std::map<uint64_t, uint64_t> extra_;
  std::map<unsigned, uint64_t> extra_index_;
  double allocations_ = 0, unplanned_ = 0;
  std::vector<std::string> kernel_names_, array_names_;
  // Run state.
  unsigned next_k_ = 0;       // program launches handed out so far
  bool checked_k_ = false;    // dataMigrate ran for launch next_k_
  std::vector<plc_move> moves_;
  uint32_t nmoves_ = 0;       // moves of the current dataMigrate
  uint32_t move_ = 0;         // next move to copy
  bool copying_ = false;      // the last kernel handed out is a copy of moves_[move_ - 1]
  lib::LibKernel copy_;
  std::vector<Phase> phases_;
  std::function<double()> energy_now_;
  double migrations_ = 0, migrated_bytes_ = 0, predicted_edp_ = 0, all_pcm_edp_ = 0, initial_dram_ = 0;
};

}  // namespace strata
