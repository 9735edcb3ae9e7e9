/* um: Unified Memory's GPU-wide page table and fault service (decisions only).
 *
 * Sources: HMS paper (../shared/papers/hms-dram-cache-over-scm.txt) Sec. II-A/B and IV-A, Table I
 * (20 us fault handling, PCIe 12.8 GB/s at 1/5 scale), footnote 3 (first touch); the UM model of its
 * ref. [46] (Ganguly et al., ISCA 2019): the tree-based neighbourhood prefetcher (TBNp) and
 * pre-eviction (TBNe), LRU order of 2 MiB regions.
 *
 * What this model decides: which 4 KiB pages are resident in device memory, which faults form a batch,
 * which pages a batch brings in (the faulted ones and what the prefetcher adds) and which it sends back
 * to make room. Time, transfers over the host link and the holding of faulted accesses belong to the
 * platform (the UM driver module and the memory-side shells, docs/um.md); it calls in here at fixed
 * points, one call at a time, so the same seed gives the same decisions.
 *
 * Geometry. Pages are 4 KiB (UM_PAGE), numbered from physical address 0 (page = pa / 4096). A region
 * is 2 MiB (UM_REGION_PAGES = 512 pages), the root of a full binary tree whose 32 leaves are 64 KiB
 * basic blocks (UM_LEAF_PAGES = 16 pages); node sizes 64 KiB, 128 KiB, ..., 2 MiB (6 levels).
 *
 * Page states:
 *   ABSENT   on the host (every page at the start: "input data were initially in host memory")
 *   FAULTED  an access found it ABSENT; it waits in the fault buffer for the next batch
 *   COMING   a batch moves it in (the platform's page-in is under way)
 *   RESIDENT in device memory
 *   LEAVING  a batch sends it back to the host (page-out under way)
 * ABSENT -> FAULTED -> COMING -> RESIDENT -> LEAVING -> ABSENT; a prefetched page goes ABSENT -> COMING.
 *
 * Frames. A RESIDENT or LEAVING page holds a frame; a COMING page holds a free frame, or the frame of a
 * page the same batch evicts (handed over: the platform pages a batch's in list in only after its out
 * list is out). So used = COMING + RESIDENT + LEAVING - handover (COMING pages still waiting for a
 * LEAVING page's frame) never exceeds cfg.frames, and neither do RESIDENT + COMING nor RESIDENT + LEAVING.
 * A batch that needs more frames than are free first picks pages to evict (they hold their frames as
 * LEAVING until the platform reports their page-out done, then hand them to the batch's COMING pages),
 * and brings in only what then fits. (COMING + RESIDENT + LEAVING <= frames cannot hold: an evicted page
 * is still LEAVING when the page that takes its frame becomes COMING.)
 *
 * A batch (um_batch, called by the platform when the fault-handling latency has passed):
 *   1. takes the FAULTED pages in the order they faulted, at most cfg.batch_max of them (the rest stay
 *      FAULTED for the next batch);
 *   2. in = the faulted pages, plus with prefetch = TREE, for each faulted page in fault order:
 *        a. the rest of its 64 KiB leaf (every ABSENT page of the leaf);
 *        b. walking up from the leaf to the 2 MiB root: a node whose pages are resident or already
 *           chosen (RESIDENT, COMING, or in `in`) make up more than half of it (> 50 %) gets all its
 *           ABSENT pages added; the walk goes on to the parent (a node at or under half stops nothing:
 *           the walk goes on up, each node judged on its own). Strictly more than half, as in the UM
 *           simulator of ref. [46] the HMS paper used: with >= 50 % a full leaf is half of its parent,
 *           so a region's first fault would bring all 2 MiB, not the 4 KiB .. 1 MiB of Sec. IV-A. One
 *           fault brings its 64 KiB leaf; a 256 KiB node fills when 3 of its 4 leaves are there.
 *           A node's size counts only tracked pages (the last region may end before 2 MiB);
 *      with prefetch = NONE: the faulted pages only (first touch, 4 KiB each);
 *   3. need = |in| - free frames (free = frames - used). While need > 0, an
 *      eviction victim: the least recently used region (um_touch order; step 5 makes the regions
 *      of `in` most recent) that has RESIDENT pages, excluding regions that hold a page of `in`
 *      (then, if no other region has any, those too, but never a page of `in`). From the victim, with
 *      TREE: its RESIDENT pages leaf by leaf in address order; after each leaf, walking up, a node
 *      whose RESIDENT pages have fallen under half of it (< 50 %) loses all of them too (TBNe: the
 *      neighbourhood goes with it; a node with no RESIDENT page is left alone, a node at exactly half
 *      keeps its pages, as in ref. [46]'s simulator); stop once need <= 0 and the walk of the last leaf
 *      is done (so TREE may evict more than need: the surplus frames come free at page-out). With
 *      NONE: its RESIDENT pages one by one in address order until need <= 0.
 *      Evicted pages become LEAVING (out list, in the order chosen).
 *   4. if free frames plus the pages evicted in step 3 still do not suffice (every other page is COMING
 *      or LEAVING), `in` is cut from the end:
 *      prefetched pages first, then faulted pages; a cut faulted page stays FAULTED (next batch), a cut
 *      prefetched page stays ABSENT;
 *   5. pages of `in` become COMING (in list, in the order chosen: faulted page, its prefetches, next
 *      faulted page, ...; each page once); their regions become the most recently used, in in-list order.
 * The platform then pages out the out list, and once every page-out is done (um_page_out_done for
 * each), pages in the in list (um_page_in_done for each), and releases the accesses held on them.
 *
 * Memory: one block of um_bytes(cfg) owned by the caller; calls never allocate and never print.
 */
