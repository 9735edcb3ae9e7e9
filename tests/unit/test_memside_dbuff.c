/* Unit tests of the memory-side policy dbuff (models/ref/memside/memside_dbuff.c) against a fake shell that
 * also keeps the two devices' bytes (a DRAM channel and a PCM channel of one partition, the PCM part of the map
 * first): a miss fills its block from PCM into a DRAM frame with the block's bytes and later accesses hit;
 * eight blocks of a set, then the least recently used one is the victim, once the accesses in flight to its
 * frame are answered; a dirty victim goes through the lazy write queue to PCM with its dirty lines' bytes
 * (waiting while PCM is busy, on a wake-up), a clean victim is dropped without a transfer; accesses during a
 * fill are held and released; a miss on a block still in the write queue writes it first; a full queue drains
 * at once; bad parameters and platforms are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside_hybrid_env.h"

#define BLK 1024u
#define DRAM_BYTES HYB_DRAM_PART
#define BUF_BYTES (2u * 8u * BLK) /* size: 2 sets of 8 ways */

static amap g_map;
static const memside_ops *O;

/* The shell's PCM utilisation is asked for the drain window (drain_ns = 500); fills and write-backs are not
 * migrations. */
static const hyb_opts OPTS = {.npar = 8, .pcm_shift = 10, .util_dev = 1, .util_window = 500000};

static int group_setup(void **state) {
  (void)state;
  if (hyb_map_init(&g_map) != 0) return -1;
  O = memside_find("dbuff");
  return O ? 0 : -1;
}

/* The partition (hyb_part_setup) with the family's defaults and a buffer of BUF_BYTES. Not initialised. */
static void part_setup(hyb_part *q) {
  hyb_part_setup(q, O, &g_map, &OPTS);
  mst_set_param(O->params, q->par, "size", BUF_BYTES);
}

/* Route line `line` of PCM block b; returns MEMSIDE_GO or MEMSIDE_HOLD, *t and *ticket as route left them. */
static int access(hyb_part *q, uint64_t b, uint32_t line, int write, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {hyb_pa_of(q, b * BLK + line * 128u), (uint8_t)write, MEMSIDE_DEMAND, 0xF};
  memset(t, 0, sizeof *t);
  return O->route(q->st, &rq, ticket, t);
}

