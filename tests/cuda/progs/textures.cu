// Textures on linear memory for `strata cuda run` tests (cuda_test.py case textures): tex1Dfetch through
// texture objects and texture references, each result checked on the host against a CPU reference.
// Usage: textures [N] [MODE]
//   MODE 0 (default): the checks below; prints one line and exits 0 (all agree) or 1 (naming the first
//     wrong value)
//   MODE 1: a texture object on a CUDA array (not implemented: one line, exit 2)
//   MODE 2: a fetch through a texture reference that is not bound (one line, exit 2)
// Built with -D TEX2D, the program holds a 2D fetch (tex.2d, not implemented): loading it stops the run
// with one line naming the instruction (exit 2).
#include <stdio.h>
#include <stdlib.h>

texture<float, 1, cudaReadModeElementType> tref_f;
texture<int2, 1, cudaReadModeElementType> tref_i2;
texture<unsigned char, 1, cudaReadModeNormalizedFloat> tref_u8n;

// A gather through an index array (the kmeans-style use of tex1Dfetch): out[i] = sum of the values
// at idx[i*K .. i*K+K-1], coordinates out of range included (they read 0).
__global__ void gather_obj(cudaTextureObject_t vals, const int* idx, int k, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < k; ++j) s += tex1Dfetch<float>(vals, idx[i * k + j]);
  out[i] = s;
}

// Vector and narrow element types: short2 (sign extension), uchar4 read normalized, float4.
__global__ void kinds(cudaTextureObject_t s2, cudaTextureObject_t u4n, cudaTextureObject_t f4, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  short2 a = tex1Dfetch<short2>(s2, i);
  float4 b = tex1Dfetch<float4>(u4n, i);
  float4 c = tex1Dfetch<float4>(f4, i);
  out[i] = (float)a.x - 2.0f * (float)a.y + b.x + b.y + b.z + b.w + c.x - c.y + c.z * c.w;
}

// The legacy texture references.
__global__ void gather_ref(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int2 p = tex1Dfetch(tref_i2, i);
  out[i] = tex1Dfetch(tref_f, p.x) + (float)p.y + tex1Dfetch(tref_u8n, i);
}

#ifdef TEX2D
__global__ void fetch2d(cudaTextureObject_t t, float* out) {
  float4 r;
  asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w) : "l"(t), "f"(0.5f), "f"(0.5f));
  out[threadIdx.x] = r.x;
}
#endif

static unsigned long long rng = 88172645463325252ull;
static unsigned next() {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}

static int bad(const char* what, int i, double got, double want) {
  printf("textures: %s[%d] = %.9g, expected %.9g\n", what, i, got, want);
  return 1;
}

static cudaTextureObject_t linear(void* p, size_t bytes, cudaChannelFormatDesc d, cudaTextureReadMode mode) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = p;
  r.res.linear.desc = d;
  r.res.linear.sizeInBytes = bytes;
  cudaTextureDesc t = {};
  t.readMode = mode;
  cudaTextureObject_t o = 0;
  cudaError_t e = cudaCreateTextureObject(&o, &r, &t, NULL);
  if (e != cudaSuccess) {
    printf("textures: cudaCreateTextureObject: %s\n", cudaGetErrorString(e));
    exit(1);
  }
  return o;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int mode = argc > 2 ? atoi(argv[2]) : 0;
  const int k = 8, m = 3 * n;  // m values; indices in [-8, m + 8)
  float* out;
  cudaMalloc(&out, n * sizeof(float));
  if (mode == 1) {
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    cudaTextureDesc t = {};
    cudaTextureObject_t o;
    cudaCreateTextureObject(&o, &r, &t, NULL);
    printf("not reached\n");
    return 0;
  }
  if (mode == 2) {
    gather_ref<<<1, 32>>>(out, n);
    cudaDeviceSynchronize();
    printf("not reached\n");
    return 0;
  }
#ifdef TEX2D
  fetch2d<<<1, 32>>>(0, out);
