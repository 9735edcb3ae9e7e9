/* dram: memory-device presets (timing, geometry, energy) as data.
 *
 * One row per standard / speed bin, in the style of Ramulator 2's DDR4.cpp
 * preset tables: every timing is an integer number of command-clock cycles,
 * every number carries its source in dram.c. The memory-controller engine
 * (mc.h) and the command-timing checker read the same rows.
 *
 * Conventions
 *  - Timings are in command-clock cycles (clk_mhz). 0 means "no such
 *    constraint" for tFAW, and "no refresh" for tREFI (non-volatile rows).
 *  - One column access moves atom_bytes = bus_bits/8 * burst_len bytes (32 B:
 *    one L2 sector; 64 B: two, e.g. a 64-bit DDR3 channel with BL8) and
 *    occupies the data bus for tBURST = burst_len / data_rate cycles.
 *  - Read data returns CL + tBURST after the column command; write data is on
 *    the bus from CWL to CWL + tBURST.
 *  - Derived spacings the engine applies (JEDEC / Ramulator form):
 *      WR -> RD  same bank group     CWL + tBURST + tWTR_L
 *      WR -> RD  other bank group    CWL + tBURST + tWTR_S
 *      RD -> WR  (rank)              tRTW (stored directly, typically CL + tBURST + 2 - CWL)
 *      WR -> PRE (bank)              CWL + tBURST + tWR
 *      RD -> PRE (bank)              tRTP
 *  - Precharge of a written row buffer (hybrid-dram-pcm-flrb-placement Sec.
 *    II-B: an NVM row buffer writes back to the cell array only when it holds
 *    written data, a DRAM precharge always restores the row):
 *      PRE -> ACT (bank)             tRP, or tRP_DIRTY when the row buffer is
 *                                    dirty and tRP_DIRTY != 0 (the array write)
 *      PRE -> PRE (rank)             tRRD_PRE between two precharges that write
 *                                    the array: every PRE of a DRAM row, the
 *                                    dirty PREs of an NVM row (the "tRRDpre" of
 *                                    the PCM literature: array writes draw the
 *                                    most current, so they are spaced apart)
 *    Presets that put the NVM array write in tWR instead (HMS Table I: SCM
 *    WR 1000) leave tRP_DIRTY 0.
 *  - Energy: per-command energies in pJ per channel (one rank), background
 *    power in mW per rank for each power state (active standby, precharge
 *    standby, precharge power-down; a power-gated NVM rank draws nothing).
 *    The controller turns them into joules (mc_energy).
 *  - Power states: a rank with all banks closed and nothing queued enters
 *    precharge power-down after the controller's idle timer (mc_cfg); the
 *    first command after the exit waits tXP, and the rank stays down at least
 *    tCKE. NVM rows with GATE_IDLE != 0 are power-gated after GATE_IDLE
 *    cycles without a command and pay WAKE before the first command.
 *
 * Adding a technology (DDR3, PCM, STT-RAM, RRAM, SCM SLC/MLC/TLC) is adding a
 * row in dram.c (with its tech_id; a new family also a dram_tech_id value and
 * its name in dram.c): NVM rows set tech = DRAM_TECH_NVM, tREFI = tRFC = 0 and use
 * e_pre_dirty_pj for the array write that happens when a dirty row buffer is
 * closed (HMS Table I "PRE (WR)").
 */
#ifndef STRATA_DRAM_H
#define STRATA_DRAM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dram_tech { DRAM_TECH_DRAM = 0, DRAM_TECH_NVM = 1 };

/* Device technology of a preset (dram_preset.tech_id): what policies and the
 * mem.<technology>.* stats tell apart within a memory kind (dram_mem_kind:
 * DRAM, NVM, SCM) -- the DRAM families, PCM, STT-RAM and RRAM (all NVM), the
 * SCM cell modes. Every preset has one; dram_validate checks that it belongs
 * to the preset's kind. */
enum dram_tech_id {
  DRAM_TID_NONE = 0, /* unset: rejected by dram_validate */
  DRAM_TID_DDR3,
  DRAM_TID_GDDR5,
  DRAM_TID_HBM2,
  DRAM_TID_PCM,
  DRAM_TID_STTRAM,
  DRAM_TID_RRAM,
  DRAM_TID_SCM_SLC,
  DRAM_TID_SCM_MLC,
  DRAM_TID_SCM_TLC,
  DRAM_TID_COUNT
};

