#include "registry.h"

#include <stdexcept>

namespace strata {

// The built-ins followed by the kernel library's rows, pattern by pattern.
static std::vector<WorkloadInfo> with_library(std::vector<WorkloadInfo> reg) {
  for (auto rows : {workloads_pattern_streaming, workloads_pattern_stencil, workloads_pattern_dp_wavefront,
                    workloads_pattern_butterfly, workloads_pattern_gather})
    for (WorkloadInfo& w : rows()) reg.push_back(std::move(w));
  for (WorkloadInfo& w : workloads_pattern_graph()) reg.push_back(std::move(w));
  // Dense and irregular analogues (docs/workload_library.md).
  for (auto rows : {workloads_pattern_dense, workloads_pattern_tree})
    for (WorkloadInfo& w : rows()) reg.push_back(std::move(w));
  return reg;
}

const std::vector<WorkloadInfo>& workload_registry() {
  static const std::vector<WorkloadInfo> reg = with_library({
      workload_stream(),
      workload_stencil2d(),
      workload_random(),
      workload_bfs(),
      workload_accelsim(),
  });
  return reg;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const WorkloadInfo& w : workload_registry())
    if (w.name == name) return &w;
  return nullptr;
}

int64_t knob(const WorkloadInfo& wi, const std::map<std::string, int64_t>& knobs, const std::string& name) {
  auto it = knobs.find(name);
  if (it != knobs.end()) return it->second;
  for (const KnobSpec& k : wi.knobs)
    if (k.name == name) return k.def;
  throw std::logic_error("workload " + wi.name + " has no knob " + name);
}

}  // namespace strata
