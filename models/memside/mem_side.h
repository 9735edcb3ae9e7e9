// MemSide: the memory-side controller of one memory partition. A thin AT shell
// that hosts a C policy (models/ref/memside/memside.h: plain, swap, ... one file per
// policy) between the L2 banks of the partition and its device controllers
// (MemCtrl, one per channel of the partition). See docs/architecture.md
// "Two-level address map" and "Memory-side controllers".
//
// Address spaces: above this module, payload addresses are physical line
// addresses; below it, device addresses (models/ref/base/devaddr.h) of the device
// controller the policy chose. On the way down the shell keeps the physical
// address in GpuExt::phys_addr, sets GpuExt::mem_type to the kind of the
// serving rank and rewrites the address; on the way back it restores the
// address (as a TLM-2.0 router does), so the L2 sees its own request and
// learns the line's current memory kind from the response.
//
// Ports: tsock port k = the k-th L2 bank bound (upstream). isock is bound, per
// device controller d, (upstream ports + 2) times: port d * (U + 2) + k carries
// upstream port k's requests to device d one for one (the device controller's
// per-port back-pressure is the L2's, unchanged), port d * (U + 2) + U the
// policy's own transfers (class Migration, Fill, Probe, ... as the policy
// says; up to 64 KiB each, sent as one request that the device controller
// splits into its lines), port d * (U + 2) + U + 1
// the requests that were held, in the order the policy released them.
//
// Protocol: the AT base protocol of every Strata link, passed through: a
// BEGIN_REQ routed now goes straight to the device controller with the same
// annotation and its answer (TLM_UPDATED/END_REQ or TLM_ACCEPTED) is returned;
// END_REQ and BEGIN_RESP from the device are forwarded to the same upstream
// port; END_RESP from upstream goes to the device. A request the policy holds
// (MEMSIDE_HOLD: its line is being moved, its tags are being probed) is
// accepted into the shell's queue (TLM_UPDATED/END_REQ: its L2 port is free
// for the next request) while the queue has room (kHeldMax), else answered
// TLM_ACCEPTED and taken (END_REQ) once it has; when the policy releases it,
// it goes to the device's release port and its response back to its L2 port
// (the route pushed on its GpuExt).
//
// Pieces (memside_ops.granule: a policy that places 64 B or 32 B pieces of a
// line on their own, e.g. 64 B DRAM-cache lines): route() sees one piece at a
// time. A request with sectors in one piece goes straight through as above
// (addressed to the device line holding the piece) unless the policy puts the
// piece at another offset of its device line; a request with sectors in
// several pieces is split: one payload of the shell's own per piece (its
// sectors, written bytes and data, moved to the piece's offset in its device
// line), each routed, held and released on its own and sent on the release
// port, complete() per piece, and the L2's payload answered (read bytes
// merged) once every piece is back. Its END_RESP ends at the shell.
//
// Time (memside.h "Time"): env.now_ps is sc_time_stamp in ps; env.wake keeps
// the policy's wake-ups in a fixed heap of MEMSIDE_WAKE_SLOTS (time, order
// asked) served by one scheduler Event at the earliest (ScmThrottle's
// one-event pattern), so nothing polls and nothing is allocated per wake-up.
// A route's delay_ps is added to the request's AT annotation (the device
// controller takes it at that time); once a policy has used a delay, every
// request to a device is annotated no earlier than the latest arrival time
// given to that device before (order per device, hence per line). A response
// carries the device's feedback (GpuExt::row, dev_latency_ps), passed to
// complete() in the target; a policy without complete() costs nothing there.
// env.dev_util asks the device's DevLoadIf (connect's third argument).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/devload.h"
#include "common/memkind.h"
#include "common/payload.h"
#include "common/sched.h"
#include "common/stats.h"

extern "C" {
#include "base/bstore.h"
#include "memside/memside.h"
}

