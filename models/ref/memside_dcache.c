/* memside_dcache: the DRAM cache of HMS (hms-dram-cache-over-scm.txt Sec.
 * III) as a memory-side policy: in each channel the DRAM rank caches the SCM
 * rank of the same channel (both ranks share the channel's command and data
 * bus, HMS Fig. 6), direct-mapped, DRAM cachelines of cfg.dcache.line_bytes
 * (memside.dcache.line_bytes: 256 B as Sec. III-A, 128 B to 1 KiB for the
 * sensitivity study of Sec. IV-C, Fig. 16b).
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
 * Flow of an access of the L2 (Sec. III-F), without bypass (the paper's
 * HMS-B; HMS-B-C without the tag cache):
 *   0. Configurable Tag Cache (Sec. III-D; cfg.dcache.ctc_ways L2 ways per
 *      bank, the landed C reference ctc.c): a hit gives the row's tags at
 *      once; the lookup costs no time beyond the L2 miss it rides on;
 *   1. probe (tag-cache miss): read the row's metadata column (one probe
 *      serves every access to that row waiting for it; the access is held
 *      until it returns), then install the row's tags in the tag cache;
 *   2. hit: the access goes to the DRAM rank (a write marks the line dirty);
 *   3. read miss: the access goes to the SCM rank, and the line is
 *      filled into the DRAM cache (an MSHR, up to cfg.dcache.mshrs at once):
 *      accesses to the line and to its victim are held, the writes already on
 *      their way to the line and every access to the victim are drained (the
 *      demand read itself need not be), then the line is read from SCM
 *      (and a dirty victim from DRAM), written to DRAM (and the victim to
 *      SCM), the row's metadata column is written, and the tags switch;
 *   4. write miss (an L2 write-back): the line is filled the same way and
 *      the write, held behind the MSHR, then hits in DRAM (write-allocate:
 *      without the bypass policy every miss allocates).
 *
 * TAD (Fig. 7b; memside.dcache.org = "tad", the paper's HMST): each line's
 * tag travels with its data (in the ECC bits of its columns), so a row holds
 * row / line lines (8 of 256 B) and no metadata column; bringing a tag
 * group's tags (a probe on a tag-cache miss) reads the tag-bearing first
 * column of each of its lines, 8 column reads where AMIL needs one (Sec.
 * IV-C, Fig. 18; fewer with lines of 512 B or more); a fill writes the
 * tag with the line (no metadata write), and a changed DRAM-affinity level
 * rewrites the victim line's first column.
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
 * consecutive slots spread over the banks.
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "bps.h"
#include "ctc.h"
#include "memside.h"

#define DC_LINE_MIN 128u  /* an L2 line (128 B) lies in one DRAM-cache line (docs/hms.md: why not 64 B) */
#define DC_LINE_MAX 1024u /* the MSHRs' line buffers are this big (<= MEMSIDE_XFER_MAX) */
#define DC_COL 32u
#define DC_GROUP 8u       /* lines whose 4 B metadata fill one 32 B column: a tag group, one tag-cache sector */
#define DC_PROBES 64u
#define DC_INFL 4096u /* power of two; blocks with accesses in flight or a fill */
#define DC_MAX_MSHRS 128u

#define DC_META_MAX 128u /* metadata-column write-backs in flight (a write buffer; beyond it they merge) */
_Static_assert(DC_MAX_MSHRS * 3 + DC_PROBES * DC_GROUP + DC_META_MAX <= MEMSIDE_XFER_SLOTS,
               "policy transfers in flight fit the shell"); /* a TAD probe reads one column per line of its group */
_Static_assert(DC_LINE_MAX <= MEMSIDE_XFER_MAX, "a line moves in one transfer");

/* A line's metadata (what AMIL keeps in the row's last column, Sec. III-B):
 * valid, dirty, the 2-bit DRAM-affinity level of the bypass policy
 * (Sec. III-C2) and the tag. */
#define META_VALID 0x80000000u
#define META_DIRTY 0x40000000u
#define META_LVL_SHIFT 28
#define META_LVL (3u << META_LVL_SHIFT)
#define META_TAG 0x0fffffffu
_Static_assert(BPS_NLEVELS <= 4, "the DRAM-affinity level fits the 2 metadata bits");

/* Activation counters (Sec. III-C3): 8 bits per 2 MiB page. */
#define DC_PAGE_BYTES (2u << 20)

/* F_PEND: a miss with the bypass policy on, its decision waiting for the
 * demand's SCM access (Sec. III-F: "the requested address is first accessed
 * from SCM ..., and then, the bypass policy determines if the fill should be
 * done"); the MSHR gathers the requests to the line meanwhile. */
enum dc_phase { F_FREE, F_PEND, F_DRAIN, F_READ, F_WRITE };

typedef struct dc_fill {
  uint8_t phase;        /* enum dc_phase */
  uint8_t has_victim, victim_dirty;
  uint8_t wr;           /* F_PEND: a write among the line's requests */
  uint8_t level;        /* DRAM-affinity level stored with the new line */
  uint8_t tagrmw;       /* TAD: not a fill but a rewrite of the line's first column with its new tag bits */
  uint32_t cols;        /* F_PEND: 32 B columns the line's requests access (Eq. 1 denominator) */
  uint32_t held;        /* F_PEND: requests held behind it (to SCM if it bypasses) */
  uint32_t slot, outstanding;
  uint32_t gen;         /* allocations of this entry so far (its tickets carry it) */
  uint64_t block, victim;
  unsigned char meta[DC_COL]; /* last: a tag rewrite clears the fields before it (its line buffers: dc_st.buf) */
} dc_fill;

typedef struct dc_probe {
  uint8_t busy, done;
  uint32_t refs;
  uint32_t outstanding; /* column reads not back yet (1 with AMIL, one per line of the row with TAD) */
  uint64_t key;         /* the tag group it reads (group_of), or the line (slot) for a per-line probe */
  unsigned char meta[DC_COL];
} dc_probe;

typedef struct dc_infl {
  uint64_t key;         /* block + 1; 0 = empty */
  uint32_t n;           /* routed accesses not answered yet */
  uint32_t nw;          /* of them, writes */
  uint32_t busy;        /* fills involving the block (new line or victim) */
  uint32_t fill;        /* the latest of them (MSHR index) */
  uint32_t cols;        /* 32 B sectors of the routed accesses not answered yet */
  uint32_t byp;         /* requests held behind an MSHR that bypassed: they go to SCM when routed again */
  uint32_t mir;         /* write-through copies of the line on their way to SCM (McCachei) */
} dc_infl;

/* McCachei's dirty-region tracker (Sim et al., MICRO 2012, the HMS paper's ref. [124]), as Strata
 * models it: a page (4 KiB physical) whose hashed write counter reaches DIRT_THRESHOLD enters a
 * DIRT_PAGES-entry LRU list; writes to listed pages stay in the DRAM cache (write-back), every other
 * write also goes to SCM (write-through), keeping the cache mostly clean. */
/* RedCachei (the HMS paper's ref. [25], Sec. IV-B, as Strata models it from the HMS paper's
 * description: "bypasses DRAM cache with dynamic access count thresholds to identify hot data", "an
 * ideal gamma update without DRAM BW overhead"): a line missing the DRAM cache is filled once it has
 * been accessed gamma times (hashed per-line counters, kept at no cost); gamma moves by one every
 * RED_EPOCH accesses, hill-climbing on the epoch's DRAM-cache hit rate (the same direction while the
 * rate does not fall, else back). */
#define RED_COUNTERS 16384u
#define RED_EPOCH 4096u
#define RED_GAMMA_MIN 1u
#define RED_GAMMA_MAX 8u

#define DIRT_COUNTERS 1024u
#define DIRT_PAGES 64u
#define DIRT_THRESHOLD 16u

