// dct8x8: forward and inverse 2D DCT-II of an image in 8x8 blocks, as in JPEG (the CUDA SDK's dct8x8
// problem, HAC's DCT): a 32x8-thread block holds four 8x8 blocks in shared memory, one thread per
// pixel; the transform is two passes of 8-term dot products with the orthonormal DCT matrix, rows then
// columns, with a barrier between. dct8x8_inverse applies the transposed matrix.
// Usage: dct8x8 [WIDTH [HEIGHT [SEED]]]   (multiples of 32 and 8)
#include <cuda_runtime.h>

#include "bench.h"

#define BW 32
#define BH 8

__constant__ float dct_mat[8][8];  // dct_mat[k][n] = c(k) cos((2n+1) k pi / 16)

// inverse = 0: out = C X C^T; inverse = 1: out = C^T X C.
__global__ void dct8x8(const float* src, float* dst, int width, int inverse) {
  __shared__ float blk[BH][BW];
  __shared__ float tmp[BH][BW];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * BW + tx, y = blockIdx.y * BH + ty;
  int bx = tx & ~7, u = tx & 7;  // this thread's 8x8 block (column offset in the tile) and column
  blk[ty][tx] = src[(size_t)y * width + x];
  __syncthreads();
  // row pass: tmp[ty][u] = sum_n blk[ty][n] M[u][n]  (M = C, or C^T for the inverse)
  float s = 0.0f;
  for (int n = 0; n < 8; ++n) s += blk[ty][bx + n] * (inverse ? dct_mat[n][u] : dct_mat[u][n]);
  tmp[ty][tx] = s;
  __syncthreads();
  // column pass: out[ty][u] = sum_n M[ty][n] tmp[n][u]
  s = 0.0f;
  for (int n = 0; n < 8; ++n) s += (inverse ? dct_mat[n][ty] : dct_mat[ty][n]) * tmp[n][tx];
  dst[(size_t)y * width + x] = s;
}

int main(int argc, char** argv) {
  int width = bench_arg(argc, argv, 1, 1024, "WIDTH");
  int height = bench_arg(argc, argv, 2, 1024, "HEIGHT");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  if (width % BW || height % BH) {
    fprintf(stderr, "dct8x8: WIDTH must be a multiple of %d and HEIGHT of %d\n", BW, BH);
    return 2;
  }
  float c[8][8];
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 8; ++n)
      c[k][n] = (float)((k ? sqrt(2.0 / 8) : sqrt(1.0 / 8)) * cos((2 * n + 1) * k * M_PI / 16));
  BENCH_CUDA(cudaMemcpyToSymbol(dct_mat, c, sizeof c));
  size_t n = (size_t)width * height;
  uint64_t s = (uint64_t)seed;
  float* img = (float*)bench_alloc(n * sizeof(float));
  for (int y = 0; y < height; ++y)  // a smooth image with noise, as a photograph
    for (int x = 0; x < width; ++x)
      img[(size_t)y * width + x] = (float)(128.0 + 60.0 * sin(x * 0.05) * cos(y * 0.03) + 20.0 * bench_unit(&s));
  float *d_src, *d_coef, *d_dst;
  BENCH_CUDA(cudaMalloc(&d_src, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_coef, n * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_dst, n * sizeof(float)));
  cudaMemcpy(d_src, img, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(BW, BH), grid(width / BW, height / BH);
  dct8x8<<<grid, block>>>(d_src, d_coef, width, 0);
  dct8x8<<<grid, block>>>(d_coef, d_dst, width, 1);
  BENCH_CUDA(cudaGetLastError());
  float* coef = (float*)bench_alloc(n * sizeof(float));
  float* back = (float*)bench_alloc(n * sizeof(float));
  cudaMemcpy(coef, d_coef, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(back, d_dst, n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the forward transform of every block in double; the inverse must give the image back
  double dc = 0;
  for (int y0 = 0; y0 < height; y0 += 8)
    for (int x0 = 0; x0 < width; x0 += 8)
      for (int v = 0; v < 8; ++v)
        for (int u = 0; u < 8; ++u) {
          double want = 0;
          for (int j = 0; j < 8; ++j)
            for (int i = 0; i < 8; ++i) want += (double)c[v][j] * c[u][i] * img[(size_t)(y0 + j) * width + x0 + i];
          size_t at = (size_t)(y0 + v) * width + x0 + u;
          if (!bench_close(coef[at], want, 2e-3)) {
            printf("dct8x8: coefficient %d,%d of block %d,%d is %g, expected %g\n", v, u, y0 / 8, x0 / 8, coef[at], want);
            return 1;
          }
          if (!u && !v) dc += want;
        }
  for (size_t i = 0; i < n; ++i)
    if (!bench_close(back[i], img[i], 2e-3)) {
      printf("dct8x8: pixel %zu comes back as %g, expected %g\n", i, back[i], img[i]);
      return 1;
    }
  printf("dct8x8: %dx%d, %d blocks, mean DC %.3f: ok\n", width, height, (int)(n / 64), dc / (n / 64));
  return 0;
}
