/* Unit tests of the GPU-wide memory-side manager (models/ref/memside/memside_mgr.h):
 * the page-access counters (a page's count, the coldest page giving way in a
 * full probe window), the migration budget per quantum on a fake clock, and
 * two partitions' swap policies sharing one manager: the accesses both route
 * to one 4 KiB page add up in its counter, and only one of the two exchanges
 * fits a quantum's budget, the other starts in the next quantum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside/memside_mgr.h"
#include "memside_test_env.h"

static uint64_t g_now; /* the fake clock, ps */
static uint64_t fake_now(void *ctx) {
  (void)ctx;
  return g_now;
}

static void mgr_make(memside_mgr *m, uint32_t slots, uint64_t quantum, uint64_t budget, void **mem) {
  const memside_mgr_cfg c = {slots, quantum, budget, NULL, fake_now};
  *mem = mst_mgr(m, &c);
}

static void page_counters(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 16, 0, 0, &mem);
  assert_int_equal(memside_mgr_count(&m, 0x5000), 1);
  assert_int_equal(memside_mgr_count(&m, 0x5f80), 2); /* same 4 KiB page */
  assert_int_equal(memside_mgr_count(&m, 0x6000), 1); /* the next page */
  assert_int_equal(memside_mgr_page_count(&m, 0x5040), 2);
  assert_int_equal(memside_mgr_page_count(&m, 0x9000), 0); /* never counted */
  assert_int_equal(memside_mgr_page_count(&m, 0x5040), 2); /* a query counts nothing */
  assert_int_equal(m.pages, 2);
  /* fill the table: 16 slots, every page lands in the 8-slot window of its hash; more pages than slots make
   * the coldest give way, never the hot page 0x5000 */
  for (int k = 0; k < 4; ++k) (void)memside_mgr_count(&m, 0x5000);
  for (uint64_t p = 100; p < 200; ++p) (void)memside_mgr_count(&m, p * 4096);
  assert_int_equal(m.pages, 16);
  assert_true(m.st.replaced > 0);
  assert_int_equal(memside_mgr_page_count(&m, 0x5000), 6);
  assert_int_equal(m.st.accesses, 3 + 4 + 100);
  free(mem);
}

static void budget_per_quantum(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 1000, 512, &mem);
  g_now = 10;
  assert_int_equal(memside_mgr_count(&m, 0), 0); /* no counters configured */
  assert_int_equal(memside_mgr_take_budget(&m, 256), 1);
  assert_int_equal(memside_mgr_take_budget(&m, 256), 1);
  assert_int_equal(memside_mgr_take_budget(&m, 1), 0); /* the quantum's 512 B are spent */
  assert_int_equal(memside_mgr_next_quantum_ps(&m), 1000);
  g_now = 999;
  assert_int_equal(memside_mgr_take_budget(&m, 1), 0);
  g_now = 1000; /* the next quantum: refilled */
  assert_int_equal(memside_mgr_take_budget(&m, 512), 1);
  assert_int_equal(memside_mgr_take_budget(&m, 128), 0);
  g_now = 5500;
  assert_int_equal(memside_mgr_take_budget(&m, 4096), 1); /* larger than a budget: granted in an unspent quantum */
  assert_int_equal(memside_mgr_take_budget(&m, 1), 0);
  assert_int_equal(m.st.granted_bytes, 256 + 256 + 512 + 4096);
  assert_int_equal(m.st.denied, 4);
  free(mem);
  /* bad set-ups */
  memside_mgr_cfg c = {24, 0, 0, NULL, NULL};
  char err[200];
  assert_int_equal(memside_mgr_init(&m, &c, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "memside.mgr.page_counters"));
  c = (memside_mgr_cfg){0, 1000, 0, NULL, fake_now};
  assert_int_equal(memside_mgr_init(&m, &c, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "memside.mgr.budget_bytes"));
}

/* ------------------------------------------- two partitions share one manager */

static amap g_map;

typedef struct part {
  memside_cfg c;
  memside_value par[8];
  const memside_ops *o;
  void *st;
  fake_shell f;
  memside_env env;
  uint64_t a, b;
} part;

/* Two lines of partition `p` 64 KiB apart (a swap pair). */
static void pair_of(uint32_t p, uint64_t *a, uint64_t *b) {
  *a = UINT64_MAX;
  for (uint64_t pa = 1u << 20; pa < (1u << 24); pa += 128) {
    if (amap_channel(&g_map, pa) != p) continue;
    if (*a == UINT64_MAX) *a = pa;
    else if (pa >= *a + 65536) {
      *b = pa;
      return;
    }
  }
  fail();
}

