// Module tests of strata::Link (models/link/tlm_link.h): hand-computed latency and serialisation in
// both directions, N transfers taking N x wire time (bandwidth), in-order delivery of mixed sizes,
// back-pressure from a slow target (END_REQ withheld upstream, nothing lost) and from a slow
// initiator (END_RESP withheld downstream), two initiators on one link (routes back by port), the
// busy monitor while saturated and after, and the stats. Also: the response direction's own
// bandwidth on an asymmetric link (TOM's TX/RX), bulk transfers split into packets, senders
// waiting for room taken in arrival order across initiators, and two links in a chain (a route
// of two link hops, as GPU -> link -> stack -> link -> host).
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
  // addr: line address; sectors: read sectors / written sectors; bytes > 128: a bulk transfer of
  // that many bytes (sector mask 0, data not checked).
  void send(uint64_t addr, bool write, uint8_t sectors, uint32_t tag, unsigned bytes = kLineBytes) {
    wait_end_req();
    tlm_generic_payload* gp = pool.alloc(PayloadPool::Data::Zero, bytes);
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
  std::vector<unsigned> hops;  // route depth of each request at acceptance
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
    hops.push_back(e.nhops);
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
  Rig(const std::string& n, unsigned ninit, unsigned queue, unsigned lat_ns) : Rig(n, ninit, cfg16(queue), lat_ns) {}
  Rig(const std::string& n, unsigned ninit, const LinkCfg& cfg, unsigned lat_ns) : name(n) {
    link = std::make_unique<Link>(n.c_str(), cfg, stats);
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

  // 7. Bandwidth of the response direction on an asymmetric link: requests at 16 GB/s, responses at
  //    8 GB/s (TOM Sec. 3.1.1: TX and RX are separate channels); queue 16; 16 four-sector reads at
  //    0. Request k is on the wire k..k+1 ns, at the target at 11 + k; its response (144 B = 18 ns
  //    at 8 B/ns) starts when the response wire is free: 11 + 18k, at the initiator 39 + 18k. The
  //    16 responses take 16 x 18 ns, 144 B / 8 GB/s each. Queue delay: request k waited k ns for
  //    the request wire (mean 7.5 ns), response k 17k ns beyond its unloaded 28 ns (mean 127.5 ns).
  LinkCfg asym_cfg = cfg16(16);
  asym_cfg.resp.bytes_per_s = 8000000000ull;
  Rig asym("asym", 1, asym_cfg, 0);
  asym.inits[0]->script = [](Init& s) {
    for (uint32_t k = 0; k < 16; ++k) s.send(0x5000 + 0x80 * k, false, 0xf, k);
  };

  // 8. Bulk transfers split into packets: a 4 KiB write at 0 is 32 packets of 128 B data + 16 B
  //    header = 4608 B = 288 ns, at the target at 298, its acknowledgement (16 B, 1 ns) back at
  //    309; a 4 KiB read at 1000: request 1 ns -> target 1011, its data 288 ns -> initiator 1309.
  Rig bulk("bulk", 1, 4, 0);
  bulk.inits[0]->script = [](Init& s) {
    s.send(0x8000, true, 0, 0, 4096);
    s.wait_until_ns(1000);
    s.send(0x9000, false, 0, 1, 4096);
  };

  // 9. Senders waiting for room are taken in arrival order, across initiators: queue 1, the target
  //    holds every END_REQ 50 ns. Initiator 0 sends a read at 0 (room: END_REQ at once, at the
  //    target at 11, taken at 61) and another at 10; initiator 1 sends one at 5. Both wait; at 61
  //    initiator 1's (arrived first) enters: END_REQ at 61, on the wire at 61, at the target at 72,
  //    taken at 122; then initiator 0's second: END_REQ at 122, target at 133, taken at 183.
  Rig fair("fair", 2, 1, 0);
  fair.mem->hold_ns = 50;
  fair.inits[0]->script = [](Init& s) {
    s.send(0xa000, false, 0xf, 0);
    s.wait_until_ns(10);
    s.send(0xa080, false, 0xf, 1);
  };
  fair.inits[1]->script = [](Init& s) {
    s.wait_until_ns(5);
    s.send(0xb000, false, 0xf, 0);
  };

  // 10. Two links in a chain: initiators 0 and 1 on link A, link A and initiator 2 on link B,
  //     link B to the memory (each link has two ports, so each pushes a hop). Requests of 0 and 1
  //     reach the memory with a route of 2 hops, those of 2 with 1; every response finds its way
  //     back (route empty again at the initiator), each initiator's requests arrive in its order,
  //     and the unloaded latency is the sum of the links': a read from initiator 0 alone at 0
  //     crosses A (1 + 10) and B (1 + 10): at the memory at 22, answered 20 ns later, back through
  //     B and A (9 + 10 each) at 80. From 200 ns all three send and the memory answers with
  //     jitter (out of order).
  PayloadPool chain_pool;
  StatsRegistry chain_stats;
  Link chain_a("chain_a", cfg16(4), chain_stats), chain_b("chain_b", cfg16(4), chain_stats);
  Mem chain_mem("chain_mem", 1 << 20);
  chain_mem.lat_ns = 20;
  Init chain_i0("chain_init0", 0, chain_pool), chain_i1("chain_init1", 1, chain_pool),
      chain_i2("chain_init2", 2, chain_pool);
  chain_i0.isock.bind(chain_a.tsock);
  chain_i1.isock.bind(chain_a.tsock);
  chain_a.isock.bind(chain_b.tsock);
  chain_i2.isock.bind(chain_b.tsock);
  chain_b.isock.bind(chain_mem.tsock);
  auto chain_addr = [](unsigned i, uint32_t k) -> uint64_t {
    return 0x20000 * (i + 1) + ((k % 3) == 2 ? 0x10000 + 0x80 * k : 0x80 * (k % 5));
  };
  chain_i0.script = [chain_addr, &chain_mem](Init& s) {
    s.send(chain_addr(0, 0), false, 0xf, 0);  // alone on both links
    s.wait_until_ns(200);
    chain_mem.jitter_ns = 30;  // before any later request reaches the memory (at 211 or later)
    for (uint32_t k = 1; k < 15; ++k) s.send(chain_addr(0, k), (k % 3) == 2, 0xf, k);
  };
  for (Init* in : {&chain_i1, &chain_i2})
    in->script = [chain_addr](Init& s) {
      s.wait_until_ns(200);
      for (uint32_t k = 0; k < 15; ++k) s.send(chain_addr(s.id, k), (k % 3) == 2, 0xf, k);
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
  // 7.
  {
    auto& m = asym.log();
    bool ok = m.size() == 16;
    for (size_t k = 0; ok && k < 16; ++k) ok &= near(m[k].t_ns, 11.0 + k);
    CHECK(ok, "asym: requests not at the target at 11 + k ns (%zu)", m.size());
    auto& r = asym.inits[0]->resp;
    ok = r.size() == 16;
    for (size_t k = 0; ok && k < 16; ++k) {
      ok &= r[k].tag == k && near(r[k].t, 39 + 18.0 * k);
      if (!ok) std::printf("asym: response %zu (tag %u) at %g ns, expected %g\n", k, r[k].tag, r[k].t, 39 + 18.0 * k);
    }
    CHECK(ok, "asym: responses not 18 ns apart (144 B at 8 GB/s) from 39 ns");
    CHECK(r.size() == 16 && near(r[15].t - r[0].t, 15 * 18.0), "asym: 16 responses did not take 16 x 18 ns");
    CHECK(asym.inits[0]->bad_data == 0, "asym: wrong read data");
    CHECK(near(asym.stat("resp.avg_queue_delay_ns"), 127.5) && near(asym.stat("req.avg_queue_delay_ns"), 7.5),
          "asym: queue delay req %g resp %g, expected 7.5 and 127.5", asym.stat("req.avg_queue_delay_ns"),
          asym.stat("resp.avg_queue_delay_ns"));
    CHECK(near(asym.stat("req.busy_fraction"), 16.0 / 5000.0) && near(asym.stat("resp.busy_fraction"), 288.0 / 5000.0),
          "asym: busy fractions req %g resp %g", asym.stat("req.busy_fraction"), asym.stat("resp.busy_fraction"));
  }
  // 8.
  {
    auto& m = bulk.log();
    CHECK(m.size() == 2 && near(m[0].t_ns, 298) && near(m[1].t_ns, 1011),
          "bulk: target saw %zu requests (at %g, %g), expected 298 and 1011", m.size(), m.empty() ? -1.0 : m[0].t_ns,
          m.size() < 2 ? -1.0 : m[1].t_ns);
    auto& r = bulk.inits[0]->resp;
    CHECK(r.size() == 2 && near(r[0].t, 309) && near(r[1].t, 1309), "bulk: %zu responses (at %g, %g), expected 309, 1309",
          r.size(), r.empty() ? -1.0 : r[0].t, r.size() < 2 ? -1.0 : r[1].t);
    CHECK(bulk.stat("req.packets") == 32 + 1 && bulk.stat("resp.packets") == 1 + 32, "bulk: packets req %g resp %g",
          bulk.stat("req.packets"), bulk.stat("resp.packets"));
    CHECK(bulk.stat("req.data_bytes") == 4096 && bulk.stat("resp.data_bytes") == 4096, "bulk: data bytes %g %g",
          bulk.stat("req.data_bytes"), bulk.stat("resp.data_bytes"));
    CHECK(bulk.stat("req.bytes") == 4608 + 16 && bulk.stat("resp.bytes") == 16 + 4608, "bulk: wire bytes %g %g",
          bulk.stat("req.bytes"), bulk.stat("resp.bytes"));
  }
  // 9.
  {
    auto& m = fair.log();
    const uint64_t want_a[3] = {0xa000, 0xb000, 0xa080};
    const double want_t[3] = {61, 122, 183};
    bool ok = m.size() == 3 && fair.mem->begin_times.size() == 3;
    for (size_t k = 0; ok && k < 3; ++k)
      ok &= m[k].addr == want_a[k] && near(m[k].t_ns, want_t[k]) && near(fair.mem->begin_times[k], want_t[k] - 50);
    CHECK(ok, "fair: target did not take 0xa000, 0xb000, 0xa080 at 61, 122, 183 ns (%zu)", m.size());
    auto& e0 = fair.inits[0]->end_req;
    auto& e1 = fair.inits[1]->end_req;
    CHECK(e0.size() == 2 && near(e0[0], 0) && near(e0[1], 122), "fair: initiator 0's END_REQs (%zu)", e0.size());
    CHECK(e1.size() == 1 && near(e1[0], 61), "fair: initiator 1's END_REQ (%zu)", e1.size());
    CHECK(fair.inits[0]->resp.size() == 2 && fair.inits[1]->resp.size() == 1 && fair.inits[0]->bad_route == 0 &&
              fair.inits[1]->bad_route == 0,
          "fair: responses %zu / %zu", fair.inits[0]->resp.size(), fair.inits[1]->resp.size());
  }
  // 10.
  {
    CHECK(!chain_mem.log.empty() && chain_mem.log[0].addr == chain_addr(0, 0) && near(chain_mem.log[0].t_ns, 22),
          "chain: first read not at the memory at 22 ns");
    CHECK(!chain_i0.resp.empty() && chain_i0.resp[0].tag == 0 && near(chain_i0.resp[0].t, 22 + 20 + 2 * 19.0),
          "chain: first read not back at 80 ns");
    bool hops_ok = chain_mem.hops.size() == chain_mem.log.size();
    for (size_t k = 0; hops_ok && k < chain_mem.log.size(); ++k)
      hops_ok &= chain_mem.hops[k] == (chain_mem.log[k].addr / 0x20000 == 3 ? 1u : 2u);
    CHECK(hops_ok, "chain: routes at the memory not 2 hops (initiators 0, 1) and 1 hop (initiator 2)");
    for (Init* in : {&chain_i0, &chain_i1, &chain_i2}) {
      const unsigned i = in->id;
      CHECK(in->resp.size() == 15 && in->bad_route == 0 && in->bad_data == 0,
            "chain: initiator %u: %zu responses, %u misrouted, %u wrong bytes", i, in->resp.size(), in->bad_route,
            in->bad_data);
      uint32_t k = 0;
      bool ok = true;
      for (const MemReq& q : chain_mem.log)
        if (q.addr / 0x20000 == i + 1) ok &= q.addr == chain_addr(i, k++);
      CHECK(ok && k == 15, "chain: initiator %u's requests out of order at the memory (%u)", i, k);
    }
    CHECK(chain_a.idle() && chain_b.idle(), "chain: links not idle at the end");
  }
  return report();
}
