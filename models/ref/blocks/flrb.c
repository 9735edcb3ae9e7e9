/* flrb: FLRB segment-descriptor multi-queue (C reference). See flrb.h for the
 * behaviour and the decisions D1..D9; rtl/flrb/flrb.sv implements the same
 * state machine on RAM arrays (descriptor RAM, prev/next link RAMs, one RAM
 * per hash way), so the internal pointer choices below match the RTL too. */
#include "flrb.h"

#include <stdlib.h>
#include <string.h>

void flrb_cfg_default(flrb_cfg *cfg) {
  cfg->cap_w = FLRB_CAP_W;
  cfg->bkt_w = FLRB_BKT_W;
  cfg->ways = FLRB_WAYS;
  cfg->lifetime = FLRB_LIFETIME;
  cfg->cand_queue = FLRB_CAND_QUEUE;
  cfg->cand_rbm = FLRB_CAND_RBM;
  cfg->pcm_wr_weight = FLRB_PCM_WR_WEIGHT;
}

static int cfg_ok(const flrb_cfg *c) {
  return c->cap_w >= 1 && c->cap_w <= FLRB_MAX_CAP_W && c->bkt_w >= 1 && c->bkt_w < FLRB_SEG_W &&
         c->ways >= 1 && c->ways <= FLRB_MAX_WAYS && c->lifetime < (1u << (FLRB_TIME_W - 1)) &&
         c->cand_queue < FLRB_NQ && c->cand_rbm <= FLRB_RBM_MAX && c->pcm_wr_weight >= 1 &&
         c->pcm_wr_weight <= FLRB_REF_MAX;
}

int flrb_init(flrb *f, const flrb_cfg *cfg) {
  memset(f, 0, sizeof *f);
  if (!cfg_ok(cfg)) return -1;
  f->cfg = *cfg;
  f->cap = 1u << cfg->cap_w;
  f->nbkt = 1u << cfg->bkt_w;
  f->d = calloc(f->cap, sizeof *f->d);
  f->nx = calloc(f->cap, sizeof *f->nx);
  f->pv = calloc(f->cap, sizeof *f->pv);
  f->slot = calloc((size_t)f->nbkt * cfg->ways, sizeof *f->slot);
  if (!f->d || !f->nx || !f->pv || !f->slot) {
    flrb_free(f);
    return -2;
  }
  flrb_reset(f);
  return 0;
}

size_t flrb_mem_bytes(const flrb_cfg *cfg) {
  if (!cfg_ok(cfg)) return 0;
  const size_t cap = (size_t)1 << cfg->cap_w, nslot = ((size_t)1 << cfg->bkt_w) * cfg->ways;
  return cap * (sizeof(flrb_desc) + 2 * sizeof(uint32_t)) + nslot * sizeof(flrb_slot);
}

int flrb_init_in(flrb *f, const flrb_cfg *cfg, void *mem) {
  memset(f, 0, sizeof *f);
  if (!cfg_ok(cfg)) return -1;
  f->cfg = *cfg;
  f->cap = 1u << cfg->cap_w;
  f->nbkt = 1u << cfg->bkt_w;
  memset(mem, 0, flrb_mem_bytes(cfg));
  f->d = (flrb_desc *)mem; /* descriptors, then the two link arrays, then the hash slots (all 4 B-aligned) */
  f->nx = (uint32_t *)(f->d + f->cap);
  f->pv = f->nx + f->cap;
  f->slot = (flrb_slot *)(f->pv + f->cap);
  flrb_reset(f);
  return 0;
}

void flrb_free(flrb *f) {
  free(f->d);
  free(f->nx);
  free(f->pv);
  free(f->slot);
  f->d = NULL;
  f->nx = f->pv = NULL;
  f->slot = NULL;
}

void flrb_reset(flrb *f) {
  /* Descriptor and link RAM contents are don't-care after reset (the RTL does
   * not clear them); only bucket valid bits, heads and counters are reset. */
  for (uint32_t i = 0; i < f->nbkt * f->cfg.ways; i++) f->slot[i].valid = false;
  for (uint32_t q = 0; q < FLRB_NQ; q++) {
    f->head[q] = f->tail[q] = FLRB_NIL;
    f->cnt[q] = 0;
  }
  f->fhead = FLRB_NIL;
  f->fresh = 0;
  f->occ = 0;
  f->rr = 0;
}

