/* Unit tests of the HMS DRAM-cache policy (models/ref/memside/memside_dcache.c over memside_dcache_engine.c)
 * through the memory-side interface and a fake shell: AMIL geometry (7 lines
 * per 2 KiB row, probes of the row's last column on the DRAM rank), a probe
 * shared by the accesses to one row, a read miss served by SCM then filled
 * (drain, SCM read, DRAM write + metadata write, tags switch, release), an
 * access to the line held behind its MSHR, a write hit marking the line
 * dirty, and the dirty victim read from DRAM and written to SCM by the next
 * fill of its slot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/bps.h"
#include "memside/memside.h"
#include "memside/memside_dcache_params.h"
#include "memside_test_env.h"

static amap g_map;
static memside_cfg g_cfg;
static memside_value g_par[32]; /* g_cfg's parameters (memside_dcache_params.c), the family's defaults mostly */

/* A test's own copy of c's parameters, pointed at by c. */
static void own_params(memside_cfg *c, memside_value *pv) {
  memcpy(pv, c->param, sizeof g_par);
  c->param = pv;
}

/* Set parameter `name` (as declared: "size", "bypass", "=l2.ctc_ways", ...) in pv. */
static void set_par(memside_value *pv, const char *name, int64_t x) {
  mst_set_param(&memside_dcache_params, pv, name, x);
}

/* The sim.seed that gives partition 0 the per-partition seed `want` (seed = sim.seed x 2654435761 + partition,
 * mod 2^32, memside_dcache_params.c; 244002641 is 2654435761's inverse mod 2^32). */
static uint64_t sim_seed_for(uint32_t want) { return (uint32_t)(want * 244002641u); }


typedef struct rig {
  const memside_ops *o;
  void *st;
  fake_shell f;
  memside_env env;
} rig;

/* A rig of policy `name` (a DRAM-cache design) over c. */
static void rig_init_policy(rig *r, const char *name, const memside_cfg *c) {
  memset(r, 0, sizeof *r);
  r->o = memside_find(name);
  assert_non_null(r->o);
  r->env = mst_fake_env(&r->f);
  r->st = mst_policy(r->o, c, &r->env);
}

static void rig_init_cfg(rig *r, const memside_cfg *c) { rig_init_policy(r, "dcache", c); }

/* A rig of `policy` over c (g_cfg or a test's copy of it) with parameter `name` set to x in a copy of c's
 * parameters (a policy reads them during init only). */
static void rig_par(rig *r, const char *policy, memside_cfg c, const char *name, int64_t x) {
  memside_value pv[32];
  own_params(&c, pv);
  set_par(pv, name, x);
  rig_init_policy(r, policy, &c);
}

static void rig_init(rig *r) { rig_init_cfg(r, &g_cfg); }

/* A rig over g_cfg with `line`-byte DRAM-cache lines, TAD or AMIL, and a tag cache of ctc_ways ways x
 * ctc_sets sets (0: none). */
static void rig_line(rig *r, uint32_t line, int tad, uint32_t ctc_ways, uint32_t ctc_sets) {
  memside_cfg c = g_cfg;
  static memside_value pv[32];
  own_params(&c, pv);
  set_par(pv, "line_bytes", line);
  set_par(pv, "org", tad);
  set_par(pv, "=l2.ctc_ways", ctc_ways);
  c.sys.l2_sets = ctc_sets; /* the tag cache's sets: L2 sets per bank x banks of the partition */
  c.sys.l2_banks = 1;
  rig_init_cfg(r, &c);
}

static int route(rig *r, uint64_t pa, int w, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {pa, (uint8_t)w, w ? MEMSIDE_WRITEBACK : MEMSIDE_FILL, 0xf};
  return r->o->route(r->st, &rq, ticket, t);
}

/* The device answered an access routed with GO (rq as routed: its line, direction, all four sectors). */
static void complete(rig *r, uint64_t pa, int w, const memside_target *t) {
  const memside_req rq = {pa, (uint8_t)w, w ? MEMSIDE_WRITEBACK : MEMSIDE_FILL, 0xf};
  r->o->complete(r->st, &rq, t);
}

static devaddr_loc loc_of(uint64_t a) {
  devaddr_loc l;
  devaddr_decode(&g_cfg.geom[0], a, &l);
  return l;
}

/* Physical lines of partition 0 with SCM (device) addresses a and the next
 * 128 B of its 256 B block, and a line whose block maps to the same DRAM slot. */
static void pick(uint64_t *pa, uint64_t *pa_other_half, uint64_t *pa_conflict) {
  memside_target t0 = {0}, t;
  *pa = UINT64_MAX;
  *pa_other_half = *pa_conflict = UINT64_MAX;
  for (uint64_t p = 0; p < (64u << 20); p += 128) {
    if (amap_channel(&g_map, p) != 0) continue;
    memside_static_locate(&g_cfg, p, &t);
    if (*pa == UINT64_MAX) {
      if (t.addr % 256) continue;
      *pa = p;
      t0 = t;
    } else if (t.addr == t0.addr + 128) {
      *pa_other_half = p;
    }
  }
  /* the slot count: 16 banks x 1 row x 7 lines (cache_bytes = 16 rows of 2 KiB); block + 112 conflicts */
  for (uint64_t p = 0; p < (256u << 20) && *pa_conflict == UINT64_MAX; p += 128) {
    if (amap_channel(&g_map, p) != 0) continue;
    memside_static_locate(&g_cfg, p, &t);
    const devaddr_loc a = loc_of(t0.addr), b = loc_of(t.addr);
    const uint64_t ba = ((a.row * 4 + a.bg) * 4 + a.ba) * 8 + a.col / 8, bb = ((b.row * 4 + b.bg) * 4 + b.ba) * 8 + b.col / 8;
    if (bb == ba + 112 && t.addr % 256 == 0) *pa_conflict = p;
  }
  assert_true(*pa != UINT64_MAX && *pa_other_half != UINT64_MAX && *pa_conflict != UINT64_MAX);
}

/* Run an access to completion: probe, then GO. */
static memside_target access_line(rig *r, uint64_t pa, int w) {
  uint32_t ticket = 0;
  memside_target t;
  if (route(r, pa, w, &ticket, &t) == MEMSIDE_HOLD) {
    assert_true(ticket != 0);
    const memside_xfer *p = &r->f.x[r->f.n - 1];
    assert_int_equal(p->cls, MEMSIDE_PROBE);
    r->o->done(r->st, p->tag);
    assert_int_equal(route(r, pa, w, &ticket, &t), MEMSIDE_GO);
  }
  return t;
}

static void geometry_and_probe(void **state) {
  (void)state;
  rig r;
  rig_init(&r);
  uint64_t pa, half, conflict;
  pick(&pa, &half, &conflict);
  uint32_t t1 = 0, t2 = 0;
  memside_target t;
  assert_int_equal(route(&r, pa, 0, &t1, &t), MEMSIDE_HOLD);
  assert_int_equal(r.f.n, 1);
  const devaddr_loc pl = loc_of(r.f.x[0].addr);
  assert_int_equal(pl.ra, 0);    /* the DRAM rank */
  assert_int_equal(pl.col, 63);  /* AMIL: the row's last column */
  assert_int_equal(r.f.x[0].bytes, 32);
  assert_int_equal(r.f.x[0].write, 0);
  /* the other half of the block: same DRAM row, the same probe */
  assert_int_equal(route(&r, half, 0, &t2, &t), MEMSIDE_HOLD);
  assert_int_equal(t2, t1);
  assert_int_equal(r.f.n, 1);
  r.o->done(r.st, r.f.x[0].tag);
  assert_int_equal(r.f.nrel, 1);
  assert_int_equal(r.f.released[0], t1);
  free(r.st);
}

