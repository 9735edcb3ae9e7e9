// Kernel library, pattern graph (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_graph() { return {}; }

}  // namespace strata
