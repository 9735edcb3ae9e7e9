/* Unit tests of the PTX front end (models/ptx, docs/ptx.md): instruction classes against host C,
 * divergence and reconvergence, barriers, atomics under contention, shuffles and votes,
 * device-function calls, local memory, one-line errors for bad PTX and unsupported
 * instructions, and determinism. Kernels come from tests/ptx/kernels.cu compiled by clang 14 at
 * build time (PTX_KERNELS) and from hand-written PTX below for instructions clang rarely emits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fenv.h>
#include <stdbool.h>
#include <math.h>

#include "ptx_harness.h"

static const uint32_t kOne[3] = {1, 1, 1};

static ptx_module *parse_ok(const char *text) {
  ptx_module *m = NULL;
  char err[400];
  int rc = ptx_parse(text, strlen(text), "t.ptx", &m, err, sizeof err);
  if (rc != 0) fail_msg("parse failed: %s", err);
  return m;
}

static ptx_module *g_k; /* kernels.ptx */
#ifdef PTX_KERNELS
static const char *g_kernels_path = PTX_KERNELS;
#else
static const char *g_kernels_path = NULL;
#endif

static int setup_kernels(void **st) {
  (void)st;
  if (g_kernels_path) {
  size_t n;
  char *t = read_file(g_kernels_path, &n);
  if (!t) {
    fprintf(stderr, "cannot read %s\n", g_kernels_path);
    return -1;
  }
  char err[400];
  int rc = ptx_parse(t, n, "kernels.ptx", &g_k, err, sizeof err);
  free(t);
  if (rc) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  if (ptx_module_check(g_k, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  }
  return 0;
}
static int teardown_kernels(void **st) {
  (void)st;
  ptx_free(g_k);
  free(g_hm.mem);
  return 0;
}

#define NEED_KERNELS()                 \
  do {                                 \
    if (!g_k) skip();                  \
  } while (0)

static void run1(const char *kernel, uint32_t ctas, uint32_t threads, uint32_t dyn, unsigned nargs, const uint64_t *args) {
  char err[400];
  hm_place_module(g_k);
  uint32_t grid[3] = {ctas, 1, 1}, block[3] = {threads, 1, 1};
  uint64_t insts;
  if (hm_launch(g_k, kernel, grid, block, dyn, nargs, args, &insts, err, sizeof err) != 0) fail_msg("%s: %s", kernel, err);
}

/* ------------------------------------------------------------------ divergence */

static int nested_if_ref(int i) {
  int r;
  if (i & 1) {
    r = (i & 2) ? 3 * i : 5 * i + 1;
    if (i % 7 == 0) r += 1000;
  } else if (i % 3 == 0) {
    r = -i;
  } else {
    r = i * i;
    if (i > 40) r -= 7;
  }
  return r;
}

static void divergence_nested_if(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  int n = 200;
  uint64_t out = hm_alloc(256 * 4);
  int *o = hm_ptr(out);
  for (int i = 0; i < 256; ++i) o[i] = 12345;
  uint64_t args[] = {out, (uint64_t)n};
  run1("nested_if", 4, 64, 0, 2, args);
  for (int i = 0; i < 256; ++i) assert_int_equal(o[i], i < n ? nested_if_ref(i) : 12345);
}

static int loops_ref(int i, int lim) {
  int acc = 0;
  for (int j = 0; j < lim; j++) {
    if (j % 3 == 1) continue;
    if (acc > 500) break;
    acc += j * (i + 1);
    int k = j;
    while (k > 0) {
      if (k == 5) break;
      acc ^= k;
      k -= 2;
    }
  }
  return acc;
}

static void divergence_loops(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  int n = 100;
  uint64_t out = hm_alloc(128 * 4), in = hm_alloc(128 * 4);
  int *iv = hm_ptr(in), *o = hm_ptr(out);
  for (int i = 0; i < 128; ++i) iv[i] = (i * 37) % 23;
  uint64_t args[] = {out, in, (uint64_t)n};
  run1("loops", 2, 64, 0, 3, args);
  for (int i = 0; i < n; ++i) assert_int_equal(o[i], loops_ref(i, iv[i]));
  for (int i = n; i < 128; ++i) assert_int_equal(o[i], 0);
}

static void divergence_early_return(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t out = hm_alloc(96 * 4);
  int *o = hm_ptr(out);
  uint64_t args[] = {out, 5};
  run1("early_return", 1, 96, 0, 2, args);
  for (int i = 0; i < 96; ++i) {
    int want = 99;
    for (int j = 0; j < 64; j++)
      if (j * j > i * 3 + 5) {
        want = j;
        break;
      }
    assert_int_equal(o[i], want);
  }
}

/* hand-written: exit in one branch, guarded ret, a branch both of whose sides exit, and code after
 * reconvergence that only the survivors run */
static const char *kDivExit =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry divexit(.param .u64 out)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  and.b32 %r2, %r1, 1;\n  setp.ne.s32 %p1, %r2, 0;\n"
    "  @!%p1 bra EVEN;\n"
    "  st.global.u32 [%rd3], 1;\n"
    "  exit;\n"
    "EVEN:\n"
    "  and.b32 %r3, %r1, 2;\n  setp.eq.s32 %p2, %r3, 0;\n"
    "  @%p2 bra TWO;\n"
    "  st.global.u32 [%rd3], 2;\n"
    "  setp.gt.u32 %p3, %r1, 20;\n"
    "  @%p3 ret;\n"
    "  bra.uni JOIN;\n"
    "TWO:\n"
    "  st.global.u32 [%rd3], 3;\n"
    "JOIN:\n"
    "  activemask.b32 %r4;\n"
    "  st.global.u32 [%rd3+128], %r4;\n"
    "  ret;\n}\n";

static void divergence_exit(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kDivExit);
  uint64_t out = hm_alloc(256);
  uint32_t *o = hm_ptr(out);
  uint64_t args[] = {out};
  uint32_t block[3] = {32, 1, 1};
  char err[400];
  assert_int_equal(hm_launch(m, "divexit", kOne, block, 0, 1, args, NULL, err, sizeof err), 0);
  uint32_t survivors = 0;
  for (int i = 0; i < 32; ++i) {
    int want = (i & 1) ? 1 : (i & 2) ? 2 : 3;
    assert_int_equal(o[i], want);
    bool survives = !(i & 1) && !((i & 2) && i > 20);
    if (survives) survivors |= 1u << i;
  }
  /* after reconvergence, every survivor sees the same active mask: exactly the survivors */
  for (int i = 0; i < 32; ++i) assert_int_equal(o[32 + i], (survivors >> i) & 1 ? survivors : 0);
  ptx_free(m);
}

/* ------------------------------------------------------------------ barriers, shared memory */

static void barrier_reduce(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t in = hm_alloc(4 * 256 * 4), out = hm_alloc(4 * 4);
  int *iv = hm_ptr(in), *o = hm_ptr(out);
  for (int i = 0; i < 1024; ++i) iv[i] = (i * 7919) % 1000 - 300;
  uint64_t args[] = {out, in};
  run1("reduce", 4, 256, 0, 2, args);
  for (int b = 0; b < 4; ++b) {
    int s = 0;
    for (int i = 0; i < 256; ++i) s += iv[b * 256 + i];
    assert_int_equal(o[b], s);
  }
}

static void dynamic_shared(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t in = hm_alloc(3 * 96 * 4), out = hm_alloc(3 * 96 * 4);
  float *iv = hm_ptr(in), *o = hm_ptr(out);
  for (int i = 0; i < 288; ++i) iv[i] = (float)i * 1.5f;
  uint64_t args[] = {out, in};
  run1("reverse", 3, 96, 96 * 4, 2, args);
  for (int b = 0; b < 3; ++b)
    for (int t = 0; t < 96; ++t) assert_true(o[b * 96 + t] == iv[b * 96 + 95 - t]);
  /* without the dynamic shared bytes the kernel faults with a one-line error naming it */
  char err[400];
  uint32_t grid[3] = {1, 1, 1}, block[3] = {96, 1, 1};
  assert_int_equal(hm_launch(g_k, "reverse", grid, block, 0, 2, args, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "kernel reverse"));
  assert_non_null(strstr(err, "out of bounds"));
  assert_null(strchr(err, '\n'));
}

static void matmul_2d(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  int n = 32;
  uint64_t a = hm_alloc((size_t)n * n * 4), b = hm_alloc((size_t)n * n * 4), c = hm_alloc((size_t)n * n * 4);
  float *A = hm_ptr(a), *B = hm_ptr(b), *C = hm_ptr(c);
  for (int i = 0; i < n * n; ++i) {
    A[i] = (float)((i * 13) % 7) - 3.0f;
    B[i] = (float)((i * 5) % 11) * 0.5f;
  }
  char err[400];
  uint32_t grid[3] = {2, 2, 1}, block[3] = {16, 16, 1};
  uint64_t args[] = {c, a, b, (uint64_t)n};
  assert_int_equal(hm_launch(g_k, "matmul", grid, block, 0, 4, args, NULL, err, sizeof err), 0);
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) acc = fmaf(A[r * n + k], B[k * n + col], acc);
      assert_true(C[r * n + col] == acc);
    }
}

