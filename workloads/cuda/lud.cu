// lud: in-place LU decomposition without pivoting of a diagonally dominant N x N matrix (Doolittle form: L
// unit lower triangular below the diagonal, U on and above it), the problem of Rodinia's lud (the hybrid
// graphics memory paper's LUD). Right-looking, one elimination step per pair of launches: lud_column divides
// column k below the diagonal by the pivot a[k][k]; lud_update subtracts the outer product of that column and
// row k from the trailing submatrix, one thread per element in 16 x 16 blocks, the block's slices of column k
// and row k staged in shared memory.
// Usage: lud [N [SEED]]
#include <cuda_runtime.h>

#include "bench.h"

#define TILE 16

__global__ void lud_column(float* a, int n, int k) {
  const int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[(size_t)i * n + k] /= a[(size_t)k * n + k];
}

__global__ void lud_update(float* a, int n, int k) {
  __shared__ float col[TILE], row[TILE];
  const int i = k + 1 + blockIdx.y * TILE + threadIdx.y;
  const int j = k + 1 + blockIdx.x * TILE + threadIdx.x;
  if (threadIdx.x == 0 && i < n) col[threadIdx.y] = a[(size_t)i * n + k];
  if (threadIdx.y == 0 && j < n) row[threadIdx.x] = a[(size_t)k * n + j];
  __syncthreads();
  if (i < n && j < n) a[(size_t)i * n + j] -= col[threadIdx.y] * row[threadIdx.x];
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 256, "N");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  const size_t nn = (size_t)n * n;
  float* a = (float*)bench_alloc(nn * sizeof(float));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a[(size_t)i * n + j] = bench_unitf(&s) + (i == j ? (float)n : 0.0f);
  float* d_a;
  BENCH_CUDA(cudaMalloc(&d_a, nn * sizeof(float)));
  cudaMemcpy(d_a, a, nn * sizeof(float), cudaMemcpyHostToDevice);
  for (int k = 0; k + 1 < n; ++k) {
    const int rest = n - 1 - k;
    lud_column<<<(rest + 127) / 128, 128>>>(d_a, n, k);
    const dim3 grid((rest + TILE - 1) / TILE, (rest + TILE - 1) / TILE), block(TILE, TILE);
    lud_update<<<grid, block>>>(d_a, n, k);
  }
  BENCH_CUDA(cudaGetLastError());
  float* lu = (float*)bench_alloc(nn * sizeof(float));
  cudaMemcpy(lu, d_a, nn * sizeof(float), cudaMemcpyDeviceToHost);
  // CPU reference: the same elimination in double.
  double* r = (double*)bench_alloc(nn * sizeof(double));
  for (size_t x = 0; x < nn; ++x) r[x] = a[x];
  for (int k = 0; k + 1 < n; ++k)
    for (int i = k + 1; i < n; ++i) {
      const double l = r[(size_t)i * n + k] /= r[(size_t)k * n + k];
      for (int j = k + 1; j < n; ++j) r[(size_t)i * n + j] -= l * r[(size_t)k * n + j];
    }
  double trace = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double want = r[(size_t)i * n + j], got = lu[(size_t)i * n + j];
      if (!bench_close(got, want, 1e-4)) {
        printf("lud: element (%d, %d) is %g, expected %g\n", i, j, got, want);
        return 1;
      }
      if (i == j) trace += want;
    }
  printf("lud: %d x %d, trace of U %.3f: ok\n", n, n, trace);
  return 0;
}
