// Several global atomics of one warp in flight (docs/cuda.md "Atomics", sm.max_atomics_per_warp).
// Mode "indep": every thread makes K atomic adds to words of its own whose old values it never uses
// (they may overlap), then an add and an exchange of one word (the exchange must see the add: one
// warp's atomics to an address perform in issue order). Mode "last": the same adds in a loop that is
// not unrolled (every add writes one register, whose last value, the last add's, the thread stores:
// the newest atomic's value must win). Mode "dep": every add's operand is the
// previous add's old value (each waits for the one before). The host checks every word and value.
// Usage: atomic_overlap [indep|last|dep] [BLOCKS]  (64 threads each)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 64
#define K 16

__global__ void indep(unsigned* a, unsigned* b, unsigned* seen, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < K; ++j) atomicAdd(&a[j * n + t], (unsigned)(j + 1));
  atomicAdd(&b[t], 3u);
  seen[t] = atomicExch(&b[t], 5u);
}

__global__ void last(unsigned* a, unsigned* b, unsigned* seen, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = 0;
#pragma unroll 1
  for (int j = 0; j < K; ++j) v = atomicAdd(&a[j * n + t], (unsigned)(j + 1));
  seen[t] = v;
  b[t] = 5u;
}

__global__ void dep(unsigned* a, unsigned* b, unsigned* seen, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = 1;
  for (int j = 0; j < K; ++j) x = atomicAdd(&a[j * n + t], x) + 1u;
  seen[t] = x;
  (void)b;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "indep";
  int blocks = argc > 2 ? atoi(argv[2]) : 4, n = blocks * THREADS;
  unsigned *a, *b, *seen;
  cudaMalloc(&a, K * n * sizeof(unsigned));
  cudaMalloc(&b, n * sizeof(unsigned));
  cudaMalloc(&seen, n * sizeof(unsigned));
  unsigned* h = (unsigned*)malloc(K * n * sizeof(unsigned));
  for (int i = 0; i < K * n; ++i) h[i] = (unsigned)i;
  cudaMemcpy(a, h, K * n * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemset(b, 0, n * sizeof(unsigned));
  int is_dep = !strcmp(mode, "dep"), is_last = !strcmp(mode, "last");
  if (is_dep) dep<<<blocks, THREADS>>>(a, b, seen, n);
  else if (is_last) last<<<blocks, THREADS>>>(a, b, seen, n);
  else indep<<<blocks, THREADS>>>(a, b, seen, n);
  unsigned* ha = (unsigned*)malloc(K * n * sizeof(unsigned));
  unsigned* hb = (unsigned*)malloc(n * sizeof(unsigned));
  unsigned* hs = (unsigned*)malloc(n * sizeof(unsigned));
  cudaMemcpy(ha, a, K * n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb, b, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(hs, seen, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int t = 0; t < n; ++t) {
    unsigned x = 1;
    for (int j = 0; j < K; ++j) {
      unsigned old = (unsigned)(j * n + t), add = is_dep ? x : (unsigned)(j + 1);
      if (ha[j * n + t] != old + add) ++wrong;
      x = old + 1u;
    }
    if (is_dep ? hs[t] != x : is_last ? (hs[t] != (unsigned)((K - 1) * n + t) || hb[t] != 5u) : (hb[t] != 5u || hs[t] != 3u))
      ++wrong;
  }
  printf("atomic_overlap %s: %d threads, %d wrong\n", mode, n, wrong);
  return wrong ? 1 : 0;
}