enum {
  S_READ_HITS, S_WRITE_HITS, S_READ_MISSES, S_WRITE_MISSES, S_PROBES, S_PROBE_MERGES, S_FILLS, S_WRITEBACKS,
  S_MSHR_MERGES, S_BYPASSES, S_CTC_LOOKUPS, S_CTC_HITS, S_META_WRITES, S_BYPASS_L1, S_BYPASS_L2, S_BYPASS_BUSY,
  S_DECREMENTS, S_WRITE_THROUGHS, S_NSTATS
};

typedef struct dc_st {
  memside_cfg cfg;
  memside_env env;
  devaddr_geom g;         /* the geometry of both devices (equal: one interface preset) */
  uint32_t cdev, sdev;     /* the partition's devices holding the DRAM cache and the SCM (the same channel in HMS) */
  uint32_t ncr, nsr;       /* DRAM-cache ranks (on cdev) and SCM ranks (on sdev) */
  uint8_t cr[AMAP_MAX_RANKS], sr[AMAP_MAX_RANKS];   /* their rank numbers, ascending */
  uint8_t cri[AMAP_MAX_RANKS], sri[AMAP_MAX_RANKS]; /* index of a rank number in cr[] / sr[] */
  uint32_t line;         /* DRAM-cacheline bytes (cfg.dcache.line_bytes) */
  uint32_t lcols;        /* its 32 B columns */
  uint32_t lpr;          /* cachelines per DRAM row */
  uint32_t gpr;          /* tag groups per row (ceil(lpr / DC_GROUP)); AMIL: its metadata columns */
  uint32_t meta_cols;    /* AMIL: the row's last columns holding metadata (gpr); TAD: 0 */
  uint32_t nbanks;       /* bank groups x banks */
  uint32_t groups;       /* line-sized column groups per row (SCM blocks per row) */
  uint32_t page_blocks;  /* lines per 2 MiB page (activation counters) */
  uint64_t slots;        /* DRAM-cache lines of the partition */
  uint64_t backing_limit;/* physical addresses below are the SCM part */
  uint32_t mshrs, fills_busy, probes_busy;
  int tad;               /* TAD organisation (tags with the data) instead of AMIL */
  uint64_t st[S_NSTATS];
  int use_ctc;
  ctc tc;                /* the tag cache (its arrays: ctc_init's, freed never: one per partition for the run) */
  int bypass;            /* the SCM-aware bypass decides fills */
  int ideal_tags;        /* BEARi: the controller knows every line's presence at no cost (no probe, no tag cache) */
  int bab;               /* BEARi: BEAR's bandwidth-aware bypass decides fills */
  uint32_t bab_rng;      /* its random draws (xorshift32, never 0) */
  uint32_t bab_acc[2], bab_hit[2]; /* accesses and hits of the two sampled slot groups (always fill, 90 % bypass) */
  int probe_line;        /* RedCachei: a probe reads the line's own tag-bearing column (Alloy-style TAD, no tag cache) */
  int redcache;          /* RedCachei: a line is filled once its access count reaches gamma */
  uint32_t red_gamma;    /* the threshold now, RED_GAMMA_MIN..RED_GAMMA_MAX */
  int32_t red_step;      /* its last move, +1 or -1 */
  uint32_t red_acc, red_hit;        /* accesses and hits of the current epoch */
  uint64_t red_prev_hit, red_prev_acc; /* those of the previous epoch */
  uint8_t red_cnt[RED_COUNTERS];    /* accesses per line (hashed), counted while it is not cached */
  int mccache;           /* McCachei: write-through except pages in the dirty-region tracker */
  uint32_t mirrors;      /* write-through copies in flight (<= MEMSIDE_MIRROR_SLOTS) */
  int mirror_waiters;    /* accesses held until a copy is written (TICKET_MIRWAIT) */
  int mshr_waiters;      /* write misses held until an MSHR is free (TICKET_MSHRWAIT) */
  uint8_t dirt_cnt[DIRT_COUNTERS];   /* writes per 4 KiB page (hashed), to enter the tracker */
  uint64_t dirt_page[DIRT_PAGES];    /* pages in write-back mode (page + 1; 0 = empty) */
  uint64_t dirt_used[DIRT_PAGES];    /* last write to each (LRU) */
  uint64_t dirt_clock;
  bps_t bps;             /* its scorer (bps.c, the same code the RTL testbench compares against) */
  uint32_t act_pages;    /* activation counters (0: disabled, the score uses 1) */
  uint8_t *act;          /* act_pages counters, after meta[] in the state block */
  uint32_t meta_pending; /* metadata-column write-backs in flight */
  unsigned char meta_buf[DC_COL];
  dc_fill fill[DC_MAX_MSHRS];
  /* each MSHR's line buffers: the new line (read from SCM) and the victim (read from DRAM); the shell
   * copies a write's bytes when it sends it */
  unsigned char buf[DC_MAX_MSHRS][2][DC_LINE_MAX];
  dc_probe probe[DC_PROBES];
  dc_infl infl[DC_INFL];
  uint32_t meta[];       /* per slot: META_VALID | META_DIRTY | tag */
} dc_st;

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
  if (meta_cols) *meta_cols = mc;
  return lpr;
}

static uint64_t slots_of(const memside_cfg *c, uint32_t *lpr_out, uint32_t *meta_cols) {
  const devaddr_geom *g = &c->geom[0];
  const uint64_t row_bytes = (uint64_t)g->columns * g->atom_bytes;
  const uint32_t line = c->dcache.line_bytes;
  const uint32_t lpr = line ? lines_per_row(row_bytes, line, c->dcache.tad, meta_cols) : 0;
  if (lpr_out) *lpr_out = lpr;
  const uint64_t rows = c->dcache.cache_bytes / row_bytes;
  return rows * lpr;
}

/* Activation counters of the partition: its share of the SCM part in 2 MiB pages. */
static uint32_t act_pages_of(const memside_cfg *c) {
  if (!c->dcache.act_counters || !c->map->nparts || !c->map->part[0].nch) return 0;
  const uint64_t per_ch = c->map->part[0].bytes / c->map->part[0].nch;
  return (uint32_t)((per_ch + (2u << 20) - 1) / (2u << 20));
}