namespace strata {

class UmDriver;

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
  // load: the device's utilisation (env.dev_util; nullptr: it answers 0).
  template <typename Target>
  void connect(Target& dev_tsock, bstore* dev_mem, DevLoadIf* load = nullptr) {
    for (unsigned k = 0; k < up_ + 2; ++k) isock.bind(dev_tsock);
    dev_mem_.push_back(dev_mem);
    dev_load_.push_back(load);
    ++bound_devs_;
  }

  // MemKindIf: the kind (AMAP_MEM_*) of the memory serving a line now.
  uint8_t kind_of(uint64_t line) const override;
  // Under Unified Memory: the line's page is not resident (a write must reach the memory side to fault it).
  bool write_must_fetch(uint64_t line) const override;
  // Where a physical address lives now (functional).
  memside_target locate(uint64_t pa) const;
  // Set-up (before the simulation starts): physical bytes into the devices
  // (a program's initial data), each line where the policy places it.
  void write_functional(uint64_t pa, const unsigned char* src, size_t len);
  // Nothing held, queued or outstanding.
  bool idle() const;
  const char* policy_name() const { return ops_->name; }
  const void* policy_state() const { return st_.get(); }  // the policy's state block (tests, debugging)
  // Rank `rank` of device `dev` now runs with tRCD trcd and tWR twr (device
  // cycles; SCM throttling): tells the policy (memside_ops.timing_changed).
  void timing_changed(unsigned dev, unsigned rank, uint32_t trcd, uint32_t twr) {
    if (ops_->timing_changed) ops_->timing_changed(st_.get(), dev, rank, trcd, twr);
  }

  // Background energy of rank `rank` of device `dev` under the policy's own row gating
  // (memside_ops.rank_background_j), joules so far; < 0: the policy does not gate rows.
  double rank_background_j(unsigned dev, unsigned rank, double bg_w, double bg_bytes) const {
    return ops_->rank_background_j ? ops_->rank_background_j(st_.get(), dev, rank, bg_w, bg_bytes) : -1.0;
  }

  // Kernel launch kernel_index (from 0) ended and the next starts, or the
  // program is done (last): tells the policy (memside_ops.kernel_boundary).
  void kernel_boundary(uint32_t kernel_index, bool last) {
    if (ops_->kernel_boundary) ops_->kernel_boundary(st_.get(), kernel_index, last ? 1 : 0);
  }

  // Unified Memory (docs/um.md; models/memside/um_driver.h): this partition's
  // part of the GPU-wide page table's work. With a driver attached, an access
  // of the L2 whose page is not resident is held (a fault, told to the
  // driver) and asks again at the driver's replay; the policy sees only
  // accesses of resident pages. The pages' host copies live in a host memory
  // (capacity host_bytes, hostpath.size) that is the shell's own device, after
  // the policy's (the policy never sees it; memside_page_part layout at the
  // page's physical address). Call after connecting the policy's devices and
  // bind the host with connect() right after; before the simulation starts.
  void attach_um(UmDriver* um, uint64_t host_bytes);
  // Drops line `line` from the partition's L2 (its bank) with no fill in
  // flight, dirty sectors' bytes into out (L2Bank::evict_line); set by the platform.
  using L2Evict = std::function<uint8_t(uint64_t line, unsigned char* out)>;
  void set_l2_evict(L2Evict f) { l2_evict_ = std::move(f); }
  // Move this partition's part of `page` in (host -> device) or out (device
  // -> host, after its accesses in flight and its L2 lines); the driver hears
  // part_done(job) when it is over. False: the partition serves no line of
  // the page (nothing to do).
  bool um_move(uint64_t page, uint32_t job, bool in);
  // The driver's replay: every access held on a fault asks again.
  void um_release() { env_release(this, kUmTicket); }
  // Bytes this partition's page moves carried over the host link (to the device / to the host).
  uint64_t um_bytes_in() const { return um_st_.bytes_in; }
  uint64_t um_bytes_out() const { return um_st_.bytes_out; }
  uint64_t um_l2_dirty_lines() const { return um_st_.l2_dirty_lines; }

  // memside.moves, memside.moved_bytes, memside.remaps, memside.held,
  // memside.own_read_bytes, memside.own_write_bytes (sums over partitions).
  static void register_totals(StatsRegistry& stats, const std::vector<MemSide*>& parts);

