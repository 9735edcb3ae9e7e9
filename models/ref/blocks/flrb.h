/* flrb: FLRB segment-descriptor multi-queue (C reference model).
 *
 * Paper: hybrid-dram-pcm-flrb-placement.txt, Sec. IV "Parallelism-Conscious
 * Migration" and "Space Overhead". The memory controller keeps a descriptor
 * per recently used 256 B segment: idx (segment index in the channel), clr
 * (position bit: 0 = PCM, 1 = DRAM), exptm (expiration time), refcnt
 * (reference count, PCM writes weigh 3) and rbmcnt (row-buffer misses).
 * Descriptors sit in M = 8 LRU queues by reference-count range; expired queue
 * heads are demoted (or leave from queue 0); a PCM segment in queue >= m with
 * >= n row-buffer misses is a migration candidate, and its same-row
 * neighbours in the same queue are migrated with it (batch migration).
 *
 * This is the code the hybrid-memory controller runs and the golden model of
 * rtl/flrb/flrb.sv: testbenches/flrb compares both transaction by transaction.
 * All numbers come from rtl/params/flrb.toml (generated flrb_params.h).
 *
 * Decisions where the paper is silent (also in docs/rtl/flrb.md):
 *  D1 Queue of a descriptor is a function of refcnt only (the 64-bit
 *     descriptor of "Space Overhead" has no queue field): queue 0 holds
 *     refcnt 0, queue i (1 <= i < M-1) holds [2^(i-1), 2^i) -- the paper's
 *     range -- and the high-end queue M-1 holds [2^(M-2), 2^REF_W - 1].
 *     A new descriptor is created and counted in the same access, so it
 *     starts in queue >= 1; queue 0 is reached only by demotion.
 *  D2 Demotion (expired head of queue q > 0) halves refcnt and clamps it to
 *     the top of queue q-1's range, so the descriptor lands exactly in q-1;
 *     its exptm is refreshed (now + LIFETIME) as in the multi-queue algorithm
 *     the paper builds on (RaPP / MQ), otherwise it would cascade to eviction.
 *     rbmcnt and clr are kept.
 *  D3 Expiry: times are TIME_W-bit and compared modulo 2^TIME_W (serial-number
 *     arithmetic): a descriptor is expired when now is strictly after exptm,
 *     i.e. bit TIME_W-1 of (exptm - now) is set. Correct while every
 *     descriptor is examined less than 2^(TIME_W-1) cycles after it expires
 *     (tick() at least once every few thousand cycles keeps that true).
 *  D4 tick() examines one queue per call, round robin 0,1,..,M-1, and acts
 *     on at most one descriptor (its head).
 *  D5 On a hit, clr is not changed by the access (set_position() is the only
 *     writer); is_pcm of the access decides the write weight. A created
 *     descriptor gets clr = !is_pcm.
 *  D6 Lookup structure: a hash of 2^BKT_W buckets with WAYS slots each
 *     (bounded probing = one bucket). bucket = low BKT_W bits of idx XOR the
 *     XOR-fold (BKT_W-bit chunks) of the upper bits; the slot stores only
 *     the upper SEG_W-BKT_W bits (tag) and the descriptor pointer.
 *     New entries take the lowest free slot of the bucket.
 *  D7 Eviction on create: if the bucket is full, the slot whose descriptor
 *     has the smallest refcnt (ties: lowest slot) is evicted ("bucket
 *     conflict"); else if all CAP descriptors are in use, the head (LRU) of
 *     the lowest non-empty queue is evicted ("capacity"). At most one
 *     eviction per access. An evicted DRAM-resident descriptor (clr = 1)
 *     asks for a copy-back to PCM (paper: "copied back to the original
 *     place in PCM"); a PCM one is simply released.
 *  D8 Candidate: after the access, queue >= CAND_QUEUE, rbmcnt >= CAND_RBM
 *     and clr = 0 (PCM). Reported on every such access (the caller's
 *     bandwidth quota decides whether it migrates now).
 *  D9 Neighbours: the descriptors of the other ROW_SEGS-1 segments of the
 *     same row (idx >> ROW_SEGS_W equal) that exist, are in the same queue
 *     as the queried segment and live in PCM; returned as a bit mask
 *     (bit k = segment row_base + k; the queried segment's own bit is 0).
 */
#ifndef STRATA_FLRB_H
#define STRATA_FLRB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flrb_params.h"

#define FLRB_NIL 0xFFFFFFFFu       /* null descriptor pointer */
#define FLRB_SEG_MASK ((1u << FLRB_SEG_W) - 1u)
#define FLRB_TIME_MASK ((1u << FLRB_TIME_W) - 1u)
#define FLRB_REF_MAX ((1u << FLRB_REF_W) - 1u)
#define FLRB_RBM_MAX ((1u << FLRB_RBM_W) - 1u)
#define FLRB_MAX_WAYS 8u
#define FLRB_MAX_CAP_W 16u