uint32_t flrb_queue_of(uint32_t refcnt) {
  uint32_t q = 0;
  while (refcnt != 0 && q < FLRB_NQ - 1) { /* q = floor(log2 refcnt) + 1, capped */
    refcnt >>= 1;
    q++;
  }
  return q;
}

uint32_t flrb_bucket(uint32_t seg, uint32_t bkt_w) {
  uint32_t m = (1u << bkt_w) - 1u;
  uint32_t h = 0;
  for (uint32_t s = seg & FLRB_SEG_MASK; s != 0; s >>= bkt_w) h ^= s & m;
  return h;
}

bool flrb_expired(uint32_t exptm, uint32_t now) {
  return (((exptm - now) & FLRB_TIME_MASK) >> (FLRB_TIME_W - 1)) != 0;
}

static flrb_slot *bkt(flrb *f, uint32_t b) { return &f->slot[(size_t)b * f->cfg.ways]; }

/* Way of seg in its bucket, or -1. */
static int find(flrb *f, uint32_t seg) {
  flrb_slot *s = bkt(f, flrb_bucket(seg, f->cfg.bkt_w));
  uint32_t tag = seg >> f->cfg.bkt_w;
  for (uint32_t w = 0; w < f->cfg.ways; w++)
    if (s[w].valid && s[w].tag == tag) return (int)w;
  return -1;
}

static void unlink_q(flrb *f, uint32_t p, uint32_t q) {
  uint32_t pr = f->pv[p], nx = f->nx[p];
  if (pr != FLRB_NIL) f->nx[pr] = nx; else f->head[q] = nx;
  if (nx != FLRB_NIL) f->pv[nx] = pr; else f->tail[q] = pr;
  f->cnt[q]--;
  f->occ--;
}

static void append_q(flrb *f, uint32_t p, uint32_t q) {
  f->pv[p] = f->tail[q];
  f->nx[p] = FLRB_NIL;
  if (f->cnt[q] != 0) f->nx[f->tail[q]] = p; else f->head[q] = p;
  f->tail[q] = p;
  f->cnt[q]++;
  f->occ++;
}

/* Clear the hash slot that points at descriptor p (p must be present). */
static void hash_remove(flrb *f, uint32_t p) {
  flrb_slot *s = bkt(f, flrb_bucket(f->d[p].seg, f->cfg.bkt_w));
  for (uint32_t w = 0; w < f->cfg.ways; w++)
    if (s[w].valid && s[w].ptr == p) {
      s[w].valid = false;
      return;
    }
}

static void fill(const flrb *f, uint32_t p, flrb_resp *r) {
  const flrb_desc *d = &f->d[p];
  r->seg = d->seg;
  r->queue = flrb_queue_of(d->refcnt);
  r->clr = d->clr;
  r->exptm = d->exptm;
  r->refcnt = d->refcnt;
  r->rbmcnt = d->rbmcnt;
}

static void start(const flrb *f, flrb_op op, flrb_resp *r) {
  memset(r, 0, sizeof *r);
  r->op = (uint32_t)op;
  (void)f;
}

