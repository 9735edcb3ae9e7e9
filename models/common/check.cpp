#include "common/check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/stats.h"

namespace strata {

void check_failed(const std::string& who, uint64_t addr, uint64_t cycle, const void* expected, const void* actual,
                  unsigned len) {
  const unsigned char* e = static_cast<const unsigned char*>(expected);
  const unsigned char* a = static_cast<const unsigned char*>(actual);
  std::string es, as;
  char h[4];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(h, sizeof h, "%02x", e[i]);
    es += h;
    std::snprintf(h, sizeof h, "%02x", a[i]);
    as += h;
  }
  std::fprintf(stderr, "strata: check failed: %s addr 0x%llx cycle %llu: expected %s got %s\n", who.c_str(),
               static_cast<unsigned long long>(addr), static_cast<unsigned long long>(cycle), es.c_str(), as.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(3);
}

Checker::Checker(bool enabled, StatsRegistry& stats) : enabled_(enabled) {
  stats.counter("check.loads", "thread loads whose returned bytes were compared with golden memory", Unit::Count,
                &loads_);
  stats.counter("check.atomics", "atomic lanes whose old value (at the L2) was compared with golden memory",
                Unit::Count, &atomics_);
  stats.counter("check.bytes", "bytes compared with golden memory", Unit::Byte, &bytes_);
}

void Checker::compare(unsigned sm, unsigned warp, uint64_t addr, uint64_t cycle, const void* expected,
                      const void* actual, unsigned len) {
  ++loads_;
  bytes_ += len;
  if (std::memcmp(expected, actual, len) != 0)
    check_failed("SM " + std::to_string(sm) + " warp " + std::to_string(warp), addr, cycle, expected, actual, len);
}

void Checker::compare_atomic(unsigned bank, uint64_t addr, uint64_t cycle, const void* expected, const void* actual,
                             unsigned len) {
  ++atomics_;
  if (std::memcmp(expected, actual, len) != 0)
    check_failed("L2 bank " + std::to_string(bank) + " atomic (old value)", addr, cycle, expected, actual, len);
}

}  // namespace strata
