// Kernel library core: thread-body recorder, lockstep warp issue, programs of
// word arrays, registry rows (see lib_core.h).
#include "workloads/lib_core.h"

#include <algorithm>
#include <stdexcept>

namespace strata {
namespace lib {

// ---------------------------------------------------------------- Thread
void Thread::push(RecKind k, uint64_t addr, uint32_t val, unsigned bytes) {
  Rec r;
  r.addr = addr;
  r.val = val;
  r.kind = k;
  r.bytes = static_cast<uint8_t>(bytes);
  r.alu = static_cast<uint8_t>(std::min(pend_alu_, 255u));
  r.sfu = static_cast<uint8_t>(std::min(pend_sfu_, 255u));
  pend_alu_ = pend_sfu_ = 0;
  out_->push_back(r);
}
uint32_t Thread::own_or_gold(uint64_t addr) const {
  for (auto it = own_.rbegin(); it != own_.rend(); ++it)
    if (it->first == addr) return it->second;
  return gold_u32(g_, addr);
}
uint32_t Thread::ld(uint64_t addr) {
  push(RecKind::Load, addr, 0, 4);
  return own_or_gold(addr);
}
uint32_t Thread::ld_dep(uint64_t addr) {
  push(RecKind::Load, addr, 0, 4 | 0x80);
  return own_or_gold(addr);
}
uint64_t Thread::ld64(uint64_t addr) {
  push(RecKind::Load, addr, 0, 8);
  return own_or_gold(addr) | static_cast<uint64_t>(own_or_gold(addr + 4)) << 32;
}
uint64_t Thread::ld64_dep(uint64_t addr) {
  push(RecKind::Load, addr, 0, 8 | 0x80);
  return own_or_gold(addr) | static_cast<uint64_t>(own_or_gold(addr + 4)) << 32;
}
void Thread::st(uint64_t addr, uint32_t v) {
  push(RecKind::Store, addr, v, 4);
  own_.emplace_back(addr, v);
}
void Thread::barrier() { push(RecKind::Barrier, 0, 0, 0); }
void Thread::finish() { push(RecKind::End, 0, 0, 0); }

// ---------------------------------------------------------------- LibKernel
struct LibKernel::Plan {
  std::vector<Rec> lane[kWarpSize];
  uint32_t cur[kWarpSize] = {};
  uint32_t gmask = 0;
  unsigned galu = 0, gsfu = 0;
  int stage = 0;  // 0 choose a group, 1 its ALU ops, 2 its SFU ops, 3 its memory op
  RecKind gkind = RecKind::End;
  uint8_t gbytes = 4;
  uint8_t next = 2, last = 0, last2 = 0;  // register rotation (r0 = thread index)
  uint8_t reg() {
    last2 = last;
    last = next;
    next = next >= kMaxRegs - 1 ? 2 : next + 1;
    return last;
  }
};

LibKernel::LibKernel() = default;
LibKernel::~LibKernel() = default;

void LibKernel::warp_begin(WarpCtx& w) const {
  const uint64_t per_cta = cta_threads ? cta_threads : uint64_t(warps_per_cta) * kWarpSize;
  const uint64_t local = uint64_t(w.warp) * kWarpSize, t0 = w.cta * per_cta + local;
  w.mask = lanes_below(t0, threads) & lanes_below(local, per_cta);
  Plan* p;
  if (free_.empty()) {
    all_.emplace_back(new Plan);
    p = all_.back().get();
  } else {
    p = free_.back();
    free_.pop_back();
  }
  p->stage = 0;
  p->next = 2;
  p->last = p->last2 = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    p->lane[l].clear();
    p->cur[l] = 0;
    Thread t(golden, &p->lane[l]);
    if ((w.mask >> l) & 1u) body(t0 + l, t);
    t.finish();
  }
  w.s[7] = reinterpret_cast<uintptr_t>(p);
  w.pc = 0;
}

void LibKernel::warp_next(WarpCtx& w, WarpInst& o) const {
  Plan& p = *reinterpret_cast<Plan*>(static_cast<uintptr_t>(w.s[7]));
  if (w.pc == 0) {  // thread index computation
    w.pc = 1;
    o.alu(0, w.mask);
    return;
  }
  if (p.stage == 0) {
    // Leader: the lane with the most operations left (lowest lane on ties).
    int leader = -1;
    size_t best = 0;
    bool all_barrier = true;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!((w.mask >> l) & 1u)) continue;
      const Rec& r = p.lane[l][p.cur[l]];
      if (r.kind == RecKind::End) continue;
      if (r.kind != RecKind::Barrier) all_barrier = false;
      const size_t left = p.lane[l].size() - p.cur[l];
      if (left > best) best = left, leader = static_cast<int>(l);
    }
    if (leader >= 0 && p.lane[leader][p.cur[leader]].kind == RecKind::Barrier && !all_barrier) {
      // Lanes still before the barrier go first.
      best = 0;
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((w.mask >> l) & 1u)) continue;
        const Rec& r = p.lane[l][p.cur[l]];
        if (r.kind == RecKind::End || r.kind == RecKind::Barrier) continue;
        const size_t left = p.lane[l].size() - p.cur[l];
        if (left > best) best = left, leader = static_cast<int>(l);
      }
    }
    p.gmask = 0;
    p.galu = p.gsfu = 0;
    if (leader < 0) {
      p.gkind = RecKind::End;
    } else {
      p.gkind = p.lane[leader][p.cur[leader]].kind;
      p.gbytes = p.lane[leader][p.cur[leader]].bytes;
    }
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!((w.mask >> l) & 1u)) continue;
      const Rec& r = p.lane[l][p.cur[l]];
      if (r.kind != p.gkind || (r.kind == RecKind::Load && r.bytes != p.gbytes)) continue;
      p.gmask |= 1u << l;
      p.galu = std::max<unsigned>(p.galu, r.alu);
      p.gsfu = std::max<unsigned>(p.gsfu, r.sfu);
    }
    if (p.gkind == RecKind::End || p.gkind == RecKind::Barrier) p.gmask = w.mask;
    p.stage = 1;
  }
  if (p.stage == 1) {
    if (p.galu) {
      --p.galu;
      const uint8_t a = p.last, b = p.last2;
      o.alu(p.reg(), p.gmask, a, b);
      return;
    }
    p.stage = 2;
  }
  if (p.stage == 2) {
    if (p.gsfu) {
      --p.gsfu;
      const uint8_t a = p.last;
      o.sfu(p.reg(), p.gmask, a);
      return;
    }
    p.stage = 3;
  }
  p.stage = 0;
  const uint32_t m = p.gmask;
  switch (p.gkind) {
    case RecKind::End:
      o.exit(w.mask);
      free_.push_back(&p);
      return;
    case RecKind::Barrier:
      o.barrier(w.mask);
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((m >> l) & 1u && p.lane[l][p.cur[l]].kind == RecKind::Barrier) ++p.cur[l];
      return;
    case RecKind::Load: {
      const uint8_t src = (p.gbytes & 0x80) ? p.last : 0;
      o.load(p.reg(), m, p.gbytes & 0x7f, src);
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((m >> l) & 1u) o.addr[l] = p.lane[l][p.cur[l]++].addr;
      return;
    }
    case RecKind::Store:
      o.store(m, 4, p.last, 0);
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((m >> l) & 1u)) continue;
        const Rec& r = p.lane[l][p.cur[l]++];
        o.addr[l] = r.addr;
        o.data[l] = r.val;
        bstore_write(golden, r.addr, &r.val, 4);
      }
      return;
  }
}

