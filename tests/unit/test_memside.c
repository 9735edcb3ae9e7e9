/* Unit tests of the memory-side controller interface (models/ref/memside/memside.h)
 * and of device addresses (devaddr.h): the registry, the device-address
 * round trip, the plain policy against the static map, and the worked
 * example `swap` step by step through a fake shell (hold, drain, read,
 * write, remap, release), and `swap_forget`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside_fake_shell.h"

/* An access's route call, first try (ticket 0). */
static int route1(const memside_ops *o, void *st, uint64_t pa, int w, unsigned cls, memside_target *t) {
  uint32_t ticket = 0;
  const memside_req rq = {pa, (uint8_t)w, (uint8_t)cls, 0xf};
  return o->route(st, &rq, &ticket, t);
}

static void registry(void **state) {
  (void)state;
  assert_true(memside_count() >= 3);
  for (size_t i = 0; i < memside_count(); ++i) {
    const memside_ops *o = memside_at(i);
    assert_ptr_equal(memside_find(o->name), o);
    assert_non_null(o->desc);
    assert_true(strstr(memside_names(), o->name) != NULL);
  }
  assert_null(memside_find("nope"));
  assert_null(memside_find(NULL));
  assert_null(memside_at(memside_count()));
  assert_string_equal(memside_names(), "plain, swap, swap_forget, hostpage, dcache, beari, mccachei, redcachei, dbuff, rapp, flrb, hgm");
}

/* Every registered policy's parameter table: defaults parse within range, names unique, enum choices given. */
static void param_tables(void **state) {
  (void)state;
  size_t with_params = 0;
  for (size_t i = 0; i < memside_count(); ++i) {
    const memside_params *p = memside_at(i)->params;
    if (!p) continue;
    ++with_params;
    assert_non_null(p->prefix);
    assert_int_equal(p->prefix[strlen(p->prefix) - 1], '.');
    memside_value v[64];
    assert_true(p->count <= 64);
    assert_int_equal(memside_param_defaults(p, v), -1);
    for (uint32_t k = 0; k < p->count; ++k) {
      assert_non_null(p->param[k].doc);
      assert_int_equal(memside_param_index(p, p->param[k].name), (int)k); /* unique: the first is itself */
      if (p->param[k].type == MEMSIDE_P_ENUM) assert_non_null(p->param[k].choices);
    }
  }
  assert_true(with_params >= 2); /* swap and swap_forget at least */
  assert_ptr_equal(memside_find("swap")->params, memside_find("swap_forget")->params); /* one shared table */
  assert_int_equal(memside_param_index(memside_find("swap")->params, "nope"), -1);
}

/* memside_param_parse: units, ranges, booleans, enum choices. */
static void param_parse(void **state) {
  (void)state;
  const memside_param sz = {"s", MEMSIDE_P_SIZE, "4KiB", 128, 1 << 20, NULL, "size", NULL, NULL};
  memside_value v;
  assert_int_equal(memside_param_parse(&sz, "4KiB", &v), 0);
  assert_int_equal(v.i, 4096);
  assert_int_equal(memside_param_parse(&sz, "1M", &v), 0);
  assert_int_equal(v.i, 1 << 20);
  assert_int_equal(memside_param_parse(&sz, "0x200", &v), 0);
  assert_int_equal(v.i, 512);
  assert_int_equal(memside_param_parse(&sz, "64", &v), -1);   /* below the range */
  assert_int_equal(memside_param_parse(&sz, "2MiB", &v), -1); /* above */
  assert_int_equal(memside_param_parse(&sz, "4 parsecs", &v), -1);
  const memside_param en = {"e", MEMSIDE_P_ENUM, "amil", 1, 0, "amil|tad", "org", NULL, NULL};
  assert_int_equal(memside_param_parse(&en, "tad", &v), 0);
  assert_int_equal(v.i, 1);
  assert_int_equal(memside_param_parse(&en, "ta", &v), -1);
  const memside_param bo = {"b", MEMSIDE_P_BOOL, "true", 1, 0, NULL, "flag", NULL, NULL};
  assert_int_equal(memside_param_parse(&bo, "false", &v), 0);
  assert_int_equal(v.i, 0);
  assert_int_equal(memside_param_parse(&bo, "yes", &v), -1);
  const memside_param fl = {"f", MEMSIDE_P_FLOAT, "0.5", 0, 1, NULL, "ratio", NULL, NULL};
  assert_int_equal(memside_param_parse(&fl, "0.375", &v), 0);
  assert_true(v.f == 0.375);
  assert_int_equal(memside_param_parse(&fl, "1.5", &v), -1);
}

