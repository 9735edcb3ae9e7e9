// Seeded R-MAT graphs in CSR form (see rmat.h).
#include "rmat.h"

#include <utility>

#include "program.h"

namespace strata {

// Graph500 R-MAT edge generation (a, b, c, d) = (0.57, 0.19, 0.19, 0.05),
// quadrant chosen per bit from 53-bit uniform doubles of a seeded stream.
CsrGraph rmat_csr(unsigned scale, uint64_t edges, uint64_t seed) {
  CsrGraph g;
  g.nv = uint64_t(1) << scale;
  const uint64_t nv = g.nv;
  const double a = 0.57, b = 0.19, c = 0.19;
  uint64_t ctr = mix64(seed ^ 0xb75ull);
  auto uni = [&ctr]() { return static_cast<double>(mix64(ctr++) >> 11) * (1.0 / 9007199254740992.0); };
  std::vector<uint32_t> src(edges), dst(edges);
  for (uint64_t e = 0; e < edges; ++e) {
    uint32_t u = 0, v = 0;
    for (unsigned bit = 0; bit < scale; ++bit) {
      const double r = uni();
      const uint32_t bu = r >= a + b ? 1u : 0u;                                // c or d: lower half
      const uint32_t bv = (r >= a && r < a + b) || r >= a + b + c ? 1u : 0u;  // b or d: right half
      u |= bu << bit;
      v |= bv << bit;
    }
    src[e] = u;
    dst[e] = v;
  }
  // Scramble vertex labels (Graph500 does, so hubs are not clustered at low ids).
  std::vector<uint32_t> perm(nv);
  for (uint64_t i = 0; i < nv; ++i) perm[i] = static_cast<uint32_t>(i);
  for (uint64_t i = nv - 1; i > 0; --i) std::swap(perm[i], perm[mix64(ctr++) % (i + 1)]);
  std::vector<uint32_t> deg(nv + 1, 0);
  for (uint64_t e = 0; e < edges; ++e) {
    src[e] = perm[src[e]];
    dst[e] = perm[dst[e]];
    if (src[e] == dst[e]) continue;
    ++deg[src[e]];
    ++deg[dst[e]];
  }
  g.row_ptr.assign(nv + 1, 0);
  for (uint64_t v = 0; v < nv; ++v) g.row_ptr[v + 1] = g.row_ptr[v] + deg[v];
  g.col.assign(g.row_ptr[nv], 0);
  std::vector<uint32_t> fill(g.row_ptr.begin(), g.row_ptr.end() - 1);
  for (uint64_t e = 0; e < edges; ++e) {
    if (src[e] == dst[e]) continue;
    g.col[fill[src[e]]++] = dst[e];
    g.col[fill[dst[e]]++] = src[e];
  }
  return g;
}

uint64_t rmat_root(const CsrGraph& g, uint64_t seed) {
  uint64_t root = mix64(seed ^ 0x7007ull) % g.nv;
  for (uint64_t k = 0; k < g.nv && g.row_ptr[root + 1] == g.row_ptr[root]; ++k) root = (root + 1) % g.nv;
  return root;
}

}  // namespace strata
