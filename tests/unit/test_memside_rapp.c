/* Unit tests of the memory-side policy rapp (models/ref/memside/memside_rapp.c) against a fake shell that also
 * keeps the two devices' bytes (a DRAM channel and a PCM channel of one partition, the PCM part of the map first):
 * a page becomes a migration candidate after exactly 16 weighted accesses (threshold queue 5, set here; write-backs
 * weigh 3)
 * and its move reads it from PCM and writes it into a DRAM frame with its bytes, after which the remap table sends
 * its lines there; with every frame in use the coldest DRAM page (lowest queue, least recent) goes back to its PCM
 * home with the bytes the L2 wrote while it was in DRAM, a candidate that does not outrank it stays on PCM, and
 * writeback = dirty skips a clean victim's write; accesses to the page and to the victim during the move are held
 * and released after the remap, the move waiting for the accesses already in flight; an expired queue head is
 * demoted with its count halved; bad parameters and platforms are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside_hybrid_env.h"

#define PAGE 4096u
#define DRAM_BYTES HYB_DRAM_PART

static amap g_map;
static const memside_ops *O;

/* Every transfer is a migration's; rapp asks for no clock, wake-up or utilisation (util_window 0). */
static const hyb_opts OPTS = {.npar = 16, .pcm_shift = 12, .util_dev = -1, .migration_only = 1};

static int group_setup(void **state) {
  (void)state;
  if (hyb_map_init(&g_map) != 0) return -1;
  O = memside_find("rapp");
  return O ? 0 : -1;
}

/* The partition (hyb_part_setup) with the family's defaults and `frames` DRAM frames, threshold queue 5. Not
 * initialised; free with part_free. */
static hyb_part *part_setup(uint32_t frames) {
  hyb_part *q = calloc(1, sizeof(hyb_part));
  assert_non_null(q);
  hyb_part_setup(q, O, &g_map, &OPTS);
  mst_set_param(O->params, q->par, "size", (int64_t)frames * PAGE);
  mst_set_param(O->params, q->par, "threshold", 5); /* 16 weighted accesses: short sequences */
  return q;
}

static void part_free(hyb_part *q) {
  hyb_part_free(q);
  free(q);
}

static memside_req req(const hyb_part *q, uint32_t page, uint32_t line, int write) {
  return (memside_req){hyb_pa_of(q, page * PAGE + line * 128u), (uint8_t)write,
                       (uint8_t)(write ? MEMSIDE_WRITEBACK : MEMSIDE_DEMAND), 0xF};
}

/* Route line `line` of PCM page `page`; returns MEMSIDE_GO or MEMSIDE_HOLD, *t and *ticket as route left them. */
static int route(hyb_part *q, uint32_t page, uint32_t line, int write, uint32_t *ticket, memside_target *t) {
  const memside_req rq = req(q, page, line, write);
  memset(t, 0, sizeof *t);
  return O->route(q->st, &rq, ticket, t);
}

/* The device's answer to an access routed to *t (for a write, its bytes `v` stored there first). */
static void answer(hyb_part *q, uint32_t page, uint32_t line, int write, const memside_target *t, unsigned char v) {
  if (write) memset((t->dev == 0 ? q->sh->dram : q->sh->pcm) + t->addr, v, 128);
  const memside_req rq = req(q, page, line, write);
  O->complete(q->st, &rq, t);
}