#ifndef STRATA_UM_H
#define STRATA_UM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UM_PAGE 4096u
#define UM_LEAF_PAGES 16u    /* 64 KiB basic block: a tree leaf */
#define UM_REGION_PAGES 512u /* 2 MiB region: a tree root */
#define UM_LEVELS 6u         /* 64 KiB .. 2 MiB */

enum um_state { UM_ABSENT = 0, UM_FAULTED = 1, UM_COMING = 2, UM_RESIDENT = 3, UM_LEAVING = 4 };
enum um_prefetch { UM_PREFETCH_TREE = 0, UM_PREFETCH_NONE = 1 };

typedef struct um_cfg {
  uint64_t pages;       /* pages tracked: the program's address range / 4 KiB, rounded up (>= 1) */
  uint64_t frames;      /* device page frames (>= UM_REGION_PAGES, or >= pages) */
  uint8_t prefetch;     /* enum um_prefetch */
  uint32_t batch_max;   /* faulted pages one batch takes (>= 1) */
  /* Access counters (NVLink, HMS Sec. IV-A): 0 = off (every access to a page not resident faults); n > 0 =
   * a page not resident is read and written remotely, at cacheline granularity, and counted per 64 KiB
   * leaf (um_remote); a leaf whose count reaches n while enough frames are free has its absent pages queued
   * for migration (they go through the fault buffer and a batch like faulted pages, with no prefetch). */
  uint32_t counter_threshold;
} um_cfg;

typedef struct um_stats {
  uint64_t faults;            /* pages that went ABSENT -> FAULTED (what the driver services) */
  uint64_t fault_accesses;    /* um_fault calls (accesses that found their page not resident, each once) */
  uint64_t batches;           /* um_batch calls that took at least one fault */
  uint64_t pages_in;          /* pages that went COMING (faulted and prefetched) */
  uint64_t prefetched;        /* of those, pages the prefetcher added */
  uint64_t pages_out;         /* pages that went LEAVING */
  uint64_t resident_peak;     /* largest `used` (frames in use) seen */
  uint64_t deferred;          /* faulted pages a batch left for the next one (batch_max or no frames) */
  uint64_t remote_accesses;   /* um_remote calls: accesses served from host memory directly (access counters) */
  uint64_t counter_migrations; /* leaves whose access count queued their absent pages for migration */
  uint64_t counter_full;      /* counts at the threshold that found too few free frames (the leaf stays remote) */
} um_stats;

