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
#include <vector>

#include <nlohmann/json.hpp>

#include "program.h"

namespace strata {

struct DescribeOptions {
  std::string title;  // workload name or trace path, for the report
  uint64_t seed = 0;
  bool sass_pcs = false;  // block ranges are SASS PCs (print in hex)
  bool ptx_lines = false;  // block ranges are PTX source lines (a CUDA program)
};

// Accesses of one kernel launch to one array, the placement engine's profile
// (hybrid DRAM+PCM paper Sec. V-A; models/ref/place/placement.h plc_array_prof):
// each line request of a load, store or atomic counts for the array whose
// bytes hold its line address; a warp instruction counts for the array of its
// first request, and is coalesced when its requests are no more than the
// 128 B lines its active lanes' bytes fill contiguously, plus one (a window
// not aligned to a line spans one more). Atomics are not counted
// (the L2 performs them; describe's coalescing leaves them out too).
struct ArrayAccess {
  uint64_t reads = 0, writes = 0;             // warp memory instructions
  uint64_t coal_insts = 0, uncoal_insts = 0;  // of those, coalesced / uncoalesced
  uint64_t rd_coal = 0, rd_uncoal = 0;        // line requests of coalesced / uncoalesced loads
  uint64_t wr_coal = 0, wr_uncoal = 0;        // line requests of coalesced / uncoalesced stores
  uint64_t rd_lines = 0, wr_lines = 0;        // distinct 128 B lines read / written in the launch
  void merge(const ArrayAccess& o);
};

// One kernel launch: its instructions, barriers, warps and per-array accesses
// (index = Program::arrays() index at the end of the run).
struct LaunchProfile {
  std::string name;
  uint64_t insts = 0, syncs = 0, warps = 0;
  uint32_t warps_per_cta = 0;
  std::vector<ArrayAccess> arrays;
};

// Runs prog (already init()ed, not yet run) functionally and returns its
// launches' profiles in launch order (the placement engine's profiling pass).
std::vector<LaunchProfile> profile_launches(Program& prog);

// Runs prog (already init()ed, not yet run) to completion with the functional
// driver and returns the summary. Kernels with the same name are aggregated
// (launch count, sums); their blocks are those of the first launch.
// Throws std::runtime_error on an inconsistent instruction stream (a block tag
// outside Kernel::blocks, a misaligned access).
nlohmann::json describe_program(Program& prog, const DescribeOptions& opt);

// Human-readable rendering of describe_program()'s result.
std::string describe_text(const nlohmann::json& d);

}  // namespace strata
