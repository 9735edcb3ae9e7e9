/* Unit tests of the memory-side policy flrb (models/ref/memside/memside_flrb.c) on directed sequences, against a
 * fake shell that keeps both devices' bytes (a DRAM channel and a PCM channel of one partition, the PCM part of
 * the map first), a clock, the channels' utilisation and the policy's wake-ups: a segment becomes a candidate in
 * queue 3 after its second row-buffer miss and moves to DRAM with its bytes; a batch takes the candidate's
 * same-row neighbours of its queue (not the next row's) into consecutive DRAM slots, with one read and one
 * write; accesses during a move are held and released; a quota used up defers the migration to the next
 * quantum; an expired descriptor is demoted; a DRAM segment whose descriptor leaves the low-end queue is copied
 * back to PCM with the bytes written in DRAM; a full DRAM demotes a colder segment proactively; the policy
 * reaches the engine only through cfg->blocks->flrb; bad parameters are refused; with memside.flrb.dram_offset
 * beyond the map's DRAM part the reserved region (and every migration transfer, locate and route into it) lies
 * there and the DRAM part's bytes stay untouched, and an offset not a multiple of 256 B or inside the DRAM part
 * is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/blocks.h"
#include "memside/memside.h"
#include "memside_hybrid_env.h"

#define SEG 256u
#define TCK 2500u /* 400 MHz */

static amap g_map;
static const memside_ops *O;

/* Every transfer is a migration's; the channels' utilisation is asked for the quantum (1000 cycles). */
static const hyb_opts OPTS = {.npar = 16, .pcm_shift = 10, .util_dev = -1, .util_window = 1000u * TCK,
                              .migration_only = 1};

/* Counts the engine requests the policy makes, forwarding to the C reference: the policy must use the ops. */
static int g_engine_calls;
static int counting_exec(void *st, const flrb_req *q, flrb_resp *r) {
  ++g_engine_calls;
  return flrb_c_ops.exec(st, q, r);
}
static flrb_ops g_counting;
static memside_blocks g_blocks;

static int group_setup(void **state) {
  (void)state;
  if (hyb_map_init(&g_map) != 0) return -1;
  O = memside_find("flrb");
  g_counting = flrb_c_ops;
  g_counting.exec = counting_exec;
  g_blocks = memside_blocks_c;
  g_blocks.flrb = &g_counting;
  return O ? 0 : -1;
}

/* The partition (hyb_part_setup of opt; rows of 2 KiB: 8 segments) with both channels at 400 MHz, 8 B per
 * clock, the engine through g_blocks, the defaults with exptm in memory cycles. Not initialised. */
static void part_setup_with(hyb_part *q, const hyb_opts *opt) {
  hyb_part_setup(q, O, &g_map, opt);
  for (int d = 0; d < 2; ++d) {
    q->c.dev_clk_mhz[d] = 400.0;
    q->c.dev_bytes_per_clk[d] = 8;
  }
  q->c.blocks = &g_blocks;
  mst_set_param(O->params, q->par, "clock", 0); /* exptm in memory cycles: the sequences below set the time */
}

static void part_setup(hyb_part *q) { part_setup_with(q, &OPTS); }

/* Route line `line` (0 or 1) of segment seg; returns GO or HOLD. */
static int route(hyb_part *q, uint32_t seg, uint32_t line, int write, uint32_t *ticket, memside_target *t) {
  const memside_req rq = {hyb_pa_of(q, seg * SEG + line * 128u), (uint8_t)write, MEMSIDE_DEMAND, 0xF};
  memset(t, 0, sizeof *t);
  return O->route(q->st, &rq, ticket, t);
}

/* The device answers an access routed to t, with row outcome `row`. */
static void answer(hyb_part *q, uint32_t seg, uint32_t line, int write, memside_target *t, uint8_t row) {
  const memside_req rq = {hyb_pa_of(q, seg * SEG + line * 128u), (uint8_t)write, MEMSIDE_DEMAND, 0xF};
  t->row = row;
  O->complete(q->st, &rq, t);
}

