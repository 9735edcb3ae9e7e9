/* Unit tests of the policy registry and of the LRU policy used directly
 * through repl_ops (no cache core): registry lookup/names, age permutation
 * invariant, victim under masks, invalid-first rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cache/repl.h"

static void registry(void **state) {
  (void)state;
  const repl_ops *lru = repl_find("lru");
  assert_non_null(lru);
  assert_string_equal(lru->name, "lru");
  assert_non_null(lru->desc);
  assert_null(repl_find("nope"));
  assert_null(repl_find(NULL));
  assert_null(repl_find("LRU"));
  /* every listed name resolves to ops carrying that name */
  char buf[512];
  strncpy(buf, repl_names(), sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  assert_true(strstr(buf, "lru") != NULL);
  int n = 0;
  for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
    const repl_ops *o = repl_find(tok);
    assert_non_null(o);
    assert_string_equal(o->name, tok);
    assert_non_null(o->victim);
    ++n;
  }
  assert_true(n >= 1);
}

/* Reference LRU: list of ways, most recent first. */
typedef struct ref_lru {
  uint32_t order[32], n;
} ref_lru;
static void ref_touch(ref_lru *r, uint32_t w) {
  uint32_t i = 0;
  while (i < r->n && r->order[i] != w) ++i;
  if (i == r->n) r->n++;
  for (; i > 0; --i) r->order[i] = r->order[i - 1];
  r->order[0] = w;
}

static void lru_random_vs_reference(void **state) {
  (void)state;
  const repl_ops *lru = repl_find("lru");
  const uint32_t ways_list[] = {4, 8, 16, 32};
  for (unsigned t = 0; t < 4; ++t) {
    const uint32_t ways = ways_list[t], sets = 3;
    void *st = calloc(1, lru->state_bytes(sets, ways));
    lru->init(st, sets, ways);
    repl_line lines[32];
    for (uint32_t w = 0; w < ways; ++w) lines[w] = (repl_line){1, 0, 0};
    ref_lru ref;
    ref.n = 0;
    const repl_access a = {0, 0, 0, 0, 0};
    for (uint32_t w = 0; w < ways; ++w) { lru->on_fill(st, 1, w, &a); ref_touch(&ref, w); }
    uint32_t seed = 12345u + t;
    for (int i = 0; i < 2000; ++i) {
      seed = seed * 1103515245u + 12345u;
      const uint32_t w = (seed >> 16) % ways;
      seed = seed * 1103515245u + 12345u;
      uint32_t mask = (seed >> 8) | 1u;
      if (ways < 32) mask &= (1u << ways) - 1u;
      if (!mask) mask = 1;
      /* expected victim: the least recent way whose bit is set in mask */
      int expect = -1;
      for (int k = (int)ref.n - 1; k >= 0; --k)
        if ((mask >> ref.order[k]) & 1u) { expect = (int)ref.order[k]; break; }
      assert_int_equal(lru->victim(st, 1, lines, mask, &a), expect);
      if (i & 1) lru->on_hit(st, 1, w, &a);
      else lru->on_fill(st, 1, w, &a);
      ref_touch(&ref, w);
    }
    /* other sets untouched: victim of set 0 and 2 is the highest-index way (initial ages) */
    lines[0].valid = 1;
    assert_int_equal(lru->victim(st, 0, lines, 0xffffffffu >> (32 - ways), &a), (int)ways - 1);
    assert_int_equal(lru->victim(st, 2, lines, 0xffffffffu >> (32 - ways), &a), (int)ways - 1);
    /* invalid allowed way wins over LRU; invalid disallowed way does not */
    lines[2].valid = 0;
    assert_int_equal(lru->victim(st, 1, lines, 0xffffffffu >> (32 - ways), &a), 2);
    const uint32_t no2 = (0xffffffffu >> (32 - ways)) & ~4u;
    assert_true(lru->victim(st, 1, lines, no2, &a) != 2);
    lines[2].valid = 1;
    /* invalidate makes the way the next victim */
    lru->on_invalidate(st, 1, ref.order[0]);
    assert_int_equal(lru->victim(st, 1, lines, 0xffffffffu >> (32 - ways), &a), (int)ref.order[0]);
    free(st);
  }
}

/* Every policy with repl_ops.valid_only answers a set of valid ways the same with lines = NULL
 * (what the cache core passes it) as with the lines given, after the same random history. */
static void valid_only_policies_accept_null(void **state) {
  (void)state;
  char buf[512];
  strncpy(buf, repl_names(), sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  int checked = 0;
  uint64_t x = 88172645463325252ull;
  for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
    const repl_ops *o = repl_find(tok);
    if (!o->valid_only) continue;
    const uint32_t sets = 4, ways = 16;
    void *st = calloc(1, o->state_bytes(sets, ways) + 1);
    o->init(st, sets, ways);
    repl_line lines[16];
    for (uint32_t w = 0; w < ways; ++w) lines[w] = (repl_line){1, (uint8_t)(w & 1), (uint8_t)(w % 3 == 0)};
    for (unsigned k = 0; k < 2000; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const uint32_t set = (uint32_t)(x % sets), way = (uint32_t)((x >> 8) % ways);
      repl_access a = {0};
      a.is_write = (uint8_t)((x >> 20) & 1u);
      a.mem_type = (uint8_t)((x >> 21) & 1u);
      uint32_t mask = (uint32_t)(x >> 32) & 0xffffu;
      if (!mask) mask = 1;
      if ((x >> 24) & 1u) o->on_hit(st, set, way, &a);
      else if (o->on_fill) o->on_fill(st, set, way, &a);
      assert_int_equal(o->victim(st, set, NULL, mask, &a), o->victim(st, set, lines, mask, &a));
    }
    free(st);
    ++checked;
  }
  assert_true(checked >= 1); /* lru at least */
  assert_true(repl_find("lru")->valid_only);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(registry), cmocka_unit_test(lru_random_vs_reference),
                                     cmocka_unit_test(valid_only_policies_accept_null)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
