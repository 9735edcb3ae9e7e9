// Module test of strata::MemCtrl (models/memctrl/mem_ctrl.h): small scripted
// initiators drive three controllers through their sockets; every response time
// is compared (exactly, in ps) with a value worked out by hand from the preset
// tables (hbm2: 1 ns cycle, CL 14, CWL 8, tRCD 14, tRP 14, tRAS 33, tCCD_L 2,
// tRFC 260, tREFI 3900, tBURST 1; gddr5_gtx480: 924 MHz, tRCD 12, CL 12,
// tCCD_L 3, tBURST 2). Also: data written and read back, partial byte masks,
// annotated delays, backpressure (END_REQ later), idle refresh, stats, and
// the built-in command timing checker (every command checked, no violation).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "common/payload.h"
#include "common/stats.h"
#include "mc_test_setup.h"
#include "memctrl/mem_ctrl.h"
#include "tlm_harness.h"

using namespace strata;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_PS;

// Geometry of the test's devices: HBM2-like (one rank, 4 bank groups x 4
// banks, 2 KiB rows of 64 32 B columns) shared by hbm2 and gddr5_gtx480.
// Controllers take device addresses (models/ref/base/devaddr.h); the line of
// channel ch, bank group bg, columns 4 colhi .. 4 colhi + 3, bank ba, row
// (each controller has its own device store, so ch only names the device).
static uint64_t line_addr(unsigned ch, unsigned bg, unsigned colhi, unsigned ba, uint64_t row) {
  (void)ch;
  devaddr_geom g;
  char err[128];
  if (devaddr_init(&g, 1, 4, 4, 64, 32, err, sizeof err) != 0) std::abort();
  const devaddr_loc l{0, bg, ba, 4 * colhi, row};
  return devaddr_encode(&g, &l);
}

struct Req {
  sc_time at;             // send time
  unsigned deltas = 0;    // extra delta cycles before sending (ordering within a time step)
  sc_time delay;          // annotated delay of BEGIN_REQ
  tlm::tlm_generic_payload* gp = nullptr;
  tlm::tlm_sync_enum ret = tlm::TLM_COMPLETED;
  sc_time end_req = sc_core::SC_ZERO_TIME, resp = sc_core::SC_ZERO_TIME;
  bool got_end_req = false, got_resp = false;
};

