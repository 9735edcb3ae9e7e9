/* Unit tests of the memory-side policy hostpage (models/ref/memside/memside_hostpage.c) against a fake shell:
 * the host layout (a page's lines grouped by partition, no two lines at one host address), a promotion step by
 * step with two partitions sharing one manager (count GPU-wide, hold, drain, one host read, DRAM writes with the
 * right bytes, switch, release; the other partition promotes its own part on the shared count), the devices'
 * feedback in the stats, the decay timer (partition 0 only, one wake-up per period, stops when idle, halves
 * the counters rounding up, dropped when the program is done), the limits (max_pages, the manager's budget) and the bad set-ups. */
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

#define PAGE 4096u
#define PERIOD_PS 2000000u /* the default memside.hostpage.decay_ns = 2000 */

static amap g_map;
static const memside_ops *O;

/* The fake shell plus a clock and the wake-ups asked for. */
typedef struct shell {
  fake_shell f; /* first: fake_issue / fake_release take the context as a fake_shell */
  uint64_t now;
  uint64_t wake_at[64];
  int nwake, unwakes;
} shell;

static uint64_t sh_now(void *ctx) { return ((shell *)ctx)->now; }
static int sh_wake(void *ctx, uint64_t at, uint64_t tag) {
  shell *s = (shell *)ctx;
  assert_int_equal(tag, 0);
  s->wake_at[s->nwake++] = at;
  return 0;
}
static uint32_t sh_unwake(void *ctx, uint64_t tag) {
  shell *s = (shell *)ctx;
  assert_int_equal(tag, 0);
  ++s->unwakes;
  return 1;
}

typedef struct part {
  memside_cfg c;
  memside_value par[8];
  void *st;
  shell sh;
  memside_env env;
} part;

/* Partition p with 1 GiB of host memory as its last device (host = 0: none), its state not initialised. */
static void part_setup(part *q, uint32_t p, memside_mgr *mgr, int64_t threshold, int64_t max_pages, int host) {
  memset(q, 0, sizeof *q);
  mst_partition(&q->c, &g_map, p, 1);
  if (host) mst_add_host(&q->c, 1ull << 30);
  q->c.program_end = 1u << 24;
  q->c.mgr = mgr;
  const memside_params *fam = O->params;
  mst_param_defaults(fam, q->par, sizeof q->par / sizeof *q->par);
  mst_set_param(fam, q->par, "threshold", threshold);
  mst_set_param(fam, q->par, "max_pages", max_pages);
  q->c.param = q->par;
  q->st = mst_state(O, &q->c);
  q->env = mst_fake_env(&q->sh.f); /* ctx: the shell, its fake_shell first */
  q->env.now_ps = sh_now;
  q->env.wake = sh_wake;
  q->env.unwake = sh_unwake;
}

static void part_init(part *q, uint32_t p, memside_mgr *mgr, int64_t threshold, int64_t max_pages) {
  part_setup(q, p, mgr, threshold, max_pages, 1);
  mst_init(O, q->st, &q->c, &q->env);
}

static void mgr_make(memside_mgr *m, uint64_t quantum, uint64_t budget, void **mem) {
  static shell clock; /* the budget's clock: the test sets clock.now */
  const memside_mgr_cfg c = {1024, quantum, budget, &clock, sh_now};
  *mem = mst_mgr(m, &c);
}

static int route(part *q, uint64_t pa, int write, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {pa, (uint8_t)write, (uint8_t)(write ? MEMSIDE_WRITEBACK : MEMSIDE_DEMAND), 0xf};
  memset(t, 0, sizeof *t);
  return O->route(q->st, &rq, ticket, t);
}

static void complete(part *q, uint64_t pa, int write, memside_target t, uint8_t row, uint32_t latency_ps) {
  const memside_req rq = {pa, (uint8_t)write, (uint8_t)(write ? MEMSIDE_WRITEBACK : MEMSIDE_DEMAND), 0xf};
  t.row = row;
  t.latency_ps = latency_ps;
  O->complete(q->st, &rq, &t);
}

static uint64_t stat(const part *q, const char *name) {
  uint64_t v[64];
  O->stat_values(q->st, v);
  for (int i = 0; O->stat_names[i]; ++i)
    if (strcmp(O->stat_names[i], name) == 0) return v[i];
  fail_msg("no stat %s", name);
  return 0;
}

