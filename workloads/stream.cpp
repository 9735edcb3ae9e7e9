// stream: c[i] = a[i] + b[i] over 32-bit integers (STREAM "add" kernel,
// McCalpin). Fully coalesced: every warp reads two 128 B lines and writes one.
//   arrays  a, b, c: 4*n bytes each            footprint = 12 n bytes
//   kernel  add: ceil(n/256) CTAs x 8 warps; reads 8 n bytes, writes 4 n bytes
// Offload block (docs/offload_candidates.md): steps 1-4 (ld a, ld b, add, st c),
// live-in r0 (the thread index), nothing live-out: 2 loads, 1 store.
#include <algorithm>
#include <vector>

#include "registry.h"

namespace strata {
namespace {

constexpr unsigned kCtaWarps = 8;

inline uint32_t init_a(uint64_t seed, uint64_t i) { return static_cast<uint32_t>(mix64(seed * 2 + 0) ^ mix64(i)); }
inline uint32_t init_b(uint64_t seed, uint64_t i) { return static_cast<uint32_t>(mix64(seed * 2 + 1) ^ mix64(~i)); }

// The add block: steps 1..4 read r0 (written by step 0) and write r1..r3, read
// only inside; no barrier, atomic or shared memory; no branch.
OffloadBlock stream_block() {
  OffloadBlock b;
  b.name = "add";
  b.pc_begin = 1;
  b.pc_end = 4;
  b.live_in = 1;
  b.loads = 2;
  b.stores = 1;
  b.alu = 1;
  return b;
}

class StreamKernel : public Kernel {
 public:
  uint64_t n = 0, a = 0, b = 0, c = 0;
  void warp_begin(WarpCtx& w) const override {
    w.s[0] = (static_cast<uint64_t>(w.cta) * warps_per_cta + w.warp) * kWarpSize;  // first thread
    w.mask = lanes_below(w.s[0], n);
  }
  void warp_next(WarpCtx& w, WarpInst& o) const override {
    const uint64_t t0 = w.s[0];
    switch (w.pc++) {
      case 0: o.alu(0, w.mask); return;  // i = blockIdx.x * blockDim.x + threadIdx.x
      case 1: fill(o, 1, a, w); o.in_block(0, true); return;
      case 2: fill(o, 2, b, w); o.in_block(0); return;
      case 3: o.alu(3, w.mask, 1, 2); o.in_block(0); return;
      case 4: {
        uint32_t va[kWarpSize], vb[kWarpSize], vc[kWarpSize];
        const unsigned cnt = static_cast<unsigned>(std::min<uint64_t>(kWarpSize, n - t0));
        bstore_read(golden, a + 4 * t0, va, 4 * cnt);
        bstore_read(golden, b + 4 * t0, vb, 4 * cnt);
        o.store(w.mask, 4, 3, 0);
        // Locals: the stores into o.addr / o.data could otherwise alias the
        // kernel's fields and w, which blocks vectorisation.
        const uint64_t c0 = c + 4 * t0;
        uint64_t* const oa = o.addr;
        uint64_t* const od = o.data;
        for (unsigned l = 0; l < cnt; ++l) {
          vc[l] = va[l] + vb[l];
          oa[l] = c0 + 4 * l;
          od[l] = vc[l];
        }
        o.unit_stride = true;  // lanes 0..cnt-1 = w.mask
        bstore_write(golden, c + 4 * t0, vc, 4 * cnt);
        o.in_block(0);
        return;
      }
      default: o.exit(w.mask); return;
    }
  }

