// Module test of strata::MemCtrl span requests (models/memctrl/mem_ctrl.h): requests of any multiple of
// the preset's burst granularity (hbm2: 32 B column accesses) up to 64 KiB, split by the controller into
// one child per 128 B line and answered once. One hbm2 controller (1 ns cycle, tRCD 14, CL 14, CWL 8,
// tCCD_L 2, tBURST 1; refresh off, open page, queues of 64 atoms), times hand-computed:
//  1. a 64 B read (the upper half of a line: columns 2 and 3) of an idle bank at 0: ACT 0, RD 14, 16,
//     last data 16 + 14 + 1 = 31 ns; its bytes are the device's, from offset 0 of the payload;
//  2. a 32 B write at a 32 B-aligned address at 100 ns to another idle bank: ACT 100, WR 114, done
//     114 + 8 + 1 = 123 ns; a 64 B read across that line's boundary (its last sector and the next
//     line's first: two children) at 200 ns sees the written bytes;
//  3. one 64 KiB read (a migration chunk of the policy's own, class migration): 512 children through a
//     read queue of 64 atoms (the request waits for room: END_REQ when its last child is queued), one
//     response, all 65536 bytes the device's, mem.ch0.reads up by 512, mem.class.migration.{reads,bytes}
//     = 1, 65536;
//  4. a 4 KiB write then a 4 KiB read of the same bytes: read back equal.
// A request of a size that is not a multiple of 32 B is a model error (not tested: it aborts).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "common/stats.h"
#include "hbm2_channel.h"
#include "memctrl/mem_ctrl.h"
#include "tlm_harness.h"

using namespace strata;
using strata_test::TestInitiator;
using tlm::tlm_generic_payload;

