// Kernel library, pattern "dp_wavefront": dynamic programming whose rows or
// anti-diagonals depend on the previous ones, one kernel launch per step
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//   pathfinder  Rodinia pathfinder (ghost-zone pyramid of 4 rows per launch)
//               FLRB Table III (pf: 1 kernel, 3 arrays); hybrid graphics Table 2 (PF); HMS (pathfnd)
//   nw          Rodinia Needleman-Wunsch, 16x16 blocks, one launch per block
//               anti-diagonal (upper-left then lower-right sweep)  hybrid graphics Table 2 (NW)
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- pathfinder
// wall: rows x cols costs; result0/result1 ping-pong rows. Launch k advances
// rows 1 + 4k .. min(rows - 1, 4k + 4): thread c loads src[c] and the wall
// words of column c of those rows (coalesced), takes its neighbours' partial
// results from shared memory (the ghost zone, recomputed on the host here),
// and writes dst[c]. next[c] = wall[r][c] + min(prev[c-1], prev[c], prev[c+1]).
constexpr uint64_t kPyramid = 4;
Row row_pathfinder() {
  Row r;
  r.name = "pathfinder";
  r.desc = "min-cost path down a rows x cols grid, 4 rows per launch (Rodinia pathfinder; FLRB Table III pf, HMS)";
  r.knobs = {{"cols", "grid columns (threads)", 100000, 32, 1 << 26}, {"rows", "grid rows", 64, 2, 1 << 20}};
  r.size_knob = "rows";
  r.footprint = [](const Knobs& k) { return 4 * K(k, "rows") * K(k, "cols") + 8 * K(k, "cols"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t C = K(k, "cols"), R = K(k, "rows");
    auto p = std::make_unique<LibProgram>("pathfinder", seed);
    const unsigned wall = p->words("wall", R * C, [seed](uint64_t i) { return hash32(seed, 30, i) % 10; });
    const unsigned res[2] = {p->words("result0", C, [seed](uint64_t i) { return hash32(seed, 30, i) % 10; }),
                             p->words("result1", C)};
    LibProgram* P = p.get();
    const uint64_t nk = ceil_div(R - 1, kPyramid);
    p->estimate = static_cast<unsigned>(nk);
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= nk) return false;
      const uint64_t r0 = 1 + kPyramid * kk, r1 = std::min(R, r0 + kPyramid);
      const uint64_t bw = P->base(wall), bs = P->base(res[kk & 1]), bd = P->base(res[(kk & 1) ^ 1]);
      l = {"dynproc", C, 8, {wall, res[kk & 1]}, {res[(kk & 1) ^ 1]}, [=](uint64_t c, Thread& t) {
             t.ld(bs + 4 * c);
             for (uint64_t row = r0; row < r1; ++row) t.ld(bw + 4 * (row * C + c));
             t.barrier();
             // ghost zone: columns c - h .. c + h of the source row
             const uint64_t h = r1 - r0, lo = c >= h ? c - h : 0, hi = std::min(C - 1, c + h);
             std::vector<uint32_t> cur(hi - lo + 1), nxt(hi - lo + 1);
             for (uint64_t x = lo; x <= hi; ++x) cur[x - lo] = t.peek(bs + 4 * x);
             for (uint64_t row = r0; row < r1; ++row) {
               for (uint64_t x = lo; x <= hi; ++x) {
                 uint32_t m = cur[x - lo];
                 if (x > 0 && x > lo) m = std::min(m, cur[x - 1 - lo]);
                 if (x + 1 < C && x < hi) m = std::min(m, cur[x + 1 - lo]);
                 nxt[x - lo] = t.peek(bw + 4 * (row * C + x)) + m;
               }
               cur.swap(nxt);
               t.alu(4);
               t.barrier();
             }
             t.st(bd + 4 * c, cur[c - lo]);
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto w = q.initial(wall);
      std::vector<uint32_t> cur = q.initial(res[0]), nxt(C);
      for (uint64_t row = 1; row < R; ++row) {
        for (uint64_t x = 0; x < C; ++x) {
          uint32_t m = cur[x];
          if (x > 0) m = std::min(m, cur[x - 1]);
          if (x + 1 < C) m = std::min(m, cur[x + 1]);
          nxt[x] = w[row * C + x] + m;
        }
        cur.swap(nxt);
      }
      // launch k writes result[(k + 1) % 2]; the last one is k = nk - 1
      return q.expect(g, res[nk & 1], cur, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- nw
// score: (n+1) x (n+1) ints, row 0 / column 0 = -i * penalty; reference: n x n.
// Launch d handles the 16x16 blocks (bx, by) with bx + by = d (d = 0 .. 2B-2,
// the two sweeps of Rodinia); a block is one CTA of 16 active threads: thread
// tx loads reference column tx of the block row by row (16 loads, each a 64 B
// row segment across the 16 threads), the score row above the block and the
// score column left of it (thread 0 also the corner), computes the block in
// shared memory, and stores its 16 rows.
constexpr uint64_t kNwB = 16;
constexpr int32_t kNwPenalty = 10;
Row row_nw() {
  Row r;
  r.name = "nw";
  r.desc = "Needleman-Wunsch alignment of two 16 B-sequences, 16x16 blocks by anti-diagonal (Rodinia nw; hybrid graphics Table 2 NW)";
  r.knobs = {{"blocks", "blocks per side B (sequence length 16 B)", 96, 1, 4096}};
  r.size_knob = "blocks";
  r.footprint = [](const Knobs& k) {
    const uint64_t n = kNwB * K(k, "blocks");
    return 4 * n * n + 4 * (n + 1) * (n + 1);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t B = K(k, "blocks"), n = kNwB * B, w = n + 1;
    auto p = std::make_unique<LibProgram>("nw", seed);
    const unsigned ref = p->words("reference", n * n,
                                  [seed](uint64_t i) { return static_cast<uint32_t>(int32_t(hash32(seed, 31, i) % 15) - 4); });
    const unsigned sc = p->words("score", w * w, [w](uint64_t i) {
      const uint64_t y = i / w, x = i % w;
      return static_cast<uint32_t>(y == 0 ? -int32_t(x) * kNwPenalty : x == 0 ? -int32_t(y) * kNwPenalty : 0);
    });
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(2 * B - 1);
    auto memo = std::make_shared<Memo<std::vector<uint32_t>>>();
    p->schedule = [=](unsigned d, Launch& l) {
      if (d >= 2 * B - 1) return false;
      memo->clear();
      const uint64_t bx0 = d >= B ? d - B + 1 : 0, cnt = std::min<uint64_t>(d, B - 1) - bx0 + 1;
      const uint64_t br = P->base(ref), bsc = P->base(sc);
      l = {d < B ? "nw_kernel1" : "nw_kernel2", cnt * kWarpSize, 1, {ref, sc}, {sc}, [=](uint64_t tid, Thread& t) {
             const uint64_t tx = tid % kWarpSize;
             if (tx >= kNwB) return;
             const uint64_t bx = bx0 + tid / kWarpSize, by = d - bx, x0 = bx * kNwB, y0 = by * kNwB;
             for (uint64_t ty = 0; ty < kNwB; ++ty) t.ld(br + 4 * ((y0 + ty) * n + x0 + tx));
             t.ld(bsc + 4 * (y0 * w + x0 + tx + 1));      // row above
             t.ld(bsc + 4 * ((y0 + tx + 1) * w + x0));    // column to the left
             if (tx == 0) t.ld(bsc + 4 * (y0 * w + x0));  // corner
             t.barrier();
             t.alu(2 * kNwB * 3);  // 31 anti-diagonal steps in shared memory
             t.barrier();
             const std::vector<uint32_t>& blk = memo->get(bx, [&] {
               std::vector<int32_t> s((kNwB + 1) * (kNwB + 1));
               for (uint64_t i = 0; i <= kNwB; ++i) {
                 s[i] = static_cast<int32_t>(t.peek(bsc + 4 * (y0 * w + x0 + i)));
                 s[i * (kNwB + 1)] = static_cast<int32_t>(t.peek(bsc + 4 * ((y0 + i) * w + x0)));
               }
               for (uint64_t y = 1; y <= kNwB; ++y)
                 for (uint64_t x = 1; x <= kNwB; ++x)
                   s[y * (kNwB + 1) + x] = std::max(
                       {s[(y - 1) * (kNwB + 1) + x - 1] + static_cast<int32_t>(t.peek(br + 4 * ((y0 + y - 1) * n + x0 + x - 1))),
                        s[(y - 1) * (kNwB + 1) + x] - kNwPenalty, s[y * (kNwB + 1) + x - 1] - kNwPenalty});
               return std::vector<uint32_t>(s.begin(), s.end());
             });
             for (uint64_t ty = 0; ty < kNwB; ++ty)
               t.st(bsc + 4 * ((y0 + ty + 1) * w + x0 + tx + 1), blk[(ty + 1) * (kNwB + 1) + tx + 1]);
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto rv = q.initial(ref);
      auto sv = q.initial(sc);
      auto S = [&](uint64_t y, uint64_t x) -> int32_t& { return reinterpret_cast<int32_t&>(sv[y * w + x]); };
      for (uint64_t y = 1; y <= n; ++y)
        for (uint64_t x = 1; x <= n; ++x)
          S(y, x) = std::max({S(y - 1, x - 1) + static_cast<int32_t>(rv[(y - 1) * n + x - 1]), S(y - 1, x) - kNwPenalty,
                              S(y, x - 1) - kNwPenalty});
      return q.expect(g, sc, sv, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_dp_wavefront() { return {make_info(row_pathfinder()), make_info(row_nw())}; }

}  // namespace strata
