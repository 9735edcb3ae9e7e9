/* Unit tests of Unified Memory's page table and fault service (models/ref/memside/um.h): the tree-based
 * prefetch growing from a 64 KiB leaf to the 2 MiB region (a node fills once more than half of it is
 * there), merged faults, first touch (prefetch none: N pages streamed give N faults), the batch_max cut,
 * compulsory faults only when every page has a frame, eviction of the least recently used region
 * (um_touch order), tree pre-eviction taking a node that falls under half, regions of the batch's own
 * pages spared, the cut of a batch when frames are COMING, a LEAVING page faulted again, the access
 * counters (a leaf at the threshold queued once, only into free frames), and bad set-ups. After every step the frames invariant is checked against a recount of the page states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/um.h"

typedef struct tum {
  um u; /* first: a tum * is a um * */
  void *mem;
} tum;

static um *mk(uint64_t pages, uint64_t frames, uint8_t prefetch, uint32_t batch_max) {
  tum *t = calloc(1, sizeof *t);
  const um_cfg c = {pages, frames, prefetch, batch_max};
  t->mem = malloc(um_bytes(&c));
  char err[200];
  if (!t->mem || um_init(&t->u, &c, t->mem, err, sizeof err) != 0) fail_msg("um_init: %s", err);
  return &t->u;
}

static void rm(um *u) {
  tum *t = (tum *)(void *)u;
  free(t->mem);
  free(t);
}

/* Recounts every page, leaf and region and checks the frames rules and the counters um.c keeps. */
static void inv(const um *u) {
  uint64_t n[5] = {0, 0, 0, 0, 0};
  const uint64_t pages = u->cfg.pages, regions = (pages + UM_REGION_PAGES - 1) / UM_REGION_PAGES;
  for (uint64_t l = 0; l < regions * (UM_REGION_PAGES / UM_LEAF_PAGES); ++l) {
    uint64_t res = 0, coming = 0, busy = 0;
    for (uint64_t p = l * UM_LEAF_PAGES; p < (l + 1) * UM_LEAF_PAGES && p < pages; ++p) {
      assert_true(u->state[p] <= UM_LEAVING);
      n[u->state[p]]++;
      res += u->state[p] == UM_RESIDENT;
      coming += u->state[p] == UM_COMING;
      busy += u->state[p] == UM_COMING || u->state[p] == UM_LEAVING;
      assert_int_equal(u->mark[p] & 5u, 0); /* nothing chosen between batches */
    }
    assert_int_equal(u->leaf_res[l], res);
    assert_int_equal(u->leaf_coming[l], coming);
    assert_int_equal(u->leaf_busy[l], busy);
    assert_int_equal(u->leaf_chosen[l], 0);
  }
  uint64_t listed = 0, in_device = 0;
  for (uint64_t r = 0; r < regions; ++r) {
    uint64_t res = 0, used = 0;
    for (uint64_t p = r * UM_REGION_PAGES; p < (r + 1) * UM_REGION_PAGES && p < pages; ++p) {
      res += u->state[p] == UM_RESIDENT;
      used += u->state[p] >= UM_COMING;
    }
    assert_int_equal(u->region_res[r], res);
    assert_int_equal(u->region_used[r], used);
    assert_int_equal(u->region_chosen[r], 0);
    in_device += used > 0;
  }
  for (uint32_t r = u->lru_head; r != UINT32_MAX; r = u->lru_next[r]) {
    assert_true(u->region_used[r] > 0);
    if (u->lru_next[r] == UINT32_MAX) assert_int_equal(u->lru_tail, r);
    ++listed;
  }
  assert_int_equal(listed, in_device);
  const uint64_t f = u->cfg.frames;
  assert_true(n[UM_RESIDENT] + n[UM_COMING] <= f);
  assert_true(n[UM_RESIDENT] + n[UM_LEAVING] <= f);
  assert_true(u->handover <= n[UM_LEAVING]);
  assert_true(u->handover <= n[UM_COMING]);
  assert_int_equal(u->used, n[UM_COMING] + n[UM_RESIDENT] + n[UM_LEAVING] - u->handover);
  assert_true(u->used <= f);
  assert_true(u->st.resident_peak >= u->used);
  assert_int_equal(u->fault_n, n[UM_FAULTED]);
}

