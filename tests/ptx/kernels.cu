// Test kernels of the PTX front end (tests/ptx/test_ptx.c), compiled to PTX by clang 14 at
// build time with no NVIDIA software: the builtins below stand in for the CUDA headers.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define tid_x() __nvvm_read_ptx_sreg_tid_x()
#define tid_y() __nvvm_read_ptx_sreg_tid_y()
#define ntid_x() __nvvm_read_ptx_sreg_ntid_x()
#define ntid_y() __nvvm_read_ptx_sreg_ntid_y()
#define ctaid_x() __nvvm_read_ptx_sreg_ctaid_x()
#define nctaid_x() __nvvm_read_ptx_sreg_nctaid_x()
#define gid() (ctaid_x() * ntid_x() + tid_x())

extern "C" {

// Nested ifs: every thread takes a path by its id; out[i] names the path.
__global__ void nested_if(int *out, int n) {
  int i = gid();
  if (i >= n) return;  // early return of the tail
  int r;
  if (i & 1) {
    if (i & 2) r = 3 * i;
    else r = 5 * i + 1;
    if (i % 7 == 0) r += 1000;
  } else {
    if (i % 3 == 0) {
      r = -i;
    } else {
      r = i * i;
      if (i > 40) r -= 7;
    }
  }
  out[i] = r;
}

// Loops with break and continue and a data-dependent trip count.
__global__ void loops(int *out, const int *in, int n) {
  int i = gid();
  if (i >= n) return;
  int lim = in[i];
  int acc = 0;
  for (int j = 0; j < lim; j++) {
    if (j % 3 == 1) continue;
    if (acc > 500) break;
    acc += j * (i + 1);
    int k = j;
    while (k > 0) {
      if (k == 5) break;
      acc ^= k;
      k -= 2;
    }
  }
  out[i] = acc;
}

// Early return inside a loop.
__global__ void early_return(int *out, int n) {
  int i = gid();
  out[i] = -1;
  for (int j = 0; j < 64; j++) {
    if (j * j > i * 3 + n) {
      out[i] = j;
      return;
    }
  }
  out[i] = 99;
}

// Block-wide tree reduction in shared memory with __syncthreads.
__global__ void reduce(int *out, const int *in) {
  __shared__ int s[256];
  unsigned t = tid_x();
  s[t] = in[gid()];
  __syncthreads();
  for (unsigned stride = ntid_x() / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[ctaid_x()] = s[0];
}

// Dynamic (extern) shared memory: reverse a block's slice.
extern __shared__ float dyn[];
__global__ void reverse(float *out, const float *in) {
  unsigned t = tid_x(), n = ntid_x();
  dyn[t] = in[gid()];
  __syncthreads();
  out[gid()] = dyn[n - 1 - t];
}

// Atomics under contention: every thread hits the same few words.
__global__ void atomics(unsigned *cnt, int *mn, int *mx, unsigned long long *sum64, float *fsum, unsigned *wrap,
                        unsigned *bits, int *cas_count) {
  int i = gid();
  __nvvm_atom_add_gen_i((int *)cnt, 1);
  __nvvm_atom_min_gen_i(mn, 1000 - i);
  __nvvm_atom_max_gen_i(mx, i * 3 - 50);
  __nvvm_atom_add_gen_ll((long long *)sum64, (long long)i * 1000003LL);
  __nvvm_atom_add_gen_f(fsum, 0.5f);
  __nvvm_atom_inc_gen_ui(wrap, 9u);
  __nvvm_atom_or_gen_i((int *)bits, 1 << (i & 31));
  // lock-free increment through compare-and-swap
  int old = *cas_count, assumed;
  do {
    assumed = old;
    old = __nvvm_atom_cas_gen_i(cas_count, assumed, assumed + 2);
  } while (old != assumed);
}

// Shared-memory atomics: a histogram per block.
__global__ void histogram(unsigned *out, const unsigned *in, int bins) {
  __shared__ unsigned h[64];
  unsigned t = tid_x();
  if (t < 64) h[t] = 0;
  __syncthreads();
  __nvvm_atom_add_gen_i((int *)&h[in[gid()] % bins], 1);
  __syncthreads();
  if (t < (unsigned)bins) __nvvm_atom_add_gen_i((int *)&out[t], (int)h[t]);
}

// Warp shuffles and votes.
__global__ void warp_ops(int *out, const int *in) {
  int i = gid();
  int v = in[i];
  int sum = v;
  for (int o = 16; o > 0; o /= 2) sum += __nvvm_shfl_sync_down_i32(0xffffffff, sum, o, 31);
  int up = __nvvm_shfl_sync_up_i32(0xffffffff, v, 3, 0);
  int bf = __nvvm_shfl_sync_bfly_i32(0xffffffff, v, 5, 31);
  int ix = __nvvm_shfl_sync_idx_i32(0xffffffff, v, (i * 7) & 31, 31);
  unsigned ballot = __nvvm_vote_ballot_sync(0xffffffff, v > 50);
  int all = __nvvm_vote_all_sync(0xffffffff, v >= 0);
  int any = __nvvm_vote_any_sync(0xffffffff, v > 95);
  out[i * 7 + 0] = sum;
  out[i * 7 + 1] = up;
  out[i * 7 + 2] = bf;
  out[i * 7 + 3] = ix;
  out[i * 7 + 4] = (int)ballot;
  out[i * 7 + 5] = all;
  out[i * 7 + 6] = any;
}

// Device-function calls (kept out of line) with scalar, double and struct-by-value arguments.
struct pair { int a; float b; };
__device__ __attribute__((noinline)) float scale(float x, int k) { return x * (float)k + 0.25f; }
__device__ __attribute__((noinline)) double dpoly(double x) { return (x * x - 3.0) * x + 1.5; }
__device__ __attribute__((noinline)) int pick(struct pair p, int sel) {
  if (sel & 1) return p.a * 2;
  return (int)(p.b * 3.0f);
}
__device__ __attribute__((noinline)) int fib(int n) {
  int a = 0, b = 1;
  for (int k = 0; k < n; k++) { int t = a + b; a = b; b = t; }
  return a;
}
__global__ void calls(float *fo, double *dout, int *io, int n) {
  int i = gid();
  if (i >= n) return;
  fo[i] = scale((float)i * 0.5f, i % 5);
  dout[i] = dpoly((double)i / 8.0);
  struct pair p = {i, (float)i * 0.75f};
  int r = 0;
  if (i % 3 != 0) r = pick(p, i);  // divergent call
  io[i] = r + fib(i % 20);
}

// Local memory: an indexed per-thread array.
__global__ void local_array(int *out, const int *in) {
  int i = gid();
  int a[16];
  for (int k = 0; k < 16; k++) a[k] = in[i] * k + (k ^ i);
  int idx = in[i] & 15;
  int s = 0;
  for (int k = 0; k <= idx; k++) s += a[(k * 5 + i) & 15];
  out[i] = s;
}

// Integer and float arithmetic in one kernel (compared with the same C on the host).
__constant__ int ctab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__global__ void arith(int *io, unsigned *uo, long long *lo, float *fo, double *dout, const int *in, const float *fin) {
  int i = gid();
  int a = in[2 * i], b = in[2 * i + 1];
  unsigned ua = (unsigned)a, ub = (unsigned)b;
  io[8 * i + 0] = a / (b | 1);
  io[8 * i + 1] = a % (b | 1);
  io[8 * i + 2] = (a < b ? a : b) + (a > b ? a : b) * 3;
  io[8 * i + 3] = a >> (b & 31);
  io[8 * i + 4] = __builtin_popcount(ua) + __builtin_clz(ua | 1) * 100;
  io[8 * i + 5] = (a * b) ^ (a + b) ^ ctab[i & 7];
  io[8 * i + 6] = (int)__builtin_bitreverse32(ua);
  io[8 * i + 7] = a < 0 ? -a : a;
  uo[4 * i + 0] = ua / (ub | 1);
  uo[4 * i + 1] = ua % (ub | 1);
  uo[4 * i + 2] = ua >> (ub & 31);
  uo[4 * i + 3] = (ua * 2654435761u) >> 7;
  lo[2 * i + 0] = (long long)a * (long long)b;
  lo[2 * i + 1] = ((long long)a << 20) / ((long long)b | 1);
  float x = fin[2 * i], y = fin[2 * i + 1];
  fo[6 * i + 0] = x * y + x;
  fo[6 * i + 1] = x / y;
  fo[6 * i + 2] = __nvvm_sqrt_rn_f(x < 0 ? -x : x);
  fo[6 * i + 3] = (float)(int)(x * 10.0f);
  fo[6 * i + 4] = __nvvm_fmin_f(x, y) - __nvvm_fmax_f(x, y);
  fo[6 * i + 5] = (float)ua;
  double dx = (double)x, dy = (double)y;
  dout[3 * i + 0] = dx * dy - dx / (dy + 3.5);
  dout[3 * i + 1] = (double)(a) * 0.125;
  dout[3 * i + 2] = (double)(long long)(dx * 1e6);
}

// A 2-D block with __syncthreads inside a loop: a tiled matrix multiply (16x16 tiles).
__global__ void matmul(float *c, const float *a, const float *b, int n) {
  __shared__ float ta[16][16], tb[16][16];
  int tx = tid_x(), ty = tid_y();
  int row = __nvvm_read_ptx_sreg_ctaid_y() * 16 + ty, col = ctaid_x() * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / 16; t++) {
    ta[ty][tx] = a[row * n + t * 16 + tx];
    tb[ty][tx] = b[(t * 16 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; k++) acc += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// Math functions without a PTX instruction: calls of libdevice-named external functions, as
// Strata's CUDA headers emit them, computed natively by the executor.
__device__ float __nv_expf(float);
__device__ float __nv_powf(float, float);
__device__ float __nv_ldexpf(float, int);
__device__ double __nv_atan2(double, double);
__device__ double __nv_log(double);
__global__ void mathfn(float *fo, double *dout, const float *in) {
  int i = gid();
  float x = in[i];
  fo[3 * i + 0] = __nv_expf(x);
  fo[3 * i + 1] = __nv_powf(x < 0 ? -x : x, 1.5f);
  fo[3 * i + 2] = __nv_ldexpf(x, i % 7 - 3);
  dout[2 * i + 0] = __nv_atan2((double)x, 0.5 + i);
  if (x > 0) dout[2 * i + 1] = __nv_log((double)x);  // a divergent call
}

// Compute-bound kernel for the speed benchmark (bench_ptx): a long dependent float chain.
__global__ void compute(float *out, int iters) {
  int i = gid();
  float x = (float)i * 0.001f, y = 1.0f, z = 0.5f;
  for (int k = 0; k < iters; k++) {
    x = x * 0.999f + y;
    y = y * 0.5f + z * x;
    z = z + 0.001f * y;
    if (x > 1000.0f) x -= 1000.0f;
  }
  out[i] = x + y + z;
}

}  // extern "C"
