// Link: a point-to-point link between two TLM sockets -- GPU to memory stack,
// stack to stack, memory side to host memory (PCIe, NVLink) -- as a pair of
// unidirectional channels, each with its own bandwidth (TOM,
// tom-ndp-offload-and-mapping.txt Sec. 3.1.1 and Table 1: TX from the GPU to
// the stack carries addresses and store data, RX back carries load data and
// acknowledgements). Timing, energy and the busy monitor of each direction are
// the C reference models/ref/mem/link.h (packets with header and flit overhead,
// serialisation = wire bytes / bandwidth, plus latency).
//
// Sockets: `tsock` (multi-port: one or more initiators bind, e.g. a MemSide's
// ports to one device) in, `isock` out to one target. Requests go down the
// request direction, responses up the response direction:
//  * a request carries a write's data (link_request_bytes: 32 B per sector
//    the write touches, or the whole buffer of a bulk transfer), a read none;
//    a response a read's data, a write's none (an acknowledgement). Every
//    transfer also pays its packets' headers and flit padding.
//  * Protocol (the AT base protocol of every Strata link): BEGIN_REQ on tsock
//    port p is accepted at once (TLM_UPDATED + END_REQ) while the request
//    direction holds fewer than `queue` transfers, else answered TLM_ACCEPTED
//    and given END_REQ when a transfer leaves (waiting senders in arrival
//    order). A transfer goes on the wire at its arrival time (sc_time_stamp +
//    annotation) once every transfer before it has gone, and is handed to the
//    target (BEGIN_REQ on isock, delay 0) when its last bit is there,
//    in arrival order; it keeps its place in the queue until the target
//    gives END_REQ (TLM_UPDATED or later), so a slow target fills the queue
//    and the link withholds END_REQ upstream (back-pressure; nothing is
//    dropped). Responses: BEGIN_RESP from the target is accepted
//    (TLM_COMPLETED) while the response direction has room, else TLM_ACCEPTED
//    and END_RESP later; each goes up to the port its request came from
//    (BEGIN_RESP on tsock, delay 0) in the order the target answered; an
//    initiator's TLM_ACCEPTED holds the responses behind it until END_RESP.
//  * Route back: with more than one port bound to tsock the link pushes the
//    port on the payload's route (GpuExt::push_hop) and pops it for the
//    response; with one, the route is left alone.
//  * transport_dbg and b_transport pass through untimed (functional back doors).
//  * Payloads with a memory manager are acquired while the link holds them.
// Scheduling: one strata::Event per direction at the next transfer due
// (wire start or arrival at the receiver); nothing runs while the link idles.
//
// Stats, under link.<basename>: req.* and resp.* -- transfers, packets,
// data_bytes, bytes (on the wire: data + headers + flit padding),
// busy_fraction (wire time / simulated time), energy_j (traffic + idle),
// avg_queue_delay_ns (time from arrival to the receiver's acceptance beyond
// the unloaded wire time + latency: waiting for room, for the wire, for the
// receiver) -- and energy_j (both directions).
#pragma once
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "common/payload.h"
#include "common/probe.h"
#include "common/sched.h"
#include "common/stats.h"
#include "link/wire_queue.h"
#include "noc/queues.h"

namespace strata {

struct LinkCfg {
  ::link_cfg req{};    // request direction: tsock -> isock (a GPU-stack link's TX)
  ::link_cfg resp{};   // response direction: isock -> tsock (RX)
  unsigned queue = 0;  // transfers each direction holds: on the wire or waiting for the receiver (> 0)
  // Both directions as a preset (models/ref/mem/link.c link_find), `queue` each.
  static LinkCfg from_preset(const link_preset& p, unsigned queue) { return LinkCfg{p.cfg, p.cfg, queue}; }
};

class Link : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Link);
  tlm_utils::multi_passthrough_target_socket<Link> tsock;  // initiators bind here (port p = p-th binding)
  tlm_utils::simple_initiator_socket<Link> isock;          // to the target
  enum Dir { kReq = 0, kResp = 1 };

  // order: same-time rank of the link's processes (sched.h; links are
  // Stage::Noc, instance 0 is the crossbar). A bad cfg (link_init's checks,
  // queue 0) throws std::invalid_argument naming the link.
  Link(sc_core::sc_module_name name, const LinkCfg& cfg, StatsRegistry& stats, Order order = {Stage::Noc, 1});
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  // Busy monitor of a direction: busy fraction of its window up to now
  // (link_busy_fraction; TOM Sec. 4.1 "Channel Busy Monitor").
  double busy_fraction(Dir d) const { return link_busy_fraction(&dir_[d].wq.chan(), dir_[d].wq.now_ps()); }
  // The C model of a direction (counters, configuration).
  const link_chan& channel(Dir d) const { return dir_[d].wq.chan(); }
  // Energy of both directions up to now, joules.
  double energy_j() const;
  // Transfers a direction holds now (on the wire or waiting for the receiver).
  unsigned occupancy(Dir d) const { return static_cast<unsigned>(dir_[d].wq.size()); }
  // Nothing held, waiting or blocked in either direction.
  bool idle() const;
  // Time series: link.<basename>.{req,resp}.busy (the busy monitor per epoch).
  void register_probes(ProbeRegistry& probes);

 private:
  struct Waiter {  // a sender whose transfer waits for room
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t arrival = 0;
    uint32_t port = 0;
  };
  struct Direction {
    explicit Direction(const link_cfg& c, unsigned queue, const std::string& what) : wq(c, queue, what) {}
    WireQueue wq;
    Ring<Waiter> waiters;
    bool held = false;  // the receiver answered the head with TLM_ACCEPTED; END_* due
    Event ev;
  };

  tlm::tlm_sync_enum fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d);
  unsigned dbg(int id, tlm::tlm_generic_payload& gp);
  void end_of_elaboration() override;

  // A transfer reaches direction d from `port` at `arrival`; true if it was
  // accepted now (false: it waits for room, END_* comes later).
  bool offer(Dir d, uint32_t port, tlm::tlm_generic_payload& gp, uint64_t arrival);
  void admit(Dir d, uint32_t port, tlm::tlm_generic_payload& gp, uint64_t arrival);
  void run_req() { run(kReq); }
  void run_resp() { run(kResp); }
  void run(Dir d);
  void deliver(Dir d);    // hand due heads to the receiver
  void taken(Dir d);      // the receiver took the head: free its place, admit a waiter
  void rearm(Dir d);
  [[noreturn]] void fatal(const std::string& msg) const;

  Direction dir_[2];
  const std::string prefix_;  // stat names: link.<basename>
  bool route_ = false;        // more than one port bound: the response route is on the payload
};

}  // namespace strata
