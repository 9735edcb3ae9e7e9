// Kernel-library tests (docs/workload_library.md), untimed (functional driver):
// for every analogue, at small sizes,
//   - footprint_bytes equals the analytic footprint formula,
//   - the functional load/store bytes and the kernel count equal the analytic
//     read/write formulas (written here independently of the generators),
//   - verify() passes, and a corrupted output word makes it fail,
//   - the reserved `footprint` knob scales the size knob to fit the request,
// and same seed -> identical memory image, another seed -> a different one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "workloads/functional.h"
#include "workloads/registry.h"

using namespace strata;
using Knobs = std::map<std::string, int64_t>;

static int failures = 0;
#define EXPECT(cond)                                                                \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: EXPECT failed: %s\n", __FILE__, __LINE__, cur, #cond); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)
#define EXPECT_EQ(a, b)                                                                                   \
  do {                                                                                                    \
    const unsigned long long _a = (a), _b = (b);                                                          \
    if (_a != _b) {                                                                                       \
      std::fprintf(stderr, "%s:%d: %s: EXPECT_EQ failed: %s = %llu, %s = %llu\n", __FILE__, __LINE__, cur, #a, \
                   _a, #b, _b);                                                                           \
      ++failures;                                                                                         \
    }                                                                                                     \
  } while (0)

static const char* cur = "";

struct Run {
  std::unique_ptr<Program> prog;
  bstore golden{}, device{};
  FuncCounts fc;
  Run(const std::string& name, const Knobs& knobs, uint64_t seed) {
    bstore_init(&golden);
    bstore_init(&device);
    prog = find_workload(name)->make(knobs, seed);
    prog->init(&golden, &device);
  }
  ~Run() {
    bstore_free(&golden);
    bstore_free(&device);
  }
  uint64_t hash_arrays() {
    uint64_t h = 0;
    std::vector<unsigned char> buf;
    for (const ArrayInfo& a : prog->arrays()) {
      buf.resize(a.bytes);
      bstore_read(&golden, a.base, buf.data(), a.bytes);
      for (unsigned char c : buf) h = mix64(h ^ c);
    }
    return h;
  }
};

static uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Expected counts of one analogue at given knobs.
struct Expect {
  uint64_t footprint = 0, rd = 0, wr = 0, kernels = 0;
  std::string out;  // an array the program writes (corrupted to test verify)
};
struct Case {
  std::string name;
  Knobs knobs;
  std::function<Expect(const Knobs&)> formula;
  // Instead of `formula`: counts computed from the initial memory (graph kernels,
  // whose traffic depends on the generated graph).
  std::function<Expect(const Knobs&, Run&)> from_memory = nullptr;
};

// ---- graph (pattern_graph.cpp): the traffic depends on the generated graph, so
// the expected counts come from a host replay of each algorithm on the CSR
// arrays as the program laid them out (written here independently of the
// generators), and the graph itself is checked: undirected, no self-loops, the
// same graph as `bfs` for the same scale, edge factor and seed.
static std::vector<uint32_t> words_of(Run& r, const char* name) {
  const int a = r.prog->find_array(name);
  EXPECT(a >= 0);
  if (a < 0) return {};
  const ArrayInfo& ai = r.prog->array(static_cast<unsigned>(a));
  std::vector<uint32_t> v(ai.bytes / 4);
  bstore_read(&r.golden, ai.base, v.data(), ai.bytes);
  return v;
}
struct GraphMem {
  uint64_t V = 0, nnz = 0, G = 0;
  std::vector<uint32_t> rp, ci;
  uint32_t deg(uint64_t v) const { return rp[v + 1] - rp[v]; }
};
static GraphMem graph_mem(const Knobs& k, Run& r) {
  GraphMem g;
  g.V = uint64_t(1) << k.at("scale");
  g.G = cdiv(g.V, 256);
  g.rp = words_of(r, "row_ptr");
  g.ci = words_of(r, "col_idx");
  EXPECT_EQ(g.rp.size(), g.V + 1);
  if (g.rp.size() != g.V + 1) return g;
  g.nnz = g.rp[g.V];
  EXPECT(g.nnz > 0 && g.nnz <= 2 * static_cast<uint64_t>(k.at("edge_factor")) * g.V);
  EXPECT_EQ(g.ci.size(), std::max<uint64_t>(1, g.nnz));
  // undirected: the multiset of (v, u) equals that of (u, v); no self-loops
  std::map<std::pair<uint32_t, uint32_t>, int64_t> bal;
  for (uint64_t v = 0; v < g.V; ++v) {
    EXPECT(g.rp[v] <= g.rp[v + 1]);
    for (uint32_t e = g.rp[v]; e < g.rp[v + 1] && e < g.ci.size(); ++e) {
      const uint32_t u = g.ci[e];
      EXPECT(u < g.V && u != v);
      bal[{std::min<uint32_t>(u, v), std::max<uint32_t>(u, v)}] += u < v ? 1 : -1;
    }
  }
  for (const auto& kv : bal) EXPECT_EQ(kv.second, 0);
  // the generator bfs uses
  Run b("bfs", {{"scale", k.at("scale")}, {"edge_factor", k.at("edge_factor")}}, 7);
  EXPECT(words_of(b, "row_ptr") == g.rp);
  EXPECT(words_of(b, "col_idx") == g.ci);
  return g;
}

static std::vector<Case> graph_cases() {
  std::vector<Case> c;
  auto none = [](const Knobs&) { return Expect{}; };
  c.push_back({"sssp", {{"scale", 8}, {"edge_factor", 6}, {"max_weight", 40}}, none, [](const Knobs& k, Run& r) {
                 const GraphMem g = graph_mem(k, r);
                 const std::vector<uint32_t> w = words_of(r, "weights");
                 std::vector<uint32_t> d = words_of(r, "dist"), n(g.V);
                 EXPECT_EQ(std::count(d.begin(), d.end(), 0u), 1);
                 for (uint64_t v = 0; v < g.V; ++v)
                   for (uint32_t e = g.rp[v]; e < g.rp[v + 1]; ++e) EXPECT(w[e] >= 1 && w[e] <= uint64_t(k.at("max_weight")));
                 const uint32_t inf = 0xffffffffu;
                 uint64_t it = 0, rd = 0, wr = 0;
                 for (;;) {  // Jacobi relaxation rounds, the last one changes nothing
                   ++it;
                   rd += 4 * g.V + 12 * g.V + 8 * g.V;  // assign; dist_prev + row_ptr x2; diff
                   wr += 4 * g.V + 4 * g.V + 4 * g.G;
                   for (uint64_t v = 0; v < g.V; ++v) {
                     uint64_t m = d[v];
                     for (uint32_t e = g.rp[v]; e < g.rp[v + 1]; ++e) {
                       rd += 8;  // col_idx, dist_prev[u]
                       if (d[g.ci[e]] == inf) continue;
                       rd += 4;  // weight
                       m = std::min<uint64_t>(m, uint64_t(d[g.ci[e]]) + w[e]);
                     }
                     n[v] = static_cast<uint32_t>(m);
                   }
                   if (n == d) break;
                   d.swap(n);
                 }
                 EXPECT(it >= 4);  // several rounds at this size
                 return Expect{4 * (g.V + 1) + 8 * std::max<uint64_t>(1, g.nnz) + 8 * g.V + 4 * g.G, rd, wr, 3 * it, "dist"};
               }});
  c.push_back({"kcore", {{"scale", 9}, {"edge_factor", 8}, {"k", 12}}, none, [](const Knobs& k, Run& r) {
                 const GraphMem g = graph_mem(k, r);
                 const uint32_t kc = static_cast<uint32_t>(k.at("k"));
                 std::vector<uint32_t> deg = words_of(r, "deg");
                 for (uint64_t v = 0; v < g.V; ++v) EXPECT_EQ(deg[v], g.deg(v));
                 std::vector<char> alive(g.V, 1), now(g.V);
                 uint64_t kernels = 0, rd = 0, wr = 0, rounds = 0;
                 for (;;) {
                   ++kernels;  // mark
                   uint64_t removed = 0;
                   for (uint64_t v = 0; v < g.V; ++v) {
                     now[v] = 0;
                     rd += 4;
                     if (!alive[v]) continue;
                     rd += 4;
                     if (deg[v] < kc) now[v] = 1, ++removed;
                   }
                   wr += 4 * removed + 4 * g.G;
                   if (!removed) break;
                   ++rounds;
                   for (uint64_t v = 0; v < g.V; ++v)
                     if (now[v]) alive[v] = 0;
                   ++kernels;  // update
                   for (uint64_t v = 0; v < g.V; ++v) {
                     rd += 4;
                     if (!alive[v]) continue;
                     rd += 8 + 8 * uint64_t(g.deg(v));
                     uint32_t gone = 0;
                     for (uint32_t e = g.rp[v]; e < g.rp[v + 1]; ++e) gone += now[g.ci[e]];
                     if (gone) rd += 4, wr += 4, deg[v] -= gone;
                   }
                 }
                 EXPECT(rounds >= 2);
                 EXPECT(std::count(alive.begin(), alive.end(), 1) > 0);  // a non-empty core
                 return Expect{4 * (g.V + 1) + 4 * std::max<uint64_t>(1, g.nnz) + 8 * g.V + 4 * g.G, rd, wr, kernels, "deg"};
               }});
  c.push_back({"gcolor", {{"scale", 8}, {"edge_factor", 6}}, none, [](const Knobs& k, Run& r) {
                 const GraphMem g = graph_mem(k, r);
                 const std::vector<uint32_t> pr = words_of(r, "priority");
                 EXPECT_EQ(std::set<uint32_t>(pr.begin(), pr.end()).size(), g.V);  // distinct priorities
                 std::vector<char> done(g.V, 0), win(g.V);
                 uint64_t rounds = 0, rd = 0, wr = 0;
                 for (bool active = true; active;) {
                   ++rounds;
                   active = false;
                   for (uint64_t v = 0; v < g.V; ++v) {  // color_max
                     win[v] = 0;
                     rd += 4;
                     if (done[v]) continue;
                     rd += 8;
                     wr += 4;
                     uint32_t m = 0;
                     for (uint32_t e = g.rp[v]; e < g.rp[v + 1]; ++e) {
                       rd += 8;
                       if (done[g.ci[e]]) continue;
                       rd += 4;
                       active = true;
                       m = std::max(m, pr[g.ci[e]]);
                     }
                     win[v] = pr[v] > m;
                   }
                   wr += 4 * g.G;
                   for (uint64_t v = 0; v < g.V; ++v) {  // color_assign
                     rd += 4;
                     if (done[v]) continue;
                     rd += 8;
                     if (win[v]) wr += 4;
                   }
                   for (uint64_t v = 0; v < g.V; ++v)
                     if (win[v]) done[v] = 1;
                 }
                 EXPECT(rounds >= 4);
                 return Expect{4 * (g.V + 1) + 4 * std::max<uint64_t>(1, g.nnz) + 12 * g.V + 4 * g.G, rd, wr, 2 * rounds, "color"};
               }});
  return c;
}

// Dense and irregular analogues: formulas written from the benchmarks'
// thread layouts (docs/workload_library.md), independent of the generators.
// ray: the documented traversal, re-implemented: counts node visits (16 B each)
// and box tests (8 B each) of every pixel's primary and reflected ray.
namespace ray_ref {
struct Box {
  long long lo[3], hi[3];
};
static Box box(uint32_t lo, uint32_t hi) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = (lo >> (10 * a)) & 1023;
    b.hi[a] = (hi >> (10 * a)) & 1023;
  }
  return b;
}
// entry/exit distance (16.16) and entry axis; false when the slabs do not overlap
static bool enter(const long long* o, const long long* d, const Box& b, long long& tin, long long& tout, int& ax) {
  tin = -(1ll << 60), tout = 1ll << 60, ax = 0;
  for (int a = 0; a < 3; ++a) {
    if (!d[a]) {
      if (o[a] < b.lo[a] || o[a] > b.hi[a]) return false;
      continue;
    }
    const long long p = (b.lo[a] - o[a]) * 65536 / d[a], q = (b.hi[a] - o[a]) * 65536 / d[a];
    const long long near = p < q ? p : q, far = p < q ? q : p;
    if (near > tin) {
      tin = near;
      ax = a;
    }
    if (far < tout) tout = far;
  }
  return tin <= tout;
}
struct Walk {
  const std::vector<uint32_t>& node;
  const std::vector<uint32_t>& prim;
  uint64_t visits = 0, tests = 0;
  // closest box hit (or -1), its entry distance and axis
  long long trace(const long long* o, const long long* d, long long skip, long long& t, int& ax) {
    long long hit = -1;
    t = 1ll << 62;
    std::vector<uint32_t> pending{0};
    while (!pending.empty()) {
      const uint32_t n = pending.back();
      pending.pop_back();
      ++visits;
      long long a, b;
      int e;
      if (!enter(o, d, box(node[4 * n], node[4 * n + 1]), a, b, e) || b < 0 || (a > 0 ? a : 0) >= t) continue;
      const uint32_t c = node[4 * n + 2];
      if (c >> 31) {
        for (uint32_t j = 0; j < 4; ++j) {
          const uint32_t i = (c & 0x7fffffffu) + j;
          ++tests;
          if (i == skip) continue;
          if (enter(o, d, box(prim[2 * i], prim[2 * i + 1]), a, b, e) && a > 0 && a < t) {
            t = a;
            ax = e;
            hit = i;
          }
        }
      } else if (d[node[4 * n + 3]] >= 0) {
        pending.push_back(c);
        pending.push_back(n + 1);
      } else {
        pending.push_back(n + 1);
        pending.push_back(c);
      }
    }
    return hit;
  }
};
}  // namespace ray_ref

