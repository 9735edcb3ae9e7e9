// Kernel library, pattern dense (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_dense() { return {}; }

}  // namespace strata