/* Operation codes; the same encoding drives the RTL's req_op_i. */
typedef enum flrb_op {
  FLRB_OP_ACCESS = 0,   /* look up or create, count, refresh, promote, candidate */
  FLRB_OP_TICK = 1,     /* examine the head of the next queue (round robin) */
  FLRB_OP_SETPOS = 2,   /* set clr after a migration */
  FLRB_OP_LOOKUP = 3,   /* read a descriptor, no state change */
  FLRB_OP_NEIGH = 4     /* same-row neighbours in the same queue (batch migration) */
} flrb_op;

/* Sizes and thresholds. flrb_cfg_default() gives the paper's values from
 * flrb_params.h; tests use smaller structures. */
typedef struct flrb_cfg {
  uint32_t cap_w;          /* log2 descriptor capacity, 1..FLRB_MAX_CAP_W */
  uint32_t bkt_w;          /* log2 hash buckets, 1..FLRB_SEG_W-1 */
  uint32_t ways;           /* slots per bucket, 1..FLRB_MAX_WAYS */
  uint32_t lifetime;       /* exptm = now + lifetime, < 2^(TIME_W-1) */
  uint32_t cand_queue;     /* m, < FLRB_NQ */
  uint32_t cand_rbm;       /* n, <= FLRB_RBM_MAX */
  uint32_t pcm_wr_weight;  /* refcnt increment of a PCM write, 1..FLRB_REF_MAX */
} flrb_cfg;

/* One request (the testbench drives the same fields into the RTL). */
typedef struct flrb_req {
  flrb_op op;
  uint32_t seg;        /* segment index, < 2^SEG_W (ACCESS/SETPOS/LOOKUP/NEIGH) */
  bool is_write;       /* ACCESS */
  bool is_pcm;         /* ACCESS: the access was served by PCM */
  bool rbm;            /* ACCESS: the access missed the row buffer */
  bool clr;            /* SETPOS: new position (0 = PCM, 1 = DRAM) */
  uint64_t now;        /* ACCESS/TICK: current memory cycle (used mod 2^TIME_W) */
} flrb_req;

/* One response. Every field is defined for every op (0 when not
 * applicable), so C and RTL responses compare field by field. */
typedef struct flrb_resp {
  uint32_t op;        /* echo of the request op */
  bool found;         /* ACCESS: descriptor existed; SETPOS/LOOKUP/NEIGH: exists;
                         TICK: the examined queue was non-empty */
  uint32_t seg;       /* subject descriptor: request seg, or the examined head (TICK) */
  uint32_t queue;     /* subject's queue after the op (TICK evict: queue 0) */
  bool clr;           /* subject's fields after the op (0 when !found) */
  uint32_t exptm;
  uint32_t refcnt;
  uint32_t rbmcnt;
  bool cand;          /* ACCESS: migration candidate (D8) */
  bool ev_valid;      /* a descriptor left the structure (ACCESS evict, TICK evict) */
  bool ev_conf;       /* ACCESS eviction was a bucket conflict (else capacity) */
  bool ev_copyback;   /* the evicted descriptor was DRAM-resident: copy back to PCM */
  uint32_t ev_seg;    /* evicted segment index */
  bool demoted;       /* TICK: the head expired and moved to queue-1 */
  uint32_t tick_q;    /* TICK: the queue examined */
  uint32_t mask;      /* NEIGH: neighbour bit mask (D9) */
  uint32_t occ;       /* descriptors in use after the op */
} flrb_resp;

/* Internal state; fields are public for tests and the checker only. */
typedef struct flrb_desc {
  uint32_t seg, exptm, refcnt, rbmcnt;
  bool clr;
} flrb_desc;

typedef struct flrb_slot {
  bool valid;
  uint32_t tag;        /* seg >> bkt_w */
  uint32_t ptr;        /* descriptor index */
} flrb_slot;

typedef struct flrb {
  flrb_cfg cfg;
  uint32_t cap, nbkt;
  flrb_desc *d;        /* [cap] */
  uint32_t *nx, *pv;   /* [cap] queue links (nx also links the free list) */
  flrb_slot *slot;     /* [nbkt * ways] */
  uint32_t head[FLRB_NQ], tail[FLRB_NQ], cnt[FLRB_NQ];
  uint32_t fhead;      /* free-list head (released descriptors) */
  uint32_t fresh;      /* descriptors never used yet: fresh..cap-1 */
  uint32_t occ;        /* descriptors in use */
  uint32_t rr;         /* next queue tick() examines */
} flrb;

/* Fill cfg with the paper's parameters (flrb_params.h). */
void flrb_cfg_default(flrb_cfg *cfg);

/* Validate cfg, allocate the arrays and reset. Returns 0, -1 on a bad cfg
 * (nothing allocated), -2 when out of memory. The caller owns f and must
 * call flrb_free(). */
