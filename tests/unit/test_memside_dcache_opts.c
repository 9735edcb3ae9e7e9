/* Unit tests of the DRAM-cache engine's two options the HMS paper leaves open
 * (models/ref/memside/memside_dcache_engine.c, docs/hms.md "Slot index and
 * busy slots"), through the memory-side interface and a fake shell:
 *  - memside.dcache.index = hashed: blocks one cache size apart (one slot
 *    under the linear index) land in different slots and stay cached
 *    together; the blocks of one tag still fill every slot exactly once;
 *  - memside.dcache.busy = wait: a read miss that finds every MSHR busy waits
 *    for one and is filled afterwards (no busy bypass); with the bypass
 *    policy, a fill the policy chose whose slot another fill holds waits for
 *    the slot and is filled afterwards. With the defaults each case is a busy
 *    bypass, which the tests assert too, so they show the option changes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside/memside_dcache_params.h"
#include "memside_fake_shell.h"
#include "memside_test_env.h"

/* dcache stat values (dcache_stat_names order) */
enum { V_READ_MISSES = 2, V_FILLS = 6, V_BYPASSES = 9, V_BYPASS_BUSY = 15 };
#define SLOTS 112u /* 16 rows of 2 KiB (one per bank) x 7 lines of 256 B (setup) */
#define TICKET_MSHRWAIT 0x10000000u

static amap g_map;
static memside_cfg g_cfg;
static memside_value g_par[32];

typedef struct rig {
  const memside_ops *o;
  void *st;
  fake_shell f;
  memside_env env;
  memside_value pv[32];
  memside_cfg c;
} rig;

static void set_par(memside_value *pv, const char *name, int64_t x) {
  const int k = memside_param_index(&memside_dcache_params, name);
  assert_true(k >= 0);
  pv[k].i = x;
}

/* A rig over g_cfg with index (0 linear, 1 hashed), busy (0 bypass, 1 wait), MSHRs and the bypass policy. */
static void rig_init(rig *r, int hashed, int wait, int mshrs, int bypass) {
  memset(r, 0, sizeof *r);
  r->c = g_cfg;
  memcpy(r->pv, g_par, sizeof g_par);
  r->c.param = r->pv;
  set_par(r->pv, "index", hashed);
  set_par(r->pv, "busy", wait);
  set_par(r->pv, "mshrs", mshrs);
  set_par(r->pv, "bypass", bypass);
  r->o = memside_find("dcache");
  assert_non_null(r->o);
  r->st = calloc(1, r->o->state_bytes(&r->c));
  r->env = (memside_env){.ctx = &r->f, .issue = fake_issue, .release = fake_release};
  char err[256];
  assert_int_equal(r->o->init(r->st, &r->c, &r->env, err, sizeof err), 0);
}

static int route(rig *r, uint64_t pa, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {pa, 0, MEMSIDE_FILL, 0xf};
  return r->o->route(r->st, &rq, ticket, t);
}

static void complete(rig *r, uint64_t pa, const memside_target *t) {
  const memside_req rq = {pa, 0, MEMSIDE_FILL, 0xf};
  r->o->complete(r->st, &rq, t);
}

/* Finish every policy transfer issued from index *from on, in order (those they start too). */
static void finish_xfers(rig *r, int *from) {
  while (*from < r->f.n) r->o->done(r->st, r->f.x[(*from)++].tag);
}

/* A read routed until it goes (its probe answered on the way); returns MEMSIDE_HOLD if it is held for
 * anything but a probe (*ticket then names the wait). */
static int read_until_go(rig *r, uint64_t pa, uint32_t *ticket, memside_target *t) {
  for (int i = 0; i < 4; ++i) {
    const int n0 = r->f.n;
    if (route(r, pa, ticket, t) == MEMSIDE_GO) return MEMSIDE_GO;
    if (r->f.n == n0 + 1 && r->f.x[n0].cls == MEMSIDE_PROBE) {
      r->o->done(r->st, r->f.x[n0].tag);
      continue;
    }
    return MEMSIDE_HOLD;
  }
  fail_msg("read of %llx never settled", (unsigned long long)pa);
  return MEMSIDE_HOLD;
}

/* A read miss of pa served and its fill run to the end; the fake shell's records cleared. Returns the DRAM
 * address the line was written to (UINT64_MAX if none). */
static uint64_t read_and_fill(rig *r, uint64_t pa) {
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(read_until_go(r, pa, &tk, &t), MEMSIDE_GO);
  int from = 0;
  complete(r, pa, &t);
  finish_xfers(r, &from);
  uint64_t dram = UINT64_MAX;
  for (int i = 0; i < r->f.n; ++i)
    if (r->f.x[i].write && r->f.x[i].cls == MEMSIDE_FILL) dram = r->f.x[i].addr;
  r->f.n = r->f.nrel = 0;
  return dram;
}

static devaddr_loc loc_of(uint64_t a) {
  devaddr_loc l;
  devaddr_decode(&g_cfg.geom[0], a, &l);
  return l;
}

static void block_lines(uint64_t *pa, unsigned n) { mst_scm_block_lines(&g_map, &g_cfg, pa, n); }

