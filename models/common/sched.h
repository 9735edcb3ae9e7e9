// Strata's event scheduler: the wake-ups of every timing model of the platform
// (SMs, crossbar, L2 banks, memory controllers, GPU front end, sampler) in one
// deterministic event list, driven by a single SystemC method process.
//
// Why not one sc_event + SC_METHOD per model process: SystemC runs processes
// that are due at the same time (and delta cycle) in the order its timed-event
// heap yields them, and that order depends on the history of every timed
// notification, superseded ones included. Same-time order is part of a cycle
// model's result (which SM's request the crossbar admits first), so with plain
// sc_events an unrelated notification -- the sampler's period, a trace probe --
// changed the stats. Here every process has a fixed rank and due processes run
// in (time, delta, rank) order:
// the result depends only on the model. It is also cheaper: a wake-up is a
// few comparisons in a small indexed heap, not a kernel event round trip.
//
// Semantics (those of sc_event + SC_METHOD with dont_initialize, one event per
// process, as the modules used before):
//  * Event::notify(d) with d > 0 schedules the bound process at now + d; with
//    d = 0 in the next delta cycle (after every process due in the current
//    one). An event keeps only its earliest pending notification.
//  * Processes due at the same time run by delta cycle, then by rank.
//  * A notification for now from outside an activation (a test bench's
//    SystemC process) runs in a later SystemC delta cycle, as an SC_METHOD
//    notified with SC_ZERO_TIME would.
//  * Between model processes SystemC time does not advance: the scheduler's
//    method runs all entries due now (all delta cycles) in one activation, then
//    notifies its sc_event for the next due time. sc_time_stamp() is correct
//    inside every process, and TLM calls between modules are plain function
//    calls as before; SystemC processes of a test bench interoperate (a
//    notification from outside an activation wakes the method as needed).
//  * pause() stops dispatching after the running process (sc_start() then
//    returns when nothing else is due); resume() continues where it stopped.
//
// Ranks (same-time order) are explicit: a model binds its processes with an
// Order (its Stage, then its instance index); processes bound before the
// simulation starts are ranked by (stage, instance, bind order) when it
// starts. Adding a module (a new stage or instance) therefore never reorders
// the existing ones. A process bound without an Order takes the Order of the
// process bound just before it (test benches: their creation order among the
// models); one bound once the simulation runs is ranked after all others.
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>

#include "common/simtime.h"

namespace strata {

class Scheduler;

// Same-time order of the platform's model processes: lower stages run first.
// The stages follow the request path from the SMs down to the memory, which
// is the order the platform has always created its modules in.
enum class Stage : uint16_t {
  Sm = 100,          // SM i: instance i (issue cycle, response intake)
  Gpu = 200,         // kernel launch, CTA dispatch
  Noc = 300,         // crossbar, links
  DeviceCtrl = 400,  // memory (device) controller of channel i
  MemSide = 450,     // memory-side controller of partition i
  L2 = 500,          // L2 bank i
  NdpSm = 600,       // SM i on a stack's logic layer (near-data processing)
  Throttle = 59000,  // memory power management (SCM throttling): a window's end, after the models due then
  Sampler = 60000,   // after every model due at the same time
};
struct Order {
  Stage stage;
  uint32_t instance;
};

class Event {
 public:
  Event() = default;
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Bind the process run by this event: `ev.bind<&Module::method>(this,
  // {Stage::L2, id})`. Same-time order: see the header comment.
  template <auto F, class M>
  void bind(M* obj, Order order) {
    key_ = (static_cast<uint64_t>(order.stage) << 32) | order.instance;
    keyed_ = true;
    bind<F>(obj);
  }
  // The same with the Order of the previously bound process.
  template <auto F, class M>
  void bind(M* obj) {
    obj_ = obj;
    fn_ = [](void* o) { (static_cast<M*>(o)->*F)(); };
    attach();
  }

  // Run the process after `delay` (SC_ZERO_TIME: next delta cycle).
  inline void notify(const sc_core::sc_time& delay);
  // Run the process at absolute time `at` ticks (sc_time::value()); at <= now
  // means the next delta cycle. `now` is the caller's current time.
  inline void notify_at(uint64_t at, uint64_t now);
  void notify_at(uint64_t at) { notify_at(at, sim_now().value()); }
  // Drop the pending notification, if any.
  void cancel();
  bool pending() const { return state_ != kIdle; }

 private:
  friend class Scheduler;

