// Kernel printf for `strata cuda run` tests (cuda_test.py case printf): the test compares the output
// with the text it expects. Host lines before and after each launch check the order of the program's
// own output and the kernel's. Usage: kprintf [MODE]
//   MODE 0 (default): the conversions, one warp in lane order, divergent lanes, several warps
//   MODE 1: a format with an unsupported conversion (the run stops with one line, exit 2)
//   MODE 2: a format read from constant memory, with %s arguments from global and local memory
#include <stdio.h>
#include <stdlib.h>

__global__ void conversions(int i, unsigned u, long long ll, double d, float f, const char* s) {
  printf("int %d %i %u %x %X %o|%5d|%-5d|%05d|%+d|%hd|%hhd\n", i, i, u, u, u, u, i, i, i, i, (short)70000, (signed char)300);
  printf("long %ld %lld %llu %llx %zu\n", (long)ll, ll, (unsigned long long)ll, (unsigned long long)ll, (size_t)42);
  printf("float %f %.3f %e %.2E %g %G %10.4f|%-10.2f|%a\n", d, d, d, d, d, 1e-10, (double)f, (double)f, 1.0);
  printf("str %s|%8s|%-8s|%.2s|%c%c|%p|%p|100%%|%*d|%.*f\n", s, s, s, s, 'o', 'k', (void*)0x1234abcdull, (void*)0, 6, i, 2, d);
}

__global__ void lanes(int n) {
  int t = threadIdx.x;
  if (t < n && (t & 1)) printf("lane %d of warp %d\n", t % 32, t / 32);
}

__global__ void blocks() {
  printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
}

__constant__ char cfmt[] = "const format %d %s %s\n";

__global__ void from_const(const char* gstr) {
  char local[8];
  for (int k = 0; k < 7; ++k) local[k] = 'a' + k + threadIdx.x;
  local[7] = 0;
  printf(cfmt, threadIdx.x, gstr, local);
}

__global__ void bad(int x) {
  const char* f = x > 0 ? "value %y\n" : "value %d\n";  // %y: no such conversion
  printf(f, x);
}

int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  if (mode == 1) {
    printf("before\n");
    bad<<<1, 1>>>(1);
    cudaDeviceSynchronize();
    printf("not reached\n");
    return 0;
  }
  if (mode == 2) {
    char* g;
    const char text[] = "global";
    cudaMalloc(&g, sizeof text);
    cudaMemcpy(g, text, sizeof text, cudaMemcpyHostToDevice);
    from_const<<<1, 2>>>(g);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
  }
  char* s;
  const char text[] = "hello";
  cudaMalloc(&s, sizeof text);
  cudaMemcpy(s, text, sizeof text, cudaMemcpyHostToDevice);
  printf("host before\n");
  conversions<<<1, 1>>>(-42, 3735928559u, -1234567890123ll, 3.14159265358979, 2.5f, s);
  printf("host between\n");
  lanes<<<1, 32>>>(20);
  blocks<<<3, 40>>>();
  cudaDeviceSynchronize();
  printf("host after\n");
  return 0;
}
