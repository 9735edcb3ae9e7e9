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
  if (!index_.emplace(e.name, entries_.size()).second) throw std::logic_error("duplicate stat " + e.name);
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
  return index_.count(name) != 0;
}

const StatsRegistry::Entry& StatsRegistry::find(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) throw std::out_of_range("unknown stat " + name);
  return entries_[it->second];
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
// before 16), everything else as bytes. Each name is turned once into a key whose plain byte order is
// that natural order, so the sort compares keys with memcmp (a full-scale run sorts 7 500 names whose
// long shared prefixes made a character-wise natural comparison cost ~2 000 instructions each). A run
// of digits becomes '0' (it compares against any other character as a digit does), its significant
// length in two bytes (a longer number is larger), then its digits without leading zeros.
static std::string natural_key(const std::string& a) {
  std::string k;
  k.reserve(a.size() + 8);
  for (size_t i = 0; i < a.size();) {
    if (!std::isdigit(static_cast<unsigned char>(a[i]))) {
      k.push_back(a[i++]);
      continue;
    }
    size_t e = i;
    while (e < a.size() && std::isdigit(static_cast<unsigned char>(a[e]))) ++e;
    size_t z = i;  // leading zeros do not count
    while (z + 1 < e && a[z] == '0') ++z;
    const size_t n = e - z;
    k.push_back('0');
    k.push_back(static_cast<char>((n >> 8) & 0xff));
    k.push_back(static_cast<char>(n & 0xff));
    k.append(a, z, n);
    i = e;
  }
  return k;
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
  std::vector<std::pair<std::string, const Entry*>> keyed;
  keyed.reserve(entries_.size());
  for (const Entry& e : entries_) keyed.emplace_back(natural_key(e.name), &e);
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const Entry*> sorted;
  sorted.reserve(keyed.size());
  for (const auto& ke : keyed) sorted.push_back(ke.second);
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
