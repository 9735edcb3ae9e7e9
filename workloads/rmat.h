// Seeded R-MAT graphs in CSR form, shared by the graph workloads (bfs.cpp and
// the graph analogues of the kernel library, pattern_graph.cpp).
//
// Graph500 Kronecker/R-MAT generator (Graph500 specification; Chakrabarti et
// al., SDM'04) with a = 0.57, b = c = 0.19, d = 0.05: 2^scale vertices, `edges`
// generated edges, made undirected (both directions stored, self-loops
// dropped, duplicates kept), vertex labels scrambled by a seeded permutation
// (so hubs are not clustered at low ids). Neighbours of a vertex are stored in
// generation order. Same (scale, edges, seed) -> the same graph.
#pragma once
#include <cstdint>
#include <vector>

namespace strata {

struct CsrGraph {
  uint64_t nv = 0;                // vertices V = 2^scale
  std::vector<uint32_t> row_ptr;  // V + 1 offsets into col
  std::vector<uint32_t> col;      // nnz = row_ptr[V] neighbour ids (<= 2 edges)
  uint64_t nnz() const { return col.size(); }
  uint32_t degree(uint64_t v) const { return row_ptr[v + 1] - row_ptr[v]; }
};

// Builds the graph. scale in [1, 31].
CsrGraph rmat_csr(unsigned scale, uint64_t edges, uint64_t seed);

// A seeded source vertex with at least one neighbour (the seeded pick itself if
// the graph has no edges).
uint64_t rmat_root(const CsrGraph& g, uint64_t seed);

}  // namespace strata
