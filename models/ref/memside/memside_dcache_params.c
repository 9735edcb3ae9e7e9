/* memside_dcache_params: the DRAM-cache family's parameters (policies dcache,
 * beari, mccachei, redcachei; memside_dcache.c), the checks across them, and
 * the values the family derives (memside_dcache_params.h). The platform
 * knows none of this: it takes the keys from memside_ops.params, asks
 * memside_ops.l2_reserved_ways for the tag cache's L2 ways and
 * memside_ops.derive for the DRAM-as-memory mode. */
#include "memside_dcache_params.h"

#include <stdio.h>
#include <string.h>

#include "blocks/bps.h"
#include "blocks/ctc.h"

/* X(index, name, type, default, min, max, choices, only, only_why, doc): memside.dcache.<name>, or the whole
 * key after '='. */
#define DC_PARAMS(X)                                                                                                 \
  X(DP_SIZE, "size", MEMSIDE_P_SIZE, "0", 0, (double)(1ull << 44), NULL, NULL, NULL,                                 \
    "policy dcache: DRAM-cache bytes per memory partition (the DRAM rank of its channel, or its DRAM channel "       \
    "with memside.partition_channels = 2); 0 = the DRAM part of the address map (addrmap.dram_size) divided over "   \
    "its channels")                                                                                                  \
  X(DP_MSHRS, "mshrs", MEMSIDE_P_INT, "128", 1, 128, NULL, NULL, NULL,                                               \
    "policy dcache: line fills in flight per channel (HMS Sec. III-F: a 128-entry MSHR)")                            \
  X(DP_LINE, "line_bytes", MEMSIDE_P_SIZE, "256", 64, 1024, NULL, NULL, NULL,                                        \
    "policies dcache, beari, mccachei, redcachei: DRAM-cacheline bytes, a power of two from 64 to 1024 (HMS "        \
    "Sec. III-A: 256 B; Sec. IV-A: 64 B for the baselines; Sec. IV-C, Fig. 16b: 64 B to 1 KiB; with 64 B the "      \
    "memory side routes each half of an L2 line on its own, docs/hms.md). AMIL reserves one 32 B metadata "         \
    "column per 8 lines of a row (the last columns)")                                                               \
  X(DP_RATIO, "footprint_ratio", MEMSIDE_P_FLOAT, "0", 0, 1e6, NULL, NULL, NULL,                                     \
    "policy dcache: DRAM-cache bytes of all channels as a fraction of the workload's footprint (HMS Sec. IV-A: "     \
    "0.375, a 37.5 MiB DRAM cache for a 100 MiB workload), rounded down to whole DRAM rows per channel (at least "   \
    "one); 0 = memside.dcache.size")                                                                                 \
  X(DP_MODE, "mode", MEMSIDE_P_ENUM, "cache", 1, 0, "cache|memory|auto", "dcache", "DRAM-as-memory is an HMS mode",  \
    "policy dcache (HMS Sec. III-E): cache = the DRAM rank caches the SCM rank; memory = DRAM-as-memory: the "       \
    "plain policy over a map with the DRAM part first (addrmap.part_order = \"dram, scm\", contiguous, no tags, "    \
    "no tag cache), the program in DRAM and what does not fit in SCM; auto = memory when the workload's footprint "  \
    "fits the DRAM the cache would have (memside.dcache.size x channels, the footprint ratio, or "                   \
    "addrmap.dram_size), else cache")                                                                                \
  X(DP_ORG, "org", MEMSIDE_P_ENUM, "amil", 1, 0, "amil|tad", NULL, NULL,                                             \
    "policy dcache: where the tags live: amil = all of a row's metadata in its last column (HMS Sec. III-B, "        \
    "Fig. 7c); tad = each line's tag with its data (Fig. 7b, the paper's HMST: 8 column reads per row probe)")       \
  X(DP_BYPASS, "bypass", MEMSIDE_P_BOOL, "false", 1, 0, NULL, NULL, NULL,                                            \
    "policy dcache: the SCM-aware bypass policy (HMS Sec. III-C, Fig. 9) decides every fill; false = every miss "    \
    "fills (HMS-B)")                                                                                                 \
  X(DP_SECOND, "bypass_second_level", MEMSIDE_P_BOOL, "true", 1, 0, NULL, NULL, NULL,                                \
    "policy dcache with bypass: Fig. 9's second comparison (the new line's DRAM-affinity level against the "         \
    "victim's); false = fill whenever the first comparison passes (the paper's check, Sec. IV-B: up to 49 % "        \
    "slower on stencil, 4.8 % overall)")                                                                             \
  X(DP_ACT, "act_counters", MEMSIDE_P_BOOL, "false", 1, 0, NULL, NULL, NULL,                                         \
    "policy dcache: per-2 MiB-page activation counters in the DRAM-affinity score (Sec. III-C2); false = a "         \
    "constant 1, as the paper's evaluation (Sec. IV-A)")                                                             \
  X(DP_CTC_WAYS, "=l2.ctc_ways", MEMSIDE_P_INT, "0", 0, 4, NULL, "dcache", "the tag cache holds DRAM-cache tags",    \
    "L2 ways per bank given to the Configurable Tag Cache of the DRAM cache (memside.policy = dcache; HMS "           \
    "Sec. III-D: up to 4 of 16); the L2 keeps the others")                                                           \
  X(DP_CTC_IDEAL, "=l2.ctc_ideal", MEMSIDE_P_BOOL, "false", 1, 0, NULL, NULL, NULL,                                  \
    "with l2.ctc_ways: the tag cache as a separate SRAM of the same size at no cost, the L2 keeping all its ways "   \
    "(the HMS paper's \"ideal full L2 cache with zero-cost CTC\", Sec. IV-B: 0.9 % better than carving 4 ways)") \
  X(DP_INDEX, "index", MEMSIDE_P_ENUM, "linear", 1, 0, "linear|hashed", NULL, NULL,                                 \
    "policies dcache, beari, mccachei, redcachei: the DRAM-cache slot of an SCM block (the HMS paper does not say "  \
    "how it forms the index): linear = block mod slots; hashed = the block's tag bits XOR-folded into an offset "    \
    "that rotates the linear index (a bijection per tag), so blocks one cache size apart spread over the cache "    \
    "(docs/hms.md \"Slot index and busy slots\")")                                                                   \
  X(DP_BUSY, "busy", MEMSIDE_P_ENUM, "bypass", 1, 0, "bypass|wait", NULL, NULL,                                     \
    "policies dcache, beari, mccachei, redcachei: a read miss that finds every MSHR busy, or a fill the bypass "     \
    "policy chose whose slot another fill holds (the paper does not say): bypass = served by SCM without a fill "   \
    "(dcache.bypasses_busy); wait = held until an MSHR or the slot frees, then filled")

