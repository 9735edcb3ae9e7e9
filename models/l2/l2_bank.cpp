// L2Bank implementation; see l2_bank.h for the model and docs/l2_and_noc.md.
#include "l2/l2_bank.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/bits.h"

namespace strata {

using sc_core::sc_time;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

namespace {
unsigned popcount8(uint8_t v) { return popcount32(v); }

// Sectors a write touches / writes completely, from GpuExt::byte_mask.
uint8_t touched_sectors(const GpuExt& e) {
  uint8_t m = 0;
  for (unsigned s = 0; s < kSectorsPerLine; ++s)
    if ((e.byte_mask[s >> 1] >> ((s & 1) * 32)) & 0xffffffffull) m |= static_cast<uint8_t>(1u << s);
  return m;
}
uint8_t full_sectors(const GpuExt& e) {
  uint8_t m = 0;
  for (unsigned s = 0; s < kSectorsPerLine; ++s)
    if (e.sector_full(s)) m |= static_cast<uint8_t>(1u << s);
  return m;
}
}  // namespace

L2Bank::L2Bank(sc_core::sc_module_name name, unsigned bank_id, unsigned num_banks, const L2Cfg& cfg, const MemKindIf* kinds,
               PayloadPool& pool, StatsRegistry& stats)
    : sc_module(name),
      tsock("tsock"),
      isock("isock"),
      id_(bank_id),
      cfg_(cfg),
      kinds_(kinds),
      pool_(pool),
      T_(cfg.clk.period()),
      ps_unit_(sc_core::sc_time(1, sc_core::SC_PS).value()) {
  tsock.register_nb_transport_fw(this, &L2Bank::fw);
  tsock.register_transport_dbg(this, &L2Bank::dbg);
  isock.register_nb_transport_bw(this, &L2Bank::bw);

  if (num_banks == 0 || cfg.mshrs == 0 || cfg.bytes_per_cycle == 0) fatal("banks, mshrs and bytes_per_cycle must be > 0");
  cache_cfg cc{};
  cc.size_bytes = cfg.size_bytes / num_banks;
  cc.assoc = cfg.assoc;
  cc.line_bytes = kLineBytes;
  cc.sector_bytes = kSectorBytes;
  cc.set_stride = num_banks;
  cc.policy = repl_find(cfg.policy.c_str());
  cc.with_data = 1;
  if (!cc.policy) fatal("unknown replacement policy '" + cfg.policy + "' (known: " + repl_names() + ")");
  char err[160];
  if (cache_init(&c_, &cc, err, sizeof err) != 0) fatal(err);
  all_sectors_ = static_cast<uint8_t>((1u << c_.sectors) - 1u);

  mshr_.assign(cfg.mshrs, Mshr());
  line_mshr_.assign(static_cast<size_t>(c_.sets) * c_.ways, -1);
  set_busy_.assign(c_.sets, 0u);
  mshr_free_.assign((cfg.mshrs + 63) / 64, 0ull);
  for (unsigned i = 0; i < cfg.mshrs; ++i) mshr_give(static_cast<int>(i));
  nodes_.assign(static_cast<size_t>(cfg.mshrs) * kMaxMerge, Node());
  for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i].next = i + 1 < nodes_.size() ? static_cast<int>(i + 1) : -1;
  free_node_ = 0;
  inq_.reset(kInQueue);
  outq_.reset(static_cast<size_t>(cfg.mshrs) * kSectorsPerLine + kInQueue);
  resp_q_.reserve(nodes_.size() + 4 * kInQueue);
  memresp_q_.reserve(outq_.capacity() + 16);

  process_ev_.bind<&L2Bank::process_method>(this, {Stage::L2, bank_id});
  resp_ev_.bind<&L2Bank::respond_method>(this, {Stage::L2, bank_id});
  memresp_ev_.bind<&L2Bank::memresp_method>(this, {Stage::L2, bank_id});