// ---------------------------------------------------------------- LibProgram
unsigned LibProgram::words(const std::string& n, uint64_t nw, Init init) {
  const unsigned a = add_array(n, 4 * nw);
  init_.resize(a + 1);
  init_[a] = std::move(init);
  return a;
}

Kernel* LibProgram::next_kernel() {
  if (done_) return nullptr;
  Launch l;
  if (!schedule(k_, l)) {
    done_ = true;
    return nullptr;
  }
  kern_.name = l.name;
  kern_.golden = golden_;
  kern_.threads = l.threads;
  kern_.cta_threads = l.cta_threads;
  kern_.warps_per_cta = l.cta_threads ? static_cast<uint32_t>(ceil_div(l.cta_threads, kWarpSize)) : l.cta_warps;
  kern_.ctas = static_cast<uint32_t>(ceil_div(l.threads, l.cta_threads ? l.cta_threads : uint64_t(l.cta_warps) * kWarpSize));
  kern_.reads = l.reads;
  kern_.writes = l.writes;
  kern_.body = std::move(l.body);
  ++k_;
  return &kern_;
}

bool LibProgram::verify(bstore* g, std::string* why) const {
  if (!done_) {
    if (why) *why = name() + ": the program did not run to completion";
    return false;
  }
  return check(*this, g, why);
}

