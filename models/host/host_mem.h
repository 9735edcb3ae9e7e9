// HostMem: the host-memory device (memory kind HOST, models/ref/base/addrmap.h
// AMAP_MEM_HOST) -- the CPU memory a GPU reaches over a host link (PCIe,
// NVLink: models/link/tlm_link.h) under Unified Memory. A TLM target that stores
// bytes (a bstore by host address) and serves requests with a bandwidth +
// latency model: one data path that requests use one after another in
// arrival order (data bytes / bandwidth each, models/ref/mem/link.h without
// headers), each answered `latency_ps` after its data has passed. Presets:
// models/ref/mem/hostmem.c (HMS Table I: 46.6 GB/s CPU memory, 0.135 us per
// cacheline access over NVLink).
//
// Protocol (the AT base protocol of every Strata link): BEGIN_REQ on tsock
// port p (address = host byte address; a 128 B line with GpuExt sector and
// byte masks, or a span -- another data length or an address not 128 B
// aligned, MemCtrl's rule (payload_is_span): a memory side's own transfer of
// up to 64 KiB -- moved whole) is accepted at once
// (TLM_UPDATED + END_REQ) while fewer than `queue` requests are held, else
// TLM_ACCEPTED and END_REQ when one leaves (waiting ports in arrival order).
// Functional data are read or written at acceptance, so every request sees
// the requests accepted before it. The response (BEGIN_RESP, TLM_OK_RESPONSE,
// delay 0; GpuExt::dev_latency_ps = its time from arrival to response, row 0:
// the device feedback a memory-side policy reads in complete()) goes back on
// the request's port, in arrival order; an initiator's
// TLM_ACCEPTED holds the responses behind it until END_RESP. An access beyond
// the capacity is a model bug (SC_REPORT_FATAL). transport_dbg and
// b_transport read and write the store untimed.
//
// Stats under hostmem.<basename>: reads, writes, read_bytes, write_bytes,
// busy_fraction (data-path time / simulated time), avg_latency_ns (arrival to
// response), avg_queue_delay_ns (beyond the unloaded data time + latency).
#pragma once
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"
#include "link/wire_queue.h"
#include "noc/queues.h"

extern "C" {
#include "base/bstore.h"
#include "mem/hostmem.h"
}

namespace strata {

struct HostMemCfg {
  uint64_t capacity_bytes = 0;  // host addresses 0 .. capacity - 1 (> 0)
  uint64_t bytes_per_s = 0;     // data bandwidth, reads and writes together
  uint64_t latency_ps = 0;      // data passed -> response
  unsigned queue = 0;           // requests held: accepted, response not yet taken (> 0)
  uint64_t window_ps = 0;       // utilisation window (a multiple of LINK_WINDOW_SLOTS ps, > 0)
  // A preset (models/ref/mem/hostmem.c hostmem_find) with the platform's capacity
  // and queue; utilisation over 1 us.
  static HostMemCfg from_preset(const hostmem_preset& p, uint64_t capacity, unsigned queue) {
    return HostMemCfg{capacity, p.bytes_per_s, p.latency_ps, queue, 1000000};
  }
};

class HostMem : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HostMem);
  tlm_utils::multi_passthrough_target_socket<HostMem> tsock;

  // contents: the host memory's bytes, by host address (the caller's store).
  // order: same-time rank (sched.h); by default after every device
  // controller. A bad cfg throws std::invalid_argument naming the device.
  HostMem(sc_core::sc_module_name name, const HostMemCfg& cfg, bstore* contents, StatsRegistry& stats,
          Order order = {Stage::DeviceCtrl, 1u << 20});
  HostMem(const HostMem&) = delete;
  HostMem& operator=(const HostMem&) = delete;

  // Busy fraction of the data path over its window up to now (the device's
  // utilisation for bandwidth-aware policies; link_busy_fraction).
  double utilisation() const { return link_busy_fraction(&wq_.chan(), wq_.now_ps()); }
  uint64_t capacity() const { return cap_; }
  unsigned occupancy() const { return static_cast<unsigned>(wq_.size()); }
  bool idle() const { return wq_.empty() && waiters_.empty() && !held_; }

 private:
  struct Waiter {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t arrival = 0;
    uint32_t port = 0;
  };
  tlm::tlm_sync_enum fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d);
  unsigned dbg(int id, tlm::tlm_generic_payload& gp);
  void end_of_elaboration() override;
  void accept(uint32_t port, tlm::tlm_generic_payload& gp, uint64_t arrival);
  void access(tlm::tlm_generic_payload& gp);  // functional read / write
  void run();
  void respond();  // answer the due heads
  void taken();    // an initiator took the head's response
  void rearm();
  [[noreturn]] void fatal(const std::string& msg) const;

  const uint64_t cap_;
  bstore* mem_;
  const uint64_t ps_;  // ticks per ps
  WireQueue wq_;
  Ring<Waiter> waiters_;
  bool held_ = false;  // the head's BEGIN_RESP awaits END_RESP
  uint64_t reads_ = 0, writes_ = 0, read_bytes_ = 0, write_bytes_ = 0, lat_ps_ = 0;
  Event ev_;
};

}  // namespace strata
