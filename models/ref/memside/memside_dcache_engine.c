/* memside_dcache_engine: the DRAM-cache engine of the HMS DRAM cache and its
 * baselines (hms-dram-cache-over-scm.txt Sec. III; the designs:
 * memside_dcache.c, memside_beari.c, memside_mccachei.c,
 * memside_redcachei.c; the interface to them: memside_dcache_engine.h). In
 * each channel the DRAM rank caches the SCM rank of the same channel (both
 * ranks share the channel's command and data bus, HMS Fig. 6), direct-mapped,
 * DRAM cachelines of memside.dcache.line_bytes (memside_dcache_params.c: 256 B
 * as Sec. III-A, 64 B as the baselines of Sec. IV-A, 64 B to 1 KiB for the
 * sensitivity study of Sec. IV-C, Fig. 16b). With 64 B lines an L2 line is
 * two DRAM-cache lines: the engine asks the shell for 64 B pieces
 * (memside_ops.granule), so every access it routes lies in one line.
 *
 * Organisation (Sec. III-B, Fig. 7c, AMIL): every DRAM row keeps the
 * metadata (tag, valid, dirty) of all its cachelines in its last column, so
 * one 32 B column read (a probe) brings a whole row's tags. The last column
 * holds no data: a row of R bytes caches floor((R - 32) / line) lines (7 of
 * 256 B for 2 KiB rows; the paper counts 8 per row and 1.6 % of the row for
 * metadata, which a line-aligned line cannot share with the metadata column,
 * so Strata gives up the eighth line). Strata keeps 4 B of metadata per line,
 * so one 32 B column holds the tags of DC_GROUP = 8 lines (a "tag group");
 * a row of more lines (128 B lines: 15 of a 2 KiB row) reserves as many last
 * columns as it has tag groups (2), and a probe reads the column of the
 * accessed line's group. A tag group is also the Configurable Tag Cache's
 * 4 B sector (one per row up to 8 lines per row, as the paper's 256 B lines;
 * two for 128 B lines: the tag cache then covers half the bytes, the
 * paper's "improved CTC caching" with larger lines, Sec. IV-C).
 *
 * TAD (Fig. 7b; memside.dcache.org = "tad", the paper's HMST, and the
 * Alloy-based baselines): each line's tag travels with its data (in the ECC
 * bits of its columns), so a row holds row / line lines (8 of 256 B) and no
 * metadata column; bringing a tag group's tags (a probe on a tag-cache miss)
 * reads the tag-bearing first column of each of its lines, 8 column reads
 * where AMIL needs one (Sec. IV-C, Fig. 18; fewer with lines of 512 B or
 * more); a fill writes the tag with the line (no metadata write), and a
 * changed DRAM-affinity level rewrites the victim line's first column.
 *
 * Flow of an access of the L2 (Sec. III-F; dcache_route's numbered steps):
 *   1. decode: the line's SCM block, its DRAM-cache slot and tag, and what
 *      the access waited for (its ticket);
 *   2. write-through copies of the line on their way to SCM go first;
 *   3. an MSHR involving the line or its slot: an access held behind an MSHR
 *      whose design bypassed goes to SCM, a miss of a line whose fill is
 *      being decided merges into that MSHR, any other waits behind it;
 *   4. the slot's tags: known (ideal presence bits, or the controller just
 *      wrote them), in the Configurable Tag Cache (Sec. III-D; the lookup
 *      costs no time beyond the L2 miss it rides on), or a probe (one probe
 *      serves every access waiting for the same tags; the access is held
 *      until it returns, then the tags go into the tag cache);
 *   5. hit or miss (the design samples it);
 *   6. hit: the access goes to the DRAM rank (a write marks the line dirty,
 *      or the design writes it through to SCM);
 *   7. miss: the access goes to the SCM rank, and the design says whether
 *      the line is filled now, never, or once the demand has been served
 *      (an MSHR, up to memside.dcache.mshrs at once): accesses to the line and
 *      to its victim are held, the writes already on their way to the line
 *      and every access to the victim are drained (the demand read itself
 *      need not be), then the line is read from SCM (and a dirty victim from
 *      DRAM), written to DRAM (and the victim to SCM), the row's metadata
 *      column is written, and the tags switch. A write miss that allocates
 *      waits for the line and then hits in DRAM (write-allocate).
 *
 * Every move carries the bytes (the golden-memory checker verifies them);
 * the tags themselves are kept in the policy's state (the metadata column's
 * reads and writes are the traffic and timing of keeping them in DRAM).
 *
 * Placement: the SCM part of the static map (addrmap part_order "scm, ...",
 * contiguous) is the memory the program sees; its lines are where the
 * static map puts them on the SCM rank. The SCM rank's line-sized blocks are
 * numbered densely (row, bank group, bank, line-column group); block k lives
 * in DRAM-cache slot k mod slots (tag k / slots); slot s is line s mod L of
 * DRAM row s / L, the rows taken bank after bank (bank groups first) so
 * consecutive slots spread over the banks. memside.dcache.index = hashed
 * rotates the index by an offset folded from the tag (slot_of_block), so
 * blocks a cache size apart land far apart (the paper does not say how its
 * index is formed; docs/hms.md "Slot index and busy slots").
 */
#include "memside_dcache_engine.h"
#include "memside_dcache_params.h"

#include <stdio.h>
#include <stddef.h>
#include <string.h>

_Static_assert(DC_MAX_MSHRS * 3 + DC_PROBES * DC_GROUP + DC_META_MAX <= MEMSIDE_XFER_SLOTS,
               "policy transfers in flight fit the shell"); /* a TAD probe reads one column per line of its group */
_Static_assert(DC_LINE_MAX <= MEMSIDE_XFER_MAX, "a line moves in one transfer");

/* ------------------------------------------------------------ geometry */

/* Lines per row of `row_bytes` with `line`-byte lines, and the metadata
 * columns the row needs (TAD: none; AMIL: one 32 B column per DC_GROUP
 * lines, taken from the end of the row, at least one). */
static uint32_t lines_per_row(uint64_t row_bytes, uint32_t line, int tad, uint32_t *meta_cols) {
  uint32_t mc = tad ? 0 : 1, lpr = 0;
  for (;;) {
    lpr = row_bytes > (uint64_t)mc * DC_COL ? (uint32_t)((row_bytes - (uint64_t)mc * DC_COL) / line) : 0;
    if (tad || (lpr + DC_GROUP - 1) / DC_GROUP <= mc) break;
    ++mc; /* the row's metadata (4 B per line) does not fit its metadata columns: one more */
  }
  /* Lines smaller than an L2 line (64 B): whole L2 lines per row, so that the k-th piece of an L2 line (block k
   * mod 128 / line) lies at the k-th offset of a 128 B device line (slot and block agree modulo 128 / line) and
   * the shell moves no bytes (AMIL 30 lines of a 2 KiB row, TAD 32). */
  if (line < 128) lpr -= lpr % (128 / line);
  if (meta_cols) *meta_cols = mc;
  return lpr;
}

static int org_tad(const dc_design *d, const memside_cfg *c) {
  return d->org == DC_ORG_CONFIG ? dc_params_get(c).tad != 0 : d->org == DC_ORG_TAD;
}

static uint64_t slots_of(const memside_cfg *c, int tad, uint32_t *lpr_out, uint32_t *meta_cols) {
  const devaddr_geom *g = &c->geom[0];
  const uint64_t row_bytes = (uint64_t)g->columns * g->atom_bytes;
  const uint32_t line = dc_params_get(c).line_bytes;
  const uint32_t lpr = line ? lines_per_row(row_bytes, line, tad, meta_cols) : 0;
  if (lpr_out) *lpr_out = lpr;
  const uint64_t rows = dc_params_get(c).cache_bytes / row_bytes;
  return rows * lpr;
}

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* Offset of the tag cache's state in the block: after dc_st and the slots' metadata words. */
static size_t ctc_offset(uint64_t slots) { return align16(sizeof(dc_st) + (size_t)slots * sizeof(uint32_t)); }

/* The tag cache of the partition: l2.ctc_ways ways of each of its L2 banks' sets (Sec. III-D). */
static void ctc_cfg_of(const memside_cfg *c, ctc_cfg *cc) {
  ctc_default_cfg(cc);
  const dc_params p = dc_params_get(c);
  cc->sets = p.ctc_sets;
  cc->l2_ways = p.ctc_ways;
}

static size_t ctc_bytes(const memside_cfg *c) {
  if (!dc_params_get(c).ctc_ways) return 0;
  ctc_cfg cc;
  ctc_cfg_of(c, &cc);
  return align16(dc_blocks(c)->tag_cache->state_bytes(&cc));
}