int flrb_access(flrb *f, uint32_t seg, bool is_write, bool is_pcm, bool rbm, uint64_t now,
                flrb_resp *r) {
  start(f, FLRB_OP_ACCESS, r);
  if (seg > FLRB_SEG_MASK) return -1;
  uint32_t t = (uint32_t)(now & FLRB_TIME_MASK);
  uint32_t b = flrb_bucket(seg, f->cfg.bkt_w);
  flrb_slot *s = bkt(f, b);
  uint32_t inc = (is_write && is_pcm) ? f->cfg.pcm_wr_weight : 1u;
  int w = find(f, seg);
  uint32_t p;
  if (w >= 0) {
    p = s[w].ptr;
    flrb_desc *d = &f->d[p];
    r->found = true;
    unlink_q(f, p, flrb_queue_of(d->refcnt));
    d->refcnt = d->refcnt + inc > FLRB_REF_MAX ? FLRB_REF_MAX : d->refcnt + inc;
    if (rbm && d->rbmcnt < FLRB_RBM_MAX) d->rbmcnt++;
    d->exptm = (t + f->cfg.lifetime) & FLRB_TIME_MASK;
  } else {
    /* Lowest free way, chosen before any eviction (as the RTL does). */
    int wf = -1;
    for (uint32_t i = 0; i < f->cfg.ways && wf < 0; i++)
      if (!s[i].valid) wf = (int)i;
    if (wf < 0) {
      /* Bucket conflict (D7): evict the way with the smallest refcnt. */
      uint32_t kmin = 0;
      for (uint32_t i = 1; i < f->cfg.ways; i++)
        if (f->d[s[i].ptr].refcnt < f->d[s[kmin].ptr].refcnt) kmin = i;
      p = s[kmin].ptr;
      wf = (int)kmin;
      r->ev_valid = true;
      r->ev_conf = true;
      r->ev_seg = f->d[p].seg;
      r->ev_copyback = f->d[p].clr;
      unlink_q(f, p, flrb_queue_of(f->d[p].refcnt));
      /* slot kmin is overwritten below; p is reused directly */
    } else if (f->fhead != FLRB_NIL) {
      p = f->fhead;
      f->fhead = f->nx[p];
    } else if (f->fresh < f->cap) {
      p = f->fresh++;
    } else {
      /* Capacity (D7): evict the LRU head of the lowest non-empty queue. */
      uint32_t q = 0;
      while (f->cnt[q] == 0) q++;
      p = f->head[q];
      r->ev_valid = true;
      r->ev_seg = f->d[p].seg;
      r->ev_copyback = f->d[p].clr;
      unlink_q(f, p, q);
      hash_remove(f, p);
    }
    s[wf].valid = true;
    s[wf].tag = seg >> f->cfg.bkt_w;
    s[wf].ptr = p;
    flrb_desc *d = &f->d[p];
    d->seg = seg;
    d->clr = !is_pcm;
    d->exptm = (t + f->cfg.lifetime) & FLRB_TIME_MASK;
    d->refcnt = inc;
    d->rbmcnt = rbm ? 1u : 0u;
  }
  append_q(f, p, flrb_queue_of(f->d[p].refcnt));
  fill(f, p, r);
  r->cand = r->queue >= f->cfg.cand_queue && r->rbmcnt >= f->cfg.cand_rbm && !r->clr;
  r->occ = f->occ;
  return 0;
}

int flrb_tick(flrb *f, uint64_t now, flrb_resp *r) {
  start(f, FLRB_OP_TICK, r);
  uint32_t t = (uint32_t)(now & FLRB_TIME_MASK);
  uint32_t q = f->rr;
  f->rr = (f->rr + 1u) % FLRB_NQ;
  r->tick_q = q;
  if (f->cnt[q] != 0) {
    uint32_t p = f->head[q];
    flrb_desc *d = &f->d[p];
    r->found = true;
    if (flrb_expired(d->exptm, t)) {
      unlink_q(f, p, q);
      if (q > 0) {
        uint32_t top = (1u << (q - 1)) - 1u; /* highest refcnt of queue q-1 (D1) */
        uint32_t h = d->refcnt >> 1;
        d->refcnt = h < top ? h : top;
        d->exptm = (t + f->cfg.lifetime) & FLRB_TIME_MASK;
        append_q(f, p, q - 1);
        r->demoted = true;
      } else {
        hash_remove(f, p);
        f->nx[p] = f->fhead;
        f->fhead = p;
        r->ev_valid = true;
        r->ev_seg = d->seg;
        r->ev_copyback = d->clr;
      }
    }
    fill(f, p, r);
  }
  r->occ = f->occ;
  return 0;
}

int flrb_set_position(flrb *f, uint32_t seg, bool clr, flrb_resp *r) {
  start(f, FLRB_OP_SETPOS, r);
  if (seg > FLRB_SEG_MASK) return -1;
  r->seg = seg;
  r->occ = f->occ;
  int w = find(f, seg);
  if (w < 0) return 0;
  uint32_t p = bkt(f, flrb_bucket(seg, f->cfg.bkt_w))[w].ptr;
  f->d[p].clr = clr;
  r->found = true;
  fill(f, p, r);
  return 1;
}

int flrb_lookup(flrb *f, uint32_t seg, flrb_resp *r) {
  start(f, FLRB_OP_LOOKUP, r);
  if (seg > FLRB_SEG_MASK) return -1;
  r->seg = seg;
  r->occ = f->occ;
  int w = find(f, seg);
  if (w < 0) return 0;
  r->found = true;
  fill(f, bkt(f, flrb_bucket(seg, f->cfg.bkt_w))[w].ptr, r);
  return 1;
}

