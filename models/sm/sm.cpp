#include "sm/sm.h"

#include <algorithm>
#include <cstring>

#include "sm/gpu.h"

using sc_core::sc_time;
using sc_core::SC_PS;

namespace strata {

namespace {
inline unsigned popc(uint32_t x) { return static_cast<unsigned>(__builtin_popcount(x)); }
inline unsigned sector_of(uint64_t addr) { return static_cast<unsigned>((addr & (kLineBytes - 1)) / kSectorBytes); }
}  // namespace

Sm::Sm(sc_core::sc_module_name name, unsigned id, const SmCfg& cfg, const L1Cfg& l1, const amap* map,
       PayloadPool& pool, bstore* golden, Checker* checker, Gpu* gpu, StatsRegistry& stats)
    : sc_module(name),
      isock("isock"),
      id_(id),
      cfg_(cfg),
      l1cfg_(l1),
      map_(map),
      pool_(pool),
      golden_(golden),
      checker_(checker),
      gpu_(gpu),
      period_ps_(cfg.clk.period_ps()),
      l1_on_(l1.enabled),
      peq_("peq") {
  if (cfg.max_warps == 0 || cfg.max_warps > 1024 || cfg.max_ctas == 0 || cfg.issue_width == 0 ||
      cfg.ldst_per_cycle == 0 || period_ps_ == 0)
    SC_REPORT_FATAL(this->name(), "invalid SmCfg");
  isock.register_nb_transport_bw(this, &Sm::nb_transport_bw);
  warps_.resize(cfg.max_warps);
  rdy_.assign(cfg.max_warps, kNever);
  op_.assign(cfg.max_warps, Op::Exit);
  warps_free_ = cfg.max_warps;
  ctas_.resize(cfg.max_ctas);
  for (CtaSlot& c : ctas_) c.slots.reserve(cfg.max_warps);
  age_order_.reserve(cfg.max_warps);
  ldrecs_.resize(static_cast<size_t>(cfg.max_warps) * kLdPerWarp);
  for (size_t i = ldrecs_.size(); i-- > 0;) ldrec_free_.push_back(static_cast<uint16_t>(i));
  memq_.resize(kMemQ);
  outq_.assign(kOutQ, nullptr);
  const unsigned nmshr = std::max(1u, l1.mshrs), merge = l1_on_ ? std::max(1u, l1.mshr_merge) : 1u;
  mshrs_.resize(nmshr);
  waiters_.resize(static_cast<size_t>(nmshr) * merge);
  for (unsigned i = nmshr; i-- > 0;) mshr_free_.push_back(static_cast<uint16_t>(i));
  mshr_active_.reserve(nmshr);
  resp_ready_.reserve(nmshr * 4 + 256);
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

  SC_METHOD(cycle);
  sensitive << wake_;
  dont_initialize();
  SC_METHOD(on_peq);
  sensitive << peq_.get_event();
  dont_initialize();

  const std::string g = "gpu.sm" + std::to_string(id), l = "l1.sm" + std::to_string(id);
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
  stats.formula(l + ".miss_rate", "L1 misses / accesses", Unit::Ratio,
                [a, m] { return static_cast<double>(*m) / static_cast<double>(*a); });
}

Sm::~Sm() {
  if (l1_on_) cache_free(&l1_);
}

uint64_t Sm::now_ps() const { return sc_core::sc_time_stamp().value() / sc_time(1, SC_PS).value(); }
uint64_t Sm::cycle_now() const { return now_ps() / period_ps_; }

void Sm::wake_cycle(uint64_t cyc) {
  const uint64_t now = now_ps();
  uint64_t t = cyc * period_ps_;
  if (t < now) t = now;
  if (t == now)
    wake_.notify(sc_core::SC_ZERO_TIME);
  else
    wake_.notify(sc_time(static_cast<double>(t - now), SC_PS));
}

// ---------------------------------------------------------------- dispatch

bool Sm::can_accept(const Kernel& k) const { return ctas_live_ < cfg_.max_ctas && warps_free_ >= k.warps_per_cta; }

void Sm::launch_cta(const Kernel* k, uint32_t cta) {
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
    w.age = age_ctr_++;
    w.max_ready = 0;
    std::fill(std::begin(w.reg_ready), std::end(w.reg_ready), 0);
    w.ctx = WarpCtx();
    w.ctx.cta = cta;
    w.ctx.warp = wi;
    k->warp_begin(w.ctx);
    c.slots.push_back(static_cast<uint16_t>(slot));
    rdy_[slot] = kDirty;
    age_order_.push_back(static_cast<uint16_t>(slot));
  }
  ++ctas_live_;
  warps_free_ -= k->warps_per_cta;
  issue_dirty_ = true;
  wake_cycle(cycle_now());
}

