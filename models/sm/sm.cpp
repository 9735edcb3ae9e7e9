#include "sm/sm.h"

#include <algorithm>
#include <cstring>

#include "common/bits.h"

using sc_core::sc_time;
using sc_core::SC_PS;

namespace strata {

namespace {
// Copy the store data of `lanes` into the line buffer d (fixed-size copies).
template <unsigned B>
inline void put_lanes(unsigned char* d, uint32_t lanes, const uint64_t* addr, const uint64_t* data) {
  for (; lanes; lanes &= lanes - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
    std::memcpy(d + (addr[l] & (kLineBytes - 1)), &data[l], B);
  }
}
}  // namespace

Sm::Sm(sc_core::sc_module_name name, unsigned id, const SmCfg& cfg, const L1Cfg& l1, const amap* map,
       PayloadPool& pool, bstore* golden, Checker* checker, SmHost* host, StatsRegistry& stats,
       const SmRole& role)
    : sc_module(name),
      isock("isock"),
      id_(id),
      cfg_(cfg),
      l1cfg_(l1),
      map_(map),
      pool_(pool),
      golden_(golden),
      checker_(checker),
      gpu_(host),
      ps_unit_(sc_time(1, SC_PS).value()),
      period_ps_(cfg.clk.period_ps()),
      gto_(cfg.sched == WarpSched::GreedyThenOldest),
      l1_on_(l1.enabled) {
  if (cfg.max_warps == 0 || cfg.max_warps > 1024 || cfg.max_ctas == 0 || cfg.issue_width == 0 ||
      cfg.ldst_per_cycle == 0 || period_ps_ == 0 || cfg.max_atomics == 0 || cfg.max_atomics > kMaxAtomicsPerWarp)
    SC_REPORT_FATAL(this->name(), "invalid SmCfg");
  isock.register_nb_transport_bw(this, &Sm::nb_transport_bw);
  warps_.resize(cfg.max_warps);
  rdy_.assign(cfg.max_warps, kNever);
  op_.assign(cfg.max_warps, Op::Exit);
  st_.assign(cfg.max_warps, kStNone);
  pos_.assign(cfg.max_warps, 0);
  last_iss_.assign(cfg.max_warps, kNever);
  nwords_ = (cfg.max_warps + 63) / 64;
  dirty_.assign(nwords_, 0);
  timed_.assign(nwords_, 0);
  elig_.assign(3 * static_cast<size_t>(nwords_), 0);
  warps_free_ = cfg.max_warps;
  ctas_.resize(cfg.max_ctas);
  for (CtaSlot& c : ctas_) c.slots.reserve(cfg.max_warps);
  age_buf_.assign(2 * static_cast<size_t>(cfg.max_warps), 0);
  ldrecs_.resize(static_cast<size_t>(cfg.max_warps) * kLdPerWarp);
  chk_ = checker_ && checker_->enabled();
  if (chk_) ldchk_.resize(ldrecs_.size());
  for (size_t i = ldrecs_.size(); i-- > 0;) ldrec_free_.push_back(static_cast<uint16_t>(i));
  memq_.resize(kMemQ);
  outq_.assign(kOutQ, nullptr);
  const unsigned nmshr = std::max(1u, l1.mshrs), merge = l1_on_ ? std::max(1u, l1.mshr_merge) : 1u;
  mshrs_.resize(nmshr);
  waiters_.resize(static_cast<size_t>(nmshr) * merge);
  merge_ = merge;
  for (unsigned i = nmshr; i-- > 0;) mshr_free_.push_back(static_cast<uint16_t>(i));
  unsigned hbits = 1;
  while ((1u << hbits) < 2 * nmshr) ++hbits;
  mshr_bucket_.assign(1u << hbits, -1);
  mshr_shift_ = 64 - hbits;
  resp_ready_.reserve(nmshr * 4 + 256);
  rheap_.reserve(nmshr * 4 + 256);
  if (l1_on_) {
    cache_cfg cc{};
    cc.size_bytes = l1.size_bytes;
    cc.assoc = l1.assoc;
    cc.line_bytes = kLineBytes;
    cc.sector_bytes = kSectorBytes;
    cc.set_stride = 1;
    cc.policy = repl_find("lru");
    cc.with_data = 1;
    char err[200];
    if (!cc.policy || cache_init(&l1_, &cc, err, sizeof err) != 0)
      SC_REPORT_FATAL(this->name(), (std::string("L1: ") + (cc.policy ? err : "no lru policy")).c_str());
  }

  wake_.bind<&Sm::cycle>(this, {role.stage, id_});
  resp_ev_.bind<&Sm::on_resp>(this, {role.stage, id_});

  const std::string g = role.sm_stats.empty() ? "gpu.sm" + std::to_string(id) : role.sm_stats;
  const std::string l = role.l1_stats.empty() ? "l1.sm" + std::to_string(id) : role.l1_stats;
  stats.counter(g + ".instructions", "thread instructions issued", Unit::Count, &thread_insts_);
  stats.counter(g + ".warp_instructions", "warp instructions issued", Unit::Count, &warp_insts_);
  stats.counter(g + ".mem_instructions", "warp load/store instructions issued", Unit::Count, &mem_insts_);
  stats.counter(g + ".mem_requests", "requests sent to the L2 (load sector fetches and stores)", Unit::Count,
                &mem_requests_);
  stats.counter(g + ".ctas", "CTAs completed", Unit::Count, &ctas_done_);
  stats.counter(g + ".wakeups", "cycles in which the SM model was evaluated (event-driven activity)", Unit::Count,
                &wakeups_);
  stats.counter(l + ".accesses", "line requests to the L1 (loads and stores)", Unit::Count, &l1_acc_);
  stats.counter(l + ".hits", "L1 requests served without the L2 (all sectors valid; store: line present)",
                Unit::Count, &l1_hit_);
  stats.counter(l + ".misses", "L1 requests that went to the L2", Unit::Count, &l1_miss_);
  stats.counter(l + ".mshr_merges", "load misses merged into an in-flight MSHR", Unit::Count, &l1_merge_);
  stats.counter(l + ".reservation_fails", "L1 request attempts refused for lack of an MSHR, merge slot or L2-port slot (retried when one frees)", Unit::Count,
                &l1_resfail_);
  stats.counter(l + ".reservation_fails_mshr", "refusals for lack of an MSHR or merge slot", Unit::Count,
                &l1_fail_mshr_);
  stats.counter(l + ".reservation_fails_port", "refusals because the L2-port queue was full (interconnect backpressure)",
                Unit::Count, &l1_fail_port_);
  stats.counter(l + ".fills", "line fills installed", Unit::Count, &l1_fills_);
  const uint64_t* a = &l1_acc_;
  const uint64_t* m = &l1_miss_;
  stats.ratio(
      l + ".miss_rate", "L1 misses / accesses", Unit::Ratio, [m] { return static_cast<double>(*m); },
      [a] { return static_cast<double>(*a); });
}

Sm::~Sm() {
  if (l1_on_) cache_free(&l1_);
}

uint64_t Sm::cycle_now() const { return now_ps() / period_ps_; }

void Sm::wake_cycle(uint64_t cyc) { wake_at_ps(cyc * period_ps_, now_ps()); }

// Wake the SM's cycle at max(t, now) ps (the scheduler keeps only the
// earliest pending wake-up).
void Sm::wake_at_ps(uint64_t t, uint64_t now) { wake_.notify_at(t * ps_unit_, now * ps_unit_); }

// ---------------------------------------------------------------- dispatch

bool Sm::can_accept(const KernelIf& k) const { return ctas_live_ < cfg_.max_ctas && warps_free_ >= k.warps_per_cta; }

unsigned Sm::cta_capacity(const KernelIf& k) const {
  if (!k.warps_per_cta) return 0;
  return std::min<unsigned>(cfg_.max_ctas, cfg_.max_warps / k.warps_per_cta);
}

void Sm::launch_cta(const KernelIf* k, uint32_t cta) { start_cta(k, cta, nullptr, nullptr, nullptr); }

void Sm::resume_cta(const KernelIf* k, uint32_t cta, const WarpCtx* ctx, const uint8_t* state,
                    const uint32_t* atom_seq) {
  start_cta(k, cta, ctx, state, atom_seq);
}

// A CTA into free slots: its warps from warp_begin, or (ctx) where a fast-forward left them -- runnable,
// waiting at the CTA's barrier (as the Barrier case of issue() leaves a warp) or exited (as the Exit case
// does, the slot held until the CTA ends).
void Sm::start_cta(const KernelIf* k, uint32_t cta, const WarpCtx* ctx, const uint8_t* state,
                   const uint32_t* atom_seq) {
  kernel_ = k;
  unsigned cs = 0;
  while (ctas_[cs].live) ++cs;
  CtaSlot& c = ctas_[cs];
  c.live = true;
  c.cta = cta;
  c.warps_live = static_cast<uint16_t>(k->warps_per_cta);
  c.at_barrier = 0;
  c.slots.clear();
  unsigned slot = 0;
  for (uint32_t wi = 0; wi < k->warps_per_cta; ++wi) {
    while (warps_[slot].live) ++slot;
    Warp& w = warps_[slot];
    w.live = true;
    w.exited = w.at_barrier = w.has_inst = false;
    w.cta_slot = static_cast<uint16_t>(cs);
    w.pending_loads = 0;
    w.atom_out = 0;
    w.atom_busy = 0;
    w.atom_seq = atom_seq ? atom_seq[wi] : 0;
    w.age = age_ctr_++;
    w.max_ready = 0;
    std::fill(std::begin(w.reg_ready), std::end(w.reg_ready), 0);
    c.slots.push_back(static_cast<uint16_t>(slot));
    last_iss_[slot] = kNever;
    if (ctx) {
      w.ctx = ctx[wi];
    } else {
      w.ctx = WarpCtx();
      w.ctx.cta = cta;
      w.ctx.warp = wi;
      k->warp_begin(w.ctx);
    }
    const uint8_t st = state ? state[wi] : 0;
    if (st == 2) {  // exited
      w.exited = true;
      set_never(slot);
      --c.warps_live;
      continue;
    }
    age_push(slot);
    if (st == 1) {  // waiting at the barrier
      w.at_barrier = true;
      set_never(slot);
      ++c.at_barrier;
    } else {
      set_dirty(slot);
    }
  }
  if (c.warps_live == 0) SC_REPORT_FATAL(name(), "a resumed CTA with every warp exited");
  if (c.at_barrier >= c.warps_live) release_barrier(c);
  ++ctas_live_;
  warps_free_ -= k->warps_per_cta;
  issue_dirty_ = true;
  wake_cycle(cycle_now());
}

void Sm::kernel_boundary() {
  if (l1_on_) cache_invalidate_all(&l1_);
  ++l1_epoch_;
  kernel_ = nullptr;
}

std::string Sm::debug_state() const {
  static const char* const kOp[] = {"alu", "sfu", "load", "store", "barrier", "exit", "shared", "atomic"};
  std::string s = std::string(name()) + ": cycle " + std::to_string(last_cycle_) + ", ctas " +
                  std::to_string(ctas_live_) + ", memq " + std::to_string(memq_count_) +
                  (l1_blocked_ ? " (L1 blocked)" : "") + ", outq " + std::to_string(outq_count_) +
                  (awaiting_end_req_ ? " (awaiting END_REQ)" : "") + ", mshrs " + std::to_string(mshr_live_) +
                  ", free load records " + std::to_string(ldrec_free_.size()) + ", stores in flight " +
                  std::to_string(stores_out_) + ", responses queued " + std::to_string(resp_ready_.size()) + "\n";
  for (size_t i = 0; i < warps_.size(); ++i) {
    const Warp& w = warps_[i];
    if (!w.live || w.exited) continue;
    s += "  warp slot " + std::to_string(i) + " cta " + std::to_string(w.ctx.cta) + " pc " + std::to_string(w.ctx.pc) +
         (w.has_inst ? std::string(" next ") + kOp[static_cast<int>(w.inst.op)] : std::string(" (no inst)")) +
         (w.at_barrier ? " at barrier" : "") + ", pending loads " + std::to_string(w.pending_loads) +
         (w.atom_out ? ", atomic requests " + std::to_string(w.atom_out) : std::string());
    for (unsigned r = 0; r < kMaxRegs; ++r)
      if (w.reg_ready[r] > last_cycle_)
        s += ", r" + std::to_string(r) + (w.reg_ready[r] == kNever ? " waits" : " at " + std::to_string(w.reg_ready[r]));
    s += "\n";
  }
  for (size_t m = 0; m < mshrs_.size(); ++m)
    if (mshrs_[m].active)
      s += "  mshr " + std::to_string(m) + " line 0x" + std::to_string(mshrs_[m].line) + " outstanding " +
           std::to_string(mshrs_[m].outstanding) + " waiters " + std::to_string(mshrs_[m].nwait) + "\n";
  return s;
}

// ---------------------------------------------------------------- main cycle

void Sm::cycle() {
  now_ps_ = now_ps();
  const uint64_t c = now_ps_ / period_ps_;
  if (c != last_cycle_) {
    last_cycle_ = c;
    issued_c_ = 0;
    ldst_c_ = 0;
    l1_done_c_ = send_done_c_ = false;
    l1_refused_c_ = 0;
    memq_freed_c_ = ldrec_freed_c_ = 0;
    sent_c_ = 0;
    ++wakeups_;
  }
  issued_eval_ = false;
  // The method can run again within one cycle when a response arrives in a
  // later delta of the same time step: it then completes the cycle's work with
  // what is left of this cycle's issue, LD/ST, L1 and L2-port budgets.
  if (!resp_ready_.empty()) {
    for (tlm::tlm_generic_payload* gp : resp_ready_) process_response(gp, c);
    resp_ready_.clear();
    if (l1_refused_c_) l1_done_c_ = false;
  }
  issue_stage(c);
  if (!l1_done_c_) l1_stage(c);
  if (!send_done_c_ && outq_count_ && !awaiting_end_req_ && now_ps_ >= send_ok_ps_) send_stage(c);

  // Classify what the stages changed (issued warps' next instructions, loads
  // completed by L1 hits) so the next wake-up is exact.
  if (any_dirty_) classify_dirty(c);
  if (timed_min_ <= c) promote_timed(c);
  uint64_t next = timed_min_;
  // An eligible warp that was not issued (issue width, LD/ST budget) tries
  // again next cycle; one held by a full LD/ST queue or by no free load record
  // sleeps until the L1 stage or a response frees one (both wake the SM).
  if ((n_elig_[kClsOther] | n_elig_[kClsLoad] | n_elig_[kClsStore]) && can_issue_next_cycle())
    next = std::min(next, c + 1);
  if (memq_count_ && !l1_blocked_) next = std::min(next, c + 1);
  if (outq_count_ && !awaiting_end_req_) next = std::min(next, std::max(c + 1, (send_ok_ps_ + period_ps_ - 1) / period_ps_));
  // The cycle after an issue is evaluated when a refused L1 request waits
  // (it retries then). Otherwise, when no rule above wants cycle c + 1, that
  // evaluation would change nothing (no warp can issue, the LD/ST queue is
  // empty or waits, no send is due, and it would schedule the same next
  // wake-up), so it is not scheduled.
  if (issued_eval_ && memq_count_ && l1_blocked_) next = c + 1;
  if (next != kNever) wake_at_ps(next * period_ps_, now_ps_);
}

void Sm::resp_push(tlm::tlm_generic_payload& gp, uint64_t t_ps) {
  const uint64_t now = now_ps();
  if (t_ps < now) t_ps = now;
  rheap_.push_back({t_ps, rseq_++, &gp});
  std::push_heap(rheap_.begin(), rheap_.end(), [](const RespEnt& a, const RespEnt& b) {
    return a.t_ps != b.t_ps ? a.t_ps > b.t_ps : a.seq > b.seq;
  });
  resp_ev_.notify_at(t_ps * ps_unit_, now * ps_unit_);
}

void Sm::on_resp() {
  const uint64_t now = now_ps();
  auto later = [](const RespEnt& a, const RespEnt& b) { return a.t_ps != b.t_ps ? a.t_ps > b.t_ps : a.seq > b.seq; };
  while (!rheap_.empty() && rheap_.front().t_ps <= now) {
    std::pop_heap(rheap_.begin(), rheap_.end(), later);
    resp_ready_.push_back(rheap_.back().gp);
    rheap_.pop_back();
  }
  if (!rheap_.empty()) {
    resp_ev_.notify_at(rheap_.front().t_ps * ps_unit_, now * ps_unit_);
  }
  l1_blocked_ = false;
  wake_at_ps((now + period_ps_ - 1) / period_ps_ * period_ps_, now);
}

// ---------------------------------------------------------------- issue

void Sm::fetch(Warp& w) {
  kernel_->warp_next(w.ctx, w.inst);
  w.has_inst = true;
  if (w.inst.op == Op::Load && chk_) {
    // Golden snapshot at generation time (what a correct memory system must return).
    for (unsigned l = 0; l < kWarpSize; ++l) {
      w.inst.data[l] = 0;
      if ((w.inst.active >> l) & 1u) bstore_read(golden_, w.inst.addr[l], &w.inst.data[l], w.inst.bytes);
    }
  }
}

// Earliest cycle at which the buffered instruction's operands allow issue
// (kNever: waits for an event — a load return or a barrier).
uint64_t Sm::ready_time(Warp& w) {
  if (!w.has_inst) {
    // The generator may have to hear the atomic's old values first.
    if (w.atom_out && !kernel_->fetch_during_atomic(w.ctx, cfg_.max_atomics)) return kNever;
    fetch(w);
  }
  const WarpInst& in = w.inst;
  switch (in.op) {
    case Op::Exit: return w.pending_loads || w.atom_out ? kNever : w.max_ready;
    case Op::Barrier: return 0;
    case Op::Atomic: {  // a free atomic slot (freed by a response, which marks the warp dirty) and its sources;
      // not its destination: an atomic whose old value is overwritten unread is a reduction (NVIDIA's
      // assembler emits RED for it), so a loop's atomics to one register overlap
      if (static_cast<unsigned>(__builtin_popcount(w.atom_busy)) >= cfg_.max_atomics) return kNever;
      uint64_t t = 0;
      for (uint8_t s : in.src)
        if (s != kNoReg) t = std::max(t, w.reg_ready[s]);
      return t;
    }
    default: {
      uint64_t t = in.dst != kNoReg ? w.reg_ready[in.dst] : 0;
      for (uint8_t s : in.src)
        if (s != kNoReg) t = std::max(t, w.reg_ready[s]);
      return t;
    }
  }
}

// In the issue stage: LD/ST budget left, a queue slot and (loads) a load
// record, not counting those the L1 stage freed in this cycle.
bool Sm::structural_ok(Op op, unsigned ldst_budget) const {
  if (op != Op::Load && op != Op::Store && op != Op::Atomic) return true;
  if (ldst_budget == 0 || memq_count_ + memq_freed_c_ >= kMemQ) return false;
  return op != Op::Load || ldrec_free_.size() > ldrec_freed_c_;
}

// Could some eligible warp pass the structural check next cycle (fresh LD/ST
// budget, current LD/ST queue and load records)?
bool Sm::can_issue_next_cycle() const {
  if (n_elig_[kClsOther]) return true;
  if (memq_count_ == kMemQ) return false;
  if (n_elig_[kClsStore]) return true;
  return n_elig_[kClsLoad] && !ldrec_free_.empty();
}

// --- scheduler sets: every live, not exited slot is in exactly one state.

void Sm::elig_add(unsigned slot) {
  st_[slot] = kStElig;
  const unsigned k = key_of(slot);
  const unsigned cls = cls_of(op_[slot]);
  elig_[cls * nwords_ + (k >> 6)] |= 1ull << (k & 63);
  ++n_elig_[cls];
}

inline void Sm::unclassify(unsigned slot) {
  switch (st_[slot]) {
    case kStElig: {
      const unsigned k = key_of(slot);
      const unsigned cls = cls_of(op_[slot]);
      elig_[cls * nwords_ + (k >> 6)] &= ~(1ull << (k & 63));
      --n_elig_[cls];
      break;
    }
    case kStTimed: timed_[slot >> 6] &= ~(1ull << (slot & 63)); break;
    case kStDirty: dirty_[slot >> 6] &= ~(1ull << (slot & 63)); break;
    default: break;
  }
  st_[slot] = kStNone;
}

void Sm::set_dirty(unsigned slot) {
  if (st_[slot] == kStDirty) return;
  unclassify(slot);
  st_[slot] = kStDirty;
  rdy_[slot] = kDirty;
  dirty_[slot >> 6] |= 1ull << (slot & 63);
  any_dirty_ = true;
}

void Sm::set_never(unsigned slot) {
  unclassify(slot);
  rdy_[slot] = kNever;
}

// File one slot that is in no set (fetching its next instruction if needed)
// as Eligible (ready at or before c), Timed or blocked.
inline void Sm::classify_slot(unsigned slot, uint64_t c) {
  Warp& w = warps_[slot];
  uint64_t t = ready_time(w);
  if (t <= c && last_iss_[slot] == c) t = c + 1;  // a warp issues at most once per cycle
  rdy_[slot] = t;
  op_[slot] = w.inst.op;
  if (t <= c) {
    elig_add(slot);
  } else if (t != kNever) {
    st_[slot] = kStTimed;
    timed_[slot >> 6] |= 1ull << (slot & 63);
    timed_min_ = std::min(timed_min_, t);
  }
}

// Compute the ready cycle of every Dirty slot and file it (classify_slot).
void Sm::classify_dirty(uint64_t c) {
  any_dirty_ = false;
  for (unsigned wd = 0; wd < nwords_; ++wd) {
    while (dirty_[wd]) {
      const unsigned slot = wd * 64 + static_cast<unsigned>(__builtin_ctzll(dirty_[wd]));
      dirty_[wd] &= dirty_[wd] - 1;
      st_[slot] = kStNone;
      classify_slot(slot, c);
    }
  }
}

// Move Timed slots whose cycle has come to Eligible; recompute timed_min_.
void Sm::promote_timed(uint64_t c) {
  uint64_t mn = kNever;
  for (unsigned wd = 0; wd < nwords_; ++wd) {
    for (uint64_t bits = timed_[wd]; bits; bits &= bits - 1) {
      const unsigned b = static_cast<unsigned>(__builtin_ctzll(bits));
      const unsigned slot = wd * 64 + b;
      const uint64_t t = rdy_[slot];
      if (t <= c) {
        timed_[wd] &= ~(1ull << b);
        elig_add(slot);
      } else {
        mn = std::min(mn, t);
      }
    }
  }
  timed_min_ = mn;
}

inline int Sm::next_elig(unsigned from, unsigned end, unsigned cmask) const {
  if (from >= end) return -1;
  const uint64_t m0 = 0 - static_cast<uint64_t>(cmask & 1u), m1 = 0 - static_cast<uint64_t>((cmask >> 1) & 1u),
                 m2 = 0 - static_cast<uint64_t>((cmask >> 2) & 1u);
  auto word = [&](unsigned wd) {
    return (elig_[wd] & m0) | (elig_[nwords_ + wd] & m1) | (elig_[2 * nwords_ + wd] & m2);
  };
  unsigned wd = from >> 6;
  uint64_t bits = word(wd) & (~0ull << (from & 63));
  for (;;) {
    if (bits) {
      const unsigned k = wd * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
      return k < end ? static_cast<int>(k) : -1;
    }
    if (++wd >= nwords_ || wd * 64 >= end) return -1;
    bits = word(wd);
  }
}

// Append a slot to the age order (youngest); when the array's end is reached,
// the order moves to its front (positions relative to age_head_ stay).
void Sm::age_push(unsigned slot) {
  if (age_head_ + age_n_ == age_buf_.size()) {
    std::memmove(age_buf_.data(), age_buf_.data() + age_head_, age_n_ * sizeof age_buf_[0]);
    age_head_ = 0;
    for (unsigned i = 0; i < age_n_; ++i) pos_[age_buf_[i]] = static_cast<uint16_t>(i);
  }
  const unsigned a = age_head_ + age_n_++;
  age_buf_[a] = static_cast<uint16_t>(slot);
  pos_[slot] = static_cast<uint16_t>(a);
}

// Remove position p (an exited slot, not eligible) from the age order; in GTO
// mode eligible keys above p move down by one with their slots. The shorter
// side moves: the older part one place up (age_head_ + 1) or the younger part
// one place down; either way every other slot keeps its position relative to
// the head except those above p.
void Sm::erase_age_pos(unsigned p) {
  const unsigned a = age_head_ + p, end = age_head_ + age_n_;
  if (p < age_n_ - 1 - p) {
    for (unsigned i = a; i > age_head_; --i) {
      age_buf_[i] = age_buf_[i - 1];
      pos_[age_buf_[i]] = static_cast<uint16_t>(i);
    }
    ++age_head_;
  } else {
    for (unsigned i = a; i + 1 < end; ++i) {
      age_buf_[i] = age_buf_[i + 1];
      pos_[age_buf_[i]] = static_cast<uint16_t>(i);
    }
  }
  --age_n_;
  if (!gto_) return;
  const unsigned wd = p >> 6, b = p & 63;
  for (unsigned cls = 0; cls < 3; ++cls) {
    uint64_t* const e = &elig_[cls * nwords_];
    const uint64_t low = e[wd] & ((1ull << b) - 1);
    const uint64_t high = (e[wd] >> b) >> 1;
    e[wd] = low | (high << b);
    if (wd + 1 < nwords_) e[wd] |= e[wd + 1] << 63;
    for (unsigned x = wd + 1; x < nwords_; ++x) e[x] = (e[x] >> 1) | (x + 1 < nwords_ ? e[x + 1] << 63 : 0);
  }
}

// Issue up to the remaining issue width from eligible warps, in scheduler
// order: 1. decide whether there is anything to scan (issue_scan_needed),
// 2. walk the eligible warps in LRR or GTO order (scan_lrr / scan_gto), each
// one tried by try_issue against the cycle's budgets, 3. keep what is left of
// the budgets for a later evaluation in the same cycle.
__attribute__((always_inline)) inline void Sm::issue_stage(uint64_t c) {
  if (!issue_scan_needed(c)) return;
  IssueBudget b{issued_c_, cfg_.ldst_per_cycle - ldst_c_};
  if (gto_) scan_gto(c, b);
  else scan_lrr(c, b);
  issued_c_ = b.issued;
  ldst_c_ = cfg_.ldst_per_cycle - b.ldst;
}

// Some issue width is left, something changed since this cycle's last scan
// (issue_dirty_), and after filing the dirty and due slots some warp is
// eligible.
__attribute__((always_inline)) inline bool Sm::issue_scan_needed(uint64_t c) {
  if (!age_n_) return false;
  if (issued_c_ >= cfg_.issue_width) return false;
  if (c == last_scan_c_ && !issue_dirty_) return false;  // nothing changed since this cycle's scan
  last_scan_c_ = c;
  issue_dirty_ = false;
  if (any_dirty_) classify_dirty(c);
  if (timed_min_ <= c) promote_timed(c);
  return (n_elig_[kClsOther] | n_elig_[kClsLoad] | n_elig_[kClsStore]) != 0;
}

// Classes of eligible warps that can pass the structural check now (bit per
// OpClass; the set only shrinks during a scan): the scan visits only those,
// which is the same as visiting all and skipping the others. 0: no eligible
// warp can issue for the rest of this scan.
__attribute__((always_inline)) inline unsigned Sm::passable_classes(const IssueBudget& b) const {
  unsigned m = n_elig_[kClsOther] ? 1u << kClsOther : 0u;
  if (b.ldst && memq_count_ + memq_freed_c_ < kMemQ) {
    if (n_elig_[kClsStore]) m |= 1u << kClsStore;
    if (n_elig_[kClsLoad] && ldrec_free_.size() > ldrec_freed_c_) m |= 1u << kClsLoad;
  }
  return m;
}

// Issue the slot's instruction if it passes the structural check; true when
// the issue width is used up.
__attribute__((always_inline)) inline bool Sm::try_issue(unsigned slot, uint64_t c, IssueBudget& b) {
  const Op op = op_[slot];
  if (!structural_ok(op, b.ldst)) return false;
  if (op == Op::Load || op == Op::Store || op == Op::Atomic) --b.ldst;
  issue(slot, c);
  issued_eval_ = true;
  if (any_dirty_) classify_dirty(c);  // warps a barrier released (issue() files the issuing warp itself)
  return ++b.issued == cfg_.issue_width;
}

// Loose round robin: eligible slots from the one after the last issued,
// wrapping around once. Same order and outcome as considering every slot in
// turn.
__attribute__((always_inline)) inline void Sm::scan_lrr(uint64_t c, IssueBudget& b) {
  const unsigned nw = cfg_.max_warps;
  const unsigned start = last_issued_ < 0 ? 0 : static_cast<unsigned>(last_issued_ + 1) % nw;
  bool done = false;
  for (unsigned pass = 0; pass < 2 && !done; ++pass) {
    unsigned r = pass == 0 ? start : 0;
    const unsigned end = pass == 0 ? nw : start;
    while (!done) {
      const unsigned cm = passable_classes(b);
      if (!cm) {
        done = true;
        break;
      }
      const int k = next_elig(r, end, cm);
      if (k < 0) break;
      r = static_cast<unsigned>(k) + 1;
      done = try_issue(static_cast<unsigned>(k), c, b);
    }
  }
}

// Greedy-then-oldest (Rogers et al., MICRO'12): keep issuing from the last
// warp while it can, otherwise the oldest ready warp. An Exit removes its slot
// from the age order and the scan goes on at the position after it, i.e.
// skips the warp that moved into its place, as an index-based walk over the
// shrinking order does.
__attribute__((always_inline)) inline void Sm::scan_gto(uint64_t c, IssueBudget& b) {
  const int greedy = last_issued_;
  bool done = false;
  if (greedy >= 0 && st_[static_cast<unsigned>(greedy)] == kStElig) done = try_issue(static_cast<unsigned>(greedy), c, b);
  unsigned r = 0;
  unsigned cm;
  while (!done && (cm = passable_classes(b)) != 0) {
    const int k = next_elig(r, age_n_, cm);
    if (k < 0) break;
    r = static_cast<unsigned>(k) + 1;
    const unsigned slot = age_buf_[age_head_ + static_cast<unsigned>(k)];
    if (static_cast<int>(slot) == greedy) continue;
    done = try_issue(slot, c, b);
  }
}

void Sm::issue(unsigned slot, uint64_t c) {
  Warp& w = warps_[slot];
  WarpInst& in = w.inst;
  ++warp_insts_;
  thread_insts_ += in.active == 0xffffffffu ? kWarpSize : popcount32(in.active);
  if (++gpu_->warp_insts == gpu_->inst_mark) gpu_->on_inst_mark(id_);  // a window's start or end (no polling)
  if (issue_log_) issue_log_->push_back({c, w.ctx.cta, static_cast<uint16_t>(slot), static_cast<uint16_t>(w.ctx.warp), in.op});
  last_issued_ = static_cast<int>(slot);
  last_iss_[slot] = c;
  w.has_inst = false;
  // Out of the eligible set; Alu/Sfu/Load/Store re-file the slot with its next
  // instruction at the end (classify_slot: it is the only slot this issue
  // changed, so this is what classify_dirty would do), Barrier/Exit block it.
  unclassify(slot);
  switch (in.op) {
    case Op::Alu:
    case Op::Sfu:
    case Op::Shared: {
      if (in.dst != kNoReg) {
        const uint64_t r = c + (in.op == Op::Alu   ? cfg_.alu_latency
                                : in.op == Op::Sfu ? cfg_.sfu_latency
                                                   : cfg_.shared_latency + in.passes - 1u);
        w.reg_ready[in.dst] = r;
        w.max_ready = std::max(w.max_ready, r);
      }
      break;
    }
    case Op::Load:
    case Op::Store: {
      ++mem_insts_;
      MemInst& m = memq_[(memq_head_ + memq_count_) % kMemQ];
      if (chk_ && in.unit_stride && in.active) {  // check mode: the generator's unit-stride promise
        const unsigned f = static_cast<unsigned>(__builtin_ctz(in.active));
        for (uint32_t b = in.active; b; b &= b - 1) {
          const unsigned l = static_cast<unsigned>(__builtin_ctz(b));
          if (in.addr[l] != in.addr[f] + static_cast<uint64_t>(l - f) * in.bytes)
            SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": unit_stride set on a non-unit-stride access").c_str());
        }
      }
      int line4 = 0;
      const int n = coal_warp_line4(in.addr, in.active, in.bytes, in.unit_stride, m.req, &line4);
      if (n < 0) SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": misaligned or bad-size memory access").c_str());
      coal_hist_add(&coal_, m.req, static_cast<unsigned>(n));
      if (n == 0) {  // no active lane: nothing to do
        if (in.op == Op::Load && in.dst != kNoReg) {
          w.reg_ready[in.dst] = c;
        }
        break;
      }
      m.store = in.op == Op::Store;
      m.atomic = false;
      m.warp = static_cast<uint16_t>(slot);
      m.bytes = in.bytes;
      m.n = static_cast<uint8_t>(n);
      m.next = 0;
      m.line4 = m.store && line4;
      if (m.line4) {
        for (unsigned l = 0; l < kWarpSize; ++l) m.line[l] = static_cast<uint32_t>(in.data[l]);
      } else if (m.store) {
        std::memcpy(m.addr, in.addr, sizeof m.addr);
        std::memcpy(m.data, in.data, sizeof m.data);
      } else {
        const uint16_t id = ldrec_free_.back();
        ldrec_free_.pop_back();
        LdRec& r = ldrecs_[id];
        r.warp = static_cast<uint16_t>(slot);
        r.dst = in.dst;
        r.bytes = in.bytes;
        r.pending = in.active;
        r.ready = c;
        if (!ldchk_.empty()) {  // check mode: what compare_lanes reads
          std::memcpy(ldchk_[id].addr, in.addr, sizeof ldchk_[id].addr);
          std::memcpy(ldchk_[id].expect, in.data, sizeof ldchk_[id].expect);
        }
        m.ldrec = id;
        ++w.pending_loads;
        if (in.dst != kNoReg) w.reg_ready[in.dst] = kNever;
      }
      ++memq_count_;
      break;
    }
    case Op::Atomic: {
      ++mem_insts_;
      ++atomic_insts_;
      MemInst& m = memq_[(memq_head_ + memq_count_) % kMemQ];
      const int n = coal_warp(in.addr, in.active, in.bytes, m.req);
      if (n < 0) SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": misaligned or bad-size atomic").c_str());
      coal_hist_add(&coal_, m.req, static_cast<unsigned>(n));
      if (n == 0) {  // no active lane: nothing performed, nothing to wait for
        if (in.dst != kNoReg) w.reg_ready[in.dst] = c;
        break;
      }
      const unsigned k = static_cast<unsigned>(__builtin_ctz(~static_cast<unsigned>(w.atom_busy)));
      if (k >= cfg_.max_atomics) SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": a warp's atomic with every atomic slot busy").c_str());
      if (atom_.empty()) atom_.resize(warps_.size() * cfg_.max_atomics);
      const unsigned ai = slot * cfg_.max_atomics + k;
      AtomSlot& as = atom_[ai];
      w.atom_busy = static_cast<uint8_t>(w.atom_busy | (1u << k));
      as.dst = in.dst;
      as.lanes = in.active;
      as.out = static_cast<uint32_t>(n);
      as.seq = w.atom_seq++;
      std::memcpy(as.addr, in.addr, sizeof as.addr);
      std::memcpy(as.a, in.data, sizeof as.a);
      std::memcpy(as.b, in.data2, sizeof as.b);
      for (int i = 0; i < n; ++i) {
        AtomicReq& q = as.req[i];
        q.op = in.aop;
        q.type = in.atype;
        q.want_old = in.want_old;
        q.lanes = m.req[i].thread_mask;
        q.addr = as.addr;
        q.a = as.a;
        q.b = as.b;
        q.old = as.old;
      }
      m.store = false;
      m.atomic = true;
      m.line4 = false;
      m.warp = static_cast<uint16_t>(slot);
      m.ldrec = static_cast<uint16_t>(ai);  // atomics: the atom_ slot
      m.bytes = in.bytes;
      m.n = static_cast<uint8_t>(n);
      m.next = 0;
      w.atom_out += static_cast<uint32_t>(n);
      if (in.dst != kNoReg) w.reg_ready[in.dst] = kNever;
      ++memq_count_;
      break;
    }
    case Op::Barrier: {
      CtaSlot& cs = ctas_[w.cta_slot];
      w.at_barrier = true;
      set_never(slot);
      ++cs.at_barrier;
      if (cs.at_barrier >= cs.warps_live) release_barrier(cs);
      return;
    }
    case Op::Exit: {
      CtaSlot& cs = ctas_[w.cta_slot];
      w.exited = true;
      set_never(slot);
      erase_age_pos(pos_[slot] - age_head_);
      --cs.warps_live;
      if (cs.warps_live > 0 && cs.at_barrier >= cs.warps_live) release_barrier(cs);
      if (cs.warps_live == 0) {
        for (uint16_t s : cs.slots) warps_[s].live = false;
        warps_free_ += static_cast<unsigned>(cs.slots.size());
        cs.live = false;
        --ctas_live_;
        ++ctas_done_;
        gpu_->on_cta_done(id_);
      }
      return;
    }
  }
  classify_slot(slot, c);
}

