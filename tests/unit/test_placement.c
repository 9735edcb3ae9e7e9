/* Unit tests of the placement engine (models/ref/place/placement.c, hybrid DRAM+PCM paper Sec. V): the dynamic
 * programming over the Placement Cost Graph finds the same optimum as a brute force over every placement
 * sequence of a hand-made 3-kernel x 3-array program; plans respect size constraints (1) and (2); migration
 * edges are costed (a case where moving an array between kernels pays and one where it does not); the runtime
 * calls place and move arrays within the DRAM and PCM parts; bad inputs are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "place/placement.h"

#define MiB (1ull << 20)
#define PCM_BASE 0ull
#define DRAM_BASE (6ull << 30)

static uint64_t g_work[(1u << 20) / 8];

static plc_cfg base_cfg(uint32_t narrays, uint32_t nkernels, uint64_t dram_cap) {
  plc_cfg c;
  memset(&c, 0, sizeof c);
  c.sms = 30;
  c.max_warps = 32;
  c.core_mhz = 1400;
  c.line_bytes = 128;
  c.narrays = narrays;
  c.nkernels = nkernels;
  c.dram.dev = dram_find("ddr3_800");
  c.dram.channels = 6;
  c.dram.ranks = 1;
  c.dram.base = DRAM_BASE;
  c.dram.capacity = dram_cap;
  c.pcm.dev = dram_find("pcm_flrb");
  c.pcm.channels = 6;
  c.pcm.ranks = 1;
  c.pcm.base = PCM_BASE;
  c.pcm.capacity = 6ull << 30;
  c.align = 4096;
  c.migration_weight = 1.0;
  return c;
}

/* A kernel of `warps` warps touching array a: `rd` coalesced loads and `wr` uncoalesced stores per warp (an
 * uncoalesced store: 32 transactions). */
static void touch(plc_kernel_prof *k, uint32_t a, uint64_t warps, uint64_t rd, uint64_t wr) {
  plc_array_prof *p = &k->arr[a];
  p->reads += rd * warps;
  p->writes += wr * warps;
  p->coal_insts += rd * warps;
  p->uncoal_insts += wr * warps;
  p->rd_coal += rd * warps;
  p->wr_uncoal += 32 * wr * warps;
  k->insts += (rd + wr + 4) * warps;
  if (k->warps < warps) k->warps = warps;
  k->warps_per_cta = 8;
}

static void setup(plc_state *s, plc_cfg *c, plc_kernel_prof *prof, const int64_t *sizes) {
  char err[160] = "";
  assert_int_equal(plc_init(s, c, prof, g_work, sizeof g_work, err, sizeof err), 0);
  assert_int_equal(plc_get_size(s, sizes), 0);
}

/* One kernel whose 4096 warps each read an array of 4 MiB `rd` times and write it `wr` times, on 64 MiB of DRAM:
 * the fixture of the single-array model tests (the profile and sizes live beside the state that points at them). */
typedef struct {
  plc_kernel_prof prof[1];
  int64_t sz[1];
  plc_cfg c;
  plc_state s;
} one_array;

static void one_array_setup(one_array *f, uint64_t rd, uint64_t wr) {
  memset(f, 0, sizeof *f);
  touch(&f->prof[0], 0, 4096, rd, wr);
  f->sz[0] = 4 * MiB;
  f->c = base_cfg(1, 1, 64 * MiB);
  setup(&f->s, &f->c, f->prof, f->sz);
}

static double brute_force(const plc_state *s, uint16_t *arg) {
  const uint32_t m = 1u << s->cfg.narrays, K = s->cfg.nkernels;
  uint32_t total = 1;
  for (uint32_t k = 0; k < K; ++k) total *= m;
  double best = INFINITY;
  for (uint32_t i = 0; i < total; ++i) {
    uint16_t seq[8];
    uint32_t x = i;
    for (uint32_t k = 0; k < K; ++k) seq[k] = (uint16_t)(x % m), x /= m;
    const double v = plc_sequence_edp(s, seq);
    if (v < best) best = v, memcpy(arg, seq, K * sizeof *seq);
  }
  return best;
}

/* Three kernels, three arrays, DRAM room for two of the three 4 MiB arrays: each kernel stresses a different
 * array with PCM-unfriendly uncoalesced stores. */
