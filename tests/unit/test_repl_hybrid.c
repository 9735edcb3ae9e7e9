/* Unit tests of the hybrid-memory L2 policies (models/ref/cache/repl_hac_static.c,
 * repl_hac.c, repl_eabp.c, repl_wbar.c) through repl_ops only, on hand-made
 * access sequences in 8-way and 16-way sets. Expected positions are worked out
 * by hand from the HAC paper (Sec. IV-B, Algorithms 1 and 2) in the comments;
 * a plain reference list (LRU first) checks the whole stack after every step.
 *
 * The stack is read out through victim(): the victim of a set whose lines are
 * all valid and clean is its LRU-most allowed way, so masking out each victim
 * in turn lists the ways from LRU to MRU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/addrmap.h"
#include "cache/repl.h"

enum { SETS = 3, SET = 1, MAXW = 32 };
enum { DRAM = AMAP_MEM_DRAM, NVM = AMAP_MEM_NVM };

typedef struct T {
  const repl_ops *o;
  void *st;
  uint32_t ways;
  int ref[MAXW];         /* reference stack: ref[0] = LRU way, ref[ways-1] = MRU way */
  repl_line ln[MAXW];    /* what the cache reports about each way */
} T;

static uint32_t all(uint32_t ways) { return ways == 32 ? 0xffffffffu : (1u << ways) - 1u; }

static repl_access acc(int write, uint8_t mem, uint8_t ea, int bypass) {
  repl_access a;
  memset(&a, 0, sizeof a);
  a.is_write = (uint8_t)write;
  a.mem_type = mem;
  a.ea_count = ea;
  a.allow_bypass = (uint8_t)bypass;
  return a;
}

static void readout(T *t, int *out) {
  repl_line clean[MAXW];
  for (uint32_t w = 0; w < t->ways; ++w) clean[w] = (repl_line){1, 0, DRAM};
  const repl_access a = acc(0, DRAM, 32, 0);
  uint32_t mask = all(t->ways);
  for (uint32_t i = 0; i < t->ways; ++i) {
    const int v = t->o->victim(t->st, SET, clean, mask, &a);
    assert_true(v >= 0 && (uint32_t)v < t->ways && ((mask >> v) & 1u));
    out[i] = v;
    mask &= ~(1u << v);
  }
}

static void check_stack(T *t) {
  int got[MAXW];
  readout(t, got);
  for (uint32_t i = 0; i < t->ways; ++i) assert_int_equal(got[i], t->ref[i]);
}

static uint32_t ref_pos(const T *t, int way) {
  for (uint32_t i = 0; i < t->ways; ++i)
    if (t->ref[i] == way) return i;
  fail_msg("way %d not in the reference stack", way);
  return 0;
}

/* Reference move: take `way` out of the list and put it back at index p. */
static void ref_move(T *t, int way, uint32_t p) {
  uint32_t i = ref_pos(t, way);
  for (; i + 1 < t->ways; ++i) t->ref[i] = t->ref[i + 1];
  for (i = t->ways - 1; i > p; --i) t->ref[i] = t->ref[i - 1];
  t->ref[p] = way;
}

/* New policy state; every way valid, clean, DRAM. The stack is brought to a
 * known order by invalidating ways 0..A-1 in turn (each goes to LRU), giving
 * LRU -> MRU = A-1, A-2, ..., 0; the lines are then reported valid again. */
static T *setup(const char *name, uint32_t ways) {
  T *t = calloc(1, sizeof *t);
  t->o = repl_find(name);
  assert_non_null(t->o);
  t->ways = ways;
  t->st = calloc(1, t->o->state_bytes(SETS, ways));
  t->o->init(t->st, SETS, ways);
  for (uint32_t w = 0; w < ways; ++w) t->o->on_invalidate(t->st, SET, w);
  for (uint32_t i = 0; i < ways; ++i) t->ref[i] = (int)(ways - 1 - i);
  for (uint32_t w = 0; w < ways; ++w) t->ln[w] = (repl_line){1, 0, DRAM};
  check_stack(t);
  return t;
}
static void teardown_t(T *t) {
  free(t->st);
  free(t);
}

/* A line miss in SET: the policy's victim must be the reference LRU way; it is
 * refilled with access a and must land at position p. Returns the way. */
