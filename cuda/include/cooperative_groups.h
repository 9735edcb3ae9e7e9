/* Strata's CUDA headers: cooperative groups (CUDA C++ Programming Guide, "Cooperative Groups"),
 * the part that lives inside one thread block:
 *   thread_group                     any group: size(), num_threads(), thread_rank(), sync()
 *   thread_block, this_thread_block  the CTA: also group_index(), thread_index(), group_dim()
 *   thread_block_tile<N>,            tiles of N threads (a power of two up to 512) in thread-rank
 *     tiled_partition<N>(parent)     order; meta_group_rank()/meta_group_size() number them. Tiles of
 *                                    at most 32 threads are parts of one warp and also have shfl,
 *                                    shfl_up, shfl_down, shfl_xor, any, all, ballot; larger tiles
 *                                    synchronise with a named barrier (bar.sync 1 + tile index, N
 *                                    threads), so a block holds at most 15 of them
 *   tiled_partition(parent, n)       the same as a thread_group whose size is known at run time
 *   coalesced_threads()              the warp's active lanes
 *   sync(g), block_tile_memory<N>    (the latter is accepted; these tiles need no scratch memory)
 * and cooperative_groups/reduce.h. Grid-wide groups (this_grid, grid sync) need a cooperative launch,
 * which Strata does not provide: they are not declared, so a source using them fails to build with
 * clang naming them. Everything here maps to instructions the PTX executor runs (bar.sync,
 * bar.warp.sync, shfl.sync, vote.sync, the special registers). */
#ifndef STRATA_COOPERATIVE_GROUPS_H
#define STRATA_COOPERATIVE_GROUPS_H

#include "cuda_runtime.h"

#if defined(__cplusplus) && defined(__CUDA__)

#define STRATA_CG __device__ __forceinline__

namespace cooperative_groups {

namespace strata_detail {

STRATA_CG unsigned block_rank() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
STRATA_CG unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
STRATA_CG unsigned lane() { return __nvvm_read_ptx_sreg_laneid(); }

enum kind : unsigned { kBlock, kWarpTile, kMultiWarpTile, kCoalesced };

/* A barrier of `count` threads on barrier `id` (PTX bar.sync a, b). */
STRATA_CG void named_barrier(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

/* Shuffles of any trivially copyable type, 32 bits at a time. Mode: 0 idx, 1 up, 2 down, 3 xor. */
template <class T>
STRATA_CG T shuffle(unsigned mask, T v, int arg, int width, int mode) {
  constexpr int kWords = (sizeof(T) + 3) / 4;
  int in[kWords] = {};
  int out[kWords];
  __builtin_memcpy(in, &v, sizeof(T));
  for (int i = 0; i < kWords; ++i) {
    switch (mode) {
      case 0: out[i] = __shfl_sync(mask, in[i], arg, width); break;
      case 1: out[i] = __shfl_up_sync(mask, in[i], (unsigned)arg, width); break;
      case 2: out[i] = __shfl_down_sync(mask, in[i], (unsigned)arg, width); break;
      default: out[i] = __shfl_xor_sync(mask, in[i], arg, width); break;
    }
  }
  T r;
  __builtin_memcpy(&r, out, sizeof(T));
  return r;
}

}  // namespace strata_detail

/* Any group of threads. The members describe the calling thread's view of its group. */
class thread_group {
 protected:
  unsigned kind_;       // strata_detail::kind
  unsigned size_;       // threads in the group
  unsigned rank_;       // the calling thread's rank in it
  unsigned mask_;       // warp lanes of the group (warp tiles, coalesced groups)
  unsigned meta_rank_;  // index of the group among its parent's partitions
  unsigned meta_size_;  // number of those partitions

  STRATA_CG thread_group(unsigned kind, unsigned size, unsigned rank, unsigned mask, unsigned meta_rank,
                         unsigned meta_size)
      : kind_(kind), size_(size), rank_(rank), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size) {}

 public:
  STRATA_CG unsigned size() const { return size_; }
  STRATA_CG unsigned long long num_threads() const { return size_; }
  STRATA_CG unsigned thread_rank() const { return rank_; }
  STRATA_CG unsigned meta_group_rank() const { return meta_rank_; }
  STRATA_CG unsigned meta_group_size() const { return meta_size_; }
  STRATA_CG void sync() const {
    switch (kind_) {
      case strata_detail::kBlock: __syncthreads(); break;
      case strata_detail::kMultiWarpTile: strata_detail::named_barrier(1 + meta_rank_, size_); break;
      default: __syncwarp(mask_); break;
    }
  }
};

class thread_block : public thread_group {
 public:
  STRATA_CG thread_block()
      : thread_group(strata_detail::kBlock, strata_detail::block_threads(), strata_detail::block_rank(), 0xffffffffu,
                     0, 1) {}
  STRATA_CG dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  STRATA_CG dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  STRATA_CG dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  STRATA_CG dim3 dim_threads() const { return group_dim(); }
};

/* Scratch memory some CUDA versions want for tiles larger than a warp; Strata's tiles need none. */
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {
  unsigned char strata_unused[4];
};

STRATA_CG thread_block this_thread_block() { return thread_block(); }
template <unsigned MaxBlockSize>
STRATA_CG thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return thread_block();
}

