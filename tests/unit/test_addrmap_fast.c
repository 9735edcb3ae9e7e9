/* Randomized check of amap_decode / amap_channel / amap_l2_bank (fast bit-slice
 * path for power-of-two layouts, the split path when only the channel count is
 * not a power of two, div/mod path otherwise) against a
 * straightforward reference decode written here from the contract in
 * addrmap.h: successive div/mod over the digits, XOR-fold (powers of two) or
 * multiplicative rotation (otherwise) of ch/bg/ba by the row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/addrmap.h"

static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static uint32_t ref_fold(uint64_t x, unsigned bits) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 64; i += bits) r ^= (uint32_t)((x >> i) & ((1ull << bits) - 1));
  return r;
}

static uint32_t ref_permute(uint32_t v, uint32_t count, uint64_t row, unsigned salt) {
  if (count <= 1) return v;
  if ((count & (count - 1)) == 0) {
    unsigned b = 0;
    while ((1u << b) < count) ++b;
    return (v ^ ref_fold(row >> salt, b)) & (count - 1);
  }
  const uint64_t h = (row + salt) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)((v + (h >> 32) % count) % count);
}

typedef struct { int field; uint32_t radix; } dig;

static void ref_decode(const dig *d, unsigned n, uint32_t nch, uint32_t nbg, uint32_t nba, uint32_t lpc, int hash,
                       uint64_t pa, amap_loc *o) {
  uint64_t q = pa, above = 0;
  uint32_t col = 0, colmul = 1;
  memset(o, 0, sizeof *o);
  for (unsigned i = 0; i < n; ++i) {
    if (d[i].field == AMAP_ROW) {
      o->row = q;
      break;
    }
    const uint64_t v = q % d[i].radix;
    q /= d[i].radix;
    switch (d[i].field) {
      case AMAP_COL: col += (uint32_t)v * colmul; colmul *= d[i].radix; break;
      case AMAP_CH: o->ch = (uint32_t)v; above = q; break;
      case AMAP_RA: o->ra = (uint32_t)v; break;
      case AMAP_BG: o->bg = (uint32_t)v; break;
      case AMAP_BA: o->ba = (uint32_t)v; break;
      default: break;
    }
  }
  o->col = col;
  if (hash) {
    o->ch = ref_permute(o->ch, nch, o->row, 0);
    o->bg = ref_permute(o->bg, nbg, o->row, 1);
    o->ba = ref_permute(o->ba, nba, o->row, 2);
  }
  o->l2_bank = o->ch * lpc + (uint32_t)(above % lpc);
}

/* A random valid layout; pow2 selects power-of-two counts only (2: all but the channel count, the
 * split fast path of a full-scale 40-channel machine). */
static unsigned random_layout(dig *d, char *buf, size_t len, int pow2, uint32_t geo[6]) {
  static const char *names[] = {"off", "col", "ch", "ra", "bg", "ba", "row"};
  static const uint32_t p2[] = {1, 2, 4, 8, 16, 32, 64};
  static const uint32_t any[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24};
  unsigned n = 0;
  int order[8] = {AMAP_COL, AMAP_CH, AMAP_RA, AMAP_BG, AMAP_BA, AMAP_COL, AMAP_COL, -1};
  for (int i = 6; i > 0; --i) { /* shuffle the middle fields */
    const int j = (int)(rnd() % (uint64_t)(i + 1));
    const int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  uint32_t cnt[7] = {1, 1, 1, 1, 1, 1, 1};
  d[n].field = AMAP_OFF;
  d[n++].radix = pow2 ? p2[1 + rnd() % 6] : any[1 + rnd() % 9];
  for (int i = 0; i < 7; ++i) {
    if (rnd() % 4 == 0) continue; /* field omitted */
    const uint32_t r = pow2 == 2 && order[i] == AMAP_CH ? any[rnd() % 10] : pow2 ? p2[rnd() % 7] : any[rnd() % 10];
    d[n].field = order[i];
    d[n++].radix = r;
    cnt[order[i]] *= r;
  }
  d[n].field = AMAP_ROW;
  d[n++].radix = 0;
  size_t o = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (d[i].field == AMAP_ROW) o += (size_t)snprintf(buf + o, len - o, "row");
    else o += (size_t)snprintf(buf + o, len - o, "%s:%u ", names[d[i].field], d[i].radix);
  }
  /* avoid a repeated non-col field (amap_init rejects it) */
  unsigned seen[7] = {0};
  for (unsigned i = 0; i < n; ++i)
    if (d[i].field != AMAP_COL && d[i].field != AMAP_ROW && seen[d[i].field]++) return 0;
  geo[0] = cnt[AMAP_CH];
  geo[1] = cnt[AMAP_RA];
  geo[2] = cnt[AMAP_BG];
  geo[3] = cnt[AMAP_BA];
  geo[4] = cnt[AMAP_COL] * d[0].radix;
  geo[5] = 1 + (uint32_t)(rnd() % 4); /* L2 banks per channel: 1..4 (3 is not a power of two) */
  return n;
}