size_t dcache_state_bytes(const dc_design *d, const memside_cfg *cfg) {
  return ctc_offset(slots_of(cfg, org_tad(d, cfg), NULL, NULL)) + ctc_bytes(cfg) +
         (d->state_bytes ? d->state_bytes(cfg) : 0);
}

/* SCM block of a device location on an SCM rank, and the byte offset in it. */
static uint64_t block_of(const dc_st *s, const devaddr_loc *l) {
  return (((l->row * s->nsr + s->sri[l->ra]) * s->g.bankgroups + l->bg) * s->g.banks + l->ba) * s->groups +
         l->col / s->lcols;
}

static uint64_t scm_addr_of(const dc_st *s, uint64_t block) {
  devaddr_loc l;
  l.col = (uint32_t)(block % s->groups) * s->lcols;
  block /= s->groups;
  l.ba = (uint32_t)(block % s->g.banks);
  block /= s->g.banks;
  l.bg = (uint32_t)(block % s->g.bankgroups);
  block /= s->g.bankgroups;
  l.ra = s->sr[block % s->nsr];
  l.row = block / s->nsr;
  return devaddr_encode(&s->g, &l);
}

/* The offset memside.dcache.index = hashed adds to block k's linear index: each set bit j of the tag selects a
 * fixed 64-bit pattern hash_key[j], the patterns of the set bits are XORed (a linear fold of the tag's bits
 * over GF(2), the XOR-based placement of cache indexing, e.g. Gonzalez et al., ICS 1997, and TOM's stack
 * index, tom-ndp-offload-and-mapping.txt Sec. 5.1), and the fold is taken modulo the slot count. The offset
 * is added modulo the slot count rather than XORed into the index: the count (lines per row x rows) is
 * rarely a power of two, and an addition is a bijection of the slots for each tag (so every block keeps one
 * place and the data stays correct) while keeping a tag's consecutive blocks in consecutive slots (a row's
 * lines together, as the linear index has them). Under 128 B lines the offset is whole L2 lines, so a
 * block's piece of an L2 line keeps its place in a 128 B device line (lines_per_row). */
static uint64_t tag_offset(const dc_st *s, uint64_t tag) {
  uint64_t h = 0;
  for (uint32_t j = 0; tag; ++j, tag >>= 1)
    if (tag & 1) h ^= s->hash_key[j];
  h %= s->slots;
  return s->line < 128 ? h - h % (128 / s->line) : h;
}

/* The slot and tag of SCM block `block`. */
static uint64_t slot_of_block(const dc_st *s, uint64_t block, uint64_t *tag) {
  const uint64_t t = block / s->slots, lin = block % s->slots;
  if (tag) *tag = t;
  if (!s->hashed) return lin;
  const uint64_t o = tag_offset(s, t);
  return lin >= s->slots - o ? lin - (s->slots - o) : lin + o;
}

/* The SCM block with tag `tag` in slot `slot` (slot_of_block's inverse). */
static uint64_t block_in_slot(const dc_st *s, uint64_t slot, uint64_t tag) {
  if (!s->hashed) return tag * s->slots + slot;
  const uint64_t o = tag_offset(s, tag);
  return tag * s->slots + (slot >= o ? slot - o : slot + (s->slots - o));
}

/* DRAM location of slot's line (column group `line` of its row), or of the
 * metadata column of its tag group (AMIL: the row's last meta_cols columns,
 * group k in column columns - meta_cols + k). */
static void dram_loc(const dc_st *s, uint64_t slot, int meta_col, devaddr_loc *l) {
  const uint64_t drow = slot / s->lpr, rb = drow % (s->nbanks * s->ncr), bank = rb % s->nbanks;
  const uint32_t k = (uint32_t)(slot % s->lpr);
  l->ra = s->cr[rb / s->nbanks];
  l->bg = (uint32_t)(bank % s->g.bankgroups);
  l->ba = (uint32_t)(bank / s->g.bankgroups);
  l->row = drow / (s->nbanks * s->ncr);
  l->col = meta_col ? s->g.columns - s->meta_cols + k / DC_GROUP : k * s->lcols;
}

/* The tag group of slot (what one AMIL probe or one tag-cache sector holds:
 * the metadata of up to DC_GROUP lines of one row), numbered densely; with
 * at most DC_GROUP lines per row, the row itself. */
static uint64_t group_of(const dc_st *s, uint64_t slot) {
  if (s->gpr == 1) return slot / s->lpr;
  return slot / s->lpr * s->gpr + (slot % s->lpr) / DC_GROUP;
}

/* The first slot of tag group g, and how many lines the group has. */
static uint64_t group_slot(const dc_st *s, uint64_t g, uint32_t *n) {
  const uint32_t k = (uint32_t)(g % s->gpr) * DC_GROUP;
  if (n) *n = s->lpr - k < DC_GROUP ? s->lpr - k : DC_GROUP;
  return g / s->gpr * s->lpr + k;
}

static uint64_t dram_addr_of(const dc_st *s, uint64_t slot, int meta_col) {
  devaddr_loc l;
  dram_loc(s, slot, meta_col, &l);
  return devaddr_encode(&s->g, &l);
}

/* The slot of a DRAM-cache location (dram_loc's inverse, data columns). */
static uint64_t slot_of_dram(const dc_st *s, const devaddr_loc *l) {
  const uint64_t drow = (l->row * s->ncr + s->cri[l->ra]) * s->nbanks + l->ba * s->g.bankgroups + l->bg;
  return drow * s->lpr + l->col / s->lcols;
}

static int cached(const dc_st *s, uint64_t slot, uint64_t tag) {
  const uint32_t m = s->meta[slot];
  return (m & META_VALID) && (m & META_TAG) == tag;
}

/* -------------------------------------------------- blocks in flight */

static dc_infl *infl_find(dc_st *s, uint64_t block, int create) {
  const uint64_t key = block + 1;
  uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 52) & (DC_INFL - 1);
  for (uint32_t i = 0; i < DC_INFL; ++i, h = (h + 1) & (DC_INFL - 1)) {
    dc_infl *e = &s->infl[h];
    if (e->key == key) return e;
    if (!e->key) {
      if (!create) return NULL;
      memset(e, 0, sizeof *e); /* every field: a freed entry keeps its old counts */
      e->key = key;
      return e;
    }
  }
  return NULL; /* full: more blocks in flight than queue entries can hold */
}

/* Remove an unused entry, moving later entries of its probe run back
 * (linear-probing deletion without tombstones). */
static void infl_release(dc_st *s, dc_infl *e) {
  if (e->n || e->busy || e->byp || e->mir || e->mw) return;
  uint32_t i = (uint32_t)(e - s->infl);
  for (uint32_t j = (i + 1) & (DC_INFL - 1);; j = (j + 1) & (DC_INFL - 1)) {
    dc_infl *x = &s->infl[j];
    if (!x->key) break;
    const uint32_t home = (uint32_t)((x->key * 0x9e3779b97f4a7c15ull) >> 52) & (DC_INFL - 1);
    /* x may fill the hole at i when i lies cyclically in [home, j) */
    if (((j - home) & (DC_INFL - 1)) >= ((j - i) & (DC_INFL - 1))) {
      s->infl[i] = *x;
      i = j;
    }
  }
  s->infl[i].key = 0;
}

/* Key of a slot with a fill in progress (block numbers stay far below it). */
#define SLOT_KEY(slot) ((1ull << 62) | (slot))

/* The MSHR busy with block (+1), or 0. */
static uint32_t infl_busy(dc_st *s, uint64_t block) {
  const dc_infl *e = infl_find(s, block, 0);
  return e && e->busy ? e->fill + 1 : 0;
}

static uint32_t infl_count(dc_st *s, uint64_t block) {
  const dc_infl *e = infl_find(s, block, 0);
  return e ? e->n : 0;
}

static uint32_t infl_writes(dc_st *s, uint64_t block) {
  const dc_infl *e = infl_find(s, block, 0);
  return e ? e->nw : 0;
}

/* An access routed to a device: counted in flight on its block. */
static void went(dc_infl *e, const memside_req *rq) {
  if (!e) return;
  ++e->n;
  e->nw += rq->write ? 1u : 0u;
  e->cols += dc_sectors_in(rq->sectors);
}

/* A fill may read once nothing can change what it reads or overwrites: no
 * write to the new line on its way to SCM (reads of it from SCM do not
 * conflict), and no access at all to the victim's DRAM slot (the fill
 * overwrites it). */
