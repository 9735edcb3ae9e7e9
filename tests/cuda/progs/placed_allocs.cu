// A CUDA program for the placement engine (docs/hybrid_dram_pcm.md "CUDA programs"): twelve device
// arrays of 64 KiB, array i read i + 1 times per launch (so the profile ranks them by traffic), two
// launches, then array 0 freed and a thirteenth array allocated, read and written by a third launch.
// Fifteen allocations (the twelve, the pointer table, the output, the thirteenth array), ten of which
// the engine plans (the most accessed: the pointer table and arrays 3..11); the other five (arrays
// 0..2, the output, the thirteenth) are placed outside the plan. It prints each array's device address (the test checks
// where the parts put them) and checks every result on the host.
// Usage: placed_allocs
#include <stdio.h>
#include <stdlib.h>

#define ARRAYS 12
#define N (16 * 1024)  // ints per array: 64 KiB

// out[t] = sum over arrays i of (i + 1) reads of in_i[t]
__global__ void sum_arrays(int* const* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int s = 0;
  for (int i = 0; i < ARRAYS; ++i)
    for (int r = 0; r <= i; ++r) s += in[i][(t + r * 32) % N];
  out[t] = s;
}

__global__ void bump(int* a, const int* b) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  a[t] = b[t] + 7;
}

int main() {
  int* d[ARRAYS];
  int* h = (int*)malloc(N * sizeof(int));
  for (int i = 0; i < ARRAYS; ++i) {
    if (cudaMalloc(&d[i], N * sizeof(int)) != cudaSuccess) return 1;
    for (int t = 0; t < N; ++t) h[t] = i * 1000 + t % 97;
    cudaMemcpy(d[i], h, N * sizeof(int), cudaMemcpyHostToDevice);
  }
  int** dp;
  int* out;
  cudaMalloc(&dp, sizeof d);          // the table of pointers: allocation 12
  cudaMalloc(&out, N * sizeof(int));  // 13
  cudaMemcpy(dp, d, sizeof d, cudaMemcpyHostToDevice);
  int bad = 0;
  for (int launch = 0; launch < 2; ++launch) {
    sum_arrays<<<N / 256, 256>>>(dp, out);
    cudaMemcpy(h, out, N * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < N; ++t) {
      int want = 0;
      for (int i = 0; i < ARRAYS; ++i)
        for (int r = 0; r <= i; ++r) want += i * 1000 + ((t + r * 32) % N) % 97;
      bad += h[t] != want;
    }
  }
  cudaFree(d[0]);
  int* extra;
  cudaMalloc(&extra, N * sizeof(int));  // 14, possibly where array 0 was
  bump<<<N / 256, 256>>>(extra, d[11]);
  bump<<<N / 256, 256>>>(d[10], extra);
  cudaMemcpy(h, d[10], N * sizeof(int), cudaMemcpyDeviceToHost);
  for (int t = 0; t < N; ++t) bad += h[t] != 11 * 1000 + t % 97 + 14;
  for (int i = 0; i < ARRAYS; ++i) printf("array %d at %llu\n", i, (unsigned long long)(size_t)d[i]);
  printf("extra at %llu\n", (unsigned long long)(size_t)extra);
  printf("placed_allocs: %d wrong\n", bad);
  return bad ? 3 : 0;
}
