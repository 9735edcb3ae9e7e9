// Strata stats registry (gem5 ADD_STAT style): every stat has a hierarchical
// name ("l2.bank3.misses"), a description and a unit from a fixed set.
// Modules own plain counters and register pointers to them; derived stats are
// formulas evaluated when stats are dumped. Registering never allocates on the
// simulation hot path (it happens at elaboration).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace strata {

enum class Unit {
  Count, Cycle, Byte, Second, Nanosecond, Joule, Watt, Ratio,
  BytePerSecond, GigabytePerSecond, PerSecond, InstPerCycle
};
const char* unit_name(Unit u);

class StatsRegistry {
 public:
  struct Entry {
    std::string name, desc;
    Unit unit = Unit::Count;
    const uint64_t* u64 = nullptr;  // counter owned by a module
    const double* f64 = nullptr;    // value owned by a module
    std::function<double()> formula;
    double value() const;
  };

  void counter(const std::string& name, const std::string& desc, Unit unit, const uint64_t* v);
  void value(const std::string& name, const std::string& desc, Unit unit, const double* v);
  void formula(const std::string& name, const std::string& desc, Unit unit, std::function<double()> f);

  bool has(const std::string& name) const;
  double get(const std::string& name) const;  // throws std::out_of_range if unknown
  const std::vector<Entry>& entries() const { return entries_; }

  // stats.json: flat object name -> number, keys sorted; stats.txt: gem5-like table.
  // Return false (with errno set by the stream) when the file cannot be written.
  bool write_json(const std::string& path) const;
  bool write_txt(const std::string& path) const;

 private:
  void add(Entry e);
  std::vector<Entry> entries_;
};

// Helper for "prefix.name" composition.
inline std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

}  // namespace strata
