// Xbar implementation; see xbar.h and docs/l2_and_noc.md.
#include "noc/xbar.h"

#include <cstdlib>
#include <string>

#include "common/bits.h"

namespace strata {

using sc_core::sc_time;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

Xbar::Xbar(sc_core::sc_module_name name, unsigned num_sms, unsigned num_banks, const XbarCfg& cfg,
           StatsRegistry& stats)
    : sc_module(name),
      from_sm("from_sm"),
      to_l2("to_l2"),
      num_sms_(num_sms),
      num_banks_(num_banks),
      cfg_(cfg),
      bpc_(cfg.bytes_per_cycle ? cfg.bytes_per_cycle : 1),
      T_(cfg.clk.period().value()),
      ps_unit_(sc_core::sc_time(1, sc_core::SC_PS).value()) {
  if (num_sms == 0 || num_banks == 0 || cfg.bytes_per_cycle == 0 || cfg.queue == 0)
    fatal("num_sms, num_banks, bytes_per_cycle and queue must be > 0");
  from_sm.register_nb_transport_fw(this, &Xbar::fw);
  from_sm.register_transport_dbg(this, &Xbar::dbg);
  to_l2.register_nb_transport_bw(this, &Xbar::bw);

  const unsigned n_in[2] = {num_sms, num_banks}, n_out[2] = {num_banks, num_sms};
  for (int d = 0; d < 2; ++d) {
    dir_[d].in.resize(n_in[d]);
    dir_[d].out.resize(n_out[d]);
    for (Out& o : dir_[d].out) {
      o.q.reset(cfg.queue);
      o.waiters.reset(n_in[d]);
    }
  }
  wake_q_.reserve(2 * (num_sms + num_banks) * (cfg.queue + 1));

  wake_ev_.bind<&Xbar::wake_method>(this, {Stage::Noc, 0});

  const char* dn[2] = {"noc.req", "noc.resp"};
  const char* what[2] = {"SM -> L2 requests", "L2 -> SM responses"};
  for (int d = 0; d < 2; ++d) {
    Dir& D = dir_[d];
    stats.counter(join(dn[d], "packets"), std::string(what[d]) + " carried", Unit::Count, &D.packets);
    stats.counter(join(dn[d], "flits"), std::string(what[d]) + ": flits (bytes_per_cycle each)", Unit::Count,
                  &D.flits);
    stats.counter(join(dn[d], "bytes"), std::string(what[d]) + ": bytes incl. 8 B headers", Unit::Byte, &D.bytes);
    const uint64_t period = cfg.clk.period_ps();
    stats.ratio(join(dn[d], "avg_queue_delay"),
                std::string(what[d]) + ": mean cycles beyond the unloaded latency (contention, backpressure)",
                Unit::Cycle, [&D] { return static_cast<double>(D.delay_ps); },
                [&D] { return static_cast<double>(D.packets); }, 1.0 / static_cast<double>(period));
  }
}

void Xbar::fatal(const char* msg) const {
  SC_REPORT_FATAL(name(), msg);
  std::abort();
}

bool Xbar::idle() const {
  for (const Dir& D : dir_) {
    for (const Out& o : D.out)
      if (!o.q.empty() || o.blocked) return false;
    for (const In& i : D.in)
      if (i.pending) return false;
  }
  return true;
}

std::string Xbar::debug_state() const {
  std::string s = name();
  const char* dn[2] = {" req", " resp"};
  for (int d = 0; d < 2; ++d)
    for (size_t p = 0; p < dir_[d].out.size(); ++p) {
      const Out& o = dir_[d].out[p];
      if (o.q.empty() && o.waiters.empty() && !o.blocked) continue;
      s += std::string(dn[d]) + "[" + std::to_string(p) + "]: q=" + std::to_string(o.q.size()) +
           " waiters=" + std::to_string(o.waiters.size()) + (o.blocked ? " blocked" : "");
    }
  return s;
}

unsigned Xbar::data_bytes(int dir, tlm_generic_payload& gp) const {
  GpuExt& e = GpuExt::get(gp);
  if (dir == kReq) {
    if (!gp.is_write()) return 0;
    return popcount64(e.byte_mask[0]) + popcount64(e.byte_mask[1]);
  }
  if (gp.is_write()) return 0;
  const unsigned s = popcount32(e.sector_mask & ((1u << kSectorsPerLine) - 1u));
  return (s ? s : kSectorsPerLine) * kSectorBytes;
}

// Timing of one packet: source link, switch traversal, destination link.
void Xbar::admit(int dir, uint32_t src, uint32_t dst, tlm_generic_payload& gp, uint64_t arrival) {
  Dir& D = dir_[dir];
  In& in = D.in[src];
  Out& out = D.out[dst];
  const unsigned bytes = kHeaderBytes + data_bytes(dir, gp);
  const unsigned n = (bytes + bpc_ - 1) / bpc_;
  const uint64_t now = sim_now().value();
  const uint64_t t = arrival > now ? arrival : now;
  const uint64_t start_in = t > in.free ? t : in.free;
  in.free = start_in + n * T_;
  const uint64_t at_out = start_in + cfg_.latency * T_;
  const uint64_t start_out = at_out > out.free ? at_out : out.free;
  out.free = start_out + n * T_;
  D.flits += n;
  D.bytes += bytes;
  const bool was_empty = out.q.empty();
  out.q.push(Entry{&gp, out.free, arrival, n});
  if (was_empty && !out.blocked) wake_q_.push(out.free, (static_cast<uint32_t>(dir) << 31) | dst, wake_ev_, now);
}

bool Xbar::offer(int dir, uint32_t src, uint32_t dst, tlm_generic_payload& gp, uint64_t arrival) {
  Dir& D = dir_[dir];
  In& in = D.in[src];
  Out& out = D.out[dst];
  if (in.pending) fatal("new packet from a port whose previous one is still waiting (base protocol)");
  if (!out.q.full() && out.waiters.empty()) {
    admit(dir, src, dst, gp, arrival);
    return true;
  }
  in.pending = &gp;
  in.dst = dst;
  in.arrival = arrival;
  out.waiters.push(src);
  return false;
}

tlm_sync_enum Xbar::fw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const uint32_t sm = static_cast<uint32_t>(id);
  if (ph == tlm::BEGIN_REQ) {
    GpuExt& e = GpuExt::get(gp);
    if (e.l2_bank >= num_banks_) fatal("request for an L2 bank beyond the crossbar's ports");
    e.push_hop(sm, name());  // response route: the port it came in on (port i == SM i)
    if (offer(kReq, sm, e.l2_bank, gp, sim_now().value() + d.value())) {
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {  // SM finished the response it had accepted late
    Out& o = dir_[kResp].out[sm];
    if (!o.blocked) fatal("END_RESP without an outstanding response");
    o.blocked = false;
    pop_front(kResp, sm);
    deliver(kResp, sm);
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase from an SM");
}

tlm_sync_enum Xbar::bw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const uint32_t bank = static_cast<uint32_t>(id);
  if (ph == tlm::END_REQ) {
    Out& o = dir_[kReq].out[bank];
    if (!o.blocked || o.q.empty() || o.q.front().gp != &gp) fatal("END_REQ for a request not outstanding");
    o.blocked = false;
    pop_front(kReq, bank);
    deliver(kReq, bank);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    Out& o = dir_[kReq].out[bank];
    if (o.blocked && !o.q.empty() && o.q.front().gp == &gp) {  // implicit END_REQ
      o.blocked = false;
      pop_front(kReq, bank);
      deliver(kReq, bank);
    }
    GpuExt& e = GpuExt::get(gp);
    const uint32_t sm = e.pop_hop(name());
    if (sm >= num_sms_) fatal("response for an unknown SM port");
    return offer(kResp, bank, sm, gp, sim_now().value() + d.value()) ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  fatal("unexpected phase from an L2 bank");
}

unsigned Xbar::dbg(int id, tlm_generic_payload& gp) {
  (void)id;
  const uint32_t b = GpuExt::get(gp).l2_bank;
  if (b >= num_banks_) return 0;
  return to_l2[static_cast<int>(b)]->transport_dbg(gp);
}

void Xbar::wake_method() {
  const uint64_t now = sim_now().value();
  while (wake_q_.ready(now)) {
    const uint32_t w = wake_q_.pop();
    deliver(static_cast<int>(w >> 31), w & 0x7fffffffu);
  }
  wake_q_.rearm(wake_ev_, now);
}

// Hand ready head packets of destination `dst` to their receiver.
void Xbar::deliver(int dir, uint32_t dst) {
  Out& o = dir_[dir].out[dst];
  const uint64_t now = sim_now().value();
  while (!o.blocked && !o.q.empty()) {
    const Entry e = o.q.front();
    if (e.ready > now) {
      wake_q_.push(e.ready, (static_cast<uint32_t>(dir) << 31) | dst, wake_ev_, now);
      return;
    }
    tlm_phase ph = dir == kReq ? tlm::BEGIN_REQ : tlm::BEGIN_RESP;
    sc_time d = sc_core::SC_ZERO_TIME;
    const tlm_sync_enum s = dir == kReq ? to_l2[static_cast<int>(dst)]->nb_transport_fw(*e.gp, ph, d)
                                        : from_sm[static_cast<int>(dst)]->nb_transport_bw(*e.gp, ph, d);
    if (s == tlm::TLM_ACCEPTED) {
      o.blocked = true;  // head keeps its slot until END_REQ / END_RESP
      return;
    }
    if (dir == kReq && !(s == tlm::TLM_UPDATED && ph == tlm::END_REQ)) fatal("L2 bank answered BEGIN_REQ oddly");
    pop_front(dir, dst);
  }
}

void Xbar::pop_front(int dir, uint32_t dst) {
  Dir& D = dir_[dir];
  Out& o = D.out[dst];
  const Entry e = o.q.front();
  o.q.pop();
  const uint64_t now = sim_now().value();
  const uint64_t unloaded = (cfg_.latency + e.flits) * T_;
  const uint64_t spent = now - e.arrival;
  D.packets++;
  if (spent > unloaded) D.delay_ps += (spent - unloaded) / ps_unit_;
  if (!o.waiters.empty()) {  // a slot freed: admit the oldest waiting sender and end its phase
    const uint32_t src = o.waiters.front();
    o.waiters.pop();
    In& in = D.in[src];
    tlm_generic_payload* gp = in.pending;
    in.pending = nullptr;
    admit(dir, src, dst, *gp, in.arrival);
    sc_time d = sc_core::SC_ZERO_TIME;
    if (dir == kReq) {
      tlm_phase ph = tlm::END_REQ;
      from_sm[static_cast<int>(src)]->nb_transport_bw(*gp, ph, d);
    } else {
      tlm_phase ph = tlm::END_RESP;
      to_l2[static_cast<int>(src)]->nb_transport_fw(*gp, ph, d);
    }
  }
}

}  // namespace strata