static int drained(dc_st *s, const dc_fill *F) {
  return !infl_writes(s, F->block) && !(F->has_victim && infl_count(s, F->victim));
}

/* ------------------------------------------------------------ set-up */

/* The partition: one channel with DRAM and SCM ranks (HMS, Fig. 6a), or a DRAM channel and an SCM channel
 * (Fig. 6b, Sep. DRAM&SCM; memside.partition_channels = 2). The DRAM ranks cache the SCM ranks. */
static int find_devices(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  int cd = -1, sd = -1;
  for (uint32_t d = 0; d < cfg->ndevs && d < MEMSIDE_MAX_DEVS; ++d) {
    const devaddr_geom *gd = &cfg->geom[d];
    if (gd->ranks != s->g.ranks || gd->bankgroups != s->g.bankgroups || gd->banks != s->g.banks ||
        gd->columns != s->g.columns || gd->atom_bytes != s->g.atom_bytes) {
      snprintf(err, errlen, "the DRAM cache needs one device geometry on every channel of a partition");
      return -1;
    }
    for (uint32_t r = 0; r < s->g.ranks; ++r) {
      const int dram = cfg->rank_kind[d][r] == AMAP_MEM_DRAM;
      int *which = dram ? &cd : &sd;
      if (*which >= 0 && *which != (int)d) {
        snprintf(err, errlen, "the DRAM cache needs its %s ranks on one channel of the partition",
                 dram ? "DRAM" : "SCM");
        return -1;
      }
      *which = (int)d;
      if (dram) s->cri[r] = (uint8_t)s->ncr, s->cr[s->ncr++] = (uint8_t)r;
      else s->sri[r] = (uint8_t)s->nsr, s->sr[s->nsr++] = (uint8_t)r;
    }
  }
  if (cd < 0 || sd < 0) {
    snprintf(err, errlen, "the DRAM cache needs DRAM and SCM ranks in every memory partition (mem.rank_devices, "
                          "or mem.channel_devices with memside.partition_channels)");
    return -1;
  }
  s->cdev = (uint32_t)cd;
  s->sdev = (uint32_t)sd;
  return 0;
}

/* The SCM part of the map and the DRAM cache's size against it. */
static int check_parts(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  const amap *m = cfg->map;
  if (m->nparts < 1 || m->interleave || m->part[0].mem == AMAP_MEM_DRAM || !m->part[0].bytes) {
    snprintf(err, errlen, "the DRAM cache needs the SCM part first and contiguous (addrmap.part_order = \"scm, "
                          "dram\", addrmap.part_interleave = 0)");
    return -1;
  }
  s->backing_limit = m->part[0].bytes;
  for (uint32_t k = 1; k < m->nparts; ++k) /* the DRAM rank holds the cache: at most its part of the map */
    if (m->part[k].mem == AMAP_MEM_DRAM && m->part[k].nch && dc_params_get(cfg).cache_bytes > m->part[k].bytes / m->part[k].nch) {
      snprintf(err, errlen, "memside.dcache.size: expected at most the DRAM rank's %llu bytes per channel "
                            "(addrmap.dram_size / channels), got %llu", (unsigned long long)(m->part[k].bytes / m->part[k].nch),
               (unsigned long long)dc_params_get(cfg).cache_bytes);
      return -1;
    }
  if (m->part[0].nch && dc_params_get(cfg).cache_bytes >= m->part[0].bytes / m->part[0].nch) {
    snprintf(err, errlen, "memside.dcache.size: expected a DRAM cache smaller than the SCM it caches (%llu bytes per "
                          "channel), got %llu", (unsigned long long)(m->part[0].bytes / m->part[0].nch),
             (unsigned long long)dc_params_get(cfg).cache_bytes);
    return -1;
  }
  return 0;
}

/* Line size, lines per row, slots. */
static int set_geometry(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen) {
  const uint32_t line = dc_params_get(cfg).line_bytes;
  const uint64_t row_bytes = (uint64_t)s->g.columns * s->g.atom_bytes;
  if (line < DC_LINE_MIN || line > DC_LINE_MAX || (line & (line - 1)) || s->g.atom_bytes != DC_COL ||
      lines_per_row(row_bytes, line, s->tad, NULL) == 0) {
    snprintf(err, errlen, "memside.dcache.line_bytes: expected a power of two from %u to %u B that leaves a line "
                          "in a DRAM row of %llu B%s, got %u", DC_LINE_MIN, DC_LINE_MAX, (unsigned long long)row_bytes,
             s->tad ? "" : " besides its metadata column", line);
    return -1;
  }
  s->line = line;
  s->lcols = line / DC_COL;
  s->nbanks = s->g.bankgroups * s->g.banks;
  s->groups = s->g.columns / s->lcols;
  s->slots = slots_of(cfg, s->tad, &s->lpr, &s->meta_cols);
  s->gpr = (s->lpr + DC_GROUP - 1) / DC_GROUP;
  if (s->tad) s->meta_cols = 0;
  if (s->lpr == 0 || s->slots == 0) {
    snprintf(err, errlen, "memside.dcache.size: expected at least one DRAM row of 32 B columns per channel, got "
                          "%llu bytes", (unsigned long long)dc_params_get(cfg).cache_bytes);
    return -1;
  }
  return 0;
}

int dcache_init(void *st, const dc_design *d, const memside_cfg *cfg, const memside_env *env, char *err,
                size_t errlen) {
  dc_st *s = (dc_st *)st;
  dc_params p; /* the family's parameters (memside_dcache_params.c); a bad one is reported first */
  if (dc_params_of(cfg, &p, err, errlen) != 0) return -1;
  if (!d->tag_cache && p.ctc_ways) {
    snprintf(err, errlen, "l2.ctc_ways: expected 0 under %s (no tag cache)", d->name);
    return -1;
  }
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->cfg.param = NULL; /* valid during init only (memside.h) */
  s->env = *env;
  s->d = *d;
  s->g = cfg->geom[0];
  s->tad = org_tad(d, cfg);
  s->ideal_tags = d->tags == DC_TAGS_IDEAL;
  s->probe_line = d->tags == DC_TAGS_PROBE_LINE;
  if (memside_check_map(cfg, err, errlen) != 0 || find_devices(s, cfg, err, errlen) != 0 ||
      check_parts(s, cfg, err, errlen) != 0 || set_geometry(s, cfg, err, errlen) != 0)
    return -1;
  /* the slots' metadata (the shell's state block starts zeroed: every slot invalid), the tag cache's
   * state, the design's */
  s->meta = (uint32_t *)((char *)s + sizeof *s);
  s->ctc_st = (char *)s + ctc_offset(s->slots);
  s->ds = (char *)s->ctc_st + ctc_bytes(cfg);
  if (p.ctc_ways) {
    ctc_cfg cc;
    ctc_cfg_of(cfg, &cc);
    s->ctc = dc_blocks(cfg)->tag_cache;
    char e2[200];
    if (s->ctc->init(s->ctc_st, &cc, e2, sizeof e2) != CTC_OK) {
      snprintf(err, errlen, "l2.ctc_ways: %s", e2);
      return -1;
    }
    s->use_ctc = 1;
  }
  s->mshrs = dc_params_get(cfg).mshrs;
  s->hashed = p.index_hashed;
  s->busy_wait = p.busy_wait;
  for (uint32_t j = 0; j < 32; ++j) { /* splitmix64 of j + 1: fixed, well-mixed patterns (tag_offset) */
    uint64_t z = (j + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s->hash_key[j] = z ^ (z >> 31);
  }
  if (!s->mshrs || s->mshrs > DC_MAX_MSHRS) {
    snprintf(err, errlen, "memside.dcache.mshrs: expected 1..%u, got %u", DC_MAX_MSHRS, dc_params_get(cfg).mshrs);
    return -1;
  }
  const amap *m = cfg->map;
  if (m->part[0].nch && m->part[0].bytes / m->part[0].nch / s->line / s->slots > META_TAG) {
    snprintf(err, errlen, "memside.dcache.size: the SCM part is more than 2^28 times the DRAM cache (tag bits)");
    return -1;
  }
  if (d->state_bytes) memset(s->ds, 0, d->state_bytes(cfg));
  return d->init ? d->init(s, cfg, err, errlen) : 0;
}

/* ------------------------------------------------------ the back door */

/* The static place of pa: its 128 B line's, plus pa's offset in it (a 64 B piece of the line under 64 B
 * lines; the static map keeps a line in consecutive columns: memside_check_map). */
static void static_locate(const dc_st *s, uint64_t pa, memside_target *out) {
  memside_static_locate(&s->cfg, pa & ~(uint64_t)127, out);
  out->addr += pa & 127;
}

void dcache_locate(const void *st, uint64_t pa, memside_target *out) {
  const dc_st *s = (const dc_st *)st;
  static_locate(s, pa, out);
  if (pa >= s->backing_limit) return; /* outside the SCM part: flat (the platform keeps programs out of it) */
  devaddr_loc l;
  devaddr_decode(&s->g, out->addr, &l);
  uint64_t tag;
  const uint64_t slot = slot_of_block(s, block_of(s, &l), &tag);
  if (cached(s, slot, tag)) {
    out->addr = dram_addr_of(s, slot, 0) + (out->addr & (s->line - 1));
    out->dev = s->cdev;
    out->kind = AMAP_MEM_DRAM;
  }
}

unsigned dcache_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  dcache_locate(st, pa, &t);
  return t.kind;
}