/* hand-written: bar.red (as __syncthreads_count/and/or compile) and the funnel shift */
static const char *kRed =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry red(.param .u64 out)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 32;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  and.b32 %r2, %r1, 3;\n  setp.eq.s32 %p1, %r2, 0;\n"
    "  bar.red.popc.u32 %r3, 0, %p1;\n"
    "  setp.lt.u32 %p2, %r1, 40;\n"
    "  bar.red.and.pred %p3, 0, %p2;\n  selp.u32 %r4, 1, 0, %p3;\n"
    "  bar.red.or.pred %p3, 0, !%p1;\n  selp.u32 %r5, 1, 0, %p3;\n"
    "  shf.l.wrap.b32 %r6, %r1, 0x80000001, %r1;\n"
    "  shf.r.clamp.b32 %r7, 0xdeadbeef, %r1, %r1;\n"
    "  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
    "  st.global.u32 [%rd3+16], %r7;\n"
    "  ret;\n}\n";

static void barrier_reduction(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kRed);
  uint64_t out = hm_alloc(96 * 32);
  const uint32_t *o = hm_ptr(out);
  uint64_t args[] = {out};
  uint32_t block[3] = {96, 1, 1};
  char err[400];
  if (hm_launch(m, "red", kOne, block, 0, 1, args, NULL, err, sizeof err) != 0) fail_msg("%s", err);
  for (uint32_t t = 0; t < 96; ++t) {
    assert_int_equal(o[8 * t + 0], 24); /* threads with tid % 4 == 0 */
    assert_int_equal(o[8 * t + 1], 0);  /* not every tid < 40 */
    assert_int_equal(o[8 * t + 2], 1);
    uint64_t all = (0x80000001ull << 32) | t;
    assert_int_equal(o[8 * t + 3], (uint32_t)((all << (t & 31)) >> 32));
    uint64_t all2 = ((uint64_t)t << 32) | 0xdeadbeefu;
    assert_int_equal(o[8 * t + 4], (uint32_t)(all2 >> (t > 32 ? 32 : t)));
  }
  ptx_free(m);
}

/* ------------------------------------------------------------------ atomics */

static void atomics_contention(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t w = hm_alloc(64);
  uint8_t *p = hm_ptr(w);
  int32_t init_min = 1 << 30, init_max = -(1 << 30);
  memcpy(p + 4, &init_min, 4);
  memcpy(p + 8, &init_max, 4);
  uint64_t args[] = {w, w + 4, w + 8, w + 16, w + 24, w + 28, w + 32, w + 36};
  int ctas = 6, threads = 128, n = ctas * threads;
  run1("atomics", (uint32_t)ctas, (uint32_t)threads, 0, 8, args);
  uint32_t cnt, wrap, bits;
  int32_t mn, mx, cas;
  uint64_t sum;
  float fs;
  memcpy(&cnt, p, 4);
  memcpy(&mn, p + 4, 4);
  memcpy(&mx, p + 8, 4);
  memcpy(&sum, p + 16, 8);
  memcpy(&fs, p + 24, 4);
  memcpy(&wrap, p + 28, 4);
  memcpy(&bits, p + 32, 4);
  memcpy(&cas, p + 36, 4);
  assert_int_equal(cnt, n);
  assert_int_equal(mn, 1000 - (n - 1));
  assert_int_equal(mx, (n - 1) * 3 - 50);
  uint64_t s = 0;
  for (int i = 0; i < n; ++i) s += (uint64_t)i * 1000003ull;
  assert_true(sum == s);
  assert_true(fs == 0.5f * (float)n); /* exact: multiples of 0.5 below 2^24 */
  assert_int_equal(wrap, n % 10);     /* atom.inc wraps at 9 -> 0 */
  assert_int_equal(bits, 0xffffffffu);
  assert_int_equal(cas, 2 * n);
}

static void atomics_shared_histogram(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  int ctas = 4, threads = 256, bins = 37;
  uint64_t in = hm_alloc((size_t)ctas * threads * 4), out = hm_alloc(64 * 4);
  uint32_t *iv = hm_ptr(in), *o = hm_ptr(out);
  uint32_t want[64] = {0};
  for (int i = 0; i < ctas * threads; ++i) {
    iv[i] = (uint32_t)(i * 2654435761u) >> 3;
    want[iv[i] % (uint32_t)bins]++;
  }
  uint64_t args[] = {out, in, (uint64_t)bins};
  run1("histogram", (uint32_t)ctas, (uint32_t)threads, 0, 3, args);
  for (int b = 0; b < 64; ++b) assert_int_equal(o[b], b < bins ? want[b] : 0);
}

/* ------------------------------------------------------------------ warp operations */

static void shuffles_votes(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t in = hm_alloc(64 * 4), out = hm_alloc(64 * 7 * 4);
  int *iv = hm_ptr(in), *o = hm_ptr(out);
  for (int i = 0; i < 64; ++i) iv[i] = (i * 53) % 97;
  uint64_t args[] = {out, in};
  run1("warp_ops", 1, 64, 0, 2, args);
  for (int wbase = 0; wbase < 64; wbase += 32) {
    const int *v = iv + wbase;
    int sum[32];
    for (int l = 0; l < 32; ++l) sum[l] = v[l];
    for (int off = 16; off > 0; off /= 2) {
      int nx[32];
      for (int l = 0; l < 32; ++l) nx[l] = sum[l] + (l + off <= 31 ? sum[l + off] : sum[l]);
      memcpy(sum, nx, sizeof nx);
    }
    uint32_t ballot = 0;
    bool all = true, any = false;
    for (int l = 0; l < 32; ++l) {
      if (v[l] > 50) ballot |= 1u << l;
      all = all && v[l] >= 0;
      any = any || v[l] > 95;
    }
    for (int l = 0; l < 32; ++l) {
      const int *r = o + (wbase + l) * 7;
      int gi = wbase + l;
      assert_int_equal(r[0], sum[l]);
      assert_int_equal(r[1], l >= 3 ? v[l - 3] : v[l]);
      assert_int_equal(r[2], v[l ^ 5]);
      assert_int_equal(r[3], v[(gi * 7) & 31]);
      assert_int_equal((uint32_t)r[4], ballot);
      assert_int_equal(r[5], all);
      assert_int_equal(r[6], any);
    }
  }
}

/* hand-written: shfl with a predicate destination and a segment mask, vote.uni, ballot of a
 * partial warp */
static const char *kWarp =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry w(.param .u64 out)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %laneid;\n"
    "  mul.wide.u32 %rd2, %r1, 16;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  mul.lo.s32 %r2, %r1, 10;\n"
    "  shfl.sync.down.b32 %r3|%p1, %r2, 2, 0x71f, -1;\n" /* segments of 8 lanes (mask 0x18), clamp 31 */
    "  selp.u32 %r4, 1, 0, %p1;\n"
    "  setp.lt.u32 %p2, %r1, 12;\n"
    "  @%p2 bra LOW;\n"
    "  vote.sync.ballot.b32 %r5, %p2, -1;\n"
    "  bra.uni OUT;\n"
    "LOW:\n"
    "  and.b32 %r6, %r1, 1;\n  setp.eq.s32 %p3, %r6, 0;\n"
    "  vote.sync.ballot.b32 %r5, %p3, -1;\n"
    "OUT:\n"
    "  setp.lt.u32 %p3, %r1, 100;\n"
    "  vote.sync.uni.pred %p1, %p3, -1;\n"
    "  selp.u32 %r7, 1, 0, %p1;\n"
    "  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r7};\n"
    "  ret;\n}\n";

static void warp_hand(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kWarp);
  uint64_t out = hm_alloc(32 * 16);
  uint32_t *o = hm_ptr(out);
  uint64_t args[] = {out};
  uint32_t block[3] = {32, 1, 1};
  char err[400];
  assert_int_equal(hm_launch(m, "w", kOne, block, 0, 1, args, NULL, err, sizeof err), 0);
  for (uint32_t l = 0; l < 32; ++l) {
    /* c = 0x71f: clamp 31, segment mask 7 -> maxLane = (l & 7) | (31 & ~7) */
    uint32_t maxl = (l & 7) | (31u & ~7u), j = l + 2;
    bool ok = j <= maxl;
    assert_int_equal(o[4 * l + 0], (ok ? j : l) * 10);
    assert_int_equal(o[4 * l + 1], ok);
    uint32_t want = l < 12 ? 0x555u & 0xfffu : 0;
    assert_int_equal(o[4 * l + 2], want);
    assert_int_equal(o[4 * l + 3], 1);
  }
  ptx_free(m);
}

/* vote.sync with a member mask that differs per lane (two half-warp tiles voting in one instruction,
 * legal on sm_70): each lane votes over its own tile. Lanes 0-15 pass 0x0000ffff, lanes 16-31
 * 0xffff0000; the predicate is lane < 4 or lane >= 30. Before each lane used its own mask, every lane
 * took lane 0's and the upper tile's ballot read 0. */
