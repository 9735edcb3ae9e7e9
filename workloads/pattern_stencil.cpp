// Kernel library, pattern "stencil": 1D/2D/3D stencils and convolutions over
// row-major grids of 32-bit words, one thread per point, 256-thread CTAs
// (docs/workload_library.md has every row's arrays, kernels and formulas).
// Neighbour loads along x are misaligned by 4 B per tap (one extra line per
// warp), along y/z they are whole rows/planes away (reuse distance one row /
// one plane), so the L1/L2 reuse depends on the grid width as in the originals.
//
// Generic rows (one pass = one kernel; border points, within the pass radius
// of an edge, copy their value; interior points combine the taps):
//   hotspot3d  Rodinia hotspot3D, 7-point 3D + power input      HMS (hotspot3D)
//   laplace    3D Laplace solver, 7-point Jacobi                 HAC Table II (LPS); hybrid graphics Table 2 (LPS)
//   stencil    Parboil stencil, 7-point 3D Jacobi                HMS (stencil)
//   conv2d     Polybench 2DCONV, 3x3                             HMS (2DConv)
//   convsep    CUDA SDK convolutionSeparable, rows then columns,
//              radius 8 (2 kernels, 3 arrays)                    FLRB Table III (cs)
// Own rows:
//   srad       Rodinia SRAD v2: 2 kernels per iteration, 6 arrays hybrid graphics Table 2 (SD1, SD2)
//   heartwall  Rodinia heartwall: per frame, each CTA correlates a
//              16x16 template around its tracked point           TOM Table 2 (HW)
//   weather    WRF microphysics (WSM5 GPU port): 7-point advection of
//              t, qv, then a column loop over 9 fields per step  HAC Table II (WP)
// Arithmetic is 32-bit unsigned and wraps; values are checked against host loops.
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

struct Tap {
  int dx, dy, dz;
  uint32_t w;
};
struct Spec {
  const char* name;
  const char* desc;
  int64_t nx, ny, nz, iters;  // defaults (iters < 0: fixed at -iters, no knob)
  std::vector<std::vector<Tap>> passes;  // one pass: ping-pong over iters; several: in -> buf -> ... -> out
  std::vector<const char*> arrays;       // grid array names (+ "power" last when power_w != 0)
  uint32_t power_w;
  unsigned shift;
};

struct Radius {
  uint64_t x = 0, y = 0, z = 0;
};
Radius radius(const std::vector<Tap>& taps) {
  Radius r;
  for (const Tap& t : taps) {
    r.x = std::max<uint64_t>(r.x, static_cast<uint64_t>(std::abs(t.dx)));
    r.y = std::max<uint64_t>(r.y, static_cast<uint64_t>(std::abs(t.dy)));
    r.z = std::max<uint64_t>(r.z, static_cast<uint64_t>(std::abs(t.dz)));
  }
  return r;
}

