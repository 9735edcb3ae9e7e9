// Kernel library, pattern "dense": dense layers and matrices, where every
// thread combines a row or window of one array with weights that a whole CTA
// (or the whole grid) reads alike, so loads are a mix of coalesced rows,
// broadcasts (one address for every lane) and short strided windows
// (docs/workload_library.md has every row's arrays, kernels and formulas).
//
// Rows (paper, table):
//   backprop   Rodinia backprop: one training step of an n-16-1 network, 16x16
//              CTAs over the 17-word-wide weight matrix, layer-forward (reads
//              and writes the weights), hidden step, weight adjust   HMS (bckprp); TOM Table 2 (BP)
//   neuralnet  GPGPU-Sim ISPASS'09 "NN" convolutional network: 4 layer kernels
//              per image batch, 13x13 / 5x5 / 1-thread CTAs, weights shared
//              by all images (broadcast loads)                   HAC Table II (NN)
//   gaussian   Rodinia gaussian: Fan1 and Fan2 (4x4 CTAs over the whole
//              matrix) per pivot row, 2(n-1) small kernels       hybrid graphics Table 2 (GS)
// Arithmetic is 32-bit unsigned and wraps: only the memory behaviour is the
// benchmark's; the values are real, seeded, and checked against host loops.
#include <algorithm>

#include "lib_core.h"

