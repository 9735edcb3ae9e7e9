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
// Arithmetic is 32-bit unsigned and wraps: only the memory behaviour is the
// benchmark's; the values are real, seeded, and checked against host loops.
#include <algorithm>

#include "workloads/lib_core.h"

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
               const uint32_t d = t.ld(bh + 4 * C), ly = t.ld(bi + 4 * R), ow = t.ld(bpw + 4 * idx), w = t.ld(bw + 4 * idx);
               t.alu(4);
               const uint32_t dw = d * ly + (ow >> 1);
               t.st(bw + 4 * idx, w + dw);
               t.st(bpw + 4 * idx, dw);
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

}  // namespace

std::vector<WorkloadInfo> workloads_pattern_dense() { return {make_info(row_backprop())}; }

}  // namespace strata
