// Xbar: the SM <-> L2 crossbar (GPGPU-Sim's "icnt" in its simple crossbar
// form): requests routed by GpuExt::l2_bank, responses back to the port they
// came from (pushed on the payload's route, GpuExt::push_hop, and popped for the response). Modeled analytically, no cycle loop:
//
//  * every port has a link of cfg.bytes_per_cycle in each direction; a packet
//    of B bytes is ceil(B / bytes_per_cycle) flits and holds a link that many
//    cycles (next-free time per link). Request = 8 B header + written bytes;
//    response = 8 B header + read data (32 B per requested sector).
//  * a packet enters on its source link when that link is free, crosses the
//    switch in cfg.latency cycles (cut-through), then serialises on its
//    destination link; unloaded delivery = (latency + flits) cycles after arrival.
//  * each destination port buffers at most cfg.queue packets (held until the
//    receiver accepts them). When full, the sender gets TLM_ACCEPTED and its
//    END_REQ (requests) / END_RESP (responses) comes when a slot frees, in
//    arrival order of the waiting senders: TLM-2.0 base protocol backpressure.
//
// Stats noc.req.* and noc.resp.*: packets, flits, bytes, avg_queue_delay
// (cycles spent beyond the unloaded latency, backpressure included).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/cfg.h"
#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"
#include "noc/queues.h"

namespace strata {

class Xbar : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Xbar);
  tlm_utils::multi_passthrough_target_socket<Xbar> from_sm;    // SM i binds as port i
  tlm_utils::multi_passthrough_initiator_socket<Xbar> to_l2;   // bank b bound as port b

  static constexpr unsigned kHeaderBytes = 8;

  Xbar(sc_core::sc_module_name name, unsigned num_sms, unsigned num_banks, const XbarCfg& cfg, StatsRegistry& stats);

  // Packets of a request / response carrying `data_bytes` of payload.
  unsigned flits(unsigned data_bytes) const { return (kHeaderBytes + data_bytes + bpc_ - 1) / bpc_; }
  uint64_t req_packets() const { return dir_[kReq].packets; }
  uint64_t resp_packets() const { return dir_[kResp].packets; }
  bool idle() const;
  // Occupancy of every non-empty port (queued, waiting senders, blocked) for stall reports.
  std::string debug_state() const;

 private:
  enum { kReq = 0, kResp = 1 };
  // Times are kernel ticks (sc_time::value()): integer arithmetic on the
  // per-packet path, the same values the sc_time operators would give.
  struct Entry {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t ready = 0, arrival = 0;
    unsigned flits = 0;
  };
  struct Out {  // destination port (bank for requests, SM for responses)
    Ring<Entry> q;
    Ring<uint32_t> waiters;   // source ports whose packet waits for a slot
    uint64_t free = 0;        // destination link next-free time
    bool blocked = false;     // receiver returned TLM_ACCEPTED; END_* pending
  };
  struct In {  // source port
    uint64_t free = 0;        // source link next-free time
    tlm::tlm_generic_payload* pending = nullptr;
    uint32_t dst = 0;
    uint64_t arrival = 0;
  };
  struct Dir {
    std::vector<In> in;
    std::vector<Out> out;
    uint64_t packets = 0, flits = 0, bytes = 0, delay_ps = 0;
  };

  tlm::tlm_sync_enum fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  unsigned dbg(int id, tlm::tlm_generic_payload& gp);
  void wake_method();

  unsigned data_bytes(int dir, tlm::tlm_generic_payload& gp) const;
  // Offer a packet from source port `src` to destination `dst`; true if admitted now.
  bool offer(int dir, uint32_t src, uint32_t dst, tlm::tlm_generic_payload& gp, uint64_t arrival);
  void admit(int dir, uint32_t src, uint32_t dst, tlm::tlm_generic_payload& gp, uint64_t arrival);
  void deliver(int dir, uint32_t dst);
  void pop_front(int dir, uint32_t dst);  // receiver took the head: free its slot, admit a waiter
  [[noreturn]] void fatal(const char* msg) const;

  const unsigned num_sms_, num_banks_;
  const XbarCfg cfg_;
  const unsigned bpc_;
  const uint64_t T_;        // clock period in ticks
  const uint64_t ps_unit_;  // sc_time ticks per picosecond
  Dir dir_[2];
  TimedQueue<uint32_t> wake_q_;  // (dir << 31 | port) at the time its head is ready
  Event wake_ev_;
};

}  // namespace strata
