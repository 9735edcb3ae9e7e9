// MemSide: the memory-side controller of one memory partition. A thin AT shell
// that hosts a C policy (models/ref/memside.h: plain, swap, ... one file per
// policy) between the L2 banks of the partition and its device controllers
// (MemCtrl, one per channel of the partition). See docs/architecture.md
// "Two-level address map" and "Memory-side controllers".
//
// Address spaces: above this module, payload addresses are physical line
// addresses; below it, device addresses (models/ref/devaddr.h) of the device
// controller the policy chose. On the way down the shell keeps the physical
// address in GpuExt::phys_addr, sets GpuExt::mem_type to the kind of the
// serving rank and rewrites the address; on the way back it restores the
// address (as a TLM-2.0 router does), so the L2 sees its own request and
// learns the line's current memory kind from the response.
//
// Ports: tsock port k = the k-th L2 bank bound (upstream). isock is bound, per
// device controller d, (upstream ports + 1) times: port d * (U + 1) + k carries
// upstream port k's requests to device d one for one (the device controller's
// per-port back-pressure is the L2's, unchanged), port d * (U + 1) + U the
// policy's own transfers (class Migration, Fill, Probe, ... as the policy
// says; up to 4 KiB each, sent as line requests).
//
// Protocol: the AT base protocol of every Strata link, passed through: a
// BEGIN_REQ routed now goes straight to the device controller with the same
// annotation and its answer (TLM_UPDATED/END_REQ or TLM_ACCEPTED) is returned;
// END_REQ and BEGIN_RESP from the device are forwarded to the same upstream
// port; END_RESP from upstream goes to the device. A request the policy holds
// (MEMSIDE_HOLD, e.g. its line is being moved) is answered TLM_ACCEPTED and
// sent when the policy releases it; END_REQ follows then.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/memkind.h"
#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"

extern "C" {
#include "bstore.h"
#include "memside.h"
}

namespace strata {

class MemSide : public sc_core::sc_module, public MemKindIf {
 public:
  SC_HAS_PROCESS(MemSide);
  tlm_utils::multi_passthrough_target_socket<MemSide> tsock;     // from the partition's L2 banks
  tlm_utils::multi_passthrough_initiator_socket<MemSide> isock;  // to its device controllers (see above)

  // ops/cfg: the policy and its partition (cfg.ndevs device controllers);
  // upstream: the number of L2 banks that will bind to tsock. Policy
  // initialisation errors are a bad configuration: they throw
  // std::invalid_argument with the policy's one-line reason.
  MemSide(sc_core::sc_module_name name, const memside_ops* ops, const memside_cfg& cfg, unsigned upstream,
          PayloadPool& pool, StatsRegistry& stats);
  MemSide(const MemSide&) = delete;
  MemSide& operator=(const MemSide&) = delete;

  // Binds isock to device controller d's target socket (upstream + 1 times);
  // call once per device, in device order.
  // dev_mem: that device's contents (by device address), for the set-up
  // back door write_functional (socket calls are possible only once the
  // platform is elaborated).
  template <typename Target>
  void connect(Target& dev_tsock, bstore* dev_mem) {
    for (unsigned k = 0; k <= up_; ++k) isock.bind(dev_tsock);
    dev_mem_.push_back(dev_mem);
    ++bound_devs_;
  }

  // MemKindIf: the kind (AMAP_MEM_*) of the memory serving a line now.
  uint8_t kind_of(uint64_t line) const override;
  // Where a physical address lives now (functional).
  memside_target locate(uint64_t pa) const;
  // Set-up (before the simulation starts): physical bytes into the devices
  // (a program's initial data), each line where the policy places it.
  void write_functional(uint64_t pa, const unsigned char* src, size_t len);
  // Nothing held, queued or outstanding.
  bool idle() const;
  const char* policy_name() const { return ops_->name; }

  // memside.moves, memside.moved_bytes, memside.remaps, memside.held,
  // memside.own_read_bytes, memside.own_write_bytes (sums over partitions).
  static void register_totals(StatsRegistry& stats, const std::vector<MemSide*>& parts);

 private:
  struct Own {  // a policy transfer in the shell
    memside_xfer x;
    unsigned parts = 0, sent = 0, left = 0;  // line requests: in all, sent, not yet answered
  };

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  void end_of_elaboration() override;

  // Route gp (physical) to its device now; false = held by the policy.
  bool route(unsigned port, tlm::tlm_generic_payload& gp, memside_target* t, uint32_t ticket);
  tlm::tlm_sync_enum forward(unsigned port, tlm::tlm_generic_payload& gp, const memside_target& t,
                             tlm::tlm_phase& ph, sc_core::sc_time& d);
  void release_process();  // held requests, after env.release
  void own_process();      // send queued own transfers
  void own_response(unsigned dev, tlm::tlm_generic_payload& gp);
  unsigned dev_port(unsigned dev, unsigned up) const { return dev * (up_ + 1) + up; }
  [[noreturn]] void fatal(const std::string& msg) const;

  static int env_issue(void* ctx, const memside_xfer* x);
  static void env_release(void* ctx);

  const memside_ops* ops_;
  memside_cfg cfg_;
  memside_env env_{};
  std::vector<unsigned char> st_;  // policy state
  PayloadPool& pool_;
  const unsigned up_;
  unsigned bound_devs_ = 0;
  std::vector<bstore*> dev_mem_;  // per device (connect)
  std::vector<unsigned> port_dev_, port_up_;  // per isock port: its device and upstream port

  std::vector<tlm::tlm_generic_payload*> held_;  // per upstream port: request held by the policy
  std::vector<unsigned> held_order_;             // ports with a held request, oldest first
  std::vector<uint32_t> held_ticket_;            // per upstream port: the policy's ticket of its held request
  Event release_ev_;
  std::vector<unsigned> resp_dev_;               // per upstream port: device of its last BEGIN_RESP

  std::vector<Own> own_;                 // slots (MEMSIDE_XFER_SLOTS)
  std::vector<uint32_t> own_free_;
  std::vector<uint32_t> own_queue_;      // slots waiting to be sent, in issue order
  std::vector<tlm::tlm_generic_payload*> own_wait_;  // per device: own transfer waiting for END_REQ
  Event own_ev_;

  struct Stats {
    uint64_t routed = 0, held = 0, own_reads = 0, own_writes = 0, own_read_bytes = 0, own_write_bytes = 0;
  } st2_;
  mutable std::vector<uint64_t> pol_vals_;  // the policy's own counters (memside_ops.stat_values)
  uint64_t policy_value(size_t i) const;
  void register_stats(StatsRegistry& stats);
};

}  // namespace strata
