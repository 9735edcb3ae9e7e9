// Kernel library, pattern "butterfly": transforms and sorting networks whose
// threads exchange elements at power-of-two strides, one pass per launch
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//   fwt      fast Walsh transform, radix-8 passes in place    TOM Table 2 (FWT); hybrid graphics Table 2 (FWT)
//   bitonic  CUDA SDK sortingNetworks bitonic sort of key/value
//            pairs: shared-memory sort of 1024-element chunks,
//            global merge passes, shared-memory merge passes   FLRB Table III (sn: 4 arrays)
//   dct8x8   CUDA SDK dct8x8: 8x8 block transform, then its
//            inverse (2 kernels, 3 arrays)                     HAC Table II (DCT)
// Arithmetic is 32-bit unsigned and wraps; values are checked against host loops.
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- fwt
// N = 2^log2n words. Launch k applies the butterfly stages 3k .. 3k+2 (fewer in
// the last): thread t owns the 2^r elements whose bits [3k, 3k+r) vary; it
// loads them, applies the r stages (a, b) -> (a + b, a - b) in registers and
// stores them back (in place, own elements). Stage order does not change the
// Walsh-Hadamard result, so the host applies stages 0 .. log2n-1 in order.
Row row_fwt() {
  Row r;
  r.name = "fwt";
  r.desc = "fast Walsh transform of 2^log2n ints, 3 butterfly stages per launch, in place (CUDA SDK fastWalshTransform; TOM Table 2 FWT)";
  r.knobs = {{"log2n", "log2 of the element count", 20, 5, 30}};
  r.size_knob = "log2n";
  r.footprint = [](const Knobs& k) { return uint64_t(4) << K(k, "log2n"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const unsigned lg = static_cast<unsigned>(K(k, "log2n"));
    const uint64_t N = uint64_t(1) << lg;
    auto p = std::make_unique<LibProgram>("fwt", seed);
    const unsigned d = p->words("data", N, [seed](uint64_t i) { return hash32(seed, 40, i) & 0xff; });
    LibProgram* P = p.get();
    const unsigned nk = (lg + 2) / 3;
    p->estimate = nk;
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= nk) return false;
      const unsigned b = 3 * kk, rr = std::min(3u, lg - b);
      const uint64_t bd = P->base(d), low = (uint64_t(1) << b) - 1;
      // Offload block: the whole radix-2^rr butterfly, live-in the thread index.
      const uint32_t nm = 1u << rr;
      P->offload_blocks("fwt_radix8", {straight_block("butterfly", 1, 0, nm, nm, nm * rr)});
      l = {"fwt_radix8", N >> rr, 8, {d}, {d}, [=](uint64_t tid, Thread& t) {
             uint64_t idx[8];
             uint32_t v[8];
             const unsigned m = 1u << rr;
             t.begin_block(0);
             for (unsigned j = 0; j < m; ++j) {
               idx[j] = ((tid >> b) << (b + rr)) | (uint64_t(j) << b) | (tid & low);
               v[j] = t.ld(bd + 4 * idx[j]);
             }
             for (unsigned s = 1; s < m; s <<= 1)
               for (unsigned j = 0; j < m; ++j)
                 if (!(j & s)) {
                   const uint32_t a = v[j], c = v[j | s];
                   v[j] = a + c;
                   v[j | s] = a - c;
                   t.alu(2);
                 }
             for (unsigned j = 0; j < m; ++j) t.st(bd + 4 * idx[j], v[j]);
             t.end_block();
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      auto v = q.initial(d);
      for (uint64_t s = 1; s < N; s <<= 1)
        for (uint64_t i = 0; i < N; ++i)
          if (!(i & s)) {
            const uint32_t a = v[i], c = v[i | s];
            v[i] = a + c;
            v[i | s] = a - c;
          }
      return q.expect(g, d, v, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- bitonic
// Keys (unique, seeded) and values (original index) in ping-pong buffers
// keys0/vals0 <-> keys1/vals1, every launch reads one buffer and writes the
// other (the SDK merges in place; out of place keeps kernels race-free).
//   sort_shared: CTA c sorts chunk c (1024 pairs; thread j owns j + 256 m)
//     ascending for even c, descending for odd c (a bitonic sequence of chunks);
//   for size = 2048 .. N: merge_global for stride = size/2 .. 1024 (thread t
//     compare-exchanges pair (i, i + stride), ascending iff (i & size) == 0),
//     then merge_shared (chunk c sorted in the direction of its size-block).
constexpr uint64_t kChunk = 1024;
inline uint32_t bit_key(uint64_t seed, uint64_t i) {
  return static_cast<uint32_t>(i) * 0x9e3779b1u + static_cast<uint32_t>(mix64(seed));  // a bijection of i
}
Row row_bitonic() {
  Row r;
  r.name = "bitonic";
  r.desc = "bitonic sort of 2^log2n key/value pairs: shared sort, global and shared merges (CUDA SDK sortingNetworks; FLRB Table III sn)";
  r.knobs = {{"log2n", "log2 of the pair count", 17, 11, 26}};
  r.size_knob = "log2n";
  r.footprint = [](const Knobs& k) { return uint64_t(16) << K(k, "log2n"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const unsigned lg = static_cast<unsigned>(K(k, "log2n"));
    const uint64_t N = uint64_t(1) << lg;
    auto p = std::make_unique<LibProgram>("bitonic", seed);
    const unsigned keys[2] = {p->words("keys0", N, [seed](uint64_t i) { return bit_key(seed, i); }), 0};
    const unsigned vals0 = p->words("vals0", N, [](uint64_t i) { return static_cast<uint32_t>(i); });
    const unsigned keys1 = p->words("keys1", N), vals1 = p->words("vals1", N);
    const unsigned K_[2] = {keys[0], keys1}, V_[2] = {vals0, vals1};
    // The launch list: (kind, size, stride); kind 0 sort_shared, 1 merge_global, 2 merge_shared.
    struct Step {
      int kind;
      uint64_t size, stride;
    };
    std::vector<Step> steps{{0, kChunk, 0}};
    for (uint64_t size = 2 * kChunk; size <= N; size <<= 1) {
      for (uint64_t st = size / 2; st >= kChunk; st >>= 1) steps.push_back({1, size, st});
      steps.push_back({2, size, 0});
    }
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(steps.size());
    auto memo = std::make_shared<Memo<std::vector<uint64_t>>>();
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= steps.size()) return false;
      memo->clear();
      const Step s = steps[kk];
      const unsigned a = kk & 1, b = a ^ 1;
      const uint64_t sk = P->base(K_[a]), sv = P->base(V_[a]), dk = P->base(K_[b]), dv = P->base(V_[b]);
      l.reads = {K_[a], V_[a]};
      l.writes = {K_[b], V_[b]};
      l.cta_warps = 8;
      if (s.kind == 1) {
        l.name = "bitonic_merge_global";
        l.threads = N / 2;
        P->offload_blocks(l.name, {straight_block("compare_exchange", 1, 0, 4, 4, 4)});  // live-in: the pair index
        l.body = [=](uint64_t tid, Thread& t) {
          const uint64_t i = 2 * s.stride * (tid / s.stride) + tid % s.stride, j = i + s.stride;
          t.begin_block(0);
          uint32_t ki = t.ld(sk + 4 * i), kj = t.ld(sk + 4 * j), vi = t.ld(sv + 4 * i), vj = t.ld(sv + 4 * j);
          t.alu(4);
          if ((ki > kj) == ((i & s.size) == 0)) std::swap(ki, kj), std::swap(vi, vj);
          t.st(dk + 4 * i, ki);
          t.st(dk + 4 * j, kj);
          t.st(dv + 4 * i, vi);
          t.st(dv + 4 * j, vj);
          t.end_block();
        };
      } else {
        l.name = s.kind == 0 ? "bitonic_sort_shared" : "bitonic_merge_shared";
        l.threads = N / 4;
        const uint64_t size = s.kind == 0 ? 2 * kChunk : s.size;
        const bool whole = s.kind == 0 && N == kChunk;
        l.body = [=](uint64_t tid, Thread& t) {
          const uint64_t c = tid / 256, j = tid % 256, c0 = c * kChunk;
          for (uint64_t m = 0; m < 4; ++m) t.ld(sk + 4 * (c0 + j + 256 * m));
          for (uint64_t m = 0; m < 4; ++m) t.ld(sv + 4 * (c0 + j + 256 * m));
          t.barrier();
          t.alu(s.kind == 0 ? 55 * 2 : 10 * 2);  // compare-exchange steps in shared memory
          t.barrier();
          const std::vector<uint64_t>& v = memo->get(c, [&] {
            std::vector<uint64_t> x(kChunk);  // key << 32 | value
            for (uint64_t e = 0; e < kChunk; ++e)
              x[e] = uint64_t(t.peek(sk + 4 * (c0 + e))) << 32 | t.peek(sv + 4 * (c0 + e));
            std::sort(x.begin(), x.end());
            if (!whole && (c0 & (size / 2 * (s.kind == 0 ? 1 : 2))) != 0) std::reverse(x.begin(), x.end());
            return x;
          });
          for (uint64_t m = 0; m < 4; ++m) t.st(dk + 4 * (c0 + j + 256 * m), static_cast<uint32_t>(v[j + 256 * m] >> 32));
          for (uint64_t m = 0; m < 4; ++m) t.st(dv + 4 * (c0 + j + 256 * m), static_cast<uint32_t>(v[j + 256 * m]));
        };
      }
      return true;
    };
    const unsigned fin = static_cast<unsigned>(steps.size() & 1);
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint64_t> x(N);
      for (uint64_t i = 0; i < N; ++i) x[i] = uint64_t(bit_key(q.seed(), i)) << 32 | i;
      std::sort(x.begin(), x.end());
      std::vector<uint32_t> wk(N), wv(N);
      for (uint64_t i = 0; i < N; ++i) wk[i] = static_cast<uint32_t>(x[i] >> 32), wv[i] = static_cast<uint32_t>(x[i]);
      return q.expect(g, K_[fin], wk, why) && q.expect(g, V_[fin], wv, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- dct8x8
// W x H image (multiples of 32 and 8). A 256-thread CTA covers a 32 x 8 strip
// (four 8x8 blocks); thread (tx, ty) loads pixel (32 bx + tx, 8 by + ty) (one
// warp = one 128 B row segment), the block transform runs in shared memory,
// and the thread stores its coefficient. dct: src -> coef; idct: coef -> dst,
// out[v][u] = sum_{y,x} C[v][y] C[u][x] in[y][x] with an integer matrix C
// (transposed for the inverse).
inline uint32_t dct_c(unsigned u, unsigned x) { return ((u + 1) * (2 * x + 1)) % 7 + 1; }
inline uint32_t dct_px(const uint32_t* blk, unsigned u, unsigned v, bool inverse) {
  uint32_t s = 0;
  for (unsigned y = 0; y < 8; ++y)
    for (unsigned x = 0; x < 8; ++x)
      s += (inverse ? dct_c(y, v) * dct_c(x, u) : dct_c(v, y) * dct_c(u, x)) * blk[y * 8 + x];
  return s;
}
Row row_dct8x8() {
  Row r;
  r.name = "dct8x8";
  r.desc = "8x8 block transform of a W x H image and its inverse, 2 kernels, 3 arrays (CUDA SDK dct8x8; HAC Table II DCT)";
  r.knobs = {{"width", "image width (multiple of 32)", 2048, 32, 1 << 16}, {"height", "image height (multiple of 8)", 512, 8, 1 << 16}};
  r.size_knob = "height";
  r.footprint = [](const Knobs& k) { return 12 * (K(k, "width") / 32 * 32) * (K(k, "height") / 8 * 8); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t W = K(k, "width") / 32 * 32, H = K(k, "height") / 8 * 8, n = W * H;
    auto p = std::make_unique<LibProgram>("dct8x8", seed);
    const unsigned src = p->words("src", n, [seed](uint64_t i) { return hash32(seed, 41, i) & 0xff; });
    const unsigned coef = p->words("coef", n), dst = p->words("dst", n);
    LibProgram* P = p.get();
    p->estimate = 2;
    auto block = [W](auto&& rd, uint64_t px, uint64_t py) {  // 8x8 block with top-left (px, py)
      uint32_t b[64];
      for (unsigned y = 0; y < 8; ++y)
        for (unsigned x = 0; x < 8; ++x) b[y * 8 + x] = rd((py + y) * W + px + x);
      return std::vector<uint32_t>(b, b + 64);
    };
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= 2) return false;
      const bool inv = kk == 1;
      const unsigned a = inv ? coef : src, b = inv ? dst : coef;
      const uint64_t ba = P->base(a), bb = P->base(b);
      l = {inv ? "idct8x8" : "dct8x8", n, 8, {a}, {b}, [=](uint64_t tid, Thread& t) {
             const uint64_t cta = tid / 256, j = tid % 256, strips = W / 32;
             const uint64_t x = (cta % strips) * 32 + j % 32, y = (cta / strips) * 8 + j / 32;
             t.ld(ba + 4 * (y * W + x));
             t.barrier();
             t.alu(16);  // two 8-point passes in shared memory
             t.barrier();
             const auto blk = block([&](uint64_t i) { return t.peek(ba + 4 * i); }, x / 8 * 8, y / 8 * 8);
             t.st(bb + 4 * (y * W + x), dct_px(blk.data(), x % 8, y % 8, inv));
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> v[3] = {q.initial(src), std::vector<uint32_t>(n), std::vector<uint32_t>(n)};
      for (int pass = 0; pass < 2; ++pass)
        for (uint64_t y = 0; y < H; ++y)
          for (uint64_t x = 0; x < W; ++x) {
            const auto blk = block([&](uint64_t i) { return v[pass][i]; }, x / 8 * 8, y / 8 * 8);
            v[pass + 1][y * W + x] = dct_px(blk.data(), x % 8, y % 8, pass == 1);
          }
      return q.expect(g, coef, v[1], why) && q.expect(g, dst, v[2], why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_butterfly() {
  return {make_info(row_fwt()), make_info(row_bitonic()), make_info(row_dct8x8())};
}

}  // namespace strata
