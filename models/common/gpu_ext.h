// The atomic request type: a warp's global atomics to one 128 B line, performed
// by the L2 bank that owns the line (as GPUs perform global atomics: at the L2,
// not in the SM's L1). docs/cuda.md "Atomics", docs/l2_and_noc.md.
//
// An SM sends one request per line a warp's atomic instruction touches: a read
// request (TLM_READ_COMMAND, sector_mask = the sectors its lanes touch, so a
// miss fetches them as a write-allocate read would) whose GpuExt::atomic points
// at an AtomicReq. The per-lane arrays belong to the issuing SM and stay valid
// until the response (the SM copies them per warp slot and atomic slot: a warp
// has up to SmCfg::max_atomics atomic instructions in flight); the L2 bank
// performs the lanes in lane order on its copy of the line (the line becomes
// dirty), writes each lane's old value into old[lane] and answers. Lanes of one
// request that name the same address are serialised in lane order.
#pragma once
#include <cstdint>

extern "C" {
#include "gpu/atomic.h"
}

namespace strata {

struct AtomicReq {
  gpu_atom_op op = GPU_ATOM_ADD;
  gpu_atom_type type = GPU_ATY_U32;
  bool want_old = true;   // atom.* (the old values go to a register); false: red.*
  uint32_t lanes = 0;     // lanes of this request (all in one line)
  const uint64_t* addr = nullptr;  // per lane: byte address (naturally aligned)
  const uint64_t* a = nullptr;     // per lane: operand (CAS: compare value; inc/dec: bound)
  const uint64_t* b = nullptr;     // per lane: CAS's swap value
  uint64_t* old = nullptr;         // per lane: written by the L2 (zero-extended old value)
};

// Told of every atomic lane an L2 bank performs, in the order it performs them
// (the golden memory follows this order: models/common/check.h GoldenAtomics).
class AtomicObserver {
 public:
  virtual void performed(unsigned bank, uint64_t addr, gpu_atom_op op, gpu_atom_type type, uint64_t a, uint64_t b,
                         uint64_t old, uint64_t now_ps) = 0;

 protected:
  ~AtomicObserver() = default;
};

}  // namespace strata
