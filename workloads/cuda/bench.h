// Host-side helpers shared by Strata's benchmark programs (workloads/cuda/*.cu): a seeded random
// generator, the R-MAT and uniform graph generators (CSR, undirected, no self-loops, no duplicate
// edges), argument parsing and the one-line verdict. Host code only; each program's kernels are in its
// own .cu file (no separate compilation of device code).
#ifndef STRATA_BENCH_H
#define STRATA_BENCH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", OOPSLA 2014).
static inline uint64_t bench_next(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline double bench_unit(uint64_t* s) { return (double)(bench_next(s) >> 11) * (1.0 / 9007199254740992.0); }
static inline float bench_unitf(uint64_t* s) { return (float)bench_unit(s); }
static inline unsigned bench_below(uint64_t* s, unsigned n) { return (unsigned)(bench_next(s) % n); }

// argv[i] as a positive integer, or `def` when absent; anything else is a one-line error, exit 2.
static inline int bench_arg(int argc, char** argv, int i, int def, const char* name) {
  if (argc <= i) return def;
  char* end;
  long v = strtol(argv[i], &end, 10);
  if (*end || v <= 0 || v > 1 << 30) {
    fprintf(stderr, "%s: argument %d (%s) must be a positive integer, got '%s'\n", argv[0], i, name, argv[i]);
    exit(2);
  }
  return (int)v;
}

static inline void* bench_alloc(size_t bytes) {
  void* p = calloc(1, bytes ? bytes : 1);
  if (!p) fprintf(stderr, "out of host memory (%zu bytes)\n", bytes), exit(2);
  return p;
}

// A CUDA call that fails ends the program with one line naming it (exit 1).
#define BENCH_CUDA(call)                                                                      \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));           \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

// Graph in CSR: row_ptr (V+1), col_idx (nnz).
typedef struct {
  int V, nnz;
  int* row_ptr;
  int* col_idx;
} bench_graph;

static int bench_cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

// R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004) with a = 0.57, b = c = 0.19, d = 0.05 (Graph500's
// parameters) when rmat != 0, otherwise uniform endpoints: V = 2^scale vertices, edge_factor V edges
// drawn, each made undirected; self-loops and duplicates dropped; vertex ids scrambled by a seeded
// multiplicative hash so that the high-degree vertices are spread over the id range.
static inline bench_graph bench_make_graph(int scale, int edge_factor, int rmat, uint64_t seed) {
  bench_graph g;
  g.V = 1 << scale;
  size_t m = (size_t)edge_factor * g.V;
  uint64_t* e = (uint64_t*)bench_alloc(2 * m * sizeof(uint64_t));
  uint64_t s = seed;
  uint64_t mul = (bench_next(&s) | 1) & (((uint64_t)1 << scale) - 1);
  if (mul == 0) mul = 1;
  uint64_t add = bench_next(&s);
  size_t k = 0;
  for (size_t i = 0; i < m; ++i) {
    uint64_t u = 0, v = 0;
    if (rmat) {
      for (int b = 0; b < scale; ++b) {
        double r = bench_unit(&s);
        int ub = r >= 0.57 + 0.19, vb = (r >= 0.57 && r < 0.76) || r >= 0.95;
        u = (u << 1) | (uint64_t)ub;
        v = (v << 1) | (uint64_t)vb;
      }
    } else {
      u = bench_below(&s, g.V);
      v = bench_below(&s, g.V);
    }
    uint64_t mask = (uint64_t)g.V - 1;
    u = (u * mul + add) & mask;  // mul is odd: a permutation of 0..V-1
    v = (v * mul + add) & mask;
    if (u == v) continue;
    e[k++] = u << 32 | v;
    e[k++] = v << 32 | u;
  }
  qsort(e, k, sizeof *e, bench_cmp_u64);
  g.row_ptr = (int*)bench_alloc((g.V + 1) * sizeof(int));
  g.col_idx = (int*)bench_alloc((k ? k : 1) * sizeof(int));
  g.nnz = 0;
  for (size_t i = 0; i < k; ++i) {
    if (i && e[i] == e[i - 1]) continue;
    g.row_ptr[(e[i] >> 32) + 1]++;
    g.col_idx[g.nnz++] = (int)(e[i] & 0xffffffffu);
  }
  for (int v = 0; v < g.V; ++v) g.row_ptr[v + 1] += g.row_ptr[v];
  free(e);
  return g;
}

// Relative-or-absolute float comparison for the self-checks.
static inline int bench_close(double got, double want, double tol) {
  double d = fabs(got - want), m = fabs(want);
  return d <= tol || d <= tol * m;
}

#endif