/* An access that goes at once (MEMSIDE_GO) and is answered; returns where it went. */
static memside_target go(hyb_part *q, uint32_t page, uint32_t line, int write, unsigned char v) {
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(route(q, page, line, write, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.addr % PAGE, line * 128u);
  answer(q, page, line, write, &t, v);
  return t;
}

/* n reads of page `page` (lines in turn), each answered: the last may start a move. */
static void reads(hyb_part *q, uint32_t page, unsigned n) {
  for (unsigned k = 0; k < n; ++k) go(q, page, k % 32u, 0, 0);
}

/* Page `page` (on PCM, no move) made a candidate by 16 reads and moved: returns its DRAM frame's address. */
static uint64_t migrate(hyb_part *q, uint32_t page) {
  const int n = q->sh->f.n;
  reads(q, page, 16);
  assert_true(q->sh->f.n > n);
  hyb_serve(q);
  return hyb_dram_addr(q, page * PAGE);
}

/* 1. Sixteen weighted accesses make a page a candidate: 15 reads do not, the 16th does; five write-backs (3
 * each) and one read do. The candidate's access goes on to PCM; the move reads the page once it is answered. */
static void candidate_after_weighted_accesses(void **state) {
  (void)state;
  hyb_part *q = part_setup(4);
  hyb_part_init(q);
  reads(q, 3, 15);
  assert_int_equal(q->sh->f.n, 0);
  assert_int_equal(hyb_stat(q, "candidates"), 0);
  assert_int_equal(hyb_stat(q, "promotions"), 4); /* counts 1, 2, 4, 8: queues 1, 2, 3, 4 */
  assert_int_equal(hyb_stat(q, "read_pcm"), 15);
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(route(q, 3, 15, 0, &ticket, &t), MEMSIDE_GO); /* the 16th: queue 5 */
  assert_int_equal(t.dev, 1);
  assert_int_equal(hyb_stat(q, "candidates"), 1);
  assert_int_equal(q->sh->f.n, 0); /* draining: the access is on its way to PCM */
  assert_int_equal(O->busy(q->st), 1);
  answer(q, 3, 15, 0, &t, 0);
  assert_int_equal(q->sh->f.n, 1);
  assert_int_equal(q->sh->f.x[0].dev, 1);
  assert_int_equal(q->sh->f.x[0].addr, 3 * PAGE);
  assert_int_equal(q->sh->f.x[0].bytes, PAGE);
  assert_int_equal(q->sh->f.x[0].write, 0);
  assert_int_equal(q->sh->f.x[0].cls, MEMSIDE_MIGRATION);
  hyb_serve(q);

  for (unsigned k = 0; k < 5; ++k) go(q, 7, k, 1, (unsigned char)(0x40 + k)); /* 15: queue 4 */
  const int n = q->sh->f.n;
  assert_int_equal(hyb_stat(q, "candidates"), 1);
  go(q, 7, 9, 0, 0); /* 16 */
  assert_int_equal(hyb_stat(q, "candidates"), 2);
  assert_int_equal(q->sh->f.n, n + 1);
  assert_int_equal(q->sh->f.x[n].addr, 7 * PAGE);
  hyb_serve(q);
  assert_int_equal(hyb_stat(q, "write_pcm"), 5);
  assert_int_equal(hyb_stat(q, "migrations"), 2);
  part_free(q);
}

/* 2. A move copies the page's bytes into a free DRAM frame (PCM read, DRAM write), the remap table then sends
 * every line of the page to its place in the frame (route, locate, kind_of), later accesses are DRAM hits and
 * write-backs go to DRAM; memside stats count the move, its bytes and the remap. */
static void migration_moves_bytes_and_remaps(void **state) {
  (void)state;
  hyb_part *q = part_setup(4);
  hyb_part_init(q);
  for (unsigned k = 0; k < 4; ++k) go(q, 5, k, 1, (unsigned char)(0xB0 + k)); /* 12, queue 4 */
  reads(q, 5, 4);                                                              /* 16 */
  assert_int_equal(q->sh->f.n, 1);
  hyb_serve(q);
  assert_int_equal(q->sh->f.n, 2);
  const memside_xfer w = q->sh->f.x[1];
  assert_int_equal(w.dev, 0);
  assert_int_equal(w.write, 1);
  assert_int_equal(w.bytes, PAGE);
  assert_int_equal(w.addr, 0); /* the first free frame */
  assert_memory_equal(q->sh->dram, q->sh->pcm + 5 * PAGE, PAGE);
  assert_int_equal(q->sh->dram[2 * 128], 0xB2); /* the bytes the L2 wrote to PCM came along */
  assert_int_equal(q->sh->f.nrel, 1);
  assert_int_equal(O->busy(q->st), 0);
  for (uint32_t line = 0; line < 32; ++line) {
    memside_target l;
    O->locate(q->st, hyb_pa_of(q, 5 * PAGE + line * 128), &l);
    assert_int_equal(l.dev, 0);
    assert_int_equal(l.kind, AMAP_MEM_DRAM);
    assert_int_equal(l.addr, line * 128u);
  }
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 5 * PAGE)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 6 * PAGE)), AMAP_MEM_NVM);
  memside_target t = go(q, 5, 9, 0, 0);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, 9 * 128u);
  t = go(q, 5, 10, 1, 0xEE);
  assert_int_equal(t.dev, 0);
  assert_int_equal(q->sh->dram[10 * 128], 0xEE);
  assert_int_equal(hyb_stat(q, "read_dram"), 1);
  assert_int_equal(hyb_stat(q, "write_dram"), 1);
  assert_int_equal(hyb_stat(q, "migrations"), 1);
  assert_int_equal(hyb_stat(q, "migration_bytes"), PAGE);
  assert_int_equal(hyb_stat(q, "data_bytes"), PAGE);
  memside_stats ms;
  O->stats(q->st, &ms);
  assert_int_equal(ms.moves, 1);
  assert_int_equal(ms.moved_bytes, PAGE);
  assert_int_equal(ms.remaps, 1);
  part_free(q);
}

