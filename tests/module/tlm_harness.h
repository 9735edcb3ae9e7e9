// Shared pieces of the SystemC/TLM module tests (tests/module/test_*.cpp): the CHECK macro and
// the pass/fail summary, time helpers, and test-side halves of the AT 4-phase base protocol:
//  - TestInitiator<D>: a scripted initiator (one BEGIN_REQ outstanding: a TLM_ACCEPTED return
//    holds the next request until END_REQ, or BEGIN_RESP which implies it); responses are handed
//    to D, which completes them at once or answers END_RESP later (response backpressure);
//  - TestTarget<D>: a target that takes a request at once or holds END_REQ for a while
//    (request backpressure) and sends responses in order, waiting for END_RESP when the
//    initiator answers BEGIN_RESP with TLM_ACCEPTED;
//  - LineMem: a functional line memory on TestTarget (sector reads, byte-masked writes,
//    fixed latency + seeded jitter, optional random backpressure, request log).
// D derives from the template (CRTP) and hides the hooks it needs; hooks are documented in place.
// A test with its own sc_main includes this once (the fail counter is one per program).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "common/payload.h"

namespace strata_test {

inline int g_fail = 0;

// Prints the summary line and returns the exit code of sc_main.
inline int report() {
  std::printf("%s (%d failures)\n", g_fail ? "FAILED" : "PASSED", g_fail);
  return g_fail ? 1 : 0;
}

inline double now_ns() { return sc_core::sc_time_stamp().to_double() / 1000.0; }

// Initial content of test memories: a byte per address that differs between neighbours.
inline uint8_t init_byte(uint64_t a) { return static_cast<uint8_t>((a * 2654435761u) >> 13); }

}  // namespace strata_test

// CHECK(cond, fmt, ...): counts and reports a failure, goes on (every check of a run is listed).
#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      ++strata_test::g_fail;                                      \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                   \
      std::printf("\n");                                          \
    }                                                             \
  } while (0)

namespace strata_test {

using tlm::tlm_generic_payload;

// A driver's on_response over its request list (each R has gp, responses, resp_ns): counts the
// response of gp and stamps its time; -1: complete at once.
template <class R>
double record_response(std::vector<R>& reqs, const tlm_generic_payload& gp) {
  for (R& r : reqs)
    if (r.gp == &gp) {
      ++r.responses;
      r.resp_ns = now_ns();
    }
  return -1;
}

template <class D>
struct TestInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TestInitiator> isock;
  strata::PayloadPool& pool;
  std::function<void(D&)> script;  // body of the thread unless D defines run()
  bool waiting = false;            // the last BEGIN_REQ got TLM_ACCEPTED, END_REQ still due
  tlm_generic_payload* pending = nullptr;
  sc_core::sc_event end_req_ev;
  unsigned late_accepts = 0;       // BEGIN_REQs answered TLM_ACCEPTED (request backpressure seen)
  tlm_utils::peq_with_get<tlm_generic_payload> endresp_peq;

  SC_HAS_PROCESS(TestInitiator);
  TestInitiator(sc_core::sc_module_name n, strata::PayloadPool& p)
      : sc_module(n), isock("isock"), pool(p), endresp_peq("endresp_peq") {
    isock.register_nb_transport_bw(this, &TestInitiator::bw);
    SC_THREAD(thread);
    SC_METHOD(end_resp);
    sensitive << endresp_peq.get_event();
    dont_initialize();
  }

  // Hooks (D hides them): on_end_req(gp) when END_REQ arrives; on_response(gp) on BEGIN_RESP
  // returns < 0 to complete at once (the payload is released) or the delay in ns after which
  // END_RESP is sent (TLM_ACCEPTED now).
  void run() {
    if (script) script(self());
  }
  void on_end_req(tlm_generic_payload&) {}
  double on_response(tlm_generic_payload&) { return -1; }

