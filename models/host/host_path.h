// HostPath: host memory behind a host link (PCIe, NVLink) as one device a
// memory side can target -- the HMS paper's host path (hms-*.txt Table I:
// PCIe 12.8 GB/s or 64 GB/s, NVLink 76.8 GB/s, CPU memory 46.6 GB/s) and the
// page source of Unified Memory. It owns a Link (models/link/tlm_link.h) whose
// target is a HostMem (models/host/host_mem.h) over a host store (bstore by
// host address). Initiators bind to tsock(): the link's target socket, shared
// by every partition's memory side (the link keeps each request's route back
// on its GpuExt), so all partitions share one link and one host memory.
//
// As a DevLoadIf (the memory side's env.dev_util), its utilisation is the
// busiest of the link's two directions and the host memory's data path, each
// over its own busy-monitor window (the link preset's window_ps; the host
// memory's 1 us): the window_ps a policy asks for is not used.
//
// Stats: link.host_link.* and hostmem.host.* (see those modules).
#pragma once
#include <cstdint>
#include <memory>

#include "common/devload.h"
#include "host/host_mem.h"
#include "link/tlm_link.h"

namespace strata {

struct HostPathCfg {
  LinkCfg link{};
  HostMemCfg mem{};
};

class HostPath : public DevLoadIf {
 public:
  // Creates the top-level modules "host_link" and "host". A bad cfg throws
  // std::invalid_argument naming the module.
  HostPath(const HostPathCfg& cfg, StatsRegistry& stats);
  ~HostPath() override;
  HostPath(const HostPath&) = delete;
  HostPath& operator=(const HostPath&) = delete;

  tlm_utils::multi_passthrough_target_socket<Link>& tsock() { return link_->tsock; }
  bstore* contents() { return &store_; }  // host bytes by host address
  Link& link() { return *link_; }
  HostMem& mem() { return *mem_; }
  bool idle() const { return link_->idle() && mem_->idle(); }
  uint32_t bus_util_q16(uint64_t window_ps) override;

 private:
  bstore store_{};
  std::unique_ptr<Link> link_;
  std::unique_ptr<HostMem> mem_;
};

}  // namespace strata
