/* dram: the device preset table. Data, not code: one row per standard/speed,
 * every number with its source. See dram.h for units and conventions and
 * docs/memctrl.md for the table with sources. */
#include "dram.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/addrmap.h"

/* Bits moved by one 32 B / 64 B column access; HMS Table I gives energy in
 * pJ/bit, charged per bit of the column access that causes the command. */
#define BITS32B 256.0
#define BITS64B 512.0

/* Background power per power state (dram.h, docs/memctrl.md "Power and
 * energy"). Every row gives its precharge-standby power bg_mw (IDD2N x VDD of
 * the devices of one rank, sources at the rows); the other two states follow
 * from it with datasheet-class current ratios (estimate: Micron DDR3/DDR4 x8
 * IDD tables give IDD3N ~ 1.2 x IDD2N and a fast-exit precharge power-down
 * IDD2P between ~0.35 x (slow exit, IDD2P0) and ~0.7 x IDD2N (IDD2P1); 0.5 is
 * the middle, with the fast-exit tXP). NVM rows use the same ratios for their
 * peripheral circuits; a power-gated NVM rank draws nothing (hybrid graphics
 * memory Sec. 3.1/4.2: idle NVM rows are powered off, leakage only while on).
 *   active standby (some bank open)          IDD3N x VDD = BG_ACT(bg_mw)
 *   precharge power-down (CKE low)           IDD2P x VDD = BG_PD(bg_mw) */
#define BG_ACT(mw) ((mw) * 1.2)
#define BG_PD(mw) ((mw) * 0.5)
/* Terminated off-chip I/O energy per data bit inside the rd_pj / wr_pj of the
 * GDDR5 and DDR3 rows (estimate, see gddr5_gtx480), kept apart in io_pj_bit
 * (mem.io.* stats, mem.io = pod). */
#define IO_PJ_BIT 4.5
/* The capacity the GDDR5-family background powers describe: one 1 Gb x32
 * GDDR5 device per 32-bit channel, 128 MiB (the GTX480's 1.5 GB is twelve
 * such devices, one per 32-bit channel), for mem.leakage = capacity. */
#define GDDR5_DEV_MIB 128.0
/* Rank switch on the shared data bus (dram.h tRTRS), in command-clock cycles.
 *  RTRS_DDR: Ramulator's DDR3 and DDR4 models use nRTRS = 2 tCK at every
 *    speed bin (bus hand-over and ODT settling between two DIMM ranks); the
 *    GDDR5 rows take the same 2 tCK (estimate: GPGPU-Sim and Ramulator model
 *    GDDR5 channels with one rank, so they give none).
 *  RTRS_HBM: 1 cycle (estimate). The HMS stack puts a DRAM rank and an SCM
 *    rank on one channel's TSVs behind the same base-die I/O buffers (Sec.
 *    III-A) -- no ODT to switch; JESD235 legacy channels have one rank, and
 *    Ramulator's HBM model (the one HMS used) applies only nBL between column
 *    commands of different ranks, which lets a write burst overlap the read
 *    burst before it. One bus cycle for the driver hand-over keeps bursts
 *    apart without ODT settling. A single-rank channel never pays it. */
#define RTRS_DDR 2
#define RTRS_HBM 1
/* NVM_GATE (estimate: the hybrid graphics memory paper gates idle NVM rows on
 * a per-row timer, Sec. 4.2, but gives neither the time-out nor the wake-up
 * latency): a rank is gated after 1 us without a command and needs 30 ns
 * (peripheral supply ramp, no array restore: the cells are non-volatile)
 * before its first command, both rounded up to command-clock cycles. */

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
        .tech_id = DRAM_TID_HBM2,
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
            .RFC_PB = 160,      /* JESD235 per-bank refresh (REFSB): Ramulator 2.0 HBM2 nRFCSB 160 ns */
            .BURST = 1,         /* BL2 / DDR */
            .XP = 10, .CKE = 10, /* Ramulator HBM nXP 5, nPD 5 x 2 ns */
            .RTRS = RTRS_HBM,   /* rank switch on the channel's TSVs (HMS DRAM + SCM ranks), see RTRS_HBM */
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
            .act_stby_mw = BG_ACT(40.0), .pd_mw = BG_PD(40.0), /* power states: see BG_ACT / BG_PD */
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
        .tech_id = DRAM_TID_GDDR5,
        .dual_cmd_bus = 0,      /* one command bus (GPGPU-Sim issues one command per cycle) */
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
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
            .XP = 10, .CKE = 10, /* Ramulator GDDR5 nXPN 10, nPD 10 tCK */
            .RTRS = RTRS_DDR,   /* rank switch, see RTRS_DDR */
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
            .rd_pj = (0.93 * 1.5625 + IO_PJ_BIT) * BITS32B,
            .wr_pj = (1.02 * 1.5625 + IO_PJ_BIT) * BITS32B,
            .ref_pj = 32.0 * (1.17 + 0.39) * 1.5625 * BITS32B, /* as hbm2: 32 ACT+PRE pairs per REF */
            .bg_mw = 200.0, /* estimate: IDD2N-class ~130 mA x 1.5 V per 32-bit device */
            .act_stby_mw = BG_ACT(200.0), .pd_mw = BG_PD(200.0), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    /* ==================================================================
     * Rows added for issue 3 ("Memory technologies"). Conventions shared by
     * the rows below:
     *  - A preset moves one 32 B L2 sector per column access (ddr3_1600:
     *    32 bits wide, four x8 devices, BL8, Strata choice), except the
     *    hybrid DRAM+PCM paper's DDR3-800 channel (ddr3_800, pcm_flrb): 64
     *    bits, eight x8 devices, one 64 B burst = two sectors (issue 26, see
     *    there). The controller issues one column access per atom holding an
     *    asked sector (models/memctrl/mem_ctrl.h).
     *  - DDR3 and GDDR5 energies are estimates built like gddr5_gtx480's:
     *    HMS Table I DRAM core energies scaled by (1.5 V / 1.2 V)^2 for the
     *    1.5 V VDD, plus ~4.5 pJ/bit of terminated off-chip I/O on reads and
     *    writes (E_* macros below), per bit of the column access: a 64 B
     *    access (eight devices) costs twice a 32 B one (four devices), its
     *    ACT opens twice the page bits, its REF refreshes twice the rows.
     *  - NVM rows: tech NVM, no refresh, a clean PRE only precharges the
     *    bit lines / row buffer (no array write; hybrid-dram-pcm-flrb Sec.
     *    II-B: "only the dirty lines in a row buffer need to be written back
     *    to the PCM cell array"), a dirty PRE writes the array: tRP_DIRTY and
     *    e.pre_dirty_pj. Reads are non-destructive, so tRAS = tRCD (nothing to
     *    restore after sensing; Strata estimate) unless the paper gives tRAS.
     *  - PCM array energies: HMS Table I SCM ACT 2.47 pJ/bit (array read) and
     *    PRE (WR) 16.82 pJ/bit (array write) -- PCM-class values; the PCM papers
     *    (FLRB, HAC) give none. Charged per bit of the column access (32 B or
     *    64 B) that causes the command, as the hbm2 row does; a dirty PRE is
     *    charged once per precharge, not per written sector (documented
     *    limitation).
     * ================================================================== */
