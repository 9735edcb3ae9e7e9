// Strata SM: one streaming multiprocessor as an event-driven timing shell
// around lazily generated warp instruction streams (common/program_if.h).
//
// Pipeline (per core cycle, in this order):
//  1. responses from the L2 (fills, store acks) that arrived up to this edge;
//  2. warp schedulers issue up to issue_width instructions from different warps
//     (LooseRoundRobin or GreedyThenOldest), each warp in order, gated by a
//     per-warp register scoreboard (ALU/SFU results ready after alu_latency /
//     sfu_latency cycles, load results when their last byte arrived), CTA
//     barriers and structural limits (LD/ST queue, load records);
//  3. the LD/ST unit takes one coalesced line request per cycle (coalescer in
//     models/ref/gpu/coalesce.c) into the L1: sectored, write-through, optional
//     write-allocate, hit latency, MSHRs with merging, allocate-on-fill;
//  4. one request per cycle to the L2 over `isock` (Strata AT base protocol).
// A global atomic (Op::Atomic) skips the L1: the LD/ST unit sends one atomic
// request per line (common/gpu_ext.h) to the L2 bank that performs it, after
// invalidating the line in the L1 (as GPUs do); a warp has up to
// SmCfg::max_atomics atomic instructions in flight, and while it has any it
// fetches further only what the kernel allows (KernelIf::fetch_during_atomic);
// when every line of one has returned the kernel hears its old values
// (KernelIf::atomic_result) and its destination register is ready.
// A load issued at cycle c whose line request is processed at c returns at
// c + l1.latency on a hit; on a miss its register is ready in the cycle in which
// the L2 response is processed. When nothing can issue the SM sleeps until the
// earliest scoreboard release or an incoming response (no per-cycle polling).
//
// Host cost: the scheduler keeps every live warp slot in exactly one state —
// Dirty (operand-ready cycle to be recomputed), Eligible (ready now), Timed
// (ready at a known future cycle) or blocked (waits for an event) — and moves
// slots between them on the events that change them (issue, load completion,
// barrier release, CTA launch). The issue stage walks only eligible slots (a
// bit set in scan order), the next wake-up is the earliest Timed cycle, and a
// warp held only by a full LD/ST queue or no free load record sleeps until one
// frees instead of re-evaluating the SM every cycle.
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
#include <tlm_utils/simple_initiator_socket.h>

#include "common/cfg.h"
#include "common/check.h"
#include "common/gpu_ext.h"
#include "common/payload.h"
#include "common/sched.h"
#include "common/simtime.h"
#include "common/program_if.h"
#include "common/stats.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
#include "cache/cache.h"
#include "gpu/coalesce.h"
}

namespace strata {

// What an SM reports to the CTA dispatcher that owns it (the GPU's, models/sm/gpu.h;
// another SM model, e.g. an NDP SM on a stack's logic layer, brings its own).
class SmHost {
 public:
  virtual void on_cta_done(unsigned sm) = 0;        // a CTA of the current kernel finished
  virtual void on_stores_drained(unsigned sm) = 0;  // the SM's last store in flight was acknowledged
  // The host's SMs' warp instructions reached inst_mark (measurement windows:
  // the SM calls it from the issue that makes warp_insts equal inst_mark, in
  // the middle of its issue group). The host may move inst_mark forward.
  virtual void on_inst_mark(unsigned /*sm*/) {}
  uint64_t warp_insts = 0;           // warp instructions issued by all SMs of this host
  uint64_t inst_mark = UINT64_MAX;   // see on_inst_mark (never by default)

