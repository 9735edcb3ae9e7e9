// barneshut: gravitational N-body simulation with the Barnes-Hut approximation (Barnes and Hut,
// "A hierarchical O(N log N) force-calculation algorithm", Nature 1986; the kernel structure of
// Burtscher and Pingali's GPU implementation, which HAC runs as BH): per time step the host builds an
// octree of the bodies (cells numbered level by level after the N bodies), bh_summarize computes the
// mass and centre of mass of the cells one level per launch, deepest first, bh_force walks the tree
// for every body with a per-thread stack, opening a cell when it is larger than THETA times its
// distance, and bh_integrate advances velocities and positions. Every multiply-add of the shared
// host/GPU code is an explicit fmaf, so that host and GPU round alike and open the same cells.
// Usage: barneshut [BODIES [STEPS [SEED]]]
#include <cuda_runtime.h>

#include "bench.h"

#define THREADS 128
#define STACK 128
#define THETA2 0.25f  // THETA = 0.5
#define EPS2 1e-4f
#define DT 0.01f
#define MAXDEPTH 24

// node i < n: body i; node n + c: cell c. child[8 c + k] = node or -1.
__host__ __device__ static void summarize_cell(int c, int n, const int* child, float* mass, float* px, float* py,
                                               float* pz) {
  float m = 0.0f, x = 0.0f, y = 0.0f, z = 0.0f;
  for (int k = 0; k < 8; ++k) {
    int ch = child[8 * c + k];
    if (ch < 0) continue;
    float cm = mass[ch];
    m += cm;
    x = fmaf(cm, px[ch], x);
    y = fmaf(cm, py[ch], y);
    z = fmaf(cm, pz[ch], z);
  }
  mass[n + c] = m;
  px[n + c] = x / m, py[n + c] = y / m, pz[n + c] = z / m;
}

__host__ __device__ static void body_force(int b, int n, const int* child, const float* mass, const float* px,
                                           const float* py, const float* pz, const float* size2, float* ax,
                                           float* ay, float* az) {
  int stack[STACK], sp = 0;
  float x = px[b], y = py[b], z = pz[b], fx = 0.0f, fy = 0.0f, fz = 0.0f;
  stack[sp++] = n;  // the root cell
  while (sp) {
    int nd = stack[--sp];
    float dx = px[nd] - x, dy = py[nd] - y, dz = pz[nd] - z;
    float d2 = fmaf(dz, dz, fmaf(dy, dy, dx * dx));
    if (nd >= n && size2[nd - n] >= THETA2 * d2) {  // too close: open the cell
      for (int k = 0; k < 8; ++k) {
        int ch = child[8 * (nd - n) + k];
        if (ch >= 0 && sp < STACK) stack[sp++] = ch;
      }
      continue;
    }
    if (nd == b) continue;
    float r2 = d2 + EPS2, inv = 1.0f / sqrtf(r2), s = mass[nd] * inv * inv * inv;
    fx = fmaf(dx, s, fx);
    fy = fmaf(dy, s, fy);
    fz = fmaf(dz, s, fz);
  }
  ax[b] = fx, ay[b] = fy, az[b] = fz;
}

__global__ void bh_summarize(const int* child, float* mass, float* px, float* py, float* pz, int n, int first,
                             int last) {
  int c = first + blockIdx.x * THREADS + threadIdx.x;
  if (c < last) summarize_cell(c, n, child, mass, px, py, pz);
}

__global__ void bh_force(const int* child, const float* mass, const float* px, const float* py, const float* pz,
                         const float* size2, float* ax, float* ay, float* az, int n) {
  int b = blockIdx.x * THREADS + threadIdx.x;
  if (b < n) body_force(b, n, child, mass, px, py, pz, size2, ax, ay, az);
}

__global__ void bh_integrate(float* px, float* py, float* pz, float* vx, float* vy, float* vz, const float* ax,
                             const float* ay, const float* az, int n) {
  int b = blockIdx.x * THREADS + threadIdx.x;
  if (b >= n) return;
  vx[b] = fmaf(ax[b], DT, vx[b]), vy[b] = fmaf(ay[b], DT, vy[b]), vz[b] = fmaf(az[b], DT, vz[b]);
  px[b] = fmaf(vx[b], DT, px[b]), py[b] = fmaf(vy[b], DT, py[b]), pz[b] = fmaf(vz[b], DT, pz[b]);
}