/* An access that goes at once and is answered; returns where it went. */
static memside_target acc(hyb_part *q, uint32_t seg, uint32_t line, int write, uint8_t row) {
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(route(q, seg, line, write, &ticket, &t), MEMSIDE_GO);
  answer(q, seg, line, write, &t, row);
  return t;
}

/* Makes seg a queue-3 descriptor with one row-buffer miss (a PCM write, weight 3, with a miss; a read hit):
 * refcnt 4, rbmcnt 1, not a candidate yet. */
static void warm(hyb_part *q, uint32_t seg) {
  acc(q, seg, 0, 1, MEMSIDE_ROW_MISS);
  acc(q, seg, 1, 0, MEMSIDE_ROW_HIT);
}

/* 1. A candidate after the second row-buffer miss in queue 3: nothing moves before; then the segment is read
 * from PCM (one 256 B migration read) and written to a DRAM slot with the same bytes; later accesses go there. */
static void candidate_after_two_misses(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  g_engine_calls = 0;
  warm(&q, 5);
  assert_int_equal(q.sh->f.n, 0);
  assert_int_equal(hyb_stat(&q, "candidates"), 0);
  acc(&q, 5, 0, 0, MEMSIDE_ROW_HIT); /* queue 3, still one miss */
  assert_int_equal(q.sh->f.n, 0);
  acc(&q, 5, 1, 0, MEMSIDE_ROW_CONFLICT); /* the second miss */
  assert_int_equal(hyb_stat(&q, "candidates"), 1);
  assert_true(g_engine_calls >= 4); /* every access went to the engine through the ops */
  assert_int_equal(q.sh->f.n, 1);
  assert_int_equal(q.sh->f.x[0].dev, 1);
  assert_int_equal(q.sh->f.x[0].addr, 5 * SEG);
  assert_int_equal(q.sh->f.x[0].bytes, SEG);
  assert_int_equal(q.sh->f.x[0].write, 0);
  hyb_serve(&q);
  assert_int_equal(q.sh->f.n, 2);
  assert_int_equal(q.sh->f.x[1].dev, 0);
  assert_int_equal(q.sh->f.x[1].write, 1);
  const uint64_t slot = q.sh->f.x[1].addr;
  assert_memory_equal(q.sh->dram + slot, q.sh->pcm + 5 * SEG, SEG);
  assert_int_equal(q.sh->f.nrel, 1);
  memside_target t = acc(&q, 5, 1, 1, MEMSIDE_ROW_HIT);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.kind, AMAP_MEM_DRAM);
  assert_int_equal(t.addr, slot + 128);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 5 * SEG)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 6 * SEG)), AMAP_MEM_NVM);
  assert_int_equal(hyb_stat(&q, "migrated_segments"), 1);
  assert_int_equal(hyb_stat(&q, "writes_dram"), 1);
  memside_stats ms;
  O->stats(q.st, &ms);
  assert_int_equal(ms.moves, 1);
  assert_int_equal(ms.moved_bytes, SEG);
  assert_int_equal(O->busy(q.st), 0);
  hyb_part_free(&q);
}

/* 2. Batch migration: segments 1 and 2 share segment 3's device row (0..7) and queue; 9 is in queue 3 too but in
 * the next row; 4 is in the row but in queue 2. The candidate 3 moves with 1 and 2 (not 4, not 9): reads of
 * 1..3 as one 768 B transfer, one 768 B write into three consecutive DRAM slots. An access to 2 during the
 * move is held and released with the move's ticket. */
