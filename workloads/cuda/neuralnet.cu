// neuralnet: the forward pass of a convolutional network for handwritten digits (Simard, Steinkraus
// and Platt, "Best practices for convolutional neural networks applied to visual document analysis",
// ICDAR 2003; the GPU port GPGPU-Sim ships as NN, which HAC runs) over a batch of 29x29 images:
// layer 1: 6 maps of 13x13, 5x5 windows at stride 2 of the image; layer 2: 50 maps of 5x5, 5x5
// windows at stride 2 of all 6 maps; layer 3: 100 neurons fully connected to the 1250 of layer 2;
// layer 4: 10 outputs. Every neuron is a bias plus a weighted sum through 1.7159 tanh(2/3 x). One kernel
// per layer, one block per (map or neuron group, image).
// Usage: neuralnet [IMAGES [SEED]]
#include <cuda_runtime.h>

#include "bench.h"

#define IN 29
#define M1 6
#define S1 13
#define M2 50
#define S2 5
#define N3 100
#define N4 10
#define W1 (M1 * 26)              // per map: bias + 25
#define W2 (M2 * (1 + M1 * 25))   // per map: bias + 6 x 25
#define W3 (N3 * (1 + M2 * S2 * S2))
#define W4 (N4 * (1 + N3))

__host__ __device__ static inline float act(float x) { return 1.7159f * tanhf(0.66666667f * x); }

// grid (M1, images), block (S1, S1)
__global__ void layer1(const float* img, const float* w, float* out) {
  int m = blockIdx.x, b = blockIdx.y, x = threadIdx.x, y = threadIdx.y;
  const float* in = img + (size_t)b * IN * IN;
  const float* k = w + m * 26;
  float s = k[0];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) s += k[1 + i * 5 + j] * in[(2 * y + i) * IN + 2 * x + j];
  out[(((size_t)b * M1 + m) * S1 + y) * S1 + x] = act(s);
}

// grid (M2, images), block (S2, S2)
__global__ void layer2(const float* l1, const float* w, float* out) {
  int m = blockIdx.x, b = blockIdx.y, x = threadIdx.x, y = threadIdx.y;
  const float* k = w + m * (1 + M1 * 25);
  float s = k[0];
  for (int c = 0; c < M1; ++c) {
    const float* in = l1 + ((size_t)b * M1 + c) * S1 * S1;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) s += k[1 + c * 25 + i * 5 + j] * in[(2 * y + i) * S1 + 2 * x + j];
  }
  out[(((size_t)b * M2 + m) * S2 + y) * S2 + x] = act(s);
}

// fully connected: grid (ceil(nout / 32), images), block 32
__global__ void layer_full(const float* in, const float* w, float* out, int nin, int nout) {
  int o = blockIdx.x * 32 + threadIdx.x, b = blockIdx.y;
  if (o >= nout) return;
  const float* k = w + (size_t)o * (1 + nin);
  const float* x = in + (size_t)b * nin;
  float s = k[0];
  for (int i = 0; i < nin; ++i) s += k[1 + i] * x[i];
  out[(size_t)b * nout + o] = act(s);
}

