// Tiles larger than a warp synchronise on named barriers 1..15, so a block holds at most 15 of them:
// 1024 threads in tiles of 64 are 16 tiles, and the kernel traps (strata stops with one line, exit 2).
#include <cooperative_groups.h>
#include <stdio.h>
namespace cg = cooperative_groups;

__global__ void too_many(int* out) {
  cg::thread_block_tile<64> t = cg::tiled_partition<64>(cg::this_thread_block());
  t.sync();
  out[threadIdx.x] = (int)t.meta_group_rank();
}

int main() {
  int* d;
  cudaMalloc(&d, 1024 * sizeof(int));
  too_many<<<1, 1024>>>(d);
  cudaDeviceSynchronize();
  printf("too_many: not stopped\n");
  return 0;
}