 private:
  struct Own {  // a policy transfer in the shell
    memside_xfer x;
    unsigned parts = 0, sent = 0, left = 0;  // requests (one): in all, sent, not yet answered
    int mirror = -1;  // >= 0: the copy of a demand write (memside_target.mirror), its bytes in mirror_[mirror]
    int um = -1;      // >= 0: a page move of Unified Memory, its slot um_slot_[um]
  };
  // Unified Memory page moves of this partition (mem_side_um.cpp).
  static constexpr uint32_t kUmTicket = 0xfffffff0u;  // the ticket of accesses held on a fault
  static constexpr unsigned kUmSlots = 8;             // page parts moving at once
  static constexpr unsigned kUmBuckets = 16384;       // accesses in flight per bucket of pages (page mod kUmBuckets)
  static constexpr unsigned kUmXfers = 33;            // transfers one part may have outstanding (32 lines + host)
  struct UmJob {
    uint64_t page;
    uint32_t job;
    bool in;
  };
  enum UmPhase : uint8_t { kUmFree, kUmDrain, kUmRead, kUmWrite };
  struct UmSlot {
    uint64_t page = 0;
    uint32_t job = 0, mine = 0, pending = 0, before = 0;
    uint8_t phase = kUmFree;
    bool in = false;
    unsigned char buf[4096];      // the part's lines in address order
    unsigned char l2[4096];       // page-out: the L2's dirty sectors of each line
    uint8_t l2_dirty[32];         // page-out: their mask per line of the part
  };
  bool um_host_locate(uint64_t pa, memside_target* t) const;  // a page not in device memory: its host copy
  static constexpr int kUmRemote = 2;        // um_ask: served from the host copy (t filled), not by the policy
  int um_ask(uint64_t pa, uint32_t* ticket, memside_target* t);  // MEMSIDE_GO (resident), kUmRemote or HOLD
  void um_answered(uint64_t pa);              // an access of a resident page is back
  void um_start();                            // queued jobs into free slots
  void um_step(unsigned k);                   // advance slot k
  void um_issue(unsigned k, uint32_t dev, uint64_t addr, uint32_t bytes, bool write, uint8_t cls, unsigned char* buf);
  void um_device_runs(unsigned k, bool write);  // the part's lines at their device places, a transfer per run
  void um_xfer_done(unsigned k);
  UmDriver* um_ = nullptr;
  unsigned um_host_ = 0;
  std::vector<UmSlot> um_slot_;
  std::deque<UmJob> um_jobs_;
  std::vector<uint32_t> um_inflight_;
  std::vector<uint32_t> um_own_free_;  // own_ slots kept for page moves
  L2Evict l2_evict_;
  struct UmStats {
    uint64_t bytes_in = 0, bytes_out = 0, l2_dirty_lines = 0;
  } um_st_;
  struct Mirror {  // the bytes of a demand write copied to a second place
    unsigned char data[kLineBytes];
    uint64_t byte_mask[2];
    uint8_t sector_mask;
  };
  void queue_mirror(tlm::tlm_generic_payload& gp, const memside_target& t);  // gp: bytes at their physical offsets
  bool line_released(unsigned dev, uint64_t line) const;

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  void end_of_elaboration() override;