static uint32_t partition_of(uint64_t pa) { return amap_channel(&g_map, pa); }

/* The lines of `page` in partition p, in address order; returns their number. */
static int lines_of(uint32_t p, uint64_t page, uint64_t *out) {
  int n = 0;
  for (uint64_t pa = page * PAGE; pa < (page + 1) * PAGE; pa += 128)
    if (partition_of(pa) == p) out[n++] = pa;
  return n;
}

/* ------------------------------------------------------------------- tests */

static void host_layout(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 0, &mem);
  part *q = calloc(8, sizeof *q);
  for (uint32_t p = 0; p < 8; ++p) part_init(&q[p], p, &m, 16, 64);
  const uint64_t pages[] = {0, 1, 7, 255, 4096, 123457};
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; ++k) {
    const uint64_t page = pages[k];
    uint32_t seen = 0; /* bit i: host slot i of the page taken */
    uint64_t next = page * PAGE; /* the partitions' parts follow each other in partition order */
    for (uint32_t p = 0; p < 8; ++p) {
      uint64_t l[32];
      const int n = lines_of(p, page, l);
      for (int i = 0; i < n; ++i) {
        memside_target t;
        O->locate(q[p].st, l[i], &t);
        assert_int_equal(t.dev, 1);
        assert_int_equal(t.kind, AMAP_MEM_HOST);
        assert_int_equal(O->kind_of(q[p].st, l[i]), AMAP_MEM_HOST);
        assert_int_equal(t.addr, next); /* contiguous, in address order */
        next += 128;
        const uint32_t slot = (uint32_t)((t.addr - page * PAGE) / 128);
        assert_false((seen >> slot) & 1u);
        seen |= 1u << slot;
      }
    }
    assert_int_equal(seen, 0xffffffffu); /* every line of the page has its own host slot */
  }
  for (uint32_t p = 0; p < 8; ++p) free(q[p].st);
  free(q);
  free(mem);
}

