#include "platform/kernel_sampling.h"

#include <cmath>
#include <iterator>

#include "platform/fast_forward.h"

namespace strata {

KernelSampler::KernelSampler(ProgramIf& inner, FastForward& ff, unsigned per_signature, void (*flush)(void*),
                             void* flush_ctx)
    : inner_(inner), ff_(ff), per_sig_(per_signature ? per_signature : 1), flush_(flush), flush_ctx_(flush_ctx) {}

KernelIf* KernelSampler::peek() {
  if (!have_peek_) {
    peeked_ = inner_.next_kernel();
    peeked_index_ = index_;
    if (peeked_) ++index_;
    have_peek_ = true;
  }
  return peeked_;
}

int KernelSampler::size_class(uint64_t w) {
  return w ? static_cast<int>(std::lround(2.0 * std::log2(static_cast<double>(w)))) : -1;
}

double KernelSampler::Group::cycles_per_warp_inst(uint64_t size, bool* exact) const {
  const int c = size_class(size);
  auto it = sizes.lower_bound(c);
  *exact = it != sizes.end() && it->first == c;
  if (!*exact) {  // the nearest class
    if (it == sizes.end() || (it != sizes.begin() && c - std::prev(it)->first <= it->first - c)) --it;
  }
  const Sample& s = it->second;
  return s.later_warp_insts ? static_cast<double>(s.later_cycles) / static_cast<double>(s.later_warp_insts)
                            : static_cast<double>(s.cycles) / static_cast<double>(s.warp_insts);
}

KernelSampler::Sig KernelSampler::signature(const KernelIf& k, unsigned index) const {
  const uint64_t w = inner_.kernel_warp_insts(index);
  return Sig{k.name, k.ctas, k.warps_per_cta, size_class(w)};
}

bool KernelSampler::wants_idle_memory() {
  KernelIf* k = peek();
  if (!k || !k->ctas) return false;
  auto it = sigs_.find(signature(*k, peeked_index_));
  return it != sigs_.end() && functional(it->second);
}

KernelIf* KernelSampler::next_kernel() {
  running_ = nullptr;
  for (;;) {
    KernelIf* k = peek();
    have_peek_ = false;
    if (!k) return nullptr;
    if (!k->ctas) return k;  // an empty launch: the GPU counts it, nothing to sample
    Group& g = sigs_[signature(*k, peeked_index_)];
    if (!functional(g)) {  // detailed: the first launches of its signature (or one still running: none)
      ++g.detailed;
      ++detailed_;
      running_ = &g;
      return k;
    }
    // Functional, with nothing in flight (the GPU waited for wants_idle_memory()); the next launch may be
    // functional too: the memory stays idle, as no time passes.
    const uint64_t w0 = ff_.warp_insts(), t0 = ff_.thread_insts();
    ff_.run_launch(*k);
    flush_(flush_ctx_);
    ff_.clear_written();
    const uint64_t w = ff_.warp_insts() - w0, t = ff_.thread_insts() - t0;
    ++functional_;
    fn_warp_ += w;
    fn_thread_ += t;
    bool exact = false;
    fn_cycles_ += static_cast<double>(w) * g.cycles_per_warp_inst(w, &exact);
    if (!exact) g.want_detail = true;
  }
}

void KernelSampler::launch_ended(uint64_t cycles, uint64_t warp_insts, uint64_t thread_insts) {
  det_cycles_ += static_cast<double>(cycles);
  det_warp_ += warp_insts;
  det_thread_ += thread_insts;
  if (running_ && warp_insts) {
    Sample& x = running_->sizes[size_class(warp_insts)];
    if (running_->detailed > 1) {  // not the signature's first launch
      x.later_cycles += cycles;
      x.later_warp_insts += warp_insts;
    }
    x.cycles += cycles;
    x.warp_insts += warp_insts;
    running_->want_detail = false;
  }
  running_ = nullptr;
}

uint64_t KernelSampler::kernel_warp_insts(unsigned k) const {
  return inner_.kernel_warp_insts(k + static_cast<unsigned>(functional_));
}

}  // namespace strata
