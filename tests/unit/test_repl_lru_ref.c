/* Randomized check of the LRU policy (models/ref/cache/repl_lru.c, eight ages per
 * step) against a plain reference: a per-set recency list where a hit or fill
 * moves the way to the front and an invalidation to the back; the victim is
 * the allowed way nearest the back (an invalid allowed way first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cache/repl.h"

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (uint32_t)(rs >> 16);
}

enum { MAXW = 32, SETS = 4 };
typedef struct { uint8_t order[SETS][MAXW]; uint32_t ways; } ref_lru; /* order[s][0] = most recent way */

static void ref_move(ref_lru *r, uint32_t set, uint32_t way, int to_back) {
  uint8_t *o = r->order[set];
  uint32_t i = 0;
  while (o[i] != way) ++i;
  if (to_back) {
    memmove(o + i, o + i + 1, r->ways - 1 - i);
    o[r->ways - 1] = (uint8_t)way;
  } else {
    memmove(o + 1, o, i);
    o[0] = (uint8_t)way;
  }
}

static int ref_victim(const ref_lru *r, uint32_t set, const repl_line *l, uint32_t mask) {
  for (uint32_t w = 0; w < r->ways; ++w)
    if (((mask >> w) & 1u) && !l[w].valid) return (int)w;
  for (int i = (int)r->ways - 1; i >= 0; --i)
    if ((mask >> r->order[set][i]) & 1u) return r->order[set][i];
  return -1;
}

static void random_ops(void **state) {
  (void)state;
  const repl_ops *p = repl_find("lru");
  assert_non_null(p);
  for (uint32_t ways = 1; ways <= MAXW; ++ways) {
    void *st = calloc(1, p->state_bytes(SETS, ways));
    assert_non_null(st);
    p->init(st, SETS, ways);
    ref_lru r;
    r.ways = ways;
    for (uint32_t s = 0; s < SETS; ++s)
      for (uint32_t w = 0; w < ways; ++w) r.order[s][w] = (uint8_t)w;
    repl_line lines[MAXW];
    for (uint32_t w = 0; w < MAXW; ++w) lines[w] = (repl_line){1, 0, 0};
    const uint32_t all = ways == 32 ? 0xffffffffu : (1u << ways) - 1u;
    for (unsigned k = 0; k < 20000; ++k) {
      const uint32_t set = rnd() % SETS, way = rnd() % ways, op = rnd() % 8;
      if (op < 4) {
        p->on_hit(st, set, way, NULL);
        ref_move(&r, set, way, 0);
      } else if (op < 7) {
        p->on_fill(st, set, way, NULL);
        ref_move(&r, set, way, 0);
      } else {
        p->on_invalidate(st, set, way);
        ref_move(&r, set, way, 1);
      }
      uint32_t mask = all;
      for (int t = 0; t < 3; ++t, mask = (rnd() & all) | (1u << (rnd() % ways))) {
        const int got = p->victim(st, set, lines, mask, NULL), want = ref_victim(&r, set, lines, mask);
        if (got != want) fail_msg("ways %u step %u set %u mask %08x: victim %d, reference %d", ways, k, set, mask, got, want);
      }
    }
    free(st);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(random_ops)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
