// histogram: 256-bin histogram of byte data (the scheme of Podlozhnyuk's "Histogram calculation in
// CUDA", NVIDIA 2007, which HAC's HG runs): each warp of a block counts into its own sub-histogram in
// shared memory with shared-memory atomicAdd, reading 4 byte samples per 32-bit word; the block then
// sums its warps' sub-histograms and stores a partial histogram; merge_histogram sums the partial
// histograms of all blocks, one block per bin.
// Usage: histogram [WORDS [BLOCKS [SEED]]]   (4 WORDS samples, skewed towards the low bins)
#include <cuda_runtime.h>

#include "bench.h"

#define BINS 256
#define THREADS 192
#define WARPS (THREADS / 32)
#define MERGE_THREADS 256

__global__ void histogram256(const unsigned* data, int words, unsigned* partial) {
  __shared__ unsigned sub[WARPS][BINS];
  for (int i = threadIdx.x; i < WARPS * BINS; i += THREADS) sub[i / BINS][i % BINS] = 0;
  __syncthreads();
  unsigned* mine = sub[threadIdx.x / 32];
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < words; i += gridDim.x * THREADS) {
    unsigned w = data[i];
    atomicAdd(&mine[w & 0xff], 1u);
    atomicAdd(&mine[(w >> 8) & 0xff], 1u);
    atomicAdd(&mine[(w >> 16) & 0xff], 1u);
    atomicAdd(&mine[w >> 24], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += THREADS) {
    unsigned sum = 0;
    for (int w = 0; w < WARPS; ++w) sum += sub[w][b];
    partial[blockIdx.x * BINS + b] = sum;
  }
}

__global__ void merge_histogram(const unsigned* partial, int blocks, unsigned* hist) {
  __shared__ unsigned sum[MERGE_THREADS];
  unsigned s = 0;
  for (int i = threadIdx.x; i < blocks; i += MERGE_THREADS) s += partial[i * BINS + blockIdx.x];
  sum[threadIdx.x] = s;
  __syncthreads();
  for (int stride = MERGE_THREADS / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) sum[threadIdx.x] += sum[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) hist[blockIdx.x] = sum[0];
}

int main(int argc, char** argv) {
  int words = bench_arg(argc, argv, 1, 1 << 20, "WORDS");
  int blocks = bench_arg(argc, argv, 2, 240, "BLOCKS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  unsigned* data = (unsigned*)bench_alloc((size_t)words * sizeof(unsigned));
  for (int i = 0; i < words; ++i) {
    unsigned w = 0;
    for (int k = 0; k < 4; ++k) {
      double u = bench_unit(&s);
      w |= (unsigned)(256.0 * u * u * u) << (8 * k);  // skewed: low bins are hot
    }
    data[i] = w;
  }
  unsigned *d_data, *d_partial, *d_hist;
  BENCH_CUDA(cudaMalloc(&d_data, (size_t)words * sizeof(unsigned)));
  BENCH_CUDA(cudaMalloc(&d_partial, (size_t)blocks * BINS * sizeof(unsigned)));
  BENCH_CUDA(cudaMalloc(&d_hist, BINS * sizeof(unsigned)));
  cudaMemcpy(d_data, data, (size_t)words * sizeof(unsigned), cudaMemcpyHostToDevice);
  histogram256<<<blocks, THREADS>>>(d_data, words, d_partial);
  merge_histogram<<<BINS, MERGE_THREADS>>>(d_partial, blocks, d_hist);
  BENCH_CUDA(cudaGetLastError());
  unsigned hist[BINS], want[BINS] = {0};
  cudaMemcpy(hist, d_hist, sizeof hist, cudaMemcpyDeviceToHost);
  for (int i = 0; i < words; ++i)
    for (int k = 0; k < 4; ++k) ++want[(data[i] >> (8 * k)) & 0xff];
  for (int b = 0; b < BINS; ++b)
    if (hist[b] != want[b]) {
      printf("histogram: bin %d counts %u, expected %u\n", b, hist[b], want[b]);
      return 1;
    }
  printf("histogram: %d samples, %d blocks, bin 0 %u, bin 255 %u: ok\n", 4 * words, blocks, want[0], want[255]);
  return 0;
}