/* Page-outs of the last batch, then its page-ins, as the platform does (none faulted again). */
static void serve(um *u) {
  for (uint64_t i = 0; i < u->n_out; ++i) {
    assert_int_equal(um_page_out_done(u, u->out_list[i]), 0);
    inv(u);
  }
  for (uint64_t i = 0; i < u->n_in; ++i) {
    um_page_in_done(u, u->in_list[i]);
    inv(u);
  }
}

static uint64_t batch(um *u) {
  const uint64_t k = um_batch(u);
  assert_int_equal(k, u->n_in + u->n_out);
  inv(u);
  return k;
}

/* A new fault on `page`, its batch (which must bring `want_in` pages) and its service. */
static void fault1(um *u, uint64_t page, uint64_t want_in) {
  assert_int_equal(um_fault(u, page), 1);
  inv(u);
  (void)batch(u);
  assert_int_equal(u->n_in, want_in);
  assert_int_equal(u->in_list[0], page);
  serve(u);
}

static void fault_range(um *u, uint64_t first, uint64_t end) {
  for (uint64_t p = first; p < end; ++p) assert_int_equal(um_fault(u, p), 1);
  inv(u);
}

static uint64_t count_state(const um *u, uint64_t first, uint64_t end, uint8_t s) {
  uint64_t k = 0;
  for (uint64_t p = first; p < end; ++p) k += u->state[p] == s;
  return k;
}

static void tree_growth(void **state) {
  (void)state;
  um *u = mk(1024, 1024, UM_PREFETCH_TREE, 64);
  fault1(u, 5, 16); /* its 64 KiB leaf: 5, then 0..4, 6..15 */
  assert_int_equal(u->in_list[1], 0);
  assert_int_equal(u->in_list[5], 4);
  assert_int_equal(u->in_list[6], 6);
  assert_int_equal(u->in_list[15], 15);
  fault1(u, 35, 16); /* leaf 2: the 256 KiB node (leaves 0-3) holds exactly half: nothing more */
  assert_int_equal(u->in_list[1], 32);
  assert_int_equal(count_state(u, 16, 32, UM_ABSENT), 16);
  assert_int_equal(count_state(u, 48, 64, UM_ABSENT), 16);
  fault1(u, 23, 32); /* leaf 1: 3 of 4 leaves of the 256 KiB node: leaf 3 comes too */
  assert_int_equal(u->in_list[1], 16);
  assert_int_equal(u->in_list[15], 31);
  assert_int_equal(u->in_list[16], 48);
  assert_int_equal(u->in_list[31], 63);
  fault1(u, 64, 64);   /* leaf 4: 80 of the 512 KiB node's 128 pages: leaves 5-7 */
  assert_int_equal(u->in_list[1], 65);
  assert_int_equal(u->in_list[16], 80);
  assert_int_equal(u->in_list[63], 127);
  fault1(u, 128, 128); /* leaf 8: 144 of the 1 MiB node's 256: leaves 9-15 */
  assert_int_equal(u->in_list[127], 255);
  fault1(u, 256, 256); /* leaf 16: 272 of the region's 512: the whole 2 MiB region */
  assert_int_equal(u->in_list[16], 272);
  assert_int_equal(u->in_list[255], 511);
  assert_int_equal(count_state(u, 0, 512, UM_RESIDENT), 512);
  assert_int_equal(count_state(u, 512, 1024, UM_ABSENT), 512); /* the next region untouched */
  assert_int_equal(u->st.faults, 6);
  assert_int_equal(u->st.batches, 6);
  assert_int_equal(u->st.pages_in, 512);
  assert_int_equal(u->st.prefetched, 506);
  assert_int_equal(u->st.pages_out, 0);
  assert_int_equal(u->st.resident_peak, 512);
  rm(u);

  /* a region cut short by the tracked range: node sizes count only its 40 pages */
  u = mk(40, 40, UM_PREFETCH_TREE, 8);
  fault1(u, 33, 8); /* leaf 2 has 8 pages */
  fault1(u, 0, 32); /* leaves 0 and 2 hold 24 of the 256 KiB node's 40 pages (> half): leaf 1 */
  assert_int_equal(u->in_list[16], 16);
  assert_int_equal(u->in_list[31], 31);
  assert_int_equal(count_state(u, 0, 40, UM_RESIDENT), 40);
  rm(u);
}