/* ------------------------------------------- transfers, tickets, tags */

static void issue(dc_st *s, uint32_t dev, uint64_t addr, uint32_t bytes, int write, unsigned cls, unsigned char *buf,
                  uint64_t tag) {
  const memside_xfer x = {dev, addr, bytes, (uint8_t)write, (uint8_t)cls, buf, tag};
  /* at most 3 per MSHR, DC_GROUP per probe and DC_META_MAX metadata writes in flight (the _Static_assert above) */
  s->env.issue(s->env.ctx, &x);
}

/* Route tickets: probe index + 1, or TICKET_MSHR | MSHR index for an access
 * held behind an MSHR (the release of that probe or MSHR wakes it). */
#define TICKET_MSHR 0x80000000u
/* The ticket of MSHR f's current use: TICKET_MSHR | generation << 8 | f. The generation (counted up at
 * every allocation of the entry) keeps an access held by an earlier use of the same entry from passing
 * for one held by this use. */
#define MSHR_GEN_MASK 0x1fffffu /* bits 8..28; 29 and 30 are the write-through waits */
#define TICKET_MIRROR 0x40000000u  /* a write waiting for a free write-through slot (counted) */
#define TICKET_MIRWAIT 0x20000000u /* an access to SCM waiting for a write-through copy of its line (not counted) */
#define TICKET_MSHRWAIT 0x10000000u /* a write miss (any miss with busy = wait) waiting for a free MSHR (counted; its slot's tags known) */
#define TICKET_WRWAIT 0x08000000u   /* an access waiting behind a write miss of its line held for an MSHR */
#define TICKET_WRWAIT_C 0x04000000u /* the same, counted already as a hit or a miss */

static uint32_t mshr_ticket(const dc_st *s, uint32_t f) {
  return TICKET_MSHR | ((s->fill[f].gen & MSHR_GEN_MASK) << 8) | f;
}

/* Own-transfer tags: kind in the top bits, index below. */
#define TAG_KIND_SHIFT 40
enum { TAG_KIND_PROBE = 1, TAG_KIND_FILL = 2, TAG_KIND_META = 3, TAG_KIND_MIRROR = 4 };
#define TAG_PROBE ((uint64_t)TAG_KIND_PROBE << TAG_KIND_SHIFT)
#define TAG_FILL ((uint64_t)TAG_KIND_FILL << TAG_KIND_SHIFT)
#define TAG_META ((uint64_t)TAG_KIND_META << TAG_KIND_SHIFT)
#define TAG_MIRROR ((uint64_t)TAG_KIND_MIRROR << TAG_KIND_SHIFT) /* | block: a write-through copy */
#define TAG_INDEX ((1ull << TAG_KIND_SHIFT) - 1)

/* A metadata-column write of slot's tag group (the bytes are the traffic; the tags live in the state), unless
 * DC_META_MAX are in flight already (merged into one of them). */
static void meta_write(dc_st *s, uint64_t slot) {
  if (s->meta_pending >= DC_META_MAX) return;
  ++s->st[S_META_WRITES];
  ++s->meta_pending;
  issue(s, s->cdev, dram_addr_of(s, slot, 1), DC_COL, 1, MEMSIDE_PROBE, s->meta_buf, TAG_META);
}

/* Dirty tag-cache sectors it evicted: their rows' metadata columns are
 * written (fire and forget: the policy keeps the tags; these are the traffic). */
static void meta_writebacks(dc_st *s, const ctc_result *r) {
  for (uint32_t i = 0; i < r->n_wb && s->meta_pending < DC_META_MAX; ++i) meta_write(s, group_slot(s, r->wb[i].row, NULL));
}

/* Slot's tag group changed in the controller: into the tag cache (dirty: written back when it evicts them).
 * Returns 1 when the tag cache holds it (no metadata write needed now). */
static int ctc_keeps(dc_st *s, uint64_t slot, int dirty) {
  if (!s->use_ctc) return 0;
  ctc_result r;
  s->ctc->update(s->ctc_st, group_of(s, slot), 0, dirty, &r);
  meta_writebacks(s, &r);
  return r.stored;
}

static void probe_put(dc_st *s, uint32_t ticket) {
  dc_probe *P = &s->probe[ticket - 1];
  if (--P->refs == 0) P->busy = 0, --s->probes_busy;
}

/* A probe for slot's tags (one in flight for the same tags is shared): *ticket = its index + 1, or 0 when
 * every probe entry is busy (the access is retried on any release). */
static void probe_for(dc_st *s, uint64_t slot, uint32_t *ticket) {
  uint32_t free_i = DC_PROBES;
  const uint64_t key = s->probe_line ? slot : group_of(s, slot); /* what one probe brings: a tag group's tags, or one line's */
  for (uint32_t i = 0; i < DC_PROBES; ++i) {
    dc_probe *P = &s->probe[i];
    if (P->busy && !P->done && P->key == key) { /* one probe brings the tag group's tags (AMIL: a row's, 256 B lines) */
      ++P->refs;
      ++s->st[S_PROBE_MERGES];
      *ticket = i + 1;
      return;
    }
    if (!P->busy && free_i == DC_PROBES) free_i = i;
  }
  if (free_i == DC_PROBES) return;
  dc_probe *P = &s->probe[free_i];
  P->busy = 1;
  P->done = 0;
  P->refs = 1;
  P->key = key;
  ++s->probes_busy;
  ++s->st[S_PROBES];
  if (s->probe_line) { /* the line's tag-and-data column */
    P->outstanding = 1;
    issue(s, s->cdev, dram_addr_of(s, slot, 0), DC_COL, 0, MEMSIDE_PROBE, P->meta, TAG_PROBE | free_i);
  } else if (s->tad) { /* the tags of the group's lines are in their first columns: one read each */
    uint32_t n;
    const uint64_t first = group_slot(s, key, &n);
    P->outstanding = n;
    for (uint32_t k = 0; k < n; ++k)
      issue(s, s->cdev, dram_addr_of(s, first + k, 0), DC_COL, 0, MEMSIDE_PROBE, P->meta, TAG_PROBE | free_i);
  } else {
    P->outstanding = 1;
    issue(s, s->cdev, dram_addr_of(s, slot, 1), DC_COL, 0, MEMSIDE_PROBE, P->meta, TAG_PROBE | free_i);
  }
  *ticket = free_i + 1;
}

/* ------------------------------------------------------------ MSHRs */

/* Take a free MSHR for block in slot, F_PEND, the block marked busy with it; -1: none free. */
static int mshr_take(dc_st *s, uint64_t block, uint64_t slot) {
  uint32_t f = 0;
  while (f < s->mshrs && s->fill[f].phase != F_FREE) ++f;
  if (f == s->mshrs) return -1;
  dc_infl *eb = infl_find(s, block, 1);
  if (!eb) return -1;
  dc_fill *F = &s->fill[f];
  ++F->gen;
  F->phase = F_PEND;
  F->tagrmw = 0;
  F->slotwait = 0;
  F->has_victim = F->victim_dirty = 0;
  F->level = 0;
  F->block = block;
  F->slot = (uint32_t)slot;
  F->cols = 0;
  F->wr = 0;
  F->held = 0;
  ++eb->busy;
  eb->fill = f;
  ++s->fills_busy;
  return (int)f;
}

/* An MSHR's use is over: the accesses held behind it are routed again, and so are write misses waiting for a
 * free MSHR (the first takes it, the others wait again). */
static void mshr_free(dc_st *s, uint32_t f) {
  s->fill[f].phase = F_FREE;
  --s->fills_busy;
  s->env.release(s->env.ctx, mshr_ticket(s, f));
  if (!s->mshr_waiters) return;
  s->mshr_waiters = 0;
  s->env.release(s->env.ctx, TICKET_MSHRWAIT); /* first: the accesses behind them are routed after them */
  s->env.release(s->env.ctx, TICKET_WRWAIT);
  s->env.release(s->env.ctx, TICKET_WRWAIT_C);
}

