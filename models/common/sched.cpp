// Strata's deterministic event scheduler (see sched.h).
#include "common/sched.h"

#include <algorithm>

namespace strata {

namespace {
Scheduler* g_sched = nullptr;
}

Scheduler& Scheduler::get() {
  if (!g_sched) g_sched = new Scheduler("strata_scheduler");  // lives as long as the simulation
  return *g_sched;
}

Scheduler::Scheduler(sc_core::sc_module_name n) : sc_module(n) {
  // Bucket width: about 256 ps whatever the time resolution (ticks).
  const uint64_t per_ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  shift_ = 0;
  for (uint64_t w = per_ps ? per_ps * 256 : 1; w > 1; w >>= 1) ++shift_;
  bucket_.assign(kWheel, kNone);
  pool_.reserve(1024);
  slots_.reserve(64);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void Event::attach() {
  s_ = &Scheduler::get();
  rank_ = s_->next_rank(this);
}

uint32_t Scheduler::next_rank(Event* e) {
  if (!e->keyed_) e->key_ = last_key_;
  last_key_ = e->key_;
  by_rank_.push_back(e);
  const size_t words = (by_rank_.size() + 63) / 64;
  cur_.resize(words, 0);
  next_.resize(words, 0);
  return ranks_++;
}

Event::~Event() { cancel(); }

void Event::cancel() {
  switch (state_) {
    case kIdle:
      return;
    case kSlot:
      s_->slot_remove(this);
      break;
    case kCur:
      s_->clear_bit(s_->cur_, rank_);
      --s_->ncur_;
      break;
    case kNext:
      s_->clear_bit(s_->next_, rank_);
      --s_->nnext_;
      break;
    case kExt:
      for (size_t i = 0; i < s_->ext_.size(); ++i)
        if (s_->ext_[i] == this) {
          s_->ext_.erase(s_->ext_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      break;
  }
  state_ = kIdle;
}

// Not due by `at` yet (Event::notify_at checked): move or add it.
void Event::notify_slow(uint64_t at, uint64_t now) {
  if (state_ == kSlot) s_->slot_remove(this);
  if (at <= now && s_->in_run_) {  // next delta cycle
    s_->set_bit(s_->next_, rank_);
    ++s_->nnext_;
    state_ = kNext;
    t_ = now;
    return;
  }
  if (at <= now) {  // now, from outside an activation (elaboration, a test bench process)
    state_ = kExt;
    t_ = sc_core::sc_delta_count();
    s_->ext_.push_back(this);
    if (!s_->paused_) s_->wake_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  s_->slot_add(this, at, now);
}

size_t Scheduler::find_slot(uint64_t t) const {
  size_t lo = head_, hi = slots_.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (slots_[mid].t < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

__attribute__((always_inline)) inline void Scheduler::slot_add(Event* e, uint64_t t, uint64_t now) {
  e->state_ = Event::kSlot;
  e->t_ = t;
  e->prev_ = nullptr;
  const uint64_t b = t >> shift_;  // >= cursor_: t > now >= the last time taken
  if (b - cursor_ < kWheel) {
    const uint32_t bi = static_cast<uint32_t>(b) & (kWheel - 1);
    if (free_ == kNone) {  // grows only while the distinct pending times reach a new high
      pool_.push_back(Node{0, nullptr, kNone});
      free_ = static_cast<uint32_t>(pool_.size() - 1);
    }
    uint32_t* link = &bucket_[bi];
    while (*link != kNone && pool_[*link].t < t) link = &pool_[*link].next;
    if (*link != kNone && pool_[*link].t == t) {  // push on the front of that time's list
      Node& s = pool_[*link];
      e->next_ = s.head;
      s.head->prev_ = e;
      s.head = e;
      e->slot_ = *link;
    } else {
      const uint32_t k = free_;
      free_ = pool_[k].next;
      pool_[k] = Node{t, e, *link};
      *link = k;
      e->next_ = nullptr;
      e->slot_ = k;
      bits_[bi >> 6] |= 1ull << (bi & 63);
    }
  } else {  // beyond the wheel: the sorted overflow
    e->slot_ = kOverflow;
    if (head_ == slots_.size()) {  // no slot left: start over at the front
      slots_.clear();
      head_ = 0;
    }
    size_t i = slots_.size();
    if (i == head_ || slots_[i - 1].t < t) {  // the latest time
      if (slots_.size() == slots_.capacity() && head_ > 0) {  // reclaim taken slots instead of growing
        slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_));
        head_ = 0;
      }
      e->next_ = nullptr;
      slots_.push_back(Slot{t, e});
    } else {
      i = find_slot(t);
      if (slots_[i].t == t) {
        Event* h = slots_[i].head;
        e->next_ = h;
        h->prev_ = e;
        slots_[i].head = e;
      } else {
        e->next_ = nullptr;
        slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i), Slot{t, e});
      }
    }
  }
  // Inside an activation run() re-arms wake_ at its end; from outside, wake
  // the method (an sc_event keeps only its earliest notification).
  if (!in_run_ && !paused_ && !ncur_ && !nnext_) wake_.notify(ticks_time(t - now));
}

void Scheduler::slot_remove(Event* e) {
  if (e->slot_ != kOverflow) {
    const uint32_t k = e->slot_;
    Node& s = pool_[k];
    if (e->prev_)
      e->prev_->next_ = e->next_;
    else
      s.head = e->next_;
    if (e->next_) e->next_->prev_ = e->prev_;
    e->prev_ = e->next_ = nullptr;
    if (s.head) return;
    const uint32_t bi = static_cast<uint32_t>(s.t >> shift_) & (kWheel - 1);
    uint32_t* link = &bucket_[bi];
    while (*link != k) link = &pool_[*link].next;
    *link = s.next;
    if (bucket_[bi] == kNone) bits_[bi >> 6] &= ~(1ull << (bi & 63));
    s.next = free_;
    free_ = k;
    return;
  }
  const size_t i = find_slot(e->t_);
  if (e->prev_)
    e->prev_->next_ = e->next_;
  else
    slots_[i].head = e->next_;
  if (e->next_) e->next_->prev_ = e->prev_;
  e->prev_ = e->next_ = nullptr;
  if (slots_[i].head) return;
  if (i == head_)
    ++head_;
  else
    slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(i));
}

uint64_t Scheduler::earliest(uint32_t* node) const {
  uint64_t t = UINT64_MAX;
  *node = kNone;
  // first non-empty bucket at or after the cursor, going round the wheel once
  const uint32_t c = static_cast<uint32_t>(cursor_) & (kWheel - 1);
  uint32_t w = c >> 6;
  uint64_t bits = bits_[w] & (~0ull << (c & 63));
  for (uint32_t n = 0; n <= kWheel / 64; ++n) {
    if (bits) {
      const uint32_t bi = (w << 6) | static_cast<uint32_t>(__builtin_ctzll(bits));
      *node = bucket_[bi];
      t = pool_[*node].t;
      break;
    }
    w = (w + 1) & (kWheel / 64 - 1);
    bits = bits_[w];
    if (w == (c >> 6)) bits &= ~(~0ull << (c & 63));  // back at the cursor's word: the buckets before it
  }
  if (head_ < slots_.size() && slots_[head_].t <= t) {
    if (slots_[head_].t < t) *node = kNone;
    t = slots_[head_].t;
  }
  return t;
}

void Scheduler::take_time(uint64_t t, uint32_t node) {
  cur_word_ = 0;
  if (node != kNone) {
    const uint32_t bi = static_cast<uint32_t>(t >> shift_) & (kWheel - 1);
    Node& s = pool_[node];  // the first slot of its bucket
    take(s.head);
    bucket_[bi] = s.next;
    if (s.next == kNone) bits_[bi >> 6] &= ~(1ull << (bi & 63));
    s.next = free_;
    free_ = node;
  }
  if (head_ < slots_.size() && slots_[head_].t == t) take(slots_[head_++].head);
  cursor_ = t >> shift_;
}

void Scheduler::take(Event* list) {
  for (Event* e = list; e; e = e->next_) {
    e->state_ = Event::kCur;
    set_bit(cur_, e->rank_);
    ++ncur_;
  }
}

// Outside notifications made in an earlier SystemC delta cycle join the
// current delta cycle (they are the oldest entries due now).
void Scheduler::take_ext() {
  const uint64_t dc = sc_core::sc_delta_count();
  size_t keep = 0;
  for (size_t i = 0; i < ext_.size(); ++i) {
    Event* e = ext_[i];
    if (e->t_ < dc) {
      e->state_ = Event::kCur;
      set_bit(cur_, e->rank_);
      ++ncur_;
    } else {
      ext_[keep++] = e;
    }
  }
  ext_.resize(keep);
  cur_word_ = 0;
}

void Scheduler::order_ranks() {
  // No event is in a rank bitmap yet (those fill only inside run()), so
  // renumbering is all it takes; stable: bind order within a key.
  std::stable_sort(by_rank_.begin(), by_rank_.end(), [](const Event* a, const Event* b) { return a->key_ < b->key_; });
  for (uint32_t r = 0; r < by_rank_.size(); ++r) by_rank_[r]->rank_ = r;
  ordered_ = true;
}

void Scheduler::run() {
  const uint64_t now = sim_now().value();
  if (!ordered_) order_ranks();
  in_run_ = true;
  if (!ext_.empty() && !ncur_) take_ext();
  while (!paused_) {
    if (!ncur_) {
      if (nnext_) {  // the next delta cycle
        cur_.swap(next_);
        ncur_ = nnext_;
        nnext_ = 0;
        cur_word_ = 0;
        for (size_t w = 0; w < cur_.size(); ++w)
          for (uint64_t b = cur_[w]; b; b &= b - 1)
            by_rank_[w * 64 + static_cast<unsigned>(__builtin_ctzll(b))]->state_ = Event::kCur;
        continue;
      }
      // The earliest time, if due (earlier than now only after a pause:
      // overdue events run now, in time and rank order).
      uint32_t node;
      const uint64_t t = earliest(&node);
      if (t <= now) {
        take_time(t, node);
        continue;
      }
      break;
    }
    // Lowest rank first. No event joins the current delta cycle while it
    // runs (zero-delay notifications go to the next one), so the scan
    // position only moves forward.
    while (!cur_[cur_word_]) ++cur_word_;
    const uint64_t w = cur_[cur_word_];
    const uint32_t r = static_cast<uint32_t>(cur_word_ * 64 + static_cast<unsigned>(__builtin_ctzll(w)));
    cur_[cur_word_] = w & (w - 1);
    --ncur_;
    Event* e = by_rank_[r];
    e->state_ = Event::kIdle;
    e->next_ = nullptr;
    ++runs_;
    e->fn_(e->obj_);
  }
  in_run_ = false;
  if (paused_) return;
  if (!ext_.empty()) {
    wake_.notify(sc_core::SC_ZERO_TIME);  // made in this delta cycle: the next one
  } else {
    uint32_t node;
    const uint64_t t = earliest(&node);
    if (t != UINT64_MAX) wake_.notify(ticks_time(t - now));
  }
}

void Scheduler::resume() {
  paused_ = false;
  const uint64_t now = sim_now().value();
  if (ncur_ || nnext_ || !ext_.empty())
    wake_.notify(sc_core::SC_ZERO_TIME);
  else {
    uint32_t node;
    const uint64_t t = earliest(&node);
    if (t != UINT64_MAX) wake_.notify(t > now ? ticks_time(t - now) : sc_core::SC_ZERO_TIME);
  }
}

}  // namespace strata
