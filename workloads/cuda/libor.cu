// libor: Monte Carlo pricing of a portfolio of swaptions under the LIBOR market model (Giles, "Monte
// Carlo evaluation of sensitivities in computational finance", 2007; the GPU code GPGPU-Sim ships as
// LIB, which HAC and TOM run): one thread per path evolves NR forward rates over NMAT time steps with
// log-normal increments driven by the path's normals, then values 15 swaptions and discounts the
// payoff. The rates live in a per-thread array (local memory).
// Usage: libor [PATHS [SEED]]
#include <cuda_runtime.h>

#include "bench.h"

#define NR 80
#define NMAT 40
#define NOPT 15
#define DELTA 0.25f
#define THREADS 64

__constant__ float lambda[NR];
__constant__ int maturities[NOPT];
__constant__ float swaprates[NOPT];

__host__ __device__ static float path_value(const float* z, int stride, const float* lam, const int* mat,
                                            const float* rate) {
  float L[NR], L0[NR], B[NR - NMAT], S[NR - NMAT];
  for (int i = 0; i < NR; ++i) L[i] = 0.05f;
  for (int n = 0; n < NMAT; ++n) {
    float sqez = sqrtf(DELTA) * z[n * stride];
    float v = 0.0f;
    for (int i = n + 1; i < NR; ++i) {
      float l = lam[i - n - 1], con1 = DELTA * l;
      v += con1 * L[i] / (1.0f + DELTA * L[i]);
      L[i] *= expf(con1 * v + l * (sqez - 0.5f * con1));
    }
    L0[n] = L[n];
  }
  float b = 1.0f, s = 0.0f;
  for (int n = NMAT; n < NR; ++n) {
    b = b / (1.0f + DELTA * L[n]);
    s = s + DELTA * b;
    B[n - NMAT] = b;
    S[n - NMAT] = s;
  }
  float v = 0.0f;
  for (int i = 0; i < NOPT; ++i) {
    int m = mat[i] - 1;
    float swapval = B[m] + rate[i] * S[m] - 1.0f;
    if (swapval < 0.0f) v += -100.0f * swapval;
  }
  for (int n = 0; n < NMAT; ++n) v = v / (1.0f + DELTA * L0[n]);
  return v;
}

__global__ void libor_paths(const float* z, float* value, int paths) {
  int p = blockIdx.x * THREADS + threadIdx.x;
  if (p < paths) value[p] = path_value(z + p, paths, lambda, maturities, swaprates);
}

int main(int argc, char** argv) {
  int paths = bench_arg(argc, argv, 1, 4096, "PATHS");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  float lam[NR], rate[NOPT];
  int mat[NOPT];
  for (int i = 0; i < NR; ++i) lam[i] = 0.2f;
  for (int i = 0; i < NOPT; ++i) mat[i] = 4 + 4 * (i % 5) + (i / 5), rate[i] = 0.045f + 0.005f * (i / 5);
  BENCH_CUDA(cudaMemcpyToSymbol(lambda, lam, sizeof lam));
  BENCH_CUDA(cudaMemcpyToSymbol(maturities, mat, sizeof mat));
  BENCH_CUDA(cudaMemcpyToSymbol(swaprates, rate, sizeof rate));
  // normals by Box-Muller, time step major: z[n * paths + p]
  size_t nz = (size_t)NMAT * paths;
  float* z = (float*)bench_alloc(nz * sizeof(float));
  uint64_t s = (uint64_t)seed;
  for (size_t i = 0; i < nz; ++i) {
    double u1 = bench_unit(&s), u2 = bench_unit(&s);
    z[i] = (float)(sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2));
  }
  float *d_z, *d_v;
  BENCH_CUDA(cudaMalloc(&d_z, nz * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_v, paths * sizeof(float)));
  cudaMemcpy(d_z, z, nz * sizeof(float), cudaMemcpyHostToDevice);
  libor_paths<<<(paths + THREADS - 1) / THREADS, THREADS>>>(d_z, d_v, paths);
  BENCH_CUDA(cudaGetLastError());
  float* v = (float*)bench_alloc(paths * sizeof(float));
  cudaMemcpy(v, d_v, paths * sizeof(float), cudaMemcpyDeviceToHost);
  double mean = 0;
  for (int p = 0; p < paths; ++p) {
    float want = path_value(z + p, paths, lam, mat, rate);
    if (!bench_close(v[p], want, 1e-4)) {
      printf("libor: path %d is worth %g, expected %g\n", p, v[p], want);
      return 1;
    }
    mean += want;
  }
  printf("libor: %d paths, %d rates, %d steps, portfolio value %.5f: ok\n", paths, NR, NMAT, mean / paths);
  return 0;
}
