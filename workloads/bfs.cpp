// bfs: level-synchronous bottom-up ("pull") breadth-first search (Beamer et al.,
// SC'12 direction-optimizing BFS, bottom-up step) over a seeded R-MAT graph
// (workloads/rmat.h, shared with the graph analogues of pattern_graph.cpp) with
// the Graph500 parameters a = 0.57, b = c = 0.19, d = 0.05 (Graph500 spec,
// Kronecker generator), 2^scale vertices, edge_factor * 2^scale generated edges,
// made undirected (both directions stored, self-loops dropped, duplicates kept),
// vertex labels scrambled by a seeded permutation, stored as CSR.
//
// One kernel per level L = 0, 1, ...: thread v owns vertex v; it reads in[v];
// if v is unvisited (-1) it reads row_ptr[v], row_ptr[v+1] and scans col_idx
// until it finds a neighbour u with in[u] == L (reading col_idx[e] and in[u]
// per step); it always writes out[v] (in[v], L+1 or -1). in/out are ping-pong
// level arrays, so no thread reads what another thread writes (race-free). The
// host stops after the first kernel that discovers no vertex (it reads out[] —
// the cudaMemcpy of a "changed" flag); the final levels are checked against a
// host BFS. Divergence is real: a warp loops as long as its slowest lane.
//   arrays  row_ptr 4(V+1), col_idx 4 nnz, level0 4V, level1 4V  (V = 2^scale,
//           nnz <= 2 edge_factor V)         footprint = 4(V+1) + 4 nnz + 8V bytes
//   kernel L reads 4V + sum over v unvisited before L of (8 + 8 * scanned(v)),
//           writes 4V, where scanned(v) = position of the first neighbour at
//           level L (1-based), or deg(v) if none.
// Offload block (docs/offload_candidates.md): the neighbour scan loop, steps
// 6-9, live-in r3 (the edge index), live-out r8 (found, read by the store):
// 2 loads per iteration, trip count unknown (it stops at the first neighbour
// on level L), both exits go to step 10 (converged).
#include <algorithm>
#include <deque>
#include <vector>

#include "registry.h"
#include "rmat.h"

