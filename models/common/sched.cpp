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
  slots_.reserve(256);
  SC_METHOD(run);
  sensitive << wake_;
  dont_initialize();
}

void Event::attach() {
  s_ = &Scheduler::get();
  rank_ = s_->next_rank(this);
}

uint32_t Scheduler::next_rank(Event* e) {
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

void Scheduler::slot_add(Event* e, uint64_t t, uint64_t now) {
  e->state_ = Event::kSlot;
  e->t_ = t;
  e->prev_ = nullptr;
  if (head_ == slots_.size()) {  // no slot left: start over at the front
    slots_.clear();
    head_ = 0;
  }
  size_t i = slots_.size();
  if (i == head_ || slots_[i - 1].t < t) {  // the latest time (the common case)
    if (slots_.size() == slots_.capacity() && head_ > 0) {  // reclaim taken slots instead of growing
      slots_.erase(slots_.begin(), slots_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    e->next_ = nullptr;
    slots_.push_back(Slot{t, e});
    i = slots_.size() - 1;
  } else {
    i = find_slot(t);
    if (slots_[i].t == t) {  // push on the front of that time's list
      Event* h = slots_[i].head;
      e->next_ = h;
      h->prev_ = e;
      slots_[i].head = e;
    } else if (i == head_ && head_ > 0) {  // before the earliest: reuse a taken slot
      e->next_ = nullptr;
      slots_[--head_] = Slot{t, e};
      i = head_;
    } else {
      e->next_ = nullptr;
      slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i), Slot{t, e});
    }
  }
  // Inside an activation run() re-arms wake_ at its end; from outside, wake
  // the method if this is now the earliest time.
  if (!in_run_ && !paused_ && i == head_ && !ncur_ && !nnext_)
    wake_.notify(t > now ? ticks_time(t - now) : sc_core::SC_ZERO_TIME);
}

void Scheduler::slot_remove(Event* e) {
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

void Scheduler::take(Event* list) {
  for (Event* e = list; e; e = e->next_) {
    e->state_ = Event::kCur;
    set_bit(cur_, e->rank_);
    ++ncur_;
  }
  cur_word_ = 0;
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

void Scheduler::run() {
  const uint64_t now = sim_now().value();
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
      if (head_ < slots_.size() && slots_[head_].t <= now) {
        take(slots_[head_++].head);
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
  if (!ext_.empty())
    wake_.notify(sc_core::SC_ZERO_TIME);  // made in this delta cycle: the next one
  else if (head_ < slots_.size())
    wake_.notify(ticks_time(slots_[head_].t - now));
}

void Scheduler::resume() {
  paused_ = false;
  const uint64_t now = sim_now().value();
  if (ncur_ || nnext_ || !ext_.empty())
    wake_.notify(sc_core::SC_ZERO_TIME);
  else if (head_ < slots_.size())
    wake_.notify(slots_[head_].t > now ? ticks_time(slots_[head_].t - now) : sc_core::SC_ZERO_TIME);
}

}  // namespace strata
