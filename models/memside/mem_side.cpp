// MemSide implementation; see mem_side.h and docs/architecture.md.
#include "memside/mem_side.h"
#include "memside/um_driver.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace strata {

static_assert(MEMSIDE_XFER_MAX <= kMaxTransferBytes, "a policy transfer fits one payload");

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

MemSide::MemSide(sc_core::sc_module_name name, const memside_ops* ops, const memside_cfg& cfg, unsigned upstream,
                 PayloadPool& pool, StatsRegistry& stats)
    : sc_module(name), tsock("tsock"), isock("isock"), ops_(ops), cfg_(cfg), pool_(pool), up_(upstream) {
  if (!ops_) throw std::invalid_argument("memside.policy: no policy");
  if (cfg_.ndevs == 0 || cfg_.ndevs > MEMSIDE_MAX_DEVS)
    throw std::invalid_argument("memside: a partition needs 1.." + std::to_string(MEMSIDE_MAX_DEVS) + " devices");
  env_.ctx = this;
  env_.issue = &MemSide::env_issue;
  env_.release = &MemSide::env_release;
  env_.now_ps = &MemSide::env_now_ps;
  env_.wake = &MemSide::env_wake;
  env_.unwake = &MemSide::env_unwake;
  env_.dev_util = &MemSide::env_dev_util;
  wakes_.reserve(MEMSIDE_WAKE_SLOTS);
  ndev_ = cfg_.ndevs;
  dev_arrive_.assign(cfg_.ndevs, 0);
  {
    const uint64_t t = sc_time(1, sc_core::SC_PS).value();
    if (t == 0) throw std::invalid_argument("memside: needs a time resolution of 1 ps or finer");
    tick_per_ps_ = t;
  }
  st_.reset(static_cast<unsigned char*>(std::calloc(std::max<size_t>(ops_->state_bytes(&cfg_), 1), 1)));
  if (!st_) throw std::bad_alloc();
  char err[256] = "";
  if (ops_->init(st_.get(), &cfg_, &env_, err, sizeof err) != 0) throw std::invalid_argument(err);
  if (const uint32_t g = ops_->granule ? ops_->granule(st_.get()) : 0; g && g != kLineBytes) {
    if (g != kSectorBytes && g != 2 * kSectorBytes)
      throw std::invalid_argument(std::string("memside: policy ") + ops_->name + " places " + std::to_string(g) +
                                  " B pieces (expected 32, 64 or 128)");
    granule_ = unit_ = g;
  }
  held_node_.resize(kHeldMax);
  for (size_t i = 0; i < kHeldMax; ++i) held_node_[i].next = i + 1 < kHeldMax ? static_cast<int>(i + 1) : -1;
  ticket_.resize(4 * kHeldMax);  // a power of two, at most half full
  wake_.reserve(kHeldMax);
  up_wait_.assign(up_, Held{});
  up_wait_order_.reserve(up_);
  resp_port_.assign(up_, 0);
  rel_q_.resize(cfg_.ndevs);
  rel_wait_.assign(cfg_.ndevs, nullptr);
  own_.resize(MEMSIDE_XFER_SLOTS + MEMSIDE_MIRROR_SLOTS);  // the policy's transfers, then demand-write copies
  for (uint32_t i = MEMSIDE_XFER_SLOTS; i-- > 0;) own_free_.push_back(i);
  mirror_.resize(MEMSIDE_MIRROR_SLOTS);
  for (uint32_t i = MEMSIDE_MIRROR_SLOTS; i-- > 0;) mirror_free_.push_back(i);
  own_queue_.resize(cfg_.ndevs);
  own_wait_.assign(cfg_.ndevs, nullptr);
  tsock.register_nb_transport_fw(this, &MemSide::nb_transport_fw);
  tsock.register_transport_dbg(this, &MemSide::transport_dbg);
  isock.register_nb_transport_bw(this, &MemSide::nb_transport_bw);
  release_ev_.bind<&MemSide::release_process>(this, {Stage::MemSide, cfg_.partition});
  own_ev_.bind<&MemSide::own_process>(this, {Stage::MemSide, cfg_.partition});
  wake_ev_.bind<&MemSide::wake_process>(this, {Stage::MemSide, cfg_.partition});
  register_stats(stats);
}

void MemSide::fatal(const std::string& msg) const {
  SC_REPORT_FATAL(name(), msg.c_str());
  std::abort();
}

void MemSide::end_of_elaboration() {
  if (static_cast<unsigned>(tsock.size()) != up_)
    fatal(std::to_string(tsock.size()) + " L2 banks bound, " + std::to_string(up_) + " announced");
  if (bound_devs_ != ndev_ || static_cast<unsigned>(isock.size()) != ndev_ * (up_ + 2))
    fatal("device controllers bound: " + std::to_string(bound_devs_) + ", expected " + std::to_string(ndev_));
  for (unsigned i = 0; i < ndev_ * (up_ + 2); ++i) {  // isock port -> (device, port of that device)
    port_dev_.push_back(i / (up_ + 2));
    port_up_.push_back(i % (up_ + 2));
  }
}

// ----------------------------------------------------------------- queries

memside_target MemSide::locate(uint64_t pa) const {
  memside_target t;
  if (__builtin_expect(um_ != nullptr, 0) && um_host_locate(pa, &t)) return t;
  ops_->locate(st_.get(), pa, &t);
  return t;
}

uint8_t MemSide::kind_of(uint64_t line) const {
  if (__builtin_expect(um_ != nullptr, 0) && um_->state(line / UM_PAGE) != UM_RESIDENT) return AMAP_MEM_HOST;
  if (ops_->kind_of) return static_cast<uint8_t>(ops_->kind_of(st_.get(), line));
  memside_target t;
  ops_->locate(st_.get(), line, &t);
  return t.kind;
}

bool MemSide::idle() const {
  for (unsigned d = 0; d < ndev_; ++d)
    if (!rel_q_[d].empty() || rel_wait_[d]) return false;
  if (um_ && (!um_jobs_.empty() || um_own_free_.size() != kUmSlots * kUmXfers)) return false;
  return !held_n_ && up_wait_order_.empty() && own_free_.size() == MEMSIDE_XFER_SLOTS &&
         split_free_.size() == split_.size() &&
         mirror_free_.size() == mirror_.size() &&
         !(ops_->busy && ops_->busy(st_.get()));
}

