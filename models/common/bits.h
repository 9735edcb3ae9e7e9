// Bit counting for masks (sector, byte, lane masks). The build does not assume
// the POPCNT instruction, so __builtin_popcount would be a libgcc call; these
// are branch-free SWAR counts the compiler inlines.
#pragma once
#include <cstdint>

namespace strata {

inline unsigned popcount32(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

inline unsigned popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}

}  // namespace strata
