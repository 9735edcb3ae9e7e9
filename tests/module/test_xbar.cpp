// Module tests of strata::Xbar: hand-computed latency and link serialisation,
// routing by GpuExt::l2_bank and back by port, output-queue backpressure in
// both directions. Clock 1 GHz (T = 1 ns), latency 8 cycles, 32 B/cycle.
// A packet of B bytes = ceil(B/32) flits; unloaded delivery = arrival +
// (8 + flits) cycles. Read request 8 B = 1 flit; write of 128 B = 136 B = 5
// flits; read response of 4 sectors = 136 B = 5 flits; of 1 sector = 2 flits.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "noc/xbar.h"
#include "platform/module_cfg.h"
#include "tlm_harness.h"

using namespace sc_core;
using namespace strata;
using namespace strata_test;

struct Arrival {
  uint32_t src_sm, tag;
  double t;
};

// Fake L2 bank: records arrivals; answers each request after resp_ns with a
// response of its sector mask; optionally holds END_REQ (backpressure).
struct FakeBank : TestTarget<FakeBank> {
  unsigned id;
  double resp_ns = 0;
  double hold_until_ns = -1;  // requests arriving before this get END_REQ at that time
  std::vector<Arrival> arrivals;
  bool wrong_bank = false;

  FakeBank(sc_module_name n, unsigned i) : TestTarget(n), id(i) {}
  double on_begin_req(tlm_generic_payload& gp) {
    if (GpuExt::get(gp).l2_bank != id) wrong_bank = true;
    return hold_until_ns > now_ns() ? hold_until_ns - now_ns() : -1;
  }
  void accept(tlm_generic_payload& gp) {
    arrivals.push_back(Arrival{GpuExt::get(gp).sm_id, GpuExt::get(gp).tag, now_ns()});
    respond_after(gp, resp_ns);
  }
};

// Fake SM: issues scripted requests, records END_REQ and response times.
struct FakeSm : TestInitiator<FakeSm> {
  unsigned id;
  std::vector<double> end_req_times, resp_times;
  std::vector<uint32_t> resp_tags;
  bool foreign = false;
  double accept_resp_late_ns = -1;  // >= 0: answer BEGIN_RESP with TLM_ACCEPTED, END_RESP after this delay

  FakeSm(sc_module_name n, unsigned i, PayloadPool& p) : TestInitiator(n, p), id(i) {}
  void send(unsigned bank, bool write, uint8_t sectors, uint32_t tag) {
    wait_end_req();
    tlm_generic_payload* gp = pool.alloc();
    gp->set_address(0x1000 * tag);
    gp->set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    GpuExt& e = GpuExt::get(*gp);
    e.l2_bank = bank;
    e.sm_id = id;
    e.tag = tag;
    e.sector_mask = sectors;
    if (write)
      for (unsigned s = 0; s < 4; ++s)
        if ((sectors >> s) & 1u) e.set_bytes(s * 32, 32);
    if (begin_req(*gp)) end_req_times.push_back(now_ns());
  }
  void on_end_req(tlm_generic_payload&) { end_req_times.push_back(now_ns()); }
  double on_response(tlm_generic_payload& gp) {
    if (GpuExt::get(gp).sm_id != id) foreign = true;
    resp_times.push_back(now_ns());
    resp_tags.push_back(GpuExt::get(gp).tag);
    return accept_resp_late_ns;
  }
};

struct XRig {
  PayloadPool pool;
  StatsRegistry stats;
  Xbar xbar;
  std::vector<FakeSm*> sms;
  std::vector<FakeBank*> banks;
  XRig(const std::string& n, unsigned nsm, unsigned nb, const XbarCfg& cfg) : xbar((n + "_xbar").c_str(), nsm, nb, cfg, stats) {
    for (unsigned i = 0; i < nsm; ++i) {
      sms.push_back(new FakeSm((n + "_sm" + std::to_string(i)).c_str(), i, pool));
      sms.back()->isock.bind(xbar.from_sm);
    }
    for (unsigned b = 0; b < nb; ++b) {
      banks.push_back(new FakeBank((n + "_bank" + std::to_string(b)).c_str(), b));
      xbar.to_l2.bind(banks.back()->tsock);
    }
  }
};

static XbarCfg cfg1() {
  XbarCfg c = xbar_cfg(default_config());  // schema defaults, then what the timings below depend on
  c.clk.mhz = 1000;
  c.latency = 8;
  c.bytes_per_cycle = 32;
  c.queue = 4;
  return c;
}

