// MemCtrl: the memory controller of one channel. A thin AT timing shell around
// the C engine models/ref/mem/mc.h (FR-FCFS, open page, write drain, refresh, all
// device timing from the preset table models/ref/mem/dram.c) -- see docs/memctrl.md.
//
// Protocol (TLM-2.0 AT base protocol, as everywhere in Strata):
//  * BEGIN_REQ on tsock[port]: address = the device address (models/ref/
//    devaddr.h: rank, bank group, bank, row, column of this channel; the
//    memory side, models/memside, chose it) of a 128 B line, GpuExt::sector_mask = the
//    32 B sectors (a write also covers the sectors its GpuExt::byte_mask
//    touches; an empty mask means the whole line). The engine queues one atom
//    (column access of dram_preset.atom_bytes = 32, 64 or 128 B) per part of
//    the line that holds an asked sector: a 32 B device one per sector, a
//    64 B device (DDR3 x64, BL8) one per pair of sectors, so a line's four
//    sectors are two bursts and one sector is a whole burst (a read discards
//    the rest, a write masks it). If the
//    read/write queue has room for all atoms: TLM_UPDATED + END_REQ; else
//    TLM_ACCEPTED and END_REQ later on the backward path of the same port (one
//    waiting request per port; the initiator sends nothing else on that port
//    before END_REQ).
//  * Any other request is a span: data length a multiple of the 32 B sector
//    from 32 B up to kMaxTransferBytes (64 KiB), at an address aligned to it
//    (each child line's atoms follow from its sectors as above); its bytes
//    are the payload's data from offset 0 (sector and byte masks unused; a
//    write writes them all). The controller splits it into child requests,
//    one per 128 B line it touches (as DRAMSys splits a parent transaction),
//    queues them as room allows and answers once, when the last is done: a
//    64 B DRAM-cache line, a 2 KiB page, a 64 KiB migration chunk. END_REQ
//    comes when the last child is queued (TLM_UPDATED at once if they all
//    fit, else TLM_ACCEPTED); while children wait for room, the request
//    takes its turn among the waiting requests after each child it queues,
//    as the lines of a transfer sent one by one would.
//  * The request enters the engine at sc_time_stamp() + delay, rounded up to
//    the next memory-clock edge.
//  * When all its atoms are done: BEGIN_RESP on tsock[port]->nb_transport_bw,
//    response status OK. TLM_COMPLETED (or TLM_UPDATED/END_RESP) ends it;
//    TLM_ACCEPTED holds further responses of that port until END_RESP.
// Functional data lives in `device_mem` (a bstore indexed by device address):
// write bytes (GpuExt::byte_mask) are stored when the write is accepted, so any
// later read sees them; a read copies its sectors into the payload buffer when
// it completes. transport_dbg / b_transport are functional back doors (no
// timing, no stats).
// Scheduling: one process woken by one strata::Event at the engine's next event
// (mc_next_event) or the next delayed arrival; no per-cycle process.
// Timing check (McCfg::check_dev set, mem.timing_check on by default): every command the engine
// issues goes through an independent checker (models/ref/mem/tcheck.h) before any
// user command log; the first violation prints one line naming the channel,
// cycle, command and rule and ends the process with exit status 3, as the
// golden-memory checker does (models/common/check.h).
#pragma once
#include <cstdint>
#include <string>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/cfg.h"
#include "common/devload.h"
#include "common/payload.h"
#include "common/probe.h"
#include "common/sched.h"
#include "common/stats.h"

extern "C" {
#include "base/bstore.h"
#include "base/devaddr.h"
#include "mem/dram.h"
#include "mem/mc.h"
#include "mem/tcheck.h"
}

namespace strata {

class MemCtrl : public sc_core::sc_module, public DevLoadIf {
 public:
  SC_HAS_PROCESS(MemCtrl);
  tlm_utils::multi_passthrough_target_socket<MemCtrl> tsock;  // the L2 banks of this channel bind here