// barneshut: the documented steps re-implemented on the node arrays: counts
// the summarize, warp-walk and integrate loads and stores and the launches.
namespace bh_ref {
static const uint32_t kEmpty = 0xffffffffu;
static long long sq(long long v) { return v * v; }
static long long root(long long v) {  // floor(sqrt(v))
  long long r = static_cast<long long>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}
struct Sim {
  uint64_t N;
  std::vector<uint32_t> x[3], m, v[3], ch;
  uint64_t rd = 0, wr = 0, kernels = 0;
  long long at(int a, uint64_t n) const { return static_cast<int32_t>(x[a][n]); }
  void step() {
    // cells below the root in breadth-first order are numbered level by level
    std::vector<std::vector<uint64_t>> lv{{N}};
    for (;;) {
      std::vector<uint64_t> next;
      for (uint64_t c : lv.back())
        for (int k = 0; k < 8; ++k) {
          const uint32_t n = ch[8 * (c - N) + k];
          if (n != kEmpty && n >= N) next.push_back(n);
        }
      if (next.empty()) break;
      lv.push_back(next);
    }
    for (size_t l = lv.size(); l-- > 0;) {
      ++kernels;
      for (uint64_t c : lv[l]) {
        unsigned long long M = 0, S[3] = {0, 0, 0};
        int k = 0;
        for (; k < 8 && ch[8 * (c - N) + k] != kEmpty; ++k) {
          const uint32_t n = ch[8 * (c - N) + k];
          M += m[n];
          for (int a = 0; a < 3; ++a) S[a] += static_cast<unsigned long long>(m[n]) * x[a][n];
        }
        rd += 4 * (k + (k < 8)) + 16 * k;
        wr += 16;
        m[c] = static_cast<uint32_t>(M);
        for (int a = 0; a < 3; ++a) x[a][c] = static_cast<uint32_t>(S[a] / M);
      }
    }
    // force: one walk per warp of 32 bodies
    ++kernels;
    std::vector<long long> acc(3 * N, 0);
    for (uint64_t w = 0; w < N; w += 32) {
      const uint64_t e = std::min<uint64_t>(N, w + 32);
      rd += 12 * (e - w);
      wr += 12 * (e - w);
      std::vector<std::pair<uint64_t, int>> st{{N, 0}};  // (cell, next slot)
      int depth = 0;
      while (depth >= 0) {
        while (st[depth].second < 8) {
          const uint32_t n = ch[8 * (st[depth].first - N) + st[depth].second++];
          rd += 4 * (e - w);
          if (n == kEmpty) {
            if (depth > 0) --depth;
            continue;
          }
          rd += 12 * (e - w);
          bool open = false;
          if (n >= N) {
            const long long size = (1ll << 20) >> (depth + 1);
            for (uint64_t b = w; b < e; ++b)
              if (sq(at(0, n) - at(0, b)) + sq(at(1, n) - at(1, b)) + sq(at(2, n) - at(2, b)) + 1024 < size * size + 1024)
                open = true;
          }
          if (open) {
            ++depth;
            if (st.size() <= static_cast<size_t>(depth)) st.resize(depth + 1);
            st[depth] = {n, 0};
            continue;
          }
          for (uint64_t b = w; b < e; ++b) {
            if (b == n) continue;
            rd += 4;
            const long long d[3] = {at(0, n) - at(0, b), at(1, n) - at(1, b), at(2, n) - at(2, b)};
            const long long d2 = sq(d[0]) + sq(d[1]) + sq(d[2]) + 1024;
            const long long f = (static_cast<long long>(m[n]) << 36) / (d2 * root(d2));
            for (int a = 0; a < 3; ++a) acc[3 * b + a] += f * d[a];
          }
        }
        --depth;
      }
    }
    ++kernels;
    rd += 36 * N;
    wr += 24 * N;
    for (uint64_t b = 0; b < N; ++b)
      for (int a = 0; a < 3; ++a) {
        const int32_t vel = static_cast<int32_t>(v[a][b]) + (static_cast<int32_t>(static_cast<uint32_t>(acc[3 * b + a])) >> 12);
        v[a][b] = static_cast<uint32_t>(vel);
        const long long p = at(a, b) + (vel >> 4);
        x[a][b] = static_cast<uint32_t>(p < 0 ? 0 : p > (1 << 20) - 1 ? (1 << 20) - 1 : p);
      }
  }
};
}  // namespace bh_ref