static void batch_of_same_row_neighbours(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  warm(&q, 1);
  warm(&q, 2);
  warm(&q, 9);
  acc(&q, 4, 0, 1, MEMSIDE_ROW_HIT); /* refcnt 3: queue 2 */
  warm(&q, 3);
  assert_int_equal(q.sh->f.n, 0);
  acc(&q, 3, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(q.sh->f.n, 1);
  assert_int_equal(q.sh->f.x[0].addr, 1 * SEG);
  assert_int_equal(q.sh->f.x[0].bytes, 3 * SEG);
  uint32_t ticket = 0;
  memside_target t;
  assert_int_equal(route(&q, 2, 1, 0, &ticket, &t), MEMSIDE_HOLD);
  assert_int_equal(ticket, 1);
  hyb_serve(&q);
  assert_int_equal(q.sh->f.n, 2);
  assert_int_equal(q.sh->f.x[1].bytes, 3 * SEG); /* consecutive slots: one write */
  const uint64_t base = q.sh->f.x[1].addr;
  assert_memory_equal(q.sh->dram + base, q.sh->pcm + SEG, 3 * SEG);
  assert_int_equal(q.sh->f.nrel, 1);
  assert_int_equal(q.sh->f.released[0], 1);
  assert_int_equal(route(&q, 2, 1, 0, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.addr, base + SEG + 128);
  answer(&q, 2, 1, 0, &t, MEMSIDE_ROW_HIT);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 4 * SEG)), AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 9 * SEG)), AMAP_MEM_NVM);
  assert_int_equal(hyb_stat(&q, "migrations"), 1);
  assert_int_equal(hyb_stat(&q, "batch_neighbours"), 2);
  assert_int_equal(hyb_stat(&q, "batch_max"), 3);
  assert_int_equal(hyb_stat(&q, "holds"), 1);
  hyb_part_free(&q);
}

/* 2b. The move waits for an access already sent to the segment (a write on its way) before it reads. */
static void move_waits_for_accesses_in_flight(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  warm(&q, 7);
  acc(&q, 7, 0, 0, MEMSIDE_ROW_MISS); /* queue 3, 2 misses: candidate */
  hyb_serve(&q);
  assert_int_equal(hyb_stat(&q, "migrated_segments"), 1);
  /* segment 12 a candidate while a write to its line 1 is on its way */
  warm(&q, 12);
  uint32_t ticket = 0;
  memside_target w;
  assert_int_equal(route(&q, 12, 1, 1, &ticket, &w), MEMSIDE_GO);
  const int n = q.sh->f.n;
  acc(&q, 12, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(hyb_stat(&q, "candidates"), 2);
  assert_int_equal(q.sh->f.n, n); /* draining */
  assert_int_equal(O->busy(q.st), 1);
  memset(q.sh->pcm + w.addr, 0x5A, 128); /* the write lands */
  answer(&q, 12, 1, 1, &w, MEMSIDE_ROW_HIT);
  assert_int_equal(q.sh->f.n, n + 1);
  hyb_serve(&q);
  memside_target t = acc(&q, 12, 1, 0, MEMSIDE_ROW_HIT);
  assert_int_equal(t.dev, 0);
  for (unsigned i = 0; i < 128; ++i) assert_int_equal(q.sh->dram[t.addr + i], 0x5A);
  hyb_part_free(&q);
}

/* 3. The quota: a quantum after which both channels were fully busy allows nothing, so a candidate is deferred;
 * the next quantum (DRAM idle, PCM half busy: 4000 B) migrates it. (With the paper's lifetime of 150 cycles a
 * descriptor does not outlive a 1000-cycle quantum unaccessed: there the candidate migrates at its next access.) */
static void quota_defers_to_next_quantum(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "lifetime", 5000); /* the descriptor outlives the quantum it waits */
  hyb_part_init(&q);
  acc(&q, 40, 0, 0, MEMSIDE_ROW_HIT); /* starts the quantum timer */
  assert_int_equal(q.sh->nwake, 1);
  assert_int_equal(q.sh->wake_at[0], 1000u * TCK);
  q.sh->util_q16[0] = q.sh->util_q16[1] = 65536;
  q.sh->now = q.sh->wake_at[0];
  O->wake(q.st, q.sh->now, 0);
  assert_int_equal(hyb_stat(&q, "quanta"), 1);
  assert_int_equal(hyb_stat(&q, "quota_bytes"), 0);
  warm(&q, 20);
  acc(&q, 20, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(hyb_stat(&q, "candidates"), 1);
  assert_int_equal(hyb_stat(&q, "quota_deferrals"), 1);
  assert_int_equal(q.sh->f.n, 0);
  assert_int_equal(q.sh->nwake, 2); /* accesses came: the next quantum */
  q.sh->util_q16[0] = 0;
  q.sh->util_q16[1] = 32768; /* PCM half busy: (1 - 0.5) x 8000 B */
  q.sh->now = q.sh->wake_at[1];
  O->wake(q.st, q.sh->now, 0);
  assert_int_equal(hyb_stat(&q, "quota_bytes"), 4000);
  assert_int_equal(q.sh->f.n, 1); /* the deferred candidate, at the next quantum */
  assert_int_equal(q.sh->f.x[0].addr, 20 * SEG);
  hyb_serve(&q);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 20 * SEG)), AMAP_MEM_DRAM);
  /* without the quota, the same sequence migrates at once */
  hyb_part r;
  part_setup(&r);
  mst_set_param(O->params, r.par, "lifetime", 5000);
  mst_set_param(O->params, r.par, "quota", 0);
  hyb_part_init(&r);
  acc(&r, 40, 0, 0, MEMSIDE_ROW_HIT);
  r.sh->util_q16[0] = r.sh->util_q16[1] = 65536;
  r.sh->now = r.sh->wake_at[0];
  O->wake(r.st, r.sh->now, 0);
  warm(&r, 20);
  acc(&r, 20, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(r.sh->f.n, 1);
  hyb_part_free(&r);
  hyb_part_free(&q);
}

