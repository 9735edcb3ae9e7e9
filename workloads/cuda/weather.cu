// weather: a cloud-microphysics time step in the manner of the WRF single-moment scheme's GPU port
// (Michalakes and Vachharajani, "GPU acceleration of numerical weather prediction", IPDPS 2008; GPGPU-
// Sim's WP, which HAC runs): wp_advect diffuses temperature t and vapour qv with a 7-point stencil
// (double-buffered; the border copied); wp_micro owns one column per thread: per level, vapour above
// saturation (a Tetens-type saturation curve) condenses into cloud water and warms the air, cloud water
// above a threshold converts into rain, then rain falls from the top level down and what leaves the
// bottom accumulates as surface rain.
// Usage: weather [NX [NY [NZ [STEPS [SEED]]]]]
#include <cuda_runtime.h>

#include "bench.h"

#define TX 32
#define TY 4
#define KDIFF 0.05f
#define LHEAT 2.5f   // warming per unit of condensate (scaled)
#define AUTO 0.001f  // autoconversion threshold
#define RATE 0.1f    // autoconversion rate
#define FALL 0.3f    // fraction of rain falling one level per step

__host__ __device__ static inline float qsat(float t, float p) {
  return 3.8f / p * expf(17.27f * (t - 273.15f) / (t - 35.86f));
}

__global__ void wp_advect(const float* t0, const float* q0, float* t1, float* q1, int nx, int ny, int nz) {
  int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  size_t plane = (size_t)nx * ny, c = (size_t)y * nx + x;
  bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
  for (int z = 0; z < nz; ++z, c += plane) {
    if (edge || z == 0 || z == nz - 1) {
      t1[c] = t0[c];
      q1[c] = q0[c];
      continue;
    }
    float lt = t0[c - 1] + t0[c + 1] + t0[c - nx] + t0[c + nx] + t0[c - plane] + t0[c + plane] - 6.0f * t0[c];
    float lq = q0[c - 1] + q0[c + 1] + q0[c - nx] + q0[c + nx] + q0[c - plane] + q0[c + plane] - 6.0f * q0[c];
    t1[c] = t0[c] + KDIFF * lt;
    q1[c] = q0[c] + KDIFF * lq;
  }
}

__host__ __device__ static void micro_column(float* t, float* qv, float* qc, float* qr, const float* p,
                                             float* rain, size_t c, size_t plane, int nz) {
  for (int z = 0; z < nz; ++z) {
    size_t i = c + z * plane;
    float excess = qv[i] - qsat(t[i], p[i]);
    if (excess > 0.0f) {
      float dq = 0.5f * excess;
      qv[i] -= dq;
      qc[i] += dq;
      t[i] += LHEAT * dq;
    }
    if (qc[i] > AUTO) {
      float dr = RATE * (qc[i] - AUTO);
      qc[i] -= dr;
      qr[i] += dr;
    }
  }
  float flux = 0.0f;  // sedimentation from the top level (nz - 1) down
  for (int z = nz - 1; z >= 0; --z) {
    size_t i = c + z * plane;
    float r = qr[i] + flux;
    flux = FALL * r;
    qr[i] = r - flux;
  }
  rain[c] += flux;
}

__global__ void wp_micro(float* t, float* qv, float* qc, float* qr, const float* p, float* rain, int nx, int ny,
                         int nz) {
  int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  micro_column(t, qv, qc, qr, p, rain, (size_t)y * nx + x, (size_t)nx * ny, nz);
}

