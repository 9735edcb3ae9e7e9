// Allocation-free queues for Strata's event-driven TLM modules (L2 banks,
// crossbar): a fixed-capacity FIFO ring and a time-ordered queue that drives
// one sc_event (the next time something becomes ready), so no module polls
// per cycle. Capacity is fixed at construction (elaboration); push on a full
// queue is a modelling bug and reported as fatal by the caller.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

namespace strata {

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

// Items ordered by ready time (ties in insertion order), backed by a binary
// heap in a vector reserved at construction: push/pop never allocate while the
// size stays within the reserved capacity. `ev` is notified for the earliest
// ready time whenever that changes.
template <typename T>
class TimedQueue {
 public:
  explicit TimedQueue(size_t reserve = 64) { heap_.reserve(reserve); }
  void reserve(size_t n) { heap_.reserve(n); }
  // Ready at absolute time `at` (>= now).
  void push(const sc_core::sc_time& at, const T& v, sc_core::sc_event& ev) { push(at, v, ev, sc_core::sc_time_stamp()); }
  // As above with the caller's current time `now` (saves a kernel call in loops).
  void push(const sc_core::sc_time& at, const T& v, sc_core::sc_event& ev, const sc_core::sc_time& now) {
    heap_.push_back(Item{at, seq_++, v});
    std::push_heap(heap_.begin(), heap_.end(), Later());
    if (heap_.front().seq == seq_ - 1) ev.notify(at - now);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // True if the earliest item is ready at the current time.
  bool ready() const { return ready(sc_core::sc_time_stamp()); }
  bool ready(const sc_core::sc_time& now) const { return !heap_.empty() && heap_.front().at <= now; }
  const T& top() const { return heap_.front().v; }
  const sc_core::sc_time& top_time() const { return heap_.front().at; }
  T pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    T v = heap_.back().v;
    heap_.pop_back();
    return v;
  }
  // Re-arm `ev` for the earliest remaining item (call after draining ready ones).
  void rearm(sc_core::sc_event& ev) const { rearm(ev, sc_core::sc_time_stamp()); }
  void rearm(sc_core::sc_event& ev, const sc_core::sc_time& now) const {
    if (!heap_.empty()) ev.notify(heap_.front().at - now);
  }

 private:
  struct Item {
    sc_core::sc_time at;
    uint64_t seq;
    T v;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  };
  std::vector<Item> heap_;
  uint64_t seq_ = 0;
};

}  // namespace strata