/* Give up MSHR f before anything waits behind it (the in-flight table is full). */
static void mshr_drop(dc_st *s, uint32_t f) {
  dc_infl *eb = infl_find(s, s->fill[f].block, 0);
  if (eb) --eb->busy, infl_release(s, eb);
  s->fill[f].phase = F_FREE;
  --s->fills_busy;
}

/* The victim of MSHR f's slot and the MSHR's claims on it and on the slot (start of a fill, F_DRAIN). */
static int claim_fill(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  const uint32_t meta = s->meta[F->slot];
  F->has_victim = (meta & META_VALID) != 0;
  F->victim_dirty = (meta & META_DIRTY) != 0;
  F->victim = block_in_slot(s, F->slot, meta & META_TAG);
  dc_infl *ev = F->has_victim ? infl_find(s, F->victim, 1) : NULL, *es = infl_find(s, SLOT_KEY(F->slot), 1);
  if (!es || (F->has_victim && !ev)) return -1;
  ++es->busy;
  es->fill = f;
  if (ev) ++ev->busy, ev->fill = f;
  F->phase = F_DRAIN;
  return 0;
}

/* A fill of block into slot now (MSHR index), or -1: no MSHR free. */
static int mshr_fill(dc_st *s, uint64_t block, uint64_t slot) {
  const int f = mshr_take(s, block, slot);
  if (f < 0) return -1;
  if (claim_fill(s, (uint32_t)f) == 0) return f;
  mshr_drop(s, (uint32_t)f);
  return -1;
}

/* A miss whose fill the design decides later: an MSHR gathering the line's requests (F_PEND), or -1. */
static int mshr_pend(dc_st *s, uint64_t block, uint64_t slot, const memside_req *rq) {
  const int f = mshr_take(s, block, slot);
  if (f < 0) return -1;
  s->fill[f].cols = dc_sectors_in(rq->sectors);
  s->fill[f].wr = rq->write;
  return f;
}

/* ------------------------------------------------------------ fills */

/* F_READ: the new line from SCM and a dirty victim from DRAM (TAD tag rewrite: the line's first column). */
static void fill_reads(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  F->phase = F_READ;
  F->outstanding = 1;
  if (F->tagrmw) { /* TAD: the column's bytes first (the tag bits ride in its ECC; its data must not change) */
    issue(s, s->cdev, dram_addr_of(s, F->slot, 0), DC_COL, 0, MEMSIDE_PROBE, F->meta, TAG_FILL | f);
    return;
  }
  issue(s, s->sdev, scm_addr_of(s, F->block), s->line, 0, MEMSIDE_FILL, s->buf[f][0], TAG_FILL | f);
  if (F->has_victim && F->victim_dirty) {
    ++F->outstanding;
    issue(s, s->cdev, dram_addr_of(s, F->slot, 0), s->line, 0, MEMSIDE_WRITEBACK, s->buf[f][1], TAG_FILL | f);
  }
}

/* F_WRITE: the line into DRAM, the dirty victim to SCM, the row's metadata (TAD: the column back, its tag
 * bits changed). */
static void fill_writes(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  F->phase = F_WRITE;
  F->outstanding = 1;
  if (F->tagrmw) {
    issue(s, s->cdev, dram_addr_of(s, F->slot, 0), DC_COL, 1, MEMSIDE_PROBE, F->meta, TAG_FILL | f);
    return;
  }
  issue(s, s->cdev, dram_addr_of(s, F->slot, 0), s->line, 1, MEMSIDE_FILL, s->buf[f][0], TAG_FILL | f);
  if (F->has_victim && F->victim_dirty) {
    ++F->outstanding;
    ++s->st[S_WRITEBACKS];
    issue(s, s->sdev, scm_addr_of(s, F->victim), s->line, 1, MEMSIDE_WRITEBACK, s->buf[f][1], TAG_FILL | f);
  }
  if (s->tad) { /* the tag went with the line's data; the tag cache keeps the row's tags clean */
    ctc_keeps(s, F->slot, 0);
    return;
  }
  if (ctc_keeps(s, F->slot, 1)) return; /* the row's new tags in the tag cache (dirty) */
  ++F->outstanding;
  ++s->st[S_META_WRITES];
  memset(F->meta, 0, DC_COL); /* the metadata column's bytes (the tags themselves live in the policy state) */
  issue(s, s->cdev, dram_addr_of(s, F->slot, 1), DC_COL, 1, MEMSIDE_PROBE, F->meta, TAG_FILL | f);
}

static void wake_slot_waiters(dc_st *s, uint64_t slot);

/* The line is in DRAM: the tags switch, the MSHR's claims end, the held accesses go. */
static void fill_finish(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  if (!F->tagrmw) s->meta[F->slot] = META_VALID | ((uint32_t)F->level << META_LVL_SHIFT) | (uint32_t)(F->block / s->slots);
  dc_infl *eb = infl_find(s, F->block, 0);
  if (eb) --eb->busy, infl_release(s, eb);
  dc_infl *es = infl_find(s, SLOT_KEY(F->slot), 0);
  if (es) --es->busy, infl_release(s, es);
  if (F->has_victim) {
    dc_infl *ev = infl_find(s, F->victim, 0);
    if (ev) --ev->busy, infl_release(s, ev);
  }
  if (s->slot_waiters) wake_slot_waiters(s, F->slot); /* before the accesses held behind this fill go */
  mshr_free(s, f);
}

static void fill_done(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  if (--F->outstanding) return;
  if (F->phase == F_READ) fill_writes(s, f);
  else fill_finish(s, f);
}

/* The metadata of slot changed outside a fill (a victim's DRAM-affinity level decremented, Sec. III-C3):
 * the tag cache holds the row's tags dirty, or without one the row's metadata column is written; TAD
 * reads the line's tag-bearing first column and writes it back (an MSHR holds the line meanwhile). */
static void meta_changed(dc_st *s, uint64_t slot) {
  if (!s->tad) {
    if (!ctc_keeps(s, slot, 1)) meta_write(s, slot);
    return;
  }
  const uint32_t m = s->meta[slot];
  if (!(m & META_VALID) || infl_busy(s, SLOT_KEY(slot))) return; /* a fill of the slot rewrites it anyway */
  const int f = mshr_take(s, block_in_slot(s, slot, m & META_TAG), slot);
  if (f < 0) return; /* no MSHR: the level changes in the controller only (not counted as written) */
  dc_fill *F = &s->fill[f];
  dc_infl *es = infl_find(s, SLOT_KEY(slot), 1);
  if (!es) {
    mshr_drop(s, (uint32_t)f);
    return;
  }
  ++es->busy, es->fill = (uint32_t)f;
  F->tagrmw = 1;
  F->phase = F_DRAIN;
  ++s->st[S_META_WRITES];
  if (drained(s, F)) fill_reads(s, (uint32_t)f);
}

/* Settle MSHR f's deferred fill (the design's decision, Fig. 9 for HMS): fill (the line's DRAM-affinity level
 * stored with it) or bypass (the MSHR is freed; the requests it held go to SCM, and the victim's level may be
 * decremented). Returns 1 when it fills. */
static void pend_bypass(dc_st *s, uint32_t f, const dc_decision *dp);

static int decide_fill(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  dc_decision d = {0, 0, 0, 0, 0};
  s->d.decide(s, F, &d);
  if (d.fill && !infl_busy(s, SLOT_KEY(F->slot))) {
    F->level = d.level;
    if (claim_fill(s, f) == 0) {
      ++s->st[S_FILLS];
      if (drained(s, F)) fill_reads(s, f);
      return 1;
    }
  } else if (d.fill && s->busy_wait) {
    /* memside.dcache.busy = wait: another fill holds the slot; the MSHR keeps gathering the line's requests
     * and fills once that fill ends (wake_slot_waiters) */
    F->level = d.level;
    F->slotwait = 1;
    ++s->slot_waiters;
    return 1;
  }
  pend_bypass(s, f, &d);
  return 0;
}

/* MSHR f's deferred fill does not happen (decision d): the bypass counted, the victim's level decremented if
 * the design says so, the requests it held sent to SCM, the MSHR freed. */