static void tree_stream(void **state) {
  (void)state;
  /* a stream with one batch per fault: 16, 16, 32, 64, 128, 256 pages: 6 faults per 2 MiB region */
  um *u = mk(1024, 1024, UM_PREFETCH_TREE, 64);
  for (uint64_t p = 0; p < 1024; ++p) {
    if (um_page_state(u, p) == UM_RESIDENT) {
      um_touch(u, p);
      continue;
    }
    assert_int_equal(um_fault(u, p), 1);
    (void)batch(u);
    serve(u);
  }
  assert_int_equal(u->st.faults, 12);
  assert_int_equal(u->st.pages_in, 1024);
  assert_int_equal(u->st.prefetched, 1012);
  rm(u);
}

static void merging(void **state) {
  (void)state;
  um *u = mk(1024, 1024, UM_PREFETCH_TREE, 64);
  assert_int_equal(um_fault(u, 100), 1);
  assert_int_equal(um_fault(u, 100), 0); /* FAULTED: merged */
  assert_int_equal(u->st.faults, 1);
  assert_int_equal(u->st.fault_accesses, 2);
  assert_int_equal(um_pending(u), 1);
  assert_int_equal(um_batch(u), 16);
  inv(u);
  assert_int_equal(um_page_state(u, 100), UM_COMING);
  assert_int_equal(um_page_state(u, 101), UM_COMING);
  assert_int_equal(um_fault(u, 101), 0); /* COMING (a prefetch): merged */
  assert_int_equal(um_fault(u, 100), 0);
  assert_int_equal(u->st.faults, 1);
  assert_int_equal(u->st.fault_accesses, 4);
  assert_int_equal(um_pending(u), 0);
  serve(u);
  assert_int_equal(um_batch(u), 0); /* nothing pending */
  assert_int_equal(u->n_in, 0);
  assert_int_equal(u->st.batches, 1);
  assert_int_equal(um_page_state(u, 100), UM_RESIDENT);
  assert_int_equal(um_page_state(u, 0), UM_ABSENT);
  assert_int_equal(um_page_state(u, 5000), UM_RESIDENT); /* beyond the tracked range */
  assert_int_equal(um_fault(u, 5000), 0);
  um_touch(u, 5000);
  inv(u);
  rm(u);
}

static void stream_first_touch(void **state) {
  (void)state;
  /* prefetch none: 1000 pages streamed, batches of 8 faults: 1000 faults, 1000 pages in, 125 batches */
  um *u = mk(1000, 1024, UM_PREFETCH_NONE, 8);
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t p = 0; p < 1000; ++p) {
      if (um_page_state(u, p) == UM_RESIDENT) {
        um_touch(u, p);
        continue;
      }
      assert_int_equal(um_fault(u, p), 1);
      if (um_pending(u) == 8 || p == 999) {
        assert_int_equal(batch(u), 8); /* 1000 = 125 x 8 */
        serve(u);
      }
    }
  assert_int_equal(u->st.faults, 1000);
  assert_int_equal(u->st.fault_accesses, 1000);
  assert_int_equal(u->st.pages_in, 1000);
  assert_int_equal(u->st.batches, 125);
  assert_int_equal(u->st.prefetched, 0);
  assert_int_equal(u->st.pages_out, 0);
  assert_int_equal(u->st.deferred, 0);
  assert_int_equal(u->st.resident_peak, 1000);
  rm(u);
}