  // channel: the global channel index (stat names); cfg: the ready-made
  // set-up (strata::mc_setup in platform/memsys.h, or
  // tests/module/mc_test_setup.h) -- the controller keeps copies of its
  // presets (engine.dev, engine.rank_devs, check_dev); device_mem: this
  // channel's contents, by device address.
  MemCtrl(sc_core::sc_module_name name, unsigned channel, const McCfg& cfg, bstore* device_mem, PayloadPool& pool,
          StatsRegistry& stats);
  ~MemCtrl() override;
  MemCtrl(const MemCtrl&) = delete;
  MemCtrl& operator=(const MemCtrl&) = delete;

  // mem.reads, mem.writes, mem.read_bytes, mem.write_bytes, mem.bandwidth_gbps,
  // mem.peak_bandwidth_gbps, mem.avg_read_latency_ns, mem.row_hit_rate,
  // mem.energy_j (and a few more, see docs/memctrl.md).
  static void register_totals(StatsRegistry& stats, const std::vector<MemCtrl*>& mcs);
  // Time series per channel: mem.ch<N>.bandwidth_gbps, .read_queue, .write_queue.
  static void register_probes(ProbeRegistry& probes, const std::vector<MemCtrl*>& mcs);

  // For the platform's epoch sampler.
  unsigned read_queue_occupancy() const { return mc_rq_occupancy(&mc_) + reserved_[0]; }
  unsigned write_queue_occupancy() const { return mc_wq_occupancy(&mc_) + reserved_[1]; }
  uint64_t bytes_transferred() const { return mc_.st.rd_bytes + mc_.st.wr_bytes; }
  // Nothing queued, in flight, or waiting to be answered.
  bool idle() const;