 private:
  static void fill(WarpInst& o, uint8_t dst, uint64_t base, const WarpCtx& w) {
    o.load(dst, w.mask, 4, 0);
    const uint64_t a0 = base + 4 * w.s[0];  // a local: vectorisable (o.addr could alias w.s)
    uint64_t* const oa = o.addr;
    for (unsigned l = 0; l < kWarpSize; ++l) oa[l] = a0 + 4 * l;
    o.unit_stride = true;
  }
};

class StreamProgram : public Program {
 public:
  StreamProgram(uint64_t n, uint64_t seed) : Program("stream"), n_(n), seed_(seed) {
    a_ = add_array("a", 4 * n);
    b_ = add_array("b", 4 * n);
    c_ = add_array("c", 4 * n);
  }
  // The kernel reads the arrays' bases when it is launched (a placement engine may place them).
  bool relocatable() const override { return true; }
  Kernel* next_kernel() override {
    if (launched_) return nullptr;
    launched_ = true;
    k_.name = "stream_add";
    k_.golden = golden_;
    k_.n = n_;
    k_.a = array(a_).base;
    k_.b = array(b_).base;
    k_.c = array(c_).base;
    k_.warps_per_cta = kCtaWarps;
    k_.ctas = static_cast<uint32_t>((n_ + kCtaWarps * kWarpSize - 1) / (kCtaWarps * kWarpSize));
    k_.reads = {a_, b_};
    k_.writes = {c_};
    k_.blocks = {stream_block()};
    return &k_;
  }
  bool verify(bstore* g, std::string* why) const override {
    std::vector<uint32_t> va(kChunk), vb(kChunk), vc(kChunk);
    for (uint64_t i0 = 0; i0 < n_; i0 += kChunk) {
      const uint64_t m = std::min<uint64_t>(kChunk, n_ - i0);
      bstore_read(g, array(a_).base + 4 * i0, va.data(), 4 * m);
      bstore_read(g, array(b_).base + 4 * i0, vb.data(), 4 * m);
      bstore_read(g, array(c_).base + 4 * i0, vc.data(), 4 * m);
      for (uint64_t j = 0; j < m; ++j) {
        const uint64_t i = i0 + j;
        const uint32_t ea = init_a(seed_, i), eb = init_b(seed_, i);
        if (va[j] != ea || vb[j] != eb || vc[j] != ea + eb) {
          if (why) *why = "stream: c[" + std::to_string(i) + "] = " + std::to_string(vc[j]) + ", expected " +
                          std::to_string(ea + eb) + (va[j] != ea || vb[j] != eb ? " (inputs modified)" : "");
          return false;
        }
      }
    }
    return true;
  }
  unsigned kernels_estimate() const override { return 1; }

 protected:
  void init_data() override {
    std::vector<uint32_t> buf(kChunk);
    for (uint64_t i0 = 0; i0 < n_; i0 += kChunk) {
      const uint64_t m = std::min<uint64_t>(kChunk, n_ - i0);
      for (uint64_t j = 0; j < m; ++j) buf[j] = init_a(seed_, i0 + j);
      write_init(array(a_).base + 4 * i0, buf.data(), 4 * m);
      for (uint64_t j = 0; j < m; ++j) buf[j] = init_b(seed_, i0 + j);
      write_init(array(b_).base + 4 * i0, buf.data(), 4 * m);
    }
  }

 private:
  static constexpr uint64_t kChunk = 1 << 16;
  uint64_t n_, seed_;
  unsigned a_, b_, c_;
  StreamKernel k_;
  bool launched_ = false;
};

}  // namespace

WorkloadInfo workload_stream() {
  WorkloadInfo wi;
  wi.name = "stream";
  wi.desc = "STREAM add c[i] = a[i] + b[i], 32-bit ints, fully coalesced (footprint 12 n bytes)";
  wi.knobs = {{"n", "elements per array", 2 << 20, 32, int64_t(1) << 30}};
  wi.make = [wi](const std::map<std::string, int64_t>& k, uint64_t seed) -> std::unique_ptr<Program> {
    return std::make_unique<StreamProgram>(static_cast<uint64_t>(knob(wi, k, "n")), seed);
  };
  return wi;
}

}  // namespace strata
