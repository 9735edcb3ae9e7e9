// Self-checking CUDA program for `strata cuda run` tests: a vector add, a shared-memory block
// reduction with atomics into one total, a host loop that relaunches a kernel until nothing changes
// (a label propagation, as bfs-style programs do) and a shared-memory access with a bank conflict. Each result is checked on the host
// against a CPU reference; the exit status says whether all agree. Usage: selfcheck [N] [FAIL]
// (FAIL = 1 makes the program report a failure on purpose: the run must pass its status through).
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 128

__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void block_sum(const int* x, int n, unsigned long long* total) {
  __shared__ int part[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)part[0]);
}

// One step of minimum-label propagation along a chain graph, double-buffered so that no thread reads
// what another writes in the same launch: out[i] = min(in[i], in[i-1]).
__global__ void propagate(const int* in, int* out, int n, int* changed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int l = in[i];
    if (i > 0 && in[i - 1] < l) {
      l = in[i - 1];
      *changed = 1;
    }
    out[i] = l;
  }
}

// Shared memory with a stride of two words: lanes l and l + 16 reach different words of one bank (a
// two-way bank conflict on each of the two shared-memory instructions).
__global__ void strided(int* out) {
  __shared__ int s[64];
  s[threadIdx.x * 2] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[((threadIdx.x + 1) % 32) * 2] + 1;  // the next lane's value
}

// Host data that changes between launches of a kernel that reads it (iterative programs copy new
// coefficients each round): the second launch must see the new values, also where the L2 kept a copy.
__global__ void twice(const int* coef, int* out) { out[threadIdx.x] = coef[threadIdx.x] * 2; }

// Contended atomics from every SM on four words, read by the next launch: it must see the final counts.
__global__ void count4(unsigned* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[i % 4], 1u);
}
__global__ void copy4(const unsigned* bins, unsigned* out) {
  if (threadIdx.x < 4) out[threadIdx.x] = bins[threadIdx.x];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int fail_on_purpose = argc > 2 ? atoi(argv[2]) : 0;
  int bad = 0;
  float *a = (float*)malloc(n * sizeof(float)), *b = (float*)malloc(n * sizeof(float)),
        *c = (float*)malloc(n * sizeof(float));
  int* x = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) a[i] = (float)i, b[i] = (float)(2 * i), x[i] = (i * 7) % 13;
  float *da, *db, *dc;
  int* dx;
  unsigned long long* dtotal;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMalloc(&dx, n * sizeof(int));
  cudaMalloc(&dtotal, sizeof(unsigned long long));
  cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(dtotal, 0, sizeof(unsigned long long));
  int blocks = (n + BLOCK - 1) / BLOCK;
  vecadd<<<blocks, BLOCK>>>(da, db, dc, n);
  block_sum<<<blocks, BLOCK>>>(dx, n, dtotal);
  cudaMemcpy(c, dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) bad += c[i] != 3.0f * i;
  unsigned long long total = 0, want = 0;
  cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) want += (unsigned long long)x[i];
  if (total != want) printf("block_sum: %llu, expected %llu\n", total, want), ++bad;

  // labels on a short chain: the minimum travels one step per launch
  int m = 64, *label = (int*)malloc(m * sizeof(int)), *dl[2], *dchanged, launches = 0;
  for (int i = 0; i < m; ++i) label[i] = i == 10 ? -1 : 1000 + i;
  cudaMalloc(&dl[0], m * sizeof(int));
  cudaMalloc(&dl[1], m * sizeof(int));
  cudaMalloc(&dchanged, sizeof(int));
  cudaMemcpy(dl[0], label, m * sizeof(int), cudaMemcpyHostToDevice);
  for (int changed = 1; changed; ++launches) {
    changed = 0;
    cudaMemcpy(dchanged, &changed, sizeof changed, cudaMemcpyHostToDevice);
    propagate<<<(m + 31) / 32, 32>>>(dl[launches & 1], dl[(launches + 1) & 1], m, dchanged);
    cudaMemcpy(&changed, dchanged, sizeof changed, cudaMemcpyDeviceToHost);
  }
  cudaMemcpy(label, dl[launches & 1], m * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < m; ++i) bad += label[i] != (i < 10 ? 1000 : -1);  // the prefix minimum
  if (launches != m - 10) printf("propagation: %d launches, expected %d\n", launches, m - 10), ++bad;
  int* dout, out[32];
  cudaMalloc(&dout, sizeof out);
  strided<<<1, 32>>>(dout);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i) bad += out[i] != (i + 1) % 32 + 1;
  cudaFree(dout);
  int coef[32], *dcoef, *dres;
  cudaMalloc(&dcoef, sizeof coef);
  cudaMalloc(&dres, sizeof out);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 32; ++i) coef[i] = i + 100 * round;
    cudaMemcpy(dcoef, coef, sizeof coef, cudaMemcpyHostToDevice);
    twice<<<1, 32>>>(dcoef, dres);
    cudaMemcpy(out, dres, sizeof out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; ++i) bad += out[i] != 2 * (i + 100 * round);
  }
  cudaFree(dcoef), cudaFree(dres);
  unsigned* dbins, *dcopy, copy[4];
  cudaMalloc(&dbins, sizeof copy);
  cudaMalloc(&dcopy, sizeof copy);
  cudaMemset(dbins, 0, sizeof copy);
  count4<<<blocks, BLOCK>>>(dbins, n);
  copy4<<<1, 32>>>(dbins, dcopy);
  cudaMemcpy(copy, dcopy, sizeof copy, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 4; ++i) bad += copy[i] != (unsigned)(n / 4 + (i < n % 4));
  cudaFree(dbins), cudaFree(dcopy);
  if (cudaGetLastError() != cudaSuccess) ++bad;
  printf("selfcheck: n %d, %d propagation launches, %d wrong\n", n, launches, bad);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dx), cudaFree(dtotal), cudaFree(dl[0]), cudaFree(dl[1]), cudaFree(dchanged);
  return bad ? 1 : fail_on_purpose ? 3 : 0;
}
