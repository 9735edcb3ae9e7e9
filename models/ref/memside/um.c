/* um: Unified Memory's GPU-wide page table and fault service (decisions only); the rules are in um.h.
 *
 * Sources: HMS paper (../shared/papers/hms-dram-cache-over-scm.txt) Sec. II-A (UM, 4 KiB faults, TBN
 * prefetch and pre-eviction of NVIDIA GPUs) and IV-A (input data start in host memory; TBN migrates
 * 4 KiB .. 1 MiB adaptively; footnote 3, first touch); its ref. [46] (Ganguly et al., ISCA 2019) for
 * the tree of a 2 MiB region over 64 KiB basic blocks: prefetch fills a node that is more than half
 * valid, pre-eviction empties a node that is less than half valid, regions in LRU order.
 *
 * Book-keeping: a byte of state and a byte of marks per page; per 64 KiB leaf the RESIDENT, COMING and
 * chosen pages, so a node's count is the sum over its leaves (at most 32); per 2 MiB region its
 * RESIDENT, chosen and in-device pages and its place in a doubly linked LRU list (um_touch is O(1)).
 * A batch costs O(pages of the regions it touches plus the regions it walks for a victim). */
#include "um.h"

#include <stdio.h>
#include <string.h>

#define UM_NONE UINT32_MAX
#define UM_LEAVES_PER_REGION (UM_REGION_PAGES / UM_LEAF_PAGES) /* 32 */

enum { MARK_CHOSEN = 1u, MARK_WANTED = 2u, MARK_PREFETCH = 4u };

static uint64_t regions_of(uint64_t pages) { return (pages + UM_REGION_PAGES - 1) / UM_REGION_PAGES; }

size_t um_bytes(const um_cfg *cfg) {
  if (cfg->pages == 0 || cfg->pages > UINT32_MAX) return 0;
  const uint64_t p = cfg->pages, r = regions_of(p), l = r * UM_LEAVES_PER_REGION;
  /* u32: fault_q, in_list, out_list (per page), lru_prev, lru_next (per region); u16: five per leaf,
   * three per region; u8: state, mark (per page) */
  const uint64_t b = 3 * p * 4 + 2 * r * 4 + 5 * l * 2 + 3 * r * 2 + 2 * p;
  return b > SIZE_MAX ? 0 : (size_t)b;
}

int um_init(um *u, const um_cfg *cfg, void *mem, char *err, size_t errlen) {
  if (cfg->pages == 0) {
    snprintf(err, errlen, "um.pages: expected >= 1 (the program's address range in 4 KiB pages), got 0");
    return -1;
  }
  if (cfg->pages > UINT32_MAX) {
    snprintf(err, errlen, "um.pages: expected at most %u (4 KiB pages), got %llu", UINT32_MAX,
             (unsigned long long)cfg->pages);
    return -1;
  }
  if (cfg->frames < UM_REGION_PAGES && cfg->frames < cfg->pages) {
    snprintf(err, errlen,
             "um.frames: expected at least one 2 MiB region (%u frames) or one per page (%llu), got %llu",
             UM_REGION_PAGES, (unsigned long long)cfg->pages, (unsigned long long)cfg->frames);
    return -1;
  }
  if (cfg->prefetch != UM_PREFETCH_TREE && cfg->prefetch != UM_PREFETCH_NONE) {
    snprintf(err, errlen, "um.prefetch: expected tree (%d) or none (%d), got %u", UM_PREFETCH_TREE,
             UM_PREFETCH_NONE, (unsigned)cfg->prefetch);
    return -1;
  }
  if (cfg->batch_max == 0) {
    snprintf(err, errlen, "um.batch_max: expected >= 1 (faulted pages one batch takes), got 0");
    return -1;
  }
  const size_t bytes = um_bytes(cfg);
  if (bytes == 0) {
    snprintf(err, errlen, "um.pages: %llu pages do not fit this host's address space",
             (unsigned long long)cfg->pages);
    return -1;
  }
  memset(u, 0, sizeof *u);
  memset(mem, 0, bytes);
  u->cfg = *cfg;
  const uint64_t p = cfg->pages, r = regions_of(p), l = r * UM_LEAVES_PER_REGION;
  uint8_t *m = mem;
  u->fault_q = (uint32_t *)(void *)m, m += p * 4;
  u->in_list = (uint32_t *)(void *)m, m += p * 4;
  u->out_list = (uint32_t *)(void *)m, m += p * 4;
  u->lru_prev = (uint32_t *)(void *)m, m += r * 4;
  u->lru_next = (uint32_t *)(void *)m, m += r * 4;
  u->leaf_res = (uint16_t *)(void *)m, m += l * 2;
  u->leaf_busy = (uint16_t *)(void *)m, m += l * 2;
  u->leaf_coming = (uint16_t *)(void *)m, m += l * 2;
  u->leaf_chosen = (uint16_t *)(void *)m, m += l * 2;
  u->leaf_count = (uint16_t *)(void *)m, m += l * 2;
  u->region_res = (uint16_t *)(void *)m, m += r * 2;
  u->region_chosen = (uint16_t *)(void *)m, m += r * 2;
  u->region_used = (uint16_t *)(void *)m, m += r * 2;
  u->state = m, m += p;
  u->mark = m;
  memset(u->lru_prev, 0xff, (size_t)(2 * r * 4)); /* UM_NONE: no region listed */
  u->lru_head = u->lru_tail = UM_NONE;
  return 0;
}

