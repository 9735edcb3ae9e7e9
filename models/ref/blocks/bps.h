/* bps: SCM-aware DRAM-cache bypass scorer (C reference model and platform policy).
 *
 * Paper: "HMS: DRAM cache over SCM in a heterogeneous memory stack" (shared/papers/
 * hms-dram-cache-over-scm.txt), Sec. III-C (SCM penalty score, Eq. 1; DRAM-affinity score;
 * two-level bypass policy, Fig. 9), Sec. III-F (hit path updates the average), Sec. IV-A
 * (Nlevels = 4, moving-average weight 1%). One bps_t per DRAM-cache channel controller.
 * The RTL block rtl/bps/bps_scorer.sv implements exactly this arithmetic; the Verilator
 * testbench testbenches/bps compares the two transaction by transaction.
 *
 * Constants come from rtl/params/bps.toml through the generated bps_params.h (BPS_*).
 *
 * Arithmetic (all unsigned integer; bit exact with the RTL)
 * ---------------------------------------------------------
 *  num     = is_write ? num_wr : num_rd            NUM_W-bit integer cycles (Eq. 1 numerator,
 *            precomputed: tRCD,SCM - tRCD,DRAM [+ tWR,SCM - tWR,DRAM], Sec. III-C1)
 *  ncols'  = (ncols == 0) ? 1 : ncols              NCOL_W bits
 *  pen     = floor((num << PEN_FRAC) / ncols')     SCM penalty score, UQ(NUM_W).(PEN_FRAC),
 *            PEN_W bits; exact truncating division (the RTL uses a restoring divider).
 *  aff     = pen * act                             DRAM-affinity score, AFF_W bits (Sec. III-C2)
 *  Maxima  max_pen, max_aff, max_act: monotone "maximum observed so far" registers, updated
 *            by every hit and miss BEFORE the levels of that access are computed.
 *  level(v, m) = 0 if m == 0, else min(NLEVELS-1, floor(v * NLEVELS / m)), computed without a
 *            divider as the number of k in 1..NLEVELS-1 with v * NLEVELS >= k * m
 *            ("discretised to Nlevels levels between 0 and the maximum observed", fixed interval).
 *  pen_level = level(pen, max_pen); aff_level = level(aff, max_aff);
 *  avg_level = level(avg, max_pen << AVG_XFRAC) using the average value from BEFORE the access.
 *  Moving average avg: UQ(NUM_W).(PEN_FRAC + AVG_XFRAC), AVG_W bits, weight w = AVG_WNUM /
 *            2^AVG_WSHIFT (~1%), target P = pen << AVG_XFRAC:
 *              P >= avg: avg += ((P - avg) * AVG_WNUM) >> AVG_WSHIFT           (floor)
 *              P <  avg: avg -= ((avg - P) * AVG_WNUM + 2^AVG_WSHIFT - 1) >> AVG_WSHIFT (ceil)
 *            i.e. avg + floor((P - avg) * w); it stays within [min P, max P] seen, so
 *            avg <= max_pen << AVG_XFRAC always holds (asserted in the RTL).
 *  Random draw: 16-bit Galois LFSR (mask LFSR_TAPS, right shift); a draw takes r = the low
 *            ACT_W bits of the state, then shifts the state LFSR_STEPS times.
 *            p_dec = act / max_act is realised as: dec iff r * max_act < act << ACT_W
 *            (exactly 1 when act == max_act, 0 when act == 0).
 *
 * Decisions (Fig. 9)
 * ------------------
 *  miss:  (1) compute pen_level; (2) pen_level <= avg_level -> BYPASS_L1 (victim metadata not
 *         read, no draw); else victim invalid -> FILL_INVALID (store aff_level); else (3,4)
 *         aff_level > victim_level -> FILL_WIN (store aff_level, victim replaced); else
 *         BYPASS_L2: one LFSR draw, victim decremented iff draw succeeds and victim_level > 0.
 *         Ties (==) never fill. The moving average is updated on misses when cfg.avg_on_miss.
 *  hit:   the penalty of the hit's row group updates maxima and (always) the average
 *         (Sec. III-F); levels are reported, nothing is decided.
 *  Decisions the paper leaves open (documented in docs/rtl/bps.md): maxima include the current
 *  access; avg compared before its own update; ties bypass; the first-level bypass does not
 *  decrement (the victim's level is not read on that path); avg_on_miss defaults to 1 because
 *  Fig. 9 compares against the channel's average penalty of all traffic; "Fupdate" (Sec. IV-A)
 *  is not defined in the paper and not modelled; the 8-bit activation counters, their MSB-shift
 *  ageing and the constant-1 option live in the caller (pass act = 1 to disable them, as the
 *  paper's evaluation does).
 */
