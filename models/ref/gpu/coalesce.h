/* coalesce: the memory coalescer of a GPU SM's load/store unit.
 *
 * Given one warp memory instruction (per-thread byte addresses, active mask,
 * access size), group the active threads' byte ranges by 128 B line: one
 * request per touched line, with the 32 B sectors and the bytes it covers and
 * its effective-address count `ea` = number of active threads whose access
 * falls into that line. The HAC paper (hac-l2-for-hybrid-memory.txt,
 * Sec. II-B and III-A) uses `ea` (1..32) as the reuse hint of a line; its
 * low/middle/high groups are 1-8 / 9-23 / 24-32. Requests come out in order of
 * the first thread (lowest lane) that touches each line, as in GPGPU-Sim's
 * coalescer, so the order is deterministic.
 *
 * Accesses must be naturally aligned (addr % bytes == 0, bytes in {1,2,4,8,16}),
 * so no thread's access straddles a sector or a line; hence at most 32 requests.
 * No call allocates or prints.
 *
 * Host cost: coal_warp first tries the commonest case of all (a full warp of
 * 4 B accesses at line + 4 lane: one request, checked in a few vector steps),
 * then a fast path for the common unit-stride
 * pattern (active lane l at base + l * bytes, any active mask: fully coalesced
 * warps, partial/tail warps, line-misaligned bases), which computes each line's
 * fields from lane and byte ranges instead of walking lane by lane; every other
 * pattern takes the general lane-by-lane path (coal_warp_general). Both give
 * identical results (tests/unit/test_coalesce.c compares them on random input).
 */
#ifndef STRATA_COALESCE_H
#define STRATA_COALESCE_H
#include <stdint.h>

#define COAL_WARP 32u
#define COAL_LINE_BYTES 128u
#define COAL_SECTOR_BYTES 32u
#define COAL_MAX_REQS 32u
/* Histogram buckets of the effective-address count: 1, 2-8, 9-16, 17-24, 25-32. */
#define COAL_HIST_BUCKETS 5u

typedef struct coal_req {
  uint64_t line_addr;     /* 128 B aligned */
  uint32_t thread_mask;   /* active lanes whose access falls in this line */
  uint8_t sector_mask;    /* bit s = sector s (32 B) touched */
  uint8_t ea_count;       /* popcount(thread_mask), 1..32 */
  uint16_t bytes;         /* distinct bytes touched (popcount of byte_mask) */
  uint64_t byte_mask[2];  /* bit b of byte_mask[b/64] = byte b of the line touched */
  uint32_t sector_threads[4]; /* thread_mask split by sector: lanes whose access lies in sector s */
} coal_req;

typedef struct coal_hist {
  uint64_t bucket[COAL_HIST_BUCKETS]; /* requests per ea bucket */
  uint64_t insts;                     /* warp memory instructions coalesced */
  uint64_t reqs;                      /* requests produced */
} coal_hist;

/* Coalesce one warp instruction. addr[i] is lane i's byte address (read only
 * for active lanes), active bit i = lane i participates, bytes = access size
 * per thread. Writes the requests to out[] (caller provides COAL_MAX_REQS
 * entries) and returns how many (0 when active == 0), or -1 when `bytes` is not
 * a supported size or an active lane's address is misaligned (nothing useful in
 * out then). */
int coal_warp(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]);

/* As coal_warp; *line4 = 1 when the instruction is the full-line pattern
 * (all 32 lanes active, 4 B each, lane l at line + 4 l: one request), so a
 * caller may pack per-lane data as the line image directly; else 0.
 * unit_stride != 0: the caller guarantees that active lane l's address is
 * addr[f] + (l - f) * bytes (f = first active lane), so neither the
 * full-line pattern nor the unit-stride path checks the other lanes' addresses
 * (results are then those of coal_warp only if the guarantee holds). */
static inline int coal_warp_line4(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int unit_stride,
                                  coal_req out[COAL_MAX_REQS], int *line4);
/* The out-of-line part of coal_warp_line4 (every case; call coal_warp_line4). */
int coal_warp_line4_impl(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int unit_stride,
                         coal_req out[COAL_MAX_REQS], int *line4);

/* The request of the full-line pattern on the line at a0 (out[0]). */
static inline void coal_line4_req(uint64_t a0, coal_req out[COAL_MAX_REQS]) {
  coal_req *q = &out[0];
  q->line_addr = a0;
  q->thread_mask = 0xffffffffu;
  q->sector_mask = 0xf;
  q->ea_count = 32;
  q->bytes = COAL_LINE_BYTES;
  q->byte_mask[0] = q->byte_mask[1] = ~0ull;
  for (unsigned k = 0; k < 4; ++k) q->sector_threads[k] = 0xffu << (8 * k);
}

/* Inline: the promised full-line pattern (the commonest instruction of
 * coalesced kernels) needs no call; everything else goes to the _impl. */
static inline int coal_warp_line4(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, int unit_stride,
                                  coal_req out[COAL_MAX_REQS], int *line4) {
  if (unit_stride && bytes == 4 && active == 0xffffffffu && !(addr[0] & (COAL_LINE_BYTES - 1))) {
    coal_line4_req(addr[0], out);
    *line4 = 1;
    return 1;
  }
  return coal_warp_line4_impl(addr, active, bytes, unit_stride, out, line4);
}

/* The general lane-by-lane coalescer (same contract and results as
 * coal_warp, without the fast path); exposed for equivalence tests. */
int coal_warp_general(const uint64_t addr[COAL_WARP], uint32_t active, unsigned bytes, coal_req out[COAL_MAX_REQS]);

/* Bucket of ea = 0..32 (table: no branches on the per-request path). */
static const uint8_t coal_bucket_of[COAL_WARP + 1] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                                      3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4};

/* Bucket index (0..4) of an ea count (1..32; 0 is treated as 1, >32 as 32). */
static inline unsigned coal_bucket(unsigned ea) { return coal_bucket_of[ea < COAL_WARP ? ea : COAL_WARP]; }

/* Add one coalesced instruction's n requests to the histogram (inline: it
 * runs once per warp memory instruction). */
static inline void coal_hist_add(coal_hist *h, const coal_req *reqs, unsigned n) {
  h->insts++;
  h->reqs += n;
  for (unsigned r = 0; r < n; ++r) h->bucket[coal_bucket(reqs[r].ea_count)]++;
}

#endif
