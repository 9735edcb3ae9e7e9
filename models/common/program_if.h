// The program interface of the SM models: what an SM (models/sm, or an NDP SM
// on a stack's logic layer) needs from the code it runs. A kernel is a grid of
// CTAs of warps (32 threads); each warp is a lazily generated instruction
// stream (the SM asks for the next instruction only when it needs it; no trace
// is ever materialised). A program is a sequence of kernels run back to back.
//
// Layering: this header is the only workload-facing header of models/. The
// workloads (workloads/, library target strata_workloads) implement KernelIf
// and ProgramIf (workloads/program.h adds arrays, initial data and the result
// check); the platform hands a ProgramIf to the GPU. Nothing here knows the
// platform, the config or a concrete workload. Header-only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "gpu/atomic.h"
#include "gpu/offload.h"
}

namespace strata {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxRegs = 32;     // architectural registers per warp (ids 0..31)
constexpr uint8_t kNoReg = 0xff;
constexpr uint16_t kNoBlock = 0xffff;
constexpr unsigned kMaxAtomicsPerWarp = 8;  // SmCfg::max_atomics at most (sm.max_atomics_per_warp)  // WarpInst::block of an instruction outside every offload block

// Warp instruction classes. Alu/Sfu are latency classes (SmCfg::alu_latency,
// sfu_latency); Load/Store are global-memory accesses through the coalescer
// and L1; Barrier is CTA-wide (__syncthreads); Exit ends the warp; Shared is
// an access to the SM's shared memory, a latency class too (shared_latency,
// plus a cycle for each extra pass a bank conflict costs: WarpInst::passes);
// Atomic is a global atomic (atom/red) performed at the L2 bank that owns each
// line (common/gpu_ext.h): while a warp has atomics in flight (up to
// SmCfg::max_atomics) the SM fetches its next instruction only if
// KernelIf::fetch_during_atomic allows it, and each atomic's old values reach
// the kernel through KernelIf::atomic_result (a generator that executes at
// fetch must not run an instruction that needs them first).
enum class Op : uint8_t { Alu, Sfu, Load, Store, Barrier, Exit, Shared, Atomic };

struct WarpInst {
  Op op = Op::Exit;
  uint8_t dst = kNoReg;                       // written register (Alu/Sfu/Load)
  uint8_t src[3] = {kNoReg, kNoReg, kNoReg};  // read registers
  uint8_t bytes = 4;                          // per thread, Load/Store: 4 or 8
  uint8_t passes = 1;                         // Shared: passes over the banks (1 = no bank conflict)
  gpu_atom_op aop = GPU_ATOM_ADD;             // Atomic: operation
  gpu_atom_type atype = GPU_ATY_U32;          // Atomic: operand type (bytes = gpu_atom_bytes(atype))
  bool want_old = false;                      // Atomic: atom.* (old values to dst), false: red.*
  uint32_t active = 0;                        // active lanes (bit i = lane i)
  uint64_t addr[kWarpSize];                   // Load/Store: byte address per lane (naturally aligned)
  uint64_t data[kWarpSize];                   // Store: value per lane (low `bytes` bytes, little endian);
                                              // Load: filled by the SM with the golden snapshot (check mode)
                                              // Atomic: operand a per lane (CAS: the compare value)
  uint64_t data2[kWarpSize];                  // Atomic CAS: the swap value per lane
  // Offload-candidate block (index into Kernel::blocks) this instruction
  // belongs to, kNoBlock outside; block_entry marks the first instruction of
  // an instance (a warp entering the block), so back-to-back instances of the
  // same block stay apart. Reset by every setter below; generators tag after.
  uint16_t block = kNoBlock;
  bool block_entry = false;
  // Load/Store: set by a generator that guarantees unit stride, i.e. active
  // lane l at addr[f] + (l - f) * bytes (f = first active lane); the SM's
  // coalescer then skips re-checking the addresses (verified in check mode).
  // Reset by every setter below; generators set it after filling addr.
  bool unit_stride = false;