namespace strata {
namespace {
using namespace lib;
using Knobs = std::map<std::string, int64_t>;
inline uint64_t K(const Knobs& k, const char* n) { return static_cast<uint64_t>(k.at(n)); }

// ---------------------------------------------------------------- backprop
// Rodinia backprop (backprop_cuda_kernel.cu), n = 16 B input units, 16 hidden
// units; weights are (n + 1) x 17 words (row = input unit, column = hidden
// unit, row 0 and column 0 are the biases). CTA = 16 x 16 threads (tx = hidden
// column, ty = input row), one CTA per block `by` of 16 input rows, so a warp
// reads two 64 B runs 68 B apart (2-3 lines).
//   bpnn_layerforward: thread (tx, ty) of block by: tx == 0 loads its input
//     unit (input_node[ty] in shared memory); every thread loads weight
//     w[R][C] (R = 16 by + ty + 1, C = tx + 1), multiplies it by the input and,
//     as Rodinia does, stores the product back into the weight matrix; after
//     the 4-step shared-memory column reduction thread (0, ty) stores the sum
//     of column ty + 1 over the block's rows to partial_sum[16 by + ty].
//   bpnn_hidden (1 CTA): what Rodinia does on the host between its two kernels
//     (sums the partial sums, hidden and output layer, errors) so that the
//     deltas come from device data: grid-stride loads of partial_sum, then
//     threads 0..16 store hidden_delta[j] = bp_delta(sum of column j).
//   bpnn_adjust_weights: thread (tx, ty) loads delta[C], input[R], oldw[R][C],
//     w[R][C]; dw = delta[C] input[R] + oldw[R][C] / 2 (eta, momentum); stores
//     w += dw and oldw = dw; threads ty == 0 of block 0 then update the bias
//     row (2 loads, 2 stores each).
constexpr uint64_t kBpW = 17;  // hidden + 1
inline uint32_t bp_delta(uint32_t s) { return ((s >> 5) ^ s) & 0xff; }
Row row_backprop() {
  Row r;
  r.name = "backprop";
  r.desc = "one backpropagation training step of an n-16 network over a 17-wide weight matrix (Rodinia backprop; HMS, TOM Table 2 BP)";
  r.knobs = {{"blocks", "16-input blocks B (input units n = 16 B)", 4096, 1, int64_t(1) << 22}};
  r.size_knob = "blocks";
  r.footprint = [](const Knobs& k) {
    const uint64_t B = K(k, "blocks");
    return 4 * (16 * B + 1) * (1 + 2 * kBpW) + 64 * B + 4 * kBpW;
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t B = K(k, "blocks"), n = 16 * B;
    auto p = std::make_unique<LibProgram>("backprop", seed);
    auto in_init = [seed](uint64_t i) { return i ? hash32(seed, 60, i) & 0xff : 1u; };
    auto w_init = [seed](uint64_t i) { return hash32(seed, 61, i) & 0xffff; };
    const unsigned inp = p->words("input_units", n + 1, in_init);
    const unsigned wt = p->words("input_weights", (n + 1) * kBpW, w_init);
    const unsigned pw = p->words("input_prev_weights", (n + 1) * kBpW);  // zero, as bpnn_zero_weights
    const unsigned ps = p->words("partial_sum", 16 * B);
    const unsigned hd = p->words("hidden_delta", kBpW);
    LibProgram* P = p.get();
    p->estimate = 3;
    // Offload block: the weight update of bpnn_adjust_weights (live-in the
    // thread index, live-out the delta the bias-row threads reuse). The
    // forward kernel's loads feed shared-memory reductions between barriers.
    p->offload_blocks("bpnn_adjust_weights", {straight_block("adjust", 1, 1, 4, 2, 4)});
    auto csum = std::make_shared<Memo<std::vector<uint32_t>>>();  // per block: its 16 column sums (shared memory)
    auto hsum = std::make_shared<Memo<std::vector<uint32_t>>>();  // column sums over all blocks
    // Column sum of block `by` (the shared-memory reduction of layerforward):
    // computed from the initial weights, which are what the threads loaded
    // (golden memory already holds the products some threads stored).
    auto block_sums = [=](uint64_t by) {
      std::vector<uint32_t> s(16, 0);
      for (uint64_t rr = 0; rr < 16; ++rr) {
        const uint64_t R = 16 * by + rr + 1;
        for (uint64_t c = 0; c < 16; ++c) s[c] += w_init(R * kBpW + c + 1) * in_init(R);
      }
      return s;
    };
    p->schedule = [=](unsigned kk, Launch& l) {
      const uint64_t bi = P->base(inp), bw = P->base(wt), bpw = P->base(pw), bps = P->base(ps), bh = P->base(hd);
      csum->clear();
      hsum->clear();
      if (kk == 0) {
        l = {"bpnn_layerforward", 256 * B, 8, {inp, wt}, {wt, ps}, [=](uint64_t tid, Thread& t) {
               const uint64_t by = tid / 256, ty = tid % 256 / 16, tx = tid % 16;
               const uint64_t R = 16 * by + ty + 1, idx = R * kBpW + tx + 1;
               if (tx == 0) t.ld(bi + 4 * R);
               t.barrier();
               const uint32_t w = t.ld(bw + 4 * idx);
               t.barrier();
               t.alu();
               const uint32_t prod = w * t.peek(bi + 4 * R);
               t.barrier();
               for (int s = 0; s < 4; ++s) {  // log2(16) reduction steps
                 t.alu(2);
                 t.barrier();
               }
               t.st(bw + 4 * idx, prod);
               t.barrier();
               if (tx == 0) t.st(bps + 4 * (16 * by + ty), csum->get(by, [&] { return block_sums(by); })[ty]);
             }};
      } else if (kk == 1) {
        l = {"bpnn_hidden", 256, 8, {ps}, {hd}, [=](uint64_t tid, Thread& t) {
               for (uint64_t i = tid; i < 16 * B; i += 256) {
                 t.ld(bps + 4 * i);
                 t.alu();
               }
               t.barrier();
               if (tid < kBpW) {
                 const std::vector<uint32_t>& s = hsum->get(0, [&] {
                   std::vector<uint32_t> v(16, 0);
                   for (uint64_t i = 0; i < 16 * B; ++i) v[i % 16] += t.peek(bps + 4 * i);
                   return v;
                 });
                 t.alu(16);
                 t.sfu(2);  // squash
                 t.st(bh + 4 * tid, tid ? bp_delta(s[tid - 1]) : 0u);
               }
             }};
      } else if (kk == 2) {
        l = {"bpnn_adjust_weights", 256 * B, 8, {hd, inp, wt, pw}, {wt, pw}, [=](uint64_t tid, Thread& t) {
               const uint64_t by = tid / 256, ty = tid % 256 / 16, tx = tid % 16;
               const uint64_t R = 16 * by + ty + 1, C = tx + 1, idx = R * kBpW + C;
               t.begin_block(0);
               const uint32_t d = t.ld(bh + 4 * C), ly = t.ld(bi + 4 * R), ow = t.ld(bpw + 4 * idx), w = t.ld(bw + 4 * idx);
               t.alu(4);
               const uint32_t dw = d * ly + (ow >> 1);
               t.st(bw + 4 * idx, w + dw);
               t.st(bpw + 4 * idx, dw);
               t.end_block();
               t.barrier();
               if (ty == 0 && by == 0) {
                 const uint32_t ow0 = t.ld(bpw + 4 * C), w0 = t.ld(bw + 4 * C);
                 t.alu(3);
                 const uint32_t dw0 = d + (ow0 >> 1);
                 t.st(bw + 4 * C, w0 + dw0);
                 t.st(bpw + 4 * C, dw0);
               }
             }};
      } else {
        return false;
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      const std::vector<uint32_t> x = q.initial(inp);
      std::vector<uint32_t> w = q.initial(wt), ow = q.initial(pw), part(16 * B, 0), delta(kBpW, 0), col(16, 0);
      for (uint64_t R = 1; R <= n; ++R)
        for (uint64_t c = 0; c < 16; ++c) {
          const uint32_t prod = w[R * kBpW + c + 1] * x[R];
          part[16 * ((R - 1) / 16) + c] += prod;
          w[R * kBpW + c + 1] = prod;
        }
      for (uint64_t i = 0; i < 16 * B; ++i) col[i % 16] += part[i];
      for (uint64_t j = 1; j < kBpW; ++j) delta[j] = bp_delta(col[j - 1]);
      for (uint64_t R = 0; R <= n; ++R)
        for (uint64_t C = 1; C < kBpW; ++C) {
          uint32_t& a = w[R * kBpW + C];
          uint32_t& o = ow[R * kBpW + C];
          const uint32_t dw = delta[C] * (R ? x[R] : 1u) + (o >> 1);
          a += dw;
          o = dw;
        }
      return q.expect(g, ps, part, why) && q.expect(g, hd, delta, why) && q.expect(g, wt, w, why) &&
             q.expect(g, pw, ow, why);
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- neuralnet
// GPGPU-Sim ISPASS'09 NN (handwritten-digit convolutional network), I images
// per batch, 4 kernels, each thread a neuron: bias + sum of input x weight.
//   layer1: grid 6 maps x I, 13x13 threads; 5x5 window, stride 2, of the 29x29
//           image (lanes 2 words apart), weights w1[26 map] (broadcast).
//   layer2: grid 50 maps x I, 5x5 threads; 5x5 windows of all 6 13x13 maps,
//           weights w2[156 map + 1 + 6 i + m] (broadcast).
//   layer3: grid 100 x I, 1 thread: 1250 inputs x 1250 weights (w3 row of
//           1251), a single lane walking two arrays.
//   layer4: grid 10 x I, 1 thread: 100 inputs x 100 weights.
// Loads per thread: 1 + 2 x inputs (input then weight per term); 1 store.
constexpr uint64_t kNnIn = 841, kNnL2 = 1014, kNnL3 = 1250, kNnL4 = 100, kNnOut = 10;
constexpr uint64_t kNnW1 = 156, kNnW2 = 7800, kNnW3 = 125100, kNnW4 = 1010;
inline uint32_t nn_act(uint32_t x) { return (x ^ (x >> 15)) & 0xffff; }  // the tanh squashing
// Input index (into the layer's per-image array) of term i of neuron `o`, and
// its weight index, for layers 1..4 (shared by the kernels and the host check).
struct NnTerm {
  uint64_t in, w;
};
inline uint64_t nn_terms(int layer) { return layer == 1 ? 25 : layer == 2 ? 150 : layer == 3 ? kNnL3 : kNnL4; }
inline uint64_t nn_bias(int layer, uint64_t map) {
  return layer == 1 ? 26 * map : layer == 2 ? 156 * map : layer == 3 ? 1251 * map : 101 * map;
}
inline NnTerm nn_term(int layer, uint64_t map, uint64_t px, uint64_t py, uint64_t i) {
  switch (layer) {
    case 1: return {(2 * py + i / 5) * 29 + 2 * px + i % 5, 26 * map + 1 + i};
    case 2: {
      const uint64_t m = i % 6, j = i / 6;
      return {169 * m + (2 * py + j / 5) * 13 + 2 * px + j % 5, 156 * map + 1 + 6 * j + m};
    }
    case 3: return {i, 1251 * map + 1 + i};
    default: return {i, 101 * map + 1 + i};
  }
}
Row row_neuralnet() {
  Row r;
  r.name = "neuralnet";
  r.desc = "4-layer convolutional network over I images, 13x13/5x5/1-thread CTAs, shared weights (GPGPU-Sim NN; HAC Table II NN)";
  r.knobs = {{"images", "images per batch I", 6, 1, 1 << 20}};
  r.size_knob = "images";
  r.footprint = [](const Knobs& k) {
    return 4 * (K(k, "images") * (kNnIn + kNnL2 + kNnL3 + kNnL4 + kNnOut) + kNnW1 + kNnW2 + kNnW3 + kNnW4);
  };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t I = K(k, "images");
    auto p = std::make_unique<LibProgram>("neuralnet", seed);
    const uint64_t per[5] = {kNnIn, kNnL2, kNnL3, kNnL4, kNnOut};
    const uint64_t wsz[4] = {kNnW1, kNnW2, kNnW3, kNnW4};
    unsigned act[5], wts[4];
    act[0] = p->words("layer1_neurons", I * kNnIn, [seed](uint64_t i) { return hash32(seed, 62, i) & 0xff; });
    for (int l = 0; l < 4; ++l)
      wts[l] = p->words("layer" + std::to_string(l + 1) + "_weights", wsz[l],
                        [seed, l](uint64_t i) { return hash32(seed, 63 + l, i) & 0x3ff; });
    for (int l = 1; l < 5; ++l) act[l] = p->words("layer" + std::to_string(l + 1) + "_neurons", I * per[l]);
    LibProgram* P = p.get();
    p->estimate = 4;
    // Offload blocks: each layer's weighted-sum loop (static trip count;
    // live-in the sum with its bias, the input and weight offsets; live-out
    // the sum).
    for (int L = 1; L <= 4; ++L)
      p->offload_blocks("execute_layer" + std::to_string(L),
                        {loop_block("weighted_sum", TripKind::Static, static_cast<uint32_t>(nn_terms(L)), 3, 1, 2, 0, 1)});
    // grid (maps x I), CTA side (13, 5, 1, 1)
    const uint64_t maps[4] = {6, 50, 100, 10}, side[4] = {13, 5, 1, 1};
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= 4) return false;
      const int L = static_cast<int>(kk) + 1;
      const uint64_t ba = P->base(act[kk]), bw = P->base(wts[kk]), bo = P->base(act[kk + 1]);
      const uint64_t nm = maps[kk], sd = side[kk], cta = sd * sd, pin = per[kk], pout = per[kk + 1];
      l.name = "execute_layer" + std::to_string(L);
      l.threads = nm * I * cta;
      l.cta_threads = static_cast<unsigned>(cta);
      l.reads = {act[kk], wts[kk]};
      l.writes = {act[kk + 1]};
      l.body = [=](uint64_t tid, Thread& t) {
        const uint64_t c = tid / cta, map = c % nm, img = c / nm, loc = tid % cta, px = loc % sd, py = loc / sd;
        uint32_t s = t.ld(bw + 4 * nn_bias(L, map));
        t.begin_block(0);
        for (uint64_t i = 0; i < nn_terms(L); ++i) {
          const NnTerm tm = nn_term(L, map, px, py, i);
          const uint32_t a = t.ld(ba + 4 * (img * pin + tm.in));
          s += a * t.ld(bw + 4 * tm.w);
          t.alu();
        }
        t.end_block();
        t.sfu(2);  // tanhf
        t.st(bo + 4 * (img * pout + map * cta + loc), nn_act(s));
      };
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> a = q.initial(act[0]);
      for (int L = 1; L <= 4; ++L) {
        const std::vector<uint32_t> w = q.initial(wts[L - 1]);
        const uint64_t nm = maps[L - 1], sd = side[L - 1], pin = per[L - 1], pout = per[L];
        std::vector<uint32_t> b(I * pout);
        for (uint64_t img = 0; img < I; ++img)
          for (uint64_t map = 0; map < nm; ++map)
            for (uint64_t py = 0; py < sd; ++py)
              for (uint64_t px = 0; px < sd; ++px) {
                uint32_t s = w[nn_bias(L, map)];
                for (uint64_t i = 0; i < nn_terms(L); ++i) {
                  const NnTerm tm = nn_term(L, map, px, py, i);
                  s += a[img * pin + tm.in] * w[tm.w];
                }
                b[img * pout + map * sd * sd + py * sd + px] = nn_act(s);
              }
        if (!q.expect(g, act[L], b, why)) return false;
        a = std::move(b);
      }
      return true;
    };
    return p;
  };
  return r;
}

// ---------------------------------------------------------------- gaussian
// Rodinia gaussian (forward elimination of an n x n system; hybrid graphics
// Table 2 GS): for every pivot t = 0 .. n-2 two small kernels, as Rodinia:
//   Fan1: 512-thread CTAs over n threads, thread r < n-1-t (row i = t+1+r)
//     loads a[i][t] (stride n between lanes) and a[t][t] (broadcast) and
//     stores the multiplier m[i][t].
//   Fan2: a grid of ceil-ish (n/4 + 1)^2 CTAs of 4 x 4 threads (16-lane
//     warps) over the whole matrix at every pivot; threadIdx.x walks rows
//     (lanes 4 rows apart), threadIdx.y columns; thread (x, y) with
//     x < n-1-t, y < n-t loads m[i][t], a[t][j], a[i][j] and stores a[i][j]
//     (i = t+1+x, j = t+y); the y == 0 threads also update b[i] (loads b[i],
//     m[i][t] again, b[t]; 1 store). Threads outside the trapezoid exit.
inline uint32_t ge_mult(uint32_t ait, uint32_t att) { return (ait * (att | 1)) >> 7; }
Row row_gaussian() {
  Row r;
  r.name = "gaussian";
  r.desc = "Gaussian elimination, 2 small kernels (Fan1, Fan2 with 4x4 CTAs) per pivot row (Rodinia gaussian; hybrid graphics Table 2 GS)";
  r.knobs = {{"n", "matrix size n", 128, 2, 1 << 14}};
  r.size_knob = "n";
  r.footprint = [](const Knobs& k) { return 4 * (2 * K(k, "n") * K(k, "n") + K(k, "n")); };
  r.build = [](const Knobs& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t n = K(k, "n"), gb = n / 4 + 1;
    auto p = std::make_unique<LibProgram>("gaussian", seed);
    const unsigned ma = p->words("a", n * n, [seed](uint64_t i) { return hash32(seed, 130, i) & 0xffff; });
    const unsigned mb = p->words("b", n, [seed](uint64_t i) { return hash32(seed, 131, i) & 0xffff; });
    const unsigned mm = p->words("m", n * n);
    LibProgram* P = p.get();
    p->estimate = static_cast<unsigned>(2 * (n - 1));
    // Offload blocks (live-in the thread's row / column indices; t is a kernel
    // parameter): the multiplier, the element update and the b update.
    p->offload_blocks("Fan1", {straight_block("multiplier", 1, 0, 2, 1, 0, 1)});
    p->offload_blocks("Fan2", {straight_block("update_a", 2, 0, 3, 1, 2), straight_block("update_b", 1, 0, 3, 1, 2)});
    p->schedule = [=](unsigned kk, Launch& l) {
      if (kk >= 2 * (n - 1)) return false;
      const uint64_t t = kk / 2, ba = P->base(ma), bb = P->base(mb), bm = P->base(mm);
      if (kk % 2 == 0) {
        l = {"Fan1", (n / 512 + 1) * 512, 16, {ma}, {mm}, [=](uint64_t r, Thread& th) {
               if (r >= n - 1 - t) return;
               const uint64_t i = t + 1 + r;
               th.begin_block(0);
               const uint32_t ait = th.ld(ba + 4 * (n * i + t)), att = th.ld(ba + 4 * (n * t + t));
               th.sfu();  // division
               th.st(bm + 4 * (n * i + t), ge_mult(ait, att));
               th.end_block();
             }};
      } else {
        l.name = "Fan2";
        l.threads = gb * gb * 16;
        l.cta_threads = 16;
        l.reads = {mm, ma, mb};
        l.writes = {ma, mb};
        l.body = [=](uint64_t tid, Thread& th) {
          const uint64_t c = tid / 16, x = 4 * (c % gb) + tid % 4, y = 4 * (c / gb) + tid % 16 / 4;
          if (x >= n - 1 - t || y >= n - t) return;
          const uint64_t i = t + 1 + x, j = t + y;
          th.begin_block(0);
          const uint32_t mi = th.ld(bm + 4 * (n * i + t)), atj = th.ld(ba + 4 * (n * t + j)), aij = th.ld(ba + 4 * (n * i + j));
          th.alu(2);
          th.st(ba + 4 * (n * i + j), aij - mi * atj);
          th.end_block();
          if (y == 0) {
            th.begin_block(1);
            const uint32_t bi = th.ld(bb + 4 * i), m2 = th.ld(bm + 4 * (n * i + t)), bt = th.ld(bb + 4 * t);
            th.alu(2);
            th.st(bb + 4 * i, bi - m2 * bt);
            th.end_block();
          }
        };
      }
      return true;
    };
    p->check = [=](const LibProgram& q, bstore* g, std::string* why) {
      std::vector<uint32_t> a = q.initial(ma), b = q.initial(mb), m = q.initial(mm);
      for (uint64_t t = 0; t + 1 < n; ++t) {
        for (uint64_t i = t + 1; i < n; ++i) m[n * i + t] = ge_mult(a[n * i + t], a[n * t + t]);
        for (uint64_t i = t + 1; i < n; ++i) {
          for (uint64_t j = t; j < n; ++j) a[n * i + j] -= m[n * i + t] * a[n * t + j];
          b[i] -= m[n * i + t] * b[t];
        }
      }
      return q.expect(g, mm, m, why) && q.expect(g, ma, a, why) && q.expect(g, mb, b, why);
    };
    return p;
  };
  return r;
}

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_dense() {
  return {make_info(row_backprop()), make_info(row_neuralnet()), make_info(row_gaussian())};
}

}  // namespace strata
