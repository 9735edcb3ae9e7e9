/* addrmap: physical address -> channel / rank / bank group / bank / row / column,
 * plus the L2 bank serving the address and the memory technology behind it.
 *
 * The layout is a mixed-radix number written least significant field first,
 * e.g. "off:32 col:4 ch:8 bg:4 col:16 ba:4 row" (HBM2 baseline): 32 bytes per
 * column access, 4 columns (one 128 B line) per channel chunk, then the channel,
 * and so on; `row` takes what is left. Counts need not be powers of two (12
 * GDDR5 channels), so decoding is successive div/mod (shifts for powers of two).
 * Fields: off (bytes per column access), col (may appear several times; the
 * pieces form the column index, low piece first), ch, ra (rank), bg, ba, row.
 * Stacks of vaults (HMC/HBM-like 3D stacks, TOM Table 1: 4 stacks x 16
 * vaults of 16 banks): `st` (stack) and `va` (vault within its stack) give
 * the channel in two digits instead of `ch`, channel = stack x vaults +
 * vault, e.g. "off:32 col:4 va:16 st:4 col:16 ba:16 row": consecutive lines
 * go to the 16 vaults of a stack, then to the next stack; the stack of an
 * address is the two consecutive address bits [12:11] (TOM Sec. 3.2.1 and
 * 4.3: a stack mapping by consecutive bits above the line offset, the bit
 * position chosen by where `st` stands). st x va must equal the channels; a
 * layout names the channel either with `ch` or with `st`/`va`. amap_decode
 * returns the stack and vault of every address (a layout without them: one
 * stack, vault = channel). Stack digits need a map of one memory kind.
 * With hashing on, channel, bank group and bank are permuted by the row: XOR
 * with an XOR-fold of all row bits for powers of two, rotation by a
 * multiplicative hash of the row otherwise (see addrmap.c). This spreads row
 * conflicts and is a bijection for every fixed row.
 *
 * The L2 bank of an address: partition * l2_per_channel + (the part of the
 * address above the channel field) mod l2_per_channel, where the partition is
 * the channel, or channel / k after amap_set_partition_channels(m, k) (a
 * memory partition of k channels, e.g. a DRAM channel and an SCM channel
 * behind one memory-side controller; l2_per_channel then counts the L2 banks
 * of a partition).
 */
#ifndef STRATA_ADDRMAP_H
#define STRATA_ADDRMAP_H
#include <stddef.h>
#include <stdint.h>

enum amap_field { AMAP_OFF, AMAP_COL, AMAP_CH, AMAP_RA, AMAP_BG, AMAP_BA, AMAP_ROW, AMAP_ST, AMAP_VA };
/* AMAP_MEM_HOST: host memory behind a link (hostmem.h, models/host); a memory
 * side may place lines there, the GPU's static map has no host part. */
enum amap_mem { AMAP_MEM_DRAM = 0, AMAP_MEM_NVM = 1, AMAP_MEM_SCM = 2, AMAP_MEM_HOST = 3 };

#define AMAP_MAX_DIGITS 16
#define AMAP_MAX_REGIONS 8
#define AMAP_MAX_PARTS 3      /* one per memory kind: DRAM, NVM, SCM */
#define AMAP_MAX_CHANNELS 256
#define AMAP_MAX_RANKS 16
#define AMAP_PART_ALIGN 4096  /* part sizes and interleave blocks are multiples of this */

typedef struct amap_digit {
  uint8_t field;   /* enum amap_field */
  uint8_t pow2;    /* radix is a power of two */
  uint8_t shift;   /* log2(radix) when pow2 */
  uint32_t radix;  /* count; 0 for the final `row` digit */
} amap_digit;

typedef struct amap_region {
  uint64_t base, size;
  uint8_t mem;     /* enum amap_mem */
} amap_region;

