// A program of three files (.cu, .c, .cpp): the kernel and main here.
#include <stdio.h>
extern "C" float* make_input(int n);
int report_device();

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  const int n = 4096;
  float* h = make_input(n);
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<n / 128, 128>>>(d, 2.0f, n);
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += h[i] != 2.0f * (float)(i % 17);
  printf("%d wrong\n", bad);
  return report_device() || bad;
}