typedef struct um {
  um_cfg cfg;
  uint8_t *state;             /* per page: enum um_state */
  uint64_t used;              /* frames in use: COMING + RESIDENT + LEAVING - handover (<= cfg.frames) */
  uint64_t handover;          /* COMING pages whose frame a LEAVING page hands over at its page-out done */
  /* implementation state (region LRU list, fault FIFO, per-leaf counts) follows; see um.c */
  uint32_t *fault_q;          /* FAULTED pages in fault order (ring of cfg.pages entries) */
  uint64_t fault_head, fault_n;
  uint32_t *lru_prev, *lru_next; /* per region: doubly linked LRU list (UINT32_MAX: none) */
  uint32_t lru_head, lru_tail;   /* least / most recently used region in the list */
  uint16_t *leaf_res;         /* per leaf: RESIDENT pages */
  uint16_t *leaf_busy;        /* per leaf: COMING + LEAVING pages */
  uint16_t *leaf_coming;      /* per leaf: COMING pages */
  uint16_t *leaf_chosen;      /* per leaf: pages in the running batch's `in` (0 between batches) */
  uint16_t *leaf_count;       /* per leaf: remote accesses since its last migration (access counters; saturating) */
  uint16_t *region_res;       /* per region: RESIDENT pages */
  uint16_t *region_chosen;    /* per region: pages in the running batch's `in` (0 between batches) */
  uint16_t *region_used;      /* per region: COMING + RESIDENT + LEAVING (a region is in the LRU list
                                 while this is > 0) */
  uint32_t *in_list, *out_list; /* the last batch's decisions (each at most cfg.pages entries) */
  uint64_t n_in, n_out;
  uint8_t *mark;              /* per page: bit 0 chosen by the running batch, bit 1 wanted while LEAVING,
                                 bit 2 chosen as a prefetch */
  um_stats st;
} um;

/* Bytes of the block for cfg. */
size_t um_bytes(const um_cfg *cfg);

/* Set up *u over `mem` (um_bytes(cfg) bytes, zeroed here): every page ABSENT. Returns 0, or -1 with a
 * one-line reason in err (pages 0, frames below one region and below pages, batch_max 0, more than
 * 2^32 - 1 pages). */
int um_init(um *u, const um_cfg *cfg, void *mem, char *err, size_t errlen);

/* The page's state (pages beyond cfg.pages: UM_RESIDENT -- outside the tracked range nothing pages). */
static inline uint8_t um_page_state(const um *u, uint64_t page) {
  return page < u->cfg.pages ? u->state[page] : (uint8_t)UM_RESIDENT;
}

/* An access found `page` not RESIDENT: 1 when the page went ABSENT -> FAULTED (a new fault; the platform
 * starts the fault-handling latency if no batch is pending), 0 when it was already FAULTED or COMING
 * (merged: the access waits for the same service) or LEAVING (the page is marked wanted: when its
 * page-out is done it faults again, see um_page_out_done). Counts fault_accesses either way. */
int um_fault(um *u, uint64_t page);

/* Access counters (cfg.counter_threshold > 0): an access of `page`, ABSENT or FAULTED, served remotely
 * (from host memory over the link, cacheline granularity; the platform routes it). Counts remote_accesses
 * and the page's 64 KiB leaf; when the leaf's count is at the threshold or above and the frames free after
 * the pages already queued (cfg.frames - used - fault_n) hold the leaf's ABSENT pages, those become
 * FAULTED at the end of the fault buffer, the count restarts at 0 and the call returns 1 (the platform
 * starts the fault-handling latency if no batch is pending); else 0 (counter_full counts a count at the
 * threshold that found too few frames: access counters migrate only into free memory, so with the frames
 * all used a cold leaf stays remote). */
int um_remote(um *u, uint64_t page);

/* An access of a RESIDENT page: its region becomes the most recently used (O(1); pages beyond
 * cfg.pages and regions with no page in device memory are left alone). */
void um_touch(um *u, uint64_t page);

/* Pages waiting in the fault buffer. */
static inline uint64_t um_pending(const um *u) { return u->fault_n; }

/* Decide a batch (steps 1-5 above). Results in u->in_list[0 .. n_in) and u->out_list[0 .. n_out).
 * Returns n_in + n_out (0: nothing to do: no faults pending, or every frame is COMING or LEAVING and
 * nothing can be evicted; the faults stay pending, call again after a page-in or page-out is done). */
uint64_t um_batch(um *u);

/* The platform finished moving a page in: COMING -> RESIDENT. */
void um_page_in_done(um *u, uint64_t page);
/* The platform finished moving a page out: LEAVING -> ABSENT, or -> FAULTED (a new fault, counted, at the
 * end of the fault buffer) when an access faulted on it while it was leaving; returns 1 then, else 0. */
int um_page_out_done(um *u, uint64_t page);

#ifdef __cplusplus
}
#endif
#endif
