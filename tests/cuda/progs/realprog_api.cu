// The runtime calls, header names and device functions that third-party CUDA programs (the CUDA
// samples, Rodinia; docs/cuda.md "Third-party programs") needed beyond Strata's own programs, each
// checked against a value worked out here: NVIDIA's include-guard names, device attributes and
// properties, host min/max, mapped host memory, stream callbacks and attributes, occupancy, kernel
// parameters above 4 KiB, directed rounding, scoped atomics, device memcpy/memset, cooperative
// groups (block, warp tiles with shuffles, tiles of two warps with a named barrier, dynamic tiles,
// coalesced groups, reduce), and CUDA calls from several host threads.
// Prints "realprog_api ok" and exits 0, or names the first wrong check and exits 1.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_profiler_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef __CUDACC__
#error "__CUDACC__ is not defined in a CUDA source"
#endif
#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_API_H__)
#error "NVIDIA's include-guard names are not defined"
#endif

namespace cg = cooperative_groups;

static int failures;
#define CHECK(cond, ...)                   \
  do {                                     \
    if (!(cond)) {                         \
      printf("realprog_api: " __VA_ARGS__); \
      printf("\n");                        \
      ++failures;                          \
    }                                      \
  } while (0)

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

struct big_params {
  int v[2000];  // 8000 bytes of parameters
};
__global__ void sum_params(const big_params p, int* out) {
  int s = 0;
  for (int i = 0; i < 2000; ++i) s += p.v[i];
  *out = s;
}

// directed rounding: 1 + 2^-30 is not a float; the four modes give 1 or the next float up
__global__ void rounding(const float* in, float* f, const double* din, double* d, int* i) {
  float a = in[0], b = in[1];  // 1, 2^-30
  f[0] = __fadd_ru(a, b);
  f[1] = __fadd_rd(a, b);
  f[2] = __fadd_rz(-a, -b);
  f[3] = __fmul_ru(f[0], 3.0f);  // (1 + 2^-23) 3 = 3 + 1.5 2^-22: up to 3 + 2^-21
  f[4] = __fdiv_rd(a, 3.0f);
  f[5] = __fdiv_ru(a, 3.0f);
  f[6] = __fsqrt_ru(2.0f);
  f[7] = __fsqrt_rd(2.0f);
  d[0] = __dadd_ru(din[0], din[1]);  // 1 + 2^-60
  d[1] = __dadd_rd(din[0], din[1]);
  d[2] = __ddiv_ru(1.0, 3.0);
  d[3] = __ddiv_rd(1.0, 3.0);
  i[0] = __float2int_rd(-2.5f);
  i[1] = __float2int_ru(-2.5f);
  i[2] = __double2int_rz(-2.5);
  i[3] = (int)__float2ll_rn(2.5f);  // to even: 2
}

// frexp, modf, nan, ilogb in device code against the host's libm
__global__ void decompose(const float* fin, const double* din, float* f, double* d, int* e) {
  f[0] = frexpf(fin[0], &e[0]);
  f[1] = frexpf(fin[1], &e[1]);  // a subnormal
  d[0] = frexp(din[0], &e[2]);
  d[1] = frexp(din[1], &e[3]);  // a subnormal
  float ip;
  f[2] = modff(fin[2], &ip);
  f[3] = ip;
  e[4] = isnan(nanf("")) && isnan(nan(""));
  e[5] = ilogbf(fin[3]);
}

__global__ void scoped(unsigned* counters, int* mx) {
  atomicAdd_system(&counters[0], 1u);
  atomicAdd_block(&counters[1], 2);
  atomicMax_system(mx, (int)(blockIdx.x * blockDim.x + threadIdx.x));
  atomicCAS_block(&counters[2], 0u, 7u);
}

struct rec {
  int a[3];
  short b;
};
__global__ void device_memcpy(const rec* in, rec* out) {
  rec t;
  memcpy(&t, in + threadIdx.x, sizeof t);
  t.a[1] += 1;
  memset(&out[threadIdx.x], 0, sizeof(rec));
  out[threadIdx.x].a[0] = t.a[0];
  out[threadIdx.x].a[1] = t.a[1];
  out[threadIdx.x].b = t.b;
}

