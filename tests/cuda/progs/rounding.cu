// __fmul_rn / __fadd_rn stay two roundings (never merged into an fma, CUDA Math API); fmaf is one.
// (1 + 2^-12)^2 - (1 + 2^-11): 0 with the product rounded first, 2^-24 fused. Exit 0 when both agree with
// the host.
#include <stdio.h>
__global__ void k(const float* a, float* out) { out[0] = __fadd_rn(__fmul_rn(a[0], a[1]), a[2]); out[1] = fmaf(a[0], a[1], a[2]); }
int main() {
  float h[3] = {1.0f + 1.0f / (1 << 12), 1.0f + 1.0f / (1 << 12), -(1.0f + 1.0f / (1 << 11))}, o[2], *da, *dout;
  cudaMalloc(&da, sizeof h); cudaMalloc(&dout, sizeof o);
  cudaMemcpy(da, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, 1>>>(da, dout);
  cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
  volatile float p = h[0] * h[1]; float sep = p + h[2];
  printf("separate %g (host %g), fused %g (host %g)\n", o[0], sep, o[1], fmaf(h[0], h[1], h[2]));
  return !(o[0] == sep && o[1] == fmaf(h[0], h[1], h[2]) && o[0] != o[1]);
}
