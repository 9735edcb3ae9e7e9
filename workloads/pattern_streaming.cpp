// Kernel library, pattern "streaming": map / zip / reduce kernels whose threads
// read and write their own elements of large arrays once, fully coalesced
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//
// Rows (paper, table):
//   scalarprod   CUDA SDK scalarProd     FLRB Table III (sp: 1 kernel, 3 arrays); TOM Table 2 (SP)
//   blackscholes CUDA SDK BlackScholes   FLRB Table III (bs: 1 kernel, 5 arrays); hybrid graphics Table 2 (BLK)
//   nn           Rodinia nearest neighbor FLRB Table III (nn: 1 kernel, 2 arrays); hybrid graphics Table 2 (NE)
//   reduction    CUDA SDK reduction      TOM Table 2 (RD)
//   kmeans       Rodinia k-means (Rogers et al. global-memory variant) TOM Table 2 (KM)
//   mersenne     CUDA SDK MersenneTwister FLRB Table III (mt: 2 kernels, 1 array)
//   libor        LIBOR Monte Carlo (GPGPU-sim) HAC Table II (LIB); TOM Table 2 (LIB)
//   scan         CUDA SDK scan of large arrays  hybrid graphics Table 2 (SLA)
// Arithmetic is 32-bit unsigned and wraps: only the memory behaviour is the
// benchmark's; the values are real, seeded, and checked against host loops.
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- scalarprod
// V vector pairs of L elements; one 256-thread CTA per pair; thread j sums
// A[v L + j + 256 i] * B[...] over i (grid-stride, coalesced); the CTA tree
// reduction is in shared memory (not modelled); thread 0 writes C[v].
Row row_scalarprod() {
  Row r;
  r.name = "scalarprod";
  r.desc = "scalar products of V vector pairs of L ints (CUDA SDK scalarProd; FLRB Table III sp, TOM Table 2 SP)";
  r.knobs = {{"pairs", "vector pairs V", 512, 1, 1 << 20}, {"len", "elements per vector L", 4096, 256, 1 << 20}};
  r.size_knob = "pairs";
  r.footprint = [](const Knobs& k) { return 8 * K(k, "pairs") * K(k, "len") + 4 * K(k, "pairs"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t V = K(k, "pairs"), L = K(k, "len");
    auto p = std::make_unique<LibProgram>("scalarprod", seed);
    const unsigned a = p->words("a", V * L, [seed](uint64_t i) { return hash32(seed, 1, i) & 0xffff; });
    const unsigned b = p->words("b", V * L, [seed](uint64_t i) { return hash32(seed, 2, i) & 0xffff; });
    const unsigned c = p->words("c", V);
    LibProgram* P = p.get();
    // Offload block: the dot-product loop (live-in pos and end, live-out the sum).
    p->offload_blocks("scalarprod", {loop_block("dot", TripKind::AtEntry, 0, 2, 1, 2, 0, 1)});
    p->schedule = [=](unsigned n, Launch& l) {
      if (n) return false;
      const uint64_t A = P->base(a), B = P->base(b), C = P->base(c);
      l = {"scalarprod", V * 256, 8, {a, b}, {c}, [=](uint64_t tid, Thread& t) {
             const uint64_t v = tid / 256, j = tid % 256;
             t.begin_block(0);
             for (uint64_t i = j; i < L; i += 256) {
               t.ld(A + 4 * (v * L + i));
               t.ld(B + 4 * (v * L + i));
               t.alu();  // multiply-add
             }
             t.end_block();
             t.alu(3);
             t.barrier();
             if (j == 0) {
               uint32_t s = 0;
               for (uint64_t i = 0; i < L; ++i) s += t.peek(A + 4 * (v * L + i)) * t.peek(B + 4 * (v * L + i));
               t.alu(8);  // log2(256) reduction steps
               t.st(C + 4 * v, s);
             }
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto va = q.initial(a), vb = q.initial(b);
      std::vector<uint32_t> want(V, 0);
      for (uint64_t v = 0; v < V; ++v)
        for (uint64_t i = 0; i < L; ++i) want[v] += va[v * L + i] * vb[v * L + i];
      return q.expect(g, c, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- blackscholes
inline uint32_t bs_call(uint32_t s, uint32_t x, uint32_t t) { return s * 3u + ((x ^ (t >> 3)) * 5u) + (t << 1); }

Row row_blackscholes() {
  Row r;
  r.name = "blackscholes";
  r.desc = "Black-Scholes call/put of n options, 3 input and 2 output arrays (CUDA SDK; FLRB Table III bs)";
  r.knobs = {{"n", "options", 1 << 20, 32, int64_t(1) << 28}, {"iters", "kernel launches (the SDK repeats it)", 1, 1, 64}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 20 * K(k, "n"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), iters = K(k, "iters");
    auto p = std::make_unique<LibProgram>("blackscholes", seed);
    const unsigned S = p->words("stock_price", n, [seed](uint64_t i) { return hash32(seed, 3, i); });
    const unsigned X = p->words("option_strike", n, [seed](uint64_t i) { return hash32(seed, 4, i); });
    const unsigned T = p->words("option_years", n, [seed](uint64_t i) { return hash32(seed, 5, i); });
    const unsigned C = p->words("call_result", n);
    const unsigned Pu = p->words("put_result", n);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(iters);
    p->offload_blocks("black_scholes", {straight_block("option", 1, 0, 3, 2, 26, 5)});  // live-in: the option index
    p->schedule = [=](unsigned it, Launch& l) {
      if (it >= iters) return false;
      const uint64_t bs = P->base(S), bx = P->base(X), bt = P->base(T), bc = P->base(C), bp = P->base(Pu);
      l = {"black_scholes", n, 4, {S, X, T}, {C, Pu}, [=](uint64_t i, Thread& t) {
             t.begin_block(0);
             const uint32_t s = t.ld(bs + 4 * i), x = t.ld(bx + 4 * i), y = t.ld(bt + 4 * i);
             t.alu(24);  // d1, d2, polynomial CND
             t.sfu(5);   // sqrt, log, exp, 2 x rcp
             const uint32_t call = bs_call(s, x, y);
             t.st(bc + 4 * i, call);
             t.alu(2);
             t.st(bp + 4 * i, call + x - s);  // put-call parity
             t.end_block();
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto s = q.initial(S), x = q.initial(X), y = q.initial(T);
      std::vector<uint32_t> call(n), put(n);
      for (uint64_t i = 0; i < n; ++i) {
        call[i] = bs_call(s[i], x[i], y[i]);
        put[i] = call[i] + x[i] - s[i];
      }
      return q.expect(g, C, call, why) && q.expect(g, Pu, put, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- nn
Row row_nn() {
  Row r;
  r.name = "nn";
  r.desc = "nearest neighbour: distance of n (lat, lng) records to a target (Rodinia nn; FLRB Table III nn)";
  r.knobs = {{"n", "records", 2 << 20, 32, int64_t(1) << 28}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 12 * K(k, "n"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n");
    auto p = std::make_unique<LibProgram>("nn", seed);
    const unsigned loc = p->words("locations", 2 * n, [seed](uint64_t i) { return hash32(seed, 6, i) & 0xffff; });
    const unsigned dis = p->words("distances", n);
    const uint32_t tlat = hash32(seed, 7, 0) & 0xffff, tlng = hash32(seed, 7, 1) & 0xffff;
    LibProgram* P = p.get();
    p->offload_blocks("euclid", {straight_block("distance", 1, 0, 1, 1, 4, 1)});  // live-in: the record index
    p->schedule = [=](unsigned it, Launch& l) {
      if (it) return false;
      const uint64_t bl = P->base(loc), bd = P->base(dis);
      l = {"euclid", n, 8, {loc}, {dis}, [=](uint64_t i, Thread& t) {
             t.begin_block(0);
             const uint64_t v = t.ld64(bl + 8 * i);
             const uint32_t dx = static_cast<uint32_t>(v) - tlat, dy = static_cast<uint32_t>(v >> 32) - tlng;
             t.alu(4);
             t.sfu(1);  // sqrtf
             t.st(bd + 4 * i, dx * dx + dy * dy);
             t.end_block();
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto l = q.initial(loc);
      std::vector<uint32_t> want(n);
      for (uint64_t i = 0; i < n; ++i) {
        const uint32_t dx = l[2 * i] - tlat, dy = l[2 * i + 1] - tlng;
        want[i] = dx * dx + dy * dy;
      }
      return q.expect(g, dis, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- reduction
// Kernel 1: G = ceil(n / (256 E)) CTAs; thread t of T = 256 G threads sums
// in[t + j T] (grid-stride, coalesced); thread 0 of each CTA writes the CTA's
// sum to part[cta]. Kernel 2: one CTA sums part[] the same way into out[0].
constexpr uint64_t kRedPerThread = 16;
Row row_reduction() {
  Row r;
  r.name = "reduction";
  r.desc = "parallel sum of n ints in two kernels, per-CTA partials then total (CUDA SDK reduction; TOM Table 2 RD)";
  r.knobs = {{"n", "elements", 4 << 20, 32, int64_t(1) << 30}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) {
    const uint64_t n = K(k, "n");
    return 4 * n + 4 * ceil_div(n, 256 * kRedPerThread) + 4;
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), G = ceil_div(n, 256 * kRedPerThread);
    auto p = std::make_unique<LibProgram>("reduction", seed);
    const unsigned in = p->words("in", n, [seed](uint64_t i) { return hash32(seed, 8, i); });
    const unsigned part = p->words("partial", G);
    const unsigned out = p->words("out", 1);
    LibProgram* P = p.get();
    p->estimate = 2;
    // Offload block: the grid-stride loop (live-in the index, live-out the sum).
    for (const char* kn : {"reduce_partial", "reduce_final"})
      p->offload_blocks(kn, {loop_block("grid_stride_sum", TripKind::AtEntry, 0, 1, 1, 1, 0, 1)});
    // One grid-stride reduction kernel of `cnt` elements at `src` into `dst`.
    auto red = [](uint64_t src, uint64_t cnt, uint64_t ctas, uint64_t dst) {
      const uint64_t T = 256 * ctas;
      return [=](uint64_t tid, Thread& t) {
        t.begin_block(0);
        for (uint64_t i = tid; i < cnt; i += T) {
          t.ld(src + 4 * i);
          t.alu();
        }
        t.end_block();
        t.barrier();
        if (tid % 256 == 0) {
          uint32_t s = 0;
          for (uint64_t th = tid; th < tid + 256; ++th)
            for (uint64_t i = th; i < cnt; i += T) s += t.peek(src + 4 * i);
          t.alu(8);
          t.st(dst + 4 * (tid / 256), s);
        }
      };
    };
    p->schedule = [=](unsigned it, Launch& l) {
      if (it == 0) l = {"reduce_partial", 256 * G, 8, {in}, {part}, red(P->base(in), n, G, P->base(part))};
      else if (it == 1) l = {"reduce_final", 256, 8, {part}, {out}, red(P->base(part), G, 1, P->base(out))};
      else return false;
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto v = q.initial(in);
      uint32_t s = 0;
      for (uint32_t x : v) s += x;
      return q.expect(g, out, {s}, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- kmeans
// Rodinia k-means, the GPU part: the membership kernel. n points of F features
// stored feature-major (features[f n + i], coalesced), K cluster centres read
// from global memory by every thread (broadcast), one membership word written
// per point. The centroid update runs on the host in Rodinia; here the `iters`
// launches use precomputed centre sets (clusters[(it K + c) F + f]).
constexpr uint64_t kKmF = 8, kKmK = 5;
inline uint32_t km_dist(const uint32_t* x, const uint32_t* c) {
  uint32_t d = 0;
  for (uint64_t f = 0; f < kKmF; ++f) d += (x[f] - c[f]) * (x[f] - c[f]);
  return d;
}
Row row_kmeans() {
  Row r;
  r.name = "kmeans";
  r.desc = "k-means membership: n points x 8 features, 5 centres, iters launches (Rodinia kmeans; TOM Table 2 KM)";
  r.knobs = {{"n", "points", 128 << 10, 32, int64_t(1) << 26}, {"iters", "membership kernel launches", 2, 1, 64}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 4 * kKmF * K(k, "n") + 4 * K(k, "n") + 4 * K(k, "iters") * kKmK * kKmF; };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), iters = K(k, "iters");
    auto p = std::make_unique<LibProgram>("kmeans", seed);
    const unsigned fe = p->words("features", kKmF * n, [seed](uint64_t i) { return hash32(seed, 9, i) & 1023; });
    const unsigned cl =
        p->words("clusters", iters * kKmK * kKmF, [seed](uint64_t i) { return hash32(seed, 10, i) & 1023; });
    const unsigned mem = p->words("membership", n);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(iters);
    // Offload block: the whole point (loops over the constant F and K unrolled):
    // live-in the point index; 8 + 5 x 8 loads, 1 store.
    p->offload_blocks("kmeans_membership",
                      {straight_block("point", 1, 0, kKmF + kKmK * kKmF, 1, 2 * kKmK * kKmF + 2 * kKmK)});
    p->schedule = [=](unsigned it, Launch& l) {
      if (it >= iters) return false;
      const uint64_t bf = P->base(fe), bc = P->base(cl) + 4 * it * kKmK * kKmF, bm = P->base(mem);
      l = {"kmeans_membership", n, 8, {fe, cl}, {mem}, [=](uint64_t i, Thread& t) {
             uint32_t x[kKmF], c[kKmF];
             t.begin_block(0);
             for (uint64_t f = 0; f < kKmF; ++f) x[f] = t.ld(bf + 4 * (f * n + i));
             uint32_t best = 0, bestd = 0;
             for (uint64_t q = 0; q < kKmK; ++q) {
               for (uint64_t f = 0; f < kKmF; ++f) {
                 c[f] = t.ld(bc + 4 * (q * kKmF + f));
                 t.alu(2);
               }
               const uint32_t d = km_dist(x, c);
               t.alu(2);
               if (q == 0 || d < bestd) best = static_cast<uint32_t>(q), bestd = d;
             }
             t.st(bm + 4 * i, best);
             t.end_block();
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto f = q.initial(fe), c = q.initial(cl);
      std::vector<uint32_t> want(n);
      const uint64_t last = iters - 1;
      for (uint64_t i = 0; i < n; ++i) {
        uint32_t x[kKmF];
        for (uint64_t j = 0; j < kKmF; ++j) x[j] = f[j * n + i];
        uint32_t best = 0, bestd = ~0u;
        for (uint64_t qq = 0; qq < kKmK; ++qq) {
          const uint32_t d = km_dist(x, &c[(last * kKmK + qq) * kKmF]);
          if (d < bestd) best = static_cast<uint32_t>(qq), bestd = d;
        }
        want[i] = best;
      }
      return q.expect(g, mem, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- mersenne
// Kernel 1 (RandomGPU): G = n / 32 generators, generator g writes its 32
// numbers to out[g + k G] (coalesced across generators). Kernel 2 (BoxMuller):
// thread g rewrites its pairs in place (read 2, write 2).
constexpr uint64_t kMtPer = 32;
inline uint32_t xorshift32(uint32_t x) {
  x ^= x << 13;
  x ^= x >> 17;
  return x ^ (x << 5);
}
inline void box_muller(uint32_t& a, uint32_t& b) {
  const uint32_t u = a, v = b;
  a = u ^ ((v << 7) | (v >> 25));
  b = v + u * 3u;
}
Row row_mersenne() {
  Row r;
  r.name = "mersenne";
  r.desc = "random numbers: generate n into one array, then Box-Muller in place (CUDA SDK MersenneTwister; FLRB Table III mt)";
  r.knobs = {{"n", "random numbers (multiple of 32)", 2 << 20, 32, int64_t(1) << 30}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 4 * (K(k, "n") / kMtPer * kMtPer); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t G = K(k, "n") / kMtPer, n = G * kMtPer;
    auto p = std::make_unique<LibProgram>("mersenne", seed);
    const unsigned out = p->words("random", n);
    LibProgram* P = p.get();
    auto seed_of = [seed](uint64_t g) { return hash32(seed, 11, g) | 1u; };
    p->estimate = 2;
    // Offload blocks: the generator loop (32 trips; live-in state and index)
    // and the Box-Muller loop (16 trips; live-in the index).
    p->offload_blocks("random_gpu", {loop_block("generate", TripKind::Static, kMtPer, 2, 0, 0, 1, 6)});
    p->offload_blocks("box_muller", {loop_block("transform", TripKind::Static, kMtPer / 2, 1, 0, 2, 2, 0, 4)});
    p->schedule = [=](unsigned it, Launch& l) {
      const uint64_t bo = P->base(out);
      if (it == 0)
        l = {"random_gpu", G, 4, {}, {out}, [=](uint64_t g, Thread& t) {
               uint32_t s = seed_of(g);
               t.begin_block(0);
               for (uint64_t j = 0; j < kMtPer; ++j) {
                 s = xorshift32(s);
                 t.alu(6);  // twist + temper
                 t.st(bo + 4 * (g + j * G), s);
               }
               t.end_block();
             }};
      else if (it == 1)
        l = {"box_muller", G, 4, {out}, {out}, [=](uint64_t g, Thread& t) {
               t.begin_block(0);
               for (uint64_t j = 0; j < kMtPer; j += 2) {
                 uint32_t a = t.ld(bo + 4 * (g + j * G)), b = t.ld(bo + 4 * (g + (j + 1) * G));
                 t.sfu(4);  // log, sqrt, sincos
                 box_muller(a, b);
                 t.st(bo + 4 * (g + j * G), a);
                 t.st(bo + 4 * (g + (j + 1) * G), b);
               }
               t.end_block();
             }};
      else return false;
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> want(n);
      for (uint64_t gg = 0; gg < G; ++gg) {
        uint32_t s = seed_of(gg);
        for (uint64_t j = 0; j < kMtPer; ++j) want[gg + j * G] = s = xorshift32(s);
        for (uint64_t j = 0; j < kMtPer; j += 2) box_muller(want[gg + j * G], want[gg + (j + 1) * G]);
      }
      return q.expect(g, out, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- libor
// LIBOR market-model Monte Carlo path (GPGPU-sim LIB): thread p owns path p;
// its forward rates L[N] live in local memory, interleaved across threads
// (lrates[i P + p], coalesced), initialised by the thread; maturity step j
// reads z[j P + p] and updates L[j+1..N-1] (read + write each); the payoff
// reads L[M..N-1] and writes payoff[p]. lambda (volatilities) is constant memory.
// The interleave stride Pp = P rounded up to 32 (local memory is allocated per
// warp), so no two warps share a line of lrates.
constexpr uint64_t kLibN = 12, kLibM = 6;
inline uint32_t lib_l0(uint64_t i) { return 0x10000u + static_cast<uint32_t>(i) * 977u; }
inline uint32_t lib_lambda(uint64_t i) { return 3u + static_cast<uint32_t>(i) * 7u; }
inline uint32_t lib_step(uint32_t L, uint32_t lam, uint32_t z) { return L + ((lam * (z & 0xfff)) >> 4) - (L >> 9); }
Row row_libor() {
  Row r;
  r.name = "libor";
  r.desc = "LIBOR Monte Carlo: P paths, 12 rates in interleaved local memory, 6 maturities (GPGPU-sim LIB; HAC Table II, TOM Table 2)";
  r.knobs = {{"paths", "Monte Carlo paths P (threads)", 64 << 10, 32, int64_t(1) << 26}};
  r.size_knob = "paths";
  r.footprint = [](const Knobs& k) {
    return 4 * K(k, "paths") * (kLibM + 1) + 4 * kLibN * ceil_div(K(k, "paths"), 32) * 32;
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t P_ = K(k, "paths"), Pp = ceil_div(P_, 32) * 32;
    auto p = std::make_unique<LibProgram>("libor", seed);
    const unsigned z = p->words("z", kLibM * P_, [seed](uint64_t i) { return hash32(seed, 12, i); });
    const unsigned lr = p->words("lrates", kLibN * Pp);
    const unsigned pay = p->words("payoff", P_);
    LibProgram* P = p.get();
    // Offload blocks (TOM Sec. 3.1.5 uses LIBOR's loops as its example): the
    // rate initialisation (12 trips; live-in the path), the update of rates
    // j+1..N-1 per maturity j (trip count known at entry; live-in i, j, z and
    // the path) and the payoff sum (6 trips; live-in the path, live-out the sum).
    p->offload_blocks("libor_path", {loop_block("init_rates", TripKind::Static, kLibN, 1, 0, 0, 1),
                                     loop_block("maturity_update", TripKind::AtEntry, 0, 4, 0, 1, 1, 6, 1),
                                     loop_block("payoff", TripKind::Static, kLibN - kLibM, 1, 1, 1, 0, 3)});
    p->schedule = [=](unsigned it, Launch& l) {
      if (it) return false;
      const uint64_t bz = P->base(z), bl = P->base(lr), bp = P->base(pay);
      l = {"libor_path", P_, 2, {z, lr}, {lr, pay}, [=](uint64_t q, Thread& t) {
             t.begin_block(0);
             for (uint64_t i = 0; i < kLibN; ++i) t.st(bl + 4 * (i * Pp + q), lib_l0(i));
             t.end_block();
             for (uint64_t j = 0; j < kLibM; ++j) {
               const uint32_t zz = t.ld(bz + 4 * (j * P_ + q));
               t.begin_block(1);
               for (uint64_t i = j + 1; i < kLibN; ++i) {
                 const uint32_t L = t.ld(bl + 4 * (i * Pp + q));
                 t.alu(6);
                 t.sfu(1);  // exp
                 t.st(bl + 4 * (i * Pp + q), lib_step(L, lib_lambda(i - j - 1), zz));
               }
               t.end_block();
             }
             uint32_t v = 0;
             t.begin_block(2);
             for (uint64_t i = kLibM; i < kLibN; ++i) {
               v += t.ld(bl + 4 * (i * Pp + q)) >> 4;
               t.alu(3);
             }
             t.end_block();
             t.st(bp + 4 * q, v);
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto zz = q.initial(z);
      std::vector<uint32_t> wl(kLibN * Pp), wp(P_);
      for (uint64_t path = 0; path < P_; ++path) {
        uint32_t L[kLibN];
        for (uint64_t i = 0; i < kLibN; ++i) L[i] = lib_l0(i);
        for (uint64_t j = 0; j < kLibM; ++j)
          for (uint64_t i = j + 1; i < kLibN; ++i) L[i] = lib_step(L[i], lib_lambda(i - j - 1), zz[j * P_ + path]);
        uint32_t v = 0;
        for (uint64_t i = kLibM; i < kLibN; ++i) v += L[i] >> 4;
        for (uint64_t i = 0; i < kLibN; ++i) wl[i * Pp + path] = L[i];
        wp[path] = v;
      }
      return q.expect(g, lr, wl, why) && q.expect(g, pay, wp, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- scan
// Exclusive prefix sum of n ints, three kernels (CUDA SDK scanLargeArrays):
// scan_blocks: each 256-thread CTA scans 1024 elements (thread t loads and
// stores elements t + 256 m, m < 4, coalesced; the in-CTA scan is in shared
// memory) and thread 0 writes the block total to block_sums[cta];
// scan_sums: one CTA scans the B block totals into block_offsets (thread t owns
// ceil(B/256) consecutive ones); uniform_add: every element of block b gets
// block_offsets[b] added (read + write in place).
constexpr uint64_t kScanBlock = 1024;
Row row_scan() {
  Row r;
  r.name = "scan";
  r.desc = "exclusive prefix sum of n ints: block scans, scan of block sums, uniform add (CUDA SDK scan; hybrid graphics Table 2 SLA)";
  r.knobs = {{"n", "elements", 2 << 20, 32, int64_t(1) << 28}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) {
    const uint64_t n = K(k, "n");
    return 8 * n + 8 * ceil_div(n, kScanBlock);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), B = ceil_div(n, kScanBlock);
    auto p = std::make_unique<LibProgram>("scan", seed);
    const unsigned in = p->words("in", n, [seed](uint64_t i) { return hash32(seed, 13, i) & 0xff; });
    const unsigned out = p->words("out", n);
    const unsigned sums = p->words("block_sums", B);
    const unsigned offs = p->words("block_offsets", B);
    LibProgram* P = p.get();
    p->estimate = 3;
    // Offload block: uniform_add (its loop over 4 elements unrolled); live-in the
    // thread index. The block scans stage data in shared memory: no blocks.
    p->offload_blocks("uniform_add", {straight_block("add_offset", 1, 0, 5, 4, 4)});
    const uint64_t spt = ceil_div(B, 256);  // block sums per thread of scan_sums
    auto memo = std::make_shared<Memo<std::vector<uint32_t>>>();
    // Exclusive scan of cnt words at addr (what a CTA computes in shared memory).
    auto xscan = [](const Thread& t, uint64_t addr, uint64_t cnt) {
      std::vector<uint32_t> v(cnt + 1, 0);
      for (uint64_t x = 0; x < cnt; ++x) v[x + 1] = v[x] + t.peek(addr + 4 * x);
      return v;
    };
    p->schedule = [=](unsigned it, Launch& l) {
      const uint64_t bi = P->base(in), bo = P->base(out), bs = P->base(sums), bf = P->base(offs);
      memo->clear();
      if (it == 0) {
        l = {"scan_blocks", B * 256, 8, {in}, {out, sums}, [=](uint64_t tid, Thread& t) {
               const uint64_t b = tid / 256, j = tid % 256, b0 = b * kScanBlock, cnt = std::min(kScanBlock, n - b0);
               for (uint64_t m = 0; m < 4; ++m)
                 if (j + 256 * m < cnt) t.ld(bi + 4 * (b0 + j + 256 * m));
               t.barrier();
               t.alu(20);  // up-sweep and down-sweep in shared memory
               t.barrier();
               const std::vector<uint32_t>& v = memo->get(b, [&] { return xscan(t, bi + 4 * b0, cnt); });
               for (uint64_t m = 0; m < 4; ++m)
                 if (j + 256 * m < cnt) t.st(bo + 4 * (b0 + j + 256 * m), v[j + 256 * m]);
               if (j == 0) t.st(bs + 4 * b, v[cnt]);
             }};
      } else if (it == 1) {
        l = {"scan_sums", 256, 8, {sums}, {offs}, [=](uint64_t j, Thread& t) {
               for (uint64_t m = 0; m < spt; ++m)
                 if (j * spt + m < B) t.ld(bs + 4 * (j * spt + m));
               t.barrier();
               t.alu(20);
               t.barrier();
               const std::vector<uint32_t>& v = memo->get(0, [&] { return xscan(t, bs, B); });
               for (uint64_t m = 0; m < spt; ++m)
                 if (j * spt + m < B) t.st(bf + 4 * (j * spt + m), v[j * spt + m]);
             }};
      } else if (it == 2) {
        l = {"uniform_add", B * 256, 8, {out, offs}, {out}, [=](uint64_t tid, Thread& t) {
               const uint64_t b = tid / 256, j = tid % 256, b0 = b * kScanBlock;
               t.begin_block(0);
               const uint32_t add = t.ld(bf + 4 * b);
               for (uint64_t m = 0; m < 4; ++m) {
                 const uint64_t e = b0 + j + 256 * m;
                 if (e >= n) continue;
                 const uint32_t v = t.ld(bo + 4 * e);
                 t.alu();
                 t.st(bo + 4 * e, v + add);
               }
               t.end_block();
             }};
      } else {
        return false;
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto v = q.initial(in);
      std::vector<uint32_t> want(n), ws(B, 0), wf(B);
      uint32_t s = 0;
      for (uint64_t i = 0; i < n; ++i) want[i] = s, s += v[i], ws[i / kScanBlock] += v[i];
      for (uint64_t b = 0; b < B; ++b) wf[b] = want[b * kScanBlock];
      return q.expect(g, out, want, why) && q.expect(g, sums, ws, why) && q.expect(g, offs, wf, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_streaming() {
  return {make_info(row_scalarprod()), make_info(row_blackscholes()), make_info(row_nn()),
          make_info(row_reduction()),  make_info(row_kmeans()),       make_info(row_mersenne()),
          make_info(row_libor()),      make_info(row_scan())};
}

}  // namespace strata
