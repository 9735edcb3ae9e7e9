// Strata's deterministic event scheduler (see sched.h).
#include "common/sched.h"

namespace strata {

namespace {
Scheduler* g_sched = nullptr;
}

Scheduler& Scheduler::get() {
  if (!g_sched) g_sched = new Scheduler("strata_scheduler");  // lives as long as the simulation
  return *g_sched;
}

Scheduler::Scheduler(sc_core::sc_module_name n) : sc_module(n) {
  heap_.reserve(256);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void Event::attach() {
  s_ = &Scheduler::get();
  rank_ = s_->next_rank();
}

Event::~Event() {
  if (pos_ != kNone) s_->remove(this);
}

void Event::cancel() {
  if (pos_ != kNone) s_->remove(this);
}

void Scheduler::place(Event* e, uint64_t t, uint64_t sub, uint64_t now) {
  e->t_ = t;
  e->sub_ = sub;
  if (e->pos_ == Event::kNone) {
    e->pos_ = static_cast<uint32_t>(heap_.size());
    heap_.push_back(e);
  }
  sift_up(e->pos_);  // the key only ever decreases
  // Inside an activation the loop in run() picks it up (or re-arms wake_ at
  // its end); from outside (elaboration, a test bench process) wake the
  // method if this entry is now the earliest.
  if (!in_run_ && !paused_ && heap_[0] == e) wake_.notify(t > now ? ticks_time(t - now) : sc_core::SC_ZERO_TIME);
}

void Scheduler::remove(Event* e) {
  const uint32_t i = e->pos_;
  e->pos_ = Event::kNone;
  Event* last = heap_.back();
  heap_.pop_back();
  if (last == e) return;
  heap_[i] = last;
  last->pos_ = i;
  sift_up(i);
  sift_down(last->pos_);
}

void Scheduler::sift_up(uint32_t i) {
  Event* e = heap_[i];
  while (i > 0) {
    const uint32_t p = (i - 1) / 2;
    if (!e->before(*heap_[p])) break;
    heap_[i] = heap_[p];
    heap_[i]->pos_ = i;
    i = p;
  }
  heap_[i] = e;
  e->pos_ = i;
}

void Scheduler::sift_down(uint32_t i) {
  const uint32_t n = static_cast<uint32_t>(heap_.size());
  Event* e = heap_[i];
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && heap_[c + 1]->before(*heap_[c])) ++c;
    if (!heap_[c]->before(*e)) break;
    heap_[i] = heap_[c];
    heap_[i]->pos_ = i;
    i = c;
  }
  heap_[i] = e;
  e->pos_ = i;
}

void Scheduler::run() {
  const uint64_t now = sim_now().value();
  in_run_ = true;
  while (!heap_.empty() && !paused_) {
    Event* e = heap_[0];
    if (e->t_ > now) break;  // (earlier only after a pause: overdue entries run now, in key order)
    cur_delta_ = e->sub_ >> kRankBits;
    remove(e);
    ++runs_;
    e->fn_(e->obj_);
  }
  in_run_ = false;
  cur_delta_ = 0;
  if (!heap_.empty() && !paused_) wake_.notify(ticks_time(heap_[0]->t_ - now));
}

void Scheduler::resume() {
  paused_ = false;
  if (heap_.empty()) return;
  const uint64_t now = sim_now().value(), t = heap_[0]->t_;
  wake_.notify(t > now ? ticks_time(t - now) : sc_core::SC_ZERO_TIME);
}

}  // namespace strata
