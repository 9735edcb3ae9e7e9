// Config -> the plain config structs of the GPU-side modules (models/common/cfg.h).
// The schema (platform/schema.cpp) is the one home of every default: cfg.h has
// none, the platform builder fills the structs here, and the module tests start
// from the same functions over default_config() and then set what their
// hand-computed timings depend on. (McCfg is filled in platform.cpp.)
#pragma once
#include "common/cfg.h"
#include "host/host_path.h"
#include "platform/config.h"

extern "C" {
#include "memside/memside.h"
}

namespace strata {

SmCfg sm_cfg(const Config& C);      // gpu.core_clock_mhz, sm.*
L1Cfg l1_cfg(const Config& C);      // l1.*
XbarCfg xbar_cfg(const Config& C);  // noc.*
L2Cfg l2_cfg(const Config& C);      // l2.* (banks = l2.banks in total)

// host.*: the host path (host memory behind a host link, models/host/host_path.h);
// false (out untouched) when hostpath.link = none.
bool host_path_cfg(const Config& C, HostPathCfg* out);
// Appends the host device to a partition's memory-side configuration: the
// last device (index ndevs - 1 after the call), every rank of kind
// AMAP_MEM_HOST, no channel (dev_channel UINT32_MAX), no DRAM geometry (geom
// zero: host addresses are byte addresses 0 .. hostpath.size - 1, its capacity in dev_bytes).
void add_host_device(const Config& C, memside_cfg* m);

// The configuration with every key at its schema default (no file, no --set).
const Config& default_config();

}  // namespace strata
