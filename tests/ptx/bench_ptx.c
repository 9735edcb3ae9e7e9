#define _POSIX_C_SOURCE 199309L
/* Functional-only speed of the PTX executor (issue 22 item 8): warp instructions per host
 * second on the compute-bound kernel `compute` of tests/ptx/kernels.cu.
 * Usage: bench_ptx [KERNELS.ptx] [CTAS] [ITERS]   (defaults: the build's kernels.ptx, 64, 4000) */
#include <time.h>

#include "ptx_harness.h"

int main(int argc, char **argv) {
#ifdef PTX_KERNELS
  const char *path = argc > 1 ? argv[1] : PTX_KERNELS;
#else
  if (argc < 2) {
    fprintf(stderr, "usage: bench_ptx KERNELS.ptx [CTAS] [ITERS]\n");
    return 2;
  }
  const char *path = argv[1];
#endif
  unsigned ctas = argc > 2 ? (unsigned)atoi(argv[2]) : 64, iters = argc > 3 ? (unsigned)atoi(argv[3]) : 4000;
  size_t n;
  char *t = read_file(path, &n);
  if (!t) {
    fprintf(stderr, "bench_ptx: cannot read %s\n", path);
    return 2;
  }
  ptx_module *m;
  char err[400];
  if (ptx_parse(t, n, path, &m, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  free(t);
  hm_reset();
  hm_place_module(m);
  uint64_t out = hm_alloc((size_t)ctas * 256 * 4);
  uint64_t args[] = {out, iters};
  uint32_t grid[3] = {ctas, 1, 1}, block[3] = {256, 1, 1};
  struct timespec a, b;
  uint64_t insts = 0;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (hm_launch(m, "compute", grid, block, 0, 2, args, &insts, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  printf("compute: %u CTAs x 256 threads, %u iterations: %llu warp instructions in %.3f s = %.1f M warp instructions/s\n", ctas,
         iters, (unsigned long long)insts, s, (double)insts / s * 1e-6);
  ptx_free(m);
  free(g_hm.mem);
  return 0;
}
