// Kernel library, pattern "graph": vertex-centric, topology-driven iterative
// kernels over a seeded Graph500 R-MAT graph in CSR form (workloads/rmat.h, the
// generator `bfs` uses), standing for the graph workloads of the HMS paper
// (hms-dram-cache-over-scm.txt, Sec. IV-A/B: bfs_*, sssp_ttc/sssp_dtc, gc_*,
// clr_*, kcore on R-MAT graphs). docs/workload_library.md has every row's
// arrays, kernels and formulas.
//   sssp    Bellman-Ford as a min-plus SpMV, iterated until no distance changes
//           (Pannotia sssp, Che et al. IISWC'13; GraphBIG sssp topology-driven)
//   kcore   k-core by synchronous iterative peeling: vertices of degree < k are
//           removed, their neighbours' degrees decremented, until every vertex
//           left has degree >= k (GraphBIG kcore)
//   gcolor  Jones-Plassmann graph colouring with seeded random priorities: an
//           uncoloured vertex whose priority exceeds every uncoloured
//           neighbour's takes the round's colour (Jones & Plassmann, SIAM J.
//           Sci. Comput. 1993; Pannotia color_max, GraphBIG gc)
//
// GPU graph suites push updates with atomics (atomicMin, atomicSub) and set one
// global stop flag from many threads. Library kernels are race-free
// (program.h), so these are the pull formulations of the same algorithms: a
// thread writes only its own vertex, reads neighbours' state that no thread of
// the same kernel writes, and a CTA's "anything changed" flag is one word
// written by its thread 0 after a barrier (a __syncthreads_or reduction); the
// host reads the per-CTA flags between launches (the cudaMemcpy of the stop
// flag) and stops. Control flow is data-dependent: loop trip counts are the
// degrees read from row_ptr, neighbour ids come from col_idx, and branches
// test the values loaded.
#include <algorithm>
#include <queue>

#include "lib_core.h"
#include "rmat.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

constexpr uint64_t kCta = 256;           // threads per CTA (8 warps)
constexpr uint32_t kNone = 0xffffffffu;  // infinite distance / uncoloured

std::vector<KnobSpec> graph_knobs(int64_t scale_def) {
  return {{"scale", "log2 of the vertex count V", scale_def, 4, 24},
          {"edge_factor", "generated R-MAT edges per vertex (stored in both directions)", 8, 1, 64}};
}
// Footprint fit: the column count is at most nnz = 2 edge_factor V (self-loops
// are dropped), so fitting the bound keeps the real footprint <= the request.
uint64_t nv_of(const Knobs& k) { return uint64_t(1) << K(k, "scale"); }
uint64_t nnz_bound(const Knobs& k) { return 2 * K(k, "edge_factor") * nv_of(k); }
uint64_t ctas_of(uint64_t nv) { return ceil_div(nv, kCta); }

std::shared_ptr<const CsrGraph> graph_of(const Knobs& k, uint64_t seed) {
  return std::make_shared<const CsrGraph>(rmat_csr(static_cast<unsigned>(K(k, "scale")), K(k, "edge_factor") * nv_of(k), seed));
}

// The CSR arrays of every row; col_idx holds at least one word.
struct Csr {
  unsigned rp = 0, ci = 0;
  uint64_t brp = 0, bci = 0;
};
Csr add_csr(LibProgram& p, std::shared_ptr<const CsrGraph> g) {
  Csr c;
  c.rp = p.words("row_ptr", g->nv + 1, [g](uint64_t i) { return g->row_ptr[i]; });
  c.ci = p.words("col_idx", std::max<uint64_t>(1, g->nnz()), [g](uint64_t i) { return i < g->nnz() ? g->col[i] : 0u; });
  return c;
}

// True when every per-CTA flag the last flag-writing kernel left is zero.
bool flags_clear(const LibProgram& p, unsigned flags) {
  for (uint32_t f : p.read(p.golden(), flags))
    if (f) return false;
  return true;
}

