// Kernel library, pattern "gather": indirect, data-dependent accesses
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//   histogram  CUDA SDK histogram256: per-CTA sub-histograms, then a merge
//              kernel reading them with a 1 KiB stride          HAC Table II (HG)
//   mummer     MUMmerGPU-like matching: each query binary-searches a sorted
//              suffix array of 16-mers (dependent probes, shared top levels) HAC Table II (MUM)
//   lavamd     Rodinia lavaMD: particles in a 3D grid of boxes, each box's
//              particles interact with the 27 neighbour boxes  FLRB Table III (lava: 1 kernel, 4 arrays)
//   cfd        Rodinia cfd (euler3d): per element flux over 4 faces with
//              neighbour-index gathers, Runge-Kutta stages      TOM Table 2 (CFD)
//   streamcluster  Rodinia streamcluster pgain: point-to-candidate distances,
//              cost comparison, per-thread cost rows            FLRB Table III (sc: 1 kernel, 5 arrays)
// Arithmetic is 32-bit unsigned and wraps; values are checked against host loops.
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- histogram
// data: n words = 4n byte samples. Kernel 1: G = ceil(n / 4096) CTAs, thread t
// of T = 256 G loads data[t + j T] (grid-stride); thread j of CTA c writes
// partial[c 256 + j] = count of bin j in the CTA's words (shared-memory
// sub-histogram). Kernel 2: 256 CTAs (bins); thread t of CTA b loads
// partial[(t + 256 i) 256 + b] for t + 256 i < G; thread 0 writes hist[b].
constexpr uint64_t kHgPer = 16;
Row row_histogram() {
  Row r;
  r.name = "histogram";
  r.desc = "256-bin histogram of 4n bytes: per-CTA partial histograms, then a strided merge (CUDA SDK histogram; HAC Table II HG)";
  r.knobs = {{"n", "data words (4 samples each)", 4 << 20, 32, int64_t(1) << 28}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 4 * K(k, "n") + 1024 * ceil_div(K(k, "n"), 256 * kHgPer) + 1024; };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), G = ceil_div(n, 256 * kHgPer), T = 256 * G;
    auto p = std::make_unique<LibProgram>("histogram", seed);
    // skewed samples (low bins more frequent), as in images
    const unsigned data = p->words("data", n, [seed](uint64_t i) {
      const uint32_t h = hash32(seed, 50, i);
      return h & (h >> 1) & 0x7f7f7f7fu;
    });
    const unsigned part = p->words("partial", 256 * G), hist = p->words("hist", 256);
    LibProgram* P = p.get();
    p->estimate = 2;
    auto memo = std::make_shared<Memo<std::vector<uint32_t>>>();
    p->schedule = [=](unsigned kk, Launch& l) {
      const uint64_t bd = P->base(data), bp = P->base(part), bh = P->base(hist);
      memo->clear();
      if (kk == 0) {
        // Offload blocks: the data loop counts bytes with shared-memory atomics
        // (breaks Sec. 3.1.4); the merge loop sums partial histograms.
        OffloadBlock count = loop_block("count_bytes", TripKind::AtEntry, 0, 1, 0, 1, 0, 8);
        count.limits = OFL_LIMIT_SHARED | OFL_LIMIT_ATOMIC;
        P->offload_blocks("histogram256", {count});
        P->offload_blocks("merge_histogram256", {loop_block("merge", TripKind::AtEntry, 0, 1, 1, 1, 0, 1)});
        l = {"histogram256", T, 8, {data}, {part}, [=](uint64_t tid, Thread& t) {
               t.begin_block(0);
               for (uint64_t i = tid; i < n; i += T) {
                 t.ld(bd + 4 * i);
                 t.alu(8);  // 4 shared-memory atomics
               }
               t.end_block();
               t.barrier();
               const uint64_t c = tid / 256, j = tid % 256;
               const std::vector<uint32_t>& h = memo->get(c, [&] {
                 std::vector<uint32_t> cnt(256, 0);
                 for (uint64_t th = c * 256; th < c * 256 + 256; ++th)
                   for (uint64_t i = th; i < n; i += T) {
                     const uint32_t w = t.peek(bd + 4 * i);
                     for (int s = 0; s < 32; s += 8) ++cnt[(w >> s) & 0xff];
                   }
                 return cnt;
               });
               t.st(bp + 4 * (c * 256 + j), h[j]);
             }};
      } else if (kk == 1) {
        l = {"merge_histogram256", 256 * 256, 8, {part}, {hist}, [=](uint64_t tid, Thread& t) {
               const uint64_t b = tid / 256, j = tid % 256;
               t.begin_block(0);
               for (uint64_t c = j; c < G; c += 256) {
                 t.ld(bp + 4 * (c * 256 + b));
                 t.alu();
               }
               t.end_block();
               t.barrier();
               if (j == 0) {
                 uint32_t s = 0;
                 for (uint64_t c = 0; c < G; ++c) s += t.peek(bp + 4 * (c * 256 + b));
                 t.alu(8);
                 t.st(bh + 4 * b, s);
               }
             }};
      } else {
        return false;
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> h(256, 0);
      for (uint32_t w : q.initial(data))
        for (int s = 0; s < 32; s += 8) ++h[(w >> s) & 0xff];
      return q.expect(g, hist, h, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- mummer
// Reference: a seeded DNA string; suffix array `sa_keys` = the sorted 16-mers
// (2 bits per base) of its R = 2^log2ref positions. Q = R / 4 queries: even
// queries are 16-mers of the reference, odd ones random. Thread q loads its
// query and finds the lower bound with exactly log2ref dependent probes
// (pos starts at -1; for b = R/2 .. 1: if sa[pos + b] < query, pos += b), and
// writes pos + 1 to `match`.
Row row_mummer() {
  Row r;
  r.name = "mummer";
  r.desc = "16-mer queries binary-searched in a sorted suffix array, dependent probes (MUMmerGPU-like; HAC Table II MUM)";
  r.knobs = {{"log2ref", "log2 of the suffix-array entries R (queries = R/4)", 19, 6, 28}};
  r.size_knob = "log2ref";
  r.footprint = [](const Knobs& k) { return uint64_t(6) << K(k, "log2ref"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const unsigned lg = static_cast<unsigned>(K(k, "log2ref"));
    const uint64_t R = uint64_t(1) << lg, Q = R / 4;
    auto genome = std::make_shared<std::vector<uint32_t>>(R);  // the 16-mer at every position, then sorted
    {
      std::vector<uint8_t> dna(R + 15);
      for (uint64_t i = 0; i < dna.size(); ++i) dna[i] = static_cast<uint8_t>(hash32(seed, 51, i / 16) >> (2 * (i % 16)) & 3);
      for (uint64_t i = 0; i < R; ++i) {
        uint32_t kmer = 0;
        for (unsigned j = 0; j < 16; ++j) kmer = kmer << 2 | dna[i + j];
        (*genome)[i] = kmer;
      }
    }
    std::vector<uint32_t> queries(Q);
    for (uint64_t q = 0; q < Q; ++q)
      queries[q] = q % 2 ? hash32(seed, 52, q) : (*genome)[hash32(seed, 53, q) % R];
    std::sort(genome->begin(), genome->end());
    auto qv = std::make_shared<std::vector<uint32_t>>(std::move(queries));
    auto p = std::make_unique<LibProgram>("mummer", seed);
    const unsigned sa = p->words("sa_keys", R, [genome](uint64_t i) { return (*genome)[i]; });
    const unsigned qu = p->words("queries", Q, [qv](uint64_t i) { return (*qv)[i]; });
    const unsigned ma = p->words("match", Q);
    LibProgram* P = p.get();
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk) return false;
      const uint64_t bs = P->base(sa), bq = P->base(qu), bm = P->base(ma);
      // Offload block: the binary search (log2 R trips, known at entry; live-in
      // the key, position and step, live-out the position).
      P->offload_blocks("mummer_match", {loop_block("binary_search", TripKind::AtEntry, 0, 3, 1, 1, 0, 2)});
      l = {"mummer_match", Q, 8, {sa, qu}, {ma}, [=](uint64_t q, Thread& t) {
             const uint32_t x = t.ld(bq + 4 * q);
             int64_t pos = -1;
             t.begin_block(0);
             for (uint64_t b = R / 2; b; b >>= 1) {
               const uint32_t v = t.ld_dep(bs + 4 * static_cast<uint64_t>(pos + static_cast<int64_t>(b)));
               t.alu(2);
               if (v < x) pos += static_cast<int64_t>(b);
             }
             t.end_block();
             t.st(bm + 4 * q, static_cast<uint32_t>(pos + 1));
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> want(Q);
      for (uint64_t i = 0; i < Q; ++i)
        want[i] = static_cast<uint32_t>(std::lower_bound(genome->begin(), genome->end(), (*qv)[i]) - genome->begin());
      return q.expect(g, ma, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- lavamd
// D^3 boxes of 64 particles; box_nbrs[b 27 + k] = index of the k-th of the 27
// boxes around b (itself included) or ~0 outside the grid. One 64-thread CTA
// per box, thread = particle i: loads its rv (x, y, z, v: two 8 B loads); for
// each k loads box_nbrs[b 27 + k] (broadcast); for an existing neighbour box
// loads that box's particle (lane) rv (2 x 8 B) and qv into shared memory,
// then interacts with all 64 (shared, peeked here); stores fv (4 words).
constexpr uint64_t kLavaP = 64;
struct LavaF {
  uint32_t f[4] = {0, 0, 0, 0};
};
inline void lava_add(LavaF& a, const uint32_t* ri, const uint32_t* rj, uint32_t qj) {
  const uint32_t dx = ri[0] - rj[0], dy = ri[1] - rj[1], dz = ri[2] - rj[2];
  const uint32_t f = qj * (((dx * dx + dy * dy + dz * dz) >> 4) ^ ri[3]);
  a.f[0] += f;
  a.f[1] += f * dx;
  a.f[2] += f * dy;
  a.f[3] += f * dz;
}
Row row_lavamd() {
  Row r;
  r.name = "lavamd";
  r.desc = "particle potentials over D^3 boxes of 64 particles and their 27 neighbour boxes (Rodinia lavaMD; FLRB Table III lava)";
  r.knobs = {{"boxdim", "boxes per dimension D", 10, 1, 128}};
  r.size_knob = "boxdim";
  r.footprint = [](const Knobs& k) {
    const uint64_t nb = K(k, "boxdim") * K(k, "boxdim") * K(k, "boxdim");
    return 4 * 27 * nb + nb * kLavaP * (16 + 4 + 16);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t D = K(k, "boxdim"), NB = D * D * D, NP = NB * kLavaP;
    auto p = std::make_unique<LibProgram>("lavamd", seed);
    auto nbr = [D](uint64_t i) -> uint32_t {
      const uint64_t b = i / 27, kk = i % 27;
      const int64_t x = b % D + int64_t(kk % 3) - 1, y = (b / D) % D + int64_t(kk / 3 % 3) - 1, z = b / (D * D) + int64_t(kk / 9) - 1;
      if (x < 0 || y < 0 || z < 0 || x >= int64_t(D) || y >= int64_t(D) || z >= int64_t(D)) return ~0u;
      return static_cast<uint32_t>((z * int64_t(D) + y) * int64_t(D) + x);
    };
    const unsigned box = p->words("box_nbrs", 27 * NB, nbr);
    const unsigned rv = p->words("rv", 4 * NP, [seed](uint64_t i) { return hash32(seed, 54, i) & 0xfff; });
    const unsigned qv = p->words("qv", NP, [seed](uint64_t i) { return hash32(seed, 55, i) & 0xff; });
    const unsigned fv = p->words("fv", 4 * NP);
    LibProgram* P = p.get();
    auto memo = std::make_shared<Memo<std::vector<uint32_t>>>();  // a box's particles as staged in shared memory
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk) return false;
      memo->clear();
      const uint64_t bb = P->base(box), br = P->base(rv), bq = P->base(qv), bf = P->base(fv);
      l = {"lavamd_kernel", NP, 2, {box, rv, qv}, {fv}, [=](uint64_t i, Thread& t) {
             const uint64_t b = i / kLavaP, lane = i % kLavaP;
             uint32_t ri[4];
             const uint64_t a = t.ld64(br + 16 * i), c = t.ld64(br + 16 * i + 8);
             ri[0] = static_cast<uint32_t>(a), ri[1] = static_cast<uint32_t>(a >> 32);
             ri[2] = static_cast<uint32_t>(c), ri[3] = static_cast<uint32_t>(c >> 32);
             LavaF acc;
             for (uint64_t k2 = 0; k2 < 27; ++k2) {
               const uint32_t nb = t.ld(bb + 4 * (b * 27 + k2));
               if (nb == ~0u) continue;  // uniform across the CTA
               const uint64_t j0 = uint64_t(nb) * kLavaP;
               t.ld64(br + 16 * (j0 + lane));
               t.ld64(br + 16 * (j0 + lane) + 8);
               t.ld(bq + 4 * (j0 + lane));
               t.barrier();
               const std::vector<uint32_t>& sh = memo->get(nb, [&] {
                 std::vector<uint32_t> v(5 * kLavaP);
                 for (uint64_t j = 0; j < kLavaP; ++j) {
                   for (int e = 0; e < 4; ++e) v[5 * j + e] = t.peek(br + 16 * (j0 + j) + 4 * e);
                   v[5 * j + 4] = t.peek(bq + 4 * (j0 + j));
                 }
                 return v;
               });
               for (uint64_t j = 0; j < kLavaP; ++j) lava_add(acc, ri, &sh[5 * j], sh[5 * j + 4]);
               t.alu(64);
               t.sfu(4);
               t.barrier();
             }
             for (int e = 0; e < 4; ++e) t.st(bf + 16 * i + 4 * e, acc.f[e]);
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto r_ = q.initial(rv), q_ = q.initial(qv);
      std::vector<uint32_t> want(4 * NP);
      for (uint64_t i = 0; i < NP; ++i) {
        LavaF acc;
        for (uint64_t k2 = 0; k2 < 27; ++k2) {
          const uint32_t nb = nbr((i / kLavaP) * 27 + k2);
          if (nb == ~0u) continue;
          for (uint64_t j = uint64_t(nb) * kLavaP; j < (uint64_t(nb) + 1) * kLavaP; ++j) lava_add(acc, &r_[4 * i], &r_[4 * j], q_[j]);
        }
        for (int e = 0; e < 4; ++e) want[4 * i + e] = acc.f[e];
      }
      return q.expect(g, fv, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- cfd
// Rodinia cfd (euler3d, unstructured finite volumes; TOM Table 2 CFD), all
// arrays structure-of-arrays with stride n (component c of element i at
// c n + i, as Rodinia): areas (n), elements_surrounding_elements (4 n),
// normals (12 n: 3 components x 4 faces), variables, old_variables, fluxes
// (5 n: density, momentum x/y/z, energy), step_factors (n).
// Mesh: elements are the cells of a G x G x nz grid (G = 32), numbered by a
// seeded permutation inside every run of 256 grid-ordered cells, so a warp's
// neighbour gathers scatter over about 1 KiB plus the planes above and below.
// Faces: the x partner (x xor 1), the y partner (y xor 1), z - 1 (or -1, a
// wall, at the bottom), z + 1 (or -2, the far field, at the top).
// Per iteration: cfd_copy (old = variables: 5 loads, 5 stores), cfd_step_factor
// (5 variables + area: 6 loads, 1 store), then 3 Runge-Kutta stages of
// cfd_flux (own 5 variables; per face the neighbour index, 3 normal
// components and, for an element neighbour, its 5 variables (the gathers);
// 5 stores) and cfd_time_step (step factor, 5 old variables, 5 fluxes;
// 5 stores).
constexpr uint64_t kCfdG = 32, kCfdRk = 3;
constexpr uint32_t kCfdWall = 0xffffffffu, kCfdFar = 0xfffffffeu;
inline uint32_t cfd_pressure(const uint32_t* v) { return (v[4] - ((v[1] * v[1] + v[2] * v[2] + v[3] * v[3]) >> 9)) >> 1; }
// Flux contribution of face (normal n) to element variables v from neighbour w
// (null for a wall or the far field, told apart by nb).
inline void cfd_face(uint32_t* f, const uint32_t* v, const uint32_t* n, uint32_t nb, const uint32_t* w) {
  const uint32_t s = n[0] + n[1] + n[2], p = cfd_pressure(v);
  if (nb == kCfdWall) {
    for (int a = 0; a < 3; ++a) f[1 + a] += n[a] * p;
  } else if (nb == kCfdFar) {
    static const uint32_t ff[5] = {1000, 20, 0, 5, 25000};  // far-field state (Rodinia's ff_variable)
    for (int c = 0; c < 5; ++c) f[c] += s * (ff[c] - v[c]);
  } else {
    for (int c = 0; c < 5; ++c) f[c] += s * (w[c] - v[c]) + ((n[c % 3] * p) >> 4);
  }
}
inline uint32_t cfd_step_factor(const uint32_t* v, uint32_t area) { return (area >> 2) + (v[0] & 0xff) + (v[4] >> 12) + 1; }
inline uint32_t cfd_update(uint32_t old, uint32_t sf, uint32_t flux, uint64_t stage) {
  return old + ((sf / static_cast<uint32_t>(kCfdRk + 1 - stage)) * flux >> 8);
}
Row row_cfd() {
  Row r;
  r.name = "cfd";
  r.desc = "unstructured-mesh Euler flux: neighbour-index gathers, 3 Runge-Kutta stages per iteration, SoA arrays (Rodinia cfd; TOM Table 2 CFD)";
  r.knobs = {{"nz", "mesh layers (32 x 32 elements each)", 48, 2, 1 << 16}, {"iters", "iterations (8 kernels each)", 1, 1, 1000}};
  r.size_knob = "nz";
  r.footprint = [](const Knobs& k) { return 4 * kCfdG * kCfdG * K(k, "nz") * 33; };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t nz = K(k, "nz"), iters = K(k, "iters"), G2 = kCfdG * kCfdG, n = G2 * nz;
    // element id of grid cell g: a seeded permutation within each run of 256
    auto ids = std::make_shared<std::vector<uint32_t>>(n);
    for (uint64_t b = 0; b < n; b += 256) {
      std::vector<uint32_t> perm(256);
      for (uint32_t j = 0; j < 256; ++j) perm[j] = static_cast<uint32_t>(b + j);
      for (uint32_t j = 255; j > 0; --j) std::swap(perm[j], perm[hash32(seed, 110, b + j) % (j + 1)]);
      for (uint32_t j = 0; j < 256; ++j) (*ids)[b + j] = perm[j];
    }
    auto nbr = std::make_shared<std::vector<uint32_t>>(4 * n);
    for (uint64_t g = 0; g < n; ++g) {
      const uint64_t x = g % kCfdG, y = g / kCfdG % kCfdG, z = g / G2, e = (*ids)[g];
      (*nbr)[0 * n + e] = (*ids)[g - x + (x ^ 1)];
      (*nbr)[1 * n + e] = (*ids)[g - kCfdG * y + kCfdG * (y ^ 1)];
      (*nbr)[2 * n + e] = z ? (*ids)[g - G2] : kCfdWall;
      (*nbr)[3 * n + e] = z + 1 < nz ? (*ids)[g + G2] : kCfdFar;
    }
    auto p = std::make_unique<LibProgram>("cfd", seed);
    const unsigned ar = p->words("areas", n, [seed](uint64_t i) { return 64 + (hash32(seed, 111, i) & 0xff); });
    const unsigned ns = p->words("elements_surrounding_elements", 4 * n, [nbr](uint64_t i) { return (*nbr)[i]; });
    const unsigned nm = p->words("normals", 12 * n, [seed](uint64_t i) { return (hash32(seed, 112, i) & 0x3f) - 32; });
    const unsigned va = p->words("variables", 5 * n, [seed, n](uint64_t i) {
      static const uint32_t base[5] = {1000, 0, 0, 0, 25000};
      return base[i / n] + (hash32(seed, 113, i) & 0x3f);
    });
    const unsigned ov = p->words("old_variables", 5 * n);
    const unsigned fl = p->words("fluxes", 5 * n);
    const unsigned sf = p->words("step_factors", n);
    LibProgram* P = p.get();
    const uint64_t per = 2 + 2 * kCfdRk;
    p->estimate = static_cast<unsigned>(iters * per);
    // Offload blocks (live-in the element index; the stage factor is a kernel
    // parameter). cfd_flux declares none: its loads depend on each face's kind.
    p->offload_blocks("cfd_copy", {straight_block("copy", 1, 0, 5, 5)});
    p->offload_blocks("cfd_step_factor", {straight_block("step_factor", 1, 0, 6, 1, 10, 1)});
    p->offload_blocks("cfd_time_step", {straight_block("update", 1, 0, 11, 5, 15)});
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= iters * per) return false;
      const uint64_t ph = kk % per;
      const uint64_t bar = P->base(ar), bns = P->base(ns), bnm = P->base(nm), bva = P->base(va), bov = P->base(ov),
                     bfl = P->base(fl), bsf = P->base(sf);
      if (ph == 0) {
        l = {"cfd_copy", n, 8, {va}, {ov}, [=](uint64_t i, Thread& t) {
               t.begin_block(0);
               for (uint64_t c = 0; c < 5; ++c) t.st(bov + 4 * (c * n + i), t.ld(bva + 4 * (c * n + i)));
               t.end_block();
             }};
      } else if (ph == 1) {
        l = {"cfd_step_factor", n, 8, {va, ar}, {sf}, [=](uint64_t i, Thread& t) {
               uint32_t v[5];
               t.begin_block(0);
               for (uint64_t c = 0; c < 5; ++c) v[c] = t.ld(bva + 4 * (c * n + i));
               const uint32_t a = t.ld(bar + 4 * i);
               t.alu(10);
               t.sfu(1);  // sqrt of the speed of sound
               t.st(bsf + 4 * i, cfd_step_factor(v, a));
               t.end_block();
             }};
      } else if (ph % 2 == 0) {
        l = {"cfd_flux", n, 8, {va, ns, nm}, {fl}, [=](uint64_t i, Thread& t) {
               uint32_t v[5], f[5] = {0, 0, 0, 0, 0};
               for (uint64_t c = 0; c < 5; ++c) v[c] = t.ld(bva + 4 * (c * n + i));
               t.alu(8);
               t.sfu(2);
               for (uint64_t j = 0; j < 4; ++j) {
                 const uint32_t nb = t.ld(bns + 4 * (j * n + i));
                 uint32_t nv[3], w[5];
                 for (uint64_t a = 0; a < 3; ++a) nv[a] = t.ld(bnm + 4 * ((a * 4 + j) * n + i));
                 const bool elem = nb != kCfdWall && nb != kCfdFar;
                 if (elem) {
                   for (uint64_t c = 0; c < 5; ++c) {
                     const uint64_t a = bva + 4 * (c * n + nb);
                     w[c] = c ? t.ld(a) : t.ld_dep(a);
                   }
                 }
                 t.alu(elem ? 24 : 8);
                 if (elem) t.sfu(2);
                 cfd_face(f, v, nv, nb, elem ? w : nullptr);
               }
               for (uint64_t c = 0; c < 5; ++c) t.st(bfl + 4 * (c * n + i), f[c]);
             }};
      } else {
        const uint64_t stage = (ph - 3) / 2;
        l = {"cfd_time_step", n, 8, {sf, ov, fl}, {va}, [=](uint64_t i, Thread& t) {
               t.begin_block(0);
               const uint32_t s = t.ld(bsf + 4 * i);
               uint32_t o[5];
               for (uint64_t c = 0; c < 5; ++c) o[c] = t.ld(bov + 4 * (c * n + i));
               for (uint64_t c = 0; c < 5; ++c) {
                 const uint32_t fx = t.ld(bfl + 4 * (c * n + i));
                 t.alu(3);
                 t.st(bva + 4 * (c * n + i), cfd_update(o[c], s, fx, stage));
               }
               t.end_block();
             }};
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> v = q.initial(va), o = q.initial(ov), f = q.initial(fl), s = q.initial(sf);
      const std::vector<uint32_t> a = q.initial(ar), nn = q.initial(nm);
      auto get = [n](const std::vector<uint32_t>& x, uint64_t i, uint32_t* out) {
        for (uint64_t c = 0; c < 5; ++c) out[c] = x[c * n + i];
      };
      for (uint64_t it = 0; it < iters; ++it) {
        o = v;
        for (uint64_t i = 0; i < n; ++i) {
          uint32_t vi[5];
          get(v, i, vi);
          s[i] = cfd_step_factor(vi, a[i]);
        }
        for (uint64_t st = 0; st < kCfdRk; ++st) {
          for (uint64_t i = 0; i < n; ++i) {
            uint32_t vi[5], fi[5] = {0, 0, 0, 0, 0};
            get(v, i, vi);
            for (uint64_t j = 0; j < 4; ++j) {
              const uint32_t nb = (*nbr)[j * n + i];
              const uint32_t nv[3] = {nn[(0 * 4 + j) * n + i], nn[(1 * 4 + j) * n + i], nn[(2 * 4 + j) * n + i]};
              uint32_t w[5];
              const bool elem = nb != kCfdWall && nb != kCfdFar;
              if (elem) get(v, nb, w);
              cfd_face(fi, vi, nv, nb, elem ? w : nullptr);
            }
            for (uint64_t c = 0; c < 5; ++c) f[c * n + i] = fi[c];
          }
          for (uint64_t i = 0; i < 5 * n; ++i) v[i] = cfd_update(o[i], s[i % n], f[i], st);
        }
      }
      return q.expect(g, va, v, why) && q.expect(g, ov, o, why) && q.expect(g, fl, f, why) && q.expect(g, sf, s, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- streamcluster
// Rodinia streamcluster's pgain kernel (FLRB Table III sc: 1 kernel, 5
// arrays), evaluated for C candidate centres x_c = (2c + 1) n / (2C), one
// launch each, against K open centres. Arrays: coord (dim x n, transposed:
// coordinate d of point i at d n + i, coalesced), points (Rodinia's Point
// struct, 32 B: weight at word 0, coord pointer at 2, assign (a centre's
// point index) at 4, cost at 6), center_table (n: point index -> centre
// number), switch_membership (n), work_mem (n x (K + 1): each thread's own
// row, stride 4 (K + 1) B between lanes).
// Thread i of a 512-thread CTA: threads below dim load coordinate d of x_c
// into shared memory (stride n: uncoalesced), barrier; dist = sum over d of
// (coord[d n + i] - x[d])^2 (dim coalesced loads); loads weight and cost;
// x_cost = dist weight; if x_cost < cost: switch_membership[i] = c + 1 and
// work_mem[i][K] += x_cost - cost (load + store), else it loads assign,
// center_table[assign] (dependent) and adds cost - x_cost to
// work_mem[i][center] (load + store). The host's accept/reject step between
// calls is not modelled: every launch sees the same assignments, and
// work_mem accumulates over the launches.
constexpr uint64_t kScCta = 512;
Row row_streamcluster() {
  Row r;
  r.name = "streamcluster";
  r.desc = "streamcluster pgain: distance of every point to a candidate centre, cost comparison, per-thread cost rows (Rodinia; FLRB Table III sc)";
  r.knobs = {{"n", "points", 32768, 64, int64_t(1) << 26},
             {"dim", "dimensions", 32, 1, 512},
             {"centers", "open centres K", 16, 1, 1024},
             {"candidates", "candidate centres C (kernel launches)", 8, 1, 1000}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 4 * K(k, "n") * (K(k, "dim") + K(k, "centers") + 11); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), dim = K(k, "dim"), KC = K(k, "centers"), C = K(k, "candidates");
    if (KC > n) throw std::invalid_argument("workload.streamcluster: centers must not exceed n");
    auto coord = [seed](uint64_t i) { return hash32(seed, 120, i) & 0xff; };  // word d n + i
    // open centres: points c n / K; assign each point to its nearest (host, as the CPU phase)
    auto pts = std::make_shared<std::vector<uint32_t>>(8 * n, 0);
    auto table = std::make_shared<std::vector<uint32_t>>(n, 0);
    for (uint64_t c = 0; c < KC; ++c) (*table)[c * n / KC] = static_cast<uint32_t>(c);
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t w = 1 + hash32(seed, 121, i) % 4;
      uint64_t best = ~uint64_t(0), arg = 0;
      for (uint64_t c = 0; c < KC; ++c) {
        const uint64_t ctr = c * n / KC;
        uint64_t d2 = 0;
        for (uint64_t d = 0; d < dim; ++d) {
          const int64_t diff = int64_t(coord(d * n + i)) - int64_t(coord(d * n + ctr));
          d2 += static_cast<uint64_t>(diff * diff);
        }
        if (d2 < best) best = d2, arg = ctr;
      }
      uint32_t* pp = &(*pts)[8 * i];
      pp[0] = w;
      pp[2] = static_cast<uint32_t>(4 * i);  // coord pointer (an offset here)
      pp[4] = static_cast<uint32_t>(arg);
      pp[6] = static_cast<uint32_t>(best) * w;
    }
    auto p = std::make_unique<LibProgram>("streamcluster", seed);
    const unsigned co = p->words("coord", dim * n, coord);
    const unsigned pt = p->words("points", 8 * n, [pts](uint64_t i) { return (*pts)[i]; });
    const unsigned ct = p->words("center_table", n, [table](uint64_t i) { return (*table)[i]; });
    const unsigned sw = p->words("switch_membership", n);
    const unsigned wm = p->words("work_mem", n * (KC + 1));
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(C);
    // Offload block: the distance loop (dim is a kernel parameter: trip count
    // known at entry; live-in the point index, live-out the distance). It
    // reads the candidate's coordinates from shared memory, so it breaks
    // Sec. 3.1.4 (not a candidate).
    OffloadBlock db = loop_block("distance", TripKind::AtEntry, 0, 1, 1, 1, 0, 2);
    db.limits = OFL_LIMIT_SHARED;
    p->offload_blocks("pgain_kernel", {db});
    auto dist = [=](auto&& read, uint64_t i, uint64_t x) {
      uint32_t s = 0;
      for (uint64_t d = 0; d < dim; ++d) {
        const uint32_t diff = read(d * n + i) - read(d * n + x);
        s += diff * diff;
      }
      return s;
    };
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= C) return false;
      const uint64_t x = (2 * kk + 1) * n / (2 * C);
      const uint64_t bco = P->base(co), bpt = P->base(pt), bct = P->base(ct), bsw = P->base(sw), bwm = P->base(wm);
      l = {"pgain_kernel", n, kScCta / 32, {co, pt, ct, wm}, {sw, wm}, [=](uint64_t i, Thread& t) {
             const uint64_t loc = i % kScCta;
             if (loc < dim) t.ld(bco + 4 * (loc * n + x));
             t.barrier();
             t.begin_block(0);
             for (uint64_t d = 0; d < dim; ++d) {
               t.ld(bco + 4 * (d * n + i));
               t.alu(2);
             }
             t.end_block();
             const uint32_t s = dist([&](uint64_t a) { return t.peek(bco + 4 * a); }, i, x);
             const uint32_t w = t.ld(bpt + 32 * i), cost = t.ld(bpt + 32 * i + 24);
             const uint32_t xc = s * w;
             t.alu(2);
             const uint64_t row = bwm + 4 * i * (KC + 1);
             if (xc < cost) {
               t.st(bsw + 4 * i, static_cast<uint32_t>(kk + 1));
               const uint32_t old = t.ld(row + 4 * KC);
               t.alu();
               t.st(row + 4 * KC, old + xc - cost);
             } else {
               const uint32_t as = t.ld(bpt + 32 * i + 16);
               const uint32_t cn = t.ld_dep(bct + 4 * uint64_t(as));
               const uint32_t old = t.ld(row + 4 * uint64_t(cn));
               t.alu();
               t.st(row + 4 * uint64_t(cn), old + cost - xc);
             }
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const std::vector<uint32_t> cv = q.initial(co);
      std::vector<uint32_t> swv(n, 0), wv(n * (KC + 1), 0);
      for (uint64_t c = 0; c < C; ++c) {
        const uint64_t x = (2 * c + 1) * n / (2 * C);
        for (uint64_t i = 0; i < n; ++i) {
          const uint32_t xc = dist([&](uint64_t a) { return cv[a]; }, i, x) * (*pts)[8 * i], cost = (*pts)[8 * i + 6];
          if (xc < cost) {
            swv[i] = static_cast<uint32_t>(c + 1);
            wv[i * (KC + 1) + KC] += xc - cost;
          } else {
            wv[i * (KC + 1) + (*table)[(*pts)[8 * i + 4]]] += cost - xc;
          }
        }
      }
      return q.expect(g, sw, swv, why) && q.expect(g, wm, wv, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_gather() {
  return {make_info(row_histogram()), make_info(row_mummer()), make_info(row_lavamd()), make_info(row_cfd()),
          make_info(row_streamcluster())};
}

}  // namespace strata
