// Module tests: a MemCtrl set-up (McCfg, models/common/cfg.h) from a preset
// name, with the controller defaults the hand-computed tests assume (queues of
// 64 atoms, write drain 48/16, open page, refresh per bank where the device
// has it, no power-down, timing checker on against the same preset). The
// platform builds its set-ups from the config instead (strata::mc_setup).
#pragma once
#include <cstdio>
#include <cstdlib>

#include "common/cfg.h"

namespace strata {

inline McCfg mc_test_setup(const char* preset) {
  const dram_preset* p = dram_find(preset);
  if (!p) {
    std::fprintf(stderr, "mc_test_setup: unknown preset '%s' (expected one of %s)\n", preset, dram_names());
    std::exit(1);
  }
  McCfg m;
  m.engine.dev = p;
  m.engine.ranks = 1;
  m.engine.rq_size = 64;
  m.engine.wq_size = 64;
  m.engine.wq_high = 48;
  m.engine.wq_low = 16;
  m.engine.open_page = 1;
  m.engine.refresh = 1;
  m.engine.refresh_per_bank = 1;
  m.check_dev = p;
  return m;
}

// The HMS channel of the module tests: rank 0 hbm2 (DRAM), rank 1 scm_mlc (SCM), the controller
// defaults above (HMS Table I, configs/hms_channel_dram_scm.toml).
inline McCfg mc_test_setup_dram_scm() {
  static const dram_preset* devs[2] = {dram_find("hbm2"), dram_find("scm_mlc")};
  McCfg m = mc_test_setup("hbm2");
  m.engine.ranks = 2;
  m.engine.rank_devs = devs;
  return m;
}

}  // namespace strata