static const char *kVoteTiles =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry v(.param .u64 out)\n{\n"
    "  .reg .pred %p<6>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %laneid;\n"
    "  mul.wide.u32 %rd2, %r1, 16;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  setp.lt.u32 %p1, %r1, 16;\n"
    "  selp.b32 %r2, 65535, -65536, %p1;\n"
    "  setp.lt.u32 %p2, %r1, 4;\n  setp.ge.u32 %p3, %r1, 30;\n  or.pred %p2, %p2, %p3;\n"
    "  vote.sync.ballot.b32 %r3, %p2, %r2;\n"
    "  vote.sync.any.pred %p4, %p2, %r2;\n  selp.u32 %r4, 1, 0, %p4;\n"
    "  vote.sync.all.pred %p5, %p1, %r2;\n  selp.u32 %r5, 1, 0, %p5;\n"
    "  vote.sync.uni.pred %p4, %p2, %r2;\n  selp.u32 %r6, 1, 0, %p4;\n"
    "  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
    "  ret;\n}\n";

static void vote_tiles(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kVoteTiles);
  uint64_t out = hm_alloc(32 * 16);
  uint32_t *o = hm_ptr(out);
  uint64_t args[] = {out};
  uint32_t block[3] = {32, 1, 1};
  char err[400];
  assert_int_equal(hm_launch(m, "v", kOne, block, 0, 1, args, NULL, err, sizeof err), 0);
  for (uint32_t l = 0; l < 32; ++l) {
    assert_int_equal(o[4 * l + 0], l < 16 ? 0xfu : 0xc0000000u);
    assert_int_equal(o[4 * l + 1], 1);      /* any: both tiles have voters */
    assert_int_equal(o[4 * l + 2], l < 16); /* all of lane < 16: true in the lower tile only */
    assert_int_equal(o[4 * l + 3], 0);      /* uni: neither tile is uniform */
  }
  ptx_free(m);
}

/* ------------------------------------------------------------------ calls, local memory */

static void device_calls(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  int n = 90;
  uint64_t fo = hm_alloc(128 * 4), dout = hm_alloc(128 * 8), io = hm_alloc(128 * 4);
  float *F = hm_ptr(fo);
  double *D = hm_ptr(dout);
  int *I = hm_ptr(io);
  uint64_t args[] = {fo, dout, io, (uint64_t)n};
  run1("calls", 2, 64, 0, 4, args);
  for (int i = 0; i < n; ++i) {
    assert_true(F[i] == fmaf((float)i * 0.5f, (float)(i % 5), 0.25f));
    double x = (double)i / 8.0;
    assert_true(D[i] == fma(fma(x, x, -3.0), x, 1.5) || D[i] == (x * x - 3.0) * x + 1.5);
    int r = 0;
    if (i % 3 != 0) r = (i & 1) ? i * 2 : (int)((float)i * 0.75f * 3.0f);
    int a = 0, b = 1;
    for (int k = 0; k < i % 20; k++) {
      int t = a + b;
      a = b;
      b = t;
    }
    assert_int_equal(I[i], r + a);
  }
}

static void local_memory(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  uint64_t in = hm_alloc(64 * 4), out = hm_alloc(64 * 4);
  int *iv = hm_ptr(in), *o = hm_ptr(out);
  for (int i = 0; i < 64; ++i) iv[i] = (i * 29) % 41;
  uint64_t args[] = {out, in};
  run1("local_array", 1, 64, 0, 2, args);
  for (int i = 0; i < 64; ++i) {
    int a[16];
    for (int k = 0; k < 16; k++) a[k] = iv[i] * k + (k ^ i);
    int s = 0;
    for (int k = 0; k <= (iv[i] & 15); k++) s += a[(k * 5 + i) & 15];
    assert_int_equal(o[i], s);
  }
}

/* ------------------------------------------------------------------ arithmetic */

static void arith_clang(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  const int n = 64;
  uint64_t io = hm_alloc(n * 8 * 4), uo = hm_alloc(n * 4 * 4), lo = hm_alloc(n * 2 * 8), fo = hm_alloc(n * 6 * 4),
           dout = hm_alloc(n * 3 * 8), in = hm_alloc(n * 2 * 4), fin = hm_alloc(n * 2 * 4);
  int *iv = hm_ptr(in);
  float *fv = hm_ptr(fin);
  static const int special[] = {0, 1, -1, 2147483647, -2147483647 - 1, 7, -7, 31, 32, 65536};
  for (int i = 0; i < 2 * n; ++i) {
    iv[i] = i < 10 ? special[i] : (int)((uint32_t)i * 2654435761u);
    fv[i] = (float)((i * 37) % 101 - 50) * 0.37f;
  }
  uint64_t args[] = {io, uo, lo, fo, dout, in, fin};
  run1("arith", 2, 32, 0, 7, args);
  static const int ctab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int *I = hm_ptr(io);
  uint32_t *U = hm_ptr(uo);
  long long *L = hm_ptr(lo);
  float *F = hm_ptr(fo);
  double *D = hm_ptr(dout);
  for (int i = 0; i < n; ++i) {
    int a = iv[2 * i], b = iv[2 * i + 1];
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    int bd = b | 1;
    assert_int_equal(I[8 * i + 0], (a == INT32_MIN && bd == -1) ? INT32_MIN : a / bd);
    assert_int_equal(I[8 * i + 1], (bd == -1) ? 0 : a % bd);
    assert_int_equal(I[8 * i + 2], (int)((uint32_t)(a < b ? a : b) + (uint32_t)(a > b ? a : b) * 3u));
    assert_int_equal(I[8 * i + 3], a >> (b & 31));
    assert_int_equal(I[8 * i + 4], __builtin_popcount(ua) + __builtin_clz(ua | 1) * 100);
    assert_int_equal(I[8 * i + 5], (int)((ua * ub) ^ (ua + ub) ^ (uint32_t)ctab[i & 7]));
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((ua >> k) & 1) << (31 - k);
    assert_int_equal((uint32_t)I[8 * i + 6], rev);
    assert_int_equal(I[8 * i + 7], a < 0 ? (int)(0u - ua) : a);
    assert_int_equal(U[4 * i + 0], ua / (ub | 1));
    assert_int_equal(U[4 * i + 1], ua % (ub | 1));
    assert_int_equal(U[4 * i + 2], ua >> (ub & 31));
    assert_int_equal(U[4 * i + 3], (ua * 2654435761u) >> 7);
    assert_true(L[2 * i] == (long long)a * (long long)b);
    assert_true(L[2 * i + 1] == ((long long)a * (1ll << 20)) / ((long long)b | 1));
    float x = fv[2 * i], y = fv[2 * i + 1];
    assert_true(F[6 * i + 0] == fmaf(x, y, x));
    assert_true(F[6 * i + 1] == x / y);
    assert_true(F[6 * i + 2] == sqrtf(fabsf(x)));
    assert_true(F[6 * i + 3] == (float)(int)(x * 10.0f));
    assert_true(F[6 * i + 4] == fminf(x, y) - fmaxf(x, y));
    assert_true(F[6 * i + 5] == (float)ua);
    double dx = x, dy = y;
    assert_true(D[3 * i + 0] == dx * dy - dx / (dy + 3.5) || D[3 * i + 0] == fma(dx, dy, -(dx / (dy + 3.5))));
    assert_true(D[3 * i + 1] == (double)a * 0.125);
    assert_true(D[3 * i + 2] == (double)(long long)(dx * 1e6));
  }
}

static void math_functions(void **st) {
  (void)st;
  NEED_KERNELS();
  hm_reset();
  const int n = 64;
  uint64_t fo = hm_alloc(n * 3 * 4), dout = hm_alloc(n * 2 * 8), in = hm_alloc(n * 4);
  float *iv = hm_ptr(in), *F = hm_ptr(fo);
  double *D = hm_ptr(dout);
  for (int i = 0; i < n; ++i) iv[i] = (float)(i - 20) * 0.21f;
  uint64_t args[] = {fo, dout, in};
  run1("mathfn", 2, 32, 0, 3, args);
  for (int i = 0; i < n; ++i) {
    float x = iv[i];
    assert_true(F[3 * i + 0] == expf(x));
    assert_true(F[3 * i + 1] == powf(fabsf(x), 1.5f));
    assert_true(F[3 * i + 2] == ldexpf(x, i % 7 - 3));
    assert_true(D[2 * i + 0] == atan2((double)x, 0.5 + i));
    assert_true(D[2 * i + 1] == (x > 0 ? log((double)x) : 0.0));
  }
}