void LibProgram::init_data() {
  constexpr uint64_t kChunk = 1 << 16;
  std::vector<uint32_t> buf(kChunk);
  for (unsigned a = 0; a < init_.size(); ++a) {
    if (!init_[a]) continue;
    const uint64_t n = nwords(a);
    for (uint64_t i0 = 0; i0 < n; i0 += kChunk) {
      const uint64_t m = std::min(kChunk, n - i0);
      for (uint64_t j = 0; j < m; ++j) buf[j] = init_[a](i0 + j);
      write_init(base(a) + 4 * i0, buf.data(), 4 * m);
    }
  }
}

std::vector<uint32_t> LibProgram::initial(unsigned a) const {
  std::vector<uint32_t> v(nwords(a), 0);
  if (a < init_.size() && init_[a])
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = init_[a](i);
  return v;
}

std::vector<uint32_t> LibProgram::read(bstore* g, unsigned a) const {
  std::vector<uint32_t> v(nwords(a));
  if (!v.empty()) bstore_read(g, base(a), v.data(), 4 * v.size());
  return v;
}

bool LibProgram::expect(bstore* g, unsigned a, const std::vector<uint32_t>& want, std::string* why) const {
  const std::vector<uint32_t> got = read(g, a);
  for (uint64_t i = 0; i < got.size() && i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (why)
        *why = name() + ": " + array(a).name + "[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
               ", host reference says " + std::to_string(want[i]);
      return false;
    }
  return true;
}

// ---------------------------------------------------------------- rows
WorkloadInfo make_info(const Row& r) {
  WorkloadInfo wi;
  wi.name = r.name;
  wi.desc = r.desc;
  wi.knobs = r.knobs;
  wi.make = [r](const std::map<std::string, int64_t>& given, uint64_t seed) -> std::unique_ptr<Program> {
    std::map<std::string, int64_t> k;
    const KnobSpec* sk = nullptr;
    for (const KnobSpec& s : r.knobs) {
      auto it = given.find(s.name);
      k[s.name] = it != given.end() ? it->second : s.def;
      if (s.name == r.size_knob) sk = &s;
    }
    auto f = given.find(kFootprintKnob);
    if (f != given.end() && f->second > 0 && sk) {
      const uint64_t want = static_cast<uint64_t>(f->second);
      int64_t lo = sk->min, hi = sk->max;
      k[r.size_knob] = lo;
      if (r.footprint(k) <= want) {
        while (lo < hi) {  // largest value with footprint <= want (footprints grow with the size knob)
          const int64_t mid = lo + (hi - lo + 1) / 2;
          k[r.size_knob] = mid;
          if (r.footprint(k) <= want) lo = mid;
          else hi = mid - 1;
        }
        k[r.size_knob] = lo;
      }
    }
    return r.build(k, seed);
  };
  return wi;
}

}  // namespace lib
}  // namespace strata
