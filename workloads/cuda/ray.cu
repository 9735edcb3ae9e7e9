// ray: ray casting of a scene of axis-aligned boxes through a bounding volume hierarchy (GPGPU-Sim's
// RAY, which HAC and TOM run, traces rays through a BVH; the walk here is the depth-first stack walk of
// Aila and Laine, "Understanding the efficiency of ray traversal on GPUs", HPG 2009): one thread per
// pixel casts a primary ray, walks the BVH with a per-thread stack (near child first, subtrees pruned
// by the closest hit so far), then casts the ray reflected off the closest box and walks again. The
// BVH is built on the host by median splits along the longest axis, up to 4 boxes per leaf.
// Usage: ray [LOG2PRIMS [WIDTH [HEIGHT [SEED]]]]
#include <cuda_runtime.h>

#include "bench.h"

#define LEAF 4
#define STACK 64
#define TX 16
#define TY 16
#define NOHIT (-1)

struct node {
  float lo[3], hi[3];
  int left;   // inner node: index of the left child (the right is left + 1); leaf: first box
  int count;  // 0: inner node; otherwise the number of boxes of the leaf
  int axis;   // inner node: the split axis (the left child holds the lower box centres)
};

struct box {
  float lo[3], hi[3];
};

// slab test: the entry distance of the ray into the box, or a negative value for a miss
__host__ __device__ static inline float slab(const float* lo, const float* hi, const float* o, const float* inv,
                                             float tmax) {
  float t0 = 0.0f, t1 = tmax;
  for (int a = 0; a < 3; ++a) {
    float ta = (lo[a] - o[a]) * inv[a], tb = (hi[a] - o[a]) * inv[a];
    if (ta > tb) {
      float t = ta;
      ta = tb, tb = t;
    }
    t0 = ta > t0 ? ta : t0;
    t1 = tb < t1 ? tb : t1;
  }
  return t0 <= t1 ? t0 : -1.0f;
}

// closest box hit by the ray (o, d) in (0, tmax): its index, *t its distance; *visits counts nodes
__host__ __device__ static int walk(const struct node* nodes, const struct box* boxes, const float* o,
                                    const float* d, float* t, int* visits) {
  float inv[3];
  for (int a = 0; a < 3; ++a) inv[a] = 1.0f / (d[a] != 0.0f ? d[a] : 1e-20f);
  int stack[STACK], sp = 0, hit = NOHIT;
  float best = 1e30f;
  stack[sp++] = 0;
  while (sp) {
    const struct node* nd = &nodes[stack[--sp]];
    ++*visits;
    if (slab(nd->lo, nd->hi, o, inv, best) < 0.0f) continue;
    if (nd->count) {
      for (int i = nd->left; i < nd->left + nd->count; ++i) {
        float th = slab(boxes[i].lo, boxes[i].hi, o, inv, best);
        if (th > 1e-4f && th < best) best = th, hit = i;
      }
      continue;
    }
    // push the far child first, so that the near one (by the ray's direction along the split axis) is
    // walked first
    bool left_near = d[nd->axis] >= 0.0f;
    if (sp + 2 <= STACK) {
      stack[sp++] = left_near ? nd->left + 1 : nd->left;
      stack[sp++] = left_near ? nd->left : nd->left + 1;
    }
  }
  *t = best;
  return hit;
}

// the pixel's primary hit (box index + 1, 0 for none); *second gets the reflected ray's hit the same way
__host__ __device__ static int shade(const struct node* nodes, const struct box* boxes, int px, int py, int w,
                                     int h, int* visits, int* second) {
  float o[3] = {0.5f, 0.5f, -1.0f}, d[3] = {((float)px + 0.5f) / w - 0.5f, ((float)py + 0.5f) / h - 0.5f, 1.0f};
  float t;
  int first = walk(nodes, boxes, o, d, &t, visits);
  *second = 0;
  if (first == NOHIT) return 0;
  // reflect off the face that was hit: the axis whose slab gave the entry distance
  float p[3], r[3];
  int axis = 0;
  float bestgap = 1e30f;
  for (int a = 0; a < 3; ++a) {
    p[a] = fmaf(t, d[a], o[a]);  // fused on both sides, so host and GPU reflect alike
    float gap = fminf(fabsf(p[a] - boxes[first].lo[a]), fabsf(p[a] - boxes[first].hi[a]));
    if (gap < bestgap) bestgap = gap, axis = a;
  }
  for (int a = 0; a < 3; ++a) r[a] = a == axis ? -d[a] : d[a];
  *second = 1 + walk(nodes, boxes, p, r, &t, visits);
  return 1 + first;
}

__global__ void ray_render(const struct node* nodes, const struct box* boxes, int* image, int* visits, int w, int h) {
  int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
  if (x >= w || y >= h) return;
  int v = 0, second;
  image[2 * (y * w + x)] = shade(nodes, boxes, x, y, w, h, &v, &second);
  image[2 * (y * w + x) + 1] = second;
  visits[y * w + x] = v;
}