/* 3. Two frames: pages 0 and 1 migrate; page 1 gets hotter (queue 6); the L2 writes page 0 in DRAM. Page 2 at
 * 16 accesses (queue 5) does not outrank page 0 (queue 5): declined. At 32 (queue 6) it does: page 0 (the lowest
 * queue's least recent DRAM page) is read from its frame and written back to its PCM home with the written
 * bytes, page 2 takes the frame. */
static void eviction_of_the_coldest_page(void **state) {
  (void)state;
  hyb_part *q = part_setup(2);
  hyb_part_init(q);
  const uint64_t f0 = migrate(q, 0);
  const uint64_t f1 = migrate(q, 1);
  assert_true(f0 != f1);
  reads(q, 1, 16);           /* page 1: 32, queue 6 */
  go(q, 0, 4, 1, 0x5A);      /* page 0: 19, still queue 5 */
  assert_int_equal(q->sh->dram[f0 + 4 * 128], 0x5A);
  const int n = q->sh->f.n;
  reads(q, 2, 16); /* queue 5: a candidate, but page 0 ranks as high */
  assert_int_equal(q->sh->f.n, n);
  assert_int_equal(hyb_stat(q, "declined"), 1);
  reads(q, 2, 15); /* 31 */
  assert_int_equal(q->sh->f.n, n);
  go(q, 2, 31, 0, 0); /* 32: queue 6 */
  assert_int_equal(q->sh->f.n, n + 2);
  assert_int_equal(q->sh->f.x[n].dev, 1); /* page 2 from PCM */
  assert_int_equal(q->sh->f.x[n].addr, 2 * PAGE);
  assert_int_equal(q->sh->f.x[n + 1].dev, 0); /* the victim from its frame */
  assert_int_equal(q->sh->f.x[n + 1].addr, f0);
  assert_int_equal(q->sh->f.x[n + 1].write, 0);
  unsigned char old[PAGE];
  memcpy(old, q->sh->pcm + 2 * PAGE, PAGE);
  hyb_serve(q);
  assert_int_equal(q->sh->f.n, n + 4);
  assert_int_equal(q->sh->f.x[n + 3].dev, 1); /* the victim home */
  assert_int_equal(q->sh->f.x[n + 3].write, 1);
  assert_int_equal(q->sh->f.x[n + 3].addr, 0);
  for (unsigned i = 0; i < 128; ++i) assert_int_equal(q->sh->pcm[4 * 128 + i], 0x5A);
  assert_memory_equal(q->sh->dram + f0, old, PAGE);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 0)), AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, PAGE)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 2 * PAGE)), AMAP_MEM_DRAM);
  memside_target t = go(q, 0, 4, 0, 0);
  assert_int_equal(t.dev, 1);
  assert_int_equal(t.addr, 4 * 128u);
  assert_int_equal(hyb_stat(q, "evictions"), 1);
  assert_int_equal(hyb_stat(q, "eviction_bytes"), PAGE);
  assert_int_equal(hyb_stat(q, "migrations"), 3);
  memside_stats ms;
  O->stats(q->st, &ms);
  assert_int_equal(ms.moves, 4);
  assert_int_equal(ms.moved_bytes, 4 * PAGE);
  assert_int_equal(ms.remaps, 4);
  part_free(q);
}