void Sm::kernel_boundary() {
  if (l1_on_) cache_invalidate_all(&l1_);
  kernel_ = nullptr;
}

std::string Sm::debug_state() const {
  static const char* const kOp[] = {"alu", "sfu", "load", "store", "barrier", "exit"};
  std::string s = std::string(name()) + ": cycle " + std::to_string(last_cycle_) + ", ctas " +
                  std::to_string(ctas_live_) + ", memq " + std::to_string(memq_count_) +
                  (l1_blocked_ ? " (L1 blocked)" : "") + ", outq " + std::to_string(outq_count_) +
                  (awaiting_end_req_ ? " (awaiting END_REQ)" : "") + ", mshrs " + std::to_string(mshr_active_.size()) +
                  ", free load records " + std::to_string(ldrec_free_.size()) + ", stores in flight " +
                  std::to_string(stores_out_) + ", responses queued " + std::to_string(resp_ready_.size()) + "\n";
  for (size_t i = 0; i < warps_.size(); ++i) {
    const Warp& w = warps_[i];
    if (!w.live || w.exited) continue;
    s += "  warp slot " + std::to_string(i) + " cta " + std::to_string(w.ctx.cta) + " pc " + std::to_string(w.ctx.pc) +
         (w.has_inst ? std::string(" next ") + kOp[static_cast<int>(w.inst.op)] : std::string(" (no inst)")) +
         (w.at_barrier ? " at barrier" : "") + ", pending loads " + std::to_string(w.pending_loads);
    for (unsigned r = 0; r < kMaxRegs; ++r)
      if (w.reg_ready[r] > last_cycle_)
        s += ", r" + std::to_string(r) + (w.reg_ready[r] == kNever ? " waits" : " at " + std::to_string(w.reg_ready[r]));
    s += "\n";
  }
  for (uint16_t m : mshr_active_)
    s += "  mshr " + std::to_string(m) + " line 0x" + std::to_string(mshrs_[m].line) + " outstanding " +
         std::to_string(mshrs_[m].outstanding) + " waiters " + std::to_string(mshrs_[m].nwait) + "\n";
  return s;
}

// ---------------------------------------------------------------- main cycle

void Sm::cycle() {
  const uint64_t c = cycle_now();
  if (c != last_cycle_) {
    last_cycle_ = c;
    issued_c_ = 0;
    ldst_c_ = 0;
    l1_done_c_ = send_done_c_ = false;
    ++wakeups_;
  }
  // The method can run again within one cycle when a response arrives in a
  // later delta of the same time step: it then completes the cycle's work with
  // what is left of this cycle's issue, LD/ST, L1 and L2-port budgets.
  if (!resp_ready_.empty()) {
    for (tlm::tlm_generic_payload* gp : resp_ready_) process_response(gp, c);
    resp_ready_.clear();
  }
  uint64_t next = kNever;
  issue_stage(c, next);
  if (!l1_done_c_) l1_stage(c);
  if (!send_done_c_) send_stage(c);

  // Loads completed by L1 hits in this cycle release their registers later.
  if (hit_wake_ != kNever) {
    next = std::min(next, hit_wake_);
    hit_wake_ = kNever;
  }
  if (memq_count_ && !l1_blocked_) next = std::min(next, c + 1);
  if (outq_count_ && !awaiting_end_req_) next = std::min(next, std::max(c + 1, (send_ok_ps_ + period_ps_ - 1) / period_ps_));
  if (next != kNever) wake_cycle(next);
}

void Sm::on_peq() {
  while (tlm::tlm_generic_payload* gp = peq_.get_next_transaction()) resp_ready_.push_back(gp);
  l1_blocked_ = false;
  wake_cycle((now_ps() + period_ps_ - 1) / period_ps_);
}