/* hand-written: instructions clang 14 rarely emits, each result at out[tid*32 + k] (8 bytes) */
static const char *kSnip =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry snip(.param .u64 out, .param .u64 in)\n{\n"
    "  .reg .pred %p<8>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n  .reg .f32 %f<32>;\n  .reg .f64 %fd<16>;\n  .reg .b16 %h<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r1, 32;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n"
    "  ld.global.v2.f32 {%f1, %f2}, [%rd4+16];\n"
    "  ld.global.f64 %fd1, [%rd4+24];\n"
    "  mul.wide.u32 %rd5, %r1, 256;\n  add.s64 %rd6, %rd1, %rd5;\n"
    /* 0..9 integer */
    "  bfe.u32 %r10, %r2, 5, 9;\n  st.global.u32 [%rd6+0], %r10;\n"
    "  bfe.s32 %r11, %r3, %r4, %r5;\n  st.global.u32 [%rd6+8], %r11;\n"
    "  bfi.b32 %r12, %r2, %r3, 8, 12;\n  st.global.u32 [%rd6+16], %r12;\n"
    "  prmt.b32 %r13, %r2, %r3, 0x7351;\n  st.global.u32 [%rd6+24], %r13;\n"
    "  mul.hi.s32 %r14, %r2, %r3;\n  st.global.u32 [%rd6+32], %r14;\n"
    "  mad.hi.u32 %r15, %r2, %r3, %r4;\n  st.global.u32 [%rd6+40], %r15;\n"
    "  cvt.u64.u32 %rd7, %r4;\n  mad.wide.s32 %rd8, %r2, %r3, %rd7;\n  st.global.u64 [%rd6+48], %rd8;\n"
    "  div.s32 %r16, %r2, %r5;\n  st.global.u32 [%rd6+56], %r16;\n"
    "  add.sat.s32 %r17, %r2, %r3;\n  st.global.u32 [%rd6+64], %r17;\n"
    "  bfind.s32 %r18, %r2;\n  st.global.u32 [%rd6+72], %r18;\n"
    /* 10..13 predicates */
    "  setp.ltu.f32 %p1|%p2, %f1, %f2;\n"
    "  setp.gt.and.s32 %p3, %r2, %r3, !%p2;\n"
    "  selp.u32 %r19, 1, 0, %p1;\n  st.global.u32 [%rd6+80], %r19;\n"
    "  selp.u32 %r20, 1, 0, %p3;\n  st.global.u32 [%rd6+88], %r20;\n"
    "  testp.notanumber.f32 %p4, %f1;\n  selp.b32 %r21, 7, 9, !%p4;\n  st.global.u32 [%rd6+96], %r21;\n"
    "  slct.u32.f32 %r22, %r2, %r3, %f2;\n  st.global.u32 [%rd6+104], %r22;\n"
    /* 14..23 float */
    "  cvt.rmi.s32.f32 %r23, %f1;\n  st.global.u32 [%rd6+112], %r23;\n"
    "  cvt.rpi.u32.f32 %r24, %f2;\n  st.global.u32 [%rd6+120], %r24;\n"
    "  cvt.sat.f32.f32 %f3, %f1;\n  st.global.f32 [%rd6+128], %f3;\n"
    "  cvt.rz.f32.f64 %f4, %fd1;\n  st.global.f32 [%rd6+136], %f4;\n"
    "  cvt.rn.f16.f32 %h1, %f1;\n  cvt.f32.f16 %f5, %h1;\n  st.global.f32 [%rd6+144], %f5;\n"
    "  copysign.f32 %f6, %f1, %f2;\n  st.global.f32 [%rd6+152], %f6;\n"
    "  min.f32 %f7, %f1, %f2;\n  st.global.f32 [%rd6+160], %f7;\n"
    "  add.rm.f32 %f8, %f1, %f2;\n  st.global.f32 [%rd6+168], %f8;\n"
    "  fma.rz.f32 %f9, %f1, %f2, %f1;\n  st.global.f32 [%rd6+176], %f9;\n"
    "  ex2.approx.ftz.f32 %f10, %f2;\n  st.global.f32 [%rd6+184], %f10;\n"
    /* 24..29 double, conversions */
    "  sqrt.rn.f64 %fd2, %fd1;\n  st.global.f64 [%rd6+192], %fd2;\n"
    "  rcp.rn.f64 %fd3, %fd1;\n  st.global.f64 [%rd6+200], %fd3;\n"
    "  cvt.rni.s64.f64 %rd9, %fd1;\n  st.global.u64 [%rd6+208], %rd9;\n"
    "  cvt.sat.u8.s32 %r25, %r2;\n  st.global.u32 [%rd6+216], %r25;\n"
    "  cvt.s16.s32 %h2, %r2;\n  cvt.s32.s16 %r26, %h2;\n  st.global.u32 [%rd6+224], %r26;\n"
    "  mov.b64 {%r27, %r28}, %fd1;\n  mov.b64 %rd10, {%r28, %r27};\n  st.global.u64 [%rd6+232], %rd10;\n"
    /* 30..31 */
    "  rem.s32 %r29, %r2, %r5;\n  st.global.u32 [%rd6+240], %r29;\n"
    "  popc.b64 %r30, %rd8;\n  clz.b64 %r31, %rd8;\n  mad.lo.s32 %r32, %r31, 100, %r30;\n  st.global.u32 [%rd6+248], %r32;\n"
    "  ret;\n}\n";

static uint32_t ref_bfe(uint32_t a, uint32_t pos, uint32_t len, bool sg) {
  pos &= 0xff;
  len &= 0xff;
  uint32_t sbit = 0;
  if (sg && len) sbit = (a >> (pos + len - 1 < 31 ? pos + len - 1 : 31)) & 1;
  uint32_t r = 0;
  for (uint32_t i = 0; i < 32; ++i) r |= ((i < len && pos + i <= 31) ? (a >> (pos + i)) & 1 : sbit) << i;
  return r;
}

static float round_mode_f(int mode, float a, float b, float c, int op) {
  fesetround(mode);
  volatile float r = op == 0 ? a + b : fmaf(a, b, c);
  fesetround(FE_TONEAREST);
  return r;
}

static void instructions_hand(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kSnip);
  const int n = 64;
  uint64_t in = hm_alloc(n * 32), out = hm_alloc(n * 256);
  uint8_t *ib = hm_ptr(in);
  static const uint32_t sa[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 12345, 0xdeadbeefu};
  static const float sf[] = {0.0f, -0.0f, 1.5f, -2.5f, 0.5f, 1e-40f, 3.75f, -1e30f};
  for (int i = 0; i < n; ++i) {
    uint32_t v[4];
    for (int k = 0; k < 4; ++k) v[k] = (i * 4 + k) < 7 ? sa[i * 4 + k] : (uint32_t)(i * 4 + k) * 2246822519u;
    v[3] = i % 5 == 0 ? 0 : v[3]; /* division by zero on some lanes */
    float f[2] = {i < 8 ? sf[i] : (float)((i * 29) % 61 - 30) * 0.73f, i == 3 ? NAN : (float)((i * 13) % 37 - 18) * 1.31f};
    double d = (double)((i * 17) % 23 + 1) * 1.0000001;
    memcpy(ib + i * 32, v, 16);
    memcpy(ib + i * 32 + 16, f, 8);
    memcpy(ib + i * 32 + 24, &d, 8);
  }
  uint64_t args[] = {out, in};
  uint32_t block[3] = {(uint32_t)n, 1, 1};
  char err[400];
  assert_int_equal(hm_launch(m, "snip", kOne, block, 0, 2, args, NULL, err, sizeof err), 0);
  for (int i = 0; i < n; ++i) {
    uint32_t a, b, c, e;
    float x, y;
    double z;
    memcpy(&a, ib + i * 32, 4);
    memcpy(&b, ib + i * 32 + 4, 4);
    memcpy(&c, ib + i * 32 + 8, 4);
    memcpy(&e, ib + i * 32 + 12, 4);
    memcpy(&x, ib + i * 32 + 16, 4);
    memcpy(&y, ib + i * 32 + 20, 4);
    memcpy(&z, ib + i * 32 + 24, 8);
    const uint8_t *o = (const uint8_t *)hm_ptr(out) + i * 256;
#define U32(k) (*(const uint32_t *)(o + 8 * (k)))
#define U64(k) (*(const uint64_t *)(o + 8 * (k)))
#define F32(k) (*(const float *)(o + 8 * (k)))
#define F64(k) (*(const double *)(o + 8 * (k)))
    int32_t sa_ = (int32_t)a, sb_ = (int32_t)b, se = (int32_t)e;
    assert_int_equal(U32(0), ref_bfe(a, 5, 9, false));
    assert_int_equal(U32(1), ref_bfe(b, c, e, true));
    uint32_t bfi = b;
    for (uint32_t k = 0; k < 12; ++k) bfi = (bfi & ~(1u << (8 + k))) | (((a >> k) & 1) << (8 + k));
    assert_int_equal(U32(2), bfi);
    uint64_t all = ((uint64_t)b << 32) | a;
    uint32_t pr = 0;
    for (int k = 0; k < 4; ++k) {
      uint32_t sel = (0x7351u >> (4 * k)) & 15;
      uint32_t byte = (uint32_t)(all >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      pr |= byte << (8 * k);
    }
    assert_int_equal(U32(3), pr);
    assert_int_equal(U32(4), (uint32_t)(((int64_t)sa_ * sb_) >> 32));
    assert_int_equal(U32(5), (uint32_t)(((uint64_t)a * b) >> 32) + c);
    assert_true(U64(6) == (uint64_t)((int64_t)sa_ * sb_) + c);
    assert_int_equal(U32(7), e == 0 ? 0xffffffffu : (se == -1 ? 0u - a : (uint32_t)(sa_ / se)));
    int64_t sat = (int64_t)sa_ + sb_;
    assert_int_equal(U32(8), (uint32_t)(int32_t)(sat > INT32_MAX ? INT32_MAX : sat < INT32_MIN ? INT32_MIN : sat));
    uint32_t bv = sa_ < 0 ? ~a : a;
    assert_int_equal(U32(9), bv == 0 ? 0xffffffffu : 31u - (uint32_t)__builtin_clz(bv));
    bool ltu = isnan(x) || isnan(y) || x < y;
    assert_int_equal(U32(10), ltu);
    assert_int_equal(U32(11), (sa_ > sb_) && ltu); /* p2 = !ltu, combined with !p2 */
    assert_int_equal(U32(12), isnan(x) ? 9 : 7);
    assert_int_equal(U32(13), y >= 0.0f ? a : b);
    assert_int_equal((int32_t)U32(14), (int32_t)floorf(x));
    assert_int_equal(U32(15), isnan(y) || y <= 0.0f ? 0u : (uint32_t)ceilf(y));
    float satx = x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
    assert_true(F32(16) == satx && signbit(F32(16)) == signbit(satx));
    fesetround(FE_TOWARDZERO);
    volatile float rz = (float)z;
    fesetround(FE_TONEAREST);
    assert_true(F32(17) == rz);
    /* f16 round trip: values here are exact in half or are rounded to 11 bits */
    if (fabsf(x) < 60000.0f && fabsf(x) > 1e-4f) assert_true(fabsf(F32(18) - x) <= fabsf(x) / 1024.0f);
    if (x == 1.5f) assert_true(F32(18) == 1.5f);
    assert_true(F32(19) == copysignf(y, x) || (isnan(y) && isnan(F32(19))));
    assert_true(F32(20) == fminf(x, y) || (isnan(F32(20)) && isnan(x) && isnan(y)));
    float rm = round_mode_f(FE_DOWNWARD, x, y, 0, 0);
    assert_true(F32(21) == rm || (isnan(rm) && isnan(F32(21))));
    float fz = round_mode_f(FE_TOWARDZERO, x, y, x, 1);
    assert_true(F32(22) == fz || (isnan(fz) && isnan(F32(22))));
    float ey = fpclassify(y) == FP_SUBNORMAL ? 0.0f : y;
    float ex = exp2f(ey);
    if (fpclassify(ex) == FP_SUBNORMAL) ex = 0.0f;
    assert_true(F32(23) == ex || (isnan(ex) && isnan(F32(23))));
    assert_true(F64(24) == sqrt(z));
    assert_true(F64(25) == 1.0 / z);
    assert_true((int64_t)U64(26) == (int64_t)nearbyint(z));
    assert_int_equal(U32(27), sa_ < 0 ? 0 : sa_ > 255 ? 255 : (uint32_t)sa_);
    assert_int_equal(U32(28), (uint32_t)(int32_t)(int16_t)(uint16_t)a);
    uint64_t zb;
    memcpy(&zb, &z, 8);
    assert_true(U64(29) == ((zb << 32) | (zb >> 32)));
    assert_int_equal(U32(30), e == 0 ? a : se == -1 ? 0u : (uint32_t)(sa_ % se));
    uint64_t w8 = (uint64_t)((int64_t)sa_ * sb_) + c;
    assert_int_equal(U32(31), (uint32_t)(__builtin_popcountll(w8) + (w8 ? __builtin_clzll(w8) : 64) * 100));
#undef U32
#undef U64
#undef F32
#undef F64
  }
  ptx_free(m);
}

/* hand-written: generic addressing through cvta to shared and local, const with initialiser,
 * vector stores, red and 64-bit atomics on shared memory, module .global variable */
static const char *kSpaces =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".const .align 4 .u32 tab[4] = {10, 20, 30, 40};\n"
    ".global .align 8 .u64 gvar = 5;\n"
    ".visible .entry sp(.param .u64 out)\n{\n"
    "  .local .align 8 .b8 depot[16];\n"
    "  .shared .align 8 .b8 sm[1024];\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<24>;\n"
    "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
    "  mov.u64 %rd2, sm;\n  cvta.shared.u64 %rd3, %rd2;\n"
    "  mul.wide.u32 %rd4, %r1, 8;\n  add.s64 %rd5, %rd3, %rd4;\n"
    "  cvt.u64.u32 %rd6, %r1;\n  st.u64 [%rd5], %rd6;\n"
    "  mov.u64 %rd7, depot;\n  cvta.local.u64 %rd8, %rd7;\n"
    "  st.v2.u32 [%rd8], {%r1, %r1};\n  ld.local.u32 %r2, [depot+4];\n"
    "  and.b32 %r3, %r1, 3;\n  mul.wide.u32 %rd9, %r3, 4;\n  mov.u64 %rd10, tab;\n  add.s64 %rd11, %rd10, %rd9;\n"
    "  ld.const.u32 %r4, [%rd11];\n"
    "  red.shared.add.u64 [sm+1016], %rd6;\n"
    "  atom.shared.exch.b64 %rd12, [sm+1008], %rd6;\n"
    "  bar.sync 0;\n"
    "  xor.b32 %r5, %r1, 1;\n  mul.wide.u32 %rd13, %r5, 8;\n  add.s64 %rd14, %rd3, %rd13;\n  ld.u64 %rd15, [%rd14];\n"
    "  ld.shared.u64 %rd16, [sm+1016];\n"
    "  ld.global.u64 %rd17, [gvar];\n"
    "  atom.global.add.u64 %rd18, [gvar], 1;\n"
    "  mul.wide.u32 %rd19, %r1, 32;\n  add.s64 %rd20, %rd1, %rd19;\n"
    "  cvt.u32.u64 %r6, %rd15;\n  cvt.u32.u64 %r7, %rd16;\n"
    "  st.global.v4.u32 [%rd20], {%r2, %r4, %r6, %r7};\n"
    "  st.global.v2.u64 [%rd20+16], {%rd17, %rd18};\n"
    "  ret;\n}\n";

static void state_spaces(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kSpaces);
  hm_place_module(m);
  ptx_space sp;
  uint64_t gaddr, gsize;
  assert_int_equal(ptx_module_symbol(m, "gvar", &sp, &gaddr, &gsize), 0);
  assert_int_equal(sp, PTX_SPACE_GLOBAL);
  assert_int_equal(gsize, 8);
  assert_int_equal(*(uint64_t *)hm_ptr(gaddr), 5);
  assert_int_equal(ptx_module_symbol(m, "nope", NULL, NULL, NULL), -1);
  const ptx_kernel *k = ptx_kernel_find(m, "sp", NULL, 0);
  assert_non_null(k);
  ptx_kernel_info ki = ptx_kernel_get_info(k);
  assert_int_equal(ki.shared_static, 1024);
  assert_int_equal(ki.local_per_thread, 16);
  uint64_t out = hm_alloc(64 * 32);
  uint64_t args[] = {out};
  uint32_t block[3] = {64, 1, 1};
  char err[400];
  if (hm_launch(m, "sp", kOne, block, 0, 1, args, NULL, err, sizeof err) != 0) fail_msg("%s", err);
  const uint32_t *o = hm_ptr(out);
  for (uint32_t t = 0; t < 64; ++t) {
    assert_int_equal(o[8 * t + 0], t);
    assert_int_equal(o[8 * t + 1], 10 * ((t & 3) + 1));
    assert_int_equal(o[8 * t + 2], t ^ 1);
    assert_int_equal(o[8 * t + 3], 64 * 63 / 2); /* red.add of every thread before the barrier */
    uint64_t gv = *(const uint64_t *)(o + 8 * t + 4), old = *(const uint64_t *)(o + 8 * t + 6);
    assert_true(gv >= 5 && gv <= 5 + 64);
    assert_true(old >= 5 && old < 5 + 64);
  }
  assert_int_equal(*(uint64_t *)hm_ptr(gaddr), 5 + 64);
  ptx_free(m);
}

