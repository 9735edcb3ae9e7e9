// `strata --describe-workload`: a workload summary from a functional run (no
// timing): arrays and footprint, per kernel the instruction mix, the
// coalescing histogram (effective addresses per coalesced request, from the
// same C coalescer the SM uses, models/ref/gpu/coalesce.h), the bytes touched, and
// the offload-candidate blocks (TOM Sec. 3.1) with their Eq. 3-4 estimate,
// both with the paper's compile-time parameters and with the coalescing the
// run measured inside each block. docs/offload_candidates.md, docs/user_guide.md.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "program.h"

namespace strata {

struct DescribeOptions {
  std::string title;  // workload name or trace path, for the report
  uint64_t seed = 0;
  bool sass_pcs = false;  // block ranges are SASS PCs (print in hex)
  bool ptx_lines = false;  // block ranges are PTX source lines (a CUDA program)
};

// Runs prog (already init()ed, not yet run) to completion with the functional
// driver and returns the summary. Kernels with the same name are aggregated
// (launch count, sums); their blocks are those of the first launch.
// Throws std::runtime_error on an inconsistent instruction stream (a block tag
// outside Kernel::blocks, a misaligned access).
nlohmann::json describe_program(Program& prog, const DescribeOptions& opt);

// Human-readable rendering of describe_program()'s result.
std::string describe_text(const nlohmann::json& d);

}  // namespace strata