static void dense_irregular_cases(std::vector<Case>& c) {
  // backprop: layerforward loads input (tx == 0) + weight, stores product + partial
  // (tx == 0); hidden step loads every partial once, stores 17 deltas; adjust loads
  // 4 and stores 2 per thread, plus 2 + 2 for each of the 16 bias-row threads.
  c.push_back({"backprop", {{"blocks", 5}}, [](const Knobs& k) {
                 const uint64_t B = k.at("blocks"), n = 16 * B, thr = 256 * B;
                 const uint64_t fp = 4 * (n + 1) * 17 * 2 + 4 * (n + 1) + 4 * 16 * B + 4 * 17;
                 const uint64_t rd = 4 * (n + thr) + 4 * 16 * B + 4 * (4 * thr + 2 * 16);
                 const uint64_t wr = 4 * (thr + n) + 4 * 17 + 4 * (2 * thr + 2 * 16);
                 return Expect{fp, rd, wr, 3, "input_weights"};
               }});
  c.push_back({"ray", {{"width", 32}, {"height", 48}, {"log2prims", 8}},
               nullptr,
               [](const Knobs& k, Run& r) {
                 const long long W = k.at("width"), H = k.at("height"), S = 1ll << k.at("log2prims");
                 Expect e{static_cast<uint64_t>(16 * (S / 2 - 1) + 8 * S + 4 * W * H), 0, static_cast<uint64_t>(4 * W * H), 1,
                          "image"};
                 const std::vector<uint32_t> node = words_of(r, "bvh_nodes"), prim = words_of(r, "prims");
                 ray_ref::Walk w{node, prim};
                 uint64_t hits = 0;
                 for (long long y = 0; y < H; ++y)
                   for (long long x = 0; x < W; ++x) {
                     long long o[3] = {512, 512, -256}, d[3] = {256 * x / W - 128, 256 * y / H - 128, 256}, t;
                     int ax = 0;
                     const long long id = w.trace(o, d, -1, t, ax);
                     if (id < 0) continue;
                     ++hits;
                     for (int a = 0; a < 3; ++a) o[a] += (t * d[a]) >> 16;
                     d[ax] = -d[ax];
                     w.trace(o, d, id, t, ax);
                   }
                 EXPECT(hits > uint64_t(W * H) / 2);  // the camera sees the surface
                 e.rd = 16 * w.visits + 8 * w.tests;
                 return e;
               }});
  c.push_back({"barneshut", {{"bodies", 300}, {"steps", 2}},
               nullptr,
               [](const Knobs& k, Run& r) {
                 Expect e{88 * static_cast<uint64_t>(k.at("bodies")), 0, 0, 0, "accy"};
                 bh_ref::Sim s;
                 s.N = k.at("bodies");
                 const char* px[3] = {"posx", "posy", "posz"};
                 const char* vx[3] = {"velx", "vely", "velz"};
                 for (int a = 0; a < 3; ++a) s.x[a] = words_of(r, px[a]), s.v[a] = words_of(r, vx[a]);
                 s.m = words_of(r, "mass");
                 s.ch = words_of(r, "child");
                 for (int64_t i = 0; i < k.at("steps"); ++i) s.step();
                 EXPECT(s.kernels >= 2 * 5);  // a few tree levels per step
                 e.rd = s.rd, e.wr = s.wr, e.kernels = s.kernels;
                 return e;
               }});
  // weather: per step the 7-point advection of two fields (border points copy)
  // and the column loop: 6 loads + 4 stores per level, 2 + 1 in the
  // sedimentation pass, 1 + 1 for rain.
  c.push_back({"weather", {{"nx", 37}, {"ny", 9}, {"nz", 5}, {"iters", 3}}, [](const Knobs& k) {
                 const uint64_t nx = k.at("nx"), ny = k.at("ny"), nz = k.at("nz"), it = k.at("iters");
                 const uint64_t n = nx * ny * nz, in = (nx - 2) * (ny - 2) * (nz - 2), cols = nx * ny;
                 const uint64_t rd = 2 * (4 * (n - in) + 4 * 7 * in) + 4 * cols * (6 * nz + 2 * nz + 1);
                 const uint64_t wr = 2 * 4 * n + 4 * cols * (4 * nz + nz + 1);
                 return Expect{4 * (8 * n + cols), it * rd, it * wr, 2 * it, "rain"};
               }});
  // cfd: per iteration copy (5 + 5), step factor (6 + 1), 3 x flux (5 own + 4 x (index +
  // 3 normals) + 5 per element neighbour; 5 stores), 3 x time step (11 + 5). Element
  // neighbours of a 32 x 32 x nz mesh: the x and y partners always, z -/+ 1 inside.
  c.push_back({"cfd", {{"nz", 3}, {"iters", 2}}, [](const Knobs& k) {
                 const uint64_t nz = k.at("nz"), it = k.at("iters"), n = 32 * 32 * nz;
                 const uint64_t inner = 2 * n + 2 * 32 * 32 * (nz - 1);
                 const uint64_t rd = 4 * n * (5 + 6 + 3 * (5 + 4 * 4) + 3 * 11) + 3 * 4 * 5 * inner;
                 return Expect{4 * 33 * n, it * rd, it * 4 * n * (5 + 1 + 3 * 5 + 3 * 5), 8 * it, "variables"};
               }});
  // streamcluster: per launch the first dim threads of every 512-thread CTA load a
  // coordinate of the candidate, every thread dim coordinates, weight and cost; a
  // point that switches (x_cost < cost, counted here from the arrays) stores its
  // flag and updates one work_mem word (1 load, 2 stores), the others load
  // assign, center_table and a work_mem word (3 loads, 1 store).
  c.push_back({"streamcluster", {{"n", 1100}, {"dim", 5}, {"centers", 4}, {"candidates", 3}},
               nullptr,
               [](const Knobs& k, Run& r) {
                 const uint64_t n = k.at("n"), dim = k.at("dim"), K = k.at("centers"), C = k.at("candidates");
                 Expect e{4 * n * (dim + 8 + 1 + 1 + K + 1), 0, 0, C, "work_mem"};
                 const std::vector<uint32_t> co = words_of(r, "coord"), pt = words_of(r, "points");
                 uint64_t staged = 0;
                 for (uint64_t c0 = 0; c0 < n; c0 += 512) staged += std::min<uint64_t>(dim, n - c0);
                 uint64_t moved = 0;
                 for (uint64_t c = 0; c < C; ++c) {
                   const uint64_t x = (2 * c + 1) * n / (2 * C);
                   for (uint64_t i = 0; i < n; ++i) {
                     uint32_t d2 = 0;
                     for (uint64_t d = 0; d < dim; ++d) d2 += (co[d * n + i] - co[d * n + x]) * (co[d * n + i] - co[d * n + x]);
                     moved += d2 * pt[8 * i] < pt[8 * i + 6];
                   }
                 }
                 EXPECT(moved > 0 && moved < n * C);  // both branches taken
                 e.rd = C * (4 * staged + 4 * n * dim + 8 * n) + 4 * moved + 12 * (n * C - moved);
                 e.wr = 8 * moved + 4 * (n * C - moved);
                 return e;
               }});
  // gaussian: pivot t leaves r = n-1-t rows: Fan1 loads 2 and stores 1 per row; Fan2
  // updates r x (n-t) elements (3 loads, 1 store) and b of the r rows (3 loads, 1 store).
  c.push_back({"gaussian", {{"n", 23}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n");
                 uint64_t rd = 0, wr = 0;
                 for (uint64_t t = 0; t + 1 < n; ++t) {
                   const uint64_t r = n - 1 - t;
                   rd += 4 * (2 * r + 3 * r * (n - t) + 3 * r);
                   wr += 4 * (r + r * (n - t) + r);
                 }
                 return Expect{4 * (2 * n * n + n), rd, wr, 2 * (n - 1), "a"};
               }});
  // neuralnet: per image 6 CTAs of 13x13 neurons with 25 terms, 50 of 5x5 with
  // 150 terms, 100 single neurons with 1250 terms, 10 with 100; each neuron loads
  // its bias and an input and a weight per term, and stores itself.
  c.push_back({"neuralnet", {{"images", 2}}, [](const Knobs& k) {
                 const uint64_t I = k.at("images");
                 const uint64_t neurons[4] = {6 * 169, 50 * 25, 100, 10}, terms[4] = {25, 150, 1250, 100};
                 uint64_t ld = 0, st = 0;
                 for (int l = 0; l < 4; ++l) ld += neurons[l] * (1 + 2 * terms[l]), st += neurons[l];
                 const uint64_t w = 6 * 26 + 50 * 156 + 100 * 1251 + 10 * 101;
                 return Expect{4 * (I * (29 * 29 + st) + w), 4 * I * ld, 4 * I * st, 4, "layer3_neurons"};
               }});
}

