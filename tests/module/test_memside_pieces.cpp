// Module test of requests split into pieces (memside_ops.granule, models/memside/mem_side.h): a toy
// policy in this file places each 64 B half of a 128 B line on its own, hosted by the MemSide shell over
// one MemCtrl (hbm2). Lines of region S keep their halves where the address says; lines of region W
// are stored with their halves swapped in the device line (the lower half at offset 64, the upper at 0),
// so the shell must move a piece's bytes, sector and byte masks. Checked:
//  - a full-line write to W is split into two pieces, each routed on its own (route and complete see the
//    piece's address and sectors only); the device store holds the halves swapped; a full-line read
//    returns the line as written (read data merged at the physical offsets);
//  - a request of one half of a W line (a read of sector 1, a byte-masked write of 4 bytes of sector 0)
//    is routed to the other offset of its device line: its bytes and masks move there and back, and the
//    write changes exactly its 4 bytes in the device store;
//  - a request of one half of an S line keeps its offset: it goes straight to the device (no split);
//  - a piece the policy holds (the upper half of line H, until a wake-up 200 ns later releases it) keeps
//    the L2's answer back until both pieces are done; its other half is answered by the device at once;
//  - memside.split counts the requests split in two; complete() is called once per piece.
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

struct Seen {  // a piece as route() or complete() saw it
  uint64_t pa, addr;
  uint8_t sectors, write;
};
struct Toy {
  memside_env env;
  uint64_t swap_from, swap_to;  // lines of [from, to) have their halves swapped
  uint64_t hold_pa;             // this piece is held until the wake-up releases it
  int held;
  std::vector<Seen>* routed;
  std::vector<Seen>* completed;
};
std::vector<Seen> g_routed, g_completed;
Toy* g_toy = nullptr;
constexpr uint32_t kHoldTicket = 7;

int toy_init(void* st, const memside_cfg*, const memside_env* env, char*, size_t) {
  Toy* t = static_cast<Toy*>(st);
  t->env = *env;
  t->routed = &g_routed;
  t->completed = &g_completed;
  g_toy = t;
  return 0;
}
uint64_t place(const Toy* t, uint64_t pa) {  // the device address of the 64 B half holding pa
  const uint64_t line = pa & ~127ull, half = pa & 64;
  const bool swap = line >= t->swap_from && line < t->swap_to;
  return line + (swap ? 64 - half : half) + (pa & 63);
}
void toy_locate(const void* st, uint64_t pa, memside_target* out) {
  out->dev = 0;
  out->addr = place(static_cast<const Toy*>(st), pa);
  out->kind = AMAP_MEM_DRAM;
  out->mirror = 0;
}
int toy_route(void* st, const memside_req* rq, uint32_t* ticket, memside_target* out) {
  Toy* t = static_cast<Toy*>(st);
  CHECK(rq->pa % 64 == 0, "route: piece address %llx not 64 B-aligned", static_cast<unsigned long long>(rq->pa));
  const unsigned lo = static_cast<unsigned>(rq->pa % 128 / 32);
  CHECK((rq->sectors & ~(3u << lo)) == 0, "route: sectors %x outside the piece at %llx", rq->sectors,
        static_cast<unsigned long long>(rq->pa));
  if (rq->pa == t->hold_pa && !t->held) {
    t->held = 1;
    *ticket = kHoldTicket;
    CHECK(t->env.wake(t->env.ctx, t->env.now_ps(t->env.ctx) + 200000, 1) == 0, "wake");
    return MEMSIDE_HOLD;
  }
  toy_locate(st, rq->pa, out);
  t->routed->push_back(Seen{rq->pa, out->addr, rq->sectors, rq->write});
  return MEMSIDE_GO;
}
void toy_complete(void* st, const memside_req* rq, const memside_target* t) {
  static_cast<Toy*>(st)->completed->push_back(Seen{rq->pa, t->addr, rq->sectors, rq->write});
}
void toy_wake(void* st, uint64_t, uint64_t) {
  Toy* t = static_cast<Toy*>(st);
  t->env.release(t->env.ctx, kHoldTicket);
}
uint32_t toy_granule(const void*) { return 64; }