static void check_layouts(int pow2) {
  unsigned layouts = 0, splits = 0;
  for (unsigned trial = 0; trial < 400; ++trial) {
    dig d[AMAP_MAX_DIGITS];
    char lay[256];
    uint32_t g[6];
    const unsigned n = random_layout(d, lay, sizeof lay, pow2, g);
    if (!n) continue;
    for (int hash = 0; hash < 2; ++hash) {
      amap m;
      char err[256];
      if (amap_init(&m, lay, g[0], g[1], g[2], g[3], g[4], g[5], hash, err, sizeof err) != 0) fail_msg("%s", err);
      ++layouts;
      if (pow2) assert_true(m.d.fast); /* at most 48 address bits below the row: the bit-slice path */
      if (pow2 == 2) assert_int_equal(m.d.split, (g[0] & (g[0] - 1)) != 0); /* one division for the channel */
      splits += m.d.split;
      for (unsigned k = 0; k < 2000; ++k) {
        uint64_t pa = rnd();
        if (k % 4 == 1) pa &= (1ull << 34) - 1; /* realistic physical addresses */
        if (k % 4 == 2) pa &= (1ull << (rnd() % 64)) - 1;
        amap_loc a, b;
        amap_decode(&m, pa, &a);
        ref_decode(d, n, g[0], g[2], g[3], g[5], hash, pa, &b);
        if (a.ch != b.ch || a.ra != b.ra || a.bg != b.bg || a.ba != b.ba || a.col != b.col || a.row != b.row ||
            a.l2_bank != b.l2_bank)
          fail_msg("layout '%s' hash %d pa 0x%llx: got ch %u ra %u bg %u ba %u col %u row %llu l2 %u, want ch %u ra %u "
                   "bg %u ba %u col %u row %llu l2 %u",
                   lay, hash, (unsigned long long)pa, a.ch, a.ra, a.bg, a.ba, a.col, (unsigned long long)a.row,
                   a.l2_bank, b.ch, b.ra, b.bg, b.ba, b.col, (unsigned long long)b.row, b.l2_bank);
        assert_int_equal(amap_channel(&m, pa), b.ch);
        assert_int_equal(amap_l2_bank(&m, pa), b.l2_bank);
      }
    }
  }
  assert_true(layouts > 200);
  if (pow2 == 2) assert_true(splits > 100);
}

static void random_split_layouts(void **state) {
  (void)state;
  check_layouts(2);
}

static void random_pow2_layouts(void **state) {
  (void)state;
  check_layouts(1);
}

static void random_any_layouts(void **state) {
  (void)state;
  check_layouts(0);
}

/* The shipped presets' shapes, exhaustively over low addresses and at random above. */
static void preset_shapes(void **state) {
  (void)state;
  static const struct { const char *lay; uint32_t ch, ra, bg, ba, rowb, lpc; } P[] = {
      {"off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2},
      {"off:32 col:4 ch:16 ra:2 bg:4 col:8 ba:4 row", 16, 2, 4, 4, 1024, 1},
      {"off:32 col:4 ch:12 bg:4 ba:4 col:16 row", 12, 1, 4, 4, 2048, 1},
      {"off:64 col:2 ch:1 ba:8 col:8 row", 1, 1, 1, 8, 1024, 4},
  };
  for (unsigned p = 0; p < sizeof P / sizeof P[0]; ++p) {
    dig d[AMAP_MAX_DIGITS];
    unsigned n = 0;
    char tmp[128];
    strcpy(tmp, P[p].lay);
    for (char *t = strtok(tmp, " "); t; t = strtok(NULL, " ")) {
      static const char *names[] = {"off", "col", "ch", "ra", "bg", "ba", "row"};
      char *c = strchr(t, ':');
      const size_t len = c ? (size_t)(c - t) : strlen(t);
      for (int f = 0; f < 7; ++f)
        if (strlen(names[f]) == len && strncmp(t, names[f], len) == 0) d[n].field = f;
      d[n++].radix = c ? (uint32_t)strtoul(c + 1, NULL, 10) : 0;
    }
    for (int hash = 0; hash < 2; ++hash) {
      amap m;
      char err[256];
      assert_int_equal(amap_init(&m, P[p].lay, P[p].ch, P[p].ra, P[p].bg, P[p].ba, P[p].rowb, P[p].lpc, hash, err,
                                 sizeof err),
                       0);
      for (uint64_t k = 0; k < (1u << 20); ++k) {
        const uint64_t pa = k < (1u << 19) ? k * 32 : rnd() & ((1ull << 40) - 1);
        amap_loc a, b;
        amap_decode(&m, pa, &a);
        ref_decode(d, n, P[p].ch, P[p].bg, P[p].ba, P[p].lpc, hash, pa, &b);
        assert_int_equal(a.ch, b.ch);
        assert_int_equal(a.ra, b.ra);
        assert_int_equal(a.bg, b.bg);
        assert_int_equal(a.ba, b.ba);
        assert_int_equal(a.col, b.col);
        assert_int_equal(a.row, b.row);
        assert_int_equal(a.l2_bank, b.l2_bank);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(random_pow2_layouts), cmocka_unit_test(random_any_layouts),
                                     cmocka_unit_test(random_split_layouts),
                                     cmocka_unit_test(preset_shapes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
