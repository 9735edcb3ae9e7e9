// A CUDA program as a Strata workload (docs/cuda.md "How a program runs").
//
// The program is a host process built by `strata cuda build`; CudaProgram
// starts it with one end of a socket pair (cuda/runtime/strata_cuda_wire.h)
// and serves its runtime's calls whenever the GPU asks for the next kernel:
// modules are parsed by the PTX front end (models/ptx), device memory is a
// heap in the simulated address space (golden memory, mirrored into the
// devices through HostHooks::write_device), and a LAUNCH becomes the next
// kernel. The launch is answered when the GPU asks for the kernel after it,
// i.e. when it has finished, so host code between kernels sees the results.
//
// Kernels execute functionally at fetch (PtxKernel::warp_next runs one warp
// instruction of the PTX executor on the golden memory and describes it to
// the SM as a WarpInst with its real active mask, addresses and data), the
// way the built-in workloads generate from the golden memory. A global
// atomic is the exception: the executor hands its lanes' operations to the SM
// unperformed (an Op::Atomic), the L2 performs them, and their old values
// reach the warp's registers (atomic_result) before its next instruction runs.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "program.h"

extern "C" {
#include "ptx.h"
#include "ptx_offload.h"
}

namespace strata {

// The simulated GPU as cudaGetDeviceProperties describes it.
struct CudaDevice {
  std::string name = "Strata simulated GPU";
  unsigned sms = 0;
  double core_mhz = 0;
  double mem_mhz = 0;
  unsigned bus_bits = 0;
  uint64_t l2_bytes = 0;
  uint64_t mem_bytes = 0;
  unsigned max_warps_per_sm = 0;
  unsigned max_ctas_per_sm = 0;
};

class PtxKernel;

// A kernel's offload-candidate blocks (TOM Sec. 3.1; models/ptx/ptx_offload.h),
// derived once when the program registers the kernel: Kernel::blocks of every
// launch, and per instruction of the kernel's body the block to tag it with.
// OffloadBlock::pc_begin/pc_end are PTX source lines.
struct PtxBlockTable {
  std::vector<OffloadBlock> blocks;
  std::vector<uint32_t> begin;     // per block: its first instruction (ptx_winst.pc)
  std::vector<uint8_t> loop;       // per block: 1 for a loop
  std::vector<uint16_t> pc_block;  // per body instruction (pc - first_pc): block or kNoBlock
  uint32_t first_pc = 0;
  // The block of the instruction at module pc, or kNoBlock outside the body.
  uint16_t at(uint32_t pc) const {
    const uint32_t i = pc - first_pc;
    return i < pc_block.size() ? pc_block[i] : kNoBlock;
  }
};
// Derives k's table; throws std::runtime_error (out of memory) with the reason.
std::shared_ptr<const PtxBlockTable> ptx_block_table(const ptx_kernel* k);

class CudaProgram : public Program {
 public:
  CudaProgram(std::string path, std::vector<std::string> args, CudaDevice dev);
  ~CudaProgram() override;

  Kernel* next_kernel() override;
  unsigned kernels_estimate() const override { return launches_ + 1; }
  // The program checks its own results: a non-zero exit status fails the run.
  bool verify(bstore* golden, std::string* why) const override;
  void set_host_hooks(const HostHooks& h) override { hooks_ = h; }
  // cudaMalloc, cudaFree, module variables and the local region through a placement engine: each
  // allocation at the placer's address (checked: aligned, no overlap) instead of the heap's first fit.
  bool set_alloc_placer(const AllocPlacer& p) override;