/* 3b. writeback = dirty: a victim the L2 did not write while in DRAM is not written back (its home is current);
 * one that it wrote is. */
static void dirty_writeback_skips_clean_victims(void **state) {
  (void)state;
  hyb_part *q = part_setup(1);
  mst_set_param(O->params, q->par, "writeback", 1);
  hyb_part_init(q);
  migrate(q, 0);
  int n = q->sh->f.n;
  reads(q, 1, 32); /* queue 6 > page 0's 5: page 0 out, clean */
  hyb_serve(q);
  assert_int_equal(q->sh->f.n, n + 3); /* two reads, the DRAM write only */
  assert_int_equal(hyb_stat(q, "clean_evictions"), 1);
  assert_int_equal(hyb_stat(q, "eviction_bytes"), 0);
  go(q, 1, 3, 1, 0x33); /* page 1 dirty in DRAM */
  n = q->sh->f.n;
  reads(q, 2, 64); /* queue 7 > page 1's 6 */
  hyb_serve(q);
  assert_int_equal(q->sh->f.n, n + 4);
  assert_int_equal(q->sh->pcm[1 * PAGE + 3 * 128], 0x33);
  assert_int_equal(hyb_stat(q, "evictions"), 2);
  assert_int_equal(hyb_stat(q, "eviction_bytes"), PAGE);
  memside_stats ms;
  O->stats(q->st, &ms);
  assert_int_equal(ms.moves, 4); /* three migrations in, one victim written */
  assert_int_equal(ms.remaps, 5);
  part_free(q);
}

/* 4. During a move, accesses to the page and to the victim are held on the move's ticket; the move reads only
 * once the accesses already sent (a write-back to the victim's frame, one to the page on PCM) are answered, so
 * their bytes move along; after the remap the held accesses are released and go to the new places. */
