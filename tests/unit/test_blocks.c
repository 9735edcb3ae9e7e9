/* Unit tests of the swappable blocks (models/ref/blocks/blocks.h): the registry
 * resolves every listed implementation by its own name; the "c" tag cache
 * and FLRB on one caller-owned state block behave as the allocating C API;
 * and the DRAM cache uses whatever implementation memside_cfg.blocks names:
 * a test-only bypass scorer that always fills (counting its calls) turns the
 * "c" scorer's bypasses into fills, and a counting wrapper around the "c"
 * tag cache sees exactly the lookups and fills the DRAM cache reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/blocks.h"
#include "memside/memside.h"
#include "memside/memside_dcache_params.h"
#include "memside_test_env.h"

static amap g_map;
static memside_cfg g_cfg;
static memside_value g_par[32]; /* g_cfg's DRAM-cache parameters (memside_dcache_params.c) */

/* Set DRAM-cache parameter `name` (as declared: "bypass", "=l2.ctc_ways", ...) in pv. */
static void set_par(memside_value *pv, const char *name, int64_t x) {
  mst_set_param(&memside_dcache_params, pv, name, x);
}

/* ------------------------------------------------------- registry */

static void registry_names_resolve(void **state) {
  (void)state;
  assert_string_equal(blocks_bypass_scorer_names(), "c");
  assert_string_equal(blocks_tag_cache_names(), "c");
  assert_string_equal(blocks_flrb_names(), "c");
  assert_ptr_equal(blocks_bypass_scorer("c"), &bps_c_ops);
  assert_ptr_equal(blocks_tag_cache("c"), &ctc_c_ops);
  assert_ptr_equal(blocks_flrb("c"), &flrb_c_ops);
  assert_string_equal(blocks_bypass_scorer("c")->name, "c");
  assert_null(blocks_bypass_scorer("rtl"));
  assert_null(blocks_tag_cache("C"));
  assert_null(blocks_flrb(NULL));
  assert_ptr_equal(memside_blocks_c.bypass_scorer, &bps_c_ops);
  assert_ptr_equal(memside_blocks_c.tag_cache, &ctc_c_ops);
  assert_ptr_equal(memside_blocks_c.flrb, &flrb_c_ops);
}

/* The "c" tag cache on a state block answers as ctc_init's: same results, field by field. */
static void ctc_c_ops_match_the_api(void **state) {
  (void)state;
  ctc_cfg cc;
  ctc_default_cfg(&cc);
  cc.sets = 4;
  cc.l2_ways = 1;
  ctc ref;
  assert_int_equal(ctc_init(&ref, &cc, NULL, 0), CTC_OK);
  const size_t n = ctc_c_ops.state_bytes(&cc);
  assert_true(n >= sizeof(ctc) + ctc_mem_bytes(&cc));
  void *st = malloc(n);
  memset(st, 0xa5, n); /* init must not rely on a zeroed block */
  assert_int_equal(ctc_c_ops.init(st, &cc, NULL, 0), CTC_OK);
  uint32_t x = 12345;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1103515245u + 12345u;
    const uint64_t row = (x >> 8) % 97;
    ctc_result a, b;
    int ra, rb;
    switch ((x >> 4) % 3) {
    case 0: ra = ctc_lookup(&ref, row, &a), rb = ctc_c_ops.lookup(st, row, &b); break;
    case 1: ra = ctc_fill(&ref, row, x, &a), rb = ctc_c_ops.fill(st, row, x, &b); break;
    default: ra = ctc_update(&ref, row, x, (int)(x & 1), &a), rb = ctc_c_ops.update(st, row, x, (int)(x & 1), &b); break;
    }
    assert_int_equal(ra, rb);
    assert_int_equal(a.hit, b.hit);
    assert_int_equal(a.stored, b.stored);
    assert_int_equal(a.evicted, b.evicted);
    assert_int_equal(a.data, b.data);
    assert_int_equal(a.n_wb, b.n_wb);
    for (uint32_t k = 0; k < a.n_wb; ++k) assert_int_equal(a.wb[k].row, b.wb[k].row);
  }
  cc.sets = 3; /* not a power of two: refused as ctc_init refuses it */
  char err[128] = "";
  assert_int_equal(ctc_c_ops.init(st, &cc, err, sizeof err), CTC_EINVAL);
  assert_non_null(strstr(err, "power of two"));
  ctc_free(&ref);
  free(st);
}

