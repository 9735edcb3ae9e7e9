/* Unit tests of the sectored cache core (models/ref/cache/cache.c) with the LRU
 * policy: hit/miss, sector bits, LRU order on hand-made sequences in 4/8/16-way
 * sets, way mask, set_stride indexing, invalidation, data storage, cfg checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cache/cache.h"

static const repl_access kRd = {0, 0, 0, 1, 0};

static void mk(cache *c, uint32_t sets, uint32_t assoc, uint32_t stride, int with_data) {
  cache_cfg cfg = {sets * assoc * 128u, assoc, 128, 32, stride, repl_find("lru"), with_data};
  char err[128] = "";
  assert_int_equal(cache_init(c, &cfg, err, sizeof err), 0);
  assert_int_equal(c->sets, sets);
  assert_int_equal(c->ways, assoc);
  assert_int_equal(c->sectors, 4);
}

/* Demand access of a whole line: 1 = hit, 0 = miss (installed). Returns the
 * evicted line address through *evicted (or UINT64_MAX). */
static int access_line(cache *c, uint64_t la, uint64_t *evicted) {
  if (evicted) *evicted = UINT64_MAX;
  const uint32_t set = cache_set_of(c, la);
  int w = cache_find(c, la);
  if (w >= 0) {
    cache_touch(c, set, (uint32_t)w, &kRd);
    return 1;
  }
  w = cache_victim(c, la, &kRd);
  assert_true(w >= 0);
  cache_line *l = cache_line_at(c, set, (uint32_t)w);
  if (l->valid && evicted) *evicted = l->line_addr;
  cache_install(c, set, (uint32_t)w, la, 0, &kRd);
  l->valid_sectors = 0xf;
  return 0;
}

static void hit_miss_and_sectors(void **state) {
  (void)state;
  cache c;
  mk(&c, 4, 4, 1, 0);
  assert_int_equal(cache_find(&c, 0x1000), -1);
  assert_int_equal(access_line(&c, 0x1000, NULL), 0);
  assert_int_equal(access_line(&c, 0x1000, NULL), 1);
  /* unaligned lookups land on the same line */
  assert_true(cache_find(&c, 0x1000 + 77) >= 0);
  assert_int_equal(cache_find(&c, 0x1080), -1);
  /* install clears sector bits; caller manages them */
  const uint32_t set = cache_set_of(&c, 0x2000);
  int w = cache_victim(&c, 0x2000, &kRd);
  cache_install(&c, set, (uint32_t)w, 0x2000, 1, &kRd);
  cache_line *l = cache_line_at(&c, set, (uint32_t)w);
  assert_int_equal(l->valid, 1);
  assert_int_equal(l->valid_sectors, 0);
  assert_int_equal(l->dirty_sectors, 0);
  assert_int_equal(l->mem_type, 1);
  l->valid_sectors = 0x5;
  l->dirty_sectors = 0x4;
  assert_int_equal(cache_find(&c, 0x2000), w);
  /* sector bit helper */
  assert_int_equal(cache_sector_bits(&c, 0, 128), 0xf);
  assert_int_equal(cache_sector_bits(&c, 31, 2), 0x3);
  assert_int_equal(cache_sector_bits(&c, 64, 32), 0x4);
  assert_int_equal(cache_sector_bits(&c, 96, 100), 0x8);
  assert_int_equal(cache_sector_bits(&c, 5, 0), 0);
  /* invalidate one line */
  cache_invalidate(&c, set, (uint32_t)w);
  assert_int_equal(cache_find(&c, 0x2000), -1);
  assert_int_equal(l->valid_sectors, 0);
  cache_free(&c);
}

/* Fill a set of `ways` lines, touch in a hand-made order, then check that
 * evictions come out in exactly LRU order. Lines of set 0 with 1 set: any addr. */
static void lru_order_n(uint32_t ways) {
  cache c;
  mk(&c, 1, ways, 1, 0);
  uint64_t ev;
  for (uint32_t i = 0; i < ways; ++i) {
    assert_int_equal(access_line(&c, (uint64_t)i * 128, &ev), 0);
    assert_true(ev == UINT64_MAX); /* invalid ways used first */
  }
  /* touch odd lines in decreasing order, then line 0: recency (old->new) is
   * even lines 2,4,..., then odd lines descending, then 0. */
  for (int i = (int)ways - 1; i >= 1; --i)
    if (i & 1) assert_int_equal(access_line(&c, (uint64_t)i * 128, NULL), 1);
  assert_int_equal(access_line(&c, 0, NULL), 1);
  uint64_t expect[32];
  uint32_t n = 0;
  for (uint32_t i = 2; i < ways; i += 2) expect[n++] = (uint64_t)i * 128;
  for (int i = (int)ways - 1; i >= 1; --i)
    if (i & 1) expect[n++] = (uint64_t)i * 128;
  expect[n++] = 0;
  assert_int_equal(n, ways);
  /* new lines evict in that order */
  for (uint32_t k = 0; k < ways; ++k) {
    assert_int_equal(access_line(&c, (uint64_t)(1000 + k) * 128, &ev), 0);
    assert_true(ev == expect[k]);
  }
  /* now all old lines are gone, new ones all hit */
  for (uint32_t k = 0; k < ways; ++k) assert_int_equal(access_line(&c, (uint64_t)(1000 + k) * 128, NULL), 1);
  cache_free(&c);
}

