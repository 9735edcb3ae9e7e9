/* memside_hgm (the hybrid graphics memory's NVM controller, docs/hybrid_graphics.md) on one partition of a
 * fake shell that carries out the policy's transfers with their bytes: a DRAM channel (2 ranks, 1 MiB DRAM
 * part holding the program) and an NVM bus (rank 0 RRAM, rank 1 STT-RAM, 1 GHz, gated after 1000 cycles,
 * woken in 30). Time is driven by the test: route / complete at chosen times, the decision wake-up called
 * directly. */
#include "memside_test_env.h"

#include "mem/dram.h"

extern const memside_ops memside_hgm_ops;
static const memside_ops *const O = &memside_hgm_ops;

#define DRAM_PART (1u << 20)
#define NVM_BYTES (4u << 20)
#define US 1000000ull /* ps */

typedef struct shell {
  fake_shell f; /* first: fake_issue / fake_release take the context as a fake_shell */
  uint64_t now;
  uint32_t util_q16;
  int served;
  unsigned char dram[DRAM_PART], nvm[NVM_BYTES];
} shell;

static uint64_t sh_now(void *ctx) { return ((shell *)ctx)->now; }
static int sh_wake(void *ctx, uint64_t at, uint64_t tag) {
  (void)ctx;
  (void)at;
  assert_int_equal(tag, 1);
  return 0;
}
static uint32_t sh_unwake(void *ctx, uint64_t tag) {
  (void)ctx;
  (void)tag;
  return 1;
}
static uint32_t sh_util(void *ctx, uint32_t dev, uint64_t window) {
  assert_int_equal(dev, 0);          /* the DRAM channel's intensity */
  assert_int_equal(window, 1 * US);  /* over the decision period */
  return ((shell *)ctx)->util_q16;
}

typedef struct part {
  amap map;
  memside_cfg c;
  memside_value par[16];
  memside_env env;
  shell *sh;
  void *st;
} part;

static void setup_part(part *q, int with_stt) {
  memset(q, 0, sizeof *q);
  static const uint32_t dch[1] = {0}, nch[1] = {1}, ra[2] = {0, 1};
  const amap_part_cfg p[2] = {{AMAP_MEM_DRAM, DRAM_PART, 1, 2, dch, ra}, {AMAP_MEM_NVM, 0, 1, 2, nch, ra}};
  char err[256];
  if (amap_init_parts(&q->map, p, 2, 0, NULL, 2, 2, 4, 4, 2048, 32, 2, 0, err, sizeof err) != 0)
    fail_msg("amap_init_parts: %s", err);
  mst_partition(&q->c, &q->map, 0, 2);
  q->c.ndevs = 2;
  mst_hbm2_device(&q->c, 0, 0, 2);
  mst_hbm2_device(&q->c, 1, 1, 2);
  q->c.rank_kind[0][1] = AMAP_MEM_DRAM;
  q->c.rank_kind[1][0] = q->c.rank_kind[1][1] = AMAP_MEM_NVM;
  q->c.rank_tech[1][0] = DRAM_TID_RRAM;
  q->c.rank_tech[1][1] = with_stt ? DRAM_TID_STTRAM : DRAM_TID_RRAM;
  for (int r = 0; r < 2; ++r) {
    q->c.rank_gate_idle[1][r] = 1000;
    q->c.rank_twake[1][r] = 30;
  }
  q->c.dev_clk_mhz[0] = 1250;
  q->c.dev_clk_mhz[1] = 1000;
  q->c.sys.nparts = 1;
  mst_param_defaults(O->params, q->par, 16);
  mst_set_param(O->params, q->par, "stt_bytes", 4096); /* two STT-RAM rows: the fall-back to RRAM is reached */
  mst_set_param(O->params, q->par, "idle_timeout_ns", 10000); /* 10 us: the cases below are worked in microseconds */
  q->c.param = q->par;
  q->sh = (shell *)calloc(1, sizeof(shell));
  assert_non_null(q->sh);
  q->sh->util_q16 = 65536;
  for (uint32_t i = 0; i < DRAM_PART; ++i) q->sh->dram[i] = (unsigned char)(i * 13u + (i >> 11));
  q->env = (memside_env){.ctx = q->sh, .issue = fake_issue, .release = fake_release, .now_ps = sh_now,
                         .wake = sh_wake, .unwake = sh_unwake, .dev_util = sh_util};
}