  void alu(uint8_t d, uint32_t mask, uint8_t s0 = kNoReg, uint8_t s1 = kNoReg, uint8_t s2 = kNoReg) {
    op = Op::Alu;
    set(d, mask, s0, s1, s2);
  }
  void sfu(uint8_t d, uint32_t mask, uint8_t s0 = kNoReg, uint8_t s1 = kNoReg) {
    op = Op::Sfu;
    set(d, mask, s0, s1, kNoReg);
  }
  // A shared-memory access taking `npasses` passes over the banks.
  void shared(uint8_t d, uint32_t mask, unsigned npasses, uint8_t s0 = kNoReg, uint8_t s1 = kNoReg) {
    op = Op::Shared;
    set(d, mask, s0, s1, kNoReg);
    passes = static_cast<uint8_t>(npasses < 1 ? 1 : npasses > 32 ? 32 : npasses);
  }
  // Addresses are filled by the caller (addr[lane] for active lanes).
  void load(uint8_t d, uint32_t mask, unsigned nbytes, uint8_t addr_reg = kNoReg) {
    op = Op::Load;
    bytes = static_cast<uint8_t>(nbytes);
    set(d, mask, addr_reg, kNoReg, kNoReg);
  }
  // Addresses and data are filled by the caller.
  void store(uint32_t mask, unsigned nbytes, uint8_t data_reg, uint8_t addr_reg = kNoReg, uint8_t s2 = kNoReg) {
    op = Op::Store;
    bytes = static_cast<uint8_t>(nbytes);
    set(kNoReg, mask, data_reg, addr_reg, s2);
  }
  // A global atomic: addresses and operands (data, data2) are filled by the caller.
  void atomic(uint8_t d, uint32_t mask, gpu_atom_op o, gpu_atom_type t, bool old_wanted, uint8_t s0 = kNoReg,
              uint8_t s1 = kNoReg, uint8_t s2 = kNoReg) {
    op = Op::Atomic;
    bytes = static_cast<uint8_t>(gpu_atom_bytes(t));
    aop = o;
    atype = t;
    want_old = old_wanted;
    set(d, mask, s0, s1, s2);
  }
  // Barrier and Exit count as executed by the lanes in `mask` (the warp's
  // existing threads; pass WarpCtx::mask for a partial tail warp).
  void barrier(uint32_t mask = 0xffffffffu) {
    op = Op::Barrier;
    set(kNoReg, mask, kNoReg, kNoReg, kNoReg);
  }
  void exit(uint32_t mask = 0xffffffffu) {
    op = Op::Exit;
    set(kNoReg, mask, kNoReg, kNoReg, kNoReg);
  }
  // Tag as part of offload block b (entry = first instruction of the instance).
  void in_block(uint16_t b, bool entry = false) {
    block = b;
    block_entry = entry;
  }

 private:
  void set(uint8_t d, uint32_t mask, uint8_t s0, uint8_t s1, uint8_t s2) {
    dst = d;
    active = mask;
    passes = 1;
    src[0] = s0;
    src[1] = s1;
    src[2] = s2;
    block = kNoBlock;
    block_entry = false;
    unit_stride = false;
  }
};

// Per-warp generator state, owned by whoever runs the warp (an SM warp slot or
// the functional driver). Kernels keep their program counter and loop state here.
struct WarpCtx {
  uint32_t cta = 0;          // CTA index in the grid (set by the runner)
  uint32_t warp = 0;         // warp index within the CTA (set by the runner)
  uint32_t pc = 0;
  uint32_t mask = 0;         // lanes that exist (thread index < kernel size)
  uint64_t s[8] = {};        // scalar scratch
  uint64_t t[4][kWarpSize] = {};  // per-lane scratch
};

// An offload-candidate instruction block (TOM, tom-ndp-offload-and-mapping.txt
// Sec. 3.1 and 5.2; docs/offload_candidates.md): what the compiler's metadata
// table gives the offload controller. Built-in kernels declare theirs; for
// Accel-Sim traces they are derived from the register operands and PCs
// (workloads/offload_blocks.h). The decision arithmetic (Eq. 3-4) is the C
// reference models/ref/gpu/offload.h: ofl_decide(params, &b.ofl(), ...).
enum class TripKind : uint8_t { None, Static, AtEntry, Unknown };  // = ofl_trip
struct OffloadBlock {
  std::string name;
  // First and last instruction, in the kernel's own numbering: the SASS PC for
  // traces, the generator's step for hand-written kernels, 0 for thread bodies.
  uint64_t pc_begin = 0, pc_end = 0;
  uint32_t live_in = 0, live_out = 0;  // registers sent with the request / returned (4 B each)
  uint32_t loads = 0, stores = 0;      // global loads/stores per execution (loops: per iteration)
  uint32_t alu = 0, sfu = 0;           // other instructions per execution (informative)
  TripKind trip = TripKind::None;      // None: straight-line block; else a loop
  uint32_t trips = 0;                  // Static: the trip count
  uint32_t limits = 0;                 // Sec. 3.1.4 violations, OFL_LIMIT_* bits
  ofl_block ofl() const {
    ofl_block b;
    b.live_in = live_in;
    b.live_out = live_out;
    b.n_ld = loads;
    b.n_st = stores;
    b.trip = static_cast<ofl_trip>(trip);
    b.trips = trip == TripKind::Static ? trips : 0;
    b.limits = limits;
    return b;
  }
};
inline const char* trip_kind_name(TripKind k) {
  switch (k) {
    case TripKind::None: return "straight";
    case TripKind::Static: return "static";
    case TripKind::AtEntry: return "at-entry";
    default: return "unknown";
  }
}

// A per-launch counter a kernel keeps itself (a CUDA kernel's instruction mix,
// active lanes, shared-memory bank conflicts), reported by the GPU as
// kernel.<n>.<name>.<counter> once the launch has finished.
struct KernelCounter {
  std::string name, desc;
  double value = 0;
  bool ratio = false;  // an average or share, not a count
};

// A kernel as the SM runs it: grid and CTA size, its offload-candidate
// blocks, and the per-warp instruction generator.
class KernelIf {
 public:
  virtual ~KernelIf() = default;
  std::string name;
  uint32_t ctas = 0;           // grid size
  uint32_t warps_per_cta = 0;  // CTA size in warps
  std::vector<OffloadBlock> blocks;  // offload-candidate blocks; WarpInst::block indexes this

