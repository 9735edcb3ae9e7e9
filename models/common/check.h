// Golden-memory checker (--check): every load's returned bytes are compared
// with the bytes the golden functional memory held when the load was
// generated. The first mismatch is fatal: one line on stderr naming the
// requester, the address, the cycle and both byte strings, exit status 3.
// Any module that returns data (SM loads, NDP SMs) can use it.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

class StatsRegistry;

// Print "strata: check failed: <who> addr 0x.. cycle N: expected <hex> got <hex>"
// to stderr and exit(3). Bytes are printed in address order.
[[noreturn]] void check_failed(const std::string& who, uint64_t addr, uint64_t cycle, const void* expected,
                               const void* actual, unsigned len);

// Counters of the checker; registers check.loads and check.bytes.
class Checker {
 public:
  Checker(bool enabled, StatsRegistry& stats);
  bool enabled() const { return enabled_; }
  // Compare one access of `len` bytes; on mismatch calls check_failed with
  // "SM <sm> warp <warp>". Counts one load and `len` bytes.
  void compare(unsigned sm, unsigned warp, uint64_t addr, uint64_t cycle, const void* expected, const void* actual,
               unsigned len);
  // Compare the old value an L2 bank's atomic unit read (`actual`) with the
  // golden memory's (`expected`) before the same operation; counts one atomic.
  void compare_atomic(unsigned bank, uint64_t addr, uint64_t cycle, const void* expected, const void* actual,
                      unsigned len);
  uint64_t loads() const { return loads_; }
  uint64_t bytes() const { return bytes_; }

 private:
  bool enabled_;
  uint64_t loads_ = 0, bytes_ = 0, atomics_ = 0;
};

}  // namespace strata
