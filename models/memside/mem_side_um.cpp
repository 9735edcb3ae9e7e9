// MemSide's part of Unified Memory (docs/um.md): far faults held at the
// memory side, and this partition's part of each page the driver
// (um_driver.h) moves in or out.
//
// Where a page's bytes are: a page the page table has RESIDENT (or LEAVING,
// until its page-out has read it) lives where the policy places it; any
// other page lives on the host, its copy at its physical address with the
// lines grouped by partition (memside_page_part), so this partition's part of
// a page is one contiguous host range and moves in one transfer over the link.
//
// Page-in of the part: read it from the host (class page_in), write each line
// to its device place (a transfer per run contiguous there), tell the driver.
// Page-out of the part (the page is LEAVING: new accesses to it are held as
// faults): wait until the accesses to it already routed are answered (so no
// write-back is still on its way to the device), drop its lines from the L2
// keeping their dirty sectors (the copy engine reads the page through the L2),
// read the part from the devices, lay the L2's dirty sectors over it, write it
// to the host (class page_out), tell the driver.
#include <cstring>
#include <stdexcept>
#include <string>

#include "memside/mem_side.h"
#include "memside/um_driver.h"

namespace strata {

void MemSide::attach_um(UmDriver* um, uint64_t host_bytes) {
  if (bound_devs_ != cfg_.ndevs || um_) throw std::logic_error("attach_um: after the policy's devices, once");
  const uint64_t end = um->model().cfg.pages * UM_PAGE;
  if (end > host_bytes)
    throw std::invalid_argument("expected hostpath.size at least " + std::to_string(end) +
                                " B under Unified Memory (a page's host copy is at its physical address), got " +
                                std::to_string(host_bytes));
  um_host_ = ndev_++;  // the shell's own device, bound next
  dev_arrive_.push_back(0);
  rel_q_.resize(ndev_);
  rel_wait_.push_back(nullptr);
  own_queue_.resize(ndev_);
  own_wait_.push_back(nullptr);
  um_ = um;
  um_slot_.assign(kUmSlots, UmSlot{});
  um_inflight_.assign(kUmBuckets, 0);
  const size_t base = own_.size();
  own_.resize(base + kUmSlots * kUmXfers);
  for (size_t i = own_.size(); i-- > base;) um_own_free_.push_back(static_cast<uint32_t>(i));
}

bool MemSide::write_must_fetch(uint64_t line) const {
  return um_ && um_->state(line / UM_PAGE) != UM_RESIDENT;
}

bool MemSide::um_host_locate(uint64_t pa, memside_target* t) const {
  const uint64_t page = pa / UM_PAGE;
  const uint8_t s = um_->state(page);
  if (s == UM_RESIDENT || s == UM_LEAVING) return false;
  uint32_t before;
  const uint32_t mine = memside_page_part(cfg_.map, page, cfg_.partition, &before);
  const unsigned i = static_cast<unsigned>(pa % UM_PAGE / kLineBytes);
  *t = memside_target{};
  t->dev = um_host_;
  t->kind = AMAP_MEM_HOST;
  t->addr = page * UM_PAGE + (before + static_cast<unsigned>(__builtin_popcount(mine & ((1u << i) - 1u)))) * kLineBytes;
  return true;
}

// An access of the L2: its page resident (the policy routes it), served remotely from the host copy (access
// counters: a page not yet coming in), or a far fault (held until the replay).
int MemSide::um_ask(uint64_t pa, uint32_t* ticket, memside_target* t) {
  const uint64_t page = pa / UM_PAGE;
  const uint8_t s = um_->state(page);
  if (s == UM_RESIDENT) {
    um_->touch(page);
    if (*ticket == kUmTicket) *ticket = 0;  // the policy sees its first call
    return MEMSIDE_GO;
  }
  if (um_->remote() && (s == UM_ABSENT || s == UM_FAULTED)) {
    um_->remote(page);
    (void)um_host_locate(pa, t);
    t->addr += pa % kLineBytes;  // a piece (policy granule) at its offset in the host line
    return kUmRemote;
  }
  um_->fault(page);
  *ticket = kUmTicket;
  return MEMSIDE_HOLD;
}

void MemSide::um_answered(uint64_t pa) {
  const unsigned b = static_cast<unsigned>(pa / UM_PAGE % kUmBuckets);
  if (--um_inflight_[b]) return;
  for (unsigned k = 0; k < kUmSlots; ++k)
    if (um_slot_[k].phase == kUmDrain && um_slot_[k].page % kUmBuckets == b) um_step(k);
}

bool MemSide::um_move(uint64_t page, uint32_t job, bool in) {
  uint32_t before;
  if (!memside_page_part(cfg_.map, page, cfg_.partition, &before)) return false;
  um_jobs_.push_back(UmJob{page, job, in});
  um_start();
  return true;
}

void MemSide::um_start() {
  for (unsigned k = 0; k < kUmSlots && !um_jobs_.empty(); ++k) {
    UmSlot& s = um_slot_[k];
    if (s.phase != kUmFree) continue;
    const UmJob j = um_jobs_.front();
    um_jobs_.pop_front();
    s.page = j.page;
    s.job = j.job;
    s.in = j.in;
    s.pending = 0;
    s.mine = memside_page_part(cfg_.map, j.page, cfg_.partition, &s.before);
    const uint32_t bytes = static_cast<uint32_t>(__builtin_popcount(s.mine)) * kLineBytes;
    if (s.in) {  // read the part from the host
      s.phase = kUmRead;
      um_issue(k, um_host_, s.page * UM_PAGE + s.before * kLineBytes, bytes, false, MEMSIDE_PAGE_IN, s.buf);
      um_st_.bytes_in += bytes;
    } else {
      s.phase = kUmDrain;
      um_step(k);
    }
  }
}

// Page-out, once the accesses in flight to the page's bucket are answered: the L2's lines, then the devices.
void MemSide::um_step(unsigned k) {
  UmSlot& s = um_slot_[k];
  if (s.phase != kUmDrain || um_inflight_[s.page % kUmBuckets]) return;
  unsigned n = 0;
  for (unsigned i = 0; i < 32; ++i) {
    if (!((s.mine >> i) & 1u)) continue;
    s.l2_dirty[n] = l2_evict_ ? l2_evict_(s.page * UM_PAGE + i * kLineBytes, s.l2 + n * kLineBytes) : 0;
    if (s.l2_dirty[n]) ++um_st_.l2_dirty_lines;
    ++n;
  }
  s.phase = kUmRead;
  um_device_runs(k, false);
}

// The part's lines at the places the policy gives them, one transfer per run contiguous on a device.
void MemSide::um_device_runs(unsigned k, bool write) {
  UmSlot& s = um_slot_[k];
  const uint8_t cls = s.in ? MEMSIDE_PAGE_IN : MEMSIDE_PAGE_OUT;
  uint32_t run_dev = 0, run_bytes = 0, run_off = 0;
  uint64_t run_addr = 0;
  unsigned off = 0;
  for (unsigned i = 0; i < 32; ++i) {
    if (!((s.mine >> i) & 1u)) continue;
    memside_target t;
    ops_->locate(st_.get(), s.page * UM_PAGE + i * kLineBytes, &t);
    if (run_bytes && t.dev == run_dev && t.addr == run_addr + run_bytes) {
      run_bytes += kLineBytes;
    } else {
      if (run_bytes) um_issue(k, run_dev, run_addr, run_bytes, write, cls, s.buf + run_off);
      run_dev = t.dev;
      run_addr = t.addr;
      run_bytes = kLineBytes;
      run_off = off;
    }
    off += kLineBytes;
  }
  if (run_bytes) um_issue(k, run_dev, run_addr, run_bytes, write, cls, s.buf + run_off);
}

void MemSide::um_issue(unsigned k, uint32_t dev, uint64_t addr, uint32_t bytes, bool write, uint8_t cls,
                       unsigned char* buf) {
  if (um_own_free_.empty()) fatal("Unified Memory page moves outside their transfer slots");
  const uint32_t o = um_own_free_.back();
  um_own_free_.pop_back();
  const memside_xfer x{dev, addr, bytes, static_cast<uint8_t>(write), cls, buf, 0};
  own_[o] = Own{x, 1, 0, 1, -1, static_cast<int>(k)};
  own_queue_[dev].push_back(o);
  own_ev_.notify(sc_core::SC_ZERO_TIME);
  ++um_slot_[k].pending;
}

void MemSide::um_xfer_done(unsigned k) {
  UmSlot& s = um_slot_[k];
  if (--s.pending) return;
  const uint32_t bytes = static_cast<uint32_t>(__builtin_popcount(s.mine)) * kLineBytes;
  if (s.phase == kUmRead && s.in) {  // the host's bytes to the devices
    s.phase = kUmWrite;
    um_device_runs(k, true);
    return;
  }
  if (s.phase == kUmRead) {  // the devices' bytes with the L2's dirty sectors over them, to the host
    for (unsigned n = 0; n < bytes / kLineBytes; ++n)
      for (unsigned sec = 0; sec < kSectorsPerLine; ++sec)
        if ((s.l2_dirty[n] >> sec) & 1u)
          std::memcpy(s.buf + n * kLineBytes + sec * kSectorBytes, s.l2 + n * kLineBytes + sec * kSectorBytes,
                      kSectorBytes);
    s.phase = kUmWrite;
    um_issue(k, um_host_, s.page * UM_PAGE + s.before * kLineBytes, bytes, true, MEMSIDE_PAGE_OUT, s.buf);
    um_st_.bytes_out += bytes;
    return;
  }
  const uint32_t job = s.job;  // written: the part is where it belongs
  s.phase = kUmFree;
  um_start();
  um_->part_done(job);
}

}  // namespace strata
