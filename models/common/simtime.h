// Current simulation time for hot paths. sc_core::sc_time_stamp() is an
// out-of-line library call; the simulation context it reads is reachable
// through inline SystemC accessors, which return the very same object.
#pragma once
#include <cstdint>

#include <systemc>

namespace strata {

// Same value as sc_core::sc_time_stamp().
inline const sc_core::sc_time& sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

// The sc_time of `t` kernel ticks (sc_time::value()), like
// sc_time::from_value(t) but inline: the inline sc_time * double rounds
// 1 tick * t to exactly t ticks (t < 2^52).
inline sc_core::sc_time ticks_time(uint64_t t) {
  static const sc_core::sc_time one = sc_core::sc_time::from_value(1);
  return one * static_cast<double>(t);
}

}  // namespace strata
