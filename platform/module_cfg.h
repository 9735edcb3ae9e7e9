// Config -> the plain config structs of the GPU-side modules (models/common/cfg.h).
// The schema (platform/schema.cpp) is the one home of every default: cfg.h has
// none, the platform builder fills the structs here, and the module tests start
// from the same functions over default_config() and then set what their
// hand-computed timings depend on. (McCfg is filled in platform.cpp.)
#pragma once
#include "common/cfg.h"
#include "platform/config.h"

namespace strata {

SmCfg sm_cfg(const Config& C);      // gpu.core_clock_mhz, sm.*
L1Cfg l1_cfg(const Config& C);      // l1.*
XbarCfg xbar_cfg(const Config& C);  // noc.*
L2Cfg l2_cfg(const Config& C);      // l2.* (banks = l2.banks in total)

// The configuration with every key at its schema default (no file, no --set).
const Config& default_config();

}  // namespace strata
