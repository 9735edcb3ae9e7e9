// kmeans: Lloyd's k-means clustering (Rodinia's kmeans, TOM's KM): a kernel assigns every point to its
// nearest centre (features stored feature-major so that a warp's loads coalesce, centres in constant
// memory), the host recomputes the centres from the memberships and repeats until no point changes
// cluster or ITERS rounds have run.
// Usage: kmeans [POINTS [CLUSTERS [ITERS [SEED]]]]   (16 features)
#include <cuda_runtime.h>

#include "bench.h"

#define NF 16
#define MAXK 64
#define THREADS 256

__constant__ float centres[MAXK * NF];

__global__ void kmeans_assign(const float* feat, int n, int k, int* member) {
  int p = blockIdx.x * THREADS + threadIdx.x;
  if (p >= n) return;
  int best = 0;
  float bestd = 3.0e38f;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int f = 0; f < NF; ++f) {
      float t = feat[(size_t)f * n + p] - centres[c * NF + f];
      d += t * t;
    }
    if (d < bestd) bestd = d, best = c;
  }
  member[p] = best;
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 65536, "POINTS");
  int k = bench_arg(argc, argv, 2, 5, "CLUSTERS");
  int iters = bench_arg(argc, argv, 3, 10, "ITERS");
  int seed = bench_arg(argc, argv, 4, 1, "SEED");
  if (k > MAXK || k > n) {
    fprintf(stderr, "kmeans: CLUSTERS must be at most %d and at most POINTS, got %d\n", MAXK, k);
    return 2;
  }
  uint64_t s = (uint64_t)seed;
  // points around k hidden centres
  float* feat = (float*)bench_alloc((size_t)NF * n * sizeof(float));
  float hidden[MAXK][NF], c[MAXK * NF];
  for (int j = 0; j < k; ++j)
    for (int f = 0; f < NF; ++f) hidden[j][f] = bench_unitf(&s) * 10.0f;
  for (int p = 0; p < n; ++p) {
    int j = (int)bench_below(&s, (unsigned)k);
    for (int f = 0; f < NF; ++f) feat[(size_t)f * n + p] = hidden[j][f] + (bench_unitf(&s) - 0.5f) * 4.0f;
  }
  for (int j = 0; j < k; ++j)  // initial centres: the first k points
    for (int f = 0; f < NF; ++f) c[j * NF + f] = feat[(size_t)f * n + j];
  float* d_feat;
  int* d_member;
  BENCH_CUDA(cudaMalloc(&d_feat, (size_t)NF * n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_member, n * sizeof(int)));
  cudaMemcpy(d_feat, feat, (size_t)NF * n * sizeof(float), cudaMemcpyHostToDevice);
  int* member = (int*)bench_alloc(n * sizeof(int));
  int* old = (int*)bench_alloc(n * sizeof(int));
  for (int p = 0; p < n; ++p) old[p] = -1;
  int it = 0, changed = n;
  double sum[MAXK][NF];
  int count[MAXK];
  while (it < iters && changed) {
    BENCH_CUDA(cudaMemcpyToSymbol(centres, c, k * NF * sizeof(float)));
    kmeans_assign<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_feat, n, k, d_member);
    cudaMemcpy(member, d_member, n * sizeof(int), cudaMemcpyDeviceToHost);
    ++it;
    // check: each point's centre is a nearest one (ties and rounding within a relative 1e-5)
    changed = 0;
    for (int p = 0; p < n; ++p) {
      double dmin = 1e300, dm = 0;
      for (int j = 0; j < k; ++j) {
        double d = 0;
        for (int f = 0; f < NF; ++f) {
          double t = (double)feat[(size_t)f * n + p] - c[j * NF + f];
          d += t * t;
        }
        if (d < dmin) dmin = d;
        if (j == member[p]) dm = d;
      }
      if (member[p] < 0 || member[p] >= k || dm > dmin * (1 + 1e-5) + 1e-6) {
        printf("kmeans: round %d: point %d in cluster %d at distance %g, nearest %g\n", it, p, member[p], dm, dmin);
        return 1;
      }
      changed += member[p] != old[p];
      old[p] = member[p];
    }
    // host step: the new centres (a centre with no points stays)
    memset(sum, 0, sizeof sum);
    memset(count, 0, sizeof count);
    for (int p = 0; p < n; ++p) {
      ++count[member[p]];
      for (int f = 0; f < NF; ++f) sum[member[p]][f] += feat[(size_t)f * n + p];
    }
    for (int j = 0; j < k; ++j)
      if (count[j])
        for (int f = 0; f < NF; ++f) c[j * NF + f] = (float)(sum[j][f] / count[j]);
  }
  BENCH_CUDA(cudaGetLastError());
  double sse = 0;
  for (int p = 0; p < n; ++p)
    for (int f = 0; f < NF; ++f) {
      double t = feat[(size_t)f * n + p] - c[member[p] * NF + f];
      sse += t * t;
    }
  printf("kmeans: %d points, %d clusters, %d rounds, %d changed in the last, mean squared error %.4f: ok\n", n, k,
         it, changed, sse / n);
  return 0;
}
