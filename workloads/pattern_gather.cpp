// Kernel library, pattern "gather": indirect, data-dependent accesses
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//   histogram  CUDA SDK histogram256: per-CTA sub-histograms, then a merge
//              kernel reading them with a 1 KiB stride          HAC Table II (HG)
//   mummer     MUMmerGPU-like matching: each query binary-searches a sorted
//              suffix array of 16-mers (dependent probes, shared top levels) HAC Table II (MUM)
//   lavamd     Rodinia lavaMD: particles in a 3D grid of boxes, each box's
//              particles interact with the 27 neighbour boxes  FLRB Table III (lava: 1 kernel, 4 arrays)
// Arithmetic is 32-bit unsigned and wraps; values are checked against host loops.
#include <algorithm>

#include "workloads/lib_core.h"

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

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_gather() {
  return {make_info(row_histogram()), make_info(row_mummer()), make_info(row_lavamd())};
}

}  // namespace strata
