#include "common/stats.h"

#include <algorithm>
#include <cctype>
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
    case Unit::JouleSecond: return "joule*second";
    case Unit::Year: return "year";
  }
  return "?";
}

bool unit_additive(Unit u) {
  switch (u) {
    case Unit::Count: case Unit::Cycle: case Unit::Byte: case Unit::Second: case Unit::Joule: return true;
    default: return false;
  }
}

static double finite_or_0(double v) { return std::isfinite(v) ? v : 0.0; }  // 0/0 ratios of idle components read as 0

double StatsRegistry::Entry::num_now() const {
  if (frozen) return u64 ? static_cast<double>(fz_u64) : fz;
  if (u64) return static_cast<double>(*u64);
  if (f64) return *f64;
  if (formula) return formula();
  return 0.0;
}

double StatsRegistry::Entry::den_now() const { return frozen ? fz_den : den ? den() : 1.0; }

double StatsRegistry::Entry::reading() const {
  if (window == Window::Ratio) return finite_or_0(scale * num_now() / den_now());
  return finite_or_0(num_now());
}

double StatsRegistry::Entry::value() const {
  switch (window) {
    case Window::Level: return reading();
    case Window::Delta:
      if (u64) return static_cast<double>((frozen ? fz_u64 : *u64) - base_u64);
      return finite_or_0(num_now() - base);
    case Window::Ratio: return finite_or_0(scale * (num_now() - base) / (den_now() - base_den));
  }
  return 0.0;
}

void StatsRegistry::add(Entry e) {
  if (has(e.name)) throw std::logic_error("duplicate stat " + e.name);
  entries_.push_back(std::move(e));
  if (marked_) mark_entry(entries_.back());  // registered after the mark: its window starts now too
}

void StatsRegistry::mark_entry(Entry& e) {
  if (e.window == Window::Level) return;
  if (e.u64) e.base_u64 = *e.u64;
  else e.base = finite_or_0(e.num_now());
  if (e.window == Window::Ratio) e.base_den = e.den_now();
}

void StatsRegistry::freeze_entry(Entry& e) {
  if (e.window == Window::Level || e.frozen) return;
  if (e.u64) e.fz_u64 = *e.u64;
  else e.fz = e.num_now();
  if (e.window == Window::Ratio) e.fz_den = e.den_now();
  e.frozen = true;
}

void StatsRegistry::mark() {
  for (Entry& e : entries_) mark_entry(e);
  marked_ = true;
}

void StatsRegistry::freeze() {
  for (Entry& e : entries_) freeze_entry(e);
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
  e.window = Window::Level;
  e.f64 = v;
  add(std::move(e));
}
void StatsRegistry::formula(const std::string& n, const std::string& d, Unit u, std::function<double()> f) {
  if (!unit_additive(u))
    throw std::logic_error("stat " + n + ": a formula in " + unit_name(u) +
                           " is not a cumulative reading; register it with ratio() (rates, averages) or level()");
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.formula = std::move(f);
  add(std::move(e));
}
void StatsRegistry::level(const std::string& n, const std::string& d, Unit u, std::function<double()> f) {
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.window = Window::Level;
  e.formula = std::move(f);
  add(std::move(e));
}
void StatsRegistry::ratio(const std::string& n, const std::string& d, Unit u, std::function<double()> num,
                          std::function<double()> den, double scale) {
  Entry e;
  e.name = n;
  e.desc = d;
  e.unit = u;
  e.window = Window::Ratio;
  e.formula = std::move(num);
  e.den = std::move(den);
  e.scale = scale;
  add(std::move(e));
}

bool StatsRegistry::has(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
}

const StatsRegistry::Entry& StatsRegistry::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e;
  throw std::out_of_range("unknown stat " + name);
}

double StatsRegistry::get(const std::string& name) const { return find(name).value(); }
double StatsRegistry::total(const std::string& name) const { return find(name).reading(); }

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

// Natural order for stats.txt: runs of digits compare as numbers (sm2 before sm10, histogram bucket 8
// before 16), everything else as bytes.
static bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      size_t iz = i, jz = j;  // leading zeros do not count
      while (iz + 1 < ie && a[iz] == '0') ++iz;
      while (jz + 1 < je && b[jz] == '0') ++jz;
      if (ie - iz != je - jz) return ie - iz < je - jz;
      const int c = a.compare(iz, ie - iz, b, jz, je - jz);
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// stats.txt values: integers exactly, others with 6 significant digits (stats.json keeps 17).
static std::string fmt_txt(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool StatsRegistry::write_txt(const std::string& path) const {
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return natural_less(a->name, b->name); });
  size_t w = 0;
  for (const Entry* e : sorted) w = std::max(w, e->name.size());
  std::ofstream f(path);
  if (!f) return false;
  f << "# Strata statistics: name, value, unit, window (over a measurement window: delta = growth since its "
       "start, ratio = of two such growths, level = as read), description. Grouped by section (the name's "
       "first part), in natural order; values with 6 significant digits (stats.json has them exactly)\n";
  static const char* const kWindow[] = {"delta", "ratio", "level"};
  std::string section;
  for (const Entry* e : sorted) {
    const std::string sec = e->name.substr(0, e->name.find('.'));
    if (sec != section) {
      f << "\n# " << sec << "\n";
      section = sec;
    }
    f << std::left << std::setw(static_cast<int>(w) + 2) << e->name << std::right << std::setw(24)
      << fmt_txt(e->value()) << "  " << std::left << std::setw(18) << unit_name(e->unit) << std::setw(7)
      << kWindow[static_cast<int>(e->window)] << "# " << e->desc << "\n";
  }
  return static_cast<bool>(f);
}

}  // namespace strata