static size_t dc_state_bytes(const memside_cfg *cfg) {
  return sizeof(dc_st) + slots_of(cfg, NULL, NULL) * sizeof(uint32_t) + act_pages_of(cfg);
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
  if (e->n || e->busy || e->byp || e->mir) return;
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

/* A fill may read once nothing can change what it reads or overwrites: no
 * write to the new line on its way to SCM (reads of it from SCM do not
 * conflict), and no access at all to the victim's DRAM slot (the fill
 * overwrites it). */
static int drained(dc_st *s, const dc_fill *F) {
  return !infl_writes(s, F->block) && !(F->has_victim && infl_count(s, F->victim));
}

/* ------------------------------------------------------------ set-up */

static int dc_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  dc_st *s = (dc_st *)st;
  memset(s, 0, sizeof *s);
  s->cfg = *cfg;
  s->env = *env;
  s->g = cfg->geom[0];
  if (memside_check_map(cfg, err, errlen) != 0) return -1;
  /* The partition: one channel with DRAM and SCM ranks (HMS, Fig. 6a), or a DRAM channel and an SCM channel
   * (Fig. 6b, Sep. DRAM&SCM; memside.partition_channels = 2). The DRAM ranks cache the SCM ranks. */
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
  const amap *m = cfg->map;
  if (m->nparts < 1 || m->interleave || m->part[0].mem == AMAP_MEM_DRAM || !m->part[0].bytes) {
    snprintf(err, errlen, "the DRAM cache needs the SCM part first and contiguous (addrmap.part_order = \"scm, "
                          "dram\", addrmap.part_interleave = 0)");
    return -1;
  }
  s->backing_limit = m->part[0].bytes;
  for (uint32_t k = 1; k < m->nparts; ++k) /* the DRAM rank holds the cache: at most its part of the map */
    if (m->part[k].mem == AMAP_MEM_DRAM && m->part[k].nch && cfg->dcache.cache_bytes > m->part[k].bytes / m->part[k].nch) {
      snprintf(err, errlen, "memside.dcache.size: expected at most the DRAM rank's %llu bytes per channel "
                            "(addrmap.dram_size / channels), got %llu", (unsigned long long)(m->part[k].bytes / m->part[k].nch),
               (unsigned long long)cfg->dcache.cache_bytes);
      return -1;
    }
  if (m->part[0].nch && cfg->dcache.cache_bytes >= m->part[0].bytes / m->part[0].nch) {
    snprintf(err, errlen, "memside.dcache.size: expected a DRAM cache smaller than the SCM it caches (%llu bytes per "
                          "channel), got %llu", (unsigned long long)(m->part[0].bytes / m->part[0].nch),
             (unsigned long long)cfg->dcache.cache_bytes);
    return -1;
  }
  const uint32_t line = cfg->dcache.line_bytes;
  const uint64_t row_bytes = (uint64_t)s->g.columns * s->g.atom_bytes;
  s->tad = cfg->dcache.tad != 0;
  if (line < DC_LINE_MIN || line > DC_LINE_MAX || (line & (line - 1)) || s->g.atom_bytes != DC_COL ||
      lines_per_row(row_bytes, line, s->tad, NULL) == 0) {
    snprintf(err, errlen, "memside.dcache.line_bytes: expected a power of two from %u to %u B that leaves a line "
                          "in a DRAM row of %llu B%s, got %u", DC_LINE_MIN, DC_LINE_MAX, (unsigned long long)row_bytes,
             s->tad ? "" : " besides its metadata column", line);
    return -1;
  }
  s->line = line;
  s->lcols = line / DC_COL;
  s->page_blocks = DC_PAGE_BYTES / line;
  s->nbanks = s->g.bankgroups * s->g.banks;
  s->groups = s->g.columns / s->lcols;
  s->slots = slots_of(cfg, &s->lpr, &s->meta_cols);
  s->gpr = (s->lpr + DC_GROUP - 1) / DC_GROUP;
  if (s->tad) s->meta_cols = 0;
  if (s->lpr == 0 || s->slots == 0) {
    snprintf(err, errlen, "memside.dcache.size: expected at least one DRAM row of 32 B columns per channel, got "
                          "%llu bytes", (unsigned long long)cfg->dcache.cache_bytes);
    return -1;
  }
  if (cfg->dcache.ctc_ways) {
    ctc_cfg cc;
    ctc_default_cfg(&cc);
    cc.sets = cfg->dcache.ctc_sets;
    cc.l2_ways = cfg->dcache.ctc_ways;
    char e2[200];
    if (ctc_init(&s->tc, &cc, e2, sizeof e2) != CTC_OK) {
      snprintf(err, errlen, "l2.ctc_ways: %s", e2);
      return -1;
    }
    s->use_ctc = 1;
  }
  s->mshrs = cfg->dcache.mshrs;
  if (!s->mshrs || s->mshrs > DC_MAX_MSHRS) {
    snprintf(err, errlen, "memside.dcache.mshrs: expected 1..%u, got %u", DC_MAX_MSHRS, cfg->dcache.mshrs);
    return -1;
  }
  if (m->part[0].nch && m->part[0].bytes / m->part[0].nch / s->line / s->slots > META_TAG) {
    snprintf(err, errlen, "memside.dcache.size: the SCM part is more than 2^28 times the DRAM cache (tag bits)");
    return -1;
  }
  s->bypass = cfg->dcache.bypass != 0;
  if (s->bypass) {
    bps_cfg_t bc;
    bps_cfg_default(&bc);
    bc.num_rd = cfg->dcache.num_rd;
    bc.num_wr = cfg->dcache.num_wr;
    bc.lfsr_seed = cfg->dcache.seed & BPS_LFSR_MASK;
    if (bps_init(&s->bps, &bc) != 0) {
      snprintf(err, errlen, "memside.dcache.bypass: Eq. 1 numerators %u/%u cycles exceed the scorer's %u",
               bc.num_rd, bc.num_wr, BPS_NUM_MAX);
      return -1;
    }
  }
  s->act_pages = act_pages_of(cfg);
  s->act = (uint8_t *)(s->meta + s->slots);
  memset(s->act, 0, s->act_pages);
  return 0;
}

/* --------------------------------------------------------------- flow */

static void dc_locate(const void *st, uint64_t pa, memside_target *out) {
  const dc_st *s = (const dc_st *)st;
  memside_static_locate(&s->cfg, pa, out);
  if (pa >= s->backing_limit) return; /* outside the SCM part: flat (the platform keeps programs out of it) */
  devaddr_loc l;
  devaddr_decode(&s->g, out->addr, &l);
  const uint64_t block = block_of(s, &l), slot = block % s->slots, tag = block / s->slots;
  const uint32_t meta = s->meta[slot];
  if ((meta & META_VALID) && (meta & META_TAG) == tag) {
    out->addr = dram_addr_of(s, slot, 0) + (out->addr & (s->line - 1));
    out->dev = s->cdev;
    out->kind = AMAP_MEM_DRAM;
  }
}

static unsigned dc_kind_of(const void *st, uint64_t pa) {
  memside_target t;
  dc_locate(st, pa, &t);
  return t.kind;
}

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
#define MSHR_GEN_MASK 0x1fffffu /* bits 8..28; 29 and 30 are McCachei's tickets */
static uint32_t mshr_ticket(const dc_st *s, uint32_t f) {
  return TICKET_MSHR | ((s->fill[f].gen & MSHR_GEN_MASK) << 8) | f;
}

/* Own-transfer tags: kind in the top bits, index below. */
#define TAG_PROBE (1ull << 40)
#define TAG_FILL (2ull << 40)
#define TAG_MIRROR (4ull << 40) /* | block: a write-through copy */
#define TICKET_MIRROR 0x40000000u  /* a write waiting for a free write-through slot (counted) */
#define TICKET_MIRWAIT 0x20000000u /* an access to SCM waiting for a write-through copy of its line (not counted) */
#define TICKET_MSHRWAIT 0x10000000u /* a write miss waiting for a free MSHR (counted; its slot's tags known) */

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

static int start_fill(dc_st *s, uint64_t block, uint64_t slot) {
  uint32_t f = 0;
  while (f < s->mshrs && s->fill[f].phase != F_FREE) ++f;
  if (f == s->mshrs) return -1;
  dc_fill *F = &s->fill[f];
  ++F->gen;
  const uint32_t meta = s->meta[slot];
  F->block = block;
  F->slot = (uint32_t)slot;
  F->tagrmw = 0;
  F->has_victim = (meta & META_VALID) != 0;
  F->victim_dirty = (meta & META_DIRTY) != 0;
  F->victim = (uint64_t)(meta & META_TAG) * s->slots + slot;
  dc_infl *eb = infl_find(s, block, 1), *ev = F->has_victim ? infl_find(s, F->victim, 1) : NULL;
  dc_infl *es = infl_find(s, SLOT_KEY(slot), 1);
  if (!eb || !es || (F->has_victim && !ev)) return -1;
  ++eb->busy;
  ++es->busy;
  eb->fill = es->fill = f;
  if (ev) ++ev->busy, ev->fill = f;
  F->phase = F_DRAIN;
  ++s->fills_busy;
  return 0;
}