// -------------------------------------------------------------- demand path

// Ask the policy where gp goes (ticket: what it attached when it held gp).
int MemSide::ask(tlm_generic_payload& gp, memside_target* t, uint32_t* ticket) {
  const memside_req rq = req_of(gp.get_address(), gp.is_write(), GpuExt::get(gp));
  if (__builtin_expect(um_ != nullptr, 0)) {  // Unified Memory (mem_side_um.cpp)
    const int u = um_ask(rq.pa, ticket, t);
    if (u == MEMSIDE_HOLD) return MEMSIDE_HOLD;  // a far fault
    if (u == kUmRemote) {                       // the host copy, over the link (access counters)
      st2_.demand_bytes += static_cast<uint64_t>(__builtin_popcount(rq.sectors)) * kSectorBytes;
      return MEMSIDE_GO;
    }
  }
  const int r = ops_->route(st_.get(), &rq, ticket, t);
  if (r == MEMSIDE_GO) {
    if (__builtin_expect(um_ != nullptr, 0)) ++um_inflight_[rq.pa / UM_PAGE % kUmBuckets];
    if (t->dev >= cfg_.ndevs) fatal("policy routed to device " + std::to_string(t->dev));
    if (t->mirror) queue_mirror(gp, *t);
    ++st2_.routed;
    st2_.demand_bytes += static_cast<uint64_t>(__builtin_popcount(rq.sectors)) * kSectorBytes;
  }
  return r;
}

// The policy's view of a request at physical address addr: its line, or
// under a granule the piece its first sector lies in.
memside_req MemSide::req_of(uint64_t addr, bool write, const GpuExt& e) const {
  const uint8_t sec = static_cast<uint8_t>(e.sector_mask ? e.sector_mask : 0xf);
  uint64_t pa = addr;
  if (granule_)
    pa = addr - addr % kLineBytes + static_cast<unsigned>(__builtin_ctz(sec)) * kSectorBytes / granule_ * granule_;
  return {pa, static_cast<uint8_t>(write), static_cast<uint8_t>(e.cls), sec};
}

// Below the memory side: the device address (its line's, for a piece), the
// serving rank's kind, the physical address kept for the response.
void MemSide::to_device(tlm_generic_payload& gp, const memside_target& t) {
  GpuExt& e = GpuExt::get(gp);
  e.phys_addr = gp.get_address();
  e.mem_type = static_cast<MemType>(t.kind);
  gp.set_address(granule_ ? t.addr - t.addr % kLineBytes : t.addr);
}

// ------------------------------------------------------------------ pieces

// The sectors a request touches: its sector mask, or for a write with a
// byte mask, the sectors with a written byte (a piece of it without one
// would write its whole sectors at the device controller).
uint8_t MemSide::sectors_of(tlm_generic_payload& gp) const {
  const GpuExt& e = GpuExt::get(gp);
  uint8_t m = e.sector_mask & 0xf;
  if (gp.is_write() && (e.byte_mask[0] || e.byte_mask[1])) {
    m = 0;
    for (unsigned s = 0; s < kSectorsPerLine; ++s)
      if ((e.byte_mask[s >> 1] >> ((s & 1) * 32)) & 0xffffffffull) m = static_cast<uint8_t>(m | (1u << s));
  }
  return m ? m : 0xf;
}

// Bit k: the request touches piece k (granule_ bytes from k x granule_).
uint8_t MemSide::pieces_of(uint8_t sectors) const {
  const unsigned per = granule_ / kSectorBytes, all = (1u << per) - 1u;
  uint8_t p = 0;
  for (unsigned k = 0; k < kLineBytes / granule_; ++k)
    if ((sectors >> (k * per)) & all) p = static_cast<uint8_t>(p | (1u << k));
  return p;
}

// A piece routed to another offset of its device line than it has in its
// physical line (its bytes must move: the request becomes a split of one).
bool MemSide::moved_offset(tlm_generic_payload& gp, const memside_target& t) const {
  return granule_ && t.addr % kLineBytes != req_of(gp.get_address(), gp.is_write(), GpuExt::get(gp)).pa % kLineBytes;
}

// Room in the held queue for every piece of gp (each may be held).
bool MemSide::split_fits(tlm_generic_payload& gp) const {
  return held_n_ + static_cast<size_t>(__builtin_popcount(pieces_of(sectors_of(gp)))) <= kHeldMax;
}

uint32_t MemSide::split_take(unsigned port, tlm_generic_payload& gp) {
  if (split_free_.empty()) {  // a new high of splits in flight (bounded by the L2's requests)
    if (up_ + split_.size() > 0xffffu) fatal("more split requests in flight than a hop entry can name");
    split_free_.push_back(static_cast<uint32_t>(split_.size()));
    split_.emplace_back();
  }
  const uint32_t r = split_free_.back();
  split_free_.pop_back();
  split_[r] = Split{};
  split_[r].parent = &gp;
  split_[r].port = port;
  return r;
}

namespace {
// Bits of byte_mask word w (bytes 64w .. 64w + 63) for bytes [lo, hi) of the line.
uint64_t byte_range(unsigned w, unsigned lo, unsigned hi) {
  uint64_t m = 0;
  for (unsigned b = std::max(lo, 64 * w); b < std::min(hi, 64 * w + 64); ++b) m |= 1ull << (b - 64 * w);
  return m;
}
}  // namespace

// Piece k of split rec's request as a payload of the shell's own: the
// parent's command, metadata and data, its sectors and written bytes in piece
// k only, its address the piece's (physical) one; its route names the record.
tlm_generic_payload* MemSide::piece_payload(Split& s, unsigned k, uint8_t sectors) {
  tlm_generic_payload& p = *s.parent;
  const GpuExt& pe = GpuExt::get(p);
  tlm_generic_payload* gp = pool_.alloc();
  gp->set_command(p.get_command());
  const uint64_t pa = p.get_address() - p.get_address() % kLineBytes + k * granule_;
  gp->set_address(pa);
  GpuExt& e = GpuExt::get(*gp);
  e = pe;
  e.nhops = 0;
  e.own = false;
  e.sector_mask = sectors;
  const unsigned lo = k * granule_, hi = lo + granule_;
  e.byte_mask[0] = pe.byte_mask[0] & byte_range(0, lo, hi);
  e.byte_mask[1] = pe.byte_mask[1] & byte_range(1, lo, hi);
  if (p.is_write()) std::memcpy(gp->get_data_ptr() + lo, p.get_data_ptr() + lo, granule_);
  e.push_hop(up_ + static_cast<unsigned>(&s - split_.data()), name());
  s.piece[s.n++] = Piece{gp, pa, 0, sectors};
  ++s.left;
  return gp;
}