enum {
#define X(id, nm, ty, def, lo, hi, ch, only, why, doc) id,
  DC_PARAMS(X)
#undef X
  DP_N
};

static const memside_param dc_param[] = {
#define X(id, nm, ty, def, lo, hi, ch, only, why, doc) {nm, ty, def, lo, hi, ch, doc, only, why},
    DC_PARAMS(X)
#undef X
};

enum { MODE_CACHE, MODE_MEMORY, MODE_AUTO };

/* The checks across the family's keys, whichever policy runs (as the keys' ranges are checked). */
static int dc_validate(const memside_value *v, const memside_sys *sys, uint32_t *bad, char *err, size_t errlen) {
  if (v[DP_CTC_IDEAL].i && !v[DP_CTC_WAYS].i) {
    *bad = DP_CTC_IDEAL;
    snprintf(err, errlen, "expected l2.ctc_ways > 0 (the size of the ideal tag cache), got l2.ctc_ways = 0");
    return -1;
  }
  if (!v[DP_SECOND].i && !v[DP_BYPASS].i) {
    *bad = DP_SECOND;
    snprintf(err, errlen, "expected memside.dcache.bypass = true (the comparison belongs to the bypass policy)");
    return -1;
  }
  if (v[DP_CTC_WAYS].i > 0 && !ctc_l2_data_way_mask(sys->l2_assoc, (uint32_t)v[DP_CTC_WAYS].i)) {
    *bad = DP_CTC_WAYS;
    snprintf(err, errlen, "expected an L2 of at least %u ways (l2.assoc = %u)", CTC_MAX_L2_WAYS, sys->l2_assoc);
    return -1;
  }
  if (v[DP_LINE].i & (v[DP_LINE].i - 1)) {
    *bad = DP_LINE;
    snprintf(err, errlen, "expected a power of two from 64 to 1024, got %lld", (long long)v[DP_LINE].i);
    return -1;
  }
  if (v[DP_RATIO].f > 0 && v[DP_SIZE].i) {
    *bad = DP_RATIO;
    snprintf(err, errlen, "expected either memside.dcache.size or a footprint ratio, got both");
    return -1;
  }
  return 0;
}