static void lru_order_4(void **state) { (void)state; lru_order_n(4); }
static void lru_order_8(void **state) { (void)state; lru_order_n(8); }
static void lru_order_16(void **state) { (void)state; lru_order_n(16); }

/* A classic 4-way sequence worked by hand: A B C D A E -> E evicts B;
 * then C F -> F evicts D; B -> evicts A. */
static void lru_hand_sequence(void **state) {
  (void)state;
  cache c;
  mk(&c, 1, 4, 1, 0);
  const uint64_t A = 0, B = 128, C = 256, D = 384, E = 512, F = 640;
  uint64_t ev;
  access_line(&c, A, NULL);
  access_line(&c, B, NULL);
  access_line(&c, C, NULL);
  access_line(&c, D, NULL);
  assert_int_equal(access_line(&c, A, NULL), 1);
  assert_int_equal(access_line(&c, E, &ev), 0);
  assert_true(ev == B);
  assert_int_equal(access_line(&c, C, NULL), 1);
  assert_int_equal(access_line(&c, F, &ev), 0);
  assert_true(ev == D);
  assert_int_equal(access_line(&c, B, &ev), 0);
  assert_true(ev == A);
  /* invalidated way is reused before any LRU victim */
  const int wc = cache_find(&c, C);
  cache_invalidate(&c, 0, (uint32_t)wc);
  assert_int_equal(access_line(&c, D, &ev), 0);
  assert_true(ev == UINT64_MAX);
  assert_int_equal(cache_find(&c, D), wc);
  cache_free(&c);
}

static void way_mask_respected(void **state) {
  (void)state;
  cache c;
  mk(&c, 2, 16, 1, 0);
  cache_set_way_mask(&c, 0x00f0); /* only ways 4..7 */
  for (uint32_t i = 0; i < 64; ++i) {
    const uint64_t la = (uint64_t)i * 2 * 128; /* all in set 0 */
    access_line(&c, la, NULL);
    const int w = cache_find(&c, la);
    assert_true(w >= 4 && w <= 7);
  }
  /* exactly four lines resident (the last four) */
  for (uint32_t i = 0; i < 64; ++i) assert_int_equal(cache_find(&c, (uint64_t)i * 256) >= 0, i >= 60);
  /* extra mask restricts further; empty mask -> no way */
  for (int k = 0; k < 10; ++k) {
    const int w = cache_victim_masked(&c, 0x100000, 0x0020, &kRd);
    assert_int_equal(w, 5);
  }
  assert_int_equal(cache_victim_masked(&c, 0x100000, 0x000f, &kRd), CACHE_NO_WAY);
  cache_set_way_mask(&c, 0);
  assert_int_equal(cache_victim(&c, 0x100000, &kRd), CACHE_NO_WAY);
  cache_free(&c);
}

static void set_stride_uses_all_sets(void **state) {
  (void)state;
  /* bank 3 of 12: it sees line indices 3, 15, 27, ... (idx % 12 == 3) */
  cache c;
  mk(&c, 32, 4, 12, 0);
  uint32_t hits[32] = {0};
  for (uint64_t k = 0; k < 32 * 4; ++k) {
    const uint64_t la = (k * 12 + 3) * 128;
    hits[cache_set_of(&c, la)]++;
    assert_int_equal(access_line(&c, la, NULL), 0);
  }
  for (uint32_t s = 0; s < 32; ++s) assert_int_equal(hits[s], 4);
  /* the footprint exactly fits: everything hits */
  for (uint64_t k = 0; k < 32 * 4; ++k) assert_int_equal(access_line(&c, (k * 12 + 3) * 128, NULL), 1);
  cache_free(&c);
  /* non power of two set count */
  mk(&c, 24, 2, 1, 0);
  uint32_t seen[24] = {0};
  for (uint64_t k = 0; k < 48; ++k) seen[cache_set_of(&c, k * 128)]++;
  for (uint32_t s = 0; s < 24; ++s) assert_int_equal(seen[s], 2);
  cache_free(&c);
}

