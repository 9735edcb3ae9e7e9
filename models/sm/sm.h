// Strata SM: one streaming multiprocessor as an event-driven timing shell
// around lazily generated warp instruction streams (workloads/program.h).
//
// Pipeline (per core cycle, in this order):
//  1. responses from the L2 (fills, store acks) that arrived up to this edge;
//  2. warp schedulers issue up to issue_width instructions from different warps
//     (LooseRoundRobin or GreedyThenOldest), each warp in order, gated by a
//     per-warp register scoreboard (ALU/SFU results ready after alu_latency /
//     sfu_latency cycles, load results when their last byte arrived), CTA
//     barriers and structural limits (LD/ST queue, load records);
//  3. the LD/ST unit takes one coalesced line request per cycle (coalescer in
//     models/ref/coalesce.c) into the L1: sectored, write-through, optional
//     write-allocate, hit latency, MSHRs with merging, allocate-on-fill;
//  4. one request per cycle to the L2 over `isock` (Strata AT base protocol).
// A load issued at cycle c whose line request is processed at c returns at
// c + l1.latency on a hit; on a miss its register is ready in the cycle in which
// the L2 response is processed. When nothing can issue the SM sleeps until the
// earliest scoreboard release or an incoming response (no per-cycle polling).
//
// Assumption: the interconnect and L2 keep requests to one line in order (a
// load sent before a store to the same line returns pre-store data); a store
// to a line with a fill in flight cancels that fill's L1 install.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "common/cfg.h"
#include "common/check.h"
#include "common/payload.h"
#include "common/stats.h"
#include "workloads/program.h"

extern "C" {
#include "addrmap.h"
#include "bstore.h"
#include "cache.h"
#include "coalesce.h"
}

namespace strata {

class Gpu;

// One issued instruction (optional issue log for tests and debugging).
struct IssueRec {
  uint64_t cycle;
  uint32_t cta;    // CTA index in the grid
  uint16_t slot;   // warp slot in the SM
  uint16_t warp;   // warp index within the CTA
  Op op;
};

class Sm : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Sm> isock;

  SC_HAS_PROCESS(Sm);
  Sm(sc_core::sc_module_name name, unsigned id, const SmCfg& cfg, const L1Cfg& l1, const amap* map,
     PayloadPool& pool, bstore* golden, Checker* checker, Gpu* gpu, StatsRegistry& stats);
  ~Sm() override;

  // --- CTA dispatch (called by Gpu) ---
  bool can_accept(const Kernel& k) const;  // free CTA slot and warp_per_cta free warp slots
  void launch_cta(const Kernel* k, uint32_t cta);
  void kernel_boundary();                  // between kernels: invalidate the L1
  uint64_t stores_in_flight() const { return stores_out_; }
  unsigned resident_ctas() const { return ctas_live_; }

  // --- counters ---
  uint64_t thread_insts() const { return thread_insts_; }
  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t mem_requests() const { return mem_requests_; }
  uint64_t l1_accesses() const { return l1_acc_; }
  uint64_t l1_hits() const { return l1_hit_; }
  uint64_t l1_misses() const { return l1_miss_; }
  const coal_hist& coalescer() const { return coal_; }
  uint64_t wakeups() const { return wakeups_; }

  // One-line-per-item description of the SM's state (stall diagnosis).
  std::string debug_state() const;
  // Record every issued instruction into *log (nullptr = off).
  void set_issue_log(std::vector<IssueRec>* log) { issue_log_ = log; }
  uint64_t cycle_now() const;

 private:
  static constexpr uint64_t kNever = ~0ull;
  static constexpr unsigned kMemQ = 8;        // LD/ST queue: warp memory instructions
  static constexpr unsigned kLdPerWarp = 4;   // load records per warp slot (outstanding loads)
  static constexpr unsigned kOutQ = 32;       // requests waiting for the L2 port
  static constexpr uint32_t kStoreTag = 0x80000000u;

  struct Warp {
    bool live = false, exited = false, at_barrier = false, has_inst = false;
    uint16_t cta_slot = 0;
    uint32_t pending_loads = 0;
    uint64_t age = 0;
    uint64_t max_ready = 0;  // latest scoreboard release among issued instructions
    uint64_t reg_ready[kMaxRegs];
    WarpCtx ctx;
    WarpInst inst;
  };
  struct CtaSlot {
    bool live = false;
    uint32_t cta = 0;
    uint16_t warps_live = 0, at_barrier = 0;
    std::vector<uint16_t> slots;
  };
  struct LdRec {
    uint16_t warp = 0;
    uint8_t dst = kNoReg, bytes = 4;
    uint32_t pending = 0;  // lanes whose bytes have not arrived
    uint64_t ready = 0;    // latest completion cycle among arrived lanes
    uint64_t addr[kWarpSize];
    uint64_t expect[kWarpSize];
  };
  struct MemInst {
    bool store = false;
    uint16_t warp = 0, ldrec = 0;
    uint8_t bytes = 4;
    uint8_t n = 0, next = 0;
    coal_req req[COAL_MAX_REQS];
    uint64_t addr[kWarpSize];  // stores
    uint64_t data[kWarpSize];  // stores
  };
  struct Mshr {
    uint64_t line = 0;
    uint8_t pending = 0;      // sectors requested and not yet arrived
    uint8_t outstanding = 0;  // L2 requests in flight
    uint8_t nwait = 0;
    bool no_install = false;  // a store hit the line while the fill was in flight
  };
  struct Waiter {
    uint16_t ldrec;
    uint32_t lanes;
  };