namespace strata {
namespace {

constexpr unsigned kCtaWarps = 8;

class BfsKernel : public Kernel {
 public:
  uint64_t nv = 0, row_ptr = 0, col_idx = 0, in = 0, out = 0;
  int32_t level = 0;
  void warp_begin(WarpCtx& w) const override {
    const uint64_t t0 = (static_cast<uint64_t>(w.cta) * warps_per_cta + w.warp) * kWarpSize;
    w.s[0] = t0;
    w.mask = lanes_below(t0, nv);
  }
  void warp_next(WarpCtx& w, WarpInst& o) const override {
    const uint64_t t0 = w.s[0];
    for (;;) {
      switch (w.pc) {
        case 0: w.pc = 1; o.alu(0, w.mask); return;  // v = global thread id
        case 1: {                                   // r1 = in[v]
          w.pc = 2;
          o.load(1, w.mask, 4, 0);
          // One golden read for the warp: w.mask is lanes 0..n-1 (lanes_below).
          uint32_t lvs[kWarpSize];
          bstore_read(golden, in + 4 * t0, lvs, 4 * lanes_end(w.mask));
          uint32_t unv = 0;
          for (unsigned l = 0; l < kWarpSize; ++l) {
            if (!((w.mask >> l) & 1u)) continue;
            o.addr[l] = in + 4 * (t0 + l);
            const int32_t lv = static_cast<int32_t>(lvs[l]);
            w.t[2][l] = static_cast<uint32_t>(lv);
            if (lv < 0) unv |= 1u << l;
          }
          w.s[1] = unv;
          o.unit_stride = true;  // lane l at in + 4 (t0 + l)
          return;
        }
        case 2:  // r2 = (r1 == -1); branch
          w.pc = w.s[1] ? 3 : 10;
          o.alu(2, w.mask, 1);
          return;
        case 3:  // r3 = row_ptr[v]
          w.pc = 4;
          o.load(3, static_cast<uint32_t>(w.s[1]), 4, 0);
          for (unsigned l = 0; l < kWarpSize; ++l) o.addr[l] = row_ptr + 4 * (t0 + l);
          o.unit_stride = true;
          return;
        case 4: {  // r4 = row_ptr[v+1]
          w.pc = 5;
          const uint32_t unv = static_cast<uint32_t>(w.s[1]);
          o.load(4, unv, 4, 0);
          // row_ptr[t0 .. t0 + n] in one golden read (n = highest unvisited lane + 1;
          // every lane below it is an existing vertex, so all are in the array).
          uint32_t rp[kWarpSize + 1];
          bstore_read(golden, row_ptr + 4 * t0, rp, 4 * (lanes_end(unv) + 1));
          uint32_t loop = 0;
          for (unsigned l = 0; l < kWarpSize; ++l) {
            o.addr[l] = row_ptr + 4 * (t0 + l + 1);
            if (!((unv >> l) & 1u)) continue;
            w.t[0][l] = rp[l];
            w.t[1][l] = rp[l + 1];
            if (w.t[0][l] < w.t[1][l]) loop |= 1u << l;
          }
          w.s[2] = loop;
          o.unit_stride = true;  // lane l at row_ptr + 4 (t0 + l + 1)
          return;
        }
        case 5:  // r5 = (r3 < r4); branch into the loop
          w.pc = w.s[2] ? 6 : 10;
          w.s[3] = 1;  // the next step 6 enters the loop block
          o.alu(5, static_cast<uint32_t>(w.s[1]), 3, 4);
          return;
        case 6: {  // r6 = col_idx[e]
          w.pc = 7;
          const uint32_t loop = static_cast<uint32_t>(w.s[2]);
          o.load(6, loop, 4, 3);
          for (uint32_t b = loop; b; b &= b - 1) {  // active lanes only (the loop's lanes thin out)
            const unsigned l = static_cast<unsigned>(__builtin_ctz(b));
            o.addr[l] = col_idx + 4 * w.t[0][l];
          }
          o.in_block(0, w.s[3] != 0);
          w.s[3] = 0;
          return;
        }
        case 7: {  // r7 = in[u]
          w.pc = 8;
          const uint32_t loop = static_cast<uint32_t>(w.s[2]);
          o.load(7, loop, 4, 6);
          for (uint32_t b = loop; b; b &= b - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(b));
            o.addr[l] = in + 4 * uint64_t(gold_u32(golden, col_idx + 4 * w.t[0][l]));
            // in[u] for step 8 (in[] is not written by this kernel, so the
            // value is the same then).
            w.t[3][l] = gold_u32(golden, o.addr[l]);
          }
          o.in_block(0);
          return;
        }
        case 8: {  // r8 = (r7 == L): found lanes leave the loop with level L+1
          const uint32_t loop = static_cast<uint32_t>(w.s[2]);
          o.alu(8, loop, 7);
          uint32_t rest = loop;
          for (uint32_t b = loop; b; b &= b - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(b));
            if (static_cast<int32_t>(w.t[3][l]) == level) {  // in[u], read at step 7
              w.t[2][l] = static_cast<uint32_t>(level + 1);
              rest &= ~(1u << l);
            }
          }
          w.s[2] = rest;
          w.pc = rest ? 9 : 10;
          o.in_block(0);
          return;
        }
        case 9: {  // e++, loop while e < end
          const uint32_t loop = static_cast<uint32_t>(w.s[2]);
          o.alu(3, loop, 3, 8);
          uint32_t rest = loop;
          for (uint32_t b = loop; b; b &= b - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(b));
            if (++w.t[0][l] >= w.t[1][l]) rest &= ~(1u << l);
          }
          w.s[2] = rest;
          w.pc = rest ? 6 : 10;
          o.in_block(0);
          return;
        }
        case 10:  // out[v] = level
          w.pc = 11;
          o.store(w.mask, 4, 1, 0, 8);
          uint32_t vs[kWarpSize];
          for (unsigned l = 0; l < kWarpSize; ++l) {
            if (!((w.mask >> l) & 1u)) continue;
            o.addr[l] = out + 4 * (t0 + l);
            o.data[l] = static_cast<uint32_t>(w.t[2][l]);
            vs[l] = static_cast<uint32_t>(w.t[2][l]);
          }
          bstore_write(golden, out + 4 * t0, vs, 4 * lanes_end(w.mask));  // lanes 0..n-1, one write
          o.unit_stride = true;  // lane l at out + 4 (t0 + l)
          return;
        default: o.exit(w.mask); return;
      }
    }
  }
};

