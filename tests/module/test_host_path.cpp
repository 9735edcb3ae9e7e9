// Module test of a memory-side policy reaching host memory over a link (models/host/host_path.h): the
// MemSide shell hosts a toy policy in this file over two devices -- device 0 a MemCtrl (the HBM2
// channel of hbm2_channel.h), device 1 the host path (a Link to a HostMem), added as the platform adds it (add_host_device: the last
// device, every rank of kind AMAP_MEM_HOST) -- and the policy
//  - finds the host device by its kind and places physical lines from 1 MiB up there (host address =
//    physical address - 1 MiB), the rest on device 0;
//  - serves L2 reads and a write of host lines through the link: the data are the host's (initial
//    data written through the memory side's back door), the response names the memory kind (host),
//    the route through the link (which has several ports, so it pushes a hop) is empty again at the
//    L2, and the timing is hand-computed below;
//  - hears the host's feedback in complete(): device 1, kind host, the host's service time;
//  - moves a 4 KiB page from the host into device 0 with two transfers of its own (class page_in: a
//    read of the host, then a write of device 0), timed through the link's packets;
//  - asks the host device's utilisation (env.dev_util): the busiest of the link's directions and the
//    host memory's data path.
//
// Host path: link 16 GB/s each way (16 B per ns), latency 10 ns, 16 B header, 16 B flits, 128 B per
// packet; host memory 32 GB/s (a 128 B line 4 ns, 4 KiB 128 ns), latency 100 ns.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "common/stats.h"
#include "host/host_path.h"
#include "hbm2_channel.h"
#include "memctrl/mem_ctrl.h"
#include "memside/mem_side.h"
#include "tlm_harness.h"

using namespace strata;
using strata_test::init_byte;
using strata_test::now_ns;
using strata_test::TestInitiator;
using tlm::tlm_generic_payload;