const memside_params memside_dcache_params = {"memside.dcache.", dc_param, DP_N, dc_validate};

/* DRAM-cache bytes per partition when each of `parts` partitions caches in one DRAM channel or rank:
 * memside.dcache.size, or memside.dcache.footprint_ratio of the program's footprint (HMS Sec. IV-A) over the
 * partitions in whole DRAM rows (at least one), or 0. */
static uint64_t cache_bytes_per_part(const memside_value *v, uint64_t footprint, uint32_t parts, uint64_t row) {
  uint64_t b = (uint64_t)v[DP_SIZE].i;
  const double ratio = v[DP_RATIO].f;
  if (ratio > 0 && parts && row) {
    const uint64_t rows = (uint64_t)(ratio * (double)footprint / parts) / row;
    b = (rows ? rows : 1) * row;
  }
  return b;
}

int dc_params_of(const memside_cfg *cfg, dc_params *out, char *err, size_t errlen) {
  const memside_value *v = cfg->param;
  memset(out, 0, sizeof *out);
  const uint64_t row = (uint64_t)cfg->geom[0].columns * cfg->geom[0].atom_bytes;
  out->cache_bytes = cache_bytes_per_part(v, cfg->footprint_bytes, cfg->sys.nparts, row);
  if (!out->cache_bytes) /* the DRAM part of the map, per channel serving it */
    for (uint32_t k = 0; k < cfg->map->nparts; ++k)
      if (cfg->map->part[k].mem == AMAP_MEM_DRAM && cfg->map->part[k].nch)
        out->cache_bytes = cfg->map->part[k].bytes / cfg->map->part[k].nch;
  out->line_bytes = (uint32_t)v[DP_LINE].i;
  out->mshrs = (uint32_t)v[DP_MSHRS].i;
  out->ctc_ways = (uint32_t)v[DP_CTC_WAYS].i; /* the tag cache of the partition's L2 banks (also when ideal) */
  out->ctc_sets = cfg->sys.l2_sets * cfg->sys.l2_banks;
  out->tad = v[DP_ORG].i == 1;
  out->bypass = v[DP_BYPASS].i != 0;
  out->act_counters = v[DP_ACT].i != 0;
  out->no_second_level = !v[DP_SECOND].i;
  out->seed = (uint32_t)(cfg->sys.seed * 2654435761u + cfg->partition);
  out->index_hashed = v[DP_INDEX].i == 1;
  out->busy_wait = v[DP_BUSY].i == 1;
  if (out->bypass) { /* Eq. 1 numerators from the timing of the partition's DRAM and SCM ranks (Sec. III-C1) */
    int dd = -1, dr = 0, sd = -1, sr = 0;
    for (uint32_t d = 0; d < cfg->ndevs && d < MEMSIDE_MAX_DEVS; ++d)
      for (uint32_t r = 0; r < cfg->geom[d].ranks && r < AMAP_MAX_RANKS; ++r) {
        if (cfg->rank_kind[d][r] == AMAP_MEM_DRAM) dd = (int)d, dr = (int)r;
        else sd = (int)d, sr = (int)r;
      }
    bps_cfg_t bc;
    bps_cfg_default(&bc);
    if (dd < 0 || sd < 0 ||
        bps_cfg_timing(&bc, cfg->rank_trcd[dd][dr], cfg->rank_trcd[sd][sr], cfg->rank_twr[dd][dr],
                       cfg->rank_twr[sd][sr]) != 0) {
      if (err)
        snprintf(err, errlen, "memside.dcache.bypass: needs a DRAM and a slower SCM rank in every memory partition "
                              "(tRCD and tWR of the SCM rank >= the DRAM rank's, difference < 65536 cycles)");
      return -1;
    }
    out->num_rd = bc.num_rd;
    out->num_wr = bc.num_wr;
  }
  return 0;
}

static void bytes_text(char *t, size_t n, uint64_t b) {
  if (b >= (1ull << 30)) snprintf(t, n, "%.4g GiB", (double)b / (1ull << 30));
  else snprintf(t, n, "%.4g MiB", (double)b / (1ull << 20));
}

