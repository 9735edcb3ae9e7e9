/* Set-ups shared by the memory-side policy unit tests (test_memside_dcache.c,
 * test_memside_mgr.c, test_memside_hostpage.c, test_blocks.c): the 8-channel
 * test map, a partition's devices (channels of the hbm2 geometry, the host
 * device as the platform adds it), the HMS partition of the DRAM-cache tests,
 * a policy's parameter block from its family's defaults, a policy's state
 * initialised (or refused) against an env of the fake shell
 * (memside_fake_shell.h), and the GPU-wide manager over a block of its own.
 * A set-up that fails is a cmocka failure. */
#ifndef STRATA_TEST_MEMSIDE_TEST_ENV_H
#define STRATA_TEST_MEMSIDE_TEST_ENV_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memside/memside.h"
#include "memside/memside_dcache_params.h"
#include "memside/memside_mgr.h"
#include "memside_fake_shell.h"

/* m: 8 channels of one rank of 4 bank groups x 4 banks with 2 KiB rows, lines interleaved over the
 * channels (2 L2 slices per channel, hashed). Returns 0, or -1 (a group set-up's result). */
static inline int mst_map_init(amap *m) {
  char err[256];
  return amap_init(m, "off:32 col:4 ch:8 bg:4 col:16 ba:4 row", 8, 1, 4, 4, 2048, 2, 1, err, sizeof err);
}

/* Device d of c: channel `channel`, `ranks` ranks of the hbm2 geometry (4 bank groups x 4 banks, rows
 * of 64 columns of 32 B). */
static inline void mst_hbm2_device(memside_cfg *c, uint32_t d, uint32_t channel, uint32_t ranks) {
  char err[256];
  c->dev_channel[d] = channel;
  if (devaddr_init(&c->geom[d], ranks, 4, 4, 64, 32, err, sizeof err) != 0) fail_msg("devaddr_init: %s", err);
}

/* c, zeroed: partition p of map with one device, channel p of `ranks` ranks (mst_hbm2_device), rank 0
 * DRAM; the other ranks' kinds, parameters and manager are the caller's. */
static inline void mst_partition(memside_cfg *c, const amap *map, uint32_t p, uint32_t ranks) {
  memset(c, 0, sizeof *c);
  c->map = map;
  c->partition = p;
  c->ndevs = 1;
  mst_hbm2_device(c, 0, p, ranks);
  c->rank_kind[0][0] = AMAP_MEM_DRAM;
}

/* The host device after c's devices as the platform adds it (add_host_device, platform/module_cfg.cpp):
 * no channel, kind host on every rank, `bytes` of host memory. */
static inline void mst_add_host(memside_cfg *c, uint64_t bytes) {
  assert_true(c->ndevs < MEMSIDE_MAX_DEVS);
  const uint32_t h = c->ndevs++;
  c->dev_channel[h] = UINT32_MAX;
  c->dev_bytes[h] = bytes;
  for (unsigned r = 0; r < AMAP_MAX_RANKS; ++r) c->rank_kind[h][r] = AMAP_MEM_HOST;
}

/* pv (room for n values): the default of every parameter of fam. */
static inline void mst_param_defaults(const memside_params *fam, memside_value *pv, unsigned n) {
  assert_true(fam->count <= n);
  assert_int_equal(memside_param_defaults(fam, pv), -1);
}

/* Parameter `name` of fam (as declared: "size", "=l2.ctc_ways", ...) in pv set to x. */
static inline void mst_set_param(const memside_params *fam, memside_value *pv, const char *name, int64_t x) {
  const int k = memside_param_index(fam, name);
  if (k < 0) fail_msg("no parameter %s%s", fam->prefix, name);
  pv[k].i = x;
}

/* The HMS partition of the DRAM-cache tests: map, 8 channels of two ranks, an SCM part on rank 1 (1 GiB)
 * and a DRAM part on rank 0 (256 MiB), lines interleaved over the channels; c, partition 0 of 8: one
 * device (channel 0) with rank 0 DRAM at hbm2's tRCD/tWR (14, 16 cycles) and rank 1 SCM at scm_mlc's
 * (120, 1000); pv (room for n values), c's parameters: the DRAM-cache family's defaults with a cache of
 * one 2 KiB row per bank (16 rows: 16 x 7 = 112 lines of 256 B under AMIL) and 4 MSHRs. Returns 0, or
 * -1 (a group set-up's result). */
