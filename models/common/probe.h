// ProbeRegistry: the time series of a run. Modules register the values they
// want sampled once per epoch (sim.epoch_ns): the platform's sampler writes
// them as the columns of timeseries.csv and as VCD signals, in registration
// order, so a new module adds its own probes without the sampler knowing it.
//
// A probe is a function of the epoch length (seconds) returning the value for
// the epoch just ended; rate() and ratio() keep the previous counter readings
// themselves. Sampling costs nothing between epochs.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>

namespace strata {

class ProbeRegistry {
 public:
  struct Probe {
    std::string name, unit;
    std::function<double(double)> sample;  // epoch seconds -> value
    double value = 0;                      // last sample (stable address: VCD traces it)
  };

  void add(std::string name, std::string unit, std::function<double(double)> sample) {
    probes_.push_back(Probe{std::move(name), std::move(unit), std::move(sample), 0});
  }
  // The value now (queue occupancy, a cumulative count).
  void level(std::string name, std::string unit, std::function<double()> f) {
    add(std::move(name), std::move(unit), [f = std::move(f)](double) { return f(); });
  }
  // Increase of a cumulative counter per second, times scale (bytes -> GB/s: 1e-9).
  void rate(std::string name, std::string unit, std::function<uint64_t()> counter, double scale) {
    add(std::move(name), std::move(unit), [c = std::move(counter), scale, last = uint64_t(0)](double dt) mutable {
      const uint64_t v = c();
      const double r = dt > 0 ? static_cast<double>(v - last) / dt * scale : 0;
      last = v;
      return r;
    });
  }
  // Increase of num over increase of den in the epoch (0 when den did not grow), e.g. a hit rate.
  void ratio(std::string name, std::function<uint64_t()> num, std::function<uint64_t()> den) {
    add(std::move(name), "ratio",
        [n = std::move(num), d = std::move(den), ln = uint64_t(0), ld = uint64_t(0)](double) mutable {
          const uint64_t a = n(), b = d();
          const double r = b > ld ? static_cast<double>(a - ln) / static_cast<double>(b - ld) : 0;
          ln = a;
          ld = b;
          return r;
        });
  }

  void sample(double epoch_s) {
    for (Probe& p : probes_) p.value = p.sample(epoch_s);
  }
  std::deque<Probe>& probes() { return probes_; }

 private:
  std::deque<Probe> probes_;  // deque: values keep their address as probes are added
};

}  // namespace strata
