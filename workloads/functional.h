// Functional (untimed) driver of a Program: runs every warp of every kernel to
// completion, against the golden memory: the warps of a CTA in turn, each up
// to its next barrier (all of them when there is none). Used by the
// workload tests (footprint and traffic formulas) and as a fast functional
// reference; because kernels are race-free the results equal a timed run's.
#pragma once
#include <cstdint>

#include "program.h"

namespace strata {

struct FuncCounts {
  uint64_t kernels = 0;
  uint64_t warps = 0;
  uint64_t warp_insts = 0;    // warp instructions, Exit included
  uint64_t thread_insts = 0;  // sum of active lanes over warp instructions
  uint64_t load_insts = 0, store_insts = 0;  // warp-level
  uint64_t load_bytes = 0, store_bytes = 0;  // sum over active lanes of access sizes
  uint64_t barriers = 0;
};

// Optional observer of a functional run (strata --describe-workload).
struct FuncObserver {
  virtual ~FuncObserver() = default;
  virtual void kernel_begin(const Kernel&) {}
  // The driver switches to warp `warp` of the current CTA (its first instruction,
  // or the one after a barrier, comes next); then its instructions, in order.
  virtual void warp_resume(uint32_t warp) { (void)warp; }
  virtual void inst(const WarpInst&) {}  // every warp instruction, in the warp's order
  virtual void warp_end() {}             // the current warp has exited
  virtual void kernel_end(const Kernel&) {}
};

// Runs prog (already init()ed) to completion and returns the counts.
FuncCounts run_functional(Program& prog, FuncObserver* obs = nullptr);

}  // namespace strata