#define VSCALE_15 1.5625                                  /* (1.5 V / 1.2 V)^2 */
/* Per column access of `bits` bits (BITS32B, BITS64B). */
#define E_CORE_B(pjbit, bits) ((pjbit) * VSCALE_15 * (bits))      /* HMS DRAM core energy at 1.5 V */
#define E_IO_B(pjbit, bits) (((pjbit) * VSCALE_15 + IO_PJ_BIT) * (bits)) /* + off-chip I/O */
#define E_REF_B(bits) (32.0 * (1.17 + 0.39) * VSCALE_15 * (bits))  /* 32 ACT+PRE pairs per REF (as hbm2) */
#define E_CORE(pjbit) E_CORE_B(pjbit, BITS32B)
#define E_IO(pjbit) E_IO_B(pjbit, BITS32B)
#define E_REF32 E_REF_B(BITS32B)
/* DDR3 x8 device precharge standby, estimate: IDD2N-class ~35 mA x 1.5 V. */
#define DDR3_X8_BG_MW 52.5
/* The hybrid DRAM+PCM paper's channel (Table II "Global Memory DDR3-800Mhz,
 * x8, 1.5V", "Memory Controller 2-channel"; simulated by GPGPU-Sim 3.1 +
 * DRAMSim2, whose system.ini JEDEC_DATA_BUS_BITS is "Always 64 for DDRx"):
 * 64 bits = eight x8 devices, BL8 -> 64 B per column access, tBURST 4; a
 * rank's row is the eight devices' 1 KiB pages (JEDEC x8 page). The DRAM row
 * (ddr3_800) and the PCM row on the same channels (pcm_flrb) share these. */