/* The "c" FLRB engine on a state block answers as flrb_init's, request by request. */
static void flrb_c_ops_match_the_api(void **state) {
  (void)state;
  flrb_cfg fc;
  flrb_cfg_default(&fc);
  fc.cap_w = 5;
  fc.bkt_w = 3;
  fc.ways = 2;
  flrb ref;
  assert_int_equal(flrb_init(&ref, &fc), 0);
  const size_t n = flrb_c_ops.state_bytes(&fc);
  void *st = malloc(n);
  memset(st, 0x5a, n);
  assert_int_equal(flrb_c_ops.init(st, &fc), 0);
  uint32_t x = 777;
  int evictions = 0;
  for (uint64_t now = 0; now < 5000; ++now) {
    x = x * 1103515245u + 12345u;
    flrb_req q = {(flrb_op)((x >> 7) % 5), (x >> 10) % 200, (x >> 3) & 1, (x >> 4) & 1, (x >> 5) & 1, (x >> 6) & 1,
                  now * 7};
    flrb_resp a, b;
    assert_int_equal(flrb_exec(&ref, &q, &a), flrb_c_ops.exec(st, &q, &b));
    assert_memory_equal(&a, &b, sizeof a);
    evictions += a.ev_valid;
    assert_int_equal(flrb_cycles_to_expiry(&ref, now * 7), flrb_c_ops.cycles_to_expiry(st, now * 7));
  }
  assert_true(evictions > 0); /* the sequence fills the 32 descriptors: evictions are compared too */
  assert_int_equal(flrb_check((const flrb *)st), 0);
  fc.ways = 0;
  assert_int_equal(flrb_c_ops.init(st, &fc), -1);
  flrb_free(&ref);
  free(st);
}

/* ------------------------------------------ the DRAM cache's blocks */

/* A test-only bypass scorer: the "c" one underneath (its state first in the block), every miss decided
 * "fill" with the affinity level "c" computed, and its calls counted. */
static struct {
  int inits, hits, misses, numerators;
} g_bps_calls;

static size_t fill_state_bytes(void) { return bps_c_ops.state_bytes(); }
static int fill_init(void *st, const bps_cfg_t *cfg) {
  ++g_bps_calls.inits;
  return bps_c_ops.init(st, cfg);
}
static int fill_set_numerators(void *st, uint32_t rd, uint32_t wr) {
  ++g_bps_calls.numerators;
  return bps_c_ops.set_numerators(st, rd, wr);
}
static void fill_hit(void *st, const bps_access_t *a, bps_result_t *res) {
  ++g_bps_calls.hits;
  bps_c_ops.hit(st, a, res);
}
static void fill_miss(void *st, const bps_access_t *a, bool victim_valid, uint32_t victim_level, bps_result_t *res) {
  ++g_bps_calls.misses;
  bps_c_ops.miss(st, a, victim_valid, victim_level, res);
  res->path = victim_valid ? BPS_PATH_FILL_WIN : BPS_PATH_FILL_INVALID;
  res->fill = true;
  res->dec_victim = false;
  res->store_level = res->aff_level;
}
static void fill_miss_begin(void *st, const bps_access_t *a, bool victim_valid, bps_result_t *res) {
  fill_miss(st, a, victim_valid, 0, res);
}

static const bps_ops always_fill_ops = {
    .name = "always_fill",
    .desc = "test double: the C scorer's state, every miss filled, calls counted",
    .state_bytes = fill_state_bytes,
    .init = fill_init,
    .set_numerators = fill_set_numerators,
    .hit = fill_hit,
    .miss = fill_miss,
    .miss_begin = fill_miss_begin,
};

