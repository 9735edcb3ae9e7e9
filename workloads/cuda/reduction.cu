// reduction: sum of an integer array by a tree reduction in shared memory (Harris, "Optimizing
// parallel reduction in CUDA", NVIDIA 2007; TOM's RD): each thread first adds ITEMS elements while
// loading (grid-stride, coalesced), the block halves the active threads in shared memory down to one
// warp, the last warp finishes with __shfl_down_sync, and thread 0 stores the block's sum; a second
// launch of one block reduces the block sums.
// Usage: reduction [N [SEED]]
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 256
#define ITEMS 16

__global__ void reduce_sum(const int* in, int n, int* out) {
  __shared__ int part[THREADS];
  int sum = 0;
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) sum += in[i];
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int s = THREADS / 2; s >= 32; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] = sum = sum + part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
  }
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 1 << 22, "N");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  int* x = (int*)bench_alloc((size_t)n * sizeof(int));
  long long want = 0;
  for (int i = 0; i < n; ++i) x[i] = (int)bench_below(&s, 256), want += x[i];
  int blocks = (n + THREADS * ITEMS - 1) / (THREADS * ITEMS);
  int *d_in, *d_part, *d_out;
  BENCH_CUDA(cudaMalloc(&d_in, (size_t)n * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_part, blocks * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_out, sizeof(int)));
  cudaMemcpy(d_in, x, (size_t)n * sizeof(int), cudaMemcpyHostToDevice);
  reduce_sum<<<blocks, THREADS>>>(d_in, n, d_part);
  reduce_sum<<<1, THREADS>>>(d_part, blocks, d_out);
  BENCH_CUDA(cudaGetLastError());
  int got = 0;
  cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
  if (got != want) {
    printf("reduction: sum %d, expected %lld\n", got, want);
    return 1;
  }
  printf("reduction: %d elements, %d blocks, sum %lld: ok\n", n, blocks, want);
  return 0;
}