 protected:
  ~SmHost() = default;
};

// Where an SM sits: the names of its stats and its same-time rank. The GPU's
// SMs take the defaults (gpu.sm<id>.*, l1.sm<id>.*, Stage::Sm); an SM of
// another kind -- an NDP SM on a stack's logic layer (TOM Sec. 3: the same SM
// design) -- reuses the whole pipeline (warp schedulers, scoreboard,
// coalescer, L1, MSHRs) under its own names, host (SmHost) and downstream
// socket.
struct SmRole {
  std::string sm_stats;       // stat prefix of the pipeline; empty: "gpu.sm<id>"
  std::string l1_stats;       // stat prefix of its L1; empty: "l1.sm<id>"
  Stage stage = Stage::Sm;    // same-time rank (instance = id)
};

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
  // map: the static address map (requests carry the L2 bank of their line);
  // null: no L2 routing field (a downstream that routes by address).
  Sm(sc_core::sc_module_name name, unsigned id, const SmCfg& cfg, const L1Cfg& l1, const amap* map,
     PayloadPool& pool, bstore* golden, Checker* checker, SmHost* host, StatsRegistry& stats,
     const SmRole& role = SmRole());
  ~Sm() override;

  // --- CTA dispatch (called by the host) ---
  bool can_accept(const KernelIf& k) const;  // free CTA slot and warp_per_cta free warp slots
  void launch_cta(const KernelIf* k, uint32_t cta);
  // A CTA a functional fast-forward began (platform/fast_forward.h): warp wi continues from ctx[wi], in state
  // state[wi] (0 runnable, 1 waiting at the CTA's barrier, 2 exited), with atom_seq[wi] Atomics issued so far.
  void resume_cta(const KernelIf* k, uint32_t cta, const WarpCtx* ctx, const uint8_t* state, const uint32_t* atom_seq);
  // CTAs the SM can hold at once of kernel k (sm.max_ctas, its warp slots), when it is empty.
  unsigned cta_capacity(const KernelIf& k) const;
  void kernel_boundary();                  // between kernels: invalidate the L1
  uint64_t stores_in_flight() const { return stores_out_; }
  // --- functional fast-forward (platform/fast_forward.h): the L1's tag-side effect of one coalesced request,
  // as the LD/ST unit's L1 stage leaves it (l1_load / l1_store / l1_atomic), without timing or counters ---
  // Returns the sectors the request sends to the L2: a load the ones its L1 copy lacks (0: an L1 hit), a store
  // all of its own (write-through), an atomic all of its own (the L1 copy is invalidated first).
  uint8_t warm_request(Op op, const coal_req& r);
  // A load's missing sectors are back from the L2 (memory kind mem_type): installed as the fill would.
  void warm_fill(const coal_req& r, uint8_t sectors, uint8_t mem_type);
  // After a fast-forward: every valid L1 line's data from `golden`.
  void warm_finish(bstore* golden);
  unsigned resident_ctas() const { return ctas_live_; }

  // --- counters ---
  uint64_t thread_insts() const { return thread_insts_; }
  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t mem_requests() const { return mem_requests_; }
  uint64_t atomic_insts() const { return atomic_insts_; }      // global atomic warp instructions issued
  uint64_t atomic_requests() const { return atomic_reqs_; }    // atomic line requests sent to the L2
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
  static constexpr uint32_t kAtomTag = 0x40000000u;  // | atom_ index (warp slot x max_atomics + k): an atomic request
  static constexpr uint8_t kAllSectors = (1u << kSectorsPerLine) - 1;