static int miss(T *t, repl_access a, uint32_t p) {
  const int v = t->o->victim(t->st, SET, t->ln, all(t->ways), &a);
  assert_int_equal(v, t->ref[0]);
  t->o->on_fill(t->st, SET, (uint32_t)v, &a);
  t->ln[v].mem_type = a.mem_type;
  t->ln[v].dirty = a.is_write;
  ref_move(t, v, p);
  check_stack(t);
  return v;
}

/* Position of the LRU-most line of memory type mem (fails if there is none). */
static uint32_t lowest_of(const T *t, uint8_t mem) {
  for (uint32_t i = 0; i < t->ways; ++i)
    if (t->ln[t->ref[i]].mem_type == mem) return i;
  fail_msg("no line of type %u", mem);
  return 0;
}

/* A hit on the way at position `from`; it must end at position p. */
static void hit(T *t, uint32_t from, repl_access a, uint32_t p) {
  const int w = t->ref[from];
  a.mem_type = t->ln[w].mem_type;  /* the cache passes the line's memory type */
  t->o->on_hit(t->st, SET, (uint32_t)w, &a);
  if (a.is_write) t->ln[w].dirty = 1;
  ref_move(t, w, p);
  check_stack(t);
}

/* ------------------------------------------------------------ hac_static */

/* Sec. IV-B: HN MRU, HD MRU-1, MN central (A/2), MD central-1, LN LRU+1, LD LRU.
 * Groups (Sec. IV-A): Low 1..8, Middle 9..23, High 24..32; ea 0 (unknown) = High. */
static void hac_static_insertion(void **state) {
  (void)state;
  static const uint32_t exp8[6] = {7, 6, 4, 3, 1, 0}, exp16[6] = {15, 14, 8, 7, 1, 0};
  static const uint8_t mem[6] = {NVM, DRAM, NVM, DRAM, NVM, DRAM};
  static const uint8_t eas[3][3] = {{24, 32, 0}, {9, 16, 23}, {1, 8, 5}};  /* High, Middle, Low */
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    const uint32_t *exp = k ? exp16 : exp8;
    for (int c = 0; c < 6; ++c)
      for (int e = 0; e < 3; ++e) {
        T *t = setup("hac_static", A);
        for (int wr = 0; wr < 2; ++wr) /* reads and writes are classified alike */
          miss(t, acc(wr, mem[c], eas[c / 2][e], 1), exp[c]);
        teardown_t(t);
      }
  }
}

/* Hits: NVM lines up by A/2, DRAM lines by A/4, at most to MRU. */
static void hac_static_promotion(void **state) {
  (void)state;
  T *t = setup("hac_static", 8);
  const int n = miss(t, acc(0, NVM, 1, 0), 1); /* LN at 1 */
  assert_int_equal(t->ref[1], n);
  hit(t, 1, acc(0, NVM, 1, 0), 5);             /* 1 + 4 */
  hit(t, 5, acc(0, NVM, 32, 0), 7);            /* 5 + 4 = 9 -> MRU 7 */
  const int d = miss(t, acc(0, DRAM, 1, 0), 0); /* LD at 0 */
  hit(t, ref_pos(t, d), acc(0, DRAM, 1, 0), 2); /* 0 + 2 */
  hit(t, 2, acc(1, DRAM, 1, 0), 4);             /* write hits promote the same way */
  hit(t, 6, acc(0, DRAM, 1, 0), 7);             /* a DRAM line: 6 + 2 -> MRU (the NVM line drops to 6) */
  hit(t, 7, acc(0, DRAM, 1, 0), 7);             /* already MRU */
  hit(t, 6, acc(0, NVM, 1, 0), 7);              /* the NVM line: 6 + 4 -> MRU */
  teardown_t(t);

  t = setup("hac_static", 16);
  miss(t, acc(0, NVM, 12, 0), 8);               /* MN at 8 */
  hit(t, 8, acc(0, NVM, 12, 0), 15);            /* 8 + 8 = 16 -> 15 */
  miss(t, acc(0, DRAM, 30, 0), 14);             /* HD at 14 */
  hit(t, 3, acc(0, DRAM, 30, 0), 7);            /* 3 + 4 */
  hit(t, 12, acc(0, DRAM, 1, 0), 15);           /* 12 + 4 = 16 -> 15 */
  teardown_t(t);
}

