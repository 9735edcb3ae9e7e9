// laplace: Jacobi iteration for Laplace's equation on a 3D grid (the 3D Laplace solver of Giles's
// CUDA course that GPGPU-Sim's LPS and HAC run): every interior point becomes the average of its 6
// neighbours, boundary points keep their (Dirichlet) value. A thread owns an (x, y) column and marches
// along z; iterations alternate between two grids.
// Usage: laplace [NX [NY [NZ [ITERS [SEED]]]]]
#include <cuda_runtime.h>

#include "bench.h"

#define TX 32
#define TY 4

__global__ void laplace3d(const float* u1, float* u2, int nx, int ny, int nz) {
  int i = blockIdx.x * TX + threadIdx.x, j = blockIdx.y * TY + threadIdx.y;
  if (i >= nx || j >= ny) return;
  size_t plane = (size_t)nx * ny, at = (size_t)j * nx + i;
  const float sixth = 1.0f / 6.0f;
  bool edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
  for (int k = 0; k < nz; ++k, at += plane) {
    if (edge || k == 0 || k == nz - 1)
      u2[at] = u1[at];
    else
      u2[at] = (u1[at - 1] + u1[at + 1] + u1[at - nx] + u1[at + nx] + u1[at - plane] + u1[at + plane]) * sixth;
  }
}

int main(int argc, char** argv) {
  int nx = bench_arg(argc, argv, 1, 128, "NX");
  int ny = bench_arg(argc, argv, 2, 128, "NY");
  int nz = bench_arg(argc, argv, 3, 64, "NZ");
  int iters = bench_arg(argc, argv, 4, 4, "ITERS");
  int seed = bench_arg(argc, argv, 5, 1, "SEED");
  size_t n = (size_t)nx * ny * nz;
  float* a = (float*)bench_alloc(n * sizeof(float));
  float* b = (float*)bench_alloc(n * sizeof(float));
  uint64_t s = (uint64_t)seed;
  // boundary 1 on the faces, random interior
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        size_t at = ((size_t)k * ny + j) * nx + i;
        int edge = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
        a[at] = edge ? 1.0f : bench_unitf(&s);
      }
  float* d[2];
  BENCH_CUDA(cudaMalloc(&d[0], n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d[1], n * sizeof(float)));
  cudaMemcpy(d[0], a, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
  for (int t = 0; t < iters; ++t) laplace3d<<<grid, block>>>(d[t & 1], d[(t + 1) & 1], nx, ny, nz);
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(got, d[iters & 1], n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int t = 0; t < iters; ++t) {
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          size_t at = ((size_t)k * ny + j) * nx + i, plane = (size_t)nx * ny;
          if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
            b[at] = a[at];
          else
            b[at] = (a[at - 1] + a[at + 1] + a[at - nx] + a[at + nx] + a[at - plane] + a[at + plane]) * (1.0f / 6.0f);
        }
    float* tmp = a;
    a = b, b = tmp;
  }
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!bench_close(got[i], a[i], 1e-5)) {
      printf("laplace: point %zu is %g, expected %g\n", i, got[i], a[i]);
      return 1;
    }
    sum += a[i];
  }
  printf("laplace: %dx%dx%d, %d iterations, sum %.4f: ok\n", nx, ny, nz, iters, sum);
  return 0;
}