static int probe_for(dc_st *s, uint64_t slot, uint32_t *ticket) {
  uint32_t free_i = DC_PROBES;
  const uint64_t key = s->probe_line ? slot : group_of(s, slot); /* what one probe brings: a tag group's tags, or one line's */
  for (uint32_t i = 0; i < DC_PROBES; ++i) {
    dc_probe *P = &s->probe[i];
    if (P->busy && !P->done && P->key == key) { /* one probe brings the tag group's tags (AMIL: a row's, 256 B lines) */
      ++P->refs;
      ++s->st[S_PROBE_MERGES];
      *ticket = i + 1;
      return 0;
    }
    if (!P->busy && free_i == DC_PROBES) free_i = i;
  }
  if (free_i == DC_PROBES) return -1;
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
  return 0;
}

/* The activation counter of block's 2 MiB page, counted up by one row
 * activation (Sec. III-C2/C3: 8-bit counters; at saturation every counter
 * of the partition is halved, the low-cost right shift of the paper's MSB
 * register). 1 when the counters are disabled (the paper's evaluation). */
static uint32_t act_count(dc_st *s, uint64_t block) {
  if (!s->act_pages) return 1;
  uint8_t *c = &s->act[(block / s->page_blocks) % s->act_pages];
  if (*c == BPS_ACT_MAX)
    for (uint32_t i = 0; i < s->act_pages; ++i) s->act[i] >>= 1;
  return ++*c;
}

static uint32_t sectors_in(unsigned mask) {
  uint32_t n = 0;
  for (; mask; mask &= mask - 1) ++n;
  return n ? n : 1;
}

/* The metadata of slot changed outside a fill (a victim's DRAM-affinity
 * level decremented, Sec. III-C3): the tag cache holds the row's tags dirty,
 * or without one the row's metadata column is written. */
#define TAG_META (3ull << 40)
static void meta_writebacks(dc_st *s, const ctc_result *r);
static void meta_changed(dc_st *s, uint64_t slot) {
  if (s->tad) { /* the line's tag-bearing first column, read and written back (an MSHR holds the line meanwhile) */
    const uint32_t m = s->meta[slot];
    if (!(m & META_VALID) || infl_busy(s, SLOT_KEY(slot))) return; /* a fill of the slot rewrites it anyway */
    uint32_t f = 0;
    while (f < s->mshrs && s->fill[f].phase != F_FREE) ++f;
    if (f == s->mshrs) return; /* no MSHR: the level changes in the controller only (counted below as not written) */
    const uint64_t line = (uint64_t)(m & META_TAG) * s->slots + slot;
    dc_infl *eb = infl_find(s, line, 1), *es = infl_find(s, SLOT_KEY(slot), 1);
    if (!eb || !es) return;
    dc_fill *F = &s->fill[f];
    const uint32_t gen = F->gen + 1;
    memset(F, 0, offsetof(dc_fill, meta));
    F->gen = gen;
    F->tagrmw = 1;
    F->block = line;
    F->slot = (uint32_t)slot;
    F->phase = F_DRAIN;
    ++eb->busy, eb->fill = f;
    ++es->busy, es->fill = f;
    ++s->fills_busy;
    ++s->st[S_META_WRITES];
    if (drained(s, F)) fill_reads(s, f);
    return;
  }
  if (s->use_ctc) {
    ctc_result r;
    ctc_update(&s->tc, group_of(s, slot), 0, 1, &r);
    meta_writebacks(s, &r);
    if (r.stored) return;
  }
  if (s->meta_pending >= DC_META_MAX) return; /* merged into a write already in the buffer */
  ++s->st[S_META_WRITES];
  ++s->meta_pending;
  issue(s, s->cdev, dram_addr_of(s, slot, 1), DC_COL, 1, MEMSIDE_PROBE, s->meta_buf, TAG_META);
}

/* Take an MSHR for block in F_PEND (or -1: none free). */
static int start_pend(dc_st *s, uint64_t block, uint64_t slot, const memside_req *rq) {
  uint32_t f = 0;
  while (f < s->mshrs && s->fill[f].phase != F_FREE) ++f;
  if (f == s->mshrs) return -1;
  dc_infl *eb = infl_find(s, block, 1);
  if (!eb) return -1;
  dc_fill *F = &s->fill[f];
  ++F->gen;
  F->phase = F_PEND;
  F->tagrmw = 0;
  F->block = block;
  F->slot = (uint32_t)slot;
  F->cols = sectors_in(rq->sectors);
  F->wr = rq->write;
  F->held = 0;
  ++eb->busy;
  eb->fill = f;
  ++s->fills_busy;
  return (int)f;
}

/* The victim of slot and the MSHR's claims on it (start of a fill). */
static int claim_fill(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  const uint32_t meta = s->meta[F->slot];
  F->has_victim = (meta & META_VALID) != 0;
  F->victim_dirty = (meta & META_DIRTY) != 0;
  F->victim = (uint64_t)(meta & META_TAG) * s->slots + F->slot;
  dc_infl *ev = F->has_victim ? infl_find(s, F->victim, 1) : NULL, *es = infl_find(s, SLOT_KEY(F->slot), 1);
  if (!es || (F->has_victim && !ev)) return -1;
  ++es->busy;
  es->fill = f;
  if (ev) ++ev->busy, ev->fill = f;
  F->phase = F_DRAIN;
  return 0;
}

/* An MSHR became free: the write misses waiting for one are routed again (the first takes it, the others
 * wait again). */
static void mshr_freed(dc_st *s) {
  if (!s->mshr_waiters) return;
  s->mshr_waiters = 0;
  s->env.release(s->env.ctx, TICKET_MSHRWAIT);
}

/* A write miss that finds every MSHR busy waits for one (an MSHR file that is full stalls the miss, Sec.
 * III-F's 128-entry MSHR) instead of going to SCM: a write to SCM holds its bank for tWR (Table I: 1000
 * cycles), and writes are what the DRAM cache is there to absorb. A read miss is served by SCM at once and
 * only its fill is dropped. Returns 1 when the access is held. */
static int wait_for_mshr(dc_st *s, int is_write, dc_infl *e, uint32_t *ticket) {
  if (!is_write || s->fills_busy < s->mshrs) return 0; /* (a fill refused for a full in-flight table: to SCM) */
  if (e) infl_release(s, e);
  s->mshr_waiters = 1;
  *ticket = TICKET_MSHRWAIT;
  return 1;
}

/* Fig. 9 for the requests gathered by MSHR f: fill (the line's DRAM-affinity
 * level stored with it) or bypass (the MSHR is freed; the requests it held
 * go to SCM). Returns 1 when it fills. */
static int decide(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  const uint32_t meta = s->meta[F->slot];
  bps_access_t a = {F->cols > BPS_NCOL_MAX ? BPS_NCOL_MAX : F->cols, F->wr != 0, act_count(s, F->block)};
  if (a.act > BPS_ACT_MAX) a.act = BPS_ACT_MAX;
  bps_result_t r;
  /* AMIL: the victim's level came with the tags that made this a miss (its slot's metadata), no extra probe */
  if (s->cfg.dcache.no_second_level) { /* the paper's sensitivity check (Sec. IV-B): no victim comparison */
    bps_miss_begin(&s->bps, &a, (meta & META_VALID) != 0, &r);
    if (r.need_victim) r.need_victim = 0, r.fill = 1, r.store_level = r.aff_level;
  } else {
    bps_miss(&s->bps, &a, (meta & META_VALID) != 0, (meta & META_LVL) >> META_LVL_SHIFT, &r);
  }
  if (r.fill && !infl_busy(s, SLOT_KEY(F->slot))) {
    F->level = (uint8_t)r.store_level;
    if (claim_fill(s, f) == 0) {
      ++s->st[S_FILLS];
      if (drained(s, F)) fill_reads(s, f);
      return 1;
    }
  }
  /* bypass */
  ++s->st[S_BYPASSES];
  if (r.fill) ++s->st[S_BYPASS_BUSY]; /* the policy would fill; another fill holds the slot */
  else if (r.path == BPS_PATH_BYPASS_L1) ++s->st[S_BYPASS_L1];
  else ++s->st[S_BYPASS_L2];
  if (r.dec_victim) {
    ++s->st[S_DECREMENTS];
    s->meta[F->slot] = (meta & ~META_LVL) | (r.victim_new_level << META_LVL_SHIFT);
    meta_changed(s, F->slot);
  }
  dc_infl *eb = infl_find(s, F->block, 0);
  if (eb) eb->byp += F->held, --eb->busy, infl_release(s, eb);
  F->phase = F_FREE;
  --s->fills_busy;
  s->env.release(s->env.ctx, mshr_ticket(s, f));
  mshr_freed(s);
  return 0;
}