int main(int argc, char** argv) {
  int images = bench_arg(argc, argv, 1, 64, "IMAGES");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  size_t nimg = (size_t)images * IN * IN, n1 = (size_t)images * M1 * S1 * S1, n2 = (size_t)images * M2 * S2 * S2;
  size_t n3 = (size_t)images * N3, n4 = (size_t)images * N4;
  float* img = (float*)bench_alloc(nimg * sizeof(float));
  float* w[4];
  size_t nw[4] = {W1, W2, W3, W4};
  for (size_t i = 0; i < nimg; ++i) img[i] = bench_unitf(&s) < 0.2f ? 1.0f : -1.0f;  // sparse strokes
  for (int l = 0; l < 4; ++l) {
    w[l] = (float*)bench_alloc(nw[l] * sizeof(float));
    float scale = l == 0 ? 0.4f : l == 1 ? 0.08f : l == 2 ? 0.05f : 0.2f;
    for (size_t i = 0; i < nw[l]; ++i) w[l][i] = (bench_unitf(&s) - 0.5f) * scale;
  }
  float *d_img, *d_w[4], *d_l1, *d_l2, *d_l3, *d_l4;
  BENCH_CUDA(cudaMalloc(&d_img, nimg * sizeof(float)));
  for (int l = 0; l < 4; ++l) {
    BENCH_CUDA(cudaMalloc(&d_w[l], nw[l] * sizeof(float)));
    cudaMemcpy(d_w[l], w[l], nw[l] * sizeof(float), cudaMemcpyHostToDevice);
  }
  BENCH_CUDA(cudaMalloc(&d_l1, n1 * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_l2, n2 * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_l3, n3 * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_l4, n4 * sizeof(float)));
  cudaMemcpy(d_img, img, nimg * sizeof(float), cudaMemcpyHostToDevice);
  layer1<<<dim3(M1, images), dim3(S1, S1)>>>(d_img, d_w[0], d_l1);
  layer2<<<dim3(M2, images), dim3(S2, S2)>>>(d_l1, d_w[1], d_l2);
  layer_full<<<dim3((N3 + 31) / 32, images), 32>>>(d_l2, d_w[2], d_l3, M2 * S2 * S2, N3);
  layer_full<<<dim3(1, images), 32>>>(d_l3, d_w[3], d_l4, N3, N4);
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc(n4 * sizeof(float));
  cudaMemcpy(got, d_l4, n4 * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same network in double
  double* l1 = (double*)bench_alloc(M1 * S1 * S1 * sizeof(double));
  double* l2 = (double*)bench_alloc(M2 * S2 * S2 * sizeof(double));
  double l3[N3];
  int digits[N4] = {0};
  for (int b = 0; b < images; ++b) {
    const float* in = img + (size_t)b * IN * IN;
    for (int m = 0; m < M1; ++m)
      for (int y = 0; y < S1; ++y)
        for (int x = 0; x < S1; ++x) {
          double a = w[0][m * 26];
          for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) a += (double)w[0][m * 26 + 1 + i * 5 + j] * in[(2 * y + i) * IN + 2 * x + j];
          l1[(m * S1 + y) * S1 + x] = 1.7159 * tanh(0.66666667 * a);
        }
    for (int m = 0; m < M2; ++m)
      for (int y = 0; y < S2; ++y)
        for (int x = 0; x < S2; ++x) {
          const float* k = w[1] + m * (1 + M1 * 25);
          double a = k[0];
          for (int c = 0; c < M1; ++c)
            for (int i = 0; i < 5; ++i)
              for (int j = 0; j < 5; ++j) a += (double)k[1 + c * 25 + i * 5 + j] * l1[(c * S1 + 2 * y + i) * S1 + 2 * x + j];
          l2[(m * S2 + y) * S2 + x] = 1.7159 * tanh(0.66666667 * a);
        }
    for (int o = 0; o < N3; ++o) {
      const float* k = w[2] + (size_t)o * (1 + M2 * S2 * S2);
      double a = k[0];
      for (int i = 0; i < M2 * S2 * S2; ++i) a += (double)k[1 + i] * l2[i];
      l3[o] = 1.7159 * tanh(0.66666667 * a);
    }
    int best = 0;
    for (int o = 0; o < N4; ++o) {
      const float* k = w[3] + o * (1 + N3);
      double a = k[0];
      for (int i = 0; i < N3; ++i) a += (double)k[1 + i] * l3[i];
      double want = 1.7159 * tanh(0.66666667 * a);
      if (!bench_close(got[(size_t)b * N4 + o], want, 1e-4)) {
        printf("neuralnet: image %d output %d is %g, expected %g\n", b, o, got[(size_t)b * N4 + o], want);
        return 1;
      }
      if (got[(size_t)b * N4 + o] > got[(size_t)b * N4 + best]) best = o;
    }
    ++digits[best];
  }
  printf("neuralnet: %d images, %d weights, predicted digits", images, W1 + W2 + W3 + W4);
  for (int o = 0; o < N4; ++o) printf(" %d", digits[o]);
  printf(": ok\n");
  return 0;
}
