// stencil2d: 5-point Jacobi relaxation over an nx x ny grid of floats,
//   out[y][x] = 0.2f * ((((c + w) + e) + n) + s)   for interior points,
//   out[y][x] = in[y][x]                             on the border,
// `iters` kernels with in/out swapped after each (ping-pong buffers). One thread
// per point, row-major, 256-thread CTAs. Rows are contiguous, so the centre,
// north and south loads are coalesced and west/east are misaligned by 4 B
// (touching one extra line per warp when a row starts at a line boundary).
//   arrays  grid0, grid1: 4*nx*ny bytes each       footprint = 8 nx ny bytes
//   kernel  per iteration reads 4 nx ny + 16 (nx-2)(ny-2) bytes, writes 4 nx ny bytes
// Offload block (docs/offload_candidates.md): steps 1-11 (5 loads, 5 ALU, the
// store), live-in r0, nothing live-out; border lanes are masked off the
// interior steps (predication), so the warp is converged at the store.
#include <algorithm>
#include <cstring>
#include <vector>

#include "registry.h"

namespace strata {
namespace {

constexpr unsigned kCtaWarps = 8;

inline float init_cell(uint64_t seed, uint64_t i) {
  return static_cast<float>(mix64(seed ^ (i * 0x9e37ull)) >> 40) / 16777216.0f;  // [0, 1), 24-bit exact
}
inline float jacobi(float c, float w, float e, float n, float s) { return 0.2f * ((((c + w) + e) + n) + s); }

class StencilKernel : public Kernel {
 public:
  uint64_t nx = 0, ny = 0, in = 0, out = 0;
  void warp_begin(WarpCtx& w) const override {
    const uint64_t t0 = (static_cast<uint64_t>(w.cta) * warps_per_cta + w.warp) * kWarpSize;
    w.s[0] = t0;
    w.mask = lanes_below(t0, nx * ny);
    uint32_t interior = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!((w.mask >> l) & 1u)) continue;
      const uint64_t g = t0 + l, x = g % nx, y = g / nx;
      if (x > 0 && x + 1 < nx && y > 0 && y + 1 < ny) interior |= 1u << l;
    }
    w.s[1] = interior;
  }
  void warp_next(WarpCtx& w, WarpInst& o) const override {
    const uint64_t t0 = w.s[0];
    const uint32_t inner = static_cast<uint32_t>(w.s[1]);
    for (;;) {
      const uint32_t pc = w.pc++;
      // Interior-only instructions are skipped when no lane of the warp is interior.
      if (pc >= 2 && pc <= 10 && inner == 0) continue;
      switch (pc) {
        case 0: o.alu(0, w.mask); return;  // g, x, y
        case 1: ld(o, 1, w.mask, t0, 0); break;
        case 2: ld(o, 2, inner, t0, -1); break;
        case 3: ld(o, 3, inner, t0, +1); break;
        case 4: ld(o, 4, inner, t0, -static_cast<int64_t>(nx)); break;
        case 5: ld(o, 5, inner, t0, static_cast<int64_t>(nx)); break;
        case 6: o.alu(6, inner, 1, 2); break;
        case 7: o.alu(6, inner, 6, 3); break;
        case 8: o.alu(6, inner, 6, 4); break;
        case 9: o.alu(6, inner, 6, 5); break;
        case 10: o.alu(6, inner, 6); break;  // * 0.2f
        case 11: {
          o.store(w.mask, 4, 6, 0, 1);
          // The warp's inputs in three golden reads (row strips) instead of
          // five per lane: c[1 + l] = in[t0 + l] for l = -1..32 (where it
          // exists), nn[l] / ss[l] = in[t0 + l -/+ nx] for the lanes from the
          // first to the last interior one (all inside the grid: an interior
          // lane's neighbours are, and lanes between two interior lanes lie
          // between rows 1 and ny-2).
          const unsigned n = lanes_end(w.mask);  // lanes 0..n-1 exist
          float c[kWarpSize + 2], nn[kWarpSize], ss[kWarpSize];
          unsigned lo = 1, hi = 1 + n;  // c[lo .. hi) read
          unsigned f = 0, e = 0;        // interior lanes f .. e-1
          if (inner) {
            f = static_cast<unsigned>(__builtin_ctz(inner));
            e = lanes_end(inner);
            lo = std::min(lo, f);          // lane f - 1
            hi = std::max(hi, e + 2);      // lane e
            bstore_read(golden, in + 4 * (t0 + f - nx), nn + f, 4 * (e - f));
            bstore_read(golden, in + 4 * (t0 + f + nx), ss + f, 4 * (e - f));
          }
          bstore_read(golden, in + 4 * (t0 + lo - 1), c + lo, 4 * (hi - lo));
          uint32_t vs[kWarpSize];
          for (unsigned l = 0; l < kWarpSize; ++l) {
            if (!((w.mask >> l) & 1u)) continue;
            const uint64_t g = t0 + l;
            float v = c[1 + l];
            if ((inner >> l) & 1u) v = jacobi(v, c[l], c[l + 2], nn[l], ss[l]);
            uint32_t bits;
            std::memcpy(&bits, &v, 4);
            o.addr[l] = out + 4 * g;
            o.data[l] = bits;
            vs[l] = bits;
          }
          bstore_write(golden, out + 4 * t0, vs, 4 * n);  // lanes 0..n-1, one write
          o.unit_stride = true;  // lane l at out + 4 (t0 + l)
          break;
        }
        default: o.exit(w.mask); return;
      }
      o.in_block(0, pc == 1);  // steps 1..11: the offload block
      return;
    }
  }