static int in_dram(rig *r, uint64_t pa) {
  memside_target t;
  r->o->locate(r->st, pa, &t);
  return t.kind == AMAP_MEM_DRAM;
}

static uint64_t g_pa[4 * SLOTS];

/* Blocks k, k + SLOTS, k + 2 SLOTS, k + 3 SLOTS: one slot under the linear index, so each fill evicts the
 * one before; under the hashed index four slots, all four lines cached at the end. */
static void hashed_index_spreads_a_stride(void **state) {
  (void)state;
  for (int hashed = 0; hashed < 2; ++hashed) {
    rig r;
    rig_init(&r, hashed, 0, 4, 0);
    uint64_t where[4];
    for (int j = 0; j < 4; ++j) where[j] = read_and_fill(&r, g_pa[5 + j * SLOTS]);
    int cached = 0, distinct = 0;
    for (int j = 0; j < 4; ++j) {
      assert_true(where[j] != UINT64_MAX);
      cached += in_dram(&r, g_pa[5 + j * SLOTS]);
      int seen = 0;
      for (int k = 0; k < j; ++k) seen |= where[k] == where[j];
      distinct += !seen;
    }
    if (hashed) {
      assert_int_equal(cached, 4);
      assert_int_equal(distinct, 4);
    } else {
      assert_int_equal(cached, 1); /* the last one */
      assert_int_equal(distinct, 1);
      assert_true(in_dram(&r, g_pa[5 + 3 * SLOTS]));
    }
    free(r.st);
  }
}

/* The hashed index is a bijection per tag: the SLOTS blocks of tag 2 fill SLOTS different DRAM lines and all
 * stay cached; consecutive blocks keep consecutive slots (the same DRAM row but at a row's end). */
static void hashed_index_is_a_bijection_per_tag(void **state) {
  (void)state;
  rig r;
  rig_init(&r, 1, 0, 4, 0);
  static uint64_t where[SLOTS];
  for (unsigned i = 0; i < SLOTS; ++i) {
    where[i] = read_and_fill(&r, g_pa[2 * SLOTS + i]);
    assert_true(where[i] != UINT64_MAX);
    for (unsigned k = 0; k < i; ++k) assert_true(where[k] != where[i]);
  }
  const devaddr_loc w0 = loc_of(where[0]); /* block 2 x SLOTS is not in slot 0 (row 0 of bank 0, column 0) */
  assert_true(w0.row || w0.bg || w0.ba || w0.col);
  for (unsigned i = 0; i < SLOTS; ++i) assert_true(in_dram(&r, g_pa[2 * SLOTS + i]));
  int same_row_next = 0;
  for (unsigned i = 0; i + 1 < SLOTS; ++i) {
    const devaddr_loc a = loc_of(where[i]), b = loc_of(where[i + 1]);
    same_row_next += a.row == b.row && a.bg == b.bg && a.ba == b.ba && b.col == a.col + 8;
  }
  /* of the 111 pairs of consecutive blocks, all but the 15 or 16 whose first slot ends a row (16 row ends;
   * the rotation decides where the run of slots wraps) are side by side in one row */
  assert_in_range(same_row_next, SLOTS - 1 - 16, SLOTS - 1 - 15);
  free(r.st);
}

/* One MSHR: a second read miss finds it busy. Default: served by SCM without a fill (a busy bypass). wait:
 * held until the first fill frees the MSHR, then served by SCM and filled; no bypass counted. */
static void waiting_read_fills_afterwards(void **state) {
  (void)state;
  for (int wait = 0; wait < 2; ++wait) {
    rig r;
    rig_init(&r, 0, wait, 1, 0);
    uint32_t t0 = 0, t1 = 0;
    memside_target a, b;
    assert_int_equal(read_until_go(&r, g_pa[0], &t0, &a), MEMSIDE_GO); /* its fill takes the only MSHR */
    const int fill0 = r.f.n;
    const int how = read_until_go(&r, g_pa[1], &t1, &b);
    uint64_t vals[32];
    if (!wait) {
      assert_int_equal(how, MEMSIDE_GO);
      assert_int_equal(b.kind, AMAP_MEM_SCM);
      int from = 0;
      complete(&r, g_pa[0], &a);
      complete(&r, g_pa[1], &b);
      finish_xfers(&r, &from);
      assert_false(in_dram(&r, g_pa[1]));
      r.o->stat_values(r.st, vals);
      assert_int_equal(vals[V_BYPASS_BUSY], 1);
      assert_int_equal(vals[V_FILLS], 1);
      free(r.st);
      continue;
    }
    assert_int_equal(how, MEMSIDE_HOLD);
    assert_int_equal(t1, TICKET_MSHRWAIT);
    for (int i = fill0; i < r.f.n; ++i) assert_int_equal(r.f.x[i].cls, MEMSIDE_PROBE); /* nothing to SCM */
    int from = 0;
    complete(&r, g_pa[0], &a);
    finish_xfers(&r, &from);
    int woke = 0;
    for (int i = 0; i < r.f.nrel; ++i) woke |= r.f.released[i] == TICKET_MSHRWAIT;
    assert_true(woke);
    assert_int_equal(route(&r, g_pa[1], &t1, &b), MEMSIDE_GO); /* tags known: no second probe */
    assert_int_equal(b.kind, AMAP_MEM_SCM);
    const int n1 = r.f.n;
    assert_true(n1 > from);
    assert_int_equal(r.f.x[n1 - 1].bytes, 256); /* its fill's SCM read */
    assert_int_equal(r.f.x[n1 - 1].write, 0);
    complete(&r, g_pa[1], &b);
    finish_xfers(&r, &from);
    assert_true(in_dram(&r, g_pa[0]));
    assert_true(in_dram(&r, g_pa[1]));
    r.o->stat_values(r.st, vals);
    assert_int_equal(vals[V_BYPASS_BUSY], 0);
    assert_int_equal(vals[V_BYPASSES], 0);
    assert_int_equal(vals[V_FILLS], 2);
    assert_int_equal(vals[V_READ_MISSES], 2); /* the waiting read counted once */
    free(r.st);
  }
}