/* A counting wrapper around the "c" tag cache. */
static struct {
  int inits, lookups, lookup_hits, fills, updates;
} g_ctc_calls;

static size_t cnt_state_bytes(const ctc_cfg *cfg) { return ctc_c_ops.state_bytes(cfg); }
static int cnt_init(void *st, const ctc_cfg *cfg, char *err, size_t errlen) {
  ++g_ctc_calls.inits;
  return ctc_c_ops.init(st, cfg, err, errlen);
}
static int cnt_lookup(void *st, uint64_t row, ctc_result *r) {
  ++g_ctc_calls.lookups;
  const int rc = ctc_c_ops.lookup(st, row, r);
  g_ctc_calls.lookup_hits += r->hit;
  return rc;
}
static int cnt_fill(void *st, uint64_t row, uint32_t data, ctc_result *r) {
  ++g_ctc_calls.fills;
  return ctc_c_ops.fill(st, row, data, r);
}
static int cnt_update(void *st, uint64_t row, uint32_t data, int dirty, ctc_result *r) {
  ++g_ctc_calls.updates;
  return ctc_c_ops.update(st, row, data, dirty, r);
}

static const ctc_ops counting_ctc_ops = {
    .name = "counting",
    .desc = "test double: the C tag cache, calls counted",
    .state_bytes = cnt_state_bytes,
    .init = cnt_init,
    .lookup = cnt_lookup,
    .fill = cnt_fill,
    .update = cnt_update,
};

typedef struct rig {
  const memside_ops *o;
  void *st;
  fake_shell f;
  memside_env env;
  int from;
} rig;

static void rig_init(rig *r, const memside_cfg *c) {
  memset(r, 0, sizeof *r);
  r->o = memside_find("dcache");
  assert_non_null(r->o);
  r->env = mst_fake_env(&r->f);
  r->st = mst_policy(r->o, c, &r->env);
}

/* One read of line pa run to its end: probes answered, the demand completed, every fill finished.
 * Returns 1 when the line is in the DRAM cache afterwards. */
static int read_line(rig *r, uint64_t pa) {
  const memside_req rq = {pa, 0, MEMSIDE_FILL, 0xf};
  uint32_t tk = 0;
  memside_target t;
  int guard = 0;
  while (r->o->route(r->st, &rq, &tk, &t) == MEMSIDE_HOLD) {
    assert_true(++guard < 8);
    while (r->from < r->f.n) r->o->done(r->st, r->f.x[r->from++].tag);
  }
  r->o->complete(r->st, &rq, &t);
  for (int k = 0; k < 4; ++k) /* the fill's reads, then its writes */
    while (r->from < r->f.n) r->o->done(r->st, r->f.x[r->from++].tag);
  assert_false(r->o->busy(r->st));
  r->f.n = r->f.nrel = r->from = 0; /* every transfer finished: the fake shell's log starts again */
  return r->o->kind_of(r->st, pa) == AMAP_MEM_DRAM;
}

/* Lines of partition 0, 256 B apart in SCM (one per DRAM-cache block). */
static unsigned pick_lines(uint64_t *pa, unsigned n) {
  unsigned k = 0;
  memside_target t;
  for (uint64_t p = 0; p < (256u << 20) && k < n; p += 128) {
    if (amap_channel(&g_map, p) != 0) continue;
    memside_static_locate(&g_cfg, p, &t);
    if (t.addr % 256 == 0) pa[k++] = p;
  }
  return k;
}

/* HMS with the bypass policy over 300 lines (the DRAM cache holds 112): with "c" some misses bypass; with
 * the always-fill double in memside_cfg.blocks every miss fills, and the double saw every decision. */
