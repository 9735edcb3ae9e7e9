// Allocation-free queues for Strata's event-driven TLM modules (L2 banks,
// crossbar): a fixed-capacity FIFO ring and a time-ordered queue that drives
// one event (the next time something becomes ready), so no module polls
// per cycle. Capacity is fixed at construction (elaboration); push on a full
// queue is a modelling bug and reported as fatal by the caller.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include "common/sched.h"
#include "common/simtime.h"

namespace strata {

// Wake `ev` at absolute time `at` ticks (>= now).
inline void wake_at(Event& ev, uint64_t at, uint64_t now) { ev.notify_at(at, now); }
inline void wake_at(sc_core::sc_event& ev, uint64_t at, uint64_t now) { ev.notify(ticks_time(at - now)); }

// Fixed-capacity FIFO ring.
template <typename T>
class Ring {
 public:
  explicit Ring(size_t cap = 1) { reset(cap); }
  void reset(size_t cap) {
    buf_.assign(cap ? cap : 1, T());
    head_ = n_ = 0;
  }
  size_t size() const { return n_; }
  size_t capacity() const { return buf_.size(); }
  size_t free() const { return buf_.size() - n_; }
  bool empty() const { return n_ == 0; }
  bool full() const { return n_ == buf_.size(); }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& at(size_t i) { return buf_[(head_ + i) % buf_.size()]; }
  const T& at(size_t i) const { return buf_[(head_ + i) % buf_.size()]; }
  bool push(const T& v) {
    if (full()) return false;
    size_t t = head_ + n_;  // < 2 * capacity: one conditional subtraction instead of a division
    if (t >= buf_.size()) t -= buf_.size();
    buf_[t] = v;
    ++n_;
    return true;
  }
  void pop() {
    if (++head_ == buf_.size()) head_ = 0;
    --n_;
  }

 private:
  std::vector<T> buf_;
  size_t head_ = 0, n_ = 0;
};

// Items ordered by ready time (ties in insertion order). Kept as a sorted
// array with a moving head: a push goes to the back and slides forward past
// the items due strictly later, so the pushes of L2 ports and links, which come
// in (almost) non-decreasing time order, cost O(1) and a pop is O(1). The
// vector is reserved at construction; push/pop never allocate while the
// number of queued items stays within that capacity (the popped prefix is
// reclaimed before the vector would grow). `ev` is notified for the earliest
// ready time whenever that changes. Times are kernel ticks (sc_time::value());
// the sc_time overloads are for callers that keep sc_time, the tick ones for
// modules that keep integer times (the crossbar).
template <typename T>
class TimedQueue {
 public:
  explicit TimedQueue(size_t reserve = 64) { buf_.reserve(reserve); }
  void reserve(size_t n) { buf_.reserve(n); }
  // Ready at absolute time `at` (>= now).
  // Ev: strata::Event (models) or sc_core::sc_event (test benches).
  template <class Ev>
  void push(const sc_core::sc_time& at, const T& v, Ev& ev) { push(at, v, ev, sim_now()); }
  // As above with the caller's current time `now` (saves a kernel call in loops).
  template <class Ev>
  void push(const sc_core::sc_time& at, const T& v, Ev& ev, const sc_core::sc_time& now) {
    if (insert(at.value(), v)) wake_at(ev, at.value(), now.value());
  }
  // The same in ticks.
  template <class Ev>
  void push(uint64_t at, const T& v, Ev& ev, uint64_t now) {
    if (insert(at, v)) wake_at(ev, at, now);
  }
  bool empty() const { return head_ == buf_.size(); }
  size_t size() const { return buf_.size() - head_; }
  // True if the earliest item is ready at the current time.
  bool ready() const { return ready(sim_now().value()); }
  bool ready(const sc_core::sc_time& now) const { return ready(now.value()); }
  bool ready(uint64_t now) const { return head_ != buf_.size() && buf_[head_].at <= now; }
  const T& top() const { return buf_[head_].v; }
  uint64_t top_ticks() const { return buf_[head_].at; }
  T pop() { return buf_[head_++].v; }
  // Re-arm `ev` for the earliest remaining item (call after draining ready ones).
  template <class Ev>
  void rearm(Ev& ev) const { rearm(ev, sim_now().value()); }
  template <class Ev>
  void rearm(Ev& ev, const sc_core::sc_time& now) const { rearm(ev, now.value()); }
  template <class Ev>
  void rearm(Ev& ev, uint64_t now) const {
    if (head_ != buf_.size()) wake_at(ev, buf_[head_].at, now);
  }

 private:
  struct Item {
    uint64_t at;  // ticks
    T v;
  };
  // Sorted insertion; true when the item became the earliest.
  bool insert(uint64_t at, const T& v) {
    if (head_ == buf_.size()) {  // drained: start over at the front
      buf_.clear();
      head_ = 0;
    } else if (buf_.size() == buf_.capacity() && head_ > 0) {  // reclaim popped slots instead of growing
      buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    buf_.push_back(Item{at, v});
    size_t i = buf_.size() - 1;
    while (i > head_ && buf_[i - 1].at > at) {  // earlier pushes stay first on equal times
      buf_[i] = buf_[i - 1];
      --i;
    }
    if (i != buf_.size() - 1) buf_[i] = Item{at, v};
    return i == head_;
  }
  std::vector<Item> buf_;
  size_t head_ = 0;
};

}  // namespace strata
