// Kernel library, pattern gather (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_gather() { return {}; }

}  // namespace strata