int flrb_neighbours(flrb *f, uint32_t seg, flrb_resp *r) {
  int rc = flrb_lookup(f, seg, r);
  r->op = FLRB_OP_NEIGH;
  if (rc != 1) return rc;
  uint32_t base = seg & ~(FLRB_ROW_SEGS - 1u);
  for (uint32_t k = 0; k < FLRB_ROW_SEGS; k++) {
    uint32_t s = base + k;
    if (s == seg) continue;
    int w = find(f, s);
    if (w < 0) continue;
    const flrb_desc *d = &f->d[bkt(f, flrb_bucket(s, f->cfg.bkt_w))[w].ptr];
    if (flrb_queue_of(d->refcnt) == r->queue && !d->clr) r->mask |= 1u << k;
  }
  return 1;
}

int flrb_exec(flrb *f, const flrb_req *q, flrb_resp *r) {
  switch (q->op) {
    case FLRB_OP_ACCESS: return flrb_access(f, q->seg, q->is_write, q->is_pcm, q->rbm, q->now, r);
    case FLRB_OP_TICK: return flrb_tick(f, q->now, r);
    case FLRB_OP_SETPOS: return flrb_set_position(f, q->seg, q->clr, r);
    case FLRB_OP_LOOKUP: return flrb_lookup(f, q->seg, r);
    case FLRB_OP_NEIGH: return flrb_neighbours(f, q->seg, r);
    default: start(f, q->op, r); return -1;
  }
}

uint32_t flrb_cycles_to_expiry(const flrb *f, uint64_t now) {
  uint32_t t = (uint32_t)(now & FLRB_TIME_MASK), best = UINT32_MAX;
  for (uint32_t q = 0; q < FLRB_NQ; q++) {
    if (f->cnt[q] == 0) continue;
    uint32_t e = f->d[f->head[q]].exptm;
    /* expired when now > exptm (D3): first expired at exptm + 1 */
    uint32_t wait = flrb_expired(e, t) ? 0u : ((e - t) & FLRB_TIME_MASK) + 1u;
    if (wait < best) best = wait;
  }
  return best;
}

int flrb_check(const flrb *f) {
  uint32_t total = 0;
  for (uint32_t q = 0; q < FLRB_NQ; q++) {
    uint32_t n = 0, prev = FLRB_NIL;
    for (uint32_t p = f->head[q]; p != FLRB_NIL; p = f->nx[p]) {
      if (p >= f->fresh) return -1;                         /* pointer out of range */
      if (f->pv[p] != prev) return -2;                      /* broken back link */
      if (flrb_queue_of(f->d[p].refcnt) != q) return -3;    /* refcnt outside queue range */
      if (++n > f->cap) return -4;                          /* cycle */
      const flrb_slot *s = &f->slot[(size_t)flrb_bucket(f->d[p].seg, f->cfg.bkt_w) * f->cfg.ways];
      uint32_t hits = 0;
      for (uint32_t w = 0; w < f->cfg.ways; w++)
        if (s[w].valid && s[w].ptr == p && s[w].tag == f->d[p].seg >> f->cfg.bkt_w) hits++;
      if (hits != 1) return -5;                             /* hash does not index it once */
      prev = p;
    }
    if (n != f->cnt[q] || f->tail[q] != prev) return -6;
    total += n;
  }
  if (total != f->occ) return -7;
  uint32_t nfree = 0;
  for (uint32_t p = f->fhead; p != FLRB_NIL; p = f->nx[p])
    if (++nfree > f->cap) return -8;
  if (total + nfree != f->fresh) return -9;                  /* leaked descriptor */
  uint32_t valid = 0;
  for (uint32_t i = 0; i < f->nbkt * f->cfg.ways; i++) valid += f->slot[i].valid;
  if (valid != total) return -10;                            /* stale hash slot */
  return 0;
}

/* ---------------------------------------------- implementation "c" */

/* State block: the flrb, then its arrays. */
static size_t c_head(void) { return (sizeof(flrb) + 15u) & ~(size_t)15u; }
static size_t c_state_bytes(const flrb_cfg *cfg) { return c_head() + flrb_mem_bytes(cfg); }
static int c_init(void *st, const flrb_cfg *cfg) { return flrb_init_in((flrb *)st, cfg, (char *)st + c_head()); }
static int c_exec(void *st, const flrb_req *q, flrb_resp *r) { return flrb_exec((flrb *)st, q, r); }
static uint32_t c_cycles_to_expiry(const void *st, uint64_t now) { return flrb_cycles_to_expiry((const flrb *)st, now); }

const flrb_ops flrb_c_ops = {
    .name = "c",
    .desc = "the C reference model (flrb.c), the golden model of rtl/flrb",
    .state_bytes = c_state_bytes,
    .init = c_init,
    .exec = c_exec,
    .cycles_to_expiry = c_cycles_to_expiry,
};
