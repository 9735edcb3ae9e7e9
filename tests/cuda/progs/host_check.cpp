// A C++ file of a CUDA program that calls the runtime API from host code only (no kernels):
// `strata cuda build` compiles it as C++ with Strata's CUDA headers on the include path.
#include <cuda_runtime.h>
#include <cstdio>

int report_device() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  std::printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  return 0;
}
