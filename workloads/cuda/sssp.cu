// sssp: single-source shortest paths, push-style Bellman-Ford with atomicMin (the data-driven
// formulation of HMS's sssp_ttc/sssp_dtc, as in the LonestarGPU and GraphBIG GPU codes): every vertex
// whose distance fell in the last round relaxes its out-edges by atomicMin on the neighbours'
// distances; a second kernel finds the vertices that improved. The host relaunches until none did.
// The relaxations read the last round's distances (dist_prev) and update dist only by atomics, so no
// thread reads a word another thread of the same launch changes with a plain load.
// Usage: sssp [SCALE [EDGE_FACTOR [MAX_WEIGHT [SEED]]]]   (R-MAT, undirected, weights 1..MAX_WEIGHT)
#include <cuda_runtime.h>

#include "bench.h"

#define BLOCK 256
#define INF 0x3fffffff

__global__ void sssp_relax(const int* row_ptr, const int* col_idx, const int* weight, const int* dist_prev,
                           const char* active, int* dist, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || !active[v]) return;
  int d = dist_prev[v];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) atomicMin(&dist[col_idx[e]], d + weight[e]);
}

// A vertex whose distance fell becomes active for the next round.
__global__ void sssp_update(const int* dist, int* dist_prev, char* active, int* changed, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V) return;
  int d = dist[v];
  char a = d < dist_prev[v];
  active[v] = a;
  if (a) {
    dist_prev[v] = d;
    *changed = 1;
  }
}

static unsigned edge_weight(int u, int v, int max_weight, unsigned seed) {
  uint64_t s = ((uint64_t)(u < v ? u : v) << 32 | (unsigned)(u < v ? v : u)) ^ ((uint64_t)seed << 17);
  return 1 + (unsigned)(bench_next(&s) % (unsigned)max_weight);
}

int main(int argc, char** argv) {
  int scale = bench_arg(argc, argv, 1, 12, "SCALE");
  int ef = bench_arg(argc, argv, 2, 8, "EDGE_FACTOR");
  int maxw = bench_arg(argc, argv, 3, 64, "MAX_WEIGHT");
  int seed = bench_arg(argc, argv, 4, 1, "SEED");
  bench_graph g = bench_make_graph(scale, ef, 1, (uint64_t)seed);
  int V = g.V;
  int* w = (int*)bench_alloc((g.nnz ? g.nnz : 1) * sizeof(int));
  for (int v = 0; v < V; ++v)
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) w[e] = (int)edge_weight(v, g.col_idx[e], maxw, seed);
  int root = 0;
  while (root < V - 1 && g.row_ptr[root + 1] == g.row_ptr[root]) ++root;

  int* dist = (int*)bench_alloc(V * sizeof(int));
  char* active = (char*)bench_alloc(V);
  for (int v = 0; v < V; ++v) dist[v] = INF;
  dist[root] = 0;
  active[root] = 1;
  int *d_row, *d_col, *d_w, *d_dist, *d_prev, *d_changed;
  char* d_active;
  BENCH_CUDA(cudaMalloc(&d_row, (V + 1) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_col, g.nnz * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_w, g.nnz * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_dist, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_prev, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_changed, sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_active, V));
  cudaMemcpy(d_row, g.row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, g.col_idx, g.nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, w, g.nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_dist, dist, V * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_prev, dist, V * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_active, active, V, cudaMemcpyHostToDevice);

  int grid = (V + BLOCK - 1) / BLOCK, rounds = 0;
  for (int changed = 1; changed; ++rounds) {
    changed = 0;
    cudaMemcpy(d_changed, &changed, sizeof changed, cudaMemcpyHostToDevice);
    sssp_relax<<<grid, BLOCK>>>(d_row, d_col, d_w, d_prev, d_active, d_dist, V);
    sssp_update<<<grid, BLOCK>>>(d_dist, d_prev, d_active, d_changed, V);
    cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost);
  }
  BENCH_CUDA(cudaGetLastError());
  cudaMemcpy(dist, d_dist, V * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: Dijkstra with a binary heap of (distance, vertex), stale entries skipped
  int* want = (int*)bench_alloc(V * sizeof(int));
  uint64_t* heap = (uint64_t*)bench_alloc((g.nnz + 1) * sizeof(uint64_t));
  int n = 0;
  for (int v = 0; v < V; ++v) want[v] = INF;
  want[root] = 0;
  heap[n++] = (uint64_t)root;
  while (n) {
    uint64_t top = heap[0], last = heap[--n];
    int i = 0;
    for (;;) {  // sift the last entry down from the root
      int c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap[c + 1] < heap[c]) ++c;
      if (heap[c] >= last) break;
      heap[i] = heap[c], i = c;
    }
    if (n) heap[i] = last;
    int v = (int)(top & 0xffffffffu), d = (int)(top >> 32);
    if (d != want[v]) continue;
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) {
      int u = g.col_idx[e], nd = d + w[e];
      if (nd >= want[u]) continue;
      want[u] = nd;
      int j = n++;
      uint64_t x = (uint64_t)nd << 32 | (unsigned)u;
      while (j && heap[(j - 1) / 2] > x) heap[j] = heap[(j - 1) / 2], j = (j - 1) / 2;
      heap[j] = x;
    }
  }
  long long total = 0;
  int reached = 0;
  for (int v = 0; v < V; ++v) {
    if (dist[v] != want[v]) {
      printf("sssp: vertex %d at distance %d, expected %d\n", v, dist[v], want[v]);
      return 1;
    }
    if (want[v] < INF) ++reached, total += want[v];
  }
  printf("sssp: V %d, %d edges, root %d, %d reached, distance sum %lld, %d rounds: ok\n", V, g.nnz, root,
         reached, total, rounds);
  return 0;
}
