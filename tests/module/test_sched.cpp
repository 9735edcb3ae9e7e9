// The models' event scheduler (models/common/sched.h): processes due at the
// same time run by delta cycle, then by rank (bind order), whatever the order
// and history of their notifications; a zero-delay notification runs in the
// next delta cycle; an event keeps only its earliest pending notification;
// cancel drops it; pause/resume; a notification from a plain SystemC thread
// wakes the scheduler and runs in a later SystemC delta cycle. Each case
// records (time ns, process) and compares with the hand-written expectation.
#include <string>
#include <vector>

#include <systemc>

#include "../common/expect.h"
#include "common/sched.h"

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;
using strata::Event;

namespace {

std::vector<std::string> g_log;
void log(const char* who) { g_log.push_back(std::to_string(sc_core::sc_time_stamp().value() / 1000) + who); }

// Processes of a later module bound with explicit Orders, in an order that
// is not the ranking: L2 bank 0 (x), SM 1 (y), SM 0 (z), then w without an
// Order (it takes z's). Ranked by (stage, instance, bind order): z w y x.
struct Staged : sc_core::sc_module {
  Event x, y, z, w;
  explicit Staged(sc_core::sc_module_name n) : sc_module(n) {
    x.bind<&Staged::run_x>(this, {strata::Stage::L2, 0});
    y.bind<&Staged::run_y>(this, {strata::Stage::Sm, 1});
    z.bind<&Staged::run_z>(this, {strata::Stage::Sm, 0});
    w.bind<&Staged::run_w>(this);
  }
  void run_x() { log("x"); }
  void run_y() { log("y"); }
  void run_z() { log("z"); }
  void run_w() { log("w"); }
};
Staged* g_staged = nullptr;

// Five processes bound in the order a, b, c, d, e (ranks 0..4).
struct Procs : sc_core::sc_module {
  SC_HAS_PROCESS(Procs);
  Event a, b, c, d, e;
  int mode = 0;
  explicit Procs(sc_core::sc_module_name n) : sc_module(n) {
    a.bind<&Procs::run_a>(this);
    b.bind<&Procs::run_b>(this);
    c.bind<&Procs::run_c>(this);
    d.bind<&Procs::run_d>(this);
    e.bind<&Procs::run_e>(this);
    SC_THREAD(driver);
  }
  void run_a() { log("a"); }
  void run_b() {
    log("b");
    if (mode == 1) a.notify(SC_ZERO_TIME);  // delta: after c, which is due in the current delta
  }
  void run_c() { log("c"); }
  void run_d() {
    log("d");
    if (mode == 2) strata::Scheduler::get().pause();
  }
  void run_e() { log("e"); }

  void driver() {
    // 1. Same-time order is rank order, not notification order; notifying
    //    unrelated events earlier (and superseding them) changes nothing.
    e.notify(sc_time(30, SC_NS));
    d.notify(sc_time(5, SC_NS));
    d.notify(sc_time(10, SC_NS));  // later than pending: ignored, d stays at 5 ns
    c.notify(sc_time(10, SC_NS));
    a.notify(sc_time(10, SC_NS));
    b.notify(sc_time(12, SC_NS));
    b.notify(sc_time(10, SC_NS));  // earlier than pending: replaces 12 ns
    e.notify(sc_time(10, SC_NS));  // replaces 30 ns
    wait(sc_time(100, SC_NS));
    // 2. A zero-delay notification runs in the next delta cycle, after every
    //    process due in the current one (a < b in rank, yet a runs after c).
    mode = 1;
    c.notify(sc_time(10, SC_NS));
    b.notify(sc_time(10, SC_NS));
    wait(sc_time(100, SC_NS));
    // 3. cancel.
    mode = 0;
    a.notify(sc_time(10, SC_NS));
    b.notify(sc_time(10, SC_NS));
    a.cancel();
    EXPECT(!a.pending());
    EXPECT(b.pending());
    wait(sc_time(100, SC_NS));
    // 4. pause: nothing runs after the pausing process until resume().
    mode = 2;
    d.notify(sc_time(10, SC_NS));
    e.notify(sc_time(10, SC_NS));
    c.notify(sc_time(20, SC_NS));
    wait(sc_time(100, SC_NS));
    EXPECT(strata::Scheduler::get().paused());
    strata::Scheduler::get().resume();  // at 400 ns: e (due 310) and c (due 320) run now, in key order
    wait(sc_time(100, SC_NS));
    // 5. A zero-delay notification from this thread runs in a later SystemC
    //    delta cycle than the timed entries due now, whichever of this thread
    //    and the scheduler SystemC runs first: b (timed) before a (rank 0).
    mode = 0;
    b.notify(sc_time(100, SC_NS));
    wait(sc_time(100, SC_NS));
    a.notify(SC_ZERO_TIME);
    EXPECT(a.pending());
    wait(sc_time(100, SC_NS));
    // 6. Explicit Orders: same-time order by stage and instance, not by bind
    //    order (adding a module does not reorder the existing ones).
    g_staged->x.notify(sc_time(10, SC_NS));
    g_staged->w.notify(sc_time(10, SC_NS));
    g_staged->y.notify(sc_time(10, SC_NS));
    g_staged->z.notify(sc_time(10, SC_NS));
    wait(sc_time(100, SC_NS));
  }
};

}  // namespace

int sc_main(int, char*[]) {
  Procs p("procs");
  Staged st("staged");
  g_staged = &st;
  sc_core::sc_start(sc_time(1, sc_core::SC_US));
  const std::vector<std::string> want = {
      "5d",   "10a",  "10b",  "10c", "10e",  // case 1
      "110b", "110c", "110a",               // case 2
      "210b",                               // case 3
      "310d", "400e", "400c",               // case 4
      "600b", "600a",                       // case 5
      "710z", "710w", "710y", "710x",       // case 6
  };
  EXPECT_EQ(g_log.size(), want.size());
  for (size_t i = 0; i < want.size() && i < g_log.size(); ++i) {
    if (g_log[i] != want[i]) {
      std::fprintf(stderr, "entry %zu: got %s, expected %s\n", i, g_log[i].c_str(), want[i].c_str());
      ++failures;
    }
  }
  std::string all;
  for (auto& s : g_log) all += s + " ";
  std::printf("%s: %s\n", failures ? "FAIL" : "ok", all.c_str());
  return failures ? 1 : 0;
}
