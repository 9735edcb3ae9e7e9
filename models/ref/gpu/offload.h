/* offload: TOM's bandwidth cost-benefit of offloading an instruction block to
 * the SM on a memory stack's logic layer, and the candidate decision built on
 * it (tom-ndp-offload-and-mapping.txt, Sec. 3.1.1-3.1.4).
 *
 * Offloading a block costs the live-in registers sent on the TX channel (GPU to
 * stack) and the live-out registers returned on RX; it saves the traffic of the
 * block's loads and stores, which then run inside the stack. Per thread
 * (Eq. 1-2, address = data = register = 4 x an acknowledgement):
 *     BW_TX = REG_TX - (N_LD + 2 N_ST)            BW_RX = REG_RX - (N_LD + 1/4 N_ST)
 * per warp, with coalescing and the L1 miss rate (Eq. 3-4):
 *     BW_TX = REG_TX S_W - (N_LD Coal_LD Miss_LD + N_ST (S_W + Coal_ST))
 *     BW_RX = REG_RX S_W - (N_LD Coal_LD S_C Miss_LD + 1/4 N_ST Coal_ST)
 * S_W = warp size, S_C = cache line / address size (32 for 128 B lines). All
 * quantities are in units of one address-sized word. A block is a candidate
 * when BW_TX + BW_RX < 0 (Sec. 3.1.2); its 2-bit tag says which channels it
 * saves. Loops (Sec. 3.1.3): the trip count multiplies the loads and stores,
 * not the register cost; a static count is used as is, a count known at loop
 * entry makes a "conditional" candidate (offload when trips >= min_trips), an
 * unknown count is taken as 1. Limits (Sec. 3.1.4): a block with shared-memory
 * accesses, barriers/atomics or divergence that is not reconverged at its exit
 * is never a candidate; nor is one calling a device function (the PTX analysis,
 * models/ptx/ptx_offload.h: the callee's code is not part of the block).
 *
 * Arithmetic: fixed point, Q16 (value x 65536) in int64_t, so the paper's
 * quarters and halves are exact and results are bit-identical everywhere.
 * Coal_LD x Miss_LD is rounded to Q16 once (round half up); the 1/4 N_ST Coal_ST
 * term is truncated to Q16 (exact whenever N_ST Coal_ST is a multiple of 1/16384,
 * e.g. any integral coalescing ratio). Ranges (checked, -1 otherwise):
 * S_W 1..64, S_C 1..256, Coal 1..S_W, Miss 0..1, registers <= OFL_MAX_REGS,
 * loads/stores per iteration <= OFL_MAX_OPS, total loads/stores <= 2^32;
 * trip counts are clamped to OFL_MAX_TRIPS (the sign of a loop's total only
 * improves with more trips, so the decision is unaffected).
 * No call allocates or prints; no state besides the caller's structs.
 */
#ifndef STRATA_OFFLOAD_H
#define STRATA_OFFLOAD_H
#include <stdint.h>

#define OFL_Q 16
#define OFL_ONE (1 << OFL_Q) /* 1.0 in Q16 */
#define OFL_MAX_REGS 1024u
#define OFL_MAX_OPS 4096u
#define OFL_MAX_TRIPS (1u << 20)

/* Eq. 3-4 parameters. ofl_params_paper() gives the compiler's conservative
 * estimate of Sec. 3.1.1: S_W 32, S_C 32 (128 B lines, 4 B addresses),
 * perfect coalescing (Coal = 1) and Miss_LD = 50%. */
typedef struct ofl_params {
  uint32_t warp_size;   /* S_W */
  uint32_t line_words;  /* S_C = cache line size / address size */
  uint32_t coal_ld_q16; /* Coal_LD: average lines per warp load, Q16 */
  uint32_t coal_st_q16; /* Coal_ST: average lines per warp store, Q16 */
  uint32_t miss_ld_q16; /* Miss_LD: load miss rate 0..1, Q16 */
} ofl_params;

/* Register/memory counts of one block execution (loops: all iterations). */
typedef struct ofl_counts {
  uint32_t reg_tx; /* live-in registers (sent with the offload request) */
  uint32_t reg_rx; /* live-out registers (returned with the acknowledgement) */
  uint64_t n_ld;   /* loads executed */
  uint64_t n_st;   /* stores executed */
} ofl_counts;