  const std::string p = "l2.bank" + std::to_string(id_);
  stats.counter(join(p, "accesses"), "requests looked up (reads + writes + atomics)", Unit::Count, &st_.accesses);
  stats.counter(join(p, "hits"), "requests whose sectors were all valid at lookup", Unit::Count, &st_.hits);
  stats.counter(join(p, "misses"), "requests with at least one requested sector not valid at lookup", Unit::Count,
                &st_.misses);
  stats.counter(join(p, "sector_misses"), "requested sectors not valid at lookup", Unit::Count, &st_.sector_misses);
  stats.counter(join(p, "reads"), "read requests", Unit::Count, &st_.reads);
  stats.counter(join(p, "writes"), "write requests", Unit::Count, &st_.writes);
  stats.counter(join(p, "writebacks.dram"), "dirty lines written back to DRAM", Unit::Count, &st_.wb_dram);
  stats.counter(join(p, "writebacks.nvm"), "dirty lines written back to NVM/SCM", Unit::Count, &st_.wb_nvm);
  stats.counter(join(p, "mshr_merges"), "requests merged into an MSHR already in flight", Unit::Count,
                &st_.mshr_merges);
  stats.counter(join(p, "stalls"), "times the input queue head had to wait (MSHR/ways/queues busy)", Unit::Count,
                &st_.stalls);
  stats.counter(join(p, "atomics"), "atomic requests (a warp's atomic lanes in one line)", Unit::Count,
                &st_.atomics);
  stats.counter(join(p, "atomic_lanes"), "atomic operations performed (lanes)", Unit::Count, &st_.atomic_lanes);
  stats.counter(join(p, "bypasses"), "read misses the policy served without allocating", Unit::Count,
                &st_.bypasses);
  stats.counter(join(p, "fill_bytes"), "bytes filled from memory", Unit::Byte, &st_.fill_bytes);
  stats.counter(join(p, "accesses.dram"), "requests to lines whose memory is DRAM", Unit::Count, &st_.acc_dram);
  stats.counter(join(p, "accesses.nvm"), "requests to lines whose memory is NVM/SCM", Unit::Count, &st_.acc_nvm);
  stats.counter(join(p, "misses.dram"), "misses to DRAM lines", Unit::Count, &st_.miss_dram);
  stats.counter(join(p, "misses.nvm"), "misses to NVM/SCM lines", Unit::Count, &st_.miss_nvm);
  auto rd = [](const uint64_t* v) { return [v]() { return static_cast<double>(*v); }; };
  stats.ratio(join(p, "miss_rate"), "misses / accesses of this bank", Unit::Ratio, rd(&st_.misses), rd(&st_.accesses));
  stats.ratio(join(p, "miss_rate.dram"), "misses.dram / accesses.dram of this bank", Unit::Ratio, rd(&st_.miss_dram),
              rd(&st_.acc_dram));
  stats.ratio(join(p, "miss_rate.nvm"), "misses.nvm / accesses.nvm of this bank", Unit::Ratio, rd(&st_.miss_nvm),
              rd(&st_.acc_nvm));
  stats.counter(join(p, "writeback_bytes"), "dirty bytes written back to memory", Unit::Byte, &st_.wb_bytes);
}

L2Bank::~L2Bank() {
  cache_free(&c_);
}

std::string L2Bank::debug_state() const {
  char b[320];
  std::snprintf(b, sizeof b,
                "%s: inq=%zu pending_req=%d stalled=%d mshrs=%u/%zu resp_q=%zu up_blocked=%d outq=%zu down_wait=%d "
                "memresp_q=%zu free_node=%d tag_free=%s",
                name(), inq_.size(), pending_req_ != nullptr, stalled_, mshr_used_, mshr_.size(), resp_q_.size(),
                up_blocked_, outq_.size(), down_wait_ != nullptr, memresp_q_.size(), free_node_,
                tag_free_.to_string().c_str());
  return b;
}

void L2Bank::fatal(const std::string& msg) const {
  SC_REPORT_FATAL(name(), msg.c_str());
  std::abort();
}

bool L2Bank::idle() const {
  return inq_.empty() && !pending_req_ && mshr_used_ == 0 && resp_q_.empty() && outq_.empty() && !down_wait_ &&
         memresp_q_.empty() && !up_blocked_;
}

uint8_t L2Bank::mem_type_of(uint64_t line) const {
  return kinds_ ? kinds_->kind_of(line) : static_cast<uint8_t>(AMAP_MEM_DRAM);
}

void L2Bank::register_probes(ProbeRegistry& P, const std::vector<L2Bank*>& banks) {
  P.ratio(
      "l2.hit_rate",
      [banks] {
        uint64_t h = 0;
        for (const L2Bank* b : banks) h += b->hits();
        return h;
      },
      [banks] {
        uint64_t a = 0;
        for (const L2Bank* b : banks) a += b->accesses();
        return a;
      });
}

