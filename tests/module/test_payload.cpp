// GpuExt lookup (models/common/payload.h): GpuExt::get/find return, for a
// PayloadPool payload, the very extension registered in the payload's
// extension array (found from the pool item without the array), and for other
// payloads whatever that array holds (nullptr when none). The response route
// (GpuExt::push_hop / pop_hop) is a stack of kMaxHops ports: pushes and pops
// pair up last in, first out; a push onto a full stack, a port that does not
// fit an entry and a pop of an empty stack end the process with the hop's
// name in an SC_REPORT_FATAL message (never a wrap that would send a response
// to the wrong port).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "tests/common/expect.h"

// Run f in a forked child with its output captured: true when the child died
// of SIGABRT, with what it printed (SystemC reports go to stdout) in *err.
static bool dies_with(const std::function<void()>& f, std::string* err) {
  int fd[2];
  if (pipe(fd) != 0) return false;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);  // SystemC prints its reports on stdout
    dup2(fd[1], 2);
    close(fd[0]);
    f();
    _exit(0);  // survived: the parent reports it
  }
  close(fd[1]);
  char buf[512];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) err->append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static void hop_stack() {
  using strata::GpuExt;
  GpuExt e;
  for (unsigned p = 0; p < GpuExt::kMaxHops; ++p) e.push_hop(10 + p, "top.hop");
  EXPECT_EQ(e.nhops, GpuExt::kMaxHops);
  for (unsigned p = GpuExt::kMaxHops; p-- > 0;) EXPECT_EQ(e.pop_hop("top.hop"), 10 + p);  // last in, first out
  EXPECT_EQ(e.nhops, 0u);
  e.push_hop(65535, "top.hop");  // the largest port an entry holds
  EXPECT_EQ(e.pop_hop("top.hop"), 65535u);

  std::string err;
  EXPECT(dies_with(
      [] {
        GpuExt x;
        x.sm_id = 7;
        for (unsigned p = 0; p <= GpuExt::kMaxHops; ++p) x.push_hop(p, "top.memside0");
      },
      &err));
  EXPECT(err.find("top.memside0") != std::string::npos);
  EXPECT(err.find("hop stack full") != std::string::npos);
  EXPECT(err.find("push of port " + std::to_string(GpuExt::kMaxHops)) != std::string::npos);  // the one too many
  EXPECT(err.find("hops: 0, 1, ") != std::string::npos);  // the route so far
  EXPECT(err.find("SM 7") != std::string::npos);

  err.clear();
  EXPECT(dies_with([] { GpuExt().pop_hop("top.xbar"); }, &err));
  EXPECT(err.find("top.xbar") != std::string::npos);
  EXPECT(err.find("pop of an empty hop stack") != std::string::npos);

  err.clear();
  EXPECT(dies_with([] { GpuExt().push_hop(65536, "top.xbar"); }, &err));
  EXPECT(err.find("port 65536 does not fit") != std::string::npos);
}

int sc_main(int, char**) {
  using strata::GpuExt;
  hop_stack();
  strata::PayloadPool pool;
  tlm::tlm_generic_payload* a = pool.alloc();
  tlm::tlm_generic_payload* b = pool.alloc(strata::PayloadPool::Data::Stale);
  for (tlm::tlm_generic_payload* gp : {a, b}) {
    GpuExt* reg = nullptr;
    gp->get_extension(reg);
    EXPECT(reg != nullptr);
    EXPECT(GpuExt::find(*gp) == reg);
    EXPECT(&GpuExt::get(*gp) == reg);
  }
  EXPECT(&GpuExt::get(*a) != &GpuExt::get(*b));
  GpuExt::get(*a).tag = 42;
  GpuExt* ra = nullptr;
  a->get_extension(ra);
  EXPECT(ra->tag == 42);
  a->release();
  b->release();
  EXPECT(pool.live() == 0);

  tlm::tlm_generic_payload plain;  // not from a pool
  EXPECT(GpuExt::find(plain) == nullptr);
  GpuExt own;
  plain.set_extension(&own);
  EXPECT(GpuExt::find(plain) == &own);
  EXPECT(&GpuExt::get(plain) == &own);
  plain.clear_extension(&own);

  if (failures) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  std::printf("1 passed, 0 failed\n");
  return 0;
}
