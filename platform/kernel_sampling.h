// Kernel sampling (sim.kernel_sampling; docs/user_guide.md "Kernel sampling", issue 24 item 5): programs that
// launch the same kernel many times (iterative solvers, BFS levels, time steps) are simulated in detail only
// for the first sim.kernel_sampling_detailed launches of each signature; every later launch of that signature
// runs functionally (platform/fast_forward.h: no timing, the L2 warmed with the request path's tag-side
// effects, the devices given what it wrote) and its core cycles are extrapolated from the detailed launches of
// its signature at their warp instructions per cycle:
//
//   est. cycles of a functional launch = its warp instructions x (detailed cycles / detailed warp instructions)
//
// over the signature's detailed launches of the same size (warp instructions to within a factor of sqrt(2)),
// after its first where there are any (the first launch of a kernel often runs on caches its later launches find
// warm), else the first. Sizes are learned after the fact where the program cannot say them in advance (CUDA
// programs' BFS levels share name and grid): a functional launch of a size no detailed launch of its
// signature had is projected at the nearest size's rate and makes the signature's next launch detailed, so
// each size class that recurs gets a detailed sample.
//
// the projection by a representative's IPC that kernel-level sampling for GPUs uses (e.g. Principal Kernel
// Analysis, Baddouh et al., MICRO 2021: simulate a representative launch per group, project the others by its
// IPC). The signature is what is known before a launch runs: the kernel's name, its grid (CTAs) and CTA size
// (warps) and, where the program knows a launch's warp instructions in advance (ProgramIf::kernel_warp_insts:
// BFS levels, Accel-Sim traces), that count to within a factor of sqrt(2), so a level ten times bigger than
// the one measured gets its own detailed sample.
//
// The GPU sees only the detailed launches (gpu.*, kernel.<n>.*); the estimate of the whole program is in
// sampling.* (sampling.est_cycles, est_ipc, est_seconds). Before a functional launch the GPU waits until
// nothing is in flight below the SMs (Gpu::set_memory_idle): a functional launch changes the caches and the
// devices in zero time, which a queued write-back would undo.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/program_if.h"

namespace strata {

class FastForward;

class KernelSampler : public ProgramIf {
 public:
  // inner: the program the GPU would run; ff: the functional engine (its caches and golden memory are the
  // platform's); per_signature: detailed launches per signature before the rest run functionally;
  // flush: gives the devices the lines ff->written_lines() holds (called after each functional launch).
  KernelSampler(ProgramIf& inner, FastForward& ff, unsigned per_signature, void (*flush)(void*), void* flush_ctx);

  KernelIf* next_kernel() override;
  unsigned kernels_estimate() const override { return inner_.kernels_estimate(); }
  uint64_t kernel_warp_insts(unsigned k) const override;
  bool wants_idle_memory() override;
  void launch_ended(uint64_t cycles, uint64_t warp_insts, uint64_t thread_insts) override;

  // The estimate of the whole program (sampling.* stats).
  uint64_t detailed_launches() const { return detailed_; }
  uint64_t functional_launches() const { return functional_; }
  uint64_t signatures() const { return sigs_.size(); }
  uint64_t functional_warp_insts() const { return fn_warp_; }
  uint64_t functional_thread_insts() const { return fn_thread_; }
  double est_cycles() const { return det_cycles_ + fn_cycles_; }
  uint64_t est_thread_insts() const { return det_thread_ + fn_thread_; }
  uint64_t est_warp_insts() const { return det_warp_ + fn_warp_; }

 private:
  using Sig = std::tuple<std::string, uint32_t, uint32_t, int>;  // name, CTAs, warps per CTA, size bucket
  struct Sample {  // the detailed launches of one size class (warp instructions to within sqrt(2))
    uint64_t cycles = 0, warp_insts = 0;              // all of them
    uint64_t later_cycles = 0, later_warp_insts = 0;  // those after the signature's first launch
  };
  struct Group {
    unsigned detailed = 0;        // detailed launches begun
    bool want_detail = false;     // a functional launch had a size no detailed one had: the next is detailed
    std::map<int, Sample> sizes;  // by size class
    // The rate a functional launch of `size` warp instructions is projected at: its size class's, or the
    // nearest one's (want_detail is then set). Within a class, the detailed launches after the signature's
    // first where there are any (the first launch of a kernel often runs on caches its later launches find
    // warm: kmeans' first membership launch reads its points from DRAM, the others from the L2).
    double cycles_per_warp_inst(uint64_t size, bool* exact) const;
  };
  static int size_class(uint64_t warp_insts);
  KernelIf* peek();  // the inner program's next launch, fetched once
  Sig signature(const KernelIf& k, unsigned index) const;
  bool functional(const Group& g) const { return g.detailed >= per_sig_ && !g.sizes.empty() && !g.want_detail; }

  ProgramIf& inner_;
  FastForward& ff_;
  const unsigned per_sig_;
  void (*flush_)(void*);
  void* flush_ctx_;
  std::map<Sig, Group> sigs_;
  KernelIf* peeked_ = nullptr;
  bool have_peek_ = false;
  unsigned index_ = 0;  // the inner program's launches fetched so far
  unsigned peeked_index_ = 0;
  Group* running_ = nullptr;  // the group of the detailed launch running now
  uint64_t detailed_ = 0, functional_ = 0, fn_warp_ = 0, fn_thread_ = 0, det_warp_ = 0, det_thread_ = 0;
  double det_cycles_ = 0, fn_cycles_ = 0;
};

}  // namespace strata