  // processes
  void cycle();
  void on_peq();
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);

  // pipeline stages
  void process_response(tlm::tlm_generic_payload* gp, uint64_t c);
  void issue_stage(uint64_t c, uint64_t& next);
  uint64_t ready_time(Warp& w);
  bool structural_ok(Op op, unsigned ldst_budget) const;
  void issue(unsigned slot, uint64_t c);
  void l1_stage(uint64_t c);
  bool l1_load(MemInst& m, const coal_req& r, uint64_t c);
  bool l1_store(MemInst& m, const coal_req& r, uint64_t c);
  void send_stage(uint64_t c);

  // helpers
  void fetch(Warp& w);
  void complete_lanes(uint16_t ldrec, uint32_t lanes, uint64_t ready_cycle);
  void compare_lanes(const LdRec& rec, uint32_t lanes, const unsigned char* line_data, uint64_t c);
  int find_mshr(uint64_t line) const;
  tlm::tlm_generic_payload* new_request(uint64_t line, uint16_t warp, uint8_t ea);
  void release_barrier(CtaSlot& cs);
  void wake_cycle(uint64_t cyc);
  uint64_t now_ps() const;

  const unsigned id_;
  const SmCfg cfg_;
  const L1Cfg l1cfg_;
  const amap* map_;
  PayloadPool& pool_;
  bstore* golden_;
  Checker* checker_;
  Gpu* gpu_;
  const uint64_t period_ps_;

  const Kernel* kernel_ = nullptr;
  std::vector<Warp> warps_;
  // Hot per-slot scheduling word, scanned every issue cycle (kept apart from the
  // large Warp records): cycle at which the buffered instruction's operands are
  // ready, kNever when the slot cannot issue until an event (free, exited, at a
  // barrier, waiting for a load), kDirty when it must be recomputed.
  static constexpr uint64_t kDirty = ~0ull - 1;
  std::vector<uint64_t> rdy_;
  std::vector<Op> op_;  // op of each slot's buffered instruction (valid when rdy_ is not kDirty)
  std::vector<CtaSlot> ctas_;
  std::vector<uint16_t> age_order_;  // live, not exited warp slots, oldest first
  unsigned ctas_live_ = 0, warps_free_ = 0;
  uint64_t age_ctr_ = 0;
  int last_issued_ = -1;

  std::vector<LdRec> ldrecs_;
  std::vector<uint16_t> ldrec_free_;
  std::vector<MemInst> memq_;  // ring
  unsigned memq_head_ = 0, memq_count_ = 0;
  bool l1_blocked_ = false;

  cache l1_{};
  bool l1_on_;
  std::vector<Mshr> mshrs_;
  std::vector<Waiter> waiters_;  // mshrs x mshr_merge
  std::vector<uint16_t> mshr_free_, mshr_active_;

  std::vector<tlm::tlm_generic_payload*> outq_;  // ring
  unsigned outq_head_ = 0, outq_count_ = 0;
  tlm::tlm_generic_payload* awaiting_end_req_ = nullptr;
  uint64_t send_ok_ps_ = 0;

  tlm_utils::peq_with_get<tlm::tlm_generic_payload> peq_;
  std::vector<tlm::tlm_generic_payload*> resp_ready_;
  sc_core::sc_event wake_;
  uint64_t last_cycle_ = kNever;
  uint64_t hit_wake_ = kNever;
  // Issue-scan skipping: no warp can issue before issue_hint_ unless something
  // changed since the last scan (issue_dirty_: a load returned, a barrier
  // opened, a CTA arrived, an LD/ST queue slot freed).
  uint64_t issue_hint_ = 0;
  bool issue_dirty_ = true;         // earliest register release by an L1 hit this cycle
  unsigned issued_c_ = 0, ldst_c_ = 0;  // this cycle's issue and LD/ST budget used
  bool l1_done_c_ = false, send_done_c_ = false;

  std::vector<IssueRec>* issue_log_ = nullptr;

  // stats
  uint64_t thread_insts_ = 0, warp_insts_ = 0, mem_insts_ = 0, mem_requests_ = 0, ctas_done_ = 0, wakeups_ = 0;
  uint64_t stores_out_ = 0;
  uint64_t l1_acc_ = 0, l1_hit_ = 0, l1_miss_ = 0, l1_merge_ = 0, l1_resfail_ = 0, l1_fail_mshr_ = 0, l1_fail_port_ = 0, l1_fills_ = 0;
  coal_hist coal_{};
};

}  // namespace strata