class BfsProgram : public Program {
 public:
  BfsProgram(unsigned scale, unsigned edge_factor, uint64_t seed) : Program("bfs"), seed_(seed) {
    nv_ = uint64_t(1) << scale;
    build_graph(scale, static_cast<uint64_t>(edge_factor) << scale);
    host_bfs();
    rp_ = add_array("row_ptr", 4 * (nv_ + 1));
    ci_ = add_array("col_idx", 4 * std::max<uint64_t>(1, col_.size()));
    lv_[0] = add_array("level0", 4 * nv_);
    lv_[1] = add_array("level1", 4 * nv_);
  }
  Kernel* next_kernel() override {
    if (done_) return nullptr;
    if (launched_ > 0) {
      // Did the previous kernel discover anything? (host reads its output)
      std::vector<int32_t> out(nv_);
      bstore_read(golden_, array(lv_[launched_ & 1u]).base, out.data(), 4 * nv_);
      if (std::find(out.begin(), out.end(), static_cast<int32_t>(launched_)) == out.end()) {
        done_ = true;
        return nullptr;
      }
    }
    const unsigned src = launched_ & 1u;
    k_.name = "bfs_bottom_up_level";
    k_.golden = golden_;
    k_.nv = nv_;
    k_.row_ptr = array(rp_).base;
    k_.col_idx = array(ci_).base;
    k_.in = array(lv_[src]).base;
    k_.out = array(lv_[src ^ 1u]).base;
    k_.level = static_cast<int32_t>(launched_);
    k_.warps_per_cta = kCtaWarps;
    k_.ctas = static_cast<uint32_t>((nv_ + kCtaWarps * kWarpSize - 1) / (kCtaWarps * kWarpSize));
    k_.reads = {rp_, ci_, lv_[src]};
    k_.writes = {lv_[src ^ 1u]};
    OffloadBlock b;
    b.name = "scan_neighbours";
    b.pc_begin = 6;
    b.pc_end = 9;
    b.live_in = 1;   // r3 (read by step 6 before step 9 writes it)
    b.live_out = 1;  // r8 (the store of step 10 reads it)
    b.loads = 2;
    b.alu = 2;
    b.trip = TripKind::Unknown;
    k_.blocks = {b};
    ++launched_;
    return &k_;
  }
  bool verify(bstore* g, std::string* why) const override {
    if (!done_) {
      if (why) *why = "bfs: the program did not run to completion";
      return false;
    }
    std::vector<int32_t> got(nv_);
    bstore_read(g, array(lv_[launched_ & 1u]).base, got.data(), 4 * nv_);
    for (uint64_t v = 0; v < nv_; ++v)
      if (got[v] != host_level_[v]) {
        if (why)
          *why = "bfs: level[" + std::to_string(v) + "] = " + std::to_string(got[v]) + ", host BFS says " +
                 std::to_string(host_level_[v]);
        return false;
      }
    return true;
  }
  // Kernels L = 0 .. depth (the last one discovers nothing).
  unsigned kernels_estimate() const override { return static_cast<unsigned>(depth_ + 1); }
  // Warp instructions of level L's kernel, from the host BFS (exact for the
  // generator above; the levels differ by orders of magnitude, so progress
  // reports weigh the kernels by them). Computed on first use.
  uint64_t kernel_warp_insts(unsigned L) const override {
    if (warp_insts_.empty()) count_warp_insts();
    return L < warp_insts_.size() ? warp_insts_[L] : 0;
  }

  // Host-side graph and reference levels (tests).
  const std::vector<uint32_t>& row_ptr() const { return rp_host_; }
  const std::vector<uint32_t>& col_idx() const { return col_; }
  const std::vector<int32_t>& host_levels() const { return host_level_; }
  uint64_t root() const { return root_; }

 protected:
  void init_data() override {
    write_init(array(rp_).base, rp_host_.data(), 4 * rp_host_.size());
    if (!col_.empty()) write_init(array(ci_).base, col_.data(), 4 * col_.size());
    std::vector<int32_t> l0(nv_, -1);
    l0[root_] = 0;
    write_init(array(lv_[0]).base, l0.data(), 4 * nv_);
  }

