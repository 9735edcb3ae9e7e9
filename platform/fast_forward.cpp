#include "platform/fast_forward.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "l2/l2_bank.h"
#include "sm/sm.h"

extern "C" {
#include "gpu/atomic.h"
#include "gpu/coalesce.h"
}

namespace strata {

FastForward::FastForward(const Config& C, ProgramIf& inner, std::vector<Sm*> sms, std::vector<L2Bank*> l2,
                         const amap* map, bstore* golden, bool warm)
    : cfg_(C), inner_(inner), sms_(std::move(sms)), l2_(std::move(l2)), map_(map), golden_(golden), warm_(warm) {}

void FastForward::invalidate_l1s() {
  if (warm_)
    for (Sm* s : sms_) s->kernel_boundary();
}

bool FastForward::run(uint64_t target) {
  const auto t0 = std::chrono::steady_clock::now();
  slots_.assign(sms_.size(), {});
  bool more = true;
  while (warp_insts_ < target) {
    KernelIf* k = inner_.next_kernel();
    if (!k) {
      more = false;
      break;
    }
    if (launches_++) invalidate_l1s();  // between kernels (Gpu::kernel_method)
    if (!k->ctas) {
      ++offset_;
      continue;
    }
    check_cta_fits(*k);
    if (run_kernel(*k, target)) held_ = k;
    else ++offset_;
  }
  if (more && !held_) invalidate_l1s();  // stopped at a kernel's end: the next one starts with empty L1s
  if (warm_) {  // every copy agrees with the functional memory
    for (Sm* s : sms_) s->warm_finish(golden_);
    for (L2Bank* b : l2_) b->warm_finish(golden_);
  }
  host_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return more;
}

void FastForward::check_cta_fits(const KernelIf& k) const {
  if (k.warps_per_cta > static_cast<uint32_t>(cfg_.i("sm.max_warps")))
    cfg_.fail("sm.max_warps", "expected enough warp slots for a CTA: kernel " + k.name + " has CTAs of " +
                                  std::to_string(k.warps_per_cta) + " warps, which cannot fit an SM of " +
                                  std::to_string(cfg_.i("sm.max_warps")) + " warp slots");
}

void FastForward::run_launch(KernelIf& k) {
  const auto t0 = std::chrono::steady_clock::now();
  if (slots_.size() != sms_.size()) slots_.assign(sms_.size(), {});
  ++launches_;
  if (k.ctas) {
    check_cta_fits(k);
    run_kernel(k, UINT64_MAX);  // to its end
  }
  invalidate_l1s();
  if (warm_)
    for (L2Bank* b : l2_) b->warm_finish(golden_);
  host_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void FastForward::start(KernelIf& k, Cta& c, uint32_t cta) {
  const uint32_t n = k.warps_per_cta;
  c.used = true;
  c.cta = cta;
  c.live = n;
  c.at_barrier = 0;
  c.w.resize(n);
  c.st.assign(n, 0);
  c.aseq.assign(n, 0);
  for (uint32_t wi = 0; wi < n; ++wi) {
    c.w[wi] = WarpCtx();
    c.w[wi].cta = cta;
    c.w[wi].warp = wi;
    k.warp_begin(c.w[wi]);
  }
  ++ctas_;
}

// The GPU's order, untimed: the dispatcher fills the SMs round robin (Gpu::dispatch), every resident warp runs
// a turn per round, a barrier releases when every warp of its CTA that has not exited waits at it (as the SM
// does), and a finished CTA's slot takes the next CTA.
bool FastForward::run_kernel(KernelIf& k, uint64_t target) {
  const unsigned nsm = static_cast<unsigned>(sms_.size());
  const unsigned cap = std::max(1u, sms_[0]->cta_capacity(k));
  for (auto& v : slots_) {
    v.resize(cap);
    for (Cta& c : v) c.used = false;
  }
  uint32_t next = 0, live = 0;
  auto dispatch = [&] {  // one CTA per SM in turn while one has a free slot
    while (next < k.ctas) {
      bool placed = false;
      for (unsigned i = 0; i < nsm && !placed; ++i) {
        const unsigned s = (rr_ + i) % nsm;
        for (Cta& c : slots_[s])
          if (!c.used) {
            start(k, c, next++);
            ++live;
            rr_ = (s + 1) % nsm;
            placed = true;
            break;
          }
      }
      if (!placed) break;
    }
  };
  dispatch();
  bool stopped = false;
  while (live && !stopped) {
    for (unsigned s = 0; s < nsm && !stopped; ++s)
      for (Cta& c : slots_[s]) {
        if (!c.used) continue;
        for (uint32_t wi = 0; wi < c.w.size() && !stopped; ++wi)
          if (c.st[wi] == 0) stopped = !turn(k, c, wi, s, target);
        if (c.live == 0) {  // finished
          c.used = false;
          --live;
        }
        if (stopped) break;
      }
    if (!stopped) dispatch();
  }
  if (!stopped || (live == 0 && next == k.ctas)) return false;  // the kernel ran to its end
  held_resume_ = next;
  held_ctas_.clear();
  for (unsigned s = 0; s < nsm; ++s)
    for (const Cta& c : slots_[s])
      if (c.used && c.live) held_ctas_.push_back(ResumedCta{s, c.cta, c.w.data(), c.st.data(), c.aseq.data()});
  return true;
}

bool FastForward::turn(KernelIf& k, Cta& c, uint32_t wi, unsigned s, uint64_t target) {
  WarpCtx& w = c.w[wi];
  Sm* sm = warm_ ? sms_[s] : nullptr;
  WarpInst& in = inst_;
  for (unsigned i = 0; i < kTurn; ++i) {
    k.warp_next(w, in);
    ++warp_insts_;
    thread_insts_ += static_cast<uint64_t>(__builtin_popcount(in.active));
    bool end = false;
    if (in.op == Op::Load || in.op == Op::Store || in.op == Op::Atomic) {
      memory(k, w, in, sm, &c.aseq[wi]);
      end = true;  // a long-latency instruction: the SM's scheduler would turn to another warp
    } else if (in.op == Op::Barrier) {
      c.st[wi] = 1;
      if (++c.at_barrier >= c.live) {  // every live warp waits: released
        for (uint8_t& x : c.st)
          if (x == 1) x = 0;
        c.at_barrier = 0;
      }
      end = true;
    } else if (in.op == Op::Exit) {
      c.st[wi] = 2;
      --c.live;
      if (c.live && c.at_barrier >= c.live) {
        for (uint8_t& x : c.st)
          if (x == 1) x = 0;
        c.at_barrier = 0;
      }
      end = true;
    }
    if (warp_insts_ >= target) return false;
    if (end) break;
  }
  return true;
}

// One global memory instruction: its line requests through the L1 into the L2 (warm), an atomic performed on
// the golden memory in lane order (Gpu::performed does the same in the L2's order) with its old values handed
// to the kernel as the SM does when the last line is back.
void FastForward::memory(KernelIf& k, WarpCtx& w, WarpInst& in, Sm* sm, uint32_t* atom_seq) {
  coal_req reqs[COAL_MAX_REQS];
  const int n = in.active ? coal_warp(in.addr, in.active, in.bytes, reqs) : 0;
  if (n < 0) throw std::runtime_error("kernel " + k.name + ": misaligned or bad-size access in a warp instruction");
  if (in.op == Op::Atomic) {
    if (n == 0) return;  // no active lane: nothing performed (the SM counts no atomic)
    const unsigned nb = gpu_atom_bytes(in.atype);
    uint64_t old[kWarpSize] = {};
    for (uint32_t m = in.active; m; m &= m - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
      uint64_t g = 0;
      bstore_read(golden_, in.addr[l], &g, nb);
      old[l] = g;
      const uint64_t nv = gpu_atom_apply(in.aop, in.atype, g, in.data[l], in.data2[l]);
      if (bstore_write(golden_, in.addr[l], &nv, nb) != 0) throw std::bad_alloc();
    }
    k.atomic_result(w, (*atom_seq)++, in.active, old);
  }
  const bool wr = in.op == Op::Store, atom = in.op == Op::Atomic;
  if (wr || atom)
    for (int i = 0; i < n; ++i)
      if (reqs[i].line_addr != last_written_) written_.insert(last_written_ = reqs[i].line_addr);
  if (!sm) return;
  for (int i = 0; i < n; ++i) {
    const coal_req& r = reqs[i];
    const uint8_t send = sm->warm_request(in.op, r);
    if (!send) continue;  // an L1 hit
    uint8_t partial = 0;  // sectors a store writes only in part
    if (wr)
      for (unsigned s = 0; s < kSectorsPerLine; ++s) {
        const uint32_t bm = static_cast<uint32_t>(r.byte_mask[s >> 1] >> ((s & 1) * 32));
        if (bm && bm != 0xffffffffu) partial = static_cast<uint8_t>(partial | (1u << s));
      }
    ++l2_reqs_;
    uint64_t victim = UINT64_MAX;
    const uint8_t mt =
        l2_[amap_l2_bank(map_, r.line_addr)]->warm(r.line_addr, send, partial, wr, atom, r.ea_count, &victim);
    if (victim != UINT64_MAX) written_.insert(victim);  // a dirty line left the L2 without its write-back
    if (in.op == Op::Load) sm->warm_fill(r, send, mt);
  }
}

KernelIf* FastForward::next_kernel() {
  if (held_) {
    KernelIf* k = held_;
    held_ = nullptr;
    resume_ = held_resume_;
    resumed_ = held_ctas_;
    return k;
  }
  resume_ = 0;
  resumed_.clear();
  return inner_.next_kernel();
}

unsigned FastForward::kernels_estimate() const {
  const unsigned all = inner_.kernels_estimate();
  return all > offset_ ? all - offset_ : 1;
}

uint64_t FastForward::kernel_warp_insts(unsigned k) const { return inner_.kernel_warp_insts(k + offset_); }

}  // namespace strata
