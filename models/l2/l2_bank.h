// L2Bank: one bank of Strata's shared, sectored L2 (GPGPU-Sim / Accel-Sim
// style: 128 B lines of four 32 B sectors, write-back, write-allocate, MSHRs
// merging requests to the same line). A thin AT timing shell around the C cache
// core (models/ref/cache/cache.h) and a replacement policy from the registry
// (models/ref/cache/repl.h, cfg.policy).
//
// Timing (all in L2 clock cycles T = cfg.clk.period(); see docs/l2_and_noc.md):
//  * Tag pipeline: one lookup per cycle, in arrival order (lookup = max(arrival,
//    previous lookup + T)); a request that cannot proceed (no MSHR, every way of
//    its set has a fill in flight, merge list or outgoing queue full) stalls the
//    bank's input queue until the resource frees (event-driven, no polling).
//  * Data port of cfg.bytes_per_cycle with a next-free time: a request moving
//    n sectors occupies it ceil(32n / bytes_per_cycle) cycles. An unloaded hit
//    responds exactly cfg.latency cycles after its lookup (HMS Table I: 120).
//  * Miss: the fill is sent to memory at lookup time; the response leaves
//    through the data port no earlier than the fill's arrival and no earlier
//    than a hit would have.
//  * Atomics (GpuExt::atomic, common/gpu_ext.h): looked up as a read of the
//    sectors its lanes touch (a miss fetches them and allocates, never
//    bypasses), then performed on the line's data by the bank's atomic unit,
//    which takes each request when it is free and is busy one cycle per lane on
//    the most contended address of the request; the response (the old values)
//    leaves cfg.atomic_latency cycles after the unit took it, through the data
//    port as one sector. The line becomes dirty in the sectors written.
// Functional model: the bank keeps line data. Requests to a line with a fill in
// flight are queued in its MSHR and replayed in arrival order once every fill
// for the line has returned, so loads always see the last store before them.
//
// Protocol (TLM-2.0 AT base protocol, both sockets): BEGIN_REQ accepted with
// TLM_UPDATED/END_REQ while the input queue has room, else TLM_ACCEPTED and
// END_REQ later on the backward path; BEGIN_RESP on the backward path (the
// initiator may return TLM_COMPLETED, or TLM_ACCEPTED and END_RESP later).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "common/cfg.h"
#include "common/memkind.h"
#include "common/payload.h"
#include "common/probe.h"
#include "common/sched.h"
#include "common/stats.h"
#include "noc/queues.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
#include "cache/cache.h"
}

namespace strata {

class L2Bank : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(L2Bank);
  tlm_utils::simple_target_socket<L2Bank> tsock;     // from the crossbar
  tlm_utils::simple_initiator_socket<L2Bank> isock;  // to the memory controller of its channel

  static constexpr unsigned kInQueue = 16;   // input queue entries (requests)
  static constexpr unsigned kMaxMerge = 16;  // requests queued per MSHR

  // bank_id: global bank index (stat names, GpuExt::l2_bank of its own
  // requests); num_banks: banks the address stream is interleaved over (the
  // cache's set_stride; this bank holds cfg.size_bytes / num_banks). kinds:
  // the memory side of the bank's partition, asked for a missing line's
  // memory kind (may be null: every line then counts as DRAM); a fill
  // response's GpuExt::mem_type then sets the line's kind.
  L2Bank(sc_core::sc_module_name name, unsigned bank_id, unsigned num_banks, const L2Cfg& cfg, const MemKindIf* kinds,
         PayloadPool& pool, StatsRegistry& stats);
  ~L2Bank() override;

  // l2.accesses, l2.hits, l2.misses, l2.miss_rate, l2.hit_rate,
  // l2.{accesses,misses,miss_rate}.{dram,nvm}, l2.bypasses,
  // l2.writebacks.dram, l2.writebacks.nvm, l2.fill_bytes, l2.writeback_bytes,
  // l2.policy_overhead_bytes, l2.policy_overhead_ratio.
  static void register_totals(StatsRegistry& stats, const std::vector<L2Bank*>& banks);
  // Time series: l2.hit_rate (all banks, per epoch).
  static void register_probes(ProbeRegistry& probes, const std::vector<L2Bank*>& banks);

