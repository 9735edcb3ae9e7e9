// mech_hms_write_rehit: the microbenchmark the HMS DRAM cache must win if it works (issue 22 item 7;
// docs/hms.md "Mechanism microbenchmarks"). HMS (shared/papers/hms-dram-cache-over-scm.txt, Sec. III)
// puts a DRAM cache in front of the SCM so that the L2's write-backs land in DRAM instead of paying SCM's
// write time (Table I: tWR 1000 cycles against 16 for DRAM). This program sweeps a working set of PCT
// percent of REF_KIB (the spec passes the DRAM cache's total capacity, memside.dcache.size x partitions)
// ROUNDS times with a fully coalesced read-modify-write of every word: larger than the L2, so every round
// writes every line back from the L2, and within the DRAM cache's reach, so from the second round on every
// write-back (and every read) re-hits a line the DRAM cache holds. Against SCM-only (every write-back to
// SCM) the DRAM cache must win if it works.
// Usage: mech_hms_write_rehit [REF_KIB [PCT [ROUNDS [SEED]]]]   (32768 50 4 1)
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 256

__device__ __host__ static inline unsigned step(unsigned v, unsigned i, unsigned round) {
  return (v ^ (i * 2654435761u)) * 2246822519u + round;  // a salted 32-bit mix
}

__global__ void rmw_round(unsigned* a, int n, unsigned round) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n) a[i] = step(a[i], (unsigned)i, round);
}

int main(int argc, char** argv) {
  int ref_kib = bench_arg(argc, argv, 1, 32768, "REF_KIB");
  int pct = bench_arg(argc, argv, 2, 50, "PCT");
  int rounds = bench_arg(argc, argv, 3, 4, "ROUNDS");
  int seed = bench_arg(argc, argv, 4, 1, "SEED");
  size_t bytes = (size_t)ref_kib * 1024 * (size_t)pct / 100 / 256 * 256;  // whole 256 B DRAM-cache lines
  if (bytes == 0 || bytes / 4 > (size_t)1 << 30) {
    fprintf(stderr, "%s: working set %d %% of %d KiB must be 256 B to 4 GiB\n", argv[0], pct, ref_kib);
    return 2;
  }
  int n = (int)(bytes / 4);
  uint64_t s = (uint64_t)seed;
  unsigned* a = (unsigned*)bench_alloc(bytes);
  for (int i = 0; i < n; ++i) a[i] = (unsigned)bench_next(&s);
  unsigned* d;
  BENCH_CUDA(cudaMalloc(&d, bytes));
  cudaMemcpy(d, a, bytes, cudaMemcpyHostToDevice);
  int blocks = (n + THREADS - 1) / THREADS;
  for (int r = 0; r < rounds; ++r) rmw_round<<<blocks, THREADS>>>(d, n, (unsigned)r);
  BENCH_CUDA(cudaGetLastError());
  unsigned* got = (unsigned*)bench_alloc(bytes);
  cudaMemcpy(got, d, bytes, cudaMemcpyDeviceToHost);

  // CPU reference: the same rounds
  unsigned long long sum = 0;
  for (int i = 0; i < n; ++i) {
    unsigned v = a[i];
    for (int r = 0; r < rounds; ++r) v = step(v, (unsigned)i, (unsigned)r);
    if (got[i] != v) {
      printf("mech_hms_write_rehit: word %d is %u, expected %u\n", i, got[i], v);
      return 1;
    }
    sum += v;
  }
  printf("mech_hms_write_rehit: %zu B (%d %% of %d KiB), %d rounds, sum %llu: ok\n", bytes, pct, ref_kib, rounds,
         sum);
  return 0;
}
