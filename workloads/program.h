// Strata workload abstraction: a GPU *program* = named arrays + a sequence of
// kernel launches; a kernel = grid of CTAs of warps (32 threads); each warp is a
// lazily generated instruction stream (the SM asks for the next instruction
// only when it needs it; no trace is ever materialised).
//
// Functional-first: a kernel's generator reads and writes the "golden"
// functional memory (bstore) while it generates, so stores carry real data and
// data-dependent control flow (BFS frontiers, loop trip counts) comes from real
// values. Kernels must be free of data races between threads of one kernel
// (every thread owns its output bytes; no thread reads what another thread of
// the same kernel writes), so timing can never change a result. Kernels of one
// program run back to back (a kernel starts after the previous one ended and
// all its stores were acknowledged).
//
// The SM models see only the interface models/common/program_if.h (KernelIf,
// ProgramIf, WarpInst); this header adds the workload side: arrays, initial
// data, the result check and helpers for generators. Workloads depend on
// models/common/program_if.h and models/ref, never on platform/.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/program_if.h"  // KernelIf, ProgramIf, WarpInst, WarpCtx (the SM's interface)

extern "C" {
#include "base/bstore.h"
}

namespace strata {

struct ArrayInfo {
  std::string name;
  uint64_t base = 0;
  uint64_t bytes = 0;
};

// A workload's kernel: the SM's view (KernelIf) plus what the workload side
// knows about it (arrays read and written, the functional memory it generates from).
class Kernel : public KernelIf {
 public:
  std::vector<unsigned> reads, writes;  // indices into Program::arrays()
  bstore* golden = nullptr;    // functional memory (set by the program); warp_next reads/writes it
};

// What a program whose host code runs during the simulation (a CUDA program,
// workloads/cuda_program.h) needs from the platform: its copies into device
// memory reach the devices (the bytes are already in the golden memory), and
// its events read the simulated clock.
struct HostHooks {
  std::function<void(uint64_t addr, uint64_t len)> write_device;
  std::function<uint64_t()> now_ps;
};

// Where a program that allocates while it runs (a CUDA program's cudaMalloc and cudaFree, its module
// variables and local memory) puts its allocations, when a placement engine decides it
// (platform/placement.h, placement.mode = engine): `place` gets the allocation's number (its
// Program::arrays() index, in the program's own order) and size and returns the address, 0 for
// none (the program's allocation fails: out of memory); `release` gets the number of an allocation
// the program frees.
struct AllocPlacer {
  std::function<uint64_t(unsigned index, uint64_t bytes, uint64_t align)> place;
  std::function<void(unsigned index)> release;
};

class Program : public ProgramIf {
 public:
  explicit Program(std::string name) : name_(std::move(name)) {}
  virtual ~Program() = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<ArrayInfo>& arrays() const { return arrays_; }
  const ArrayInfo& array(unsigned i) const { return arrays_.at(i); }
  int find_array(const std::string& n) const {
    for (size_t i = 0; i < arrays_.size(); ++i)
      if (arrays_[i].name == n) return static_cast<int>(i);
    return -1;
  }
  uint64_t footprint_bytes() const {
    uint64_t s = 0;
    for (const ArrayInfo& a : arrays_) s += a.bytes;
    return s;
  }
  // Move array i to `base` (data placement). Only before init(); bases must be
  // 128 B aligned and arrays must not overlap (checked in init()).
  void set_array_base(unsigned i, uint64_t base) {
    if (inited_) throw std::logic_error("Program::set_array_base after init");
    arrays_.at(i).base = base;
  }

  // Whether arrays may move between kernels (relocate_array): true when the
  // program reads its arrays' bases as it launches each kernel (the kernel
  // library does), false when addresses are fixed (traces, a CUDA program's
  // host pointers).
  virtual bool relocatable() const { return false; }
  // Array i now lives at `base` (a placement engine's migration, issued
  // between kernels after the bytes were copied there by a kernel of its
  // own): the next kernels use it. 128 B aligned, no overlap, relocatable().
  void relocate_array(unsigned i, uint64_t base) {
    if (!inited_ || !relocatable()) throw std::logic_error("Program::relocate_array: program " + name_ + " cannot move arrays");
    if (base % 128) throw std::invalid_argument("array " + arrays_.at(i).name + " not 128 B aligned");
    for (size_t j = 0; j < arrays_.size(); ++j)
      if (j != i && base < arrays_[j].base + arrays_[j].bytes && arrays_[j].base < base + arrays_.at(i).bytes)
        throw std::invalid_argument("arrays " + arrays_[j].name + " and " + arrays_[i].name + " overlap");
    arrays_[i].base = base;
  }