static void batch_max_cut(void **state) {
  (void)state;
  um *u = mk(1024, 1024, UM_PREFETCH_NONE, 3);
  const uint64_t order[5] = {10, 3, 7, 1, 5};
  for (int i = 0; i < 5; ++i) assert_int_equal(um_fault(u, order[i]), 1);
  assert_int_equal(batch(u), 3);
  assert_int_equal(u->in_list[0], 10);
  assert_int_equal(u->in_list[1], 3);
  assert_int_equal(u->in_list[2], 7);
  assert_int_equal(u->st.deferred, 2);
  assert_int_equal(um_pending(u), 2);
  assert_int_equal(um_page_state(u, 1), UM_FAULTED);
  serve(u);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->in_list[0], 1);
  assert_int_equal(u->in_list[1], 5);
  assert_int_equal(u->st.deferred, 2);
  assert_int_equal(u->st.batches, 2);
  assert_int_equal(um_pending(u), 0);
  serve(u);
  rm(u);
}

static void compulsory_only(void **state) {
  (void)state;
  /* frames for every page: scattered accesses fault each page in once and never evict */
  um *u = mk(2000, 2000, UM_PREFETCH_TREE, 16);
  uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = (x * 6364136223846793005ull + 1442695040888963407ull);
    const uint64_t p = (x >> 33) % 2000;
    if (um_page_state(u, p) == UM_RESIDENT) um_touch(u, p);
    else (void)um_fault(u, p);
    if (um_pending(u) >= 16) {
      (void)batch(u);
      serve(u);
    }
  }
  for (uint64_t p = 0; p < 2000; ++p)
    if (um_page_state(u, p) != UM_RESIDENT) (void)um_fault(u, p);
  while (um_pending(u) > 0) {
    (void)batch(u);
    serve(u);
  }
  assert_int_equal(count_state(u, 0, 2000, UM_RESIDENT), 2000);
  assert_int_equal(u->st.pages_in, 2000);
  assert_int_equal(u->st.faults + u->st.prefetched, 2000);
  assert_true(u->st.prefetched > 0);
  assert_int_equal(u->st.pages_out, 0);
  assert_int_equal(u->st.resident_peak, 2000);
  assert_int_equal(u->used, 2000);
  rm(u);
}

static void lru_by_touch(void **state) {
  (void)state;
  um *u = mk(2048, 1024, UM_PREFETCH_NONE, 1024);
  fault_range(u, 0, 512);
  (void)batch(u);
  serve(u);
  fault_range(u, 512, 1024);
  (void)batch(u);
  serve(u);
  assert_int_equal(u->used, 1024);
  um_touch(u, 5); /* region 0 most recent: region 1 is the least recently used */
  assert_int_equal(u->lru_head, 1);
  assert_int_equal(u->lru_tail, 0);
  assert_int_equal(um_fault(u, 1024), 1);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 512); /* page by page in address order: one page needed */
  assert_int_equal(u->in_list[0], 1024);
  assert_int_equal(u->handover, 1);
  assert_int_equal(u->used, 1024);
  serve(u);
  assert_int_equal(um_page_state(u, 512), UM_ABSENT);
  assert_int_equal(um_page_state(u, 513), UM_RESIDENT);
  um_touch(u, 513); /* order now 0, 2, 1 */
  um_touch(u, 513); /* already the most recent: unchanged */
  assert_int_equal(u->lru_head, 0);
  assert_int_equal(u->lru_next[0], 2);
  assert_int_equal(u->lru_tail, 1);
  assert_int_equal(um_fault(u, 1025), 1);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 0);
  serve(u);
  /* order 0, 1, 2: a batch into region 0, which already has pages, makes it the most recent */
  assert_int_equal(um_fault(u, 0), 1);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 513);
  serve(u);
  assert_int_equal(u->lru_tail, 0);
  assert_int_equal(um_fault(u, 512), 1); /* order 1, 2, 0: region 2 gives its first page */
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 1024);
  serve(u);
  assert_int_equal(u->st.pages_out, 4);
  assert_int_equal(u->st.resident_peak, 1024);
  assert_int_equal(u->used, 1024);
  rm(u);
}

