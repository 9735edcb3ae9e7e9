// Kernel library, pattern dp_wavefront (docs/workload_library.md).
#include "workloads/lib_core.h"

namespace strata {

std::vector<WorkloadInfo> workloads_pattern_dp_wavefront() { return {}; }

}  // namespace strata