static void pend_bypass(dc_st *s, uint32_t f, const dc_decision *dp) {
  dc_fill *F = &s->fill[f];
  const dc_decision d = *dp;
  ++s->st[S_BYPASSES];
  /* busy: the design would fill; another fill holds the slot */
  ++s->st[d.fill ? S_BYPASS_BUSY : d.first_level ? S_BYPASS_L1 : S_BYPASS_L2];
  if (d.dec_victim) {
    ++s->st[S_DECREMENTS];
    s->meta[F->slot] = (s->meta[F->slot] & ~META_LVL) | ((uint32_t)d.victim_level << META_LVL_SHIFT);
    meta_changed(s, F->slot);
  }
  dc_infl *eb = infl_find(s, F->block, 0);
  if (eb) eb->byp += F->held, --eb->busy, infl_release(s, eb);
  mshr_free(s, f);
}

/* memside.dcache.busy = wait: the fill holding `slot` has ended; the MSHRs waiting for the slot claim it one
 * at a time (the first in MSHR order now; the next when that fill ends). A claim refused for a full
 * in-flight table goes to SCM as a busy bypass. */
static void wake_slot_waiters(dc_st *s, uint64_t slot) {
  for (uint32_t g = 0; g < s->mshrs && s->slot_waiters; ++g) {
    dc_fill *G = &s->fill[g];
    if (G->phase != F_PEND || !G->slotwait || G->slot != slot) continue;
    if (infl_busy(s, SLOT_KEY(slot))) return;
    G->slotwait = 0;
    --s->slot_waiters;
    if (claim_fill(s, g) == 0) {
      ++s->st[S_FILLS];
      if (drained(s, G)) fill_reads(s, g);
      return;
    }
    const dc_decision d = {1, G->level, 0, 0, 0};
    pend_bypass(s, g, &d);
  }
}

/* ------------------------------------------------------------ route */

/* An access as the route steps see it. */
typedef struct dc_access {
  const memside_req *rq;
  uint64_t block, slot, tag, off;
  int pre_counted;      /* counted as a hit or a miss already (it waited for a write-through slot or an MSHR) */
  int waited_mshr;      /* a miss that waited for a free MSHR (a write; a read with busy = wait): counted, its tags known */
  int counted;          /* step 5 does not count it (pre_counted, or held behind an MSHR after its miss) */
} dc_access;

#define ROUTE_ON (-1) /* a step did not settle the access: the next one */

/* The 32 B columns of its block an access touches (its sectors at its offset in the line). */
static uint32_t cols_of(const dc_access *a) {
  const uint32_t first = (uint32_t)(a->off / DC_COL), lo = (uint32_t)((a->rq->pa & 127) / DC_COL);
  return ((uint32_t)a->rq->sectors >> lo) << first;
}

/* 1. The line's block, slot, tag and offset, and the wait its ticket names. A write-through wait
 * (TICKET_MIRROR: counted already; TICKET_MIRWAIT: not yet) or a write's TICKET_MSHRWAIT (counted, its tags
 * known: the controller held it after its tag check, and any fill of its slot since went through the
 * controller) ends here. */
static void decode_access(const dc_st *s, const memside_req *rq, const memside_target *t, uint32_t *ticket,
                          dc_access *a) {
  devaddr_loc l;
  devaddr_decode(&s->g, t->addr, &l);
  a->rq = rq;
  a->block = block_of(s, &l);
  a->slot = slot_of_block(s, a->block, &a->tag);
  a->off = t->addr & (s->line - 1);
  a->pre_counted = a->waited_mshr = 0;
  if (*ticket == TICKET_MIRROR) a->pre_counted = 1, *ticket = 0;
  else if (*ticket == TICKET_MIRWAIT) *ticket = 0;
  else if (*ticket == TICKET_MSHRWAIT) a->pre_counted = a->waited_mshr = 1, *ticket = 0;
  else if (*ticket == TICKET_WRWAIT) *ticket = 0;
  else if (*ticket == TICKET_WRWAIT_C) a->pre_counted = 1, *ticket = 0;
}

/* 2. SCM must not be read or written ahead of a write-through copy of the line. Returns 1 when held. */
static int wait_for_mirror(dc_st *s, const dc_access *a, uint32_t *ticket) {
  const dc_infl *w = infl_find(s, a->block, 0);
  if (!w || !w->mir || cached(s, a->slot, a->tag)) return 0;
  s->mirror_waiters = 1;
  *ticket = (a->pre_counted || (*ticket & TICKET_MSHR)) ? TICKET_MIRROR : TICKET_MIRWAIT;
  return 1;
}

/* An access joins an MSHR: it gives back the probe it held, and counts as a miss merged into the MSHR (once:
 * an access held behind an MSHR before was counted then; a write miss that waited for a free MSHR was
 * counted as a miss, now it is merged). */
static void join_mshr(dc_st *s, const dc_access *a, uint32_t ticket) {
  if (ticket & TICKET_MSHR) return;
  if (ticket) probe_put(s, ticket);
  if (a->pre_counted && !a->waited_mshr) return;
  ++s->st[S_MSHR_MERGES];
  s->st[a->rq->write ? S_WRITE_MISSES : S_READ_MISSES] += !a->pre_counted;
}

/* 3a. Held behind an MSHR that bypassed: to SCM, unless the line got cached or is being filled now (then the
 * usual way). Returns 1 when it goes. */
static int after_bypass(dc_st *s, const dc_access *a, int fill_running) {
  dc_infl *e = infl_find(s, a->block, 0);
  if (!e || !e->byp) return 0;
  --e->byp; /* one of them */
  if (!cached(s, a->slot, a->tag) && !fill_running) {
    went(e, a->rq);
    return 1;
  }
  infl_release(s, e);
  return 0;
}

/* 3b. A miss of a line whose fill is being decided merges into its MSHR: a write waits for the decision, and
 * so does whatever follows a held request; a read is served by SCM now. */
static int merge_pending(dc_st *s, const dc_access *a, uint32_t f, uint32_t *ticket) {
  dc_fill *F = &s->fill[f];
  const uint32_t mine = mshr_ticket(s, f);
  if (*ticket != mine) {
    join_mshr(s, a, *ticket);
    F->cols += dc_sectors_in(a->rq->sectors);
    F->wr |= (uint8_t)a->rq->write;
  }
  if (a->rq->write || F->held) {
    if (*ticket != mine) ++F->held;
    *ticket = mine;
    return MEMSIDE_HOLD;
  }
  *ticket = 0;
  went(infl_find(s, a->block, 1), a->rq);
  return MEMSIDE_GO;
}

/* 3. An MSHR involving the line or its slot (a fill or an eviction). */
static int route_mshr(dc_st *s, const dc_access *a, uint32_t *ticket) {
  uint32_t mshr = infl_busy(s, a->block);
  const int pending = mshr && s->fill[mshr - 1].phase == F_PEND;
  if ((*ticket & TICKET_MSHR) && after_bypass(s, a, mshr && !pending)) {
    *ticket = 0;
    return MEMSIDE_GO;
  }
  if (pending) return merge_pending(s, a, mshr - 1, ticket);
  if (!mshr) mshr = infl_busy(s, SLOT_KEY(a->slot));
  if (!mshr) return ROUTE_ON;
  join_mshr(s, a, *ticket); /* 3c. its line or its DRAM slot is being filled or evicted: it waits */
  *ticket = mshr_ticket(s, mshr - 1);
  return MEMSIDE_HOLD;
}

/* 3d. A write miss of the line waits for a free MSHR: a later read of its columns waits behind it (served by
 * SCM meanwhile, it would miss the write's bytes), released after it. (A later write miss of the line waits
 * for an MSHR behind it in the same queue.) Returns 1 when held. */
static int wait_for_write(dc_st *s, const dc_access *a, uint32_t *ticket) {
  if (a->rq->write) return 0;
  dc_infl *w = infl_find(s, a->block, 0);
  if (!w || !w->mw || !(w->mwcols & cols_of(a))) return 0;
  if (*ticket && !(*ticket & TICKET_MSHR)) probe_put(s, *ticket); /* the probe it waited for */
  s->mshr_waiters = 1;
  *ticket = a->counted ? TICKET_WRWAIT_C : TICKET_WRWAIT;
  return 1;
}

/* 4. The slot's tags. Returns 1 when the controller knows them; 0: the access waits for a probe (its ticket,
 * or 0 when every probe entry is busy: retried on any release). */
