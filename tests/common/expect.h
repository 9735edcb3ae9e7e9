// Minimal non-fatal assertions for the C++ test programs (one executable per
// test): EXPECT / EXPECT_EQ report file:line and count failures; main()
// returns non-zero when `failures` is non-zero.
#pragma once
#include <cstdio>

static int failures = 0;
#define EXPECT(c)                                                                 \
  do {                                                                            \
    if (!(c)) {                                                                   \
      std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)
#define EXPECT_EQ(a, b)                                                                                  \
  do {                                                                                                   \
    const auto _a = (a);                                                                                 \
    const auto _b = (b);                                                                                 \
    if (!(_a == _b)) {                                                                                   \
      std::fprintf(stderr, "%s:%d: EXPECT_EQ failed: %s = %llu, %s = %llu\n", __FILE__, __LINE__, #a,   \
                   static_cast<unsigned long long>(_a), #b, static_cast<unsigned long long>(_b));        \
      ++failures;                                                                                        \
    }                                                                                                    \
  } while (0)
