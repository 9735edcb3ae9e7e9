// bfs: top-down breadth-first search with frontier flags, one thread per vertex (the formulation of
// Harish and Narayanan, "Accelerating large graph algorithms on the GPU using CUDA", HiPC 2007, which
// Rodinia's bfs follows): expand visits the neighbours of every frontier vertex, commit turns the
// vertices found into the next frontier; the host relaunches both until no vertex was found.
// HMS (docs/hms.md) runs bfs on R-MAT graphs.
// Usage: bfs [SCALE [EDGE_FACTOR [SEED]]]   (V = 2^SCALE vertices, R-MAT, undirected)
#include <cuda_runtime.h>

#include "bench.h"

#define BLOCK 256

// Every vertex of the frontier marks its unvisited neighbours as found at level+1. A neighbour found by
// several frontier vertices gets the same level from each of them.
__global__ void bfs_expand(const int* row_ptr, const int* col_idx, char* frontier, char* found,
                           const char* visited, int* level, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || !frontier[v]) return;
  frontier[v] = 0;
  int next = level[v] + 1;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col_idx[e];
    if (!visited[u]) {
      level[u] = next;
      found[u] = 1;
    }
  }
}

// The vertices found become the frontier and are visited; any of them sets *more.
__global__ void bfs_commit(char* frontier, char* found, char* visited, int* more, int V) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= V || !found[v]) return;
  frontier[v] = 1;
  visited[v] = 1;
  found[v] = 0;
  *more = 1;
}

int main(int argc, char** argv) {
  int scale = bench_arg(argc, argv, 1, 12, "SCALE");
  int ef = bench_arg(argc, argv, 2, 8, "EDGE_FACTOR");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  bench_graph g = bench_make_graph(scale, ef, 1, (uint64_t)seed);
  int V = g.V;
  // the root: the first vertex with an edge
  int root = 0;
  while (root < V - 1 && g.row_ptr[root + 1] == g.row_ptr[root]) ++root;

  int* level = (int*)bench_alloc(V * sizeof(int));
  char* flags = (char*)bench_alloc(V);
  for (int v = 0; v < V; ++v) level[v] = -1;
  level[root] = 0;
  flags[root] = 1;

  int *d_row, *d_col, *d_level, *d_more;
  char *d_frontier, *d_found, *d_visited;
  BENCH_CUDA(cudaMalloc(&d_row, (V + 1) * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_col, g.nnz * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_level, V * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_more, sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_frontier, V));
  BENCH_CUDA(cudaMalloc(&d_found, V));
  BENCH_CUDA(cudaMalloc(&d_visited, V));
  cudaMemcpy(d_row, g.row_ptr, (V + 1) * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_col, g.col_idx, g.nnz * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_level, level, V * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_frontier, flags, V, cudaMemcpyHostToDevice);
  cudaMemcpy(d_visited, flags, V, cudaMemcpyHostToDevice);
  cudaMemset(d_found, 0, V);

  int grid = (V + BLOCK - 1) / BLOCK, rounds = 0;
  for (int more = 1; more; ++rounds) {
    more = 0;
    cudaMemcpy(d_more, &more, sizeof more, cudaMemcpyHostToDevice);
    bfs_expand<<<grid, BLOCK>>>(d_row, d_col, d_frontier, d_found, d_visited, d_level, V);
    bfs_commit<<<grid, BLOCK>>>(d_frontier, d_found, d_visited, d_more, V);
    cudaMemcpy(&more, d_more, sizeof more, cudaMemcpyDeviceToHost);
  }
  BENCH_CUDA(cudaGetLastError());
  cudaMemcpy(level, d_level, V * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: a queue-based breadth-first search from the same root
  int* want = (int*)bench_alloc(V * sizeof(int));
  int* queue = (int*)bench_alloc(V * sizeof(int));
  for (int v = 0; v < V; ++v) want[v] = -1;
  int head = 0, tail = 0, reached = 0, depth = 0;
  want[root] = 0;
  queue[tail++] = root;
  while (head < tail) {
    int v = queue[head++];
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (want[g.col_idx[e]] < 0) want[g.col_idx[e]] = want[v] + 1, queue[tail++] = g.col_idx[e];
  }
  for (int v = 0; v < V; ++v) {
    if (level[v] != want[v]) {
      printf("bfs: vertex %d at level %d, expected %d\n", v, level[v], want[v]);
      return 1;
    }
    reached += want[v] >= 0;
    if (want[v] > depth) depth = want[v];
  }
  printf("bfs: V %d, %d edges, root %d, %d reached, depth %d, %d rounds: ok\n", V, g.nnz, root, reached,
         depth, rounds);
  return 0;
}
