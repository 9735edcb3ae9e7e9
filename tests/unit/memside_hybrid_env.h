/* The fake DRAM + PCM partition of the hybrid-memory policy unit tests (test_memside_dbuff.c,
 * test_memside_rapp.c, test_memside_flrb.c): a map of two channels with the PCM part first, one partition with
 * a DRAM device and a PCM device, and a fake shell (memside_fake_shell.h) that also keeps a clock, each
 * channel's utilisation, the policy's wake-ups and both devices' bytes, so a test can carry out the policy's
 * transfers with their bytes (hyb_serve) and check where the bytes went.
 *
 * A header of its own rather than a section of memside_test_env.h: only these three tests move bytes between
 * two devices, and the shell keeps more than a MiB of them; the other memside tests (memside_test_env.h's
 * users) need neither. It builds on memside_test_env.h (mst_partition, mst_hbm2_device, mst_param_defaults,
 * mst_state, mst_init). What the three differ in is a hyb_opts each passes; a policy's own parameters, and
 * flrb's device clocks and engine blocks, are set by the test after hyb_part_setup. A set-up that fails is a
 * cmocka failure. */
#ifndef STRATA_TEST_MEMSIDE_HYBRID_ENV_H
#define STRATA_TEST_MEMSIDE_HYBRID_ENV_H
#include "memside_test_env.h"

#define HYB_PCM_BYTES (1u << 20)       /* the map's PCM part: the PCM device's bytes */
#define HYB_DRAM_PART (1u << 16)       /* the map's DRAM part */
#define HYB_DRAM_MAX (2u * HYB_DRAM_PART) /* the most DRAM device bytes a shell keeps (beyond the part: flrb's
                                           * reserved region at memside.flrb.dram_offset) */
#define HYB_PAR 16u                    /* room for a policy's parameters */
#define HYB_WAKES 4096u

/* What the three tests' partitions differ in. */
typedef struct hyb_opts {
  unsigned npar;        /* parameters the family has at most (mst_param_defaults asserts it; <= HYB_PAR) */
  unsigned pcm_shift;   /* PCM byte i holds (i x 7 + (i >> pcm_shift)) mod 256 */
  int util_dev;         /* the one device env->dev_util may be asked about; -1: either */
  uint64_t util_window; /* the window env->dev_util must be asked for, ps (0: never asked) */
  int migration_only;   /* every transfer must be of class MEMSIDE_MIGRATION */
  uint64_t dram_bytes;  /* the DRAM device's bytes: transfers must lie below (0: HYB_DRAM_PART) */
} hyb_opts;

/* The fake shell plus a clock, each device's utilisation, the wake-ups asked for and both devices' bytes. */
typedef struct hyb_shell {
  fake_shell f; /* first: fake_issue / fake_release take the context as a fake_shell */
  uint64_t now;
  uint32_t util_q16[2]; /* what env->dev_util answers for device 0 (DRAM) and 1 (PCM) */
  uint64_t wake_at[HYB_WAKES];
  int nwake, unwakes, served; /* served: transfers of f.x[] already carried out */
  hyb_opts o;
  uint64_t pa[HYB_PCM_BYTES / 128]; /* the physical line at each PCM line address */
  unsigned char dram[HYB_DRAM_MAX], pcm[HYB_PCM_BYTES];
} hyb_shell;

typedef struct hyb_part {
  const memside_ops *o;
  memside_cfg c;
  memside_value par[HYB_PAR];
  void *st;
  memside_env env;
  hyb_shell *sh;
} hyb_part;

static inline uint64_t hyb_now(void *ctx) { return ((hyb_shell *)ctx)->now; }

static inline int hyb_wake(void *ctx, uint64_t at, uint64_t tag) {
  hyb_shell *s = (hyb_shell *)ctx;
  assert_int_equal(tag, 0);
  assert_true(s->nwake < (int)HYB_WAKES);
  s->wake_at[s->nwake++] = at;
  return 0;
}

static inline uint32_t hyb_unwake(void *ctx, uint64_t tag) {
  (void)tag;
  ++((hyb_shell *)ctx)->unwakes;
  return 1;
}

static inline uint32_t hyb_util(void *ctx, uint32_t dev, uint64_t window) {
  const hyb_shell *s = (const hyb_shell *)ctx;
  if (s->o.util_dev >= 0) assert_int_equal(dev, s->o.util_dev);
  assert_true(dev < 2);
  assert_int_equal(window, s->o.util_window);
  return s->util_q16[dev];
}

/* m: 2 channels of one rank (4 x 4 banks, 2 KiB rows): the PCM part (HYB_PCM_BYTES) on channel 1 first, the
 * DRAM part (HYB_DRAM_PART) on channel 0. Returns 0, or -1 (a group set-up's result). */
static inline int hyb_map_init(amap *m) {
  static const uint32_t pch[1] = {1}, dch[1] = {0}, r0[1] = {0};
  const amap_part_cfg p[2] = {{AMAP_MEM_NVM, HYB_PCM_BYTES, 1, 1, pch, r0},
                              {AMAP_MEM_DRAM, HYB_DRAM_PART, 1, 1, dch, r0}};
  char err[256];
  return amap_init_parts(m, p, 2, 0, NULL, 2, 1, 4, 4, 2048, 32, 2, 0, err, sizeof err);
}

