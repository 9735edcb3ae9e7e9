// The error type of bad user input, shared by every layer: an unknown or
// out-of-range config key, a malformed trace line, a missing file. The CLI
// (sc_main) prints its one-line message ("FILE:LINE: expected ..., got '...'")
// and exits with status 2 (STYLE.md: gem5's `fatal`, the user's fault).
// It lives below platform/ so that the trace readers in workloads/ can throw it
// without depending on the platform (platform/config.h includes this header).
#pragma once
#include <stdexcept>

namespace strata {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace strata
