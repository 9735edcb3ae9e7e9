/* Strata's CUDA headers: cooperative_groups::reduce (CUDA C++ Programming Guide, "Cooperative Groups",
 * reduce) over a thread_block_tile, with the operators plus, less (minimum), greater (maximum),
 * bit_and, bit_or and bit_xor. Every thread of the tile gets the result. Tiles of at most 32 threads
 * combine by a butterfly of shfl.sync.bfly; larger tiles combine each warp's result through shared
 * memory between two barriers of the tile. */
#ifndef STRATA_COOPERATIVE_GROUPS_REDUCE_H
#define STRATA_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

#if defined(__cplusplus) && defined(__CUDA__)

namespace cooperative_groups {

template <class T>
struct plus {
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; }
};

namespace strata_detail {
/* Each warp's partial result of a reduction over a tile larger than a warp (one slot per warp of a
 * 1024-thread block, 16 bytes each). */
template <class T, class Op, unsigned N>
__device__ __forceinline__ T* multi_warp_slots() {
  static_assert(sizeof(T) <= 16, "cooperative_groups::reduce over more than a warp: values of at most 16 bytes");
  __shared__ __align__(16) unsigned char slots[32 * 16];
  return reinterpret_cast<T*>(slots);
}
}  // namespace strata_detail

template <class T, class Op, unsigned N>
__device__ __forceinline__ T reduce(const thread_block_tile<N>& g, T v, Op op) {
  const unsigned width = N < 32 ? N : 32;
  for (unsigned d = width / 2; d > 0; d /= 2)
    v = op(v, strata_detail::shuffle(N < 32 ? strata_detail::tile_mask(N) : 0xffffffffu, v, (int)d, (int)width, 3));
  if (N <= 32) return v;
  /* one value per warp of the tile; slots indexed by the warp's place in the block */
  T* slots = strata_detail::multi_warp_slots<T, Op, N>();
  const unsigned warp = strata_detail::block_rank() / 32, first = warp - g.thread_rank() / 32;
  if (strata_detail::lane() == 0) slots[warp] = v;
  g.sync();
  T r = slots[first];
  for (unsigned w = 1; w < N / 32; ++w) r = op(r, slots[first + w]);
  g.sync(); /* the slots are free again for the next reduction */
  return r;
}

}  // namespace cooperative_groups

#endif /* __cplusplus && __CUDA__ */

#endif
