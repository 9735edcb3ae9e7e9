/* devaddr: a device location (rank, bank group, bank, row, column) of one
 * memory channel written as one channel-local number, the *device address*.
 *
 * Strata's address map has two levels (docs/architecture.md "Two-level
 * address map"): a physical address decides statically its L2 bank and its
 * memory partition; where in the partition's devices the bytes live belongs to
 * the partition's memory-side controller (memside.h), which may change it at
 * run time. The device controllers (mc.h engines behind MemCtrl) and the
 * device contents are addressed by device address only, so a policy that
 * remaps a line without moving its bytes reads the wrong bytes (and the
 * golden-memory checker says so).
 *
 * Layout, least significant field first: byte offset in a column access
 * (atom_bytes), column, bank (within its group), bank group, rank, row. The
 * columns of a row are consecutive device addresses, so a 128 B line whose
 * atoms are consecutive columns of one row is one device address range, and
 * a row is one range of row_bytes. Fields whose counts are powers of two are
 * bit slices (the usual case); otherwise the decode divides.
 */
#ifndef STRATA_DEVADDR_H
#define STRATA_DEVADDR_H
#include <stddef.h>
#include <stdint.h>

typedef struct devaddr_geom {
  uint32_t ranks, bankgroups, banks, columns, atom_bytes;
  uint64_t row_span;   /* device-address bytes of one row index: all ranks x banks x row */
  uint8_t pow2;        /* every count a power of two: shifts below */
  uint8_t sh_col, sh_ba, sh_bg, sh_ra, sh_row;
} devaddr_geom;

typedef struct devaddr_loc {
  uint32_t ra, bg, ba; /* ba = bank within its bank group */
  uint32_t col;        /* column-access index within the row (units of atom_bytes) */
  uint64_t row;
} devaddr_loc;

/* Geometry of a channel: ranks x bankgroups x banks_per_group banks of rows
 * of `columns` column accesses of atom_bytes. Returns 0, or -1 with a
 * one-line reason in err (a zero count). */
int devaddr_init(devaddr_geom *g, uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group, uint32_t columns,
                 uint32_t atom_bytes, char *err, size_t errlen);

/* Location -> device address (of the location's first byte). Fields must be
 * in range. */
static inline uint64_t devaddr_encode(const devaddr_geom *g, const devaddr_loc *l) {
  if (g->pow2)
    return (l->row << g->sh_row) | ((uint64_t)l->ra << g->sh_ra) | ((uint64_t)l->bg << g->sh_bg) |
           ((uint64_t)l->ba << g->sh_ba) | ((uint64_t)l->col << g->sh_col);
  return (((((l->row * g->ranks + l->ra) * g->bankgroups + l->bg) * g->banks + l->ba) * g->columns) + l->col) *
         (uint64_t)g->atom_bytes;
}

/* Device address -> location (the byte offset within the atom is dropped). */
static inline void devaddr_decode(const devaddr_geom *g, uint64_t a, devaddr_loc *l) {
  if (g->pow2) {
    l->col = (uint32_t)((a >> g->sh_col) & (g->columns - 1));
    l->ba = (uint32_t)((a >> g->sh_ba) & (g->banks - 1));
    l->bg = (uint32_t)((a >> g->sh_bg) & (g->bankgroups - 1));
    l->ra = (uint32_t)((a >> g->sh_ra) & (g->ranks - 1));
    l->row = a >> g->sh_row;
    return;
  }
  a /= g->atom_bytes;
  l->col = (uint32_t)(a % g->columns);
  a /= g->columns;
  l->ba = (uint32_t)(a % g->banks);
  a /= g->banks;
  l->bg = (uint32_t)(a % g->bankgroups);
  a /= g->bankgroups;
  l->ra = (uint32_t)(a % g->ranks);
  l->row = a / g->ranks;
}

#endif