static void went(dc_infl *e, const memside_req *rq) {
  if (!e) return;
  ++e->n;
  e->nw += rq->write ? 1u : 0u;
  e->cols += sectors_in(rq->sectors);
}

/* BEAR's Bandwidth-Aware Bypass (Chou, Jaleel, Qureshi, ISCA 2015; the HMS paper's ref. [35] and its
 * BEARi baseline, Sec. IV-B), as Strata models it: set dueling over DRAM-cache slots. Slots with
 * slot % BAB_PERIOD == 0 always fill, == 1 fill with probability 1/10 (90 % bypass); every other slot
 * follows the 90 % bypass while its hit rate stays within 1/16 of the always-fill group's, else always
 * fills. Group counters are halved every BAB_WINDOW sampled accesses so the choice follows phases. */
#define BAB_PERIOD 32u
#define BAB_WINDOW 4096u
static void bab_sample(dc_st *s, uint64_t slot, int hit) {
  const uint32_t g = (uint32_t)(slot % BAB_PERIOD);
  if (g > 1) return;
  ++s->bab_acc[g];
  s->bab_hit[g] += hit ? 1u : 0u;
  if (s->bab_acc[0] + s->bab_acc[1] >= BAB_WINDOW)
    for (int i = 0; i < 2; ++i) s->bab_acc[i] >>= 1, s->bab_hit[i] >>= 1;
}

static int bab_fill(dc_st *s, uint64_t slot) {
  const uint32_t g = (uint32_t)(slot % BAB_PERIOD);
  if (g == 0) return 1;
  if (g > 1) { /* a follower: bypass while the bypassing group's hit rate is within 1/16 of the filling one's */
    const uint64_t ha = (uint64_t)s->bab_hit[0] * (s->bab_acc[1] ? s->bab_acc[1] : 1);
    const uint64_t hb = (uint64_t)s->bab_hit[1] * (s->bab_acc[0] ? s->bab_acc[0] : 1);
    const uint64_t scale = (uint64_t)(s->bab_acc[0] ? s->bab_acc[0] : 1) * (s->bab_acc[1] ? s->bab_acc[1] : 1);
    if (hb * 16 + scale < ha * 16) return 1; /* rate_b < rate_a - 1/16: bypassing costs hits */
  }
  s->bab_rng ^= s->bab_rng << 13; /* xorshift32 */
  s->bab_rng ^= s->bab_rng >> 17;
  s->bab_rng ^= s->bab_rng << 5;
  return s->bab_rng % 10u == 0; /* fill with probability 1/10 */
}

/* McCachei: is the page of pa in write-back mode? (counts the write) */
static int dirt_write(dc_st *s, uint64_t pa) {
  const uint64_t page = (pa >> 12) + 1;
  ++s->dirt_clock;
  uint32_t lru = 0;
  for (uint32_t i = 0; i < DIRT_PAGES; ++i) {
    if (s->dirt_page[i] == page) {
      s->dirt_used[i] = s->dirt_clock;
      return 1;
    }
    if (s->dirt_used[i] < s->dirt_used[lru]) lru = i;
  }
  uint8_t *c = &s->dirt_cnt[(uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 54) & (DIRT_COUNTERS - 1)];
  if (++*c < DIRT_THRESHOLD) return 0;
  *c = 0;
  s->dirt_page[lru] = page; /* the LRU page leaves (its dirty lines are written back when they are evicted) */
  s->dirt_used[lru] = s->dirt_clock;
  return 1;
}

static void red_sample(dc_st *s, int hit) {
  ++s->red_acc;
  s->red_hit += hit ? 1u : 0u;
  if (s->red_acc < RED_EPOCH) return;
  /* rate now < rate before (cross-multiplied): turn round */
  if (s->red_prev_acc && (uint64_t)s->red_hit * s->red_prev_acc < s->red_prev_hit * s->red_acc) s->red_step = -s->red_step;
  const int32_t g = (int32_t)s->red_gamma + s->red_step;
  s->red_gamma = g < (int32_t)RED_GAMMA_MIN ? RED_GAMMA_MIN : g > (int32_t)RED_GAMMA_MAX ? RED_GAMMA_MAX : (uint32_t)g;
  s->red_prev_hit = s->red_hit;
  s->red_prev_acc = s->red_acc;
  s->red_acc = s->red_hit = 0;
}

static int red_fill(dc_st *s, uint64_t block) {
  uint8_t *c = &s->red_cnt[(uint32_t)(((block + 1) * 0x9e3779b97f4a7c15ull) >> 50) & (RED_COUNTERS - 1)];
  if (*c < 255) ++*c;
  if (*c < s->red_gamma) return 0;
  *c = 0;
  return 1;
}