static void hac_static_misc(void **state) {
  (void)state;
  const repl_ops *o = repl_find("hac_static");
  assert_non_null(o->check(4, 4));
  assert_null(o->check(384, 8));
  assert_null(o->check(32, 16));
  assert_int_equal(o->overhead_bits(384, 16), 6144); /* 1-bit memory type per line */
  /* never bypasses, not even a dirty NVM LRU line against a low-ea demand read */
  T *t = setup("hac_static", 8);
  t->ln[t->ref[0]] = (repl_line){1, 1, NVM};
  const repl_access a = acc(0, DRAM, 1, 1);
  assert_int_equal(o->victim(t->st, SET, t->ln, all(8), &a), t->ref[0]);
  teardown_t(t);
}

/* ------------------------------------------------------------ hac */

/* A = 16: mc 5 bits, reset to 16. EA = 16*(ea-1)/64: ea 1 -> 0, 17 -> 4, 32 -> 7.
 * Writeback misses leave mc alone: DNP = 15 - 16/8 = 13, DDP = 8 + 16/4 = 12. */
static void hac_writeback_insertion_16(void **state) {
  (void)state;
  T *t = setup("hac", 16);
  for (int i = 0; i < 3; ++i) {
    miss(t, acc(1, NVM, 1, 0), 13);
    miss(t, acc(1, DRAM, 32, 0), 12);
    miss(t, acc(1, NVM, 0, 0), 13);  /* ea plays no role for writebacks */
  }
  /* mc still 16: a demand NVM miss gives mc 14, CNP = 8 - 14/8 + EA = 7 + EA */
  miss(t, acc(0, NVM, 17, 1), 11);
  /* ea unknown (0) counts as 32, EA 7: mc 12, CNP = 8 - 1 + 7 = 14 */
  miss(t, acc(0, NVM, 0, 1), 14);
  teardown_t(t);
}

/* A = 8: mc 4 bits, reset 8. DNP = 7 - 8/8 = 6, DDP = 4 + 8/4 = 6. EA = 8*(ea-1)/64. */
static void hac_writeback_insertion_8(void **state) {
  (void)state;
  T *t = setup("hac", 8);
  miss(t, acc(1, NVM, 32, 0), 6);
  miss(t, acc(1, DRAM, 1, 0), 6);
  /* demand DRAM miss: mc 9, CDP = 8/8 + 9/4 + EA - 1 = 1 + 2 + EA - 1 = 2 + EA; ea 32 -> EA 3 -> 5 */
  miss(t, acc(0, DRAM, 32, 1), 5);
  /* demand NVM miss: mc 7, CNP = 4 - 7/8 + EA = 4 + EA; ea 9 -> EA 1 -> 5 */
  miss(t, acc(0, NVM, 9, 1), 5);
  /* writeback now sees mc 7: DNP = 7 - 0 = 7, DDP = 4 + 1 = 5 */
  miss(t, acc(1, NVM, 1, 0), 7);
  miss(t, acc(1, DRAM, 1, 0), 5);
  teardown_t(t);
}

/* mc saturates at 0: from 16, eight NVM demand misses reach 0 (CNP 7,7,7,7,8,8,8,8
 * for ea 1: mc 14,12,10,8 -> mc/8 = 1; 6,4,2,0 -> 0), two more stay at 0 (8, 8).
 * Then DRAM misses count up from 0: mc 1,2,3,4 -> CDP = 2 + mc/4 - 1 = 1,1,1,2.
 * (Without saturation mc would be -4 and the four DRAM misses would give 1,1,1,1;
 * an 8-bit wrap would put them at MRU.) */
static void hac_mc_saturates_low(void **state) {
  (void)state;
  T *t = setup("hac", 16);
  static const uint32_t cnp[10] = {7, 7, 7, 7, 8, 8, 8, 8, 8, 8};
  for (int i = 0; i < 10; ++i) miss(t, acc(0, NVM, 1, 1), cnp[i]);
  static const uint32_t cdp[4] = {1, 1, 1, 2};
  for (int i = 0; i < 4; ++i) miss(t, acc(0, DRAM, 1, 1), cdp[i]);
  /* promotion at mc 4: DRAM DP = pos + 8 + 4/4 (an unsaturated mc 0 would give + 8),
   * NVM NP = pos + 16 - 0 - 1 */
  const uint32_t pd = lowest_of(t, DRAM);
  assert_true(pd <= 6);
  hit(t, pd, acc(0, 0, 1, 0), pd + 9);
  const uint32_t pn = lowest_of(t, NVM);
  hit(t, pn, acc(0, 0, 1, 0), pn + 15 > 15 ? 15 : pn + 15);
  teardown_t(t);
}