int main(int argc, char** argv) {
  int nx = bench_arg(argc, argv, 1, 128, "NX");
  int ny = bench_arg(argc, argv, 2, 128, "NY");
  int nz = bench_arg(argc, argv, 3, 32, "NZ");
  int steps = bench_arg(argc, argv, 4, 4, "STEPS");
  int seed = bench_arg(argc, argv, 5, 1, "SEED");
  size_t plane = (size_t)nx * ny, n = plane * nz;
  uint64_t s = (uint64_t)seed;
  float* f[7];  // t0, t1, qv0, qv1, qc, qr, p
  for (int a = 0; a < 7; ++a) f[a] = (float*)bench_alloc(n * sizeof(float));
  float* rain = (float*)bench_alloc(plane * sizeof(float));
  for (int z = 0; z < nz; ++z)
    for (size_t c = 0; c < plane; ++c) {
      size_t i = z * plane + c;
      f[6][i] = 1000.0f - 900.0f * z / nz;                              // pressure falls with height
      f[0][i] = 300.0f - 60.0f * z / nz + 4.0f * bench_unitf(&s);        // temperature
      f[2][i] = qsat(f[0][i], f[6][i]) * (0.8f + 0.4f * bench_unitf(&s)); // near saturation
      f[4][i] = f[5][i] = 0.0f;
    }
  float *d[7], *d_rain;
  for (int a = 0; a < 7; ++a) {
    BENCH_CUDA(cudaMalloc(&d[a], n * sizeof(float)));
    cudaMemcpy(d[a], f[a], n * sizeof(float), cudaMemcpyHostToDevice);
  }
  BENCH_CUDA(cudaMalloc(&d_rain, plane * sizeof(float)));
  cudaMemset(d_rain, 0, plane * sizeof(float));
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
  for (int st = 0; st < steps; ++st) {
    int a = st & 1;  // t and qv in d[a], d[2 + a]; advect into the other pair
    wp_advect<<<grid, block>>>(d[a], d[2 + a], d[1 - a], d[3 - a], nx, ny, nz);
    wp_micro<<<grid, block>>>(d[1 - a], d[3 - a], d[4], d[5], d[6], d_rain, nx, ny, nz);
  }
  BENCH_CUDA(cudaGetLastError());
  int fin = steps & 1;
  float* gt = (float*)bench_alloc(n * sizeof(float));
  float* gr = (float*)bench_alloc(n * sizeof(float));
  float* grain = (float*)bench_alloc(plane * sizeof(float));
  cudaMemcpy(gt, d[fin], n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(gr, d[5], n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(grain, d_rain, plane * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same steps
  for (int st = 0; st < steps; ++st) {
    int a = st & 1;
    float *t0 = f[a], *q0 = f[2 + a], *t1 = f[1 - a], *q1 = f[3 - a];
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          size_t c = z * plane + (size_t)y * nx + x;
          if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
            t1[c] = t0[c], q1[c] = q0[c];
            continue;
          }
          float lt = t0[c - 1] + t0[c + 1] + t0[c - nx] + t0[c + nx] + t0[c - plane] + t0[c + plane] - 6.0f * t0[c];
          float lq = q0[c - 1] + q0[c + 1] + q0[c - nx] + q0[c + nx] + q0[c - plane] + q0[c + plane] - 6.0f * q0[c];
          t1[c] = t0[c] + KDIFF * lt;
          q1[c] = q0[c] + KDIFF * lq;
        }
    for (size_t c = 0; c < plane; ++c) micro_column(t1, q1, f[4], f[5], f[6], rain, c, plane, nz);
  }
  double total = 0;
  for (size_t i = 0; i < n; ++i)
    if (!bench_close(gt[i], f[fin][i], 1e-4) || !bench_close(gr[i], f[5][i], 1e-3)) {
      printf("weather: cell %zu: t %g rain water %g, expected %g and %g\n", i, gt[i], gr[i], f[fin][i], f[5][i]);
      return 1;
    }
  for (size_t c = 0; c < plane; ++c) {
    if (!bench_close(grain[c], rain[c], 1e-3)) {
      printf("weather: column %zu: surface rain %g, expected %g\n", c, grain[c], rain[c]);
      return 1;
    }
    total += rain[c];
  }
  printf("weather: %dx%dx%d, %d steps, surface rain %.5f: ok\n", nx, ny, nz, steps, total);
  return 0;
}
