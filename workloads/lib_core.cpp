// Kernel library core: thread-body recorder, lockstep warp issue, programs of
// word arrays, registry rows (see lib_core.h).
#include "lib_core.h"

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
void Thread::barrier() {
  if (block_ >= 0) throw std::logic_error("lib::Thread: barrier inside an offload block (TOM Sec. 3.1.4 forbids it)");
  push(RecKind::Barrier, 0, 0, 0);
}
void Thread::begin_block(unsigned k) {
  if (block_ >= 0) throw std::logic_error("lib::Thread: offload blocks do not nest");
  push(RecKind::BlockBegin, 0, k, 0);
  block_ = static_cast<int>(k);
}
void Thread::end_block() {
  if (block_ < 0) throw std::logic_error("lib::Thread: end_block without begin_block");
  push(RecKind::BlockEnd, 0, static_cast<uint32_t>(block_), 0);
  block_ = -1;
}
void Thread::finish() {
  if (block_ >= 0) throw std::logic_error("lib::Thread: offload block still open at the end of the body");
  push(RecKind::End, 0, 0, 0);
}

OffloadBlock straight_block(const std::string& name, uint32_t live_in, uint32_t live_out, uint32_t loads,
                            uint32_t stores, uint32_t alu, uint32_t sfu) {
  return loop_block(name, TripKind::None, 0, live_in, live_out, loads, stores, alu, sfu);
}
OffloadBlock loop_block(const std::string& name, TripKind trip, uint32_t trips, uint32_t live_in, uint32_t live_out,
                        uint32_t loads, uint32_t stores, uint32_t alu, uint32_t sfu) {
  OffloadBlock b;
  b.name = name;
  b.trip = trip;
  b.trips = trip == TripKind::Static ? trips : 0;
  b.live_in = live_in;
  b.live_out = live_out;
  b.loads = loads;
  b.stores = stores;
  b.alu = alu;
  b.sfu = sfu;
  return b;
}

// ---------------------------------------------------------------- LibKernel
struct LibKernel::Plan {
  std::vector<Rec> lane[kWarpSize];
  uint32_t cur[kWarpSize] = {};
  uint32_t gmask = 0;
  unsigned galu = 0, gsfu = 0;
  int stage = 0;  // 0 choose a group, 1 its ALU ops, 2 its SFU ops, 3 its memory op
  RecKind gkind = RecKind::End;
  uint8_t gbytes = 4;
  uint32_t gval = 0;       // block id of a BlockBegin group
  uint32_t in_mask = 0;    // lanes inside the open offload block (0: none open)
  int blk = -1;            // the open block
  bool entry = false;      // its first instruction is still to come
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
  p->in_mask = 0;
  p->blk = -1;
  p->entry = false;
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

namespace {
inline bool is_sync(RecKind k) { return k == RecKind::Barrier || k == RecKind::BlockBegin || k == RecKind::BlockEnd; }
}  // namespace

void LibKernel::warp_next(WarpCtx& w, WarpInst& o) const {
  Plan& p = *reinterpret_cast<Plan*>(static_cast<uintptr_t>(w.s[7]));
  if (w.pc == 0) {  // thread index computation
    w.pc = 1;
    o.alu(0, w.mask);
    return;
  }
  // Tags an issued instruction with the open offload block.
  auto tag = [&p](WarpInst& in) {
    if (p.blk < 0) return;
    in.in_block(static_cast<uint16_t>(p.blk), p.entry);
    p.entry = false;
  };
  for (;;) {
    if (p.stage == 0) {
      // Lanes that may issue: those inside the open block, else all.
      const uint32_t elig = p.in_mask ? p.in_mask : w.mask;
      auto kind = [&p](unsigned l) { return p.lane[l][p.cur[l]].kind; };
      // Leader: the lane with the most operations left (lowest lane on ties)
      // among lanes whose next record passes `ok`.
      auto pick = [&](auto ok) {
        int best_l = -1;
        size_t best = 0;
        for (unsigned l = 0; l < kWarpSize; ++l) {
          if (!((elig >> l) & 1u) || kind(l) == RecKind::End || !ok(kind(l))) continue;
          const size_t left = p.lane[l].size() - p.cur[l];
          if (left > best) best = left, best_l = static_cast<int>(l);
        }
        return best_l;
      };
      int leader = pick([](RecKind) { return true; });
      if (leader >= 0 && is_sync(kind(leader))) {
        // Lanes still before a barrier / block boundary go first; a block is
        // entered before a barrier is passed; a barrier is issued only when
        // every lane has reached it.
        const int other = pick([](RecKind k) { return !is_sync(k); });
        if (other >= 0) leader = other;
        else if (kind(leader) == RecKind::Barrier) {
          const int bb = pick([](RecKind k) { return k == RecKind::BlockBegin; });
          if (bb >= 0) leader = bb;
        }
      }
      p.gmask = 0;
      p.galu = p.gsfu = 0;
      if (leader < 0) {
        p.gkind = RecKind::End;
      } else {
        const Rec& lr = p.lane[leader][p.cur[leader]];
        p.gkind = lr.kind;
        p.gbytes = lr.bytes;
        p.gval = lr.val;
      }
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!((elig >> l) & 1u)) continue;
        const Rec& r = p.lane[l][p.cur[l]];
        if (r.kind != p.gkind || (r.kind == RecKind::Load && r.bytes != p.gbytes) ||
            (r.kind == RecKind::BlockBegin && r.val != p.gval))
          continue;
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
        tag(o);
        return;
      }
      p.stage = 2;
    }
    if (p.stage == 2) {
      if (p.gsfu) {
        --p.gsfu;
        const uint8_t a = p.last;
        o.sfu(p.reg(), p.gmask, a);
        tag(o);
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
        tag(o);
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
        tag(o);
        return;
      case RecKind::BlockBegin:  // no instruction: the lanes of m enter the block
        if (p.gval >= blocks.size())
          throw std::logic_error(name + ": begin_block(" + std::to_string(p.gval) +
                                 ") without a declared block (LibProgram::offload_blocks)");
        for (unsigned l = 0; l < kWarpSize; ++l)
          if ((m >> l) & 1u) ++p.cur[l];
        p.in_mask = m;
        p.blk = static_cast<int>(p.gval);
        p.entry = true;
        continue;
      case RecKind::BlockEnd:  // every lane of the block is here: it ends, converged
        for (unsigned l = 0; l < kWarpSize; ++l)
          if ((m >> l) & 1u) ++p.cur[l];
        p.in_mask = 0;
        p.blk = -1;
        p.entry = false;
        continue;
    }
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
  auto bl = blocks_.find(l.name);
  kern_.blocks = bl == blocks_.end() ? std::vector<OffloadBlock>() : bl->second;
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