// The octree of the bodies' positions, built on the host: cells numbered level by level (level_start
// has the first cell of every level, deepest last); size2 the squared edge of every cell.
struct tree {
  int cells, levels, cap;
  int* child;
  float* size2;
  int level_start[MAXDEPTH + 2];
};

static void build_tree(struct tree* t, int n, const float* px, const float* py, const float* pz) {
  float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
  for (int b = 0; b < n; ++b) {
    float p[3] = {px[b], py[b], pz[b]};
    for (int a = 0; a < 3; ++a) lo[a] = fminf(lo[a], p[a]), hi[a] = fmaxf(hi[a], p[a]);
  }
  float edge = fmaxf(fmaxf(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]) * 1.0001f + 1e-6f;
  // breadth-first: each cell of the current level gets the bodies inside its box
  int* cur = (int*)bench_alloc(n * sizeof(int));
  int* nxt = (int*)bench_alloc(n * sizeof(int));
  int *seg = (int*)bench_alloc(4 * (size_t)t->cap * sizeof(int)), *nseg = seg + 2 * (size_t)t->cap;
  float* corner = (float*)bench_alloc(3 * (size_t)t->cap * sizeof(float));
  float* ncorner = (float*)bench_alloc(3 * (size_t)t->cap * sizeof(float));
  for (int b = 0; b < n; ++b) cur[b] = b;
  int nsegs = 1;
  seg[0] = 0, seg[1] = n;  // cell 0 holds bodies cur[0..n)
  memcpy(corner, lo, sizeof lo);
  t->cells = 0, t->levels = 0;
  float e = edge;
  while (nsegs && t->levels <= MAXDEPTH) {
    t->level_start[t->levels++] = t->cells;
    int base = t->cells, made = 0, fill = 0;
    t->cells += nsegs;
    if (t->cells > t->cap) {
      fprintf(stderr, "barneshut: the octree needs more than %d cells\n", t->cap);
      exit(2);
    }
    for (int s = 0; s < nsegs; ++s) {
      int c = base + s;
      t->size2[c] = e * e;
      float h = e * 0.5f, *cc = corner + 3 * s;
      int cnt[8] = {0}, start[8];
      for (int i = seg[2 * s]; i < seg[2 * s + 1]; ++i) {
        int b = cur[i];
        int k = (px[b] >= cc[0] + h) | (py[b] >= cc[1] + h) << 1 | (pz[b] >= cc[2] + h) << 2;
        ++cnt[k];
      }
      for (int k = 0, at = fill; k < 8; ++k) start[k] = at, at += cnt[k];
      for (int i = seg[2 * s]; i < seg[2 * s + 1]; ++i) {
        int b = cur[i];
        int k = (px[b] >= cc[0] + h) | (py[b] >= cc[1] + h) << 1 | (pz[b] >= cc[2] + h) << 2;
        nxt[start[k]++] = b;
      }
      for (int k = 0; k < 8; ++k) {
        int first = start[k] - cnt[k];
        if (cnt[k] == 0) {
          t->child[8 * c + k] = -1;
        } else if (cnt[k] == 1 || t->levels > MAXDEPTH) {
          t->child[8 * c + k] = nxt[first];  // a body (coincident bodies at the depth limit: the first)
        } else {
          t->child[8 * c + k] = n + t->cells + made;  // a cell of the next level
          nseg[2 * made] = first, nseg[2 * made + 1] = first + cnt[k];
          float* nc = ncorner + 3 * made;
          nc[0] = cc[0] + ((k & 1) ? h : 0), nc[1] = cc[1] + ((k & 2) ? h : 0), nc[2] = cc[2] + ((k & 4) ? h : 0);
          ++made;
        }
      }
      fill += seg[2 * s + 1] - seg[2 * s];
    }
    // the children's bodies are in nxt in segment order: make it the current order
    int* tmp = cur;
    cur = nxt, nxt = tmp;
    int* ts = seg;
    seg = nseg, nseg = ts;
    float* tc = corner;
    corner = ncorner, ncorner = tc;
    nsegs = made;
    e *= 0.5f;
  }
  t->level_start[t->levels] = t->cells;
  free(cur), free(nxt), free(seg < nseg ? seg : nseg), free(corner), free(ncorner);
}