const memside_ops kToy = [] {
  memside_ops o = toy_ops<Toy>("toy_pieces", "test policy: 64 B pieces, halves swapped in one region", toy_init,
                               toy_locate, toy_route, toy_complete, toy_wake);
  o.granule = toy_granule;
  return o;
}();

// ------------------------------------------------------------------ the L2

struct Req {
  double at_ns;
  uint64_t pa;
  bool write;
  uint8_t sectors;
  unsigned byte_lo, byte_hi;  // a write's bytes [lo, hi) (with the pattern below), 0, 0: its whole sectors
};
struct Resp {
  uint64_t pa;
  double ns;
  unsigned char data[kLineBytes];
};
uint8_t pattern(unsigned i) { return static_cast<uint8_t>(0x40 + i); }

struct L2 : TestInitiator<L2> {
  L2(sc_core::sc_module_name n, PayloadPool& p) : TestInitiator<L2>(n, p) {}
  std::vector<Req> script_;
  std::vector<Resp> resp;
  void run() {
    for (const Req& r : script_) {
      wait_until_ns(r.at_ns);
      tlm_generic_payload* gp = pool.alloc();
      gp->set_command(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_address(r.pa);
      GpuExt& e = GpuExt::get(*gp);
      e.sector_mask = r.sectors;
      e.cls = r.write ? ReqClass::Writeback : ReqClass::Fill;
      if (r.write) {
        for (unsigned i = 0; i < kLineBytes; ++i) gp->get_data_ptr()[i] = r.byte_lo == r.byte_hi ? pattern(i) : 0xaa;
        if (r.byte_lo != r.byte_hi) e.set_bytes(r.byte_lo, r.byte_hi - r.byte_lo);
      }
      begin_req(*gp);
    }
  }
  double on_response(tlm_generic_payload& gp) {
    Resp r{gp.get_address(), strata_test::now_ns(), {}};
    std::memcpy(r.data, gp.get_data_ptr(), kLineBytes);
    resp.push_back(r);
    return -1;
  }
};

}  // namespace

