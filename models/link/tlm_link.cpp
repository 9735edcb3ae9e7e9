// Link implementation; see tlm_link.h and docs/architecture.md "Links and host memory".
#include "link/tlm_link.h"

#include <cstdlib>

namespace strata {

using sc_core::sc_time;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

Link::Link(sc_core::sc_module_name name, const LinkCfg& cfg, StatsRegistry& stats, Order order)
    : sc_module(name),
      tsock("tsock"),
      isock("isock"),
      dir_{Direction(cfg.req, cfg.queue, std::string(this->name()) + " request direction"),
           Direction(cfg.resp, cfg.queue, std::string(this->name()) + " response direction")},
      prefix_(std::string("link.") + basename()) {
  tsock.register_nb_transport_fw(this, &Link::fw);
  tsock.register_b_transport(this, &Link::b_transport);
  tsock.register_transport_dbg(this, &Link::dbg);
  isock.register_nb_transport_bw(this, &Link::bw);
  dir_[kReq].ev.bind<&Link::run_req>(this, order);
  dir_[kResp].ev.bind<&Link::run_resp>(this, order);

  const char* dn[2] = {"req", "resp"};
  const char* what[2] = {"requests (toward the target)", "responses (toward the initiators)"};
  for (int k = 0; k < 2; ++k) {
    const Direction& D = dir_[k];
    const link_chan* ch = &D.wq.chan();
    const WireQueue* wq = &D.wq;
    const std::string p = join(prefix_, dn[k]);
    const std::string w = what[k];
    stats.counter(join(p, "transfers"), w + ": transfers sent", Unit::Count, &ch->st.transfers);
    stats.counter(join(p, "packets"), w + ": packets (max_payload_bytes of data each)", Unit::Count, &ch->st.packets);
    stats.counter(join(p, "data_bytes"), w + ": data bytes carried", Unit::Byte, &ch->st.data_bytes);
    stats.counter(join(p, "bytes"), w + ": bytes on the wire (data + headers + flit padding)", Unit::Byte,
                  &ch->st.wire_bytes);
    stats.ratio(join(p, "busy_fraction"), w + ": wire busy time / simulated time", Unit::Ratio,
                [wq] { return static_cast<double>(link_busy_ps(&wq->chan(), wq->now_ps())); },
                [wq] { return static_cast<double>(wq->now_ps()); });
    stats.formula(join(p, "energy_j"), w + ": link energy, traffic (pJ/bit on the wire) + idle (pJ/bit time)",
                  Unit::Joule, [wq] { return link_energy_j(&wq->chan(), wq->now_ps()); });
    stats.ratio(join(p, "avg_queue_delay_ns"),
                w + ": mean time from arrival to the receiver's acceptance beyond the unloaded wire time + latency",
                Unit::Nanosecond, [wq] { return static_cast<double>(wq->delay_ps()); },
                [wq] { return static_cast<double>(wq->delivered()); }, 1e-3);
  }
  stats.formula(join(prefix_, "energy_j"), "link energy, both directions", Unit::Joule, [this] { return energy_j(); });
}

void Link::fatal(const std::string& msg) const {
  SC_REPORT_FATAL(name(), msg.c_str());
  std::abort();
}

void Link::end_of_elaboration() {
  const unsigned ports = tsock.size();
  if (ports == 0) fatal("nothing bound to tsock");
  route_ = ports > 1;
  dir_[kReq].waiters.reset(ports);  // at most one waiting BEGIN_REQ per port (base protocol)
  dir_[kResp].waiters.reset(1);     // one target: one waiting BEGIN_RESP
}

double Link::energy_j() const {
  double e = 0;
  for (const Direction& D : dir_) e += link_energy_j(&D.wq.chan(), D.wq.now_ps());
  return e;
}

bool Link::idle() const {
  for (const Direction& D : dir_)
    if (!D.wq.empty() || !D.waiters.empty() || D.held) return false;
  return true;
}

void Link::register_probes(ProbeRegistry& P) {
  P.level(join(prefix_, "req.busy"), "fraction", [this] { return busy_fraction(kReq); });
  P.level(join(prefix_, "resp.busy"), "fraction", [this] { return busy_fraction(kResp); });
}

// ------------------------------------------------------------- transport

bool Link::offer(Dir d, uint32_t port, tlm_generic_payload& gp, uint64_t arrival) {
  Direction& D = dir_[d];
  if (!D.wq.full() && D.waiters.empty()) {
    admit(d, port, gp, arrival);
    return true;
  }
  if (!D.waiters.push(Waiter{&gp, arrival, port}))
    fatal(d == kReq ? "BEGIN_REQ on a port whose previous request still waits for END_REQ (base protocol)"
                    : "BEGIN_RESP while the previous response still waits for END_RESP (base protocol)");
  return false;
}

void Link::admit(Dir d, uint32_t port, tlm_generic_payload& gp, uint64_t arrival) {
  Direction& D = dir_[d];
  if (d == kReq && gp.has_mm()) gp.acquire();  // held until its response has gone up
  WireQueue::Entry e;
  e.gp = &gp;
  e.arrival = arrival;
  e.port = port;
  e.bytes = d == kReq ? link_request_bytes(gp) : link_response_bytes(gp);
  D.wq.push(e, sim_now().value());
  rearm(d);
}

tlm_sync_enum Link::fw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const uint32_t port = static_cast<uint32_t>(id);
  if (ph == tlm::BEGIN_REQ) {
    if (route_) {
      GpuExt* e = GpuExt::find(gp);
      if (!e) fatal("request without a GpuExt on a link with several initiators (no route back)");
      e->push_hop(port, name());  // fatal on a full route (GpuExt::kMaxHops)
    }
    if (offer(kReq, port, gp, sim_now().value() + d.value())) {
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {  // an initiator took the response it had accepted late
    Direction& D = dir_[kResp];
    if (!D.held || D.wq.empty() || D.wq.front().gp != &gp) fatal("END_RESP for a response not outstanding");
    D.held = false;
    taken(kResp);
    deliver(kResp);
    rearm(kResp);
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase from an initiator");
}

tlm_sync_enum Link::bw(tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  Direction& R = dir_[kReq];
  if (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP) {
    if (R.held && !R.wq.empty() && R.wq.front().gp == &gp) {  // END_REQ, or BEGIN_RESP implying it
      R.held = false;
      taken(kReq);
      deliver(kReq);
      rearm(kReq);
    } else if (ph == tlm::END_REQ) {
      fatal("END_REQ for a request not outstanding");
    }
  }
  if (ph == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  if (ph == tlm::BEGIN_RESP) {
    uint32_t port = 0;
    if (route_) {
      GpuExt& e = GpuExt::get(gp);
      port = e.pop_hop(name());  // fatal on an empty route
      if (port >= tsock.size()) fatal("response for an unknown port");
    }
    return offer(kResp, port, gp, sim_now().value() + d.value()) ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  fatal("unexpected phase from the target");
}

void Link::b_transport(int id, tlm_generic_payload& gp, sc_time& d) {
  (void)id;
  isock->b_transport(gp, d);
}

unsigned Link::dbg(int id, tlm_generic_payload& gp) {
  (void)id;
  return isock->transport_dbg(gp);
}

// ------------------------------------------------------------- timing

void Link::run(Dir d) {
  dir_[d].wq.send_due(sim_now().value());
  deliver(d);
  rearm(d);
}

void Link::rearm(Dir d) {
  Direction& D = dir_[d];
  const uint64_t t = D.wq.next_due(D.held);
  if (t != WireQueue::kNever) D.ev.notify_at(t, sim_now().value());
}

void Link::deliver(Dir d) {
  Direction& D = dir_[d];
  while (!D.held && D.wq.head_due(sim_now().value())) {
    WireQueue::Entry& e = D.wq.front();
    sc_time t = sc_core::SC_ZERO_TIME;
    if (d == kReq) {
      tlm_phase ph = tlm::BEGIN_REQ;
      const tlm_sync_enum s = isock->nb_transport_fw(*e.gp, ph, t);
      if (s == tlm::TLM_ACCEPTED) {
        D.held = true;  // keeps its place until END_REQ
        return;
      }
      if (!(s == tlm::TLM_UPDATED && ph == tlm::END_REQ))
        fatal("the target answered BEGIN_REQ other than with END_REQ (now or later)");
    } else {
      tlm_phase ph = tlm::BEGIN_RESP;
      const tlm_sync_enum s = tsock[static_cast<int>(e.port)]->nb_transport_bw(*e.gp, ph, t);
      if (s == tlm::TLM_ACCEPTED) {
        D.held = true;  // keeps its place until END_RESP
        return;
      }
      if (!(s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && ph == tlm::END_RESP)))
        fatal("an initiator answered BEGIN_RESP other than with TLM_COMPLETED or END_RESP");
    }
    taken(d);
  }
}

void Link::taken(Dir d) {
  Direction& D = dir_[d];
  const WireQueue::Entry e = D.wq.pop(sim_now().value());
  if (d == kResp && e.gp->has_mm()) e.gp->release();  // the link's hold since the request
  if (D.waiters.empty()) return;
  const Waiter w = D.waiters.front();  // room now: the oldest waiting sender's transfer enters
  D.waiters.pop();
  admit(d, w.port, *w.gp, w.arrival);
  sc_time t = sc_core::SC_ZERO_TIME;
  if (d == kReq) {
    tlm_phase ph = tlm::END_REQ;
    tsock[static_cast<int>(w.port)]->nb_transport_bw(*w.gp, ph, t);
  } else {
    tlm_phase ph = tlm::END_RESP;
    isock->nb_transport_fw(*w.gp, ph, t);
  }
}

}  // namespace strata