void L2Bank::register_totals(StatsRegistry& stats, const std::vector<L2Bank*>& banks) {
  auto sum = [banks](uint64_t Stats::*f) {
    return [banks, f]() {
      double s = 0;
      for (const L2Bank* b : banks) s += static_cast<double>(b->st_.*f);
      return s;
    };
  };
  stats.formula("l2.accesses", "L2 requests, all banks", Unit::Count, sum(&Stats::accesses));
  stats.formula("l2.hits", "L2 hits, all banks", Unit::Count, sum(&Stats::hits));
  stats.formula("l2.misses", "L2 misses (any requested sector invalid), all banks", Unit::Count, sum(&Stats::misses));
  auto acc = sum(&Stats::accesses), hit = sum(&Stats::hits), mis = sum(&Stats::misses);
  stats.ratio("l2.miss_rate", "l2.misses / l2.accesses", Unit::Ratio, mis, acc);
  stats.ratio("l2.hit_rate", "l2.hits / l2.accesses", Unit::Ratio, hit, acc);
  stats.formula("l2.accesses.dram", "L2 requests to DRAM lines, all banks", Unit::Count, sum(&Stats::acc_dram));
  stats.formula("l2.accesses.nvm", "L2 requests to NVM/SCM lines, all banks", Unit::Count, sum(&Stats::acc_nvm));
  stats.formula("l2.misses.dram", "L2 misses to DRAM lines, all banks", Unit::Count, sum(&Stats::miss_dram));
  stats.formula("l2.misses.nvm", "L2 misses to NVM/SCM lines, all banks", Unit::Count, sum(&Stats::miss_nvm));
  stats.ratio("l2.miss_rate.dram", "l2.misses.dram / l2.accesses.dram", Unit::Ratio, sum(&Stats::miss_dram),
              sum(&Stats::acc_dram));
  stats.ratio("l2.miss_rate.nvm", "l2.misses.nvm / l2.accesses.nvm (NVM and SCM lines)", Unit::Ratio,
              sum(&Stats::miss_nvm), sum(&Stats::acc_nvm));
  stats.formula("l2.atomics", "atomic requests performed by the L2's atomic units, all banks", Unit::Count,
                sum(&Stats::atomics));
  stats.formula("l2.atomic_lanes", "atomic operations (lanes) performed, all banks", Unit::Count,
                sum(&Stats::atomic_lanes));
  stats.formula("l2.bypasses", "read misses the replacement policy served without allocating, all banks",
                Unit::Count, sum(&Stats::bypasses));
  // Policy storage (repl_ops.overhead_bits: bits beyond an LRU stack, HAC paper Sec. V-D), all banks.
  uint64_t bits = 0, data_bytes = 0;
  for (const L2Bank* b : banks) {
    const repl_ops* ops = b->c_.cfg.policy;
    if (ops->overhead_bits) bits += ops->overhead_bits(b->c_.sets, b->c_.ways);
    data_bytes += static_cast<uint64_t>(b->c_.sets) * b->c_.ways * b->c_.cfg.line_bytes;
  }
  const double ovh = static_cast<double>((bits + 7) / 8), cap = static_cast<double>(data_bytes);
  stats.level("l2.policy_overhead_bytes",
                "storage the replacement policy adds beyond an LRU stack (per-set counters, per-line flags)",
                Unit::Byte, [ovh]() { return ovh; });
  stats.level("l2.policy_overhead_ratio", "l2.policy_overhead_bytes / L2 data capacity", Unit::Ratio,
              [ovh, cap]() { return cap > 0 ? ovh / cap : 0.0; });
  stats.formula("l2.writebacks.dram", "dirty L2 lines written back to DRAM", Unit::Count, sum(&Stats::wb_dram));
  stats.formula("l2.writebacks.nvm", "dirty L2 lines written back to NVM/SCM", Unit::Count, sum(&Stats::wb_nvm));
  stats.formula("l2.fill_bytes", "bytes filled into the L2 from memory", Unit::Byte, sum(&Stats::fill_bytes));
  stats.formula("l2.writeback_bytes", "dirty bytes written back by the L2", Unit::Byte, sum(&Stats::wb_bytes));
}

// ---------------------------------------------------------------- upstream