// ---------------------------------------------------------------- issue

void Sm::fetch(Warp& w) {
  kernel_->warp_next(w.ctx, w.inst);
  w.has_inst = true;
  if (w.inst.op == Op::Load && checker_ && checker_->enabled()) {
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
  if (!w.has_inst) fetch(w);
  const WarpInst& in = w.inst;
  switch (in.op) {
    case Op::Exit: return w.pending_loads ? kNever : w.max_ready;
    case Op::Barrier: return 0;
    default: {
      uint64_t t = in.dst != kNoReg ? w.reg_ready[in.dst] : 0;
      for (uint8_t s : in.src)
        if (s != kNoReg) t = std::max(t, w.reg_ready[s]);
      return t;
    }
  }
}

bool Sm::structural_ok(Op op, unsigned ldst_budget) const {
  if (op != Op::Load && op != Op::Store) return true;
  if (ldst_budget == 0 || memq_count_ == kMemQ) return false;
  return op == Op::Store || !ldrec_free_.empty();
}

void Sm::issue_stage(uint64_t c, uint64_t& next) {
  if (age_order_.empty()) return;
  if (issued_c_ >= cfg_.issue_width) {
    next = std::min(next, c + 1);
    return;
  }
  if (!issue_dirty_ && c < issue_hint_) {
    next = std::min(next, issue_hint_);
    return;
  }
  issue_dirty_ = false;
  const uint64_t next_in = next;
  next = kNever;
  unsigned issued = issued_c_, ldst = cfg_.ldst_per_cycle - ldst_c_;
  bool struct_blocked = false;
  auto consider = [&](unsigned slot) -> bool {  // returns true when the issue width is used up
    uint64_t t = rdy_[slot];
    if (t == kDirty) {
      t = rdy_[slot] = ready_time(warps_[slot]);
      op_[slot] = warps_[slot].inst.op;
    }
    if (t > c) {
      if (t != kNever) next = std::min(next, t);
      return false;
    }
    const Op op = op_[slot];
    if (!structural_ok(op, ldst)) {
      struct_blocked = true;
      return false;
    }
    if (op == Op::Load || op == Op::Store) --ldst;
    issue(slot, c);
    return ++issued == cfg_.issue_width;
  };
  const unsigned nw = cfg_.max_warps;
  if (cfg_.sched == WarpSched::LooseRoundRobin) {
    const unsigned start = last_issued_ < 0 ? 0 : static_cast<unsigned>(last_issued_ + 1) % nw;
    for (unsigned i = 0; i < nw; ++i)
      if (consider((start + i) % nw)) break;
  } else {
    // Greedy-then-oldest (Rogers et al., MICRO'12): keep issuing from the last
    // warp while it can, otherwise the oldest ready warp.
    bool done = false;
    const int greedy = last_issued_;
    if (greedy >= 0) done = consider(static_cast<unsigned>(greedy));
    for (size_t i = 0; !done && i < age_order_.size(); ++i) {
      const unsigned slot = age_order_[i];
      if (static_cast<int>(slot) == greedy) continue;
      done = consider(slot);
    }
  }
  // After issuing, the next instructions may be ready in the next cycle. A warp
  // blocked on a structural resource is woken by the L1 stage or a response.
  if (issued > issued_c_ || struct_blocked) next = std::min(next, c + 1);
  issue_hint_ = next;
  next = std::min(next, next_in);
  issued_c_ = issued;
  ldst_c_ = cfg_.ldst_per_cycle - ldst;
}

void Sm::issue(unsigned slot, uint64_t c) {
  Warp& w = warps_[slot];
  WarpInst& in = w.inst;
  ++warp_insts_;
  thread_insts_ += popc(in.active);
  if (issue_log_) issue_log_->push_back({c, w.ctx.cta, static_cast<uint16_t>(slot), static_cast<uint16_t>(w.ctx.warp), in.op});
  last_issued_ = static_cast<int>(slot);
  w.has_inst = false;
  rdy_[slot] = kDirty;
  switch (in.op) {
    case Op::Alu:
    case Op::Sfu: {
      if (in.dst != kNoReg) {
        const uint64_t r = c + (in.op == Op::Alu ? cfg_.alu_latency : cfg_.sfu_latency);
        w.reg_ready[in.dst] = r;
        w.max_ready = std::max(w.max_ready, r);
      }
      return;
    }
    case Op::Load:
    case Op::Store: {
      ++mem_insts_;
      MemInst& m = memq_[(memq_head_ + memq_count_) % kMemQ];
      const int n = coal_warp(in.addr, in.active, in.bytes, m.req);
      if (n < 0) SC_REPORT_FATAL(name(), ("kernel " + kernel_->name + ": misaligned or bad-size memory access").c_str());
      coal_hist_add(&coal_, m.req, static_cast<unsigned>(n));
      if (n == 0) {  // no active lane: nothing to do
        if (in.op == Op::Load && in.dst != kNoReg) {
          w.reg_ready[in.dst] = c;
        }
        return;
      }
      m.store = in.op == Op::Store;
      m.warp = static_cast<uint16_t>(slot);
      m.bytes = in.bytes;
      m.n = static_cast<uint8_t>(n);
      m.next = 0;
      if (m.store) {
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
        std::memcpy(r.addr, in.addr, sizeof r.addr);
        if (checker_ && checker_->enabled()) std::memcpy(r.expect, in.data, sizeof r.expect);
        m.ldrec = id;
        ++w.pending_loads;
        if (in.dst != kNoReg) w.reg_ready[in.dst] = kNever;
      }
      ++memq_count_;
      return;
    }
    case Op::Barrier: {
      CtaSlot& cs = ctas_[w.cta_slot];
      w.at_barrier = true;
      rdy_[slot] = kNever;
      ++cs.at_barrier;
      if (cs.at_barrier >= cs.warps_live) release_barrier(cs);
      return;
    }
    case Op::Exit: {
      CtaSlot& cs = ctas_[w.cta_slot];
      w.exited = true;
      rdy_[slot] = kNever;
      age_order_.erase(std::find(age_order_.begin(), age_order_.end(), static_cast<uint16_t>(slot)));
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
}

void Sm::release_barrier(CtaSlot& cs) {
  issue_dirty_ = true;
  for (uint16_t s : cs.slots)
    if (warps_[s].at_barrier) {
      warps_[s].at_barrier = false;
      rdy_[s] = kDirty;
    }
  cs.at_barrier = 0;
}

// ---------------------------------------------------------------- L1

int Sm::find_mshr(uint64_t line) const {
  for (uint16_t i : mshr_active_)
    if (mshrs_[i].line == line) return i;
  return -1;
}

tlm::tlm_generic_payload* Sm::new_request(uint64_t line, uint16_t warp, uint8_t ea) {
  tlm::tlm_generic_payload* gp = pool_.alloc();
  gp->set_address(line);
  GpuExt& e = GpuExt::get(*gp);
  e.sm_id = id_;
  e.warp_id = warp;
  e.ea_count = ea;
  e.cls = ReqClass::Demand;
  if (map_) {
    amap_loc loc;
    amap_decode(map_, line, &loc);
    e.channel = loc.ch;
    e.l2_bank = loc.l2_bank;
    e.mem_type = static_cast<MemType>(amap_mem_type(map_, line));
  }
  return gp;
}

void Sm::compare_lanes(const LdRec& rec, uint32_t lanes, const unsigned char* line_data, uint64_t c) {
  if (!checker_ || !checker_->enabled()) return;
  while (lanes) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
    lanes &= lanes - 1;
    uint64_t got = 0;
    std::memcpy(&got, line_data + (rec.addr[l] & (kLineBytes - 1)), rec.bytes);
    checker_->compare(id_, rec.warp, rec.addr[l], c, &rec.expect[l], &got, rec.bytes);
  }
}

void Sm::complete_lanes(uint16_t id, uint32_t lanes, uint64_t ready_cycle) {
  LdRec& r = ldrecs_[id];
  r.pending &= ~lanes;
  r.ready = std::max(r.ready, ready_cycle);
  if (r.pending) return;
  Warp& w = warps_[r.warp];
  if (r.dst != kNoReg) w.reg_ready[r.dst] = r.ready;
  if (!w.exited && !w.at_barrier) rdy_[r.warp] = kDirty;
  issue_dirty_ = true;
  if (r.ready > last_cycle_) hit_wake_ = std::min(hit_wake_, r.ready);
  w.max_ready = std::max(w.max_ready, r.ready);
  --w.pending_loads;
  ldrec_free_.push_back(id);
}

void Sm::l1_stage(uint64_t c) {
  if (!memq_count_) return;
  l1_done_c_ = true;
  MemInst& m = memq_[memq_head_];
  const coal_req& r = m.req[m.next];
  const bool ok = m.store ? l1_store(m, r, c) : l1_load(m, r, c);
  if (!ok) {
    l1_blocked_ = true;
    ++l1_resfail_;
    return;
  }
  l1_blocked_ = false;
  if (++m.next == m.n) {
    memq_head_ = (memq_head_ + 1) % kMemQ;
    --memq_count_;
    issue_dirty_ = true;
  }
}

bool Sm::l1_load(MemInst& m, const coal_req& r, uint64_t c) {
  LdRec& rec = ldrecs_[m.ldrec];
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
      if (mshrs_[ms].nwait >= l1cfg_.mshr_merge) return ++l1_fail_mshr_, false;
      extra = static_cast<uint8_t>(miss_sect & ~mshrs_[ms].pending);
      if (extra && (outq_count_ == kOutQ || mshrs_[ms].outstanding == 255)) return ++l1_fail_port_, false;
    } else if (mshr_free_.empty()) {
      return ++l1_fail_mshr_, false;
    } else if (outq_count_ == kOutQ) {
      return ++l1_fail_port_, false;
    }
  }
  ++l1_acc_;
  uint32_t hit_lanes = 0;
  if (hit_sect) {
    for (uint32_t lanes = r.thread_mask; lanes; lanes &= lanes - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
      if ((hit_sect >> sector_of(rec.addr[l])) & 1u) hit_lanes |= 1u << l;
    }
    repl_access ra{};
    ra.ea_count = r.ea_count;
    cache_touch(&l1_, static_cast<uint32_t>(set), static_cast<uint32_t>(way), &ra);
    compare_lanes(rec, hit_lanes, cache_data_at(&l1_, static_cast<uint32_t>(set), static_cast<uint32_t>(way)), c);
  }
  if (!miss_sect) {
    ++l1_hit_;
    complete_lanes(m.ldrec, hit_lanes, c + l1cfg_.latency);
    return true;
  }
  ++l1_miss_;
  if (hit_lanes) complete_lanes(m.ldrec, hit_lanes, c + l1cfg_.latency);
  const uint32_t miss_lanes = r.thread_mask & ~hit_lanes;
  uint8_t send = 0;
  if (ms >= 0) {
    ++l1_merge_;
    send = extra;
  } else {
    ms = mshr_free_.back();
    mshr_free_.pop_back();
    mshr_active_.push_back(static_cast<uint16_t>(ms));
    Mshr& e = mshrs_[ms];
    e.line = r.line_addr;
    e.pending = 0;
    e.outstanding = 0;
    e.nwait = 0;
    e.no_install = false;
    send = miss_sect;
  }
  Mshr& e = mshrs_[ms];
  const size_t merge = waiters_.size() / mshrs_.size();
  waiters_[static_cast<size_t>(ms) * merge + e.nwait++] = {m.ldrec, miss_lanes};
  if (send) {
    e.pending |= send;
    ++e.outstanding;
    tlm::tlm_generic_payload* gp = new_request(r.line_addr, m.warp, r.ea_count);
    gp->set_command(tlm::TLM_READ_COMMAND);
    GpuExt& x = GpuExt::get(*gp);
    x.tag = static_cast<uint32_t>(ms);
    x.sector_mask = send;
    outq_[(outq_head_ + outq_count_++) % kOutQ] = gp;
  }
  return true;
}