/* Bandwidth change of offloading, Q16 words; negative = saves bandwidth. */
typedef struct ofl_bw {
  int64_t tx_q16;
  int64_t rx_q16;
} ofl_bw;

typedef enum ofl_trip {
  OFL_TRIP_NONE = 0,     /* straight-line block: executes once */
  OFL_TRIP_STATIC = 1,   /* loop, trip count known at compile time */
  OFL_TRIP_AT_ENTRY = 2, /* loop, trip count known when the loop is entered */
  OFL_TRIP_UNKNOWN = 3   /* loop, trip count decided during the loop */
} ofl_trip;

/* Sec. 3.1.4 limit violations (bit set = violated). */
#define OFL_LIMIT_SHARED 1u    /* on-chip shared-memory access */
#define OFL_LIMIT_BARRIER 2u   /* barrier, memory barrier or other synchronisation */
#define OFL_LIMIT_ATOMIC 4u    /* atomic instruction */
#define OFL_LIMIT_DIVERGENT 8u /* control flow leaves the block other than at its end */
#define OFL_LIMIT_CALL 16u     /* call of a device function (its code is outside the block) */
#define OFL_LIMIT_ALL 31u

/* A candidate block as the compiler sees it (per-iteration counts for loops). */
typedef struct ofl_block {
  uint32_t live_in, live_out; /* registers */
  uint32_t n_ld, n_st;        /* loads and stores per execution / per iteration */
  ofl_trip trip;
  uint32_t trips;  /* OFL_TRIP_STATIC: the trip count (>= 1); ignored otherwise */
  uint32_t limits; /* OFL_LIMIT_* bits */
} ofl_block;

typedef enum ofl_kind {
  OFL_NOT_CANDIDATE = 0,
  OFL_CANDIDATE = 1,   /* offload whenever the runtime control allows */
  OFL_CONDITIONAL = 2  /* offload only when the loop's trip count >= min_trips */
} ofl_kind;

#define OFL_TAG_TX 1u /* offloading saves TX (GPU -> stack) bandwidth */
#define OFL_TAG_RX 2u /* offloading saves RX (stack -> GPU) bandwidth */

typedef struct ofl_decision {
  ofl_kind kind;
  uint32_t tag;        /* OFL_TAG_* at trips_used */
  uint32_t trips_used; /* trip count the estimate assumed (1 for NONE/UNKNOWN, min_trips for conditional) */
  uint32_t min_trips;  /* OFL_TRIP_AT_ENTRY: smallest trip count that saves bandwidth (0 = none does) */
  ofl_bw bw;           /* Eq. 3-4 at trips_used */
} ofl_decision;

/* The paper's conservative compile-time parameters (see ofl_params). */
void ofl_params_paper(ofl_params *p);

/* 0 if p is within the ranges above, -1 otherwise. */
int ofl_params_check(const ofl_params *p);

/* Eq. 1-2: per-thread bandwidth change. Returns 0, or -1 (out untouched) when
 * a count is out of range. */
int ofl_bw_thread(const ofl_counts *c, ofl_bw *out);

/* Eq. 3-4: per-warp bandwidth change. Returns 0, or -1 (out untouched) when
 * p or a count is out of range. */
int ofl_bw_warp(const ofl_params *p, const ofl_counts *c, ofl_bw *out);

/* Eq. 3-4 for block b executed with `trips` iterations (ignored for
 * OFL_TRIP_NONE; clamped to 1..OFL_MAX_TRIPS) — what the offload controller
 * evaluates at run time for a conditional candidate. 0 or -1 (out untouched). */
int ofl_block_bw(const ofl_params *p, const ofl_block *b, uint32_t trips, ofl_bw *out);

/* The compile-time decision of Sec. 3.1.2-3.1.4 for block b. Returns 0, or -1
 * (out untouched) when p or b is out of range. */
int ofl_decide(const ofl_params *p, const ofl_block *b, ofl_decision *out);

/* Run-time check of a decision for a block instance about to run `trips`
 * iterations: 1 = offload is allowed (candidate, or conditional with
 * trips >= min_trips), 0 = not. */
int ofl_offload_allowed(const ofl_decision *d, uint32_t trips);

#endif
