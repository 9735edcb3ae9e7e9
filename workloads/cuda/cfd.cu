// cfd: an explicit finite-volume solver of the 3D Euler equations on an unstructured mesh (the scheme
// of Rodinia's cfd, after Corrigan et al., "Running unstructured grid-based CFD solvers on modern
// graphics hardware", AIAA 2009; TOM's CFD): every element has 4 faces, each with a neighbour element
// (or the far field) and a face normal; per iteration the state is saved (cfd_copy), the local time
// step computed (cfd_step_factor), then 3 Runge-Kutta stages each compute the central flux with scalar
// dissipation over the 4 faces, gathering the neighbours' 5 variables (cfd_flux), and advance the
// state (cfd_time_step). Variables are structure-of-arrays with stride N.
// Usage: cfd [ELEMENTS [ITERS [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define NV 5
#define NB 4
#define GAMMA 1.4f
#define SMOOTH 0.2f
#define RK 3
#define THREADS 192

struct farfield {
  float v[NV];
};

__host__ __device__ static inline void euler_flux(const float* u, const float* n, float* f, float* speed) {
  float rho = u[0], mx = u[1], my = u[2], mz = u[3], e = u[4];
  float vx = mx / rho, vy = my / rho, vz = mz / rho;
  float v2 = vx * vx + vy * vy + vz * vz;
  float p = (GAMMA - 1.0f) * (e - 0.5f * rho * v2);
  float vn = vx * n[0] + vy * n[1] + vz * n[2];
  f[0] = rho * vn;
  f[1] = mx * vn + p * n[0];
  f[2] = my * vn + p * n[1];
  f[3] = mz * vn + p * n[2];
  f[4] = (e + p) * vn;
  *speed = sqrtf(v2) + sqrtf(GAMMA * p / rho);
}

__host__ __device__ static inline void element_flux(int i, int n, const float* var, const int* nbr,
                                                    const float* normal, struct farfield ff, float* out) {
  float u[NV], fi[NV], acc[NV] = {0, 0, 0, 0, 0}, si;
  for (int k = 0; k < NV; ++k) u[k] = var[k * n + i];
  for (int j = 0; j < NB; ++j) {
    int nb = nbr[j * n + i];
    float nv[3] = {normal[(j * 3 + 0) * n + i], normal[(j * 3 + 1) * n + i], normal[(j * 3 + 2) * n + i]};
    float area = sqrtf(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
    float w[NV], fj[NV], sj;
    for (int k = 0; k < NV; ++k) w[k] = nb >= 0 ? var[k * n + nb] : ff.v[k];
    euler_flux(u, nv, fi, &si);
    euler_flux(w, nv, fj, &sj);
    float diss = 0.5f * SMOOTH * area * (si + sj);
    for (int k = 0; k < NV; ++k) acc[k] += -0.5f * (fi[k] + fj[k]) + diss * (w[k] - u[k]);
  }
  for (int k = 0; k < NV; ++k) out[k] = acc[k];
}

__global__ void cfd_copy(const float* var, float* old, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    for (int k = 0; k < NV; ++k) old[k * n + i] = var[k * n + i];
}

__global__ void cfd_step_factor(const float* var, const float* volume, float* step, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= n) return;
  float u[NV], f[NV], s, zero[3] = {0, 0, 0};
  for (int k = 0; k < NV; ++k) u[k] = var[k * n + i];
  euler_flux(u, zero, f, &s);
  step[i] = 0.5f / (sqrtf(volume[i]) * s);
}

__global__ void cfd_flux(const float* var, const int* nbr, const float* normal, struct farfield ff, float* flux,
                         int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= n) return;
  float out[NV];
  element_flux(i, n, var, nbr, normal, ff, out);
  for (int k = 0; k < NV; ++k) flux[k * n + i] = out[k];
}