typedef struct dram_timing {
  uint32_t CL, CWL;           /* read / write latency (column command -> first data beat) */
  uint32_t RCD, RP, RAS, RC;  /* ACT->column, PRE->ACT, ACT->PRE, ACT->ACT same bank */
  uint32_t CCD_S, CCD_L;      /* column -> column, other / same bank group */
  uint32_t RRD_S, RRD_L;      /* ACT -> ACT, other / same bank group */
  uint32_t FAW;               /* four-activation window (0 = not modelled) */
  uint32_t WTR_S, WTR_L;      /* end of write data -> RD, other / same bank group */
  uint32_t RTP;               /* RD -> PRE */
  uint32_t WR;                /* end of write data -> PRE (write recovery) */
  uint32_t RTW;               /* RD -> WR command spacing (bus turnaround), rank */
  uint32_t RFC;               /* REF -> next ACT / REF (all-bank refresh) */
  uint32_t REFI;              /* average refresh interval (0 = no refresh) */
  uint32_t RFC_PB;            /* per-bank REF -> ACT of that bank (0 = the standard has no per-bank refresh) */
  uint32_t BURST;             /* data-bus cycles per column access */
  uint32_t RP_DIRTY;          /* PRE of a dirty row buffer -> next ACT, same bank (0 = tRP) */
  uint32_t RRD_PRE;           /* array-writing PRE -> array-writing PRE, rank (0 = none) */
  /* Rank switch on the shared data bus (channel): idle cycles between the end
   * of one rank's burst and the start of another rank's burst (JEDEC-class
   * tRTRS; Ramulator's "sibling rank" spacings RD->RD nBL + nRTRS, RD->WR
   * nCL + nBL + nRTRS - nCWL, ... are this rule written per command pair).
   * Part of the channel interface: every rank of a channel has the same. */
  uint32_t RTRS;
  /* Power states (docs/memctrl.md "Power and energy"). */
  uint32_t XP;                /* precharge power-down exit -> any command, rank (JEDEC tXP) */
  uint32_t CKE;               /* minimum power-down residency, entry -> exit (JEDEC tCKE / tPD) */
  uint32_t GATE_IDLE;         /* NVM power gating: cycles without a command before the rank is gated (0 = never) */
  uint32_t WAKE;              /* NVM power gating: wake-up -> any command, rank */
} dram_timing;

typedef struct dram_energy {
  double act_pj;        /* one ACT */
  double pre_pj;        /* one PRE of a clean row buffer */
  double pre_dirty_pj;  /* one PRE of a row buffer holding written data (NVM array write) */
  double rd_pj;         /* one column read (atom_bytes), incl. I/O */
  double wr_pj;         /* one column write (atom_bytes), incl. I/O */
  double ref_pj;        /* one all-bank REF */
  double bg_mw;         /* precharge standby power per rank: all banks closed (IDD2N x VDD) */
  double act_stby_mw;   /* active standby power per rank: some bank open (IDD3N x VDD) */
  double pd_mw;         /* precharge power-down power per rank (IDD2P x VDD); a power-gated NVM rank draws 0 */
  double bg_mib;        /* the capacity, MiB, the three background powers describe (mem.leakage = capacity
                         * scales them by a rank's capacity over it); 0 = not given */
  double io_pj_bit;     /* the off-chip I/O energy per data bit inside rd_pj and wr_pj (mem.io.* stats;
                         * mem.io_model = pod replaces it); 0 = not separated */
} dram_energy;

typedef struct dram_preset {
  const char *name;       /* lookup key, e.g. "hbm2" */
  const char *desc;       /* one line for --help and docs */
  uint8_t tech;           /* enum dram_tech */
  uint8_t tech_id;        /* enum dram_tech_id: the device technology (DDR3, HBM2, PCM, STT-RAM, SCM MLC, ...) */
  uint8_t scm;            /* NVM row of storage-class memory (HMS SCM dies): the address map reports
                             its addresses as AMAP_MEM_SCM rather than AMAP_MEM_NVM (dram_mem_kind) */
  uint8_t dual_cmd_bus;   /* separate row and column command buses (HBM): one ACT/PRE/REF and one RD/WR per cycle */
  uint8_t io_pod;         /* the data bus is GDDR5 pseudo-open-drain signalling (mem.io_model = pod applies) */
  double clk_mhz;         /* command clock */
  uint32_t data_rate;     /* data beats per command clock (2 = DDR, 4 = GDDR5 WCK) */
  uint32_t bus_bits;      /* channel data width */
  uint32_t burst_len;     /* beats per column access */
  uint32_t atom_bytes;    /* bytes per column access = bus_bits/8 * burst_len */
  uint32_t bankgroups;
  uint32_t banks_per_group;
  uint32_t row_bytes;     /* row (page) size per channel */
  dram_timing t;
  dram_energy e;
} dram_preset;

