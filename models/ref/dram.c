/* dram: the device preset table. Data, not code: one row per standard/speed,
 * every number with its source. See dram.h for units and conventions and
 * docs/memctrl.md for the table with sources. */
#include "dram.h"

#include <stdio.h>
#include <string.h>

/* Bits moved by one 32 B column access; HMS Table I gives energy in pJ/bit. */
#define BITS32B 256.0

static const dram_preset k_presets[] = {
    /* ------------------------------------------------------------------
     * HBM2, one pseudo-stack channel of the HMS baseline.
     * Source: shared/papers/hms-dram-cache-over-scm.txt Table I ("Memory
     * organization", "Timing parameters", "Memory energy"): 1 GHz bus,
     * 128-bit, BL2 DDR, 4 bank groups x 4 banks, 2 KiB rows, 8 channels,
     * 256 GB/s peak, CL14 RCD14 RAS33 WR16 RP14 (row hit 15 ns, closed-page
     * miss 43 ns = RP + RCD + CL + tBURST).
     * Values Table I does not list: JESD235 class values as used by
     * Ramulator's HBM model (CMU-SAFARI/ramulator src/HBM.h, speed
     * HBM_1Gbps, tCK = 2 ns), kept in nanoseconds and re-expressed in the
     * 1 ns cycles of Table I -- the same conversion that turns Ramulator's
     * CL7/RCD7/RP7/WR8 into Table I's CL14/RCD14/RP14/WR16.
     * ------------------------------------------------------------------ */
    {
        .name = "hbm2",
        .desc = "HBM2 channel, 1 GHz, 128-bit BL2 DDR (HMS Table I)",
        .tech = DRAM_TECH_DRAM,
        .dual_cmd_bus = 1,      /* JESD235: separate row and column command interfaces */
        .clk_mhz = 1000.0,      /* HMS Table I: bus frequency 1 GHz */
        .data_rate = 2,         /* HMS Table I: DDR */
        .bus_bits = 128,        /* HMS Table I: bus width 128 bit */
        .burst_len = 2,         /* HMS Table I: BL 2 */
        .atom_bytes = 32,       /* 128/8 * 2 */
        .bankgroups = 4,        /* HMS Table I */
        .banks_per_group = 4,   /* HMS Table I */
        .row_bytes = 2048,      /* HMS Table I: row buffer 2 KiB */
        .t = {
            .CL = 14,           /* HMS Table I */
            .CWL = 8,           /* Ramulator HBM nCWL 4 x 2 ns */
            .RCD = 14,          /* HMS Table I */
            .RP = 14,           /* HMS Table I */
            .RAS = 33,          /* HMS Table I */
            .RC = 47,           /* tRAS + tRP (Ramulator HBM nRC 24 x 2 ns = 48 with its tRAS 34) */
            .CCD_S = 1,         /* = tBURST: BL2 at DDR needs 1 cycle; gives Table I's 32 GB/s per channel */
            .CCD_L = 2,         /* same bank group: one extra cycle (Ramulator HBM nCCDL - nCCDS = 1) */
            .RRD_S = 8,         /* Ramulator HBM nRRDS 4 x 2 ns */
            .RRD_L = 10,        /* Ramulator HBM nRRDL 5 x 2 ns */
            .FAW = 40,          /* Ramulator HBM nFAW 20 x 2 ns */
            .WTR_S = 4,         /* Ramulator HBM nWTRS 2 x 2 ns */
            .WTR_L = 8,         /* Ramulator HBM nWTRL 4 x 2 ns */
            .RTP = 14,          /* Ramulator HBM nRTP 7 x 2 ns */
            .WR = 16,           /* HMS Table I */
            .RTW = 9,           /* CL + tBURST + 2 - CWL (Ramulator HBM RD->WR rank constraint) */
            .RFC = 260,         /* Ramulator HBM RFC_TABLE 4 Gb/channel: 130 x 2 ns */
            .REFI = 3900,       /* Ramulator HBM nREFI 1950 x 2 ns = 3.9 us */
            .BURST = 1,         /* BL2 / DDR */
        },
        .e = {
            /* HMS Table I "Memory energy (pJ/bit)" DRAM: ACT 1.17, PRE 0.39,
             * RD 0.93, WR 1.02, charged per bit of the 32 B access that causes
             * the command (a closed-page access then costs 2.49 pJ/bit and a
             * row hit 0.93 pJ/bit, matching the paper's "~1 pJ/bit", Sec. II). */
            .act_pj = 1.17 * BITS32B,
            .pre_pj = 0.39 * BITS32B,
            .pre_dirty_pj = 0.39 * BITS32B, /* DRAM: restore is part of the ACT/PRE energy */
            .rd_pj = 0.93 * BITS32B,
            .wr_pj = 1.02 * BITS32B,
            /* Estimate (HMS gives none): an all-bank REF of a 4 Gb channel
             * (16 K rows/bank, 8 K REF per 32 ms) refreshes 2 rows in each of
             * 16 banks = 32 ACT+PRE pairs. */
            .ref_pj = 32.0 * (1.17 + 0.39) * BITS32B,
            /* Estimate (HMS gives none): standby + peripheral power per HBM2
             * channel, ~0.3 W per 8-channel stack idle. */
            .bg_mw = 40.0,
        },
    },
    /* ------------------------------------------------------------------
     * GDDR5 channel of the HAC baseline (GTX480).
     * Source: shared/papers/hac-l2-for-hybrid-memory.txt Table I (12
     * channels, 4 B/cycle per channel, FR-FCFS, DRAM tRCD 12, tRP 12,
     * tRRD 6) completed with the GPGPU-Sim GTX480 configuration the paper is
     * based on: command clock 924 MHz, data_command_freq_ratio 4, BL 8,
     * "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:
     * WR=12:nbkgrp=4:CCDL=3:RTPL=2"; derived spacings as in GPGPU-Sim
     * (tRTW = CL + BL/4 + 2 - WL, tWTR = WL + BL/4 + CDLR, tWTP = WL + BL/4 + tWR).
     * One 32-bit device per channel: 32 B per column access,
     * 924 MHz x 4 x 4 B = 14.8 GB/s per channel, x 12 = 177 GB/s.
     * ------------------------------------------------------------------ */
    {
        .name = "gddr5_gtx480",
        .desc = "GDDR5 channel, 924 MHz command clock, 32-bit, BL8 (HAC Table I / GPGPU-Sim GTX480)",
        .tech = DRAM_TECH_DRAM,
        .dual_cmd_bus = 0,      /* one command bus (GPGPU-Sim issues one command per cycle) */
        .clk_mhz = 924.0,       /* GPGPU-Sim GTX480 DRAM clock domain */
        .data_rate = 4,         /* GPGPU-Sim -dram_data_command_freq_ratio 4 */
        .bus_bits = 32,         /* HAC Table I: 4 byte/cycle per channel */
        .burst_len = 8,         /* GPGPU-Sim -gpgpu_dram_burst_length 8 */
        .atom_bytes = 32,       /* 32/8 * 8 */
        .bankgroups = 4,        /* GPGPU-Sim nbkgrp=4 */
        .banks_per_group = 4,   /* GPGPU-Sim nbk=16 */
        .row_bytes = 2048,      /* Strata choice (2 KiB page) */
        .t = {
            .CL = 12,           /* GPGPU-Sim CL=12 */
            .CWL = 4,           /* GPGPU-Sim WL=4 */
            .RCD = 12,          /* HAC Table I / GPGPU-Sim RCD=12 */
            .RP = 12,           /* HAC Table I / GPGPU-Sim RP=12 */
            .RAS = 28,          /* GPGPU-Sim RAS=28 */
            .RC = 40,           /* GPGPU-Sim RC=40 */
            .CCD_S = 2,         /* GPGPU-Sim CCD=2 */
            .CCD_L = 3,         /* GPGPU-Sim CCDL=3 */
            .RRD_S = 6,         /* HAC Table I tRRDact 6 / GPGPU-Sim RRD=6 */
            .RRD_L = 6,         /* GPGPU-Sim has one RRD */
            .FAW = 0,           /* not modelled by GPGPU-Sim (the paper's simulator) */
            .WTR_S = 5,         /* GPGPU-Sim CDLR=5 */
            .WTR_L = 5,         /* GPGPU-Sim CDLR=5 (no bank-group distinction) */
            .RTP = 2,           /* GPGPU-Sim RTPL=2 */
            .WR = 12,           /* GPGPU-Sim WR=12 */
            .RTW = 12,          /* GPGPU-Sim tRTW = CL + BL/4 + 2 - WL = 12 + 2 + 2 - 4 */
            .RFC = 102,         /* estimate: JESD212 class 1-2 Gb GDDR5 tRFC ~110 ns at 924 MHz (GPGPU-Sim does not refresh) */
            .REFI = 3604,       /* estimate: tREFI 3.9 us at 924 MHz */
            .BURST = 2,         /* BL8 / 4 */
        },
        .e = {
            /* Documented estimate (neither HAC nor GPGPU-Sim's timing model
             * gives energy): HBM2's HMS Table I core energies scaled by
             * (1.5 V / 1.2 V)^2 = 1.5625 for GDDR5's VDD, plus ~4.5 pJ/bit
             * of POD I/O (terminated off-package link) on reads and writes,
             * i.e. ~6 pJ/bit per access, in the range of published GDDR5
             * figures (O'Connor et al., MICRO 2017: ~14 pJ/bit incl. ACT). */
            .act_pj = 1.17 * 1.5625 * BITS32B,
            .pre_pj = 0.39 * 1.5625 * BITS32B,
            .pre_dirty_pj = 0.39 * 1.5625 * BITS32B,
            .rd_pj = (0.93 * 1.5625 + 4.5) * BITS32B,
            .wr_pj = (1.02 * 1.5625 + 4.5) * BITS32B,
            .ref_pj = 32.0 * (1.17 + 0.39) * 1.5625 * BITS32B, /* as hbm2: 32 ACT+PRE pairs per REF */
            .bg_mw = 200.0,     /* estimate: IDD2N-class ~130 mA x 1.5 V per 32-bit device */
        },
    },
};