__global__ void cfd_time_step(const float* old, const float* step, const float* flux, const float* volume,
                              float* var, int stage, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= n) return;
  float factor = step[i] / (float)(RK + 1 - stage) / volume[i];
  for (int k = 0; k < NV; ++k) var[k * n + i] = old[k * n + i] + factor * flux[k * n + i];
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 97152, "ELEMENTS");
  int iters = bench_arg(argc, argv, 2, 2, "ITERS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  struct farfield ff;  // air at Mach 0.5 along x
  ff.v[0] = 1.4f;
  float pinf = 1.0f, vinf = 0.5f * sqrtf(GAMMA * pinf / ff.v[0]);
  ff.v[1] = ff.v[0] * vinf, ff.v[2] = ff.v[3] = 0.0f;
  ff.v[4] = pinf / (GAMMA - 1.0f) + 0.5f * ff.v[0] * vinf * vinf;
  // the mesh: element i's neighbours are 4 of its neighbours on a ring of rings (some far field),
  // scattered by a seeded permutation of the element numbers, with random face normals
  int* perm = (int*)bench_alloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) perm[i] = i;
  for (int i = n - 1; i > 0; --i) {
    int j = (int)bench_below(&s, (unsigned)i + 1), t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  int ring = 1024 < n ? 1024 : n;
  int* nbr = (int*)bench_alloc((size_t)NB * n * sizeof(int));
  float* normal = (float*)bench_alloc((size_t)NB * 3 * n * sizeof(float));
  float* volume = (float*)bench_alloc(n * sizeof(float));
  float* var = (float*)bench_alloc((size_t)NV * n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    int e = perm[i];  // logical position i holds element e
    int cand[NB] = {i + 1 < n ? i + 1 : -1, i > 0 ? i - 1 : -1, i + ring < n ? i + ring : -1, i >= ring ? i - ring : -1};
    for (int j = 0; j < NB; ++j) {
      nbr[j * n + e] = cand[j] >= 0 ? perm[cand[j]] : -1;
      for (int d = 0; d < 3; ++d) normal[(j * 3 + d) * n + e] = (bench_unitf(&s) - 0.5f) * 0.5f;
    }
    volume[e] = 0.5f + bench_unitf(&s);
    for (int k = 0; k < NV; ++k) var[k * n + e] = ff.v[k] * (1.0f + 0.05f * (bench_unitf(&s) - 0.5f));
  }
  int *d_nbr;
  float *d_normal, *d_volume, *d_var, *d_old, *d_step, *d_flux;
  BENCH_CUDA(cudaMalloc(&d_nbr, (size_t)NB * n * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_normal, (size_t)NB * 3 * n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_volume, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_var, (size_t)NV * n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_old, (size_t)NV * n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_step, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_flux, (size_t)NV * n * sizeof(float)));
  cudaMemcpy(d_nbr, nbr, (size_t)NB * n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_normal, normal, (size_t)NB * 3 * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_volume, volume, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_var, var, (size_t)NV * n * sizeof(float), cudaMemcpyHostToDevice);
  int grid = (n + THREADS - 1) / THREADS;
  for (int it = 0; it < iters; ++it) {
    cfd_copy<<<grid, THREADS>>>(d_var, d_old, n);
    cfd_step_factor<<<grid, THREADS>>>(d_var, d_volume, d_step, n);
    for (int st = 0; st < RK; ++st) {
      cfd_flux<<<grid, THREADS>>>(d_var, d_nbr, d_normal, ff, d_flux, n);
      cfd_time_step<<<grid, THREADS>>>(d_old, d_step, d_flux, d_volume, d_var, st, n);
    }
  }
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc((size_t)NV * n * sizeof(float));
  cudaMemcpy(got, d_var, (size_t)NV * n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same iterations
  float* old = (float*)bench_alloc((size_t)NV * n * sizeof(float));
  float* step = (float*)bench_alloc(n * sizeof(float));
  float* flux = (float*)bench_alloc((size_t)NV * n * sizeof(float));
  for (int it = 0; it < iters; ++it) {
    memcpy(old, var, (size_t)NV * n * sizeof(float));
    for (int i = 0; i < n; ++i) {
      float u[NV], f[NV], sp, zero[3] = {0, 0, 0};
      for (int k = 0; k < NV; ++k) u[k] = var[k * n + i];
      euler_flux(u, zero, f, &sp);
      step[i] = 0.5f / (sqrtf(volume[i]) * sp);
    }
    for (int st = 0; st < RK; ++st) {
      for (int i = 0; i < n; ++i) {
        float out[NV];
        element_flux(i, n, var, nbr, normal, ff, out);
        for (int k = 0; k < NV; ++k) flux[k * n + i] = out[k];
      }
      for (int i = 0; i < n; ++i) {
        float factor = step[i] / (float)(RK + 1 - st) / volume[i];
        for (int k = 0; k < NV; ++k) var[k * n + i] = old[k * n + i] + factor * flux[k * n + i];
      }
    }
  }
  double mass = 0;
  for (size_t i = 0; i < (size_t)NV * n; ++i)
    if (!bench_close(got[i], var[i], 1e-4)) {
      printf("cfd: variable %zu of element %zu is %g, expected %g\n", i / n, i % n, got[i], var[i]);
      return 1;
    }
  for (int i = 0; i < n; ++i) mass += var[i];
  printf("cfd: %d elements, %d iterations, mean density %.6f: ok\n", n, iters, mass / n);
  return 0;
}