bool all_zero(const LibProgram& q, bstore* g, unsigned a, std::string* why) {
  return q.expect(g, a, std::vector<uint32_t>(q.nwords(a), 0), why);
}

// ---------------------------------------------------------------- sssp
// Edge weights: symmetric, 1 + hash(seed, {min(u,v), max(u,v)}) mod max_weight.
// Per iteration (Pannotia sssp's three kernels):
//   vector_assign   dist_prev[v] = dist[v]
//   relax_min_plus  thread v: d = dist_prev[v]; for each edge e = (v, u):
//                   load col_idx[e], dist_prev[u]; if finite, load weight[e]
//                   and d = min(d, dist_prev[u] + weight[e]); store dist[v] = d
//   vector_diff     load dist_prev[v], dist[v]; barrier; thread 0 of the CTA
//                   stores changed[cta] = any of its vertices differs
// until an iteration changes nothing. dist starts at 0 for the root (bfs's
// seeded root) and infinity (~0) elsewhere; unreachable vertices keep ~0.
struct SsspRef {
  std::vector<uint32_t> w;  // weight per CSR edge
  uint64_t root = 0;
  unsigned iters = 0;       // iterations incl. the final one that changes nothing
};
std::vector<uint32_t> dijkstra(const CsrGraph& g, const std::vector<uint32_t>& w, uint64_t root) {
  std::vector<uint32_t> d(g.nv, kNone);
  using Item = std::pair<uint64_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  d[root] = 0;
  q.push({0, static_cast<uint32_t>(root)});
  while (!q.empty()) {
    const Item it = q.top();
    q.pop();
    if (it.first != d[it.second]) continue;
    for (uint32_t e = g.row_ptr[it.second]; e < g.row_ptr[it.second + 1]; ++e) {
      const uint64_t nd = it.first + w[e];
      if (nd < d[g.col[e]]) {
        d[g.col[e]] = static_cast<uint32_t>(nd);
        q.push({nd, g.col[e]});
      }
    }
  }
  return d;
}
Row row_sssp() {
  Row r;
  r.name = "sssp";
  r.desc = "single-source shortest paths, Bellman-Ford min-plus relaxation over a weighted R-MAT CSR until no change (Pannotia/GraphBIG sssp; HMS sssp)";
  r.knobs = graph_knobs(11);
  r.knobs.push_back({"max_weight", "edge weights are 1..max_weight", 64, 1, 255});
  r.size_knob = "scale";
  r.footprint = [](const Knobs& k) {
    const uint64_t V = nv_of(k);
    return 4 * (V + 1) + 8 * nnz_bound(k) + 8 * V + 4 * ctas_of(V);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    auto g = graph_of(k, seed);
    const uint64_t V = g->nv, G = ctas_of(V), maxw = K(k, "max_weight");
    auto ref = std::make_shared<SsspRef>();
    ref->root = rmat_root(*g, seed);
    ref->w.resize(g->nnz());
    for (uint64_t v = 0; v < V; ++v)
      for (uint32_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; ++e) {
        const uint64_t a = std::min<uint64_t>(v, g->col[e]), b = std::max<uint64_t>(v, g->col[e]);
        ref->w[e] = 1 + hash32(seed, 60, a * V + b) % static_cast<uint32_t>(maxw);
      }
    {  // iteration count of the synchronous relaxation (launch estimate)
      std::vector<uint32_t> d(V, kNone), n(V);
      d[ref->root] = 0;
      for (bool ch = true; ch;) {
        ++ref->iters;
        ch = false;
        for (uint64_t v = 0; v < V; ++v) {
          uint32_t m = d[v];
          for (uint32_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; ++e)
            if (d[g->col[e]] != kNone) m = std::min(m, d[g->col[e]] + ref->w[e]);
          n[v] = m;
          ch |= m != d[v];
        }
        d.swap(n);
      }
    }
    auto p = std::make_unique<LibProgram>("sssp", seed);
    const Csr c = add_csr(*p, g);
    const unsigned wt = p->words("weights", std::max<uint64_t>(1, g->nnz()),
                                 [ref](uint64_t i) { return i < ref->w.size() ? ref->w[i] : 0u; });
    const unsigned dist = p->words("dist", V, [ref](uint64_t i) { return i == ref->root ? 0u : kNone; });
    const unsigned prev = p->words("dist_prev", V);
    const unsigned chg = p->words("changed", G);
    LibProgram* P = p.get();
    p->estimate = 3 * ref->iters;
    p->schedule = [=](unsigned kk, Launch& l) {
      const uint64_t brp = P->base(c.rp), bci = P->base(c.ci), bwt = P->base(wt), bd = P->base(dist),
                     bp = P->base(prev), bc = P->base(chg);
      switch (kk % 3) {
        case 0:
          // (a relaxation round fixes at least one more vertex: more than V
          // rounds would be a bug; stopping leaves verify() to report it)
          if (kk > 0 && (flags_clear(*P, chg) || kk / 3 > V)) return false;
          l = {"sssp_vector_assign", V, 8, {dist}, {prev}, [=](uint64_t v, Thread& t) { t.st(bp + 4 * v, t.ld(bd + 4 * v)); }};
          break;
        case 1:
          l = {"sssp_relax_min_plus", V, 8, {c.rp, c.ci, wt, prev}, {dist}, [=](uint64_t v, Thread& t) {
                 uint32_t d = t.ld(bp + 4 * v);
                 const uint32_t e0 = t.ld(brp + 4 * v), e1 = t.ld(brp + 4 * v + 4);
                 t.alu(2);
                 for (uint32_t e = e0; e < e1; ++e) {
                   const uint32_t u = t.ld(bci + 4 * uint64_t(e));
                   const uint32_t du = t.ld_dep(bp + 4 * uint64_t(u));
                   t.alu(2);  // compare with infinity, branch
                   if (du == kNone) continue;
                   const uint32_t w = t.ld_dep(bwt + 4 * uint64_t(e));  // issued after the branch on du
                   t.alu(3);
                   d = std::min(d, du + w);
                 }
                 t.st(bd + 4 * v, d);
               }};
          break;
        default:
          l = {"sssp_vector_diff", V, 8, {prev, dist}, {chg}, [=](uint64_t v, Thread& t) {
                 t.ld(bp + 4 * v);
                 t.ld(bd + 4 * v);
                 t.alu(2);
                 t.barrier();  // __syncthreads_or over the CTA
                 if (v % kCta == 0) {
                   uint32_t any = 0;
                   for (uint64_t x = v; x < std::min(V, v + kCta); ++x) any |= t.peek(bp + 4 * x) != t.peek(bd + 4 * x);
                   t.st(bc + 4 * (v / kCta), any);
                 }
               }};
          break;
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* gm, std::string* why) {
      const std::vector<uint32_t> want = dijkstra(*g, ref->w, ref->root);
      return q.expect(gm, dist, want, why) && q.expect(gm, prev, want, why) && all_zero(q, gm, chg, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- kcore
// state[v] = 0 while v is in the core, t when it was removed in round t;
// deg[v] starts at v's degree. Round t = 1, 2, ...:
//   kcore_mark    load state[v]; if 0, load deg[v]; if deg < k store
//                 state[v] = t; barrier; thread 0 of the CTA stores
//                 removed[cta] = any of its vertices removed in round t
//   (the host stops when no CTA removed a vertex)
//   kcore_update  load state[v]; if 0: for each edge load col_idx[e] and
//                 state[u], count neighbours removed in round t; if any,
//                 load deg[v] and store deg[v] - count
// At the end state[v] == 0 exactly for the k-core's vertices, whose deg is the
// number of their core neighbours (edges with multiplicity).
struct KcoreRef {
  std::vector<uint32_t> state, deg;
  unsigned rounds = 0;  // rounds that removed at least one vertex
};
KcoreRef kcore_sync(const CsrGraph& g, uint32_t k) {
  KcoreRef r;
  r.state.assign(g.nv, 0);
  r.deg.resize(g.nv);
  for (uint64_t v = 0; v < g.nv; ++v) r.deg[v] = g.degree(v);
  for (uint32_t t = 1;; ++t) {
    bool any = false;
    for (uint64_t v = 0; v < g.nv; ++v)
      if (r.state[v] == 0 && r.deg[v] < k) r.state[v] = t, any = true;
    if (!any) break;
    r.rounds = t;
    for (uint64_t v = 0; v < g.nv; ++v) {
      if (r.state[v]) continue;
      uint32_t n = 0;
      for (uint32_t e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) n += r.state[g.col[e]] == t;
      r.deg[v] -= n;
    }
  }
  return r;
}
Row row_kcore() {
  Row r;
  r.name = "kcore";
  r.desc = "k-core by synchronous iterative peeling over an R-MAT CSR: mark vertices of degree < k, decrement their neighbours' degrees, until none is left (GraphBIG kcore; HMS kcore)";
  r.knobs = graph_knobs(13);
  r.knobs.push_back({"k", "core order: the vertices left have degree >= k", 16, 1, 1 << 20});
  r.size_knob = "scale";
  r.footprint = [](const Knobs& k) {
    const uint64_t V = nv_of(k);
    return 4 * (V + 1) + 4 * nnz_bound(k) + 8 * V + 4 * ctas_of(V);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    auto g = graph_of(k, seed);
    const uint64_t V = g->nv, G = ctas_of(V);
    const uint32_t kc = static_cast<uint32_t>(K(k, "k"));
    auto ref = std::make_shared<const KcoreRef>(kcore_sync(*g, kc));
    auto p = std::make_unique<LibProgram>("kcore", seed);
    const Csr c = add_csr(*p, g);
    const unsigned deg = p->words("deg", V, [g](uint64_t v) { return g->degree(v); });
    const unsigned st = p->words("state", V);
    const unsigned rem = p->words("removed", G);
    LibProgram* P = p.get();
    p->estimate = 2 * ref->rounds + 1;
    p->schedule = [=](unsigned kk, Launch& l) {
      const uint64_t brp = P->base(c.rp), bci = P->base(c.ci), bdg = P->base(deg), bst = P->base(st), brm = P->base(rem);
      const uint32_t t = kk / 2 + 1;
      if (kk % 2 == 0) {
        l = {"kcore_mark", V, 8, {st, deg}, {st, rem}, [=](uint64_t v, Thread& th) {
               if (th.ld(bst + 4 * v) == 0) {
                 th.alu();
                 const uint32_t d = th.ld(bdg + 4 * v);
                 th.alu(2);
                 if (d < kc) th.st(bst + 4 * v, t);
               }
               th.barrier();  // __syncthreads_or over the CTA
               if (v % kCta == 0) {
                 // state[x] of other threads may or may not be stored yet
                 uint32_t any = 0;
                 for (uint64_t x = v; x < std::min(V, v + kCta); ++x) {
                   const uint32_t s = th.peek(bst + 4 * x);
                   any |= s == t || (s == 0 && th.peek(bdg + 4 * x) < kc);
                 }
                 th.st(brm + 4 * (v / kCta), any);
               }
             }};
        return true;
      }
      if (flags_clear(*P, rem) || t > V) return false;
      l = {"kcore_update", V, 8, {c.rp, c.ci, st, deg}, {deg}, [=](uint64_t v, Thread& th) {
             const uint32_t s = th.ld(bst + 4 * v);
             th.alu();
             if (s) return;
             const uint32_t e0 = th.ld(brp + 4 * v), e1 = th.ld(brp + 4 * v + 4);
             th.alu(2);
             uint32_t n = 0;
             for (uint32_t e = e0; e < e1; ++e) {
               const uint32_t u = th.ld(bci + 4 * uint64_t(e));
               n += th.ld_dep(bst + 4 * uint64_t(u)) == t;
               th.alu(3);
             }
             if (n) {
               const uint32_t d = th.ld(bdg + 4 * v);
               th.alu();
               th.st(bdg + 4 * v, d - n);
             }
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* gm, std::string* why) {
      if (!q.expect(gm, st, ref->state, why) || !q.expect(gm, deg, ref->deg, why) || !all_zero(q, gm, rem, why))
        return false;
      // The core itself from the sequential peeling algorithm (remove any
      // vertex of degree < k until none is left; Matula & Beck 1983).
      std::vector<uint32_t> d(V);
      std::vector<char> gone(V, 0);
      std::vector<uint32_t> work;
      for (uint64_t v = 0; v < V; ++v) {
        d[v] = g->degree(v);
        if (d[v] < kc) gone[v] = 1, work.push_back(static_cast<uint32_t>(v));
      }
      while (!work.empty()) {
        const uint32_t v = work.back();
        work.pop_back();
        for (uint32_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; ++e) {
          const uint32_t u = g->col[e];
          if (!gone[u] && --d[u] < kc) gone[u] = 1, work.push_back(u);
        }
      }
      const std::vector<uint32_t> got = q.read(gm, st);
      for (uint64_t v = 0; v < V; ++v)
        if ((got[v] == 0) == static_cast<bool>(gone[v])) {
          if (why)
            *why = "kcore: state[" + std::to_string(v) + "] = " + std::to_string(got[v]) +
                   ", sequential peeling says the vertex is " + (gone[v] ? "not " : "") + "in the core";
          return false;
        }
      return true;
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- gcolor
// priority = a seeded permutation of 1..V (distinct, so two neighbours never
// tie); color[v] = ~0 while uncoloured. Round c = 0, 1, ...:
//   color_max     load color[v]; if uncoloured: for each edge load col_idx[e]
//                 and color[u]; if u is uncoloured load priority[u]; store
//                 max_nbr[v] = the largest such priority (0 if none); barrier;
//                 thread 0 of the CTA stores active[cta] = any of its
//                 uncoloured vertices has an uncoloured neighbour
//   color_assign  load color[v]; if uncoloured load priority[v], max_nbr[v];
//                 if priority > max_nbr store color[v] = c
// until a round whose active flags are all zero (its assign coloured the rest).
struct GcolorRef {
  std::vector<uint32_t> prio, color;
  unsigned rounds = 0;
};
Row row_gcolor() {
  Row r;
  r.name = "gcolor";
  r.desc = "Jones-Plassmann graph colouring of an R-MAT CSR with seeded random priorities, one colour per round (Pannotia color_max, GraphBIG gc; HMS gc/clr)";
  r.knobs = graph_knobs(10);
  r.size_knob = "scale";
  r.footprint = [](const Knobs& k) {
    const uint64_t V = nv_of(k);
    return 4 * (V + 1) + 4 * nnz_bound(k) + 12 * V + 4 * ctas_of(V);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    auto g = graph_of(k, seed);
    const uint64_t V = g->nv, G = ctas_of(V);
    auto ref = std::make_shared<GcolorRef>();
    ref->prio.resize(V);
    for (uint64_t v = 0; v < V; ++v) ref->prio[v] = static_cast<uint32_t>(v + 1);
    for (uint64_t v = V - 1; v > 0; --v) std::swap(ref->prio[v], ref->prio[hash32(seed, 61, v) % (v + 1)]);
    {  // the synchronous rounds on the host (reference colours, launch estimate)
      std::vector<uint32_t>& col = ref->color;
      col.assign(V, kNone);
      std::vector<uint32_t> mx(V, 0);
      for (bool active = true; active; ++ref->rounds) {
        active = false;
        for (uint64_t v = 0; v < V; ++v) {
          if (col[v] != kNone) continue;
          uint32_t m = 0;
          for (uint32_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; ++e)
            if (col[g->col[e]] == kNone) m = std::max(m, ref->prio[g->col[e]]), active = true;
          mx[v] = m;
        }
        for (uint64_t v = 0; v < V; ++v)
          if (col[v] == kNone && ref->prio[v] > mx[v]) col[v] = ref->rounds;
      }
    }
    auto p = std::make_unique<LibProgram>("gcolor", seed);
    const Csr c = add_csr(*p, g);
    const unsigned pr = p->words("priority", V, [ref](uint64_t v) { return ref->prio[v]; });
    const unsigned co = p->words("color", V, [](uint64_t) { return kNone; });
    const unsigned mx = p->words("max_nbr", V);
    const unsigned act = p->words("active", G);
    LibProgram* P = p.get();
    p->estimate = 2 * ref->rounds;
    p->schedule = [=](unsigned kk, Launch& l) {
      const uint64_t brp = P->base(c.rp), bci = P->base(c.ci), bpr = P->base(pr), bco = P->base(co), bmx = P->base(mx),
                     bac = P->base(act);
      if (kk % 2 == 0) {
        if (kk > 0 && (flags_clear(*P, act) || kk / 2 > V)) return false;  // a round colours >= 1 vertex
        l = {"color_max", V, 8, {c.rp, c.ci, pr, co}, {mx, act}, [=](uint64_t v, Thread& t) {
               const uint32_t cv = t.ld(bco + 4 * v);
               t.alu();
               if (cv == kNone) {
                 const uint32_t e0 = t.ld(brp + 4 * v), e1 = t.ld(brp + 4 * v + 4);
                 t.alu(2);
                 uint32_t m = 0;
                 for (uint32_t e = e0; e < e1; ++e) {
                   const uint32_t u = t.ld(bci + 4 * uint64_t(e));
                   const uint32_t cu = t.ld_dep(bco + 4 * uint64_t(u));
                   t.alu(2);
                   if (cu != kNone) continue;
                   const uint32_t pu = t.ld_dep(bpr + 4 * uint64_t(u));  // issued after the branch on cu
                   t.alu(2);
                   m = std::max(m, pu);
                 }
                 t.st(bmx + 4 * v, m);
               }
               t.barrier();  // __syncthreads_or over the CTA
               if (v % kCta == 0) {
                 uint32_t any = 0;
                 for (uint64_t x = v; x < std::min(V, v + kCta) && !any; ++x) {
                   if (t.peek(bco + 4 * x) != kNone) continue;
                   for (uint32_t e = g->row_ptr[x]; e < g->row_ptr[x + 1] && !any; ++e)
                     any = t.peek(bco + 4 * uint64_t(t.peek(bci + 4 * uint64_t(e)))) == kNone;
                 }
                 t.st(bac + 4 * (v / kCta), any);
               }
             }};
        return true;
      }
      const uint32_t round = kk / 2;
      l = {"color_assign", V, 8, {pr, mx, co}, {co}, [=](uint64_t v, Thread& t) {
             const uint32_t cv = t.ld(bco + 4 * v);
             t.alu();
             if (cv != kNone) return;
             const uint32_t pv = t.ld(bpr + 4 * v), m = t.ld(bmx + 4 * v);
             t.alu(2);
             if (pv > m) t.st(bco + 4 * v, round);
           }};
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* gm, std::string* why) {
      if (!q.expect(gm, co, ref->color, why) || !all_zero(q, gm, act, why)) return false;
      // and it is a proper colouring of every vertex
      const std::vector<uint32_t> got = q.read(gm, co);
      for (uint64_t v = 0; v < V; ++v)
        for (uint32_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; ++e)
          if (got[v] == kNone || got[v] == got[g->col[e]]) {
            if (why)
              *why = "gcolor: color[" + std::to_string(v) + "] = " + std::to_string(got[v]) + " is not a proper colour (neighbour " +
                     std::to_string(g->col[e]) + ")";
            return false;
          }
      return true;
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_graph() {
  return {make_info(row_sssp()), make_info(row_kcore()), make_info(row_gcolor())};
}

}  // namespace strata