static void init_part(part *q) {
  q->st = mst_state(O, &q->c);
  mst_init(O, q->st, &q->c, &q->env);
}

static void free_part(part *q) {
  free(q->st);
  free(q->sh);
}

/* Carry out the issued transfers with their bytes, in order, answering each (done). */
static void serve(part *q) {
  shell *s = q->sh;
  while (s->served < s->f.n) {
    const memside_xfer x = s->f.x[s->served++];
    assert_int_equal(x.cls, MEMSIDE_MIGRATION);
    assert_int_equal(x.bytes, 2048);
    unsigned char *mem = x.dev == 0 ? s->dram : s->nvm;
    assert_true(x.addr + x.bytes <= (x.dev == 0 ? DRAM_PART : NVM_BYTES));
    if (x.write)
      memcpy(mem + x.addr, x.buf, x.bytes);
    else
      memcpy(x.buf, mem + x.addr, x.bytes);
    O->done(q->st, x.tag);
  }
}

static uint64_t stat(const part *q, const char *name) {
  uint64_t v[64];
  unsigned n = 0;
  while (O->stat_names[n]) ++n;
  O->stat_values(q->st, v);
  for (unsigned i = 0; i < n; ++i)
    if (strcmp(O->stat_names[i], name) == 0) return v[i];
  fail_msg("no stat hgm.%s", name);
  return 0;
}

/* One access at time t, answered at once. Returns MEMSIDE_GO or MEMSIDE_HOLD; *out where it went. */
static int access(part *q, uint64_t t, uint64_t pa, int write, memside_target *out, uint32_t *ticket) {
  q->sh->now = t;
  const memside_req rq = {pa, (uint8_t)write, MEMSIDE_DEMAND, 0xF};
  memset(out, 0, sizeof *out);
  const int r = O->route(q->st, &rq, ticket, out);
  if (r == MEMSIDE_GO) O->complete(q->st, &rq, out);
  return r;
}

/* The k-th line (k >= 1) after pa in pa's DRAM row. */
static uint64_t same_row(const part *q, uint64_t pa, unsigned k) {
  memside_target h, t;
  memside_static_locate(&q->c, pa, &h);
  for (uint64_t a = pa + 128; a < DRAM_PART; a += 128) {
    memside_static_locate(&q->c, a, &t);
    if (t.dev == h.dev && t.addr >> 11 == h.addr >> 11 && --k == 0) return a;
  }
  fail_msg("no line %u after %llu in its row", k, (unsigned long long)pa);
  return 0;
}

static void decide_at(part *q, uint64_t t) {
  q->sh->now = t;
  O->wake(q->st, t, 1);
}

static void refused_without_stt_rank(void **state) {
  (void)state;
  part q;
  setup_part(&q, 0);
  void *st = mst_state(O, &q.c);
  mst_init_refused(O, st, &q.c, &q.env, "memside.policy");
  free(st);
  q.c.ndevs = 1;
  st = mst_state(O, &q.c);
  mst_init_refused(O, st, &q.c, &q.env, "memside.policy");
  free(st);
  free(q.sh);
}

/* A read-only row idle past the time-out moves to RRAM with its bytes; a read of it is served by NVM, waking the
 * gated row (30 ns); a GPU write waits while the row moves back to DRAM, bytes and all. */