  struct Held {
    tlm::tlm_generic_payload* gp = nullptr;
    uint32_t ticket = 0;
    bool split = false;  // to be split into pieces (not asked yet)
  };
  // A request of the L2 split into pieces (memside_ops.granule below 128 B):
  // each piece is a payload of the shell's own (its sectors, bytes and data,
  // moved to the piece's offset in its device line), routed, held, released
  // and completed on its own; the L2's payload is answered when every piece
  // is back (read data merged). Records come from a free list that grows
  // only while the number in flight reaches a new high.
  struct Piece {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t pa = 0;     // the piece's physical address (granule-aligned)
    uint64_t addr = 0;   // where the policy routed it (device address of pa)
    uint8_t sectors = 0; // its sectors of the 128 B line
  };
  struct Split {
    tlm::tlm_generic_payload* parent = nullptr;
    unsigned port = 0;          // the parent's upstream port
    unsigned n = 0, left = 0;   // pieces, not answered yet
    uint8_t kind = 0;           // memory kind of the first piece: what the L2 learns about the line
    Piece piece[kSectorsPerLine];
  };
  static constexpr unsigned kShellResp = ~0u;  // resp_port_: a response the shell made (a split's)
  uint8_t sectors_of(tlm::tlm_generic_payload& gp) const;          // its sectors (a write's written bytes too)
  uint8_t pieces_of(uint8_t sectors) const;                        // bit k: granule piece k is touched
  memside_req req_of(uint64_t addr, bool write, const GpuExt& e) const;
  bool moved_offset(tlm::tlm_generic_payload& gp, const memside_target& t) const;
  bool split_fits(tlm::tlm_generic_payload& gp) const;
  uint32_t split_take(unsigned port, tlm::tlm_generic_payload& gp);
  tlm::tlm_generic_payload* piece_payload(Split& s, unsigned k, uint8_t sectors);
  void split(unsigned port, tlm::tlm_generic_payload& gp);
  void adopt(unsigned port, tlm::tlm_generic_payload& gp, const memside_target& t);
  void piece_to_device(tlm::tlm_generic_payload& gp, const memside_target& t);
  void piece_routed(tlm::tlm_generic_payload& gp, const memside_target& t);
  tlm::tlm_sync_enum piece_response(uint32_t rec, tlm::tlm_generic_payload& gp, unsigned dev, sc_core::sc_time& d);
  static constexpr size_t kHeldMax = 256;  // requests the shell queues while the policy holds them

  int ask(tlm::tlm_generic_payload& gp, memside_target* t, uint32_t* ticket);  // MEMSIDE_GO / HOLD
  void to_device(tlm::tlm_generic_payload& gp, const memside_target& t);
  void hold(unsigned port, tlm::tlm_generic_payload& gp, uint32_t ticket);
  struct HeldNode {
    tlm::tlm_generic_payload* gp = nullptr;
    uint32_t ticket = 0;
    int next = -1;
  };
  struct TicketList {  // the held requests waiting for one ticket, oldest first
    uint32_t ticket = 0;
    int head = -1, tail = -1;
    bool used = false;
  };
  TicketList* ticket_list(uint32_t ticket, bool create);
  void drop_ticket_list(TicketList* b);
  void park(tlm::tlm_generic_payload* gp, uint32_t ticket);
  void send_own(unsigned dev);
  void release_process();  // held requests, after env.release
  void send_released();
  void own_process();      // send queued own transfers
  void own_response(unsigned dev, tlm::tlm_generic_payload& gp);
  // isock port k of device dev: k < upstream ports: that L2 bank's requests
  // straight through; k = up_: the policy's own transfers; k = up_ + 1:
  // requests that were held, in the order released.
  unsigned dev_port(unsigned dev, unsigned k) const { return dev * (up_ + 2) + k; }
  [[noreturn]] void fatal(const std::string& msg) const;

  static int env_issue(void* ctx, const memside_xfer* x);
  static void env_release(void* ctx, uint32_t ticket);
  static uint64_t env_now_ps(void* ctx);
  static int env_wake(void* ctx, uint64_t at_ps, uint64_t tag);
  static uint32_t env_unwake(void* ctx, uint64_t tag);
  static uint32_t env_dev_util(void* ctx, uint32_t dev, uint64_t window_ps);
  void wake_process();
  // The AT annotation of a request sent to device dev now with annotation d
  // and route delay delay_ps: d + delay_ps, no earlier than the latest
  // arrival given to dev (once delays are in use: delays_used_).
  sc_core::sc_time arrival(unsigned dev, const sc_core::sc_time& d, uint64_t delay_ps);
  uint64_t ticks_of_ps(uint64_t ps) const { return ps * tick_per_ps_; }

