// The memory side of a config, built in one place for the platform and for
// `strata memtrace`: per channel a device controller (MemCtrl) over its own
// contents, per memory partition a memory-side controller (MemSide) running
// memside.policy with its own parameters, the GPU-wide memory-side manager
// (memside.mgr.*), the host path (hostpath.link: a link and a host-memory
// device, every partition's last device) and SCM throttling
// (mem.scm_throttle.*). Above it the platform binds its L2 banks to
// side(p).tsock; memtrace binds its trace driver there instead
// (docs/architecture.md "Memory-side controllers", docs/memtrace.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/payload.h"
#include "common/probe.h"
#include "common/stats.h"
#include "platform/config.h"
#include "platform/memsys.h"

extern "C" {
#include "base/addrmap.h"
#include "base/bstore.h"
#include "blocks/blocks.h"
#include "memside/memside.h"
#include "memside/memside_mgr.h"
}

namespace strata {

class MemCtrl;
class MemSide;
class HostPath;
class Link;
class ScmThrottle;
class UmDriver;

// What a memory-side policy may derive from the program before the address
// map is built (memside_ops.derive): the bytes of its arrays and the end of
// the highest one (they start at address 0). memtrace gives the trace's span.
struct MemSideProgram {
  uint64_t footprint_bytes = 0;
  uint64_t end = 0;
};

// The stat recording a policy's derivation (memside_ops.derive), when it names one.
struct DerivedStat {
  std::string name, desc;
  double value = 0;
};

// The configured policy's changes to the configuration (memside_ops.derive;
// e.g. a DRAM cache serving as memory when the program fits its DRAM), set
// through Config::derive (config.txt shows them with the policy's reason);
// *stat names the stat that records the decision (empty name: none). Returns
// true when the configuration changed (mem_devices must then be taken again).
bool derive_memside_config(Config& cfg, const MemDevices& md, const MemSideProgram& prog, DerivedStat* stat);

// True when the config's memory side is only the device controllers: policy
// plain (every line at its static place, nothing held or moved), no host path,
// no SCM throttling. memtrace then replays straight into the controller
// engines (its fast path); otherwise it runs the whole MemorySide.
bool memside_is_plain(const Config& cfg);

class MemorySide {
 public:
  // cfg must outlive the object (its failures name keys).
  MemorySide(const Config& cfg, PayloadPool& pool, StatsRegistry& stats);
  ~MemorySide();
  MemorySide(const MemorySide&) = delete;
  MemorySide& operator=(const MemorySide&) = delete;

  // The device controllers, the host path, the manager and one memory-side
  // controller per partition (memside.partition_channels consecutive
  // channels), each expecting `upstream` initiators on its tsock. map must
  // outlive the object. Errors throw ConfigError naming the key.
  void build(const MemDevices& md, const ::amap* map, unsigned upstream, const MemSideProgram& prog);
  // A policy that caches the first part in the others (program_in_first_part)
  // needs the program (array end `end`) inside that part: ConfigError naming
  // addrmap.<kind>_size otherwise. `flat_end`: the end of the arrays that lie
  // wholly in a later part, allowed where the policy leaves those parts to the
  // program (memside_ops.later_parts_flat: flrb with memside.flrb.dram_offset,
  // the pc config's engine-placed arrays); else they count as `end`.
  void check_placement(uint64_t end, uint64_t flat_end = 0) const;
  // SCM throttling (mem.scm_throttle.*, off unless a threshold is set); after build.
  void build_scm_throttle();
  // mem.* totals and memside.* sums over the controllers (after every
  // module registered its own); probes may be null (no time series).
  void register_totals(StatsRegistry& stats, ProbeRegistry* probes) const;

  // Set-up back door: physical bytes into the devices, where the partition's policy places them.
  void write_functional(uint64_t pa, const unsigned char* src, size_t len);
  void kernel_boundary(uint32_t kernel, bool last);  // every partition's policy hears it
  void finish_timing_check();                        // end of run (refresh interval; violations exit 3)
  // The L2 ways the policy takes for itself (memside_ops.l2_reserved_ways) of an assoc-way bank.
  uint32_t l2_reserved_ways(uint32_t assoc) const;

  size_t partitions() const { return sides_.size(); }
  MemSide& side(size_t p) { return *sides_[p]; }
  size_t channels() const { return mcs_.size(); }
  MemCtrl& ctrl(size_t c) { return *mcs_[c]; }
  std::vector<MemCtrl*> ctrls() const;
  std::vector<MemSide*> sides() const;
  ScmThrottle* throttle() const { return throttle_.get(); }
  HostPath* host() const { return host_.get(); }
  UmDriver* um() const { return um_.get(); }  // um.enabled: Unified Memory's driver (docs/um.md), else null
  // The partition serving physical address pa.
  uint32_t partition_of(uint64_t pa) const { return amap_channel(map_, pa) / map_->part_channels; }

 private:
  memside_mgr* build_mgr();
  void build_um(const MemSideProgram& prog);
  void build_scm_links(const MemDevices& md);     // mem.scm_link
  void connect_device(MemSide& side, unsigned c);  // channel c as a device of side: its controller or its SCM link

  const Config& cfg_;
  PayloadPool& pool_;
  StatsRegistry& stats_;
  const ::amap* map_ = nullptr;
  std::vector<bstore> device_;  // per channel: its contents by device address (models/ref/base/devaddr.h)
  std::vector<std::unique_ptr<MemCtrl>> mcs_;
  std::vector<std::unique_ptr<MemSide>> sides_;  // per memory partition
  std::vector<std::unique_ptr<Link>> scm_links_;  // per channel: mem.scm_link's link in front of an SCM channel, or null
  std::unique_ptr<memside_mgr> mgr_;  // memside.mgr.*, shared by every partition's policy, when configured
  std::vector<uint64_t> mgr_mem_;     // its tables
  std::unique_ptr<ScmThrottle> throttle_;  // mem.scm_throttle (HMS Sec. III-E), when on
  std::unique_ptr<HostPath> host_;         // hostpath.link: host memory behind a link (every partition's last device)
  std::unique_ptr<UmDriver> um_;           // um.enabled: the pages start on the host, far faults, page moves
  memside_blocks blocks_{};  // blocks.* (models/ref/blocks/blocks.h): the block implementations the policies call
};

}  // namespace strata
