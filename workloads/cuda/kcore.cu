// kcore: the k-core of a graph by iterative peeling (Batagelj and Zaversnik, "An O(m) algorithm for
// cores decomposition of networks", 2003; GraphBIG's kcore, which HMS runs): in round t every vertex
// still in the graph with fewer than K neighbours left is removed (kcore_mark), and each removed vertex
// decrements its neighbours' degrees by atomicSub (kcore_push). The host repeats until a round removes
// nothing; what is left is the K-core. Degrees are read with plain loads only by kcore_mark and updated
// only by atomics in kcore_push, so no launch reads words it changes atomically.
// Usage: kcore [SCALE [EDGE_FACTOR [K [SEED]]]]   (R-MAT, undirected)
#include <cuda_runtime.h>

#include "bench.h"

#define BLOCK 256

// state[v]: 0 while v is in the graph, t when v was removed in round t.
__global__ void kcore_mark(const int* deg, int* state, int k, int round, int* removed, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || state[v] || deg[v] >= k) return;
  state[v] = round;
  *removed = 1;
}

__global__ void kcore_push(const int* row_ptr, const int* col_idx, const int* state, int* deg, int round,
                           int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || state[v] != round) return;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) atomicSub(&deg[col_idx[e]], 1);
}

int main(int argc, char** argv) {
  int scale = bench_arg(argc, argv, 1, 12, "SCALE");
  int ef = bench_arg(argc, argv, 2, 8, "EDGE_FACTOR");
  int k = bench_arg(argc, argv, 3, 16, "K");
  int seed = bench_arg(argc, argv, 4, 1, "SEED");
  bench_graph g = bench_make_graph(scale, ef, 1, (uint64_t)seed);
  int V = g.V;
  int* deg = (int*)bench_alloc(V * sizeof(int));
  for (int v = 0; v < V; ++v) deg[v] = g.row_ptr[v + 1] - g.row_ptr[v];
  int *d_row, *d_col, *d_deg, *d_state, *d_removed;
  BENCH_CUDA(cudaMalloc(&d_row, (V + 1) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_col, g.nnz * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_deg, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_state, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_removed, sizeof(int)));
  cudaMemcpy(d_row, g.row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, g.col_idx, g.nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_deg, deg, V * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_state, 0, V * sizeof(int));

  int grid = (V + BLOCK - 1) / BLOCK, round = 1;
  for (;; ++round) {
    int removed = 0;
    cudaMemcpy(d_removed, &removed, sizeof removed, cudaMemcpyHostToDevice);
    kcore_mark<<<grid, BLOCK>>>(d_deg, d_state, k, round, d_removed, V);
    cudaMemcpy(&removed, d_removed, sizeof removed, cudaMemcpyDeviceToHost);
    if (!removed) break;
    kcore_push<<<grid, BLOCK>>>(d_row, d_col, d_state, d_deg, round, V);
  }
  BENCH_CUDA(cudaGetLastError());
  int* state = (int*)bench_alloc(V * sizeof(int));
  int* gdeg = (int*)bench_alloc(V * sizeof(int));
  cudaMemcpy(state, d_state, V * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(gdeg, d_deg, V * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the same synchronous peeling, round by round
  int* want = (int*)bench_alloc(V * sizeof(int));
  int want_rounds = 1;
  for (int t = 1;; ++t, ++want_rounds) {
    int any = 0;
    for (int v = 0; v < V; ++v)
      if (!want[v] && deg[v] < k) want[v] = t, any = 1;
    if (!any) break;
    for (int v = 0; v < V; ++v)
      if (want[v] == t)
        for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) --deg[g.col_idx[e]];
  }
  int core = 0;
  for (int v = 0; v < V; ++v) {
    if (state[v] != want[v] || (!want[v] && gdeg[v] != deg[v])) {
      printf("kcore: vertex %d removed in round %d with degree %d, expected round %d degree %d\n", v, state[v],
             gdeg[v], want[v], deg[v]);
      return 1;
    }
    core += !want[v];
  }
  if (round != want_rounds) {
    printf("kcore: %d rounds, expected %d\n", round, want_rounds);
    return 1;
  }
  printf("kcore: V %d, %d edges, k %d, %d vertices in the core, %d rounds: ok\n", V, g.nnz, k, core, round);
  return 0;
}
