// Current simulation time for hot paths. sc_core::sc_time_stamp() is an
// out-of-line library call; the simulation context it reads is reachable
// through inline SystemC accessors, which return the very same object.
#pragma once
#include <systemc>

namespace strata {

// Same value as sc_core::sc_time_stamp().
inline const sc_core::sc_time& sim_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }

}  // namespace strata