  enum State : uint8_t {
    kIdle,
    kSlot,  // waiting in the time slot t_
    kCur,   // due in the delta cycle being run
    kNext,  // due in the next delta cycle
    kExt,   // notified for now from outside an activation: due in a later SystemC delta cycle
  };
  void attach();
  void notify_slow(uint64_t at, uint64_t now);
  State state_ = kIdle;
  uint32_t rank_ = 0;
  uint64_t key_ = 0;   // (stage << 32) | instance
  bool keyed_ = false;
  uint64_t t_ = 0;  // due time, ticks (while pending); kExt: the SystemC delta count of the notification
  uint32_t slot_ = 0;  // kSlot: its wheel slot, or Scheduler::kOverflow
  Event *prev_ = nullptr, *next_ = nullptr;  // in its time slot's list
  Scheduler* s_ = nullptr;
  void* obj_ = nullptr;
  void (*fn_)(void*) = nullptr;
};

class Scheduler : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Scheduler);
  // The scheduler of this simulation; created on first use (elaboration).
  static Scheduler& get();

  void pause() { paused_ = true; }
  void resume();
  bool paused() const { return paused_; }
  // Processes run so far (for host-performance reports).
  uint64_t activations() const { return runs_; }

 private:
  friend class Event;
  explicit Scheduler(sc_core::sc_module_name n);
  void run();
  uint32_t next_rank(Event* e);
  void order_ranks();  // rank by (stage, instance, bind order), before the first run
  // Pending events by due time. One slot per distinct time, holding a list
  // of its events (any order). Slots within kWheel buckets of the cursor
  // (the bucket of the last time taken) sit in a timing wheel: bucket =
  // time >> shift_ (about 256 ps), a short list per bucket sorted by time and
  // a bitmap of non-empty buckets, so adding a notification and finding the
  // next due time cost a few operations. Later slots (refresh, epochs) wait
  // in a sorted overflow vector until they are the earliest. When a slot is
  // due its events become the current delta cycle: a bitmap by rank, run
  // lowest rank first; zero-delay notifications go to the next delta cycle's
  // bitmap.
  static constexpr uint32_t kWheel = 4096;  // buckets (power of two)
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kOverflow = UINT32_MAX - 1;  // Event::slot_ of an overflow event
  struct Node {  // a wheel slot
    uint64_t t;
    Event* head;
    uint32_t next;  // next (later) slot of the same bucket
  };
  struct Slot {  // an overflow slot
    uint64_t t;
    Event* head;
  };
  size_t find_slot(uint64_t t) const;  // first overflow slot at or after t
  void slot_add(Event* e, uint64_t t, uint64_t now);
  void slot_remove(Event* e);
  // Earliest pending time (UINT64_MAX: none); *node = its wheel slot or kNone.
  uint64_t earliest(uint32_t* node) const;
  void take_time(uint64_t t, uint32_t node);  // every slot at time t becomes the current delta cycle
  void take(Event* list);
  void set_bit(std::vector<uint64_t>& b, uint32_t r) { b[r >> 6] |= 1ull << (r & 63); }
  void clear_bit(std::vector<uint64_t>& b, uint32_t r) { b[r >> 6] &= ~(1ull << (r & 63)); }

  // Notifications for now made from outside an activation (a test bench's
  // SystemC process, elaboration). As with an SC_METHOD notified with
  // SC_ZERO_TIME, they run in a later SystemC delta cycle than the one in
  // which they were made: an activation in that same delta cycle (the
  // scheduler may run before or after the notifying process) leaves them.
  std::vector<Event*> ext_;
  void take_ext();
  std::vector<Node> pool_;             // wheel slots; free ones chained through next
  uint32_t free_ = kNone;
  std::vector<uint32_t> bucket_;       // first (earliest) slot of each bucket
  uint64_t bits_[kWheel / 64] = {};    // non-empty buckets
  unsigned shift_ = 8;                 // bucket width 2^shift_ ticks
  uint64_t cursor_ = 0;                // absolute bucket (time >> shift_) of the last time taken
  std::vector<Slot> slots_;            // overflow, sorted by time from head_
  size_t head_ = 0;
  std::vector<Event*> by_rank_;
  std::vector<uint64_t> cur_, next_;  // rank bitmaps: due now in this / the next delta cycle
  uint32_t ncur_ = 0, nnext_ = 0;     // their populations
  size_t cur_word_ = 0;               // no bit below this word in cur_
  sc_core::sc_event wake_;
  uint32_t ranks_ = 0;
  uint64_t last_key_ = 0;  // key of the last bound event (inherited by unkeyed ones)
  bool ordered_ = false;   // order_ranks done
  uint64_t runs_ = 0;
  bool in_run_ = false, paused_ = false;
};

inline void Event::notify(const sc_core::sc_time& delay) {
  const uint64_t now = sim_now().value();
  notify_at(now + delay.value(), now);
}

inline void Event::notify_at(uint64_t at, uint64_t now) {
  // Already due no later than `at`: an event keeps its earliest notification.
  if (state_ == kCur || state_ == kNext || state_ == kExt || (state_ == kSlot && t_ <= (at > now ? at : now)))
    return;
  // The usual case inline: an idle event notified from inside an activation
  // for a future time that already has a wheel slot at the front of its
  // bucket (other processes due then): join that slot's list, as
  // Scheduler::slot_add would (no wake-up needed: run() re-arms at its end).
  Scheduler* s = s_;
  if (state_ == kIdle && at > now && s->in_run_) {
    const uint64_t b = at >> s->shift_;
    if (b - s->cursor_ < Scheduler::kWheel) {
      const uint32_t k = s->bucket_[static_cast<uint32_t>(b) & (Scheduler::kWheel - 1)];
      if (k != Scheduler::kNone && s->pool_[k].t == at) {
        Scheduler::Node& n = s->pool_[k];
        state_ = kSlot;
        t_ = at;
        prev_ = nullptr;
        next_ = n.head;
        n.head->prev_ = this;
        n.head = this;
        slot_ = k;
        return;
      }
    }
  }
  notify_slow(at, now);
}

}  // namespace strata
