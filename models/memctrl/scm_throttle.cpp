#include "memctrl/scm_throttle.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

extern "C" {
#include "base/addrmap.h"
}

namespace strata {

ScmThrottle::ScmThrottle(sc_core::sc_module_name name, const scmthr_cfg& cfg, unsigned stack_channels,
                         std::vector<MemCtrl*> mcs, StatsRegistry& stats, Changed on_change)
    : sc_module(name), mcs_(std::move(mcs)), per_(stack_channels), on_change_(std::move(on_change)) {
  if (!per_ || mcs_.empty() || mcs_.size() % per_)
    throw std::invalid_argument("expected a divisor of the " + std::to_string(mcs_.size()) +
                                " channels as channels per stack, got " + std::to_string(per_));
  st_.resize(mcs_.size() / per_);
  char err[200];
  for (scmthr& s : st_)
    if (scmthr_init(&s, &cfg, err, sizeof err) != 0) throw std::invalid_argument(err);
  scm_ranks_.resize(mcs_.size());
  for (size_t c = 0; c < mcs_.size(); ++c)
    for (unsigned r = 0; r < mcs_[c]->rank_count(); ++r)
      if (dram_mem_kind(&mcs_[c]->rank_device(r)) != AMAP_MEM_DRAM) scm_ranks_[c].push_back(r);
  for (size_t k = 0; k < st_.size(); ++k) {
    bool any = false;
    for (unsigned c = static_cast<unsigned>(k) * per_; c < (k + 1) * per_; ++c) any |= !scm_ranks_[c].empty();
    if (!any) throw std::invalid_argument("expected SCM ranks to throttle in stack " + std::to_string(k) + " (mem.rank_devices)");
  }
  window_ = sc_core::sc_time(static_cast<double>(cfg.window_ps), sc_core::SC_PS);
  ev_.bind<&ScmThrottle::tick>(this, {Stage::Throttle, 0});

  ScmThrottle* t = this;
  auto mean = [t](auto f) {
    double v = 0;
    for (unsigned k = 0; k < t->stacks(); ++k) v += f(k);
    return v / t->stacks();
  };
  auto secs = [t](unsigned k) { return static_cast<double>(scmthr_throttled_ps(&t->st_[k], t->now_ps())) * 1e-12; };
  stats.formula("scm.throttled_seconds",
                "simulated time with the SCM ranks throttled (HMS Sec. III-E), mean over the memory stacks",
                Unit::Second, [mean, secs] { return mean(secs); });
  stats.ratio("scm.throttled_fraction", "scm.throttled_seconds / simulated time", Unit::Ratio,
              [mean, secs] { return mean(secs); }, [] { return sc_core::sc_time_stamp().to_seconds(); });
  stats.formula("scm.throttle_engagements", "times a stack's SCM ranks were throttled (all stacks)", Unit::Count,
                [mean, t] { return mean([t](unsigned k) { return static_cast<double>(t->st_[k].engagements); }) * t->stacks(); });
  stats.formula("scm.throttle_windows", "throttling windows evaluated (all stacks)", Unit::Count,
                [mean, t] { return mean([t](unsigned k) { return static_cast<double>(t->st_[k].windows); }) * t->stacks(); });
  stats.level("scm.peak_window_power_w", "highest average SCM power of a stack over a throttling window (whole run)",
              Unit::Watt, [t] {
                  double v = 0;
                  for (const scmthr& s : t->st_) v = std::max(v, s.peak_power_w);
                  return v;
                });
  for (unsigned k = 0; k < stacks(); ++k)
    stats.formula("scm.stack" + std::to_string(k) + ".throttled_seconds", "simulated time this stack's SCM was throttled",
                  Unit::Second, [secs, k] { return secs(k); });
  for (unsigned c = 0; c < mcs_.size(); ++c)
    stats.formula("mem.ch" + std::to_string(c) + ".scm_throttled_seconds",
                  "simulated time this channel's SCM ranks were throttled (its stack's)", Unit::Second,
                  [secs, c, this] { return secs(c / per_); });
}

uint64_t ScmThrottle::now_ps() const {
  return static_cast<uint64_t>(std::llround(sc_core::sc_time_stamp().to_seconds() * 1e12));
}

void ScmThrottle::start() {
  stopped_ = false;
  ev_.notify(window_);
}

void ScmThrottle::stop() {
  stopped_ = true;
  ev_.cancel();
}

double ScmThrottle::scm_energy(unsigned stack) {
  double e = 0;
  for (unsigned c = stack * per_; c < (stack + 1) * per_; ++c)
    for (unsigned r : scm_ranks_[c]) e += mcs_[c]->rank_energy(r).total;
  return e;
}

void ScmThrottle::tick() {
  const uint64_t now = now_ps();
  for (unsigned k = 0; k < stacks(); ++k) {
    if (!scmthr_window(&st_[k], now, scm_energy(k))) continue;
    uint32_t rm, wm;
    scmthr_mult(&st_[k], &rm, &wm);
    for (unsigned c = k * per_; c < (k + 1) * per_; ++c)
      for (unsigned r : scm_ranks_[c]) {
        if (!mcs_[c]->scale_rank_timing(r, rm, wm))
          SC_REPORT_FATAL(name(), ("cannot scale the timing of channel " + std::to_string(c) + " rank " +
                                   std::to_string(r) + " by tRCD x" + std::to_string(rm) + ", tWR x" + std::to_string(wm))
                                      .c_str());
        if (on_change_) on_change_(c, r, mcs_[c]->rank_timing(r));
      }
  }
  if (!stopped_) ev_.notify(window_);
}

}  // namespace strata