/* hand-written in the style of nvcc's PTX ISA 7.x output: .file/.loc lines, $L__ labels,
 * .maxntid, .pragma, ld.global.nc, a 16-bit unpack inside a scope, an unused .extern .func */
static const char *kNvcc =
    "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 7.4\n.target sm_70\n.address_size 64\n\n"
    "\t// .globl\t_Z6vecaddPKfS0_Pfi\n"
    ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n)\n;\n"
    ".file\t1 \"/tmp/v.cu\"\n"
    ".visible .entry _Z6vecaddPKfS0_Pfi(\n"
    "\t.param .u64 _Z6vecaddPKfS0_Pfi_param_0,\n\t.param .u64 _Z6vecaddPKfS0_Pfi_param_1,\n"
    "\t.param .u64 _Z6vecaddPKfS0_Pfi_param_2,\n\t.param .u32 _Z6vecaddPKfS0_Pfi_param_3\n)\n"
    ".maxntid 256, 1, 1\n{\n"
    "\t.reg .pred \t%p<3>;\n\t.reg .b16 \t%rs<3>;\n\t.reg .f32 \t%f<4>;\n\t.reg .b32 \t%r<7>;\n\t.reg .b64 \t%rd<11>;\n\n"
    "\t.loc\t1 3 0\n"
    "\tld.param.u64 \t%rd1, [_Z6vecaddPKfS0_Pfi_param_0];\n"
    "\tld.param.u64 \t%rd2, [_Z6vecaddPKfS0_Pfi_param_1];\n"
    "\tld.param.u64 \t%rd3, [_Z6vecaddPKfS0_Pfi_param_2];\n"
    "\tld.param.u32 \t%r2, [_Z6vecaddPKfS0_Pfi_param_3];\n"
    "\tmov.u32 \t%r3, %ctaid.x;\n\tmov.u32 \t%r4, %ntid.x;\n\tmov.u32 \t%r5, %tid.x;\n"
    "\tmad.lo.s32 \t%r1, %r3, %r4, %r5;\n"
    "\tsetp.ge.s32 \t%p1, %r1, %r2;\n"
    "\t@%p1 bra \t$L__BB0_2;\n"
    "\t.pragma \"nounroll\";\n"
    "\tcvta.to.global.u64 \t%rd4, %rd1;\n\tmul.wide.s32 \t%rd5, %r1, 4;\n\tadd.s64 \t%rd6, %rd4, %rd5;\n"
    "\tcvta.to.global.u64 \t%rd7, %rd2;\n\tadd.s64 \t%rd8, %rd7, %rd5;\n"
    "\tld.global.nc.f32 \t%f1, [%rd8];\n\tld.global.nc.f32 \t%f2, [%rd6];\n"
    "\tadd.f32 \t%f3, %f2, %f1;\n"
    "\t{ .reg .b16 tmp; mov.b32 {tmp, %rs1}, %r1; }\n"
    "\tcvt.rn.f32.u16 \t%f1, %rs1;\n\tadd.f32 \t%f3, %f3, %f1;\n"
    "\tcvta.to.global.u64 \t%rd9, %rd3;\n\tadd.s64 \t%rd10, %rd9, %rd5;\n"
    "\tst.global.f32 \t[%rd10], %f3;\n"
    "\n$L__BB0_2:\n\tret;\n\n}\n";