/* mc saturates at 31 = 2^5 - 1: from 16, fifteen DRAM misses reach 31; ea 1 gives
 * CDP = 2 + mc/4 - 1: mc 17..19 -> 5, 20..23 -> 6, 24..27 -> 7, 28..31 -> 8; three
 * more stay at 31 (8). An NVM miss then gives mc 29, CNP = 8 - 29/8 + 0 = 5
 * (unsaturated mc 34 -> 32: 8 - 4 = 4). */
static void hac_mc_saturates_high(void **state) {
  (void)state;
  T *t = setup("hac", 16);
  static const uint32_t cdp[18] = {5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8};
  for (int i = 0; i < 18; ++i) miss(t, acc(0, DRAM, 1, 1), cdp[i]);
  miss(t, acc(0, NVM, 1, 1), 5);
  /* mc 29: NVM hit NP = pos + 16 - 29/8 - 1 = pos + 12, DRAM hit DP = pos + 8 + 29/4 = pos + 15 */
  const int nvm_way = t->ref[5];
  assert_int_equal(t->ln[nvm_way].mem_type, NVM);
  hit(t, 5, acc(0, 0, 1, 0), 15);      /* 5 + 12 = 17 -> MRU */
  hit(t, 1, acc(0, 0, 1, 0), 15);      /* DRAM line at 1: 1 + 15 = 16 -> MRU */
  hit(t, 0, acc(0, 0, 1, 0), 15);      /* DRAM line at 0: 0 + 15 exactly */
  /* an NVM writeback miss lands at DNP = 15 - 29/8 = 12; DRAM writebacks at DDP =
   * 8 + 29/4 = 15 push it down to 2, where an NVM hit moves it exactly 12 */
  const int w2 = miss(t, acc(1, NVM, 1, 0), 12);
  while (ref_pos(t, w2) > 2) miss(t, acc(1, DRAM, 1, 0), 15);
  hit(t, 2, acc(0, 0, 1, 0), 14);
  teardown_t(t);
}

static void hac_mc_saturates_8(void **state) {
  (void)state;
  T *t = setup("hac", 8);
  static const uint32_t cdp[9] = {2, 2, 2, 3, 3, 3, 3, 3, 3};
  for (int i = 0; i < 9; ++i) miss(t, acc(0, DRAM, 1, 1), cdp[i]);
  static const uint32_t cnp[9] = {3, 3, 3, 4, 4, 4, 4, 4, 4};
  for (int i = 0; i < 9; ++i) miss(t, acc(0, NVM, 1, 1), cnp[i]);
  /* mc 0 now; DRAM misses count up again: mc 1,2,3,4 -> CDP = mc/4 = 0,0,0,1
   * (without saturation at 0, mc -3..0 would give 0,0,0,0) */
  static const uint32_t up[4] = {0, 0, 0, 1};
  for (int i = 0; i < 4; ++i) miss(t, acc(0, DRAM, 1, 1), up[i]);
  /* mc 4: DRAM DP = pos + 4 + 1, NVM NP = pos + 8 - 0 - 1 */
  const uint32_t pd = lowest_of(t, DRAM);
  assert_true(pd <= 2);
  hit(t, pd, acc(0, 0, 1, 0), pd + 5);
  const uint32_t pn = lowest_of(t, NVM);
  hit(t, pn, acc(0, 0, 1, 0), pn + 7 > 7 ? 7 : pn + 7);
  /* one more DRAM miss, mc 5: CDP = 5/4 + EA; ea 32 -> EA 3 -> 4 */
  miss(t, acc(0, DRAM, 32, 1), 4);
  teardown_t(t);
}

/* Algorithm 1 lines 10-11: bypass a demand miss iff the LRU line is dirty, NVM,
 * and its EA is larger than the request's; a bypass leaves the recency stack and
 * mc alone and ages the would-be victim's EA by one (docs/hac.md, "bypass
 * aging"; hac_bypass_aging pins that). The non-bypass cases come first: they
 * change nothing. */