  const memside_ops* ops_;
  memside_cfg cfg_;
  memside_env env_{};
  // The policy's state block, zeroed by calloc: large blocks (the DRAM-cache tags of a full-scale
  // stack) come from fresh pages the kernel zeroes on first touch, so set-up neither writes nor
  // keeps resident what the run never touches (std::vector::assign wrote every byte).
  struct FreeDeleter {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char[], FreeDeleter> st_;
  PayloadPool& pool_;
  const unsigned up_;
  unsigned bound_devs_ = 0;
  unsigned ndev_ = 0;  // devices the shell sends to: the policy's (cfg_.ndevs), then Unified Memory's host
  std::vector<bstore*> dev_mem_;  // per device (connect)
  std::vector<DevLoadIf*> dev_load_;  // per device (connect; may be null)
  struct Wake {  // a pending wake-up of the policy
    uint64_t at, seq, tag;  // at: ticks; seq: order asked
    bool operator>(const Wake& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::vector<Wake> wakes_;  // min-heap (std::push_heap with greater), capacity MEMSIDE_WAKE_SLOTS
  uint64_t wake_seq_ = 0;
  Event wake_ev_;
  uint64_t tick_per_ps_ = 1;  // kernel ticks per ps
  bool delays_used_ = false;  // a route returned delay_ps > 0
  std::vector<uint64_t> dev_arrive_;  // per device: latest arrival annotated (ticks), with delays_used_
  std::vector<unsigned> port_dev_, port_up_;  // per isock port: its device and upstream port

  std::vector<HeldNode> held_node_;              // accepted requests the policy holds (kHeldMax)
  int held_free_ = 0;
  size_t held_n_ = 0;
  std::vector<TicketList> ticket_;               // open addressing by ticket
  std::vector<int> wake_;                        // release_process: nodes to ask again, in order
  std::vector<Held> up_wait_;                    // per upstream port: BEGIN_REQ not accepted (queue full)
  std::vector<unsigned> up_wait_order_;          // those ports, oldest first
  std::vector<std::deque<tlm::tlm_generic_payload*>> rel_q_;  // per device: released, to send
  std::vector<tlm::tlm_generic_payload*> rel_wait_;           // per device: released, waiting for END_REQ
  Event release_ev_;
  std::vector<uint32_t> released_;               // tickets released since release_process last ran
  bool release_all_ = false;                     // env.release(0) since then
  std::vector<unsigned> resp_port_;              // per upstream port: isock port of its last BEGIN_RESP

  unsigned granule_ = 0;                 // memside_ops.granule: 32 or 64 (pieces), 0: whole lines
  unsigned unit_ = kLineBytes;           // bytes the policy places as one (granule_ or a line)
  std::vector<Split> split_;             // split records (grown only at a new high of splits in flight)
  std::vector<uint32_t> split_free_;

  std::vector<Own> own_;                 // slots (MEMSIDE_XFER_SLOTS)
  std::vector<uint32_t> own_free_;
  std::vector<Mirror> mirror_;
  std::vector<uint32_t> mirror_free_;
  std::vector<std::deque<uint32_t>> own_queue_;  // per device: slots waiting to be sent, in issue order
  std::vector<tlm::tlm_generic_payload*> own_wait_;  // per device: own transfer waiting for END_REQ
  Event own_ev_;

  struct Stats {
    uint64_t routed = 0, held = 0, own_reads = 0, own_writes = 0, own_read_bytes = 0, own_write_bytes = 0;
    uint64_t demand_bytes = 0;  // bytes of the L2's accesses routed (their sectors)
    uint64_t split = 0;         // L2 accesses split into pieces (memside_ops.granule)
  } st2_;
  mutable std::vector<uint64_t> pol_vals_;  // the policy's own counters (memside_ops.stat_values)
  uint64_t policy_value(size_t i) const;
  static double derived_sum(const std::vector<MemSide*>& parts, uint64_t mask);
  static void register_derived(StatsRegistry& S, const std::string& name, const std::string& desc,
                               const std::vector<MemSide*>& parts, const memside_derived& d);
  void register_stats(StatsRegistry& stats);
};

}  // namespace strata