static void tree_pre_eviction(void **state) {
  (void)state;
  um *u = mk(1536, 544, UM_PREFETCH_TREE, 64);
  fault1(u, 512, 16); /* region 1: leaves 32 and 34 */
  fault1(u, 544, 16);
  const uint64_t leaf_faults[6] = {0, 16, 32, 64, 128, 256}, leaf_in[6] = {16, 16, 32, 64, 128, 256};
  for (int i = 0; i < 6; ++i) fault1(u, leaf_faults[i], leaf_in[i]); /* region 0 whole */
  assert_int_equal(u->used, 544);
  assert_int_equal(u->st.pages_out, 0);
  /* region 1 is the least recently used: its leaf 32 goes, then its 256 KiB node holds 16 of 64 pages
   * (< half) and leaf 34 goes with it: 32 pages out for 16 needed */
  assert_int_equal(um_fault(u, 1024), 1);
  assert_int_equal(batch(u), 48);
  assert_int_equal(u->n_out, 32);
  assert_int_equal(u->out_list[0], 512);
  assert_int_equal(u->out_list[15], 527);
  assert_int_equal(u->out_list[16], 544);
  assert_int_equal(u->out_list[31], 559);
  assert_int_equal(u->handover, 16);
  assert_int_equal(u->used, 544);
  serve(u);
  assert_int_equal(u->used, 528);
  assert_int_equal(u->region_used[1], 0);
  fault1(u, 1056, 16); /* 16 free frames: no eviction */
  assert_int_equal(u->n_out, 0);
  /* region 0 (least recent now) loses leaf 0 only: its 128 KiB node keeps exactly half */
  assert_int_equal(um_fault(u, 1088), 1);
  assert_int_equal(batch(u), 32);
  assert_int_equal(u->n_out, 16);
  assert_int_equal(u->out_list[0], 0);
  assert_int_equal(u->out_list[15], 15);
  serve(u);
  assert_int_equal(u->st.pages_out, 48);
  assert_int_equal(u->st.resident_peak, 544);
  rm(u);
}

static void spares_own_regions(void **state) {
  (void)state;
  um *u = mk(1024, 512, UM_PREFETCH_NONE, 1024);
  fault_range(u, 0, 511);
  (void)batch(u);
  serve(u);
  fault_range(u, 600, 601);
  (void)batch(u);
  serve(u);
  /* region 0 is the least recent but holds the faulted page: region 1 gives its page */
  assert_int_equal(um_fault(u, 511), 1);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 600);
  serve(u);
  fault_range(u, 600, 602); /* region 0 is the only victim and holds none of them */
  assert_int_equal(batch(u), 4);
  assert_int_equal(u->out_list[0], 0);
  assert_int_equal(u->out_list[1], 1);
  serve(u);
  /* both regions hold a page of `in`: the least recent one (region 0) gives pages, never 0 or 1 */
  assert_int_equal(um_fault(u, 0), 1);
  assert_int_equal(um_fault(u, 700), 1);
  assert_int_equal(batch(u), 4);
  assert_int_equal(u->out_list[0], 2);
  assert_int_equal(u->out_list[1], 3);
  assert_int_equal(u->in_list[0], 0);
  assert_int_equal(u->in_list[1], 700);
  serve(u);
  assert_int_equal(u->st.deferred, 0);
  assert_int_equal(u->st.pages_out, 5);
  rm(u);
}

