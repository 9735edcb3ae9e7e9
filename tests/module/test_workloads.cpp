// Workload tests: every built-in program's footprint and read/write byte counts
// equal their analytic formulas (docs/gpu_and_workloads.md), results verify,
// BFS levels equal an independent host BFS, runs are deterministic per seed,
// and verify() notices corrupted results.
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <systemc>
#include <vector>

#include "workloads/functional.h"
#include "workloads/registry.h"

using namespace strata;

#include "tests/common/expect.h"

struct Run {
  std::unique_ptr<Program> prog;
  bstore golden{}, device{};
  FuncCounts fc;
  Run(const std::string& name, const std::map<std::string, int64_t>& knobs, uint64_t seed) {
    bstore_init(&golden);
    bstore_init(&device);
    prog = find_workload(name)->make(knobs, seed);
    prog->init(&golden, &device);
  }
  ~Run() {
    bstore_free(&golden);
    bstore_free(&device);
  }
  const ArrayInfo& arr(const char* n) { return prog->array(static_cast<unsigned>(prog->find_array(n))); }
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

static void test_registry() {
  EXPECT(find_workload("stream") && find_workload("stencil2d") && find_workload("random") && find_workload("bfs"));
  EXPECT(find_workload("nope") == nullptr);
  for (const WorkloadInfo& w : workload_registry()) {
    EXPECT(!w.desc.empty());
    for (const KnobSpec& k : w.knobs) EXPECT(k.min <= k.def && k.def <= k.max && !k.desc.empty());
  }
  bool threw = false;
  try {
    find_workload("random")->make({{"table_words", 64}, {"updates", 65}}, 1);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  EXPECT(threw);
}

static void test_stream() {
  const uint64_t n = 5000;  // not a multiple of the CTA size: tail warps are partial
  Run r("stream", {{"n", n}}, 7);
  EXPECT_EQ(r.prog->footprint_bytes(), 12 * n);
  // device memory got the same initial data as golden
  std::vector<uint32_t> g(n), d(n);
  bstore_read(&r.golden, r.arr("a").base, g.data(), 4 * n);
  bstore_read(&r.device, r.arr("a").base, d.data(), 4 * n);
  EXPECT(g == d);
  r.fc = run_functional(*r.prog);
  EXPECT_EQ(r.fc.kernels, 1u);
  EXPECT_EQ(r.fc.load_bytes, 8 * n);
  EXPECT_EQ(r.fc.store_bytes, 4 * n);
  const uint64_t warps = (n + 255) / 256 * 8;
  EXPECT_EQ(r.fc.warps, warps);
  EXPECT_EQ(r.fc.warp_insts, 6 * warps);
  std::string why;
  EXPECT(r.prog->verify(&r.golden, &why));
  // corrupt one element of c: verify must notice
  const uint32_t bad = 12345;
  bstore_write(&r.golden, r.arr("c").base + 4 * 4321, &bad, 4);
  EXPECT(!r.prog->verify(&r.golden, &why));
  EXPECT(why.find("c[4321]") != std::string::npos);
}

static void test_stencil() {
  const uint64_t nx = 70, ny = 33, it = 3;
  Run r("stencil2d", {{"nx", nx}, {"ny", ny}, {"iters", it}}, 3);
  EXPECT_EQ(r.prog->footprint_bytes(), 8 * nx * ny);
  r.fc = run_functional(*r.prog);
  EXPECT_EQ(r.fc.kernels, it);
  EXPECT_EQ(r.fc.load_bytes, it * (4 * nx * ny + 16 * (nx - 2) * (ny - 2)));
  EXPECT_EQ(r.fc.store_bytes, it * 4 * nx * ny);
  std::string why;
  EXPECT(r.prog->verify(&r.golden, &why));
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  // the result lives in grid1 after an odd number of sweeps; grid0 holds sweep 2
  float f = 0;
  bstore_read(&r.golden, r.arr("grid1").base + 4 * (nx * 5 + 5), &f, 4);
  EXPECT(f > 0.0f && f < 1.0f);
  f += 1.0f;
  bstore_write(&r.golden, r.arr("grid1").base + 4 * (nx * 5 + 5), &f, 4);
  EXPECT(!r.prog->verify(&r.golden, &why));
}

static void test_random() {
  // the permutation is a bijection for sizes that are and are not powers of two
  for (uint64_t n : {64ull, 1000ull, 4097ull}) {
    std::set<uint64_t> seen;
    for (uint64_t i = 0; i < n; ++i) seen.insert(random_workload_perm(n, 5, i));
    EXPECT_EQ(seen.size(), n);
    EXPECT(*seen.rbegin() == n - 1);
  }
  const uint64_t words = 3000, upd = 2500;
  Run r("random", {{"table_words", words}, {"updates", upd}}, 11);
  EXPECT_EQ(r.prog->footprint_bytes(), 8 * words);
  r.fc = run_functional(*r.prog);
  EXPECT_EQ(r.fc.load_bytes, 8 * upd);
  EXPECT_EQ(r.fc.store_bytes, 8 * upd);
  std::string why;
  EXPECT(r.prog->verify(&r.golden, &why));
  // exactly `upd` words changed
  Run r0("random", {{"table_words", words}, {"updates", upd}}, 11);
  std::vector<uint64_t> a(words), b(words);
  bstore_read(&r.golden, r.arr("table").base, a.data(), 8 * words);
  bstore_read(&r0.golden, r0.arr("table").base, b.data(), 8 * words);
  uint64_t changed = 0;
  for (uint64_t j = 0; j < words; ++j) changed += a[j] != b[j];
  EXPECT_EQ(changed, upd);
}

static void test_bfs() {
  const unsigned scale = 10, ef = 8;
  Run r("bfs", {{"scale", scale}, {"edge_factor", ef}}, 99);
  const uint64_t V = 1u << scale;
  std::vector<uint32_t> rp(V + 1);
  bstore_read(&r.golden, r.arr("row_ptr").base, rp.data(), 4 * (V + 1));
  const uint64_t nnz = rp[V];
  EXPECT(nnz > V && nnz <= 2ull * ef * V);
  EXPECT_EQ(r.prog->footprint_bytes(), 4 * (V + 1) + 4 * nnz + 8 * V);
  std::vector<uint32_t> col(nnz);
  bstore_read(&r.golden, r.arr("col_idx").base, col.data(), 4 * nnz);
  std::vector<int32_t> l0(V);
  bstore_read(&r.golden, r.arr("level0").base, l0.data(), 4 * V);
  uint64_t root = V;
  for (uint64_t v = 0; v < V; ++v)
    if (l0[v] == 0) {
      EXPECT(root == V);
      root = v;
    } else {
      EXPECT(l0[v] == -1);
    }
  EXPECT(root < V);
  // independent host BFS
  std::vector<int32_t> lev(V, -1);
  std::deque<uint64_t> q{root};
  lev[root] = 0;
  int32_t depth = 0;
  while (!q.empty()) {
    const uint64_t u = q.front();
    q.pop_front();
    for (uint32_t e = rp[u]; e < rp[u + 1]; ++e)
      if (lev[col[e]] < 0) {
        lev[col[e]] = lev[u] + 1;
        depth = std::max(depth, lev[col[e]]);
        q.push_back(col[e]);
      }
  }
  EXPECT(depth >= 3);
  // analytic traffic of the bottom-up kernels L = 0..depth
  uint64_t rd = 0, wr = 0;
  for (int32_t L = 0; L <= depth; ++L) {
    rd += 4 * V;
    wr += 4 * V;
    for (uint64_t v = 0; v < V; ++v) {
      if (lev[v] >= 0 && lev[v] <= L) continue;  // visited before this level
      rd += 8;
      uint64_t scanned = 0;
      for (uint32_t e = rp[v]; e < rp[v + 1]; ++e) {
        ++scanned;
        if (lev[col[e]] == L) break;
      }
      rd += 8 * scanned;
    }
  }
  // Warp instructions per kernel, counted by the functional driver, equal the
  // program's estimates for progress reports (ProgramIf::kernel_warp_insts).
  struct PerKernel : FuncObserver {
    std::vector<uint64_t> insts;
    void kernel_begin(const Kernel&) override { insts.push_back(0); }
    void inst(const WarpInst&) override { ++insts.back(); }
  } per;
  r.fc = run_functional(*r.prog, &per);
  EXPECT_EQ(r.prog->kernels_estimate(), static_cast<unsigned>(depth) + 1);
  EXPECT_EQ(per.insts.size(), static_cast<size_t>(depth) + 1);
  for (size_t k = 0; k < per.insts.size(); ++k) EXPECT_EQ(r.prog->kernel_warp_insts(static_cast<unsigned>(k)), per.insts[k]);
  EXPECT_EQ(r.prog->kernel_warp_insts(static_cast<unsigned>(depth) + 1), 0u);
  EXPECT_EQ(r.fc.kernels, static_cast<uint64_t>(depth) + 1);
  EXPECT_EQ(r.fc.load_bytes, rd);
  EXPECT_EQ(r.fc.store_bytes, wr);
  std::string why;
  EXPECT(r.prog->verify(&r.golden, &why));
  if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
  std::vector<int32_t> fin(V);
  const char* final_arr = (depth + 1) % 2 ? "level1" : "level0";
  bstore_read(&r.golden, r.arr(final_arr).base, fin.data(), 4 * V);
  EXPECT(fin == lev);
  // a wrong level is caught
  const int32_t bad = 77;
  bstore_write(&r.golden, r.arr(final_arr).base + 4 * root, &bad, 4);
  EXPECT(!r.prog->verify(&r.golden, &why));
}

static void test_determinism() {
  for (const char* name : {"stream", "stencil2d", "random", "bfs"}) {
    std::map<std::string, int64_t> k;
    if (std::string(name) == "stream") k = {{"n", 3000}};
    if (std::string(name) == "stencil2d") k = {{"nx", 40}, {"ny", 40}, {"iters", 2}};
    if (std::string(name) == "random") k = {{"table_words", 2048}, {"updates", 1000}};
    if (std::string(name) == "bfs") k = {{"scale", 9}, {"edge_factor", 4}};
    Run a(name, k, 5), b(name, k, 5), c(name, k, 6);
    a.fc = run_functional(*a.prog);
    b.fc = run_functional(*b.prog);
    c.fc = run_functional(*c.prog);
    EXPECT_EQ(a.hash_arrays(), b.hash_arrays());
    EXPECT_EQ(a.fc.thread_insts, b.fc.thread_insts);
    EXPECT(a.hash_arrays() != c.hash_arrays());
  }
}

int sc_main(int, char**) {
  test_registry();
  test_stream();
  test_stencil();
  test_random();
  test_bfs();
  test_determinism();
  if (failures) {
    std::fprintf(stderr, "test_workloads: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("test_workloads: all passed\n");
  return 0;
}
