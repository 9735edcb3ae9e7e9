// stats.txt lists the names in natural order (models/common/stats.cpp natural_key): runs of digits
// compare as numbers, leading zeros do not count, everything else compares as bytes, a name that is
// a prefix of another comes first. The names are registered in a scrambled order and the file's
// name column must come out in the order a direct natural comparison (written here, independently
// of the key encoding) gives; a few hand-checked pairs pin the rule itself.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>  // sc_main (extern "C"): module tests link SystemC

#include "../common/expect.h"
#include "common/stats.h"

// The rule, compared character by character.
static bool natural_before(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto dig = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (dig(a[i]) && dig(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && dig(a[ie])) ++ie;
      while (je < b.size() && dig(b[je])) ++je;
      while (i + 1 < ie && a[i] == '0') ++i;
      while (j + 1 < je && b[j] == '0') ++j;
      if (ie - i != je - j) return ie - i < je - j;
      for (; i < ie; ++i, ++j)
        if (a[i] != b[j]) return a[i] < b[j];
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

int sc_main(int, char*[]) {
  std::vector<std::string> names = {"sm2.ipc",        "sm10.ipc",       "sm1.ipc",          "sm.total",
                                    "sm_a",           "sm9z",           "l2.bank7.hits",    "l2.bank07x",
                                    "l2.bank10.hits", "l2.bank1.hits",  "l2.bank100.hits",  "l2.bank0.hits",
                                    "mem.hist.8",     "mem.hist.16",    "mem.hist.1024",    "mem.hist.0",
                                    "mem",            "mem.ch3",        "mem.ch3.rd",       "mem.ch30",
                                    "a1b2c3",         "a1b10c1",        "a01b2c4",          "x255",
                                    "x256",           "x65536",         "x000000000000001", "x2"};
  for (int s = 0; s < 300; ++s) names.push_back("l2.bank" + std::to_string(s * 37 % 301) + ".q" + std::to_string(s % 7));

  // Hand-checked pairs of the rule itself.
  EXPECT(natural_before("sm2.ipc", "sm10.ipc"));
  EXPECT(natural_before("mem.hist.8", "mem.hist.16"));
  EXPECT(natural_before("mem", "mem.ch3"));
  EXPECT(natural_before("sm1.ipc", "sm_a"));      // '1' < '_' as bytes
  EXPECT(natural_before("sm.total", "sm1.ipc"));  // '.' < '1'
  EXPECT(natural_before("x255", "x256") && natural_before("x256", "x65536"));

  std::vector<std::string> order = names;
  std::mt19937 rng(7);
  std::shuffle(names.begin(), names.end(), rng);
  strata::StatsRegistry reg;
  std::vector<uint64_t> vals(names.size(), 1);
  for (size_t i = 0; i < names.size(); ++i) reg.counter(names[i], "test", strata::Unit::Count, &vals[i]);
  const std::string path = "test_stats_order.txt";
  EXPECT(reg.write_txt(path));

  std::vector<std::string> got;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string n;
    ls >> n;
    got.push_back(n);
  }
  std::stable_sort(order.begin(), order.end(), natural_before);
  EXPECT(got.size() == order.size());
  for (size_t i = 0; i < got.size() && i < order.size(); ++i)
    if (got[i] != order[i]) {
      std::fprintf(stderr, "position %zu: %s, expected %s\n", i, got[i].c_str(), order[i].c_str());
      ++failures;
      break;
    }
  std::remove(path.c_str());
  if (failures) return 1;
  std::printf("stats order: %zu names in natural order\n", got.size());
  return 0;
}