/* 4. Expiry demotes: a queue-3 descriptor not accessed for more than the lifetime (150 cycles) moves to queue 2
 * at a round-robin check (replayed when the policy next runs); no access: no candidate at the next miss. */
static void expiry_demotes(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  warm(&q, 30); /* queue 3, one miss, at cycle 0 */
  q.sh->now = 160u * TCK;
  acc(&q, 31, 0, 0, MEMSIDE_ROW_HIT); /* another segment: the policy runs, the checks of cycles 1..160 replay */
  assert_int_equal(hyb_stat(&q, "demotions"), 1);
  assert_int_equal(hyb_stat(&q, "ticks"), 160);
  acc(&q, 30, 0, 0, MEMSIDE_ROW_MISS); /* second miss, but refcnt 2 + 1: queue 2 */
  assert_int_equal(hyb_stat(&q, "candidates"), 0);
  assert_int_equal(q.sh->f.n, 0);
  hyb_part_free(&q);
}

/* 4b. With clock = accesses (the default) exptm counts the partition's accesses: the same descriptor is demoted
 * only once 150 other accesses have come (the round-robin checks still run per memory cycle). */
static void expiry_by_accesses(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "clock", 1);
  hyb_part_init(&q);
  warm(&q, 30); /* accesses 0 and 1: exptm 151 */
  for (unsigned i = 0; i < 149; ++i) { /* accesses 2..150, one per memory cycle: not expired yet */
    q.sh->now += TCK;
    acc(&q, 31, 0, 0, MEMSIDE_ROW_HIT);
  }
  q.sh->now += 1000u * TCK; /* time alone expires nothing */
  acc(&q, 31, 0, 0, MEMSIDE_ROW_HIT);
  assert_int_equal(hyb_stat(&q, "demotions"), 0);
  for (unsigned i = 0; i < 2; ++i) {
    q.sh->now += 20u * TCK; /* the checks of the next cycles see access 152 > 151 */
    acc(&q, 31, 0, 0, MEMSIDE_ROW_HIT);
  }
  assert_int_equal(hyb_stat(&q, "demotions"), 1);
  hyb_part_free(&q);
}

