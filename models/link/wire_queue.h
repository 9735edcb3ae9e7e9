// WireQueue: one serial resource in front of a receiver -- a link direction
// (models/link/tlm_link.h) or the data path of the host-memory device
// (models/host/host_mem.h). A bounded FIFO of accepted transfers over the C
// timing reference models/ref/mem/link.h: each transfer goes on the wire when its
// arrival time has come and every transfer before it has gone (in order),
// holds the wire for its serialisation time and is due at the receiver when
// its last bit is there (start + wire time + latency). The owner hands the
// head to its receiver when it is due and pops it when the receiver took it;
// until then the transfer keeps its place, so a slow receiver fills the
// queue (the owner withholds END_REQ / END_RESP from senders while it is
// full: the queue is the receiver's buffer, the credits of a real link).
//
// Times are kernel ticks (sc_time::value()); the C model counts picoseconds.
// Fixed capacity, no allocation after construction, no process of its own:
// the owner wakes at next_due().
#pragma once
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <systemc>
#include <tlm>

#include "common/bits.h"
#include "common/payload.h"
#include "noc/queues.h"

extern "C" {
#include "mem/link.h"
}

namespace strata {

// Data bytes a payload moves, the unit links and the host device charge: a
// span -- a data length other than 128 B or an address not 128 B-aligned (a
// bulk transfer, a memory side's own transfer across lines; MemCtrl's rule)
// -- moves its data length whole;
// a line moves 32 B per sector -- a write the sectors its byte mask touches
// (its sector mask when the byte mask is empty), a read its sector mask --
// and all four when the mask is empty. A request carries a write's data, a
// response a read's (link_request_bytes / link_response_bytes).
inline bool payload_is_span(const tlm::tlm_generic_payload& gp) {
  return gp.get_data_length() != kLineBytes || gp.get_address() % kLineBytes;
}
inline unsigned payload_data_bytes(tlm::tlm_generic_payload& gp) {
  if (payload_is_span(gp)) return gp.get_data_length();
  const GpuExt* e = GpuExt::find(gp);
  if (!e) return kLineBytes;
  unsigned m = e->sector_mask & ((1u << kSectorsPerLine) - 1u);
  if (gp.is_write())
    for (unsigned s = 0; s < kSectorsPerLine; ++s)
      if ((e->byte_mask[s >> 1] >> ((s & 1) * 32)) & 0xffffffffull) m |= 1u << s;
  return (m ? popcount32(m) : kSectorsPerLine) * kSectorBytes;
}
inline unsigned link_request_bytes(tlm::tlm_generic_payload& gp) { return gp.is_write() ? payload_data_bytes(gp) : 0; }
inline unsigned link_response_bytes(tlm::tlm_generic_payload& gp) { return gp.is_write() ? 0 : payload_data_bytes(gp); }

class WireQueue {
 public:
  struct Entry {
    tlm::tlm_generic_payload* gp = nullptr;
    uint64_t arrival = 0;   // reached the wire's input (ticks)
    uint64_t ready = 0;     // last bit at the receiver (ticks; once sent)
    uint64_t unloaded = 0;  // its wire time + latency (ticks; once sent)
    uint32_t port = 0;      // the owner's: where it came from or goes to
    uint32_t bytes = 0;     // data bytes (link_send)
  };
  static constexpr uint64_t kNever = UINT64_MAX;

  // cfg: the C model's (link_init validates it); capacity: transfers held.
  // Throws std::invalid_argument with link_init's reason.
  WireQueue(const link_cfg& cfg, unsigned capacity, const std::string& what)
      : q_(capacity), ps_(sc_core::sc_time(1, sc_core::SC_PS).value()) {
    char err[160];
    if (capacity == 0) throw std::invalid_argument(what + ": queue must be > 0");
    if (ps_ == 0) throw std::invalid_argument(what + ": needs a time resolution of 1 ps or finer");
    if (link_init(&ch_, &cfg, err, sizeof err) != 0) throw std::invalid_argument(what + ": " + err);
  }

  bool full() const { return q_.full(); }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }
  // Accept a transfer (the owner checked full()); it goes on the wire now when its turn has come.
  void push(const Entry& e, uint64_t now) {
    if (!q_.push(e)) throw std::logic_error("WireQueue: push on a full queue");
    if (sent_ + 1 == q_.size() && e.arrival <= now) send(q_.at(sent_), now);
  }
  // Put the transfers whose arrival has come on the wire, in order.
  void send_due(uint64_t now) {
    while (sent_ < q_.size() && q_.at(sent_).arrival <= now) send(q_.at(sent_), now);
  }
  // The head is on the wire and its last bit at the receiver.
  bool head_due(uint64_t now) const { return sent_ > 0 && q_.front().ready <= now; }
  Entry& front() { return q_.front(); }
  // The receiver took the head; its time beyond the unloaded wire time +
  // latency (waiting for room, the wire and the receiver) is counted.
  Entry pop(uint64_t now) {
    const Entry e = q_.front();
    q_.pop();
    --sent_;
    ++delivered_;
    const uint64_t spent = now - e.arrival;
    if (spent > e.unloaded) delay_ps_ += (spent - e.unloaded) / ps_;
    return e;
  }
  // Earliest time something is due (kNever: nothing): the next transfer to
  // send, and the head unless its receiver holds it (head_held).
  uint64_t next_due(bool head_held) const {
    uint64_t t = kNever;
    if (sent_ < q_.size()) t = q_.at(sent_).arrival;
    if (sent_ > 0 && !head_held && q_.front().ready < t) t = q_.front().ready;
    return t;
  }
  const link_chan& chan() const { return ch_; }
  uint64_t now_ps() const { return sim_now().value() / ps_; }
  // Counters: transfers the receiver took, their summed delay (ps).
  const uint64_t& delivered() const { return delivered_; }
  const uint64_t& delay_ps() const { return delay_ps_; }

 private:
  void send(Entry& e, uint64_t now) {
    uint64_t start = 0;
    const uint64_t at = link_send(&ch_, now / ps_, e.bytes, &start);
    if (at == LINK_ERR) throw std::logic_error("WireQueue: transfer sent back in time or too large");
    e.ready = at * ps_;
    e.unloaded = (at - start) * ps_;
    ++sent_;
  }
  Ring<Entry> q_;
  size_t sent_ = 0;  // q_ entries [0, sent_) are on the wire or at the receiver
  link_chan ch_{};
  const uint64_t ps_;  // ticks per ps
  uint64_t delivered_ = 0, delay_ps_ = 0;
};

}  // namespace strata