static void three_by_three(plc_kernel_prof *prof) {
  memset(prof, 0, 3 * sizeof *prof);
  touch(&prof[0], 0, 4096, 4, 8);
  touch(&prof[0], 1, 4096, 2, 0);
  touch(&prof[1], 1, 4096, 6, 4);
  touch(&prof[1], 2, 4096, 4, 0);
  touch(&prof[2], 2, 4096, 2, 8);
  touch(&prof[2], 0, 4096, 8, 0);
}

static void dp_matches_brute_force(void **st) {
  (void)st;
  plc_kernel_prof prof[3];
  three_by_three(prof);
  const int64_t sizes[3] = {4 * MiB, 4 * MiB, 4 * MiB};
  for (int room = 1; room <= 3; ++room) {  /* DRAM room for 0, 1 and 2 arrays */
    plc_cfg c = base_cfg(3, 3, (uint64_t)(room - 1) * 4 * MiB + 1);
    plc_state s;
    setup(&s, &c, prof, sizes);
    assert_int_equal(plc_cal_place(&s), 0);
    uint16_t bf[3], plan[3];
    const double want = brute_force(&s, bf);
    for (uint32_t k = 0; k < 3; ++k) plan[k] = (uint16_t)plc_plan(&s, k);
    assert_true(isfinite(want));
    assert_true(fabs(s.predicted_edp - want) <= 1e-12 * want);
    assert_true(fabs(plc_sequence_edp(&s, plan) - want) <= 1e-12 * want);
    for (uint32_t k = 0; k < 3; ++k) {
      assert_true(plc_legal(&s, plan[k]));
      assert_true((unsigned)__builtin_popcount(plan[k]) <= (unsigned)room - 1);
    }
    if (room == 1) assert_true(fabs(s.predicted_edp - s.all_pcm_edp) <= 1e-12 * want);
    else assert_true(s.predicted_edp < s.all_pcm_edp);
  }
}

static void capacity_respected(void **st) {
  (void)st;
  plc_kernel_prof prof[3];
  three_by_three(prof);
  const int64_t sizes[3] = {3 * MiB, 5 * MiB, 2 * MiB};
  /* Constraint (2) is strict: DRAM of exactly 5 MiB holds the 3 and 2 MiB arrays' sum only if < 5 MiB. */
  plc_cfg c = base_cfg(3, 3, 5 * MiB);
  plc_state s;
  setup(&s, &c, prof, sizes);
  assert_false(plc_legal(&s, 0x3));   /* 8 MiB */
  assert_false(plc_legal(&s, 0x2));   /* 5 MiB = D */
  assert_false(plc_legal(&s, 0x5));   /* 5 MiB = D */
  assert_true(plc_legal(&s, 0x1));
  assert_true(plc_legal(&s, 0x4));
  assert_int_equal(plc_cal_place(&s), 0);
  for (uint32_t k = 0; k < 3; ++k) {
    const uint32_t m = plc_plan(&s, k);
    uint64_t d = 0;
    for (uint32_t a = 0; a < 3; ++a)
      if ((m >> a) & 1u) d += (uint64_t)sizes[a];
    assert_true(d < c.dram.capacity);
  }
  /* Constraint (1): PCM too small for the arrays left on it. */
  plc_cfg c2 = base_cfg(3, 3, 6 * MiB);
  c2.pcm.capacity = 6 * MiB;
  setup(&s, &c2, prof, sizes);
  assert_false(plc_legal(&s, 0));     /* 10 MiB on PCM */
  assert_int_equal(plc_cal_place(&s), 0);
  for (uint32_t k = 0; k < 3; ++k) assert_true(plc_legal(&s, plc_plan(&s, k)) && plc_plan(&s, k) != 0);
  /* Neither memory mix holds them: no plan. */
  plc_cfg c3 = base_cfg(3, 3, 2 * MiB);
  c3.pcm.capacity = 2 * MiB;
  setup(&s, &c3, prof, sizes);
  assert_int_equal(plc_cal_place(&s), -1);
}