  struct Warp {
    bool live = false, exited = false, at_barrier = false, has_inst = false;
    uint16_t cta_slot = 0;
    uint32_t pending_loads = 0;
    uint32_t atom_out = 0;   // atomic line requests in flight (the next fetch may wait for them)
    uint8_t atom_busy = 0;   // atom_ slots of this warp with an instruction in flight (bit k: slot k)
    uint32_t atom_seq = 0;   // the warp's Atomic instructions issued so far (KernelIf::atomic_result's seq)
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
  };
  struct LdChk {  // check mode only (compare_lanes): kept apart from the small, hot LdRec
    uint64_t addr[kWarpSize];
    uint64_t expect[kWarpSize];
  };
  struct MemInst {
    bool store = false;
    bool atomic = false;  // the lanes' requests are atom_[warp].req[0 .. n)
    bool line4 = false;  // store of the full-line pattern (coal_warp_line4): data packed in line[]
    uint16_t warp = 0, ldrec = 0;
    uint8_t bytes = 4;
    uint8_t n = 0, next = 0;
    coal_req req[COAL_MAX_REQS];
    uint32_t line[kLineBytes / 4];  // line4 stores: the line image (lane l's 4 bytes at 4 l)
    uint64_t addr[kWarpSize];  // other stores
    uint64_t data[kWarpSize];  // other stores
  };
  struct AtomSlot {  // an atomic instruction in flight (cfg max_atomics per warp slot, allocated at the SM's first atomic)
    AtomicReq req[COAL_MAX_REQS];
    uint8_t dst = kNoReg;
    uint32_t lanes = 0;
    uint32_t out = 0;  // its line requests in flight
    uint32_t seq = 0;  // Warp::atom_seq when it issued
    uint64_t addr[kWarpSize], a[kWarpSize], b[kWarpSize];  // the lanes' (the warp may fetch meanwhile)
    uint64_t old[kWarpSize];
  };
  struct Mshr {
    uint64_t line = 0;
    uint8_t pending = 0;      // sectors requested and not yet arrived
    uint8_t outstanding = 0;  // L2 requests in flight
    uint8_t nwait = 0;
    bool no_install = false;  // a store hit the line while the fill was in flight
    bool absent = false;      // the line is known not to be in the L1 (no lookup at the fill)
    bool active = false;
    int16_t next = -1;        // hash chain (mshr_bucket_)
  };
  // Scheduling state of a warp slot (see the file comment).
  enum SlotState : uint8_t { kStNone = 0, kStDirty, kStElig, kStTimed };
  // Eligible-count classes: what a slot's buffered instruction needs structurally.
  enum OpClass : uint8_t { kClsOther = 0, kClsLoad, kClsStore };
  struct RespEnt {  // response waiting for its arrival time (replaces a peq: no allocation)
    uint64_t t_ps, seq;
    tlm::tlm_generic_payload* gp;
  };
  struct Waiter {  // a load request merged into an MSHR
    uint16_t ldrec;
    uint32_t lanes[kSectorsPerLine];  // waiting lanes by sector of the line (from coal_req::sector_threads)
  };

