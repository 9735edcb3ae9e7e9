// conv2d: 2D convolution with a fixed 3x3 filter over the interior of an image (Polybench's 2DCONV,
// whose GPU version HMS runs as 2DConv): one thread per output pixel, 9 loads and one store.
// Usage: conv2d [NX [NY [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define TX 32
#define TY 8

__global__ void conv2d_kernel(const float* a, float* b, int nx, int ny) {
  const float c11 = 0.2f, c21 = 0.5f, c31 = -0.8f, c12 = -0.3f, c22 = 0.6f, c32 = -0.9f, c13 = 0.4f,
              c23 = 0.7f, c33 = 0.10f;
  int j = blockIdx.x * TX + threadIdx.x, i = blockIdx.y * TY + threadIdx.y;
  if (i < 1 || j < 1 || i >= ny - 1 || j >= nx - 1) return;
  const float* r0 = a + (size_t)(i - 1) * nx;
  const float* r1 = r0 + nx;
  const float* r2 = r1 + nx;
  b[(size_t)i * nx + j] = c11 * r0[j - 1] + c12 * r0[j] + c13 * r0[j + 1] + c21 * r1[j - 1] + c22 * r1[j] +
                          c23 * r1[j + 1] + c31 * r2[j - 1] + c32 * r2[j] + c33 * r2[j + 1];
}

int main(int argc, char** argv) {
  int nx = bench_arg(argc, argv, 1, 2048, "NX");
  int ny = bench_arg(argc, argv, 2, 2048, "NY");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  size_t n = (size_t)nx * ny;
  uint64_t s = (uint64_t)seed;
  float* a = (float*)bench_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) a[i] = bench_unitf(&s);
  float *d_a, *d_b;
  BENCH_CUDA(cudaMalloc(&d_a, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_b, n * sizeof(float)));
  cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_b, 0, n * sizeof(float));
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY - 1) / TY);
  conv2d_kernel<<<grid, block>>>(d_a, d_b, nx, ny);
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(got, d_b, n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference (the border stays 0)
  const float c[3][3] = {{0.2f, -0.3f, 0.4f}, {0.5f, 0.6f, 0.7f}, {-0.8f, -0.9f, 0.10f}};
  double sum = 0;
  for (int i = 0; i < ny; ++i)
    for (int j = 0; j < nx; ++j) {
      double want = 0;
      if (i > 0 && j > 0 && i < ny - 1 && j < nx - 1)
        for (int di = 0; di < 3; ++di)
          for (int dj = 0; dj < 3; ++dj) want += c[di][dj] * a[(size_t)(i - 1 + di) * nx + j - 1 + dj];
      if (!bench_close(got[(size_t)i * nx + j], want, 1e-5)) {
        printf("conv2d: pixel %d,%d is %g, expected %g\n", i, j, got[(size_t)i * nx + j], want);
        return 1;
      }
      sum += want;
    }
  printf("conv2d: %dx%d, sum %.4f: ok\n", nx, ny, sum);
  return 0;
}