static void miss_fill_hit(void **state) {
  (void)state;
  rig r;
  rig_init(&r);
  uint64_t pa, half, conflict;
  pick(&pa, &half, &conflict);
  memside_target scm;
  memside_static_locate(&g_cfg, pa, &scm);
  /* read miss: served by SCM, a fill starts */
  memside_target t = access_line(&r, pa, 0);
  assert_int_equal(t.addr, scm.addr);
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  const int before = r.f.n;
  uint32_t tk = 0;
  memside_target th;
  assert_int_equal(route(&r, half, 0, &tk, &th), MEMSIDE_HOLD); /* behind the MSHR */
  assert_true(tk & 0x80000000u);
  assert_int_equal(r.f.n, before); /* the fill's read went out with the demand (a read in flight does not hold it) */
  complete(&r, pa, 0, &t);
  const int rdi = before - 1; /* the fill's read */
  const memside_xfer rd = r.f.x[rdi];
  assert_int_equal(rd.write, 0);
  assert_int_equal(rd.bytes, 256);
  assert_int_equal(rd.addr, scm.addr);
  assert_int_equal(rd.cls, MEMSIDE_FILL);
  memset(rd.buf, 0x5a, 256);
  r.o->done(r.st, rd.tag);
  assert_int_equal(r.f.n, rdi + 3); /* the line into DRAM and the row's metadata column */
  const memside_xfer wr = r.f.x[rdi + 1], md = r.f.x[rdi + 2];
  assert_int_equal(wr.write, 1);
  assert_int_equal(wr.bytes, 256);
  assert_int_equal(loc_of(wr.addr).ra, 0);
  assert_int_equal(wr.buf[17], 0x5a);
  assert_int_equal(md.bytes, 32);
  assert_int_equal(loc_of(md.addr).col, 63);
  assert_int_equal(loc_of(md.addr).row, loc_of(wr.addr).row);
  memside_target now;
  r.o->locate(r.st, pa, &now);
  assert_int_equal(now.addr, scm.addr); /* tags switch only once the line is written */
  r.o->done(r.st, wr.tag);
  r.o->done(r.st, md.tag);
  assert_int_equal(r.f.released[r.f.nrel - 1], tk); /* the MSHR's waiters are released */
  r.o->locate(r.st, pa, &now);
  assert_int_equal(now.kind, AMAP_MEM_DRAM);
  assert_int_equal(now.addr, wr.addr + (scm.addr & 255));
  assert_int_equal(r.o->kind_of(r.st, half), AMAP_MEM_DRAM);
  /* the held access, routed again: the controller knows the tags it just wrote, no probe; a hit in DRAM at
   * its offset in the line */
  const int n_before = r.f.n;
  assert_int_equal(route(&r, half, 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(r.f.n, n_before);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  assert_int_equal(t.addr, wr.addr + 128);
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* A write miss allocates: it waits behind the MSHR that fills its line, then hits. */
static void write_allocate(void **state) {
  (void)state;
  rig r;
  rig_init(&r);
  uint64_t pa, half, conflict;
  pick(&pa, &half, &conflict);
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route(&r, pa, 1, &tk, &t), MEMSIDE_HOLD); /* the probe */
  r.o->done(r.st, r.f.x[0].tag);
  assert_int_equal(route(&r, pa, 1, &tk, &t), MEMSIDE_HOLD); /* behind the fill of its line */
  assert_true(tk & 0x80000000u);
  assert_int_equal(r.f.n, 2);
  assert_int_equal(r.f.x[1].write, 0); /* the line read from SCM at once (nothing in flight to drain) */
  assert_int_equal(r.f.x[1].bytes, 256);
  r.o->done(r.st, r.f.x[1].tag);
  for (int i = 2; i < r.f.n; ++i) r.o->done(r.st, r.f.x[i].tag);
  assert_int_equal(r.f.released[r.f.nrel - 1], tk);
  t = access_line(&r, pa, 1); /* again: now a write hit in DRAM */
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[3], 1); /* write misses */
  assert_int_equal(vals[1], 1); /* write hits */
  free(r.st);
}

static void dirty_victim_written_back(void **state) {
  (void)state;
  rig r;
  rig_init(&r);
  uint64_t pa, half, conflict;
  pick(&pa, &half, &conflict);
  memside_target t = access_line(&r, pa, 0); /* miss + fill of pa's line */
  complete(&r, pa, 0, &t);
  const int b = r.f.n - 1;
  memset(r.f.x[b].buf, 0x11, 256);
  r.o->done(r.st, r.f.x[b].tag);
  const memside_xfer wr = r.f.x[r.f.n - 2];
  r.o->done(r.st, r.f.x[r.f.n - 2].tag);
  r.o->done(r.st, r.f.x[r.f.n - 1].tag);
  t = access_line(&r, pa, 1); /* a write hit: the line becomes dirty */
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  complete(&r, pa, 1, &t);
  /* a read of the conflicting block: miss, fill, the dirty victim goes back to SCM */
  memside_target scm_pa, scm_c;
  memside_static_locate(&g_cfg, pa, &scm_pa);
  memside_static_locate(&g_cfg, conflict, &scm_c);
  const int k = r.f.n + 1; /* after the probe */
  t = access_line(&r, conflict, 0);
  assert_int_equal(t.addr, scm_c.addr);
  assert_int_equal(r.f.n, k + 2); /* at once: the new line from SCM and the victim from DRAM */
  complete(&r, conflict, 0, &t);
  assert_int_equal(r.f.x[k + 1].addr, wr.addr);
  assert_int_equal(r.f.x[k + 1].cls, MEMSIDE_WRITEBACK);
  memset(r.f.x[k].buf, 0x22, 256);
  memset(r.f.x[k + 1].buf, 0x33, 256); /* the victim's bytes as DRAM returns them */
  r.o->done(r.st, r.f.x[k].tag);
  assert_int_equal(r.f.n, k + 2);      /* both reads first */
  r.o->done(r.st, r.f.x[k + 1].tag);
  assert_int_equal(r.f.n, k + 5);      /* new line to DRAM, victim to SCM, metadata */
  const memside_xfer *vw = &r.f.x[k + 3];
  assert_int_equal(vw->write, 1);
  assert_int_equal(vw->addr, scm_pa.addr & ~255ull);
  assert_int_equal(vw->buf[100], 0x33);
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[6], 2); /* fills */
  assert_int_equal(vals[7], 1); /* writebacks */
  assert_int_equal(vals[1], 1); /* write hits */
  for (int i = k + 2; i < k + 5; ++i) r.o->done(r.st, r.f.x[i].tag);
  assert_false(r.o->busy(r.st));
  memside_target now;
  r.o->locate(r.st, pa, &now);
  assert_int_equal(now.addr, scm_pa.addr); /* evicted: back in SCM */
  r.o->locate(r.st, conflict, &now);
  assert_int_equal(now.kind, AMAP_MEM_DRAM);
  free(r.st);
}

static void block_lines(uint64_t *pa, unsigned n) { mst_scm_block_lines(&g_map, &g_cfg, pa, n); }

static int route_s(rig *r, uint64_t pa, int w, unsigned sectors, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {pa, (uint8_t)w, w ? MEMSIDE_WRITEBACK : MEMSIDE_FILL, (uint8_t)sectors};
  return r->o->route(r->st, &rq, ticket, t);
}

/* Finish every policy transfer issued from index *from on (reads return zeros), in order. */
static void finish_xfers(rig *r, int *from) {
  while (*from < r->f.n) r->o->done(r->st, r->f.x[(*from)++].tag);
}

/* With the bypass policy the fill of a read miss waits for the decision, which is made when the demand's
 * SCM access completes (Sec. III-F), and it is the bypass scorer's (bps.c) for the columns the line's
 * requests gathered in the MSHR: a shadow scorer fed the same accesses decides the same, miss after miss. */