 private:
  void ld(WarpInst& o, uint8_t dst, uint32_t mask, uint64_t t0, int64_t delta) const {
    o.load(dst, mask, 4, 0);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((mask >> l) & 1u) o.addr[l] = in + 4 * static_cast<uint64_t>(static_cast<int64_t>(t0 + l) + delta);
    o.unit_stride = true;  // lane l at in + 4 (t0 + delta + l)
  }
};

class StencilProgram : public Program {
 public:
  StencilProgram(uint64_t nx, uint64_t ny, unsigned iters, uint64_t seed)
      : Program("stencil2d"), nx_(nx), ny_(ny), iters_(iters), seed_(seed) {
    g_[0] = add_array("grid0", 4 * nx * ny);
    g_[1] = add_array("grid1", 4 * nx * ny);
  }
  Kernel* next_kernel() override {
    if (it_ >= iters_) return nullptr;
    const unsigned src = it_ & 1u;
    k_.name = "stencil2d_jacobi";
    k_.golden = golden_;
    k_.nx = nx_;
    k_.ny = ny_;
    k_.in = array(g_[src]).base;
    k_.out = array(g_[src ^ 1u]).base;
    k_.warps_per_cta = kCtaWarps;
    k_.ctas = static_cast<uint32_t>((nx_ * ny_ + kCtaWarps * kWarpSize - 1) / (kCtaWarps * kWarpSize));
    k_.reads = {g_[src]};
    k_.writes = {g_[src ^ 1u]};
    OffloadBlock b;
    b.name = "jacobi";
    b.pc_begin = 1;
    b.pc_end = 11;
    b.live_in = 1;  // r0; r1..r6 are written before they are read
    b.loads = 5;
    b.stores = 1;
    b.alu = 5;
    k_.blocks = {b};
    ++it_;
    return &k_;
  }
  bool verify(bstore* g, std::string* why) const override {
    const uint64_t n = nx_ * ny_;
    std::vector<float> a(n), b(n), got(n);
    for (uint64_t i = 0; i < n; ++i) a[i] = init_cell(seed_, i);
    for (unsigned it = 0; it < iters_; ++it) {
      for (uint64_t y = 0; y < ny_; ++y)
        for (uint64_t x = 0; x < nx_; ++x) {
          const uint64_t i = y * nx_ + x;
          b[i] = (x > 0 && x + 1 < nx_ && y > 0 && y + 1 < ny_)
                     ? jacobi(a[i], a[i - 1], a[i + 1], a[i - nx_], a[i + nx_])
                     : a[i];
        }
      a.swap(b);
    }
    bstore_read(g, array(g_[iters_ & 1u]).base, got.data(), 4 * n);
    if (std::memcmp(got.data(), a.data(), 4 * n) != 0) {
      uint64_t i = 0;
      while (std::memcmp(&got[i], &a[i], 4) == 0) ++i;
      if (why)
        *why = "stencil2d: grid[" + std::to_string(i / nx_) + "][" + std::to_string(i % nx_) + "] = " +
               std::to_string(got[i]) + ", expected " + std::to_string(a[i]);
      return false;
    }
    return true;
  }
  unsigned kernels_estimate() const override { return iters_; }

 protected:
  void init_data() override {
    const uint64_t n = nx_ * ny_;
    std::vector<float> buf(n);
    for (uint64_t i = 0; i < n; ++i) buf[i] = init_cell(seed_, i);
    write_init(array(g_[0]).base, buf.data(), 4 * n);
  }

 private:
  uint64_t nx_, ny_;
  unsigned iters_;
  uint64_t seed_;
  unsigned g_[2];
  unsigned it_ = 0;
  StencilKernel k_;
};

}  // namespace

WorkloadInfo workload_stencil2d() {
  WorkloadInfo wi;
  wi.name = "stencil2d";
  wi.desc = "5-point Jacobi over an nx x ny float grid, iters sweeps, ping-pong buffers (footprint 8 nx ny bytes)";
  wi.knobs = {{"nx", "grid width (points)", 2048, 3, 1 << 16},
              {"ny", "grid height (points)", 768, 3, 1 << 16},
              {"iters", "Jacobi sweeps (kernel launches)", 2, 1, 1000}};
  wi.make = [wi](const std::map<std::string, int64_t>& k, uint64_t seed) -> std::unique_ptr<Program> {
    const uint64_t nx = static_cast<uint64_t>(knob(wi, k, "nx")), ny = static_cast<uint64_t>(knob(wi, k, "ny"));
    if (nx * ny > (uint64_t(1) << 30)) throw std::invalid_argument("workload.stencil2d: nx * ny must be <= 2^30");
    return std::make_unique<StencilProgram>(nx, ny, static_cast<unsigned>(knob(wi, k, "iters")), seed);
  };
  return wi;
}

}  // namespace strata