namespace {

constexpr uint64_t kHostBase = 1 << 20;  // physical lines from here live in host memory
constexpr uint64_t kPageHost = 0x1000;   // host address of the page moved in
constexpr uint64_t kPageDev = 0x8000;    // its place on device 0

// ---------------------------------------------------------------- toy policy

struct Seen {
  uint64_t pa;
  uint32_t dev;
  uint8_t kind;
  uint32_t latency_ps;
};
struct Toy {
  memside_env env;
  uint32_t host;  // the host device's index
  bool woke_asked;
  double page_read_ns, page_written_ns;
  uint32_t util_at_read;
  unsigned char page[4096];
};
Toy* g_toy = nullptr;
std::vector<Seen> g_seen;

int toy_init(void* st, const memside_cfg* cfg, const memside_env* env, char* err, size_t errlen) {
  Toy* t = static_cast<Toy*>(st);
  t->env = *env;
  t->host = cfg->ndevs;
  for (uint32_t d = 0; d < cfg->ndevs; ++d)
    if (cfg->rank_kind[d][0] == AMAP_MEM_HOST) t->host = d;
  if (t->host == cfg->ndevs) {
    std::snprintf(err, errlen, "no host device");
    return -1;
  }
  g_toy = t;
  return 0;
}
void toy_locate(const void* st, uint64_t pa, memside_target* out) {
  const Toy* t = static_cast<const Toy*>(st);
  std::memset(out, 0, sizeof *out);
  if (pa >= kHostBase) {
    out->dev = t->host;
    out->addr = pa - kHostBase;
    out->kind = AMAP_MEM_HOST;
  } else {
    out->dev = 0;
    out->addr = pa;
    out->kind = AMAP_MEM_DRAM;
  }
}
int toy_route(void* st, const memside_req* rq, uint32_t*, memside_target* out) {
  Toy* t = static_cast<Toy*>(st);
  toy_locate(st, rq->pa, out);
  if (!t->woke_asked) {  // the page move at 1000 ns
    t->woke_asked = true;
    CHECK(t->env.wake(t->env.ctx, 1000000, 1) == 0, "wake-up");
  }
  return MEMSIDE_GO;
}
void toy_complete(void*, const memside_req* rq, const memside_target* t) {
  g_seen.push_back(Seen{rq->pa, t->dev, t->kind, t->latency_ps});
}
void toy_wake(void* st, uint64_t, uint64_t tag) {
  Toy* t = static_cast<Toy*>(st);
  if (tag != 1) return;
  const memside_xfer x{t->host, kPageHost, 4096, 0, MEMSIDE_PAGE_IN, t->page, 10};  // read the host's page
  CHECK(t->env.issue(t->env.ctx, &x) == 0, "page read");
}
void toy_done(void* st, uint64_t tag) {
  Toy* t = static_cast<Toy*>(st);
  if (tag == 10) {  // the page is here: write it to device 0
    t->page_read_ns = now_ns();
    t->util_at_read = t->env.dev_util(t->env.ctx, t->host, 1000000);
    const memside_xfer x{0, kPageDev, 4096, 1, MEMSIDE_PAGE_IN, t->page, 11};
    CHECK(t->env.issue(t->env.ctx, &x) == 0, "page write");
  } else if (tag == 11) {
    t->page_written_ns = now_ns();
  }
}

const memside_ops kToy = [] {
  memside_ops o = toy_ops<Toy>("toy_host", "test policy: host lines over a link, a page moved in", toy_init,
                               toy_locate, toy_route, toy_complete, toy_wake);
  o.done = toy_done;
  return o;
}();

// ------------------------------------------------------------------ the L2

uint8_t wbyte(uint64_t a) { return static_cast<uint8_t>(a * 7 + 3); }  // bytes the write puts

struct L2 : TestInitiator<L2> {
  L2(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<L2>(n, p) {}
  struct Op {
    double at_ns;
    uint64_t pa;
    bool write;
  };
  struct Got {
    uint64_t pa;
    double t;
    MemType kind;
    unsigned nhops;
    std::vector<uint8_t> data;
  };
  std::vector<Op> ops;
  std::vector<Got> got;
  void run() {
    for (const Op& o : ops) {
      wait_until_ns(o.at_ns);
      tlm_generic_payload* gp = pool.alloc();
      gp->set_command(o.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_address(o.pa);
      GpuExt& e = GpuExt::get(*gp);
      e.sector_mask = 0xf;
      e.cls = o.write ? ReqClass::Writeback : ReqClass::Fill;
      if (o.write) {
        e.set_bytes(0, kLineBytes);
        for (unsigned b = 0; b < kLineBytes; ++b) gp->get_data_ptr()[b] = wbyte(o.pa + b);
      }
      begin_req(*gp);
    }
  }
  double on_response(tlm_generic_payload& gp) {
    const GpuExt& e = GpuExt::get(gp);
    got.push_back(Got{gp.get_address(), now_ns(), e.mem_type, e.nhops,
                      std::vector<uint8_t>(gp.get_data_ptr(), gp.get_data_ptr() + kLineBytes)});
    return -1;
  }
};

const L2::Got* got_at(const L2& l2, uint64_t pa, bool second = false) {
  for (const L2::Got& g : l2.got)
    if (g.pa == pa) {
      if (!second) return &g;
      second = false;
    }
  return nullptr;
}

}  // namespace

int sc_main(int, char*[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  Hbm2Channel ch;
  MemCtrl& mc = ch.mc;
  StatsRegistry& stats = ch.stats;

  HostPathCfg hc;
  hc.link.req.bytes_per_s = 16000000000ull;
  hc.link.req.latency_ps = 10000;
  hc.link.req.header_bytes = 16;
  hc.link.req.flit_bytes = 16;
  hc.link.req.max_payload_bytes = 128;
  hc.link.req.window_ps = 1600000;
  hc.link.resp = hc.link.req;
  hc.link.queue = 8;
  hc.mem.capacity_bytes = 1 << 20;
  hc.mem.bytes_per_s = 32000000000ull;
  hc.mem.latency_ps = 100000;
  hc.mem.queue = 8;
  hc.mem.window_ps = 1600000;
  HostPath host(hc, stats);

  // Device 0 the channel, device 1 the host path.
  MemSide side("side", &kToy, ch.one_device_and_host(hc.mem.capacity_bytes), 1, ch.pool, stats);
  ch.serve(side);
  side.connect(host.tsock(), host.contents(), &host);
  MemSide::register_totals(stats, {&side});
  L2 l2("l2", ch.pool);
  l2.isock.bind(side.tsock);
  CHECK(g_toy != nullptr && g_toy->host == 1, "the policy found the host device");
  if (!g_toy) return strata_test::report();

  // Initial data through the memory side's back door: the host's page and two host lines.
  {
    std::vector<unsigned char> b(4096);
    for (unsigned k = 0; k < 4096; ++k) b[k] = init_byte(kHostBase + kPageHost + k);
    side.write_functional(kHostBase + kPageHost, b.data(), b.size());
    for (unsigned k = 0; k < 256; ++k) b[k] = init_byte(kHostBase + k);
    side.write_functional(kHostBase, b.data(), 256);
  }
  const uint64_t H0 = kHostBase, H1 = kHostBase + 0x80;
  l2.ops = {{0, H0, false}, {200, H1, true}, {400, H1, false}};

  sc_core::sc_start();

  // 1. Read of H0 at 0: request 16 B on the link (1 ns + 10) -> host at 11; 128 B at 32 GB/s (4 ns) +
  //    100 -> answered at 115; response 144 B (9 ns + 10) -> the L2 at 134. The host's own service
  //    time: 104 ns.
  const L2::Got* r0 = got_at(l2, H0);
  CHECK(r0 && r0->t == 134, "H0 read answered at %g ns, expected 134", r0 ? r0->t : -1.0);
  if (r0) {
    bool ok = true;
    for (unsigned b = 0; b < kLineBytes; ++b) ok &= r0->data[b] == init_byte(H0 + b);
    CHECK(ok, "H0 read: not the host's initial data");
    CHECK(r0->kind == MemType::Host && r0->nhops == 0, "H0 read: kind %u, %u hops left",
          static_cast<unsigned>(r0->kind), r0->nhops);
  }
  // 2. Write of H1 at 200: request 128 B data (144 B, 9 ns + 10) -> host at 219; 4 ns + 100 -> 323;
  //    acknowledgement 16 B (1 ns + 10) -> 334. 3. Read of H1 at 400: at 534, the written bytes.
  const L2::Got* w1 = got_at(l2, H1);
  const L2::Got* r1 = got_at(l2, H1, true);
  CHECK(w1 && w1->t == 334, "H1 write acknowledged at %g ns, expected 334", w1 ? w1->t : -1.0);
  CHECK(r1 && r1->t == 534, "H1 read answered at %g ns, expected 534", r1 ? r1->t : -1.0);
  if (r1) {
    bool ok = true;
    for (unsigned b = 0; b < kLineBytes; ++b) ok &= r1->data[b] == wbyte(H1 + b);
    CHECK(ok, "H1 read: not the written bytes");
  }
  // Feedback: device 1, kind host, the host's 104 ns (read, write and read alike: 4 ns + 100 each).
  CHECK(g_seen.size() == 3, "complete() %zu times, expected 3", g_seen.size());
  for (const Seen& s : g_seen)
    CHECK(s.dev == 1 && s.kind == AMAP_MEM_HOST && s.latency_ps == 104000,
          "complete(pa %llx): device %u kind %u latency %u ps, expected 1, host, 104000",
          static_cast<unsigned long long>(s.pa), s.dev, s.kind, s.latency_ps);

  // 4. The page: its read leaves at 1000 (16 B, 1 ns + 10) -> host at 1011; 4 KiB at 32 GB/s (128 ns)
  //    + 100 -> 1239; 32 packets of 128 B + 16 B header (4608 B, 288 ns) + 10 -> here at 1537. Then
  //    written to device 0, where the bytes land.
  CHECK(g_toy->page_read_ns == 1537, "page read done at %g ns, expected 1537", g_toy->page_read_ns);
  CHECK(g_toy->page_written_ns > g_toy->page_read_ns, "page written at %g ns", g_toy->page_written_ns);
  {
    std::vector<unsigned char> b(4096);
    bstore_read(&ch.mem, kPageDev, b.data(), b.size());
    bool ok = true;
    for (unsigned k = 0; k < 4096; ++k) ok &= b[k] == init_byte(kHostBase + kPageHost + k);
    CHECK(ok, "the page on device 0 is not the host's");
  }
  // Utilisation at 1537 ns: the response direction was busy 9 + 1 + 9 + 288 = 307 ns since 0 (the
  // busy monitor's 1.6 us window reaches back to 0), more than the request direction (1 + 9 + 1 + 1
  // = 12 ns) or the host memory's data path (4 KiB in 128 ns within its window).
  {
    const double want = 307.0 / 1537.0 * 65536.0;
    CHECK(std::abs(g_toy->util_at_read - want) < 2, "host utilisation %u / 65536, expected %.0f",
          g_toy->util_at_read, want);
  }
  // Bytes: requests carried the write's 128 B, responses the three lines' and the page's data (the
  // page's write to device 0 does not cross the link).
  CHECK(stats.get("link.host_link.req.data_bytes") == 128, "link req data %g",
        stats.get("link.host_link.req.data_bytes"));
  CHECK(stats.get("link.host_link.resp.data_bytes") == 128 + 128 + 4096, "link resp data %g",
        stats.get("link.host_link.resp.data_bytes"));
  CHECK(stats.get("link.host_link.resp.packets") == 1 + 1 + 1 + 32, "link resp packets %g",
        stats.get("link.host_link.resp.packets"));
  CHECK(stats.get("hostmem.host.read_bytes") == 128 + 128 + 4096 && stats.get("hostmem.host.write_bytes") == 128,
        "host bytes %g / %g", stats.get("hostmem.host.read_bytes"), stats.get("hostmem.host.write_bytes"));
  CHECK(stats.get("memside.own_read_bytes") == 4096 && stats.get("memside.own_write_bytes") == 4096,
        "own bytes %g / %g", stats.get("memside.own_read_bytes"), stats.get("memside.own_write_bytes"));
  CHECK(side.idle() && host.idle() && mc.idle(), "idle at the end");
  return strata_test::report();
}