static void idle_row_round_trip(void **state) {
  (void)state;
  part q;
  setup_part(&q, 1);
  init_part(&q);
  memside_target t, home;
  uint32_t ticket = 0;
  memside_static_locate(&q.c, 0, &home);
  assert_int_equal(home.dev, 0);
  assert_int_equal(access(&q, 0, 0, 0, &t, &ticket), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  decide_at(&q, 5 * US); /* idle 5 us < 10 us: stays */
  assert_int_equal(q.sh->f.n, 0);
  decide_at(&q, 11 * US); /* idle 11 us, 1 access / 11 us <= 0.1 per us: moves */
  assert_int_equal(q.sh->f.n, 1);
  assert_int_equal(q.sh->f.x[0].dev, 0);
  assert_int_equal(q.sh->f.x[0].write, 0);
  assert_int_equal(q.sh->f.x[0].addr, home.addr & ~2047ull);
  /* while the row moves, its accesses are held with the row's ticket */
  ticket = 0;
  assert_int_equal(access(&q, 11 * US, same_row(&q, 0, 1), 0, &t, &ticket), MEMSIDE_HOLD);
  assert_true(O->busy(q.st));
  serve(&q);
  assert_int_equal(q.sh->f.nrel, 1);
  assert_int_equal(q.sh->f.released[0], ticket);
  assert_false(O->busy(q.st));
  assert_int_equal(stat(&q, "migrations_to_rram"), 1);
  O->locate(q.st, 0, &t);
  assert_int_equal(t.dev, 1);
  assert_int_equal(t.kind, AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q.st, 0), AMAP_MEM_NVM);
  devaddr_loc l;
  devaddr_decode(&q.c.geom[1], t.addr, &l);
  assert_int_equal(l.ra, 0); /* RRAM */
  assert_memory_equal(q.sh->nvm + (t.addr & ~2047ull), q.sh->dram + (home.addr & ~2047ull), 2048);
  /* a read 5 us later: the row was gated after 1 us; it waits tWAKE = 30 cycles at 1 GHz */
  ticket = 0;
  assert_int_equal(access(&q, 16 * US, 0, 0, &t, &ticket), MEMSIDE_GO);
  assert_int_equal(t.dev, 1);
  assert_int_equal(t.delay_ps, 30000);
  assert_int_equal(stat(&q, "nvm_reads"), 1);
  assert_int_equal(stat(&q, "wakeups"), 1);
  assert_int_equal(stat(&q, "gated_row_ns"), 4000);   /* 11 -> 16 us: powered 1 us, gated 4 us */
  assert_int_equal(stat(&q, "powered_row_ns"), 1000);
  /* the RRAM rank's background energy: 1 W over its 65536 rows (128 MiB), one powered for 1 us; the STT-RAM
   * rank's rows are all free (off); the DRAM channel keeps the controller's accounting */
  assert_float_equal(O->rank_background_j(q.st, 1, 0, 1.0, 0.0), 1e-6 / 65536, 1e-15);
  assert_float_equal(O->rank_background_j(q.st, 1, 1, 1.0, 0.0), 0.0, 0.0);
  assert_true(O->rank_background_j(q.st, 0, 0, 1.0, 0.0) < 0);
  /* leakage per capacity: 1 W per 128 MiB is 1 W x 2 KiB / 128 MiB per powered row, whatever the rank's size */
  assert_float_equal(O->rank_background_j(q.st, 1, 0, 1.0, 128.0 * 1048576), 1e-6 * 2048 / (128.0 * 1048576), 1e-15);
  assert_float_equal(O->rank_background_j(q.st, 1, 0, 1.0, 64.0 * 1048576), 1e-6 * 2048 / (64.0 * 1048576), 1e-15);
  /* a read right after: powered, no delay */
  assert_int_equal(access(&q, 16 * US + 100000, same_row(&q, 0, 2), 0, &t, &ticket), MEMSIDE_GO);
  assert_int_equal(t.delay_ps, 0);
  /* a GPU write: held, the row moves back (NVM read, DRAM write), then the write goes to DRAM */
  memset(q.sh->dram + (home.addr & ~2047ull), 0, 2048); /* DRAM's copy is stale: the bytes must come from NVM */
  const unsigned char want = q.sh->nvm[t.addr & ~2047ull];
  ticket = 0;
  const int n0 = q.sh->f.n;
  assert_int_equal(access(&q, 17 * US, 0, 1, &t, &ticket), MEMSIDE_HOLD);
  assert_int_equal(q.sh->f.n, n0 + 1);
  assert_int_equal(q.sh->f.x[n0].dev, 1);
  serve(&q);
  assert_int_equal(q.sh->f.released[q.sh->f.nrel - 1], ticket);
  assert_int_equal(stat(&q, "migrations_to_dram"), 1);
  assert_int_equal(q.sh->dram[home.addr & ~2047ull], want);
  ticket = 0;
  assert_int_equal(access(&q, 17 * US, 0, 1, &t, &ticket), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, home.addr);
  memside_stats ms;
  O->stats(q.st, &ms);
  assert_int_equal(ms.moves, 2);
  assert_int_equal(ms.moved_bytes, 4096);
  free_part(&q);
}

