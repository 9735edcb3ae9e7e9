// stencil: 7-point 3D Jacobi stencil, out = c0 in[x,y,z] + c1 (sum of the 6 face neighbours), as
// Parboil's stencil (which HMS runs): a 2D block of threads owns an x-y tile and marches along z,
// keeping the points below and above in registers and the current plane's tile, with its halo, in
// shared memory. Boundary points keep their value; sweeps alternate between two grids.
// Usage: stencil [NX [NY [NZ [ITERS [SEED]]]]]
#include <cuda_runtime.h>

#include "bench.h"

#define TX 32
#define TY 8

__global__ void stencil7(const float* in, float* out, int nx, int ny, int nz, float c0, float c1) {
  __shared__ float tile[TY + 2][TX + 2];
  int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < nx && y < ny;
  size_t plane = (size_t)nx * ny;
  size_t idx = (size_t)y * nx + x;
  float below = inside ? in[idx] : 0.0f;
  float cur = inside && nz > 1 ? in[plane + idx] : 0.0f;
  if (inside) out[idx] = below;  // plane 0 is boundary
  for (int z = 1; z < nz - 1; ++z) {
    size_t at = z * plane + idx;
    float above = inside ? in[at + plane] : 0.0f;
    tile[ty][tx] = cur;
    if (threadIdx.x == 0) tile[ty][0] = inside && x > 0 ? in[at - 1] : 0.0f;
    if (threadIdx.x == TX - 1) tile[ty][TX + 1] = y < ny && x + 1 < nx ? in[at + 1] : 0.0f;
    if (threadIdx.y == 0) tile[0][tx] = inside && y > 0 ? in[at - nx] : 0.0f;
    if (threadIdx.y == TY - 1) tile[TY + 1][tx] = x < nx && y + 1 < ny ? in[at + nx] : 0.0f;
    __syncthreads();
    if (inside) {
      if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
        out[at] = c0 * cur + c1 * (tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] + tile[ty + 1][tx] +
                                   below + above);
      else
        out[at] = cur;
    }
    __syncthreads();
    below = cur;
    cur = above;
  }
  if (inside && nz > 1) out[(nz - 1) * plane + idx] = cur;  // the last plane is boundary
}

int main(int argc, char** argv) {
  int nx = bench_arg(argc, argv, 1, 128, "NX");
  int ny = bench_arg(argc, argv, 2, 128, "NY");
  int nz = bench_arg(argc, argv, 3, 64, "NZ");
  int iters = bench_arg(argc, argv, 4, 4, "ITERS");
  int seed = bench_arg(argc, argv, 5, 1, "SEED");
  size_t n = (size_t)nx * ny * nz;
  const float c0 = 1.0f / 6.0f, c1 = 1.0f / 6.0f / 6.0f;
  uint64_t s = (uint64_t)seed;
  float* a = (float*)bench_alloc(n * sizeof(float));
  float* b = (float*)bench_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) a[i] = bench_unitf(&s);
  float* d[2];
  BENCH_CUDA(cudaMalloc(&d[0], n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d[1], n * sizeof(float)));
  cudaMemcpy(d[0], a, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
  for (int t = 0; t < iters; ++t) stencil7<<<grid, block>>>(d[t & 1], d[(t + 1) & 1], nx, ny, nz, c0, c1);
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(got, d[iters & 1], n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same sweeps
  for (int t = 0; t < iters; ++t) {
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          size_t i = ((size_t)z * ny + y) * nx + x;
          if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1)
            b[i] = a[i];
          else
            b[i] = c0 * a[i] + c1 * (a[i - 1] + a[i + 1] + a[i - nx] + a[i + nx] + a[i - (size_t)nx * ny] +
                                     a[i + (size_t)nx * ny]);
        }
    float* tmp = a;
    a = b, b = tmp;
  }
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!bench_close(got[i], a[i], 1e-5)) {
      printf("stencil: point %zu is %g, expected %g\n", i, got[i], a[i]);
      return 1;
    }
    sum += a[i];
  }
  printf("stencil: %dx%dx%d, %d sweeps, sum %.4f: ok\n", nx, ny, nz, iters, sum);
  return 0;
}
