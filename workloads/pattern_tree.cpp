// Kernel library, pattern "tree": every thread walks a spatial tree from the
// root, loading a node, deciding from its contents which nodes come next and
// loading those through the index it just read (`ld_dep`/`ld64_dep`, so the
// SM serialises the chain). Nearby threads walk similar paths: the top levels
// are shared by a whole warp (few lines per load), the leaves diverge
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//
// Rows (paper, table):
//   ray        per-pixel rays (a primary and one reflection) through a BVH
//              of a box height field, closest hit with pruning   HAC Table II (RAY); TOM Table 2 (RAY)
//   barneshut  LonestarGPU Barnes-Hut: per-level summarisation,
//              warp-synchronous octree walk, integration         HAC Table II (BH)
// Arithmetic is integer and exact (fixed point where the originals use
// floats); values are checked against host loops.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <set>

#include "lib_core.h"

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
// blk(true) / blk(false) open and close the walk's offload block.
template <class NodeF, class PrimF, class Alu, class Blk>
RayResult ray_trace(const int64_t* o, const int64_t* d, uint32_t skip, NodeF node, PrimF prim, Alu alu, Blk blk) {
  RayResult r;
  blk(true);
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
  blk(false);
  return r;
}
template <class NodeF, class PrimF, class Alu, class Blk>
uint32_t ray_pixel(uint64_t x, uint64_t y, uint64_t W, uint64_t H, NodeF node, PrimF prim, Alu alu, Blk blk) {
  const int64_t o[3] = {512, 512, -256};
  const int64_t d[3] = {static_cast<int64_t>(256 * x / W) - 128, static_cast<int64_t>(256 * y / H) - 128, 256};
  const RayResult a = ray_trace(o, d, kRayNone, node, prim, alu, blk);
  if (a.id == kRayNone) return 0;
  int64_t o2[3], d2[3];
  for (int i = 0; i < 3; ++i) o2[i] = o[i] + ((a.t * d[i]) >> 16), d2[i] = d[i];
  d2[a.axis] = -d2[a.axis];
  alu(6);
  const RayResult b = ray_trace(o2, d2, a.id, node, prim, alu, blk);
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
    // Offload block: one ray's BVH walk (trip count decided by the data;
    // live-in origin, direction and the box to skip, live-out the hit's
    // distance, box and axis; 2 node loads per visit, more at leaves).
    p->offload_blocks("ray_render", {loop_block("traverse", TripKind::Unknown, 0, 7, 3, 2, 0, 4)});
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
             auto blk = [&](bool open) { open ? t.begin_block(0) : t.end_block(); };
             t.st(bi + 4 * (y * W + x), ray_pixel(x, y, W, H, node, prim, [&](unsigned a) { t.alu(a); }, blk));
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
        for (uint64_t x = 0; x < W; ++x) want[y * W + x] = ray_pixel(x, y, W, H, node, prim, [](unsigned) {}, [](bool) {});
      return q.expect(g, im, want, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- barneshut
// LonestarGPU Barnes-Hut (Burtscher & Pingali, GPU Computing Gems, ch. 6),
// N bodies in a 2^20 cube (integer coordinates, bell-shaped distribution,
// masses 1..16). Node arrays are structures of arrays over the N bodies and
// the C cells, as in Lonestar: posx, posy, posz, mass (N + C), child (8 per
// cell: a body, a cell or ~0, non-empty slots first), velx..z, accx..z (N).
// Bodies are numbered in tree order (Lonestar's sort kernel), cells level by
// level from the root (node N).
// The octree is built once on the host from the initial positions
// (Lonestar's TreeBuilding kernel inserts bodies with atomics and locks,
// which race-free kernels cannot express); every time step re-summarises it
// on the GPU and traverses it:
//   summarize (one launch per cell level, deepest first; thread per cell):
//     loads child slots until the first empty one (at most 8); per child a
//     dependent mass load and its posx, posy, posz; stores the cell's mass and
//     centre of mass (integer sum of m x / M).
//   force (thread per body, Lonestar's warp-synchronous walk): the warp walks
//     the tree as one: for each child slot of the cell on top of its stack it
//     loads the child id (all lanes alike: broadcast) and, if the slot is not
//     empty, the child's position (posx dependent); a body, or a cell that
//     every lane of the warp sees at d^2 + eps >= dq[depth] (opening angle
//     1: dq = (cell size)^2 + eps, eps = 1024), interacts (mass load unless it is the
//     lane's own body), other cells are pushed; an empty slot pops the stack
//     (depth = max(0, depth - 1), as Lonestar). Own position: 3 loads first.
//     a += m dx 2^36 / (d2 isqrt(d2)) per axis, d2 = dx^2+dy^2+dz^2+eps.
//     Stores accx, accy, accz. (Lonestar's opening angle is 0.5; 1 keeps a
//     warp's walk near a thousand child slots at the default size.)
//   integrate (thread per body): loads acc, vel, pos (9), stores vel, pos (6):
//     vel += acc >> 12, pos = clamp(pos + vel >> 4, 0, 2^20 - 1).
constexpr uint32_t kBhNone = 0xffffffffu;
constexpr int64_t kBhSpan = int64_t(1) << 20, kBhEps = 1024;
constexpr unsigned kBhMaxDepth = 24;
inline int64_t bh_dq(unsigned depth) {
  const int64_t sz = kBhSpan >> (depth + 1);
  return sz * sz + kBhEps;
}
inline uint64_t bh_isqrt(uint64_t x) {
  uint64_t r = 0;
  for (uint64_t b = uint64_t(1) << 62; b; b >>= 2) {
    if (x >= r + b) {
      x -= r + b;
      r = (r >> 1) + b;
    } else {
      r >>= 1;
    }
  }
  return r;
}
inline int32_t bh_s(uint32_t v) { return static_cast<int32_t>(v); }
// Acceleration contribution of mass m at offset (dx, dy, dz), fixed point.
inline void bh_accel(int64_t* a, int64_t dx, int64_t dy, int64_t dz, uint32_t m) {
  const int64_t d2 = dx * dx + dy * dy + dz * dz + kBhEps;
  const int64_t inv = (int64_t(m) << 36) / (d2 * static_cast<int64_t>(bh_isqrt(static_cast<uint64_t>(d2))));
  a[0] += inv * dx, a[1] += inv * dy, a[2] += inv * dz;
}
struct BhStep {
  uint32_t slot, n;
  bool interact;
};
// The warp's walk (Lonestar's loop): lanes = the warp's bodies; pos(n, xyz)
// and child(slot) read the node arrays.
template <class Pos, class Child>
std::vector<BhStep> bh_walk(uint64_t N, uint64_t b0, uint64_t b1, Pos pos, Child child) {
  std::vector<BhStep> seq;
  uint32_t node[kBhMaxDepth], next[kBhMaxDepth];
  int depth = 0;
  node[0] = static_cast<uint32_t>(N);
  next[0] = 0;
  while (depth >= 0) {
    while (next[depth] < 8) {
      const uint32_t slot = (node[depth] - static_cast<uint32_t>(N)) * 8 + next[depth]++;
      const uint32_t n = child(slot);
      if (n == kBhNone) {
        seq.push_back({slot, n, false});
        depth = std::max(0, depth - 1);
        continue;
      }
      bool far = n < N;
      if (!far) {
        far = true;
        for (uint64_t b = b0; b < b1 && far; ++b) {
          const int64_t dx = bh_s(pos(n, 0)) - bh_s(pos(b, 0)), dy = bh_s(pos(n, 1)) - bh_s(pos(b, 1)),
                        dz = bh_s(pos(n, 2)) - bh_s(pos(b, 2));
          far = dx * dx + dy * dy + dz * dz + kBhEps >= bh_dq(static_cast<unsigned>(depth));
        }
      }
      seq.push_back({slot, n, far});
      if (!far) {
        ++depth;
        node[depth] = n;
        next[depth] = 0;
      }
    }
    --depth;
  }
  return seq;
}
struct BhTree {
  uint64_t N = 0, C = 0;
  std::vector<uint32_t> x, y, z, m, vx, vy, vz;  // bodies, in tree order
  std::vector<uint32_t> child;                    // 8 C
  std::vector<uint64_t> level;                    // first cell of each level (+ end), node ids
};
std::shared_ptr<BhTree> bh_tree(uint64_t N, uint64_t seed) {
  struct B {
    uint32_t p[3], m;
  };
  std::vector<B> b(N);
  std::set<uint64_t> seen;
  for (uint64_t i = 0, salt = 0; i < N; ++salt) {
    uint32_t p[3];
    for (int a = 0; a < 3; ++a) {  // sum of 4 uniforms: bell-shaped
      p[a] = 0;
      for (int j = 0; j < 4; ++j) p[a] += hash32(seed, 80 + 4 * a + j, salt) % (kBhSpan / 4);
    }
    if (!seen.insert(uint64_t(p[0]) << 40 | uint64_t(p[1]) << 20 | p[2]).second) continue;
    b[i] = {{p[0], p[1], p[2]}, 1 + hash32(seed, 92, i) % 16};
    ++i;
  }
  // Octree of cells with 8 slots: >= 0 body, < 0 ~cell.
  struct Cell {
    int64_t slot[8];
    unsigned depth;
  };
  std::vector<Cell> cells(1);
  cells[0].depth = 0;
  for (auto& s : cells[0].slot) s = -1;  // empty
  auto oct = [&](uint64_t i, unsigned depth) {
    const unsigned sh = 19 - depth;
    return ((b[i].p[0] >> sh) & 1) | ((b[i].p[1] >> sh) & 1) << 1 | ((b[i].p[2] >> sh) & 1) << 2;
  };
  // slot encoding: -1 empty, 0..N-1 body, N + c cell c
  std::function<void(uint64_t, uint64_t)> insert = [&](uint64_t c, uint64_t i) {
    const unsigned o = oct(i, cells[c].depth);
    const int64_t s = cells[c].slot[o];
    if (s < 0) {
      cells[c].slot[o] = static_cast<int64_t>(i);
    } else if (static_cast<uint64_t>(s) < N) {
      const uint64_t nc = cells.size();
      cells.push_back(Cell());
      for (auto& q : cells[nc].slot) q = -1;
      cells[nc].depth = cells[c].depth + 1;
      cells[c].slot[o] = static_cast<int64_t>(N + nc);
      insert(nc, static_cast<uint64_t>(s));
      insert(nc, i);
    } else {
      insert(static_cast<uint64_t>(s) - N, i);
    }
  };
  for (uint64_t i = 0; i < N; ++i) insert(0, i);
  // Number cells by level (BFS from the root), bodies in depth-first order.
  std::vector<uint64_t> cid(cells.size()), bid(N), order;
  auto t = std::make_shared<BhTree>();
  t->N = N;
  t->C = cells.size();
  std::vector<uint64_t> q{0};
  for (size_t h = 0; h < q.size(); ++h)
    for (int64_t s : cells[q[h]].slot)
      if (s >= 0 && static_cast<uint64_t>(s) >= N) q.push_back(static_cast<uint64_t>(s) - N);
  for (size_t h = 0; h < q.size(); ++h) {
    cid[q[h]] = N + h;
    if (h == 0 || cells[q[h]].depth != cells[q[h - 1]].depth) t->level.push_back(N + h);
  }
  t->level.push_back(N + q.size());
  uint64_t nb = 0;
  std::function<void(uint64_t)> dfs = [&](uint64_t c) {
    for (int64_t s : cells[c].slot) {
      if (s < 0) continue;
      if (static_cast<uint64_t>(s) < N) bid[static_cast<uint64_t>(s)] = nb++;
      else dfs(static_cast<uint64_t>(s) - N);
    }
  };
  dfs(0);
  t->x.resize(N), t->y.resize(N), t->z.resize(N), t->m.resize(N), t->vx.resize(N), t->vy.resize(N), t->vz.resize(N);
  for (uint64_t i = 0; i < N; ++i) {
    const uint64_t j = bid[i];
    t->x[j] = b[i].p[0], t->y[j] = b[i].p[1], t->z[j] = b[i].p[2], t->m[j] = b[i].m;
    t->vx[j] = (hash32(seed, 93, i) & 0x1ff) - 256;
    t->vy[j] = (hash32(seed, 94, i) & 0x1ff) - 256;
    t->vz[j] = (hash32(seed, 95, i) & 0x1ff) - 256;
  }
  t->child.assign(8 * t->C, kBhNone);
  for (uint64_t c = 0; c < cells.size(); ++c) {
    unsigned k = 0;
    for (int64_t s : cells[c].slot)
      if (s >= 0)
        t->child[8 * (cid[c] - N) + k++] =
            static_cast<uint32_t>(static_cast<uint64_t>(s) < N ? bid[static_cast<uint64_t>(s)] : cid[static_cast<uint64_t>(s) - N]);
  }
  return t;
}
// Host state of the node arrays (for the check).
struct BhState {
  std::vector<uint32_t> pos[3], mass, vel[3], acc[3];
};
inline void bh_summarize_cell(uint64_t c, uint64_t N, const std::vector<uint32_t>& child, BhState& s) {
  uint64_t M = 0, X[3] = {0, 0, 0};
  for (unsigned k = 0; k < 8; ++k) {
    const uint32_t ch = child[8 * (c - N) + k];
    if (ch == kBhNone) break;
    M += s.mass[ch];
    for (int a = 0; a < 3; ++a) X[a] += uint64_t(s.mass[ch]) * s.pos[a][ch];
  }
  s.mass[c] = static_cast<uint32_t>(M);
  for (int a = 0; a < 3; ++a) s.pos[a][c] = static_cast<uint32_t>(X[a] / M);
}
inline void bh_integrate(uint32_t* vel, uint32_t* pos, const uint32_t* acc) {
  for (int a = 0; a < 3; ++a) {
    vel[a] = static_cast<uint32_t>(bh_s(vel[a]) + (bh_s(acc[a]) >> 12));
    const int64_t p = int64_t(bh_s(pos[a])) + (bh_s(vel[a]) >> 4);
    pos[a] = static_cast<uint32_t>(std::min<int64_t>(std::max<int64_t>(p, 0), kBhSpan - 1));
  }
}
Row row_barneshut() {
  Row r;
  r.name = "barneshut";
  r.desc = "Barnes-Hut n-body steps: per-level tree summarisation, warp-synchronous octree walk, integration (LonestarGPU BH; HAC Table II BH)";
  r.knobs = {{"bodies", "bodies N", 4096, 64, int64_t(1) << 24}, {"steps", "time steps", 2, 1, 100}};
  r.size_knob = "bodies";
  // Node arrays hold 2N nodes and child 8N slots (Lonestar sizes them 2N too).
  r.footprint = [](const Knobs& k) { return 88 * K(k, "bodies"); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t N = K(k, "bodies"), steps = K(k, "steps");
    auto tr = bh_tree(N, seed);
    const uint64_t C = tr->C, NN = N + C, levels = tr->level.size() - 1;
    if (C > N) throw std::invalid_argument("workload.barneshut: the octree needs more than N cells (bodies too clustered)");
    auto p = std::make_unique<LibProgram>("barneshut", seed);
    const std::vector<uint32_t>* body[3] = {&tr->x, &tr->y, &tr->z};
    const char* pn[3] = {"posx", "posy", "posz"};
    const char* vn[3] = {"velx", "vely", "velz"};
    const char* an[3] = {"accx", "accy", "accz"};
    unsigned pos[3], vel[3], acc[3];
    for (int a = 0; a < 3; ++a) {
      const std::vector<uint32_t>* v = body[a];
      pos[a] = p->words(pn[a], 2 * N, [tr, v, N](uint64_t i) { return i < N ? (*v)[i] : 0u; });
    }
    const unsigned mass = p->words("mass", 2 * N, [tr, N](uint64_t i) { return i < N ? tr->m[i] : 0u; });
    const unsigned child = p->words("child", 8 * N, [tr](uint64_t i) { return i < tr->child.size() ? tr->child[i] : kBhNone; });
    const std::vector<uint32_t>* bv[3] = {&tr->vx, &tr->vy, &tr->vz};
    for (int a = 0; a < 3; ++a) {
      const std::vector<uint32_t>* v = bv[a];
      vel[a] = p->words(vn[a], N, [v](uint64_t i) { return (*v)[i]; });
    }
    for (int a = 0; a < 3; ++a) acc[a] = p->words(an[a], N);
    LibProgram* P = p.get();
    const uint64_t per_step = levels + 2;
    p->estimate = static_cast<unsigned>(steps * per_step);
    auto memo = std::make_shared<Memo<std::vector<BhStep>>>();
    // Offload blocks: a cell's child loop (ends at the first empty slot:
    // trip count unknown; live-in the cell, live-out mass and moments), the
    // force walk (its stack lives in shared memory in Lonestar: breaks
    // Sec. 3.1.4) and the integration.
    OffloadBlock walk = loop_block("walk", TripKind::Unknown, 0, 4, 3, 1, 0, 3);
    walk.limits = OFL_LIMIT_SHARED;
    for (uint64_t lv = 0; lv < levels; ++lv)
      p->offload_blocks("bh_summarize_l" + std::to_string(lv), {loop_block("children", TripKind::Unknown, 0, 1, 4, 1, 0, 4)});
    p->offload_blocks("bh_force", {walk});
    p->offload_blocks("bh_integrate", {straight_block("integrate", 1, 0, 9, 6, 12)});
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= steps * per_step) return false;
      const uint64_t ph = kk % per_step;
      uint64_t bp[3], bv2[3], ba[3];
      for (int a = 0; a < 3; ++a) bp[a] = P->base(pos[a]), bv2[a] = P->base(vel[a]), ba[a] = P->base(acc[a]);
      const uint64_t bm = P->base(mass), bc = P->base(child);
      memo->clear();
      if (ph < levels) {  // summarize the deepest level first
        const uint64_t lv = levels - 1 - ph, c0 = tr->level[lv], nc = tr->level[lv + 1] - c0;
        l = {"bh_summarize_l" + std::to_string(lv), nc, 8, {child, mass, pos[0], pos[1], pos[2]}, {mass, pos[0], pos[1], pos[2]},
             [=](uint64_t tid, Thread& t) {
               const uint64_t c = c0 + tid;
               uint64_t M = 0, X[3] = {0, 0, 0};
               t.begin_block(0);
               for (unsigned k2 = 0; k2 < 8; ++k2) {
                 const uint32_t ch = t.ld(bc + 4 * (8 * (c - N) + k2));
                 if (ch == kBhNone) break;
                 const uint32_t m = t.ld_dep(bm + 4 * uint64_t(ch));
                 M += m;
                 for (int a = 0; a < 3; ++a) X[a] += uint64_t(m) * t.ld(bp[a] + 4 * uint64_t(ch));
                 t.alu(4);
               }
               t.end_block();
               t.sfu(3);  // divisions
               t.st(bm + 4 * c, static_cast<uint32_t>(M));
               for (int a = 0; a < 3; ++a) t.st(bp[a] + 4 * c, static_cast<uint32_t>(X[a] / M));
             }};
      } else if (ph == levels) {
        l = {"bh_force", N, 8, {child, mass, pos[0], pos[1], pos[2]}, {acc[0], acc[1], acc[2]}, [=](uint64_t i, Thread& t) {
               const std::vector<BhStep>& seq = memo->get(i / 32, [&] {
                 return bh_walk(
                     N, i / 32 * 32, std::min(N, i / 32 * 32 + 32),
                     [&](uint64_t n, int a) { return t.peek(bp[a] + 4 * n); }, [&](uint32_t sl) { return t.peek(bc + 4 * uint64_t(sl)); });
               });
               int64_t me[3], a3[3] = {0, 0, 0};
               for (int a = 0; a < 3; ++a) me[a] = bh_s(t.ld(bp[a] + 4 * i));
               t.begin_block(0);
               for (const BhStep& e : seq) {
                 t.ld(bc + 4 * uint64_t(e.slot));
                 if (e.n == kBhNone) continue;
                 int64_t d[3];
                 for (int a = 0; a < 3; ++a)
                   d[a] = bh_s(a ? t.ld(bp[a] + 4 * uint64_t(e.n)) : t.ld_dep(bp[a] + 4 * uint64_t(e.n))) - me[a];
                 t.alu(3);  // d^2
                 if (e.interact && e.n != i) {
                   bh_accel(a3, d[0], d[1], d[2], t.ld(bm + 4 * uint64_t(e.n)));
                   t.alu(4);
                   t.sfu(1);  // rsqrt
                 }
               }
               t.end_block();
               for (int a = 0; a < 3; ++a) t.st(ba[a] + 4 * i, static_cast<uint32_t>(a3[a]));
             }};
      } else {
        l = {"bh_integrate", N, 8, {acc[0], acc[1], acc[2], vel[0], vel[1], vel[2], pos[0], pos[1], pos[2]},
             {vel[0], vel[1], vel[2], pos[0], pos[1], pos[2]}, [=](uint64_t i, Thread& t) {
               uint32_t a3[3], v3[3], p3[3];
               t.begin_block(0);
               for (int a = 0; a < 3; ++a) a3[a] = t.ld(ba[a] + 4 * i);
               for (int a = 0; a < 3; ++a) v3[a] = t.ld(bv2[a] + 4 * i);
               for (int a = 0; a < 3; ++a) p3[a] = t.ld(bp[a] + 4 * i);
               t.alu(12);
               bh_integrate(v3, p3, a3);
               for (int a = 0; a < 3; ++a) t.st(bv2[a] + 4 * i, v3[a]);
               for (int a = 0; a < 3; ++a) t.st(bp[a] + 4 * i, p3[a]);
               t.end_block();
             }};
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      BhState s;
      for (int a = 0; a < 3; ++a) s.pos[a] = q.initial(pos[a]), s.vel[a] = q.initial(vel[a]), s.acc[a] = q.initial(acc[a]);
      s.mass = q.initial(mass);
      for (uint64_t st = 0; st < steps; ++st) {
        for (uint64_t c = NN; c-- > N;) bh_summarize_cell(c, N, tr->child, s);  // deeper levels have larger ids
        for (uint64_t w0 = 0; w0 < N; w0 += 32) {
          const std::vector<BhStep> seq = bh_walk(
              N, w0, std::min(N, w0 + 32), [&](uint64_t n, int a) { return s.pos[a][n]; },
              [&](uint32_t sl) { return tr->child[sl]; });
          for (uint64_t i = w0; i < std::min(N, w0 + 32); ++i) {
            int64_t a3[3] = {0, 0, 0};
            for (const BhStep& e : seq)
              if (e.n != kBhNone && e.interact && e.n != i)
                bh_accel(a3, int64_t(bh_s(s.pos[0][e.n])) - bh_s(s.pos[0][i]), int64_t(bh_s(s.pos[1][e.n])) - bh_s(s.pos[1][i]),
                         int64_t(bh_s(s.pos[2][e.n])) - bh_s(s.pos[2][i]), s.mass[e.n]);
            for (int a = 0; a < 3; ++a) s.acc[a][i] = static_cast<uint32_t>(a3[a]);
          }
        }
        for (uint64_t i = 0; i < N; ++i) {
          uint32_t v3[3] = {s.vel[0][i], s.vel[1][i], s.vel[2][i]}, p3[3] = {s.pos[0][i], s.pos[1][i], s.pos[2][i]};
          const uint32_t a3[3] = {s.acc[0][i], s.acc[1][i], s.acc[2][i]};
          bh_integrate(v3, p3, a3);
          for (int a = 0; a < 3; ++a) s.vel[a][i] = v3[a], s.pos[a][i] = p3[a];
        }
      }
      for (int a = 0; a < 3; ++a)
        if (!q.expect(g, acc[a], s.acc[a], why) || !q.expect(g, vel[a], s.vel[a], why) || !q.expect(g, pos[a], s.pos[a], why))
          return false;
      return q.expect(g, mass, s.mass, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_tree() { return {make_info(row_ray()), make_info(row_barneshut())}; }

}  // namespace strata