void Sm::release_barrier(CtaSlot& cs) {
  issue_dirty_ = true;
  for (uint16_t s : cs.slots)
    if (warps_[s].at_barrier) {
      warps_[s].at_barrier = false;
      set_dirty(s);
    }
  cs.at_barrier = 0;
}

// ---------------------------------------------------------------- L1

int Sm::find_mshr(uint64_t line) const {
  for (int i = mshr_bucket_[mshr_hash(line)]; i >= 0; i = mshrs_[static_cast<unsigned>(i)].next)
    if (mshrs_[static_cast<unsigned>(i)].line == line) return i;
  return -1;
}

void Sm::mshr_link(unsigned ms) {
  int16_t& head = mshr_bucket_[mshr_hash(mshrs_[ms].line)];
  mshrs_[ms].next = head;
  head = static_cast<int16_t>(ms);
}

void Sm::mshr_unlink(unsigned ms) {
  int16_t* p = &mshr_bucket_[mshr_hash(mshrs_[ms].line)];
  while (*p != static_cast<int16_t>(ms)) p = &mshrs_[static_cast<unsigned>(*p)].next;
  *p = mshrs_[ms].next;
}

tlm::tlm_generic_payload* Sm::new_request(uint64_t line, uint16_t warp, uint8_t ea, GpuExt** ext) {
  // Data::Stale: a load's buffer is written by the responder (requested
  // sectors) before process_response reads it; a store writes exactly its
  // byte_mask bytes (l1_store), the only bytes the L2 / memory read.
  tlm::tlm_generic_payload* gp = pool_.alloc(PayloadPool::Data::Stale);
  gp->set_address(line);
  GpuExt& e = GpuExt::get(*gp);
  e.sm_id = id_;
  e.warp_id = warp;
  e.ea_count = ea;
  e.cls = ReqClass::Demand;
  // The static part of the address map only: the L2 bank (of the line's
  // memory partition). Where the line lives, and so its memory kind, the
  // memory side decides; the response tells (GpuExt::mem_type).
  if (map_) e.l2_bank = amap_l2_bank(map_, line);
  *ext = &e;
  return gp;
}

