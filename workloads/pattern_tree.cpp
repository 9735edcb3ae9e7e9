// Kernel library, pattern "tree": every thread walks a spatial tree from the
// root, loading a node, deciding from its contents which nodes come next and
// loading those through the index it just read (`ld_dep`/`ld64_dep`, so the
// SM serialises the chain). Nearby threads walk similar paths: the top levels
// are shared by a whole warp (few lines per load), the leaves diverge
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//
// Rows (paper, table):
//   ray        per-pixel rays (a primary and one reflection) through a BVH of
//              a box height field, closest hit with pruning                  HAC Table II (RAY); TOM Table 2 (RAY)
// Arithmetic is integer and exact (fixed point where the originals use
// floats); values are checked against host loops.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include "workloads/lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- ray
// Scene: S = 2^log2prims axis-aligned boxes with 10-bit corner coordinates
// forming a bumpy surface facing the camera (a height field: a G x S/G grid of
// cells over x, y in [64, 960], each cell a box from its height h to h + 12
// in z; h = 560 + seeded triangle waves + noise). Boxes are ordered along the
// 2D Morton curve of their cells, 4 per leaf; a complete binary BVH over the
// S/4 leaves in depth-first order (left child = node + 1), S/2 - 1 nodes.
// bvh_nodes: 4 words per node: lo (x | y << 10 | z << 20), hi (same), then
// the right child or 0x80000000 | first box for a leaf, then the split axis
// (y at even depths, x at odd). prims: 2 words per box (lo, hi packed).
// A 256-thread CTA renders a 16 x 16 pixel tile. Pixel (x, y) shoots a ray
// from o = (512, 512, -256) along d = (256 x / W - 128, 256 y / H - 128, 256).
// Traversal (register stack, depth first): pop a node, load it (ld64_dep of
// the box, ld64 of child and axis); skip it unless the ray meets its box at
// some t >= 0 closer than the closest hit so far; a leaf tests its 4 boxes
// (ld64 each, the first dependent); an inner node pushes its children so the
// one on the ray's side of the split (d[axis] >= 0: left) is visited first.
// Slab test in 16.16 fixed point: t = ((plane - o) << 16) / d (truncated),
// the entry axis is the one whose entry t is largest (first on ties). The
// closest box with entry t > 0 reflects the ray: origin o + (t d >> 16),
// d's entry-axis component negated; the reflected ray is traced the same way
// skipping that box. image = colour(first box, second box, t).
constexpr uint32_t kRayLeaf = 0x80000000u, kRayNone = 0xffffffffu;
struct RayBox {
  int64_t lo[3], hi[3];
};
inline RayBox ray_unpack(uint32_t lo, uint32_t hi) {
  RayBox b;
  for (int a = 0; a < 3; ++a) b.lo[a] = (lo >> (10 * a)) & 0x3ff, b.hi[a] = (hi >> (10 * a)) & 0x3ff;
  return b;
}
struct RayHit {
  int64_t tmin, tmax;
  int axis;
};
// Slab test, distances in 16.16 fixed point of d (t = ((plane - o) << 16) / d, truncated).
inline bool ray_slab(const int64_t* o, const int64_t* d, const RayBox& b, RayHit& h) {
  h.tmin = std::numeric_limits<int64_t>::min() / 2;
  h.tmax = std::numeric_limits<int64_t>::max() / 2;
  h.axis = 0;
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0) {
      if (o[a] < b.lo[a] || o[a] > b.hi[a]) return false;
      continue;
    }
    int64_t t1 = (b.lo[a] - o[a]) * 65536 / d[a], t2 = (b.hi[a] - o[a]) * 65536 / d[a];
    if (t1 > t2) std::swap(t1, t2);
    if (t1 > h.tmin) h.tmin = t1, h.axis = a;
    if (t2 < h.tmax) h.tmax = t2;
  }
  return h.tmin <= h.tmax;
}
struct RayResult {
  int64_t t = std::numeric_limits<int64_t>::max();
  uint32_t id = kRayNone;
  int axis = 0;
};
// Closest hit; `node(n)` / `prim(i)` return the packed words (and issue the loads).
template <class NodeF, class PrimF, class Alu>
RayResult ray_trace(const int64_t* o, const int64_t* d, uint32_t skip, NodeF node, PrimF prim, Alu alu) {
  RayResult r;
  uint32_t stack[64];
  int sp = 0;
  stack[sp++] = 0;
  while (sp) {
    const uint32_t n = stack[--sp];
    uint32_t w[4];
    node(n, w);
    alu(4);
    RayHit h;
    if (!ray_slab(o, d, ray_unpack(w[0], w[1]), h) || h.tmax < 0 || std::max<int64_t>(h.tmin, 0) >= r.t) continue;
    if (w[2] & kRayLeaf) {
      const uint32_t first = w[2] & ~kRayLeaf;
      for (uint32_t j = 0; j < 4; ++j) {
        const uint64_t pw = prim(first + j, j == 0);
        alu(4);
        if (first + j == skip) continue;
        if (ray_slab(o, d, ray_unpack(static_cast<uint32_t>(pw), static_cast<uint32_t>(pw >> 32)), h) && h.tmin > 0 &&
            h.tmin < r.t)
          r.t = h.tmin, r.id = first + j, r.axis = h.axis;
      }
    } else if (d[w[3]] >= 0) {
      stack[sp++] = w[2];
      stack[sp++] = n + 1;
    } else {
      stack[sp++] = n + 1;
      stack[sp++] = w[2];
    }
  }
  return r;
}
template <class NodeF, class PrimF, class Alu>
uint32_t ray_pixel(uint64_t x, uint64_t y, uint64_t W, uint64_t H, NodeF node, PrimF prim, Alu alu) {
  const int64_t o[3] = {512, 512, -256};
  const int64_t d[3] = {static_cast<int64_t>(256 * x / W) - 128, static_cast<int64_t>(256 * y / H) - 128, 256};
  const RayResult a = ray_trace(o, d, kRayNone, node, prim, alu);
  if (a.id == kRayNone) return 0;
  int64_t o2[3], d2[3];
  for (int i = 0; i < 3; ++i) o2[i] = o[i] + ((a.t * d[i]) >> 16), d2[i] = d[i];
  d2[a.axis] = -d2[a.axis];
  alu(6);
  const RayResult b = ray_trace(o2, d2, a.id, node, prim, alu);
  return ((a.id + 1) * 2654435761u) ^ (b.id == kRayNone ? 0u : (b.id + 1) * 40503u) ^ static_cast<uint32_t>(a.t >> 16);
}
struct RayScene {
  std::vector<uint32_t> nodes, prims;
};
std::shared_ptr<RayScene> ray_scene(uint64_t S, uint64_t seed) {
  struct P {
    uint64_t key;
    uint32_t lo, hi;
  };
  std::vector<P> v(S);
  uint64_t GX = 1;
  while (GX * GX < S) GX <<= 1;
  const uint64_t GY = S / GX;
  auto tri = [](int64_t u, uint32_t f) {  // triangle wave, period 64..255, amplitude period / 4
    const int64_t per = 64 + f % 192, m = (u + (f >> 8)) % per;
    return std::abs(m - per / 2) - per / 4;
  };
  for (uint64_t i = 0; i < S; ++i) {
    const uint64_t gx = i % GX, gy = i / GX;
    const int64_t x0 = 64 + int64_t(896 * gx / GX), x1 = 64 + int64_t(896 * (gx + 1) / GX);
    const int64_t y0 = 64 + int64_t(896 * gy / GY), y1 = 64 + int64_t(896 * (gy + 1) / GY);
    int64_t h = 560 + hash32(seed, 75, i) % 16;
    for (unsigned k = 0; k < 3; ++k) h += tri(x0, hash32(seed, 70 + k, 0)) + tri(y0, hash32(seed, 73 + k, 0));
    h = std::min<int64_t>(std::max<int64_t>(h, 16), 1000);
    const uint32_t lo = uint32_t(x0) | uint32_t(y0) << 10 | uint32_t(h) << 20;
    const uint32_t hi = uint32_t(x1) | uint32_t(y1) << 10 | uint32_t(h + 12) << 20;
    uint64_t key = 0;
    for (int bit = 0; bit < 16; ++bit) key |= ((gx >> bit) & 1) << (2 * bit) | ((gy >> bit) & 1) << (2 * bit + 1);
    v[i] = {key << 32 | i, lo, hi};
  }
  std::sort(v.begin(), v.end(), [](const P& a, const P& b) { return a.key < b.key; });
  auto sc = std::make_shared<RayScene>();
  sc->prims.resize(2 * S);
  for (uint64_t i = 0; i < S; ++i) sc->prims[2 * i] = v[i].lo, sc->prims[2 * i + 1] = v[i].hi;
  sc->nodes.assign(4 * (S / 2 - 1), 0);
  uint32_t next = 0;
  // Builds the subtree over leaves [l, r) at index `next`, returns its box.
  std::function<std::pair<uint32_t, uint32_t>(uint64_t, uint64_t, unsigned)> build = [&](uint64_t l, uint64_t r,
                                                                                        unsigned depth) {
    const uint32_t n = next++;
    uint32_t lo, hi, w2;
    if (r - l == 1) {
      RayBox b = ray_unpack(v[4 * l].lo, v[4 * l].hi);
      for (uint64_t j = 1; j < 4; ++j) {
        const RayBox c = ray_unpack(v[4 * l + j].lo, v[4 * l + j].hi);
        for (int a = 0; a < 3; ++a) b.lo[a] = std::min(b.lo[a], c.lo[a]), b.hi[a] = std::max(b.hi[a], c.hi[a]);
      }
      lo = hi = 0;
      for (int a = 0; a < 3; ++a) lo |= uint32_t(b.lo[a]) << (10 * a), hi |= uint32_t(b.hi[a]) << (10 * a);
      w2 = kRayLeaf | static_cast<uint32_t>(4 * l);
    } else {
      const auto L = build(l, (l + r) / 2, depth + 1);
      w2 = next;
      const auto R = build((l + r) / 2, r, depth + 1);
      const RayBox a = ray_unpack(L.first, L.second), b = ray_unpack(R.first, R.second);
      lo = hi = 0;
      for (int x = 0; x < 3; ++x)
        lo |= uint32_t(std::min(a.lo[x], b.lo[x])) << (10 * x), hi |= uint32_t(std::max(a.hi[x], b.hi[x])) << (10 * x);
    }
    sc->nodes[4 * n] = lo, sc->nodes[4 * n + 1] = hi, sc->nodes[4 * n + 2] = w2;
    sc->nodes[4 * n + 3] = r - l == 1 ? 0 : depth % 2 ? 0 : 1;
    return std::make_pair(lo, hi);
  };
  build(0, S / 4, 0);
  return sc;
}
Row row_ray() {
  Row r;
  r.name = "ray";
  r.desc = "per-pixel primary + reflection rays through a BVH of 2^log2prims boxes, closest hit (HAC Table II RAY, TOM Table 2 RAY)";
  r.knobs = {{"width", "image width (multiple of 16)", 256, 16, 1 << 14},
             {"height", "image height (multiple of 16)", 256, 16, 1 << 14},
             {"log2prims", "log2 of the scene's boxes S (4 per BVH leaf)", 16, 3, 26}};
  r.size_knob = "log2prims";
  r.footprint = [](const Knobs& k) {
    const uint64_t S = uint64_t(1) << K(k, "log2prims");
    return 16 * (S / 2 - 1) + 8 * S + 4 * K(k, "width") * K(k, "height");
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t W = K(k, "width"), H = K(k, "height"), S = uint64_t(1) << K(k, "log2prims");
    if (W % 16 || H % 16) throw std::invalid_argument("workload.ray: width and height must be multiples of 16");
    auto sc = ray_scene(S, seed);
    auto p = std::make_unique<LibProgram>("ray", seed);
    const unsigned nd = p->words("bvh_nodes", sc->nodes.size(), [sc](uint64_t i) { return sc->nodes[i]; });
    const unsigned pr = p->words("prims", sc->prims.size(), [sc](uint64_t i) { return sc->prims[i]; });
    const unsigned im = p->words("image", W * H);
    LibProgram* P = p.get();
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk) return false;
      const uint64_t bn = P->base(nd), bp = P->base(pr), bi = P->base(im);
      l = {"ray_render", W * H, 8, {nd, pr}, {im}, [=](uint64_t tid, Thread& t) {
             const uint64_t c = tid / 256, x = 16 * (c % (W / 16)) + tid % 16, y = 16 * (c / (W / 16)) + tid % 256 / 16;
             auto node = [&](uint32_t n, uint32_t* w) {
               const uint64_t a = t.ld64_dep(bn + 16 * uint64_t(n)), b = t.ld64(bn + 16 * uint64_t(n) + 8);
               w[0] = static_cast<uint32_t>(a), w[1] = static_cast<uint32_t>(a >> 32);
               w[2] = static_cast<uint32_t>(b), w[3] = static_cast<uint32_t>(b >> 32);
             };
             auto prim = [&](uint32_t i, bool dep) { return dep ? t.ld64_dep(bp + 8 * uint64_t(i)) : t.ld64(bp + 8 * uint64_t(i)); };
             t.st(bi + 4 * (y * W + x), ray_pixel(x, y, W, H, node, prim, [&](unsigned a) { t.alu(a); }));
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> want(W * H);
      auto node = [&](uint32_t n, uint32_t* w) {
        for (int i = 0; i < 4; ++i) w[i] = sc->nodes[4 * uint64_t(n) + i];
      };
      auto prim = [&](uint32_t i, bool) { return sc->prims[2 * uint64_t(i)] | uint64_t(sc->prims[2 * uint64_t(i) + 1]) << 32; };
      for (uint64_t y = 0; y < H; ++y)
        for (uint64_t x = 0; x < W; ++x) want[y * W + x] = ray_pixel(x, y, W, H, node, prim, [](unsigned) {});
      return q.expect(g, im, want, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_tree() { return {make_info(row_ray())}; }

}  // namespace strata