static std::vector<Case> cases() {
  std::vector<Case> c;
  // ---- streaming
  c.push_back({"scalarprod", {{"pairs", 5}, {"len", 1000}}, [](const Knobs& k) {
                 const uint64_t V = k.at("pairs"), L = k.at("len");
                 return Expect{8 * V * L + 4 * V, 8 * V * L, 4 * V, 1, "c"};
               }});
  c.push_back({"blackscholes", {{"n", 3000}, {"iters", 2}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n"), it = k.at("iters");
                 return Expect{20 * n, 12 * n * it, 8 * n * it, it, "put_result"};
               }});
  c.push_back({"nn", {{"n", 3001}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n");
                 return Expect{12 * n, 8 * n, 4 * n, 1, "distances"};
               }});
  c.push_back({"reduction", {{"n", 10000}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n"), G = cdiv(n, 256 * 16);
                 return Expect{4 * n + 4 * G + 4, 4 * n + 4 * G, 4 * G + 4, 2, "out"};
               }});
  c.push_back({"kmeans", {{"n", 1000}, {"iters", 2}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n"), it = k.at("iters"), F = 8, K = 5;
                 return Expect{4 * F * n + 4 * n + 4 * it * K * F, it * (4 * F * n + 4 * K * F * n), it * 4 * n, it,
                               "membership"};
               }});
  c.push_back({"mersenne", {{"n", 4100}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n") / 32 * 32;
                 return Expect{4 * n, 4 * n, 8 * n, 2, "random"};
               }});
  c.push_back({"libor", {{"paths", 500}}, [](const Knobs& k) {
                 const uint64_t P = k.at("paths"), N = 12, M = 6, Pp = cdiv(P, 32) * 32;
                 uint64_t upd = 0;
                 for (uint64_t j = 0; j < M; ++j) upd += N - 1 - j;
                 return Expect{4 * P * (M + 1) + 4 * N * Pp, 4 * P * (M + upd + (N - M)), 4 * P * (N + upd + 1), 1, "payoff"};
               }});
  c.push_back({"scan", {{"n", 5000}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n"), B = cdiv(n, 1024);
                 return Expect{8 * n + 8 * B, 4 * n + 4 * B + 4 * 256 * B + 4 * n, 8 * n + 8 * B, 3, "out"};
               }});
  // ---- stencil: per pass, interior points I load every tap (+ power), border points copy
  auto st = [](uint64_t nx, uint64_t ny, uint64_t nz, uint64_t rx, uint64_t ry, uint64_t rz, uint64_t taps) {
    const uint64_t n = nx * ny * nz, I = (nx - 2 * rx) * (ny - 2 * ry) * (nz - 2 * rz);
    return std::make_pair(4 * (n - I) + 4 * I * taps, 4 * n);
  };
  c.push_back({"hotspot3d", {{"nx", 40}, {"ny", 21}, {"nz", 5}, {"iters", 3}}, [st](const Knobs& k) {
                 const uint64_t nx = k.at("nx"), ny = k.at("ny"), nz = k.at("nz"), it = k.at("iters");
                 const auto rw = st(nx, ny, nz, 1, 1, 1, 8);
                 return Expect{12 * nx * ny * nz, it * rw.first, it * rw.second, it, "temp1"};
               }});
  for (const char* nm : {"laplace", "stencil"})
    c.push_back({nm, {{"nx", 33}, {"ny", 18}, {"nz", 6}, {"iters", 2}}, [st](const Knobs& k) {
                   const uint64_t nx = k.at("nx"), ny = k.at("ny"), nz = k.at("nz"), it = k.at("iters");
                   const auto rw = st(nx, ny, nz, 1, 1, 1, 7);
                   return Expect{8 * nx * ny * nz, it * rw.first, it * rw.second, it, "grid0"};
                 }});
  c.push_back({"conv2d", {{"nx", 70}, {"ny", 33}}, [st](const Knobs& k) {
                 const uint64_t nx = k.at("nx"), ny = k.at("ny");
                 const auto rw = st(nx, ny, 1, 1, 1, 0, 9);
                 return Expect{8 * nx * ny, rw.first, rw.second, 1, "B"};
               }});
  c.push_back({"convsep", {{"nx", 70}, {"ny", 40}}, [st](const Knobs& k) {
                 const uint64_t nx = k.at("nx"), ny = k.at("ny");
                 const auto r1 = st(nx, ny, 1, 8, 0, 0, 17), r2 = st(nx, ny, 1, 0, 8, 0, 17);
                 return Expect{12 * nx * ny, r1.first + r2.first, r1.second + r2.second, 2, "output"};
               }});
  c.push_back({"srad", {{"nx", 50}, {"ny", 30}, {"iters", 2}}, [](const Knobs& k) {
                 const uint64_t n = k.at("nx") * k.at("ny"), it = k.at("iters");
                 return Expect{24 * n, it * 4 * n * (5 + 8), it * 4 * n * (5 + 1), 2 * it, "J"};
               }});
  c.push_back({"heartwall", {{"frames", 3}, {"height", 30}, {"points", 5}}, [](const Knobs& k) {
                 const uint64_t F = k.at("frames"), P = k.at("points");
                 return Expect{4 * (F * 640 * k.at("height") + 256 * P + 4 * P), F * 4 * P * 256 * (2 + 1 + 16), F * 8 * P, F,
                               "pos1"};
               }});
  // ---- dp_wavefront
  c.push_back({"pathfinder", {{"cols", 300}, {"rows", 11}}, [](const Knobs& k) {
                 const uint64_t C = k.at("cols"), R = k.at("rows"), nk = cdiv(R - 1, 4);
                 return Expect{4 * R * C + 8 * C, 4 * C * nk + 4 * C * (R - 1), 4 * C * nk, nk,
                               nk % 2 ? "result1" : "result0"};
               }});
  c.push_back({"nw", {{"blocks", 5}}, [](const Knobs& k) {
                 const uint64_t B = k.at("blocks"), n = 16 * B;
                 return Expect{4 * n * n + 4 * (n + 1) * (n + 1), 4 * B * B * (256 + 16 + 16 + 1), 4 * B * B * 256,
                               2 * B - 1, "score"};
               }});
  // ---- butterfly
  c.push_back({"fwt", {{"log2n", 13}}, [](const Knobs& k) {
                 const uint64_t N = uint64_t(1) << k.at("log2n"), nk = cdiv(k.at("log2n"), 3);
                 return Expect{4 * N, 4 * N * nk, 4 * N * nk, nk, "data"};
               }});
  c.push_back({"bitonic", {{"log2n", 13}}, [](const Knobs& k) {
                 const uint64_t lg = k.at("log2n"), N = uint64_t(1) << lg;
                 uint64_t nk = 1;
                 for (uint64_t s = 11; s <= lg; ++s) nk += (s - 10) + 1;
                 return Expect{16 * N, 8 * N * nk, 8 * N * nk, nk, nk % 2 ? "keys1" : "keys0"};
               }});
  c.push_back({"dct8x8", {{"width", 96}, {"height", 40}}, [](const Knobs& k) {
                 const uint64_t n = k.at("width") * k.at("height");
                 return Expect{12 * n, 8 * n, 8 * n, 2, "dst"};
               }});
  // ---- gather
  c.push_back({"histogram", {{"n", 10000}}, [](const Knobs& k) {
                 const uint64_t n = k.at("n"), G = cdiv(n, 4096);
                 return Expect{4 * n + 1024 * G + 1024, 4 * n + 1024 * G, 1024 * G + 1024, 2, "hist"};
               }});
  c.push_back({"mummer", {{"log2ref", 12}}, [](const Knobs& k) {
                 const uint64_t lg = k.at("log2ref"), R = uint64_t(1) << lg, Q = R / 4;
                 return Expect{6 * R, 4 * Q * (1 + lg), 4 * Q, 1, "match"};
               }});
  c.push_back({"lavamd", {{"boxdim", 3}}, [](const Knobs& k) {
                 const uint64_t D = k.at("boxdim"), NB = D * D * D;
                 auto in = [D](uint64_t x) { return uint64_t(1) + (x > 0) + (x + 1 < D); };
                 uint64_t nbrs = 0;  // existing neighbour boxes, summed over boxes
                 for (uint64_t z = 0; z < D; ++z)
                   for (uint64_t y = 0; y < D; ++y)
                     for (uint64_t x = 0; x < D; ++x) nbrs += in(x) * in(y) * in(z);
                 return Expect{4 * 27 * NB + NB * 64 * 36, NB * 64 * (16 + 27 * 4) + nbrs * 64 * 20, NB * 64 * 16, 1,
                               "fv"};
               }});
  for (Case& g : graph_cases()) c.push_back(std::move(g));
  // ---- dense and irregular analogues (pattern_dense.cpp, pattern_tree.cpp, rows in stencil/gather)
  dense_irregular_cases(c);
  return c;
}

