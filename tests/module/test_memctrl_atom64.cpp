// Module test of strata::MemCtrl on a device whose column access moves 64 B (models/memctrl/mem_ctrl.h:
// one atom per pair of a line's 32 B sectors): the ddr3_800 preset, the hybrid DRAM+PCM paper's 64-bit
// DDR3-800 channel (eight x8 devices, BL8; 400 MHz = 2.5 ns cycle, CL 6, CWL 5, tRCD 11, tCCD 4,
// tBURST 4; 8 banks of 128 columns of 64 B; refresh off, open page, queues of 64 atoms). Hand-computed:
//  1. a whole line (sectors 0-3) of an idle bank at 0: 2 column reads (not 4): ACT 0, RD 11, 15, last
//     data 15 + 6 + 4 = 25 cycles = 62.5 ns; 128 bytes read;
//  2. sector 2 alone of another idle bank at 200 ns (cycle 80): 1 read of its 64 B atom (columns 1 of
//     the line): ACT 80, RD 91, done 101 = 252.5 ns;
//  3. sectors 0 and 2 of a third bank at 400 ns (cycle 160): 2 reads (one per atom), RD 171, 175, done
//     185 = 462.5 ns;
//  4. sectors 0 and 1 of a fourth bank at 600 ns (cycle 240): 1 read (one atom), RD 251, done 261 =
//     652.5 ns;
//  5. a write of bytes 100-103 (sector 3) to a fifth bank at 800 ns (cycle 320): 1 masked column write
//     (DDR3 data mask), ACT 320, WR 331, done 331 + 5 + 4 = 340 = 850 ns; the line read back at 1000 ns
//     (cycle 400, a row hit: 2 reads, RD 400, 404, done 414 = 1035 ns) has the 4 written bytes and the
//     device's others;
//  6. a 96 B span read (sectors 1-3 of a line) at 1200 ns: one child of 2 atoms, its bytes.
// Totals: 2 + 1 + 2 + 1 + 2 + 2 = 10 column reads (10 bursts of read energy) delivering 512 B (the asked
// sectors: mem.ch0.read_bytes), 1 column write of 32 B, the queues empty at the end.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"
#include "tlm_harness.h"

extern "C" {
#include "base/devaddr.h"
}

using namespace strata;
using strata_test::TestInitiator;
using tlm::tlm_generic_payload;

