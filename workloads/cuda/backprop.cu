// backprop: one training step of a two-layer perceptron (N inputs, 16 hidden units, 1 output) by
// error back-propagation (Rumelhart, Hinton and Williams, Nature 1986), split between GPU and host as
// in Rodinia's backprop (which HMS and TOM run): layer_forward computes the input-to-hidden products of
// 16 inputs x 16 hidden units per 16x16 block and sums them over the block's inputs in shared memory;
// the host finishes the hidden and output layers and the deltas; adjust_weights updates every
// input-to-hidden weight with momentum.
// Usage: backprop [BLOCKS [SEED]]   (N = 16 BLOCKS inputs)
#include <cuda_runtime.h>

#include "bench.h"

#define HID 16
#define ETA 0.3f
#define MOMENTUM 0.3f

// in: N+1 inputs (in[0] = 1, the bias); w, oldw: (N+1) x HID, row i = input i.
__global__ void layer_forward(const float* in, const float* w, float* partial) {
  __shared__ float x[HID];
  __shared__ float prod[HID][HID];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = 1 + blockIdx.y * HID + ty;  // input row (row 0 is the bias, summed by the host)
  if (tx == 0) x[ty] = in[i];
  __syncthreads();
  prod[ty][tx] = x[ty] * w[i * HID + tx];
  __syncthreads();
  for (int s = HID / 2; s > 0; s >>= 1) {
    if (ty < s) prod[ty][tx] += prod[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0) partial[blockIdx.y * HID + tx] = prod[0][tx];
}

__global__ void adjust_weights(const float* delta, const float* in, float* w, float* oldw, int n) {
  int j = threadIdx.x;
  int i = blockIdx.y * HID + threadIdx.y;  // rows 0..n, row 0 the bias
  if (i > n) return;
  int k = i * HID + j;
  float dw = ETA * delta[j] * in[i] + MOMENTUM * oldw[k];
  w[k] += dw;
  oldw[k] = dw;
}

static float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

int main(int argc, char** argv) {
  int blocks = bench_arg(argc, argv, 1, 4096, "BLOCKS");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  int n = HID * blocks;
  uint64_t s = (uint64_t)seed;
  size_t nw = (size_t)(n + 1) * HID;
  float* in = (float*)bench_alloc((n + 1) * sizeof(float));
  float* w = (float*)bench_alloc(nw * sizeof(float));
  float* oldw = (float*)bench_alloc(nw * sizeof(float));
  float w2[HID + 1], hidden[HID], hdelta[HID];
  in[0] = 1.0f;
  for (int i = 1; i <= n; ++i) in[i] = bench_unitf(&s);
  for (size_t k = 0; k < nw; ++k) w[k] = (bench_unitf(&s) - 0.5f) * 0.02f, oldw[k] = 0.0f;
  for (int j = 0; j <= HID; ++j) w2[j] = bench_unitf(&s) - 0.5f;
  float target = 0.9f;

  float *d_in, *d_w, *d_oldw, *d_partial, *d_delta;
  BENCH_CUDA(cudaMalloc(&d_in, (n + 1) * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_w, nw * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_oldw, nw * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_partial, (size_t)blocks * HID * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_delta, HID * sizeof(float)));
  cudaMemcpy(d_in, in, (n + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, w, nw * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_oldw, oldw, nw * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(HID, HID), grid(1, blocks);
  layer_forward<<<grid, block>>>(d_in, d_w, d_partial);
  float* partial = (float*)bench_alloc((size_t)blocks * HID * sizeof(float));
  cudaMemcpy(partial, d_partial, (size_t)blocks * HID * sizeof(float), cudaMemcpyDeviceToHost);

  // host: hidden layer from the partial sums, output layer, deltas (as Rodinia's host code)
  for (int j = 0; j < HID; ++j) {
    double sum = w[j];  // bias row
    for (int b = 0; b < blocks; ++b) sum += partial[b * HID + j];
    hidden[j] = squash((float)sum);
  }
  float o = w2[0];
  for (int j = 0; j < HID; ++j) o += hidden[j] * w2[j + 1];
  o = squash(o);
  float odelta = o * (1.0f - o) * (target - o);
  for (int j = 0; j < HID; ++j) hdelta[j] = hidden[j] * (1.0f - hidden[j]) * odelta * w2[j + 1];
  cudaMemcpy(d_delta, hdelta, sizeof hdelta, cudaMemcpyHostToDevice);
  dim3 grid2(1, (n + 1 + HID - 1) / HID);
  adjust_weights<<<grid2, block>>>(d_delta, d_in, d_w, d_oldw, n);
  BENCH_CUDA(cudaGetLastError());
  float* gw = (float*)bench_alloc(nw * sizeof(float));
  float* gold = (float*)bench_alloc(nw * sizeof(float));
  cudaMemcpy(gw, d_w, nw * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(gold, d_oldw, nw * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: every block's partial sums, then the weight update with the host's deltas
  for (int b = 0; b < blocks; ++b)
    for (int j = 0; j < HID; ++j) {
      double sum = 0;
      for (int t = 0; t < HID; ++t) sum += (double)in[1 + b * HID + t] * w[(1 + b * HID + t) * HID + j];
      if (!bench_close(partial[b * HID + j], sum, 1e-4)) {
        printf("backprop: partial sum of block %d unit %d is %g, expected %g\n", b, j, partial[b * HID + j], sum);
        return 1;
      }
    }
  double checksum = 0;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j < HID; ++j) {
      size_t k = (size_t)i * HID + j;
      float dw = ETA * hdelta[j] * in[i] + MOMENTUM * oldw[k];
      if (!bench_close(gw[k], w[k] + dw, 1e-6) || !bench_close(gold[k], dw, 1e-6)) {
        printf("backprop: weight %d,%d is %g (change %g), expected %g (change %g)\n", i, j, gw[k], gold[k], w[k] + dw, dw);
        return 1;
      }
      checksum += gw[k];
    }
  printf("backprop: %d inputs, %d hidden, output %.6f, weight sum %.6f: ok\n", n, HID, o, checksum);
  return 0;
}