  // Write the initial array contents into the golden and the device memory
  // (like cudaMemcpy). Call once, before the first next_kernel(). `golden` stays
  // in use by the kernels' generators; `device` may be the same store or null.
  void init(bstore* golden, bstore* device) {
    if (inited_) throw std::logic_error("Program::init called twice");
    for (size_t i = 0; i < arrays_.size(); ++i) {
      if (arrays_[i].base % 128) throw std::invalid_argument("array " + arrays_[i].name + " not 128 B aligned");
      for (size_t j = 0; j < i; ++j)
        if (arrays_[i].base < arrays_[j].base + arrays_[j].bytes && arrays_[j].base < arrays_[i].base + arrays_[i].bytes)
          throw std::invalid_argument("arrays " + arrays_[j].name + " and " + arrays_[i].name + " overlap");
    }
    inited_ = true;
    golden_ = golden;
    device_ = device;
    init_data();
  }
  // The next kernel to launch (its contents may depend on the golden memory
  // left by the previous kernels), or nullptr when the program is done. The
  // kernel stays valid until the next call.
  Kernel* next_kernel() override = 0;
  // Host-side check of the final results in golden memory. On failure returns
  // false and writes one line to *why.
  virtual bool verify(bstore* golden, std::string* why) const = 0;
  // Expected number of kernel launches (for progress reports; may be an estimate).
  unsigned kernels_estimate() const override = 0;
  // Programs whose host code runs during the simulation take the platform's hooks (HostHooks).
  virtual void set_host_hooks(const HostHooks& h) { (void)h; }
  // Programs that allocate while they run take a placer for every allocation (AllocPlacer; before
  // init). False: the program's addresses are its own (a built-in program's arrays are placed with
  // set_array_base, a trace's are fixed).
  virtual bool set_alloc_placer(const AllocPlacer& p) {
    (void)p;
    return false;
  }
  // A program whose host code prints (a CUDA program) writes its standard output to standard error
  // instead (call before init): `--describe` keeps stdout for its summary, a placement engine's
  // profiling pass keeps the run's output the program's own, once.
  virtual void stdout_to_stderr() {}
  // An error that stopped the program during the run (bad input only the run could find: a CUDA
  // program's PTX that does not parse, an instruction the executor does not implement), one line;
  // empty if none. The platform reports it and exits 2.
  virtual std::string run_error() const { return {}; }

 protected:
  // Write the initial contents (use write_init()).
  virtual void init_data() = 0;
  // Declare an array at `base` while the program runs (a CUDA program's cudaMalloc); after init().
  void add_allocation(const std::string& n, uint64_t base, uint64_t bytes) { arrays_.push_back({n, base, bytes}); }
  // Declare an array; bases are assigned consecutively, 4 KiB aligned, from 0.
  unsigned add_array(const std::string& n, uint64_t bytes) {
    uint64_t base = 0;
    for (const ArrayInfo& a : arrays_) base = std::max<uint64_t>(base, (a.base + a.bytes + 4095) & ~uint64_t(4095));
    arrays_.push_back({n, base, bytes});
    return static_cast<unsigned>(arrays_.size() - 1);
  }
  // Initial data into both memories.
  void write_init(uint64_t addr, const void* src, size_t len) {
    if (bstore_write(golden_, addr, src, len) != 0) throw std::bad_alloc();
    if (device_ && device_ != golden_ && bstore_write(device_, addr, src, len) != 0) throw std::bad_alloc();
  }
  bstore* golden_ = nullptr;
  bstore* device_ = nullptr;

 private:
  std::string name_;
  std::vector<ArrayInfo> arrays_;
  bool inited_ = false;
};

// Little helpers for generators.
inline uint32_t lanes_below(uint64_t first_thread, uint64_t n) {
  if (first_thread >= n) return 0;
  const uint64_t k = n - first_thread;
  return k >= kWarpSize ? 0xffffffffu : ((1u << k) - 1u);
}
// Highest active lane + 1 (0 for no lane): the lane count of a lanes_below mask.
inline unsigned lanes_end(uint32_t mask) { return mask ? 32u - static_cast<unsigned>(__builtin_clz(mask)) : 0u; }
inline uint32_t gold_u32(bstore* g, uint64_t addr) {
  uint32_t v;
  bstore_read(g, addr, &v, 4);
  return v;
}
inline uint64_t gold_u64(bstore* g, uint64_t addr) {
  uint64_t v;
  bstore_read(g, addr, &v, 8);
  return v;
}
// splitmix64: seeded, stateless hash used for initial data and permutations.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace strata