  const dram_preset& device() const { return *dev_; }
  unsigned rank_count() const { return mc_.cfg.ranks; }
  // Preset of rank r (McCfg::engine.rank_devs, or device()).
  const dram_preset& rank_device(unsigned r) const { return rank_dev_.empty() ? *dev_ : *rank_dev_[r]; }
  unsigned channel() const { return ch_; }
  sc_core::sc_time clock_period() const { return sc_core::sc_time(period_ps_, sc_core::SC_PS); }
  // Memory-clock cycle of a time (rounded up to the next clock edge), and back.
  uint64_t cycle_of(const sc_core::sc_time& t) const;
  sc_core::sc_time time_of(uint64_t cycle) const;
  // Engine counters (cumulative) and energy so far.
  const mc_stats& counters();
  mc_energy_j energy();
  // The same for one rank, and its time in each power state (mc_rank_power).
  mc_energy_j rank_energy(unsigned rank);
  mc_power rank_power(unsigned rank);
  // A memory-side policy that gates rows itself (memside_ops.rank_background_j) gives rank r's background
  // energy; fn(r) < 0 leaves the engine's power-state accounting. energy() and rank_energy() report it.
  void set_background_source(std::function<double(unsigned rank)> fn) { bg_src_ = std::move(fn); }
  // Command log hook (traces, extra checkers); see mc_set_cmd_log. Called
  // after the built-in timing checker.
  void set_cmd_log(mc_cmd_fn fn, void* ctx) {
    log_fn_ = fn;
    log_ctx_ = ctx;
  }
  // Run-time timing scaling (SCM throttling, HMS Sec. III-E): mc_scale_timing
  // on the engine and the same tcheck_scale on the timing checker, so the
  // checker follows the throttled device. Returns false (nothing changed) on
  // invalid multipliers.
  // The engine's next event is re-evaluated (it can only move earlier).
  bool scale_timing(unsigned rcd_mult, unsigned wr_mult) {
    if (mc_scale_timing(&mc_, rcd_mult, wr_mult) != 0) return false;
    if (tc_on_) tcheck_scale(&tc_, rcd_mult, wr_mult);
    schedule();
    return true;
  }
  // The same for rank r only (HMS throttles the SCM rank of a mixed channel).
  bool scale_rank_timing(unsigned r, unsigned rcd_mult, unsigned wr_mult) {
    if (mc_scale_rank_timing(&mc_, r, rcd_mult, wr_mult) != 0) return false;
    if (tc_on_) tcheck_scale_rank(&tc_, r, rcd_mult, wr_mult);
    schedule();
    return true;
  }
  // Timing of rank r in force (its preset's, scaled by scale_rank_timing).
  const dram_timing& rank_timing(unsigned r) const { return mc_.ranks[r].t; }
  // The built-in timing checker (nullptr when McCfg::check_dev is null).
  const tcheck* timing_checker() const { return tc_on_ ? &tc_ : nullptr; }
  // End of run: brings an idle engine's refreshes up to the current time
  // (also with the checker off), then the end-of-run timing check (refresh
  // interval). Exits with status 3 on a violation, like a violating command.
  void finish_timing_check();
  uint64_t read_latency_ps_sum() const { return lat_ps_sum_; }
  // DevLoadIf: data-bus busy fraction over the last window_ps (1/65536 units),
  // from snapshots of the busy-cycle counter taken every kUtilStep memory
  // cycles on the controller's own events: the window is rounded down to a
  // snapshot (at most kUtilStep cycles off) and capped at kUtilSnaps x
  // kUtilStep cycles; over an idle stretch without events the newest
  // snapshot before it is used.
  uint32_t bus_util_q16(uint64_t window_ps) override;
  static constexpr unsigned kUtilSnaps = 64;
  static constexpr uint64_t kUtilStep = 128;
  // Counters by request class (ReqClass: the L2's reads count as demand, its
  // writes as write-back, a memory-side policy's own transfers by their class;
  // GpuExt::own): requests completed, bytes, arrival-to-completion time, and
  // the requests by their row-buffer outcome (mc_row: the worst of their
  // column accesses, the GpuExt::row a memory-side policy hears).
  struct ClassCount {
    uint64_t reads = 0, writes = 0, bytes = 0, lat_ps = 0;
    uint64_t row[3] = {0, 0, 0};  // hit, miss, conflict
  };
  static constexpr unsigned kClasses = 8;
  const ClassCount& class_count(unsigned c) const { return cls_[c]; }

 private:
  struct Slot {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t arrive_ps = 0;
    uint32_t port = 0;
    uint32_t next = 0;   // free list / per-port response FIFO link
    uint8_t mask = 0;    // sectors
    uint8_t atoms = 0;   // column accesses (atoms_of(mask))
    bool write = false;
    uint8_t cls = 0;     // ReqClass as counted (class_of)
    uint8_t row = 0;     // mc_row of the engine's completion (a span: the worst of its children's)
    // A span request (bytes != 0): its address and length, bytes handed to the engine so far,
    // children not yet done, children done, and the sums of their arrival and completion times (ticks).
    uint64_t addr = 0;
    uint32_t bytes = 0, sent = 0, left = 0, ndone = 0;
    uint64_t arr_sum = 0, done_sum = 0;
  };
  // A child entering the engine later: engine tag (slot | child << 32), its line and sectors.
  struct Arrival {
    uint64_t cycle;
    uint64_t user;
    uint64_t line;
    uint8_t mask;
  };
  struct Port {
    tlm::tlm_generic_payload* waiting = nullptr;  // BEGIN_REQ not yet accepted
    uint64_t waiting_at = 0;                      // its arrival time (ticks: sim time + annotated delay)
    bool waiting_write = false;                   // of the waiting request
    uint8_t waiting_mask = 0;                     // its sectors (sectors_of)
    uint8_t waiting_atoms = 0;                    // its atoms (column accesses: queue entries it needs)
    uint8_t waiting_cls = 0;                      // its class (class_of)
    bool waiting_span = false;                    // a span request (waiting_atoms: its next child's)
    uint32_t waiting_slot = kNil;                 // a span's slot once its first child is accepted
    uint32_t resp_head = kNil, resp_tail = kNil;  // responses waiting for END_RESP of an earlier one
    uint32_t resp_busy = kNil;                    // slot whose BEGIN_RESP awaits END_RESP
  };
  static constexpr uint32_t kNil = ~0u;

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  void end_of_elaboration() override;