static void devaddr_round_trip(void **state) {
  (void)state;
  char err[128];
  devaddr_geom g;
  /* powers of two (bit slices) and 3 ranks (division) */
  const uint32_t ranks[2] = {2, 3};
  for (int k = 0; k < 2; ++k) {
    assert_int_equal(devaddr_init(&g, ranks[k], 4, 4, 64, 32, err, sizeof err), 0);
    assert_int_equal(g.pow2, k == 0);
    uint64_t prev = 0;
    for (uint64_t row = 0; row < 3; ++row)
      for (uint32_t ra = 0; ra < ranks[k]; ++ra)
        for (uint32_t bg = 0; bg < 4; ++bg)
          for (uint32_t ba = 0; ba < 4; ++ba)
            for (uint32_t col = 0; col < 64; ++col) {
              const devaddr_loc l = {ra, bg, ba, col, row};
              const uint64_t a = devaddr_encode(&g, &l);
              /* dense: locations in order are consecutive atoms */
              if (row || ra || bg || ba || col) assert_int_equal(a, prev + 32);
              prev = a;
              devaddr_loc d;
              devaddr_decode(&g, a + 31, &d); /* any byte of the atom */
              assert_int_equal(d.ra, ra);
              assert_int_equal(d.bg, bg);
              assert_int_equal(d.ba, ba);
              assert_int_equal(d.col, col);
              assert_int_equal(d.row, row);
            }
  }
  assert_int_equal(devaddr_init(&g, 0, 4, 4, 64, 32, err, sizeof err), -1);
  assert_true(strstr(err, "zero") != NULL);
}

/* A partition of an 8-channel HBM2-like map: partition 0 = channel 0. */
static amap g_map;
static memside_cfg make_cfg(uint32_t part) {
  memside_cfg c;
  memset(&c, 0, sizeof c);
  c.map = &g_map;
  c.partition = part;
  c.ndevs = 1;
  c.dev_channel[0] = part;
  char err[128];
  assert_int_equal(devaddr_init(&c.geom[0], 1, 4, 4, 64, 32, err, sizeof err), 0);
  c.rank_kind[0][0] = AMAP_MEM_DRAM;
  return c;
}

/* The swap family's parameters (memside.swap.*, declared in memside_swap.c): defaults, then set by name. */
static memside_value g_swap[8];
static void swap_defaults(memside_cfg *c) {
  const memside_params *p = memside_find("swap")->params;
  assert_non_null(p);
  assert_true(p->count <= 8);
  assert_int_equal(memside_param_defaults(p, g_swap), -1);
  c->param = g_swap;
}
static void swap_set(const char *name, int64_t v) {
  const int k = memside_param_index(memside_find("swap")->params, name);
  assert_true(k >= 0);
  g_swap[k].i = v;
}

