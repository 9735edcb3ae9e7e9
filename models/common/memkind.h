// MemKindIf: what a cache may ask the memory side about a line -- the memory
// kind (AMAP_MEM_* of models/ref/base/addrmap.h: DRAM, NVM, SCM) that serves it
// now. The GPU side knows only the static part of the address map (L2 bank,
// memory partition); where a line lives, and so its kind, belongs to the
// partition's memory-side controller (models/memside/mem_side.h), which may
// move it. The L2 asks at a line miss (its replacement policy weighs the
// incoming line's kind, HAC paper Sec. IV) and takes the kind of every fill
// response as authoritative.
#pragma once
#include <cstdint>

namespace strata {

struct MemKindIf {
  virtual ~MemKindIf() = default;
  virtual uint8_t kind_of(uint64_t line) const = 0;
  // A write that misses must fetch its line even when it writes whole sectors (a cache asks only after
  // set_write_fetch(true), L2Bank): under Unified Memory a line whose page is not in device memory, so
  // the write reaches the memory side and faults its page in (docs/um.md "Writes").
  virtual bool write_must_fetch(uint64_t line) const { return (void)line, false; }
};

}  // namespace strata
