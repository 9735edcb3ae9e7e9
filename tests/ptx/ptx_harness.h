/* Test harness of the PTX front end: a flat simulated global memory behind ptx_mem_ops, a bump
 * allocator, and a launcher that fills the parameter buffer from the kernel's own layout.
 * Shared by tests/ptx/test_ptx.c and bench_ptx.c. */
#ifndef STRATA_TESTS_PTX_HARNESS_H
#define STRATA_TESTS_PTX_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

#define HM_BASE 0x100000ull
#define HM_SIZE (64u << 20)

typedef struct hmem {
  uint8_t *mem;
  uint64_t next;
  unsigned loads, stores, atomics;
} hmem;

static hmem g_hm;

static int hm_load(void *ctx, ptx_space sp, uint64_t a, void *dst, unsigned n) {
  hmem *h = ctx;
  (void)sp;
  if (a < HM_BASE || a + n > HM_BASE + HM_SIZE) return 1;
  memcpy(dst, h->mem + (a - HM_BASE), n);
  h->loads++;
  return 0;
}

static int hm_store(void *ctx, uint64_t a, const void *src, unsigned n) {
  hmem *h = ctx;
  if (a < HM_BASE || a + n > HM_BASE + HM_SIZE) return 1;
  memcpy(h->mem + (a - HM_BASE), src, n);
  h->stores++;
  return 0;
}

/* ptx_launch.map: 4 KiB pages of the flat memory (when g_hm_map is set) */
static int g_hm_map;
static unsigned g_hm_maps;
static uint8_t *hm_map(void *ctx, ptx_space sp, uint64_t a, uint64_t *base, uint64_t *len) {
  hmem *h = ctx;
  (void)sp;
  if (a < HM_BASE || a >= HM_BASE + HM_SIZE) return NULL;
  g_hm_maps++;
  *base = a & ~(uint64_t)4095;
  *len = 4096;
  return h->mem + (*base - HM_BASE);
}

static void hm_reset(void) {
  if (!g_hm.mem) g_hm.mem = malloc(HM_SIZE);
  memset(g_hm.mem, 0, HM_SIZE);
  g_hm.next = HM_BASE + 0x1000;
  g_hm.loads = g_hm.stores = g_hm.atomics = 0;
}

static uint64_t hm_alloc(size_t bytes) {
  uint64_t a = g_hm.next;
  g_hm.next += (bytes + 255) & ~(uint64_t)255;
  if (g_hm.next > HM_BASE + HM_SIZE) abort();
  return a;
}

static void *hm_ptr(uint64_t a) { return g_hm.mem + (a - HM_BASE); }

static ptx_mem_ops hm_ops(void) {
  ptx_mem_ops o;
  memset(&o, 0, sizeof o);
  o.ctx = &g_hm;
  o.load = hm_load;
  o.store = hm_store;
  return o;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) b[n] = 0;
  *len = (size_t)n;
  return b;
}

/* Place the module's global and const segments in the simulated memory. */
static void hm_place_module(ptx_module *m) {
  for (int s = 0; s < 2; ++s) {
    ptx_space sp = s ? PTX_SPACE_CONST : PTX_SPACE_GLOBAL;
    ptx_segment seg = ptx_module_segment(m, sp);
    uint64_t a = hm_alloc(seg.size ? seg.size : 1);
    ptx_module_set_base(m, sp, a);
    if (seg.init_bytes) memcpy(hm_ptr(a), seg.image, seg.init_bytes);
  }
}

/* kernel printf text of the launches (ptx_launch.print), for tests to compare */
static char g_hm_out[8192];
static size_t g_hm_out_len;
static void hm_print(void *ctx, const char *s, size_t n) {
  (void)ctx;
  if (g_hm_out_len + n < sizeof g_hm_out) {
    memcpy(g_hm_out + g_hm_out_len, s, n);
    g_hm_out_len += n;
    g_hm_out[g_hm_out_len] = 0;
  }
}

/* Launch `kernel` with args[i] written into parameter i (its size, little endian). Returns 0, or
 * -1 with err filled. */
static int hm_launch(const ptx_module *m, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn,
                     unsigned nargs, const uint64_t *args, uint64_t *insts, char *err, size_t errlen) {
  const ptx_kernel *k = ptx_kernel_find(m, kernel, err, errlen);
  if (!k) return -1;
  ptx_kernel_info ki = ptx_kernel_get_info(k);
  if (nargs != ki.nparams) {
    snprintf(err, errlen, "kernel %s takes %u parameters, given %u", kernel, ki.nparams, nargs);
    return -1;
  }
  uint8_t pb[4096];
  memset(pb, 0, sizeof pb);
  for (unsigned i = 0; i < nargs; ++i) {
    ptx_param_info pi = ptx_kernel_param(k, i);
    for (unsigned b = 0; b < pi.size && b < 8; ++b) pb[pi.offset + b] = (uint8_t)(args[i] >> (8 * b));
  }
  ptx_launch l;
  memset(&l, 0, sizeof l);
  l.kernel = k;
  memcpy(l.grid, grid, sizeof l.grid);
  memcpy(l.block, block, sizeof l.block);
  l.params = pb;
  l.params_size = ki.param_bytes;
  l.dyn_shared = dyn;
  l.mem = hm_ops();
  if (g_hm_map) l.map = hm_map;
  l.print = hm_print;
  return ptx_grid_run(&l, insts, err, errlen);
}

#endif
