// random: GUPS-like scattered read-modify-write (HPCC RandomAccess spirit):
// thread i updates table[perm(i)] ^= key(i) on 64-bit words, where perm is a
// seeded bijection of [0, table_words), so no two threads touch the same word
// (race-free) and each warp touches up to 32 distinct lines (ea = 1).
//   array   table: 8 * table_words bytes           footprint = 8 table_words bytes
//   kernel  gups: ceil(updates/256) CTAs x 8 warps; reads 8 updates bytes, writes 8 updates bytes
// Offload block (docs/offload_candidates.md): the read-modify-write, steps 2-4,
// live-in r0 (the hashed index), nothing live-out: 1 load, 1 store.
#include <algorithm>
#include <vector>

#include "registry.h"

namespace strata {
namespace {

constexpr unsigned kCtaWarps = 8;

// Seeded bijection of [0, n): a bijection f of [0, 2^k) (odd multiply,
// xor-shift, add; each invertible mod 2^k) applied by cycle walking until the
// value falls below n (a bijection of [0, n); expected < 2 steps as n > 2^(k-1)).
struct Perm {
  uint64_t n = 1, mask = 0, m1 = 1, m2 = 1, a1 = 0;
  unsigned k = 0, sh = 1;
  Perm() = default;
  Perm(uint64_t n_, uint64_t seed) : n(n_) {
    while ((uint64_t(1) << k) < n) ++k;
    mask = (k >= 64) ? ~0ull : ((uint64_t(1) << k) - 1);
    m1 = mix64(seed ^ 0x1111) | 1;
    m2 = mix64(seed ^ 0x2222) | 1;
    a1 = mix64(seed ^ 0x3333);
    sh = std::max(1u, k / 2);
  }
  uint64_t f(uint64_t x) const {
    x = (x * m1) & mask;
    x ^= x >> sh;
    x = (x + a1) & mask;
    x = (x * m2) & mask;
    x ^= x >> sh;
    return x;
  }
  uint64_t operator()(uint64_t i) const {
    uint64_t x = f(i);
    while (x >= n) x = f(x);
    return x;
  }
};

inline uint64_t init_word(uint64_t seed, uint64_t j) { return mix64(seed * 0x51ull ^ mix64(j)); }
inline uint64_t key(uint64_t seed, uint64_t i) { return mix64(~seed ^ (i << 1)); }

class GupsKernel : public Kernel {
 public:
  uint64_t updates = 0, table = 0, seed = 0;
  Perm perm;
  void warp_begin(WarpCtx& w) const override {
    const uint64_t t0 = (static_cast<uint64_t>(w.cta) * warps_per_cta + w.warp) * kWarpSize;
    w.s[0] = t0;
    w.mask = lanes_below(t0, updates);
    for (unsigned l = 0; l < kWarpSize; ++l)
      if ((w.mask >> l) & 1u) w.t[0][l] = perm(t0 + l);
  }
  void warp_next(WarpCtx& w, WarpInst& o) const override {
    switch (w.pc++) {
      case 0: o.alu(0, w.mask); return;     // index hash (perm) ...
      case 1: o.alu(0, w.mask, 0); return;  // ... two dependent ALU steps
      case 2:
        o.load(1, w.mask, 8, 0);
        for (unsigned l = 0; l < kWarpSize; ++l)
          if ((w.mask >> l) & 1u) o.addr[l] = table + 8 * w.t[0][l];
        o.in_block(0, true);
        return;
      case 3: o.alu(2, w.mask, 1); o.in_block(0); return;  // v ^= key(i)
      case 4:
        o.store(w.mask, 8, 2, 0);
        for (unsigned l = 0; l < kWarpSize; ++l) {
          if (!((w.mask >> l) & 1u)) continue;
          o.addr[l] = table + 8 * w.t[0][l];
          o.data[l] = gold_u64(golden, o.addr[l]) ^ key(seed, w.s[0] + l);
          bstore_write(golden, o.addr[l], &o.data[l], 8);
        }
        o.in_block(0);
        return;
      default: o.exit(w.mask); return;
    }
  }
};

class GupsProgram : public Program {
 public:
  GupsProgram(uint64_t words, uint64_t updates, uint64_t seed)
      : Program("random"), words_(words), updates_(updates), seed_(seed) {
    t_ = add_array("table", 8 * words);
  }
  // The kernel reads the arrays' bases when it is launched (a placement engine may place them).
  bool relocatable() const override { return true; }
  Kernel* next_kernel() override {
    if (launched_) return nullptr;
    launched_ = true;
    k_.name = "gups";
    k_.golden = golden_;
    k_.updates = updates_;
    k_.table = array(t_).base;
    k_.seed = seed_;
    k_.perm = Perm(words_, seed_);
    k_.warps_per_cta = kCtaWarps;
    k_.ctas = static_cast<uint32_t>((updates_ + kCtaWarps * kWarpSize - 1) / (kCtaWarps * kWarpSize));
    k_.reads = {t_};
    k_.writes = {t_};
    OffloadBlock b;
    b.name = "update";
    b.pc_begin = 2;
    b.pc_end = 4;
    b.live_in = 1;  // r0, read by the load and the store, written by step 1
    b.loads = 1;
    b.stores = 1;
    b.alu = 1;
    k_.blocks = {b};
    return &k_;
  }
  bool verify(bstore* g, std::string* why) const override {
    std::vector<uint64_t> exp(words_), got(words_);
    for (uint64_t j = 0; j < words_; ++j) exp[j] = init_word(seed_, j);
    const Perm p(words_, seed_);
    for (uint64_t i = 0; i < updates_; ++i) exp[p(i)] ^= key(seed_, i);
    bstore_read(g, array(t_).base, got.data(), 8 * words_);
    for (uint64_t j = 0; j < words_; ++j)
      if (got[j] != exp[j]) {
        if (why) *why = "random: table[" + std::to_string(j) + "] differs from the host-side update sequence";
        return false;
      }
    return true;
  }
  unsigned kernels_estimate() const override { return 1; }

 protected:
  void init_data() override {
    std::vector<uint64_t> buf(words_);
    for (uint64_t j = 0; j < words_; ++j) buf[j] = init_word(seed_, j);
    write_init(array(t_).base, buf.data(), 8 * words_);
  }

 private:
  uint64_t words_, updates_, seed_;
  unsigned t_;
  GupsKernel k_;
  bool launched_ = false;
};

}  // namespace

// For tests: the permutation is a bijection (exposed through a tiny hook).
uint64_t random_workload_perm(uint64_t n, uint64_t seed, uint64_t i) { return Perm(n, seed)(i); }

WorkloadInfo workload_random() {
  WorkloadInfo wi;
  wi.name = "random";
  wi.desc = "GUPS-like scattered 64-bit read-modify-write table[perm(i)] ^= key(i) (footprint 8 table_words bytes)";
  wi.knobs = {{"table_words", "64-bit words in the table", 4 << 20, 32, int64_t(1) << 31},
              {"updates", "updates (threads), at most table_words", 128 << 10, 1, int64_t(1) << 31}};
  wi.make = [wi](const std::map<std::string, int64_t>& k, uint64_t seed) -> std::unique_ptr<Program> {
    const int64_t words = knob(wi, k, "table_words"), upd = knob(wi, k, "updates");
    if (upd > words)
      throw std::invalid_argument("workload.random.updates (" + std::to_string(upd) +
                                  ") must be <= workload.random.table_words (" + std::to_string(words) + ")");
    return std::make_unique<GupsProgram>(static_cast<uint64_t>(words), static_cast<uint64_t>(upd), seed);
  };
  return wi;
}

}  // namespace strata