 private:
  // The shared Graph500 R-MAT generator (workloads/rmat.h) and its seeded root.
  void build_graph(unsigned scale, uint64_t edges) {
    CsrGraph g = rmat_csr(scale, edges, seed_);
    root_ = rmat_root(g, seed_);
    rp_host_ = std::move(g.row_ptr);
    col_ = std::move(g.col);
  }
  void host_bfs() {
    host_level_.assign(nv_, -1);
    std::deque<uint32_t> q;
    host_level_[root_] = 0;
    q.push_back(static_cast<uint32_t>(root_));
    depth_ = 0;
    while (!q.empty()) {
      const uint32_t u = q.front();
      q.pop_front();
      for (uint32_t e = rp_host_[u]; e < rp_host_[u + 1]; ++e) {
        const uint32_t v = col_[e];
        if (host_level_[v] < 0) {
          host_level_[v] = host_level_[u] + 1;
          depth_ = std::max<int64_t>(depth_, host_level_[v]);
          q.push_back(v);
        }
      }
    }
  }

  // Per level L, per warp: steps 0-2, 10 and the exit (5); with an unvisited
  // lane steps 3-5 (3); with an unvisited lane of degree > 0 the scan loop:
  // I iterations of steps 6-9, I the last lane's (found at its first neighbour
  // on level L, step 8, or after its deg(v) neighbours, step 9), less step 9 of
  // iteration I when every lane still in it leaves at step 8.
  void count_warp_insts() const {
    // first_[v]: 1-based position of v's first neighbour on level(v) - 1.
    std::vector<uint32_t> first(nv_, 0);
    for (uint64_t v = 0; v < nv_; ++v)
      if (host_level_[v] > 0)
        for (uint32_t e = rp_host_[v]; e < rp_host_[v + 1]; ++e)
          if (host_level_[col_[e]] == host_level_[v] - 1) {
            first[v] = e - rp_host_[v] + 1;
            break;
          }
    warp_insts_.assign(static_cast<size_t>(depth_ + 1), 0);
    for (int64_t L = 0; L <= depth_; ++L) {
      uint64_t n = 0;
      for (uint64_t t0 = 0; t0 < nv_; t0 += kWarpSize) {
        bool unv = false;
        uint32_t iters = 0;
        bool step9_last = false;  // a lane leaves at step 9 of the last iteration
        for (uint64_t v = t0; v < std::min<uint64_t>(t0 + kWarpSize, nv_); ++v) {
          const int32_t lv = host_level_[v];
          if (lv >= 0 && lv <= L) continue;  // visited
          unv = true;
          const uint32_t deg = rp_host_[v + 1] - rp_host_[v];
          if (deg == 0) continue;
          const bool found = lv == L + 1;
          const uint32_t at = found ? first[v] : deg;
          if (at > iters) {
            iters = at;
            step9_last = !found;
          } else if (at == iters && !found) {
            step9_last = true;
          }
        }
        n += 5;
        if (unv) n += 3;
        if (iters) n += 4ull * iters - (step9_last ? 0 : 1);
      }
      warp_insts_[static_cast<size_t>(L)] = n;
    }
  }

  mutable std::vector<uint64_t> warp_insts_;  // per level, computed on first use
  uint64_t seed_, nv_ = 0, root_ = 0;
  int64_t depth_ = 0;
  std::vector<uint32_t> rp_host_, col_;
  std::vector<int32_t> host_level_;
  unsigned rp_ = 0, ci_ = 0, lv_[2] = {0, 0};
  unsigned launched_ = 0;
  bool done_ = false;
  BfsKernel k_;
};

}  // namespace

WorkloadInfo workload_bfs() {
  WorkloadInfo wi;
  wi.name = "bfs";
  wi.desc = "bottom-up level-synchronous BFS over a Graph500 R-MAT graph, CSR (footprint ~4(2 ef + 3) 2^scale bytes)";
  wi.knobs = {{"scale", "log2 of the vertex count", 16, 4, 24},
              {"edge_factor", "generated edges per vertex (stored twice, undirected)", 8, 1, 64}};
  wi.make = [wi](const std::map<std::string, int64_t>& k, uint64_t seed) -> std::unique_ptr<Program> {
    return std::make_unique<BfsProgram>(static_cast<unsigned>(knob(wi, k, "scale")),
                                        static_cast<unsigned>(knob(wi, k, "edge_factor")), seed);
  };
  return wi;
}

}  // namespace strata