int sc_main(int, char*[]) {
  Hbm2Channel ch;
  const StatsRegistry& stats = ch.stats;
  MemSide side("side", &kToy, ch.one_device(), 1, ch.pool, ch.stats);
  MemSide::register_totals(ch.stats, {&side});
  ch.serve(side);
  L2 l2("l2", ch.pool);
  l2.isock.bind(side.tsock);

  const uint64_t S = dev_line(0, 0, 5, 0);  // halves where the address says
  const uint64_t W = dev_line(1, 1, 7, 0);  // halves swapped
  const uint64_t H = dev_line(2, 2, 9, 0);  // upper half held by the policy for 200 ns
  CHECK(g_toy != nullptr, "policy initialised");
  if (!g_toy) return strata_test::report();
  g_toy->swap_from = W;
  g_toy->swap_to = W + 128;
  g_toy->hold_pa = H + 64;
  l2.script_ = {
      {0, W, true, 0xf, 0, 0},      // 0: full line to W: two pieces
      {100, W, false, 0xf, 0, 0},   // 1: read it back (two pieces)
      {200, W, false, 0x2, 0, 0},   // 2: sector 1 only: one piece at the other offset of the device line
      {300, W, true, 0x1, 4, 8},    // 3: bytes 4..7 of sector 0: one piece, its byte mask moved
      {400, W, false, 0xf, 0, 0},   // 4: the line: bytes 4..7 changed
      {500, S, false, 0x8, 0, 0},   // 5: a half of an S line: straight to the device
      {600, H, false, 0xf, 0, 0},   // 6: two pieces, the upper held 200 ns
  };

  sc_core::sc_start();

  CHECK(l2.resp.size() == l2.script_.size(), "%zu answers for %zu requests", l2.resp.size(), l2.script_.size());
  if (l2.resp.size() != l2.script_.size()) return strata_test::report();
  // The device store: W's halves swapped, bytes 4..7 of the lower half (at device offset 64) written.
  unsigned char dev[kLineBytes];
  bstore_read(&ch.mem, W, dev, kLineBytes);
  for (unsigned i = 0; i < kLineBytes; ++i) {
    const unsigned phys = (i + 64) % kLineBytes;  // the physical byte at device offset i
    const uint8_t want = phys >= 4 && phys < 8 ? 0xaa : pattern(phys);
    CHECK(dev[i] == want, "device byte %u of W: %02x, expected %02x (physical byte %u)", i, dev[i], want, phys);
  }
  // Answers, in the order sent (each is answered before the next leaves, H last).
  auto data_ok = [](const Resp& r, unsigned lo, unsigned hi, bool written) {
    for (unsigned i = lo; i < hi; ++i) {
      const uint8_t want = written && i >= 4 && i < 8 ? 0xaa : pattern(i);
      if (r.data[i] != want) return false;
    }
    return true;
  };
  CHECK(l2.resp[1].pa == W && data_ok(l2.resp[1], 0, 128, false), "read of W: the line as written");
  CHECK(l2.resp[2].pa == W && data_ok(l2.resp[2], 32, 64, false), "read of W's sector 1: its bytes at 32..63");
  CHECK(l2.resp[4].pa == W && data_ok(l2.resp[4], 0, 128, true), "read of W after the 4-byte write");
  // Pieces as the policy saw them: route and complete once per piece, with the piece's address and sectors.
  const std::vector<Seen> want_routed = {
      {W, W + 64, 0x3, 1}, {W + 64, W, 0xc, 1},   // 0
      {W, W + 64, 0x3, 0}, {W + 64, W, 0xc, 0},   // 1
      {W, W + 64, 0x2, 0},                        // 2
      {W, W + 64, 0x1, 1},                        // 3
      {W, W + 64, 0x3, 0}, {W + 64, W, 0xc, 0},   // 4
      {S + 64, S + 64, 0x8, 0},                   // 5
      {H, H, 0x3, 0}, {H + 64, H + 64, 0xc, 0},   // 6 (the upper once released)
  };
  CHECK(g_routed.size() == want_routed.size(), "%zu pieces routed, expected %zu", g_routed.size(), want_routed.size());
  for (size_t i = 0; i < g_routed.size() && i < want_routed.size(); ++i) {
    const Seen &a = g_routed[i], &b = want_routed[i];
    CHECK(a.pa == b.pa && a.addr == b.addr && a.sectors == b.sectors && a.write == b.write,
          "routed piece %zu: pa %llx addr %llx sectors %x write %u", i, static_cast<unsigned long long>(a.pa),
          static_cast<unsigned long long>(a.addr), a.sectors, a.write);
  }
  CHECK(g_completed.size() == g_routed.size(), "complete() %zu times for %zu pieces", g_completed.size(),
        g_routed.size());
  for (const Seen& a : g_routed) {
    bool found = false;
    for (const Seen& b : g_completed) found |= a.pa == b.pa && a.addr == b.addr && a.sectors == b.sectors;
    CHECK(found, "no complete() for the piece at %llx", static_cast<unsigned long long>(a.pa));
  }
  // The held piece: H is answered once its upper half is released (200 ns after it was held) and done.
  CHECK(l2.resp[6].pa == H && l2.resp[6].ns > 600 + 200, "H answered at %g ns, after the release at 800 ns",
        l2.resp[6].ns);
  CHECK(stats.get("memside.split") == 4, "memside.split %g, expected 4", stats.get("memside.split"));
  CHECK(stats.get("memside.held") == 1, "memside.held %g, expected 1 (H's upper half)", stats.get("memside.held"));
  CHECK(stats.get("mem.class.demand.reads") + stats.get("mem.class.writeback.writes") == 11,
        "device requests: %g reads + %g writes, expected 11 pieces", stats.get("mem.class.demand.reads"),
        stats.get("mem.class.writeback.writes"));
  CHECK(side.idle() && ch.mc.idle(), "idle at the end");
  return strata_test::report();
}