  // Cumulative counters (for the platform's epoch sampler).
  uint64_t accesses() const { return st_.accesses; }
  uint64_t hits() const { return st_.hits; }
  uint64_t misses() const { return st_.misses; }
  uint64_t writebacks() const { return st_.wb_dram + st_.wb_nvm; }
  // Outstanding MSHRs / queued requests (for occupancy traces and drain checks).
  unsigned mshrs_in_use() const { return mshr_used_; }
  size_t queued() const { return inq_.size(); }
  bool idle() const;
  // One line of internal state (queues, MSHRs, blocked flags) for stall reports.
  std::string debug_state() const;
  // The tag store (e.g. to carve tag-cache ways out with cache_set_way_mask).
  cache* tags() { return &c_; }
  // Unified Memory page-out (docs/um.md "Page-out and the L2"): drops line `line` if the bank holds it
  // with no fill in flight, its dirty sectors' bytes copied into out (128 B, at their offsets in the
  // line), as the copy engine reads a page through the L2. Returns the dirty sector mask (0: not held,
  // clean, or kept because a fill is in flight: its merged writes stay and are written back later).
  uint8_t evict_line(uint64_t line, unsigned char* out);
  uint64_t um_evicted() const { return st_.um_evicted; }
  // Functional fast-forward (platform/fast_forward.h, docs/user_guide.md "Fast-forward"): the tag-side effect of
  // one request as the request path would leave it, without timing, counters or transport: replacement state
  // (cache_touch / cache_victim_masked / cache_install with the same repl_access), valid and dirty sectors, the
  // policy's bypasses. `req`: the sectors it touches; `partial`: those a write covers only in part (it fetches
  // them); `atom`: an atomic (a read that dirties its sectors). A victim's write-back moves no data: the caller
  // keeps the devices' data, told the address of a dirty victim in *dirty_victim (untouched otherwise).
  // Returns the line's memory kind (AMAP_MEM_*). Only while nothing is in flight in the bank (before the
  // simulation starts, or at a launch boundary of kernel sampling with the memory system idle).
  uint8_t warm(uint64_t line, uint8_t req, uint8_t partial, bool wr, bool atom, uint8_t ea_count,
               uint64_t* dirty_victim = nullptr);
  // After a fast-forward: every valid line's data from `golden` (the functional memory is the truth then).
  void warm_finish(bstore* golden);
  // Unified Memory (docs/um.md "Writes"): a whole-sector write miss fetches its sectors when the memory
  // side says its page is not in device memory (MemKindIf::write_must_fetch), so the write faults.
  void set_write_fetch(bool on) { write_fetch_ = on; }
  // Told of every atomic lane the bank performs, in order (the GPU keeps the
  // golden memory in that order and checks the old values); may be null.
  void set_atomic_observer(AtomicObserver* o) { atom_obs_ = o; }
  uint64_t atomics() const { return st_.atomics; }

 private:
  struct InReq {
    tlm::tlm_generic_payload* gp = nullptr;
    sc_core::sc_time arrival;
  };
  struct Node {  // a request waiting in an MSHR
    tlm::tlm_generic_payload* gp = nullptr;
    sc_core::sc_time lookup;
    int next = -1;
  };
  struct Mshr {
    bool busy = false;
    uint32_t set = 0, way = 0;
    uint8_t fetching = 0;     // sectors requested from memory (all fills of this MSHR)
    uint8_t full_writes = 0;  // sectors fully written by queued writes
    unsigned fills_out = 0;   // fill payloads not yet returned
    int head = -1, tail = -1;
    unsigned count = 0;
    bool bypass = false;      // policy bypass: no line allocated, data straight to the requester
    uint64_t line = 0;        // bypass: the line being fetched (reads of it merge behind the fill)
  };