#define T2_DEVICES 8u                         /* x8 devices per channel */
#define T2_BUS_BITS (T2_DEVICES * 8u)         /* 64: DRAMSim2 JEDEC_DATA_BUS_BITS */
#define T2_BURST_LEN 8u                       /* DDR3 BL8 */
#define T2_ATOM_BYTES (T2_BUS_BITS / 8u * T2_BURST_LEN) /* 64 B */
#define T2_ROW_BYTES (T2_DEVICES * 1024u)     /* 8 KiB: JEDEC x8 page 1 KiB per device */
#define T2_BITS BITS64B                       /* bits of one column access (T2_ATOM_BYTES x 8) */
#define T2_BG_MW (T2_DEVICES * DDR3_X8_BG_MW) /* 420 mW: eight devices' precharge standby */
    /* ------------------------------------------------------------------
     * DDR3-800 channel of the hybrid DRAM+PCM GPU (FLRB paper), 64 bits
     * wide (T2_* above: eight x8 devices, the width of a DDR3 channel in the
     * DRAMSim2 the paper ran; a 32-bit form halved every peak bandwidth,
     * issue 26).
     * Source: shared/papers/hybrid-dram-pcm-flrb-placement.txt Table II
     * ("Global Memory DDR3-800Mhz, x8, 1.5V"; "Timing (cycles) DRAM - tRCD:
     * 11, tRP: 11, tRRDact: 5, tRRDpre: 5, tRFC/tREFI: 64/7.8us"). The cycles
     * are read as 400 MHz command-clock cycles (DDR3-800: 800 MT/s, tCK
     * 2.5 ns): tRFC 64 = 160 ns is then the JEDEC 2 Gb value. tRCD/tRP 11
     * (27.5 ns) are slower than the JEDEC DDR3-800 bins (5-6 cycles); we keep
     * the paper's values, they are what it simulated. The values Table II
     * does not list are JEDEC JESD79-3 DDR3-800 (tCK 2.5 ns, x8 1 KiB page).
     * tRRDact -> tRRD (ACT->ACT), tRRDpre -> tRRD_PRE (PRE->PRE; every DRAM
     * PRE restores the row, see dram.h).
     * ------------------------------------------------------------------ */
    {
        .name = "ddr3_800",
        .desc = "DDR3-800 channel, 400 MHz, 64-bit (8 x8) BL8, 8 KiB rows (hybrid DRAM+PCM Table II)",
        .tech = DRAM_TECH_DRAM,
        .tech_id = DRAM_TID_DDR3,
        .dual_cmd_bus = 0,      /* DDR3: one command bus */
        .clk_mhz = 400.0,       /* Table II: DDR3-800 -> 400 MHz clock, DDR */
        .data_rate = 2,         /* DDR */
        .bus_bits = T2_BUS_BITS,     /* 64: eight x8 devices (Table II x8; DRAMSim2 JEDEC_DATA_BUS_BITS 64) */
        .burst_len = T2_BURST_LEN,   /* DDR3 BL8 */
        .atom_bytes = T2_ATOM_BYTES, /* 64/8 * 8: two 32 B sectors per burst */
        .bankgroups = 1,        /* DDR3 has no bank groups */
        .banks_per_group = 8,   /* DDR3: 8 banks */
        .row_bytes = T2_ROW_BYTES,   /* JEDEC x8 page 1 KiB x 8 devices */
        .t = {
            .CL = 6, .CWL = 5,  /* JEDEC DDR3-800E (6-6-6): CL 6; CWL 5 at tCK 2.5 ns */
            .RCD = 11,          /* Table II tRCD */
            .RP = 11,           /* Table II tRP */
            .RAS = 15,          /* JEDEC tRAS 37.5 ns */
            .RC = 26,           /* tRAS + tRP (JEDEC 52.5 ns = 21 < tRAS + Table II tRP) */
            .CCD_S = 4, .CCD_L = 4, /* JEDEC tCCD 4 nCK */
            .RRD_S = 5, .RRD_L = 5, /* Table II tRRDact 5 */
            .FAW = 16,          /* JEDEC DDR3-800 x8 (1 KiB page per device) tFAW 40 ns */
            .WTR_S = 4, .WTR_L = 4, /* JEDEC max(4 nCK, 7.5 ns) */
            .RTP = 4,           /* JEDEC max(4 nCK, 7.5 ns) */
            .WR = 6,            /* JEDEC tWR 15 ns */
            .RTW = 7,           /* CL + tBURST + 2 - CWL */
            .RFC = 64,          /* Table II tRFC 64 */
            .REFI = 3120,       /* Table II tREFI 7.8 us x 400 MHz */
            .BURST = T2_BURST_LEN / 2, /* BL8 / DDR: 4 cycles per 64 B */
            .XP = 3, .CKE = 3, /* JESD79-3 DDR3-800: tXP, tCKE max(3 nCK, 7.5 ns) */
            .RP_DIRTY = 0,      /* DRAM: a written row precharges like any other */
            .RRD_PRE = 5,       /* Table II tRRDpre 5 */
            .RTRS = RTRS_DDR,   /* Ramulator DDR3 nRTRS 2 */
        },
        .e = {
            /* estimate, see above: per 64 B column access (eight devices) */
            .act_pj = E_CORE_B(1.17, T2_BITS), .pre_pj = E_CORE_B(0.39, T2_BITS), .pre_dirty_pj = E_CORE_B(0.39, T2_BITS),
            .rd_pj = E_IO_B(0.93, T2_BITS), .wr_pj = E_IO_B(1.02, T2_BITS),
            .ref_pj = E_REF_B(T2_BITS),
            .bg_mw = T2_BG_MW, /* estimate: 8 devices x DDR3_X8_BG_MW */
            .act_stby_mw = BG_ACT(T2_BG_MW), .pd_mw = BG_PD(T2_BG_MW), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; SSTL (DDR3), not POD */
        },
    },
    /* ------------------------------------------------------------------
     * DDR3-1600 timing of the TOM memory-stack vaults.
     * Source: shared/papers/tom-ndp-offload-and-mapping.txt system table
     * ("DRAM Timing DDR3-1600 [35]", "16 banks/vault"). The table gives no
     * numbers: JEDEC JESD79-3 DDR3-1600K (11-11-11, tCK 1.25 ns, x8 1 KiB
     * page, 2 Gb) values, the standard speed bin of the DDR3 datasheet it
     * cites. Vault bandwidth (64 TSVs x 1.25 Gb/s) is a platform matter
     * (channels per vault); this row is one 32-bit DDR3-1600 channel.
     * ------------------------------------------------------------------ */
    {
        .name = "ddr3_1600",
        .desc = "DDR3-1600 channel, 800 MHz, 32-bit BL8, 16 banks (TOM vault timing)",
        .tech = DRAM_TECH_DRAM,
        .tech_id = DRAM_TID_DDR3,
        .dual_cmd_bus = 0,      /* DDR3: one command bus */
        .clk_mhz = 800.0,       /* DDR3-1600: 800 MHz clock */
        .data_rate = 2,         /* DDR */
        .bus_bits = 32,         /* Strata choice: four x8 devices, one 32 B sector per BL8 */
        .burst_len = 8,         /* DDR3 BL8 */
        .atom_bytes = 32,       /* 32/8 * 8 */
        .bankgroups = 1,        /* DDR3 has no bank groups */
        .banks_per_group = 16,  /* TOM: 16 banks/vault */
        .row_bytes = 4096,      /* JEDEC x8 page 1 KiB x 4 devices */
        .t = {
            .CL = 11, .CWL = 8, /* JEDEC DDR3-1600K: CL 11; CWL 8 at tCK 1.25 ns */
            .RCD = 11, .RP = 11, /* JEDEC DDR3-1600K 13.75 ns */
            .RAS = 28,          /* JEDEC tRAS 35 ns */
            .RC = 39,           /* JEDEC tRC 48.75 ns = tRAS + tRP */
            .CCD_S = 4, .CCD_L = 4, /* JEDEC tCCD 4 nCK */
            .RRD_S = 5, .RRD_L = 5, /* JEDEC x8: max(4 nCK, 6 ns) */
            .FAW = 24,          /* JEDEC x8 (1 KiB page) tFAW 30 ns */
            .WTR_S = 6, .WTR_L = 6, /* JEDEC max(4 nCK, 7.5 ns) */
            .RTP = 6,           /* JEDEC max(4 nCK, 7.5 ns) */
            .WR = 12,           /* JEDEC tWR 15 ns */
            .RTW = 9,           /* CL + tBURST + 2 - CWL */
            .RFC = 128,         /* JEDEC 2 Gb tRFC 160 ns */
            .REFI = 6240,       /* JEDEC tREFI 7.8 us */
            .BURST = 4,         /* BL8 / DDR */
            .XP = 5, .CKE = 4, /* JESD79-3 DDR3-1600: tXP max(3 nCK, 6 ns), tCKE max(3 nCK, 5 ns) */
            .RP_DIRTY = 0, .RRD_PRE = 0, /* JEDEC DDR3 has neither */
            .RTRS = RTRS_DDR,   /* Ramulator DDR3 nRTRS 2 */
        },
        .e = {
            .act_pj = E_CORE(1.17), .pre_pj = E_CORE(0.39), .pre_dirty_pj = E_CORE(0.39), /* estimate, see above */
            .rd_pj = E_IO(0.93), .wr_pj = E_IO(1.02),
            .ref_pj = E_REF32,
            .bg_mw = 4 * DDR3_X8_BG_MW, /* estimate: 4 devices x DDR3_X8_BG_MW = 210 mW */
            .act_stby_mw = BG_ACT(4 * DDR3_X8_BG_MW), .pd_mw = BG_PD(4 * DDR3_X8_BG_MW), /* see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; SSTL (DDR3), not POD */
        },
    },
    /* ------------------------------------------------------------------
     * GDDR5 of the hybrid graphics memory paper: baseline at 1 GHz and the
     * hybrid's DRAM part at 1.25 GHz.
     * Source: shared/papers/hybrid-graphics-memory-dram-sttram-rram.txt
     * Table 1 ("Baseline Graphics Memory GDDR5, 1GHz"; "Hybrid ... 128MB
     * GDDR5, 1.25GHz"; "DRAM Request Queue 32", FR-FCFS) and Sec. 5.1 ("The
     * DRAM configuration and timing are based on Hynix GDDR5 datasheet").
     * The paper lists no timings: the Hynix H5GQ1H24AFR timings GPGPU-Sim's
     * GTX480 file uses (the gddr5_gtx480 row, cycles at 924 MHz) are taken
     * as nanoseconds (cycles / 0.924 GHz) and re-expressed at 1 GHz and
     * 1.25 GHz, rounded up (a datasheet gives minimum times). tCCD_S/L stay
     * 2/3 (given in tCK), interface as gddr5_gtx480 (32-bit, BL8, WCK 4x).
     * ------------------------------------------------------------------ */
    {
        .name = "gddr5_1000",
        .desc = "GDDR5 channel, 1 GHz command clock, 32-bit, BL8 (hybrid graphics memory Table 1 baseline)",
        .tech = DRAM_TECH_DRAM,
        .tech_id = DRAM_TID_GDDR5,
        .dual_cmd_bus = 0,      /* as gddr5_gtx480 */
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
        .clk_mhz = 1000.0,      /* Table 1: GDDR5, 1 GHz */
        .data_rate = 4,         /* GDDR5 WCK = 2 x CK, DDR */
        .bus_bits = 32,         /* one x32 device per channel (as gddr5_gtx480) */
        .burst_len = 8,         /* GDDR5 BL8 */
        .atom_bytes = 32,       /* 32/8 * 8 */
        .bankgroups = 4, .banks_per_group = 4, /* Hynix GDDR5: 16 banks, 4 bank groups */
        .row_bytes = 2048,      /* Strata choice (2 KiB page), as gddr5_gtx480 */
        .t = {                  /* gddr5_gtx480 cycles / 0.924 GHz x 1 GHz, rounded up */
            .CL = 13, .CWL = 5, /* 12, 4 */
            .RCD = 13, .RP = 13, /* 12, 12 */
            .RAS = 31, .RC = 44, /* 28, 40 */
            .CCD_S = 2, .CCD_L = 3, /* tCK values, unchanged */
            .RRD_S = 7, .RRD_L = 7, /* 6 */
            .FAW = 0,           /* not modelled, as gddr5_gtx480 */
            .WTR_S = 6, .WTR_L = 6, /* CDLR 5 */
            .RTP = 3,           /* 2 */
            .WR = 13,           /* 12 */
            .RTW = 12,          /* CL + tBURST + 2 - CWL */
            .RFC = 110,         /* estimate as gddr5_gtx480: ~110 ns */
            .REFI = 3900,       /* estimate: 3.9 us */
            .BURST = 2,         /* BL8 / 4 */
            .XP = 10, .CKE = 10, /* as gddr5_gtx480 (tCK values) */
            .RP_DIRTY = 0, .RRD_PRE = 0,
            .RTRS = RTRS_DDR,   /* as gddr5_gtx480 */
        },
        .e = {
            .act_pj = E_CORE(1.17), .pre_pj = E_CORE(0.39), .pre_dirty_pj = E_CORE(0.39), /* as gddr5_gtx480 */
            .rd_pj = E_IO(0.93), .wr_pj = E_IO(1.02),
            .ref_pj = E_REF32,
            .bg_mw = 200.0, /* estimate as gddr5_gtx480 */
            .act_stby_mw = BG_ACT(200.0), .pd_mw = BG_PD(200.0), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    {
        .name = "gddr5_1250",
        .desc = "GDDR5 channel, 1.25 GHz command clock, 32-bit, BL8 (hybrid graphics memory Table 1 DRAM part)",
        .tech = DRAM_TECH_DRAM,
        .tech_id = DRAM_TID_GDDR5,
        .dual_cmd_bus = 0,
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
        .clk_mhz = 1250.0,      /* Table 1: hybrid's GDDR5 at 1.25 GHz */
        .data_rate = 4,
        .bus_bits = 32,
        .burst_len = 8,
        .atom_bytes = 32,
        .bankgroups = 4, .banks_per_group = 4,
        .row_bytes = 2048,
        .t = {                  /* gddr5_gtx480 cycles / 0.924 GHz x 1.25 GHz, rounded up */
            .CL = 17, .CWL = 6,
            .RCD = 17, .RP = 17,
            .RAS = 38, .RC = 55,
            .CCD_S = 2, .CCD_L = 3,
            .RRD_S = 9, .RRD_L = 9,
            .FAW = 0,
            .WTR_S = 7, .WTR_L = 7,
            .RTP = 3,
            .WR = 17,
            .RTW = 15,          /* CL + tBURST + 2 - CWL */
            .RFC = 138,         /* 110 ns */
            .REFI = 4875,       /* 3.9 us */
            .BURST = 2,
            .XP = 10, .CKE = 10, /* as gddr5_gtx480 (tCK values) */
            .RP_DIRTY = 0, .RRD_PRE = 0,
            .RTRS = RTRS_DDR,   /* as gddr5_gtx480 */
        },
        .e = {
            .act_pj = E_CORE(1.17), .pre_pj = E_CORE(0.39), .pre_dirty_pj = E_CORE(0.39),
            .rd_pj = E_IO(0.93), .wr_pj = E_IO(1.02),
            .ref_pj = E_REF32,
            .bg_mw = 200.0,
            .act_stby_mw = BG_ACT(200.0), .pd_mw = BG_PD(200.0), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    /* ------------------------------------------------------------------
     * PCM of the hybrid DRAM+PCM GPU (FLRB paper), on the ddr3_800 interface.
     * Source: hybrid-dram-pcm-flrb-placement.txt Table II ("PCM - tRCD: 34,
     * tRP: 138, tRRDact: 3, tRRDpre: 18, Refresh time: N/A") and Sec. II-B /
     * VI (only dirty row buffers are written back). Mapping: Table II's tRP
     * is the array write of a dirty row buffer -> tRP_DIRTY 138; a clean PRE
     * costs the DRAM tRP of the same table (Strata estimate: it only
     * precharges the row buffer); tRRDact -> tRRD, tRRDpre -> tRRD_PRE between
     * dirty PREs (array writes). Interface values as ddr3_800 (the paper's
     * PCM sits on the same DDR3 channels): the T2_* 64-bit channel, 8 KiB
     * rows, energies per 64 B column access.
     * ------------------------------------------------------------------ */
    {
        .name = "pcm_flrb",
        .desc = "PCM on a DDR3-800 channel, 400 MHz, 64-bit BL8, 8 KiB rows (hybrid DRAM+PCM Table II)",
        .tech = DRAM_TECH_NVM,
        .tech_id = DRAM_TID_PCM,
        .dual_cmd_bus = 0,
        .clk_mhz = 400.0,       /* as ddr3_800 */
        .data_rate = 2,
        .bus_bits = T2_BUS_BITS,     /* as ddr3_800 */
        .burst_len = T2_BURST_LEN,
        .atom_bytes = T2_ATOM_BYTES,
        .bankgroups = 1, .banks_per_group = 8, /* as ddr3_800 */
        .row_bytes = T2_ROW_BYTES,   /* as ddr3_800 */
        .t = {
            .CL = 6, .CWL = 5,  /* as ddr3_800 */
            .RCD = 34,          /* Table II PCM tRCD */
            .RP = 11,           /* clean PRE: Table II DRAM tRP (Strata estimate) */
            .RAS = 34,          /* = tRCD: non-destructive read (Strata estimate) */
            .RC = 45,           /* tRAS + tRP */
            .CCD_S = 4, .CCD_L = 4,
            .RRD_S = 3, .RRD_L = 3, /* Table II PCM tRRDact 3 */
            .FAW = 0,           /* Strata choice: Table II's tRRD values are the power limit */
            .WTR_S = 4, .WTR_L = 4,
            .RTP = 4,
            .WR = 6,            /* write into the row buffer, as ddr3_800; the array write is tRP_DIRTY */
            .RTW = 7,
            .RFC = 0, .REFI = 0, /* Table II: refresh N/A */
            .BURST = T2_BURST_LEN / 2,
            .XP = 3, .CKE = 3, .GATE_IDLE = 400, .WAKE = 12, /* tXP/tCKE as ddr3_800; gating: NVM_GATE estimate, 1 us / 30 ns */
            .RP_DIRTY = 138,    /* Table II PCM tRP: dirty row-buffer write-back */
            .RRD_PRE = 18,      /* Table II PCM tRRDpre */
            .RTRS = RTRS_DDR,   /* interface as ddr3_800 */
        },
        .e = {
            /* per 64 B column access, as ddr3_800 */
            .act_pj = 2.47 * T2_BITS,       /* PCM array read (HMS Table I SCM ACT) */
            .pre_pj = E_CORE_B(0.39, T2_BITS), /* estimate: bit-line precharge as ddr3_800, no array write */
            .pre_dirty_pj = 16.82 * T2_BITS, /* PCM array write (HMS Table I SCM PRE (WR)) */
            .rd_pj = E_IO_B(0.93, T2_BITS), .wr_pj = E_IO_B(1.02, T2_BITS), /* row buffer + I/O as ddr3_800 */
            .ref_pj = 0.0,
            .bg_mw = T2_BG_MW / 2, /* estimate: half of ddr3_800 (no refresh, no cell leakage, Sec. II-B) */
            .act_stby_mw = BG_ACT(T2_BG_MW / 2), .pd_mw = BG_PD(T2_BG_MW / 2), /* see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; SSTL (DDR3), not POD */
        },
    },
    /* ------------------------------------------------------------------
     * PCM of the HAC hybrid memory, on the gddr5_gtx480 interface.
     * Source: hac-l2-for-hybrid-memory.txt Table I ("NVM-tRCD:55, tRP:150,
     * tRRDact: 6, tRRDpre: 22"; 12 channels, 4 B/cycle). Mapping as
     * pcm_flrb: tRP -> tRP_DIRTY (array write), clean PRE = the table's DRAM
     * tRP 12, tRRDact -> tRRD, tRRDpre -> tRRD_PRE. Everything else as
     * gddr5_gtx480 (the same channel).
     * ------------------------------------------------------------------ */
    {
        .name = "pcm_hac",
        .desc = "PCM on a GTX480 GDDR5 channel, 924 MHz, 32-bit BL8 (HAC Table I)",
        .tech = DRAM_TECH_NVM,
        .tech_id = DRAM_TID_PCM,
        .dual_cmd_bus = 0,
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
        .clk_mhz = 924.0,       /* as gddr5_gtx480 */
        .data_rate = 4,
        .bus_bits = 32,         /* HAC Table I: 4 byte/cycle per channel */
        .burst_len = 8,
        .atom_bytes = 32,
        .bankgroups = 4, .banks_per_group = 4,
        .row_bytes = 2048,
        .t = {
            .CL = 12, .CWL = 4, /* as gddr5_gtx480 */
            .RCD = 55,          /* HAC Table I NVM tRCD */
            .RP = 12,           /* clean PRE: HAC Table I DRAM tRP (Strata estimate) */
            .RAS = 55,          /* = tRCD: non-destructive read (Strata estimate) */
            .RC = 67,           /* tRAS + tRP */
            .CCD_S = 2, .CCD_L = 3,
            .RRD_S = 6, .RRD_L = 6, /* HAC Table I NVM tRRDact 6 */
            .FAW = 0,
            .WTR_S = 5, .WTR_L = 5,
            .RTP = 2,
            .WR = 12,           /* row-buffer write as gddr5_gtx480; the array write is tRP_DIRTY */
            .RTW = 12,
            .RFC = 0, .REFI = 0, /* NVM: no refresh */
            .BURST = 2,
            .XP = 10, .CKE = 10, .GATE_IDLE = 924, .WAKE = 28, /* tXP/tCKE as gddr5_gtx480; gating: NVM_GATE estimate, 1 us / 30 ns */
            .RP_DIRTY = 150,    /* HAC Table I NVM tRP: dirty row-buffer write-back */
            .RRD_PRE = 22,      /* HAC Table I NVM tRRDpre */
            .RTRS = RTRS_DDR,   /* interface as gddr5_gtx480 */
        },
        .e = {
            .act_pj = 2.47 * BITS32B,
            .pre_pj = E_CORE(0.39),
            .pre_dirty_pj = 16.82 * BITS32B,
            .rd_pj = E_IO(0.93), .wr_pj = E_IO(1.02), /* row buffer + I/O as gddr5_gtx480 */
            .ref_pj = 0.0,
            .bg_mw = 100.0, /* estimate: half of gddr5_gtx480 (no refresh, no cell leakage) */
            .act_stby_mw = BG_ACT(100.0), .pd_mw = BG_PD(100.0), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    /* ------------------------------------------------------------------
     * STT-RAM and RRAM of the hybrid graphics memory, on the gddr5_1000
     * interface (Strata choice: the baseline channel of Table 1).
     * Source: hybrid-graphics-memory-dram-sttram-rram.txt Sec. 3.1, which
     * gives only relative numbers (NVSim, 40 % write intensity):
     *   (a) RRAM read latency = DRAM + 2 ns (at 128 MB, the RRAM size per
     *       channel of Table 1); STT-RAM reads slower than RRAM, writes
     *       faster than RRAM;
     *   (b) provided bandwidth: RRAM 50 %, STT-RAM 30 % of DRAM;
     *   (c) dynamic power: RRAM 17 % below DRAM (STT-RAM not quantified);
     *   (d) leakage: STT-RAM 37 %, RRAM 48 % of DRAM.
     * Timing model (Strata): a bank serves one access per array cycle, a read
     * cycle being tRAS + tRP and a write cycle tRAS + tRP_DIRTY; DRAM's cycle
     * is gddr5_1000's tRC = 44 for both. At 40 % writes the provided bandwidth
     * ratio is then 44 / (0.6 (tRAS + tRP) + 0.4 (tRAS + tRP_DIRTY)).
     *   RRAM: tRCD = 13 + 2 = 15 and tRAS = 31 + 2 = 33 (a), tRP 13: read cycle
     *     46; (b) 50 % -> mix 88 -> write cycle (88 - 0.6 x 46) / 0.4 = 151
     *     -> tRP_DIRTY = 151 - 33 = 118.
     *   STT-RAM: (b) 30 % -> mix 44 / 0.3 = 146.7 -> 147. With (a) (read
     *     slower than RRAM's 46, write faster than RRAM's 151) the single
     *     split that needs no further number is read cycle = write cycle =
     *     147: tRAS = tRCD = 147 - 13 = 134, tRP = tRP_DIRTY = 13.
     * Energy: core (array) energies = gddr5_1000's x (c) (RRAM 0.83, STT-RAM
     * 1.0, estimate: not quantified), I/O unchanged (same GDDR5 interface);
     * (c) is a 40 %-write average, so no separate write energy is derivable:
     * pre_dirty_pj = pre_pj. Background = gddr5_1000's x (d).
     * ------------------------------------------------------------------ */
    {
        .name = "sttram",
        .desc = "STT-RAM on a 1 GHz GDDR5 channel, 32-bit BL8 (hybrid graphics memory Sec. 3.1, relative)",
        .tech = DRAM_TECH_NVM,
        .tech_id = DRAM_TID_STTRAM,
        .dual_cmd_bus = 0,
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
        .clk_mhz = 1000.0,      /* as gddr5_1000 */
        .data_rate = 4,
        .bus_bits = 32,
        .burst_len = 8,
        .atom_bytes = 32,
        .bankgroups = 4, .banks_per_group = 4,
        .row_bytes = 2048,
        .t = {
            .CL = 13, .CWL = 5, /* as gddr5_1000 */
            .RCD = 134,         /* Sec. 3.1 (a)+(b): read cycle 147 - tRP 13 */
            .RP = 13,           /* as gddr5_1000 */
            .RAS = 134,         /* = tRCD (non-destructive read) */
            .RC = 147,          /* tRAS + tRP = 44 / 0.3 */
            .CCD_S = 2, .CCD_L = 3,
            .RRD_S = 7, .RRD_L = 7, /* as gddr5_1000 (paper gives none) */
            .FAW = 0,
            .WTR_S = 6, .WTR_L = 6,
            .RTP = 3,
            .WR = 13,           /* row-buffer write as gddr5_1000 */
            .RTW = 12,
            .RFC = 0, .REFI = 0, /* NVM: no refresh */
            .BURST = 2,
            .XP = 10, .CKE = 10, .GATE_IDLE = 1000, .WAKE = 30, /* tXP/tCKE as gddr5_1000; gating: NVM_GATE estimate, 1 us / 30 ns */
            .RP_DIRTY = 13,     /* Sec. 3.1 (a)+(b): write cycle = read cycle 147 */
            .RRD_PRE = 0,       /* paper gives none */
            .RTRS = RTRS_DDR,   /* interface as gddr5_1000 */
        },
        .e = {
            .act_pj = E_CORE(1.17), .pre_pj = E_CORE(0.39), .pre_dirty_pj = E_CORE(0.39), /* x 1.0 (estimate) */
            .rd_pj = E_IO(0.93), .wr_pj = E_IO(1.02),
            .ref_pj = 0.0,
            .bg_mw = 200.0 * 0.37, /* Sec. 3.1 (d): 37 % of DRAM leakage */
            .act_stby_mw = BG_ACT(200.0 * 0.37), .pd_mw = BG_PD(200.0 * 0.37), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    {
        .name = "rram",
        .desc = "RRAM on a 1 GHz GDDR5 channel, 32-bit BL8 (hybrid graphics memory Sec. 3.1, relative)",
        .tech = DRAM_TECH_NVM,
        .tech_id = DRAM_TID_RRAM,
        .dual_cmd_bus = 0,
        .io_pod = 1,            /* GDDR5 pseudo-open-drain data bus (mem.io_model = pod) */
        .clk_mhz = 1000.0,      /* as gddr5_1000 */
        .data_rate = 4,
        .bus_bits = 32,
        .burst_len = 8,
        .atom_bytes = 32,
        .bankgroups = 4, .banks_per_group = 4,
        .row_bytes = 2048,
        .t = {
            .CL = 13, .CWL = 5, /* as gddr5_1000 */
            .RCD = 15,          /* Sec. 3.1 (a): DRAM 13 + 2 ns */
            .RP = 13,           /* as gddr5_1000 */
            .RAS = 33,          /* DRAM 31 + 2 ns: read cycle 46 */
            .RC = 46,           /* tRAS + tRP */
            .CCD_S = 2, .CCD_L = 3,
            .RRD_S = 7, .RRD_L = 7, /* as gddr5_1000 (paper gives none) */
            .FAW = 0,
            .WTR_S = 6, .WTR_L = 6,
            .RTP = 3,
            .WR = 13,           /* row-buffer write as gddr5_1000 */
            .RTW = 12,
            .RFC = 0, .REFI = 0, /* NVM: no refresh */
            .BURST = 2,
            .XP = 10, .CKE = 10, .GATE_IDLE = 1000, .WAKE = 30, /* tXP/tCKE as gddr5_1000; gating: NVM_GATE estimate, 1 us / 30 ns */
            .RP_DIRTY = 118,    /* Sec. 3.1 (b): write cycle 151 - tRAS 33 */
            .RRD_PRE = 0,       /* paper gives none */
            .RTRS = RTRS_DDR,   /* interface as gddr5_1000 */
        },
        .e = {
            .act_pj = E_CORE(1.17) * 0.83, .pre_pj = E_CORE(0.39) * 0.83, /* Sec. 3.1 (c): -17 % */
            .pre_dirty_pj = E_CORE(0.39) * 0.83,
            .rd_pj = E_IO(0.93) - E_CORE(0.93) * 0.17, /* core part -17 %, I/O unchanged */
            .wr_pj = E_IO(1.02) - E_CORE(1.02) * 0.17,
            .ref_pj = 0.0,
            .bg_mw = 200.0 * 0.48, /* Sec. 3.1 (d): 48 % of DRAM leakage */
            .act_stby_mw = BG_ACT(200.0 * 0.48), .pd_mw = BG_PD(200.0 * 0.48), /* power states: see BG_ACT / BG_PD */
            .io_pj_bit = IO_PJ_BIT, /* I/O part of rd_pj / wr_pj; POD data bus (GDDR5 interface) */
            .bg_mib = GDDR5_DEV_MIB, /* background powers of one 1 Gb x32 device */
        },
    },
    /* ------------------------------------------------------------------
     * SCM of HMS in SLC, MLC and TLC modes: one HBM2-like channel of the SCM
     * dies (Table I: "Memory organization (for both DRAM and SCM)").
     * Source: hms-dram-cache-over-scm.txt Table I ("SCM CL: 14, RCD: 120,
     * RAS: 120, WR: 1000, RP: 14", row miss (closed page) 149 ns = tRP +
     * tRCD + CL + tBURST; "SCM ACT: 2.47, PRE (WR): 16.82, RD: 0.93, WR:
     * 1.02" pJ/bit) and footnote 4 (SLC: RCD = RAS = 60, WR = 150; TLC: RCD
     * = RAS = 250, WR = 2350). HMS (via Ramulator) puts the array write in
     * tWR (WR -> PRE), so tRP_DIRTY = 0 (a dirty PRE takes tRP) and the array
     * write energy is PRE (WR). Values Table I does not give (CWL, tRRD,
     * tFAW, tWTR, tRTP, tCCD, tRTW): as hbm2 (same interface). Energies are
     * Table I's for every mode (the paper gives one set).
     * ------------------------------------------------------------------ */
#define SCM_ROW(NAME, DESC, TID, RCDV, WRV)                                                     \
    {                                                                                           \
        .name = NAME, .desc = DESC, .tech = DRAM_TECH_NVM, .tech_id = TID, .scm = 1,            \
        .dual_cmd_bus = 1,                                                                      \
        .clk_mhz = 1000.0, .data_rate = 2, .bus_bits = 128, .burst_len = 2, .atom_bytes = 32,   \
        .bankgroups = 4, .banks_per_group = 4, .row_bytes = 2048, /* HMS Table I, as hbm2 */    \
        .t = {                                                                                  \
            .CL = 14, .CWL = 8, .RCD = (RCDV), .RP = 14, .RAS = (RCDV), .RC = (RCDV) + 14,      \
            .CCD_S = 1, .CCD_L = 2, .RRD_S = 8, .RRD_L = 10, .FAW = 40, .WTR_S = 4, .WTR_L = 8, \
            .RTP = 14, .WR = (WRV), .RTW = 9, .RFC = 0, .REFI = 0, .BURST = 1,                  \
            .RP_DIRTY = 0, .RRD_PRE = 0,                                                        \
            .XP = 10, .CKE = 10, .GATE_IDLE = 1000, .WAKE = 30, /* as hbm2; gating: NVM_GATE */ \
            .RTRS = RTRS_HBM,                                                                   \
        },                                                                                      \
        .e = {                                                                                  \
            .act_pj = 2.47 * BITS32B,        /* HMS Table I SCM ACT */                          \
            .pre_pj = 0.39 * BITS32B,        /* estimate: clean PRE as hbm2 (no array write) */ \
            .pre_dirty_pj = 16.82 * BITS32B, /* HMS Table I SCM PRE (WR) */                     \
            .rd_pj = 0.93 * BITS32B,         /* HMS Table I SCM RD */                           \
            .wr_pj = 1.02 * BITS32B,         /* HMS Table I SCM WR */                           \
            .ref_pj = 0.0,                                                                      \
            .bg_mw = 40.0, /* estimate: hbm2's peripheral power */            \
            .act_stby_mw = BG_ACT(40.0), .pd_mw = BG_PD(40.0), /* see BG_ACT / BG_PD */       \
        },                                                                                      \
    }
    /* HMS footnote 4: SLC RCD = RAS = 60, WR = 150 */
    SCM_ROW("scm_slc", "SCM (SLC) channel, HBM2-like 1 GHz 128-bit (HMS Table I, footnote 4)", DRAM_TID_SCM_SLC, 60, 150),
    /* HMS Table I: MLC CL 14, RCD 120, RAS 120, WR 1000, RP 14 */
    SCM_ROW("scm_mlc", "SCM (MLC) channel, HBM2-like 1 GHz 128-bit (HMS Table I)", DRAM_TID_SCM_MLC, 120, 1000),
    /* HMS footnote 4: TLC RCD = RAS = 250, WR = 2350 */
    SCM_ROW("scm_tlc", "SCM (TLC) channel, HBM2-like 1 GHz 128-bit (HMS Table I, footnote 4)", DRAM_TID_SCM_TLC, 250, 2350),
#undef SCM_ROW
    {
        /* HBM2 in pseudo-channel mode (JESD235A): each 128-bit channel runs as
         * two independent 64-bit pseudo-channels with their own 16 banks and
         * their own activation window, which is how Ramulator 2.0 models HBM2
         * (2 pseudo-channels per channel). Configs use 16 of them for the
         * 8-channel HMS memory (configs/hbm2_pseudo_channel.toml). Core
         * timings as hbm2 (HMS Table I); activation spacing from Ramulator
         * 2.0's HBM2 2 Gbps preset (1 ns clock), the timing class the random
         * trace comparison of docs/memtrace.md refers to. */
        .name = "hbm2_pc",
        .desc = "HBM2 pseudo-channel, 1 GHz, 64-bit BL4 DDR (HMS Table I core timings, Ramulator 2.0 tRRD/tFAW)",
        .tech = DRAM_TECH_DRAM,
        .tech_id = DRAM_TID_HBM2,
        .dual_cmd_bus = 1,      /* JESD235: separate row and column command interfaces */
        .clk_mhz = 1000.0,      /* HMS Table I: 1 GHz */
        .data_rate = 2,         /* DDR */
        .bus_bits = 64,         /* JESD235A pseudo-channel: half of the 128-bit channel */
        .burst_len = 4,         /* pseudo-channel mode: BL4 (32 B per access, as hbm2) */
        .atom_bytes = 32,       /* 64/8 * 4 */
        .bankgroups = 4,        /* 4 x 4 banks per pseudo-channel (Ramulator 2.0 HBM2 organisation) */
        .banks_per_group = 4,
        .row_bytes = 1024,      /* JESD235A: 1 KiB page per pseudo-channel */
        .t = {
            .CL = 14,           /* HMS Table I */
            .CWL = 8,           /* as hbm2 */
            .RCD = 14,          /* HMS Table I */
            .RP = 14,           /* HMS Table I */
            .RAS = 33,          /* HMS Table I */
            .RC = 47,           /* tRAS + tRP */
            .CCD_S = 2,         /* = tBURST (BL4 at DDR): 16 GB/s per pseudo-channel */
            .CCD_L = 3,         /* one more in the same bank group, as hbm2 */
            .RRD_S = 2,         /* Ramulator 2.0 HBM2_2Gbps nRRDS 2 (1 ns clock) */
            .RRD_L = 3,         /* Ramulator 2.0 HBM2_2Gbps nRRDL 3 */
            .FAW = 15,          /* Ramulator 2.0 HBM2_2Gbps nFAW 15, per pseudo-channel */
            .WTR_S = 4,         /* as hbm2 */
            .WTR_L = 8,
            .RTP = 14,
            .WR = 16,           /* HMS Table I */
            .RTW = 10,          /* CL + tBURST + 2 - CWL */
            .RFC = 260,         /* as hbm2 */
            .REFI = 3900,
            .RFC_PB = 160,      /* as hbm2 */
            .BURST = 2,         /* BL4 / DDR */
            .XP = 10, .CKE = 10, /* as hbm2 */
            .RTRS = RTRS_HBM,   /* as hbm2 */
        },
        .e = {
            /* Per 32 B access as hbm2 (HMS Table I pJ/bit); background half of
             * an hbm2 channel (estimate). */
            .act_pj = 1.17 * BITS32B,
            .pre_pj = 0.39 * BITS32B,
            .pre_dirty_pj = 0.39 * BITS32B,
            .rd_pj = 0.93 * BITS32B,
            .wr_pj = 1.02 * BITS32B,
            .ref_pj = 16.0 * (1.17 + 0.39) * BITS32B, /* half the rows of an hbm2 channel's REF */
            .bg_mw = 20.0,
            .act_stby_mw = BG_ACT(20.0), .pd_mw = BG_PD(20.0),
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

/* The overridable fields (dram.h dram_field): the members of dram_timing and
 * dram_energy, one row each, with their meaning from dram.h. */
#define TF(KEY, M, DESC) {KEY, 0, offsetof(dram_preset, t.M), DESC}
#define EF(M, DESC) {#M, 1, offsetof(dram_preset, e.M), DESC}
static const dram_field k_fields[] = {
    TF("CL", CL, "read latency: RD -> first data beat, cycles"),
    TF("CWL", CWL, "write latency: WR -> first data beat, cycles"),
    TF("tRCD", RCD, "ACT -> column command, same bank, cycles"),
    TF("tRP", RP, "PRE -> ACT, same bank, cycles"),
    TF("tRAS", RAS, "ACT -> PRE, same bank, cycles"),
    TF("tRC", RC, "ACT -> ACT, same bank (0 = not checked), cycles"),
    TF("tCCD_S", CCD_S, "column -> column, other bank group, cycles"),
    TF("tCCD_L", CCD_L, "column -> column, same bank group, cycles"),
    TF("tRRD_S", RRD_S, "ACT -> ACT, other bank group, cycles"),
    TF("tRRD_L", RRD_L, "ACT -> ACT, same bank group, cycles"),
    TF("tFAW", FAW, "four-activation window (0 = not modelled), cycles"),
    TF("tWTR_S", WTR_S, "end of write data -> RD, other bank group, cycles"),
    TF("tWTR_L", WTR_L, "end of write data -> RD, same bank group, cycles"),
    TF("tRTP", RTP, "RD -> PRE, cycles"),
    TF("tWR", WR, "end of write data -> PRE (write recovery), cycles"),
    TF("tRTW", RTW, "RD -> WR command spacing (bus turnaround), rank, cycles"),
    TF("tRFC", RFC, "all-bank REF -> ACT / REF, cycles (0 with tREFI 0 = no refresh)"),
    TF("tREFI", REFI, "average refresh interval (0 = no refresh), cycles"),
    TF("tRFC_PB", RFC_PB, "per-bank REF -> ACT of that bank (0 = no per-bank refresh), cycles"),
    TF("tBURST", BURST, "data-bus cycles per column access (must be burst_len / data_rate)"),
    TF("tRP_DIRTY", RP_DIRTY, "PRE of a dirty row buffer -> ACT, same bank (0 = tRP), cycles"),
    TF("tRRD_PRE", RRD_PRE, "array-writing PRE -> array-writing PRE, rank (0 = none), cycles"),
    TF("tRTRS", RTRS, "rank switch on the data bus, idle cycles between two ranks' bursts"),
    TF("tXP", XP, "precharge power-down exit -> any command, rank, cycles"),
    TF("tCKE", CKE, "minimum power-down residency, cycles"),
    TF("tGATE_IDLE", GATE_IDLE, "NVM power gating: idle cycles before the rank is gated (0 = never)"),
    TF("tWAKE", WAKE, "NVM power gating: wake-up -> any command, cycles"),
    EF(act_pj, "one ACT, pJ"),
    EF(pre_pj, "one PRE of a clean row buffer, pJ"),
    EF(pre_dirty_pj, "one PRE of a row buffer holding written data (NVM array write), pJ"),
    EF(rd_pj, "one column read (atom_bytes) incl. I/O, pJ"),
    EF(wr_pj, "one column write (atom_bytes) incl. I/O, pJ"),
    EF(ref_pj, "one all-bank REF, pJ"),
    EF(bg_mw, "precharge standby power per rank (IDD2N x VDD), mW"),
    EF(act_stby_mw, "active standby power per rank (IDD3N x VDD), mW"),
    EF(pd_mw, "precharge power-down power per rank (IDD2P x VDD), mW"),
    EF(bg_mib, "capacity the background powers describe, MiB (mem.leakage = capacity; 0 = not given)"),
    EF(io_pj_bit, "off-chip I/O energy per data bit inside rd_pj and wr_pj, pJ (0 = not separated)"),
};
#undef TF
#undef EF
#define N_FIELDS (sizeof k_fields / sizeof k_fields[0])

size_t dram_field_count(void) { return N_FIELDS; }

const dram_field *dram_field_at(size_t i) { return i < N_FIELDS ? &k_fields[i] : NULL; }

const dram_field *dram_field_find(int energy, const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < N_FIELDS; ++i)
    if (k_fields[i].energy == (energy != 0) && strcmp(k_fields[i].name, name) == 0) return &k_fields[i];
  return NULL;
}

const char *dram_field_names(int energy) {
  /* Built once per kind from the constant table (as dram_names). */
  static char buf[2][512];
  char *b = buf[energy != 0];
  if (!b[0]) {
    size_t n = 0;
    for (size_t i = 0; i < N_FIELDS && n + 1 < sizeof buf[0]; ++i) {
      if (k_fields[i].energy != (energy != 0)) continue;
      int w = snprintf(b + n, sizeof buf[0] - n, "%s%s", n ? ", " : "", k_fields[i].name);
      if (w < 0) break;
      n += (size_t)w;
    }
  }
  return b;
}

double dram_field_get(const dram_preset *p, const dram_field *f) {
  const char *base = (const char *)p + f->offset;
  if (f->energy) {
    double v;
    memcpy(&v, base, sizeof v);
    return v;
  }
  uint32_t v;
  memcpy(&v, base, sizeof v);
  return (double)v;
}

int dram_field_set(dram_preset *p, const dram_field *f, double v) {
  char *base = (char *)p + f->offset;
  if (!isfinite(v) || v < 0) return -1;
  if (f->energy) {
    memcpy(base, &v, sizeof v);
    return 0;
  }
  if (v > 4294967295.0 || v != floor(v)) return -1;
  const uint32_t u = (uint32_t)v;
  memcpy(base, &u, sizeof u);
  return 0;
}

/* Names and memory kinds of the technology ids (enum dram_tech_id order). */
static const struct {
  const char *name;
  unsigned kind;
} k_tids[DRAM_TID_COUNT] = {
    [DRAM_TID_NONE] = {"?", AMAP_MEM_DRAM},
    [DRAM_TID_DDR3] = {"ddr3", AMAP_MEM_DRAM},
    [DRAM_TID_GDDR5] = {"gddr5", AMAP_MEM_DRAM},
    [DRAM_TID_HBM2] = {"hbm2", AMAP_MEM_DRAM},
    [DRAM_TID_PCM] = {"pcm", AMAP_MEM_NVM},
    [DRAM_TID_STTRAM] = {"sttram", AMAP_MEM_NVM},
    [DRAM_TID_RRAM] = {"rram", AMAP_MEM_NVM},
    [DRAM_TID_SCM_SLC] = {"scm_slc", AMAP_MEM_SCM},
    [DRAM_TID_SCM_MLC] = {"scm_mlc", AMAP_MEM_SCM},
    [DRAM_TID_SCM_TLC] = {"scm_tlc", AMAP_MEM_SCM},
};

static unsigned tid_kind(unsigned id) { return id < DRAM_TID_COUNT ? k_tids[id].kind : AMAP_MEM_DRAM; }

const char *dram_tech_id_name(unsigned id) { return id > DRAM_TID_NONE && id < DRAM_TID_COUNT ? k_tids[id].name : "?"; }

unsigned dram_tech_id_find(const char *name) {
  if (!name) return DRAM_TID_NONE;
  for (unsigned i = DRAM_TID_NONE + 1; i < DRAM_TID_COUNT; ++i)
    if (strcmp(k_tids[i].name, name) == 0) return i;
  return DRAM_TID_NONE;
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
  if (p->atom_bytes != 32 && p->atom_bytes != 64 && p->atom_bytes != 128)
    FAIL("%s: atom_bytes %u: expected 32, 64 or 128 (a column access moves whole 32 B sectors of a 128 B line)",
         p->name, p->atom_bytes);
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
  if (p->tech != DRAM_TECH_DRAM && p->tech != DRAM_TECH_NVM) FAIL("%s: unknown technology %u", p->name, p->tech);
  if (p->tech == DRAM_TECH_NVM && p->t.REFI) FAIL("%s: NVM rows do not refresh (tREFI must be 0)", p->name);
  if (p->tech_id == DRAM_TID_NONE || p->tech_id >= DRAM_TID_COUNT)
    FAIL("%s: no device technology (tech_id %u)", p->name, p->tech_id);
  if (tid_kind(p->tech_id) != dram_mem_kind(p))
    FAIL("%s: technology %s is not a %s technology", p->name, dram_tech_id_name(p->tech_id),
         dram_kind_name(dram_mem_kind(p)));
  if (p->t.RP_DIRTY && p->t.RP_DIRTY < p->t.RP) FAIL("%s: tRP_DIRTY %u < tRP %u", p->name, p->t.RP_DIRTY, p->t.RP);
  if (p->e.act_pj < 0 || p->e.pre_pj < 0 || p->e.rd_pj < 0 || p->e.wr_pj < 0 || p->e.ref_pj < 0 || p->e.bg_mw < 0 ||
      p->e.pre_dirty_pj < 0)
    FAIL("%s: negative energy", p->name);
  if (!(p->e.act_stby_mw >= p->e.bg_mw && p->e.bg_mw >= p->e.pd_mw && p->e.pd_mw >= 0))
    FAIL("%s: need active standby >= precharge standby (bg_mw) >= power-down power >= 0", p->name);
  if (p->e.bg_mib < 0) FAIL("%s: bg_mib must be >= 0", p->name);
  {
    const double bits = 8.0 * p->atom_bytes;
    if (p->e.io_pj_bit < 0 || p->e.io_pj_bit * bits > p->e.rd_pj || p->e.io_pj_bit * bits > p->e.wr_pj)
      FAIL("%s: need 0 <= io_pj_bit x atom bits <= rd_pj and wr_pj (the I/O part of a column access)", p->name);
  }
  if (p->t.GATE_IDLE && p->tech != DRAM_TECH_NVM) FAIL("%s: only NVM rows can be power-gated (GATE_IDLE)", p->name);
  if (p->t.GATE_IDLE && !p->t.WAKE) FAIL("%s: a power-gated row needs a wake-up time (WAKE > 0)", p->name);
  return 0;
#undef FAIL
}

double dram_peak_bytes_per_s(const dram_preset *p) {
  return p->clk_mhz * 1e6 * (double)p->data_rate * (double)p->bus_bits / 8.0;
}

unsigned dram_mem_kind(const dram_preset *p) {
  if (p->tech == DRAM_TECH_DRAM) return AMAP_MEM_DRAM;
  return p->scm ? AMAP_MEM_SCM : AMAP_MEM_NVM;
}

const char *dram_kind_name(unsigned kind) {
  switch (kind) {
    case AMAP_MEM_DRAM: return "dram";
    case AMAP_MEM_NVM: return "nvm";
    case AMAP_MEM_SCM: return "scm";
    case AMAP_MEM_HOST: return "host";
    default: return "?";
  }
}

/* The first field of a and b that differs, named in err. */
#define SAME_(field, fmt)                                                                                   \
  do {                                                                                                      \
    if (a->field != b->field) {                                                                             \
      if (err && errlen)                                                                                    \
        snprintf(err, errlen, "%s: " #field " " fmt ", %s: " #field " " fmt, a->name, a->field, b->name, b->field); \
      return 0;                                                                                             \
    }                                                                                                       \
  } while (0)

int dram_same_interface(const dram_preset *a, const dram_preset *b, char *err, size_t errlen) {
  SAME_(clk_mhz, "%g");
  SAME_(data_rate, "%u");
  SAME_(bus_bits, "%u");
  SAME_(burst_len, "%u");
  SAME_(t.CL, "%u");
  SAME_(t.CWL, "%u");
  SAME_(t.BURST, "%u");
  SAME_(t.RTRS, "%u");
  SAME_(dual_cmd_bus, "%u");
  return dram_same_geometry(a, b, err, errlen);
}

int dram_same_geometry(const dram_preset *a, const dram_preset *b, char *err, size_t errlen) {
  SAME_(atom_bytes, "%u");
  SAME_(bankgroups, "%u");
  SAME_(banks_per_group, "%u");
  SAME_(row_bytes, "%u");
#undef SAME_
  return 1;
}