  void wait_end_req() {
    while (waiting) wait(end_req_ev);
  }
  // Sends BEGIN_REQ once the previous request has its END_REQ. True if accepted at once.
  bool begin_req(tlm_generic_payload& gp) {
    wait_end_req();
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    if (isock->nb_transport_fw(gp, ph, d) == tlm::TLM_ACCEPTED) {
      waiting = true;
      pending = &gp;
      ++late_accepts;
      return false;
    }
    return true;
  }
  void wait_ns(double ns) { wait(sc_core::sc_time(ns, sc_core::SC_NS)); }
  void wait_until_ns(double ns) {
    if (ns > now_ns()) wait(sc_core::sc_time(ns - now_ns(), sc_core::SC_NS));
  }

 private:
  D& self() { return static_cast<D&>(*this); }
  void thread() { self().run(); }
  void end_req_seen() {
    waiting = false;
    pending = nullptr;
    end_req_ev.notify();
  }
  tlm::tlm_sync_enum bw(tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_REQ) {
      self().on_end_req(gp);
      end_req_seen();
      return tlm::TLM_ACCEPTED;
    }
    if (waiting && &gp == pending) end_req_seen();  // BEGIN_RESP implies END_REQ
    const double late_ns = self().on_response(gp);
    if (late_ns >= 0) {
      endresp_peq.notify(gp, sc_core::sc_time(late_ns, sc_core::SC_NS));
      return tlm::TLM_ACCEPTED;
    }
    gp.release();
    return tlm::TLM_COMPLETED;
  }
  void end_resp() {
    while (tlm_generic_payload* gp = endresp_peq.get_next_transaction()) {
      tlm::tlm_phase ph = tlm::END_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      isock->nb_transport_fw(*gp, ph, d);
      gp->release();
    }
  }
};

template <class D>
struct TestTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<TestTarget> tsock;
  tlm_utils::peq_with_get<tlm_generic_payload> resp_peq, endreq_peq;
  std::deque<tlm_generic_payload*> resp_fifo;  // due responses, in order
  bool resp_blocked = false;                   // a BEGIN_RESP waits for its END_RESP
  unsigned accepted_late = 0;                  // requests whose END_REQ was held
  std::vector<double> end_resp_times;

  SC_HAS_PROCESS(TestTarget);
  explicit TestTarget(sc_core::sc_module_name n)
      : sc_module(n), tsock("tsock"), resp_peq("resp_peq"), endreq_peq("endreq_peq") {
    tsock.register_nb_transport_fw(this, &TestTarget::fw);
    tsock.register_transport_dbg(this, &TestTarget::dbg);
    SC_METHOD(respond);
    sensitive << resp_peq.get_event();
    dont_initialize();
    SC_METHOD(end_req);
    sensitive << endreq_peq.get_event();
    dont_initialize();
  }

  // Hooks (D hides them): on_begin_req(gp) returns < 0 to take the request now or the time in
  // ns to hold its END_REQ; accept(gp) takes it (and calls respond_after); debug(gp) serves
  // transport_dbg and returns the bytes handled.
  double on_begin_req(tlm_generic_payload&) { return -1; }
  void accept(tlm_generic_payload& gp) { respond_after(gp, 0); }
  unsigned debug(tlm_generic_payload&) { return 0; }

  // Schedules the response (BEGIN_RESP, TLM_OK_RESPONSE) of an accepted request.
  void respond_after(tlm_generic_payload& gp, double ns) { resp_peq.notify(gp, sc_core::sc_time(ns, sc_core::SC_NS)); }

 private:
  D& self() { return static_cast<D&>(*this); }
  tlm::tlm_sync_enum fw(tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_RESP) {
      end_resp_times.push_back(now_ns());
      resp_blocked = false;
      respond();
      return tlm::TLM_COMPLETED;
    }
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    const double hold_ns = self().on_begin_req(gp);
    if (hold_ns >= 0) {
      ++accepted_late;
      endreq_peq.notify(gp, sc_core::sc_time(hold_ns, sc_core::SC_NS));
      return tlm::TLM_ACCEPTED;
    }
    self().accept(gp);
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void end_req() {
    while (tlm_generic_payload* gp = endreq_peq.get_next_transaction()) {
      self().accept(*gp);
      tlm::tlm_phase ph = tlm::END_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      tsock->nb_transport_bw(*gp, ph, d);
    }
  }
  void respond() {
    while (tlm_generic_payload* gp = resp_peq.get_next_transaction()) resp_fifo.push_back(gp);
    while (!resp_blocked && !resp_fifo.empty()) {
      tlm_generic_payload* gp = resp_fifo.front();
      resp_fifo.pop_front();
      gp->set_response_status(tlm::TLM_OK_RESPONSE);
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      if (tsock->nb_transport_bw(*gp, ph, d) == tlm::TLM_ACCEPTED) resp_blocked = true;
    }
  }
  unsigned dbg(tlm_generic_payload& gp) { return self().debug(gp); }
};

