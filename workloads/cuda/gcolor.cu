// gcolor: graph colouring by Jones-Plassmann (Jones and Plassmann, "A parallel graph coloring
// heuristic", SIAM J. Sci. Comput. 1993; Pannotia's color_max and GraphBIG's gc, which HMS runs): every
// vertex has a distinct random priority; in round c each uncoloured vertex whose priority is larger
// than that of all its uncoloured neighbours takes colour c. color_max finds each uncoloured vertex's
// largest uncoloured-neighbour priority, color_assign colours the local maxima; the host repeats until
// no vertex is left uncoloured.
// Usage: gcolor [SCALE [EDGE_FACTOR [SEED]]]   (uniform random graph, undirected)
#include <cuda_runtime.h>

#include "bench.h"

#define BLOCK 256
#define NONE (-1)

__global__ void color_max(const int* row_ptr, const int* col_idx, const int* priority, const int* color,
                          int* max_nbr, int* uncoloured, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || color[v] != NONE) return;
  int m = 0;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col_idx[e];
    if (color[u] == NONE && priority[u] > m) m = priority[u];
  }
  max_nbr[v] = m;
  *uncoloured = 1;
}

__global__ void color_assign(const int* priority, const int* max_nbr, int* color, int c, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || color[v] != NONE) return;
  if (priority[v] > max_nbr[v]) color[v] = c;
}

int main(int argc, char** argv) {
  int scale = bench_arg(argc, argv, 1, 12, "SCALE");
  int ef = bench_arg(argc, argv, 2, 8, "EDGE_FACTOR");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  bench_graph g = bench_make_graph(scale, ef, 0, (uint64_t)seed);
  int V = g.V;
  // priorities: a seeded permutation of 1..V (Fisher-Yates)
  int* prio = (int*)bench_alloc(V * sizeof(int));
  int* color = (int*)bench_alloc(V * sizeof(int));
  uint64_t s = (uint64_t)seed * 7919;
  for (int v = 0; v < V; ++v) prio[v] = v + 1, color[v] = NONE;
  for (int v = V - 1; v > 0; --v) {
    int j = (int)bench_below(&s, (unsigned)v + 1), t = prio[v];
    prio[v] = prio[j], prio[j] = t;
  }
  int *d_row, *d_col, *d_prio, *d_color, *d_max, *d_unc;
  BENCH_CUDA(cudaMalloc(&d_row, (V + 1) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_col, g.nnz * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_prio, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_color, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_max, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_unc, sizeof(int)));
  cudaMemcpy(d_row, g.row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, g.col_idx, g.nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_prio, prio, V * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_color, color, V * sizeof(int), cudaMemcpyHostToDevice);

  int grid = (V + BLOCK - 1) / BLOCK, c = 0;
  for (;; ++c) {
    int unc = 0;
    cudaMemcpy(d_unc, &unc, sizeof unc, cudaMemcpyHostToDevice);
    color_max<<<grid, BLOCK>>>(d_row, d_col, d_prio, d_color, d_max, d_unc, V);
    cudaMemcpy(&unc, d_unc, sizeof unc, cudaMemcpyDeviceToHost);
    if (!unc) break;
    color_assign<<<grid, BLOCK>>>(d_prio, d_max, d_color, c, V);
  }
  BENCH_CUDA(cudaGetLastError());
  cudaMemcpy(color, d_color, V * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the same rounds; then the colouring must be proper
  int* want = (int*)bench_alloc(V * sizeof(int));
  int* mx = (int*)bench_alloc(V * sizeof(int));
  for (int v = 0; v < V; ++v) want[v] = NONE;
  int colours = 0;
  for (int r = 0;; ++r) {
    int unc = 0;
    for (int v = 0; v < V; ++v) {
      if (want[v] != NONE) continue;
      unc = 1, mx[v] = 0;
      for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
        if (want[g.col_idx[e]] == NONE && prio[g.col_idx[e]] > mx[v]) mx[v] = prio[g.col_idx[e]];
    }
    if (!unc) break;
    for (int v = 0; v < V; ++v)
      if (want[v] == NONE && prio[v] > mx[v]) want[v] = r;
    colours = r + 1;
  }
  for (int v = 0; v < V; ++v) {
    if (color[v] != want[v]) {
      printf("gcolor: vertex %d has colour %d, expected %d\n", v, color[v], want[v]);
      return 1;
    }
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (color[g.col_idx[e]] == color[v]) {
        printf("gcolor: vertices %d and %d share colour %d\n", v, g.col_idx[e], color[v]);
        return 1;
      }
  }
  if (c != colours) {
    printf("gcolor: %d colours, expected %d\n", c, colours);
    return 1;
  }
  printf("gcolor: V %d, %d edges, %d colours: ok\n", V, g.nnz, c);
  return 0;
}