/* ---- region LRU list (head: least recently used) ---- */

/* Takes r out of the list; 0 when it was not in it. */
static int lru_unlink(um *u, uint32_t r) {
  const uint32_t p = u->lru_prev[r], n = u->lru_next[r];
  if (p == UM_NONE && u->lru_head != r) return 0;
  if (p != UM_NONE) u->lru_next[p] = n;
  else u->lru_head = n;
  if (n != UM_NONE) u->lru_prev[n] = p;
  else u->lru_tail = p;
  u->lru_prev[r] = u->lru_next[r] = UM_NONE;
  return 1;
}

static void lru_append(um *u, uint32_t r) {
  u->lru_prev[r] = u->lru_tail;
  u->lru_next[r] = UM_NONE;
  if (u->lru_tail != UM_NONE) u->lru_next[u->lru_tail] = r;
  else u->lru_head = r;
  u->lru_tail = r;
}

void um_touch(um *u, uint64_t page) {
  if (page >= u->cfg.pages) return;
  const uint32_t r = (uint32_t)(page / UM_REGION_PAGES);
  if (r == u->lru_tail) return;
  if (lru_unlink(u, r)) lru_append(u, r);
}

/* ---- fault buffer: a ring of cfg.pages entries (a page is FAULTED at most once at a time) ---- */

static void fq_push(um *u, uint32_t page) {
  uint64_t i = u->fault_head + u->fault_n;
  if (i >= u->cfg.pages) i -= u->cfg.pages;
  u->fault_q[i] = page;
  u->fault_n++;
}

static void fq_push_front(um *u, uint32_t page) {
  u->fault_head = (u->fault_head == 0 ? u->cfg.pages : u->fault_head) - 1;
  u->fault_q[u->fault_head] = page;
  u->fault_n++;
}

static uint32_t fq_pop(um *u) {
  const uint32_t page = u->fault_q[u->fault_head];
  if (++u->fault_head == u->cfg.pages) u->fault_head = 0;
  u->fault_n--;
  return page;
}

int um_fault(um *u, uint64_t page) {
  u->st.fault_accesses++;
  if (page >= u->cfg.pages) return 0;
  switch (u->state[page]) {
  case UM_ABSENT:
    u->state[page] = UM_FAULTED;
    fq_push(u, (uint32_t)page);
    u->st.faults++;
    return 1;
  case UM_LEAVING:
    u->mark[page] |= MARK_WANTED;
    return 0;
  default: /* FAULTED or COMING: merged with the pending service */
    return 0;
  }
}

/* ---- access counters (HMS Sec. IV-A: "the dynamic access counter scheme for NVLink, which considers the
 * amount of free memory capacity and access frequency to migrate hot pages to the GPU while cold data is
 * accessed directly from the remote memory in cacheline granularity") ---- */

int um_remote(um *u, uint64_t page) {
  u->st.remote_accesses++;
  if (page >= u->cfg.pages || !u->cfg.counter_threshold) return 0;
  const uint64_t leaf = page / UM_LEAF_PAGES;
  if (u->leaf_count[leaf] < UINT16_MAX) u->leaf_count[leaf]++;
  if (u->leaf_count[leaf] < u->cfg.counter_threshold) return 0;
  const uint64_t start = leaf * UM_LEAF_PAGES, end = start + UM_LEAF_PAGES < u->cfg.pages ? start + UM_LEAF_PAGES
                                                                                       : u->cfg.pages;
  uint64_t absent = 0;
  for (uint64_t q = start; q < end; ++q) absent += u->state[q] == UM_ABSENT;
  if (!absent) return 0; /* queued or moving already */
  const uint64_t taken = u->used + u->fault_n;
  if (taken >= u->cfg.frames || u->cfg.frames - taken < absent) {
    u->st.counter_full++;
    return 0;
  }
  for (uint64_t q = start; q < end; ++q)
    if (u->state[q] == UM_ABSENT) {
      u->state[q] = UM_FAULTED;
      fq_push(u, (uint32_t)q);
    }
  u->leaf_count[leaf] = 0;
  u->st.counter_migrations++;
  return 1;
}