static void part_init(part *q, uint32_t p, memside_mgr *mgr) {
  memset(q, 0, sizeof *q);
  mst_partition(&q->c, &g_map, p, 1);
  q->c.mgr = mgr;
  q->o = memside_find("swap");
  assert_non_null(q->o);
  const memside_params *fam = q->o->params;
  mst_param_defaults(fam, q->par, sizeof q->par / sizeof *q->par);
  pair_of(p, &q->a, &q->b);
  mst_set_param(fam, q->par, "a", (int64_t)q->a);
  mst_set_param(fam, q->par, "b", (int64_t)q->b);
  mst_set_param(fam, q->par, "after", 2);
  q->c.param = q->par;
  q->env = mst_fake_env(&q->f);
  q->st = mst_policy(q->o, &q->c, &q->env);
}

static int route_line(part *q, uint64_t pa) {
  uint32_t ticket = 0;
  const memside_req rq = {pa, 0, MEMSIDE_FILL, 0xf};
  memside_target t;
  const int r = q->o->route(q->st, &rq, &ticket, &t);
  if (r == MEMSIDE_GO) q->o->complete(q->st, &rq, &t);
  return r;
}

/* Run q's exchange to its end (reads then writes done). */
static void finish_swap(part *q) {
  assert_int_equal(q->f.n, 2);
  for (int i = 0; i < 2; ++i) q->o->done(q->st, q->f.x[i].tag);
  assert_int_equal(q->f.n, 4);
  for (int i = 2; i < 4; ++i) q->o->done(q->st, q->f.x[i].tag);
  assert_false(q->o->busy(q->st));
}

static void two_partitions_share(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 64, 1000, 512, &mem); /* one exchange (2 x 256 B) per 1 ns */
  part *p0 = calloc(1, sizeof *p0), *p1 = calloc(1, sizeof *p1);
  part_init(p0, 0, &m);
  part_init(p1, 1, &m);
  g_now = 100;
  /* a 4 KiB page spans every partition (line interleave): a line of p0's page in partition 1 */
  const uint64_t page = p0->a & ~4095ull;
  uint64_t other = UINT64_MAX;
  for (uint64_t pa = page; pa < page + 4096; pa += 128)
    if (amap_channel(&g_map, pa) == 1) other = pa;
  assert_true(other != UINT64_MAX);
  assert_int_equal(route_line(p0, p0->a), MEMSIDE_GO); /* p0: access 1 */
  assert_int_equal(route_line(p1, other), MEMSIDE_GO); /* p1: access 1, to p0's page */
  assert_int_equal(memside_mgr_page_count(&m, p0->a), 2); /* one GPU-wide count of the page */
  /* access 2 of each: p0 asks first and gets the quantum's budget, p1 is refused and keeps flowing */
  assert_int_equal(route_line(p0, p0->b + 128 * 8), MEMSIDE_GO);
  assert_true(p0->o->busy(p0->st));
  assert_int_equal(p0->f.n, 2);
  assert_int_equal(route_line(p1, p1->b + 128 * 8), MEMSIDE_GO);
  assert_false(p1->o->busy(p1->st));
  assert_int_equal(p1->f.n, 0);
  assert_int_equal(m.st.denied, 1);
  finish_swap(p0);
  assert_int_equal(route_line(p1, p1->b + 128 * 16), MEMSIDE_GO); /* same quantum: refused again */
  assert_int_equal(p1->f.n, 0);
  g_now = 1000; /* the next quantum: p1's next access starts its exchange */
  assert_int_equal(route_line(p1, p1->b + 128 * 24), MEMSIDE_GO);
  assert_true(p1->o->busy(p1->st));
  finish_swap(p1);
  assert_int_equal(m.st.granted_bytes, 1024);
  assert_int_equal(m.st.denied, 2);
  assert_int_equal(m.st.accesses, 6);
  memside_stats s0, s1;
  p0->o->stats(p0->st, &s0);
  p1->o->stats(p1->st, &s1);
  assert_int_equal(s0.moves + s1.moves, 4);
  free(p0->st);
  free(p1->st);
  free(p0);
  free(p1);
  free(mem);
}

static int setup(void **state) {
  (void)state;
  return mst_map_init(&g_map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(page_counters),
      cmocka_unit_test(budget_per_quantum),
      cmocka_unit_test(two_partitions_share),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
