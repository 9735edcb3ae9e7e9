/* Unit tests of the sparse backing store (models/ref/base/bstore.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/bstore.h"

static void sparse_and_zero(void **state) {
  (void)state;
  bstore s;
  assert_int_equal(bstore_init(&s), 0);
  unsigned char buf[256];
  memset(buf, 0xaa, sizeof buf);
  bstore_read(&s, 80ull << 30, buf, sizeof buf); /* 80 GiB: never written reads zero */
  for (unsigned i = 0; i < sizeof buf; ++i) assert_int_equal(buf[i], 0);
  assert_int_equal(s.used, 0);
  /* a write straddling a page boundary */
  unsigned char w[100];
  for (unsigned i = 0; i < sizeof w; ++i) w[i] = (unsigned char)(i + 1);
  assert_int_equal(bstore_write(&s, (79ull << 30) + BSTORE_PAGE_BYTES - 50, w, sizeof w), 0);
  assert_int_equal(s.used, 2);
  unsigned char r[100];
  bstore_read(&s, (79ull << 30) + BSTORE_PAGE_BYTES - 50, r, sizeof r);
  assert_memory_equal(r, w, sizeof w);
  bstore_free(&s);
}

static void many_pages_and_mask(void **state) {
  (void)state;
  bstore s;
  assert_int_equal(bstore_init(&s), 0);
  for (uint64_t p = 0; p < 5000; ++p) {
    uint64_t v = p * 2654435761u;
    assert_int_equal(bstore_write(&s, p * 7919 * BSTORE_PAGE_BYTES + 8, &v, sizeof v), 0);
  }
  for (uint64_t p = 0; p < 5000; ++p) {
    uint64_t v = 0;
    bstore_read(&s, p * 7919 * BSTORE_PAGE_BYTES + 8, &v, sizeof v);
    assert_true(v == p * 2654435761u);
  }
  unsigned char line[128];
  for (unsigned i = 0; i < 128; ++i) line[i] = (unsigned char)(0x80 | i);
  uint64_t mask[2] = {0xF0ull, 1ull << 63};
  assert_int_equal(bstore_write_masked(&s, 1ull << 40, line, mask), 0);
  unsigned char r[128];
  bstore_read(&s, 1ull << 40, r, 128);
  for (unsigned i = 0; i < 128; ++i) {
    int set = (i >= 4 && i < 8) || i == 127;
    assert_int_equal(r[i], set ? line[i] : 0);
  }
  bstore_free(&s);
}

/* Pages come from 2 MiB slabs: a store spanning several slabs keeps every
 * page apart and zero where never written, also after free + init. */
static void slabs_zero_and_reuse(void **state) {
  (void)state;
  bstore s;
  for (int round = 0; round < 2; ++round) {
    assert_int_equal(bstore_init(&s), 0);
    const uint64_t n = 1300; /* > 2 slabs of 512 pages */
    for (uint64_t p = 0; p < n; ++p) {
      const unsigned char v = (unsigned char)(p * 37 + 1 + round);
      assert_int_equal(bstore_write(&s, (p * 3 + 1) * BSTORE_PAGE_BYTES + (p % 4000), &v, 1), 0);
    }
    static unsigned char page[BSTORE_PAGE_BYTES];
    for (uint64_t p = 0; p < n; ++p) {
      bstore_read(&s, (p * 3 + 1) * BSTORE_PAGE_BYTES, page, BSTORE_PAGE_BYTES);
      for (unsigned i = 0; i < BSTORE_PAGE_BYTES; ++i)
        assert_int_equal(page[i], i == p % 4000 ? (unsigned char)(p * 37 + 1 + round) : 0);
    }
    bstore_free(&s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(sparse_and_zero), cmocka_unit_test(many_pages_and_mask),
                                     cmocka_unit_test(slabs_zero_and_reuse)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
