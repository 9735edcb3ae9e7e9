// scalarprod: dot products of many vector pairs (the CUDA SDK's scalarProd problem, TOM's SP and
// FLRB's sp): one block per pair (grid-stride over the pairs), each thread accumulates a strided
// slice with coalesced loads, the block sums in shared memory and thread 0 stores the product.
// Usage: scalarprod [PAIRS [LENGTH [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 256

__global__ void scalar_prod(const float* a, const float* b, float* c, int pairs, int len) {
  __shared__ float acc[THREADS];
  for (int p = blockIdx.x; p < pairs; p += gridDim.x) {
    const float* x = a + (size_t)p * len;
    const float* y = b + (size_t)p * len;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < len; i += THREADS) sum += x[i] * y[i];
    acc[threadIdx.x] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) c[p] = acc[0];
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  int pairs = bench_arg(argc, argv, 1, 256, "PAIRS");
  int len = bench_arg(argc, argv, 2, 4096, "LENGTH");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  size_t n = (size_t)pairs * len;
  uint64_t s = (uint64_t)seed;
  float* a = (float*)bench_alloc(n * sizeof(float));
  float* b = (float*)bench_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) a[i] = bench_unitf(&s), b[i] = bench_unitf(&s);
  float *d_a, *d_b, *d_c;
  BENCH_CUDA(cudaMalloc(&d_a, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_b, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_c, pairs * sizeof(float)));
  cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice);
  scalar_prod<<<128, THREADS>>>(d_a, d_b, d_c, pairs, len);
  BENCH_CUDA(cudaGetLastError());
  float* c = (float*)bench_alloc(pairs * sizeof(float));
  cudaMemcpy(c, d_c, pairs * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (int p = 0; p < pairs; ++p) {
    double want = 0;
    for (int i = 0; i < len; ++i) want += (double)a[(size_t)p * len + i] * b[(size_t)p * len + i];
    if (!bench_close(c[p], want, 1e-5)) {
      printf("scalarprod: pair %d gives %g, expected %g\n", p, c[p], want);
      return 1;
    }
    total += want;
  }
  printf("scalarprod: %d pairs of %d, sum of products %.3f: ok\n", pairs, len, total);
  return 0;
}