static void bypass_decisions_are_the_scorers(void **state) {
  (void)state;
  memside_cfg c = g_cfg;
  c.sys.seed = sim_seed_for(7);
  rig r;
  /* bypass on: numerators 106 = HMS Table I tRCD 120 - 14, 1090 = 106 + tWR 1000 - 16 (setup) */
  rig_par(&r, "dcache", c, "bypass", 1);
  bps_cfg_t bc;
  bps_cfg_default(&bc);
  bc.num_rd = 106;
  bc.num_wr = 1090;
  bc.lfsr_seed = 7;
  bps_t shadow;
  assert_int_equal(bps_init(&shadow, &bc), 0);
  enum { N = 96 };
  uint64_t pa[N];
  block_lines(pa, N);
  int from = 0, fills = 0, bypasses = 0;
  for (unsigned i = 0; i < N; ++i) {
    /* a varied mix: 1 to 4 sectors read, sometimes the other half of the line merged before the decision */
    const unsigned sectors = (1u << (1 + i % 4)) - 1u, extra = (i % 3 == 0) ? 0xfu : 0;
    uint32_t tk = 0;
    memside_target t, t2;
    if (route_s(&r, pa[i], 0, sectors, &tk, &t) == MEMSIDE_HOLD) { /* the probe of its row */
      finish_xfers(&r, &from);
      assert_int_equal(route_s(&r, pa[i], 0, sectors, &tk, &t), MEMSIDE_GO);
    }
    assert_int_equal(t.kind, AMAP_MEM_SCM);
    assert_int_equal(r.f.n, from); /* no fill yet: the decision waits for the demand */
    if (extra) { /* another request to the line, merged into the MSHR: served by SCM too */
      uint32_t tk2 = 0;
      assert_int_equal(route_s(&r, pa[i], 0, extra, &tk2, &t2), MEMSIDE_GO);
      assert_int_equal(t2.kind, AMAP_MEM_SCM);
      const memside_req rq2 = {pa[i], 0, MEMSIDE_FILL, (uint8_t)extra};
      r.o->complete(r.st, &rq2, &t2); /* answered first: it does not decide (the MSHR is the first's) */
    }
    uint32_t ncols = 0;
    for (unsigned m = sectors; m; m &= m - 1) ++ncols;
    for (unsigned m = extra; m; m &= m - 1) ++ncols;
    const bps_access_t a = {ncols, false, 1};
    bps_result_t want;
    bps_miss(&shadow, &a, false, 0, &want); /* blocks 0..95 fill distinct empty slots: no victim */
    const memside_req rq = {pa[i], 0, MEMSIDE_FILL, (uint8_t)sectors};
    if (!extra) r.o->complete(r.st, &rq, &t);
    const int filled = r.f.n > from;
    assert_int_equal(filled, want.fill);
    if (filled) {
      ++fills;
      assert_int_equal(r.f.x[from].bytes, 256); /* the line from SCM */
      finish_xfers(&r, &from);
      finish_xfers(&r, &from);
      assert_int_equal(r.o->kind_of(r.st, pa[i]), AMAP_MEM_DRAM);
    } else {
      ++bypasses;
      assert_int_equal(r.o->kind_of(r.st, pa[i]), AMAP_MEM_SCM);
    }
    if (extra) r.o->complete(r.st, &rq, &t);
  }
  assert_true(fills > 0 && bypasses > 0); /* the mix exercises both outcomes */
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[6], fills);      /* fills */
  assert_int_equal(vals[9], bypasses);   /* bypasses */
  assert_int_equal(vals[13], shadow.cnt.path[BPS_PATH_BYPASS_L1]); /* bypasses_first_level */
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* SCM throttling (Sec. III-E) doubles the SCM rank's tRCD and tWR mid-run: memside_ops.timing_changed moves
 * the scorer's Eq. 1 numerators to the new timing (106/1090 -> 226/2210 cycles: 240 - 14, + 2000 - 16), so
 * from then on the decisions are those of a shadow scorer switched at the same access, and not all those of
 * one left at the preset's numerators; back at the preset's timing the numerators return. */