void Sm::compare_lanes(uint16_t ldrec, uint32_t lanes, const unsigned char* line_data, uint64_t c) {
  if (ldchk_.empty()) return;  // checker off
  const LdRec& rec = ldrecs_[ldrec];
  const LdChk& chk = ldchk_[ldrec];
  while (lanes) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
    lanes &= lanes - 1;
    uint64_t got = 0;
    std::memcpy(&got, line_data + (chk.addr[l] & (kLineBytes - 1)), rec.bytes);
    checker_->compare(id_, rec.warp, chk.addr[l], c, &chk.expect[l], &got, rec.bytes);
  }
}

void Sm::complete_lanes(uint16_t id, uint32_t lanes, uint64_t ready_cycle) {
  LdRec& r = ldrecs_[id];
  r.pending &= ~lanes;
  r.ready = std::max(r.ready, ready_cycle);
  if (r.pending) return;
  Warp& w = warps_[r.warp];
  if (r.dst != kNoReg) w.reg_ready[r.dst] = r.ready;
  if (!w.exited && !w.at_barrier) set_dirty(r.warp);
  issue_dirty_ = true;
  w.max_ready = std::max(w.max_ready, r.ready);
  --w.pending_loads;
  ldrec_free_.push_back(id);
  if (in_l1_stage_) ++ldrec_freed_c_;
}