#ifndef STRATA_BPS_H
#define STRATA_BPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bps_params.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BPS_NUM_MAX ((1u << BPS_NUM_W) - 1u)
#define BPS_NCOL_MAX ((1u << BPS_NCOL_W) - 1u)
#define BPS_ACT_MAX ((1u << BPS_ACT_W) - 1u)
#define BPS_LFSR_MASK ((1u << BPS_LFSR_W) - 1u)

/* Static configuration of one scorer (per channel controller). */
typedef struct bps_cfg {
  uint32_t num_rd;      /* Eq. 1 numerator, read-only row groups, integer cycles, <= BPS_NUM_MAX */
  uint32_t num_wr;      /* Eq. 1 numerator, a write present, <= BPS_NUM_MAX */
  bool avg_on_miss;     /* misses also update the moving average (hits always do) */
  uint32_t lfsr_seed;   /* initial LFSR state, 0 selects BPS_LFSR_SEED, < 2^BPS_LFSR_W */
} bps_cfg_t;

/* Path taken through Fig. 9 (also the RTL's resp_path_o encoding). */
typedef enum bps_path {
  BPS_PATH_BYPASS_L1 = BPS_ENC_BYPASS_L1,       /* pen_level <= avg_level: bypass, victim level not read */
  BPS_PATH_FILL_INVALID = BPS_ENC_FILL_INVALID, /* victim invalid: fill without the second comparison */
  BPS_PATH_FILL_WIN = BPS_ENC_FILL_WIN,         /* aff_level > victim level: replace the victim */
  BPS_PATH_BYPASS_L2 = BPS_ENC_BYPASS_L2,       /* aff_level <= victim level: bypass, maybe decrement */
  BPS_PATH_HIT = BPS_ENC_HIT,                   /* hit-path update only */
  BPS_PATH_CLEAR = BPS_ENC_CLEAR                /* state cleared (RTL op only) */
} bps_path_t;

/* One DRAM-cache access as seen by the scorer: the requests of the MSHR entry that map to
 * the same DRAM row (Sec. III-C1). */
typedef struct bps_access {
  uint32_t ncols;       /* columns accessed, 0..BPS_NCOL_MAX (0 treated as 1) */
  bool is_write;        /* a write is among them */
  uint32_t act;         /* activation counter of the 2 MiB page, 0..BPS_ACT_MAX */
} bps_access_t;

/* Result of one access. Fields not meaningful for a path are 0. */
typedef struct bps_result {
  bps_path_t path;
  bool fill;                 /* true: fill the DRAM cache (replace victim); false: bypass */
  bool need_victim;          /* bps_miss_begin only: call bps_miss_finish with the victim level */
  bool dec_victim;           /* BYPASS_L2: write victim_new_level into the victim's AMIL bits */
  bool draw_hit;             /* BYPASS_L2: the random draw succeeded (dec_victim unless level 0) */
  uint32_t store_level;      /* FILL_*: DRAM-affinity level to store with the new line */
  uint32_t victim_new_level; /* BYPASS_L2: victim level after the (possible) decrement */
  uint32_t pen;              /* SCM penalty score, UQ.PEN_FRAC */
  uint32_t pen_level, avg_level, aff_level;
  /* snapshot used by bps_miss_finish (two-stage use) */
  uint32_t act, max_act;
} bps_result_t;

/* Event counters (for the platform's stats and the testbench's coverage). */
typedef struct bps_counters {
  uint64_t hits, misses, clears;
  uint64_t path[4];          /* misses per bps_path_t BYPASS_L1..BYPASS_L2 */
  uint64_t draws, decrements;
} bps_counters_t;

/* Scorer state. Fields are readable (the testbench compares them with the RTL registers);
 * change them only through the functions below. */
typedef struct bps {
  bps_cfg_t cfg;
  uint32_t max_pen;     /* PEN_W bits */
  uint32_t max_aff;     /* AFF_W bits */
  uint32_t max_act;     /* ACT_W bits */
  uint32_t avg;         /* AVG_W bits */
  uint32_t lfsr;        /* LFSR_W bits, never 0 */
  bps_counters_t cnt;
} bps_t;

/* Fill *cfg with the defaults of bps.toml (HMS Table I numerators, avg_on_miss = 1). */
void bps_cfg_default(bps_cfg_t *cfg);