static int dc_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  dc_st *s = (dc_st *)st;
  const int is_write = rq->write;
  memside_static_locate(&s->cfg, rq->pa, out);
  if (rq->pa >= s->backing_limit) return MEMSIDE_GO;
  devaddr_loc l;
  devaddr_decode(&s->g, out->addr, &l);
  const uint64_t block = block_of(s, &l), slot = block % s->slots, tag = block / s->slots;
  const uint64_t off = out->addr & (s->line - 1);
  /* waits: McCachei's TICKET_MIRROR (counted already) or TICKET_MIRWAIT (not yet); a write's TICKET_MSHRWAIT
   * (counted, its tags known: the controller held it after its tag check, and any fill of its slot since went
   * through the controller) */
  int pre_counted = 0, waited_mshr = 0;
  if (*ticket == TICKET_MIRROR) pre_counted = 1, *ticket = 0;
  else if (*ticket == TICKET_MIRWAIT) *ticket = 0;
  else if (*ticket == TICKET_MSHRWAIT) pre_counted = waited_mshr = 1, *ticket = 0;
  if (s->mccache) { /* McCachei: SCM must not be read or written ahead of a write-through copy of the line */
    const uint32_t m = s->meta[slot];
    const dc_infl *w = infl_find(s, block, 0);
    if (w && w->mir && !((m & META_VALID) && (m & META_TAG) == tag)) {
      s->mirror_waiters = 1;
      *ticket = (pre_counted || (*ticket & TICKET_MSHR)) ? TICKET_MIRROR : TICKET_MIRWAIT;
      return MEMSIDE_HOLD;
    }
  }
  uint32_t mshr = infl_busy(s, block);
  if (*ticket & TICKET_MSHR) { /* held behind an MSHR that bypassed: to SCM (unless the line is cached or filling now) */
    dc_infl *e = infl_find(s, block, 0);
    const uint32_t m = s->meta[slot];
    const int cached = (m & META_VALID) && (m & META_TAG) == tag;
    if (e && e->byp) {
      --e->byp; /* one of them (if the line got cached or filling meanwhile, the usual way below) */
      if (!cached && (!mshr || s->fill[mshr - 1].phase == F_PEND)) {
        *ticket = 0;
        went(e, rq);
        return MEMSIDE_GO;
      }
      infl_release(s, e);
    }
  }
  if (mshr && s->fill[mshr - 1].phase == F_PEND) { /* a miss of a line whose fill is being decided: merged */
    dc_fill *F = &s->fill[mshr - 1];
    const uint32_t mine = mshr_ticket(s, mshr - 1);
    if (*ticket != mine) {
      if (*ticket && !(*ticket & TICKET_MSHR)) { /* give back a probe it held */
        dc_probe *P = &s->probe[*ticket - 1];
        if (--P->refs == 0) P->busy = 0, --s->probes_busy;
      }
      if (!(*ticket & TICKET_MSHR) && (!pre_counted || waited_mshr)) /* (a waited miss: counted, now merged) */
        ++s->st[S_MSHR_MERGES], s->st[is_write ? S_WRITE_MISSES : S_READ_MISSES] += !pre_counted;
      F->cols += sectors_in(rq->sectors);
      F->wr |= (uint8_t)is_write;
    }
    if (is_write || F->held) { /* a write waits for the decision; so does what follows it */
      if (*ticket != mine) ++F->held;
      *ticket = mine;
      return MEMSIDE_HOLD;
    }
    *ticket = 0;
    went(infl_find(s, block, 1), rq); /* a read: served by SCM now */
    return MEMSIDE_GO;
  }
  if (!mshr) mshr = infl_busy(s, SLOT_KEY(slot));
  if (mshr) { /* its line (or its DRAM slot) is being filled or evicted: wait behind that MSHR */
    if (!(*ticket & TICKET_MSHR)) {
      if (*ticket) { /* give back a probe it held */
        dc_probe *P = &s->probe[*ticket - 1];
        if (--P->refs == 0) P->busy = 0, --s->probes_busy;
      }
      if (!pre_counted || waited_mshr) { /* (a waited miss: counted, now merged) */
        ++s->st[S_MSHR_MERGES];
        s->st[is_write ? S_WRITE_MISSES : S_READ_MISSES] += !pre_counted;
      }
    }
    *ticket = mshr_ticket(s, mshr - 1);
    return MEMSIDE_HOLD;
  }
  /* Every access counts once as a hit or a miss: where it is first decided (a miss merged into an MSHR is a
   * miss; routed again after that MSHR it is not counted again). */
  const int counted = pre_counted || (*ticket & TICKET_MSHR) != 0;
  int tags_known = 0;
  if (*ticket & TICKET_MSHR) { /* the MSHR it waited for is done: the controller knows this slot's tags */
    *ticket = 0;
    tags_known = 1;
  }
  if (s->ideal_tags || waited_mshr) tags_known = 1;
  if (!tags_known && !*ticket && s->use_ctc) { /* 0. the tag cache */
    ctc_result r;
    ++s->st[S_CTC_LOOKUPS];
    if (ctc_lookup(&s->tc, group_of(s, slot), &r) == CTC_OK && r.hit) ++s->st[S_CTC_HITS], tags_known = 1;
  }
  if (!tags_known) {
    /* 1. the row's tags: a probe of its metadata column (AMIL) */
    if (!*ticket) {
      probe_for(s, slot, ticket); /* every probe entry busy: ticket 0, retried on any release */
      return MEMSIDE_HOLD;
    }
    dc_probe *P = &s->probe[*ticket - 1];
    if (!P->done) return MEMSIDE_HOLD;
    if (--P->refs == 0) P->busy = 0, --s->probes_busy;
    *ticket = 0;
  }
  /* 2. hit or miss */
  const uint32_t meta = s->meta[slot];
  dc_infl *e = infl_find(s, block, 1);
  const int hit = (meta & META_VALID) && (meta & META_TAG) == tag;
  if (s->bab && !counted) bab_sample(s, slot, hit);
  if (s->redcache && !counted) red_sample(s, hit);
  if (hit) {
    if (s->mccache && is_write && !(meta & META_DIRTY) && !dirt_write(s, rq->pa)) { /* write-through */
      if (s->mirrors >= MEMSIDE_MIRROR_SLOTS) {
        if (!counted) ++s->st[S_WRITE_HITS];
        if (e) infl_release(s, e);
        *ticket = TICKET_MIRROR;
        return MEMSIDE_HOLD;
      }
      ++s->mirrors;
      ++s->st[S_WRITE_THROUGHS];
      out->mirror = 1;
      out->mirror_dev = s->sdev;
      out->mirror_addr = scm_addr_of(s, block) + (off & ~(uint64_t)127);
      out->mirror_tag = TAG_MIRROR | block;
      if (e) ++e->n, ++e->nw, ++e->mir; /* the copy on its way to SCM: fills and SCM accesses of the line wait */
    } else if (is_write) {
      s->meta[slot] |= META_DIRTY;
    }
    if (!counted) ++s->st[is_write ? S_WRITE_HITS : S_READ_HITS];
    if (waited_mshr) ++s->st[S_MSHR_MERGES]; /* a miss whose line another fill brought while it waited */
    if (s->bypass) { /* Sec. III-F: a hit updates the average SCM penalty (its group: the line's requests in flight) */
      const uint32_t cols = sectors_in(rq->sectors) + (e ? e->cols : 0);
      bps_access_t a = {cols > BPS_NCOL_MAX ? BPS_NCOL_MAX : cols, is_write != 0, 1};
      bps_result_t r;
      bps_hit(&s->bps, &a, &r);
    }
    out->addr = dram_addr_of(s, slot, 0) + off;
    out->dev = s->cdev;
    out->kind = AMAP_MEM_DRAM;
    went(e, rq);
    return MEMSIDE_GO;
  }
  if (!counted) ++s->st[is_write ? S_WRITE_MISSES : S_READ_MISSES];
  if (s->bypass) {
    /* 3. the bypass policy decides once the demand has been served by SCM; a write with nothing of its line
     * in flight is decided at once (it would wait for nothing) */
    const int f = start_pend(s, block, slot, rq);
    if (f < 0 && wait_for_mshr(s, is_write, e, ticket)) return MEMSIDE_HOLD;
    if (f < 0) { /* no MSHR free: to SCM without a fill */
      ++s->st[S_BYPASSES];
      ++s->st[S_BYPASS_BUSY];
      went(e, rq);
      return MEMSIDE_GO;
    }
    if (!is_write) {
      went(e, rq);
      return MEMSIDE_GO;
    }
    if (e && e->n) { /* reads of the line in flight: the decision waits for them */
      s->fill[f].held = 1;
      *ticket = mshr_ticket(s, (uint32_t)f);
      return MEMSIDE_HOLD;
    }
    if (decide(s, (uint32_t)f)) { /* filled: the write hits in DRAM once the line is there */
      *ticket = mshr_ticket(s, (uint32_t)f);
      return MEMSIDE_HOLD;
    }
    e = infl_find(s, block, 1); /* bypassed: the write goes to SCM */
    went(e, rq);
    return MEMSIDE_GO;
  }
  if (s->mccache && is_write && !dirt_write(s, rq->pa)) { /* McCachei: a write miss outside the tracked pages */
    ++s->st[S_BYPASSES];                                    /* goes to SCM, no fill */
    ++s->st[S_BYPASS_L1];
    went(e, rq);
    return MEMSIDE_GO;
  }
  if (s->redcache && !red_fill(s, block)) { /* RedCachei: not accessed gamma times yet (to SCM, no fill) */
    ++s->st[S_BYPASSES];
    ++s->st[S_BYPASS_L1];
    went(e, rq);
    return MEMSIDE_GO;
  }
  if (s->bab && !bab_fill(s, slot)) { /* BEARi: bypassed (to SCM, no fill) */
    ++s->st[S_BYPASSES];
    ++s->st[S_BYPASS_L1];
    went(e, rq);
    return MEMSIDE_GO;
  }
  /* 3./4. allocate the line (HMS-B: every miss): a read is served by SCM meanwhile; a write waits
   * for the line and then writes it in DRAM (an SCM write costs far more than the line's read:
   * Table I tWR 1000 against tRCD 120) */
  if (s->fills_busy >= s->mshrs && wait_for_mshr(s, is_write, e, ticket)) return MEMSIDE_HOLD;
  if (start_fill(s, block, slot) == 0) {
    ++s->st[S_FILLS];
    if (is_write) {
      const uint32_t f = infl_busy(s, block) - 1;
      if (s->fill[f].phase == F_DRAIN && drained(s, &s->fill[f])) fill_reads(s, f);
      *ticket = mshr_ticket(s, f);
      return MEMSIDE_HOLD;
    }
  } else {
    ++s->st[S_BYPASSES]; /* no MSHR free: served by SCM without a fill */
    ++s->st[S_BYPASS_BUSY];
  }
  e = infl_find(s, block, 1);
  went(e, rq);
  if (s->fills_busy) { /* a fill started just now needs no drain when only reads are in flight */
    const uint32_t f = infl_busy(s, block);
    if (f && s->fill[f - 1].phase == F_DRAIN && drained(s, &s->fill[f - 1])) fill_reads(s, f - 1);
  }
  return MEMSIDE_GO;
}