// per thread: [0] block rank, [1] 16-tile sum of ranks by shfl_down, [2] 16-tile rank, [3] meta rank,
// [4] 64-tile sum of ranks (reduce over two warps), [5] 8-thread dynamic tile rank, [6] ballot of odd
// ranks in the 16-tile, [7] coalesced group size in the odd lanes' branch, [8] max rank in the 32-tile,
// [9] value from rank 3 of the 16-tile by shfl
__global__ void groups(int* out) {
  cg::thread_block b = cg::this_thread_block();
  const unsigned r = b.thread_rank();
  int* o = out + r * 10;
  o[0] = (int)r;
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(b);
  int v = (int)r;
  for (unsigned d = 8; d > 0; d /= 2) v += t16.shfl_down(v, d);
  o[1] = t16.shfl(v, 0);
  o[2] = (int)t16.thread_rank();
  o[3] = (int)t16.meta_group_rank();
  cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(b);
  o[4] = cg::reduce(t64, (int)r, cg::plus<int>());
  cg::thread_group t8 = cg::tiled_partition(b, 8);
  o[5] = (int)t8.thread_rank();
  o[6] = (int)t16.ballot(r & 1);
  if (r & 1) {
    cg::coalesced_group c = cg::coalesced_threads();
    o[7] = (int)c.size();
  } else {
    o[7] = 0;
  }
  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(b);
  o[8] = cg::reduce(t32, (int)r, cg::greater<int>());
  o[9] = t16.shfl((int)r * 2, 3);
  cg::sync(b);
}

static int order[4], norder;
static void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void* user) {
  order[norder++] = status == cudaSuccess ? *(int*)user : -1;
}
static void CUDART_CB on_host(void* user) { order[norder++] = *(int*)user; }

