// pathfinder: minimum-cost path down a grid by dynamic programming (Rodinia's pathfinder, which HMS
// and the hybrid-graphics paper run): cost[r][c] = wall[r][c] + min(cost[r-1][c-1..c+1]). Each launch
// advances PYRAMID rows with the ghost-zone technique (Meng and Skadron, "Performance modeling and
// automatic ghost zone optimization for iterative stencil loops on GPUs", ICS 2009): a block loads
// BLOCK costs of the previous row, iterates PYRAMID rows in shared memory (double-buffered), the valid
// region shrinking by one column per row on each side, and stores the BLOCK - 2 PYRAMID middle costs.
// Usage: pathfinder [COLS [ROWS [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define BLOCK 256
#define PYRAMID 4
#define BIG 0x3fffffff

__global__ void pathfinder_step(const int* wall, const int* src, int* dst, int cols, int row0, int rows) {
  __shared__ int buf[2][BLOCK];
  int inner = BLOCK - 2 * PYRAMID;
  int c = blockIdx.x * inner - PYRAMID + (int)threadIdx.x;  // this thread's column
  int tx = threadIdx.x;
  buf[0][tx] = c >= 0 && c < cols ? src[c] : BIG;
  __syncthreads();
  int cur = 0;
  for (int i = 0; i < rows; ++i) {
    int r = row0 + i;
    int v = BIG;
    if (tx >= i + 1 && tx < BLOCK - i - 1 && c >= 0 && c < cols) {
      int m = buf[cur][tx];
      if (buf[cur][tx - 1] < m) m = buf[cur][tx - 1];
      if (buf[cur][tx + 1] < m) m = buf[cur][tx + 1];
      v = m + wall[r * cols + c];
    }
    buf[cur ^ 1][tx] = v;
    __syncthreads();
    cur ^= 1;
  }
  if (tx >= PYRAMID && tx < BLOCK - PYRAMID && c < cols) dst[c] = buf[cur][tx];
}

int main(int argc, char** argv) {
  int cols = bench_arg(argc, argv, 1, 100000, "COLS");
  int rows = bench_arg(argc, argv, 2, 100, "ROWS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  int* wall = (int*)bench_alloc((size_t)rows * cols * sizeof(int));
  for (size_t i = 0; i < (size_t)rows * cols; ++i) wall[i] = (int)bench_below(&s, 10);
  int *d_wall, *d_res[2];
  BENCH_CUDA(cudaMalloc(&d_wall, (size_t)rows * cols * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_res[0], cols * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_res[1], cols * sizeof(int)));
  cudaMemcpy(d_wall, wall, (size_t)rows * cols * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_res[0], wall, cols * sizeof(int), cudaMemcpyHostToDevice);  // row 0 costs its wall
  int inner = BLOCK - 2 * PYRAMID, grid = (cols + inner - 1) / inner, cur = 0, launches = 0;
  for (int r = 1; r < rows; r += PYRAMID, ++launches) {
    int n = rows - r < PYRAMID ? rows - r : PYRAMID;
    pathfinder_step<<<grid, BLOCK>>>(d_wall, d_res[cur], d_res[cur ^ 1], cols, r, n);
    cur ^= 1;
  }
  BENCH_CUDA(cudaGetLastError());
  int* got = (int*)bench_alloc(cols * sizeof(int));
  cudaMemcpy(got, d_res[cur], cols * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the same recurrence row by row
  int* a = (int*)bench_alloc(cols * sizeof(int));
  int* b = (int*)bench_alloc(cols * sizeof(int));
  memcpy(a, wall, cols * sizeof(int));
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int m = a[c];
      if (c > 0 && a[c - 1] < m) m = a[c - 1];
      if (c + 1 < cols && a[c + 1] < m) m = a[c + 1];
      b[c] = m + wall[(size_t)r * cols + c];
    }
    int* t = a;
    a = b, b = t;
  }
  int best = BIG;
  for (int c = 0; c < cols; ++c) {
    if (got[c] != a[c]) {
      printf("pathfinder: column %d costs %d, expected %d\n", c, got[c], a[c]);
      return 1;
    }
    if (a[c] < best) best = a[c];
  }
  printf("pathfinder: %d columns, %d rows, %d launches, minimum cost %d: ok\n", cols, rows, launches, best);
  return 0;
}
