/* memside: the registry of memory-side controller policies and the helpers
 * they share (memside.h).
 *
 * Adding a policy = one file memside_<name>.c defining `const memside_ops
 * memside_<name>_ops` plus ONE line in MEMSIDE_POLICIES below:
 *     X(memside_<name>_ops, "<name>")
 * The string must equal the ops' .name (test_memside checks it).
 */
#include "memside.h"

#include <stdio.h>
#include <string.h>

#define MEMSIDE_POLICIES \
  X(memside_plain_ops, "plain") \
  X(memside_swap_ops, "swap") \
  X(memside_swap_forget_ops, "swap_forget") \
  X(memside_dcache_ops, "dcache") \
  X(memside_beari_ops, "beari") \
  X(memside_mccachei_ops, "mccachei") \
  X(memside_redcachei_ops, "redcachei")

#define X(sym, nm) extern const memside_ops sym;
MEMSIDE_POLICIES
#undef X

static const memside_ops *const memside_table[] = {
#define X(sym, nm) &sym,
    MEMSIDE_POLICIES
#undef X
};

static const char memside_name_list[] = ""
#define X(sym, nm) ", " nm
    MEMSIDE_POLICIES
#undef X
    ;

const memside_ops *memside_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof memside_table / sizeof memside_table[0]; ++i)
    if (strcmp(memside_table[i]->name, name) == 0) return memside_table[i];
  return NULL;
}

const char *memside_names(void) { return memside_name_list + 2; }
size_t memside_count(void) { return sizeof memside_table / sizeof memside_table[0]; }
const memside_ops *memside_at(size_t i) { return i < memside_count() ? memside_table[i] : NULL; }

int memside_check_map(const memside_cfg *cfg, char *err, size_t errlen) {
  /* A line is one device address range when its atoms are consecutive
   * columns of one row: the map's lowest column digit (with the byte offset)
   * spans a multiple of 128 B in every part. */
  const uint64_t chunk = amap_col_chunk_bytes(cfg->map);
  const uint64_t atom = cfg->map->atom_bytes;
  if (atom <= 128 && 128 % atom == 0 && chunk && chunk % 128 == 0) return 0;
  if (atom >= 128 && atom % 128 == 0) return 0; /* one atom holds whole lines */
  snprintf(err, errlen,
           "the address map splits a 128 B line over several rows or banks (lowest column chunk %llu B, atom %llu B); "
           "expected a layout whose first col field times off covers a multiple of 128 B, e.g. \"off:32 col:4 ...\"",
           (unsigned long long)chunk, (unsigned long long)atom);
  return -1;
}
