#include "functional.h"

#include <vector>

namespace strata {

// The warps of a CTA run in turn, each until it issues a barrier or exits; a
// barrier releases when every warp that has not exited waits at it (as the SM
// and the PTX executor do), so warps that exchange data through memory across
// __syncthreads see each other's writes in program order. Without barriers
// every warp runs to its end before the next starts.
FuncCounts run_functional(Program& prog, FuncObserver* obs) {
  FuncCounts c;
  std::vector<WarpCtx> ws;
  std::vector<uint8_t> state;  // 0 runnable, 1 waiting at a barrier, 2 exited
  WarpInst in;
  while (Kernel* k = prog.next_kernel()) {
    ++c.kernels;
    if (obs) obs->kernel_begin(*k);
    ws.resize(k->warps_per_cta);
    state.resize(k->warps_per_cta);
    for (uint32_t cta = 0; cta < k->ctas; ++cta) {
      for (uint32_t wi = 0; wi < k->warps_per_cta; ++wi) {
        ws[wi] = WarpCtx();
        ws[wi].cta = cta;
        ws[wi].warp = wi;
        k->warp_begin(ws[wi]);
        state[wi] = 0;
        ++c.warps;
      }
      uint32_t live = k->warps_per_cta;
      while (live) {
        // one pass: every runnable warp runs to its next barrier or its exit;
        // then every live warp waits at the barrier, which releases them
        for (uint32_t wi = 0; wi < k->warps_per_cta; ++wi) {
          if (state[wi] != 0) continue;
          WarpCtx& w = ws[wi];
          if (obs) obs->warp_resume(wi);
          for (;;) {
            k->warp_next(w, in);
            if (obs) obs->inst(in);
            ++c.warp_insts;
            const uint64_t lanes = static_cast<uint64_t>(__builtin_popcount(in.active));
            c.thread_insts += lanes;
            if (in.op == Op::Load) {
              ++c.load_insts;
              c.load_bytes += lanes * in.bytes;
            } else if (in.op == Op::Store) {
              ++c.store_insts;
              c.store_bytes += lanes * in.bytes;
            } else if (in.op == Op::Barrier) {
              ++c.barriers;
              state[wi] = 1;
              break;
            } else if (in.op == Op::Exit) {
              state[wi] = 2;
              --live;
              if (obs) obs->warp_end();
              break;
            }
          }
        }
        for (uint32_t wi = 0; wi < k->warps_per_cta; ++wi)
          if (state[wi] == 1) state[wi] = 0;
      }
    }
    if (obs) obs->kernel_end(*k);
  }
  return c;
}

}  // namespace strata