static void hac_bypass(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    T *t = setup("hac", A);
    /* a writeback of an NVM line with ea 32 (EA = A/2-1): dirty NVM, then make it LRU */
    const int d = miss(t, acc(1, NVM, 32, 0), A == 16 ? 13 : 6);
    /* NVM writebacks of ea 1 (EA 0) land at the same DNP and push it down */
    while (ref_pos(t, d) != 0) miss(t, acc(1, NVM, 1, 0), A == 16 ? 13 : 6);
    assert_int_equal(t->ref[0], d);
    assert_true(t->ln[d].dirty && t->ln[d].mem_type == NVM);
    const uint32_t full = all(A);
    /* not bypassed: equal EA (ea 30 -> EA A/2-1), unknown ea (= 32), bypass not allowed, a write */
    repl_access a = acc(0, DRAM, 30, 1);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    a = acc(0, DRAM, 0, 1);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    a = acc(0, DRAM, 1, 0);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    a = acc(1, DRAM, 1, 1);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    /* clean, or DRAM: evicted */
    a = acc(0, DRAM, 1, 1);
    t->ln[d].dirty = 0;
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    t->ln[d].dirty = 1;
    t->ln[d].mem_type = DRAM;
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    t->ln[d].mem_type = NVM;
    /* only the victim counts: masked out, the next LRU (dirty NVM, EA 0) is evicted */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full & ~(1u << d), &a), t->ref[1]);
    /* bypassed: a request with a smaller EA, whatever the memory type of the missing line */
    a = acc(0, NVM, 24, 1);             /* A=16: EA 5 < 7; A=8: EA 2 < 3 */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), REPL_BYPASS);
    a = acc(0, DRAM, 1, 1);             /* EA 0 < A/2-2 */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), REPL_BYPASS);
    /* the bypasses left the stack alone */
    check_stack(t);
    /* a demand read hit with ea 1 rewrites the line's EA to 0 ("EA is updated at
     * each memory request"): then no bypass for an ea-1 request. The hit moves it
     * up; NVM writebacks bring it back down. */
    hit(t, 0, acc(0, 0, 1, 0), A == 16 ? 13 : 6); /* NVM NP = 0 + A - mc/8 - 1, mc = 2^(n-1) */
    while (ref_pos(t, d) != 0) miss(t, acc(1, NVM, 1, 0), A == 16 ? 13 : 6);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    teardown_t(t);
  }
}

/* Bypass aging (docs/hac.md; the paper is silent on what a bypass does to the
 * set): each bypass lowers the would-be victim's EA flag by one and touches
 * nothing else (recency stack, mc, other lines' EA). So a dirty NVM line with
 * flag E turns away exactly E - e demand misses of EA e, and the next one
 * evicts it; a hit renews the flag. Without the aging the set would turn away
 * every such miss for good. */
static void hac_bypass_aging(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    const uint32_t dnp = A == 16 ? 13 : 6; /* DNP = A-1-mc/8 at mc = 2^(n-1) */
    T *t = setup("hac", A);
    const int d = miss(t, acc(1, NVM, 32, 0), dnp); /* EA A/2-1 */
    while (ref_pos(t, d) != 0) miss(t, acc(1, NVM, 1, 0), dnp);
    const uint32_t full = all(A);
    /* ea-1 reads (EA 0): A/2-1 bypasses, then the victim is given up */
    repl_access a = acc(0, DRAM, 1, 1);
    for (uint32_t i = 0; i < A / 2 - 1; ++i) {
      assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), REPL_BYPASS);
      check_stack(t); /* the stack never moves */
    }
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d); /* not a bypass: no further aging */
    /* a hit by a fully coalesced write renews the flag (and promotes; bring it back down) */
    hit(t, 0, acc(1, 0, 32, 0), dnp);                /* NVM NP = 0 + A - mc/8 - 1 */
    while (ref_pos(t, d) != 0) miss(t, acc(1, NVM, 1, 0), dnp);
    /* a request of EA e is turned away A/2-1-e times: A=16, ea 24 -> EA 5: twice */
    a = acc(0, NVM, 24, 1);
    const uint32_t e = A * 23 / 64;
    for (uint32_t i = 0; i < A / 2 - 1 - e; ++i)
      assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), REPL_BYPASS);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    /* the aging of this set's line left the next LRU line's flag alone: the
     * dirty NVM writeback lines above d (EA 0) are never a bypass reason */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full & ~(1u << d), &a), t->ref[1]);
    /* mc untouched by all the bypasses: an NVM demand miss now brings it from
     * 2^(n-1) to 2^(n-1)-2, CNP = A/2 - mc/8 + EA (ea 32: EA A/2-1) */
    const uint32_t mc = (A == 16 ? 16 : 8) - 2;
    const int n = miss(t, acc(0, NVM, 32, 1), A / 2 - mc / 8 + A / 2 - 1);
    assert_int_equal(n, d);
    teardown_t(t);
  }
}