void Sm::l1_stage(uint64_t c) {
  if (!memq_count_) return;
  l1_done_c_ = true;
  if (l1_refused_c_) {  // retry within the cycle: the earlier refusal is superseded
    --l1_resfail_;
    --(l1_refused_c_ == kRefMshr ? l1_fail_mshr_ : l1_fail_port_);
    l1_refused_c_ = 0;
  }
  MemInst& m = memq_[memq_head_];
  const coal_req& r = m.req[m.next];
  const uint64_t fail_mshr = l1_fail_mshr_;
  in_l1_stage_ = true;
  bool ok;
  if (!m.store && !m.atomic && l1_memo_.m == &m && l1_memo_.next == m.next && l1_memo_.epoch == l1_epoch_ &&
      l1_memo_.port == outq_count_ + sent_c_) {
    ++(l1_memo_.mshr ? l1_fail_mshr_ : l1_fail_port_);  // refused as before (l1_load's memo)
    ok = false;
  } else {
    ok = m.atomic ? l1_atomic(m, r) : m.store ? l1_store(m, r, c) : l1_load(m, r, c);
  }
  in_l1_stage_ = false;
  if (!ok) {
    // Retry when a resource frees; a slot freed by this cycle's send (visible
    // to the L1 from the next cycle) means retry next cycle.
    l1_blocked_ = !sent_c_;
    ++l1_resfail_;
    l1_refused_c_ = l1_fail_mshr_ != fail_mshr ? kRefMshr : kRefPort;
    return;
  }
  l1_blocked_ = false;
  ++l1_epoch_;
  if (++m.next == m.n) {  // the freed queue slot is usable from the next cycle
    memq_head_ = (memq_head_ + 1) % kMemQ;
    --memq_count_;
    ++memq_freed_c_;
    issue_dirty_ = true;
  }
}

