// HostMem implementation; see host_mem.h and docs/architecture.md "Links and host memory".
#include "host/host_mem.h"

#include <cstdlib>

#include "common/bits.h"

namespace strata {

using sc_core::sc_time;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

namespace {
// The data path as a link direction without packet overhead or energy.
link_cfg data_path(const HostMemCfg& c) {
  link_cfg l{};
  l.bytes_per_s = c.bytes_per_s;
  l.latency_ps = c.latency_ps;
  l.window_ps = c.window_ps;
  return l;
}
}  // namespace

HostMem::HostMem(sc_core::sc_module_name name, const HostMemCfg& cfg, bstore* contents, StatsRegistry& stats,
                 Order order)
    : sc_module(name),
      tsock("tsock"),
      cap_(cfg.capacity_bytes),
      mem_(contents),
      ps_(sc_time(1, sc_core::SC_PS).value()),
      wq_(data_path(cfg), cfg.queue, std::string(this->name())) {
  if (cap_ == 0) throw std::invalid_argument(std::string(this->name()) + ": capacity must be > 0");
  if (!mem_) throw std::invalid_argument(std::string(this->name()) + ": no backing store");
  tsock.register_nb_transport_fw(this, &HostMem::fw);
  tsock.register_b_transport(this, &HostMem::b_transport);
  tsock.register_transport_dbg(this, &HostMem::dbg);
  ev_.bind<&HostMem::run>(this, order);

  const std::string p = std::string("hostmem.") + basename();
  stats.counter(join(p, "reads"), "read requests accepted", Unit::Count, &reads_);
  stats.counter(join(p, "writes"), "write requests accepted", Unit::Count, &writes_);
  stats.counter(join(p, "read_bytes"), "bytes read", Unit::Byte, &read_bytes_);
  stats.counter(join(p, "write_bytes"), "bytes written", Unit::Byte, &write_bytes_);
  const WireQueue* wq = &wq_;
  stats.ratio(join(p, "busy_fraction"), "data-path busy time / simulated time", Unit::Ratio,
              [wq] { return static_cast<double>(link_busy_ps(&wq->chan(), wq->now_ps())); },
              [wq] { return static_cast<double>(wq->now_ps()); });
  stats.ratio(join(p, "avg_latency_ns"), "mean time from a request's arrival to its response being taken",
              Unit::Nanosecond, [this] { return static_cast<double>(lat_ps_); },
              [wq] { return static_cast<double>(wq->delivered()); }, 1e-3);
  stats.ratio(join(p, "avg_queue_delay_ns"),
              "mean time from arrival to response beyond the unloaded data time + latency", Unit::Nanosecond,
              [wq] { return static_cast<double>(wq->delay_ps()); },
              [wq] { return static_cast<double>(wq->delivered()); }, 1e-3);
}

void HostMem::fatal(const std::string& msg) const {
  SC_REPORT_FATAL(name(), msg.c_str());
  std::abort();
}

void HostMem::end_of_elaboration() {
  if (tsock.size() == 0) fatal("nothing bound to tsock");
  waiters_.reset(tsock.size());  // at most one waiting BEGIN_REQ per port (base protocol)
}

void HostMem::access(tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  const unsigned len = gp.get_data_length();
  const bool bulk = payload_is_span(gp);  // its data length whole, from its address
  if (!gp.is_read() && !gp.is_write()) fatal("only read and write commands are supported");
  if (bulk && len == 0) fatal("a transfer of 0 bytes");
  if (a >= cap_ || cap_ - a < len)
    fatal("access at host address " + std::to_string(a) + " beyond the capacity of " + std::to_string(cap_) + " B");
  unsigned char* p = gp.get_data_ptr();
  const unsigned bytes = payload_data_bytes(gp);
  if (gp.is_write()) {
    ++writes_;
    write_bytes_ += bytes;
    if (bulk) {
      if (bstore_write(mem_, a, p, len) != 0) fatal("out of memory in the host store");
      return;
    }
    const GpuExt* e = GpuExt::find(gp);
    uint64_t bm[2] = {e ? e->byte_mask[0] : 0, e ? e->byte_mask[1] : 0};
    if (!bm[0] && !bm[1]) {  // no byte mask: the request's whole sectors (all four when none)
      const unsigned m = e && (e->sector_mask & 0xfu) ? e->sector_mask & 0xfu : 0xfu;
      for (unsigned k = 0; k < kSectorsPerLine; ++k)
        if ((m >> k) & 1u) bm[k >> 1] |= 0xffffffffull << ((k & 1) * 32);
    }
    if (bstore_write_masked(mem_, a, p, bm) != 0) fatal("out of memory in the host store");
    return;
  }
  ++reads_;
  read_bytes_ += bytes;
  if (bulk) {
    bstore_read(mem_, a, p, len);
    return;
  }
  const GpuExt* e = GpuExt::find(gp);
  const unsigned m = e && (e->sector_mask & 0xfu) ? e->sector_mask & 0xfu : 0xfu;
  for (unsigned k = 0; k < kSectorsPerLine; ++k)
    if ((m >> k) & 1u) bstore_read(mem_, a + k * kSectorBytes, p + k * kSectorBytes, kSectorBytes);
}

void HostMem::accept(uint32_t port, tlm_generic_payload& gp, uint64_t arrival) {
  access(gp);
  if (gp.has_mm()) gp.acquire();  // held until its response is taken
  WireQueue::Entry e;
  e.gp = &gp;
  e.arrival = arrival;
  e.port = port;
  e.bytes = payload_data_bytes(gp);
  wq_.push(e, sim_now().value());
  rearm();
}

tlm_sync_enum HostMem::fw(int id, tlm_generic_payload& gp, tlm_phase& ph, sc_time& d) {
  const uint32_t port = static_cast<uint32_t>(id);
  if (ph == tlm::BEGIN_REQ) {
    const uint64_t arrival = sim_now().value() + d.value();
    if (!wq_.full() && waiters_.empty()) {
      accept(port, gp, arrival);
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (!waiters_.push(Waiter{&gp, arrival, port}))
      fatal("BEGIN_REQ on a port whose previous request still waits for END_REQ (base protocol)");
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {
    if (!held_ || wq_.empty() || wq_.front().gp != &gp) fatal("END_RESP for a response not outstanding");
    held_ = false;
    taken();
    respond();
    rearm();
    return tlm::TLM_COMPLETED;
  }
  fatal("unexpected phase from an initiator");
}

void HostMem::b_transport(int id, tlm_generic_payload& gp, sc_time& d) {
  (void)d;
  dbg(id, gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned HostMem::dbg(int id, tlm_generic_payload& gp) {
  (void)id;
  const uint64_t a = gp.get_address();
  const unsigned n = gp.get_data_length();
  if (a >= cap_ || cap_ - a < n) return 0;
  if (gp.is_read()) bstore_read(mem_, a, gp.get_data_ptr(), n);
  else if (gp.is_write() && bstore_write(mem_, a, gp.get_data_ptr(), n) != 0) return 0;
  return n;
}

void HostMem::run() {
  wq_.send_due(sim_now().value());
  respond();
  rearm();
}

void HostMem::rearm() {
  const uint64_t t = wq_.next_due(held_);
  if (t != WireQueue::kNever) ev_.notify_at(t, sim_now().value());
}

void HostMem::respond() {
  while (!held_ && wq_.head_due(sim_now().value())) {
    WireQueue::Entry& e = wq_.front();
    e.gp->set_response_status(tlm::TLM_OK_RESPONSE);
    if (GpuExt* x = GpuExt::find(*e.gp)) {  // device feedback, as MemCtrl gives it: service time, no row buffer
      const uint64_t lat = (sim_now().value() - e.arrival) / ps_;
      x->dev_latency_ps = lat > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(lat);
      x->row = 0;
    }
    tlm_phase ph = tlm::BEGIN_RESP;
    sc_time t = sc_core::SC_ZERO_TIME;
    const tlm_sync_enum s = tsock[static_cast<int>(e.port)]->nb_transport_bw(*e.gp, ph, t);
    if (s == tlm::TLM_ACCEPTED) {
      held_ = true;
      return;
    }
    if (!(s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && ph == tlm::END_RESP)))
      fatal("an initiator answered BEGIN_RESP other than with TLM_COMPLETED or END_RESP");
    taken();
  }
}

void HostMem::taken() {
  const uint64_t now = sim_now().value();
  const WireQueue::Entry e = wq_.pop(now);
  lat_ps_ += (now - e.arrival) / ps_;
  if (e.gp->has_mm()) e.gp->release();
  if (waiters_.empty()) return;
  const Waiter w = waiters_.front();
  waiters_.pop();
  accept(w.port, *w.gp, w.arrival);
  tlm_phase ph = tlm::END_REQ;
  sc_time t = sc_core::SC_ZERO_TIME;
  tsock[static_cast<int>(w.port)]->nb_transport_bw(*w.gp, ph, t);
}

}  // namespace strata
