/* memside_dcache_engine: the DRAM-cache engine the DRAM-cache policies share
 * (private to memside_dcache_engine.c and the design files over it:
 * memside_dcache.c = HMS, memside_beari.c, memside_mccachei.c,
 * memside_redcachei.c).
 *
 * The engine is a direct-mapped DRAM cache over SCM in one memory partition
 * (HMS, hms-dram-cache-over-scm.txt Sec. III): the geometry (AMIL metadata
 * columns or TAD tags with the data, Sec. III-B, Fig. 7; line sizes of Fig.
 * 16b), the tags, the Configurable Tag Cache (Sec. III-D), probes of a row's
 * tags, MSHRs that fill lines and evict victims (Sec. III-F), write-backs of
 * dirty victims and of metadata, write-through copies, and the route path of
 * an L2 access as numbered steps (memside_dcache_engine.c "route").
 *
 * A design is the engine plus a dc_design: how it learns the tags (probes of
 * a tag group, a probe per line, or ideal presence bits), its organisation,
 * and hooks where designs differ -- which misses fill (now, never, or decided
 * once the demand has been served by SCM), what a hit or an access tells the
 * design, which write hits also go to SCM. A hook a design does not need is
 * NULL; the engine copies the table into its state at init, and a design's
 * init may clear hooks its configuration does not use (HMS without the bypass
 * policy has no hit or decide hook), so the route path tests a pointer where
 * it would have tested a flag.
 *
 * State: one block (memside_ops.state_bytes), laid out as dc_st, the
 * per-slot metadata words, the tag cache's state (its implementation's
 * state_bytes, blocks.tag_cache), then the design's own state
 * (dc_design.state_bytes bytes at dc_st.ds), each part aligned to 16.
 */
#ifndef STRATA_MEMSIDE_DCACHE_ENGINE_H
#define STRATA_MEMSIDE_DCACHE_ENGINE_H
#include <stddef.h>
#include <stdint.h>

#include "blocks/blocks.h"
#include "bps_params.h"
#include "memside.h"
#include "memside_dcache_params.h"

#define DC_LINE_MIN 64u   /* a 64 B line holds half an L2 line: the shell routes each half (memside_ops.granule) */
#define DC_LINE_MAX 1024u /* the MSHRs' line buffers are this big (<= MEMSIDE_XFER_MAX) */
#define DC_COL 32u
#define DC_GROUP 8u       /* lines whose 4 B metadata fill one 32 B column: a tag group, one tag-cache sector */
#define DC_PROBES 64u
#define DC_INFL 4096u     /* power of two; blocks with accesses in flight or a fill */
#define DC_MAX_MSHRS 128u
#define DC_META_MAX 128u  /* metadata-column write-backs in flight (a write buffer; beyond it they merge) */

/* A line's metadata (what AMIL keeps in the row's last column, Sec. III-B):
 * valid, dirty, the 2-bit DRAM-affinity level of the bypass policy
 * (Sec. III-C2) and the tag. */
#define META_VALID 0x80000000u
#define META_DIRTY 0x40000000u
#define META_LVL_SHIFT 28
#define META_LVL (3u << META_LVL_SHIFT)
#define META_TAG 0x0fffffffu
_Static_assert(BPS_NLEVELS <= 4, "the DRAM-affinity level fits the 2 metadata bits");

/* F_PEND: a miss whose fill the design decides once the demand has been
 * served by SCM (HMS Sec. III-F: "the requested address is first accessed
 * from SCM ..., and then, the bypass policy determines if the fill should be
 * done"); the MSHR gathers the requests to the line meanwhile. */
enum dc_phase { F_FREE, F_PEND, F_DRAIN, F_READ, F_WRITE };

typedef struct dc_fill {
  uint8_t phase;        /* enum dc_phase */
  uint8_t has_victim, victim_dirty;
  uint8_t wr;           /* F_PEND: a write among the line's requests */
  uint8_t level;        /* DRAM-affinity level stored with the new line */
  uint8_t tagrmw;       /* TAD: not a fill but a rewrite of the line's first column with its new tag bits */
  uint8_t slotwait;     /* F_PEND, memside.dcache.busy = wait: decided to fill, waiting for another fill to free its slot */
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
  uint32_t mir;         /* write-through copies of the line on their way to SCM */
  uint32_t mw;          /* write misses of the block held until an MSHR is free: later accesses of their columns */
  uint32_t mwcols;      /*   wait behind them (wait_for_write); the 32 B columns of the block they write */
} dc_infl;

