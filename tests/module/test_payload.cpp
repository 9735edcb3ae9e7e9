// GpuExt lookup (models/common/payload.h): GpuExt::get/find return, for a
// PayloadPool payload, the very extension registered in the payload's
// extension array (found from the pool item without the array), and for other
// payloads whatever that array holds (nullptr when none).
#include <cstdio>

#include <systemc>
#include <tlm>

#include "common/payload.h"
#include "tests/common/expect.h"

int sc_main(int, char**) {
  using strata::GpuExt;
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