/* Two kernels, two arrays, DRAM room for one. */
static void migration_edges(void **st) {
  (void)st;
  plc_kernel_prof prof[2];
  memset(prof, 0, sizeof prof);
  /* Pays: each kernel hammers its own array with uncoalesced stores; the arrays are small. */
  touch(&prof[0], 0, 8192, 2, 16);
  touch(&prof[1], 1, 8192, 2, 16);
  const int64_t small[2] = {1 * MiB, 1 * MiB};
  plc_cfg c = base_cfg(2, 2, 1 * MiB + 1);
  plc_state s;
  setup(&s, &c, prof, small);
  const plc_cost mig = plc_migration_cost(&s, 0x1, 0x2);
  assert_true(mig.seconds > 0 && mig.energy_j > 0 && mig.edp > 0);
  assert_true(plc_migration_cost(&s, 0x1, 0x1).edp == 0);
  assert_int_equal(plc_cal_place(&s), 0);
  assert_int_equal(plc_plan(&s, 0), 0x1);
  assert_int_equal(plc_plan(&s, 1), 0x2);
  /* Without migration edges (static_only) the plan keeps one placement. */
  plc_state s0;
  static uint64_t work0[(1u << 16) / 8];
  plc_cfg c0 = c;
  c0.static_only = 1;
  assert_int_equal(plc_init(&s0, &c0, prof, work0, sizeof work0, NULL, 0), 0);
  assert_int_equal(plc_get_size(&s0, small), 0);
  assert_int_equal(plc_cal_place(&s0), 0);
  assert_int_equal(plc_plan(&s0, 0), plc_plan(&s0, 1));
  assert_true(s0.predicted_edp > s.predicted_edp);
  const uint16_t stay[2] = {0x1, 0x1};
  assert_true(s.predicted_edp < plc_sequence_edp(&s, stay));
  /* The path length includes the migration edge. */
  const double parts = plc_kernel_cost(&s, 0, 0x1).edp + mig.edp + plc_kernel_cost(&s, 1, 0x2).edp;
  assert_true(fabs(s.predicted_edp - parts) <= 1e-12 * parts);

  /* Does not pay: the same arrays 1 GiB each (a migration moves a GiB) while the kernels touch little. */
  memset(prof, 0, sizeof prof);
  touch(&prof[0], 0, 64, 1, 1);
  touch(&prof[0], 1, 64, 1, 0);
  touch(&prof[1], 1, 64, 1, 1);
  touch(&prof[1], 0, 64, 1, 0);
  const int64_t big[2] = {1024 * MiB, 1024 * MiB};
  plc_cfg c2 = base_cfg(2, 2, 1024 * MiB + 1);
  setup(&s, &c2, prof, big);
  assert_int_equal(plc_cal_place(&s), 0);
  assert_int_equal(plc_plan(&s, 0), plc_plan(&s, 1));
  const uint16_t move[2] = {0x1, 0x2};
  assert_true(plc_sequence_edp(&s, move) > s.predicted_edp);
  /* Free migrations (weight 0): each kernel gets its own best placement, and the plan's reported EDP is the
   * unweighted length of that sequence, above the weighted optimum's. */
  plc_cfg c3 = c2;
  c3.migration_weight = 0;
  plc_state s3;
  static uint64_t work3[(1u << 16) / 8];
  assert_int_equal(plc_init(&s3, &c3, prof, work3, sizeof work3, NULL, 0), 0);
  assert_int_equal(plc_get_size(&s3, big), 0);
  assert_int_equal(plc_cal_place(&s3), 0);
  for (uint32_t k = 0; k < 2; ++k) {
    double best = INFINITY;
    uint32_t arg = 0;
    for (uint32_t m = 0; m < 4; ++m)
      if (plc_legal(&s3, m) && plc_kernel_cost(&s3, k, m).edp < best) best = plc_kernel_cost(&s3, k, m).edp, arg = m;
    assert_int_equal(plc_plan(&s3, k), arg);
  }
  assert_true(plc_plan(&s3, 0) != plc_plan(&s3, 1));
  assert_true(s3.predicted_edp > s.predicted_edp);
  c3.migration_weight = -1;
  assert_int_equal(plc_init(&s3, &c3, prof, work3, sizeof work3, NULL, 0), -1);
}