// A request with sectors in several pieces: one payload per piece, each asked
// now and sent (the release queue) or held on its own.
void MemSide::split(unsigned port, tlm_generic_payload& gp) {
  const uint8_t sec = sectors_of(gp), pieces = pieces_of(sec);
  const uint32_t r = split_take(port, gp);
  ++st2_.split;
  const unsigned per = granule_ / kSectorBytes;
  for (unsigned k = 0; k < kLineBytes / granule_; ++k)
    if ((pieces >> k) & 1u)
      piece_payload(split_[r], k, static_cast<uint8_t>(sec & (((1u << per) - 1u) << (k * per))));
  for (unsigned i = 0; i < split_[r].n; ++i) {
    tlm_generic_payload* c = split_[r].piece[i].gp;
    memside_target t{};
    uint32_t ticket = 0;
    if (ask(*c, &t, &ticket) == MEMSIDE_GO) {
      piece_routed(*c, t);
    } else {
      park(c, ticket);
      ++st2_.held;
    }
  }
  send_released();
}

// A request of one piece that the policy routed to another offset of its
// device line: it becomes a split of one piece (routed already).
void MemSide::adopt(unsigned port, tlm_generic_payload& gp, const memside_target& t) {
  const uint8_t sec = sectors_of(gp);
  const uint32_t r = split_take(port, gp);
  const uint64_t pa = req_of(gp.get_address(), gp.is_write(), GpuExt::get(gp)).pa;
  tlm_generic_payload* c = piece_payload(split_[r], static_cast<unsigned>(pa % kLineBytes / granule_), sec);
  piece_routed(*c, t);
}

// A piece to its device: the device line's address, its bytes, written-byte
// and sector masks moved from its offset in the physical line to its offset
// in the device line.
void MemSide::piece_to_device(tlm_generic_payload& gp, const memside_target& t) {
  GpuExt& e = GpuExt::get(gp);
  const uint64_t pa = gp.get_address();
  const unsigned from = static_cast<unsigned>(pa % kLineBytes), to = static_cast<unsigned>(t.addr % kLineBytes);
  to_device(gp, t);
  if (from == to) return;
  unsigned char* d = gp.get_data_ptr();
  std::memmove(d + to, d + from, granule_);
  uint64_t bm[2] = {0, 0};
  for (unsigned b = 0; b < granule_; ++b)
    if (e.byte_set(from + b)) bm[(to + b) >> 6] |= 1ull << ((to + b) & 63);
  e.byte_mask[0] = bm[0];
  e.byte_mask[1] = bm[1];
  e.sector_mask = static_cast<uint8_t>(((e.sector_mask >> (from / kSectorBytes)) << (to / kSectorBytes)) & 0xf);
}

// A piece the policy routed: its target kept (complete() gets it), then to
// its device's release queue (the caller sends the queue).
void MemSide::piece_routed(tlm_generic_payload& gp, const memside_target& t) {
  GpuExt& e = GpuExt::get(gp);
  Split& s = split_[e.hop[e.nhops - 1] - up_];
  for (unsigned i = 0; i < s.n; ++i)
    if (s.piece[i].gp == &gp) s.piece[i].addr = t.addr;
  piece_to_device(gp, t);
  if (t.delay_ps) {
    delays_used_ = true;
    arrival(t.dev, SC_ZERO_TIME, t.delay_ps);
  }
  rel_q_[t.dev].push_back(&gp);
}

// A piece's answer: its read bytes into the L2's payload at their physical
// offset, the policy's complete() with the piece, and once every piece is
// back, the L2's answer (the line's kind: its first piece's).
tlm_sync_enum MemSide::piece_response(uint32_t rec, tlm_generic_payload& gp, unsigned dev, sc_time& d) {
  Split& s = split_[rec];
  unsigned k = 0;
  while (k < s.n && s.piece[k].gp != &gp) ++k;
  if (k == s.n) fatal("response for an unknown piece of a split request");
  const Piece& p = s.piece[k];
  GpuExt& e = GpuExt::get(gp);
  if (!gp.is_write())
    std::memcpy(s.parent->get_data_ptr() + p.pa % kLineBytes, gp.get_data_ptr() + p.addr % kLineBytes, granule_);
  const bool remote = um_ && dev == um_host_;  // served from the host copy: not the policy's
  if (um_ && !remote) um_answered(p.pa);
  if (ops_->complete && !remote) {
    const memside_req rq = {p.pa, static_cast<uint8_t>(gp.is_write()), static_cast<uint8_t>(e.cls), p.sectors};
    memside_target t{};
    t.dev = dev;
    t.kind = static_cast<uint8_t>(e.mem_type);
    t.addr = p.addr;
    t.row = e.row;
    t.latency_ps = e.dev_latency_ps;
    ops_->complete(st_.get(), &rq, &t);
  }
  if (k == 0) s.kind = static_cast<uint8_t>(e.mem_type);
  gp.release();
  if (--s.left) return tlm::TLM_COMPLETED;
  tlm_generic_payload& P = *s.parent;
  const unsigned port = s.port;
  GpuExt::get(P).mem_type = static_cast<MemType>(s.kind);
  P.set_response_status(tlm::TLM_OK_RESPONSE);
  split_free_.push_back(rec);
  resp_port_[port] = kShellResp;
  tlm_phase ph = tlm::BEGIN_RESP;
  tsock[static_cast<int>(port)]->nb_transport_bw(P, ph, d);  // END_RESP, now or later, ends here
  return tlm::TLM_COMPLETED;
}

// A request the policy holds waits in the shell's queue; its L2 port is free
// to send the next one (END_REQ now). The route back is its upstream port.
void MemSide::hold(unsigned port, tlm_generic_payload& gp, uint32_t ticket) {
  GpuExt::get(gp).push_hop(port, name());
  park(&gp, ticket);
  ++st2_.held;
}

