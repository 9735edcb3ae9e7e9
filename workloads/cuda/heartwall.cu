// heartwall: tracking of points through a sequence of frames by template matching (the problem of
// Rodinia's heartwall, which tracks the heart wall in ultrasound images; TOM's HW): every point has a
// TxT template cut from the first frame; in each following frame a block per point tries every offset
// of a (2R+1)^2 search window, one thread per template pixel adding its absolute difference into a
// per-offset sum in shared memory (shared-memory atomicAdd); thread 0 moves the point to the offset
// with the smallest sum. Positions are double-buffered between frames.
// Usage: heartwall [FRAMES [POINTS [SEED]]]   (frames of 256x256 pixels)
#include <cuda_runtime.h>

#include "bench.h"

#define W 256
#define H 256
#define T 16
#define R 2
#define OFFS ((2 * R + 1) * (2 * R + 1))

__global__ void track(const unsigned char* frame, const unsigned char* tmpl, const int* pos_in, int* pos_out) {
  __shared__ unsigned sad[OFFS];
  int p = blockIdx.x, t = threadIdx.x, tx = t % T, ty = t / T;
  if (t < OFFS) sad[t] = 0;
  __syncthreads();
  int px = pos_in[2 * p], py = pos_in[2 * p + 1];
  int ref = tmpl[p * T * T + t];
  for (int o = 0; o < OFFS; ++o) {
    int x = px + o % (2 * R + 1) - R + tx, y = py + o / (2 * R + 1) - R + ty;
    int v = frame[y * W + x];
    atomicAdd(&sad[o], (unsigned)abs(v - ref));
  }
  __syncthreads();
  if (t == 0) {
    int best = 0;
    for (int o = 1; o < OFFS; ++o)
      if (sad[o] < sad[best]) best = o;
    pos_out[2 * p] = px + best % (2 * R + 1) - R;
    pos_out[2 * p + 1] = py + best / (2 * R + 1) - R;
  }
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int main(int argc, char** argv) {
  int frames = bench_arg(argc, argv, 1, 20, "FRAMES");
  int points = bench_arg(argc, argv, 2, 64, "POINTS");
  int seed = bench_arg(argc, argv, 3, 1, "SEED");
  uint64_t s = (uint64_t)seed;
  // a textured image drifting by a seeded random walk of up to one pixel per frame
  unsigned char* base = (unsigned char*)bench_alloc(2 * W * 2 * H);
  for (int i = 0; i < 4 * W * H; ++i) base[i] = (unsigned char)bench_below(&s, 256);
  for (int pass = 0; pass < 2; ++pass)  // smooth it a little so that matches are unique but not exact
    for (int y = 1; y < 2 * H - 1; ++y)
      for (int x = 1; x < 2 * W - 1; ++x)
        base[y * 2 * W + x] = (unsigned char)((base[y * 2 * W + x] * 2 + base[y * 2 * W + x - 1] + base[(y - 1) * 2 * W + x]) / 4);
  unsigned char* video = (unsigned char*)bench_alloc((size_t)frames * W * H);
  int ox = W / 2, oy = H / 2;
  for (int f = 0; f < frames; ++f) {
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        video[((size_t)f * H + y) * W + x] = (unsigned char)(base[(y + oy) * 2 * W + x + ox] + bench_below(&s, 8));
    ox = clampi(ox + (int)bench_below(&s, 3) - 1, 1, W - 1);
    oy = clampi(oy + (int)bench_below(&s, 3) - 1, 1, H - 1);
  }
  // points on a grid away from the border (room for the drift and the search window)
  int margin = R * frames + T + R, span = W - 2 * margin;
  if (span < 1) {
    fprintf(stderr, "heartwall: %d frames leave no room for points in %dx%d frames\n", frames, W, H);
    return 2;
  }
  int* pos = (int*)bench_alloc(2 * points * sizeof(int));
  unsigned char* tmpl = (unsigned char*)bench_alloc((size_t)points * T * T);
  for (int p = 0; p < points; ++p) {
    pos[2 * p] = margin + (int)bench_below(&s, (unsigned)span);
    pos[2 * p + 1] = margin + (int)bench_below(&s, (unsigned)span);
    for (int t = 0; t < T * T; ++t) tmpl[p * T * T + t] = video[(pos[2 * p + 1] + t / T) * W + pos[2 * p] + t % T];
  }
  unsigned char *d_video, *d_tmpl;
  int* d_pos[2];
  BENCH_CUDA(cudaMalloc(&d_video, (size_t)frames * W * H));
  BENCH_CUDA(cudaMalloc(&d_tmpl, (size_t)points * T * T));
  BENCH_CUDA(cudaMalloc(&d_pos[0], 2 * points * sizeof(int)));
  BENCH_CUDA(cudaMalloc(&d_pos[1], 2 * points * sizeof(int)));
  cudaMemcpy(d_video, video, (size_t)frames * W * H, cudaMemcpyHostToDevice);
  cudaMemcpy(d_tmpl, tmpl, (size_t)points * T * T, cudaMemcpyHostToDevice);
  cudaMemcpy(d_pos[0], pos, 2 * points * sizeof(int), cudaMemcpyHostToDevice);
  for (int f = 1; f < frames; ++f)
    track<<<points, T * T>>>(d_video + (size_t)f * W * H, d_tmpl, d_pos[(f - 1) & 1], d_pos[f & 1]);
  BENCH_CUDA(cudaGetLastError());
  int* got = (int*)bench_alloc(2 * points * sizeof(int));
  cudaMemcpy(got, d_pos[(frames - 1) & 1], 2 * points * sizeof(int), cudaMemcpyDeviceToHost);

  // CPU reference: the same search, frame by frame
  int moved = 0;
  for (int p = 0; p < points; ++p) {
    int px = pos[2 * p], py = pos[2 * p + 1];
    for (int f = 1; f < frames; ++f) {
      const unsigned char* fr = video + (size_t)f * W * H;
      unsigned bestsad = ~0u;
      int bx = px, by = py;
      for (int o = 0; o < OFFS; ++o) {
        int dx = o % (2 * R + 1) - R, dy = o / (2 * R + 1) - R;
        unsigned sum = 0;
        for (int t = 0; t < T * T; ++t)
          sum += (unsigned)abs(fr[(py + dy + t / T) * W + px + dx + t % T] - tmpl[p * T * T + t]);
        if (sum < bestsad) bestsad = sum, bx = px + dx, by = py + dy;
      }
      px = bx, py = by;
    }
    if (got[2 * p] != px || got[2 * p + 1] != py) {
      printf("heartwall: point %d ends at %d,%d, expected %d,%d\n", p, got[2 * p], got[2 * p + 1], px, py);
      return 1;
    }
    moved += px != pos[2 * p] || py != pos[2 * p + 1];
  }
  printf("heartwall: %d frames, %d points, %d moved: ok\n", frames, points, moved);
  return 0;
}
