/* tcheck: DRAM/NVM command timing-constraint checker (pure C11).
 *
 * An independent observer of one channel's command stream. It keeps its own
 * command history -- last ACT/PRE/RD/WR per bank, last ACT/RD/WR per bank
 * group and per rank, the last four ACTs per rank, last REF per rank, the end
 * of the last data burst -- and checks every new command against the device
 * preset with the JEDEC-form rules of dram.h, pairwise ({scope, previous
 * command, next command, spacing}), not with the engine's folded
 * "next-allowed" times (mc.c). docs/timing_checker.md has the rule table.
 *
 * Rules (spacing in command-clock cycles, "c" = the new command's cycle)
 *   ACT  bank closed; tRP after the bank's PRE (tRP_DIRTY instead when that
 *        PRE closed a row buffer holding written data and the preset sets
 *        tRP_DIRTY: the NVM array write); tRC after the bank's ACT;
 *        tRRD_L after an ACT in the same bank group; tRRD_S after an ACT in
 *        the rank; tFAW after the fourth-last ACT of the rank; tRFC after the
 *        rank's REF.
 *   PRE  tRAS after the bank's ACT; tRTP after a RD to the bank; CWL + tBURST
 *        + tWR after a WR to the bank; tRRD_PRE after the rank's previous
 *        array-writing PRE, if this one writes the array (every PRE of a DRAM
 *        device, a PRE of a written row buffer on an NVM device; dram.h).
 *        PRE of a closed bank is allowed as a
 *        no-op (JEDEC: "treated as a NOP" for an idle bank): it changes no
 *        state, is checked only for the command bus and is counted in
 *        `pre_idle` (the Strata engine never issues one; its tests assert 0).
 *   RD   bank open on the same row; tRCD after the bank's ACT; tCCD_L / tCCD_S
 *        after a RD in the same bank group / the rank; CWL + tBURST + tWTR_L /
 *        tWTR_S after a WR in the same bank group / the rank; data bus free at
 *        c + CL.
 *   WR   bank open on the same row; tRCD; tCCD_L / tCCD_S after a WR in the
 *        same bank group / the rank; tRTW after a RD in the rank; data bus free
 *        at c + CWL.
 *   REF  all banks of the rank closed; tRP (or tRP_DIRTY, as for ACT) after
 *        every PRE of the rank; tRC after
 *        its last ACT; tRFC after its previous REF; only on devices with
 *        tREFI > 0.
 *   all  one command per cycle on the command bus (one row command -- ACT,
 *        PRE, REF -- plus one column command per cycle with dual_cmd_bus);
 *        cycles never go backwards; refresh interval: with refresh expected
 *        (devices with tREFI > 0, see tcheck_expect_refresh) no rank goes longer
 *        than 9 x tREFI (JEDEC: up to 8 postponed refreshes) without a REF,
 *        counted from cycle 0; checked at every command and by tcheck_finish.
 *   PDX  (not a bus command: a rank's power-down / gating exit reported by the
 *        engine, mc.h MC_CMD_PDX, cycle = exit, row = entry): at entry every
 *        bank of the rank closed and the entry after the rank's last command
 *        and the end of its last data burst (JEDEC tPRPDEN / tRDPDEN class);
 *        a power-down lasts at least tCKE; the rank's next command comes
 *        tXP (power-down) or tWAKE (gating) after the exit. PDX is exempt from
 *        the command-order and command-bus rules (it travels on CKE).
 * A timing of 0 means "no such constraint" (tFAW, tRC; see dram.h).
 * Data-bus rules: bursts never overlap, in command order; a burst of another
 * rank than the burst before it starts at least tRTRS after that one ended
 * (rule tRTRS; the channel's value, dram.h).
 * Mixed channels (tcheck_init_ranks): every bank, bank-group and rank rule
 * uses the spacing of the rank's own preset (HMS: the SCM rank's tRCD 120
 * next to the DRAM rank's 14); the command buses, the data bus and tRTRS
 * are the channel's; the refresh rules apply to ranks whose device refreshes.
 *
 * Timing scaling: tcheck_scale mirrors mc_scale_timing (HMS Sec. III-E SCM
 * throttling): tRCD, tWR and tRP_DIRTY become multiples of the preset's. As
 * in the engine, a scaled value applies to the constraints started by
 * commands issued after the call (tRCD from the ACT, tWR from the WR,
 * tRP_DIRTY from the PRE); the checker records the value with the command.
 *
 * Memory: tcheck_init allocates the per-bank, per-group and per-rank arrays;
 * nothing is allocated afterwards. No printing, no globals.
 */
#ifndef STRATA_TCHECK_H
#define STRATA_TCHECK_H
#include <stddef.h>
#include <stdint.h>