// Held requests wait in FIFO lists, one per ticket, so a release re-asks
// only the requests waiting for what was released. The lists live in fixed
// arrays (held_node_, ticket_): nothing is allocated per request.
MemSide::TicketList* MemSide::ticket_list(uint32_t ticket, bool create) {
  const size_t mask = ticket_.size() - 1;
  for (size_t h = (ticket * 0x9e3779b9u) & mask;; h = (h + 1) & mask) {
    TicketList& b = ticket_[h];
    if (b.used && b.ticket == ticket) return &b;
    if (!b.used) {
      if (!create) return nullptr;
      b = TicketList{ticket, -1, -1, true};
      return &b;
    }
  }
}

void MemSide::drop_ticket_list(TicketList* b) {
  const size_t mask = ticket_.size() - 1;
  size_t i = static_cast<size_t>(b - ticket_.data());
  for (size_t j = (i + 1) & mask; ticket_[j].used; j = (j + 1) & mask) {  // backward-shift deletion
    const size_t home = (ticket_[j].ticket * 0x9e3779b9u) & mask;
    if (((j - home) & mask) >= ((j - i) & mask)) {
      ticket_[i] = ticket_[j];
      i = j;
    }
  }
  ticket_[i].used = false;
}

void MemSide::park(tlm_generic_payload* gp, uint32_t ticket) {
  const int n = held_free_;
  held_free_ = held_node_[n].next;
  held_node_[n] = HeldNode{gp, ticket, -1};
  TicketList* b = ticket_list(ticket, true);
  if (b->tail >= 0) held_node_[b->tail].next = n;
  else b->head = n;
  b->tail = n;
  ++held_n_;
}