#define N_PRESETS (sizeof k_presets / sizeof k_presets[0])

size_t dram_count(void) { return N_PRESETS; }

const dram_preset *dram_at(size_t i) { return i < N_PRESETS ? &k_presets[i] : NULL; }

const dram_preset *dram_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_PRESETS; ++i)
    if (strcmp(k_presets[i].name, name) == 0) return &k_presets[i];
  return NULL;
}

const char *dram_names(void) {
  /* Built once from the table; the table is constant, so every call returns
   * the same text. */
  static char buf[1024];
  if (!buf[0]) {
    size_t n = 0;
    for (size_t i = 0; i < N_PRESETS && n + 1 < sizeof buf; ++i) {
      int w = snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", k_presets[i].name);
      if (w < 0) break;
      n += (size_t)w;
    }
  }
  return buf;
}

int dram_validate(const dram_preset *p, char *err, size_t errlen) {
#define FAIL(...)                                   \
  do {                                              \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__); \
    return -1;                                      \
  } while (0)
  if (!p || !p->name) FAIL("preset without a name");
  if (p->clk_mhz <= 0) FAIL("%s: clk_mhz must be > 0", p->name);
  if (!p->data_rate || !p->bus_bits || !p->burst_len) FAIL("%s: data_rate, bus_bits, burst_len must be > 0", p->name);
  if (p->atom_bytes != p->bus_bits / 8 * p->burst_len)
    FAIL("%s: atom_bytes %u != bus_bits/8 * burst_len = %u", p->name, p->atom_bytes, p->bus_bits / 8 * p->burst_len);
  if (p->burst_len % p->data_rate || p->t.BURST != p->burst_len / p->data_rate)
    FAIL("%s: tBURST %u != burst_len / data_rate", p->name, p->t.BURST);
  if (!p->bankgroups || !p->banks_per_group) FAIL("%s: bank geometry must be > 0", p->name);
  if (!p->row_bytes || p->row_bytes % p->atom_bytes) FAIL("%s: row_bytes must be a multiple of atom_bytes", p->name);
  if (p->t.CCD_S < 1 || p->t.CCD_L < p->t.CCD_S) FAIL("%s: need 1 <= tCCD_S <= tCCD_L", p->name);
  if (p->t.CCD_S < p->t.BURST) FAIL("%s: tCCD_S < tBURST overlaps data on the bus", p->name);
  if (p->t.RRD_L < p->t.RRD_S) FAIL("%s: need tRRD_S <= tRRD_L", p->name);
  if (p->t.WTR_L < p->t.WTR_S) FAIL("%s: need tWTR_S <= tWTR_L", p->name);
  if (p->t.RC && p->t.RC < p->t.RAS + p->t.RP) FAIL("%s: tRC %u < tRAS + tRP", p->name, p->t.RC);
  if (!p->t.RCD || !p->t.CL) FAIL("%s: tRCD and CL must be > 0", p->name);
  if ((p->t.REFI == 0) != (p->t.RFC == 0)) FAIL("%s: tREFI and tRFC must both be set or both be 0", p->name);
  if (p->t.REFI && p->t.REFI <= p->t.RFC) FAIL("%s: tREFI must exceed tRFC", p->name);
  if (p->e.act_pj < 0 || p->e.pre_pj < 0 || p->e.rd_pj < 0 || p->e.wr_pj < 0 || p->e.ref_pj < 0 || p->e.bg_mw < 0 ||
      p->e.pre_dirty_pj < 0)
    FAIL("%s: negative energy", p->name);
  return 0;
#undef FAIL
}

double dram_peak_bytes_per_s(const dram_preset *p) {
  return p->clk_mhz * 1e6 * (double)p->data_rate * (double)p->bus_bits / 8.0;
}