static void accesses_held_during_the_move(void **state) {
  (void)state;
  hyb_part *q = part_setup(1);
  hyb_part_init(q);
  const uint64_t f0 = migrate(q, 0);
  uint32_t ticket = 0;
  memside_target wv, wp, t;
  assert_int_equal(route(q, 0, 6, 1, &ticket, &wv), MEMSIDE_GO); /* a write to the victim-to-be, in flight */
  assert_int_equal(wv.dev, 0);
  reads(q, 1, 31);
  ticket = 0;
  assert_int_equal(route(q, 1, 8, 1, &ticket, &wp), MEMSIDE_GO); /* 34: queue 6, the move starts */
  assert_int_equal(wp.dev, 1);
  const int n = q->sh->f.n;
  assert_int_equal(O->busy(q->st), 1);
  uint32_t tp = 0, tv = 0;
  assert_int_equal(route(q, 1, 2, 0, &tp, &t), MEMSIDE_HOLD);
  assert_int_equal(route(q, 0, 1, 0, &tv, &t), MEMSIDE_HOLD);
  assert_int_equal(tp, 1);
  assert_int_equal(tv, 1);
  answer(q, 0, 6, 1, &wv, 0x66);
  assert_int_equal(q->sh->f.n, n); /* still draining: the write to page 1 is on its way */
  answer(q, 1, 8, 1, &wp, 0x88);
  assert_int_equal(q->sh->f.n, n + 2);
  assert_int_equal(q->sh->f.nrel, 1); /* the first migration's release only */
  hyb_serve(q);
  assert_int_equal(q->sh->f.nrel, 2);
  assert_int_equal(q->sh->f.released[1], 1);
  assert_int_equal(O->busy(q->st), 0);
  assert_int_equal(route(q, 1, 2, 0, &tp, &t), MEMSIDE_GO); /* page 1 now in the frame */
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, f0 + 2 * 128);
  answer(q, 1, 2, 0, &t, 0);
  assert_int_equal(route(q, 0, 1, 0, &tv, &t), MEMSIDE_GO); /* page 0 home again */
  assert_int_equal(t.dev, 1);
  assert_int_equal(t.addr, 1 * 128u);
  answer(q, 0, 1, 0, &t, 0);
  for (unsigned i = 0; i < 128; ++i) {
    assert_int_equal(q->sh->pcm[6 * 128 + i], 0x66);       /* the victim's write reached its home */
    assert_int_equal(q->sh->dram[f0 + 8 * 128 + i], 0x88); /* the page's write reached its frame */
  }
  assert_int_equal(hyb_stat(q, "holds"), 2);
  /* the retries counted once, where they went */
  assert_int_equal(hyb_stat(q, "read_dram") + hyb_stat(q, "write_dram"), 2);
  part_free(q);
}

/* 5. Expiry (lifetime 4 accesses): page 0's count 8 (queue 4); four accesses to page 1 leave it alone, the fifth
 * demotes it (the head of queue 4, expired) to queue 3 with count 4, so it needs 12 more accesses, not 8, to
 * reach the threshold. A DRAM page that expires below a PCM candidate's queue becomes the victim. */
static void expiry_demotes(void **state) {
  (void)state;
  hyb_part *q = part_setup(1);
  mst_set_param(O->params, q->par, "lifetime", 4);
  hyb_part_init(q);
  reads(q, 0, 8);
  reads(q, 1, 4);
  assert_int_equal(hyb_stat(q, "demotions"), 0);
  reads(q, 1, 1);
  assert_int_equal(hyb_stat(q, "demotions"), 1);
  reads(q, 0, 11); /* 4 + 11 = 15 */
  assert_int_equal(hyb_stat(q, "candidates"), 0);
  assert_int_equal(q->sh->f.n, 0);
  reads(q, 0, 1); /* 16 */
  assert_int_equal(hyb_stat(q, "candidates"), 1);
  hyb_serve(q);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 0)), AMAP_MEM_DRAM);
  /* page 0 in DRAM at queue 5 idles while page 2 is read: it keeps expiring down the queues, so page 2 at 16
   * (queue 5) outranks it and takes its frame */
  const uint64_t d = hyb_stat(q, "demotions");
  reads(q, 2, 16);
  assert_true(hyb_stat(q, "demotions") > d);
  assert_int_equal(hyb_stat(q, "declined"), 0);
  hyb_serve(q);
  assert_int_equal(hyb_stat(q, "evictions"), 1);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 0)), AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, 2 * PAGE)), AMAP_MEM_DRAM);
  part_free(q);
}

/* 6. A candidate beyond `migrations` moves in flight stays on PCM (counted) and moves at a later access. */
static void moves_in_flight_bounded(void **state) {
  (void)state;
  hyb_part *q = part_setup(4);
  mst_set_param(O->params, q->par, "migrations", 1);
  hyb_part_init(q);
  uint32_t ticket = 0;
  memside_target t;
  reads(q, 0, 15);
  assert_int_equal(route(q, 0, 15, 0, &ticket, &t), MEMSIDE_GO); /* move 1 draining */
  reads(q, 1, 16);
  assert_int_equal(hyb_stat(q, "no_slot"), 1);
  answer(q, 0, 15, 0, &t, 0);
  hyb_serve(q);
  assert_int_equal(hyb_stat(q, "migrations"), 1);
  reads(q, 1, 1);
  hyb_serve(q);
  assert_int_equal(hyb_stat(q, "migrations"), 2);
  assert_int_equal(O->kind_of(q->st, hyb_pa_of(q, PAGE)), AMAP_MEM_DRAM);
  part_free(q);
}