static void throttled_timing_moves_the_numerators(void **state) {
  (void)state;
  memside_cfg c = g_cfg;
  c.sys.seed = sim_seed_for(7);
  c.rank_trcd[0][0] = 14, c.rank_twr[0][0] = 16;    /* hbm2 */
  c.rank_trcd[0][1] = 120, c.rank_twr[0][1] = 1000; /* scm_mlc */
  rig r;
  rig_par(&r, "dcache", c, "bypass", 1);
  assert_non_null(r.o->timing_changed);
  bps_cfg_t bc;
  bps_cfg_default(&bc);
  bc.num_rd = 106;
  bc.num_wr = 1090;
  bc.lfsr_seed = 7;
  bps_t moved, kept;
  assert_int_equal(bps_init(&moved, &bc), 0);
  assert_int_equal(bps_init(&kept, &bc), 0);
  enum { N = 112, SWITCH = 32, LIFT = 80 }; /* 112 blocks, 112 empty slots: no victims */
  uint64_t pa[N];
  block_lines(pa, N);
  int from = 0, differ = 0;
  for (unsigned i = 0; i < N; ++i) {
    if (i == SWITCH) {
      r.o->timing_changed(r.st, 0, 0, 14, 16); /* the DRAM rank unchanged: nothing moves */
      r.o->timing_changed(r.st, 0, 1, 240, 2000);
      assert_int_equal(bps_set_numerators(&moved, 226, 2210), 0);
    }
    if (i == LIFT) { /* lifted: the preset's numerators again */
      r.o->timing_changed(r.st, 0, 1, 120, 1000);
      assert_int_equal(bps_set_numerators(&moved, 106, 1090), 0);
    }
    const unsigned sectors = (1u << (1 + i % 4)) - 1u;
    uint32_t tk = 0;
    memside_target t;
    if (route_s(&r, pa[i], 0, sectors, &tk, &t) == MEMSIDE_HOLD) {
      finish_xfers(&r, &from);
      assert_int_equal(route_s(&r, pa[i], 0, sectors, &tk, &t), MEMSIDE_GO);
    }
    uint32_t ncols = 0;
    for (unsigned m = sectors; m; m &= m - 1) ++ncols;
    const bps_access_t a = {ncols, false, 1};
    bps_result_t want, old;
    bps_miss(&moved, &a, false, 0, &want);
    bps_miss(&kept, &a, false, 0, &old);
    differ += want.fill != old.fill;
    const memside_req rq = {pa[i], 0, MEMSIDE_FILL, (uint8_t)sectors};
    r.o->complete(r.st, &rq, &t);
    assert_int_equal(r.f.n > from, want.fill);
    finish_xfers(&r, &from);
    finish_xfers(&r, &from);
  }
  assert_true(differ > 0); /* the new numerators changed decisions */
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* A write to a line whose fill is being decided waits for the decision; when the line bypasses, the write
 * (and what queued behind it) goes to SCM, and the line never enters DRAM. Numerators 0 (SCM as fast as
 * DRAM) make every decision a first-level bypass. */
static void write_behind_a_bypassed_line_goes_to_scm(void **state) {
  (void)state;
  memside_cfg c = g_cfg;
  c.rank_trcd[0][1] = c.rank_trcd[0][0], c.rank_twr[0][1] = c.rank_twr[0][0]; /* Eq. 1 numerators 0 */
  rig r;
  rig_par(&r, "dcache", c, "bypass", 1);
  uint64_t pa[1];
  block_lines(pa, 1);
  int from = 0;
  uint32_t tk = 0, tw = 0, tr = 0;
  memside_target t, tws, trs;
  if (route_s(&r, pa[0], 0, 0xf, &tk, &t) == MEMSIDE_HOLD) {
    finish_xfers(&r, &from);
    assert_int_equal(route_s(&r, pa[0], 0, 0xf, &tk, &t), MEMSIDE_GO);
  }
  assert_int_equal(route_s(&r, pa[0], 1, 0x3, &tw, &tws), MEMSIDE_HOLD); /* the write waits */
  assert_true(tw & 0x80000000u);
  assert_int_equal(route_s(&r, pa[0], 0, 0x3, &tr, &trs), MEMSIDE_HOLD); /* a read behind the write waits too */
  assert_int_equal(tr, tw);
  const memside_req rq = {pa[0], 0, MEMSIDE_FILL, 0xf};
  r.o->complete(r.st, &rq, &t);                 /* the demand served: decision = bypass */
  assert_int_equal(r.f.n, from);                /* no fill */
  assert_int_equal(r.f.released[r.f.nrel - 1], tw);
  assert_int_equal(route_s(&r, pa[0], 1, 0x3, &tw, &tws), MEMSIDE_GO);
  assert_int_equal(tws.kind, AMAP_MEM_SCM);
  assert_int_equal(tws.addr, t.addr);
  assert_int_equal(route_s(&r, pa[0], 0, 0x3, &tr, &trs), MEMSIDE_GO);
  assert_int_equal(trs.kind, AMAP_MEM_SCM);
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[2], 2);  /* read misses: the demand and the read merged */
  assert_int_equal(vals[3], 1);  /* write misses */
  assert_int_equal(vals[8], 2);  /* merged into the MSHR */
  assert_int_equal(vals[9], 1);  /* one bypass decision */
  assert_int_equal(vals[13], 1); /* at the first level */
  const memside_req rw = {pa[0], 1, MEMSIDE_WRITEBACK, 0x3}, rr = {pa[0], 0, MEMSIDE_FILL, 0x3};
  r.o->complete(r.st, &rw, &tws);
  r.o->complete(r.st, &rr, &trs);
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* TAD (Fig. 7b, HMST): 8 lines per 2 KiB row, no metadata column; a probe reads the first column of
 * each line of the row (8 reads, Sec. IV-C) and is done when the last is back; a fill writes no metadata. */
static void tad_probe_reads_every_line(void **state) {
  (void)state;
  rig r;
  rig_par(&r, "dcache", g_cfg, "org", 1); /* tad */
  uint64_t pa[1];
  block_lines(pa, 1);
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route(&r, pa[0], 0, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(r.f.n, 8);
  for (int k = 0; k < 8; ++k) {
    const devaddr_loc l = loc_of(r.f.x[k].addr);
    assert_int_equal(r.f.x[k].cls, MEMSIDE_PROBE);
    assert_int_equal(r.f.x[k].bytes, 32);
    assert_int_equal(l.ra, 0);
    assert_int_equal(l.col, 8 * k); /* line k's first column */
    assert_int_equal(l.row, loc_of(r.f.x[0].addr).row);
  }
  for (int k = 0; k < 7; ++k) r.o->done(r.st, r.f.x[k].tag);
  assert_int_equal(r.f.nrel, 0); /* not before the last */
  r.o->done(r.st, r.f.x[7].tag);
  assert_int_equal(r.f.nrel, 1);
  assert_int_equal(route(&r, pa[0], 0, &tk, &t), MEMSIDE_GO); /* a miss: fill (no bypass policy) */
  assert_int_equal(r.f.n, 9);                                    /* the line from SCM */
  complete(&r, pa[0], 0, &t);
  memset(r.f.x[8].buf, 0x44, 256);
  r.o->done(r.st, r.f.x[8].tag);
  assert_int_equal(r.f.n, 10); /* the line into DRAM, its tag with it: no metadata write */
  assert_int_equal(loc_of(r.f.x[9].addr).col % 8, 0);
  r.o->done(r.st, r.f.x[9].tag);
  assert_int_equal(r.o->kind_of(r.st, pa[0]), AMAP_MEM_DRAM);
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* BEARi: no probes (ideal presence bits); BEAR's set dueling: slots = 0 (mod 32) always fill, slots = 1
 * (mod 32) fill about one miss in ten. */
static void beari_sampled_groups(void **state) {
  (void)state;
  memside_cfg c = g_cfg;
  c.sys.seed = sim_seed_for(3);
  rig r;
  rig_init_policy(&r, "beari", &c);
  const memside_ops *o = r.o;
  enum { J = 200, NB = 32 * J + 2 };
  uint64_t *pa = malloc(NB * sizeof *pa);
  block_lines(pa, NB);
  int fills[2] = {0, 0}, from = 0;
  for (unsigned g = 0; g < 2; ++g)
    for (unsigned j = 0; j < J; ++j) { /* blocks g + 32 j: slots g (mod 32) of the 128 (TAD: 16 rows x 8) */
      uint32_t tk = 0;
      memside_target t;
      assert_int_equal(route(&r, pa[g + 32 * j], 0, &tk, &t), MEMSIDE_GO); /* never a probe */
      assert_int_equal(t.kind, AMAP_MEM_SCM);
      if (r.f.n > from) ++fills[g];
      for (int k = from; k < r.f.n; ++k) assert_int_not_equal(r.f.x[k].cls, MEMSIDE_PROBE);
      complete(&r, pa[g + 32 * j], 0, &t);
      finish_xfers(&r, &from);
      finish_xfers(&r, &from);
      if (r.f.n > 900) r.f.n = from = 0; /* keep the fake shell's log short */
    }
  assert_int_equal(fills[0], J);
  assert_true(fills[1] >= J / 20 && fills[1] <= J / 5);
  assert_false(o->busy(r.st));
  free(pa);
  free(r.st);
}

/* RedCachei: a probe reads the accessed line's own tag-and-data column (one 32 B read of its first
 * column); a line is filled only at its gamma-th miss (gamma starts at 2). */
static void redcachei_fills_at_gamma(void **state) {
  (void)state;
  rig r;
  rig_init_policy(&r, "redcachei", &g_cfg);
  const memside_ops *o = r.o;
  uint64_t pa[6];
  block_lines(pa, 6);
  int from = 0;
  for (int k = 0; k < 2; ++k) { /* the 1st access of block 5 bypasses, the 2nd fills */
    uint32_t tk = 0;
    memside_target t;
    assert_int_equal(route(&r, pa[5], 0, &tk, &t), MEMSIDE_HOLD);
    assert_int_equal(r.f.n, from + 1);
    const devaddr_loc l = loc_of(r.f.x[from].addr);
    assert_int_equal(r.f.x[from].cls, MEMSIDE_PROBE);
    assert_int_equal(r.f.x[from].bytes, 32);
    assert_int_equal(l.ra, 0);
    assert_int_equal(l.col, 5 * 8); /* TAD: slot 5 is line 5 of row 0, its first column */
    finish_xfers(&r, &from);
    assert_int_equal(route(&r, pa[5], 0, &tk, &t), MEMSIDE_GO);
    assert_int_equal(t.kind, AMAP_MEM_SCM);
    assert_int_equal(r.f.n > from, k == 1); /* a fill's line read only at the second */
    complete(&r, pa[5], 0, &t);
    finish_xfers(&r, &from);
    finish_xfers(&r, &from);
  }
  assert_int_equal(o->kind_of(r.st, pa[5]), AMAP_MEM_DRAM);
  assert_false(o->busy(r.st));
  free(r.st);
}

/* A rig with one MSHR, taken: lines pa[0..3) of three blocks, a read miss of pa[0] served by SCM whose
 * fill holds the MSHR. */
static void rig_mshr_taken(rig *r, uint64_t pa[3]) {
  rig_par(r, "dcache", g_cfg, "mshrs", 1);
  block_lines(pa, 3);
  const memside_target t = access_line(r, pa[0], 0);
  assert_int_equal(t.kind, AMAP_MEM_SCM);
}

/* A write miss that finds every MSHR busy waits for one (TICKET_MSHRWAIT) instead of going to SCM; a read
 * miss in the same state is served by SCM at once and only its fill is dropped. When the MSHR frees, the
 * write is routed again, takes it, and waits behind its own fill; it counts as one write miss. */
static void write_waits_for_a_free_mshr(void **state) {
  (void)state;
  rig r;
  uint64_t pa[3];
  rig_mshr_taken(&r, pa); /* read miss: SCM, its fill takes the only MSHR */
  memside_target t;
  const int fill0 = r.f.n;
  uint32_t tk = 0;
  if (route(&r, pa[1], 1, &tk, &t) == MEMSIDE_HOLD && tk != 0x10000000u) { /* its row's probe first */
    r.o->done(r.st, r.f.x[r.f.n - 1].tag);
    assert_int_equal(route(&r, pa[1], 1, &tk, &t), MEMSIDE_HOLD);
  }
  assert_int_equal(tk, 0x10000000u); /* waits for an MSHR: nothing sent to SCM for it */
  for (int i = fill0; i < r.f.n; ++i) assert_true(r.f.x[i].cls == MEMSIDE_PROBE);
  uint32_t tr = 0;
  if (route(&r, pa[2], 0, &tr, &t) == MEMSIDE_HOLD) { /* a read miss meanwhile: to SCM, no fill */
    r.o->done(r.st, r.f.x[r.f.n - 1].tag);
    assert_int_equal(route(&r, pa[2], 0, &tr, &t), MEMSIDE_GO);
  }
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  int from = 0;
  const int nrel0 = r.f.nrel;
  finish_xfers(&r, &from); /* the first fill completes: the waiting write is released */
  int woke = 0;
  for (int i = nrel0; i < r.f.nrel; ++i) woke |= r.f.released[i] == 0x10000000u;
  assert_true(woke);
  assert_int_equal(route(&r, pa[1], 1, &tk, &t), MEMSIDE_HOLD); /* now behind its own fill */
  assert_true(tk & 0x80000000u);
  assert_int_equal(r.f.x[r.f.n - 1].bytes, 256);
  assert_int_equal(r.f.x[r.f.n - 1].write, 0);
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[3], 1);  /* one write miss */
  assert_int_equal(vals[6], 2);  /* fills: the first read's and the write's */
  assert_int_equal(vals[9], 1);  /* bypasses: the read that found the MSHR busy */
  assert_int_equal(vals[15], 1); /* ... counted as forced */
  free(r.st);
}

/* Sep. DRAM&SCM (HMS Fig. 6b): a partition of two channels, device 0 a DRAM channel of two ranks, device 1
 * an SCM channel of two ranks. A read miss goes to device 1, its probe and fill write to device 0, the line
 * then hits on device 0, where locate() also places it. */
static void separate_dram_and_scm_channels(void **state) {
  (void)state;
  static const uint32_t even[4] = {0, 2, 4, 6}, odd[4] = {1, 3, 5, 7}, ra[2] = {0, 1};
  const amap_part_cfg p[2] = {{AMAP_MEM_SCM, 1ull << 30, 4, 2, odd, ra}, {AMAP_MEM_DRAM, 1ull << 28, 4, 2, even, ra}};
  char err[256];
  static amap m;
  assert_int_equal(amap_init_parts(&m, p, 2, 0, NULL, 8, 2, 4, 4, 2048, 32, 4, 0, err, sizeof err), 0);
  assert_int_equal(amap_set_partition_channels(&m, 2, err, sizeof err), 0);
  memside_cfg c;
  mst_partition(&c, &m, 0, 2); /* device 0: channel 0 */
  c.ndevs = 2;
  mst_hbm2_device(&c, 1, 1, 2); /* device 1: channel 1 */
  for (int d = 0; d < 2; ++d) c.rank_kind[d][0] = c.rank_kind[d][1] = d ? AMAP_MEM_SCM : AMAP_MEM_DRAM;
  c.sys = g_cfg.sys;
  c.param = g_par;
  rig r;
  rig_par(&r, "dcache", c, "size", 32 * 2048); /* a row per bank of each DRAM rank */
  uint64_t pa = UINT64_MAX;
  for (uint64_t q = 0; q < (1u << 20) && pa == UINT64_MAX; q += 256)
    if (amap_channel(&m, q) == 1) pa = q;
  assert_true(pa != UINT64_MAX);
  memside_target t = access_line(&r, pa, 0);
  assert_int_equal(r.f.x[0].dev, 0); /* the probe: the DRAM channel */
  assert_int_equal(t.dev, 1);        /* the demand: the SCM channel */
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  int from = 1, sawr = 0, saww = 0;
  while (from < r.f.n) {
    const memside_xfer *x = &r.f.x[from];
    if (x->bytes == 256) (x->write ? (saww = x->dev == 0) : (sawr = x->dev == 1));
    r.o->done(r.st, r.f.x[from++].tag);
  }
  assert_true(sawr && saww); /* the line read from the SCM channel, written into the DRAM channel */
  t = access_line(&r, pa, 0);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  memside_target l;
  r.o->locate(r.st, pa, &l);
  assert_int_equal(l.dev, 0);
  assert_int_equal(l.addr, t.addr);
  free(r.st);
}

/* ---------------------------------------------------------------- line sizes (memside.dcache.line_bytes)
 * HMS Sec. IV-C, Fig. 16b. The test geometry: 2 KiB rows of 64 columns of 32 B, 4 bank groups x 4 banks,
 * a DRAM cache of one row per bank (cache_bytes = 16 rows). */

/* Physical line (offset 0 of its block) of SCM blocks 0..n-1 of partition 0 with `line`-byte blocks. */
static void block_lines_of(uint64_t *pa, unsigned n, unsigned line) {
  const unsigned lcols = line / 32, per_row = 64 / lcols;
  for (unsigned i = 0; i < n; ++i) pa[i] = UINT64_MAX;
  memside_target t;
  for (uint64_t p = 0; p < (64u << 20); p += 128) {
    if (amap_channel(&g_map, p) != 0) continue;
    memside_static_locate(&g_cfg, p, &t);
    const devaddr_loc a = loc_of(t.addr);
    const uint64_t b = ((a.row * 4 + a.bg) * 4 + a.ba) * per_row + a.col / lcols;
    if (b < n && t.addr % line == 0) pa[b] = p;
  }
  for (unsigned i = 0; i < n; ++i) assert_true(pa[i] != UINT64_MAX);
}

/* Read miss of pa (tags known: tk the ticket of its finished probe, or 0 with a tag-cache hit or ideal
 * tags) through fill: returns the index of
 * the fill's SCM read; checks the line's DRAM write (column dcol of DRAM row bank `bank`) and, for AMIL,
 * the metadata write in column mcol (-1: none expected). */
static int fill_line(rig *r, uint64_t pa, uint32_t tk, unsigned line, unsigned bank, unsigned dcol, int mcol) {
  memside_target t, scm;
  memside_static_locate(&g_cfg, pa, &scm);
  const int n0 = r->f.n;
  assert_int_equal(route(r, pa, 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  assert_int_equal(r->f.n, n0 + 1);
  const memside_xfer rd = r->f.x[n0];
  assert_int_equal(rd.cls, MEMSIDE_FILL);
  assert_int_equal(rd.write, 0);
  assert_int_equal(rd.bytes, line);              /* the whole line from SCM */
  assert_int_equal(rd.addr, scm.addr & ~(uint64_t)(line - 1));
  complete(r, pa, 0, &t);
  memset(rd.buf, 0x6b, line);
  r->o->done(r->st, rd.tag);
  assert_int_equal(r->f.n, n0 + (mcol >= 0 ? 3 : 2));
  const memside_xfer wr = r->f.x[n0 + 1];
  const devaddr_loc wl = loc_of(wr.addr);
  assert_int_equal(wr.write, 1);
  assert_int_equal(wr.bytes, line);
  assert_int_equal(wl.ra, 0);
  assert_int_equal(wl.bg * 4 + wl.ba, (bank % 4) * 4 + bank / 4); /* bank b: bank group b % 4, bank b / 4 */
  assert_int_equal(wl.col, dcol);
  assert_int_equal(wr.buf[line - 1], 0x6b);
  if (mcol >= 0) {
    const devaddr_loc ml = loc_of(r->f.x[n0 + 2].addr);
    assert_int_equal(r->f.x[n0 + 2].bytes, 32);
    assert_int_equal(ml.col, (unsigned)mcol);
    assert_int_equal(ml.row, wl.row);
    assert_int_equal(ml.bg * 4 + ml.ba, wl.bg * 4 + wl.ba);
  }
  for (int i = n0 + 1; i < r->f.n; ++i) r->o->done(r->st, r->f.x[i].tag);
  memside_target now;
  r->o->locate(r->st, pa, &now);
  assert_int_equal(now.kind, AMAP_MEM_DRAM);
  assert_int_equal(now.addr, wr.addr + (scm.addr & (line - 1)));
  return n0;
}

/* A probe of pa: returns its ticket after checking it is one 32 B read of DRAM column col (AMIL). */
static uint32_t probe_col(rig *r, uint64_t pa, unsigned col) {
  uint32_t tk = 0;
  memside_target t;
  const int n0 = r->f.n;
  assert_int_equal(route(r, pa, 0, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(r->f.n, n0 + 1);
  assert_int_equal(r->f.x[n0].cls, MEMSIDE_PROBE);
  assert_int_equal(r->f.x[n0].bytes, 32);
  assert_int_equal(loc_of(r->f.x[n0].addr).col, col);
  return tk;
}

/* 128 B lines, AMIL: a 2 KiB row holds 15 lines (15 x 4 B of metadata need two 32 B columns, so
 * (2048 - 64) / 128); lines 0-7 have their tags in column 62, lines 8-14 in column 63 (a probe reads the
 * column of the line's tag group, and accesses of one group share it); slot s = block mod 240, line s mod
 * 15 of the row in bank s / 15; fills move 128 B. */
static void line_128_amil(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 128, 0, 0, 0);
  enum { NB = 241 };
  uint64_t pa[NB];
  block_lines_of(pa, NB, 128);
  const uint32_t t0 = probe_col(&r, pa[0], 62);
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route(&r, pa[7], 0, &tk, &t), MEMSIDE_HOLD); /* line 7: the same group, the same probe */
  assert_int_equal(tk, t0);
  assert_int_equal(r.f.n, 1);
  const uint32_t t8 = probe_col(&r, pa[8], 63); /* line 8: the row's second metadata column, a probe of its own */
  assert_int_not_equal(t8, t0);
  r.o->done(r.st, r.f.x[0].tag);
  r.o->done(r.st, r.f.x[1].tag);
  fill_line(&r, pa[0], t0, 128, 0, 0, 62);
  fill_line(&r, pa[7], t0, 128, 0, 7 * 4, 62); /* line 7: columns 28..31 */
  fill_line(&r, pa[8], t8, 128, 0, 8 * 4, 63); /* line 8: columns 32..35, tags in column 63 */
  /* block 15: slot 15 = line 0 of the second row (bank 1: bank group 1) */
  uint32_t tp = probe_col(&r, pa[15], 62);
  r.o->done(r.st, r.f.x[r.f.n - 1].tag);
  fill_line(&r, pa[15], tp, 128, 1, 0, 62);
  /* block 240 conflicts with block 0 (240 slots): a miss once its tags are read */
  tp = probe_col(&r, pa[240], 62);
  r.o->done(r.st, r.f.x[r.f.n - 1].tag);
  fill_line(&r, pa[240], tp, 128, 0, 0, 62);
  memside_target now;
  r.o->locate(r.st, pa[0], &now);
  assert_int_equal(now.kind, AMAP_MEM_SCM); /* evicted (clean: no write-back) */
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* 128 B lines with the tag cache: a tag-cache sector holds one tag group (8 lines), so a probe of line 0
 * makes lines 0-7 of the row hits of the tag cache, and line 8 still needs a probe of its own. */
static void line_128_tag_cache_sectors(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 128, 0, 4, 16);
  uint64_t pa[9];
  block_lines_of(pa, 9, 128);
  const uint32_t tp = probe_col(&r, pa[0], 62);
  r.o->done(r.st, r.f.x[0].tag);
  fill_line(&r, pa[0], tp, 128, 0, 0, -1); /* the tags go into the tag cache (dirty), no metadata write */
  const int n0 = r.f.n;
  fill_line(&r, pa[5], 0, 128, 0, 5 * 4, -1); /* line 5: its tags in the tag cache, no probe */
  assert_int_equal(r.f.n, n0 + 2);
  (void)probe_col(&r, pa[8], 63); /* line 8: another sector */
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[4], 2);  /* probes */
  assert_int_equal(vals[11], 1); /* tag-cache hits */
  free(r.st);
}

/* 128 B lines, TAD: 16 lines per row, two tag groups; a probe reads the first column of each of the
 * 8 lines of the accessed line's group. */
static void line_128_tad(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 128, 1, 0, 0);
  uint64_t pa[17];
  block_lines_of(pa, 17, 128);
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route(&r, pa[9], 0, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(r.f.n, 8);
  for (int k = 0; k < 8; ++k) assert_int_equal(loc_of(r.f.x[k].addr).col, 4 * (8 + k)); /* lines 8..15 */
  for (int k = 0; k < 8; ++k) r.o->done(r.st, r.f.x[k].tag);
  fill_line(&r, pa[9], tk, 128, 0, 9 * 4, -1);
  tk = 0;
  /* block 16: line 0 of the second row (16 lines a row) */
  assert_int_equal(route(&r, pa[16], 0, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(r.f.n, 8 + 2 + 8);
  assert_int_equal(loc_of(r.f.x[10].addr).bg, 1);
  assert_int_equal(loc_of(r.f.x[10].addr).col, 0);
  free(r.st);
}

/* 1 KiB lines: AMIL keeps one line per 2 KiB row ((2048 - 32) / 1024), TAD two (slot s is line s mod 2
 * of the row in bank s / 2); a fill moves 1 KiB; a dirty 1 KiB victim goes back to its SCM block. */
static void line_1024(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 1024, 0, 0, 0);
  uint64_t pa[17];
  block_lines_of(pa, 17, 1024);
  uint32_t tp = probe_col(&r, pa[0], 63);
  r.o->done(r.st, r.f.x[0].tag);
  fill_line(&r, pa[0], tp, 1024, 0, 0, 63);
  tp = probe_col(&r, pa[1], 63); /* block 1: slot 1, the row of bank 1 */
  r.o->done(r.st, r.f.x[r.f.n - 1].tag);
  fill_line(&r, pa[1], tp, 1024, 1, 0, 63);
  memside_target t = access_line(&r, pa[0], 1); /* a write hit: dirty */
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  complete(&r, pa[0], 1, &t);
  /* block 16 (16 slots) evicts block 0: the new line from SCM, the dirty victim from DRAM, both 1 KiB */
  uint32_t tk = 0;
  const int n0 = r.f.n;
  assert_int_equal(route(&r, pa[16], 0, &tk, &t), MEMSIDE_HOLD);
  r.o->done(r.st, r.f.x[n0].tag); /* its probe */
  assert_int_equal(route(&r, pa[16], 0, &tk, &t), MEMSIDE_GO);
  assert_int_equal(r.f.n, n0 + 3);
  assert_int_equal(r.f.x[n0 + 1].bytes, 1024);
  assert_int_equal(r.f.x[n0 + 2].bytes, 1024);
  assert_int_equal(r.f.x[n0 + 2].cls, MEMSIDE_WRITEBACK);
  complete(&r, pa[16], 0, &t);
  memset(r.f.x[n0 + 2].buf, 0x3c, 1024);
  r.o->done(r.st, r.f.x[n0 + 1].tag);
  r.o->done(r.st, r.f.x[n0 + 2].tag);
  assert_int_equal(r.f.n, n0 + 6);
  memside_target scm0;
  memside_static_locate(&g_cfg, pa[0], &scm0);
  const memside_xfer *vw = &r.f.x[n0 + 4];
  assert_int_equal(vw->write, 1);
  assert_int_equal(vw->bytes, 1024);
  assert_int_equal(vw->addr, scm0.addr);
  assert_int_equal(vw->buf[1023], 0x3c);
  for (int i = n0 + 3; i < r.f.n; ++i) r.o->done(r.st, r.f.x[i].tag);
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[7], 1); /* writebacks */
  memside_stats ms;
  r.o->stats(r.st, &ms);
  assert_int_equal(ms.moved_bytes, (3 + 1) * 1024); /* three fills and one write-back of 1 KiB */
  assert_false(r.o->busy(r.st));
  free(r.st);
  /* TAD (HMST): two lines per row, a probe reads the first column of both */
  rig_line(&r, 1024, 1, 0, 0);
  for (unsigned b = 0; b < 3; ++b) {
    uint32_t tk = 0;
    const int n0 = r.f.n;
    assert_int_equal(route(&r, pa[b], 0, &tk, &t), MEMSIDE_HOLD);
    assert_int_equal(r.f.n, n0 + 2);
    assert_int_equal(loc_of(r.f.x[n0].addr).col, 0);
    assert_int_equal(loc_of(r.f.x[n0 + 1].addr).col, 32);
    r.o->done(r.st, r.f.x[n0].tag);
    r.o->done(r.st, r.f.x[n0 + 1].tag);
    fill_line(&r, pa[b], tk, 1024, b / 2, (b % 2) * 32, -1);
  }
  assert_false(r.o->busy(r.st));
  free(r.st);
}

/* ---------------------------------------------------------------- 64 B lines (HMS Sec. IV-A's baselines)
 * An L2 line is two DRAM-cache lines: the engine asks the shell for 64 B pieces (memside_ops.granule), and
 * the shell routes each piece of a request on its own (models/memside/mem_side.cpp): rq.pa is the piece's
 * address, rq.sectors its sectors of the L2 line. A row keeps an even number of lines (AMIL 30 with four
 * metadata columns, TAD 32), so a piece lies at its own offset of a 128 B device line. */

/* 64 B block b of partition 0 (pa[2 i], pa[2 i + 1]: the halves of 128 B block i). */
static void block_pieces(uint64_t *pa, unsigned n) {
  uint64_t *line = malloc((n / 2) * sizeof *line);
  block_lines_of(line, n / 2, 128);
  for (unsigned i = 0; i < n / 2; ++i) pa[2 * i] = line[i], pa[2 * i + 1] = line[i] + 64;
  free(line);
}

/* Where piece pa lives on the SCM rank (its L2 line's static place + its offset). */
static uint64_t scm_of(uint64_t pa) {
  memside_target t;
  memside_static_locate(&g_cfg, pa & ~(uint64_t)127, &t);
  return t.addr + (pa & 127);
}

/* Route piece pa until it goes (each probe it waits for answered); returns the target. */
static memside_target piece_go(rig *r, uint64_t pa, int w, unsigned sectors) {
  uint32_t tk = 0;
  memside_target t;
  while (route_s(r, pa, w, sectors, &tk, &t) == MEMSIDE_HOLD) {
    assert_true(tk != 0 && tk <= 64); /* a probe */
    r->o->done(r->st, r->f.x[r->f.n - 1].tag);
  }
  return t;
}

static void complete_s(rig *r, uint64_t pa, int w, unsigned sectors, const memside_target *t) {
  const memside_req rq = {pa, (uint8_t)w, w ? MEMSIDE_WRITEBACK : MEMSIDE_FILL, (uint8_t)sectors};
  r->o->complete(r->st, &rq, t);
}

/* The last `n` transfers issued (their index in the fake shell's log: *first). */
static const memside_xfer *last_xfers(rig *r, int n, int *first) {
  assert_true(r->f.n >= n);
  *first = r->f.n - n;
  return &r->f.x[*first];
}

/* A request of both halves of an L2 line, split into two pieces by the shell: the lower half is a dirty
 * hit in DRAM, the upper half a miss served by SCM and filled into the next slot (the upper 64 B of the
 * same 128 B device line); a later miss of the lower half's slot evicts it, writing back 64 B to its SCM
 * home, while the upper half stays cached. AMIL with 64 B lines: 30 lines a row, tags of lines 0-7 in
 * column 60. */
static void line_64_split_request(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 64, 0, 0, 0);
  assert_non_null(r.o->granule);
  assert_int_equal(r.o->granule(r.st), 64);
  enum { NB = 482 }; /* 16 rows x 30 lines = 480 slots: block 480 shares slot 0 with block 0 */
  uint64_t *pa = malloc(NB * sizeof *pa);
  block_pieces(pa, NB);
  int i0;
  /* the lower half written: a write miss, its 64 B line filled (probe of column 60), then a dirty hit */
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route_s(&r, pa[0], 1, 0x3, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(loc_of(r.f.x[0].addr).col, 60);
  r.o->done(r.st, r.f.x[0].tag);
  assert_int_equal(route_s(&r, pa[0], 1, 0x3, &tk, &t), MEMSIDE_HOLD); /* behind its fill */
  assert_true(tk & 0x80000000u);
  const memside_xfer *x = last_xfers(&r, 1, &i0);
  assert_int_equal(x->bytes, 64);
  assert_int_equal(x->addr, scm_of(pa[0]));
  r.o->done(r.st, x->tag);
  x = last_xfers(&r, 2, &i0); /* the line into slot 0 (column 0) and the metadata column */
  assert_int_equal(x[0].bytes, 64);
  assert_int_equal(loc_of(x[0].addr).col, 0);
  assert_int_equal(loc_of(x[1].addr).col, 60);
  r.o->done(r.st, x[0].tag);
  r.o->done(r.st, x[1].tag);
  assert_int_equal(route_s(&r, pa[0], 1, 0x3, &tk, &t), MEMSIDE_GO);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  complete_s(&r, pa[0], 1, 0x3, &t);
  const uint64_t slot0 = t.addr;
  assert_int_equal(slot0 % 128, 0);
  /* the L2 reads the whole line: two pieces. The lower one hits (a probe, then DRAM) ... */
  memside_target lo = piece_go(&r, pa[0], 0, 0x3);
  assert_int_equal(lo.kind, AMAP_MEM_DRAM);
  assert_int_equal(lo.addr, slot0);
  /* ... the upper one misses: SCM at the line's upper 64 B, and a fill of 64 B into slot 1 */
  const int n0 = r.f.n;
  memside_target hi = piece_go(&r, pa[1], 0, 0xc);
  assert_int_equal(hi.kind, AMAP_MEM_SCM);
  assert_int_equal(hi.addr, scm_of(pa[1]));
  assert_int_equal(hi.addr % 128, 64);
  x = last_xfers(&r, 1, &i0);
  assert_true(i0 >= n0);
  assert_int_equal(x->cls, MEMSIDE_FILL);
  assert_int_equal(x->bytes, 64);
  assert_int_equal(x->addr, scm_of(pa[1]));
  complete_s(&r, pa[0], 0, 0x3, &lo);
  complete_s(&r, pa[1], 0, 0xc, &hi);
  memset(x->buf, 0x71, 64);
  r.o->done(r.st, x->tag);
  x = last_xfers(&r, 2, &i0);
  assert_int_equal(x[0].write, 1);
  assert_int_equal(x[0].addr, slot0 + 64); /* slot 1: the upper 64 B of the same 128 B device line */
  assert_int_equal(x[0].buf[63], 0x71);
  r.o->done(r.st, x[0].tag);
  r.o->done(r.st, x[1].tag);
  memside_target now;
  r.o->locate(r.st, pa[1], &now);
  assert_int_equal(now.kind, AMAP_MEM_DRAM);
  assert_int_equal(now.addr, slot0 + 64);
  /* block 480 (the lower half of another line) takes slot 0: the dirty lower half of L goes back to SCM */
  t = piece_go(&r, pa[480], 0, 0x3);
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  x = last_xfers(&r, 2, &i0); /* the new line from SCM, the dirty victim from DRAM */
  assert_int_equal(x[0].addr, scm_of(pa[480]));
  assert_int_equal(x[1].addr, slot0);
  assert_int_equal(x[1].bytes, 64);
  assert_int_equal(x[1].cls, MEMSIDE_WRITEBACK);
  complete_s(&r, pa[480], 0, 0x3, &t);
  memset(x[1].buf, 0x2e, 64);
  r.o->done(r.st, x[0].tag);
  r.o->done(r.st, x[1].tag);
  x = last_xfers(&r, 3, &i0); /* into DRAM, the victim to SCM (64 B at its home), the metadata column */
  assert_int_equal(x[1].write, 1);
  assert_int_equal(x[1].addr, scm_of(pa[0]));
  assert_int_equal(x[1].bytes, 64);
  assert_int_equal(x[1].buf[0], 0x2e);
  for (int k = 0; k < 3; ++k) r.o->done(r.st, x[k].tag);
  r.o->locate(r.st, pa[0], &now);
  assert_int_equal(now.kind, AMAP_MEM_SCM); /* evicted */
  assert_int_equal(now.addr, scm_of(pa[0]));
  assert_int_equal(r.o->kind_of(r.st, pa[0]), AMAP_MEM_SCM); /* the L2 line's kind: its lower half's */
  r.o->locate(r.st, pa[1], &now);
  assert_int_equal(now.kind, AMAP_MEM_DRAM); /* the upper half stays */
  uint64_t vals[32];
  r.o->stat_values(r.st, vals);
  assert_int_equal(vals[0], 1); /* read hits: the lower piece */
  assert_int_equal(vals[2], 2); /* read misses: the upper piece, block 480 */
  assert_int_equal(vals[3], 1); /* write misses: the first write */
  assert_int_equal(vals[1], 0); /* write hits: none (the write, routed again after its fill, counts once) */
  assert_int_equal(vals[6], 3); /* fills */
  assert_int_equal(vals[7], 1); /* write-backs */
  memside_stats ms;
  r.o->stats(r.st, &ms);
  assert_int_equal(ms.moved_bytes, 4 * 64);
  assert_false(r.o->busy(r.st));
  free(pa);
  free(r.st);
}

/* 64 B lines, TAD (HMST; RedCachei and BEARi are TAD too): 32 lines a row, four tag groups; a probe reads the
 * first column of each of the 8 lines of the accessed line's group; block 32 is line 0 of the next row (the
 * next bank). */
static void line_64_tad(void **state) {
  (void)state;
  rig r;
  rig_line(&r, 64, 1, 0, 0);
  uint64_t pa[34];
  block_pieces(pa, 34);
  uint32_t tk = 0;
  memside_target t;
  assert_int_equal(route_s(&r, pa[9], 0, 0xc, &tk, &t), MEMSIDE_HOLD);
  assert_int_equal(r.f.n, 8);
  for (int k = 0; k < 8; ++k) assert_int_equal(loc_of(r.f.x[k].addr).col, 2 * (8 + k)); /* lines 8..15 */
  for (int k = 0; k < 8; ++k) r.o->done(r.st, r.f.x[k].tag);
  assert_int_equal(route_s(&r, pa[9], 0, 0xc, &tk, &t), MEMSIDE_GO);
  assert_int_equal(t.addr, scm_of(pa[9]));
  tk = 0;
  assert_int_equal(route_s(&r, pa[32], 0, 0x3, &tk, &t), MEMSIDE_HOLD);
  const int n0 = r.f.n - 8;
  assert_int_equal(loc_of(r.f.x[n0].addr).bg, 1);
  assert_int_equal(loc_of(r.f.x[n0].addr).col, 0);
  free(r.st);
}

/* McCachei with 64 B lines: a write hit on a clean upper half goes to DRAM (the upper 64 B of its device
 * line) and is copied to SCM: the copy goes to the 128 B line of its SCM home (the shell sends the piece's
 * bytes only, at their offsets). */
static void line_64_write_through_piece(void **state) {
  (void)state;
  rig r;
  rig_par(&r, "mccachei", g_cfg, "line_bytes", 64);
  const memside_ops *o = r.o;
  assert_int_equal(o->granule(r.st), 64);
  uint64_t pa[2];
  block_pieces(pa, 2);
  memside_target t = piece_go(&r, pa[1], 0, 0xc); /* a read miss (no probe): filled */
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  complete_s(&r, pa[1], 0, 0xc, &t);
  int from = 0;
  finish_xfers(&r, &from);
  finish_xfers(&r, &from);
  t = piece_go(&r, pa[1], 1, 0x8);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  assert_int_equal(t.addr % 128, 64);
  assert_int_equal(t.mirror, 1);
  assert_int_equal(t.mirror_addr, scm_of(pa[0])); /* the L2 line's 128 B at its SCM home */
  assert_int_equal(t.mirror_addr % 128, 0);
  complete_s(&r, pa[1], 1, 0x8, &t);
  o->done(r.st, t.mirror_tag);
  assert_false(o->busy(r.st));
  free(r.st);
}

/* A read of bytes that a write miss is waiting to write (every MSHR busy: TICKET_MSHRWAIT) waits behind it
 * (TICKET_WRWAIT, released after the write's ticket) instead of reading stale bytes from SCM; a read of
 * the line's other sectors goes to SCM at once. 256 B lines, one MSHR. */
static void read_waits_behind_a_waiting_write(void **state) {
  (void)state;
  rig r;
  uint64_t pa[3];
  rig_mshr_taken(&r, pa); /* a read miss: its fill takes the only MSHR */
  memside_target t;
  uint32_t tw = 0, tr = 0, to = 0;
  while (route_s(&r, pa[1], 1, 0x1, &tw, &t) == MEMSIDE_HOLD && tw != 0x10000000u)
    r.o->done(r.st, r.f.x[r.f.n - 1].tag); /* its probe */
  assert_int_equal(tw, 0x10000000u);
  assert_int_equal(route_s(&r, pa[1], 0, 0x1, &tr, &t), MEMSIDE_HOLD); /* sector 0: behind the write */
  assert_int_equal(tr, 0x08000000u);
  while (route_s(&r, pa[1], 0, 0x4, &to, &t) == MEMSIDE_HOLD) /* sector 2: not written, served by SCM */
    r.o->done(r.st, r.f.x[r.f.n - 1].tag);
  assert_int_equal(t.kind, AMAP_MEM_SCM);
  complete_s(&r, pa[1], 0, 0x4, &t);
  const int nrel0 = r.f.nrel;
  int from = 0;
  finish_xfers(&r, &from); /* the first fill completes: the write, then the read behind it, are released */
  finish_xfers(&r, &from);
  int iw = -1, ir = -1;
  for (int i = nrel0; i < r.f.nrel; ++i) {
    if (r.f.released[i] == 0x10000000u && iw < 0) iw = i;
    if (r.f.released[i] == 0x08000000u && ir < 0) ir = i;
  }
  assert_true(iw >= 0 && ir > iw);
  assert_int_equal(route_s(&r, pa[1], 1, 0x1, &tw, &t), MEMSIDE_HOLD); /* the write: behind its own fill */
  assert_true(tw & 0x80000000u);
  assert_int_equal(route_s(&r, pa[1], 0, 0x1, &tr, &t), MEMSIDE_HOLD); /* the read: behind the same fill */
  assert_int_equal(tr, tw);
  free(r.st);
}

/* A line size the engine cannot use is refused with the key named. */
static void line_size_rejected(void **state) {
  (void)state;
  const uint32_t bad[] = {0, 32, 192, 2048};
  for (unsigned i = 0; i < sizeof bad / sizeof *bad; ++i) {
    memside_cfg c = g_cfg;
    memside_value pv[32];
    own_params(&c, pv);
    set_par(pv, "line_bytes", bad[i]);
    const memside_ops *o = memside_find("dcache");
    assert_non_null(o);
    void *st = mst_state(o, &c);
    fake_shell f;
    memset(&f, 0, sizeof f);
    const memside_env env = mst_fake_env(&f);
    mst_init_refused(o, st, &c, &env, "memside.dcache.line_bytes");
    free(st);
  }
}

static int setup(void **state) {
  (void)state;
  return mst_hms_partition(&g_map, &g_cfg, g_par, sizeof g_par / sizeof *g_par);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(geometry_and_probe),
      cmocka_unit_test(miss_fill_hit),
      cmocka_unit_test(write_allocate),
      cmocka_unit_test(dirty_victim_written_back),
      cmocka_unit_test(bypass_decisions_are_the_scorers),
      cmocka_unit_test(throttled_timing_moves_the_numerators),
      cmocka_unit_test(write_behind_a_bypassed_line_goes_to_scm),
      cmocka_unit_test(tad_probe_reads_every_line),
      cmocka_unit_test(beari_sampled_groups),
      cmocka_unit_test(redcachei_fills_at_gamma),
      cmocka_unit_test(write_waits_for_a_free_mshr),
      cmocka_unit_test(separate_dram_and_scm_channels),
      cmocka_unit_test(line_128_amil),
      cmocka_unit_test(line_128_tag_cache_sectors),
      cmocka_unit_test(line_128_tad),
      cmocka_unit_test(line_1024),
      cmocka_unit_test(line_64_split_request),
      cmocka_unit_test(line_64_tad),
      cmocka_unit_test(line_64_write_through_piece),
      cmocka_unit_test(read_waits_behind_a_waiting_write),
      cmocka_unit_test(line_size_rejected),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