/* One layout decoder: the digits of a layout over a channels x ranks x bank
 * geometry, with the precomputed fast path. An amap holds one for the whole
 * memory, or one per memory part (below). Internal; read through the API. */
typedef struct amap_dec {
  amap_digit digit[AMAP_MAX_DIGITS];
  unsigned ndigits;
  uint32_t channels, ranks, bankgroups, banks, columns, atom_bytes;
  uint32_t l2_per_channel;
  uint32_t stacks, vaults;    /* st and va counts: channels = stacks x vaults (no st digit: 1 x channels) */
  uint8_t stacked;            /* the channel is given by st/va digits */
  uint8_t part_shift;         /* log2(channels per partition) of the L2 bank (0: one channel) */
  int hash;
  /* Precomputed by amap_init for the fast decode (every count a power of two
   * and the row starting below bit 64): each field is a bit slice of the
   * address. Internal; the slow path (successive div/mod) handles the rest. */
  uint8_t fast;
  /* Fast path with a channel count that is not a power of two (40 channels of a full-scale A100):
   * the fields below the `ch` digit are slices of the address, the channel is (pa >> split_pos) %
   * split_radix, and the fields above it slices of up = (pa >> split_pos) / split_radix; *_src
   * says which of the two (0: pa, 1: up) a field is cut from. Only with fast, never stacked. */
  uint8_t split;
  uint8_t split_pos;
  uint32_t split_radix;
  uint8_t fsrc[4], row_src;
  uint8_t col_src[AMAP_MAX_DIGITS];
  uint8_t has_ch;             /* a `ch` digit exists (else the L2 bank's upper part is 0) */
  uint8_t fpos[4];            /* bit position of ch (stacked: va), ra, bg, ba (AMAP_CH..AMAP_BA - 2) */
  uint8_t st_pos, st_out;     /* stacked: bit position of st, and its shift in the channel (log2 vaults) */
  uint8_t vault_shift;        /* log2(vaults): stack = channel >> vault_shift */
  uint64_t st_mask;           /* stacked: value mask of st (0 otherwise) */
  uint8_t ncol;               /* column pieces */
  uint8_t row_pos, above_ch_pos;
  uint8_t lpc_pow2;           /* l2_per_channel is a power of two */
  uint8_t row_bytes_n;        /* hash: bytes of the row that can be non-zero */
  uint64_t fmask[4];          /* value mask of ch (stacked: va), ra, bg, ba (0 when absent) */
  uint8_t col_pos[AMAP_MAX_DIGITS], col_out[AMAP_MAX_DIGITS];
  uint64_t col_mask[AMAP_MAX_DIGITS];
  /* hash: the XOR-folds of ch/bg/ba are linear in the row bits (GF(2)), so
   * they are the XOR of one table entry per row byte; entry = fold_ch |
   * fold_bg << 10 | fold_ba << 20. */
  uint32_t hash_tab[8][256];
} amap_dec;

/* A memory part (hybrid memory, amap_init_parts): the addresses of one memory
 * kind, served by `nch` channels x `nra` ranks (global indices ch[], ra[]),
 * decoded by its own layout over those targets. */
typedef struct amap_part {
  uint8_t mem;                /* enum amap_mem */
  uint64_t bytes;             /* capacity (0: unbounded, the last part of a contiguous map) */
  uint64_t base;              /* contiguous map: first address */
  uint64_t block0, blocks;    /* interleaved map: its blocks of each round, [block0, block0 + blocks) */
  uint32_t nch, nra;
  uint16_t ch[AMAP_MAX_CHANNELS];
  uint8_t ra[AMAP_MAX_RANKS];
  amap_dec d;
} amap_part;