static void runtime_calls(void **st) {
  (void)st;
  plc_kernel_prof prof[2];
  memset(prof, 0, sizeof prof);
  touch(&prof[0], 0, 8192, 2, 16);
  touch(&prof[1], 1, 8192, 2, 16);
  touch(&prof[0], 2, 16, 1, 0);
  plc_cfg c = base_cfg(3, 2, 1 * MiB + 1);
  plc_state s;
  char err[160];
  assert_int_equal(plc_init(&s, &c, prof, g_work, sizeof g_work, err, sizeof err), 0);
  const int64_t none[3] = {-1, -1, -1}, some[3] = {1 * MiB, -1, 100};
  assert_int_equal(plc_get_size(&s, none), -1);
  assert_int_equal(plc_get_size(&s, some), 0);
  assert_int_equal(s.size[1], 1 * MiB); /* unknown: the largest known size */
  assert_int_equal(plc_cal_place(&s), 0);
  assert_int_equal(plc_plan(&s, 0), 0x1);
  assert_int_equal(plc_plan(&s, 1), 0x2);
  uint64_t a0, a1, a2;
  assert_int_equal(plc_malloc_hyb(&s, 0, 0, &a0), 0);
  assert_int_equal(plc_malloc_hyb(&s, 0, 1, &a1), 0);
  assert_int_equal(plc_malloc_hyb(&s, 0, 2, &a2), 0);
  assert_int_equal(plc_malloc_hyb(&s, 0, 2, &a2), -1); /* twice */
  assert_int_equal(a0, DRAM_BASE);
  assert_true(a1 < DRAM_BASE && a2 < DRAM_BASE && (a1 % 4096) == 0 && (a2 % 4096) == 0);
  assert_true(a1 + MiB <= a2 || a2 + 4096 <= a1); /* no overlap */
  plc_move mv[4];
  assert_int_equal(plc_data_migrate(&s, 1, mv, 4), 2);
  assert_int_equal(mv[0].array, 0); /* DRAM -> PCM first */
  assert_int_equal(mv[0].to_dram, 0);
  assert_int_equal(mv[0].from, DRAM_BASE);
  assert_true(mv[0].to < DRAM_BASE);
  assert_int_equal(mv[1].array, 1);
  assert_int_equal(mv[1].to_dram, 1);
  assert_int_equal(mv[1].from, a1);
  assert_int_equal(mv[1].to, DRAM_BASE); /* the space array 0 left */
  assert_int_equal(plc_data_migrate(&s, 1, mv, 4), 0); /* already in place */
  plc_finalize(&s, 2);
  uint64_t again;
  assert_int_equal(plc_malloc_hyb(&s, 1, 2, &again), 0);
  char text[2048];
  const char *kn[2] = {"k0", "k1"}, *an[3] = {"in", "out", "tiny"};
  const size_t n = plc_plan_text(&s, kn, an, text, sizeof text);
  assert_true(n < sizeof text);
  assert_non_null(strstr(text, "kernel 0 k0: in=D out=P tiny=P"));
  assert_non_null(strstr(text, "migrate before kernel 1: in -> PCM out -> DRAM"));
  assert_non_null(strstr(text, "kernel 1 k1: in=P out=D tiny=P"));
  /* A DRAM allocation that does not fit falls back to PCM (Sec. V-C). */
  plc_state t;
  const int64_t sz[3] = {1 * MiB, 1 * MiB, 100};
  setup(&t, &c, prof, sz);
  assert_int_equal(plc_cal_place(&t), 0);
  t.place[0] = 0x3; /* a plan asking for more DRAM than there is (both 1 MiB arrays) */
  assert_int_equal(plc_malloc_hyb(&t, 0, 0, &a0), 0);
  assert_int_equal(plc_malloc_hyb(&t, 0, 1, &a1), 0);
  assert_int_equal(a0, DRAM_BASE);
  assert_true(a1 < DRAM_BASE);
}