/* Makes seg a DRAM segment (candidate, moved); returns its DRAM address. */
static uint64_t promote(hyb_part *q, uint32_t seg) {
  warm(q, seg);
  const int n = q->sh->f.n;
  acc(q, seg, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(q->sh->f.n, n + 1);
  hyb_serve(q);
  return hyb_dram_addr(q, seg * SEG);
}

/* 5. Eviction copies back: a DRAM segment written there, then idle until its descriptor leaves the low-end
 * queue; the copy-back reads it from DRAM and writes it to its place in PCM with the bytes written in DRAM;
 * then it lives in PCM again and its slot is reused. */
static void eviction_copies_back(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  hyb_part_init(&q);
  const uint64_t slot = promote(&q, 50);
  memside_target t = acc(&q, 50, 1, 1, MEMSIDE_ROW_HIT);
  memset(q.sh->dram + t.addr, 0xC3, 128); /* the write's bytes in DRAM */
  const int n = q.sh->f.n;
  q.sh->now = 5000u * TCK; /* far past 4 demotions + the low-end expiry */
  O->wake(q.st, q.sh->now, 0);
  assert_int_equal(hyb_stat(&q, "evictions_expired"), 1);
  assert_int_equal(q.sh->f.n, n + 1);
  assert_int_equal(q.sh->f.x[n].dev, 0);
  assert_int_equal(q.sh->f.x[n].addr, slot);
  uint32_t ticket = 0;
  assert_int_equal(route(&q, 50, 0, 0, &ticket, &t), MEMSIDE_HOLD); /* held during the copy-back */
  hyb_serve(&q);
  assert_int_equal(q.sh->f.x[n + 1].dev, 1);
  assert_int_equal(q.sh->f.x[n + 1].addr, 50 * SEG);
  for (unsigned i = 0; i < 128; ++i) assert_int_equal(q.sh->pcm[50 * SEG + 128 + i], 0xC3);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 50 * SEG)), AMAP_MEM_NVM);
  assert_int_equal(hyb_stat(&q, "copybacks"), 1);
  assert_int_equal(route(&q, 50, 0, 0, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 1);
  answer(&q, 50, 0, 0, &t, MEMSIDE_ROW_HIT);
  assert_int_equal(promote(&q, 60), slot); /* the freed slot, from the freed list */
  /* the program's end drops the timer */
  O->kernel_boundary(q.st, 0, 1);
  assert_true(q.sh->unwakes >= 1);
  hyb_part_free(&q);
}

/* 6. DRAM full (a region of 2 slots): a third candidate is deferred and the colder DRAM segment (queue 1 after
 * its demotions) is copied back proactively; the deferred candidate then moves into its slot. */
static void dram_full_demotes_proactively(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "dram_size", 2 * SEG);
  hyb_part_init(&q);
  promote(&q, 70);
  promote(&q, 80);
  q.sh->now = 320u * TCK; /* both demoted twice: queue 1 */
  acc(&q, 90, 0, 0, MEMSIDE_ROW_HIT);
  acc(&q, 80, 0, 0, MEMSIDE_ROW_HIT); /* 80 in use again: queue 2 */
  warm(&q, 100);
  const int n = q.sh->f.n;
  acc(&q, 100, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(hyb_stat(&q, "dram_full_deferrals"), 1);
  assert_int_equal(hyb_stat(&q, "proactive_demotions"), 1);
  assert_int_equal(q.sh->f.n, n + 1); /* the copy-back of 70 */
  assert_int_equal(q.sh->f.x[n].dev, 0);
  hyb_serve(&q); /* copy-back done; the buffer frees; the deferred candidate moves */
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 70 * SEG)), AMAP_MEM_NVM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 80 * SEG)), AMAP_MEM_DRAM);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 100 * SEG)), AMAP_MEM_DRAM);
  hyb_part_free(&q);
}

/* 7. Bad parameters and platforms are refused with the key named. */
static void bad_setups_refused(void **state) {
  (void)state;
  hyb_part q;
  part_setup(&q);
  mst_set_param(O->params, q.par, "descriptors", 1000);
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.flrb.descriptors");
  free(q.st);
  mst_set_param(O->params, q.par, "descriptors", 4096);
  mst_set_param(O->params, q.par, "dram_size", 300);
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.flrb.dram_size");
  free(q.st);
  mst_set_param(O->params, q.par, "dram_size", 0);
  q.c.rank_kind[1][0] = AMAP_MEM_DRAM; /* no PCM channel */
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "PCM channel");
  free(q.st);
  q.st = NULL;
  hyb_part_free(&q);
}

