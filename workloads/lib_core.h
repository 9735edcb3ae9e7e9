// Kernel library core (docs/workload_library.md): the machinery shared by the
// synthetic analogues of the papers' benchmarks (pattern_*.cpp beside this file).
//
// A library kernel is written as a *thread body*: a C++ function of the global
// thread index that performs its loads and stores through a `Thread` recorder
// (ld/st/alu/sfu/barrier). When a warp begins, the bodies of its 32 threads run
// on the host against the golden memory and record each thread's operations;
// warp_next() then issues them in lockstep (lanes whose next operation is of
// the same kind form one warp instruction; the lane with the most work left
// leads, so a short loop waits for a long one and the epilogues reconverge,
// as post-dominator reconvergence would). Stores reach the golden memory only
// when their warp instruction is generated, so `--check` compares every load
// with the value the timed memory system must return.
//
// Kernels stay race-free (program.h): a thread reads only data that no other
// thread of the same kernel writes; it may re-read what it stored itself (the
// recorder keeps an overlay of its own stores). Work a real kernel does in
// shared memory or registers across threads (CTA reductions, tiles already
// loaded by neighbours, constant memory) is read with `peek()`, which costs no
// memory instruction: only global-memory traffic is modelled.
//
// Memory per resident warp is 16 B per recorded operation per lane, so bodies
// keep their per-thread operation counts in the low hundreds.
//
// Offload-candidate blocks (TOM Sec. 3.1; docs/offload_candidates.md): a body
// brackets a block with t.begin_block(k) ... t.end_block(), where k indexes
// the blocks the program declared for the kernel's name with
// LibProgram::offload_blocks() (lib::straight_block / lib::loop_block). The warp issues a block as a unit: lanes that entered it
// run it to its end before any other lane issues (they reconverge at the end,
// Sec. 3.1.4), and its instructions carry WarpInst::block = k (block_entry on
// the first), which is what the SM/NDP model and --describe-workload read.
// Barriers inside a block are a bug of the body (std::logic_error).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "registry.h"

namespace strata {
namespace lib {

enum class RecKind : uint8_t { Load, Store, Barrier, End, BlockBegin, BlockEnd };

// One recorded operation of one thread and the ALU/SFU work issued before it.
struct Rec {
  uint64_t addr = 0;
  uint32_t val = 0;       // Store: value (4-byte stores only)
  RecKind kind = RecKind::End;
  uint8_t bytes = 4;         // 4 or 8; bit 7 set = address depends on the previous load
  uint8_t alu = 0, sfu = 0;  // saturate at 255
};

class Thread {
 public:
  Thread(bstore* g, std::vector<Rec>* out) : g_(g), out_(out) {}
  // Global loads (a memory instruction each). ld() returns the value the
  // thread sees: its own earlier store, else the golden memory.
  uint32_t ld(uint64_t addr);
  uint64_t ld64(uint64_t addr);  // one 8-byte load
  // A load whose address comes from the previous load (pointer chasing): its
  // address register is the last loaded one, so the SM serialises the chain.
  uint32_t ld_dep(uint64_t addr);
  uint64_t ld64_dep(uint64_t addr);  // the same for an 8-byte load
  void st(uint64_t addr, uint32_t v);
  void alu(unsigned n = 1) { pend_alu_ += n; }
  void sfu(unsigned n = 1) { pend_sfu_ += n; }
  void barrier();  // every thread of a CTA must reach the same barriers
  // Offload block k (index into Launch::blocks) begins / ends; blocks do not nest.
  void begin_block(unsigned k);
  void end_block();
  // Value without a memory instruction (shared memory / constant / registers).
  uint32_t peek(uint64_t addr) const { return gold_u32(g_, addr); }
  void finish();  // called by the kernel after the body

 private:
  void push(RecKind k, uint64_t addr, uint32_t val, unsigned bytes);
  uint32_t own_or_gold(uint64_t addr) const;
  bstore* g_;
  std::vector<Rec>* out_;
  unsigned pend_alu_ = 0, pend_sfu_ = 0;
  int block_ = -1;  // open offload block
  std::vector<std::pair<uint64_t, uint32_t>> own_;  // this thread's stores
};

using Body = std::function<void(uint64_t tid, Thread&)>;

// A kernel whose threads are `Body` calls; threads >= `threads` do not exist.
class LibKernel : public Kernel {
 public:
  LibKernel();
  ~LibKernel() override;
  uint64_t threads = 0;
  uint32_t cta_threads = 0;  // threads per CTA if fewer than warps_per_cta * 32 (0: all)
  Body body;
  void warp_begin(WarpCtx& w) const override;
  void warp_next(WarpCtx& w, WarpInst& o) const override;

