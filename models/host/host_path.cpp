// HostPath implementation; see host_path.h and docs/architecture.md "Links and host memory".
#include "host/host_path.h"

#include <algorithm>
#include <cmath>
#include <new>

namespace strata {

HostPath::HostPath(const HostPathCfg& cfg, StatsRegistry& stats) {
  if (bstore_init(&store_) != 0) throw std::bad_alloc();
  try {
    link_ = std::make_unique<Link>("host_link", cfg.link, stats);
    mem_ = std::make_unique<HostMem>("host", cfg.mem, &store_, stats);
  } catch (...) {
    bstore_free(&store_);
    throw;
  }
  link_->isock.bind(mem_->tsock);
}

HostPath::~HostPath() {
  mem_.reset();
  link_.reset();
  bstore_free(&store_);
}

uint32_t HostPath::bus_util_q16(uint64_t) {
  const double u = std::max({link_->busy_fraction(Link::kReq), link_->busy_fraction(Link::kResp), mem_->utilisation()});
  return static_cast<uint32_t>(std::lround(std::clamp(u, 0.0, 1.0) * 65536.0));
}

}  // namespace strata
