// mech_scm_bypass_once: the microbenchmark the SCM-aware bypass must win if it works (issue 22 item 7;
// docs/hms.md "Mechanism microbenchmarks"). The bypass (shared/papers/hms-dram-cache-over-scm.txt,
// Sec. III-C, Fig. 9) skips DRAM-cache fills whose SCM penalty is low, so that lines that will not be
// used again do not spend SCM read bandwidth, DRAM write bandwidth and the channel's shared bus on a
// fill, nor evict lines that will. Here every line is touched exactly once: a working set of PCT percent
// of REF_KIB (the spec passes the DRAM cache's total capacity) is read once, fully coalesced, and summed
// per block (one word written per 256 words read). Every fill is then wasted, so the design with the
// bypass must move fewer bytes and be no slower than the same design without it.
// Usage: mech_scm_bypass_once [REF_KIB [PCT [SEED]]]   (32768 50 1)
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 256

// out[b] = the sum of block b's words (a shared-memory tree, wrapping 32-bit sums)
__global__ void sum_once(const unsigned* a, int n, unsigned* out) {
  __shared__ unsigned part[THREADS];
  int i = blockIdx.x * THREADS + threadIdx.x;
  part[threadIdx.x] = i < n ? a[i] : 0u;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

int main(int argc, char** argv) {
  int ref_kib = bench_arg(argc, argv, 1, 32768, "REF_KIB");
  int pct = bench_arg(argc, argv, 2, 50, "PCT");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  size_t bytes = (size_t)ref_kib * 1024 * (size_t)pct / 100 / 256 * 256;  // whole 256 B DRAM-cache lines
  if (bytes == 0 || bytes / 4 > (size_t)1 << 30) {
    fprintf(stderr, "%s: working set %d %% of %d KiB must be 256 B to 4 GiB\n", argv[0], pct, ref_kib);
    return 2;
  }
  int n = (int)(bytes / 4);
  int blocks = (n + THREADS - 1) / THREADS;
  uint64_t s = (uint64_t)seed;
  unsigned* a = (unsigned*)bench_alloc(bytes);
  for (int i = 0; i < n; ++i) a[i] = (unsigned)bench_next(&s);
  unsigned *d, *d_out;
  BENCH_CUDA(cudaMalloc(&d, bytes));
  BENCH_CUDA(cudaMalloc(&d_out, (size_t)blocks * sizeof(unsigned)));
  cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice);
  sum_once<<<blocks, THREADS>>>(d, n, d_out);
  BENCH_CUDA(cudaGetLastError());
  unsigned* got = (unsigned*)bench_alloc((size_t)blocks * sizeof(unsigned));
  cudaMemcpy(got, d_out, (size_t)blocks * sizeof(unsigned), cudaMemcpyDeviceToHost);

  // CPU reference: the same block sums
  unsigned long long total = 0;
  for (int b = 0; b < blocks; ++b) {
    unsigned sum = 0;
    for (int i = b * THREADS; i < n && i < (b + 1) * THREADS; ++i) sum += a[i];
    if (got[b] != sum) {
      printf("mech_scm_bypass_once: block %d sums to %u, expected %u\n", b, got[b], sum);
      return 1;
    }
    total += sum;
  }
  printf("mech_scm_bypass_once: %zu B (%d %% of %d KiB) read once, %d blocks, sum %llu: ok\n", bytes, pct, ref_kib,
         blocks, total);
  return 0;
}