bool Sm::l1_store(MemInst& m, const coal_req& r, uint64_t c) {
  (void)c;
  if (outq_count_ == kOutQ) return ++l1_fail_port_, false;
  ++l1_acc_;
  tlm::tlm_generic_payload* gp = new_request(r.line_addr, m.warp, r.ea_count);
  gp->set_command(tlm::TLM_WRITE_COMMAND);
  GpuExt& x = GpuExt::get(*gp);
  x.tag = kStoreTag;
  x.sector_mask = r.sector_mask;
  x.byte_mask[0] = r.byte_mask[0];
  x.byte_mask[1] = r.byte_mask[1];
  unsigned char* d = gp->get_data_ptr();
  for (uint32_t lanes = r.thread_mask; lanes; lanes &= lanes - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
    std::memcpy(d + (m.addr[l] & (kLineBytes - 1)), &m.data[l], m.bytes);
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
      for (unsigned b = 0; b < kLineBytes; ++b)
        if (x.byte_set(b) && ((write_sect >> (b / kSectorBytes)) & 1u)) ld[b] = d[b];
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

// ---------------------------------------------------------------- L2 port

void Sm::send_stage(uint64_t c) {
  (void)c;
  if (!outq_count_ || awaiting_end_req_ || now_ps() < send_ok_ps_) return;
  send_done_c_ = true;
  tlm::tlm_generic_payload* gp = outq_[outq_head_];
  outq_head_ = (outq_head_ + 1) % kOutQ;
  --outq_count_;
  l1_blocked_ = false;  // a queue slot freed
  ++mem_requests_;
  GpuExt::get(*gp).issue_ps = now_ps();
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time d = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum st = isock->nb_transport_fw(*gp, ph, d);
  const uint64_t t = now_ps() + static_cast<uint64_t>(d.value() / sc_time(1, SC_PS).value());
  if (st == tlm::TLM_ACCEPTED) {
    awaiting_end_req_ = gp;
  } else if (st == tlm::TLM_UPDATED && ph == tlm::END_REQ) {
    send_ok_ps_ = t;
  } else if ((st == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP) || st == tlm::TLM_COMPLETED) {
    send_ok_ps_ = t;
    peq_.notify(*gp, d);
  } else {
    SC_REPORT_FATAL(name(), "unexpected nb_transport_fw return");
  }
}

tlm::tlm_sync_enum Sm::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
  if (ph == tlm::END_REQ) {
    if (&gp != awaiting_end_req_) SC_REPORT_FATAL(name(), "END_REQ for a request not awaiting it");
    awaiting_end_req_ = nullptr;
    send_ok_ps_ = now_ps() + static_cast<uint64_t>(d.value() / sc_time(1, SC_PS).value());
    wake_cycle((send_ok_ps_ + period_ps_ - 1) / period_ps_);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (&gp == awaiting_end_req_) awaiting_end_req_ = nullptr;  // BEGIN_RESP implies END_REQ
    peq_.notify(gp, d);
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
  const unsigned ms = x.tag;
  Mshr& e = mshrs_[ms];
  const uint8_t sect = x.sector_mask;
  const unsigned char* d = gp->get_data_ptr();
  if (l1_on_ && !e.no_install) {
    int way = cache_find(&l1_, e.line);
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
      for (unsigned s = 0; s < kSectorsPerLine; ++s)
        if ((sect >> s) & 1u) std::memcpy(ld + s * kSectorBytes, d + s * kSectorBytes, kSectorBytes);
      cl->valid_sectors |= sect;
    }
  }
  const size_t merge = waiters_.size() / mshrs_.size();
  Waiter* wv = &waiters_[static_cast<size_t>(ms) * merge];
  unsigned keep = 0;
  for (unsigned i = 0; i < e.nwait; ++i) {
    Waiter wt = wv[i];
    const LdRec& rec = ldrecs_[wt.ldrec];
    uint32_t sat = 0;
    for (uint32_t lanes = wt.lanes; lanes; lanes &= lanes - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
      if ((sect >> sector_of(rec.addr[l])) & 1u) sat |= 1u << l;
    }
    if (sat) {
      compare_lanes(rec, sat, d, c);
      wt.lanes &= ~sat;
      complete_lanes(wt.ldrec, sat, c);
    }
    if (wt.lanes) wv[keep++] = wt;
  }
  e.nwait = static_cast<uint8_t>(keep);
  e.pending = static_cast<uint8_t>(e.pending & ~sect);
  if (--e.outstanding == 0) {
    if (e.nwait) SC_REPORT_FATAL(name(), "MSHR retired with waiting loads (response lacks sectors)");
    mshr_active_.erase(std::find(mshr_active_.begin(), mshr_active_.end(), static_cast<uint16_t>(ms)));
    mshr_free_.push_back(static_cast<uint16_t>(ms));
  }
  gp->release();
}

}  // namespace strata