bool Sm::l1_load(MemInst& m, const coal_req& r, uint64_t c) {
  // (The memo of the last refusal is checked by the caller, l1_stage.)
  const unsigned port_level = outq_count_ + sent_c_;
  auto refuse = [&](bool mshr) {
    ++(mshr ? l1_fail_mshr_ : l1_fail_port_);
    l1_memo_ = {l1_epoch_, &m, m.next, mshr, port_level};
    return false;
  };
  const uint8_t need = r.sector_mask;
  uint8_t hit_sect = 0;
  int set = -1, way = -1;
  if (l1_on_) {
    way = cache_find(&l1_, r.line_addr);
    if (way >= 0) {
      set = static_cast<int>(cache_set_of(&l1_, r.line_addr));
      hit_sect = cache_line_at(&l1_, static_cast<uint32_t>(set), static_cast<uint32_t>(way))->valid_sectors & need;
    }
  }
  const uint8_t miss_sect = static_cast<uint8_t>(need & ~hit_sect);
  int ms = -1;
  uint8_t extra = 0;
  if (miss_sect) {  // check resources before changing any state
    ms = l1_on_ ? find_mshr(r.line_addr) : -1;
    if (ms >= 0) {
      // A store reached the line after this MSHR's fill was requested: that
      // fill carries pre-store bytes, so a later load must not merge into it;
      // it waits until the MSHR retires and then misses on its own.
      if (mshrs_[ms].no_install || mshrs_[ms].nwait >= l1cfg_.mshr_merge) return refuse(true);
      extra = static_cast<uint8_t>(miss_sect & ~mshrs_[ms].pending);
      if (extra && (port_level >= kOutQ || mshrs_[ms].outstanding == 255)) return refuse(false);
    } else if (mshr_free_.empty()) {
      return refuse(true);
    } else if (port_level >= kOutQ) {
      return refuse(false);
    }
  }
  ++l1_acc_;
  uint32_t hit_lanes = 0;
  if (hit_sect) {
    for (unsigned s = 0; s < kSectorsPerLine; ++s)
      if ((hit_sect >> s) & 1u) hit_lanes |= r.sector_threads[s];
    repl_access ra{};
    ra.ea_count = r.ea_count;
    cache_touch(&l1_, static_cast<uint32_t>(set), static_cast<uint32_t>(way), &ra);
    if (chk_) compare_lanes(m.ldrec, hit_lanes, cache_data_at(&l1_, static_cast<uint32_t>(set), static_cast<uint32_t>(way)), c);
  }
  if (!miss_sect) {
    ++l1_hit_;
    complete_lanes(m.ldrec, hit_lanes, c + l1cfg_.latency);
    return true;
  }
  ++l1_miss_;
  if (hit_lanes) complete_lanes(m.ldrec, hit_lanes, c + l1cfg_.latency);
  uint8_t send = 0;
  if (ms >= 0) {
    ++l1_merge_;
    send = extra;
  } else {
    ms = mshr_free_.back();
    mshr_free_.pop_back();
    ++mshr_live_;
    Mshr& e = mshrs_[ms];
    e.line = r.line_addr;
    e.pending = 0;
    e.outstanding = 0;
    e.nwait = 0;
    e.no_install = false;
    // Without write-allocate only this MSHR's own fill can install the line.
    e.absent = way < 0 && !l1cfg_.write_allocate;
    e.active = true;
    mshr_link(static_cast<unsigned>(ms));
    send = miss_sect;
  }
  Mshr& e = mshrs_[ms];
  Waiter& wt = waiters_[static_cast<size_t>(ms) * merge_ + e.nwait++];
  wt.ldrec = m.ldrec;
  if (miss_sect == kAllSectors) {
    static_assert(sizeof wt.lanes == sizeof r.sector_threads, "one lane mask per sector");
    std::memcpy(wt.lanes, r.sector_threads, sizeof wt.lanes);
  } else {
    for (unsigned s = 0; s < kSectorsPerLine; ++s) wt.lanes[s] = (miss_sect >> s) & 1u ? r.sector_threads[s] : 0;
  }
  if (send) {
    e.pending |= send;
    ++e.outstanding;
    GpuExt* xp;
    tlm::tlm_generic_payload* gp = new_request(r.line_addr, m.warp, r.ea_count, &xp);
    gp->set_command(tlm::TLM_READ_COMMAND);
    GpuExt& x = *xp;
    x.tag = static_cast<uint32_t>(ms);
    x.sector_mask = send;
    outq_[(outq_head_ + outq_count_++) % kOutQ] = gp;
  }
  return true;
}