#endif
  float* vals = (float*)malloc(m * sizeof(float));
  int* idx = (int*)malloc(n * k * sizeof(int));
  float* res = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < m; ++i) vals[i] = (float)(next() % 20001) / 100.0f - 100.0f;
  for (int i = 0; i < n * k; ++i) idx[i] = (int)(next() % (unsigned)(m + 16)) - 8;
  float* dvals;
  int* didx;
  cudaMalloc(&dvals, m * sizeof(float));
  cudaMalloc(&didx, n * k * sizeof(int));
  cudaMemcpy(dvals, vals, m * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(didx, idx, n * k * sizeof(int), cudaMemcpyHostToDevice);
  int fails = 0;

  // 1. the gather through a texture object, against the same sums on the host
  cudaTextureObject_t tv = linear(dvals, m * sizeof(float), cudaCreateChannelDesc<float>(), cudaReadModeElementType);
  cudaResourceDesc back;
  if (cudaGetTextureObjectResourceDesc(&back, tv) != cudaSuccess || back.res.linear.devPtr != dvals ||
      back.res.linear.sizeInBytes != m * sizeof(float) || back.res.linear.desc.x != 32 ||
      back.res.linear.desc.f != cudaChannelFormatKindFloat)
    return printf("textures: cudaGetTextureObjectResourceDesc does not give the resource back\n"), 1;
  gather_obj<<<(n + 127) / 128, 128>>>(tv, didx, k, out, n);
  cudaMemcpy(res, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0.0;
  for (int i = 0; i < n && !fails; ++i) {
    float s = 0.0f;
    for (int j = 0; j < k; ++j) {
      int x = idx[i * k + j];
      s += x >= 0 && x < m ? vals[x] : 0.0f;
    }
    if (res[i] != s) fails = bad("gather", i, res[i], s);
    total += res[i];
  }

  // 2. short2, uchar4 normalized, float4
  short2* hs = (short2*)malloc(n * sizeof(short2));
  uchar4* hu = (uchar4*)malloc(n * sizeof(uchar4));
  float4* hf = (float4*)malloc(n * sizeof(float4));
  for (int i = 0; i < n; ++i) {
    hs[i].x = (short)(next() % 65536), hs[i].y = (short)(next() % 65536);
    hu[i].x = (unsigned char)next(), hu[i].y = (unsigned char)next(), hu[i].z = (unsigned char)next(), hu[i].w = (unsigned char)next();
    hf[i].x = (float)(next() % 1000) / 8.0f, hf[i].y = (float)(next() % 1000) / 8.0f;
    hf[i].z = (float)(next() % 1000) / 8.0f, hf[i].w = (float)(next() % 1000) / 8.0f;
  }
  short2* ds;
  uchar4* du;
  float4* df;
  cudaMalloc(&ds, n * sizeof(short2));
  cudaMalloc(&du, n * sizeof(uchar4));
  cudaMalloc(&df, n * sizeof(float4));
  cudaMemcpy(ds, hs, n * sizeof(short2), cudaMemcpyHostToDevice);
  cudaMemcpy(du, hu, n * sizeof(uchar4), cudaMemcpyHostToDevice);
  cudaMemcpy(df, hf, n * sizeof(float4), cudaMemcpyHostToDevice);
  cudaTextureObject_t ts = linear(ds, n * sizeof(short2), cudaCreateChannelDesc<short2>(), cudaReadModeElementType);
  cudaTextureObject_t tu = linear(du, n * sizeof(uchar4), cudaCreateChannelDesc<uchar4>(), cudaReadModeNormalizedFloat);
  cudaTextureObject_t tf = linear(df, n * sizeof(float4), cudaCreateChannelDesc<float4>(), cudaReadModeElementType);
  kinds<<<(n + 127) / 128, 128>>>(ts, tu, tf, out, n);
  cudaMemcpy(res, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n && !fails; ++i) {
    float want = (float)hs[i].x - 2.0f * (float)hs[i].y + (float)hu[i].x / 255.0f + (float)hu[i].y / 255.0f +
                 (float)hu[i].z / 255.0f + (float)hu[i].w / 255.0f + hf[i].x - hf[i].y + hf[i].z * hf[i].w;
    if (res[i] != want) fails = bad("kinds", i, res[i], want);
  }

  // 3. texture references, bound, rebound to other memory, and the float reference fetched out of range
  int2* hp = (int2*)malloc(n * sizeof(int2));
  unsigned char* hb = (unsigned char*)malloc(n);
  for (int i = 0; i < n; ++i) {
    hp[i].x = (int)(next() % (unsigned)(m + 4)) - 2;
    hp[i].y = (int)(next() % 2001) - 1000;
    hb[i] = (unsigned char)next();
  }
  int2* dp;
  unsigned char* db;
  cudaMalloc(&dp, n * sizeof(int2));
  cudaMalloc(&db, n);
  cudaMemcpy(dp, hp, n * sizeof(int2), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, n, cudaMemcpyHostToDevice);
  size_t off = 1;
  float* dzero;
  cudaMalloc(&dzero, m * sizeof(float));
  cudaMemset(dzero, 0, m * sizeof(float));
  if (cudaBindTexture(&off, tref_f, dzero, m * sizeof(float)) != cudaSuccess || off != 0)
    return printf("textures: cudaBindTexture failed\n"), 1;
  if (cudaBindTexture(&off, tref_f, dvals, m * sizeof(float)) != cudaSuccess ||  // rebinding replaces
      cudaBindTexture(NULL, tref_i2, dp, n * sizeof(int2)) != cudaSuccess ||
      cudaBindTexture(NULL, tref_u8n, db, n) != cudaSuccess)
    return printf("textures: cudaBindTexture failed\n"), 1;
  gather_ref<<<(n + 127) / 128, 128>>>(out, n);
  cudaMemcpy(res, out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n && !fails; ++i) {
    int x = hp[i].x;
    float want = (x >= 0 && x < m ? vals[x] : 0.0f) + (float)hp[i].y + (float)hb[i] / 255.0f;
    if (res[i] != want) fails = bad("references", i, res[i], want);
  }
  if (cudaUnbindTexture(tref_f) != cudaSuccess || cudaDestroyTextureObject(tv) != cudaSuccess)
    return printf("textures: unbind or destroy failed\n"), 1;
  // CUDA's own errors: a normalized read of float data, an unregistered reference
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = dvals;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 64;
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t o;
  if (cudaCreateTextureObject(&o, &r, &td, NULL) != cudaErrorInvalidValue)
    return printf("textures: a normalized float texture was accepted\n"), 1;
  cudaGetLastError();
  if (fails) return 1;
  printf("textures: n %d, gather sum %.2f: ok\n", n, total);
  return 0;
}
