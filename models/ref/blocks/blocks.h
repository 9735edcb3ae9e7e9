/* blocks: the registry of the swappable hardware blocks the memory-side
 * policies call -- the bypass scorer (bps.h, bps_ops), the Configurable Tag
 * Cache (ctc.h, ctc_ops) and the FLRB engine (flrb.h, flrb_ops). Each block
 * is a contract (its ops table) with implementations registered by name;
 * the C reference of each is "c". Another implementation of the same
 * contract (the block's Verilated RTL for co-simulation, issue 29; a
 * test's double) registers one line in its list in blocks.c and is then
 * chosen by config: blocks.bypass_scorer, blocks.tag_cache, blocks.flrb.
 *
 * A policy holds an implementation as `const X_ops *` plus its state block
 * (state_bytes of it, inside the policy's own state: no allocation per
 * request); it gets the choice through memside_cfg.blocks.
 */
#ifndef STRATA_BLOCKS_H
#define STRATA_BLOCKS_H
#include <stddef.h>

#include "bps.h"
#include "ctc.h"
#include "flrb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The implementations a memory side uses (memside_cfg.blocks). */
typedef struct memside_blocks {
  const bps_ops *bypass_scorer;
  const ctc_ops *tag_cache;
  const flrb_ops *flrb;
} memside_blocks;

/* Every block's C reference. */
extern const memside_blocks memside_blocks_c;

/* An implementation by name, or NULL; comma-separated names of all (for errors and the config schema). */
const bps_ops *blocks_bypass_scorer(const char *name);
const char *blocks_bypass_scorer_names(void);
const ctc_ops *blocks_tag_cache(const char *name);
const char *blocks_tag_cache_names(void);
const flrb_ops *blocks_flrb(const char *name);
const char *blocks_flrb_names(void);

#ifdef __cplusplus
}
#endif
#endif