Row stencil_row(const Spec& s) {
  Row r;
  r.name = s.name;
  r.desc = s.desc;
  r.knobs = {{"nx", "grid width (points)", s.nx, 17, 1 << 16}, {"ny", "grid height (points)", s.ny, s.ny > 1 ? 17 : 1, 1 << 16}};
  if (s.nz > 1) r.knobs.push_back({"nz", "grid depth (points)", s.nz, 3, 1 << 16});
  if (s.iters > 0) r.knobs.push_back({"iters", "sweeps (kernel launches)", s.iters, 1, 1000});
  r.size_knob = s.nz > 1 ? "nz" : "ny";
  const uint64_t ngrids = s.passes.size() == 1 ? 2 : s.passes.size() + 1;
  const bool power = s.power_w != 0;
  r.footprint = [=](const Knobs& k) {
    const uint64_t n = K(k, "nx") * K(k, "ny") * (k.count("nz") ? K(k, "nz") : 1);
    return 4 * n * (ngrids + (power ? 1 : 0));
  };
  r.build = [s, ngrids, power](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t nx = K(k, "nx"), ny = K(k, "ny"), nz = k.count("nz") ? K(k, "nz") : 1;
    const uint64_t iters = s.iters > 0 ? K(k, "iters") : static_cast<uint64_t>(-s.iters), n = nx * ny * nz;
    if (n > (uint64_t(1) << 30)) throw std::invalid_argument(std::string("workload.") + s.name + ": grid larger than 2^30 points");
    auto p = std::make_unique<LibProgram>(s.name, seed);
    std::vector<unsigned> g;
    for (uint64_t i = 0; i < ngrids; ++i)
      g.push_back(p->words(s.arrays[i], n, i ? LibProgram::Init() : [seed](uint64_t j) { return hash32(seed, 20, j) & 0xffff; }));
    const unsigned pw = power ? p->words(s.arrays[ngrids], n, [seed](uint64_t j) { return hash32(seed, 21, j) & 0xff; }) : 0;
    LibProgram* P = p.get();
    const uint64_t npass = s.passes.size(), nk = npass == 1 ? iters : npass;
    p->estimate = static_cast<unsigned>(nk);
    auto src_dst = [=](uint64_t kk) { return npass == 1 ? std::make_pair(kk & 1, (kk & 1) ^ 1) : std::make_pair(kk, kk + 1); };
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= nk) return false;
      const auto sd = src_dst(kk);
      const std::vector<Tap>& taps = s.passes[npass == 1 ? 0 : kk];
      const Radius rad = radius(taps);
      const uint64_t in = P->base(g[sd.first]), out = P->base(g[sd.second]), bp = power ? P->base(pw) : 0;
      l.name = std::string(s.name) + (npass == 1 ? "_sweep" : "_pass" + std::to_string(kk));
      l.threads = n;
      l.cta_warps = 8;
      l.reads = {g[sd.first]};
      if (power) l.reads.push_back(pw);
      l.writes = {g[sd.second]};
      const uint32_t pwr = s.power_w;
      const unsigned sh = s.shift;
      // Offload block: an interior point's taps (unrolled), live-in the point index.
      const uint32_t nld = static_cast<uint32_t>(taps.size()) + (power ? 1 : 0);
      P->offload_blocks(l.name, {straight_block("interior_point", 1, 0, nld, 1, nld + 1)});
      l.body = [=](uint64_t i, Thread& t) {
        const uint64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        const bool inner = x >= rad.x && x + rad.x < nx && y >= rad.y && y + rad.y < ny && z >= rad.z && z + rad.z < nz;
        if (!inner) {
          t.st(out + 4 * i, t.ld(in + 4 * i));
          return;
        }
        uint32_t sum = 0;
        t.begin_block(0);
        for (const Tap& tp : taps) {
          const int64_t d = tp.dx + static_cast<int64_t>(nx) * (tp.dy + static_cast<int64_t>(ny) * tp.dz);
          sum += tp.w * t.ld(in + 4 * static_cast<uint64_t>(static_cast<int64_t>(i) + d));
          t.alu();
        }
        if (power) {
          sum += pwr * t.ld(bp + 4 * i);
          t.alu();
        }
        t.alu();
        t.st(out + 4 * i, sum >> sh);
        t.end_block();
      };
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* gm, std::string* why) {
      std::vector<std::vector<uint32_t>> v(ngrids);
      for (uint64_t i = 0; i < ngrids; ++i) v[i] = q.initial(g[i]);
      const std::vector<uint32_t> pv = power ? q.initial(pw) : std::vector<uint32_t>();
      for (uint64_t kk = 0; kk < nk; ++kk) {
        const auto sd = src_dst(kk);
        const std::vector<Tap>& taps = s.passes[npass == 1 ? 0 : kk];
        const Radius rad = radius(taps);
        const std::vector<uint32_t>& a = v[sd.first];
        std::vector<uint32_t>& b = v[sd.second];
        for (uint64_t z = 0; z < nz; ++z)
          for (uint64_t y = 0; y < ny; ++y)
            for (uint64_t x = 0; x < nx; ++x) {
              const uint64_t i = (z * ny + y) * nx + x;
              if (x < rad.x || x + rad.x >= nx || y < rad.y || y + rad.y >= ny || z < rad.z || z + rad.z >= nz) {
                b[i] = a[i];
                continue;
              }
              uint32_t sum = 0;
              for (const Tap& tp : taps) sum += tp.w * a[((z + tp.dz) * ny + (y + tp.dy)) * nx + (x + tp.dx)];
              if (power) sum += s.power_w * pv[i];
              b[i] = sum >> s.shift;
            }
      }
      for (uint64_t i = 0; i < ngrids; ++i)
        if (!q.expect(gm, g[i], v[i], why)) return false;
      return true;
    };
    return p;
  };
  return r;
}

