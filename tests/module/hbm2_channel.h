// Module tests: one HBM2 channel as the hand-computed memory-controller and
// memory-side tests use it (models/memctrl, models/memside): the device-address
// geometry of one rank of 4 bank groups x 4 banks with 64 columns of 32 B, the
// address of a device line by bank and row (dev_line), and the controller on
// mc_test_setup("hbm2") with refresh off, its store, payload pool and stats;
// for a memory side over it, the partition's devices (this one, and the host
// device after it as the platform adds it) and the ops table of a test's own
// toy policy (toy_ops).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"
#include "memside/mem_side.h"

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
  // one_device() and, as the last device, host memory of host_bytes as the platform adds it
  // (add_host_device, platform/module_cfg.cpp): no channel, kind host on every rank.
  memside_cfg one_device_and_host(uint64_t host_bytes) const {
    memside_cfg m = one_device();
    const uint32_t h = m.ndevs++;
    m.dev_channel[h] = UINT32_MAX;
    m.dev_bytes[h] = host_bytes;
    for (unsigned r = 0; r < AMAP_MAX_RANKS; ++r) m.rank_kind[h][r] = AMAP_MEM_HOST;
    return m;
  }
  // Device 0 of `side` is this channel (its controller, store and load).
  void serve(MemSide& side) { side.connect(mc.tsock, &mem, &mc); }

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

// The ops table of a test's toy policy with state T: its name and description, state_bytes
// sizeof(T), the entries every toy policy has, and busy always 0 (the shell's own counts of transfers
// and held accesses say when the memory side is idle); the test sets the others (done, granule, ...).
template <class T>
memside_ops toy_ops(const char* name, const char* desc, decltype(memside_ops::init) init,
                    decltype(memside_ops::locate) locate, decltype(memside_ops::route) route,
                    decltype(memside_ops::complete) complete, decltype(memside_ops::wake) wake) {
  memside_ops o{};
  o.name = name;
  o.desc = desc;
  o.state_bytes = [](const memside_cfg*) -> size_t { return sizeof(T); };
  o.init = init;
  o.locate = locate;
  o.route = route;
  o.complete = complete;
  o.wake = wake;
  o.busy = [](const void*) { return 0; };
  return o;
}

}  // namespace strata