static int tags_known(dc_st *s, const dc_access *a, uint32_t *ticket) {
  if (*ticket & TICKET_MSHR) { /* the MSHR it waited for is done: the controller knows this slot's tags */
    *ticket = 0;
    return 1;
  }
  if (s->ideal_tags || a->waited_mshr) return 1;
  if (!*ticket && s->use_ctc) { /* the tag cache */
    ctc_result r;
    ++s->st[S_CTC_LOOKUPS];
    if (s->ctc->lookup(s->ctc_st, group_of(s, a->slot), &r) == CTC_OK && r.hit) {
      ++s->st[S_CTC_HITS];
      return 1;
    }
  }
  if (!*ticket) { /* a probe of the tags (AMIL: the row's metadata column) */
    probe_for(s, a->slot, ticket);
    return 0;
  }
  if (!s->probe[*ticket - 1].done) return 0;
  probe_put(s, *ticket);
  *ticket = 0;
  return 1;
}

/* A write-through copy of a write hit (the same bytes to the line's SCM home). Returns 0 when every
 * write-through slot is busy. */
static int start_mirror(dc_st *s, const dc_access *a, dc_infl *e, memside_target *out) {
  if (s->mirrors >= MEMSIDE_MIRROR_SLOTS) return 0;
  ++s->mirrors;
  ++s->st[S_WRITE_THROUGHS];
  out->mirror = 1;
  out->mirror_dev = s->sdev;
  out->mirror_addr = (scm_addr_of(s, a->block) + a->off) & ~(uint64_t)127; /* the L2 line's 128 B there */
  out->mirror_tag = TAG_MIRROR | a->block;
  if (e) ++e->n, ++e->nw, ++e->mir; /* the copy on its way to SCM: fills and SCM accesses of the line wait */
  return 1;
}

/* 6. A hit: to the line in DRAM (a write marks it dirty, or goes through to SCM as well). */
static int route_hit(dc_st *s, const dc_access *a, uint32_t meta, dc_infl *e, uint32_t *ticket, memside_target *out) {
  const memside_req *rq = a->rq;
  if (rq->write && !(meta & META_DIRTY) && s->d.write_through && s->d.write_through(s, rq->pa)) {
    if (!start_mirror(s, a, e, out)) {
      if (!a->counted) ++s->st[S_WRITE_HITS];
      if (e) infl_release(s, e);
      *ticket = TICKET_MIRROR;
      return MEMSIDE_HOLD;
    }
  } else if (rq->write) {
    s->meta[a->slot] |= META_DIRTY;
  }
  if (!a->counted) ++s->st[rq->write ? S_WRITE_HITS : S_READ_HITS];
  if (a->waited_mshr) ++s->st[S_MSHR_MERGES]; /* a miss whose line another fill brought while it waited */
  if (s->d.hit) s->d.hit(s, rq, dc_sectors_in(rq->sectors) + (e ? e->cols : 0));
  out->addr = dram_addr_of(s, a->slot, 0) + a->off;
  out->dev = s->cdev;
  out->kind = AMAP_MEM_DRAM;
  went(e, rq);
  return MEMSIDE_GO;
}

/* To SCM (where *out already points) without a fill; `why`: the counter of the reason. */
static int go_without_fill(dc_st *s, dc_infl *e, const memside_req *rq, int why) {
  ++s->st[S_BYPASSES];
  ++s->st[why];
  went(e, rq);
  return MEMSIDE_GO;
}

/* A write miss that finds every MSHR busy waits for one (an MSHR file that is full stalls the miss, Sec.
 * III-F's 128-entry MSHR) instead of going to SCM: a write to SCM holds its bank for tWR (Table I: 1000
 * cycles), and writes are what the DRAM cache is there to absorb. A read miss is served by SCM at once and
 * only its fill is dropped, unless memside.dcache.busy = wait: then it waits too. Returns 1 when the access
 * is held. */
static int wait_for_mshr(dc_st *s, const dc_access *a, dc_infl *e, uint32_t *ticket) {
  if ((!a->rq->write && !s->busy_wait) || s->fills_busy < s->mshrs)
    return 0; /* (a fill refused for a full in-flight table: to SCM) */
  if (e && a->rq->write) ++e->mw, e->mwcols |= cols_of(a); /* later reads of these columns wait behind it (3d) */
  s->mshr_waiters = 1;
  *ticket = TICKET_MSHRWAIT;
  return 1;
}

/* 7. A miss: to SCM, and the design's choice of fill. */
static int route_miss(dc_st *s, const dc_access *a, dc_infl *e, uint32_t *ticket) {
  const memside_req *rq = a->rq;
  if (!a->counted) ++s->st[rq->write ? S_WRITE_MISSES : S_READ_MISSES];
  const int how = s->d.miss ? s->d.miss(s, rq, a->block, a->slot) : DC_MISS_FILL;
  if (how == DC_MISS_BYPASS) return go_without_fill(s, e, rq, S_BYPASS_L1);
  /* 7a. an MSHR for the line */
  const int f = how == DC_MISS_DECIDE ? mshr_pend(s, a->block, a->slot, rq) : mshr_fill(s, a->block, a->slot);
  if (f < 0) {
    e = infl_find(s, a->block, 1); /* (a fill given up for a full in-flight table may have released it) */
    if (wait_for_mshr(s, a, e, ticket)) return MEMSIDE_HOLD;
    return go_without_fill(s, e, rq, S_BYPASS_BUSY); /* no MSHR free: served by SCM without a fill */
  }
  if (how == DC_MISS_DECIDE) {
    /* 7b. the design decides once the demand has been served by SCM (dcache_complete); a write with nothing of
     * its line in flight is decided at once (it would wait for nothing) */
    if (!rq->write) {
      went(e, rq);
      return MEMSIDE_GO;
    }
    if (e && e->n) { /* reads of the line in flight: the decision waits for them */
      s->fill[f].held = 1;
      *ticket = mshr_ticket(s, (uint32_t)f);
      return MEMSIDE_HOLD;
    }
    if (decide_fill(s, (uint32_t)f)) { /* filled: the write hits in DRAM once the line is there */
      *ticket = mshr_ticket(s, (uint32_t)f);
      return MEMSIDE_HOLD;
    }
    went(infl_find(s, a->block, 1), rq); /* bypassed: the write goes to SCM */
    return MEMSIDE_GO;
  }
  /* 7c. the line is filled now: a read is served by SCM meanwhile; a write waits for the line and then writes
   * it in DRAM (an SCM write costs far more than the line's read: Table I tWR 1000 against tRCD 120) */
  ++s->st[S_FILLS];
  if (rq->write) {
    if (drained(s, &s->fill[f])) fill_reads(s, (uint32_t)f);
    *ticket = mshr_ticket(s, (uint32_t)f);
    return MEMSIDE_HOLD;
  }
  went(infl_find(s, a->block, 1), rq);
  if (drained(s, &s->fill[f])) fill_reads(s, (uint32_t)f); /* only reads in flight: no drain needed */
  return MEMSIDE_GO;
}

int dcache_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  dc_st *s = (dc_st *)st;
  static_locate(s, rq->pa, out);
  if (rq->pa >= s->backing_limit) return MEMSIDE_GO; /* outside the SCM part: flat */
  dc_access a;
  int r;
  /* 1. decode the line and the ticket */
  decode_access(s, rq, out, ticket, &a);
  if (a.waited_mshr && rq->write) { /* a write miss that waited for a free MSHR: no longer held (3d) */
    dc_infl *w = infl_find(s, a.block, 0);
    if (w && w->mw && !--w->mw) w->mwcols = 0, infl_release(s, w);
  }
  /* 2. write-through copies of the line go first */
  if (s->d.write_through && wait_for_mirror(s, &a, ticket)) return MEMSIDE_HOLD;
  /* 3. an MSHR of the line or its slot: after a bypass to SCM, merged into a pending decision, or held */
  if ((r = route_mshr(s, &a, ticket)) != ROUTE_ON) return r;
  /* Every access counts once as a hit or a miss: where it is first decided (a miss merged into an MSHR is a
   * miss; routed again after that MSHR it is not counted again). */
  a.counted = a.pre_counted || (*ticket & TICKET_MSHR) != 0;
  /* 3d. a write miss of the line held for a free MSHR goes before a read of its bytes */
  if (!a.waited_mshr && wait_for_write(s, &a, ticket)) return MEMSIDE_HOLD;
  /* 4. the slot's tags */
  if (!tags_known(s, &a, ticket)) return MEMSIDE_HOLD;
  /* 5. hit or miss */
  const uint32_t meta = s->meta[a.slot];
  dc_infl *e = infl_find(s, a.block, 1);
  const int hit = (meta & META_VALID) && (meta & META_TAG) == a.tag;
  if (!a.counted && s->d.sample) s->d.sample(s, a.slot, a.block, hit);
  /* 6. / 7. */
  return hit ? route_hit(s, &a, meta, e, ticket, out) : route_miss(s, &a, e, ticket);
}

/* ------------------------------------------------ completions, done */