bool Sm::l1_store(MemInst& m, const coal_req& r, uint64_t c) {
  (void)c;
  if (outq_count_ + sent_c_ >= kOutQ) return ++l1_fail_port_, false;
  ++l1_acc_;
  GpuExt* xp;
  tlm::tlm_generic_payload* gp = new_request(r.line_addr, m.warp, r.ea_count, &xp);
  gp->set_command(tlm::TLM_WRITE_COMMAND);
  GpuExt& x = *xp;
  x.tag = kStoreTag;
  x.sector_mask = r.sector_mask;
  x.byte_mask[0] = r.byte_mask[0];
  x.byte_mask[1] = r.byte_mask[1];
  unsigned char* d = gp->get_data_ptr();
  if (m.line4) {
    std::memcpy(d, m.line, kLineBytes);
  } else if (m.bytes == 4) {
    put_lanes<4>(d, r.thread_mask, m.addr, m.data);
  } else if (m.bytes == 8) {
    put_lanes<8>(d, r.thread_mask, m.addr, m.data);
  } else {
    for (uint32_t lanes = r.thread_mask; lanes; lanes &= lanes - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
      std::memcpy(d + (m.addr[l] & (kLineBytes - 1)), &m.data[l], m.bytes);
    }
  }
  if (l1_on_) {
    int way = cache_find(&l1_, r.line_addr);
    const uint32_t set = cache_set_of(&l1_, r.line_addr);
    repl_access ra{};
    ra.is_write = 1;
    ra.ea_count = r.ea_count;
    ra.mem_type = static_cast<uint8_t>(x.mem_type);
    uint8_t write_sect = 0;  // sectors whose bytes the L1 copy takes
    if (way >= 0) {
      ++l1_hit_;
      cache_touch(&l1_, set, static_cast<uint32_t>(way), &ra);
      write_sect = cache_line_at(&l1_, set, static_cast<uint32_t>(way))->valid_sectors;
    } else {
      ++l1_miss_;
      if (l1cfg_.write_allocate) {
        // Write-validate: allocate without fetching; only fully written sectors become valid.
        uint8_t full = 0;
        for (unsigned s = 0; s < kSectorsPerLine; ++s)
          if (x.sector_full(s)) full |= static_cast<uint8_t>(1u << s);
        if (full) {
          way = cache_victim(&l1_, r.line_addr, &ra);
          if (way >= 0) {
            cache_install(&l1_, set, static_cast<uint32_t>(way), r.line_addr, ra.mem_type, &ra);
            cache_line_at(&l1_, set, static_cast<uint32_t>(way))->valid_sectors = full;
            write_sect = full;
          }
        }
      }
    }
    if (way >= 0 && write_sect) {
      unsigned char* ld = cache_data_at(&l1_, set, static_cast<uint32_t>(way));
      for (unsigned s = 0; s < kSectorsPerLine; ++s) {
        if (!((write_sect >> s) & 1u)) continue;
        const uint32_t bm = static_cast<uint32_t>(x.byte_mask[s >> 1] >> ((s & 1) * 32));
        const unsigned o = s * kSectorBytes;
        if (bm == 0xffffffffu) {
          std::memcpy(ld + o, d + o, kSectorBytes);
        } else {
          for (uint32_t b = bm; b; b &= b - 1) {
            const unsigned i = o + static_cast<unsigned>(__builtin_ctz(b));
            ld[i] = d[i];
          }
        }
      }
    }
    const int ms = find_mshr(r.line_addr);
    if (ms >= 0) mshrs_[ms].no_install = true;  // the fill in flight predates this store
  } else {
    ++l1_miss_;
  }
  ++stores_out_;
  outq_[(outq_head_ + outq_count_++) % kOutQ] = gp;
  return true;
}

