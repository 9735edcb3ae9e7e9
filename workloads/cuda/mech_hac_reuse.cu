// mech_hac_reuse: the microbenchmark HAC must win if its mechanism works (issue 22 item 7; docs/hac.md
// "Mechanism microbenchmarks"). HAC (shared/papers/hac-l2-for-hybrid-memory.txt, Sec. IV-B, Algorithms 1
// and 2) inserts and promotes NVM lines higher in the L2 recency stack than DRAM lines, so that under
// contention the L2 keeps the lines whose misses and write-backs cost most. This program sweeps a working
// set of PCT percent of the L2 (L2_KIB, the platform's l2.size) ROUNDS times, fully coalesced, so every
// line is written and re-read in every round. Between 100 % and 200 % of the L2 an LRU cache misses on
// every line of a cyclic sweep (each line is evicted before it comes round again), while a cache that
// keeps the NVM half of the lines (hac_gtx480_hybrid alternates DRAM and PCM in 4 KiB pages) can keep
// them all: NVM-line hits and fewer NVM write-backs, if the mechanism works.
// MODE 1: each round is a store-only pass (a[i] = a value of i and the round) and then a read-only pass
//   (per-block sums of a, one word per block): each line is touched once per pass, so the L2 policy acts
//   through its insertion positions (Algorithm 1: write misses at DNP/DDP, demand misses at CNP/CDP).
// MODE 0: each round is one read-modify-write pass (a[i] = step(a[i])): each line's read miss is
//   followed at once by a write hit, so the policy acts through its promotion (Algorithm 2) as well.
// Usage: mech_hac_reuse [L2_KIB [PCT [ROUNDS [MODE [SEED]]]]]   (768 150 4 1 1)
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 256

__device__ __host__ static inline unsigned step(unsigned v, unsigned i, unsigned pass) {
  return v * 1664525u + 1013904223u + (i ^ pass);  // a 32-bit LCG step, salted by index and pass
}

__global__ void rmw_pass(unsigned* a, int n, unsigned pass) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n) a[i] = step(a[i], (unsigned)i, pass);
}

__global__ void write_pass(unsigned* a, int n, unsigned pass) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n) a[i] = step((unsigned)i, (unsigned)i, pass);
}

// out[b] = the sum of block b's words (a shared-memory tree, wrapping 32-bit sums)
__global__ void read_pass(const unsigned* a, int n, unsigned* out) {
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
  int l2_kib = bench_arg(argc, argv, 1, 768, "L2_KIB");
  int pct = bench_arg(argc, argv, 2, 150, "PCT");
  int rounds = bench_arg(argc, argv, 3, 4, "ROUNDS");
  int mode = argc > 4 && strcmp(argv[4], "0") == 0 ? 0 : bench_arg(argc, argv, 4, 1, "MODE");
  int seed = bench_arg(argc, argv, 5, 1, "SEED");
  if (mode > 1) {
    fprintf(stderr, "%s: argument 4 (MODE) must be 0 or 1, got '%s'\n", argv[0], argv[4]);
    return 2;
  }
  size_t bytes = (size_t)l2_kib * 1024 * (size_t)pct / 100 / 128 * 128;  // whole 128 B lines
  if (bytes == 0 || bytes / 4 > (size_t)1 << 30) {
    fprintf(stderr, "%s: working set %d %% of %d KiB must be 128 B to 4 GiB\n", argv[0], pct, l2_kib);
    return 2;
  }
  int n = (int)(bytes / 4);
  int blocks = (n + THREADS - 1) / THREADS;
  uint64_t s = (uint64_t)seed;
  unsigned* a = (unsigned*)bench_alloc(bytes);
  for (int i = 0; i < n; ++i) a[i] = (unsigned)bench_next(&s);
  unsigned *d, *d_sums = NULL;
  BENCH_CUDA(cudaMalloc(&d, bytes));
  if (mode == 1) BENCH_CUDA(cudaMalloc(&d_sums, (size_t)rounds * blocks * sizeof(unsigned)));
  cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice);
  for (int r = 0; r < rounds; ++r) {
    if (mode == 0) {
      rmw_pass<<<blocks, THREADS>>>(d, n, (unsigned)r);
    } else {
      write_pass<<<blocks, THREADS>>>(d, n, (unsigned)r);
      read_pass<<<blocks, THREADS>>>(d, n, d_sums + (size_t)r * blocks);
    }
  }
  BENCH_CUDA(cudaGetLastError());
  unsigned* got = (unsigned*)bench_alloc(bytes);
  cudaMemcpy(got, d, bytes, cudaMemcpyDeviceToHost);
  unsigned* sums = NULL;
  if (mode == 1) {
    sums = (unsigned*)bench_alloc((size_t)rounds * blocks * sizeof(unsigned));
    cudaMemcpy(sums, d_sums, (size_t)rounds * blocks * sizeof(unsigned), cudaMemcpyDeviceToHost);
  }

  // CPU reference: the same passes
  unsigned long long total = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int b = 0; b < blocks; ++b) {
      unsigned sum = 0;
      for (int i = b * THREADS; i < n && i < (b + 1) * THREADS; ++i) {
        a[i] = mode == 0 ? step(a[i], (unsigned)i, (unsigned)r) : step((unsigned)i, (unsigned)i, (unsigned)r);
        sum += a[i];
      }
      if (mode == 1 && sums[(size_t)r * blocks + b] != sum) {
        printf("mech_hac_reuse: round %d block %d sums to %u, expected %u\n", r, b, sums[(size_t)r * blocks + b],
               sum);
        return 1;
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (got[i] != a[i]) {
      printf("mech_hac_reuse: word %d is %u, expected %u\n", i, got[i], a[i]);
      return 1;
    }
    total += a[i];
  }
  printf("mech_hac_reuse: %zu B (%d %% of %d KiB), %d rounds, mode %d, sum %llu: ok\n", bytes, pct, l2_kib, rounds,
         mode, total);
  return 0;
}