#include "dram.h"
#include "mc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rules, for tests and tools (tcheck_rule_name gives the text). */
typedef enum tcheck_rule {
  TCHECK_OK = 0,
  TCHECK_ORDER,        /* command cycle earlier than the previous command's */
  TCHECK_CMD_BUS,      /* two commands in one command-bus slot */
  TCHECK_ADDR,         /* rank / bank group / bank out of range, unknown command */
  TCHECK_ACT_OPEN,     /* ACT to a bank that has an open row */
  TCHECK_COL_CLOSED,   /* RD/WR to a bank without an open row */
  TCHECK_COL_ROW,      /* RD/WR to a row other than the open one */
  TCHECK_REF_OPEN,     /* REF while a bank of the rank is open */
  TCHECK_REF_NONE,     /* REF on a device without refresh (tREFI = 0) */
  TCHECK_RCD, TCHECK_RP, TCHECK_RAS, TCHECK_RC,
  TCHECK_CCD_S, TCHECK_CCD_L, TCHECK_RRD_S, TCHECK_RRD_L, TCHECK_FAW,
  TCHECK_WTR_S, TCHECK_WTR_L, TCHECK_RTP, TCHECK_WR, TCHECK_RTW, TCHECK_RFC,
  TCHECK_RP_DIRTY,     /* PRE of a written row buffer -> ACT/REF (NVM array write) */
  TCHECK_RRD_PRE,      /* array-writing PRE -> array-writing PRE, rank */
  TCHECK_DATA_BUS,     /* data burst overlapping the previous one */
  TCHECK_REFI,         /* a rank went longer than 9 x tREFI without REF */
  TCHECK_XP,           /* command to a rank within tXP (tWAKE) of its power-down (gating) exit */
  TCHECK_CKE,          /* power-down shorter than tCKE */
  TCHECK_PD_ENTRY,     /* power-down / gating entered with a bank open, or before the rank's last command or burst ended */
  TCHECK_RTRS,         /* a burst of another rank than the previous burst's starting less than tRTRS after it ended */
  TCHECK_NRULES
} tcheck_rule;

/* Name of a rule ("tRCD", "data bus", "ACT to open bank", ...). */
const char *tcheck_rule_name(tcheck_rule r);

/* Internal state (opaque to callers; fields may change). Times are signed
 * cycles; TCHECK_NEVER_ marks "no such command yet". */
typedef struct tcheck_bank_ {
  int64_t act, pre, rd, wr;
  int64_t wr_need;         /* WR -> PRE spacing in force at the last WR (CWL + tBURST + tWR) */
  uint64_t row;
  uint32_t rcd;            /* tRCD in force at the last ACT */
  uint32_t rp_need;        /* tRP or tRP_DIRTY in force at the last PRE */
  uint8_t open, dirty;     /* dirty: a WR since the ACT */
  int64_t refpb;           /* last per-bank REF of this bank */
  int64_t refd;            /* last refresh of this bank (REF or REFPB), or 0 */
  uint8_t pre_dirty;       /* the last PRE closed a written row buffer */
} tcheck_bank_;
typedef struct tcheck_group_ {
  int64_t act, rd, wr;
} tcheck_group_;
typedef struct tcheck_rank_ {
  const dram_preset *dev;  /* the rank's device */
  dram_timing t;           /* its timing in force (scaled by tcheck_scale / tcheck_scale_rank) */
  uint8_t pre_writes_all;  /* DRAM rank: every PRE writes the array (tRRD_PRE) */
  int64_t wtr_l_need, wtr_s_need, wr_need; /* CWL + tBURST + tWTR_L / tWTR_S / tWR of t */
  int64_t act, rd, wr, ref;
  int64_t refpb;           /* last per-bank REF in the rank */
  int64_t wpre;            /* last array-writing PRE (tRRD_PRE) */
  int64_t pre, pre_need;   /* the PRE whose tRP / tRP_DIRTY ends last, and that spacing */
  uint8_t pre_dirty;       /* ... and whether it was a dirty one */
  int64_t ref_base;        /* oldest last refresh of its banks, or 0: start of the refresh interval */
  int64_t faw[4];          /* last four ACTs, ring */
  uint32_t faw_i, nopen;
  int64_t last;            /* last command to the rank */
  int64_t burst_end;       /* end of its last data burst */
  int64_t pdx, pdx_need;   /* last power-down / gating exit and the spacing it imposes (tXP / tWAKE) */
  uint8_t pdx_gated;
} tcheck_rank_;