/* q, for policy o on map m (hyb_map_init): device 0 DRAM on channel 0, device 1 PCM on channel 1 (one rank of
 * the hbm2 geometry each), one partition; the family's defaults; an env of q's shell with a clock, wake-ups and
 * utilisation; PCM filled with opt's pattern; the physical line of every PCM line found (each on device 1). Not
 * initialised; free with hyb_part_free. */
static inline void hyb_part_setup(hyb_part *q, const memside_ops *o, const amap *m, const hyb_opts *opt) {
  memset(q, 0, sizeof *q);
  assert_true(opt->npar <= HYB_PAR);
  assert_true(opt->dram_bytes <= HYB_DRAM_MAX);
  q->o = o;
  q->sh = (hyb_shell *)calloc(1, sizeof(hyb_shell));
  assert_non_null(q->sh);
  q->sh->o = *opt;
  if (!q->sh->o.dram_bytes) q->sh->o.dram_bytes = HYB_DRAM_PART;
  mst_partition(&q->c, m, 0, 1);
  q->c.ndevs = 2;
  mst_hbm2_device(&q->c, 1, 1, 1);
  q->c.rank_kind[1][0] = AMAP_MEM_NVM;
  q->c.sys.nparts = 1;
  mst_param_defaults(o->params, q->par, opt->npar);
  q->c.param = q->par;
  q->env = (memside_env){.ctx = q->sh, .issue = fake_issue, .release = fake_release, .now_ps = hyb_now,
                         .wake = hyb_wake, .unwake = hyb_unwake, .dev_util = hyb_util};
  for (uint32_t i = 0; i < HYB_PCM_BYTES; ++i) q->sh->pcm[i] = (unsigned char)(i * 7u + (i >> opt->pcm_shift));
  for (uint32_t i = 0; i < HYB_PCM_BYTES / 128; ++i) q->sh->pa[i] = UINT64_MAX;
  memside_target t;
  for (uint64_t pa = 0; pa < HYB_PCM_BYTES; pa += 128) {
    memside_static_locate(&q->c, pa, &t);
    assert_int_equal(t.dev, 1);
    q->sh->pa[t.addr / 128] = pa;
  }
  for (uint32_t i = 0; i < HYB_PCM_BYTES / 128; ++i) assert_true(q->sh->pa[i] != UINT64_MAX);
}

/* q's policy state, initialised (mst_init: init must accept q's set-up). */
static inline void hyb_part_init(hyb_part *q) {
  q->st = mst_state(q->o, &q->c);
  mst_init(q->o, q->st, &q->c, &q->env);
}

static inline void hyb_part_free(hyb_part *q) {
  free(q->st);
  free(q->sh);
  q->st = NULL;
  q->sh = NULL;
}

/* Carry out every transfer issued and not yet served, in order, with the bytes (reads fill buf, writes store
 * it), answering each (done); transfers those answers issue are served too. Each must lie in its device's
 * bytes (and be a migration's, where opts say so). */
static inline void hyb_serve(hyb_part *q) {
  hyb_shell *s = q->sh;
  while (s->served < s->f.n) {
    const memside_xfer x = s->f.x[s->served++];
    unsigned char *mem = x.dev == 0 ? s->dram : s->pcm;
    assert_true(x.dev < 2);
    if (s->o.migration_only) assert_int_equal(x.cls, MEMSIDE_MIGRATION);
    assert_true(x.addr + x.bytes <= (x.dev == 0 ? s->o.dram_bytes : HYB_PCM_BYTES));
    if (x.write) memcpy(mem + x.addr, x.buf, x.bytes);
    else memcpy(x.buf, mem + x.addr, x.bytes);
    q->o->done(q->st, x.tag);
  }
}

/* Stat `name` of q's policy (without the policy's prefix). */
static inline uint64_t hyb_stat(const hyb_part *q, const char *name) {
  uint64_t v[64];
  unsigned n = 0;
  while (q->o->stat_names[n]) ++n;
  assert_true(n <= 64);
  q->o->stat_values(q->st, v);
  for (unsigned i = 0; i < n; ++i)
    if (strcmp(q->o->stat_names[i], name) == 0) return v[i];
  fail_msg("no stat %s.%s", q->o->name, name);
  return 0;
}

/* The physical line at PCM device address `addr` (128 B-aligned). */
static inline uint64_t hyb_pa_of(const hyb_part *q, uint64_t addr) {
  if (addr % 128 || addr >= HYB_PCM_BYTES) fail_msg("no line at PCM address %llu", (unsigned long long)addr);
  return q->sh->pa[addr / 128];
}

/* The DRAM device address where q's policy locates the line at PCM device address `addr` (it must be in
 * DRAM). */
static inline uint64_t hyb_dram_addr(const hyb_part *q, uint64_t addr) {
  memside_target t;
  q->o->locate(q->st, hyb_pa_of(q, addr), &t);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  return t.addr;
}

#endif