 private:
  struct Plan;
  mutable std::vector<std::unique_ptr<Plan>> all_;
  mutable std::vector<Plan*> free_;
};

// Host-side memo of per-CTA results (a real kernel computes them in shared
// memory); keyed by any 64-bit key, bounded, recomputed when evicted.
template <class V>
class Memo {
 public:
  template <class F>
  const V& get(uint64_t key, F make) const {
    auto it = m_.find(key);
    if (it != m_.end()) return it->second;
    if (m_.size() >= 512) m_.clear();
    return m_.emplace(key, make()).first->second;
  }
  void clear() const { m_.clear(); }

 private:
  mutable std::unordered_map<uint64_t, V> m_;
};

struct Launch {
  std::string name;
  uint64_t threads = 0;
  unsigned cta_warps = 8;
  std::vector<unsigned> reads, writes;
  Body body;
  // Threads per CTA when a CTA is not a whole number of warps (0: cta_warps * 32;
  // else cta_warps is ignored): thread tid is thread tid % cta_threads of CTA
  // tid / cta_threads, and the CTA's last warp has only the remaining lanes
  // (the originals' 13x13, 5x5 or 1-thread blocks).
  unsigned cta_threads = 0;
};

// Declared metadata of a library block, per the conventions of
// docs/offload_candidates.md: live-in/live-out count the values the CUDA
// original keeps in registers across the block boundary (kernel parameters
// and compile-time constants are not registers: the stack SM has the kernel's
// constant bank); loads/stores are the body's global memory operations per
// execution (loops: per iteration).
OffloadBlock straight_block(const std::string& name, uint32_t live_in, uint32_t live_out, uint32_t loads,
                            uint32_t stores, uint32_t alu = 0, uint32_t sfu = 0);
OffloadBlock loop_block(const std::string& name, TripKind trip, uint32_t trips, uint32_t live_in, uint32_t live_out,
                        uint32_t loads, uint32_t stores, uint32_t alu = 0, uint32_t sfu = 0);

// A program of 32-bit-word arrays and a schedule of launches.
class LibProgram : public Program {
 public:
  using Init = std::function<uint32_t(uint64_t i)>;
  LibProgram(const std::string& name, uint64_t seed) : Program(name), seed_(seed) {}

  // Declares an array of `words` 32-bit words, initialised by init(i) (zero if null).
  unsigned words(const std::string& n, uint64_t nwords, Init init = nullptr);
  uint64_t base(unsigned a) const { return array(a).base; }
  uint64_t nwords(unsigned a) const { return array(a).bytes / 4; }
  // Schedule: called with the launch index k = 0, 1, ...; fills `l` and returns
  // true, or returns false when the program is done (may read golden()).
  std::function<bool(unsigned k, Launch& l)> schedule;
  // Host reference check of the final golden memory.
  std::function<bool(const LibProgram& p, bstore* g, std::string* why)> check;
  unsigned estimate = 1;
  // Offload blocks of the launches named `kernel` (Kernel::blocks; the body's
  // begin_block(k) refers to blocks[k]).
  void offload_blocks(const std::string& kernel, std::vector<OffloadBlock> blocks) {
    blocks_[kernel] = std::move(blocks);
  }

  Kernel* next_kernel() override;
  bool verify(bstore* g, std::string* why) const override;
  unsigned kernels_estimate() const override { return estimate; }
  // Schedules read base(a) when they build a launch, so arrays may move between kernels.
  bool relocatable() const override { return true; }

  bstore* golden() const { return golden_; }
  uint64_t seed() const { return seed_; }
  // Initial contents of array a (from its Init), and final contents from g.
  std::vector<uint32_t> initial(unsigned a) const;
  std::vector<uint32_t> read(bstore* g, unsigned a) const;
  // Compares array a in g with `want`; one line naming the first difference.
  bool expect(bstore* g, unsigned a, const std::vector<uint32_t>& want, std::string* why) const;

 protected:
  void init_data() override;

 private:
  uint64_t seed_;
  std::vector<Init> init_;
  std::map<std::string, std::vector<OffloadBlock>> blocks_;
  unsigned k_ = 0;
  bool done_ = false;
  LibKernel kern_;
};

// A library analogue: a row of its pattern's table.
struct Row {
  std::string name, desc;
  std::vector<KnobSpec> knobs;
  std::string size_knob;  // the knob `workload.footprint` scales (others keep their values)
  // Analytic footprint in bytes for the given knobs (used to fit workload.footprint).
  std::function<uint64_t(const std::map<std::string, int64_t>&)> footprint;
  std::function<std::unique_ptr<Program>(const std::map<std::string, int64_t>&, uint64_t seed)> build;
};

// Turns a row into a registry entry: knobs filled with defaults; a non-zero
// `footprint` knob (workload.footprint) sets size_knob to the largest value
// whose footprint is <= the request (the knob's minimum if none is).
WorkloadInfo make_info(const Row& r);

// Seeded data helpers.
inline uint32_t hash32(uint64_t seed, uint64_t salt, uint64_t i) {
  return static_cast<uint32_t>(mix64(mix64(seed * 0x9e3779b97f4a7c15ull + salt) ^ i));
}
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace lib
}  // namespace strata
