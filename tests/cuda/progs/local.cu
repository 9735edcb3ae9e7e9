// Per-thread local memory reaching the memory system (docs/cuda.md "Local memory"): every thread
// fills an array of 32 words and reads 8 of them back at indices it loads from global memory, so
// clang must keep the array in local memory (an index only known at run time). Mode "reg" computes
// the same values without the array (the same global traffic, no local memory), so the difference of
// the two runs' L2 traffic is the local memory's. "wide" adds an array of doubles (8-byte accesses:
// two words each). The host checks every thread's result.
// Usage: local [BLOCKS [THREADS [local|reg|wide]]]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 32
#define READS 8

__global__ void with_local(const int* in, const int* idx, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[N];
  int x = in[t];
  for (int i = 0; i < N; ++i) a[i] = x * i + 1;
  int s = 0;
  for (int j = 0; j < READS; ++j) s += a[idx[j]];
  out[t] = s;
}

__global__ void with_regs(const int* in, const int* idx, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[t];
  int s = 0;
  for (int j = 0; j < READS; ++j) s += x * idx[j] + 1;
  out[t] = s;
}

__global__ void with_doubles(const int* in, const int* idx, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double a[N];
  int x = in[t];
  for (int i = 0; i < N; ++i) a[i] = (double)x * i + 1.0;
  double s = 0;
  for (int j = 0; j < READS; ++j) s += a[idx[(j + t) % READS]];
  out[t] = (int)s;
}

int main(int argc, char** argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 1, threads = argc > 2 ? atoi(argv[2]) : 32;
  const char* mode = argc > 3 ? argv[3] : "local";
  int n = blocks * threads;
  int* in = (int*)malloc(n * sizeof(int));
  int* out = (int*)malloc(n * sizeof(int));
  int idx[READS] = {3, 17, 29, 0, 11, 24, 8, 31};
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 500;
  int *din, *didx, *dout;
  cudaMalloc(&din, n * sizeof(int));
  cudaMalloc(&didx, sizeof idx);
  cudaMalloc(&dout, n * sizeof(int));
  cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(didx, idx, sizeof idx, cudaMemcpyHostToDevice);
  if (!strcmp(mode, "reg")) with_regs<<<blocks, threads>>>(din, didx, dout);
  else if (!strcmp(mode, "wide")) with_doubles<<<blocks, threads>>>(din, didx, dout);
  else with_local<<<blocks, threads>>>(din, didx, dout);
  cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int t = 0; t < n; ++t) {
    long long s = 0;
    for (int j = 0; j < READS; ++j) s += (long long)in[t] * idx[j] + 1;
    if (out[t] != (int)s) ++wrong;
  }
  printf("local %s: %d threads, %d wrong\n", mode, n, wrong);
  return wrong ? 1 : 0;
}