/* The engine's counters (the stat names in memside_dcache_engine.c). */
enum {
  S_READ_HITS, S_WRITE_HITS, S_READ_MISSES, S_WRITE_MISSES, S_PROBES, S_PROBE_MERGES, S_FILLS, S_WRITEBACKS,
  S_MSHR_MERGES, S_BYPASSES, S_CTC_LOOKUPS, S_CTC_HITS, S_META_WRITES, S_BYPASS_L1, S_BYPASS_L2, S_BYPASS_BUSY,
  S_DECREMENTS, S_WRITE_THROUGHS, S_NSTATS
};

/* What a miss does (dc_design.miss). */
enum dc_miss { DC_MISS_FILL, DC_MISS_BYPASS, DC_MISS_DECIDE };

/* Where the tags come from (dc_design.tags). */
enum dc_tags {
  DC_TAGS_PROBE_GROUP, /* a probe reads a tag group's tags (AMIL: its metadata column; TAD: each line's first column) */
  DC_TAGS_PROBE_LINE,  /* a probe reads the accessed line's own tag-bearing column (Alloy-style TAD) */
  DC_TAGS_IDEAL        /* presence known at no cost: no probe, no tag cache */
};

/* Where the tags live (dc_design.org). */
enum dc_org { DC_ORG_CONFIG, DC_ORG_AMIL, DC_ORG_TAD }; /* CONFIG: memside.dcache.org */

/* A deferred fill's outcome (dc_design.decide), Fig. 9's vocabulary. */
typedef struct dc_decision {
  uint8_t fill;         /* fill the line (unless another fill holds its slot) */
  uint8_t level;        /* fill: the DRAM-affinity level stored with the line */
  uint8_t first_level;  /* bypass: decided by the first comparison (else the second) */
  uint8_t dec_victim;   /* bypass: the victim's level becomes victim_level */
  uint8_t victim_level;
} dc_decision;

typedef struct dc_st dc_st;

typedef struct dc_design {
  const char *name;     /* memside.policy value (for errors) */
  uint8_t org;          /* enum dc_org */
  uint8_t tags;         /* enum dc_tags */
  uint8_t tag_cache;    /* may use the Configurable Tag Cache (l2.ctc_ways); else l2.ctc_ways must be 0 */
  /* Bytes of the design's own state for this partition (NULL: none). */
  size_t (*state_bytes)(const memside_cfg *cfg);
  /* Set up the design's state at s->ds once the engine's is (the geometry is known). Returns 0, or -1 with a
   * one-line reason naming the key. May clear hooks of s->d its configuration does not use. NULL: nothing. */
  int (*init)(dc_st *s, const memside_cfg *cfg, char *err, size_t errlen);
  /* Each access once, where its hit or miss is first decided (set dueling, epoch hit rates). */
  void (*sample)(dc_st *s, uint64_t slot, uint64_t block, int hit);
  /* A write hit on a clean line: 1 to also write it to SCM (a write-through copy; the line stays clean). */
  int (*write_through)(dc_st *s, uint64_t pa);
  /* A hit; cols = its 32 B sectors plus those of the line's accesses in flight. */
  void (*hit)(dc_st *s, const memside_req *rq, uint32_t cols);
  /* A miss (NULL: DC_MISS_FILL): fill now, go to SCM without a fill, or take an MSHR whose fill decide()
   * settles once the demand has been served by SCM. */
  int (*miss)(dc_st *s, const memside_req *rq, uint64_t block, uint64_t slot);
  /* The deferred decision for the requests MSHR F gathered (needed when miss may return DC_MISS_DECIDE). */
  void (*decide)(dc_st *s, const dc_fill *F, dc_decision *out);
  /* The timing of a rank of one of the cache's devices changed (s->cfg.rank_trcd/rank_twr hold it). */
  void (*timing_changed)(dc_st *s);
} dc_design;

