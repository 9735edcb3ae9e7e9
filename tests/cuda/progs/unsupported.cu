// A kernel with an instruction Strata's PTX executor does not implement (a breakpoint): the run
// must stop with one line naming it (exit 2).
__global__ void trap(int* x) {
  asm volatile("brkpt;");
  x[threadIdx.x] = 1;
}
int main() {
  int* d;
  cudaMalloc(&d, 128);
  trap<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  return 0;
}