namespace {

uint8_t pattern(uint64_t a) { return strata_test::init_byte(a); }

struct Req {
  double at_ns;
  bool write;
  uint64_t addr;
  unsigned bytes;
  bool own;
  tlm_generic_payload* gp = nullptr;
  double end_req_ns = -1, resp_ns = -1;
  int responses = 0;
};

struct Driver : TestInitiator<Driver> {
  Driver(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<Driver>(n, p) {}
  std::vector<Req> reqs;
  void run() {
    for (Req& r : reqs) {
      wait_until_ns(r.at_ns);
      tlm_generic_payload* gp = pool.alloc(PayloadPool::Data::Zero, PayloadPool::fit(r.bytes));
      gp->acquire();  // kept for the checks after the run
      gp->set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_address(r.addr);
      gp->set_data_length(r.bytes);
      gp->set_streaming_width(r.bytes);
      GpuExt& e = GpuExt::get(*gp);
      e.own = r.own;
      e.cls = r.own ? ReqClass::Migration : ReqClass::Fill;
      if (r.write)
        for (unsigned i = 0; i < r.bytes; ++i) gp->get_data_ptr()[i] = static_cast<uint8_t>(0x5a ^ i ^ (i >> 8));
      r.gp = gp;
      if (begin_req(*gp)) r.end_req_ns = strata_test::now_ns();
      wait_end_req();
      if (r.end_req_ns < 0) r.end_req_ns = strata_test::now_ns();
    }
  }
  double on_response(tlm_generic_payload& gp) { return strata_test::record_response(reqs, gp); }
};

}  // namespace

int sc_main(int, char*[]) {
  Hbm2Channel ch;
  bstore& mem = ch.mem;
  PayloadPool& pool = ch.pool;
  StatsRegistry& stats = ch.stats;
  MemCtrl& mc = ch.mc;
  // Background pattern over the first 1 MiB of device addresses.
  {
    std::vector<uint8_t> b(1 << 20);
    for (size_t a = 0; a < b.size(); ++a) b[a] = pattern(a);
    bstore_write(&mem, 0, b.data(), b.size());
  }
  Driver drv("drv", pool);
  drv.isock.bind(mc.tsock);

  const uint64_t A = dev_line(0, 0, 3, 0) + 64;   // 1: upper half of a line
  const uint64_t W = dev_line(1, 1, 4, 0) + 96;   // 2: the last sector of a line
  const uint64_t Bulk = dev_line(0, 0, 20, 0);    // 3: 64 KiB from a row start
  const uint64_t P = dev_line(2, 2, 40, 0);       // 4: 4 KiB
  drv.reqs = {{0, false, A, 64, false},          {100, true, W, 32, false},   {200, false, W, 64, false},
              {1000, false, Bulk, 65536, true},  {20000, true, P, 4096, true}, {21000, false, P, 4096, true}};

  sc_core::sc_start();

  for (const Req& r : drv.reqs)
    CHECK(r.responses == 1, "request at %g ns (%u B): %d responses", r.at_ns, r.bytes, r.responses);
  const Req &r64 = drv.reqs[0], &w32 = drv.reqs[1], &x64 = drv.reqs[2], &bulk = drv.reqs[3], &pw = drv.reqs[4],
            &pr = drv.reqs[5];
  CHECK(r64.resp_ns == 31, "64 B read answered at %g ns, expected 31", r64.resp_ns);
  CHECK(w32.resp_ns == 123, "32 B write answered at %g ns, expected 123", w32.resp_ns);
  int bad = 0;
  for (unsigned i = 0; i < 64; ++i) bad += r64.gp->get_data_ptr()[i] != pattern(A + i);
  CHECK(bad == 0, "64 B read: %d bytes differ", bad);
  // 64 B across a line boundary: the written sector, then the next line's first sector (the pattern).
  bad = 0;
  for (unsigned i = 0; i < 64; ++i) {
    const uint8_t want = i < 32 ? static_cast<uint8_t>(0x5a ^ i) : pattern(W + i);
    bad += x64.gp->get_data_ptr()[i] != want;
  }
  CHECK(bad == 0, "64 B read across a line boundary: %d bytes differ", bad);
  // The bulk read: waited for room, one answer, every byte.
  CHECK(bulk.end_req_ns > bulk.at_ns, "64 KiB read: END_REQ at %g ns (after room freed), sent at %g", bulk.end_req_ns,
        bulk.at_ns);
  bad = 0;
  for (unsigned i = 0; i < 65536; ++i) bad += bulk.gp->get_data_ptr()[i] != pattern(Bulk + i);
  CHECK(bad == 0, "64 KiB read: %d bytes differ", bad);
  // 64 KiB = 2048 column reads (32 rows of 2 KiB in consecutive banks): at least 2048 bursts of 1 cycle on the data
  // bus after the first ACT + tRCD + CL.
  CHECK(bulk.resp_ns - bulk.at_ns >= 14 + 14 + 2048, "64 KiB read answered after %g ns", bulk.resp_ns - bulk.at_ns);
  bad = 0;
  for (unsigned i = 0; i < 4096; ++i) bad += pr.gp->get_data_ptr()[i] != static_cast<uint8_t>(0x5a ^ i ^ (i >> 8));
  CHECK(bad == 0 && pw.resp_ns < pr.resp_ns, "4 KiB read back: %d bytes differ", bad);

  // Counters: children are the engine's requests (lines); classes count requests.
  CHECK(stats.get("mem.ch0.reads") == 1 + 2 + 512 + 32, "mem.ch0.reads %g", stats.get("mem.ch0.reads"));
  CHECK(stats.get("mem.ch0.writes") == 1 + 32, "mem.ch0.writes %g", stats.get("mem.ch0.writes"));
  CHECK(stats.get("mem.ch0.read_bytes") == 64 + 64 + 65536 + 4096, "mem.ch0.read_bytes %g", stats.get("mem.ch0.read_bytes"));
  CHECK(stats.get("mem.class.migration.reads") == 2 && stats.get("mem.class.migration.writes") == 1,
        "migration reads %g writes %g", stats.get("mem.class.migration.reads"), stats.get("mem.class.migration.writes"));
  CHECK(stats.get("mem.class.migration.bytes") == 65536 + 4096 + 4096, "migration bytes %g",
        stats.get("mem.class.migration.bytes"));
  CHECK(stats.get("mem.class.demand.reads") == 2 && stats.get("mem.class.demand.bytes") == 128, "demand reads %g bytes %g",
        stats.get("mem.class.demand.reads"), stats.get("mem.class.demand.bytes"));
  CHECK(stats.get("mem.class.writeback.writes") == 1 && stats.get("mem.class.writeback.bytes") == 32, "write-back %g",
        stats.get("mem.class.writeback.bytes"));
  const double mig_lat = ((bulk.resp_ns - bulk.at_ns) + (pw.resp_ns - pw.at_ns) + (pr.resp_ns - pr.at_ns)) / 3;
  CHECK(std::abs(stats.get("mem.class.migration.avg_latency_ns") - mig_lat) < 1e-6,
        "migration latency %g ns, expected %g", stats.get("mem.class.migration.avg_latency_ns"), mig_lat);
  CHECK(mc.idle(), "idle at the end");
  for (Req& r : drv.reqs) r.gp->release();
  CHECK(pool.live() == 0, "payloads released (live %zu)", pool.live());
  std::printf("64 KiB read: END_REQ after %g ns, answered after %g ns\n", bulk.end_req_ns - bulk.at_ns,
              bulk.resp_ns - bulk.at_ns);
  return strata_test::report();
}