static void nvcc_style(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kNvcc);
  int n = 300;
  uint64_t a = hm_alloc(512 * 4), b = hm_alloc(512 * 4), c = hm_alloc(512 * 4);
  float *A = hm_ptr(a), *B = hm_ptr(b), *C = hm_ptr(c);
  for (int i = 0; i < 512; ++i) {
    A[i] = (float)i * 0.5f;
    B[i] = (float)(i % 17);
  }
  uint64_t args[] = {a, b, c, (uint64_t)n};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
  char err[400];
  if (hm_launch(m, "_Z6vecaddPKfS0_Pfi", grid, block, 0, 4, args, NULL, err, sizeof err) != 0) fail_msg("%s", err);
  for (int i = 0; i < 512; ++i) assert_true(C[i] == (i < n ? A[i] + B[i] + (float)((uint32_t)i >> 16) : 0.0f));
  ptx_free(m);
}

/* ------------------------------------------------------------------ errors */

typedef struct bad {
  const char *text;
  const char *want; /* substring of the one-line message */
} bad;

static void bad_ptx(void **st) {
  (void)st;
  static const bad cases[] = {
      {".version 7.0\n.target sm_70\n.address_size 32\n", "t.ptx:3: expected .address_size 64"},
      {".version 7.0\n.bogus\n", "t.ptx:2: expected a directive"},
      {".version x\n", "t.ptx:1: expected a version"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r9, 1;\n}\n", "t.ptx:4: undeclared register '%r9'"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  add.s32 %r1, %r0 1;\n}\n", "t.ptx:4: expected ';' ending the instruction"},
      {".entry k()\n{\n  bra NOWHERE;\n}\n", "t.ptx:3: branch to undefined label 'NOWHERE'"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, 1;\n", "expected '}' closing function 'k'"},
      {".entry k()\n{\nL: ret;\nL: ret;\n}\n", "t.ptx:4: label 'L' defined twice"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .b32 %r<2>;\n}\n", "t.ptx:4: '%r' declared twice"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  add %r1, %r0, 1;\n}\n", "t.ptx:4: expected one type modifier"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  setp.s32 %r1, %r0, 1;\n}\n", "t.ptx:4: expected a comparison"},
      {".entry k()\n{\n  .reg .f32 %f<2>;\n  cvt.s32.f32 %f1, %f0;\n}\n", "t.ptx:4: float-to-integer cvt needs"},
      {".entry k()\n{\n  call.uni foo, ();\n}\n", "t.ptx:3: call to undeclared function 'foo'"},
      {".global .u32 g[2] = {1, 2, 3};\n", "t.ptx:1: too many initialiser values"},
      {".entry k()\n{\n  .reg .b32 %r<4294967296>;\n}\n", "t.ptx:3: too many registers"},
      {".entry k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, 0f3F80;\n}\n", "t.ptx:4: expected a number"},
      {"\n\n.entry k(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p+];\n}\n", "t.ptx:6: expected an address offset"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ptx_module *m = (ptx_module *)1;
    char err[300];
    int rc = ptx_parse(cases[i].text, strlen(cases[i].text), "t.ptx", &m, err, sizeof err);
    if (rc != -1 || m != NULL || !strstr(err, cases[i].want) || strchr(err, '\n'))
      fail_msg("case %zu: rc %d, message '%s', expected '%s'", i, rc, err, cases[i].want);
  }
}

/* tex.1d (tex1Dfetch) through a texture object in a register and a .texref by name, descriptors
 * written as the CUDA runtime writes them; vprintf per lane in lane order, with an argument buffer in
 * local memory and the format in the global segment. */