/* 7. Bad parameters and platforms are refused with a reason naming the key. */
static void bad_setups(void **state) {
  (void)state;
  hyb_part *q = part_setup(4);
  mst_set_param(O->params, q->par, "page", 1536);
  q->st = mst_state(O, &q->c);
  mst_init_refused(O, q->st, &q->c, &q->env, "memside.rapp.page");
  part_free(q);

  q = part_setup(4);
  mst_set_param(O->params, q->par, "threshold", 8); /* queues = 8 */
  q->st = mst_state(O, &q->c);
  mst_init_refused(O, q->st, &q->c, &q->env, "memside.rapp.threshold");
  part_free(q);

  q = part_setup(2 * DRAM_BYTES / PAGE); /* more than the DRAM part */
  q->st = mst_state(O, &q->c);
  mst_init_refused(O, q->st, &q->c, &q->env, "memside.rapp.size");
  part_free(q);

  q = part_setup(4);
  mst_set_param(O->params, q->par, "size", PAGE / 2); /* not one page */
  q->st = mst_state(O, &q->c);
  mst_init_refused(O, q->st, &q->c, &q->env, "memside.rapp.size");
  part_free(q);

  q = part_setup(4);
  q->c.rank_kind[1][0] = AMAP_MEM_DRAM; /* no PCM channel */
  q->st = mst_state(O, &q->c);
  mst_init_refused(O, q->st, &q->c, &q->env, "PCM channel");
  part_free(q);

  /* the table's ranges and the check across keys */
  const memside_params *p = O->params;
  const int qs = memside_param_index(p, "queues"), ww = memside_param_index(p, "write_weight");
  const int wb = memside_param_index(p, "writeback");
  memside_value v;
  assert_true(qs >= 0 && ww >= 0 && wb >= 0);
  assert_int_equal(memside_param_parse(&p->param[qs], "1", &v), -1);
  assert_int_equal(memside_param_parse(&p->param[qs], "17", &v), -1);
  assert_int_equal(memside_param_parse(&p->param[ww], "0", &v), -1);
  assert_int_equal(memside_param_parse(&p->param[wb], "dirty", &v), 0);
  assert_int_equal(v.i, 1);
  assert_int_equal(memside_param_parse(&p->param[wb], "never", &v), -1);
  memside_value pv[16];
  mst_param_defaults(p, pv, 16);
  char err[200];
  uint32_t bad = 99;
  const memside_sys sys = {0};
  assert_int_equal(p->validate(pv, &sys, &bad, err, sizeof err), 0);
  mst_set_param(p, pv, "threshold", 8);
  assert_int_equal(p->validate(pv, &sys, &bad, err, sizeof err), -1);
  assert_int_equal(bad, (uint32_t)memside_param_index(p, "threshold"));
  mst_set_param(p, pv, "threshold", 7);
  mst_set_param(p, pv, "page", 3000);
  assert_int_equal(p->validate(pv, &sys, &bad, err, sizeof err), -1);
  assert_int_equal(bad, (uint32_t)memside_param_index(p, "page"));
  assert_string_equal(p->prefix, "memside.rapp.");
  assert_int_equal(O->program_in_first_part, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(candidate_after_weighted_accesses),
      cmocka_unit_test(migration_moves_bytes_and_remaps),
      cmocka_unit_test(eviction_of_the_coldest_page),
      cmocka_unit_test(dirty_writeback_skips_clean_victims),
      cmocka_unit_test(accesses_held_during_the_move),
      cmocka_unit_test(expiry_demotes),
      cmocka_unit_test(moves_in_flight_bounded),
      cmocka_unit_test(bad_setups),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