  void process();       // process of ev_
  void resp_process();  // process of resp_ev_ (responses held by END_RESP)
  void schedule();
  static uint8_t sectors_of(GpuExt* e, bool write);
  // The class a request counts in (ClassCount).
  static uint8_t class_of(const GpuExt* e, bool write) {
    if (!e) return 0;
    if (e->own) return static_cast<uint8_t>(e->cls);
    return static_cast<uint8_t>(write ? ReqClass::Writeback : ReqClass::Demand);
  }
  // mask: sectors_of(gp, gp.is_write()); cls: class_of; at: absolute arrival time (ticks).
  bool try_accept(unsigned port, tlm::tlm_generic_payload& gp, uint8_t mask, uint8_t cls, uint64_t at);
  void util_snapshot(uint64_t cycle);
  // Queue atoms for the sectors `mask` of device line `line` in the engine (tag user).
  void submit(uint64_t line, uint8_t mask, bool write, uint8_t cls, uint64_t user, uint64_t cycle);
  // The engine cycle of arrival time at (ticks), and whether it is now (else later).
  uint64_t arrival_cycle(uint64_t at, bool* now) const;
  // Hand (line, mask) of slot si to the engine at arrival time at (ticks): now, or later (reserved).
  void enter(uint32_t si, uint64_t user, uint64_t line, uint8_t mask, uint64_t at);
  // Span requests: child k's line and sectors; the next child's; accept children of the span on
  // port while they fit (the first allocates its slot *si and stores a write's bytes): true once all are.
  void span_child(const Slot& s, uint64_t at_byte, uint64_t* line, uint8_t* mask) const;
  // one: at most one child (a turn in the waiting order).
  bool accept_span(unsigned port, tlm::tlm_generic_payload& gp, uint8_t cls, uint64_t at, uint32_t* si,
                   bool one = false);
  uint8_t span_next_atoms(tlm::tlm_generic_payload& gp, uint32_t si) const;
  // A span's child done (read: its bytes copied); true when it was the span's last.
  bool span_child_done(Slot& s, uint64_t user, uint64_t now_ps);
  // Accept the waiting requests that fit now, oldest first per queue. The
  // usual case inline: the oldest waiting request of each queue still has no
  // room (the loop would block both at once).
  void accept_waiting() {
    if ((nwait_[0] && mc_.rq_n + reserved_[0] + first_need_[0] <= cfg_.read_queue) ||
        (nwait_[1] && mc_.wq_n + reserved_[1] + first_need_[1] <= cfg_.write_queue))
      accept_waiting_loop();
  }
  void accept_waiting_loop();
  void send_response(uint32_t slot);
  void begin_response(uint32_t slot);
  void finish(uint32_t slot);
  uint32_t alloc_slot();
  void register_stats(StatsRegistry& stats);
  // mem.<technology>.* of a mixed system (register_totals).
  static void register_tech_totals(StatsRegistry& stats, const std::vector<MemCtrl*>& mcs);
  [[noreturn]] void fatal(const std::string& msg) const;
  static void on_done(void* ctx, uint64_t user, int is_write, uint64_t cycle);
  static void on_cmd(void* ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                     uint32_t col);
  [[noreturn]] void timing_failed() const;