// One line of a warp's atomic: to the L2 past the L1, whose copy of the line
// (now stale) is dropped; a fill in flight for it will not install.
bool Sm::l1_atomic(MemInst& m, const coal_req& r) {
  if (outq_count_ + sent_c_ >= kOutQ) return ++l1_fail_port_, false;
  if (l1_on_) {
    const int way = cache_find(&l1_, r.line_addr);
    if (way >= 0) cache_invalidate(&l1_, cache_set_of(&l1_, r.line_addr), static_cast<uint32_t>(way));
    const int ms = find_mshr(r.line_addr);
    if (ms >= 0) mshrs_[ms].no_install = true;
  }
  GpuExt* xp;
  tlm::tlm_generic_payload* gp = new_request(r.line_addr, m.warp, r.ea_count, &xp);
  gp->set_command(tlm::TLM_READ_COMMAND);
  xp->tag = kAtomTag | m.ldrec;
  xp->sector_mask = r.sector_mask;
  xp->atomic = &atom_[m.ldrec].req[m.next];
  ++atomic_reqs_;
  outq_[(outq_head_ + outq_count_++) % kOutQ] = gp;
  return true;
}

// A line of a warp's atomic is back; after the last one the kernel hears the
// old values and the warp may fetch again.
void Sm::atomic_response(GpuExt& x, uint64_t c) {
  const unsigned ai = x.tag & ~kAtomTag, slot = ai / cfg_.max_atomics;
  if (ai >= atom_.size() || warps_[slot].atom_out == 0 || atom_[ai].out == 0)
    SC_REPORT_FATAL(name(), "atomic response for a warp without one in flight");
  Warp& w = warps_[slot];
  AtomSlot& as = atom_[ai];
  --w.atom_out;
  if (--as.out) return;
  w.atom_busy = static_cast<uint8_t>(w.atom_busy & ~(1u << (ai % cfg_.max_atomics)));
  kernel_->atomic_result(w.ctx, as.seq, as.lanes, as.old);
  bool newer = false;  // another atomic of the warp in flight writes the register: it stays pending
  for (unsigned k = 0; k < cfg_.max_atomics && as.dst != kNoReg; ++k)
    newer |= ((w.atom_busy >> k) & 1u) && atom_[slot * cfg_.max_atomics + k].dst == as.dst;
  if (as.dst != kNoReg && !newer) w.reg_ready[as.dst] = c;
  w.max_ready = std::max(w.max_ready, c);
  set_dirty(slot);
  issue_dirty_ = true;
}

