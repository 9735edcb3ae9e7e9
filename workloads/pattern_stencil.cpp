// Kernel library, pattern stencil (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_stencil() { return {}; }

}  // namespace strata
