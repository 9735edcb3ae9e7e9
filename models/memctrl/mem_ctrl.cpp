#include "memctrl/mem_ctrl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/addrmap.h"
#include "common/simtime.h"

namespace strata {

using sc_core::sc_time;
using sc_core::SC_PS;
using sc_core::SC_ZERO_TIME;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

namespace {
// Sector masks have 4 bits; a table avoids the libgcc popcount call.
inline unsigned popcount8(uint8_t v) {
  static constexpr uint8_t k[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return k[v & 0xf] + k[v >> 4];
}
}  // namespace

MemCtrl::MemCtrl(sc_core::sc_module_name name, unsigned channel, const McCfg& cfg, bstore* device_mem,
                 PayloadPool& pool, StatsRegistry& stats)
    : sc_module(name), tsock("tsock"), ch_(channel), cfg_(cfg), mem_(device_mem) {
  (void)pool;  // requests are the initiators' payloads; the controller creates none
  mc_cfg c = cfg.engine;
  if (!c.dev) fatal("needs a device preset (McCfg::engine.dev)");
  if (!mem_) fatal("needs a device memory");
  // Own copies of the presets (they may be a config's overridden copies that
  // do not outlive the platform's set-up).
  presets_.reserve(2 + (c.rank_devs ? c.ranks : 0));
  presets_.push_back(*c.dev);
  presets_.push_back(cfg.check_dev ? *cfg.check_dev : *c.dev);
  dev_ = &presets_[0];
  c.dev = dev_;
  if (c.rank_devs) {  // mixed technologies on the channel: a preset per rank
    for (unsigned r = 0; r < c.ranks; ++r) {
      if (!c.rank_devs[r]) fatal("engine.rank_devs needs one preset per rank");
      presets_.push_back(*c.rank_devs[r]);
    }
    for (unsigned r = 0; r < c.ranks; ++r) rank_dev_.push_back(&presets_[2 + r]);
    c.rank_devs = rank_dev_.data();
  }
  cfg_.engine = c;
  cfg_.device = dev_->name;
  cfg_.ranks = c.ranks;
  cfg_.read_queue = c.rq_size;
  cfg_.write_queue = c.wq_size;
  for (unsigned r = 0; r < c.ranks; ++r)
    rank_kind_.push_back(static_cast<uint8_t>(dram_mem_kind(rank_dev_.empty() ? dev_ : rank_dev_[r])));
  char err[256];
  if (mc_init(&mc_, &c, err, sizeof err) != 0) fatal(err);
  mc_set_done(&mc_, &MemCtrl::on_done, this);
  mc_set_row_track(&mc_, 1);  // GpuExt::row on every response
  mc_set_cmd_log(&mc_, &MemCtrl::on_cmd, this);
  if (cfg.check_dev) {
    const dram_preset* cd = &presets_[1];
    if (cd->bankgroups != dev_->bankgroups || cd->banks_per_group != dev_->banks_per_group)
      fatal("timing-check device '" + std::string(cd->name) + "' has another bank geometry than '" + cfg_.device + "'");
    if (!rank_dev_.empty() && cfg.check_dev != cfg.engine.dev) fatal("a timing-check device with a preset per rank");
    if (tcheck_init_ranks(&tc_, cd, rank_dev_.empty() ? nullptr : rank_dev_.data(), c.ranks, err, sizeof err) != 0)
      fatal(err);
    tcheck_expect_refresh(&tc_, c.refresh);
    tc_on_ = true;
  }
  period_ps_ = 1e6 / dev_->clk_mhz;
  ps_res_ = sc_core::sc_get_time_resolution() == sc_time(1, SC_PS);
  if (ps_res_ && period_ps_ == std::floor(period_ps_) && period_ps_ >= 1.0 && period_ps_ < 1e12)
    period_ticks_ = static_cast<uint64_t>(period_ps_);
  // Device addresses (models/ref/base/devaddr.h) over this channel's geometry; a
  // line's atoms are consecutive columns of one row when the row holds whole lines.
  if (devaddr_init(&geom_, c.ranks, dev_->bankgroups, dev_->banks_per_group, dev_->row_bytes / dev_->atom_bytes,
                   dev_->atom_bytes, err, sizeof err) != 0)
    fatal(err);
  if (dev_->atom_bytes < kSectorBytes || dev_->atom_bytes > kLineBytes || kLineBytes % dev_->atom_bytes)
    fatal("device '" + cfg_.device + "' moves " + std::to_string(dev_->atom_bytes) +
          " B per column access: expected 32, 64 or 128 B (whole 32 B sectors of a 128 B line)");
  for (unsigned r = 0; r < rank_dev_.size(); ++r)
    if (rank_dev_[r]->atom_bytes != dev_->atom_bytes)
      fatal("rank " + std::to_string(r) + " device '" + rank_dev_[r]->name + "' moves " +
            std::to_string(rank_dev_[r]->atom_bytes) + " B per column access, the channel's '" + cfg_.device + "' " +
            std::to_string(dev_->atom_bytes) + " B");
  sectors_per_atom_ = dev_->atom_bytes / kSectorBytes;
  for (unsigned m = 0; m < 16; ++m) {
    uint8_t a = 0;
    for (unsigned k = 0; k < kSectorsPerLine; ++k)
      if ((m >> k) & 1u) a = static_cast<uint8_t>(a | (1u << (k / sectors_per_atom_)));
    atom_mask_[m] = a;
    atom_n_[m] = static_cast<uint8_t>(popcount8(a));
  }
  line_is_cols_ = dev_->row_bytes >= kLineBytes && dev_->row_bytes % kLineBytes == 0;

  // Slots: every parent the engine can hold, every accepted-but-not-arrived
  // request (bounded by the queue sizes), plus responses held by END_RESP.
  const size_t nslots = static_cast<size_t>(mc_.nparents) + cfg_.read_queue + cfg_.write_queue + 64;
  slots_.resize(nslots);
  for (size_t i = 0; i < nslots; ++i) slots_[i].next = i + 1 < nslots ? static_cast<uint32_t>(i + 1) : kNil;
  free_slot_ = 0;
  arrivals_.reserve(nslots);
  done_.reserve(static_cast<size_t>(mc_.nparents) + 64);
  answer_.reserve(nslots);

  tsock.register_nb_transport_fw(this, &MemCtrl::nb_transport_fw);
  tsock.register_b_transport(this, &MemCtrl::b_transport);
  tsock.register_transport_dbg(this, &MemCtrl::transport_dbg);
  ev_.bind<&MemCtrl::process>(this, {Stage::DeviceCtrl, channel});
  resp_ev_.bind<&MemCtrl::resp_process>(this, {Stage::DeviceCtrl, channel});
  register_stats(stats);
}

MemCtrl::~MemCtrl() {
  mc_free(&mc_);
  tcheck_free(&tc_);
}

void MemCtrl::fatal(const std::string& msg) const {
  SC_REPORT_FATAL(name(), msg.c_str());
  std::abort();  // SC_REPORT_FATAL throws/aborts; keeps [[noreturn]] honest
}

void MemCtrl::end_of_elaboration() {
  ports_.assign(tsock.size(), Port());
  wait_order_.reserve(tsock.size());
}

bool MemCtrl::idle() const { return inflight_ == 0 && mc_idle(&mc_); }

// ------------------------------------------------------------------ time

uint64_t MemCtrl::cycle_of_double(const sc_time& t) const {
  // Tolerance of 1e-3 cycle absorbs the 1 ps rounding of time_of() for clocks
  // whose period is not a whole number of picoseconds (924 MHz).
  // At a 1 ps resolution (ps_res_) t.to_seconds() is value * 1000 fs * 1e-15:
  // the same product inline (same rounding, no library call).
  const double s = ps_res_ ? static_cast<double>(t.value()) * 1000.0 * 1e-15 : t.to_seconds();
  const double c = std::ceil(s * 1e12 / period_ps_ - 1e-3);
  return c > 0 ? static_cast<uint64_t>(c) : 0;
}

// cycle_of_ticks (mem_ctrl.h): cycle_of_double in integers, for a whole
// period P of ticks (period_ticks_): v = q P + r is ceil(q + r/P - 1e-3),
// i.e. q when r/P < 1e-3 (r = 0 included) and q + 1 when r/P > 1e-3. The
// double formula's rounding error stays below 1e-6 cycle for q < 2^32, so the
// integer answer is the same outside a band of +-(1e-6 + 1/(1000 P)) around
// r/P = 1e-3; inside it (and for huge q) the double formula answers.

uint64_t MemCtrl::cycle_of(const sc_time& t) const {
  return period_ticks_ ? cycle_of_ticks(t.value()) : cycle_of_double(t);
}

sc_time MemCtrl::time_of(uint64_t cycle) const {
  // A whole period: cycle x period ticks exactly (what the double product
  // below rounds to while it stays below 2^53).
  if (period_ticks_ && cycle < (1ull << 53) / period_ticks_) return ticks_time(cycle * period_ticks_);
  const double ps = static_cast<double>(cycle) * period_ps_;
  // At a 1 ps resolution sc_time(ps, SC_PS) is int64(ps + 0.5) ticks, which is
  // what the inline sc_time * double computes for one tick times ps.
  static const sc_time kTick = sc_time::from_value(1);
  return ps_res_ ? kTick * ps : sc_time(ps, SC_PS);
}

// ------------------------------------------------------------- transport

uint8_t MemCtrl::sectors_of(GpuExt* e, bool write) {
  if (!e) return 0xf;
  uint8_t m = e->sector_mask & 0xf;
  if (write)
    for (unsigned s = 0; s < kSectorsPerLine; ++s)
      if ((e->byte_mask[s >> 1] >> ((s & 1) * 32)) & 0xffffffffull) m |= static_cast<uint8_t>(1u << s);
  return m ? m : 0xf;
}

uint32_t MemCtrl::alloc_slot() {
  const uint32_t s = free_slot_;
  if (s != kNil) free_slot_ = slots_[s].next;
  return s;
}

bool MemCtrl::try_accept(unsigned port, tlm_generic_payload& gp, uint8_t mask, uint8_t cls, uint64_t at_ticks) {
  const bool write = gp.is_write();
  if (!write && !gp.is_read()) fatal("only read and write commands are supported");
  const unsigned n = atoms_of(mask);
  const unsigned q = write ? 1 : 0;
  const unsigned occ = (write ? mc_.wq_n : mc_.rq_n) + reserved_[q];
  if (occ + n > (write ? cfg_.write_queue : cfg_.read_queue) || free_slot_ == kNil) return false;
  const uint64_t addr = gp.get_address();
  const uint32_t si = alloc_slot();
  Slot& s = slots_[si];
  s.gp = &gp;
  s.port = port;
  s.mask = mask;
  s.atoms = static_cast<uint8_t>(n);
  s.write = write;
  s.cls = cls;
  s.row = 0;
  s.bytes = 0;
  if (gp.has_mm()) gp.acquire();
  ++inflight_;
  if (write) {  // functional: visible to every later read
    GpuExt* e = GpuExt::find(gp);
    uint64_t bm[2] = {0, 0};
    if (e) bm[0] = e->byte_mask[0], bm[1] = e->byte_mask[1];
    if (!bm[0] && !bm[1])  // no byte mask: the request's whole sectors
      for (unsigned k = 0; k < kSectorsPerLine; ++k)
        if ((mask >> k) & 1u) bm[k >> 1] |= 0xffffffffull << ((k & 1) * 32);
    if (bstore_write_masked(mem_, addr, gp.get_data_ptr(), bm) != 0) fatal("out of memory in the device store");
  }
  s.arrive_ps = at_ticks;
  enter(si, si, addr, mask, at_ticks);
  schedule();
  return true;
}

uint64_t MemCtrl::arrival_cycle(uint64_t at_ticks, bool* now) const {
  const uint64_t now_ticks = sim_now().value();
  uint64_t cyc, now_cyc;
  if (period_ticks_) {
    cyc = cycle_of_ticks(at_ticks);
    now_cyc = at_ticks == now_ticks ? cyc : cycle_of_ticks(now_ticks);
  } else {
    cyc = cycle_of(sc_time::from_value(at_ticks));
    now_cyc = cycle_of(sim_now());
  }
  *now = cyc <= now_cyc;
  return cyc;
}

void MemCtrl::enter(uint32_t si, uint64_t user, uint64_t line, uint8_t mask, uint64_t at_ticks) {
  const Slot& s = slots_[si];
  bool now;
  const uint64_t cyc = arrival_cycle(at_ticks, &now);
  if (now) {
    submit(line, mask, s.write, s.cls, user, cyc);
  } else {  // annotated delay reaches a later clock edge: hold it until then
    reserved_[s.write ? 1 : 0] += atoms_of(mask);
    Arrival a{cyc, user, line, mask};
    auto it = std::upper_bound(arrivals_.begin(), arrivals_.end(), a,
                               [](const Arrival& x, const Arrival& y) { return x.cycle < y.cycle; });
    arrivals_.insert(it, a);
  }
}

void MemCtrl::submit(uint64_t line, uint8_t mask, bool write, uint8_t cls, uint64_t user, uint64_t cycle) {
  if (mc_idle(&mc_)) {
    // The engine sleeps while idle; replay the refreshes it would have done.
    for (uint64_t e = mc_next_event(&mc_); e < cycle; e = mc_next_event(&mc_)) mc_advance(&mc_, e);
  }
  mc_addr a[kSectorsPerLine];
  unsigned n = 0;
  // `line`: a 128 B-aligned device address (the memory side chose it); one
  // column access per atom with an asked sector (atom_mask_), carrying the
  // bytes of its asked sectors (mc_addr.bytes: the engine's data bytes).
  if (sectors_per_atom_ == 1 && line_is_cols_) {  // 32 B atoms (HBM2, GDDR5): one whole atom per asked sector
    devaddr_loc l;
    devaddr_decode(&geom_, line, &l);
    for (unsigned k = 0; k < kSectorsPerLine; ++k)
      if ((mask >> k) & 1u) a[n++] = mc_addr{l.ra, l.bg, l.ba, l.col + k, l.row, 0};
    if (mc_submit_class(&mc_, cycle, write ? 1 : 0, a, n, user, cls != static_cast<uint8_t>(ReqClass::Demand)) != 0)
      fatal("engine refused an accepted request");
    return;
  }
  const uint8_t am = atom_mask_[mask & 0xf];
  const unsigned natoms = kLineBytes / dev_->atom_bytes, spa = sectors_per_atom_;
  const uint8_t atom_sectors = static_cast<uint8_t>((1u << spa) - 1u);
  auto data_bytes = [&](unsigned j) {
    return static_cast<uint32_t>(popcount8(static_cast<uint8_t>((mask >> (j * spa)) & atom_sectors)) * kSectorBytes);
  };
  if (line_is_cols_) {  // one decode per line: the atoms are consecutive columns of one row
    devaddr_loc l;
    devaddr_decode(&geom_, line, &l);
    for (unsigned j = 0; j < natoms; ++j)
      if ((am >> j) & 1u) a[n++] = mc_addr{l.ra, l.bg, l.ba, l.col + j, l.row, data_bytes(j)};
  } else {
    for (unsigned j = 0; j < natoms; ++j) {
      if (!((am >> j) & 1u)) continue;
      devaddr_loc l;
      devaddr_decode(&geom_, line + j * dev_->atom_bytes, &l);
      a[n++] = mc_addr{l.ra, l.bg, l.ba, l.col, l.row, data_bytes(j)};
    }
  }
  if (mc_submit_class(&mc_, cycle, write ? 1 : 0, a, n, user, cls != static_cast<uint8_t>(ReqClass::Demand)) != 0)
    fatal("engine refused an accepted request");
}

// ------------------------------------------------------------ span requests

// The child holding byte at_byte of span s: its 128 B line and the sectors of the span in it.
void MemCtrl::span_child(const Slot& s, uint64_t at_byte, uint64_t* line, uint8_t* mask) const {
  const uint64_t l = at_byte - at_byte % kLineBytes;
  const uint64_t from = std::max(l, s.addr), to = std::min(l + kLineBytes, s.addr + s.bytes);
  const unsigned first = static_cast<unsigned>((from - l) / kSectorBytes), n = static_cast<unsigned>((to - from) / kSectorBytes);
  *line = l;
  *mask = static_cast<uint8_t>(((1u << n) - 1u) << first);
}

uint8_t MemCtrl::span_next_atoms(tlm_generic_payload& gp, uint32_t si) const {
  Slot tmp;
  tmp.addr = gp.get_address();
  tmp.bytes = gp.get_data_length();
  const uint64_t at = tmp.addr + (si == kNil ? 0 : slots_[si].sent);
  uint64_t line;
  uint8_t mask;
  span_child(tmp, at, &line, &mask);
  return static_cast<uint8_t>(atoms_of(mask));
}

bool MemCtrl::accept_span(unsigned port, tlm_generic_payload& gp, uint8_t cls, uint64_t at, uint32_t* si, bool one) {
  const bool write = gp.is_write();
  if (!write && !gp.is_read()) fatal("only read and write commands are supported");
  const unsigned q = write ? 1 : 0, cap = write ? cfg_.write_queue : cfg_.read_queue;
  for (;;) {
    const unsigned n = span_next_atoms(gp, *si);
    if ((q ? mc_.wq_n : mc_.rq_n) + reserved_[q] + n > cap) return false;
    if (*si == kNil) {  // the first child: the request's slot; a write's bytes are stored now
      if (free_slot_ == kNil) return false;
      *si = alloc_slot();
      Slot& s = slots_[*si];
      s = Slot{};
      s.gp = &gp;
      s.port = port;
      s.write = write;
      s.cls = cls;
      s.addr = gp.get_address();
      s.bytes = gp.get_data_length();
      s.arrive_ps = at;
      if (gp.has_mm()) gp.acquire();
      ++inflight_;
      if (write && bstore_write(mem_, s.addr, gp.get_data_ptr(), s.bytes) != 0) fatal("out of memory in the device store");
    }
    Slot& s = slots_[*si];
    uint64_t line;
    uint8_t mask;
    span_child(s, s.addr + s.sent, &line, &mask);
    const uint64_t child = (line - (s.addr - s.addr % kLineBytes)) / kLineBytes;
    s.sent += popcount8(mask) * kSectorBytes;
    ++s.left;
    s.arr_sum += at;
    enter(*si, *si | (child << 32), line, mask, at);
    schedule();
    if (s.sent == s.bytes) return true;
    if (one) return false;
  }
}

bool MemCtrl::span_child_done(Slot& s, uint64_t user, uint64_t now_ps) {
  if (!s.write) {  // the child's bytes into the payload, at their offset from the span's address
    const uint64_t line = s.addr - s.addr % kLineBytes + (user >> 32) * kLineBytes;
    const uint64_t from = std::max(line, s.addr), to = std::min(line + kLineBytes, s.addr + s.bytes);
    bstore_read(mem_, from, s.gp->get_data_ptr() + (from - s.addr), to - from);
  }
  s.done_sum += now_ps;
  ++s.ndone;
  return --s.left == 0 && s.sent == s.bytes;
}

tlm_sync_enum MemCtrl::nb_transport_fw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const unsigned port = static_cast<unsigned>(id);
  if (ph == tlm::BEGIN_REQ) {
    Port& p = ports_[port];
    if (p.waiting) fatal("BEGIN_REQ on port " + std::to_string(port) + " before END_REQ of the previous request");
    const uint64_t at = sim_now().value() + d.value();  // absolute arrival time
    GpuExt* e = GpuExt::find(gp);
    const uint8_t cls = class_of(e, gp.is_write());
    const uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    const bool span = len != kLineBytes || addr % kLineBytes;
    uint8_t mask = 0;
    uint32_t si = kNil;
    if (span) {
      const unsigned g = kSectorBytes;  // whole sectors; a child's atoms follow from its sectors (atom_mask_)
      if (!len || len % g || addr % g || len > kMaxTransferBytes)
        fatal("request of " + std::to_string(len) + " B at device address " + std::to_string(addr) +
              ": expected a multiple of " + std::to_string(g) + " B up to " + std::to_string(kMaxTransferBytes) +
              " B at an address aligned to " + std::to_string(g) + " B");
      if (accept_span(port, gp, cls, at, &si)) {
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      }
    } else {
      mask = sectors_of(e, gp.is_write());
      if (try_accept(port, gp, mask, cls, at)) {
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      }
    }
    p.waiting = &gp;
    p.waiting_at = at;
    p.waiting_write = gp.is_write();
    p.waiting_mask = mask;
    p.waiting_atoms = static_cast<uint8_t>(span ? span_next_atoms(gp, si) : atoms_of(mask));
    p.waiting_cls = cls;
    p.waiting_span = span;
    p.waiting_slot = si;
    wait_order_.push_back(port);
    const unsigned q = p.waiting_write ? 1 : 0;
    if (nwait_[q]++ == 0) first_need_[q] = p.waiting_atoms;  // the oldest of its queue
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {
    Port& p = ports_[port];
    if (p.resp_busy == kNil || slots_[p.resp_busy].gp != &gp) fatal("END_RESP without an outstanding BEGIN_RESP");
    const uint32_t s = p.resp_busy;
    p.resp_busy = kNil;
    finish(s);
    if (p.resp_head != kNil) resp_ev_.notify(SC_ZERO_TIME);
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase on tsock");
}

void MemCtrl::accept_waiting_loop() {
  // Oldest first within reads and within writes: the first waiting request a
  // queue has no room for blocks the later ones of that queue. Once each
  // queue is blocked or has no waiting request left further on, nothing more
  // can be accepted (a BEGIN_REQ arriving meanwhile is appended behind).
  const unsigned cap[2] = {cfg_.read_queue, cfg_.write_queue};
  bool blocked[2] = {false, false};
  unsigned left[2] = {nwait_[0], nwait_[1]};  // waiting requests of each queue at positions >= i
  for (size_t i = 0; i < wait_order_.size();) {
    if ((blocked[0] || !left[0]) && (blocked[1] || !left[1])) break;
    const unsigned port = wait_order_[i];
    Port& p = ports_[port];
    tlm_generic_payload* gp = p.waiting;
    const unsigned q = p.waiting_write ? 1 : 0;
    --left[q];
    if (blocked[q]) {
      ++i;
      continue;
    }
    // Cheap pre-check (the same room test as try_accept): a queue still too
    // full for this request blocks it without building the request.
    const unsigned occ = (q ? mc_.wq_n : mc_.rq_n) + reserved_[q];
    if (occ + p.waiting_atoms > cap[q]) {
      blocked[q] = true;
      first_need_[q] = p.waiting_atoms;
      ++i;
      continue;
    }
    const uint64_t now = sim_now().value();
    const uint64_t at = p.waiting_at > now ? p.waiting_at : now;
    if (p.waiting_span) {
      // One child per turn, as the lines of a transfer sent one by one: the request goes to the back
      // of the waiting order after each child it queues, until its last.
      const uint32_t before = p.waiting_slot == kNil ? 0 : slots_[p.waiting_slot].sent;
      const bool all = accept_span(port, *gp, p.waiting_cls, at, &p.waiting_slot, true);
      const uint32_t after = p.waiting_slot == kNil ? 0 : slots_[p.waiting_slot].sent;
      if (!all) {
        if (after == before) {  // nothing fitted (a slot): blocked as a request would be
          blocked[q] = true;
          first_need_[q] = 0;
          ++i;
          continue;
        }
        p.waiting_atoms = span_next_atoms(*gp, p.waiting_slot);
        first_need_[q] = 0;  // the oldest of the queue may be another one now: try
        wait_order_.erase(wait_order_.begin() + static_cast<std::ptrdiff_t>(i));
        wait_order_.push_back(port);
        ++left[q];
        continue;
      }
    } else if (!try_accept(port, *gp, p.waiting_mask, p.waiting_cls, at)) {
      blocked[q] = true;
      first_need_[q] = 0;  // no free slot: not a matter of room, try again next time
      ++i;
      continue;
    }
    p.waiting = nullptr;
    p.waiting_span = false;
    p.waiting_slot = kNil;
    --nwait_[q];
    wait_order_.erase(wait_order_.begin() + static_cast<std::ptrdiff_t>(i));
    tlm_phase ph = tlm::END_REQ;
    sc_time d = SC_ZERO_TIME;
    const size_t before = wait_order_.size();
    tsock[port]->nb_transport_bw(*gp, ph, d);  // may re-enter nb_transport_fw with the next BEGIN_REQ
    if (wait_order_.size() != before) ++left[ports_[wait_order_.back()].waiting_write ? 1 : 0];  // appended
  }
}

// ---------------------------------------------------------- timing check

void MemCtrl::on_cmd(void* ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                     uint32_t col) {
  MemCtrl* self = static_cast<MemCtrl*>(ctx);
  if (self->tc_on_) {
    tcheck_cmd(&self->tc_, cycle, cmd, rank, bg, bank, row, col);
    if (self->tc_.violations) self->timing_failed();
  }
  if (self->log_fn_) self->log_fn_(self->log_ctx_, cycle, cmd, rank, bg, bank, row, col);
}

void MemCtrl::timing_failed() const {
  std::fprintf(stderr, "strata: timing check failed: mem.ch%u (%s, checked against %s): %s\n", ch_, cfg_.device.c_str(),
               tc_.dev->name, tcheck_error(&tc_));
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(3);
}

void MemCtrl::finish_timing_check() {
  // Replay the refreshes of an idle engine up to now, checker on or off, so
  // the per-channel counters written afterwards are the same either way.
  counters();
  if (!tc_on_) return;
  tcheck_finish(&tc_, cycle_of(sc_core::sc_time_stamp()));
  if (tc_.violations) timing_failed();
}

// ------------------------------------------------------------- responses

void MemCtrl::on_done(void* ctx, uint64_t user, int, uint64_t) {
  MemCtrl* self = static_cast<MemCtrl*>(ctx);
  Slot& s = self->slots_[static_cast<uint32_t>(user)];
  if (self->mc_.done_row > s.row) s.row = self->mc_.done_row;
  self->done_.push_back(user);  // capacity reserved: never allocates
}

void MemCtrl::send_response(uint32_t si) {
  Slot& s = slots_[si];
  Port& p = ports_[s.port];
  if (p.resp_busy != kNil || p.resp_head != kNil) {  // keep per-port order behind a held response
    s.next = kNil;
    if (p.resp_tail != kNil) slots_[p.resp_tail].next = si; else p.resp_head = si;
    p.resp_tail = si;
    return;
  }
  begin_response(si);
}

// BEGIN_RESP of slot si to its port, whose previous response is over.
void MemCtrl::begin_response(uint32_t si) {
  Slot& s = slots_[si];
  Port& p = ports_[s.port];
  tlm_phase ph = tlm::BEGIN_RESP;
  sc_time d = SC_ZERO_TIME;
  const tlm_sync_enum r = tsock[s.port]->nb_transport_bw(*s.gp, ph, d);
  if (r == tlm::TLM_ACCEPTED || (r == tlm::TLM_UPDATED && ph == tlm::BEGIN_RESP)) p.resp_busy = si;
  else finish(si);
}

void MemCtrl::finish(uint32_t si) {
  Slot& s = slots_[si];
  if (s.gp->has_mm()) s.gp->release();
  s.gp = nullptr;
  s.next = free_slot_;
  free_slot_ = si;
  --inflight_;
}

void MemCtrl::resp_process() {
  for (Port& p : ports_) {
    while (p.resp_busy == kNil && p.resp_head != kNil) {
      const uint32_t si = p.resp_head;
      p.resp_head = slots_[si].next;
      if (p.resp_head == kNil) p.resp_tail = kNil;
      begin_response(si);  // the queue's head itself (send_response would queue it behind the rest again)
    }
  }
  accept_waiting();  // finished slots may unblock waiting requests
}

// ------------------------------------------------------------- scheduling

void MemCtrl::process() {
  pending_ = MC_NEVER;  // ev_ fired: no notification pending any more
  const uint64_t now_ps = static_cast<uint64_t>(sim_now().value());
  const uint64_t now = period_ticks_ ? cycle_of_ticks(now_ps) : cycle_of(sim_now());
  size_t k = 0;
  while (k < arrivals_.size() && arrivals_[k].cycle <= now) {
    const Arrival& a = arrivals_[k];
    const Slot& s = slots_[static_cast<uint32_t>(a.user)];
    reserved_[s.write ? 1 : 0] -= atoms_of(a.mask);
    submit(a.line, a.mask, s.write, s.cls, a.user, a.cycle);
    ++k;
  }
  if (k) arrivals_.erase(arrivals_.begin(), arrivals_.begin() + static_cast<std::ptrdiff_t>(k));
  // mc_advance before the engine's next event is a no-op (mc.h): skip it when
  // this wake-up was for an earlier prediction that no longer holds.
  if (k || mc_next_event_fast(&mc_) <= now) mc_advance(&mc_, now);
  for (size_t i = 0; i < done_.size(); ++i) {  // done_ only grows inside mc_advance
    const uint32_t si = static_cast<uint32_t>(done_[i]);
    Slot& s = slots_[si];
    tlm_generic_payload& gp = *s.gp;
    if (s.bytes) {  // a span's child: the span is answered with its last
      if (!span_child_done(s, done_[i], now_ps)) continue;
      if (!s.write) {
        lat_ps_sum_ += s.done_sum - s.arr_sum;
        lat_count_ += s.ndone;
      }
    } else if (!s.write) {
      unsigned char* p = gp.get_data_ptr();
      const uint64_t line = gp.get_address();
      if (s.mask == (1u << kSectorsPerLine) - 1u) {  // whole line: one copy
        bstore_read(mem_, line, p, kLineBytes);
      } else {
        for (unsigned j = 0; j < kSectorsPerLine; ++j)
          if ((s.mask >> j) & 1u) bstore_read(mem_, line + j * kSectorBytes, p + j * kSectorBytes, kSectorBytes);
      }
      lat_ps_sum_ += now_ps - s.arrive_ps;
      ++lat_count_;
    }
    // Per class; the device's feedback on the response (GpuExt::row, dev_latency_ps).
    const uint64_t lat = now_ps - s.arrive_ps;
    ClassCount& c = cls_[s.cls & (kClasses - 1)];
    ++(s.write ? c.writes : c.reads);
    c.bytes += s.bytes ? s.bytes : static_cast<uint64_t>(popcount8(s.mask)) * kSectorBytes;
    c.lat_ps += lat;
    ++c.row[s.row < 3 ? s.row : 2];
    if (GpuExt* e = GpuExt::find(gp)) {
      e->row = s.row;
      e->dev_latency_ps = lat > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(lat);
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    answer_.push_back(si);
  }
  for (size_t i = 0; i < answer_.size(); ++i) send_response(answer_[i]);
  answer_.clear();
  done_.clear();
  accept_waiting();
  if (now >= util_next_) util_snapshot(now);
  schedule();
}

// ---------------------------------------------------------- utilisation

void MemCtrl::util_snapshot(uint64_t cycle) {
  util_[util_head_] = UtilSnap{cycle, mc_.st.bus_busy};
  util_head_ = (util_head_ + 1) % kUtilSnaps;
  if (util_n_ < kUtilSnaps) ++util_n_;
  util_next_ = cycle - cycle % kUtilStep + kUtilStep;
}

uint32_t MemCtrl::bus_util_q16(uint64_t window_ps) {
  const uint64_t now = cycle_of(sc_core::sc_time_stamp());
  const uint64_t win = static_cast<uint64_t>(static_cast<double>(window_ps) / period_ps_);
  const uint64_t from = now > win ? now - win : 0;
  // The newest snapshot at or before `from`, else the oldest kept (none yet: the run's start).
  UtilSnap base{0, 0};
  for (unsigned k = 0; k < util_n_; ++k) {
    const UtilSnap& u = util_[(util_head_ + kUtilSnaps - 1 - k) % kUtilSnaps];
    base = u;
    if (u.cycle <= from) break;
  }
  if (now <= base.cycle) return 0;
  const uint64_t busy = mc_.st.bus_busy - base.busy, span = now - base.cycle;
  return busy >= span ? 65536u : static_cast<uint32_t>((busy << 16) / span);
}

void MemCtrl::schedule() {
  uint64_t next = MC_NEVER;
  if (!mc_idle_fast(&mc_)) next = mc_next_event_fast(&mc_);  // an idle engine's refreshes are replayed on the next arrival
  if (!arrivals_.empty()) next = std::min(next, arrivals_.front().cycle);
  // SystemC keeps only the earliest pending notification of an event, so a
  // request for the same or a later cycle than the pending one changes nothing.
  if (next == MC_NEVER || next >= pending_) return;
  pending_ = next;
  const uint64_t now = sim_now().value();
  // time_of(next) in ticks (a past edge: the next delta cycle, as notify(0))
  const uint64_t t = period_ticks_ && next < (1ull << 53) / period_ticks_ ? next * period_ticks_ : time_of(next).value();
  ev_.notify_at(t > now ? t : now, now);
}

// ------------------------------------------------------------- back doors

// Functional access without timing (debug / fast-forward): reads see every
// accepted write, writes update the device contents.
unsigned MemCtrl::transport_dbg(int, tlm_generic_payload& gp) {
  const unsigned len = gp.get_data_length();
  if (gp.is_read()) bstore_read(mem_, gp.get_address(), gp.get_data_ptr(), len);
  else if (gp.is_write()) {
    if (bstore_write(mem_, gp.get_address(), gp.get_data_ptr(), len) != 0) return 0;
  }
  return len;
}

void MemCtrl::b_transport(int id, tlm_generic_payload& gp, sc_time&) {
  transport_dbg(id, gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ------------------------------------------------------------------ stats

const mc_stats& MemCtrl::counters() {
  const uint64_t now = cycle_of(sc_core::sc_time_stamp());
  if (mc_idle(&mc_))  // bring the sleeping engine's refreshes up to date
    for (uint64_t e = mc_next_event(&mc_); e < now; e = mc_next_event(&mc_)) mc_advance(&mc_, e);
  return *mc_get_stats(&mc_, now);
}

mc_energy_j MemCtrl::energy() {
  counters();
  mc_energy_j e;
  mc_energy(&mc_, cycle_of(sc_core::sc_time_stamp()), &e);
  if (bg_src_)  // rows gated by the memory-side policy: its background energy replaces the rank's
    for (unsigned r = 0; r < cfg_.ranks; ++r) {
      const double b = bg_src_(r);
      if (b < 0) continue;
      mc_energy_j re;
      mc_rank_energy(&mc_, r, cycle_of(sc_core::sc_time_stamp()), &re);
      e.bg += b - re.bg;
      e.total += b - re.bg;
    }
  return e;
}

mc_energy_j MemCtrl::rank_energy(unsigned rank) {
  counters();
  mc_energy_j e;
  mc_rank_energy(&mc_, rank, cycle_of(sc_core::sc_time_stamp()), &e);
  if (bg_src_) {
    const double b = bg_src_(rank);
    if (b >= 0) {
      e.total += b - e.bg;
      e.bg = b;
    }
  }
  return e;
}

mc_power MemCtrl::rank_power(unsigned rank) {
  counters();
  mc_power p;
  mc_rank_power(&mc_, rank, cycle_of(sc_core::sc_time_stamp()), &p);
  return p;
}

void MemCtrl::register_stats(StatsRegistry& S) {
  const std::string p = "mem.ch" + std::to_string(ch_);
  const mc_stats& st = mc_.st;
  S.counter(join(p, "reads"), "read requests (128 B line requests with a sector mask) completed", Unit::Count, &st.reads);
  S.counter(join(p, "writes"), "write requests completed", Unit::Count, &st.writes);
  S.counter(join(p, "read_atoms"), "column reads issued (atoms: the device's bytes per column access, 32 B or 64 B)", Unit::Count, &st.rd_atoms);
  S.counter(join(p, "write_atoms"), "column writes issued (atoms: the device's bytes per column access, 32 B or 64 B)", Unit::Count, &st.wr_atoms);
  S.counter(join(p, "read_bytes"),
            "bytes read from the device for the requests (their sectors; a 64 B burst for one 32 B sector counts 32)",
            Unit::Byte, &st.rd_bytes);
  S.counter(join(p, "write_bytes"), "bytes written to the device for the requests (their sectors, as read_bytes)",
            Unit::Byte, &st.wr_bytes);
  S.counter(join(p, "row_hits"), "column accesses to an already open row", Unit::Count, &st.row_hits);
  S.counter(join(p, "row_misses"), "column accesses that needed an ACT on an idle bank", Unit::Count, &st.row_misses);
  S.counter(join(p, "row_conflicts"), "column accesses that needed PRE of another row + ACT", Unit::Count,
            &st.row_conflicts);
  S.counter(join(p, "activations"), "ACT commands", Unit::Count, &st.acts);
  S.counter(join(p, "precharges"), "PRE commands", Unit::Count, &st.pres);
  S.counter(join(p, "dirty_precharges"),
            "PRE commands closing a row buffer that was written (NVM/SCM: after tWR, the array write; write_atoms / "
            "dirty_precharges = writes per written row)",
            Unit::Count, &st.pres_dirty);
  S.counter(join(p, "refreshes"), "all-bank REF commands", Unit::Count, &st.refs);
  S.counter(join(p, "write_drains"), "switches from read to write mode", Unit::Count, &st.write_drains);
  S.counter(join(p, "timing_checked_commands"), "commands checked by the timing checker (0 when mem.timing_check is off)",
            Unit::Count, &tc_.checked);
  // Rates, averages and shares: ratios of cumulative readings (common/stats.h), so that a
  // measurement window (sim.warmup_instructions) covers them too.
  auto secs = [] { return sc_core::sc_time_stamp().to_seconds(); };
  auto cycles = [this] { return static_cast<double>(cycle_of(sc_core::sc_time_stamp())); };
  S.ratio(join(p, "row_hit_rate"), "row hits / column accesses", Unit::Ratio,
          [&st] { return static_cast<double>(st.row_hits); },
          [&st] { return static_cast<double>(st.rd_atoms + st.wr_atoms); });
  S.ratio(join(p, "avg_read_latency_ns"), "read request arrival to last data beat", Unit::Nanosecond,
          [this] { return static_cast<double>(lat_ps_sum_); }, [this] { return static_cast<double>(lat_count_); },
          1e-3);
  S.ratio(join(p, "bandwidth_gbps"), "(read + write bytes) / simulated time", Unit::GigabytePerSecond,
          [&st] { return static_cast<double>(st.rd_bytes + st.wr_bytes); }, secs, 1e-9);
  S.ratio(join(p, "bus_utilization"), "data-bus cycles carrying data / elapsed memory cycles", Unit::Ratio,
          [this] { return static_cast<double>(mc_.st.bus_busy); }, cycles);
  S.ratio(join(p, "rq_avg_occupancy"), "time-averaged read queue occupancy (atom entries: one column access each)", Unit::Count,
          [this] { return static_cast<double>(counters().rq_occ_sum); }, cycles);
  S.ratio(join(p, "wq_avg_occupancy"), "time-averaged write queue occupancy (atom entries: one column access each)", Unit::Count,
          [this] { return static_cast<double>(counters().wq_occ_sum); }, cycles);
  S.formula(join(p, "energy_j"), "device energy: act + pre + rd + wr + ref + background", Unit::Joule,
            [this] { return energy().total; });
  S.formula(join(p, "energy.act_j"), "activation energy", Unit::Joule, [this] { return energy().act; });
  S.formula(join(p, "energy.pre_j"), "precharge energy", Unit::Joule, [this] { return energy().pre; });
  S.formula(join(p, "energy.rd_j"), "column read energy (array + I/O)", Unit::Joule, [this] { return energy().rd; });
  S.formula(join(p, "energy.wr_j"), "column write energy (array + I/O)", Unit::Joule, [this] { return energy().wr; });
  S.formula(join(p, "energy.ref_j"), "refresh energy", Unit::Joule, [this] { return energy().ref; });
  S.formula(join(p, "energy.bg_j"), "background energy: power of each rank's power state x time in it", Unit::Joule,
            [this] { return energy().bg; });
  S.ratio(join(p, "power_w"), "average device power: energy_j / simulated time", Unit::Watt,
          [this] { return energy().total; }, secs);
  S.counter(join(p, "powerdowns"), "precharge power-down periods ended (exits, each paying tXP)", Unit::Count,
            &st.powerdowns);
  S.counter(join(p, "gate_wakeups"), "NVM power-gated periods ended (wake-ups, each paying tWAKE)", Unit::Count,
            &st.gate_wakeups);
  for (unsigned r = 0; r < cfg_.ranks; ++r) {
    const std::string q = p + ".rank" + std::to_string(r);
    if (!rank_dev_.empty()) {  // mixed channel: which device each rank is, and its traffic
      const dram_preset& d = rank_device(r);
      const mc_rank_* R = &mc_.ranks[r];
      S.value(join(q, std::string("device.") + d.name),  // Level: a property
              std::string("1: rank ") + std::to_string(r) + " is " + d.desc + " (" + dram_kind_name(dram_mem_kind(&d)) +
                  ")",
              Unit::Count, &kOne);
      S.counter(join(q, "read_atoms"), "column reads (atoms) issued to the rank", Unit::Count, &R->n_rd);
      S.counter(join(q, "write_atoms"), "column writes (atoms) issued to the rank", Unit::Count, &R->n_wr);
      S.counter(join(q, "activations"), "ACT commands to the rank", Unit::Count, &R->n_act);
      S.counter(join(q, "dirty_precharges"), "PRE commands to the rank closing a written row buffer", Unit::Count,
                &R->n_pre_dirty);
    }
    using E = double mc_energy_j::*;
    const struct { const char* n; E f; const char* d; } es[] = {
        {"energy.act_j", &mc_energy_j::act, "activation energy"},
        {"energy.pre_j", &mc_energy_j::pre, "precharge energy"},
        {"energy.rd_j", &mc_energy_j::rd, "column read energy (array + I/O)"},
        {"energy.wr_j", &mc_energy_j::wr, "column write energy (array + I/O)"},
        {"energy.ref_j", &mc_energy_j::ref, "refresh energy"},
        {"energy.bg_j", &mc_energy_j::bg, "background energy (power state x time)"},
        {"energy_j", &mc_energy_j::total, "rank energy: act + pre + rd + wr + ref + background"},
    };
    for (const auto& e : es) {
      const E f = e.f;
      S.formula(join(q, e.n), e.d, Unit::Joule, [this, r, f] { return rank_energy(r).*f; });
    }
    using P = uint64_t mc_power::*;
    const struct { const char* n; P f; const char* d; Unit u; } ps[] = {
        {"act_standby_cycles", &mc_power::act_standby, "memory cycles with some bank open", Unit::Cycle},
        {"pre_standby_cycles", &mc_power::pre_standby, "memory cycles with all banks closed, clock enabled", Unit::Cycle},
        {"power_down_cycles", &mc_power::power_down, "memory cycles in precharge power-down", Unit::Cycle},
        {"gated_cycles", &mc_power::gated, "memory cycles power-gated (NVM)", Unit::Cycle},
        {"powerdowns", &mc_power::powerdowns, "precharge power-down exits", Unit::Count},
        {"gate_wakeups", &mc_power::gate_wakeups, "power-gating wake-ups", Unit::Count},
    };
    for (const auto& e : ps) {
      const P f = e.f;
      S.formula(join(q, e.n), e.d, e.u, [this, r, f] { return static_cast<double>(rank_power(r).*f); });
    }
  }
}

void MemCtrl::register_probes(ProbeRegistry& P, const std::vector<MemCtrl*>& mcs) {
  for (MemCtrl* m : mcs) {
    const std::string c = "mem.ch" + std::to_string(m->ch_) + ".";
    P.rate(c + "bandwidth_gbps", "GB/s", [m] { return m->bytes_transferred(); }, 1e-9);
    P.level(c + "read_queue", "entries", [m] { return static_cast<double>(m->read_queue_occupancy()); });
    P.level(c + "write_queue", "entries", [m] { return static_cast<double>(m->write_queue_occupancy()); });
  }
}

void MemCtrl::register_totals(StatsRegistry& S, const std::vector<MemCtrl*>& mcs) {
  auto sum = [mcs](uint64_t mc_stats::*f) {
    uint64_t v = 0;
    for (MemCtrl* m : mcs) v += m->mc_.st.*f;
    return static_cast<double>(v);
  };
  S.formula("mem.reads", "read requests completed, all channels", Unit::Count,
            [sum] { return sum(&mc_stats::reads); });
  S.formula("mem.writes", "write requests completed, all channels", Unit::Count,
            [sum] { return sum(&mc_stats::writes); });
  S.formula("mem.read_bytes", "bytes read, all channels", Unit::Byte, [sum] { return sum(&mc_stats::rd_bytes); });
  S.formula("mem.write_bytes", "bytes written, all channels", Unit::Byte, [sum] { return sum(&mc_stats::wr_bytes); });
  S.formula("mem.activations", "ACT commands, all channels", Unit::Count, [sum] { return sum(&mc_stats::acts); });
  S.formula("mem.dirty_precharges", "PRE commands closing a written row buffer, all channels", Unit::Count,
            [sum] { return sum(&mc_stats::pres_dirty); });
  S.formula("mem.refreshes", "REF commands, all channels", Unit::Count, [mcs] {
    double v = 0;
    for (MemCtrl* m : mcs) v += static_cast<double>(m->counters().refs);
    return v;
  });
  S.formula("mem.timing_checked_commands", "DRAM/NVM commands checked by the timing checker, all channels",
            Unit::Count, [mcs] {
              double v = 0;
              for (MemCtrl* m : mcs) v += static_cast<double>(m->tc_.checked);
              return v;
            });
  auto secs = [] { return sc_core::sc_time_stamp().to_seconds(); };
  S.ratio("mem.bandwidth_gbps", "(read + write bytes) / simulated seconds / 1e9", Unit::GigabytePerSecond,
          [sum] { return sum(&mc_stats::rd_bytes) + sum(&mc_stats::wr_bytes); }, secs, 1e-9);
  S.level("mem.peak_bandwidth_gbps", "channels x bus bytes x data rate x clock", Unit::GigabytePerSecond, [mcs] {
    double v = 0;
    for (MemCtrl* m : mcs) v += dram_peak_bytes_per_s(m->dev_);
    return v / 1e9;
  });
  S.ratio(
      "mem.avg_read_latency_ns", "read request arrival at the controller to last data beat", Unit::Nanosecond,
      [mcs] {
        double ps = 0;
        for (MemCtrl* m : mcs) ps += static_cast<double>(m->lat_ps_sum_);
        return ps;
      },
      [mcs] {
        double n = 0;
        for (MemCtrl* m : mcs) n += static_cast<double>(m->lat_count_);
        return n;
      },
      1e-3);
  S.ratio("mem.row_hit_rate", "row hits / column accesses, all channels", Unit::Ratio,
          [sum] { return sum(&mc_stats::row_hits); },
          [sum] { return sum(&mc_stats::rd_atoms) + sum(&mc_stats::wr_atoms); });
  S.formula("mem.energy_j", "memory device energy, all channels", Unit::Joule, [mcs] {
    double v = 0;
    for (MemCtrl* m : mcs) v += m->energy().total;
    return v;
  });
  using E = double mc_energy_j::*;
  const struct { const char* n; E f; const char* d; } es[] = {
      {"mem.energy.act_j", &mc_energy_j::act, "activation energy, all channels"},
      {"mem.energy.pre_j", &mc_energy_j::pre, "precharge energy, all channels"},
      {"mem.energy.rd_j", &mc_energy_j::rd, "column read energy, all channels"},
      {"mem.energy.wr_j", &mc_energy_j::wr, "column write energy, all channels"},
      {"mem.energy.ref_j", &mc_energy_j::ref, "refresh energy, all channels"},
      {"mem.energy.bg_j", &mc_energy_j::bg, "background (power-state) energy, all channels"},
  };
  for (const auto& e : es) {
    const E f = e.f;
    S.formula(e.n, e.d, Unit::Joule, [mcs, f] {
      double v = 0;
      for (MemCtrl* m : mcs) v += m->energy().*f;
      return v;
    });
  }
  S.ratio(
      "mem.power_w", "average memory device power: mem.energy_j / simulated time", Unit::Watt,
      [mcs] {
        double v = 0;
        for (MemCtrl* m : mcs) v += m->energy().total;
        return v;
      },
      secs);
  // The off-chip I/O share of the column energy (each rank's preset io_pj_bit per bit moved, inside
  // energy.rd_j / wr_j; mem.io_model = pod makes it POD termination): hybrid graphics memory Sec. 5.1.
  bool io = false;
  for (MemCtrl* m : mcs)
    for (unsigned r = 0; r < m->cfg_.ranks; ++r) io = io || m->rank_device(r).e.io_pj_bit > 0;
  if (io) {
    const auto io_j = [mcs] {
      double v = 0;
      for (MemCtrl* m : mcs)
        for (unsigned r = 0; r < m->cfg_.ranks; ++r)
          v += static_cast<double>(m->mc_.ranks[r].rd_bytes + m->mc_.ranks[r].wr_bytes) * 8.0 *
               m->rank_device(r).e.io_pj_bit * 1e-12;
      return v;
    };
    S.formula("mem.io.energy_j", "off-chip I/O energy of the data bursts, all channels (part of mem.energy.rd_j "
              "and wr_j: the presets' io_pj_bit, or POD termination with mem.io_model = pod)", Unit::Joule, io_j);
    S.ratio("mem.io.power_w", "average off-chip I/O power: mem.io.energy_j / simulated time", Unit::Watt, io_j, secs);
  }
  S.formula("mem.powerdowns", "precharge power-down exits, all channels", Unit::Count,
            [sum] { return sum(&mc_stats::powerdowns); });
  // Mixed technologies: traffic and energy by memory kind (the ranks of each kind, all channels).
  bool mixed = false, kinds[3] = {false, false, false};
  for (MemCtrl* m : mcs) {
    mixed |= !m->rank_dev_.empty();
    for (uint8_t k : m->rank_kind_) kinds[k] = true;
  }
  for (unsigned k = 0; mixed && k < 3; ++k) {
    if (!kinds[k]) continue;
    const std::string p = std::string("mem.") + dram_kind_name(k);
    auto per_rank = [mcs, k](auto f) {
      double v = 0;
      for (MemCtrl* m : mcs)
        for (unsigned r = 0; r < m->cfg_.ranks; ++r)
          if (m->rank_kind_[r] == k) v += f(m, r);
      return v;
    };
    const auto rd = [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return static_cast<double>(m->mc_.ranks[r].rd_bytes); });
    };
    const auto wr = [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return static_cast<double>(m->mc_.ranks[r].wr_bytes); });
    };
    S.formula(join(p, "read_bytes"), std::string("bytes read from the ") + dram_kind_name(k) + " ranks", Unit::Byte, rd);
    S.formula(join(p, "write_bytes"), std::string("bytes written to the ") + dram_kind_name(k) + " ranks", Unit::Byte, wr);
    if (std::string(dram_kind_name(k)) == "scm") {  // the names of the HMS experiment (issue 16)
      S.formula("scm.read_bytes", "bytes read from the SCM ranks (= mem.scm.read_bytes)", Unit::Byte, rd);
      S.formula("scm.write_bytes", "bytes written to the SCM ranks (= mem.scm.write_bytes)", Unit::Byte, wr);
    }
    S.formula(join(p, "energy_j"), std::string("energy of the ") + dram_kind_name(k) + " ranks (each its own preset)",
              Unit::Joule, [per_rank] { return per_rank([](MemCtrl* m, unsigned r) { return m->rank_energy(r).total; }); });
    S.ratio(join(p, "power_w"), std::string("average power of the ") + dram_kind_name(k) + " ranks: energy_j / simulated time",
            Unit::Watt, [per_rank] { return per_rank([](MemCtrl* m, unsigned r) { return m->rank_energy(r).total; }); },
            secs);
  }
  S.formula("mem.gate_wakeups", "NVM power-gating wake-ups, all channels", Unit::Count,
            [sum] { return sum(&mc_stats::gate_wakeups); });
  // By request class (ReqClass; class_of): the L2's reads are demand, its writes write-back, a memory-side
  // policy's own transfers count by their class.
  static const char* const kNames[kClasses] = {"demand", "writeback", "fill", "migration",
                                               "probe", "offload", "page_in", "page_out"};
  for (unsigned c = 0; c < kClasses; ++c) {
    auto csum = [mcs, c](uint64_t ClassCount::*f) {
      return [mcs, c, f] {
        double v = 0;
        for (MemCtrl* m : mcs) v += static_cast<double>(m->cls_[c].*f);
        return v;
      };
    };
    const std::string p = std::string("mem.class.") + kNames[c] + ".";
    const std::string what = std::string(kNames[c]) + " requests";
    S.formula(p + "reads", "read " + what + " completed, all channels", Unit::Count, csum(&ClassCount::reads));
    S.formula(p + "writes", "write " + what + " completed, all channels", Unit::Count, csum(&ClassCount::writes));
    S.formula(p + "bytes", "bytes of " + what + " (read + written), all channels", Unit::Byte, csum(&ClassCount::bytes));
    static const char* const kRow[3] = {"row_hits", "row_misses", "row_conflicts"};
    static const char* const kRowWhat[3] = {"whose column accesses all hit an open row",
                                            "that opened a row in an idle bank (the worst of their column accesses)",
                                            "that closed another row first (the worst of their column accesses)"};
    for (unsigned r = 0; r < 3; ++r)
      S.formula(p + kRow[r], what + " " + kRowWhat[r] + ", all channels", Unit::Count, [mcs, c, r] {
        double v = 0;
        for (MemCtrl* m : mcs) v += static_cast<double>(m->cls_[c].row[r]);
        return v;
      });
    S.ratio(p + "avg_latency_ns", what + ": arrival at the controller to completion (reads: last data beat; writes: "
            "data sent), all channels", Unit::Nanosecond, csum(&ClassCount::lat_ps), [mcs, c] {
              double v = 0;
              for (MemCtrl* m : mcs) v += static_cast<double>(m->cls_[c].reads + m->cls_[c].writes);
              return v;
            }, 1e-3);
  }
  // The share of the L2's write-back bytes that DRAM took (hybrid DRAM+PCM paper Sec. VII-I: "pc-hw redirects
  // 29% write traffic to DRAM, and pc-sw redirects 86.4%, while co-design redirects 98.4%"), for every design
  // alike: a migration policy's redirected write-backs and a placement engine's DRAM arrays both count. Defined
  // where each channel is of one kind (the hybrid DRAM+PCM partition's DRAM and PCM channels, the pure designs),
  // read from the per-class counters when stats are written.
  // A pure-DRAM memory has 1 (the baseline the paper's shares are read against), a pure-PCM one 0.
  bool per_channel = !mcs.empty();
  for (MemCtrl* m : mcs)
    for (uint8_t k : m->rank_kind_)
      per_channel = per_channel && k == m->rank_kind_[0] && (k == AMAP_MEM_DRAM || k == AMAP_MEM_NVM);
  if (per_channel) {
    constexpr unsigned wb = static_cast<unsigned>(ReqClass::Writeback);
    auto wb_bytes = [mcs](bool dram_only) {
      return [mcs, dram_only] {
        double v = 0;
        for (MemCtrl* m : mcs)
          if (!dram_only || m->rank_kind_[0] == AMAP_MEM_DRAM) v += static_cast<double>(m->cls_[wb].bytes);
        return v;
      };
    };
    S.ratio("mem.dram_write_share", "share of the L2's write-back bytes written to DRAM channels (hybrid DRAM+PCM "
            "Sec. VII-I: write traffic redirected to DRAM)", Unit::Ratio, wb_bytes(true), wb_bytes(false));
  }
  if (mixed) register_tech_totals(S, mcs);
}

void MemCtrl::register_tech_totals(StatsRegistry& S, const std::vector<MemCtrl*>& mcs) {
  // Traffic and energy by device technology (dram.h tech_id: the DRAM families, PCM, STT-RAM, RRAM,
  // SCM SLC/MLC/TLC), beside the kind stats: mem.<technology>.*, the ranks of each technology over all
  // channels. Read from the per-rank counters when stats are written: nothing on the request path.
  bool present[DRAM_TID_COUNT] = {};
  for (MemCtrl* m : mcs)
    for (unsigned r = 0; r < m->cfg_.ranks; ++r) present[m->rank_device(r).tech_id] = true;
  for (unsigned t = 0; t < DRAM_TID_COUNT; ++t) {
    if (!present[t]) continue;
    const std::string tn = dram_tech_id_name(t), p = "mem." + tn;
    auto per_rank = [mcs, t](auto f) {
      double v = 0;
      for (MemCtrl* m : mcs)
        for (unsigned r = 0; r < m->cfg_.ranks; ++r)
          if (m->rank_device(r).tech_id == t) v += f(m, r);
      return v;
    };
    const auto energy = [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return m->rank_energy(r).total; });
    };
    S.formula(join(p, "read_bytes"), "bytes read from the " + tn + " ranks", Unit::Byte, [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return static_cast<double>(m->mc_.ranks[r].rd_bytes); });
    });
    S.formula(join(p, "write_bytes"), "bytes written to the " + tn + " ranks", Unit::Byte, [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return static_cast<double>(m->mc_.ranks[r].wr_bytes); });
    });
    S.formula(join(p, "activations"), "ACT commands to the " + tn + " ranks", Unit::Count, [per_rank] {
      return per_rank([](MemCtrl* m, unsigned r) { return static_cast<double>(m->mc_.ranks[r].n_act); });
    });
    S.formula(join(p, "energy_j"), "energy of the " + tn + " ranks", Unit::Joule, energy);
    S.ratio(join(p, "power_w"), "average power of the " + tn + " ranks: energy_j / simulated time", Unit::Watt,
            energy, [] { return sc_core::sc_time_stamp().to_seconds(); });
  }
}

}  // namespace strata