/* hac_literal: Algorithm 1 as printed ("bypass req; break;"): a bypass changes
 * nothing, so the same dirty high-EA NVM line turns away every lower-EA demand
 * miss for good (what hac's aging prevents); otherwise it is hac. */
static void hac_literal_no_aging(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    const uint32_t dnp = A == 16 ? 13 : 6;
    T *t = setup("hac_literal", A);
    const int d = miss(t, acc(1, NVM, 32, 0), dnp);
    while (ref_pos(t, d) != 0) miss(t, acc(1, NVM, 1, 0), dnp);
    const uint32_t full = all(A);
    repl_access a = acc(0, DRAM, 1, 1);
    for (uint32_t i = 0; i < 4 * A; ++i) {
      assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), REPL_BYPASS);
      check_stack(t);
    }
    /* equal EA: evicted, as in hac */
    a = acc(0, DRAM, 30, 1);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), d);
    teardown_t(t);
  }
}

/* Writeback hit (Algorithm 2 lines 2-3): the line becomes dirty in the cache and
 * is promoted like any hit; a clean NVM line hit by a write is then protected by
 * the bypass rule. (The dirty bit itself is the cache core's; see
 * tests/module/test_l2_policies.cpp for the L2 doing it.) */
static void hac_writeback_hit(void **state) {
  (void)state;
  T *t = setup("hac", 16);
  const int n = miss(t, acc(0, NVM, 32, 1), 14); /* mc 14, CNP = 8 - 1 + 7 */
  assert_int_equal(t->ln[n].dirty, 0);
  /* push it to LRU with NVM writebacks of ea 1 (DNP = 15 - 14/8 = 14, EA 0) */
  while (ref_pos(t, n) != 0) miss(t, acc(1, NVM, 1, 0), 14);
  repl_access a = acc(0, DRAM, 1, 1);
  assert_int_equal(t->o->victim(t->st, SET, t->ln, all(16), &a), n); /* clean: evicted */
  hit(t, 0, acc(1, 0, 32, 0), 14);                /* write hit: NP = 0 + 16 - 14/8 - 1; dirty now */
  assert_int_equal(t->ln[n].dirty, 1);
  while (ref_pos(t, n) != 0) miss(t, acc(1, NVM, 1, 0), 14);
  assert_int_equal(t->o->victim(t->st, SET, t->ln, all(16), &a), REPL_BYPASS);
  teardown_t(t);
}

static void hac_misc(void **state) {
  (void)state;
  const repl_ops *o = repl_find("hac");
  /* Sec. V-D: 768 KB, 16-way, 128 B lines: 384 sets x 5 + 6144 lines x (1 + 3) bits = 3312 B */
  assert_int_equal(o->overhead_bits(384, 16), 26496);
  assert_int_equal(o->overhead_bits(384, 16) / 8, 3312);
  /* split over 12 banks of 32 sets each: the same total */
  assert_int_equal(12 * o->overhead_bits(32, 16), 26496);
  /* 8-way: mc 4 bits, EA 2 bits */
  assert_int_equal(o->overhead_bits(10, 8), 10 * 4 + 80 * 3);
  assert_null(o->check(32, 8));
  assert_null(o->check(32, 16));
  assert_null(o->check(32, 32));
  assert_non_null(o->check(32, 4));
  assert_non_null(o->check(32, 12));
  /* other sets untouched by a set's traffic: set 0 still has its reset order */
  T *t = setup("hac", 8);
  for (int i = 0; i < 5; ++i) miss(t, acc(0, NVM, 1, 1), 4); /* mc 6,4,2,0,0: CNP = 4 - 0 + 0 */
  repl_line clean[8];
  for (int w = 0; w < 8; ++w) clean[w] = (repl_line){1, 0, DRAM};
  const repl_access a = acc(0, DRAM, 1, 0);
  assert_int_equal(o->victim(t->st, 0, clean, 0xff, &a), 0); /* reset: way w at position w */
  /* an invalid allowed way wins over the LRU */
  t->ln[5].valid = 0;
  const repl_access b = acc(0, DRAM, 1, 1);
  assert_int_equal(o->victim(t->st, SET, t->ln, 0xff, &b), 5);
  assert_int_not_equal(o->victim(t->st, SET, t->ln, 0xff & ~(1u << 5), &b), 5);
  teardown_t(t);
}

