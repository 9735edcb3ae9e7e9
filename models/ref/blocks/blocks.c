/* blocks: the implementations of the swappable blocks, by name (blocks.h).
 *
 * Adding an implementation of a block = one file defining its `const X_ops`
 * plus ONE line in that block's list below: X(<symbol>, "<name>"). The string
 * must equal the ops' .name (test_blocks checks it); the config key
 * blocks.<block> then accepts it.
 */
#include "blocks.h"

#include <string.h>

#define BLOCKS_BYPASS_SCORERS X(bps_c_ops, "c")
#define BLOCKS_TAG_CACHES X(ctc_c_ops, "c")
#define BLOCKS_FLRBS X(flrb_c_ops, "c")

const memside_blocks memside_blocks_c = {&bps_c_ops, &ctc_c_ops, &flrb_c_ops};

#define X(sym, nm) &sym,
static const bps_ops *const bps_table[] = {BLOCKS_BYPASS_SCORERS};
static const ctc_ops *const ctc_table[] = {BLOCKS_TAG_CACHES};
static const flrb_ops *const flrb_table[] = {BLOCKS_FLRBS};
#undef X

/* ", name1, name2" built at compile time; the names() calls skip the leading ", ". */
#define X(sym, nm) ", " nm
static const char bps_name_list[] = "" BLOCKS_BYPASS_SCORERS;
static const char ctc_name_list[] = "" BLOCKS_TAG_CACHES;
static const char flrb_name_list[] = "" BLOCKS_FLRBS;
#undef X

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const bps_ops *blocks_bypass_scorer(const char *name) {
  for (size_t i = 0; name && i < COUNT(bps_table); ++i)
    if (strcmp(bps_table[i]->name, name) == 0) return bps_table[i];
  return NULL;
}

const ctc_ops *blocks_tag_cache(const char *name) {
  for (size_t i = 0; name && i < COUNT(ctc_table); ++i)
    if (strcmp(ctc_table[i]->name, name) == 0) return ctc_table[i];
  return NULL;
}

const flrb_ops *blocks_flrb(const char *name) {
  for (size_t i = 0; name && i < COUNT(flrb_table); ++i)
    if (strcmp(flrb_table[i]->name, name) == 0) return flrb_table[i];
  return NULL;
}

const char *blocks_bypass_scorer_names(void) { return bps_name_list + 2; }
const char *blocks_tag_cache_names(void) { return ctc_name_list + 2; }
const char *blocks_flrb_names(void) { return flrb_name_list + 2; }