static const char kTexPrintf[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".global .texref tr;\n"
    ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
    ".global .align 1 .b8 fmt[FMTLEN] = {FMT};\n"
    ".visible .entry k(.param .u64 obj, .param .u64 out)\n{\n"
    "  .local .align 8 .b8 buf[16];\n"
    "  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n  .reg .f32 %f<4>;\n"
    "  ld.param.u64 %rd1, [obj];\n  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n  add.s32 %r2, %r1, -2;\n"
    "  tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd1, {%r2}];\n"
    "  tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [tr, {%r1}];\n"
    "  mul.wide.u32 %rd3, %r1, 16;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n  st.global.u32 [%rd4+4], %r4;\n  st.global.u32 [%rd4+8], %r5;\n"
    "  st.global.f32 [%rd4+12], %f0;\n"
    "  mov.u64 %rd5, buf;\n  st.local.u32 [%rd5], %r1;\n  st.local.u32 [%rd5+4], %r3;\n  st.local.f32 [%rd5+8], %f1;\n"
    "  cvta.local.u64 %rd6, %rd5;\n  mov.u64 %rd7, fmt;\n  cvta.global.u64 %rd8, %rd7;\n"
    "  setp.lt.u32 %p1, %r1, 4;\n"
    "  @%p1 bra SKIP;\n"
    "  {\n  .param .b64 param0;\n  st.param.b64 [param0+0], %rd8;\n  .param .b64 param1;\n  st.param.b64 [param1+0], %rd6;\n"
    "  .param .b32 retval0;\n  call.uni (retval0), vprintf, (param0, param1);\n  ld.param.b32 %r7, [retval0+0];\n  }\n"
    "  st.global.u32 [%rd4+8], %r7;\n"
    "SKIP:\n  ret;\n}\n";

static ptx_module *tex_module(const char *format) {
  char fmtbytes[512] = "", text[4096];
  size_t n = strlen(format);
  for (size_t i = 0; i <= n; ++i) snprintf(fmtbytes + strlen(fmtbytes), sizeof fmtbytes - strlen(fmtbytes), "%s%u", i ? ", " : "", (unsigned char)format[i]);
  char lenbuf[24];
  snprintf(lenbuf, sizeof lenbuf, "%zu", n + 1);
  /* FMTLEN and FMT in kTexPrintf */
  const char *a = strstr(kTexPrintf, "FMTLEN"), *b = strstr(kTexPrintf, "{FMT}");
  snprintf(text, sizeof text, "%.*s%s%.*s{%s}%s", (int)(a - kTexPrintf), kTexPrintf, lenbuf, (int)(b - (a + 6)), a + 6, fmtbytes, b + 5);
  /* the predicate register */
  char *r = strstr(text, "  .reg .f32 %f<4>;\n");
  char text2[4200];
  snprintf(text2, sizeof text2, "%.*s  .reg .pred %%p<2>;\n%s", (int)(r - text), text, r);
  return parse_ok(text2);
}

static void put_desc(uint64_t at, uint8_t ch, uint8_t bits, uint8_t fmt, uint64_t base, uint64_t bytes, uint32_t mode) {
  ptx_tex_desc d;
  memset(&d, 0, sizeof d);
  d.magic = PTX_TEX_MAGIC;
  d.kind = PTX_TEX_LINEAR;
  d.channels = ch, d.bits = bits, d.format = fmt, d.base = base, d.bytes = bytes, d.read_mode = mode;
  memcpy(hm_ptr(at), &d, sizeof d);
}

static void textures_and_printf(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = tex_module("t%d %d %.3f|");
  hm_place_module(m);
  /* the object: 20 short2 elements, signed; the reference: 32 unsigned bytes read normalized */
  uint64_t data = hm_alloc(20 * 4), bytes = hm_alloc(32), obj = hm_alloc(32), out = hm_alloc(32 * 16);
  for (int i = 0; i < 20; ++i) {
    int16_t v[2] = {(int16_t)(i * 1000 - 7000), (int16_t)-i};
    memcpy((uint8_t *)hm_ptr(data) + 4 * i, v, 4);
  }
  for (int i = 0; i < 32; ++i) ((uint8_t *)hm_ptr(bytes))[i] = (uint8_t)(i * 8);
  put_desc(obj, 2, 16, PTX_TEX_SIGNED, data, 20 * 4, PTX_TEX_ELEMENT);
  ptx_space sp;
  uint64_t tr = 0, trsz = 0;
  assert_int_equal(ptx_module_symbol(m, "tr", &sp, &tr, &trsz), 0);
  assert_int_equal(trsz, sizeof(ptx_tex_desc));
  put_desc(tr, 1, 8, PTX_TEX_UNSIGNED, bytes, 32, PTX_TEX_NORMALIZED);
  const uint32_t g1[3] = {1, 1, 1}, b32[3] = {32, 1, 1};
  uint64_t args[2] = {obj, out};
  char err[480];
  g_hm_out_len = 0;
  g_hm_out[0] = 0;
  if (hm_launch(m, "k", g1, b32, 0, 2, args, NULL, err, sizeof err) != 0) fail_msg("%s", err);
  char want[4096] = "";
  for (int t = 0; t < 32; ++t) {
    const uint32_t *o = (const uint32_t *)((uint8_t *)hm_ptr(out) + 16 * t);
    int x = t - 2;
    int32_t e0 = x >= 0 && x < 20 ? x * 1000 - 7000 : 0, e1 = x >= 0 && x < 20 ? -x : 0;
    assert_int_equal((int32_t)o[0], e0);
    assert_int_equal((int32_t)o[1], e1);
    float f;
    memcpy(&f, &o[3], 4);
    assert_true(f == (float)(t * 8) / 255.0f);
    if (t < 4) {
      assert_int_equal(o[2], 0); /* the third channel of a 2-channel texture */
    } else {
      assert_int_equal(o[2], 3); /* vprintf's value: the arguments consumed */
      snprintf(want + strlen(want), sizeof want - strlen(want), "t%d %d %.3f|", t, e0, 0.0);
    }
  }
  assert_string_equal(g_hm_out, want);
  /* a fetch through an address that holds no descriptor, and through the wrong destination type */
  args[0] = out;
  assert_int_equal(hm_launch(m, "k", g1, b32, 0, 2, args, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "which is not a texture object or a bound texture reference (thread 0)"));
  put_desc(obj, 1, 32, PTX_TEX_FLOAT, data, 80, PTX_TEX_ELEMENT);
  args[0] = obj;
  assert_int_equal(hm_launch(m, "k", g1, b32, 0, 2, args, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "texture of 1 32-bit float channels (element-type read mode) fetched as .s32"));
  assert_null(strchr(err, '\n'));
  ptx_free(m);
  /* printf: a bad conversion, and an argument-less call with conversions */
  static const struct {
    const char *fmt, *want;
  } bad[] = {{"x %q", "printf format \"x %q\": unsupported conversion '%q'"},
             {"x %n", "conversion '%n' is not supported"},
             {"x %5", "incomplete conversion at the end"},
             {"x %Lf", "length modifier 'L' (long double) is not supported"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    hm_reset();
    m = tex_module(bad[i].fmt);
    hm_place_module(m);
    obj = hm_alloc(32), out = hm_alloc(32 * 16), data = hm_alloc(80);
    put_desc(obj, 2, 16, PTX_TEX_SIGNED, data, 80, PTX_TEX_ELEMENT);
    ptx_module_symbol(m, "tr", &sp, &tr, &trsz);
    put_desc(tr, 1, 8, PTX_TEX_UNSIGNED, data, 32, PTX_TEX_NORMALIZED);
    args[0] = obj, args[1] = out;
    assert_int_equal(hm_launch(m, "k", g1, b32, 0, 2, args, NULL, err, sizeof err), -1);
    if (!strstr(err, bad[i].want) || !strstr(err, "(thread 4)") || strchr(err, '\n')) fail_msg("format '%s': %s", bad[i].fmt, err);
    ptx_free(m);
  }
}

static void unsupported_instruction(void **st) {
  (void)st;
  const char *text =
      ".version 7.0\n.target sm_70\n.address_size 64\n"
      ".visible .entry good(.param .u64 p)\n{\n  ret;\n}\n"
      ".visible .func helper()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n"
      "  tex.2d.v4.s32.s32 {%r0, %r1, %r2, %r3}, [%rd1, {%r0, %r1}];\n  ret;\n}\n"
      ".visible .entry bad(.param .u64 p)\n{\n  call.uni helper, ();\n  ret;\n}\n";
  ptx_module *m = parse_ok(text);
  char err[300];
  assert_non_null(ptx_kernel_find(m, "good", err, sizeof err));
  assert_null(ptx_kernel_find(m, "bad", err, sizeof err));
  assert_non_null(strstr(err, "t.ptx:12: kernel bad: unsupported instruction 'tex.2d.v4.s32.s32 (texture geometry other than 1d)"));
  assert_non_null(strstr(err, "in function helper"));
  assert_null(strchr(err, '\n'));
  assert_int_equal(ptx_module_check(m, err, sizeof err), -1);
  assert_null(ptx_kernel_find(m, "missing", err, sizeof err));
  assert_non_null(strstr(err, "no kernel (.entry) named 'missing'"));
  ptx_free(m);
  /* an external function that is not one of the native math functions */
  m = parse_ok(".extern .func (.param .b64 func_retval0) malloc(.param .b64 a);\n"
               ".entry k()\n{\n  .reg .b32 %r<2>;\n  {\n  .param .b64 param0;\n  st.param.b64 [param0+0], 0;\n"
               "  .param .b64 retval0;\n"
               "  call.uni (retval0), malloc, (param0);\n  }\n  ret;\n}\n");
  assert_null(ptx_kernel_find(m, "k", err, sizeof err));
  assert_non_null(strstr(err, "kernel k: calls 'malloc', which has no body"));
  ptx_free(m);
  /* parameter layout: .ptr attributes describe the pointee; arrays take their .align */
  m = parse_ok(".entry k(.param .u32 a, .param .u64 .ptr .global .align 1 p, .param .align 16 .b8 s[20], .param .f64 d)\n{\n  ret;\n}\n");
  const ptx_kernel *pk = ptx_kernel_find(m, "k", err, sizeof err);
  assert_non_null(pk);
  static const uint32_t off[4] = {0, 8, 16, 40}, sz[4] = {4, 8, 20, 8};
  for (unsigned i = 0; i < 4; ++i) {
    ptx_param_info pi = ptx_kernel_param(pk, i);
    assert_int_equal(pi.offset, off[i]);
    assert_int_equal(pi.size, sz[i]);
  }
  assert_int_equal(ptx_kernel_get_info(pk).param_bytes, 48);
  ptx_free(m);
  /* an unknown modifier is not silently ignored */
  m = parse_ok(".entry k()\n{\n  .reg .b32 %r<3>;\n  add.cc.u32 %r1, %r1, %r2;\n  ret;\n}\n");
  assert_null(ptx_kernel_find(m, "k", err, sizeof err));
  assert_non_null(strstr(err, "t.ptx:4: kernel k: unsupported instruction 'add.cc.u32"));
  ptx_free(m);
  /* faults at run time name the kernel, the line and the address */
  hm_reset();
  m = parse_ok(".entry k(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n");
  uint64_t args[] = {8};
  uint32_t block[3] = {1, 1, 1};
  assert_int_equal(hm_launch(m, "k", kOne, block, 0, 1, args, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "t.ptx:5: kernel k, CTA (0,0,0): global store of 4 bytes at 0x8 faulted"));
  ptx_free(m);
  /* trap stops the run when a thread executes it, not at load */
  m = parse_ok(".entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .pred %p<2>;\n  mov.u32 %r1, %tid.x;\n"
               "  setp.eq.u32 %p1, %r1, 37;\n  @%p1 trap;\n  ret;\n}\n");
  block[0] = 64;
  assert_int_equal(hm_launch(m, "k", kOne, block, 0, 0, NULL, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "t.ptx:7: kernel k, CTA (0,0,0): trap executed (thread 37)"));
  ptx_free(m);
  /* a barrier that never completes */
  m = parse_ok(".entry k()\n{\n  .reg .b32 %r<2>;\n  .reg .pred %p<2>;\n  mov.u32 %r1, %tid.x;\n"
               "  setp.lt.u32 %p1, %r1, 32;\n  @%p1 bra A;\n  bar.sync 1, 64;\n  ret;\nA:\n  bar.sync 0;\n  ret;\n}\n");
  block[0] = 64;
  assert_int_equal(hm_launch(m, "k", kOne, block, 0, 0, NULL, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "deadlock"));
  ptx_free(m);
}

/* ------------------------------------------------------------------ stepping, determinism */

static void warp_step_describes(void **st) {
  (void)st;
  hm_reset();
  ptx_module *m = parse_ok(kSpaces);
  hm_place_module(m);
  const ptx_kernel *k = ptx_kernel_find(m, "sp", NULL, 0);
  uint64_t out = hm_alloc(40 * 32);
  uint8_t pb[8];
  memcpy(pb, &out, 8);
  ptx_launch l;
  memset(&l, 0, sizeof l);
  l.kernel = k;
  l.grid[0] = l.grid[1] = l.grid[2] = 1;
  l.block[0] = 40;
  l.block[1] = l.block[2] = 1;
  l.params = pb;
  l.params_size = 8;
  l.mem = hm_ops();
  ptx_cta *c;
  char err[300];
  uint32_t id[3] = {0, 0, 0};
  assert_int_equal(ptx_cta_init(&c, &l, id, err, sizeof err), 0);
  assert_int_equal(ptx_cta_warps(c), 2);
  static ptx_winst wi;
  unsigned counts[PTX_IC_COUNT] = {0};
  int barriers = 0, waits = 0;
  bool exited[2] = {false, false};
  /* warp 0 runs until it waits at the barrier; only then does warp 1 run */
  for (int guard = 0; guard < 1000 && !(exited[0] && exited[1]); ++guard) {
    unsigned w = exited[0] ? 1 : 0;
    ptx_step_status s = ptx_warp_step(c, w, &wi);
    if (s == PTX_STEP_WAITING) {
      waits++;
      w = 1;
      s = ptx_warp_step(c, w, &wi);
      assert_true(s != PTX_STEP_WAITING);
    }
    {
      if (s == PTX_STEP_ERROR) fail_msg("%s", ptx_cta_error(c));
      if (s == PTX_STEP_EXITED) {
        exited[w] = true;
        assert_int_equal(wi.cls, PTX_IC_EXIT);
        continue;
      }
      counts[wi.cls]++;
      assert_int_equal(wi.active, w == 0 ? 0xffffffffu : 0xffu); /* 40 threads: 8 in the second warp */
      if (s == PTX_STEP_BARRIER) barriers++;
      if (wi.cls == PTX_IC_SHARED && wi.is_store == 1 && wi.bytes == 8 && wi.space == PTX_SPACE_SHARED) {
        /* the generic st.u64 through the shared window: per-lane shared addresses */
        for (unsigned l2 = 0; l2 < 8; ++l2) assert_int_equal(wi.addr[l2], (w * 32 + l2) * 8);
      }
      if (wi.cls == PTX_IC_LOCAL && wi.is_store == 1) assert_int_equal(wi.bytes, 8);
      if (wi.cls == PTX_IC_STORE && wi.bytes == 16) {
        assert_int_equal(wi.space, PTX_SPACE_GLOBAL);
        assert_true(wi.addr[0] == out + (w * 32) * 32 || wi.addr[0] == out + (w * 32) * 32 + 16);
      }
    }
  }
  assert_true(exited[0] && exited[1]);
  assert_int_equal(barriers, 2);
  assert_true(waits >= 1); /* warp 0 reached the barrier first and waited for warp 1 */
  assert_int_equal(counts[PTX_IC_CONST], 2 * 2); /* ld.param and ld.const per warp */
  assert_int_equal(counts[PTX_IC_ATOMIC], 2);
  assert_int_equal(counts[PTX_IC_SHARED], 2 * 5); /* st/ld through the window, red, atom, ld.shared */
  assert_int_equal(counts[PTX_IC_LOCAL], 2 * 2);
  assert_int_equal(counts[PTX_IC_STORE], 2 * 2);
  assert_int_equal(counts[PTX_IC_LOAD], 2);
  assert_int_equal(counts[PTX_IC_BARRIER], 2);
  ptx_cta_free(c);
  ptx_free(m);
}

/* the map fast path reaches the same memory as the callbacks: identical results, and the
 * callbacks are only used for what map does not cover (atomics) */
static void mapped_memory(void **st) {
  (void)st;
  NEED_KERNELS();
  uint8_t *snap = malloc(1 << 18);
  unsigned loads[2], maps[2];
  for (int run = 0; run < 2; ++run) {
    g_hm_map = run;
    g_hm_maps = 0;
    hm_reset();
    int n = 32;
    uint64_t a = hm_alloc((size_t)n * n * 4), b = hm_alloc((size_t)n * n * 4), c = hm_alloc((size_t)n * n * 4);
    float *A = hm_ptr(a), *B = hm_ptr(b);
    for (int i = 0; i < n * n; ++i) {
      A[i] = (float)(i % 9) - 4.0f;
      B[i] = (float)(i % 5) * 0.25f;
    }
    char err[400];
    uint32_t grid[3] = {2, 2, 1}, block[3] = {16, 16, 1};
    uint64_t args[] = {c, a, b, (uint64_t)n};
    assert_int_equal(hm_launch(g_k, "matmul", grid, block, 0, 4, args, NULL, err, sizeof err), 0);
    uint64_t w = hm_alloc(64);
    uint64_t a1[] = {w, w + 4, w + 8, w + 16, w + 24, w + 28, w + 32, w + 36};
    run1("atomics", 2, 64, 0, 8, a1);
    loads[run] = g_hm.loads;
    maps[run] = g_hm_maps;
    if (run == 0) memcpy(snap, g_hm.mem, 1 << 18);
    else assert_memory_equal(snap, g_hm.mem, 1 << 18);
  }
  g_hm_map = 0;
  assert_int_equal(maps[0], 0);
  assert_true(maps[1] > 0 && maps[1] < loads[0] / 8); /* a map call when a warp moves to another page, not per lane */
  assert_true(loads[1] < loads[0]); /* atomics still go through load and store */
  free(snap);
}

static void determinism(void **st) {
  (void)st;
  NEED_KERNELS();
  uint8_t *snap = malloc(1 << 16);
  for (int run = 0; run < 2; ++run) {
    hm_reset();
    uint64_t w = hm_alloc(64), in = hm_alloc(256 * 4), out = hm_alloc(64 * 4);
    uint32_t *iv = hm_ptr(in);
    for (int i = 0; i < 256; ++i) iv[i] = (uint32_t)i * 7u;
    uint64_t a1[] = {w, w + 4, w + 8, w + 16, w + 24, w + 28, w + 32, w + 36};
    run1("atomics", 2, 128, 0, 8, a1);
    uint64_t a2[] = {out, in, 19};
    run1("histogram", 1, 256, 0, 3, a2);
    if (run == 0) memcpy(snap, g_hm.mem, 1 << 16);
    else assert_memory_equal(snap, g_hm.mem, 1 << 16);
  }
  free(snap);
}

/* argv[1]: the kernels' PTX (default: the build's kernels.ptx, clang -O2) */
int main(int argc, char **argv) {
  if (argc > 1) g_kernels_path = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(divergence_nested_if), cmocka_unit_test(divergence_loops),
      cmocka_unit_test(divergence_early_return), cmocka_unit_test(divergence_exit),
      cmocka_unit_test(barrier_reduce), cmocka_unit_test(dynamic_shared),
      cmocka_unit_test(matmul_2d), cmocka_unit_test(barrier_reduction), cmocka_unit_test(atomics_contention),
      cmocka_unit_test(atomics_shared_histogram), cmocka_unit_test(shuffles_votes), cmocka_unit_test(vote_tiles),
      cmocka_unit_test(warp_hand), cmocka_unit_test(device_calls),
      cmocka_unit_test(local_memory), cmocka_unit_test(arith_clang), cmocka_unit_test(math_functions),
      cmocka_unit_test(instructions_hand), cmocka_unit_test(state_spaces), cmocka_unit_test(nvcc_style),
      cmocka_unit_test(bad_ptx), cmocka_unit_test(unsupported_instruction), cmocka_unit_test(textures_and_printf),
      cmocka_unit_test(warp_step_describes), cmocka_unit_test(mapped_memory), cmocka_unit_test(determinism),
  };
  return cmocka_run_group_tests(tests, setup_kernels, teardown_kernels);
}