/* An access that must hit: routed to DRAM at once, then answered (for a write, its bytes `v` stored there). */
static memside_target hit(hyb_part *q, uint64_t b, uint32_t line, int write, unsigned char v) {
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(access(q, b, line, write, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  assert_int_equal(t.addr % BLK, line * 128u);
  if (write) memset(q->sh->dram + t.addr, v, 128);
  const memside_req rq = {hyb_pa_of(q, b * BLK + line * 128u), (uint8_t)write, MEMSIDE_DEMAND, 0xF};
  O->complete(q->st, &rq, &t);
  return t;
}

/* Block b missing: held, filled (served), released, then routed to its frame and answered. */
static memside_target fill(hyb_part *q, uint64_t b) {
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(access(q, b, 0, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_true(ticket != 0);
  const int nrel = q->sh->f.nrel;
  hyb_serve(q);
  assert_true(q->sh->f.nrel > nrel);
  assert_int_equal(q->sh->f.released[nrel], ticket);
  assert_int_equal(access(q, b, 0, 0, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  const memside_req rq = {hyb_pa_of(q, b * BLK), 0, MEMSIDE_DEMAND, 0xF};
  O->complete(q->st, &rq, &t); /* answered: the frame has nothing in flight */
  return t;
}

/* 1. A miss holds the access, reads the block from PCM (one 1 KiB fill transfer), writes it into a DRAM frame
 * with the same bytes, releases the access, which then goes to the frame; later accesses hit. */
static void miss_fills_then_hits(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(access(&q, 3, 2, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(ticket, 1);
  assert_int_equal(q.sh->f.n, 1); /* the PCM read, nothing else (the way was empty) */
  assert_int_equal(q.sh->f.x[0].dev, 1);
  assert_int_equal(q.sh->f.x[0].addr, 3 * BLK);
  assert_int_equal(q.sh->f.x[0].bytes, BLK);
  assert_int_equal(q.sh->f.x[0].write, 0);
  assert_int_equal(q.sh->f.x[0].cls, MEMSIDE_FILL);
  assert_int_equal(q.sh->f.nrel, 0);
  hyb_serve(&q);
  assert_int_equal(q.sh->f.n, 2);
  assert_int_equal(q.sh->f.x[1].dev, 0);
  assert_int_equal(q.sh->f.x[1].write, 1);
  assert_int_equal(q.sh->f.x[1].cls, MEMSIDE_FILL);
  const uint64_t frame = q.sh->f.x[1].addr;
  assert_int_equal(frame % BLK, 0);
  assert_int_equal(frame / BLK / 8, 3 % 2); /* set 1 of 2 */
  assert_memory_equal(q.sh->dram + frame, q.sh->pcm + 3 * BLK, BLK);
  assert_int_equal(q.sh->f.nrel, 1);
  assert_int_equal(q.sh->f.released[0], 1);
  assert_int_equal(O->busy(q.st), 0);
  assert_int_equal(access(&q, 3, 2, 0, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, frame + 2 * 128);
  t = hit(&q, 3, 5, 0, 0);
  assert_int_equal(t.addr, frame + 5 * 128);
  memside_target l;
  O->locate(q.st, hyb_pa_of(&q, 3 * BLK + 128), &l);
  assert_int_equal(l.dev, 0);
  assert_int_equal(l.addr, frame + 128);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 3 * BLK)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 5 * BLK)), AMAP_MEM_NVM);
  assert_int_equal(hyb_stat(&q, "read_misses"), 1);
  assert_int_equal(hyb_stat(&q, "read_hits"), 1); /* the held access counts as a miss only */
  assert_int_equal(hyb_stat(&q, "fills"), 1);
  assert_int_equal(hyb_stat(&q, "fill_bytes"), BLK);
  memside_stats ms;
  O->stats(q.st, &ms);
  assert_int_equal(ms.moves, 1);
  assert_int_equal(ms.moved_bytes, BLK);
  hyb_part_free(&q);
}

/* 2. Eight blocks fill set 0 (even blocks); block 0 is used again, so block 2 is the least recent: the ninth
 * block takes block 2's frame; block 2 is clean, so it is dropped without a transfer. */
static void lru_eviction_clean(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  uint64_t frame[9];
  for (uint64_t i = 0; i < 8; ++i) frame[i] = fill(&q, 2 * i).addr;
  for (uint64_t i = 0; i < 8; ++i)
    for (uint64_t j = 0; j < i; ++j) assert_true(frame[i] / BLK != frame[j] / BLK);
  hit(&q, 0, 1, 0, 0);
  const int n = q.sh->f.n;
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(access(&q, 16, 0, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(q.sh->f.n, n + 1); /* the fill's PCM read only: no victim read */
  hyb_serve(&q);
  assert_int_equal(q.sh->f.x[n + 1].addr, frame[1]); /* block 2's frame */
  assert_int_equal(hyb_stat(&q, "clean_evictions"), 1);
  assert_int_equal(hyb_stat(&q, "dirty_evictions"), 0);
  assert_int_equal(hyb_stat(&q, "writeback_bytes"), 0);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 2 * BLK)), AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 0)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 16 * BLK)), AMAP_MEM_DRAM);
  /* block 2 again: a miss, filled from PCM (its copy there is current); block 4 is now the least recent */
  fill(&q, 2);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 4 * BLK)), AMAP_MEM_NVM);
  assert_int_equal(hyb_stat(&q, "clean_evictions"), 2);
  hyb_part_free(&q);
}

/* 2b. The victim's frame still has an access in flight (routed, not answered): the fill waits for it before
 * it reads anything, so a write on its way lands before the victim is read or the frame overwritten. */
