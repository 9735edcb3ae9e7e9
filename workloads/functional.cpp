#include "functional.h"

namespace strata {

FuncCounts run_functional(Program& prog, FuncObserver* obs) {
  FuncCounts c;
  WarpCtx w;
  WarpInst in;
  while (Kernel* k = prog.next_kernel()) {
    ++c.kernels;
    if (obs) obs->kernel_begin(*k);
    for (uint32_t cta = 0; cta < k->ctas; ++cta) {
      for (uint32_t wi = 0; wi < k->warps_per_cta; ++wi) {
        w = WarpCtx();
        w.cta = cta;
        w.warp = wi;
        k->warp_begin(w);
        ++c.warps;
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
          } else if (in.op == Op::Exit) {
            break;
          }
        }
        if (obs) obs->warp_end();
      }
    }
    if (obs) obs->kernel_end(*k);
  }
  return c;
}

}  // namespace strata