int main(int argc, char** argv) {
  int n = bench_arg(argc, argv, 1, 4096, "BODIES");
  int steps = bench_arg(argc, argv, 2, 2, "STEPS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  struct tree t;
  t.cap = 2 * n + 64;                  // cells (a uniform ball needs about n / 2)
  size_t nodes = (size_t)n + t.cap;
  float *h[10], *ref[10];             // px py pz vx vy vz mass ax ay az
  for (int a = 0; a < 10; ++a) h[a] = (float*)bench_alloc(nodes * sizeof(float)), ref[a] = (float*)bench_alloc(nodes * sizeof(float));
  for (int b = 0; b < n; ++b) {  // a uniform ball at rest, masses summing to 1
    float x, y, z;
    do x = 2 * bench_unitf(&s) - 1, y = 2 * bench_unitf(&s) - 1, z = 2 * bench_unitf(&s) - 1;
    while (x * x + y * y + z * z > 1.0f);
    h[0][b] = x, h[1][b] = y, h[2][b] = z, h[6][b] = 1.0f / n;
  }
  for (int a = 0; a < 10; ++a) memcpy(ref[a], h[a], nodes * sizeof(float));
  t.child = (int*)bench_alloc(8 * (size_t)t.cap * sizeof(int));
  t.size2 = (float*)bench_alloc(t.cap * sizeof(float));
  float* d[10];
  int* d_child;
  float* d_size2;
  for (int a = 0; a < 10; ++a) BENCH_CUDA(cudaMalloc(&d[a], nodes * sizeof(float)));
  BENCH_CUDA(cudaMalloc(&d_child, 8 * (size_t)t.cap * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_size2, t.cap * sizeof(float)));
  for (int a = 0; a < 7; ++a) cudaMemcpy(d[a], h[a], nodes * sizeof(float), cudaMemcpyHostToDevice);
  int grid = (n + THREADS - 1) / THREADS, launches = 0, cells = 0;
  for (int st = 0; st < steps; ++st) {
    for (int a = 0; a < 3; ++a) cudaMemcpy(h[a], d[a], n * sizeof(float), cudaMemcpyDeviceToHost);
    build_tree(&t, n, h[0], h[1], h[2]);
    cells = t.cells;
    cudaMemcpy(d_child, t.child, 8 * (size_t)t.cells * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_size2, t.size2, t.cells * sizeof(float), cudaMemcpyHostToDevice);
    for (int l = t.levels - 1; l >= 0; --l, ++launches) {
      int first = t.level_start[l], last = t.level_start[l + 1];
      bh_summarize<<<(last - first + THREADS - 1) / THREADS, THREADS>>>(d_child, d[6], d[0], d[1], d[2], n, first, last);
    }
    bh_force<<<grid, THREADS>>>(d_child, d[6], d[0], d[1], d[2], d_size2, d[7], d[8], d[9], n);
    bh_integrate<<<grid, THREADS>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[7], d[8], d[9], n);
    launches += 2;
  }
  BENCH_CUDA(cudaGetLastError());
  for (int a = 0; a < 6; ++a) cudaMemcpy(h[a], d[a], n * sizeof(float), cudaMemcpyDeviceToHost);

  // CPU reference: the same steps with the same tree, summaries, walk and integration
  for (int st = 0; st < steps; ++st) {
    build_tree(&t, n, ref[0], ref[1], ref[2]);
    for (int l = t.levels - 1; l >= 0; --l)
      for (int c = t.level_start[l]; c < t.level_start[l + 1]; ++c) summarize_cell(c, n, t.child, ref[6], ref[0], ref[1], ref[2]);
    for (int b = 0; b < n; ++b) body_force(b, n, t.child, ref[6], ref[0], ref[1], ref[2], t.size2, ref[7], ref[8], ref[9]);
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < 3; ++a) {
        ref[3 + a][b] = fmaf(ref[7 + a][b], DT, ref[3 + a][b]);
        ref[a][b] = fmaf(ref[3 + a][b], DT, ref[a][b]);
      }
  }
  double ke = 0;
  for (int b = 0; b < n; ++b) {
    for (int a = 0; a < 6; ++a)
      if (!bench_close(h[a][b], ref[a][b], 1e-5)) {
        printf("barneshut: body %d %s %c is %g, expected %g\n", b, a < 3 ? "position" : "velocity", "xyz"[a % 3],
               h[a][b], ref[a][b]);
        return 1;
      }
    ke += 0.5 / n * ((double)ref[3][b] * ref[3][b] + (double)ref[4][b] * ref[4][b] + (double)ref[5][b] * ref[5][b]);
  }
  printf("barneshut: %d bodies, %d steps, %d cells, %d launches, kinetic energy %.6g: ok\n", n, steps, cells, launches, ke);
  return 0;
}
