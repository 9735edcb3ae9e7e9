// GpuExt lookup (models/common/payload.h): GpuExt::get/find return, for a
// PayloadPool payload, the very extension registered in the payload's
// extension array (found from the pool item without the array), and for other
// payloads whatever that array holds (nullptr when none).
#include <cstdio>

#include <systemc>
#include <tlm>

#include "common/payload.h"

static int failures = 0;
#define CHECK(c)                                                                 \
  do {                                                                           \
    if (!(c)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

int sc_main(int, char**) {
  using strata::GpuExt;
  strata::PayloadPool pool;
  tlm::tlm_generic_payload* a = pool.alloc();
  tlm::tlm_generic_payload* b = pool.alloc(strata::PayloadPool::Data::Stale);
  for (tlm::tlm_generic_payload* gp : {a, b}) {
    GpuExt* reg = nullptr;
    gp->get_extension(reg);
    CHECK(reg != nullptr);
    CHECK(GpuExt::find(*gp) == reg);
    CHECK(&GpuExt::get(*gp) == reg);
  }
  CHECK(&GpuExt::get(*a) != &GpuExt::get(*b));
  GpuExt::get(*a).tag = 42;
  GpuExt* ra = nullptr;
  a->get_extension(ra);
  CHECK(ra->tag == 42);
  a->release();
  b->release();
  CHECK(pool.live() == 0);

  tlm::tlm_generic_payload plain;  // not from a pool
  CHECK(GpuExt::find(plain) == nullptr);
  GpuExt own;
  plain.set_extension(&own);
  CHECK(GpuExt::find(plain) == &own);
  CHECK(&GpuExt::get(plain) == &own);
  plain.clear_extension(&own);

  if (failures) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  std::printf("1 passed, 0 failed\n");
  return 0;
}