// ---------------------------------------------------------------- L2 port

__attribute__((always_inline)) inline void Sm::send_stage(uint64_t c) {
  (void)c;
  if (!outq_count_ || awaiting_end_req_ || now_ps_ < send_ok_ps_) return;
  send_done_c_ = true;
  tlm::tlm_generic_payload* gp = outq_[outq_head_];
  outq_head_ = (outq_head_ + 1) % kOutQ;
  --outq_count_;
  l1_blocked_ = false;  // a queue slot freed
  sent_c_ = 1;
  ++mem_requests_;
  GpuExt::get(*gp).issue_ps = now_ps_;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum st = isock->nb_transport_fw(*gp, ph, d);
  const uint64_t t = now_ps_ + static_cast<uint64_t>(d.value() / ps_unit_);
  if (st == tlm::TLM_ACCEPTED) {
    awaiting_end_req_ = gp;
  } else if (st == tlm::TLM_UPDATED && ph == tlm::END_REQ) {
    send_ok_ps_ = t;
  } else if ((st == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP) || st == tlm::TLM_COMPLETED) {
    send_ok_ps_ = t;
    resp_push(*gp, t);
  } else {
    SC_REPORT_FATAL(name(), "unexpected nb_transport_fw return");
  }
}

tlm::tlm_sync_enum Sm::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  if (ph == tlm::END_REQ) {
    if (&gp != awaiting_end_req_) SC_REPORT_FATAL(name(), "END_REQ for a request not awaiting it");
    awaiting_end_req_ = nullptr;
    send_ok_ps_ = now_ps() + static_cast<uint64_t>(d.value() / ps_unit_);
    wake_cycle((send_ok_ps_ + period_ps_ - 1) / period_ps_);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (&gp == awaiting_end_req_) awaiting_end_req_ = nullptr;  // BEGIN_RESP implies END_REQ
    resp_push(gp, now_ps() + static_cast<uint64_t>(d.value() / ps_unit_));
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_FATAL(name(), "unexpected phase on nb_transport_bw");
  return tlm::TLM_COMPLETED;
}

void Sm::process_response(tlm::tlm_generic_payload* gp, uint64_t c) {
  GpuExt& x = GpuExt::get(*gp);
  if (gp->is_response_error()) SC_REPORT_FATAL(name(), "L2 returned an error response");
  if (x.tag == kStoreTag) {
    --stores_out_;
    gp->release();
    if (stores_out_ == 0) gpu_->on_stores_drained(id_);
    return;
  }
  if (x.atomic) {
    atomic_response(x, c);
    gp->release();
    return;
  }
  const unsigned ms = x.tag;
  Mshr& e = mshrs_[ms];
  ++l1_epoch_;  // L1 contents and MSHRs change
  const uint8_t sect = x.sector_mask;
  const unsigned char* d = gp->get_data_ptr();
  if (l1_on_ && !e.no_install) {
    int way = e.absent ? -1 : cache_find(&l1_, e.line);
    const uint32_t set = cache_set_of(&l1_, e.line);
    repl_access ra{};
    ra.ea_count = x.ea_count;
    ra.mem_type = static_cast<uint8_t>(x.mem_type);
    if (way < 0) {
      way = cache_victim(&l1_, e.line, &ra);
      if (way >= 0) {
        cache_install(&l1_, set, static_cast<uint32_t>(way), e.line, ra.mem_type, &ra);
        ++l1_fills_;
      }
    }
    if (way >= 0) {
      cache_line* cl = cache_line_at(&l1_, set, static_cast<uint32_t>(way));
      unsigned char* ld = cache_data_at(&l1_, set, static_cast<uint32_t>(way));
      if (sect == kAllSectors) {
        std::memcpy(ld, d, kLineBytes);
      } else {
        for (unsigned s = 0; s < kSectorsPerLine; ++s)
          if ((sect >> s) & 1u) std::memcpy(ld + s * kSectorBytes, d + s * kSectorBytes, kSectorBytes);
      }
      cl->valid_sectors |= sect;
      e.absent = false;
    }
  }
  Waiter* wv = &waiters_[static_cast<size_t>(ms) * merge_];
  unsigned keep = 0;
  for (unsigned i = 0; i < e.nwait; ++i) {
    Waiter wt = wv[i];
    uint32_t sat = 0, rest = 0;
    if (sect == kAllSectors) {  // every waiting lane is satisfied
      for (unsigned s = 0; s < kSectorsPerLine; ++s) sat |= wt.lanes[s];
    } else {
      for (unsigned s = 0; s < kSectorsPerLine; ++s) {
        if ((sect >> s) & 1u) {
          sat |= wt.lanes[s];
          wt.lanes[s] = 0;
        }
        rest |= wt.lanes[s];
      }
    }
    if (sat) {
      if (chk_) compare_lanes(wt.ldrec, sat, d, c);
      complete_lanes(wt.ldrec, sat, c);
    }
    if (rest) wv[keep++] = wt;
  }
  e.nwait = static_cast<uint8_t>(keep);
  e.pending = static_cast<uint8_t>(e.pending & ~sect);
  if (--e.outstanding == 0) {
    if (e.nwait) SC_REPORT_FATAL(name(), "MSHR retired with waiting loads (response lacks sectors)");
    mshr_unlink(ms);
    e.active = false;
    --mshr_live_;
    mshr_free_.push_back(static_cast<uint16_t>(ms));
  }
  gp->release();
}

}  // namespace strata