/* The partition of the dram_offset tests (part_setup's, not initialised) with a DRAM device of HYB_DRAM_MAX
 * bytes: the map's DRAM part (HYB_DRAM_PART) at its start, room for the reserved region beyond it. */
static void part_setup_wide(hyb_part *q) {
  hyb_opts o = OPTS;
  o.dram_bytes = HYB_DRAM_MAX;
  part_setup_with(q, &o);
}
#define OFF HYB_DRAM_PART

/* 8. dram_offset = the DRAM part's bytes (64 KiB), dram_size 64 KiB: the region is DRAM device bytes 64..128 KiB.
 * The first migrated segment is written to slot 0 at the offset and located and routed there; a batch goes to
 * consecutive slots above it; a copy-back reads the slot at the offset; an access to the DRAM part stays below
 * the offset, and the DRAM part's bytes are never written. */
static void dram_offset_places_the_region(void **state) {
  (void)state;
  hyb_part q;
  part_setup_wide(&q);
  mst_set_param(O->params, q.par, "dram_offset", OFF);
  mst_set_param(O->params, q.par, "dram_size", HYB_DRAM_PART);
  hyb_part_init(&q);
  static unsigned char below[OFF];
  for (uint32_t i = 0; i < OFF; ++i) below[i] = (unsigned char)(0xD5 ^ (i >> 8)); /* the placed arrays */
  memcpy(q.sh->dram, below, OFF);
  /* a segment in: written at the offset, then located and routed there */
  const uint64_t slot = promote(&q, 5);
  assert_int_equal(slot, OFF);
  assert_int_equal(q.sh->f.x[1].dev, 0);
  assert_int_equal(q.sh->f.x[1].write, 1);
  assert_int_equal(q.sh->f.x[1].addr, OFF);
  assert_memory_equal(q.sh->dram + OFF, q.sh->pcm + 5 * SEG, SEG);
  assert_int_equal(hyb_dram_addr(&q, 5 * SEG + 128), OFF + 128);
  memside_target t = acc(&q, 5, 1, 1, MEMSIDE_ROW_HIT);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, OFF + 128);
  memset(q.sh->dram + t.addr, 0xC3, 128); /* the write's bytes in the region */
  /* the DRAM part: flat, below the offset */
  const memside_req flat = {HYB_PCM_BYTES + 3 * 128, 0, MEMSIDE_DEMAND, 0xF};
  uint32_t ticket = 0;
  assert_int_equal(O->route(q.st, &flat, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_true(t.addr < OFF);
  O->complete(q.st, &flat, &t);
  /* the copy-back reads the slot at the offset and takes the written bytes home */
  int n = q.sh->f.n;
  q.sh->now = 5000u * TCK; /* far past 4 demotions + the low-end expiry */
  O->wake(q.st, q.sh->now, 0);
  assert_int_equal(hyb_stat(&q, "evictions_expired"), 1);
  assert_int_equal(q.sh->f.n, n + 1);
  assert_int_equal(q.sh->f.x[n].dev, 0);
  assert_int_equal(q.sh->f.x[n].write, 0);
  assert_int_equal(q.sh->f.x[n].addr, OFF);
  hyb_serve(&q);
  for (unsigned i = 0; i < 128; ++i) assert_int_equal(q.sh->pcm[5 * SEG + 128 + i], 0xC3);
  assert_int_equal(O->kind_of(q.st, hyb_pa_of(&q, 5 * SEG)), AMAP_MEM_NVM);
  /* a batch of three: consecutive slots in the region, one write */
  warm(&q, 1);
  warm(&q, 2);
  warm(&q, 3);
  n = q.sh->f.n;
  acc(&q, 3, 0, 0, MEMSIDE_ROW_MISS);
  assert_int_equal(q.sh->f.n, n + 1);
  assert_int_equal(q.sh->f.x[n].bytes, 3 * SEG);
  hyb_serve(&q);
  const memside_xfer w = q.sh->f.x[n + 1];
  assert_int_equal(w.dev, 0);
  assert_int_equal(w.write, 1);
  assert_int_equal(w.bytes, 3 * SEG);
  assert_true(w.addr >= OFF && w.addr + w.bytes <= OFF + HYB_DRAM_PART);
  assert_int_equal((w.addr - OFF) % SEG, 0);
  assert_memory_equal(q.sh->dram + w.addr, q.sh->pcm + SEG, 3 * SEG);
  assert_int_equal(route(&q, 2, 1, 0, &ticket, &t), MEMSIDE_GO);
  assert_int_equal(t.dev, 0);
  assert_int_equal(t.addr, w.addr + SEG + 128);
  answer(&q, 2, 1, 0, &t, MEMSIDE_ROW_HIT);
  /* every DRAM transfer in the region, the DRAM part untouched */
  for (int i = 0; i < q.sh->f.n; ++i)
    if (q.sh->f.x[i].dev == 0) {
      assert_true(q.sh->f.x[i].addr >= OFF);
      assert_int_equal((q.sh->f.x[i].addr - OFF) % SEG, 0);
    }
  assert_memory_equal(q.sh->dram, below, OFF);
  hyb_part_free(&q);
}

/* 9. dram_offset refused with the key named: not a multiple of 256 B (below and beyond the DRAM part), or a
 * multiple of 256 B inside the DRAM part (its bytes per channel, 64 KiB). At the part's end it is taken, and then
 * dram_size may exceed the part (with offset 0 it may not). */
static void bad_dram_offsets_refused(void **state) {
  (void)state;
  static const int64_t bad[] = {128, 300, OFF + 128, OFF + 300, 256, 4096, OFF - 256};
  hyb_part q;
  part_setup_wide(&q);
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    mst_set_param(O->params, q.par, "dram_offset", bad[i]);
    q.st = mst_state(O, &q.c);
    mst_init_refused(O, q.st, &q.c, &q.env, "memside.flrb.dram_offset");
    free(q.st);
  }
  mst_set_param(O->params, q.par, "dram_offset", 0);
  mst_set_param(O->params, q.par, "dram_size", 2 * HYB_DRAM_PART);
  q.st = mst_state(O, &q.c);
  mst_init_refused(O, q.st, &q.c, &q.env, "memside.flrb.dram_size");
  free(q.st);
  mst_set_param(O->params, q.par, "dram_offset", OFF);
  q.st = mst_state(O, &q.c);
  mst_init(O, q.st, &q.c, &q.env);
  hyb_part_free(&q);
}