/* ---- a batch ---- */

/* [start, end) of the node of `level` (0: the 64 KiB leaf .. 5: the 2 MiB region) holding leaf `leaf`,
 * clipped to the tracked pages; its first leaf and leaf count. */
typedef struct node {
  uint64_t start, end, leaf0;
  uint32_t leaves;
} node;

static node node_of(const um *u, uint64_t leaf, unsigned level) {
  node n;
  n.leaves = 1u << level;
  n.leaf0 = leaf & ~(uint64_t)(n.leaves - 1);
  n.start = n.leaf0 * UM_LEAF_PAGES;
  n.end = n.start + (uint64_t)n.leaves * UM_LEAF_PAGES;
  if (n.end > u->cfg.pages) n.end = u->cfg.pages;
  return n;
}

static void choose(um *u, uint64_t page, uint8_t prefetch) {
  u->mark[page] |= (uint8_t)(MARK_CHOSEN | prefetch);
  u->leaf_chosen[page / UM_LEAF_PAGES]++;
  u->region_chosen[page / UM_REGION_PAGES]++;
  u->in_list[u->n_in++] = (uint32_t)page;
}

static void unchoose(um *u, uint64_t page) {
  u->mark[page] &= (uint8_t)~(MARK_CHOSEN | MARK_PREFETCH);
  u->leaf_chosen[page / UM_LEAF_PAGES]--;
  u->region_chosen[page / UM_REGION_PAGES]--;
}

/* Every ABSENT page of [start, end) not yet chosen joins `in` as a prefetch. */
static void choose_absent(um *u, uint64_t start, uint64_t end) {
  for (uint64_t p = start; p < end; ++p)
    if (u->state[p] == UM_ABSENT && !(u->mark[p] & MARK_CHOSEN)) choose(u, p, MARK_PREFETCH);
}

/* TBNp for faulted page f (um.h step 2a-b). */
static void prefetch_tree(um *u, uint64_t f) {
  const uint64_t leaf = f / UM_LEAF_PAGES;
  node n = node_of(u, leaf, 0);
  choose_absent(u, n.start, n.end);
  for (unsigned level = 1; level < UM_LEVELS; ++level) {
    n = node_of(u, leaf, level);
    uint64_t have = 0;
    for (uint64_t l = n.leaf0; l < n.leaf0 + n.leaves; ++l)
      have += (uint64_t)u->leaf_res[l] + u->leaf_coming[l] + u->leaf_chosen[l];
    const uint64_t size = n.end - n.start;
    if (2 * have > size && have < size) choose_absent(u, n.start, n.end);
  }
}

static void evict_page(um *u, uint64_t page) {
  u->state[page] = UM_LEAVING;
  u->leaf_res[page / UM_LEAF_PAGES]--;
  u->leaf_busy[page / UM_LEAF_PAGES]++;
  u->region_res[page / UM_REGION_PAGES]--;
  u->out_list[u->n_out++] = (uint32_t)page;
}

/* Every RESIDENT page of [start, end) becomes LEAVING; returns how many. */
static uint64_t evict_range(um *u, uint64_t start, uint64_t end) {
  uint64_t k = 0;
  for (uint64_t p = start; p < end; ++p)
    if (u->state[p] == UM_RESIDENT) evict_page(u, p), ++k;
  return k;
}

/* Evicts from region r until `want` pages went (um.h step 3); returns how many went (with TREE possibly
 * more than `want`: the last leaf's neighbourhood goes whole). */
static uint64_t evict_region(um *u, uint64_t r, uint64_t want) {
  uint64_t got = 0;
  const uint64_t l0 = r * UM_LEAVES_PER_REGION;
  for (uint64_t leaf = l0; leaf < l0 + UM_LEAVES_PER_REGION && got < want; ++leaf) {
    if (u->leaf_res[leaf] == 0) continue;
    node n = node_of(u, leaf, 0);
    if (u->cfg.prefetch == UM_PREFETCH_NONE) {
      for (uint64_t p = n.start; p < n.end && got < want; ++p)
        if (u->state[p] == UM_RESIDENT) evict_page(u, p), ++got;
      continue;
    }
    got += evict_range(u, n.start, n.end);
    for (unsigned level = 1; level < UM_LEVELS; ++level) { /* TBNe: a node under half loses the rest */
      n = node_of(u, leaf, level);
      uint64_t res = 0;
      for (uint64_t l = n.leaf0; l < n.leaf0 + n.leaves; ++l) res += u->leaf_res[l];
      if (res > 0 && 2 * res < n.end - n.start) got += evict_range(u, n.start, n.end);
    }
  }
  return got;
}

/* Victims in region LRU order until `need` pages went: first regions holding no page of `in`, then, if
 * those ran out, the others. Returns the pages evicted. */
