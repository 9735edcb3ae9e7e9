// Functional fast-forward (sim.fast_forward_instructions; docs/user_guide.md "Fast-forward", issue 24 item 5):
// before the detailed simulation starts, the program runs functionally for N warp instructions. Nothing is
// timed, but the order is the GPU's, not a CTA after another: CTAs go to SMs as the dispatcher sends them
// (round robin, up to each SM's CTA and warp capacity, the next one where a CTA ended) and every resident warp
// runs in turn -- greedily until it issues a global memory instruction, reaches a barrier or exits, at most
// kTurn instructions -- so the L1s and the L2 see the interleaving of many warps and CTAs that the detailed run
// gives them, and stores come after other warps' loads. Every global load, store and atomic goes through the
// coalescer (models/ref/gpu/coalesce.c) into its SM's L1 and, where the L1 sends it on, into the L2 bank of
// its line, with the tag-side effect the request path would have (replacement state, valid and dirty sectors,
// the policy's bypasses: Sm::warm_request, L2Bank::warm); L1s are invalidated between kernels as the GPU does.
// Stores reach the golden (functional) memory from the generators as always, atomics are performed on it in
// lane order and their old values handed to the kernel. At the end the caches' line data and the devices' copy
// of every line written are refreshed from the golden memory, so every copy agrees with it (--check).
//
// It stops right after the N-th warp instruction. This object is then the GPU's program: its first kernel is
// the one the fast-forward stopped in, with the CTAs in flight put onto their SMs as they were (warp contexts,
// barrier and exit states: ProgramIf::resumed_ctas, Sm::resume_cta) and the dispatcher going on from the next
// CTA, so the detailed part starts with CTAs at staggered progress as in a running GPU, not a fresh wave;
// after it the inner program's kernels follow.
//
// Not warmed: the memory side (only policies with memside_ops.warm_free, whose state no access changes), the
// DRAM controllers' queues and row buffers, the crossbar, the SMs' scoreboards: a detailed warm-up
// (sim.warmup_instructions) after the fast-forward covers them (docs/performance.md "Fast-forward" measures
// how long it must be).
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "common/program_if.h"
#include "platform/config.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
}

namespace strata {

class Sm;
class L2Bank;

class FastForward : public ProgramIf {
 public:
  // inner: the program (or the placement engine) the GPU would run; sms, l2: the platform's (warm = false:
  // no cache is touched, for measuring what warming buys; the CTAs in flight still go onto the SMs); golden: the functional memory the program was
  // initialised with. C names the keys of errors (sm.max_warps for a CTA no SM can hold).
  FastForward(const Config& C, ProgramIf& inner, std::vector<Sm*> sms, std::vector<L2Bank*> l2, const amap* map,
              bstore* golden, bool warm);

  // Runs `warp_insts` warp instructions functionally. False when the program ended first (nothing left for
  // the detailed part).
  bool run(uint64_t warp_insts);

  KernelIf* next_kernel() override;
  unsigned kernels_estimate() const override;
  uint64_t kernel_warp_insts(unsigned k) const override;
  uint32_t resume_cta() const override { return resume_; }
  const std::vector<ResumedCta>& resumed_ctas() const override { return resumed_; }

  // Kernel sampling (platform/kernel_sampling.h): launch k, which the GPU does not see, from its first CTA to
  // its end functionally, the caches warmed as above, the L1s invalidated after it (the next launch starts
  // with empty L1s, as on the GPU) and the caches' data refreshed. Only with nothing in flight in the memory
  // system. written_lines() then holds the lines whose device copy is stale (clear_written() after copying).
  void run_launch(KernelIf& k);
  void clear_written() {
    written_.clear();
    last_written_ = UINT64_MAX;
  }

  // What the fast-forward ran (sim.fast_forward_* stats).
  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t thread_insts() const { return thread_insts_; }
  uint64_t launches() const { return launches_; }  // launches begun (the one it stopped in included)
  uint64_t ctas() const { return ctas_; }  // CTAs begun (those handed over in flight included)
  uint64_t in_flight() const { return held_ctas_.size(); }  // CTAs handed to the SMs in flight
  uint64_t l2_requests() const { return l2_reqs_; }  // line requests that reached the L2
  double host_seconds() const { return host_s_; }
  // Lines (128 B aligned) whose device copy is stale: those the fast-forward's stores and atomics wrote and
  // the dirty lines the warmed L2 evicted (their write-back is not simulated).
  const std::unordered_set<uint64_t>& written_lines() const { return written_; }

 private:
  struct Cta {  // a CTA resident on an SM
    bool used = false;
    uint32_t cta = 0, live = 0, at_barrier = 0;
    std::vector<WarpCtx> w;
    std::vector<uint8_t> st;  // 0 runnable, 1 at the barrier, 2 exited
    std::vector<uint32_t> aseq;
  };
  static constexpr unsigned kTurn = 16;  // instructions a warp runs at most per turn

  // Runs kernel k from its first CTA; true when it stopped inside it (the target reached) with CTAs in flight
  // or left to dispatch.
  bool run_kernel(KernelIf& k, uint64_t target);
  void start(KernelIf& k, Cta& c, uint32_t cta);
  // One turn of warp wi of c (on SM sm); false when the target was reached.
  bool turn(KernelIf& k, Cta& c, uint32_t wi, unsigned sm, uint64_t target);
  void memory(KernelIf& k, WarpCtx& w, WarpInst& in, Sm* sm, uint32_t* atom_seq);
  void invalidate_l1s();
  void check_cta_fits(const KernelIf& k) const;

  const Config& cfg_;
  ProgramIf& inner_;
  std::vector<Sm*> sms_;
  std::vector<L2Bank*> l2_;
  const amap* map_;
  bstore* golden_;
  bool warm_;
  KernelIf* held_ = nullptr;  // the kernel the fast-forward stopped in
  uint32_t held_resume_ = 0, resume_ = 0;
  std::vector<ResumedCta> held_ctas_, resumed_;
  unsigned offset_ = 0;  // launches the detailed part does not see from the start (for kernel_warp_insts)
  uint64_t warp_insts_ = 0, thread_insts_ = 0, launches_ = 0, ctas_ = 0, l2_reqs_ = 0;
  double host_s_ = 0;
  std::vector<std::vector<Cta>> slots_;  // per SM
  unsigned rr_ = 0;                      // the dispatcher's next SM
  WarpInst inst_;
  std::unordered_set<uint64_t> written_;
  uint64_t last_written_ = UINT64_MAX;  // the last line inserted (stores come in runs on one line)
};

}  // namespace strata