/* The bypass policy (HMS): two read misses of one slot (blocks k and k + SLOTS) take MSHRs that wait for
 * their decisions; the first decided fills and holds the slot, the second is decided to fill while the slot
 * is held. Default: a busy bypass, the first line stays. wait: the second waits for the slot and fills once
 * the first fill ends, evicting the first line. */
static void decided_fill_waits_for_its_slot(void **state) {
  (void)state;
  for (int wait = 0; wait < 2; ++wait) {
    rig r;
    rig_init(&r, 0, wait, 4, 1);
    const uint64_t p0 = g_pa[9], p1 = g_pa[9 + SLOTS];
    uint32_t t0 = 0, t1 = 0;
    memside_target a, b;
    assert_int_equal(read_until_go(&r, p0, &t0, &a), MEMSIDE_GO);
    assert_int_equal(read_until_go(&r, p1, &t1, &b), MEMSIDE_GO);
    assert_int_equal(a.kind, AMAP_MEM_SCM);
    assert_int_equal(b.kind, AMAP_MEM_SCM);
    int from = r.f.n;
    complete(&r, p0, &a); /* decided: fill, the slot claimed */
    const int fill_started = r.f.n > from;
    assert_true(fill_started);
    const int n0 = r.f.n;
    complete(&r, p1, &b); /* decided: fill, but the slot is held */
    assert_int_equal(r.f.n, n0); /* nothing issued for it yet */
    uint64_t vals[32];
    r.o->stat_values(r.st, vals);
    assert_int_equal(vals[V_BYPASS_BUSY], wait ? 0 : 1);
    finish_xfers(&r, &from);
    r.o->stat_values(r.st, vals);
    if (wait) {
      assert_false(in_dram(&r, p0)); /* evicted by the waiting fill */
      assert_true(in_dram(&r, p1));
      assert_int_equal(vals[V_FILLS], 2);
      assert_int_equal(vals[V_BYPASSES], 0);
    } else {
      assert_true(in_dram(&r, p0));
      assert_false(in_dram(&r, p1));
      assert_int_equal(vals[V_FILLS], 1);
      assert_int_equal(vals[V_BYPASSES], 1);
    }
    assert_false(r.o->busy(r.st));
    free(r.st);
  }
}

static int setup(void **state) {
  (void)state;
  static const uint32_t ch[8] = {0, 1, 2, 3, 4, 5, 6, 7}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg p[2] = {{AMAP_MEM_SCM, 1ull << 30, 8, 1, ch, r1}, {AMAP_MEM_DRAM, 1ull << 28, 8, 1, ch, r0}};
  char err[256];
  if (amap_init_parts(&g_map, p, 2, 0, NULL, 8, 2, 4, 4, 2048, 32, 2, 0, err, sizeof err) != 0) return -1;
  memset(&g_cfg, 0, sizeof g_cfg);
  g_cfg.map = &g_map;
  g_cfg.ndevs = 1;
  g_cfg.dev_channel[0] = 0;
  if (devaddr_init(&g_cfg.geom[0], 2, 4, 4, 64, 32, err, sizeof err) != 0) return -1;
  g_cfg.rank_kind[0][0] = AMAP_MEM_DRAM;
  g_cfg.rank_kind[0][1] = AMAP_MEM_SCM;
  g_cfg.rank_trcd[0][0] = 14, g_cfg.rank_twr[0][0] = 16;    /* hbm2 */
  g_cfg.rank_trcd[0][1] = 120, g_cfg.rank_twr[0][1] = 1000; /* scm_mlc */
  g_cfg.sys.nparts = 8;
  if (memside_dcache_params.count > 32 || memside_param_defaults(&memside_dcache_params, g_par) != -1) return -1;
  g_cfg.param = g_par;
  set_par(g_par, "size", 16 * 2048); /* one row per bank: 16 x 7 = 112 lines */
  block_lines(g_pa, 4 * SLOTS);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hashed_index_spreads_a_stride),
      cmocka_unit_test(hashed_index_is_a_bijection_per_tag),
      cmocka_unit_test(waiting_read_fills_afterwards),
      cmocka_unit_test(decided_fill_waits_for_its_slot),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