static void bad_inputs(void **st) {
  (void)st;
  plc_kernel_prof prof[2];
  memset(prof, 0, sizeof prof);
  touch(&prof[0], 0, 64, 1, 1);
  plc_state s;
  char err[160];
  plc_cfg c = base_cfg(2, 2, MiB);
  assert_int_equal(plc_init(&s, &c, prof, g_work, sizeof g_work, err, sizeof err), 0);
  plc_cfg b = c;
  b.narrays = 0;
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  b.narrays = PLC_MAX_ARRAYS + 1;
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_non_null(strstr(err, "arrays"));
  b = c;
  b.nkernels = 0;
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_int_equal(plc_init(&s, &c, prof, NULL, 0, err, sizeof err), -1);
  assert_int_equal(plc_init(&s, &c, prof, g_work, plc_workspace_bytes(&c) - 1, err, sizeof err), -1);
  assert_non_null(strstr(err, "workspace"));
  b = c;
  b.dram.dev = dram_find("pcm_flrb");
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_non_null(strstr(err, "DRAM device pcm_flrb"));
  b = c;
  b.pcm.dev = dram_find("ddr3_800");
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  b = c;
  b.dram.capacity = 0;
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  b = c;
  b.dram.base = MiB; /* inside the PCM part */
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_non_null(strstr(err, "overlap"));
  b = c;
  b.align = 3000;
  assert_int_equal(plc_init(&s, &b, prof, g_work, sizeof g_work, err, sizeof err), -1);
  prof[1].arr[1].reads = 10; /* memory instructions without instructions */
  assert_int_equal(plc_init(&s, &c, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_non_null(strstr(err, "instructions"));
  assert_int_equal(plc_workspace_bytes(&b), plc_workspace_bytes(&c));
  b.nkernels = PLC_MAX_KERNELS + 1;
  assert_int_equal(plc_workspace_bytes(&b), 0);
}

/* The models use the presets: PCM is slower and costlier than DRAM for uncoalesced writes, and the plan
 * is the same on a second solve (determinism). */
static void models_follow_presets(void **st) {
  (void)st;
  one_array f;
  one_array_setup(&f, 2, 8);
  const plc_cost p = plc_kernel_cost(&f.s, 0, 0), d = plc_kernel_cost(&f.s, 0, 1);
  assert_true(p.seconds > d.seconds);
  assert_true(p.energy_j > d.energy_j);
  assert_int_equal(plc_cal_place(&f.s), 0);
  const double e1 = f.s.predicted_edp;
  assert_int_equal(plc_cal_place(&f.s), 0);
  assert_true(f.s.predicted_edp == e1);
  assert_int_equal(plc_plan(&f.s, 0), 1);
}

/* The write-stream terms (hand-computed; placement.c written_row_atoms, busy_cycles): 36000 warps, each one
 * coalesced store of one 128 B line, on 6 pcm_flrb channels with a write drain of 32 atoms. A written row takes
 * 32 / 8 banks = 4 atoms = 2 lines before it closes, so 18000 rows are written back (3000 per channel). Per
 * channel, in 1400 MHz SM cycles (x 1400 / 400 = 3.5): bus 6000 lines x 2 atoms x tBURST 4 = 48000 memory
 * cycles, write-backs 3000 x max((tRP_DIRTY 138 + tRCD 34) / 8 banks, tRRD_PRE 18) = 64500: 112500 memory
 * cycles = 393750 SM cycles = 281.25 us, the time (the write-back term dominates; the bus alone is 120 us). DRAM
 * (ddr3_800): 3000 x max((11 + 11) / 8, tRRD_PRE 5) = 15000 -> 63000 memory cycles = 157.5 us. The old model
 * (a stream fills its 8 KiB rows: drain 0) is faster on PCM and charges fewer array writes. */
static void write_stream_terms(void **st) {
  (void)st;
  plc_kernel_prof prof[1];
  memset(prof, 0, sizeof prof);
  plc_array_prof *a = &prof[0].arr[0];
  a->writes = a->coal_insts = a->wr_coal = 36000;
  prof[0].insts = 4 * 36000;
  prof[0].warps = 36000;
  prof[0].warps_per_cta = 8;
  plc_cfg c = base_cfg(1, 1, 64 * MiB);
  c.drain_atoms = 32;
  plc_state s;
  const int64_t sz[1] = {36000 * 128};
  setup(&s, &c, prof, sz);
  const plc_cost p = plc_kernel_cost(&s, 0, 0), d = plc_kernel_cost(&s, 0, 1);
  /* PCM: MWP/CWP's bandwidth-bound time, the busy time plus one access's latency (10 SM cycles here). */
  assert_true(p.seconds >= 393750.0 / 1.4e9 && p.seconds < 393750.0 * 1.0001 / 1.4e9);
  assert_true(fabs(d.seconds - 63000.0 * 3.5 / 1.4e9) < 1e-9 * d.seconds);
  /* Eq. 4's array writes: one ACT and one dirty PRE per written row, 18000 against the old 36000 x 128 / 8 KiB. */
  const dram_preset *pcm = dram_find("pcm_flrb");
  c.drain_atoms = 0;
  setup(&s, &c, prof, sz);
  const plc_cost old = plc_kernel_cost(&s, 0, 0);
  assert_true(old.seconds < p.seconds);
  const double rows_pj = (18000.0 - 36000.0 * 128.0 / 8192.0) * (pcm->e.act_pj + pcm->e.pre_dirty_pj);
  assert_true(p.energy_j - old.energy_j > rows_pj * 1e-12);
  /* The DRAM-only plan wins the write stream. */
  c.drain_atoms = 32;
  setup(&s, &c, prof, sz);
  assert_int_equal(plc_cal_place(&s), 0);
  assert_int_equal(plc_plan(&s, 0), 1);
}

/* Eq. 5 at AF 0 follows the controller: an idle rank draws precharge standby unless it powers down (pd_mw) or,
 * NVM with gating, is gated (0). All on PCM: the six idle DRAM ranks cost 6 x (bg_mw - pd_mw) x T more without
 * power-down; all on DRAM: the six idle PCM ranks 6 x bg_mw x T more without gating. */
static void idle_power_follows_controller(void **st) {
  (void)st;
  one_array f;
  one_array_setup(&f, 4, 0);
  const plc_cost on_pcm = plc_kernel_cost(&f.s, 0, 0), on_dram = plc_kernel_cost(&f.s, 0, 1);
  f.c.dram.powerdown = f.c.pcm.powerdown = 1;
  f.c.pcm.gating = 1;
  setup(&f.s, &f.c, f.prof, f.sz);
  const plc_cost pcm_pd = plc_kernel_cost(&f.s, 0, 0), dram_pd = plc_kernel_cost(&f.s, 0, 1);
  const dram_preset *dd = dram_find("ddr3_800"), *pd = dram_find("pcm_flrb");
  assert_true(on_pcm.seconds == pcm_pd.seconds && on_dram.seconds == dram_pd.seconds);
  const double want_p = 6.0 * (dd->e.bg_mw - dd->e.pd_mw) * 1e-3 * on_pcm.seconds;
  const double want_d = 6.0 * pd->e.bg_mw * 1e-3 * on_dram.seconds;
  assert_true(fabs((on_pcm.energy_j - pcm_pd.energy_j) - want_p) < 1e-9 * want_p);
  assert_true(fabs((on_dram.energy_j - dram_pd.energy_j) - want_d) < 1e-9 * want_d);
}

/* placement.force: every array in one part at every kernel; a kind that cannot hold them is refused. */
static void forced_plans(void **st) {
  (void)st;
  plc_kernel_prof prof[3];
  memset(prof, 0, sizeof prof);
  three_by_three(prof);
  plc_cfg c = base_cfg(3, 3, 64 * MiB);
  plc_state s;
  const int64_t sz[3] = {4 * MiB, 4 * MiB, 4 * MiB};
  c.force = PLC_FORCE_DRAM;
  setup(&s, &c, prof, sz);
  assert_int_equal(plc_cal_place(&s), 0);
  uint16_t all[3] = {7, 7, 7}, none[3] = {0, 0, 0};
  for (uint32_t k = 0; k < 3; ++k) assert_int_equal(plc_plan(&s, k), 7);
  assert_true(s.predicted_edp == plc_sequence_edp(&s, all));
  c.force = PLC_FORCE_PCM;
  setup(&s, &c, prof, sz);
  assert_int_equal(plc_cal_place(&s), 0);
  for (uint32_t k = 0; k < 3; ++k) assert_int_equal(plc_plan(&s, k), 0);
  assert_true(s.predicted_edp == plc_sequence_edp(&s, none) && s.predicted_edp == s.all_pcm_edp);
  c = base_cfg(3, 3, 8 * MiB); /* 12 MiB do not fit the DRAM part */
  c.force = PLC_FORCE_DRAM;
  setup(&s, &c, prof, sz);
  assert_int_equal(plc_cal_place(&s), -1);
  char err[160];
  c.force = 3;
  assert_int_equal(plc_init(&s, &c, prof, g_work, sizeof g_work, err, sizeof err), -1);
  assert_non_null(strstr(err, "force"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dp_matches_brute_force), cmocka_unit_test(capacity_respected),
      cmocka_unit_test(migration_edges),        cmocka_unit_test(runtime_calls),
      cmocka_unit_test(bad_inputs),             cmocka_unit_test(models_follow_presets),
      cmocka_unit_test(write_stream_terms),     cmocka_unit_test(idle_power_follows_controller),
      cmocka_unit_test(forced_plans),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
