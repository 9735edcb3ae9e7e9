// hotspot3d: transient thermal simulation of a 3D chip stack (Rodinia's hotspot3D, which HMS runs;
// the compact thermal model of Huang et al., "HotSpot: a compact thermal modeling methodology", DAC
// 2004): each sweep updates every cell from its 6 neighbours (clamped at the faces), its dissipated
// power and the ambient temperature. A thread owns an (x, y) column and marches along z; sweeps
// alternate between two grids.
// Usage: hotspot3d [NX [NY [NZ [ITERS [SEED]]]]]
#include <cuda_runtime.h>

#include "bench.h"

#define TX 64
#define TY 4
#define AMB 80.0f

struct coeffs {
  float cc, cn, cs, ce, cw, ct, cb, sdc;
};

__global__ void hotspot_step(const float* power, const float* tin, float* tout, int nx, int ny, int nz,
                             struct coeffs k) {
  int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  size_t plane = (size_t)nx * ny;
  int w = x > 0 ? -1 : 0, e = x < nx - 1 ? 1 : 0;
  int n = y > 0 ? -nx : 0, s = y < ny - 1 ? nx : 0;
  size_t c = (size_t)y * nx + x;
  float below = tin[c], cur = below;
  for (int z = 0; z < nz; ++z) {
    float above = z < nz - 1 ? tin[c + plane] : cur;
    tout[c] = k.cc * cur + k.cw * tin[c + w] + k.ce * tin[c + e] + k.cn * tin[c + n] + k.cs * tin[c + s] +
              k.cb * below + k.ct * above + k.sdc * power[c] + k.ct * AMB;
    below = cur;
    cur = above;
    c += plane;
  }
}

int main(int argc, char** argv) {
  int nx = bench_arg(argc, argv, 1, 512, "NX");
  int ny = bench_arg(argc, argv, 2, 512, "NY");
  int nz = bench_arg(argc, argv, 3, 8, "NZ");
  int iters = bench_arg(argc, argv, 4, 4, "ITERS");
  int seed = bench_arg(argc, argv, 5, 1, "SEED");
  size_t n = (size_t)nx * ny * nz;
  // Rodinia's chip parameters: 0.016 m x 0.016 m x 0.0005 m, 0.5 K/W per layer
  float dx = 0.016f / nx, dy = 0.016f / ny, dz = 0.0005f / nz;
  float cap = 0.5f * 1.75e6f * 0.0005f * dx * dy;
  float rx = dy / (2.0f * 100.0f * 0.0005f * dx), ry = dx / (2.0f * 100.0f * 0.0005f * dy);
  float rz = dz / (100.0f * dx * dy);
  float dt = 0.001f / ((3.0f * 1.0e6f) / 0.01f);  // max slope of Rodinia's precision
  float stepdc = dt / cap;
  struct coeffs k;
  k.ce = k.cw = stepdc / rx;
  k.cn = k.cs = stepdc / ry;
  k.ct = k.cb = stepdc / rz;
  k.sdc = stepdc;
  k.cc = 1.0f - (2.0f * k.ce + 2.0f * k.cn + 3.0f * k.ct);
  uint64_t r = (uint64_t)seed;
  float* p = (float*)bench_alloc(n * sizeof(float));
  float* a = (float*)bench_alloc(n * sizeof(float));
  float* b = (float*)bench_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) p[i] = bench_unitf(&r) * 0.01f, a[i] = 320.0f + 20.0f * bench_unitf(&r);
  float *d_p, *d_t[2];
  BENCH_CUDA(cudaMalloc(&d_p, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_t[0], n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_t[1], n * sizeof(float)));
  cudaMemcpy(d_p, p, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_t[0], a, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
  for (int t = 0; t < iters; ++t) hotspot_step<<<grid, block>>>(d_p, d_t[t & 1], d_t[(t + 1) & 1], nx, ny, nz, k);
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(got, d_t[iters & 1], n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same update, faces clamped
  for (int t = 0; t < iters; ++t) {
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          size_t c = ((size_t)z * ny + y) * nx + x, plane = (size_t)nx * ny;
          float w = a[x > 0 ? c - 1 : c], e = a[x < nx - 1 ? c + 1 : c];
          float nn = a[y > 0 ? c - nx : c], s = a[y < ny - 1 ? c + nx : c];
          float bo = a[z > 0 ? c - plane : c], to = a[z < nz - 1 ? c + plane : c];
          b[c] = k.cc * a[c] + k.cw * w + k.ce * e + k.cn * nn + k.cs * s + k.cb * bo + k.ct * to +
                 k.sdc * p[c] + k.ct * AMB;
        }
    float* tmp = a;
    a = b, b = tmp;
  }
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!bench_close(got[i], a[i], 1e-5)) {
      printf("hotspot3d: cell %zu is %g, expected %g\n", i, got[i], a[i]);
      return 1;
    }
    sum += a[i];
  }
  printf("hotspot3d: %dx%dx%d, %d sweeps, mean temperature %.4f: ok\n", nx, ny, nz, iters, sum / n);
  return 0;
}
