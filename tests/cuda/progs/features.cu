// A CUDA source written the way the common benchmark suites write theirs (cuda.h, cudaMalloc,
// cudaMemcpy, dim3, <<< >>>, __shared__, __syncthreads, atomics, __constant__ with
// cudaMemcpyToSymbol, cudaThreadSynchronize, cudaGetLastError), using the device functions of
// Strata's CUDA headers: the build test compiles it and checks the PTX for each feature.
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 256

__constant__ float coeff[4];
__device__ unsigned int big_values;

__device__ float smooth(float v) { return sqrtf(fabsf(v)) * coeff[0] + expf(v * 0.001f) + __fdividef(v, 3.0f); }

__global__ void features(const float* in, float* out, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    float v = tile[(threadIdx.x + 1) % BLOCK];
    float r = smooth(v) + min(i, 7) + max(v, 1.0f) + powf(v, 0.5f);
    if (v > 10.0f) atomicAdd(&big_values, 1u);
    unsigned b = __ballot_sync(0xffffffffu, v > 5.0f);
    r += __popc(b) + __shfl_down_sync(0xffffffffu, v, 1);
    out[i] = r;
  }
}

__global__ void histogram(const int* keys, int* bins, int n, int nbins) {
  extern __shared__ int local[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[keys[i] % nbins], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  float *h = (float*)malloc(n * sizeof(float)), *d_in, *d_out;
  for (int i = 0; i < n; ++i) h[i] = i * 0.5f;
  cudaMalloc((void**)&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
  float c[4] = {2, 0, 0, 0};
  cudaMemcpyToSymbol(coeff, c, sizeof c);
  dim3 grid((n + BLOCK - 1) / BLOCK), block(BLOCK);
  features<<<grid, block>>>(d_in, d_out, n);
  cudaThreadSynchronize();
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    printf("features: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  unsigned big = 0;
  cudaMemcpyFromSymbol(&big, big_values, sizeof big);
  printf("out[0] %f, values above 10: %u\n", h[0], big);
  cudaFree(d_in);
  cudaFree(d_out);
  free(h);
  return 0;
}
