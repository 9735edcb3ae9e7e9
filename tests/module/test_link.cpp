// Module tests of strata::Link (models/link/tlm_link.h): hand-computed latency and serialisation in
// both directions, N transfers taking N x wire time (bandwidth), in-order delivery of mixed sizes,
// back-pressure from a slow target (END_REQ withheld upstream, nothing lost) and from a slow
// initiator (END_RESP withheld downstream), two initiators on one link (routes back by port), the
// busy monitor while saturated and after, and the stats.
//
// Link of every case (both directions alike unless said): 16 GB/s = 16 B per ns, latency 10 ns,
// 16 B header, 16 B flits, 128 B per packet. On the wire: a read request 16 B = 1 ns, a 128 B write
// 144 B = 9 ns, a 4-sector read response 144 B = 9 ns, a 1-sector response 48 B = 3 ns, a write
// acknowledgement 16 B = 1 ns. Unloaded delivery = arrival + wire time + 10 ns.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "link/tlm_link.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

namespace {

LinkCfg cfg16(unsigned queue) {
  link_cfg c{};
  c.bytes_per_s = 16000000000ull;
  c.latency_ps = 10000;
  c.header_bytes = 16;
  c.flit_bytes = 16;
  c.max_payload_bytes = 128;
  c.traffic_pj_per_bit = 2.0;
  c.idle_pj_per_bit = 0.0;
  c.window_ps = 1600000;  // 1.6 us
  return LinkCfg{c, c, queue};
}

bool near(double a, double b) { return std::fabs(a - b) < 1e-6; }

struct Got {
  uint32_t tag;
  double t;
};

// Initiator: sends scripted requests (tag = index), records END_REQ and response times and tags,
// checks read data against the target's initial bytes.
struct Init : TestInitiator<Init> {
  unsigned id;
  std::vector<double> end_req;
  std::vector<Got> resp;
  double hold_resp_ns = -1;  // >= 0: BEGIN_RESP answered TLM_ACCEPTED, END_RESP this much later
  unsigned bad_data = 0, bad_route = 0;