  // After the run: the program's exit status (-1 if it was still running or
  // was killed), and the first error that stopped it (a PTX parse error, an
  // unsupported instruction, a fault: one line; empty if none).
  int exit_status() const { return exit_status_; }
  const std::string& error() const { return error_; }
  std::string run_error() const override { return error_; }
  // The program's standard output goes to strata's standard error (call before
  // init): `strata cuda run --describe` keeps its stdout for the summary.
  void stdout_to_stderr() override { stdout_to_stderr_ = true; }
  // A kernel's warp stopped with an error: end the program (the GPU drains).
  void fail(const std::string& why);
  // Kernel printf text (the executor's ptx_launch.print): kept until the launch ends, then written
  // to the program's standard output before the launch is answered (docs/cuda.md "Kernel printf").
  void device_print(const char* text, size_t len);
  void flush_device_print();
  bool failed() const { return !error_.empty(); }
  uint64_t launches() const { return launches_; }
  const CudaDevice& device() const { return dev_; }
  // The device-memory region that holds the threads' local memory (docs/cuda.md "Local memory"):
  // reserved at the first launch that needs it, kept for later launches and replaced by a larger
  // one when a launch needs more, as CUDA's runtime reserves local memory. 0 if it does not fit.
  uint64_t local_region(uint64_t bytes);
  // The program without the timing model (`strata cuda run --functional`): every launch runs CTA by CTA
  // on the PTX executor over `golden`. Returns the warp instructions executed; exit_status() and error()
  // tell how it ended.
  uint64_t run_functional(bstore* golden);

 protected:
  void init_data() override;

 private:
  struct Module {
    ptx_module* m = nullptr;
    uint64_t global_base = 0, const_base = 0;
  };
  struct KernelRef {
    unsigned module = 0;
    const ptx_kernel* k = nullptr;
    std::string name;  // the source name (demangled, without parameters)
    std::shared_ptr<const PtxBlockTable> blocks;
  };

  void start();
  void finish();  // waits for the process (after EOF or an error)
  bool serve_until_launch();
  void reply(int status, const void* p = nullptr, size_t n = 0, const std::string& msg = "");
  bool recv_exact(void* p, size_t n);
  void send_exact(const void* p, size_t n);
  uint64_t alloc(uint64_t bytes, uint64_t align, const char* what = nullptr);
  bool release(uint64_t addr);
  void write_mem(uint64_t addr, const void* src, size_t n);
  bool valid_range(uint64_t addr, uint64_t n) const;
  // request handlers; false = the request was bad input (the run stops)
  bool on_module(const std::vector<unsigned char>& body);
  bool on_function(const std::vector<unsigned char>& body);
  bool on_var(const std::vector<unsigned char>& body);
  bool on_launch(const std::vector<unsigned char>& body);

  std::string path_;
  std::vector<std::string> args_;
  CudaDevice dev_;
  HostHooks hooks_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int exit_status_ = -1;
  std::string error_;
  bool awaiting_launch_reply_ = false;
  bool stdout_to_stderr_ = false;
  std::string device_out_;  // kernel printf text not yet written
  uint64_t launches_ = 0;
  std::vector<Module> modules_;
  std::vector<KernelRef> kernels_;
  std::map<uint64_t, uint64_t> allocs_;  // device heap: address -> bytes
  std::map<uint64_t, unsigned> alloc_index_;  // live allocation's address -> its arrays() index
  AllocPlacer placer_;
  uint64_t heap_top_ = 0;
  uint64_t local_base_ = 0, local_bytes_ = 0;  // local_region
  std::unique_ptr<PtxKernel> current_;
};

// One launch of a PTX kernel on the simulated GPU.
class PtxKernel : public Kernel {
 public:
  PtxKernel(CudaProgram* prog, const ptx_kernel* k, const std::string& name, const uint32_t grid[3],
            const uint32_t block[3], const void* params, size_t params_size, uint32_t dyn_shared,
            std::shared_ptr<const PtxBlockTable> table);
  ~PtxKernel() override;
  void warp_begin(WarpCtx& w) const override;
  void warp_next(WarpCtx& w, WarpInst& out) const override;
  // All CTAs in order on the executor (no timing): the warp instructions, or -1 with the error reported
  // to the program.
  int64_t run_functional();
  // The L2 performed the warp's global atomic number seq: its old values into its destination register.
  void atomic_result(WarpCtx& w, uint32_t seq, uint32_t lanes, const uint64_t* old) const override;
  // The warp's next instruction needs none of its atomics' old values nor a word they update (and is
  // another atomic only while fewer than max_atomics are in flight).
  bool fetch_during_atomic(WarpCtx& w, unsigned max_atomics) const override;
  // insts.<class> (PTX instruction classes), active_lanes (average per warp instruction: divergence),
  // shared_accesses and shared_bank_conflicts (extra passes of 32 four-byte banks), atomic_lanes.
  void counters(std::vector<KernelCounter>* out) const override;

