// Offload-candidate blocks of an Accel-Sim SASS trace (TOM,
// tom-ndp-offload-and-mapping.txt Sec. 3.1 and 5.2), derived the way the
// paper's PTX tool does, from register operands and PCs, here of the traced
// instructions (docs/offload_candidates.md has the algorithm and its limits):
//   - the static code is every distinct PC the trace executes, its control-flow
//     graph every PC-to-PC transition a warp makes (with counts);
//   - a backward transition is a loop's back edge; overlapping loops merge
//     into their outermost loop, which is one block (its inner loops become
//     blocks of their own only if the outer one breaks a Sec. 3.1.4 limit);
//   - the code between loops forms straight-line blocks, cut at barriers,
//     atomics, shared-memory accesses, memory fences, EXIT and calls;
//   - live-in = registers read in the block before it writes them (liveness
//     inside the block), live-out = registers the block writes that are live
//     where control leaves it (liveness over the whole graph);
//   - a loop's trip count is static / known at entry / unknown from its exit
//     compare (induction variables updated by add/subtract, bounds from
//     outside the loop), as the PTX tool's loop-condition rule;
//   - blocks without global loads or stores are not listed (they cannot save
//     bandwidth).
// The deriver sees one line at a time (streaming) and keeps only per-PC data.
#pragma once
#include <bitset>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "accelsim.h"
#include "program.h"

namespace strata {

class SassBlockDeriver {
 public:
  // A new warp's instruction sequence starts (the previous PC is forgotten).
  void warp_begin() { prev_ = -1; }
  // The next traced instruction of the current warp.
  void add(const SassInst& si);
  // The blocks (sorted by first PC, an enclosing block before its inner ones)
  // and, per PC, the innermost listed block containing it.
  void derive(std::vector<OffloadBlock>* blocks, std::unordered_map<uint64_t, uint16_t>* pc_block) const;

  // Per-PC facts (exposed for tests and docs).
  struct Inst {
    uint64_t pc = 0;
    SassClass cls = SassClass::IntAlu;
    std::bitset<256> def, use;  // architectural registers (R0..R254; RZ dropped)
    bool gload = false, gstore = false, atomic = false, shared = false, sync = false, leaves = false;
    bool compare = false, add_like = false, const_def = false;
    uint64_t operands = 0;                            // fingerprint of the operand lists seen first
    std::vector<std::pair<uint32_t, uint64_t>> succ;  // successor instruction -> transitions
    uint32_t last_succ = 0;                           // index in succ of the latest transition
  };

 private:
  std::vector<Inst> insts_;
  std::unordered_map<uint64_t, uint32_t> idx_;
  std::unordered_map<uint32_t, uint64_t> starts_;  // first instruction of a warp -> warps
  int64_t prev_ = -1;
};

// Registers an instruction reads and writes for the liveness analysis
// (64-bit address pairs, vector data registers; see docs/offload_candidates.md).
void sass_operand_regs(const SassInst& si, SassClass cls, std::bitset<256>* def, std::bitset<256>* use);

}  // namespace strata