int flrb_init(flrb *f, const flrb_cfg *cfg);
/* Bytes of the arrays of a cfg (0 for a cfg flrb_init refuses). */
size_t flrb_mem_bytes(const flrb_cfg *cfg);
/* flrb_init with the arrays in the caller's mem (flrb_mem_bytes(cfg) bytes, aligned for uint32_t, owned
 * by the caller; nothing allocated, do not call flrb_free). Returns 0, or -1 on a bad cfg. */
int flrb_init_in(flrb *f, const flrb_cfg *cfg, void *mem);
/* Release the arrays of an initialised f (flrb_init's). */
void flrb_free(flrb *f);
/* Empty every queue and the hash (hardware reset). Never allocates. */
void flrb_reset(flrb *f);

/* Queue number of a reference count (decision D1). */
uint32_t flrb_queue_of(uint32_t refcnt);
/* Bucket index of a segment (decision D6). */
uint32_t flrb_bucket(uint32_t seg, uint32_t bkt_w);

/* Access to segment seg at time now: look up, or create (evicting per D7);
 * add pcm_wr_weight (PCM write) or 1 to refcnt, 1 to rbmcnt on a row-buffer
 * miss (both saturating), exptm = now + lifetime, move to the tail of the
 * queue of the new refcnt. Fills r (found, fields, cand, eviction).
 * Returns 0, or -1 when seg >= 2^SEG_W (no state change, r zeroed). */
int flrb_access(flrb *f, uint32_t seg, bool is_write, bool is_pcm, bool rbm,
                uint64_t now, flrb_resp *r);
/* Examine the head of queue rr (then rr = rr+1 mod M). If it expired:
 * queue > 0 -> demote (D2, r->demoted); queue 0 -> remove it, r->ev_valid,
 * r->ev_copyback when it was in DRAM (the caller copies the segment back).
 * Returns 0. */
int flrb_tick(flrb *f, uint64_t now, flrb_resp *r);
/* After a migration: set the position bit of seg's descriptor.
 * Returns 1 if the descriptor exists, 0 if not (no change), -1 bad seg. */
int flrb_set_position(flrb *f, uint32_t seg, bool clr, flrb_resp *r);
/* Read seg's descriptor without changing anything. Returns 1/0/-1 as above. */
int flrb_lookup(flrb *f, uint32_t seg, flrb_resp *r);
/* Batch migration (D9): r->mask = same-row neighbours of seg in seg's queue
 * living in PCM. Returns 1/0/-1 as flrb_lookup (mask 0 when absent). */
int flrb_neighbours(flrb *f, uint32_t seg, flrb_resp *r);
/* Dispatch one request by op (what the RTL does). Returns the value of the
 * called function, -1 for an unknown op. */
int flrb_exec(flrb *f, const flrb_req *q, flrb_resp *r);

/* For event-driven callers (no per-cycle polling): cycles from now until the
 * first queue head expires, i.e. until a tick can act at all: 0 when one is
 * already expired, UINT32_MAX when the structure is empty. Pure query, O(M).
 * A caller that skips ticks while nothing can expire gets the same results as
 * ticking every cycle only if it still advances the round-robin pointer, so
 * it should call flrb_tick once per elapsed cycle from that time on (or
 * accept the coarser check order, which the paper leaves open). */
uint32_t flrb_cycles_to_expiry(const flrb *f, uint64_t now);
/* Whether a TIME_W-bit exptm is expired at TIME_W-bit time now (D3). */
bool flrb_expired(uint32_t exptm, uint32_t now);
/* Full structural check (lists, counts, free list, hash <-> descriptors,
 * queue ranges). Returns 0 or a negative code naming the first violation.
 * O(cap); for tests and debug builds, not for the hot path. */
int flrb_check(const flrb *f);

/* The FLRB engine as a swappable block (blocks.h; blocks.flrb): one request at a time as the RTL takes them
 * (flrb_exec's contract: every response field defined for every op), plus the event-driven caller's query,
 * on a state block of state_bytes(cfg) bytes (aligned for uint64_t) that the caller owns. An implementation
 * must agree with the C reference on every field of every response. Nothing allocates. */
typedef struct flrb_ops {
  const char *name;  /* blocks.flrb value */
  const char *desc;  /* one line */
  size_t (*state_bytes)(const flrb_cfg *cfg);
  int (*init)(void *st, const flrb_cfg *cfg);  /* 0, or -1 on a bad cfg */
  int (*exec)(void *st, const flrb_req *q, flrb_resp *r);
  uint32_t (*cycles_to_expiry)(const void *st, uint64_t now);
} flrb_ops;

/* This file's C reference as implementation "c" (its state: an flrb and its arrays). */
extern const flrb_ops flrb_c_ops;

#endif