/* ------------------------------------------------------------ eabp */

static void eabp_insertion_promotion(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    T *t = setup("eabp", A);
    miss(t, acc(0, NVM, 32, 0), A - 1);   /* High: MRU */
    miss(t, acc(0, DRAM, 24, 0), A - 1);
    miss(t, acc(1, DRAM, 0, 0), A - 1);   /* unknown = High */
    miss(t, acc(0, NVM, 16, 0), A / 2);   /* Middle: central */
    miss(t, acc(0, DRAM, 9, 0), A / 2);
    miss(t, acc(0, DRAM, 23, 0), A / 2);
    miss(t, acc(0, NVM, 8, 0), 0);        /* Low: LRU */
    miss(t, acc(1, DRAM, 1, 0), 0);
    hit(t, 0, acc(0, 0, 1, 0), A - 1);    /* hits go to MRU whatever the ea */
    hit(t, 3, acc(1, 0, 32, 0), A - 1);
    /* no bypass */
    t->ln[t->ref[0]] = (repl_line){1, 1, NVM};
    const repl_access a = acc(0, DRAM, 1, 1);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, all(A), &a), t->ref[0]);
    teardown_t(t);
  }
  assert_int_equal(repl_find("eabp")->overhead_bits(384, 16), 0);
}

/* With every request fully coalesced EABP is LRU: same victims as repl_lru under
 * random fills/hits/invalidations/masks (the invalid-first rule included). */
static void eabp_is_lru_when_coalesced(void **state) {
  (void)state;
  const repl_ops *e = repl_find("eabp"), *l = repl_find("lru");
  const uint32_t wl[2] = {8, 16};
  uint32_t seed = 99;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = wl[k];
    void *se = calloc(1, e->state_bytes(SETS, A)), *sl = calloc(1, l->state_bytes(SETS, A));
    e->init(se, SETS, A);
    l->init(sl, SETS, A);
    repl_line ln[SETS][32];
    for (uint32_t st = 0; st < SETS; ++st)
      for (uint32_t w = 0; w < A; ++w) ln[st][w] = (repl_line){0, 0, DRAM};
    for (int i = 0; i < 4000; ++i) {
      seed = seed * 1103515245u + 12345u;
      const uint32_t r = seed >> 8, set = r % SETS;
      const repl_access a = acc((r >> 3) & 1, (r >> 4) & 1, (r >> 5) & 1 ? 32 : 0, 0);
      uint32_t mask = ((r >> 6) | 1u) & all(A);
      if ((r >> 20) & 1) mask = all(A);
      const int ve = e->victim(se, set, ln[set], mask, &a), vl = l->victim(sl, set, ln[set], mask, &a);
      assert_int_equal(ve, vl);
      const uint32_t w = (r >> 24) % A;
      switch ((r >> 12) % 8) {
        case 0: e->on_invalidate(se, set, w); l->on_invalidate(sl, set, w); break;
        case 1: case 2: case 3: e->on_hit(se, set, w, &a); l->on_hit(sl, set, w, &a); break;
        default: e->on_fill(se, set, (uint32_t)ve, &a); l->on_fill(sl, set, (uint32_t)vl, &a); ln[set][ve].valid = 1;
      }
    }
    free(se);
    free(sl);
  }
}

/* ------------------------------------------------------------ wbar */

