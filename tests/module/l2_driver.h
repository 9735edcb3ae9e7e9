// Crossbar-side driver and rig shared by the L2 bank module tests
// (test_l2_bank.cpp, test_l2_policies.cpp): a scripted initiator that issues
// line reads/writes with sector masks and coalescing counts, records every
// response (time, data, order), and a rig binding driver -> L2Bank -> LineMem.
#pragma once
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "l2/l2_bank.h"
#include "tlm_harness.h"

namespace strata_test {

struct L2Rec {
  tlm::tlm_generic_payload* gp = nullptr;
  bool write = false;
  uint64_t addr = 0;
  uint8_t mask = 0;
  double t_issue = -1, t_resp = -1;
  unsigned char data[strata::kLineBytes];    // response data (reads)
  unsigned char expect[strata::kLineBytes];  // expected data (reads, random tests)
};

struct L2Driver : TestInitiator<L2Driver> {
  std::vector<L2Rec> recs;
  std::vector<int> order;     // response order (record ids)
  std::vector<uint8_t> ref;   // reference memory image for random traffic with checking (else empty)
  bool slow_end_resp = false;  // sometimes answer BEGIN_RESP with TLM_ACCEPTED + later END_RESP
  std::mt19937 rng;

  L2Driver(sc_core::sc_module_name n, strata::PayloadPool& p, unsigned seed = 11) : TestInitiator(n, p), rng(seed) {
    recs.reserve(100000);
  }
  // Issue a read of `mask` sectors (blocks only for backpressure). Returns the record id.
  int read(uint64_t line, uint8_t mask, uint8_t ea = 4) {
    tlm::tlm_generic_payload* gp = pool.alloc();
    gp->set_address(line);
    gp->set_command(tlm::TLM_READ_COMMAND);
    strata::GpuExt::get(*gp).sector_mask = mask;
    strata::GpuExt::get(*gp).ea_count = ea;
    return issue(gp, false, line, mask);
  }
  // Issue a write of `len` bytes at line offset `off` (ea 0 = unknown).
  int write(uint64_t line, unsigned off, unsigned len, const unsigned char* bytes, uint8_t ea = 0) {
    tlm::tlm_generic_payload* gp = pool.alloc();
    gp->set_address(line);
    gp->set_command(tlm::TLM_WRITE_COMMAND);
    strata::GpuExt& e = strata::GpuExt::get(*gp);
    e.set_bytes(off, len);
    e.ea_count = ea;
    std::memcpy(gp->get_data_ptr() + off, bytes, len);
    uint8_t m = 0;
    for (unsigned s = off / 32; s <= (off + len - 1) / 32; ++s) m |= static_cast<uint8_t>(1u << s);
    e.sector_mask = m;
    return issue(gp, true, line, m);
  }
  int issue(tlm::tlm_generic_payload* gp, bool wr, uint64_t line, uint8_t mask) {
    wait_end_req();
    const int id = static_cast<int>(recs.size());
    recs.emplace_back();
    L2Rec& r = recs.back();
    r.gp = gp;
    r.write = wr;
    r.addr = line;
    r.mask = mask;
    r.t_issue = now_ns();
    strata::GpuExt::get(*gp).tag = static_cast<uint32_t>(id);
    begin_req(*gp);
    return id;
  }
  double on_response(tlm::tlm_generic_payload& gp) {
    const int id = static_cast<int>(strata::GpuExt::get(gp).tag);
    L2Rec& r = recs[id];
    CHECK(r.t_resp < 0 && r.gp == &gp, "double or foreign response id %d", id);
    r.t_resp = now_ns();
    std::memcpy(r.data, gp.get_data_ptr(), strata::kLineBytes);
    order.push_back(id);
    if (slow_end_resp && (rng() % 3 == 0)) return 1 + rng() % 3;
    return -1;
  }
};

// The memory kinds of a static address map, as a memory side would tell them
// (the module tests have no memory side).
struct AmapKinds : strata::MemKindIf {
  const amap* map;
  explicit AmapKinds(const amap* m) : map(m) {}
  uint8_t kind_of(uint64_t line) const override { return static_cast<uint8_t>(amap_mem_type(map, line)); }
};

// One L2 bank between a driver and a flat line memory.
struct L2Rig {
  std::string policy;
  strata::PayloadPool pool;
  strata::StatsRegistry stats;
  LineMem mem;
  AmapKinds kinds;
  strata::L2Bank bank;
  L2Driver drv;
  L2Rig(const std::string& n, const strata::L2Cfg& cfg, size_t mem_bytes = 1 << 20, const amap* map = nullptr,
        unsigned bank_id = 0, unsigned seed = 11)
      : policy(cfg.policy),
        mem((n + "_mem").c_str(), mem_bytes),
        kinds(map),
        bank((n + "_l2").c_str(), bank_id, cfg.banks, cfg, map ? &kinds : nullptr, pool, stats),
        drv((n + "_drv").c_str(), pool, seed) {
    drv.isock.bind(bank.tsock);
    bank.isock.bind(mem.tsock);
  }
  double st(const char* s) const { return stats.get(std::string("l2.bank0.") + s); }
};

}  // namespace strata_test