tlm_sync_enum L2Bank::fw(tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  if (ph == tlm::BEGIN_REQ) {
    if (pending_req_) fatal("BEGIN_REQ while a previous request still waits for END_REQ");
    if (!inq_.full()) {
      inq_.push(InReq{&gp, sim_now() + d});
      if (!stalled_) process_ev_.notify(d);  // process_method waits for the tag slot itself
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    pending_req_ = &gp;  // END_REQ when the queue has room (base protocol backpressure)
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {
    up_blocked_ = false;
    resp_ev_.notify(sc_core::SC_ZERO_TIME);
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase on tsock");
}

// Functional (debug) read/write through the bank: memory contents overlaid with
// the valid sectors held here; writes update both a resident line and memory.
unsigned L2Bank::dbg(tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  const unsigned len = gp.get_data_length();
  unsigned char* p = gp.get_data_ptr();
  // The copy held here of byte `b`, or nullptr when its sector is not valid in this bank.
  auto cached = [this](uint64_t b) -> unsigned char* {
    const uint64_t line = b & ~uint64_t(kLineBytes - 1);
    const int w = cache_find(&c_, line);
    if (w < 0) return nullptr;
    const uint32_t set = cache_set_of(&c_, line);
    const unsigned off = static_cast<unsigned>(b - line);
    if (!((cache_line_at(&c_, set, static_cast<uint32_t>(w))->valid_sectors >> (off / kSectorBytes)) & 1u)) return nullptr;
    return cache_data_at(&c_, set, static_cast<uint32_t>(w)) + off;
  };
  if (gp.is_read()) {
    const unsigned n = isock->transport_dbg(gp);
    for (unsigned i = 0; i < len; ++i)
      if (const unsigned char* c = cached(a + i)) p[i] = *c;
    return n ? n : len;
  }
  for (unsigned i = 0; i < len; ++i)
    if (unsigned char* c = cached(a + i)) *c = p[i];
  return isock->transport_dbg(gp);
}

void L2Bank::wake() {
  if (stalled_) {
    stalled_ = false;
    process_ev_.notify(sc_core::SC_ZERO_TIME);
  }
}

// Tag pipeline: one lookup per L2 cycle, in order; the head stalls when a
// resource is missing and is retried by wake() when one frees.
void L2Bank::process_method() {
  const sc_time now = sim_now();
  while (!inq_.empty()) {
    const InReq& r = inq_.front();
    const sc_time at = r.arrival > tag_free_ ? r.arrival : tag_free_;
    if (at > now) {
      process_ev_.notify(at - now);
      return;
    }
    // A head stalled on a line miss for want of an MSHR or a merge node stalls
    // again while neither has freed: its retry would take the same path (the
    // bank's tags change only in try_handle), so skip the lookup.
    const bool no_mshr = head_no_mshr_ && (mshr_used_ >= mshr_.size() || free_node_ < 0);
    if (no_mshr || !try_handle(*r.gp)) {
      if (!stall_counted_) ++st_.stalls;  // count stall episodes, not retries
      stall_counted_ = true;
      stalled_ = true;
      return;
    }
    stalled_ = false;
    stall_counted_ = false;
    head_no_mshr_ = false;
    inq_.pop();
    tag_free_ = now + T_;
    if (pending_req_) {  // room again: accept the waiting request
      tlm_generic_payload* g = pending_req_;
      pending_req_ = nullptr;
      inq_.push(InReq{g, now});
      tlm_phase ph = tlm::END_REQ;
      sc_time d = sc_core::SC_ZERO_TIME;
      tsock->nb_transport_bw(*g, ph, d);
    }
  }
}

// Copy read data out of / merge write data into line (set, way).
void L2Bank::apply(tlm_generic_payload& gp, uint32_t set, uint32_t way) {
  GpuExt& e = GpuExt::get(gp);
  cache_line* l = cache_line_at(&c_, set, way);
  unsigned char* line = cache_data_at(&c_, set, way);
  unsigned char* buf = gp.get_data_ptr();
  if (e.atomic) {
    perform_atomic(*e.atomic, gp.get_address() & ~uint64_t(kLineBytes - 1), l, line);
  } else if (gp.is_write()) {
    const uint8_t touched = touched_sectors(e), full = full_sectors(e);
    if ((touched & ~full) & ~l->valid_sectors) fatal("partial write into an invalid sector (missing fill)");
    for (unsigned sct = 0; sct < c_.sectors; ++sct) {
      const uint32_t m = static_cast<uint32_t>(e.byte_mask[sct >> 1] >> ((sct & 1) * 32));
      const unsigned o = sct * kSectorBytes;
      if (m == 0xffffffffu) std::memcpy(line + o, buf + o, kSectorBytes);
      else if (m)
        for (unsigned b = 0; b < kSectorBytes; ++b)
          if ((m >> b) & 1u) line[o + b] = buf[o + b];
    }
    l->valid_sectors |= full;
    l->dirty_sectors |= touched;
  } else {
    uint8_t req = e.sector_mask & all_sectors_;
    if (!req) req = all_sectors_;
    if (req & ~l->valid_sectors) fatal("read of an invalid sector");
    for (unsigned s = 0; s < c_.sectors; ++s)
      if ((req >> s) & 1u) std::memcpy(buf + s * kSectorBytes, line + s * kSectorBytes, kSectorBytes);
  }
  e.mem_type = static_cast<MemType>(l->mem_type);  // the requester learns the line's memory kind
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// The atomic unit: the request's lanes in lane order on the line's data; each
// lane's old value goes back in the request, the written sectors become dirty.
void L2Bank::perform_atomic(AtomicReq& a, uint64_t line_addr, cache_line* l, unsigned char* line) {
  const unsigned n = gpu_atom_bytes(a.type);
  const uint64_t now_ps = sim_now().value() / ps_unit_;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    const uint64_t addr = a.addr[lane];
    const unsigned off = static_cast<unsigned>(addr - line_addr);
    if (off + n > kLineBytes || (addr & (n - 1))) fatal("atomic lane outside its line or misaligned");
    const unsigned sct = off / kSectorBytes;
    if (!((l->valid_sectors >> sct) & 1u)) fatal("atomic on an invalid sector (missing fill)");
    uint64_t old = 0;
    std::memcpy(&old, line + off, n);
    const uint64_t nv = gpu_atom_apply(a.op, a.type, old, a.a[lane], a.b[lane]);
    std::memcpy(line + off, &nv, n);
    l->dirty_sectors |= static_cast<uint8_t>(1u << sct);
    a.old[lane] = old;
    ++st_.atomic_lanes;
    if (atom_obs_) atom_obs_->performed(id_, addr, a.op, a.type, a.a[lane], a.b[lane], old, now_ps);
  }
}

// Cycles the atomic unit spends on a request: one per lane on its most
// contended address (different addresses of the line update in parallel).
unsigned L2Bank::atomic_serial(const AtomicReq& a) {
  unsigned worst = 1;
  for (uint32_t m = a.lanes; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    unsigned same = 1;
    for (uint32_t r = m & (m - 1); r; r &= r - 1)
      same += a.addr[static_cast<unsigned>(__builtin_ctz(r))] == a.addr[l];
    if (same > worst) worst = same;
  }
  return worst;
}

// Data port: a transfer of n sectors occupies ceil(32n / bytes_per_cycle)
// cycles; it may start when the port is free and no earlier than needed for an
// unloaded response to take exactly cfg.latency cycles after lookup.
sc_time L2Bank::schedule_port(const sc_time& ready, unsigned sectors) {
  const unsigned cyc = (sectors * kSectorBytes + cfg_.bytes_per_cycle - 1) / cfg_.bytes_per_cycle;
  const sc_time start = ready > port_free_ ? ready : port_free_;
  port_free_ = start + cyc * T_;
  return port_free_;
}

void L2Bank::queue_response(tlm_generic_payload& gp, const sc_time& lookup, uint8_t sectors) {
  if (const AtomicReq* a = GpuExt::get(gp).atomic) {
    // The line's data reach the atomic unit when a one-sector hit's would leave
    // the port; the old values leave atomic_latency cycles after the unit took it.
    const unsigned cyc = (kSectorBytes + cfg_.bytes_per_cycle - 1) / cfg_.bytes_per_cycle;
    sc_time ready = lookup;
    if (cfg_.latency > cyc) ready += (cfg_.latency - cyc) * T_;
    const sc_time now = sim_now();
    if (ready < now) ready = edge(now);
    const unsigned serial = atomic_serial(*a);
    const sc_time start = ready > alu_free_ ? ready : alu_free_;
    alu_free_ = start + serial * T_;
    resp_q_.push(schedule_port(start + (serial - 1 + cfg_.atomic_latency) * T_, 1), &gp, resp_ev_, now);
    return;
  }
  const unsigned n = popcount8(sectors) ? popcount8(sectors) : 1;
  const unsigned cyc = (n * kSectorBytes + cfg_.bytes_per_cycle - 1) / cfg_.bytes_per_cycle;
  sc_time ready = lookup;
  if (cfg_.latency > cyc) ready += (cfg_.latency - cyc) * T_;
  const sc_time now = sim_now();
  if (ready < now) ready = edge(now);  // a late fill: the next L2 clock edge
  resp_q_.push(schedule_port(ready, n), &gp, resp_ev_, now);
}

void L2Bank::push_down(tlm_generic_payload* gp) {
  if (!outq_.push(gp)) fatal("outgoing queue overflow");
  send_down();
}

void L2Bank::issue_fill(int m, uint64_t line, uint8_t sectors, uint8_t mem_type) {
  tlm_generic_payload* f = pool_.alloc();
  GpuExt& e = GpuExt::get(*f);
  f->set_address(line);
  f->set_command(tlm::TLM_READ_COMMAND);
  e.cls = ReqClass::Fill;
  e.sector_mask = sectors;
  e.sm_id = ~0u;
  e.tag = static_cast<uint32_t>(m);
  e.l2_bank = id_;
  e.mem_type = static_cast<MemType>(mem_type);
  e.issue_ps = sim_now().value() / ps_unit_;
  mshr_[m].fetching |= sectors;
  mshr_[m].fills_out++;
  push_down(f);
}

void L2Bank::writeback(uint64_t line, const cache_line& l, const unsigned char* data) {
  tlm_generic_payload* w = pool_.alloc();
  GpuExt& e = GpuExt::get(*w);
  w->set_address(line);
  w->set_command(tlm::TLM_WRITE_COMMAND);
  e.cls = ReqClass::Writeback;
  e.sector_mask = l.dirty_sectors;
  e.sm_id = ~0u;
  e.l2_bank = id_;
  e.mem_type = static_cast<MemType>(l.mem_type);
  e.issue_ps = sim_now().value() / ps_unit_;
  for (unsigned s = 0; s < c_.sectors; ++s)
    if ((l.dirty_sectors >> s) & 1u) e.byte_mask[s >> 1] |= 0xffffffffull << ((s & 1) * 32);
  std::memcpy(w->get_data_ptr(), data, kLineBytes);
  const unsigned n = popcount8(l.dirty_sectors);
  st_.wb_bytes += n * kSectorBytes;
  if (l.mem_type == AMAP_MEM_DRAM) ++st_.wb_dram;
  else ++st_.wb_nvm;
  push_down(w);
}

uint8_t L2Bank::sector_mask_of(tlm_generic_payload& gp) const {
  const uint8_t m = GpuExt::get(gp).sector_mask & all_sectors_;
  return m ? m : all_sectors_;
}

// ---------------------------------------------------------------- tag lookup
//
// try_handle looks the input queue's head up and takes one of these paths;
// each checks its resources first and changes nothing when one is missing
// (false: the head stalls and is retried by wake()):
//   line present   1. a fill in flight for it: merge behind the fill (merge_into_fill)
//                  2. every sector it needs valid: a hit (serve_hit)
//                  3. else fetch the missing sectors into it (fetch_sectors)
//   line absent    4. a write with no bytes: acknowledge (ack_empty_write)
//                  5. a read of a line whose bypassed fill is in flight: merge behind it
//                  6. the policy bypasses it: fetch without allocating (bypass_fill)
//                  7. else allocate a victim way, write it back if dirty, fetch (allocate_line)

L2Bank::Lookup L2Bank::begin_lookup(tlm_generic_payload& gp) {
  GpuExt& e = GpuExt::get(gp);
  Lookup q{gp, e, sim_now()};
  q.line = gp.get_address() & ~uint64_t(kLineBytes - 1);
  q.wr = gp.is_write();
  q.atom = e.atomic != nullptr;
  if (q.atom && q.wr) fatal("an atomic request must be a read command (common/gpu_ext.h)");
  if (q.wr) {
    q.req = touched_sectors(e) & all_sectors_;
    q.partial = static_cast<uint8_t>(q.req & ~full_sectors(e));
  } else {
    q.req = sector_mask_of(gp);
  }
  q.acc.is_write = q.wr;
  q.acc.is_writeback = e.cls == ReqClass::Writeback;
  q.acc.ea_count = e.ea_count;
  q.acc.allow_bypass = 0;
  q.set = cache_set_of(&c_, q.line);
  return q;
}

bool L2Bank::try_handle(tlm_generic_payload& gp) {
  Lookup q = begin_lookup(gp);
  const int w = cache_find(&c_, q.line);
  return w >= 0 ? lookup_present(q, static_cast<uint32_t>(w)) : lookup_absent(q);
}

// Access counters of one handled request; `valid`: the line's valid sectors
// before it (0 for an absent line).
void L2Bank::count_access(const Lookup& q, uint8_t valid, uint8_t mem_type) {
  const bool dram = mem_type == AMAP_MEM_DRAM;  // NVM and SCM lines count as NVM
  ++st_.accesses;
  ++(dram ? st_.acc_dram : st_.acc_nvm);
  if (q.atom) ++st_.atomics;
  else if (q.wr) ++st_.writes;
  else ++st_.reads;
  const uint8_t miss = static_cast<uint8_t>(q.req & ~valid);
  if (miss) {
    ++st_.misses;
    ++(dram ? st_.miss_dram : st_.miss_nvm);
    st_.sector_misses += popcount8(miss);
  } else {
    ++st_.hits;
  }
}

// Queue the request behind MSHR m (arrival order); the caller checked that a
// node is free.
void L2Bank::mshr_enqueue(int m, const Lookup& q) {
  const int n = free_node_;
  free_node_ = nodes_[n].next;
  nodes_[n] = Node{&q.gp, q.now, -1};
  Mshr& M = mshr_[m];
  if (M.tail >= 0) nodes_[M.tail].next = n;
  else M.head = n;
  M.tail = n;
  ++M.count;
  if (q.wr) M.full_writes |= static_cast<uint8_t>(q.req & ~q.partial);
}

// The lowest-numbered free MSHR, -1 if none.
int L2Bank::lowest_free_mshr() const {
  if (mshr_used_ >= mshr_.size()) return -1;
  for (size_t k = 0; k < mshr_free_.size(); ++k)
    if (mshr_free_[k]) return static_cast<int>(k * 64 + static_cast<size_t>(__builtin_ctzll(mshr_free_[k])));
  return -1;
}

// MSHR m now fetches for line (set, way).
void L2Bank::mshr_open(int m, uint32_t set, uint32_t way) {
  Mshr& M = mshr_[m];
  M = Mshr();
  M.busy = true;
  M.set = set;
  M.way = way;
  line_mshr_[static_cast<size_t>(set) * c_.ways + way] = m;
  set_busy_[set] |= 1u << way;
  mshr_take(m);
  ++mshr_used_;
}

bool L2Bank::lookup_present(Lookup& q, uint32_t way) {
  cache_line* l = cache_line_at(&c_, q.set, way);
  q.acc.mem_type = l->mem_type;
  const int m = line_mshr_[static_cast<size_t>(q.set) * c_.ways + way];
  if (m >= 0) return merge_into_fill(q, m, way, *l);
  const uint8_t need = static_cast<uint8_t>((q.wr ? q.partial : q.req) & ~l->valid_sectors);
  if (!need) return serve_hit(q, way, *l);
  return fetch_sectors(q, way, *l, need);
}

// 1. A fill is in flight for the line: the request waits behind it (arrival
// order kept), fetching the sectors that neither the line, the fill nor a
// queued whole-sector write will provide.
bool L2Bank::merge_into_fill(Lookup& q, int m, uint32_t way, const cache_line& l) {
  Mshr& M = mshr_[m];
  if (M.count >= kMaxMerge || free_node_ < 0) return false;
  const uint8_t covered = l.valid_sectors | M.fetching | M.full_writes;
  const uint8_t need = static_cast<uint8_t>((q.wr ? q.partial : q.req) & ~covered);
  if (need && outq_.free() < 1) return false;
  count_access(q, l.valid_sectors, l.mem_type);
  ++st_.mshr_merges;
  cache_touch(&c_, q.set, way, &q.acc);
  if (need) issue_fill(m, q.line, need, l.mem_type);
  mshr_enqueue(m, q);
  return true;
}

// 2. A hit (or a write of whole sectors: valid + dirty without a fetch).
bool L2Bank::serve_hit(Lookup& q, uint32_t way, const cache_line& l) {
  count_access(q, l.valid_sectors, l.mem_type);
  cache_touch(&c_, q.set, way, &q.acc);
  apply(q.gp, q.set, way);
  queue_response(q.gp, q.now, q.req);
  return true;
}

// 3. A sector miss: fetch the missing sectors into the line.
bool L2Bank::fetch_sectors(Lookup& q, uint32_t way, const cache_line& l, uint8_t need) {
  const int nm = lowest_free_mshr();
  if (nm < 0 || outq_.free() < 1 || free_node_ < 0) return false;
  count_access(q, l.valid_sectors, l.mem_type);
  cache_touch(&c_, q.set, way, &q.acc);
  mshr_open(nm, q.set, way);
  issue_fill(nm, q.line, need, l.mem_type);
  mshr_enqueue(nm, q);
  return true;
}

bool L2Bank::lookup_absent(Lookup& q) {
  const uint8_t mt = mem_type_of(q.line);
  if (q.wr && !q.req) return ack_empty_write(q, mt);
  q.acc.mem_type = mt;
  if (!q.wr && !q.atom && bypass_live_ > 0) {
    const int k = bypassed_fill_for(q);
    if (k >= 0) return merge_into_bypass(q, k, mt);
  }
  uint8_t need = q.wr ? q.partial : q.req;
  if (q.wr && !need && write_fetch_ && kinds_->write_must_fetch(q.line)) need = q.req;  // it faults (docs/um.md)
  int nm = -1;
  if (need) {
    nm = lowest_free_mshr();
    if (nm < 0 || free_node_ < 0) return head_no_mshr_ = true, false;
  }
  if (outq_.free() < 2) return false;
  // Policies may bypass demand read misses (HAC paper Sec. IV-B, Algorithm 1 lines 10-11); writes always allocate.
  q.acc.allow_bypass = !q.wr && !q.atom && q.e.cls == ReqClass::Demand;
  const int v = cache_victim_masked(&c_, q.line, ~set_busy_[q.set], &q.acc);
  if (v == REPL_BYPASS) return bypass_fill(q, nm, need, mt);
  if (v < 0) return false;  // every allowed way has a fill in flight
  return allocate_line(q, static_cast<uint32_t>(v), nm, need, mt);
}

// 4. A write with no bytes: acknowledged, nothing allocated.
bool L2Bank::ack_empty_write(Lookup& q, uint8_t mt) {
  count_access(q, 0, mt);
  q.e.mem_type = static_cast<MemType>(mt);
  q.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  queue_response(q.gp, q.now, 0);
  return true;
}

// The MSHR of a bypassed fill in flight that brings every sector read q
// needs, -1 if none.
int L2Bank::bypassed_fill_for(const Lookup& q) const {
  for (size_t k = 0; k < mshr_.size(); ++k) {
    const Mshr& M = mshr_[k];
    if (M.busy && M.bypass && M.line == q.line && !(q.req & ~M.fetching)) return static_cast<int>(k);
  }
  return -1;
}

// 5. A read of a line whose bypassed fill is in flight waits for that fill
// (an MSHR merge, as for an allocated line) instead of fetching it again.
bool L2Bank::merge_into_bypass(Lookup& q, int m, uint8_t mt) {
  const Mshr& M = mshr_[m];
  if (M.count >= kMaxMerge || free_node_ < 0) return false;
  count_access(q, 0, mt);
  ++st_.mshr_merges;
  mshr_enqueue(m, q);
  return true;
}

// 6. The policy bypasses the read: MSHR nm fetches the line for the requester
// alone, nothing is allocated.
bool L2Bank::bypass_fill(Lookup& q, int nm, uint8_t need, uint8_t mt) {
  count_access(q, 0, mt);
  ++st_.bypasses;
  Mshr& M = mshr_[nm];
  M = Mshr();
  M.busy = true;
  M.bypass = true;
  M.line = q.line;
  ++bypass_live_;
  mshr_take(nm);
  ++mshr_used_;
  issue_fill(nm, q.line, need, mt);
  mshr_enqueue(nm, q);
  return true;
}

// 7. The line goes into victim way `way` (written back first if dirty);
// whole-sector writes complete at once, the rest fetch with MSHR nm.
bool L2Bank::allocate_line(Lookup& q, uint32_t way, int nm, uint8_t need, uint8_t mt) {
  count_access(q, 0, mt);
  cache_line* l = cache_line_at(&c_, q.set, way);
  if (l->valid && l->dirty_sectors) writeback(l->line_addr, *l, cache_data_at(&c_, q.set, way));
  cache_install(&c_, q.set, way, q.line, mt, &q.acc);
  if (!need) {  // whole-sector writes: allocate without a fetch
    apply(q.gp, q.set, way);
    queue_response(q.gp, q.now, q.req);
    return true;
  }
  mshr_open(nm, q.set, way);
  issue_fill(nm, q.line, need, mt);
  mshr_enqueue(nm, q);
  return true;
}

// Every fill of MSHR m is back: replay its queued requests in arrival order.
void L2Bank::complete_mshr(int m) {
  Mshr& M = mshr_[m];
  for (int n = M.head; n >= 0;) {
    Node& nd = nodes_[n];
    tlm_generic_payload& gp = *nd.gp;
    GpuExt& e = GpuExt::get(gp);
    apply(gp, M.set, M.way);
    uint8_t req = gp.is_write() ? touched_sectors(e) : (e.sector_mask & all_sectors_);
    if (!req) req = all_sectors_;
    queue_response(gp, nd.lookup, req);
    const int next = nd.next;
    nd.next = free_node_;
    nd.gp = nullptr;
    free_node_ = n;
    n = next;
  }
  line_mshr_[static_cast<size_t>(M.set) * c_.ways + M.way] = -1;
  set_busy_[M.set] &= ~(1u << M.way);
  M = Mshr();
  mshr_give(m);
  --mshr_used_;
  wake();
}

// ---------------------------------------------------------------- responses up

void L2Bank::respond_method() { send_up(); }

void L2Bank::send_up() {
  const sc_time now = sim_now();
  while (!up_blocked_ && resp_q_.ready(now)) {
    tlm_generic_payload* gp = resp_q_.pop();
    tlm_phase ph = tlm::BEGIN_RESP;
    sc_time d = sc_core::SC_ZERO_TIME;
    const tlm_sync_enum s = tsock->nb_transport_bw(*gp, ph, d);
    if (s == tlm::TLM_ACCEPTED || (s == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP)) up_blocked_ = true;
  }
  if (!up_blocked_) resp_q_.rearm(resp_ev_, now);
}

// ---------------------------------------------------------------- downstream

void L2Bank::send_down() {
  while (!down_wait_ && !outq_.empty()) {
    tlm_generic_payload* gp = outq_.front();
    outq_.pop();
    tlm_phase ph = tlm::BEGIN_REQ;
    sc_time d = sc_core::SC_ZERO_TIME;
    const tlm_sync_enum s = isock->nb_transport_fw(*gp, ph, d);
    if (s == tlm::TLM_ACCEPTED) {
      down_wait_ = gp;
    } else if (s == tlm::TLM_UPDATED) {
      if (ph == tlm::BEGIN_RESP) memresp_q_.push(edge(sim_now() + d), gp, memresp_ev_);
      else if (ph != tlm::END_REQ) fatal("unexpected phase returned by memory");
    } else {  // TLM_COMPLETED: response carried by the return path
      memresp_q_.push(edge(sim_now() + d), gp, memresp_ev_);
    }
  }
  wake();
}

tlm_sync_enum L2Bank::bw(tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  if (ph == tlm::END_REQ) {
    if (&gp != down_wait_) fatal("END_REQ for a request not waiting for it");
    down_wait_ = nullptr;
    send_down();
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (&gp == down_wait_) {  // implicit END_REQ
      down_wait_ = nullptr;
      send_down();
    }
    memresp_q_.push(edge(sim_now() + d), &gp, memresp_ev_);
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase on isock");
}

void L2Bank::memresp_method() {
  const sc_time now = sim_now();
  while (memresp_q_.ready(now)) mem_response(*memresp_q_.pop());
  memresp_q_.rearm(memresp_ev_, now);
}

void L2Bank::mem_response(tlm_generic_payload& gp) {
  GpuExt& e = GpuExt::get(gp);
  if (e.cls == ReqClass::Fill) {
    const int m = static_cast<int>(e.tag);
    Mshr& M = mshr_[m];
    if (!M.busy || M.fills_out == 0) fatal("fill response without an MSHR");
    if (M.bypass) {  // nothing allocated: copy the fetched sectors to every waiting read and answer
      const uint8_t got = e.sector_mask;
      st_.fill_bytes += popcount8(got) * kSectorBytes;
      for (int n = M.head; n >= 0;) {
        tlm_generic_payload& rq = *nodes_[n].gp;
        const uint8_t want = static_cast<uint8_t>(sector_mask_of(rq) & got);
        for (unsigned s = 0; s < c_.sectors; ++s)
          if ((want >> s) & 1u)
            std::memcpy(rq.get_data_ptr() + s * kSectorBytes, gp.get_data_ptr() + s * kSectorBytes, kSectorBytes);
        rq.set_response_status(tlm::TLM_OK_RESPONSE);
        GpuExt::get(rq).mem_type = e.mem_type;
        queue_response(rq, nodes_[n].lookup, want);
        const int next = nodes_[n].next;
        nodes_[n] = Node();
        nodes_[n].next = free_node_;
        free_node_ = n;
        n = next;
      }
      --bypass_live_;
      M = Mshr();
      mshr_give(m);
      --mshr_used_;
      gp.release();
      wake();
      return;
    }
    cache_line* l = cache_line_at(&c_, M.set, M.way);
    unsigned char* line = cache_data_at(&c_, M.set, M.way);
    l->mem_type = static_cast<uint8_t>(e.mem_type);  // the memory side says which memory serves the line now
    const uint8_t fresh = static_cast<uint8_t>(e.sector_mask & ~l->valid_sectors);
    for (unsigned s = 0; s < c_.sectors; ++s)
      if ((fresh >> s) & 1u) std::memcpy(line + s * kSectorBytes, gp.get_data_ptr() + s * kSectorBytes, kSectorBytes);
    l->valid_sectors |= fresh;
    st_.fill_bytes += popcount8(e.sector_mask) * kSectorBytes;
    gp.release();
    if (--M.fills_out == 0) complete_mshr(m);
  } else {
    gp.release();  // writeback acknowledged
  }
}

void L2Bank::write_functional(uint64_t line, const unsigned char* bytes) {
  const int way = cache_find(&c_, line);
  if (way < 0) return;
  unsigned char* d = cache_data_at(&c_, cache_set_of(&c_, line), static_cast<uint32_t>(way));
  if (d) std::memcpy(d, bytes, kLineBytes);
}

}  // namespace strata