static void fill_waits_for_victim_accesses(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  for (uint64_t i = 0; i < 8; ++i) fill(&q, 2 * i);
  uint32_t ticket = 0;
  memside_target w0;
  assert_int_equal(access(&q, 0, 5, 1, &ticket, &w0), MEMSIDE_GO); /* a write to block 0, not answered yet */
  assert_int_equal(w0.dev, 0);
  for (uint64_t i = 1; i < 8; ++i) hit(&q, 2 * i, 0, 0, 0); /* block 0 the least recent again */
  const int n = q.sh->f.n;
  memside_target t;
  ticket = 0;
  assert_int_equal(access(&q, 16, 0, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(q.sh->f.n, n); /* draining: nothing read yet */
  assert_int_equal(O->busy(q.st), 1);
  memset(q.sh->dram + w0.addr, 0x77, 128); /* the write lands */
  const memside_req rq = {hyb_pa_of(&q, 0 * BLK + 5 * 128), 1, MEMSIDE_DEMAND, 0xF};
  O->complete(q.st, &rq, &w0);
  assert_int_equal(q.sh->f.n, n + 2); /* now the block from PCM and the dirty victim from DRAM */
  assert_int_equal(q.sh->f.x[n + 1].dev, 0);
  assert_int_equal(q.sh->f.x[n + 1].addr, w0.addr - w0.addr % BLK);
  q.sh->util_q16[1] = 0; /* PCM idle: the victim goes to PCM as soon as it is queued */
  hyb_serve(&q);
  for (unsigned i = 0; i < 128; ++i) assert_int_equal(q.sh->pcm[5 * 128 + i], 0x77);
  assert_int_equal(hyb_stat(&q, "writeback_bytes"), 128);
  assert_int_equal(O->busy(q.st), 0);
  hyb_part_free(&q);
}

/* 3. A dirty victim: its block is read from DRAM into the write queue while the new block is read from PCM;
 * PCM is busy, so the write waits (one wake-up drain_ns ahead); at the wake-up PCM is idle and the victim's
 * dirty lines (lines 3 and 4 as one run, line 6 alone) are written to PCM with the bytes the L2 wrote. */
static void dirty_victim_lazy_queue(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  for (uint64_t i = 0; i < 8; ++i) fill(&q, 2 * i);
  hit(&q, 2, 3, 1, 0xA3);
  hit(&q, 2, 4, 1, 0xA4);
  hit(&q, 2, 6, 1, 0xA6);
  for (uint64_t i = 0; i < 8; ++i)
    if (i != 1) hit(&q, 2 * i, 0, 0, 0); /* block 2 the least recent */
  q.sh->util_q16[1] = 60000;             /* PCM busy */
  q.sh->now = 7000000;
  const int n = q.sh->f.n;
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(access(&q, 18, 0, 1, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(q.sh->f.n, n + 2);
  assert_int_equal(q.sh->f.x[n + 1].dev, 0); /* the victim from DRAM */
  assert_int_equal(q.sh->f.x[n + 1].write, 0);
  assert_int_equal(q.sh->f.x[n + 1].cls, MEMSIDE_WRITEBACK);
  assert_int_equal(q.sh->f.x[n + 1].bytes, BLK);
  /* an access to the victim while it is evicted is held on the same fill */
  uint32_t vt = 0;
  assert_int_equal(access(&q, 2, 0, 0, &vt, &t), MEMSIDE_HOLD);
  assert_int_equal(vt, ticket);
  hyb_serve(&q); /* both reads, the fill's DRAM write; the victim waits in the queue */
  assert_int_equal(q.sh->f.n, n + 3);
  assert_int_equal(q.sh->nwake, 1);
  assert_int_equal(q.sh->wake_at[0], 7000000 + 500000);
  assert_int_equal(hyb_stat(&q, "dirty_evictions"), 1);
  assert_int_equal(hyb_stat(&q, "writeback_bytes"), 0);
  assert_int_equal(O->busy(q.st), 1);
  assert_int_equal(q.sh->pcm[2 * BLK + 3 * 128], (unsigned char)((2 * BLK + 3 * 128) * 7u + 2)); /* not yet */
  q.sh->now = 7500000;
  O->wake(q.st, 7500000, 0); /* PCM still busy: asks again */
  assert_int_equal(q.sh->nwake, 2);
  assert_int_equal(q.sh->f.n, n + 3);
  q.sh->util_q16[1] = 1000; /* PCM idle enough */
  O->wake(q.st, 8000000, 0);
  assert_int_equal(q.sh->f.n, n + 5); /* two runs: lines 3-4 and line 6 */
  assert_int_equal(q.sh->f.x[n + 3].dev, 1);
  assert_int_equal(q.sh->f.x[n + 3].write, 1);
  assert_int_equal(q.sh->f.x[n + 3].cls, MEMSIDE_WRITEBACK);
  assert_int_equal(q.sh->f.x[n + 3].addr, 2 * BLK + 3 * 128);
  assert_int_equal(q.sh->f.x[n + 3].bytes, 256);
  assert_int_equal(q.sh->f.x[n + 4].addr, 2 * BLK + 6 * 128);
  assert_int_equal(q.sh->f.x[n + 4].bytes, 128);
  hyb_serve(&q);
  for (unsigned i = 0; i < 128; ++i) {
    assert_int_equal(q.sh->pcm[2 * BLK + 3 * 128 + i], 0xA3);
    assert_int_equal(q.sh->pcm[2 * BLK + 4 * 128 + i], 0xA4);
    assert_int_equal(q.sh->pcm[2 * BLK + 6 * 128 + i], 0xA6);
  }
  assert_int_equal(q.sh->pcm[2 * BLK + 5 * 128], (unsigned char)((2 * BLK + 5 * 128) * 7u + 2)); /* clean: untouched */
  assert_int_equal(hyb_stat(&q, "writeback_bytes"), 384);
  assert_int_equal(hyb_stat(&q, "writeback_lines"), 3);
  assert_int_equal(hyb_stat(&q, "drains_idle"), 1);
  assert_int_equal(hyb_stat(&q, "drain_wakes"), 2);
  assert_int_equal(O->busy(q.st), 0);
  /* block 2 back from PCM carries the written bytes */
  const memside_target b2 = fill(&q, 2);
  assert_int_equal(q.sh->dram[b2.addr - b2.addr % BLK + 4 * 128], 0xA4);
  hyb_part_free(&q);
}

/* 4. A miss on a block whose dirty copy still waits in the write queue writes that entry at once and holds
 * until it is written; then the block is filled from PCM with the written bytes. A full queue (one entry) makes
 * the next dirty eviction write its oldest entry at once. The program's end writes what is queued. */
static void queue_conflict_full_end(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "write_queue", 1);
  hyb_part_init(&q);
  q.sh->util_q16[1] = 65536; /* PCM never idle enough */
  for (uint64_t i = 0; i < 8; ++i) fill(&q, 2 * i);
  hit(&q, 0, 1, 1, 0x51); /* block 0 dirty, then the least recent */
  for (uint64_t i = 1; i < 8; ++i) hit(&q, 2 * i, 0, 1, (unsigned char)(0x60 + i)); /* all dirty */
  fill(&q, 18); /* evicts block 0 into the queue */
  assert_int_equal(hyb_stat(&q, "dirty_evictions"), 1);
  assert_int_equal(hyb_stat(&q, "writeback_bytes"), 0);
  /* block 0 wanted: its entry is written now, the access waits for it */
  uint32_t ticket = 0;
  memside_target t;
  const int n = q.sh->f.n;
  assert_int_equal(access(&q, 0, 1, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(q.sh->f.n, n + 1);
  assert_int_equal(q.sh->f.x[n].addr, 0 * BLK + 128);
  assert_int_equal(hyb_stat(&q, "drains_conflict"), 1);
  hyb_serve(&q);
  assert_int_equal(q.sh->pcm[128], 0x51);
  uint32_t rel = 0;
  for (int i = 0; i < q.sh->f.nrel; ++i) rel |= q.sh->f.released[i] == ticket;
  assert_true(rel);
  const memside_target b0 = fill(&q, 0); /* evicts block 2 (dirty) into the queue */
  assert_int_equal(q.sh->dram[b0.addr + 128], 0x51);
  /* the queue (one entry) is full: the next dirty eviction writes the entry at once and waits */
  const int m = q.sh->f.n;
  ticket = 0;
  assert_int_equal(access(&q, 20, 0, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(hyb_stat(&q, "drains_full"), 1);
  assert_int_equal(q.sh->f.n, m + 1);
  assert_int_equal(q.sh->f.x[m].dev, 1);
  assert_int_equal(q.sh->f.x[m].addr, 2 * BLK);
  hyb_serve(&q); /* the write is done: the waiting miss is released (and starts its fill when routed again) */
  assert_int_equal(q.sh->pcm[2 * BLK], 0x61);
  fill(&q, 20); /* evicts block 4 (dirty) into the queue */
  assert_int_equal(hyb_stat(&q, "dirty_evictions"), 3);
  /* the program ends: the queued entry goes to PCM at once */
  const int e = q.sh->f.n;
  O->kernel_boundary(q.st, 0, 0);
  assert_int_equal(q.sh->f.n, e);
  O->kernel_boundary(q.st, 1, 1);
  assert_int_equal(q.sh->f.n, e + 1);
  assert_int_equal(hyb_stat(&q, "drains_end"), 1);
  hyb_serve(&q);
  assert_int_equal(q.sh->pcm[4 * BLK], 0x62);
  assert_int_equal(O->busy(q.st), 0);
  hyb_part_free(&q);
}

/* 5. Accesses to a block being filled are held on the fill (reads and writes), released with it, then served
 * from DRAM; a write among them marks its line dirty. Misses beyond `fills` wait for a free slot. */
static void held_during_fill(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "fills", 1);
  hyb_part_init(&q);
  uint32_t a = 0, b = 0, c = 0;
  memside_target t;
  assert_int_equal(access(&q, 5, 0, 0, &a, &t), MEMSIDE_HOLD);
  assert_int_equal(access(&q, 5, 7, 1, &b, &t), MEMSIDE_HOLD);
  assert_int_equal(a, 1);
  assert_int_equal(b, 1);
  assert_int_equal(q.sh->f.n, 1); /* one fill for both */
  assert_int_equal(access(&q, 7, 0, 0, &c, &t), MEMSIDE_HOLD); /* no free fill slot */
  assert_true(c != 0 && c != 1);
  assert_int_equal(q.sh->f.n, 1);
  assert_int_equal(O->busy(q.st), 1);
  hyb_serve(&q);
  assert_int_equal(q.sh->f.nrel, 2);
  assert_int_equal(q.sh->f.released[0], 1);
  assert_int_equal(q.sh->f.released[1], c);
  assert_int_equal(access(&q, 5, 0, 0, &a, &t), MEMSIDE_GO);
  assert_int_equal(access(&q, 5, 7, 1, &b, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(access(&q, 7, 0, 0, &c, &t), MEMSIDE_HOLD); /* now its own fill */
  assert_int_equal(q.sh->f.n, 3);
  assert_int_equal(hyb_stat(&q, "read_misses"), 2);
  assert_int_equal(hyb_stat(&q, "write_misses"), 1);
  assert_int_equal(hyb_stat(&q, "read_hits") + hyb_stat(&q, "write_hits"), 0);
  assert_true(hyb_stat(&q, "holds") >= 4);
  hyb_part_free(&q);
}

/* 6. Bad parameters and platforms are refused with a reason naming the key. */
static void bad_setups(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "block", 384);
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.dbuff.block");
  hyb_part_free(&q);

  part_setup(&q);
  mst_set_param(O->params, q.par, "size", 2 * DRAM_BYTES); /* more than the DRAM part */
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.dbuff.size");
  hyb_part_free(&q);

  part_setup(&q);
  mst_set_param(O->params, q.par, "size", 4 * BLK); /* less than one set of 8 ways */
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.dbuff.size");
  hyb_part_free(&q);

  part_setup(&q);
  q.c.rank_kind[1][0] = AMAP_MEM_DRAM; /* no PCM channel */
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "PCM channel");
  hyb_part_free(&q);

  /* the range checks of the parameter table */
  const int w = memside_param_index(O->params, "ways");
  const int wq = memside_param_index(O->params, "write_queue");
  const int du = memside_param_index(O->params, "drain_util");
  memside_value v;
  assert_true(w >= 0 && wq >= 0 && du >= 0);
  assert_int_equal(memside_param_parse(&O->params->param[w], "0", &v), -1);
  assert_int_equal(memside_param_parse(&O->params->param[w], "33", &v), -1);
  assert_int_equal(memside_param_parse(&O->params->param[w], "16", &v), 0);
  assert_int_equal(memside_param_parse(&O->params->param[wq], "0", &v), -1);
  assert_int_equal(memside_param_parse(&O->params->param[du], "1.5", &v), -1);
  assert_string_equal(O->params->prefix, "memside.dbuff.");
  assert_int_equal(O->program_in_first_part, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(miss_fills_then_hits),
      cmocka_unit_test(lru_eviction_clean),
      cmocka_unit_test(fill_waits_for_victim_accesses),
      cmocka_unit_test(dirty_victim_lazy_queue),
      cmocka_unit_test(queue_conflict_full_end),
      cmocka_unit_test(held_during_fill),
      cmocka_unit_test(bad_setups),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