static void plain_matches_static_map(void **state) {
  (void)state;
  const memside_cfg c = make_cfg(3);
  const memside_ops *o = memside_find("plain");
  void *st = calloc(1, o->state_bytes(&c));
  memside_env env = {0};
  char err[256];
  assert_int_equal(o->init(st, &c, &env, err, sizeof err), 0);
  for (uint64_t pa = 0; pa < (1u << 22); pa += 128) {
    if (amap_channel(&g_map, pa) != 3) continue;
    amap_loc l;
    amap_decode(&g_map, pa, &l);
    memside_target t, r;
    o->locate(st, pa, &t);
    assert_int_equal(route1(o, st, pa, 0, MEMSIDE_DEMAND, &r), MEMSIDE_GO);
    assert_int_equal(t.addr, r.addr);
    assert_int_equal(t.dev, 0);
    devaddr_loc d;
    devaddr_decode(&c.geom[0], t.addr, &d);
    assert_int_equal(d.ra, l.ra);
    assert_int_equal(d.bg, l.bg);
    assert_int_equal(d.ba, l.ba);
    assert_int_equal(d.col, l.col);
    assert_int_equal(d.row, l.row);
  }
  assert_null(o->busy); /* flat memory: never busy, nothing to complete */
  assert_null(o->complete);
  for (uint64_t pa = 0; pa < (1u << 22); pa += 4096) {
    memside_target t;
    o->locate(st, pa, &t);
    if (amap_channel(&g_map, pa) == 3) assert_int_equal(o->kind_of(st, pa), t.kind);
  }
  free(st);
}


/* Two lines of partition 0 in different 256 B device segments. */
static void pick_pair(uint64_t *a, uint64_t *b) {
  *a = UINT64_MAX;
  for (uint64_t pa = 1u << 20; pa < (1u << 24); pa += 128) {
    if (amap_channel(&g_map, pa) != 0) continue;
    if (*a == UINT64_MAX) *a = pa;
    else if (pa >= *a + 65536) {
      *b = pa;
      return;
    }
  }
  fail();
}

/* Policy `name` of partition 0 swapping a pair after `after` accesses, on a
 * fake shell; ta, tb: where a and b start. */
typedef struct swap_rig {
  memside_cfg c;
  const memside_ops *o;
  void *st;
  fake_shell f;
  memside_env env;
  memside_target ta, tb;
  uint64_t a, b;
} swap_rig;
static void rig_init(swap_rig *r, const char *name, uint64_t after) {
  memset(r, 0, sizeof *r);
  r->c = make_cfg(0);
  pick_pair(&r->a, &r->b);
  swap_defaults(&r->c);
  swap_set("a", (int64_t)r->a);
  swap_set("b", (int64_t)r->b);
  swap_set("after", (int64_t)after);
  r->o = memside_find(name);
  r->st = calloc(1, r->o->state_bytes(&r->c));
  r->env = (memside_env){.ctx = &r->f, .issue = fake_issue, .release = fake_release};
  char err[256];
  assert_int_equal(r->o->init(r->st, &r->c, &r->env, err, sizeof err), 0);
  r->o->locate(r->st, r->a, &r->ta);
  r->o->locate(r->st, r->b, &r->tb);
}

