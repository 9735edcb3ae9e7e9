// DevLoadIf: what a memory-side policy may ask a device controller about its
// load -- the fraction of the data bus busy over a recent window (bandwidth-
// aware policies: FLRB's per-quantum migration quota, TOM's channel busy
// monitor). Answered from counters at query time (MemCtrl keeps a short ring
// of (cycle, busy cycles) snapshots taken on its own events), never by
// polling. The memory side (models/memside/mem_side.h) passes the question on
// through memside_env.dev_util.
#pragma once
#include <cstdint>

namespace strata {

struct DevLoadIf {
  virtual ~DevLoadIf() = default;
  // Data-bus busy fraction over the last window_ps picoseconds, in units of
  // 1/65536 (0 .. 65536). The window is rounded to the controller's snapshot
  // granularity and capped at the span it keeps (see MemCtrl).
  virtual uint32_t bus_util_q16(uint64_t window_ps) = 0;
};

}  // namespace strata