  unsigned ch_;
  McCfg cfg_;
  bstore* mem_;
  devaddr_geom geom_{};
  // Copies of McCfg's presets: [0] engine.dev, [1] check_dev, then one per
  // rank with engine.rank_devs; sized once, so the pointers below stay valid.
  std::vector<dram_preset> presets_;
  const dram_preset* dev_ = nullptr;
  std::vector<const dram_preset*> rank_dev_;  // McCfg::engine.rank_devs (empty: every rank dev_)
  std::vector<uint8_t> rank_kind_;            // AMAP_MEM_* of each rank's preset
  static constexpr double kOne = 1.0;         // value of the per-rank device.<preset> stats
  double period_ps_ = 1000.0;
  bool ps_res_ = false;  // 1 ps time resolution: cycle_of / time_of skip the library conversions
  // The clock period in kernel ticks when it is a whole number of them at a
  // 1 ps resolution (1 GHz: 1000), else 0: cycle_of / time_of / schedule then
  // use integer arithmetic with the same results (see cycle_of_ticks).
  uint64_t period_ticks_ = 0;
  // cycle_of(v ticks) when period_ticks_ != 0 (mem_ctrl.cpp)
  uint64_t cycle_of_ticks(uint64_t v) const {
    const uint64_t P = period_ticks_;
    const uint64_t q = v / P, r1000 = (v - q * P) * 1000, band = P / 1000 + 1;
    if (!(q >> 32)) {
      if (r1000 + band < P) return q;
      if (r1000 > P + band) return q + 1;
    }
    return cycle_of_double(sc_core::sc_time::from_value(v));
  }
  uint64_t cycle_of_double(const sc_core::sc_time& t) const;
  mc mc_{};
  tcheck tc_{};
  bool tc_on_ = false;
  mc_cmd_fn log_fn_ = nullptr;  // user command log (set_cmd_log)
  std::function<double(unsigned)> bg_src_;  // set_background_source
  void* log_ctx_ = nullptr;
  std::vector<Slot> slots_;
  uint32_t free_slot_ = kNil;
  std::vector<Arrival> arrivals_;     // accepted, entering the engine later (sorted by cycle)
  std::vector<uint64_t> done_;        // engine parents (tags) finished during the last mc_advance
  std::vector<uint32_t> answer_;      // slots to answer after them
  std::vector<Port> ports_;
  std::vector<uint32_t> wait_order_;  // ports with a waiting BEGIN_REQ, oldest first
  unsigned nwait_[2] = {0, 0};        // of them, those waiting for the read / write queue
  // Atoms the oldest waiting request of each queue needs (0: unknown, try):
  // while neither queue has that much room, accept_waiting has nothing to do.
  unsigned first_need_[2] = {0, 0};
  unsigned reserved_[2] = {0, 0};     // atoms accepted but not yet in the engine (read, write)
  uint64_t lat_ps_sum_ = 0, lat_count_ = 0;
  ClassCount cls_[kClasses];
  struct UtilSnap {
    uint64_t cycle, busy;
  };
  UtilSnap util_[kUtilSnaps] = {};  // ring, newest at util_head_ - 1
  unsigned util_head_ = 0, util_n_ = 0;
  uint64_t util_next_ = 0;           // cycle of the next snapshot
  uint64_t inflight_ = 0;             // accepted requests not yet finished
  uint64_t pending_ = MC_NEVER;       // cycle of the pending ev_ notification (MC_NEVER: none)
  // Column accesses of a line. A column access (atom) moves dev_->atom_bytes = 32, 64 or 128 B:
  // sectors_per_atom_ consecutive sectors of the line, so sector k is in atom k / sectors_per_atom_.
  // An atom with some of its sectors asked is one whole burst (a read discards the rest, a write
  // masks it: DDR3 DM / GDDR5 write data mask), an atom with none is not issued.
  // atom_mask_[sectors]: bit j = atom j of the line has an asked sector; atom_n_[sectors]: how many.
  unsigned sectors_per_atom_ = 1;
  uint8_t atom_mask_[16] = {}, atom_n_[16] = {};
  unsigned atoms_of(uint8_t sectors) const { return atom_n_[sectors & 0xf]; }
  bool line_is_cols_ = false;         // a line's atoms are consecutive columns of one row: one decode per line
  Event ev_, resp_ev_;
};

}  // namespace strata