static void test_case(const Case& c) {
  cur = c.name.c_str();
  const WorkloadInfo* wi = find_workload(c.name);
  EXPECT(wi != nullptr);
  if (!wi) return;
  Knobs k;
  for (const KnobSpec& s : wi->knobs) k[s.name] = s.def;
  for (const auto& kv : c.knobs) k[kv.first] = kv.second;
  Run r(c.name, k, 7);
  const Expect e = c.from_memory ? c.from_memory(k, r) : c.formula(k);
  EXPECT_EQ(r.prog->footprint_bytes(), e.footprint);
  r.fc = run_functional(*r.prog);
  EXPECT_EQ(r.fc.kernels, e.kernels);
  EXPECT_EQ(r.fc.load_bytes, e.rd);
  EXPECT_EQ(r.fc.store_bytes, e.wr);
  std::string why;
  EXPECT(r.prog->verify(&r.golden, &why));
  if (!why.empty()) std::fprintf(stderr, "  %s\n", why.c_str());
  // a wrong word in an output array is caught
  const int a = r.prog->find_array(e.out);
  EXPECT(a >= 0);
  if (a >= 0) {
    const ArrayInfo& ai = r.prog->array(static_cast<unsigned>(a));
    const uint64_t addr = ai.base + 4 * (ai.bytes / 4 / 2);
    const uint32_t v = gold_u32(&r.golden, addr) ^ 0x40u;
    bstore_write(&r.golden, addr, &v, 4);
    why.clear();
    EXPECT(!r.prog->verify(&r.golden, &why));
    EXPECT(why.find(e.out) != std::string::npos);
  }
  // the footprint knob: largest size that fits, monotonic in the request
  uint64_t prev = 0;
  for (uint64_t want : {uint64_t(1) << 20, uint64_t(2) << 20, uint64_t(4) << 20}) {
    Knobs kf = k;
    kf[kFootprintKnob] = static_cast<int64_t>(want);
    auto p = wi->make(kf, 1);
    const uint64_t fp = p->footprint_bytes();
    EXPECT(fp <= want);
    EXPECT(fp >= want / 4);
    EXPECT(fp > prev);
    prev = fp;
  }
}