typedef struct tcheck {
  const dram_preset *dev;  /* the channel's interface (and every rank's device unless mixed) */
  dram_timing t;           /* dev's timing in force (scaled by tcheck_scale); the rules read rk[r].t, the
                              channel interface (CL, CWL, tBURST, tRTRS) is the same in every rank */
  uint8_t mixed;           /* ranks check against different presets */
  uint32_t bus_rank;       /* rank of the burst that ends last (UINT32_MAX: none yet) */
  uint32_t ranks, banks_per_rank, ngroups;
  uint32_t nbg, nbpg;      /* bank groups per rank, banks per bank group */
  uint8_t dual;            /* dev->dual_cmd_bus */
  tcheck_bank_ *banks;
  tcheck_group_ *groups;
  tcheck_rank_ *rk;
  int64_t last_cmd, last_row_cmd, last_col_cmd, bus_end;
  int64_t ref_deadline;    /* min over ranks of ref_base + 9 tREFI (INT64_MAX: off) */
  uint8_t refresh;         /* 1: refresh-interval rule checked (on ranks whose device refreshes) */
  /* counters */
  uint64_t checked;        /* commands checked */
  uint64_t cmds[MC_NCMDS]; /* per mc_cmd */
  uint64_t pre_idle;       /* PRE of a closed bank (allowed no-op) */
  uint64_t violations;     /* all violations seen (only the first is described) */
  /* first violation */
  tcheck_rule first_rule;
  uint64_t first_cycle;
  char msg[320];
} tcheck;

/* Validate the preset (dram_validate) and ranks (1..255), allocate the
 * history. The preset is not copied and must outlive the checker; its timing
 * is copied (see tcheck_set_timing). Starts at cycle 0, all banks closed,
 * refresh-interval rule on iff dev->t.REFI > 0. Returns 0, or -1 with a
 * one-line reason in err (nothing allocated). */
int tcheck_init(tcheck *c, const dram_preset *dev, uint32_t ranks, char *err, size_t errlen);
/* The same with a device per rank (mixed technologies on one channel, mc.h
 * mc_cfg.rank_devs): rank r is checked against rank_devs[r] (NULL array =
 * every rank `dev`); each must share dev's channel interface and bank
 * geometry (dram_same_interface). Neither the array nor the presets are
 * copied. Error messages then name the rank's device ("RD rank 1 (scm_mlc)"). */
int tcheck_init_ranks(tcheck *c, const dram_preset *dev, const dram_preset *const *rank_devs, uint32_t ranks,
                      char *err, size_t errlen);
/* Free the arrays (the checker can be re-initialised afterwards). */
void tcheck_free(tcheck *c);

/* Check one command issued at `cycle` and record it. Same signature as
 * mc_cmd_fn (ctx = the tcheck), so mc_set_cmd_log(&m, tcheck_cmd, &c) attaches
 * it to an engine. For REF, bg/bank/row/col are ignored. A violating command
 * is still recorded (later commands are checked against what really
 * happened). Never allocates, never prints. */
void tcheck_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                uint32_t col);

/* End-of-run check at cycle `now`: no rank without REF for more than
 * 9 x tREFI up to now. Call after the controller has issued every command due
 * before now. */
void tcheck_finish(tcheck *c, uint64_t now);

/* 1 if no violation so far. */
int tcheck_ok(const tcheck *c);
/* The first violation in one line ("cycle 1234: RD rank 0 bg 1 bank 2: tCCD_L
 * (RD -> RD same bank group) needs 2 cycles after RD at cycle 1233, got 1"),
 * or "" when there is none. Owned by the checker. */
const char *tcheck_error(const tcheck *c);
/* Rule and cycle of the first violation (TCHECK_OK / 0 when none). */
tcheck_rule tcheck_first_rule(const tcheck *c);
uint64_t tcheck_first_cycle(const tcheck *c);
/* Commands checked so far. */
uint64_t tcheck_checked(const tcheck *c);

/* Refresh-interval rule on (1) or off (0), e.g. off when the controller runs
 * without refresh. Ignored (off) for devices with tREFI = 0. */
void tcheck_expect_refresh(tcheck *c, int on);
/* Mirror of mc_scale_timing: tRCD = rcd_mult x the preset's, tWR and
 * tRP_DIRTY = wr_mult x the preset's, for constraints started by commands
 * checked from now on. Call it at the same point of the command stream as the
 * engine's call. Returns 0, or -1 (nothing changed) when a multiplier is 0 or
 * a value would not fit in 32 bits. */
int tcheck_scale(tcheck *c, unsigned rcd_mult, unsigned wr_mult);
/* Mirror of mc_scale_rank_timing: the same for rank r only (relative to its
 * own preset). -1 also when r is out of range. */
int tcheck_scale_rank(tcheck *c, uint32_t r, unsigned rcd_mult, unsigned wr_mult);

#ifdef __cplusplus
}
#endif
#endif