// One request as the memory saw it.
struct MemReq {
  uint64_t addr;
  bool write;
  uint8_t sector_mask;
  uint64_t byte_mask[2];
  strata::ReqClass cls;
  double t_ns;
  strata::MemType mem_type;
};

// Functional line memory: at acceptance a read copies its sectors, a write its enabled bytes;
// the response follows after lat_ns + a seeded random 0..jitter_ns (so out of order with
// jitter). With `backpressure`, half the requests get END_REQ 1..5 ns late.
struct LineMem : TestTarget<LineMem> {
  std::vector<uint8_t> own;
  std::vector<uint8_t>& mem;  // own storage, or one shared by several LineMems
  std::vector<MemReq> log;
  unsigned lat_ns = 50;
  unsigned jitter_ns = 0;
  bool backpressure = false;
  std::mt19937 rng;

  // A memory of `bytes` bytes filled with init_byte(address).
  LineMem(sc_core::sc_module_name n, size_t bytes, unsigned seed = 7)
      : TestTarget(n), own(bytes), mem(own), rng(seed) {
    for (size_t a = 0; a < bytes; ++a) own[a] = init_byte(a);
  }
  // A memory port on storage the caller owns (and initialises).
  LineMem(sc_core::sc_module_name n, std::vector<uint8_t>& shared, unsigned seed)
      : TestTarget(n), mem(shared), rng(seed) {}

  double on_begin_req(tlm_generic_payload&) {
    if (backpressure && (rng() & 1)) return 1 + rng() % 5;
    return -1;
  }
  void accept(tlm_generic_payload& gp) {
    strata::GpuExt& e = strata::GpuExt::get(gp);
    const uint64_t a = gp.get_address();
    if (a + strata::kLineBytes > mem.size()) SC_REPORT_FATAL(name(), "address out of range");
    log.push_back(MemReq{a, gp.is_write(), e.sector_mask, {e.byte_mask[0], e.byte_mask[1]}, e.cls, now_ns(),
                         e.mem_type});
    if (gp.is_write()) {
      for (unsigned b = 0; b < strata::kLineBytes; ++b)
        if (e.byte_set(b)) mem[a + b] = gp.get_data_ptr()[b];
    } else {
      for (unsigned s = 0; s < strata::kSectorsPerLine; ++s)
        if ((e.sector_mask >> s) & 1u) std::memcpy(gp.get_data_ptr() + s * 32, &mem[a + s * 32], 32);
    }
    const unsigned extra = jitter_ns ? static_cast<unsigned>(rng() % (jitter_ns + 1)) : 0;
    respond_after(gp, lat_ns + extra);
  }
  unsigned debug(tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned n = gp.get_data_length();
    if (gp.is_read()) std::memcpy(gp.get_data_ptr(), &mem[a], n);
    else std::memcpy(&mem[a], gp.get_data_ptr(), n);
    return n;
  }
  size_t count(strata::ReqClass c) const {
    size_t n = 0;
    for (const MemReq& r : log) n += r.cls == c;
    return n;
  }
};

}  // namespace strata_test