  // Initialise w for warp (w.cta, w.warp), which the caller has set.
  virtual void warp_begin(WarpCtx& w) const = 0;
  // Generate the warp's next instruction into `out`. The last instruction of
  // every warp is Exit; not called again after it.
  virtual void warp_next(WarpCtx& w, WarpInst& out) const = 0;

  // The L2 has performed the warp's Atomic instruction number `seq` (the
  // warp's Atomics counted from 0 in the order warp_next generated them; they
  // can complete out of order): old[lane] holds each lane's old value for the
  // lanes in `lanes` (a kernel that issues no Atomic never sees it).
  virtual void atomic_result(WarpCtx& w, uint32_t seq, uint32_t lanes, const uint64_t* old) const {
    (void)w, (void)seq, (void)lanes, (void)old;
  }

  // The warp has Atomics in flight: may the SM fetch (generate) its next
  // instruction now? `max_atomics`: the SM holds at most this many of a warp's
  // Atomics, so the next instruction may be another Atomic only while fewer
  // are in flight. (Default: no, the warp waits for the old values.)
  virtual bool fetch_during_atomic(WarpCtx& w, unsigned max_atomics) const {
    (void)w, (void)max_atomics;
    return false;
  }

  // The counters this launch kept (read when it has finished; default: none).
  virtual void counters(std::vector<KernelCounter>* out) const { (void)out; }

  uint64_t warps() const { return static_cast<uint64_t>(ctas) * warps_per_cta; }
};

// A program as the CTA dispatcher (Gpu) runs it: kernels one after another.
class ProgramIf {
 public:
  virtual ~ProgramIf() = default;
  // The next kernel to launch (its contents may depend on the memory left by
  // the previous kernels), or nullptr when the program is done. The kernel
  // stays valid until the next call.
  virtual KernelIf* next_kernel() = 0;
  // Expected number of kernel launches (for progress reports; may be an estimate).
  virtual unsigned kernels_estimate() const = 0;
  // Expected warp instructions of the k-th launch (0-based; an estimate is
  // fine), for progress reports: the GPU then measures progress in warp
  // instructions instead of kernels and CTAs, which matters where kernels differ
  // a lot in size (bfs levels). 0: unknown (the default).
  virtual uint64_t kernel_warp_insts(unsigned k) const {
    (void)k;
    return 0;
  }
  // A kernel a functional fast-forward stopped in (platform/fast_forward.h): CTAs below resume_cta() have
  // begun -- finished, or in flight and listed in resumed_ctas(), each to go onto its SM as the fast-forward
  // left it -- and the GPU dispatches from resume_cta() on. Asked right after next_kernel(); the list stays
  // valid until the next call. Defaults: nothing begun.
  struct ResumedCta {
    unsigned sm;
    uint32_t cta;
    const WarpCtx* ctx;       // warps_per_cta contexts
    const uint8_t* state;     // per warp: 0 runnable, 1 waiting at the barrier, 2 exited
    const uint32_t* atom_seq; // per warp: Atomics issued so far
  };
  virtual uint32_t resume_cta() const { return 0; }
  // Kernel sampling (platform/kernel_sampling.h): true when the next launch runs functionally, so the GPU
  // waits with next_kernel() until nothing is in flight in the memory system (a functional launch changes
  // caches and devices in zero time). Asked at a launch boundary, before next_kernel(). Default: never.
  virtual bool wants_idle_memory() { return false; }
  // The GPU finished the launch next_kernel() returned last: its core cycles and warp and thread
  // instructions (kernel.<n>.* of that launch). Default: not needed.
  virtual void launch_ended(uint64_t cycles, uint64_t warp_insts, uint64_t thread_insts) {
    (void)cycles;
    (void)warp_insts;
    (void)thread_insts;
  }
  virtual const std::vector<ResumedCta>& resumed_ctas() const {
    static const std::vector<ResumedCta> none;
    return none;
  }
};

}  // namespace strata