static void put(memside_derivation *out, const char *key, const char *value) {
  snprintf(out->kv[out->n].key, sizeof out->kv[0].key, "%s", key);
  snprintf(out->kv[out->n].value, sizeof out->kv[0].value, "%s", value);
  ++out->n;
}

/* HMS modes (Sec. III-E: "when the memory footprint is small ... GPU's DRAM can be used as part of memory along
 * with SCM, rather than a cache. ... data can initially be placed in DRAM, with the remaining data mapped to
 * SCM"). DRAM-as-memory is not a policy of its own: it is the plain policy over a map whose DRAM part comes
 * first (contiguous), so the program's arrays, allocated from address 0, lie in DRAM and what does not fit
 * continues in SCM; no tags, the L2 keeps its tag-cache ways. auto: DRAM-as-memory when the program's arrays end
 * within the DRAM the cache would have (its size per partition x the channels with DRAM, else the map's DRAM
 * part); the DRAM part is then that size. The stat hms.dram_as_memory records the decision. */
int dc_derive(const memside_plan *in, memside_derivation *out, uint32_t *bad, char *err, size_t errlen) {
  const memside_value *v = in->param;
  const int64_t mode = v[DP_MODE].i;
  static const char *const mode_name[] = {"cache", "memory", "auto"};
  memset(out, 0, sizeof *out);
  out->stat_name = "hms.dram_as_memory";
  out->stat_desc = "1: the DRAM rank served as memory (memside.dcache.mode = memory, or auto on a footprint that fits "
                   "it; HMS Sec. III-E), 0: as the DRAM cache";
  /* A program that allocates as it runs (a CUDA program's cudaMalloc) has no footprint yet: a size relative to
   * it, or the choice of auto, would be made on 0 bytes (a one-row cache, DRAM-as-memory for any program). */
  if (!in->footprint_bytes && (v[DP_RATIO].f > 0 || mode == MODE_AUTO)) {
    *bad = v[DP_RATIO].f > 0 ? DP_RATIO : DP_MODE;
    snprintf(err, errlen,
             "expected memside.dcache.size (and mode cache or memory) for a program whose footprint is known only as "
             "it runs (a CUDA program allocates at run time), got %s",
             v[DP_RATIO].f > 0 ? "a footprint ratio" : "mode auto");
    return -1;
  }
  if (mode == MODE_CACHE) return 0;
  const uint32_t dram_ch = in->kind_channels[AMAP_MEM_DRAM];
  if (!dram_ch) {
    *bad = DP_MODE;
    snprintf(err, errlen, "expected a DRAM rank to use as memory (mem.rank_devices), got %s", mode_name[mode]);
    return -1;
  }
  uint64_t dram = cache_bytes_per_part(v, in->footprint_bytes, dram_ch, in->row_bytes) * dram_ch / 4096 * 4096;
  if (!dram) dram = in->part_bytes[AMAP_MEM_DRAM]; /* (a map part is whole 4 KiB pages) */
  if (mode == MODE_AUTO && (!dram || in->program_end > dram)) return 0;
  put(out, "memside.policy", "plain");
  put(out, "addrmap.part_order", "dram, scm");
  put(out, "addrmap.part_interleave", "0");
  put(out, "l2.ctc_ways", "0");
  if (dram != in->part_bytes[AMAP_MEM_DRAM]) {
    char t[32];
    snprintf(t, sizeof t, "%llu", (unsigned long long)dram);
    put(out, "addrmap.dram_size", t);
  }
  char e[32], d[32];
  bytes_text(e, sizeof e, in->program_end);
  bytes_text(d, sizeof d, dram);
  snprintf(out->reason, sizeof out->reason,
           "memside.dcache.mode = %s: DRAM-as-memory (the program's arrays end at %s, the DRAM holds %s)",
           mode_name[mode], e, d);
  out->stat_value = 1;
  return 0;
}

uint32_t dc_l2_reserved_ways(const memside_value *param, uint32_t l2_assoc) {
  const uint32_t ways = (uint32_t)param[DP_CTC_WAYS].i;
  if (!ways || param[DP_CTC_IDEAL].i) return 0; /* ideal: a separate SRAM, the L2 keeps every way */
  const uint32_t all = l2_assoc >= 32 ? 0xffffffffu : (1u << l2_assoc) - 1u;
  return all & ~ctc_l2_data_way_mask(l2_assoc, ways);
}