static void promotion_steps(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 0, &mem);
  part *p0 = calloc(1, sizeof *p0), *p1 = calloc(1, sizeof *p1);
  part_init(p0, 0, &m, 4, 64);
  part_init(p1, 1, &m, 4, 64);
  const uint64_t page = 0x40;
  uint64_t a[32], b[32];
  const int na = lines_of(0, page, a), nb = lines_of(1, page, b);
  assert_true(na >= 3 && nb >= 1);
  uint64_t before = 0; /* lines of the page in partitions below 0: none */
  memside_target ta0, ta1, ta0b, tb0, t;
  uint32_t tk = 0;

  /* accesses 1-3 of the page, GPU-wide: p0, p1, p0 (a write-back) -- all to the host, nothing moves */
  assert_int_equal(route(p0, a[0], 0, &tk, &ta0), MEMSIDE_GO);
  assert_int_equal(ta0.dev, 1);
  assert_int_equal(stat(p0, "first_touches"), 1);
  assert_int_equal(p0->sh.nwake, 1); /* partition 0 keeps the decay timer */
  assert_int_equal(p0->sh.wake_at[0], PERIOD_PS);
  assert_int_equal(route(p1, b[0], 0, &tk, &tb0), MEMSIDE_GO);
  assert_int_equal(stat(p1, "first_touches"), 0); /* p1 found p0's counter of the page: one entry */
  assert_int_equal(p1->sh.nwake, 0);
  assert_int_equal(memside_mgr_page_count(&m, b[0]), 2);
  complete(p1, b[0], 0, tb0, MEMSIDE_ROW_HIT, 150000);
  assert_int_equal(route(p0, a[1], 1, &tk, &ta1), MEMSIDE_GO);
  assert_int_equal(p0->sh.f.n, 0);
  /* access 4 reaches the threshold: p0's promotion starts, but waits for its 3 host accesses in flight */
  assert_int_equal(route(p0, a[0], 0, &tk, &ta0b), MEMSIDE_GO);
  assert_int_equal(ta0b.dev, 1);
  assert_true(O->busy(p0->st));
  assert_int_equal(p0->sh.f.n, 0);
  /* step 1: a new access to the page is held (ticket = slot + 1), counted once */
  tk = 0;
  assert_int_equal(route(p0, a[2], 0, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(tk, 1);
  assert_int_equal(stat(p0, "held"), 1);
  assert_int_equal(m.st.accesses, 5);
  /* step 2: drained once the three have been answered */
  complete(p0, a[0], 0, ta0, MEMSIDE_ROW_HIT, 100000);
  complete(p0, a[1], 1, ta1, MEMSIDE_ROW_HIT, 120000);
  assert_int_equal(p0->sh.f.n, 0);
  complete(p0, a[0], 0, ta0b, MEMSIDE_ROW_HIT, 140000);
  /* step 3: one read of p0's part from the host */
  assert_int_equal(p0->sh.f.n, 1);
  const memside_xfer rd = p0->sh.f.x[0];
  assert_int_equal(rd.dev, 1);
  assert_int_equal(rd.addr, page * PAGE + before * 128);
  assert_int_equal(rd.bytes, 128u * (unsigned)na);
  assert_int_equal(rd.write, 0);
  assert_int_equal(rd.cls, MEMSIDE_PAGE_IN);
  for (unsigned i = 0; i < rd.bytes; ++i) rd.buf[i] = (unsigned char)(i / 128 * 16 + i % 7); /* the host's bytes */
  O->done(p0->st, rd.tag);
  /* step 4: the part written to DRAM, each line at its static place with its own bytes */
  assert_true(p0->sh.f.n >= 2);
  unsigned written = 0;
  for (int k = 1; k < p0->sh.f.n; ++k) {
    const memside_xfer *w = &p0->sh.f.x[k];
    assert_int_equal(w->dev, 0);
    assert_int_equal(w->write, 1);
    assert_int_equal(w->cls, MEMSIDE_PAGE_IN);
    written += w->bytes;
  }
  assert_int_equal(written, rd.bytes);
  for (int i = 0; i < na; ++i) {
    memside_target s;
    memside_static_locate(&p0->c, a[i], &s);
    int found = 0;
    for (int k = 1; k < p0->sh.f.n; ++k) {
      const memside_xfer *w = &p0->sh.f.x[k];
      if (s.addr < w->addr || s.addr >= w->addr + w->bytes) continue;
      ++found;
      const unsigned char *src = w->buf + (s.addr - w->addr);
      for (unsigned j = 0; j < 128; ++j) assert_int_equal(src[j], (unsigned char)(i * 16 + (i * 128 + j) % 7));
    }
    assert_int_equal(found, 1);
  }
  O->locate(p0->st, a[0], &t);
  assert_int_equal(t.dev, 1); /* not switched before the writes are done */
  assert_int_equal(p0->sh.f.nrel, 0);
  for (int k = 1; k < p0->sh.f.n; ++k) O->done(p0->st, p0->sh.f.x[k].tag);
  /* step 5: switched, released */
  assert_false(O->busy(p0->st));
  assert_int_equal(p0->sh.f.nrel, 1);
  assert_int_equal(p0->sh.f.released[0], 1);
  memside_target s;
  memside_static_locate(&p0->c, a[1], &s);
  O->locate(p0->st, a[1], &t);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, s.addr);
  assert_int_equal(O->kind_of(p0->st, a[1]), AMAP_MEM_DRAM);
  assert_int_equal(stat(p0, "promotions"), 1);
  assert_int_equal(stat(p0, "promoted_bytes"), rd.bytes);
  memside_stats ms;
  O->stats(p0->st, &ms);
  assert_int_equal(ms.moves, 1);
  assert_int_equal(ms.moved_bytes, rd.bytes);
  /* the held access, routed again with its ticket: DRAM, not counted twice */
  assert_int_equal(route(p0, a[2], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(m.st.accesses, 5);
  /* the devices' feedback reaches the stats: DRAM row outcomes and service times, the host's */
  complete(p0, a[2], 0, t, MEMSIDE_ROW_MISS, 30000);
  complete(p0, a[2], 1, t, MEMSIDE_ROW_CONFLICT, 40000);
  complete(p0, a[2], 0, t, MEMSIDE_ROW_HIT, 20000);
  assert_int_equal(stat(p0, "row_misses"), 1);
  assert_int_equal(stat(p0, "row_conflicts"), 1);
  assert_int_equal(stat(p0, "row_hits"), 1);
  assert_int_equal(stat(p0, "dram_reads"), 2);
  assert_int_equal(stat(p0, "dram_writes"), 1);
  assert_int_equal(stat(p0, "dram_read_bytes"), 256);
  assert_int_equal(stat(p0, "dram_latency_ps"), 90000);
  assert_int_equal(stat(p0, "host_reads"), 2);
  assert_int_equal(stat(p0, "host_writes"), 1);
  assert_int_equal(stat(p0, "host_latency_ps"), 360000);
  /* p1: its part is still on the host; the page's shared count (6) is past the threshold, so p1's next
   * access promotes p1's part -- one read at the host range after p0's lines */
  assert_int_equal(route(p1, b[0], 0, &tk, &tb0), MEMSIDE_GO);
  assert_int_equal(tb0.dev, 1);
  assert_true(O->busy(p1->st));
  complete(p1, b[0], 0, tb0, MEMSIDE_ROW_HIT, 150000);
  assert_int_equal(p1->sh.f.n, 1);
  assert_int_equal(p1->sh.f.x[0].addr, page * PAGE + 128u * (unsigned)na);
  assert_int_equal(p1->sh.f.x[0].bytes, 128u * (unsigned)nb);
  free(p0->st);
  free(p1->st);
  free(p0);
  free(p1);
  free(mem);
}

static void decay_timer(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 0, &mem);
  part *p0 = calloc(1, sizeof *p0), *p1 = calloc(1, sizeof *p1);
  part_init(p0, 0, &m, 1000, 64); /* no promotion */
  part_init(p1, 1, &m, 1000, 64);
  uint64_t a[32], b[32];
  lines_of(0, 9, a);
  lines_of(1, 10, b);
  memside_target t;
  uint32_t tk = 0;
  p0->sh.now = 500;
  for (int i = 0; i < 6; ++i) assert_int_equal(route(p0, a[0], 0, &tk, &t), MEMSIDE_GO);
  for (int i = 0; i < 3; ++i) assert_int_equal(route(p1, b[0], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(p0->sh.nwake, 1); /* one wake-up pending, however many accesses */
  assert_int_equal(p0->sh.wake_at[0], 500 + PERIOD_PS);
  assert_int_equal(p1->sh.nwake, 0); /* the other partitions never ask */
  /* the period ends: the counters halve (rounding up), and since accesses came, the timer goes on */
  p0->sh.now = 500 + PERIOD_PS;
  O->wake(p0->st, p0->sh.now, 0);
  assert_int_equal(memside_mgr_page_count(&m, a[0]), 3);
  assert_int_equal(memside_mgr_page_count(&m, b[0]), 2);
  assert_int_equal(p0->sh.nwake, 2);
  assert_int_equal(p0->sh.wake_at[1], 500 + 2 * PERIOD_PS);
  /* a period without accesses anywhere: halve once more and stop */
  p0->sh.now += PERIOD_PS;
  O->wake(p0->st, p0->sh.now, 0);
  assert_int_equal(memside_mgr_page_count(&m, a[0]), 2);
  assert_int_equal(memside_mgr_page_count(&m, b[0]), 1);
  assert_int_equal(p0->sh.nwake, 2);
  assert_int_equal(stat(p0, "decays"), 2);
  assert_int_equal(stat(p1, "decays"), 0);
  /* a count of 1 stays 1: the page keeps its entry */
  memside_mgr_decay(&m);
  assert_int_equal(memside_mgr_page_count(&m, b[0]), 1);
  assert_int_equal(m.pages, 2);
  /* p1's accesses do not restart partition 0's timer; p0's next access does */
  assert_int_equal(route(p1, b[0], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(p0->sh.nwake, 2);
  p0->sh.now += 12345;
  assert_int_equal(route(p0, a[0], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(p0->sh.nwake, 3);
  assert_int_equal(p0->sh.wake_at[2], p0->sh.now + PERIOD_PS);
  /* a kernel ends: nothing changes; the program ends: the pending wake-up is dropped (it would keep the
   * simulation going) and no access starts the timer again */
  O->kernel_boundary(p0->st, 0, 0);
  assert_int_equal(p0->sh.unwakes, 0);
  O->kernel_boundary(p1->st, 1, 1);
  assert_int_equal(p1->sh.unwakes, 0); /* p1 has no timer */
  O->kernel_boundary(p0->st, 1, 1);
  assert_int_equal(p0->sh.unwakes, 1);
  assert_int_equal(route(p0, a[0], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(p0->sh.nwake, 3);
  free(p0->st);
  free(p1->st);
  free(p0);
  free(p1);
  free(mem);
}

/* Promote `page`'s part of q completely (its accesses answered at once); returns the transfers issued. */
static int promote(part *q, uint64_t page) {
  uint64_t l[32];
  lines_of(q->c.partition, page, l);
  const int n0 = q->sh.f.n;
  memside_target t;
  uint32_t tk = 0;
  for (int i = 0; i < 4 && q->sh.f.n == n0; ++i) {
    assert_int_equal(route(q, l[0], 0, &tk, &t), MEMSIDE_GO);
    complete(q, l[0], 0, t, MEMSIDE_ROW_HIT, 1000);
  }
  if (q->sh.f.n == n0) return 0;
  O->done(q->st, q->sh.f.x[n0].tag);
  for (int k = n0 + 1; k < q->sh.f.n; ++k) O->done(q->st, q->sh.f.x[k].tag);
  return q->sh.f.n - n0;
}

static void limits(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 0, &mem);
  part *q = calloc(1, sizeof *q);
  part_init(q, 0, &m, 2, 1); /* one page at most */
  assert_true(promote(q, 3) >= 2);
  assert_int_equal(stat(q, "promotions"), 1);
  assert_int_equal(promote(q, 4), 0); /* hot, but the table is full: stays on the host */
  assert_true(stat(q, "full") >= 1);
  assert_int_equal(stat(q, "promotions"), 1);
  free(q->st);
  free(mem);
  /* the manager's migration budget: 512 B per 1 ns; a part of 4 lines is 512 B */
  mgr_make(&m, 1000, 512, &mem);
  part_init(q, 0, &m, 2, 64);
  assert_true(promote(q, 3) >= 2);
  assert_int_equal(promote(q, 4), 0); /* the same quantum: refused */
  assert_true(stat(q, "denied") >= 1);
  assert_int_equal(m.st.granted_bytes, 512);
  free(q->st);
  free(q);
  free(mem);
}

static void bad_setups(void **state) {
  (void)state;
  memside_mgr m;
  void *mem;
  mgr_make(&m, 0, 0, &mem);
  part *q = calloc(1, sizeof *q);
  part_setup(q, 0, NULL, 16, 64, 1); /* no manager */
  mst_init_refused(O, q->st, &q->c, &q->env, "memside.mgr.page_counters");
  free(q->st);
  part_setup(q, 0, &m, 16, 64, 0); /* no host device */
  mst_init_refused(O, q->st, &q->c, &q->env, "hostpath.link");
  free(q->st);
  part_setup(q, 0, &m, 16, 64, 1); /* no parameter values */
  q->c.param = NULL;
  mst_init_refused(O, q->st, &q->c, &q->env, NULL);
  free(q->st);
  part_setup(q, 0, &m, 16, 64, 1); /* a host smaller than the program */
  q->c.program_end = (1ull << 30) + 1;
  mst_init_refused(O, q->st, &q->c, &q->env, "hostpath.size: expected at least 1073745920 B");
  free(q->st);
  /* the parameters: declared in the policy's file, with their prefix and ranges */
  const memside_params *fam = O->params;
  assert_string_equal(fam->prefix, "memside.hostpage.");
  assert_int_equal(fam->count, 3);
  memside_value v;
  assert_int_equal(memside_param_parse(&fam->param[memside_param_index(fam, "threshold")], "1", &v), -1);
  assert_int_equal(memside_param_parse(&fam->param[memside_param_index(fam, "decay_ns")], "0", &v), -1);
  assert_int_equal(memside_param_parse(&fam->param[memside_param_index(fam, "max_pages")], "0", &v), -1);
  free(q);
  free(mem);
}

static int setup(void **state) {
  (void)state;
  O = memside_find("hostpage");
  if (!O) return -1;
  return mst_map_init(&g_map);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_layout),
      cmocka_unit_test(promotion_steps),
      cmocka_unit_test(decay_timer),
      cmocka_unit_test(limits),
      cmocka_unit_test(bad_setups),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