namespace {

uint8_t pattern(uint64_t a) { return strata_test::init_byte(a); }

const devaddr_geom& geom() {
  static const devaddr_geom g = [] {
    const dram_preset* p = dram_find("ddr3_800");
    devaddr_geom x{};
    char err[256];
    if (!p || devaddr_init(&x, 1, p->bankgroups, p->banks_per_group, p->row_bytes / p->atom_bytes, p->atom_bytes, err,
                           sizeof err) != 0)
      std::abort();
    return x;
  }();
  return g;
}

// The device line of bank ba, row row, at column 2 x colhi (two 64 B columns per line).
uint64_t line_of(unsigned ba, uint64_t row, unsigned colhi) {
  const devaddr_loc l{0, 0, ba, 2 * colhi, row};
  return devaddr_encode(&geom(), &l);
}

struct Req {
  double at_ns;
  bool write;
  uint64_t addr;
  unsigned bytes;       // 128: a line request with `sectors`; else a span
  uint8_t sectors;
  unsigned wr_off = 0, wr_len = 0;  // a line write's written bytes
  tlm_generic_payload* gp = nullptr;
  double resp_ns = -1;
  int responses = 0;
};

struct Driver : TestInitiator<Driver> {
  Driver(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<Driver>(n, p) {}
  std::vector<Req> reqs;
  void run() {
    for (Req& r : reqs) {
      wait_until_ns(r.at_ns);
      tlm_generic_payload* gp = r.bytes == kLineBytes ? pool.alloc() : pool.alloc(PayloadPool::Data::Zero, PayloadPool::fit(r.bytes));
      gp->acquire();  // kept for the checks after the run
      gp->set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_address(r.addr);
      gp->set_data_length(r.bytes);
      gp->set_streaming_width(r.bytes);
      GpuExt& e = GpuExt::get(*gp);
      if (r.bytes == kLineBytes) e.sector_mask = r.sectors;
      if (r.write) {
        for (unsigned i = r.wr_off; i < r.wr_off + r.wr_len; ++i) gp->get_data_ptr()[i] = static_cast<uint8_t>(0xa5 ^ i);
        e.set_bytes(r.wr_off, r.wr_len);
      }
      r.gp = gp;
      begin_req(*gp);
      wait_end_req();
    }
  }
  double on_response(tlm_generic_payload& gp) { return strata_test::record_response(reqs, gp); }
};

}  // namespace

int sc_main(int, char*[]) {
  const dram_preset* p = dram_find("ddr3_800");
  CHECK(p && p->atom_bytes == 64 && p->bus_bits == 64 && p->t.BURST == 4 && p->row_bytes == 8192,
        "ddr3_800: a 64-bit channel, 64 B per BL8 burst, 8 KiB rows");
  bstore mem{};
  bstore_init(&mem);
  {
    std::vector<uint8_t> b(1 << 20);
    for (size_t a = 0; a < b.size(); ++a) b[a] = pattern(a);
    bstore_write(&mem, 0, b.data(), b.size());
  }
  PayloadPool pool;
  StatsRegistry stats;
  McCfg cfg = mc_test_setup("ddr3_800");
  cfg.engine.refresh = 0;
  MemCtrl mc("mc", 0, cfg, &mem, pool, stats);
  MemCtrl::register_totals(stats, {&mc});
  Driver drv("drv", pool);
  drv.isock.bind(mc.tsock);

  const uint64_t L1 = line_of(0, 0, 3), L2 = line_of(1, 0, 5), L3 = line_of(2, 0, 7), L4 = line_of(3, 0, 9),
                 L5 = line_of(4, 0, 11), L6 = line_of(5, 0, 13);
  drv.reqs = {{0, false, L1, 128, 0xf},
              {200, false, L2, 128, 0x4},
              {400, false, L3, 128, 0x5},
              {600, false, L4, 128, 0x3},
              {800, true, L5, 128, 0x8, 100, 4},
              {1000, false, L5, 128, 0xf},
              {1200, false, L6 + 32, 96, 0}};

  sc_core::sc_start();

  for (const Req& r : drv.reqs)
    CHECK(r.responses == 1, "request at %g ns: %d responses", r.at_ns, r.responses);
  const double want[] = {62.5, 252.5, 462.5, 652.5, 850, 1035};
  for (unsigned i = 0; i < 6; ++i)
    CHECK(drv.reqs[i].resp_ns == want[i], "request %u answered at %g ns, expected %g", i + 1, drv.reqs[i].resp_ns,
          want[i]);
  // Read data: the asked sectors are the device's bytes.
  int bad = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const Req& r = drv.reqs[i];
    for (unsigned b = 0; b < kLineBytes; ++b)
      if ((r.sectors >> (b / kSectorBytes)) & 1u) bad += r.gp->get_data_ptr()[b] != pattern(r.addr + b);
  }
  CHECK(bad == 0, "line reads: %d bytes differ", bad);
  bad = 0;
  for (unsigned b = 0; b < kLineBytes; ++b) {
    const uint8_t w = b >= 100 && b < 104 ? static_cast<uint8_t>(0xa5 ^ b) : pattern(L5 + b);
    bad += drv.reqs[5].gp->get_data_ptr()[b] != w;
  }
  CHECK(bad == 0, "masked write read back: %d bytes differ", bad);
  bad = 0;
  for (unsigned b = 0; b < 96; ++b) bad += drv.reqs[6].gp->get_data_ptr()[b] != pattern(L6 + 32 + b);
  CHECK(bad == 0, "96 B span: %d bytes differ", bad);

  CHECK(stats.get("mem.ch0.read_atoms") == 10, "mem.ch0.read_atoms %g, expected 10", stats.get("mem.ch0.read_atoms"));
  CHECK(stats.get("mem.ch0.write_atoms") == 1, "mem.ch0.write_atoms %g, expected 1", stats.get("mem.ch0.write_atoms"));
  // Bytes are the requests' sectors (128 + 32 + 64 + 64 + 128 + 96 read, one 32 B sector written), so they
  // match what the requesters asked for; the bursts' cost is in the atoms, the bus time and the energy.
  CHECK(stats.get("mem.ch0.read_bytes") == 512, "mem.ch0.read_bytes %g", stats.get("mem.ch0.read_bytes"));
  CHECK(stats.get("mem.ch0.write_bytes") == 32, "mem.ch0.write_bytes %g", stats.get("mem.ch0.write_bytes"));
  CHECK(std::fabs(stats.get("mem.ch0.energy.rd_j") - 10 * p->e.rd_pj * 1e-12) < 1e-18 &&
            std::fabs(stats.get("mem.ch0.energy.wr_j") - 1 * p->e.wr_pj * 1e-12) < 1e-18,
        "column energy per 64 B burst: rd %g J, wr %g J", stats.get("mem.ch0.energy.rd_j"), stats.get("mem.ch0.energy.wr_j"));
  CHECK(stats.get("mem.class.demand.bytes") == 512, "mem.class.demand.bytes %g", stats.get("mem.class.demand.bytes"));
  CHECK(stats.get("mem.ch0.reads") == 6, "mem.ch0.reads %g", stats.get("mem.ch0.reads"));
  CHECK(mc.idle(), "idle at the end");
  for (Req& r : drv.reqs) r.gp->release();
  CHECK(pool.live() == 0, "payloads released (live %zu)", pool.live());
  bstore_free(&mem);
  return strata_test::report();
}