typedef struct amap {
  /* Geometry of the whole memory (global channel and rank counts). */
  uint32_t channels, ranks, bankgroups, banks, columns, atom_bytes;
  uint32_t l2_per_channel;     /* L2 banks per partition */
  uint32_t stacks, vaults;    /* stacks x vaults per stack = channels (1 x channels without st/va digits) */
  uint32_t part_channels;     /* channels per memory partition (amap_set_partition_channels; 1 by default) */
  int hash;
  amap_dec d;                 /* the decoder (one-part maps: nparts == 0) */
  /* Hybrid memory: parts of different kinds (nparts >= 2; 0 = one kind). */
  amap_part part[AMAP_MAX_PARTS];
  unsigned nparts;
  uint64_t interleave;        /* 0: parts contiguous; else block size of the interleaved map */
  uint64_t round_blocks;      /* interleaved: blocks per round (sum of the parts' blocks) */
  uint8_t scatter;            /* interleaved: rotate each round's block order by a hash of the round (amap_set_part_scatter) */
  uint8_t mem_default;        /* kind of addresses in no region (one-kind maps, amap_set_mem) */
  amap_region region[AMAP_MAX_REGIONS];
  unsigned nregions;
} amap;

typedef struct amap_loc {
  uint32_t ch, ra, bg, ba;  /* ba = bank within its bank group */
  uint32_t col;             /* column-access index within the row (units of atom_bytes) */
  uint64_t row;
  uint32_t l2_bank;         /* global L2 bank */
  uint32_t stack, vault;    /* ch = stack x vaults + vault (a map without st/va: stack 0, vault = ch) */
} amap_loc;

/* Parse `layout` and check it against the geometry: the product of `col`
 * counts times the `off` count must equal row_bytes, the ch/ra/bg/ba counts
 * must equal channels/ranks/bankgroups/banks_per_group (fields whose count is 1
 * may be omitted; st x va counts instead of ch), `row` must come last. On
 * error returns -1 and writes a one-line reason to err (errlen bytes). */
int amap_init(amap *m, const char *layout, uint32_t channels, uint32_t ranks, uint32_t bankgroups,
              uint32_t banks_per_group, uint32_t row_bytes, uint32_t l2_per_channel, int hash,
              char *err, size_t errlen);

/* The default layout for a geometry, written into buf (NUL-terminated; -1
 * when it does not fit or the geometry is unusable): one 128 B line (or one
 * atom, if larger) of columns per channel chunk, then the channel, the bank
 * group (consecutive lines of a channel alternate groups, so tCCD_S
 * applies), the rest of the row's columns, the bank, the rank, then the row,
 * e.g. "off:32 col:4 ch:8 bg:4 col:16 ba:4 row" for 8 HBM2 channels. Fields
 * of count 1 are left out. Used for `addrmap.layout = "auto"`. */
int amap_default_layout(char *buf, size_t len, uint32_t atom_bytes, uint32_t row_bytes, uint32_t channels,
                        uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group);

/* Hybrid memory: the physical address space split into parts of different
 * memory kinds (DRAM / NVM / SCM), each served by its own channels x ranks.
 *   interleave == 0: the parts lie one after the other in the order given,
 *     part k at the sum of the earlier parts' sizes; the last part may have
 *     size 0 = unbounded (and takes every address above the others anyway).
 *   interleave == B: the space is a sequence of rounds of B-byte blocks; each
 *     round gives part k size_k / g consecutive blocks (g = gcd of the sizes),
 *     in the order given, so the kinds alternate every few blocks in the
 *     ratio of their sizes; every size must be > 0.
 * Within a part the part-local address (its bytes counted from 0) is decoded
 * by `layout` over nch channels x nra ranks (counts as in amap_init; NULL or
 * "auto" = amap_default_layout), and the channel and rank digits are mapped
 * to the global indices ch[], ra[]. The L2 bank of an address is global
 * channel x l2_per_channel + (the part-local address above the channel
 * field) mod l2_per_channel, so it always belongs to the serving channel.
 * Checks: 2..AMAP_MAX_PARTS parts of distinct kinds; sizes and B multiples of
 * AMAP_PART_ALIGN; indices in range; no (channel, rank) serving two parts; the
 * interleaved round at most 4096 blocks. Returns 0, or -1 with a one-line
 * reason in err. amap_mem_type() of an address is then the kind of its part. */
