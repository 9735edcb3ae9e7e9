// TimedQueue (models/noc/queues.h): pops in (ready time, push order) order,
// wakes its method exactly at each earliest ready time (no early or late
// wake-up), and keeps working past its reserve while items are popped (slots
// reclaimed). Randomized against a std::multimap reference. A second queue fed
// the same items through the tick (integer time) overloads, with its own
// event, must pop the same items at the same times.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include <systemc>

#include "noc/queues.h"

using sc_core::sc_time;
using sc_core::SC_NS;

static int failures = 0;
#define CHECK(c)                                                          \
  do {                                                                    \
    if (!(c)) {                                                           \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

// Pushes random items at random future times from a driver thread; a method
// drains ready items and compares each against the reference order.
struct Bench : sc_core::sc_module {
  SC_HAS_PROCESS(Bench);
  strata::TimedQueue<unsigned> q{8};
  strata::TimedQueue<unsigned> qt{8};  // same items via push(ticks, ...)
  sc_core::sc_event ev, evt;
  unsigned popped_t = 0, early_t = 0;
  std::multimap<std::pair<uint64_t, unsigned>, unsigned> ref;  // (time ps, seq) -> value
  unsigned seq = 0, popped = 0, pushed = 0, wakeups = 0, early = 0;
  uint64_t rng = 12345;
  unsigned rnd(unsigned n) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<unsigned>((rng >> 33) % n);
  }
  explicit Bench(sc_core::sc_module_name n) : sc_module(n) {
    SC_THREAD(driver);
    SC_METHOD(drain);
    sensitive << ev;
    dont_initialize();
    SC_METHOD(drain_ticks);
    sensitive << evt;
    dont_initialize();
  }
  void driver() {
    for (unsigned round = 0; round < 3000; ++round) {
      const unsigned burst = 1 + rnd(3);
      for (unsigned b = 0; b < burst && q.size() < 8; ++b) {
        const sc_time now = sc_core::sc_time_stamp();
        // mostly non-decreasing times (the common case), sometimes earlier ones, many ties
        const uint64_t at = static_cast<uint64_t>(now.to_seconds() * 1e12 + 0.5) + 1000ull * rnd(rnd(4) ? 6 : 2);
        const bool becomes_front = ref.empty() || at < ref.begin()->first.first;
        ref.emplace(std::make_pair(at, seq), seq);
        q.push(sc_time(static_cast<double>(at), sc_core::SC_PS), seq, ev);
        qt.push(sc_time(static_cast<double>(at), sc_core::SC_PS).value(), seq, evt, sc_core::sc_time_stamp().value());
        at_ticks.push_back(sc_time(static_cast<double>(at), sc_core::SC_PS).value());
        if (becomes_front) CHECK(q.top() == seq);
        ++seq;
        ++pushed;
      }
      wait(sc_time(1 + rnd(3), SC_NS));
    }
  }
  void drain() {
    ++wakeups;
    const sc_time now = sc_core::sc_time_stamp();
    const uint64_t now_ps = static_cast<uint64_t>(now.to_seconds() * 1e12 + 0.5);
    if (!q.ready()) ++early;  // woken with nothing due: a spurious notification
    while (q.ready()) {
      CHECK(!ref.empty());
      const auto it = ref.begin();
      CHECK(it->first.first <= now_ps);
      CHECK(it->first.first == now_ps);  // drained at its ready time, never later
      CHECK(q.top() == it->second);
      CHECK(q.pop() == it->second);
      log.push_back(it->second);
      ref.erase(it);
      ++popped;
    }
    CHECK(ref.empty() || ref.begin()->first.first > now_ps);
    q.rearm(ev);
  }
  // The tick-overload queue: each item popped exactly at its ready time, and
  // overall in the order the sc_time queue popped them (compared at the end).
  std::vector<unsigned> log, log_t;  // values popped by drain() / drain_ticks(), in order
  std::vector<uint64_t> at_ticks;    // ready time of each pushed item, by seq
  void drain_ticks() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (!qt.ready(now)) ++early_t;
    while (qt.ready(now)) {
      CHECK(qt.top_ticks() == now);
      const unsigned v = qt.pop();
      CHECK(v < at_ticks.size() && at_ticks[v] == now);
      log_t.push_back(v);
      ++popped_t;
    }
    qt.rearm(evt, now);
  }
};

int sc_main(int, char**) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  Bench b("b");
  sc_core::sc_start();
  CHECK(b.pushed > 3000);
  CHECK(b.popped == b.pushed);
  CHECK(b.q.empty());
  CHECK(b.early == 0);
  CHECK(b.popped_t == b.popped);
  CHECK(b.qt.empty());
  CHECK(b.early_t == 0);
  CHECK(b.log_t == b.log);
  std::printf("test_queues: %u pushed, %u popped, %u wake-ups\n", b.pushed, b.popped, b.wakeups);
  if (failures) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  std::printf("1 passed, 0 failed\n");
  return 0;
}
