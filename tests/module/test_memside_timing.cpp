// Module test of time and device feedback for memory-side policies (models/ref/memside/memside.h "Time",
// models/memside/mem_side.h): a toy policy in this file, hosted by the MemSide shell over one MemCtrl
// (hbm2, 1 ns cycle, tRCD 14, tRP 14, CL 14, tBURST 1; refresh off, open page), maps physical line
// addresses one to one onto device addresses and
//  - asks for wake-ups out of order (at 300, 100, 200, 200 ns and one at "now") and must be woken in
//    time order, same-time ones in the order asked, with now_ps equal to the time asked for; two more
//    (150 ns, 5 us) are dropped with env.unwake at 100 ns: they never come, and the run ends before 5 us;
//  - records the device's feedback in complete(): row outcome and service latency, hand-computed:
//    a line read (4 sectors: RDs tCCD_L = 2 apart) of an idle bank is a miss (ACT, first RD tRCD
//    later, last data CL + tBURST after the last RD: 14 + 6 + 15 = 35 ns), of the open row a hit
//    (21 ns), of another row of an open bank a conflict (PRE, ACT tRP later: 49 ns);
//  - delays one access by 20 ns in route (delay_ps): it reaches the device 20 ns later (answered
//    20 + 35 ns after it was sent; the device's latency is still 35 ns), and a later access to the
//    same device sent meanwhile is not served before it (order per device);
//  - issues one transfer of its own (class migration): the controller counts it in
//    mem.class.migration.*, the L2's accesses in mem.class.demand.*;
//  - asks the device's data-bus utilisation (env.dev_util): the busy cycles over the elapsed cycles.
#include <cmath>
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
#include "memside/mem_side.h"
#include "tlm_harness.h"

using namespace strata;
using strata_test::TestInitiator;
using tlm::tlm_generic_payload;

