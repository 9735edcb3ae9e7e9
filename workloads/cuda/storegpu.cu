// storegpu: MD5 digests of the fixed-size chunks of a buffer, the direct-hashing mode of StoreGPU
// (Al-Kiswany et al., "StoreGPU: exploiting graphics processing units to accelerate distributed storage
// systems", HPDC 2008; the hybrid graphics memory paper's STO). MD5 as RFC 1321 specifies it: 64-byte blocks,
// four rounds of 16 steps, the sine-derived constants T[i] = floor(2^32 |sin(i + 1)|) computed on the host and
// kept in constant memory; one thread per chunk (a chunk a multiple of 64 bytes, no padding needed inside),
// the chunk's length padded in a final block; the chunks' blocks staged through shared memory with coalesced
// loads. The host computes the same digests with the same function.
// Compute-bound: 64 steps per 64 bytes read, each block's 16 words loaded once.
// Usage: storegpu [CHUNKS [CHUNK_BYTES [SEED]]]   (CHUNK_BYTES a multiple of 64)
#include <cuda_runtime.h>

#include "bench.h"

__constant__ unsigned md5_t[64];

__host__ __device__ static inline unsigned rotl(unsigned x, unsigned c) { return (x << c) | (x >> (32u - c)); }

// One 64-byte block (16 little-endian words) into the state h[4]; t = the 64 constants.
__host__ __device__ static void md5_block(unsigned* h, const unsigned* w, const unsigned* t) {
  const unsigned sh[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
  unsigned a = h[0], b = h[1], c = h[2], d = h[3];
#pragma unroll
  for (unsigned i = 0; i < 64; ++i) {
    unsigned f, g;
    const unsigned r = i / 16;
    if (r == 0) f = (b & c) | (~b & d), g = i;
    else if (r == 1) f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
    else if (r == 2) f = b ^ c ^ d, g = (3 * i + 5) % 16;
    else f = c ^ (b | ~d), g = (7 * i) % 16;
    const unsigned tmp = d;
    d = c;
    c = b;
    b = b + rotl(a + f + t[i] + w[g], sh[r][i % 4]);
    a = tmp;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d;
}

// The final block after a whole number of 64-byte blocks: the padding bit, zeros, the length in bits.
__host__ __device__ static void md5_pad(unsigned* last, unsigned bytes) {
  for (int i = 0; i < 16; ++i) last[i] = 0;
  last[0] = 0x80u;
  last[14] = bytes << 3;
  last[15] = (unsigned)((unsigned long long)bytes >> 29);
}

// MD5 of `bytes` bytes (a multiple of 64) at `p` (words), digest into out[4].
__host__ __device__ static void md5_chunk(const unsigned* p, unsigned bytes, const unsigned* t, unsigned* out) {
  unsigned h[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  for (unsigned off = 0; off < bytes / 4; off += 16) {
    unsigned w[16];  // the block's words read once (registers once the steps are unrolled)
#pragma unroll
    for (int k = 0; k < 16; ++k) w[k] = p[off + k];
    md5_block(h, w, t);
  }
  unsigned last[16];
  md5_pad(last, bytes);
  md5_block(h, last, t);
  for (int i = 0; i < 4; ++i) out[i] = h[i];
}

#define THREADS 64

// One thread per chunk; each 64-byte step the block stages its 64 chunks' next blocks through shared memory
// with coalesced loads (16 threads read one block's 64 contiguous bytes), then each thread hashes its own.
__global__ void md5_chunks(const unsigned* data, unsigned* digest, int chunks, unsigned chunk_bytes) {
  __shared__ unsigned stage[THREADS][17];  // 17: no two threads of a warp on one bank when reading a row
  const int first = blockIdx.x * THREADS, me = first + threadIdx.x;
  const unsigned cw = chunk_bytes / 4;
  unsigned h[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
  for (unsigned off = 0; off < cw; off += 16) {
    for (int q = 0; q < 16; ++q) {
      const int idx = q * THREADS + threadIdx.x, c = idx / 16, k = idx % 16;
      if (first + c < chunks) stage[c][k] = data[(size_t)(first + c) * cw + off + k];
    }
    __syncthreads();
    unsigned w[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) w[k] = stage[threadIdx.x][k];
    __syncthreads();
    if (me < chunks) md5_block(h, w, md5_t);
  }
  if (me < chunks) {
    unsigned last[16];
    md5_pad(last, chunk_bytes);
    md5_block(h, last, md5_t);
    for (int i = 0; i < 4; ++i) digest[4 * (size_t)me + i] = h[i];
  }
}

int main(int argc, char** argv) {
  int chunks = bench_arg(argc, argv, 1, 4096, "CHUNKS");
  int chunk_bytes = bench_arg(argc, argv, 2, 1024, "CHUNK_BYTES");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  if (chunk_bytes % 64) {
    fprintf(stderr, "%s: argument 2 (CHUNK_BYTES) must be a multiple of 64, got %d\n", argv[0], chunk_bytes);
    return 2;
  }
  unsigned t[64];
  for (int i = 0; i < 64; ++i) t[i] = (unsigned)(fabs(sin((double)(i + 1))) * 4294967296.0);
  BENCH_CUDA(cudaMemcpyToSymbol(md5_t, t, sizeof t));
  const size_t words = (size_t)chunks * chunk_bytes / 4;
  uint64_t s = (uint64_t)seed;
  unsigned* data = (unsigned*)bench_alloc(words * 4);
  for (size_t i = 0; i < words; ++i) data[i] = (unsigned)bench_next(&s);
  unsigned *d_data, *d_digest;
  BENCH_CUDA(cudaMalloc(&d_data, words * 4));
  BENCH_CUDA(cudaMalloc(&d_digest, (size_t)chunks * 16));
  cudaMemcpy(d_data, data, words * 4, cudaMemcpyHostToDevice);
  md5_chunks<<<(chunks + THREADS - 1) / THREADS, THREADS>>>(d_data, d_digest, chunks, (unsigned)chunk_bytes);
  BENCH_CUDA(cudaGetLastError());
  unsigned* digest = (unsigned*)bench_alloc((size_t)chunks * 16);
  cudaMemcpy(digest, d_digest, (size_t)chunks * 16, cudaMemcpyDeviceToHost);
  // RFC 1321 test suite: MD5("") = d41d8cd98f00b204e9800998ecf8427e (the empty message: only the padding block).
  unsigned e[4];
  md5_chunk(data, 0, t, e);
  if (e[0] != 0xd98c1dd4u || e[1] != 0x04b2008fu || e[2] != 0x980980e9u || e[3] != 0x7e42f8ecu) {
    printf("storegpu: the host MD5 of the empty message is wrong\n");
    return 1;
  }
  unsigned x = 0;
  for (int i = 0; i < chunks; ++i) {
    unsigned want[4];
    md5_chunk(data + (size_t)i * (chunk_bytes / 4), (unsigned)chunk_bytes, t, want);
    for (int k = 0; k < 4; ++k) {
      if (digest[4 * i + k] != want[k]) {
        printf("storegpu: chunk %d digest word %d is %08x, expected %08x\n", i, k, digest[4 * i + k], want[k]);
        return 1;
      }
      x ^= want[k];
    }
  }
  printf("storegpu: %d chunks of %d bytes, digests xor %08x: ok\n", chunks, chunk_bytes, x);
  return 0;
}