static void dcache_uses_the_configured_scorer(void **state) {
  (void)state;
  enum { N = 300 };
  uint64_t pa[N];
  assert_int_equal(pick_lines(pa, N), N);
  memside_cfg c = g_cfg;
  memside_value pv[32];
  memcpy(pv, g_par, sizeof pv);
  c.param = pv;
  set_par(pv, "bypass", 1); /* Eq. 1 numerators 106 and 1090 from the ranks' timing (setup) */
  c.sys.seed = 7u * 244002641u; /* the scorer's seed 7 (sim.seed x 2654435761 + partition; 244002641 is its inverse mod 2^32) */
  int filled_c = 0, filled_double = 0;
  uint64_t vals[32];
  rig r;
  rig_init(&r, &c); /* blocks NULL: the C reference */
  for (unsigned i = 0; i < N; ++i) filled_c += read_line(&r, pa[i]);
  r.o->stat_values(r.st, vals);
  const uint64_t bypasses_c = vals[9];
  free(r.st);
  memside_blocks b = memside_blocks_c;
  b.bypass_scorer = &always_fill_ops;
  c.blocks = &b;
  memset(&g_bps_calls, 0, sizeof g_bps_calls);
  rig_init(&r, &c);
  assert_int_equal(g_bps_calls.inits, 1);
  for (unsigned i = 0; i < N; ++i) filled_double += read_line(&r, pa[i]);
  r.o->stat_values(r.st, vals);
  assert_true(bypasses_c > 0);
  assert_true(filled_c < N);
  assert_int_equal(filled_double, N); /* every miss filled */
  assert_int_equal(vals[9], 0);       /* dcache.bypasses */
  assert_int_equal(vals[6], N);       /* dcache.fills */
  assert_int_equal(g_bps_calls.misses, N);
  assert_int_equal(g_bps_calls.misses, vals[2]); /* one decision per read miss */
  free(r.st);
}

/* HMS-B with a tag cache: the counting wrapper sees every lookup the DRAM cache counts, and a fill per
 * probe (the probed tags go into the tag cache). */
static void dcache_uses_the_configured_tag_cache(void **state) {
  (void)state;
  enum { N = 200 };
  uint64_t pa[N];
  assert_int_equal(pick_lines(pa, N), N);
  memside_cfg c = g_cfg;
  memside_value pv[32];
  memcpy(pv, g_par, sizeof pv);
  c.param = pv;
  set_par(pv, "=l2.ctc_ways", 4);
  c.sys.l2_sets = 8; /* the tag cache's sets: L2 sets per bank x banks of the partition */
  c.sys.l2_banks = 1;
  memside_blocks b = memside_blocks_c;
  b.tag_cache = &counting_ctc_ops;
  c.blocks = &b;
  memset(&g_ctc_calls, 0, sizeof g_ctc_calls);
  rig r;
  rig_init(&r, &c);
  assert_int_equal(g_ctc_calls.inits, 1);
  for (unsigned i = 0; i < N; ++i) read_line(&r, pa[i]);
  for (unsigned i = 0; i < N; ++i) read_line(&r, pa[i]); /* again: tags of recent rows in the tag cache */
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_true(g_ctc_calls.lookups > 0);
  assert_int_equal(g_ctc_calls.lookups, vals[10]);     /* dcache.ctc_lookups */
  assert_int_equal(g_ctc_calls.lookup_hits, vals[11]); /* dcache.ctc_hits */
  assert_true(vals[11] > 0);
  assert_int_equal(g_ctc_calls.fills, vals[4]);        /* one per probe */
  assert_int_equal(g_ctc_calls.updates, vals[6]);      /* one per fill (the row's new tags) */
  free(r.st);
}

static int setup(void **state) {
  (void)state;
  if (mst_hms_partition(&g_map, &g_cfg, g_par, sizeof g_par / sizeof *g_par) != 0) return -1;
  set_par(g_par, "line_bytes", 256);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(registry_names_resolve),
      cmocka_unit_test(ctc_c_ops_match_the_api),
      cmocka_unit_test(flrb_c_ops_match_the_api),
      cmocka_unit_test(dcache_uses_the_configured_scorer),
      cmocka_unit_test(dcache_uses_the_configured_tag_cache),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