  Init(sc_module_name n, unsigned i, PayloadPool& p) : TestInitiator(n, p), id(i) {}
  // addr: line address; sectors: read sectors / written sectors.
  void send(uint64_t addr, bool write, uint8_t sectors, uint32_t tag) {
    wait_end_req();
    tlm_generic_payload* gp = pool.alloc();
    gp->set_address(addr);
    gp->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    GpuExt& e = GpuExt::get(*gp);
    e.sm_id = id;
    e.tag = tag;
    e.sector_mask = sectors;
    if (write)
      for (unsigned s = 0; s < 4; ++s)
        if ((sectors >> s) & 1u) {
          e.set_bytes(s * 32, 32);
          for (unsigned b = 0; b < 32; ++b) gp->get_data_ptr()[s * 32 + b] = static_cast<uint8_t>(tag + b);
        }
    if (begin_req(*gp)) end_req.push_back(now_ns());
  }
  void on_end_req(tlm_generic_payload&) { end_req.push_back(now_ns()); }
  double on_response(tlm_generic_payload& gp) {
    GpuExt& e = GpuExt::get(gp);
    if (e.sm_id != id || e.nhops != 0) ++bad_route;
    if (gp.is_read())
      for (unsigned s = 0; s < 4; ++s)
        if ((e.sector_mask >> s) & 1u)
          for (unsigned b = 0; b < 32; ++b)
            if (gp.get_data_ptr()[s * 32 + b] != init_byte(gp.get_address() + s * 32 + b)) ++bad_data;
    resp.push_back(Got{e.tag, now_ns()});
    return hold_resp_ns;
  }
};

// Target: a functional line memory (as LineMem: reads copy their sectors, writes their bytes, at
// acceptance; the response follows lat_ns + seeded 0..jitter_ns later) that may hold END_REQ.
struct Mem : TestTarget<Mem> {
  std::vector<uint8_t> mem;
  std::vector<MemReq> log;  // at acceptance
  std::vector<double> begin_times;
  unsigned lat_ns = 0, jitter_ns = 0;
  double hold_ns = -1;  // >= 0: every BEGIN_REQ gets its END_REQ this much later
  std::mt19937 rng{7};
  Mem(sc_module_name n, size_t bytes) : TestTarget(n), mem(bytes) {
    for (size_t a = 0; a < bytes; ++a) mem[a] = init_byte(a);
  }
  double on_begin_req(tlm_generic_payload&) {
    begin_times.push_back(now_ns());
    return hold_ns;
  }
  void accept(tlm_generic_payload& gp) {
    GpuExt& e = GpuExt::get(gp);
    const uint64_t a = gp.get_address();
    log.push_back(MemReq{a, gp.is_write(), e.sector_mask, {e.byte_mask[0], e.byte_mask[1]}, e.cls, now_ns(),
                         e.mem_type});
    for (unsigned b = 0; b < kLineBytes; ++b) {
      if (gp.is_write() && e.byte_set(b)) mem[a + b] = gp.get_data_ptr()[b];
      if (gp.is_read() && ((e.sector_mask >> (b / 32)) & 1u)) gp.get_data_ptr()[b] = mem[a + b];
    }
    respond_after(gp, lat_ns + (jitter_ns ? rng() % (jitter_ns + 1) : 0));
  }
};

struct Rig {
  PayloadPool pool;
  StatsRegistry stats;
  std::vector<std::unique_ptr<Init>> inits;
  std::unique_ptr<Link> link;
  std::unique_ptr<Mem> mem;
  std::string name;
  Rig(const std::string& n, unsigned ninit, unsigned queue, unsigned lat_ns) : name(n) {
    link = std::make_unique<Link>(n.c_str(), cfg16(queue), stats);
    mem = std::make_unique<Mem>((n + "_mem").c_str(), 1 << 20);
    mem->lat_ns = lat_ns;
    for (unsigned i = 0; i < ninit; ++i) {
      inits.push_back(std::make_unique<Init>((n + "_init" + std::to_string(i)).c_str(), i, pool));
      inits.back()->isock.bind(link->tsock);
    }
    link->isock.bind(mem->tsock);
  }
  double stat(const std::string& s) const { return stats.get("link." + name + "." + s); }
  const std::vector<MemReq>& log() const { return mem->log; }
};

}  // namespace

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);

  // 1. Latency, both directions. Read of 4 sectors at 0: request 1 ns + 10 -> target at 11; it
  //    answers at once -> 9 ns + 10 -> initiator at 30. One-sector read at 100: target 111,
  //    response 3 + 10 -> 124. Write of 128 B at 200: 9 + 10 -> target 219, ack 1 + 10 -> 230.
  Rig lat("lat", 1, 4, 0);
  lat.inits[0]->script = [](Init& s) {
    s.send(0x0, false, 0xf, 0);
    s.wait_until_ns(100);
    s.send(0x80, false, 0x1, 1);
    s.wait_until_ns(200);
    s.send(0x100, true, 0xf, 2);
  };

  // 2. Bandwidth: 32 writes of 128 B at 0, issued as fast as END_REQ comes (queue 4). The wire
  //    never idles: write k starts at 9k ns, is at the target at 9(k+1) + 10; its ack leaves the
  //    target then, 1 ns on the response wire (never queued: acks come 9 ns apart) -> 9(k+1) + 21.
  //    N = 32 transfers take 32 x 9 ns = N x 144 B / 16 GB/s.
  Rig bw("bw", 1, 4, 0);
  bw.inits[0]->script = [](Init& s) {
    for (uint32_t k = 0; k < 32; ++k) s.send(0x1000 + 0x80 * k, true, 0xf, k);
  };
  double busy_mid = -1, busy_after = -1;
  struct Probe : sc_module {
    SC_HAS_PROCESS(Probe);
    Link& l;
    double &mid, &after;
    Probe(sc_module_name n, Link& link, double& m, double& a) : sc_module(n), l(link), mid(m), after(a) {
      SC_THREAD(run);
    }
    void run() {
      wait(150, SC_NS);  // the request wire has been busy since 0
      mid = l.busy_fraction(Link::kReq);
      wait(2000 - 150, SC_NS);  // window [400, 2000] ns: the last write left the wire at 288 ns
      after = l.busy_fraction(Link::kReq);
    }
  } probe("bw_probe", *bw.link, busy_mid, busy_after);

  // 3. In order, mixed sizes, one initiator, queue 8: at 0 a write (9 ns), a 1-sector read (1 ns),
  //    a write, a read: on the wire 0-9, 9-10, 10-19, 19-20 -> at the target 19, 20, 29, 30, in
  //    issue order (the small requests do not overtake). The target answers each after 0 ns:
  //    responses ack 1 ns, read 1 sector 3 ns, ack, read: response wire 19-20 (at 30), 20-23 (33),
  //    29-30 (40), 30-33 (43).
  Rig ord("ord", 1, 8, 0);
  ord.inits[0]->script = [](Init& s) {
    s.send(0x2000, true, 0xf, 0);
    s.send(0x2080, false, 0x1, 1);
    s.send(0x2100, true, 0xf, 2);
    s.send(0x2180, false, 0x1, 3);
  };

  // 4. Back-pressure from a slow target: it holds every END_REQ 50 ns; queue 4; 8 reads at 0.
  //    Read k reaches the target at 11 (k = 0) and then each time the one before is taken:
  //    BEGIN_REQ at 11 + 50k, END_REQ (acceptance) at 61 + 50k. Upstream, reads 0..3 get END_REQ
  //    at 0 (queue room), read 4 waits (TLM_ACCEPTED) for read 0's place: END_REQ at 61, read 5
  //    is sent then and gets it at 111, ... read k (k >= 4) at 61 + 50(k - 4). Queue delay
  //    (acceptance - arrival - 11 ns unloaded): 50, 100, 150, 200, 250 (arrival 0), then reads 5..7
  //    arrive at 61, 111, 161 and wait 239 each: mean (750 + 717) / 8 = 183.375 ns.
  Rig bp("bp", 1, 4, 0);
  bp.mem->hold_ns = 50;
  bp.inits[0]->script = [](Init& s) {
    for (uint32_t k = 0; k < 8; ++k) s.send(0x3000 + 0x80 * k, false, 0xf, k);
  };

  // 5. Back-pressure from a slow initiator: it answers every BEGIN_RESP with TLM_ACCEPTED and
  //    END_RESP 40 ns later; queue 2; 8 reads at 0 (target answers at once). Responses reach the
  //    initiator 40 ns apart, all 8, in order; the response queue fills, so the target's later
  //    BEGIN_RESPs are answered TLM_ACCEPTED and get END_RESP from the link (target records them).
  Rig rbp("rbp", 1, 2, 0);
  rbp.inits[0]->hold_resp_ns = 40;
  rbp.inits[0]->script = [](Init& s) {
    for (uint32_t k = 0; k < 8; ++k) s.send(0x4000 + 0x80 * k, false, 0xf, k);
  };

  // 6. Two initiators on one link (a memory side's ports): interleaved reads and writes, the
  //    target answers with jitter (out of order); every response goes back to its own initiator
  //    (route restored), each initiator's requests reach the target in its issue order, read data
  //    are the memory's, written data land.
  Rig two("two", 2, 3, 20);
  two.mem->jitter_ns = 30;
  // Initiator i's request k: a write (k % 3 == 2) to its own line, else a read of one of 7 lines.
  auto addr = [](unsigned i, uint32_t k) -> uint64_t {
    return 0x10000 * (i + 1) + ((k % 3) == 2 ? 0x8000 + 0x80 * k : 0x80 * (k % 7));
  };
  for (unsigned i = 0; i < 2; ++i)
    two.inits[i]->script = [i, addr](Init& s) {
      for (uint32_t k = 0; k < 20; ++k) s.send(addr(i, k), (k % 3) == 2, 0xf, k);
    };

  sc_start(5, SC_US);

  // 1.
  {
    auto& r = lat.inits[0]->resp;
    CHECK(r.size() == 3, "lat: %zu responses", r.size());
    if (r.size() == 3) {
      CHECK(near(r[0].t, 30), "lat: 4-sector read at %g ns, expected 30", r[0].t);
      CHECK(near(r[1].t, 124), "lat: 1-sector read at %g ns, expected 124", r[1].t);
      CHECK(near(r[2].t, 230), "lat: write ack at %g ns, expected 230", r[2].t);
    }
    auto& m = lat.log();
    CHECK(m.size() == 3 && near(m[0].t_ns, 11) && near(m[1].t_ns, 111) && near(m[2].t_ns, 219),
          "lat: target saw %zu requests (first at %g)", m.size(), m.empty() ? -1.0 : m[0].t_ns);
    CHECK(lat.inits[0]->bad_data == 0, "lat: %u wrong read bytes", lat.inits[0]->bad_data);
    // written bytes landed: tag 2 + byte index
    bool ok = true;
    for (unsigned b = 0; b < 128; ++b) ok &= lat.mem->mem[0x100 + b] == static_cast<uint8_t>(2 + (b & 31));
    CHECK(ok, "lat: write data did not land");
    CHECK(lat.stat("req.bytes") == 16 + 16 + 144, "lat: req.bytes %g", lat.stat("req.bytes"));
    CHECK(lat.stat("resp.bytes") == 144 + 48 + 16, "lat: resp.bytes %g", lat.stat("resp.bytes"));
    CHECK(lat.stat("req.data_bytes") == 128 && lat.stat("resp.data_bytes") == 128 + 32, "lat: data bytes %g %g",
          lat.stat("req.data_bytes"), lat.stat("resp.data_bytes"));
    CHECK(lat.stat("req.avg_queue_delay_ns") == 0 && lat.stat("resp.avg_queue_delay_ns") == 0,
          "lat: unloaded link with queue delay %g / %g", lat.stat("req.avg_queue_delay_ns"),
          lat.stat("resp.avg_queue_delay_ns"));
    CHECK(lat.link->idle(), "lat: link not idle at the end");
  }
  // 2.
  {
    auto& m = bw.log();
    CHECK(m.size() == 32, "bw: %zu requests at the target", m.size());
    bool ok = m.size() == 32;
    for (size_t k = 0; ok && k < 32; ++k) {
      ok &= near(m[k].t_ns, 9.0 * (k + 1) + 10);
      if (!ok) std::printf("bw: write %zu at the target at %g ns, expected %g\n", k, m[k].t_ns, 9.0 * (k + 1) + 10);
    }
    CHECK(ok, "bw: writes not 9 ns apart");
    CHECK(m.size() == 32 && near(m[31].t_ns - m[0].t_ns, 31 * 9.0), "bw: 32 writes did not take 32 x 9 ns");
    auto& r = bw.inits[0]->resp;
    ok = r.size() == 32;
    for (size_t k = 0; ok && k < 32; ++k) ok &= r[k].tag == k && near(r[k].t, 9.0 * (k + 1) + 21);
    CHECK(ok, "bw: acknowledgements not at 9(k+1) + 21 ns in order (%zu)", r.size());
    CHECK(bw.inits[0]->late_accepts > 0, "bw: the full queue never withheld END_REQ");
    CHECK(bw.stat("req.transfers") == 32 && bw.stat("req.packets") == 32, "bw: req transfers %g packets %g",
          bw.stat("req.transfers"), bw.stat("req.packets"));
    CHECK(bw.stat("req.bytes") == 32 * 144 && bw.stat("req.data_bytes") == 32 * 128, "bw: req bytes %g",
          bw.stat("req.bytes"));
    CHECK(bw.stat("resp.bytes") == 32 * 16 && bw.stat("resp.data_bytes") == 0, "bw: resp bytes %g",
          bw.stat("resp.bytes"));
    // whole run (5 us): request wire busy 288 ns, response wire 32 ns
    CHECK(near(bw.stat("req.busy_fraction"), 288.0 / 5000.0), "bw: req.busy_fraction %g",
          bw.stat("req.busy_fraction"));
    CHECK(near(bw.stat("resp.busy_fraction"), 32.0 / 5000.0), "bw: resp.busy_fraction %g",
          bw.stat("resp.busy_fraction"));
    // 2 pJ per wire bit, no idle energy
    const double e = (32 * 144 + 32 * 16) * 8 * 2e-12;
    CHECK(std::fabs(bw.stat("energy_j") - e) < 1e-18, "bw: energy %g J, expected %g", bw.stat("energy_j"), e);
    CHECK(std::fabs(bw.stat("req.energy_j") - 32 * 144 * 8 * 2e-12) < 1e-18, "bw: req.energy_j %g",
          bw.stat("req.energy_j"));
    CHECK(near(busy_mid, 1.0), "bw: busy monitor %g at 150 ns while saturated, expected 1", busy_mid);
    CHECK(near(busy_after, 0.0), "bw: busy monitor %g at 2 us, expected 0", busy_after);
  }
  // 3.
  {
    auto& m = ord.log();
    const double want_t[4] = {19, 20, 29, 30};
    bool ok = m.size() == 4;
    for (size_t k = 0; ok && k < 4; ++k) ok &= near(m[k].t_ns, want_t[k]) && m[k].addr == 0x2000 + 0x80 * k;
    CHECK(ok, "ord: requests not at 19, 20, 29, 30 ns in issue order");
    auto& r = ord.inits[0]->resp;
    const double want_r[4] = {30, 33, 40, 43};
    ok = r.size() == 4;
    for (size_t k = 0; ok && k < 4; ++k) ok &= r[k].tag == k && near(r[k].t, want_r[k]);
    CHECK(ok, "ord: responses not at 30, 33, 40, 43 ns in order");
    CHECK(ord.inits[0]->bad_data == 0, "ord: wrong read data");
  }
  // 4.
  {
    auto& m = bp.log();
    bool ok = m.size() == 8 && bp.mem->begin_times.size() == 8;
    for (size_t k = 0; ok && k < 8; ++k)
      ok &= near(bp.mem->begin_times[k], 11 + 50.0 * k) && near(m[k].t_ns, 61 + 50.0 * k) &&
            m[k].addr == 0x3000 + 0x80 * k;
    CHECK(ok, "bp: target did not see BEGIN_REQ at 11 + 50k and accept at 61 + 50k in order (%zu)", m.size());
    auto& er = bp.inits[0]->end_req;
    ok = er.size() == 8;
    for (size_t k = 0; ok && k < 8; ++k) ok &= near(er[k], k < 4 ? 0.0 : 61 + 50.0 * (k - 4));
    CHECK(ok, "bp: END_REQ upstream not at 0 x4, then 61, 111, 161, 211 (%zu)", er.size());
    CHECK(bp.inits[0]->late_accepts == 4, "bp: %u requests answered TLM_ACCEPTED, expected 4",
          bp.inits[0]->late_accepts);
    CHECK(bp.inits[0]->resp.size() == 8 && bp.inits[0]->bad_data == 0, "bp: %zu responses, %u wrong bytes",
          bp.inits[0]->resp.size(), bp.inits[0]->bad_data);
    CHECK(near(bp.stat("req.avg_queue_delay_ns"), 183.375), "bp: req.avg_queue_delay_ns %g, expected 183.375",
          bp.stat("req.avg_queue_delay_ns"));
  }
  // 5.
  {
    auto& r = rbp.inits[0]->resp;
    bool ok = r.size() == 8;
    for (size_t k = 1; ok && k < 8; ++k) ok &= r[k].tag == k && near(r[k].t - r[k - 1].t, 40);
    CHECK(ok, "rbp: responses not 40 ns apart in order (%zu)", r.size());
    CHECK(!rbp.mem->end_resp_times.empty(), "rbp: the link never withheld END_RESP from the target");
    CHECK(rbp.inits[0]->bad_data == 0, "rbp: wrong read data");
    CHECK(rbp.link->idle(), "rbp: link not idle at the end");
  }
  // 6.
  {
    for (unsigned i = 0; i < 2; ++i) {
      Init& s = *two.inits[i];
      CHECK(s.resp.size() == 20, "two: initiator %u got %zu responses", i, s.resp.size());
      CHECK(s.bad_route == 0 && s.bad_data == 0, "two: initiator %u: %u misrouted, %u wrong bytes", i, s.bad_route,
            s.bad_data);
      std::vector<bool> seen(20, false);
      for (const Got& g : s.resp)
        if (g.tag < 20) seen[g.tag] = true;
      bool all = true;
      for (bool b : seen) all &= b;
      CHECK(all, "two: initiator %u missed a response", i);
      // its requests reach the target in issue order
      uint32_t k = 0;
      bool ok = true;
      for (const MemReq& q : two.log())
        if (q.addr / 0x10000 == i + 1) ok &= q.addr == addr(i, k++);
      CHECK(ok && k == 20, "two: initiator %u's requests out of order at the target (%u)", i, k);
      // every write landed
      ok = true;
      for (uint32_t w = 2; w < 20; w += 3)
        for (unsigned b = 0; b < 128; ++b) ok &= two.mem->mem[addr(i, w) + b] == static_cast<uint8_t>(w + (b & 31));
      CHECK(ok, "two: initiator %u's writes did not land", i);
    }
    CHECK(two.link->idle(), "two: link not idle at the end");
  }
  return report();
}
