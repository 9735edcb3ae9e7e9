/* memside_swap / memside_swap_forget: the worked example of the memory-side
 * interface (docs/architecture.md "Memory-side controllers", docs/extending.md).
 * Its parameters (memside.swap.*) are declared below (SWAP_PARAMS). After
 * `after` routed accesses, the partition holding physical address `a`
 * exchanges the device segments (`segment` bytes, aligned in device-address
 * space) holding a and b:
 *   1. hold new accesses to either segment (route returns MEMSIDE_HOLD);
 *   2. drain: wait until the accesses to them already routed have been
 *      answered (complete), so no device queue still holds one;
 *   3. read both segments with transfers of class MIGRATION, 128 B each;
 *   4. write each segment's bytes to the other's location;
 *   5. switch the mapping, release the held accesses.
 * Every other line, and every other partition, stays where the static map
 * puts it. With the platform's GPU-wide manager (memside_mgr.h) the policy
 * counts every access it routes in the shared page counters, and the
 * exchange starts only once the manager grants its bytes (2 x segment) from
 * the migration budget of the current quantum: a partition refused there
 * asks again at its next routed access.
 *
 * swap_forget does step 5 alone at the same moment: it moves the mapping
 * without the bytes, the data-loss bug every migration policy must not have.
 * It exists so the tests can show that the golden-memory checker (--check)
 * catches it (tests/integration: memside_swap_forget_caught).
 */
#include <stdio.h>
#include <string.h>

#include "memside.h"
#include "memside_mgr.h"

#define SWAP_MAX_SEG 1024u
#define SWAP_MIN_SEG 128u

/* The parameters, memside.swap.<name>: X(index, name, type, default, min, max, doc). */
#define SWAP_PARAMS(X)                                                                                        \
  X(SWAP_A, "a", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 50),                                                \
    "policies swap / swap_forget: a physical address in the first segment to exchange")                      \
  X(SWAP_B, "b", MEMSIDE_P_SIZE, "4096", 0, (double)(1ull << 50),                                             \
    "policies swap / swap_forget: a physical address in the second segment (same memory partition as a)")    \
  X(SWAP_AFTER, "after", MEMSIDE_P_INT, "1000", 1, 9.2e18,                                                     \
    "policies swap / swap_forget: the exchange starts after this many accesses routed by a's partition")     \
  X(SWAP_SEGMENT, "segment", MEMSIDE_P_SIZE, "256", SWAP_MIN_SEG, SWAP_MAX_SEG,                                \
    "policies swap / swap_forget: segment bytes (a power of two, aligned in device-address space)")

enum {
#define X(id, nm, ty, def, lo, hi, doc) id,
  SWAP_PARAMS(X)
#undef X
  SWAP_NPARAMS
};

static const memside_param swap_param[] = {
#define X(id, nm, ty, def, lo, hi, doc) {nm, ty, def, lo, hi, NULL, doc, NULL, NULL},
    SWAP_PARAMS(X)
#undef X
};

static const memside_params swap_params = {"memside.swap.", swap_param, SWAP_NPARAMS, NULL};

enum swap_phase { SW_IDLE, SW_DRAIN, SW_READ, SW_WRITE, SW_DONE };

typedef struct swap_st {
  memside_cfg cfg;
  memside_env env;
  uint64_t a, b, after;       /* the parameters */
  uint32_t seg_bytes;
  memside_mgr *mgr;           /* the GPU-wide manager, or NULL */
  int forget;
  int active;                 /* this partition holds the two segments */
  memside_target seg[2];      /* device location of each segment's first byte */
  uint64_t routed;
  uint32_t inflight[2];       /* routed accesses to each segment not answered yet */
  uint32_t outstanding;       /* own transfers not completed */
  unsigned phase;             /* enum swap_phase */
  memside_stats st;
  unsigned char buf[2][SWAP_MAX_SEG];
} swap_st;

static size_t swap_state_bytes(const memside_cfg *cfg) {
  (void)cfg;
  return sizeof(swap_st);
}

/* Segment (0 or 1) holding device location t before the swap, or -1. */
static int seg_of(const swap_st *s, const memside_target *t) {
  for (int k = 0; k < 2; ++k)
    if (t->dev == s->seg[k].dev && t->addr >= s->seg[k].addr && t->addr < s->seg[k].addr + s->seg_bytes)
      return k;
  return -1;
}

static int partition_dev(const memside_cfg *cfg, uint64_t pa) {
  const uint32_t ch = amap_channel(cfg->map, pa);
  for (uint32_t d = 0; d < cfg->ndevs; ++d)
    if (cfg->dev_channel[d] == ch) return (int)d;
  return -1;
}

static int init_common(void *st, const memside_cfg *cfg, const memside_env *env, int forget, char *err,
                       size_t errlen) {
  swap_st *s = (swap_st *)st;
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->env = *env;
  s->forget = forget;
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  s->a = (uint64_t)cfg->param[SWAP_A].i;
  s->b = (uint64_t)cfg->param[SWAP_B].i;
  s->after = (uint64_t)cfg->param[SWAP_AFTER].i;
  s->seg_bytes = (uint32_t)cfg->param[SWAP_SEGMENT].i;
  s->mgr = cfg->mgr;
  const uint32_t sb = s->seg_bytes;
  if (sb < SWAP_MIN_SEG || sb > SWAP_MAX_SEG || (sb & (sb - 1))) {
    snprintf(err, errlen, "memside.swap.segment: expected a power of two from %u to %u bytes, got %u", SWAP_MIN_SEG,
             SWAP_MAX_SEG, sb);
    return -1;
  }
  const int da = partition_dev(cfg, s->a), db = partition_dev(cfg, s->b);
  if ((da < 0) != (db < 0)) {
    snprintf(err, errlen,
             "memside.swap.a and memside.swap.b: expected two addresses of the same memory partition, got "
             "partitions %u and %u",
             amap_channel(cfg->map, s->a), amap_channel(cfg->map, s->b));
    return -1;
  }
  if (da < 0) return 0; /* another partition's pair: this one stays flat */
  memside_static_locate(cfg, s->a, &s->seg[0]);
  memside_static_locate(cfg, s->b, &s->seg[1]);
  for (int k = 0; k < 2; ++k) s->seg[k].addr &= ~(uint64_t)(sb - 1);
  if (s->seg[0].dev == s->seg[1].dev && s->seg[0].addr == s->seg[1].addr) {
    snprintf(err, errlen, "memside.swap.a and memside.swap.b: expected addresses in two different %u B segments", sb);
    return -1;
  }
  s->active = 1;
  return 0;
}