static uint64_t evict(um *u, uint64_t need) {
  uint64_t got = 0;
  for (int pass = 0; pass < 2 && got < need; ++pass)
    for (uint32_t r = u->lru_head; r != UM_NONE && got < need; r = u->lru_next[r])
      if (u->region_res[r] != 0 && (pass == 1 || u->region_chosen[r] == 0)) got += evict_region(u, r, need - got);
  return got;
}

/* Drops k pages from the end of `in`: prefetched pages first, then faulted ones, which go back to the
 * front of the fault buffer in fault order (um.h step 4). */
static void cut(um *u, uint64_t k) {
  for (uint64_t i = u->n_in; i-- > 0 && k > 0;) {
    const uint32_t p = u->in_list[i];
    if (!(u->mark[p] & MARK_PREFETCH)) continue;
    unchoose(u, p);
    u->in_list[i] = UM_NONE;
    --k;
  }
  for (uint64_t i = u->n_in; i-- > 0 && k > 0;) {
    const uint32_t p = u->in_list[i];
    if (p == UM_NONE) continue;
    unchoose(u, p);
    fq_push_front(u, p);
    u->st.deferred++;
    u->in_list[i] = UM_NONE;
    --k;
  }
  uint64_t w = 0;
  for (uint64_t i = 0; i < u->n_in; ++i)
    if (u->in_list[i] != UM_NONE) u->in_list[w++] = u->in_list[i];
  u->n_in = w;
}

uint64_t um_batch(um *u) {
  u->n_in = u->n_out = 0;
  if (u->fault_n == 0) return 0;
  u->st.batches++;
  /* 1-2: the faults in fault order, each with its neighbourhood */
  const uint64_t take = u->fault_n < u->cfg.batch_max ? u->fault_n : u->cfg.batch_max;
  for (uint64_t k = 0; k < take; ++k) {
    const uint32_t f = fq_pop(u);
    choose(u, f, 0);
    if (u->cfg.prefetch == UM_PREFETCH_TREE) prefetch_tree(u, f);
  }
  u->st.deferred += u->fault_n;
  /* 3: evict for what does not fit the free frames */
  const uint64_t free_frames = u->cfg.frames - u->used;
  uint64_t evicted = 0;
  if (u->n_in > free_frames) evicted = evict(u, u->n_in - free_frames);
  /* 4: bring in only what fits */
  if (u->n_in > free_frames + evicted) cut(u, u->n_in - free_frames - evicted);
  /* 5: COMING, on free frames first, then on the frames of this batch's evicted pages */
  const uint64_t handed = u->n_in > free_frames ? u->n_in - free_frames : 0;
  u->handover += handed;
  u->used += u->n_in - handed;
  for (uint64_t i = 0; i < u->n_in; ++i) {
    const uint32_t p = u->in_list[i];
    if (u->mark[p] & MARK_PREFETCH) u->st.prefetched++;
    unchoose(u, p);
    u->state[p] = UM_COMING;
    u->leaf_coming[p / UM_LEAF_PAGES]++;
    u->leaf_busy[p / UM_LEAF_PAGES]++;
    const uint32_t r = p / UM_REGION_PAGES;
    u->region_used[r]++;
    if (r != u->lru_tail) {
      (void)lru_unlink(u, r);
      lru_append(u, r);
    }
  }
  u->st.pages_in += u->n_in;
  u->st.pages_out += u->n_out;
  if (u->used > u->st.resident_peak) u->st.resident_peak = u->used;
  return u->n_in + u->n_out;
}

void um_page_in_done(um *u, uint64_t page) {
  if (page >= u->cfg.pages || u->state[page] != UM_COMING) return;
  u->state[page] = UM_RESIDENT;
  u->leaf_coming[page / UM_LEAF_PAGES]--;
  u->leaf_busy[page / UM_LEAF_PAGES]--;
  u->leaf_res[page / UM_LEAF_PAGES]++;
  u->region_res[page / UM_REGION_PAGES]++;
}

int um_page_out_done(um *u, uint64_t page) {
  if (page >= u->cfg.pages || u->state[page] != UM_LEAVING) return 0;
  u->leaf_busy[page / UM_LEAF_PAGES]--;
  const uint32_t r = (uint32_t)(page / UM_REGION_PAGES);
  if (--u->region_used[r] == 0) (void)lru_unlink(u, r);
  if (u->handover > 0) u->handover--; /* the frame passes to a COMING page */
  else u->used--;
  if (u->mark[page] & MARK_WANTED) {
    u->mark[page] &= (uint8_t)~MARK_WANTED;
    u->state[page] = UM_FAULTED;
    fq_push(u, (uint32_t)page);
    u->st.faults++;
    return 1;
  }
  u->state[page] = UM_ABSENT;
  return 0;
}