static void swap_protocol(void **state) {
  (void)state;
  swap_rig r;
  rig_init(&r, "swap", 3);
  const struct { uint64_t a, b; } c = {r.a, r.b};
  const memside_ops *o = r.o;
  void *st = r.st;
  memside_target ta = r.ta, tb = r.tb, t, other;
  /* an access to segment a in flight when the swap starts */
  assert_int_equal(route1(o, st, c.a, 1, MEMSIDE_WRITEBACK, &t), MEMSIDE_GO);
  uint64_t elsewhere = c.b + 65536; /* some other line of partition 0 */
  while (amap_channel(&g_map, elsewhere) != 0) elsewhere += 128;
  assert_int_equal(route1(o, st, elsewhere, 0, MEMSIDE_FILL, &other), MEMSIDE_GO);
  assert_int_equal(route1(o, st, elsewhere, 0, MEMSIDE_FILL, &other), MEMSIDE_GO); /* 3rd: starts */
  assert_true(o->busy(st));
  assert_int_equal(r.f.n, 0); /* drain first: the write to a is still in flight */
  assert_int_equal(route1(o, st, c.b, 0, MEMSIDE_FILL, &t), MEMSIDE_HOLD);
  assert_int_equal(route1(o, st, elsewhere, 0, MEMSIDE_FILL, &t), MEMSIDE_GO); /* others flow */
  {
    const memside_req rq = {c.a, 1, MEMSIDE_WRITEBACK, 0xf};
    o->complete(st, &rq, &ta);
  }
  assert_int_equal(r.f.n, 2); /* one 256 B read of each segment */
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(r.f.x[i].write, 0);
    assert_int_equal(r.f.x[i].cls, MEMSIDE_MIGRATION);
    assert_int_equal(r.f.x[i].bytes, 256);
    memset(r.f.x[i].buf, i == 0 ? 0xaa : 0xbb, 256); /* segment a holds 0xaa, b 0xbb */
  }
  for (int i = 0; i < 2; ++i) o->done(st, r.f.x[i].tag);
  assert_int_equal(r.f.n, 4);
  for (int i = 2; i < 4; ++i) {
    assert_int_equal(r.f.x[i].write, 1);
    /* a's bytes go to b's location and the other way round */
    const int from_a = r.f.x[i].buf[0] == 0xaa;
    const memside_target *dst = from_a ? &tb : &ta;
    assert_int_equal(r.f.x[i].addr, dst->addr & ~255ull);
  }
  assert_int_equal(route1(o, st, c.a, 0, MEMSIDE_FILL, &t), MEMSIDE_HOLD); /* still moving */
  assert_int_equal(r.f.nrel, 0);
  for (int i = 2; i < 4; ++i) o->done(st, r.f.x[i].tag);
  assert_int_equal(r.f.nrel, 1);
  assert_false(o->busy(st));
  /* now a lives where b was and the other way round */
  assert_int_equal(route1(o, st, c.a, 0, MEMSIDE_FILL, &t), MEMSIDE_GO);
  assert_int_equal(t.addr, tb.addr);
  o->locate(st, c.b, &t);
  assert_int_equal(t.addr, ta.addr);
  o->locate(st, elsewhere, &t);
  assert_int_equal(t.addr, other.addr);
  memside_stats s;
  o->stats(st, &s);
  assert_int_equal(s.moves, 2);
  assert_int_equal(s.moved_bytes, 512);
  assert_int_equal(s.remaps, 1);
  free(st);
}

static void swap_forget_moves_no_bytes(void **state) {
  (void)state;
  swap_rig r;
  rig_init(&r, "swap_forget", 1);
  memside_target t;
  assert_int_equal(route1(r.o, r.st, r.a, 0, MEMSIDE_FILL, &t), MEMSIDE_GO);
  assert_int_equal(r.f.n, 0); /* no transfer ... */
  r.o->locate(r.st, r.a, &t);
  assert_int_equal(t.addr, r.tb.addr); /* ... but the mapping moved */
  free(r.st);
}

static void swap_bad_params(void **state) {
  (void)state;
  memside_cfg c = make_cfg(0);
  uint64_t a = 0, b = 0;
  pick_pair(&a, &b);
  swap_defaults(&c);
  swap_set("a", (int64_t)a);
  swap_set("b", (int64_t)b);
  const memside_ops *o = memside_find("swap");
  void *st = calloc(1, o->state_bytes(&c));
  fake_shell f;
  memside_env env = {.ctx = &f, .issue = fake_issue, .release = fake_release};
  char err[256];
  swap_set("segment", 384);
  assert_int_equal(o->init(st, &c, &env, err, sizeof err), -1);
  assert_true(strstr(err, "power of two") != NULL);
  swap_set("segment", 256);
  swap_set("b", (int64_t)a + 32); /* same segment */
  assert_int_equal(o->init(st, &c, &env, err, sizeof err), -1);
  assert_true(strstr(err, "different") != NULL);
  free(st);
}

static int setup(void **state) {
  (void)state;
  char err[256];
  return amap_init(&g_map, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2, 1, err, sizeof err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(registry),
      cmocka_unit_test(param_tables),
      cmocka_unit_test(param_parse),
      cmocka_unit_test(devaddr_round_trip),
      cmocka_unit_test(plain_matches_static_map),
      cmocka_unit_test(swap_protocol),
      cmocka_unit_test(swap_forget_moves_no_bytes),
      cmocka_unit_test(swap_bad_params),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