static void wbar_insertion_victim(void **state) {
  (void)state;
  for (int k = 0; k < 2; ++k) {
    const uint32_t A = k ? 16 : 8;
    T *t = setup("wbar", A);
    miss(t, acc(0, NVM, 1, 0), A - 1);    /* NVM: MRU, ea ignored */
    miss(t, acc(1, NVM, 32, 0), A - 1);   /* dirty NVM */
    miss(t, acc(0, DRAM, 32, 0), A / 2);  /* DRAM: central */
    miss(t, acc(1, DRAM, 1, 0), A / 2);
    hit(t, 0, acc(0, 0, 1, 0), A - 1);    /* hit: MRU */
    hit(t, A / 2, acc(1, 0, 1, 0), A - 1);
    /* victim: LRU-most line of the lower half that is not dirty NVM */
    const uint32_t full = all(A);
    const repl_access a = acc(0, DRAM, 1, 1);
    for (uint32_t i = 0; i < A; ++i) t->ln[t->ref[i]] = (repl_line){1, 0, DRAM};
    t->ln[t->ref[0]] = (repl_line){1, 1, NVM};
    t->ln[t->ref[1]] = (repl_line){1, 1, NVM};
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), t->ref[2]);
    t->ln[t->ref[1]] = (repl_line){1, 0, NVM};   /* clean NVM: not protected */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), t->ref[1]);
    t->ln[t->ref[1]] = (repl_line){1, 1, DRAM};  /* dirty DRAM: not protected */
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), t->ref[1]);
    /* the whole lower half dirty NVM: the LRU line goes, not the upper half's clean line */
    for (uint32_t i = 0; i < A / 2; ++i) t->ln[t->ref[i]] = (repl_line){1, 1, NVM};
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full, &a), t->ref[0]);
    /* masks: only allowed ways; the LRU half's only allowed clean line is chosen */
    t->ln[t->ref[3]] = (repl_line){1, 0, DRAM};
    assert_int_equal(t->o->victim(t->st, SET, t->ln, full & ~(1u << t->ref[3]), &a), t->ref[0]);
    assert_int_equal(t->o->victim(t->st, SET, t->ln, (1u << t->ref[3]) | (1u << t->ref[1]), &a), t->ref[3]);
    /* never a bypass */
    for (uint32_t i = 0; i < A; ++i) assert_true(t->o->victim(t->st, SET, t->ln, full, &a) >= 0);
    teardown_t(t);
  }
  assert_int_equal(repl_find("wbar")->overhead_bits(384, 16), 6144);
}

/* ------------------------------------------------------------ all policies */

/* Random traffic: the stack stays a permutation (readout lists every way once),
 * victims respect masks and invalid ways, no bypass unless allowed. */
static void all_random_invariants(void **state) {
  (void)state;
  static const char *names[] = {"hac_static", "hac", "eabp", "wbar"};
  uint32_t seed = 7;
  for (int p = 0; p < 4; ++p)
    for (int k = 0; k < 2; ++k) {
      const uint32_t A = k ? 16 : 8;
      T *t = setup(names[p], A);
      for (int i = 0; i < 3000; ++i) {
        seed = seed * 1103515245u + 12345u;
        const uint32_t r = seed >> 4;
        const uint32_t w = r % A;
        const int byp = (r >> 5) & 1;
        const repl_access a = acc((r >> 6) & 1, (r >> 7) & 1, (uint8_t)((r >> 8) % 33), byp);
        t->ln[w].dirty = (r >> 14) & 1;
        t->ln[w].mem_type = (r >> 15) & 1;
        t->ln[w].valid = ((r >> 16) % 16) != 0;
        const uint32_t mask = ((r >> 20) | (1u << (r % A))) & all(A);
        const int v = t->o->victim(t->st, SET, t->ln, mask, &a);
        if (v == REPL_BYPASS) {
          assert_true(byp && p == 1);
        } else {
          assert_true(v >= 0 && ((mask >> v) & 1u));
          for (uint32_t x = 0; x < A; ++x)
            if (((mask >> x) & 1u) && !t->ln[x].valid) assert_true(!t->ln[v].valid);
          if ((r >> 28) & 1) t->o->on_fill(t->st, SET, (uint32_t)v, &a);
        }
        if ((r >> 25) % 4 == 0) t->o->on_hit(t->st, SET, w, &a);
        if ((r >> 27) % 16 == 0) t->o->on_invalidate(t->st, SET, w);
        int order[MAXW], seen[MAXW] = {0};
        readout(t, order);
        for (uint32_t x = 0; x < A; ++x) assert_int_equal(seen[order[x]]++, 0);
      }
      teardown_t(t);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hac_static_insertion),   cmocka_unit_test(hac_static_promotion),
      cmocka_unit_test(hac_static_misc),        cmocka_unit_test(hac_writeback_insertion_16),
      cmocka_unit_test(hac_writeback_insertion_8), cmocka_unit_test(hac_mc_saturates_low),
      cmocka_unit_test(hac_mc_saturates_high),  cmocka_unit_test(hac_mc_saturates_8),
      cmocka_unit_test(hac_bypass), cmocka_unit_test(hac_bypass_aging), cmocka_unit_test(hac_literal_no_aging),             cmocka_unit_test(hac_writeback_hit),
      cmocka_unit_test(hac_misc),               cmocka_unit_test(eabp_insertion_promotion),
      cmocka_unit_test(eabp_is_lru_when_coalesced), cmocka_unit_test(wbar_insertion_victim),
      cmocka_unit_test(all_random_invariants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