static void invalidate_all_and_data(void **state) {
  (void)state;
  cache c;
  mk(&c, 8, 4, 1, 1);
  for (uint64_t k = 0; k < 32; ++k) {
    access_line(&c, k * 128, NULL);
    const uint32_t set = cache_set_of(&c, k * 128);
    unsigned char *d = cache_data_at(&c, set, (uint32_t)cache_find(&c, k * 128));
    assert_non_null(d);
    memset(d, (int)k + 1, 128);
  }
  for (uint64_t k = 0; k < 32; ++k) {
    const uint32_t set = cache_set_of(&c, k * 128);
    const unsigned char *d = cache_data_at(&c, set, (uint32_t)cache_find(&c, k * 128));
    for (int b = 0; b < 128; ++b) assert_int_equal(d[b], k + 1);
  }
  cache_invalidate_all(&c);
  for (uint64_t k = 0; k < 32; ++k) assert_int_equal(cache_find(&c, k * 128), -1);
  /* after reset, fills use way 0,1,2,3 in order again and LRU restarts */
  for (uint64_t k = 0; k < 4; ++k) {
    access_line(&c, k * 8 * 128, NULL);
    assert_int_equal(cache_find(&c, k * 8 * 128), (int)k);
  }
  uint64_t ev;
  access_line(&c, 4 * 8 * 128, &ev);
  assert_true(ev == 0);
  cache_free(&c);
}

static void cfg_validation(void **state) {
  (void)state;
  cache c;
  char err[128];
  cache_cfg ok = {4096, 4, 128, 32, 1, repl_find("lru"), 0};
  cache_cfg b = ok;
  b.policy = NULL;
  err[0] = 0;
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  assert_true(strstr(err, "policy") != NULL);
  b = ok;
  b.size_bytes = 4000;
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  b = ok;
  b.sector_bytes = 8; /* 16 sectors */
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  b = ok;
  b.line_bytes = 96;
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  b = ok;
  b.set_stride = 0;
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  b = ok;
  b.assoc = 64;
  b.size_bytes = 64 * 128;
  assert_int_equal(cache_init(&c, &b, err, sizeof err), -1);
  assert_int_equal(cache_init(&c, &ok, err, sizeof err), 0);
  assert_null(cache_data_at(&c, 0, 0));
  cache_free(&c);
}


/* A policy that always bypasses (or returns an illegal way) checks the core's guards. */
static int g_bad_way = REPL_BYPASS;
static size_t bp_bytes(uint32_t s, uint32_t w) { (void)s; (void)w; return 0; }
static int bp_victim(void *st, uint32_t set, const repl_line *l, uint32_t m, const repl_access *a) {
  (void)st; (void)set; (void)l; (void)m; (void)a;
  return g_bad_way;
}
static void bypass_and_bad_policy(void **state) {
  (void)state;
  const repl_ops ops = {"bp", "test", bp_bytes, NULL, NULL, bp_victim, NULL, NULL, NULL, NULL, 0};
  cache_cfg cfg = {4 * 128, 4, 128, 32, 1, &ops, 0};
  cache c;
  char err[64];
  assert_int_equal(cache_init(&c, &cfg, err, sizeof err), 0);
  repl_access a = {0, 0, 0, 1, 1};
  /* invalid ways are used without asking the policy */
  for (uint32_t w = 0; w < 4; ++w) {
    assert_int_equal(cache_victim(&c, w * 128, &a), (int)w);
    cache_install(&c, 0, w, w * 128, 0, &a);
  }
  assert_int_equal(cache_victim(&c, 0x1000, &a), REPL_BYPASS);
  a.allow_bypass = 0;
  assert_int_equal(cache_victim(&c, 0x1000, &a), CACHE_NO_WAY); /* bypass not allowed */
  g_bad_way = 2;
  assert_int_equal(cache_victim_masked(&c, 0x1000, 0x3, &a), CACHE_NO_WAY); /* way outside mask */
  assert_int_equal(cache_victim_masked(&c, 0x1000, 0x4, &a), 2);
  g_bad_way = 9;
  assert_int_equal(cache_victim(&c, 0x1000, &a), CACHE_NO_WAY); /* way out of range */
  g_bad_way = REPL_BYPASS;
  cache_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hit_miss_and_sectors), cmocka_unit_test(lru_order_4),
      cmocka_unit_test(lru_order_8),          cmocka_unit_test(lru_order_16),
      cmocka_unit_test(lru_hand_sequence),    cmocka_unit_test(way_mask_respected),
      cmocka_unit_test(set_stride_uses_all_sets), cmocka_unit_test(invalidate_all_and_data),
      cmocka_unit_test(cfg_validation),       cmocka_unit_test(bypass_and_bad_policy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