namespace {


// ---------------------------------------------------------------- toy policy

struct Feedback {
  uint64_t pa;
  uint8_t row;
  uint32_t latency_ps, dev;
};
struct Toy {
  memside_env env;
  uint64_t delay_pa;  // the access delayed by 20 ns in route
  std::vector<std::pair<uint64_t, uint64_t>>* wakes;  // (now_ps, tag)
  std::vector<Feedback>* fb;
  int routed, own_done;
  unsigned char buf[256];
};
std::vector<std::pair<uint64_t, uint64_t>> g_wakes;
std::vector<Feedback> g_fb;
Toy* g_toy = nullptr;

int toy_init(void* st, const memside_cfg*, const memside_env* env, char*, size_t) {
  Toy* t = static_cast<Toy*>(st);
  t->env = *env;
  t->wakes = &g_wakes;
  t->fb = &g_fb;
  g_toy = t;
  return 0;
}
void toy_locate(const void*, uint64_t pa, memside_target* out) {
  out->dev = 0;
  out->addr = pa;
  out->kind = AMAP_MEM_DRAM;
  out->mirror = 0;
}
int toy_route(void* st, const memside_req* rq, uint32_t*, memside_target* out) {
  Toy* t = static_cast<Toy*>(st);
  toy_locate(st, rq->pa, out);
  if (t->routed++ == 0) {  // the first access: wake-ups out of order, one "now"
    const uint64_t now = t->env.now_ps(t->env.ctx);
    CHECK(t->env.wake(t->env.ctx, 300000, 3) == 0, "wake 300");
    CHECK(t->env.wake(t->env.ctx, 100000, 1) == 0, "wake 100");
    CHECK(t->env.wake(t->env.ctx, 200000, 21) == 0, "wake 200 a");
    CHECK(t->env.wake(t->env.ctx, 200000, 22) == 0, "wake 200 b");
    CHECK(t->env.wake(t->env.ctx, now, 0) == 0, "wake now");
    CHECK(t->env.wake(t->env.ctx, 150000, 9) == 0, "wake 150 (dropped at 100)");
    CHECK(t->env.wake(t->env.ctx, 5000000, 9) == 0, "wake 5000 (dropped at 100)");
    CHECK(t->wakes->empty(), "no wake-up from inside the call");
  }
  if (rq->pa == t->delay_pa) out->delay_ps = 20000;
  return MEMSIDE_GO;
}
void toy_complete(void* st, const memside_req* rq, const memside_target* t) {
  static_cast<Toy*>(st)->fb->push_back(Feedback{rq->pa, t->row, t->latency_ps, t->dev});
}
void toy_wake(void* st, uint64_t now_ps, uint64_t tag) {
  Toy* t = static_cast<Toy*>(st);
  t->wakes->emplace_back(now_ps, tag);
  if (tag == 1) CHECK(t->env.unwake(t->env.ctx, 9) == 2 && t->env.unwake(t->env.ctx, 9) == 0, "unwake tag 9");
  if (tag == 3) {  // at 300 ns: a migration-class read of two lines of the policy's own
    memside_xfer x{0, dev_line(3, 3, 9, 0), 256, 0, MEMSIDE_MIGRATION, t->buf, 77};
    CHECK(t->env.issue(t->env.ctx, &x) == 0, "own transfer");
  }
}
void toy_done(void* st, uint64_t tag) {
  CHECK(tag == 77, "own transfer tag %llu", static_cast<unsigned long long>(tag));
  ++static_cast<Toy*>(st)->own_done;
}

const memside_ops kToy = [] {
  memside_ops o = toy_ops<Toy>("toy_timer", "test policy: wake-ups, route delay, device feedback", toy_init,
                               toy_locate, toy_route, toy_complete, toy_wake);
  o.done = toy_done;
  return o;
}();

// ------------------------------------------------------------------ the L2

struct Reader : TestInitiator<Reader> {
  Reader(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<Reader>(n, p) {}
  struct R {
    double at_ns;
    uint64_t pa;
  };
  std::vector<R> script_;
  std::vector<std::pair<uint64_t, double>> resp;  // (pa, ns)
  void run() {
    for (const R& r : script_) {
      wait_until_ns(r.at_ns);
      tlm_generic_payload* gp = pool.alloc();
      gp->set_command(tlm::TLM_READ_COMMAND);
      gp->set_address(r.pa);
      GpuExt& e = GpuExt::get(*gp);
      e.sector_mask = 0xf;
      e.cls = ReqClass::Fill;  // an L2 miss
      begin_req(*gp);
    }
  }
  double on_response(tlm_generic_payload& gp) {
    resp.emplace_back(gp.get_address(), strata_test::now_ns());
    return -1;
  }
};

double resp_ns(const Reader& r, uint64_t pa) {
  for (const auto& x : r.resp)
    if (x.first == pa) return x.second;
  return -1;
}
const Feedback* fb_of(uint64_t pa) {
  for (const Feedback& f : g_fb)
    if (f.pa == pa) return &f;
  return nullptr;
}

}  // namespace

int sc_main(int, char*[]) {
  Hbm2Channel ch;
  const StatsRegistry& stats = ch.stats;
  MemSide side("side", &kToy, ch.one_device(), 1, ch.pool, ch.stats);
  ch.serve(side);
  Reader rd("rd", ch.pool);
  rd.isock.bind(side.tsock);

  const uint64_t A = dev_line(0, 0, 5, 0), A2 = dev_line(0, 0, 5, 1);  // bank (0,0) row 5
  const uint64_t C = dev_line(1, 2, 7, 0);                              // bank (1,2): delayed 20 ns
  const uint64_t D = dev_line(1, 2, 7, 1);                              // same bank and row, sent 1 ns after C
  const uint64_t X = dev_line(0, 0, 6, 0);                              // bank (0,0) row 6: conflict
  CHECK(g_toy != nullptr, "policy initialised");
  if (!g_toy) return strata_test::report();
  g_toy->delay_pa = C;
  rd.script_ = {{0, A}, {50, A2}, {400, C}, {401, D}, {600, X}};

  sc_core::sc_start();

  // Wake-ups: "now" first (next delta cycle at 0), then by time, same-time in the order asked; the two of tag 9
  // dropped at 100 ns never come, and the one at 5 us does not keep the simulation going.
  CHECK(sc_core::sc_time_stamp() < sc_core::sc_time(1000, sc_core::SC_NS), "run ended at %s, before the dropped 5 us",
        sc_core::sc_time_stamp().to_string().c_str());
  const std::vector<std::pair<uint64_t, uint64_t>> want_w = {{0, 0}, {100000, 1}, {200000, 21}, {200000, 22}, {300000, 3}};
  CHECK(g_wakes == want_w, "wake-ups: %zu, order or times differ", g_wakes.size());
  for (const auto& w : g_wakes)
    std::printf("wake at %llu ps tag %llu\n", static_cast<unsigned long long>(w.first),
                static_cast<unsigned long long>(w.second));

  // Feedback: row outcome and service latency (ns from arrival at the controller).
  struct Want {
    uint64_t pa;
    uint8_t row;
    double lat_ns, sent_ns, route_ns;
    const char* what;
  } want[] = {{A, MEMSIDE_ROW_MISS, 35, 0, 0, "idle bank"},
              {A2, MEMSIDE_ROW_HIT, 21, 50, 0, "open row"},
              {C, MEMSIDE_ROW_MISS, 35, 400, 20, "delayed by route"},
              {X, MEMSIDE_ROW_CONFLICT, 49, 600, 0, "other row"}};
  for (const Want& w : want) {
    const Feedback* f = fb_of(w.pa);
    CHECK(f != nullptr, "%s: no complete()", w.what);
    if (!f) continue;
    CHECK(f->row == w.row, "%s: row outcome %u, expected %u", w.what, f->row, w.row);
    CHECK(f->latency_ps == static_cast<uint32_t>(w.lat_ns * 1000), "%s: latency %u ps, expected %g ns", w.what,
          f->latency_ps, w.lat_ns);
    CHECK(f->dev == 0, "%s: device %u", w.what, f->dev);
    const double got = resp_ns(rd, w.pa), exp = w.sent_ns + w.route_ns + w.lat_ns;
    CHECK(got == exp, "%s: answered at %g ns, expected %g", w.what, got, exp);
  }
  // D (same row as C, sent 1 ns after C while C waits out its route delay): served after C, a row hit.
  {
    const Feedback* f = fb_of(D);
    CHECK(f && f->row == MEMSIDE_ROW_HIT, "D after the delayed C: a row hit");
    CHECK(resp_ns(rd, D) > resp_ns(rd, C), "D answered at %g ns, after C (%g)", resp_ns(rd, D), resp_ns(rd, C));
  }

  // Classes: five L2 reads (demand), one own migration read of 256 B (one request, two lines at the device).
  CHECK(g_toy->own_done == 1, "own transfer done %d", g_toy->own_done);
  CHECK(stats.get("mem.class.demand.reads") == 5, "demand reads %g", stats.get("mem.class.demand.reads"));
  CHECK(stats.get("mem.class.demand.bytes") == 5 * 128, "demand bytes %g", stats.get("mem.class.demand.bytes"));
  CHECK(stats.get("mem.class.migration.reads") == 1, "migration reads %g (one request of two lines)",
        stats.get("mem.class.migration.reads"));
  CHECK(stats.get("mem.class.migration.bytes") == 256, "migration bytes %g", stats.get("mem.class.migration.bytes"));
  CHECK(stats.get("mem.class.writeback.writes") == 0 && stats.get("mem.class.fill.reads") == 0, "no other classes");
  // D arrives with C (420 ns: its order behind the delayed C) and is answered at resp(D).
  const double dlat = (35 + 21 + 35 + 49 + (resp_ns(rd, D) - 420)) / 5;
  CHECK(std::abs(stats.get("mem.class.demand.avg_latency_ns") - dlat) < 1e-9, "demand avg latency %g ns, expected %g",
        stats.get("mem.class.demand.avg_latency_ns"), dlat);
  CHECK(stats.get("mem.reads") == 7, "mem.reads %g (5 demand + 2 own lines)", stats.get("mem.reads"));

  // Utilisation: busy data-bus cycles / elapsed cycles since the controller's first snapshot (cycle 0), asked
  // over a window longer than the run.
  {
    const mc_stats& st = ch.mc.counters();
    const uint64_t now = ch.mc.cycle_of(sc_core::sc_time_stamp());
    const uint32_t want_u = static_cast<uint32_t>((st.bus_busy << 16) / now);
    const uint32_t got_u = g_toy->env.dev_util(g_toy->env.ctx, 0, 1000000000ull);
    CHECK(got_u == want_u && got_u > 0, "utilisation %u / 65536, expected %u", got_u, want_u);
    std::printf("bus busy %llu of %llu cycles: utilisation %u / 65536\n", static_cast<unsigned long long>(st.bus_busy),
                static_cast<unsigned long long>(now), got_u);
  }
  CHECK(side.idle() && ch.mc.idle(), "idle at the end");
  return strata_test::report();
}
