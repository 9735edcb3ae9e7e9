// binomial: European call options priced on a Cox-Ross-Rubinstein binomial tree (Cox, Ross and Rubinstein,
// "Option pricing: a simplified approach", J. Financial Economics 1979), the problem of the CUDA SDK's
// binomialOptions (the hybrid graphics memory paper's BN). One block per option (grid-stride over the
// options): the leaves' payoffs max(S u^(2i-N) - X, 0) in shared memory, then N backward steps
// V[i] = disc (pu V[i+1] + pd V[i]), each thread a slice of the nodes, a barrier between steps; thread 0
// stores V[0]. Compute-bound: N^2 / 2 node updates per option against five loads and one store.
// Usage: binomial [OPTIONS [STEPS [SEED]]]   (STEPS <= 1024)
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 128
#define MAX_STEPS 1024

struct option_in {
  float s, x, t, r, v;
};

__global__ void binomial_price(const option_in* opt, float* price, int n, int steps) {
  __shared__ float val[MAX_STEPS + 1];
  for (int o = blockIdx.x; o < n; o += gridDim.x) {
    const option_in p = opt[o];
    const float dt = p.t / steps;
    const float u = expf(p.v * sqrtf(dt)), d = 1.0f / u;
    const float pu = (expf(p.r * dt) - d) / (u - d), pd = 1.0f - pu;
    const float disc = expf(-p.r * dt);
    for (int i = threadIdx.x; i <= steps; i += THREADS) {
      const float st = p.s * powf(u, (float)(2 * i - steps));
      val[i] = st > p.x ? st - p.x : 0.0f;
    }
    __syncthreads();
    for (int k = steps; k > 0; --k) {
      float next[(MAX_STEPS + THREADS) / THREADS];
      int m = 0;
      for (int i = threadIdx.x; i < k; i += THREADS) next[m++] = disc * (pu * val[i + 1] + pd * val[i]);
      __syncthreads();
      m = 0;
      for (int i = threadIdx.x; i < k; i += THREADS) val[i] = next[m++];
      __syncthreads();
    }
    if (threadIdx.x == 0) price[o] = val[0];
    __syncthreads();
  }
}

static double price_host(const option_in& p, int steps, double* val) {
  const double dt = (double)p.t / steps;
  const double u = exp(p.v * sqrt(dt)), d = 1.0 / u;
  const double pu = (exp(p.r * dt) - d) / (u - d), pd = 1.0 - pu, disc = exp(-p.r * dt);
  for (int i = 0; i <= steps; ++i) {
    const double st = p.s * pow(u, 2 * i - steps);
    val[i] = st > p.x ? st - p.x : 0.0;
  }
  for (int k = steps; k > 0; --k)
    for (int i = 0; i < k; ++i) val[i] = disc * (pu * val[i + 1] + pd * val[i]);
  return val[0];
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 512, "OPTIONS");
  int steps = bench_arg(argc, argv, 2, 256, "STEPS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  if (steps > MAX_STEPS) {
    fprintf(stderr, "%s: argument 2 (STEPS) must be at most %d, got %d\n", argv[0], MAX_STEPS, steps);
    return 2;
  }
  uint64_t s = (uint64_t)seed;
  option_in* opt = (option_in*)bench_alloc(n * sizeof(option_in));
  for (int i = 0; i < n; ++i) {
    opt[i].s = 5.0f + 25.0f * bench_unitf(&s);  // spot 5..30
    opt[i].x = 1.0f + 99.0f * bench_unitf(&s);  // strike 1..100
    opt[i].t = 0.25f + 9.75f * bench_unitf(&s); // 0.25..10 years
    opt[i].r = 0.02f;
    opt[i].v = 0.30f;
  }
  option_in* d_opt;
  float* d_price;
  BENCH_CUDA(cudaMalloc(&d_opt, n * sizeof(option_in)));
  BENCH_CUDA(cudaMalloc(&d_price, n * sizeof(float)));
  cudaMemcpy(d_opt, opt, n * sizeof(option_in), cudaMemcpyHostToDevice);
  binomial_price<<<120, THREADS>>>(d_opt, d_price, n, steps);
  BENCH_CUDA(cudaGetLastError());
  float* price = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(price, d_price, n * sizeof(float), cudaMemcpyDeviceToHost);
  double* val = (double*)bench_alloc((steps + 1) * sizeof(double));
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const double want = price_host(opt[i], steps, val);
    if (!bench_close(price[i], want, 2e-3)) {
      printf("binomial: option %d priced %g, expected %g\n", i, price[i], want);
      return 1;
    }
    total += want;
  }
  printf("binomial: %d options, %d steps, sum of prices %.3f: ok\n", n, steps, total);
  return 0;
}