std::vector<Tap> seven_point(uint32_t c, uint32_t nb) {
  return {{0, 0, 0, c}, {-1, 0, 0, nb}, {1, 0, 0, nb}, {0, -1, 0, nb}, {0, 1, 0, nb}, {0, 0, -1, nb}, {0, 0, 1, nb}};
}
std::vector<Tap> line(bool along_x, int rad) {
  std::vector<Tap> t;
  for (int d = -rad; d <= rad; ++d)
    t.push_back({along_x ? d : 0, along_x ? 0 : d, 0, static_cast<uint32_t>(rad + 1 - std::abs(d))});
  return t;
}

std::vector<Spec> stencil_specs() {
  std::vector<Spec> v;
  v.push_back({"hotspot3d", "3D thermal 7-point stencil with a power input, iters sweeps (Rodinia hotspot3D; HMS)",
               256, 256, 16, 2, {seven_point(2, 1)}, {"temp0", "temp1", "power"}, 1, 3});
  v.push_back({"laplace", "3D Laplace solver, 7-point Jacobi, iters sweeps (HAC Table II LPS)", 128, 128, 32, 3,
               {seven_point(0, 1)}, {"grid0", "grid1"}, 0, 2});
  v.push_back({"stencil", "Parboil 7-point 3D Jacobi stencil, iters sweeps (HMS stencil)", 512, 256, 8, 2,
               {seven_point(4, 2)}, {"grid0", "grid1"}, 0, 4});
  v.push_back({"conv2d", "3x3 2D convolution, one kernel (Polybench 2DCONV; HMS 2DConv)", 1024, 1024, 1, -1,
               {{{-1, -1, 0, 2}, {0, -1, 0, 5}, {1, -1, 0, 8}, {-1, 0, 0, 3}, {0, 0, 0, 6}, {1, 0, 0, 9},
                 {-1, 1, 0, 4}, {0, 1, 0, 7}, {1, 1, 0, 10}}},
               {"A", "B"}, 0, 4});
  v.push_back({"convsep", "separable convolution radius 8, row pass then column pass (CUDA SDK; FLRB Table III cs)",
               1024, 768, 1, -1, {line(true, 8), line(false, 8)}, {"input", "buffer", "output"}, 0, 6});
  return v;
}

