// Strata stats registry (gem5 ADD_STAT style): every stat has a hierarchical
// name ("l2.bank3.misses"), a description and a unit from a fixed set.
// Modules own plain counters and register pointers to them; derived stats are
// formulas evaluated when stats are dumped. Registering never allocates on the
// simulation hot path (it happens at elaboration).
//
// Measurement windows (sim.warmup_instructions, docs/user_guide.md): mark()
// takes every cumulative reading as the zero of the window, without touching
// the models (caches, queues and policy state stay warm, and the simulation is
// the same with or without a window). Each stat says how it reads over a
// window:
//  * Delta (counter(), formula()): a reading that only grows from t = 0 --
//    counts, sums, bytes, energy, cycles in a state, simulated time. The
//    window's value is its growth since the mark.
//  * Ratio (ratio()): scale x growth(num) / growth(den), both cumulative
//    readings: rates (bytes / simulated time), averages (latency sum / count),
//    shares (misses / accesses), IPC (instructions / cycles). 0 when den did
//    not grow.
//  * Level (level(), value()): reported as read -- constants, configuration,
//    host measurements, values the owner sets at the end.
// Without a mark every reading counts from t = 0, as before windows existed.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace strata {

enum class Unit {
  Count, Cycle, Byte, Second, Nanosecond, Joule, Watt, Ratio,
  BytePerSecond, GigabytePerSecond, PerSecond, InstPerCycle,
  JouleSecond, Year  // energy-delay product; a device lifetime
};
const char* unit_name(Unit u);
// Units a cumulative reading can have (formula()); rates, averages and shares
// (Ratio, IPC, GB/s, 1/s, W, ns) are ratio()s or level()s.
bool unit_additive(Unit u);

enum class Window : uint8_t { Delta, Ratio, Level };

class StatsRegistry {
 public:
  struct Entry {
    std::string name, desc;
    Unit unit = Unit::Count;
    Window window = Window::Delta;
    const uint64_t* u64 = nullptr;  // counter owned by a module
    const double* f64 = nullptr;    // value owned by a module
    std::function<double()> formula;
    std::function<double()> den;  // Ratio: formula is the numerator
    double scale = 1;             // Ratio
    uint64_t base_u64 = 0;        // readings at the mark
    double base = 0, base_den = 0;
    bool frozen = false;          // freeze(): the readings below stand for "now"
    uint64_t fz_u64 = 0;
    double fz = 0, fz_den = 0;
    double num_now() const;  // the cumulative reading (Ratio: its numerator), frozen or live
    double den_now() const;  // Ratio: its denominator
    double reading() const;  // since t = 0 (Ratio: num / den since t = 0)
    double value() const;    // over the window (since the mark, if any)
  };

  // A module's cumulative counter (Delta).
  void counter(const std::string& name, const std::string& desc, Unit unit, const uint64_t* v);
  // A value the owner sets (Level): the owner decides what it covers.
  void value(const std::string& name, const std::string& desc, Unit unit, const double* v);
  // A cumulative reading (Delta); unit must be additive (unit_additive), else
  // std::logic_error: register rates and averages with ratio().
  void formula(const std::string& name, const std::string& desc, Unit unit, std::function<double()> f);
  // A constant or a property reported as read (Level).
  void level(const std::string& name, const std::string& desc, Unit unit, std::function<double()> f);
  // scale x num / den over the window (Ratio); num and den are cumulative readings.
  void ratio(const std::string& name, const std::string& desc, Unit unit, std::function<double()> num,
             std::function<double()> den, double scale = 1.0);

  // Start the measurement window now (sim.warmup_instructions): every Delta
  // and Ratio reading becomes the window's zero. Calls the formulas (not on a
  // hot path: once per run). A second mark moves the window's start.
  void mark();
  bool marked() const { return marked_; }
  // End the window now (sim.max_instructions, from inside the SM's issue that
  // reached it): every Delta and Ratio stat reports its reading at this
  // instant, whatever runs afterwards before the simulation returns. Level
  // stats stay live (the owner sets them at the end).
  void freeze();

  bool has(const std::string& name) const;
  double get(const std::string& name) const;    // over the window; throws std::out_of_range if unknown
  double total(const std::string& name) const;  // since t = 0 (host rates of the whole simulation)
  const std::vector<Entry>& entries() const { return entries_; }

  // stats.json: flat object name -> number, keys sorted; stats.txt: gem5-like table.
  // Return false (with errno set by the stream) when the file cannot be written.
  bool write_json(const std::string& path) const;
  bool write_txt(const std::string& path) const;

 private:
  void add(Entry e);
  static void mark_entry(Entry& e);
  static void freeze_entry(Entry& e);
  const Entry& find(const std::string& name) const;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;  // name -> position in entries_ (a full-scale run has 7 500)
  bool marked_ = false;
};

// Helper for "prefix.name" composition.
inline std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

}  // namespace strata