static void cut_when_frames_coming(void **state) {
  (void)state;
  um *u = mk(1024, 512, UM_PREFETCH_NONE, 1024);
  fault_range(u, 0, 512);
  assert_int_equal(batch(u), 512); /* every frame COMING */
  assert_int_equal(um_fault(u, 900), 1);
  assert_int_equal(um_batch(u), 0); /* nothing can be evicted: the fault waits */
  inv(u);
  assert_int_equal(u->n_in, 0);
  assert_int_equal(um_page_state(u, 900), UM_FAULTED);
  assert_int_equal(u->st.deferred, 1);
  um_page_in_done(u, 0);
  um_page_in_done(u, 1);
  inv(u);
  fault_range(u, 901, 904);
  assert_int_equal(batch(u), 4); /* 2 evictable pages: 900, 901 in, 902, 903 back to the buffer */
  assert_int_equal(u->in_list[0], 900);
  assert_int_equal(u->in_list[1], 901);
  assert_int_equal(u->out_list[0], 0);
  assert_int_equal(u->out_list[1], 1);
  assert_int_equal(u->st.deferred, 3);
  assert_int_equal(um_page_state(u, 902), UM_FAULTED);
  assert_int_equal(um_fault(u, 950), 1);
  serve(u);
  for (uint64_t p = 2; p < 512; ++p) um_page_in_done(u, p);
  inv(u);
  assert_int_equal(batch(u), 6); /* fault order kept: the cut pages first */
  assert_int_equal(u->in_list[0], 902);
  assert_int_equal(u->in_list[1], 903);
  assert_int_equal(u->in_list[2], 950);
  assert_int_equal(u->out_list[0], 2);
  assert_int_equal(u->out_list[2], 4);
  serve(u);
  assert_int_equal(u->st.pages_in, 517);
  rm(u);

  /* with tree prefetch the prefetched pages are cut first, from the end */
  u = mk(1024, 512, UM_PREFETCH_TREE, 64);
  for (uint64_t p = 0; p < 512; p += 16) assert_int_equal(um_fault(u, p), 1);
  assert_int_equal(batch(u), 512);
  assert_int_equal(u->st.prefetched, 480);
  for (uint64_t p = 0; p < 16; ++p) um_page_in_done(u, p);
  inv(u);
  assert_int_equal(um_fault(u, 600), 1);
  assert_int_equal(um_fault(u, 700), 1);
  assert_int_equal(batch(u), 32); /* 32 wanted, leaf 0's 16 evictable */
  assert_int_equal(u->n_out, 16);
  assert_int_equal(u->n_in, 16);
  assert_int_equal(u->in_list[0], 600);
  assert_int_equal(u->in_list[1], 592);
  assert_int_equal(u->in_list[9], 601);
  assert_int_equal(u->in_list[14], 606);
  assert_int_equal(u->in_list[15], 700);
  assert_int_equal(um_page_state(u, 607), UM_ABSENT);
  assert_int_equal(um_page_state(u, 688), UM_ABSENT);
  assert_int_equal(u->st.prefetched, 494);
  assert_int_equal(u->st.deferred, 0);
  serve(u);
  for (uint64_t p = 16; p < 512; ++p) um_page_in_done(u, p);
  inv(u);
  rm(u);
}

static void leaving_faults_again(void **state) {
  (void)state;
  um *u = mk(1024, 512, UM_PREFETCH_NONE, 1024);
  fault_range(u, 0, 512);
  (void)batch(u);
  serve(u);
  assert_int_equal(um_fault(u, 600), 1);
  assert_int_equal(batch(u), 2);
  assert_int_equal(u->out_list[0], 0);
  assert_int_equal(um_fault(u, 0), 0); /* LEAVING: marked wanted */
  assert_int_equal(u->st.faults, 513);
  assert_int_equal(um_page_out_done(u, 0), 1);
  inv(u);
  assert_int_equal(um_page_state(u, 0), UM_FAULTED);
  assert_int_equal(u->st.faults, 514);
  assert_int_equal(um_pending(u), 1);
  assert_int_equal(um_page_out_done(u, 0), 0); /* no longer LEAVING */
  um_page_in_done(u, 600);
  inv(u);
  assert_int_equal(batch(u), 2); /* region 0 holds page 0: region 1 gives page 600 */
  assert_int_equal(u->in_list[0], 0);
  assert_int_equal(u->out_list[0], 600);
  serve(u);
  assert_int_equal(um_page_state(u, 0), UM_RESIDENT);
  assert_int_equal(u->st.resident_peak, 512);
  rm(u);
}

/* Access counters: remote accesses count per 64 KiB leaf; the threshold-th queues exactly the leaf's absent
 * pages (no prefetch), the count restarts, nothing is evicted; with the frames all used a leaf stays remote. */