struct Initiator : sc_core::sc_module {
  SC_HAS_PROCESS(Initiator);
  tlm_utils::simple_initiator_socket<Initiator> sock;
  std::vector<Req> reqs;
  Initiator(sc_core::sc_module_name n) : sc_module(n), sock("sock") {
    sock.register_nb_transport_bw(this, &Initiator::bw);
    SC_THREAD(run);
  }
  Req* find(tlm::tlm_generic_payload& gp) {
    for (Req& r : reqs)
      if (r.gp == &gp) return &r;
    return nullptr;
  }
  void run() {
    for (Req& r : reqs) {
      if (r.at > sc_core::sc_time_stamp()) wait(r.at - sc_core::sc_time_stamp());
      for (unsigned i = 0; i < r.deltas; ++i) wait(sc_core::SC_ZERO_TIME);
      tlm::tlm_phase ph = tlm::BEGIN_REQ;
      sc_time d = r.delay;
      r.ret = sock->nb_transport_fw(*r.gp, ph, d);
      if (r.ret == tlm::TLM_UPDATED) {
        CHECK(ph == tlm::END_REQ, "expected END_REQ");
        r.got_end_req = true;
        r.end_req = sc_core::sc_time_stamp() + d;
      } else {
        CHECK(r.ret == tlm::TLM_ACCEPTED, "unexpected return");
        while (!r.got_end_req) wait(end_req_ev);  // base protocol: nothing else before END_REQ
      }
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    Req* r = find(gp);
    CHECK(r != nullptr, "response for an unknown payload");
    if (!r) return tlm::TLM_COMPLETED;
    if (ph == tlm::END_REQ) {
      CHECK(!r->got_end_req, "END_REQ twice");
      r->got_end_req = true;
      r->end_req = sc_core::sc_time_stamp() + d;
      end_req_ev.notify(sc_core::SC_ZERO_TIME);
      return tlm::TLM_ACCEPTED;
    }
    CHECK(ph == tlm::BEGIN_RESP, "unexpected phase");
    CHECK(!r->got_resp, "BEGIN_RESP twice");
    CHECK(gp.get_response_status() == tlm::TLM_OK_RESPONSE, "response status not OK");
    r->got_resp = true;
    r->resp = sc_core::sc_time_stamp() + d;
    return tlm::TLM_COMPLETED;
  }
  sc_core::sc_event end_req_ev;
};

static tlm::tlm_generic_payload* make(PayloadPool& pool, bool write, uint64_t addr, uint8_t sectors) {
  tlm::tlm_generic_payload* gp = pool.alloc();
  gp->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp->set_address(addr);
  GpuExt::get(*gp).sector_mask = sectors;
  return gp;
}

static Req& add(Initiator& in, sc_time at, tlm::tlm_generic_payload* gp, sc_time delay = sc_core::SC_ZERO_TIME,
                unsigned deltas = 0) {
  Req r;
  r.at = at;
  r.gp = gp;
  r.delay = delay;
  r.deltas = deltas;
  in.reqs.push_back(r);
  return in.reqs.back();
}

static void expect_resp(const Req& r, sc_time want, const char* what) {
  CHECK(r.got_resp, "%s: no response", what);
  CHECK(r.resp == want, "%s: response at %s, expected %s", what, r.resp.to_string().c_str(),
        want.to_string().c_str());
}

int sc_main(int, char*[]) {
  bstore mem, mem1, mem2;  // per controller, by device address
  for (bstore* m : {&mem, &mem1, &mem2}) {
    bstore_init(m);
    // Background pattern so partial writes and untouched bytes are visible.
    for (uint64_t a = 0; a < 4096 * 128; a += 128) {
      unsigned char b[128];
      for (unsigned i = 0; i < 128; ++i) b[i] = static_cast<unsigned char>((a / 128 * 7 + i) & 0xff);
      bstore_write(m, a, b, 128);
    }
  }
  PayloadPool pool;
  StatsRegistry stats;

  McCfg hbm = mc_test_setup("hbm2");
  hbm.engine.refresh_per_bank = 0;  // the hand-computed times below use all-bank refresh (per-bank: tests/unit/test_mc_refpb.c)
  McCfg small = hbm;  // backpressure: a read queue of one line
  small.engine.rq_size = 4;
  small.engine.wq_size = 4;
  small.engine.wq_high = 3;
  small.engine.wq_low = 1;
  McCfg gd = mc_test_setup("gddr5_gtx480");
  gd.engine.refresh_per_bank = 0;
  MemCtrl mc0("mc0", 0, hbm, &mem, pool, stats);
  MemCtrl mc1("mc1", 1, small, &mem1, pool, stats);
  MemCtrl mc2("mc2", 2, gd, &mem2, pool, stats);
  MemCtrl::register_totals(stats, {&mc0, &mc1, &mc2});

  Initiator i0("i0"), i1a("i1a"), i1b("i1b"), i2("i2");
  i0.sock.bind(mc0.tsock);
  i1a.sock.bind(mc1.tsock);
  i1b.sock.bind(mc1.tsock);
  i2.sock.bind(mc2.tsock);

  i0.reqs.reserve(16);
  i1a.reqs.reserve(4);
  i1b.reqs.reserve(4);
  i2.reqs.reserve(4);
  const sc_time ns(1, SC_NS);

  // ch0 (hbm2)
  // 1: one sector, closed bank: ACT 100, RD 114, data 128..129
  add(i0, 100 * ns, make(pool, false, line_addr(0, 0, 0, 0, 0), 0x1));
  // 2: a full line to the open row: RD 200, 202, 204, 206 (tCCD_L), last data 221
  add(i0, 200 * ns, make(pool, false, line_addr(0, 0, 1, 0, 0), 0xf));
  // 3: write, sector 0 whole + bytes 40..49 of sector 1: ACT 300, WR 314, 316, done 316 + CWL 8 + 1
  tlm::tlm_generic_payload* w = make(pool, true, line_addr(0, 1, 0, 0, 5), 0x3);
  for (unsigned i = 0; i < 128; ++i) w->get_data_ptr()[i] = static_cast<unsigned char>(0xA0 ^ i);
  GpuExt::get(*w).set_bytes(0, 32);
  GpuExt::get(*w).set_bytes(40, 10);
  add(i0, 300 * ns, w);
  // 4: read the line back (row hit): RD 400..406, done 421
  add(i0, 400 * ns, make(pool, false, line_addr(0, 1, 0, 0, 5), 0xf));
  // 5: annotated delay 10.5 ns: arrives 510.5, clock edge 511: ACT 511, RD 525, done 540
  add(i0, 500 * ns, make(pool, false, line_addr(0, 2, 0, 1, 3), 0x1), sc_time(10500, SC_PS));
  // 6: after an idle period with refresh due at 3900: three open banks precharged at
  // 3900, 3901, 3902 (one row command per cycle), REF at 3902 + tRP = 3916, the read
  // arriving at 3950 waits for tRFC: ACT 4176, RD 4190, done 4205
  add(i0, 3950 * ns, make(pool, false, line_addr(0, 0, 0, 0, 0), 0x1));

  // ch1 (hbm2, read queue of 4 atoms): A fills the queue, B waits for END_REQ
  // A: ACT 1000, RD 1014..1020 -> done 1035; the queue empties at the last RD (1020):
  // END_REQ for B at 1020, B's RDs 1022..1028 (tCCD_L), done 1043
  Req& a = add(i1a, 1000 * ns, make(pool, false, line_addr(1, 0, 0, 0, 0), 0xf));
  (void)a;
  add(i1b, 1000 * ns, make(pool, false, line_addr(1, 0, 1, 0, 0), 0xf), sc_core::SC_ZERO_TIME, 2);

  // ch2 (gddr5_gtx480, 924 MHz: clock edges are not whole picoseconds)
  // read at edge 100: ACT 100, RD 112, done 112 + 12 + 2 = 126
  add(i2, mc2.time_of(100), make(pool, false, line_addr(2, 0, 0, 0, 0), 0x1));
  // full line hit at edge 200: RD 200, 203, 206, 209 (tCCD_L 3), done 209 + 14 = 223
  add(i2, mc2.time_of(200), make(pool, false, line_addr(2, 0, 1, 0, 0), 0xf));

  // A user command log sees every command after the built-in timing checker.
  static uint64_t user_cmds = 0;
  mc0.set_cmd_log([](void*, uint64_t, mc_cmd, uint32_t, uint32_t, uint32_t, uint64_t, uint32_t) { ++user_cmds; },
                  nullptr);

  sc_core::sc_start();

  expect_resp(i0.reqs[0], 129 * ns, "closed-bank read");
  expect_resp(i0.reqs[1], 221 * ns, "row-hit line read");
  expect_resp(i0.reqs[2], 325 * ns, "write");
  expect_resp(i0.reqs[3], 421 * ns, "read back");
  expect_resp(i0.reqs[4], 540 * ns, "delayed read");
  expect_resp(i0.reqs[5], 4205 * ns, "read after refresh");
  for (const Req& r : i0.reqs) CHECK(r.ret == tlm::TLM_UPDATED && r.end_req == r.at + r.delay, "ch0 END_REQ");

  // data: written bytes come back, the rest is the background pattern
  {
    const unsigned char* got = i0.reqs[3].gp->get_data_ptr();
    const uint64_t base = line_addr(0, 1, 0, 0, 5);
    int bad = 0;
    for (unsigned i = 0; i < 128; ++i) {
      const bool written = i < 32 || (i >= 40 && i < 50);
      const unsigned char want =
          written ? static_cast<unsigned char>(0xA0 ^ i) : static_cast<unsigned char>((base / 128 * 7 + i) & 0xff);
      if (got[i] != want) ++bad;
    }
    CHECK(bad == 0, "read-back data differs in %d bytes", bad);
    const unsigned char* g1 = i0.reqs[0].gp->get_data_ptr();
    CHECK(g1[0] == 0 && g1[31] == 31, "sector read data");
  }

  // backpressure
  const Req& A = i1a.reqs[0];
  const Req& B = i1b.reqs[0];
  CHECK(A.ret == tlm::TLM_UPDATED, "A accepted at once");
  CHECK(B.ret == tlm::TLM_ACCEPTED, "B must wait for queue space");
  CHECK(B.got_end_req && B.end_req == 1020 * ns, "B END_REQ at %s, expected 1020 ns", B.end_req.to_string().c_str());
  expect_resp(A, 1035 * ns, "A");
  expect_resp(B, 1043 * ns, "B");

  // GDDR5 clock conversion
  expect_resp(i2.reqs[0], mc2.time_of(126), "gddr5 closed-bank read");
  expect_resp(i2.reqs[1], mc2.time_of(223), "gddr5 row-hit line read");
  CHECK(mc2.time_of(126) == sc_time(136364, SC_PS), "924 MHz edge 126 = 136.364 ns, got %s",
        mc2.time_of(126).to_string().c_str());
  // cycle_of / time_of do the library's conversions inline at a 1 ps resolution:
  // the same results as sc_time(ps, SC_PS) and ceil(to_seconds() * 1e12 / period - 1e-3).
  {
    uint64_t x = 88172645463325252ull;
    size_t bad = 0;
    for (MemCtrl* m : {&mc0, &mc2}) {
      const double period = 1e6 / m->device().clk_mhz;
      for (int i = 0; i < 100000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const uint64_t cyc = x % 100000000;
        bad += m->time_of(cyc) != sc_time(static_cast<double>(cyc) * period, SC_PS);
        uint64_t v = x % 100000000000ull;
        if (i & 1) {  // at and next to clock edges
          v = m->time_of(cyc).value() + (x >> 40) % 3;
          if (v) --v;
        }
        const sc_time t = sc_time::from_value(v);
        const double c = std::ceil(t.to_seconds() * 1e12 / period - 1e-3);
        bad += m->cycle_of(t) != (c > 0 ? static_cast<uint64_t>(c) : 0);
      }
    }
    CHECK(bad == 0, "cycle_of/time_of differ from the library conversions in %zu cases", bad);
  }

  // stats
  CHECK(stats.get("mem.ch0.reads") == 5, "mem.ch0.reads %g", stats.get("mem.ch0.reads"));
  CHECK(stats.get("mem.ch0.writes") == 1, "mem.ch0.writes");
  CHECK(stats.get("mem.ch0.read_bytes") == 32 * (1 + 4 + 4 + 1 + 1), "mem.ch0.read_bytes %g",
        stats.get("mem.ch0.read_bytes"));
  CHECK(stats.get("mem.ch0.write_bytes") == 64, "mem.ch0.write_bytes");
  CHECK(stats.get("mem.ch0.refreshes") == 1, "mem.ch0.refreshes %g", stats.get("mem.ch0.refreshes"));
  CHECK(stats.get("mem.ch0.row_hits") == 4 + 1 + 4, "mem.ch0.row_hits %g", stats.get("mem.ch0.row_hits"));
  CHECK(stats.get("mem.ch0.activations") == 4, "mem.ch0.activations %g", stats.get("mem.ch0.activations"));
  // latency average over ch0 reads: 29 + 21 + 21 + 29.5 (from 510.5) + 255
  const double lat0 = (29 + 21 + 21 + 29.5 + 255) / 5.0;
  CHECK(std::abs(stats.get("mem.ch0.avg_read_latency_ns") - lat0) < 1e-9, "avg latency %g, expected %g",
        stats.get("mem.ch0.avg_read_latency_ns"), lat0);
  CHECK(stats.get("mem.reads") == 5 + 2 + 2, "mem.reads");
  CHECK(stats.get("mem.writes") == 1, "mem.writes");
  CHECK(std::abs(stats.get("mem.peak_bandwidth_gbps") - (32 + 32 + 14.784)) < 1e-9, "peak %g",
        stats.get("mem.peak_bandwidth_gbps"));
  const double bytes = stats.get("mem.read_bytes") + stats.get("mem.write_bytes");
  CHECK(std::abs(stats.get("mem.bandwidth_gbps") - bytes / sc_core::sc_time_stamp().to_seconds() / 1e9) < 1e-9,
        "bandwidth");
  CHECK(stats.get("mem.row_hit_rate") > 0 && stats.get("mem.row_hit_rate") < 1, "row hit rate");
  CHECK(stats.get("mem.energy_j") > 0, "energy");
  CHECK(std::abs(stats.get("mem.ch0.energy.act_j") - 4 * 1.17 * 256e-12) < 1e-15, "act energy %g",
        stats.get("mem.ch0.energy.act_j"));
  const double e0 = stats.get("mem.ch0.energy.act_j") + stats.get("mem.ch0.energy.pre_j") +
                    stats.get("mem.ch0.energy.rd_j") + stats.get("mem.ch0.energy.wr_j") +
                    stats.get("mem.ch0.energy.ref_j") + stats.get("mem.ch0.energy.bg_j");
  CHECK(std::abs(stats.get("mem.ch0.energy_j") - e0) < 1e-18, "energy components add up");
  for (const auto& e : stats.entries()) CHECK(!e.desc.empty(), "stat %s without description", e.name.c_str());
  CHECK(mc0.idle() && mc1.idle() && mc2.idle(), "controllers idle at the end");
  CHECK(mc0.bytes_transferred() == 32 * 11 + 64, "bytes_transferred %llu",
        static_cast<unsigned long long>(mc0.bytes_transferred()));
  CHECK(mc0.read_queue_occupancy() == 0 && mc0.write_queue_occupancy() == 0, "queues empty");
  CHECK(pool.live() == 10, "payloads: controllers released their references (live %zu)", pool.live());

  // timing checker: on by default, every command checked, no violation
  // (a violation would already have ended the process with exit status 3)
  uint64_t checked_all = 0;
  for (MemCtrl* m : {&mc0, &mc1, &mc2}) {
    m->finish_timing_check();
    const tcheck* tc = m->timing_checker();
    CHECK(tc != nullptr, "%s: timing checker attached", m->name());
    if (!tc) continue;
    CHECK(tcheck_ok(tc), "%s: timing violation: %s", m->name(), tcheck_error(tc));
    const mc_stats& st = m->counters();
    const uint64_t cmds = st.acts + st.pres + st.rd_atoms + st.wr_atoms + st.refs;
    CHECK(tcheck_checked(tc) == cmds && cmds > 0, "%s: %llu commands checked, engine issued %llu", m->name(),
          static_cast<unsigned long long>(tcheck_checked(tc)), static_cast<unsigned long long>(cmds));
    CHECK(tc->pre_idle == 0, "%s: PRE of an idle bank", m->name());
    checked_all += tcheck_checked(tc);
  }
  CHECK(user_cmds == tcheck_checked(mc0.timing_checker()), "user command log saw %llu commands",
        static_cast<unsigned long long>(user_cmds));
  CHECK(stats.get("mem.timing_checked_commands") == static_cast<double>(checked_all), "mem.timing_checked_commands %g",
        stats.get("mem.timing_checked_commands"));
  CHECK(stats.get("mem.ch0.timing_checked_commands") == static_cast<double>(tcheck_checked(mc0.timing_checker())),
        "mem.ch0.timing_checked_commands");

  for (bstore* m : {&mem, &mem1, &mem2}) bstore_free(m);
  return strata_test::report();
}
