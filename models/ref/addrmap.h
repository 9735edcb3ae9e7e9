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
 * With hashing on, channel, bank group and bank are permuted by the row: XOR
 * with an XOR-fold of all row bits for powers of two, rotation by a
 * multiplicative hash of the row otherwise (see addrmap.c). This spreads row
 * conflicts and is a bijection for every fixed row.
 *
 * The L2 bank of an address: channel * l2_per_channel + (the part of the address
 * above the channel field) mod l2_per_channel.
 */
#ifndef STRATA_ADDRMAP_H
#define STRATA_ADDRMAP_H
#include <stddef.h>
#include <stdint.h>

enum amap_field { AMAP_OFF, AMAP_COL, AMAP_CH, AMAP_RA, AMAP_BG, AMAP_BA, AMAP_ROW };
enum amap_mem { AMAP_MEM_DRAM = 0, AMAP_MEM_NVM = 1, AMAP_MEM_SCM = 2 };

#define AMAP_MAX_DIGITS 16
#define AMAP_MAX_REGIONS 8

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

typedef struct amap {
  amap_digit digit[AMAP_MAX_DIGITS];
  unsigned ndigits;
  uint32_t channels, ranks, bankgroups, banks, columns, atom_bytes;
  uint32_t l2_per_channel;
  int hash;
  amap_region region[AMAP_MAX_REGIONS];
  unsigned nregions;
  /* Precomputed by amap_init for the fast decode (every count a power of two
   * and the row starting below bit 64): each field is a bit slice of the
   * address. Internal; the slow path (successive div/mod) handles the rest. */
  uint8_t fast;
  uint8_t has_ch;             /* a `ch` digit exists (else the L2 bank's upper part is 0) */
  uint8_t fpos[4];            /* bit position of ch, ra, bg, ba (AMAP_CH..AMAP_BA - 2) */
  uint8_t ncol;               /* column pieces */
  uint8_t row_pos, above_ch_pos;
  uint8_t lpc_pow2;           /* l2_per_channel is a power of two */
  uint8_t row_bytes_n;        /* hash: bytes of the row that can be non-zero */
  uint64_t fmask[4];          /* value mask of ch, ra, bg, ba (0 when absent) */
  uint8_t col_pos[AMAP_MAX_DIGITS], col_out[AMAP_MAX_DIGITS];
  uint64_t col_mask[AMAP_MAX_DIGITS];
  /* hash: the XOR-folds of ch/bg/ba are linear in the row bits (GF(2)), so
   * they are the XOR of one table entry per row byte; entry = fold_ch |
   * fold_bg << 10 | fold_ba << 20. */
  uint32_t hash_tab[8][256];
} amap;

typedef struct amap_loc {
  uint32_t ch, ra, bg, ba;  /* ba = bank within its bank group */
  uint32_t col;             /* column-access index within the row (units of atom_bytes) */
  uint64_t row;
  uint32_t l2_bank;         /* global L2 bank */
} amap_loc;

/* Parse `layout` and check it against the geometry: the product of `col`
 * counts times the `off` count must equal row_bytes, the ch/ra/bg/ba counts
 * must equal channels/ranks/bankgroups/banks_per_group (fields whose count is 1
 * may be omitted), `row` must come last. On error returns -1 and writes a
 * one-line reason to err (errlen bytes). */
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

/* Declare [base, base+size) as memory technology `mem` (enum amap_mem);
 * addresses in no region are DRAM. Returns -1 when the table is full. */
int amap_add_region(amap *m, uint64_t base, uint64_t size, unsigned mem);

/* Decode a physical address. Never fails. */
void amap_decode(const amap *m, uint64_t pa, amap_loc *out);
/* Channel only (fast path for routing). */
uint32_t amap_channel(const amap *m, uint64_t pa);
/* L2 bank only (fast path for routing). */
uint32_t amap_l2_bank(const amap *m, uint64_t pa);
/* Memory technology of an address (enum amap_mem). */
unsigned amap_mem_type(const amap *m, uint64_t pa);

#endif