static int swap_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return init_common(st, cfg, env, 0, err, errlen);
}
static int swap_forget_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  return init_common(st, cfg, env, 1, err, errlen);
}

/* The static location of pa, exchanged between the segments once swapped. */
static void swap_locate(const void *st, uint64_t pa, memside_target *out) {
  const swap_st *s = (const swap_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (s->phase != SW_DONE) return;
  const int k = seg_of(s, out);
  if (k < 0) return;
  const memside_target *to = &s->seg[1 - k];
  out->addr = to->addr + (out->addr - s->seg[k].addr);
  out->dev = to->dev;
  devaddr_loc l;
  devaddr_decode(&s->cfg.geom[to->dev], out->addr, &l);
  out->kind = s->cfg.rank_kind[to->dev][l.ra];
}

/* One transfer per segment (one request; the device controller splits it into lines). */
static void issue_all(swap_st *s, int write) {
  for (int k = 0; k < 2; ++k) {
    /* reads: segment k into buf[k]; writes: buf[k] to the other segment */
    const memside_target *at = write ? &s->seg[1 - k] : &s->seg[k];
    memside_xfer x = {at->dev, at->addr, s->seg_bytes, (uint8_t)write, MEMSIDE_MIGRATION, s->buf[k],
                      (uint64_t)k};
    if (s->env.issue(s->env.ctx, &x) == 0) ++s->outstanding; /* 2 transfers < MEMSIDE_XFER_SLOTS */
    if (write) s->st.moved_bytes += s->seg_bytes;
  }
}

static void start_copy_when_drained(swap_st *s) {
  if (s->phase == SW_DRAIN && !s->inflight[0] && !s->inflight[1]) {
    s->phase = SW_READ;
    issue_all(s, 0);
  }
}

static int swap_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  (void)ticket;
  swap_st *s = (swap_st *)st;
  swap_locate(s, rq->pa, out);
  if (s->mgr) (void)memside_mgr_count(s->mgr, rq->pa);
  if (!s->active) return MEMSIDE_GO;
  const int k = seg_of(s, out);
  if (k >= 0 && (s->phase == SW_DRAIN || s->phase == SW_READ || s->phase == SW_WRITE)) return MEMSIDE_HOLD;
  if (k >= 0 && s->phase != SW_DONE) ++s->inflight[k];
  ++s->routed;
  if (s->phase == SW_IDLE && s->routed >= s->after &&
      (!s->mgr || memside_mgr_take_budget(s->mgr, 2ull * s->seg_bytes))) {
    if (s->forget) { /* the bug on purpose: the mapping moves, the bytes do not */
      s->phase = SW_DONE;
      ++s->st.remaps;
    } else {
      s->phase = SW_DRAIN;
      start_copy_when_drained(s);
    }
  }
  return MEMSIDE_GO;
}

static void swap_complete(void *st, const memside_req *rq, const memside_target *t) {
  (void)rq;
  swap_st *s = (swap_st *)st;
  if (!s->active || s->phase == SW_DONE) return;
  const int k = seg_of(s, t);
  if (k >= 0 && s->inflight[k]) --s->inflight[k];
  start_copy_when_drained(s);
}

static void swap_done(void *st, uint64_t tag) {
  (void)tag;
  swap_st *s = (swap_st *)st;
  if (--s->outstanding) return;
  if (s->phase == SW_READ) {
    s->phase = SW_WRITE;
    issue_all(s, 1);
  } else if (s->phase == SW_WRITE) {
    s->phase = SW_DONE;
    s->st.moves += 2;
    ++s->st.remaps;
    s->env.release(s->env.ctx, 0);
  }
}

static int swap_busy(const void *st) {
  const swap_st *s = (const swap_st *)st;
  return s->phase == SW_DRAIN || s->phase == SW_READ || s->phase == SW_WRITE;
}

static void swap_stats(const void *st, memside_stats *out) { *out = ((const swap_st *)st)->st; }

/* The two policies differ in their name and init only. */
#define SWAP_OPS(sym, nm, description, init_fn)                                                       \
  const memside_ops sym = {                                                                          \
      .name = nm, .desc = description, .state_bytes = swap_state_bytes, .init = init_fn,             \
      .locate = swap_locate, .route = swap_route, .complete = swap_complete, .done = swap_done,      \
      .busy = swap_busy, .stats = swap_stats, .params = &swap_params,                                \
  };

SWAP_OPS(memside_swap_ops, "swap",
         "worked example: exchanges two device segments (data and mapping) after a number of accesses", swap_init)
SWAP_OPS(memside_swap_forget_ops, "swap_forget",
         "test policy: exchanges two segments' mapping WITHOUT their data (--check must catch it)", swap_forget_init)