static void test_determinism(const std::string& name, const Knobs& k) {
  cur = name.c_str();
  Run a(name, k, 5), b(name, k, 5), c(name, k, 6);
  a.fc = run_functional(*a.prog);
  b.fc = run_functional(*b.prog);
  c.fc = run_functional(*c.prog);
  EXPECT_EQ(a.hash_arrays(), b.hash_arrays());
  EXPECT_EQ(a.fc.thread_insts, b.fc.thread_insts);
  EXPECT_EQ(a.fc.warp_insts, b.fc.warp_insts);
  EXPECT(a.hash_arrays() != c.hash_arrays());
}

int sc_main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  std::set<std::string> tested;
  for (const Case& c : cases()) {
    if (!only.empty() && c.name != only) continue;
    test_case(c);
    tested.insert(c.name);
    test_determinism(c.name, c.knobs);
  }
  if (only.empty()) {
    cur = "registry";
    const std::set<std::string> builtin = {"stream", "stencil2d", "random", "bfs", "accelsim"};
    for (const WorkloadInfo& w : workload_registry())
      if (!builtin.count(w.name) && !tested.count(w.name)) {
        std::fprintf(stderr, "analogue %s has no formula case\n", w.name.c_str());
        ++failures;
      }
  }
  if (failures) {
    std::fprintf(stderr, "test_workload_library: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("test_workload_library: %zu analogues passed\n", tested.size());
  return 0;
}