static struct box* g_boxes;
static int g_axis;
static int cmp_box(const void* a, const void* b) {
  const struct box *x = (const struct box*)a, *y = (const struct box*)b;
  float cx = x->lo[g_axis] + x->hi[g_axis], cy = y->lo[g_axis] + y->hi[g_axis];
  return cx < cy ? -1 : cx > cy;
}

// builds the subtree of boxes [first, first + count) into nodes[at]; *next is the next free node
static void build(struct node* nodes, int at, int first, int count, int* next) {
  struct node* nd = &nodes[at];
  for (int a = 0; a < 3; ++a) nd->lo[a] = 1e30f, nd->hi[a] = -1e30f;
  for (int i = first; i < first + count; ++i)
    for (int a = 0; a < 3; ++a) {
      nd->lo[a] = fminf(nd->lo[a], g_boxes[i].lo[a]);
      nd->hi[a] = fmaxf(nd->hi[a], g_boxes[i].hi[a]);
    }
  if (count <= LEAF) {
    nd->left = first, nd->count = count, nd->axis = 0;
    return;
  }
  g_axis = 0;
  for (int a = 1; a < 3; ++a)
    if (nd->hi[a] - nd->lo[a] > nd->hi[g_axis] - nd->lo[g_axis]) g_axis = a;
  qsort(g_boxes + first, count, sizeof(struct box), cmp_box);
  int l = *next;
  *next += 2;
  nd->left = l, nd->count = 0, nd->axis = g_axis;
  build(nodes, l, first, count / 2, next);
  build(nodes, l + 1, first + count / 2, count - count / 2, next);
}

int main(int argc, char** argv) {
  int log2prims = bench_arg(argc, argv, 1, 16, "LOG2PRIMS");
  int w = bench_arg(argc, argv, 2, 256, "WIDTH");
  int h = bench_arg(argc, argv, 3, 256, "HEIGHT");
  int seed = bench_arg(argc, argv, 4, 1, "SEED");
  if (log2prims > 24) {
    fprintf(stderr, "ray: LOG2PRIMS must be at most 24, got %d\n", log2prims);
    return 2;
  }
  int S = 1 << log2prims;
  uint64_t s = (uint64_t)seed;
  g_boxes = (struct box*)bench_alloc(S * sizeof(struct box));
  float size = 0.5f / cbrtf((float)S);
  for (int i = 0; i < S; ++i)
    for (int a = 0; a < 3; ++a) {
      float c = bench_unitf(&s), e = size * (0.25f + bench_unitf(&s));
      g_boxes[i].lo[a] = c - e, g_boxes[i].hi[a] = c + e;
    }
  int maxnodes = 2 * (S / LEAF + 1) * 2, used = 1;
  struct node* nodes = (struct node*)bench_alloc(maxnodes * sizeof(struct node));
  build(nodes, 0, 0, S, &used);
  struct node* d_nodes;
  struct box* d_boxes;
  int *d_image, *d_visits;
  BENCH_CUDA(cudaMalloc(&d_nodes, used * sizeof(struct node)));
  BENCH_CUDA(cudaMalloc(&d_boxes, S * sizeof(struct box)));
  BENCH_CUDA(cudaMalloc(&d_image, 2 * w * h * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_visits, w * h * sizeof(int)));
  cudaMemcpy(d_nodes, nodes, used * sizeof(struct node), cudaMemcpyHostToDevice);
  cudaMemcpy(d_boxes, g_boxes, S * sizeof(struct box), cudaMemcpyHostToDevice);
  dim3 block(TX, TY), grid((w + TX - 1) / TX, (h + TY - 1) / TY);
  ray_render<<<grid, block>>>(d_nodes, d_boxes, d_image, d_visits, w, h);
  BENCH_CUDA(cudaGetLastError());
  int* image = (int*)bench_alloc(2 * w * h * sizeof(int));
  int* visits = (int*)bench_alloc(w * h * sizeof(int));
  cudaMemcpy(image, d_image, 2 * w * h * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(visits, d_visits, w * h * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the same walk per pixel
  long long total = 0;
  int hits = 0, reflected = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v = 0, second, want = shade(nodes, g_boxes, x, y, w, h, &v, &second), at = y * w + x;
      if (image[2 * at] != want || image[2 * at + 1] != second || visits[at] != v) {
        printf("ray: pixel %d,%d shows boxes %d and %d after %d visits, expected %d and %d after %d\n", x, y,
               image[2 * at] - 1, image[2 * at + 1] - 1, visits[at], want - 1, second - 1, v);
        return 1;
      }
      total += v;
      hits += want != 0;
      reflected += second != 0;
    }
  printf("ray: %d boxes, %d BVH nodes, %dx%d pixels, %d hit, %d reflections hit, %.1f node visits per pixel: ok\n", S,
         used, w, h, hits, reflected, (double)total / (w * h));
  return 0;
}