typedef struct amap_part_cfg {
  unsigned mem;               /* enum amap_mem */
  uint64_t bytes;             /* capacity (see above) */
  uint32_t nch, nra;
  const uint32_t *ch, *ra;    /* global channel / rank indices (nch / nra entries) */
} amap_part_cfg;
int amap_init_parts(amap *m, const amap_part_cfg *parts, unsigned nparts, uint64_t interleave, const char *layout,
                    uint32_t channels, uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group,
                    uint32_t row_bytes, uint32_t atom_bytes, uint32_t l2_per_channel, int hash, char *err,
                    size_t errlen);

/* Interleaved parts, scattered (addrmap.part_pattern = "scatter"): each
 * round's blocks keep the parts' ratio, but the round's block order is
 * rotated by a hash of the round number, so which blocks of a round belong to
 * which part changes from round to round, as when an operating system hands
 * out page frames from both memories, and no address stride sees one kind
 * only. With the fixed order (the default) an address stride that is a
 * multiple of the round always meets the same kind: e.g. 4 KiB DRAM and PCM
 * pages alternating under a 12-bank L2 whose set lines lie 48 KiB apart put
 * one kind in every set, which leaves a hybrid-aware L2 policy (HAC, whose
 * per-set miss counter weighs DRAM against NVM misses, Sec. IV-B of the HAC
 * paper) nothing to choose between. Still a bijection: part-local addresses
 * stay dense. Needs an interleaved map (amap_init_parts, interleave > 0).
 * Returns 0, or -1 with a one-line reason in err. */
int amap_set_part_scatter(amap *m, int on, char *err, size_t errlen);

/* Memory partitions of k consecutive channels (k a power of two dividing the
 * channel count; 1 = a partition per channel, the default): the L2 bank of an
 * address becomes (channel / k) x l2_per_channel + (the address above the
 * channel field) mod l2_per_channel, so the L2 banks of a partition serve
 * every channel of it and every L2 bank of it is used even when the program's
 * part of the map lies on one of its channels (the HMS paper's separate DRAM
 * and SCM channels, Fig. 6b). Call after amap_init / amap_init_parts, whose
 * l2_per_channel is then the L2 banks per partition. Returns 0, or -1 with a
 * one-line reason in err. */
int amap_set_partition_channels(amap *m, uint32_t k, char *err, size_t errlen);

/* Declare [base, base+size) as memory technology `mem` (enum amap_mem);
 * addresses in no region are DRAM (or amap_set_mem's kind). Regions only tag
 * addresses (tests, maps without parts); with parts the kind comes from the
 * part. Returns -1 when the table is full. */
int amap_add_region(amap *m, uint64_t base, uint64_t size, unsigned mem);
/* Kind of the addresses in no region of a map without parts (a memory of one
 * kind, e.g. all PCM); default AMAP_MEM_DRAM. */
void amap_set_mem(amap *m, unsigned mem);
/* Bytes of an aligned chunk whose atoms differ only in the lowest column
 * digit in every decoder (col(a + k x atom) = col(a) + k, the same channel,
 * rank, bank and row), so one decode serves the chunk; 0 when there is none. */
uint64_t amap_col_chunk_bytes(const amap *m);

/* Decode a physical address. Never fails. */
void amap_decode(const amap *m, uint64_t pa, amap_loc *out);
/* Channel only (fast path for routing). */
uint32_t amap_channel(const amap *m, uint64_t pa);
/* L2 bank only (fast path for routing). */
uint32_t amap_l2_bank(const amap *m, uint64_t pa);
/* Memory technology of an address (enum amap_mem). */
unsigned amap_mem_type(const amap *m, uint64_t pa);

#endif
