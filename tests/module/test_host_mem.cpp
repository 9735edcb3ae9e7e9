// Module tests of strata::HostMem (models/host/host_mem.h), the host-memory device: data written
// are read back (byte-masked line writes, sector reads, 4 KiB bulk transfers, the debug back door),
// hand-computed latency and bandwidth, back-pressure from a full request queue (nothing lost), and a
// cacheline read over the HMS NVLink preset from the HMS host preset (Table I).
//
// Device of the first cases: 32 GB/s = 32 B per ns, latency 100 ns, 1 MiB. A request's data pass
// the data path in bytes / 32 ns, one request after another, and its response follows 100 ns later:
// a 128 B line 4 ns, one 32 B sector 1 ns, a 4 KiB buffer 128 ns.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "host/host_mem.h"
#include "link/tlm_link.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

namespace {

HostMemCfg cfg32(unsigned queue) { return HostMemCfg{1 << 20, 32000000000ull, 100000, queue, 1600000}; }

bool near(double a, double b) { return std::fabs(a - b) < 1e-6; }

struct Got {
  uint32_t tag;
  double t;
  std::vector<uint8_t> data;
};

struct Init : TestInitiator<Init> {
  std::vector<double> end_req;
  std::vector<Got> resp;
  Init(sc_module_name n, PayloadPool& p) : TestInitiator(n, p) {}
  // A line request (sectors: read sectors / written sectors, bytes = fill(tag, offset)) or, with
  // bytes > 128, a bulk buffer moved whole.
  void send(uint64_t addr, bool write, uint8_t sectors, uint32_t tag, unsigned bytes = kLineBytes) {
    wait_end_req();
    tlm_generic_payload* gp = bytes > kLineBytes ? pool.alloc(PayloadPool::Data::Zero, bytes) : pool.alloc();
    gp->set_address(addr);
    gp->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    GpuExt& e = GpuExt::get(*gp);
    e.tag = tag;
    e.sector_mask = sectors;
    if (write) {
      for (unsigned b = 0; b < bytes; ++b) gp->get_data_ptr()[b] = fill(tag, b);
      if (bytes == kLineBytes)
        for (unsigned s = 0; s < 4; ++s)
          if ((sectors >> s) & 1u) e.set_bytes(s * 32, 32);
    }
    if (begin_req(*gp)) end_req.push_back(now_ns());
  }
  static uint8_t fill(uint32_t tag, unsigned off) { return static_cast<uint8_t>(tag * 7 + off * 3 + 1); }
  void on_end_req(tlm_generic_payload&) { end_req.push_back(now_ns()); }
  double on_response(tlm_generic_payload& gp) {
    const unsigned char* p = gp.get_data_ptr();
    resp.push_back(Got{GpuExt::get(gp).tag, now_ns(), std::vector<uint8_t>(p, p + gp.get_data_length())});
    return -1;
  }
};

struct Rig {
  PayloadPool pool;
  StatsRegistry stats;
  bstore store{};
  std::unique_ptr<Init> init;
  std::unique_ptr<HostMem> host;
  std::string name;
  Rig(const std::string& n, const HostMemCfg& c) : name(n) {
    bstore_init(&store);
    init = std::make_unique<Init>((n + "_init").c_str(), pool);
    host = std::make_unique<HostMem>(n.c_str(), c, &store, stats);
    init->isock.bind(host->tsock);
  }
  ~Rig() { bstore_free(&store); }
  double stat(const std::string& s) const { return stats.get("hostmem." + name + "." + s); }
};

// The HMS host path: initiator -> NVLink (HMS Table I) -> host memory (HMS Table I).
struct HmsRig {
  PayloadPool pool;
  StatsRegistry stats;
  bstore store{};
  std::unique_ptr<Init> init;
  std::unique_ptr<Link> link;
  std::unique_ptr<HostMem> host;
  HmsRig() {
    bstore_init(&store);
    init = std::make_unique<Init>("hms_init", pool);
    link = std::make_unique<Link>("nvlink", LinkCfg::from_preset(*link_find("nvlink_hms"), 16), stats);
    host = std::make_unique<HostMem>("hms_host", HostMemCfg::from_preset(*hostmem_find("hms_cpu"), 1ull << 30, 16),
                                     &store, stats);
    init->isock.bind(link->tsock);
    link->isock.bind(host->tsock);
  }
  ~HmsRig() { bstore_free(&store); }
};

}  // namespace

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);

  // 1. Latency: 128 B read at 0 -> 4 + 100 = 104 ns; one-sector read at 200 -> 301; 4 KiB bulk read
  //    at 400 -> 400 + 128 + 100 = 628; 128 B write at 1000 -> 1104.
  Rig lat("lat", cfg32(4));
  lat.init->script = [](Init& s) {
    s.send(0x0, false, 0xf, 0);
    s.wait_until_ns(200);
    s.send(0x80, false, 0x1, 1);
    s.wait_until_ns(400);
    s.send(0x1000, false, 0, 2, 4096);
    s.wait_until_ns(1000);
    s.send(0x2000, true, 0xf, 3);
  };

  // 2. Bandwidth: 16 line reads at 0, queue 64: read k's data pass at 4(k + 1) ns, response 100 ns
  //    later: N reads take N x 128 B / 32 GB/s.
  Rig bw("bw", cfg32(64));
  bw.init->script = [](Init& s) {
    for (uint32_t k = 0; k < 16; ++k) s.send(0x10000 + 0x80 * k, false, 0xf, k);
  };

  // 3. Back-pressure: queue 2, 6 line reads at 0. Reads 0, 1 accepted at 0 (responses 104, 108);
  //    read 2 waits (TLM_ACCEPTED) for read 0's place: END_REQ at 104, data 104-108, response 208;
  //    read 3, sent at 104, gets read 1's place at 108 (response 212); read 4 at 208 (312), read 5
  //    at 212 (316).
  Rig bp("bp", cfg32(2));
  bp.init->script = [](Init& s) {
    for (uint32_t k = 0; k < 6; ++k) s.send(0x20000 + 0x80 * k, false, 0xf, k);
  };

  // 4. Data: a full line write, a write of sectors 1 and 3 over it, reads of the line (all sectors)
  //    and of sector 3 alone; a 4 KiB bulk write read back whole and as a line; an untouched line
  //    reads as zeros.
  Rig dat("dat", cfg32(4));
  dat.init->script = [](Init& s) {
    s.send(0x40000, true, 0xf, 10);
    s.send(0x40000, true, 0xa, 11);
    s.send(0x40000, false, 0xf, 12);
    s.send(0x40000, false, 0x8, 13);
    s.send(0x50000, true, 0, 14, 4096);
    s.send(0x50000, false, 0, 15, 4096);
    s.send(0x50000 + 0x180, false, 0xf, 16);
    s.send(0x60000, false, 0xf, 17);
  };

  // 5. HMS host path: a 128 B read over nvlink_hms (76.8 GB/s, 16 B flits, 16 B header, no latency
  //    of its own) from hms_cpu (46.6 GB/s, 135 ns): request 16 B -> ceil(208.33) = 209 ps; host data
  //    ceil(128 / 46.6 GB/s) = 2747 ps + 135 000; response 144 B = 1875 ps: 139 831 ps in all.
  HmsRig hms;
  hms.init->script = [](Init& s) { s.send(0x0, false, 0xf, 0); };

  sc_start(5, SC_US);

  // 1.
  {
    auto& r = lat.init->resp;
    const double want[4] = {104, 301, 628, 1104};
    bool ok = r.size() == 4;
    for (size_t k = 0; ok && k < 4; ++k) ok &= r[k].tag == k && near(r[k].t, want[k]);
    CHECK(ok, "lat: responses not at 104, 301, 628, 1104 ns (%zu)", r.size());
    CHECK(lat.stat("reads") == 3 && lat.stat("writes") == 1, "lat: reads %g writes %g", lat.stat("reads"),
          lat.stat("writes"));
    CHECK(lat.stat("read_bytes") == 128 + 32 + 4096 && lat.stat("write_bytes") == 128, "lat: bytes %g %g",
          lat.stat("read_bytes"), lat.stat("write_bytes"));
    // whole run (5 us): data path busy 4 + 1 + 128 + 4 = 137 ns
    CHECK(near(lat.stat("busy_fraction"), 137.0 / 5000.0), "lat: busy_fraction %g", lat.stat("busy_fraction"));
    CHECK(near(lat.stat("avg_latency_ns"), (104 + 101 + 228 + 104) / 4.0), "lat: avg_latency_ns %g",
          lat.stat("avg_latency_ns"));
    CHECK(lat.stat("avg_queue_delay_ns") == 0, "lat: queue delay %g unloaded", lat.stat("avg_queue_delay_ns"));
    CHECK(lat.host->idle(), "lat: device not idle at the end");
  }
  // 2.
  {
    auto& r = bw.init->resp;
    bool ok = r.size() == 16;
    for (size_t k = 0; ok && k < 16; ++k) ok &= r[k].tag == k && near(r[k].t, 4.0 * (k + 1) + 100);
    CHECK(ok, "bw: responses not at 4(k + 1) + 100 ns (%zu)", r.size());
    CHECK(r.size() == 16 && near(r[15].t - r[0].t, 15 * 4.0), "bw: 16 reads did not take 16 x 4 ns");
    CHECK(bw.init->late_accepts == 0, "bw: back-pressure with a 64-entry queue");
  }
  // 3.
  {
    auto& r = bp.init->resp;
    const double want_r[6] = {104, 108, 208, 212, 312, 316}, want_e[6] = {0, 0, 104, 108, 208, 212};
    bool ok = r.size() == 6 && bp.init->end_req.size() == 6;
    for (size_t k = 0; ok && k < 6; ++k) ok &= r[k].tag == k && near(r[k].t, want_r[k]) && near(bp.init->end_req[k], want_e[k]);
    CHECK(ok, "bp: responses / END_REQ not as computed (%zu, %zu)", r.size(), bp.init->end_req.size());
    CHECK(bp.init->late_accepts == 4, "bp: %u requests waited for room, expected 4", bp.init->late_accepts);
    // queue delay, arrival to response beyond the unloaded 104 ns (reads 3, 4, 5 arrive when sent,
    // at 104, 108, 208): 0, 4 (behind read 0's data), 104, 4, 100, 4 -> mean 216 / 6 = 36
    CHECK(near(bp.stat("avg_queue_delay_ns"), 36.0), "bp: avg_queue_delay_ns %g, expected 36",
          bp.stat("avg_queue_delay_ns"));
  }
  // 4.
  {
    auto& r = dat.init->resp;
    CHECK(r.size() == 8, "dat: %zu responses", r.size());
    if (r.size() == 8) {
      bool ok = true;
      for (unsigned b = 0; b < 128; ++b) {  // sectors 1, 3 from tag 11, 0, 2 from tag 10
        const uint32_t tag = ((b / 32) & 1u) ? 11 : 10;
        ok &= r[2].data[b] == Init::fill(tag, b);
      }
      CHECK(ok, "dat: masked writes not read back");
      ok = true;
      for (unsigned b = 96; b < 128; ++b) ok &= r[3].data[b] == Init::fill(11, b);
      CHECK(ok, "dat: sector read not read back");
      ok = r[5].data.size() == 4096;
      for (unsigned b = 0; ok && b < 4096; ++b) ok &= r[5].data[b] == Init::fill(14, b);
      CHECK(ok, "dat: 4 KiB bulk write not read back");
      ok = true;
      for (unsigned b = 0; b < 128; ++b) ok &= r[6].data[b] == Init::fill(14, 0x180 + b);
      CHECK(ok, "dat: line of a bulk write not read back");
      ok = true;
      for (unsigned b = 0; b < 128; ++b) ok &= r[7].data[b] == 0;
      CHECK(ok, "dat: untouched line not zero");
    }
    // back door: what the bulk write left, and nothing beyond the capacity
    tlm_generic_payload gp;
    unsigned char buf[64];
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x50000 + 64);
    gp.set_data_ptr(buf);
    gp.set_data_length(64);
    CHECK(dat.init->isock->transport_dbg(gp) == 64 && buf[0] == Init::fill(14, 64), "dat: transport_dbg read");
    gp.set_address((1 << 20) - 32);
    CHECK(dat.init->isock->transport_dbg(gp) == 0, "dat: transport_dbg beyond the capacity answered");
  }
  // 5.
  {
    auto& r = hms.init->resp;
    CHECK(r.size() == 1 && near(r[0].t, 139.831), "hms: cacheline read over NVLink at %g ns, expected 139.831",
          r.empty() ? -1.0 : r[0].t);
    CHECK(hms.stats.get("link.nvlink.req.bytes") == 16 && hms.stats.get("link.nvlink.resp.bytes") == 144,
          "hms: link bytes %g / %g", hms.stats.get("link.nvlink.req.bytes"), hms.stats.get("link.nvlink.resp.bytes"));
    // HMS Sec. IV-A: 8 pJ/bit on the link
    CHECK(std::fabs(hms.stats.get("link.nvlink.energy_j") - 160 * 8 * 8e-12) < 1e-18, "hms: link energy %g",
          hms.stats.get("link.nvlink.energy_j"));
  }
  return report();
}