// ---------------------------------------------------------------- srad
// Rodinia SRAD v2 on an nx x ny image J, neighbour indices clamped at the
// edges (iN/iS/jW/jE of Rodinia). srad1: reads J centre + 4 neighbours,
// writes dN, dS, dW, dE and the diffusion coefficient c. srad2: reads c
// (centre, south, east), dN..dE and J, writes J in place (own element).
inline uint32_t srad_c(uint32_t dn, uint32_t ds, uint32_t dw, uint32_t de, uint32_t jc) {
  return (((dn * dn + ds * ds + dw * dw + de * de) >> 6) ^ jc) & 0xffff;
}
inline uint32_t srad_j(uint32_t jc, uint32_t cc, uint32_t cs, uint32_t ce, uint32_t dn, uint32_t ds, uint32_t dw,
                       uint32_t de) {
  return (jc + ((cc * dn + cs * ds + cc * dw + ce * de) >> 12)) & 0xffff;
}
Row row_srad() {
  Row r;
  r.name = "srad";
  r.desc = "speckle-reducing anisotropic diffusion, 2 kernels per iteration, 6 image arrays (Rodinia SRAD; hybrid graphics Table 2 SD1/SD2)";
  r.knobs = {{"nx", "image width", 1024, 2, 1 << 16}, {"ny", "image height", 256, 2, 1 << 16},
             {"iters", "iterations (2 kernels each)", 2, 1, 1000}};
  r.size_knob = "ny";
  r.footprint = [](const Knobs& k) { return 24 * K(k, "nx") * K(k, "ny"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t nx = K(k, "nx"), ny = K(k, "ny"), iters = K(k, "iters"), n = nx * ny;
    auto p = std::make_unique<LibProgram>("srad", seed);
    const unsigned J = p->words("J", n, [seed](uint64_t i) { return hash32(seed, 22, i) & 0xffff; });
    const unsigned C = p->words("c", n);
    unsigned D[4];
    const char* dn[4] = {"dN", "dS", "dW", "dE"};
    for (int d = 0; d < 4; ++d) D[d] = p->words(dn[d], n);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(2 * iters);
    // Offload blocks: each kernel's whole point, live-in the pixel index.
    p->offload_blocks("srad1", {straight_block("diffusion_coefficient", 1, 0, 5, 5, 12, 1)});
    p->offload_blocks("srad2", {straight_block("update", 1, 0, 8, 1, 8)});
    auto nb = [=](uint64_t i, int d) {  // clamped neighbour: N, S, W, E
      const uint64_t x = i % nx, y = i / nx;
      switch (d) {
        case 0: return (y ? y - 1 : 0) * nx + x;
        case 1: return (y + 1 < ny ? y + 1 : y) * nx + x;
        case 2: return y * nx + (x ? x - 1 : 0);
        default: return y * nx + (x + 1 < nx ? x + 1 : x);
      }
    };
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= 2 * iters) return false;
      const uint64_t bj = P->base(J), bc = P->base(C);
      uint64_t bd[4];
      for (int d = 0; d < 4; ++d) bd[d] = P->base(D[d]);
      if (kk % 2 == 0) {
        l = {"srad1", n, 8, {J}, {D[0], D[1], D[2], D[3], C}, [=](uint64_t i, Thread& t) {
               t.begin_block(0);
               const uint32_t jc = t.ld(bj + 4 * i);
               uint32_t dv[4];
               for (int d = 0; d < 4; ++d) dv[d] = t.ld(bj + 4 * nb(i, d)) - jc;
               t.alu(12);
               t.sfu(1);  // division
               for (int d = 0; d < 4; ++d) t.st(bd[d] + 4 * i, dv[d]);
               t.st(bc + 4 * i, srad_c(dv[0], dv[1], dv[2], dv[3], jc));
               t.end_block();
             }};
      } else {
        l = {"srad2", n, 8, {C, D[0], D[1], D[2], D[3], J}, {J}, [=](uint64_t i, Thread& t) {
               t.begin_block(0);
               const uint32_t cc = t.ld(bc + 4 * i), cs = t.ld(bc + 4 * nb(i, 1)), ce = t.ld(bc + 4 * nb(i, 3));
               uint32_t dv[4];
               for (int d = 0; d < 4; ++d) dv[d] = t.ld(bd[d] + 4 * i);
               const uint32_t jc = t.ld(bj + 4 * i);
               t.alu(8);
               t.st(bj + 4 * i, srad_j(jc, cc, cs, ce, dv[0], dv[1], dv[2], dv[3]));
               t.end_block();
             }};
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> j = q.initial(J), c(n), d[4];
      for (auto& x : d) x.resize(n);
      for (uint64_t it = 0; it < iters; ++it) {
        for (uint64_t i = 0; i < n; ++i) {
          for (int k2 = 0; k2 < 4; ++k2) d[k2][i] = j[nb(i, k2)] - j[i];
          c[i] = srad_c(d[0][i], d[1][i], d[2][i], d[3][i], j[i]);
        }
        for (uint64_t i = 0; i < n; ++i) j[i] = srad_j(j[i], c[i], c[nb(i, 1)], c[nb(i, 3)], d[0][i], d[1][i], d[2][i], d[3][i]);
      }
      if (!q.expect(g, J, j, why) || !q.expect(g, C, c, why)) return false;
      for (int k2 = 0; k2 < 4; ++k2)
        if (!q.expect(g, D[k2], d[k2], why)) return false;
      return true;
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- heartwall
// Rodinia heartwall, tracking: `frames` kernels; P sample points; each point
// is one 256-thread CTA, thread j owns template pixel (tx, ty) = (j % 16, j / 16).
// Per frame every thread loads the point's position (2 words, broadcast), its
// template pixel, and the frame pixel under it for each of the 16 search
// offsets (dx, dy in -2..1); the SAD reduction is in shared memory; thread 0
// writes the moved position to the other position array (ping-pong).
constexpr uint64_t kHwT = 16, kHwW = 640;
inline int hw_off(unsigned s) { return static_cast<int>(s % 4) - 2; }
inline int hw_offy(unsigned s) { return static_cast<int>(s / 4) - 2; }
Row row_heartwall() {
  Row r;
  r.name = "heartwall";
  r.desc = "heartwall tracking: per frame, P points each correlate a 16x16 template over 16 offsets (Rodinia; TOM Table 2 HW)";
  r.knobs = {{"frames", "video frames (kernel launches)", 8, 1, 4096},
             {"height", "frame height in rows of 640 words", 480, 21, 1 << 16},
             {"points", "tracked sample points (CTAs)", 128, 1, 4096}};
  r.size_knob = "height";
  r.footprint = [](const Knobs& k) {
    return 4 * (K(k, "frames") * kHwW * K(k, "height") + kHwT * kHwT * K(k, "points") + 4 * K(k, "points"));
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t F = K(k, "frames"), Pn = K(k, "points"), kHwH = K(k, "height"), fr = kHwW * kHwH;
    auto p = std::make_unique<LibProgram>("heartwall", seed);
    const unsigned frames = p->words("frames", F * fr, [seed](uint64_t i) { return hash32(seed, 23, i) & 0xff; });
    const unsigned tmpl = p->words("templates", kHwT * kHwT * Pn, [seed](uint64_t i) { return hash32(seed, 24, i) & 0xff; });
    const uint64_t lo = 2, hix = kHwW - kHwT - 2, hiy = kHwH - kHwT - 2;
    const unsigned pos0 = p->words("pos0", 2 * Pn, [=](uint64_t i) {
      return static_cast<uint32_t>(lo + hash32(seed, 25, i) % ((i & 1 ? hiy : hix) - lo));
    });
    const unsigned pos1 = p->words("pos1", 2 * Pn);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(F);
    // Offload block: the search over 16 offsets (live-in x, y and the pixel).
    // Each offset's difference goes to shared memory for the CTA's SAD
    // reduction in Rodinia, so the block breaks Sec. 3.1.4 (not a candidate).
    OffloadBlock search = loop_block("search", TripKind::Static, 16, 3, 0, 1, 0, 3);
    search.limits = OFL_LIMIT_SHARED;
    p->offload_blocks("heartwall_track", {search});
    auto clampu = [](int64_t v, uint64_t a, uint64_t b) { return static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(v, a), b)); };
    // SAD-best offset of point at (px, py) in frame f for template of point pt (host or peek reads).
    auto best = [=](auto&& rd, uint64_t ff, uint64_t pt, uint32_t px, uint32_t py, uint64_t bf, uint64_t bt) {
      unsigned bs = 0;
      uint32_t bsad = ~0u;
      for (unsigned s = 0; s < 16; ++s) {
        uint32_t sad = 0;
        for (uint64_t j = 0; j < kHwT * kHwT; ++j) {
          const uint64_t x = px + hw_off(s) + j % kHwT, y = py + hw_offy(s) + j / kHwT;
          const uint32_t a = rd(bf + 4 * (ff * fr + y * kHwW + x)), b = rd(bt + 4 * (pt * kHwT * kHwT + j));
          sad += a > b ? a - b : b - a;
        }
        if (sad < bsad) bsad = sad, bs = s;
      }
      return std::make_pair(clampu(int64_t(px) + hw_off(bs), lo, hix), clampu(int64_t(py) + hw_offy(bs), lo, hiy));
    };
    p->schedule = [=](unsigned f, Launch& l) {
      if (f >= F) return false;
      const unsigned pin = f & 1 ? pos1 : pos0, pout = f & 1 ? pos0 : pos1;
      const uint64_t bf = P->base(frames), bt = P->base(tmpl), bi = P->base(pin), bo = P->base(pout);
      l = {"heartwall_track", Pn * 256, 8, {frames, tmpl, pin}, {pout}, [=](uint64_t tid, Thread& t) {
             const uint64_t pt = tid / 256, j = tid % 256;
             const uint32_t px = t.ld(bi + 8 * pt), py = t.ld(bi + 8 * pt + 4);
             t.ld(bt + 4 * (pt * kHwT * kHwT + j));
             t.begin_block(0);
             for (unsigned s = 0; s < 16; ++s) {
               const uint64_t x = px + hw_off(s) + j % kHwT, y = py + hw_offy(s) + j / kHwT;
               t.ld(bf + 4 * (f * fr + y * kHwW + x));
               t.alu(3);
             }
             t.end_block();
             t.barrier();
             t.alu(16);  // shared-memory SAD reductions
             t.barrier();
             if (j == 0) {
               const auto np = best([&t](uint64_t a) { return t.peek(a); }, f, pt, px, py, bf, bt);
               t.st(bo + 8 * pt, np.first);
               t.st(bo + 8 * pt + 4, np.second);
             }
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const auto fv = q.initial(frames), tv = q.initial(tmpl);
      std::vector<uint32_t> pos[2] = {q.initial(pos0), std::vector<uint32_t>(2 * Pn, 0)};
      // host addresses: frames at 0, templates at 2^62
      auto rd = [&](uint64_t a) { return a >= (1ull << 62) ? tv[(a - (1ull << 62)) / 4] : fv[a / 4]; };
      for (uint64_t f = 0; f < F; ++f)
        for (uint64_t pt = 0; pt < Pn; ++pt) {
          const auto np = best(rd, f, pt, pos[f & 1][2 * pt], pos[f & 1][2 * pt + 1], 0, 1ull << 62);
          pos[(f & 1) ^ 1][2 * pt] = np.first;
          pos[(f & 1) ^ 1][2 * pt + 1] = np.second;
        }
      return q.expect(g, pos0, pos[0], why) && q.expect(g, pos1, pos[1], why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- weather
// Weather prediction (HAC Table II WP: the GPGPU-Sim benchmark of the WRF
// single-moment microphysics GPU port), on an nx x ny x nz grid stored as
// k-major planes (index (k ny + j) nx + i: lanes along i are coalesced).
// Fields: t, qv (ping-pong t0/t1, qv0/qv1), qc, qr (in place), p, den
// (read only), rain (nx ny). Per step:
//   wp_advect (thread per point): 7-point stencil of t and of qv (border
//     points copy), into the other buffer of each: 14 loads, 2 stores inside.
//   wp_microphysics (thread per column, loop over k as the WSM5 kernel):
//     per level loads t, qv, qc, qr, p, den and stores t, qv, qc, qr
//     (condensation, autoconversion); then sedimentation from the top level
//     down: reloads qr and den, stores qr, carries the falling flux; the flux
//     out of the bottom is added to rain (1 load, 1 store).
inline uint32_t wp_adv(uint32_t c, uint32_t w, uint32_t e, uint32_t n, uint32_t s, uint32_t d, uint32_t u) {
  return (2 * c + w + e + n + s + d + u) >> 3;
}
struct WpCell {
  uint32_t t, qv, qc, qr;
};
inline void wp_micro(WpCell& c, uint32_t p, uint32_t den) {
  const uint32_t sat = (p >> 4) + (c.t >> 6);
  const uint32_t cond = c.qv > sat ? (c.qv - sat) >> 1 : 0;
  c.qv -= cond;
  c.qc += cond;
  c.t += cond >> 2;
  const uint32_t au = c.qc >> 3;
  c.qc -= au;
  c.qr += au + (den & 3);
}
// Sedimentation of one level: returns the new qr, updates the flux.
inline uint32_t wp_fall(uint32_t qr, uint32_t den, uint32_t& flux) {
  const uint32_t fall = (qr >> 2) + (den & 1);
  const uint32_t out = qr - fall + flux;
  flux = fall;
  return out;
}
Row row_weather() {
  Row r;
  r.name = "weather";
  r.desc = "weather physics: 7-point advection of t, qv, then column microphysics and sedimentation over 9 fields (HAC Table II WP)";
  r.knobs = {{"nx", "grid width (points)", 128, 3, 1 << 14}, {"ny", "grid height (points)", 128, 3, 1 << 14},
             {"nz", "vertical levels", 16, 3, 48}, {"iters", "time steps (2 kernels each)", 2, 1, 1000}};
  r.size_knob = "ny";
  r.footprint = [](const Knobs& k) { return 4 * K(k, "nx") * K(k, "ny") * (8 * K(k, "nz") + 1); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t nx = K(k, "nx"), ny = K(k, "ny"), nz = K(k, "nz"), iters = K(k, "iters"), A = nx * ny, n = A * nz;
    auto p = std::make_unique<LibProgram>("weather", seed);
    const unsigned T[2] = {p->words("t0", n, [seed](uint64_t i) { return 2000 + (hash32(seed, 100, i) & 0x3ff); }),
                           p->words("t1", n)};
    const unsigned Q[2] = {p->words("qv0", n, [seed](uint64_t i) { return hash32(seed, 101, i) & 0xfff; }),
                           p->words("qv1", n)};
    const unsigned qc = p->words("qc", n, [seed](uint64_t i) { return hash32(seed, 102, i) & 0xff; });
    const unsigned qr = p->words("qr", n, [seed](uint64_t i) { return hash32(seed, 103, i) & 0xff; });
    const unsigned pr = p->words("p", n, [seed, A, nz](uint64_t i) { return uint32_t(nz - i / A) * 3000 + (hash32(seed, 104, i) & 0xff); });
    const unsigned dn = p->words("den", n, [seed](uint64_t i) { return 900 + (hash32(seed, 105, i) & 0x7f); });
    const unsigned rain = p->words("rain", A);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(2 * iters);
    // Offload blocks: an interior point's advection of one field (live-in the
    // point index), the column loop over the levels and the sedimentation loop
    // (nz is a kernel parameter: trip counts known at entry; live-in the column
    // and the carried flux, live-out the flux).
    p->offload_blocks("wp_advect", {straight_block("advect_point", 1, 0, 7, 1, 7)});
    p->offload_blocks("wp_microphysics", {loop_block("column_physics", TripKind::AtEntry, 0, 1, 0, 6, 4, 12),
                                          loop_block("sedimentation", TripKind::AtEntry, 0, 2, 1, 2, 1, 4)});
    auto inner = [=](uint64_t i) {
      const uint64_t x = i % nx, y = i / nx % ny, z = i / A;
      return x && y && z && x + 1 < nx && y + 1 < ny && z + 1 < nz;
    };
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= 2 * iters) return false;
      const unsigned src = kk / 2 % 2, dst = src ^ 1;
      const uint64_t ti = P->base(T[src]), to = P->base(T[dst]), qi = P->base(Q[src]), qo = P->base(Q[dst]);
      const uint64_t bc = P->base(qc), br = P->base(qr), bp = P->base(pr), bd = P->base(dn), brain = P->base(rain);
      if (kk % 2 == 0) {
        l = {"wp_advect", n, 8, {T[src], Q[src]}, {T[dst], Q[dst]}, [=](uint64_t i, Thread& t) {
               for (int f = 0; f < 2; ++f) {
                 const uint64_t in = f ? qi : ti, out = f ? qo : to;
                 if (!inner(i)) {
                   t.st(out + 4 * i, t.ld(in + 4 * i));
                   continue;
                 }
                 uint32_t v[7];
                 const int64_t off[7] = {0, -1, 1, -int64_t(nx), int64_t(nx), -int64_t(A), int64_t(A)};
                 t.begin_block(0);
                 for (int j = 0; j < 7; ++j) v[j] = t.ld(in + 4 * uint64_t(int64_t(i) + off[j]));
                 t.alu(7);
                 t.st(out + 4 * i, wp_adv(v[0], v[1], v[2], v[3], v[4], v[5], v[6]));
                 t.end_block();
               }
             }};
      } else {
        l = {"wp_microphysics", A, 8, {T[dst], Q[dst], qc, qr, pr, dn, rain}, {T[dst], Q[dst], qc, qr, rain},
             [=](uint64_t col, Thread& t) {
               t.begin_block(0);
               for (uint64_t z = 0; z < nz; ++z) {
                 const uint64_t i = z * A + col;
                 WpCell c{t.ld(to + 4 * i), t.ld(qo + 4 * i), t.ld(bc + 4 * i), t.ld(br + 4 * i)};
                 const uint32_t pv = t.ld(bp + 4 * i), dv = t.ld(bd + 4 * i);
                 t.alu(12);
                 wp_micro(c, pv, dv);
                 t.st(to + 4 * i, c.t);
                 t.st(qo + 4 * i, c.qv);
                 t.st(bc + 4 * i, c.qc);
                 t.st(br + 4 * i, c.qr);
               }
               t.end_block();
               uint32_t flux = 0;
               t.begin_block(1);
               for (uint64_t z = nz; z-- > 0;) {
                 const uint64_t i = z * A + col;
                 const uint32_t q = t.ld(br + 4 * i), dv = t.ld(bd + 4 * i);
                 t.alu(4);
                 t.st(br + 4 * i, wp_fall(q, dv, flux));
               }
               t.end_block();
               t.st(brain + 4 * col, t.ld(brain + 4 * col) + flux);
             }};
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> tv[2] = {q.initial(T[0]), q.initial(T[1])}, qv[2] = {q.initial(Q[0]), q.initial(Q[1])};
      std::vector<uint32_t> c = q.initial(qc), rr = q.initial(qr), rn = q.initial(rain);
      const std::vector<uint32_t> pv = q.initial(pr), dv = q.initial(dn);
      for (uint64_t it = 0; it < iters; ++it) {
        const unsigned s = it % 2, d = s ^ 1;
        for (int f = 0; f < 2; ++f) {
          const std::vector<uint32_t>& a = f ? qv[s] : tv[s];
          std::vector<uint32_t>& b = f ? qv[d] : tv[d];
          for (uint64_t z = 0; z < nz; ++z)
            for (uint64_t y = 0; y < ny; ++y)
              for (uint64_t x = 0; x < nx; ++x) {
                const uint64_t i = (z * ny + y) * nx + x;
                b[i] = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1
                           ? a[i]
                           : wp_adv(a[i], a[i - 1], a[i + 1], a[i - nx], a[i + nx], a[i - A], a[i + A]);
              }
        }
        for (uint64_t col = 0; col < A; ++col) {
          for (uint64_t z = 0; z < nz; ++z) {
            const uint64_t i = z * A + col;
            WpCell cell{tv[d][i], qv[d][i], c[i], rr[i]};
            wp_micro(cell, pv[i], dv[i]);
            tv[d][i] = cell.t, qv[d][i] = cell.qv, c[i] = cell.qc, rr[i] = cell.qr;
          }
          uint32_t flux = 0;
          for (uint64_t z = nz; z-- > 0;) rr[z * A + col] = wp_fall(rr[z * A + col], dv[z * A + col], flux);
          rn[col] += flux;
        }
      }
      for (int b = 0; b < 2; ++b)
        if (!q.expect(g, T[b], tv[b], why) || !q.expect(g, Q[b], qv[b], why)) return false;
      return q.expect(g, qc, c, why) && q.expect(g, qr, rr, why) && q.expect(g, rain, rn, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_stencil() {
  std::vector<WorkloadInfo> v;
  for (const Spec& s : stencil_specs()) v.push_back(make_info(stencil_row(s)));
  v.push_back(make_info(row_srad()));
  v.push_back(make_info(row_heartwall()));
  v.push_back(make_info(row_weather()));
  return v;
}

}  // namespace strata
