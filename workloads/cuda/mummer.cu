// mummer: exact-match search of short reads against a reference genome, in the manner of MUMmerGPU
// (Schatz et al., BMC Bioinformatics 2007; HAC's MUM): the reference's 16-base substrings are sorted
// (a k-mer array standing in for the suffix tree); one thread per 32-base query binary-searches its
// first 16 bases (dependent probes of the sorted keys), takes the leftmost reference position with that
// 16-mer and extends the match along the 2-bit packed reference over the query's other 16 bases.
// Usage: mummer [LOG2REF [QUERIES [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 128

// the 16-mer at position p of the packed reference (16 bases per word, base i in bits 2i..2i+1 of its
// word, the first base in the most significant position of the k-mer)
__host__ __device__ static inline unsigned kmer_at(const unsigned* ref, int p) {
  unsigned lo = ref[p >> 4], hi = ref[(p >> 4) + 1];
  int sh = (p & 15) * 2;
  unsigned long long w = ((unsigned long long)hi << 32 | lo) >> sh;  // bases p..p+15, base p lowest
  unsigned k = 0;
  for (int i = 0; i < 16; ++i) k = (k << 2) | (unsigned)((w >> (2 * i)) & 3);
  return k;
}

__global__ void match_queries(const unsigned* keys, const int* pos, int nkeys, const unsigned* ref,
                              const unsigned* queries, int nq, int* match_pos, int* match_len) {
  int q = blockIdx.x * THREADS + threadIdx.x;
  if (q >= nq) return;
  unsigned seed = queries[2 * q], rest = queries[2 * q + 1];
  int lo = 0, hi = nkeys;  // leftmost key >= seed
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (keys[mid] < seed) lo = mid + 1;
    else hi = mid;
  }
  if (lo == nkeys || keys[lo] != seed) {
    match_pos[q] = -1;
    match_len[q] = 0;
    return;
  }
  int p = pos[lo];
  unsigned next = kmer_at(ref, p + 16);
  unsigned diff = next ^ rest;  // extend while the following bases agree (from the most significant)
  int ext = diff ? __clz(diff) / 2 : 16;
  match_pos[q] = p;
  match_len[q] = 16 + ext;
}

static int cmp_pair(const void* a, const void* b) {
  unsigned long long x = *(const unsigned long long*)a, y = *(const unsigned long long*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int log2ref = bench_arg(argc, argv, 1, 20, "LOG2REF");
  int nq = bench_arg(argc, argv, 2, 1 << (log2ref > 2 ? log2ref - 2 : 0), "QUERIES");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  if (log2ref < 6 || log2ref > 28) {
    fprintf(stderr, "mummer: LOG2REF must be in 6..28, got %d\n", log2ref);
    return 2;
  }
  int R = 1 << log2ref, words = R / 16 + 2;
  uint64_t s = (uint64_t)seed;
  unsigned* ref = (unsigned*)bench_alloc(words * sizeof(unsigned));
  for (int i = 0; i < R; ++i) ref[i >> 4] |= (unsigned)bench_below(&s, 4) << ((i & 15) * 2);
  int nkeys = R - 32;  // every position with 32 bases after it
  unsigned long long* pairs = (unsigned long long*)bench_alloc(nkeys * sizeof(unsigned long long));
  for (int p = 0; p < nkeys; ++p) pairs[p] = (unsigned long long)kmer_at(ref, p) << 32 | (unsigned)p;
  qsort(pairs, nkeys, sizeof *pairs, cmp_pair);
  unsigned* keys = (unsigned*)bench_alloc(nkeys * sizeof(unsigned));
  int* pos = (int*)bench_alloc(nkeys * sizeof(int));
  for (int i = 0; i < nkeys; ++i) keys[i] = (unsigned)(pairs[i] >> 32), pos[i] = (int)(pairs[i] & 0xffffffffu);
  // queries: 3 of 4 read from the reference with a few mutations in the second half, 1 of 4 random
  unsigned* qs = (unsigned*)bench_alloc(2 * (size_t)nq * sizeof(unsigned));
  for (int q = 0; q < nq; ++q) {
    if (q % 4 == 3) {
      qs[2 * q] = (unsigned)bench_next(&s), qs[2 * q + 1] = (unsigned)bench_next(&s);
      continue;
    }
    int p = (int)bench_below(&s, (unsigned)nkeys);
    qs[2 * q] = kmer_at(ref, p);
    qs[2 * q + 1] = kmer_at(ref, p + 16);
    if (bench_below(&s, 2)) qs[2 * q + 1] ^= 1u << (2 * bench_below(&s, 16));  // one mismatching base
  }
  unsigned *d_keys, *d_ref, *d_q;
  int *d_pos, *d_mpos, *d_mlen;
  BENCH_CUDA(cudaMalloc(&d_keys, nkeys * sizeof(unsigned)));
  BENCH_CUDA(cudaMalloc(&d_pos, nkeys * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_ref, words * sizeof(unsigned)));
  BENCH_CUDA(cudaMalloc(&d_q, 2 * (size_t)nq * sizeof(unsigned)));
  BENCH_CUDA(cudaMalloc(&d_mpos, nq * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_mlen, nq * sizeof(int)));
  cudaMemcpy(d_keys, keys, nkeys * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemcpy(d_pos, pos, nkeys * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_ref, ref, words * sizeof(unsigned), cudaMemcpyHostToDevice);
  cudaMemcpy(d_q, qs, 2 * (size_t)nq * sizeof(unsigned), cudaMemcpyHostToDevice);
  match_queries<<<(nq + THREADS - 1) / THREADS, THREADS>>>(d_keys, d_pos, nkeys, d_ref, d_q, nq, d_mpos, d_mlen);
  BENCH_CUDA(cudaGetLastError());
  int* mpos = (int*)bench_alloc(nq * sizeof(int));
  int* mlen = (int*)bench_alloc(nq * sizeof(int));
  cudaMemcpy(mpos, d_mpos, nq * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(mlen, d_mlen, nq * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the leftmost position whose 16-mer equals the seed (a scan of the sorted array from
  // the first key not below it), and the match length base by base
  int matched = 0, full = 0;
  for (int q = 0; q < nq; ++q) {
    int lo = 0, hi = nkeys;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (keys[mid] < qs[2 * q]) lo = mid + 1;
      else hi = mid;
    }
    int wp = lo < nkeys && keys[lo] == qs[2 * q] ? pos[lo] : -1, wl = 0;
    if (wp >= 0) {
      for (int i = lo; i < nkeys && keys[i] == qs[2 * q]; ++i)
        if (pos[i] < wp) wp = pos[i];
      wl = 16;
      unsigned nxt = kmer_at(ref, wp + 16);
      for (int b = 15; b >= 0 && ((nxt >> (2 * b)) & 3) == ((qs[2 * q + 1] >> (2 * b)) & 3); --b) ++wl;
    }
    if (mpos[q] != wp || mlen[q] != wl) {
      printf("mummer: query %d matched at %d length %d, expected %d length %d\n", q, mpos[q], mlen[q], wp, wl);
      return 1;
    }
    matched += wp >= 0;
    full += wl == 32;
  }
  printf("mummer: reference %d bases, %d queries, %d matched, %d over all 32 bases: ok\n", R, nq, matched, full);
  return 0;
}