  // processes
  void cycle();
  void on_resp();
  void resp_push(tlm::tlm_generic_payload& gp, uint64_t t_ps);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d);

  // pipeline stages
  void process_response(tlm::tlm_generic_payload* gp, uint64_t c);
  inline void issue_stage(uint64_t c);
  struct IssueBudget {  // what is left of this cycle's issue width and LD/ST slots during a scan
    unsigned issued;    // instructions issued this cycle so far
    unsigned ldst;      // LD/ST issues left this cycle
  };
  inline bool issue_scan_needed(uint64_t c);
  inline unsigned passable_classes(const IssueBudget& b) const;
  inline bool try_issue(unsigned slot, uint64_t c, IssueBudget& b);
  inline void scan_lrr(uint64_t c, IssueBudget& b);
  inline void scan_gto(uint64_t c, IssueBudget& b);
  uint64_t ready_time(Warp& w);
  bool structural_ok(Op op, unsigned ldst_budget) const;
  bool can_issue_next_cycle() const;
  // scheduler sets
  unsigned key_of(unsigned slot) const { return gto_ ? pos_[slot] - age_head_ : slot; }
  static OpClass cls_of(Op op) {
    return op == Op::Load ? kClsLoad : op == Op::Store || op == Op::Atomic ? kClsStore : kClsOther;
  }
  void elig_add(unsigned slot);
  inline void unclassify(unsigned slot);
  void start_cta(const KernelIf* k, uint32_t cta, const WarpCtx* ctx, const uint8_t* state, const uint32_t* atom_seq);
  void set_dirty(unsigned slot);
  void set_never(unsigned slot);
  void classify_slot(unsigned slot, uint64_t c);
  void classify_dirty(uint64_t c);
  void promote_timed(uint64_t c);
  // Lowest eligible key in [from, end) of a class in cmask (bit per OpClass), -1 if none.
  inline int next_elig(unsigned from, unsigned end, unsigned cmask) const;
  void age_push(unsigned slot);
  void erase_age_pos(unsigned p);
  void issue(unsigned slot, uint64_t c);
  void l1_stage(uint64_t c);
  bool l1_load(MemInst& m, const coal_req& r, uint64_t c);
  bool l1_store(MemInst& m, const coal_req& r, uint64_t c);
  bool l1_atomic(MemInst& m, const coal_req& r);
  void atomic_response(GpuExt& x, uint64_t c);
  inline void send_stage(uint64_t c);

  // helpers
  void fetch(Warp& w);
  void complete_lanes(uint16_t ldrec, uint32_t lanes, uint64_t ready_cycle);
  void compare_lanes(uint16_t ldrec, uint32_t lanes, const unsigned char* line_data, uint64_t c);
  int find_mshr(uint64_t line) const;
  unsigned mshr_hash(uint64_t line) const { return static_cast<unsigned>(((line >> 7) * 0x9E3779B97F4A7C15ull) >> mshr_shift_); }
  void mshr_link(unsigned ms);
  void mshr_unlink(unsigned ms);
  tlm::tlm_generic_payload* new_request(uint64_t line, uint16_t warp, uint8_t ea, GpuExt** ext);
  void release_barrier(CtaSlot& cs);
  void wake_cycle(uint64_t cyc);
  void wake_at_ps(uint64_t t_ps, uint64_t now);
  uint64_t now_ps() const { return sim_now().value() / ps_unit_; }

  const unsigned id_;
  const SmCfg cfg_;
  const L1Cfg l1cfg_;
  const amap* map_;
  PayloadPool& pool_;
  bstore* golden_;
  Checker* checker_;
  SmHost* gpu_;  // the CTA dispatcher
  const uint64_t ps_unit_;  // sc_time ticks per ps
  const uint64_t period_ps_;
  const bool gto_;

  const KernelIf* kernel_ = nullptr;
  std::vector<Warp> warps_;
  // Hot per-slot scheduling word, scanned every issue cycle (kept apart from the
  // large Warp records): cycle at which the buffered instruction's operands are
  // ready, kNever when the slot cannot issue until an event (free, exited, at a
  // barrier, waiting for a load), kDirty when it must be recomputed.
  static constexpr uint64_t kDirty = ~0ull - 1;
  std::vector<uint64_t> rdy_;
  std::vector<Op> op_;  // op of each slot's buffered instruction (valid when rdy_ is not kDirty)
  std::vector<uint8_t> st_;      // SlotState per slot
  std::vector<uint16_t> pos_;    // index of a live, not exited slot in age_buf_
  std::vector<uint64_t> last_iss_;  // cycle of the slot's last issue (one issue per warp per cycle)
  unsigned nwords_ = 1;
  std::vector<uint64_t> dirty_;  // by slot
  std::vector<uint64_t> timed_;  // by slot
  std::vector<uint64_t> elig_;   // by OpClass, then scan key (key_of: slot for LRR, age position for GTO)
  uint64_t timed_min_ = kNever;  // <= earliest rdy_ of a Timed slot (may be stale-low)
  unsigned n_elig_[3] = {0, 0, 0};
  bool any_dirty_ = false;
  std::vector<CtaSlot> ctas_;
  // Live, not exited warp slots, oldest first: age_buf_[age_head_ .. + age_n_)
  // (2 x max_warps entries; age position p = pos_[slot] - age_head_).
  std::vector<uint16_t> age_buf_;
  unsigned age_head_ = 0, age_n_ = 0;
  unsigned ctas_live_ = 0, warps_free_ = 0;
  uint64_t age_ctr_ = 0;
  int last_issued_ = -1;

  std::vector<LdRec> ldrecs_;
  std::vector<LdChk> ldchk_;  // by load record; allocated only when the checker is on
  std::vector<uint16_t> ldrec_free_;
  std::vector<AtomSlot> atom_;  // by warp slot x max_atomics + k; empty until the first atomic
  std::vector<MemInst> memq_;  // ring
  unsigned memq_head_ = 0, memq_count_ = 0;
  bool l1_blocked_ = false;

  cache l1_{};
  bool l1_on_;
  bool chk_;  // golden-memory checker on
  std::vector<Mshr> mshrs_;
  std::vector<Waiter> waiters_;  // mshrs x mshr_merge
  size_t merge_ = 1;             // waiter slots per MSHR
  std::vector<uint16_t> mshr_free_;
  unsigned mshr_live_ = 0;
  std::vector<int16_t> mshr_bucket_;
  unsigned mshr_shift_ = 64;

  std::vector<tlm::tlm_generic_payload*> outq_;  // ring
  unsigned outq_head_ = 0, outq_count_ = 0;
  tlm::tlm_generic_payload* awaiting_end_req_ = nullptr;
  uint64_t send_ok_ps_ = 0;

  std::vector<RespEnt> rheap_;  // min-heap on (t_ps, seq)
  uint64_t rseq_ = 0;
  Event resp_ev_;
  std::vector<tlm::tlm_generic_payload*> resp_ready_;
  Event wake_;
  uint64_t last_cycle_ = kNever;
  uint64_t now_ps_ = 0;             // current time while cycle() runs
  // A second evaluation within one cycle (a response in a later delta) rescans
  // the warps only if something changed since the cycle's last scan
  // (issue_dirty_: a load returned, a barrier opened, a CTA arrived, an LD/ST
  // queue slot freed) — as a hardware scheduler decides once per such change.
  uint64_t last_scan_c_ = kNever;
  bool issue_dirty_ = true;
  bool issued_eval_ = false;            // the current evaluation issued something
  unsigned issued_c_ = 0, ldst_c_ = 0;  // this cycle's issue and LD/ST budget used
  bool l1_done_c_ = false, send_done_c_ = false;
  // This cycle's L1 attempt was refused (kRefMshr / kRefPort): a response
  // processed later in the same cycle (a later delta) lets the L1 retry, as if
  // it had been processed first (stage order: responses before the L1), and
  // the superseded refusal is not counted.
  static constexpr uint8_t kRefMshr = 1, kRefPort = 2;
  uint8_t l1_refused_c_ = 0;
  // LD/ST-queue slots and load records the L1 stage freed in this cycle: the
  // issue stage (before the L1 stage in the cycle) can use them from the next
  // cycle on, also when the SM is evaluated again later in the same cycle.
  unsigned memq_freed_c_ = 0, ldrec_freed_c_ = 0;
  // The L1 stage sees the L2-port queue as before this cycle's send (stage order).
  unsigned sent_c_ = 0;
  bool in_l1_stage_ = false;

  std::vector<IssueRec>* issue_log_ = nullptr;

  // Memo of the last refused L1 load attempt: the same request (queue entry
  // and line index) tried again while nothing its refusal depends on changed
  // — L1 tags and valid sectors and the MSHRs (l1_epoch_, bumped by every
  // accepted L1 request, load response and invalidation) and the L2-port
  // queue level — is refused the same way (same counter) without the lookups.
  uint64_t l1_epoch_ = 0;
  struct L1Memo {
    uint64_t epoch = ~0ull;
    const MemInst* m = nullptr;
    uint8_t next = 0;
    bool mshr = false;
    unsigned port = 0;
  } l1_memo_;

  // stats
  uint64_t atomic_insts_ = 0, atomic_reqs_ = 0;
  uint64_t thread_insts_ = 0, warp_insts_ = 0, mem_insts_ = 0, mem_requests_ = 0, ctas_done_ = 0, wakeups_ = 0;
  uint64_t stores_out_ = 0;
  uint64_t l1_acc_ = 0, l1_hit_ = 0, l1_miss_ = 0, l1_merge_ = 0, l1_resfail_ = 0, l1_fail_mshr_ = 0, l1_fail_port_ = 0, l1_fills_ = 0;
  coal_hist coal_{};
};

}  // namespace strata
