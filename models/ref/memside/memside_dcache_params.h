/* memside_dcache_params: the parameters of the DRAM-cache family (policies
 * dcache, beari, mccachei, redcachei; memside_dcache.c), declared in
 * memside_dcache_params.c: the keys memside.dcache.* plus l2.ctc_ways and
 * l2.ctc_ideal, which only this family reads, and what the family derives
 * from them and from the partition (the cache size relative to the
 * footprint, the bypass scorer's Eq. 1 numerators from the ranks' timing,
 * the tag cache's L2 ways, the DRAM-as-memory mode). */
#ifndef STRATA_MEMSIDE_DCACHE_PARAMS_H
#define STRATA_MEMSIDE_DCACHE_PARAMS_H
#include <stddef.h>
#include <stdint.h>

#include "memside.h"

/* The family's parameters as the engine uses them, for one partition. */
typedef struct dc_params {
  uint64_t cache_bytes;  /* DRAM-cache bytes of the partition's DRAM rank (or DRAM channel) */
  uint32_t line_bytes;   /* DRAM-cacheline bytes: a power of two, 64..1024 (HMS Sec. III-A: 256; Sec. IV-A: 64; Fig. 16b) */
  uint32_t mshrs;        /* line fills in flight */
  uint32_t ctc_ways;     /* L2 ways per bank given to the Configurable Tag Cache (0: none) */
  uint32_t ctc_sets;     /* tag-cache sets of the partition: L2 sets per bank x banks of the partition */
  uint8_t tad;           /* tags with the data (TAD, HMS Fig. 7b; the paper's HMST) instead of AMIL's metadata column */
  uint8_t bypass;        /* SCM-aware bypass (HMS Sec. III-C; bps.h) decides every fill; 0: every miss fills */
  uint8_t act_counters;  /* per-2 MiB-page activation counters in the DRAM-affinity score; 0: constant 1 */
  uint8_t no_second_level; /* bypass: skip Fig. 9's second comparison (fill once the first passes; Sec. IV-B) */
  uint32_t num_rd, num_wr; /* Eq. 1 numerators in device cycles (bps_cfg_timing of the two ranks' timing) */
  uint32_t seed;         /* bypass scorer's LFSR seed (0: its default) */
  uint8_t index_hashed;  /* memside.dcache.index = hashed: the tag XOR-folded into a rotation of the slot index */
  uint8_t busy_wait;     /* memside.dcache.busy = wait: a miss waits for a free MSHR or its slot, never to SCM */
} dc_params;

/* The family's table (memside_ops.params of its four policies). */
extern const memside_params memside_dcache_params;

/* The parameters of partition cfg->partition from cfg->param (the family's
 * values) and the partition: 0, or -1 with a one-line reason naming the key
 * (err may be NULL: state_bytes wants the sizes only). */
int dc_params_of(const memside_cfg *cfg, dc_params *out, char *err, size_t errlen);

/* dc_params_of without the error (set-up paths that only need the values; init reports a bad one). */
static inline dc_params dc_params_get(const memside_cfg *cfg) {
  dc_params p;
  (void)dc_params_of(cfg, &p, NULL, 0);
  return p;
}

/* memside_ops.derive of policy dcache: the DRAM-as-memory mode (HMS Sec. III-E). */
int dc_derive(const memside_plan *in, memside_derivation *out, uint32_t *bad, char *err, size_t errlen);

/* memside_ops.l2_reserved_ways of policy dcache: the tag cache's ways (none when ideal). */
uint32_t dc_l2_reserved_ways(const memside_value *param, uint32_t l2_assoc);

#endif