static inline int mst_hms_partition(amap *map, memside_cfg *c, memside_value *pv, unsigned n) {
  static const uint32_t ch[8] = {0, 1, 2, 3, 4, 5, 6, 7}, r0[1] = {0}, r1[1] = {1};
  const amap_part_cfg p[2] = {{AMAP_MEM_SCM, 1ull << 30, 8, 1, ch, r1}, {AMAP_MEM_DRAM, 1ull << 28, 8, 1, ch, r0}};
  char err[256];
  if (amap_init_parts(map, p, 2, 0, NULL, 8, 2, 4, 4, 2048, 32, 2, 0, err, sizeof err) != 0) return -1;
  mst_partition(c, map, 0, 2);
  c->rank_kind[0][1] = AMAP_MEM_SCM;
  c->rank_trcd[0][0] = 14, c->rank_twr[0][0] = 16;    /* hbm2 */
  c->rank_trcd[0][1] = 120, c->rank_twr[0][1] = 1000; /* scm_mlc */
  c->sys.nparts = 8;
  mst_param_defaults(&memside_dcache_params, pv, n);
  c->param = pv;
  mst_set_param(&memside_dcache_params, pv, "size", 16 * 2048);
  mst_set_param(&memside_dcache_params, pv, "mshrs", 4);
  return 0;
}

/* An env whose transfers and releases fake shell f records (ctx f). */
static inline memside_env mst_fake_env(fake_shell *f) {
  return (memside_env){.ctx = f, .issue = fake_issue, .release = fake_release};
}

/* o's state for c, zeroed; free() it. */
static inline void *mst_state(const memside_ops *o, const memside_cfg *c) {
  void *st = calloc(1, o->state_bytes(c));
  assert_non_null(st);
  return st;
}

/* o->init on st must accept c (env stays valid for the state's life). */
static inline void mst_init(const memside_ops *o, void *st, const memside_cfg *c, const memside_env *env) {
  char err[256] = "";
  if (o->init(st, c, env, err, sizeof err) != 0) fail_msg("%s: init refused: %s", o->name, err);
}

/* o->init on st must refuse c, with a reason naming `key` (NULL: any reason). */
static inline void mst_init_refused(const memside_ops *o, void *st, const memside_cfg *c, const memside_env *env,
                                    const char *key) {
  char err[256] = "";
  assert_int_equal(o->init(st, c, env, err, sizeof err), -1);
  if (key && !strstr(err, key)) fail_msg("%s: refused with \"%s\", expected %s named", o->name, err, key);
}

/* o's state for c, initialised against env (mst_init); free() it. */
static inline void *mst_policy(const memside_ops *o, const memside_cfg *c, const memside_env *env) {
  void *st = mst_state(o, c);
  mst_init(o, st, c, env);
  return st;
}

/* m: a manager of c over a zeroed block of its own (at least 8 B: without page counters it needs none);
 * returns the block, free() it after m. */
static inline void *mst_mgr(memside_mgr *m, const memside_mgr_cfg *c) {
  void *mem = calloc(1, memside_mgr_bytes(c) + 8);
  assert_non_null(mem);
  char err[200];
  if (memside_mgr_init(m, c, mem, err, sizeof err) != 0) fail_msg("memside_mgr_init: %s", err);
  return mem;
}

/* Physical line (offset 0 of its 256 B block) of SCM blocks 0..n-1 of partition 0 of the DRAM-cache
 * tests' map (one SCM rank: block = ((row x 4 + bank group) x 4 + bank) x 8 + column / 8), found by
 * locating every line of the first 64 MiB statically. */
static inline void mst_scm_block_lines(const amap *map, const memside_cfg *c, uint64_t *pa, unsigned n) {
  for (unsigned i = 0; i < n; ++i) pa[i] = UINT64_MAX;
  memside_target t;
  for (uint64_t p = 0; p < (64u << 20); p += 128) {
    if (amap_channel(map, p) != 0) continue;
    memside_static_locate(c, p, &t);
    devaddr_loc a;
    devaddr_decode(&c->geom[0], t.addr, &a);
    const uint64_t b = ((a.row * 4 + a.bg) * 4 + a.ba) * 8 + a.col / 8;
    if (b < n && t.addr % 256 == 0) pa[b] = p;
  }
  for (unsigned i = 0; i < n; ++i) assert_true(pa[i] != UINT64_MAX);
}

#endif
