#include "common/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

namespace strata {

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::Count: return "count";
    case Unit::Cycle: return "cycle";
    case Unit::Byte: return "byte";
    case Unit::Second: return "second";
    case Unit::Nanosecond: return "nanosecond";
    case Unit::Joule: return "joule";
    case Unit::Watt: return "watt";
    case Unit::Ratio: return "ratio";
    case Unit::BytePerSecond: return "byte/second";
    case Unit::GigabytePerSecond: return "GB/second";
    case Unit::PerSecond: return "1/second";
    case Unit::InstPerCycle: return "instruction/cycle";
  }
  return "?";
}

double StatsRegistry::Entry::value() const {
  if (u64) return static_cast<double>(*u64);
  if (f64) return *f64;
  if (formula) {
    const double v = formula();
    return std::isfinite(v) ? v : 0.0;  // 0/0 ratios of idle components read as 0
  }
  return 0.0;
}

void StatsRegistry::add(Entry e) {
  if (has(e.name)) throw std::logic_error("duplicate stat " + e.name);
  entries_.push_back(std::move(e));
}

void StatsRegistry::counter(const std::string& n, const std::string& d, Unit u, const uint64_t* v) {
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.u64 = v;
  add(std::move(e));
}
void StatsRegistry::value(const std::string& n, const std::string& d, Unit u, const double* v) {
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.f64 = v;
  add(std::move(e));
}
void StatsRegistry::formula(const std::string& n, const std::string& d, Unit u, std::function<double()> f) {
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.formula = std::move(f);
  add(std::move(e));
}

bool StatsRegistry::has(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
}

double StatsRegistry::get(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.value();
  throw std::out_of_range("unknown stat " + name);
}

static std::string fmt_num(double v) {
  // Integers print exactly; others with 17 significant digits so JSON round-trips.
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool StatsRegistry::write_json(const std::string& path) const {
  std::map<std::string, double> sorted;
  for (const Entry& e : entries_) sorted[e.name] = e.value();
  std::ofstream f(path);
  if (!f) return false;
  f << "{\n";
  size_t i = 0;
  for (const auto& [k, v] : sorted) {
    f << "  \"" << k << "\": " << fmt_num(v) << (++i < sorted.size() ? ",\n" : "\n");
  }
  f << "}\n";
  return static_cast<bool>(f);
}

bool StatsRegistry::write_txt(const std::string& path) const {
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return a->name < b->name; });
  size_t w = 0;
  for (const Entry* e : sorted) w = std::max(w, e->name.size());
  std::ofstream f(path);
  if (!f) return false;
  f << "# Strata statistics: name, value, unit, description\n";
  for (const Entry* e : sorted) {
    f << std::left << std::setw(static_cast<int>(w) + 2) << e->name << std::right << std::setw(24)
      << fmt_num(e->value()) << "  " << std::left << std::setw(18) << unit_name(e->unit) << "# " << e->desc
      << "\n";
  }
  return static_cast<bool>(f);
}

}  // namespace strata
