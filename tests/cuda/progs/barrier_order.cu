// Thread 0 of each block stores a value to shared memory, __syncthreads, every thread reads it (the
// pattern of scan's uniform add). clang 14's barrier builtin let the optimiser hoist the others' load
// above bar.sync; a timed run, whose warps interleave, then read a stale value. Exits 0 when every
// element got its block's value.
#include <stdlib.h>
#include <stdio.h>
__global__ void add(int* d, const int* p, int len, int early) {
  __shared__ int buf;
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (early && id > len) return;
  if (threadIdx.x == 0) buf = p[blockIdx.x];
  __syncthreads();
  d[id] += buf;
}
int main(int argc, char** argv) {
  int early = argc > 1 ? atoi(argv[1]) : 1;
  const int n = 4096; static int h[n], r[n], hp[16];
  for (int i = 0; i < 16; ++i) hp[i] = 1000 * (i + 1);
  int *d, *p; cudaMalloc(&d, sizeof h); cudaMalloc(&p, sizeof hp);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice); cudaMemcpy(p, hp, sizeof hp, cudaMemcpyHostToDevice);
  add<<<n / 256, 256>>>(d, p, n, early);
  cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost);
  int bad = -1; for (int i = 0; i < n && bad < 0; ++i) if (r[i] != 1000 * (i / 256 + 1)) bad = i;
  printf("early %d: bad %d (%d)\n", early, bad, bad >= 0 ? r[bad] : 0); return bad >= 0;
}