 private:
  struct CtaState {
    ptx_cta* cta = nullptr;
    unsigned warps_left = 0;
    uint32_t local_slot = 0;  // its threads' slots in the local region (with a region)
  };
  // A local-memory access of the warp (w.s[1] = 3 load, 4 store; w.t[0]: the lanes' local offsets;
  // w.t[1][0..2]: next part, parts, bytes per part): part `i` as a load or store of the region.
  void local_part(WarpCtx& w, WarpInst& out) const;
  // A warp's global atomics in flight (generated, their old values not yet back): w.s[4] points at its
  // WarpAtoms, kept per executor CTA object (atoms_, reused with it) and reset at warp_begin.
  struct AtomRec {
    bool busy = false;
    uint32_t seq = 0;            // the warp's atomic number (KernelIf::atomic_result)
    uint32_t reg = PTX_NOREG;    // its destination register
    uint32_t lanes = 0;
    uint64_t addr[kWarpSize] = {};
  };
  struct WarpAtoms {
    uint32_t next_seq = 0;
    unsigned inflight = 0;
    AtomRec rec[kMaxAtomicsPerWarp];
  };
  WarpAtoms* atoms_of(WarpCtx& w, ptx_cta* c) const;
  mutable std::map<const ptx_cta*, std::vector<WarpAtoms>> atoms_;
  ptx_cta* cta_for(uint32_t cta) const;
  void warp_done(const WarpCtx& w) const;
  static int load(void* ctx, ptx_space space, uint64_t addr, void* dst, unsigned size);
  static int store(void* ctx, uint64_t addr, const void* src, unsigned size);
  static int atomic(void* ctx, uint64_t addr, ptx_atom_op op, ptx_atom_type ty, uint64_t a, uint64_t b, uint64_t* old);
  static void print(void* ctx, const char* text, size_t len);

  // Tags out with the offload block of the instruction at pc (w.s[7]: the warp's
  // current block, kNoBlock outside; instructions of called functions keep it).
  void tag(WarpCtx& w, uint32_t pc, WarpInst& out) const;

  CudaProgram* prog_;
  std::shared_ptr<const PtxBlockTable> table_;
  ptx_launch launch_{};
  std::vector<unsigned char> params_;
  uint32_t threads_per_cta_ = 0;
  // CTAs in flight, by grid index; their executor objects come from a pool
  // (allocated once per concurrently resident CTA, reused with ptx_cta_reset).
  mutable std::map<uint32_t, CtaState> live_;
  mutable std::vector<ptx_cta*> pool_;
  // per-launch counters (counters())
  unsigned count(const ptx_winst& wi) const;  // returns a shared access's passes over the banks
  mutable uint64_t by_class_[PTX_IC_COUNT] = {};
  mutable uint64_t lanes_ = 0, insts_ = 0, shared_ = 0, conflicts_ = 0, atomic_lanes_ = 0;
  mutable uint64_t local_loads_ = 0, local_stores_ = 0, local_lines_ = 0;
  // Local memory in device memory (timed runs of kernels with .local variables): the region's base,
  // its threads (stride of ptx_local_addr), threads per CTA slot (warps_per_cta * 32) and the free
  // CTA slots (a CTA takes one while resident, as a GPU's threads own their slot's local memory).
  mutable uint64_t local_base_ = 0, local_stride_ = 0;
  mutable uint32_t local_cta_threads_ = 0;
  mutable std::vector<uint32_t> local_free_;
  // A global atomic met by the executor in the timed run (atomic()): its lanes' operations in lane
  // order, handed to the SM instead of performed; run_functional performs them on the golden memory.
  bool functional_ = false;
  mutable unsigned atom_n_ = 0;
  mutable ptx_atom_op atom_op_ = PTX_ATOM_ADD;
  mutable ptx_atom_type atom_ty_ = PTX_ATY_U32;
  mutable uint64_t atom_addr_[kWarpSize] = {}, atom_a_[kWarpSize] = {}, atom_b_[kWarpSize] = {};
};

}  // namespace strata