static void access_counters(void **state) {
  (void)state;
  um *u = mk(2048, 512, UM_PREFETCH_NONE, 256);
  u->cfg.counter_threshold = 4;
  /* page 5's leaf (pages 0..15): three remote accesses count, the fourth queues the leaf */
  for (int k = 0; k < 3; ++k) assert_int_equal(um_remote(u, 5), 0);
  assert_int_equal(u->leaf_count[0], 3);
  assert_int_equal(um_pending(u), 0);
  assert_int_equal(um_remote(u, 9), 1); /* another page of the same leaf */
  assert_int_equal(um_pending(u), 16);
  assert_int_equal(u->leaf_count[0], 0);
  assert_int_equal(u->st.counter_migrations, 1);
  inv(u);
  /* queued pages are still served remotely and counted, but not queued twice */
  for (int k = 0; k < 8; ++k) assert_int_equal(um_remote(u, 3), 0);
  assert_int_equal(um_pending(u), 16);
  (void)batch(u);
  assert_int_equal(u->n_in, 16);
  assert_int_equal(u->n_out, 0);
  assert_int_equal(u->st.prefetched, 0);
  assert_int_equal(u->st.faults, 0); /* a migration, not a fault */
  serve(u);
  assert_int_equal(count_state(u, 0, 16, UM_RESIDENT), 16);
  /* fill the remaining 496 frames with 31 leaves: 16 .. 511 */
  for (uint64_t leaf = 1; leaf < 32; ++leaf)
    for (int k = 0; k < 4; ++k) (void)um_remote(u, leaf * 16);
  assert_int_equal(um_pending(u), 496);
  (void)batch(u);
  assert_int_equal(u->n_in, 256); /* batch_max: the first 256 queued */
  serve(u);
  (void)batch(u);
  assert_int_equal(u->n_in, 240);
  serve(u);
  assert_int_equal(u->used, 512);
  /* memory full: a hot leaf stays remote, nothing is evicted */
  for (int k = 0; k < 10; ++k) assert_int_equal(um_remote(u, 1000), 0);
  assert_int_equal(u->st.counter_full, 7); /* counts 4 .. 10 */
  assert_int_equal(um_pending(u), 0);
  assert_int_equal(u->st.pages_out, 0);
  assert_int_equal(u->st.remote_accesses, 4 + 8 + 31 * 4 + 10);
  inv(u);
  rm(u);
}

static void bad_cfgs(void **state) {
  (void)state;
  um u;
  char err[200];
  static uint8_t mem[1 << 16];
  struct {
    um_cfg c;
    const char *key;
  } bad[] = {
      {{0, 1024, UM_PREFETCH_TREE, 1}, "um.pages"},
      {{1000, 511, UM_PREFETCH_TREE, 1}, "um.frames"},
      {{100, 99, UM_PREFETCH_NONE, 1}, "um.frames"},
      {{1000, 1000, UM_PREFETCH_TREE, 0}, "um.batch_max"},
      {{1000, 1000, 7, 1}, "um.prefetch"},
      {{1ull << 32, 1ull << 32, UM_PREFETCH_TREE, 1}, "um.pages"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    err[0] = 0;
    assert_int_equal(um_init(&u, &bad[i].c, mem, err, sizeof err), -1);
    assert_non_null(strstr(err, bad[i].key));
    assert_null(strchr(err, '\n'));
  }
  const um_cfg ok_small = {100, 100, UM_PREFETCH_NONE, 1}; /* fewer frames than a region, but one per page */
  const um_cfg ok_region = {1000, 512, UM_PREFETCH_TREE, 1};
  assert_true(um_bytes(&ok_region) <= sizeof mem);
  assert_int_equal(um_init(&u, &ok_small, mem, err, sizeof err), 0);
  assert_int_equal(um_init(&u, &ok_region, mem, err, sizeof err), 0);
  assert_int_equal(um_page_state(&u, 999), UM_ABSENT);
  assert_int_equal(um_bytes(&bad[5].c), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tree_growth),        cmocka_unit_test(tree_stream),
      cmocka_unit_test(merging),            cmocka_unit_test(stream_first_touch),
      cmocka_unit_test(batch_max_cut),      cmocka_unit_test(compulsory_only),
      cmocka_unit_test(lru_by_touch),       cmocka_unit_test(tree_pre_eviction),
      cmocka_unit_test(spares_own_regions), cmocka_unit_test(cut_when_frames_coming),
      cmocka_unit_test(leaving_faults_again), cmocka_unit_test(access_counters), cmocka_unit_test(bad_cfgs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