void dcache_complete(void *st, const memside_req *rq, const memside_target *t) {
  dc_st *s = (dc_st *)st;
  devaddr_loc l;
  devaddr_decode(&s->g, t->addr, &l);
  uint64_t block;
  if (t->dev == s->cdev && t->kind == AMAP_MEM_DRAM) { /* a hit: the slot's line (no fill changes it while accesses are in flight) */
    const uint64_t slot = slot_of_dram(s, &l);
    block = block_in_slot(s, slot, s->meta[slot] & META_TAG);
  } else {
    block = block_of(s, &l);
  }
  dc_infl *e = infl_find(s, block, 0);
  if (!e || !e->n) return;
  --e->n;
  if (rq->write && e->nw) --e->nw;
  const uint32_t c = dc_sectors_in(rq->sectors);
  e->cols = e->cols > c ? e->cols - c : 0;
  if (e->busy) { /* the one fill involving the block (fills of a slot run one at a time) may start now */
    const uint32_t f = e->fill;
    dc_fill *F = &s->fill[f];
    if (F->phase == F_PEND && F->block == block && !F->slotwait) decide_fill(s, f); /* the demand has been served by SCM */
    else if (F->phase == F_DRAIN && drained(s, F)) fill_reads(s, f);
    e = infl_find(s, block, 0);
    if (!e) return;
  }
  infl_release(s, e);
}

/* A write-through copy of block is in SCM. */
static void mirror_done(dc_st *s, uint64_t block) {
  dc_infl *e = infl_find(s, block, 0);
  if (e && e->n) {
    --e->n;
    if (e->mir) --e->mir;
    if (e->nw) --e->nw;
    if (e->busy) {
      dc_fill *F = &s->fill[e->fill];
      if (F->phase == F_DRAIN && drained(s, F)) fill_reads(s, e->fill);
      e = infl_find(s, block, 0);
    }
    if (e) infl_release(s, e);
  }
  if (s->mirrors-- == MEMSIDE_MIRROR_SLOTS || s->mirror_waiters) {
    s->mirror_waiters = 0;
    s->env.release(s->env.ctx, TICKET_MIRROR);
    s->env.release(s->env.ctx, TICKET_MIRWAIT);
  }
}

/* A probe's columns are back: the tags into the tag cache (clean), its waiters released. */
static void probe_done(dc_st *s, uint32_t i) {
  dc_probe *P = &s->probe[i];
  if (--P->outstanding) return;
  P->done = 1;
  if (s->use_ctc) {
    ctc_result r;
    s->ctc->fill(s->ctc_st, P->key, 0, &r);
    meta_writebacks(s, &r);
  }
  s->env.release(s->env.ctx, i + 1);
}

void dcache_done(void *st, uint64_t tag) {
  dc_st *s = (dc_st *)st;
  switch (tag >> TAG_KIND_SHIFT) {
  case TAG_KIND_MIRROR: mirror_done(s, tag & TAG_INDEX); break;
  case TAG_KIND_META: --s->meta_pending; break;
  case TAG_KIND_PROBE: probe_done(s, (uint32_t)(tag & 0xffffffffu)); break;
  default: fill_done(s, (uint32_t)(tag & 0xffffffffu)); break;
  }
}

/* Lines below 128 B: the shell routes each line-sized piece of an L2 line on its own (memside_ops.granule). */
uint32_t dcache_granule(const void *st) {
  const dc_st *s = (const dc_st *)st;
  return s->line < 128 ? s->line : 0;
}

int dcache_busy(const void *st) {
  const dc_st *s = (const dc_st *)st;
  return s->fills_busy || s->probes_busy || s->meta_pending || s->mirrors;
}

/* The timing of a rank changed (SCM throttling, Sec. III-E): kept in the config copy; a design whose
 * decisions follow it (HMS's Eq. 1 numerators) is told when the rank is one of the cache's. */
void dcache_timing_changed(void *st, uint32_t dev, uint32_t rank, uint32_t trcd, uint32_t twr) {
  dc_st *s = (dc_st *)st;
  if (dev >= MEMSIDE_MAX_DEVS || rank >= AMAP_MAX_RANKS) return;
  s->cfg.rank_trcd[dev][rank] = trcd;
  s->cfg.rank_twr[dev][rank] = twr;
  if (s->d.timing_changed && (dev == s->cdev || dev == s->sdev)) s->d.timing_changed(s);
}

/* ------------------------------------------------------------ stats */

void dcache_stats(const void *st, memside_stats *out) {
  const dc_st *s = (const dc_st *)st;
  out->moves = s->st[S_FILLS] + s->st[S_WRITEBACKS];
  out->moved_bytes = (s->st[S_FILLS] + s->st[S_WRITEBACKS]) * s->line;
  out->remaps = s->st[S_FILLS];
}

const char *const dcache_stat_names[] = {"read_hits", "write_hits", "read_misses", "write_misses", "probes",
                                         "probe_merges", "fills", "writebacks", "mshr_merges", "bypasses",
                                         "ctc_lookups", "ctc_hits", "meta_writes", "bypasses_first_level",
                                         "bypasses_second_level", "bypasses_busy", "victim_decrements",
                                         "write_throughs", NULL};
const char *const dcache_stat_descs[] = {
    "L2 reads served by the DRAM cache",
    "L2 write-backs written into the DRAM cache",
    "L2 reads that missed the DRAM cache (served by SCM)",
    "L2 write-backs that missed the DRAM cache (allocated, then written in DRAM; to SCM when no MSHR is free)",
    "metadata-column reads (AMIL probes)",
    "accesses that shared another access's probe of the same DRAM row",
    "lines (memside.dcache.line_bytes) filled from SCM into the DRAM cache",
    "dirty victim lines written back to SCM",
    "accesses held behind an MSHR (their line being filled or evicted)",
    "misses served by SCM without a fill (the bypass policy's decision, or no MSHR or slot free)",
    "Configurable Tag Cache lookups (accesses with no probe of their own yet)",
    "Configurable Tag Cache hits (the row's tags without a probe)",
    "metadata-column writes (each fill without a tag cache; dirty tag-cache evictions with one)",
    "bypasses decided by the first-level comparison (SCM penalty level <= average level, Fig. 9 step 2)",
    "bypasses decided by the second-level comparison (DRAM-affinity level <= the victim's, Fig. 9 step 4)",
    "misses served by SCM without a fill because no MSHR was free or another fill held the slot",
    "victims whose DRAM-affinity level was decremented (probability p_dec, Fig. 9 step 5)",
    "write hits also written to SCM (McCachei's write-through outside its dirty-region tracker)",
};

#define B(i) (1ull << (i))
const memside_derived dcache_stat_derived[] = {
    {"hits", "L2 accesses served by the DRAM cache", B(S_READ_HITS) | B(S_WRITE_HITS), 0},
    {"misses", "L2 accesses that missed the DRAM cache", B(S_READ_MISSES) | B(S_WRITE_MISSES), 0},
    {"hit_rate", "DRAM-cache hits / L2 accesses", B(S_READ_HITS) | B(S_WRITE_HITS),
     B(S_READ_HITS) | B(S_WRITE_HITS) | B(S_READ_MISSES) | B(S_WRITE_MISSES)},
    {"hit_rate.read", "DRAM-cache read hits / L2 reads", B(S_READ_HITS), B(S_READ_HITS) | B(S_READ_MISSES)},
    {"hit_rate.write", "DRAM-cache write hits / L2 write-backs", B(S_WRITE_HITS), B(S_WRITE_HITS) | B(S_WRITE_MISSES)},
    {"bypass_rate", "misses served by SCM without a fill / misses", B(S_BYPASSES), B(S_READ_MISSES) | B(S_WRITE_MISSES)},
    {"bypass_first_level_rate", "bypasses decided at the first level / bypasses decided by the policy (HMS: 88.1 %)",
     B(S_BYPASS_L1), B(S_BYPASS_L1) | B(S_BYPASS_L2)},
    {"ctc_hit_rate", "Configurable Tag Cache hits / lookups (HMS: ~91 %)", B(S_CTC_HITS), B(S_CTC_LOOKUPS)},
    {"=ctc.hit_rate", "Configurable Tag Cache hits / lookups (= dcache.ctc_hit_rate)", B(S_CTC_HITS),
     B(S_CTC_LOOKUPS)},
    {NULL, NULL, 0, 0},
};
#undef B
_Static_assert(S_NSTATS <= 64, "derived stats index counters by bit");

void dcache_stat_values(const void *st, uint64_t *out) {
  memcpy(out, ((const dc_st *)st)->st, sizeof(uint64_t) * S_NSTATS);
}