/* Written rows go to STT-RAM (writes above 5 %), RRAM once STT-RAM's two rows are used; a row in a burst (high
 * access density) stays although it timed out; no move while the DRAM bus is below min_intensity. */
static void destination_density_intensity(void **state) {
  (void)state;
  part q;
  setup_part(&q, 1);
  init_part(&q);
  memside_target t, h;
  uint32_t ticket = 0;
  /* lines of four distinct DRAM rows: three written once, one read 200 times */
  uint64_t pa[4];
  unsigned n = 0;
  uint64_t seen[4];
  for (uint64_t a = 0; n < 4 && a < DRAM_PART; a += 128) {
    memside_static_locate(&q.c, a, &h);
    const uint64_t row = h.addr >> 11;
    unsigned k = 0;
    while (k < n && seen[k] != row) ++k;
    if (k == n) {
      seen[n] = row;
      pa[n++] = a;
    }
  }
  assert_int_equal(n, 4);
  for (unsigned i = 0; i < 3; ++i) assert_int_equal(access(&q, 0, pa[i], 1, &t, &ticket), MEMSIDE_GO);
  /* the fourth row: 200 reads within the first microsecond (density 200 / 11 us > 0.1) */
  for (unsigned i = 0; i < 200; ++i) assert_int_equal(access(&q, i * 5000, pa[3], 0, &t, &ticket), MEMSIDE_GO);
  q.sh->util_q16 = 65536 / 100; /* 1 % < min_intensity 2 % */
  decide_at(&q, 11 * US);
  assert_int_equal(q.sh->f.n, 0);
  assert_int_equal(stat(&q, "migration_disabled_ns"), 1000);
  q.sh->util_q16 = 65536;
  decide_at(&q, 12 * US); /* four buffers: the three written rows move, the dense one does not */
  serve(&q);
  assert_int_equal(stat(&q, "migrations_to_stt"), 2);
  assert_int_equal(stat(&q, "migrations_to_rram"), 1);
  O->locate(q.st, pa[3], &t);
  assert_int_equal(t.dev, 0);
  /* the dense row becomes eligible at placed + 200 / 0.1 per us = 2000 us */
  decide_at(&q, 1999 * US);
  assert_int_equal(stat(&q, "migrations_to_rram"), 1);
  decide_at(&q, 2001 * US);
  serve(&q);
  assert_int_equal(stat(&q, "migrations_to_rram"), 2);
  O->locate(q.st, pa[3], &t);
  assert_int_equal(t.dev, 1);
  /* the program ends: no further decisions */
  O->kernel_boundary(q.st, 0, 1);
  assert_false(O->busy(q.st));
  free_part(&q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(refused_without_stt_rank),
      cmocka_unit_test(idle_row_round_trip),
      cmocka_unit_test(destination_density_intensity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