struct thread_work {
  int id, ok;
};
static void* thread_main(void* arg) {
  thread_work* w = (thread_work*)arg;
  const int n = 1000;
  int h[1000], *d = NULL;
  for (int i = 0; i < n; ++i) h[i] = w->id * 10000 + i;
  w->ok = cudaMalloc(&d, sizeof h) == cudaSuccess;
  for (int round = 0; round < 3 && w->ok; ++round) {
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    add_one<<<(n + 127) / 128, 128>>>(d, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  }
  for (int i = 0; i < n && w->ok; ++i) w->ok = h[i] == w->id * 10000 + i + 3;
  w->ok = w->ok && cudaFree(d) == cudaSuccess && cudaGetLastError() == cudaSuccess;
  return NULL;
}

int main() {
  // device properties and attributes: prop.warpSize is a member (warpSize is not a macro)
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess, "cudaGetDeviceProperties");
  CHECK(prop.warpSize == 32 && prop.canMapHostMemory == 1 && prop.maxBlocksPerMultiProcessor == 32 &&
            prop.sharedMemPerBlockOptin == prop.sharedMemPerBlock && prop.persistingL2CacheMaxSize == 0,
        "properties: warpSize %d canMapHostMemory %d maxBlocksPerMultiProcessor %d", prop.warpSize,
        prop.canMapHostMemory, prop.maxBlocksPerMultiProcessor);
  int mode = -1, integrated = -1, sms = -1, smem = -1;
  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
  cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  CHECK(mode == cudaComputeModeDefault && integrated == 0 && sms == prop.multiProcessorCount &&
            smem == (int)prop.sharedMemPerMultiprocessor,
        "attributes: compute mode %d integrated %d SMs %d shared %d", mode, integrated, sms, smem);
  CHECK(cudaDeviceGetAttribute(&mode, (cudaDeviceAttr)9999, 0) == cudaErrorInvalidValue && cudaGetLastError() ==
            cudaErrorInvalidValue,
        "an unknown attribute is cudaErrorInvalidValue");
  CHECK(strcmp(cudaGetErrorName(cudaErrorAssert), "cudaErrorAssert") == 0, "error name of cudaErrorAssert");
  CHECK(max(2.5f, 1.0f) == 2.5f && min(3, -4) == -4 && max(7u, 9u) == 9u && max(1e-40, 2.0f) == 2.0 &&
            min(-1, 5u) == 5u,
        "host min/max");
  CHECK(cudaProfilerStart() == cudaSuccess && cudaProfilerStop() == cudaSuccess, "profiler calls");

  // mapped host memory: a kernel reads and writes it through the device pointer
  const int n = 3000;
  int *mapped = NULL, *dev_mapped = NULL;
  CHECK(cudaHostAlloc(&mapped, n * sizeof(int), cudaHostAllocMapped) == cudaSuccess, "cudaHostAlloc mapped");
  CHECK(cudaHostGetDevicePointer(&dev_mapped, mapped, 0) == cudaSuccess && dev_mapped && dev_mapped != mapped,
        "cudaHostGetDevicePointer");
  for (int i = 0; i < n; ++i) mapped[i] = 5 * i;
  add_one<<<(n + 255) / 256, 256>>>(dev_mapped, n);
  cudaDeviceSynchronize();
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (mapped[i] != 5 * i + 1) bad = i;
  CHECK(bad < 0, "mapped memory after the kernel: element %d is %d", bad, bad < 0 ? 0 : mapped[bad]);
  mapped[7] = 100;  // the host's later write reaches the next kernel
  add_one<<<(n + 255) / 256, 256>>>(dev_mapped, n);
  cudaDeviceSynchronize();
  CHECK(mapped[7] == 101 && mapped[8] == 42, "mapped memory, second kernel: %d %d", mapped[7], mapped[8]);
  int* plain = (int*)malloc(64 * sizeof(int));
  void* none = NULL;
  CHECK(cudaHostGetDevicePointer(&none, plain, 0) == cudaErrorInvalidValue, "unmapped memory has no device pointer");
  cudaGetLastError();
  int* dreg = NULL;
  for (int i = 0; i < 64; ++i) plain[i] = i;
  CHECK(cudaHostRegister(plain, 64 * sizeof(int), cudaHostRegisterMapped) == cudaSuccess &&
            cudaHostGetDevicePointer(&dreg, plain + 8, 0) == cudaSuccess,
        "cudaHostRegister mapped");
  CHECK(cudaHostRegister(plain + 4, 16, cudaHostRegisterMapped) == cudaErrorHostMemoryAlreadyRegistered,
        "registering a mapped range twice");
  cudaGetLastError();
  add_one<<<1, 32>>>(dreg, 32);  // elements 8..39
  cudaDeviceSynchronize();
  CHECK(plain[7] == 7 && plain[8] == 9 && plain[39] == 40 && plain[40] == 40, "registered memory: %d %d %d %d",
        plain[7], plain[8], plain[39], plain[40]);
  int back[64];
  cudaMemcpy(back, dreg - 8, sizeof back, cudaMemcpyDeviceToHost);  // a copy from the mirror
  CHECK(back[8] == 9 && back[63] == 63, "a copy from registered memory's device pointer");
  CHECK(cudaHostUnregister(plain) == cudaSuccess && cudaFreeHost(mapped) == cudaSuccess, "unmapping");
  free(plain);

  // stream callbacks and host functions run in issue order, after the work before them
  cudaStream_t s;
  cudaStreamCreate(&s);
  int ids[3] = {1, 2, 3};
  cudaStreamAddCallback(s, on_stream, &ids[0], 0);
  cudaLaunchHostFunc(s, on_host, &ids[1]);
  cudaStreamAddCallback(0, on_stream, &ids[2], 0);
  CHECK(norder == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3, "callbacks: %d ran", norder);
  cudaStreamAttrValue policy, seen;
  memset(&policy, 0, sizeof policy);
  policy.accessPolicyWindow.num_bytes = 4096;
  policy.accessPolicyWindow.hitRatio = 0.5f;
  policy.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &policy) == cudaSuccess &&
            cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &seen) == cudaSuccess &&
            seen.accessPolicyWindow.num_bytes == 4096 && seen.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting,
        "stream attributes");
  CHECK(cudaStreamDestroy(s) == cudaSuccess && cudaStreamDestroy(cudaStreamPerThread) == cudaErrorInvalidResourceHandle,
        "stream destruction");
  cudaGetLastError();

  // occupancy from the per-SM limits
  int blocks = -1, min_grid = -1, block_size = -1;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_one, 256, 0) == cudaSuccess &&
            blocks == prop.maxThreadsPerMultiProcessor / 256,
        "occupancy of 256 threads: %d blocks", blocks);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_one, 32, 16384) == cudaSuccess &&
            blocks == (int)(prop.sharedMemPerMultiprocessor / 16384),
        "occupancy limited by shared memory: %d blocks", blocks);
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, add_one, 0, 0) == cudaSuccess &&
            block_size * (prop.maxThreadsPerMultiProcessor / block_size) == prop.maxThreadsPerMultiProcessor &&
            min_grid == prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / block_size),
        "potential block size %d, grid %d", block_size, min_grid);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void*)main, 256, 0) ==
            cudaErrorInvalidDeviceFunction,
        "occupancy of a host function");
  cudaGetLastError();

  // 8000 bytes of kernel parameters
  static big_params bp;
  int expect = 0, got = 0, *dsum = NULL;
  for (int i = 0; i < 2000; ++i) bp.v[i] = i % 97, expect += i % 97;
  cudaMalloc(&dsum, sizeof(int));
  sum_params<<<1, 1>>>(bp, dsum);
  cudaMemcpy(&got, dsum, sizeof got, cudaMemcpyDeviceToHost);
  CHECK(got == expect, "8000 bytes of parameters: sum %d, expected %d", got, expect);

  // directed rounding
  float fin[2] = {1.0f, 0x1p-30f}, fout[8];
  double din[2] = {1.0, 0x1p-60}, dout[4];
  int iout[4];
  float* df;
  double* dd;
  int* di;
  cudaMalloc(&df, 64);
  cudaMalloc(&dd, 64);
  cudaMalloc(&di, 64);
  cudaMemcpy(df, fin, sizeof fin, cudaMemcpyHostToDevice);
  cudaMemcpy(dd, din, sizeof din, cudaMemcpyHostToDevice);
  rounding<<<1, 1>>>(df, df + 2, dd, dd + 2, di);
  cudaMemcpy(fout, df + 2, sizeof fout, cudaMemcpyDeviceToHost);
  cudaMemcpy(dout, dd + 2, sizeof dout, cudaMemcpyDeviceToHost);
  cudaMemcpy(iout, di, sizeof iout, cudaMemcpyDeviceToHost);
  const float up = 1.0f + 0x1p-23f, third_dn = 0x1.555554p-2f, third_up = 0x1.555556p-2f;
  CHECK(fout[0] == up && fout[1] == 1.0f && fout[2] == -1.0f && fout[3] == 3.0f + 0x1p-21f, "float add/mul rounding: %a %a %a %a",
        fout[0], fout[1], fout[2], fout[3]);
  CHECK(fout[4] == third_dn && fout[5] == third_up, "float division rounding: %a %a", fout[4], fout[5]);
  CHECK(fout[6] == 0x1.6a09e8p+0f && fout[7] == 0x1.6a09e6p+0f, "float sqrt rounding: %a %a", fout[6], fout[7]);
  CHECK(dout[0] == 1.0 + 0x1p-52 && dout[1] == 1.0 && dout[2] > dout[3] && dout[2] - dout[3] == 0x1p-54,
        "double rounding: %a %a %a %a", dout[0], dout[1], dout[2], dout[3]);
  CHECK(iout[0] == -3 && iout[1] == -2 && iout[2] == -2 && iout[3] == 2, "conversions: %d %d %d %d", iout[0], iout[1],
        iout[2], iout[3]);

  // frexp and friends
  float xf[4] = {48.0f, 1e-40f, -2.75f, 1000.0f}, rf[4];
  double xd[2] = {0.375, -3e-310}, rd[2];
  int re[6];
  cudaMemcpy(df, xf, sizeof xf, cudaMemcpyHostToDevice);
  cudaMemcpy(dd, xd, sizeof xd, cudaMemcpyHostToDevice);
  decompose<<<1, 1>>>(df, dd, df + 4, dd + 2, di);
  cudaMemcpy(rf, df + 4, sizeof rf, cudaMemcpyDeviceToHost);
  cudaMemcpy(rd, dd + 2, sizeof rd, cudaMemcpyDeviceToHost);
  cudaMemcpy(re, di, sizeof re, cudaMemcpyDeviceToHost);
  int ex[4];
  const float mf0 = frexpf(xf[0], &ex[0]), mf1 = frexpf(xf[1], &ex[1]);
  const double md0 = frexp(xd[0], &ex[2]), md1 = frexp(xd[1], &ex[3]);
  CHECK(rf[0] == mf0 && re[0] == ex[0] && rf[1] == mf1 && re[1] == ex[1] && rd[0] == md0 && re[2] == ex[2] &&
            rd[1] == md1 && re[3] == ex[3],
        "frexp: %a %d %a %d %a %d %a %d", rf[0], re[0], rf[1], re[1], rd[0], re[2], rd[1], re[3]);
  CHECK(rf[2] == -0.75f && rf[3] == -2.0f && re[4] == 1 && re[5] == 9, "modff %g %g, nan %d, ilogbf %d", rf[2], rf[3],
        re[4], re[5]);

  // scoped atomics
  unsigned* dc;
  int* dm;
  unsigned hc[3];
  int hm = -1;
  cudaMalloc(&dc, sizeof hc);
  cudaMalloc(&dm, sizeof(int));
  cudaMemset(dc, 0, sizeof hc);
  cudaMemset(dm, 0, sizeof(int));
  scoped<<<4, 64>>>(dc, dm);
  cudaMemcpy(hc, dc, sizeof hc, cudaMemcpyDeviceToHost);
  cudaMemcpy(&hm, dm, sizeof hm, cudaMemcpyDeviceToHost);
  CHECK(hc[0] == 256 && hc[1] == 512 && hc[2] == 7 && hm == 255, "scoped atomics: %u %u %u %d", hc[0], hc[1], hc[2], hm);

  // device memcpy/memset of a struct with padding
  rec hr[32], hout[32];
  memset(hr, 0, sizeof hr);
  for (int i = 0; i < 32; ++i) hr[i].a[0] = i, hr[i].a[1] = 2 * i, hr[i].a[2] = 9, hr[i].b = (short)(100 + i);
  rec *drin, *drout;
  cudaMalloc(&drin, sizeof hr);
  cudaMalloc(&drout, sizeof hr);
  cudaMemcpy(drin, hr, sizeof hr, cudaMemcpyHostToDevice);
  device_memcpy<<<1, 32>>>(drin, drout);
  cudaMemcpy(hout, drout, sizeof hout, cudaMemcpyDeviceToHost);
  bad = -1;
  for (int i = 0; i < 32 && bad < 0; ++i)
    if (hout[i].a[0] != i || hout[i].a[1] != 2 * i + 1 || hout[i].a[2] != 0 || hout[i].b != 100 + i) bad = i;
  CHECK(bad < 0, "device memcpy/memset: record %d", bad);

  // cooperative groups in a block of 128 threads
  const int nt = 128;
  int hg[nt * 10], *dg;
  cudaMalloc(&dg, sizeof hg);
  groups<<<1, nt>>>(dg);
  cudaMemcpy(hg, dg, sizeof hg, cudaMemcpyDeviceToHost);
  bad = -1;
  for (int r = 0; r < nt && bad < 0; ++r) {
    const int* o = hg + r * 10;
    const int base16 = r / 16 * 16, base64 = r / 64 * 64;
    const int sum16 = 16 * base16 + 120, sum64 = 64 * base64 + 2016;
    unsigned odd = 0;
    for (int k = 0; k < 16; ++k) odd |= (unsigned)((base16 + k) & 1) << k;
    if (o[0] != r || o[1] != sum16 || o[2] != r % 16 || o[3] != r / 16 || o[4] != sum64 || o[5] != r % 8 ||
        o[6] != (int)odd || o[7] != (r & 1 ? 16 : 0) || o[8] != r / 32 * 32 + 31 || o[9] != (base16 + 3) * 2)
      bad = r;
  }
  CHECK(bad < 0, "cooperative groups: thread %d: %d %d %d %d %d %d %d %d %d %d", bad, hg[bad * 10], hg[bad * 10 + 1],
        hg[bad * 10 + 2], hg[bad * 10 + 3], hg[bad * 10 + 4], hg[bad * 10 + 5], hg[bad * 10 + 6], hg[bad * 10 + 7],
        hg[bad * 10 + 8], hg[bad * 10 + 9]);

  // CUDA calls from four host threads at once
  pthread_t th[4];
  thread_work w[4];
  for (int i = 0; i < 4; ++i) w[i] = {i + 1, 0}, pthread_create(&th[i], NULL, thread_main, &w[i]);
  for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  CHECK(w[0].ok && w[1].ok && w[2].ok && w[3].ok, "host threads: %d %d %d %d", w[0].ok, w[1].ok, w[2].ok, w[3].ok);

  if (failures) return 1;
  printf("realprog_api ok\n");
  return 0;
}
