/* devaddr: device location <-> channel-local device address (devaddr.h). */
#include "devaddr.h"

#include <stdio.h>

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }
static uint8_t log2u(uint64_t v) {
  uint8_t s = 0;
  while ((1ull << s) < v) ++s;
  return s;
}

int devaddr_init(devaddr_geom *g, uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group, uint32_t columns,
                 uint32_t atom_bytes, char *err, size_t errlen) {
  if (!ranks || !bankgroups || !banks_per_group || !columns || !atom_bytes) {
    snprintf(err, errlen, "device geometry with a zero count (ranks %u, bank groups %u, banks %u, columns %u, atom %u B)",
             ranks, bankgroups, banks_per_group, columns, atom_bytes);
    return -1;
  }
  g->ranks = ranks;
  g->bankgroups = bankgroups;
  g->banks = banks_per_group;
  g->columns = columns;
  g->atom_bytes = atom_bytes;
  g->row_span = (uint64_t)ranks * bankgroups * banks_per_group * columns * atom_bytes;
  g->pow2 = (uint8_t)(is_pow2(ranks) && is_pow2(bankgroups) && is_pow2(banks_per_group) && is_pow2(columns) &&
                      is_pow2(atom_bytes));
  g->sh_col = log2u(atom_bytes);
  g->sh_ba = (uint8_t)(g->sh_col + log2u(columns));
  g->sh_bg = (uint8_t)(g->sh_ba + log2u(banks_per_group));
  g->sh_ra = (uint8_t)(g->sh_bg + log2u(bankgroups));
  g->sh_row = (uint8_t)(g->sh_ra + log2u(ranks));
  return 0;
}
