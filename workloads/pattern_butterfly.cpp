// Kernel library, pattern butterfly (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_butterfly() { return {}; }

}  // namespace strata