/* The tile of `size` threads (a power of two) holding a thread of rank `rank` in a parent group of
 * `parent_size` threads, itself starting at warp lane `parent_lane0` when the parent is part of a warp. */
namespace strata_detail {
STRATA_CG unsigned tile_mask(unsigned size) {
  const unsigned bits = size >= 32 ? 0xffffffffu : ((1u << size) - 1u);
  return size >= 32 ? bits : bits << (lane() & ~(size - 1u));
}
}  // namespace strata_detail

template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N > 0 && N <= 512 && (N & (N - 1)) == 0, "a tile size is a power of two up to 512");

 public:
  STRATA_CG thread_block_tile(unsigned parent_rank, unsigned parent_size)
      : thread_group(N <= 32 ? strata_detail::kWarpTile : strata_detail::kMultiWarpTile, N, parent_rank % N,
                     N <= 32 ? strata_detail::tile_mask(N) : 0xffffffffu, parent_rank / N, (parent_size + N - 1) / N) {
    if (N > 32 && meta_size_ > 15) __trap(); /* named barriers 1..15: at most 15 tiles above warp size */
  }
  STRATA_CG void sync() const {
    if (N <= 32) __syncwarp(mask_);
    else strata_detail::named_barrier(1 + meta_rank_, N);
  }
  STRATA_CG unsigned size() const { return N; }
  STRATA_CG unsigned long long num_threads() const { return N; }
  /* warp-level operations (tiles of at most 32 threads); ranks are relative to the tile */
  template <class T>
  STRATA_CG T shfl(T v, int src_rank) const {
    static_assert(N <= 32, "shuffles need a tile within one warp");
    return strata_detail::shuffle(mask_, v, src_rank, N, 0);
  }
  template <class T>
  STRATA_CG T shfl_up(T v, unsigned delta) const {
    static_assert(N <= 32, "shuffles need a tile within one warp");
    return strata_detail::shuffle(mask_, v, (int)delta, N, 1);
  }
  template <class T>
  STRATA_CG T shfl_down(T v, unsigned delta) const {
    static_assert(N <= 32, "shuffles need a tile within one warp");
    return strata_detail::shuffle(mask_, v, (int)delta, N, 2);
  }
  template <class T>
  STRATA_CG T shfl_xor(T v, unsigned lane_mask) const {
    static_assert(N <= 32, "shuffles need a tile within one warp");
    return strata_detail::shuffle(mask_, v, (int)lane_mask, N, 3);
  }
  /* votes over the warp's active lanes (every tile of the warp votes in the same instruction), then
   * the tile's own bits */
  STRATA_CG unsigned ballot(int p) const {
    static_assert(N <= 32, "votes need a tile within one warp");
    const unsigned shift = N >= 32 ? 0 : (strata_detail::lane() & ~(N - 1u));
    const unsigned bits = N >= 32 ? 0xffffffffu : ((1u << N) - 1u);
    return (__ballot_sync(__activemask(), p) >> shift) & bits;
  }
  STRATA_CG int any(int p) const { return ballot(p) != 0; }
  STRATA_CG int all(int p) const { return ballot(p) == (__activemask() & mask_) >> (N >= 32 ? 0 : (strata_detail::lane() & ~(N - 1u))); }
};

/* Tiles of a block, or of a larger tile (ranks stay in thread-rank order). */
template <unsigned N>
STRATA_CG thread_block_tile<N> tiled_partition(const thread_block& parent) {
  return thread_block_tile<N>(parent.thread_rank(), parent.size());
}
template <unsigned N, unsigned M>
STRATA_CG thread_block_tile<N> tiled_partition(const thread_block_tile<M>& parent) {
  static_assert(N <= M, "a tile's partition is not larger than the tile");
  thread_block_tile<N> t(parent.thread_rank(), M);
  return t;
}

class coalesced_group : public thread_group {
 public:
  STRATA_CG explicit coalesced_group(unsigned mask)
      : thread_group(strata_detail::kCoalesced, (unsigned)__popc(mask),
                     (unsigned)__popc(mask & __nvvm_read_ptx_sreg_lanemask_lt()), mask, 0, 1) {}
  STRATA_CG int any(int p) const { return __ballot_sync(mask_, p) != 0; }
  STRATA_CG int all(int p) const { return __ballot_sync(mask_, p) == mask_; }
};

STRATA_CG coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* A partition whose size is known at run time (a power of two up to 32, as CUDA requires). */
class strata_dynamic_tile : public thread_group {
 public:
  STRATA_CG strata_dynamic_tile(unsigned size, unsigned rank, unsigned parent_size)
      : thread_group(strata_detail::kWarpTile, size, rank % size, strata_detail::tile_mask(size), rank / size,
                     (parent_size + size - 1) / size) {
    if (size == 0 || size > 32 || (size & (size - 1)) != 0) __trap();
  }
};
STRATA_CG thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
  return strata_dynamic_tile(tile_size, parent.thread_rank(), parent.size());
}

template <class Group>
STRATA_CG void sync(const Group& g) {
  g.sync();
}
template <class Group>
STRATA_CG unsigned thread_rank(const Group& g) {
  return g.thread_rank();
}
template <class Group>
STRATA_CG unsigned group_size(const Group& g) {
  return g.size();
}

}  // namespace cooperative_groups

#undef STRATA_CG
#endif /* __cplusplus && __CUDA__ */

#endif