/* The platform lets the program use the DRAM part (pc's placed arrays) exactly when the region lies beyond it. */
static void later_parts_flat_with_offset(void **state) {
  (void)state;
  memside_value par[16];
  mst_param_defaults(O->params, par, 16);
  assert_non_null(O->later_parts_flat);
  assert_int_equal(O->program_in_first_part, 1);
  assert_int_equal(O->later_parts_flat(par), 0);
  mst_set_param(O->params, par, "dram_offset", OFF);
  assert_int_equal(O->later_parts_flat(par), 1);
  assert_int_equal(O->later_parts_flat(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(candidate_after_two_misses),
      cmocka_unit_test(batch_of_same_row_neighbours),
      cmocka_unit_test(move_waits_for_accesses_in_flight),
      cmocka_unit_test(quota_defers_to_next_quantum),
      cmocka_unit_test(expiry_demotes),
      cmocka_unit_test(expiry_by_accesses),
      cmocka_unit_test(eviction_copies_back),
      cmocka_unit_test(dram_full_demotes_proactively),
      cmocka_unit_test(bad_setups_refused),
      cmocka_unit_test(dram_offset_places_the_region),
      cmocka_unit_test(bad_dram_offsets_refused),
      cmocka_unit_test(later_parts_flat_with_offset),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
