// fwt: fast Walsh-Hadamard transform of 2^LOG2N values (the problem of the CUDA SDK's
// fastWalshTransform, TOM's FWT): log2 N butterfly stages; the stages with a stride of at least
// ELEMS/2 run one launch each in global memory (thread per butterfly, in place), the remaining stages
// run in one launch that loads ELEMS values per block into shared memory and does them all there with a
// barrier between stages.
// Usage: fwt [LOG2N [SEED]]
#include <cuda_runtime.h>

#include "bench.h"

#define ELEMS 1024
#define THREADS (ELEMS / 2)

__global__ void fwt_global_stage(float* d, int stride) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;  // butterfly t: pair (i, i + stride)
  int i = (t / stride) * 2 * stride + t % stride;
  float a = d[i], b = d[i + stride];
  d[i] = a + b;
  d[i + stride] = a - b;
}

__global__ void fwt_shared_stages(float* d, int top) {  // strides top/2 .. 1 inside blocks of ELEMS
  __shared__ float s[ELEMS];
  float* base = d + (size_t)blockIdx.x * ELEMS;
  s[threadIdx.x] = base[threadIdx.x];
  s[threadIdx.x + THREADS] = base[threadIdx.x + THREADS];
  __syncthreads();
  for (int stride = top / 2; stride > 0; stride >>= 1) {
    int t = threadIdx.x, i = (t / stride) * 2 * stride + t % stride;
    float a = s[i], b = s[i + stride];
    s[i] = a + b;
    s[i + stride] = a - b;
    __syncthreads();
  }
  base[threadIdx.x] = s[threadIdx.x];
  base[threadIdx.x + THREADS] = s[threadIdx.x + THREADS];
}

int main(int argc, char** argv) {
  int log2n = bench_arg(argc, argv, 1, 22, "LOG2N");
  int seed = bench_arg(argc, argv, 2, 1, "SEED");
  if (log2n < 10 || log2n > 28) {
    fprintf(stderr, "fwt: LOG2N must be in 10..28, got %d\n", log2n);
    return 2;
  }
  int n = 1 << log2n;
  uint64_t s = (uint64_t)seed;
  float* x = (float*)bench_alloc((size_t)n * sizeof(float));
  for (int i = 0; i < n; ++i) x[i] = bench_unitf(&s) * 2.0f - 1.0f;
  float* d;
  BENCH_CUDA(cudaMalloc(&d, (size_t)n * sizeof(float)));
  cudaMemcpy(d, x, (size_t)n * sizeof(float), cudaMemcpyHostToDevice);
  int launches = 0;
  for (int stride = n / 2; stride >= ELEMS; stride >>= 1, ++launches)
    fwt_global_stage<<<n / 2 / THREADS, THREADS>>>(d, stride);
  fwt_shared_stages<<<n / ELEMS, THREADS>>>(d, ELEMS);
  ++launches;
  BENCH_CUDA(cudaGetLastError());
  float* got = (float*)bench_alloc((size_t)n * sizeof(float));
  cudaMemcpy(got, d, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference in double, the same stages
  double* y = (double*)bench_alloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; ++i) y[i] = x[i];
  for (int stride = n / 2; stride > 0; stride >>= 1)
    for (int i = 0; i < n; i += 2 * stride)
      for (int j = i; j < i + stride; ++j) {
        double a = y[j], b = y[j + stride];
        y[j] = a + b, y[j + stride] = a - b;
      }
  double tol = 1e-5 * sqrt((double)n) * log2n;  // accumulated rounding of log2n float additions
  for (int i = 0; i < n; ++i)
    if (fabs(got[i] - y[i]) > tol) {
      printf("fwt: coefficient %d is %g, expected %g\n", i, got[i], y[i]);
      return 1;
    }
  printf("fwt: %d values, %d launches, coefficient 0 %.4f: ok\n", n, launches, y[0]);
  return 0;
}