struct dc_st {
  memside_cfg cfg;
  memside_env env;
  dc_design d;            /* the design's table (hooks its configuration does not use cleared) */
  void *ds;               /* the design's own state (d.state_bytes bytes) */
  devaddr_geom g;         /* the geometry of both devices (equal: one interface preset) */
  uint32_t cdev, sdev;     /* the partition's devices holding the DRAM cache and the SCM (the same channel in HMS) */
  uint32_t ncr, nsr;       /* DRAM-cache ranks (on cdev) and SCM ranks (on sdev) */
  uint8_t cr[AMAP_MAX_RANKS], sr[AMAP_MAX_RANKS];   /* their rank numbers, ascending */
  uint8_t cri[AMAP_MAX_RANKS], sri[AMAP_MAX_RANKS]; /* index of a rank number in cr[] / sr[] */
  uint32_t line;         /* DRAM-cacheline bytes (memside.dcache.line_bytes) */
  uint32_t lcols;        /* its 32 B columns */
  uint32_t lpr;          /* cachelines per DRAM row */
  uint32_t gpr;          /* tag groups per row (ceil(lpr / DC_GROUP)); AMIL: its metadata columns */
  uint32_t meta_cols;    /* AMIL: the row's last columns holding metadata (gpr); TAD: 0 */
  uint32_t nbanks;       /* bank groups x banks */
  uint32_t groups;       /* line-sized column groups per row (SCM blocks per row) */
  uint64_t slots;        /* DRAM-cache lines of the partition */
  uint64_t backing_limit;/* physical addresses below are the SCM part */
  uint32_t mshrs, fills_busy, probes_busy;
  int hashed;            /* memside.dcache.index = hashed: slot = (block mod slots + tag_offset(tag)) mod slots */
  int busy_wait;         /* memside.dcache.busy = wait: read misses wait for an MSHR, decided fills for their slot */
  uint32_t slot_waiters; /* MSHRs with slotwait set */
  uint64_t hash_key[32]; /* hashed: the offset pattern of each tag bit (tag_offset XORs those of its set bits) */
  int tad;               /* TAD organisation (tags with the data) instead of AMIL */
  int ideal_tags;        /* DC_TAGS_IDEAL */
  int probe_line;        /* DC_TAGS_PROBE_LINE */
  uint64_t st[S_NSTATS];
  int use_ctc;
  const ctc_ops *ctc;    /* the tag cache's implementation (memside_cfg.blocks; blocks.tag_cache) */
  void *ctc_st;          /* its state, in this block */
  uint32_t mirrors;      /* write-through copies in flight (<= MEMSIDE_MIRROR_SLOTS) */
  int mirror_waiters;    /* accesses held until a copy is written (TICKET_MIRWAIT) */
  int mshr_waiters;      /* write misses held until an MSHR is free (TICKET_MSHRWAIT) */
  uint32_t meta_pending; /* metadata-column write-backs in flight */
  unsigned char meta_buf[DC_COL];
  dc_fill fill[DC_MAX_MSHRS];
  /* each MSHR's line buffers: the new line (read from SCM) and the victim (read from DRAM); the shell
   * copies a write's bytes when it sends it */
  unsigned char buf[DC_MAX_MSHRS][2][DC_LINE_MAX];
  dc_probe probe[DC_PROBES];
  dc_infl infl[DC_INFL];
  uint32_t *meta;        /* per slot: META_VALID | META_DIRTY | level | tag (after this struct in the block) */
};

/* 1 for an empty sector mask (a request touches at least one column). */
static inline uint32_t dc_sectors_in(unsigned mask) {
  uint32_t n = 0;
  for (; mask; mask &= mask - 1) ++n;
  return n ? n : 1;
}

/* The block implementations of cfg (memside_cfg.blocks, or the C references). */
static inline const memside_blocks *dc_blocks(const memside_cfg *cfg) {
  return cfg->blocks ? cfg->blocks : &memside_blocks_c;
}

/* Bytes of state of design d for cfg (memside_ops.state_bytes). */
size_t dcache_state_bytes(const dc_design *d, const memside_cfg *cfg);
/* Set up the engine with design d, then the design (memside_ops.init). */
int dcache_init(void *st, const dc_design *d, const memside_cfg *cfg, const memside_env *env, char *err,
                size_t errlen);

/* The memory-side entries every design shares. */
void dcache_locate(const void *st, uint64_t pa, memside_target *out);
unsigned dcache_kind_of(const void *st, uint64_t pa);
int dcache_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out);
void dcache_complete(void *st, const memside_req *rq, const memside_target *t);
void dcache_done(void *st, uint64_t tag);
uint32_t dcache_granule(const void *st);
int dcache_busy(const void *st);
void dcache_stats(const void *st, memside_stats *out);
void dcache_timing_changed(void *st, uint32_t dev, uint32_t rank, uint32_t trcd, uint32_t twr);
void dcache_stat_values(const void *st, uint64_t *out);
extern const char *const dcache_stat_names[];
extern const char *const dcache_stat_descs[];
extern const memside_derived dcache_stat_derived[];

/* The memside_ops entries of a DRAM-cache design besides name, desc, state_bytes and init. */
#define DCACHE_OPS_COMMON                   \
  .locate = dcache_locate,                  \
  .route = dcache_route,                    \
  .kind_of = dcache_kind_of,                \
  .complete = dcache_complete,              \
  .done = dcache_done,                      \
  .granule = dcache_granule,                \
  .busy = dcache_busy,                      \
  .timing_changed = dcache_timing_changed,  \
  .stats = dcache_stats,                    \
  .stat_prefix = "dcache",                  \
  .stat_names = dcache_stat_names,          \
  .stat_descs = dcache_stat_descs,          \
  .stat_values = dcache_stat_values,        \
  .stat_derived = dcache_stat_derived,      \
  .params = &memside_dcache_params,         \
  .program_in_first_part = 1

#endif
