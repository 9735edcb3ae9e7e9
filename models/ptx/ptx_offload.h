/* Offload-candidate blocks of a PTX kernel (TOM, tom-ndp-offload-and-mapping.txt Sec. 3.1 and
 * 5.2; docs/offload_candidates.md "PTX kernels"): the static analysis the paper's tool runs on
 * PTX, here on the decoded form of the front end, once per kernel.
 *
 * Regions of the kernel's own body (instruction order): every outermost loop (a backward branch
 * spans one; overlapping spans merge) is a region, and so is every straight piece of code
 * between loops, cut at barriers, memory barriers, atomics, shared-memory accesses, exit/ret/trap
 * and device-function calls. A loop region that breaks a Sec. 3.1.4 limit is partitioned again
 * by its inner backward branches (its inner loops and the straight pieces between them become
 * regions too). Regions without a global load or store are not listed.
 *
 * Per region: global loads and stores (.global and generic ld/st; per iteration for loops),
 * live-in registers (read in the region before written there; liveness restricted to the
 * region, so a loop-carried value read at the top counts) and live-out registers (written in
 * the region and live, by liveness over the kernel's control-flow graph, where control leaves
 * it), in 4-byte registers (a 64-bit register counts 2, a predicate 1); a per-thread special
 * register the region reads (%tid, %ctaid, %laneid, ...) counts 1 live-in. Registers whose
 * every value is computed from kernel parameters, immediates, symbol addresses and launch
 * dimensions only (the constant bank of the SM) are neither. The Sec. 3.1.4 limits as
 * OFL_LIMIT_* bits, and the loop's trip-count kind from its exit condition (Sec. 3.1.3, the
 * tool's rule of Sec. 5.2). The decision itself is ofl_decide() on `ofl`. */
#ifndef STRATA_PTX_OFFLOAD_H
#define STRATA_PTX_OFFLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/offload.h"
#include "ptx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTX_OBLOCK_NONE 0xffffu /* pc_block of an instruction outside every listed block */
#define PTX_OBLOCK_MAX 65534u   /* blocks per kernel (the rest are not listed) */

typedef struct ptx_oblock {
  uint32_t pc_begin, pc_end;     /* first and last instruction (module index = ptx_winst.pc), inclusive */
  uint32_t line_begin, line_end; /* their PTX lines */
  uint32_t n_alu, n_sfu;         /* other instructions (informative; SFU, integer division and f64 as sfu) */
  uint8_t loop;                  /* 1: a loop region */
  ofl_block ofl;                 /* live_in, live_out, n_ld, n_st, trip, trips, limits */
} ptx_oblock;

typedef struct ptx_oblocks {
  ptx_oblock *b;
  unsigned n;
  uint32_t first_pc, npc; /* the kernel body's instructions */
  /* per instruction of the body (pc - first_pc): the innermost listed block holding it, or
   * PTX_OBLOCK_NONE; instructions of called functions are not in the table */
  uint16_t *pc_block;
} ptx_oblocks;

/* Analyse kernel k. Returns 0 and fills *out (free with ptx_oblocks_free), or -1 with a
 * one-line reason in err (out of memory). Blocks are ordered by first instruction, an
 * enclosing block before the blocks inside it. */
int ptx_offload_blocks(const ptx_kernel *k, ptx_oblocks *out, char *err, size_t errlen);
void ptx_oblocks_free(ptx_oblocks *o);

#ifdef __cplusplus
}
#endif
#endif