tlm_sync_enum MemSide::nb_transport_fw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const unsigned port = static_cast<unsigned>(id);
  if (ph == tlm::BEGIN_REQ) {
    if (granule_ && (pieces_of(sectors_of(gp)) & (pieces_of(sectors_of(gp)) - 1u))) {  // several pieces
      if (!split_fits(gp)) {
        up_wait_[port] = Held{&gp, 0, true};  // the queue is full: END_REQ when it has room
        up_wait_order_.push_back(port);
        return tlm::TLM_ACCEPTED;
      }
      split(port, gp);
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    memside_target t{};
    uint32_t ticket = 0;
    if (ask(gp, &t, &ticket) == MEMSIDE_GO) {  // straight through, the device's back-pressure is the L2's
      if (moved_offset(gp, t)) {
        adopt(port, gp, t);
        send_released();
        ph = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      }
      to_device(gp, t);
      if (t.delay_ps) delays_used_ = true;
      if (!line_released(t.dev, gp.get_address())) {
        if (delays_used_) d = arrival(t.dev, d, t.delay_ps);
        return isock[static_cast<int>(dev_port(t.dev, port))]->nb_transport_fw(gp, ph, d);
      }
      if (t.delay_ps) arrival(t.dev, SC_ZERO_TIME, t.delay_ps);  // the release queue goes out after it
      GpuExt::get(gp).push_hop(port, name());  // behind a released request to its line: it goes out after it
      rel_q_[t.dev].push_back(&gp);
      send_released();
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (held_n_ < kHeldMax) {
      hold(port, gp, ticket);
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    up_wait_[port] = Held{&gp, ticket};  // the queue is full: END_REQ when it has room
    up_wait_order_.push_back(port);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {  // to the device port that sent the response
    if (resp_port_[port] == kShellResp) return tlm::TLM_COMPLETED;  // a split's answer: the shell's own
    return isock[static_cast<int>(resp_port_[port])]->nb_transport_fw(gp, ph, d);
  }
  fatal("unexpected phase from an L2 bank");
}

tlm_sync_enum MemSide::nb_transport_bw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const unsigned dev = port_dev_[static_cast<unsigned>(id)], port = port_up_[static_cast<unsigned>(id)];
  if (port == up_) {  // the policy's own transfer
    if (ph == tlm::END_REQ) {
      if (own_wait_[dev] != &gp) fatal("END_REQ for an own transfer not waiting");
      own_wait_[dev] = nullptr;
      own_ev_.notify(SC_ZERO_TIME);
      return tlm::TLM_ACCEPTED;
    }
    if (ph == tlm::BEGIN_RESP) {
      if (own_wait_[dev] == &gp) {  // implicit END_REQ
        own_wait_[dev] = nullptr;
        own_ev_.notify(SC_ZERO_TIME);
      }
      own_response(dev, gp);
      return tlm::TLM_COMPLETED;
    }
    fatal("unexpected phase from a device controller");
  }
  const bool released = port == up_ + 1;  // a request that was held, sent on the device's release port
  if (released && (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP) && rel_wait_[dev] == &gp) {
    rel_wait_[dev] = nullptr;  // (BEGIN_RESP: implicit END_REQ)
    release_ev_.notify(SC_ZERO_TIME);
    if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    GpuExt& e = GpuExt::get(gp);
    if (released && granule_ && e.nhops && e.hop[e.nhops - 1] >= up_)  // a piece of a split request
      return piece_response(e.pop_hop(name()) - up_, gp, dev, d);
    memside_target t{};
    t.dev = dev;
    t.kind = static_cast<uint8_t>(e.mem_type);
    t.addr = gp.get_address();
    gp.set_address(e.phys_addr);
    const bool remote = __builtin_expect(um_ != nullptr, 0) && dev == um_host_;  // the host copy: not the policy's
    if (__builtin_expect(um_ != nullptr, 0) && !remote) um_answered(e.phys_addr);
    if (ops_->complete && !remote) {
      const memside_req rq = req_of(e.phys_addr, gp.is_write(), e);
      if (granule_) t.addr += rq.pa % kLineBytes;  // the piece's place in its device line (kept: not moved)
      t.row = e.row;
      t.latency_ps = e.dev_latency_ps;
      ops_->complete(st_.get(), &rq, &t);
    }
    const unsigned up = released ? e.pop_hop(name()) : port;
    resp_port_[up] = static_cast<unsigned>(id);  // for a late END_RESP; one outstanding response per port
    return tsock[static_cast<int>(up)]->nb_transport_bw(gp, ph, d);
  }
  if (released) fatal("unexpected phase on a release port");
  return tsock[static_cast<int>(port)]->nb_transport_bw(gp, ph, d);
}

// After env.release: every held request asks the policy again, in the order
// held; those routed now go to their device's release port in that order.
// Then upstream requests waiting for room in the queue are taken.
void MemSide::release_process() {
  // The lists of the released tickets (all of them after a release of 0, and
  // always those holding no ticket), in the order released.
  wake_.clear();
  auto take = [this](TicketList* b) {
    for (int n = b->head; n >= 0; n = held_node_[n].next) wake_.push_back(n);
    drop_ticket_list(b);
  };
  if (release_all_) {
    for (size_t h = 0; h < ticket_.size();)
      if (ticket_[h].used) take(&ticket_[h]);  // the deletion may shift another list into h: look again
      else ++h;
  } else {
    for (uint32_t t : released_)
      if (TicketList* b = ticket_list(t, false)) take(b);
    if (TicketList* b = ticket_list(0, false)) take(b);
  }
  released_.clear();
  release_all_ = false;
  for (int n : wake_) {
    HeldNode h = held_node_[n];
    held_node_[n].next = held_free_;
    held_free_ = n;
    --held_n_;
    memside_target t{};
    if (ask(*h.gp, &t, &h.ticket) == MEMSIDE_GO) {
      GpuExt& e = GpuExt::get(*h.gp);
      if (granule_ && e.hop[e.nhops - 1] >= up_) {  // a piece of a split request
        piece_routed(*h.gp, t);
        continue;
      }
      if (moved_offset(*h.gp, t)) {
        adopt(e.pop_hop(name()), *h.gp, t);
        continue;
      }
      to_device(*h.gp, t);
      if (t.delay_ps) {
        delays_used_ = true;
        arrival(t.dev, SC_ZERO_TIME, t.delay_ps);  // the release queue goes out after it
      }
      rel_q_[t.dev].push_back(h.gp);
    } else {
      park(h.gp, h.ticket);
    }
  }
  send_released();
  while (!up_wait_order_.empty() && held_n_ < kHeldMax) {
    const unsigned port = up_wait_order_.front();
    if (up_wait_[port].split && !split_fits(*up_wait_[port].gp)) break;
    up_wait_order_.erase(up_wait_order_.begin());
    Held h = up_wait_[port];
    up_wait_[port] = Held{};
    memside_target t{};
    tlm_phase ph = tlm::END_REQ;
    sc_time d = SC_ZERO_TIME;
    if (h.split) {
      split(port, *h.gp);
      tsock[static_cast<int>(port)]->nb_transport_bw(*h.gp, ph, d);  // END_REQ: the L2 may send its next request
      continue;
    }
    const bool go = ask(*h.gp, &t, &h.ticket) == MEMSIDE_GO;
    if (go && t.delay_ps) delays_used_ = true;
    if (go && moved_offset(*h.gp, t)) {
      adopt(port, *h.gp, t);
      send_released();
    } else if (go && line_released(t.dev, t.addr - t.addr % kLineBytes)) {
      if (t.delay_ps) arrival(t.dev, SC_ZERO_TIME, t.delay_ps);
      to_device(*h.gp, t);  // behind a released request to its line: it goes out after it
      GpuExt::get(*h.gp).push_hop(port, name());
      rel_q_[t.dev].push_back(h.gp);
      send_released();
    } else if (go) {
      to_device(*h.gp, t);
      ph = tlm::BEGIN_REQ;
      if (delays_used_) d = arrival(t.dev, d, t.delay_ps);
      const tlm_sync_enum r = isock[static_cast<int>(dev_port(t.dev, port))]->nb_transport_fw(*h.gp, ph, d);
      if (r == tlm::TLM_ACCEPTED) continue;  // the device sends END_REQ later, forwarded by nb_transport_bw
      if (!(r == tlm::TLM_UPDATED && ph == tlm::END_REQ)) fatal("unexpected answer of a device controller");
      ph = tlm::END_REQ;
      d = SC_ZERO_TIME;
    } else {
      hold(port, *h.gp, h.ticket);
    }
    tsock[static_cast<int>(port)]->nb_transport_bw(*h.gp, ph, d);  // END_REQ: the L2 may send its next request
  }
}

// A request released earlier to device line `line` (device address) has not
// reached the device yet: a request routed now to that line must follow it
// (a write released by the policy and a read of the same line routed at once
// must reach the device in that order). Scans the release queue, which is
// short: it holds what the policy released and the device has not taken.
bool MemSide::line_released(unsigned dev, uint64_t line) const {
  const auto same = [line](const tlm_generic_payload* g) {
    return g && g->get_address() - g->get_address() % kLineBytes == line;
  };
  if (same(rel_wait_[dev])) return true;
  for (const tlm_generic_payload* g : rel_q_[dev])
    if (same(g)) return true;
  return false;
}

// Released requests go out on their device's release port in order, one
// waiting for END_REQ at a time.
void MemSide::send_released() {
  for (unsigned dev = 0; dev < ndev_; ++dev)
    while (!rel_wait_[dev] && !rel_q_[dev].empty()) {
      tlm_generic_payload* gp = rel_q_[dev].front();
      rel_q_[dev].pop_front();
      tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = SC_ZERO_TIME;
      if (delays_used_) d = arrival(dev, d, 0);
      const tlm_sync_enum r = isock[static_cast<int>(dev_port(dev, up_ + 1))]->nb_transport_fw(*gp, ph, d);
      if (r == tlm::TLM_ACCEPTED) rel_wait_[dev] = gp;
      else if (!(r == tlm::TLM_UPDATED && ph == tlm::END_REQ)) fatal("unexpected answer of a device controller");
    }
}

// ------------------------------------------------------------ own transfers

// A write the policy routed with a mirror: its bytes also go to t.mirror_addr, as a transfer of the
// policy's own (done(t.mirror_tag) when written).
void MemSide::queue_mirror(tlm_generic_payload& gp, const memside_target& t) {
  const GpuExt& e = GpuExt::get(gp);
  if (!gp.is_write() || t.mirror_dev >= cfg_.ndevs || t.mirror_addr % kLineBytes || mirror_free_.empty())
    fatal("policy mirror outside the shell's contract (a write, a 128 B-aligned line, at most " +
          std::to_string(MEMSIDE_MIRROR_SLOTS) + " in flight)");
  const uint32_t m = mirror_free_.back(), s = MEMSIDE_XFER_SLOTS + m;
  mirror_free_.pop_back();
  Mirror& b = mirror_[m];
  std::memcpy(b.data, gp.get_data_ptr(), kLineBytes);
  b.byte_mask[0] = e.byte_mask[0];
  b.byte_mask[1] = e.byte_mask[1];
  b.sector_mask = e.sector_mask;
  memside_xfer x{t.mirror_dev, t.mirror_addr, kLineBytes, 1, MEMSIDE_WRITEBACK, b.data, t.mirror_tag};
  own_[s] = Own{x, 1, 0, 1, static_cast<int>(m)};
  own_queue_[t.mirror_dev].push_back(s);
  own_ev_.notify(SC_ZERO_TIME);
}

int MemSide::env_issue(void* ctx, const memside_xfer* x) {
  MemSide* self = static_cast<MemSide*>(ctx);
  if (self->own_free_.empty()) return -1;
  if (x->dev >= self->cfg_.ndevs || !x->bytes || x->bytes % kSectorBytes || x->addr % kSectorBytes ||
      x->bytes > MEMSIDE_XFER_MAX || !x->buf)
    self->fatal("policy transfer outside the shell's contract (whole 32 B sectors at a 32 B-aligned address, up to " +
                std::to_string(MEMSIDE_XFER_MAX) + " B)");
  const uint32_t s = self->own_free_.back();
  self->own_free_.pop_back();
  self->own_[s] = Own{*x, 1, 0, 1};
  self->own_queue_[x->dev].push_back(s);
  self->own_ev_.notify(SC_ZERO_TIME);  // sent from a process of the shell, not from inside the policy call
  return 0;
}

void MemSide::env_release(void* ctx, uint32_t ticket) {
  MemSide* self = static_cast<MemSide*>(ctx);
  if (!self->held_n_ && self->up_wait_order_.empty()) return;
  if (ticket == 0) self->release_all_ = true;
  else self->released_.push_back(ticket);
  self->release_ev_.notify(SC_ZERO_TIME);
}

uint64_t MemSide::env_now_ps(void* ctx) {
  return sim_now().value() / static_cast<MemSide*>(ctx)->tick_per_ps_;
}

int MemSide::env_wake(void* ctx, uint64_t at_ps, uint64_t tag) {
  MemSide* self = static_cast<MemSide*>(ctx);
  if (!self->ops_->wake) self->fatal("policy asks for a wake-up but has no memside_ops.wake");
  if (self->wakes_.size() >= MEMSIDE_WAKE_SLOTS) return -1;
  if (at_ps > UINT64_MAX / self->tick_per_ps_) self->fatal("wake-up time out of range");
  const uint64_t at = self->ticks_of_ps(at_ps);
  self->wakes_.push_back(Wake{at, self->wake_seq_++, tag});
  std::push_heap(self->wakes_.begin(), self->wakes_.end(), std::greater<Wake>());
  self->wake_ev_.notify_at(self->wakes_.front().at);  // an event keeps its earliest notification
  return 0;
}

uint32_t MemSide::env_unwake(void* ctx, uint64_t tag) {
  MemSide* self = static_cast<MemSide*>(ctx);
  const size_t n = self->wakes_.size();
  self->wakes_.erase(std::remove_if(self->wakes_.begin(), self->wakes_.end(), [tag](const Wake& w) { return w.tag == tag; }),
                     self->wakes_.end());
  if (self->wakes_.size() == n) return 0;
  std::make_heap(self->wakes_.begin(), self->wakes_.end(), std::greater<Wake>());
  self->wake_ev_.cancel();  // the earliest may be gone: notify for the new earliest, if any
  if (!self->wakes_.empty()) self->wake_ev_.notify_at(self->wakes_.front().at);
  return static_cast<uint32_t>(n - self->wakes_.size());
}

// The wake-ups due now, earliest (then first asked) first; those the policy
// asks for meanwhile at or before now run in the next delta cycle.
void MemSide::wake_process() {
  const uint64_t now = sim_now().value(), last = wake_seq_;
  while (!wakes_.empty() && wakes_.front().at <= now && wakes_.front().seq < last) {
    std::pop_heap(wakes_.begin(), wakes_.end(), std::greater<Wake>());
    const uint64_t tag = wakes_.back().tag;
    wakes_.pop_back();
    ops_->wake(st_.get(), now / tick_per_ps_, tag);
  }
  if (!wakes_.empty()) wake_ev_.notify_at(wakes_.front().at);
}

uint32_t MemSide::env_dev_util(void* ctx, uint32_t dev, uint64_t window_ps) {
  MemSide* self = static_cast<MemSide*>(ctx);
  if (dev >= self->dev_load_.size()) self->fatal("dev_util of device " + std::to_string(dev));
  DevLoadIf* l = self->dev_load_[dev];
  return l ? l->bus_util_q16(window_ps) : 0;
}

sc_time MemSide::arrival(unsigned dev, const sc_time& d, uint64_t delay_ps) {
  const uint64_t now = sim_now().value();
  uint64_t at = now + d.value() + ticks_of_ps(delay_ps);
  if (at < dev_arrive_[dev]) at = dev_arrive_[dev];
  dev_arrive_[dev] = at;
  return sc_time::from_value(at - now);
}

// Queued own transfers go out one request each, in issue order per device
// (the device controller splits one of several lines into its lines: a span
// request, MemCtrl); a device port waiting for END_REQ holds the later ones
// back. A transfer inside one 128 B line (and a demand write's copy) is a
// line request with its sector mask, as the L2's.
void MemSide::own_process() {
  for (unsigned dev = 0; dev < ndev_; ++dev) send_own(dev);
}

namespace {
bool in_one_line(const memside_xfer& x) { return x.addr % kLineBytes + x.bytes <= kLineBytes; }
}  // namespace

void MemSide::send_own(unsigned dev) {
  while (!own_queue_[dev].empty() && !own_wait_[dev]) {
    const uint32_t s = own_queue_[dev].front();
    own_queue_[dev].pop_front();
    Own& o = own_[s];
    // The policy's traffic (memside.own_*); a page move of Unified Memory is counted in um.* instead.
    auto count = [this, &o](bool write, uint64_t reqs, uint64_t bytes) {
      if (o.um >= 0) return;
      (write ? st2_.own_writes : st2_.own_reads) += reqs;
      (write ? st2_.own_write_bytes : st2_.own_read_bytes) += bytes;
    };
    const bool line_req = o.mirror >= 0 || in_one_line(o.x);
    tlm_generic_payload* gp;
    if (line_req) {
      const uint64_t line = o.x.addr - o.x.addr % kLineBytes;
      const unsigned in_line = static_cast<unsigned>(o.x.addr - line), n = o.x.bytes;
      gp = pool_.alloc();
      gp->set_address(line);
      GpuExt& e = GpuExt::get(*gp);
      e.sector_mask = static_cast<uint8_t>(((1u << (n / kSectorBytes)) - 1u) << (in_line / kSectorBytes));
      if (o.mirror >= 0) {  // a demand write's copy: its bytes and masks
        const Mirror& b = mirror_[static_cast<size_t>(o.mirror)];
        std::memcpy(gp->get_data_ptr(), b.data, kLineBytes);
        e.byte_mask[0] = b.byte_mask[0];
        e.byte_mask[1] = b.byte_mask[1];
        e.sector_mask = b.sector_mask;
        count(true, 1, static_cast<uint64_t>(__builtin_popcount(b.sector_mask)) * kSectorBytes);
      } else if (o.x.write) {
        std::memcpy(gp->get_data_ptr() + in_line, o.x.buf, n);
        e.set_bytes(in_line, n);
        count(true, 1, n);
      } else {
        count(false, 1, n);
      }
    } else {  // a span: its bytes from offset 0 of the payload
      gp = pool_.alloc(PayloadPool::Data::Stale, PayloadPool::fit(o.x.bytes));
      gp->set_address(o.x.addr);
      gp->set_data_length(o.x.bytes);
      gp->set_streaming_width(o.x.bytes);
      const uint64_t first = o.x.addr / kLineBytes, lines = (o.x.addr + o.x.bytes - 1) / kLineBytes - first + 1;
      if (o.x.write) std::memcpy(gp->get_data_ptr(), o.x.buf, o.x.bytes);
      count(o.x.write, lines, o.x.bytes);  // counted in lines, as the device controller queues them
    }
    GpuExt& e = GpuExt::get(*gp);
    gp->set_command(o.x.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    e.cls = static_cast<ReqClass>(o.x.cls);
    e.own = true;
    e.sm_id = ~0u;
    e.tag = s;
    e.issue_ps = sim_now().value() / sc_time(1, sc_core::SC_PS).value();
    ++o.sent;
    tlm_phase ph = tlm::BEGIN_REQ;
    sc_time d = SC_ZERO_TIME;
    if (delays_used_) d = arrival(o.x.dev, d, 0);
    const tlm_sync_enum r = isock[static_cast<int>(dev_port(o.x.dev, up_))]->nb_transport_fw(*gp, ph, d);
    if (r == tlm::TLM_ACCEPTED) own_wait_[o.x.dev] = gp;
    else if (!(r == tlm::TLM_UPDATED && ph == tlm::END_REQ)) fatal("unexpected answer to an own transfer");
  }
}

void MemSide::own_response(unsigned dev, tlm_generic_payload& gp) {
  (void)dev;
  const uint32_t s = GpuExt::get(gp).tag;
  if (s >= own_.size() || !own_[s].left) fatal("response for an unknown own transfer");
  Own& o = own_[s];
  if (!o.x.write) {
    if (o.mirror < 0 && !in_one_line(o.x))  // a span: the bytes from offset 0
      std::memcpy(o.x.buf, gp.get_data_ptr(), o.x.bytes);
    else  // a line request: the transfer's bytes at their offset in the line
      std::memcpy(o.x.buf, gp.get_data_ptr() + o.x.addr % kLineBytes, o.x.bytes);
  }
  gp.release();
  if (--o.left) return;
  if (o.um >= 0) {  // a page move of Unified Memory
    const unsigned k = static_cast<unsigned>(o.um);
    um_own_free_.push_back(s);
    um_xfer_done(k);
    return;
  }
  const uint64_t tag = o.x.tag;
  if (o.mirror >= 0) mirror_free_.push_back(static_cast<uint32_t>(o.mirror));
  else own_free_.push_back(s);
  if (ops_->done) ops_->done(st_.get(), tag);
}

// --------------------------------------------------------------- back doors

// Functional access by physical address (debug, fast-forward): each line where
// the policy has it now, through the device controller's debug port.
unsigned MemSide::transport_dbg(int, tlm_generic_payload& gp) {
  const uint64_t a0 = gp.get_address();
  const unsigned len = gp.get_data_length();
  unsigned char* p = gp.get_data_ptr();
  tlm_generic_payload g;
  for (unsigned done = 0; done < len;) {
    const uint64_t a = a0 + done;
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>(len - done, unit_ - a % unit_));
    const memside_target t = locate(a - a % unit_);
    g.set_command(gp.get_command());
    g.set_address(t.addr + a % unit_);
    g.set_data_ptr(p + done);
    g.set_data_length(n);
    if (isock[static_cast<int>(dev_port(t.dev, up_))]->transport_dbg(g) != n) return done;
    done += n;
  }
  return len;
}

void MemSide::write_functional(uint64_t pa, const unsigned char* src, size_t len) {
  // One store write per run of lines that are consecutive in device-address
  // space too (a row's columns under the static map).
  size_t run = 0, run_len = 0;
  memside_target run_t{};
  auto flush = [&] {
    if (run_len && bstore_write(dev_mem_[run_t.dev], run_t.addr, src + run, run_len) != 0)
      fatal("out of memory in the device store");
  };
  for (size_t done = 0; done < len;) {
    const uint64_t a = pa + done;
    const size_t n = std::min<uint64_t>(len - done, unit_ - a % unit_);
    memside_target t = locate(a - a % unit_);
    if (t.dev >= dev_mem_.size()) fatal("write_functional before connect()");
    t.addr += a % unit_;
    if (run_len && t.dev == run_t.dev && t.addr == run_t.addr + run_len) {
      run_len += n;
    } else {
      flush();
      run = done;
      run_len = n;
      run_t = t;
    }
    done += n;
  }
  flush();
}

// -------------------------------------------------------------------- stats

void MemSide::register_stats(StatsRegistry& S) {
  const std::string p = "memside.p" + std::to_string(cfg_.partition) + ".";
  if (ops_->stat_names) {  // the policy's own counters, per partition
    size_t n = 0;
    while (ops_->stat_names[n]) ++n;
    pol_vals_.assign(n, 0);
    for (size_t i = 0; i < n; ++i)
      S.formula(p + ops_->stat_prefix + "." + ops_->stat_names[i], ops_->stat_descs[i], Unit::Count,
                [this, i] { return static_cast<double>(policy_value(i)); });
  }
  if (const memside_derived* d = ops_->stat_derived)
    for (; d->name; ++d)
      if (d->name[0] != '=')  // (a whole name: all partitions only)
        register_derived(S, p + ops_->stat_prefix + "." + d->name, d->desc, std::vector<MemSide*>{this}, *d);
  S.counter(p + "routed", "accesses of the L2 routed to a device", Unit::Count, &st2_.routed);
  S.counter(p + "held", "accesses held by the policy (e.g. while their line moved)", Unit::Count, &st2_.held);
  S.counter(p + "own_reads", "reads issued by the memory-side policy itself (migration, fill, probe)", Unit::Count,
            &st2_.own_reads);
  S.counter(p + "own_writes", "writes issued by the memory-side policy itself", Unit::Count, &st2_.own_writes);
  if (granule_)
    S.counter(p + "split", "accesses of the L2 split into pieces of " + std::to_string(granule_) +
              " B (memside_ops.granule), each routed on its own", Unit::Count, &st2_.split);
}

// The sum of the policy's counters in `mask` over partitions.
double MemSide::derived_sum(const std::vector<MemSide*>& parts, uint64_t mask) {
  double v = 0;
  for (MemSide* m : parts) {
    m->ops_->stat_values(m->st_.get(), m->pol_vals_.data());
    for (size_t i = 0; i < m->pol_vals_.size(); ++i)
      if ((mask >> i) & 1u) v += static_cast<double>(m->pol_vals_[i]);
  }
  return v;
}

// A derived stat of the policy over partitions: sum(num counters) / sum(den counters) (a ratio over a
// measurement window: common/stats.h), or the sum.
void MemSide::register_derived(StatsRegistry& S, const std::string& name, const std::string& desc,
                               const std::vector<MemSide*>& parts, const memside_derived& d) {
  const uint64_t num = d.num, den = d.den;
  if (den)
    S.ratio(name, desc, Unit::Ratio, [parts, num] { return derived_sum(parts, num); },
            [parts, den] { return derived_sum(parts, den); });
  else
    S.formula(name, desc, Unit::Count, [parts, num] { return derived_sum(parts, num); });
}

uint64_t MemSide::policy_value(size_t i) const {
  ops_->stat_values(st_.get(), pol_vals_.data());
  return pol_vals_[i];
}

void MemSide::register_totals(StatsRegistry& S, const std::vector<MemSide*>& parts) {
  if (!parts.empty() && parts[0]->ops_->stat_names) {  // the policy's own counters, all partitions
    const memside_ops* o = parts[0]->ops_;
    for (size_t i = 0; o->stat_names[i]; ++i)
      S.formula(std::string(o->stat_prefix) + "." + o->stat_names[i], std::string(o->stat_descs[i]) +
                ", all partitions", Unit::Count, [parts, i] {
        double s = 0;
        for (MemSide* m : parts) s += static_cast<double>(m->policy_value(i));
        return s;
      });
  }
  if (!parts.empty() && parts[0]->ops_->stat_derived)
    for (const memside_derived* d = parts[0]->ops_->stat_derived; d->name; ++d)
      register_derived(S, d->name[0] == '=' ? std::string(d->name + 1)
                                            : std::string(parts[0]->ops_->stat_prefix) + "." + d->name,
                       std::string(d->desc) + ", all partitions", parts, *d);
  auto sum = [parts](uint64_t memside_stats::*f) {
    return [parts, f]() {
      double s = 0;
      for (MemSide* m : parts) {
        memside_stats x{};
        if (m->ops_->stats) m->ops_->stats(m->st_.get(), &x);
        s += static_cast<double>(x.*f);
      }
      return s;
    };
  };
  S.formula("memside.moves", "data moves completed by the memory-side policy, all partitions", Unit::Count,
            sum(&memside_stats::moves));
  S.formula("memside.moved_bytes", "bytes written by memory-side data moves, all partitions", Unit::Byte,
            sum(&memside_stats::moved_bytes));
  S.formula("memside.remaps", "mapping changes of the memory-side policy, all partitions", Unit::Count,
            sum(&memside_stats::remaps));
  auto own = [parts](uint64_t Stats::*f) {
    return [parts, f]() {
      double s = 0;
      for (MemSide* m : parts) s += static_cast<double>(m->st2_.*f);
      return s;
    };
  };
  S.formula("memside.held", "accesses held by the memory-side policy, all partitions", Unit::Count, own(&Stats::held));
  if (!parts.empty() && parts[0]->granule_)
    S.formula("memside.split", "accesses of the L2 split into pieces (memside_ops.granule), all partitions",
              Unit::Count, own(&Stats::split));
  S.formula("memside.own_read_bytes", "bytes read by the memory-side policies' own transfers, all partitions",
            Unit::Byte, own(&Stats::own_read_bytes));
  S.formula("memside.own_write_bytes", "bytes written by the memory-side policies' own transfers, all partitions",
            Unit::Byte, own(&Stats::own_write_bytes));
  S.formula("memside.demand_bytes", "bytes of the L2's accesses routed to the devices (their sectors), all partitions",
            Unit::Byte, own(&Stats::demand_bytes));
  S.ratio(
      "mem.traffic_overhead",
      "bytes moved at the devices (the L2's accesses + the memory-side policies' own transfers) / bytes of the "
      "L2's accesses (HMS Fig. 13); 1 for flat memory",
      Unit::Ratio,
      [parts] {
        double all = 0;
        for (MemSide* m : parts)
          all += static_cast<double>(m->st2_.demand_bytes + m->st2_.own_read_bytes + m->st2_.own_write_bytes);
        return all;
      },
      own(&Stats::demand_bytes));
}

}  // namespace strata
