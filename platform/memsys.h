// The memory system of a config: which device preset every (channel, rank)
// runs, and the physical address map over them -- including hybrid memories
// whose parts of different kinds (DRAM / NVM / SCM) are served by different
// ranks of each channel (HMS: a DRAM rank and an SCM rank per channel) or by
// different channels (hybrid DRAM+PCM: a DRAM channel and a PCM channel per
// partition). Shared by the platform and `strata memtrace`. docs/memctrl.md
// "Mixed technologies" has the keys and examples.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/cfg.h"  // McCfg (mc_setup)
#include "platform/config.h"

struct dram_preset;  // models/ref/mem/dram.h
struct amap;         // models/ref/base/addrmap.h

namespace strata {

// The presets a config runs. mem.device is a copy of its dram.c row with the
// config's mem.timing.<field> / mem.energy.<field> overrides applied (none:
// the row's values), owned here; every channel, rank and the timing checker
// that runs mem.device points at that copy, the other presets at their dram.c
// rows. Copies of a MemDevices share the owned preset.
struct MemDevices {
  const ::dram_preset* iface = nullptr;   // mem.device: the bank geometry of every rank, the default interface
  std::shared_ptr<const ::dram_preset> own;  // the storage iface points to
  const ::dram_preset* check = nullptr;   // timing checker's preset: mem.timing_check_device, or iface
  std::vector<std::string> overrides;     // the override keys set (mem.timing.tRCD, ...), in dram_field order
  unsigned channels = 0, ranks = 0;
  std::vector<const ::dram_preset*> dev;  // [channel * ranks + rank]
  std::vector<const ::dram_preset*> chan; // [channel]: its interface (clock, bus, CL...), its rank 0's preset
  bool mixed = false;                     // some rank runs another preset than mem.device
  bool mixed_iface = false;               // some channel's interface is not mem.device's
  std::vector<unsigned> kinds;            // memory kinds present (AMAP_MEM_*), in addrmap.part_order
  // The presets the ranks run when mem.leakage = capacity or mem.io_model = pod change their energies (copies
  // of the rows above; dev, chan and iface point into them).
  std::vector<std::shared_ptr<const ::dram_preset>> adjusted;
  std::vector<uint8_t> empty;             // [channel * ranks + rank]: an empty rank slot ('none' in
                                          // mem.channel_devices): no device, in no part of the map
  bool is_empty(unsigned ch, unsigned r) const { return !empty.empty() && empty[ch * ranks + r]; }
  bool policy_leakage = false;            // mem.leakage = capacity on ranks a memory-side policy gates row by
                                          // row: their presets keep bg_mw; the policy charges bg_mib per row

  const ::dram_preset* at(unsigned ch, unsigned r) const { return dev[ch * ranks + r]; }
  const ::dram_preset* interface_of(unsigned ch) const { return chan[ch]; }
  // The presets of channel ch's ranks (mc_cfg.rank_devs, tcheck_init_ranks).
  const ::dram_preset* const* rank_devs(unsigned ch) const { return &dev[ch * ranks]; }
};

// mem.device with its mem.timing / mem.energy overrides, mem.channels,
// mem.ranks, mem.rank_devices / mem.channel_devices, mem.timing_check_device
// and addrmap.part_order, validated: unknown presets, an overridden preset
// dram_validate rejects (the key of the override at fault is named), wrong
// list lengths, both lists set, ranks of one channel that cannot share its
// interface (dram_same_interface), a channel whose bank geometry is not
// mem.device's (dram_same_geometry), a kind missing from addrmap.part_order
// throw ConfigError naming the key. A mem.channel_devices entry is one preset
// (every rank of the channel) or mem.ranks presets joined by '+' (rank r runs
// the r-th: "gddr5_1250, rram+sttram" is the hybrid graphics memory's DRAM
// channel beside its NVM bus of an RRAM and an STT-RAM rank). mem.leakage =
// capacity and mem.io_model = pod give the ranks copies of their presets with
// the background powers scaled by capacity and the I/O part of rd_pj / wr_pj
// replaced by POD termination energy (adjust_energy in memsys.cpp).
MemDevices mem_devices(const Config& C);

// The one place config -> memory-controller set-up: the engine configuration
// (mc_cfg: presets, ranks, queues, watermarks, page policy, refresh, power
// states) of channel ch and the timing checker's preset (mem.timing_check;
// nullptr when off), for the platform's MemCtrl and for `strata memtrace`.
// The presets are md's (mem.device with its overrides): md must outlive the
// result's use (MemCtrl copies them). check_mem_type is left false.
McCfg mc_setup(const Config& C, const MemDevices& md, unsigned ch);

// The address map of a validated config (mem.channels, mem.ranks, l2.banks,
// addrmap.layout -- "auto" derives it from the device geometry with
// amap_default_layout -- and addrmap.hash). With devices of two or more
// kinds, one part per kind (addrmap.part_order, addrmap.{dram,nvm,scm}_size,
// addrmap.part_interleave; amap_init_parts), each over the channels x ranks
// of that kind; with one kind, the whole memory is that kind. Throws
// ConfigError naming the key.
void init_address_map(const Config& C, const MemDevices& md, ::amap* out);

// "a, b,c" -> {"a", "b", "c"} (spaces trimmed; "" -> {}); sep '+': "rram+sttram" -> {"rram", "sttram"}.
std::vector<std::string> split_list(const std::string& s, char sep = ',');

}  // namespace strata