static void dc_complete(void *st, const memside_req *rq, const memside_target *t) {
  dc_st *s = (dc_st *)st;
  devaddr_loc l;
  devaddr_decode(&s->g, t->addr, &l);
  uint64_t block;
  if (t->dev == s->cdev && t->kind == AMAP_MEM_DRAM) { /* a hit: the slot's line (no fill changes it while accesses are in flight) */
    const uint64_t slot = slot_of_dram(s, &l);
    block = (uint64_t)(s->meta[slot] & META_TAG) * s->slots + slot;
  } else {
    block = block_of(s, &l);
  }
  dc_infl *e = infl_find(s, block, 0);
  if (!e || !e->n) return;
  --e->n;
  if (rq->write && e->nw) --e->nw;
  const uint32_t c = sectors_in(rq->sectors);
  e->cols = e->cols > c ? e->cols - c : 0;
  if (e->busy) { /* the one fill involving the block (fills of a slot run one at a time) may start now */
    const uint32_t f = e->fill;
    dc_fill *F = &s->fill[f];
    if (F->phase == F_PEND && F->block == block) decide(s, f); /* the demand has been served by SCM */
    else if (F->phase == F_DRAIN && drained(s, F)) fill_reads(s, f);
    e = infl_find(s, block, 0);
    if (!e) return;
  }
  infl_release(s, e);
}

/* Dirty tag-cache sectors it evicted: their rows' metadata columns are
 * written (fire and forget: the policy keeps the tags; these are the traffic). */
static void meta_writebacks(dc_st *s, const ctc_result *r) {
  for (uint32_t i = 0; i < r->n_wb && s->meta_pending < DC_META_MAX; ++i) {
    ++s->st[S_META_WRITES];
    ++s->meta_pending;
    issue(s, s->cdev, dram_addr_of(s, group_slot(s, r->wb[i].row, NULL), 1), DC_COL, 1, MEMSIDE_PROBE, s->meta_buf,
          TAG_META);
  }
}

static void fill_done(dc_st *s, uint32_t f) {
  dc_fill *F = &s->fill[f];
  if (--F->outstanding) return;
  if (F->phase == F_READ && F->tagrmw) { /* TAD: the column back, its tag bits changed */
    F->phase = F_WRITE;
    F->outstanding = 1;
    issue(s, s->cdev, dram_addr_of(s, F->slot, 0), DC_COL, 1, MEMSIDE_PROBE, F->meta, TAG_FILL | f);
    return;
  }
  if (F->phase == F_READ) { /* 4. write the line into DRAM, the dirty victim to SCM, the row's metadata */
    F->phase = F_WRITE;
    F->outstanding = 1;
    issue(s, s->cdev, dram_addr_of(s, F->slot, 0), s->line, 1, MEMSIDE_FILL, s->buf[f][0], TAG_FILL | f);
    if (F->has_victim && F->victim_dirty) {
      ++F->outstanding;
      ++s->st[S_WRITEBACKS];
      issue(s, s->sdev, scm_addr_of(s, F->victim), s->line, 1, MEMSIDE_WRITEBACK, s->buf[f][1], TAG_FILL | f);
    }
    if (s->tad) { /* the tag went with the line's data; the tag cache keeps the row's tags clean */
      if (s->use_ctc) {
        ctc_result r;
        ctc_update(&s->tc, group_of(s, F->slot), 0, 0, &r);
      }
      return;
    }
    if (s->use_ctc) { /* the row's new tags go into the tag cache (dirty: written back when it evicts them) */
      ctc_result r;
      ctc_update(&s->tc, group_of(s, F->slot), 0, 1, &r);
      meta_writebacks(s, &r);
      if (r.stored) return;
    }
    ++F->outstanding;
    ++s->st[S_META_WRITES];
    memset(F->meta, 0, DC_COL); /* the metadata column's bytes (the tags themselves live in the policy state) */
    issue(s, s->cdev, dram_addr_of(s, F->slot, 1), DC_COL, 1, MEMSIDE_PROBE, F->meta, TAG_FILL | f);
    return;
  }
  /* 5. the line is in DRAM: switch the tags, let the held accesses go */
  if (!F->tagrmw) s->meta[F->slot] = META_VALID | ((uint32_t)F->level << META_LVL_SHIFT) | (uint32_t)(F->block / s->slots);
  dc_infl *eb = infl_find(s, F->block, 0);
  if (eb) --eb->busy, infl_release(s, eb);
  dc_infl *es = infl_find(s, SLOT_KEY(F->slot), 0);
  if (es) --es->busy, infl_release(s, es);
  if (F->has_victim) {
    dc_infl *ev = infl_find(s, F->victim, 0);
    if (ev) --ev->busy, infl_release(s, ev);
  }
  F->phase = F_FREE;
  --s->fills_busy;
  s->env.release(s->env.ctx, mshr_ticket(s, f));
  mshr_freed(s);
}

static void dc_done(void *st, uint64_t tag) {
  dc_st *s = (dc_st *)st;
  const uint32_t idx = (uint32_t)(tag & 0xffffffffu);
  if ((tag >> 40) == 4) { /* a write-through copy is in SCM */
    dc_infl *e = infl_find(s, tag & ((1ull << 40) - 1), 0);
    if (e && e->n) {
      --e->n;
      if (e->mir) --e->mir;
      if (e->nw) --e->nw;
      if (e->busy) {
        dc_fill *F = &s->fill[e->fill];
        if (F->phase == F_DRAIN && drained(s, F)) fill_reads(s, e->fill);
        e = infl_find(s, tag & ((1ull << 40) - 1), 0);
      }
      if (e) infl_release(s, e);
    }
    if (s->mirrors-- == MEMSIDE_MIRROR_SLOTS || s->mirror_waiters) {
      s->mirror_waiters = 0;
      s->env.release(s->env.ctx, TICKET_MIRROR);
      s->env.release(s->env.ctx, TICKET_MIRWAIT);
    }
    return;
  }
  if ((tag >> 40) == 3) {
    --s->meta_pending;
    return;
  }
  if (tag & TAG_PROBE) {
    if (--s->probe[idx].outstanding) return;
    s->probe[idx].done = 1;
    if (s->use_ctc) { /* the row's tags into the tag cache (clean) */
      ctc_result r;
      ctc_fill(&s->tc, s->probe[idx].key, 0, &r);
      meta_writebacks(s, &r);
    }
    s->env.release(s->env.ctx, idx + 1);
  } else {
    fill_done(s, idx);
  }
}