/* Eq. 1 numerators from timing parameters (cycles of the same clock): num_rd = trcd_scm -
 * trcd_dram, num_wr = num_rd + twr_scm - twr_dram. Keeps the other fields of *cfg.
 * Returns 0, or -1 (cfg unchanged) if SCM is faster than DRAM or a result exceeds BPS_NUM_MAX. */
int bps_cfg_timing(bps_cfg_t *cfg, uint32_t trcd_dram, uint32_t trcd_scm, uint32_t twr_dram,
                   uint32_t twr_scm);

/* Validate cfg and reset *s (maxima, average 0; LFSR = seed; counters 0).
 * Returns 0, or -1 if a numerator exceeds BPS_NUM_MAX or the seed does not fit (s untouched). */
int bps_init(bps_t *s, const bps_cfg_t *cfg);

/* Change the numerators at run time (SCM throttling doubles tRCD/tWR, Sec. III-E).
 * Returns 0, or -1 if a value exceeds BPS_NUM_MAX (state unchanged). */
int bps_set_numerators(bps_t *s, uint32_t num_rd, uint32_t num_wr);

/* Select whether misses update the moving average (hits always do). Never fails. */
void bps_set_avg_on_miss(bps_t *s, bool on);

/* Clear maxima and average and load the LFSR with seed (0 -> BPS_LFSR_SEED; higher bits than
 * BPS_LFSR_W are ignored). Counters are kept except `clears`. The RTL's CLEAR operation. */
void bps_clear(bps_t *s, uint32_t seed);

/* DRAM-cache hit: update maxima and the moving average with this access's penalty; report
 * pen/levels in *res (path BPS_PATH_HIT, fill false). Inputs out of range are masked to their
 * field widths, as in the RTL. */
void bps_hit(bps_t *s, const bps_access_t *a, bps_result_t *res);

/* DRAM-cache miss, one shot (what the RTL computes per MISS transaction): victim_level is
 * read only when res->path is BYPASS_L2 or FILL_WIN (the caller counts that as a metadata
 * probe when it is not already known). */
void bps_miss(bps_t *s, const bps_access_t *a, bool victim_valid, uint32_t victim_level,
              bps_result_t *res);

/* DRAM-cache miss in two stages, for a controller that must read the victim's affinity bits
 * from DRAM first (Sec. III-C3): stage 1 updates the state and decides BYPASS_L1 or
 * FILL_INVALID; otherwise it sets res->need_victim and the caller later calls
 * bps_miss_finish(s, res, victim_level) with the same *res (which makes the draw, if any).
 * bps_miss_begin + immediate bps_miss_finish == bps_miss bit for bit. */
void bps_miss_begin(bps_t *s, const bps_access_t *a, bool victim_valid, bps_result_t *res);
void bps_miss_finish(bps_t *s, bps_result_t *res, uint32_t victim_level);

/* Pure helpers (exposed for tests and the RTL documentation). */
uint32_t bps_penalty(uint32_t num, uint32_t ncols);          /* floor((num<<PEN_FRAC)/ncols') */
uint32_t bps_level(uint64_t v, uint64_t m);                  /* level(v, m) above */
uint32_t bps_avg_update(uint32_t avg, uint32_t pen);         /* new moving average */
uint32_t bps_lfsr_next(uint32_t state);                      /* one Galois shift */

/* The scorer as a swappable block (blocks.h; blocks.bypass_scorer): the calls the DRAM cache makes, on a
 * state block of state_bytes() bytes (aligned for uint64_t) that the caller owns. The contract of each call
 * is that of the function above of the same name; an implementation must agree with them bit for bit (the
 * C reference is the golden model; tests/unit/test_bps.c). Nothing allocates. */
typedef struct bps_ops {
  const char *name;      /* blocks.bypass_scorer value */
  const char *desc;      /* one line */
  size_t (*state_bytes)(void);
  int (*init)(void *st, const bps_cfg_t *cfg);
  int (*set_numerators)(void *st, uint32_t num_rd, uint32_t num_wr);
  void (*hit)(void *st, const bps_access_t *a, bps_result_t *res);
  void (*miss)(void *st, const bps_access_t *a, bool victim_valid, uint32_t victim_level, bps_result_t *res);
  void (*miss_begin)(void *st, const bps_access_t *a, bool victim_valid, bps_result_t *res);
} bps_ops;

/* This file's C reference as implementation "c" (its state: a bps_t). */
extern const bps_ops bps_c_ops;

#ifdef __cplusplus
}
#endif
#endif /* STRATA_BPS_H */
