// Warp shuffles of doubles (two 32-bit shuffles each): up, down, xor and indexed, checked per lane.
#include <stdio.h>
__global__ void k(double* x) { double v = x[threadIdx.x]; x[threadIdx.x] = __shfl_up_sync(0xffffffffu, v, 2) + __shfl_down_sync(0xffffffffu, v, 1) + __shfl_xor_sync(0xffffffffu, v, 3) + __shfl_sync(0xffffffffu, v, 5); }
int main() {
  double h[32], *d;
  for (int i = 0; i < 32; ++i) h[i] = i * 1.5;
  cudaMalloc(&d, sizeof h); cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, 32>>>(d); cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 32; ++i) {
    double up = (i >= 2 ? i - 2 : i) * 1.5, dn = (i + 1 < 32 ? i + 1 : i) * 1.5, x = (i ^ 3) * 1.5, id = 5 * 1.5;
    bad += h[i] != up + dn + x + id;
  }
  printf("%d wrong\n", bad);
  return bad != 0;
}