int sc_main(int, char*[]) {
  sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);

  // 1. Unloaded latency: read to bank 2 at 0 -> at bank at 0+8+1 = 9; bank answers
  //    at 9 (4 sectors, 5 flits) -> at the SM at 9+8+5 = 22. A 1-sector read at 100:
  //    bank at 109, response (2 flits) 109+8+2 = 119. A full-line write at 200:
  //    5 flits -> bank at 213; write ack 1 flit -> 213+9 = 222.
  XRig lat("lat", 1, 4, cfg1());
  lat.sms[0]->script = [](FakeSm& s) {
    s.send(2, false, 0xf, 1);
    s.wait_until_ns(100);
    s.send(2, false, 0x1, 2);
    s.wait_until_ns(200);
    s.send(2, true, 0xf, 3);
  };

  // 2. Serialisation: SM0 four 128 B writes to bank 0 at t=0: source link starts
  //    0,5,10,15 -> switch out 8,13,18,23 -> delivered 13,18,23,28.
  //    SM1 and SM2 one write each to bank 1 at t=0: both leave their own links at
  //    0, meet at bank 1's link at 8: delivered 13 and 18.
  XRig bw("bw", 3, 2, cfg1());
  bw.sms[0]->script = [](FakeSm& s) {
    for (uint32_t k = 0; k < 4; ++k) s.send(0, true, 0xf, k);
  };
  bw.sms[1]->script = [](FakeSm& s) { s.send(1, true, 0xf, 100); };
  bw.sms[2]->script = [](FakeSm& s) { s.send(1, true, 0xf, 200); };

  // 3. Routing: 4 SMs x 6 banks, random traffic; each bank must see only its own
  //    requests, each SM only its own responses, all in per-(SM, bank) order.
  XRig rt("rt", 4, 6, cfg1());
  for (unsigned i = 0; i < 4; ++i) {
    rt.sms[i]->script = [i](FakeSm& s) {
      std::mt19937 rng(100 + i);
      for (uint32_t k = 0; k < 300; ++k) {
        s.send(rng() % 6, rng() & 1, static_cast<uint8_t>(1 + rng() % 15), i * 1000 + k);
        if (rng() % 4 == 0) s.wait_until_ns(now_ns() + rng() % 10);
      }
    };
  }
  for (FakeBank* b : rt.banks) b->resp_ns = 3;

  // 4. Backpressure: queue 2. Bank 0 holds END_REQ until t=100. SM0 sends 5 reads to
  //    bank 0 at t=0: #0 reaches the bank at 9 and blocks the port (keeps its slot);
  //    #1 fills the second slot; #2 is refused (TLM_ACCEPTED) and admitted only when
  //    bank 0 takes #0 at 100 (END_REQ to SM0 at 100). SM1's read to bank 1 is not
  //    affected: delivered at 9.
  XbarCfg cq = cfg1();
  cq.queue = 2;
  XRig bp("bp", 2, 2, cq);
  bp.banks[0]->hold_until_ns = 100;
  bp.sms[0]->script = [](FakeSm& s) {
    for (uint32_t k = 0; k < 5; ++k) s.send(0, false, 0xf, k);
  };
  bp.sms[1]->script = [](FakeSm& s) { s.send(1, false, 0xf, 50); };

  // 5. Response backpressure: queue 1, the SM accepts responses late (END_RESP 20 ns
  //    after BEGIN_RESP). Bank 0 answers 3 requests immediately: the second response
  //    is refused to the bank (END_RESP from the xbar later), all arrive in order.
  XbarCfg cr = cfg1();
  cr.queue = 1;
  XRig rb("rb", 1, 1, cr);
  rb.sms[0]->accept_resp_late_ns = 20;
  rb.sms[0]->script = [](FakeSm& s) {
    for (uint32_t k = 0; k < 3; ++k) s.send(0, false, 0x1, k);
  };

  sc_start();

  // 1
  {
    FakeBank& b = *lat.banks[2];
    CHECK(b.arrivals.size() == 3, "n %zu", b.arrivals.size());
    const double ab[] = {9, 109, 213}, as[] = {22, 119, 222};
    for (size_t i = 0; i < 3 && i < b.arrivals.size(); ++i)
      CHECK(b.arrivals[i].t == ab[i], "bank arrival %zu at %.1f expected %.1f", i, b.arrivals[i].t, ab[i]);
    for (size_t i = 0; i < 3 && i < lat.sms[0]->resp_times.size(); ++i)
      CHECK(lat.sms[0]->resp_times[i] == as[i], "response %zu at %.1f expected %.1f", i, lat.sms[0]->resp_times[i],
            as[i]);
    CHECK(lat.stats.get("noc.req.flits") == 1 + 1 + 5, "req flits %.0f", lat.stats.get("noc.req.flits"));
    CHECK(lat.stats.get("noc.resp.flits") == 5 + 2 + 1, "resp flits %.0f", lat.stats.get("noc.resp.flits"));
    CHECK(lat.stats.get("noc.req.bytes") == 8 + 8 + 136, "req bytes");
    CHECK(lat.stats.get("noc.resp.bytes") == 136 + 40 + 8, "resp bytes");
    CHECK(lat.stats.get("noc.req.avg_queue_delay") == 0, "no contention");
    CHECK(lat.xbar.idle(), "idle");
  }
  // 2
  {
    const FakeBank& b0 = *bw.banks[0];
    const double e0[] = {13, 18, 23, 28};
    CHECK(b0.arrivals.size() == 4, "n");
    for (size_t i = 0; i < 4 && i < b0.arrivals.size(); ++i) {
      CHECK(b0.arrivals[i].t == e0[i], "bank0 arrival %zu at %.1f expected %.1f", i, b0.arrivals[i].t, e0[i]);
      CHECK(b0.arrivals[i].tag == i, "order");
    }
    const FakeBank& b1 = *bw.banks[1];
    CHECK(b1.arrivals.size() == 2, "n");
    if (b1.arrivals.size() == 2) {
      CHECK(b1.arrivals[0].t == 13 && b1.arrivals[1].t == 18, "bank1 at %.1f, %.1f", b1.arrivals[0].t,
            b1.arrivals[1].t);
    }
    // queueing beyond unloaded (13 cycles): SM0 0+5+10+15, bank1 second 5 -> 35/6 packets
    CHECK(std::abs(bw.stats.get("noc.req.avg_queue_delay") - 35.0 / 6.0) < 1e-9, "avg delay %.4f",
          bw.stats.get("noc.req.avg_queue_delay"));
  }
  // 3
  {
    uint64_t total = 0;
    for (FakeBank* b : rt.banks) {
      CHECK(!b->wrong_bank, "bank %u got a request for another bank", b->id);
      total += b->arrivals.size();
      // per SM, tags arrive in increasing order
      uint32_t last[4] = {0, 0, 0, 0};
      bool first[4] = {true, true, true, true};
      for (const Arrival& a : b->arrivals) {
        CHECK(first[a.src_sm] || a.tag > last[a.src_sm], "order SM %u bank %u", a.src_sm, b->id);
        first[a.src_sm] = false;
        last[a.src_sm] = a.tag;
        CHECK(a.tag / 1000 == a.src_sm, "sm_id route");
      }
    }
    CHECK(total == 1200, "all delivered %llu", (unsigned long long)total);
    for (FakeSm* s : rt.sms) {
      CHECK(!s->foreign && s->resp_times.size() == 300, "SM %u got %zu responses", s->id, s->resp_times.size());
      for (uint32_t t : s->resp_tags) CHECK(t / 1000 == s->id, "response to the wrong SM");
    }
    CHECK(rt.stats.get("noc.req.packets") == 1200 && rt.stats.get("noc.resp.packets") == 1200, "packets");
    CHECK(rt.pool.live() == 0, "payloads released");
    CHECK(rt.xbar.idle(), "idle");
  }
  // 4
  {
    const FakeSm& s0 = *bp.sms[0];
    CHECK(s0.late_accepts >= 1, "SM0 saw TLM_ACCEPTED");
    CHECK(s0.end_req_times.size() == 5, "all 5 accepted eventually (%zu)", s0.end_req_times.size());
    if (s0.end_req_times.size() == 5) {
      CHECK(s0.end_req_times[0] == 0 && s0.end_req_times[1] == 0, "first two immediately");
      CHECK(s0.end_req_times[2] == 100, "third accepted when bank 0 took the head: %.1f", s0.end_req_times[2]);
    }
    const FakeBank& b0 = *bp.banks[0];
    CHECK(b0.arrivals.size() == 5, "n");
    for (size_t i = 0; i < b0.arrivals.size(); ++i) CHECK(b0.arrivals[i].tag == i, "order under backpressure");
    if (!b0.arrivals.empty()) CHECK(b0.arrivals[0].t == 100, "head taken at 100");
    CHECK(bp.banks[1]->arrivals.size() == 1 && bp.banks[1]->arrivals[0].t == 9, "bank 1 unaffected");
    CHECK(bp.stats.get("noc.req.avg_queue_delay") > 0, "delay accounted");
    CHECK(bp.xbar.idle(), "idle: %s", bp.xbar.debug_state().c_str());
  }
  // 5
  {
    const FakeSm& s = *rb.sms[0];
    CHECK(s.resp_tags == std::vector<uint32_t>({0, 1, 2}), "responses in order");
    CHECK(!rb.banks[0]->end_resp_times.empty(), "bank saw END_RESP from the xbar (response backpressure)");
    for (size_t i = 1; i < s.resp_times.size(); ++i)
      CHECK(s.resp_times[i] >= s.resp_times[i - 1] + 20, "SM's late END_RESP spaces responses");
    CHECK(rb.pool.live() == 0, "payloads released");
    CHECK(rb.xbar.idle(), "idle");
  }
  return report();
}
