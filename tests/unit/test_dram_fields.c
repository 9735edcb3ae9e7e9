/* Unit tests of the overridable device fields (models/ref/mem/dram.h dram_field):
 * the table covers every member of dram_timing and dram_energy exactly once,
 * names are unique per kind and findable, dram_field_set changes exactly its
 * member (no other byte of the preset), rejects what the member cannot hold,
 * and every preset stays valid when each field is set to its own value (the
 * config path with overrides equal to the preset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "mem/dram.h"

static void covers_every_member(void **state) {
  (void)state;
  size_t nt = 0, ne = 0;
  unsigned char seen[sizeof(dram_preset)] = {0};
  for (size_t i = 0; i < dram_field_count(); ++i) {
    const dram_field *f = dram_field_at(i);
    assert_non_null(f);
    const size_t w = f->energy ? sizeof(double) : sizeof(uint32_t);
    for (size_t b = 0; b < w; ++b) {
      assert_int_equal(seen[f->offset + b], 0); /* no two fields on one byte */
      seen[f->offset + b] = 1;
    }
    if (f->energy) {
      ++ne;
      assert_true(f->offset >= offsetof(dram_preset, e));
      assert_true(f->offset + w <= offsetof(dram_preset, e) + sizeof(dram_energy));
    } else {
      ++nt;
      assert_true(f->offset >= offsetof(dram_preset, t));
      assert_true(f->offset + w <= offsetof(dram_preset, t) + sizeof(dram_timing));
    }
  }
  assert_null(dram_field_at(dram_field_count()));
  assert_int_equal(nt, sizeof(dram_timing) / sizeof(uint32_t)); /* all-uint32_t struct: every member listed */
  assert_int_equal(ne, sizeof(dram_energy) / sizeof(double));
}

static void names_unique_and_found(void **state) {
  (void)state;
  for (size_t i = 0; i < dram_field_count(); ++i) {
    const dram_field *f = dram_field_at(i);
    assert_ptr_equal(dram_field_find(f->energy, f->name), f);
    assert_null(dram_field_find(!f->energy, f->name)); /* no name in both kinds */
    assert_non_null(strstr(dram_field_names(f->energy), f->name));
  }
  assert_int_equal(dram_field_find(0, "tRCD")->offset, offsetof(dram_preset, t.RCD));
  assert_int_equal(dram_field_find(0, "CL")->offset, offsetof(dram_preset, t.CL));
  assert_int_equal(dram_field_find(1, "bg_mw")->offset, offsetof(dram_preset, e.bg_mw));
  assert_null(dram_field_find(0, "RCD"));
  assert_null(dram_field_find(0, "tCL"));
  assert_null(dram_field_find(1, "tRCD"));
}

static void set_changes_only_its_member(void **state) {
  (void)state;
  const dram_preset *base = dram_find("hbm2");
  for (size_t i = 0; i < dram_field_count(); ++i) {
    const dram_field *f = dram_field_at(i);
    dram_preset p = *base;
    const double v = dram_field_get(base, f) + 3;
    assert_int_equal(dram_field_set(&p, f, v), 0);
    assert_true(dram_field_get(&p, f) == v);
    const size_t w = f->energy ? sizeof(double) : sizeof(uint32_t);
    const unsigned char *a = (const unsigned char *)&p, *b = (const unsigned char *)base;
    for (size_t k = 0; k < sizeof p; ++k)
      if (k < f->offset || k >= f->offset + w) assert_int_equal(a[k], b[k]);
  }
  dram_preset p = *base;
  assert_int_equal(dram_field_set(&p, dram_field_find(0, "tRCD"), 20), 0);
  assert_int_equal(p.t.RCD, 20);
  assert_int_equal(dram_field_set(&p, dram_field_find(1, "rd_pj"), 123.5), 0);
  assert_true(p.e.rd_pj == 123.5);
}

static void set_rejects_bad_values(void **state) {
  (void)state;
  const dram_preset *base = dram_find("gddr5_gtx480");
  dram_preset p = *base;
  const dram_field *t = dram_field_find(0, "tRP"), *e = dram_field_find(1, "act_pj");
  assert_int_equal(dram_field_set(&p, t, -1), -1);
  assert_int_equal(dram_field_set(&p, t, 1.5), -1);
  assert_int_equal(dram_field_set(&p, t, 4294967296.0), -1);
  assert_int_equal(dram_field_set(&p, e, -0.5), -1);
  assert_memory_equal(&p, base, sizeof p); /* unchanged after every rejection */
  assert_int_equal(dram_field_set(&p, t, 4294967295.0), 0);
  assert_int_equal(p.t.RP, 4294967295u);
}

static void every_preset_valid_with_own_values(void **state) {
  (void)state;
  char err[256];
  for (size_t k = 0; k < dram_count(); ++k) {
    const dram_preset *base = dram_at(k);
    dram_preset p = *base;
    for (size_t i = 0; i < dram_field_count(); ++i)
      assert_int_equal(dram_field_set(&p, dram_field_at(i), dram_field_get(base, dram_field_at(i))), 0);
    assert_memory_equal(&p, base, sizeof p);
    assert_int_equal(dram_validate(&p, err, sizeof err), 0);
  }
  /* and validation catches an override the preset cannot take */
  dram_preset p = *dram_find("hbm2");
  dram_field_set(&p, dram_field_find(0, "tRAS"), 50); /* tRC 47 < tRAS + tRP */
  assert_int_equal(dram_validate(&p, err, sizeof err), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(covers_every_member),
      cmocka_unit_test(names_unique_and_found),
      cmocka_unit_test(set_changes_only_its_member),
      cmocka_unit_test(set_rejects_bad_values),
      cmocka_unit_test(every_preset_valid_with_own_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