/* The timing and energy fields a config can override (mem.timing.<name>,
 * mem.energy.<name>; docs/user_guide.md "Device presets and overrides"), as a
 * table so the config schema, the override code and the docs list the same
 * names. Timing names are the JEDEC spellings of the dram_timing members
 * (CL, CWL, tRCD, tRP, ..., tGATE_IDLE, tWAKE: "t" + the member name, except
 * CL and CWL), energy names the dram_energy members (act_pj, ..., pd_mw). */
typedef struct dram_field {
  const char *name;  /* override key below mem.timing. / mem.energy. */
  uint8_t energy;    /* 0: timing, a uint32_t in cycles (dram_timing); 1: energy, a double (dram_energy) */
  size_t offset;     /* byte offset of the member in dram_preset */
  const char *desc;  /* one line: meaning and unit */
} dram_field;

/* Number of fields and the i-th one (NULL when i >= count); timing fields
 * first, in dram_timing order, then energy fields in dram_energy order. */
size_t dram_field_count(void);
const dram_field *dram_field_at(size_t i);
/* The field of a kind (energy 0 = timing, 1 = energy) by exact name, or NULL. */
const dram_field *dram_field_find(int energy, const char *name);
/* Comma-separated names of one kind, for error messages (static string). */
const char *dram_field_names(int energy);
/* Value of a field of p. */
double dram_field_get(const dram_preset *p, const dram_field *f);
/* Set a field of p (a caller-owned copy of a preset). Timing fields take a
 * whole number in [0, UINT32_MAX], energy fields a finite number >= 0.
 * Returns 0, or -1 (p unchanged) when v is outside that. Consistency with
 * the other fields is dram_validate's job. */
int dram_field_set(dram_preset *p, const dram_field *f, double v);

/* Find a preset by exact name. Returns NULL when unknown. */
const dram_preset *dram_find(const char *name);

/* Comma-separated list of preset names ("hbm2, gddr5_gtx480, ..."), for error
 * messages. Returns a pointer to a static string built once from the table. */
const char *dram_names(void);

/* Number of presets and the i-th one (NULL when i >= count). */
size_t dram_count(void);
const dram_preset *dram_at(size_t i);

/* Check a preset for internal consistency (atom_bytes = bus_bits/8 x burst_len and
 * 32, 64 or 128 B, tBURST, tRC >= tRAS + tRP
 * when tRC is given, CCD_L >= CCD_S, RRD_L >= RRD_S, nonzero clock and sizes,
 * refresh both-or-neither, NVM rows without refresh, tRP_DIRTY 0 or >= tRP).
 * Returns 0, or -1 with a one-line reason in err. */
int dram_validate(const dram_preset *p, char *err, size_t errlen);

/* Peak data bandwidth of one channel in bytes per second. */
double dram_peak_bytes_per_s(const dram_preset *p);

/* Memory kind of a preset as the address map names it (addrmap.h enum
 * amap_mem): AMAP_MEM_DRAM for DRAM rows, AMAP_MEM_SCM for NVM rows with
 * `scm` set, AMAP_MEM_NVM for the other NVM rows. */
unsigned dram_mem_kind(const dram_preset *p);
/* Name of a memory kind ("dram", "nvm", "scm", "host"; "?" when out of range). */
const char *dram_kind_name(unsigned kind);

/* Name of a technology id ("ddr3", "gddr5", "hbm2", "pcm", "sttram", "rram",
 * "scm_slc", "scm_mlc", "scm_tlc"; "?" for DRAM_TID_NONE or out of range), the
 * <technology> of the mem.<technology>.* stats; and the id of a name
 * (DRAM_TID_NONE when unknown). */
const char *dram_tech_id_name(unsigned id);
unsigned dram_tech_id_find(const char *name);

/* 1 when two presets can share one channel (as ranks): the same command clock, data rate, bus width, burst length
 * and atom, CL, CWL, tBURST, tRTRS, command buses, bank groups, banks per
 * group and row size -- the channel interface and the bank geometry (HMS
 * Sec. III-A: the SCM dies keep "the HBM's high-level design and interface,
 * including ... the number of banks and bank groups"; Table I: "Memory
 * organization (for both DRAM and SCM)", CL 14 for both). Otherwise 0, with
 * the first differing field named in err ("pcm_hac: CL 12, hbm2: CL 14"). */
int dram_same_interface(const dram_preset *a, const dram_preset *b, char *err, size_t errlen);

/* 1 when two presets can share one address map as channels: the same atom,
 * bank groups, banks per group and row size (the fields the map decodes).
 * Channels may differ in interface -- each has its own controller and clock,
 * e.g. the hybrid graphics memory's 1.25 GHz GDDR5 channel beside its 1 GHz
 * NVM bus (Sec. 4.1) --, ranks of one channel may not (dram_same_interface).
 * Otherwise 0, with the first differing field named in err. */
int dram_same_geometry(const dram_preset *a, const dram_preset *b, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
