// Registry of the built-in workloads (one file per access pattern beside this
// one). Adding a workload = one new file defining a `WorkloadInfo
// workload_<name>()` and one line in registry.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "program.h"

namespace strata {

// Integer knob of a workload; config key `workload.<workload>.<name>`. The
// config layer validates [min, max] and passes every knob (defaults filled).
struct KnobSpec {
  std::string name, desc;
  int64_t def, min, max;
};

struct WorkloadInfo {
  std::string name, desc;
  std::vector<KnobSpec> knobs;
  // Builds the program (arrays laid out, nothing written yet; call init()).
  // Throws std::invalid_argument (one line, naming the knobs) for knob
  // combinations that are individually in range but inconsistent.
  std::function<std::unique_ptr<Program>(const std::map<std::string, int64_t>& knobs, uint64_t seed)> make;
};

const std::vector<WorkloadInfo>& workload_registry();
const WorkloadInfo* find_workload(const std::string& name);
// A knob's value from `knobs`, or its default when absent.
int64_t knob(const WorkloadInfo& wi, const std::map<std::string, int64_t>& knobs, const std::string& name);

// Built-in workloads (workloads/<pattern>.cpp).
WorkloadInfo workload_stream();
WorkloadInfo workload_stencil2d();
WorkloadInfo workload_random();
WorkloadInfo workload_bfs();
// Accel-Sim SASS trace (workloads/accelsim.cpp; the trace comes from --trace).
WorkloadInfo workload_accelsim();
// Kernel library: synthetic analogues of the papers' benchmarks, one file per
// access pattern, one table row per analogue (docs/workload_library.md).
std::vector<WorkloadInfo> workloads_pattern_streaming();
std::vector<WorkloadInfo> workloads_pattern_stencil();
std::vector<WorkloadInfo> workloads_pattern_dp_wavefront();
std::vector<WorkloadInfo> workloads_pattern_butterfly();
std::vector<WorkloadInfo> workloads_pattern_gather();
std::vector<WorkloadInfo> workloads_pattern_graph();
// Reserved knob name: the platform passes `workload.footprint` (bytes, 0 = the
// workload's default size) to every make() under this name; library analogues
// scale their size knob to it, the other workloads ignore it.
constexpr const char* kFootprintKnob = "footprint";
// sim.max_footprint in bytes, passed to every make(): trace readers reject copies beyond it (file:line).
constexpr const char* kMaxFootprintKnob = "max_footprint";

// Kernel library, dense and irregular analogues (pattern_dense.cpp: backprop,
// neuralnet, ...; pattern_tree.cpp: ray, barneshut; rows in other patterns).
std::vector<WorkloadInfo> workloads_pattern_dense();
std::vector<WorkloadInfo> workloads_pattern_tree();

}  // namespace strata

namespace strata {
// Test hook: the seeded bijection of [0, n) used by `random` (workloads/random.cpp).
uint64_t random_workload_perm(uint64_t n, uint64_t seed, uint64_t i);
}  // namespace strata
