// Module tests: one HBM2 channel as the hand-computed memory-controller and
// memory-side tests use it (models/memctrl, models/memside): the device-address
// geometry of one rank of 4 bank groups x 4 banks with 64 columns of 32 B, the
// address of a device line by bank and row (dev_line), and the controller on
// mc_test_setup("hbm2") with refresh off, its store, payload pool and stats.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"

extern "C" {
#include "base/devaddr.h"
#include "memside/memside.h"
}

namespace strata {

inline const devaddr_geom& hbm2_test_geom() {
  static const devaddr_geom g = [] {
    devaddr_geom x{};
    char err[256];
    if (devaddr_init(&x, 1, 4, 4, 64, 32, err, sizeof err) != 0) {
      std::fprintf(stderr, "hbm2_test_geom: %s\n", err);
      std::exit(1);
    }
    return x;
  }();
  return g;
}

// The device line at column 4 x colhi of row `row` in bank (bg, ba).
inline uint64_t dev_line(unsigned bg, unsigned ba, uint64_t row, unsigned colhi) {
  const devaddr_loc l{0, bg, ba, 4 * colhi, row};
  return devaddr_encode(&hbm2_test_geom(), &l);
}

// The channel: construct in sc_main before the modules bound to mc.tsock.
struct Hbm2Channel {
  bstore mem{};
  PayloadPool pool;
  StatsRegistry stats;
  MemCtrl mc;
  Hbm2Channel() : mc("mc", 0, cfg(), init_store(&mem), pool, stats) { MemCtrl::register_totals(stats, {&mc}); }
  ~Hbm2Channel() { bstore_free(&mem); }
  // A memory side's partition of this one device (DRAM).
  memside_cfg one_device() const {
    memside_cfg m{};
    m.ndevs = 1;
    m.geom[0] = hbm2_test_geom();
    m.rank_kind[0][0] = AMAP_MEM_DRAM;
    return m;
  }

 private:
  static McCfg cfg() {
    McCfg c = mc_test_setup("hbm2");
    c.engine.refresh = 0;
    return c;
  }
  static bstore* init_store(bstore* s) {
    bstore_init(s);
    return s;
  }
};

}  // namespace strata
