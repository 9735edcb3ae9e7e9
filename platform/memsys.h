// The memory system of a config: which device preset every (channel, rank)
// runs, and the physical address map over them -- including hybrid memories
// whose parts of different kinds (DRAM / NVM / SCM) are served by different
// ranks of each channel (HMS: a DRAM rank and an SCM rank per channel) or by
// different channels (hybrid DRAM+PCM: a DRAM channel and a PCM channel per
// partition). Shared by the platform and `strata memtrace`. docs/memctrl.md
// "Mixed technologies" has the keys and examples.
#pragma once
#include <string>
#include <vector>

#include "platform/config.h"

struct dram_preset;  // models/ref/dram.h
struct amap;         // models/ref/addrmap.h

namespace strata {

struct MemDevices {
  const ::dram_preset* iface = nullptr;   // mem.device: the channel interface and bank geometry of every rank
  unsigned channels = 0, ranks = 0;
  std::vector<const ::dram_preset*> dev;  // [channel * ranks + rank]
  bool mixed = false;                     // some rank runs another preset than mem.device
  std::vector<unsigned> kinds;            // memory kinds present (AMAP_MEM_*), in addrmap.part_order

  const ::dram_preset* at(unsigned ch, unsigned r) const { return dev[ch * ranks + r]; }
  // The presets of channel ch's ranks (mc_cfg.rank_devs, tcheck_init_ranks).
  const ::dram_preset* const* rank_devs(unsigned ch) const { return &dev[ch * ranks]; }
};

// mem.device, mem.channels, mem.ranks, mem.rank_devices / mem.channel_devices
// and addrmap.part_order, validated: unknown presets, wrong list lengths, both
// lists set, a preset that cannot share mem.device's interface, a kind missing
// from addrmap.part_order throw ConfigError naming the key.
MemDevices mem_devices(const Config& C);

// The address map of a validated config (mem.channels, mem.ranks, l2.banks,
// addrmap.layout -- "auto" derives it from the device geometry with
// amap_default_layout -- and addrmap.hash). With devices of two or more
// kinds, one part per kind (addrmap.part_order, addrmap.{dram,nvm,scm}_size,
// addrmap.part_interleave; amap_init_parts), each over the channels x ranks
// of that kind; with one kind, the whole memory is that kind. Throws
// ConfigError naming the key.
void init_address_map(const Config& C, const MemDevices& md, ::amap* out);

// "a, b,c" -> {"a", "b", "c"} (spaces trimmed; "" -> {}).
std::vector<std::string> split_list(const std::string& s);

}  // namespace strata