  // TLM interfaces
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);
  unsigned dbg(tlm::tlm_generic_payload& gp);
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);

  // processes
  void process_method();   // tag pipeline: handle the input queue head
  void respond_method();   // send ready responses upstream
  void memresp_method();   // handle ready responses from memory

  // Tag lookup of the input queue's head (l2_bank.cpp "tag lookup": the
  // paths and their order). false = stall: a resource is missing, nothing changed.
  bool try_handle(tlm::tlm_generic_payload& gp);
  struct Lookup {  // a request at the tag lookup, decoded once
    tlm::tlm_generic_payload& gp;
    GpuExt& e;
    sc_core::sc_time now;
    uint64_t line = 0;
    bool wr = false;
    bool atom = false;    // an atomic request (read-like at the lookup; performed by apply)
    uint8_t req = 0;      // sectors it reads or writes
    uint8_t partial = 0;  // sectors it writes only in part (they need the line's data)
    uint32_t set = 0;
    repl_access acc{};    // what the replacement policy sees
  };
  Lookup begin_lookup(tlm::tlm_generic_payload& gp);
  bool lookup_present(Lookup& q, uint32_t way);
  bool merge_into_fill(Lookup& q, int m, uint32_t way, const cache_line& l);
  bool serve_hit(Lookup& q, uint32_t way, const cache_line& l);
  bool fetch_sectors(Lookup& q, uint32_t way, const cache_line& l, uint8_t need);
  bool lookup_absent(Lookup& q);
  bool ack_empty_write(Lookup& q, uint8_t mt);
  int bypassed_fill_for(const Lookup& q) const;
  bool merge_into_bypass(Lookup& q, int m, uint8_t mt);
  bool bypass_fill(Lookup& q, int nm, uint8_t need, uint8_t mt);
  bool allocate_line(Lookup& q, uint32_t way, int nm, uint8_t need, uint8_t mt);
  void count_access(const Lookup& q, uint8_t valid, uint8_t mem_type);
  void mshr_enqueue(int m, const Lookup& q);
  int lowest_free_mshr() const;
  void mshr_open(int m, uint32_t set, uint32_t way);
  uint8_t sector_mask_of(tlm::tlm_generic_payload& gp) const;  // a read's sectors (none given: all)
  void apply(tlm::tlm_generic_payload& gp, uint32_t set, uint32_t way);
  void perform_atomic(AtomicReq& a, uint64_t line_addr, cache_line* l, unsigned char* line);
  static unsigned atomic_serial(const AtomicReq& a);
  sc_core::sc_time schedule_port(const sc_core::sc_time& lookup, unsigned sectors);
  void queue_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& lookup, uint8_t sectors);
  void issue_fill(int m, uint64_t line, uint8_t sectors, uint8_t mem_type);
  void writeback(uint64_t line, const cache_line& l, const unsigned char* data);
 public:
  // A host's write between kernels (a CUDA program's cudaMemcpy, zero simulated time): the bank's copy of
  // `line`, if it holds one, takes the new bytes (kLineBytes), so that later hits return them.
  void write_functional(uint64_t line, const unsigned char* bytes);
 private:
  void push_down(tlm::tlm_generic_payload* gp);
  void send_down();
  void send_up();
  void mem_response(tlm::tlm_generic_payload& gp);
  void complete_mshr(int m);
  void wake();
  uint8_t mem_type_of(uint64_t line) const;
  [[noreturn]] void fatal(const std::string& msg) const;

  const unsigned id_;
  const L2Cfg cfg_;
  const MemKindIf* kinds_;
  AtomicObserver* atom_obs_ = nullptr;
  sc_core::sc_time alu_free_ = sc_core::SC_ZERO_TIME;  // the atomic unit's next free time
  PayloadPool& pool_;
  const sc_core::sc_time T_;
  // The first L2 clock edge at or after t. The bank is synchronous logic: a
  // memory response (memory controller clock) is registered at the next edge
  // of the L2 clock, and a response becomes ready on an edge.
  sc_core::sc_time edge(const sc_core::sc_time& t) const {
    const uint64_t p = T_.value(), v = t.value();
    return sc_core::sc_time::from_value((v + p - 1) / p * p);
  }
  const uint64_t ps_unit_;  // sc_time ticks per picosecond
  cache c_{};
  uint8_t all_sectors_ = 0xf;

  // input queue + one request waiting for END_REQ (backpressure)
  Ring<InReq> inq_;
  tlm::tlm_generic_payload* pending_req_ = nullptr;
  sc_core::sc_time tag_free_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_time port_free_ = sc_core::SC_ZERO_TIME;
  bool write_fetch_ = false;    // set_write_fetch
  bool stalled_ = false;        // head waits for a resource (retried by wake())
  bool stall_counted_ = false;
  bool head_no_mshr_ = false;   // the stalled head is a line miss that found no free MSHR or node
  Event process_ev_;

  // MSHRs
  std::vector<Mshr> mshr_;
  std::vector<int> line_mshr_;  // per (set, way): MSHR index or -1
  std::vector<uint32_t> set_busy_;     // per set: ways with a fill in flight (line_mshr_ >= 0)
  std::vector<uint64_t> mshr_free_;    // bit i of word i/64: MSHR i is free (lowest first, no scan)
  std::vector<Node> nodes_;
  int free_node_ = -1;
  unsigned mshr_used_ = 0;
  unsigned bypass_live_ = 0;  // MSHRs of bypassed reads in flight
  void mshr_take(int m) { mshr_free_[static_cast<size_t>(m) >> 6] &= ~(1ull << (m & 63)); }
  void mshr_give(int m) { mshr_free_[static_cast<size_t>(m) >> 6] |= 1ull << (m & 63); }

  // responses upstream
  TimedQueue<tlm::tlm_generic_payload*> resp_q_;
  bool up_blocked_ = false;  // BEGIN_RESP sent, END_RESP outstanding
  Event resp_ev_;

  // requests downstream
  Ring<tlm::tlm_generic_payload*> outq_;
  tlm::tlm_generic_payload* down_wait_ = nullptr;  // BEGIN_REQ sent, END_REQ outstanding
  TimedQueue<tlm::tlm_generic_payload*> memresp_q_;
  Event memresp_ev_;

  struct Stats {
    uint64_t accesses = 0, hits = 0, misses = 0, sector_misses = 0, reads = 0, writes = 0;
    uint64_t wb_dram = 0, wb_nvm = 0, mshr_merges = 0, stalls = 0, fill_bytes = 0, wb_bytes = 0;
    uint64_t bypasses = 0;
    uint64_t atomics = 0, atomic_lanes = 0;
    uint64_t acc_dram = 0, acc_nvm = 0, miss_dram = 0, miss_nvm = 0;  // by the line's memory (NVM includes SCM)
    uint64_t um_evicted = 0;  // lines dropped by Unified Memory page-outs (evict_line)
  } st_;
};

}  // namespace strata