static int dc_busy(const void *st) {
  const dc_st *s = (const dc_st *)st;
  return s->fills_busy || s->probes_busy || s->meta_pending || s->mirrors;
}

static void dc_stats(const void *st, memside_stats *out) {
  const dc_st *s = (const dc_st *)st;
  out->moves = s->st[S_FILLS] + s->st[S_WRITEBACKS];
  out->moved_bytes = (s->st[S_FILLS] + s->st[S_WRITEBACKS]) * s->line;
  out->remaps = s->st[S_FILLS];
}

static const char *const dc_names[] = {"read_hits", "write_hits", "read_misses", "write_misses", "probes",
                                       "probe_merges", "fills", "writebacks", "mshr_merges", "bypasses",
                                       "ctc_lookups", "ctc_hits", "meta_writes", "bypasses_first_level",
                                       "bypasses_second_level", "bypasses_busy", "victim_decrements",
                                       "write_throughs", NULL};
static const char *const dc_descs[] = {
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
static const memside_derived dc_derived[] = {
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

static void dc_values(const void *st, uint64_t *out) { memcpy(out, ((const dc_st *)st)->st, sizeof(uint64_t) * S_NSTATS); }

/* SCM throttling (Sec. III-E) scales the SCM rank's tRCD/tWR at run time: the bypass scorer's Eq. 1
 * numerators (the SCM penalty per access, Sec. III-C1) follow the timing in force (bps_set_numerators). */
static void dc_timing_changed(void *st, uint32_t dev, uint32_t rank, uint32_t trcd, uint32_t twr) {
  dc_st *s = (dc_st *)st;
  if (dev >= MEMSIDE_MAX_DEVS || rank >= AMAP_MAX_RANKS) return;
  s->cfg.rank_trcd[dev][rank] = trcd;
  s->cfg.rank_twr[dev][rank] = twr;
  if (!s->bypass || (dev != s->cdev && dev != s->sdev)) return;
  bps_cfg_t bc = s->bps.cfg;
  const uint32_t c = s->cr[0], m = s->sr[0], cd = s->cdev, sd = s->sdev;
  if (bps_cfg_timing(&bc, s->cfg.rank_trcd[cd][c], s->cfg.rank_trcd[sd][m], s->cfg.rank_twr[cd][c],
                     s->cfg.rank_twr[sd][m]) == 0)
    (void)bps_set_numerators(&s->bps, bc.num_rd, bc.num_wr); /* beyond BPS_NUM_MAX: the scorer keeps the last */
}

/* BEARi (Sec. IV-B): the DRAM cache with BEAR's ideal DRAM Cache Presence (presence known without an L2
 * lookup or a probe: no tag traffic at all), its bandwidth-aware bypass (bab_fill), the TAD organisation
 * of the Alloy cache BEAR builds on, and memside.dcache.line_bytes lines (256 B by default, the paper's
 * Fig. 16b variant; its main results use 64 B lines, which Strata does not model: docs/hms.md). No SCM
 * awareness, no tag cache. */
/* The baselines' common set-up: the engine with no SCM-aware bypass, no activation counters, no tag
 * cache (their tags are free or probed per line), TAD for the Alloy-based ones. */
static memside_cfg baseline_cfg(const memside_cfg *cfg, int tad) {
  memside_cfg c = *cfg;
  c.dcache.tad = (uint8_t)tad;
  c.dcache.bypass = 0;
  c.dcache.act_counters = 0;
  return c;
}

static dc_st *baseline_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen,
                            int tad, const char *name) {
  const memside_cfg c = baseline_cfg(cfg, tad);
  if (cfg->dcache.ctc_ways) {
    snprintf(err, errlen, "l2.ctc_ways: expected 0 under %s (no tag cache)", name);
    return NULL;
  }
  return dc_init(st, &c, env, err, errlen) == 0 ? (dc_st *)st : NULL;
}

static size_t tad_baseline_state_bytes(const memside_cfg *cfg) {
  const memside_cfg c = baseline_cfg(cfg, 1);
  return dc_state_bytes(&c);
}

static size_t amil_baseline_state_bytes(const memside_cfg *cfg) {
  const memside_cfg c = baseline_cfg(cfg, 0);
  return dc_state_bytes(&c);
}

static int beari_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  dc_st *s = baseline_init(st, cfg, env, err, errlen, 1, "beari");
  if (!s) return -1;
  s->ideal_tags = 1;
  s->bab = 1;
  s->bab_rng = cfg->dcache.seed ? cfg->dcache.seed : 0x9e3779b9u;
  return 0;
}

#define DC_OPS_COMMON                   \
  .locate = dc_locate,                  \
  .route = dc_route,                    \
  .kind_of = dc_kind_of,                \
  .complete = dc_complete,              \
  .done = dc_done,                      \
  .busy = dc_busy,                      \
  .timing_changed = dc_timing_changed,  \
  .stats = dc_stats,                    \
  .stat_prefix = "dcache",              \
  .stat_names = dc_names,               \
  .stat_descs = dc_descs,               \
  .stat_values = dc_values,             \
  .stat_derived = dc_derived,           \
  .program_in_first_part = 1

/* McCachei (Sec. IV-B): the mostly-clean DRAM cache (Sim et al., MICRO 2012, ref. [124]) with a perfect
 * hit/miss predictor and zero-cost tag probes (no probe traffic), every read miss filled (no SCM
 * awareness), partial write-through (dirt_write): writes outside the tracked pages go to SCM as well (a
 * hit, which stays clean) or only (a miss); AMIL's geometry, memside.dcache.line_bytes lines, no tag cache. */
static int mccachei_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  dc_st *s = baseline_init(st, cfg, env, err, errlen, 0, "mccachei");
  if (!s) return -1;
  s->ideal_tags = 1;
  s->mccache = 1;
  return 0;
}

const memside_ops memside_mccachei_ops = {
    .name = "mccachei",
    .desc = "McCachei baseline of HMS (Sec. IV-B): mostly-clean DRAM cache over SCM, ideal predictor and free "
            "probes, partial write-through (dirty-region tracker)",
    .state_bytes = amil_baseline_state_bytes,
    .init = mccachei_init,
    DC_OPS_COMMON,
};

/* RedCachei (Sec. IV-B): red_fill's access-count threshold with the ideal gamma update, the Alloy-style
 * TAD organisation RedCache builds on (a probe per access reads the line's tag-bearing column),
 * memside.dcache.line_bytes lines, no tag cache, no SCM awareness. */
static int redcachei_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  dc_st *s = baseline_init(st, cfg, env, err, errlen, 1, "redcachei");
  if (!s) return -1;
  s->probe_line = 1;
  s->redcache = 1;
  s->red_gamma = 2;
  s->red_step = 1;
  return 0;
}

const memside_ops memside_redcachei_ops = {
    .name = "redcachei",
    .desc = "RedCachei baseline of HMS (Sec. IV-B): DRAM cache over SCM filling a line after gamma accesses (ideal "
            "gamma update), TAD probes per access",
    .state_bytes = tad_baseline_state_bytes,
    .init = redcachei_init,
    DC_OPS_COMMON,
};

const memside_ops memside_beari_ops = {
    .name = "beari",
    .desc = "BEARi baseline of HMS (Sec. IV-B): DRAM cache over SCM with ideal presence bits (no probes), BEAR's "
            "bandwidth-aware bypass, TAD",
    .state_bytes = tad_baseline_state_bytes,
    .init = beari_init,
    DC_OPS_COMMON,
};

const memside_ops memside_dcache_ops = {
    .name = "dcache",
    .desc = "HMS DRAM cache over SCM: direct-mapped lines (256 B default), AMIL metadata column, fills with write-back "
            "(hms-dram-cache-over-scm Sec. III)",
    .state_bytes = dc_state_bytes,
    .init = dc_init,
    DC_OPS_COMMON,
};
